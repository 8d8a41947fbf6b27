#!/bin/bash
# The 16-core measurements of docs/performance.md "Scaling on 16 cores", on a bare many-core machine with the scale
# kit's bundle (../shared/scale-kit): the kit's study (strong 500,000 / weak 50,000 per rank, 1-16 ranks, x slabs,
# plus the strong problem with ccpdem's automatic decomposition), then with the study's environment:
#   - the weak bed on 16 ranks with the automatic decomposition;
#   - memory contention: 1, 4, 8, 16 independent 1-rank runs of the weak bed at once, one per core (no MPI
#     between them), whose slowdown is the m(c) of jobs/scaling/model.py;
#   - messages, bytes and collectives per phase at 16 ranks (jobs/scaling/mpi_counts.c, rank 7's table);
#   - the paper pile (jobs/pile/paper.yaml) on 16 ranks, automatic decomposition and 4 x 4 x 1.
# Prepare here, after a Release build in build/ and the kit's make_bundle.sh:
#   mkdir -p .scalebundle/extra && mpicc -O2 -shared -fPIC -o .scalebundle/extra/mpi_counts.so jobs/scaling/mpi_counts.c
#   nm -n --defined-only build/ccpdem > .scalebundle/extra/ccpdem.nm && cp jobs/scaling/kit_device.sh .scalebundle/
# There (about 250 s on 16 cores): OUT=DIR bash .scalebundle/kit_device.sh
# Results in OUT: study/ (the kit's results.csv, summary.txt, logs.tar.gz), study_stdout.log, extras.tar.gz
# (every extra run's log, log_view and time series; runs.txt: one line per run).
set -u
set -u
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
R=${OUT:?set OUT to the folder for the results}
mkdir -p "$R"
S0=$(date +%s)
RANKS="1 2 4 8 16" EXTRAS=dims STRONG_STEPS=12 WEAK_STEPS=12 DEADLINE_S=200 OUT=$R/study \
  bash "$D/run_study.sh" > "$R/study_stdout.log" 2>&1
echo "study rc $? after $(($(date +%s) - S0)) s"
grep -E "^\[" "$R/study_stdout.log" | tail -22
# the study driver's set-up (bundle, MPI environment, binding, scenario()), without its runs
export RANKS=16 DEADLINE_S=330 ITERATIONS=100 WARMUP=2
{ sed -n "1,178p" "$D/run_study.sh" | sed "s|^HERE=.*|HERE=$D|"; sed -n "179,203p" "$D/run_study.sh"; } \
  > /tmp/kit_setup.sh
OUT=$R/x source /tmp/kit_setup.sh
grep -q "single copy off" "$R/study_stdout.log" && export OMPI_MCA_btl_vader_single_copy_mechanism=none
X=/tmp/kit_extras
rm -rf $X && mkdir -p $X
# mean seconds per step of solve and of detect + solve + integrate over the steps after the first 2
mean_solve() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           NR > 3 { s += $c["wall_solve"]; t += $c["wall_solve"] + $c["wall_detect"] + $c["wall_integrate"]; n++ }
           END { printf "solve %.4f s/step, step %.4f s/step over %d steps", s / n, t / n, n }' "$1"
}
one() { # tag ranks bodies steps cap args...: the weak bed's scenario with `bodies` spheres on `ranks` ranks
  local tag=$1 p=$2 n=$3 s=$4 cap=$5
  shift 5
  local dir=$X/$tag t0 rc
  mkdir -p "$dir"
  scenario weak "$n" "$s" > "$dir/scenario.yaml"
  t0=$(date +%s.%N)
  timeout -k 3 "$cap" "$MPIRUN" -n "$p" "${BINDOPT[@]}" "$CCPDEM" run "$dir/scenario.yaml" -o "$dir/out" -ccp_tol 0 \
    -progress_interval 30 -log_view ":$dir/log_view.txt" "$@" > "$dir/run.log" 2>&1
  rc=$?
  cp "$dir/out/timeseries.csv" "$dir/" 2>/dev/null
  rm -rf "$dir/out"
  reap
  echo "$tag rc $rc $(calc "$(date +%s.%N) - $t0") s; $(mean_solve "$dir/timeseries.csv");" \
    "$(grep -m1 -E 'grid|decomposition' "$dir/run.log")" | tee -a "$X/runs.txt"
}
one weak_np16_auto 16 800000 12 40
# memory contention: k independent 1-rank runs of the weak bed at once, each pinned to its own core; each is an
# MPI singleton (the launcher's variables removed), so nothing but the machine couples them
for k in 1 4 8 16; do
  d=$X/concurrent_$k
  mkdir -p "$d"
  scenario weak 50000 12 > "$d/scenario.yaml"
  for i in $(seq 0 $((k - 1))); do
    (
      for v in $(env | grep -o '^\(OMPI_COMM\|OMPI_MCA_orte_ess\|PMIX_RANK\|PMIX_NAMESPACE\|PMIX_SERVER\)[^=]*'); do
        unset "$v"
      done
      timeout -k 3 40 taskset -c "$i" "$CCPDEM" run "$d/scenario.yaml" -o "$d/r$i" -ccp_tol 0 > "$d/r$i.log" 2>&1
    ) &
  done
  wait
  reap
  for i in $(seq 0 $((k - 1))); do
    echo "concurrent $k run $i: $(mean_solve "$d/r$i/timeseries.csv")"
    cp "$d/r$i/timeseries.csv" "$d/ts$i.csv" 2>/dev/null
  done | tee -a $X/runs.txt | head -3
  rm -rf "$d"/r*/
done
# messages, bytes and collectives per phase at 16 ranks, the weak bed, 6 steps
d=$X/counts16
mkdir -p $d
scenario weak 800000 6 > $d/scenario.yaml
MPI_COUNTS_NM=$D/extra/ccpdem.nm MPI_COUNTS_OUT=$d/counts timeout -k 3 40 "$MPIRUN" -n 16 "${BINDOPT[@]}" \
  -x LD_PRELOAD="$D/extra/mpi_counts.so" -x MPI_COUNTS_NM -x MPI_COUNTS_OUT \
  "$CCPDEM" run $d/scenario.yaml -o $d/out -ccp_tol 0 -decomp_grid 16,1,1 > $d/run.log 2>&1
echo "counts16 rc $?" | tee -a $X/runs.txt
cp $d/out/timeseries.csv $d/ 2>/dev/null
rm -rf $d/out
reap
cat $d/counts.7 2>/dev/null
# the paper pile on 16 ranks
paper() { # tag args...
  local tag=$1 dir t0
  shift
  dir=$X/paper_$tag
  mkdir -p "$dir"
  t0=$(date +%s.%N)
  timeout -k 3 60 "$MPIRUN" -n 16 "${BINDOPT[@]}" "$CCPDEM" run "$D/paper.yaml" -o "$dir/out" -progress_interval 10 \
    -log_view ":$dir/log_view.txt" "$@" > "$dir/run.log" 2>&1
  echo "paper_$tag rc $? $(calc "$(date +%s.%N) - $t0") s" | tee -a $X/runs.txt
  cp "$dir/out/timeseries.csv" "$dir/" 2>/dev/null
  rm -rf "$dir/out"
  reap
  grep -E "finished|wall time by phase|angle of repose|iterations|grid|imbalance" "$dir/run.log" | head -8
}
paper auto
paper grid441 -decomp_grid 4,4,1
(cd $X && tar czf "$R/extras.tar.gz" .)
echo "all done after $(($(date +%s) - S0)) s"
