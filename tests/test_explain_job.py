"""`gpudoctor explain` over a whole job (issue 18 item 4): several files or a folder answered
once, the first failing rank / node / time in the headline and the rest folded as echoes;
PyTorch Flight Recorder dumps (real ones made with torch's gloo backend, and ones built from
pytorch's own Flight Recorder tests) naming the rank that never arrived; the restricted
unpickler; inputs that are not regular files."""

import io
import json
import os
import pickle

import pytest

from conftest import FIXTURES
from gpudoctor import explain
from gpudoctor.explain import flight, inputs
from gpudoctor.explain.text import origin

FR = os.path.join(FIXTURES, "flight_recorder")


@pytest.mark.parametrize("line,want", [
    ("[rank3]:[E1123 12:00:01.123456 77 ProcessGroupNCCL.cpp:616] x", ("3", None, "11-23 12:00:01.123456")),
    ("5: gpu-b:2222:2300 [1] NCCL WARN x", ("5", "gpu-b", None)),
    ("worker-1: [default2]: RuntimeError: x", ("local 2", "worker-1", None)),
    ("[1,6]<stderr>: boom", ("6", None, None)),
    ("2024-03-01 12:00:01,250 - ERROR - x", (None, None, "2024-03-01 12:00:01.250")),
    ("Nov 23 01:02:03 gpu07 kernel: NVRM: Xid 79", (None, "gpu07", "Nov 23 01:02:03")),
    ("(RayTrainWorker pid=12, ip=10.0.0.7) x", (None, "10.0.0.7", None)),
    ("RuntimeError: no prefix at all", (None, None, None)),
])
def test_the_rank_host_and_time_of_a_line_come_from_its_prefixes(line, want):
    rank, host, when = origin(line)
    assert (rank, host, when[2] if when else None) == want


def _job(tmp_path):
    """Two nodes' logs (srun -l labels, logging timestamps, NCCL's host:pid:tid prefix): the same
    error on every rank; rank 5 on gpu-b printed it first, though gpu-a's file comes first."""
    d = tmp_path / "job"
    d.mkdir()
    err = "NCCL WARN Call to connect returned Connection refused, retrying"
    for node, ranks, sec in (("gpu-a", range(0, 4), 9), ("gpu-b", range(4, 8), 1)):
        lines = ["%d: [2024-03-01 12:00:00,000] step 10 loss 0.31" % r for r in ranks]
        for r in ranks:
            s = sec if r != 5 else 1
            s = s + 1 if (node == "gpu-b" and r != 5) else s
            lines.append("%d: [2024-03-01 12:00:%02d,000] %s:%d:%d [%d] %s" % (r, s, node, 1000 + r, 2000 + r, r % 4,
                                                                         err))
        (d / ("slurm-77-%s.out" % node)).write_text("\n".join(lines) + "\n")
    return d


def test_a_folder_of_node_logs_names_the_first_failing_rank_node_and_time(kb, tmp_path):
    d = _job(tmp_path)
    logs, fr, reports = inputs.collect([str(d)])
    assert fr is None and reports == [] and [os.path.basename(p) for p, _ in logs] == ["slurm-77-gpu-a.out", "slurm-77-gpu-b.out"]
    res = explain.explain_inputs(logs, kb)
    f = res["findings"][0]
    assert f["origin"]["rank"] == "5" and f["origin"]["host"] == "gpu-b"
    assert f["origin"]["time"] == "2024-03-01 12:00:01.000" and f["origin"]["file"].endswith("gpu-b.out")
    assert f["origin"]["line"] == 6  # its own file's line, not the job's
    assert f["spread"]["ranks"] == 8 and f["spread"]["hosts"] == 2 and f["spread"]["files"] == 2
    assert len(res["sources"]) == 2 and res["lines"] == 16
    assert all(m["file"] in (logs[0][0], logs[1][0]) for m in f["matches"])


