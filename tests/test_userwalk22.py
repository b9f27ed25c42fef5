"""What userwalk22's fresh-clone walk (the README's commands, the seeds' scenarios, bad inputs) ran into."""

import os

from gpudoctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_diff_names_before_and_after_not_a_facts_option(tmp_path, capsys):
    """`gpudoctor diff BEFORE AFTER` with a path that is not there said `--facts /x: no such file`: diff has no
    --facts option; the message names the argument the user gave."""
    gone = str(tmp_path / "gone.json")
    rc, out, err = _run(capsys, "diff", gone, FACTS)
    assert rc == 2 and out == ""
    assert err == "gpudoctor: error: diff: BEFORE %s: no such file or directory\n" % gone
    rc, _, err = _run(capsys, "diff", FACTS, gone)
    assert rc == 2 and err == "gpudoctor: error: diff: AFTER %s: no such file or directory\n" % gone
    rc, _, err = _run(capsys, "diff", "--since", "last-good", "--state-dir", str(tmp_path / "st"), gone)
    assert rc == 2 and "--facts" not in err and "AFTER %s" % gone in err
    # check's own --facts keeps its name
    rc, _, err = _run(capsys, "check", "--facts", gone)
    assert rc == 2 and err == "gpudoctor: error: --facts %s: no such file or directory\n" % gone


def test_no_command_is_a_usage_error_with_its_line_on_stderr(capsys):
    """`gpudoctor` alone printed the help on stdout and exited 2 with nothing on stderr: a script that ran it with
    stdout to a file saw exit 2 and no reason. The help stays on stdout; stderr has the one line of a usage error."""
    rc, out, err = _run(capsys)
    assert rc == 2 and out.startswith("usage: gpudoctor ") and "COMMAND" in out
    assert err == "gpudoctor: error: give a command, e.g. gpudoctor check (see: gpudoctor --help)\n"


