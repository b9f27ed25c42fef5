#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ompi_messages.json: the Open MPI errors that are not help topics
(those are gen_ompi_help.py's): the transports' BTL_ERROR / BTL_PEER_ERROR formats (opal/mca/btl: tcp, openib,
vader, smcuda, uct, ...: printed '[host][[jobid,vpid],rank][file.c:line:func] text'), the UCX glue's
MCA_COMMON_UCX_ERROR / PML_UCX_ERROR ('pml_ucx.c:424  Error: text'), and the opal_output(0, ...) lines of the
transports, the PML/MTL layers and ORTE's out-of-band TCP and launch (orte/mca/oob, orte/mca/plm), each with a
bounded matcher and the knowledge family from RULES.

Usage:
    python tools/gen_ompi_messages.py --repo /path/to/ompi.git [--rev v4.1.8] [-o OUT]
    python tools/gen_ompi_messages.py --slice tools/data/ompi_messages_slice.txt -o OUT   (the test)

Source: open-mpi/ompi (https://github.com/open-mpi/ompi), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ompi_messages.py"
DIRS = ("opal/mca/btl", "opal/mca/common/ucx", "opal/mca/common/verbs", "ompi/mca/pml", "ompi/mca/mtl",
        "ompi/mca/osc/ucx", "orte/mca/oob", "orte/mca/plm")

# (rule, knowledge entry, {field: regex}); fields: where, text, kind (btl, ucx, output), level (error, warn)
RULES = [
    ("warning", None, {"level": r"^warn$"}),
    ("memlock", "rdma.memlock", {"text": r"memlock|locked memory|ibv_reg_mr|register(?:ed)? memory"}),
    # the TCP BTL's connect() to a peer's address (an address of docker0/virbr0 or another unreachable NIC)
    ("tcp-connect", "mpi.btl_tcp_if", {"where": r"btl/tcp|oob/tcp", "text": r"connect\(\) to %s failed|"
                                                                          r"unable to connect|No route|"
                                                                          r"unable to complete a TCP connection"}),
    ("tcp-if", "mpi.btl_tcp_if", {"where": r"btl/tcp|oob/tcp", "text": r"if_include|if_exclude|interface"}),
    ("launch", "mpi.launch", {"where": r"^orte/mca/(?:plm|oob)/"}),
    # a transport's call failed (a peer gone, the fabric, a resource): the family, told apart by its causes
    ("transport", "mpi.transport", {"kind": r"^(btl|ucx|output)$", "level": r"^error$"}),
]

# The line shapes: BTL_ERROR's '[file.c:line:func] ' (opal/mca/btl/base/btl_base_error.h: __FILE__ may carry a
# relative path), MCA_COMMON_UCX_ERROR's 'file.c:line  Error: ' (opal/mca/common/ucx/common_ucx.h); opal_output(0)
# lines have no prefix of their own: those need 16 literal characters.
BTL_PREFIX = r"\[[\w./-]{1,200}:\d{1,7}:\w{1,100}\][ \t]{0,4}(?:from [^\n]{0,200}?[ \t])?(?:to: [^\n]{0,200}?[ \t])?"
UCX_PREFIX = r"\.c:\d{1,7}[ \t]{1,10}(?:Error|Warning):[ \t]{0,8}"
_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_CALL = re.compile(r"\b(BTL_ERROR|BTL_PEER_ERROR|MCA_COMMON_UCX_ERROR|MCA_COMMON_UCX_WARN|PML_UCX_ERROR|PML_UCX_WARN|"
                   r"opal_output)\s*\(")
_FAILED = re.compile(r"fail|error|unable|cannot|could not|invalid|bad |refused|reset|rejected|unexpected", re.I)


def _format(arg):
    """A call argument as a printf format: literals joined, an inttypes macro (PRIu64) its conversion, any other
    macro (ORTE_NAME_PRINT) a string; None when the argument holds no literal."""
    if not _LIT.search(arg):
        return None
    out = []
    for tok in re.findall(r'"(?:[^"\\\n]|\\.)*"|\w+', arg):
        if tok.startswith('"'):
            out.append(tok[1:-1])
        else:
            conv = knowgen.inttypes(tok)
            if conv and out and out[-1].endswith("%"):
                out[-1] = out[-1] + conv
    fmt = "".join(out).replace('\\"', '"').replace("\\n", " ").replace("\\t", " ")
    return " ".join(fmt.split())


def _banner_lines(arg):
    """A format argument's printed lines, each as a literal argument of its own ('"a\\n" "b\\n"' -> '"a"', '"b"')."""
    text = "".join(m.group(1) for m in _LIT.finditer(arg))
    return ['"%s"' % ln for ln in text.split("\\n") if ln.strip()]


def sites_of(path, src):
    for m in _CALL.finditer(src):
        if src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        name = m.group(1)
        if name == "opal_output":
            # stream 0, and orte_clean_output: the banners ORTE prints between dashed lines without a prefix
            # (oob_tcp_connection.c: 'A process or daemon was unable to complete a TCP connection'), matched on
            # their first printed line as a help topic is
            if len(args) < 2 or args[0].strip() not in ("0", "orte_clean_output"):
                continue
            kind, fmt_arg, level = "output", args[1], "error"
            if args[0].strip() == "orte_clean_output":
                lines = [ln for ln in (_format(x) or "" for x in _banner_lines(fmt_arg)) if re.search(r"[A-Za-z]", ln)]
                fmt_arg = '"%s"' % lines[0].replace('"', '\\"') if lines else ""
        elif name.startswith("BTL_"):
            inner = args[-1].strip()
            if not (inner.startswith("(") and inner.endswith(")")):
                continue
            sub = knowgen.call_args(inner, 1)
            if not sub:
                continue
            kind, fmt_arg, level = "btl", sub[0], "error"
        else:
            kind, fmt_arg, level = "ucx", args[0], "warn" if name.endswith("WARN") else "error"
        fmt = _format(fmt_arg)
        if kind == "output" and fmt:
            # opal_output(0, ...) also prints the launchers' debug lines ('plm:rsh: final top-level argv:') under their
            # verbose flags: only a line that says something failed is a site; a WARNING line is a warning
            if not _FAILED.search(fmt):
                continue
            level = "warn" if re.match(r"(?:%s )?WARNING", fmt) or "Warning:" in fmt else "error"
        if fmt:
            yield kind, level, "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for kind, level, where, fmt in sites_of(path, src):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "ompi.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "level": level,
                    "text": fmt}
            if not knowgen.unanchored(site, rx, literal, 16 if kind == "output" else knowgen.MIN_LITERAL):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "kind": kind, "level": level})
                prefix = {"btl": BTL_PREFIX, "ucx": UCX_PREFIX}.get(kind, "")
                site.update({"re": prefix + rx, "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header("open-mpi/ompi (https://github.com/open-mpi/ompi)", version, GENERATOR,
                                     "BTL_ERROR/BTL_PEER_ERROR, MCA_COMMON_UCX_ERROR/PML_UCX_ERROR and opal_output(0) "
                                     "formats of the transports, PML/MTL and ORTE's oob/plm; families from RULES"),
            "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, DIRS, lambda p: re.search(r"\.[ch]$", p) and "/test" not in p),
            knowgen.revision(git, rev, describe=False))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="v4.1.8")
    return knowgen.emit("ompi_messages", build(*knowgen.source_files(a, from_repo)), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
