"""words16's readers one at a time (mutation16, docs/mutation.md "Round 11"): settings.py's figures compared in a
sentence (_spread, _compared), and ncclinfo's clipping of the told sentence it quotes (_clip). The whole path is
tests/test_explain_words16.py's (runs made here)."""

import pytest

from gpudoctor.explain import ncclinfo, settings


@pytest.mark.parametrize("text,spread", [
    # each unit against the same time in another unit: no spread; a wrong factor for either would show one
    ("500 ms here, 0.5 s there", False), ("1000 µs here, 1 ms there", False), ("1 h here, 3600 s there", False),
    ("2 minutes here, 120 seconds there", False), ("2 mins here, 120 secs there", False),
    ("1 min here, 60 sec there", False), ("3 hours here, 180 min there", False),
    ("1500 milliseconds here, 1.5 seconds there", False), ("2000 microseconds here, 2 msec there", False),
    ("1 GB/s here, 1000 MB/s there", False), ("8 Gbps here, 1 GB/s there", False),
    # Gb/s is gigabits (as Gbps), GB/s and gb/s bytes: 100 Gb/s is 12.5 GB/s (mutation16 found the bits read as bytes)
    ("100 Gb/s here, 12.5 GB/s there", False), ("100 Gb/s here, 5 GB/s there", True), ("100 gb/s here, 12.5 GB/s there", True),
    # exactly twice is a spread; a bit under is not; GiB/s is 1.07 GB/s
    ("1 min here, 30 s there", True), ("1 min here, 31 s there", False), ("2.5 s here, 1 s there", True),
    ("1.9 GiB/s here, 1 GB/s there", True), ("1.8 GiB/s here, 1 GB/s there", False),
    # one figure, or a zero beside one, is no comparison
    ("5 s", False), ("0 s here, 5 s there", False), ("", False),
    ("4.7 SECONDS per call; 0.05 ms elsewhere", True),
])
def test_spread_of_the_figures(text, spread):
    got = settings._spread(settings._TIME_FIG, text) or settings._spread(settings._BW_FIG, text)
    assert got is spread


def test_spread_reads_the_first_600_characters():
    head = "it takes 1 ms; " + "x" * (599 - len("it takes 1 ms; "))
    assert len(head) == 599
    assert settings._spread(settings._TIME_FIG, head + " 5s") is False  # '5' at 600: not read
    assert settings._spread(settings._TIME_FIG, head[:-1] + " 5s") is False  # '5' at 599, 's' at 600
    assert settings._spread(settings._TIME_FIG, head[:-2] + " 5s") is True


def test_compared_needs_another_run_no_content_and_a_spread():
    assert settings._compared("The same script on another node takes 0.05 ms per call, here 4.7 s.")
    assert not settings._compared("Step one takes 0.05 ms per call, step two 4.7 s.")  # no other run
    assert not settings._compared("The same script on another node takes 0.05 ms, here 4.7 s, which is expected.")
    assert not settings._compared("The same script on another node takes 1 s per call, here 1.5 s.")
    assert settings._compared("The same script on another node gets 200 GB/s, here 20 GB/s.")


def test_clip_the_quoted_sentence():
    assert ncclinfo._clip("a  b\n\t c", 5) == "a b c"
    assert ncclinfo._clip("x" * 10, 10) == "x" * 10
    assert ncclinfo._clip("x" * 11, 10) == "x" * 7 + "..."


# JAX 0.10.2's own lines (tests/data/words16/jaxrec.log, jaxmiss.log: runs made here on CPU)
COMPILING = ("Compiling jit(train_step) with global shapes and types (ShapedArray(float32[64,1]), "
             "ShapedArray(float32[%d,64]), ShapedArray(float32[%d,1])). Argument mapping: (UnspecifiedValue, "
             "UnspecifiedValue, UnspecifiedValue).")
FINISHED = "Finished XLA compilation of jit(train_step) in %s sec"


class _Win(object):
    def __init__(self, lines):
        self.lines = lines

    def text(self, n):
        return self.lines[n] if n < len(self.lines) else ""


def _jax(lines):
    st = settings.State()
    for i, line in enumerate(lines):
        if "with global shapes and types" in line or "Finished XLA compilation of" in line or \
                "TRACING CACHE MISS" in line:
            settings._jax_log(st, i + 1, line, _Win(lines[i:]))
    return st


