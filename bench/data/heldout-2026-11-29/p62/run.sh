#!/bin/bash
# usage: run.sh NAME 'cmd'   (runs in /tmp/heldout-p62/w with the p62 venv first on PATH)
cd /tmp/heldout-p62/w; export PATH=/tmp/heldout-p62/venv/bin:$PATH
{ echo "\$ $2"; timeout -k 5 ${T:-120} nice -n 10 bash -c "$2" 2>&1; echo "[rc=$?]" >&2; } > ../cases/$1.txt 2>../cases/$1.rc
cat ../cases/$1.rc
