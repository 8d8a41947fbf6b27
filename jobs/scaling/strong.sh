#!/usr/bin/env bash
# The strong scaling study: jobs/scaling/study.sh strong OUTDIR [options] (see there).
exec bash "$(dirname "${BASH_SOURCE[0]}")/study.sh" strong "$@"
