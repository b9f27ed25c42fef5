#!/bin/bash
# usage: rec.sh DIR OUTFILE CMD...   (runs CMD in DIR, writes "$ CMD" + output to OUTFILE)
d=$1; out=$2; shift 2
cd "$d" || exit 1
export OMP_NUM_THREADS=1 PATH=/tmp/heldout-p49/venv/bin:$PATH
{ echo "\$ $*"; timeout 150 bash -c "$*" 2>&1; } > "$out"
echo "rc=$?" ; wc -l "$out"
