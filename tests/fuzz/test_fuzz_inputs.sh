#!/bin/bash
# Mutated inputs through the binary (label fuzz). Usage: test_fuzz_inputs.sh CCPDEM REPO WORKDIR
# Every case must end in one of
#   - exit 0 with finite outputs (every number of every snapshot and checkpoint, h5dump, and of the
#     time series and the printed summary),
#   - exit 2 with exactly one "ccpdem: error:" line and nothing else,
#   - for a run still going after 10 s (a mutation that made it long: time.end x 1e6), exit 3 after
#     the harness's SIGTERM, checkpointed, with finite outputs,
#   - for a valid input whose run meets one of the runtime stops (a state that diverged, a jointed
#     body carried out of the domain: gravity x 1e29), exit 1 with its start line and one
#     "ccpdem: error:" line, the outputs written before it finite,
# and never in a signal, a hang (30 s), a trace (PETSc's or HDF5's) or an exit 1, with at most 1 GB
# of address space (ulimit -v).
#  1. Scenarios (FUZZ_SCENARIOS, default 510): tests/fuzz/mutate.awk applies seeded mutations to
#     the three base scenarios in turn (deleted and duplicated keys, wrong types, NaN, infinities,
#     1e308, -0, huge integers, negative and scaled sizes, unicode, anchors, alias bombs, nesting
#     20 to 100000 deep, 2000 materials, cut text), plus fixed cases: /dev/zero, a 65 MB file, 10^6
#     nested '[', binary garbage with and without NUL bytes, an empty file, a directory. `check`
#     first; what it accepts is run (which must accept it too).
#  2. Checkpoints (FUZZ_CHECKPOINTS, default 100): a checkpoint of step 10 of base_pile.yaml's 20,
#     truncated, with 1 to 8 bits flipped anywhere or in its first 4 KB (superblock and headers), or
#     with forged sizes (the body count 47 replaced by 3 x 2^30, 2^31, 2^62 or -1 wherever it is
#     stored, the scenario text's length with bit 38 set or 2^40), restarted into a new directory.
# The mutations are the same every time (FUZZ_SEED, default 1). Prints the counts of each outcome;
# the log of every case is kept under WORKDIR.
. "$(dirname "$0")/../script_common.sh" "$@"
. "$(dirname "$0")/fuzz_common.sh"
FUZZ=$REPO/tests/fuzz
N_SCEN=${FUZZ_SCENARIOS:-510}
N_CKPT=${FUZZ_CHECKPOINTS:-100}
SEED=${FUZZ_SEED:-1}
# One process per case: skip the MPI run-time's daemon and network start-up (~0.3 s of each start).
export OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_btl=self OMPI_MCA_pml=ob1
mkdir -p "$W/cases" "$W/results"

# limited LOG CMD...: CMD with 1 GB of address space, SIGTERM after 10 s, SIGKILL 20 s later; its
# exit status (a signal as 128 + number). Each lane has its own TMPDIR: the MPI run-time keeps its
# session files there, under a job id that every isolated single process shares.
limited() {
  local log=$1; shift
  (ulimit -v 1048576 && exec timeout --preserve-status -k 20 10 "$@") > "$log" 2>&1
}
lane_tmp() { export TMPDIR=$W/tmp$1 && mkdir -p "$TMPDIR"; }

# The one-line form of a refusal: exactly one line, "ccpdem: error: ...".
one_line() { [ "$(wc -l < "$1")" -eq 1 ] && grep -q '^ccpdem: error: ' "$1"; }

# A run's start line, then one "ccpdem: error:" line and nothing else.
one_line_after_start() { [ "$(grep -vc '^ccpdem: [^e]' "$1")" -eq 1 ] && [ "$(grep -c '^ccpdem: error: ' "$1")" -eq 1 ]; }
# The runtime stops a valid input may meet (exit 1, one line): a diverging state (README "Command line",
# exit codes), a jointed body carried out of the domain.
RUNTIME_STOPS='so the run diverged|has left the domain'

# A trace or a crash report in a log.
traced() { grep -qE 'PETSC ERROR|HDF5-DIAG|Caught signal|MPI_ABORT|Segmentation|core dumped|Aborted' "$1"; }

# Every number in the outputs of run directory $1 and in its log $2 is finite.
finite_run() { ! grep -qiwE 'nan|-nan|inf|-inf' "$2" && finite_outputs "$1"; }

