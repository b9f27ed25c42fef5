"""The text report of `gpudoctor explain`."""

import contextvars
import re
import shutil
import textwrap

from gpudoctor.fixline import ACTS, KEEP, TRIGGER, guarded_prose, hostile, inert_word, keep_quoted, sh, shown_word

# An export of the knowledge is "VALUE" or "VALUE   (why)": three spaces, then the why in
# parentheses (gpudoctor/data/knowledge/*.toml). Only VALUE is the variable's value.
_NOTE_SEP = "   ("

# the phrases analyze._went_on_before's notes carry (the run completed / the job went on after the line)
_WENT_ON = ("so it did not end the run", "then the job went on")


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

# The report is read in a terminal of 100 columns (the answers' paragraphs were already wrapped
# there), or in a narrower one (80 columns, a split pane: its width, 40 at the least): every line of
# prose (a title, a note, a cause, More detail, a reference) that would be longer is wrapped once,
# its continuation lines indented under it. Kept whole, as the input has them: a quoted log line
# (searched for in the log as printed), the input's name and the first failure's place (file
# names), a command line (a fix, a confirm line, an export: pasted as is, so one line; a terminal
# narrower than it folds it, and it copies whole; an export's "# why" comment goes on comment lines
# below it) and a URL (a reference's URL gets a line of its own). A pipe or a file gets 100 columns.
WIDTH = 100
# the width of this report's prose (render_text sets it: the terminal's, 40..WIDTH)
_COLS = contextvars.ContextVar("gpudoctor_explain_cols", default=WIDTH)


def terminal_width(stream):
    """The width explain's text is wrapped at on ``stream``: a terminal's columns (COLUMNS, else its size, as
    rich reads it for check's report), 40..WIDTH; WIDTH for a pipe or a file."""
    try:
        if not stream.isatty():
            return WIDTH
        cols = shutil.get_terminal_size((WIDTH, 24)).columns
    except (AttributeError, OSError, ValueError):
        return WIDTH
    return max(40, min(WIDTH, cols))
# causes printed in full (their confirm / export / fix lines); later ones that no line of the text
# points at are listed by their text only (the JSON keeps every cause with all its lines)
FULL_CAUSES = 4


# Prose (a title, a note, a cause) quotes what the log says as it is written: written safe before pretty by
# fixline.guarded_prose (docs/security.md 58., 68.; the rule moved there so that plan's notes follow it too, 78.).
_TRIGGER, _ACTS, _inert = TRIGGER, ACTS, inert_word

# the spans around a separator followed by a blank that the log itself holds (origin.windows): a prose string holding
# one is written safe too (docs/security.md 68.: a log value `x; touch M` read as the prose's own '; ')
_LOG_WINDOWS = contextvars.ContextVar("gpudoctor_explain_log_windows", default=frozenset())


def safe_prose(text):
    """``text`` as-is, or, where a word of it holds a command separator or substitution (TRIGGER), or it holds a
    separator the log wrote (_LOG_WINDOWS), written safe by fixline.guarded_prose; the knowledge's own prose, whole,
    as written (75.)."""
    windows = _LOG_WINDOWS.get()
    if not TRIGGER.search(text) and not (windows and any(w in text for w in windows)):
        return text
    if text in _own_prose():
        return text  # the knowledge's own words, whole: `$(scontrol show hostnames ...)` read as written
    return guarded_prose(text, windows)


_OWN = []


