#!/bin/bash
# prolog: record the GPU assigned to this task
echo "task ${SLURM_LOCALID} on $(hostname)"
nvidia-smi -i ${SLURM_LOCALID} --query-gpu=index,name,memory.used,memory.total --format=csv
