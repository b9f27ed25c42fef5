"""gpudoctor/explain/advice.py (what a message itself says to do), clause by clause, written against
the survivors of a mutation run (docs/mutation.md, "This round's new code, third pass"):
tests/test_explain_advice.py judges the module through whole texts, which take few of the grammar's
branches. Each case below is a phrasing of the kinds the module's docstring cites from the message
sources (a remedy after ', ' / ' or ' / ' and ' / ' then ', a clause start after ':' / '(' / '- ' /
a quote, 'set' followed by what to set, a statement of what failed, a log header, a quote the paste
cut), and the expected answer is the whole list advice.find returns, reviewed against those rules.
In-process and small: ~0.3 s."""

import copy

import pytest

from gpudoctor.explain import advice
from gpudoctor.explain.scan import _Window

# (text or lines of one message, advice.find's answer)
GRAMMAR = [
    ('The port is taken, use --master_port 29501 instead',
     [('remedy', 'The port is taken, use --master_port 29501 instead')]),
    ('The port is taken, rename the file first',
     [('remedy', 'The port is taken, rename the file first')]),
    ('The port is taken, remove the lock file first',
     []),
    ('GPU 3 is busy or use CUDA_VISIBLE_DEVICES=0 instead',
     [('remedy', 'GPU 3 is busy or use CUDA_VISIBLE_DEVICES=0 instead')]),
    ('The cache is stale and rerun the job with --fresh',
     [('remedy', 'The cache is stale and rerun the job with --fresh')]),
    ('Build the extension then run the job again',
     [('remedy', 'Build the extension then run the job again')]),
    ('The value is wrong, then, run setup.py again',
     [('remedy', 'The value is wrong, then, run setup.py again')]),
    ('Fix the config otherwise run with --safe-mode',
     [('remedy', 'Fix the config otherwise run with --safe-mode')]),
    ('bad option Please use --ntasks instead',
     [('remedy', 'bad option Please use --ntasks instead')]),
    ('bad option please use --ntasks instead',
     [('remedy', 'bad option please use --ntasks instead')]),
    ('- use --ntasks instead of -n here',
     [('remedy', '- use --ntasks instead of -n here')]),
    ('hint: use --ntasks instead of -n here',
     [('remedy', 'use --ntasks instead of -n here')]),
    ('hint : use --ntasks instead of -n here',
     [('remedy', 'hint : use --ntasks instead of -n here')]),
    ('"use --ntasks instead of -n here"',
     [('remedy', 'use --ntasks instead of -n here')]),
    ("'use --ntasks instead of -n here'",
     [('remedy', 'use --ntasks instead of -n here')]),
    ('`use --ntasks instead of -n here`',
     [('remedy', 'use --ntasks instead of -n here')]),
    ('x (use --ntasks instead of -n here)',
     [('remedy', 'use --ntasks instead of -n here')]),
    ('Value too large, set NCCL_BUFFSIZE to 4194304',
     [('remedy', 'Value too large, set NCCL_BUFFSIZE to 4194304')]),
    ('Value too large, set the buffer size to 4 MB',
     [('remedy', 'Value too large, set the buffer size to 4 MB')]),
    ('Value too large, set buffsize=4194304 now',
     [('remedy', 'Value too large, set buffsize=4194304 now')]),
    ('Value too large, set `buffsize` lower',
     [('remedy', 'Value too large, set `buffsize` lower')]),
    ('Value too large, set both to 4 now',
     []),
    ('Run 3 failed: out of memory',
     []),
    ('Install of package failed today',
     []),
    ('Use count is zero for this handle',
     []),
    ('Call to recv from 10.0.0.1 failed badly',
     []),
    ('Set device returned error 5 again',
     []),
    ('The file is gone, delete the cache, use --fresh instead',
     [('remedy', 'The file is gone, delete the cache, use --fresh instead')]),
    ('Check failed: x == y; run with --fix to repair',
     [('remedy', 'run with --fix to repair')]),
    ('This is remove work. Use --flag now please',
     [('remedy', 'Use --flag now please')]),
    ('RuntimeError: bad value (please set GPUDOCTOR_X=1 first) and more',
     [('remedy', 'please set GPUDOCTOR_X=1 first')]),
    ('(please set GPUDOCTOR_X=1 first) and more text here',
     [('remedy', 'please set GPUDOCTOR_X=1 first')]),
    ('x (a) b (please set GPUDOCTOR_X=1 first) and (y) z',
     [('remedy', 'please set GPUDOCTOR_X=1 first')]),
    ('srun: error: Please use --ntasks instead of -n',
     [('remedy', 'Please use --ntasks instead of -n')]),
    ('srun: error: something went wrong, please use --ntasks instead of -n',
     [('remedy', 'something went wrong, please use --ntasks instead of -n')]),
    ('try: 3: use the flag --x now',
     [('remedy', 'try: 3: use the flag --x now')]),
    ("'Please use --ntasks instead",
     [('remedy', 'Please use --ntasks instead')]),
    ("Please use --ntasks instead'",
     [('remedy', 'Please use --ntasks instead')]),
    ("Please use --x 'now'",
     [('remedy', "Please use --x 'now'")]),
    ('Please use the flag X',
     [('remedy', 'Please use the flag X')]),
    ('Try it.',
     []),
    ('Use --x!',
     [('remedy', 'Use --x!')]),
    ('Use **bold** --x please',
     []),
    ('Please use --x now. PLEASE USE --X NOW.',
     [('remedy', 'Please use --x now.')]),
    ('Please use --x now! Please use --y now? Done',
     [('remedy', 'Please use --x now!'), ('remedy', 'Please use --y now?')]),
    ('Error: bad value\tPlease use\x00--x now',
     [('remedy', 'bad value Please use --x now')]),
    (['RuntimeError: bad value, you must use the', 'flag --x to go on'],
     [('remedy', 'bad value, you must use the flag --x to go on')]),
    (['Error: bad value and you must set', '(the flag) --x to go on'],
     [('remedy', 'bad value and you must set (the flag) --x to go on')]),
    (['Error: bad', '# Please use --commented', 'Please use --real now'],
     [('remedy', 'Please use --real now')]),
    (['Error: stop!', 'you must use --x now'],
     [('remedy', 'you must use --x now')]),
    (['Error: stop?', 'you must use --x now'],
     [('remedy', 'you must use --x now')]),
    (['Error: stop:', 'you must use --x now'],
     [('remedy', 'you must use --x now')]),
    (['Error: stop;', 'you must use --x now'],
     [('remedy', 'you must use --x now')]),
    (['Error: stop.', 'you must use --x now'],
     [('remedy', 'you must use --x now')]),
    (['Error: stop', 'you must use --x now'],
     [('remedy', 'stop you must use --x now')]),
    (['Error: stop', 'You must use --x now'],
     [('remedy', 'You must use --x now')]),
    (['Error: stop', 'yOU must use --x now'],
     [('remedy', 'stop yOU must use --x now')]),
    (['Error: stop', '', 'you must use --x now'],
     [('remedy', 'stop you must use --x now')]),

    # a sentence ends before '; ' and ' - ' (the mark not quoted); empty ones do not count toward the 64
    ('Please use --x now; it helps', [('remedy', 'Please use --x now')]),
    ('Please use --x now - it helps', [('remedy', 'Please use --x now')]),
    ('; ' * 80 + 'Please use --x now.', [('remedy', 'Please use --x now.')]),
    # a line that ends with ':' is not wrapped into the next
    (['Bad value (x):', 'you must use --x now'], [('remedy', 'you must use --x now')]),
    ('Error: stop\nYou must use --x now', [('remedy', 'You must use --x now')]),
    # an imperative in the middle of a clause is no clause start
    ('x use --flag now', []),
    # a statement first, then the remedy after a comma, in one sentence
    ('Run 3 failed, use --retry to go on', [('remedy', 'Run 3 failed, use --retry to go on')]),
    ('Value too large, set both to 4, use --small instead',
     [('remedy', 'Value too large, set both to 4, use --small instead')]),
    # parentheses that do not hold the advice
    ('(a) please set X=1 now (b)', [('remedy', '(a) please set X=1 now (b)')]),
    ('Error: bad value (' + 'word ' * 50 + '/please set GPUDOCTOR_X=1 first) tail',
     [('remedy', '... please set GPUDOCTOR_X=1 first')]),
    # a sentence or a clause too short to quote, then one to quote
    ('Try it. Please use --y now.', [('remedy', 'Please use --y now.')]),
    ('srun: error: Try it! Please use --y now.', [('remedy', 'Please use --y now.')]),
]


