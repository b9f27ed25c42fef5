"""The probe's phases under one budget. Controller side.

1. hello: on every node at once, can a worker start (interpreter, torch found, GPUs);
2. tcp mode: node pairs in rounds (perfect matchings, plan.rounds) as the budget allows,
   then a second pass that pairs the suspects with nodes that measured well;
   nccl mode: each node alone (its GPUs over P2P/NVLink), all nodes together, then node
   pairs in rounds when there are three nodes or more;
3. cleanup: every process this run started is ended on every node it reached, inside the
   budget (a slice is kept for it from the start).

Returns the ``gpudoctor.probe/1`` document (without findings: findings.py adds them).
"""

import math
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, wait

from gpudoctor.errors import Terminated  # noqa: F401 (SIGTERM as Ctrl-C: the one class check, facts and watch raise)
from gpudoctor.probe import SCHEMA, nccl_log, plan
from gpudoctor.probe.launch import cleanup_run, start_worker

MiB = 1 << 20
DEFAULT_SIZES = [MiB << i for i in range(11)]  # 1 MiB .. 1 GiB, as the nccl-tests sweeps go
PAIR_SIZES = [64 * MiB, 256 * MiB]
NODE_GRACE = 2.5  # seconds a node's NCCL worker needs after its deadline to end its ranks and report
# torchrun's default MASTER_PORT is 29500 (torch/distributed/run.py); the job's rendezvous
# and NCCL bootstrap live around it unless the launch line says otherwise.
DEFAULT_PORTS = (29500, 29599)
# Kinds where nothing started on the node: no cleanup to run there.
UNREACHED = {"resolve", "refused", "timeout", "unreachable", "auth", "hostkey", "hostkey-unknown", "ssh"}
# The shortest time a healthy TCP pair needs beyond its 2 x --tcp-seconds of traffic: two
# workers started over SSH one after the other (connect, interpreter start) and the handshakes.
TCP_START_S = 2.0
NCCL_PAIR_MIN_S = 8.0  # an NCCL pair job: two workers, torch import, NCCL init, two sizes
INTERRUPT_CLEANUP_S = 10.0  # after Ctrl-C or SIGTERM the cleanup gets at most this long


class Budget(object):
    def __init__(self, seconds, cleanup_share=0.15, cleanup_max=8.0):
        self.start = time.time()
        self.total = float(seconds)
        self.reserve = min(cleanup_max, max(1.0, seconds * cleanup_share))
        self.end = self.start + self.total - self.reserve  # work ends here; cleanup after

    def left(self):
        return self.end - time.time()

    def share(self, fraction):
        """A deadline ``fraction`` of the remaining work time from now."""
        return time.time() + max(0.0, self.left()) * fraction


def _hello(transport, hosts, token, deadline, ports=None, out=None):
    """Start a worker on every node at once; ``out`` (host -> node record) fills as nodes answer,
    so an interrupted run still reports the nodes that did."""
    t0 = time.time()
    cfg = {"role": "hello", "hard_s": max(1.0, deadline - time.time())}
    if ports:
        cfg["ports"] = list(ports)
    workers = {h: start_worker(transport, h, cfg, token) for h in hosts}
    out = {} if out is None else out
    for h in hosts:
        ev = workers[h].next_event(deadline)
        if ev is None and workers[h].started is False:
            # the SSH handshake itself did not finish (an sshd that accepts and never speaks, a firewall that
            # drops it): nothing runs there, so no worker hung and no cleanup is owed (`check` says 'timeout')
            workers[h].stop()
            out[h] = {"host": h, "reachable": False, "error_kind": "timeout",
                      "error": "the SSH connection did not complete within %.1fs (sshd hangs, or a firewall drops "
                               "it)" % (deadline - t0)}
        elif ev is None:
            workers[h].stop()
            out[h] = {"host": h, "reachable": False, "error_kind": "hang",
                      "error": "the worker did not answer within %.1fs (a hung interpreter or node)" % (deadline - t0)}
        elif not ev.get("ok"):
            out[h] = {"host": h, "reachable": False, "error_kind": ev.get("error_kind"), "error": ev.get("error")}
        else:
            gpus = ev.get("gpus")
            out[h] = {"host": h, "reachable": True, "error_kind": None, "error": None,
                      "python": _text(ev.get("python"), 40), "torch": ev.get("torch") is True,
                      "gpus": gpus if type(gpus) is int and 0 <= gpus <= 1024 else None,
                      "first_port_taken": ev.get("first_port_taken") is True}
    return out


