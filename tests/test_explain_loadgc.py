"""What makes explain's start cheaper must leave it as it was: the garbage collector paused for a knowledge load
(knowledge.load_knowledge) is left as it was found, a load that fails included, and the interpreter-wording test's
quick first look (knowledge._INTERPRETER_KEY) decides as the words alone do on every generated site's text."""

import gc

import pytest

from gpudoctor import explain
from gpudoctor.explain import knowledge

OK = ("[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['%s']\n[[entry.causes]]\ntext='c'\n"
      "fix=['f']\n[[entry.references]]\ntitle='r'\nurl='https://example.org/r'\n")


@pytest.fixture
def gc_state():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_a_load_leaves_the_collector_as_it_found_it(tmp_path, gc_state):
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text(OK % r"abcd \d{1,4} failed")
    bad.write_text(OK % r"abcd(")
    gc.enable()
    frozen = gc.get_freeze_count()
    kb = explain.load_knowledge([str(good)], known_checks=set())
    assert gc.isenabled() and kb.by_id["a.b"]["_patterns"][0].regex.search("abcd 12 failed")
    assert gc.get_freeze_count() > frozen  # what the load built is out of the collector's reach
    with pytest.raises(explain.KnowledgeError):
        explain.load_knowledge([str(bad)], known_checks=set())
    assert gc.isenabled()
    gc.disable()
    good.write_text(OK % r"wxyz \d{1,4} failed")  # another file's bytes, same path: loaded again
    knowledge._cache.pop(((str(good),), ()), None)
    kb = explain.load_knowledge([str(good)], known_checks=set())
    assert not gc.isenabled() and kb.by_id["a.b"]["_patterns"][0].regex.search("wxyz 12 failed")
    knowledge._cache.pop(((str(good),), ()), None)


def test_the_quick_look_decides_as_the_words_do_on_every_site():
    texts = list(knowledge.INTERPRETER_WORDINGS)
    texts += [t.upper() for t in texts] + ["Module 'tokenize' has no attribute 'open'", "%s: No module named %s.",
                                           "modules %s have no attributes", None, 7]
    for path in knowledge.generated_files():
        texts += [s.get("text") for s in knowledge.read_json(path).get("sites", [])]
    assert len(texts) > 20000
    said = [t for t in texts if knowledge.interpreter_wording(t)]
    assert said == [t for t in texts if isinstance(t, str) and knowledge._words(t) in knowledge._INTERPRETER]
    assert len(said) >= 2 * len(knowledge.INTERPRETER_WORDINGS)  # each wording, in either case, and more


def test_the_meaning_classes_compile_and_are_searched_in_their_order():
    import re

    from gpudoctor.explain import meaning

    eager = [(k, re.compile(v, meaning._F)) for k, v in meaning.CLASSES.items()]  # each compiles (no longer at import)
    live = frozenset(list(meaning.CLASSES)[::3]) | {"_idx", "not a class"}
    got = meaning._searched(live)
    assert [(k, rx.pattern, rx.flags) for k, rx in got] == [(k, rx.pattern, rx.flags) for k, rx in eager if k in live]
    assert len(got) >= 10

