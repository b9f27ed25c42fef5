#!/bin/bash
# gpu26 harness, call 1: nccl.env's first-release note and the table against the real libnccl.so.2; watch.memory
# over real 2-rank DDP jobs (a stray context on GPU 0, one GPU filled, an even one); the session's other watch
# changes (profile kernel/OS, the interrupted stderr line). NVLink multicast off; no GPU setting is changed.
cd "$(dirname "$0")/../.."
R=/tmp/gpu26; mkdir -p $R; H=$PWD/build/gpu26
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+90)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -c ' holds ' $f 2>/dev/null)" -ge $n ] && return 0; sleep 0.5; done; return 1; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; uname -r;
  echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
python3 -m venv /tmp/gdv >$R/venv.log 2>&1
/tmp/gdv/bin/pip install -q --no-index --find-links .carry/whl --find-links $H/whl $H/whl/gpudoctor-*.whl >>$R/venv.log 2>&1; echo "install rc=$?" >>$R/steps.txt
GD=/tmp/gdv/bin/gpudoctor; cd /tmp
step nccl-strings 60 $PY $H/ncclstr.py
step check 60 $GD check --python $PY --json
step check-poll 60 env NCCL_SOCKET_POLL_TIMEOUT_MSEC=500 $GD check --python $PY --json
step check-poll-text 60 env NCCL_SOCKET_POLL_TIMEOUT_MSEC=500 $GD check --python $PY --select nccl.env --verbose
step ar-env 90 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV NCCL_SOCKET_POLL_TIMEOUT_MSEC=500 $TR --nproc-per-node 2 --master-port 29541 $H/ar.py
job() { # name, env...: a DDP job in the background, watched once both ranks hold their memory
  local name=$1; shift
  env "$@" SECONDS_RUN=${RUNS:-22} timeout -k 5 100 $TR --nproc-per-node 2 --master-port $((29550 + RANDOM % 100)) $H/mem.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log 2 || echo "$name: ranks not ready" >>$R/steps.txt
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv
  step $name-smi 20 nvidia-smi --query-gpu=index,uuid,memory.used,memory.total --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 6 --json --save $R/$name-save
  step $name-watch-text 40 $GD watch --local --python $PY --seconds 5
}
job stray STRAY=1 MEM_GIB=10
wait $J; echo "stray job rc=$?" >>$R/steps.txt
job fill FILL=1 MEM_GIB=10
wait $J; echo "fill job rc=$?" >>$R/steps.txt
RUNS=26 job even MEM_GIB=12
s=$EPOCHREALTIME; timeout -s INT -k 5 4 $GD watch --local --python $PY --seconds 30 >$R/even-int.out 2>$R/even-int.err
echo "even-int rc=$? secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" >>$R/steps.txt
wait $J; echo "even job rc=$?" >>$R/steps.txt
cd $R && tar czf $OUT/gpu26.tgz . && ls -la $OUT