def _own_prose():
    """The knowledge's own prose strings that hold a trigger, as the report writes them (_flat): titles, explanations,
    causes and references' titles of the built-in knowledge that hold no slot a log value fills (famfix.SLOT's
    `{$var|...}`). A prose string that is one of them whole holds no word of the log, so 58.'s guard, which wrote
    them as $'\x24((' words (slurm.script_empty_operand's `$(( ))`, elastic.nodes_alone's `$(hostname)`,
    omegaconf.interpolation's `${...}`: review24's and userwalk24's leftover; docs/security.md 75.), leaves them as
    written; any other string (a filled slot, a note built around a log value) is guarded as before."""
    if not _OWN:
        own = set()
        try:
            from gpudoctor.explain.analyze import _tell_apart
            from gpudoctor.explain.knowledge import load_knowledge

            for e in load_knowledge().entries:
                texts = [e.get("title"), e.get("explain")] + [c.get("text") for c in e.get("causes") or ()
                                                              if isinstance(c, dict)]
                texts += [r.get("title") for r in e.get("references") or () if isinstance(r, dict)]
                # the family answer's note, built of the knowledge's words only (analyze._tell_apart: the entry's
                # first debug line): `free -g; sacct ...` and `grep -iE 'killed process|oom'` as written, not
                # $'(confirm:)\x3b' (session 32)
                if e.get("debug"):
                    texts.append(_tell_apart(e))
                for t in texts:
                    if isinstance(t, str) and "{$" not in t and _TRIGGER.search(_flat(t)):
                        own.add(_flat(t))
        except Exception:  # (a knowledge that does not load: every trigger guarded, as before)
            own = set()
        _OWN.append(frozenset(own))
    return _OWN[0]


def _fill(prefix, text, indent=None, keep=False, whole=False):
    """``prefix`` + ``text`` as lines of at most the report's width (WIDTH, or a narrower terminal's), continuation
    lines indented by ``indent`` spaces (default: under the text). Words are never broken (a path, a URL).
    ``whole``: a command line to paste (a fix, a confirm line), never wrapped: split between words, its first line
    pasted alone ran without the rest ('cat /etc/nccl.conf' / '~/.nccl.conf 2>/dev/null'), as check's fix lines
    are never wrapped (gpudoctor/report/text.py)."""
    text = str(text) if keep or whole else safe_prose(str(text))
    width = _COLS.get()
    if whole or len(prefix) + len(text) <= width:
        return prefix + text
    indent = len(prefix) if indent is None else indent
    tw = textwrap.TextWrapper(width=width, initial_indent=prefix, subsequent_indent=" " * indent,
                              break_long_words=False, break_on_hyphens=False)
    # a command line (keep: a fix, confirm or debug line) is never broken inside a shell-quoted word: the next line
    # began inside the quote and ran the value's rest when copied alone (red team 2026-11-27b, docs/security.md 31.)
    return "\n".join(tw.wrap(keep_quoted(text) if keep else text)).replace(KEEP, " ") or prefix + text


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


def render_text(result, out, color=False, width=WIDTH):
    """The report on ``out``; ``width``: its prose's widest line (terminal_width(out) at a terminal), 40..WIDTH."""
    token = _COLS.set(max(40, min(WIDTH, int(width or WIDTH))))
    spans = _LOG_WINDOWS.set(getattr(result, "log_windows", None) or frozenset())
    try:
        _render_text(result, out, color)
    finally:
        _LOG_WINDOWS.reset(spans)
        _COLS.reset(token)


