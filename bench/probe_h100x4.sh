#!/bin/bash
# Issue 22: `gpudoctor probe` pair rounds on a real 4-GPU host, as a user runs it over SSH.
#
# Four sshd "nodes" on 127.0.0.2-5 of one host, each giving its logins one GPU (sshd SetEnv
# CUDA_VISIBLE_DEVICES=i) and NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, so that NCCL goes over sockets
# between them as it would between hosts without RDMA (NVLink multicast stays off everywhere:
# NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1). Scenarios:
#   healthy   the four nodes as they are
#   slow      node gpu04's sshd (so every process it starts: the rank, NCCL's proxy and socket threads)
#             pinned to one CPU core that three busy loops also hold (taskset): a CPU-starved node
#   ifname    node gpu02 with NCCL_SOCKET_IFNAME=doesnotexist0 (a wrong interface name on one node)
#   local     `gpudoctor probe --local`: the whole host as one node, all four GPUs over NVLink
# and nccl-tests' all_reduce_perf (NVIDIA/nccl-tests, built here against torch's NCCL) between the same
# GPUs: two GPUs over sockets (a pair), four over sockets, four over NVLink.
#
# Needs, carried in .carry/ (ignored by git): ssh/ (Debian 12's sshd and ssh-keygen with their
# libraries), whl/ (the Python dependencies as wheels for the host's python3), nccl-tests/ (the
# source). Usage from the repository root: bash bench/probe_h100x4.sh OUTDIR [first|second]
# first (the default): the three scenarios as JSON, the whole host, nccl-tests per GPU set.
# second: the three scenarios as the text report a user reads, the healthy scenario twice more as JSON
# (run-to-run spread), and nccl-tests for every pair of the round-robin, alone and round by round.
set -u
DEST=${1:-/tmp/probe4-out}; mkdir -p "$DEST"
OUT=/tmp/probe4-work; rm -rf "$OUT"; mkdir -p "$OUT"  # everything lands here; DEST gets steps.txt and one tarball
PORT=${PORT:-2222}
WHAT=${2:-first}
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/steps.txt"; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
PY=$(command -v python3)
ROOT=$PWD

# ---- the Python side: dependencies as wheels, gpudoctor from this tree (checks/ is gpudoctor.checks)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl \
  > "$OUT/pip.txt" 2>&1 || { say "pip install failed"; cat "$OUT/pip.txt"; }
rm -rf /tmp/gdsrc && mkdir -p /tmp/gdsrc && cp -r gpudoctor /tmp/gdsrc/ && rm -rf /tmp/gdsrc/gpudoctor/checks \
  && cp -r checks /tmp/gdsrc/gpudoctor/checks
export PYTHONPATH=/tmp/site:/tmp/gdsrc
GD="$PY -m gpudoctor"

{
  date -u; uname -a; nproc; nvidia-smi; nvidia-smi topo -m
  $PY -c 'import torch, sys; print(sys.version); print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "gpus", torch.cuda.device_count())'
  $GD --version
  command -v taskset nvcc
} > "$OUT/machine.txt" 2>&1
say "machine: $(grep -c 'H100\|H200' "$OUT/machine.txt") GPU lines"

