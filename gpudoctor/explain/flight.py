"""PyTorch Flight Recorder dumps: which rank never arrived at a collective, or called a
different one.

With TORCH_NCCL_TRACE_BUFFER_SIZE (or TORCH_FR_BUFFER_SIZE) set, torch records each process
group's last collectives; with TORCH_NCCL_DUMP_ON_TIMEOUT=1 the watchdog writes one dump per
rank when a collective times out, to TORCH_FR_DUMP_TEMP_FILE (formerly
TORCH_NCCL_DEBUG_INFO_TEMP_FILE) followed by the rank: default /tmp/nccl_trace_rank_<rank> in
older releases, ~/.cache/torch/comm_lib_trace_rank_<rank> in torch 2.11, which records and dumps
on a timeout with none of these variables set (seen with NCCL on 2 H100s:
fixtures/explain/planted-h100x2-2026-11-25/). A dump is a pickle of a dict: "version", "pg_config",
"pg_status" (per process group: last_enqueued / last_started / last_completed collective) and
"entries" (record_id, pg_id, process_group (name, desc), collective_seq_id, p2p_seq_id,
profiling_name 'nccl:all_reduce', input/output sizes and dtypes, state, frames, ...). The
rank is the trailing number of the file name, as torch's own analyzer reads it. Sources:
torch/distributed/flight_recorder/components/loader.py (read_dump: pickle, rank from the name),
components/builder.py and utils.py (matching collectives across ranks by sequence id),
torch/csrc/distributed/c10d/FlightRecorder.hpp; pytorch's tests
test/distributed/flight_recorder/test_fr_analysis.py (the entry fields).

Unpickling is code execution: a pickle names any importable callable (GLOBAL / STACK_GLOBAL)
and runs it with arguments it chooses (REDUCE), so `pickle.load` on a file from another
machine runs whatever that file says (https://docs.python.org/3/library/pickle.html, the red
warning; "Restricting Globals" shows the fix used here). _SafeUnpickler.find_class refuses
every global except torch's own list builders, which it maps to `list`; a real dump holds only
dicts, lists, tuples, strings, numbers, booleans and None. Dumps are also bounded in size.
"""

import io
import itertools
import os
import pickle
import re

MAX_DUMP = 64 << 20  # bytes of one dump (2,000 entries with stacks are a few MB)
MAX_DUMPS = 10000
MAX_REPORTED = 20
_RANK = re.compile(r"(\d+)(?:\.\w+)?$")

# c10's pickler may write typed lists as calls to these (torch/jit/_pickle.py): each returns
# its argument
_SAFE_GLOBALS = {("torch.jit._pickle", n) for n in ("build_intlist", "build_tensorlist", "build_doublelist",
                                                     "build_boollist", "build_stringlist", "restore_type_tag")}


class DumpError(Exception):
    pass


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _SAFE_GLOBALS:
            return _identity
        raise DumpError("refused to load %s.%s (a Flight Recorder dump holds only plain data)"
                        % (module[:60], name[:60]))


def _identity(x, *_):
    return x


def is_dump(head):
    """A pickle's first bytes: PROTO 2..5 (torch writes protocol 2)."""
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def _check_memo(data, deadline=None):
    """DumpError unless every memo index the pickle's PUT opcodes name is one its pickler could write: CPython's C
    unpickler keeps the memo as an array grown to twice the index a PUT names (Modules/_pickle.c
    _Unpickler_MemoPut), so the 12 bytes '\\x80\\x02 N r <0x10000000> .' held 4.3 GB; a pickler numbers its memo from
    0, one PUT (or MEMOIZE) at a time (Lib/pickle.py Pickler.memoize). The opcodes are read without building anything
    (pickletools.genops, about 0.35 s a MB); one it cannot read refuses the dump, as the unpickler would
    (docs/security.md 39.)."""
    import pickletools

    import time

    puts = 0
    try:
        for n, (op, arg, _pos) in enumerate(pickletools.genops(data)):
            if deadline is not None and not n & 0xFFFF and time.monotonic() > deadline:
                raise DumpError("not read: explain's deadline (--timeout) passed while its opcodes were read")
            if op.name in ("PUT", "BINPUT", "LONG_BINPUT"):
                if not isinstance(arg, int) or arg < 0 or arg > puts:
                    raise DumpError("not a readable pickle: a memo index no pickler writes (%s %s)" % (
                        op.name, str(arg)[:20]))
                puts += 1
            elif op.name == "MEMOIZE":
                puts += 1
            elif op.name == "STOP":
                break
    except DumpError:
        raise
    except Exception as exc:  # (truncated, an unknown opcode)
        raise DumpError("not a readable pickle: %s" % type(exc).__name__)