def _render_text(result, out, color):
    w = _writer(out, color)
    bold = (lambda s: "%s%s%s" % (_BOLD[0], s, _BOLD[1])) if color else (lambda s: s)
    w("gpudoctor explain: %s (%d line%s)\n" % (_one_line(result["source"]), result["lines"],
                                              "" if result["lines"] == 1 else "s"))
    multi = len(result.get("sources") or []) > 1
    st = result.get("stopped_early")
    if st:
        where = "at line %s%s; this answer covers only what was read before (%s bytes)" % (
            st.get("line"), " of %s" % _one_line(str(st["file"])) if st.get("file") else "", st.get("bytes_read"))
        if st.get("resumed_line"):  # a large file's middle passed over for its tail (perf21)
            where += ", then read on from its line %s to %s (where a failing job's last lines are)" % (
                st["resumed_line"], "its line %s" % st["stopped_again"] if st.get("stopped_again") else "its end")
        if st.get("read_after"):  # several files: the ones after it got their share of the time (perf21)
            where += " and the %d file%s read whole after it (%s)" % (
                len(st["read_after"]), "" if len(st["read_after"]) == 1 else "s",
                ", ".join(_one_line(str(x)) for x in st["read_after"][:3]) + (", ..." if len(st["read_after"]) > 3
                                                                               else ""))
        if st.get("reason") in ("SIGINT", "SIGTERM"):  # scan.stop_reason: the signal's name
            w("%s: %s\n" % (bold("STOPPED EARLY"), _fill("", "interrupted (%s) after %s s, %s." % (
                st["reason"], st.get("after_s"), where), 2)))
        else:
            w("%s: %s\n" % (bold("STOPPED EARLY"), _fill("", "the deadline (--timeout %s s) passed after %s s, %s. "
                                                           "Rerun with a larger --timeout (0: no limit) for the rest."
                                                           % (st.get("timeout_s"), st.get("after_s"), where), 2)))
    fr = result.get("flight_recorder")
    if fr:
        w("Flight Recorder: %d dump%s (ranks %s), format %s: %s\n" % (
            fr["dumps"], "" if fr["dumps"] == 1 else "s", _short(fr["ranks"]), fr.get("version"), fr["summary"]))
        for u in fr.get("unreadable", [])[:3]:
            w("  not read: %s: %s\n" % (_one_line(u["file"]), _one_line(u["why"])))
    verdict = result["verdict"]
    if result.get("facts"):
        fx = result["facts"]
        many = fx.get("nodes") if isinstance(fx.get("nodes"), int) and fx["nodes"] > 1 else 0
        # a folder of facts: the NIC is computed for every node, GPU questions from the first (docs/explain.md); the
        # line named only the first, as if the others had not been read (userwalk27)
        w(_fill("", "fixes computed from the facts of %s%s%s" % (
            "%d nodes" % many if many else fx.get("host") or "the node",
            " (%s)" % fx["source"] if fx.get("source") else "",
            ": the network of each, GPUs from the first, %s" % fx["host"] if many and fx.get("host") else ""), 2)
          + "\n")
    if verdict == "no_error":
        w("\n%s\n" % bold("NO ERROR FOUND"))
        if any(p in (n.get("note") or "") for n in result.get("context") or () for p in _WENT_ON):
            # (analyze._went_on_before's notes: the job completed or kept making progress after them, outcome.py)
            w(_fill("  ", "Lines below say something failed, but the job went on after them (it completed or kept "
                          "making progress): none of them stopped it.") + "\n")
        elif not result.get("bytes") and not fr and not result.get("ras") and not st:  # (not: stopped before reading)
            # an empty log or pipe (userwalk22): "nothing in this text" read as if a text had been judged
            w(_fill("  ", "The input is empty (0 bytes): there was nothing to judge. A job's log can be empty when the "
                          "job failed before it wrote anything, or when its errors went elsewhere (stderr without "
                          "2>&1, sbatch --error).", keep=True) + "\n")  # gpudoctor's own words, no log's
        else:
            w("  Nothing in this text is an error line that gpudoctor knows, and no line says something failed.\n")
        _context(w, bold, result)
        return
    if verdict == "unknown_error":
        w("\n%s\n" % bold("NO KNOWN ERROR"))
        w(_fill("  ", "No known error found: %s, but nothing in gpudoctor's knowledge matches it. gpudoctor does not "
                      "guess." % ("this text reports an error" if result["errors"] else "this text was given as an "
                                                                                          "error")) + "\n")
        for e in result["errors"][:3]:
            w("  %s: %s\n" % (_loc(e, multi), e["text"]))
        _context(w, bold, result)
        w("\nGeneric triage:\n")
        for i, t in enumerate(result["triage"], 1):  # gpudoctor's own lines (GENERIC_TRIAGE), no log words: the
            w(_fill("  %d. " % i, t, keep=True) + "\n")  # '|' of 'dmesg -T | grep' is a pipe, not a log's separator
        return
    findings = result["findings"]
    root = findings[0]
    _finding(w, bold, root, {"root_cause": "ROOT CAUSE", "likely_cause": "LIKELY CAUSE (not proven by this text)"}.get(
        verdict, "ONLY ECHOES FOUND"), full=True, multi=multi)
    if root.get("alternatives"):  # (wrong21) calibrate.py: the families a likely cause does not rule out
        w("\n%s\n" % bold("OR (what tells each apart)"))
        for a in root["alternatives"]:
            w(_fill("  %s: " % a["family"], _flat(a["title"]) + (": " + _flat(a["tell"]) if a.get("tell") else ""), 4)
              + "\n")
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
            w(_fill("  ", ch.get("error") or ch.get("note")) + "\n")
        for r in ch.get("ran", []):
            msgs = (": " + "; ".join(_one_line(m) for m in r["messages"])) if r["messages"] else ""
            w(_fill("  %-6s " % r["status"].upper(), r["id"] + msgs, 9) + "\n")


