#!/bin/bash
# The penalty model's time-step check through the binary (label cli). Usage: test_penalty_step_warning.sh CCPDEM REPO WORKDIR
# A sphere (R = 10 mm, 2000 kg/m^3, m = 8.4 g) pressed 10 um into a floor, Hertz with E = 1e7 Pa:
# its stiffest contact spring is the Hertz-Mindlin slide spring, 8 G_eff sqrt(R delta) ~ 3.4e3 N/m
# against 2 m / 7, a period 2 pi sqrt(m/k) ~ 5 ms (the normal one ~ 10 ms).
#  1. time.step 1 ms (about 5 steps per period): the run completes (exit 0) and prints exactly one
#     "ccpdem: warning: time.step ..." line naming the criterion (1/20 of the period) and a step
#     that would satisfy it, which must be between 0.1 ms and 1 ms.
#  2. time.step 10 us (about 500 steps per period): no warning.
. "$(dirname "$0")/../script_common.sh" "$@"

scenario() { # step end
  cat <<YAML
domain: {min: [-0.1, -0.1, -0.05], max: [0.1, 0.1, 0.1]}
gravity: [0, 0, -9.81]
time: {step: $1, end: $2}
contact: {model: penalty}
materials:
  - {name: m, density: 2000, friction: 0.5, young_modulus: 1.0e7, poisson_ratio: 0.3, restitution: 0.5}
walls:
  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}
bodies:
  - {shape: sphere, radius: 0.01, position: [0, 0, 0.00999], velocity: [0.1, 0, 0], material: m}
YAML
}
scenario 1.0e-3 0.02 > "$W/coarse.yaml"
scenario 1.0e-5 2.0e-4 > "$W/fine.yaml"
"$CCPDEM" run "$W/coarse.yaml" -o "$W/coarse" > "$W/coarse.log" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "coarse run exited $rc: $(tail -3 "$W/coarse.log")"
n=$(grep -c "^ccpdem: warning: time.step" "$W/coarse.log")
[ "$n" -eq 1 ] || fail "coarse run: $n time-step warnings, want 1"
line=$(grep "^ccpdem: warning: time.step" "$W/coarse.log")
echo "$line" | grep -q "more than 1/20 of the shortest contact oscillation period" || fail "the warning does not state its criterion: $line"
want=$(echo "$line" | sed -n 's/.*use time.step <= \([0-9.e+-]*\) s.*/\1/p')
awk -v s="$want" 'BEGIN { exit !(s > 1e-4 && s < 1e-3) }' || fail "suggested step '$want' s is not between 0.1 and 1 ms"
echo "1. h = 1 ms: $line"
"$CCPDEM" run "$W/fine.yaml" -o "$W/fine" > "$W/fine.log" 2>&1 || fail "fine run failed: $(tail -3 "$W/fine.log")"
grep -q "^ccpdem: warning" "$W/fine.log" && fail "fine run warned: $(grep "^ccpdem: warning" "$W/fine.log")"
echo "2. h = 10 us: no warning"
finish "penalty time-step check"