def _text(x, limit):
    from gpudoctor.probe.launch import _one_line

    return None if x is None else _one_line(x, limit)


def _num(x):
    """A rate a node reported, when it is one: a finite number >= 0 (node output is untrusted)."""
    if type(x) not in (int, float) or not math.isfinite(x) or x < 0:
        return None
    return float(x)


# ---------------------------------------------------------------- TCP

def _tcp_pair(transport, a, b, token, opts, deadline):
    """Measure a<->b: a listens on a port of the range, b connects; both directions. The two
    workers share the run's key (in their scripts, on stdin): a's listener takes only
    connections from b's address that send it."""
    seconds = opts["tcp_seconds"]
    hard = max(1.0, deadline - time.time() + 1.0)
    pair = {"a": a, "b": b, "gbps_ab": None, "gbps_ba": None, "gbps": None, "transport": "tcp",
            "error": None, "error_kind": None, "blame": None}
    server = start_worker(transport, a, {"role": "tcp-server", "addr": transport.address(a),
                                         "peer_addr": transport.address(b), "key": opts["key"],
                                         "ports": list(opts["ports"]), "seconds": seconds,
                                         "streams": opts["streams"], "accept_s": max(1.0, deadline - time.time()),
                                         "hard_s": hard}, token)
    ev = server.next_event(deadline, want=("ready",))
    if ev is None or ev.get("event") == "result" or ev.get("port") is None:
        server.stop()
        kind = (ev or {}).get("error_kind") or ("garbage" if ev else "hang")
        pair.update(error=(ev or {}).get("error") or ("the worker on %s said it was ready without a port" % a if ev
                                                      else "the worker on %s did not start in time" % a),
                    error_kind=kind, blame=a)
        return pair
    pair["port"] = ev["port"]
    client = start_worker(transport, b, {"role": "tcp-client", "peer_addr": transport.address(a), "port": ev["port"],
                                         "src_addr": transport.address(b), "key": opts["key"],
                                         "seconds": seconds, "streams": opts["streams"],
                                         "connect_s": min(3.0, max(0.5, deadline - time.time() - 2 * seconds)),
                                         "hard_s": hard}, token)
    rc = client.next_event(deadline)
    if rc is not None and not rc.get("ok"):
        server.stop()
        kind = rc.get("error_kind")
        # a refused or blocked port is the listening node's; a worker that could not start is b's
        blame = a if kind in ("port-blocked", "port-refused") else b
        pair.update(error=rc.get("error"), error_kind=kind, blame=blame)
        return pair
    if rc is not None and _num(rc.get("rx_gbps")) is None:
        # b says it finished but measured nothing: b's fault, never the peer left waiting for it
        client.stop()
        server.stop()
        pair.update(error="the worker on %s ended without a measurement" % b, error_kind="garbage", blame=b)
        return pair
    rs = server.next_event(deadline)
    if rc is None or rs is None:
        client.stop()
        server.stop()
        who = b if rc is None else a
        pair.update(error="the worker on %s did not finish in time" % who, error_kind="hang", blame=who)
        return pair
    if type(rs.get("rejected")) is int and rs["rejected"] > 0:
        pair["rejected"] = rs["rejected"]  # connections from another address, or without the run's key
    if not rs.get("ok"):
        pair.update(error=rs.get("error"), error_kind=rs.get("error_kind"), blame=a)
        return pair
    if _num(rs.get("rx_gbps")) is None:
        pair.update(error="the worker on %s ended without a measurement" % a, error_kind="garbage", blame=a)
        return pair
    pair["gbps_ba"] = _r(_num(rs.get("rx_gbps")))  # a received what b sent
    pair["gbps_ab"] = _r(_num(rc.get("rx_gbps")))
    pair["gbps"] = plan.pair_rate(pair)
    return pair


