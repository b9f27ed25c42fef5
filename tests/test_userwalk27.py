"""userwalk27: what a new user tripped on in a fresh clone (session 27), through the CLI."""

import json


def test_plan_loop_passes_keep_their_line(gpudoctor_cli, tmp_path):
    # A launch in a `for` loop: bash runs the same script line once per pass. The plan listed the first pass at
    # line 4 and every later pass at the line of the `done` that replays it (5), where the user finds no launch;
    # in a `for` in a `for` the passes read 4, 5, 6, 6. The continue's note lost its line on later passes too.
    script = tmp_path / "sweep.sh"
    script.write_text("#!/bin/bash\n"
                      "for depth in 12 16; do\n"
                      "  for lr in 1e-3 3e-4; do\n"
                      "    if [ -f done_${depth}_${lr} ]; then continue; fi\n"
                      "    torchrun --nproc_per_node=8 train.py --depth=$depth --lr=$lr\n"
                      "  done\n"
                      "done\n")
    rc, out, err = gpudoctor_cli("plan", "--json", str(script))
    assert rc == 0, err
    doc = json.loads(out)
    runs = [(la["line"], la["argv"][-2:]) for la in doc["launches"]]
    assert runs == [(5, ["--depth=12", "--lr=1e-3"]), (5, ["--depth=12", "--lr=3e-4"]),
                    (5, ["--depth=16", "--lr=1e-3"]), (5, ["--depth=16", "--lr=3e-4"])], runs
    assert doc["notes"] == ["line 5: runs only where the loop's `continue` at line 4 does not run (its test is not "
                            "known here)"], doc["notes"]
    rc, out, err = gpudoctor_cli("plan", str(script))
    heads = [ln.split()[:2] for ln in out.splitlines() if ln.startswith("line ")]
    assert heads == [["line", "5"]] * 4, out
    # a function called in the loop: its launch is on the call's line, as before
    script.write_text("#!/bin/bash\n"
                      "go() {\n"
                      "  torchrun --nproc_per_node=2 train.py --lr=$1\n"
                      "}\n"
                      "for lr in 1e-3 3e-4; do\n"
                      "  echo $lr\n"
                      "  go $lr\n"
                      "done\n")
    rc, out, err = gpudoctor_cli("plan", "--json", str(script))
    assert rc == 0, err
    assert [(la["line"], la["argv"][-1]) for la in json.loads(out)["launches"]] == [(7, "--lr=1e-3"),
                                                                                   (7, "--lr=3e-4")], out


def _as_nobody(args):
    """The CLI run as user nobody (uid 65534) by the system's python3, the repository on its path: root passes every
    permission check, so what a non-root user reads is only seen as one."""
    import os
    import subprocess

    import pytest

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root (to run as nobody) and /usr/bin/python3")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": root, "HOME": "/tmp", "LANG": "C.UTF-8"}

    def run(argv):
        return subprocess.run(["/usr/bin/python3"] + argv, capture_output=True, text=True, env=env, cwd="/tmp",
                              timeout=120, start_new_session=True,  # no group signal of a neighbour's test
                              preexec_fn=lambda: (os.setgid(65534), os.setuid(65534)))

    if run(["-c", "import gpudoctor.cli"]).returncode != 0:
        pytest.skip("user nobody cannot import gpudoctor from %s with /usr/bin/python3" % root)
    p = run(["-m", "gpudoctor"] + args)
    return p.returncode, p.stdout, p.stderr