# ---- nccl-tests, built in the background against the NCCL of torch's wheel (MPI=0, sm_90)
build_nt() {
  local base nh=/tmp/ncclhome
  base=$($PY -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])')
  mkdir -p $nh/lib; ln -sfn "$base/include" $nh/include
  for l in "$base"/lib/*; do ln -sf "$l" $nh/lib/; done
  [ -e $nh/lib/libnccl.so ] || ln -s "$base/lib/libnccl.so.2" $nh/lib/libnccl.so
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  timeout -k 5 200 make -j16 -C .carry/nccl-tests/src BUILDDIR=/tmp/nt NCCL_HOME=$nh MPI=0 \
    CUDA_HOME=$(dirname "$(dirname "$NVCC")") NVCC_GENCODE='-gencode=arch=compute_90,code=sm_90' /tmp/nt/all_reduce_perf
}
( build_nt > "$OUT/nccl-tests-build.txt" 2>&1; echo "exit $?" >> "$OUT/nccl-tests-build.txt" ) &
BUILD=$!

# ---- four sshd nodes
SSHD=$ROOT/.carry/ssh/sshd; KEYGEN=$ROOT/.carry/ssh/ssh-keygen; SSHLIB=$ROOT/.carry/ssh/lib
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd 2>/dev/null || true
B=/tmp/gd4; rm -rf $B; mkdir -p $B /run/sshd; chmod 755 $B
LD_LIBRARY_PATH=$SSHLIB $KEYGEN -q -t ed25519 -N '' -f $B/id && LD_LIBRARY_PATH=$SSHLIB $KEYGEN -q -t ed25519 -N '' -f $B/host \
  && cp $B/id.pub $B/auth || { say "ssh-keygen failed"; exit 1; }
SLOWCORE=$(( $(nproc) - 1 ))
HOGS=""
start_nodes() {  # $1: scenario
  local i extra pre
  for i in 0 1 2 3; do
    extra=""; pre=""
    [ "$1" = ifname ] && [ $i = 1 ] && extra="NCCL_SOCKET_IFNAME=doesnotexist0"
    [ "$1" = slow ] && [ $i = 3 ] && pre="taskset -c $SLOWCORE"
    cat > $B/sshd$i <<EOC
ListenAddress 127.0.0.$((i+2)):$PORT
HostKey $B/host
PidFile $B/sshd$i.pid
AuthorizedKeysFile $B/auth
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
StrictModes no
SetEnv CUDA_VISIBLE_DEVICES=$i NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=$PYTHONPATH PATH=$(dirname $PY):/usr/local/bin:/usr/bin:/bin $extra
EOC
    LD_LIBRARY_PATH=$SSHLIB $pre $SSHD -f $B/sshd$i -E $B/log$i || { cat $B/log$i; say "sshd $i failed"; }
  done
  if [ "$1" = slow ]; then
    for k in 1 2 3; do taskset -c $SLOWCORE $PY -c 'while True: pass' & HOGS="$HOGS $!"; done
  fi
  # ready when every node's port answers (bounded)
  for _ in $(seq 100); do
    ok=0; for i in 0 1 2 3; do (exec 3<>/dev/tcp/127.0.0.$((i+2))/$PORT) 2>/dev/null && ok=$((ok+1)); done
    [ $ok = 4 ] && break; sleep 0.1
  done
}
stop_nodes() {
  local i
  for i in 0 1 2 3; do [ -f $B/sshd$i.pid ] && kill "$(cat $B/sshd$i.pid)" 2>/dev/null; rm -f $B/sshd$i.pid; done
  [ -n "$HOGS" ] && kill $HOGS 2>/dev/null; HOGS=""
}
trap stop_nodes EXIT
cat > $B/config <<EOC
Host gpu01
  HostName 127.0.0.2
Host gpu02
  HostName 127.0.0.3
Host gpu03
  HostName 127.0.0.4
Host gpu04
  HostName 127.0.0.5
Host *
  Port $PORT
  User root
  IdentityFile $B/id
  UserKnownHostsFile $B/known
EOC
printf 'gpu01 slots=1\ngpu02 slots=1\ngpu03 slots=1\ngpu04 slots=1\n' > $B/hosts

left() {  # processes of a probe run still alive
  for f in /proc/[0-9]*/environ; do grep -lsaz GPUDOCTOR_PROBE_RUN= "$f"; done
}
probe_ssh() {  # $1: scenario, $2: json or txt, $3: the file's name
  start_nodes "$1"
  say "nodes up: $1"
  local t=$(date +%s) fmt=""
  [ "$2" = json ] && fmt=--json
  { [ "$2" = txt ] && echo "\$ gpudoctor probe --hosts hosts --budget 150 --max-size 256M --params 7e9"
    timeout -k 5 170 $GD probe --hosts $B/hosts --ssh-config $B/config --budget 150 --max-size 256M --params 7e9 $fmt
    echo "exit $?" >&2; } > "$OUT/$3" 2> "$OUT/$3.err"
  say "probe $1 ($2): $(tail -1 "$OUT/$3.err") in $(( $(date +%s) - t ))s; left: $(left | wc -l)"
  stop_nodes
}
if [ "$WHAT" = first ]; then
  probe_ssh healthy json probe-healthy.json
  probe_ssh slow json probe-slow.json
  probe_ssh ifname json probe-ifname.json
  # ---- the whole host as one node: four GPUs over NVLink
  t=$(date +%s)
  timeout -k 5 120 $GD probe --local --mode nccl --budget 100 --json > "$OUT/probe-local.json" 2> "$OUT/probe-local.err"
  say "probe local: exit $? in $(( $(date +%s) - t ))s"
