/* I/O benchmark (issue: checkpoints; a program, not a test): checkpoint write and restart read of
 * a block of N spheres (default 10^6, a touching cubic lattice in a box, one step taken so the
 * warm-start memory holds ~3 contacts per sphere) on this run's ranks, against `dd` writing and
 * reading a file of the same size to the same directory in the same run (conv=fsync: the
 * checkpoint is fsynced too). Prints seconds, MB/s, the ratio to dd, bytes per sphere and per
 * remembered contact, and the restart time (SimulationCreateFromCheckpoint: read, verify the checksum, rebuild the
 * simulation ready to step).
 * Usage: mpiexec -n P bench_io [-n N] [-dir DIR (default /tmp)] [-drop_caches (root: read cold)] */
#include "step/simulation.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static double Dd(const char *cmd)
{
  const double t0 = MPI_Wtime();
  if (system(cmd) != 0) return -1;
  return MPI_Wtime() - t0;
}

static void DropCaches(PetscBool drop)
{
  if (!drop) return;
  sync();
  FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
  if (f) {
    fputs("3\n", f);
    fclose(f);
  }
}

int main(int argc, char **argv)
{
  PetscInt n                   = 1000000, side;
  char dir[PETSC_MAX_PATH_LEN] = "/tmp", out[PETSC_MAX_PATH_LEN], yaml[2048], err[1024] = "", path[PETSC_MAX_PATH_LEN],
       cmd[3 * PETSC_MAX_PATH_LEN];
  PetscBool   drop = PETSC_FALSE;
  PetscMPIInt rank, size;
  Scenario    sc;
  Simulation  sim, back;
  double      t0, t_write, t_read, dd_write = -1, dd_read = -1, mb;
  struct stat st;
  PetscInt64  contacts;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-drop_caches", &drop, NULL));
  side = (PetscInt)ceil(cbrt((double)n));
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-0.01, -0.01, -0.01], max: [%.17g, %.17g, %.17g]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.005, end: 1}\n"
           "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
           "solver: {type: apgd, max_iterations: 2, tolerance: 1.0e-4}\n"
           "materials:\n  - {name: m, density: 2000, friction: 0.5, rolling_friction: 0.001, spinning_friction: "
           "0.001}\n"
           "walls:\n  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "fills:\n  - {type: lattice, region: {min: [0, 0, 0], max: [%.17g, %.17g, %.17g]}, radius: 0.01, spacing: "
           "0.02, material: m}\n",
           0.02 * side + 0.01, 0.02 * side + 0.01, 0.02 * side + 0.01, 0.02 * side, 0.02 * side, 0.02 * side);
  if (scenario_load_string(yaml, "bench_io", &sc, err, sizeof(err)))
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, &sim, err, sizeof(err)));
  PetscCheck(sim, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationStep(sim));
  contacts = SimulationLastStep(sim)->contacts;
  snprintf(out, sizeof(out), "%s/ccpdem_bench_io_%d", dir, (int)getpid());
  PetscCallMPI(MPI_Bcast(out, sizeof(out), MPI_CHAR, 0, PETSC_COMM_WORLD));

  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(SimulationWriteCheckpoint(sim, out, path, sizeof(path), err, sizeof(err)));
  PetscCheck(!err[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_WRITE, "%s", err);
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t_write = MPI_Wtime() - t0;
  PetscCall(SimulationDestroy(&sim));
  if (!rank) {
    PetscCheck(stat(path, &st) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot stat %s", path);
    snprintf(cmd, sizeof(cmd), "dd if=/dev/zero of=%s/dd.tmp bs=4M count=%lld conv=fsync status=none", out,
             (long long)(st.st_size / (4 << 20) + 1));
    dd_write = Dd(cmd);
  }
  PetscCallMPI(MPI_Bcast(&st.st_size, sizeof(st.st_size), MPI_BYTE, 0, PETSC_COMM_WORLD));
  if (!rank) DropCaches(drop);
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, path, &back, err, sizeof(err)));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t_read = MPI_Wtime() - t0;
  PetscCheck(back, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationDestroy(&back));
  if (!rank) {
    DropCaches(drop);
    snprintf(cmd, sizeof(cmd), "dd if=%s/dd.tmp of=/dev/null bs=4M status=none", out);
    dd_read = Dd(cmd);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", out);
    if (system(cmd) != 0) printf("could not remove %s\n", out);
    mb                 = (double)st.st_size / 1e6;
    const double dd_mb = (double)((st.st_size / (4 << 20) + 1) * (4 << 20)) / 1e6;
    /* a remembered contact is stored as ida, idb (int64), sub (int32) and 6 impulses: 68 bytes */
    printf("bench_io: %d ranks, %" PetscInt_FMT " spheres, %" PetscInt64_FMT
           " remembered contacts, checkpoint %.1f MB: %.1f bytes per sphere plus 68 per contact\n",
           size, side * side * side, contacts, mb,
           ((double)st.st_size - 68.0 * (double)contacts) / (double)(side * side * side));
    printf("  write %.3f s = %.0f MB/s; dd %.3f s = %.0f MB/s; ratio %.2f\n", t_write, mb / t_write, dd_write,
           dd_mb / dd_write, (mb / t_write) / (dd_mb / dd_write));
    printf("  restart read (verified, ready to step) %.3f s = %.0f MB/s; dd read %.3f s = %.0f MB/s; ratio %.2f%s\n",
           t_read, mb / t_read, dd_read, dd_mb / dd_read, (mb / t_read) / (dd_mb / dd_read),
           drop ? " (cold caches)" : " (page cache warm)");
  }
  PetscCall(PetscFinalize());
  return 0;
}
