/* MPI_File_write_at_all with an outcome agreed by every rank (io/mpio_agree.h). Plain MPI: it runs
 * inside HDF5's calls, where no PETSc error may be raised. */
#include "io/mpio_agree.h"
#include <errno.h>

static MPI_Comm agree_comm = MPI_COMM_NULL; /* set while an output file is written */

void IoMpioAgreeBegin(MPI_Comm comm) { agree_comm = comm; }

void IoMpioAgreeEnd(void) { agree_comm = MPI_COMM_NULL; }

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
  int rc, e, rank, size, mine, first;

  errno = 0;
  rc    = PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
  if (agree_comm == MPI_COMM_NULL) return rc;
  e = rc == MPI_SUCCESS ? 0 : errno ? errno : EIO;
  if (PMPI_Comm_rank(agree_comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(agree_comm, &size) != MPI_SUCCESS)
    return MPI_ERR_OTHER;
  mine = e ? rank : size;
  if (PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, agree_comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
  if (first == size) return rc;
  if (PMPI_Bcast(&e, 1, MPI_INT, first, agree_comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
  errno = e; /* the first failing rank's reason, for the one line every rank reports */
  return rc == MPI_SUCCESS ? MPI_ERR_IO : rc;
}
