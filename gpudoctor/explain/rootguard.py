"""A root cause needs its own evidence (issue 18, "wrong-guard"): where a module would name a
specific cause from a line that does not show it, the answer it gives instead.

The confidently wrong answers of the seen held-out sets (docs/explain.md, "A root cause needs its own
evidence") were, beside label granularity, mostly a specific cause named from evidence it does not
own: a hang named an NCCL hang with no NCCL line in the text, a later NCCL WARN of a failure chosen
over the thread's first, another library's name-resolution error read as the rendezvous. Each guard
here reads what the text shows and names the family whose evidence it is, with the ways to tell its
causes apart (the entry's causes, ordered by their `evidence`), never one seen text's wording.

- hang_at_rendezvous (hang.judge): a hang whose text stops at the process group's start (torch's
  store-based barrier, a framework's init line / the user's words saying init_process_group, or an
  input that ends at the c10d store client's own line) and holds no NCCL line, no collective, no
  eager NCCL init and nothing past the start is rendezvous.init_hang (hang.toml): the ranks
  have not met in init_process_group's store, which comes before NCCL. torch creates NCCL's
  communicator at the first collective, eagerly only with init_process_group(device_id=...)
  (https://pytorch.org/docs/stable/distributed.html#torch.distributed.init_process_group); env://
  meets at MASTER_ADDR:MASTER_PORT (https://pytorch.org/docs/stable/distributed.html#initialization).
- first_in_thread (analyze's cause order): NCCL prints WARN where a call failed and returns the error
  code up its callers (src/include/checks.h: NCCLCHECK logs each caller as an INFO '%s:%d -> %d'
  line, never another WARN for the same failure), so a later WARN of the same thread (NCCL's prefix
  '%s:%d:%d [%d] NCCL WARN': host, pid, tid, device; src/debug.cc) is an operation that failed after
  it, on a communicator the first failure left broken ('invalid root 0 (root should be in the 0..-1
  range)'). The entry of the thread's first WARN is the root, not the one whose rank is higher.
- outside_component (analyze's cause order): an entry of the rendezvous or gloo families names a cause in
  torch.distributed's store or its launcher (MASTER_ADDR that does not resolve, a refused store
  port); when every line it matched is part of a Python traceback (CPython's format, pytb.py) whose
  frames never enter torch.distributed, DDP or a launcher (a download in torch.hub / urllib, an HTTP
  client), the line is another library's OS error (socket.gaierror while fetching weights), not the
  rendezvous: the entry becomes a note and the exception is answered from its traceback
  (analyze.structural).
"""

import re

from gpudoctor.explain.text import clip as _clip

MAX_TEXT = 300  # characters of a line read

# The process group's start, as the user or a framework says it: Lightning's 'Initializing distributed: GLOBAL_RANK:
# %d, MEMBER: %d/%d' (lightning/fabric/utilities/distributed.py _init_dist_connection; 'initializing ddp:' before
# 1.6), DeepSpeed's 'Initializing TorchBackend in DeepSpeed with backend %s' (deepspeed/comm/comm.py
# init_distributed), 'hung at startup'; not a collective. A collective called or named ('dist.barrier()' in the
# code shown, 'stuck at barrier'), NCCL's eager init (init_process_group(device_id=...)) or NCCL's own lines say the
# job got past the store; torch's 'store based barrier' (distributed_c10d.py _store_based_barrier) is the store's.
_PG_START = re.compile(r"init_process_group|initiali[sz](?:e|es|ed|ing)?\b[^\n]{0,40}?(?:distributed|\bddp\b|process "
                       r"group|TorchBackend|backend)|rendezvous|\b(?:at|on|during) (?:the )?start(?:up)?\b|初始化",
                       re.I | re.A)
_COLL_CALL = re.compile(r"\b(?:barrier|all_?reduce|all_?gather\w{0,12}|reduce_scatter\w{0,8}|broadcast\w{0,8}|"
                        r"all_to_all\w{0,8}|ncclCommInit\w{0,12})\b", re.I | re.A)
_SBB_WORDS = re.compile(r"store[ _]based[ _]barrier\w{0,8}", re.I | re.A)
_EAGER = re.compile(r"\bdevice_id\s{0,2}=")
# a line after it that says init_process_group returned, or that training ran: Lightning's 'All distributed processes
# registered. Starting with %d processes' (printed after init_process_group, lightning/fabric/utilities/distributed.py),
# torch's 'Completed store-based barrier for key', NCCL's 'Init COMPLETE', a step / epoch / loss / progress bar
_PAST_INIT = re.compile(r"All distributed processes registered|Completed store-based barrier|Init COMPLETE|"
                        r"\b(?:epoch|step|iter(?:ation)?)\s{0,2}[:=\[]?\s{0,2}\d|\bloss\s{0,2}[:=]|\d\s{0,2}(?:it/s|s/it)\b",
                        re.I | re.A)


def _collective(text):
    return _COLL_CALL.search(_SBB_WORDS.sub("", text[:MAX_TEXT])) is not None


# torch's c10d store client logs through its own C++ logger ('[W1126 11:43:19.583 socket.cpp:207] [c10d] The
# hostname of the client socket cannot be retrieved', torch/csrc/distributed/c10d/socket.cpp, TCPStore.cpp): an
# input that ends there (but for the user's ^C) stopped while its store client connected
_STORE_LINE = re.compile(r"\[c10d\]|\b(?:socket|TCPStore|TCPStoreLibUvBackend)\.cpp:\d{1,6}\]", re.A)
_END_NOISE = re.compile(r"^(?:\^C|\^Z|\$|#|KeyboardInterrupt)?\s*$")