def test_jax_compile_log_counts_shapes_and_seconds():
    st = _jax([COMPILING % (123, 123), FINISHED % "0.769737720", COMPILING % (116, 116), FINISHED % "0.353952646",
               COMPILING % (123, 123), "Finished XLA compilation of jit(other_fn) in 9.5 sec"])
    assert list(st.compiles) == ["train_step"]
    shapes, first, secs, text = st.compiles["train_step"]
    assert len(shapes) == 2 and first == 1 and abs(secs - 1.123690366) < 1e-9 and text == COMPILING % (123, 123)
    assert "(ShapedArray(float32[64,1]), ShapedArray(float32[116,64]), ShapedArray(float32[116,1]))" in shapes
    assert settings._recompiled(st) is None  # two shapes: not recompilation
    st = _jax([COMPILING % (n, n) for n in (96, 97, 98)] + [FINISHED % "0.5"])
    assert settings._recompiled(st) == ("train_step", 3, 1, 0.5, COMPILING % (96, 96))


def test_jax_compile_log_caps():
    st = _jax([COMPILING.replace("train_step", "f%d" % i) % (1, 1) for i in range(settings.MAX_FUNCS)] +
              [COMPILING.replace("train_step", "late") % (1, 1), COMPILING.replace("train_step", "f0") % (2, 2)])
    assert len(st.compiles) == settings.MAX_FUNCS and "late" not in st.compiles and len(st.compiles["f0"][0]) == 2
    st = _jax([COMPILING % (n, n) for n in range(70)])
    assert len(st.compiles["train_step"][0]) == 64


def test_jax_cache_misses_are_new_signatures_of_the_function_named_next():
    miss = "TRACING CACHE MISS at /tmp/words16/run/jaxmiss.py:21:11 (<module>):"
    new = [miss, "  never seen function:", "    train_step id=139881201780512 defined at /tmp/words16/run/jaxmiss.py:6"]
    again = [miss, "  for train_step defined at /tmp/words16/run/jaxmiss.py:6",
             "  all previously seen cache keys differ. For the closest previous key:"]
    st = _jax(new + again + again)
    shapes, first, secs, text = st.compiles["train_step"]
    assert shapes == {"miss at line 1", "miss at line 4", "miss at line 7"} and first == 1 and secs == 0.0
    assert text == miss
    assert settings._recompiled(st)[:3] == ("train_step", 3, 1)
    # a miss without the lines after it (no window) or followed by something else counts nothing
    st = settings.State()
    settings._jax_log(st, 1, miss)
    settings._jax_log(st, 2, miss, _Win([miss, "  something else"]))
    settings._jax_log(st, 3, miss, _Win([miss, "  never seen function:", "  train_step defined"]))
    assert st.compiles == {}


def test_recompiled_takes_the_longest_compiling_then_the_most_shapes():
    st = settings.State()
    # (the winner is neither the largest name nor the largest text)
    st.compiles = {"d": [{1, 2, 3}, 5, 1.0, "z"], "b": [{1, 2, 3, 4}, 9, 0.5, "y"], "c": [{1, 2}, 1, 9.0, "x"],
                   "a": [{1, 2, 3, 4, 5}, 2, 1.0, "w"]}
    assert settings._recompiled(st) == ("a", 5, 2, 1.0, "w")


def _told(text, line=3):
    st = settings.State()
    settings._told(st, line, text)
    return st


@pytest.mark.parametrize("text,told", [
    ("Training is very slow on the new cluster.", [("slow", True)]),
    ("Throughput tops out at 120 samples/s.", [("slow", False)]),  # a weak word with a figure
    ("Throughput tops out at the limit.", []),  # ... without one
    ("Every rank spends ~5 s in its first CUDA call.", [("slowstart", False)]),  # a start told by its cost
    ("The first CUDA call is slow.", [("slow", False), ("slowstart", False)]),
    ("Startup is where we are.", []),
    ("Every rank already holds 1.3 GB of GPU memory before any tensor exists.", [("memory", False)]),
    ("We run out of GPU memory at step 10.", [("memory", False)]),
    ("The loss is different on every run.", [("nondeterminism", False)]),
    ("torch.compile does nothing for us.", [("nocompile", False)]),
    ("The kernel takes 4.7 SECONDS per call in the job; the same script on another node takes 0.05 ms.",
     [("slow", True)]),  # compared in figures only
    ("It used to take 2 s per step.", [("slow", True)]),
    # a program's own words and code are no told symptom
    ("Using a slow image processor as `use_fast` is unset.", []), ("# training is slow here", []),
    ("x=1 && echo slow", []),
])
def test_told_symptoms_of_a_users_line(text, told):
    st = _told(text)
    assert [(t[1], t[3]) for t in st.told] == told
    assert all(t[0] == 3 and t[2] == text for t in st.told)
    assert st.shapes_told is False


def test_told_shapes_and_the_stripped_text():
    st = _told("  The input shapes change every batch and it is slow.  ", 7)
    assert st.shapes_told is True and st.told == [(7, "slow", "The input shapes change every batch and it is slow.", False)]


