"""What the job went on to do after a line: its outcome and progress, read from the log's own last lines
(issue 18).

A line that reports a failure is the root cause only when the job did not get past it. Healthy logs print
error-looking lines the job goes on after: a warning (NCCL's 'NCCL_WORK_FIFO_BYTES=... is being ignored',
Gloo's loopback fallback, torch's 'device used by this process is currently unknown'), a first attempt
that torchrun restarted, the per-choice exceptions torch.compile's autotuner logs and skips, slurmstepd's
'Exceeded step memory limit at some point' in a job Slurm calls COMPLETED. What the job printed after such
a line tells: it finished, or it kept making progress.

What is read (each input's last scan.TAIL bytes, kept by scan.py; nothing else of a 100 MB log), each
from the program that prints it:

- end of the run ("end"):
  transformers' Trainer (src/transformers/trainer.py _inner_training_loop: "Training completed. Do not
  forget to share your model on huggingface.co/models =)", then the metrics dict with 'train_runtime';
  Trainer.log_metrics prints the same metrics as "  train_runtime = 0:01:02.03");
  Lightning (src/lightning/pytorch/loops/fit_loop.py: "`Trainer.fit` stopped: `max_epochs=N` reached."; its
  callbacks that stop the fit at its end: callbacks/early_stopping.py "Monitored metric %s did not improve in the last
  %d records. Best score: %.3f. Signaling Trainer to stop.", callbacks/timer.py "Time limit reached. Elapsed time is
  %s. Signaling Trainer to stop." - not early stopping's 'is not finite' or divergence reasons, a run gone wrong);
  torchrun's agent (torch/distributed/elastic/agent/server/api.py _invoke_run: "[%s] worker group
  successfully finished. Waiting %s seconds for other agents to finish."; _exit_barrier's "Local worker
  group finished (SUCCEEDED)");
  DeepSpeed's per-node launcher (deepspeed/launcher/launch.py main: "Process %d exits successfully.");
  Slurm's job state COMPLETED with exit code 0:0 (src/common/slurm_protocol_defs.c job_state_string;
  sacct's ExitCode "<status>:<signal>", scontrol's "JobState=COMPLETED", seff's "State: COMPLETED (exit
  code 0)");
  nccl-tests (src/common.cu: "# Avg bus bandwidth    : %g", printed once every test ran).
  Open MPI's mpirun and accelerate print nothing when a run ends well: their end is the absence of an
  error after the ranks' own last lines.
- progress ("progress"): a step / iteration / epoch counter, a loss value, a tqdm bar (tqdm/std.py
  format_meter: "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}...]"), a checkpoint saved
  (transformers' "Saving model checkpoint to %s", DeepSpeed's engine "[Torch] Checkpoint %s is ready now!",
  Lightning's ModelCheckpoint "..., saving model to"), torch.compile's autotuner ending its benchmark
  (torch/_inductor/select_algorithm.py: "SingleProcess AUTOTUNE benchmarking takes %.4f seconds ..." after
  its per-choice "Exception %s for benchmark choice %s", logged and skipped).
- a script's own end ("done"): a short line of its own that says done / finished / saved, with no word of
  failure, doubt or narration in it.
- a failure ("fatal"): a line text.GENERIC_ERRORS calls an error, NCCL's WARN lines, a kill or a signal.

A line that says what may happen ('This can potentially cause a hang if this rank to GPU mapping is incorrect')
is not the user saying it happened (foretells(): hang.py and ncclinfo.py read complaints with it).

Rule (went_on): every input was read to its end (a scan its deadline or a signal stopped says nothing of how
the job ended), every failure line of an input (its findings' lines, its error lines) comes before the
input's last line of end or progress, and nothing fatal follows that line, and no launcher said the job
failed (a later run appended to the same file is another job); the progress is the job's own (a rank prefix
on the failure lines must be the progress lines' too) and real (an end or done line, or two progress lines
with a counter that grew). Then the lines before it are notes: printed, then the job went on, not what
stopped it. A job that fails later keeps its real root (a failure after the last progress keeps every
finding as it is), except a root on warning lines only that the job went past (past_warnings).
"""

import re

from gpudoctor.explain.scan import TAIL
from gpudoctor.explain.text import GENERIC_ERRORS, GLOG_HEAD_NC, clean, origin, strip_prefix

MAX_INPUTS = 64  # inputs whose tails are read (the first ones: a folder of 10,000 per-rank logs reads 64)
MAX_LINES = 400  # lines read from an input's end
MAX_LINE = 400  # characters of one line read
MAX_DONE_LEN = 100  # a script's own end line is short

