"""What each rank was doing, read from a multi-rank log: the bug in the job's code that a watchdog
timeout or a store timeout is only the symptom of (issue 18).

A two-rank job whose ranks disagree (a buffer of another shape on one rank, FSDP wrapped differently
per rank, a tensor on another rank's GPU, a collective under `if rank == 0`, a rank that left early)
ends in ProcessGroupNCCL's watchdog timeout or a c10d store timeout. The log holds each rank's side of
it; this module reads them per rank and names the disagreement, with the ranks, the collective and the
sizes filled in. It extends, and does not repeat, analyze.late_rank (the process-group status lines:
the rank whose last enqueued collective is below the one another rank timed out in), flight.py (the
Flight Recorder dumps themselves) and hang.py (py-spy dumps, no error line).

Lines read (role "fact", entry _ranks; the formats are torch's own, pytorch/pytorch):
- torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, WorkNCCL's operator<<: "WorkNCCL(SeqNum=%d,
  OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" inside WorkNCCL::checkTimeout's "[Rank r]
  Watchdog caught collective operation timeout: <work> ran for N milliseconds before timing out"
  (releases before NumelIn/NumelOut print SeqNum, OpType and Timeout only: the sizes are then unknown);
- the same file, WorkNCCL::printTraceback (recent releases): "Stack trace of the failed collective:"
  then the Flight Recorder's Python frames of the collective that timed out, "#N <function> from
  <file>:<line>": which torch code called it on that rank;
- frames of torch's own functions wherever they are printed (that stack, a Python traceback,
  faulthandler, py-spy): DDP construction (torch/distributed/utils.py _verify_param_shape_across_processes,
  _sync_module_states, _sync_params_and_buffers, called from DistributedDataParallel.__init__,
  torch/nn/parallel/distributed.py), DDP's forward (_sync_buffers, _sync_module_buffers,
  _check_global_requires_backward_grad_sync), FSDP (torch/distributed/fsdp/: _lazy_init,
  _init_param_handle_from_module, _share_state_and_init_handle_attrs, _sync_module_params_and_buffers,
  _flat_param.py _all_gather_flat_param; FSDP2's foreach_all_gather), torch.distributed.checkpoint,
  and torch.distributed's own functions (distributed_c10d.py: barrier, broadcast_object_list, ...);
- ProcessGroupNCCL::broadcastUniqueNCCLID's "[r] is setting up NCCL communicator and retrieving
  ncclUniqueId from [0] via c10d key-value store by key 'K'" ("retreiving" in older releases): for a
  collective, K is the group's communicator counter (storeKey = std::to_string(ncclCommCounter_++)),
  so K >= 1 is the rank's second (third, ...) communicator of the same group: a collective on another
  device than the group's earlier ones (torch keys its communicators by device). Point-to-point
  communicators use 'low:high' rank pairs instead and are left alone;
- torch/csrc/distributed/c10d/TraceUtils.h retrieveDesyncReport (TORCH_NCCL_DESYNC_DEBUG=1): "[r]
  Timeout at collective: OP, #S", "ranks [..] are the lagging ranks that caused this timeout. They
  never joined any collectives", "[..] joined but didn't finish collective #S (count from 1)", "[..]
  finished collective #S, but didn't join collective #S+1 (count from 1)";
- and what other readers already keep: the process-group status lines (knowledge.STRUCTURAL's
  _struct_pg_status: "failure detected by watchdog at work sequence id: S PG status: last enqueued
  work: E, last completed work: C") and torchrun's failure report (_struct_elastic: each rank's
  exitcode; torch/distributed/elastic/multiprocessing/errors/__init__.py).

The rules (judge): a cause replaces the symptom's root (nccl.timeout, a store timeout) only when its
own evidence is in the text, and says how sure it is; the families are the existing entries':
- the same collective number with different operations on two ranks: a different order
  (torch.collective_mismatch);
- the same collective number and operation with different element counts: sizes differ; inside
  FSDP's all-gather of its flat parameters: the model is wrapped differently per rank
  (torch.collective_mismatch); inside DDP's construction: the models differ (torch.ddp_model_mismatch);
- a rank stuck in a collective that another rank completed (a broadcast's source finishes as soon as
  it has sent): inside DDP's construction, the ranks' parameters or buffers differ
  (torch.ddp_model_mismatch); else a rooted collective whose count differs (torch.collective_mismatch);
- a rank that sets up another communicator of the group while the others wait in a collective: that
  rank ran a collective on another GPU (the symptom's root, with this cause first);
- the rank behind (torch's desync report, else the status lines, analyze.late_rank) and, from
  torchrun's report, a rank that exited 0 while the others waited: it skipped the collective or left
  early (the symptom's root, with this cause first).
Every pattern is linear: bounded repetitions, literals first; lines are read clipped.
"""

