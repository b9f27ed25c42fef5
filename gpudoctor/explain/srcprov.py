"""The project a failure line's source-file prefix names (issue 18 item 2, noanswer19): a line that starts its message
with 'file.c:NNN' (or '[file.cpp:NNN]', a klog header's 'file.go:NNN]') was printed by the program whose source has
that file. The table of which project has which file is read from the projects' trees (generated/source_files.json,
tools/gen_source_files.py: UCX, NCCL, Open MPI, PRRTE, OpenPMIx, rdma-core, aws-ofi-nccl, gloo, NVSHMEM, the TCPX
plugin, DCGM, dcgm-exporter, Slurm, NVIDIA's device plugin, GPU operator and container toolkit, the kubelet).

A prefix alone is no failure: healthy programs log their source file at every level. The line is a failure when the
level its project's logger wrote says so (a klog / glog / c10 header's first letter E or F, k8s.io/klog/v2 klog.go
formatHeader and c10/util/Logging.cpp; UCX's level word ERROR / FATAL after 'UCX', src/ucs/debug/log.c
ucs_log_level_names; DCGM's plog 'ERROR' / 'FATAL' before the record, common/DcgmLoggingImpl.h), or, where the line
keeps no level, when its message says it failed (error, failed, fatal, cannot, unable, not found, could not, refused,
abort). A level that is not a failure (I, W, INFO, WARN, DIAG, DEBUG, TRACE) is never one, whatever its words say.

The family: the project's message site in that file whose text starts the message (the project's generated table:
ucx_messages.json's 'src/uct/ib/rc/verbs/rc_verbs_iface.c:124 send completion with error: %s ...'), else the
family most of that file's assigned sites have, else the project's own area (the generator's RULES). A basename two
projects have ('common.cc', 'main.go') answers only when the line's folder tells them apart or both have one
family. Family only, How sure: low; the next step is the project's own log around the line.
"""

import re

from gpudoctor.explain.text import strip_prefix

SUFFIX = r"(?:c|cc|cpp|cxx|cu|go|h|hpp|cuh)"
# a source path and line as loggers print them: a token that starts at a blank, '[' or '(' (the line's start too),
# a path of at most 300 characters ending in a C / C++ / CUDA / Go source name, ':', the line number
_FILE = (r"(?<![\w.+/-])(?P<path>[\w.+/-]{1,300}\.%s):(?P<lno>\d{1,7})\b(?P<rest>[^\n]{0,400})" % SUFFIX)
_NEEDLES = [".%s:" % s for s in ("c", "cc", "cpp", "cxx", "cu", "go", "h", "hpp", "cuh")]
# (pymsg19) a bare 'Exception: <message>' line, as CPython prints `raise Exception("...")` uncaught
# (Lib/traceback.py format_exception_only): text.GENERIC_ERRORS' '<Name>Error|Exception:' needs a word before it, so
# the bare class is no error line by itself; py_message_finding reads it when the message is a library's own
_PY_EXC = r"(?<![\w.])Exception: (?P<msg>\S[^\n]{0,400})"
PATTERNS = {"_struct_ex_src": [(_FILE, _NEEDLES)], "_struct_ex_pymsg": [(_PY_EXC, ["exception:"])]}

# the logger's level where the line keeps it
# klog / glog / c10 (torch's LOG without glog): 'E1127 12:00:00.123456   1234 file.go:12] ', '[E socket.cpp:860] ',
# '[E109 22:46:25.933527530 ProcessGroupNCCL.cpp:632] ' (c10's month without its zero, no thread id)
_GLOG = re.compile(r"(?:^|\[)(?P<lvl>[IWEF])(?:\d{3,4} \d\d:\d\d:\d\d\.\d{1,9}(?: {1,12}\d{1,10})?)? {1,12}"
                   r"[\w.+/-]{1,300}$")
# UCX: 'file.c:NNN  UCX  ERROR ' (UCS_LOG_METADATA_FMT), NCCL's '[0] file.cc:NNN NCCL WARN ' (src/debug.cc: NCCL's
# own readers take its WARN lines), or a level word alone after the prefix
_AFTER = re.compile(r"^\]?:? {0,8}(?:UCX {1,10}|NCCL {1,4})?"
                    r"(?P<lvl>FATAL|ERROR|WARN(?:ING)?|DIAG|INFO|DEBUG|TRACE\w{0,10}|"
                    r"PRINT)\b")
