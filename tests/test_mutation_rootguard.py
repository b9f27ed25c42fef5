"""Cases for the mutants of gpudoctor/explain/rootguard.py and gpudoctor/explain/waits.py (docs/mutation.md,
sixth round): at_rendezvous() with each piece of hang.evidence that says the job got past the process group's
start, the store client's line as an input's last line (its 4-line window, the noise after it, a second input), and
rendezvous.init_hang's note compared whole for torch's store-based barrier (with and without a complaint, its own
count), a framework's init line and the user's words; waits' unresolved() / still_waiting() on a scan's signals.
The store-based barrier lines are torch's format (torch/distributed/distributed_c10d.py _store_based_barrier), the
init line Lightning's (lightning/fabric/utilities/distributed.py _init_dist_connection)."""

from types import SimpleNamespace

import pytest

from gpudoctor import explain
from gpudoctor.explain import rootguard as R
from gpudoctor.explain import waits as W

ADDED = "Added key: store_based_barrier_key:1 to store for rank: 0"
WAIT = ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
        "(world_size=4, num_workers_joined=3, timeout=0:30:00)")
LIGHT = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2"
STORE = "[W1126 11:43:19.583 socket.cpp:207] [c10d] The hostname of the client socket cannot be retrieved. err=-3"
TAIL = (", with no NCCL line in the text: init_process_group first waits in its rendezvous store until every rank of "
        "the world size has joined, and torch creates NCCL's communicator only at the first collective (eagerly only "
        "with device_id=), so the ranks have not met yet: not an NCCL hang. The causes below are what keeps them "
        "apart; one that a line of the text points at comes first.")


def _hang(kb, text, assume_error=False):
    res = explain.explain_text(text, kb, assume_error=assume_error)
    f = res["findings"][0] if res["findings"] else {}
    return f.get("id"), f.get("kind"), [(m["line"], m["text"]) for m in f.get("matches", [])], (f.get("notes") or [""])[0]


def test_the_store_based_barrier_with_torchs_count(kb):
    assert _hang(kb, ADDED + "\n" + WAIT + "\n") == (
        "rendezvous.init_hang", "error", [(2, WAIT)],
        "How sure: medium. The job waits, and it stops inside init_process_group, in torch's store-based barrier "
        "(line 2: %s): torch's own count says 3 of 4 ranks joined%s" % (WAIT, TAIL))
    # the user's complaint on its own line is quoted and shown too
    assert _hang(kb, "my job hangs\n" + ADDED + "\n" + WAIT + "\n") == (
        "rendezvous.init_hang", "error", [(3, WAIT), (1, "my job hangs")],
        "How sure: medium. The text says the job hangs (line 1: my job hangs), and it stops inside init_process_group, "
        "in torch's store-based barrier (line 3: %s): torch's own count says 3 of 4 ranks joined%s" % (WAIT, TAIL))


def test_a_frameworks_init_line_and_the_users_words(kb):
    assert _hang(kb, LIGHT + "\nthe training hangs here forever\n", True) == (
        "rendezvous.init_hang", "error", [(1, LIGHT), (2, "the training hangs here forever")],
        "How sure: low. The text says the job hangs (line 2: the training hangs here forever), and it stops at the "
        "process group's start (line 1: %s)%s" % (LIGHT, TAIL))
    # the line where it stopped is quoted to 160 characters
    long = "x" * 170 + " " + LIGHT
    got = _hang(kb, long + "\nthe training hangs here forever\n", True)[3]
    assert "(line 1: %s [...])," % ("x" * 154) in got and "x" * 155 not in got, got
    assert _hang(kb, "it hangs at init_process_group\n", True) == (
        "rendezvous.init_hang", "error", [(1, "it hangs at init_process_group")],
        "How sure: low. The job waits, and it stops at the process group's start (line 1: it hangs at "
        "init_process_group)%s" % TAIL)


def _ev(**kw):
    ev = {"stage": "pg_init", "last": (3, WAIT, None)}
    ev.update(kw)
    return ev


def _tails(*lines):
    return [{"user": list(enumerate(lines, 1))}]


@pytest.mark.parametrize("extra", [
    {"slow": True}, {"info": True}, {"nccl_tests": True}, {"words": {"gloo_ok": True}}, {"words": {"later": True}},
    {"pyspy": [{"collective": "all_reduce"}]},
])
def test_evidence_that_the_job_got_further(extra):
    tails = _tails(ADDED, "x", WAIT)
    assert R.at_rendezvous(_ev(), tails) == (3, WAIT)
    assert R.at_rendezvous(_ev(**extra), tails) is None
    # a py-spy dump outside a collective says nothing
    assert R.at_rendezvous(_ev(pyspy=[{"collective": None}], words={}), tails) == (3, WAIT)


