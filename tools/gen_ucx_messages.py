#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ucx_messages.json: the messages UCX (openucx/ucx, the
transport under Open MPI's pml ucx, Intel MPI and NCCL's UCX plugin) logs as errors: every
ucs_error / ucs_fatal / ucs_warn / ucs_diag format of src/uct, src/ucp and src/ucs (and ucp_context.c's
API version check), the ucs_status_t
descriptions of src/ucs/type/status.c (ucs_status_string) and the completion-error texts of
src/uct/ib/mlx5/ib_mlx5_log.c, each with a bounded matcher and the knowledge family from RULES.

Usage:
    python tools/gen_ucx_messages.py --repo /path/to/ucx.git [--rev HEAD] [-o OUT]
    python tools/gen_ucx_messages.py --slice tools/data/ucx_messages_slice.txt -o OUT   (the test)

Source: openucx/ucx (https://github.com/openucx/ucx), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ucx_messages.py"

# (rule, knowledge entry, {field: regex}); fields: where, text, kind (log, status, cqe)
RULES = [
    # ibv_reg_mr/ibv_create_cq ENOMEM: the locked-memory limit (UCX >= 1.14 warns about RLIMIT_MEMLOCK itself,
    # https://github.com/openucx/ucx/issues/8229)
    ("memlock", "rdma.memlock", {"text": r"memlock|locked memory|RLIMIT_MEMLOCK|(?<![a-z_])ibv_reg_mr\("}),
    ("reg-mr", "rdma.memlock", {"where": r"ib_md\.c", "text": r"\(address=%p, length=%zu, access=0x%lx\) failed"}),
    ("shm", "container.ucx_shm", {"where": r"/sm/|mm_posix|mm_sysv|mm_xpmem|cma_|knem"}),
    ("shm-status", "container.ucx_shm", {"text": r"^Shared memory error$"}),
    # the program was built against a newer UCX than the libucp it loaded (ucp_context.c, logged at WARN)
    ("version", "ucx.version_mismatch", {"text": r"version is incompatible"}),
    # src/ucp/core/ucp_context.c ucp_report_unavailable: UCX_NET_DEVICES / UCX_TLS (an allow list) name a device or
    # transport this node does not have ('network device 'mlx5_0:1' is not available, please use one or more of:
    # ...'): a warning, but the settings it names are what the job then lacks (the transport or NIC it was meant
    # to use); its own entry tells the causes apart
    ("unavailable", "ucx.config_unavailable", {"text": r"not available, please use one or more of"}),
    # a warning (ucs_warn, ucs_diag) is context, not the failure: no family
    ("warning", None, {"kind": r"^log$", "level": r"^(warn|diag)$"}),
    ("ep-timeout", "rdma.gid_index", {"text": r"unhandled timeout|^Transport retry count exceeded$|^Endpoint timeout$"}),
    ("log", "mpi.error", {"kind": r"^log$"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign-sites): the completion-error syndromes of ib_mlx5_log.c
    # (uct_ib_mlx5_completion_with_err) the rules above leave: the adapter failed a work request; which side and why is
    # in the syndrome (knowledge/rdma_context.toml tells them apart). 'WR flushed because QP in error state' is logged
    # at trace level there (the echo of the queue pair's first error, never printed by default): not a failure.
    ("not a failure: a flushed work request, logged at trace level", None, {"kind": r"^cqe$", "text": r"^WR flushed"}),
    ("ctx-cqe", "rdma.completion_error", {"kind": r"^cqe$"}),
    ("status", "mpi.error", {"kind": r"^status$", "text": r"unreachable|No such device|Connection reset|"
                                                          r"not connected|Operation timed out"}),
]

LEVELS = {"ucs_error": "ERROR", "ucs_fatal": "FATAL", "ucs_warn": "WARN", "ucs_diag": "DIAG"}
# ucs_log(level, fmt, ...) with a level chosen at run time (mm_posix.c's open() error) counts as an error;
# ib_md.c builds its memory-registration error in a string buffer ('%s(address=%p, ...) failed: %s'), and
# ib_log.c's uct_ib_memlock_limit_msg appends ' : Please set max locked memory (ulimit -l) ...' to it
_CALL = re.compile(r"\b(ucs_error|ucs_fatal|ucs_warn|ucs_diag|ucs_log\s*\(\s*\w+\s*,"
                   r"|ucs_string_buffer_appendf\s*\(\s*(?:&msg|message)\s*,)\s*\(?")
# ucp_init_version's check (src/ucp/core/ucp_context.c) builds its text in a string buffer and logs it at
# WARN (UCX_VERSION_CHECK... version_error_mode): 'UCP API version is incompatible: required >= %d.%d, actual
# %s' then ' (loaded from %s)'
_VERSION = re.compile(r'ucs_string_buffer_appendf\s*\(\s*&strb\s*,\s*(?="[^"\n]{0,40}version is incompatible)')
_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')

# The line every UCX log message is printed in (src/ucs/debug/log.c UCS_LOG_FMT: '[time] [host:pid:tid]
# file.c:line  UCX  ERROR message'; ucs_fatal, src/ucs/debug/assert.h: 'file.c:line  Fatal: message'):
# a site needs it, so a short format never matches another program's words.
LOG_PREFIX = (r"\.(?:c|h|inl):\d{1,6}\s{1,40}(?:UCX\s{1,10}(?:FATAL|ERROR|WARN|DIAG)|Fatal:)"
              r"\s{1,100}[^\n]{0,200}?")
# a ucs_status_string() text (ucp_ep_create() failed: Shared memory error) needs UCX words on its line
STATUS_PREFIX = r"(?:UCX|ucx|uc[pst]_\w{0,60})[^\n]{0,200}?"
# a completion syndrome is also matched where ib_mlx5_log.c prints it (uct_ib_mlx5_completion_with_err: ucs_log(
# '%s on <dev>:<port>/<IB|RoCE> (synd 0x%x ...)'), at ERROR level or, fatal, through ucs_handle_error's
# '[host:pid:tid:tid] ib_mlx5_log.c:177  Local protection on mlx5_0:1/IB (synd 0x4 ...' (openucx/ucx#9515), which
# carries no 'UCX'; UCX up to v1.15 wrote the syndromes without their last word (v1.15.0: "Local protection",
# "Remote access"; v1.16.0: "Local protection error"): that word is optional there
CQE_PREFIX = r"ib_mlx5_log\.c:\d{1,6}\s{1,40}(?:UCX\s{1,10}(?:FATAL|ERROR|WARN|DIAG)\s{1,40})?"


def _cqe_regex(rx):
    """The matcher of a completion syndrome's text ``rx`` (escaped): after UCX words, or where ib_mlx5_log.c prints it
    (CQE_PREFIX ... ' on '), its trailing '\\ error' optional there."""
    at = rx[:-len(r"\ error")] + r"(?:\ error)?" if rx.endswith(r"\ error") else rx
    return "(?:%s%s|%s%s\\ on\\ )" % (STATUS_PREFIX, rx, CQE_PREFIX, at)


def _first_arg(src, i):
    """The format argument of a call whose '(' ends at src[i-1], as a printf format: literals
    concatenated, an inttypes macro (PRIx64) its conversion, any other macro (UCT_UD_EP_PEER_NAME_FMT) %s.
    None when it is no literal (a variable format)."""
    out, n, depth, seen_lit = [], len(src), 0, False
    while i < n:
        c = src[i]
        if c == '"':
            m = _LIT.match(src, i)
            if not m:
                return None
            out.append(m.group(1))
            seen_lit = True
            i = m.end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        elif c.isalpha() or c == "_":
            m = re.compile(r"\w+").match(src, i)
            w = m.group(0)
            conv = knowgen.inttypes(w)
            out.append(conv if conv and out and out[-1].endswith("%") else "%s")
            i = m.end()
            continue
        i += 1
    if not seen_lit:
        return None
    fmt = "".join(out).replace('\\"', '"').replace("\\n", " ").replace("\\t", " ")
    return re.sub(r"%m", "%s", fmt)  # glibc's %m: strerror(errno)


def sites_of(path, src):
    if path.endswith("type/status.c"):
        for m in re.finditer(r"case (UCS_ERR_\w+):\s*return \"([^\"]+)\";", src):
            yield "status", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), m.group(2), m.group(1)
        return
    if path.endswith("ib_mlx5_log.c"):
        for m in re.finditer(r'snprintf\(err_info, sizeof\(err_info\),\s*"([^"]+)"', src):
            yield "cqe", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), m.group(1), None
    for m in _CALL.finditer(src):
        fmt = _first_arg(src, m.end())
        if fmt is None or src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        yield "log", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt, LEVELS.get(m.group(1), "ERROR")
    for m in _VERSION.finditer(src):
        fmt = _first_arg(src, m.end())
        if fmt:
            yield "log", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt, "WARN"


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for kind, where, fmt, extra in sites_of(path, src):
            if (kind, fmt) in seen:
                continue
            seen.add((kind, fmt))
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "ucx.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "text": fmt}
            if kind == "status":
                site["code"] = extra
            elif kind == "log":
                site["level"] = extra.lower()
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "kind": kind,
                                                             "level": site.get("level", "")})
                if rule == "reg-mr":  # ENOMEM only: EFAULT ('Bad address', openucx/ucx#8999) is another story
                    rx += r"\ Cannot\ allocate\ memory"
                if kind == "cqe":
                    rx = _cqe_regex(rx)
                else:
                    rx = (STATUS_PREFIX if kind != "log" else LOG_PREFIX) + rx
                site.update({"re": rx,
                             "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header("openucx/ucx (https://github.com/openucx/ucx)", version, GENERATOR,
                                     "ucs_error/ucs_fatal/ucs_warn/ucs_diag formats of src/uct, src/ucp, src/ucs, "
                                     "ucs_status_t descriptions and mlx5 completion errors; families from the "
                                     "RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, ("src/uct", "src/ucp", "src/ucs"),
                               lambda p: re.search(r"\.(c|h|inl)$", p) and "/test" not in p),
            knowgen.revision(git, rev))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    return knowgen.emit("ucx_messages", build(*knowgen.source_files(a, from_repo)), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
