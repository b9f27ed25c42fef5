"""NCCL's RAS report (the `ncclras` client, NCCL >= 2.24): which job processes are dead or
did not answer, which communicator ranks are missing or in error.

The text format is NCCL's own (rasOutAppend calls in
https://github.com/NVIDIA/nccl/blob/master/src/ras/client_support.cc; the client is documented in
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/ras.html): an "Errors"
section with
  DEAD / "  N job process(es) considered dead (unreachable via the RAS network)"
  INCOMPLETE / "  Missing communicator data from N job process(es)"
  "#G-C (hash) INCOMPLETE" / "  Missing communicator data from N rank(s)"
  "#G-C (hash) ERROR" / "  Initialization error(s) on N rank(s)" / "  Asynchronous error..."
each followed by "  Process PID on node HOST managing GPU(s) X" or
"  Rank R -- GPU X managed by process PID on node HOST" lines, and a "Warnings" section with
"#G-C (hash) MISMATCH" and "Rank R has status S -- GPU X managed by process PID on node HOST".
Everything is read as text from untrusted input, bounded.
"""

import re

MAX_REPORT = 16 << 20
MAX_ITEMS = 64
MARKERS = (b"considered dead (unreachable via the RAS network)", b"Missing communicator data from",
           b"Gathering data about the RAS network", b"Gathering data about the NCCL communicators")

_HEAD = re.compile(r"^(DEAD|INCOMPLETE|TIMEOUT|#\d+-\d+ \([0-9a-f]{1,16}\) (?:INCOMPLETE|ERROR|MISMATCH))\s*$")
# (a pid or a rank is at most 18 digits: int() of a longer run is no number a report holds, and past 4,300 digits
# Python refuses it, which ended explain in an internal error: red team 2026-11-28b, docs/security.md 55.)
_PROCESS = re.compile(r"^\s+Process (\d{1,18}) on node (\S{1,255}) managing GPUs? (.{1,200}?)\s*$")
_RANK = re.compile(r"^\s+Rank (\d{1,18})(?: has status (\S{1,40}))? -- (?:GPU (.{1,100}?) managed by process "
                   r"(\d{1,18}) on node (\S{1,255})|\[process information not found\])\s*$")
_DETAIL = re.compile(r"^\s+(\S.{0,300}?)\s*$")


def looks_like_report(head):
    return any(m in head for m in MARKERS)


def parse(text):
    """[{"kind": "dead"|"missing"|"incomplete"|"error"|"mismatch"|"timeout", "comm", "detail",
    "processes": [{"pid", "node", "gpu", "rank", "status"}]}] in report order."""
    out, cur = [], None
    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            head = m.group(1)
            kind = head.split()[-1].lower() if head.startswith("#") else {"DEAD": "dead", "INCOMPLETE": "missing",
                                                                          "TIMEOUT": "timeout"}[head]
            comm = head.split()[0] if head.startswith("#") else None
            cur = {"kind": "incomplete" if (comm and kind == "incomplete") else kind, "comm": comm, "detail": None,
                   "processes": []}
            if len(out) < MAX_ITEMS:
                out.append(cur)
            continue
        if cur is None:
            continue
        if not line.strip():
            cur = None
            continue
        m = _PROCESS.match(line)
        if m and len(cur["processes"]) < MAX_ITEMS:
            cur["processes"].append({"pid": int(m.group(1)), "node": m.group(2), "gpu": m.group(3), "rank": None,
                                     "status": None})
            continue
        m = _RANK.match(line)
        if m and len(cur["processes"]) < MAX_ITEMS:
            cur["processes"].append({"rank": int(m.group(1)), "status": m.group(2), "gpu": m.group(3),
                                     "pid": int(m.group(4)) if m.group(4) else None, "node": m.group(5)})
            continue
        m = _DETAIL.match(line)
        if m and cur["detail"] is None:
            cur["detail"] = m.group(1)
    return out


_TITLES = {
    "dead": "NCCL RAS: job processes are dead (unreachable over the RAS network)",
    "missing": "NCCL RAS: job processes did not answer",
    "incomplete": "NCCL RAS: communicator ranks did not answer",
    "error": "NCCL RAS: communicator ranks are in error",
    "mismatch": "NCCL RAS: ranks of one communicator are in different states",
}


