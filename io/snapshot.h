/* Snapshots (GUIDE "Files"): OUT/snapshots/snap-NNNNNN.h5, written collectively, each rank its own
 * rows (hyperslab), plus OUT/snapshots.xmf, the XDMF temporal collection ParaView opens. */
#ifndef CCPDEM_IO_SNAPSHOT_H
#define CCPDEM_IO_SNAPSHOT_H
#include "bodies/body_store.h"
#include "bodies/walls.h"
#include "bodies/clump.h"

/* One contact of the network a snapshot may hold (/contacts), as its step found and resolved it. */
typedef struct {
  int64_t id_a, id_b;          /* global ids of A and B (a wall: wall_global_id, negative) */
  double  point[3];            /* contact point (world), at the step's start */
  double  normal[3];           /* unit normal from A to B */
  double  normal_force;        /* the step's force on B along normal (N; CCP: impulse / time step) */
  double  tangential_force[3]; /* the step's force on B in the tangent plane (N, world) */
  double  ends[6];             /* the line drawn for it: A's centre (a wall: the point), then B's centre */
} SnapshotContact;

/* What a snapshot holds besides the bodies. */
typedef struct {
  const Wall   *walls; /* the walls at their current pose (n_walls; the same on every rank) */
  int           n_walls;
  const double *wall_loads; /* 9 per wall, the same on every rank: the last step's force on the wall (N),
                               its torque (N m) about the point that follows (io/wall_output.h) */
  double                 domain_min[3], domain_max[3]; /* the box that clips the planes drawn */
  PetscBool              contacts;                     /* write /contacts (output.contacts) */
  PetscInt               n_contacts;                   /* this rank's */
  const SnapshotContact *contact;
  const Clump           *clumps; /* the clump templates (bodies/clump.h): write /clump_members; NULL: none */
} SnapshotExtras;

/* Collective. Writes the owned bodies [0, s->n_owned) of every rank; angular velocity is written in
 * the world frame. With extra (may be NULL: neither), the walls (/walls, when there are any), the
 * contacts (/contacts, when extra->contacts) and the clumps' members (/clump_members, when
 * extra->clumps), and then OUT/walls.csv is rebuilt too (io/wall_series.h). Creates
 * OUT/snapshots/ if needed and rewrites OUT/snapshots.xmf to list all snapshots written so far in this output directory
 * (rank 0). A failure to write (a full disk) is agreed by every rank: err <- "writing PATH: reason" on every rank (else
 * ""), and the file that failed is not left behind (io/h5.h IoH5Output). */
PetscErrorCode SnapshotWrite(MPI_Comm comm, const char *outdir, PetscInt64 step, double time, const BodyStore *s,
                             const SnapshotExtras *extra, char *err, size_t errlen);
#endif