def test_explain_dash_at_a_terminal_says_what_it_waits_for(tmp_path):
    """`gpudoctor explain -` typed at a prompt waited in silence for standard input. At a terminal (a real pty
    here) it now says so on stderr, reads the paste up to Ctrl-D and answers; from a pipe nothing is added."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "explain", "-"], stdin=slave,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
        os.close(slave)
        slave = None
        # the terminal's line discipline holds the line until its newline; Ctrl-D on an empty line is the end
        os.write(master, b"RuntimeError: CUDA error: out of memory\n\x04")
        out, err = p.communicate(timeout=120)
    finally:
        os.close(master)
        if slave is not None:
            os.close(slave)
    assert p.returncode == 0, err
    assert err.decode() == ("gpudoctor explain: reading the error text from this terminal: paste it, then press "
                            "Ctrl-D on an empty line\n")
    assert b"<stdin> (1 line)" in out and b"ROOT CAUSE" in out
    piped = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "-"], input=b"no error here\n",
                           capture_output=True, timeout=120, cwd=str(tmp_path))
    assert piped.returncode == 0 and piped.stderr == b""


def test_probe_interrupted_while_a_hung_node_holds_the_facts_round_reports_the_nodes(tmp_path):
    """`gpudoctor probe --hosts ...` with a node whose sshd hangs spends up to 15 s in its facts round; Ctrl-C or
    SIGTERM there printed only 'gpudoctor: interrupted' (README: the report of what was gathered comes first). Now
    the report names each node: the refused one with its error, the hung one 'not probed', exit 130 / 143.
    Real sshd nodes on 127.x (tests/sshcluster.py); the signal is sent once the hung node holds a connection."""
    import json
    import signal
    import subprocess
    import sys
    import time

    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        c.add("n1").add("shut", kind="closed").add("stuck", kind="hang").start()
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for h in c.hangs:
                del h.conns[:]
            p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "probe", "--json", "--mode", "tcp", "--hosts",
                                  c.hostfile(), "--ssh-config", c.ssh_config, "--budget", "100"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=c.base)
            try:
                deadline = time.time() + 60
                while not c.hangs[0].conns and p.poll() is None and time.time() < deadline:
                    time.sleep(0.05)
                assert c.hangs[0].conns, "the hung node was never connected to"
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            assert p.returncode == code, (out, err)
            assert err == "gpudoctor: interrupted (%s): the report covers what was measured before it\n" % sig.name
            doc = json.loads(out)
            kinds = {n["host"]: n["error_kind"] for n in doc["nodes"]}
            assert doc["interrupted"] == sig.name and doc["exit_code"] == code and doc["pairs"] == []
            assert kinds["stuck"] == "interrupted" and kinds["n1"] == "interrupted"
            assert kinds["shut"] in ("refused", "interrupted")  # refused at once, as a rule before the hang's accept
        # the text report: nodes not probed are no failure of theirs
        from gpudoctor.commands.probe import _interrupted_before_start
        from gpudoctor.node import Node
        from gpudoctor.probe import findings, report

        exc = KeyboardInterrupt()
        exc.partial_nodes = [Node(host="n1", facts={}), Node(host="shut", error="connection refused",
                                                             error_kind="refused"),
                             Node(host="stuck", error="interrupted", error_kind="interrupted")]

        class T(object):
            name = "ssh"

            def address(self, h):
                return h

        doc = _interrupted_before_start(["n1", "shut", "stuck"], T(), exc, {"budget": 100, "ports": [29500, 29599]},
                                        time.time())
        import io

        s = io.StringIO()
        report.render_text(doc, findings.evaluate(doc, {}), s)
        text = s.getvalue()
        assert "INTERRUPTED by SIGINT: what follows is what was measured before it; no worker had started yet" in text
        assert "  n1               not probed: the run was interrupted before the probe started a worker here" in text
        assert "  shut             FAILED refused: connection refused" in text
        assert "  stuck            not probed: the run was interrupted before the node answered" in text
        assert "probe.node.failed  the probe could not run on shut (refused)" in text and "on stuck" not in text
    finally:
        c.cleanup()


def _node_with_file(path, sha):
    import json

    doc = json.load(open(FACTS))
    doc["files"] = {"status": "ok", "files": {path: {"sha256": sha * 32, "size": 15}}}
    return doc


def test_a_same_file_under_home_is_copied_by_a_fix_the_shell_expands(tmp_path):
    """`check --same ~/train.py` (the README's cluster example): the fix read `pdcp -w gpu03 -- '~/train.py'
    '~/train.py'  (or rsync -a -- 'gpu01:~/train.py' '~/train.py')`. A quoted tilde is not expanded: pasted, pdcp
    looked for ./~/train.py and rsync wrote into a folder named '~'. Pasted into real bash now, with stubs that
    record their argv, both get $HOME/train.py; a name with a blank or a $(...) after ~/ stays one quoted word."""
    import shutil
    import subprocess

    import pytest

    from gpudoctor.config import Config
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import Node, run_checks

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for prog in ("pdcp", "rsync"):
        (stubs / prog).write_text("#!%s\nprintf '%%s\\n' \"$@\" > %s/%s.argv\n" % (bash, tmp_path, prog))
        (stubs / prog).chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    for name in ("train.py", "my run.py", "$(touch PWNED).py"):
        path = "~/" + name
        nodes = [Node(host="gpu0%d" % i, facts=_node_with_file(path, "bb" if i == 3 else "aa")) for i in (1, 2, 3, 4)]
        report = run_checks(nodes, [c for c in load_checks() if c.id == "files.parity"], Config())
        (fix,) = [f.fix for r in report.results for f in r.findings if f.fix]
        pdcp, _, rsync = fix.partition("copy it from a baseline node: ")[2].partition("  (or ")
        rsync = rsync.rstrip(")")
        for line in (pdcp, rsync):
            subprocess.run([bash, "--norc", "--noprofile", "-c", line], check=True, timeout=30, cwd=str(tmp_path),
                           env={"PATH": str(stubs), "HOME": str(home)})
        want = str(home / name)
        assert (tmp_path / "pdcp.argv").read_text().splitlines() == ["-w", "gpu03", "--", want, want], fix
        assert (tmp_path / "rsync.argv").read_text().splitlines() == ["-a", "--", "gpu01:" + path, want], fix
        assert not (tmp_path / "PWNED").exists()


def test_the_readmes_h200_example_is_what_check_prints_for_those_facts(capsys):
    """README.md shows `gpudoctor check --facts fixtures/nodes/h200x2-ubuntu2404-torch211.json`'s output: it had
    drifted from what the command prints (lines no longer wrapped at the report's 100 columns). The block is the
    command's output exactly; a change to the report or to the version tables it names shows here."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    at = readme.index("On a real 2x H200 node (its facts captured there")
    start = readme.index("```\n", at) + 4
    block = readme[start:readme.index("```", start)]
    rc, out, err = _run(capsys, "check", "--facts",
                        os.path.join(ROOT, "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json"))
    assert rc == 1 and err == ""
    assert out == block


def test_ssh_mesh_lists_the_pairs_under_each_reason_once():
    """`check --mesh` on four nodes whose names resolve nowhere printed twelve copies of "(ssh: Could not resolve
    hostname gpuNN: Name or service not known)", one per pair. Pairs failing alike are now listed under one reason
    (the peer's own name read as <peer>), and the count says of how many pairs."""
    import json

    from conftest import run_check

    def node(peers):
        doc = json.load(open(FACTS))
        doc["mesh"] = {"status": "ok", "peers": peers}
        return doc

    def unresolved(p):
        return {"ok": False, "error": "ssh: Could not resolve hostname %s: Name or service not known" % p}

    facts = {"gpu1": node({"gpu10": unresolved("gpu10"), "gpu2": unresolved("gpu2")}),
             "gpu2": node({"gpu1": unresolved("gpu1"), "gpu10": {"ok": True}}),
             "gpu10": node({"gpu1": {"ok": False, "error": "gpu1: Permission denied (publickey)."},
                            "gpu2": {"ok": True}})}
    res = run_check("ssh.mesh", facts)
    (f,) = res.findings
    assert f.message == ("4 of 6 node pairs cannot ssh non-interactively: gpu1->gpu10, gpu1->gpu2, gpu2->gpu1 "
                         "(ssh: Could not resolve hostname <peer>: Name or service not known); gpu10->gpu1 (<peer>: "
                         "Permission denied (publickey).)")
    assert sorted(f.hosts) == ["gpu1", "gpu10", "gpu2"]


def test_explain_on_an_empty_input_says_it_was_empty(tmp_path, capsys):
    """An empty log (`explain rank0.log` of a job that died before writing, or a pipe that carried nothing because
    the errors went to stderr) answered "Nothing in this text is an error line ...", as if a text had been read.
    The verdict stays no_error (exit 0); the text says the input was empty."""
    empty = tmp_path / "rank0.log"
    empty.write_text("")
    rc, out, _ = _run(capsys, "explain", str(empty))
    assert rc == 0 and "(0 lines)" in out and "NO ERROR FOUND" in out
    assert "The input is empty (0 bytes): there was nothing to judge." in " ".join(out.split())
    assert "Nothing in this text" not in out
    one = tmp_path / "one.log"
    one.write_text("\n")  # one blank line is a text, judged as before
    rc, out, _ = _run(capsys, "explain", str(one))
    assert rc == 0 and "Nothing in this text is an error line" in out and "is empty" not in out


def test_exports_help_offers_no_flag_it_refuses(capsys):
    """`gpudoctor exports --help` listed --same and --mesh, which exports refuses (userwalk21: no export comes from
    them); they are left out of its help, as watch leaves them out of its own, and still refused."""
    import pytest

    with pytest.raises(SystemExit) as exc:
        _run(capsys, "exports", "--help")
    out, _ = capsys.readouterr()
    assert exc.value.code == 0 and "--hosts FILE" in out and "--facts PATH" in out
    assert "--same" not in out and "--mesh" not in out
    rc, _, err = _run(capsys, "exports", "--mesh")
    assert rc == 2 and err.startswith("gpudoctor: error: --same and --mesh belong to gpudoctor check")


def test_an_unreachable_nodes_hint_names_the_ssh_config_given(tmp_path, capsys):
    """A node refused or unresolved was told to look at ~/.ssh/config, also when the run read --ssh-config FILE
    (the test bed's, the seeds' per-container configs): the hint names both."""
    import json
    import shutil

    d = tmp_path / "facts"
    d.mkdir()
    shutil.copy(FACTS, str(d / "gpu01.json"))
    for host, kind, err in (("gpu02", "refused", "connection refused"),
                            ("gpu03", "resolve", "gpu03: Name or service not known")):
        (d / ("%s.json" % host)).write_text(json.dumps({"schema": "gpudoctor.node/1", "host": host, "error": err,
                                                         "error_kind": kind}))
    rc, out, _ = _run(capsys, "check", "--facts", str(d), "--select", "shm")
    text = " ".join(out.split())
    assert rc == 1
    assert ("nothing listens on the SSH port: is sshd running there, and is the Port right (the ssh config: "
            "--ssh-config FILE, else ~/.ssh/config)?") in text
    assert "or the Host alias in the ssh config (--ssh-config FILE, else ~/.ssh/config)" in text


def test_rendezvous_a_master_name_that_does_not_resolve_gets_the_hosts_fix_and_the_master_its_verdict():
    """`check --hosts ... torchrun ... --rdzv-endpoint gpu01:29400` over the test bed, where gpu01 resolves on no node:
    launch.rendezvous told gpu[02-04] to open TCP 29400 on gpu01 (a firewall rule cannot make a name resolve), and
    the master gpu01 read 'skipped: the check reported neither a problem nor its evidence (a bug in the check)'. The
    unresolved peers now get the /etc/hosts fix; the master (its port is free) and the peers that connected pass."""
    import test_mutation_launch_nccl as t

    facts = t.rdv(gpu01=t.master(addr="gpu01"), gpu02=t.peer(ok=False, error="gpu01 does not resolve"),
                  gpu03=t.peer(ok=False, error="connection refused"), gpu04=t.peer())
    plan = t.P(launcher="torchrun", master_addr="gpu01", master_port=29500)
    res = t.run_check("launch.rendezvous", facts, t.cfg(t._plan(plan)))
    assert res.status == "fail"
    (f,) = res.findings
    assert f.hosts == ["gpu02", "gpu03"]
    assert f.fix.splitlines() == [
        "add '<master-ip> gpu01' to /etc/hosts on gpu02, or use the master's IP address",
        "open TCP 29500 on gpu01 (firewall-cmd --add-port=29500/tcp, or iptables -I INPUT -p tcp --dport 29500 -j "
        "ACCEPT), and make sure gpu01 is the address of an interface the other nodes route to"]
    assert res.outcomes["gpu01"] == ("pass", "port 29500 free on the master gpu01; reached from gpu04")
    assert res.outcomes["gpu04"][0] == "pass" and res.outcomes["gpu02"][0] == "fail"
    # only unresolved peers: no firewall advice
    facts = t.rdv(gpu01=t.master(addr="gpu01"), gpu02=t.peer(ok=False, error="gpu01 does not resolve"))
    (f,) = t.run_check("launch.rendezvous", facts, t.cfg(t._plan(plan))).findings
    assert f.fix == "add '<master-ip> gpu01' to /etc/hosts on gpu02, or use the master's IP address"


def test_launch_checks_give_every_node_a_verdict_beside_the_failing_ones():
    """The launch plan's cluster checks named only the nodes that failed; every other node read 'skipped: the check
    reported neither a problem nor its evidence (a bug in the check)' (19 cases of tests/test_mutation_launch_nccl.py
    recorded it). Each such node now gets what held there, or why it was not judged."""
    import test_mutation_launch_nccl as t

    from gpudoctor.runner import NO_EVIDENCE

    for cid, cases in t.TABLES.items():
        for name in cases:
            got = t.run_case(cid, name)
            assert not [h for h, o in got["outcomes"].items() if o[1] == NO_EVIDENCE], (cid, name, got["outcomes"])
    got = t.run_case("launch.master", "master does not resolve on one")
    assert got["outcomes"]["a"] == ["pass", "the master m0 resolves to 10.0.0.1 here"]
    got = t.run_case("launch.counts", "accelerate one node without gpu facts")
    assert got["outcomes"]["b"] == ["skipped", "no GPU facts from this node: its processes not judged against its GPUs"]
    got = t.run_case("launch.rendezvous", "port in use, no bind record")
    assert got["outcomes"]["a"][1] == "port 22 on the master a is not free: the bind failed (no reason recorded)"
    assert got["outcomes"]["b"][0] == "skipped"


def test_plan_of_torch_distributed_launch_says_it_passes_local_rank(tmp_path, capsys):
    """The seeds' Aliyun train.sh runs `python -m torch.distributed.launch ... benchmark.py`, and its author had to
    edit benchmark.py's --local_rank to --local-rank: torch >= 2.0's launcher appends --local-rank=<n> to the
    script's arguments (torch/distributed/run.py config_from_args) unless --use-env. The plan now says so."""
    script = tmp_path / "train.sh"
    script.write_text("#! /bin/bash\nNNODES=$1\nNODE_RANK=$2\n"
                      "DISTRIBUTED_ARGS=\"--nproc_per_node 8 --nnodes $NNODES --node_rank $NODE_RANK "
                      "--master_addr 172.20.20.148 --master_port 6000\"\n"
                      "python -m torch.distributed.launch $DISTRIBUTED_ARGS benchmark.py --world-size=16\n")
    rc, out, _ = _run(capsys, "plan", str(script), "2", "0")
    assert rc == 0
    assert ("note           python -m torch.distributed.launch passes --local-rank=<n> to benchmark.py (torch >= "
            "2.0; --local_rank=<n> before)") in out
    rc, out, _ = _run(capsys, "plan", "python", "-m", "torch.distributed.launch", "--use-env", "--nproc_per_node",
                      "2", "t.py")
    assert rc == 0 and "--local-rank=<n>" not in out
    rc, out, _ = _run(capsys, "plan", "torchrun", "--nproc-per-node", "2", "t.py")
    assert rc == 0 and "--local-rank=<n>" not in out


def test_one_more_value_is_one_other_value():
    """The README's cluster example read '(+1 other values)' after the first three nodes' evidence."""
    from gpudoctor.runner import _join_groups

    groups = [("v%d" % i, ["n%d" % i]) for i in range(1, 5)]
    assert _join_groups(groups) == "n1: v1; n2: v2; n3: v3; (+1 other value)"
    assert _join_groups(groups + [("v5", ["n5"])]).endswith("; (+2 other values)")


def test_a_hostfile_saved_with_a_byte_order_mark_is_told_so(tmp_path, capsys):
    """A hostfile saved by Notepad starts with a UTF-8 byte order mark. It was refused as "hf:1: '' (cut at a
    character no host name has) is not a host name", which names nothing the user can see. DeepSpeed, pdsh and mpirun
    read the mark as part of the first host's name, so it stays refused, with what it is and the line that removes it
    (run here on a copy: the file then reads as two hosts)."""
    import shutil
    import subprocess

    import pytest

    hf = tmp_path / "hostfile"
    hf.write_bytes(b"\xef\xbb\xbfgpu1 slots=8\r\ngpu2 slots=8\r\n")
    want = ("gpudoctor: error: hostfile %s starts with a UTF-8 byte order mark (an editor such as Notepad writes "
            "one): the launchers read it as part of the first host name; remove it: sed -i '1s/^\\xEF\\xBB\\xBF//' %s\n"
            % (hf, hf))
    for argv in (("check", "--hosts", str(hf)), ("plan", "--launch", "deepspeed --hostfile %s train.py" % hf),
                 ("plan", "--launch", "mpirun --hostfile %s -np 2 python t.py" % hf),
                 ("plan", "--hosts", str(hf), "torchrun", "--nnodes", "2", "--nproc-per-node", "8", "t.py")):
        rc, out, err = _run(capsys, *argv)
        assert rc == 2 and out == "" and err == want, argv
    if shutil.which("sed") is None or shutil.which("bash") is None:
        pytest.skip("no sed/bash to run the fix")
    fix = want.rsplit("remove it: ", 1)[1].strip()
    subprocess.run(["bash", "-c", fix], check=True, timeout=30)
    assert hf.read_bytes() == b"gpu1 slots=8\r\ngpu2 slots=8\r\n"
    rc, out, err = _run(capsys, "plan", "--hosts", str(hf), "torchrun", "--nnodes", "2", "--nproc-per-node", "8", "t.py")
    assert rc == 0 and "gpu1" in out and "gpu2" in out


def test_plan_of_a_script_with_windows_line_endings_says_so(tmp_path, capsys):
    """A launch script saved by a Windows editor (CRLF): bash keeps each \\r in the line's last word, and plan read it
    so (faithfully) and refused `--master_port\\r` with no word about why. The plan, and the refusal's line on
    stderr, now name the line endings and the command that converts them; an LF script has no such note."""
    import json

    body = ("#!/bin/bash\nNNODES=$1\nNODE_RANK=$2\npython -m torch.distributed.launch --nproc_per_node 8 "
            "--nnodes $NNODES --node_rank $NODE_RANK --master_addr 10.0.0.1 --master_port\n 6000 train.py\n")
    script = tmp_path / "train.sh"
    script.write_bytes(body.replace("\n", "\r\n").encode())
    rc, out, err = _run(capsys, "plan", str(script), "2", "0")
    note = ("the script has Windows line endings (CRLF): bash reads each line's \\r as part of its last word "
            "('--nnodes 2\\r'); convert it: sed -i 's/\\r$//' %s (or dos2unix)" % script)
    assert rc == 2 and "note           " + note in out
    assert err.startswith("gpudoctor: error: line 4: ") and err.endswith(" (%s)\n" % note)
    rc, out, _ = _run(capsys, "plan", "--json", str(script), "2", "0")
    assert note in json.loads(out)["notes"]
    script.write_text(body.replace("--master_port\n 6000", "--master_port 6000"))
    rc, out, err = _run(capsys, "plan", str(script), "2", "0")
    assert rc == 0 and "Windows line endings" not in out + err


def test_deepspeed_without_a_hostfile_refuses_an_include_of_another_host(capsys):
    """docs/launch.md's `deepspeed --hostfile hostfile --include jeff` example, run where there is no hostfile: the
    plan ran it on this machine ('localhost slots ? procs ?'). DeepSpeed's runner.main makes the pool
    {'localhost': N} and parse_resource_filter refuses any other host named ("Hostname 'jeff' not found in
    hostfile"), and --include with --exclude, whatever N is (deepspeedai/DeepSpeed deepspeed/launcher/runner.py)."""
    rc, out, err = _run(capsys, "plan", "--launch", "deepspeed --include jeff train.py")
    assert rc == 2 and err == "gpudoctor: error: deepspeed would refuse this: Hostname 'jeff' not found in hostfile\n"
    rc, _, err = _run(capsys, "plan", "--launch", "deepspeed --exclude jeff:1 train.py")
    assert rc == 2 and "Hostname 'jeff' not found in hostfile" in err
    rc, _, err = _run(capsys, "plan", "--launch", "deepspeed --include localhost --exclude localhost:1 train.py")
    assert rc == 2 and "include_str and exclude_str are mutually exclusive." in err
    rc, out, _ = _run(capsys, "plan", "--launch", "deepspeed --include localhost:0,1 train.py")
    assert rc == 0 and "localhost            slots ?      procs 2" in out


def test_a_failing_scontrol_is_said_on_one_line_ending_with_its_cause(tmp_path, monkeypatch):
    """`gpudoctor slurm-health` where scontrol has no configuration: scontrol prints four lines, its cause last, and
    the hook's message carried them as four lines of the log. They are joined on one line; a long output keeps its
    end (a stub scontrol that prints as the real one does, then exits 1)."""
    import pytest

    from gpudoctor import slurm

    stub = tmp_path / "scontrol"
    stub.write_text("#!/bin/sh\necho 'scontrol: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host' >&2\n"
                    "echo 'scontrol: error: fetch_config: DNS SRV lookup failed' >&2\n"
                    "[ -n \"$LONG\" ] && i=0 && while [ $i -lt 40 ]; do echo \"scontrol: error: line $i\" >&2; "
                    "i=$((i+1)); done\n"
                    "echo 'scontrol: fatal: Could not establish a configuration source' >&2\nexit 1\n")
    stub.chmod(0o755)
    monkeypatch.setenv("GPUDOCTOR_SCONTROL", str(stub))
    with pytest.raises(slurm.ScontrolError) as exc:
        slurm.scontrol(["show", "node", "-o", "n1"])
    assert str(exc.value) == ("`scontrol show node -o n1` failed (rc 1): scontrol: error: resolve_ctls_from_dns_srv: "
                              "res_nsearch error: Unknown host | scontrol: error: fetch_config: DNS SRV lookup failed | "
                              "scontrol: fatal: Could not establish a configuration source")
    monkeypatch.setenv("LONG", "1")
    with pytest.raises(slurm.ScontrolError) as exc:
        slurm.scontrol(["show", "node", "-o", "n1"])
    text = str(exc.value)
    assert "\n" not in text and text.endswith("| scontrol: fatal: Could not establish a configuration source")
    assert "failed (rc 1): ..." in text


def test_probe_calls_an_sshd_that_hangs_a_timeout_and_cleans_up_nothing_there():
    """A node whose sshd accepts and never speaks (tests/sshcluster.py's 'hang'): probe said 'hang: the worker did
    not answer (a hung interpreter or node)', told the user to log in and run python3 there, and then failed
    probe.cleanup ('probe processes may be left on ...: SSHException: No existing session'), though the handshake
    never finished and nothing ever ran there. It is now 'timeout' (as check says), with no cleanup owed."""
    import json
    import subprocess
    import sys

    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        c.add("n1").add("n2").add("stuck", kind="hang").start()
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "probe", "--json", "--mode", "tcp", "--hosts",
                            c.hostfile(), "--ssh-config", c.ssh_config, "--budget", "20", "--tcp-seconds", "0.1",
                            "--ports", "45200-45240"], capture_output=True, text=True, timeout=120, cwd=c.base)
        doc = json.loads(p.stdout)
        node = {n["host"]: n for n in doc["nodes"]}
        assert p.returncode == 1, p.stderr
        assert node["stuck"]["error_kind"] == "timeout", node["stuck"]
        assert node["stuck"]["error"].startswith("the SSH connection did not complete within")
        assert node["n1"]["reachable"] and node["n2"]["reachable"]
        assert "stuck" not in doc["cleanup"] and sorted(doc["cleanup"]) == ["n1", "n2"]
        checks = [f["check"] for f in doc["findings"]]
        assert "probe.cleanup" not in checks and checks.count("probe.node.failed") == 1
        (f,) = [f for f in doc["findings"] if f["check"] == "probe.node.failed"]
        assert "--budget" in f["fix"] and "--timeout" not in f["fix"]
    finally:
        c.cleanup()


