#!/bin/bash
# preprocess 4 shards in parallel on the data node
CFG=/tmp/heldout-p25/ssh/config
PY=/tmp/heldout-p25/venv/bin/python
ssh -F $CFG gpu04 "mkdir -p $PWD/shards"
for s in 0 1 2 3; do
  ssh -F $CFG gpu04 "cd $PWD && $PY prep.py --shard $s" &
done
wait
echo "all shards done"
