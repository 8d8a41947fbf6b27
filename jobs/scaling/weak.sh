#!/usr/bin/env bash
# The weak scaling study: jobs/scaling/study.sh weak OUTDIR [options] (see there).
exec bash "$(dirname "${BASH_SOURCE[0]}")/study.sh" weak "$@"
