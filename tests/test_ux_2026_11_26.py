"""What a new user ran into on 2026-11-26 (a fresh clone, the README's commands, bad inputs),
each fixed and pinned here. In-process CLI calls only (the `cli` fixture): well under a second.
"""

import os

# an ELF header as every executable and shared object starts (the ELF spec's e_ident:
# 0x7f 'E' 'L' 'F', class, data, version), then the zero padding and code that follow it
ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + bytes(range(256)) * 40
OOM = b"RuntimeError: CUDA error: out of memory\n"


def test_explain_refuses_a_named_binary_file(cli, tmp_path):
    # before: `explain --file /bin/ls` was read as a 509-line log, "NO KNOWN ERROR" (exit 1)
    # from the strings in the executable
    exe = tmp_path / "a.out"
    exe.write_bytes(ELF)
    for args in (("--file", exe), (exe,)):
        rc, out, err = cli("explain", *args)
        assert rc == 2 and out == ""
        assert "is not a text log (an executable" in err and err.count("\n") == 1
    gz = tmp_path / "rank0.log.1"  # a rotated log compressed under its old name
    gz.write_bytes(__import__("gzip").compress(OOM))
    rc, out, err = cli("explain", gz)
    assert rc == 2 and "is not a text log (an executable, archive or compressed file)" in err
    # binary noise named on its own is still read (a damaged log: tests/test_explain.py
    # test_cli_binary_garbage); in a folder it is left out (the next test)
    noise = tmp_path / "core"
    noise.write_bytes(bytes((i * 7919 + 13) % 256 for i in range(4096)) + OOM)
    rc, out, err = cli("explain", noise)
    assert rc == 0 and "ROOT CAUSE  cuda.oom" in out


def test_explain_folder_leaves_binaries_out(cli, tmp_path):
    # before: a folder with shared objects (libfoo.so.1.2: the .so suffix rule missed them) was
    # read whole (5 minutes on /usr/lib) and its strings gave a shm.size diagnosis
    (tmp_path / "libnccl.so.2.28.9").write_bytes(ELF + b"/dev/shm failed to extend /dev/shm Bus error")
    (tmp_path / "events.out.tfevents.1732590000.gpu01").write_bytes(bytes(range(1, 256)) * 30 + b"Bus error\n")
    (tmp_path / "rank0.log").write_bytes(OOM)
    rc, out, err = cli("explain", tmp_path)
    assert rc == 0, err
    assert "ROOT CAUSE  cuda.oom" in out and "shm" not in out.split("\n\n")[1]
    assert out.splitlines()[0].endswith("rank0.log (1 line)")  # the library is not among the inputs
    os.unlink(tmp_path / "rank0.log")
    rc, out, err = cli("explain", tmp_path)
    assert rc == 2 and "no text log to read (2 binary files left out)" in err


def test_explain_reads_logs_with_nul_runs_and_colours(cli, tmp_path):
    # logrotate copytruncate leaves the log's start as NUL bytes (a sparse hole); ANSI colours
    # are text: neither is refused as binary
    truncated = tmp_path / "train.log"
    truncated.write_bytes(b"\x00" * 70000 + OOM)
    rc, out, err = cli("explain", truncated)
    assert rc == 0 and "ROOT CAUSE  cuda.oom" in out, err
    coloured = tmp_path / "colour.log"
    coloured.write_bytes(b"\x1b[31m" + OOM.rstrip() + b"\x1b[0m\n")
    rc, out, err = cli("explain", "--file", coloured)
    assert rc == 0 and "ROOT CAUSE  cuda.oom" in out, err


def test_explain_missing_single_file_message(cli, tmp_path):
    # before: `explain --file missing.log` blamed "several arguments" that were never given
    rc, out, err = cli("explain", "--file", tmp_path / "missing.log")
    assert rc == 2 and "no such file or directory" in err and "several arguments" not in err
    rc, out, err = cli("explain", tmp_path / "a.log", tmp_path / "b.log")
    assert rc == 2 and "several arguments" in err


def test_which_binary_kind():
    from gpudoctor.explain.inputs import binary_kind

    assert binary_kind(b"\x1f\x8b\x08\x00") and binary_kind(ELF)
    assert binary_kind(b"") is None and binary_kind(b"\x00" * 100) is None
    assert binary_kind("RuntimeError: ünïcode é\n".encode("utf-16")) is None
    assert binary_kind(OOM * 3) is None
    assert binary_kind(bytes(range(1, 256)) * 4) and binary_kind(bytes(range(1, 256)) * 4, magic_only=True) is None


