#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/errno.json: every errno name, number and text as
Python and glibc print them (`OSError: [Errno 28] No space left on device`, `... (errno 24)`,
`: Too many open files`), with the knowledge family that says where it arises in a training job
(FAMILIES below; names not listed are unassigned and listed in docs/explain.md).

Usage:
    python tools/gen_errno.py [-o OUT]                               (this machine's Python and glibc)
    python tools/gen_errno.py --slice tools/data/errno_slice.tsv -o OUT   (the test)

Source: Python's errno.errorcode and os.strerror (glibc's strerror on Linux,
https://docs.python.org/3/library/errno.html). A slice is `NAME<TAB>NUMBER<TAB>TEXT` lines.
"""

import argparse
import errno
import os
import platform
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_errno.py"

# errno name -> knowledge entry: where the code comes from in a training job (hand-written)
FAMILIES = {
    "ENOSPC": "errno.enospc",
    "EMFILE": "errno.emfile", "ENFILE": "errno.emfile",
    "ENOMEM": "errno.enomem",
    "EADDRINUSE": "rendezvous.address_in_use",
    "ECONNREFUSED": "rendezvous.connect", "EHOSTUNREACH": "rendezvous.connect", "ENETUNREACH": "rendezvous.connect",
    "EADDRNOTAVAIL": "rendezvous.connect",
    "ECONNRESET": "errno.peer_gone", "EPIPE": "errno.peer_gone",
    "ETIMEDOUT": "errno.timeout",
    "EACCES": "errno.permission", "EPERM": "errno.permission", "EROFS": "errno.permission",
    "EDQUOT": "errno.enospc",
    "EBUSY": "errno.busy",
    "ENODEV": "errno.no_device", "ENXIO": "errno.no_device",
    "EIO": "errno.io",
}
# texts too common to be matched without the errno around them
_MIN_BARE = 22


def build(rows, version):
    sites = []
    for name, num, text in rows:
        alts = [r"\[Errno %d\] %s" % (num, re.escape(text)), r"%s \(errno:? ?%d\)" % (re.escape(text), num),
                r"%s \(%d\)" % (re.escape(text), num), r"\berrno[ =:]{1,3}%d\b[^\n]{0,40}?%s" % (num, re.escape(text))]
        if len(text) >= _MIN_BARE:
            alts.append(re.escape(text))
        sites.append({"id": "errno.%s" % name.lower(), "name": name, "code": num, "text": text,
                      "re": "(?:%s)" % "|".join(alts), "family": FAMILIES.get(name),
                      "rule": "FAMILIES[%s]" % name if name in FAMILIES else None})
    return {"header": knowgen.header("Python errno.errorcode and os.strerror (glibc strerror) "
                                     "(https://docs.python.org/3/library/errno.html)", version, GENERATOR),
            "sites": sites}


def rows_here():
    out = []
    for num in sorted(errno.errorcode):
        out.append((errno.errorcode[num], num, os.strerror(num)))
    return out, "Python %s, %s %s" % (platform.python_version(), *platform.libc_ver())


def rows_slice(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, num, text = line.rstrip("\n").split("\t")
                out.append((name, int(num), text))
    return out, "slice"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    rows, version = rows_slice(a.slice) if a.slice else rows_here()
    doc = build(rows, version)
    print("%s: %d codes" % (knowgen.write("errno", doc, a.out), len(doc["sites"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
