"""Cases for the mutants of gpudoctor/explain/meaning.py (docs/mutation.md, fifth round).

test_explain_meaning.py judges the module by whole texts (the root explain names); these call each
function and compare its whole answer, written out from the module's rules: the classes a sentence
holds, the GPU indices in the order they are said and their cap, each figure with its nearest GPU
count, the speed-up rule at its boundary, the derived classes, two sentences merged, the rules'
order, the windows `found` reads and `record`'s bounds, and the load-time check of `means`."""

from types import SimpleNamespace as NS

import pytest

from gpudoctor.explain import meaning as M
from gpudoctor.explain.knowledge import MAX_NEEDLE, KnowledgeError


# ------------------------------------------------------------------ patterns (run at knowledge load)

def test_patterns_is_one_anchored_bounded_matcher_of_the_users_words():
    assert M.patterns([{"id": "a.b"}, {"id": "c.d", "means": ["procs same_gpu !mem", "stuck"]}]) is not None
    (p,) = M.patterns()
    assert (p.entry, p.role, p.source, p.rank) == ("_meaning", "fact", r"^[^\n]{1,600}", 0)
    assert p.site == {"symptom": "meaning", "class": "meaning", "id": "meaning"}
    assert p.needles_b == sorted({n.encode("utf-8")[:MAX_NEEDLE] for n in M.NEEDLES})
    assert b"stuck" in p.needles_b and "比单卡".encode("utf-8") in p.needles_b


@pytest.mark.parametrize("means,msg", [
    ("procs", "x.y: means must be a list of ways (each a string of class names)"),
    ([], "x.y: means must be a list of ways (each a string of class names)"),
    (["procs", 3], "x.y: means must be a list of ways (each a string of class names)"),
    (["procs", "   "], "x.y: means must be a list of ways (each a string of class names)"),
    (["procs !sme_gpu mem"], "x.y: means 'procs !sme_gpu mem': unknown classes ['!sme_gpu'] (meaning.KNOWN)"),
    (["stuck", "gpu0 contrast same_gpu bogus !other"],
     "x.y: means 'gpu0 contrast same_gpu bogus !other': unknown classes ['bogus', '!other'] (meaning.KNOWN)"),
    (["!Xgpu"], "x.y: means '!Xgpu': unknown classes ['!Xgpu'] (meaning.KNOWN)"),  # only the '!' is taken off
])
def test_means_refused_word_for_word(means, msg):
    with pytest.raises(KnowledgeError) as e:  # after an entry without means and one with good ones
        M.patterns([{"id": "none.here"}, {"id": "ok.one", "means": ["stuck"]}, {"id": "x.y", "means": means}])
    assert str(e.value) == msg


# ------------------------------------------------------------------ users_line, sentences, record

@pytest.mark.parametrize("text,want", [
    ("both ranks are stuck on GPU 0", True),
    ("host1:123:123 [0] NCCL INFO all ranks stuck", False),  # _NOT_USERS
    (" 45%|####      | 450/1000 [00:10<00:12, 40.0it/s] slow", False),  # a progress bar
    ("1 2 3 4 5 6 7 slow", True),  # 7 numbers: a sentence may hold as many
    ("1 2 3 4 5 6 7 8 slow", False),  # 8: a program's status line
    ("torchrun --nproc_per_node=8 train.py --lr 0.1", False),  # a command line
    ("torchrun --nproc_per_node=8 and every rank is stuck", True),  # a command, then a run of words
    ("python train.py 卡住了", True),
])
def test_users_line(text, want):
    assert M.users_line(text) is want


def test_sentences_split_on_marks_and_newlines_and_drop_blanks():
    assert M.sentences("a. b! c? d; e\nf。g！h？i；j?k  \n \n") == ["a.", "b!", "c?", "d;", "e", "f", "g", "h", "i",
                                                                 "j?", "k"]
    assert M.sentences("x" * 700) == ["x" * 600]


def _hit(line, text, severity=None):
    return NS(line=line, text=text, severity=severity)


def test_record_keeps_users_lines_with_a_predicate_within_bounds():
    scan = NS()
    M.record(scan, _hit(1, "all ranks are stuck. hello there"))
    assert scan.meaning == [(1, "all ranks are stuck. hello there", [M.classes("all ranks are stuck.")])]
    M.record(scan, _hit(1, "GPU 1 is idle"))  # the same line again: kept once
    M.record(scan, _hit(2, "GPU 1 is idle", severity="error"))  # an error line is no user's
    M.record(scan, _hit(3, "host1:1:1 [0] NCCL INFO GPU 1 is idle"))
    M.record(scan, _hit(4, "hello there"))  # no predicate
    M.record(scan, _hit(5, "idle " + "x" * 700))
    assert [k[0] for k in scan.meaning] == [1, 5]
    assert scan.meaning[1][1] == ("idle " + "x" * 700)[:600]
    for n in range(6, 200):
        M.record(scan, _hit(n, "GPU 1 is idle"))
    assert len(scan.meaning) == 64 and scan.meaning[-1][0] == 67