_END = re.compile(
    r"Training completed\. Do not forget to share your model|'train_runtime': \d|^\s{0,8}train_runtime\s{1,40}= ?\d"
    r"|`Trainer\.fit` stopped: `max_(?:epochs|steps)=-?\d{1,12}` reached"
    r"|(?:did not improve in the last \d{1,9} records|Time limit reached)\.[^\n]{0,200}? Signaling Trainer to stop\."
    r"|worker group successfully finished|Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)"
    r"|\btorchelastic\.worker\.status\.SUCCEEDED\b"
    r"|Process \d{1,10} exits successfully\."
    r"|JobState=COMPLETED\b|\bState: COMPLETED \(exit code 0\)|\bCOMPLETED[ \t]{1,40}0:0\b"
    r"|\b[Ss][Ll][Uu][Rr][Mm]\b[^\n]{0,80}?\bCOMPLETED\b"
    r"|^#[ \t]{0,4}Avg bus bandwidth[ \t]{0,10}: ?\d"
    r"|^Process finished with exit code 0\b"
    # (fp23) a test runner's summary of a run where nothing failed: the failure lines above it were tests' own
    # (pytest.raises, a death test's child, a #[should_panic] test). pytest's summary line (src/_pytest/terminal.py
    # build_summary_stats_line: counts in KNOWN_TYPES order "failed, passed, skipped, deselected, xfailed, xpassed,
    # warnings, error", then " in <seconds>s"; 'errors' and 'failed' are left out here), Rust libtest's
    # (library/test/src/formatters/pretty.rs: "test result: ok. N passed; 0 failed; ..."), CTest's
    # (Source/CTest/cmCTestTestHandler.cxx: "100% tests passed, 0 tests failed out of N")
    r"|^=*[ \t]{0,4}\d{1,9} (?:passed|skipped|deselected|xfailed|xpassed)(?:, \d{1,9} (?:passed|skipped|deselected"
    r"|xfailed|xpassed|warnings?|subtests? passed|subtests? skipped)){0,8} in \d{1,9}(?:\.\d{1,4})?s\b"
    r"|^test result: ok\. \d{1,9} passed; 0 failed;"
    r"|^100% tests passed, 0 tests failed out of \d")
_AUTOTUNE = re.compile(r"\bAUTOTUNE benchmarking takes \d")
_CHECKPOINT = re.compile(r"Saving model checkpoint to |\bCheckpoint \S{1,120} is ready now|, saving model to ",
                         re.I)
# counters: 'step 10', 'step=10', 'Step: 10/100', 'iter 3', 'Epoch [2/10]', "'epoch': 0.5", 'global_step 7'
_COUNTER = re.compile(r"\b(?P<key>global[_ ]step|step|iter(?:ation)?|epoch)['\"]?[ \t]{0,3}[:=#]?[ \t]{0,3}\[?"
                      r"[ \t]{0,2}(?P<n>\d{1,9}(?:\.\d{1,6})?)(?![\d.]{0,1}\d)(?:[ \t]{0,2}/[ \t]{0,2}\d{1,9})?", re.I)
_LOSS = re.compile(r"\bloss['\"]?[ \t]{0,3}[:=]?[ \t]{0,3}(?:tensor\()?[-+]?\d{1,9}(?:\.\d{1,12})?", re.I)
_TQDM = re.compile(r"\d{1,3}%\|[^|\n]{0,120}\|[ \t]{0,2}(?P<n>\d{1,12})/(?P<total>\d{1,12}) \[")
# ('Training complete.': the adjective as a script says it, wrong18)
_DONE = re.compile(r"\b(?:done|finished|complete|completed|succeeded|successfully|saved)\b", re.I)
# words that make a 'done' line something else: a failure, a condition, a question, a narration ('it finished
# the first epoch, then crashed'), a wait
_NOT_DONE = re.compile(
    r"\?|\b(?:not|no|error|errors|fail\w{0,6}|exception|abort\w{0,4}|killed|traceback|timeout|timed|refused|denied|"
    r"unable|cannot|could|after|before|when|while|until|if|but|then|happens?|happened|crash\w{0,4}|hang\w{0,4}|"
    r"stuck|wait\w{0,3}|exit\w{0,4}|status|code|signal\w{0,2}|i|we|my|it|this|that|you|same|also|only|still|never|"
    r"may|might|backtrace|stack)\b|^=", re.I)
# a launcher's report that the job (not one attempt of it) failed: srun (Slurm's src/plugins/launch/slurm/
# launch_slurm.c _task_finish: error("%s: %s %s: Exited with exit code %d", ...), and its "Killed" / signal forms),
# Open MPI's mpirun (orte/mca/errmgr help-errmgr-base.txt: "Primary job  terminated normally, but %d process
# returned a non-zero exit code", "mpirun detected that one or more processes exited with non-zero status"),
# torchrun when it stops restarting (torch/distributed/elastic/multiprocessing/errors/__init__.py ChildFailedError,
# its "Root Cause (first observed failure)" table), DeepSpeed's launch.py ("%s exits with return code = %d", then
# it exits), accelerate's launcher (subprocess.CalledProcessError "returned non-zero exit status"), mpirun's
# help-mpirun.txt ("mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).", "mpirun has
# exited due to process rank %d with PID %d on node %s exiting improperly"), slurmstepd's "*** JOB %u ON %s
# CANCELLED AT %s ***" (src/slurmd/slurmstepd/req.c). Other
# processes' lines after it are not the job recovering: nothing restarts after these.
_TERMINAL = re.compile(r"task[s]? [\d,\[\]-]{1,60}: (?:Exited with exit code [1-9]|Killed|Terminated)"
                       r"|terminated normally, but \d{1,7} process(?:es)? returned|exited with non-zero status"
                       r"|\bChildFailedError\b|Root Cause \(first observed failure\)|exits with return code = -?[1-9]"
                       r"|returned non-zero exit status|exited on signal \d{1,3}|has exited due to process rank"
                       r"|\*\*\* (?:JOB|STEP) [\w.+-]{1,40} ON \S{1,100} CANCELLED AT"
                       # (fp23) a test runner's summary of a run where tests failed (the sources at _END): a passing
                       # run's summary earlier in the text (another suite's) is no end of this one
                       r"|^=*[ \t]{0,4}\d{1,9} failed\b[^\n]{0,200} in \d{1,9}(?:\.\d{1,4})?s\b"
                       r"|^test result: FAILED\. \d|\d{1,3}% tests passed, [1-9]\d{0,8} tests? failed out of \d")