def load_dump(data, deadline=None):
    """The dump's dict, read with the restricted unpickler; DumpError when it is not one."""
    _check_memo(data, deadline)
    try:
        doc = _SafeUnpickler(io.BytesIO(data)).load()
    except DumpError:
        raise
    except Exception as exc:  # any malformed pickle: truncated, wrong opcodes, recursion
        raise DumpError("not a readable pickle: %s" % type(exc).__name__)
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        raise DumpError("a pickle, but not a Flight Recorder dump (no 'entries' list)")
    return doc


class _Tok(str):
    """Punctuation on _brief's stack, told apart from the dump's own strings."""


def _brief(v, limit):
    """repr(v) up to limit characters, built only that far: a pickle can hold one list many
    times over (memo references: 2**40 items in a few hundred bytes) or nest it 100,000 deep,
    so repr() of the whole value never ends or raises RecursionError. Iterative; every step
    adds at least one character, so it ends after limit steps."""
    out, size, stack = [], 0, [v]
    while stack and size <= limit:
        x = stack.pop()
        if type(x) is _Tok:
            piece = x
        elif isinstance(x, (list, tuple, dict)):
            opener, closer = ("[", "]") if isinstance(x, list) else ("(", ")") if isinstance(x, tuple) else ("{", "}")
            piece = opener
            stack.append(_Tok(closer))
            items = list(itertools.islice(x.items() if isinstance(x, dict) else x, limit))
            for k in range(len(items) - 1, -1, -1):
                if isinstance(x, dict):
                    stack.extend((items[k][1], _Tok(": "), items[k][0]))
                else:
                    stack.append(items[k])
                if k:
                    stack.append(_Tok(", "))
        elif isinstance(x, bool) or x is None or isinstance(x, float):
            piece = repr(x)
        elif isinstance(x, int):  # a 10**5000 has no str() (int_max_str_digits)
            piece = str(x) if x.bit_length() <= 256 else "<int of %d bits>" % x.bit_length()
        elif isinstance(x, (str, bytes)):
            piece = repr(x[:limit])
        else:
            piece = "<%s>" % type(x).__name__
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _s(v, limit=120):
    text = v if isinstance(v, str) else _brief(v, limit)
    text = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return text


def _int(v):
    """An int64 as c10 records ids and sequence numbers (FlightRecorder.hpp), else None:
    inf, NaN, 10**5000 from a crafted pickle are not numbers a rank counted."""
    try:
        n = int(v)
    except (TypeError, ValueError, OverflowError):
        return None
    return n if -(1 << 63) <= n < (1 << 63) else None


def _collective(e):
    name = e.get("profiling_name")
    name = name if isinstance(name, str) else "?"
    return _s(name.split(":", 1)[-1], 80), _s(name.split(":", 1)[0], 20) if ":" in name else ""


MAX_FRAMES = 256  # frames of one entry looked at for the user's call site (a real stack holds tens)


def _where(e):
    """The user's call site: the first frame outside torch."""
    if "where" in e:  # a slimmed entry: found when the dump was read
        return e["where"]
    frames = e.get("frames") if isinstance(e.get("frames"), list) else []
    for fr in frames[:MAX_FRAMES]:
        if isinstance(fr, dict) and isinstance(fr.get("filename", ""), str):
            fn = fr.get("filename", "")
            if "/torch/" not in fn and not fn.startswith("<"):
                return "%s:%s in %s" % (_s(fn, 200), _s(fr.get("line"), 12), _s(fr.get("name"), 60))
    return None


def _pg(e):
    pg = e.get("process_group")
    if isinstance(pg, (list, tuple)) and len(pg) >= 2:
        return _s(pg[0], 40), _s(pg[1], 60)
    return _s(e.get("pg_id", "?"), 40), ""


