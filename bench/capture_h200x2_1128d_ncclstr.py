# gpu26: every NCCL_* string in the libnccl.so.2 torch loads (NUL-terminated, as NCCL_PARAM's "NCCL_" "SUFFIX"
# literal and getenv("NCCL_...") compile to), and the version it reports; judged against the table off-device.
import ctypes, glob, json, os, re, sys
import torch
ver = torch.cuda.nccl.version()
paths = sorted(set(glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "nccl", "lib", "libnccl.so*"))
                   + glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "lib", "libnccl.so*"))))
maps = open("/proc/self/maps").read()
out = {"torch": torch.__version__, "nccl_version": ".".join(map(str, ver)) if isinstance(ver, tuple) else str(ver),
       "libs": []}
for p in paths:
    blob = open(p, "rb").read()
    names = sorted(set(m.decode() for m in re.findall(rb"(?<![A-Z0-9_])(NCCL_[A-Z0-9_]+)(?=\0)", blob)))
    out["libs"].append({"path": os.path.realpath(p), "bytes": len(blob), "names": names})
json.dump(out, sys.stdout, indent=1)
