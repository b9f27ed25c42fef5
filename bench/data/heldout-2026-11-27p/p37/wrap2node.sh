# two "nodes": network namespaces p37a (traina, 10.37.0.1) and p37b (trainb, 10.37.0.2), own hostname (UTS ns) and
# own /etc/hosts (ip netns exec bind-mounts /etc/netns/NS/hosts). node0.cmd runs on traina in the background
# (its output to node0.log in the job folder, copied to logs/NAME.node0.log); "$1" runs on trainb (the shown text).
J=$PWD
[ -f hosts_a ] && cp hosts_a /etc/netns/p37a/hosts || rm -f /etc/netns/p37a/hosts
[ -f hosts_b ] && cp hosts_b /etc/netns/p37b/hosts || rm -f /etc/netns/p37b/hosts
A=${NODEA_NS:-p37a}
ip netns exec $A unshare -u bash -c "hostname traina; cd $J; exec bash node0.cmd" > node0.log 2>&1 &
P=$!
sleep ${NODE1_DELAY:-1}
ip netns exec p37b unshare -u bash -c "hostname trainb; cd $J; exec bash -c \"\$1\"" _ "$1"
rc=$?
# node0 gets 15 s to finish on its own, then it is interrupted (as a user would press Ctrl-C there)
for i in $(seq 15); do kill -0 $P 2>/dev/null || break; sleep 1; done
for p in $(ip netns pids $A); do kill -INT $p 2>/dev/null; done
wait $P
cp node0.log /tmp/heldout-p37/logs/$(cat /tmp/heldout-p37/.curcase).node0.log 2>/dev/null
exit $rc