# DCGM's plog record: '<time> ERROR [pid:tid] message [file:line] [function]'
_BEFORE = re.compile(r"\b(?P<lvl>FATAL|ERROR|WARN(?:ING)?|INFO|DEBUG|VERB)\b")
# (noans22) Open MPI's and OpenSHMEM's components' own macros: 'Error: %s:%d - %s() ' and 'Warning: %s:%d - %s() '
# right before the file (ompi/mca/coll/ucc/coll_ucc_debug.h UCC_ERROR, coll/tuned COLL_TUNED_ERROR, pml/yalla,
# oshmem/mca/memheap MEMHEAP_ERROR / MEMHEAP_WARN: opal_output_verbose(0, ..., "Error: %s:%d - %s() " format, __FILE__,
# __LINE__, __FUNCTION__, ...))
_COLON_LEVEL = re.compile(r"(?:^|\s)(?P<lvl>Error|Warning): {1,4}$")
FAILURE_LEVELS = frozenset(("E", "F", "FATAL", "ERROR"))
# NCCL's logger prints its failures at WARN (src/debug.cc: every ncclResult_t error path logs with WARN; INFO / TRACE
# are the rest), and so do the NET plugins that log through it: their WARN line that says it failed is a failure
WARN_LEVEL_PROJECTS = frozenset(("nccl", "aws-ofi-nccl", "gpudirect-tcpx"))
_FAILS = re.compile(r"\b(?:error|errors|failed|failure|fatal|cannot|can't|unable|not found|could not|couldn't|"
                    r"refused|abort(?:ed|ing)?)\b", re.I)
# a compiler's diagnostic about the file ('file.c:12:10: error: ...', 'file.c:12: warning:'): the build's, not the
# program's log (buildinputs.py and explicit.py's build readers)
_COMPILER = re.compile(r"^(?::\d{1,5})?: (?:fatal error|error|warning|note|catastrophic error)\b|^:\d{1,5}:")
# a Go stack frame ('\t/go/src/x/file.go:123 +0x1d'), a frame of gdb / a backtrace: not a message
_FRAME = re.compile(r"^ {0,4}(?:\+0x[0-9a-f]{1,16})?\s*$")


def _table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("source_files")


def level(text, hit_path, rest):
    """The logger's level the line carries ('E', 'ERROR', ...), or None when it keeps none."""
    return level_form(text, hit_path, rest)[0]


def level_form(text, hit_path, rest):
    """(level, the logger's form: 'glog', 'ucx' / 'nccl' / 'after' for a level word after the prefix, 'before'), or
    (None, None)."""
    i = text.find(hit_path)
    before = text[:i] if i >= 0 else ""
    m = _GLOG.search((before + hit_path)[-400:])
    if m:
        return m.group("lvl"), "glog"
    m = _AFTER.match(rest)
    if m:
        who = re.match(r"^\]?:? {0,8}(UCX|NCCL)\b", rest)
        return m.group("lvl").upper(), who.group(1).lower() if who else "after"
    m = _COLON_LEVEL.search(before[-40:])
    if m:
        return ("ERROR" if m.group("lvl") == "Error" else "WARN"), "before"
    m = None
    for m in _BEFORE.finditer(before[-200:]):
        pass
    return (m.group("lvl").upper(), "before") if m else (None, None)


# the form each project's own logger prints a failure level in (the table's 'log' notes): a plain basename
# (distinct() false: 'proxy.cc', 'main.cc', 'client.c', 'net.cc') is that project's only in its own logger's form,
# else any C / C++ / Go program's glog or 'ERROR file:line' line was NCCL's / gloo's / Slurm's (review19). NCCL and
# its NET plugins print failures at WARN (WARN_LEVEL_PROJECTS), never at E / ERROR; Open MPI, PRRTE, OpenPMIx,
# Slurm, gloo, NVSHMEM print no level word beside their file prefix
FAILURE_FORMS = {"ucx": ("ucx",), "dcgm": ("before",), "torch": ("glog",), "kubelet": ("glog",),
                 "k8s-device-plugin": ("glog",), "gpu-operator": ("before",)}


def distinct(base):
    """Whether a basename is its own project's more than any program's: a stem with an underscore, a digit or a
    lower-upper hump ('rc_verbs_iface', 'ProcessGroupNCCL', 'TCPStore'), or of 12 characters or more. A plain word
    ('socket.c', 'main.go', 'server.go') is every program's: cherokee's '(error) socket.c:428 - Could not create
    socket' (cherokee/webserver#693) is no Open MPI line."""
    stem = base.rsplit(".", 1)[0]
    return bool(re.search(r"[_\d]|[a-z][A-Z]|[A-Z]{2}[a-z]", stem)) or len(stem) >= 12


