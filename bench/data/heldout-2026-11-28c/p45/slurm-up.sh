#!/bin/bash
set -e
D=/tmp/heldout-p45/slurm/run
mkdir -p $D/state
ip link add p45br0 type bridge; ip addr add 10.145.0.1/24 dev p45br0; ip link set p45br0 up
for i in 1 2; do
  ip netns add p45n$i
  ip link add p45v$i type veth peer name eth0 netns p45n$i
  ip link set p45v$i master p45br0; ip link set p45v$i up
  ip -n p45n$i addr add 10.145.0.1$i/24 dev eth0; ip -n p45n$i link set eth0 up; ip -n p45n$i link set lo up
done
cat > $D/slurm.conf <<CONF
ClusterName=lab
SlurmctldHost=head(10.145.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=45817
SlurmdPort=45818
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
NodeName=gn[1-2] NodeAddr=10.145.0.1[1-2] CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=batch Nodes=gn[1-2] Default=YES MaxTime=120 State=UP
CONF
export SLURM_CONF=$D/slurm.conf
unshare --uts sh -c "hostname head; slurmctld -f $SLURM_CONF"
for i in 1 2; do mkdir -p $D/spool-gn$i; nsenter --net=/var/run/netns/p45n$i unshare --uts sh -c "hostname gn$i; slurmd -f $SLURM_CONF"; done
for i in $(seq 1 100); do [ "$(sinfo -h -o %t -N | grep -c idle)" = 2 ] && break; sleep 0.3; done
sinfo -N
