# source me: creates p57c/p57d netns joined by veth, 10.58.0.1/.2
net2_up() {
  ip netns add p57c; ip netns add p57d
  ip link add p57vc type veth peer name p57vd
  ip link set p57vc netns p57c; ip link set p57vd netns p57d
  ip -n p57c link set p57vc name eth0; ip -n p57d link set p57vd name eth0
  ip -n p57c addr add 10.58.0.1/24 dev eth0; ip -n p57d addr add 10.58.0.2/24 dev eth0
  for n in p57c p57d; do ip -n $n link set lo up; ip -n $n link set eth0 up; done
}
net2_down() {
  ip netns del p57d 2>/dev/null; ip netns del p57c 2>/dev/null
  for l in p57vc p57vd; do ip link del $l 2>/dev/null; done
  rm -rf /etc/netns/p57c /etc/netns/p57d
  true
}