# the last line a dying process prints: Python's uncaught exception (the traceback's last line), the shell's report
# of a kill or a crash, libstdc++'s terminate, glibc's abort
_DIED = re.compile(r"^[A-Za-z_][\w.]{0,120}(?:Error|Exception|Interrupt)\b(?::|$)|^\s{0,4}Killed\b|\bKilled\s{1,8}\S|"
                   r"Segmentation fault|core dumped|\bAborted\b|\bBus error\b|Floating point exception|"
                   r"terminate called")
_NCCL_LINE = re.compile(r"\bNCCL (?:INFO|TRACE|WARN)\b")
_FATAL_EXTRA = re.compile(r"\bNCCL WARN\b|^\s{0,4}Killed\s{0,4}$|\bSIG(?:KILL|TERM|SEGV|ABRT|BUS|INT)\b|"
                          r"\bCANCELLED\b|DUE TO TIME LIMIT|oom[-_ ]kill|\bAborted\b")
_GENERIC = re.compile("|".join("(?:%s)" % p for p in GENERIC_ERRORS), re.I)  # one pass, not twenty
# torch's logging header, not part of what a quoted line says ('I1126 14:06:42.263000 25838 torch/.../api.py:932] ')
_GLOG_HEAD = re.compile(r"^%s ?" % GLOG_HEAD_NC)


# Needles (lower case) without which a line cannot match the regexes after them: most lines of a log hold none, and
# a substring test costs a fraction of a regex search (400 lines of each of 64 inputs). _GENERIC's needles follow
# text.GENERIC_ERRORS' patterns (a pattern added there without its needle here is only read as fatal less often).
_TERMINAL_N = ("task", "terminated normally", "non-zero", "childfailederror", "root cause", "exits with return code",
               "exited on signal", "exited due to", "cancelled at", "failed")
_END_N = ("train_runtime", "trainer.fit", "finished", "succeeded", "successfully", "completed", "avg bus bandwidth",
          "signaling trainer to stop", "passed", "skipped", "deselected", "xfailed", "xpassed")
_FATAL_N = ("nccl warn", "killed", "sig", "cancelled", "time limit", "oom", "aborted", "traceback", "error",
            "exception", "fatal", "fail", "segmentation", "core dumped", "exit", "symbol", "cannot", "unable",
            "could not", "permission denied", "no such file", "refused", "timed out",
            # (struct23: text.GENERIC_ERRORS' runtimes' abort reports and bare strsignal texts)
            "terminate called", "panicked", "illegal instruction", "floating point exception", "trace/breakpoint",
            "bad system call")
_GOOD_N = ("step", "iter", "epoch", "loss", "autotune", "checkpoint", "saving model", "done", "finished", "complete",
           "succeeded", "successfully", "saved")


def _fatal(body):
    return bool(_FATAL_EXTRA.search(body) or _GENERIC.search(body))


def _has(low, needles):
    for n in needles:
        if n in low:
            return True
    return False


def classify(raw):
    """(kind, key, value) of one line: kind 'terminal', 'end', 'fatal', 'progress', 'done' or None; key and value
    are a counter's name and number where the line has one (else None)."""
    text = clean(raw.split("\r")[-1] if "\r" in raw.rstrip("\r") else raw)[:MAX_LINE]
    body, _ = strip_prefix(text)
    if not body.strip():
        return None, None, None
    low = body.lower()
    if _has(low, _TERMINAL_N) and _TERMINAL.search(body):
        return "terminal", None, None
    if _has(low, _END_N) and _END.search(body):
        return "end", None, None
    if _has(low, _FATAL_N) and _fatal(body):
        return "fatal", None, None
    if "nccl " in low and _NCCL_LINE.search(body):
        return None, None, None
    if "%|" in body:
        m = _TQDM.search(body)
        if m:  # (before the words: tqdm's rate is '1.52s/it')
            return "progress", "tqdm", float(m.group("n"))
    if not _has(low, _GOOD_N) or _NOT_DONE.search(body):
        return None, None, None  # (or a sentence about a run: 'it may occur early (epoch 2) or after many epochs')
    if len(body) <= MAX_DONE_LEN and _DONE.search(body):
        return "done", None, None
    if _AUTOTUNE.search(body) or _CHECKPOINT.search(body):
        return "done", None, None  # a stage of the job ended well (an autotune, a checkpoint)
    m = _COUNTER.search(body)
    if m:
        return "progress", m.group("key").lower().replace(" ", "_")[:4], float(m.group("n"))
    if _LOSS.search(body):
        return "progress", None, None
    return None, None, None


