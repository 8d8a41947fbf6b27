/* Checkpoints (GUIDE "Files"): OUT/checkpoints/ckpt-NNNNNN.h5 (NNNNNN = step), everything needed
 * to continue a run bitwise exactly, written collectively (each rank its own rows as one
 * hyperslab) and atomically (io/h5.h IoH5Output: a unique temporary name created exclusively, close,
 * fsync, rename, fsync of the directory; a failure to write on any rank is agreed by every rank and
 * leaves the previous checkpoints as they were).
 *
 * Format version 6 (CHECKPOINT_FORMAT_VERSION; 2: the plastic displacement as a 7th column of /contacts/impulse, and
 * /contacts/history; 3: /contacts/history of 24 doubles, its frame and contact point in world coordinates; 4: of 20
 * doubles, the touching flag and the four stick/slip modes as bits of one; 5: last_keep_impulses in
 * place of last_converged; 6: run_id, and each row's hash mixed before the sum; the reader refuses other versions,
 * also files whose other parts did not
 * change). Root attributes (scalars, little-endian): ccpdem_checkpoint_version int32   step int64   time double
 * removed int64   next_id int64   last_keep_impulses int32 (the last step's StepStats.keep_impulses: it picks the
 * warm-start decay)   bodies int64   contacts int64   walls int32   run_id string of 32 characters (the run's id,
 * io/run_dir.h: lower-case hex, no NUL)   checksum uint64
 * Datasets (n = bodies, c = contacts, w = walls; width-1 fields are 1-D):
 *   /bodies/<field>       one per BODY_FIELDS entry (src/bodies/body_store.h), named as the field, n x width,
 *                         its C type (id int64, pos n x 3, quat n x 4, vel n x 6 with the angular
 *                         part in the BODY frame, mass, inertia, shape int32, size, radius, material int32)
 *   /contacts/ida, idb    int64 (c): warm-start memory keys (src/contact/contact_set.h ImpulseMemory)
 *   /contacts/sub         int32 (c)
 *   /contacts/impulse     double (c x 7): the remembered impulses, then the plastic displacement
 *                         (src/ccp/plasticity.h; 0 elsewhere) (contact.model ccp), or
 *   /contacts/history     double (c x PENALTY_HISTORY_WIDTH): the friction history of each contact
 *                         (contact.model penalty; layout in src/penalty/history.h)
 *   /walls/center         double (w x 3): wall state that moves (box walls advance with velocity)
 *   /scenario/text        uint8: the scenario file as read (no terminating NUL)
 *   /scenario/path        uint8: the path it was read from
 *   /scenario/overrides   uint8: (version 7 only) the run's -set KEY=VALUE lines, '\n'-separated, applied to the
 *                         text in order (scenario/yaml_override.h)
 *   /layout/rows_per_rank int64 (ranks x 2): each writing rank's (bodies, contacts) row counts
 *   /layout/grid          int64 (3): the writer's process grid (1 1 1 on one rank)
 *   /layout/cuts          double (px + py + pz + 3): its cuts along x, then y, then z (optional:
 *                         older files lack grid and cuts, and restart with uniform cuts)
 *   /layout/emitted       int64 (emitters): bodies each emitter has made (its random stream is a
 *                         function of seed, emitter and step, so this is its whole state; optional)
 * Rows of /bodies and /contacts: each rank's rows as one block, in rank order (the owned bodies in
 * storage order, the contact memory sorted by key); at one rank the storage order, so a one-rank
 * restart continues bitwise. Reading at P ranks splits the rows into P even blocks
 * (IoH5RowsCreateSplit); the restarted simulation's first step moves every body to the owner of
 * its centre and every memory entry to the owner of its contact, with the writer's cuts put back
 * when the grid is the same (step/state.c), so a restart on the writer's rank count continues
 * bitwise and one on another rank count continues with the same state.
 *
 * Checksum: the sum modulo 2^64 over every row of every dataset above of
 *   mix(FNV-1a-64(dataset path, then the row index as 8 little-endian bytes, then the row's bytes
 *   as stored, little-endian)),
 * plus mix(FNV-1a-64("@attributes", 0 as 8 bytes, then the attributes version, step, time, removed,
 * next_id, last_keep_impulses, bodies, contacts, walls, packed little-endian without padding, and
 * the run id's 32 characters)), mix being MurmurHash3's 64-bit finalizer. A sum of per-row hashes
 * is independent of how rows are split over ranks (one Allreduce), changes with any byte of any
 * row, and with the order of rows; the finalizer keeps changes in two rows from cancelling in the
 * sum (FNV-1a alone is affine in a row's last bytes). */
