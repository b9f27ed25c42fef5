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


def second_pass(nodes, slow_pairs, good, fast_nodes=None):
    """Rounds that measure again the slow pairs whose two ends were fast with someone
    (``fast_nodes``: candidates for a slow link, named only when slow twice) and pair every
    node of a slow pair with nodes outside the slow pairs (at most two partners each):
    [[(a, b), ...], ...], and the suspects."""
    sus = []
    for p in slow_pairs:
        for h in (p["a"], p["b"]):
            if h not in sus:
                sus.append(h)
    fast = set(nodes if fast_nodes is None else fast_nodes)
    wanted = [(p["a"], p["b"]) for p in slow_pairs if not p.get("error") and p["a"] in fast and p["b"] in fast]
    partners = [h for h in good if h not in sus]
    for k in range(min(2, len(partners))):
        used = set()
        for i, s in enumerate(sus):
            for j in range(len(partners)):
                g = partners[(i + j + k) % len(partners)]
                if g not in used:
                    used.add(g)
                    wanted.append((s, g))
                    break
    return matchings(wanted), sus


def fast_nodes(pairs, slow_pairs):
    """Nodes with at least one measured pair that is not slow."""
    slow = set(id(p) for p in slow_pairs)
    return set(h for p in pairs if not p.get("error") and id(p) not in slow for h in (p["a"], p["b"]))


def matchings(pairs):
    """Pairs split into rounds where no node appears twice (greedy, in order)."""
    rounds = []
    for a, b in pairs:
        for r in rounds:
            if not any(x in (a, b) for p in r for x in p):
                r.append((a, b))
                break
        else:
            rounds.append([(a, b)])
    return rounds


def isolate(first, second, ratio=0.5):
    """Name the culprits: {"median", "slow_nodes", "slow_links", "unconfirmed", "failed"}.

    Measurements of one link are taken together: the link is slow only when every measurement
    of it is under ``ratio`` x the reference (one fast reading means the slow one was noise).
    A node is slow when every link it has is slow and at least one of those peers is fast with
    someone else. A slow link whose two ends are fast with other peers is a slow link when it
    was measured at least twice, else ``unconfirmed`` (the budget ran out before the second pass).
    """
    allp = list(first) + list(second)
    ok = [p for p in allp if not p.get("error")]
    ref = reference(ok)
    links = {}
    for p in ok:
        links.setdefault(frozenset((p["a"], p["b"])), []).append(p)
    slow_link = {k: bool(ref) and all(pair_rate(p) is not None and pair_rate(p) < ratio * ref for p in ps)
                 for k, ps in links.items()}
    by_node = {}
    for k, is_slow in slow_link.items():
        for h in k:
            by_node.setdefault(h, []).append((is_slow, k))

    def fast_somewhere(h):
        return any(not s for s, _ in by_node.get(h, []))

    slow_nodes = sorted(h for h, lst in by_node.items()
                        if all(s for s, _ in lst) and any(fast_somewhere(next(iter(k - {h}))) for _, k in lst))
    slow_links, unconfirmed = [], []
    for k, is_slow in slow_link.items():
        if not is_slow or k & set(slow_nodes):
            continue
        if all(fast_somewhere(h) for h in k):
            ps = links[k]
            worst = min(ps, key=pair_rate)
            (slow_links if len(ps) >= 2 else unconfirmed).append(worst)
    failed = [p for p in allp if p.get("error")]
    return {"median": ref, "slow_nodes": slow_nodes, "slow_links": slow_links, "unconfirmed": unconfirmed,
            "failed": failed}