def read_tail(path, end, data):
    """What one input's last bytes (scan.TAIL bytes, ending at line ``end``) say of the job's outcome:
    {"path", "first", "last", "events": [(line, kind, key, value, rank, text)]} for the lines of end, progress,
    done and failure (first: the first whole line read)."""
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    first = end - len(lines) + 1
    if len(data) >= TAIL and lines:
        lines, first = lines[1:], first + 1  # (scan keeps the last TAIL bytes: the first may be a longer line's end)
    if len(lines) > MAX_LINES:
        lines, first = lines[-MAX_LINES:], first + len(lines) - MAX_LINES
    events = []
    for i, raw in enumerate(lines):
        kind, key, value = classify(raw)
        if kind is not None:
            shown = _GLOG_HEAD.sub("", strip_prefix(clean(raw[-MAX_LINE:]))[0]).strip()[:160]
            events.append((first + i, kind, key, value, origin(raw[:MAX_LINE])[0], shown))
    heads = {ln: h for ln, h in ((ln, record_head(t)) for ln, _k, _kk, _v, _r, t in events) if h}
    # (fp26) the other INFO / DEBUG records of the tail: a logger that wrote one after a traceback it carried was alive
    # then (Logger.exception is called from the handler that caught it)
    records, seen = {}, {e[0] for e in events}
    for i, raw in enumerate(lines):
        if first + i not in seen and ("INFO" in raw[:80] or "DEBUG" in raw[:80]):
            body = strip_prefix(clean(raw[:MAX_LINE]))[0]
            h = record_head(body, ("INFO", "DEBUG"))
            if h:
                records[first + i] = (h, origin(raw[:MAX_LINE])[0], body.strip()[:160])
    return {"path": path, "first": first, "last": end, "events": events, "heads": heads, "records": records}


# (healthy18) the header of a Python logging record: a Formatter's fmt prints %(levelname)s, one of DEBUG, INFO,
# WARNING, ERROR, CRITICAL (Lib/logging/__init__.py _levelToName), before the message; its text up to the level name,
# digits as 0 (the time stamp's), with the character after the name: '0000-00-00 00:00:00,000 L ', 'L:', '[L]'
_REC_LEVEL = re.compile(r"(?<![A-Za-z])(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?![A-Za-z])")
_DIGITS = re.compile(r"\d")
_REC_SEP = re.compile(r"[^\w\n]{1,3}")
_REC_NAME = re.compile(r"[^\w\n]{1,3}(?:[\w.-]{1,60}[^\w\n]{1,2})?")  # the separator, the logger's name after it


def record_head(body, levels=None):
    """The shape of a logging record's header (above), or None; ``levels``: the level names it may have."""
    m = _REC_LEVEL.search(body[:80])
    if not m or (levels and m.group(0) not in levels) or not _REC_NAME.match(body, m.end()):
        return None
    name = _REC_NAME.match(body, m.end())
    return _DIGITS.sub("0", body[:m.start()]) + "L" + name.group(0)


def _short_head(body):
    """A record's header up to the separator after its level name (record_head without the logger's name): a format
    with no %(name)s ('[rank%(rank)s] %(levelname)s %(message)s') has the message's first word there."""
    m = _REC_LEVEL.search(body[:80])
    sep = _REC_SEP.match(body, m.end()) if m else None
    return _DIGITS.sub("0", body[:m.start()]) + "L" + sep.group(0) if sep else None


# torch.distributed's excepthook (torch/distributed/distributed_c10d.py init_process_group, torch >= 2.3:
# https://github.com/pytorch/pytorch/pull/118190): after init_process_group an uncaught exception of the main thread is
# printed with '[rank<N>]: ' before every line
_HOOKED = re.compile(r"^\[rank\d{1,7}\]: ")


def _printed_by_program(scan):
    """(fp26) {traceback line: (header line, traceback) of a later hooked traceback} for the tracebacks printed without that
    prefix before an uncaught exception that carries it, in the same input: for that rank to print it every rank of
    its world passed init_process_group (which waits for them all), so a process that printed a bare traceback was
    alive past it (traceback.print_exc() in a handler), or printed it before init and went on to init."""
    tbs = [tb for tb in getattr(scan, "tracebacks", None) or () if tb.get("header_line") is not None]
    hooked = [tb for tb in tbs if _HOOKED.match(getattr(tb.get("hit"), "text", "") or "")]
    got = {}
    for tb in tbs:
        if tb in hooked or tb.get("rank") is not None or _HOOKED.match(getattr(tb.get("hit"), "text", "") or ""):
            continue
        later = next((h for h in hooked if h["header_line"] > tb["line"]
                      and _source_index(scan, h["header_line"]) == _source_index(scan, tb["line"])), None)
        if later is not None:
            got[tb["line"]] = (later["header_line"], later)
    return got