# ------------------------------------------------------------------ classes

@pytest.mark.parametrize("s,want", [
    # every index form, in the order said
    ("GPU 3 and cuda:1 and device #2 and 2号卡 and 第1张卡 and the first gpu",
     {"gpu": True, "extra": True, "idx": [3, 1, 2, 2, 1, 0], "figs": [], "gpu0": True}),
    # a list first, then the single indices
    ("gpus 1, 2, and 3 are idle, GPU 0 busy",
     {"gpu": True, "idle": True, "busy": True, "idx": [1, 2, 3, 0], "figs": [], "gpu0": True, "contrast": True}),
    ("the Third GPU is idle", {"gpu": True, "idle": True, "idx": [2], "figs": [], "contrast": True}),
    ("GPU 5", {"gpu": True, "idx": [5], "figs": []}),  # an index alone is read
    ("4 GPUs 100 samples/s", {"gpu": True, "a_gpu": True, "multi": True, "idx": [], "figs": [(4, "rate", 100.0)]}),
    ("both on GPU 0 and GPU 0",
     {"gpu": True, "all_q": True, "idx": [0, 0], "figs": [], "gpu0": True, "same_gpu": True}),
    ("looks fine but gpu 0 idle",
     {"gpu": True, "idle": True, "fine": True, "idx": [0], "figs": [], "gpu0": True, "contrast": True}),
    ("1 GPU: 850 samples/s, 4 GPUs: 870 samples/s",
     {"gpu": True, "a_gpu": True, "multi": True, "single": True, "idx": [],
      "figs": [(1, "rate", 850.0), (4, "rate", 870.0)], "no_gain": True}),
])
def test_classes_whole(s, want):
    assert M.classes(s) == want


@pytest.mark.parametrize("s", ["4 GPUs", "hello there", "it works now, gpu 0 idle", "looks fine gpu 0 idle",
                               "How do I use GPU 0 and GPU 1?", "", "x" * 10])
def test_classes_none(s):
    assert M.classes(s) is None


def test_classes_cap_the_indices_at_16():
    nums = ", ".join(str(i) for i in range(1, 16))
    assert M.classes("gpus %s, 16 idle, GPU 0" % nums)["idx"] == list(range(1, 17))
    assert M.classes("gpus %s idle, GPU 0, GPU 17" % nums)["idx"] == list(range(1, 16)) + [0]
    # two lists: the first 16 of them
    assert M.classes("gpus %s, 16 idle, cards 20 and 21" % nums)["idx"] == list(range(1, 17))
    # a line cut at 600 characters: an index past it is not read
    assert M.classes("GPU 1 idle " + "x " * 300 + "GPU 2")["idx"] == [1]


# ------------------------------------------------------------------ figures and the speed-up rule

@pytest.mark.parametrize("s,want", [
    ("no count 10 sec", []),
    ("10 sec on 1 GPU, then 4 GPUs 30 its/s and 50 %", [(1, "time", 10.0), (4, "rate", 30.0), (4, "pct", 50.0)]),
    ("2 cards 5 s, xxxxxxxxxx 四张卡 8 小时, xxxxxxxxxx a single GPU 9 h, xxxxxxxxxx 单卡 7 秒", [(2, "time", 5.0), (4, "time", 8.0), (1, "time", 9.0),
                                                      (1, "time", 7.0)]),
    ("One GPU 1.5 seconds", [(1, "time", 1.5)]),
    # at most 8 counts: the ninth is not one, the figure goes with the eighth
    ("1 GPU 2 GPUs 3 GPUs 4 GPUs 5 GPUs 6 GPUs 7 GPUs 8 GPUs 9 GPUs 10 samples/s", [(8, "rate", 10.0)]),
    # at most 8 figures
    ("1 GPU: " + ", ".join("%d%%" % i for i in range(1, 11)), [(1, "pct", float(i)) for i in range(1, 9)]),
    # the nearest count by the middle of each match: '4 GPUs' (mid 19) is nearer '30 its/s' (mid 14) than
    # '1 GPU' (mid 2)
    ("1 GPU xxxxx 30 its/s 4 GPUs", [(4, "rate", 30.0)]),
    ("1 GPU x 30 its/s xxxx 4 GPUs", [(1, "rate", 30.0)]),
])
def test_figures(s, want):
    assert M._figures(s) == want


