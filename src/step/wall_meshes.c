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
  PetscCall(PetscMalloc1(2 * (size_t)wm->n + 2, &wm->window));
  for (int k = 0; k <= wm->n; k++) { /* no window: cut at the first fit */
    wm->window[2 * k]     = 1;
    wm->window[2 * k + 1] = 0;
  }
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

/* What wall w's motion (bodies/walls.h) can move a point of its frame between times t0 and any time in [t0, t1]:
 * *T bounds its translation and *chord its turn, so a point at distance rho from the axis at t0 moves by at most
 * T + chord rho. With dtau = tau(t1) - tau(t0), the time in motion over the window (start and end clamp it):
 *   T = |velocity| dtau + |amplitude| min(2, 2 pi frequency dtau) >= |d(s) - d(t0)|
 *     (d = velocity tau + amplitude sin(2 pi frequency tau); |sin a - sin b| <= min(2, |a - b|));
 *   chord = 2 sin(min(|omega| dtau, pi) / 2): a turn by phi <= |omega| dtau about the axis moves a point at distance
 *     rho from it by the chord 2 sin(phi / 2) rho <= chord rho (the chord, not |omega| dtau rho: a window of half a
 *     turn or more costs at most the diameter about the axis).
 * Both zero before the motion starts and after it ends. Not collective. */
static void Sweep(const Wall *w, double t0, double t1, double *T, double *chord)
{
  const WallMotion *m    = &w->motion;
  const double      dtau = m->moving ? wall_motion_tau(m, t1) - wall_motion_tau(m, t0) : 0;
  const double      v = v3_norm(m->velocity), a = v3_norm(m->amplitude);

  *T     = 0;
  *chord = 0;
  if (!(dtau > 0)) return;
  if (v > 0) *T += v * dtau;
  if (a > 0 && m->frequency > 0) *T += a * PetscMin(2.0, 2 * M_PI * m->frequency * dtau);
  if (m->omega != 0) *chord = 2 * sin(0.5 * PetscMin(fabs(m->omega) * dtau, M_PI));
}

/* The distance of x from the line through p along unit a. */
static double AxisDistance(const double x[3], const double p[3], const double a[3])
{
  double r[3], along;
  v3_sub(r, x, p);
  along = v3_dot(r, a);
  return sqrt(PetscMax(0.0, v3_dot(r, r) - along * along));
}

/* An upper bound on how far, in the frame of the mesh that wall w places, a point of the box [lo, hi] (world) moves
 * between the wall's pose at time t0 (w's pose; its pivot the axis point then) and its pose at any time s in
 * [t0, t1]: the distance the point of the mesh's frame that lies there at s travels from where the frame put it at
 * t0 (the frames differ by a rigid map, so its frame coordinates move by the same distance). That point is at most
 * rho from the axis at s, rho <= the box's farthest corner from the axis at t0 (the distance from a line is convex)
 * plus the axis's travel T, so the bound is T + chord (rho + T) (Sweep). Not collective. */
static double Growth(const Wall *w, double t0, double t1, const double lo[3], const double hi[3])
{
  double T, chord, far = 0;

  Sweep(w, t0, t1, &T, &chord);
  if (chord > 0)
    for (int corner = 0; corner < 8; corner++) {
      double x[3];
      for (int k = 0; k < 3; k++) x[k] = (corner >> k) & 1 ? hi[k] : lo[k];
      far = PetscMax(far, AxisDistance(x, w->pivot, w->motion.axis));
    }
  return T + chord * (far + T);
}

/* The last step of the window that a part cut at step (the walls posed at t = step h) serves: the growth over it
 * (Growth, for the domain grown by the halo, so every rank gets the same window; each rank's own box moves less) at
 * most the halo, and at least the step itself; INT64_MAX where the motion never moves the mesh that far (a fixed
 * mesh, a motion that ends). The halo as the budget: a part reaches at most one halo beyond the fixed part's box, and
 * a mesh that moves a halo (at least a body's diameter) in one step would pass through bodies, so useful motions get
 * windows of many steps and re-cut rarely. Not collective. */
