#!/bin/bash
# usage: run.sh NAME "command"  (runs in /tmp/heldout-p64/w with the venv on PATH)
N=$1; shift; C="$*"
cd /tmp/heldout-p64/w
export PATH=/tmp/heldout-p64/venv/bin:$PATH OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
{ echo "\$ $C"; timeout 300 nice -n 10 bash -c "$C" 2>&1; echo "rc=$?" >&2; } > ../cases/$N.txt 2> ../cases/$N.rc
cat ../cases/$N.rc
