#!/usr/bin/env bash
# Mutation check: do the tests catch the bugs they are there for? Each mutation below is one
# plausible bug (the gaps of issue 38: a bug that a test's checks would let pass), written as one
# literal replacement in one file. The script copies the working tree (tracked and untracked files,
# not the ignored ones) to a scratch directory, builds it there (Release), runs each mutation's tests
# unmutated (they must pass), then for each mutation: applies it, rebuilds the targets its tests
# use, runs its tests, restores the file. It prints one row per mutation: caught (a test failed),
# MISSED (all passed), stale (the text to replace is no longer in the file: update the list) or
# baseline (a test fails without the mutation: the row says nothing). The tree itself is not touched.
#
#   bash tests/mutate.sh [SCRATCH]      (default: a new /tmp/ccpdem-mutate.XXXXXX, kept for reading the
#                                        tests' logs in SCRATCH/build/Testing/Temporary/)
# Environment: JOBS (build parallelism, default 2). Exit 0 if every mutation is caught, 1 otherwise.
# It takes about 15 minutes on 2 cores (the build, then about 1 minute per mutation).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${1:-$(mktemp -d /tmp/ccpdem-mutate.XXXXXX)}
jobs=${JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

# The mutations: NAME | FILE | TEXT | REPLACEMENT | TESTS (a ctest regex) | TARGETS (to rebuild).
# TEXT must occur exactly once in FILE.
names=() files=() texts=() repls=() tests=() targets=()
mutation() {
  names+=("$1") files+=("$2") texts+=("$3") repls+=("$4") tests+=("$5") targets+=("$6")
}
mutation "rolling friction ignored (rho = 0 in every contact)" src/collision/detect.c \
  'c->rho     = pp->rho;' 'c->rho     = 0;' \
  '^validation/test_guideway(_np[0-9]+)?$' test_guideway
mutation "emitter velocity spread ignored" src/step/emitter.c \
  'e->velocity[a] + e->velocity_spread[a] *' 'e->velocity[a] + 0 *' \
  '^validation/test_emitter(_np[0-9]+)?$' test_emitter
mutation "checkpoint written in place (no temporary, no rename)" io/checkpoint.c \
  '"%s/.ckpt-%06" PRId64 ".h5.tmp"' '"%s/ckpt-%06" PRId64 ".h5"' \
  '^restart/kill_during_checkpoint$' ccpdem
mutation "checkpoint checksum without the step attribute" io/checkpoint.c \
  'x = Fnv1a(x, &h->step, sizeof(h->step));' '(void)0;' \
  '^(unit/test_checkpoint|restart/signal_restart)$' 'test_checkpoint ccpdem'
mutation "load balancing counts this process's steps, not the run's" src/step/placement.c \
  '(sim->step + 1) % pl->balance_interval == 0' \
  '(pl->ghost_builds + pl->ghost_updates + 1) % pl->balance_interval == 0' \
  '^restart/(distributed_bitwise|joints_bitwise)$' ccpdem
mutation "penalty tracking: A's contact point carried by B's rotation" src/penalty/tracking.c \
  'mat_vec(c0, A->R, prev->arm_a);' 'mat_vec(c0, B->R, prev->arm_a);' \
  '^unit/test_penalty_kernels$' test_penalty_kernels
mutation "rolling friction takes the spinning coefficient (rho = sigma)" src/collision/detect.c \
  'c->rho     = pp->rho;' 'c->rho     = pp->sigma;' \
  '^validation/test_incline_sphere(_np[0-9]+)?$' test_incline_sphere
mutation "contact memory (penalty history) zeroed when routed to another rank" decomp/impulse_routing.c \
  'memcpy(gamma + w * nkeep++, records + rec * (size_t)e + sizeof(ContactKey), w * sizeof(double));' \
  'memset(gamma + w * nkeep++, 0, w * sizeof(double));' \
  '^validation/test_penalty_distributed_np[0-9]+$' test_penalty_distributed
mutation "warm-start decay after an unconverged step never applied" src/step/model_ccp.c \
  '(sim->last.keep_impulses ? 1.0 : m->warm_start_decay)' '1.0' \
  '^validation/test_warm_start$' test_warm_start
mutation "contacts inside the envelope push at a distance (b_n = 0 for a gap)" src/ccp/law.h \
  '*bn    = phi / h;' '*bn    = 0;' \
  '^validation/test_stack(_np[0-9]+)?$' test_stack
mutation "scaling report: efficiency not divided by the rank count" jobs/scaling/report.py \
  'r["efficiency"] = r["speedup"] / r["ranks"]' 'r["efficiency"] = r["speedup"]' \
  '^scaling/test_report$' ccpdem
mutation "contact compliance 0.5% too large" src/ccp/law.h \
  '*c_lin           = pp->compliance / (h * tau);' '*c_lin           = 1.005 * pp->compliance / (h * tau);' \
  '^validation/test_compliance(_np[0-9]+)?$' test_compliance
mutation "yield force 1% too large" src/ccp/law.h \
  't->yield_impulse    = pp->yield_force * h;' 't->yield_impulse    = 1.01 * pp->yield_force * h;' \
  '^validation/test_plasticity$' test_plasticity

# replace FILE TEXT REPLACEMENT: TEXT (exactly once in FILE) replaced; exit 1 if not found once
replace() {
  python3 - "$1" "$2" "$3" << 'PY'
import sys
path, text, repl = sys.argv[1:4]
src = open(path).read()
if src.count(text) != 1:
    sys.exit(1)
open(path, "w").write(src.replace(text, repl))
PY
}

build() { # targets...
  cmake --build "$scratch/build" -j "$jobs" --target "$@" > "$scratch/build.log" 2>&1 ||
    { tail -20 "$scratch/build.log"; return 1; }
}

runtests() { # regex: 0 if every matching test passes (and at least one matches)
  (cd "$scratch/build" && ctest -R "$1" --no-tests=error > "$scratch/ctest.log" 2>&1)
}

mkdir -p "$scratch/src"
git -C "$repo" ls-files -co --exclude-standard -z | tar -C "$repo" --null -T - -cf - | tar -C "$scratch/src" -xf -
echo "mutate: scratch copy of $repo in $scratch/src; building (Release) in $scratch/build"
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release > "$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; exit 1; }
build all || { echo "mutate: the unmutated copy does not build"; exit 1; }

n=${#names[@]}
result=()
for ((i = 0; i < n; i++)); do
  if ! grep -qF -- "${texts[i]}" "$scratch/src/${files[i]}"; then
    result[i]=stale
  elif ! runtests "${tests[i]}"; then
    result[i]=baseline
  fi
done

for ((i = 0; i < n; i++)); do
  [ -z "${result[i]:-}" ] || continue
  f=$scratch/src/${files[i]}
  cp -p "$f" "$scratch/original"
  if ! replace "$f" "${texts[i]}" "${repls[i]}"; then
    result[i]=stale
    continue
  fi
  t0=$SECONDS
  # shellcheck disable=SC2086 # the targets are a list
  if ! build ${targets[i]}; then
    result[i]="caught (build failed)"
  elif runtests "${tests[i]}"; then
    result[i]=MISSED
  else
    result[i]=caught
  fi
  cp "$scratch/original" "$f"
  touch "$f" # newer than the mutated object: the next build recompiles it
  echo "mutate: $((i + 1))/$n ${names[i]}: ${result[i]} ($((SECONDS - t0)) s)"
done

printf '\n%-70s %-62s %s\n' "bug" "tests (ctest -R)" "result"
missed=0
for ((i = 0; i < n; i++)); do
  printf '%-70s %-62s %s\n' "${names[i]}" "${tests[i]}" "${result[i]}"
  case ${result[i]} in caught*) ;; *) missed=$((missed + 1)) ;; esac
done
echo
echo "mutate: $((n - missed)) of $n mutations caught (scratch copy and logs in $scratch)"
[ "$missed" -eq 0 ]
