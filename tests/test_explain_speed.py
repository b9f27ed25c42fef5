"""`gpudoctor explain "<one line>"` loads the knowledge without compiling it: the prefilter
regexes are built when a text first needs them (a short text is looked up in the needle set
instead), each pattern is compiled when a line first needs it. The answers must not change:
these tests hold the short-text lookup to the regexes' hits and every pattern to compiling.
"""

import glob
import os
import random

import pytest

from gpudoctor import explain
from gpudoctor.explain import knowledge
from gpudoctor.explain.knowledge import squash
from gpudoctor.explain.scan import kb_reach

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _regex_hits(kb, flat, a, end, b):
    found = []
    for pre in kb.prefilters:
        found.extend(pre.hits(flat, a, end, b))
    found.sort()
    return found


def test_a_short_texts_lookup_finds_what_the_prefilter_regexes_find(kb):
    # development texts (never the held-out ones) and needles glued, overlapping and cut short
    texts = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, "fixtures", "logs", "dev", "*.log")))[:60]]
    needles = sorted(kb.by_hit)
    rnd = random.Random(7)
    for _ in range(200):
        parts = [rnd.choice(needles) for _ in range(rnd.randint(1, 10))]
        texts.append(b"".join(p[:rnd.randint(1, len(p))] if rnd.random() < 0.3 else p for p in parts))
    reach, hits, tiny = kb_reach(kb), 0, 0
    kb._small_hits(b"x" * 5000, 0, 5000, 5000)  # the table of first bytes is built
    for text in texts:
        flat = squash(text)
        for a, b in ((0, len(flat)), (len(flat) // 3, len(flat) // 2)):
            end = min(len(flat), b + reach)
            want = _regex_hits(kb, flat, a, end, b)
            got = kb._small_hits(flat, a, end, b)
            assert got == want, text[:200]
            hits += len(got)
            if b - a <= knowledge.TINY_TEXT:  # a line or two: every length at every offset, no table
                heads, kb._heads = kb._heads, None
                try:
                    assert kb._small_hits(flat, a, end, b) == want, text[:200]
                finally:
                    kb._heads = heads
                tiny += 1
    assert hits > 1000 and tiny > 100


def test_one_line_compiles_no_prefilter_and_few_patterns(monkeypatch):
    monkeypatch.setattr(knowledge, "_cache", {})
    kb = explain.load_knowledge()
    res = explain.explain_text(b"NCCL WARN Cuda failure 'invalid argument'", kb, assume_error=True)
    assert res["root"] and res["verdict"] == "root_cause"
    assert kb._prefilters is None  # looked up in the needle set
    compiled = sum(p._regex is not None for p in kb.patterns)
    assert compiled < len(kb.patterns) // 20, compiled
    # past SMALL_TEXT bytes in this process the regexes take over (a long log): same answer
    kb._small_left = 0
    again = explain.explain_text(b"NCCL WARN Cuda failure 'invalid argument'", kb, assume_error=True)
    assert kb._prefilters is not None and again == res


def test_every_built_in_pattern_compiles(kb):
    # (compiled lazily, so a bad one would fail on the first line that needs it; the generated
    # sites are compiled by tests/test_explain_generated.py)
    for p in kb.patterns:
        if p.site is None:
            assert p.regex.pattern == p.source


def test_a_given_files_bad_regex_is_refused_at_load(tmp_path):
    ok = "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['%s']\n[[entry.causes]]\ntext='c'\n" \
         "fix=['f']\n[[entry.references]]\ntitle='r'\nurl='https://example.org/r'\n"
    for bad in (r"(?<=a+)bcde", r"abcd(", r"abcd\1"):  # the compiler's error, the parser's errors
        p = tmp_path / "bad.toml"
        p.write_text(ok % bad)
        with pytest.raises(explain.KnowledgeError):
            explain.load_knowledge([str(p)], known_checks=set())


# ------------------------------------------------------------------ the knowledge cache (kcache.py)


def _fingerprint(kb):
    import json

    pats = [(p.entry, p.role, p.source, p.rank, p.needles_b, p.cause, p.weight, p.near, p.group, p.index, p.on_info,
             p.site) for p in kb.patterns]
    def plain(v):  # the data as read, without the Pattern objects load adds (keys '_...')
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items() if not k.startswith("_")}
        return [plain(x) for x in v] if isinstance(v, list) else v

    entries = json.dumps(plain(kb.entries), sort_keys=True)
    return pats, entries, sorted(kb.by_hit)


def _fresh_load(monkeypatch):
    monkeypatch.setattr(knowledge, "_cache", {})
    monkeypatch.setattr(knowledge, "_NEEDLES", {})
    return explain.load_knowledge()


def test_the_cache_gives_what_the_toml_gives(tmp_path, monkeypatch):
    from gpudoctor.explain import kcache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = _fingerprint(_fresh_load(monkeypatch))  # derived, then written
    f, sites = sorted(os.listdir(str(tmp_path / "gpudoctor")))
    assert f.startswith(kcache.PREFIX) and os.stat(str(tmp_path / "gpudoctor" / f)).st_mode & 0o777 == 0o600
    assert sites.startswith(kcache.SITES_PREFIX) and os.stat(str(tmp_path / "gpudoctor" / sites)).st_mode & 0o777 == 0o600
    assert os.stat(str(tmp_path / "gpudoctor")).st_mode & 0o777 == 0o700

    def no_toml(path, rel):
        raise AssertionError("read from the cache, not " + rel)

    monkeypatch.setattr(knowledge, "_read_toml", no_toml)
    monkeypatch.setattr(knowledge, "needles_of", no_toml)
    monkeypatch.setattr(knowledge, "_site_rows", lambda path: no_toml(path, path))  # the sites: from their cache too
    monkeypatch.setattr(knowledge, "_DOCS", {})
    assert _fingerprint(_fresh_load(monkeypatch)) == first
    # settings.toml's table comes with the cache (settings.table() parses no TOML then), as the file gives it
    from gpudoctor.explain import settings

    assert settings.TABLE in knowledge._DOCS
    monkeypatch.setattr(settings, "_table", None)
    from_cache = settings.table()
    monkeypatch.setattr(knowledge, "_DOCS", {})
    monkeypatch.setattr(settings, "_table", None)
    assert settings.table() == from_cache and len(from_cache) > 20


def test_the_cache_is_read_only_from_this_users_own_files(tmp_path, monkeypatch):
    from gpudoctor.explain import kcache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = "ab" * 32
    docs, needles = ['{"entry": [{"id": "a.b"}]}'], {"abcd(e|f)": ["abcd"]}
    kcache.write(key, docs, needles)
    path = kcache._path(key)
    assert kcache.read(key, 1) == ([{"entry": [{"id": "a.b"}]}], needles)
    assert kcache.read("cd" * 32, 1) is None  # another key: another name
    assert kcache.read(key, 2) is None  # not one table per knowledge file
    os.chmod(path, 0o640)
    assert kcache.read(key, 1) is None  # readable by the group
    os.chmod(path, 0o600)
    link = str(tmp_path / "elsewhere.json")
    os.rename(path, link)
    os.symlink(link, path)
    assert kcache.read(key, 1) is None  # a symlink
    os.unlink(path)
    os.rename(link, path)
    os.chmod(os.path.dirname(path), 0o770)
    assert kcache.read(key, 1) is None  # a folder others can write
    os.chmod(os.path.dirname(path), 0o700)
    with open(path, "rb") as f:
        head = f.readline()
    for body in (b'{"docs": [{"entry": ["x"]}], "needles": {}}', b'{"docs": [{}], "needles": {"a": [1]}}',
                 b'{"docs": [{}], "needles": {"a": []}}', b"[1]", b"{", b"\xff"):
        with open(path, "wb") as f:
            f.write(head + body)
        assert kcache.read(key, 1) is None, body  # not the shape a derivation gives
    # a cache folder that is not this user's own (or that others can write) gets nothing
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    kcache.write(key, docs, needles)
    assert not os.path.exists(str(shared / "gpudoctor"))


def test_the_sites_file_is_read_back_only_as_rows_of_this_users_own(tmp_path, monkeypatch):
    import marshal

    from gpudoctor.explain import kcache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    paths = knowledge.generated_files()[:2]
    key = kcache.sites_key(paths)
    assert key and key != kcache.sites_key(paths[:1]) and kcache.sites_key(paths + ["/no/such.json"]) is None
    rows = [[["a.b", r"abcd \d{1,4}", ["abcd"], {"id": "x.1", "code": 3, "fix": ["f"]}]], []]
    kcache.write_sites(key, rows)
    path = kcache._sites_path(key)
    assert os.stat(path).st_mode & 0o777 == 0o600 and kcache.read_sites(key, 2) == rows
    assert kcache.read_sites(key, 3) is None and kcache.read_sites("cd" * 32, 2) is None
    os.chmod(path, 0o640)
    assert kcache.read_sites(key, 2) is None  # readable by the group
    os.chmod(path, 0o600)
    with open(path, "rb") as f:
        head = f.readline()
    code = compile("1", "x", "eval")
    for bad in ([[["a.b", "abcd", None, {"id": code}]], []], [[("a.b", "abcd", None, {})], []],
                [[["a.b", "abcd", [b"abcd"], {}]], []], [[["a.b", "abcd", None, {"fix": [1]}]], []], [{}, []]):
        with open(path, "wb") as f:
            f.write(head + marshal.dumps(bad))
        assert kcache.read_sites(key, 2) is None, bad  # a code object, a tuple, bytes: not a row
    for body in (b"", b"\xff\x00", marshal.dumps(rows)[:-3]):
        with open(path, "wb") as f:
            f.write(head + body)
        assert kcache.read_sites(key, 2) is None, body  # cut short or not marshal's
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    kcache.write_sites(key, rows)
    assert not os.path.exists(str(shared / "gpudoctor"))


# ------------------------------------------------------------------ needles given to a signal


FRAMES = [  # what every traceback and torch warning of a training log holds (bench/explain_bench.py's noise)
    b'  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl',
    b"/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader "
    b"will create 16 worker processes in total.",
]


@pytest.mark.parametrize("line", FRAMES)
def test_a_torch_path_is_no_candidate(kb, line):
    # driver_cuda.knowledge.toml's pip-list signal '\btorch {2,40}\d\.' had the needle 'torch': a quarter of
    # the benchmark log's lines were candidates, each trying 34 patterns (the 100 MB log ~10x slower)
    from gpudoctor.explain import scan

    assert [n for found in scan._hits(kb, squash(line)) for _, n in found] == []


def test_the_pip_list_line_still_feeds_the_driver_fix(kb):
    text = (b"RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n"
            b"torch                    2.4.0\n" + FRAMES[0] + b"\n")
    root = explain.explain_text(text, kb)["findings"][0]
    assert root["id"] == "cuda.driver_insufficient"
    assert [s["text"] for s in root["signals"]] == ["torch                    2.4.0"]
    assert "torch 2.4.0 from PyPI" in root["causes"][0]["computed_fix"]


def test_a_signals_needles_are_checked_at_load(tmp_path):
    ok = "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['abcd']\nsignals=[{re='efgh \\\\d', " \
         "weight=0%s}]\n[[entry.causes]]\ntext='c'\nfix=['f']\n[[entry.references]]\ntitle='r'\n" \
         "url='https://example.org/r'\n"
    p = tmp_path / "k.toml"
    p.write_text(ok % ", needles=['efgh1', 'efgh2']")
    sig = [x for x in explain.load_knowledge([str(p)], known_checks=set()).patterns if x.role == "signal"]
    assert sig[0].needles_b == [b"efgh1", b"efgh2"]
    for i, bad in enumerate((", needles=[]", ", needles='efgh1'", ", needles=['ef g']", ", needles=[1]")):
        p = tmp_path / ("bad%d.toml" % i)  # (load_knowledge keeps what it loaded per file name)
        p.write_text(ok % bad)
        with pytest.raises(explain.KnowledgeError):
            explain.load_knowledge([str(p)], known_checks=set())