def test_a_file_behind_a_folder_this_user_cannot_enter_is_not_missing():
    # A non-root user's `gpudoctor explain /root/job.log` (and plan, check --facts, diff, --accelerate-config,
    # --ssh-config) said "no such file or directory": os.path.exists is False when lstat fails with EACCES. The user
    # looked for a typo; the file was there, behind a folder they cannot enter.
    import os
    import shutil
    import tempfile

    top = tempfile.mkdtemp(prefix="uw27-", dir="/tmp")
    try:
        os.chmod(top, 0o755)
        locked = os.path.join(top, "locked")
        os.mkdir(locked, 0o700)
        for name, text in (("job.log", "RuntimeError: CUDA error: out of memory\n"), ("run.sh", "torchrun train.py\n"),
                           ("node.json", "{}"), ("acc.yaml", "num_processes: 2\n")):
            with open(os.path.join(locked, name), "w") as f:
                f.write(text)
        why = "permission denied (this user cannot enter the folder '%s')" % locked
        for args in (["explain", locked + "/job.log"], ["explain", "--file", locked + "/job.log"],
                     ["plan", locked + "/run.sh"], ["check", "--facts", locked + "/node.json"],
                     ["diff", locked + "/node.json", locked + "/node.json"],
                     ["plan", "--accelerate-config", locked + "/acc.yaml"]):
            rc, out, err = _as_nobody(args)
            assert rc == 2 and why in err and "no such file" not in err and len(err.splitlines()) == 1, (args, err)
        # a file that is not there, in a folder the user can read, is still "no such file or directory"
        rc, out, err = _as_nobody(["explain", top + "/nothere.log"])
        assert rc == 2 and "no such file or directory" in err, err
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_exports_interrupted_while_a_node_hangs_prints_the_exports_of_the_nodes_gathered(tmp_path):
    # `timeout 60 gpudoctor exports --hosts FILE` with a node whose sshd hangs: SIGTERM killed exports with nothing on
    # stdout and no word on stderr; Ctrl-C printed 'gpudoctor: interrupted' alone. check and facts give what they
    # gathered (README: Ctrl-C prints the report for the nodes gathered so far, exit 130; SIGTERM 143); so does
    # exports now. Real sshd nodes on 127.x (tests/sshcluster.py); the signal is sent once n1's session has ended
    # (its sshd's child came and went) and the hung node holds a connection.
    import signal
    import subprocess
    import sys
    import time

    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")

    def children(pid):
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
        return out.split()

    c = sshcluster.Cluster()
    try:
        c.add("n1").add("stuck", kind="hang").start()
        sshd = c.nodes["n1"]["proc"].pid
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for h in c.hangs:
                del h.conns[:]
            p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "exports", "--hosts", c.hostfile(),
                                  "--ssh-config", c.ssh_config, "--timeout", "100"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=c.base,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            try:
                deadline, seen = time.time() + 60, False
                while p.poll() is None and time.time() < deadline:
                    now = children(sshd)
                    seen = seen or bool(now)
                    if seen and not now and c.hangs[0].conns:
                        break
                    time.sleep(0.05)
                assert seen and c.hangs[0].conns and p.poll() is None, "n1 was not gathered, or stuck not reached"
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            assert p.returncode == code, (p.returncode, out, err)
            assert err == "gpudoctor: interrupted%s: 1 of 2 nodes gathered before it; 1 marked interrupted; the " \
                          "exports cover the nodes gathered\n" % (" (SIGTERM)" if code == 143 else ""), err
            assert out.startswith("# gpudoctor exports: computed from the nodes' facts") and "on the node (n1)" in out, out
    finally:
        c.cleanup()