def failure(hit):
    """Whether the hit's line is a failure its project's logger printed (see the module's doc). A plain basename
    (distinct) counts only with its logger's level in the line."""
    g = hit.groups
    rest = g.get("rest") or ""
    if _COMPILER.match(rest) or _FRAME.match(rest):
        return False
    text = strip_prefix(hit.text.strip())[0] if hit.text else ""
    path = g.get("path") or ""
    lvl, form = level_form(text, path, rest)
    if lvl in ("WARN", "WARNING"):
        got = project_of(path)
        return bool(got and got[0] in WARN_LEVEL_PROJECTS and _FAILS.search(rest))
    if lvl is not None:
        if lvl not in FAILURE_LEVELS:
            return False
        if distinct(path.rsplit("/", 1)[-1]):
            return True
        got = project_of(path)
        return bool(got and form in FAILURE_FORMS.get(got[0], ()))
    return distinct(path.rsplit("/", 1)[-1]) and bool(_FAILS.search(rest))


def project_of(path):
    """(project, folder) of the source file ``path`` names ('rc_verbs_iface.c', 'transport/net_ib.cc'), or None when
    no project has it or several do and the folder does not tell them apart (and their families differ)."""
    t = _table()
    base = path.rsplit("/", 1)[-1]
    where = t.get("files", {}).get(base)
    if not where:
        return None
    given = path.rsplit("/", 1)[0].strip("./") if "/" in path else ""
    cands = [w.split(":", 1) for w in where]
    if given:
        # the line's folder and the file's own: one ends the other ('transport/net_ib.cc' in src/transport; a build
        # tree's '/pytorch/third_party/gloo/gloo/transport/tcp/'), else the same last folder (torch 1.x's
        # torch/lib/c10d for today's torch/csrc/distributed/c10d); a folder none has is another program's file
        # (XLA's external/xla/.../distributed/client.h is not Slurm's client.h)
        narrowed = [c for c in cands if ("/" + c[1]).endswith("/" + given) or ("/" + given).endswith("/" + c[1])]
        if not narrowed:
            narrowed = [c for c in cands if c[1].rsplit("/", 1)[-1] == given.rsplit("/", 1)[-1]]
        if not narrowed:
            return None
        cands = narrowed
    projects = {c[0] for c in cands}
    if len(projects) == 1:
        return cands[0][0], cands[0][1]
    fams = {(t.get("projects", {}).get(p) or {}).get("family") for p in projects}
    if len(fams) == 1 and None not in fams:
        return sorted(projects)[0], None
    return None


_SITE_CACHE = [None, None]
# the repository prefix a table of several repositories puts before a site's path (k8s_messages:
# 'NVIDIA/k8s-device-plugin:cmd/...', oci_messages: 'toolkit:...') -> the project of source_files.json it is
_SITE_PREFIX = {"toolkit": "nvidia-container-toolkit", "kubernetes/kubernetes": "kubelet", "pyxis": None}


def _site_owner(prefix):
    """The project a site's repository prefix names: '' without one (or a version, 'v5.0.11:'), '?' for a repository
    of no project here (volcano's, kueue's: not this project's file of the same name)."""
    if not prefix:
        return ""
    if prefix in _SITE_PREFIX:
        return _SITE_PREFIX[prefix] or "?"
    for name, meta in (_table().get("projects") or {}).items():
        if meta.get("repo") == prefix:
            return name
    return "?" if "/" in prefix else ""


def _file_sites(by):
    """{(table, basename): [(literal start of the site's text, family, the project a repository prefix names)]} of
    the generated sites the knowledge holds."""
    if _SITE_CACHE[0] is by:
        return _SITE_CACHE[1]
    out = {}
    for eid, e in by.items():
        for site in e.get("_sites") or ():
            where = (site.get("where") or "").rsplit(":", 1)[0]
            prefix, _, path = where.rpartition(":")
            base = path.rsplit("/", 1)[-1]
            if base.endswith((".c", ".cc", ".cpp", ".cxx", ".cu", ".go", ".h", ".hpp", ".cuh")):
                lit = re.split(r"%|\{", site.get("text") or "", 1)[0].strip()
                out.setdefault((site.get("source"), base), []).append((lit, e.get("family") or eid,
                                                                       _site_owner(prefix)))
    _SITE_CACHE[0], _SITE_CACHE[1] = by, out
    return out