static PetscInt64 WindowEnd(const Wall *w, PetscInt64 step, double h, const double lo[3], const double hi[3],
                            double budget)
{
  const double t0   = (double)step * h;
  PetscInt64   good = 0, bad = 1;

  if (Growth(w, t0, INFINITY, lo, hi) <= budget) return INT64_MAX;
  while (Growth(w, t0, (double)(step + bad) * h, lo, hi) <= budget && bad < (INT64_C(1) << 52)) {
    good = bad;
    bad *= 2;
  }
  while (bad - good > 1) { /* Growth grows with the window's end */
    const PetscInt64 mid = good + (bad - good) / 2;
    if (Growth(w, t0, (double)(step + mid) * h, lo, hi) <= budget) good = mid;
    else bad = mid;
  }
  return step + good;
}

/* Of the triangles keep[0 .. *n) of mesh whole placed by wall w (its pose at the window's start), those whose bounds
 * (the mesh's frame), taken into the world at some pose of the window, may reach the box [lo, hi] (world): the
 * world bounds of their bounds' corners, grown by how far the window's motion moves those corners (T + chord rho,
 * Sweep, rho the farthest corner's distance from the axis), meet it; into keep[0 .. *n) in their order. Not
 * collective. */
static void KeepNearInWorld(const TriMesh *whole, const Wall *w, double T, double chord, const double lo[3],
                            const double hi[3], int32_t *keep, PetscInt *n)
{
  double   R[9];
  PetscInt kept = 0;

  quat_to_matrix(w->quat, R);
  for (PetscInt i = 0; i < *n; i++) {
    const int32_t *tri = whole->tri + 3 * (size_t)keep[i];
    double         tlo[3], thi[3], wlo[3] = {INFINITY, INFINITY, INFINITY}, whi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double         rho   = 0, grow;
    PetscBool      meets = PETSC_TRUE;
    for (int a = 0; a < 3; a++) {
      tlo[a] = PetscMin(whole->v[3 * tri[0] + a], PetscMin(whole->v[3 * tri[1] + a], whole->v[3 * tri[2] + a]));
      thi[a] = PetscMax(whole->v[3 * tri[0] + a], PetscMax(whole->v[3 * tri[1] + a], whole->v[3 * tri[2] + a]));
    }
    for (int corner = 0; corner < 8; corner++) {
      double m[3], x[3];
      for (int a = 0; a < 3; a++) m[a] = (corner >> a) & 1 ? thi[a] : tlo[a];
      mat_vec(x, R, m);
      v3_add(x, x, w->center);
      for (int a = 0; a < 3; a++) {
        wlo[a] = PetscMin(wlo[a], x[a]);
        whi[a] = PetscMax(whi[a], x[a]);
      }
      if (chord > 0) rho = PetscMax(rho, AxisDistance(x, w->pivot, w->motion.axis));
    }
    grow = T + chord * rho;
    for (int a = 0; a < 3; a++) meets = (PetscBool)(meets && whi[a] + grow >= lo[a] && wlo[a] - grow <= hi[a]);
    if (meets) keep[kept++] = keep[i];
  }
  *n = kept;
}

/* The triangles of mesh whole placed by wall w (its pose at the window's start) that a part for the subdomain box
 * [sub_lo, sub_hi] and halo keeps over a window whose motion bounds are g (Growth, for the subdomain grown by the
 * halo), T and chord (Sweep): into keep[] (whole->nt entries), ascending, and their count into *n. Not collective. */
