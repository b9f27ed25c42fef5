#!/bin/bash
# gpu29 harness, call 2 (gpudoctor from 6eeff6e6 on: the new check gpu.links), on a fresh 4x H200: the GPUs' links
# through NVML (topo.py, fixed: call 1's crashed on nvidia-ml-py's tuple constant) beside nvidia-smi's; facts and
# check with gpu.links live; probe on GPU pairs (CUDA_VISIBLE_DEVICES) beside torch's sweep of the same pair; watch
# through both samplers (pynvml; nvidia-smi with pynvml hidden) over the 4-rank DDP job with one rank's GPU shared by
# a second process and with one rank mildly behind. Call 1's description: bench/capture_h200x4_1128g.sh.
cd "$(dirname "$0")/../.."
R=/tmp/gpu29; mkdir -p $R; H=$PWD/build/gpu29
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
END=$((SECONDS + ${BUDGET_S:-300}))
late() { [ $SECONDS -ge $END ] && { echo "$1 skipped: past the harness's budget" >>$R/steps.txt; return 0; }; return 1; }
snap() { tar czf $OUT/gpu29.tgz.part -C $R . && mv $OUT/gpu29.tgz.part $OUT/gpu29.tgz; }
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+60)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -o 'holds' $f 2>/dev/null | wc -l)" -ge $n ] && return 0; sleep 0.5; done; return 1; }  # occurrences: ranks' lines interleave
NG=$(nvidia-smi -L | grep -c '^GPU ')
{ date -u; nvidia-smi -L; nvidia-smi topo -m; for c in r w n a; do nvidia-smi topo -p2p $c; done
  nvidia-smi nvlink -s; uname -r; nproc; $PY -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  $PY -m pip show nvidia-ml-py 2>/dev/null | head -2; echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
timeout 30 $PY $H/topo.py >$R/nvml-topo.json 2>$R/nvml-topo.err
mkdir -p /tmp/gdsrc /tmp/gdsite && cp -a gpudoctor checks /tmp/gdsrc/ && cp -a $H/head/. /tmp/gdsrc/
while read -r f; do rm -f "/tmp/gdsrc/$f"; done <$H/untracked.txt
$PY $H/verify.py /tmp/gdsrc $H/manifest.txt >>$R/steps.txt 2>&1
cp -a /tmp/gdsrc/gpudoctor /tmp/gdsite/ && cp -a /tmp/gdsrc/checks /tmp/gdsite/gpudoctor/checks
(cd /tmp/gdsite && $PY -m zipfile -e $H/whl/clustershell-*.whl .)
TSP=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for v in gdv gdv2; do python3 -m venv --without-pip /tmp/$v >>$R/venv.log 2>&1
  VSP=$(/tmp/$v/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); printf '/tmp/gdsite\n%s\n' "$TSP" >$VSP/gd.pth
  [ $v = gdv2 ] && echo 'raise ImportError("pynvml hidden by the gpu29 harness (the nvidia-smi sampler)")' >$VSP/pynvml.py; done
/tmp/gdv/bin/python -m gpudoctor --version >>$R/steps.txt 2>&1
GD="/tmp/gdv/bin/python -m gpudoctor"; GD2="/tmp/gdv2/bin/python -m gpudoctor"; cd /tmp
# 1. facts and check with gpu.links
step facts 60 $GD facts --python $PY --deep -o $R/facts.json
step check-json 90 $GD check --python $PY --json --deep --expected-gpus 4
step check-text 90 $GD check --python $PY --deep --expected-gpus 4 -v
step links-fast 30 $GD check --fast --select gpu --verbose
snap
# 2. probe on GPU pairs beside torch's sweep of the same pair
ar() { local name=$1 cvd=$2; late $name && return; local s=$EPOCHREALTIME
  CUDA_VISIBLE_DEVICES=$cvd NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P timeout -k 5 60 $TR --nproc-per-node 2 --master-port $((29600 + RANDOM % 100)) $H/ar.py >$R/$name.log 2>&1
  echo "$name rc=$? secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
step probe01-json 60 env CUDA_VISIBLE_DEVICES=0,1 $GD probe --local --python $PY --json --budget 40
ar ar01 0,1
step probe23-json 60 env CUDA_VISIBLE_DEVICES=2,3 $GD probe --local --python $PY --json --budget 40
snap
# 3. watch through both samplers
job() { local name=$1; shift; J=; late $name && return; rm -f $R/stop-$name
  if [ -n "$HOG" ]; then HOG_GPU=$HOG STOP=$R/stop-$name MAX_S=80 timeout -k 5 90 $PY $H/hog.py >$R/$name-hog.log 2>&1 & HJ=$!
    ready $R/$name-hog.log 1 || echo "$name: hog not ready" >>$R/steps.txt; fi
  env "$@" STOP=$R/stop-$name MAX_S=70 timeout -k 5 90 $TR --nproc-per-node $NG --master-port $((29700 + RANDOM % 100)) $H/ddp.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log $NG || echo "$name: ranks not ready" >>$R/steps.txt
  sleep 4
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 6 --json --save $R/$name-save
  step $name-smiwatch-json 40 $GD2 watch --local --python $PY --seconds 6 --json --save $R/$name-smisave
  step $name-smiwatch-text 40 $GD2 watch --local --python $PY --seconds 4
  touch $R/stop-$name; wait $J; echo "$name job rc=$?" >>$R/steps.txt
  [ -n "$HOG" ] && { wait $HJ; echo "$name hog rc=$?" >>$R/steps.txt; }; snap; }
HOG=2 job ddp-shared2 MODE=healthy
job ddp-mildsleep2 MODE=sleep SLOW_RANK=2 SLOW_S=0.03
HOG=0 job ddp-shared0 MODE=healthy
job ddp-sleep0 MODE=sleep SLOW_RANK=0 SLOW_S=0.3
snap; ls -la $OUT
