"""`gpudoctor explain`: from an error text or a whole log to its cause, the checks that
confirm it, and the fix.

Data flow (STYLE.md): error text / log -> explain -> knowledge entries. The knowledge is
data: TOML files kept beside the checks that confirm them (``checks/<module>.knowledge.toml``)
and, for families no check covers yet, ``gpudoctor/data/knowledge/*.toml``.

One job per module:
- knowledge.py  loads and validates the entries, derives each pattern's prefilter needles
- text.py       what a line says without the paste's noise (prefixes, ANSI, CR) and its severity
- scan.py       one pass over the log's bytes: candidate lines -> pattern hits
- analyze.py    hits -> root, related, cascade, context; the verdict
- fixes.py      fixes computed from a node's facts and from the launcher seen in the log;
                the confirming checks (--check)
- render.py     the text report

Importing this package is cheap (re, os, sys); TOML, the registry and the collector are
imported only on the paths that need them.
"""

import os
import sys
import time

from gpudoctor.explain.knowledge import (  # noqa: F401  (the public API)
    Knowledge, KnowledgeError, Pattern, knowledge_files, load_knowledge, needles_of)
from gpudoctor.explain.scan import BLOCK, MAX_LINE, MAX_SHOWN, Scan, scan_stream  # noqa: F401

SCHEMA = "gpudoctor.explain/4"
VERDICTS = ("root_cause", "likely_cause", "echo_only", "no_error", "unknown_error")
DEFAULT_TIMEOUT = 300.0  # seconds: `explain --timeout`; a 100 MB log takes a few, 500 MB under a minute

GENERIC_TRIAGE = [
    "Rerun with NCCL's own diagnostics: export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV "
    "(add NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log for one file per process), then explain that log.",
    "Keep every rank's output: torchrun --log-dir /tmp/ranklogs --redirects 3 --tee 3 ...; the first "
    "error in time is usually the root, the others are its echo.",
    "Check every node before the next run: gpudoctor check --hosts hostfile",
    "Look at the kernel log of each node for GPU and NIC faults: sudo dmesg -T | grep -iE 'xid|nvrm|mlx5|oom'",
]


def explain_stream(stream, kb=None, source="<text>", assume_error=False, facts=None, deadline=None,
                   interrupted=None):
    """The answer for one log. ``assume_error``: the text was given as an error (an
    argument), so a line without an error marker still counts as the error. ``facts``: a
    node's facts (a dict), or several nodes' (a list), to compute fixes from. ``deadline``:
    a time.monotonic() value past which the scan stops and the answer says so."""
    return explain_inputs([(source, lambda: stream)], kb, assume_error=assume_error, facts=facts, deadline=deadline,
                          interrupted=interrupted)