def _store_line_last(tails):
    """(line, text, None) of a c10d store/socket line that is an input's last line (only ^C or blank lines after it)."""
    for tl in tails:
        user = tl.get("user") or []
        for ln, t in reversed(user[-4:]):
            if _END_NOISE.match(t[:40]):
                continue
            if _STORE_LINE.search(t[:MAX_TEXT]):
                return ln, t[:MAX_TEXT], None
            break
    return None


def at_rendezvous(ev, tails):
    """(line, text) where a hang stopped at the process group's start, before NCCL, else None. ``ev``: hang.evidence;
    ``tails``: hang._tails (each input's last lines; the user's lines among them). torch's store-based barrier did not
    complete (stage pg_init), or the user's words / a framework's line say it stopped at init_process_group (stage
    init from the words, not from an NCCL line); and nothing says it got further: no NCCL line, no nccl-tests, no
    collective (in the code shown, where it stopped, or a py-spy dump), no eager NCCL init, no 'works with gloo'."""
    last = ev.get("last")
    words = ev.get("words") or {}
    # (the user saying it stops after some steps, hang.py's 'later' words, is past the start)
    if ev.get("slow") or ev.get("info") or ev.get("nccl_tests") or words.get("gloo_ok") or words.get("later") or \
            any(d.get("collective") for d in ev.get("pyspy") or ()):
        return None
    if ev.get("stage") is None and last is None:
        last = _store_line_last(tails)  # no stage said: the text ends at the store client's own line
    if not last:
        return None
    if ev.get("stage") is not None and ev.get("stage") != "pg_init" and not (
            ev.get("stage") == "init" and last[2] is None and _PG_START.search(last[1][:MAX_TEXT])
            and not _collective(last[1])):
        return None
    for tl in tails:
        for ln, t in tl.get("user") or ():
            t = t[:MAX_TEXT]
            if ("NCCL INFO" in t or "NCCL WARN" in t) or _EAGER.search(t) or _collective(t) or (
                    ln > last[0] and _PAST_INIT.search(t)):
                return None
    return last[0], last[1]


def hang_at_rendezvous(by, scan, ev, said, triage):
    """hang.judge's answer for a hang at_rendezvous(): rendezvous.init_hang's finding (the line where it stopped,
    the complaint, how sure, each cause with the lines that point at it), else None."""
    e = by.get("rendezvous.init_hang")
    if e is None:
        return None
    from gpudoctor.explain.hang import _made, _tails

    at = at_rendezvous(ev, _tails(scan))
    if at is None:
        return None
    shown = [at] + ([tuple(ev["complaint"][:2])] if ev.get("complaint") and ev["complaint"][0] != at[0] else [])
    sbb = ev.get("sbb") if ev.get("stage") == "pg_init" else None
    where = ("inside init_process_group, in torch's store-based barrier (line %d: %s)" if sbb else
             "at the process group's start (line %d: %s)") % (at[0], _clip(at[1], 160))
    sure = "low"
    if sbb and sbb.get("state") == "wait" and sbb.get("world") and sbb.get("joined") is not None and \
            sbb["joined"] < sbb["world"]:
        # torch's own count (distributed_c10d.py _store_based_barrier: 'world_size=W, num_workers_joined=J')
        sure = "medium"
        where += ": torch's own count says %d of %d ranks joined" % (sbb["joined"], sbb["world"])
    head = ("How sure: %s. %s, and it stops %s, with no NCCL line in the text: init_process_group first waits in its "
            "rendezvous store until every rank of the world size has joined, and torch creates NCCL's communicator "
            "only at the first collective (eagerly only with device_id=), so the ranks have not met yet: not an NCCL "
            "hang. The causes below are what keeps them apart; one that a line of the text points at comes first." % (
                sure, "The job waits" if ev.get("complaint") and ev["complaint"][0] == at[0] else said[0].upper() + said[1:],
                where))
    f = _made(e, scan, shown, "structural", [head])
    f["triage"] = triage
    return f


# NCCL's prefix (src/debug.cc ncclDebugLog: hostname, pid, tid, cudaDev): the thread
# (WARN lines carry the source file and line before the level: "%s:%d:%d [%d] %s:%d NCCL WARN ")
_NCCL_WARN = re.compile(r"(?<![\w.-])([\w.-]{0,63}:\d{1,9}:\d{1,9}) \[\d{1,3}\] (?:[\w./-]{1,80}:\d{1,6} )?NCCL WARN ")


def _warn_threads(m):
    """{thread: first line} of an entry's matched NCCL WARN lines (its kept hits)."""
    out = {}
    for h in m.get("hits") or ():
        t = _NCCL_WARN.search((h.text or "")[:MAX_TEXT])
        if t and (t.group(1) not in out or h.line < out[t.group(1)]):
            out[t.group(1)] = h.line
    return out


def first_in_thread(order, matched, by):
    """analyze's cause order with the root replaced by the entry of an earlier NCCL WARN line of the same thread
    (host:pid:tid) as the root's own, when one matched and names a specific cause (not an echo, not a family entry
    while the root is specific). -> the new order (the same list when nothing earlier)."""
    if len(order) < 2:
        return order
    root = by[order[0]]
    mine = _warn_threads(matched[order[0]])
    if root["kind"] == "echo" or not mine:
        return order
    best = None
    for eid in order[1:]:
        e = by[eid]
        if e["kind"] == "echo" or (e.get("generic") and not root.get("generic")):
            continue
        for th, ln in _warn_threads(matched[eid]).items():
            if th in mine and ln < mine[th] and (best is None or ln < best[1]):
                best = (eid, ln)
    if best is None:
        return order
    return [best[0]] + [x for x in order if x != best[0]]


