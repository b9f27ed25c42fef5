"""torchrun's failure report, read from the scan: the Root Cause entry of
ChildFailedError.format_msg (torch/distributed/elastic/multiprocessing/errors/__init__.py,
_MSG_FORMAT_TEMPLATE and _FAILURE_FORMAT_TEMPLATE, torch 1.10 to 2.13):

    Root Cause (first observed failure):
    [0]:
      time      : 2026-11-25_23:10:28
      host      : node-a
      rank      : 1 (local_rank: 1)
      exitcode  : -9 (pid: 10620)  (SIGKILL)
      error_file: <N/A>
      traceback : Signal 9 (SIGKILL) received by PID 10620

The scanner records the lines of these blocks (knowledge.STRUCTURAL '_struct_elastic': the
header, '[idx]:' + time, host + rank, rank + exitcode, error_file + traceback: two lines each,
each with its own needle); root() puts the Root Cause block back together from their line
numbers. analyze adds the entry of the signal that ended the first failing rank
(elastic.toml), and inputs.locate names its rank, host and time in the headline. A rank that
wrote an error file (@record) has its traceback in the block itself, after 'traceback : ' and
indented: when the text holds nothing else but the echo, the exception it ends in is the answer
(report_exception; the formats of torch's test/distributed/elastic/multiprocessing/errors/api_test.py,
tests/test_explain_elastic.py).
"""

import signal as _signal

# the signal that ended the rank -> the knowledge entry that says what it means (elastic.toml)
SIGNAL_ENTRY = {9: "elastic.sigkill", 7: "elastic.sigbus", 11: "elastic.sigsegv", 6: "elastic.sigabrt",
                15: "elastic.sigterm"}
# the lines of a failure block after the Root Cause header, as _FAILURE_FORMAT_TEMPLATE prints them
_OFFSET = {"time": 1, "host": 3, "exit": 4, "file": 6}
MAX_REPORTS = 64
MAX_TRACEBACK = 400  # lines of a traceback inside the report


def _kind(h):
    g = h.groups
    if g.get("root"):
        return "root"
    for k, group in (("time", "time"), ("host", "host"), ("exit", "code"), ("file", "ef")):
        if g.get(group) is not None:
            return k
    return None


def reports(scan):
    """[dict] of every Root Cause block in the scan (one per torchrun agent whose report is in
    the inputs), in input order: time, host, rank, local_rank, exitcode, pid, signal (a number
    or None), signal_name, error_file, traceback (its first line), line (the header's line),
    hit (the rank/exitcode line's Hit)."""
    hits = scan.matches.get("_struct_elastic", [])
    at = {}
    for h in hits:
        k = _kind(h)
        if k:
            at[(k, h.line)] = h
    out = []
    for h in hits:
        if _kind(h) != "root" or len(out) >= MAX_REPORTS:
            continue
        got = {k: at.get((k, h.line + off)) for k, off in _OFFSET.items()}
        ex = got["exit"]
        if ex is None:  # not torchrun's block (or a paste that lost its lines)
            continue
        g = dict(ex.groups)
        for k in ("time", "host", "file"):
            if got[k] is not None:
                g.update({n: v for n, v in got[k].groups.items() if v is not None and n not in g})
        try:
            code = int(g.get("code"))
        except (TypeError, ValueError):
            continue
        sig = -code if code < 0 else None
        name = g.get("sig")
        if sig and not name:
            try:
                name = _signal.Signals(sig).name
            except ValueError:
                name = None
        out.append({"time": g.get("time"), "host": g.get("host"), "rank": g.get("rank"), "local_rank": g.get("lrank"),
                    "exitcode": code, "pid": g.get("pid"), "signal": sig, "signal_name": name,
                    "error_file": (g.get("ef") or "").strip() or None, "traceback": (g.get("tb") or "").strip() or None,
                    "line": h.line, "hit": ex})
    return out


