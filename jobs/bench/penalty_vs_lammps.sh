#!/bin/bash
# Penalty-model throughput against LAMMPS on the same settled pile and step, in one invocation.
# Usage: bash jobs/bench/penalty_vs_lammps.sh [OUT] [STEPS] [REPEAT]
#        (default OUT out/bench_penalty, STEPS 1000, REPEAT 3)
#  1. Settles jobs/bench/penalty_pile.yaml on 2 ranks (2500 spheres in a walled box, 0.6 s; kept in
#     OUT/settle and reused when its checkpoint exists).
#  2. ccpdem: continues the settled pile from its checkpoint for STEPS steps on 1 and on 2 ranks
#     (`ccpdem restart ... --until`), wall seconds from its summary line ("finished ... in X s wall",
#     which includes writing one final snapshot).
#  3. LAMMPS (Debian's lmp): the same bodies (positions, velocities, radii, masses from the settled
#     snapshot), the same step h = 1e-4 s and the closest contact model it has: pair granular
#     hertz/material 5e6 0.5 0.3 (E, restitution, nu) with tsuji damping, tangential mindlin (mu 0.5),
#     rolling sds (mu_roll = 2 eta_r mu_s = 0.1, the tracking model's static rolling torque
#     2 eta_r mu_s R_eff N as a force cap), twisting marshall; the floor and side walls as fix
#     wall/gran with the same model; STEPS steps on 1 and 2 ranks, seconds from its "Loop time".
#  4. Steps 2-3 run REPEAT times, interleaved (ccpdem 1 rank, LAMMPS 1 rank, ccpdem 2 ranks, LAMMPS 2
#     ranks, then again), so that both codes see the same moments of a shared machine.
#  Prints every run, then per code and rank count the median wall time, its body-steps per second
#  per core, and the ratio of the medians ccpdem / LAMMPS.
#  The machine's cores may be shared: the figures are only as quiet as the machine.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:-out/bench_penalty}
STEPS=${2:-1000}
REPEAT=${3:-3}
MPI="mpiexec --oversubscribe --allow-run-as-root"
export OMPI_MCA_mpi_yield_when_idle=1
CCPDEM=$REPO/build/ccpdem
[ -x "$CCPDEM" ] || { cmake -S "$REPO" -B "$REPO/build" > /dev/null && cmake --build "$REPO/build" -j2 > /dev/null; }
command -v lmp > /dev/null || { echo "lmp not found: apt-get install lammps"; exit 1; }
mkdir -p "$OUT"
H=1.0e-4
T0=0.6

# 1. the settled pile
CKPT=$OUT/settle/checkpoints/ckpt-006000.h5
if [ ! -f "$CKPT" ]; then
  echo "settling jobs/bench/penalty_pile.yaml on 2 ranks (about a minute or two) ..."
  $MPI -n 2 "$CCPDEM" run "$HERE/penalty_pile.yaml" -o "$OUT/settle" > "$OUT/settle.log" 2>&1
fi
SNAP=$OUT/settle/snapshots/snap-006000.h5
NB=$(h5ls "$SNAP/bodies/id" | sed 's/.*{\([0-9]*\)}.*/\1/')

# 2. ccpdem: one run (its wall seconds on stdout)
UNTIL=$(awk -v t=$T0 -v n=$STEPS -v h=$H 'BEGIN { printf "%.10g", t + n * h }')
run_ccpdem() {
  rm -rf "$OUT/ccpdem_np$1"
  $MPI -n $1 "$CCPDEM" restart "$CKPT" -o "$OUT/ccpdem_np$1" --until "$UNTIL" > "$OUT/ccpdem_np$1.log" 2>&1
  grep -o "in [0-9.]* s wall" "$OUT/ccpdem_np$1.log" | awk '{print $2}'
}

