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


def expand(pattern):
    """'gpu[01-03],login2' -> ['gpu01', 'gpu02', 'gpu03', 'login2'] (order kept)."""
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError

    from gpudoctor.errors import excerpt

    refuse_groups(pattern)
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