# judge NAME LOG RC RUNDIR: one result line for a finished command.
judge() {
  local name=$1 log=$2 rc=$3 dir=$4
  if traced "$log"; then echo "FAIL $name: a trace (exit $rc): $(grep -m1 -E 'ERROR|DIAG|signal|ABORT' "$log")"
  elif [ "$rc" -eq 2 ]; then
    one_line "$log" && echo "refused" || echo "FAIL $name: exit 2 without one error line: $(head -c 300 "$log")"
  elif [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then
    if [ "$rc" -eq 3 ] && ! ls "$dir"/checkpoints/ckpt-*.h5 > /dev/null 2>&1; then echo "FAIL $name: exit 3 without a checkpoint"
    elif ! finite_run "$dir" "$log"; then echo "FAIL $name: exit $rc with a non-finite output"
    elif [ "$rc" -eq 3 ]; then echo "stopped"
    else echo "ran"; fi
  elif [ "$rc" -eq 1 ] && one_line_after_start "$log" && grep -qE "$RUNTIME_STOPS" "$log"; then
    finite_outputs "$dir" && echo "stopped-at-run" || echo "FAIL $name: stopped at run time, non-finite outputs"
  elif [ "$rc" -gt 128 ]; then echo "FAIL $name: killed by signal $((rc - 128))$([ "$rc" -eq 137 ] && echo ' (a hang: 30 s)')"
  else echo "FAIL $name: exit $rc: $(tail -c 300 "$log")"; fi
}

# scenario_case NAME FILE: check, then run what check accepts (cases/NAME.what says what it is).
scenario_case() {
  local name=$1 file=$2 log=$W/cases/$1.check.log out=$W/cases/$1.out rc result what
  what=$(head -c 200 "$W/cases/$name.what")
  limited "$log" "$CCPDEM" check "$file"; rc=$?
  result=$(judge "scenario $name ($what)" "$log" $rc "$out")
  if [ "$result" = ran ]; then # accepted: the run must end well too
    limited "$W/cases/$name.run.log" "$CCPDEM" run "$file" -o "$out" -progress_interval 1000; rc=$?
    result=$(judge "scenario $name run ($what)" "$W/cases/$name.run.log" $rc "$out")
    [ "$result" = refused ] && result="FAIL scenario $name ($what): check accepted it, run refused it: $(cat "$W/cases/$name.run.log")"
  fi
  echo "$result" > "$W/results/s$name"
  rm -rf "$out" # keep the disk small; the logs stay
}

# ---- 1. scenarios ----------------------------------------------------------------------------
bases=("$FUZZ/base_pile.yaml" "$FUZZ/base_joints.yaml" "$FUZZ/base_penalty.yaml")
special() { # NAME FILE WHAT: a fixed case
  echo "$3" > "$W/cases/$1.what"
  scenario_case "$1" "$2"
}
scenario_cases() { # LANE: the mutated cases of this lane (of 2)
  local k
  lane_tmp "$1"
  for ((k = $1; k < N_SCEN; k += 2)); do
    awk -v seed=$((SEED * 100003 + k)) -f "$FUZZ/mutate.awk" "${bases[k % 3]}" > "$W/cases/m$k.yaml" 2> "$W/cases/m$k.what"
    scenario_case "m$k" "$W/cases/m$k.yaml"
  done
}
t0=$(date +%s)
lane_tmp 0
special zero /dev/zero "/dev/zero"
truncate -s 65M "$W/cases/big.yaml" && special big "$W/cases/big.yaml" "a 65 MB file"
{ printf 'domain: '; head -c 1000000 /dev/zero | tr '\0' '['; } > "$W/cases/deep.yaml"
special deep "$W/cases/deep.yaml" "10^6 nested ["
: > "$W/cases/empty.yaml" && special empty "$W/cases/empty.yaml" "an empty file"
special dir "$W/cases" "a directory"
special missing "$W/cases/none.yaml" "a missing file"
# binary garbage, the same bytes every time: a seeded stream of bytes 0-255 (with NULs), or 1-255
for nul in 0 1; do
  printf "$(awk -v seed=$((SEED + nul)) -v lo=$nul 'BEGIN { s = seed * 7919 + 1
    for (i = 0; i < 4096; i++) { s = (16807 * s) % 2147483647; printf "\\%03o", lo + s % (256 - lo) } }')" > "$W/cases/garbage$nul.yaml"
  special garbage$nul "$W/cases/garbage$nul.yaml" "4096 bytes of binary garbage ($([ $nul -eq 0 ] && echo with || echo without) NUL bytes)"
done
rm -f "$W/cases/big.yaml" "$W/cases/deep.yaml"
scenario_cases 0 &
scenario_cases 1 &
wait
t1=$(date +%s)

# ---- 2. checkpoints --------------------------------------------------------------------------
base_dir=$W/ckpt-base
"$CCPDEM" run "$FUZZ/base_pile.yaml" -o "$base_dir" -checkpoint_every_steps 10 > "$W/ckpt-base.log" 2>&1 ||
  fail "the base run for the checkpoints failed: $(tail -3 "$W/ckpt-base.log")"