# the frames of the components whose failures the rendezvous and gloo entries name: torch.distributed (its store,
# rendezvous handlers, elastic agent, c10d), DDP, and the launchers / frameworks that run init_process_group
_COMPONENT_FRAME = re.compile(r"torch[/\\](?:distributed|nn[/\\]parallel)[/\\]|c10d|[/\\](?:deepspeed|accelerate|horovod|"
                              r"lightning|lightning_fabric|pytorch_lightning|ray|megatron|colossalai|torchrun|"
                              r"torchelastic)[/\\]")
_GUARDED = ("rendezvous.", "gloo.")


def _in_traceback(tbs, line):
    return next((tb for tb in tbs if tb["header_line"] <= line <= tb["line"]), None)


# a size-0 weight (deepspeed.zero3_placeholder) in a text that names FSDP and not DeepSpeed: FSDP's own sharded
# parameters (review16; the entry's two signals say which the text names)
_ZERO3 = "deepspeed.zero3_placeholder"


def _fsdp_not_deepspeed(scan):
    named = {("fsdp" if "FSDP" in p.source else "ds") for p, hits in (getattr(scan, "signals", None) or {}).items()
             if p.entry == _ZERO3 and hits}
    return named == {"fsdp"}


def outside_component(order, matched, by, scan):
    """(order, demoted): the root taken out of analyze's cause order when it is a rendezvous / gloo entry whose every
    matched line lies in a Python traceback that never enters those components (above), or the ZeRO-3 placeholder
    entry in a text that names FSDP and not DeepSpeed, else (order, [])."""
    if order and order[0] == _ZERO3 and _fsdp_not_deepspeed(scan):
        return order[1:], order[:1]
    if not order or not order[0].startswith(_GUARDED) or by[order[0]]["kind"] == "echo":
        return order, []
    tbs = [tb for tb in getattr(scan, "tracebacks", None) or () if tb.get("header_line") is not None]
    m = matched[order[0]]
    lines = sorted(set(m.get("lines") or [h.line for h in m.get("hits") or ()]))
    if not tbs or not lines:
        return order, []
    for ln in lines:
        tb = _in_traceback(tbs, ln)
        if tb is None or len(tb["frames"]) < 2 or any(_COMPONENT_FRAME.search(f[0]) for f in tb["frames"]):
            return order, []
    return order[1:], order[:1]


# ---- another library's copy of a check (review19, issue 18 item 3)
# A generated message site of a Python package (its 'where': '<package>/<module>.py:<line>') is that package's raise
# statement. When the traceback whose exception line it matched was raised by a NEW exception built in another
# library's own frame (the innermost frame is a site-packages file of another distribution, its source line 'raise
# X(...)'), the words are that other library's: bitsandbytes' optimizers copy torch's 'Invalid learning rate: %s'
# (bitsandbytes/optim/optimizer.py), SGLang's '%s is not supported for %s' reads torch's "padding='same' is not
# supported for strided convolutions" (torch/nn/modules/conv.py). The site's entry is then no root (the traceback's
# own reading answers). A re-raise ('raise', 'raise e', 'raise value.as_instanceof_cause()') keeps the message of
# the code that built it, so only a 'raise <Name>(' line counts.
_PY_SITE = re.compile(r"^(?P<pkg>[A-Za-z_]\w{0,60})/[\w/.-]{0,200}\.py:\d")
_NEW_RAISE = re.compile(r"^raise [A-Za-z_][\w.]{0,80}\(")


def _site_pkg(h):
    from gpudoctor.explain import pytb

    site = getattr(h.pattern, "site", None) if h.pattern is not None else None
    m = _PY_SITE.match((site or {}).get("where") or "")
    if not m:
        return None
    kind, lib = pytb.where("/site-packages/%s/x.py" % m.group("pkg"))
    return lib if kind == "lib" else None


def other_librarys_site(order, matched, by, scan):
    """(order, demoted): the root taken out of analyze's cause order when every line it matched is read by a Python
    package's generated site inside a traceback that another library raised with an exception it built (above)."""
    from gpudoctor.explain import pytb

    if not order or by[order[0]]["kind"] == "echo":
        return order, []
    tbs = [tb for tb in getattr(scan, "tracebacks", None) or () if tb.get("header_line") is not None]
    m = matched[order[0]]
    hits = m.get("hits") or ()
    if not tbs or not hits or len(set(m.get("lines") or ())) > len(hits):
        return order, []
    for h in hits:
        pkg = _site_pkg(h)
        tb = _in_traceback(tbs, h.line) if pkg else None
        if tb is None or not tb.get("frames"):
            return order, []
        kind, raiser = pytb.where(tb["frames"][-1][0])
        src = ((tb.get("src") or [])[-1:] or [(None, None)])[0][0] or ""
        if kind != "lib" or not raiser or raiser == pkg or not _NEW_RAISE.match(src.strip()):
            return order, []
    return order[1:], order[:1]