else
  probe_ssh healthy txt probe-healthy.txt
  probe_ssh slow txt probe-slow.txt
  probe_ssh ifname txt probe-ifname.txt
  probe_ssh healthy json probe-healthy-2.json
  probe_ssh healthy json probe-healthy-3.json
fi

# ---- nccl-tests between the same GPUs
wait $BUILD
say "nccl-tests build: $(tail -1 "$OUT/nccl-tests-build.txt")"
NT() {  # $1 file, $2 seconds, rest: env assignments and args
  local f=$1 s=$2; shift 2
  env LD_LIBRARY_PATH=/tmp/ncclhome/lib:${LD_LIBRARY_PATH:-} "$@" > "$OUT/$f" 2>&1 &
  local p=$!; ( sleep "$s"; kill -9 $p 2>/dev/null ) & local w=$!
  wait $p; say "$f: exit $?"; kill $w 2>/dev/null
}
NTP="/tmp/nt/all_reduce_perf -b 64M -e 256M -f 4 -w 5 -n 20"
if [ -x /tmp/nt/all_reduce_perf ] && [ "$WHAT" = second ]; then
  # every pair alone, then the probe's three rounds (plan.rounds over gpu01..gpu04) two pairs at a time
  for pr in 0,3 1,2 0,1 2,3 0,2 3,1; do
    NT nt-alone-${pr/,/}.txt 60 CUDA_VISIBLE_DEVICES=$pr NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 $NTP -g 2
  done
  for rd in "0,3 1,2" "0,1 2,3" "0,2 3,1"; do
    set -- $rd
    env LD_LIBRARY_PATH=/tmp/ncclhome/lib:${LD_LIBRARY_PATH:-} CUDA_VISIBLE_DEVICES=$2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 \
      timeout -k 5 60 $NTP -g 2 > "$OUT/nt-round-${2/,/}.txt" 2>&1 &
    local_p=$!
    NT nt-round-${1/,/}.txt 60 CUDA_VISIBLE_DEVICES=$1 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 $NTP -g 2
    wait $local_p
  done
elif [ -x /tmp/nt/all_reduce_perf ]; then
  NT nt-pair-socket-01.txt 60 CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 /tmp/nt/all_reduce_perf -b 64M -e 256M -f 4 -g 2 -w 5 -n 20
  NT nt-pair-socket-23.txt 60 CUDA_VISIBLE_DEVICES=2,3 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 /tmp/nt/all_reduce_perf -b 64M -e 256M -f 4 -g 2 -w 5 -n 20
  NT nt-four-socket.txt 90 CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 /tmp/nt/all_reduce_perf -b 64M -e 256M -f 4 -g 4 -w 5 -n 20
  NT nt-four-nvlink.txt 60 CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT /tmp/nt/all_reduce_perf -b 1M -e 1G -f 2 -g 4 -w 5 -n 20
fi
say "left at the end: $(left | wc -l)"
say "done"
tar czf "$DEST/probe4.tgz" -C "$OUT" . && cp "$OUT/steps.txt" "$DEST/steps.txt"
