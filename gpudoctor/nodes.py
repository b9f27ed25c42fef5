"""Node names: fold lists into node sets (gpu[01-15]) and expand node-set syntax, with
ClusterShell's NodeSet (the library clush and Slurm users already know)."""

import re
from functools import lru_cache

from gpudoctor.errors import InputError


def fold(hosts):
    hosts = tuple(hosts)
    if len(hosts) <= 1:
        return ",".join(hosts)
    return _fold(hosts)


@lru_cache(maxsize=1024)  # a report folds the same node lists (all nodes, the passing ones) many times
def _fold(hosts):
    from ClusterShell.NodeSet import NodeSet

    return str(NodeSet.fromlist(hosts))


def refuse_groups(pattern):
    """ClusterShell resolves @group through the site's groups.conf, whose sources are shell
    upcalls: a node set from a hostfile or $SLURM_JOB_NODELIST must never run them (nor make
    10,000 lookups). Groups are expanded by the user first: nodeset -e @name."""
    if re.search(r"(^|[,!&^\s])@", pattern):  # '@group' starts an element; 'user@host' is a name
        from gpudoctor.errors import excerpt

        raise InputError("%s: node groups (@name) are not supported; expand them first (nodeset -e @name)"
                         % excerpt(pattern))


MAX_EXPAND = 100000  # names from one node set, whatever the caller's own bound (inventory's --max-nodes)


def _bracket_count(inner):
    """Names one [..] of a node set stands for ('01-16,20,30-40/2'), or None when it is not that
    syntax (ClusterShell's RangeSet then parses it, and says what is wrong)."""
    total = 0
    for part in inner.split(","):
        rng, slash, step = part.strip().partition("/")
        lo, dash, hi = rng.partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()) or (slash and not step.isdigit()):
            return None
        n = int(hi) - int(lo) if dash else 0
        total += max(0, n // max(1, int(step or 1))) + 1 if n >= 0 else 0
    return total


def count_bound(pattern):
    """How many names ClusterShell builds for a node set, from its text alone: its RangeSet makes
    every index of a range before anything can count them ('gpu[1-99999999]' took minutes and
    gigabytes), so this bound is checked first. Every operand counts, whatever joins it (',',
    '!', '&', '^'): 'n[1-99999999]&n[1-3]' names 3 nodes but builds 10^8 indexes. None when
    the text is not plain node-set syntax (NodeSet itself then decides)."""
    total, depth, start = 0, 0, 0
    for i, c in enumerate(pattern + ","):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        if depth or c not in ",!&^":
            continue
        elem = pattern[start:i]
        start = i + 1
        n = 1
        for m in re.finditer(r"\[([^\[\]]*)\]", elem):
            k = _bracket_count(m.group(1))
            if k is None:
                return None
            n *= k
        total += n
    return total


def expand(pattern):
    """'gpu[01-03],login2' -> ['gpu01', 'gpu02', 'gpu03', 'login2'] (order kept)."""
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError

    from gpudoctor.errors import excerpt

    refuse_groups(pattern)
    bound = count_bound(pattern)
    if bound is not None and bound > MAX_EXPAND:  # before RangeSet builds every index
        raise InputError("%s names up to %d nodes, more than %d" % (excerpt(pattern), bound, MAX_EXPAND))
    try:
        nodes = NodeSet(pattern)
        if len(nodes) > MAX_EXPAND:  # counted before any name is made
            raise InputError("%s names %d nodes, more than %d" % (excerpt(pattern), len(nodes), MAX_EXPAND))
        return list(nodes)
    except InputError:
        raise
    except (NodeSetParseError, ValueError) as exc:
        raise InputError("%s is not a node set: %s" % (excerpt(pattern), excerpt(str(exc), 120)))
    except Exception as exc:  # ClusterShell's limits: AssertionError("range too large"), unknown @group
        raise InputError("%s is not a node set ClusterShell can expand: %s: %s"
                         % (excerpt(pattern), type(exc).__name__, excerpt(str(exc), 120)))
