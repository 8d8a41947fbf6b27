#!/bin/bash
# Memory traffic per step of the penalty benchmark, ccpdem next to LAMMPS, counted (not timed), so
# the figures do not depend on how busy the machine is.
# Usage: bash jobs/bench/penalty_traffic.sh [OUT]     (default OUT out/bench_penalty)
#  Needs OUT from jobs/bench/penalty_vs_lammps.sh (the settled pile's checkpoint and LAMMPS's
#  pile.in) and valgrind (apt-get install valgrind).
#  Each code runs the settled pile for 10 and for 110 steps under cachegrind with a simulated
#  last-level cache of 1 MB, 16-way, 64-byte lines: this machine's L2 per core. The difference
#  divided by 100 is one step's cost without the start-up: instructions, L1 data misses and misses
#  of the 1 MB cache, i.e. the lines that come from the shared L3 or memory. A code whose misses
#  are many pays for them when other programs share the L3 (valgrind runs the AVX2 build of the
#  kernels: it has no AVX-512).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:-out/bench_penalty}
CCPDEM=$REPO/build/ccpdem
CKPT=$OUT/settle/checkpoints/ckpt-006000.h5
command -v valgrind > /dev/null || { echo "valgrind not found: apt-get install valgrind"; exit 1; }
[ -f "$CKPT" ] && [ -f "$OUT/pile.in" ] || { echo "run jobs/bench/penalty_vs_lammps.sh $OUT first (it settles the pile and writes LAMMPS's input)"; exit 1; }
CG="valgrind --tool=cachegrind --cache-sim=yes --LL=1048576,16,64"
T0=0.6
H=1.0e-4

# counts of one run: Ir D1mr D1mw LLmr LLmw (cachegrind's summary line)
counts() {
  python3 - "$1" << 'PY'
import sys
events = None
for line in open(sys.argv[1]):
    if line.startswith('events:'): events = line.split()[1:]
    if line.startswith('summary:'): total = dict(zip(events, map(int, line.split()[1:])))
print(*(total[e] for e in ('Ir', 'D1mr', 'D1mw', 'DLmr', 'DLmw')))
PY
}

for steps in 10 110; do
  until=$(awk -v t=$T0 -v n=$steps -v h=$H 'BEGIN { printf "%.10g", t + n * h }')
  rm -rf "$OUT/traffic_ccpdem_$steps"
  $CG --cachegrind-out-file="$OUT/traffic_ccpdem_$steps.cg" "$CCPDEM" restart "$CKPT" -o "$OUT/traffic_ccpdem_$steps" --until "$until" > "$OUT/traffic_ccpdem_$steps.log" 2>&1
  sed "s/^run .*/run $steps/; s/^thermo .*/thermo $steps/" "$OUT/pile.in" > "$OUT/traffic_lammps_$steps.in"
  $CG --cachegrind-out-file="$OUT/traffic_lammps_$steps.cg" lmp -in "$OUT/traffic_lammps_$steps.in" -log none > "$OUT/traffic_lammps_$steps.log" 2>&1
done
printf "%-8s %14s %14s %22s %16s\n" code "instructions" "L1d misses" "1 MB cache misses" "(MB per step)"
for code in ccpdem lammps; do
  read -r a0 a1 a2 a3 a4 <<< "$(counts "$OUT/traffic_${code}_10.cg")"
  read -r b0 b1 b2 b3 b4 <<< "$(counts "$OUT/traffic_${code}_110.cg")"
  awk -v c=$code -v i=$((b0 - a0)) -v l1=$((b1 + b2 - a1 - a2)) -v l2=$((b3 + b4 - a3 - a4)) \
    'BEGIN { printf "%-8s %14.0f %14.0f %22.0f %16.1f\n", c, i / 100, l1 / 100, l2 / 100, l2 / 100 * 64 / 1e6 }'
done
echo "per step of the settled pile, from 110 minus 10 steps under cachegrind (1 MB 16-way last level)"
