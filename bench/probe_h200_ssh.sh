#!/bin/sh
# `gpudoctor probe` as a user runs it, over SSH, on a GPU host: two sshd "nodes" on 127.0.0.2 and
# 127.0.0.3, each giving its sessions one GPU (sshd SetEnv CUDA_VISIBLE_DEVICES) and
# NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 so that NCCL goes over sockets between them.
# Needs sshd (or one carried in .carry/ssh with its libraries) and fabric/paramiko (or their wheels
# in .whl). Usage, from the repository root: sh bench/probe_h200_ssh.sh OUTDIR
set -u
OUT=${1:-/tmp/ssh-out}; mkdir -p "$OUT"
SSHD=$(command -v sshd || ls /usr/sbin/sshd 2>/dev/null || ls $PWD/.carry/ssh/sshd 2>/dev/null)
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd 2>/dev/null || true
mkdir -p /run/sshd
if [ -z "$SSHD" ]; then echo "no sshd on this machine: nothing to run" | tee "$OUT/ssh.txt"; exit 0; fi
if ! python3 -c "import fabric" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
B=/tmp/gdssh; rm -rf $B; mkdir -p $B /run/sshd; chmod 755 $B
keygen() { if command -v ssh-keygen >/dev/null; then ssh-keygen "$@"; else LD_LIBRARY_PATH=$PWD/.carry/ssh/lib $PWD/.carry/ssh/ssh-keygen "$@"; fi; }
keygen -q -t ed25519 -N '' -f $B/id && keygen -q -t ed25519 -N '' -f $B/host && cp $B/id.pub $B/auth || exit 1
PY=$(command -v python3)
for i in 0 1; do
  cat > $B/sshd$i <<EOC
ListenAddress 127.0.0.$((i+2)):2222
HostKey $B/host
PidFile $B/sshd$i.pid
AuthorizedKeysFile $B/auth
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
StrictModes no
SetEnv CUDA_VISIBLE_DEVICES=$i NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PATH=$(dirname $PY):/usr/local/bin:/usr/bin:/bin
EOC
  # a carried sshd brings its libraries (.carry/ssh/lib); a system one needs none
  case "$SSHD" in */.carry/*) LD_LIBRARY_PATH=$(dirname $SSHD)/lib $SSHD -f $B/sshd$i -E $B/log$i ;; *) $SSHD -f $B/sshd$i -E $B/log$i ;; esac || { cat $B/log$i; exit 1; }
done
cat > $B/config <<EOC
Host gpu01
  HostName 127.0.0.2
Host gpu02
  HostName 127.0.0.3
Host *
  Port 2222
  User root
  IdentityFile $B/id
  UserKnownHostsFile $B/known
EOC
printf 'gpu01 slots=1\ngpu02 slots=1\n' > $B/hosts
sleep 1
( echo '$ gpudoctor probe --hosts hosts --params 7e9'; python3 -m gpudoctor probe --hosts $B/hosts --ssh-config $B/config --budget 120 --params 7e9 --max-size 256M 2>&1; echo "exit $?" ) | tee "$OUT/probe-ssh.txt"
python3 -m gpudoctor probe --hosts $B/hosts --ssh-config $B/config --budget 120 --json --max-size 256M > "$OUT/probe-ssh.json" 2> "$OUT/probe-ssh.err"; echo "json exit $?"
for f in /proc/[0-9]*/environ; do grep -lsaz GPUDOCTOR_PROBE_RUN= $f; done | tee "$OUT/left.txt"
kill $(cat $B/sshd0.pid) $(cat $B/sshd1.pid) 2>/dev/null