@pytest.mark.parametrize("figs,loss,want", [
    # 0.5 x the GPUs added is the boundary: 2.0x on 4 GPUs is no finding, 1.99x is
    ([(1, "rate", 100.0), (4, "rate", 200.0)], False, {"single", "multi"}),
    ([(1, "rate", 100.0), (4, "rate", 199.0)], False, {"single", "multi", "no_gain"}),
    ([(1, "time", 20.0), (4, "time", 10.0)], False, {"single", "multi"}),  # times: the speed-up is v1 / v2
    ([(1, "time", 20.0), (4, "time", 10.1)], False, {"single", "multi", "no_gain"}),
    ([(2, "rate", 100.0), (8, "rate", 150.0)], False, {"multi", "no_gain"}),  # n2 / n1, not n2
    ([(2, "rate", 100.0), (8, "rate", 250.0)], False, {"multi"}),
    ([(1, "rate", 0.0), (4, "rate", 10.0)], False, {"single", "multi"}),  # no zero figure is compared
    ([(1, "rate", 10.0), (4, "rate", 0.0)], False, {"single", "multi"}),
    ([(4, "rate", 100.0), (4, "rate", 40.0)], False, {"multi"}),  # the same count: nothing to compare
    ([(4, "rate", 40.0), (1, "rate", 100.0)], False, {"single", "multi", "no_gain"}),  # in either order
    ([(1, "pct", 76.0), (8, "pct", 71.0)], True, {"loss", "single", "multi", "differ"}),
    ([(1, "pct", 76.0), (8, "pct", 71.0)], False, {"single", "multi"}),  # percentages differ only for a metric
    ([(1, "pct", 76.0), (8, "pct", 76.0)], True, {"loss", "single", "multi"}),
    ([(1, "pct", 76.0), (8, "rate", 71.0)], True, {"loss", "single", "multi"}),  # other kinds
    ([(1, "rate", 100.0), (4, "rate", 110.0)], True, {"loss", "single", "multi", "no_gain"}),  # rates stay rates
])
def test_compare(figs, loss, want):
    c = {"figs": figs}
    if loss:
        c["loss"] = True
    M._compare(c)
    assert c.pop("figs") == figs and c == {k: True for k in want}


def test_compare_without_figures():
    for c in ({}, {"figs": None}, {"figs": []}):
        M._compare(c)
        assert not any(k in c for k in ("single", "multi", "no_gain", "differ"))


# ------------------------------------------------------------------ derived classes and merged sentences

@pytest.mark.parametrize("c,want", [
    ({"idx": []}, set()),
    ({"idx": [1]}, {"gpu"}),
    ({"idx": [0]}, {"gpu", "gpu0"}),
    ({"idx": [2, 2]}, {"gpu", "same_gpu"}),
    ({"idx": [2], "all_q": True}, {"gpu", "same_gpu", "all_q"}),
    ({"idx": [2, 3], "all_q": True}, {"gpu", "all_q"}),
    ({"idx": [], "same_words": True}, {"same_words", "same_gpu"}),
    ({"idx": [], "all_q": True}, {"all_q"}),
    # an idle GPU told apart: the others, one of them, two indices, one index not said with all/both
    ({"idx": [], "idle": True}, {"idle"}),
    ({"idx": [], "idle": True, "others": True}, {"idle", "others", "contrast"}),
    ({"idx": [], "idle": True, "a_gpu": True}, {"idle", "a_gpu", "contrast"}),
    ({"idx": [1, 3], "idle": True, "all_q": True}, {"gpu", "idle", "all_q", "contrast"}),
    ({"idx": [1, 1], "idle": True}, {"gpu", "idle", "same_gpu", "contrast"}),
    ({"idx": [1], "idle": True}, {"gpu", "idle", "contrast"}),
    ({"idx": [1], "idle": True, "all_q": True}, {"gpu", "idle", "all_q", "same_gpu"}),
    ({"idx": [], "others": True}, {"others"}),
])
def test_derive(c, want):
    c = dict(c, figs=[])
    idx = list(c["idx"])
    M._derive(c)
    assert c.pop("idx") == idx and c.pop("figs") == [] and c == {k: True for k in want}