@pytest.mark.parametrize("text, want", GRAMMAR)
def test_the_clause_grammar_branch_by_branch(text, want):
    assert advice.find(text) == want


def test_at_most_64_sentences_are_read():
    many = " ".join("Please use --f%d now." % i for i in range(70))
    got = advice.find(many)
    assert len(got) == 64 and got[-1] == ("remedy", "Please use --f63 now."), got[-2:]


def test_the_quoted_clause_and_its_bounds():
    # advice inside a parenthesis longer than a clause: from the advice on, marked as cut
    paren = "Error: bad value (" + "word " * 50 + "please set GPUDOCTOR_X=1 first) tail"
    assert advice.find(paren) == [("remedy", "... please set GPUDOCTOR_X=1 first")]
    # a sentence after its header of exactly MAX_CLAUSE characters is quoted whole; one more is cut at the advice
    for extra, want in ((0, None), (1, "... please set X=1")):
        filler = "Error: bad thing, "
        tail = " please set X=1"
        body = filler[len("Error: "):] + "w" * (advice.MAX_CLAUSE + extra - len(filler) + len("Error: ") - len(tail)) + tail
        s = "Error: " + body
        assert len(s) - len("Error: ") == advice.MAX_CLAUSE + extra
        (kind, q), = advice.find(s)
        assert q == (want or body), (extra, q)
    # a quoted clause of MAX_CLAUSE characters stays whole; a longer one ends at a word with ' ...'
    for n, cut in ((advice.MAX_CLAUSE, False), (advice.MAX_CLAUSE + 1, True)):
        q = "Please use " + "abcdefghi " * 30
        q = q[:n - 1] + "z"
        (kind, got), = advice.find(q)
        assert len(q) == n and (got == q) != cut, (n, got)
        if cut:
            assert got == q[:advice.MAX_CLAUSE].rsplit(" ", 1)[0] + " ...", got


