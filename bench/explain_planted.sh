#!/bin/bash
# Real logs of a healthy 2-GPU torchrun all_reduce and of planted faults (a missing
# NCCL_SOCKET_IFNAME, a port in use, P2P off, a tiny /dev/shm), each explained by gpudoctor.
# Run from the repository root on a node with 2 GPUs and torch; logs and verdicts go to $OUT.
#   OUT=/tmp/planted bash bench/explain_planted.sh
mkdir -p "${OUT:=/tmp/planted}"
[ -e gpudoctor/checks ] || ln -sfn ../checks gpudoctor/checks  # checks/ is installed as gpudoctor.checks
PY=/opt/torch/.venv/bin/python
[ -x $PY ] || PY=python3
cat > /tmp/ar.py <<'EOF'
import os, torch, torch.distributed as dist
r = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(r)
dist.init_process_group("nccl")
x = torch.ones(1 << 22, device="cuda"); dist.all_reduce(x); torch.cuda.synchronize()
print("ok", x[0].item()); dist.destroy_process_group()
EOF
run() { name=$1; port=$2; shift 2; env "$@" timeout 150 $PY -m torch.distributed.run --nproc_per_node 2 --master_port $port /tmp/ar.py > $OUT/$name.log 2>&1; echo "$name exit=$?"; }
run healthy 29501 NCCL_DEBUG=INFO
run p2p_off 29502 NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1
run ifname 29503 NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=nonexist0
python3 -c "import socket,time;s=socket.socket();s.bind(('0.0.0.0',29555));s.listen();time.sleep(60)" & P=$!
sleep 1; run port 29555 NCCL_DEBUG=WARN; kill $P
if mount -t tmpfs -o size=256k tmpfs /dev/shm 2>/dev/null; then
  run tiny_shm 29504 NCCL_DEBUG=WARN NCCL_P2P_DISABLE=1; umount /dev/shm
else echo "tiny_shm: cannot mount a small /dev/shm here"; fi
for f in $OUT/*.log; do
  python3 -m gpudoctor explain --json --file $f > $f.json; rc=$?
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%-12s explain rc=%s verdict=%s root=%s context=%s' % (sys.argv[1].split('/')[-1][:-4], sys.argv[2], d['verdict'], d['root'], [n['id'] for n in d['context']]))" $f.json $rc
done
