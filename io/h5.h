/* Checked HDF5 calls: every call goes through CCPDEM_H5, which turns a negative return into a
 * PETSc error naming the call, so no HDF5 failure passes silently. */
#ifndef CCPDEM_IO_H5_H
#define CCPDEM_IO_H5_H
#include <petscsys.h>
#include <hdf5.h>
#ifndef H5_HAVE_PARALLEL
#error "ccpdem needs the parallel HDF5 (Debian: libhdf5-openmpi-dev); a serial hdf5.h was found first"
#endif

#define CCPDEM_H5(call) \
  do { \
    if ((call) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "HDF5 call failed: %s", #call); \
  } while (0)
/* For calls returning an hid_t: assign and check. */
#define CCPDEM_H5_ID(var, call) \
  do { \
    (var) = (call); \
    if ((var) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "HDF5 call failed: %s", #call); \
  } while (0)

/* Helpers shared by the HDF5 writers and readers (io/h5.c). Contracts: "collective" means every
 * rank of comm calls with the same arguments except the local data. The writers' failures to write
 * (a full disk) are agreed by all ranks and reported as values (IoH5Output), never as an error on
 * some ranks only, so no rank hangs; PETSc errors are left for bugs and failed MPI calls. */

/* Rows distributed over the ranks of a communicator: this rank's n_local rows start at offset in
 * a dataset of n_global rows (offsets by rank order, MPI_Exscan). dxpl asks for collective I/O. */
typedef struct {
  hsize_t n_global, offset, n_local;
  hid_t   dxpl;
} IoH5Rows;

/* Collective. Computes the global layout of n_local rows per rank and creates the transfer list. */
PetscErrorCode IoH5RowsCreate(MPI_Comm comm, PetscInt n_local, IoH5Rows *rows);
/* Collective. The layout for reading a dataset of n_global rows: contiguous blocks in rank order
 * whose sizes differ by at most one (at one rank: every row, in file order). */
PetscErrorCode IoH5RowsCreateSplit(MPI_Comm comm, hsize_t n_global, IoH5Rows *rows);
/* Closes the transfer list; accepts a zeroed struct. */
PetscErrorCode IoH5RowsDestroy(IoH5Rows *rows);

/* A parallel HDF5 output file (a snapshot, a checkpoint) in the making, in two passes of the same
 * writer code: IoH5OutputBegin starts a measuring pass, in which the helpers below only count the
 * bytes and objects they would write; IoH5OutputCreate then creates the file under a unique
 * temporary name in its final directory (io/output_file.h), reserves its whole size on disk
 * (rank 0: fallocate), and the helpers write; IoH5OutputFinish closes it, flushes it to disk and
 * renames it into place. A full disk (ENOSPC, EDQUOT) thus fails at the reservation, which every
 * rank agrees on, rather than inside HDF5, whose ranks can leave a failed collective write or
 * close by different paths and wait for each other for ever (HDF5 1.10); collective writes that
 * fail on some ranks are made to fail on all (io/mpio_agree.h). Any other failure (EIO) on any
 * rank is agreed by all ranks (IoAgree) after every step in which it could happen, before the next
 * collective call: from then on the helpers do nothing, IoH5OutputFinish closes the file on every
 * rank and removes the temporary, and every rank reports the same failure. HDF5's own error
 * printing is off from IoH5OutputCreate to IoH5OutputFinish (the failure is reported as one line). */
typedef struct {
  MPI_Comm    comm;
  hid_t       file;                     /* -1 when not open */
  char        path[PETSC_MAX_PATH_LEN]; /* the final name */
  char        tmp[PETSC_MAX_PATH_LEN];  /* the temporary name, the same on every rank ("" none) */
  PetscBool   measuring;                /* the first pass: count, do not write */
  size_t      bytes, objects;           /* counted by the first pass: data and attribute bytes, objects */
  int         pending;                  /* this rank's failure not agreed yet (an errno, 0 none) */
  int         errnum;                   /* agreed: 0, or the errno of the first failure */
  H5E_auto2_t saved_func;               /* HDF5's error printing, restored by IoH5OutputFinish */
  void       *saved_data;
} IoH5Output;

/* Collective. Starts out for the file path, in its measuring pass. */
PetscErrorCode IoH5OutputBegin(MPI_Comm comm, const char *path, IoH5Output *out);
/* Collective. Ends the measuring pass: rank 0 draws the temporary name (and checks with lstat that
 * nothing is there), every rank opens it with the MPI-IO driver and H5F_ACC_EXCL, and rank 0
 * reserves the bytes counted plus room for HDF5's metadata (fallocate, keeping the file size; file
 * systems without it: no reservation). A failure: out->errnum set on every rank; the writer goes
 * on to IoH5OutputFinish all the same. */
PetscErrorCode IoH5OutputCreate(IoH5Output *out);
/* Collective. Closes the file and, unless a failure was agreed, flushes it to disk (fsync), renames
 * it to its final name and flushes the directory. On a failure (before or here) the file is closed
 * on every rank and the temporary removed. err <- "writing PATH: reason" on every rank, else "". */
PetscErrorCode IoH5OutputFinish(IoH5Output *out, char *err, size_t errlen);
/* Group name (a path in the file), with no timestamps (equal runs write equal bytes). Every rank
 * makes the same call; a failure is agreed at the next collective helper. */
PetscErrorCode IoH5CreateGroup(IoH5Output *out, const char *name);
/* Collective. Creates dataset name (a path in the file) of rows->n_global rows of width values of
 * memtype each (width 1: 1-D (n), else 2-D (n x width)), stored little-endian, and writes this
 * rank's buf (n_local * width values, may be NULL when n_local = 0) at rows->offset. */
PetscErrorCode IoH5WriteRows(IoH5Output *out, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                             const void *buf);
/* Scalar attribute name of the file's root group, of memtype (numbers stored little-endian, a
 * string type as it is). Every rank makes the same call with the same value; a failure is agreed
 * at the next collective helper. */
PetscErrorCode IoH5WriteAttribute(IoH5Output *out, const char *name, hid_t memtype, const void *value);

/* Scalar fixed-length string dataset name holding s (libfclib's H5LTmake_dataset_string layout).
 * Every rank makes the same call with the same s; rank 0 writes it. A failure is agreed here. */
PetscErrorCode IoH5WriteString(IoH5Output *out, const char *name, const char *s);

/* Collective on a parallel file. Reads this rank's rows [offset, offset + n_local) of dataset
 * loc/name into buf (n_local * width values of memtype). A file that does not hold what is expected
 * is the user's input, not a bug: a missing dataset, another type class or element size than
 * memtype, another shape than rows->n_global x width, or a failed read (a truncated file) returns
 * PETSC_SUCCESS with err set to one line naming the dataset (err untouched on success). The caller
 * silences HDF5's own error printing if it wants only that line. */
PetscErrorCode IoH5ReadRows(hid_t loc, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows, void *buf,
                            char *err, size_t errlen);
/* Number of rows (first dimension) of dataset loc/name; found = PETSC_FALSE (and *n = 0) if there
 * is no such dataset. Not collective. */
PetscErrorCode IoH5DatasetRows(hid_t loc, const char *name, hsize_t *n, PetscBool *found);
/* Reads scalar attribute loc/name, converted to memtype. */
PetscErrorCode IoH5ReadAttribute(hid_t loc, const char *name, hid_t memtype, void *value);
/* Number of HDF5 objects (datasets, groups, named types, attributes) still open in file: a writer
 * checks it is 0 before H5Fclose so a leaked handle is an error, not a file held open. */
PetscErrorCode IoH5OpenObjects(hid_t file, ssize_t *count);
/* File-system helpers shared by the output writers (snapshots, checkpoints, time series); more in
 * io/output_file.h. */

/* Collective. Rank 0 creates directory path and its missing parents (mode 0777 & ~umask); when that
 * fails or path exists and is not a directory: err <- "creating PATH: reason" on every rank, else "". */
PetscErrorCode IoMakeDirs(MPI_Comm comm, const char *path, char *err, size_t errlen);
/* Not collective. snprintf into buf[size]; errors instead of truncating (paths built from user dirs). */
PetscErrorCode IoPathPrintf(char *buf, size_t size, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(3, 4);
#endif