def _r(x, nd=3):
    return None if x is None else round(float(x), nd)


def _run_rounds(rounds, fn, deadline, log, min_round, cap, sink=None, pass_no=1):
    """Run rounds while the budget allows. Each round gets its share of the time left before
    ``deadline`` (at least ``min_round``, what a healthy round needs; never past ``cap``), and its
    pairs end there: a hung node costs each of its rounds that share, not the whole phase, and
    the rounds after it still run. A round starts while half a healthy round (the last one's
    length, at most ``min_round``) still fits before ``deadline``: a pass's deadline splits the
    budget between the passes, ``cap`` bounds the run. Finished pairs go to ``sink`` as they
    come, for the report of an interrupted run."""
    done, skipped, last = [], 0, None
    sink = [] if sink is None else sink
    for i, pairs in enumerate(rounds):
        now = time.time()
        est = min(last, min_round) if last is not None else 0.0
        if now >= deadline or now + est / 2 > deadline:
            skipped = len(rounds) - i
            log("%d round(s) skipped: %.1fs left of this pass, a round takes %.1fs" % (skipped, deadline - now, est))
            break
        rdl = min(cap, now + max(min_round, (deadline - now) / (len(rounds) - i)))
        t0 = time.time()
        pool = ThreadPoolExecutor(max_workers=max(1, len(pairs)))
        try:
            futs = [pool.submit(fn, a, b, rdl) for a, b in pairs]
            for f in futs:
                f.add_done_callback(lambda f: f.exception() is None and sink.append(dict(f.result(), **{
                    "pass": pass_no})))
            wait(futs)
            res = [dict(f.result(), **{"pass": pass_no}) for f in futs]
        finally:
            pool.shutdown(wait=False)  # interrupted: the pairs still running end with the cleanup
        done.extend(res)
        last = time.time() - t0
        log("round %d/%d: %d pairs in %.1fs (its share: %.1fs)" % (i + 1, len(rounds), len(pairs), last, rdl - t0))
    return done, skipped


def tcp_phase(transport, live, token, opts, budget, log):
    first_deadline = budget.share(0.65)
    window = lambda: min(budget.end, time.time() + 2 * opts["tcp_seconds"] + opts["round_slack"])  # noqa: E731
    fn = lambda a, b, dl: _tcp_pair(transport, a, b, token, opts, min(dl, window()))  # noqa: E731
    min_round = 2 * opts["tcp_seconds"] + TCP_START_S
    sink = opts["progress"]["pairs"]
    first, skipped = _run_rounds(plan.rounds(live), fn, first_deadline, log, min_round, budget.end, sink, 1)
    med, slow = plan.suspects([p for p in first if not p["error"]], opts["ratio"])
    bad = slow + [p for p in first if p["error"]]
    good = [h for h in live if not any(h in (p["a"], p["b"]) for p in bad)]
    second_rounds, sus = plan.second_pass(live, bad, good, plan.fast_nodes(first, slow))
    # a pair that failed on a port is tried the other way round (b listens), and every node
    # that has not listened yet listens once: a node refusing the port is found either way
    extra = [(p["b"], p["a"]) for p in first if p["error_kind"] in ("port-blocked", "port-refused", "no-peer")]
    extra += [x for x in plan.unheard(live, first) if x not in extra]
    second_rounds = plan.matchings(extra) + second_rounds
    second, skipped2 = _run_rounds(second_rounds, fn, budget.end, log, min_round, budget.end, sink, 2)
    verdict = plan.isolate(first, second, opts["ratio"])
    return first + second, _isolation(verdict, len(plan.rounds(live)), skipped, sus,
                                      second_pass_rounds=len(second_rounds) - skipped2)


def _isolation(verdict, total, skipped, sus, **extra):
    out = {"rounds_total": total, "rounds_skipped": skipped}
    out.update(extra)
    out.update({"suspects": sus, "median_gbps": _r(verdict["median"]), "slow_nodes": verdict["slow_nodes"],
                "slow_links": [[p["a"], p["b"]] for p in verdict["slow_links"]],
                "unconfirmed_links": [[p["a"], p["b"]] for p in verdict["unconfirmed"]]})
    return out


