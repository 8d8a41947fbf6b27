#!/bin/bash
# The overflow, non-finite and input-limit cases of issue 32 through the binary (label fuzz).
# Usage: test_issue_cases.sh CCPDEM REPO WORKDIR
# Each is refused as bad input (exit 2, one "ccpdem: error:" line naming the key, no output
# directory made) or runs correctly (exit 0 or a clean stop, every number of every snapshot,
# checkpoint and time-series row finite: h5dump), never wraps or ends with exit 0 on garbage:
#  1. Step counts: time.end 1e19 (2e21 steps) is refused; step 0.001 to 4294967.297 is accepted as
#     4294967297 steps (not 1: 32 bits would wrap) and its run counts to that (progress line),
#     stopped by SIGTERM (exit 3, a checkpoint); its restart with --until 1e7 counts to 10^10
#     steps, and --until 1e300 is refused for its step count.
#  2. Non-finite or unrepresentable values: orientation [1e-300, 0, 0, 0], fill radius 1e-300,
#     densities 1e-320 and 1e300, masses 1e-300 and 1e300, inertia 1e300, gravity 1e300, a
#     sphere of radius 1e-13 m, one larger than the domain, a velocity of 1e60 m/s (its kinetic
#     energy), options -ccp_tol inf and -neighbour_skin inf: refused. A velocity of 1e18 m/s runs
#     (the body leaves the domain at once); spheres of 1e-9 m are refused for the packed solvers'
#     single precision (naming -ccp_packed false) and run with -ccp_packed false.
#  3. Input limits, each refused within 5 s: /dev/zero, a 65 MB file, 10^6 nested '[', 50,000
#     materials, fills[0].count 1000000000 (the bytes it would need are named), a checkpoint whose
#     body count is forged to 3 x 2^30 (all its places) and one whose scenario text length has
#     bit 38 set.
#  4. Command line: -decomp_grid 3,1,1 on one rank and an unreadable -options_file are bad input;
#     an output directory that cannot be written (-o /proc) ends in one error line, no trace.
. "$(dirname "$0")/../script_common.sh" "$@"
. "$(dirname "$0")/fuzz_common.sh"
export OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_btl=self OMPI_MCA_pml=ob1 TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
base=$W/base.yaml
cat > "$base" << 'YAML'
domain: {min: [-1, -1, -0.5], max: [1, 1, 2]}
gravity: [0, 0, -9.81]
time: {step: 0.005, end: 0.05}
materials:
  - {name: steel, density: 7800, friction: 0.5}
walls:
  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: steel}
bodies:
  - {shape: sphere, radius: 0.1, position: [0, 0, 0.1], velocity: [1, 0, 0], material: steel}
  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [0.5, 0, 0.05], orientation: [1, 0, 0, 0], material: steel}
fills:
  - {type: lattice, region: {min: [-0.2, -0.2, 0.3], max: [0.2, 0.2, 0.6]}, radius: 0.05, spacing: 0.11, material: steel}
output: {snapshot_interval: 0.01}
YAML
n=0
variant() { n=$((n + 1)); sed "$1" "$base" > "$W/v$n.yaml"; grep -qF -- "$2" "$W/v$n.yaml" || fail "variant $n: '$1' changed nothing"; }


refused() { # WHAT EXPECTED-TEXT COMMAND...: exit 2, one line with the text, within 5 s, no output directory
  local what=$1 expect=$2 out rc t0 t1; shift 2
  t0=$(date +%s%N)
  out=$( (ulimit -v 1048576 && timeout -k 5 30 "$CCPDEM" "$@" -o "$W/out-refused") 2>&1); rc=$?
  t1=$(date +%s%N)
  [ $rc -eq 2 ] || fail "$what: exit $rc, want 2: $(echo "$out" | head -c 400)"
  [ "$(echo "$out" | wc -l)" -eq 1 ] && [ "$(echo "$out" | grep -c '^ccpdem: error: ')" -eq 1 ] ||
    fail "$what: not one error line: $(echo "$out" | head -c 400)"
  echo "$out" | grep -qF -- "$expect" || fail "$what: the error lacks '$expect': $out"
  [ $(((t1 - t0) / 1000000)) -lt 5000 ] || fail "$what: refused after $(((t1 - t0) / 1000000)) ms, want < 5 s"
  [ -e "$W/out-refused" ] && fail "$what: a refused run made its output directory" && rm -rf "$W/out-refused"
  echo "  refused in $(((t1 - t0) / 1000000)) ms: $what: $out"
}
check_refuses() { refused "$1" "$2" check "${@:3}"; } # check ignores -o: the same form

runs_finite() { # WHAT DIR COMMAND...: exit 0 and finite outputs
  local what=$1 dir=$2 rc; shift 2
  (ulimit -v 1048576 && timeout -k 5 60 "$CCPDEM" "$@" -o "$dir") > "$dir.log" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "$what: exit $rc: $(tail -c 400 "$dir.log")"
  finite_outputs "$dir" || fail "$what: a non-finite value in the outputs"
  grep -qE 'PETSC ERROR|HDF5-DIAG' "$dir.log" && fail "$what: a trace"
  echo "  ran with finite outputs: $what ($(grep -c . < <(ls "$dir"/snapshots)) snapshots)"
}

