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