def test_merged_joins_indices_and_figures_and_ors_the_derived_classes():
    a = {"idx": [0], "idle": True, "gpu0": True, "contrast": True, "figs": [(1, "rate", 100.0)], "x": 1}
    b = {"idx": [1], "stuck": True, "x": 2, "same_gpu": None, "figs": [(4, "rate", 110.0)]}
    got = M.merged(a, b)
    assert got == {"idx": [0, 1], "idle": True, "stuck": True, "x": 2, "gpu0": True, "contrast": True,
                   "figs": [(1, "rate", 100.0), (4, "rate", 110.0)], "single": True, "multi": True, "no_gain": True}
    assert a["idx"] == [0] and b["idx"] == [1] and a["figs"] == [(1, "rate", 100.0)]  # the inputs stay as they were
    # a derived class of the second only, or of neither
    got = M.merged({"idx": [2], "figs": []}, {"idx": [], "differ": True, "same_gpu": True, "no_gain": False})
    assert got == {"idx": [2], "differ": True, "same_gpu": True, "figs": []}
    got = M.merged({"idx": [], "gpu0": False}, {"idx": []})
    assert got == {"idx": [], "figs": []}


# ------------------------------------------------------------------ rules

def test_holds():
    c = {"procs": True, "same_gpu": True, "mem": False}
    assert M.holds(["procs", "same_gpu", "!mem"], c)
    assert M.holds([], c)
    assert not M.holds(["procs", "stuck"], c)
    assert not M.holds(["procs", "!same_gpu"], c)
    assert M.holds(["!stuck", "procs"], c)


def test_rules_of_orders_by_means_order_then_the_table():
    kb = NS(entries=[{"id": "a", "means": ["stuck"]}, {"id": "b"}, {"id": "c", "means": ["idle gpu", "busy"],
                                                                     "means_order": 5},
                     {"id": "d", "means": ["slow"], "means_order": 100}, {"id": "e", "means": []},
                     {"id": "f", "means": ["nan"], "means_order": 101}])
    assert M.rules_of(kb) == [("c", [["idle", "gpu"], ["busy"]]), ("a", [["stuck"]]), ("d", [["slow"]]),
                              ("f", [["nan"]])]


def test_symptom_of_is_the_first_way_that_holds():
    rules = [("a", [["stuck", "gpu0"], ["idle"]]), ("b", [["idle", "gpu"], ["stuck"]])]
    assert M.symptom_of({"idle": True, "gpu": True}, rules) == ("a", 1, 1)
    assert M.symptom_of({"stuck": True}, rules) == ("b", 1, 1)
    assert M.symptom_of({"stuck": True, "gpu0": True}, rules) == ("a", 0, 2)
    assert M.symptom_of({"busy": True}, rules) is None
    assert M.symptom_of({"busy": True}, []) is None


# ------------------------------------------------------------------ found

_KB = NS(entries=[{"id": "s.stuck", "means": ["stuck"]}, {"id": "s.idle_contrast", "means": ["contrast"]},
                  {"id": "s.same", "means": ["same_gpu procs"]}, {"id": "s.nan", "means": ["nan one_rank"]}])


def _scan(*lines):
    scan = NS()
    for n, t in lines:
        M.record(scan, _hit(n, t))
    return scan


def test_found_reads_sentences_pairs_and_the_next_line():
    # each sentence alone
    assert M.found(_scan((3, "it is stuck.")), _KB) == [("s.stuck", 3, "it is stuck.", 1)]
    # two sentences of one line read together: the processes in one, the one GPU in the other
    t = "two processes are slow. both on GPU 0 and GPU 0."
    assert M.found(_scan((4, t)), _KB) == [("s.same", 4, t, 1)]
    # a sentence and the next line's first (NEAR = 1 line apart), not two lines apart
    assert M.found(_scan((5, "rank 3 is slow."), (6, "it gets nan")), _KB) == [("s.nan", 6, "it gets nan", 1)]
    assert M.found(_scan((5, "rank 3 is slow."), (7, "it gets nan")), _KB) == []
    # the previous line's last sentence, not its first
    assert M.found(_scan((5, "rank 3 is slow. it is all."), (6, "it gets nan")), _KB) == []
    # the first window of a symptom only; one symptom per line (the first window that says one)
    got = M.found(_scan((1, "it hangs. it is stuck."), (9, "it hangs"), (12, "GPU 1 idle, the others busy. it hangs")),
                  _KB)
    assert got == [("s.stuck", 1, "it hangs. it is stuck.", 1),
                   ("s.idle_contrast", 12, "GPU 1 idle, the others busy. it hangs", 1)]


def test_found_without_lines_or_rules():
    assert M.found(NS(), _KB) == [] and M.found(NS(meaning=[]), _KB) == []
    assert M.found(_scan((1, "it is stuck")), NS(entries=[{"id": "x"}])) == []
