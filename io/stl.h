/* STL files (triangle meshes): ASCII or binary, told apart by the file's size, never by its first
 * word (binary files may start with "solid" too): a file of exactly 84 + 50 n bytes, n the count
 * its header declares at byte 80, is binary; else one that starts with "solid" is ASCII; anything
 * else is malformed. Facet normals in the file are ignored (the vertices' order is what a mesh
 * keeps). Reading is not collective: the caller decides which rank reads and shares the result. */
#ifndef CCPDEM_IO_STL_H
#define CCPDEM_IO_STL_H
#include <petscsys.h>

/* The most triangles a file may hold (16 bytes of vertex indices, 72 of coordinates and more of
 * the mesh's tables each: 2^26 triangles are several GB on every rank). */
#define STL_MAX_TRIANGLES ((PetscInt)1 << 26)

typedef struct {
  PetscInt  n;      /* triangles */
  double   *vertex; /* 9 per triangle: its three vertices (x, y, z) in the file's order; PetscMalloc'ed */
  PetscBool binary;
} StlTriangles;

/* Reads the STL file at path into *t (zeroed first; StlFree releases it). Bad input (a file that
 * cannot be read, a malformed or truncated one, no triangles, a coordinate that is not a finite
 * number) leaves *t empty and writes one message into err ("PATH: what is wrong; what to change",
 * with the line for ASCII and the triangle index for binary files); otherwise err[0] = 0. PETSc
 * errors only for a failed allocation. Not collective. */
PetscErrorCode StlRead(const char *path, StlTriangles *t, char *err, size_t errlen);
PetscErrorCode StlFree(StlTriangles *t);
#endif
