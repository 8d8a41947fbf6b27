#!/usr/bin/env bash
# Mutation check: do the tests catch the bugs they are there for? Each mutation below is one
# plausible bug (the gaps of issue 38: a bug that a test's checks would let pass), written as one
# literal replacement in one file. The script copies the working tree (tracked and untracked files,
# not the ignored ones) to a scratch directory, builds it there (Release), runs each mutation's tests
# unmutated (they must pass), then for each mutation: applies it, rebuilds the targets its tests
# use, runs its tests, restores the file. It prints one row per mutation: caught by (the tests that
# failed), MISSED (all passed), stale (the text to replace is no longer in the file: update the
# list), build failed (the replacement does not compile: fix it) or baseline (a test fails without
# the mutation: the row says nothing). The tree itself is not touched.
#
#   bash tests/mutate.sh [SCRATCH]      (default: a new /tmp/ccpdem-mutate.XXXXXX, kept for reading the
#                                        tests' output: SCRATCH/logs/N.log for the Nth mutation)
# Environment: JOBS (build parallelism, default 2). Exit 0 if every mutation is caught, 1 otherwise.
# It takes about 5 minutes on 2 cores (the build, the unmutated tests, then seconds per mutation).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${1:-$(mktemp -d /tmp/ccpdem-mutate.XXXXXX)}
jobs=${JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

# The mutations, read from the list below: records of six lines "key: value" (the value is all after
# "key: ", spaces kept), a blank line between records:
#   bug          what the mutation does (the table's row)
#   file         the file it changes (relative to the repository)
#   text         the text it replaces: it must occur exactly once in the file
#   replacement  what replaces it
#   tests        the tests that must catch it (a ctest -R regex)
#   targets      the build targets those tests need (ccpdem for the script tests)
names=() files=() texts=() repls=() tests=() targets=()
while IFS= read -r line; do
  case $line in
    "bug: "*) names+=("${line#bug: }") ;;
    "file: "*) files+=("${line#file: }") ;;
    "text: "*) texts+=("${line#text: }") ;;
    "replacement: "*) repls+=("${line#replacement: }") ;;
    "tests: "*) tests+=("${line#tests: }") ;;
    "targets: "*) targets+=("${line#targets: }") ;;
    "") ;;
    *) echo "mutate: unreadable line in the list: $line"; exit 1 ;;
  esac
done << 'LIST'
bug: rolling friction ignored (rho = 0 in every contact)
file: src/collision/detect.c
text: c->rho     = pp->rho;
replacement: c->rho     = 0;
tests: ^validation/test_guideway(_np[0-9]+)?$
targets: test_guideway

bug: emitter velocity spread ignored
file: src/step/emitter.c
text: e->velocity[a] + e->velocity_spread[a] *
replacement: e->velocity[a] + 0 *
tests: ^validation/test_emitter(_np[0-9]+)?$
targets: test_emitter

bug: output files written in place (no temporary, no rename)
file: io/h5.c
text: local = IoTempName(out->path, out->tmp, sizeof(out->tmp));
replacement: local = 0; snprintf(out->tmp, sizeof(out->tmp), "%s", out->path);
tests: ^restart/kill_during_checkpoint$
targets: ccpdem

bug: contacts inside the envelope push at a distance (b_n = 0 for a gap)
file: src/ccp/law.h
text: *bn    = phi / h;
replacement: *bn    = 0;
tests: ^validation/test_gap_close$
targets: test_gap_close

bug: checkpoint checksum without the step attribute
file: io/checkpoint.c
text: x = Fnv1a(x, &h->step, sizeof(h->step));
replacement: (void)0;
tests: ^(unit/test_checkpoint|restart/signal_restart)$
targets: test_checkpoint ccpdem

bug: load balancing counts this process's steps, not the run's
file: src/step/placement.c
text: (sim->step + 1) % pl->balance_interval == 0
replacement: (pl->ghost_builds + pl->ghost_updates + 1) % pl->balance_interval == 0
tests: ^restart/(distributed_bitwise|joints_bitwise)$
targets: ccpdem

bug: penalty tracking: A's contact point carried by B's rotation
file: src/penalty/tracking.c
text: mat_vec(c0, A->R, prev->arm_a);
replacement: mat_vec(c0, B->R, prev->arm_a);
tests: ^unit/test_penalty_kernels$
targets: test_penalty_kernels