def _caught(scan, outs, ranks=None):
    """The exception lines of the tracebacks a logging record carried (Logger.exception(), exc_info=True: logging
    formats the exception being handled under the record, Lib/logging/__init__.py; 'This method should only be called
    from an exception handler') when a later progress / done / end line of the same input is a record with the same
    header: the program that caught it was still logging after it; the process did not die there. ``ranks``:
    {line: rank} of the error lines; a record of a rank ('[rank1] ERROR ...') is followed by that rank's own records
    of the same header up to its level's separator (fp23: a format without a logger's name)."""
    got = set(_printed_by_program(scan))
    for tb in getattr(scan, "tracebacks", None) or ():
        intro, at = tb.get("intro") or "", tb.get("intro_line")
        if at is None or tb.get("header_line") is None or at != tb["header_line"] - 1:
            continue
        head = record_head(intro, ("WARNING", "ERROR", "CRITICAL"))
        out = outs[_source_index(scan, tb["line"])] if head else None
        if out and any(ln > tb["line"] and h.replace("L", "", 1) == head.replace("L", "", 1)
                       for ln, h in (out.get("heads") or {}).items()):
            got.add(tb["line"])
            continue
        if out and _later_record(out, tb["line"], head, err_rank=(ranks or {}).get(at)) is not None:
            got.add(tb["line"])  # (fp26) any later record of the same logger: 'INFO probe: rank 1 of 2: mesh ...'
            continue
        rank = (ranks or {}).get(at)
        short = _short_head(intro) if out and rank is not None else None
        if short and any(e[0] > tb["line"] and e[4] == rank and e[1] in ("progress", "done", "end") and
                         _short_head(e[5]) == short for e in out["events"]):
            got.add(tb["line"])
    return got


def _later_record(out, after, head, err_rank=None):
    """(fp26) An INFO / DEBUG record after line ``after`` with ``head``'s header (the same logger; a rank's: that
    rank's), shaped as an event (line, 'record', None, None, rank, text), or None."""
    want = head.replace("L", "", 1)
    for ln in sorted(out.get("records") or {}):
        h, rank, text = out["records"][ln]
        if ln > after and h.replace("L", "", 1) == want and rank == err_rank:
            return ln, "record", None, None, rank, text
    return None


def record(scan, path, end, data):
    """scan.py, at the end of each input: keep its outcome (the first MAX_INPUTS inputs), and whether the input was
    read to its end ("whole"; not where the scan's deadline or a signal stopped it, or cut stdin: what the job
    printed last is then not in ``data``)."""
    outs = scan.__dict__.setdefault("outcomes", [])
    if len(outs) < MAX_INPUTS:
        out = read_tail(path, end, data)
        out["whole"] = not (scan.stopped or scan.stop_reason())
        outs.append(out)


def _finding_lines(scan, f):
    """The lines a finding stands on (its matches, and every line scan kept of its entry), and whether
    that is all of them."""
    lines = {m["line"] for m in f.get("matches", ()) if m.get("line") is not None}
    kept = scan.match_lines.get(f["id"], [])
    lines.update(kept)
    complete = scan.counts.get(f["id"], len(lines)) <= len(kept) or f.get("match_count", 0) <= len(lines)
    return lines, complete


def went_on(scan, findings):
    """(line, text, what) of the line that shows the job got past every failure of the text (the latest such
    line of the inputs that hold one), or None when any failure may be what stopped it."""
    outs = getattr(scan, "outcomes", None)
    if not outs or len(outs) != len(scan.sources) or not all(o.get("whole") for o in outs):
        return None  # an input whose end was not read (past MAX_INPUTS, or the scan stopped before it)
    if any(_TERMINAL.search(m.get("text") or "") for f in findings for m in f.get("matches", ())) or \
            any(_TERMINAL.search(h.text or "") for h in scan.errors):
        return None  # a launcher said the job failed (a later run's progress is another job's)
    fails = {}  # input index -> [(line, rank)]
    for f in findings:
        lines, complete = _finding_lines(scan, f)
        if not complete:
            return None  # lines of it that were not kept may come after the job's last progress
        ranks = {m["line"]: origin(m.get("text") or "")[0] for m in f.get("matches", ())}
        for ln in lines:
            fails.setdefault(_source_index(scan, ln), []).append((ln, ranks.get(ln)))
    known = {ln for lst in fails.values() for ln, _r in lst}
    err_rank = {h.line: (h.origin[0] if getattr(h, "origin", None) else origin(h.text or "")[0]) for h in scan.errors}
    for ln in scan.error_lines:
        if ln not in known:
            fails.setdefault(_source_index(scan, ln), []).append((ln, err_rank.get(ln)))
    if not fails or scan.error_count > len(scan.error_lines):
        return None  # (error lines that were not kept may come after the job's last progress)
    # the failure lines where a process died (an uncaught exception's last line, a kill), read from their own text:
    # a failure line before the tail that outcome reads is not among its events (red team 2026-11-26f)
    texts = [(m["line"], m.get("text") or "") for f in findings for m in f.get("matches", ())]
    texts += [(h.line, h.text or "") for h in scan.errors]
    died = {ln for ln, t in texts if _DIED.search(_GLOG_HEAD.sub("", strip_prefix(clean(t[:MAX_LINE]))[0]).strip())}
    caught = _caught(scan, outs, err_rank)  # (healthy18) a traceback a logging record carried, the same logger going on
    died -= caught
    # (fp23) a caught traceback's lines carry no rank prefix of their own: they are the rank's whose record carried
    # them ('[rank1] ERROR ...' then the traceback), so that rank's progress after it shows it went on
    owner = {}
    for tb in getattr(scan, "tracebacks", None) or ():
        if tb.get("line") in caught and tb.get("header_line") is not None:
            rank = err_rank.get(tb.get("intro_line"))
            if rank is not None:
                owner.update((ln, rank) for ln in range(tb["header_line"], tb["line"] + 1))
    best = None
    for si, lst in fails.items():
        got = _past(outs[si], lst, died, caught, owner)
        if got is None:
            return None
        if best is None or got[0] > best[0]:
            best = got
    return best