def test_a_long_text_is_cut_at_max_text():
    got = advice.find(["Error: x", "Please use --a now", "z" * advice.MAX_TEXT, "Please use --b now"])
    assert got == [("remedy", "Please use --a now ...")], got  # (the z line continues its sentence)
    assert advice._join(["A" * 10 + ".", "B" * advice.MAX_TEXT]) == "A" * 10 + ".\n" + "B" * (advice.MAX_TEXT - 12)
    assert len(advice._join(["a" * (advice.MAX_TEXT - 1), "b"])) == advice.MAX_TEXT


def test_clean_replaces_controls_by_one_space():
    assert advice.clean("a\x00b\u202ec  d\n") == "a b c d"


class _Hit:
    def __init__(self, text=""):
        self.text = text


def _lines(text, shown=""):
    return advice.message_lines(_Window(text.encode(), 0), _Hit(shown))


@pytest.mark.parametrize("text, want", [
    # an exception's message: up to the blank line
    ("RuntimeError: first line\nsecond line\nthird line\n\nafter blank\n",
     ("RuntimeError: first line", "second line", "third line")),
    ("RuntimeError: a\n\n\nb\n", ("RuntimeError: a",)),
    # at most MAX_FOLLOW lines after the first
    ("RuntimeError: first\n" + "".join("cont %d\n" % i for i in range(12)),
     ("RuntimeError: first",) + tuple("cont %d" % i for i in range(advice.MAX_FOLLOW))),
    # a program's record and its next records of the same header; another program's or level's ends it
    ("srun: error: first part\nsrun: error: second part\nslurmstepd: error: other\n",
     ("srun: error: first part", "second part")),
    ("srun: error: first part\nsrun: info: second part\n", ("srun: error: first part",)),
    ("sbatch: error: a\nsbatch: error: b\n", ("sbatch: error: a", "b")),
    # a line of no message: alone
    ("plain line of text\nnext line\n", ("plain line of text",)),
    # a launcher's prefix: the same rank's lines only
    ("[rank0]: RuntimeError: a\n[rank0]: b more\n[rank1]: c other\n", ("RuntimeError: a", "b more")),
    ("[rank0]: RuntimeError: a\n[rank0]: b more\nno prefix\n", ("RuntimeError: a", "b more")),
    # a new record ends it
    ("RuntimeError: a\nb more\nNCCL INFO something\n", ("RuntimeError: a", "b more")),
    ("RuntimeError: a\nb more\nTraceback (most recent call last):\n", ("RuntimeError: a", "b more")),
    # a help block between rules: to the closing rule, blank lines left out; at most MAX_BLOCK lines read
    ("An error happened\nline two\n\nline three\n-----------\nafter\n",
     ("An error happened", "line two", "line three")),
    ("An error happened\n" + "".join("l%d\n" % i for i in range(advice.MAX_BLOCK - 1)) + "-----------\n",
     ("An error happened",) + tuple("l%d" % i for i in range(advice.MAX_BLOCK - 1))),
    ("An error happened\n" + "".join("l%d\n" % i for i in range(advice.MAX_BLOCK)) + "-----------\n",
     ("An error happened",)),
    # a first line longer than MAX_LINE0: the hit's shown part, whole sentences only
    ("x" * (advice.MAX_LINE0 + 1) + "\n", ("three four.",)),
    ("x" * advice.MAX_LINE0 + "\n", ("x" * advice.MAX_LINE0,)),
])
def test_the_lines_a_message_continues_over(text, want):
    assert _lines(text, "... one two. three four. five six ...") == want