def test_diff_names_another_nodes_change_behind_a_cluster_checks_new_verdict(tmp_path, capsys):
    """`gpudoctor diff DIR1 DIR2` where only n2's NCCL_SOCKET_IFNAME changed: env.parity's message changed on n3
    too (it names every odd node), and the report said 'nothing this check reads changed' there. A cluster check
    judges each node against the others: the change is named with the node it was on."""
    import json
    import shutil

    before, after = tmp_path / "before", tmp_path / "after"
    for d in (before, after):
        d.mkdir()
    for h, v in (("n1", "eth0"), ("n2", "eth0"), ("n3", "docker0"), ("n4", "eth0")):
        doc = json.load(open(FACTS))
        doc["node"] = h
        doc.setdefault("env", {}).setdefault("values", {})["NCCL_SOCKET_IFNAME"] = v
        json.dump(doc, open(str(before / (h + ".json")), "w"))
        if h == "n2":
            doc["env"]["values"]["NCCL_SOCKET_IFNAME"] = "ib0"
        json.dump(doc, open(str(after / (h + ".json")), "w"))
    rc, out, _ = _run(capsys, "diff", str(before), str(after), "--select", "env.parity")
    assert rc == 1
    lines = out.splitlines()
    at = [i for i, ln in enumerate(lines) if ln.startswith("FAIL env.parity") and "[n3]" in ln]
    assert at and lines[at[0] + 1].strip() == "changed: on n2: NCCL_SOCKET_IFNAME eth0 -> ib0", out
    assert "nothing this check reads changed" not in out
    at = [i for i, ln in enumerate(lines) if ln.startswith("FAIL env.parity") and "[n2]" in ln]
    assert at and lines[at[0] + 1].strip() == "changed: NCCL_SOCKET_IFNAME eth0 -> ib0"