import re

from gpudoctor.explain.knowledge import Pattern
from gpudoctor.explain.text import clip as _clip

_ENTRY = "_ranks"
MAX_KEPT = 256  # facts kept per kind (a few per rank)
FRAME_SPAN = 48  # lines after a 'Stack trace of the failed collective:' header that are its frames

# roots that name the symptom, not the bug: what this module may answer instead
SYMPTOMS = ("nccl.timeout", "rendezvous.store_timeout", "torch.c10d_error", "nccl.hang")
_SYMPTOM_SAY = {"nccl.timeout": "watchdog timeout", "rendezvous.store_timeout": "store timeout",
                "torch.c10d_error": "c10d error", "nccl.hang": "hang"}

# torch functions whose frames say where a rank was (torch/distributed/utils.py, nn/parallel/distributed.py,
# distributed/fsdp/_runtime_utils.py, _init_utils.py, _flat_param.py, fsdp/_fully_shard/_fsdp_collectives.py)
STAGE_OF = {
    "_verify_param_shape_across_processes": "ddp_init", "_sync_module_states": "ddp_init",
    "_sync_params_and_buffers": "ddp_init",
    "_sync_buffers": "ddp_forward", "_sync_module_buffers": "ddp_forward",
    "_check_global_requires_backward_grad_sync": "ddp_forward",
    "_lazy_init": "fsdp", "_init_param_handle_from_module": "fsdp", "_share_state_and_init_handle_attrs": "fsdp",
    "_all_gather_flat_param": "fsdp", "_sync_module_params_and_buffers": "fsdp", "foreach_all_gather": "fsdp",
}
# torch.distributed's own functions (distributed_c10d.py)
_C10D_STAGE = {"barrier": "barrier", "monitored_barrier": "barrier", "broadcast_object_list": "object",
               "all_gather_object": "object", "gather_object": "object", "scatter_object_list": "object"}
# of several stages in one rank's frames, the most telling (FSDP's init calls _sync_params_and_buffers too)
_PRECEDENCE = ("fsdp", "ddp_init", "ddp_forward", "checkpoint", "object", "barrier", "collective")
STAGE_SAY = {"fsdp": "FSDP's all-gather of its flat parameters (its lazy init / first forward)",
             "ddp_init": "DistributedDataParallel's construction (its broadcast of parameters and buffers from "
                         "rank 0, _sync_module_states)",
             "ddp_forward": "DDP's forward (its buffer broadcast, _sync_buffers)",
             "checkpoint": "torch.distributed.checkpoint (save/load)",
             "object": "an object collective (broadcast_object_list / all_gather_object)",
             "barrier": "barrier()", "collective": "a torch.distributed collective"}
# collectives with a root: the root (a broadcast's source) may finish while the others still wait
_ROOTED = ("BROADCAST", "SCATTER", "REDUCE", "GATHER")

FACTS = {
    "wd": r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d{1,18}), "
          r"OpType=(?P<op>\w{1,40})(?:, NumelIn=(?P<nin>\d{1,18}), NumelOut=\d{1,18})?",
    "fr_head": r"Stack trace of the failed collective:",
    "uid": r"\[(?P<rank>\d{1,9})\] is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from \[0\] "
           r"via c10d key-value store by key '(?P<key>[^'\n]{1,80})'",
    "ds_at": r"\[(?P<rank>\d{1,9})\] Timeout at collective: (?P<op>[^,\n]{1,80}), #(?P<seq>\d{1,18})",
    "ds_never": r"ranks \[(?P<ranks>[\d, ]{1,200})\] are the lagging ranks that caused this timeout",
    "ds_joined": r"\[(?P<ranks>[\d, ]{1,200})\] joined but didn't finish collective #(?P<seq>\d{1,18})",
    "ds_finished": r"\[(?P<ranks>[\d, ]{1,200})\] finished collective #(?P<seq>\d{1,18}), but didn't join "
                   r"collective #",
    # dumpSnapshot: "#S started ranks:" / "#S finished ranks:", then "[ranks] started OP" per collective
    "ds_snap": r"#(?P<seq>\d{1,18}) (?P<state>started|finished) ranks:",
    "ds_item": r"\[(?P<ranks>[\d, ]{1,200})\] (?P<state>started|finished) (?P<op>[A-Z_]{2,40})\b",
    "c10d": r"distributed_c10d\.py",
    "dcp": r"torch/distributed/checkpoint/",
}
FACTS.update({"fn_" + fn: r"\b%s\b" % fn for fn in STAGE_OF})

