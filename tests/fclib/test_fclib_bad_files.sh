#!/bin/bash
# FCLIB files that ccpdem must refuse or accept (label fclib). Usage: test_fclib_bad_files.sh CCPDEM REPO WORKDIR
#  1. Damaged copies of a dumped problem (a missing group or dataset, sizes that disagree, spacedim
#     2, a non-finite value, an index out of range, a dataset claiming more values than the file
#     holds), a foreign or missing file, a local problem and a global problem that is not one of
#     rigid bodies: `ccpdem fclib solve` exits 2 with one "ccpdem: error:" line naming the file and
#     what is wrong, and writes no -o file.
#  2. The same problem with H in triplet form and M in compressed rows (FCLIB's other layouts) is
#     read and solved to the same impulses as the compressed-column file (the reader converts).
#  3. The command's own errors: no file, an unknown subcommand, an unknown option, 2 ranks; and
#     `run -fclib_dump` of a step beyond the run's end or under the penalty model (no CCP): exit 2.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$CCPDEM" run "$REPO/tests/fclib/drop.yaml" -o "$W/run" -fclib_dump 20 -fclib_dir "$W" > "$W/run.log" 2>&1 ||
  fail "the dumping run failed: $(tail -3 "$W/run.log")"
good=$W/fclib-000020.hdf5
/usr/bin/python3 - "$good" "$W" <<'PY' || fail "making the damaged files failed"
import shutil, sys, h5py, numpy as np
good, w = sys.argv[1], sys.argv[2]
def variant(name, change):
    path = f"{w}/{name}.hdf5"
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        change(f)
def replace(f, name, data):
    del f[name]
    f[name] = data
g = "fclib_global"
variant("no_H", lambda f: f.__delitem__(f"{g}/H"))
variant("no_w", lambda f: f.__delitem__(f"{g}/vectors/w"))
variant("no_global", lambda f: f.__delitem__(g))
variant("short_w", lambda f: replace(f, f"{g}/vectors/w", np.array(f[f"{g}/vectors/w"])[:-3]))
variant("short_x", lambda f: replace(f, f"{g}/M/x", np.array(f[f"{g}/M/x"])[:-1]))
variant("spacedim2", lambda f: replace(f, f"{g}/spacedim", np.array([2], dtype=np.int32)))
variant("nan_f", lambda f: f[f"{g}/vectors/f"].__setitem__(4, np.nan))
variant("negative_mu", lambda f: f[f"{g}/vectors/mu"].__setitem__(0, -0.1))
variant("row_out_of_range", lambda f: f[f"{g}/H/i"].__setitem__(5, 10**6))
variant("pointer_disorder", lambda f: f[f"{g}/M/p"].__setitem__(3, 10**6))
variant("int64_m", lambda f: replace(f, f"{g}/M/m", np.array([168], dtype=np.int64)))
def huge(f):  # a dataset of 10^9 doubles whose storage was never written: more than the file holds
    del f[f"{g}/vectors/f"]
    f.create_dataset(f"{g}/vectors/f", shape=(10**9,), dtype="<f8")
variant("huge_f", huge)
def coupled(f):  # M(0, 6): the mass of body 0 coupled to body 1, in triplet form
    p, i, x = (np.array(f[f"{g}/M/{k}"]) for k in "pix")
    rows = np.repeat(np.arange(len(p) - 1), np.diff(p))[: p[-1]]  # compressed columns: rows in i, columns here
    rows, cols = np.append(i[: p[-1]], 0), np.append(rows, 6)
    for k, v in (("p", rows.astype(np.int32)), ("i", cols.astype(np.int32)), ("x", np.append(x[: p[-1]], 1e-3))):
        replace(f, f"{g}/M/{k}", v)
    for k, v in (("nz", len(rows)), ("nzmax", len(rows))):
        replace(f, f"{g}/M/{k}", np.array([v], dtype=np.int32))
variant("coupled_M", coupled)
def other_layouts(f):  # H in triplets (p: rows, i: columns), M in compressed rows (M is symmetric: the same arrays)
    p, i, x = (np.array(f[f"{g}/H/{k}"]) for k in "pix")
    cols = np.repeat(np.arange(len(p) - 1), np.diff(p))
    replace(f, f"{g}/H/p", i.astype(np.int32))
    replace(f, f"{g}/H/i", cols.astype(np.int32))
    replace(f, f"{g}/H/nz", np.array([len(x)], dtype=np.int32))
    replace(f, f"{g}/M/nz", np.array([-2], dtype=np.int32))
variant("other_layouts", other_layouts)
with h5py.File(f"{w}/local.hdf5", "w") as f:
    f["fclib_local/spacedim"] = np.array([3], dtype=np.int32)
    for k, v in (("nzmax", 3), ("m", 3), ("n", 3), ("nz", 3)):
        f[f"fclib_local/W/{k}"] = np.array([v], dtype=np.int32)
    f["fclib_local/W/p"] = np.array([0, 1, 2], dtype=np.int32)
    f["fclib_local/W/i"] = np.array([0, 1, 2], dtype=np.int32)
    f["fclib_local/W/x"] = np.array([1.0, 1.0, 1.0])
    f["fclib_local/vectors/q"] = np.array([-1.0, 0.0, 0.0])
    f["fclib_local/vectors/mu"] = np.array([0.3])
