#!/bin/bash
# shared dataset area at /datasets (owned by the data admin, 0755), job runs as an ordinary user
mount --bind /tmp/heldout-p52/datasets_ro /datasets
exec runuser -u p52bob -- bash -c 'cd /tmp/heldout-p52/bobwork; source ../venv2/bin/activate; export HOME=/tmp/heldout-p52/home/bob OMP_NUM_THREADS=1; for c in "$@"; do echo "\$ $c"; eval "$c"; done' bash "$@"