def _wc_status(rest):
    """The name of a failed verbs work completion status the message quotes (rdma-core libibverbs/verbs.c
    ibv_wc_status_str(): every program on verbs prints it; explicit.WC_STATUS, enum ibv_wc_status), or None."""
    from gpudoctor.explain.explicit import WC_STATUS

    low = rest.lower()
    return next((n for n in WC_STATUS[1:] if len(n) >= 12 and n.lower() in low), None)


def family(by, project, base, rest):
    """(entry id, how it was chosen) for a failure line of ``project``'s file ``base`` whose message is ``rest``."""
    meta = _table().get("projects", {}).get(project) or {}
    name = _wc_status(rest)
    if name and "rdma.completion_error" in by:
        return "rdma.completion_error", "a verbs work completion's failed status '%s' (ibv_wc_status_str)" % name
    fam = (meta.get("file_families") or {}).get(base)
    if fam in by:
        return fam, "the family of %s's %s" % (project, base)
    # (a table of several repositories: only this project's sites)
    sites = [s[:2] for tbl in meta.get("tables") or () for s in _file_sites(by).get((tbl, base), ())
             if s[2] in ("", project)]
    msg = re.sub(r"^\]?:?\s{0,8}(?:UCX\s{1,10})?(?:FATAL|ERROR)?\s{0,8}", "", rest.strip())
    for lit, fam in sorted(sites, key=lambda s: -len(s[0])):
        if len(lit) >= 12 and msg.lower().startswith(lit.lower()) and fam in by:
            return fam, "its message site in %s" % base
    counts = {}
    for _, fam in sites:
        if fam in by:
            counts[fam] = counts.get(fam, 0) + 1
    if counts:
        fam, n = max(counts.items(), key=lambda x: (x[1], x[0]))
        if n * 2 > len(sites):
            return fam, "the family of %d of the %d message sites of %s" % (n, len(sites), base)
    fam = meta.get("family")
    if fam in by:
        return fam, "%s's family" % project
    return None, None


def hits(scan, known, answerable=False):
    """The source-prefix failure lines no knowledge entry matched; ``answerable``: only those whose project has a
    family of its own (RULES' area or the file's: what explicit.seen counts, so that a project answered only through
    its message sites - the kubelet's, rdma-core's - never turns a text into 'no known error' without an answer)."""
    out = []
    for h in scan.matches.get("_struct_ex_src", []):
        if h.severity == "info" or h.line in known or not failure(h):
            continue
        got = project_of(h.groups.get("path") or "")
        if not got:
            continue
        if answerable:
            meta = _table().get("projects", {}).get(got[0]) or {}
            base = (h.groups.get("path") or "").rsplit("/", 1)[-1]
            if not (meta.get("family") or (meta.get("file_families") or {}).get(base)):
                continue
        out.append(h)
    return out


def structural(scan, kb, structural_finding, known):
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    t = _table()
    for h in hits(scan, known)[:16]:
        if _ran_past(scan, h.line):
            continue
        path = h.groups.get("path") or ""
        project, folder = project_of(path)
        base = path.rsplit("/", 1)[-1]
        eid, how = family(by, project, base, h.groups.get("rest") or "")
        if eid is None or by[eid].get("kind") == "echo":
            continue
        meta = t["projects"][project]
        f = structural_finding(by[eid], h, "the source file %s:%s the line starts with is %s's (%s)" % (
            base, h.groups.get("lno"), project, how), scan)
        f["notes"].append("Printed by %s (%s, its source file %s%s, line %s): the prefix is the statement that "
                          "logged it. Its own log around this line (the lines just before, at a more verbose level%s) "
                          "says what it was doing; the family is read from the file, not from the message's words." % (
                              project, meta.get("url"), (folder + "/") if folder else "", base, h.groups.get("lno"),
                              ": rerun with %s" % meta["debug"] if meta.get("debug") else ""))
        return f
    return None


# ---------------------------------------------------------------- a message alone, found in a project's literals

KEY_WORDS = 4  # the words a fragment is looked up by
MIN_MATCH = 6  # words of a fragment the line must hold in a row, from its start (or the whole fragment)
OWN_OR = 7  # ... and a word of one project's literals only among them, or the whole literal of OWN_OR words or more