@pytest.mark.parametrize("line", [
    "node1:1:2 [0] NCCL INFO Bootstrap : Using eth0", "node1:1:2 [0] misc/socket.cc:50 NCCL WARN Net : x",
    "dist.init_process_group('nccl', device_id=torch.device('cuda', 0))", "stuck at dist.barrier()",
])
def test_a_line_anywhere_that_says_nccl_or_a_collective_ran(line):
    assert R.at_rendezvous(_ev(), _tails(line, "x", WAIT)) is None


def test_a_line_after_it_that_says_training_ran():
    assert R.at_rendezvous(_ev(), _tails(ADDED, "x", WAIT, "epoch 1 loss: 0.5")) is None
    assert R.at_rendezvous(_ev(), _tails("epoch 1 loss: 0.5", "x", WAIT)) == (3, WAIT)
    # the user's own line that names an epoch is where it stopped, not past it
    said = "training hangs in init_process_group before epoch 1"
    assert R.at_rendezvous({"stage": "init", "last": (2, said, None)}, _tails("x", said)) == (2, said)


def test_the_stage_said_and_the_store_line_last():
    # no stage and no line: the input that ends at the c10d store client's own line
    assert R.at_rendezvous({}, _tails(ADDED, STORE, "^C", "")) == (2, STORE)
    # a stage said without its line is not read from the store line
    assert R.at_rendezvous({"stage": "pg_init"}, _tails(ADDED, STORE)) is None
    assert R.at_rendezvous({"stage": "nccl_init", "last": (2, STORE, None)}, _tails(ADDED, STORE)) is None


def test_the_store_line_as_an_inputs_last_line():
    assert R._store_line_last(_tails(STORE, "x")) is None
    assert R._store_line_last(_tails(STORE)) == (1, STORE, None)
    # only the last 4 lines: noise after it is skipped, a 5th line back is not read
    assert R._store_line_last(_tails("a", STORE, "", "$", "KeyboardInterrupt")) == (2, STORE, None)
    assert R._store_line_last(_tails(STORE, "", "$", "#", "^C")) is None
    # the first 40 characters tell noise
    assert R._store_line_last(_tails(STORE, " " * 40 + "x")) == (1, STORE, None)
    # the next input is read when this one ends otherwise
    assert R._store_line_last([{"user": [(1, "other")]}, {"user": [(5, STORE)]}, {}]) == (5, STORE, None)


# ------------------------------------------------------------------ waits.py

PAT = object()
ENTRY = {"_resolved_by": PAT, "resolved_by": r"Step created for (?:StepId=|job \d)"}


def _scan(*lines):
    return SimpleNamespace(signals={PAT: [SimpleNamespace(line=n) for n in lines]})


def test_a_wait_with_no_line_after_it_that_ends_it():
    hits = {"hits": [SimpleNamespace(line=3), SimpleNamespace(line=7)]}
    assert W.unresolved(_scan(), ENTRY, {"lines": [3, 7]})
    assert W.unresolved(_scan(2, 7), ENTRY, hits)  # (a line at the last wait itself is no end of it)
    assert not W.unresolved(_scan(8), ENTRY, {"lines": [3, 7]})
    assert not W.unresolved(_scan(8), ENTRY, hits)
    assert not W.unresolved(_scan(), {"resolved_by": "x"}, {"lines": [3]})
    assert not W.unresolved(_scan(), ENTRY, {"lines": []}) and not W.unresolved(_scan(), ENTRY, {})
    want = ("How sure: medium. A wait, not an error: line 7 is the last retry, and no line after it says the wait ended "
            "('Step created for ...'), with nothing else failed in this text: when it was taken, the program was "
            "still waiting for this.")
    assert W.still_waiting(_scan(2), ENTRY, {"lines": [3, 7]}) == want
    assert W.still_waiting(_scan(2), ENTRY, hits) == want
    assert W.still_waiting(_scan(9), ENTRY, hits) is None


# ------------------------------------------------------------------ first_in_thread (NCCL's prefix, src/debug.cc)

def _w(line, tid=5678, host="node1", pid=1234, text="x"):
    return SimpleNamespace(line=line, text="%s:%d:%d [0] transport/net.cc:100 NCCL WARN %s" % (host, pid, tid, text))


def _m(*hits):
    return {"hits": list(hits)}


BY = {"root": {"kind": "error"}, "b": {"kind": "error"}, "c": {"kind": "error"}, "echo": {"kind": "echo"},
      "gen": {"kind": "error", "generic": True}, "rootgen": {"kind": "error", "generic": True}}


