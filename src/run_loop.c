#include "run_loop.h"
#include "snapshot.h"
#include "timeseries.h"
#include <unistd.h>

static PetscLogEvent EV_OUTPUT;

typedef struct {
  double    wall_start, last_print, interval; /* s */
  PetscBool tty;                              /* stderr is a terminal: redraw one line */
  double    wall_detect, wall_solve, wall_integrate, wall_io;
  PetscInt  unconverged, iterations;
  double    max_speed;
} Progress;

static void ProgressLine(MPI_Comm comm, Progress *pr, const Simulation *sim, PetscInt nsteps, PetscBool final)
{
  const StepStats *st   = &sim->last;
  const double     now  = MPI_Wtime(), el = now - pr->wall_start;
  const double     rate = el > 0 ? sim->step / el : 0;
  const double     eta  = rate > 0 ? (nsteps - sim->step) / rate : 0;

  if (!final && now - pr->last_print < pr->interval) return;
  pr->last_print = now;
  PetscCallVoid(PetscFPrintf(comm, stderr, "%sstep %" PetscInt_FMT "/%" PetscInt_FMT "  t=%.4g/%.4g s  bodies %" PetscInt_FMT "  contacts %" PetscInt_FMT "  it %" PetscInt_FMT "  res %.2e%s  %.1f steps/s  ETA %.0f s%s",
                             pr->tty ? "\r" : "", sim->step, nsteps, sim->time, sim->sc.time_end, st->bodies, st->contacts, st->iterations, st->residual_max,
                             st->converged ? "" : "*", rate, eta, pr->tty && !final ? "   " : "\n"));
}

static PetscErrorCode PrintSummary(MPI_Comm comm, const Simulation *sim, const Progress *pr, const char *outdir)
{
  const double total = MPI_Wtime() - pr->wall_start;

  PetscFunctionBegin;
  PetscCall(PetscPrintf(comm, "\nccpdem: finished %" PetscInt_FMT " steps to t = %g s in %.2f s wall\n", sim->step, sim->time, total));
  PetscCall(PetscPrintf(comm, "  wall time by phase: detect %.2f s, solve %.2f s, integrate %.2f s, output %.2f s\n", pr->wall_detect, pr->wall_solve, pr->wall_integrate, pr->wall_io));
  PetscCall(PetscPrintf(comm, "  bodies %" PetscInt_FMT " (%" PetscInt_FMT " left the domain), contacts %" PetscInt_FMT ", solver iterations %" PetscInt_FMT " in all, %" PetscInt_FMT " steps not converged to the tolerance, max body speed seen %.3g m/s\n",
                        sim->last.bodies, sim->removed, sim->last.contacts, pr->iterations, pr->unconverged, pr->max_speed));
  PetscCall(PetscPrintf(comm, "  outputs: %s/timeseries.csv, %s/snapshots/ (open %s/snapshots.xmf in ParaView: File > Open, Apply, then glyph the points by 'radius')\n", outdir, outdir, outdir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteSnapshot(Simulation *sim, const char *outdir, Progress *pr)
{
  double t0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(EV_OUTPUT, 0, 0, 0, 0));
  PetscCall(SnapshotWrite(sim->comm, outdir, sim->step, sim->time, &sim->bodies));
  PetscCall(PetscLogEventEnd(EV_OUTPUT, 0, 0, 0, 0));
  pr->wall_io += MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunLoop(Simulation *sim, const char *outdir)
{
  const double   h         = sim->sc.time_step;
  const PetscInt nsteps    = (PetscInt)llround(sim->sc.time_end / h);
  const PetscInt snap_every = sim->sc.snapshot_interval > 0 ? PetscMax(1, (PetscInt)llround(sim->sc.snapshot_interval / h)) : 0;
  Timeseries     ts;
  Progress       pr = {0};
  double         io_prev = 0;
  PetscClassId   cls;

  PetscFunctionBegin;
  if (!EV_OUTPUT) {
    PetscCall(PetscClassIdRegister("ccpdem output", &cls));
    PetscCall(PetscLogEventRegister("Output", cls, &EV_OUTPUT));
  }
  pr.wall_start = pr.last_print = MPI_Wtime();
  pr.tty        = (PetscBool)isatty(fileno(stderr));
  pr.interval   = pr.tty ? 0.5 : 10.0;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-progress_interval", &pr.interval, NULL));
  PetscCall(TimeseriesOpen(sim->comm, outdir, sim->step > 0, sim->step + 1, &ts));
  if (sim->step == 0) PetscCall(WriteSnapshot(sim, outdir, &pr));
  while (sim->step < nsteps) {
    double io0;
    PetscCall(SimulationStep(sim));
    pr.wall_detect += sim->last.wall_detect;
    pr.wall_solve += sim->last.wall_solve;
    pr.wall_integrate += sim->last.wall_integrate;
    pr.iterations += sim->last.iterations;
    pr.unconverged += !sim->last.converged;
    pr.max_speed = PetscMax(pr.max_speed, sim->last.max_speed);
    io0 = MPI_Wtime();
    PetscCall(TimeseriesWrite(sim->comm, &ts, &sim->last, io_prev));
    if ((snap_every && sim->step % snap_every == 0) || sim->step == nsteps) PetscCall(WriteSnapshot(sim, outdir, &pr));
    io_prev = MPI_Wtime() - io0;
    ProgressLine(sim->comm, &pr, sim, nsteps, PETSC_FALSE);
  }
  ProgressLine(sim->comm, &pr, sim, nsteps, PETSC_TRUE);
  PetscCall(TimeseriesClose(&ts));
  PetscCall(PrintSummary(sim->comm, sim, &pr, outdir));
  PetscFunctionReturn(PETSC_SUCCESS);
}
