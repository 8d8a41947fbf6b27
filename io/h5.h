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

/* Helpers shared by the HDF5 writers (io/h5.c). Contracts: "collective" means every rank of comm
 * calls with the same arguments except the local data; a failure returns an error on every rank
 * where the helper can tell (rank-0 file-system work broadcasts its outcome), so no rank hangs. */

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
/* Collective. Creates (truncates) path with the MPI-IO driver. Close with H5Fclose. */
PetscErrorCode IoH5CreateParallel(MPI_Comm comm, const char *path, hid_t *file);
/* H5Gcreate2 without timestamps (so two equal runs write equal files); close with H5Gclose. */
PetscErrorCode IoH5CreateGroup(hid_t loc, const char *name, hid_t *group);
/* Collective on a parallel file. Creates dataset loc/name of rows->n_global rows of width values
 * of memtype each (width 1: 1-D (n), else 2-D (n x width)), stored little-endian, and writes this
 * rank's buf (n_local * width values, may be NULL when n_local = 0) at rows->offset. */
PetscErrorCode IoH5WriteRows(hid_t loc, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                             const void *buf);
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
/* Scalar attribute loc/name of memtype (stored little-endian). On a parallel file: collective,
 * same value on every rank. */
PetscErrorCode IoH5WriteAttribute(hid_t loc, const char *name, hid_t memtype, const void *value);
/* Reads scalar attribute loc/name, converted to memtype. */
PetscErrorCode IoH5ReadAttribute(hid_t loc, const char *name, hid_t memtype, void *value);
/* Number of HDF5 objects (datasets, groups, named types, attributes) still open in file: a writer
 * checks it is 0 before H5Fclose so a leaked handle is an error, not a file held open. */
PetscErrorCode IoH5OpenObjects(hid_t file, ssize_t *count);
/* Collective. Publishes file, written under the temporary name tmp in directory dir, as path: an
 * error naming writer if an HDF5 object was left open in it (a leaked handle, not a file held
 * open), then close, flush tmp, rename it to path and flush dir, so that path is either what it
 * was or the whole new file, also after a power loss. */
PetscErrorCode IoH5ClosePublish(MPI_Comm comm, hid_t file, const char *tmp, const char *path, const char *dir,
                                const char *writer);

/* File-system helpers shared by the output writers (snapshots, checkpoints, time series). */

/* Collective. Rank 0 creates directory path and its missing parents (mode 0777 & ~umask); errors on
 * every rank, naming the path, if that fails or path exists and is not a directory. */
PetscErrorCode IoMakeDirs(MPI_Comm comm, const char *path);
/* Collective. Barrier, then rank 0 renames from -> to (atomic on POSIX within a file system); the
 * outcome is broadcast so every rank returns the same error. */
PetscErrorCode IoRenameOnRoot(MPI_Comm comm, const char *from, const char *to);
/* Collective. Rank 0 flushes path (a file or a directory) to stable storage (open(2) + fsync), so
 * that a rename after it cannot leave an empty or partial file behind a power loss; the outcome is
 * broadcast. */
PetscErrorCode IoFsyncOnRoot(MPI_Comm comm, const char *path);
/* Not collective. Renames from -> to; errors naming both paths. */
PetscErrorCode IoRename(const char *from, const char *to);
/* Not collective. snprintf into buf[size]; errors instead of truncating (paths built from user dirs). */
PetscErrorCode IoPathPrintf(char *buf, size_t size, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(3, 4);
#endif