# ---------------------------------------------------------------- NCCL

def _nccl_job(transport, members, token, opts, deadline, scope, node_env):
    """One NCCL job; once more on a new port when the rendezvous port was taken between the
    first node's check and torch's bind (another program on the node, or pairs of one round
    on one machine, which choose ports at the same moment): a race, not the node's fault."""
    job = _nccl_job_once(transport, members, token, opts, deadline, scope, node_env)
    if job["error_kind"] == "port-in-use" and deadline - time.time() > 5:
        job = _nccl_job_once(transport, members, token, opts, deadline, scope, node_env)
    return job


def _nccl_job_once(transport, members, token, opts, deadline, scope, node_env):
    """One NCCL job over ``members`` [(host, nprocs)]; the first host holds the rendezvous."""
    world = sum(n for _, n in members)
    base_cfg = {"role": "nccl", "world": world, "sizes": opts["sizes"] if scope != "pair" else opts["pair_sizes"],
                "ops": list(opts["ops"]) if scope != "pair" else ["all_reduce"], "ports": list(opts["ports"]),
                "init_timeout_s": max(5.0, min(opts["init_timeout"], deadline - time.time())),
                "target_s": opts["target_s"], "max_iters": opts["max_iters"],
                "latency_sizes": [8, 1 << 10, 64 << 10] if scope != "pair" else []}
    workers, rank_nodes, rank_base = [], {}, 0
    master = members[0][0]
    master_addr = "127.0.0.1" if len(members) == 1 else transport.address(master)
    port = None
    job = {"scope": scope, "hosts": [h for h, _ in members], "world": world, "ok": False, "error": None,
           "error_kind": None, "blame": None, "collectives": [], "transport": None, "nccl": None}
    for i, (h, n) in enumerate(members):
        # the node's own deadline comes first, with time for it to end its ranks and say what
        # stage each was stuck in (init, measure) before the controller stops listening
        cfg = dict(base_cfg, master_addr=master_addr, port=port, nprocs=n, rank_base=rank_base,
                   deadline_s=max(1.0, deadline - time.time() - NODE_GRACE),
                   hard_s=max(2.0, deadline - time.time() + 6),
                   env=(node_env or {}).get(h) or {})
        for r in range(rank_base, rank_base + n):
            rank_nodes[r] = h
        rank_base += n
        w = start_worker(transport, h, cfg, token)
        workers.append(w)
        if i == 0:
            ev = w.next_event(deadline, want=("ready",))
            if ev is None or ev.get("event") == "result":
                w.stop()
                job.update(error=(ev or {}).get("error") or "no worker started on %s in time" % h,
                           error_kind=(ev or {}).get("error_kind") or "hang", blame=h)
                return job
            port = ev["port"]
            job["port"] = port
    results = {}
    pending = list(workers)
    # the node's own deadline ends it first: NODE_GRACE before ours, its ranks are killed and it
    # reports within a second or so. A node silent 3 s past our deadline is hung (its watchdog
    # and `timeout -k` end it): waiting longer would take the time of the rounds after this one.
    # This backstop never reaches into the cleanup's share of the budget.
    end = min(deadline + 3, opts["hard_end"])
    while pending and time.time() < end:
        for w in list(pending):
            ev = w.next_event(min(end, time.time() + 0.1))
            if ev is not None:
                results[w.host] = _clean_nccl(ev)
                pending.remove(w)
        if pending and any(not ev.get("ok") for ev in results.values()):
            # a node failed: the others' ranks wait in NCCL for a peer that is gone; give them
            # a moment to say what they saw, then end them instead of waiting out the deadline
            end = min(end, time.time() + 3)
    for w in pending:
        w.stop()
        failed = [h for h, ev in results.items() if not ev.get("ok")]
        results[w.host] = {"ok": False, "error_kind": "stopped" if failed else "hang",
                           "error": ("stopped after %s failed" % ",".join(failed)) if failed else
                           "no result from %s" % w.host}
    lines = []
    for h, ev in results.items():
        lines.extend(ev.get("nccl_log") or [])
    summary = nccl_log.parse(lines)
    job["nccl"] = {k: summary[k] for k in ("version", "network", "ib_devices", "socket_ifs", "oob_if", "gdr", "env")}
    job["nccl"]["connections"] = nccl_log.links(summary, rank_nodes)
    job["ranks"] = {str(r): h for r, h in sorted(rank_nodes.items())}
    job["nccl"]["transports"] = nccl_log.transports(summary, rank_nodes)
    job["transport"] = nccl_log.describe(summary, rank_nodes)
    if opts.get("keep_logs"):
        job["nccl_log"] = lines
    first = results[master]
    bad = [(h, ev) for h, ev in results.items() if not ev.get("ok")]
    if bad:
        # name the node that caused it: the first one with a cause of its own, not "hang"
        # blame the node with a cause of its own: a specific error, then a rank that died, then
        # a hang (the ranks left waiting for a dead peer hang too), never one we stopped
        order = {"stopped": 4, "hang": 3, "init-hang": 3, "died": 2}
        bad.sort(key=lambda x: order.get(x[1].get("error_kind"), 1))
        h, ev = bad[0]
        job.update(error=ev.get("error"), error_kind=ev.get("error_kind"), blame=h)
    else:
        job["ok"] = True
    job["torch"], job["nccl_version"] = first.get("torch"), first.get("nccl_version")
    job["correct"] = first.get("check")
    job["latency"] = first.get("latency") or []
    job["truncated"] = bool(first.get("truncated"))
    for c in first.get("collectives") or []:
        job["collectives"].append(dict(c, scope=scope if scope == "all" else "%s:%s" % (
            scope, ",".join(job["hosts"])), transport=job["transport"]))
    return job


