"""The drift engine: group nodes by a value, take the majority as the baseline, and name
the odd nodes, folded into node sets ("gpu16: torch 2.1.2 vs gpu[01-15] (15): 2.0.1").

No golden file: the cluster is its own reference (as ClusterShell's clush -b groups
identical outputs). Ties are broken by
hostfile order, so the first node (usually rank 0) sets the baseline.
"""

from gpudoctor.nodes import fold
from gpudoctor.record import Record

MISSING = "(not installed)"


class Group(Record):
    _fields = ("value", "hosts")

    def __init__(self, value, hosts):
        self.value = value
        self.hosts = hosts  # [host]

    def show(self, total=None):
        return "%s (%d): %s" % (fold(self.hosts), len(self.hosts), self.value)


def group(values):
    """host -> value  =>  groups, the baseline (largest, then earliest) first."""
    order = {h: i for i, h in enumerate(values)}
    by = {}
    for host, v in values.items():
        key = repr(v)
        by.setdefault(key, Group(value=v, hosts=[])).hosts.append(host)
    return sorted(by.values(), key=lambda g: (-len(g.hosts), min(order[h] for h in g.hosts)))


def describe(label, groups):
    base, odd = groups[0], groups[1:]
    return "%s differs: %s vs baseline %s" % (label, "; ".join(g.show() for g in odd), base.show())
