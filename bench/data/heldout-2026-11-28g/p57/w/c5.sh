set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap net_down EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf "127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\nfd57::1 node-a6\nfd57::2 node-b6\n" > /etc/netns/p57$n/hosts; done
ip -n p57a addr add fd57::1/64 dev eth0 nodad; ip -n p57b addr add fd57::2/64 dev eth0 nodad
EP=${EP:-fd57::1:29400}
./node.sh p57a node-a "timeout 60 torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint $EP --rdzv-id job57 train.py" > a.log 2>&1 &
./node.sh p57b node-b "echo 'user@node-b:~/proj\$ torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint $EP --rdzv-id job57 train.py'; timeout 60 torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint $EP --rdzv-id job57 train.py" > b.log 2>&1
wait
