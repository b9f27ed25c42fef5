#!/bin/bash
# usage: run.sh CASES_TSV  (run from .carry/p63); outputs -> $OUT/cases.tar.gz
cd "$(dirname "$0")"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
D=/tmp/p63cases; rm -rf $D; mkdir -p $D
{ nvidia-smi -L; python3 -c 'import torch;print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'; hostname; ip -br a 2>&1; } > $D/_env.txt 2>&1
one() {
  name="$1"; cmd="$2"
  echo "\$ $cmd" > $D/$name.txt
  s=$(date +%s%N)
  timeout -k 5 ${CASE_TIMEOUT:-60} bash -c "$cmd" >> $D/$name.txt 2>&1
  echo "$name rc=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" >> $D/_rc.txt
  tar -C $D -czf $OUT/.t.$name . 2>/dev/null && mv $OUT/.t.$name $OUT/cases.tar.gz
}
export -f one; export D
while IFS=$'\t' read -r name cmd; do
  [ -z "$name" ] && continue
  echo "$name"$'\t'"$cmd"
done < "$1" | xargs -P ${PAR:-5} -d '\n' -n1 bash -c 'IFS=$'"'"'\t'"'"' read -r n c <<< "$1"; one "$n" "$c"' _
tar -C $D -czf $OUT/cases.tar.gz .
cat $D/_rc.txt
