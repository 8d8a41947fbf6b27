# Sourced by tests/fuzz/test_*.sh after tests/script_common.sh: the checks they share.

# Every number in the snapshots, checkpoints and time series of run directory $1 is finite (h5dump
# prints NaN and infinities as nan, -nan, inf, -inf).
finite_outputs() {
  local f
  [ -f "$1/timeseries.csv" ] && grep -qiwE 'nan|-nan|inf|-inf' "$1/timeseries.csv" && return 1
  for f in "$1"/snapshots/*.h5 "$1"/checkpoints/*.h5; do
    [ -f "$f" ] || continue
    h5dump -w 0 "$f" 2> /dev/null | grep -qiwE 'nan|-nan|inf|-inf' && return 1
  done
  return 0
}
