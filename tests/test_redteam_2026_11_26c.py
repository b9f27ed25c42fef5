"""Red-team findings of 2026-11-26, third round (what the last round added outside explain's knowledge:
plan SCRIPT's heredocs, ssh/pdsh lines and written hostfiles, facts files and `facts --hosts` maps,
diff, slurm-health's drain reason, explain over a folder), each held by a test that tries more than
the reproducer.

- plan SCRIPT: expansion was unbounded in time and memory. `A=<60 KB>` then `$A` 1,000 times in one
  word took 60 s (each piece copied the whole word), 150,000 times did not end in 120 s (9 GB of
  text); 300,000 escaped characters on one line took 14 s (the lexer and the expander added to a str
  a character at a time). Now a word is built from a list of pieces and one script may expand to at
  most MAX_EXPANDED characters (exit 2 past it).
- facts: `1e999` is a JSON number Python reads as inf, so 'no NaN/Infinity in facts' was bypassed;
  `gpudoctor diff --json` then wrote `"after": Infinity` (not JSON). A node's own NaN/Infinity
  passed the transports' rule too. Now a facts document with a non-finite number is refused
  (gather.facts_problem: files, `facts --hosts` maps, node output, history), and the collector's
  float readings of 'inf'/'nan' text are no reading.
- slurm-health: the drain reason kept escape sequences and bidi overrides of a message; slurmctld
  stores it and `sinfo -R` prints it raw on the admin's terminal. Now written escaped.
- plan SCRIPT printed this shell's value of every environment variable a launch line names ("from
  this shell: hf_..."), in the text and in --json: `--token $HF_TOKEN`, `$AWS_SECRET_ACCESS_KEY`,
  `$SLURM_JWT`, `${MY_KEY:-x}`. Now only names the facts show (env_shown's allow-list, no
  secret-looking word) have their value printed; another set variable is said to be set. The same
  for values the script or a file it sources gives a secret-looking name (`source ~/.hf_env` then
  `--token $HF_TOKEN` printed the token in the expanded line, the plan's script arguments, --json's
  argv and a launcher's refusal): written back as $NAME.
- plan SCRIPT showed a stand-in as the value a launch line's environment takes: `NCCL_DEBUG=$LVL torchrun
  ...` printed `env set NCCL_DEBUG=3` (the second plan's stand-in for the unknown). Now the unknown as
  the script wrote it.
- plan SCRIPT read this machine's file where a remote shell sources one (`ssh node bash -s <<EOF`,
  `ssh node "source env.sh; ..."`, `pdsh -w ... ". env.sh && ..."`): the file is the node's, and what
  this machine holds at that path (a secret, another configuration) was read and used. Now a note.
- explain FOLDER: one file of the folder this user may not read (another user's 0600 log) made the
  whole run exit 2; now it is left out with one line on stderr (a file named on its own still is
  an input error). A folder of folders (200 x 250 empty ones) was walked whole, past --timeout: at most
  MAX_DIRS folders now, as MAX_FILES files.
- explain's Flight Recorder answer printed `fr_trace FOLDER ... --prefix <the dump's file name>` unquoted: a
  dump named `x;touch${IFS}PWN;_$(id)rank_0` in a shared job folder put a command into that line. Now one
  shell word (fixline.sh).
"""

import json
import os
import time

import pytest

from conftest import node_facts

from gpudoctor.fixline import sh


def _one_line_exit_2(rc, err):
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err


# ------------------------------------------------------------------ plan SCRIPT: expansion bounds

def _cpu_run(cli, *args):
    t = time.process_time()
    rc, out, err = cli(*args)
    return rc, out, err, time.process_time() - t


@pytest.mark.parametrize("body", [
    # a 60 KB value used 1,000 times in one word (60 MB expanded: 60 s before; 150,000 times did not end
    # in 120 s), then in as many words, a written hostfile, an array
    "A=%s\ntorchrun --nnodes 2 %s t.py\n" % ("x" * 60000, "$A" * 1000),
    "A=%s\ntorchrun --nnodes 2 %s t.py\n" % ("x" * 60000, "$A " * 1000),
    "A=%s\necho %s > hf\n" % ("x" * 60000, '"$A"' * 1000),
    "A=%s\nB=(%s)\ntorchrun \"${B[@]}\"\n" % ("x" * 60000, "$A " * 1000),
], ids=["one-word", "many-words", "written-file", "array"])
def test_a_script_that_expands_to_gigabytes_is_refused_quickly(cli, tmp_path, body):
    p = tmp_path / "train.sh"
    p.write_text("#!/bin/bash\n" + body)
    rc, out, err, cpu = _cpu_run(cli, "plan", p)
    _one_line_exit_2(rc, err)
    assert "expands to more than" in err and "line " in err
    assert cpu < 5, cpu  # one word: 60 s before; ~0.2 s now on the 2-core VM


