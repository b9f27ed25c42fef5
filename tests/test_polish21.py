"""The leftovers of userwalk21's fresh-clone walk (its notes, "For you to decide" items 2-7), in-process."""

import json
import os

import pytest

from gpudoctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")
CLUSTER = os.path.join(ROOT, "fixtures", "clusters", "two-node-one-driverless")


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_computed_export_keeps_its_own_line_to_paste(tmp_path, capsys):
    """explain --facts on 'no socket interface found': cause 1's export is printed as a bare `export
    NCCL_SOCKET_IFNAME=eth0` line (pasted as is) and again at the head of the computed fix, which says where and
    why after it (`(on every node) ...`) and so is no line to paste. The walk (userwalk21) read that as a duplicate;
    dropping the bare line left fixes like `export CUDA_HOME=...   (install it: ...)` with nothing to paste."""
    log = tmp_path / "rank0.log"
    log.write_text("gpu1:123:456 [0] NCCL WARN Bootstrap : no socket interface found\n")
    rc, out, _ = _run(capsys, "explain", "--facts", CLUSTER, str(log))
    assert "fix: export NCCL_SOCKET_IFNAME=eth0   (on every node)" in out
    assert [ln.strip() for ln in out.splitlines() if "NCCL_SOCKET_IFNAME=eth0" in ln] == \
        ["export NCCL_SOCKET_IFNAME=eth0", "fix: export NCCL_SOCKET_IFNAME=eth0   (on every node)   (2 nodes: eth0 192.0.2.2, eth0 192.0.2.2)"]
    # an export the computed fix does not set is still printed (cause 2's exclusion list)
    assert "     export NCCL_SOCKET_IFNAME='^docker,lo,veth,virbr'" in out


def _job_folder(path, n=12, first=7):
    """n per-node logs; node `first` fails first (12:00:01, its own DistBackendError at 12:00:02), the others
    echo at 12:00:05: the five matches kept in input order were all echoes."""
    path.mkdir()
    for i in range(n):
        lines = ["%d: [rank%d]: step %d loss 2.1" % (i * 8, i * 8, s) for s in range(20)]
        if i == first:
            lines.append("2024-03-01T12:00:01.000 gpu%02d:1234:1240 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : "
                         "Got completion from peer 10.0.0.5<56434> with status=IBV_WC_RETRY_EXC_ERR(12) "
                         "opcode=IBV_WC_SEND(0) len=0 vendor err 129 (Send)" % i)
        lines.append("2024-03-01T12:00:%s.000 [rank%d]: torch.distributed.DistBackendError: NCCL error in: "
                     "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there "
                     "was a network error, NCCL version 2.21.5" % ("02" if i == first else "05", i * 8))
        (path / ("slurm-77-gpu%02d.out" % i)).write_text("\n".join(lines) + "\n")


def test_the_quoted_lines_are_the_first_ranks_own(tmp_path, capsys):
    """The headline said 'first: on gpu37 at 12:00:01' while the lines quoted under it were gpu00-02's echoes
    at 12:00:05."""
    _job_folder(tmp_path / "job")
    rc, out, _ = _run(capsys, "explain", str(tmp_path / "job"))
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("  first: "))
    assert "on gpu07 at 2024-03-01 12:00:01.000" in lines[head] and "echoes of the first" in lines[head]
    quoted = lines[head + 1:head + 4]
    assert "slurm-77-gpu07.out line 21: " in quoted[0] and "NET/IB" in quoted[0]
    assert "slurm-77-gpu07.out line 22: " in quoted[1] and "[rank56]" in quoted[1]
    assert quoted[2] == "  (+11 more matching lines: the others' echoes)"
    # the JSON: the first rank's own lines first, then the others' (still up to five)
    rc, out, _ = _run(capsys, "explain", "--json", str(tmp_path / "job"))
    f = json.loads(out)["findings"][0]
    assert f["origin_matches"] == 2 and len(f["matches"]) == 5
    assert [m["file"].rsplit("-", 1)[1] for m in f["matches"]] == ["gpu07.out"] * 2 + ["gpu00.out", "gpu01.out",
                                                                                        "gpu02.out"]


def _nodes(folder, values, name="NODE_NAME", shown=True):
    os.makedirs(folder)
    for i, v in enumerate(values, 1):
        facts = json.load(open(FACTS))
        facts["node"] = "gpu%d" % i
        env = facts.setdefault("env", {"status": "ok"})
        env.setdefault("values" if shown else "hashed", {})[name] = v
        json.dump(facts, open(os.path.join(folder, "gpu%d.json" % i), "w"))


def _parity(capsys, folder):
    rc, out, _ = _run(capsys, "check", "--facts", folder, "--select", "env.parity", "--json")
    return json.loads(out)["checks"][0]


