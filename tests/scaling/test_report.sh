#!/bin/bash
# The scaling-study tools run locally (label scaling). Usage: test_report.sh CCPDEM REPO WORKDIR
#  1. jobs/scaling/strong.sh and weak.sh at 1 and 2 ranks on small beds (2000 bodies, 6 steps of
#     20 iterations): every run writes its time series, the weak study's 2-rank run has twice the
#     bodies of its 1-rank run, the strong study's the same;
#  2. report.py (run by the drivers) writes scaling.csv with exactly the documented columns and
#     one row per rank count, and speedup.png, efficiency.png, phases.png as non-empty PNG files;
#  3. model.py fits the study and prints its predictions, labelled as model output, for 16 to
#     4096 ranks.
. "$(dirname "$0")/../script_common.sh" "$@"
columns="study,ranks,bodies,contacts,steps,seconds_per_step,wall_detect_per_step,wall_solve_per_step,wall_integrate_per_step,wall_io_per_step,wall_comm_per_step,iterations_per_step,bytes_per_step_per_rank,speedup,efficiency"

for study in strong weak; do
  out=$W/$study
  bash "$REPO/jobs/scaling/$study.sh" "$out" --ranks "1 2" --bodies 2000 --steps 6 --iterations 20 --ccpdem "$CCPDEM" > "$W/$study.log" 2>&1 || fail "$study driver failed: $(tail -5 "$W/$study.log")"
  for p in 1 2; do
    [ "$(tail -n +2 "$out/np$p/timeseries.csv" 2>/dev/null | wc -l)" -eq 6 ] || fail "$study, $p ranks: not 6 steps in $out/np$p/timeseries.csv"
  done
  [ "$(head -1 "$out/scaling.csv" 2>/dev/null)" = "$columns" ] || fail "$study: scaling.csv header is '$(head -1 "$out/scaling.csv" 2>/dev/null)'"
  [ "$(tail -n +2 "$out/scaling.csv" 2>/dev/null | cut -d, -f1,2 | tr '\n' ' ')" = "$study,1 $study,2 " ] || fail "$study: scaling.csv rows are not ranks 1 and 2"
  b1=$(sed -n 2p "$out/scaling.csv" | cut -d, -f3); b2=$(sed -n 3p "$out/scaling.csv" | cut -d, -f3)
  if [ "$study" = weak ]; then [ "$b2" = $((2 * b1)) ] || fail "weak: $b2 bodies at 2 ranks, not 2 x $b1"; else [ "$b2" = "$b1" ] || fail "strong: $b1 and $b2 bodies"; fi
  for png in speedup efficiency phases; do
    f=$out/$png.png
    [ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$f")" -gt 2000 ] || fail "$study: $f is not a non-empty PNG"
  done
  echo "  $study: 2 runs, scaling.csv ($(tail -n +2 "$out/scaling.csv" | wc -l) rows), 3 PNG plots"
done

/usr/bin/python3 "$REPO/jobs/scaling/model.py" "$W/strong" > "$W/model.log" 2>&1 || fail "model.py failed: $(tail -3 "$W/model.log")"
grep -q "^MODEL OUTPUT" "$W/model.log" || fail "model.py output is not labelled as model output"
[ "$(grep -cE '^ +(16|32|64|128|256|512|1024|2048|4096) ' "$W/model.log")" -eq 9 ] || fail "model.py does not predict 16 .. 4096 ranks: $(cat "$W/model.log")"
echo "  model: $(grep -c '%' "$W/model.log") prediction rows"

finish "scaling tools"
