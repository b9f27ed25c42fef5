#!/bin/bash
# start each rank from a clean environment so site settings from the login shell do not leak in
cd "$(dirname "$0")"
exec env -i PATH="$PATH" HOME="$HOME" OMP_NUM_THREADS=1 python train.py "$@"
