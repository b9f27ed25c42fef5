"""What a new user's walk through every command found (userwalk21), in-process."""

import json
import os

import pytest

from gpudoctor import cli
from gpudoctor.node import Node
from gpudoctor.transport import interrupted_node

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")


class _Exit(BaseException):
    def __init__(self, code):
        self.code = code


def _ctrl_c_after_two_of_three(monkeypatch, module):
    """gather_nodes as the ssh fan-out ends on Ctrl-C: two nodes done, the third `interrupted`;
    os._exit (which the commands call so that no SSH session is waited for) raises instead."""
    facts = json.load(open(FACTS))

    def gather(args, cfg, *a, **k):
        exc = KeyboardInterrupt()
        exc.partial_nodes = [Node("gpu1", facts=dict(facts)), Node("gpu2", facts=dict(facts)),
                             interrupted_node("gpu3")]
        raise exc

    monkeypatch.setattr(module, "gather_nodes", gather)

    def fake_exit(code):
        raise _Exit(code)

    monkeypatch.setattr(os, "_exit", fake_exit)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_ctrl_c_report_says_exit_130_as_the_process_exits(monkeypatch, capsys, fmt):
    """The partial report after Ctrl-C said 'exit 1' (JSON summary.exit_code 1) while the process exited 130."""
    from gpudoctor.commands import check

    _ctrl_c_after_two_of_three(monkeypatch, check)
    with pytest.raises(_Exit) as info:
        cli.main(["check", "--nodes", "gpu[1-3]", "--no-history", "--select", "shm"]
                 + (["--json"] if fmt == "json" else []))
    assert info.value.code == 130
    out, err = capsys.readouterr()
    if fmt == "json":
        doc = json.loads(out)
        assert doc["summary"]["exit_code"] == 130
        assert [n["error_kind"] for n in doc["nodes"]] == [None, None, "interrupted"]
    else:
        assert out.rstrip().endswith("exit 130"), out[-200:]
    # it used to say "the 3 nodes gathered so far" when one of them was not
    assert "interrupted: 2 of 3 nodes gathered before it; 1 marked interrupted" in err


def test_ctrl_c_during_facts_of_a_cluster_keeps_what_was_gathered(monkeypatch, tmp_path, capsys):
    """`facts --hosts ... -o DIR` interrupted by Ctrl-C wrote nothing: the nodes already gathered were lost."""
    from gpudoctor.commands import facts

    _ctrl_c_after_two_of_three(monkeypatch, facts)
    out_dir = tmp_path / "facts"
    with pytest.raises(_Exit) as info:
        cli.main(["facts", "--nodes", "gpu[1-3]", "-o", str(out_dir)])
    assert info.value.code == 130
    assert sorted(os.listdir(out_dir)) == ["gpu1.json", "gpu2.json", "gpu3.json"]
    assert json.load(open(out_dir / "gpu1.json"))["schema"] == "gpudoctor.facts/1"
    assert json.load(open(out_dir / "gpu3.json"))["error_kind"] == "interrupted"
    assert "2 of 3 nodes gathered before it" in capsys.readouterr().err
    with pytest.raises(_Exit):  # and on stdout (no -o): one document of them all
        cli.main(["facts", "--nodes", "gpu[1-3]"])
    doc = json.loads(capsys.readouterr().out)
    assert sorted(doc) == ["gpu1", "gpu2", "gpu3"] and doc["gpu3"]["error_kind"] == "interrupted"


def _nodes_with_a_per_node_secret(folder, salt):
    """Three nodes whose NODE_NAME (not on the allow-list: kept as a keyed hash) differs on gpu1 (a value
    distinct on every node is a per-node identity, polish21: not a warning), as a separate `gpudoctor facts`
    run hashes it: under its own key (``salt``)."""
    import hashlib

    os.makedirs(folder)
    for i in (1, 2, 3):
        facts = json.load(open(FACTS))
        facts["node"] = "gpu%d" % i
        facts.setdefault("env", {"status": "ok"}).setdefault("hashed", {})["NODE_NAME"] = (
            "hmac:" + hashlib.sha256(("%s n%d" % (salt, min(i, 2))).encode()).hexdigest()[:16])
        json.dump(facts, open(os.path.join(folder, "gpu%d.json" % i), "w"))