@pytest.mark.parametrize("shown, want", [
    ("... one two. three four. five six ...", "three four."),
    ("one two. three ...", "one two."),
    ("one two three ...", "one two three"),
    ("... one. two", "two"),
    ("... one two", "one two"),
    ("... a. b ...", "a."),
    ("a. b. c ...", "a. b."),
    ("... a. b. c", "b. c"),
    ("x. y", "x. y"),
    ("x. y ...", "x."),
])
def test_a_long_lines_shown_part_keeps_whole_sentences(shown, want):
    assert advice._whole_sentences(shown) == want


@pytest.mark.parametrize("clause, want", [
    ("Please set `torch.backends.x` and FOO_BAR=1 or --gpus=2 with find_unused_parameters=True; call init()",
     {"torch.backends.x", "foo_bar", "--gpus=2", "find_unused_parameters", "init"}),
    ("use -n", set()),  # shorter than 3 characters
    ("use --ab", {"--ab"}),
    ("use -np 4", {"-np"}),
    ("set XLA_FLAGS=1", {"xla_flags"}),
    ("pass key=value", {"key"}),
    ("Please check the network", set()),
])
def test_the_words_a_fix_must_name(clause, want):
    assert advice._salient(clause) == want


# ---------------------------------------------------------------- apply and place, over a result and a scan's hits

class _Pattern:
    def __init__(self, entry):
        self.entry = entry


class _Kept:
    def __init__(self, line, more, entry=None):
        self.line, self.more = line, more
        self.pattern = _Pattern(entry) if entry else None


class _Scan:
    def __init__(self, *hits):
        self.matches = {"p": list(hits)}


def _result(matches, causes=None, verdict="root_cause", confidence="family", **root):
    f = {"id": "x", "confidence": confidence, "notes": [], "matches": matches,
         "causes": causes if causes is not None else [_cause(["generic one"]), _cause(["generic two"])]}
    f.update(root)
    return {"verdict": verdict, "findings": [f]}


def _cause(fix, **kw):
    c = {"text": "a cause", "checks": [], "confirm": [], "fix": list(fix), "exports": {}, "evidence": [],
         "static_rank": 1, "computed": None}
    c.update(kw)
    return c


def _said(r):
    return [c["fix"] for c in r["findings"][0]["causes"] if c.get("advice")]


