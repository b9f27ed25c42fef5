"""gpudoctor/fixline.py, the quoting of what users paste, checked whole (mutation round 16, docs/mutation.md).

Each case states the exact output of one function for one input, so a changed bound, quote or offset fails:
``_quote_end`` / ``keep_quoted`` (a wrapped text report never breaks a line inside a quoted word: single, double
and ANSI-C quotes, glued pieces, an open quote, a prose apostrophe), ``first_active`` (what a pasted line does
besides its one command), ``shown_word`` and ``Shown`` (a description's hostile node values), ``sh`` / ``cmd``.
Quoting rules: bash(1) QUOTING (https://www.gnu.org/software/bash/manual/bash.html#Quoting).
"""

import pytest

from gpudoctor.fixline import (KEEP, MAX_SHOWN, MAX_TOTAL, MAX_VALUE, Literal, Shown, _quote_end, cmd, first_active,
                               hostile, inert, keep_quoted, leaf_strings, operand, sh, shown_word)


@pytest.mark.parametrize("text, i, end", [
    ("'a b'", 0, 5),              # a word that ends the text
    ("'a' 'b'", 0, 3),            # the first quote's close, not the last one in the text
    ("'' x", 0, 2),               # an empty quoted word
    ("'ab' x", 0, 4),
    ("'a'\"'\"'b' r", 0, 9),      # sh()'s glued pieces: one word
    ('"a \\" b" x', 0, 8),        # a backslash-escaped double quote stays inside
    ('"a b"', 0, 5),
    ('"" x', 0, 2),
    ("$'a\\' b' x", 0, 8),        # ANSI-C quoting: \' stays inside
    ("$'' x", 0, 3),
    ("$'a b'", 0, 6),
    ("x 'a b' y", 2, 7),          # from an offset inside the text
    ("'abc", 0, None), ('"abc', 0, None), ("$'abc", 0, None), ('"abc\\', 0, None), ("'a'\"b", 0, None),
    ("x", 0, 0), ("$x", 0, 0), ("a'b'", 0, 0),
])
def test_quote_end(text, i, end):
    assert _quote_end(text, i) == end


@pytest.mark.parametrize("text, kept", [
    ("'a b'", "'a_b'"),                              # a quote at the text's start
    ("ls -l '/data/a b ccc; touch PWN; #'", "ls -l '/data/a_b_ccc;_touch_PWN;_#'"),
    ("x $'a b' y", "x $'a_b' y"),                    # ANSI-C
    ("a $'c d' e 'f g'", "a $'c_d' e 'f_g'"),
    ("'a b' \"c d\"", "'a_b' \"c_d\""),              # both kinds of quote in one text
    ("x=\"c d\" y", "x=\"c_d\" y"),
    ("x='a b' y=(\"c d\") z:'e f' w,'g h' [\"i j\"]", "x='a_b' y=(\"c_d\") z:'e_f' w,'g_h' [\"i_j\"]"),
    ("don't stop 'a b'", "don't stop 'a_b'"),        # a prose apostrophe starts nothing
    ("Xa 'b c' X", "Xa 'b_c' X"),
    ("a'b c' d", "a'b c' d"),                        # a quote inside a word starts nothing
    ("a$'b c' d", "a$'b c' d"),
    ("'a b", "'a b"),                                # open: left as it is
    ("x 'a b", "x 'a b"),
    ("no quotes at all", "no quotes at all"),
    ("'a b' $x 'c d'", "'a_b' $x 'c_d'"),
])
def test_keep_quoted(text, kept):
    assert keep_quoted(text).replace(KEEP, "_") == kept
    assert keep_quoted(text).replace(KEEP, " ") == text


def test_keep_quoted_leaves_a_text_that_already_holds_the_marker():
    text = KEEP + " 'a b'"
    assert keep_quoted(text) == text


