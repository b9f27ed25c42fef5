#!/bin/bash
set -e
cd /tmp/heldout-p55/w/a
echo "[$1] preparing shard index"
./prep_shards --data /data/shard --out /tmp/heldout-p55/w/a/index
echo "[$1] starting torchrun"
