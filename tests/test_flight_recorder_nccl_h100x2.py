"""Real Flight Recorder dumps that the NCCL watchdog wrote on two H100s (fixtures/flight_recorder/nccl-h100x2-*/,
bench/flight_recorder_nccl_h100x2.py): explain names the rank that skipped a collective and the collective, and the
collective two ranks called differently, as torch's own analyzer (fr_trace.txt beside the dumps) does."""

import json
import os

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "flight_recorder")


def explain(cli, folder):
    """`gpudoctor explain --json FOLDER` (the CLI in this process: what is tested is the answer, not a process)."""
    rc, out, err = cli("explain", "--json", os.path.join(HERE, folder))
    assert rc == 0, err
    return json.loads(out)


def test_a_rank_that_skipped_a_collective_is_named_with_the_collective(cli):
    d = explain(cli, "nccl-h100x2-skip")
    assert d["verdict"] == "root_cause" and d["root"] == "flight_recorder.not_arrived"
    fr = d["flight_recorder"]
    assert fr["dumps"] == 2 and fr["ranks"] == [0, 1]
    f = fr["findings"][0]
    assert (f["kind"], f["seq"], f["collective"], f["ranks"], f["waiting"]) == ("not_arrived", 3, "all_reduce", [1], [0])
    # torch's analyzer says the same of the same dumps
    ref = open(os.path.join(HERE, "nccl-h100x2-skip", "fr_trace.txt")).read()
    assert "sequence number: 3" in ref and "missing ranks: {1}" in ref


def test_two_ranks_calling_different_collectives_is_a_mismatch_naming_both(cli):
    d = explain(cli, "nccl-h100x2-mismatch")
    assert d["verdict"] == "root_cause" and d["root"] == "flight_recorder.mismatch"
    f = d["flight_recorder"]["findings"][0]
    assert f["kind"] == "mismatch" and f["seq"] == 4
    assert "all_reduce" in f["text"] and "_all_gather_base" in f["text"]
    ref = open(os.path.join(HERE, "nccl-h100x2-mismatch", "fr_trace.txt")).read()
    assert "COLLECTIVE_TYPE_MISMATCH" in ref and "'_all_gather_base'" in ref