def _source_index(scan, line):
    return max((i for i, s in enumerate(scan.sources) if s.get("first_line", 1) <= line), default=0)


def _past(out, fails, died_at=(), caught=(), owner=None):
    """The event of one input's tail that shows it went on after its failure lines ``fails`` [(line, rank)],
    or None. ``owner``: {line: rank} of the lines of a caught traceback that carry no rank of their own."""
    events = out["events"]
    if any(kind == "terminal" for _ln, kind, _k, _v, _r, _t in events):
        return None  # the launcher said the job failed
    # (a failure line of the tail that no finding holds counts too: went on only if progress follows it as well)
    fails = list(fails) + [(ln, r) for ln, kind, _k, _v, r, _t in events if kind == "fatal"]
    if owner:
        fails = [(ln, owner.get(ln) if r is None else r) for ln, r in fails]
    last = max(ln for ln, _r in fails)
    # whose failure it was at the end: the progress after it must be that process's (a rank's traceback followed by
    # lines without a rank is not that rank going on; torchrun's own 'failed (exitcode ...)' line, without a rank,
    # before a restarted group's progress is)
    ranks = {r for ln, r in fails if ln >= last - 2}
    after = [e for e in events
             if e[0] > last and e[1] in ("end", "done", "progress") and (e[4] in ranks or e[1] == "end")]
    if not after or any(e[0] > last and e[1] == "fatal" for e in events):
        return None
    # a process that died there (an uncaught exception's last line, a kill, a crash): a short 'done' line after it is
    # the wrapper's ('python train.py; echo "job done"' prints it whatever python did), not the job's end
    died = last in died_at or last not in caught and any(kind == "fatal" and ln == last and _DIED.search(t)
                                                         for ln, kind, _k, _v, _r, t in events)
    strong = [e for e in after if e[1] == "end" or (e[1] == "done" and not died)]
    # ... nor progress: a process that died prints none of its own after it; such lines are another process's (an
    # interleaved log) or text appended after the failure. A launcher's restart shows as its own failure line after
    # the death (torchrun's 'failed (exitcode ...)'), which is then the last one; else only an end line says the job
    # went on (red team 2026-11-26f, docs/security.md 25.)
    progress = [e for e in after if e[1] == "progress" and not died]
    if not strong and not _advancing(progress):
        return None
    ev = max(after, key=lambda e: e[0])
    return ev[0], ev[5], ev[1]


def _advancing(progress):
    """Two progress lines or more, and a counter among them that grew (the same counter printed again at the
    same value is one state printed twice: tqdm's bar redrawn when it closes)."""
    if len(progress) < 2:
        return False
    seen = {}
    for _ln, _kind, key, value, _r, _t in progress:
        if key is None:
            continue
        if key in seen and value > seen[key]:
            return True
        seen.setdefault(key, value)
    return not seen  # loss lines without a counter: two of them


# a warning that says what may happen, not that it did: torch's ProcessGroupNCCL (LOG(WARNING) "... using GPU %d as
# device used by this process is currently unknown. This can potentially cause a hang if this rank to GPU mapping is
# incorrect."; torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp guessDeviceForRank / barrier), DDP's reducer ("...
# This is not an error, but may impair performance.", torch/csrc/distributed/c10d/reducer.cpp), and the like. hang.py
# and ncclinfo.py do not read such a line as the user saying the job hangs.
# (the thing foretold is the complaint's own subject, a hang or a slowdown: 'it hangs, which may cause the node to
# idle' still says it hangs)
_FORETOLD = re.compile(r"\b(?:can|could|may|might)(?: potentially)? (?:cause|lead to|result in) (?:an? )?(?:hang|"
                       r"deadlock|stall|slow)|\b(?:can|could|may|might) (?:impair|degrade|hurt) performance\b", re.I)
