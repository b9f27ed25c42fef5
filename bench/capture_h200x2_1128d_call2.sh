#!/bin/bash
# gpu26 harness, call 2 (one GPU: the 2-GPU kinds were not lent at 09:11 UTC, so no stray-context job): watch.memory through the nvidia-smi sampler (no pynvml) over the common stray context
# (dist.barrier() before torch.cuda.set_device, no device_id); the facts of a node with a name its NCCL does not
# read yet (for replay); the final wheel (uneven fix lines). NVLink multicast off; no GPU setting is changed.
cd "$(dirname "$0")/../.."
R=/tmp/gpu26b; mkdir -p $R; H=$PWD/build/gpu26
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+90)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -c ' holds ' $f 2>/dev/null)" -ge $n ] && return 0; sleep 0.5; done; return 1; }
{ date -u; nvidia-smi -L; uname -r; echo "gpudoctor tree: $(cat $H/commit2.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl2 $H/whl2/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp
step facts-poll 60 env NCCL_SOCKET_POLL_TIMEOUT_MSEC=500 $GD facts --python $PY -o $R/facts-poll.json
step check-poll-facts 60 $GD check --facts $R/facts-poll.json --select nccl.env --json
/tmp/gdv/bin/pip uninstall -q -y nvidia-ml-py >>$R/venv.log 2>&1; /tmp/gdv/bin/python -c 'import pynvml' >>$R/venv.log 2>&1; echo "pynvml import rc=$?" >>$R/steps.txt
job() { local name=$1; shift
  env "$@" SECONDS_RUN=${RUNS:-22} timeout -k 5 100 $TR --nproc-per-node ${NP:-1} --master-port $((29650 + RANDOM % 100)) $H/mem.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log ${NP:-1} || echo "$name: ranks not ready" >>$R/steps.txt
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 6 --json --save $R/$name-save
  step $name-watch-text 40 $GD watch --local --python $PY --seconds 5
}
job fill FILL=1 MEM_GIB=10
wait $J; echo "fill job rc=$?" >>$R/steps.txt
RUNS=18 job even MEM_GIB=12
wait $J; echo "even job rc=$?" >>$R/steps.txt
cd $R && tar czf $OUT/gpu26b.tgz . && ls -la $OUT