_ROW_NUMS = ("time_us", "algbw_gbps", "busbw_gbps")


def _clean_nccl(ev):
    """An NCCL worker's result as the findings and the report may use it: rows whose figures are
    finite numbers, NCCL lines that are strings (bounded), flags that are flags. Node output is
    untrusted: a row of another shape is left out, never a crash of the report."""
    ev = dict(ev)
    rows = []
    for c in ev.get("collectives") if isinstance(ev.get("collectives"), list) else []:
        if isinstance(c, dict) and c.get("op") in ("all_reduce", "all_gather") and \
                type(c.get("bytes")) is int and c["bytes"] > 0 and type(c.get("nranks")) is int and \
                all(_num(c.get(k)) is not None for k in _ROW_NUMS):
            rows.append({"op": c["op"], "bytes": c["bytes"], "nranks": c["nranks"],
                         "iters": c.get("iters") if type(c.get("iters")) is int else None,
                         **{k: _num(c[k]) for k in _ROW_NUMS}})
    ev["collectives"] = rows
    ev["latency"] = [x for x in ev.get("latency") if isinstance(x, dict) and type(x.get("bytes")) is int
                     and _num(x.get("time_us")) is not None] if isinstance(ev.get("latency"), list) else []
    logs = ev.get("nccl_log") if isinstance(ev.get("nccl_log"), list) else []
    ev["nccl_log"] = [x[:2000] for x in logs[:8000] if isinstance(x, str)]
    for k in ("check", "truncated"):
        if not isinstance(ev.get(k), bool):
            ev[k] = None if k == "check" else False
    for k in ("torch", "nccl_version"):
        ev[k] = _text(ev.get(k), 40) if isinstance(ev.get(k), str) else None
    return ev


def _best(job, op="all_reduce"):
    rows = [c for c in job.get("collectives") or [] if c["op"] == op]
    return max(rows, key=lambda c: c["bytes"]) if rows else None


