"""gpudoctor/explain/hang.py's torch and py-spy evidence (_torch_evidence through rank, pyspy_dumps,
record's store-based barrier and device-guess lines, _complaint), against the survivors of a mutation
run (docs/mutation.md, "This round's new code, third pass"): test_explain_errno_hangs.py judges them
through five whole texts, which reach few of the scores' branches. Each scenario is the evidence
evidence() builds; the expected answer is the whole ranking (cause, score as --json's `triage` shows
it, evidence lines, specific), reviewed against the rules the module cites: torch's
_store_based_barrier count (distributed_c10d.py: J of W ranks joined), ProcessGroupNCCL's
'using GPU N to perform barrier as devices used by this process are currently unknown' as one of the
input's last lines (pytorch/pytorch#124714), PyTorch's debugging docs (one process outside the
collective the others wait in), and 'works with gloo' (NCCL's transports, not the program). py-spy's
dump format is benfred/py-spy src/dump.rs ('Process %d: %s', 'Thread %#x (%s): "%s"', '    %s (%s:%d)').
In-process: ~0.3 s (the two whole texts ~1 s)."""

import types

import pytest

from gpudoctor import explain
from gpudoctor.explain import hang
from gpudoctor.explain.scan import Hit

from test_mutation_hang import L, ev

SBB_W = {"state": "wait", "line": 5, "text": "Waiting in store based barrier ... (world_size=4, num_workers_joined=3", "world": 4, "joined": 3}
def sbb(**kw):
    d = dict(SBB_W); d.update(kw); return d
GL = (3, "works with gloo")
def D(line, who, coll=None, top=None, user=None):
    return {"line": line, "who": who, "collective": coll, "top": top or (line + 1, "f (a.py:1)"), "user": user}
W1 = D(10, "p1", (12, "all_reduce (torch/distributed/distributed_c10d.py:100)"), (11, "wait (torch/cuda/__init__.py:9)"), (13, "train (train.py:40)"))
W2 = D(20, "p2", (22, "all_reduce (torch/distributed/distributed_c10d.py:100)"), (21, "wait (torch/cuda/__init__.py:9)"), (23, "train (train.py:40)"))
W3 = D(30, "p3", (32, "broadcast (torch/distributed/distributed_c10d.py:200)"), (31, "broadcast (torch/distributed/distributed_c10d.py:200)"), (33, "train (train.py:50)"))
W4 = D(40, "p4", (42, "all_reduce (torch/distributed/distributed_c10d.py:100)"), (41, "x (torch/x.py:1)"), (43, "evaluate (train.py:90)"))
W5 = D(50, "p5", (52, "all_reduce (torch/distributed/distributed_c10d.py:100)"), (51, "x (torch/x.py:1)"), None)
E1 = D(60, "p6", None, (61, "get (queue.py:179)"), (63, "evaluate (train.py:80)"))
E2 = D(70, "p7", None, (71, "main (train.py:80)"), (71, "main (train.py:80)"))

