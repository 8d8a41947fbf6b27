/* See step/step_reduce.h. */
#include "step/step_reduce.h"

enum {
  STEP_VALUES = STEP_SUMS + STEP_MAXES
};

/* inout = in (+) inout on *len records of STEP_VALUES doubles (one record is one element of the
 * datatype, so MPI never splits it): the first STEP_SUMS added, the rest maximized. Commutative,
 * and per value the same operation as MPI_SUM or MPI_MAX. */
static void sum_then_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
  const double *a = (const double *)in;
  double       *b = (double *)inout;
  (void)type;
  for (int r = 0; r < *len; r++, a += STEP_VALUES, b += STEP_VALUES)
    for (int k = 0; k < STEP_VALUES; k++) b[k] = k < STEP_SUMS ? a[k] + b[k] : (a[k] > b[k] ? a[k] : b[k]);
}

PetscErrorCode StepReduce(MPI_Comm comm, const double sum_in[STEP_SUMS], const double max_in[STEP_MAXES],
                          double sum_out[STEP_SUMS], double max_out[STEP_MAXES])
{
  double       in[STEP_VALUES], out[STEP_VALUES];
  MPI_Datatype record;
  MPI_Op       op;

  PetscFunctionBegin;
  PetscCall(PetscArraycpy(in, sum_in, STEP_SUMS));
  PetscCall(PetscArraycpy(in + STEP_SUMS, max_in, STEP_MAXES));
  PetscCallMPI(MPI_Type_contiguous(STEP_VALUES, MPI_DOUBLE, &record));
  PetscCallMPI(MPI_Type_commit(&record));
  PetscCallMPI(MPI_Op_create(sum_then_max, 1, &op)); /* local calls: no communication */
  PetscCallMPI(MPI_Allreduce(in, out, 1, record, op, comm));
  PetscCallMPI(MPI_Op_free(&op));
  PetscCallMPI(MPI_Type_free(&record));
  PetscCall(PetscArraycpy(sum_out, out, STEP_SUMS));
  PetscCall(PetscArraycpy(max_out, out + STEP_SUMS, STEP_MAXES));
  PetscFunctionReturn(PETSC_SUCCESS);
}