# 3. LAMMPS on the same bodies
dump() { h5dump -d "$1" -y -w 0 -m "%.17g" -o "$OUT/$2.txt" "$SNAP" > /dev/null; tr -d ' \n' < "$OUT/$2.txt" | tr ',' '\n' | grep -v '^$' > "$OUT/$2.col"; }
dump /bodies/position pos; dump /bodies/velocity vel; dump /bodies/radius rad; dump /bodies/id id
awk -v nb=$NB 'BEGIN { print "LAMMPS data file: the settled penalty_pile of ccpdem\n\n" nb " atoms\n1 atom types\n\n-0.2 0.2 xlo xhi\n-0.2 0.2 ylo yhi\n-0.05 0.7 zlo zhi\n\nAtoms # sphere\n" }' > "$OUT/pile.data"
paste -d' ' <(awk '{print $1 + 1}' "$OUT/id.col") <(awk '{print 2 * $1}' "$OUT/rad.col") <(paste -d' ' - - - < "$OUT/pos.col") | awk '{print $1, 1, $2, 2000, $3, $4, $5}' >> "$OUT/pile.data"
printf "\nVelocities\n\n" >> "$OUT/pile.data"
paste -d' ' <(awk '{print $1 + 1}' "$OUT/id.col") <(paste -d' ' - - - < "$OUT/vel.col") | awk '{print $1, $2, $3, $4, 0, 0, 0}' >> "$OUT/pile.data"
cat > "$OUT/pile.in" <<LMP
units           si
atom_style      sphere
boundary        f f f
newton          off
comm_modify     vel yes
read_data       $OUT/pile.data
neighbor        0.001 bin
neigh_modify    delay 0
variable        contact string "hertz/material 5e6 0.5 0.3 damping tsuji tangential mindlin NULL 1.0 0.5 rolling sds 1000 0.1 0.1 twisting marshall"
pair_style      granular
pair_coeff      * * \${contact}
fix             floor all wall/gran granular \${contact} zplane 0.0 NULL
fix             sidex all wall/gran granular \${contact} xplane -0.15 0.15
fix             sidey all wall/gran granular \${contact} yplane -0.15 0.15
fix             grav all gravity 9.81 vector 0 0 -1
fix             move all nve/sphere
timestep        $H
thermo          $STEPS
thermo_modify   lost ignore norm no
run             $STEPS
LMP
run_lammps() {
  $MPI -n $1 lmp -in "$OUT/pile.in" -log "$OUT/lammps_np$1.log" > /dev/null 2>&1
  grep "^Loop time" "$OUT/lammps_np$1.log" | awk '{print $4}'
}

# 4. interleaved runs
declare -A T
echo "settled pile: $NB spheres, $STEPS steps of $H s, $REPEAT interleaved runs (machine: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq "$REPEAT"); do
  for np in 1 2; do
    T[ccpdem,$np]="${T[ccpdem,$np]:-} $(run_ccpdem $np)"
    T[LAMMPS,$np]="${T[LAMMPS,$np]:-} $(run_lammps $np)"
  done
done
median() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf "%-8s %6s %10s %26s   %s\n" code ranks "median (s)" "body-steps/s per core" "wall of each run (s)"
for np in 1 2; do
  for code in ccpdem LAMMPS; do
    m=$(median "${T[$code,$np]}")
    printf "%-8s %6d %10.3f %26.0f  %s\n" $code $np "$m" "$(awk -v n=$NB -v s=$STEPS -v t=$m -v p=$np 'BEGIN { print n * s / t / p }')" "${T[$code,$np]}"
  done
done
for np in 1 2; do
  echo "ratio ccpdem / LAMMPS throughput per core at $np rank(s) (medians): $(awk -v a=$(median "${T[ccpdem,$np]}") -v b=$(median "${T[LAMMPS,$np]}") 'BEGIN { printf "%.2f", b / a }')"
done
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commands: mpiexec -n P $CCPDEM restart $CKPT -o OUT --until $UNTIL; mpiexec -n P lmp -in $OUT/pile.in"