def test_the_first_warn_of_the_roots_thread_is_the_root():
    matched = {"root": _m(_w(9)), "b": _m(_w(5)), "c": _m(_w(3)), "echo": _m(_w(2)), "gen": _m(_w(1))}
    assert R.first_in_thread(["root"], matched, BY) == ["root"]
    assert R.first_in_thread(["root", "b"], matched, BY) == ["b", "root"]
    # the earliest of them; an echo and a family entry (while the root is specific) are passed over
    assert R.first_in_thread(["root", "echo", "b", "gen", "c"], matched, BY) == ["c", "root", "echo", "b", "gen"]
    assert R.first_in_thread(["rootgen", "gen"], dict(matched, rootgen=_m(_w(9))), BY) == ["gen", "rootgen"]
    # two at the same line: the first in the order
    assert R.first_in_thread(["root", "b", "c"], dict(matched, c=_m(_w(5))), BY) == ["b", "root", "c"]
    # another thread, a later line, an echo root, a root without a WARN line: unchanged
    assert R.first_in_thread(["root", "b"], dict(matched, b=_m(_w(5, tid=1))), BY) == ["root", "b"]
    assert R.first_in_thread(["root", "b"], dict(matched, b=_m(_w(10))), BY) == ["root", "b"]
    assert R.first_in_thread(["echo", "b"], matched, BY) == ["echo", "b"]
    assert R.first_in_thread(["root", "b"], dict(matched, root=_m(SimpleNamespace(line=9, text="NCCL WARN x"))),
                             BY) == ["root", "b"]


def test_the_threads_first_warn_line():
    assert R._warn_threads(_m(_w(9), _w(4), _w(6), _w(2, tid=1), SimpleNamespace(line=1, text=None))) == {
        "node1:1234:5678": 4, "node1:1234:1": 2}


# ------------------------------------------------------------------ outside_component

URLLIB = [("/work/job/train.py", 3, "<module>"), ("/usr/lib/python3.11/urllib/request.py", 1348, "do_open")]
BY_RDZV = {"rendezvous.hostname": {"kind": "error"}, "rendezvous.echo": {"kind": "echo"}, "b": {"kind": "error"},
           "c": {"kind": "error"}}


def _tb(frames, header=10, last=14):
    return {"header_line": header, "line": last, "frames": frames}


def test_a_rendezvous_line_inside_another_librarys_traceback():
    scan = SimpleNamespace(tracebacks=[_tb(URLLIB), _tb(URLLIB, None, 30)])
    order = ["rendezvous.hostname", "b", "c"]
    hit = {"rendezvous.hostname": {"hits": [SimpleNamespace(line=14)]}}
    assert R.outside_component(order, hit, BY_RDZV, scan) == (["b", "c"], ["rendezvous.hostname"])
    assert R.outside_component(order, {"rendezvous.hostname": {"lines": [10, 12]}}, BY_RDZV, scan) == (
        ["b", "c"], ["rendezvous.hostname"])
    # kept: a line outside every traceback (one without its header line is none), a traceback of one frame, one
    # that enters torch.distributed, no traceback or no line, not a guarded family, an echo, nothing
    for tbs, m in [([_tb(URLLIB)], {"lines": [14, 15]}), ([_tb(URLLIB, None, 30)], {"lines": [20]}),
                   ([_tb(URLLIB[:1])], {"lines": [12]}),
                   ([_tb(URLLIB + [("/opt/sp/torch/distributed/rendezvous.py", 1, "f")])], {"lines": [12]}),
                   ([], {"lines": [12]}), ([_tb(URLLIB)], {"lines": []}), ([_tb(URLLIB)], {})]:
        assert R.outside_component(order, {"rendezvous.hostname": m}, BY_RDZV, SimpleNamespace(tracebacks=tbs)) == \
            (order, []), (tbs, m)
    assert R.outside_component(["b", "c"], {"b": {"lines": [12]}}, BY_RDZV, scan) == (["b", "c"], [])
    assert R.outside_component(["rendezvous.echo"], {"rendezvous.echo": {"lines": [12]}}, BY_RDZV, scan) == (
        ["rendezvous.echo"], [])
    assert R.outside_component([], {}, BY_RDZV, scan) == ([], [])
    assert R.outside_component(order, hit, BY_RDZV, SimpleNamespace()) == (order, [])


def test_from_the_after_runs_survivors(kb):
    # an echo root keeps its place even when another entry has an earlier WARN of its thread
    matched = {"echo": _m(_w(9)), "b": _m(_w(5))}
    assert R.first_in_thread(["echo", "b"], matched, BY) == ["echo", "b"]
    # rendezvous.init_hang's finding is the structural kind (read from the text's shape, hang._made)
    res = explain.explain_text(ADDED + "\n" + WAIT + "\n", kb)
    assert res["findings"][0]["confidence"] == "structural"
