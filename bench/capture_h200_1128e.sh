#!/bin/bash
# gpu27 harness, call 1 (one or two H200s; steps that need two GPUs are skipped on one): check, probe, watch over
# real jobs (stray contexts through both samplers: a tensor on cuda:0 before set_device, the barrier before
# set_device, torch.load with no map_location; JAX's preallocation at its default and at 0.97), real GPU failures
# for explain (a device-side assert, an OOM, a CPU batch, two ranks on one GPU). Run from the git-ignored
# build/gpu27/ (this file as run.sh, the jobs as mem.py, fail.py, jaxjob.py: not jax.py, which the first real run
# used: a script's folder leads sys.path, so `import jax` imported the script itself). NVLink multicast off; no GPU
# setting is changed.
cd "$(dirname "$0")/../.."
R=/tmp/gpu27; mkdir -p $R; H=$PWD/build/gpu27
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
END=$((SECONDS + ${BUDGET_S:-370}))  # phases that would start past this are skipped (the call's limit was 420 s)
late() { [ $SECONDS -ge $END ] && { echo "$1 skipped: past the harness's budget" >>$R/steps.txt; return 0; }; return 1; }
snap() { tar czf $OUT/gpu27.tgz.part -C $R . && mv $OUT/gpu27.tgz.part $OUT/gpu27.tgz; }  # after each phase: a cut run
# still brings back what it had (call 1 of gpu27 timed out before its one final tar and brought back nothing)
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+90)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -c ' holds' $f 2>/dev/null)" -ge $n ] && return 0; sleep 0.5; done; return 1; }
NG=$(nvidia-smi -L | grep -c '^GPU ')
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv
  nvidia-smi topo -m; uname -r; $PY -c 'import torch, jax; print("torch", torch.__version__, "nccl",
  torch.cuda.nccl.version(), "jax", jax.__version__)'; echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
# gpudoctor as committed (a wheel would take the working tree past the 64 MiB a call carries): the checkout's
# gpudoctor/ and checks/ with HEAD's copy of every file the tree had changed (head/) and its untracked files
# removed; verify.py compares every file with HEAD's blob ids (manifest.txt). The torch image's site-packages give
# the dependencies (rich, psutil, packaging, PyYAML, nvidia-ml-py); ClusterShell from its wheel. gdv2 is the same
# with pynvml made unimportable (the nvidia-smi sampler).
mkdir -p /tmp/gdsrc /tmp/gdsite && cp -a gpudoctor checks /tmp/gdsrc/ && cp -a $H/head/. /tmp/gdsrc/
while read -r f; do rm -f "/tmp/gdsrc/$f"; done <$H/untracked.txt
$PY $H/verify.py /tmp/gdsrc $H/manifest.txt >>$R/steps.txt 2>&1
cp -a /tmp/gdsrc/gpudoctor /tmp/gdsite/ && cp -a /tmp/gdsrc/checks /tmp/gdsite/gpudoctor/checks
(cd /tmp/gdsite && $PY -m zipfile -e $H/whl/clustershell-*.whl .)
TSP=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for v in gdv gdv2; do python3 -m venv --without-pip /tmp/$v >>$R/venv.log 2>&1
  VSP=$(/tmp/$v/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); printf '/tmp/gdsite\n%s\n' "$TSP" >$VSP/gd.pth
  [ $v = gdv2 ] && echo 'raise ImportError("pynvml hidden by the gpu27 harness (the nvidia-smi sampler)")' >$VSP/pynvml.py; done
/tmp/gdv/bin/python -m gpudoctor --version >>$R/steps.txt 2>&1; /tmp/gdv2/bin/python -c 'import pynvml' >>$R/venv.log 2>&1; echo "gdv2 pynvml import rc=$? gpus=$NG" >>$R/steps.txt
GD="/tmp/gdv/bin/python -m gpudoctor"; GD2="/tmp/gdv2/bin/python -m gpudoctor"; cd /tmp
# 1. check and probe on this machine
step check-json 60 $GD check --python $PY --json
step check-text 60 $GD check --python $PY
step facts 60 $GD facts --python $PY -o $R/facts.json
step probe-json 90 $GD probe --local --python $PY --json --budget 60
step probe-text 90 $GD probe --local --python $PY --budget 60
snap
# 2. real GPU failures, explained where they happened
fail() { local kind=$1 np=$2 s=$EPOCHREALTIME; late fail-$kind && return
  KIND=$kind timeout -k 5 45 $TR --nproc-per-node $np --master-port $((29600 + RANDOM % 100)) $H/fail.py >$R/fail-$kind.log 2>&1
  echo "fail-$kind rc=$? secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt
  step explain-$kind 60 $GD explain --json $R/fail-$kind.log; }
NPF=$(( NG >= 2 ? 2 : 1 ))
fail assert $NPF; fail oom $NPF; fail device $NPF
[ $NG -ge 2 ] && fail duplicate 2
snap
# 3. watch over real jobs; pynvml first, then the nvidia-smi sampler (nvidia-ml-py uninstalled) on the same job
job() { local name=$1 np=$2; shift 2; J=; late $name && return
  env "$@" SECONDS_RUN=${RUNS:-24} timeout -k 5 100 $TR --nproc-per-node $np --master-port $((29700 + RANDOM % 100)) $H/mem.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log $np || echo "$name: ranks not ready" >>$R/steps.txt
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 5 --json --save $R/$name-save
  step $name-watch-text 40 $GD watch --local --python $PY --seconds 4
}
smi() { [ -n "$J" ] || return; step $1-smiwatch-json 40 $GD2 watch --local --python $PY --seconds 5 --json --save $R/$1-smisave; }
if [ $NG -ge 2 ]; then
  job stray 2 STRAY=1 MEM_GIB=10; smi stray; step stray-prom 30 $GD watch --local --python $PY --seconds 3 --format prometheus; wait $J; echo "stray job rc=$?" >>$R/steps.txt
  job barrier 2 STRAY=barrier MEM_GIB=10; smi barrier; wait $J; echo "barrier job rc=$?" >>$R/steps.txt
  job load 2 STRAY=load MEM_GIB=10; smi load; wait $J; echo "load job rc=$?" >>$R/steps.txt
else
  RUNS=16 job one 1 MEM_GIB=12; wait $J; echo "one job rc=$?" >>$R/steps.txt
fi
snap
jaxjob() { local name=$1; shift; late $name && return
  env "$@" CUDA_VISIBLE_DEVICES=0 SECONDS_RUN=16 timeout -k 5 60 $PY $H/jaxjob.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log 1 || echo "$name: not ready" >>$R/steps.txt
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 4 --json --save $R/$name-save
  wait $J; echo "$name job rc=$?" >>$R/steps.txt; snap; }
jaxjob jaxdefault
jaxjob jax97 XLA_PYTHON_CLIENT_MEM_FRACTION=.97
jaxjob jaxgrow XLA_PYTHON_CLIENT_PREALLOCATE=false
snap; ls -la $OUT