def test_the_users_clauses_of_a_line():
    assert settings._users_clauses("Training is slow.") == "Training is slow."
    # two clauses, the second a pasted NCCL line; and at most 16 clauses are read
    nccl_line = "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0 1024 1024 1024."
    assert settings._users_clauses("Training is slow. " + nccl_line) == "Training is slow."
    many = "Training is slow. " + " ".join([nccl_line] * 15) + " Help me."
    assert settings._users_clauses(many) == "Training is slow."
    # the user's clauses around a pasted NCCL line; a line that starts with the tool's is none
    mixed = ("Training is slow. It takes 3 s per step. NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0 1024. "
             "Help!")
    assert settings._users_clauses(mixed) == "Training is slow. It takes 3 s per step. Help!"
    assert _told(mixed).told == [(3, "slow", "Training is slow. It takes 3 s per step. Help!", False)]
    nccl_first = "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0 1024 1024 1024. It is slow."
    assert settings._users_clauses(nccl_first) is None and _told(nccl_first).told == []
    nccl = "[rank0]: NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC slow"
    assert settings._users_clauses(nccl) is None and _told(nccl).told == []


def test_one_host_counted_as_several_nodes():
    def fx(**kw):
        d = {"hosts": ["vm"], "nodes": 2, "processes": 2, "transports": {"NET/Socket": 4, "P2P/IPC": 2}}
        d.update(kw)
        return d

    st = {"hosts": ["vm"], "nranks": {"2": 1}}
    assert ncclinfo._one_host_nodes(fx(), st)
    assert ncclinfo._one_host_nodes(fx(), {"hosts": ["vm"], "nranks": {}})
    # one node's own log of a job with more ranks than print here (review16): not a split identity
    assert not ncclinfo._one_host_nodes(fx(), {"hosts": ["vm"], "nranks": {"2": 1, "4": 1}})
    assert ncclinfo._one_host_nodes(fx(transports={"NET/IB": 1}, processes=3, nodes=3), {"hosts": ["vm"], "nranks": {"3": 2}})
    assert not ncclinfo._one_host_nodes(fx(hosts=["vm", "vm2"]), {"hosts": ["vm", "vm2"], "nranks": {}})
    assert not ncclinfo._one_host_nodes(fx(), {"hosts": ["vm", ""], "nranks": {}})  # a line without the host
    assert not ncclinfo._one_host_nodes(fx(nodes=1), st) and not ncclinfo._one_host_nodes(fx(nodes=None), st)
    assert not ncclinfo._one_host_nodes(fx(processes=1), st)
    assert not ncclinfo._one_host_nodes(fx(transports={"P2P/IPC": 4}), st)
    assert not ncclinfo._one_host_nodes(fx(transports={}), st)


def test_told_slow_is_the_first_slow_sentence():
    from types import SimpleNamespace

    assert ncclinfo._told_slow(SimpleNamespace()) is None
    st = settings.State()
    assert ncclinfo._told_slow(SimpleNamespace(settings_st=st)) is None
    st.told = [(1, "memory", "m", False), (4, "slow", "first", False), (6, "slow", "second", True)]
    assert ncclinfo._told_slow(SimpleNamespace(settings_st=st)) == (4, "first")


def test_jax_cache_miss_caps_and_a_long_line():
    miss = "TRACING CACHE MISS at /tmp/words16/run/jaxmiss.py:21:11 (<module>):"
    lines = [COMPILING.replace("train_step", "f%d" % i) % (1, 1) for i in range(settings.MAX_FUNCS)]
    st = _jax(lines + [miss, "  for late defined at /x.py:6", "", miss, "  for f0 defined at /x.py:6", ""])
    assert "late" not in st.compiles and len(st.compiles["f0"][0]) == 2
    again = [miss, "  for train_step defined at /tmp/words16/run/jaxmiss.py:6", ""]
    assert len(_jax(again * 70).compiles["train_step"][0]) == 64
    # the window's third line is read only after 'never seen function'
    st = settings.State()
    settings._jax_log(st, 1, miss, _Win([miss, "  something else", "    train_step id=1 defined at /x.py:6"]))
    assert st.compiles == {}
    # a pasted line cut before its time: nothing added
    settings._jax_log(st, 1, "Finished XLA compilation of jit(train_step) in", _Win([]))
    assert st.compiles == {}
    # a jit of many arguments: the shapes are kept to 200 characters, the line to 400
    args = ", ".join("ShapedArray(float32[%d,64])" % n for n in range(100, 120))
    line = "Compiling jit(step) with global shapes and types (%s). Argument mapping: ()." % args
    shapes, _first, _secs, text = _jax([line]).compiles["step"]
    assert [len(s) for s in shapes] == [200] and text == line[:400]
    long_miss = "TRACING CACHE MISS at /%s/jaxmiss.py:21:11 (<module>):" % ("d" * 420)
    st = _jax([long_miss, "  for train_step defined at /x.py:6"])
    assert st.compiles["train_step"][3] == long_miss[:400]