EXC = ("RuntimeError: bad value.", "Please use --alpha now.", "Please use --beta now.")


def test_the_texts_read_the_matched_lines_and_the_exception_they_belong_to():
    # line 5 is the last line of the exception message that starts at line 3
    line5 = _Kept(5, ("Value is odd, please set GAMMA_X=1.",))
    r = advice.apply(_result([{"line": 5, "text": "Value is odd, please set GAMMA_X=1."}]),
                     _Scan(_Kept(3, EXC, "_struct_exc"), line5))
    adv = [c for c in r["findings"][0]["causes"] if c.get("advice")]
    assert adv[0]["fix"] == ['the message says: "Value is odd, please set GAMMA_X=1."',
                             'the message says: "Please use --alpha now."', 'the message says: "Please use --beta now."']
    assert adv[0]["text"] == "The message itself says what to do (line 5)."
    assert adv[0]["evidence"] == [{"line": 5, "text": "Value is odd, please set GAMMA_X=1."}]
    assert adv[0]["static_rank"] == 0 and adv[0]["advice"] is True and adv[0]["computed"] is None
    assert set(adv[0]) == {"text", "checks", "confirm", "fix", "exports", "evidence", "static_rank", "computed",
                           "advice"}
    # std::terminate's message too; another entry's, a hit without a pattern, a line past the message: not read
    for entry, line, want in (("_struct_terminate", 5, 3), ("other", 5, 1), (None, 5, 1), ("_struct_exc", 6, 1)):
        got = _said(advice.apply(_result([{"line": line, "text": "Value is odd, please set GAMMA_X=1."}]),
                                 _Scan(_Kept(3, EXC, entry), _Kept(line, line5.more))))
        assert len(got[0]) == want, (entry, line, got)


def test_the_texts_skip_what_is_not_a_line_of_the_text():
    # a Flight Recorder reading (no line) first: the next match is still read; a hit without message lines: its text
    matches = [{"line": None, "text": "Please use --nothing here"}, {"line": 7, "text": "Please use --delta now"}]
    r = advice.apply(_result(matches), _Scan(_Kept(7, None)))
    assert _said(r) == [['the message says: "Please use --delta now"']]


def test_the_message_of_an_exception_line_not_shown_is_its_own_evidence():
    r = advice.apply(_result([{"line": 5, "text": "plain words"}]), _Scan(_Kept(3, EXC, "_struct_exc"),
                                                                         _Kept(5, ("plain words",))))
    adv = [c for c in r["findings"][0]["causes"] if c.get("advice")][0]
    assert adv["text"] == "The message itself says what to do (line 3)."
    assert adv["evidence"] == [{"line": 3, "text": "Please use --alpha now."}]


def test_the_evidence_is_the_shown_line_cleaned_and_capped():
    text = "\x1b[31mPlease use --x now\x1b[0m " + "w" * 500
    r = advice.apply(_result([{"line": 2, "text": text}]), _Scan())
    ev = [c for c in r["findings"][0]["causes"] if c.get("advice")][0]["evidence"][0]
    assert ev["line"] == 2 and ev["text"] == advice.clean(text)[:400] and len(ev["text"]) == 400


@pytest.mark.parametrize("verdict, root, want", [
    ("root_cause", {}, True), ("echo_only", {}, True), ("no_error", {}, False), ("root_cause", {"from_launch": True}, False),
    ("root_cause", {"triage": [{"cause": "p2p"}]}, False),  # a hang answer: its lines are the user's complaint
])
def test_only_a_root_finding_of_a_message_gets_advice(verdict, root, want):
    r = advice.apply(_result([{"line": 1, "text": "Please use --x now"}], verdict=verdict, **root), _Scan())
    assert bool(_said(r)) == want
    assert advice.apply({"verdict": "root_cause", "findings": []}, _Scan()) == {"verdict": "root_cause", "findings": []}