static void Select(const TriMesh *whole, const Wall *w, const double sub_lo[3], const double sub_hi[3], double halo,
                   double g, double T, double chord, int32_t *keep, PetscInt *n)
{
  const double far = sqrt(3.0) * halo;
  double       lo[3], hi[3], flo[3], fhi[3], mlo[3], mhi[3];

  for (int a = 0; a < 3; a++) {
    lo[a]  = sub_lo[a] - halo;
    hi[a]  = sub_hi[a] + halo;
    flo[a] = sub_lo[a] - far;
    fhi[a] = sub_hi[a] + far;
  }
  BoxInMeshFrame(w, lo, hi, mlo, mhi);
  for (int a = 0; a < 3; a++) {
    mlo[a] -= g;
    mhi[a] += g;
  }
  TriMeshSelectBox(whole, mlo, mhi, keep, n);
  KeepNearInWorld(whole, w, T, chord, flo, fhi, keep, n);
}

void WallMeshSelect(const TriMesh *whole, const Wall *w, const double lo[3], const double hi[3], double halo,
                    int32_t *keep, PetscInt *n)
{
  Select(whole, w, lo, hi, halo, 0, 0, 0, keep, n);
}

/* This rank's part of mesh wall k (walls[k] posed at t = step h) for the subdomain box [lo, hi] and the halo over
 * the steps step .. *until (WindowEnd, for the domain box [dlo, dhi] grown by the halo): into *part, or NULL where
 * it would hold the whole mesh and the whole mesh is not stripped (detection reads the whole, no copy). The whole
 * mesh is stripped before a part is built (the population's placement checks are done), so the rank holds the
 * whole mesh's queries or the part's, not both at once. Not collective. */