def test_a_long_line_of_small_pieces_costs_linear_time(cli, tmp_path):
    # 200,000 escaped characters and 100,000 `$B` in one word: each piece copied the word so far
    # (quadratic: 14 s for 300,000 escapes); the launch line is then too long for plan, as before
    for line in ("torchrun " + "\\x" * 200000 + " t.py\n", "B=x\ntorchrun " + "$B" * 100000 + " t.py\n"):
        p = tmp_path / "train.sh"
        p.write_text("#!/bin/bash\n" + line)
        rc, out, err, cpu = _cpu_run(cli, "plan", p)
        assert rc == 2 and "longer than 65536 characters" in err, err
        assert cpu < 4, cpu


def test_the_expansion_is_still_bash_s(tmp_path):
    from gpudoctor.launch.script import read_script

    p = tmp_path / "train.sh"
    p.write_text('#!/bin/bash\nA="a b"\nB=(x "y z")\nN=2\n'
                 'torchrun --nnodes $N --node_rank=0 --master_addr h \\\n'
                 '  "$A"$A\'q\'\\$x "${B[@]}" ${B[@]}\n')
    res = read_script(str(p))
    assert res.launches[0].argv == ["torchrun", "--nnodes", "2", "--node_rank=0", "--master_addr", "h",
                                    "a ba", "bq$x", "x", "y z", "x", "y", "z"]


def test_plan_never_prints_a_secret_from_this_shell(cli, tmp_path, monkeypatch):
    secrets = {"HF_TOKEN": "hf_tok3n", "AWS_SECRET_ACCESS_KEY": "aws_s3cret", "MY_PASSWORD": "hunter2",
               "SLURM_JWT": "eyJjwt", "MY_KEY": "k3yvalue", "DATA_URL": "https://u:pw@host/x"}
    for k, v in secrets.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("MASTER_ADDR", "node1")
    p = tmp_path / "train.sh"
    p.write_text("#!/bin/bash\nexport HF_TOKEN=$HF_TOKEN\n"
                 "NCCL_DEBUG=${MY_KEY:-x} torchrun --nnodes 2 --master_addr $MASTER_ADDR --master_port 29500 train.py "
                 "--token $HF_TOKEN --key \"$AWS_SECRET_ACCESS_KEY\" --pw ${MY_PASSWORD} --jwt $SLURM_JWT "
                 "--data ${DATA_URL:-none}\n")
    for args in (("plan", p), ("plan", "--json", p)):
        rc, out, err = cli(*args)
        assert rc in (0, 1), err
        leaked = [v for v in secrets.values() if v in out + err]
        assert not leaked, (leaked, out)
    rc, out, err = cli("plan", p)
    assert "$HF_TOKEN: the environment at run time; from this shell: set (value not shown" in out
    assert "$MASTER_ADDR: the environment at run time; from this shell: node1" in out  # an allow-listed name