def _specific(frw, n, matched, own):
    """Whether n words matched of the fragment ``frw`` name its project (review19): MIN_MATCH words in a row from its
    start (or the whole fragment), and among them a word only one project's literals hold, or the whole fragment of
    OWN_OR words or more. A long fragment's first words alone are any program's ('must be divisible by the number of'
    starts vLLM's '... data parallel node groups': 'world size must be divisible by the number of pipeline stages' is
    no vLLM line)."""
    if n < min(MIN_MATCH, len(frw)):
        return False
    return (n >= OWN_OR and n == len(frw)) or any(w in own for w in matched)
_WORD = re.compile(r"[^\s]{1,80}")
_MSG_CACHE = [None]
_CHAIN = re.compile(r":\s(?=\S)")
_STRIP = ".,;:'\"()[]`"


def _fragments():
    """{first KEY_WORDS words: [(the fragment's words, ['project:basename', ...])]} of generated/source_messages.json
    (tools/gen_source_messages.py: the projects' failure literals between their format conversions)."""
    if _MSG_CACHE[0] is None:
        from gpudoctor.explain.knowledge import generated_table

        index, projects = {}, {}
        for fr, where in (generated_table("source_messages").get("fragments") or {}).items():
            # (its words as a line's are read: without the punctuation around them, so that the key of
            # 'unhandled system error (run with ...' is the line's own)
            words = [w for w in (w.strip(_STRIP) for w in fr.split()) if w]
            index.setdefault(" ".join(words[:KEY_WORDS]), []).append((words, where))
            for w in words:
                projects.setdefault(w.strip(_STRIP), set()).update(x.split(":", 1)[0] for x in where)
        # a word of one project's literals only (review19): a fragment of words every project's literals share
        # ('unable to open configuration file', 'failed to get process memory', 'needs to be positive integer') is
        # any program's sentence, not that project's
        own = frozenset(w for w, ps in projects.items() if len(ps) == 1 and len(w) >= 3 and not w.startswith("%"))
        _MSG_CACHE[0] = (index, own)
    return _MSG_CACHE[0]


def message_projects(text):
    """(['project:basename', ...], the fragment's words matched) of the first project literal a line's words hold
    (MIN_MATCH words in a row from the literal's start, or the whole literal), or (None, 0)."""
    index, own = _fragments()
    words = [w for w in (w.strip(_STRIP).lower() for w in _WORD.findall(text)) if w][:200]
    for i in range(max(0, len(words) - KEY_WORDS + 1)):
        for frw, where in index.get(" ".join(words[i:i + KEY_WORDS]), ()):
            n = 0
            while n < len(frw) and i + n < len(words) and words[i + n] == frw[n]:
                n += 1
            if _specific(frw, n, words[i:i + n], own):
                return where, n
    return None, 0


def message_finding(scan, kb, structural_finding, known):
    """An error line no entry matched whose words start one project's failure literal: that project's family (its
    file's, as for a source prefix), family only. Several projects' literal: answered when their families agree."""
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    for h in scan.errors[:64]:
        if h.line in known or h.severity == "info" or _ran_past(scan, h.line):
            continue
        text = strip_prefix(h.text.strip())[0]
        # an error chain ('<what>: <wrapped error>': Go's fmt.Errorf("...: %w"), C's "%s: %s") names its cause last:
        # the last part must be a project's own literal too, or the wrapper names the printer, not the cause (the
        # device plugin's 'error starting plugins: ...: <NVML's error>')
        parts = [p for p in _CHAIN.split(text) if p.strip()]
        where, n = message_projects(parts[-1] if parts else text)
        if not where:
            continue
        fams = {}
        for w in where:
            project, base = w.split(":", 1)
            fam, how = family(by, project, base, text)
            if fam:
                fams.setdefault(fam, (project, base, how))
        if len(fams) != 1:
            continue
        eid, (project, base, how) = next(iter(fams.items()))
        if by[eid].get("kind") == "echo":
            continue
        meta = _table().get("projects", {}).get(project) or {}
        f = structural_finding(by[eid], h, "its words are a failure message of %s's source (%s, %d words), %s" % (
            project, base, n, how), scan)
        f["notes"].append("The line's words are %s's own message (%s, in %s): %s printed it, though the line keeps "
                          "none of its prefix. Its log around this line, or the command that ran it, says more%s."
                          % (project, meta.get("url"), base, project,
                             " (rerun with %s)" % meta["debug"] if meta.get("debug") else ""))
        return f
    return None


