# Sourced by the test scripts run through the binary (tests/cli, tests/scaling):
#   . "$(dirname "$0")/../script_common.sh" "$@"     with the arguments CCPDEM REPO WORKDIR
# sets CCPDEM, REPO and W (a fresh, empty work directory), and provides fail (count and print a
# failed check) and finish NAME (the closing line and the exit status).
set -u
CCPDEM=$1
REPO=$2
W=$3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() {
  [ $fails -eq 0 ] && echo "$1: all checks passed" || echo "$1: $fails check(s) FAILED"
  [ $fails -eq 0 ]
}
rm -rf "$W" && mkdir -p "$W"