echo "1. step counts"
variant 's/end: 0.05}/end: 1e19}/' "1e19"
check_refuses "time.end 1e19" "key 'time.end': 1e+19 s in steps of 0.005 s are 2e+21 steps, more than the 2^40" "$W/v$n.yaml"
variant 's/step: 0.005, end: 0.05/step: 0.001, end: 4294967.297/' "4294967.297"
out=$("$CCPDEM" check "$W/v$n.yaml" 2>&1)
echo "$out" | grep -q "in 4294967297 steps of 0.001 s" || fail "step 0.001 to 4294967.297 s: $out"
echo "  $out"
# stopped WHAT DIR TOTAL COMMAND...: COMMAND -o DIR stopped by SIGTERM after 3 s: exit 3, its progress
# lines count to TOTAL steps, its outputs finite.
stopped() {
  local what=$1 dir=$2 total=$3 pid rc; shift 3
  "$CCPDEM" "$@" -o "$dir" -progress_interval 0 > "$dir.log" 2>&1 &
  pid=$!
  sleep 3 && kill -TERM $pid
  wait $pid; rc=$?
  [ $rc -eq 3 ] || fail "$what: exit $rc after SIGTERM, want 3: $(tail -c 300 "$dir.log")"
  grep -q "step [0-9]*/$total " "$dir.log" || fail "$what does not count to $total steps: $(head -c 300 "$dir.log")"
  finite_outputs "$dir" || fail "$what: a non-finite output"
  echo "  $what counts to $total steps (exit 3 on SIGTERM)"
}
stopped "the run of 4294967297 steps" "$W/long" 4294967297 run "$W/v$n.yaml"
ckpt=$(ls "$W"/long/checkpoints/ckpt-*.h5 | tail -1)
stopped "its restart from $(basename "$ckpt") with --until 1e7" "$W/long2" 10000000000 restart "$ckpt" --until 1e7
refused "restart --until 1e300" "--until 1e+300: 1e+300 s in steps of 0.001 s are 1e+303 steps, more than the 2^40" \
  restart "$ckpt" --until 1e300

echo "2. non-finite and unrepresentable values"
variant 's/orientation: \[1, 0, 0, 0\]/orientation: [1e-300, 0, 0, 0]/' "1e-300"
check_refuses "orientation [1e-300, 0, 0, 0]" "key 'bodies[1].orientation[0]': number out of range" "$W/v$n.yaml"
variant 's/radius: 0.05, spacing/radius: 1e-300, spacing/' "1e-300"
check_refuses "fill radius 1e-300" "key 'fills[0].radius': number out of range" "$W/v$n.yaml"
variant 's/density: 7800/density: 1e-320/' "1e-320"
check_refuses "density 1e-320" "key 'materials[0].density': number out of range" "$W/v$n.yaml"
variant 's/density: 7800/density: 1e300/' "1e300"
check_refuses "density 1e300" "key 'materials[0].density': number out of range" "$W/v$n.yaml"
variant 's/velocity: \[1, 0, 0\], material: steel}/velocity: [1, 0, 0], material: steel, mass: 1e-300}/' "1e-300"
check_refuses "mass 1e-300" "key 'bodies[0].mass': number out of range" "$W/v$n.yaml"
variant 's/velocity: \[1, 0, 0\], material: steel}/velocity: [1, 0, 0], material: steel, mass: 1e300}/' "1e300"
check_refuses "mass 1e300" "key 'bodies[0].mass': number out of range" "$W/v$n.yaml"
variant 's/velocity: \[1, 0, 0\], material: steel}/velocity: [1, 0, 0], material: steel, mass: 1e99, inertia: [1e99, 1e99, 1e99]}/' "1e99"
check_refuses "mass 1e99 (gravity's potential energy)" "key 'bodies[0]': gravity 9.81 m/s^2 gives it a potential energy" "$W/v$n.yaml" -ccp_packed false
variant 's/gravity: \[0, 0, -9.81\]/gravity: [0, 0, -1e300]/' "1e300"
check_refuses "gravity 1e300" "key 'gravity[2]': number out of range" "$W/v$n.yaml"
variant 's/shape: sphere, radius: 0.1,/shape: sphere, radius: 1e-13,/' "1e-13"
check_refuses "sphere radius 1e-13 m" "key 'bodies[0]': its radius 1e-13 m is below" "$W/v$n.yaml"
variant 's/shape: sphere, radius: 0.1, position: \[0, 0, 0.1\]/shape: sphere, radius: 5, position: [0, 0, 1]/' "radius: 5"
check_refuses "sphere larger than the domain" "key 'bodies[0]': its bounding radius 5 m exceeds the domain's diagonal" "$W/v$n.yaml"
variant 's/velocity: \[1, 0, 0\]/velocity: [1e60, 0, 0]/' "1e60"
check_refuses "velocity 1e60" "key 'bodies[0]': its kinetic energy" "$W/v$n.yaml"
check_refuses "-ccp_tol inf" "command line: -ccp_tol inf is not a finite number" "$base" -ccp_tol inf
refused "-neighbour_skin inf" "command line: -neighbour_skin inf is not a finite number" run "$base" -neighbour_skin inf
variant 's/velocity: \[1, 0, 0\]/velocity: [1e18, 0, 0]/' "1e18"
runs_finite "velocity 1e18 m/s" "$W/fast" run "$W/v$n.yaml"
grep -q "(1 left the domain)" "$W/fast.log" || fail "velocity 1e18: the body did not leave the domain: $(grep left "$W/fast.log")"
variant 's/radius: 0.05, spacing: 0.11/radius: 1e-9, spacing: 0.11/' "1e-9"
check_refuses "spheres of 1e-9 m, packed" "key 'fills[0]': sphere 0 at (-0.2, -0.2, 0.3): its inverse moment of inertia (1/(kg m^2)) 7.65168e+40 is outside" "$W/v$n.yaml"
runs_finite "spheres of 1e-9 m, -ccp_packed false" "$W/tiny" run "$W/v$n.yaml" -ccp_packed false

