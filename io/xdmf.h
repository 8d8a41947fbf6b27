/* OUT/snapshots.xmf: the XDMF 3 temporal collection over the snapshot files, for ParaView/VisIt.
 *
 * Every body is one point of a Polyvertex grid (spheres and boxes alike) at /bodies/position, with
 * point attributes radius, velocity, angular_velocity (world frame), id, rank, material, shape,
 * half_extents and quaternion. Spheres: glyph by 'radius'. A snapshot with boxes makes its time
 * step a spatial collection of that grid ("bodies") and a second one ("boxes", from /boxes) with a
 * point per box at its centre and half_extents, quaternion, velocity, angular_velocity, id, rank,
 * material: glyph a cube scaled by half_extents and oriented by quaternion. Snapshots with walls
 * add a grid per wall kind ("plane walls": a quad per plane clipped to the domain box; "box walls":
 * a hexahedron per box at its pose; io/wall_output.h) with cell attributes wall, force and torque;
 * snapshots with a contact network (output.contacts) add "contacts", a line per contact between
 * the two bodies' centres with cell attributes id_a, id_b, point, normal, normal_force and
 * tangential_force (colour or tube the lines by normal_force). Then the time step is a spatial
 * collection of all of them. */
#ifndef CCPDEM_IO_XDMF_H
#define CCPDEM_IO_XDMF_H
#include <petscsys.h>

/* Not collective (the snapshot writer calls it on rank 0). Scans OUT/snapshots/ for files named
 * snap-<step>.h5, reads each one's step and time attributes and row count, and rewrites
 * OUT/snapshots.xmf (io/output_file.h IoText: a unique temporary, fsync, rename) listing those with
 * step <= last_step in step order; *errnum <- 0, or the errno of a failed write (the old index
 * then stays as it was). Later steps are left out because after a restart from an earlier checkpoint they belong
 * to the abandoned trajectory (their files stay until overwritten). Snapshots with no bodies are
 * left out (readers reject zero-size HDF5 data items); unreadable files are skipped with a warning
 * on stderr so a stray file cannot stop a run. */
PetscErrorCode XdmfWriteSnapshotIndex(const char *outdir, PetscInt64 last_step, int *errnum);
#endif