def explain_inputs(inputs, kb=None, assume_error=False, facts=None, deadline=None, flight=None, ras=None,
                   interrupted=None):
    """One answer for several logs of one job (per-node or per-rank files): ``inputs`` is
    [(name, opener)], each opener returning a binary stream (opened one at a time, closed
    after). ``flight``: what flight.read_dumps found in Flight Recorder dumps; ``ras``:
    [(source, items)] of NCCL RAS reports (ras.parse). ``interrupted``: a list a signal
    handler appends the signal's name to: the scan stops there and says so."""
    from gpudoctor.explain import analyze as _a
    from gpudoctor.explain import fixes
    from gpudoctor.explain import inputs as _in

    kb = kb or load_knowledge()
    scan = Scan()
    scan.deadline = deadline
    scan.several = len(inputs) > 1
    if interrupted is not None:
        scan.interrupted = interrupted
    budget = _FileBudget(inputs, deadline) if deadline is not None and len(inputs) > 1 else None
    cuts, read_after = [], []
    for i, (name, opener) in enumerate(inputs):
        if budget is not None:
            scan.deadline = budget.until(i)
        if scan.deadline is not None:  # the last TAIL_CUT of a file's time: its tail, where a failing job's lines are
            now = time.monotonic()
            scan.cut_at = now + max(0.0, scan.deadline - now) * (1 - TAIL_CUT)
        stream = opener()
        try:
            scan_stream(stream, kb, scan, name)
        finally:
            if stream is not None and len(inputs) > 1 and hasattr(stream, "close"):
                stream.close()
        if scan.stopped:
            if budget is None or scan.stopped.get("reason") != "timeout" or i + 1 == len(inputs) or \
                    time.monotonic() >= deadline:
                break
            cuts.append(scan.stopped)  # this file's share of the time is spent: the files after it still get theirs
            scan.stopped = None
        elif cuts:
            read_after.append(name)
    if cuts:
        first = cuts[0]
        first["read_after"] = read_after  # the files read whole after the first file cut short (perf21)
        first["also_stopped"] = [c.get("source") for c in cuts[1:]] + ([scan.stopped.get("source")] if scan.stopped
                                                                        else [])
        scan.stopped = first
    verdict, findings, context = _a.analyze(scan, kb, assume_error)
    sources = [s["path"] for s in scan.sources]
    result = {"schema": SCHEMA, "version": _version(),
              "source": sources[0] if len(sources) == 1 else "%d files" % len(sources),
              "sources": [], "lines": sum(s["lines"] for s in scan.sources), "bytes": scan.bytes,
              "verdict": verdict, "matched": verdict in ("root_cause", "likely_cause", "echo_only"),
              "root": findings[0]["id"] if findings else None, "findings": findings, "context": context,
              "errors": [{"line": h.line, "text": h.text} for h in scan.errors] if verdict == "unknown_error" else [],
              "launcher": min(scan.launchers, key=scan.launchers.get) if scan.launchers else None,
              "triage": list(GENERIC_TRIAGE) if verdict == "unknown_error" else [], "facts": None, "checks": None,
              "stopped_early": None, "flight_recorder": None, "ras": None, "nccl_info": None}
    from gpudoctor.explain import ncclinfo

    ncclinfo.judge(result, scan, kb)  # INFO-only NCCL logs: the transport NCCL chose, and when it is the answer
    from gpudoctor.explain import launchpaste

    launchpaste.judge(result, scan, kb, facts)  # launch lines and launcher configs in the text (plan's readers)
    from gpudoctor.explain import launchctx

    launchctx.judge(result, scan, kb)  # a symptom the launch lines explain (srun x torchrun, same RANK, ...)
    from gpudoctor.explain import jobshape

    jobshape.judge(result, scan, kb)  # (shape25) the job's shape as its launchers print it: node ranks, worlds, master
    from gpudoctor.explain import hang

    hang.judge(result, scan, kb)  # a hang or slow run without an error: the causes ranked; nccl-tests without MPI
    from gpudoctor.explain import rankev

    rankev.judge(result, scan, kb)  # a watchdog / store timeout whose ranks' lines show the bug behind it
    from gpudoctor.explain import versions

    versions.judge(result, scan, kb)  # a known NCCL bug whose symptom is a hang, a slowdown or a wrong result
    from gpudoctor.explain import settings

    settings.judge(result, scan, kb)  # a told symptom joined to the setting in the text that causes it (settings.py)
    from gpudoctor.explain import symptoms

    symptoms.judge(result, scan, kb)  # a failure told in words (symptoms.toml): the root only when nothing surer is
    settings.words_slow(result, scan)  # (fix22) a slowness the words gave, joined to a setting the text shows
    from gpudoctor.explain import envcause

    envcause.judge(result, scan, kb)  # a setting the text shows, as a cause of the root's error (envcause.py)
    _in.locate(result, scan)
    if flight is not None:
        _in.apply_flight_recorder(result, flight)
    _in.apply_ras(result, ras)
    _in.advise_recorder(result)
    located = list(result["findings"])  # located, or read from dumps (no line of the scan)
    fixes.apply(result, facts, scan)  # scan: the tracebacks' frames say whose call a removed name was (apihistory)
    from gpudoctor.explain import errordocs

    errordocs.apply(result, scan)  # the fix the library documents for the root's exception class (docerrors18)
    from gpudoctor.explain import docremedy

    docremedy.apply(result, scan, kb)  # the remedy a project's docs give for a message they quote (docs20)
    from gpudoctor.explain import deeper

    deeper.apply(result, scan, kb)  # (noans24) a root one step short of its cause: the deeper layer's cause first
    from gpudoctor.explain import lastresort

    if lastresort.judge(result, scan, kb):  # (struct23) an explicit failure line that nothing above answered
        fixes.apply(result, facts, scan)
    from gpudoctor.explain import progline

    progline.judge(result, scan, kb)  # (noans24) a failure line of a known program no table reads: its family
    _in.locate_added(result, scan, located)  # (userwalk28) the findings made since locate(): their files and lines
    from gpudoctor.explain import advice

    advice.apply(result, scan)  # what the root's own message says to do (after the computed fixes, never above them)
    from gpudoctor.explain import calibrate

    calibrate.apply(result, kb, scan)  # (wrong21) a root that says 'How sure: low' is a likely cause, with alternatives
    from gpudoctor.explain import redact

    result = redact.apply(result)  # secret-looking values in the lines quoted back (docs/security.md 26.)
    from gpudoctor.explain import origin

    return origin.attach(result, scan)  # the log's own '; ' in the prose, for the text report (docs/security.md 68.)