def test_watch_of_saved_facts_without_samples_says_so(tmp_path, capsys):
    """`gpudoctor watch --facts DIR` on what `gpudoctor facts` saved (no samples): every diagnosis read 'n/a: no
    sampling asked for (gpudoctor watch samples a running job)', as if samples had been read. It is an input
    error naming what to save instead; saved samples (watch --save) are still diagnosed."""
    rc, out, err = _run(capsys, "watch", "--facts", FACTS)
    assert rc == 2 and out == ""
    assert err == ("gpudoctor: error: %s holds no watch samples (what `gpudoctor facts` saves has none): save them "
                   "with gpudoctor watch --save DIR, then gpudoctor watch --facts DIR\n" % FACTS)
    rc, out, err = _run(capsys, "watch", "--seconds", "0.5", "--save", str(tmp_path / "s"))
    assert rc == 0, err
    rc, out, err = _run(capsys, "watch", "--facts", str(tmp_path / "s"))
    assert rc == 0 and "Summary:" in out and "no sampling asked for" not in out


def test_check_of_watch_samples_says_they_are_not_facts(tmp_path, capsys):
    """`gpudoctor check --facts DIR` on what `watch --save DIR` wrote: every check read 'skipped: ... not collected'
    and the run exited 0. It is an input error that names the command that reads them."""
    d = str(tmp_path / "s")
    rc, _, err = _run(capsys, "watch", "--seconds", "0.5", "--save", d)
    assert rc == 0, err
    for cmd in ("check", "exports"):
        rc, out, err = _run(capsys, cmd, "--facts", d)
        assert rc == 2 and out == ""
        assert err == ("gpudoctor: error: %s holds watch samples (gpudoctor watch --save), not a node's facts: read "
                       "them with gpudoctor watch --facts %s; gpudoctor facts -o DIR saves what check reads\n" % (d, d))
    rc, out, _ = _run(capsys, "check", "--facts", FACTS)  # a node's facts: checked as before
    assert rc in (0, 1) and "Summary:" in out


