#!/bin/bash
#SBATCH --job-name=lr-sweep
#SBATCH --ntasks=2
#SBATCH --output=sweep-%j.out
source /home/alice/venv/bin/activate
for lr in 0.01 0.003; do
    srun --ntasks=1 --exact python train.py $lr > run-lr$lr.log 2>&1 &
done
echo "launched both runs"
wait