TAIL_CUT = 0.1  # the part of a file's time kept for reading its last scan.TAIL_SCAN bytes when its middle is too long


class _FileBudget(object):
    """Several inputs and a deadline (perf21): each file may use the time left less a reserve for the files after it,
    each of those MIN_SHARE of it (MIN_S seconds where that is more, up to a tenth) or its share of the bytes left,
    whichever is more (the current file keeps at least half): a 100 MB rank0.log of progress lines no longer spends the whole --timeout while rank1.log, 546 bytes with
    the NCCL error, is never read. The files are still read in their order (line numbers, the first failing rank)."""

    MIN_SHARE = 0.02
    MIN_S = 2.0

    def __init__(self, inputs, deadline):
        self.deadline = deadline
        self.sizes = []
        for name, _opener in inputs:
            try:
                self.sizes.append(os.path.getsize(name) if isinstance(name, str) and os.path.isfile(name) else 0)
            except OSError:
                self.sizes.append(0)

    def until(self, i):
        now = time.monotonic()
        left = self.deadline - now
        rest = self.sizes[i + 1:]
        if left <= 0 or not rest:
            return self.deadline
        total = float(sum(self.sizes[i:]) or 1)
        least = max(self.MIN_SHARE, min(self.MIN_S / left, 0.1))  # (a short --timeout: a small file still costs ~1 s)
        reserve = sum(max(size / total, least) for size in rest)
        return now + left * max(1.0 - reserve, 0.5)


def explain_text(text, kb=None, source="<text>", assume_error=False, facts=None):
    import io

    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return explain_stream(io.BytesIO(data), kb, source, assume_error=assume_error, facts=facts)


def explain_file(path, kb=None, facts=None, deadline=None):
    with open(path, "rb") as f:
        return explain_stream(f, kb, source=path, facts=facts, deadline=deadline)


def run_confirming_checks(result, gather_nodes=None, config=None):
    from gpudoctor.explain import fixes

    return fixes.run_confirming_checks(result, gather_nodes, config)


def render_text(result, out, color=False, width=None):
    from gpudoctor.explain import render

    return render.render_text(result, out, color, width or render.terminal_width(out))


def _version():
    from gpudoctor import __version__

    return __version__


def exit_code(result):
    """0: explained, or no error in the text; 1: an error that nothing in the knowledge
    explains, or a scan stopped by its deadline before it found any error (the rest of the
    input was not judged)."""
    if result["verdict"] == "unknown_error":
        return 1
    if result.get("stopped_early") and result["verdict"] == "no_error":
        return 1
    return 0