#ifndef CCPDEM_IO_CHECKPOINT_H
#define CCPDEM_IO_CHECKPOINT_H
#include "bodies/body_store.h"
#include "contact/impulse_memory.h"
#include "io/run_dir.h"

#define CHECKPOINT_FORMAT_VERSION 6
/* A run with -set overrides writes this version: 6 plus /scenario/overrides, which a ccpdem that reads only 6
 * refuses rather than restart the run without its overrides; a run without overrides writes 6 as before. */
#define CHECKPOINT_FORMAT_VERSION_OVERRIDES 7

/* What a checkpoint carries (the format above): the simulation layer fills one to write and
 * rebuilds a simulation from one read (step/state.c). For CheckpointWrite the pointers are the
 * caller's; CheckpointRead allocates them and CheckpointStateDestroy frees them. */
typedef struct {
  int64_t        step;
  double         time;
  RunId          run_id;             /* the run the state belongs to */
  int64_t        removed, next_id;   /* bodies that left the domain so far; the next global id */
  PetscBool      last_keep_impulses; /* the last step's StepStats.keep_impulses */
  int64_t        bodies_total;       /* read: bodies of all ranks (written: summed from the ranks' bodies) */
  BodyStore     *bodies;             /* this rank's owned bodies [0, n_owned): its rows */
  ImpulseMemory *memory;             /* this rank's contact records, sorted by key: its rows */
  int            n_walls;
  double        *wall_centers; /* 3 per wall */
  char          *scenario_text, *scenario_path;
  char          *scenario_overrides; /* the -set lines applied to the text; NULL (or "" when written): none */
  int64_t        grid[3];            /* the writer's process grid (1 1 1 on one rank; read 0 0 0: not stored) */
  double        *cuts;               /* its cuts: grid[0] + 1 along x, then y, then z (one rank: the domain box) */
  int64_t        n_emitters;         /* read: 0 when not stored */
  int64_t       *emitted;            /* bodies each emitter has made (read: NULL when not stored) */
} CheckpointState;

/* Collective. Writes OUT/checkpoints/ckpt-NNNNNN.h5 (NNNNNN = st->step), then keeps the newest
 * -checkpoint_keep K (default 2) checkpoints of steps <= st->step and deletes the others
 * (checkpoints of later steps belong to a history this run has replaced) and temporary files left
 * by killed writers, only after the new checkpoint is in place. path (may be NULL) receives the
 * file written. A failure to write it (a full disk) is agreed by every rank: err <- "writing PATH:
 * reason" on every rank (else ""), nothing of it is left, and no checkpoint is deleted. */
PetscErrorCode CheckpointWrite(MPI_Comm comm, const CheckpointState *st, const char *outdir, char *path, size_t pathlen,
                               char *err, size_t errlen);
/* -checkpoint_keep (default 2), checked (>= 1): CheckpointWrite's, and the run's set-up reads it
 * too, so that a bad value is refused before the run, not at its first checkpoint. */
PetscErrorCode CheckpointKeepOption(MPI_Comm comm, PetscInt *keep);
/* Collective. The state a checkpoint holds, its rows split evenly over the ranks (each rank its
 * block, in file order; the contact records of each block sorted by key), everything verified
 * (format version, sizes, checksum) before it is handed over. A missing, foreign (not a ccpdem
 * checkpoint, e.g. a snapshot), truncated or corrupt file returns PETSC_SUCCESS with err set to
 * one line ("FILE: not a usable ccpdem checkpoint: why") and *st empty. */
PetscErrorCode CheckpointRead(MPI_Comm comm, const char *file, CheckpointState *st, char *err, size_t errlen);
PetscErrorCode CheckpointStateDestroy(CheckpointState *st);
/* The dataset of a contact memory of `width` doubles per record: /contacts/impulse (the CCP's) or
 * /contacts/history (the penalty model's). */
const char *CheckpointContactDataset(PetscInt width);

/* What kind of ccpdem file an HDF5 file is, and a snapshot's step, time and body count. */
typedef struct {
  PetscBool checkpoint; /* else a snapshot */
  int64_t   step;
  double    time;
  int64_t   bodies;
} CheckpointFileInfo;
/* Collective. Neither a snapshot nor a checkpoint (or unreadable): err set ("FILE: why"). */
PetscErrorCode CheckpointInspect(MPI_Comm comm, const char *file, CheckpointFileInfo *info, char *err, size_t errlen);
#endif