# a frame line, in the shapes torch's stack, CPython's traceback / faulthandler and py-spy print it
_FR_FRAME = re.compile(r"#\d{1,4} (?P<fn>[\w<>]{1,80}) from (?P<path>[^\s]{1,400}?):\d{1,7}")
_TB_FRAME = re.compile(r"File \"(?P<path>[^\"\n]{1,400})\", line \d{1,7},? in (?P<fn>[\w<>]{1,80})")
_SPY_FRAME = re.compile(r"^\s{0,40}(?P<fn>[\w<>]{1,80}) \((?P<path>[^()\s]{1,400}):\d{1,7}\)")
# deepspeed/utils/logging.py get_dist_msg: "[Rank {}] {}".format(my_rank, message), after the logger's prefix
_DS_RANK = re.compile(r"\[Rank (\d{1,7})\] ")
_WD_RANK = re.compile(r"Rank (\d{1,9})\] Watchdog caught")
_COMPLETED = re.compile(r"last completed (?:NCCL )?work: (-?\d{1,18})")
# the process group a status line is of: '[PG ID 0 PG GUID 0(default_pg) Rank 1]' (2.4+), '[PG 0 (default_pg) Rank 1]',
# '[PG 1 Rank 0]' (2.2-2.3)
_PG_LABEL = re.compile(r"\[PG (?:ID \d{1,9} PG GUID ([^\s\]]{1,120})|(\d{1,9}(?: \([^)\s]{1,80}\))?)) Rank \d")


def patterns():
    return [Pattern(_ENTRY, "fact", rx, 0, site={"class": cls, "id": "ranks-" + cls}) for cls, rx in FACTS.items()]


def _state(scan):
    st = getattr(scan, "rankev", None)
    if st is None:
        st = scan.rankev = {"wd": [], "heads": [], "frames": [], "uid": [], "desync": []}
    return st


def _line_rank(scan, text):
    """The rank a line's prefix names ([rank1]:, srun's '1: ', a per-rank file's name), as an int, else None.
    torchrun's --tee prefix names the local rank ('local 1'): the global one is unknown, so None."""
    from gpudoctor.explain.text import origin

    r = origin(text[:512])[0]
    if r is None:
        m = _DS_RANK.search(text[:300])  # DeepSpeed's log_dist / print_dist
        r = m.group(1) if m else getattr(scan, "file_rank", None)
    try:
        return int(r)
    except (TypeError, ValueError):
        return None


def _frame(text):
    """(function, path) of a frame line, or None."""
    for rx in (_FR_FRAME, _TB_FRAME, _SPY_FRAME):
        m = rx.search(text[:1000])
        if m:
            return m.group("fn"), m.group("path")
    return None


def record(scan, hit):
    """One line a pattern of FACTS matched."""
    st = _state(scan)
    cls = hit.pattern.site["class"]
    text = hit.text[:2000]
    g = hit.groups or {}
    if cls == "wd":
        if len(st["wd"]) < MAX_KEPT:
            m = _WD_RANK.search(text)
            rank = int(m.group(1)) if m else _line_rank(scan, text)
            st["wd"].append({"line": hit.line, "text": text[:400], "rank": rank, "seq": int(g["seq"]), "op": g["op"],
                             "nin": int(g["nin"]) if g.get("nin") else None})
    elif cls == "fr_head":
        if len(st["heads"]) < MAX_KEPT:
            rank = _line_rank(scan, text)
            if rank is None:  # the header follows its rank's watchdog line (WorkNCCL::checkTimeout, then the stack)
                near = [w for w in st["wd"] if 0 <= hit.line - w["line"] <= 4]
                rank = near[-1]["rank"] if near else None
            st["heads"].append((hit.line, rank))
    elif cls == "uid":
        if len(st["uid"]) < MAX_KEPT:
            st["uid"].append({"line": hit.line, "text": text[:400], "rank": int(g["rank"]), "key": g["key"]})
    elif cls.startswith("ds_"):
        if len(st["desync"]) < MAX_KEPT:
            ranks = [int(x) for x in re.findall(r"\d{1,9}", g.get("ranks") or "")[:64]]
            if g.get("rank") is not None:
                ranks = [int(g["rank"])]
            if cls == "ds_item":  # a line of the snapshot: the collective number is its header's
                head = [d for d in st["desync"] if d["kind"] == "snap" and 0 < hit.line - d["line"] <= 16]
                if not head:
                    return
                g = dict(g, seq=str(head[-1]["seq"]))
            st["desync"].append({"kind": cls[3:], "line": hit.line, "text": text[:400], "ranks": ranks,
                                 "seq": int(g["seq"]) if g.get("seq") else None, "op": g.get("op")})
    elif len(st["frames"]) < MAX_KEPT * 4:
        fr = _frame(text)
        if fr is None:
            return
        fn, path = fr
        if cls == "dcp" or "torch/distributed/checkpoint/" in path:
            stage = "checkpoint"
        elif cls == "c10d":
            if "distributed_c10d" not in path:
                return
            stage = _C10D_STAGE.get(fn, "collective")
        else:
            stage = STAGE_OF.get(fn)
            if stage is None or fn != cls[3:]:
                return
            if stage == "fsdp" and "fsdp" not in path and fn not in ("_all_gather_flat_param", "foreach_all_gather"):
                return  # _lazy_init is a common name: FSDP's only under torch/distributed/fsdp/
        rank = _line_rank(scan, text)
        head = [h for h in st["heads"] if 0 < hit.line - h[0] <= FRAME_SPAN]
        if head and rank is None:  # a frame of the failed collective's stack: its header's rank
            rank = head[-1][1]
        if st["frames"] and st["frames"][-1]["line"] == hit.line:
            return
        st["frames"].append({"line": hit.line, "text": text[:300], "fn": fn, "stage": stage, "rank": rank})


