#!/bin/bash
# usage: rec.sh OUTFILE DIR CMD...   (runs CMD in DIR with the venv on PATH; writes "$ CMD" + stdout/stderr to OUTFILE)
out=$1; dir=$2; shift 2
export PATH=/tmp/heldout-p65/venv/bin:$PATH OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1
cd "$dir" || exit 9
{ echo "\$ $*"; timeout -s INT 240 bash -c "$*" 2>&1; rc=$?; } > "$out.tmp"
echo "rc=$rc" >> /tmp/heldout-p65/manifest.txt.tmp
echo "$(date -u +%FT%TZ) $out rc=$rc cmd=$*" >> /tmp/heldout-p65/manifest.txt
mv "$out.tmp" "$out"; echo "rc=$rc lines=$(wc -l < $out)"
