"""The text report of `gpudoctor explain`."""

import textwrap

from gpudoctor.fixline import sh

# An export of the knowledge is "VALUE" or "VALUE   (why)": three spaces, then the why in
# parentheses (gpudoctor/data/knowledge/*.toml). Only VALUE is the variable's value.
_NOTE_SEP = "   ("


def split_export(value):
    """(value, why or None) of one knowledge export."""
    head, sep, tail = value.partition(_NOTE_SEP)
    if sep and tail.rstrip().endswith(")") and head.strip():
        return head.rstrip(), tail.rstrip()[:-1].strip()
    return value, None


def _one_line(text):
    """A check's message holds node values, a log line or a file name anything: a control
    character (C0, C1, a stray ESC that is no ANSI sequence, a backspace), a bidi override
    or a line separator is shown escaped, never a line break or a terminal sequence."""
    text = str(text)
    return text if text.isprintable() else "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


_BOLD = ("\x1b[1m", "\x1b[0m")


def _writer(out, color):
    """out.write for the report: every line it writes is passed through _one_line, so a value
    that one of explain's readers copied from a log (an exception's message or file name in a
    note or a fix, a line in the CASCADE or NO KNOWN ERROR lists, a check's note) can never
    add a line, move the cursor or reorder the text with a bidi override, whichever part of
    the report prints it. Only the report's own bold sequences stay (with color)."""

    def w(text):
        lines = []
        for line in str(text).split("\n"):
            if color:
                parts = line.split(_BOLD[0])
                line = _BOLD[0].join(_BOLD[1].join(_one_line(p) for p in q.split(_BOLD[1])) for q in parts)
            else:
                line = _one_line(line)
            lines.append(line)
        out.write("\n".join(lines))

    return w


def render_text(result, out, color=False):
    w = _writer(out, color)
    bold = (lambda s: "%s%s%s" % (_BOLD[0], s, _BOLD[1])) if color else (lambda s: s)
    w("gpudoctor explain: %s (%d line%s)\n" % (_one_line(result["source"]), result["lines"], "" if result["lines"] == 1 else "s"))
    multi = len(result.get("sources") or []) > 1
    st = result.get("stopped_early")
    if st:
        where = "at line %s%s; this answer covers only what was read before (%s bytes)" % (
            st.get("line"), " of %s" % _one_line(str(st["file"])) if st.get("file") else "", st.get("bytes_read"))
        if st.get("reason") in ("SIGINT", "SIGTERM"):  # scan.stop_reason: the signal's name
            w("%s: interrupted (%s) after %s s, %s.\n" % (bold("STOPPED EARLY"), st["reason"], st.get("after_s"), where))
        else:
            w("%s: the deadline (--timeout %s s) passed after %s s, %s. Rerun with a larger --timeout (0: no limit) "
              "for the rest.\n" % (bold("STOPPED EARLY"), st.get("timeout_s"), st.get("after_s"), where))
    fr = result.get("flight_recorder")
    if fr:
        w("Flight Recorder: %d dump%s (ranks %s), format %s: %s\n" % (
            fr["dumps"], "" if fr["dumps"] == 1 else "s", _short(fr["ranks"]), fr.get("version"), fr["summary"]))
        for u in fr.get("unreadable", [])[:3]:
            w("  not read: %s: %s\n" % (_one_line(u["file"]), _one_line(u["why"])))
    verdict = result["verdict"]
    if result.get("facts"):
        fx = result["facts"]
        w("fixes computed from the facts of %s%s\n" % (fx.get("host") or "the node",
                                                      " (%s)" % fx["source"] if fx.get("source") else ""))
    if verdict == "no_error":
        w("\n%s\n" % bold("NO ERROR FOUND"))
        w("  Nothing in this text is an error line that gpudoctor knows, and no line says that something failed.\n")
        _context(w, bold, result)
        return
    if verdict == "unknown_error":
        w("\n%s\n" % bold("NO KNOWN ERROR"))
        w("  No known error found: %s, but nothing in gpudoctor's knowledge matches it. gpudoctor does not "
          "guess.\n" % ("this text reports an error" if result["errors"] else "this text was given as an error"))
        for e in result["errors"][:3]:
            w("  %s: %s\n" % (_loc(e, multi), e["text"]))
        _context(w, bold, result)
        w("\nGeneric triage:\n")
        for i, t in enumerate(result["triage"], 1):
            w("  %d. %s\n" % (i, t))
        return
    findings = result["findings"]
    root = findings[0]
    _finding(w, bold, root, "ROOT CAUSE" if verdict == "root_cause" else "ONLY ECHOES FOUND", full=True, multi=multi)
    related = [f for f in findings[1:] if f["role"] == "related"]
    cascade = [f for f in findings[1:] if f["role"] == "cascade"]
    if related:
        w("\n%s\n" % bold("ALSO SEEN (after the root error these are usually consequences; fix the root first)"))
        for f in related:
            _finding(w, bold, f, None, full=False, multi=multi)
    if cascade:
        w("\n%s\n" % bold("CASCADE (echoes of the failure on this or other ranks: not causes)"))
        for f in cascade:
            h = f["matches"][0]
            more = " (+%d more)" % (f["match_count"] - 1) if f["match_count"] > 1 else ""
            w("  %-24s %s: %s%s\n" % (f["id"], _loc(h, multi), h["text"], more))
    _context(w, bold, result)
    if result.get("checks"):
        ch = result["checks"]
        w("\n%s\n" % bold("CHECKS RUN ON %s" % ch.get("host", "this machine")))
        if ch.get("error") or ch.get("note"):
            w("  %s\n" % (ch.get("error") or ch.get("note")))
        for r in ch.get("ran", []):
            msgs = (": " + "; ".join(_one_line(m) for m in r["messages"])) if r["messages"] else ""
            w("  %-6s %s%s\n" % (r["status"].upper(), r["id"], msgs))


