"""ncclinfo's split-host-identity answer said whole (words16's hunk of _answer; mutation17, docs/mutation.md "Round
12"): the fixture whose two ranks set their own NCCL_HOSTID on one H100 VM (fixtures/explain/nccl-info-h100-2026-11-25,
its README), with a user's sentence on top as in tests/test_explain_words16.py: the note and the first cause in full,
the line the finding points at, a slowness told only in ncclinfo's own complaint words, a long sentence clipped, and
the ENV lines' values (two, one, none, a long one)."""

import os

from gpudoctor import explain
from gpudoctor.explain import ncclinfo

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(REPO, "fixtures", "explain", "nccl-info-h100-2026-11-25", "fakehosts-2ranks-default.log"),
          encoding="utf-8") as _f:
    FIXTURE = _f.read()
TOLD = "all_reduce of 4 MiB takes 40 ms in this job; the same script started without our wrapper takes 0.3 ms."
HEAD = ("The ranks run on one machine (vm) but have different NCCL host identities (NCCL_HOSTID set per rank, or each "
        "rank in its own container): NCCL counts 2 nodes and connects them over the network.")


def _first(sentence, log=FIXTURE):
    r = explain.explain_text(sentence + "\n" + log)
    assert r["verdict"] == "root_cause"
    return r["findings"][0]


def _line_of(text, needle):
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def _note(told):
    return ncclinfo._SPLIT_HOST % (1, ncclinfo._clip(told, 120), "vm", 2, "NET/Socket x8")


def test_the_answer_said_whole():
    f = _first(TOLD)
    assert f["id"] == "nccl.falls_back_to_sockets" and f["confidence"] == "cause"
    assert f["first_line"] == 1 + _line_of(FIXTURE, "nRanks 2 nNodes 2")  # NCCL's comm line, not the told one
    assert f["notes"][0] == ("How sure: high. Your words tell a slowdown (line 1: %s), and every NCCL line comes from "
                             "one host (vm) while NCCL counts 2 nodes (nNodes, localRanks 1): NCCL groups ranks by a "
                             "hash of the hostname and the boot id, which NCCL_HOSTID replaces (src/misc/utils.cc "
                             "getHostHash), so these ranks have different host identities on one machine and talk "
                             "over the network (NET/Socket x8) instead of NVLink / PCIe P2P or shared memory." % TOLD)
    env = 1 + _line_of(FIXTURE, "NCCL_HOSTID set by environment to fakenode1")
    assert f["causes"][0] == {
        "text": HEAD + " NCCL's ENV lines show NCCL_HOSTID set to fakenode1, fakenode0 (line %d)." % env,
        "checks": [], "confirm": [], "fix": [ncclinfo._SPLIT_HOST_FIX], "exports": {}, "static_rank": 0,
        "computed": None, "evidence": []}
    assert f["causes"][0]["fix"][0].startswith("Give the ranks of one machine one host identity: unset NCCL_HOSTID")


def test_a_long_sentence_is_clipped_in_the_note():
    told = "all_reduce is much slower than on the other cluster, " + "with the same script and the same model " * 3
    assert len(told) > 130
    f = _first(told)
    assert f["notes"][0] == _note(told)
    assert "(line 1: %s...)" % told[:117] in f["notes"][0]


def test_bandwidth_told_in_ncclinfos_own_complaint_words():
    # 'low bandwidth' is ncclinfo's complaint (COMPLAINTS), not settings' told slowness: the split answer reads it too,
    # whatever its case
    for told in ("Low bandwidth in all_reduce with our wrapper.", "LOW BANDWIDTH in all_reduce with our wrapper."):
        f = _first(told)
        assert f["id"] == "nccl.falls_back_to_sockets" and f["notes"][0] == _note(told)
    # a hang is not a slowdown: two identities on one machine cost bandwidth, they do not make a job hang
    f = _first("The job hangs after init with our wrapper.")
    assert not f["notes"][0].startswith("How sure: high. Your words tell a slowdown")
    assert not f["causes"][0]["text"].startswith("The ranks run on one machine")


def _without(needle, log=FIXTURE):
    return "".join(line for line in log.splitlines(True) if needle not in line)


def test_the_env_lines_values():
    one = _without("NCCL_HOSTID set by environment to fakenode1")
    f = _first(TOLD, one)
    env = 1 + _line_of(one, "NCCL_HOSTID set by environment to fakenode0")
    assert f["causes"][0]["text"] == HEAD + " NCCL's ENV lines show NCCL_HOSTID set to fakenode0 (line %d)." % env
    none = _without("NCCL_HOSTID set by environment")
    f = _first(TOLD, none)
    assert f["causes"][0]["text"] == HEAD  # (nothing shown: no ENV line)
    # two long values (NCCL prints up to 120 characters of one): the list is clipped at 200 characters
    a, b = "node1-" + "y" * 100, "node0-" + "x" * 100
    log = FIXTURE.replace("environment to fakenode1", "environment to " + a).replace("environment to fakenode0",
                                                                                     "environment to " + b)
    f = _first(TOLD, log)
    assert f["causes"][0]["text"] == HEAD + " NCCL's ENV lines show NCCL_HOSTID set to %s (line %d)." % (
        (a + ", " + b)[:200], 1 + _line_of(FIXTURE, "to fakenode1"))


def test_every_transport_is_named_in_the_note():
    # one channel over another network transport beside the sockets (a line added in NCCL's form; ncclinfo's scan
    # reads the network channels only): both are counted, in name order
    shm = "vm:559:559 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
    at = FIXTURE.index("vm:560:560 [0] NCCL INFO comm 0x2a8d8d50 rank 1 nranks 2 cudaDev 0 busId 60 - Destroy")
    f = _first(TOLD, FIXTURE[:at] + shm + FIXTURE[at:])
    assert "talk over the network (NET/IB x1, NET/Socket x8) instead of" in f["notes"][0]
