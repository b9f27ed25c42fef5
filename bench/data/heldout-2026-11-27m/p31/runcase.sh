#!/bin/bash
# usage: runcase.sh JOB TIMEOUT 'command'   (runs in work/JOB, saves stdout+stderr verbatim)
J=$1; T=$2; shift 2; C="$*"
D=/tmp/heldout-p31
mkdir -p $D/work/$J; cd $D/work/$J
export PATH=$D/venv/bin:$PATH
timeout -k 5 $T bash -c "$C" > $D/out/$J.log 2>&1; rc=$?
printf '%s\t%s\t%s\n' "$J" "$rc" "$C" >> $D/manifest.tsv
echo "rc=$rc"; tail -n 15 $D/out/$J.log
