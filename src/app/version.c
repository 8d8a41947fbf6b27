/* ccpdem --version (app/commands.h). */
#include "app/commands.h"
#include "version_build.h"
#include "version_commit.h"
#include <hdf5.h>
#include <string.h>

void CommandVersion(FILE *f)
{
  char     petsc[256] = "unknown", mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
  unsigned h5[3] = {0, 0, 0};
  int      len   = 0;

  /* each of these may be called before PetscInitialize and MPI_Init */
  if (PetscGetVersion(petsc, sizeof(petsc))) snprintf(petsc, sizeof(petsc), "unknown");
  if (H5get_libversion(&h5[0], &h5[1], &h5[2]) < 0) h5[0] = h5[1] = h5[2] = 0;
  if (MPI_Get_library_version(mpi, &len) != MPI_SUCCESS) snprintf(mpi, sizeof(mpi), "unknown");
  mpi[strcspn(mpi, "\n")] = 0; /* its first line */
  fprintf(f, "ccpdem %s (commit %s)\n", CCPDEM_VERSION, CCPDEM_COMMIT);
  fprintf(f, "  build: %s, %s, flags '%s', sanitizers %s\n", CCPDEM_BUILD_TYPE, CCPDEM_BUILD_COMPILER,
          CCPDEM_BUILD_FLAGS, CCPDEM_BUILD_SANITIZE);
  fprintf(f, "  %s (built against %d.%d.%d), %d-bit PetscInt\n", petsc, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR,
          PETSC_VERSION_SUBMINOR, (int)(8 * sizeof(PetscInt)));
  fprintf(f, "  HDF5 %u.%u.%u (built against %d.%d.%d, parallel)\n", h5[0], h5[1], h5[2], H5_VERS_MAJOR, H5_VERS_MINOR,
          H5_VERS_RELEASE);
  fprintf(f, "  MPI: %s\n", mpi);
}
