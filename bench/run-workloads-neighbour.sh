#!/bin/bash
# run-workloads-neighbour.sh - bench/run-workloads.sh's steps alone and
# next to a noisy neighbour on the same host (NEIGHBOUR=1 there, which
# says what runs where), for run-all.sh.
#
#   bench/run-workloads-neighbour.sh [OUTDIR [BUILD_DIR]]
NEIGHBOUR=1 exec "$(dirname "$0")/run-workloads.sh" "$@"
