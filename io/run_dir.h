/* One run, one output directory (README "Outputs"): OUT/run.id holds the id of the run that owns
 * OUT (128 random bits as 32 hex digits, drawn when `ccpdem run` starts and stored in every
 * checkpoint, so that a restart carries it on). These are the mechanisms; the rules (run refuses a
 * directory holding another run's files unless --overwrite, restart continues only its own run)
 * are the commands' (app/cmd_run.c). Nothing here is collective: rank 0 calls it. */
#ifndef CCPDEM_IO_RUN_DIR_H
#define CCPDEM_IO_RUN_DIR_H
#include <petscsys.h>

#define RUN_ID_HEX 32 /* hex digits of a run id (128 bits) */

typedef struct {
  char hex[RUN_ID_HEX + 1]; /* lower-case hex digits and a NUL; "" = none */
} RunId;

/* A new run id from getrandom(2); 0 or an errno. */
int RunIdNew(RunId *id);
/* Whether s holds a run id: exactly RUN_ID_HEX lower-case hex digits. */
PetscBool RunIdValid(const char *s);

/* What an output directory holds of a run: the ccpdem files present among run.id, timeseries.csv,
 * snapshots.xmf, snapshots/ and checkpoints/ (any kind of entry counts, a symbolic link too), and
 * the id in run.id. */
typedef struct {
  char      present[96]; /* those names, comma-separated ("" when none is there) */
  PetscBool id_valid;    /* run.id holds a run id (in id) */
  RunId     id;
} RunDirContents;

/* Looks at outdir (a directory that does not exist holds nothing); 0 or an errno of a failed look. */
int RunDirInspect(const char *outdir, RunDirContents *c);
/* all: removes the files an earlier run of ccpdem wrote in outdir: run.id, timeseries.csv,
 * snapshots.xmf, their temporaries, snapshots/snap-*.h5 and checkpoints/ckpt-*.h5 with theirs, then
 * snapshots/ and checkpoints/ when that left them empty (a symbolic link at one of these names is
 * removed, never followed). Else only the temporaries that killed writers left (io/output_file.h
 * IoIsTempName). Nothing else in outdir is touched. 0, or an errno with the path that failed in
 * failed. */
int RunDirClear(const char *outdir, PetscBool all, char *failed, size_t len);
/* Writes OUT/run.id (a temporary, fsync, rename, fsync of OUT: io/output_file.h); 0 or an errno. */
int RunIdWrite(const char *outdir, const RunId *id);
#endif
