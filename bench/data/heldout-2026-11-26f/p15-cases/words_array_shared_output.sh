rm -f sweep.out
cat > sweep2.sh <<'J'
#!/bin/bash
#SBATCH -n1 -t 5
#SBATCH -o sweep.out
python -c "import os; t=int(os.environ['SLURM_ARRAY_TASK_ID']); print('trial', t, 'lr', 10**-(t+1), 'val_acc', round(0.8+0.03*t, 3))"
J
echo '$ cat sweep2.sh'; cat sweep2.sh; echo '$ sbatch --array=0-3 sweep2.sh'
jid=$(sbatch --parsable --array=0-3 sweep2.sh); echo "Submitted batch job $jid"; jobwait $jid; sleep 1
echo '$ cat sweep.out'; cat sweep.out
