#!/bin/bash
# The scaling-study tools run locally (label scaling). Usage: test_report.sh CCPDEM REPO WORKDIR
#  1. jobs/scaling/strong.sh and weak.sh at 1 and 2 ranks on small beds (2000 bodies, 6 steps of
#     20 iterations): every run writes its time series, the weak study's 2-rank run has twice the
#     bodies of its 1-rank run, the strong study's the same;
#  2. report.py (run by the drivers) writes scaling.csv with exactly the documented columns and
#     one row per rank count, and speedup.png, efficiency.png, phases.png as non-empty PNG files;
#  3. the values of scaling.csv, recomputed here from the runs' time series (awk, independently of
#     report.py): seconds_per_step T(P) = the mean over the steps after the first 2 (report.py's
#     default warm-up) of wall_detect + wall_solve + wall_integrate + wall_io, the four phases'
#     means, iterations_per_step; strong: speedup = T(1) / T(P), efficiency = speedup / P; weak:
#     efficiency = T(1) / T(P), speedup = efficiency x P. Each within 2e-5 relative (report.py prints
#     6 significant digits: 5e-6 at most); every value finite and positive; the bodies' imbalance at the
#     first step as the time series has it, the other imbalances >= 1 (the contacts' and the work's
#     from the run's summary line), all 1 on one rank;
#  4. model.py fits the study and prints its predictions, labelled as model output, for 16 to
#     4096 ranks; with both studies and a memory contention of 2 at 16 cores its 1-rank times lie between
#     the measured ones and its 16-rank weak step grows more than 1.5x; --plot writes a PNG.
. "$(dirname "$0")/../script_common.sh" "$@"
columns="study,ranks,bodies,contacts,steps,seconds_per_step,wall_detect_per_step,wall_solve_per_step,wall_integrate_per_step,wall_io_per_step,wall_comm_per_step,iterations_per_step,bytes_per_step_per_rank,speedup,efficiency,imbalance_bodies_first,imbalance_bodies,imbalance_contacts,imbalance_work"

# column NAME of the header line of FILE (1-based), empty if absent
column() { head -1 "$2" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }

# mean_after FILE COLUMNS...: the means over the rows after the first 2 of each named column, and of
# their sum, on one line
mean_after() {
  local file=$1 cols=""
  shift
  for c in "$@"; do cols="$cols $(column "$c" "$file")"; done
  tail -n +4 "$file" | awk -F, -v cols="$cols" '
    BEGIN { n = split(cols, c, " ") }
    { for (i = 1; i <= n; i++) s[i] += $c[i]; rows++ }
    END { for (i = 1; i <= n; i++) { printf "%.17g ", s[i] / rows; t += s[i] / rows } printf "%.17g\n", t }'
}

# check_values STUDY OUT: scaling.csv's values against the time series of OUT/np1 and OUT/np2 (item 3)
check_values() {
  local study=$1 out=$2 p t1 row
  t1=$(mean_after "$out/np1/timeseries.csv" wall_detect wall_solve wall_integrate wall_io | awk '{print $5}')
  for p in 1 2; do
    row=$(awk -F, -v p="$p" 'NR > 1 && $2 == p' "$out/scaling.csv")
    read -r d s i o t <<< "$(mean_after "$out/np$p/timeseries.csv" wall_detect wall_solve wall_integrate wall_io)"
    it=$(mean_after "$out/np$p/timeseries.csv" iterations | awk '{print $1}')
    first=$(sed -n 2p "$out/np$p/timeseries.csv" | cut -d, -f"$(column imbalance "$out/np$p/timeseries.csv")")
    awk -F, -v study="$study" -v p="$p" -v t1="$t1" -v t="$t" -v d="$d" -v s="$s" -v i="$i" -v o="$o" -v it="$it" -v first="$first" '
      function check(name, got, want) {
        if (want == 0 ? got != 0 : !(got > 0 && got / want - 1 <= 2e-5 && 1 - got / want <= 2e-5)) {
          printf "FAIL: %s, %d ranks: %s is %s in scaling.csv, %.6g from the time series\n", study, p, name, got, want
          bad++
        }
      }
      {
        speedup = study == "strong" ? t1 / t : t1 / t * p
        efficiency = study == "strong" ? t1 / t / p : t1 / t
        check("seconds_per_step", $6, t); check("wall_detect_per_step", $7, d); check("wall_solve_per_step", $8, s)
        check("wall_integrate_per_step", $9, i); check("wall_io_per_step", $10, o)
        check("iterations_per_step", $12, it); check("speedup", $14, speedup); check("efficiency", $15, efficiency)
        check("imbalance_bodies_first", $16, first)
        if (!($17 >= 1 && $18 >= 1 && $19 >= 1) || (p == 1 && $16 + $17 + $18 + $19 != 4)) {
          printf "FAIL: %s, %d ranks: imbalances %s %s %s %s (each >= 1, all 1 on one rank)\n", study, p, $16, $17, $18, $19
          bad++
        }
        printf "  %s, %d ranks: %.6g s per step, speedup %.6g, efficiency %.6g: as recomputed from the time series\n",
          study, p, t, speedup, efficiency
      }
      END { exit bad > 0 }' <<< "$row" || fails=$((fails + 1))
  done
}

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
  check_values "$study" "$out"
