"""Kubernetes' scheduler message, read for which reason accounts for the most nodes (issue 18, k8s-src).

When no node can take a pod the scheduler's event says why for every node, grouped by reason, each with its count
(pkg/scheduler/framework/types.go, FitError.Error(): NoNodeAvailableMsg '0/%v nodes are available' then ': ' and
the reasons as '<count> <reason>' joined by ', ' in sorted order, then '.'; with preemption enabled the
PostFilter's own ' preemption: 0/N nodes are available: ...' follows, which says whether evicting lower-priority
pods would help, not why the nodes failed). The entry k8s.unschedulable (gpudoctor/data/knowledge/k8s.toml) has a
cause per filter; its causes are ordered here by the nodes their reasons account for, most first, so that
'0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: },
3 Insufficient nvidia.com/gpu.' leads with the GPUs: three nodes failed for them. A taint of the control plane
(node-role.kubernetes.io/control-plane, the older .../master) counts for nothing: a training job is never meant
to run there, so tolerating it is not the fix (kubeadm taints those nodes by default:
https://kubernetes.io/docs/reference/setup-tools/kubeadm/implementation-details/#mark-the-node-as-control-plane).
"""

import re

MAX_LINE = 4096  # characters of a matched line read
MAX_REASONS = 2000  # characters of the reasons read after the message's start
# where the scheduler's message starts; its reasons run to the PostFilter's ' preemption:', the line's end, or
# MAX_REASONS characters
_MSG = re.compile(r"\b\d{1,6}/\d{1,6} nodes are available: ")
# one '<count> <reason>' item: counts are integers, reasons run to the next ', <digit>' or the end
_ITEM = re.compile(r"(?:^|, )(\d{1,6}) ((?:(?!, \d)[^\n]){1,300})")
_CONTROL_PLANE = re.compile(r"node-role\.kubernetes\.io/(?:control-plane|master)\b")


def reasons(line):
    """[(count, reason)] of the first scheduler message in ``line`` (the part before ' preemption:'); [] when it
    has none."""
    m = _MSG.search(line[:MAX_LINE])
    if not m:
        return []
    text = line[m.end():m.end() + MAX_REASONS].split("\n", 1)[0].split(" preemption:", 1)[0]
    out = []
    for it in _ITEM.finditer(text):
        n, why = int(it.group(1)), it.group(2).strip().rstrip(".")
        out.append((0 if _CONTROL_PLANE.search(why) else n, why))
    return out


def order(findings, by_id):
    """Put the causes of a k8s.unschedulable finding in the order of the nodes their evidence accounts for: a cause's
    count is the sum of the counts of the reasons one of its evidence patterns (by_id's entry) matches. Causes no
    reason matches keep their order after them (a stable sort)."""
    for f in findings:
        if f.get("id") != "k8s.unschedulable" or not f.get("causes"):
            continue
        got = []
        for h in f.get("matches") or []:
            got.extend(reasons(h.get("text") or ""))
        if not got:
            continue
        entry = by_id.get(f["id"]) or {}
        rx = {c["text"]: [re.compile(p) for p in c.get("evidence") or []] for c in entry.get("causes") or []}

        def count(c):
            pats = rx.get(c["text"])
            if pats is None:  # a cause a generated site restates: its entry's cause is the one it restates
                pats = next((rx[t] for t in c.get("restates") or [] if t in rx), [])
            return sum(n for n, why in got if any(p.search(why) for p in pats))
        f["causes"].sort(key=lambda c: -count(c))
