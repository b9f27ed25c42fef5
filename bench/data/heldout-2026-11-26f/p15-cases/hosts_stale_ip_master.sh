printf '127.0.0.1\tlocalhost\n10.115.0.99\ttrainer-a\n10.115.0.12\ttrainer-b\n' > /tmp/heldout-p15/hosts_b
echo '=== trainer-a $ hostname -I'; nsenter --net=/var/run/netns/p15n1 hostname -I
echo '=== trainer-b $ getent hosts trainer-a'; unshare -m sh -c 'mount --bind /tmp/heldout-p15/hosts_b /etc/hosts; getent hosts trainer-a'
echo '=== trainer-b $ torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr trainer-a --master-port 29970 train.py'
nsenter --net=/var/run/netns/p15n2 unshare -m sh -c 'mount --bind /tmp/heldout-p15/hosts_b /etc/hosts; timeout -s INT 20 torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr trainer-a --master-port 29970 train.py' 2>&1 | head -40
echo '^C'
