"""`gpudoctor explain`: from an error text or a whole log to its cause, the checks that
confirm it, and the fix.

Data flow (STYLE.md): error text / log -> explain -> knowledge entries. The knowledge is
data: TOML files kept beside the checks that confirm them (``checks/<module>.knowledge.toml``)
and, for families no check covers yet, ``gpudoctor/data/knowledge/*.toml``. This module
only loads, validates and applies them.

Speed: a log is read as bytes in 4 MiB blocks and never decoded whole. One combined
regular expression of literal "needles" (the longest literal run of every pattern, built
as a trie so the regex engine rejects most positions at the first byte) finds the few
candidate lines; only those are decoded (errors='replace') and tried against the real
patterns. The needle of each pattern is derived from the pattern itself, so adding an
entry never needs a second list kept in sync.

Importing this module is cheap (re, os, sys); TOML, the registry and the collector are
imported only on the paths that need them.
"""

import os
import re
import sys

SCHEMA = "gpudoctor.explain/1"
KINDS = ("error", "warning", "echo")
BLOCK = 1 << 22  # bytes read at a time
MAX_LINE = 1 << 20  # a "line" longer than this (no newline in 1 MiB) is cut there
MAX_SHOWN = 5  # matched lines kept per entry (the count covers all of them)
MIN_NEEDLE = 4
_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])")
_URL = re.compile(r"^https?://\S+$")

GENERIC_TRIAGE = [
    "Rerun with NCCL's own diagnostics: export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV "
    "(add NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log for one file per process), then explain that log.",
    "Keep every rank's output: torchrun --log-dir /tmp/ranklogs --redirects 3 --tee 3 ...; the first "
    "error in time is usually the root, the others are its echo.",
    "Check every node before the next run: gpudoctor check --hosts hostfile",
    "Look at the kernel log of each node for GPU and NIC faults: sudo dmesg -T | grep -iE 'xid|nvrm|mlx5|oom'",
]


class KnowledgeError(Exception):
    """A knowledge entry is malformed (a bug in the data, reported at load time)."""


# --------------------------------------------------------------------------- knowledge


class Pattern:
    __slots__ = ("entry", "role", "cause", "rank", "source", "regex", "needles", "needles_b", "multiline")

    def __init__(self, entry, role, source, rank, cause=None):
        self.entry, self.role, self.source, self.rank, self.cause = entry, role, source, rank, cause
        try:
            self.regex = re.compile(source)
        except re.error as exc:
            raise KnowledgeError("%s: pattern %r does not compile: %s" % (entry, source, exc))
        if self.regex.flags & re.IGNORECASE:
            raise KnowledgeError("%s: pattern %r: (?i) is not supported, spell out the variants" % (entry, source))
        self.multiline = "\\n" in source or "\n" in source
        self.needles = needles_of(source)
        self.needles_b = [n.encode("utf-8") for n in self.needles]
        if not self.needles or min(len(n) for n in self.needles) < MIN_NEEDLE:
            raise KnowledgeError("%s: pattern %r has no literal run of %d+ characters to prefilter on"
                                 % (entry, source, MIN_NEEDLE))


def _sre():
    try:
        from re import _parser as parser, _constants as const  # Python 3.11+
    except ImportError:  # Python 3.9, 3.10
        import sre_constants as const
        import sre_parse as parser
    return parser, const


def needles_of(regex):
    """Literal strings, one of which every line the regex matches must contain."""
    parser, c = _sre()

    def seq(items):
        best, run = None, []

        def consider(cands):
            nonlocal best
            if cands and (best is None or min(map(len, cands)) > min(map(len, best))):
                best = cands

        for op, av in list(items) + [(None, None)]:
            if op is c.LITERAL:
                run.append(chr(av))
                continue
            consider(["".join(run)] if run else None)
            run = []
            if op is c.SUBPATTERN:
                consider(seq(av[-1]))
            elif op is c.BRANCH:
                alts = [seq(b) for b in av[1]]
                if all(alts):
                    consider(sorted({n for a in alts for n in a}))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
                consider(seq(av[2]))
        return best

    return seq(parser.parse(regex)) or []


