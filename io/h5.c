/* Checked HDF5 helpers for distributed rows and scalar attributes, the output file that every rank
 * agrees on (IoH5Output), and the directories every output writer needs. */
#define _GNU_SOURCE /* fallocate */
#include "io/h5.h"
#include "io/fault.h"
#include "io/mpio_agree.h"
#include "io/output_file.h"
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

/* The stored type: memtype with little-endian byte order, so files read the same on any machine (a
 * string type as it is). */
static PetscErrorCode FileTypeOf(hid_t memtype, hid_t *filetype)
{
  PetscFunctionBegin;
  CCPDEM_H5_ID(*filetype, H5Tcopy(memtype));
  if (H5Tget_class(memtype) != H5T_STRING) CCPDEM_H5(H5Tset_order(*filetype, H5T_ORDER_LE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An output writer's HDF5 call: a failure becomes this rank's pending one (errno, EIO when HDF5
 * left none) instead of an error here, so that the ranks can agree on it before going on. */
#define OUT_H5(out, call) \
  do { \
    errno = 0; \
    if ((call) < 0 && !(out)->pending) (out)->pending = errno ? errno : EIO; \
  } while (0)
#define OUT_H5_ID(out, var, call) \
  do { \
    errno = 0; \
    (var) = (call); \
    if ((var) < 0 && !(out)->pending) (out)->pending = errno ? errno : EIO; \
  } while (0)

/* Collective: every rank learns whether one has a pending failure (then out->errnum is set). */
static PetscErrorCode OutputAgree(IoH5Output *out)
{
  int agreed;

  PetscFunctionBegin;
  PetscCall(IoAgree(out->comm, out->pending, &agreed));
  out->pending = 0;
  if (!out->errnum) out->errnum = agreed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5OutputBegin(MPI_Comm comm, const char *path, IoH5Output *out)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(out, sizeof(*out)));
  out->comm      = comm;
  out->file      = -1;
  out->measuring = PETSC_TRUE;
  PetscCall(IoPathPrintf(out->path, sizeof(out->path), "%s", path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Room for HDF5's metadata besides the data: the superblock and root group, and per object
 * (dataset, group, attribute) its header and link; measured about 0.5 KiB per object in the files
 * written here, reserved with a margin of 2 to 4. */
#define METADATA_ROOM(objects) (16 * 1024 + 1024 * (objects))

/* Rank 0: reserves bytes of disk for tmp beyond its end, without changing its size; 0, or an errno
 * (a file system without fallocate: 0, no reservation). */
static int Reserve(const char *tmp, size_t bytes)
{
  const int fd  = open(tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  int       err = 0;

  if (fd < 0) return errno;
  if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) != 0 && errno != EOPNOTSUPP && errno != ENOSYS) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  return err;
}

/* Rank 0: the closed file tmp, to disk: what Reserve set aside beyond its end is given back (a
 * hole punched there; HDF5 does not shrink the file at close), then fsync; 0 or an errno. */
static int ReleaseAndSync(const char *tmp, size_t reserved)
{
  const int   fd = open(tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  int         err = 0;

  if (fd < 0) return errno;
  if (fstat(fd, &st) != 0) err = errno;
  else if ((size_t)st.st_size < reserved &&
           fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, st.st_size,
                     (off_t)(reserved - (size_t)st.st_size)) != 0 &&
           errno != EOPNOTSUPP && errno != ENOSYS)
    err = errno;
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  return err ? err : IoFaultCharge(0);
}

PetscErrorCode IoH5OutputCreate(IoH5Output *out)
{
  PetscMPIInt rank;
  hid_t       fapl;
  int         local = 0;
  struct stat st;

  PetscFunctionBegin;
  PetscCheck(out->measuring, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "IoH5OutputCreate: call IoH5OutputBegin first");
  out->measuring = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(out->comm, &rank));
  CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &out->saved_func, &out->saved_data));
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  /* Safe against a planted symbolic link: the name has 64 random bits, so nobody can have put
   * anything there in advance; lstat refuses whatever is there all the same (EEXIST), and
   * H5F_ACC_EXCL has the MPI-IO driver create the file with O_CREAT|O_EXCL, which refuses an
   * existing path, a symbolic link included (dangling or not), so one planted between the two is
   * not followed either. */
  if (rank == 0) {
    local = IoTempName(out->path, out->tmp, sizeof(out->tmp));
    if (!local && lstat(out->tmp, &st) == 0) local = EEXIST;
    else if (!local && errno != ENOENT) local = errno;
  }
  PetscCall(IoAgree(out->comm, local, &out->errnum));
  if (out->errnum) {
    out->tmp[0] = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Bcast(out->tmp, sizeof(out->tmp), MPI_CHAR, 0, out->comm));
  CCPDEM_H5_ID(fapl, H5Pcreate(H5P_FILE_ACCESS));
  CCPDEM_H5(H5Pset_fapl_mpio(fapl, out->comm, MPI_INFO_NULL));
  CCPDEM_H5(H5Pset_coll_metadata_write(fapl, 1)); /* metadata as one collective write, not many small ones */
  IoMpioAgreeBegin(out->comm); /* from here to the close, HDF5's collective writes fail on every rank or none */
  OUT_H5_ID(out, out->file, H5Fcreate(out->tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl));
  CCPDEM_H5(H5Pclose(fapl));
  PetscCall(OutputAgree(out));
  if (out->errnum) PetscFunctionReturn(PETSC_SUCCESS);
  if (rank == 0) out->pending = Reserve(out->tmp, out->bytes + METADATA_ROOM(out->objects));
  PetscCall(OutputAgree(out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5OutputFinish(IoH5Output *out, char *err, size_t errlen)
{
  PetscMPIInt rank;
  int         local = 0;

  PetscFunctionBegin;
  PetscCheck(!out->measuring, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "IoH5OutputFinish: call IoH5OutputCreate first");
  PetscCallMPI(MPI_Comm_rank(out->comm, &rank));
  if (!out->errnum) PetscCall(OutputAgree(out)); /* the attributes and groups since the last agreement */
  if (out->file >= 0) {                          /* closed on every rank alike, failed or not: H5Fclose is collective */
    herr_t status;
    if (!out->errnum) {
      ssize_t open_objects;
      PetscCall(IoH5OpenObjects(out->file, &open_objects));
      PetscCheck(open_objects == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%zd HDF5 objects left open in %s (a bug in its writer)", open_objects, out->tmp);
    }
    errno     = 0;
    status    = H5Fclose(out->file); /* flushes the metadata: fails too when the disk is full */
    out->file = -1;
    local     = status < 0 ? (errno ? errno : EIO) : IoFaultCharge(0);
    if (!out->errnum) PetscCall(IoAgree(out->comm, local, &out->errnum));
  }
  IoMpioAgreeEnd();
  if (!out->errnum) { /* every rank has closed it: rank 0 puts it in place */
    char dir[PETSC_MAX_PATH_LEN];
    local = 0;
    if (rank == 0) {
      IoDirName(out->path, dir, sizeof(dir));
      local = ReleaseAndSync(out->tmp, out->bytes + METADATA_ROOM(out->objects));
      if (!local && rename(out->tmp, out->path) != 0) local = errno;
      if (!local) {
        out->tmp[0] = 0;
        local       = IoSyncPath(dir); /* the rename itself reaches the disk */
      }
    }
    PetscCall(IoAgree(out->comm, local, &out->errnum));
  }
  if (out->errnum && rank == 0 && out->tmp[0]) (void)unlink(out->tmp); /* nothing half-written is left */
  out->tmp[0] = 0;
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, out->saved_func, out->saved_data));
  IoFailureMessage(err, errlen, out->path, out->errnum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5CreateGroup(IoH5Output *out, const char *name)
{
  hid_t gcpl, group;

  PetscFunctionBegin;
  if (out->measuring) out->objects++;
  if (out->measuring || out->errnum) PetscFunctionReturn(PETSC_SUCCESS);
  CCPDEM_H5_ID(gcpl, H5Pcreate(H5P_GROUP_CREATE));
  CCPDEM_H5(H5Pset_obj_track_times(gcpl, 0)); /* no timestamps: equal runs write equal bytes */
  OUT_H5_ID(out, group, H5Gcreate2(out->file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
  if (group >= 0) OUT_H5(out, H5Gclose(group));
  CCPDEM_H5(H5Pclose(gcpl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5WriteRows(IoH5Output *out, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
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
  if (out->measuring) {
    out->bytes += rows->n_global * width * H5Tget_size(memtype);
    out->objects++;
  }
  if (out->measuring || out->errnum) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FileTypeOf(memtype, &filetype));
  CCPDEM_H5_ID(filespace, H5Screate_simple(ndims, file_dims, NULL));
  CCPDEM_H5_ID(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  CCPDEM_H5(H5Pset_obj_track_times(dcpl, 0)); /* no timestamps: equal runs write equal bytes */
  OUT_H5_ID(out, dset, H5Dcreate2(out->file, name, filetype, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  CCPDEM_H5(H5Pclose(dcpl));
  PetscCall(OutputAgree(out)); /* before the collective write: every rank has its dataset */
  if (!out->errnum) {
    CCPDEM_H5_ID(memspace, H5Screate_simple(ndims, local_dims, NULL));
    if (rows->n_local > 0) {
      CCPDEM_H5(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, local_dims, NULL));
    } else { /* this rank has no rows but must still join the collective write */
      CCPDEM_H5(H5Sselect_none(filespace));
      CCPDEM_H5(H5Sselect_none(memspace));
    }
    /* An empty dataset has no storage to write to (HDF5 fails on it); every rank skips alike. */
    if (rows->n_global > 0) {
      OUT_H5(out, H5Dwrite(dset, memtype, memspace, filespace, rows->dxpl, buf ? buf : (const void *)&placeholder));
      if (!out->pending) out->pending = IoFaultCharge(rows->n_local * width * H5Tget_size(memtype));
    }
    CCPDEM_H5(H5Sclose(memspace));
  }
  if (dset >= 0) OUT_H5(out, H5Dclose(dset));
  CCPDEM_H5(H5Sclose(filespace));
  CCPDEM_H5(H5Tclose(filetype));
  if (!out->errnum) PetscCall(OutputAgree(out)); /* the write, before the next collective call */
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

PetscErrorCode IoH5WriteAttribute(IoH5Output *out, const char *name, hid_t memtype, const void *value)
{
  hid_t filetype, space, attr;

  PetscFunctionBegin;
  if (out->measuring) {
    out->bytes += H5Tget_size(memtype);
    out->objects++;
  }
  if (out->measuring || out->errnum) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FileTypeOf(memtype, &filetype));
  CCPDEM_H5_ID(space, H5Screate(H5S_SCALAR));
  OUT_H5_ID(out, attr, H5Acreate2(out->file, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT));
  if (attr >= 0) {
    OUT_H5(out, H5Awrite(attr, memtype, value));
    if (!out->pending) out->pending = IoFaultCharge(H5Tget_size(memtype));
    OUT_H5(out, H5Aclose(attr));
  }
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Tclose(filetype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoH5WriteString(IoH5Output *out, const char *name, const char *s)
{
  hid_t       type, space, dcpl, dset;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (out->measuring) {
    out->bytes += strlen(s) + 1;
    out->objects++;
  }
  if (out->measuring || out->errnum) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(out->comm, &rank));
  CCPDEM_H5_ID(type, H5Tcopy(H5T_C_S1));
  CCPDEM_H5(H5Tset_size(type, strlen(s) + 1));
  CCPDEM_H5_ID(space, H5Screate(H5S_SCALAR));
  CCPDEM_H5_ID(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  CCPDEM_H5(H5Pset_obj_track_times(dcpl, 0)); /* no timestamps: equal runs write equal bytes */
  OUT_H5_ID(out, dset, H5Dcreate2(out->file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  if (dset >= 0 && rank == 0) { /* an independent write of rank 0's copy */
    OUT_H5(out, H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s));
    if (!out->pending) out->pending = IoFaultCharge(strlen(s) + 1);
  }
  if (dset >= 0) OUT_H5(out, H5Dclose(dset));
  CCPDEM_H5(H5Pclose(dcpl));
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Tclose(type));
  PetscCall(OutputAgree(out)); /* before the next collective call */
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

/* mkdir -p on this process; returns 0 or an errno. */
static int MakeDirsLocal(const char *path)
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
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return errno;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return ENOTDIR;
    buf[k] = saved;
  }
  return 0;
}

PetscErrorCode IoMakeDirs(MPI_Comm comm, const char *path, char *err, size_t errlen)
{
  PetscMPIInt rank;
  int         local = 0, agreed;

  PetscFunctionBegin;
  PetscCheck(path && path[0], comm, PETSC_ERR_ARG_WRONG, "Empty output directory name: give a directory (-o)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) local = MakeDirsLocal(path);
  PetscCall(IoAgree(comm, local, &agreed));
  if (agreed) snprintf(err, errlen, "creating %s: %s", path, strerror(agreed));
  else if (errlen) err[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