# ------------------------------------------------------------------ per rank


def _facts(scan):
    """Per-rank view: {"wd": {rank: first watchdog line}, "pg": {rank: {...}}, "stage": {rank: (stage, frame)},
    "uid": [...], "desync": [...], "exits": {rank: (code, line, text)}}."""
    st = getattr(scan, "rankev", None) or _state(scan)
    wd = {}
    for w in sorted(st["wd"], key=lambda x: x["line"]):
        if w["rank"] is not None:
            wd.setdefault(w["rank"], w)
    pg, labels = {}, set()  # rank -> {process group label (None: not printed) -> its status}
    for h in scan.matches.get("_struct_pg_status", []):
        try:
            rank = int(h.groups["rank"])
        except (KeyError, TypeError, ValueError):
            continue
        m = _PG_LABEL.search(h.text)
        label = (m.group(1) or m.group(2)) if m else None
        if label is not None:
            labels.add(label)
        d = pg.setdefault(rank, {}).setdefault(label, {"seq": None, "done": None, "line": h.line, "text": h.text[:400]})
        if h.groups.get("seq") is not None and d["seq"] is None:
            d["seq"], d["line"], d["text"] = int(h.groups["seq"]), h.line, h.text[:400]
        m = _COMPLETED.search(h.text)
        if m:
            d["done"] = max(d["done"] if d["done"] is not None else -2, int(m.group(1)))
    stage = {}
    for f in st["frames"]:
        if f["rank"] is None:
            continue
        have = stage.get(f["rank"])
        if have is None or _PRECEDENCE.index(f["stage"]) < _PRECEDENCE.index(have[0]):
            stage[f["rank"]] = (f["stage"], f)
    exits = {}
    for h in scan.matches.get("_struct_elastic", []):
        g = h.groups or {}
        if g.get("code") is not None and g.get("rank") is not None:
            try:
                exits.setdefault(int(g["rank"]), (int(g["code"]), h.line, h.text[:300]))
            except ValueError:
                continue
    return {"wd": wd, "pg": pg, "labels": labels, "stage": stage, "uid": st["uid"], "desync": st["desync"], "exits": exits}


def _ev(*items):
    return [{"line": x["line"], "text": x["text"]} for x in items if x]


def _ops(ws):
    return "; ".join("rank %d: %s #%d%s" % (w["rank"], w["op"], w["seq"],
                                           " of %d elements" % w["nin"] if w["nin"] is not None else "")
                     for w in ws[:6])


def _group_of(f, rank, seq):
    """The process group of the collective #seq a rank timed out in (its status line's label), else None."""
    return next((label for label, d in f["pg"].get(rank, {}).items() if label is not None and d["seq"] == seq), None)


def _same_group(f, ws):
    """Whether the watchdog lines ws are of one process group: the line does not name its group, the status
    line after it does. Several groups count the collectives apart, so the same number in two groups says
    nothing. Where a group is not printed: one group in the whole log, or (no status lines) two ranks."""
    got = [_group_of(f, w["rank"], w["seq"]) for w in ws]
    known = {g for g in got if g is not None}
    if None not in got:
        return len(known) == 1
    if f["labels"]:
        return len(f["labels"] | known) == 1
    return len(f["wd"]) <= 2


def _status(f, rank, label):
    """A rank's status in a process group (label None: the only group the log shows), else None."""
    by = f["pg"].get(rank, {})
    if label is not None:
        return by.get(label)
    return next(iter(by.values())) if len(f["labels"]) <= 1 and len(by) == 1 else None