class Knowledge:
    """Every entry, its compiled patterns and the one prefilter regex over bytes."""

    def __init__(self, entries):
        self.entries = entries
        self.by_id = {e["id"]: e for e in entries}
        self.patterns = []
        for e in entries:
            self.patterns.extend(e["_patterns"])
            for cause in e["causes"]:
                self.patterns.extend(cause["_evidence"])
        needles = set()
        for p in self.patterns:
            needles.update(p.needles)
        self.order = {p: i for i, p in enumerate(self.patterns)}
        # a needle that contains a shorter needle is redundant in the prefilter
        minimal = sorted(n for n in needles if not any(m != n and m in n for m in needles))
        # One trie per first character: each regex then starts with a literal, which the
        # regex engine finds with a fast scan; one trie over every needle is ~3x slower
        # (bench/explain_bench.py).
        groups = {}
        for n in minimal:
            groups.setdefault(n[0], []).append(n)
        self.prefilters = [re.compile(_bytes_trie(g)) for _, g in sorted(groups.items())]
        # a prefilter hit (a minimal needle) -> the patterns that may match on that line
        self.by_hit = {}
        for m in minimal:
            mb = m.encode("utf-8")
            self.by_hit[mb] = [p for p in self.patterns if any(mb in n for n in p.needles_b)]

    def check_ids(self):
        return sorted({cid for e in self.entries for c in e["causes"] for cid in c.get("checks", ())})


def _bytes_trie(needles):
    """The prefilter over raw bytes: a trie of the needles' UTF-8 encodings."""
    words = sorted(n.encode("utf-8") for n in needles)
    trie = {}
    for w in words:
        d = trie
        for b in w:
            d = d.setdefault(b, {})
        d[None] = True

    def build(d):
        alts = [re.escape(bytes([k])) + build(v) for k, v in sorted((k, v) for k, v in d.items() if k is not None)]
        if not alts:
            return b""
        s = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        return b"(?:" + s + b")?" if None in d else s

    return build(trie)


def knowledge_files():
    """checks/*.knowledge.toml (beside the checks that confirm them), then data/knowledge/*.toml."""
    import gpudoctor.checks as checks_pkg

    out = []
    for folder in list(checks_pkg.__path__):
        out.extend(os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".knowledge.toml"))
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "knowledge")
    if os.path.isdir(data):
        out.extend(os.path.join(data, n) for n in sorted(os.listdir(data)) if n.endswith(".toml"))
    return out


def _toml():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return tomllib


