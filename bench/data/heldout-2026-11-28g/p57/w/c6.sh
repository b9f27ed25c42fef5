set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap 'net_down' EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\n' > /etc/netns/p57$n/hosts; done
NN=${NN:-2}
CMD="torchrun --nnodes $NN --nproc-per-node 1 --max-restarts 3 --rdzv-backend c10d --rdzv-endpoint node-a:29400 --rdzv-id job57 --rdzv-conf join_timeout=60 train_long.py"
./node.sh p57a node-a "echo 'user@node-a:~/proj\$ $CMD'; timeout 200 $CMD" > a.log 2>&1 &
./node.sh p57b node-b "timeout 200 $CMD" > b.log 2>&1 &
for i in $(seq 120); do grep -q "step  10" a.log && break; sleep 1; done
sleep 2
# node-b crashes: every process in its namespace dies
for p in $(ip netns pids p57b); do kill -9 $p 2>/dev/null; done
echo "killed node-b at $(date -u +%T)"
wait