def test_output_file_holds_the_format_chosen(cli, tmp_path):
    # README's command table said `-o FILE` gives "the report as JSON"; it writes the format
    # chosen (text by default), as `check --help` says
    facts = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")
    out_txt, out_json = tmp_path / "r.txt", tmp_path / "r.json"
    rc, out, err = cli("check", "--facts", facts, "-o", out_txt)
    assert rc == 1 and out == "" and out_txt.read_text().startswith("gpudoctor: 1 node")
    rc, out, err = cli("check", "--facts", facts, "--json", "-o", out_json)
    assert rc == 1 and __import__("json").loads(out_json.read_text())["schema"].startswith("gpudoctor.report/")
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md")).read()
    assert "`-o FILE` | the report as JSON" not in readme


def test_watch_names_itself_for_the_quiet_list(cli, tmp_path):
    # before: `gpudoctor watch` ended with "(gpudoctor check --verbose lists them)": check's
    # list is another one; watch's own -v lists its n/a diagnoses
    saved = os.path.join(os.path.dirname(__file__), "..", "fixtures", "watch", "h100-idle.json")
    rc, out, err = cli("watch", "--facts", saved)
    quiet = [line for line in out.splitlines() if "--verbose lists them" in line]
    assert rc in (0, 1) and quiet and all("gpudoctor watch --verbose" in line for line in quiet), out


def test_plan_script_keeps_env_assignments(cli, tmp_path):
    # before: in a script, `env NCCL_IB_DISABLE=1 torchrun ...` lost its assignment (the plan
    # showed no "env set", though `plan --launch 'env NCCL_IB_DISABLE=1 torchrun ...'` had it)
    script = tmp_path / "train.sh"
    script.write_text("#!/bin/bash\nexec env -u DEBUG NCCL_IB_DISABLE=1 torchrun --nnodes 1 --nproc-per-node 2 "
                      "train.py\n")
    rc, out, err = cli("plan", script)
    assert rc == 0, err
    assert "  env set        NCCL_IB_DISABLE=1" in out and "script         train.py" in out


def test_exports_wording_for_one_node(cli):
    # before: "eth0 is up with an IPv4 address on all 1 nodes (vm)"
    facts = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")
    rc, out, err = cli("exports", "--facts", facts)
    assert rc == 0 and "on the node (vm)" in out and "all 1 nodes" not in out
    assert "export NCCL_SOCKET_IFNAME==eth0" in out


def test_files_parity_a_file_missing_everywhere_is_not_identical():
    # before: `check --hosts hf --same ssh_config` (a relative path, read in each node's home,
    # where it is not) passed: "identical on every node: ssh_config (missing (No such file or
    # directory))". Nothing absent ever passes.
    from conftest import node_facts, run_check

    nodes = {}
    for h in ("gpu01", "gpu02", "gpu03"):
        doc = node_facts("h100-ubuntu2404-torch211")
        doc["node"] = h
        doc["files"] = {"status": "ok", "files": {"train.py": {"error": "No such file or directory"},
                                                  "/etc/hostname": {"sha256": "a" * 64, "size": 3}}}
        nodes[h] = doc
    res = run_check("files.parity", nodes)
    assert res.status == "fail" and res.by_status == {"fail": "gpu[01-03]"}
    msg = res.findings[0].message
    assert msg == "train.py is missing (No such file or directory) on every node (gpu[01-03])"
    assert "absolute path" in str(res.findings[0].fix)
    for doc in nodes.values():
        del doc["files"]["files"]["train.py"]
    res = run_check("files.parity", nodes)
    assert res.status == "pass" and "identical on every node: /etc/hostname" in res.evidence


def test_check_facts_reads_what_facts_hosts_prints(cli, tmp_path):
    # before: `gpudoctor facts --hosts hf > all.json; gpudoctor check --facts all.json` was
    # refused: "not a gpudoctor facts file (schema nothing, ...)"; only `-o DIR` could be re-checked
    import json

    from conftest import node_facts

    docs = {}
    for h in ("gpu01", "gpu02"):
        docs[h] = node_facts("h100-ubuntu2404-torch211")
        docs[h]["node"] = h
    docs["gpu03"] = {"error": "connection refused", "error_kind": "refused"}
    path = tmp_path / "all.json"
    path.write_text(json.dumps(docs))
    rc, out, err = cli("check", "--facts", path)
    assert rc == 1, err
    assert out.startswith("gpudoctor: 3 nodes (gpu[01-03])")
    assert "FAIL node gpu03 could not be checked (refused): connection refused" in out
    assert "3 nodes, 1 unreachable" in out.splitlines()[-1]
    docs["gpu02"]["gpu"] = "not a section"
    path.write_text(json.dumps(docs))
    rc, out, err = cli("check", "--facts", path)
    assert rc == 2 and "(node gpu02): section 'gpu' has no valid status" in err
    path.write_text(json.dumps({"gpu01": {"a": 1}}))  # no facts document in it: refused as before
    rc, out, err = cli("check", "--facts", path)
    assert rc == 2 and "is not a gpudoctor facts file" in err


