"""The probe's outputs: the ``gpudoctor.probe/1`` JSON document (docs/probe.md) and its text
form, the all-reduce time per step, and the exit code. Pure functions of the document."""

from gpudoctor.probe import metrics

EXIT_OK, EXIT_FINDINGS = 0, 1


def _best(job, op="all_reduce"):
    rows = [c for c in job.get("collectives") or [] if c["op"] == op]
    return max(rows, key=lambda c: c["bytes"]) if rows else None


def estimate(doc, params, dtype):
    """All-reduce time per step for ``params`` gradients in ``dtype`` (one all-reduce of all
    gradients per step, no overlap with compute: an upper bound on what DDP exposes), from the
    busbw measured at the largest size: one node alone vs all nodes."""
    import statistics

    scen = []
    node_jobs = [j for j in doc.get("jobs") or [] if j["scope"] == "node" and _best(j)]
    if node_jobs:
        scen.append({"name": "single node", "nranks": node_jobs[0]["world"],
                     "busbw_gbps": statistics.median(_best(j)["busbw_gbps"] for j in node_jobs)})
    for j in doc.get("jobs") or []:
        if j["scope"] == "all" and _best(j):
            scen.append({"name": "all nodes", "nranks": j["world"], "busbw_gbps": _best(j)["busbw_gbps"],
                         "transport": j.get("transport")})
    if not scen:
        return None
    rows = metrics.step_estimate(params, dtype, scen)
    return {"params": params, "grad_dtype": dtype, "grad_bytes": rows[0]["grad_bytes"],
            "model": "ring all-reduce moves 2(n-1)/n x the gradient bytes through each rank's link; "
                     "time = that / busbw (nccl-tests doc/PERFORMANCE.md)", "scenarios": rows}


def finding_dict(f):
    return {"check": f.check, "severity": f.severity, "hosts": f.hosts, "message": f.message,
            "observed": f.observed, "expected": f.expected, "fix": f.fix, "exports": f.exports}


def to_json(doc, findings, step=None):
    out = dict(doc)
    out["findings"] = [finding_dict(f) for f in findings]
    if step is not None:
        out["step"] = step
    out["exit_code"] = exit_code(findings)
    if doc.get("interrupted"):  # what the process exits with: 128 + the signal
        out["exit_code"] = 143 if doc["interrupted"] == "SIGTERM" else 130
    return out


def exit_code(findings, strict=False):
    bad = ("error", "warning") if strict else ("error",)
    return EXIT_FINDINGS if any(f.severity in bad for f in findings) else EXIT_OK