# ---- a structured logger's own warning (wrong17, issue 18 item 3)
# A program that logs through zap, logrus or Go's log/slog chooses each record's level itself and has an error level
# for its failures (zap's Error, logrus' Error / Fatal, slog's ERROR); a record it wrote at warn or info level is one
# it went on after (gpud's '{"level":"warn",...,"caller":"memory/memory.go:97","msg":"NVML memory APIs not supported
# ..., falling back to system memory","error":"Not Supported"}'). Such a record names the file that logged it when the
# logger adds the caller (zap's "caller", go.uber.org/zap zapcore/entry.go EntryCaller.TrimmedPath; slog's "source",
# log/slog AddSource; logrus' "file" with ReportCaller). A generated message site matched on it is not the record's
# own words when the site is another file's (SGLang's '%s is not supported for %s' on a Go program's record), nor is
# a code's meaning (NVML's 'Not Supported', an errno text: no file of its own) the failure of a run that logged it as a
# warning: both become notes. A site of the record's own program (no caller named, or the same file) still answers:
# the program's own warning may be what the user asks about (the GPU Operator's 'Error signaling containerd,
# attempt 5/6').
_CALLER = re.compile(r'(?:"(?:caller|file)"\s?:\s?"|\b(?:caller|source|file)=)([^"\s:]{1,160}\.(?:go|py|c|cc|cpp|rs|java)):\d')


def _quiet_record_file(text):
    """(is a structured record at warn / info level, the basename of the file it names as its caller or None)."""
    from gpudoctor.explain.text import STRUCT_QUIET

    t = (text or "").lstrip()[:MAX_TEXT]
    if not STRUCT_QUIET.match(t):
        return False, None
    c = _CALLER.search(t)
    return True, (c.group(1).replace("\\", "/").rsplit("/", 1)[-1] if c else None)


def _not_the_records(h):
    quiet, own = _quiet_record_file(h.text)
    site = getattr(h.pattern, "site", None) if h.pattern is not None else None
    if not quiet or not site:
        return False
    where = site.get("where") or ""
    if not where:
        return True  # a code's meaning, logged at warning level
    return own is not None and where.rsplit(":", 1)[0].replace("\\", "/").rsplit("/", 1)[-1] != own


def structured_warning(order, matched, by):
    """(order, demoted): the entries of analyze's cause order whose every kept line is a structured record at warn /
    info level read by a generated site that is not the record's own (above), taken out (they become notes)."""
    gone = []
    for eid in order:
        m, e = matched[eid], by[eid]
        hits = m.get("hits") or ()
        if not hits or m.get("together") or m.get("distinct") or e["kind"] == "echo":
            continue
        if len(set(m.get("lines") or ())) > len(hits):
            continue  # more lines than kept hits: not every line was read here
        if all(_not_the_records(h) for h in hits):
            gone.append(eid)
    if not gone:
        return order, []
    return [x for x in order if x not in gone], gone


# ---- a rank waited in a collective that the other ranks never called: they had ended (wrong16, issue 18 item 3)
# torchrun's own report says which workers failed: ChildFailedError.format_msg lists every failed worker of the
# agent's group as a '[idx]:' block (torch/distributed/elastic/multiprocessing/errors/__init__.py; '<NO_OTHER_FAILURES>'
# when the root cause is the only one), and when the agent stops the group it logs 'Sending process %s closing signal
# %s' for each worker still running (torch/distributed/elastic/multiprocessing/api.py, PContext close). Its
# 'Setting OMP_NUM_THREADS environment variable for each process' banner is printed only when it starts more than one
# worker (torch/distributed/run.py). One failed worker, several started, and none still running to be stopped: the
# others had exited with code 0. If the one that failed did so inside a torch.distributed collective with its peer
# gone (Gloo's 'Connection closed by peer', gloo/transport/tcp/pair.cc; 'Connection reset by peer'; NCCL's 'remote
# process exited or there was a network error'), the peers finished the program without calling that collective: the
# ranks ran different collectives (a metric's compute() / sync, an evaluation, a save or a print under `if rank == 0`),
# not a network fault and not another rank's crash (errno.peer_gone's echo reading).
_PEER_GONE = re.compile(r"Connection (?:closed|reset) by peer|remote process exited or there was a network error",
                        re.I)
# torchrun's --nnodes (N, or MIN:MAX) above 1: the peers may be on another node, outside this agent's report
_MULTI_NODE = re.compile(r"--nnodes[= ]{1,3}(?:\d{1,4}:)?(?:[2-9]|\d{2,4})\b")
_COLLECTIVES = frozenset((
    "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "broadcast", "broadcast_object_list",
    "barrier", "monitored_barrier", "reduce", "reduce_scatter", "reduce_scatter_tensor", "gather", "gather_object",
    "scatter", "scatter_object_list", "all_to_all", "all_to_all_single"))


def _collective_frame(tb):
    """(file, line, fn) of the outermost torch.distributed collective of a traceback's frames, else None."""
    for f in tb.get("frames") or ():
        if f[0].replace("\\", "/").endswith("torch/distributed/distributed_c10d.py") and f[2] in _COLLECTIVES:
            return f
    return None