def nccl_phase(transport, live, gpus, token, opts, budget, log, node_env):
    jobs = opts["progress"]["jobs"]  # filled as jobs end: an interrupted run reports them
    multi = [h for h in live if (gpus.get(h) or 0) >= 2]
    if multi:
        dl = budget.share(0.4 if len(live) > 1 else 1.0)
        with ThreadPoolExecutor(max_workers=len(multi)) as pool:
            jobs += list(pool.map(lambda h: _nccl_job(transport, [(h, gpus[h])], token, opts, dl, "node", node_env),
                                  multi))
        log("each node alone: %d jobs" % len(multi))
    if len(live) >= 2 and budget.left() > 3:
        dl = budget.share(0.7 if len(live) >= 3 else 1.0)
        jobs.append(_nccl_job(transport, [(h, gpus[h]) for h in live], token, opts, dl, "all", node_env))
        log("all nodes: %s" % ("ok" if jobs[-1]["ok"] else jobs[-1]["error"]))
    pairs = []
    if len(live) >= 3:
        def fn(a, b, dl):
            j = _nccl_job(transport, [(a, gpus[a]), (b, gpus[b])], token, opts, dl, "pair", node_env)
            best = _best(j)
            return {"a": a, "b": b, "gbps_ab": best["busbw_gbps"] if best else None,
                    "gbps_ba": best["busbw_gbps"] if best else None, "gbps": best["busbw_gbps"] if best else None,
                    "transport": j["transport"], "error": j["error"], "error_kind": j["error_kind"],
                    "blame": j["blame"], "unit": "busbw_GBps"}
        sink = opts["progress"]["pairs"]
        first, skipped = _run_rounds(plan.rounds(live), fn, budget.share(0.7), log, NCCL_PAIR_MIN_S, budget.end,
                                     sink, 1)
        med, slow = plan.suspects([p for p in first if not p["error"]], opts["ratio"])
        bad = slow + [p for p in first if p["error"]]
        good = [h for h in live if not any(h in (p["a"], p["b"]) for p in bad)]
        rounds2, sus = plan.second_pass(live, bad, good, plan.fast_nodes(first, slow))
        second, _ = _run_rounds(rounds2, fn, budget.end, log, NCCL_PAIR_MIN_S, budget.end, sink, 2)
        verdict = plan.isolate(first, second, opts["ratio"])
        pairs = first + second
        iso = _isolation(verdict, len(plan.rounds(live)), skipped, sus)
    else:
        iso = None
    return jobs, pairs, iso


# ---------------------------------------------------------------- the run

