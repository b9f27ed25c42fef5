#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ucc_messages.json: the errors UCC (openucx/ucc, the collective
library under torch's ProcessGroupUCC, Open MPI's coll/ucc and NVIDIA's HPC-X) logs: every ucc_error / ucc_warn /
ucc_fatal format and every tl_error / tl_warn / cl_error / cl_warn / mc_error / ec_error / ec_warn one of src/
(the transport layers: ucp, cuda, nccl, sharp, mlx5, self; the CL, memory and execution components), each with a
bounded matcher behind UCC's log prefix and the knowledge family (ucc.toml's mpi.ucc_* entries, or mpi.error) from RULES. It sits beside the UCX
table (tools/gen_ucx_messages.py): UCC runs over UCX, whose own lines that one reads.

Usage:
    python tools/gen_ucc_messages.py --repo /path/to/ucc.git [--rev HEAD] [-o OUT]
    python tools/gen_ucc_messages.py --slice tools/data/ucc_messages_slice.txt -o OUT   (the test)

Source: openucx/ucc (https://github.com/openucx/ucc), read with `git show REV:path`. The variables
(UCC_TLS, UCC_CLS, UCC_TL_<NAME>_TUNE ...) are described in its docs/user_guide.md and `ucc_info -caf`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ucc_messages.py"

# The macros and which argument is the format (src/utils/debug/log_def.h, src/utils/ucc_assert.h,
# src/components/{tl,cl}/ucc_{tl,cl}_log.h, src/components/{mc,ec}/ucc_{mc,ec}_log.h): 0 = the first
CALLS = {"ucc_error": 0, "ucc_warn": 0, "ucc_fatal": 0, "tl_error": 1, "tl_warn": 1, "cl_error": 1, "cl_warn": 1,
         "mc_error": 1, "mc_warn": 1, "ec_error": 1, "ec_warn": 1}
_CALL = re.compile(r"\b(%s)\(" % "|".join(CALLS))

# UCC's log line (src/utils/debug/log.c UCC_LOG_FMT / UCC_LOG_SHORT_FMT: '[time] [host:pid:thread]
# file.c:line COMPONENT LEVEL message', the component 'UCC', 'TL_UCP', 'TL_CUDA', 'CL_BASIC', 'cuda mc' ...): a site
# needs it, so that a short format never matches another program's words (nor UCX's line: 'UCX  ERROR')
PREFIX = (r"\.(?:c|h|cu|cc):\d{1,6}\s{1,20}(?!UCX\s)[A-Za-z_][A-Za-z_ ]{1,19}\s(?:FATAL|ERROR|WARN)\s{1,40}[^\n]{0,200}?")

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    # which transport layers a context or team got: a TL that did not load (its library missing: libnccl,
    # libcuda, libsharp) or was not asked for in UCC_TLS
    ("tl-select", "mpi.ucc_tl_selection", {"text": r"no TLs are selected|is not part of the context|required TL|"
                                               r"lib_init failed for component|failed to (?:load|open) .{0,20}"
                                               r"component|no (?:tl|TL|cl|CL)s? (?:available|found|were selected)|"
                                               r"is not available|not supported by any TL|no (?:tl|cl) lib"}),
    # GPU memory shared between the ranks of a node: CUDA IPC handles (tl/cuda), cudaIpc* across containers
    ("cuda-ipc", "mpi.ucc_cuda_ipc", {"text": r"cudaIpc|ipc mem ?handle|cuda_ipc|ipc cache"}),
    ("warning", None, {"level": r"^warn$"}),
    ("error", "mpi.error", {"level": r"^(?:error|fatal)$"}),
]

# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^no TLs are selected for %s$",
     "UCC's {%1|CL} found no transport layer to run collectives with: every TL it tried failed to load (its "
     "library, libucp, libnccl or libcuda, not found) or UCC_TLS excludes them.",
     ["ucc_info -s   (the TLs this UCC can load; an empty list means their libraries are missing)",
      "unset UCC_TLS (or list TLs ucc_info shows: UCC_TLS=ucp,cuda,nccl); put the UCX and NCCL libraries UCC was "
      "built with on LD_LIBRARY_PATH"]),
    (r"^lib_init failed for component: %s$",
     "UCC could not initialise its component {%1|<component>} (usually after 'no TLs are selected'): the line "
     "before it says why.",
     ["read the UCC ERROR line printed just before this one; ucc_info -s"]),
]


def sites_of(path, src):
    for m in _CALL.finditer(src):
        args = knowgen.call_args(src, m.end())
        if not args or len(args) <= CALLS[m.group(1)]:
            continue
        arg = args[CALLS[m.group(1)]]
        fmt = knowgen.c_format(arg, 0, macro=r"UCC_\w+_FMT|PRI\w+|UCS_\w+_FMT")
        if fmt is None:
            continue
        level = {"warn": "warn", "fatal": "fatal"}.get(m.group(1).rsplit("_", 1)[1], "error")
        yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt, level


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for where, fmt, level in sites_of(path, src):
            fmt = " ".join(fmt.replace("%m", "%s").split())
            if fmt in seen:
                continue
            seen.add(fmt)
            site = {"id": knowgen.unique_id("ucc." + knowgen.slug(where), ids), "where": where, "text": fmt,
                    "level": level}
            rx, literal = knowgen.printf_to_regex(fmt)
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                site.update({"re": PREFIX + rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("openucx/ucc (https://github.com/openucx/ucc)", version, GENERATOR,
                                     "ucc_error/ucc_warn/ucc_fatal and tl_/cl_/mc_/ec_ error and warn formats of "
                                     "src/; families from the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, ("src",), lambda p: re.search(r"\.(c|h|cu|cc)$", p) and "/test" not in p),
            knowgen.revision(git, rev, untagged="untagged"))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    doc = build(*knowgen.source_files(a, from_repo))
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("ucc_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