def test_diff_of_two_facts_runs_does_not_flag_a_hash_that_only_changed_key(tmp_path, capsys):
    """Two `facts --hosts` runs of unchanged nodes: env.parity warned on both (NODE_NAME differs on a node),
    and diff called it 'warn, message changed' (exit 1) because the message shows each run's own hashes,
    while 'nothing this check reads changed'."""
    _nodes_with_a_per_node_secret(str(tmp_path / "monday"), "key one")
    _nodes_with_a_per_node_secret(str(tmp_path / "today"), "key two")
    rc = cli.main(["diff", str(tmp_path / "monday"), str(tmp_path / "today"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["env_hashes_compared"] is False
    assert [v["check"] for v in doc["verdicts"]] == [] and rc == 0 == doc["summary"]["exit_code"]
    # the check did warn on both sides (so the message was compared, not skipped)
    cli.main(["check", "--facts", str(tmp_path / "today"), "--select", "env.parity", "--json"])
    assert json.loads(capsys.readouterr().out)["checks"][0]["status"] == "warn"


def test_podman_read_only_is_named_from_pid_1s_cgroup(tmp_path):
    """`podman run --read-only` puts a tmpfs on /run, hiding /run/.containerenv: shm.size's fix then said
    'on a host: mount -o remount ...' in a podman container (podman 4.3, runc, cgroupfs)."""
    from gpudoctor.collector.base import Context
    from gpudoctor.collector.system import in_container

    (tmp_path / "proc" / "1").mkdir(parents=True)
    cid = "1667382578c6ef5d9a486490e60f3a9fbe30b3b36dd84a3df08ff8f04e523fe3"
    for cgroup, want in (("9:name=systemd:/libpod_parent/libpod-%s\n0::/libpod_parent/libpod-%s\n" % (cid, cid),
                          "podman"),
                         ("0::/machine.slice/libpod-%s.scope/container\n" % cid, "podman"),
                         ("0::/user.slice/user-1000.slice/session-3.scope\n", None)):
        (tmp_path / "proc" / "1" / "cgroup").write_text(cgroup)
        assert in_container(Context(root=str(tmp_path), env={})) == want, cgroup


def _readme_examples(command):
    """The README's ``$ gpudoctor COMMAND ...`` lines inside ``` blocks, each with the lines it shows."""
    import shlex

    text = open(os.path.join(ROOT, "README.md")).read()
    out, current = [], None
    for block in text.split("```")[1::2]:
        for line in block.splitlines():
            if line.startswith("$ gpudoctor %s " % command):
                current = (shlex.split(line[2:])[1:], [])
                out.append(current)
            elif current is not None and line.strip():
                current[1].append(line)
            elif not line.strip():
                current = None
        current = None
    return out


def test_readme_plan_examples_print_what_the_readme_shows(monkeypatch, capsys):
    """README's accelerate_seed002 example lacked three notes `plan` prints (the ranks' environment, PATH not
    exported by the pdsh runner, master port 22 being sshd's): each `$ gpudoctor plan` example, run where its file
    is (its folder, else the repository), prints exactly the README's lines."""
    examples = _readme_examples("plan")
    assert len(examples) >= 3
    monkeypatch.setenv("PATH", os.environ.get("PATH") or "/usr/bin:/bin")
    for argv, shown in examples:
        folder = os.path.join(ROOT, "fixtures", "launch")
        monkeypatch.chdir(folder if any(os.path.isfile(os.path.join(folder, a)) for a in argv) else ROOT)
        rc = cli.main(argv)
        out = capsys.readouterr().out
        assert rc == 0 and out.splitlines() == shown, (argv, out)


def test_check_help_names_the_config_search_in_its_order(capsys):
    """`check --help` left out $GPUDOCTOR_CONFIG and put ./pyproject.toml before /etc/gpudoctor/gpudoctor.toml;
    config.find_config (and docs/config.md) read $GPUDOCTOR_CONFIG first and /etc before pyproject.toml."""
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    where = [text.find(w) for w in ("$GPUDOCTOR_CONFIG", "./gpudoctor.toml", "/etc/gpudoctor/gpudoctor.toml",
                                    "./pyproject.toml")]
    assert -1 not in where and where == sorted(where), where


@pytest.mark.parametrize("flag,value,said", [("--probe-budget", "0", "--probe-budget 0.0: must be more than 0"),
                                             ("--probe-ports", "5-1", "--probe-ports 5-1: ports are 1-65535"),
                                             ("--probe-max-size", "0", "--max-size")])
def test_check_probe_refuses_a_bad_probe_value_before_gathering(monkeypatch, capsys, flag, value, said):
    """`check --probe --probe-budget 0` gathered and printed the whole report, then exited 2 ('--budget must be
    between 0 and 86400': 0 is, and the flag is --probe-budget): refused first now, naming check's own flag."""
    from gpudoctor.commands import check

    def gather(*a, **k):
        raise AssertionError("gathered before the probe options were checked")

    monkeypatch.setattr(check, "gather_nodes", gather)
    argv = ["check", "--probe", "--no-history", flag, value] if flag != "--probe-max-size" else [
        "check", "--probe", "--no-history", "--max-size", value]
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and said in err and err.count("\n") == 1, err


@pytest.mark.parametrize("argv", [["list"], ["list", "--json"], ["plan", "--launch", "torchrun train.py"],
                                  ["check", "--facts", FACTS, "--select", "shm"]])
def test_a_full_standard_output_is_one_line_exit_2_not_a_bug_report(monkeypatch, capsys, argv):
    """`gpudoctor list > /dev/full` (a full disk, an I/O error) was 'internal error ... a gpudoctor bug: please
    report it', exit 3, with a crash file: the output's failure is told as such, exit 2 (as for -o FILE)."""
    import errno
    import io

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            raise OSError(errno.ENOSPC, "No space left on device")

    full = Full()
    monkeypatch.setattr("sys.stdout", full)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err == "gpudoctor: error: cannot write to standard output: No space left on device\n", err


def test_closed_standard_output_runs_the_command_for_its_exit_code(monkeypatch, capsys):
    """`gpudoctor check ... >&-` (Python then has sys.stdout None) crashed: 'NoneType' object has no attribute
    'isatty', exit 3. The report goes nowhere, as asked; the exit code is the verdict."""
    monkeypatch.setattr("sys.stdout", None)
    assert cli.main(["check", "--facts", FACTS, "--select", "shm"]) == 0
    assert "error" not in capsys.readouterr().err


def test_a_node_that_could_not_be_checked_says_what_to_do_once_per_kind(tmp_path, capsys):
    """`FAIL node gpu5 could not be checked (refused): connection refused` came with no fix, though
    transport.HINTS holds one per kind (only `probe` printed them): the text report gives it, once per kind."""
    import shutil

    folder = tmp_path / "facts"
    folder.mkdir()
    shutil.copy(FACTS, folder / "gpu1.json")
    for host, kind, error in (("gpu2", "refused", "connection refused"), ("gpu3", "refused", "connection refused"),
                              ("gpu4", "hostkey", "host key changed (got 2ddd05d899e0fce4, known_hosts has ffe9)"),
                              ("gpu5", "interrupted", "interrupted before this node was reached")):
        (folder / ("%s.json" % host)).write_text(json.dumps({"schema": "gpudoctor.node/1", "host": host,
                                                             "error": error, "error_kind": kind}))
    assert cli.main(["check", "--facts", str(folder), "--select", "shm"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("nothing listens on the SSH port") == 1 and out.count("ssh-keygen -R HOST") == 1
    assert out.index("FAIL node gpu2") < out.index("nothing listens") < out.index("FAIL node gpu3")
    assert "gathering was interrupted" not in out


def test_same_file_missing_everywhere_by_an_absolute_path_is_not_told_to_use_one():
    """`check --same /nonexistent`: 'copy /nonexistent to every node, or name it by its absolute path' (it is)."""
    from conftest import node_facts, run_check

    nodes = {}
    for h in ("gpu01", "gpu02"):
        doc = node_facts("h100-ubuntu2404-torch211")
        doc["node"] = h
        doc["files"] = {"status": "ok", "files": {"/data/train.py": {"error": "No such file or directory"},
                                                  "train.py": {"error": "No such file or directory"}}}
        nodes[h] = doc
    fixes = {f.message.split()[0]: str(f.fix) for f in run_check("files.parity", nodes).findings}
    assert fixes["/data/train.py"] == "copy /data/train.py to every node"
    assert "absolute path" in fixes["train.py"]


def test_sigterm_while_gathering_prints_the_partial_report_and_exits_143(monkeypatch, capsys):
    """`timeout 60 gpudoctor check --hosts ...` (SIGTERM, as scancel and Kubernetes send) killed check at once: no
    report at all, exit -15. Now as Ctrl-C: the nodes gathered before it, the rest `interrupted`, exit 143."""
    import signal
    import time

    from gpudoctor.commands import check

    facts = json.load(open(FACTS))

    def gather(args, cfg, *a, **k):  # as the ssh fan-out: the signal arrives while it waits on a node
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                time.sleep(0.01)
            raise AssertionError("SIGTERM did not end the gathering")
        except KeyboardInterrupt as exc:
            exc.partial_nodes = [Node("gpu1", facts=dict(facts)), interrupted_node("gpu2")]
            raise

    monkeypatch.setattr(check, "gather_nodes", gather)

    def fake_exit(code):
        raise _Exit(code)

    monkeypatch.setattr(os, "_exit", fake_exit)
    class Unhandled(Exception):
        pass

    def unhandled(signum, frame):  # where check installs nothing, the test fails here instead of being killed
        raise Unhandled()

    before = signal.signal(signal.SIGTERM, unhandled)
    try:
        with pytest.raises(_Exit) as info:
            cli.main(["check", "--nodes", "gpu[1-2]", "--no-history", "--select", "shm", "--json"])
        assert info.value.code == 143 and signal.getsignal(signal.SIGTERM) is unhandled
    finally:
        signal.signal(signal.SIGTERM, before)
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["summary"]["exit_code"] == 143 and doc["nodes"][1]["error_kind"] == "interrupted"
    assert "interrupted (SIGTERM): 1 of 2 nodes gathered before it" in err


@pytest.mark.parametrize("extra", [["--same", "/etc/hostname"], ["--mesh"]])
def test_exports_refuses_same_and_mesh_which_it_never_uses(monkeypatch, capsys, extra):
    """`exports --hosts hf --same F --mesh` gathered the files' sums and ran the node-to-node ssh mesh, then printed
    the same snippet as without them (no export comes from files.parity or ssh.mesh); watch already refuses them."""
    from gpudoctor.commands import exports

    def gather(*a, **k):
        raise AssertionError("gathered")

    monkeypatch.setattr(exports, "gather_nodes", gather)
    assert cli.main(["exports", "--nodes", "gpu[1-2]"] + extra) == 2
    assert "--same and --mesh belong to gpudoctor check" in capsys.readouterr().err


@pytest.mark.parametrize("argv,said", [
    (["check", "--facts", FACTS, "--hosts", FACTS], "--facts reads saved facts; --hosts names live nodes"),
    (["check", "--facts", FACTS, "--nodes", "gpu[1-2]", "--local"], "--nodes/--local names live nodes"),
    (["exports", "--facts", FACTS, "--nodes", "gpu1"], "--facts reads saved facts; --nodes"),
    (["check", "--facts", FACTS, "--probe"], "--probe measures live nodes"),
])
def test_saved_facts_beside_live_nodes_is_refused_not_silently_chosen(capsys, argv, said):
    """`check --facts DIR --hosts hf` checked the saved facts and never said --hosts was not gathered; `check --facts
    F --probe` never probed (watch already refused --facts with --hosts/--nodes/--local)."""
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and said in err, err


def test_plan_script_json_argv_has_no_internal_marks_and_known_args_are_known(tmp_path, capsys):
    """`plan --json train.sh 2 0`: launches[].argv held the reader's internal stand-ins ('\\x000\\x00') and
    unknown[] listed $1 and $2 (given: 2 and 0) with nothing saying they were known; the text report had neither."""
    script = tmp_path / "train.sh"
    script.write_text("#!/bin/bash\ntorchrun --nnodes $1 --node_rank $2 --nproc_per_node 8 --master_addr gpu1 "
                      "--master_port 29500 train.py\n")
    assert cli.main(["plan", "--json", str(script), "2", "0"]) == 0
    la = json.loads(capsys.readouterr().out)["launches"][0]
    assert la["argv"][:5] == ["torchrun", "--nnodes", "2", "--node_rank", "0"] and "\x00" not in "".join(la["argv"])
    assert la["unknown"] == [] and [(k["text"], k["value"]) for k in la["known"]] == [("$1", "2"), ("$2", "0")]
    assert cli.main(["plan", "--json", str(script)]) == 0  # not given: unknown, written as the script wrote it
    la = json.loads(capsys.readouterr().out)["launches"][0]
    assert la["argv"][2] == "$1" and [u["text"] for u in la["unknown"]] == ["$1", "$2"] and la["known"] == []


def test_python_that_prints_no_facts_is_said_so_not_a_json_error(tmp_path, capsys):
    """`check --python ./py2` (a wrapper printing 'Python 2.7.18'): python.env was skipped with
    'python: JSONDecodeError: Expecting value: line 1 column 1 (char 0)'; a file that is not executable or a
    folder was 'no such interpreter'."""
    fake = tmp_path / "py2"
    fake.write_text("#!/bin/sh\necho 'Python 2.7.18'\n")
    fake.chmod(0o755)
    cli.main(["check", "--python", str(fake), "--select", "python.env", "--verbose", "--no-history"])
    out = " ".join(capsys.readouterr().out.split())
    assert "JSONDecodeError" not in out and "printed no facts" in out and "began with Python 2.7.18" in out, out
    plain = tmp_path / "notexec"
    plain.write_text("")
    assert cli.main(["check", "--python", str(plain)]) == 2
    assert "not executable" in capsys.readouterr().err
    assert cli.main(["check", "--python", str(tmp_path)]) == 2
    assert "a folder, not an interpreter" in capsys.readouterr().err


def test_a_severity_or_ignore_entry_that_matches_no_check_is_warned(tmp_path, capsys):
    """gpudoctor.toml `"limits.memlok" = "off"` (a typo) turned nothing off and said nothing; nor did `--ignore` with
    a typo. The run goes on (a hook must not stop for it), with one warning line each."""
    conf = tmp_path / "gpudoctor.toml"
    conf.write_text('[gpudoctor.severity]\n"limits.memlok" = "off"\n"shm.size" = "warning"\n')
    cli.main(["check", "--facts", FACTS, "--config", str(conf), "--ignore", "ssh,limits.proces", "--select",
              "limits,shm,ssh"])
    err = capsys.readouterr().err
    assert "severity 'limits.memlok' matches no check" in err and "ignore 'limits.proces' matches no check" in err
    assert "'shm.size'" not in err and "'ssh'" not in err


def test_diff_since_a_date_before_every_run_says_it_took_a_later_one(tmp_path, capsys):
    """`diff --since 2026-11-27 18:00` with the only kept run at 18:14: the header said 'the record at 2026-11-27
    18:00 UTC', as if there were one; it takes the first run after the date (docs/history.md) and now says so."""
    state = tmp_path / "state"
    cli.main(["check", "--facts", FACTS, "--history", "--state-dir", str(state)])
    at = json.load(open(FACTS))["collected_at"]
    capsys.readouterr()
    assert cli.main(["diff", "--since", "2000-01-01", FACTS, "--state-dir", str(state)]) == 0
    out = capsys.readouterr().out
    assert "the run at or before 2000-01-01 00:00 UTC (else the first after it)" in out
    assert "no run kept at or before 2000-01-01 00:00 UTC; compared with its first run after it, %s" % (
        at[:10] + " " + at[11:16] + " UTC") in out, out
