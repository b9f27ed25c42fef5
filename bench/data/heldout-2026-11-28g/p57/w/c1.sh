set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap net_down EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\n' > /etc/netns/p57$n/hosts; done
# management interfaces, same subnet but not linked
ip link add p57ma type veth peer name p57mra; ip link add p57mb type veth peer name p57mrb
ip link set p57ma netns p57a; ip link set p57mb netns p57b
ip -n p57a link set p57ma name mgmt0; ip -n p57b link set p57mb name mgmt0
ip -n p57a addr add 192.168.57.11/24 dev mgmt0; ip -n p57b addr add 192.168.57.12/24 dev mgmt0
ip -n p57a link set mgmt0 up; ip -n p57b link set mgmt0 up; ip link set p57mra up; ip link set p57mrb up
IF=${IF:-mgmt0}
./node.sh p57a node-a "GLOO_SOCKET_IFNAME=$IF timeout 60 torchrun --nnodes 2 --nproc-per-node 1 --node-rank 0 --master-addr node-a --master-port 29571 train.py" > a.log 2>&1 &
./node.sh p57b node-b "echo 'user@node-b:~/proj$ ip -br addr'; ip -br addr; echo 'user@node-b:~/proj\$ GLOO_SOCKET_IFNAME=$IF torchrun --nnodes 2 --nproc-per-node 1 --node-rank 1 --master-addr node-a --master-port 29571 train.py'; GLOO_SOCKET_IFNAME=$IF timeout 60 torchrun --nnodes 2 --nproc-per-node 1 --node-rank 1 --master-addr node-a --master-port 29571 train.py" > b.log 2>&1
wait
