/* Unit test of the STL reader (io/stl.c): the same two triangles written as ASCII STL, as binary
 * STL and as binary STL whose 80-byte header starts with "solid" (as some exporters write it) read
 * back as the same coordinates (float32 values, so exactly), binary told apart by its size; and
 * one message each for a binary file with a NaN coordinate (naming the triangle), one with a
 * count that does not match its size, an ASCII file without 'endsolid', and an empty solid. */
// ctest: labels=unit timeout=30
#include "io/stl.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>

#include "test_check.h"

static float tri[2][9] = {{0, 0, 0, 1.5f, 0, 0, 1.5f, 2.25f, 0},
                          {0, 0, 0, 1.5f, 2.25f, 0, -0.125f, 2.25f, 0.0009765625f}};

static void write_binary(const char *path, const char *header, uint32_t declared, int n)
{
  FILE          *fp = fopen(path, "wb");
  char           h[80];
  const float    normal[3] = {0, 0, 1};
  const uint16_t attr      = 0;
  memset(h, ' ', sizeof h);
  memcpy(h, header, strlen(header));
  fwrite(h, 1, sizeof h, fp);
  fwrite(&declared, 4, 1, fp); /* the test machine is little-endian, as STL is */
  for (int t = 0; t < n; t++) {
    fwrite(normal, 4, 3, fp);
    fwrite(tri[t], 4, 9, fp);
    fwrite(&attr, 2, 1, fp);
  }
  fclose(fp);
}

static void write_ascii(const char *path, int end)
{
  FILE *fp = fopen(path, "w");
  fprintf(fp, "solid two\n");
  for (int t = 0; t < 2; t++) {
    fprintf(fp, "  facet normal 0 0 1\n    outer loop\n");
    for (int k = 0; k < 3; k++)
      fprintf(fp, "      vertex %.9g %.9g %.9g\n", tri[t][3 * k], tri[t][3 * k + 1], tri[t][3 * k + 2]);
    fprintf(fp, "    endloop\n  endfacet\n");
  }
  if (end) fprintf(fp, "endsolid two\n");
  fclose(fp);
}

static void expect_triangles(const char *path, PetscBool binary)
{
  StlTriangles t;
  char         err[512];
  PetscCallAbort(PETSC_COMM_SELF, StlRead(path, &t, err, sizeof err));
  CHECK(!err[0] && t.n == 2 && t.binary == binary, "%s: %s (n = %d, binary %d)", path, err, (int)t.n, (int)t.binary);
  for (int i = 0; !err[0] && i < 2; i++)
    for (int k = 0; k < 9; k++)
      CHECK(t.vertex[9 * i + k] == (double)tri[i][k], "%s: triangle %d coordinate %d is %g, expected %g", path, i, k,
            t.vertex[9 * i + k], (double)tri[i][k]);
  PetscCallAbort(PETSC_COMM_SELF, StlFree(&t));
}

static void expect_error(const char *path, const char *text)
{
  StlTriangles t;
  char         err[512];
  PetscCallAbort(PETSC_COMM_SELF, StlRead(path, &t, err, sizeof err));
  CHECK(err[0] && strstr(err, text) && t.n == 0 && !t.vertex, "%s: message '%s' lacks '%s'", path, err, text);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  write_ascii("test_stl_ascii.stl", 1);
  expect_triangles("test_stl_ascii.stl", PETSC_FALSE);
  write_binary("test_stl_binary.stl", "exported by a CAD program", 2, 2);
  expect_triangles("test_stl_binary.stl", PETSC_TRUE);
  write_binary("test_stl_solid_binary.stl", "solid two exported as binary", 2, 2);
  expect_triangles("test_stl_solid_binary.stl", PETSC_TRUE);

  write_binary("test_stl_count.stl", "solid but wrong count", 3, 2);
  expect_error("test_stl_count.stl", "header declares 3 triangles (234 bytes) while the file has 184 bytes");
  write_ascii("test_stl_noend.stl", 0);
  expect_error("test_stl_noend.stl", "test_stl_noend.stl:15: ASCII STL: the file ends without 'endsolid'");
  {
    FILE *fp = fopen("test_stl_empty.stl", "w");
    fprintf(fp, "solid nothing\nendsolid nothing\n");
    fclose(fp);
    expect_error("test_stl_empty.stl", "holds no triangles");
  }
  {
    const float saved = tri[1][4];
    tri[1][4]         = NAN;
    write_binary("test_stl_nan.stl", "nan", 2, 2);
    tri[1][4] = saved;
    expect_error("test_stl_nan.stl", "binary STL triangle 1 (from 0): vertex 1 coordinate 1 is not a finite number");
  }
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  PetscCall(PetscFinalize());
  return failures != 0;
}