def test_explain_with_a_folder_of_facts_says_it_read_every_node(cli, tmp_path):
    # `gpudoctor facts --hosts H -o DIR` then `explain --facts DIR`: the NIC is computed for every node, GPU questions
    # from the first (docs/explain.md). The header read "fixes computed from the facts of gpu01 (DIR)", as if one node
    # of the folder had been read.
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, "fixtures", "nodes", "devbox-debian12-nogpu.json")
    folder = tmp_path / "facts"
    folder.mkdir()
    import json

    for name in ("gpu01", "gpu02", "gpu03"):
        doc = json.load(open(src))
        doc["node"] = name
        (folder / (name + ".json")).write_text(json.dumps(doc))
    rc, out, err = cli("explain", "--facts", str(folder), "NCCL WARN Bootstrap : no socket interface found")
    assert rc == 0, err
    words = " ".join(out.split("ROOT CAUSE")[0].split())  # (the line wraps)
    assert "fixes computed from the facts of 3 nodes (%s): the network of each, GPUs from the first, gpu0" % folder \
        in words, out
    rc, out, err = cli("explain", "--facts", str(folder / "gpu02.json"), "NCCL WARN Bootstrap : no socket interface "
                                                                         "found")
    words = " ".join(out.split("ROOT CAUSE")[0].split())
    assert rc == 0 and "fixes computed from the facts of gpu02 (%s)" % (folder / "gpu02.json") in words, out


def test_diff_leaves_out_tmps_free_space_as_it_does_shms(cli, tmp_path):
    # tmp.writable's collector section (cad77686) records /tmp's free bytes and inodes; every `gpudoctor diff` of two
    # runs then listed 'tmp.free_bytes 39.2 GiB -> 39.2 GiB' and 'tmp.free_inodes 15029210 -> 15029191' on every node
    # (walked over 4 real sshd nodes, history then facts -o), a live disk between two reads, as /dev/shm's free
    # bytes, which diff leaves out. A change of the folder itself (read-only now) is still one.
    import json
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc = json.load(open(os.path.join(root, "fixtures", "nodes", "devbox-debian12-nogpu.json")))
    tmp = {"status": "ok", "path": "/tmp", "source": "default", "exists": True, "writable": True, "read_only": False,
           "total_bytes": 85 << 30, "free_bytes": 42118676480, "free_inodes": 15029210, "mountpoint": "/",
           "fstype": "ext4"}
    before, after, later = tmp_path / "before.json", tmp_path / "after.json", tmp_path / "later.json"
    before.write_text(json.dumps(dict(doc, tmp=tmp)))
    after.write_text(json.dumps(dict(doc, tmp=dict(tmp, free_bytes=42118270976, free_inodes=15029191))))
    later.write_text(json.dumps(dict(doc, tmp=dict(tmp, free_bytes=42118270976, read_only=True))))
    rc, out, err = cli("diff", str(before), str(after))
    assert rc == 0 and "tmp.free" not in out and "Summary: 0 changes on 1 node" in out, out + err
    rc, out, err = cli("diff", str(before), str(later))
    assert "tmp.read_only" in out and "tmp.free" not in out, out + err


def test_diff_calls_a_node_unreachable_on_its_only_side_not_new(cli, tmp_path):
    # `gpudoctor facts --hosts H -o now/` saves an unreachable node's error (gpu05 refused); `diff --since last-good
    # now/` (or diff DIR1 DIR2) listed it 'only after (new): gpu05', as if a node had been added. It was down: not
    # compared, as a node unreachable in one of two runs is.
    import json
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc = json.load(open(os.path.join(root, "fixtures", "nodes", "devbox-debian12-nogpu.json")))
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    (before / "gpu01.json").write_text(json.dumps(dict(doc, node="gpu01")))
    (after / "gpu01.json").write_text(json.dumps(dict(doc, node="gpu01")))
    (after / "gpu05.json").write_text(json.dumps({"error": "connection refused", "error_kind": "refused",
                                                  "host": "gpu05", "schema": "gpudoctor.node/1"}))
    (after / "gpu06.json").write_text(json.dumps(dict(doc, node="gpu06")))
    rc, out, err = cli("diff", str(before), str(after))
    assert rc == 0, err
    assert "not compared (unreachable in a run): gpu05" in out and "only after (new): gpu06" in out, out
    rc, out, err = cli("diff", "--json", str(before), str(after))
    d = json.loads(out)
    assert d["nodes"]["unreachable"] == ["gpu05"] and d["nodes"]["added"] == ["gpu06"], d