@pytest.mark.parametrize("line, at", [
    (None, 0), (b"a;b", 0),
    ("'a';x", 3),              # the single quote closes at its own quote
    ("a\\;;x", 3),             # a backslash escapes one character
    ("x=$((1+2));y", 10),      # arithmetic kept, the rest still read
    ("x=$(($(y)))", 2),        # arithmetic holding a command substitution
    ("x=$((1+2", 2),           # arithmetic never closed
    ('"a;b";c', 5), ('"a\\"b";c', 6), ('"a b" \'c\' d', None), ("'a' \"b\" 'c;d'", None),
    ("XX=1 cmd", None), ("aXb", None), ("a b c", None), ("", None),
    ("a 'b", 4), ("a \"b", 4), ("a\\", None),
    ("a&b", 1), ("a<b", 1), ("a)", 1), ('"a$(b)"', 2), ('"a!"', 2), ("'a!'", None),
    ("a\x1bb", 1), ("a\u2028b", 1),
])
def test_first_active_whole(line, at):
    assert first_active(line) == at
    if isinstance(line, str):
        assert inert(line) == (at is None)


@pytest.mark.parametrize("value, shown", [
    ("a b;c", "$'a\\x20b;c'"),     # a blank: one $'...' word with \x20, never split by the report's wrapper
    ("a;b", "'a;b'"), ("ab", "ab"), ("a b", "$'a\\x20b'"), ("it's a", "$'it\\'s\\x20a'"),
])
def test_shown_word(value, shown):
    assert shown_word(value) == shown


def test_shown_finds_each_hostile_value_and_joins_overlapping_ones():
    s = Shown(["ab;c", "b;c d", "plain", "x", ";;", 7, None])
    assert s("x ab;c d y 'ab;c' z") == "x $'ab;c\\x20d' y 'ab;c' z"
    assert s("ab;c and ab;c") == "'ab;c' and 'ab;c'"
    assert s("nothing here") == "nothing here"
    assert s(None) is None and s(5) == 5
    assert Shown(["plain", "x"])("a;b") == "a;b"   # no hostile value: the text as it is


def test_shown_quotes_a_value_between_quotes_only_when_it_holds_a_blank():
    s = Shown(["a;b c"])
    assert s("see 'a;b c' here") == "see $'a;b\\x20c' here"
    s = Shown(["a;b"])
    assert s("see 'a;b' here") == "see 'a;b' here"
    assert s("'a;b'") == "'a;b'"                          # the whole text: the check's own quotes
    assert s("a;b'") == "'a;b''" and s("'a;b") == "''a;b'"  # a quote on one side only: quoted
    assert s("x'a;b\"") == "x''a;b'\""
    assert s("a;b") == "'a;b'"