def _size(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%g %s" % (n / float(1 << shift), unit)
    return "%d B" % n


def render_text(doc, findings, stream, step=None):
    from gpudoctor.report.text import _printable

    def w(text):
        # what nodes said (an interface or RDMA device name NCCL printed on a node, a node's facts) is shown with
        # its control and format characters escaped, as check's and diff's reports show it (docs/security.md 63.)
        stream.write("\n".join(_printable(line) for line in text.split("\n")))

    live = [n for n in doc["nodes"] if n.get("reachable") and not n.get("error_kind")]
    w("gpudoctor probe: mode %s, %d of %d nodes, %.1f s of a %g s budget\n" % (
        doc.get("mode") or "-", len(live), len(doc["nodes"]), doc.get("elapsed_s") or 0, doc.get("budget_s") or 0))
    if doc.get("interrupted"):
        w("INTERRUPTED by %s: what follows is what was measured before it; %s\n"
          % (doc["interrupted"], "the workers were ended" if doc.get("run_id") else "no worker had started yet"))
    # a node that answered at the start and failed later (its slurmd killed and its link down mid-probe, on a
    # 4-node Slurm: slurm23) read "ok" here above its own probe.node.failed finding
    later = set(h for f in findings if getattr(f, "check", None) == "probe.node.failed" for h in (f.hosts or []))
    for n in doc["nodes"]:
        if n.get("error_kind") == "interrupted":  # the user's doing: not a node's failure (findings.NOT_NODE_FAULTS)
            w("  %-16s not probed: %s\n" % (n["host"], n.get("error") or "interrupted"))
        elif n.get("error_kind"):
            w("  %-16s FAILED %s: %s\n" % (n["host"], n["error_kind"], n.get("error") or ""))
        else:
            extra = "%s GPU(s)" % n["gpus"] if n.get("gpus") else "no GPU"
            w("  %-16s ok (python %s, %s%s)%s\n" % (n["host"], n.get("python"), extra,
                                                   ", torch" if n.get("torch") else "",
                                                   "; then failed mid-probe (probe.node.failed below)"
                                                   if n["host"] in later else ""))
    from gpudoctor.probe.findings import shown_of

    shown = shown_of(doc, {})  # the interface and device names NCCL said on a node, in the transport line (64.)
    for j in doc.get("jobs") or []:
        title = {"node": "one node alone: %s" % j["hosts"][0], "all": "all nodes",
                 "pair": "pair %s" % ",".join(j["hosts"])}[j["scope"]]
        w("\n%s (%d ranks%s)%s\n" % (title, j["world"], ", NCCL %s" % j["nccl_version"] if j.get("nccl_version")
                                     else "", ": " + shown(j["transport"]) if j.get("transport") else ""))
        if j.get("error"):
            w("  FAILED %s: %s\n" % (j["error_kind"], j["error"]))
        if j["scope"] == "pair":
            continue
        if j.get("latency"):
            w("  latency (all_reduce, 50 calls): %s\n" % ", ".join(
                "%s %.1f us" % (_size(x["bytes"]), x["time_us"]) for x in j["latency"]))
        if j.get("collectives"):
            w("  %-11s %9s %11s %11s %11s\n" % ("op", "size", "time us", "algbw GB/s", "busbw GB/s"))
        for c in j.get("collectives") or []:
            w("  %-11s %9s %11.1f %11.2f %11.2f\n" % (c["op"], _size(c["bytes"]), c["time_us"], c["algbw_gbps"],
                                                      c["busbw_gbps"]))
    pairs = doc.get("pairs") or []
    if pairs:
        unit = "busbw GB/s" if doc.get("mode") == "nccl" else "Gbit/s"
        w("\npairs (%s; pass 1 in rounds of disjoint pairs, pass 2 on suspects):\n" % unit)
        for p in pairs:
            if p.get("error"):
                w("  %-24s FAILED %s: %s%s\n" % ("%s<->%s" % (p["a"], p["b"]), p["error_kind"], p["error"],
                                            " (blame: %s)" % p["blame"] if p.get("blame") else ""))
            else:
                w("  %-24s %8.3g   (%s->%s %.3g, %s->%s %.3g)%s\n" % (
                    "%s<->%s" % (p["a"], p["b"]), p["gbps"], p["a"], p["b"], p["gbps_ab"] or 0, p["b"], p["a"],
                    p["gbps_ba"] or 0, "  pass 2" if p.get("pass") == 2 else ""))
        iso = doc.get("isolation") or {}
        w("  healthy pair (median of the nodes' best) %s; slow nodes: %s; slow links: %s\n" % (
            "%.3g" % iso["median_gbps"] if iso.get("median_gbps") is not None else "n/a",
            ",".join(iso.get("slow_nodes") or []) or "none",
            ",".join("%s<->%s" % tuple(x) for x in iso.get("slow_links") or []) or "none"))
    if not step and doc.get("step_skipped"):
        w("\nall-reduce time per step: not estimated: %s\n" % doc["step_skipped"])
    if step:
        w("\nall-reduce time per step, %g params, %s gradients (%.1f GB), from busbw at the largest size:\n" % (
            step["params"], step["grad_dtype"], step["grad_bytes"] / 1e9))
        for s in step["scenarios"]:
            w("  %-12s %3d ranks  busbw %8.2f GB/s  ->  %s\n" % (
                s["name"], s["nranks"], s["busbw_gbps"],
                "%.3f s" % s["seconds"] if s["seconds"] is not None else "n/a"))
    w("\n")
    order = {"error": 0, "warning": 1, "info": 2}
    for f in sorted(findings, key=lambda f: order[f.severity]):
        tag = {"error": "FAIL", "warning": "WARN", "info": "INFO"}[f.severity]
        w("%s %s  %s\n" % (tag, f.check, f.message))
        if f.fix:
            for i, line in enumerate(f.fix.splitlines()):
                w("     %s %s\n" % ("fix:" if i == 0 else "    ", line))
    if doc.get("note"):
        w("%s\n" % doc["note"])
    elif doc.get("interrupted"):
        w("the run was interrupted: pairs and nodes not reached above were not judged\n")
    elif not any(f.severity in ("error", "warning") for f in findings):
        w("no problem found by the probe\n")
    cl = doc.get("cleanup") or {}
    if cl:
        found = sum(c.get("found") or 0 for c in cl.values())
        left = sum(c.get("left") or 0 for c in cl.values())
        # a node the cleanup could not run on (it died mid-probe) is not "0 left" (slurm24): named, as unknown
        unknown = sorted(h for h, c in cl.items() if c.get("error"))
        w("cleanup: %d node(s); %d probe process(es) still running at the end were ended, %d left%s\n" % (
            len(cl), found, left, "; not looked at on %s (probe.cleanup above)" % ",".join(unknown) if unknown else ""))
