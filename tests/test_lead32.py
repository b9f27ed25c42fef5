"""Session 32, the lead's changes to explain (issue 18).

An integer NCCL variable written with a unit, a fraction or an exponent (NCCL_BUFFSIZE=4MB) is read by NCCL's
ncclLoadParam with strtoll(str, NULL, 0), which takes the leading number only: explain names what NCCL used and the
value meant. The reading is checked against the C library's own strtoll (ctypes), the reference NCCL calls."""

import ctypes
import ctypes.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_libc.strtoll.restype = ctypes.c_longlong
_libc.strtoll.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]


@pytest.mark.parametrize("value", ["4MB", "1.5M", "128KiB", "1e6", "0.5", "512x", "010", "0x10k", "-3k", " 7 MB"])
def test_the_number_named_is_the_one_strtoll_reads(value):
    from gpudoctor.explain.envcause import _misread_integer

    got = _misread_integer("NCCL_BUFFSIZE", value, "4194304")
    assert got is not None, value
    read = _libc.strtoll(value.encode(), None, 0)
    assert "'set by environment to %d'" % read in got[0], (value, read, got)


@pytest.mark.parametrize("value", ["4194304", "0x400000", "-1", "0", "abc", "", "mlx5_0"])
def test_a_value_strtoll_reads_whole_or_not_at_all_is_left(value):
    from gpudoctor.explain.envcause import _misread_integer

    assert _misread_integer("NCCL_BUFFSIZE", value, "4194304") is None


def test_a_size_with_a_unit_gets_its_bytes_and_other_integers_a_plain_number():
    from gpudoctor.explain.envcause import _misread_integer

    assert _misread_integer("NCCL_BUFFSIZE", "4MB", "4194304")[1].startswith("export NCCL_BUFFSIZE=4194304 ")
    assert _misread_integer("NCCL_P2P_NET_CHUNKSIZE", "128KiB", "131072")[1].startswith(
        "export NCCL_P2P_NET_CHUNKSIZE=131072 ")
    assert _misread_integer("NCCL_NTHREADS", "1e3", "512")[1].startswith("set NCCL_NTHREADS to a plain decimal")
    assert "octal" in _misread_integer("NCCL_BUFFSIZE", "010", "4194304")[0]
    # a variable whose default is no integer is not read so
    assert _misread_integer("NCCL_IB_HCA", "4MB", None) is None
    assert _misread_integer("NCCL_PROTO", "4MB", "Simple") is None


TEXT = ("$ NCCL_BUFFSIZE=4MB torchrun --nproc-per-node 8 train.py\n"
        "node1:123:123 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 4.\n"
        "[rank0]:[E1129 03:40:01.000000 123 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran "
        "for 600003 milliseconds before timing out.\n")


def test_explain_names_the_bytes_meant_first(tmp_path):
    import json

    log = tmp_path / "job.log"
    log.write_text(TEXT)
    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", "--json", str(log)], cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["root"] == "nccl.timeout", doc["root"]
    first = doc["findings"][0]["causes"][0]
    assert "leading number of '4MB': it used 4" in first["text"], first
    assert first["fix"][0].startswith("export NCCL_BUFFSIZE=4194304"), first
    # the line as written is the evidence, before NCCL's own ENV line
    assert [e["line"] for e in first["evidence"]][:2] == [1, 2], first["evidence"]


def test_a_plain_integer_keeps_the_general_cause(tmp_path):
    import json

    log = tmp_path / "job.log"
    log.write_text(TEXT.replace("4MB", "4").replace("set by environment to 4.", "set by environment to 4."))
    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", "--json", str(log)], cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    causes = doc["findings"][0]["causes"]
    assert any("NCCL_BUFFSIZE is set to 4 " in c["text"] for c in causes), causes  # the general cause stays
    assert not any("leading number" in c["text"] for c in causes), causes


def test_the_family_answers_note_keeps_the_knowledges_command_as_written(tmp_path):
    """analyze._tell_apart's note is the knowledge's own words (the entry's first debug line): it reads as written,
    `free -g; sacct ...` and `grep -iE 'killed process|out of memory|oom'`, where 58.'s guard wrote $'(confirm:)\\x3b'
    (recorded: fixtures/recorded/explain-lifecycle31/el_kill.txt, torchrun's report of a SIGKILLed rank)."""
    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain",
                        os.path.join(ROOT, "fixtures/recorded/explain-lifecycle31/el_kill.txt")], cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=ROOT, COLUMNS="300"), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    flat = " ".join(p.stdout.split())
    assert "says what to look for (confirm:); if the log has no such line" in flat, p.stdout
    assert "grep -iE 'killed process|out of memory|oom'" in flat
    assert "\\x3b" not in p.stdout


REC = os.path.join(ROOT, "fixtures/recorded/h200-2026-11-29-lead32")


@pytest.mark.parametrize("value", ["4MB", "1.5M", "010"])
def test_the_reading_agrees_with_real_nccl_on_an_h200(value):
    """NCCL 2.28.9's own ENV line (recorded on an H200) prints the number gpudoctor says NCCL used."""
    import re

    from gpudoctor.explain.envcause import _misread_integer

    with open(os.path.join(REC, "buffsize_%s.txt" % value)) as f:
        used = re.search(r"NCCL INFO NCCL_BUFFSIZE set by environment to (-?\d+)\.", f.read()).group(1)
    assert "'set by environment to %s'" % used in _misread_integer("NCCL_BUFFSIZE", value, "4194304")[0]
    with open(os.path.join(REC, "buffsize_4194304.txt")) as f:
        assert "NCCL_BUFFSIZE set by environment to 4194304." in f.read()
    assert _misread_integer("NCCL_BUFFSIZE", "4194304", "4194304") is None


def test_ddp_ready_twice_names_the_parameter_used_outside_forward_first(tmp_path):
    """A real DDP run (fixtures/recorded/lead32/ddp_outside.txt): the first cause is reducer.cpp's reason 1, with the
    fix the recording beside it verified (ddp_inside.txt: use it inside forward, return it with the outputs)."""
    import json

    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", "--json",
                        os.path.join(ROOT, "fixtures/recorded/lead32/ddp_outside.txt")], cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    assert doc["root"] == "torch.ddp_ready_twice", doc["root"]
    first = doc["findings"][0]["causes"][0]
    assert first["text"].startswith("A parameter of the wrapped module is used outside its forward"), first
    assert "inside the module's forward" in first["fix"][0]
    with open(os.path.join(ROOT, "fixtures/recorded/lead32/ddp_inside.txt")) as f:
        assert f.read().rstrip().endswith("rc=0")


def test_a_group_used_after_destroy_process_group_is_named_by_its_call(tmp_path):
    """fixtures/recorded/lead32/pg_destroyed.txt (a real 2-rank gloo run): the traceback shows new_group only, not
    the destroy_process_group() before it; the destroyed-group cause is among the first two, with the fix its fixed
    recording verified (pg_destroyed_fixed.txt)."""
    import json

    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", "--json",
                        os.path.join(ROOT, "fixtures/recorded/lead32/pg_destroyed.txt")], cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    assert doc["root"] == "torch.pg_not_initialized", doc["root"]
    texts = [c["text"] for c in doc["findings"][0]["causes"]][:2]
    assert any(t.startswith("The process group existed and was destroyed before this call") for t in texts), texts
    with open(os.path.join(ROOT, "fixtures/recorded/lead32/pg_destroyed_fixed.txt")) as f:
        assert f.read().rstrip().endswith("rc=0")
