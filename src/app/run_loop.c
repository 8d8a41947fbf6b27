/* The run loop (app/run_loop.h): steps, outputs, checkpoints, progress and the stop signals. */
#include "app/run_loop.h"
#include "step/pile_analysis.h"
#include "io/checkpoint.h"
#include "io/fault.h"
#include "base/log_events.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  double     wall_start, last_print, interval; /* s */
  PetscBool  tty;                              /* rank 0's stderr is a terminal: redraw one line */
  int        drawn;                            /* characters of the line drawn last (tty) */
  double     wall_detect, wall_solve, wall_integrate, wall_io;
  PetscInt64 unconverged, iterations;
  PetscInt64 linear_iterations; /* the solves' linear-solver iterations (-ccp_type ipm's KSP), summed */
  PetscInt64 polish_iterations; /* -ccp_type ipm: its polish's APGD iterations, summed (passes - Newton iterations) */
  double     max_speed;
  PetscInt64 first_step; /* step the run (or restart) began at */
} Progress;

/* When to checkpoint (0 = never by that criterion). */
typedef struct {
  PetscInt   every_steps;     /* -checkpoint_every_steps */
  PetscInt64 every_sim_steps; /* -checkpoint_interval (or output.checkpoint_interval) as steps */
  double     wall_interval;   /* -checkpoint_wall_interval (s) */
  double     wall_last;       /* wall time of the last checkpoint, or of the start */
  PetscInt64 last_step;       /* step of the last checkpoint written, -1 none */
} CheckpointPlan;

/* The signals that stop a run with a checkpoint: SIGUSR1 (what a batch script should send: mpiexec
 * forwards it to the ranks), SIGTERM (a batch system's time limit; srun forwards it) and SIGINT
 * (Ctrl-C on a run without mpiexec, or twice in a second on srun). */
enum {
  N_STOP_SIGNALS = 3
};
static const int stop_signals[N_STOP_SIGNALS] = {SIGUSR1, SIGTERM, SIGINT};

/* Set by a stop signal; read once per step. */
static volatile sig_atomic_t stop_requested = 0;

/* Whether SIGINT was ignored when first looked at (-1: not looked at yet): a shell starts a
 * script's background jobs so, and Ctrl-C is then meant for the script alone; it stays ignored. */
static int sigint_ignored = -1;

static void OnStopSignal(int sig)
{
  (void)sig;
  stop_requested = 1;
}

/* Catch the stop signals, saving the previous actions in old[] (when not NULL; an ignored SIGINT's
 * action is saved and left). SIGINT's handler is reset to the default when it runs, so a second
 * Ctrl-C ends the process at once (the checkpoints on disk stay valid: each is renamed into place
 * complete). A signal caught earlier (stop_requested) is kept. Plain C: callable before
 * PetscInitialize. 0 on success, -1 if sigaction fails. */
static int CatchStopSignals(struct sigaction old[N_STOP_SIGNALS])
{
  struct sigaction sa, now;

  memset(&sa, 0, sizeof(sa));
  sigemptyset(&sa.sa_mask);
  for (int k = 0; k < N_STOP_SIGNALS; k++) {
    if (sigaction(stop_signals[k], NULL, &now)) return -1;
    if (old) old[k] = now;
    if (stop_signals[k] == SIGINT) {
      if (sigint_ignored < 0) sigint_ignored = now.sa_handler == SIG_IGN;
      if (sigint_ignored) continue;
    }
    sa.sa_handler = OnStopSignal;
    sa.sa_flags   = stop_signals[k] == SIGINT ? SA_RESETHAND : 0;
    if (sigaction(stop_signals[k], &sa, NULL)) return -1;
  }
  return 0;
}