# ---------------------------------------------------------------- a Python library's message alone (pymsg19)

# a logger's failure level on the line (Python logging's levelname: Lib/logging/__init__.py _levelToName), which a
# message the library prints only as a warning needs before it answers: a run goes past its warnings
_PY_ERROR_LEVEL = re.compile(r"\b(?:ERROR|CRITICAL|FATAL)\b")
_PY_CACHE = [None]


def _py_fragments():
    """({first KEY_WORDS words: [(the fragment's words, [[dist, level, module, versions]])]}, the words one
    distribution's messages hold only, {dist: [versions read]}) of generated/py_messages.json
    (tools/gen_py_messages.py)."""
    if _PY_CACHE[0] is None:
        from gpudoctor.explain.knowledge import generated_table

        doc = generated_table("py_messages")
        index, mid, dists = {}, {}, {}
        for fr, rows in (doc.get("fragments") or {}).items():
            words = [w for w in (w.strip(_STRIP) for w in fr.split()) if w]
            index.setdefault(" ".join(words[:KEY_WORDS]), []).append((words, rows))
            # (a line cut inside the message: its words from every KEY_WORDS-th word on, so that CUT_MIN words in a
            # row of the fragment always hold one whole key)
            for k in range(KEY_WORDS, len(words) - KEY_WORDS + 1, KEY_WORDS):
                mid.setdefault(" ".join(words[k:k + KEY_WORDS]), []).append((words, rows, k))
            for w in words:
                dists.setdefault(w, set()).update(r[0] for r in rows)
        own = frozenset(w for w, ds in dists.items() if len(ds) == 1 and len(w) >= 3)
        _PY_CACHE[0] = (index, own, doc.get("versions") or {}, mid)
    return _PY_CACHE[0]


CUT_MIN = 8  # words of a fragment a line cut inside it must hold, from the line's first word to the fragment's end


def _cut_rows(words, mid, own):
    """(rows, words matched) of the fragment a line cut inside a message holds (a thread quoting the message's rest):
    the line's first words on are the fragment's from its middle, CUT_MIN words or more with a word one distribution's
    messages hold only, up to the fragment's end or the line's; else (None, 0)."""
    for i in range(0, max(0, min(len(words), CUT_MIN) - KEY_WORDS + 1)):
        for frw, rows, k in mid.get(" ".join(words[i:i + KEY_WORDS]), ()):
            if k < i or words[:i] != frw[k - i:k]:
                continue
            start = k - i  # the fragment's word the line starts at
            n = 0
            while start + n < len(frw) and n < len(words) and words[n] == frw[start + n]:
                n += 1
            if n >= CUT_MIN and (start + n == len(frw) or n == len(words)) and any(w in own for w in words[:n]):
                return rows, n
    return None, 0


def py_message_rows(text):
    """(rows, the fragment's words matched) of the first Python stack message a line's words hold (as
    message_projects: MIN_MATCH words in a row from the fragment's start, or the whole fragment, and a word one
    distribution's messages hold only unless OWN_OR words match), or (None, 0)."""
    index, own = _py_fragments()[:2]
    words = [w for w in (w.strip(_STRIP).lower() for w in _WORD.findall(text)) if w][:200]
    for i in range(max(0, len(words) - KEY_WORDS + 1)):
        got, best = {}, 0
        for frw, rows in index.get(" ".join(words[i:i + KEY_WORDS]), ()):
            n = 0
            while n < len(frw) and i + n < len(words) and words[i + n] == frw[n]:
                n += 1
            if _specific(frw, n, words[i:i + n], own):
                # every fragment the words start (one release's message may go on where another's stopped: vLLM
                # 0.33 added a sentence to 0.6's): a distribution's rows merged, their releases unioned
                best = max(best, n)
                for dist, level, module, vers in rows:
                    row = got.get(dist)
                    if row is None:
                        got[dist] = [dist, level, module, vers]
                        continue
                    if _LEVEL_RANK[level] < _LEVEL_RANK[row[1]]:
                        row[1], row[2] = level, module
                    row[3] = " ".join(sorted(set(row[3].split()) | set(vers.split()), key=_vkey))
        if got:
            return [got[d] for d in sorted(got)], best
    return _cut_rows(words, _py_fragments()[3], own)


_LEVEL_RANK = {"raise": 0, "error": 1, "warning": 2}


