#!/bin/bash
# -set KEY=VALUE (label cli; README "Command line"). Usage: test_set.sh CCPDEM REPO WORKDIR
#  1. A run with -set time.end=0.1 -set materials[0].rolling_friction=0.004 -set 'gravity=[0, 0, -5]' writes
#     the same snapshots and checkpoints, bit for bit (h5diff), as a run of the file edited to those values:
#     the overrides are read exactly as the file's keys; and differs from the plain file's run (the override
#     changed the run). Its checkpoints are format 7 and `info` lists the overrides; a run without -set
#     writes format 6.
#  2. A restart without -set continues with the recorded overrides: its last snapshot equals the
#     uninterrupted run's; a restart with other -set values is refused (exit 2, one line), the same ones pass.
#  3. A bad path (an unknown key, an index past a list's end, a key under a number) and a bad value (not a
#     number, out of range, an unknown choice, malformed YAML) are refused like a bad key in the file: exit 2,
#     one "ccpdem: error: command line: -set KEY=VALUE: ..." line naming the argument, no output directory;
#     check refuses them the same way, also on 2 ranks.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_MCA_mpi_yield_when_idle=1
pile=$REPO/tests/restart/pile.yaml
cd "$W" || exit 1
SET=(-set time.end=0.1 -set "materials[0].rolling_friction=0.004" -set "gravity=[0, 0, -5]")
sed -e 's/end: 0.4}/end: 0.1}/' -e 's/rolling_friction: 0.002,/rolling_friction: 0.004,/' \
  -e 's/gravity: \[0, 0, -9.81\]/gravity: [0, 0, -5]/' "$pile" > "$W/edited.yaml"
[ "$(diff "$pile" "$W/edited.yaml" | grep -c '^>')" -eq 3 ] || fail "the edited scenario does not differ in 3 lines"
version() { h5dump -a ccpdem_checkpoint_version "$1" 2> /dev/null | sed -n 's/^ *(0): \([0-9]*\)$/\1/p'; }

echo "1. -set equals editing the file"
"$CCPDEM" run "$pile" -o "$W/set" "${SET[@]}" -checkpoint_every_steps 25 > "$W/set.log" 2>&1 || fail "the -set run failed: $(tail -3 "$W/set.log")"
"$CCPDEM" run "$W/edited.yaml" -o "$W/edited" -checkpoint_every_steps 25 > "$W/edited.log" 2>&1 || fail "the edited run failed: $(tail -3 "$W/edited.log")"
"$CCPDEM" run "$pile" -o "$W/plain" -set time.end=0.1 > "$W/plain.log" 2>&1 || fail "the plain run failed: $(tail -3 "$W/plain.log")"
grep -q "with -set time.end=0.1 -set materials\[0\].rolling_friction=0.004 -set gravity=\[0, 0, -5\]" "$W/set.log" ||
  fail "the run's log does not list its overrides: $(head -3 "$W/set.log")"
n=0
for f in "$W"/edited/snapshots/snap-*.h5; do
  h5diff -q "$f" "$W/set/snapshots/$(basename "$f")" > /dev/null 2>&1 || fail "$(basename "$f") differs from the edited file's run"
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "the edited run wrote $n snapshots"
last=$(ls "$W"/set/snapshots/snap-*.h5 | tail -1)
[ "$(basename "$last")" = snap-000050.h5 ] || fail "-set time.end=0.1 ended at $(basename "$last"), not step 50"
h5diff -q "$last" "$W/plain/snapshots/snap-000050.h5" > /dev/null 2>&1 && fail "rolling friction and gravity set by -set changed nothing"
for c in "$W"/set/checkpoints/ckpt-*.h5; do
  [ "$(version "$c")" = 7 ] || fail "$(basename "$c") of the -set run: format $(version "$c"), want 7"
  for g in /bodies /contacts /walls; do # the root attributes differ: version, run id, checksum
    h5diff -q "$c" "$W/edited/checkpoints/$(basename "$c")" $g $g > /dev/null 2>&1 ||
      fail "$(basename "$c")'s $g differs from the edited file's run"
  done