def _slim(doc):
    """What the comparison reads of a dump, kept small (a job of thousands of ranks holds every
    rank's dump at once): per entry its sequence ids, group, collective, sizes and dtypes as
    short text, state, and the user's call site; the dump itself is dropped.
    An object the pickle names many times (its memo: BINGET, 2 bytes) is slimmed once: 200 KB of dump naming one entry
    20,000 times, whose frames list named one frame 20,000 times, took 144 s of CPU here (docs/security.md 51.), so
    the work is in proportion to the dump's bytes, as the unpickler's is."""
    entries, done = [], {}  # id(entry) -> its slim dict (the dump holds every entry until this returns)
    for e in doc.get("entries", []):
        if not isinstance(e, dict):
            continue
        slim = done.get(id(e))
        if slim is None:
            slim = done[id(e)] = {
                "is_p2p": bool(e.get("is_p2p")), "collective_seq_id": e.get("collective_seq_id"),
                "process_group": e.get("process_group"), "pg_id": e.get("pg_id"),
                "profiling_name": _s(e.get("profiling_name"), 120) if e.get("profiling_name") is not None else None,
                "input_sizes": _s(e.get("input_sizes"), 200), "input_dtypes": _s(e.get("input_dtypes"), 80),
                "state": e.get("state") if isinstance(e.get("state"), str) else None,
                "where": _where(e)}
        entries.append(slim)
    return {"version": doc.get("version"), "entries": entries,
            "pg_config": doc.get("pg_config") if isinstance(doc.get("pg_config"), dict) else {},
            "pg_status": doc.get("pg_status") if isinstance(doc.get("pg_status"), dict) else {}}


def read_dumps(paths, deadline=None):
    """{"dumps", "ranks", "version", "unreadable", "findings", "summary"}: what the dumps of one
    job say, compared rank by rank per process group. Past ``deadline`` (explain's --timeout) the
    dumps not read yet are listed as unread: up to 10,000 dumps of 64 MiB each are read before the
    logs, and explain's deadline held only the logs (docs/security.md 51.)."""
    import time

    from gpudoctor.explain.inputs import _open_regular

    by_rank, unreadable, version = {}, [], None
    for k, path in enumerate(paths[:MAX_DUMPS]):
        if deadline is not None and time.monotonic() > deadline:
            unreadable.extend({"file": p, "why": "explain's deadline (--timeout) passed first"}
                              for p in paths[k:MAX_DUMPS])
            break
        m = _RANK.search(os.path.basename(path))
        f = _open_regular(path, "Flight Recorder dump")
        try:
            data = f.read(MAX_DUMP + 1)
        finally:
            f.close()
        if len(data) > MAX_DUMP:
            unreadable.append({"file": path, "why": "larger than %d MiB" % (MAX_DUMP >> 20)})
            continue
        try:
            doc = _slim(load_dump(data, deadline))
        except DumpError as exc:
            unreadable.append({"file": path, "why": str(exc)})
            continue
        if m is None:
            unreadable.append({"file": path, "why": "no rank number at the end of its name"})
            continue
        rank = int(m.group(1))
        if rank in by_rank:  # two dumps of one rank: two jobs, or two attempts, in one folder
            unreadable.append({"file": path, "why": "a second dump of rank %d (the first: %s); give one job's "
                                                    "dumps" % (rank, by_rank[rank][0])})
            continue
        by_rank[rank] = (path, doc)
        version = version or _s(doc.get("version"), 20)
    out = {"dumps": len(by_rank), "ranks": sorted(by_rank), "version": version, "unreadable": unreadable,
           "findings": analyze_dumps({r: d for r, (p, d) in by_rank.items()},
                                     {r: p for r, (p, d) in by_rank.items()})}
    out["summary"] = out["findings"][0]["text"] if out["findings"] else (
        "the %d dumps agree: every rank reached the same collectives" % len(by_rank) if by_rank else
        "no readable dump")
    return out