def _by_seq(f):
    out = {}
    for r, w in sorted(f["wd"].items()):
        out.setdefault(w["seq"], []).append(w)
    return out


def _rule_order(f):
    """The same collective number, different operations: the ranks call collectives in another order."""
    started = {}  # torch's desync snapshot: collective number -> {op: [ranks]} (the ranks' latest states)
    for d in f["desync"]:
        if d["kind"] == "item" and d["seq"] is not None and d["op"]:
            started.setdefault(d["seq"], {}).setdefault(d["op"], (d["ranks"], d))
    for seq, ops in sorted(started.items()):
        if len(ops) >= 2:
            said = "; ".join("rank%s %s: %s" % ("s" if len(r) > 1 else "", ", ".join(str(x) for x in r[:8]), op)
                             for op, (r, _) in sorted(ops.items()))
            return {"entry": "torch.collective_mismatch", "sure": "high",
                    "cause": "The ranks call their collectives in a different order: torch's desync report shows "
                             "collective #%d started as different operations (%s; TraceUtils.h dumpSnapshot, "
                             "TORCH_NCCL_DESYNC_DEBUG). The ranks reached this point through different code: a "
                             "collective under a condition on the rank, or two collectives issued in another order on "
                             "one rank." % (seq, said),
                    "fix": ["issue the collectives in the same order on every rank: move any collective out of rank-"
                            "dependent branches (if rank == 0, is_main_process) and call them in one fixed order",
                            "rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: torch then checks each collective across "
                            "ranks and names the first that differs"],
                    "evidence": _ev(*[d for _, d in ops.values()][:3])}
    for seq, ws in sorted(_by_seq(f).items()):
        ops = sorted({w["op"] for w in ws})
        if len(ws) >= 2 and len(ops) >= 2 and _same_group(f, ws):
            return {"entry": "torch.collective_mismatch", "sure": "medium",
                    "cause": "The ranks call their collectives in a different order: collective #%d is %s. Each "
                             "rank's watchdog names the collective it waited in (WorkNCCL's SeqNum counts the "
                             "group's collectives on each rank), so the same number with different operations means "
                             "the ranks reached this point through different code: a collective under a condition "
                             "on the rank, or two collectives issued in another order on one rank." % (seq, _ops(ws)),
                    "fix": ["issue the collectives in the same order on every rank: move any collective out of rank-"
                            "dependent branches (if rank == 0, is_main_process) and call them in one fixed order",
                            "rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: torch then checks each collective across "
                            "ranks and names the first that differs"],
                    "evidence": _ev(*ws)}
    return None


def _rule_sizes(f):
    """The same collective number and operation, different element counts."""
    for seq, ws in sorted(_by_seq(f).items()):
        counts = {w["nin"] for w in ws if w["nin"] is not None}
        if len(ws) < 2 or len({w["op"] for w in ws}) != 1 or len(counts) < 2 or \
                not _same_group(f, ws):
            continue
        stages = {f["stage"][w["rank"]][0] for w in ws if w["rank"] in f["stage"]}
        frames = [f["stage"][w["rank"]][1] for w in ws if w["rank"] in f["stage"]][:2]
        op = ws[0]["op"]
        sizes = _ops(ws)
        if "fsdp" in stages:
            return _fsdp_answer(ws, frames, "their first all-gathers of FSDP's flat parameters have different sizes "
                                            "(%s)" % sizes)
        if "ddp_init" in stages:
            return _ddp_answer(ws, frames, "sizes (%s)" % sizes)
        return {"entry": "torch.collective_mismatch", "sure": "medium",
                "cause": "The ranks run collective #%d (%s) with tensors of different sizes (%s): a tensor whose shape "
                         "depends on the rank's data or code (the last batch, variable-length sequences, a per-rank "
                         "list gathered without padding)." % (seq, op, sizes),
                "fix": ["give the tensor the same shape on every rank before the collective: pad to a common length "
                        "(all_gather the sizes first, or use all_gather_object for ragged data); drop_last=True for "
                        "the last batch",
                        "rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: torch names the shapes each rank passed"],
                "evidence": _ev(*ws) + _ev(*frames)}
    return None


