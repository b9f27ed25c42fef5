#!/bin/bash
# gpu28 harness (two H200s of one host): probe --local across both GPUs beside an nccl-tests-style all_reduce sweep in
# torch (as it comes, and with NCCL_P2P_DISABLE=1); watch over a real 2-rank DDP job as it comes, with one rank slowed
# (a CPU spin, a loader-like sleep), with NCCL_P2P_DISABLE=1 (SHM) and with sockets; a job with no GPU process yet;
# the JAX jobs (preallocation at its default, 0.97, growth). Run from the git-ignored build/gpu28/ (this file as
# run.sh, jobs as ddp.py, ar.py, early.py, jaxjob.py: never jax.py, which would shadow the jax package). Each phase
# tars what it made into $OUT (a cut run still brings it back); phases that would start past BUDGET_S are skipped.
# NVLink multicast off; no GPU setting is changed.
cd "$(dirname "$0")/../.."
R=/tmp/gpu28; mkdir -p $R; H=$PWD/build/gpu28
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
END=$((SECONDS + ${BUDGET_S:-360}))
late() { [ $SECONDS -ge $END ] && { echo "$1 skipped: past the harness's budget" >>$R/steps.txt; return 0; }; return 1; }
snap() { tar czf $OUT/gpu28.tgz.part -C $R . && mv $OUT/gpu28.tgz.part $OUT/gpu28.tgz; }
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+60)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -c ' holds' $f 2>/dev/null)" -ge $n ] && return 0; sleep 0.5; done; return 1; }
NG=$(nvidia-smi -L | grep -c '^GPU ')
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,power.limit,driver_version --format=csv
  nvidia-smi topo -m; uname -r; nproc; $PY -c 'import torch, jax; print("torch", torch.__version__, "nccl",
  torch.cuda.nccl.version(), "jax", jax.__version__)'; echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
# the processes that carry NCCL_* before any job starts (names of the variables only, never values): the ambient
# environment watch's environ scan meets on this machine (gpu27's JAX runs named a `tail` of it the job)
{ for p in /proc/[0-9]*; do e=$(tr '\0' '\n' 2>/dev/null <$p/environ | grep -o '^NCCL_[A-Z_]*' | sort | tr '\n' ' ')
  [ -n "$e" ] && echo "pid ${p#/proc/} ppid $(awk '/^PPid:/{print $2}' $p/status) comm $(cat $p/comm): $e"; done; } >$R/ambient.txt 2>/dev/null
mkdir -p /tmp/gdsrc /tmp/gdsite && cp -a gpudoctor checks /tmp/gdsrc/ && cp -a $H/head/. /tmp/gdsrc/
while read -r f; do rm -f "/tmp/gdsrc/$f"; done <$H/untracked.txt
$PY $H/verify.py /tmp/gdsrc $H/manifest.txt >>$R/steps.txt 2>&1
cp -a /tmp/gdsrc/gpudoctor /tmp/gdsite/ && cp -a /tmp/gdsrc/checks /tmp/gdsite/gpudoctor/checks
(cd /tmp/gdsite && $PY -m zipfile -e $H/whl/clustershell-*.whl .)
TSP=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
python3 -m venv --without-pip /tmp/gdv >>$R/venv.log 2>&1
VSP=$(/tmp/gdv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); printf '/tmp/gdsite\n%s\n' "$TSP" >$VSP/gd.pth
/tmp/gdv/bin/python -m gpudoctor --version >>$R/steps.txt 2>&1
GD="/tmp/gdv/bin/python -m gpudoctor"; cd /tmp
# 1. probe beside nccl-tests-style all_reduce, as it comes and with NCCL_P2P_DISABLE=1
ar() { local name=$1; shift; late $name && return; local s=$EPOCHREALTIME
  env "$@" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET timeout -k 5 60 $TR --nproc-per-node $NG --master-port $((29600 + RANDOM % 100)) $H/ar.py >$R/$name.log 2>&1
  echo "$name rc=$? secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
step probe-json 90 $GD probe --local --python $PY --json --budget 60
ar ar-nvlink
step probe-p2poff-json 90 env NCCL_P2P_DISABLE=1 $GD probe --local --python $PY --json --budget 60
step probe-p2poff-text 90 env NCCL_P2P_DISABLE=1 $GD probe --local --python $PY --budget 60
ar ar-p2poff NCCL_P2P_DISABLE=1
snap
# 2. watch over a real DDP job
job() { local name=$1; shift; J=; late $name && return; rm -f $R/stop-$name
  env "$@" STOP=$R/stop-$name MAX_S=70 timeout -k 5 90 $TR --nproc-per-node 2 --master-port $((29700 + RANDOM % 100)) $H/ddp.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log 2 || echo "$name: ranks not ready" >>$R/steps.txt
  sleep 4  # NCCL's first connections and the first steps: the window samples the steady loop
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 6 --json --save $R/$name-save
  step $name-watch-text 40 $GD watch --local --python $PY --seconds 4
  touch $R/stop-$name; wait $J; echo "$name job rc=$?" >>$R/steps.txt; snap; }
job ddp-healthy MODE=healthy
job ddp-cpuspin MODE=cpuspin SLOW_RANK=1 SLOW_S=0.3
job ddp-sleep MODE=sleep SLOW_RANK=1 SLOW_S=0.3
job ddp-p2poff MODE=healthy NCCL_P2P_DISABLE=1
# 3. a job with no GPU process yet (ranks import torch and wait before their first CUDA call)
if ! late early; then
  NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo SECONDS_RUN=14 timeout -k 5 40 $TR --nproc-per-node 2 --master-port $((29800 + RANDOM % 100)) $H/early.py >$R/early-job.log 2>&1 & J=$!
  ready $R/early-job.log 2 || echo "early: ranks not ready" >>$R/steps.txt
  step early-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step early-watch-json 30 $GD watch --local --python $PY --seconds 3 --json --save $R/early-save
  wait $J; echo "early job rc=$?" >>$R/steps.txt; snap
fi
# 4. JAX (in the image): preallocation at its default, at 0.97, and growth
jaxjob() { local name=$1; shift; late $name && return
  env "$@" CUDA_VISIBLE_DEVICES=0 SECONDS_RUN=14 timeout -k 5 50 $PY $H/jaxjob.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log 1 || echo "$name: not ready" >>$R/steps.txt
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 4 --json --save $R/$name-save
  wait $J; echo "$name job rc=$?" >>$R/steps.txt; snap; }
jaxjob jaxdefault
jaxjob jax97 XLA_PYTHON_CLIENT_MEM_FRACTION=.97
jaxjob jaxgrow XLA_PYTHON_CLIENT_PREALLOCATE=false
job ddp-sockets MODE=healthy NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
snap; ls -la $OUT