def _context(w, bold, result):
    chose = (result.get("nccl_info") or {}).get("summary")  # what NCCL's INFO lines say it chose (ncclinfo.py)
    if not result.get("context") and not chose:
        return
    w("\n%s\n" % bold("NOTES (INFO/WARN lines: context, not a cause on their own)"))
    if chose:
        w("  NCCL's INFO lines: %s\n" % _wrap(chose, 4))
    for n in result["context"]:
        more = " (+%d more)" % (n["match_count"] - 1) if n["match_count"] > 1 else ""
        label = {"info": "INFO line", "warn": "WARN line", "warning": "known warning"}.get(n["severity"], "")
        w("  %s (%s): %s\n" % (n["id"], label, _wrap(n["note"], 4)))
        if n.get("first_line"):
            w("    line %d: %s%s\n" % (n["first_line"], _one_line(n["text"]), more))
        if n.get("fix"):
            w("    if it matters: %s\n" % n["fix"])


def _short(items, limit=8):
    items = [str(x) for x in items]
    return ", ".join(items[:limit]) + (" and %d more" % (len(items) - limit) if len(items) > limit else "")


def _loc(h, multi, key="line"):
    """'line 3', 'rank3.log line 3' (several files), or the file alone (no line: a dump)."""
    line, path = h.get(key), h.get("file")
    path = _one_line(path) if path else path  # a file's name in a folder may hold any byte
    if line is None:
        return path or "-"
    return ("%s line %d" % (path, line)) if multi and path else "line %d" % line


def _origin(f):
    """'first: rank 3 on gpu-node-02 at 12:00:01 (rank3.log line 40); the same error on 15 other
    ranks and 3 other hosts: echoes', or None when the lines name no rank or host."""
    o, sp = f.get("origin"), f.get("spread") or {}
    if not o or not (o.get("rank") or o.get("host") or o.get("time") or sp.get("files", 1) > 1):
        return None
    who = []
    if o.get("rank"):
        who.append("rank %s" % o["rank"])
    if o.get("host"):
        who.append("on %s" % o["host"])
    if o.get("time"):
        who.append("at %s" % o["time"])
    where = o.get("file") if o.get("line") is None else "%s line %s" % (o.get("file"), o.get("line"))
    text = "first: %s (%s)" % (" ".join(who) or "in %s" % o.get("file"), where)
    others = []
    if sp.get("ranks", 0) > 1:
        others.append("%d other rank%s" % (sp["ranks"] - 1, "" if sp["ranks"] == 2 else "s"))
    if sp.get("hosts", 0) > 1:
        others.append("%d other host%s" % (sp["hosts"] - 1, "" if sp["hosts"] == 2 else "s"))
    if sp.get("files", 1) > 1 and not others:
        others.append("%d other file%s" % (sp["files"] - 1, "" if sp["files"] == 2 else "s"))
    if others:
        text += "; the same error on %s: echoes of the first" % " and ".join(others)
    return text