_FAILED = re.compile(r"\b(?:fail\w{0,4}|error\w{0,2}|timed out|timeout|refused|abort\w{0,4}|killed|exception)\b", re.I)


def foretells(text):
    """Whether a line says what may happen ('This can potentially cause a hang if ...'), not that it did."""
    return bool(_FORETOLD.search(text)) and not _FAILED.search(text.replace("not an error", ""))


# a line its own program marks as a warning: torch's c10 logging ('[W1126 14:18:30.553 ProcessGroupGloo.cpp:524]',
# glog's severity letter; c10/util/Logging.cpp), TORCH_WARN's 'Warning: ... (function ...)', Python's
# warnings.showwarning ('<file>:<line>: UserWarning: ...'); never NCCL's 'NCCL WARN', which is how NCCL prints errors
_WARNING_LINE = re.compile(r"^[ \t]{0,4}(?:\[(?:rank|default)\d{1,7}\]:?[ \t]{0,2})?\[?W\d{4} \d\d:\d\d|"
                           r"\] Warning: |^[ \t]{0,4}Warning: |:\d{1,7}: [A-Z]\w{0,40}Warning: ")


def _warning_only(f):
    ms = f.get("matches") or []
    return bool(ms) and f.get("match_count", 0) <= len(ms) and all(
        _WARNING_LINE.search(m.get("text") or "") and "NCCL WARN" not in (m.get("text") or "") for m in ms)


_GOES_ON = ("progress", "done", "end")


def _record_went_on(out, line):
    """The event after a logging record at ``line`` that shows its program went on: a later progress / done / end
    line of the same input that is a record of the same header (record_head; a rank's record: that rank's, the same
    header up to its level's separator, as _caught reads a caught traceback's record), or None. A record's own level
    is its program's word that it logged and went on: 'WARNING data: fetch failed (attempt 1): ...; retrying', then
    'INFO data: step 0 ...' (fp24)."""
    ev = next((e for e in out["events"] if e[0] == line), None)
    if ev is None or not record_head(ev[5], ("WARNING", "ERROR")):
        return None
    head, short, rank = (out.get("heads") or {}).get(line), _short_head(ev[5]), ev[4]
    for e in out["events"]:
        if e[0] <= line or e[1] not in _GOES_ON or e[4] != rank:
            continue
        if (rank is None and head is not None and (out.get("heads") or {}).get(e[0]) == head) or \
                (rank is not None and short is not None and _short_head(e[5]) == short):
            return e
    return None


def _passed_over(scan, outs, f, caught):
    """The event that shows the job went past every line ``f`` stands on, each a logging record its program went on
    after (_record_went_on) or a line of a traceback such a record carried (_caught; fp26: any later record of its
    logger), or of a traceback the program printed itself before an uncaught one (_printed_by_program), or None."""
    ms = f.get("matches") or []
    if not ms or f["kind"] == "echo":
        return None
    lines, complete = _finding_lines(scan, f)  # (fp26) every line scan kept of it, not the first five shown
    if f.get("match_count", 0) > len(ms) and not complete:
        return None
    spans = [(tb["header_line"], tb["line"], tb["intro_line"], tb.get("intro") or "")
             for tb in getattr(scan, "tracebacks", None) or ()
             if tb.get("line") in caught and tb.get("header_line") is not None and tb.get("intro_line") is not None]
    printed = _printed_by_program(scan)
    bare = [(tb["header_line"], tb["line"]) for tb in getattr(scan, "tracebacks", None) or ()
            if tb.get("line") in printed]
    best = None
    for ln in sorted(lines):
        own = next((b for a, b in bare if a <= ln <= b), None)
        if own is not None:
            # (fp26) a traceback the program printed itself: the later uncaught one shows the job went on past it
            at, later = printed[own]
            got = (at - 1, "record", None, None, None,
                   "an uncaught exception later, printed with torch.distributed's '%s' prefix" %
                   _HOOKED.match(later["hit"].text).group(0).strip())
            if best is None or got[0] > best[0]:
                best = got
            continue
        # a caught traceback's line: its record went on (the record's own line before the traceback)
        span = next((sp for sp in spans if sp[0] <= ln <= sp[1]), None)
        ln = span[2] if span else ln
        got = _record_went_on(outs[_source_index(scan, ln)], ln)
        if got is None and span:
            # (fp26) the record carried a traceback (Logger.exception: caught); a later record of its logger, at any
            # level, shows the program alive after it
            head = record_head(span[3], ("WARNING", "ERROR", "CRITICAL"))
            got = _later_record(outs[_source_index(scan, ln)], span[1], head, origin(span[3])[0]) if head else None
        if got is None:
            return None
        if best is None or got[0] > best[0]:
            best = got
    return best


