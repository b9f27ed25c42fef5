"""userwalk29: what a new user tripped on in a fresh clone (session 29), through the CLI."""

import json
import os
import subprocess
import sys


def _cli(args, tmp_path, env=None, drop=()):
    """The real CLI in a subprocess, with the variables named in ``drop`` (prefixes) unset."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, env=e,
                       cwd=str(tmp_path), timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_diff_shows_an_empty_value_as_an_empty_word(tmp_path):
    # A variable set to the empty string (NCCL_IB_HCA= : set, which NCCL reads otherwise than unset) and then
    # unset read 'NCCL_IB_HCA  -> (absent)' in diff: nothing between the name and the arrow. Real facts of this
    # machine, gathered twice by the CLI.
    for name, env in (("before.json", {"NCCL_IB_HCA": ""}), ("after.json", {})):
        rc, out, err = _cli(["facts", "-o", name], tmp_path, env=env, drop=("NCCL_", "GPUDOCTOR_"))
        assert rc in (0, 1), err
    assert json.loads((tmp_path / "before.json").read_text())["env"]["values"]["NCCL_IB_HCA"] == ""
    rc, out, err = _cli(["diff", "before.json", "after.json"], tmp_path, drop=("NCCL_",))
    assert rc in (0, 1), err
    lines = [l.strip() for l in out.splitlines() if "NCCL_IB_HCA" in l]
    assert lines and all(l.endswith("NCCL_IB_HCA '' -> (absent)") for l in lines), out
    rc, out, err = _cli(["diff", "after.json", "before.json", "--json"], tmp_path, drop=("NCCL_",))
    doc = json.loads(out)
    assert "NCCL_IB_HCA (absent) -> ''" in json.dumps(doc), out


def test_interrupted_line_does_not_count_a_refused_node_as_kept(tmp_path):
    # Ctrl-C during `watch --hosts` over a bed with one node refused: the report said '4 nodes, 1 unreachable' and
    # sampled 3, but stderr read 'samples kept for 4 of 4 nodes ...; 0 with no samples' (the refused node counted as
    # kept). check's line said '1 of 4 nodes gathered before it' where that one was the refused node. Real sshd.
    import pytest
    import sshcluster
    from test_userwalk24 import _catches_sigint, _collector_pids, _interrupted_watch, _sleeping, _wait_for

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        c.add("n1").add("n2", kind="closed").start()
        hf = c.hostfile()
        sshds = set(p.pid for p in c.procs)

        def sampling(pid):
            pids = _collector_pids(sshds)
            return len(pids) >= 1 and all(_catches_sigint(p) and _sleeping(p) for p in pids)

        rc, out, err, took = _interrupted_watch(["--hosts", hf, "--ssh-config", c.ssh_config, "--seconds", "600",
                                                 "--json"], sampling, str(tmp_path), times=2)
        assert rc == 130, (out, err)
        doc = json.loads(out)
        assert sorted(doc["samples"]) == ["n1"], (doc["samples"], err)
        assert {n["host"]: n["error_kind"] for n in doc["nodes"]}["n2"] == "refused", doc["nodes"]
        assert err.strip() == ("gpudoctor: interrupted: samples kept for 1 of 2 nodes (1 window cut short: the rates "
                               "are over the time sampled); 1 with no samples (0 interrupted, 1 unreachable)"), err
        _wait_for("the nodes' collectors to end", lambda: not _collector_pids(sshds), 30)
    finally:
        c.cleanup()


def test_check_interrupted_line_names_the_unreachable_apart(tmp_path):
    # The same for check: Ctrl-C while a node hangs, beside a node that refused: stderr said '1 of 3 nodes gathered
    # before it; 1 marked interrupted', the refused node counted as gathered. Real sshd, a refused port and a node
    # that accepts and never speaks; the signal is sent once the hanging node is connected to.
    import signal
    import time

    import pytest
    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        c.add("n1").add("n2", kind="closed").add("stuck", kind="hang").start()
        for _ in range(3):  # until the refused node has been answered before the signal
            for h in c.hangs:
                del h.conns[:]
            p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "check", "--hosts", c.hostfile(), "--ssh-config",
                                  c.ssh_config, "--timeout", "100", "--no-history", "--json"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
            try:
                deadline = time.monotonic() + 60
                while p.poll() is None and not c.hangs[0].conns and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert p.poll() is None and c.hangs[0].conns, "stuck was not reached"
                p.send_signal(signal.SIGINT)
                out, err = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            assert p.returncode == 130, (out, err)
            kinds = {n["host"]: n["error_kind"] for n in json.loads(out)["nodes"]}
            if kinds["n2"] == "refused":
                break
        assert kinds["n2"] == "refused" and kinds["stuck"] == "interrupted", kinds
        kept = sum(1 for k in kinds.values() if k is None)
        assert err.strip() == "gpudoctor: interrupted: %d of 3 nodes gathered before it; %d marked interrupted; " \
            "1 unreachable" % (kept, 2 - kept), err
    finally:
        c.cleanup()


def test_diff_folds_bridge_ports_that_come_and_go(tmp_path):
    # Two runs on a node where containers start and stop (this VM's test beds; a Docker or Kubernetes GPU node):
    # `diff` listed every veth port of a bridge ('network.interfaces[gds2b251h] added', one line each, 10 on this
    # VM). A port enslaved to a bridge with no IPv4 address is no interface NCCL can bind its socket to: such ports
    # are now one line with their count. A bridge or port with an address is still listed by name. Real facts of
    # this machine; the 'before' one has fewer interfaces.
    rc, out, err = _cli(["facts", "-o", "after.json"], tmp_path, drop=("NCCL_", "GPUDOCTOR_"))
    assert rc in (0, 1), err
    doc = json.loads((tmp_path / "after.json").read_text())
    ifs = doc["network"]["interfaces"]
    port = {"carrier": 1, "ipv4": [], "ipv6": [{"address": "fe80::4028:83ff:fef8:84c", "prefixlen": 64,
                                                 "scope": "link"}], "kind": "virtual", "link_type": "ether",
            "mac": "42:28:83:f8:08:4c", "master": "uwbr0", "mtu": 1500, "speed_mbps": 10000, "state": "up",
            "virtual": True}
    bridge = dict(port, kind="bridge", master=None, virtual=True, name="uwbr0",
                  ipv4=[{"address": "10.250.182.1", "prefixlen": 24}])
    ports = [dict(port, name="uwbr0p%d" % i) for i in range(3)]
    addressed = dict(port, name="uwbr0p9", ipv4=[{"address": "10.250.182.9", "prefixlen": 24}])
    doc["network"]["interfaces"] = ifs + [bridge, addressed] + ports
    (tmp_path / "after.json").write_text(json.dumps(doc))
    doc["network"]["interfaces"] = ifs + [dict(port, name="uwbr0old")]
    (tmp_path / "before.json").write_text(json.dumps(doc))
    rc, out, err = _cli(["diff", "before.json", "after.json"], tmp_path)
    assert rc in (0, 1), err
    assert "uwbr0p0" not in out and "uwbr0old" not in out, out
    assert "network.interfaces[uwbr0] added" in out and "network.interfaces[uwbr0p9] added" in out, out
    lines = [l.strip() for l in out.splitlines() if "bridge ports" in l]
    n = sum(1 for i in ifs if i.get("virtual") is True and i.get("master") and not i.get("ipv4"))  # this machine's
    assert lines == ["vm: bridge ports with no IPv4 address %d -> %d; 3 added, 1 removed (containers' veths: NCCL "
                     "binds no interface without an address; not listed one by one)" % (n + 1, n + 3)], out
    rc, out, err = _cli(["diff", "after.json", "after.json"], tmp_path)
    assert "bridge ports" not in out, out


def test_diff_after_an_upgrade_names_a_new_section_once(tmp_path):
    # `check --history` kept runs of an older gpudoctor; after an upgrade that collects a new section (munge, ce4c8a64)
    # `diff --since last-good` listed each of its fields as a change ('munge.key_hmac (absent) -> value#...',
    # 'munge.mode (absent) -> 0600', ... 7 lines) though nothing on the node changed. A section the earlier run's
    # collector had no timing for (collector.section_seconds: it did not collect it) is now one line. Real facts of
    # this machine; the earlier run made older by removing the section and its timing, as the older collector wrote.
    rc, out, err = _cli(["facts", "-o", "after.json"], tmp_path, drop=("NCCL_", "GPUDOCTOR_"))
    assert rc in (0, 1), err
    doc = json.loads((tmp_path / "after.json").read_text())
    sec = "tmp"  # a section with several fields (path, free bytes, writable, ...)
    assert isinstance(doc.get(sec), dict) and sec in doc["collector"]["section_seconds"], doc.keys()
    doc["tmp"]["sticky"] = doc["tmp"].get("sticky", "x")  # a field that compares
    (tmp_path / "after.json").write_text(json.dumps(doc))
    old = json.loads(json.dumps(doc))
    del old[sec]
    del old["collector"]["section_seconds"][sec]
    (tmp_path / "before.json").write_text(json.dumps(old))
    rc, out, err = _cli(["diff", "before.json", "after.json"], tmp_path)
    assert rc in (0, 1), err
    lines = [l.strip() for l in out.splitlines() if "tmp" in l and l.strip().startswith("vm: ")]
    assert lines == ["vm: tmp section added; the earlier run did not collect it (an older gpudoctor, or a run that "
                     "skipped it): its values are not compared"], out
    rc, out, err = _cli(["diff", "after.json", "before.json"], tmp_path)
    assert [l.strip() for l in out.splitlines() if "tmp" in l and l.strip().startswith("vm: ")] == [
        "vm: tmp section removed; the later run did not collect it (an older gpudoctor, or a run that skipped it): "
        "its values are not compared"], out
    # a section the earlier collector did collect (its timing is there) is still compared field by field
    old["collector"]["section_seconds"][sec] = 0.01
    (tmp_path / "before.json").write_text(json.dumps(old))
    rc, out, err = _cli(["diff", "before.json", "after.json"], tmp_path)
    assert "tmp section" not in out and "tmp." in out, out


def test_explain_of_a_pipe_stopped_early_judges_the_lines_it_read(tmp_path):
    # `kubectl logs -f POD | gpudoctor explain -` (or `tail -f train.log | ...`), Ctrl-C once the error is printed:
    # 'STOPPED EARLY ... covers only what was read before (67 bytes)' and then 'NO ERROR FOUND', though those 67
    # bytes were the error line (the same with --timeout). The last lines of what was read are held back for a
    # wrapped message; the stop dropped them. The signal is sent once explain has taken the line out of the pipe.
    import fcntl
    import signal
    import termios
    import time

    line = b"RuntimeError: CUDA error: an illegal memory access was encountered\n"
    r, w = os.pipe()
    p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "explain", "--json", "-"], stdin=r,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
    os.close(r)
    try:
        os.write(w, line)

        def waiting():
            buf = bytearray(4)
            fcntl.ioctl(w, termios.FIONREAD, buf)
            return int.from_bytes(buf, sys.byteorder) == 0

        deadline = time.monotonic() + 60
        while not waiting() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert waiting() and p.poll() is None, "explain did not read the line"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        os.close(w)
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 130, (out, err)
    doc = json.loads(out)
    assert doc["stopped_early"]["reason"] == "SIGINT" and doc["bytes"] == len(line), doc["stopped_early"]
    assert doc["verdict"] == "root_cause" and doc["root"] == "cuda.illegal_access", (doc["verdict"], doc["root"])
    assert doc["lines"] == 1 and doc["stopped_early"]["line"] == 2, doc["stopped_early"]
