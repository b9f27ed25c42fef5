"""A file written into a folder that does not exist, as the folder to make (issue 18, explain-fixline24).

Writing a file creates the file, never the folders above it: open(2) gives ENOENT "when O_CREAT is set and a
directory component in pathname does not exist" (https://man7.org/linux/man-pages/man2/open.2.html), which Python
raises as FileNotFoundError ("[Errno 2] No such file or directory: 'out/run3/metrics.json'", Doc/library/
exceptions.rst); torch.save checks first and says so itself: "Parent directory ckpts/run3 does not exist."
(caffe2/serialize/inline_container.cc, PyTorchStreamWriter, https://github.com/pytorch/pytorch/blob/main/caffe2/
serialize/inline_container.cc). The settled fix is to make the folder before the save: os.makedirs(d,
exist_ok=True) (https://docs.python.org/3/library/os.html#os.makedirs), or mkdir -p in the job script.

A FileNotFoundError is a write when the user's own line that raised it writes: open(..., 'w' / 'a' / 'x'),
torch.save, numpy's save / savez / savetxt, pandas' to_csv / to_json / to_parquet, json.dump into such an open,
savefig, Path.write_text / write_bytes. A read of a missing file is another error (the file, not its folder:
pyanswer.py answers it). The folder is the path's own parent; a path without one is in the working directory,
which exists, so nothing is added. The reading becomes the root's first cause with the exception line as its
evidence; the root, its family and verdict do not change.

Paths are untrusted log text: only a plain path ([\\w./+-], at most 200 characters, no leading dash, no '..' component) is
written into a fix line.
"""

import re

_PATH = re.compile(r"^[\w./][\w./+-]{0,199}$")  # (never a leading dash: an option position)
_PARENT = re.compile(r"Parent directory (\S{1,200}) does not exist\.?")
_ENOENT = re.compile(r"\[Errno 2\] No such file or directory: '([^'\n]{1,200})'")
# the user's line writes (the calls that create a file)
_WRITES = re.compile(r"\bopen\([^#]{0,200}?,\s*(?:mode\s*=\s*)?['\"][wax]b?\+?['\"]|\btorch\.save\(|\bnp\.save[zt]?\(|"
                     r"\bnumpy\.save[zt]?\(|\.to_(?:csv|json|parquet|pickle|feather|excel)\(|\.savefig\(|"
                     r"\.write_(?:text|bytes)\(|\bsave_file\(")


def _folder(path):
    if not _PATH.match(path or "") or ".." in path.split("/"):
        return None
    d = path.rsplit("/", 1)[0] if "/" in path else ""
    return d if d and d != "." else None


def _reading(tb):
    """(folder, how) of a traceback whose write failed for want of its folder, else None."""
    from gpudoctor.explain.userline import user_frame

    msg = tb.get("msg") or ""
    m = _PARENT.search(msg)
    if m:
        d = m.group(1).rstrip(".")
        return (d, "torch.save") if _PATH.match(d) and ".." not in d.split("/") else None
    m = _ENOENT.search(msg)
    if not m or (tb.get("exc") or "").split(".")[-1] not in ("FileNotFoundError", "OSError", "IOError"):
        return None
    uf = user_frame(tb)
    if not uf or not _WRITES.search(uf.get("src") or ""):
        return None
    d = _folder(m.group(1))
    return (d, "the write on your line %s:%s" % (uf["file"].rsplit("/", 1)[-1], uf["line"])) if d else None


def fill(scan, findings):
    """Make the missing folder of a failed write the root's first cause (analyze.analyze's hook)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or f.get("kind") == "echo" or not f.get("causes"):
        return
    lines = {m.get("line") for m in f.get("matches") or []}
    for tb in getattr(scan, "tracebacks", []) or []:
        if lines and tb.get("line") not in lines and f.get("confidence") != "structural":
            continue
        got = _reading(tb)
        if not got:
            continue
        d, how = got
        text = ("The folder the file is written into, %s, does not exist (%s): writing a file creates the file, "
                "never the folders above it." % (d, how))
        if any(c.get("text") == text for c in f["causes"]):
            return
        fix = ["os.makedirs('%s', exist_ok=True) before the save (or mkdir -p %s in the job script); on several "
               "ranks or nodes, on a filesystem every rank that writes there sees" % (d, d)]
        ev = [{"line": tb.get("line"), "text": ("%s: %s" % (tb.get("exc") or "", tb.get("msg") or ""))[:400]}] \
            if tb.get("line") is not None else []
        f["causes"].insert(0, {"text": text, "checks": [], "confirm": ["ls -ld %s" % d], "fix": fix, "exports": {},
                               "evidence": ev, "static_rank": 0, "computed": None})
        return