def _validate(e, where, known_checks):
    eid = e.get("id")
    if not isinstance(eid, str) or not _ID.match(eid):
        raise KnowledgeError("%s: entry id %r must be a dotted lowercase slug like 'nccl.system_error'" % (where, eid))
    allowed = {"id", "title", "kind", "rank", "explain", "patterns", "distinct", "causes", "references",
               "debug", "lookup", "family"}
    extra = set(e) - allowed
    if extra:
        raise KnowledgeError("%s: %s: unknown keys %s" % (where, eid, sorted(extra)))
    for key in ("title", "explain"):
        if not isinstance(e.get(key), str) or not e[key].strip():
            raise KnowledgeError("%s: %s has no %s" % (where, eid, key))
    e.setdefault("kind", "error")
    if e["kind"] not in KINDS:
        raise KnowledgeError("%s: %s: kind %r is not one of %s" % (where, eid, e["kind"], KINDS))
    if not isinstance(e.get("rank"), int):
        raise KnowledgeError("%s: %s: rank must be an integer (higher = more specific)" % (where, eid))
    e.setdefault("family", eid.split(".")[0] if e["kind"] == "echo" else eid)
    pats = []
    for p in e.get("patterns", []):
        if isinstance(p, str):
            pats.append(Pattern(eid, "match", p, e["rank"]))
        elif isinstance(p, dict) and isinstance(p.get("re"), str) and isinstance(p.get("rank", e["rank"]), int):
            pats.append(Pattern(eid, "match", p["re"], p.get("rank", e["rank"])))
        else:
            raise KnowledgeError("%s: %s: a pattern is a string or {re = '...', rank = N}" % (where, eid))
    for p in e.get("distinct", []):
        pat = Pattern(eid, "distinct", p, e["rank"])
        if not pat.regex.groupindex:
            raise KnowledgeError("%s: %s: distinct pattern %r needs a named group" % (where, eid, p))
        pats.append(pat)
    if not pats:
        raise KnowledgeError("%s: %s has no patterns" % (where, eid))
    e["_patterns"] = pats
    causes = e.get("causes")
    if not isinstance(causes, list) or not causes:
        raise KnowledgeError("%s: %s has no causes" % (where, eid))
    for i, c in enumerate(causes):
        if not isinstance(c.get("text"), str) or not c["text"].strip():
            raise KnowledgeError("%s: %s: cause %d has no text" % (where, eid, i + 1))
        extra = set(c) - {"text", "checks", "confirm", "fix", "exports", "evidence"}
        if extra:
            raise KnowledgeError("%s: %s: cause %d: unknown keys %s" % (where, eid, i + 1, sorted(extra)))
        if not isinstance(c.get("fix"), list) or not c["fix"] or not all(isinstance(f, str) for f in c["fix"]):
            raise KnowledgeError("%s: %s: cause %d needs fix = [commands...]" % (where, eid, i + 1))
        c.setdefault("checks", [])
        c.setdefault("confirm", [])
        c.setdefault("exports", {})
        c.setdefault("evidence", [])
        c["_evidence"] = [Pattern(eid, "evidence", src, 0, cause=i) for src in c["evidence"]]
        if isinstance(c["confirm"], str):
            c["confirm"] = [c["confirm"]]
        if not all(isinstance(v, str) for v in c["exports"].values()):
            raise KnowledgeError("%s: %s: cause %d: exports values must be strings" % (where, eid, i + 1))
        for cid in c["checks"]:
            if known_checks is not None and cid not in known_checks:
                raise KnowledgeError("%s: %s: cause %d names check %r, which is not registered (gpudoctor list)"
                                     % (where, eid, i + 1, cid))
    refs = e.setdefault("references", [])
    for r in refs:
        if not isinstance(r, dict) or not isinstance(r.get("title"), str) or not _URL.match(str(r.get("url"))):
            raise KnowledgeError("%s: %s: a reference is {title = '...', url = 'https://...'}" % (where, eid))
    e.setdefault("debug", [])
    e.setdefault("lookup", {})
    e["source_file"] = where
    return e


_cache = {}


def load_knowledge(files=None, known_checks="registry"):
    """Load and validate every entry. ``known_checks``: 'registry' (the registered check
    ids), None (skip that validation) or a set of ids."""
    key = (tuple(files) if files else None, known_checks if isinstance(known_checks, str) or known_checks is None
           else tuple(sorted(known_checks)))
    if key in _cache:
        return _cache[key]
    if known_checks == "registry":
        from gpudoctor.registry import load_checks

        known_checks = set(load_checks().ids())
    tomllib = _toml()
    entries, seen = [], {}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in files or knowledge_files():
        rel = os.path.relpath(path, root) if path.startswith(root) else path
        try:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
        except (OSError, ValueError) as exc:
            raise KnowledgeError("%s: %s" % (rel, exc))
        for e in doc.get("entry", []):
            _validate(e, rel, known_checks)
            if e["id"] in seen:
                raise KnowledgeError("entry id %r is defined twice (%s and %s)" % (e["id"], seen[e["id"]], rel))
            seen[e["id"]] = rel
            entries.append(e)
    kb = Knowledge(entries)
    _cache[key] = kb
    return kb


# --------------------------------------------------------------------------- scanning


class Hit:
    __slots__ = ("line", "text", "pattern", "groups")

    def __init__(self, line, text, pattern, groups):
        self.line, self.text, self.pattern, self.groups = line, text, pattern, groups


class Scan:
    """What one pass over a log found: per entry its matched lines, per cause its evidence."""

    def __init__(self):
        self.lines = 0
        self.bytes = 0
        self.matches = {}  # entry id -> [Hit] (first MAX_SHOWN)
        self.counts = {}  # entry id -> number of matching lines
        self.best_rank = {}  # entry id -> highest rank among its matched patterns
        self.first_line = {}  # entry id -> first matching line
        self.evidence = {}  # (entry id, cause index) -> [Hit]
        self.distinct = {}  # entry id -> {key: {value: Hit}}