PY
echo "not an HDF5 file" > "$W/text.hdf5"

refused() { # expected text, arguments of ccpdem...
  local expect=$1 out rc; shift
  rm -f "$W/out.hdf5"
  out=$("$CCPDEM" "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "$*: exit $rc, expected 2: $out"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "$*: not one error line: $out"
  [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$*: more output than the error line: $out"
  echo "$out" | grep -q -- "$expect" || fail "$*: the error lacks '$expect': $out"
  [ -e "$W/out.hdf5" ] && fail "$*: a refused solve wrote its -o file"
  echo "  refused: $out"
}
bad() { refused "$2" fclib solve "$W/$1.hdf5" -o "$W/out.hdf5"; }
bad no_H "$W/no_H.hdf5: group /fclib_global/H (a sparse matrix) is missing"
bad no_w "dataset /fclib_global/vectors/w is missing"
bad no_global "has neither /fclib_global nor /fclib_local: not an FCLIB problem file"
bad short_w "H is 168 x 216, w has 213 values and mu 72"
bad short_x "dataset /fclib_global/M/x has 335 values, expected 336 (nzmax)"
bad spacedim2 "/fclib_global/spacedim is 2: ccpdem solves 3-D contact problems (spacedim 3) only"
bad nan_f "dataset /fclib_global/vectors/f has value nan at index 4"
bad negative_mu "dataset /fclib_global/vectors/mu has value -0.1 at index 0 (a finite value >= 0 needed)"
bad row_out_of_range "matrix /fclib_global/H: entry 5 at (1000000, 0) lies outside its 168 x 216"
bad pointer_disorder "matrix /fclib_global/M: pointer p\[3\] = 1000000 is out of order"
bad int64_m "dataset /fclib_global/M/m holds integer values (8 bytes each) instead of integers of 4 bytes"
bad huge_f "dataset /fclib_global/vectors/f claims 1000000000 values, more than the"
bad coupled_M "M(0, 6) = 0.001 couples two bodies"
bad local "holds a local problem (W 3 x 3, q, mu): ccpdem solves a global problem of rigid bodies"
bad text "is not an HDF5 file"
bad missing "missing.hdf5: cannot be read"
refused "not an FCLIB problem file" fclib solve "$W/run/snapshots/snap-000000.h5" -o "$W/out.hdf5"
refused "no FCLIB problem given" fclib solve
refused "unknown fclib command" fclib check "$good"
refused "unknown option -ccp_tolerance" fclib solve "$good" -ccp_tolerance 1e-6 -o "$W/out.hdf5"
refused "Unknown option foo for -ccp_type" fclib solve "$good" -ccp_type foo -o "$W/out.hdf5"
refused "beyond the run's last step 60" run "$REPO/tests/fclib/drop.yaml" -o "$W/late" -fclib_dump 20,61 -fclib_dir "$W"
[ -e "$W/late" ] && fail "a refused -fclib_dump made the run's output directory"
refused "the penalty model solves no CCP" run "$REPO/tests/restart/penalty_pour.yaml" -o "$W/pen" -fclib_dump 3
out=$(mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" fclib solve "$good" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$out" | grep -c '^ccpdem: error: ccpdem fclib solve runs on one rank')" -eq 1 ] ||
  fail "2 ranks: exit $rc, not one error line: $out"

"$CCPDEM" fclib solve "$good" -fclib_guess false -ccp_tol 1e-10 -ccp_max_it 100000 -o "$W/a.hdf5" > "$W/a.log" 2>&1 || fail "the good file was not solved: $(cat "$W/a.log")"
"$CCPDEM" fclib solve "$W/other_layouts.hdf5" -fclib_guess false -ccp_tol 1e-10 -ccp_max_it 100000 -o "$W/b.hdf5" > "$W/b.log" 2>&1 ||
  fail "the triplet / compressed-row file was not solved: $(cat "$W/b.log")"
# the same problem in memory, so the same iterates: equal impulses (up to rounding, 1e-12 relative)
/usr/bin/python3 - "$W/a.hdf5" "$W/b.hdf5" <<'PY' || fail "the triplet / compressed-row file gave other impulses"
import sys, h5py, numpy as np
a, b = (np.array(h5py.File(p, "r")["solution/r"]) for p in sys.argv[1:3])
d = np.max(np.abs(a - b))
print(f"  other layouts: max |r - r_csc| = {d:.2e} N s of max |r| {np.max(np.abs(a)):.2e}")
sys.exit(0 if d <= 1e-12 * np.max(np.abs(a)) else 1)
PY
finish test_fclib_bad_files
