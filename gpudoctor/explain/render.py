"""The text report of `gpudoctor explain`."""

import textwrap

from gpudoctor.fixline import sh


def _one_line(text):
    """A check's message holds node values: a control character is shown escaped, never
    a line break or a terminal sequence."""
    text = str(text)
    return text if text.isprintable() else "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def render_text(result, out, color=False):
    w = out.write
    bold = (lambda s: "\x1b[1m%s\x1b[0m" % s) if color else (lambda s: s)
    w("gpudoctor explain: %s (%d line%s)\n" % (result["source"], result["lines"], "" if result["lines"] == 1 else "s"))
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
            w("  line %d: %s\n" % (e["line"], e["text"]))
        _context(w, bold, result)
        w("\nGeneric triage:\n")
        for i, t in enumerate(result["triage"], 1):
            w("  %d. %s\n" % (i, t))
        return
    findings = result["findings"]
    root = findings[0]
    _finding(w, bold, root, "ROOT CAUSE" if verdict == "root_cause" else "ONLY ECHOES FOUND", full=True)
    related = [f for f in findings[1:] if f["role"] == "related"]
    cascade = [f for f in findings[1:] if f["role"] == "cascade"]
    if related:
        w("\n%s\n" % bold("ALSO SEEN (after the root error these are usually consequences; fix the root first)"))
        for f in related:
            _finding(w, bold, f, None, full=False)
    if cascade:
        w("\n%s\n" % bold("CASCADE (echoes of the failure on this or other ranks: not causes)"))
        for f in cascade:
            h = f["matches"][0]
            more = " (+%d more)" % (f["match_count"] - 1) if f["match_count"] > 1 else ""
            w("  %-24s line %d: %s%s\n" % (f["id"], h["line"], h["text"], more))
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
    if not result.get("context"):
        return
    w("\n%s\n" % bold("NOTES (INFO/WARN lines: context, not a cause on their own)"))
    for n in result["context"]:
        more = " (+%d more)" % (n["match_count"] - 1) if n["match_count"] > 1 else ""
        label = {"info": "INFO line", "warn": "WARN line", "warning": "known warning"}.get(n["severity"], "")
        w("  %s (%s): %s\n" % (n["id"], label, _wrap(n["note"], 4)))
        if n.get("first_line"):
            w("    line %d: %s%s\n" % (n["first_line"], n["text"], more))
        if n.get("fix"):
            w("    if it matters: %s\n" % n["fix"])


def _finding(w, bold, f, heading, full):
    if heading:
        w("\n%s  %s\n" % (bold(heading), bold(f["id"])))
        w("  %s\n" % f["title"])
    else:
        w("  %s  %s\n" % (bold(f["id"]), f["title"]))
    shown = f["matches"][:3 if full else 1]
    for h in shown:
        w("  line %d: %s\n" % (h["line"], h["text"]))
    more = f["match_count"] - len(shown)
    if more > 0:
        w("  (+%d more matching line%s)\n" % (more, "" if more == 1 else "s"))
    if not full:
        w("    likely: %s\n" % f["causes"][0]["text"])
        return
    for s in f.get("signals", [])[:3]:
        w("  confirmed by line %d: %s\n" % (s["line"], s["text"]))
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
            w("     check %s: %s%s\n" % (r["id"], r["status"], (" - " + "; ".join(_one_line(m) for m in r["messages"]))
                                         if r["messages"] else ""))
        for k, v in c["exports"].items():
            # the value may come from a node's facts (an interface name): one quoted word
            w("     export %s=%s\n" % (k, sh(v)))
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
