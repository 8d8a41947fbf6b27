/* The triangles of a scenario's mesh walls (walls of type mesh), loaded once and replicated on
 * every rank, as plane and box walls are: each STL file read (io/stl.h) by rank 0 of the
 * communicator and broadcast, scaled, and built into a collision mesh (collision/trimesh.h) in
 * the mesh's own frame; the wall's position and orientation place it (Wall.center, Wall.quat), so
 * a moving mesh changes only those.
 *
 * On several ranks each rank's detection reads only its part of each mesh (WallMeshesFit): the triangles whose
 * bounds reach its subdomain grown by the ghost halo (WallMeshSelect), cut again whenever the cuts or the halo
 * change; every rank
 * keeps the whole mesh's vertices and triangles (stripped, collision/trimesh.h) to draw it and to cut parts from
 * without communication. A moving mesh's part serves a window of steps: it holds, in the mesh's frame, every
 * triangle that can come within the subdomain and halo during the window (the box grown by a bound on the motion
 * over the window), and is cut again when the window ends; its motion is prescribed, so no rank asks another. */
#ifndef CCPDEM_STEP_WALL_MESHES_H
#define CCPDEM_STEP_WALL_MESHES_H
#include "scenario/scenario.h"
#include "collision/trimesh.h"
#include "decomp/domain.h"

typedef struct {
  int         n;    /* sc->n_walls at the load */
  TriMesh   **mesh; /* per wall: its whole mesh, or NULL (not a mesh wall); stripped once parts are cut */
  TriMesh   **part; /* per wall: this rank's part (WallMeshesFit), or NULL (one rank; a window's part would be whole) */
  PetscInt64 *window; /* per wall: the first and last step its part serves (2 per wall); first > last: none */
  double     *fit;    /* the decomposition the parts were cut for (grid, cuts, halo), nfit values; NULL: none */
  PetscInt    nfit;
  size_t      bytes; /* what the meshes and parts hold on this rank */
} WallMeshes;

/* Loads every mesh wall of sc whose mesh is NULL and points sc->walls[k].mesh at it (owned by
 * *wm; WallMeshesDestroy frees them). Collective on comm. Bad input (an STL file that cannot be
 * read or is malformed, a triangle of zero area, a mesh entirely outside the domain, a motion that
 * carries the middle of the mesh's bounding box out of the domain before time.end): err set to
 * one line (SCENARIO:LINE: key 'walls[k]...': what is wrong; what to change), the same on every
 * rank, and nothing loaded. */
PetscErrorCode WallMeshesLoad(MPI_Comm comm, Scenario *sc, WallMeshes *wm, char *err, size_t errlen);
/* This rank's part of every mesh wall for decomposition d (its subdomain box and halo) and the step step, whose walls
 * are posed at t = step h (SimulationWallsAtTime): cut again where the grid, cuts or halo differ from those the parts
 * were cut for, or where step lies outside the window the part was cut for; walls[k].mesh pointed at the part, or
 * at the whole where a part would hold every triangle and the whole is not stripped (the detection's walls; the
 * scenario's keep the whole), and a whole mesh stripped at its first part (so the population's placement checks,
 * which query it, must come before). A part holds what WallMeshSelect selects at every pose of its window: the
 * selection at the window's first pose, its boxes grown by a bound on how far the motion moves the points they test
 * over the window. A fixed mesh's window has no end; a moving mesh's ends where that bound, for the domain grown by
 * the halo, would pass the halo (so the windows are the same on every rank, and a part reaches at most a halo
 * further than a fixed one). Needs every owned body's centre within halo / 2 of the subdomain (the owners' lag
 * while ghosts are kept: at most skin / 2) and the halo at least 2 r_max + envelope (+ skin): decomp/ghosts.h.
 * Collective on d's communicator (the decision reads replicated data only; a failure to cut is agreed, an error on
 * every rank). */
PetscErrorCode WallMeshesFit(WallMeshes *wm, Domain d, Wall *walls, PetscInt64 step, double h);
/* The triangles of mesh whole, placed by wall w as it is posed, that a part for the subdomain box [lo, hi] (world)
 * and halo holds for that pose alone (a window of one step, WallMeshesFit): those whose bounds reach the box grown by
 * the halo in the mesh's frame (its corners taken there) and whose bounds' corners, taken into the world, reach the
 * box grown by sqrt(3) halo (a query's cube, of half-width rho about a centre within lag of the box, lag + rho <=
 * halo, lies within lag + sqrt(3) rho <= sqrt(3) halo of it). A superset of the triangles any query of a body owned
 * there visits: into keep[] (whole->nt entries), ascending, their count into *n. whole may be stripped. Not
 * collective. */
void WallMeshSelect(const TriMesh *whole, const Wall *w, const double lo[3], const double hi[3], double halo,
                    int32_t *keep, PetscInt *n);
/* Frees the meshes (the walls that point at them must not be used after). */
PetscErrorCode WallMeshesDestroy(WallMeshes *wm);
#endif
