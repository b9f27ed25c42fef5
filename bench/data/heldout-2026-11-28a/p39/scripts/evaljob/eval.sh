#!/bin/bash
#SBATCH --job-name=eval
#SBATCH --ntasks=2
#SBATCH --output=eval-%j.out
source /home/alice/venv/bin/activate
export MASTER_ADDR=$(hostname)
MASTER_PORT=37351 srun --ntasks=2 python eval.py val &
sleep 1
MASTER_PORT=37352 srun --ntasks=2 python eval.py test &
wait
echo "all evaluations finished"