def test_an_unknown_in_the_launch_line_environment_is_shown_as_written(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("LVL", raising=False)
    monkeypatch.setenv("MY_KEY", "mlx5_0")
    p = tmp_path / "train.sh"
    p.write_text("#!/bin/bash\nNCCL_IB_HCA=${MY_KEY:-x} NCCL_DEBUG=$LVL NCCL_DEBUG_SUBSYS=INIT$LVL NCCL_ALGO=Ring "
                 "torchrun --nnodes 2 --master_addr h t.py\n")
    rc, out, err = cli("plan", "--json", p)
    assert rc in (0, 1), err
    env = json.loads(out)["launches"][0]["plan"]["env"]["set"]
    assert env == {"NCCL_IB_HCA": "${MY_KEY:-x}", "NCCL_DEBUG": "$LVL", "NCCL_DEBUG_SUBSYS": "INIT$LVL",
                   "NCCL_ALGO": "Ring"}, env


def test_plan_writes_a_secret_the_script_sets_or_sources_back_as_its_name(cli, tmp_path):
    env = tmp_path / "hf_env"
    env.write_text("export HF_TOKEN=hf_s3cr3tvalue\nWANDB_API_KEY='wandb-k3y-value'\n")
    p = tmp_path / "train.sh"
    p.write_text("#!/bin/bash\nsource %s\nDB_PASSWORD=hunter2hunter2\nNNODES=2\n"
                 "torchrun --nnodes $NNODES --master_addr h t.py --token $HF_TOKEN --key=\"$WANDB_API_KEY\" "
                 "--db $DB_PASSWORD\ntorchrun --nnodes $DB_PASSWORD t.py\n" % env)
    for args in (("plan", p), ("plan", "--json", p)):
        rc, out, err = cli(*args)
        assert rc == 2 and "--nnodes='$DB_PASSWORD' is not a whole number" in err, err  # the refusal too
        for secret in ("hf_s3cr3tvalue", "wandb-k3y-value", "hunter2hunter2"):
            assert secret not in out + err, (secret, out)
    argv = json.loads(out)["launches"][0]["argv"]
    assert argv[-6:] == ["t.py", "--token", "$HF_TOKEN", "--key=$WANDB_API_KEY", "--db", "$DB_PASSWORD"], argv
    assert argv[:3] == ["torchrun", "--nnodes", "2"]  # other values are still shown


def test_a_file_a_remote_shell_sources_is_not_read_here(tmp_path):
    from gpudoctor.launch.script import read_script

    here = tmp_path / "env.sh"
    here.write_text("NNODES=7\n")
    p = tmp_path / "train.sh"
    p.write_text("#!/bin/bash\nssh node1 bash -s <<'EOF'\nsource %s\ntorchrun --nnodes $NNODES t.py\nEOF\n"
                 "ssh node2 \"source %s; torchrun --nnodes \\$NNODES t.py\"\n"
                 "pdsh -w n[1-2] \". %s && torchrun --nnodes \\$NNODES t.py\"\n"
                 "source %s\ntorchrun --nnodes $NNODES t.py\n" % (here, here, here, here))
    res = read_script(str(p))
    assert [la.shown for la in res.launches] == ["torchrun --nnodes '$NNODES' t.py"] * 3 + [
        "torchrun --nnodes 7 t.py"], [la.shown for la in res.launches]
    notes = [n for n in res.notes if "not read here" in n]
    assert len(notes) == 3 and "runs on node1" in notes[0] and "runs on node2" in notes[1], res.notes


# ------------------------------------------------------------------ facts: numbers that are not finite

@pytest.mark.parametrize("number", ["1e999", "-1e999", "1E400"])
def test_a_facts_number_that_is_not_finite_is_refused(cli, tmp_path, number):
    good = node_facts("h100-ubuntu2404-torch211")
    text = json.dumps(good)
    bad = text.replace('"memory_total_mib": 81559', '"memory_total_mib": %s' % number)
    assert bad != text
    (tmp_path / "good.json").write_text(text)
    (tmp_path / "bad.json").write_text(bad)
    (tmp_path / "map.json").write_text('{"gpu1": %s}' % bad)  # what `facts --hosts` prints
    for args in (("check", "--facts", tmp_path / "bad.json"), ("check", "--facts", tmp_path / "map.json"),
                 ("diff", tmp_path / "good.json", tmp_path / "bad.json", "--json")):
        rc, out, err = cli(*args)
        _one_line_exit_2(rc, err)
        assert "not finite" in err, err
        assert "Infinity" not in out  # diff --json wrote '"after": Infinity'


def test_node_output_with_nan_or_infinity_is_not_facts():
    from gpudoctor.gather import facts_problem
    from gpudoctor.transport import parse_facts

    good = node_facts("h100-ubuntu2404-torch211")
    assert facts_problem(good) is None
    for lit in ("NaN", "Infinity", "-Infinity", "1e999"):
        doc = parse_facts(json.dumps(good).replace('"cpus": 16', '"cpus": %s' % lit))
        assert doc is not None and "not finite" in (facts_problem(doc) or ""), lit


def test_the_collector_reads_no_infinite_number():
    from gpudoctor.collector.rdma import parse_rate
    from gpudoctor.collector.watch import _smi_num

    assert [_smi_num(x) for x in ("inf", "nan", "-Infinity", "12.5", "[N/A]")] == [None, None, None, 12.5, None]
    assert parse_rate("inf Gb/sec (4X HDR)") == (None, "4X HDR")
    assert parse_rate("200 Gb/sec (4X HDR)") == (200.0, "4X HDR")


# ------------------------------------------------------------------ slurm-health: the drain reason

def test_the_drain_reason_is_printable_whatever_a_message_holds():
    from gpudoctor.registry import Finding
    from gpudoctor.runner import Node, Report
    from gpudoctor.slurm import REASON_MAX, short_reason

    for msg in ("GPU recovery action now: \x1b]0;owned\x07\x1b[2J", "a\u202eb\u2066c", "x\x00y\x7fz", "a\u2028b\x85c"):
        f = Finding(severity="error", message=msg, check="gpu.inventory")
        r = short_reason(Report(nodes=[Node(host="n1", facts={})], results=[], findings=[f]))
        assert r.isprintable() and len(r) <= REASON_MAX, repr(r)
        assert r.startswith("gpudoctor: gpu.inventory: ")
    r = short_reason(Report(nodes=[Node(host="n1", error="collector exited 1: \x1b[31mred", error_kind="collector")],
                            results=[], findings=[]))
    assert r == "gpudoctor: collector: collector exited 1: \\x1b[31mred"


# ------------------------------------------------------------------ explain FOLDER: a file it may not read

def test_a_folder_file_explain_may_not_read_is_left_out_not_the_whole_run(cli, tmp_path, monkeypatch):
    from gpudoctor.errors import InputError
    from gpudoctor.explain import inputs

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank0.log").write_text("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in "
                                    "<module>\n    main()\nValueError: bad shape\n")
    (logs / "slurmd.log").write_text("x\n")
    real = inputs._open_regular

    def refuse(path, what="log"):  # as open_input says it for another user's 0600 file (EACCES)
        if path.endswith("slurmd.log"):
            raise InputError("cannot read %s %s: Permission denied" % (what, path))
        return real(path, what)

    monkeypatch.setattr(inputs, "_open_regular", refuse)
    rc, out, err = cli("explain", "--json", logs)
    assert rc in (0, 1), err
    assert json.loads(out)["findings"][0]["id"] == "code.exception"
    assert err.count("\n") == 1 and "1 file of the folder not read" in err and "slurmd.log" in err
    # a file named on its own is still refused, and a folder of nothing readable too
    rc, out, err = cli("explain", logs / "slurmd.log")
    _one_line_exit_2(rc, err)
    os.unlink(str(logs / "rank0.log"))
    rc, out, err = cli("explain", logs)
    _one_line_exit_2(rc, err)
    assert "Permission denied" in err


