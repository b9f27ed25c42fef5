#!/bin/bash
# gpu29 harness (four H200s of one host, never run at this shape before): the GPUs' links (nvidia-smi topo -m, NVML);
# `check` on this machine; `probe --local` across the four GPUs beside an nccl-tests-style all_reduce / all_gather
# sweep in torch; watch over a real 4-rank DDP job as it comes (NCCL_DEBUG=INFO: its log is explain's healthy
# input), with one rank far behind (0.3 s sleep), one mildly behind (0.03 s sleep, 0.03 s spin: the NVLink form of
# watch's lagging_rank), and with one rank's GPU shared by a second process (hog.py, not a rank). Run from the
# git-ignored build/gpu29/ (this file as run.sh, jobs as ddp.py, ar.py, hog.py, topo.py). Each phase tars what it
# made into $OUT (a cut run still brings it back); phases that would start past BUDGET_S are skipped.
# NVLink multicast off; no GPU setting is changed.
cd "$(dirname "$0")/../.."
R=/tmp/gpu29; mkdir -p $R; H=$PWD/build/gpu29
PY=/opt/torch/.venv/bin/python; TR=/opt/torch/.venv/bin/torchrun
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 COLUMNS=120
END=$((SECONDS + ${BUDGET_S:-330}))
late() { [ $SECONDS -ge $END ] && { echo "$1 skipped: past the harness's budget" >>$R/steps.txt; return 0; }; return 1; }
snap() { tar czf $OUT/gpu29.tgz.part -C $R . && mv $OUT/gpu29.tgz.part $OUT/gpu29.tgz; }
step() { local name=$1 t=$2; shift 2; local s=$EPOCHREALTIME
  timeout -k 5 $t "$@" >$R/$name.out 2>$R/$name.err; local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; }
ready() { local f=$1 n=$2 end=$((SECONDS+60)); while [ $SECONDS -lt $end ]; do
  [ "$(grep -o 'holds' $f 2>/dev/null | wc -l)" -ge $n ] && return 0; sleep 0.5; done; return 1; }  # occurrences: ranks' lines interleave
NG=$(nvidia-smi -L | grep -c '^GPU ')
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,power.limit,driver_version --format=csv
  nvidia-smi topo -m; nvidia-smi topo -p2p n; nvidia-smi nvlink -s -i 0; uname -r; nproc
  $PY -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  echo "gpudoctor tree: $(cat $H/commit.txt)"; } >$R/machine.txt 2>&1
timeout 30 $PY $H/topo.py >$R/nvml-topo.json 2>$R/nvml-topo.err
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
# 1. check on this machine
step facts 60 $GD facts --python $PY --deep -o $R/facts.json
step check-json 90 $GD check --python $PY --json --deep --expected-gpus 4
step check-text 90 $GD check --python $PY --deep --expected-gpus 4 -v
snap
# 2. probe beside nccl-tests-style all_reduce / all_gather
step probe-json 90 $GD probe --local --python $PY --json --budget 60
step probe-text 90 $GD probe --local --python $PY --budget 40
if ! late ar; then s=$EPOCHREALTIME
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET timeout -k 5 90 $TR --nproc-per-node $NG --master-port $((29600 + RANDOM % 100)) $H/ar.py >$R/ar-nvlink.log 2>&1
  echo "ar-nvlink rc=$? secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}")" | tee -a $R/steps.txt; fi
snap
# 3. watch over a real 4-rank DDP job
job() { local name=$1; shift; J=; late $name && return; rm -f $R/stop-$name
  if [ -n "$HOG" ]; then HOG_GPU=$HOG STOP=$R/stop-$name MAX_S=80 timeout -k 5 90 $PY $H/hog.py >$R/$name-hog.log 2>&1 & HJ=$!
    ready $R/$name-hog.log 1 || echo "$name: hog not ready" >>$R/steps.txt; fi
  env "$@" STOP=$R/stop-$name MAX_S=70 timeout -k 5 90 $TR --nproc-per-node $NG --master-port $((29700 + RANDOM % 100)) $H/ddp.py >$R/$name-job.log 2>&1 & J=$!
  ready $R/$name-job.log $NG || echo "$name: ranks not ready" >>$R/steps.txt
  sleep 4  # NCCL's first connections and the first steps: the window samples the steady loop
  step $name-apps 20 nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
  step $name-ps 20 ps -eo pid,ppid,pcpu,comm
  step $name-watch-json 40 $GD watch --local --python $PY --seconds 6 --json --save $R/$name-save
  step $name-watch-text 40 $GD watch --local --python $PY --seconds 4
  touch $R/stop-$name; wait $J; echo "$name job rc=$?" >>$R/steps.txt
  [ -n "$HOG" ] && { wait $HJ; echo "$name hog rc=$?" >>$R/steps.txt; }; snap; }
job ddp-healthy MODE=healthy NCCL_DEBUG=INFO
HOG=2 job ddp-shared2 MODE=healthy
job ddp-sleep3 MODE=sleep SLOW_RANK=3 SLOW_S=0.3
job ddp-mildsleep2 MODE=sleep SLOW_RANK=2 SLOW_S=0.03
job ddp-mildspin1 MODE=cpuspin SLOW_RANK=1 SLOW_S=0.03
snap; ls -la $OUT