def peer_finished(scan, kb):
    """analyze's answer where a rank failed in a collective whose peers had exited normally (above):
    torch.collective_mismatch with this text's evidence as its first cause, else None."""
    e = kb.by_id.get("torch.collective_mismatch")
    if e is None or not getattr(scan, "tracebacks", None):
        return None
    from gpudoctor.explain import elastic as _elastic

    reps = _elastic.reports(scan)
    blocks = [h for h in scan.matches.get("_struct_elastic", []) if _elastic._kind(h) == "exit"]
    if len(reps) != 1 or len(blocks) != 1 or reps[0]["signal"] is not None:
        return None  # one agent's report whose only failed worker exited by itself (not killed by a signal)
    st = getattr(scan, "launchctx", None)
    if not st or not getattr(st, "banners", None):
        return None  # torchrun started more than one worker
    if any("closing signal" in (h.text or "") for h in scan.matches.get("cascade.teardown", [])):
        return None  # a worker was still running when the agent stopped the group
    if any(_MULTI_NODE.search(c.get("text") or "") for c in getattr(st, "cmds", None) or ()):
        return None  # other nodes' workers are in other agents' reports: this one cannot say they ended
    rank = reps[0]["rank"]
    for tb in scan.tracebacks:
        coll = _collective_frame(tb)
        if coll is None or not _PEER_GONE.search(tb.get("msg") or ""):
            continue
        if tb.get("rank") is not None and rank is not None and str(tb["rank"]) != str(rank):
            continue
        from gpudoctor.explain.analyze import _finding

        hit = tb["hit"]
        m = {"hits": [hit], "count": 1, "rank": e["rank"], "score": e["rank"], "first": hit.line, "signal_hits": []}
        f = _finding(e, m, "root", scan)
        f["confidence"] = "cause"
        who = "rank %s" % rank if rank is not None else "one worker"
        cause = ("%s waited in torch.distributed.%s (line %d) while the other workers had already ended without "
                 "calling it: torchrun's report lists %s as the only failure, no worker was still running to be "
                 "stopped, and the peer closed the connection. The collective runs on some ranks only: a call that "
                 "synchronises across processes (a metric's compute() or sync, an all_gather for logging, a "
                 "barrier) made under `if rank == 0` / is_main_process, or after a loop the ranks leave at "
                 "different steps." % (who[0].upper() + who[1:], coll[2], hit.line, who))
        f["causes"].insert(0, {
            "text": cause, "checks": [], "confirm": [
                "the line of your code in the traceback above the collective: is it inside a branch that only "
                "some ranks take?"],
            "fix": ["call it on every rank and only print / save on rank 0 (compute on all ranks, then `if rank == "
                    "0: print(...)`); torchmetrics: call metric.compute() on every rank, or build the metric with "
                    "sync_on_compute=False for a rank-local value; give every rank the same number of steps "
                    "(DistributedSampler, drop_last=True)"],
            "exports": {}, "evidence": [{"line": hit.line, "text": hit.text}], "static_rank": 0, "computed": None})
        f["notes"].insert(0, "How sure: medium. torchrun's own report says the other workers ended by themselves "
                             "while %s waited in a collective; the code shown names which collective." % who)
        return f
    return None


# ---- a slow multi-GPU run that is nn.DataParallel, answered as an NCCL hang (wrong16, issue 18 item 3)
# hang.judge named nccl.hang for any text that says the job is slow and mentions GPUs. nn.DataParallel runs every
# replica from one process (replicate, scatter, gather on device_ids[0] each step; torch/nn/parallel/data_parallel.py)
# with no process group, no launcher and no NCCL communicator of its own to hang or stall: its slowness is its design
# (DataParallel's docs: 'It is recommended to use DistributedDataParallel, instead of this class, to do multi-GPU
# training, even if there is only a single node'). The program's own lines name it: the module's repr
# 'DataParallel(' (torch's Module.__repr__) or the word in what the script prints; 'DistributedDataParallel' is the
# other class.
_DP = re.compile(r"(?<![A-Za-z])DataParallel\b")
_DDP = re.compile(r"\bDDP\b")


def slow_dataparallel(by, scan, ev, said, triage):
    """hang.judge's answer for a told slowness whose text runs nn.DataParallel and shows no NCCL line, no launcher
    and no collective: torch.dataparallel_slow, else None."""
    e = by.get("torch.dataparallel_slow")
    if e is None or not ev.get("slow") or ev.get("info") or ev.get("nccl_tests") or ev.get("net") or ev.get("sbb") \
            or getattr(scan, "launchers", None) or any(d.get("collective") for d in ev.get("pyspy") or ()):
        return None
    from gpudoctor.explain.hang import _made, _tails

    shown = None
    for tl in _tails(scan):
        for ln, t in tl.get("user") or ():
            t = t[:MAX_TEXT]
            if "DistributedDataParallel" in t or "NCCL" in t or _DDP.search(t):
                return None  # the other class, or NCCL's lines: not (only) nn.DataParallel ('switched from DP to DDP')
            if shown is None and _DP.search(t):
                shown = (ln, t)
    if shown is None:
        return None
    head = ("How sure: medium. %s, and the run is nn.DataParallel (line %d: %s) with no NCCL line and no launcher: "
            "one process drives every GPU, replicating the model and gathering the outputs on the first GPU each "
            "step, so it is no faster (or slower) than one GPU by design, not a stalled network." % (
                said[0].upper() + said[1:], shown[0], _clip(shown[1], 160)))
    shown_lines = [shown] + ([tuple(ev["complaint"][:2])] if ev.get("complaint") else [])
    f = _made(e, scan, shown_lines, "cause", [head])
    f["triage"] = triage
    return f


