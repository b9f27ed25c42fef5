#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/mpich_messages.json: the errors MPICH (pmodels/mpich, also
the base of Intel MPI, MVAPICH and Cray MPICH) can print: the texts of every errnames.txt (what
MPIR_Err_create_code's error stack prints, `func(line)....: text`), the `OFI call <name> failed` texts
that maint/extracterrmsgs makes for each MPIDI_OFI_CALL* (ch4/ofi), and the Hydra process manager's
(mpiexec / proxy) error formats: HYDU_ERR_POP / HYDU_ERR_SETANDJUMP / HYDU_ERR_CHKANDJUMP /
HYDU_error_printf / HYDU_warn_printf, HYDU_ASSERT's `assert (cond) failed`, and the banner of a process
that ended badly (`BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES`, `YOUR APPLICATION TERMINATED
WITH THE EXIT STRING`). Each site gets a bounded matcher that needs MPICH's own line shape, and the
knowledge family from RULES.

Usage:
    python tools/gen_mpich_messages.py --repo /path/to/mpich.git [--rev HEAD] [--older v4.2.3,v4.1.3,v4.0.3,v3.4.3]
                                       [-o OUT]
    python tools/gen_mpich_messages.py --slice tools/data/mpich_messages_slice.txt -o OUT   (the test)

Source: pmodels/mpich (https://github.com/pmodels/mpich), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_mpich_messages.py"

# (rule, knowledge entry, {field: regex}); fields: kind (errname, ofi_call, hydra, assert, banner), key (the
# errnames key, **name), where (file:line), text, level (error, warn)
RULES = [
    # a warning (HYDU_warn_printf; only printed by a hydra built with --enable-warnings) is context
    ("warning", None, {"kind": r"^hydra$", "level": r"^warn$"}),
    # the banner mpiexec prints when a rank ended badly (pmiserv_cb.c, mpiexec.c): the echo of that rank
    ("rank-died", "mpi.rank_died", {"kind": r"^banner$"}),
    # hydra's control socket to a proxy closed (pmiserv_cb.c / pmip_cb.c HYDU_ASSERT(!closed)): a node's
    # proxy or a rank went away first
    ("closed", "mpi.rank_died", {"kind": r"^assert$", "text": r"\(!closed\)"}),
    # what hydra prints after a proxy's connection closed or a rank ended (the event loop's and the waits' errors,
    # 'one of the processes terminated badly'): echoes of that rank, never the launch's own failure
    ("hydra-echo", "mpi.rank_died", {"kind": r"^(hydra|assert)$",
                                     "text": r"callback returned error status|demux engine error|error waiting for "
                                             r"(?:event|completion)|terminated badly|error cleaning up|unable to "
                                             r"cleanup|error in waiting for event"}),
    ("exec", "mpi.exec_not_found", {"text": r"execvp|unable to find (?:the )?executable|executable not found"}),
    # hydra's own command line (utils/args/args.c match_arg / HYDU_parse_array): an option this mpiexec does not have;
    # that it is Open MPI's (the other mpirun) is mpi.implementation_mismatch's own pattern, by the option's name
    ("args", "mpi.hydra_option", {"text": r"unrecognized argument|argument matching returned error"}),
    ("memlock", "rdma.memlock", {"text": r"memlock|locked memory|ibv_reg_mr|register memory"}),
    ("iface", "mpi.mpich_iface", {"text": r"network interface|\biface\b|ifaddr|find interface|interface name|"
                                          r"interface selection"}),
    ("hostname", "mpi.hostname", {"text": r"gethostbyname|getaddrinfo|\bresolve\b|local hostname|host ?name|host address"}),
    ("hostfile", "mpi.mpich_launch", {"text": r"host ?file|machine ?file|host list|node ?list|nodefile"}),
    # a memory registration that failed for lack of locked memory (libfabric prints the errno's text)
    ("mr-reg", "rdma.memlock", {"key": r"^\*\*ofid_mr_reg"}),
    # opening the fabric: no provider, the wrong one, or nodes that differ (ofi_init.c / init_provider.c)
    ("ofi-provider", "mpi.ofi_provider", {"key": r"^\*\*ofi(?:_provider|_num_nics|_no_prov|d_getinfo|d_fabric|"
                                                 r"d_opendomain|d_avopen|d_avmap|d_getname|d_ep$|d_ep_enable|"
                                                 r"d_av_insert|d_addrinfo)"}),
    ("ofi", "mpi.transport", {"kind": r"^(errname|ofi_call)$", "key": r"^\*\*ofi"}),
    ("ucx", "mpi.transport", {"key": r"^\*\*ucx"}),
    ("pmi", "mpi.pmi", {"key": r"^\*\*pmi|^\*\*pmix"}),
    # the PMI client in the rank (src/pmi, src/pmi/simple and pmi2/simple before 4.1): its own failures
    ("pmi-client", "mpi.pmi", {"kind": r"^pmi(?:_perror)?$"}),
    ("shm", "shm.size", {"key": r"shar_mem|^\*\*shm|^\*\*alloc_shar"}),
    ("nomem", "errno.enomem", {"key": r"^\*\*nomem"}),
    # ch3's sock / nemesis tcp: the connection between two ranks
    ("sock", "mpi.transport", {"kind": r"^errname$", "where": r"ch3/channels/sock|ch3/util/sock|sock",
                               "text": r"connect|socket|\bsock\b|read|write|closed|peer|network"}),
    ("tcp", "mpi.transport", {"kind": r"^errname$", "text": r"connection|\bconnect\b|socket|peer|network|"
                                                            r"communication (?:failure|error)|refused"}),
    # the arguments of an MPI call: a bug in the program's use of MPI
    ("usage", "mpi.usage", {"kind": r"^errname$", "key": r"^\*\*(?:arg|count|rank|comm|type|dtype|tag|buf|root|op|"
                                                         r"group|win|info|keyval|errhandler|request|truncate|dims|"
                                                         r"topo|null|init|finalized|session|intern|notimpl|"
                                                         r"toomany|size|permattr|attr)"}),
    ("errname", "mpi.mpich_error", {"kind": r"^(errname|ofi_call)$"}),
    # the rest of hydra's messages: the launch (proxies, sockets to them, the bootstrap server)
    ("hydra", "mpi.mpich_launch", {"kind": r"^(hydra|assert)$"}),
]

# The line shapes MPICH prints, so that a short text never matches another program's words:
# - an error-stack line (errutil.c MPIR_Err_print_stack_string: 'func(line)......: text') or the head of
#   the stack ('Fatal error in PMPI_Init: Other MPI error, error stack:'; MPICH 4: 'Abort(N) on node 0 (rank 0
#   in comm 0): Fatal error in ...')
# (the function name before '(line)' is not part of the matcher: a pattern that starts with a repetition is tried at
# every position of a line; one that starts with '(' or 'F' is skipped quickly where neither is)
STACK_PREFIX = r"(?:\(\d{1,7}\)\.{0,200}:|Fatal error in [^\n:]{1,200}:)[ \t]{0,8}"
# - hydra's HYDU_error_printf ('[mpiexec@host] func (file.c:line): text'; older releases' paths differ)
HYDRA_PREFIX = r" \([\w./-]{1,200}\.[ch]:\d{1,7}\):[ \t]{0,8}"

_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_HYDRA_CALL = re.compile(r"\b(HYDU_ERR_POP|HYDU_ERR_SETANDJUMP|HYDU_ERR_CHKANDJUMP|HYDU_error_printf|"
                         r"HYDU_warn_printf|HYDU_ASSERT)\s*\(")
_BANNER = re.compile(r'(?:HYDU_dump_noprefix\s*\(\s*stdout\s*,\s*|printf\s*\(\s*)"((?:=   )?(?:BAD TERMINATION|'
                     r'EXIT CODE|YOUR APPLICATION TERMINATED|This typically refers)[^"]*)"')
# The PMI client's messages (src/pmi/src/pmi_util.c PMIU_printf: '[<id>]: ' then the format, the id 'unset'
# before the rank is known; perror() for a failed exec of the singleton's mpiexec): the always-printed ones
# (print flag 1) that say something failed
_PMI_CALL = re.compile(r"\b(PMIU_printf\s*\(\s*1\s*,|perror\s*\()\s*")
_PMI_FAILED = re.compile(r"fail|error|unable|not compatible|unexpected|expecting|too big|attempted to access|"
                         r"not in your path|refused|timeout|called before init", re.I)
PMI_PREFIX = r"\[[^\]\n]{1,40}\]:[ \t]{0,8}"
_OFI_CALL = re.compile(r"^\s*MPIDI_OFI_(?:CALL|CALL_RETRY|CALL_RETRY_AM|VCI_CALL)\b\s*\(", re.M)
# MPICH's own conversions (errutil.c MPIR_Err_create_code: %C communicator, %D datatype, %L long long,
# %W window, %R request, %O op, %G group, %I info, %K keyval, %E errhandler, %F file; %i a rank and %t a tag,
# printed as MPI_ANY_SOURCE / MPI_ANY_TAG or a number) print a name or a number
_MPICH_CONV = re.compile(r"%([A-WYZit])")


def _fmt(lits):
    fmt = "".join(lits).replace('\\"', '"').replace("\\n", " ").replace("\\t", " ").strip()
    return _MPICH_CONV.sub("%s", fmt)


def _format_arg(args, index):
    """The printf format of a call's argument (string literals concatenated), or None."""
    if len(args) <= index:
        return None
    lits = _LIT.findall(args[index])
    if not lits or re.sub(_LIT, "", args[index]).strip():
        return None  # a variable or a macro: no literal text to match
    return _fmt(lits)


def _line(src, pos):
    return src.count("\n", 0, pos) + 1


# the outermost line of a stack names the MPI call and its arguments ('MPI_Send(buf=0x.., count=1, ...) failed'; older
# releases list one such text per function, later ones generate them at build time): the call, not what failed
_BINDING = re.compile(r"^P?MPI[XT]?_\w+(?:\(.*\))? failed$")


def errname_sites(path, src):
    """(key, text) of each `**key[ fmt...]:text` line of an errnames.txt (# comments and the MPI calls'
    own 'MPI_X(...) failed' lines skipped)."""
    for i, ln in enumerate(src.split("\n"), 1):
        m = re.match(r"^(\*\*[\w-]+)((?: %\w)*):(.*)$", ln)
        if m and m.group(3).strip() and not _BINDING.match(m.group(3).strip()):
            yield "%s:%d" % (path, i), m.group(1), _MPICH_CONV.sub("%s", m.group(3).strip().replace('\\"', '"'))


def source_sites(path, src):
    """(kind, where, text, level) of hydra's error calls, asserts and banner, and ch4/ofi's OFI calls."""
    if "/pm/hydra/" in path or path.startswith("pm/hydra/"):
        for m in _HYDRA_CALL.finditer(src):
            if src[max(0, m.start() - 8):m.start()].endswith("define "):
                continue
            args = knowgen.call_args(src, m.end())
            if args is None:
                continue
            name = m.group(1)
            if name == "HYDU_ASSERT":
                cond = " ".join(args[0].split()) if args else ""
                yield "assert", "%s:%d" % (path, _line(src, m.start())), "assert (%s) failed" % cond, "error"
                continue
            index = {"HYDU_ERR_POP": 1, "HYDU_ERR_SETANDJUMP": 2, "HYDU_ERR_CHKANDJUMP": 3}.get(name, 0)
            fmt = _format_arg(args, index)
            if fmt:
                yield ("hydra", "%s:%d" % (path, _line(src, m.start())), fmt,
                       "warn" if name == "HYDU_warn_printf" else "error")
        for m in _BANNER.finditer(src):
            text = _fmt([m.group(1)])
            yield ("banner", "%s:%d" % (path, _line(src, m.start())), text.lstrip("= ").strip(),
                   "boxed" if text.startswith("=") else "error")
    if "/pmi/" in path:
        for m in _PMI_CALL.finditer(src):
            args = knowgen.call_args(src, m.end())
            fmt = _format_arg(args, 0) if args else None
            if fmt and _PMI_FAILED.search(fmt):
                yield ("pmi" if m.group(1).startswith("PMIU") else "pmi_perror",
                       "%s:%d" % (path, _line(src, m.start())), fmt, "error")
    if "/ofi/" in path:
        for m in _OFI_CALL.finditer(src):
            args = knowgen.call_args(src, m.end())
            if args and re.fullmatch(r"\w+", args[-1] or ""):
                # maint/extracterrmsgs: MPIDI_OFI_CALL*(..., NAME) -> '**ofid_NAME %s %s:OFI call NAME failed
                # (default nic=%s: %s)'
                yield ("ofi_call", "%s:%d" % (path, _line(src, m.start())),
                       "OFI call %s failed (default nic=%%s: %%s)" % args[-1], "**ofid_%s" % args[-1])


def _site(kind, where, text, key=None, level="error"):
    rx, literal = knowgen.printf_to_regex(text)
    site = {"id": "mpich.%s.%s" % (kind, knowgen.slug(key or where)), "where": where, "kind": kind, "text": text}
    if key:
        site["key"] = key
    if kind == "hydra":
        site["level"] = level
    if knowgen.unanchored(site, rx, literal):
        return site
    rule, family = knowgen.assign(RULES, site, {"kind": kind, "key": key or "", "where": where, "text": text,
                                                "level": level})
    if rule == "mr-reg":
        # ENOMEM only (fi_strerror(FI_ENOMEM) is strerror's 'Cannot allocate memory'); EFAULT, EINVAL are other stories
        if rx.endswith(r"[^\n]{0,200}\)"):
            rx = rx[:-len(r"[^\n]{0,200}\)")] + r"Cannot\ allocate\ memory\)"
        else:  # the text without the error's string: any registration failure
            rule, family = "mr-reg-no-errno", "mpi.transport"
    prefix = {"errname": STACK_PREFIX, "ofi_call": STACK_PREFIX, "hydra": HYDRA_PREFIX, "assert": HYDRA_PREFIX,
              "pmi": PMI_PREFIX,
              # the banner's lines start with '=   ' (pmiserv_cb.c), except the exit-string lines (mpiexec.c)
              "banner": r"=[ \t]{1,8}" if level == "boxed" else ""}
    site.update({"re": prefix.get(kind, "") + rx, "family": family, "rule": rule})
    return site


def _collect(files, sites, seen, tag):
    for path, src in files:
        if path.endswith("errnames.txt"):
            found = [("errname", where, text, key, "error") for where, key, text in errname_sites(path, src)]
        else:
            found = [(kind, where, text, extra if kind == "ofi_call" else None,
                      extra if kind in ("hydra", "banner") else "error")
                     for kind, where, text, extra in source_sites(path, src)]
        for kind, where, text, key, level in found:
            dedup = (kind if kind != "ofi_call" else "errname", text)
            if dedup in seen:
                continue
            seen.add(dedup)
            site = _site(kind, where, text, key, level)
            if tag:
                site["until"] = tag
                site["id"] = site["id"].replace("mpich.", "mpich.%s." % re.sub(r"[^a-z0-9]+", "_", tag.lower()), 1)
            sites.append(site)


def build(files, version, older=()):
    """Sites of `files` (the pinned revision), then, for each (tag, files) of `older` (newest first), the
    texts only that older release prints (reworded or removed since, still printed by the MPICH, Intel MPI
    or MVAPICH builds that jobs run), each with `until`: the newest of the tags read that prints it."""
    sites, seen = [], set()
    for tag, tfiles in [(None, files)] + list(older):
        _collect(tfiles, sites, seen, tag)
    ids = set()
    for s in sites:  # ids unique (a key has a generic and a specific text; an assert is per line)
        s["id"] = knowgen.unique_id(s["id"], ids)
    if older:
        version += "; older texts from %s" % ", ".join(t for t, _ in older)
    return {"header": knowgen.header("pmodels/mpich (https://github.com/pmodels/mpich)", version, GENERATOR,
                                     "errnames.txt texts (MPIR_Err_create_code's error stack), ch4/ofi's OFI call "
                                     "texts, Hydra's HYDU_ERR_*/HYDU_error_printf/HYDU_ASSERT formats and its "
                                     "bad-termination banner, the PMI client's PMIU_printf/perror failures; families from the RULES table of "
                                     "the generator"),
            "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return knowgen.tree_files(git, rev, ("src",), _read), knowgen.revision(git, rev)


def _read(p):
    """The files from_repo reads: every errnames.txt, hydra's, ch4/ofi's and the PMI client's C sources (not
    examples or tests)."""
    return ((p.endswith("errnames.txt") or (re.search(r"\.[ch]$", p) and (
        p.startswith("src/pm/hydra/") or p.startswith("src/mpid/ch4/netmod/ofi/") or p.startswith("src/pmi/"))))
        and "/examples/" not in p and "/test" not in p)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD", extra=[(
        "--older", {"default": "", "help": "comma-separated older tags, newest first (e.g. v4.2.3,v4.1.3,v4.0.3,"
                                           "v3.4.3): their texts that the pinned revision no longer has"})])
    files, version = knowgen.source_files(a, from_repo)
    older = [(tag, from_repo(a.repo, tag)[0]) for tag in a.older.split(",") if tag and a.repo]
    return knowgen.emit("mpich_messages", build(files, version, older), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
