"""Kubernetes' events, read for what a family's line alone cannot say (issue 18, k8s-src).

1. order(): the scheduler's message, read for which reason accounts for the most nodes.

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

2. resolved(): a Warning event that a later Normal event of the same object undid. A pod's events are a history
(`kubectl describe pod` prints them oldest first, kubectl's pkg/describe/describe.go DescribeEvents; so does
`kubectl get events --sort-by=.lastTimestamp`): 'Warning FailedScheduling ... 0/4 nodes are available' and then
'Normal Scheduled ... Successfully assigned' (the scheduler's success event, pkg/scheduler/schedule_one.go) is a
pod that waited (for a node the cluster autoscaler added, for another job's GPUs) and was placed; a failed pull
followed by 'Normal Pulled' (pkg/kubelet/events/event.go PulledImage) or 'Normal Started' (StartedContainer), a
failed mount followed by 'Normal Pulling' or 'Started' (the kubelet pulls a pod's images only once its volumes are
mounted: pkg/kubelet/kubelet.go SyncPod waits in WaitForAttachAndMount before the runtime's SyncPod), were retried
and succeeded. Such a finding is a note, not the root: the
later event says what happened in the end. A row of `kubectl get events` names its object ('pod/<name>'): a later
event resolves only a Warning of the same object; `kubectl describe pod`'s rows have no object column (one pod).
"""

import re

MAX_LINE = 4096  # characters of a matched line read
# the Normal rows that end a Warning's story, as a structural pattern (knowledge.py STRUCTURAL): the Type and
# Reason columns side by side (describe: Type Reason Age From Message; get events: LAST SEEN TYPE REASON OBJECT
# MESSAGE; a table pasted from a dashboard puts '|' between them)
PATTERNS = {"_struct_k8s_normal": [r"\bNormal(?:\s{1,40}|\s{0,40}\|\s{0,40})(?:Scheduled|Pulling|Pulled|Started)\b"]}
# the family a later Normal event of these reasons resolves
RESOLVED_BY = {"k8s.unschedulable": ("Scheduled",), "k8s.image_pull": ("Pulled", "Started"),
               "k8s.mount": ("Pulling", "Pulled", "Started")}
_ROW = re.compile(r"\b(?P<type>Warning|Normal)(?:\s{1,40}|\s{0,40}\|\s{0,40})(?P<reason>[A-Z][A-Za-z]{2,60})\b")
_OBJECT = re.compile(r"\s(?:pod|Pod)/(?P<name>[a-z0-9][a-z0-9.-]{0,252})\s")
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


def _row(text):
    """(type, reason, object name or None) of an event row's line; None when it is no event row."""
    m = _ROW.search((text or "")[:MAX_LINE])
    if not m:
        return None
    o = _OBJECT.search(text[:MAX_LINE])
    return m.group("type"), m.group("reason"), o and o.group("name")


def resolved(scan, findings):
    """-> (findings, notes, done): each finding of a RESOLVED_BY family whose every matched line is a Warning event
    row, followed in the same input by a Normal row of a resolving reason for the same object (or with no object
    column), becomes a note that says so; the others are kept as they are. done: (line, text, 'resolved') of the
    last resolving row when every error line of the text was on a resolved finding's lines (then nothing is left
    that the text says failed), else None."""
    findings, notes, lines, last_seen = _resolved(scan, findings)
    if not notes or scan.error_count > len(scan.error_lines) or not set(scan.error_lines) <= lines:
        return findings, notes, None
    return findings, notes, last_seen


def _resolved(scan, findings):
    normals = []
    for h in scan.matches.get("_struct_k8s_normal", []):
        r = _row(h.text)
        if r and r[0] == "Normal":
            normals.append((h.line, r[1], r[2], h.text))
    if not normals:
        return findings, [], set(), None
    keep, notes, lines, last_seen = [], [], set(), None
    for f in findings:
        why = RESOLVED_BY.get(f.get("id"))
        rows = [(m["line"], _row(m.get("text"))) for m in f.get("matches") or []]
        if not why or not rows or any(r is None or r[0] != "Warning" for _ln, r in rows):
            keep.append(f)
            continue
        last = max(ln for ln, _r in rows)
        objs = {r[2] for _ln, r in rows}
        later = [n for n in normals if n[0] > last and n[1] in why and (n[2] is None or n[2] in objs or None in objs)
                 and _same_input(scan, last, n[0])]
        if not later:
            keep.append(f)
            continue
        ln, _reason, _obj, text = later[0]
        lines.update(m["line"] for m in f["matches"])
        if last_seen is None or ln > last_seen[0]:
            last_seen = (ln, text, "resolved")
        notes.append({"id": f["id"], "severity": "warning",
                      "note": "%s: a later event resolved it (line %d: %s): the %s in the end; act on it only if "
                              "the delay matters." % (f["title"], ln, " ".join(text.split())[:120],
                                                      "pod was placed" if _reason == "Scheduled" else
                                                      "image was pulled" if _reason == "Pulled" else
                                                      "container started"),
                      "fix": f["causes"][0]["fix"][0] if f.get("causes") and f["causes"][0].get("fix") else "",
                      "first_line": f.get("first_line"), "text": f["matches"][0]["text"],
                      "match_count": f.get("match_count")})
    return keep, notes, lines, last_seen


def _same_input(scan, a, b):
    """Whether lines a and b (the scan's line numbers, which run on across inputs: scan.py Scan.sources) are of the
    same input: a later file is another history."""
    def index(line):
        return max((i for i, src in enumerate(scan.sources) if src.get("first_line", 1) <= line), default=0)
    return index(a) == index(b)
