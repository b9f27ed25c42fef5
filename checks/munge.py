"""MUNGE's key is the same on every node (compared by a keyed hash; the key itself never leaves its node).

Every host of a MUNGE realm must share one key (https://github.com/dun/munge/wiki/Installation-Guide); a node
with another one has every credential refused: slurmctld logs "Munge decode failed: Invalid credential" and marks
the node down (slurm28 walked it on the 4-node bed). Each node sends HMAC-SHA256 of its /etc/munge/munge.key
under the run's random key (gpudoctor/collector/munge.py), so two nodes compare equal only when their keys are;
the run's key is kept nowhere, and nothing in the report or the history can recover the key or test a guess.
"""

from gpudoctor.drift import describe, group
from gpudoctor.nodes import fold
from gpudoctor.registry import Finding, Pass, Skip, check, cmd


@check("munge.key", title="every node holds the same MUNGE key (compared by keyed hash)", needs=("munge",),
       scope="cluster")
def munge_key(nodes, config):
    values, ids = {}, set()
    for h, f in nodes.items():
        m = f["munge"]
        v, kid = m.get("key_hmac"), m.get("key_id")
        if not isinstance(v, str) or not v.startswith("hmac:") or not isinstance(kid, str):
            yield Skip("the node sent no keyed hash of its MUNGE key", hosts=[h])
            continue
        values[h] = "key#" + v[5:13]
        ids.add(kid)
    if len(ids) > 1:
        yield Skip("the nodes' hashes were made under different run keys (facts gathered in separate runs): "
                   "gather them in one run", hosts=sorted(values))
        return
    if len(values) < 2:
        return
    groups = group(values)
    if len(groups) == 1:
        yield Pass("the same %s on every node (%d nodes; HMAC-SHA256 under this run's key, %s)" % (
            "/etc/munge/munge.key", len(values), groups[0].value), hosts=sorted(values))
        return
    odd = [h for g in groups[1:] for h in g.hosts]
    tie = len(groups[0].hosts) == len(groups[1].hosts)
    yield Finding.error(
        describe("MUNGE key (/etc/munge/munge.key, by keyed hash)", groups)
        + (" (as many nodes hold each: which is the controller's decides)" if tie else "")
        + ": MUNGE refuses every credential between nodes with different keys ('Invalid credential'), and Slurm "
        "marks those nodes down",
        observed="; ".join(g.show() for g in groups[1:]), expected="%s's key" % fold(groups[0].hosts), hosts=odd,
        fix=cmd("copy the key slurmctld's host holds to {odd} (as root: scp CONTROLLER:/etc/munge/munge.key "
                "/etc/munge/munge.key; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key), "
                "then systemctl restart munge and systemctl restart slurmd there", odd=fold(odd)))
    if tie:
        yield Skip("as many nodes hold another key: which one is right cannot be told from here", hosts=groups[0].hosts)
    else:
        yield Pass("the key the majority holds (%s)" % groups[0].value, hosts=groups[0].hosts)