def _finding(w, bold, f, heading, full, multi=False):
    if heading:
        w("\n%s  %s\n" % (bold(heading), bold(f["id"])))
        w("  %s\n" % f["title"])
        origin = _origin(f)
        if origin:
            w("  %s\n" % _one_line(origin))
        late = f.get("late_rank")
        if late:  # analyze.late_rank: the rank behind, read from the process-group status lines
            w("  likely late: rank %s never enqueued collective #%s (%s) that %s waits in\n"
              % (late["rank"], late["seq"], _one_line(str(late["op"])),
                 ", ".join("rank %s" % r for r in late["waiting"][:4]) or "another rank"))
    else:
        w("  %s  %s\n" % (bold(f["id"]), f["title"]))
    shown = f["matches"][:3 if full else 1]
    for h in shown:
        w("  %s: %s\n" % (_loc(h, multi), _one_line(h["text"])))
    more = f["match_count"] - len(shown)
    if more > 0:
        w("  (+%d more matching line%s)\n" % (more, "" if more == 1 else "s"))
    if not full:
        w("    likely: %s\n" % f["causes"][0]["text"])
        # gpuhw.fold: a hardware fault on a GPU the root does not name is that GPU's own fault, not an echo
        # of the root's (the JSON has the note; the heading above says "usually consequences")
        for n in f["notes"]:
            if n.startswith("Another GPU:"):
                w("    %s Its own fault, not a consequence of the root: act on that GPU too.\n" % n)
        return
    for s in f.get("signals", [])[:3]:
        w("  confirmed by %s: %s\n" % (_loc(s, multi), _one_line(s["text"])))
    for n in f["notes"]:
        w("  note: %s\n" % n)
    w("\n  %s\n" % _wrap(f["explain"], 2))
    if f.get("confidence") in ("family", "structural") and not f["causes"][0]["evidence"]:
        w("\n  Possible causes (the text does not say which: the confirm lines tell them apart):\n")
    else:
        w("\n  Likely causes, most likely first:\n")
    for i, c in enumerate(f["causes"], 1):
        verdict = "  [%s by this machine's facts]" % c["verdict"] if c.get("verdict") in ("supported", "ruled out") \
            else ""
        w("  %d. %s%s\n" % (i, _wrap(c["text"], 5), verdict))
        for ev in c["evidence"][:1]:
            w("     seen in the log, %s: %s\n" % (_loc(ev, multi), _one_line(ev["text"])))
        if c["checks"]:
            w("     confirm: gpudoctor check --select %s\n" % ",".join(c["checks"]))
        for cmd in c["confirm"]:
            w("     confirm: %s\n" % cmd)
        for r in c.get("check_results", []):
            w("     check %s: %s%s\n" % (r["id"], r["status"], (" - " + "; ".join(_one_line(m) for m in r["messages"]))
                                         if r["messages"] else ""))
        computed = c.get("computed_fix") or ""
        for k, v in c["exports"].items():
            # the value may come from a node's facts (an interface name): one quoted word; the
            # knowledge's "VALUE   (why)" prints the why as a comment, outside the quotes. A value
            # the computed fix names (fixes.py: this node's NIC) is the facts' own, never split: a
            # facts file's interface 'eth0   (use eth1)' printed 'export X=eth0   # use eth1'
            value, note = (v, None) if computed and sh(v) in computed else split_export(v)
            w("     export %s=%s%s\n" % (k, sh(value), ("   # " + _one_line(note)) if note else ""))
        for cmd in c["fix"]:
            w("     fix: %s\n" % cmd)
        if c.get("computed_note"):
            w("     note: %s\n" % c["computed_note"])
    if f["debug"]:
        w("\n  More detail: %s\n" % "; ".join(f["debug"]))
    if f["references"]:
        w("\n  References:\n")
        for r in f["references"]:
            w("    - %s: %s\n" % (r["title"], r["url"]))


def _wrap(text, indent):
    return ("\n" + " " * indent).join(textwrap.wrap(" ".join(text.split()), 100 - indent)) or text
