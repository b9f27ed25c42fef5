"""Mutation round 24 (docs/mutation.md): red team 2026-11-28h's 91. in process, so mutmut can count it. diff's (and
check --history's) folded line of more than five changed hashed variables names them; each name is the node's (or
the job's) text and is shown as changes._word shows a label. test_redteam_2026_11_28h.py runs check and diff in a
subprocess, which mutmut cannot see. Every clause of the folded line is pasted into a restricted bash whose PATH holds
only touch: nothing may be created."""
import os
import re
import shutil
import subprocess

from gpudoctor import changes
from gpudoctor.fixline import keep_quoted, shown_word

HOSTILE = ("A1$(touch M1)", "A2;touch M2;#", "A3`touch M3`", "A5$(touch${IFS}M5)", "A6", "A7")


def _pasted(line, tmp_path):
    box = tmp_path / "box"
    (box / "bin").mkdir(parents=True, exist_ok=True)
    (box / "w").mkdir(exist_ok=True)
    if not (box / "bin" / "touch").exists():
        os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
    for m in re.finditer(r"^|: |; |, | \(|  +", keep_quoted(line)):
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line[m.end():]],
                       cwd=str(box / "w"), timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w")},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


def test_a_folded_line_names_each_hostile_variable_as_one_inert_word(tmp_path):
    before = {"env": {"values": {}, "hashed": {}}}
    after = {"env": {"values": {}, "hashed": {n: "hmac:k1:%02d" % i for i, n in enumerate(HOSTILE)}}}
    folded = [c for c in changes.compare(before, after, key_ids=("k1", "k1")) if c.path.startswith("env.hashed")]
    assert len(folded) == 1, [c.path for c in folded]
    text = folded[0].text
    assert text.startswith("6 other environment variables differ: 6 set; "), text
    # the plain names as they are, the hostile ones quoted whole (bash reads each back as the name)
    assert "A6, A7 (values kept only as hashes)" in text
    for name in HOSTILE[:4]:
        assert name not in text.replace(shown_word(name), ""), (name, text)
        assert shown_word(name) in text
    assert _pasted(text, tmp_path) == []


def test_five_hashed_changes_stay_lines_and_six_fold_with_their_counts_and_the_first_eight_names():
    five = changes.compare({"env": {"values": {}, "hashed": {}}},
                           {"env": {"values": {}, "hashed": {"V%d" % i: "hmac:k1:aa" for i in range(5)}}},
                           key_ids=("k1", "k1"))
    assert [c.path for c in five] == ["env.hashed.V%d" % i for i in range(5)]
    before = {"env": {"values": {}, "hashed": {"V%02d" % i: "hmac:k1:aa" for i in range(11)}}}
    after = {"env": {"values": {}, "hashed": dict({"V%02d" % i: "hmac:k1:bb" for i in range(1, 10)}, W1="hmac:k1:cc")}}
    got = changes.compare(before, after, key_ids=("k1", "k1"))
    assert len(got) == 1
    c = got[0]
    assert c.text == ("12 other environment variables differ: 2 unset, 1 set, 9 changed; V00, V01, V02, V03, V04, V05, "
                      "V06, V07 and 4 more (values kept only as hashes)")
    # what diff's JSON writes, and the section a check that reads env is given it by
    assert (c.before, c.after, c.section) == ("(12 variables)", "2 unset, 1 set, 9 changed", "env")
    # eight names: all named, no 'and 0 more'
    eight = changes.compare({"env": {"values": {}, "hashed": {}}},
                            {"env": {"values": {}, "hashed": {"V%d" % i: "hmac:k1:aa" for i in range(8)}}},
                            key_ids=("k1", "k1"))
    assert eight[0].text.endswith("; V0, V1, V2, V3, V4, V5, V6, V7 (values kept only as hashes)"), eight[0].text