def test_cli_files_or_folder_answer_once_for_the_job(cli, tmp_path):
    d = _job(tmp_path)
    a, b = sorted(str(d / n) for n in os.listdir(d))
    rc1, out1, _ = cli("explain", a, b)
    rc2, out2, _ = cli("explain", str(d))
    assert rc1 == rc2 and out1 == out2 and out1.startswith("gpudoctor explain: 2 files (16 lines)")
    assert out1.count("LIKELY CAUSE (not proven by this text)") == 1 and "ROOT CAUSE" not in out1
    assert "first: rank 5 on gpu-b at 2024-03-01 12:00:01.000 (%s line 6)" % b in out1
    assert "the same error on 7 other ranks and 1 other host: echoes of the first" in out1
    rc, out, _ = cli("explain", "--json", "--file", a, "--file", b)
    doc = json.loads(out)
    assert [s["path"] for s in doc["sources"]] == [a, b] and doc["findings"][0]["origin"]["rank"] == "5"


def test_an_error_text_argument_is_still_text_and_a_missing_log_is_exit_2(cli, tmp_path):
    rc, out, _ = cli("explain", "ncclSystemError: System call (e.g. socket, malloc) or external library "
                                          "call failed")
    assert "<argument>" in out and "ROOT CAUSE" in out
    for args in (("explain", "slurm-123.out"), ("explain", str(tmp_path / "nope.log")),
                 ("explain", "a.log", "b.log")):
        rc, out, err = cli(*args)
        assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and "no such file" in err, args


def test_a_fifo_or_device_is_refused_before_it_is_read(gpudoctor_cli, cli, tmp_path):
    fifo = tmp_path / "pipe.log"
    os.mkfifo(str(fifo))
    rc, out, err = gpudoctor_cli("explain", str(fifo))  # a subprocess: a blocking open (no writer) would hang
    assert rc == 2 and out == "" and "not a regular file" in err and len(err.strip().splitlines()) == 1
    for args in (("explain", "--file", str(fifo)), ("explain", "/dev/zero")):
        rc, out, err = cli(*args)
        assert rc == 2 and out == "" and "not a regular file" in err and len(err.strip().splitlines()) == 1, args
    d = tmp_path / "logs"
    d.mkdir()
    (d / "rank0.log").write_text("RuntimeError: Address already in use\n")
    os.mkfifo(str(d / "rank1.log"))
    os.symlink("/etc", str(d / "etc"))  # a link to a folder is not walked
    logs, _, _ = inputs.collect([str(d)])
    assert [os.path.basename(p) for p, _ in logs] == ["rank0.log"]


# ------------------------------------------------------------------ Flight Recorder


def test_real_gloo_dumps_name_the_rank_that_never_arrived_and_the_collective(cli):
    d = os.path.join(FR, "gloo-skip")
    rc, out, _ = cli("explain", "--json", d)
    doc = json.loads(out)
    fr = doc["flight_recorder"]
    assert fr["dumps"] == 2 and fr["ranks"] == [0, 1] and fr["unreadable"] == []
    top = fr["findings"][0]
    assert (top["kind"], top["ranks"], top["waiting"], top["collective"], top["seq"]) == \
        ("not_arrived", [1], [0], "all_reduce", 3)
    assert doc["root"] == "flight_recorder.not_arrived" and doc["findings"][0]["origin"]["rank"] == "1"
    # the gloo timeout rank 0 printed is the echo, not the cause
    assert all(f["role"] != "root" for f in doc["findings"][1:])
    rc, out, _ = cli("explain", d)
    assert rc == 0 and "rank 1 never called collective #3 (all_reduce)" in out


def test_real_gloo_dumps_name_a_mismatched_collective(kb):
    paths = sorted(os.path.join(FR, "gloo-mismatch", n) for n in os.listdir(os.path.join(FR, "gloo-mismatch")))
    fr = flight.read_dumps(paths)
    top = fr["findings"][0]
    assert top["kind"] == "mismatch" and top["seq"] == 4
    assert "rank 0 called all_reduce" in top["text"] and "rank 1 called broadcast" in top["text"]


