/* OUT/walls.csv: per wall the force and torque of the step before each snapshot, one row per
 * snapshot (rebuilt from the snapshots' /walls each time one is written, as the XDMF index is: it
 * stays right across restarts and runs killed between a snapshot and its update).
 *
 * Columns: step, time_s, then per wall k (scenario order) wall<k>_fx_N, wall<k>_fy_N, wall<k>_fz_N
 * (the force on the wall), wall<k>_tx_Nm, wall<k>_ty_Nm, wall<k>_tz_Nm (its torque about the point
 * that follows), wall<k>_px_m, wall<k>_py_m, wall<k>_pz_m (the wall's centre, or a rotating wall's
 * axis point: io/wall_output.h), all world frame. */
#ifndef CCPDEM_IO_WALL_SERIES_H
#define CCPDEM_IO_WALL_SERIES_H
#include <petscsys.h>

/* Not collective (the snapshot writer calls it on rank 0). Rewrites OUT/walls.csv (io/output_file.h
 * IoText) from the snapshots with step <= last_step that hold n_walls walls, in step order;
 * *errnum <- 0, or the errno of a failed write (the old file then stays as it was). Snapshots that
 * cannot be read are left out, as from the XDMF index. */
PetscErrorCode WallSeriesWrite(const char *outdir, PetscInt64 last_step, int n_walls, int *errnum);
#endif
