"""Node names: fold lists into node sets (gpu[01-15]) and expand node-set syntax, with
ClusterShell's NodeSet (the library clush and Slurm users already know)."""

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


def expand(pattern):
    """'gpu[01-03],login2' -> ['gpu01', 'gpu02', 'gpu03', 'login2'] (order kept)."""
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError

    try:
        return list(NodeSet(pattern))
    except (NodeSetParseError, ValueError) as exc:
        raise InputError("%r is not a node set: %s" % (pattern, exc))
