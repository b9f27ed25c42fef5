"""The transport interface without a cluster: choosing a transport, the one host-name
rule, bounds on node lists, and the local transport through the interface."""

import os
import resource
import subprocess
import sys

import pytest

from gpudoctor.errors import InputError
from gpudoctor.inventory import Host, resolve, valid_host
from gpudoctor.transport import Payload, choose, get_transport, interpret, usable_jobs

GD = [sys.executable, "-m", "gpudoctor"]


@pytest.mark.parametrize("name", ["gpu01", "node-7.cluster.local", "root@gpu1", "a_b", "10.0.0.7", "::1",
                                  "fe80::1%eth0", "[2001:db8::1]", "x..y", "a" * 64 + ".example"])
def test_valid_host_names(name):
    assert valid_host(name)


@pytest.mark.parametrize("name", ["-oProxyCommand=touch /tmp/x", "a;touch /tmp/x", "a$(id)", "a`id`", "a b", "a\tb",
                                  "a\nb", "a\x00b", "-Eowned", "root@-x", "@gpu1", "gpu1@", "a|b", "a&b", "a>b",
                                  "'a'", '"a"', "1.2.3.400", "fe80::1%et h0", "", "a" * 400, "gpu[1"])
def test_invalid_host_names(name):
    assert not valid_host(name)


@pytest.mark.parametrize("env", [
    {"SLURM_JOB_NODELIST": "gpu1,-oProxyCommand=x"},
    {"SLURM_JOB_NODELIST": "gpu[1-2],a;b"},
])
def test_slurm_nodelist_is_validated(env):
    with pytest.raises(InputError, match="SLURM_JOB_NODELIST"):
        resolve(environ=env)


def test_node_count_is_bounded_before_expansion(monkeypatch):
    # a state, not the clock: refused from the text, with every way of expanding a node set made to fail
    import ClusterShell.NodeSet

    from gpudoctor import nodes

    def expanded(*args, **kwargs):
        raise AssertionError("the node set was expanded before the count was refused")

    with monkeypatch.context() as m:
        for mod, name in ((nodes, "expand"), (nodes, "_plain_indexes"), (ClusterShell.NodeSet, "NodeSet")):
            m.setattr(mod, name, expanded)
        with pytest.raises(InputError, match="names 100000 nodes, more than --max-nodes 10000"):
            resolve(nodeset="gpu[1-100000]", environ={})
    with pytest.raises(InputError, match="more than --max-nodes 5"):
        resolve(nodeset="gpu[1-6]", environ={}, max_nodes=5)
    assert len(resolve(nodeset="gpu[1-5]", environ={}, max_nodes=5)) == 5


@pytest.mark.parametrize("args,needle", [
    (["--nodes", ""], "--nodes is empty"),
    (["--nodes", " "], "--nodes is empty"),
    (["--nodes", "gpu[1-100000]"], "more than --max-nodes 10000"),
    (["--nodes", "gpu[1-20]", "--max-nodes", "10"], "more than --max-nodes 10"),
    (["--nodes=-oProxyCommand=touch /tmp/x"], "is not a host name"),
    (["--via", "local", "--nodes", "gpu1"], "--via local checks this machine only"),
    (["--via", "ssh"], "--via ssh needs nodes"),
    (["--jobs", "0", "--nodes", "gpu1"], "--jobs"),
    (["--via", "srun", "--nodes", "root@gpu1"], "names a user"),
])
def test_cli_refuses_with_one_line_and_exit_2(tmp_path, args, needle):
    # refused before anything starts: no node is contacted (60 s is subprocess's deadline on the state "it
    # ended", not a wall-clock bound; the node count's refusal before expansion is proved by the test above)
    p = subprocess.run(GD + ["check"] + args, capture_output=True, text=True, cwd=str(tmp_path), timeout=60,
                       env=dict(os.environ, SLURM_JOB_NODELIST="", SLURM_JOB_ID=""))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_choose_is_the_one_place():
    hosts = [Host("gpu1"), Host("gpu2")]
    alloc = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "gpu[1-4]", "PATH": os.environ.get("PATH", "")}
    assert choose(None, []) == "local"
    assert choose(None, hosts, environ={}) == "ssh"
    has_srun = bool(__import__("shutil").which("srun"))
    assert choose(None, hosts, environ=alloc) == ("srun" if has_srun else "ssh")
    # a node outside the allocation: srun cannot reach it
    assert choose(None, hosts + [Host("login1")], environ=alloc) == "ssh"
    # inside a prolog, never the allocation's fan-out
    assert choose(None, hosts, environ=dict(alloc, SLURM_SCRIPT_CONTEXT="prolog_slurmd")) == "ssh"
    assert choose("ssh", hosts, environ=alloc) == "ssh"
    with pytest.raises(InputError):
        choose("rsh", hosts)