def _vkey(v):
    return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.+-]", v)[:4])


def _releases(dist, have, read):
    """'in vllm 0.5.4, 0.6.3 (of 0.5.4 ... 0.33.0 read); not in 0.8.5 and later' -> (words, whether the newest
    release read lacks it)."""
    have = have.split()
    gone = bool(read) and read[-1] not in have
    if set(read) <= set(have):
        return "in every %s release read (%s)" % (dist, ", ".join(read)), False
    say = "in %s %s of the releases read (%s)" % (dist, ", ".join(have), ", ".join(read))
    if gone:
        after = [v for v in read if read.index(v) > max(read.index(h) for h in have if h in read)] if any(
            h in read for h in have) else []
        say += "; not in %s%s" % (after[0] if after else read[-1], " and later" if len(after) > 1 else "")
    return say, gone


def py_hits(scan, known):
    """[(hit, rows, words matched)] of the error lines (and bare 'Exception: ' lines) no entry matched whose words
    hold a Python stack message; a message printed only as a warning counts only on a line at a failure level."""
    out, seen = [], set()
    for h in sorted(scan.errors[:64] + scan.matches.get("_struct_ex_pymsg", [])[:16], key=lambda x: x.line):
        if h.line in known or h.line in seen or h.severity in ("info", "warn"):
            continue
        seen.add(h.line)
        rows, n = py_message_rows(strip_prefix(h.text.strip())[0])
        if rows and (any(r[1] != "warning" for r in rows) or _PY_ERROR_LEVEL.search(h.text)):
            out.append((h, rows, n))
    return out


def py_message_finding(scan, kb, structural_finding, known):
    """An error line no entry matched whose words hold a message the Python stack's code raises or logs
    (generated/py_messages.json): that distribution's family (its package area, provenance.package_areas; torch's
    by its subpackage, provenance.torch_area), family only, How sure: low, with the releases that print it and,
    when the newest release read no longer does, the upgrade. A message the distributions print only as a warning
    answers only a line at a logger's failure level."""
    from gpudoctor.explain import provenance, pytb
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    if scan.tracebacks:
        return None  # (a traceback's frames name the package: pytb / provenance read it)
    for h, rows, n in py_hits(scan, known):
        if _ran_past(scan, h.line):
            continue
        fams = {}
        for dist, level, module, vers in rows:
            lib = pytb.owner(module.split("/", 1)[0])
            if lib == "torch":
                area = provenance.torch_area(by, module)
                eid = next((e for e in ("%s.library_error" % area, "%s.usage" % area)
                            if area and e in by and by[e].get("kind", "error") != "echo"), None)
            else:
                eid = "%s.library_error" % lib if "%s.library_error" % lib in by else provenance.library_entry(by, lib)
            if eid:
                fams.setdefault(eid, (dist, level, module, vers))
        if len(fams) != 1:
            continue
        eid, (dist, level, module, vers) = next(iter(fams.items()))
        read = _py_fragments()[2].get(dist) or []
        say, gone = _releases(dist, vers, read)
        f = structural_finding(by[eid], h, "its words are a message %s's own code %s (%s, %d words)" % (
            dist, "raises" if level == "raise" else "logs at %s" % level, module, n), scan)
        f["notes"].append("The line's words are %s's own message (%s): %s printed it, though the line keeps no "
                          "traceback. The message is %s. The whole traceback (or the log lines before it) names "
                          "the call that met it." % (dist, module, dist, say))
        if gone and f.get("causes"):
            from gpudoctor.fixline import sh

            # after the entry's own reading: a refusal whose wording changed between releases is not fixed by an
            # upgrade, so the upgrade is the last alternative, not the first (review19)
            f["causes"][0]["fix"].append("upgrade %s: the message is from an older release (%s); the newest "
                                         "read, %s %s, no longer prints it - pip install -U %s (pip show %s "
                                         "names the installed release)" % (
                                                dist, ", ".join(vers.split()), dist, read[-1], sh(dist), sh(dist)))
        return f
    return None