def past_records(scan, findings, structural, note):
    """A root that stands only on logging records its program went on after (a WARNING or ERROR record followed by
    the same logger's or rank's later records of progress; a traceback such a record carried), before a later failure
    that is no such record: that later failure is the root, the records become notes ('went on'), as past_warnings
    does for a program's warning lines. fp23's left: a retried ConnectionError logged as WARNING, then an uncaught
    ModuleNotFoundError; both ranks' logged, caught state_dict error, then rank 1's uncaught ValueError. Unchanged
    when no later failure is read (then went_on judges the whole text)."""
    outs = getattr(scan, "outcomes", None)
    if not findings or findings[0]["kind"] == "echo" or not outs or len(outs) != len(scan.sources):
        return findings, []
    err_rank = {h.line: (h.origin[0] if getattr(h, "origin", None) else origin(h.text or "")[0]) for h in scan.errors}
    caught = _caught(scan, outs, err_rank)
    passed = _passed_over(scan, outs, findings[0], caught)
    if passed is None:
        return findings, []
    gone, rest = [], []
    for f in findings:
        (gone if f["kind"] != "echo" and _passed_over(scan, outs, f, caught) is not None else rest).append(f)
    later = sorted((f for f in rest if f["kind"] != "echo" and f["first_line"] > passed[0]),
                   key=lambda f: f["first_line"])
    got = structural()
    if got is not None and got["kind"] != "echo" and got["first_line"] > passed[0] and \
            _passed_over(scan, outs, got, caught) is None and (not later or got["first_line"] < later[0]["first_line"]):
        later = [got]
        rest = [got] + rest
    if not later:
        _ended_later(scan, outs, findings[0], passed, caught)
        return findings, []
    return _promoted(later[0], rest, gone, passed, note)


def _promoted(head, rest, gone, passed, note):
    """(findings, notes) with ``head`` the root, the other findings related (or cascade for echoes), and a progress
    note for each finding in ``gone`` (what the run went past)."""
    rest = [head] + [f for f in rest if f is not head]
    for f in rest:
        f["role"] = "related" if f["kind"] != "echo" else "cascade"
    head["role"] = "root"
    return rest, [note(f, (passed[0], passed[5], "progress")) for f in gone]


def _ended_later(scan, outs, root, passed, caught):
    """A root the job went on after, and a later line where a process ended that nothing reads (bash's 'Aborted'
    report of the script, a kill): the root is not what stopped the job, and the text names nothing surer; the root
    says How sure: low (calibrate: likely_cause) and which line ended the job."""
    spans = [(tb["header_line"], tb["line"]) for tb in getattr(scan, "tracebacks", None) or ()
             if tb.get("line") in caught and tb.get("header_line") is not None]
    out = outs[_source_index(scan, passed[0])]
    end = next((e for e in out["events"] if e[0] > passed[0] and e[1] in ("fatal", "terminal")
                and not any(a <= e[0] <= b for a, b in spans) and _record_went_on(out, e[0]) is None), None)
    if end is None:
        return
    root.setdefault("notes", []).insert(0, (
        "How sure: low. The program went on after the line(s) this answer stands on (line %d: %s): it logged them "
        "and carried on. The job ended later, at line %d (%s), which names no cause gpudoctor knows: look there "
        "first." % (passed[0], passed[5][:120], end[0], end[5][:160])))


def past_warnings(scan, findings, structural, note):
    """A root that stands only on warning lines (each marked as a warning by its own program, _WARNING_LINE) which
    the job went past (advancing progress after them, from the same rank) before a later failure: the warning is
    not what stopped the job. -> (findings, notes): the warning's findings become notes (``note(f, (line, text,
    'progress'))``) and the root is the first failure after that progress (a remaining finding, or
    ``structural()``'s answer: the rank's own exception); unchanged when no later failure is read. A warning tied
    to the failure (NCCL's fallback to sockets before a timeout) is an entry of kind 'warning', never a root, and
    is left as it is."""
    outs = getattr(scan, "outcomes", None)
    if not findings or findings[0]["kind"] == "echo" or not _warning_only(findings[0]) or not outs or \
            len(outs) != len(scan.sources):
        return findings, []
    root = findings[0]
    lines = [m["line"] for m in root["matches"]]
    out = outs[_source_index(scan, max(lines))]
    ranks = {origin(m.get("text") or "")[0] for m in root["matches"]}
    progress = [e for e in out["events"] if e[0] > max(lines) and e[1] == "progress" and e[4] in ranks | {None}]
    fatal = [e for e in out["events"] if e[0] > max(lines) and e[1] in ("fatal", "terminal")]
    if not fatal or not progress:
        return findings, []
    first_fatal = min(e[0] for e in fatal)
    went = [e for e in progress if e[0] < first_fatal]
    if not _advancing(went):
        return findings, []
    passed = went[-1]
    # the warning's line(s) answered by several entries: all of them went past
    gone = [f for f in findings if f["kind"] != "echo" and f["matches"] and _warning_only(f)
            and max(m["line"] for m in f["matches"]) < passed[0]]
    rest = [f for f in findings if f not in gone]
    later = [f for f in rest if f["kind"] != "echo" and f["first_line"] > passed[0]]
    got = structural()
    if got is not None and got["kind"] != "echo" and got["first_line"] > passed[0] and \
            (not later or got["first_line"] < later[0]["first_line"]):
        later = [got]
        rest = [got] + rest
    if not later:
        return findings, []
    return _promoted(later[0], rest, gone, passed, note)
