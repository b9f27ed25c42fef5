"""The rendezvous probe for real: sshd nodes on 127.x.0.y (tests/sshcluster.py); the master
node listens on the plan's port in a second fan-out and the other nodes connect to it."""

import json
import os
import socket
import subprocess
import sys

import pytest

import sshcluster

pytestmark = pytest.mark.skipif(not sshcluster.available() and not os.environ.get("CI"),
                                reason="needs root and openssh-server (tests/run.sh installs it)")


@pytest.fixture(scope="module")
def cluster():
    c = sshcluster.Cluster()
    for name in ("n1", "n2", "n3"):
        c.add(name, env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    c.start()
    yield c
    c.cleanup()


def gd(cluster, launch):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--hosts", cluster.hostfile(), "--ssh-config",
                        cluster.ssh_config, "--json", "--select", "launch", "--timeout", "20", "--launch", launch],
                       capture_output=True, text=True, timeout=120, cwd=cluster.base)
    return p.returncode, json.loads(p.stdout), p.stderr


def _result(doc, cid):
    (r,) = [r for r in doc["checks"] if r["id"] == cid]
    return r


def test_free_port_is_bound_on_the_master_and_reached_from_every_node(cluster):
    port = sshcluster.free_port()
    rc, doc, err = gd(cluster, "torchrun --nnodes 3 --nproc_per_node 1 --master_addr %s --master_port %d train.py"
                      % (cluster.addr(0), port))
    r = _result(doc, "launch.rendezvous")
    assert r["status"] == "pass" and r["by_status"] == {"pass": "n[1-3]"}, r
    assert "reached from n[2-3]" in r["evidence"], r
    assert not [f for f in doc["findings"] if f["check"] == "launch.rendezvous"], doc["findings"]
    # the master is loopback on this test bed: launch.master says so, with the fix
    assert any(f["check"] == "launch.master" and "loopback" in f["message"] for f in doc["findings"])


def test_port_held_by_another_program_is_not_free(cluster):
    port = sshcluster.free_port()
    holder = socket.socket()
    holder.bind((cluster.addr(0), port))
    holder.listen(1)  # accepts nothing: stands for a stale job or another service on the port
    try:
        rc, doc, err = gd(cluster, "torchrun --nnodes 3 --nproc_per_node 1 --master_addr %s --master_port %d train.py"
                          % (cluster.addr(0), port))
    finally:
        holder.close()
    (f,) = [f for f in doc["findings"] if f["check"] == "launch.rendezvous"]
    assert f["hosts"] == ["n1"] and "port %d on the master n1 is not free: in use" % port in f["message"]
    assert "ss -ltnp" in f["fix"] and rc == 1


def test_nothing_listens_where_the_peers_connect(cluster):
    # the plan's master is n1 by name, but n1's port is reached at an address where the master's
    # listener is not: the collector on n2/n3 reports the refusal
    from gpudoctor.collector.rendezvous import connect

    port = sshcluster.free_port()
    got = connect(cluster.addr(1), port, 0.5, "tok", "n2")
    assert got == {"ok": False, "error": "connection refused"}
