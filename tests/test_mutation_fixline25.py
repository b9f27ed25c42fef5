"""Mutation round 20 (docs/mutation.md): fixline's prose guard over an input's own words (guarded_prose, _spans,
_words_safe, input_windows; docs/security.md 68., 78.). In-process, so mutmut can count them; every guarded line is
also pasted into a real restricted bash, which must run nothing from it."""
import shutil
import subprocess

import pytest

from gpudoctor.fixline import _spans, _words_safe, guarded_prose, input_windows

BASH = shutil.which("bash")


def _runs_nothing(tmp_path, line):
    """Paste ``line`` into bash (as a user pasting a fix line would): nothing named MARKER appears."""
    box = tmp_path / "w"
    box.mkdir(exist_ok=True)
    subprocess.run([BASH, "--norc", "--noprofile", "-c", line], cwd=str(box), timeout=30,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return not any(p.name == "MARKER" for p in box.iterdir())


def test_words_safe_writes_only_the_acting_words_inert_and_keeps_the_blanks():
    assert _words_safe("a b;c  d$x") == "a $'b\\x3bc'  $'d\\x24x'"
    assert _words_safe("plain words") == "plain words"


def test_plain_prose_and_the_prose_own_separator_are_written_as_they_stand():
    assert guarded_prose("plain words here; and more") == "plain words here; and more"
    note = "line 4 reads x; plan it where the script is"
    assert guarded_prose(note, input_windows([note], ["srun -n2 python t.py"])) == note


def test_a_trigger_without_the_input_guards_the_acting_words_alone(tmp_path):
    assert guarded_prose("a;b c") == "$'a\\x3bb' c"
    shown = guarded_prose("runs x;touch${IFS}MARKER;# now")
    assert shown.startswith("runs $'") and shown.endswith("' now")
    assert _runs_nothing(tmp_path, "echo " + shown)
    assert not _runs_nothing(tmp_path, "echo runs x;touch${IFS}MARKER;# now")  # the check can fail


def test_the_inputs_span_is_one_inert_word_and_the_prose_keeps_its_own_quotes(tmp_path):
    note = "salloc's note: srun runs u; touch MARKER; ab.sh here; see `wait`"
    w = input_windows([note], ['srun bash "u; touch MARKER; ab.sh"'])
    assert w == frozenset({"u; touch MA", "MARKER; ab.sh"})
    shown = guarded_prose(note, w)
    assert shown == "salloc's note: srun runs $'u\\x3b\\x20touch\\x20MARKER\\x3b\\x20ab.sh' here; see `wait`"
    # with a trigger too, the words outside the spans follow the trigger rule
    assert guarded_prose(note + " x;y", w) == ("$'salloc\\x27s' note: srun runs "
                                               "$'u\\x3b\\x20touch\\x20MARKER\\x3b\\x20ab.sh' $'here\\x3b' see $'\\x60wait\\x60' "
                                               "$'x\\x3by'")
    clause = shown.split("srun runs ", 1)[1].split(" here", 1)[0]
    assert _runs_nothing(tmp_path, "echo " + clause)
    assert not _runs_nothing(tmp_path, "echo u; touch MARKER; ab.sh")


def test_spans_find_every_occurrence_merge_where_they_meet_and_widen_to_words():
    assert _spans("p aa;b q aa;b", ["aa;b"]) == [(2, 6), (9, 13)]
    assert _spans("aa;bb", ["aa;", "a;bb"]) == [(0, 5)]           # overlapping windows: one span
    assert _spans("aa bb;cc dd bb;cc ee", ["bb;cc"]) == [(3, 8), (12, 17)]
    assert _spans("aa bb; cc dd", ["bb; cc", "; cc dd"]) == [(3, 12)]   # widened ends meet: one span
    assert _spans("xx zz;y qq", ["z;y"]) == [(3, 7)]              # from the word it begins in to the one it ends in
    assert _spans("x", []) == [] and _spans("abc", ["zz"]) == []


def test_spans_are_bounded_at_a_thousand_finds():
    text = "a;b " * 1500
    assert len(_spans(text, ["a;b"])) == 1000


@pytest.mark.parametrize("note, script, found", [
    ("run a; b now", "run a; b now", {"a; b now"}),
    ("zz; q", "zz; q", {"zz; q"}),
    ("xx;\tyyyy", "xx;\tyyyy", {"xx;\tyyyy"}),                    # a tab after the separator too
    ("k ab; cdefghijkl mn", "ab; cdefghijkl", {"ab; cdefghij"}),   # SIDE (8) characters on the right
    ("xyz && qq rr", "xyz && qq rr", {"&& qq rr"}),
    ("a; b", "a; b", {"a; b"}),                                      # 4 characters: a window
    ("; b", "; b", set()),                                           # under 4: none
    ("each task runs u-MARKER; ab.sh, which is not read here; plan it", 'bash "u-MARKER; ab.sh"',
     {"u-MARKER; ab.sh"}),                                           # the note's ', which' is not the script's
    ("the note says this; and that", "srun python t.py", set()),
])
def test_input_windows(note, script, found):
    assert input_windows([note], [script]) == frozenset(found)


def test_input_windows_read_the_texts_up_to_their_limit_and_the_string_up_to_64_kib():
    assert input_windows(["x ab; cd"], ["zzzz", "ab; cd"], limit=10) == frozenset({"ab; cd"})
    assert input_windows(["x ab; cd"], ["zzzz", "ab; cd"], limit=9) == frozenset()
    assert input_windows(["x ab; cd"], ["zzzz", "ab; cd"], limit=4) == frozenset()
    assert input_windows(["q" * 65520 + " ab; cd"], ["ab; cd"]) == frozenset({"ab; cd"})
    assert input_windows(["q" * 70000 + " ab; cd"], ["ab; cd"]) == frozenset()
    # several strings: each one's windows
    assert input_windows(["p ab; cd", "r ef| gh"], ["ab; cd ef| gh"]) == frozenset({"ab; cd", "ef| gh"})


def test_spans_widened_to_one_word_are_one_span_and_begin_after_a_leading_blank():
    # two windows in one word, apart: found apart, widened to the same word, written as one span
    assert _spans("pp a;bcc;d qq", ["a;b", "c;d"]) == [(3, 10)]
    assert _spans("pp a;bcc;d qq x;y", ["a;b", "c;d", "x;y"]) == [(3, 10), (14, 17)]
    assert _spans(" a;b", ["a;b"]) == [(1, 4)]
    assert guarded_prose("pp a;bcc;d qq", ["a;b", "c;d"]) == "pp $'a\\x3bbcc\\x3bd' qq"


def test_input_windows_edges():
    # the limit counts every text read so far, not the last one
    assert input_windows(["x ab; cd"], ["zzzzzz", "zzzz", "ab; cd"], limit=10) == frozenset()
    # the string's first 64 KiB: a separator whose blank is character 65,537 is not read
    assert input_windows(["q" * 65531 + " ab; cd"], ["ab; cd"]) == frozenset({"ab; cd"})
    assert input_windows(["q" * 65532 + " ab; cd"], ["ab; cd"]) == frozenset()
    # SIDE characters on the left of a long word
    assert input_windows(["k abcdefghijkl; mn"], ["zz efghijkl; mn"]) == frozenset({"efghijkl; mn"})
    # the note's punctuation is cut, the value's own last letter kept
    assert input_windows(["run ab; cdX."], ["ab; cdX"]) == frozenset({"ab; cdX"})
    assert input_windows(["ab; cdX"], ["ab; cdX"]) == frozenset({"ab; cdX"})


def test_input_windows_stop_past_a_thousand():
    strings = ["p w%04d; x" % i for i in range(1100)]
    found = input_windows(strings, [" ".join(strings)])
    assert isinstance(found, frozenset) and len(found) == 1001