def _fsdp_answer(ws, frames, what):
    return {"entry": "torch.collective_mismatch", "sure": "high",
            "cause": "FSDP wraps the model differently on the ranks: %s, inside FSDP's %s. Each FSDP unit "
                     "all-gathers one flat parameter made of the modules it wraps (torch/distributed/fsdp/"
                     "_flat_param.py _all_gather_flat_param), so another auto_wrap_policy, ignored_modules or model "
                     "on one rank gives units of other sizes and numbers, and the all-gathers never match." % (
                         what, frames[0]["fn"] if frames else "all-gather"),
            "fix": ["wrap the model identically on every rank: the same auto_wrap_policy (and ignored_modules, mixed "
                    "precision, model config) on every rank; do not derive the wrap policy or the model from per-rank "
                    "or per-node environment variables or files",
                    "check on each rank: print(model) after FSDP(...) lists the FullyShardedDataParallel units; they "
                    "must be the same"],
            "evidence": _ev(*ws) + _ev(*frames)}


def _rule_fsdp_apart(f):
    """Two ranks timed out inside FSDP's all-gather at different collective numbers or sizes: their FSDP units
    differ (one rank all-gathers more, or other, flat parameters than another)."""
    ws = [w for r, w in sorted(f["wd"].items()) if f["stage"].get(r, ("",))[0] == "fsdp"]
    if len(ws) < 2 or not _same_group(f, ws[:2]):
        return None
    a, b = ws[0], ws[1]
    if a["seq"] == b["seq"] and (a["nin"] is None or a["nin"] == b["nin"]):
        return None
    return _fsdp_answer([a, b], [f["stage"][a["rank"]][1], f["stage"][b["rank"]][1]],
                        "rank %d waits in %s #%d%s and rank %d in %s #%d%s" % (
                            a["rank"], a["op"], a["seq"], " of %d elements" % a["nin"] if a["nin"] is not None else "",
                            b["rank"], b["op"], b["seq"], " of %d elements" % b["nin"] if b["nin"] is not None else ""))


_DDP_INIT = ("DistributedDataParallel's construction, which broadcasts every parameter and buffer from rank 0 "
             "(torch/distributed/utils.py _sync_module_states -> _sync_params_and_buffers)")
_DDP_FORWARD = ("DDP's forward, which broadcasts the module's buffers from rank 0 at every step (broadcast_buffers="
                "True; torch/nn/parallel/distributed.py _sync_buffers)")


def _ddp_answer(ws, frames, what, sure="high", where=_DDP_INIT):
    return {"entry": "torch.ddp_model_mismatch", "sure": sure,
            "cause": "The model differs between the ranks: the hang is in " + where + ", and the ranks' %s do not "
                     "match. A registered "
                     "buffer or parameter of another shape on one rank (sized from that rank's data, a config read "
                     "per rank, a layer resized or a checkpoint loaded on some ranks only) makes that broadcast hang "
                     "instead of raising 'DDP expects same model across all ranks' (which checks parameters only)."
                     % what,
            "fix": ["build the model identically on every rank before DDP(...): every parameter and registered "
                    "buffer the same shape on every rank (sizes from the config, e.g. a max_len, not from each "
                    "rank's data; or all_reduce(MAX) the local sizes before building the model)",
                    "check it: print([(n, tuple(t.shape)) for n, t in model.state_dict().items()]) on each rank "
                    "before wrapping; the same model on every rank, loaded the same way"],
            "evidence": _ev(*ws) + _ev(*frames)}


def _rule_passed(f):
    """A rank stuck in collective #S that another rank of the group completed: the root of a broadcast has
    sent its bytes and moves on while a rank that expects more waits (pytorch/pytorch#68803: ignored parameters
    that differed between ranks made DDP's initial broadcast hang on the ranks with the larger tensors)."""
    for r, w in sorted(f["wd"].items(), key=lambda x: x[1]["seq"]):
        label = _group_of(f, r, w["seq"])
        if label is None and len(f["labels"]) > 1:
            continue
        ahead = [(q, d) for q in sorted(f["pg"]) if q != r for d in [_status(f, q, label)]
                 if d and d["done"] is not None and d["done"] >= w["seq"]]
        if not ahead:
            continue
        q, qd = ahead[0]
        other = f["wd"].get(q)
        if other and not _same_group(f, [w, other]):
            other = None
        stage = f["stage"].get(r)
        frames = [stage[1]] if stage else []
        got = "rank %d's %s #%d%s never completed, while rank %d completed it (last completed: %d)%s" % (
            r, w["op"], w["seq"], " of %d elements" % w["nin"] if w["nin"] is not None else "", q, qd["done"],
            " and later timed out in %s #%d" % (other["op"], other["seq"]) if other else "")
        if stage and stage[0] == "ddp_init":
            # medium: a transport that hangs after the root has sent looks the same from the root's side
            return _ddp_answer([w] + ([other] if other else []), frames,
                               "parameters and buffers (%s)" % got, sure="medium")
        if stage and stage[0] == "ddp_forward" and w["op"] == "BROADCAST":
            # DDP's forward broadcasts the buffers from rank 0 each step (broadcast_buffers=True: _sync_buffers)
            d = _ddp_answer([w] + ([other] if other else []), frames, "buffers (%s)" % got, sure="medium",
                            where=_DDP_FORWARD)
            d["fix"].append("or, when the buffers need no syncing: DistributedDataParallel(..., broadcast_buffers=False)")
            return d
        if w["op"] in _ROOTED:
            return {"entry": "torch.collective_mismatch", "sure": "medium",
                    "cause": "The ranks did not run the same collective #%d: %s. A %s's root finishes as soon as it "
                             "has sent, so the other ranks wait for data of another size (or another collective) "
                             "that never comes: the count differs between the ranks (a tensor sized from the rank's "
                             "data, a model or buffer of another shape) or the ranks took different paths." % (
                                 w["seq"], got, w["op"].lower()),
                    "fix": ["make the tensor of this %s the same shape on every rank (and the model identical on "
                            "every rank when it is DDP's or a checkpoint's broadcast)" % w["op"].lower(),
                            "rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL (it compares each collective's shapes across "
                            "ranks) or TORCH_NCCL_TRACE_BUFFER_SIZE=2000 (the stack of the failed collective)"],
                    "evidence": _ev(w, other, qd) + _ev(*frames)}
    return None


