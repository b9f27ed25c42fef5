"""Red-team findings of 2026-11-26, fifth round (this session's explain mechanisms: failures told in words read
by meaning, the job's layout from its own lines, a family's causes filled from its line, nvidia-smi's query fields,
the new generated tables), each held by a test that tries more than the reproducer. CPU-time bounds
(time.process_time), not wall time.

- explain/meaning.py: every candidate line (one that holds a prefilter needle and reads as the user's) ran all 37
  class regexes on each of its sentences, so a line of 190 short sentences and one needle ('a. ' * 190 + 'cpux 1')
  cost 1.8 ms: 11.6 MB of such lines took 33 s of CPU against 1.4 s at 67198c6. Now a line's classes are searched
  only where one of their needles (knowledge.needles_of, as the scan's prefilter reads a pattern) is in the line:
  6 s, the same answers.
- checks/memlock.knowledge.toml: '(?:ibv_\\w+|...).{0,120}(?:...ENOMEM...)' cut a run of word characters every way:
  6 s of CPU per 4 KiB window of 'ENOMEM ibv_xibv_x...'. The verbs call's name is read whole now.
- Two pasted texts ended in exit 3: a c10d store key of other digits ('²', rankev.py) and figures said with zero GPUs
  ('0 GPUs: 2 samples/s', meaning.py divided by the count).
- Generated matchers with three or more printf values cut a line of the format's own separators every way
  (transformers' 'Error no file named %s, %s, %s or %s found in directory %s.': 10 lines of 4 KiB, 57 s of CPU);
  each value a literal follows now stops at that literal's first occurrence (knowledge.first_of): 0.24 s.

Tried and held (no test here): explain on a 1 MiB line of one-char words, of 'hang ', of 'cuda:', of 'world_size ',
of one CJK character; 10^5 ranks' layout prints; 2,000 repeated '[rank0]:' prefixes; huge numbers
('cuda:99999999999999999999', 25-digit world sizes, 'n_gpu: 9999999'); a 100 KB nvidia-smi field name; payloads
($(...), backticks, ';', quotes, ESC/OSC, U+202E, U+2028, NUL, invalid UTF-8, CR) in accelerate's state, rank
prints, nvidia-smi tables, Lightning and transformers lines, NCCL/torch variable names, refused nvidia-smi fields
and the user's words: every fix line stays the knowledge's own words or one quoted name, the text report has no
control character, --json parses. A fuzzer over the new readers' line formats (layout, rankev, famfix, smifields,
meaning; 25,000 texts) after the two fixes: no exception.
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
    # before: every class regex on each of the line's sentences (1.8 ms a line when written). The needles have grown
    # since, and the gated cost is ~0.65 ms a line (0.25-0.33 s for these 400 at load 6-10 on the 2-core CI VM),
    # so a fixed 0.3 s failed under load (0.339). process_time still counts what a loaded machine takes from the
    # process (cache, frequency), so the cost is read as timeit advises, the best of three, and held against the
    # ungated path (every class searched in every sentence: what the red team found) timed here, now, on a quarter
    # of the lines: the gate must save at least half of it (it saves ~3/4; the bug saved nothing).
    every = frozenset(k for k, _nd in meaning._needled())

    def _ungated(part):
        for text in part:
            for s in meaning.sentences(text)[:meaning.MAX_SENTS]:
                meaning.classes(s, every, topics=True)

    _, ungated = _cpu(_ungated, lines[:100])
    ungated *= 4
    readings = []
    for _ in range(3):
        kept, cpu = _cpu(_record_all, lines)
        assert not kept
        readings.append(cpu)
        if cpu < ungated / 2:
            break
    assert min(readings) < ungated / 2, (readings, ungated)
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


# ------------------------------------------------------------------ generated matchers with three or more values

def _format_line(site, source):
    """A line the site prints, each value a plain word (numbers a sample of their kind)."""
    from gpudoctor.explain import slots

    sample = {"d": "4321", "i": "4321", "u": "4321", "x": "7f3a", "X": "7F3A", "o": "17", "p": "0x7f3a", "c": "Z"}
    out = []
    for kind, v in slots.conversions(site["text"], source.startswith("slurm")):
        out.append(v if kind == "lit" else sample.get(v, "1.5" if v in "eEfgG" else "value_%d" % len(out)))
    return " ".join("".join(out).split())


def test_a_line_of_a_formats_own_separators_costs_linear_time(kb):
    # transformers' 'Error no file named %s, %s, %s or %s found in directory %s.' (trainer_messages): each value
    # [^\n]{0,200} could end at any ', ' in reach, so a 4 KiB line of the separators without the message's end
    # was cut every way: 10 such lines took 57 s of CPU in explain; each value now stops at its separator's first
    # occurrence (knowledge.first_of)
    rx = [p.regex for p in kb.patterns if p.source.startswith(r"Error\ no\ file\ named\ (?:(?!,\ )")]
    assert rx, "the tempered matcher"
    line = ("found in directory 1. " + "".join((r + " ") * 30 for r in ("Error no file named", ",", ",", "or")) * 20)[:4096]
    got, cpu = _cpu(rx[0].search, line)
    assert got is None and cpu < 0.2, cpu  # before: ~5 s for this one line
    real = ("OSError: Error no file named pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt.index or "
            "flax_model.msgpack found in directory /models/llama.")
    assert rx[0].search(real)


def test_the_tempered_matchers_take_their_own_messages(kb):
    import re

    from gpudoctor.explain import knowledge

    tempered = matched = 0
    for p in kb.patterns:
        if not p.site or "(?:(?!" not in p.source or "text" not in p.site:
            continue
        line = _format_line(p.site, p.site.get("source", ""))
        untempered = re.sub(r"\(\?:\(\?!(?:\\.|[^()\\])*\)\[\^\\n\]\)\{0,200\}", lambda m: r"[^\n]{0,200}", p.source)
        assert knowledge.first_of(untempered) == p.source, p.source
        a = re.compile(untempered, p.regex.flags).search(line)
        b = p.regex.search(line)
        assert bool(a) == bool(b) and (not a or a.start() == b.start()), (p.source, line)
        tempered += 1
        matched += bool(b)
    assert tempered > 500 and matched > 300, (tempered, matched)  # (others need a prefix the format lacks)