done

/usr/bin/python3 "$REPO/jobs/scaling/model.py" "$W/strong" > "$W/model.log" 2>&1 || fail "model.py failed: $(tail -3 "$W/model.log")"
grep -q "^MODEL OUTPUT" "$W/model.log" || fail "model.py output is not labelled as model output"
[ "$(grep -cE '^ +(16|32|64|128|256|512|1024|2048|4096) ' "$W/model.log")" -eq 9 ] || fail "model.py does not predict 16 .. 4096 ranks: $(cat "$W/model.log")"
echo "  model: $(grep -c '%' "$W/model.log") prediction rows"
# Both studies at once, with a memory contention of 2 at 16 busy cores: the fit reproduces each study's 1-rank
# time (w is taken from it), the 16-rank weak prediction's compute doubles, so its step time must grow by more
# than 1.5x against the run without contention (compute is the largest part at these sizes), and --plot draws.
/usr/bin/python3 "$REPO/jobs/scaling/model.py" "$W/strong" "$W/weak" --contention 16:2 --plot "$W/model.png" \
  > "$W/model2.log" 2>&1 || fail "model.py with two studies failed: $(tail -3 "$W/model2.log")"
/usr/bin/python3 "$REPO/jobs/scaling/model.py" "$W/strong" "$W/weak" > "$W/model1.log" 2>&1 || fail "model.py failed"
# (both studies here have 2000 bodies on one rank: the model takes the mean of their costs per body, so each
# study's modelled 1-rank time lies between the two measured ones; with different sizes it is each one's own)
one_rank() {
  grep "the fit against the $1 study" "$W/model2.log" | sed -E 's/.*P=1: ([0-9.e+-]+) : ([0-9.e+-]+);.*/\1 \2/'
}
read -r ms xs <<< "$(one_rank strong)"
read -r mw xw <<< "$(one_rank weak)"
awk -v a="$ms" -v b="$mw" -v x="$xs" -v y="$xw" 'BEGIN { lo = a < b ? a : b; hi = a < b ? b : a
  exit !(x >= lo * 0.999 && x <= hi * 1.001 && y >= lo * 0.999 && y <= hi * 1.001) }' ||
  fail "model.py's 1-rank times ($xs, $xw) are not between the measured ones ($ms, $mw)"
w16() { awk '$1 == 16 { print $4 }' "$1"; }
awk -v a="$(w16 "$W/model2.log")" -v b="$(w16 "$W/model1.log")" 'BEGIN { exit !(b > 0 && a / b > 1.5) }' ||
  fail "memory contention 2 at 16 cores: 16-rank weak step $(w16 "$W/model1.log") -> $(w16 "$W/model2.log")"
[ -s "$W/model.png" ] && [ "$(head -c 4 "$W/model.png" | tail -c 3)" = PNG ] || fail "model.py --plot wrote no PNG"

finish "scaling tools"