def test_remedies_that_name_something_come_first_and_details_are_notes():
    text = ("Please check the network connectivity. Please set FOO_BAR=1 first. Run with NCCL_DEBUG=INFO for "
            "details. Rerun with --verbose for more information. Try --help for usage.")
    r = advice.apply(_result([{"line": 4, "text": text}]), _Scan())
    assert _said(r) == [['the message says: "Please set FOO_BAR=1 first."',
                         'the message says: "Please check the network connectivity."']]
    assert r["findings"][0]["notes"] == [
        'More detail, as the message says (line 4): "Run with NCCL_DEBUG=INFO for details."',
        'More detail, as the message says (line 4): "Rerun with --verbose for more information."']


@pytest.mark.parametrize("cause, confidence, said", [
    (_cause(["x"], exports={"FOO_BAR": "1"}, static_rank=0), "family", True),       # its exports name it
    (_cause(["x"], text="set FOO_BAR to 1 and --other", static_rank=0), "family", True),
    (_cause(["export FOO_BAR=1"], computed_fix="export FOO_BAR=1"), "family", True),
    (_cause(["export FOO_BAR=1"]), "family", False),                                # a generic cause: not this site's
    (_cause(["export FOO_BAR=1"]), "cause", True),                                  # an entry for this message
    (_cause(["use --baz"], static_rank=0), "family", True),                         # half of what it names
    (_cause(["nothing"], static_rank=0), "family", False),
    (_cause(["x"], text="use --baz", static_rank=0), "family", False),  # one of three: not said

])
def test_advice_a_specific_cause_already_gives_is_left_out(cause, confidence, said):
    cause = copy.deepcopy(cause)
    text = "Please set FOO_BAR=1 with --baz and --qux." if cause["text"] == "use --baz" else \
        "Please set FOO_BAR=1 with --baz."
    r = advice.apply(_result([{"line": 1, "text": text}], [cause], confidence=confidence),
                     _Scan())
    assert (not _said(r)) == said


def test_a_clause_naming_nothing_is_said_when_a_cause_holds_its_words():
    cause = _cause(["please check the   network connectivity (the firewall)"], static_rank=0)
    assert advice._says_it("Please check the network connectivity", [cause])
    assert not advice._says_it("Please check the network cables", [cause])
    assert not advice._says_it("Please check the network connectivity", [_cause([], text="")])


@pytest.mark.parametrize("causes, confidence, advice_first, where", [
    ([_cause(["a"]), _cause(["b"])], "family", "Please set FOO_BAR=1 now", 0),    # names something: above generic
    ([_cause(["a"]), _cause(["b"])], "family", "Please check the network now", 1),  # names nothing: below the first
    ([_cause(["a"]), _cause(["b"])], "cause", "Please set FOO_BAR=1 now", 1),     # an entry for this message
    ([_cause(["a"], static_rank=0), _cause(["b"])], "family", "Please set FOO_BAR=1 now", 1),
    ([_cause(["a"], computed_fix="z"), _cause(["b"], evidence=[{"line": 1}]), _cause(["c"])], "family",
     "Please set FOO_BAR=1 now", 2),
    ([], "family", "Please check the network now", 0),
    # what it names at the clause's very start or end still makes it concrete
    ([_cause(["a"]), _cause(["b"])], "family", "Use -np 4 with mpirun", 0),
    ([_cause(["a"]), _cause(["b"])], "family", "Please use -np", 0),
    # read from the log's shape alone: the message's own words first, concrete or not
    ([_cause(["a"]), _cause(["b"])], "structural", "Please check the network now", 0),
    ([_cause(["a"], static_rank=0), _cause(["b"])], "structural", "Please check the network now", 1),
])
def test_place_puts_the_advice_below_the_specific_causes(causes, confidence, advice_first, where):
    causes = copy.deepcopy(causes)  # (apply adds to the list it is given: each run gets its own)
    r = _result([{"line": 1, "text": advice_first}], causes, confidence=confidence)
    advice.apply(r, _Scan())
    got = r["findings"][0]["causes"]
    assert [c.get("advice", False) for c in got].index(True) == where, [c["fix"] for c in got]
    # placing it again changes nothing
    before = [id(c) for c in got]
    advice.place(r)
    assert [id(c) for c in r["findings"][0]["causes"]] == before
    assert advice.place({"findings": []}) == {"findings": []}