U = (13, "train (train.py:40)")  # one program line, two collectives under it
A1 = D(10, "p1", (12, "all_reduce (torch/distributed/distributed_c10d.py:100)"), (11, "x (torch/x.py:1)"), U)
A2 = D(20, "p2", (22, "all_reduce (torch/distributed/distributed_c10d.py:200)"), (21, "x (torch/x.py:1)"), U)
B2 = D(30, "p3", (32, "broadcast (torch/distributed/distributed_c10d.py:300)"), (31, "x (torch/x.py:1)"), U)
SCENARIOS = {
 # scores at the listing threshold (10) and shown: what each rule subtracts, exactly
 "gloo_ended": ev(stage="ended", last=L, words={"gloo_ok": GL}),
 "gloo_sbb_added": ev(words={"gloo_ok": GL}, sbb=sbb(state="added", world=None, joined=None)),
 "sbb_short_ended": ev(stage="ended", last=L, sbb=sbb()),
 # py-spy: the same program line, the same collective from two lines of torch / two collectives
 "py_same_site_two_lines": ev(pyspy=[A1, A2]),
 "py_same_site_two_names": ev(pyspy=[A1, B2]),
 "py_two_names_no_user": ev(pyspy=[W5, dict(W3, user=None)]),
 "gloo_one": ev(words={"gloo_ok": GL}),
 "gloo_multi": ev(multi=True, words={"gloo_ok": GL}),
 "gloo_slow": ev(slow=True, words={"gloo_ok": GL}),
 "sbb_short": ev(sbb=sbb()),
 "sbb_short_slow": ev(slow=True, sbb=sbb()),
 "sbb_full": ev(sbb=sbb(joined=4)),
 "sbb_over": ev(sbb=sbb(joined=8)),
 "sbb_no_count": ev(sbb=sbb(world=None, joined=None)),
 "sbb_zero": ev(sbb=sbb(joined=0)),
 "sbb_added": ev(sbb=sbb(state="added", world=None, joined=None)),
 "sbb_done_one": ev(sbb=sbb(state="done")),
 "sbb_done_multi": ev(multi=True, sbb=sbb(state="done")),
 "sbb_done_last": ev(stage="after_init", last=L, sbb=sbb(state="done")),
 "guess_end": ev(barrier=[(7, "using GPU 1 ..."), (9, "using GPU 0 ...")], ends=[12]),
 "guess_end0": ev(barrier=[(9, "using GPU 0 ...")], ends=[9]),
 "guess_far": ev(barrier=[(9, "using GPU 0 ...")], ends=[13]),
 "guess_before": ev(barrier=[(9, "using GPU 0 ...")], ends=[8]),
 "guess_noend": ev(barrier=[(9, "using GPU 0 ...")]),
 "guess_slow": ev(slow=True, barrier=[(9, "using GPU 0 ...")], ends=[9]),
 "py_elsewhere": ev(pyspy=[W1, E1]),
 "py_elsewhere_top": ev(pyspy=[W1, E2]),
 "py_two_names": ev(pyspy=[W1, W3]),
 "py_two_sites": ev(pyspy=[W1, W4]),
 "py_same_one": ev(pyspy=[W1, W2]),
 "py_same_multi": ev(multi=True, pyspy=[W1, W2]),
 "py_same_nouser": ev(pyspy=[W5, W5]),
 "py_one": ev(pyspy=[W1]),
 "py_four": ev(pyspy=[W1, W3, W4, W2]),
 "py_none_waiting": ev(pyspy=[E1]),
}