def _blocks(scan):
    """[(first, end)] line spans of the tracebacks inside the reports' failure blocks: from each
    'traceback : ' line to the next line of a report, the next 'Traceback (most recent call last)'
    (a traceback of the rank's own output, or the next exception of a chain) or MAX_TRACEBACK
    lines. _format_failure prints there the rank's error file: its py_callstack or its message."""
    marks = sorted(h.line for h in scan.matches.get("_struct_elastic", []))
    tbs = sorted(h.line for h in scan.matches.get("_struct_traceback", []))
    out = []
    for h in scan.matches.get("_struct_elastic", []):
        if _kind(h) != "file":
            continue
        tb = h.line + 1  # the 'traceback : ' line (the 'file' pattern spans error_file and it)
        end = min([x for x in marks if x > tb][:1] + [x for x in tbs if x > tb][:1] + [tb + MAX_TRACEBACK])
        out.append((tb, end))
    return out


def report_exception(scan, rep):
    """The Hit of the exception that the report's Root Cause traceback holds (the rank's error file,
    written by @record: ErrorHandler.record_exception's py_callstack, or its message): the first
    exception line of the block. None when the block holds none (no error file: 'error_file: <N/A>')."""
    if not rep.get("error_file") or rep["error_file"] == "<N/A>":
        return None
    tb = rep["line"] + _OFFSET["file"] + 1
    end = next((e for t, e in _blocks(scan) if t == tb), tb + 1)
    return next((h for h in scan.matches.get("_struct_exc", []) if tb <= h.line < end), None)


def first_failure(scan):
    """The Root Cause block that failed first: of several reports (one per node's agent), the
    earliest time (torchrun prints it as YYYY-MM-DDTHH:MM:SS with '_' for 'T': text order is
    time order); None when the inputs hold no report."""
    got = reports(scan)
    if not got:
        return None
    timed = [r for r in got if r["time"]]
    return min(timed, key=lambda r: r["time"]) if timed else got[0]


def add_signal_entry(scan, kb, matched):
    """analyze's hook: the entry of the signal that ended the report's first failing rank joins
    the matched entries (as an error line at the report's exitcode line), so that it is ranked
    with the rest: a rank killed by SIGKILL outranks the other ranks' 'Connection reset by
    peer', a collective timeout or an NCCL error outranks SIGABRT. Sets scan.elastic."""
    rep = first_failure(scan)
    scan.elastic = rep
    eid = SIGNAL_ENTRY.get(rep["signal"]) if rep else None
    h = rep["hit"] if rep else None
    if rep and rep["signal"] is None:
        h, eid = _exception_entry(scan, kb, matched, rep)
    e = kb.by_id.get(eid) if eid else None
    if e is None:
        return
    from gpudoctor.explain.scan import Hit

    hit = Hit(h.line, h.text, h.pattern, h.groups, None, h.origin)
    m = matched.setdefault(eid, {"hits": [], "count": 0, "ranks": {}, "firsts": {}, "lines": []})
    m["ranks"][None] = max(m["ranks"].get(None, e["rank"]), e["rank"])
    m["firsts"][None] = min(m["firsts"].get(None, hit.line), hit.line)
    if all(x.line != hit.line for x in m["hits"]):
        m["hits"] = sorted(m["hits"] + [hit], key=lambda x: x.line)[:5]
        m["count"] += 1
        m["lines"].append(hit.line)