static PetscErrorCode CutPart(WallMeshes *wm, int k, const Wall *walls, PetscInt64 step, double h, const double lo[3],
                              const double hi[3], double halo, const double dlo[3], const double dhi[3], TriMesh **part,
                              PetscInt64 *until)
{
  TriMesh     *whole = wm->mesh[k];
  const double t0    = (double)step * h;
  int32_t     *keep;
  double       glo[3], ghi[3], t1, T, chord;
  PetscInt     n;

  PetscFunctionBegin;
  *part  = NULL;
  *until = WindowEnd(&walls[k], step, h, dlo, dhi, halo);
  t1     = *until == INT64_MAX ? INFINITY : (double)*until * h;
  for (int a = 0; a < 3; a++) {
    glo[a] = lo[a] - halo;
    ghi[a] = hi[a] + halo;
  }
  Sweep(&walls[k], t0, t1, &T, &chord);
  PetscCall(PetscMalloc1(whole->nt, &keep));
  Select(whole, &walls[k], lo, hi, halo, Growth(&walls[k], t0, t1, glo, ghi), T, chord, keep, &n);
  if (n < whole->nt || !whole->rec) {
    if (whole->rec) PetscCall(TriMeshStrip(whole));
    PetscCall(TriMeshCreateSubset(whole, n, keep, part));
  }
  PetscCall(PetscFree(keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WallMeshesFit(WallMeshes *wm, Domain d, Wall *walls, PetscInt64 step, double h)
{
  MPI_Comm       comm;
  PetscMPIInt    rank;
  PetscInt       nfit = 0;
  double        *fit  = NULL, lo[3], hi[3], dlo[3], dhi[3], halo;
  TriMesh      **part;
  PetscInt64    *until;
  PetscErrorCode ierr = PETSC_SUCCESS;
  PetscBool      same, *due;
  int            failed, any_failed, ndue = 0;

  PetscFunctionBegin;
  PetscCall(SameDecomposition(wm, d, &same));
  for (int k = 0; k < wm->n; k++) {
    if (!wm->mesh[k]) continue;
    ndue += !same || step < wm->window[2 * k] || step > wm->window[2 * k + 1];
  }
  if (!ndue) PetscFunctionReturn(PETSC_SUCCESS); /* the same on every rank: replicated data */
  PetscCall(Decomposition(d, NULL, &nfit));
  PetscCall(PetscMalloc1(nfit, &fit));
  PetscCall(Decomposition(d, fit, &nfit));
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DomainSubdomainBox(d, rank, lo, hi));
  PetscCall(DomainGetBounds(d, dlo, dhi));
  halo = fit[nfit - 1];
  /* A body this rank owns at detection has its centre in the subdomain box, or within lag = skin / 2 of it while
     the ghosts are kept (owners lag: step/placement.c), and its contacts reach rho = r + envelope <= r_max +
     envelope from it (a box's and an ellipsoid's bounding radius; a clump's members lie within its). The halo is
     2 r_max + envelope (+ skin while ghosts are kept: ExchangeHaloWidth, PlacementSetUpHalo), so lag + rho <= halo
     with r_max to spare (the frame change's rounding is 1e-16 of the coordinates). A query visits the records whose
     bounds meet its cube, centre +- rho along the mesh's axes (collision/triangle_contact.c): the cube lies within
     the box grown by the halo along each of the mesh's axes, so within that box's bounds in the mesh's frame, and
     within lag + sqrt(3) rho <= sqrt(3) halo of the box in the world. So the selection (WallMeshSelect) holds each
     triangle a query of the whole visits and every triangle on an edge or vertex within reach: the same contacts,
     bit for bit (TriMeshCreateSubset). Over a moving mesh's window each point the selection tests moves by at most
     its growth (Growth for the box's corners in the frame, KeepNearInWorld's for the triangles' bounds), so the
     selection at the window's start, grown, holds the selection at every later step of the window. */
  for (int k = 0; k < 3; k++) {
    dlo[k] -= halo;
    dhi[k] += halo;
  }
  PetscCall(PetscCalloc3(wm->n + 1, &part, wm->n + 1, &until, wm->n + 1, &due));
  for (int k = 0; k < wm->n && !ierr; k++) {
    due[k] = (PetscBool)(wm->mesh[k] && (!same || step < wm->window[2 * k] || step > wm->window[2 * k + 1]));
    if (due[k]) ierr = CutPart(wm, k, walls, step, h, lo, hi, halo, dlo, dhi, &part[k], &until[k]);
  }
  failed = ierr != PETSC_SUCCESS;
  PetscCallMPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  if (failed || any_failed) {
    for (int k = 0; k < wm->n; k++) PetscCall(TriMeshDestroy(&part[k]));
    PetscCall(PetscFree3(part, until, due));
    PetscCall(PetscFree(fit));
    PetscCall(ierr);
    SETERRQ(comm, PETSC_ERR_MEM,
            "mesh walls: another rank could not cut its part of the meshes (its message says why)");
  }
  wm->bytes = 0;
  for (int k = 0; k < wm->n; k++) {
    if (due[k]) {
      PetscCall(TriMeshDestroy(&wm->part[k]));
      wm->part[k]           = part[k];
      wm->window[2 * k]     = step;
      wm->window[2 * k + 1] = until[k];
      walls[k].mesh         = part[k] ? part[k] : wm->mesh[k];
      PetscCall(PetscInfo(NULL,
                          "mesh wall %d: rank %d keeps %" PetscInt_FMT " of %" PetscInt_FMT " triangles (%.3g MB) "
                          "for steps %" PetscInt64_FMT " to %" PetscInt64_FMT ", subdomain [%g, %g, %g] to [%g, %g, "
                          "%g] grown by %g\n",
                          k, rank, walls[k].mesh->nt, wm->mesh[k]->nt, (double)walls[k].mesh->bytes / 1e6, step,
                          until[k], lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], halo));
    }
    if (wm->mesh[k]) wm->bytes += wm->mesh[k]->bytes;
    if (wm->part[k]) wm->bytes += wm->part[k]->bytes;
  }
  PetscCall(PetscFree3(part, until, due));
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
  PetscCall(PetscFree(wm->window));
  PetscCall(PetscFree(wm->fit));
  PetscCall(PetscMemzero(wm, sizeof(*wm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