done
ckpt=$W/set/checkpoints/ckpt-000025.h5
[ "$(version "$W/edited/checkpoints/ckpt-000025.h5")" = 6 ] || fail "a run without -set wrote format $(version "$W/edited/checkpoints/ckpt-000025.h5")"
"$CCPDEM" info "$ckpt" | grep -q "^    materials\[0\].rolling_friction=0.004$" || fail "info does not list the overrides: $("$CCPDEM" info "$ckpt")"
echo "  $n snapshots equal to the edited file's run, and different from the plain file's; checkpoints format 7 (6 without -set)"

echo "2. restart applies the recorded overrides"
"$CCPDEM" restart "$ckpt" -o "$W/re" > "$W/re.log" 2>&1 || fail "the restart failed: $(tail -3 "$W/re.log")"
h5diff -q "$W/re/snapshots/snap-000050.h5" "$last" > /dev/null 2>&1 || fail "the restart without -set does not continue the -set run"
grep -q "finished steps 26 to 50 (25 steps in this segment, 50 in the run) to t = 0.1 s" "$W/re.log" ||
  fail "the restart's summary does not count its segment: $(grep finished "$W/re.log")"
out=$("$CCPDEM" restart "$ckpt" -o "$W/re2" -set time.end=0.2 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "a restart with other -set values: exit $rc, $out"
echo "$out" | grep -q "^ccpdem: error: -set on restart must repeat the run's overrides exactly, but .* records -set time.end=0.1 -set materials\[0\].rolling_friction=0.004 -set gravity=\[0, 0, -5\];" ||
  fail "the refusal: $out"
[ -e "$W/re2" ] && fail "a refused restart created its output directory"
"$CCPDEM" restart "$ckpt" -o "$W/re3" "${SET[@]}" > "$W/re3.log" 2>&1 || fail "a restart repeating the -set values was refused: $(tail -2 "$W/re3.log")"
echo "  the restart continues bitwise; other -set values refused: $out"

echo "3. bad paths and values"
refused() { # EXPECTED-TEXT RANKS ARGUMENT: run and check refuse -set ARGUMENT
  local expect=$1 np=$2 arg=$3 out rc cmd
  for cmd in run check; do
    if [ "$np" = 1 ]; then out=$("$CCPDEM" $cmd "$pile" -o "$W/bad" -set "$arg" 2>&1); rc=$?
    else out=$(mpiexec --quiet --oversubscribe --allow-run-as-root -n "$np" "$CCPDEM" $cmd "$pile" -o "$W/bad" -set "$arg" 2>&1); rc=$?; fi
    [ $rc -eq 2 ] || fail "$cmd -set $arg: exit $rc, want 2: $out"
    [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$cmd -set $arg on $np rank(s): not one line: $out"
    echo "$out" | grep -qF -- "ccpdem: error: command line: -set $arg: $expect" || fail "$cmd -set $arg: the error lacks '$expect': $out"
    [ -e "$W/bad" ] && fail "$cmd -set $arg created the output directory" && rm -rf "$W/bad"
  done
  echo "  refused: $out"
}
refused "key 'materials[0].rolling_frction': unknown key" 1 "materials[0].rolling_frction=0.005"
refused "key 'solvr': unknown key" 2 "solvr.tolerance=1e-3"
refused "'materials' has 1 entries ([0] to [0]), so [1] names none" 1 "materials[1].friction=0.3"
refused "'time.end' is '0.4', not a mapping" 1 "time.end.x=1"
refused "key 'materials[0].rolling_friction': expected a number (got 'abc')" 2 "materials[0].rolling_friction=abc"
refused "key 'time.step': must be > 0" 1 "time.step=-1"
refused "key 'walls[1].type': unknown value 'sphere'" 1 "walls[1].type=sphere"
refused "key 'gravity': expected a list of 3 numbers" 1 "gravity=[0, -9.81]"
refused "the value is not valid YAML" 1 "gravity=[0, 0"
out=$("$CCPDEM" run "$pile" -o "$W/bad" -set time.end 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "^ccpdem: error: command line: -set needs KEY=VALUE" || fail "-set without '=': exit $rc, $out"
out=$(PETSC_OPTIONS="-set time.end=1" "$CCPDEM" check "$pile" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "^ccpdem: error: -set found in PETSC_OPTIONS" || fail "-set in PETSC_OPTIONS: exit $rc, $out"
finish test_set
