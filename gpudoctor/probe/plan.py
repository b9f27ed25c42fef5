"""Which node pairs to measure, and in which order. Pure functions.

A round is a perfect matching: every node is in at most one pair, so pairs of a round run
at the same time without sharing a node's link. The full schedule is the circle method of
round-robin tournaments (every pair exactly once in n-1 rounds for even n, n rounds for odd
n, one node resting per round); the probe runs as many rounds as its budget allows, then a
second pass pairs each suspect with nodes that measured well, which tells a slow node (slow
with everyone) from a slow link (slow with one peer only).
"""

import statistics


def rounds(nodes):
    """[[(a, b), ...], ...]: round-robin rounds over ``nodes`` (circle method)."""
    items = list(nodes)
    if len(items) < 2:
        return []
    if len(items) % 2:
        items.append(None)  # the node paired with None rests this round
    n = len(items)
    out = []
    fixed, rest = items[0], items[1:]
    for r in range(n - 1):
        rot = rest[r:] + rest[:r]
        line = [fixed] + rot
        pairs = []
        for i in range(n // 2):
            a, b = line[i], line[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        out.append(pairs)
    return out


def pair_rate(pair):
    """The figure a pair is judged by: its slower direction (a link is as fast as its slow side)."""
    vals = [v for v in (pair.get("gbps_ab"), pair.get("gbps_ba")) if v is not None]
    return min(vals) if vals else None


def reference(pairs):
    """What a healthy pair does here: the median over nodes of each node's best pair. A slow
    node drags down every pair it is in, but not the other nodes' best, so the reference holds
    even when many of the measured pairs include the slow node."""
    best = {}
    for p in pairs:
        r = pair_rate(p)
        if r is None:
            continue
        for h in (p["a"], p["b"]):
            best[h] = max(best.get(h, 0.0), r)
    return statistics.median(best.values()) if best else None


def suspects(pairs, ratio=0.5):
    """(reference, slow pairs): pairs under ``ratio`` x the reference (see ``reference``).
    Relative, so it holds on 10 GbE and 400 Gb/s IB alike."""
    ref = reference(pairs)
    slow = [p for p in pairs if pair_rate(p) is not None and ref and pair_rate(p) < ratio * ref]
    return ref, slow


def unheard(nodes, pairs):
    """Nodes that have not listened yet in a pair that reached the measuring stage or failed
    on their port: each gets one reversed pair in the second pass, so that a node refusing
    the job's port is found whichever side the rounds gave it."""
    listened = set(p["a"] for p in pairs)
    out = []
    for h in nodes:
        if h in listened:
            continue
        mine = [p for p in pairs if p["b"] == h]
        if mine:
            out.append((h, mine[0]["a"]))
    return out


def second_pass(nodes, slow_pairs, good):
    """Rounds that pair every node of a slow pair with nodes outside the slow pairs, when
    there are any: [[(suspect, good_node), ...], ...]. At most two partners per suspect."""
    sus = []
    for p in slow_pairs:
        for h in (p["a"], p["b"]):
            if h not in sus:
                sus.append(h)
    partners = [h for h in good if h not in sus]
    if not partners:
        return [], sus
    out = []
    for k in range(min(2, len(partners))):
        used, pairs = set(), []
        for i, s in enumerate(sus):
            for j in range(len(partners)):
                g = partners[(i + j + k) % len(partners)]
                if g not in used:
                    used.add(g)
                    pairs.append((s, g))
                    break
        if pairs:
            out.append(pairs)
    return out, sus


def isolate(first, second, ratio=0.5):
    """Name the culprits. Returns {"median", "slow_nodes", "slow_links", "failed"}.

    A node is slow when every measured pair it is in is slow (and at least one of those
    was with a node that is fast elsewhere); a link is slow when its two ends are fast with
    other partners. ``first`` and ``second`` are pair dicts (a, b, gbps_ab, gbps_ba, error).
    """
    allp = list(first) + list(second)
    med, slow = suspects([p for p in allp if not p.get("error")], ratio)
    slow_keys = set((p["a"], p["b"]) for p in slow)
    by_node = {}
    for p in allp:
        if p.get("error"):
            continue
        for h in (p["a"], p["b"]):
            by_node.setdefault(h, []).append(((p["a"], p["b"]) in slow_keys, p))
    slow_nodes = sorted(h for h, lst in by_node.items()
                        if all(is_slow for is_slow, _ in lst)
                        and any(not all(s for s, _ in by_node[_other(p, h)]) for _, p in lst))
    slow_links, seen = [], set()
    for p in slow:
        key = frozenset((p["a"], p["b"]))
        if p["a"] in slow_nodes or p["b"] in slow_nodes or key in seen:
            continue
        # a link, not a node: both ends measured well with some other peer
        if all(any(not is_slow for is_slow, _ in by_node.get(h, [])) for h in (p["a"], p["b"])):
            seen.add(key)
            slow_links.append(p)
    failed = [p for p in allp if p.get("error")]
    return {"median": med, "slow_nodes": slow_nodes, "slow_links": slow_links, "failed": failed}


def _other(p, h):
    return p["b"] if p["a"] == h else p["a"]