def test_a_bare_accelerate_config_with_no_default_file_says_where_it_looked(tmp_path, capsys, monkeypatch):
    """`plan --accelerate-config` (no FILE) where accelerate's default config does not exist said "accelerate would
    refuse this: The passed configuration file `.../default_config.yaml` does not exist", but nothing was passed
    and accelerate launches on its defaults there. It now says which default place was read; with HF_HOME set
    the file there is read, as accelerate reads it."""
    import shutil

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    want = ("gpudoctor: error: --accelerate-config: no accelerate config at its default place %s (`accelerate "
            "config` writes it there; $HF_HOME moves it): give the file, --accelerate-config FILE\n"
            % (tmp_path / "hf" / "accelerate" / "default_config.yaml"))
    for cmd in ("plan", "check"):
        rc, out, err = _run(capsys, cmd, "--accelerate-config")
        assert rc == 2 and out == "" and err == want, cmd
    (tmp_path / "hf" / "accelerate").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "fixtures", "launch", "upstream", "accelerate", "examples",
                             "config_yaml_templates", "multi_node.yaml"),
                str(tmp_path / "hf" / "accelerate" / "default_config.yaml"))
    rc, out, _ = _run(capsys, "plan", "--accelerate-config")
    assert rc == 0 and "world size     8" in out