def test_a_tree_of_folders_is_bounded_like_a_folder_of_files(cli, tmp_path, monkeypatch):
    from gpudoctor.explain import inputs

    monkeypatch.setattr(inputs, "MAX_DIRS", 30)
    logs = tmp_path / "logs"
    for i in range(6):
        for j in range(6):
            (logs / ("run%d" % i) / ("attempt_%d" % j)).mkdir(parents=True)
    (logs / "run0" / "rank0.log").write_text("ValueError: bad shape\n")
    rc, out, err = cli("explain", logs)
    _one_line_exit_2(rc, err)
    assert "more than 30 folders" in err
    monkeypatch.setattr(inputs, "MAX_DIRS", 43)  # 1 + 6 + 36: the tree itself is read
    rc, out, err = cli("explain", "--json", logs)
    assert rc in (0, 1) and "rank0.log" in out, err


def test_a_flight_recorder_dump_name_is_one_shell_word_in_the_debug_line(cli, tmp_path):
    import pickle

    def entry(i, seq, state):
        return {"record_id": i, "profiling_name": "nccl:all_reduce", "state": state, "process_group": ("0", "pg"),
                "input_sizes": [[4, 4]], "output_sizes": [[4, 4]], "input_dtypes": "float32",
                "output_dtypes": "float32", "collective_seq_id": str(seq), "p2p_seq_id": "0", "time_created_ns": 0,
                "frames": [], "is_p2p": False}

    name = "x;touch${IFS}PWN;_$(id)rank_"
    for r in range(3):  # as tests/test_explain_job.py builds them: rank 2 is one collective behind
        n = 5 if r == 2 else 6
        doc = {"version": "2.8", "entries": [entry(i, i + 1, "completed" if i + 1 < n else "scheduled")
                                             for i in range(n)],
               "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2]"}}}
        (tmp_path / ("%s%d" % (name, r))).write_bytes(pickle.dumps(doc, protocol=2))
    rc, out, err = cli("explain", "--json", tmp_path)
    debug = [d for f in json.loads(out)["findings"] for d in f["debug"] if "--prefix" in d]
    assert debug and all("--prefix %s)" % sh(name) in d for d in debug), debug