def _decode(raw):
    text = raw.decode("utf-8", "replace")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return text.rstrip("\r")


def _display(text, m=None, width=400):
    """A long line (tqdm's \\r updates, a JSON blob) shown as the part around the match."""
    if "\r" in text and m is not None:
        start = text.rfind("\r", 0, m.start()) + 1
        end = text.find("\r", m.end())
        text = text[start:end if end >= 0 else len(text)]
        m = None
    if len(text) <= width:
        return text.strip()
    if m is None:
        return text[:width].strip() + " ..."
    a = max(0, m.start() - width // 3)
    return ("... " if a else "") + text[a:a + width].strip() + " ..."


def _consider(scan, kb, lineno, raw, nxt, hits):
    todo = set()
    for h in hits:
        todo.update(kb.by_hit[h])
    todo = [p for p in sorted(todo, key=kb.order.__getitem__)  # the data's order: stable results
            if any(n in raw for n in p.needles_b)]
    if not todo:
        return
    text = _decode(raw)
    joined = None
    for p in todo:
        if p.multiline:
            if joined is None:
                joined = text + "\n" + _decode(nxt or b"")
            m = p.regex.search(joined)
        else:
            m = p.regex.search(text)
        if not m:
            continue
        hit = Hit(lineno, _display(text, m if not p.multiline else None), p, m.groupdict())
        if p.role == "evidence":
            lst = scan.evidence.setdefault((p.entry, p.cause), [])
            if len(lst) < 3:
                lst.append(hit)
        elif p.role == "distinct":
            keys = scan.distinct.setdefault(p.entry, {})
            for name, value in m.groupdict().items():
                if value is None:
                    continue
                key, _, const = name.partition("__")
                norm = const or _norm_version(value)
                if norm:
                    keys.setdefault(key, {}).setdefault(norm, hit)
        else:
            _record(scan, p.entry, hit, p.rank)


def _record(scan, eid, hit, rank):
    lst = scan.matches.setdefault(eid, [])
    if lst and lst[-1].line == hit.line:  # two patterns of one entry on one line: one match
        scan.best_rank[eid] = max(scan.best_rank[eid], rank)
        return
    if len(lst) < MAX_SHOWN:
        lst.append(hit)
    scan.counts[eid] = scan.counts.get(eid, 0) + 1
    scan.best_rank[eid] = max(scan.best_rank.get(eid, rank), rank)
    scan.first_line.setdefault(eid, hit.line)


def _norm_version(value):
    """'2.19.3+cuda12.1' / '(2, 19, 3)' / '2.15.5-1' -> '2.19.3'. PyTorch < 1.10 printed
    NCCL 2.10.3 as '21.0.3' (major*1000+minor*100+patch split wrongly): such values are skipped."""
    parts = re.findall(r"\d+", value)[:3]
    if len(parts) < 3 or int(parts[0]) >= 10:
        return None
    return ".".join(str(int(x)) for x in parts)


def scan_stream(stream, kb):
    """One pass over a binary stream; memory stays at about two blocks."""
    scan = Scan()
    tail = b""
    base = 0  # lines before the current buffer
    eof = False
    while not eof:
        block = stream.read(BLOCK)
        if not block:
            eof = True
            buf, tail = tail, b""
            if not buf:
                break
        else:
            scan.bytes += len(block)
            buf = tail + block
            cut = buf.rfind(b"\n")
            if cut < 0:
                if len(buf) < MAX_LINE:
                    tail = buf
                    continue
                cut = len(buf) - 1
            buf, tail = buf[:cut + 1], buf[cut + 1:]
        _scan_buffer(scan, kb, buf, base)
        base += buf.count(b"\n") + (1 if eof and not buf.endswith(b"\n") else 0)
    scan.lines = base
    return scan


def _scan_buffer(scan, kb, buf, base):
    """Candidate lines of one buffer (whole lines), in order, each tried once."""
    starts = {}  # line start -> the needles found on that line
    rfind = buf.rfind
    for pre in kb.prefilters:
        for m in pre.finditer(buf):
            starts.setdefault(rfind(b"\n", 0, m.start()) + 1, set()).add(m.group())
    size = len(buf)
    counted, line = 0, base
    for s, hits in sorted(starts.items()):
        e = buf.find(b"\n", s)
        if e < 0:
            e = size
        line += buf.count(b"\n", counted, s)
        counted = s
        nxt = None
        if e < size:
            ne = buf.find(b"\n", e + 1)
            nxt = buf[e + 1:ne if ne >= 0 else size]
        _consider(scan, kb, line + 1, buf[s:e], nxt, hits)


# --------------------------------------------------------------------------- analysis


def analyze(scan, kb):
    """Rank what matched: the root error first, then related errors, then the cascade."""
    matched = {}
    for eid, hits in scan.matches.items():
        matched[eid] = {"hits": hits, "count": scan.counts[eid], "rank": scan.best_rank[eid],
                        "first": scan.first_line[eid]}
    for eid, keys in scan.distinct.items():
        for key, values in keys.items():
            if len(values) >= 2:
                hits = sorted(values.values(), key=lambda h: h.line)
                m = matched.setdefault(eid, {"hits": [], "count": 0, "rank": kb.by_id[eid]["rank"],
                                             "first": hits[0].line})
                m["hits"] = sorted(m["hits"] + hits, key=lambda h: h.line)[:MAX_SHOWN]
                m["count"] += len(hits)
                m["first"] = min(m["first"], hits[0].line)
                m["distinct"] = {"key": key, "values": sorted(values)}
    order = sorted(matched, key=lambda eid: (kb.by_id[eid]["kind"] == "echo", -matched[eid]["rank"],
                                             matched[eid]["first"]))
    results = []
    root_is_echo = bool(order) and kb.by_id[order[0]]["kind"] == "echo"
    for i, eid in enumerate(order):
        e = kb.by_id[eid]
        if i == 0:
            role = "root"
        elif e["kind"] == "echo":
            role = "cascade"
        else:
            role = "related"
        results.append(_finding(e, matched[eid], role, scan, root_is_echo and i == 0))
    return results


def _finding(e, m, role, scan, echo_only):
    causes = []
    for ci, c in enumerate(e["causes"]):
        ev = scan.evidence.get((e["id"], ci), [])
        causes.append({"text": c["text"], "checks": list(c["checks"]), "confirm": list(c["confirm"]),
                       "fix": list(c["fix"]), "exports": dict(c["exports"]),
                       "evidence": [{"line": h.line, "text": h.text} for h in ev], "static_rank": ci + 1})
    # causes the log itself points at go first (stable: the data's order among equals)
    causes.sort(key=lambda c: (not c["evidence"], c["static_rank"]))
    notes = []
    for group, table in e.get("lookup", {}).items():
        seen = []
        for h in m["hits"]:
            v = h.groups.get(group)
            if v is not None and v not in seen:
                seen.append(v)
                notes.append("%s %s: %s" % (group.capitalize(), v, table.get(v, "not in gpudoctor's table: see the "
                                                                                 "references")))
    f = {"id": e["id"], "family": e["family"], "title": e["title"], "kind": e["kind"], "role": role,
         "rank": m["rank"], "explain": e["explain"].strip(), "first_line": m["first"], "match_count": m["count"],
         "matches": [{"line": h.line, "text": h.text} for h in m["hits"]], "notes": notes, "causes": causes,
         "debug": list(e["debug"]), "references": [dict(r) for r in e["references"]],
         "knowledge_file": e["source_file"]}
    if m.get("distinct"):
        f["distinct"] = m["distinct"]
        f["notes"].append("%s differs within this log: %s" % (m["distinct"]["key"].replace("_", " "),
                                                              ", ".join(m["distinct"]["values"])))
    if echo_only:
        f["notes"].append("Only the echo of a failure was found: the error that started it is earlier in "
                          "the full log or in another rank's log.")
    return f


def explain_stream(stream, kb=None, source="<text>"):
    kb = kb or load_knowledge()
    scan = scan_stream(stream, kb)
    findings = analyze(scan, kb)
    return {"schema": SCHEMA, "version": _version(), "source": source, "lines": scan.lines, "bytes": scan.bytes,
            "matched": bool(findings), "root": findings[0]["id"] if findings else None, "findings": findings,
            "triage": [] if findings else list(GENERIC_TRIAGE), "checks": None}


def explain_text(text, kb=None, source="<text>"):
    import io

    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return explain_stream(io.BytesIO(data), kb, source)


def explain_file(path, kb=None):
    with open(path, "rb") as f:
        return explain_stream(f, kb, source=path)


def _version():
    from gpudoctor import __version__

    return __version__


# --------------------------------------------------------------------------- --check


def run_confirming_checks(result, gather_nodes=None, config=None):
    """Run the checks the matched causes name on this machine and mark each cause
    supported (a check found a problem), ruled out (every check passed) or unknown."""
    ids = []
    for f in result["findings"]:
        for c in f["causes"]:
            for cid in c["checks"]:
                if cid not in ids:
                    ids.append(cid)
    if not ids:
        result["checks"] = {"ran": [], "note": "no confirming gpudoctor check for these causes yet; "
                                               "use the confirm commands"}
        return result
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import run_checks

    registry = load_checks()
    checks = [registry.get(cid) for cid in ids if registry.get(cid)]
    try:
        if gather_nodes is None:
            from gpudoctor import gather

            nodes = gather.local()
        else:
            nodes = gather_nodes()
        if config is None:
            from gpudoctor.config import load_config

            config = load_config(None)
        report = run_checks(nodes, checks, config)
    except Exception as exc:  # --check must not hide the explanation
        result["checks"] = {"ran": [], "error": "could not check this machine: %s: %s" % (type(exc).__name__, exc)}
        return result
    status = {}
    for r in report.results:
        msgs = [fd.message for fd in r.findings if fd.severity in ("error", "warning")]
        if msgs:
            st = "failed"
        elif r.status == "pass":
            st = "passed"
        else:
            reasons = [text for text, _ in r.groups(r.status)] + list(r.crashed)
            st = "skipped"
            msgs = reasons
        status[r.id] = {"id": r.id, "status": st, "messages": msgs,
                        "fix": [fd.fix for fd in r.findings if fd.fix]}
    host = nodes[0].host if nodes else "this machine"
    for f in result["findings"]:
        for c in f["causes"]:
            if not c["checks"]:
                continue
            sts = [status.get(cid, {"status": "skipped"})["status"] for cid in c["checks"]]
            if "failed" in sts:
                c["verdict"] = "supported"
            elif sts and all(s == "passed" for s in sts):
                c["verdict"] = "ruled out"
            else:
                c["verdict"] = "unknown"
            c["check_results"] = [status[cid] for cid in c["checks"] if cid in status]
        # what the facts say moves a supported cause up and a ruled-out one down
        f["causes"].sort(key=lambda c: {"supported": 0, None: 1, "unknown": 1, "ruled out": 2}[c.get("verdict")])
    result["checks"] = {"host": host, "ran": [status[i] for i in ids if i in status]}
    return result


# --------------------------------------------------------------------------- output


def render_text(result, out, color=False):
    w = out.write
    bold = (lambda s: "\x1b[1m%s\x1b[0m" % s) if color else (lambda s: s)
    src = result["source"]
    w("gpudoctor explain: %s (%d line%s)\n" % (src, result["lines"], "" if result["lines"] == 1 else "s"))
    if not result["matched"]:
        w("\nNo known error found. gpudoctor does not guess: nothing in its knowledge base matches this text.\n")
        w("Generic triage:\n")
        for i, t in enumerate(result["triage"], 1):
            w("  %d. %s\n" % (i, t))
        return
    findings = result["findings"]
    root = findings[0]
    _render_finding(w, bold, root, "ROOT CAUSE" if root["kind"] != "echo" else "ONLY ECHOES FOUND", full=True)
    related = [f for f in findings[1:] if f["role"] == "related"]
    cascade = [f for f in findings[1:] if f["role"] == "cascade"]
    if related:
        w("\n%s\n" % bold("ALSO SEEN (after the root error these are usually consequences; fix the root first)"))
        for f in related:
            _render_finding(w, bold, f, None, full=False)
    if cascade:
        w("\n%s\n" % bold("CASCADE (echoes of the failure on this or other ranks: not causes)"))
        for f in cascade:
            h = f["matches"][0]
            more = " (+%d more)" % (f["match_count"] - 1) if f["match_count"] > 1 else ""
            w("  %-24s line %d: %s%s\n" % (f["id"], h["line"], h["text"], more))
    if result.get("checks"):
        ch = result["checks"]
        w("\n%s\n" % bold("CHECKS RUN ON %s" % ch.get("host", "this machine")))
        if ch.get("error") or ch.get("note"):
            w("  %s\n" % (ch.get("error") or ch.get("note")))
        for r in ch.get("ran", []):
            w("  %-6s %s%s\n" % (r["status"].upper(), r["id"], (": " + "; ".join(r["messages"])) if r["messages"] else ""))


def _render_finding(w, bold, f, heading, full):
    if heading:
        w("\n%s  %s\n" % (bold(heading), bold(f["id"])))
        w("  %s\n" % f["title"])
    else:
        w("  %s  %s\n" % (bold(f["id"]), f["title"]))
    for h in f["matches"][:3 if full else 1]:
        w("  line %d: %s\n" % (h["line"], h["text"]))
    more = f["match_count"] - len(f["matches"][:3 if full else 1])
    if more > 0:
        w("  (+%d more matching line%s)\n" % (more, "" if more == 1 else "s"))
    if not full:
        c = f["causes"][0]
        w("    likely: %s\n" % c["text"])
        return
    for n in f["notes"]:
        w("  note: %s\n" % n)
    w("\n  %s\n" % _wrap(f["explain"], 2))
    w("\n  Likely causes, most likely first:\n")
    for i, c in enumerate(f["causes"], 1):
        verdict = "  [%s by this machine's facts]" % c["verdict"] if c.get("verdict") in ("supported", "ruled out") \
            else ""
        w("  %d. %s%s\n" % (i, _wrap(c["text"], 5), verdict))
        for ev in c["evidence"][:1]:
            w("     seen in the log, line %d: %s\n" % (ev["line"], ev["text"]))
        if c["checks"]:
            w("     confirm: gpudoctor check --select %s\n" % ",".join(c["checks"]))
        for cmd in c["confirm"]:
            w("     confirm: %s\n" % cmd)
        for r in c.get("check_results", []):
            w("     check %s: %s%s\n" % (r["id"], r["status"], (" - " + "; ".join(r["messages"])) if r["messages"]
                                         else ""))
        for k, v in c["exports"].items():
            w("     export %s=%s\n" % (k, v))
        for cmd in c["fix"]:
            w("     fix: %s\n" % cmd)
    if f["debug"]:
        w("\n  More detail: %s\n" % "; ".join(f["debug"]))
    if f["references"]:
        w("\n  References:\n")
        for r in f["references"]:
            w("    - %s: %s\n" % (r["title"], r["url"]))


def _wrap(text, indent):
    import textwrap

    return ("\n" + " " * indent).join(textwrap.wrap(" ".join(text.split()), 100 - indent)) or text


# --------------------------------------------------------------------------- CLI


def main(args):
    """`gpudoctor explain`. Exit codes (like grep): 0 something matched, 1 nothing matched,
    2 bad input (one line on stderr)."""
    from gpudoctor.errors import InputError

    text, path = getattr(args, "text", None), getattr(args, "file", None)
    if text is not None and path is not None:
        raise InputError("give the error text or --file LOG, not both")
    if text is None and path is None:
        raise InputError("give an error text, '-' to read standard input, or --file LOG")
    kb = load_knowledge()
    if path is not None:
        if os.path.isdir(path):
            raise InputError("--file %s is a directory, not a log file" % path)
        try:
            f = open(path, "rb")
        except OSError as exc:
            raise InputError("cannot read %s: %s" % (path, exc.strerror or exc))
        with f:
            result = explain_stream(f, kb, source=path)
    elif text == "-":
        result = explain_stream(sys.stdin.buffer, kb, source="<stdin>")
    else:
        result = explain_text(text, kb, source="<argument>")
    if getattr(args, "check", False) and result["matched"]:
        run_confirming_checks(result)
    if getattr(args, "json", False):
        import json

        sys.stdout.write(json.dumps(result, indent=1) + "\n")
    else:
        render_text(result, sys.stdout, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    return 0 if result["matched"] else 1
