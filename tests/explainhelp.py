"""How explain's tests ask explain about a text and read its answer, in one place.

Most tests/test_explain*.py tests do the same four steps: run explain on a text (the CLI in this
process, `gpudoctor explain --json`, or the library), take the root finding (the first), check its
id, and check that the first cause's fix names the command a user should run. These helpers do the
steps; each assertion a helper makes is one its caller asks for (a test asserts what it asserted
before it used them, no more).
"""

import json
import os
import re
from gpudoctor.explain.knowledge import open_generated


# the verdicts that name a root finding: sure (root_cause), or one whose root says 'How sure: low' (likely_cause:
# gpudoctor/explain/calibrate.py); a helper that reads the root of either uses this, a test of one verdict names it
ANSWERED = ("root_cause", "likely_cause")


def explain_cli(cli, *args, rcs=None, quiet=False):
    """`gpudoctor explain --json ARGS` through the `cli` fixture: (rc, the JSON document).
    rcs: the exit codes allowed (None: any); quiet: stderr must be empty."""
    rc, out, err = cli("explain", "--json", *args)
    if quiet:
        assert err == "", (rc, err)
    if rcs is not None:
        assert rc in rcs, (rc, err)
    return rc, json.loads(out)


def explain_paste(cli, tmp_path, text, *args, name="log.txt", rcs=None, quiet=False):
    """Write `text` to tmp_path/name and explain that file (ARGS before the path, e.g. "--file")."""
    path = tmp_path / name
    path.write_text(text)
    return explain_cli(cli, *args, path, rcs=rcs, quiet=quiet)


def root_of(doc):
    """The root finding (the first), or None when there is none."""
    return doc["findings"][0] if doc["findings"] else None


def root_id(doc):
    """The root finding's id, or None when there is no finding."""
    return doc["findings"][0]["id"] if doc["findings"] else None


def ids(doc):
    """The ids of every finding, in order (the message of a failed id assertion)."""
    return [f["id"] for f in doc["findings"]]


def fixes(finding, sep="\n", confirm=False, exports=False):
    """Every fix of every cause (and the confirm commands / exported variables when asked), joined."""
    out = []
    for c in finding["causes"]:
        out.extend(c["fix"])
        if confirm:
            out.extend(c["confirm"])
        if exports:
            out.extend("%s=%s" % kv for kv in c["exports"].items())
    return sep.join(out)


def assert_root(doc, entry=None, verdict=None, fix=(), fix_re=None, confidence=None):
    """Check the answer's root finding and return it. Each check runs only when asked:
    verdict: doc's verdict; entry: the root's id; fix: a string (or several) that the first
    cause's first fix contains; fix_re: a regex searched in the first cause's fixes (joined by a
    blank); confidence: the root's confidence."""
    if verdict is not None:
        assert doc["verdict"] == verdict, (doc["verdict"], ids(doc))
    root = doc["findings"][0]
    if entry is not None:
        assert root["id"] == entry, (root["id"], ids(doc))
    if confidence is not None:
        assert root["confidence"] == confidence, (root["confidence"], root["id"])
    first = root["causes"][0] if (fix or fix_re is not None) else None
    for want in ([fix] if isinstance(fix, str) else fix):
        assert want in first["fix"][0], (want, first["fix"])
    if fix_re is not None:
        assert re.search(fix_re, " ".join(first["fix"])), (fix_re, first)
    return root


GENERATED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "gpudoctor", "data", "knowledge", "generated")


def generated_sites(name):
    """The sites of gpudoctor/data/knowledge/generated/<name>.json, as its generator wrote them."""
    with open_generated(name) as f:
        return json.load(f)["sites"]


SEEN_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "data")


def seen_text(case_id, set_name=None):
    """The text of one case of a seen held-out set (bench/data/explain_heldout_<set>.jsonl): set_name is the set
    ('2026-11-27p28') or its file name; None searches every set. A missing case fails the caller's test."""
    if set_name is None:
        names = sorted(n for n in os.listdir(SEEN_DATA) if n.startswith("explain_heldout_") and n.endswith(".jsonl"))
    elif set_name.endswith(".jsonl"):
        names = [set_name]
    else:
        names = ["explain_heldout_%s.jsonl" % set_name]
    for name in names:
        with open(os.path.join(SEEN_DATA, name), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    case = json.loads(line)
                    if case.get("id") == case_id:
                        return case["text"]
    raise AssertionError("no seen case %r in %s" % (case_id, set_name or "bench/data"))