def _pytorch_entry(record_id, name, seq, state="completed", sizes=((4, 4),)):
    """An entry as pytorch's own Flight Recorder tests build them (create_one_entry in
    test/distributed/flight_recorder/test_fr_analysis.py), with an NCCL profiling name."""
    return {"record_id": record_id, "profiling_name": "nccl:%s" % name, "state": state,
            "process_group": ("0", "default_pg"), "input_sizes": [list(s) for s in sizes],
            "output_sizes": [list(s) for s in sizes], "input_dtypes": "float32", "output_dtypes": "float32",
            "collective_seq_id": str(seq), "p2p_seq_id": "0", "time_created_ns": 0, "frames": [],
            "is_p2p": False}


def _pytorch_dump(entries):
    return pickle.dumps({"version": "2.8", "entries": entries,
                         "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}}},
                        protocol=2)


def test_nccl_shaped_dumps_from_pytorchs_tests_name_the_late_rank(tmp_path):
    for r in range(4):
        n = 5 if r == 2 else 6
        entries = [_pytorch_entry(i, "all_reduce", i + 1, "completed" if i + 1 < n else "scheduled") for i in range(n)]
        (tmp_path / ("nccl_trace_rank_%d" % r)).write_bytes(_pytorch_dump(entries))
    (tmp_path / "nccl_trace_rank_3").unlink()  # rank 3 died: no dump
    fr = flight.read_dumps(sorted(str(p) for p in tmp_path.iterdir()))
    kinds = [(f["kind"], f["ranks"]) for f in fr["findings"]]
    assert kinds == [("not_arrived", [2]), ("no_dump", [3])]
    assert fr["findings"][0]["seq"] == 6 and fr["findings"][0]["waiting"] == [0, 1]
    other = tmp_path / "attempt_1"
    other.mkdir()
    (other / "nccl_trace_rank_0").write_bytes(_pytorch_dump([_pytorch_entry(0, "all_reduce", 1)]))
    fr = flight.read_dumps(sorted(str(p) for p in tmp_path.rglob("nccl_trace_rank_*")))
    assert fr["dumps"] == 3 and "a second dump of rank 0" in fr["unreadable"][0]["why"]


def test_a_collective_that_never_started_on_one_rank_is_named(tmp_path, kb):
    for r in range(3):
        entries = [_pytorch_entry(0, "all_reduce", 1), _pytorch_entry(1, "all_gather", 2,
                                                                      "scheduled" if r == 1 else "started")]
        (tmp_path / ("nccl_trace_rank_%d" % r)).write_bytes(_pytorch_dump(entries))
    logs, fr, _ = inputs.collect([str(tmp_path)])
    top = fr["findings"][0]
    assert (top["kind"], top["ranks"], top["waiting"], top["collective"]) == ("not_started", [1], [0, 2], "all_gather")
    res = explain.explain_inputs(logs, kb, flight=fr)
    assert res["root"] == "flight_recorder.not_started" and res["findings"][0]["origin"]["rank"] == "1"


def test_a_pickle_that_runs_code_is_refused_not_run(tmp_path, kb):
    marker = tmp_path / "PWNED"

    class Evil:
        def __reduce__(self):
            return (os.system, ("touch %s" % marker,))

    d = tmp_path / "dumps"
    d.mkdir()
    (d / "nccl_trace_rank_0").write_bytes(pickle.dumps({"entries": [Evil()]}, protocol=2))
    (d / "nccl_trace_rank_1").write_bytes(b"\x80\x02garbage")
    logs, fr, _ = inputs.collect([str(d)])
    assert not marker.exists()
    assert fr["dumps"] == 0 and len(fr["unreadable"]) == 2
    assert "refused to load" in fr["unreadable"][0]["why"]
    with pytest.raises(flight.DumpError):
        flight.load_dump(pickle.dumps(io.BytesIO(b"x"), protocol=2))


def test_a_watchdog_timeout_alone_gets_the_advice_to_turn_the_recorder_on(kb):
    res = explain.explain_text(
        "[rank1]:[E1123 12:00:00.1 1 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 "
        "milliseconds before timing out.\n", kb)
    notes = [n for f in res["findings"] for n in f["notes"]]
    assert any("TORCH_NCCL_TRACE_BUFFER_SIZE" in n and "TORCH_NCCL_DUMP_ON_TIMEOUT=1" in n for n in notes)
    assert res["recorder_advice"]


# ------------------------------------------------------------------ NCCL RAS

# The client's text as NCCL prints it (src/ras/client_support.cc: the "Errors" section's DEAD
# and "#G-C (hash) INCOMPLETE" blocks, their "Process ... on node ... managing GPU" and "Rank ... --
# GPU ... managed by process ... on node ..." lines)
RAS_REPORT = """NCCL version 2.24.3+cuda12.4 compiled with CUDA 12.4
CUDA runtime version 12040, driver version 12040

Job summary
===========

  Nodes  Processes         GPUs  Processes     GPUs
(total)   per node     per node    (total)  (total)
      4          8            8         32       32

Gathering data about the RAS network (timeout 5s)... done

Communicators... (0.01s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         4         8        32        32   RUNNING  INCOMPLETE

Errors
======

DEAD
  1 job process is considered dead (unreachable via the RAS network)
  Process 3872 on node gpu-c managing GPU 5

#0-0 (27a079b828ff1a75) INCOMPLETE
  Missing communicator data from 1 rank
  Rank 21 -- GPU 5 managed by process 3872 on node gpu-c

Warnings
========

"""


def test_an_nccl_ras_report_names_the_dead_process_its_rank_and_node(cli, tmp_path):
    p = tmp_path / "ras.txt"
    p.write_text(RAS_REPORT)
    watchdog = tmp_path / "rank0.log"
    watchdog.write_text("[rank0]:[E1123 12:00:00.1 1 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
                        "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600003 milliseconds before "
                        "timing out.\n")
    rc, out, _ = cli("explain", "--json", str(tmp_path))
    doc = json.loads(out)
    f = doc["findings"][0]
    assert doc["root"] == "nccl.ras.dead" and f["origin"]["host"] == "gpu-c" and f["origin"]["rank"] == "21"
    assert "process 3872 on node gpu-c" in f["explain"]
    assert [i["kind"] for i in doc["ras"][0]["items"]] == ["dead", "incomplete"]
    assert any(x["role"] == "cascade" for x in doc["findings"][1:])  # the watchdog timeout: its echo
    rc, out, _ = cli("explain", RAS_REPORT)
    assert "ROOT CAUSE  nccl.ras.dead" in out and "first: rank 21 on gpu-c" in out


def test_per_rank_files_without_prefixes_take_the_rank_from_their_names(kb, tmp_path):
    d = tmp_path / "ranklogs" / "run1" / "attempt_0"
    for r, text in ((0, "step 10 loss 0.31\n"), (1, "step 10 loss 0.30\nRuntimeError: Address already in use\n")):
        (d / str(r)).mkdir(parents=True)
        (d / str(r) / "stderr.log").write_text(text)
    (tmp_path / "ranklogs" / "rank7.log").write_text("RuntimeError: Address already in use\n")
    logs, _, _ = inputs.collect([str(tmp_path / "ranklogs")])
    res = explain.explain_inputs(logs, kb)
    f = res["findings"][0]
    assert f["id"] == "rendezvous.address_in_use"
    assert f["origin"]["rank"] == "7" and f["origin"]["file"].endswith("rank7.log")  # name order: rank7.log first
    assert sorted(f["spread"]["rank_list"]) == ["7", "local 1"]