def _who(p):
    parts = []
    if p.get("rank") is not None:
        parts.append("rank %d" % p["rank"])
    if p.get("status"):
        parts.append("status %s" % p["status"])
    if p.get("pid") is not None:
        parts.append("process %d" % p["pid"])
    if p.get("node"):
        parts.append("on node %s" % p["node"])
    if p.get("gpu"):
        parts.append("GPU %s" % p["gpu"])
    return " ".join(parts)


def finding(items, source):
    """The finding (the answer's shape) for the most telling item: dead before missing before
    incomplete, error, mismatch; None when the report names no problem."""
    order = ["dead", "missing", "incomplete", "error", "mismatch"]
    ranked = sorted((i for i in items if i["kind"] in order), key=lambda i: order.index(i["kind"]))
    if not ranked:
        return None
    top = ranked[0]
    ranks = {(p["pid"], p["node"]): p["rank"] for i in items for p in i["processes"] if p.get("rank") is not None}
    procs = [dict(p, rank=ranks.get((p["pid"], p["node"])) if p.get("rank") is None else p["rank"])
             for p in top["processes"]]
    text = "%s%s: %s" % (top["comm"] + " " if top["comm"] else "", top["detail"] or top["kind"],
                         "; ".join(_who(p) for p in procs[:8]) or "(no process listed: rerun ncclras -v)")
    first = procs[0] if procs else {}
    cause = {
        "dead": ("The process died or its node is gone (OOM killer, a crash, a lost node or link): the other ranks "
                 "wait for it in their collectives.",
                 ["read that process's log and its node's kernel log (dmesg -T | grep -iE 'xid|oom|nvrm') for the "
                  "first error; gpudoctor check --hosts <that node> before the next run"]),
        "missing": ("The process is alive on the network but did not answer: it is stuck (a hang in the job's "
                    "code, data loading, or a GPU kernel).",
                    ["py-spy dump --pid <pid> on that node shows where it waits"]),
        "incomplete": ("Those ranks did not answer for this communicator: stuck or dead.",
                       ["py-spy dump --pid <pid> on that node; read that rank's log"]),
        "error": ("Those ranks hit an NCCL error (initialization or asynchronous).",
                  ["read those ranks' logs for the NCCL WARN line and explain it: gpudoctor explain <their logs>"]),
        "mismatch": ("The ranks of one communicator are in different states or have issued different numbers of "
                     "collectives: one rank is behind (it skipped or has not reached a collective).",
                     ["turn on PyTorch's Flight Recorder (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
                      "TORCH_NCCL_DUMP_ON_TIMEOUT=1) and explain the dumps to name the collective"]),
    }[top["kind"]]
    return {"id": "nccl.ras.%s" % top["kind"], "family": "collective.desync", "title": _TITLES[top["kind"]],
            "kind": "error", "role": "root", "rank": 78, "score": 78, "explain": text + ".",
            "first_line": None, "first_file": source, "match_count": len(ranked),
            "matches": [{"line": None, "file": source, "severity": None,
                         "text": "%s: %s" % (i["kind"].upper(), "; ".join(_who(p) for p in i["processes"][:4]))}
                        for i in ranked[:5]],
            "signals": [], "notes": [], "debug": ["ncclras -v (every process, not only outliers)"],
            "causes": [{"text": cause[0], "checks": [], "confirm": [], "fix": list(cause[1]), "exports": {},
                        "evidence": [], "static_rank": 1, "computed": None}],
            "references": [{"title": "NCCL: RAS (reliability, availability and serviceability)",
                            "url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/ras.html"}],
            "knowledge_file": None,
            "origin": {"file": source, "line": None, "rank": str(first["rank"]) if first.get("rank") is not None
                       else None, "host": first.get("node"), "time": None},
            "spread": {"ranks": len([p for p in procs if p.get("rank") is not None]),
                       "hosts": len({p["node"] for p in procs if p.get("node")}), "files": 1,
                       "rank_list": [str(p["rank"]) for p in procs if p.get("rank") is not None][:64],
                       "host_list": sorted({p["node"] for p in procs if p.get("node")})[:64]}}
