# gpu27: prepare build/gpu27/ (git-ignored) for bench/capture_h200_1128e.sh: HEAD's copy of every gpudoctor/ or checks/
# file the working tree changed (head/), the untracked ones to remove, the manifest verify.py checks, the jobs. Then
# run: bash build/gpu27/run.sh, carry ["build/gpu27"] (build/gpu27/whl/ must hold ClusterShell's wheel).
set -e
cd "$(dirname "$0")/.."
H=build/gpu27
rm -rf $H/head $H/whl/gpudoctor-*.whl $H/whl/pyyaml*.whl $H/__pycache__; mkdir -p $H/head
git rev-parse HEAD > $H/commit.txt
git ls-tree -r HEAD gpudoctor checks > $H/manifest.txt
git diff --name-only --no-renames HEAD -- gpudoctor checks | while read -r f; do
  if git cat-file -e HEAD:"$f" 2>/dev/null; then mkdir -p "$H/head/$(dirname "$f")"; git show HEAD:"$f" > "$H/head/$f"; fi; done
git ls-files -o --exclude-standard -- gpudoctor checks > $H/untracked.txt
cp bench/capture_h200_1128e.sh $H/run.sh; cp bench/capture_h200_1128e_mem.py $H/mem.py; cp bench/capture_h200_1128e_fail.py $H/fail.py
cp bench/capture_h200_1128e_jax.py $H/jaxjob.py; cp bench/capture_h200_1128e_verify.py $H/verify.py
echo "HEAD $(cat $H/commit.txt); overlay $(find $H/head -type f | wc -l) files; untracked $(wc -l < $H/untracked.txt)"; du -sh $H
