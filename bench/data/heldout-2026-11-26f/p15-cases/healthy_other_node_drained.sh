scontrol update nodename=s2 state=drain reason="maint: BIOS update (ticket 4411)"
echo '$ sinfo'; sinfo; echo '$ sinfo -R'; sinfo -R
echo '$ srun -N1 -n2 -l python train_slurm.py'; MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0 srun -N1 -n2 -l python train_slurm.py; rc=$?
scontrol update nodename=s2 state=resume; exit $rc
