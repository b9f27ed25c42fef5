#!/bin/bash
# gpu25 harness, call 2 (ran as build/gpu25/run2.sh; asked for nvidia-h100-x2, ran on a fresh 2x H200): the fixes made after call 1 (explain/diff --since with a `gpudoctor facts -o` file, a cause's
# confirm variable, the visible-GPU fix line) on the real host; watch through nvidia-smi (no pynvml) with memory.
cd "$(dirname "$0")/../.."
R=/tmp/gpu25b; mkdir -p $R; H=$PWD/build/gpu25
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
{ date -u; nvidia-smi -L; uname -r; echo "gpudoctor tree: $(cat $H/commit2.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl $H/whl/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp; ST=/tmp/gd-state
step hist-a 60 $GD check --history --state-dir $ST --python $PY --json
step facts-a 60 $GD facts --python $PY -o $R/facts-a.json
export CUDA_VISIBLE_DEVICES=1
step hist-cvd 60 $GD check --history --state-dir $ST --python $PY --json
step facts-cvd 60 $GD facts --python $PY -o $R/facts-cvd.json
step cvd-ar 60 env NCCL_DEBUG=WARN $TR --nproc-per-node 2 --master-port 29531 $H/ar.py
cat $R/cvd-ar.out $R/cvd-ar.err > $R/cvd-ar.log
unset CUDA_VISIBLE_DEVICES
step explain-cvd 60 $GD explain --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
step explain-cvd-json 60 $GD explain --json --facts $R/facts-cvd.json --since last-good --state-dir $ST $R/cvd-ar.log
step diff-file 60 $GD diff --since last-good --state-dir $ST $R/facts-cvd.json
cp -r $ST $R/state 2>/dev/null
# watch without pynvml: the nvidia-smi sampler's memory fields, over a DDP job holding 10 GiB a rank
MEM_GIB=10 SECONDS_RUN=30 timeout -k 5 90 $TR --nproc-per-node 2 --master-port 29532 $H/ddp.py >$R/ddp.log 2>&1 & J=$!
sleep 10
step smi-query 20 nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,utilization.gpu,utilization.memory,power.draw,enforced.power.limit,clocks.sm,memory.used,memory.total --format=csv,noheader,nounits
/tmp/gdv/bin/pip uninstall -q -y nvidia-ml-py >>$R/venv.log 2>&1; /tmp/gdv/bin/python -c 'import pynvml' >>$R/venv.log 2>&1; echo "pynvml import rc=$?" >>$R/steps.txt
step watch-smi-json 30 $GD watch --local --python $PY --seconds 6 --json --save $R/wsave
step watch-smi-text 30 $GD watch --local --python $PY --seconds 5
wait $J; echo "ddp rc=$?" >>$R/steps.txt
cd $R && tar czf $OUT/gpu25b.tgz . && ls -la $OUT
