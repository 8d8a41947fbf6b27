/* The snapshot files of an output directory, as the indexes over them (the XDMF file, the wall
 * series) list them: rebuilt from the directory each time, so they stay right across restarts,
 * deleted files and runs killed between a snapshot and an index update. */
#ifndef CCPDEM_IO_SNAPSHOT_SCAN_H
#define CCPDEM_IO_SNAPSHOT_SCAN_H
#include <petscsys.h>
#include <hdf5.h>
#include <stdint.h>

#define SNAPSHOT_WALL_KINDS_MAX 8 /* wall kinds an entry counts cells of (io/wall_output.h) */

typedef struct {
  int64_t step;
  double  time;
  hsize_t rows, box_rows;                      /* /bodies and /boxes rows (0 boxes: no /boxes group, or empty) */
  hsize_t contact_rows;                        /* /contacts rows (0: none, or no /contacts group) */
  hsize_t member_rows;                         /* /clump_members rows (0: none, or no such group) */
  hsize_t wall_cells[SNAPSHOT_WALL_KINDS_MAX]; /* cells of each wall kind (WallOutputKinds order) */
  hsize_t walls;                               /* /walls/force rows (0: no walls) */
  char    file[32];                            /* snap-<step>.h5 */
} SnapshotEntry;

/* Not collective. The snapshots of OUT/snapshots with 0 < rows and step <= last_step, sorted by
 * step; unreadable files are left out (with warn, with a warning on stderr). *entries is
 * PetscMalloc'ed (free with PetscFree); a missing directory means no snapshots. */
PetscErrorCode SnapshotScan(const char *outdir, PetscInt64 last_step, PetscBool warn, SnapshotEntry **entries,
                            size_t *count);
#endif
