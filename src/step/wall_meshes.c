/* The mesh walls' triangles (contracts in step/wall_meshes.h). */
#include "step/wall_meshes.h"
#include "io/stl.h"
#include "bodies/wall_motion.h"
#include "base/vec3.h"
#include <stdarg.h>
#include <stdio.h>

/* err = "SCENARIO:LINE: key 'walls[k].KEY': " and the message. */
static void bad(char *err, size_t errlen, const Scenario *sc, int k, const char *key, const char *fmt, ...)
{
  va_list ap;
  int     len = snprintf(err, errlen, "%s:%d: key 'walls[%d].%s': ", sc->path, sc->wall_lines[k], k, key);
  if (len < 0 || (size_t)len >= errlen) return;
  va_start(ap, fmt);
  vsnprintf(err + len, errlen - (size_t)len, fmt, ap);
  va_end(ap);
}

/* Wall k's triangles on every rank of comm (rank 0 reads the file), scaled; err set alike on every
 * rank when the file is bad input. */
static PetscErrorCode read_shared(MPI_Comm comm, const Scenario *sc, int k, StlTriangles *t, char *err, size_t errlen)
{
  const Wall *w = &sc->walls[k];
  PetscMPIInt rank;
  char        why[SCENARIO_ERR_MAX] = "";
  PetscInt    n                     = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(StlRead(w->file, t, why, sizeof why));
    n = t->n;
  }
  PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof why, MPI_CHAR, 0, comm));
  if (why[0]) {
    PetscCall(StlFree(t));
    bad(err, errlen, sc, k, "file", "%s", why);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, comm));
  if (rank) {
    t->n = n;
    PetscCall(PetscMalloc1(9 * (size_t)n, &t->vertex));
  }
  PetscCallMPI(MPI_Bcast(t->vertex, (PetscMPIInt)(9 * n), MPI_DOUBLE, 0, comm)); /* 9 n < 2^31: STL_MAX_TRIANGLES */
  for (size_t i = 0; i < 9 * (size_t)n; i++) {
    t->vertex[i] *= w->scale;
    if (!isfinite(t->vertex[i])) {
      bad(err, errlen, sc, k, "file", "%s: scale %g makes triangle %zu's coordinates overflow; give a smaller scale",
          w->file, w->scale, i / 9);
      PetscCall(StlFree(t));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether mesh m placed by wall w reaches the domain (its vertices' world bounding box does). */
static PetscBool meets_domain(const Scenario *sc, const Wall *w, const TriMesh *m, double lo[3], double hi[3])
{
  PetscBool meets = PETSC_TRUE;
  for (PetscInt v = 0; v < m->nv; v++) {
    double x[3];
    quat_rotate(x, w->quat, m->v + 3 * (size_t)v);
    v3_add(x, x, w->center);
    for (int k = 0; k < 3; k++) {
      lo[k] = v ? PetscMin(lo[k], x[k]) : x[k];
      hi[k] = v ? PetscMax(hi[k], x[k]) : x[k];
    }
  }
  for (int k = 0; k < 3; k++) meets = (PetscBool)(meets && hi[k] >= sc->domain_min[k] && lo[k] <= sc->domain_max[k]);
  return meets;
}

/* Whether the middle of mesh m's bounding box, placed by wall w and carried by its motion, stays
 * inside the domain over [0, time.end] (as a box's centre must); err set where not. */
static PetscBool stays_in_domain(const Scenario *sc, const Wall *w, const TriMesh *m, char *err, size_t errlen, int k)
{
  double c[3], t, x[3];
  if (!w->motion.moving) return PETSC_TRUE;
  quat_rotate(c, w->quat, m->centre);
  v3_add(c, c, w->center);
  if (wall_motion_stays_inside(&w->motion, c, sc->time_end, sc->domain_min, sc->domain_max, &t, x)) return PETSC_TRUE;
  bad(err, errlen, sc, k, "motion",
      "carries the mesh's centre (the middle of its bounding box, at [%g, %g, %g] at t = 0) out of the domain: at t = "
      "%g s it is at [%g, %g, %g]; change the motion (velocity, end, amplitude) or widen the domain",
      c[0], c[1], c[2], t, x[0], x[1], x[2]);
  return PETSC_FALSE;
}

PetscErrorCode WallMeshesLoad(MPI_Comm comm, Scenario *sc, WallMeshes *wm, char *err, size_t errlen)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(wm, sizeof(*wm)));
  err[0] = 0;
  wm->n  = sc->n_walls;
  PetscCall(PetscCalloc1((size_t)wm->n + 1, &wm->mesh));
  PetscCall(PetscCalloc1((size_t)wm->n + 1, &wm->part));
  for (int k = 0; k < sc->n_walls && !err[0]; k++) {
    Wall        *w = &sc->walls[k];
    StlTriangles t;
    PetscInt     degenerate;
    double       lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};

    if (w->type != WALL_MESH || w->mesh) continue;
    PetscCall(read_shared(comm, sc, k, &t, err, errlen));
    if (err[0]) break;
    PetscCall(TriMeshCreate(t.n, t.vertex, &wm->mesh[k], &degenerate));
    PetscCall(StlFree(&t));
    if (degenerate >= 0) {
      bad(err, errlen, sc, k, "file",
          "%s: triangle %" PetscInt_FMT " (from 0) has zero area (its corners coincide or lie on one line, at scale "
          "%g); remove it from the mesh",
          w->file, degenerate, w->scale);
      break;
    }
    if (!meets_domain(sc, w, wm->mesh[k], lo, hi)) {
      bad(err, errlen, sc, k, "file",
          "%s: the mesh (from [%g, %g, %g] to [%g, %g, %g] as placed) lies entirely outside the domain; check the "
          "wall's position, orientation and scale (the file's units)",
          w->file, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
      break;
    }
    if (!stays_in_domain(sc, w, wm->mesh[k], err, errlen, k)) break;
    w->mesh = wm->mesh[k];
    wm->bytes += wm->mesh[k]->bytes;
  }
  if (err[0]) {
    for (int k = 0; k < sc->n_walls; k++)
      if (wm->mesh[k]) sc->walls[k].mesh = NULL;
    PetscCall(WallMeshesDestroy(wm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The decomposition as WallMeshesFit compares it: the grid, every axis's cuts and the halo, into fit (NULL: only
 * counted), their count into *nfit. The same on every rank. */
static PetscErrorCode Decomposition(Domain d, double *fit, PetscInt *nfit)
{
  PetscInt dims[3], at = 0;
  double   halo;

  PetscFunctionBegin;
  PetscCall(DomainGetGrid(d, dims));
  for (int k = 0; k < 3; k++) {
    if (fit) fit[at] = (double)dims[k];
    at++;
  }
  for (int k = 0; k < 3; k++) {
    const double *cuts;
    PetscCall(DomainGetCuts(d, k, &cuts));
    for (PetscInt i = 0; i <= dims[k]; i++, at++)
      if (fit) fit[at] = cuts[i];
  }
  PetscCall(DomainGetHalo(d, &halo));
  if (fit) fit[at] = halo;
  *nfit = at + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the parts were cut for decomposition d as it is now (no allocation: asked every step). */
static PetscErrorCode SameDecomposition(const WallMeshes *wm, Domain d, PetscBool *same)
{
  PetscInt dims[3], at = 0;
  double   halo;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  if (!wm->fit) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DomainGetGrid(d, dims));
  if (wm->nfit != 3 + dims[0] + dims[1] + dims[2] + 3 + 1) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < 3; k++)
    if (wm->fit[at++] != (double)dims[k]) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < 3; k++) {
    const double *cuts;
    PetscCall(DomainGetCuts(d, k, &cuts));
    for (PetscInt i = 0; i <= dims[k]; i++)
      if (wm->fit[at++] != cuts[i]) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DomainGetHalo(d, &halo));
  *same = (PetscBool)(wm->fit[at] == halo);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The box [lo, hi] (world) as the smallest box in the frame of the mesh that wall w places: the bounds of its
 * corners there, computed as the queries compute a body's centre there (collision/triangle_contact.c). */
static void BoxInMeshFrame(const Wall *w, const double lo[3], const double hi[3], double mlo[3], double mhi[3])
{
  double R[9];

  quat_to_matrix(w->quat, R);
  for (int corner = 0; corner < 8; corner++) {
    double x[3], d[3], m[3];
    for (int k = 0; k < 3; k++) x[k] = (corner >> k) & 1 ? hi[k] : lo[k];
    v3_sub(d, x, w->center);
    mat_tvec(m, R, d);
    for (int k = 0; k < 3; k++) {
      mlo[k] = corner ? PetscMin(mlo[k], m[k]) : m[k];
      mhi[k] = corner ? PetscMax(mhi[k], m[k]) : m[k];
    }
  }
}

/* This rank's parts of the fixed meshes for the box [lo, hi] (world) into part[] (wm->n entries, NULL where none).
 * Not collective. */
static PetscErrorCode CutParts(const WallMeshes *wm, const Wall *walls, const double lo[3], const double hi[3],
                               TriMesh **part)
{
  int32_t *keep = NULL;

  PetscFunctionBegin;
  for (int k = 0; k < wm->n; k++) {
    const TriMesh *whole = wm->mesh[k];
    double         mlo[3], mhi[3];
    PetscInt       n;

    if (!whole || walls[k].motion.moving) continue;
    PetscCall(PetscFree(keep));
    PetscCall(PetscMalloc1(whole->nt, &keep));
    BoxInMeshFrame(&walls[k], lo, hi, mlo, mhi);
    TriMeshSelectBox(whole, mlo, mhi, keep, &n);
    PetscCall(TriMeshCreateSubset(whole, n, keep, &part[k]));
  }
  PetscCall(PetscFree(keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WallMeshesFit(WallMeshes *wm, Domain d, Wall *walls)
{
  MPI_Comm       comm;
  PetscMPIInt    rank;
  PetscInt       nfit = 0;
  double        *fit  = NULL, lo[3], hi[3], halo;
  TriMesh      **part;
  PetscErrorCode ierr;
  PetscBool      same;
  int            failed, any_failed, fixed = 0;

  PetscFunctionBegin;
  for (int k = 0; k < wm->n; k++) fixed += wm->mesh[k] && !walls[k].motion.moving;
  if (!fixed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SameDecomposition(wm, d, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Decomposition(d, NULL, &nfit));
  PetscCall(PetscMalloc1(nfit, &fit));
  PetscCall(Decomposition(d, fit, &nfit));
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DomainSubdomainBox(d, rank, lo, hi));
  halo = fit[nfit - 1];
  /* A body this rank owns at detection has its centre in the subdomain box, or within skin / 2 of it while the
     ghosts are kept (owners lag: step/placement.c), and its contacts reach r + envelope <= r_max + envelope from
     it (a box's and an ellipsoid's bounding radius; a clump's members lie within its). The halo is 2 r_max +
     envelope (+ skin while ghosts are kept: ExchangeHaloWidth, PlacementSetUpHalo), so the box grown by it holds
     every point within reach of an owned body with r_max + skin / 2 to spare (the frame change's rounding is
     1e-16 of the coordinates); its bounds in the mesh's frame hold every query's cube there
     (collision/triangle_contact.c visits records whose bounds meet it), so the part holds each triangle a query
     of the whole visits and every triangle on an edge or vertex within reach: the same contacts, bit for bit
     (TriMeshCreateSubset). */
  for (int k = 0; k < 3; k++) {
    lo[k] -= halo;
    hi[k] += halo;
  }
  PetscCall(PetscCalloc1(wm->n + 1, &part));
  ierr   = CutParts(wm, walls, lo, hi, part);
  failed = ierr != PETSC_SUCCESS;
  PetscCallMPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  if (failed || any_failed) {
    for (int k = 0; k < wm->n; k++) PetscCall(TriMeshDestroy(&part[k]));
    PetscCall(PetscFree(part));
    PetscCall(PetscFree(fit));
    PetscCall(ierr);
    SETERRQ(comm, PETSC_ERR_MEM,
            "mesh walls: another rank could not cut its part of the meshes (its message says why)");
  }
  wm->bytes = 0;
  for (int k = 0; k < wm->n; k++) {
    if (part[k]) {
      PetscCall(TriMeshDestroy(&wm->part[k]));
      wm->part[k] = part[k];
      if (wm->mesh[k]->rec) PetscCall(TriMeshStrip(wm->mesh[k])); /* the population's checks are done */
      walls[k].mesh = part[k];
      PetscCall(PetscInfo(NULL,
                          "mesh wall %d: rank %d keeps %" PetscInt_FMT " of %" PetscInt_FMT " triangles (%.3g MB), "
                          "subdomain [%g, %g, %g] to [%g, %g, %g] grown by %g\n",
                          k, rank, part[k]->nt, wm->mesh[k]->nt, (double)part[k]->bytes / 1e6, lo[0] + halo,
                          lo[1] + halo, lo[2] + halo, hi[0] - halo, hi[1] - halo, hi[2] - halo, halo));
    }
    if (wm->mesh[k]) wm->bytes += wm->mesh[k]->bytes;
    if (wm->part[k]) wm->bytes += wm->part[k]->bytes;
  }
  PetscCall(PetscFree(part));
  PetscCall(PetscFree(wm->fit));
  wm->fit  = fit;
  wm->nfit = nfit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WallMeshesDestroy(WallMeshes *wm)
{
  PetscFunctionBegin;
  for (int k = 0; k < wm->n; k++) PetscCall(TriMeshDestroy(&wm->mesh[k]));
  for (int k = 0; k < wm->n && wm->part; k++) PetscCall(TriMeshDestroy(&wm->part[k]));
  PetscCall(PetscFree(wm->mesh));
  PetscCall(PetscFree(wm->part));
  PetscCall(PetscFree(wm->fit));
  PetscCall(PetscMemzero(wm, sizeof(*wm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
