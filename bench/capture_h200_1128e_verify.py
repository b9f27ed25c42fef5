# gpu27: the tree the harness installs is HEAD's: every file of manifest.txt (git ls-tree -r HEAD gpudoctor checks)
# has HEAD's blob id (sha1 of "blob <size>\0" + bytes), and no other file is there (caches aside).
import hashlib, os, sys
root, manifest = sys.argv[1], sys.argv[2]
want = {}
for line in open(manifest):
    meta, path = line.rstrip("\n").split("\t", 1)
    want[path] = meta.split()[2]
bad = []
for path, sha in sorted(want.items()):
    try:
        data = open(os.path.join(root, path), "rb").read()
    except OSError:
        bad.append("missing " + path); continue
    if hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() != sha:
        bad.append("differs " + path)
extra = []
for d, subs, files in os.walk(root):
    subs[:] = [s for s in subs if s != "__pycache__"]
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), root)
        if rel not in want:
            extra.append(rel)
print("tree vs HEAD: %d files, %d differ or missing, %d extra %s" % (len(want), len(bad), len(extra), (bad + extra)[:10]))
