#!/bin/bash
# multi-node Slurm bed for eval-p11: slurmctld "ctl11" on bridge p11br0 (10.111.0.1), slurmd q1..q3 in
# network namespaces p11n1..p11n3 (10.111.0.11-13), each with its own UTS name; q3's slurmd also runs in a
# private mount namespace where /tmp/heldout-p11/venv is hidden by an empty tmpfs (the venv is "not installed" there).
set -e
D=/tmp/heldout-p11/slurm/run
mkdir -p $D/state
ip link add p11br0 type bridge; ip addr add 10.111.0.1/24 dev p11br0; ip link set p11br0 up
for i in 1 2 3; do
  ip netns add p11n$i
  ip link add p11v$i type veth peer name eth0 netns p11n$i
  ip link set p11v$i master p11br0; ip link set p11v$i up
  ip -n p11n$i addr add 10.111.0.1$i/24 dev eth0; ip -n p11n$i link set eth0 up; ip -n p11n$i link set lo up
done
cat > $D/slurm.conf <<CONF
ClusterName=p11
SlurmctldHost=ctl11(10.111.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=48817
SlurmdPort=48818
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool-%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
EnforcePartLimits=ALL
KillWait=5
SlurmdTimeout=30
MaxArraySize=1001
NodeName=q[1-2] NodeAddr=10.111.0.1[1-2] CPUs=2 RealMemory=1000 Features=x86_64,rack1 State=UNKNOWN
NodeName=q3 NodeAddr=10.111.0.13 CPUs=2 RealMemory=1000 Features=x86_64,rack2 State=UNKNOWN
PartitionName=debug Nodes=q[1-3] Default=YES MaxTime=30 State=UP
PartitionName=small Nodes=q[1-3] MaxNodes=1 MaxTime=30 State=UP
CONF
export SLURM_CONF=$D/slurm.conf
unshare --uts sh -c "hostname ctl11; slurmctld -f $SLURM_CONF"
for i in 1 2; do mkdir -p $D/spool-q$i; nsenter --net=/var/run/netns/p11n$i unshare --uts sh -c "hostname q$i; slurmd -f $SLURM_CONF"; done
mkdir -p $D/spool-q3
nsenter --net=/var/run/netns/p11n3 unshare --uts -m sh -c "mount --make-rprivate /; mount -t tmpfs -o size=1m none /tmp/heldout-p11/venv; hostname q3; slurmd -f $SLURM_CONF"
for i in $(seq 1 100); do [ "$(sinfo -h -o %t -N | grep -c idle)" = 3 ] && break; sleep 0.3; done
sinfo -N