bug: rolling friction takes the spinning coefficient (rho = sigma)
file: src/collision/detect.c
text: c->rho     = pp->rho;
replacement: c->rho     = pp->sigma;
tests: ^validation/test_incline_sphere(_np[0-9]+)?$
targets: test_incline_sphere

bug: contact memory (penalty history) zeroed when routed to another rank
file: decomp/impulse_routing.c
text: memcpy(gamma + w * nkeep++, records + rec * (size_t)e + sizeof(ContactKey), w * sizeof(double));
replacement: memset(gamma + w * nkeep++, 0, w * sizeof(double));
tests: ^validation/test_penalty_distributed_np[0-9]+$
targets: test_penalty_distributed

bug: warm-start decay after an unconverged step never applied
file: src/step/model_ccp.c
text: (sim->last.keep_impulses ? 1.0 : m->warm_start_decay)
replacement: 1.0
tests: ^validation/test_warm_start$
targets: test_warm_start

bug: the solver stops at 100 times the scenario's tolerance
file: src/ccp/solver.c
text: s->set.tol    = tol;
replacement: s->set.tol    = 100 * tol;
tests: ^validation/test_stack(_np[0-9]+)?$
targets: test_stack

bug: scaling report: efficiency not divided by the rank count
file: jobs/scaling/report.py
text: r["efficiency"] = r["speedup"] / r["ranks"]
replacement: r["efficiency"] = r["speedup"]
tests: ^scaling/test_report$
targets: ccpdem

bug: contact compliance 0.5% too large
file: src/ccp/law.h
text: *c_lin           = pp->compliance / (h * tau);
replacement: *c_lin           = 1.005 * pp->compliance / (h * tau);
tests: ^validation/test_compliance(_np[0-9]+)?$
targets: test_compliance

bug: yield force 1% too large
file: src/ccp/law.h
text: t->yield_impulse    = pp->yield_force * h;
replacement: t->yield_impulse    = 1.01 * pp->yield_force * h;
tests: ^validation/test_plasticity$
targets: test_plasticity

bug: no rebalance on the imbalance threshold (only every -balance_interval steps)
file: src/step/step_stats.c
text: pl->balance_threshold > 0 && pl->imbalance_work > pl->balance_threshold
replacement: pl->balance_threshold < 0
tests: ^validation/test_balance_first_step_np[0-9]+$
targets: test_balance_first_step

bug: ellipsoid support point scaled by the semi-axes, not their squares
file: src/bodies/ellipsoid.h
text: for (int k = 0; k < 3; k++) p[k] = semi[k] * semi[k] * N[k] / s;
replacement: for (int k = 0; k < 3; k++) p[k] = semi[k] * N[k] / s;
tests: ^(unit/test_ellipsoid|validation/test_ellipsoid_rest)$
targets: test_ellipsoid test_ellipsoid_rest

bug: penalty ellipsoid curvature from the bounding sphere (1 / c), not the point's
file: src/penalty/loads.c
text: return ellipsoid_mean_curvature(bs->size + 3 * k, N);
replacement: return N[0] * 0 + 1.0 / bs->size[3 * k + 2];
tests: ^validation/test_ellipsoid_(fall|spin)$
targets: test_ellipsoid_fall test_ellipsoid_spin