def probe(hosts, transport, mode="auto", budget=120.0, ports=DEFAULT_PORTS, tcp_seconds=2.0, streams=4,
          sizes=None, ops=("all_reduce", "all_gather"), gpus=None, node_env=None, ratio=0.5, keep_logs=False,
          log=None, cleanup_hosts=None, unreached=None):
    """Run the probe over ``hosts`` through ``transport``; the gpudoctor.probe/1 document.

    ``unreached``: {host: (error_kind, error)} for nodes the facts round could not reach for
    Slurm's reasons (a node down or drained, its slurmd dead or hung): they are reported so, and
    no worker is started there nor cleaned up (a hung slurmd's worker would only time out as a
    "hung interpreter", and its cleanup as "processes may be left").

    Ctrl-C (KeyboardInterrupt) or SIGTERM (``Terminated``, when the caller turned it into one)
    ends the run early: the workers are ended as at the end of a run, and the document holds what
    was measured so far, with ``interrupted`` naming the signal."""
    log = log or (lambda msg: None)
    b = Budget(budget)
    token = uuid.uuid4().hex  # the run id (cleanup finds the run's processes by it); it is printed
    progress = {"pairs": [], "jobs": []}
    opts = {"ports": ports, "tcp_seconds": float(tcp_seconds), "streams": int(streams), "ratio": float(ratio),
            "sizes": list(sizes or DEFAULT_SIZES), "pair_sizes": [s for s in PAIR_SIZES
                                                                  if s <= max(sizes or DEFAULT_SIZES)] or
            [max(sizes or DEFAULT_SIZES)], "ops": ops, "init_timeout": 60.0, "target_s": 0.25, "max_iters": 20,
            "keep_logs": keep_logs, "round_slack": 8.0, "hard_end": b.start + b.total - min(b.reserve, 2.0),
            # the key a TCP listener asks of its peer: secrets' CSPRNG, per run, sent to the workers
            # inside their scripts on stdin, never printed nor put on a command line
            "key": secrets.token_bytes(32).hex(), "progress": progress}
    doc = {"schema": SCHEMA, "mode": None, "budget_s": budget, "nodes": [], "collectives": [], "pairs": [],
           "jobs": [], "isolation": None, "cleanup": {}, "elapsed_s": None, "ports": list(ports),
           "addresses": {h: transport.address(h) for h in hosts}, "transport": transport.name,
           "run_id": token}  # each worker's GPUDOCTOR_PROBE_RUN: how cleanup finds what the run started
    if node_env:
        doc["node_env"] = node_env
    unreached = dict((h, u) for h, u in (unreached or {}).items() if h in hosts)
    nodes = dict((h, {"host": h, "reachable": False, "error_kind": kind, "error": error})
                 for h, (kind, error) in unreached.items())
    interrupted = None
    try:
        # a worker that has not said hello within a tenth of the budget (3-15 s) is hung
        _hello(transport, [h for h in hosts if h not in unreached], token,
               min(b.end, time.time() + max(3.0, min(15.0, b.total * 0.1))), ports, nodes)
        live = [h for h in hosts if nodes[h]["reachable"]]
        if gpus is not None:
            for h in live:
                nodes[h]["gpus"] = gpus.get(h) if isinstance(gpus, dict) else gpus
        if mode == "auto":
            mode = "nccl" if live and all(nodes[h].get("torch") and (nodes[h].get("gpus") or 0) > 0
                                          for h in live) else "tcp"
        doc["mode"] = mode
        log("mode %s; %d of %d nodes started a worker" % (mode, len(live), len(hosts)))
        if mode == "tcp" and len(live) >= 2:
            pairs, iso = tcp_phase(transport, live, token, opts, b, log)
            doc["pairs"], doc["isolation"] = pairs, iso
        elif mode == "nccl" and live:
            no_gpu = [h for h in live if not nodes[h].get("gpus")]
            for h in no_gpu:
                nodes[h].update(reachable=True, error_kind="no-gpu", error="no GPU seen by nvidia-smi on the node")
            live = [h for h in live if h not in no_gpu]
            jobs, pairs, iso = nccl_phase(transport, live, {h: nodes[h]["gpus"] for h in live}, token, opts, b, log,
                                          node_env)
            doc["jobs"], doc["pairs"], doc["isolation"] = jobs, pairs, iso
        measured = doc["pairs"] or any(j.get("collectives") for j in doc["jobs"])
        if not measured and not any(n.get("error_kind") for n in nodes.values()):
            doc["note"] = ("nothing to measure: the TCP probe needs two nodes, and NCCL needs two GPUs (one node "
                           "with 2+ GPUs, or 2+ nodes)")
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM as Terminated: report what was measured
        interrupted = getattr(exc, "signal_name", "SIGINT")
        doc["interrupted"] = interrupted
        doc["pairs"] = list(progress["pairs"])
        doc["jobs"] = list(progress["jobs"])
        if doc["pairs"] and doc["mode"] == "tcp":
            done = [p for p in doc["pairs"] if p.get("pass") == 1]
            verdict = plan.isolate(done, [p for p in doc["pairs"] if p.get("pass") != 1], ratio)
            doc["isolation"] = _isolation(verdict, len(plan.rounds([h for h in hosts if (nodes.get(h) or {}).get(
                "reachable")])), None, [])
    finally:
        targets = cleanup_hosts if cleanup_hosts is not None else [
            h for h in hosts if h not in unreached and (h not in nodes or nodes[h].get("error_kind") not in UNREACHED)]
        if targets:
            grace = max(2.0, b.start + b.total - time.time())
            if interrupted:
                grace = min(grace, INTERRUPT_CLEANUP_S)
            doc["cleanup"] = cleanup_run(transport, targets, token, timeout=grace)
    for j in doc["jobs"]:
        doc["collectives"].extend(j["collectives"])
        if j["error"] and j["blame"] in nodes and nodes[j["blame"]]["error_kind"] is None:
            nodes[j["blame"]].update(error_kind=j["error_kind"], error=j["error"])
    doc["nodes"] = [nodes.get(h) or {"host": h, "reachable": False, "error_kind": "interrupted",
                                     "error": "the run was interrupted before the node answered"}
                    for h in hosts]
    doc["elapsed_s"] = round(time.time() - b.start, 2)
    return doc