# ---- a path that exists and is not a directory (wrong20, issue 18 item 3)
# EEXIST's generated site (errno.json, tools/gen_errno.py) means 'the file or directory to create already exists':
# several ranks creating one directory, fixed by exist_ok=True. When the traceback shows the call already passed
# exist_ok=True, that reading is contradicted by the frame: CPython's os.makedirs re-raises the mkdir(2) error only
# 'if not exist_ok or not path.isdir(name)' (Lib/os.py, makedirs), and pathlib's Path.mkdir 'If exist_ok is true,
# FileExistsError will not be raised unless the given path already exists in the file system and is not a directory'
# (https://docs.python.org/3/library/pathlib.html#pathlib.Path.mkdir). So FileExistsError raised in makedirs / mkdir
# whose caller's line passes exist_ok=True names a path that exists and is not a directory: a FILE, a link to one or
# a dangling link (a parent that is a file gives ENOTDIR, NotADirectoryError, instead: makedirs creates only the
# parents that do not exist, Path.mkdir's os.mkdir fails on the file first): errno.eexist's first cause. The raising
# frame and its caller's source line are the evidence; without them (a bare mkdir, exist_ok left out) EEXIST stays
# the site's reading (errno.syscall).
_EEXIST_MSG = re.compile(r"^\[Errno 17\] File exists: (?P<path>'[^'\n]{1,400}'|\"[^\"\n]{1,400}\")")
_EXIST_OK = re.compile(r"\bexist_ok\s{0,2}=\s{0,2}True\b")


def _mkdir_frame(f):
    file, fn = f[0].replace("\\", "/"), f[2]
    return (fn == "makedirs" and (file == "<frozen os>" or file.endswith("/os.py"))) or \
        (fn == "mkdir" and ("/pathlib.py" in file or "/pathlib/" in file))


def exists_not_a_directory(scan):
    """(traceback, path, caller frame, caller's source) of a FileExistsError raised in os.makedirs / Path.mkdir
    whose caller passed exist_ok=True (above), else None."""
    for tb in getattr(scan, "tracebacks", None) or ():
        if (tb.get("exc") or "").rsplit(".", 1)[-1] != "FileExistsError":
            continue
        m = _EEXIST_MSG.match(tb.get("msg") or "")
        frames, src = tb.get("frames") or [], tb.get("src") or []
        if m is None or not frames or not _mkdir_frame(frames[-1]):
            continue
        k = len(frames) - 1
        while k >= 0 and (_mkdir_frame(frames[k]) or frames[k][0] == "<frozen os>"):
            k -= 1  # makedirs' own recursion (makedirs(head, exist_ok=exist_ok)) is not the caller
        if k < 0 or k >= len(src):
            continue
        source = (src[k] or ("", None))[0] or ""
        if _EXIST_OK.search(source[:MAX_TEXT]):
            return tb, m.group("path")[1:-1], frames[k], source
    return None


def _assigned(scan, path):
    """(line, name, text) of a line of the text's kept lines (scan.tails) that sets a variable to exactly ``path``
    ('NAME=<path> python ...', 'export NAME=<path>'), else None."""
    if not path or len(path) > 400:
        return None
    rx = re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_]{0,80})=[\"']?" + re.escape(path) + r"[\"']?(?=[\s;]|$)")
    for tail in getattr(scan, "tails", None) or ():
        for ln, text in tail.get("user") or ():
            m = rx.search(text[:1000])
            if m:
                return ln, m.group(1), text
    return None


def not_a_directory_root(findings, scan, kb):
    """analyze's findings with errno.eexist as the root, where the root is EEXIST's reading (errno.syscall, or the
    traceback's generic family) and the traceback shows makedirs / mkdir called with exist_ok=True (above)."""
    e = kb.by_id.get("errno.eexist")
    if e is None or not findings or findings[0]["id"] not in ("errno.syscall", "code.exception"):
        return findings
    got = exists_not_a_directory(scan)
    if got is None:
        return findings
    tb, path, caller, source = got
    hit = tb["hit"]
    if findings[0]["id"] == "errno.syscall" and hit.line not in [x["line"] for x in findings[0].get("matches") or ()]:
        return findings  # the root's EEXIST line is another one than this traceback's
    from gpudoctor.explain.launchpaste import lines_finding
    from gpudoctor.explain.scan import Hit

    hits = [Hit(hit.line, hit.text.strip()[:400], None, {}, None)]
    what = ("%s (%s, line %s) calls %s with exist_ok=True, and it still raised FileExistsError for '%s': with "
            "exist_ok=True that error means the path exists and is NOT a directory - a file, a link to one or a "
            "dangling link - so no directory can be created there" % (
                caller[0], caller[2], caller[1], "Path.mkdir" if tb["frames"][-1][2] == "mkdir" else "os.makedirs",
                _clip(path, 160)))
    from gpudoctor.fixline import shown_word

    # (review20) the path as one shell word: a quote or $( ) in a pasted path must not end the quoting
    fix = ("ls -ld %s (a regular file?); point the setting or argument that names this path (a cache or output "
           "directory: an environment variable, a config value) at a directory, or unset it to get the default; or "
           "move the file away if the directory belongs there" % shown_word(_operand(path)))
    named = _assigned(scan, path)
    if named is not None:  # (wrong20) the variable the text sets to that path ('NAME=<path> python ...', an export)
        ln, name, text = named
        hits.insert(0, Hit(ln, text.strip()[:400], None, {}, None))
        what += "; the text sets %s to that path (line %d)" % (name, ln)
        fix = ("unset %s (its default is then used), or set it to a directory: %s=<a directory>; ls -ld %s shows what "
               "is there now" % (name, name, shown_word(_operand(path))))
    f = lines_finding(e, hits, "root", scan, what, fix,
                      "How sure: high. The traceback shows the call with exist_ok=True (%s, line %s: %s), which "
                      "raises FileExistsError only for a path that is not a directory." % (
                          caller[0], caller[1], _clip(source.strip(), 120)))
    old = findings[0]
    old["role"] = "related"
    return [f] + findings


