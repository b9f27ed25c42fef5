set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap 'net_down' EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\n' > /etc/netns/p57$n/hosts; done
RULE=drop; [ "${FW:-drop}" = open ] && RULE=accept
if true; then
ip netns exec p57a nft -f - <<NFT
table inet p57fw {
  chain input {
    type filter hook input priority 0; policy accept;
    ct state established,related accept
    iif lo accept
    tcp dport 22 accept
    icmp type echo-request accept
    tcp dport 29400 $RULE
  }
}
NFT
fi
ip netns exec p57a nft list ruleset > nft_a.txt 2>&1
CMD="torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint node-a:29400 --rdzv-id job57 train.py"
./node.sh p57a node-a "timeout ${TA:-170} $CMD" > a.log 2>&1 &
sleep 3
./node.sh p57b node-b "echo 'user@node-b:~/proj\$ ping -c 2 node-a'; ping -c 2 node-a; echo 'user@node-b:~/proj\$ $CMD'; timeout ${TB:-160} $CMD" > b.log 2>&1
wait