def test_shown_every_word_past_the_bounds():
    long = "x" * (MAX_VALUE + 1) + ";"
    s = Shown([long])
    assert s("run a;b and $x now c d") == "run 'a;b' and '$x' now c d"
    assert s("a\tb c") == "$'a\\x09b' c"
    many = Shown(["v%d;x" % i for i in range(MAX_SHOWN + 1)])
    assert many("a;b c") == "'a;b' c"
    assert Shown(["v%d;x" % i for i in range(MAX_SHOWN)])("a;b c v1;x") == "a;b c 'v1;x'"
    big = ["%05d;" % i + "y" * 2000 for i in range(MAX_TOTAL // 2000 + 1)]
    assert Shown(big)("a;b") == "'a;b'"
    # a long value that holds nothing a shell acts on changes nothing
    assert Shown(["x" * (MAX_VALUE + 1)])("a;b") == "a;b"


@pytest.mark.parametrize("value, yes", [
    ("a;b", True), ("ab;", True), ("a\nb", True), ("a\u202eb", True), (";;;", False), ("a;", False),
    ("abc", False), ("x" * MAX_VALUE + ";", False), ("x" * (MAX_VALUE - 1) + ";", True), (["a;b"], False),
])
def test_hostile(value, yes):
    assert hostile(value) is yes


def test_sh_and_cmd():
    assert sh("/usr/bin/python3") == "/usr/bin/python3"
    assert sh("a b") == "'a b'"
    assert sh("it's") == "'it'\"'\"'s'"
    assert sh("a\nb") == "$'a\\x0ab'"
    assert sh("a\\b\n'") == "$'a\\\\b\\x0a\\''"
    assert sh("\udc80x\x7f") == "$'\\x80x\\x7f'"            # a surrogate-escaped byte is that byte
    assert sh("\udcffx") == "$'\\xffx'"
    assert sh("a\u202eb") == "$'a\\xe2\\x80\\xaeb'"          # UTF-8 bytes of a format character
    assert sh(["a b", "c"]) == "'a b' c" and sh(("x",)) == "x" and sh(Literal("$USER")) == "$USER"
    assert sh(12) == "12" and sh("") == "''"
    assert cmd("{exe} -m pip {0} {{x}} {n:>3}", "a;b", exe="/opt/p y/python", n=5) == \
        "'/opt/p y/python' -m pip 'a;b' {x} '  5'"
    assert cmd("{v}", v=["a", "b c"]) == "a 'b c'" and cmd("{v}", v=Literal("$HOME")) == "$HOME"


def test_leaf_strings():
    facts = {"env": {"PATH": "/bin", "N": 3}, "l": ["a", ("b", {"k": "c"})], "x": None}
    assert sorted(leaf_strings(facts)) == ["/bin", "N", "PATH", "a", "b", "c", "env", "k", "l", "x"]
    assert len(leaf_strings({"a": ["x"] * 10}, limit=3)) == 3
    assert leaf_strings("s") == ["s"] and leaf_strings(5) == []


def test_operand():
    assert operand("-oProxyCommand=x;y") == "'./-oProxyCommand=x;y'"   # never read as an option
    assert operand("-a b") == "'./-a b'" and operand(-3) == "./-3"
    assert operand("a b") == "'a b'" and operand("/-x") == "/-x" and operand(5) == "5"


def test_round16_survivors():
    """The survivors of the first after-run (docs/mutation.md, Round 16), each by the input that tells it apart."""
    assert sh("\udd00") == "$'\\xed\\xb4\\x80'"        # a lone surrogate that is no escaped byte: its UTF-8 form
    assert sh("\x80") == "$'\\xc2\\x80'"               # U+0080 (a C1 control) is two bytes, not \x80
    assert Shown([";" * MAX_VALUE])("a;b") == "a;b"     # MAX_VALUE characters, no letter: neither hostile nor too long
    eight = ["%04d;" % i + "y" * 4091 for i in range(8)]
    assert sum(len(v) for v in eight) == MAX_TOTAL and Shown(eight)("a;b c") == "a;b c"  # at MAX_TOTAL: looked for
    assert Shown(["ab;c", "ab;c d"])("x ab;c d y") == "x $'ab;c\\x20d' y"  # the longest value first
    assert Shown(["x" * (MAX_VALUE + 1) + ";"])("x=1 a*b ok a;b") == "x=1 a*b ok 'a;b'"  # every word: only those
    # that act ('a*b' is one shlex.quote would quote: a glob, no shell word boundary)
    assert len(leaf_strings(["s"] * 100001)) == 100000  # the default bound
    assert Shown(["a;b", "c;d"])("a;bc;d") == "'a;b''c;d'"  # touching, not overlapping: two words
    assert Shown(["ab;cd", "b;c"])("ab;cd") == "'ab;cd'"    # one inside the other: the outer one's end
    assert Shown(["ab;c", "c;d"])("'ab;c;d'") == "''ab;c;d''"  # a joined run is quoted even between quotes
    assert Shown(["a'b;c"])("'a'b;c'") == "''a'\"'\"'b;c''"  # a value holding a quote is never the check's quoting
    assert Shown(["a;b"])("'a;b' and a;b") == "'a;b' and 'a;b'"  # after a value left as quoted, the next one
    assert _quote_end('"a\\b" x', 0) == 5
    assert first_active("a $x") is None and first_active("a $'b'") == 2 and first_active('"a" b') is None