def test_exit_127_needs_the_not_found_mark():
    n = interpret("gpu1", 127, "", "bash: line 1: nvidia-smi: command not found\n", "python3")
    assert n.error_kind == "collector" and "command not found" in n.error
    n = interpret("gpu1", 127, "", "gpudoctor: python not found: python3\n", "python3")
    assert n.error_kind == "python-missing"


def test_crafted_facts_are_garbage_not_a_crash():
    deep = '{"schema": "gpudoctor.facts/1", "x": ' + "[" * 100000 + "]" * 100000 + "}"
    assert interpret("gpu1", 0, deep, "", "python3").error_kind == "garbage"
    assert interpret("gpu1", 0, '["gpudoctor.facts/1"]', "", "python3").error_kind == "garbage"
    n = interpret("gpu1", 0, '{"schema": "gpudoctor.facts/1", "node": "-oProxyCommand=x"}', "", "python3")
    assert n.facts["node"] == "gpu1"


def test_local_transport_through_the_interface():
    (node,) = get_transport("local", timeout=30).run([], Payload(fast=True))
    assert node.reachable and node.facts["schema"] == "gpudoctor.facts/1"


def test_usable_jobs_fits_the_open_file_limit():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64));"
            "from gpudoctor.transport import usable_jobs; print(usable_jobs(1000, 1000))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 1 <= int(out) <= 32
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert usable_jobs(8, 3) == 3


def test_running_out_of_descriptors_is_this_machines_failure(tmp_path):
    """Not a node's: one line, exit 3 (the exit code of gpudoctor's own failures)."""
    import errno

    from gpudoctor.transport import ControllerError
    from gpudoctor.transport.ssh import classify

    with pytest.raises(ControllerError):
        classify(OSError(errno.EMFILE, "Too many open files"))
    p = subprocess.run(["prlimit", "--nofile=12:12"] + GD + ["check", "--nodes", "127.0.0.1", "--select", "shm"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=60)
    assert p.returncode == 3, (p.stdout, p.stderr)
    assert "not on a node" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "127.0.0.1" not in p.stdout


def test_mesh_probe_on_the_node_never_passes_a_name_as_an_option(tmp_path):
    """The node checks the names it is asked to ssh to (they are input to it too), and
    puts `--` before them; OpenSSH then refuses a name that is not a host name."""
    from gpudoctor.collector.cluster import _ssh_probe

    mark = tmp_path / "pwned"
    results = {}
    for name in ("-oProxyCommand=touch %s" % mark, "a;touch %s" % mark):
        _ssh_probe(name, 1, results)
        assert results[name] == {"ok": False, "error": "not probed: not a host name"}
    assert not mark.exists()


@pytest.mark.parametrize("nodeset,needle", [
    # refused from the text before ClusterShell expands it (nodes.count_bound); ClusterShell
    # itself asserts past 10^9 ("range too large")
    ("gpu[1-99999999999999999999]", "more than --max-nodes|range too large"),
    ("a[1-1000000000]", "more than --max-nodes|range too large"),
    ("@nosuchgroup:x", "node groups .@name. are not supported"),
    ("x&y", "names no node"),  # an empty intersection is not "this machine"
])
def test_node_sets_clustershell_refuses_are_input_errors(nodeset, needle):
    with pytest.raises(InputError, match=needle):
        resolve(nodeset=nodeset, environ={})


def test_node_sets_and_host_names_never_escape_the_contract():
    """Property: any text given as --nodes either yields hosts that all pass the one rule
    (and at most --max-nodes of them), or is an InputError; nothing else escapes."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    alphabet = "ab01-9[],.;&!^@:%_ \t$()`'\"|<>\\x\n-"

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.text(alphabet=alphabet, max_size=40))
    def prop(text):
        try:
            hosts = resolve(nodeset=text, environ={}, max_nodes=500)
        except InputError:
            return
        assert 1 <= len(hosts) <= 500
        assert all(valid_host(h.name) for h in hosts)

    prop()