# ---- a message longer than the site's (wrong20, issue 18 item 3)
# A Python raise site whose text is a value followed by one literal ('%s is not available.', torch's
# torch/distributed/run.py: raise ValueError(f"{nproc_per_node} is not available.")) is a whole message: CPython prints
# an exception line as '<type>: <str(exc)>' (Lib/traceback.py format_exception_only), and str() of an exception built
# from that format string is the value and the literal, nothing after. The value is a short one of the program's own
# (a device type). A line where the value's place holds a sentence of prose ('The requested device for vllm
# (cuda:1)') and the literal is followed by sentences of their own ('... is not available. You are likely using vLLM
# without restricting the number of GPUs ...', TRL's GRPO trainer) is another library's longer message that happens
# to contain the site's short literal: not the site's raise. Only sites of exactly that shape (one leading value, one
# literal) are read: a site with more text may be matched on a prefix of it (the generated regex holds enough words,
# not all), and libraries append their own context after a message (JAX's 'This error occurs at source: ...').
_CONV = r"(?:%[-#0 +]{0,4}\d{0,4}(?:\.\d{1,4})?[sdrifxXeEgGcu]|\{[^{}\n]{0,80}\})"
_VALUE_THEN_LITERAL = re.compile(r"^" + _CONV + r"(?P<lit>(?:(?!" + _CONV + r")[^\n]){8,200})$")
_PY_WHERE = re.compile(r"\.py:\d{1,6}$")
_PROSE = re.compile(r"^[A-Z][a-z]{1,20}(?: [a-z]{2,20}){3}")
_SENTENCE = re.compile(r"[A-Za-z]{2,40}(?:[\s,;:'\"()-]{1,4}[A-Za-z]{2,40}){3}")
_EXC_HEAD = re.compile(r"^[\w.]{0,120}(?:Error|Exception|Timeout|Warning)\b: ")


def _longer_than_site(h):
    """Whether hit ``h`` is a match of a Python raise site '<value><literal>' (above) on a line whose value is prose
    and whose literal is followed by a sentence of its own."""
    site = getattr(h.pattern, "site", None) if h.pattern is not None else None
    if not site or site.get("level") != "raise" or not _PY_WHERE.search(site.get("where") or ""):
        return False
    shape = _VALUE_THEN_LITERAL.match((site.get("text") or "").rstrip())
    if shape is None:
        return False
    lit = shape.group("lit").strip()
    line = h.text[:4000]
    m = h.pattern.regex.search(line)
    if m is None:
        return False
    head = _EXC_HEAD.match(line[m.start():])
    at = line.find(lit, m.start())
    if head is None or at < 0:
        return False
    value = line[m.start() + head.end():at].strip()
    return bool(_PROSE.match(value)) and bool(_SENTENCE.search(line[at + len(lit):at + len(lit) + 400]))


def longer_message(order, matched, by):
    """(order, demoted): the root taken out of analyze's cause order when every line it matched is a Python raise
    site's match inside a longer message (above), else (order, [])."""
    if not order or by[order[0]]["kind"] == "echo":
        return order, []
    hits = matched[order[0]].get("hits") or ()
    if not hits or not all(_longer_than_site(h) for h in hits):
        return order, []
    return order[1:], order[:1]


# ---- a help topic's shared first line (wrong20, issue 18 item 3)
# Open MPI and PRRTE print several help topics whose first line is the same sentence cut after 'as it could not':
# help-orterun.txt (open-mpi/ompi v4.1.x, orte/tools/orterun) [orterun:wdir-not-found] '%s was unable to launch the
# specified application as it could not / change to the specified working directory:', and openpmix/prrte
# src/mca/schizo/prte/help-prun.txt [prun:wdir-not-found] '... as it could not find / the specified working
# directory:', [prun:wdir-not-accessible] '... could not / access the specified working directory:' beside
# [prun:exe-not-accessible] '... could not / access an executable:'. The line after it names the topic: a working
# directory is mpirun's --wdir / cwd on that node (mpi.error's cause), not a program that was not found
# (mpi.exec_not_found, whose patterns read the shared first line). show_help prints the topic between its dash lines
# (helpbanner.py), so the banner's next line is read.
_WDIR_TOPIC = re.compile(r"^\s{0,8}(?:(?:change to|access|find) )?the specified working directory:")
_SHARED_FIRST = re.compile(r"unable to launch the specified application as it could not(?: find)?\s{0,4}$")


def help_topic_continued(order, matched, by, scan):
    """(order, demoted): mpi.exec_not_found taken out of analyze's cause order when every line it matched is the
    shared first line of a help banner whose next line names the working-directory topic (above), else (order, [])."""
    if not order or order[0] != "mpi.exec_not_found" or len(order) < 2:
        return order, []
    from gpudoctor.explain.helpbanner import banners

    hits = matched[order[0]].get("hits") or ()
    nxt = {}
    for b in banners(scan):
        inner = [x for x in b[1:-1] if x[1].strip()]
        for (ln, text), (_ln2, text2) in zip(inner, inner[1:]):
            if _SHARED_FIRST.search(text[:300]):
                nxt[ln] = text2
    if not hits or not all(h.line in nxt and _WDIR_TOPIC.match(nxt[h.line][:200]) for h in hits):
        return order, []
    return order[1:], order[:1]


