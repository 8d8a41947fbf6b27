/* Checked HDF5 helpers for distributed rows and scalar attributes, and the small file-system steps
 * (directories, atomic rename) every output writer needs. */
#include "io/h5.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

PetscErrorCode IoH5RowsCreate(MPI_Comm comm, PetscInt n_local, IoH5Rows *rows)
{
  int64_t     n = n_local, offset = 0, total = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCheck(n_local >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "IoH5RowsCreate: negative row count %" PetscInt_FMT, n_local);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Exscan(&n, &offset, 1, MPI_INT64_T, MPI_SUM, comm));
  if (rank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
  PetscCallMPI(MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, comm));
  rows->n_global = (hsize_t)total;
  rows->offset   = (hsize_t)offset;
  rows->n_local  = (hsize_t)n;
  CCPDEM_H5_ID(rows->dxpl, H5Pcreate(H5P_DATASET_XFER));
  CCPDEM_H5(H5Pset_dxpl_mpio(rows->dxpl, H5FD_MPIO_COLLECTIVE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5RowsCreateSplit(MPI_Comm comm, hsize_t n_global, IoH5Rows *rows)
{
  PetscMPIInt rank, size;
  hsize_t     base, extra;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  base           = n_global / (hsize_t)size;
  extra          = n_global % (hsize_t)size;
  rows->n_global = n_global;
  rows->n_local  = base + ((hsize_t)rank < extra);
  rows->offset   = (hsize_t)rank * base + PetscMin((hsize_t)rank, extra);
  CCPDEM_H5_ID(rows->dxpl, H5Pcreate(H5P_DATASET_XFER));
  CCPDEM_H5(H5Pset_dxpl_mpio(rows->dxpl, H5FD_MPIO_COLLECTIVE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5RowsDestroy(IoH5Rows *rows)
{
  PetscFunctionBegin;
  if (rows->dxpl > 0) CCPDEM_H5(H5Pclose(rows->dxpl));
  PetscCall(PetscMemzero(rows, sizeof(*rows)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5CreateParallel(MPI_Comm comm, const char *path, hid_t *file)
{
  hid_t fapl;

  PetscFunctionBegin;
  CCPDEM_H5_ID(fapl, H5Pcreate(H5P_FILE_ACCESS));
  CCPDEM_H5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  CCPDEM_H5(H5Pset_coll_metadata_write(fapl, 1)); /* metadata as one collective write, not many small ones */
  *file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  CCPDEM_H5(H5Pclose(fapl));
  PetscCheck(*file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN,
             "Cannot create HDF5 file %s: check that its directory is writable (HDF5 error stack above)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stored type: memtype with little-endian byte order, so files read the same on any machine. */
static PetscErrorCode FileTypeOf(hid_t memtype, hid_t *filetype)
{
  PetscFunctionBegin;
  CCPDEM_H5_ID(*filetype, H5Tcopy(memtype));
  CCPDEM_H5(H5Tset_order(*filetype, H5T_ORDER_LE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5CreateGroup(hid_t loc, const char *name, hid_t *group)
{
  hid_t gcpl;

  PetscFunctionBegin;
  CCPDEM_H5_ID(gcpl, H5Pcreate(H5P_GROUP_CREATE));
  CCPDEM_H5(H5Pset_obj_track_times(gcpl, 0)); /* no timestamps: equal runs write equal bytes */
  CCPDEM_H5_ID(*group, H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
  CCPDEM_H5(H5Pclose(gcpl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5WriteRows(hid_t loc, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                             const void *buf)
{
  const int     ndims         = width == 1 ? 1 : 2;
  const hsize_t file_dims[2]  = {rows->n_global, width};
  const hsize_t local_dims[2] = {rows->n_local, width};
  const hsize_t start[2]      = {rows->offset, 0};
  const char    placeholder   = 0; /* H5Dwrite rejects a NULL buffer even with nothing selected */
  hid_t         filetype, filespace, memspace, dcpl, dset;

  PetscFunctionBegin;
  PetscCheck(width >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "IoH5WriteRows(%s): width must be >= 1", name);
  PetscCall(FileTypeOf(memtype, &filetype));
  CCPDEM_H5_ID(filespace, H5Screate_simple(ndims, file_dims, NULL));
  CCPDEM_H5_ID(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  CCPDEM_H5(H5Pset_obj_track_times(dcpl, 0)); /* no timestamps: equal runs write equal bytes */
  CCPDEM_H5_ID(dset, H5Dcreate2(loc, name, filetype, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  CCPDEM_H5(H5Pclose(dcpl));
  CCPDEM_H5_ID(memspace, H5Screate_simple(ndims, local_dims, NULL));
  if (rows->n_local > 0) {
    CCPDEM_H5(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, local_dims, NULL));
  } else { /* this rank has no rows but must still join the collective write */
    CCPDEM_H5(H5Sselect_none(filespace));
    CCPDEM_H5(H5Sselect_none(memspace));
  }
  /* An empty dataset has no storage to write to (HDF5 fails on it); every rank skips alike. */
  if (rows->n_global > 0)
    CCPDEM_H5(H5Dwrite(dset, memtype, memspace, filespace, rows->dxpl, buf ? buf : (const void *)&placeholder));
  CCPDEM_H5(H5Sclose(memspace));
  CCPDEM_H5(H5Dclose(dset));
  CCPDEM_H5(H5Sclose(filespace));
  CCPDEM_H5(H5Tclose(filetype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5DatasetRows(hid_t loc, const char *name, hsize_t *n, PetscBool *found)
{
  hid_t   dset, space;
  hsize_t dims[H5S_MAX_RANK];
  int     ndims;

  PetscFunctionBegin;
  *n     = 0;
  *found = PETSC_FALSE;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  dset = H5Dopen2(loc, name, H5P_DEFAULT);
  if (dset < 0) PetscFunctionReturn(PETSC_SUCCESS); /* a group or a broken link of that name */
  CCPDEM_H5_ID(space, H5Dget_space(dset));
  ndims = H5Sget_simple_extent_dims(space, dims, NULL);
  if (ndims >= 1) {
    *n     = dims[0];
    *found = PETSC_TRUE;
  }
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Dclose(dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Why dataset dset does not hold rows->n_global x width values like memtype, or "" if it does. */
static void DescribeMismatch(hid_t dset, hid_t memtype, hsize_t width, const IoH5Rows *rows, char *why, size_t len)
{
  const int ndims_expected = width == 1 ? 1 : 2;
  hid_t     type = H5Dget_type(dset), space = H5Dget_space(dset);
  hsize_t   dims[H5S_MAX_RANK];
  int       ndims = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;

  why[0] = 0;
  if (type < 0 || H5Tget_class(type) != H5Tget_class(memtype) || H5Tget_size(type) != H5Tget_size(memtype))
    snprintf(why, len, "has another element type than expected");
  else if (ndims != ndims_expected) snprintf(why, len, "has %d dimensions instead of %d", ndims, ndims_expected);
  else if (dims[0] != rows->n_global || (ndims == 2 && dims[1] != width))
    snprintf(why, len, "has %llu x %llu values instead of %llu x %llu", (unsigned long long)dims[0],
             ndims == 2 ? (unsigned long long)dims[1] : 1ULL, (unsigned long long)rows->n_global,
             (unsigned long long)width);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
}

PetscErrorCode IoH5ReadRows(hid_t loc, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows, void *buf,
                            char *err, size_t errlen)
{
  const int     ndims         = width == 1 ? 1 : 2;
  const hsize_t local_dims[2] = {rows->n_local, width};
  const hsize_t start[2]      = {rows->offset, 0};
  char          placeholder   = 0, why[160];
  hid_t         dset, filespace, memspace;
  herr_t        status = 0;

  PetscFunctionBegin;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) {
    snprintf(err, errlen, "dataset %s is missing", name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  DescribeMismatch(dset, memtype, width, rows, why, sizeof(why));
  if (why[0]) {
    snprintf(err, errlen, "dataset %s %s", name, why);
    CCPDEM_H5(H5Dclose(dset));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rows->n_global > 0) { /* an empty dataset has no storage to read (as in IoH5WriteRows) */
    CCPDEM_H5_ID(filespace, H5Dget_space(dset));
    CCPDEM_H5_ID(memspace, H5Screate_simple(ndims, local_dims, NULL));
    if (rows->n_local > 0) {
      CCPDEM_H5(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, local_dims, NULL));
    } else {
      CCPDEM_H5(H5Sselect_none(filespace));
      CCPDEM_H5(H5Sselect_none(memspace));
    }
    status = H5Dread(dset, memtype, memspace, filespace, rows->dxpl, buf ? buf : (void *)&placeholder);
    CCPDEM_H5(H5Sclose(memspace));
    CCPDEM_H5(H5Sclose(filespace));
  }
  CCPDEM_H5(H5Dclose(dset));
  if (status < 0) snprintf(err, errlen, "dataset %s cannot be read (the file is truncated or damaged)", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5WriteAttribute(hid_t loc, const char *name, hid_t memtype, const void *value)
{
  hid_t filetype, space, attr;

  PetscFunctionBegin;
  PetscCall(FileTypeOf(memtype, &filetype));
  CCPDEM_H5_ID(space, H5Screate(H5S_SCALAR));
  CCPDEM_H5_ID(attr, H5Acreate2(loc, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT));
  CCPDEM_H5(H5Awrite(attr, memtype, value));
  CCPDEM_H5(H5Aclose(attr));
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Tclose(filetype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5ReadAttribute(hid_t loc, const char *name, hid_t memtype, void *value)
{
  hid_t attr, space;

  PetscFunctionBegin;
  CCPDEM_H5_ID(attr, H5Aopen(loc, name, H5P_DEFAULT));
  CCPDEM_H5_ID(space, H5Aget_space(attr));
  PetscCheck(H5Sget_simple_extent_npoints(space) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "HDF5 attribute %s is not a scalar", name);
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Aread(attr, memtype, value));
  CCPDEM_H5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5OpenObjects(hid_t file, ssize_t *count)
{
  PetscFunctionBegin;
  *count = H5Fget_obj_count(file, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL);
  CCPDEM_H5(*count);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5ClosePublish(MPI_Comm comm, hid_t file, const char *tmp, const char *path, const char *dir,
                                const char *writer)
{
  ssize_t open_objects;

  PetscFunctionBegin;
  PetscCall(IoH5OpenObjects(file, &open_objects));
  PetscCheck(open_objects == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s left %zd HDF5 objects open in %s (a bug)", writer,
             open_objects, tmp);
  CCPDEM_H5(H5Fclose(file));
  PetscCall(IoFsyncOnRoot(comm, tmp));
  PetscCall(IoRenameOnRoot(comm, tmp, path));
  PetscCall(IoFsyncOnRoot(comm, dir)); /* the rename itself reaches the disk */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoPathPrintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  int     len;

  PetscFunctionBegin;
  va_start(ap, fmt);
  len = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  PetscCheck(len >= 0 && (size_t)len < size, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Path longer than %zu characters (starts '%.60s'): use a shorter output directory", size - 1, buf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* mkdir -p on this process; returns 0 or an errno, with the failing prefix in failed. */
static int MakeDirsLocal(const char *path, char *failed, size_t size)
{
  char        buf[PETSC_MAX_PATH_LEN];
  struct stat st;
  size_t      len = strlen(path);

  if (len >= sizeof(buf)) return ENAMETOOLONG;
  memcpy(buf, path, len + 1);
  for (size_t k = 1; k <= len; k++) {
    if (buf[k] != '/' && buf[k] != '\0') continue;
    if (buf[k - 1] == '/') continue; /* repeated slash */
    const char saved = buf[k];
    buf[k]           = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
      const int err = errno;
      snprintf(failed, size, "%s", buf);
      return err;
    }
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
      snprintf(failed, size, "%s", buf);
      return ENOTDIR;
    }
    buf[k] = saved;
  }
  return 0;
}

PetscErrorCode IoMakeDirs(MPI_Comm comm, const char *path)
{
  PetscMPIInt rank;
  int         err                        = 0;
  char        failed[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBegin;
  PetscCheck(path && path[0], comm, PETSC_ERR_ARG_WRONG, "Empty output directory name: give a directory (-o)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) err = MakeDirsLocal(path, failed, sizeof(failed));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_WRITE,
             "Cannot create output directory %s (at %s): %s; choose a writable output directory (-o)", path,
             rank == 0 ? failed : "rank 0", strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoFsyncOnRoot(MPI_Comm comm, const char *path)
{
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) err = errno;
    if (fd >= 0 && close(fd) != 0 && !err) err = errno;
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_WRITE, "Cannot flush %s to disk: %s", path, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoRename(const char *from, const char *to)
{
  PetscFunctionBegin;
  PetscCheck(rename(from, to) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", from, to,
             strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoRenameOnRoot(MPI_Comm comm, const char *from, const char *to)
{
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Barrier(comm)); /* every rank has finished with from */
  if (rank == 0 && rename(from, to) != 0) err = errno;
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", from, to, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}
