#!/bin/bash
# usage: run2nodes.sh DIR PORT OUT0 OUT1 ARGS...  : two torchrun agents (node-rank 0/1), each with its own TMPDIR (node-local scratch stand-in)
d=$1; port=$2; o0=$3; o1=$4; shift 4
export PATH=/tmp/heldout-p65/venv/bin:$PATH OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1
cd $d
for n in 0 1; do
  o=$o0; [ $n = 1 ] && o=$o1
  ( export TMPDIR=$d/tmp-n$n; c="torchrun --nnodes 2 --node-rank $n --nproc-per-node 1 --master-addr 127.0.0.1 --master-port $port train_clm.py $*"
    { echo "\$ $c"; timeout -s INT 240 bash -c "$c" 2>&1; echo "[exit $?]" >&2; } > $o 2>&1 ) &
done
wait
