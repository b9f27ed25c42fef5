"""gpudoctor/nodes.py reads and writes the plainest node sets ('sn[1-64]', sn1..snN) without
ClusterShell: the same names and the same folded text as ClusterShell's NodeSet, on every
shape it takes and on seeded random input; every other shape still goes to NodeSet."""

import random

import pytest
from ClusterShell.NodeSet import NodeSet

from gpudoctor import nodes
from gpudoctor.errors import InputError
from gpudoctor.inventory import resolve


def cluster_expand(pattern):
    return list(NodeSet(pattern))


def cluster_fold(hosts):
    return str(NodeSet.fromlist(hosts))


PLAIN_SETS = ["sn[1-64]", "sn[1-4]", "sn[0-3]", "n[0]", "n[7]", "gpu[1-3,5,9-12]", "gpu[9-12,1-3]", "a[1-3,2-5]",
              "node-[10-12]", "x-y[1-2,4]", "A[100-103,99]", "n[1,1,1]", "n[999999999]"]
NOT_PLAIN = ["sn[01-04]", "sn[1-10/2]", "rack1-n[1-4]", "sn[1-4]-ib", "sn[1-2],sn[3-4]", "a[1-2]b[3-4]", "sn1",
             "sn[4-1]", "sn[1-]", "sn[]", "n_[1-2]", "n.a[1-2]", "[1-3]", "sn[1-2,03]"]


@pytest.mark.parametrize("pattern", PLAIN_SETS)
def test_plain_sets_expand_as_nodeset_does(pattern):
    assert nodes._plain_indexes(pattern) is not None
    assert nodes.expand(pattern) == cluster_expand(pattern)
    assert [h.name for h in resolve(environ={"SLURM_JOB_NODELIST": pattern})] == cluster_expand(pattern)


def test_other_shapes_are_left_to_nodeset():
    for pattern in NOT_PLAIN:
        assert nodes._plain_indexes(pattern) is None, pattern
        try:
            want = cluster_expand(pattern)
        except Exception:
            with pytest.raises(InputError):
                nodes.expand(pattern)
        else:
            assert nodes.expand(pattern) == want, pattern


def test_folds_as_nodeset_does():
    lists = [["sn%d" % i for i in range(1, 65)], ["sn1", "sn2"], ["sn2", "sn1", "sn2"], ["sn1", "sn1"],
             ["gpu10", "gpu9", "gpu11", "gpu1", "gpu0"], ["n-1", "n-3", "n-5", "n-6"], ["a0", "a999999999"]]
    for hosts in lists:
        assert nodes._plain_fold(hosts) is not None, hosts
        assert nodes.fold(hosts) == cluster_fold(hosts), hosts
    for hosts in (["sn1", "gpu1"], ["sn01", "sn02"], ["sn1", "sn1-ib"], ["r1n1", "r1n2"], ["sn1", "login"],
                  ["n_1", "n_2"]):
        assert nodes._plain_fold(hosts) is None, hosts
        assert nodes.fold(hosts) == cluster_fold(hosts), hosts


def test_random_sets_and_lists_give_nodeset_answers():
    rng = random.Random(64)
    for _ in range(400):
        prefix = rng.choice(["sn", "gpu-", "a", "Node", "x-y-"])
        parts = []
        for _ in range(rng.randrange(1, 5)):
            lo = rng.choice([0, 1, 7, 9, 10, 99, 100, rng.randrange(1000)])
            hi = lo + rng.choice([0, 0, 1, 2, 9, 30])
            parts.append("%d" % lo if hi == lo and rng.random() < 0.5 else "%d-%d" % (lo, hi))
        pattern = "%s[%s]" % (prefix, ",".join(parts))
        assert nodes.expand(pattern) == cluster_expand(pattern), pattern
        hosts = [prefix + str(rng.randrange(300)) for _ in range(rng.randrange(2, 40))]
        assert nodes.fold(hosts) == cluster_fold(hosts), hosts
        assert nodes.expand(nodes.fold(hosts)) == cluster_expand(cluster_fold(hosts))


def test_max_nodes_is_still_refused_for_a_plain_set():
    with pytest.raises(InputError, match="more than --max-nodes 4"):
        resolve(environ={"SLURM_JOB_NODELIST": "sn[1-3,5-6]"}, max_nodes=4)
    assert [h.name for h in resolve(environ={"SLURM_JOB_NODELIST": "sn[1-2,2-3]"}, max_nodes=4)] == ["sn1", "sn2", "sn3"]
