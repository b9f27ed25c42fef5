"""userwalk28: what a new user tripped on in a fresh clone (session 28), through the CLI."""

import json
import os
import subprocess
import sys

import pytest


def _cli(args, tmp_path, env=None, drop=()):
    """The real CLI in a subprocess, with the variables named in ``drop`` (prefixes) unset."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, env=e,
                       cwd=str(tmp_path), timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_history_note_for_a_check_that_had_nothing_to_judge(tmp_path):
    # The README's VM never passes whole (host.name fails on every run). A first `check --history` with no NCCL_*
    # set (nccl.env: n/a), then NCCL_SOCKET_IFNAME=bogus0: nccl.env failed with no history note, though
    # `diff --since last-good` named NCCL_SOCKET_IFNAME (absent) -> bogus0. Real facts of this machine, gathered
    # twice by the CLI; /dev/shm made 64 MiB in both so that the node fails a check in each run wherever this runs.
    docs = []
    for name, env in (("before.json", {}), ("after.json", {"NCCL_SOCKET_IFNAME": "bogus0"})):
        rc, out, err = _cli(["facts", "-o", name], tmp_path, env=env, drop=("NCCL_", "GPUDOCTOR_"))
        assert rc in (0, 1), err
        doc = json.loads((tmp_path / name).read_text())
        doc["shm"].update(total_bytes=64 << 20, free_bytes=64 << 20)
        (tmp_path / name).write_text(json.dumps(doc))
        docs.append(doc)
    assert docs[0]["collected_at"] <= docs[1]["collected_at"]
    state = str(tmp_path / "state")
    rc, out, err = _cli(["check", "--facts", "before.json", "--history", "--state-dir", state, "--json"], tmp_path,
                        drop=("NCCL_",))
    assert rc == 1, err
    first = json.loads(out)
    assert {c["id"]: c["status"] for c in first["checks"]}["nccl.env"] == "na"
    rc, out, err = _cli(["check", "--facts", "after.json", "--history", "--state-dir", state, "--json"], tmp_path,
                        drop=("NCCL_",))
    assert rc == 1, err
    doc = json.loads(out)
    assert {c["id"]: c["status"] for c in doc["checks"]}["nccl.env"] == "fail"
    notes = [f["message"] for f in doc["findings"] if f["severity"] == "info" and f["check"] == "nccl.env"]
    assert len(notes) == 1, doc["findings"]
    assert notes[0].startswith("history: changed since this check last had nothing to judge ("), notes
    assert "it was n/a then" in notes[0] and "no passing run kept" in notes[0] and "shm.size" in notes[0], notes
    assert notes[0].endswith(": NCCL_SOCKET_IFNAME (absent) -> bogus0"), notes
    # the text report shows it under the check; shm.size, failed in both runs alike, gets no note
    rc, out, err = _cli(["check", "--facts", "after.json", "--history", "--state-dir", state], tmp_path,
                        drop=("NCCL_",))
    block = out.split("FAIL nccl.env", 1)[1].split("\nFAIL ", 1)[0].split("\nWARN ", 1)[0]
    assert "note: history: changed since this check last had nothing to judge" in block, out
    shm = out.split("FAIL shm.size", 1)[1].split("\nFAIL ", 1)[0].split("\nWARN ", 1)[0].split("\n\n", 1)[0]
    assert "history" not in shm, out


def test_a_section_older_facts_lack_says_why_it_was_skipped(gpudoctor_cli, tmp_path):
    # The README's H200 facts (fixtures/nodes/h200x2-ubuntu2404-torch211.json) predate the collector's tmp section:
    # `check --facts ... --verbose` read 'SKIP tmp.writable  tmp: not collected', with no why and nothing to do
    here = os.path.dirname(os.path.abspath(__file__))
    facts = os.path.join(here, "..", "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")
    assert "tmp" not in json.load(open(facts))["collector"]["section_seconds"]
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--json")
    assert rc == 1, err
    reason = {c["id"]: c for c in json.loads(out)["checks"]}["tmp.writable"]
    assert reason["status"] == "skipped"
    assert reason["summary"] == ("tmp: not collected (these facts predate it: gathered by an older gpudoctor; gather "
                                 "them again with gpudoctor facts -o FILE)"), reason
    # facts that have the section keep their verdict; a section a new collector did not write keeps the short reason
    doc = json.load(open(facts))
    doc["collector"]["section_seconds"]["tmp"] = 0.0
    (tmp_path / "new.json").write_text(json.dumps(doc))
    rc, out, err = gpudoctor_cli("check", "--facts", str(tmp_path / "new.json"), "--json")
    assert {c["id"]: c for c in json.loads(out)["checks"]}["tmp.writable"]["summary"] == "tmp: not collected"


@pytest.fixture
def explain_here(tmp_path):
    """`gpudoctor explain ARGS` in this process (tests/inprocess.py) in tmp_path, as gpudoctor_cli returns it: the
    explain tests below assert what it writes, and a process each loaded explain's knowledge again (suite32: each
    of their 5 calls gave the subprocess's exit code, stdout and stderr)."""
    import inprocess

    def run(*args):
        return inprocess.gd(list(args), tmp_path)

    return run


