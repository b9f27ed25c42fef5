#!/bin/bash
#SBATCH -n 1
#SBATCH --nodelist=gn01
#SBATCH --nodes=1
srun hostname