def analyze_dumps(docs, files=None):
    """Findings, most telling first: a rank that never called a collective that others wait
    in ('not_arrived'), ranks that called different collectives (or sizes, or dtypes) at the
    same place in the sequence ('mismatch'), a rank on which the last collective never started
    while it did on the others ('not_started', NCCL's states), members of a group with no dump
    ('no_dump')."""
    files = files or {}
    groups = {}  # pg name -> {rank: {seq: entry}}
    descs, members = {}, {}
    # a pg_config's ranks text -> its ranks, one frozenset for every group and dump that names the same text: a text
    # named many times is read once, and the groups share its set (unions of copies cost ranks x groups, 51.)
    parsed = {}
    for rank, doc in docs.items():
        for e in doc.get("entries", []):
            if not isinstance(e, dict) or e.get("is_p2p"):
                continue
            seq = _int(e.get("collective_seq_id"))
            if seq is None or seq <= 0:
                continue
            pg, desc = _pg(e)
            descs.setdefault(pg, desc)
            groups.setdefault(pg, {}).setdefault(rank, {})[seq] = e
        cfg = doc.get("pg_config") if isinstance(doc.get("pg_config"), dict) else {}
        for key, c in cfg.items():
            if isinstance(c, dict) and isinstance(c.get("ranks"), str):
                text = c["ranks"][:100000]
                ranks = parsed.get(text)
                if ranks is None:
                    ranks = parsed[text] = frozenset(int(x) for x in re.findall(r"\d+", text))
                name = _s(c.get("name") or key, 40)
                old = members.get(name)
                members[name] = ranks if old is None or old is ranks else old | ranks  # shared, never copied
        status = doc.get("pg_status") if isinstance(doc.get("pg_status"), dict) else {}
        for pg, st in status.items():
            if isinstance(st, dict):
                last = _int(st.get("last_enqueued_collective"))
                if last is not None and last > 0:
                    groups.setdefault(_s(pg, 40), {}).setdefault(rank, {})
                    groups[_s(pg, 40)][rank].setdefault(("last",), last)
    findings = []
    for pg in sorted(groups):
        per = groups[pg]
        label = "%s%s" % (pg, " (%s)" % descs[pg] if descs.get(pg) else "")
        last = {r: max([s for s in d if isinstance(s, int)] + [d.get(("last",), 0)]) for r, d in per.items()}
        # the same place in the sequence, a different call
        common = set.intersection(*[set(s for s in d if isinstance(s, int)) for d in per.values()]) if per else set()
        mismatch = None
        for seq in sorted(common):
            calls = {}
            for r, d in per.items():
                e = d[seq]
                calls.setdefault((_collective(e)[0], _s(e.get("input_sizes"), 200), _s(e.get("input_dtypes"), 80)),
                                 []).append(r)
            if len(calls) > 1:
                mismatch = (seq, calls)
                break
        if mismatch:
            seq, calls = mismatch
            parts = sorted(calls.items(), key=lambda kv: (len(kv[1]), kv[1]))
            odd = parts[0][1]
            detail = "; ".join("rank%s %s called %s (sizes %s, %s)" % ("s" if len(rs) > 1 else "", _ranks(rs), c, sz, dt)
                               for (c, sz, dt), rs in parts)
            e = per[odd[0]][seq]
            findings.append({"kind": "mismatch", "pg": label, "seq": seq, "collective": parts[0][0][0],
                             "ranks": odd[:MAX_REPORTED], "waiting": [],
                             "where": _where(e), "file": files.get(odd[0]),
                             "text": "collective #%d of process group %s differs between ranks: %s" % (seq, label, detail)})
            continue
        top = max(last.values()) if last else 0
        behind = sorted(r for r, s in last.items() if s < top)
        if not behind and top and all(top in d for d in per.values()):
            # every rank called the last collective; with NCCL a rank whose GPU never started it
            # (stuck in a kernel before it) stays 'scheduled' while the others are 'started'
            states = {r: d[top].get("state") for r, d in per.items()}
            late = sorted(r for r, st in states.items() if st == "scheduled")
            going = sorted(r for r, st in states.items() if st in ("started", "completed"))
            if late and going:
                e = per[late[0]][top]
                coll = _collective(e)[0]
                findings.append({"kind": "not_started", "pg": label, "seq": top, "collective": coll,
                                 "ranks": late[:MAX_REPORTED], "waiting": going[:MAX_REPORTED],
                                 "where": _where(e), "file": files.get(late[0]),
                                 "text": "collective #%d (%s) of process group %s never started on rank%s %s while "
                                         "rank%s %s started it: the GPU of %s is stuck in earlier work" % (
                                             top, coll, label, "s" if len(late) > 1 else "", _ranks(late),
                                             "s" if len(going) > 1 else "", _ranks(going),
                                             "those ranks" if len(late) > 1 else "that rank")})
                continue
        if behind and top:
            ahead = sorted(r for r, s in last.items() if s == top)
            first_missing = min(last[r] for r in behind) + 1
            e = next((per[r][first_missing] for r in ahead if first_missing in per[r]), None)
            coll = _collective(e)[0] if e else "?"
            findings.append({"kind": "not_arrived", "pg": label, "seq": first_missing, "collective": coll,
                             "ranks": behind[:MAX_REPORTED], "waiting": ahead[:MAX_REPORTED],
                             "where": _where(e) if e else None, "file": files.get(behind[0]),
                             "text": "rank%s %s never called collective #%d (%s) of process group %s, which rank%s %s "
                                     "called and waits in" % ("s" if len(behind) > 1 else "", _ranks(behind),
                                                              first_missing, coll, label,
                                                              "s" if len(ahead) > 1 else "", _ranks(ahead))})
    seen, looked = set(docs), set()
    for name, ranks in sorted(members.items()):
        if id(ranks) in looked:  # the same ranks under another group's name: the same answer (none)
            continue
        looked.add(id(ranks))
        missing = sorted(r for r in ranks if r not in seen)
        if missing and seen and len(ranks) <= 100000:
            findings.append({"kind": "no_dump", "pg": name, "seq": None, "collective": None,
                             "ranks": missing[:MAX_REPORTED], "waiting": [], "where": None, "file": None,
                             "text": "no dump from rank%s %s of process group %s: it may have died before the "
                                     "others timed out (read its log)" % ("s" if len(missing) > 1 else "",
                                                                           _ranks(missing), name)})
            break
    order = {"not_arrived": 0, "mismatch": 1, "not_started": 2, "no_dump": 3}
    findings.sort(key=lambda f: order[f["kind"]])
    return findings