def main(args):
    """`gpudoctor explain` (parser: gpudoctor/commands/explain.py). Exit codes: 0 explained
    or no error found, 1 an error nothing explains, 2 bad input (one line on stderr)."""
    import time

    from gpudoctor.errors import InputError
    from gpudoctor.explain import fixes
    from gpudoctor.explain import inputs as _in

    text, paths = _in.split_arguments(args)
    facts_path = getattr(args, "facts", None)
    if facts_path and getattr(args, "check", False):
        raise InputError("give --check (this machine) or --facts FILE (a saved node), not both")
    timeout = getattr(args, "timeout", None)
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    if not (timeout >= 0) or timeout > 1e7:  # nan, negative, or past any real run
        raise InputError("--timeout must be a number of seconds >= 0 (0: no limit), not %r" % timeout)
    started = time.monotonic()
    deadline = started + timeout if timeout else None
    node_facts = fixes.load_facts(facts_path) if facts_path else None
    kb = load_knowledge()
    interrupted = []
    restore = _catch_signals(interrupted)
    try:
        if paths:
            logs, flight, reports = _in.collect(paths, deadline=deadline)
            result = explain_inputs(logs, kb, facts=node_facts, deadline=deadline, flight=flight, ras=reports,
                                    interrupted=interrupted)
        elif text == "-":
            if sys.stdin is None:  # started with standard input closed (`<&-`, a daemon, a CI step): Python's is None
                raise InputError("standard input is closed: '-' has nothing to read; give the log as a file "
                                 "(gpudoctor explain FILE) or pipe it in (... | gpudoctor explain -)")
            if _isatty(sys.stdin):  # `explain -` typed at a prompt waited with no word: say what it waits for
                print("gpudoctor explain: reading the error text from this terminal: paste it, then press Ctrl-D on "
                      "an empty line", file=sys.stderr)
                sys.stderr.flush()
            stdin = _StdinUntil(sys.stdin.buffer, deadline, interrupted)
            # a compressed log or a binary piped in is refused as the same file named on the command line is
            # (inputs.collect): read as text it answered 'NO ERROR FOUND', exit 0, for `cat slurm-1.out.gz | ... -`
            why = _in.binary_kind(stdin.peek(16), magic_only=True)
            if why:
                raise InputError("standard input is not a text log (%s): pipe the log's text (zcat, xzcat or "
                                 "zstdcat for a compressed log)" % why)
            result = explain_stream(stdin, kb, source="<stdin>", facts=node_facts, deadline=deadline,
                                    interrupted=interrupted)
            if stdin.cut and not result.get("stopped_early"):
                result["stopped_early"] = {"reason": stdin.cut, "line": result["lines"] + 1, "file": "<stdin>",
                                           "bytes_read": result["bytes"]}
        else:
            result = None
    finally:
        restore()
    if result is None:  # the text given as the argument
        from gpudoctor.explain import ras

        data = text.encode("utf-8", "surrogateescape")
        reports = [("<argument>", ras.parse(text))] if ras.looks_like_report(data) else None
        import io

        result = explain_inputs([("<argument>", lambda: io.BytesIO(data))], kb, assume_error=True, facts=node_facts,
                                ras=reports)
    if result.get("stopped_early"):
        result["stopped_early"]["timeout_s"] = timeout
        result["stopped_early"]["after_s"] = round(time.monotonic() - started, 2)
    if node_facts is not None:
        first = node_facts[0]
        result["facts"] = {"source": facts_path, "nodes": len(node_facts),
                           "host": first.get("node") or (first.get("host") or {}).get("hostname")
                           if isinstance(first.get("host"), dict) else first.get("node")}
    if getattr(args, "check", False) and result["matched"]:
        run_confirming_checks(result)
    if getattr(args, "json", False):
        import json

        sys.stdout.write(json.dumps(result, indent=1) + "\n")
    else:
        render_text(result, sys.stdout, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    sys.stdout.flush()
    st = result.get("stopped_early") or {}
    if st.get("reason") in _SIGNAL_EXIT:  # the partial answer is printed; the exit says it was cut short
        return _SIGNAL_EXIT[st["reason"]]
    return exit_code(result)


_SIGNAL_EXIT = {"SIGINT": 130, "SIGTERM": 143}


def _isatty(stream):
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or not a real file (tests give a BytesIO)
        return False


class _StdinUntil(object):
    """Standard input read no longer than the deadline: a pipe that stays silent (`tail -f`,
    a hung job's output) or drips a line a second kept BufferedReader.read(BLOCK) waiting past
    --timeout (it returns only when BLOCK bytes or EOF came). select(2) in short slices (a
    signal is seen within one), then os.read of what is there. ``cut``: why it stopped early
    ('timeout', or the signal's name), else None."""

    def __init__(self, stream, deadline, interrupted):
        self.stream, self.deadline, self.interrupted, self.cut = stream, deadline, interrupted, None
        self.pending = b""
        try:
            self.fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a real file (tests give a BytesIO)
            self.fd = None

    def peek(self, n):
        """The first ``n`` bytes (fewer at the end, the deadline or a signal), given again by read()."""
        while len(self.pending) < n:
            got = self._read(n - len(self.pending))
            if not got:
                break
            self.pending += got
        return self.pending

    def read(self, n):
        if self.pending:
            out, self.pending = self.pending[:n], self.pending[n:]
            return out
        return self._read(n)

    def _read(self, n):
        import select
        import time

        if self.fd is None:
            return self.stream.read(n)
        while True:
            if self.interrupted:
                self.cut = self.interrupted[0]
                return b""
            left = None if self.deadline is None else self.deadline - time.monotonic()
            if left is not None and left <= 0:
                self.cut = "timeout"
                return b""
            ready, _, _ = select.select([self.fd], [], [], 0.25 if left is None else min(0.25, left))
            if ready:
                return os.read(self.fd, n)


def _catch_signals(interrupted):
    """While the logs are read, SIGINT and SIGTERM (what `timeout`, scancel and Kubernetes send)
    stop the scan at the next block or line instead of killing it: the answer for what was read
    is printed (valid JSON with --json). A second signal ends the process as the first would
    have. -> a function that restores the previous handlers."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        name = signal.Signals(signum).name
        if interrupted:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        interrupted.append(name)

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, handler)
        except (OSError, ValueError):
            pass

    def restore():
        for sig, h in old.items():
            signal.signal(sig, h)

    return restore