def test_ssh_mesh_fix_follows_the_error(cli):
    # before: on the sshd test bed every pair failed with "ssh: Could not resolve hostname gpu02"
    # and the fix said to run ssh-keygen and ssh-copy-id
    from conftest import node_facts, run_check

    nodes = {}
    for h, peer in (("gpu01", "gpu02"), ("gpu02", "gpu01")):
        doc = node_facts("h100-ubuntu2404-torch211")
        doc["node"] = h
        doc["mesh"] = {"status": "ok", "peers": {peer: {"ok": False, "error": "ssh: Could not resolve hostname %s: "
                                                                               "Name or service not known" % peer}}}
        nodes[h] = doc
    res = run_check("ssh.mesh", nodes)
    fix = str(res.findings[0].fix)
    assert res.status == "fail" and "/etc/hosts" in fix and "ssh-copy-id" not in fix
    nodes["gpu02"]["mesh"]["peers"]["gpu01"]["error"] = "Permission denied (publickey)."
    fix = str(run_check("ssh.mesh", nodes).findings[0].fix)
    assert "/etc/hosts" in fix and "ssh-copy-id" in fix


def test_explain_empty_text_is_a_usage_error(cli):
    # before: `gpudoctor explain "$ERR"` with ERR unset answered "NO KNOWN ERROR ... this text was
    # given as an error" (exit 1, as for an error gpudoctor does not know)
    for text in ("", " \n "):
        rc, out, err = cli("explain", text)
        assert rc == 2 and out == "" and "the error text is empty" in err


def test_check_json_with_another_format_is_refused(cli):
    # before: `check --json --format text` printed JSON and said nothing of the text asked for
    facts = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")
    rc, out, err = cli("check", "--facts", facts, "--json", "--format", "junit")
    assert rc == 2 and out == "" and "--json and --format junit ask for two formats" in err
    rc, out, err = cli("check", "--facts", facts, "--json", "--format", "json")
    assert rc == 1 and out.lstrip().startswith("{")


def test_plan_srun_note_points_at_no_missing_line(cli):
    # before: "every node runs the line below" though the note is printed after the plan, and
    # no line follows it
    rc, out, err = cli("plan", "--launch", "srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 t.py")
    assert rc == 0 and "the line below" not in out
    assert "each task runs the launcher after srun's options" in out


def test_same_on_one_node_says_nothing_is_compared(cli, tmp_path):
    # before: `check --same train.py` on one node printed nothing about it (files.parity is a
    # cluster check, left out with one node, not even under --verbose)
    facts = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")
    rc, out, err = cli("check", "--facts", facts, "--same", tmp_path)
    assert rc == 1 and "--same compares files across nodes; with one node (vm) nothing is compared" in err
    rc, out, err = cli("check", "--facts", facts, "--same", tmp_path, "--select", "shm")
    assert rc == 0 and err == ""


def test_explain_reads_utf16_logs(cli, tmp_path):
    # before: a log PowerShell 5 wrote (`>`: UTF-16LE with a byte order mark) answered NO ERROR
    # FOUND: every other byte was NUL and no line matched
    log = tmp_path / "rank0.log"
    log.write_bytes(("step 1 ok\r\n" * 3 + OOM.decode()).encode("utf-16"))
    rc, out, err = cli("explain", "--file", log)
    assert rc == 0 and "ROOT CAUSE  cuda.oom" in out and "(4 lines)" in out.splitlines()[0], err
    from gpudoctor.explain.inputs import _Utf16AsUtf8
    import io

    stream = _Utf16AsUtf8(io.BufferedReader(io.BytesIO(("é" * 70000).encode("utf-16"))))
    got = b"".join(iter(lambda: stream.read(4096), b""))
    assert got == ("é" * 70000).encode("utf-8")
