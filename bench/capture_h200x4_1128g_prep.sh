# gpu29: prepare build/gpu29/ (git-ignored) for bench/capture_h200x4_1128g.sh, as bench/capture_h200x2_1128f_prep.sh
# does for its harness: HEAD's copy of every gpudoctor/ or checks/ file the working tree changed (head/), the
# untracked ones to remove, the manifest verify.py checks, the jobs, ClusterShell's wheel (from build/gpu27/whl).
# Then run: bash build/gpu29/run.sh (call 1) or bash build/gpu29/call2.sh (call 2), carry ["build/gpu29"], kind nvidia-h200-x4.
set -e
cd "$(dirname "$0")/.."
H=build/gpu29
rm -rf $H/head $H/__pycache__; mkdir -p $H/head $H/whl
[ -e $H/whl/clustershell-1.10.1-py3-none-any.whl ] || cp build/gpu27/whl/clustershell-1.10.1-py3-none-any.whl $H/whl/
git rev-parse HEAD > $H/commit.txt
git ls-tree -r HEAD gpudoctor checks > $H/manifest.txt
git diff --name-only --no-renames HEAD -- gpudoctor checks | while read -r f; do
  if git cat-file -e HEAD:"$f" 2>/dev/null; then mkdir -p "$H/head/$(dirname "$f")"; git show HEAD:"$f" > "$H/head/$f"; fi; done
git ls-files -o --exclude-standard -- gpudoctor checks > $H/untracked.txt
cp bench/capture_h200x4_1128g.sh $H/run.sh; [ -e bench/capture_h200x4_1128g_call2.sh ] && cp bench/capture_h200x4_1128g_call2.sh $H/call2.sh
cp bench/capture_h200x2_1128f_ddp.py $H/ddp.py; cp bench/capture_h200x4_1128g_ar.py $H/ar.py; cp bench/capture_h200x4_1128g_hog.py $H/hog.py; cp bench/capture_h200x4_1128g_topo.py $H/topo.py
cp bench/capture_h200_1128e_verify.py $H/verify.py
echo "HEAD $(cat $H/commit.txt); overlay $(find $H/head -type f | wc -l) files; untracked $(wc -l < $H/untracked.txt)"; du -sh $H