def _rule_device(f):
    """A rank that sets up another communicator of its group while another rank waits in a collective."""
    for u in f["uid"]:
        # ASCII digits only: str.isdigit() takes '²', which int() refuses (a pasted key crashed explain, exit 3)
        if not (u["key"].isascii() and u["key"].isdigit()) or int(u["key"]) < 1:
            continue
        waiting = [w for q, w in sorted(f["wd"].items()) if q != u["rank"]]
        if not waiting and not any(q != u["rank"] for q in f["pg"]):
            continue
        wait = ("; rank %d waits in %s #%d" % (waiting[0]["rank"], waiting[0]["op"], waiting[0]["seq"])
                if waiting else "")
        return {"entry": None, "sure": "medium",
                "cause": "Rank %d ran a collective on another GPU than its earlier ones: it was setting up a new NCCL "
                         "communicator of the same process group (store key '%s': torch numbers the communicators "
                         "a group creates, one per device its collectives run on) and waited for rank 0 to publish "
                         "its id, which rank 0 never did, because on rank 0 the same collective used the GPU it "
                         "already had%s. A tensor created on a fixed device (cuda:0) or left on another rank's GPU "
                         "does this." % (u["rank"], u["key"], wait),
                "fix": ["create every tensor passed to a collective on the rank's own GPU: "
                        "torch.device('cuda', local_rank) or torch.cuda.current_device() after "
                        "torch.cuda.set_device(local_rank), never a fixed 'cuda:0'",
                        "bind the group to that GPU: init_process_group(..., device_id=torch.device('cuda', "
                        "local_rank))"],
                "evidence": _ev(u, *waiting[:1])}
    return None


