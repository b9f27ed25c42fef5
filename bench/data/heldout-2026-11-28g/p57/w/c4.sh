set -u; cd /tmp/heldout-p57/w; . ./net.sh; trap 'net_down' EXIT; net_down; net_up
for n in a b; do mkdir -p /etc/netns/p57$n; printf '127.0.0.1 localhost\n10.57.0.1 node-a\n10.57.0.2 node-b\n' > /etc/netns/p57$n/hosts; done
PORT=${PORT:-41234}
ip netns exec p57b python3 -c "
import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('10.57.0.2',2049)); s.listen(5)
c,_=s.accept(); time.sleep(120)" &
sleep 1
ip netns exec p57a python3 -c "
import socket,time
s=socket.socket(); s.bind(('10.57.0.1',41234)); s.connect(('10.57.0.2',2049)); time.sleep(110)" &
sleep 1
./node.sh p57a node-a "echo 'user@node-a:~/proj\$ torchrun --nnodes 1 --nproc-per-node 2 --master-port $PORT train.py'; timeout 60 torchrun --nnodes 1 --nproc-per-node 2 --master-port $PORT train.py; echo 'user@node-a:~/proj\$ ss -ltnp | grep $PORT'; ss -ltnp | grep $PORT; echo 'user@node-a:~/proj\$ sysctl net.ipv4.ip_local_port_range'; sysctl net.ipv4.ip_local_port_range; echo 'user@node-a:~/proj\$ ss -tan | grep $PORT'; ss -tan | grep $PORT" > a.log 2>&1
kill %1 %2 2>/dev/null