def test_explain_of_several_files_locates_a_structural_answer(explain_here, tmp_path):
    # `explain a.log b.log` (README: "one answer for a whole job") where the answer is read from the text's shape
    # (a failure line no known message explains: lastresort, progline, docremedy make it after the lines were
    # located): it quoted b.log's line 2 as 'line 1006', with no file, in the text and in the JSON.
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "fixtures", "explain", "struct23", "gcc12-glibc236-assert-and-uncaught-throw.log")
    (tmp_path / "a.log").write_text("step 1 loss 2.31\nstep 2 loss 2.12\nstep 3 loss 2.05\n")
    (tmp_path / "b.log").write_text(open(src).read())
    line = "assert_demo: a.c:2: main: Assertion `n > 0' failed."
    assert open(src).read().splitlines()[1] == line
    rc, out, err = explain_here("explain", "--json", "a.log", "b.log")
    assert rc in (0, 1), err
    f = json.loads(out)["findings"][0]
    assert (f["first_file"], f["first_line"]) == ("b.log", 2), f
    assert [(m.get("file"), m["line"], m["text"]) for m in f["matches"]][:1] == [("b.log", 2, line)], f["matches"]
    assert (f["origin"]["file"], f["origin"]["line"]) == ("b.log", 2), f["origin"]
    rc, out, err = explain_here("explain", "a.log", "b.log")
    assert "  b.log line 2: " + line in out.splitlines(), out
    assert "line 10" not in out, out
    # one file: the same answer, 'line 2' (the numbering of one input is unchanged)
    rc, out1, err = explain_here("explain", "b.log")
    assert "  line 2: " + line in out1.splitlines(), out1


def test_explain_of_several_files_names_the_file_and_line_in_its_prose(explain_here, tmp_path):
    # The prose explain's readers write (notes, causes, fixes, the launch context) counted lines over every input,
    # each later file after a gap of 1000: `explain a.log b.log` with an Xid 79 in b.log said 'The GPU: PCI
    # 0000:b3:00 (line 1014)' and 'also seen: gpu.xid.init ...: line 1017' for b.log's lines 6 and 9 (fixtures/logs/dev
    # as a folder: 'line 80736'). Real logs: a ninja failure, then the nvsentinel Xid 79 log.
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "logs", "dev")
    a = open(os.path.join(here, "build.ninja__lmdeploy-242-ninja-not-installed.log")).read()
    b = open(os.path.join(here, "gpu.xid__nvsentinel-155-fallen-off-the-bus.log")).read()
    (tmp_path / "a.log").write_text(a)
    (tmp_path / "b.log").write_text(b)
    assert "NVIDIA GPU 0000:b3:00.0" in b.splitlines()[5] and "probe routine failed" in b.splitlines()[8]
    rc, out, err = explain_here("explain", "--json", "a.log", "b.log")
    assert rc == 0, err
    root = json.loads(out)["findings"][0]
    assert root["id"] == "gpu.xid.fallen_off_bus", root["id"]
    notes = root["notes"]
    assert any(n.startswith("The GPU: PCI 0000:b3:00 (b.log line 6).") for n in notes), notes
    assert any(n.startswith("Same GPU fault, also seen: gpu.xid.init") and "): b.log line 9: " in n for n in notes), \
        notes
    assert not [n for n in notes if "line 10" in n], notes
    # one file: its own numbers, no file named (unchanged)
    rc, out, err = explain_here("explain", "--json", "b.log")
    notes = json.loads(out)["findings"][0]["notes"]
    assert any(n.startswith("The GPU: PCI 0000:b3:00 (line 6).") for n in notes), notes


def test_plan_launch_reads_through_the_wrappers_a_script_line_is_read_through(gpudoctor_cli, tmp_path):
    # `plan SCRIPT` reads `nsys profile ... torchrun ...` as torchrun under the profiler (launch28), but the same line
    # given to --launch was refused ('not a launcher gpudoctor reads: nsys'), and so was
    # `srun ... env FOO=1 torchrun ...` (srun's command under env), exit 2
    rc, out, err = gpudoctor_cli("plan", "--json", "--launch",
                                 "nsys profile -o out --trace=cuda,nvtx torchrun --nnodes 2 --nproc-per-node 8 "
                                 "--rdzv-endpoint gpu1:29500 --rdzv-backend c10d train.py")
    assert rc == 0, err
    doc = json.loads(out)
    assert (doc["launcher"], doc["nnodes"], doc["nproc_per_node"], doc["world_size"]) == (
        "torchrun", {"min": 2, "max": 2}, 8, {"min": 16, "max": 16}), doc
    assert "nsys runs the command after its options under the profiler: planned as that command" in doc["notes"]
    rc, out, err = gpudoctor_cli("plan", "--json", "--launch",
                                 "srun --ntasks-per-node=1 env NCCL_DEBUG=INFO numactl --interleave=all torchrun "
                                 "--nproc-per-node 8 train.py")
    assert rc == 0, err
    doc = json.loads(out)
    assert (doc["launcher"], doc["wrapper"], doc["nproc_per_node"], doc["script"]) == (
        "torchrun", "srun", 8, "train.py"), doc
    assert doc["env"]["set"] == {"NCCL_DEBUG": "INFO"}, doc["env"]
    # the same line in a script: the same plan
    (tmp_path / "job.sh").write_text("#!/bin/bash\nnsys profile -o out --trace=cuda,nvtx torchrun --nnodes 2 "
                                     "--nproc-per-node 8 --rdzv-endpoint gpu1:29500 --rdzv-backend c10d train.py\n")
    rc, out, err = gpudoctor_cli("plan", "--json", "job.sh")
    assert rc == 0, err
    la = json.loads(out)["launches"][0]
    assert (la["plan"]["launcher"], la["plan"]["world_size"]) == ("torchrun", {"min": 16, "max": 16}), la
    # nsys that starts no application is still no launcher: one line, exit 2
    rc, out, err = gpudoctor_cli("plan", "--launch", "nsys stats report.nsys-rep")
    assert rc == 2 and out == "" and len(err.splitlines()) == 1 and "not a launcher" in err, err