# ---- srun ended its own step (wrong27, issue 18 item 3: the first failure before its echoes)
# slurmstepd prints '*** STEP N.M ON node CANCELLED AT time ***' (no 'DUE TO') for any SIGTERM/SIGKILL of the step from
# outside (src/slurmd/slurmstepd/req.c), and slurm.cancelled reads it as a person's scancel. srun sends that signal
# itself when a task ends badly under kill-on-bad-exit: _task_finish prints the task's end ('<host>: task N: Exited
# with exit code M', or the signal's name), then _step_signal logs 'Terminating %ps' and kills the step
# (https://github.com/SchedMD/slurm/blob/bffbaf1135dd35e8b02c8a97e2f966c3f9840500/src/plugins/launch/slurm/
# launch_slurm.c; releases before 20.11: launch_p_step_terminate, 'Terminating job step %u.%u'). A scancel of the step
# prints no such line (fixtures/slurm/recorded24/srun-step-cancelled.txt). So with srun's own 'Terminating' line and a
# task's abnormal end in the text, and no forced end of the job (srun's 'forcing job termination' after ^C twice, 'Force
# Terminated job' after a job cancel), the step's CANCELLED line is the echo of that task's failure: an entry that
# matched only such lines is no root; the task's own lines are (else srun's task-end line, srunend.py).
_TASK_OOM = re.compile(r"\btasks? [\d,\[\]-]{1,60}: Out Of Memory\s*$")
_STEP_CANCELLED = re.compile(r"\*\*\* STEP [\w.+-]{1,40} ON \S{1,100} CANCELLED AT \S{1,40} \*\*\*")


def _abnormal_task_end(scan):
    from gpudoctor.explain import srunend as _srunend

    for h in scan.matches.get("_struct_slurm", []):
        m = _srunend.task_end(h)
        if m and (m.group("sig") or (m.group("code") or "0") != "0"):
            return h
        # _task_finish's 'error("%s: %s %s: Out Of Memory", ...)' for a task the cgroup's OOM killer ended
        if (h.groups.get("prog") or "") == "srun" and _TASK_OOM.search((h.groups.get("msg") or "")[:MAX_TEXT]):
            return h
    return None


def srun_killed(scan):
    """A test of a hit: its line is a step's CANCELLED line that srun's own kill caused (above); None where the text
    does not show srun ending its step."""
    term = scan.matches.get("_struct_srun_term", [])
    if not term or any(h.groups.get("forced") for h in term) or _abnormal_task_end(scan) is None:
        return None
    return lambda h: bool(_STEP_CANCELLED.search(h.text[:MAX_TEXT])) and "DUE TO" not in h.text[:MAX_TEXT]


def srun_ended_step(order, matched, by, scan):
    """(order, demoted): the entries that matched only a step's CANCELLED line that srun's own kill-on-bad-exit caused
    (above) taken out of analyze's cause order, else (order, [])."""
    if not order or by[order[0]]["kind"] == "echo":
        return order, []
    killed = srun_killed(scan)
    if killed is None:
        return order, []

    def srun_kill(eid):
        hits = matched[eid].get("hits") or ()
        return bool(hits) and all(killed(h) for h in hits)

    gone = [eid for eid in order if by[eid]["kind"] != "echo" and srun_kill(eid)]
    if not gone:
        return order, []
    return [eid for eid in order if eid not in gone], gone


# the working-directory topic's own fields: help-orterun.txt [orterun:wdir-not-found] prints 'Working directory: %s' and
# 'Node: %s' (PRRTE's help-prun.txt wdir topics the same two fields): the directory mpirun could not change to, and
# where
_WDIR_FIELD = re.compile(r"^\s{0,8}Working directory:\s{1,8}(?P<dir>\S[^\n]{0,300}?)\s{0,4}$")
_NODE_FIELD = re.compile(r"^\s{0,8}Node:\s{1,8}(?P<node>[\w.-]{1,128})\s{0,4}$")


def wdir_first_cause(findings, scan):
    """A first cause for mpi.error's working-directory topic, from the banner's fields (above): the directory and the
    node, and the command that makes it there. Changes ``findings`` in place."""
    if not findings or findings[0]["id"] != "mpi.error":
        return
    from gpudoctor.explain.helpbanner import banners

    for b in banners(scan):
        inner = [x for x in b[1:-1] if x[1].strip()]
        if not any(_SHARED_FIRST.search(t[:300]) and i + 1 < len(inner) and _WDIR_TOPIC.match(inner[i + 1][1][:200])
                   for i, (_ln, t) in enumerate(inner)):
            continue
        wdir = next(((ln, t, m.group("dir")) for ln, t in inner for m in [_WDIR_FIELD.match(t[:400])] if m), None)
        node = next((m.group("node") for _ln, t in inner for m in [_NODE_FIELD.match(t[:200])] if m), None)
        if wdir is None:
            return
        path = _clip(wdir[2], 200)
        where = "on %s" % node if node else "on that node"
        findings[0]["causes"].insert(0, {
            "text": "mpirun could not change to the working directory %s %s (its --wdir, or the directory it was "
                    "started from): the directory does not exist there, or is not accessible to the user" % (
                        path, where),
            "checks": [], "confirm": ["ls -ld %s   (%s)" % (sh_quote(path), where)],
            "fix": ["create it first, on every node the job uses: mkdir -p %s (in the job script before mpirun; on "
                    "other nodes through ssh / pdsh / srun --ntasks-per-node=1), or point --wdir at a directory "
                    "that exists on every node (a shared filesystem)" % sh_quote(path)],
            "exports": {}, "static_rank": 0, "computed": None,
            "evidence": [{"line": wdir[0], "text": wdir[1].strip()}]})
        return


def _operand(path):
    return "./" + path if path.startswith("-") else path  # (a file operand is never an option: fixline.operand)


def sh_quote(s):
    from gpudoctor.fixline import operand

    return operand(s)  # (a file operand: one sh() word, never an option; red team 2026-11-27b)