CKPT=$base_dir/checkpoints/ckpt-000010.h5
SIZE=$(stat -c %s "$CKPT")
TEXT=$(stat -c %s "$FUZZ/base_pile.yaml")

le64() { printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = 8; i >= 1; i--) printf "\\x%s", $i }'; }
offsets_of() { LC_ALL=C grep -obUaP "$(le64 "$2")" "$1" | cut -d: -f1; } # FILE VALUE: where its 8-byte LE form lies
put64() { printf "$(le64 "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; } # FILE OFFSET VALUE
flip() { # FILE OFFSET BIT
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %03o $((b ^ (1 << $3))))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# The plan of the checkpoint cases: one line per case from the seeded generator.
awk -v seed=$SEED -v n="$N_CKPT" -v size="$SIZE" 'function r(m) { s = (16807 * s) % 2147483647; return s % m }
  BEGIN { s = seed * 104729 + 7; for (i = 0; i < 20; i++) r(2)
    for (k = 0; k < n; k++) {
      kind = k % 5
      if (kind == 0) print k, "cut", r(size)
      else if (kind == 1 || kind == 2) { nb = 1 + r(8); line = k " flip"; for (j = 0; j < nb; j++) line = line " " (kind == 1 ? r(size) : r(4096)) ":" r(8); print line }
      else if (kind == 3) print k, "bodies", r(5), r(2)
      else print k, "text", r(2)
    } }' > "$W/ckpt-plan"
checkpoint_cases() { # LANE
  local k kind a b f rc what off v
  lane_tmp "$1"
  while read -r k kind a b; do
    [ $((k % 2)) -eq "$1" ] || continue
    f=$W/cases/c$k.h5
    cp "$CKPT" "$f"
    case $kind in
      cut) truncate -s "$a" "$f"; what="cut at byte $a of $SIZE" ;;
      flip) what="bits flipped at (byte:bit) $a $b"
        for v in $a $b; do flip "$f" "${v%:*}" "${v#*:}"; done ;;
      bodies) v=$(echo "3221225472 2147483648 4611686018427387904 18446744073709551615 1099511627776" | cut -d' ' -f$((a + 1)))
        what="body count 47 -> $v at $([ "$b" -eq 0 ] && echo 'its first place' || echo 'every place')"
        for off in $(offsets_of "$f" 47 | head -n $([ "$b" -eq 0 ] && echo 1 || echo 100)); do put64 "$f" "$off" "$v"; done ;;
      text) v=$([ "$a" -eq 0 ] && echo $((TEXT | (1 << 38))) || echo $((1 << 40)))
        what="scenario text length $TEXT -> $v"
        for off in $(offsets_of "$f" "$TEXT"); do put64 "$f" "$off" "$v"; done ;;
    esac
    echo "$what" > "$W/cases/c$k.what"
    limited "$W/cases/c$k.log" "$CCPDEM" restart "$f" -o "$W/cases/c$k.out" -progress_interval 1000; rc=$?
    judge "checkpoint $k ($what)" "$W/cases/c$k.log" $rc "$W/cases/c$k.out" > "$W/results/c$k"
    rm -rf "$W/cases/c$k.out" "$f"
  done < "$W/ckpt-plan"
}
checkpoint_cases 0 &
checkpoint_cases 1 &
wait
t2=$(date +%s)

# ---- the counts ------------------------------------------------------------------------------
count() { cat "$W"/results/$1* 2> /dev/null | grep -c "^$2"; }
ns=$(ls "$W"/results/s* | wc -l) nc=$(ls "$W"/results/c* 2> /dev/null | wc -l)
echo "scenarios: $ns cases in $((t1 - t0)) s: $(count s 'ran$') accepted and ran to the end, $(count s 'stopped$')" \
  "stopped by SIGTERM after 10 s (checkpointed), $(count s stopped-at-run) stopped by a runtime check (exit 1," \
  "one line), $(count s refused) refused with one line, $(count s FAIL) failed"
echo "checkpoints: $nc cases in $((t2 - t1)) s: $(count c 'ran$') restarted to the end, $(count c 'stopped$') stopped," \
  "$(count c refused) refused with one line, $(count c FAIL) failed"
while read -r line; do fail "${line#FAIL }"; done < <(cat "$W"/results/* | grep '^FAIL' | head -40)
[ "$ns" -ge 500 ] || fail "only $ns scenario cases, want at least 500"
[ "$nc" -ge 100 ] || fail "only $nc checkpoint cases, want at least 100"
finish "fuzzed inputs"