# the watchdog's line (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, WorkNCCL::checkTimeout),
# as torch 2.11 printed it on 2 H100s: "[Rank 1] Watchdog caught collective operation timeout:
# WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=65536, NumelOut=65536, Timeout(ms)=15000) ran for ..."
_WATCHDOG = re.compile(r"\[Rank (\d{1,9})\] Watchdog caught collective operation timeout: "
                       r"WorkNCCL\(SeqNum=(\d{1,18}), OpType=(\w{1,40})(?:, NumelIn=(\d{1,18}))?")


def watchdog_disagreement(texts):
    """A note when the watchdog's timeout lines of several ranks name the same collective
    number with different collectives or sizes (all_reduce on one rank, broadcast on another),
    else None. Hedged: the line does not name the process group, and only the dumps compare
    every rank."""
    by_seq = {}
    for t in itertools.islice(texts, 10000):
        m = _WATCHDOG.search(t[:2000] if isinstance(t, str) else "")
        if m:
            by_seq.setdefault(int(m.group(2)), {}).setdefault(int(m.group(1)), (m.group(3), m.group(4)))
    for seq in sorted(by_seq):
        calls = by_seq[seq]
        if len(set(calls.values())) > 1:
            detail = "; ".join("rank %d: %s of %s elements" % (r, op, n or "?")
                               for r, (op, n) in sorted(calls.items())[:MAX_REPORTED])
            return ("The watchdog lines show ranks timing out in different collectives or sizes at the same "
                    "collective number (SeqNum=%d; %s): if they are in the same process group, the ranks called "
                    "different collectives there (a collective mismatch, in the code on one of them); the Flight "
                    "Recorder dumps say for sure." % (seq, detail))
    return None


def _ranks(rs):
    shown = ", ".join(str(r) for r in rs[:MAX_REPORTED])
    return shown + (" and %d more" % (len(rs) - MAX_REPORTED) if len(rs) > MAX_REPORTED else "")
