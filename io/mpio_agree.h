/* Agreed outcomes of HDF5's collective MPI-IO writes. For a collective write HDF5 calls
 * MPI_File_set_view, MPI_File_write_at_all and MPI_File_set_view again, and skips the rest on a
 * rank whose write failed; an MPI-IO layer may report a failed write (a full disk) only on the ranks
 * that did the I/O (ROMIO does), and the others then wait for ever in the second MPI_File_set_view.
 * Between IoMpioAgreeBegin and IoMpioAgreeEnd (io/h5.h IoH5Output), the MPI_File_write_at_all of
 * io/mpio_agree.c, which takes the place of the MPI library's (the MPI profiling interface: it calls
 * PMPI_File_write_at_all), makes a failure on one rank of comm a failure on every rank, with the
 * first failing rank's errno, so that every rank leaves HDF5's write alike. Outside, it only
 * passes the call on. Not collective. */
#ifndef CCPDEM_IO_MPIO_AGREE_H
#define CCPDEM_IO_MPIO_AGREE_H
#include <mpi.h>

/* comm: the communicator the output file was opened on. */
void IoMpioAgreeBegin(MPI_Comm comm);
void IoMpioAgreeEnd(void);
#endif
