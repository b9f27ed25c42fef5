touch /tmp/heldout-p15/slurm/epilog_fail
echo '$ srun -w s2 -n1 python -c "print(42)"'; srun -w s2 -n1 python -c 'print(42)'
for i in $(seq 1 100); do sinfo -h -R | grep -q s2 && break; sleep 0.2; done; rm -f /tmp/heldout-p15/slurm/epilog_fail
echo '$ srun -w s2 -n1 --immediate=5 python -c "print(43)"'; srun -w s2 -n1 --immediate=5 python -c 'print(43)'
echo '$ sinfo -R'; sinfo -R
scontrol update nodename=s2 state=resume >/dev/null 2>&1; true
