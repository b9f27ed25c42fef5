cat > train_shared.sh <<'J'
#!/bin/bash
#SBATCH -N2 --ntasks-per-node=1 -t 10
export MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0
srun -l python -u loop_ddp.py --data /shared/datasets/c4-shards
J
echo '$ sbatch train_shared.sh'; jid=$(sbatch --parsable -o train-%j.out train_shared.sh); echo "Submitted batch job $jid"
for i in $(seq 1 150); do grep -q "step 4 " train-$jid.out 2>/dev/null && break; sleep 0.2; done
# the rank on s2 blocks (as a process in D state on a stale NFS handle would): SIGSTOP by pid, resumed before scancel
pids=$(pgrep -f 'python -u loop_ddp.py --data /shared/datasets/c4-shards')
for p in $pids; do [ "$(nsenter --net=/proc/$p/ns/net hostname -I 2>/dev/null | tr -d ' ')" = 10.115.0.12 ] && kill -STOP $p && stopped=$p; done
sleep 8; echo '$ squeue'; squeue; echo "\$ tail train-$jid.out"; tail train-$jid.out
[ -n "$stopped" ] && kill -CONT $stopped; scancel $jid; jobwait $jid