bug: ellipsoid pair: the support-gap maximisation stops at its start (the centre line)
file: src/collision/ellipsoid_contact.c
text: for (int it = 0; it < ELLIPSOID_PAIR_MAX_ITERATIONS; it++) {
replacement: for (int it = 0; it < 0; it++) {
tests: ^unit/test_ellipsoid_pair$
targets: test_ellipsoid_pair

bug: ellipsoid pair: B's contact point its support point along +n, not -n
file: src/collision/ellipsoid_contact.c
text: v3_axpy(out->p2, -1 / hb, mbn);
replacement: v3_axpy(out->p2, 1 / hb, mbn);
tests: ^unit/test_ellipsoid_pair$
targets: test_ellipsoid_pair

bug: ellipsoid beyond a finite tube's end touches the face, not the rim circle
file: src/collision/ellipsoid_walls.c
text: if (fabs(sa) > w->half_length) return rim_contact(
replacement: if (0 * fabs(sa) > w->half_length) return rim_contact(
tests: ^unit/test_ellipsoid_walls$
targets: test_ellipsoid_walls

bug: ellipsoid on a mesh: edge and vertex contacts kept outside their feature's region
file: src/collision/ellipsoid_walls.c
text:   if (!(kind == TRI_FEATURE_EDGE ? tricontact_across_edge(m, index, z, -TRICONTACT_EPS)
replacement:   if (0 && !(kind == TRI_FEATURE_EDGE ? tricontact_across_edge(m, index, z, -TRICONTACT_EPS)
tests: ^(unit/test_ellipsoid_mesh|validation/test_ellipsoid_mesh_floor)$
targets: test_ellipsoid_mesh test_ellipsoid_mesh_floor

bug: a ghost ellipsoid's middle semi-axis lost (b = a) when its ghost is built
file: decomp/ghosts.c
text: ExchangeUnpackBody(s, s->n_owned + g, EXCHANGE_FIELDS_ALL, a->at);
replacement: ExchangeUnpackBody(s, s->n_owned + g, EXCHANGE_FIELDS_ALL, a->at); s->size[3 * (s->n_owned + g) + 1] = s->size[3 * (s->n_owned + g)];
tests: ^validation/test_ellipsoid_ranks_np[0-9]+$
targets: test_ellipsoid_ranks

bug: emitters' counts not restored from a checkpoint (ellipsoids emitted again)
file: src/step/state.c
text: sim->emitted[k] = st->emitted[k];
replacement: sim->emitted[k] = 0;
tests: ^restart/ellipsoid_pour_bitwise$
targets: ccpdem

bug: penalty friction history not read from a checkpoint
file: io/checkpoint.c
text: m->n = r->why[0] ? 0 : nl;
replacement: m->n = r->why[0] || m->width != CCP_RECORD_WIDTH ? 0 : nl;
tests: ^restart/(penalty_bitwise|ellipsoid_pour_bitwise)$
targets: ccpdem

bug: the interior-point corrector's second-order term with the wrong sign
file: src/ccp/ipm.c
text: for (int l = 0; l < m.dim[k]; l++) ip.rc[r + l] -= p[l];
replacement: for (int l = 0; l < m.dim[k]; l++) ip.rc[r + l] += p[l];
tests: ^(ccp/test_ipm_run|fclib/test_fclib_ipm)$
targets: ccpdem

bug: the interior-point method never hands over on a stall
file: src/ccp/ipm.c
text: else if (best_res < st->res_start && it - best_it >= IPM_STALL
replacement: else if (0 && best_res < st->res_start && it - best_it >= IPM_STALL
tests: ^fclib/test_fclib_ipm$
targets: ccpdem

bug: the interior-point method never hands over when slow near the tolerance
file: src/ccp/ipm.c
text: if (slow >= 2 && st->res_max <= IPM_HANDOVER_NEAR * set->tol)
replacement: if (0 && slow >= 2 && st->res_max <= IPM_HANDOVER_NEAR * set->tol)
tests: ^fclib/test_fclib_ipm$
targets: ccpdem

bug: the IPM's gathered contacts left in rank order (iterates depend on the decomposition)
file: decomp/ccp_gather.c
text: qsort(g->contact, (size_t)g->nc, sizeof(CCPGatherContact), CompareContacts);
replacement: (void)CompareContacts;
tests: ^ccp/test_ipm_ranks$
targets: ccpdem

bug: the flat-face shortcut of a sphere's mesh query ignores the face's boundary
file: src/collision/triangle_contact.c
text: if (!(v3_dot(u, foot) - u[3] >= reach)) return -1;
replacement: if (!(v3_dot(u, foot) - u[3] >= -1e300)) return -1;
tests: ^unit/test_mesh_faces$
targets: test_mesh_faces

bug: the flat-face shortcut ignores other triangles within reach (its cell's clean rings)
file: src/collision/triangle_contact.c
text: if (fc.face < 0 || !((double)fc.rings * m->cell >= reach)) return -1;
replacement: if (fc.face < 0) return -1;
tests: ^unit/test_mesh_faces$
targets: test_mesh_faces

bug: the rolling springs without their state (a creep: b_rot never set)
file: src/step/model_ccp.c
text: if (m->springs) PetscCall(KeepTorques(sim, m, &sim->contacts, &P));
replacement: if (0) PetscCall(KeepTorques(sim, m, &sim->contacts, &P));
tests: ^validation/test_rolling_spring$
targets: test_rolling_spring

bug: the springs' state kept in the contact frame, which jumps with v3_tangents
file: src/contact/contact_set.h
text: return (PetscBool)(cs->torque_springs && !c->box && contact_dof(c) == 6);
replacement: return (PetscBool)(0 && cs->torque_springs && !c->box && contact_dof(c) == 6);
tests: ^unit/test_contacts$
targets: test_contacts

bug: the packed sweeps drop the springs' b_rot
file: src/ccp/sweep.c
text: for (int k = 0; k < 3; k++) g[3 + k] += ld(K->brot[k]);
replacement: for (int k = 0; k < 3; k++) g[3 + k] += 0 * ld(K->brot[k]);
tests: ^unit/test_ccp_(solvers|packed)$
targets: test_ccp_solvers test_ccp_packed

bug: the springs of contacts with a ghost body start unloaded (their state lost at the ranks' cut)
file: src/step/model_ccp.c
text:       m->torque_prev[3 * (size_t)i + k] = g[3 + k];
replacement:       m->torque_prev[3 * (size_t)i + k] = cs->c[i].b >= sim->bodies.n_owned ? 0 : g[3 + k];
tests: ^restart/rolling_spring_ranks$
targets: ccpdem

bug: the IPM's cluster set-up sorts with PETSc's quicksort (a stack overflow on many equal keys)
file: src/ccp/ipm.c
text: if (strongest) PetscCall(SortByKey(*njoin, key, order));
replacement: if (strongest) PetscCall(PetscSortRealWithArrayInt(*njoin, key, order));
tests: ^ccp/test_ipm_big_cold$
targets: ccpdem
LIST
n=${#names[@]}
for list in files texts repls tests targets; do
  declare -n l=$list
  [ ${#l[@]} -eq "$n" ] || { echo "mutate: the list has $n bugs but ${#l[@]} $list"; exit 1; }
done

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

runtests() { # regex log: 0 if every matching test passes (and at least one matches); ctest's output in log
  (cd "$scratch/build" && ctest -R "$1" --no-tests=error --output-on-failure > "$2" 2>&1)
}

failed() { # log: the names of the tests that failed in it
  sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$1" | tr '\n' ' '
}

mkdir -p "$scratch/src"
git -C "$repo" ls-files -co --exclude-standard -z | tar -C "$repo" --null -T - -cf - | tar -C "$scratch/src" -xf -
echo "mutate: scratch copy of $repo in $scratch/src; building (Release) in $scratch/build"
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release > "$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; exit 1; }
build all || { echo "mutate: the unmutated copy does not build"; exit 1; }

mkdir -p "$scratch/logs"
result=()
for ((i = 0; i < n; i++)); do
  if ! grep -qF -- "${texts[i]}" "$scratch/src/${files[i]}"; then
    result[i]=stale
  elif ! runtests "${tests[i]}" "$scratch/logs/baseline-$((i + 1)).log"; then
    result[i]="baseline ($(failed "$scratch/logs/baseline-$((i + 1)).log")fail unmutated)"
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
    result[i]="build failed (fix the replacement)"
  elif runtests "${tests[i]}" "$scratch/logs/$((i + 1)).log"; then
    result[i]=MISSED
  else
    result[i]="caught by $(failed "$scratch/logs/$((i + 1)).log")"
  fi
  cp "$scratch/original" "$f"
  touch "$f" # newer than the mutated object: the next build recompiles it
  echo "mutate: $((i + 1))/$n ${names[i]}: ${result[i]} ($((SECONDS - t0)) s)"
done

printf '\n%-70s %-50s %s\n' "bug" "tests (ctest -R)" "result"
missed=0
for ((i = 0; i < n; i++)); do
  printf '%-70s %-50s %s\n' "${names[i]}" "${tests[i]}" "${result[i]}"
  case ${result[i]} in caught*) ;; *) missed=$((missed + 1)) ;; esac
done
echo
echo "mutate: $((n - missed)) of $n mutations caught (scratch copy and logs in $scratch)"
[ "$missed" -eq 0 ]
