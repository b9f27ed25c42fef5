rm -f trial-*.out
cat > lr_sweep.sh <<'J'
#!/bin/bash
#SBATCH -n1 -t 5
#SBATCH -o trial-%A_%a.out
LRS=(0.1 0.03 0.01 0.003)
LR=${LRS[$SLURM_ARRAY_JOB_ID % 4]}
python -c "import sys, random; lr=float(sys.argv[1]); random.seed(lr); print('lr', lr, 'val_acc', round(0.7 + random.random()/5, 4))" $LR
J
echo '$ cat lr_sweep.sh'; cat lr_sweep.sh; echo '$ sbatch --array=0-3 lr_sweep.sh'
jid=$(sbatch --parsable --array=0-3 lr_sweep.sh); echo "Submitted batch job $jid"; jobwait $jid; sleep 1
echo "\$ tail trial-${jid}_*.out"; tail trial-${jid}_*.out