def _exception_entry(scan, kb, matched, rep):
    """(Hit, entry id) of the exception in the report's Root Cause block when it is the only error
    of the text: nothing but an echo matched (ChildFailedError) and no exception line of the rank's
    own output is there (analyze.structural reads that one). torch's api_test builds such reports:
    a failure with an error file prints the rank's traceback in the report itself. (None, None)
    otherwise. The entry is the family of the exception's type (analyze._EXC_FAMILY), else
    code.exception."""
    from gpudoctor.explain.analyze import _ECHO_EXC, _EXC_FAMILY

    exc = report_exception(scan, rep)
    if exc is None or any(kb.by_id[eid]["kind"] != "echo" for eid in matched):
        return None, None
    rep["exception"], rep["exception_hit"] = exc.text.strip()[:300], exc
    blocks = _blocks(scan)
    if any(not any(t <= h.line < e for t, e in blocks) and not any(w in (h.groups.get("exc") or "") for w in _ECHO_EXC)
           for h in scan.matches.get("_struct_exc", [])):
        return None, None
    name = (exc.groups.get("exc") or "").lower()
    eid = next((eid for words, eid in _EXC_FAMILY if any(w.lower() in name for w in words)), "code.exception")
    rep["exception_entry"] = eid
    return exc, eid


# the entries whose headline is the report's first failure itself
_REPORT_ENTRIES = set(SIGNAL_ENTRY.values()) | {"cascade.child_failed", "cascade.signal", "cascade.teardown"}


def describe(rep):
    """One sentence: what the report says about its first failure."""
    who = "rank %s" % rep["rank"] if rep.get("rank") is not None else "a rank"
    if rep.get("local_rank") is not None:
        who += " (local_rank %s)" % rep["local_rank"]
    if rep.get("host"):
        who += " on %s" % rep["host"]
    if rep.get("time"):
        who += " at %s" % rep["time"]
    how = "exit code %s" % rep["exitcode"]
    if rep.get("signal"):  # a number with no name: ProcessFailure.signal_name() prints <N/A>
        how += " (signal %d%s)" % (rep["signal"], ", " + rep["signal_name"] if rep.get("signal_name") else "")
    text = "torchrun's failure report: the first observed failure was %s, %s." % (who, how)
    tb = rep.get("traceback") or ""
    if rep.get("exception") or (rep.get("error_file") not in (None, "<N/A>") and tb and not tb.startswith("Traceback")):
        # the rank's error file: the exception its traceback ends in, or its message (the error
        # file's "message" string when it holds no py_callstack)
        text += " Its error, from the rank's error file: %s" % (rep.get("exception") or tb[:300])
    if rep.get("error_file") == "<N/A>" and not rep.get("signal"):
        text += (" The report holds no traceback (error_file: <N/A>): the rank's own error is in its output above "
                 "(or its --log-dir file); decorate the entry function with "
                 "@torch.distributed.elastic.multiprocessing.errors.record to have it in the report.")
    return text


def apply_origin(result, scan, where):
    """inputs.locate's hook: the headline's first failure from the report. For the report's own
    entries (the signal, ChildFailedError, the agent's teardown) the report's rank, host and
    time are the origin; another root gets them only where its own lines name no rank or host.
    ``where``: inputs._where (a line counted over every input -> (file, line))."""
    rep = getattr(scan, "elastic", None)
    if not rep or not result["findings"]:
        return
    f = result["findings"][0]
    path, line = where(scan, rep["hit"].line)
    mine = {"file": path, "line": line, "rank": rep.get("rank"), "host": rep.get("host"), "time": rep.get("time")}
    o = f.get("origin") or {}
    if f["id"] == rep.get("exception_entry"):  # the exception of the report's own traceback: its line
        path, line = where(scan, rep["exception_hit"].line)
        f["origin"] = dict(mine, file=path, line=line)
    elif f["id"] in _REPORT_ENTRIES or not o:
        f["origin"] = mine
    elif not o.get("rank") and not o.get("host"):
        o.update({k: mine[k] for k in ("rank", "host") if mine[k] is not None})
        if not o.get("time") and mine["time"]:
            o["time"] = mine["time"]
    if f["id"] in _REPORT_ENTRIES:
        f["notes"].insert(0, describe(rep))
    else:  # the root's own notes (how sure, a likely late rank) stay first
        f["notes"].append(describe(rep))
