"""glog's own golden output read back (issue 18; the record reader of glog16 ported to glog's tests).

fixtures/explain/glog-upstream/logging_unittest.err is google/glog's expected stderr of src/logging_unittest.cc at
53d58e4 (https://github.com/google/glog/blob/53d58e4531c7c90f71ddab503d915e027432447a/src/logging_unittest.err), in
the normalised form its test compares (src/googletest.h MungeLine: 'IYEARDATE TIME__ THREADID file.cc:LINE] ').
Here it is turned back into what glog prints (src/logging.cc LogMessage::Init): 0.6's header (the year first by
default, flag log_year_in_prefix; the kernel thread id in a field of 5) and 0.7's (the thread id as
std::this_thread::get_id(), the pthread_t: fifteen digits on x86-64 Linux), and abseil's / torch's without the year.
Every header must be read as a record of glog's severity, with its time, and stripped as a prefix; the two lines
glog prints without a header are not headers."""

import os
import re

import pytest

from gpudoctor.explain import scan as S
from gpudoctor.explain import text as T
from gpudoctor.explain.outcome import _GLOG_HEAD
from gpudoctor.explain.symptoms import _NOT_USERS

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(REPO, "fixtures", "explain", "glog-upstream", "logging_unittest.err")
MUNGED = re.compile(r"^([IWEF])YEARDATE TIME__ THREADID ([\w.]+):LINE\] ")

# (year, thread id): what each glog prints in the fields MungeLine replaced
FORMS = {
    "glog-0.7": ("2025", "140737353951040"),  # pthread_t of the main thread, as libstdc++ prints std::thread::id
    "glog-0.6": ("2025", " 4242"),            # GetTID() in setw(5)
    "absl": ("", "   4242"),                  # abseil: no year, '%7d'
}


def _golden(form):
    """[(severity letter or None, line)] of the golden file in ``form``."""
    year, tid = FORMS[form]
    out = []
    with open(GOLDEN, encoding="utf-8") as f:
        for n, raw in enumerate(f.read().splitlines(), 1):
            m = MUNGED.match(raw)
            if not m:
                out.append((None, raw))
                continue
            head = "%s%s0331 11:05:%02d.%06d %s %s:%d] " % (m.group(1), year, n % 60, n * 1000 % 1000000, tid,
                                                            m.group(2), 100 + n)
            out.append((m.group(1), head + raw[m.end():]))
    return out


def test_the_golden_file_is_glogs_and_holds_every_severity_but_fatal():
    rows = _golden("glog-0.7")
    assert len(rows) == 308
    counts = {s: sum(1 for sev, _ in rows if sev == s) for s in "IWEF"}
    assert counts == {"I": 182, "W": 43, "E": 81, "F": 0}
    assert [line for sev, line in rows if sev is None] == [
        "WARNING: Logging before InitGoogleLogging() is written to STDERR", "no prefix"]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_header_glog_prints_is_a_record_of_its_severity(form):
    rows = _golden(form)
    text = "\n".join(line for _, line in rows) + "\n"
    buf, starts, pos = text.encode(), [], 0
    for _, line in rows:
        starts.append(pos)
        pos += len(line.encode()) + 1
    sc = S.Scan()
    for i, (sev, line) in enumerate(rows):
        got = S.record_state(sc, buf, starts[i])
        if sev is not None:
            assert got == (sev.encode(), b"", 0), line
        elif line.startswith("WARNING:"):
            assert got is None  # a level word starts a record of its own
        else:  # 'no prefix': glog's LOG(ERROR) with FLAGS_log_prefix off, after the 'outer' E record
            assert rows[i - 1][0] == "E" and got == (b"E", b"", 1)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_header_gives_the_time_and_is_stripped_as_a_prefix(form):
    year = FORMS[form][0]
    for n, (sev, line) in enumerate(_golden(form), 1):
        if sev is None:
            continue
        clock = "11:05:%02d.%06d" % (n % 60, n * 1000 % 1000000)
        want = ("iso", "2025-03-31T" + clock, "2025-03-31 " + clock) if year else \
            ("mmdd", "03-31 " + clock, "03-31 " + clock)
        assert T.origin(line)[2] == want, line
        body = line[line.index("] ") + 2:]
        assert _GLOG_HEAD.sub("", line) == body
        assert S._PREFIX_RUN_B.match(line.encode()).end() == len(line) - len(body) - 1
        assert _NOT_USERS.search(line)


def test_torchs_bracketed_header_and_a_line_that_only_looks_like_one():
    line = "[rank0]:[E1126 04:06:40.415529201 ProcessGroupNCCL.cpp:736] Stack trace of the failed collective not found"
    assert T.origin(line)[:1] == ("0",) and T.origin(line)[2][0] == "mmdd"
    # a 21-digit thread field, a date of 6 digits, no ']': not glog's
    for bad in ("I20250331 11:05:22.000123 1407373539510401234567 a.cc:1] x", "I202503 11:05:22 a.cc:1] x",
                "I20250331 11:05:22.000123 4242 a.cc:1 x"):
        assert _GLOG_HEAD.match(bad) is None
        assert S._REC_HEAD_B.match(bad.encode()) is None