WANT = {
    'gloo_ended': [('rank_behind', 10, [(40, 'gpu1:1:1 [0] NCCL INFO Connected all rings')], False), ('device', 10, [(3, 'works with gloo')], False)],
    'gloo_sbb_added': [('p2p', 50, [(3, 'works with gloo')], False), ('not_joined', 25, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('device', 10, [(3, 'works with gloo')], False)],
    'sbb_short_ended': [('not_joined', 70, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], True), ('rank_behind', 20, [(40, 'gpu1:1:1 [0] NCCL INFO Connected all rings')], False)],
    'py_same_site_two_lines': [('p2p', 45, [(10, '2 processes all wait in all_reduce (torch/distributed/distributed_c10d.py:100)')], False), ('rank_behind', 10, [], False)],
    'py_same_site_two_names': [('rank_behind', 75, [(10, 'p1 waits in train (train.py:40); p3 waits in train (train.py:40)')], True), ('p2p', 25, [], False)],
    'py_two_names_no_user': [('rank_behind', 75, [(50, 'p5 waits in all_reduce (torch/distributed/distributed_c10d.py:100); p3 waits in broadcast (torch/distributed/distributed_c10d.py:200)')], True), ('p2p', 25, [], False)],
    'gloo_one': [('p2p', 50, [(3, 'works with gloo')], False), ('device', 10, [(3, 'works with gloo')], False)],
    'gloo_multi': [('net_path', 45, [(3, 'works with gloo')], False), ('interface', 35, [(3, 'works with gloo')], False), ('p2p', 20, [], False), ('gdr', 10, [], False), ('device', 10, [(3, 'works with gloo')], False)],
    'gloo_slow': [('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_short': [('not_joined', 70, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], True), ('p2p', 15, [], False)],
    'sbb_short_slow': [('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_full': [('not_joined', 45, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_over': [('not_joined', 45, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_no_count': [('not_joined', 45, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_zero': [('not_joined', 70, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], True), ('p2p', 15, [], False)],
    'sbb_added': [('not_joined', 45, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'sbb_done_one': [('p2p', 35, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('rank_behind', 20, [], False)],
    'sbb_done_multi': [('interface', 35, [(5, 'Waiting in store based barrier ... (world_size=4, num_workers_joined=3')], False), ('net_path', 30, [], False), ('rank_behind', 20, [], False), ('p2p', 15, [], False), ('gdr', 10, [], False)],
    'sbb_done_last': [('rank_behind', 40, [(40, 'gpu1:1:1 [0] NCCL INFO Connected all rings')], False), ('p2p', 30, [], False)],
    'guess_end': [('device', 55, [(9, 'using GPU 0 ...')], True), ('p2p', 25, [], False), ('rank_behind', 20, [], False)],
    'guess_end0': [('device', 55, [(9, 'using GPU 0 ...')], True), ('p2p', 25, [], False), ('rank_behind', 20, [], False)],
    'guess_far': [('device', 35, [(9, 'using GPU 0 ...')], False), ('p2p', 25, [], False), ('rank_behind', 20, [], False)],
    'guess_before': [('device', 35, [(9, 'using GPU 0 ...')], False), ('p2p', 25, [], False), ('rank_behind', 20, [], False)],
    'guess_noend': [('device', 35, [(9, 'using GPU 0 ...')], False), ('p2p', 25, [], False), ('rank_behind', 20, [], False)],
    'guess_slow': [('p2p', 25, [], False), ('rank_behind', 10, [], False)],
    'py_elsewhere': [('rank_behind', 80, [(60, 'p6 is in get (queue.py:179) under evaluate (train.py:80), not in a collective; p1 waits in all_reduce (torch/distributed/distributed_c10d.py:100)')], True), ('p2p', 10, [], False)],
    'py_elsewhere_top': [('rank_behind', 80, [(70, 'p7 is in main (train.py:80), not in a collective; p1 waits in all_reduce (torch/distributed/distributed_c10d.py:100)')], True), ('p2p', 10, [], False)],
    'py_two_names': [('rank_behind', 75, [(10, 'p1 waits in train (train.py:40); p3 waits in train (train.py:50)')], True), ('p2p', 25, [], False)],
    'py_two_sites': [('rank_behind', 75, [(10, 'p1 waits in train (train.py:40); p4 waits in evaluate (train.py:90)')], True), ('p2p', 25, [], False)],
    'py_same_one': [('p2p', 45, [(10, '2 processes all wait in all_reduce (torch/distributed/distributed_c10d.py:100)')], False), ('rank_behind', 10, [], False)],
    'py_same_multi': [('net_path', 40, [(10, '2 processes all wait in all_reduce (torch/distributed/distributed_c10d.py:100)')], False), ('interface', 30, [], False), ('p2p', 15, [], False), ('rank_behind', 10, [], False), ('gdr', 10, [], False)],
    'py_same_nouser': [('p2p', 45, [(50, '2 processes all wait in all_reduce (torch/distributed/distributed_c10d.py:100)')], False), ('rank_behind', 10, [], False)],
    'py_one': [('rank_behind', 25, [(10, 'p1 waits in all_reduce (torch/distributed/distributed_c10d.py:100)')], False), ('p2p', 25, [], False)],
    'py_four': [('rank_behind', 75, [(10, 'p1 waits in train (train.py:40); p3 waits in train (train.py:50); p4 waits in evaluate (train.py:90)')], True), ('p2p', 25, [], False)],
    'py_none_waiting': [('p2p', 25, [], False), ('rank_behind', 20, [], False)],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_rank_with_torch_and_py_spy_evidence(name):
    assert hang.rank(SCENARIOS[name]) == WANT[name]


def _rows(*rows):
    return [(i + 1, k, t) for i, (k, t) in enumerate(rows)]


DUMPS = {
 "proc_main_and_other": _rows(("proc", "Process 4242: python -u train.py --config " + "c" * 100),
                          ("thread", 'Thread 0x7F01 (idle): "pt_autograd_0"'), ("frame", "    run (threading.py:1)"),
                          ("thread", 'Thread 0x7F00 (active): "MainThread"'),
                          ("frame", "    synchronize (torch/cuda/__init__.py:801)"),
                          ("frame", "    all_reduce (torch/distributed/distributed_c10d.py:2050)"),
                          ("frame", "    step (/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/engine.py:2000)"),
                          ("frame", "    train_one_epoch (/home/me/project/" + "d" * 80 + "/train.py:77)"),
                          ("frame", "    <module> (train.py:100)")),
 "no_proc_line_two_mains": _rows(("thread", 'Thread 123 (active): "MainThread"'), ("frame", "    barrier (torch/distributed/distributed_c10d.py:3678)"),
                             ("frame", "    main (train.py:40)"),
                             ("thread", 'Thread 456 (active+gil): "MainThread"'), ("frame", "    forward (model.py:10)")),
 "no_main_thread": _rows(("proc", "Process 7: python"), ("thread", 'Thread 0x1 (idle): "worker"'), ("frame", "    recv (torch/distributed/distributed_c10d.py:5)")),
 "main_without_frames": _rows(("proc", "Process 8: python"), ("thread", 'Thread 0x1 (idle): "MainThread"'),
                          ("thread", 'Thread 0x2 (idle): "other"'), ("frame", "    wait (threading.py:306)")),
 "collective_outside_torch": _rows(("thread", 'Thread 1 (active): "MainThread"'), ("frame", "    all_reduce (mylib/comm.py:5)"), ("frame", "    wait (torch/_tensor.py:9)")),
 "no_frames": _rows(("proc", "Process 9: python"), ("thread", 'Thread 0x1 (idle): "MainThread"')),
 "odd_proc": _rows(("proc", "Process  x"), ("thread", 'Thread 0x1 (idle): "MainThread"'), ("frame", "    f (a.py:1)")),
}

DUMPS_WANT = {
    'proc_main_and_other': [{'line': 1, 'who': 'process 4242 (python -u train.py --config cccccccccccccccccccccccccccccccc)', 'collective': (5, 'synchronize (torch/cuda/__init__.py:801)'), 'top': (5, 'synchronize (torch/cuda/__init__.py:801)'), 'user': (8, 'train_one_epoch (ddddddddddddddddddddddddddddddddddddddddddddddddddd/train.py:77)')}],
    'no_proc_line_two_mains': [{'line': 1, 'who': 'the process of thread 123 (line 1)', 'collective': (2, 'barrier (torch/distributed/distributed_c10d.py:3678)'), 'top': (2, 'barrier (torch/distributed/distributed_c10d.py:3678)'), 'user': (3, 'main (train.py:40)')}, {'line': 4, 'who': 'the process of thread 456 (line 4)', 'collective': None, 'top': (5, 'forward (model.py:10)'), 'user': (5, 'forward (model.py:10)')}],
    'no_main_thread': [{'line': 1, 'who': 'process 7 (python)', 'collective': (3, 'recv (torch/distributed/distributed_c10d.py:5)'), 'top': (3, 'recv (torch/distributed/distributed_c10d.py:5)'), 'user': None}],
    'main_without_frames': [{'line': 1, 'who': 'process 8 (python)', 'collective': None, 'top': (4, 'wait (threading.py:306)'), 'user': None}],
    'collective_outside_torch': [{'line': 1, 'who': 'the process of thread 1 (line 1)', 'collective': (3, 'wait (torch/_tensor.py:9)'), 'top': (2, 'all_reduce (mylib/comm.py:5)'), 'user': (2, 'all_reduce (mylib/comm.py:5)')}],
    'no_frames': [],
    'odd_proc': [{'line': 1, 'who': 'a process', 'collective': None, 'top': (3, 'f (a.py:1)'), 'user': (3, 'f (a.py:1)')}],

}


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_pyspy_dumps(name):
    assert hang.pyspy_dumps(DUMPS[name]) == DUMPS_WANT[name]


def test_pyspy_dumps_bounds():
    assert hang.pyspy_dumps([]) == []
    # at most 64 frames of a thread are read: a program frame past them is not seen
    frames = [(1, "thread", 'Thread 1 (active): "MainThread"')] + \
        [(i + 2, "frame", "    wait (threading.py:%d)" % i) for i in range(64)] + [(66, "frame", "    main (train.py:5)")]
    d, = hang.pyspy_dumps(frames)
    assert d["user"] is None and d["top"] == (2, "wait (threading.py:0)")
    d, = hang.pyspy_dumps(frames[:64] + frames[-1:])
    assert d["user"] == (66, "main (train.py:5)")
    # at most MAX_KEPT processes
    procs = []
    for i in range(hang.MAX_KEPT + 6):
        procs += [(3 * i + 1, "proc", "Process %d: p" % i), (3 * i + 2, "thread", 'Thread 1 (idle): "MainThread"'),
                  (3 * i + 3, "frame", "    f (a.py:1)")]
    got = hang.pyspy_dumps(procs)
    assert len(got) == hang.MAX_KEPT and got[-1]["who"] == "process %d (p)" % (hang.MAX_KEPT - 1)
    # a frame right after a process line, before its first thread: not read
    assert hang.pyspy_dumps(_rows(("proc", "Process 1: p"), ("frame", "    f (a.py:1)"),
                                  ("thread", 'Thread 0x1 (idle): "MainThread"'), ("frame", "    g (b.py:2)"))) == [
        {"line": 1, "who": "process 1 (p)", "collective": None, "top": (4, "g (b.py:2)"), "user": (4, "g (b.py:2)")}]
    # the lines may come in any order: read by line number
    d, = hang.pyspy_dumps(list(reversed(_rows(("thread", 'Thread 1 (active): "MainThread"'),
                                              ("frame", "    f (a.py:1)")))))
    assert d["top"] == (2, "f (a.py:1)")


def _pattern(cls):
    return next(p for p in hang.patterns() if p.site["class"] == cls)


def _record(hits):
    scan = types.SimpleNamespace(hang=None)
    for line, cls, text in hits:
        hang.record(scan, Hit(line, text, _pattern(cls), {}, None))
    return scan.hang


ADDED = "Added key: store_based_barrier_key:1 to store for rank: 0"
WAIT = ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
        "(world_size=4, num_workers_joined=3, timeout=0:30:00)")
DONE = "Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes."


def test_record_keeps_the_last_store_based_barrier_line():
    sbb = _record([(1, "sbb_added", ADDED)])["sbb"]
    assert (sbb["state"], sbb["line"], sbb["world"], sbb["joined"]) == ("added", 1, None, None)
    sbb = _record([(1, "sbb_added", ADDED), (2, "sbb_wait", WAIT)])["sbb"]
    assert (sbb["state"], sbb["line"], sbb["text"], sbb["world"], sbb["joined"]) == ("wait", 2, WAIT, 4, 3)
    sbb = _record([(1, "sbb_added", ADDED), (2, "sbb_wait", WAIT), (3, "sbb_done", DONE)])["sbb"]
    assert (sbb["state"], sbb["world"], sbb["joined"]) == ("done", None, None)
    # an earlier line read later does not replace it; the same line does (the last pattern of that line)
    assert _record([(5, "sbb_wait", WAIT), (3, "sbb_done", DONE)])["sbb"]["state"] == "wait"
    assert _record([(5, "sbb_added", WAIT), (5, "sbb_wait", WAIT)])["sbb"]["state"] == "wait"
    # the kept text is cut at 300 characters, the count read from the whole line
    sbb = _record([(2, "sbb_wait", WAIT + " " + "x" * 400)])["sbb"]
    assert len(sbb["text"]) == 300 and sbb["joined"] == 3


def test_record_keeps_a_bounded_number_of_device_guesses():
    guess = "[PG ID 0 PG GUID 0 Rank 1]  using GPU 1 to perform barrier as devices used by this process are " \
            "currently unknown. " + "x" * 400
    st = _record([(i + 1, "barrier_guess", guess) for i in range(hang.MAX_KEPT + 2)])
    assert len(st["barrier"]) == hang.MAX_KEPT and st["barrier"][0] == (1, guess[:300])
    assert st["barrier"][-1][0] == hang.MAX_KEPT


def _triage(kb, text, assume_error=False):
    res = explain.explain_text(text, kb, assume_error=assume_error)
    f = res["findings"][0] if res["findings"] else {}
    return [(t["cause"], t["score"]) for t in f.get("triage") or []], f.get("notes") or []


PYSPY_TWO = """Process 101: python train.py
Thread 0x7F00 (active): "MainThread"
    all_reduce (torch/distributed/distributed_c10d.py:2050)
    train (train.py:40)
Process 102: python train.py
Thread 0x7F01 (active): "MainThread"
    get (queue.py:179)
    train (train.py:38)
"""


def test_a_py_spy_dump_alone_is_a_hang_and_its_complaint(kb):
    got, notes = _triage(kb, PYSPY_TWO)
    assert got[0] == ("rank_behind", 80), got
    # the complaint is the dump's own: the first process waiting in a collective
    assert notes[0].startswith("How sure: medium. The text says the job hangs (line 1: py-spy dump: process 101 "
                               "(python train.py) waits in all_reduce (torch/distributed/distributed_c10d.py:2050))"), notes
    # the same dump with the user's own words: still the dump's answer
    got2, notes = _triage(kb, "my job hangs\n" + PYSPY_TWO)
    assert got2[0] == ("rank_behind", 80) and "(line 1: my job hangs)" in notes[0], (got2, notes)
    # no process waits in a collective: not a distributed hang
    res = explain.explain_text(PYSPY_TWO.replace("all_reduce (torch/distributed", "compute (mylib"), kb)
    assert not any(f["id"] == "nccl.hang" for f in res["findings"])


def test_store_based_barrier_lines_alone(kb):
    got, notes = _triage(kb, ADDED + "\n" + WAIT + "\n")
    assert got[0] == ("not_joined", 70), got
    # (since 8bca88b the store-based barrier's wait is rendezvous.init_hang, whose note quotes torch's line)
    assert any("stops inside init_process_group, in torch's store-based barrier (line 2: " in n for n in notes), notes
    # only the key added, no count yet: the barrier did not complete
    got, notes = _triage(kb, ADDED + "\ntraining hangs\n", assume_error=True)
    assert got and got[0][0] == "not_joined", got


def test_nccl_infos_complaint_words_count_when_hangs_own_do_not(kb):
    # 'stuck at' is one of ncclinfo.COMPLAINTS, not hang's: the hang answer still quotes it
    got, notes = _triage(kb, "2 nodes: training is stuck at the first all_reduce\n", assume_error=True)
    assert got and notes[0].startswith("How sure: low. The text says the job hangs (line 1: 2 nodes: training is "
                                       "stuck at the first all_reduce)"), notes