# ---- (noans22) a Python library's known message cut short: the generated site whose words it starts
# A message pasted cut (a chat's '...', a line wrapped off, a log trimmed) no longer matches its site's matcher, which
# needs the literal whole: Ray's ray/_private/node.py 'The current node timed out during startup. This could happen
# because some of the raylet failed to startup or the GCS has become overloaded.' quoted as 'Exception: The current
# node timed out during startup ... raylet failed to startup' (AO's LWS thread). The generated sites of the Python
# libraries' own raise / assert / error / exit statements (their 'where' a .py file) are indexed by their text's
# literal start (up to the first conversion); an error line no entry matched whose words start one such literal -
# OWN_OR words in a row from the line's message start, or MIN_MATCH with a word only one family's sites hold - and
# stop at the line's end or an elision ('...') is that site's family. Several families: no answer.
_SITE_FR = [None, None]
_SITE_LEVELS = frozenset(("raise", "assert", "error", "exit"))
_CONV_START = re.compile(r"%(?:[-+ #0-9.*]{0,8}(?:hh|h|ll|l|z|j|t|L)?[a-zA-Z])|\{[^{}\n]{0,40}\}")
_ELIDED = re.compile(r"^(?:\.{2,}|…)")


def _site_fragments(by):
    if _SITE_FR[0] is by:
        return _SITE_FR[1]
    index, fams = {}, {}
    for eid, e in by.items():
        for site in e.get("_sites") or ():
            where = (site.get("where") or "").rsplit(":", 1)[0]
            if not where.endswith(".py") or site.get("level") not in _SITE_LEVELS:
                continue
            head = _CONV_START.split(site.get("text") or "", 1)[0]
            words = [w for w in (w.strip(_STRIP).lower() for w in _WORD.findall(head)) if w]
            if len(words) < MIN_MATCH:
                continue
            fam = e.get("family") or eid
            index.setdefault(" ".join(words[:KEY_WORDS]), []).append((words, eid, site))
            for w in words:
                fams.setdefault(w, set()).add(fam)
    own = frozenset(w for w, fs in fams.items() if len(fs) == 1 and len(w) >= 3)
    _SITE_FR[0], _SITE_FR[1] = by, (index, own)
    return _SITE_FR[1]


# the message starts after the exception's class where the line has one ('worker  Exception: ...'), else at the start
_MSG_START = re.compile(r"(?<![\w.])(?:[A-Za-z_][\w.]{0,120})?(?:Error|Exception|Failure):\s{1,4}")


def site_rows(text, by):
    """[(entry id, site)] of the one family whose cut Python message the line's message starts, or []."""
    index, own = _site_fragments(by)
    body = strip_prefix(text.strip())[0]
    m = _MSG_START.search(body[:300])
    body = body[m.end():] if m else body
    raw = _WORD.findall(body)[:120]
    words = [w.strip(_STRIP).lower() for w in raw]
    got = {}
    for frw, eid, site in index.get(" ".join(words[:KEY_WORDS]), ()):
        n = 0
        while n < len(frw) and n < len(words) and words[n] == frw[n]:
            n += 1
        if n == len(frw) or n < MIN_MATCH or not (n >= OWN_OR or any(w in own for w in words[:n])):
            continue  # (the whole literal: its own matcher would have read the line)
        if n < len(words) and not (_ELIDED.match(raw[n]) or raw[n - 1].endswith(("...", "…"))):
            continue  # the line goes on with other words: another message that starts the same way
        got.setdefault(eid, site)
    return list(got.items()) if len(got) == 1 else []


def site_hits(scan, kb, known):
    out, seen = [], set()
    for h in sorted(scan.errors[:64] + scan.matches.get("_struct_ex_pymsg", [])[:16], key=lambda x: x.line):
        if h.line in known or h.line in seen or h.severity in ("info", "warn"):
            continue
        seen.add(h.line)
        rows = site_rows(h.text, kb.by_id)
        if rows:
            out.append((h, rows[0]))
    return out


def site_message_finding(scan, kb, structural_finding, known):
    """The family of the Python library's site whose message an error line starts and stops short of (see above);
    family only, How sure: low. Not for a text with a traceback (its frames name the package)."""
    from gpudoctor.explain.provenance import _ran_past

    if scan.tracebacks:
        return None
    for h, (eid, site) in site_hits(scan, kb, known):
        if _ran_past(scan, h.line):
            continue
        f = structural_finding(kb.by_id[eid], h, "the line starts %s's message (%s) and stops short of it" % (
            site.get("where", "").split("/", 1)[0] or "a library", site.get("where")), scan)
        f["notes"].append("The line is cut: its words are the start of the message at %s ('%s'), which its matcher "
                          "reads only whole. Paste the whole line (and the traceback above it) to confirm." % (
                              site.get("where"), (site.get("text") or "")[:200]))
        return f
    return None