def _rule_behind(f, scan):
    """The rank behind, from torch's desync report or the status lines, and its exit code."""
    behind, said, ev = [], None, []
    at = next((d for d in f["desync"] if d["kind"] == "at"), None)
    waits = (" while rank %d timed out in %s #%d" % (at["ranks"][0], at["op"], at["seq"])
             if at and at["ranks"] and at["seq"] is not None else "")
    for d in f["desync"]:
        if d["kind"] == "never":
            behind, ev = d["ranks"], [d, at]
            said = "never joined any collective of the group%s (torch's desync report, TORCH_NCCL_DESYNC_DEBUG)" % waits
            break
        if d["kind"] == "finished" and d["seq"] is not None:
            behind, ev = d["ranks"], [d, at]
            said = ("finished collective #%d but never joined #%d%s (torch's desync report, TORCH_NCCL_DESYNC_DEBUG)"
                    % (d["seq"], d["seq"] + 1, waits))
            break
    waiting = at["ranks"] if at else []
    if not behind:
        from gpudoctor.explain.analyze import late_rank

        late = late_rank(scan)
        if not late:
            return None
        behind, waiting = late["ranks"], late["waiting"]
        ev = [d for r in behind + waiting for d in list(f["pg"].get(r, {}).values())[:1]][:3]
        said = ("never enqueued collective #%d (%s) that %s wait%s in (the ranks' process-group status lines)" % (
            late["seq"], late["op"], ", ".join("rank %d" % r for r in waiting[:8]) or "another rank",
            "s" if len(waiting) <= 1 else ""))
    left = [(r, f["exits"][r]) for r in behind if r in f["exits"] and f["exits"][r][0] == 0]
    stage = [f["stage"][r] for r in waiting if r in f["stage"] and f["stage"][r][0] != "collective"]
    where = (" (the others wait inside %s)" % STAGE_SAY[stage[0][0]]) if stage else ""
    who = ", ".join("rank %d" % r for r in behind[:8]) + (" and %d more" % (len(behind) - 8) if len(behind) > 8 else "")
    cause = "%s %s%s" % (who[0].upper() + who[1:], said, where)
    if left:
        cause += ("; %s exited with code 0 while the others waited (torchrun's report, line %d): it returned or "
                  "called sys.exit(0) early - no data for this rank, a condition that ends its loop sooner, or a "
                  "rank-0-only path the others do not take" % (who, left[0][1][1]))
        ev.append({"line": left[0][1][1], "text": left[0][1][2]})
    else:
        cause += (": that rank skipped the collective or is elsewhere - a collective inside a rank-conditional "
                  "branch (if rank == 0), a step skipped after an exception it caught, an early exit or return, or "
                  "one rank still busy with rank-0-only work")
    return {"entry": None, "sure": "medium", "cause": cause + ".",
            "fix": ["make every rank call the same collectives: no collective under 'if rank == 0' (let every rank "
                    "call it, or do the rank-0 work outside any collective); a rank that skips a batch or catches an "
                    "exception tells the others (all_reduce a flag each step and skip or stop together); give every "
                    "rank the same number of steps (DistributedSampler, drop_last=True); no rank returns or exits "
                    "before the others (end with dist.barrier() and destroy_process_group() on every rank)",
                    "if that rank is only busy with long work of its own (preprocessing, evaluation or a save on rank "
                    "0), raise the group's timeout: init_process_group(..., timeout=datetime.timedelta(minutes=60)), "
                    "or do that work before init_process_group"],
            "evidence": _ev(*[x for x in ev if x])}


RULES = (_rule_order, _rule_sizes, _rule_fsdp_apart, _rule_passed, _rule_device)


def answer(scan):
    """The disagreement the ranks' lines show, as a dict (entry, sure, cause, fix, evidence), else None."""
    if getattr(scan, "rankev", None) is None and not scan.matches.get("_struct_pg_status"):
        return None
    f = _facts(scan)
    for rule in RULES:
        got = rule(f)
        if got:
            return got
    return _rule_behind(f, scan)


# ------------------------------------------------------------------ the answer


def _cause(got):
    return {"text": got["cause"], "checks": [], "confirm": [], "fix": list(got["fix"]), "exports": {},
            "evidence": got["evidence"][:6], "static_rank": 0, "computed": None}


def judge(result, scan, kb):
    """Where the root is a symptom (a watchdog or store timeout) and the ranks' lines show the
    disagreement behind it: that cause first (its entry's finding as the root when it has one,
    the symptom's finding following as related). Returns the root finding it made or annotated,
    else None."""
    findings = result["findings"]
    root = findings[0] if findings else None
    if root is None or root["id"] not in SYMPTOMS:
        return None
    got = answer(scan)
    if not got:
        return None
    lines = sorted({e["line"] for e in got["evidence"]})
    note = ("How sure: %s. Read from what each rank printed (line%s %s): the cause below is where the ranks "
            "disagree; the %s is its symptom." % (got["sure"], "s" if len(lines) > 1 else "",
                                                   ", ".join(str(n) for n in lines[:6]),
                                                   _SYMPTOM_SAY.get(root["id"], "timeout")))
    entry = kb.by_id.get(got["entry"]) if got["entry"] else None
    if entry is None or entry["id"] == root["id"]:
        root["causes"].insert(0, _cause(got))
        root["notes"] = [n for n in root["notes"] if not n.startswith(("How sure:", "The message alone does not"))]
        # after analyze.late_rank's note, which names the same rank from the same lines
        root["notes"].insert(1 if root["notes"] and root["notes"][0].startswith("Likely late rank") else 0, note)
        root["confidence"] = "cause"
        return root
    from gpudoctor.explain.analyze import _finding
    from gpudoctor.explain.ncclinfo import _Shown

    hits = [_Shown(e["line"], e["text"]) for e in got["evidence"][:3]]
    m = {"hits": hits, "count": len(hits), "rank": entry["rank"], "score": entry["rank"], "first": hits[0].line,
         "signal_hits": []}
    f = _finding(entry, m, "root", scan)
    f["causes"].insert(0, _cause(got))
    f["confidence"] = "cause"
    f["notes"].insert(0, note)
    for g in findings:
        if g["role"] == "root":
            g["role"] = "related"
    findings.insert(0, f)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    result["errors"], result["triage"] = [], []
    return f
