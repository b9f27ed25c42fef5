set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap net_down EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\n' > /etc/netns/p57$n/hosts; done
E="MASTER_ADDR=node-a MASTER_PORT=29572 WORLD_SIZE=2"
./node.sh p57b node-b "echo 'user@node-b:~/proj\$ $E RANK=1 python store_job.py'; $E RANK=1 timeout 60 python store_job.py" > b.log 2>&1 &
./node.sh p57a node-a "echo 'user@node-a:~/proj\$ $E RANK=0 python store_job.py'; $E RANK=0 timeout 60 python store_job.py" > a.log 2>&1
wait