static PetscErrorCode InstallStopHandlers(struct sigaction old[N_STOP_SIGNALS])
{
  PetscFunctionBegin;
  PetscCheck(CatchStopSignals(old) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS,
             "Cannot install the SIGUSR1/SIGTERM/SIGINT handlers: %s", strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreStopHandlers(const struct sigaction old[N_STOP_SIGNALS])
{
  PetscFunctionBegin;
  for (int k = 0; k < N_STOP_SIGNALS; k++)
    PetscCheck(sigaction(stop_signals[k], &old[k], NULL) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS,
               "Cannot restore the handler of signal %d: %s", stop_signals[k], strerror(errno));
  stop_requested = 0; /* acted on: a later run in this process starts afresh */
  PetscFunctionReturn(PETSC_SUCCESS);
}

int RunLoopCatchStopSignals(void) { return CatchStopSignals(NULL); }

static PetscErrorCode CheckpointPlanSetUp(Simulation sim, CheckpointPlan *cp)
{
  const Scenario *sc       = SimulationScenario(sim);
  double          interval = sc->checkpoint_interval;

  PetscFunctionBegin;
  memset(cp, 0, sizeof(*cp));
  cp->last_step = -1;
  cp->wall_last = MPI_Wtime();
  PetscOptionsBegin(SimulationComm(sim), NULL, "Checkpoints", NULL);
  PetscCall(PetscOptionsInt("-checkpoint_every_steps", "Write a checkpoint every N steps (0 = not by step count)", NULL,
                            cp->every_steps, &cp->every_steps, NULL));
  PetscCall(PetscOptionsReal("-checkpoint_interval",
                             "Write a checkpoint every T simulated seconds (overrides output.checkpoint_interval; 0 = "
                             "not by simulated time)",
                             NULL, interval, &interval, NULL));
  PetscCall(PetscOptionsReal("-checkpoint_wall_interval",
                             "Write a checkpoint every W wall-clock seconds (0 = not by wall time)", NULL,
                             cp->wall_interval, &cp->wall_interval, NULL));
  PetscOptionsEnd();
  PetscCheck(cp->every_steps >= 0, SimulationComm(sim), PETSC_ERR_ARG_OUTOFRANGE,
             "-checkpoint_every_steps must be >= 0, got %" PetscInt_FMT, cp->every_steps);
  PetscCheck(interval >= 0, SimulationComm(sim), PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint_interval must be >= 0, got %g",
             interval);
  PetscCheck(cp->wall_interval >= 0, SimulationComm(sim), PETSC_ERR_ARG_OUTOFRANGE,
             "-checkpoint_wall_interval must be >= 0, got %g", cp->wall_interval);
  cp->every_sim_steps = scenario_interval_steps(interval, sc->time_step);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether rank 0's stderr, where the progress goes, is a terminal (under mpiexec it is a pipe); the same on every
 * rank. Collective. */
static PetscErrorCode ProgressTty(MPI_Comm comm, PetscBool *tty)
{
  PetscMPIInt rank;
  int         t = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) t = isatty(fileno(stderr));
  PetscCallMPI(MPI_Bcast(&t, 1, MPI_INT, 0, comm));
  *tty = (PetscBool)(t != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -progress_interval over the default (0.5 s: a live line on a terminal; else 2 s, a line each), checked.
 * Collective. */
static PetscErrorCode ProgressInterval(Simulation sim, double *interval)
{
  PetscBool tty;

  PetscFunctionBegin;
  PetscCall(ProgressTty(SimulationComm(sim), &tty));
  *interval = tty ? 0.5 : 2.0;
  PetscOptionsBegin(SimulationComm(sim), NULL, "Progress", NULL);
  PetscCall(PetscOptionsReal("-progress_interval",
                             "Wall seconds between progress lines (default 0.5 on a terminal, else 2)", NULL, *interval,
                             interval, NULL));
  PetscOptionsEnd();
  PetscCheck(*interval >= 0, SimulationComm(sim), PETSC_ERR_ARG_OUTOFRANGE,
             "-progress_interval must be >= 0 seconds, got %g", *interval);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunLoopCheckOptions(Simulation sim)
{
  CheckpointPlan cp;
  double         interval;
  PetscInt       keep;

  PetscFunctionBegin;
  PetscCall(ProgressInterval(sim, &interval));
  PetscCall(CheckpointPlanSetUp(sim, &cp));
  PetscCall(CheckpointKeepOption(SimulationComm(sim), &keep));
  PetscCall(IoFaultSetFromOptions(SimulationComm(sim)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The progress line (legend in app/option_table.c), on rank 0's stderr every pr->interval wall seconds: on a
 * terminal redrawn in place (padded over the longer line before it), else one line each; final: the last one,
 * with the wall time taken in place of the ETA. Not collective. */
static void ProgressLine(MPI_Comm comm, Progress *pr, Simulation sim, PetscInt64 nsteps, PetscBool final)
{
  const StepStats *st   = SimulationLastStep(sim);
  const PetscInt64 step = SimulationStepCount(sim);
  const double     now = MPI_Wtime(), el = now - pr->wall_start;
  const double     rate = el > 0 ? (step - pr->first_step) / el : 0;
  const double     eta  = rate > 0 ? (nsteps - step) / rate : 0;
  char             line[320], tail[64];
  int              n;

  if (!final && now - pr->last_print < pr->interval) return;
  pr->last_print = now;
  if (final) snprintf(tail, sizeof(tail), "done in %.1f s", el);
  else snprintf(tail, sizeof(tail), "ETA %.0f s", eta);
  n = snprintf(line, sizeof(line),
               "step %" PetscInt64_FMT "/%" PetscInt64_FMT "  t=%.4g/%.4g s  bodies %" PetscInt64_FMT
               "  contacts %" PetscInt64_FMT "  it %" PetscInt_FMT "  res %.2e%s  %.1f steps/s  %s",
               step, nsteps, SimulationTime(sim), SimulationScenario(sim)->time_end, st->bodies, st->contacts,
               st->iterations, st->residual_max, st->converged ? "" : "*", rate, tail);
  if (n < 0) return;
  PetscCallVoid(PetscFPrintf(comm, stderr, "%s%s%*s%s", pr->tty ? "\r" : "", line,
                             pr->tty && pr->drawn > n ? pr->drawn - n : 0, "", pr->tty && !final ? "" : "\n"));
  pr->drawn = n;
}

/* The angle of repose of each pile of the scenario's analysis.repose. */
static PetscErrorCode PrintRepose(MPI_Comm comm, Simulation sim)
{
  const Scenario *sc = SimulationScenario(sim);
  ReposeResult   *res;
  int            *status;

  PetscFunctionBegin;
  if (!sc->n_repose) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(sc->n_repose, &res, sc->n_repose, &status));
  PetscCall(SimulationRepose(sim, res, status));
  for (int p = 0; p < sc->n_repose; p++) {
    const ReposeSpec *spec = &sc->repose[p];
    if (status[p])
      PetscCall(PetscPrintf(comm, "  angle of repose (%s, %g <= x <= %g): no pile with a usable flank\n", spec->name,
                            spec->x_min, spec->x_max));
    else
      PetscCall(
        PetscPrintf(comm,
                    "  angle of repose (%s, %g <= x <= %g): %.1f deg (± %.1f), pile height %.3g m, toe radius %.3g m\n",
                    spec->name, spec->x_min, spec->x_max, res[p].angle_deg, res[p].uncertainty_deg, res[p].height,
                    res[p].radius));
  }
  PetscCall(PetscFree2(res, status));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintSummary(MPI_Comm comm, Simulation sim, const Progress *pr, const char *outdir)
{
  const double            total = MPI_Wtime() - pr->wall_start;
  const NeighbourList    *nlist = SimulationNeighbourList(sim);
  SimulationDecomposition info;

  PetscFunctionBegin;
  PetscCall(SimulationGetDecomposition(sim, &info));
  if (pr->first_step > 0) /* a restart: this segment's steps and the run's */
    PetscCall(PetscPrintf(comm,
                          "\nccpdem: finished steps %" PetscInt64_FMT " to %" PetscInt64_FMT " (%" PetscInt64_FMT
                          " steps in this segment, %" PetscInt64_FMT " in the run) to t = %g s in %.3f s wall\n",
                          pr->first_step + 1, SimulationStepCount(sim), SimulationStepCount(sim) - pr->first_step,
                          SimulationStepCount(sim), SimulationTime(sim), total));
  else
    PetscCall(PetscPrintf(comm, "\nccpdem: finished %" PetscInt64_FMT " steps to t = %g s in %.3f s wall\n",
                          SimulationStepCount(sim), SimulationTime(sim), total));
  PetscCall(PetscPrintf(comm, "  wall time by phase: detect %.2f s, solve %.2f s, integrate %.2f s, output %.2f s\n",
                        pr->wall_detect, pr->wall_solve, pr->wall_integrate, pr->wall_io));
  PetscCall(PetscPrintf(comm,
                        "  bodies %" PetscInt64_FMT " (%" PetscInt64_FMT " left the domain), contacts %" PetscInt64_FMT
                        ", solver iterations %" PetscInt64_FMT " in all, %" PetscInt64_FMT
                        " steps not converged to the tolerance, max body speed seen %.3g m/s%s\n",
                        SimulationLastStep(sim)->bodies, SimulationRemoved(sim), SimulationLastStep(sim)->contacts,
                        pr->iterations, pr->unconverged, pr->max_speed,
                        pr->first_step > 0 ? " (iterations, steps and speed: this segment's)" : ""));
  if (pr->linear_iterations || pr->polish_iterations) /* the IPM: its CG and polish iterations beside its Newton */
    PetscCall(PetscPrintf(comm,
                          "  linear iterations %" PetscInt64_FMT " in all (the Newton systems' KSP; the solver "
                          "iterations above are Newton iterations), polish iterations %" PetscInt64_FMT
                          " (APGD from the interior point's iterate)%s\n",
                          pr->linear_iterations, pr->polish_iterations, pr->first_step > 0 ? " (this segment's)" : ""));
  if (SimulationInfeasibleSteps(sim))
    PetscCall(PetscPrintf(comm,
                          "  %" PetscInt64_FMT " of them found unsolvable (a jam of overlapping contacts; the first "
                          "was reported when it happened)\n",
                          SimulationInfeasibleSteps(sim)));
  if (SimulationScenario(sim)->overlap_correction == OVERLAP_CORRECTION_POSITION) {
    OverlapCorrectionStats oc;
    SimulationOverlapCorrection(sim, &oc);
    PetscCall(PetscPrintf(comm,
                          "  overlap correction (position pass): run in %" PetscInt64_FMT " steps, %" PetscInt64_FMT
                          " iterations in all, %" PetscInt64_FMT " of them not converged to the tolerance%s\n",
                          oc.solves, oc.iterations, oc.unconverged, pr->first_step > 0 ? " (this segment's)" : ""));
  }
  if (nlist->skin > 0) {
    PetscInt64 local[2] = {nlist->builds, nlist->steps}, global[2];
    PetscCallMPI(MPI_Allreduce(local, global, 2, MPIU_INT64, MPI_SUM, comm));
    PetscCall(PetscPrintf(comm,
                          "  neighbour list (skin %g m): built %" PetscInt64_FMT " times in %" PetscInt64_FMT
                          " rank-steps\n",
                          nlist->skin, global[0], global[1]));
  }
  if (info.grid[0] * info.grid[1] * info.grid[2] > 1)
    PetscCall(PetscPrintf(comm,
                          "  decomposition: grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                          ", last step's imbalance (max/mean over ranks) bodies %.3f, contacts %.3f, work %.3f; "
                          "%" PetscInt64_FMT " rebalances (%" PetscInt64_FMT " changed the grid)\n",
                          info.grid[0], info.grid[1], info.grid[2], SimulationLastStep(sim)->imbalance, info.contacts,
                          info.work, info.balances, info.regrids));
  PetscCall(PrintRepose(comm, sim));
  PetscCall(PetscPrintf(comm,
                        "  outputs: %s/timeseries.csv, %s/snapshots/ (open %s/snapshots.xmf in ParaView: File > Open, "
                        "XDMF Reader, Apply; Extract Block: bodies; then Glyph: Sphere, scale array radius, factor 2, "
                        "all points: README "
                        "\"Outputs\")\n",
                        outdir, outdir, outdir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteSnapshot(Simulation sim, const char *outdir, Progress *pr, char *err, size_t errlen)
{
  double t0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_OUTPUT, 0, 0, 0, 0));
  PetscCall(SimulationWriteSnapshot(sim, outdir, err, errlen));
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_OUTPUT, 0, 0, 0, 0));
  pr->wall_io += MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* path <- the checkpoint written; on a failure (err set) path is left as it was: the last good one. */
static PetscErrorCode WriteCheckpoint(Simulation sim, const char *outdir, Progress *pr, CheckpointPlan *cp, char *path,
                                      size_t len, char *err, size_t errlen)
{
  double t0 = MPI_Wtime();
  char   written[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_OUTPUT, 0, 0, 0, 0));
  PetscCall(SimulationWriteCheckpoint(sim, outdir, written, sizeof(written), err, errlen));
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_OUTPUT, 0, 0, 0, 0));
  pr->wall_io += MPI_Wtime() - t0;
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrncpy(path, written, len));
  cp->last_step = SimulationStepCount(sim);
  cp->wall_last = MPI_Wtime();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one line of an output that could not be written (rank 0 prints it), naming the checkpoint to
 * continue from: the last this run wrote, else the one it was restarted from. */
static PetscErrorCode ReportOutputFailure(MPI_Comm comm, const Progress *pr, const char *err, const char *good)
{
  PetscFunctionBegin;
  if (pr->tty) PetscCall(PetscFPrintf(comm, stderr, "\n")); /* below the progress line being redrawn */
  if (good[0]) PetscCall(PetscFPrintf(comm, stderr, "ccpdem: error: %s; the last good checkpoint is %s\n", err, good));
  else PetscCall(PetscFPrintf(comm, stderr, "ccpdem: error: %s; no checkpoint was written\n", err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's requests for the next step, agreed on by its statistics reduction (RunFlag): a stop
 * requested here, and on rank 0 a wall-clock checkpoint due (its clock decides, so every rank
 * agrees) and a time-series row not written. */
static void SetRunFlags(Simulation sim, PetscMPIInt rank, const CheckpointPlan *cp, const Timeseries *ts)
{
  SimulationRequest(sim, RUN_FLAG_STOP, (PetscBool)(stop_requested != 0));
  SimulationRequest(sim, RUN_FLAG_WALL_CHECKPOINT,
                    (PetscBool)(rank == 0 && cp->wall_interval > 0 &&
                                MPI_Wtime() - cp->wall_last >= cp->wall_interval));
  SimulationRequest(sim, RUN_FLAG_OUTPUT_FAILED, (PetscBool)(rank == 0 && ts->failed_step >= 0));
}

/* Whether the step ending at `step` is followed by a snapshot: every snap_every steps (0: none) and the last. */
static PetscBool SnapshotDue(PetscInt64 step, PetscInt64 snap_every, PetscInt64 nsteps)
{
  return (PetscBool)((snap_every && step % snap_every == 0) || step == nsteps);
}

PetscErrorCode RunLoop(Simulation sim, const char *outdir, const char *from, RunEnd *end)
{
  const Scenario  *sc         = SimulationScenario(sim);
  const StepStats *last       = SimulationLastStep(sim);
  const MPI_Comm   comm       = SimulationComm(sim);
  const double     h          = sc->time_step;
  const PetscInt64 nsteps     = scenario_step_count(sc->time_end, h, NULL, 0); /* checked when read */
  const PetscInt64 snap_every = scenario_interval_steps(sc->snapshot_interval, h);
  Timeseries       ts;
  Progress         pr      = {0};
  double           io_prev = 0;
  SolverType       type    = SOLVER_APGD;
  PetscBool        ipm;
  CheckpointPlan   cp;
  PetscBool        checkpointing, requeue = PETSC_FALSE;
  struct sigaction old_handlers[N_STOP_SIGNALS];
  char             ckpt_path[PETSC_MAX_PATH_LEN] = ""; /* the last good checkpoint */
  char             err[1024]                     = "", close_err[1024];
  PetscMPIInt      rank;

  PetscFunctionBegin;
  if (SimulationSolver(sim)) PetscCall(CCPSolverGetType(SimulationSolver(sim), &type)); /* NULL: the penalty model */
  ipm = (PetscBool)(type == SOLVER_IPM);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  *end = RUN_DONE;
  if (from) PetscCall(PetscStrncpy(ckpt_path, from, sizeof(ckpt_path)));
  PetscCall(CcpdemLogEventsRegister());
  pr.wall_start = pr.last_print = MPI_Wtime();
  pr.first_step                 = SimulationStepCount(sim);
  PetscCall(ProgressTty(comm, &pr.tty));
  PetscCall(ProgressInterval(sim, &pr.interval));
  PetscCall(CheckpointPlanSetUp(sim, &cp));
  checkpointing = (PetscBool)(cp.every_steps || cp.every_sim_steps || cp.wall_interval > 0);
  PetscCall(TimeseriesOpen(comm, outdir, pr.first_step > 0, pr.first_step + 1, &ts, err, sizeof(err)));
  if (!err[0] && pr.first_step == 0) PetscCall(WriteSnapshot(sim, outdir, &pr, err, sizeof(err)));
  PetscCall(InstallStopHandlers(old_handlers));
  while (!err[0] && SimulationStepCount(sim) < nsteps) {
    double     io0;
    PetscBool  stop, wall_due, snapshot_due, checkpoint_due;
    PetscInt64 step;
    SetRunFlags(sim, rank, &cp, &ts);
    SimulationRecordLoads(sim, SnapshotDue(SimulationStepCount(sim) + 1, snap_every, nsteps)); /* for its snapshot */
    PetscCall(SimulationStep(sim));
    step = SimulationStepCount(sim);
    if (SimulationAgreed(sim, RUN_FLAG_OUTPUT_FAILED)) { /* rank 0 could not write the last row */
      PetscCall(TimeseriesCheck(comm, &ts, PETSC_FALSE, err, sizeof(err)));
      break;
    }
    stop     = SimulationAgreed(sim, RUN_FLAG_STOP);
    wall_due = SimulationAgreed(sim, RUN_FLAG_WALL_CHECKPOINT);
    pr.wall_detect += last->wall_detect;
    pr.wall_solve += last->wall_solve;
    pr.wall_integrate += last->wall_integrate;
    pr.iterations += last->iterations;
    pr.linear_iterations += last->linear_iterations;
    if (ipm) pr.polish_iterations += last->passes - last->iterations; /* the IPM's passes (ccp/solve_stats.h) */
    pr.unconverged += !last->converged;
    pr.max_speed   = PetscMax(pr.max_speed, last->max_speed);
    io0            = MPI_Wtime();
    snapshot_due   = SnapshotDue(step, snap_every, nsteps);
    checkpoint_due = (PetscBool)(stop || wall_due || (cp.every_steps && step % cp.every_steps == 0) ||
                                 (cp.every_sim_steps && step % cp.every_sim_steps == 0) ||
                                 (checkpointing && step == nsteps));
    PetscCall(TimeseriesWrite(comm, &ts, last, io_prev));
    /* this step's row is in the time series (on disk before a checkpoint) before its outputs */
    if (snapshot_due || checkpoint_due) PetscCall(TimeseriesCheck(comm, &ts, checkpoint_due, err, sizeof(err)));
    if (!err[0] && snapshot_due) PetscCall(WriteSnapshot(sim, outdir, &pr, err, sizeof(err)));
    if (!err[0] && checkpoint_due)
      PetscCall(WriteCheckpoint(sim, outdir, &pr, &cp, ckpt_path, sizeof(ckpt_path), err, sizeof(err)));
    io_prev = MPI_Wtime() - io0;
    if (err[0]) break;
    ProgressLine(comm, &pr, sim, nsteps, PETSC_FALSE);
    if (stop && step < nsteps) { /* stopped at the last step: the run is simply done */
      requeue = PETSC_TRUE;
      break;
    }
  }
  PetscCall(RestoreStopHandlers(old_handlers));
  if (!err[0]) PetscCall(TimeseriesCheck(comm, &ts, PETSC_FALSE, err, sizeof(err))); /* the last row's write */
  PetscCall(TimeseriesClose(comm, &ts, close_err, sizeof(close_err)));
  if (!err[0]) PetscCall(PetscStrncpy(err, close_err, sizeof(err)));
  if (err[0]) {
    PetscCall(ReportOutputFailure(comm, &pr, err, ckpt_path));
    *end = RUN_FAILED;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ProgressLine(comm, &pr, sim, nsteps, PETSC_TRUE);
  if (requeue) {
    *end = RUN_REQUEUE;
    PetscCall(PetscPrintf(comm,
                          "ccpdem: stop requested (SIGUSR1/SIGTERM/SIGINT): checkpointed step %" PetscInt64_FMT
                          " (t = %g s) to %s; continue with: ccpdem restart %s\n",
                          SimulationStepCount(sim), SimulationTime(sim), ckpt_path, ckpt_path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PrintSummary(comm, sim, &pr, outdir));
  PetscFunctionReturn(PETSC_SUCCESS);
}
