#!/bin/bash
# node-local job scratch: small tmpfs mounted noexec,nosuid,nodev; the job's TMPDIR points into it
mkdir -p /tmp/heldout-p52/jobscratch
mount -t tmpfs -o size=256m,noexec,nosuid,nodev tmpfs /tmp/heldout-p52/jobscratch
mkdir -p /tmp/heldout-p52/jobscratch/tmp
cd /tmp/heldout-p52/work; source ../venv/bin/activate
export OMP_NUM_THREADS=1 TMPDIR=/tmp/heldout-p52/jobscratch/tmp
for c in "$@"; do echo "\$ $c"; eval "$c"; done
