jid=$(sbatch --uid=p15user --gid=p15user --parsable -w s2 -n1 -t 5 -J train_lm -o /dev/null --chdir=/tmp --wrap 'sleep 60')
for i in $(seq 1 100); do [ "$(squeue -h -j $jid -o %t)" = R ] && break; sleep 0.2; done
echo '$ squeue -u $USER'; squeue -u p15user
echo "\$ ssh s1 'top -b -n1 | head -15'"
cd /tmp && runuser -u p15user -- env HOME=/tmp/heldout-p15/ssh/p15home ssh -o BatchMode=yes s1 'top -b -n1 | head -15'; rc=$?
scancel $jid; jobwait $jid; exit $rc