echo "3. input limits"
check_refuses "/dev/zero" "/dev/zero: the scenario contains a NUL byte (at byte 0)" /dev/zero
truncate -s 65M "$W/big.yaml"
check_refuses "a 65 MB scenario" "the scenario has 68157440 bytes, more than the 64 MB" "$W/big.yaml"
rm -f "$W/big.yaml"
{ printf 'domain: '; head -c 1000000 /dev/zero | tr '\0' '['; } > "$W/deep.yaml"
check_refuses "10^6 nested [" "deep.yaml:1: lists and mappings nested more than 64 deep" "$W/deep.yaml"
{ grep -v "^  - {name: steel" "$base" | sed '/^materials:/q'; for ((k = 0; k < 50000; k++)); do echo "  - {name: m$k, density: 1000, friction: 0.5}"; done
  echo "  - {name: steel, density: 7800, friction: 0.5}"; sed -n '/^walls:/,$p' "$base"; } > "$W/materials.yaml"
check_refuses "50,000 materials" "key 'materials': defines 50001 materials, more than the 1024" "$W/materials.yaml"
variant 's/type: lattice, region: {min: \[-0.2, -0.2, 0.3\], max: \[0.2, 0.2, 0.6\]}, radius: 0.05, spacing: 0.11/type: random, region: {min: [-0.9, -0.9, 0.3], max: [0.9, 0.9, 1.9]}, radius: 0.0001, count: 1000000000/' "count: 1000000000"
check_refuses "fills[0].count 1e9" "key 'fills[0]': brings the bodies to 1000000002, which need about" "$W/v$n.yaml"
"$CCPDEM" run "$base" -o "$W/good" -checkpoint_every_steps 5 > "$W/good.log" 2>&1 || fail "the run for the checkpoints failed"
le64() { printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = 8; i >= 1; i--) printf "\\x%s", $i }'; }
put_all() { # FILE OLD NEW: every 8-byte little-endian OLD replaced by NEW; prints how many
  local off c=0
  for off in $(LC_ALL=C grep -obUaP "$(le64 "$2")" "$1" | cut -d: -f1); do
    printf "$(le64 "$3")" | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
    c=$((c + 1))
  done
  echo $c
}
cp "$W/good/checkpoints/ckpt-000005.h5" "$W/forged.h5"
places=$(put_all "$W/forged.h5" 20 $((3 << 30)))
[ "$places" -ge 2 ] || fail "the body count 20 was found in $places places of the checkpoint"
refused "a checkpoint forged to 3 x 2^30 bodies ($places places)" "dataset /bodies claims 3221225472 rows of 184 bytes, more than the file's" restart "$W/forged.h5"
cp "$W/good/checkpoints/ckpt-000005.h5" "$W/flipped.h5"
len=$(stat -c %s "$base")
places=$(put_all "$W/flipped.h5" "$len" $((len | (1 << 38))))
[ "$places" -ge 1 ] || fail "the scenario text length $len was not found in the checkpoint"
refused "a checkpoint whose scenario text length has bit 38 set" "dataset /scenario/text claims 274877907" restart "$W/flipped.h5"

echo "4. command line"
refused "-decomp_grid 3,1,1 on one rank" "option -decomp_grid 3,1,1 has 3 subdomains but the run has 1 MPI ranks" run "$base" -decomp_grid 3,1,1
refused "an unreadable -options_file" "command line: -options_file $W/none cannot be read (No such file or directory)" run "$base" -options_file "$W/none"
out=$("$CCPDEM" run "$base" -o /proc 2>&1); rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "-o /proc: exit $rc, want 1 or 2"
[ "$(echo "$out" | grep -c '^ccpdem: error: ')" -eq 1 ] || fail "-o /proc: not one error line: $out"
echo "$out" | grep -qE 'PETSC ERROR|HDF5-DIAG' && fail "-o /proc: a trace: $out"
echo "  -o /proc: exit $rc, $(echo "$out" | grep '^ccpdem: error: ')"
finish "issue 32 cases"
