#!/bin/bash
# workload-neighbour.sh - the noisy neighbour of bench/run-workloads.sh
# (NEIGHBOUR=1), run by bash inside its own root beside the steps' one:
# what a busy tenant does to a host's file system, over and over until
# killed. Unpacks /bench/include.tar (about 9K files: creates, journal
# entries, dirty pages), writes 256 MiB and fsyncs it (the flusher, the
# disk, the journal's commits), and removes both (unlinks, freed blocks).
set -u
while :; do
    mkdir -p /nb && tar -xf /bench/include.tar -C /nb &&
        dd if=/dev/zero of=/nb/big bs=1M count=256 conv=fsync status=none
    rm -rf /nb
done
