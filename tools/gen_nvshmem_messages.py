#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nvshmem_messages.json: what NVSHMEM (the GPU-initiated
communication library under DeepEP, some MoE kernels and cuFFTMp) prints when it fails, each message turned into a
bounded matcher and assigned to a knowledge family (nvshmem.toml) by the RULES table below.

NVSHMEM prints its errors through the macros of src/include/non_abi/nvshmemx_error.h, each with a prefix of its own
before the call's format: NVSHMEMI_NULL_ERROR_JMP '<file>:<line>: NULL value ', NVSHMEMI_NZ_ERROR_JMP /
NE_ERROR_JMP / ERROR_JMP '<file>:<line>: non-zero status: <n> ', EQ_ERROR_JMP '<file>:<line>: error status: <n> ',
NVSHMEMI_ERROR_PRINT / ERROR_EXIT '<file>:<function>:<line>: ', NVSHMEMI_NZ_EXIT '<file>:<line>: non-zero status:
<n>: <strerror>, exiting... ', NVSHMEMI_CHECK_ERROR_JMP '<file>:<line>: '. <file> is the compiler's __FILE__, the
build machine's path, so a site is matched on the file's own name, the prefix and the format
('ibgda.cpp:<n>: NULL value Unable to create ah.'): the file's name anchors even a short message. This generator
reads every such call of src/ (its format argument's adjacent literals) and the macro headers themselves (each
macro's prefix, so that a changed prefix changes the matchers), with the bootstrap plugins' own copies of the macros
(src/modules/bootstrap/common/bootstrap_util.h: BOOTSTRAP_ERROR_PRINT, BOOTSTRAP_NZ_ERROR_JMP, ...). NVSHMEMI_WARN_PRINT ('WARN: ...' on stdout: NVSHMEM goes on)
is recorded, unassigned, and so is a transport NVSHMEM skips and goes on without.

Usage:
    python tools/gen_nvshmem_messages.py --repo /path/to/nvshmem.git [--rev REV] [-o OUT]
    python tools/gen_nvshmem_messages.py --slice tools/data/nvshmem_messages_slice.txt -o OUT   (the test)

Source: NVIDIA/nvshmem (https://github.com/NVIDIA/nvshmem), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nvshmem_messages.py"
SOURCE = "NVIDIA/nvshmem (https://github.com/NVIDIA/nvshmem) src/ (the nvshmemx_error.h macros' calls)"
HEADER = "src/include/non_abi/nvshmemx_error.h"
# the bootstrap plugins' own copies of the macros (PMI, PMI-2, PMIx, MPI, SHMEM, UID: src/modules/bootstrap/)
BOOT_HEADER = "src/modules/bootstrap/common/bootstrap_util.h"
HEADERS = (HEADER, BOOT_HEADER)
# each macro: the index of its format argument
FORMAT_ARG = {"NVSHMEMI_NULL_ERROR_JMP": 4, "NVSHMEMI_NZ_ERROR_JMP": 3, "NVSHMEMI_NE_ERROR_JMP": 4,
              "NVSHMEMI_EQ_ERROR_JMP": 4, "NVSHMEMI_ERROR_JMP": 3, "NVSHMEMI_ERROR_PRINT": 0,
              "NVSHMEMI_ERROR_EXIT": 0, "NVSHMEMI_WARN_PRINT": 0, "NVSHMEMI_NZ_EXIT": 1,
              "NVSHMEMI_CHECK_ERROR_JMP": 4,
              "BOOTSTRAP_ERROR_PRINT": 0, "BOOTSTRAP_NE_ERROR_JMP": 4, "BOOTSTRAP_NZ_ERROR_JMP": 3,
              "BOOTSTRAP_NULL_ERROR_JMP": 4}
_CALL = re.compile(r"(?<![A-Za-z0-9_])(%s)\s*\(" % "|".join(sorted(FORMAT_ARG, key=len, reverse=True)))

# A message's family, by the file that prints it (and its text): the first rule that matches wins.
RULES = [
    ("warning", None, {"macro": r"^NVSHMEMI_WARN_PRINT$"}),
    # a transport NVSHMEM leaves out and goes on without ('... Skipping transport.': no peermem, no libibverbs on a
    # node that then runs over NVLink alone), and the transports' unimplemented show-info hook: not a failure
    ("not a failure: skipped and went on", None, {"text": r"Skipping|show info not implemented"}),
    # the heap every PE maps the same size of (NVSHMEM_SYMMETRIC_SIZE, src/include/host/env/env_defs.h)
    ("heap", "nvshmem.heap", {"where": r"^src/host/mem/", "text": r"heap|symmetric|malloc|alloc|size|memory"}),
    # how the PEs find each other before any transport: PMI / PMI-2 / PMIx, MPI, SHMEM, UID (NVSHMEM_BOOTSTRAP)
    ("bootstrap", "nvshmem.bootstrap", {"where": r"^src/(?:modules|host)/bootstrap/"}),
    # the remote transports (NVSHMEM_REMOTE_TRANSPORT: ibrc, ucx, libfabric, ibdevx; IBGDA with
    # NVSHMEM_IB_ENABLE_IBGDA) and the host code that connects them
    ("transport", "rdma.nvshmem_transport", {"where": r"^src/modules/transport/|^src/host/transport/"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"nvshmem malloc failed \(hint: check if total allocation has exceeded NVSHMEM symmetric size",
     "nvshmem_malloc / nvshmem_calloc asked for more than the symmetric heap has left (NVSHMEM_SYMMETRIC_SIZE, "
     "{%1|the size} bytes, is what every PE reserves).",
     ["export NVSHMEM_SYMMETRIC_SIZE=<larger, e.g. 4G> before the program starts (every PE the same), or allocate "
      "less symmetric memory (DeepEP: fewer max tokens per rank / num_nvl_bytes, num_rdma_bytes)"]),
]


def prefixes(header):
    """{macro: the text it prints before the call's format, as a printf format with the file as '%s' first}, read
    from the macro header (its first fprintf(stderr|stdout, "...") line)."""
    out = {}
    for m in re.finditer(r"#define ((?:NVSHMEMI|BOOTSTRAP)_\w+)\((?:[^)]*)\)((?:[^\n]*\\\n)+[^\n]*)", header):
        first = re.search(r"fprintf\((?:stderr|stdout),\s*(\"(?:[^\"\\]|\\.)*\")\s*(,|\))", m.group(2))
        if m.group(1) in FORMAT_ARG and first and first.group(2) == ",":
            out[m.group(1)] = knowgen.c_unescape(first.group(1)[1:-1])
        elif m.group(1) in FORMAT_ARG and first:  # 'WARN: ' (no arguments of its own)
            out[m.group(1)] = knowgen.c_unescape(first.group(1)[1:-1])
    return out


def sites_of(path, src):
    """(macro, where, format) of each error macro's call in a file."""
    for m in _CALL.finditer(src):
        if src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        args = knowgen.call_args(src, m.end())
        i = FORMAT_ARG[m.group(1)]
        if not args or len(args) <= i:
            continue
        fmt = knowgen.c_format(args[i], 0)
        if not fmt or not fmt.strip():
            continue
        yield m.group(1), "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt.strip().split("\n")[0].strip()


def printed(prefix, path, fmt):
    """The whole line as a printf format: the macro's prefix with its first '%s' (__FILE__) as the file's own name."""
    name = os.path.basename(path).replace("%", "%%")
    return prefix.replace("%s", name, 1) + fmt if prefix.startswith("%s") else prefix + fmt


def build(files, version):
    by_path = dict(files)
    pre = {}
    for h in HEADERS:
        pre.update(prefixes(by_path.get(h, "")))
    missing = sorted(set(FORMAT_ARG) - set(pre))
    if missing:
        raise SystemExit("%s: no prefix read for %s" % (" / ".join(HEADERS), ", ".join(missing)))
    sites, seen, ids = [], set(), set()
    for path, src in files:
        if path in HEADERS or not path.endswith((".c", ".cpp", ".cu", ".h")):
            continue
        for macro, where, fmt in sites_of(path, src):
            line = printed(pre[macro], path, fmt)
            if line in seen:
                continue
            seen.add(line)
            site = {"id": knowgen.unique_id("nvshmem.%s" % knowgen.slug(where), ids), "where": where,
                    "level": "warn" if macro == "NVSHMEMI_WARN_PRINT" else "error", "text": line}
            rx, lit = knowgen.printf_to_regex(line)
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "macro": macro})
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, line)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "each nvshmemx_error.h macro's call: its prefix with the file's own name, then "
                                     "the format; families from the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("src",), lambda p: p.endswith((".c", ".cpp", ".cu")) or p in HEADERS)
    # the release the tree builds (CMakeLists.txt's project VERSION; the mirror's tags are older releases)
    v = re.search(r"^\s*VERSION\s+([0-9][0-9.]*)", git("show", "%s:CMakeLists.txt" % rev), re.M)
    return files, "%s (commit %s)" % (v.group(1) if v else "?", git("rev-parse", rev + "^{commit}").strip())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("nvshmem_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
