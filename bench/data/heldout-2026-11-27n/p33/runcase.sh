#!/bin/bash
# usage: runcase.sh JOBNUM TIMEOUT 'command'   (runs in work/job-JOBNUM, log to out/job-JOBNUM.log)
J=$1; T=$2; shift 2
D=/tmp/heldout-p33/work/job-$J; mkdir -p $D; cd $D
export PATH=/tmp/heldout-p33/venv/bin:$PATH HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=/tmp/heldout-p33/work/hf
timeout $T bash -c "$*" > /tmp/heldout-p33/out/job-$J.log 2>&1
rc=$?
printf '%s\t%s\t%s\t%s\n' "job-$J" "$rc" "$(date -u +%FT%TZ)" "$*" >> /tmp/heldout-p33/manifest.tsv
echo "rc=$rc"; tail -c 3000 /tmp/heldout-p33/out/job-$J.log
