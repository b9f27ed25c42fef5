"""Red-team findings of 2026-11-26, fifth round (this session's explain mechanisms: failures told in words read
by meaning, the job's layout from its own lines, a family's causes filled from its line, nvidia-smi's query fields,
the new generated tables), each held by a test that tries more than the reproducer. CPU-time bounds
(time.process_time), not wall time.

- explain/meaning.py: every candidate line (one that holds a prefilter needle and reads as the user's) ran all 37
  class regexes on each of its sentences, so a line of 190 short sentences and one needle ('a. ' * 190 + 'cpux 1')
  cost 1.8 ms: 11.6 MB of such lines took 33 s of CPU against 1.4 s at 67198c6. Now a line's classes are searched
  only where one of their needles (knowledge.needles_of, as the scan's prefilter reads a pattern) is in the line:
  6 s, the same answers.
"""

import random
import time
import types

from gpudoctor.explain import meaning


def _cpu(fn, *args):
    t0 = time.process_time()
    got = fn(*args)
    return got, time.process_time() - t0


# ------------------------------------------------------------------ meaning: a line's classes gated by their needles

def _record_all(lines):
    scan = types.SimpleNamespace()
    for i, text in enumerate(lines, 1):
        meaning.record(scan, types.SimpleNamespace(line=i, text=text, severity=None))
    return getattr(scan, "meaning", None)


def test_a_line_of_many_short_sentences_without_a_predicate_costs_little():
    meaning._needled()  # derived once per process
    lines = ["a. " * 190 + "cpux %d" % i for i in range(400)]
    kept, cpu = _cpu(_record_all, lines)
    # before: ~1.8 ms a line (0.7 s here), all 37 class regexes on each of its 191 sentences; now ~0.1 ms
    assert not kept and cpu < 0.3, cpu
    # the same line with a complaint in it is still read
    kept = _record_all(["a. " * 20 + "both processes end up on GPU 0."])
    assert kept and kept[0][2][-1].get("same_gpu"), kept


def test_the_classes_gated_by_their_needles_read_as_all_of_them():
    # every class searched (the names of _needled() all live) against the line's own live set: the same classes
    everything = {k for k, _nd in meaning._needled()}
    words = sorted({n for _k, nd in meaning._needled() for n in nd}) + [
        "gpu 0", "GPU 1", "cuda:0", "0号卡", "4 GPUs", "1 GPU", "850 samples/s", "76%", "the", "and", ".", "?", "!",
        "。", "not", "is", "on", "all", "both", "12 minutes", "0%", "Trainer", "HOW", "works now", "looks fine"]
    rnd = random.Random(26)
    read = 0
    for _ in range(1500):
        line = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 14)))[:meaning.MAX_LINE]
        live = meaning._live(line)
        for s in meaning.sentences(line):
            got = meaning.classes(s, live)
            assert got == meaning.classes(s, everything), s
            read += got is not None
    assert read > 500, read  # the soup does say things


# ------------------------------------------------------------------ a hand-written pattern that cut a word every way

def test_the_memlock_pair_reads_a_verbs_name_whole(kb):
    # checks/memlock.knowledge.toml: '(?:ibv_\w+|...).{0,120}(?:...ENOMEM...)' cut each run of word characters every
    # way before the '.{0,120}' when no refusal followed: a 4 KiB window of 'ENOMEM ibv_xibv_x...' took 6 s of CPU
    # (3 such lines, 12 KB: 19 s in explain); the name is now read whole: ~1 ms
    rx = [p.regex for p in kb.patterns if p.entry == "rdma.memlock" and "uct_" in p.source]
    assert len(rx) == 1
    for line in ("ENOMEM " + "ibv_x" * 900, "ENOMEM " + "ibv_" * 1100, "error 12 " + "ibv_" + "a" * 4100):
        got, cpu = _cpu(rx[0].search, line[:4096])
        assert got is None and cpu < 0.1, (line[:20], cpu)
    # what it is for still matches: the verbs call's failure, a few words apart
    for line in ("NET/IB : ibv_create_cq failed: Cannot allocate memory", "ibv_reg_mr(pd=0x1, len=4096) failed: errno 12",
                 "mlx5: ENOMEM", "uct_ib_md.c:123 ibv_alloc_pd() failed: Cannot allocate memory"):
        assert rx[0].search(line), line


# ------------------------------------------------------------------ crashes (exit 3) on pasted text

UID = ("[rank1]:[I1126 10:00:00.000000 1 ProcessGroupNCCL.cpp:100] [1] is setting up NCCL communicator and retrieving "
       "ncclUniqueId from [0] via c10d key-value store by key '%s'\n"
       "[rank0]:[E1126 10:10:00.000000 1 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
       "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=600000) ran for 600010 milliseconds "
       "before timing out.\n")


def test_a_store_key_of_other_digits_is_no_communicator_number(cli):
    # rankev._rule_device: str.isdigit() takes '²' (and '١'), int() refuses '²': a pasted key was exit 3
    for key in ("\u00b2", "\u2460", "\u00b9\u00b2"):
        rc, out, err = cli("explain", UID % key)
        assert rc == 0 and "Traceback" not in err and "internal error" not in err, (key, err)
        assert "another GPU" not in out, key  # not read as the group's second communicator
    rc, out, err = cli("explain", UID % "1")
    assert rc == 0 and "ran a collective on another GPU" in out, out


def test_figures_said_with_zero_gpus_are_no_comparison(cli):
    # meaning._compare divided by the GPU count a figure was said with: '0 GPUs: 2 samples/s' was exit 3
    for said in ("with 0 GPUs: 2 samples/s, with 1 GPU: 2 samples/s", "0 cards 76% but 8 cards 71%, loss is higher",
                 "00 GPUs 5 it/s, 4 GPUs 5 it/s, 1 GPU 5 it/s"):
        rc, out, err = cli("explain", said)
        assert rc in (0, 1) and "internal error" not in err, (said, err)
    # the counts that are counts still compare
    c = meaning.classes("1 GPU: 850 samples/s. 4 GPUs: 870 samples/s")
    assert c and c.get("no_gain") and c.get("single") and c.get("multi"), c
