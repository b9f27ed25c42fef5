#!/bin/bash
# gpu24 harness (session 24; fixtures/recorded/h100x2-2026-11-28b/): ran on the device as build/gpu24/run.sh beside ar.py and ddp.py
# (bench/capture_h100x2_1128b_{ar,ddp}.py here), gpudoctor's wheel in build/gpu24/whl; each step bounded; outputs under /tmp/gpu24.
cd "$(dirname "$0")/../.."
R=/tmp/gpu24; mkdir -p $R; H=$PWD/build/gpu24
PY=/opt/torch/.venv/bin/python
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
{ date -u; nvidia-smi -L; nvidia-smi topo -m; nvidia-smi --query-gpu=index,name,driver_version,memory.total,persistence_mode --format=csv; uname -r; cat /etc/os-release | head -2; $PY -c 'import torch;print("torch",torch.__version__,torch.version.cuda,"nccl",".".join(map(str,torch.cuda.nccl.version())))'; echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1 || $PY -m venv /tmp/gdv >>$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl $H/whl/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp; ST=/tmp/gd-state
# 1. check: JSON and text, and the facts
step check-json 90 $GD check --python $PY --json
step check-text 90 env COLUMNS=120 $GD check --python $PY
step facts 90 $GD facts --python $PY -o $R/facts.json
# 2. history: run 1 as the host is; run 2 with one planted change (NCCL_SOCKET_IFNAME naming no interface)
step hist1 90 $GD check --history --state-dir $ST --python $PY --json
export NCCL_SOCKET_IFNAME=nosuch0
step facts-planted 90 $GD facts --python $PY -o $R/facts-planted.json
step hist2 90 $GD check --history --state-dir $ST --python $PY --json
step hist2-text 90 env COLUMNS=120 $GD check --history --state-dir $ST --python $PY
step diff-text 90 env COLUMNS=120 $GD diff --since last-good --state-dir $ST --python $PY
step diff-json 90 $GD diff --since last-good --state-dir $ST --python $PY --json
step planted-ar 60 env NCCL_DEBUG=INFO /opt/torch/.venv/bin/torchrun --nproc-per-node 2 --master-port 29511 $H/ar.py
cat $R/planted-ar.out $R/planted-ar.err > $R/planted-ar.log
step explain-since 60 $GD explain --facts $R/facts-planted.json --since last-good --state-dir $ST $R/planted-ar.log
step explain-since-json 60 $GD explain --json --facts $R/facts-planted.json --since last-good --state-dir $ST $R/planted-ar.log
unset NCCL_SOCKET_IFNAME
cp -r $ST $R/state 2>/dev/null
# 3. watch over a real 2-GPU DDP job, SIGINT mid-window
SECONDS_RUN=75 timeout -k 5 100 /opt/torch/.venv/bin/torchrun --nproc-per-node 2 --master-port 29512 $H/ddp.py >$R/ddp.log 2>&1 & J=$!
sleep 12
step watch-int-json 40 timeout -s INT 20 $GD watch --local --python $PY --seconds 60 --json --save $R/watch-int-save
step watch-int-text 40 timeout -s INT 20 env COLUMNS=120 $GD watch --local --python $PY --seconds 60
step watch-full 40 $GD watch --local --python $PY --seconds 8 --json --save $R/watch-save
wait $J; echo "ddp rc=$?" >>$R/steps.txt
# 4. probe on this host's two GPUs
step probe-json 80 $GD probe --local --python $PY --json --budget 60
step probe-text 80 env COLUMNS=120 $GD probe --local --python $PY --budget 60
nvidia-smi >$R/nvidia-smi-after.txt 2>&1
