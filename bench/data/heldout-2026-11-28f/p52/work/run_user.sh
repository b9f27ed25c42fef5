#!/bin/bash
# run commands as a team member; the team shares one datasets cache on the shared area
u=$1; shift
exec runuser -u $u -- bash -c 'cd /tmp/heldout-p52/shared; source ../venv2/bin/activate; export HOME=/tmp/heldout-p52/home/${USER#p52} OMP_NUM_THREADS=1 HF_DATASETS_CACHE=/tmp/heldout-p52/shared/hf_datasets_cache; for c in "$@"; do echo "$USER\$ $c"; eval "$c"; done' bash "$@"
