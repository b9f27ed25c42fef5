set -u; cd /tmp/heldout-p57/w; . ./net2.sh; trap net2_down EXIT; net2_down; net2_up
for n in c d; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.58.0.1 node-a\n10.58.0.2 node-b\nfd58::1 node-a6\nfd58::2 node-b6\n' > /etc/netns/p57$n/hosts; done
ip -n p57c addr add fd58::1/64 dev eth0 nodad; ip -n p57d addr add fd58::2/64 dev eth0 nodad
MA=node-a; for n in p57c p57d; do ip netns exec $n tc qdisc add dev eth0 root netem delay 20ms 5ms loss 0.5%; done
CMD="torchrun --nnodes 2 --nproc-per-node 1 --master-addr $MA --master-port 29581"
./node.sh p57c node-a "timeout 60 $CMD --node-rank 0 train.py" > ha2.log 2>&1 &
./node.sh p57d node-b "echo 'user@node-b:~/proj\$ tc qdisc show dev eth0'; tc qdisc show dev eth0; echo 'user@node-b:~/proj\$ time  --node-rank 1 train.py'; time timeout 60 $CMD --node-rank 1 train.py" > hb2.log 2>&1
wait