def test_a_log_stopped_before_its_first_byte_is_not_called_empty(tmp_path, capsys):
    """82eeb02's 'the input is empty' must not be said of a log the deadline stopped before reading any of it
    (`explain --timeout 0.001 big.log`: 0 bytes read, STOPPED EARLY): that log is not empty."""
    log = tmp_path / "big.log"
    log.write_text("step 1 loss 2.0\n" * 1000)
    rc, out, _ = _run(capsys, "explain", "--timeout", "0.000001", str(log))
    assert "STOPPED EARLY" in out and rc == 1
    assert "is empty" not in out


def test_a_hostfile_of_localhost_alone_is_checked_here(tmp_path, capsys):
    """DeepSpeed's single-node hostfile is `localhost slots=8`, and DeepSpeed runs it on this machine without ssh
    (runner.py main: one host, no multi-node exec). `check --hosts` of it ssh'd to localhost and reported the node
    'could not be checked (refused)' where no sshd listens. It is checked here, as `check` alone is, and said so;
    --via ssh still goes over ssh."""
    import json

    hf = tmp_path / "hostfile"
    hf.write_text("localhost slots=8\n")
    rc, out, err = _run(capsys, "check", "--hosts", str(hf), "--select", "shm", "--json")
    doc = json.loads(out)
    assert err == "gpudoctor: localhost names only this machine: checked here, without ssh (as DeepSpeed runs it)\n"
    assert [n["reachable"] for n in doc["nodes"]] == [True] and doc["summary"]["nodes_unreachable"] == 0
    from gpudoctor.commands.common import this_machine_only
    from gpudoctor.inventory import Host

    assert this_machine_only([Host(name="localhost")], "ssh") == [Host(name="localhost")]
    assert len(this_machine_only([Host(name="localhost"), Host(name="gpu2")])) == 2
    assert this_machine_only([Host(name="localhost", source="$SLURM_JOB_NODELIST")]) != []


