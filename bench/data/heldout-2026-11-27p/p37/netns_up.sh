set -e
ip netns add p37a; ip netns add p37b
ip link add p37va type veth peer name p37vb
ip link set p37va netns p37a; ip link set p37vb netns p37b
ip -n p37a addr add 10.37.0.1/24 dev p37va; ip -n p37b addr add 10.37.0.2/24 dev p37vb
ip -n p37a link set p37va up; ip -n p37b link set p37vb up
ip -n p37a link set lo up; ip -n p37b link set lo up
mkdir -p /etc/netns/p37a /etc/netns/p37b
