/* STL files (contracts in io/stl.h). */
#include "io/stl.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STL_HEADER 84 /* 80 bytes of header text, then the triangle count (uint32, little endian) */
#define STL_RECORD 50 /* per triangle: normal and 3 vertices (12 float32, little endian), 2 attribute bytes */
/* An ASCII facet takes about 250 bytes: a larger file holds more triangles than STL_MAX_TRIANGLES */
#define STL_ASCII_MAX ((size_t)STL_MAX_TRIANGLES * 1024)

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  if (err[0]) return; /* the first problem is the one reported */
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static uint32_t le32(const unsigned char *b)
{
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double le_float(const unsigned char *b)
{
  const uint32_t u = le32(b);
  float          f;
  memcpy(&f, &u, sizeof f);
  return (double)f;
}

/* The whole file into *buf (NUL-terminated, *size bytes before the NUL), or err set. */
static PetscErrorCode read_all(const char *path, char **buf, size_t *size, char *err, size_t errlen)
{
  FILE       *fp;
  struct stat st;
  size_t      got;

  PetscFunctionBegin;
  *buf = NULL;
  if (!(fp = fopen(path, "rb"))) {
    fail(err, errlen,
         "%s: cannot open the STL file: %s; give the path of an STL file (relative to the scenario's folder)", path,
         strerror(errno));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
    fail(err, errlen, "%s: not a regular file; give the path of an STL file", path);
    fclose(fp);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *size = (size_t)st.st_size;
  if (*size > STL_ASCII_MAX) {
    fail(err, errlen,
         "%s: %zu bytes is larger than an STL file of %" PetscInt_FMT
         " triangles (the most ccpdem reads); coarsen the mesh",
         path, *size, STL_MAX_TRIANGLES);
    fclose(fp);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(*size + 1, buf));
  got = fread(*buf, 1, *size, fp);
  if (got != *size || ferror(fp)) {
    fail(err, errlen, "%s: reading the STL file failed after %zu of %zu bytes: %s", path, got, *size,
         ferror(fp) ? strerror(errno) : "the file shrank while it was read");
    PetscCall(PetscFree(*buf));
  } else (*buf)[*size] = 0;
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode read_binary(const char *path, const unsigned char *b, PetscInt n, StlTriangles *t, char *err,
                                  size_t errlen)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(9 * (size_t)n, &t->vertex));
  for (PetscInt i = 0; i < n; i++) {
    const unsigned char *rec = b + STL_HEADER + (size_t)STL_RECORD * i + 12; /* past the facet normal */
    for (int k = 0; k < 9; k++) {
      const double x = le_float(rec + 4 * k);
      if (!isfinite(x)) {
        fail(err, errlen,
             "%s: binary STL triangle %" PetscInt_FMT " (from 0): vertex %d coordinate %d is not a finite number; "
             "repair or re-export the mesh",
             path, i, k / 3, k % 3);
        PetscCall(PetscFree(t->vertex));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      t->vertex[9 * (size_t)i + k] = x;
    }
  }
  t->n      = n;
  t->binary = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An ASCII STL's words, one at a time, with the line each is on. */
typedef struct {
  char       *p;
  int         line;      /* of the reading position */
  int         word_line; /* of the last word read */
  const char *path;
  char       *err;
  size_t      errlen;
} Words;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* The next word (NUL-terminated in place), or NULL at the end of the text. */
static char *next_word(Words *w)
{
  char *start;
  while (is_space(*w->p)) w->line += *w->p++ == '\n';
  if (!*w->p) return NULL; /* word_line stays the last word's: the end of the file is reported there */
  w->word_line = w->line;
  start        = w->p;
  while (*w->p && !is_space(*w->p)) w->p++;
  if (*w->p) {
    w->line += *w->p == '\n';
    *w->p++ = 0;
  }
  return start;
}

/* Whether the next word is `want`; if not, err names the line and what was found. */
static int expect(Words *w, const char *want)
{
  char *s = next_word(w);
  if (s && !strcmp(s, want)) return 1;
  fail(w->err, w->errlen, "%s:%d: ASCII STL: expected '%s', found %s%s%s; %s", w->path, w->word_line, want,
       s ? "'" : "the end of the file", s ? s : "", s ? "'" : "",
       s ? "repair or re-export the mesh" : "the file is truncated");
  return 0;
}

static int number(Words *w, double *x)
{
  char *s = next_word(w), *end;
  if (!s) {
    fail(w->err, w->errlen, "%s:%d: ASCII STL: expected a number, found the end of the file; the file is truncated",
         w->path, w->word_line);
    return 0;
  }
  *x = strtod(s, &end);
  if (*end || end == s) {
    fail(w->err, w->errlen, "%s:%d: ASCII STL: '%s' is not a number; repair or re-export the mesh", w->path,
         w->word_line, s);
    return 0;
  }
  if (!isfinite(*x)) {
    fail(w->err, w->errlen, "%s:%d: ASCII STL: coordinate '%s' is not a finite number; repair or re-export the mesh",
         w->path, w->word_line, s);
    return 0;
  }
  return 1;
}

static PetscErrorCode read_ascii(const char *path, char *text, StlTriangles *t, char *err, size_t errlen)
{
  Words    w   = {.p = text, .line = 1, .word_line = 1, .path = path, .err = err, .errlen = errlen};
  PetscInt cap = 0, n    = 0;
  double   normal[3], *v = NULL;
  char    *s;

  PetscFunctionBegin;
  if (!expect(&w, "solid")) PetscFunctionReturn(PETSC_SUCCESS);
  while (*w.p && *w.p != '\n') w.p++; /* the solid's name (next_word counts the newline) */
  for (;;) {
    s = next_word(&w);
    if (!s) {
      fail(err, errlen, "%s:%d: ASCII STL: the file ends without 'endsolid'; the file is truncated", path, w.word_line);
      break;
    }
    if (!strcmp(s, "endsolid")) break;
    if (strcmp(s, "facet")) {
      fail(err, errlen, "%s:%d: ASCII STL: expected 'facet' or 'endsolid', found '%s'; repair or re-export the mesh",
           path, w.word_line, s);
      break;
    }
    if (n == STL_MAX_TRIANGLES) {
      fail(err, errlen,
           "%s:%d: ASCII STL: more than %" PetscInt_FMT " triangles (the most ccpdem reads); coarsen the mesh", path,
           w.word_line, STL_MAX_TRIANGLES);
      break;
    }
    if (n == cap) {
      double *grown;
      cap = cap ? PetscMin(2 * cap, STL_MAX_TRIANGLES) : 64;
      PetscCall(PetscMalloc1(9 * (size_t)cap, &grown));
      if (n) PetscCall(PetscArraycpy(grown, v, 9 * (size_t)n));
      PetscCall(PetscFree(v));
      v = grown;
    }
    if (!expect(&w, "normal") || !number(&w, &normal[0]) || !number(&w, &normal[1]) || !number(&w, &normal[2]) ||
        !expect(&w, "outer") || !expect(&w, "loop"))
      break;
    int ok = 1;
    for (int k = 0; k < 3 && ok; k++)
      ok = expect(&w, "vertex") && number(&w, &v[9 * (size_t)n + 3 * k]) && number(&w, &v[9 * (size_t)n + 3 * k + 1]) &&
           number(&w, &v[9 * (size_t)n + 3 * k + 2]);
    if (!ok || !expect(&w, "endloop") || !expect(&w, "endfacet")) break;
    n++;
  }
  if (err[0]) PetscCall(PetscFree(v));
  else {
    t->vertex = v;
    t->n      = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StlRead(const char *path, StlTriangles *t, char *err, size_t errlen)
{
  char  *buf  = NULL;
  size_t size = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  err[0] = 0;
  PetscCall(read_all(path, &buf, &size, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (size >= STL_HEADER) {
    const uint32_t n = le32((const unsigned char *)buf + 80);
    if (n <= (uint32_t)STL_MAX_TRIANGLES && size == STL_HEADER + (size_t)STL_RECORD * n) {
      PetscCall(read_binary(path, (const unsigned char *)buf, (PetscInt)n, t, err, errlen));
      goto done;
    }
  }
  {
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (strncmp(p, "solid", 5) || (size_t)(p - buf) + 5 > size) {
      if (size >= STL_HEADER)
        fail(err, errlen,
             "%s: neither ASCII STL (it does not start with 'solid') nor binary STL (its header declares %u triangles, "
             "%zu bytes, but the file has %zu bytes: truncated or not STL); repair or re-export the mesh",
             path, le32((const unsigned char *)buf + 80),
             STL_HEADER + (size_t)STL_RECORD * le32((const unsigned char *)buf + 80), size);
      else
        fail(err, errlen,
             "%s: %zu bytes is neither ASCII STL (no 'solid') nor binary STL (at least 84 bytes); repair or re-export "
             "the mesh",
             path, size);
      goto done;
    }
    if (memchr(buf, 0, size)) {
      fail(err, errlen,
           "%s: starts with 'solid' but holds binary data, and its header declares %u triangles (%zu bytes) while the "
           "file has %zu bytes: a truncated binary STL or not STL; repair or re-export the mesh",
           path, size >= STL_HEADER ? le32((const unsigned char *)buf + 80) : 0u,
           size >= STL_HEADER ? STL_HEADER + (size_t)STL_RECORD * le32((const unsigned char *)buf + 80) : (size_t)0,
           size);
      goto done;
    }
    PetscCall(read_ascii(path, buf, t, err, errlen));
  }
done:
  PetscCall(PetscFree(buf));
  if (!err[0] && t->n == 0)
    fail(err, errlen, "%s: the STL file holds no triangles; give a mesh with at least one", path);
  if (err[0]) PetscCall(StlFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StlFree(StlTriangles *t)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(t->vertex));
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
