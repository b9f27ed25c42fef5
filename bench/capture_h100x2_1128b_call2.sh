#!/bin/bash
# gpu24 harness, call 2: the fixes of 35f4d16 on the real host, a second planted change (CUDA_VISIBLE_DEVICES=0 under a
# 2-rank launch), and watch's own exit code under SIGINT (timeout --preserve-status).
cd "$(dirname "$0")/../.."
R=/tmp/gpu24b; mkdir -p $R; H=$PWD/build/gpu24
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
{ date -u; nvidia-smi -L; $PY -c 'import torch;print("torch",torch.__version__,"nccl",".".join(map(str,torch.cuda.nccl.version())))'; echo "gpudoctor tree: $(cat $H/commit2.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl $H/whl/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp; ST=/tmp/gd-state
step facts-a 60 $GD facts --python $PY -o $R/facts-a.json
step hist-a 60 $GD check --history --state-dir $ST --python $PY --json
# planted 1: CUDA_VISIBLE_DEVICES=0 (one GPU visible) under a 2-rank launch
export CUDA_VISIBLE_DEVICES=0
step facts-cvd 60 $GD facts --python $PY -o $R/facts-cvd.json
step hist-cvd 60 env COLUMNS=120 $GD check --history --state-dir $ST --python $PY
step diff-since-cvd 60 $GD diff --since last-good --state-dir $ST --python $PY --json
step diff-files-cvd 60 env COLUMNS=120 $GD diff $R/facts-a.json $R/facts-cvd.json
step cvd-ar 60 env NCCL_DEBUG=WARN $TR --nproc-per-node 2 --master-port 29513 $H/ar.py
cat $R/cvd-ar.out $R/cvd-ar.err > $R/cvd-ar.log
step explain-cvd 60 env COLUMNS=120 $GD explain --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
step explain-cvd-json 60 $GD explain --json --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
unset CUDA_VISIBLE_DEVICES
# planted 2 again (session 24's first call), with the fixes
export NCCL_SOCKET_IFNAME=nosuch0
step facts-if 60 $GD facts --python $PY -o $R/facts-if.json
step if-ar 60 env NCCL_DEBUG=INFO $TR --nproc-per-node 2 --master-port 29514 $H/ar.py
cat $R/if-ar.out $R/if-ar.err > $R/if-ar.log
step explain-if 60 env COLUMNS=120 $GD explain --facts $R/facts-if.json --since last-good --state-dir $ST $R/if-ar.log
step diff-files-if 60 env COLUMNS=120 $GD diff $R/facts-a.json $R/facts-if.json
unset NCCL_SOCKET_IFNAME
cp -r $ST $R/state 2>/dev/null
# watch under SIGINT, its own exit code
SECONDS_RUN=60 timeout -k 5 120 $TR --nproc-per-node 2 --master-port 29515 $H/ddp2.py >$R/ddp.log 2>&1 & J=$!
sleep 15
step watch-int-json 40 timeout --preserve-status -s INT 20 $GD watch --local --python $PY --seconds 60 --json --save $R/wsave
step watch-int-text 40 timeout --preserve-status -s INT 15 env COLUMNS=120 $GD watch --local --python $PY --seconds 60
wait $J; echo "ddp rc=$?" >>$R/steps.txt
nvidia-smi >$R/nvidia-smi-after.txt 2>&1
