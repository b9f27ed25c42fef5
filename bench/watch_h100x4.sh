#!/bin/bash
# `gpudoctor watch --local` beside a real 4-rank data-parallel job on a 4-GPU host, and the host's facts and check.
#
# Phases (bench/watch_ddp_workload.py under torchrun, one process a GPU, NVLink multicast off everywhere):
#   nvlink    NCCL as it comes: P2P over NVLink
#   sockets   NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: the GPUs of the host talk over sockets
#   busygpu3  NVLink, and a second process running bf16 matrix products on GPU 3 beside rank 3
# For each: what `gpudoctor watch --local --seconds 5` printed (live-*.txt, with exit code and wall time) and
# saved (--save DIR), the job's own step count. Then `gpudoctor facts`, `facts --deep` and `check --json`.
# Needs .carry/whl (the Python dependencies as wheels). Usage from the repository root:
#   bash bench/watch_h100x4.sh OUTDIR
set -u
DEST=${1:-/tmp/watch4-out}; mkdir -p "$DEST"
OUT=/tmp/watch4-work; rm -rf "$OUT"; mkdir -p "$OUT"
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/steps.txt"; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
PY=$(command -v python3)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl \
  > "$OUT/pip.txt" 2>&1 || say "pip install failed"
rm -rf /tmp/gdsrc && mkdir -p /tmp/gdsrc && cp -r gpudoctor /tmp/gdsrc/ && rm -rf /tmp/gdsrc/gpudoctor/checks \
  && cp -r checks /tmp/gdsrc/gpudoctor/checks
export PYTHONPATH=/tmp/site:/tmp/gdsrc
GD="$PY -m gpudoctor"
{ date -u; nvidia-smi; nvidia-smi topo -m; $PY -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'; } \
  > "$OUT/machine.txt" 2>&1

phase() {  # phase NAME [env assignments]
  local name=$1; shift
  rm -f /tmp/ready-$name
  setsid env "$@" $PY -m torch.distributed.run --standalone --nproc-per-node 4 bench/watch_ddp_workload.py 40 \
    /tmp/ready-$name > "$OUT/job-$name.txt" 2>&1 &
  local job=$! hog=
  if [ "$name" = busygpu3 ]; then
    setsid env CUDA_VISIBLE_DEVICES=3 $PY -c '
import torch, time
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 45
while time.time() < end:
    for _ in range(20): a @ a
    torch.cuda.synchronize()' > "$OUT/hog-$name.txt" 2>&1 &
    hog=$!
  fi
  for _ in $(seq 900); do [ -e /tmp/ready-$name ] && break; sleep 0.1; done
  [ -e /tmp/ready-$name ] || say "$name: the job never got ready"
  nvidia-smi --query-gpu=index,utilization.gpu,power.draw --format=csv,noheader >> "$OUT/smi-$name.txt" 2>&1
  local t0=$(date +%s.%N)
  $GD watch --local --seconds 5 --save "$OUT/save-$name" > "$OUT/live-$name.txt" 2>&1
  local rc=$? t1=$(date +%s.%N)
  echo "exit $rc; wall $($PY -c "print(round($t1-$t0,2))") s for --seconds 5" >> "$OUT/live-$name.txt"
  $GD watch --local --seconds 5 --json > "$OUT/live-$name.json" 2> "$OUT/live-$name.err"
  say "$name: watch exit $rc, json exit $?"
  kill -TERM -- -$job 2>/dev/null; [ -n "$hog" ] && kill -TERM -- -$hog 2>/dev/null
  for _ in $(seq 100); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- -$job 2>/dev/null; [ -n "$hog" ] && kill -KILL -- -$hog 2>/dev/null
  wait 2>/dev/null
}
phase nvlink
phase sockets NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
phase busygpu3
timeout -k 5 60 $GD facts > "$OUT/facts.json" 2> "$OUT/facts.err"; say "facts: $?"
timeout -k 5 120 $GD facts --deep > "$OUT/facts-deep.json" 2> "$OUT/facts-deep.err"; say "facts --deep: $?"
timeout -k 5 120 $GD check --json > "$OUT/check.json" 2> "$OUT/check.err"; say "check --json: $?"
timeout -k 5 120 $GD check > "$OUT/check.txt" 2>&1; say "check: $?"
say "gpu processes left: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)"
tar czf "$DEST/watch4.tgz" -C "$OUT" . && cp "$OUT/steps.txt" "$DEST/steps.txt"