def _context(w, bold, result):
    chose = (result.get("nccl_info") or {}).get("summary")  # what NCCL's INFO lines say it chose (ncclinfo.py)
    if not result.get("context") and not chose:
        return
    w("\n%s\n" % bold("NOTES (INFO/WARN lines: context, not a cause on their own)"))
    if chose:
        w(_fill("  NCCL's INFO lines: ", _flat(chose), 4) + "\n")
    for n in result["context"]:
        more = " (+%d more)" % (n["match_count"] - 1) if n["match_count"] > 1 else ""
        label = {"info": "INFO line", "warn": "WARN line", "warning": "known warning",
                 "words": "your words"}.get(n["severity"], "")  # words: explain/symptoms.py
        w(_fill("  %s (%s): " % (n["id"], label), _flat(n["note"]), 4) + "\n")
        if n.get("first_line"):
            w("    line %d: %s%s\n" % (n["first_line"], _one_line(n["text"]), more))
        if n.get("fix"):
            w(_fill("    if it matters: ", n["fix"], whole=True) + "\n")


def _short(items, limit=8):
    items = [str(x) for x in items]
    return ", ".join(items[:limit]) + (" and %d more" % (len(items) - limit) if len(items) > limit else "")


def _loc(h, multi, key="line"):
    """'line 3', 'rank3.log line 3' (several files), or the file alone (no line: a dump)."""
    line, path = h.get(key), h.get("file")
    path = _one_line(path) if path else path  # a file's name in a folder may hold any byte
    if path and hostile(path):  # (and any shell word: 'logs/a; touch M; #.log line 1: ...'; docs/security.md 71.)
        path = shown_word(path)
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
    # the file's name is the folder's (a job's user names the files of its logs): one shell word where it holds what a
    # shell acts on, as diff shows a node's values (41.): 'first: rank 0 (logs/a; touch M; #.log line 1)' ran touch
    # from the clause after ' (' (docs/security.md 71.)
    name = o.get("file")
    if isinstance(name, str) and hostile(name):
        name = shown_word(name)
    where = name if o.get("line") is None else "%s line %s" % (name, o.get("line"))
    text = "first: %s (%s)" % (" ".join(who) or "in %s" % name, where)
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


def _key(line):
    """A fix or confirm line as compared for repeats: case and spacing aside."""
    return " ".join(str(line).lower().split())