def test_probe_of_a_localhost_hostfile_runs_here(tmp_path):
    """As check (7d831c6): `probe --hosts` of DeepSpeed's `localhost slots=8` probes this machine without ssh."""
    import json
    import subprocess
    import sys

    hf = tmp_path / "hostfile"
    hf.write_text("localhost slots=8\n")
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "probe", "--json", "--hosts", str(hf), "--budget", "30"],
                       capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    doc = json.loads(p.stdout)
    assert p.stderr == "gpudoctor: localhost names only this machine: probed here, without ssh (as DeepSpeed runs it)\n"
    assert doc["transport"] != "ssh" and [n["reachable"] for n in doc["nodes"]] == [True], doc["nodes"]


def test_facts_saved_for_one_node_of_a_hostfile_says_one_node_and_a_folder(tmp_path, capsys):
    """`facts --hosts hostfile -o one.json` with one node said 'saved facts of 1 nodes to one.json': with --hosts, -o
    is a folder (one file per node), which the name did not say."""
    hf = tmp_path / "hostfile"
    hf.write_text("localhost slots=8\n")
    out_dir = tmp_path / "one.json"
    rc, _, err = _run(capsys, "facts", "--hosts", str(hf), "-o", str(out_dir))
    assert rc == 0, err
    assert err.splitlines()[-1] == "gpudoctor: saved facts of 1 node to %s/ (one file per node; 0 unreachable)" % out_dir
    assert out_dir.is_dir() and len(list(out_dir.iterdir())) == 1


