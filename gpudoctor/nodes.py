"""Node names: fold lists into node sets (gpu[01-15]) and expand node-set syntax, with
ClusterShell's NodeSet (the library clush and Slurm users already know)."""

import re
from functools import lru_cache

from gpudoctor.errors import InputError


# The plainest node sets, 'sn[1-64]' and a list of sn1..snN, are read and written without
# ClusterShell: importing it (logging, configparser, their regexes) is 9 ms of the CPU of
# every `gpudoctor facts` through srun, whose node list is $SLURM_JOB_NODELIST. Only a
# prefix of letters and '-' with indexes of no leading zero and no step; anything else
# (padding, steps, several brackets, digits before the bracket, comma lists of names)
# goes to NodeSet as before. What NodeSet makes of these: ClusterShell's RangeSet keeps
# the indexes as a sorted set of ints and folds consecutive ones into 'a-b'
# (https://github.com/cea-hpc/clustershell lib/ClusterShell/RangeSet.py); tests/test_nodes_plain.py
# compares the two on every shape and on random input.
_INDEX = r"(?:0|[1-9][0-9]{0,8})"
_PLAIN_NAME = re.compile(r"([A-Za-z][A-Za-z-]*)(%s)\Z" % _INDEX)
_PLAIN_SET = re.compile(r"([A-Za-z][A-Za-z-]*)\[(%s(?:-%s)?(?:,%s(?:-%s)?)*)\]\Z" % ((_INDEX,) * 4))


def _plain_indexes(pattern):
    """(prefix, sorted indexes) for 'name[1-4,7]', or None for any other node set."""
    m = _PLAIN_SET.match(pattern)
    if not m:
        return None
    indexes = set()
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        lo, hi = int(lo), int(hi or lo)
        if hi < lo or hi - lo >= MAX_EXPAND:  # NodeSet says what is wrong (count_bound bounds the rest)
            return None
        indexes.update(range(lo, hi + 1))
    return m.group(1), sorted(indexes)


def _plain_fold(hosts):
    """What str(NodeSet.fromlist(hosts)) gives for names that are all one prefix and an index
    ('sn1', 'sn2', 'sn4' -> 'sn[1-2,4]'), or None."""
    prefix, indexes = None, set()
    for h in hosts:
        m = _PLAIN_NAME.match(h)
        if not m or (prefix is not None and m.group(1) != prefix):
            return None
        prefix = m.group(1)
        indexes.add(int(m.group(2)))
    if len(indexes) == 1:
        return "%s%d" % (prefix, indexes.pop())
    runs, order = [], sorted(indexes)
    start = prev = order[0]
    for i in order[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append("%d" % start if start == prev else "%d-%d" % (start, prev))
        start = prev = i
    return "%s[%s]" % (prefix, ",".join(runs))


def fold(hosts):
    hosts = tuple(hosts)
    if len(hosts) <= 1:
        return ",".join(hosts)
    return _fold(hosts)


@lru_cache(maxsize=1024)  # a report folds the same node lists (all nodes, the passing ones) many times
def _fold(hosts):
    plain = _plain_fold(hosts)
    if plain is not None:
        return plain
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
    from gpudoctor.errors import excerpt

    refuse_groups(pattern)
    bound = count_bound(pattern)
    if bound is not None and bound > MAX_EXPAND:  # before RangeSet builds every index
        raise InputError("%s names up to %d nodes, more than %d" % (excerpt(pattern), bound, MAX_EXPAND))
    plain = _plain_indexes(pattern)
    if plain is not None:
        return ["%s%d" % (plain[0], i) for i in plain[1]]
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError

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