def _export_line(k, value, note):
    """'     export K=V' (one line, pasted as is) and its '# why' comment after it, the part past
    the report's width on comment lines below it (a comment line pastes as harmlessly)."""
    line = "     export %s=%s" % (k, sh(value))
    if not note:
        return line
    note = _one_line(note)
    width = _COLS.get()
    if len(line) + 5 + len(note) <= width:
        return "%s   # %s" % (line, note)
    if len(line) + 5 + 20 > width:  # no room for the comment after it: all of it below
        return line + "\n" + _fill("       # ", note).replace("\n" + " " * 9, "\n       # ")
    # its first words after it, the rest on comment lines below
    return _fill(line + "   # ", note, len(line) + 5).replace("\n" + " " * (len(line) + 5), "\n       # ")


def _finding(w, bold, f, heading, full, multi=False):
    if heading:
        w("\n%s  %s\n" % (bold(heading), bold(f["id"])))
        w(_fill("  ", f["title"]) + "\n")
        origin = _origin(f)
        if origin:
            w("  %s\n" % _one_line(origin))  # names files: one line, as the log quotes below
        late = f.get("late_rank")
        if late:  # analyze.late_rank: the rank behind, read from the process-group status lines
            w(_fill("  ", "likely late: rank %s never enqueued collective #%s (%s) that %s waits in"
                    % (late["rank"], late["seq"], _one_line(str(late["op"])),
                       ", ".join("rank %s" % r for r in late["waiting"][:4]) or "another rank"), 4) + "\n")
    else:
        w(_fill("  %s  " % bold(f["id"]), f["title"], 4) + "\n")
    echoes = heading and f.get("origin_matches") and _origin(f) and "echoes" in _origin(f)
    # under a headline that names the first rank and calls the rest echoes: that rank's own lines only
    shown = f["matches"][:min(3 if full else 1, f["origin_matches"]) if echoes else 3 if full else 1]
    for h in shown:
        w("  %s: %s\n" % (_loc(h, multi), _one_line(h["text"])))
    more = f["match_count"] - len(shown)
    if more > 0:
        w("  (+%d more matching line%s%s)\n" % (more, "" if more == 1 else "s", "" if not echoes else
                                               ": the others' echoes" if f["origin_matches"] <= len(shown) else
                                               ", the others' echoes among them"))
    if not full:
        if f.get("confidence") in ("family", "structural") and not f["causes"][0]["evidence"]:
            # its message names the family only (ncclInvalidUsage beside NCCL_NET=IB's root read 'likely: Two
            # ranks use the same GPU'): no cause of it is 'likely' from this text
            w(_fill("    ", "the message names the family, not which cause (%d possible: --json lists them)"
                    % len(f["causes"]), 6) + "\n")
        else:
            w(_fill("    likely: ", f["causes"][0]["text"], 6) + "\n")
        # gpuhw.fold: a hardware fault on a GPU the root does not name is that GPU's own fault, not an echo
        # of the root's (the JSON has the note; the heading above says "usually consequences")
        for n in f["notes"]:
            if n.startswith("Another GPU:"):
                w(_fill("    ", "%s Its own fault, not a consequence of the root: act on that GPU too." % n, 6) + "\n")
        return
    for s in f.get("signals", [])[:3]:
        w("  confirmed by %s: %s\n" % (_loc(s, multi), _one_line(s["text"])))
    for n in f["notes"]:
        w(_fill("  note: ", n, 4) + "\n")
    w("\n%s\n" % _fill("  ", _flat(f["explain"])))
    if f.get("confidence") in ("family", "structural") and not f["causes"][0]["evidence"]:
        w("\n  Possible causes (the text does not say which: the confirm lines tell them apart):\n")
    else:
        w("\n  Likely causes, most likely first:\n")
    said = set()  # fix and confirm lines already printed for this finding: a repeat is not printed again
    # ... nor a fix line whose words the finding's earlier fix lines already hold: Slurm's 'Detected 12 oom-kill
    # event(s)' site fix and its entry's cause each said 'sbatch --mem=<more> (or --mem-per-gpu / --mem-per-cpu ...'
    fixed = set()
    brief = []
    for i, c in enumerate(f["causes"], 1):
        verdict = "  [%s by this machine's facts]" % c["verdict"] if c.get("verdict") in ("supported", "ruled out") \
            else ""
        if i > FULL_CAUSES and not (c["evidence"] or verdict or c.get("computed_fix") or c.get("check_results")):
            brief.append(i)
            w(_fill("  %d. " % i, _flat(c["text"])) + "\n")
            continue
        w(_fill("  %d. " % i, _flat(c["text"]) + verdict) + "\n")
        for ev in c["evidence"][:1]:
            w("     seen in the log, %s: %s\n" % (_loc(ev, multi), _one_line(ev["text"])))
        if c["checks"]:
            w(_fill("     confirm: ", "gpudoctor check --select %s" % ",".join(c["checks"]), whole=True) + "\n")
        for cmd in c["confirm"]:
            if _key(cmd) not in said:
                said.add(_key(cmd))
                w(_fill("     confirm: ", cmd, whole=True) + "\n")
        for r in c.get("check_results", []):
            w(_fill("     check %s: " % r["id"], "%s%s" % (r["status"], (" - " + "; ".join(
                _one_line(m) for m in r["messages"])) if r["messages"] else ""), 7) + "\n")
        computed = c.get("computed_fix") or ""
        for k, v in c["exports"].items():
            # the value may come from a node's facts (an interface name): one quoted word; the
            # knowledge's "VALUE   (why)" prints the why as a comment, outside the quotes. A value
            # the computed fix names (fixes.py: this node's NIC) is the facts' own, never split: a
            # facts file's interface 'eth0   (use eth1)' printed 'export X=eth0   # use eth1'
            value, note = (v, None) if computed and sh(v) in computed else split_export(v)
            if ("export", k, value) in said:  # the same variable and value an earlier cause set
                continue
            said.add(("export", k, value))
            # (lead) printed even where the fix computed from the facts below starts with this export: that fix line
            # carries where and why after it ('(on every node)', '(install it: ...)') and is no shell line to paste;
            # this one is (polish21 had dropped it: test_explain_review_2026_11_26's CUDA_HOME line went missing)
            w(_export_line(k, value, note) + "\n")
        for cmd in c["fix"]:
            words = _words(cmd)
            if _key(cmd) not in said and not (len(words) >= 4 and len(words - fixed) <= 0.2 * len(words)):
                said.add(_key(cmd))
                w(_fill("     fix: ", cmd, whole=True) + "\n")
            fixed |= words
        if c.get("computed_note"):
            w(_fill("     note: ", c["computed_note"]) + "\n")
    if brief:
        w(_fill("     ", "(cause%s %s: nothing in this text points at %s; the confirm and fix lines of every cause "
                         "are in --json)" % ("s" if len(brief) > 1 else "", _span(brief),
                                            "them" if len(brief) > 1 else "it")) + "\n")
    if f["debug"]:
        w("\n%s\n" % _fill("  More detail: ", "; ".join(f["debug"]), 4, keep=True))
    if f["references"]:
        w("\n  References:\n")
        for r in f["references"]:
            line = "    - %s: %s" % (r["title"], r["url"])
            if len(line) > _COLS.get():  # the URL on a line of its own, never broken
                line = "%s\n      %s" % (_fill("    - ", r["title"] + ":", 6), r["url"])
            w(line + "\n")


def _words(text):
    """The words of a fix line as compared for near-repeats (3+ characters; an option or a path is one word)."""
    return set(_WORD.findall(str(text).lower()))


_WORD = re.compile(r"[a-z0-9_.=-]{3,}")


def _span(nums):
    """'5-8' for consecutive numbers, else '5, 7'."""
    if len(nums) > 2 and nums == list(range(nums[0], nums[-1] + 1)):
        return "%d-%d" % (nums[0], nums[-1])
    return ", ".join(str(n) for n in nums)


def _flat(text):
    """A paragraph of the knowledge on one line (its own line breaks are the TOML file's)."""
    return " ".join(str(text).split())