def test_a_history_note_of_a_cluster_check_says_another_node_can_move_it():
    """`check --history`: a cluster check (env.parity, hosts.resolution, ...) that fails on a node where nothing it
    reads changed said only 'nothing this check reads changed since the last passing run', as if the verdict had no
    cause; it compares the nodes, and the note now says so (diff names the other node's change, fcb55c5)."""
    from gpudoctor import history

    rec = {"at": "2026-11-27T10:00:00Z"}
    text = history._note(None, "n3", rec, [], [], ("pass", "same"), "last-good", "env.parity", True)
    assert text.startswith("history: nothing this check reads changed on n3 since the last passing run (")
    assert text.endswith("; it compares the nodes, so another node's change can move its verdict here")
    one = history._note(None, "n3", rec, [], [], ("pass", "same"), "last-good", "shm.size")
    assert one.startswith("history: nothing this check reads changed since the last passing run (")
    assert "another node" not in one


def test_probe_params_without_a_measurement_says_why_there_is_no_estimate(capsys):
    """docs/probe.md's `probe --local --params 7e9 --grad-dtype bf16` on a machine without GPUs printed nothing about
    the estimate it was asked for. The text and the JSON (`step_skipped`) now say why there is none."""
    import json

    rc, out, _ = _run(capsys, "probe", "--local", "--params", "7e9", "--grad-dtype", "bf16", "--mode", "tcp")
    assert rc == 0
    assert "all-reduce time per step: not estimated: no NCCL all_reduce was measured" in out
    rc, out, _ = _run(capsys, "probe", "--local", "--params", "7e9", "--mode", "tcp", "--json")
    doc = json.loads(out)
    assert doc["step_skipped"].startswith("no NCCL all_reduce was measured") and "step" not in doc
    rc, out, _ = _run(capsys, "probe", "--local", "--mode", "tcp")
    assert "not estimated" not in out  # not asked for: not said