@pytest.mark.parametrize("shown", [True, False])
def test_a_variable_distinct_on_every_node_is_identity_not_drift(tmp_path, capsys, shown):
    """env.parity warned 'NODE_NAME differs: ... vs baseline gpu1 (1)' for NODE_NAME=n1..n4 (sshd SetEnv):
    an arbitrary one-node baseline. Such a variable is the node's identity, as SLURMD_NODENAME is."""
    _nodes(str(tmp_path / "four"), ["n1", "n2", "n3", "n4"], shown=shown)
    c = _parity(capsys, str(tmp_path / "four"))
    assert c["status"] == "pass", c
    assert "NODE_NAME: a different value on each of the 4 nodes, a per-node identity" in json.dumps(c)
    # one node of many that differs is drift, as before
    _nodes(str(tmp_path / "one"), ["n1", "n1", "n1", "n4"], shown=shown)
    c = _parity(capsys, str(tmp_path / "one"))
    assert c["status"] == "warn" and "NODE_NAME differs" in json.dumps(c)
    # two nodes that differ: no majority to call either an identity (as before: a warning)
    _nodes(str(tmp_path / "two"), ["n1", "n2"], shown=shown)
    assert _parity(capsys, str(tmp_path / "two"))["status"] == "warn"
    # a job-shaping variable stays judged even when it differs everywhere (nccl.env judges each node's value)
    _nodes(str(tmp_path / "nccl"), ["eth0", "eth1", "eth2"], name="NCCL_SOCKET_IFNAME", shown=shown)
    assert _parity(capsys, str(tmp_path / "nccl"))["status"] == "fail"


def test_an_unknown_flag_of_a_command_names_that_commands_help(capsys):
    rc, out, err = _run(capsys, "check", "--unknown-flag")
    assert rc == 2 and out == ""
    assert err == "gpudoctor: error: unrecognized arguments: --unknown-flag (see: gpudoctor check --help)\n"
    rc, _, err = _run(capsys, "slurm-health", "--x")
    assert rc == 2 and "(see: gpudoctor slurm-health --help)" in err
    rc, _, err = _run(capsys, "--x")  # no command: the program's help
    assert rc == 2 and err.endswith("(see: gpudoctor --help)\n")


def test_plan_names_what_the_user_typed(capsys):
    rc, _, err = _run(capsys, "plan", "/dev/null")
    assert rc == 2 and err == "gpudoctor: error: script '/dev/null' is the null device, empty: no launch line to read\n"
    rc, _, err = _run(capsys, "plan", "bash", "/dev/null")
    assert rc == 2 and "is the null device, empty" in err
    rc, _, err = _run(capsys, "plan", "nonexist-p21")
    assert rc == 2 and "--launch" not in err and \
        err.startswith("gpudoctor: error: 'nonexist-p21': no such script, and not a launcher gpudoctor reads (torchrun")
    rc, _, err = _run(capsys, "plan", "--launch", "nonexist-p21")  # given in --launch: named so
    assert rc == 2 and err.startswith("gpudoctor: error: --launch 'nonexist-p21': not a launcher gpudoctor reads")
    rc, _, err = _run(capsys, "plan", "FOO=1")
    assert rc == 2 and err.startswith("gpudoctor: error: the launch line names no launcher")


def test_another_nodes_collector_is_never_a_job_process(tmp_path):
    """watch on nodes that share one machine listed another node's collector (`python3 -c READ_STDIN`, with
    the NCCL_* its ssh session set) as a job process."""
    from gpudoctor.collector.base import Context
    from gpudoctor.collector.watch import COLLECTOR_MARK, scan_env_jobs
    from gpudoctor.transport import READ_STDIN
    from gpudoctor.transport.srun import READ_BLOB

    assert COLLECTOR_MARK.decode() in READ_STDIN and COLLECTOR_MARK.decode() in READ_BLOB  # the same mark
    procs = {
        101: (["python3", "-c", READ_STDIN], "python3"),  # another node's collector over ssh
        102: (["timeout", "-k", "2", "35", "python3", "-c", READ_STDIN], "timeout"),
        103: (["python3", "-c", READ_BLOB], "python3"),  # over srun
        104: (["/usr/bin/python3", "-m", "gpudoctor", "watch"], "python3"),
        105: (["/home/u/.local/bin/gpudoctor", "check"], "gpudoctor"),
        201: (["python", "train.py", "--gpudoctor"], "python"),  # the job
        202: (["/usr/bin/python3", "-u", "train.py"], "pt_main_thread"),
    }
    for pid, (argv, comm) in procs.items():
        d = tmp_path / "proc" / str(pid)
        d.mkdir(parents=True)
        (d / "environ").write_bytes(b"PATH=/usr/bin\0NCCL_SOCKET_IFNAME=eth0\0")
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (d / "comm").write_text(comm + "\n")
    assert scan_env_jobs(Context(root=str(tmp_path), live=False), exclude=set()) == [201, 202]
