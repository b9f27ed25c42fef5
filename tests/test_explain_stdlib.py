"""Python's standard library refusing a training job's processes, pickling and threads (issue 18): the sites
tools/gen_stdlib_messages.py reads from CPython 3.11.2 (Debian 12: Lib/multiprocessing, Lib/concurrent/futures,
Lib/pickle.py, Lib/threading.py; the C modules' messages from the interpreter binary) regenerate from the recorded slice
(tools/data/stdlib_messages_slice.txt), and real runs made here (fixtures/explain/stdlib/, README there: the script and
its output) get their entry and the fix of the code that raised them."""

import os
import sys

import pytest

from gpudoctor.explain import explain_text

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_stdlib_messages  # noqa: E402
import knowgen  # noqa: E402

RUNS = os.path.join(REPO, "fixtures", "explain", "stdlib")


def _sites(doc):
    return {s["id"]: (s.get("family"), s.get("re"), s.get("fix")) for s in doc["sites"] if s.get("family")}


def test_the_slice_regenerates_the_committed_sites(tmp_path):
    got = knowgen.regenerated(gen_stdlib_messages.main, os.path.join(REPO, "tools", "data", "stdlib_messages_slice.txt"),
                              tmp_path / "out.json")
    assert _sites(got) == _sites(knowgen.committed("stdlib_messages"))
    assert len(_sites(got)) > 100


def test_short_or_builtin_messages_get_no_family():
    by_text = {s["text"]: s for s in knowgen.committed("stdlib_messages")["sites"]}
    # the end of the builtins' 'list assignment index out of range' (Objects/listobject.c), not a refusal of
    # multiprocessing's shared_memory
    assert by_text["assignment index out of range"]["family"] is None
    assert by_text["index out of range"]["family"] is None  # too short to be told apart
    # the C twin of a pickle.py message is the same message, kept
    assert by_text["Can't pickle %r: it's not the same object as %s.%s"]["family"] == "python.pickle"


def test_the_vague_and_the_builtin_are_told_apart():
    builtins = ["list assignment index out of range", "Can't pickle %R: it's not the same object as %S.%S"]
    said = gen_stdlib_messages._said_by_builtins
    assert said("assignment index out of range", builtins) == "list assignment index out of range"
    assert said("Can't pickle %r: it's not the same object as %s.%s", builtins) is None
    assert not knowgen.own_enough("handle is closed")
    assert knowgen.own_enough("daemonic processes are not allowed to have children")


@pytest.mark.parametrize("name, entry, fix", [
    ("spawn_main2", "python.multiprocessing", "if __name__ == '__main__':"),
    ("spawn_main", "python.multiprocessing", "if __name__ == '__main__':"),
    ("ctx2", "python.multiprocessing", "force=True"),
    ("broken", "python.multiprocessing", "killed process"),
    ("lam", "python.pickle", "state_dict"),
    ("eof", "python.pickle", "os.replace"),
    ("sigthr", "python.threading", "main thread"),
])
def test_runs_here_get_their_entry_and_fix(name, entry, fix):
    with open(os.path.join(RUNS, name + ".log"), encoding="utf-8") as f:
        r = explain_text(f.read())
    assert r["verdict"] == "root_cause"
    root = r["findings"][0]
    assert root["id"] == entry and root["family"] == "code.exception"
    assert fix in " ".join(x for c in root["causes"] for x in c["fix"])


def test_a_builtin_index_error_is_not_multiprocessing():
    text = ('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    x = batch[7]\n'
            "IndexError: list index out of range\n")
    r = explain_text(text)
    assert not any(f["id"].startswith("python.") for f in r["findings"])
