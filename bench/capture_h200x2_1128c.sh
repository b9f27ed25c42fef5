#!/bin/bash
# gpu25 harness, call 1 (ran as build/gpu25/run.sh; asked for nvidia-h100-x2, ran on 2x H200): session 25's fixes on a real 2-GPU host. check; check --history twice with a plant that
# changes no verdict (CUDA_VISIBLE_DEVICES=1); diff/explain --since last-good; a name NCCL 2.28.9 reads that the
# 2.30.7 table drops; watch over a real 2-GPU DDP job holding memory.
cd "$(dirname "$0")/../.."
R=/tmp/gpu25; mkdir -p $R; H=$PWD/build/gpu25
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; uname -r
  $PY -c 'import torch;print("torch",torch.__version__,"nccl",".".join(map(str,torch.cuda.nccl.version())))'
  echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl $H/whl/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp; ST=/tmp/gd-state
export COLUMNS=120
step check-text 60 $GD check --python $PY
step facts-a 60 $GD facts --python $PY -o $R/facts-a.json
step hist-a 60 $GD check --history --state-dir $ST --python $PY --json
# the plant: one GPU visible, no verdict changes (host.name fails on this VM whatever)
export CUDA_VISIBLE_DEVICES=1
step facts-cvd 60 $GD facts --python $PY -o $R/facts-cvd.json
step hist-cvd 60 $GD check --history --state-dir $ST --python $PY --json
step hist-cvd-text 60 $GD check --python $PY
step diff-since 60 $GD diff --since last-good --state-dir $ST --python $PY
step diff-since-json 60 $GD diff --since last-good --state-dir $ST --python $PY --json
step cvd-ar 60 env NCCL_DEBUG=WARN $TR --nproc-per-node 2 --master-port 29521 $H/ar.py
cat $R/cvd-ar.out $R/cvd-ar.err > $R/cvd-ar.log
step explain-cvd 60 $GD explain --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
step explain-cvd-json 60 $GD explain --json --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
unset CUDA_VISIBLE_DEVICES
cp -r $ST $R/state 2>/dev/null
# a name NCCL 2.28.9 reads and 2.30.7 no longer does (NCCL_GIN_NCONTEXTS, read 2.28.9-2.29.7), judged on the node's
step gin-json 60 env NCCL_GIN_NCONTEXTS=4 $GD check --python $PY --json
step gin-ar 60 env NCCL_GIN_NCONTEXTS=4 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ENV $TR --nproc-per-node 2 --master-port 29522 $H/ar.py
grep -h "NCCL_GIN\|NCCL version" $R/gin-ar.out $R/gin-ar.err | head -20 > $R/gin-ar.grep
# watch over a real DDP job holding 20 GiB a rank
MEM_GIB=20 SECONDS_RUN=40 timeout -k 5 120 $TR --nproc-per-node 2 --master-port 29523 $H/ddp.py >$R/ddp.log 2>&1 & J=$!
sleep 12
step watch-json 40 $GD watch --local --python $PY --seconds 10 --json --save $R/wsave
step watch-text 40 $GD watch --local --python $PY --seconds 8
nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv >$R/smi-during.txt 2>&1
wait $J; echo "ddp rc=$?" >>$R/steps.txt
nvidia-smi >$R/nvidia-smi-after.txt 2>&1
cd $R && tar czf $OUT/gpu25.tgz . && ls -la $OUT
