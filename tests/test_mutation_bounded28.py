"""Mutation round 23 (docs/mutation.md): red team 2026-11-28g's code (docs/security.md 90.), in process so mutmut can
count it: fixline.bounded (a node's value a check cuts at a limit or writes with repr()) and Shown's repr()/ascii()
forms of a hostile value. test_redteam_2026_11_28g.py's CLI tests run gpudoctor in a subprocess, which mutmut cannot
see. Every shown word is pasted into a real bash, which must run nothing and print the node's text back."""
import shutil
import subprocess

from gpudoctor.fixline import Shown, bounded, inert_word, shown_word

BASH = shutil.which("bash")


def _pasted(tmp_path, line):
    """What bash prints for ``printf %s LINE`` pasted as a user would, and whether it created MARKER."""
    box = tmp_path / "w"
    box.mkdir(exist_ok=True)
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", "printf %s " + line], cwd=str(box), timeout=30,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True).stdout
    return out, any(p.name == "MARKER" for p in box.iterdir())


def test_a_value_of_exactly_the_limit_is_not_marked_cut():
    assert bounded("a" * 40, 40) == "a" * 40
    assert bounded("a" * 41, 40) == "a" * 40 + " ..."
    assert bounded(["ab"], 6) == inert_word("['ab']")  # repr's 6 characters, a quote in them: inert, whole


def test_a_control_character_without_a_shell_character_is_inert_too(tmp_path):
    # an escape sequence (clears the screen) in a hostname: no character of ACTS, but a terminal acts on it
    got = bounded("gpu01\x1b[2Jx", 100)
    assert got.startswith("$'") and "\x1b" not in got
    assert _pasted(tmp_path, got) == ("gpu01\x1b[2Jx", False)
    got = bounded("gpu01\u202ex", 100)                  # RLO: the line reads other than it runs
    assert got.startswith("$'") and "\u202e" not in got


def test_a_cut_hostile_value_is_its_cut_piece_as_one_inert_word(tmp_path):
    value = "x'$(touch MARKER)" + "a" * 120
    got = bounded(value, 100)
    assert got.endswith("' ...")
    word = got[:-4]
    assert _pasted(tmp_path, word) == (value[:100], False)
    assert _pasted(tmp_path, "x$(touch MARKER)")[1]     # the check can fail: bash runs an unguarded piece


def test_a_dict_a_node_sent_is_shown_as_repr_writes_it_and_runs_nothing(tmp_path):
    value = {"k": "x\\'$(touch MARKER)"}
    got = bounded(value, 200)
    assert _pasted(tmp_path, got) == (repr(value), False)


def _repr_list_case(v):
    values = [v, "plain"]
    text = "NCCL_DEBUG is %r on n1" % ([v],)
    return Shown(values), text


def test_shown_finds_a_hostile_value_as_repr_writes_it_in_a_list(tmp_path):
    v = "x\\'$(touch MARKER)"                           # a backslash and a quote: repr doubles the backslash
    s, text = _repr_list_case(v)
    form = repr(v)[1:-1]
    assert form != v and form in text and v not in text
    got = s(text)
    assert got == text.replace(form, shown_word(form))
    word = got.split('["', 1)[1].split('"]', 1)[0]
    assert _pasted(tmp_path, word) == (form, False)
    assert _pasted(tmp_path, 'x"%s"' % form)[1]          # unguarded, repr's double quotes run it


def test_shown_finds_a_hostile_value_as_ascii_writes_it(tmp_path):
    v = "caf\u00e9;$(touch MARKER)"                      # repr keeps the é, ascii() writes \xe9
    form = ascii(v)[1:-1]
    assert form != repr(v)[1:-1]
    text = "numpy is %s on n1" % ascii({"k": v})
    got = Shown([v])(text)
    # between repr's single quotes, with a space: the quotes are taken into the one word (as Shown does for a check's)
    assert got == text.replace("'%s'" % form, shown_word(form))
    assert _pasted(tmp_path, shown_word(form)) == (form, False)


def test_shown_leaves_a_value_repr_writes_unchanged_as_one_value():
    # repr(v)[1:-1] == v: one value, not two, and text without the value is left as it is
    s = Shown(["a;b"])
    assert s("x 'a;b' y") == "x 'a;b' y"                # the check quoted it itself
    assert s("x a;b y") == "x 'a;b' y"
    assert s("nothing here") == "nothing here"


def test_shown_finds_repr_form_of_a_non_ascii_value_where_ascii_writes_it_otherwise(tmp_path):
    # repr() keeps the é and doubles the backslash; ascii() writes \xe9: only repr's form is in a list's repr
    v = "caf\u00e9\\'$(touch MARKER)"
    form = repr(v)[1:-1]
    assert form != ascii(v)[1:-1] and form != v
    text = "NCCL_DEBUG is %r on n1" % ([v],)
    got = Shown([v])(text)
    assert got == text.replace(form, shown_word(form))
    word = got.split('["', 1)[1].split('"]', 1)[0]
    assert _pasted(tmp_path, word) == (form, False)


def test_shown_quotes_every_acting_word_when_a_values_repr_form_is_too_long_to_look_for(tmp_path):
    # mutation28's find (Shown.__init__ _15 lived): a value within MAX_VALUE whose repr() form is past it (each '\n'
    # written as two characters) was neither looked for nor made every acting word quoted: '$(touch MARKER)' stood
    # bare inside repr's double quotes
    from gpudoctor.fixline import MAX_VALUE

    v = "x'$(touch MARKER)" + "\n" * (MAX_VALUE // 2 + 50)
    assert len(v) <= MAX_VALUE < len(repr(v))
    s, text = _repr_list_case(v)
    got = s(text)
    assert got != text
    assert not any(_pasted(tmp_path, w)[1] for w in got.split(" "))
    assert _pasted(tmp_path, 'x"%s"' % repr(v)[1:40])[1]  # unguarded, repr's double quotes run it
