#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
echo "[run.sh] rank ${RANK} of ${WORLD_SIZE} on $(hostname)"
exec python train.py --epochs 1
