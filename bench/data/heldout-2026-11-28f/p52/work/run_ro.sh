#!/bin/bash
# "node" view: the shared dataset area is mounted read-only at /datasets
mount --bind /tmp/heldout-p52/datasets_ro /datasets && mount -o remount,bind,ro /datasets
cd /tmp/heldout-p52/work
source ../venv/bin/activate
export OMP_NUM_THREADS=1 HF_DATASETS_CACHE=/tmp/heldout-p52/hfcache HF_HOME=/tmp/heldout-p52/hfhome
echo '$ mount | grep /datasets'
mount | grep /datasets
echo "$ $*"
"$@"
