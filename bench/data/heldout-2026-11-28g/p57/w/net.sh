# source me: creates p57a/p57b netns joined by veth, 10.57.0.1/.2
net_up() {
  ip netns add p57a; ip netns add p57b
  ip link add p57va type veth peer name p57vb
  ip link set p57va netns p57a; ip link set p57vb netns p57b
  ip -n p57a link set p57va name eth0; ip -n p57b link set p57vb name eth0
  ip -n p57a addr add 10.57.0.1/24 dev eth0; ip -n p57b addr add 10.57.0.2/24 dev eth0
  for n in p57a p57b; do ip -n $n link set lo up; ip -n $n link set eth0 up; done
}
net_down() {
  ip netns del p57a 2>/dev/null; ip netns del p57b 2>/dev/null; ip netns del p57c 2>/dev/null
  for l in p57ma p57mb p57va p57vb; do ip link del $l 2>/dev/null; done
  rm -rf /etc/netns/p57a /etc/netns/p57b /etc/netns/p57c
  true
}
