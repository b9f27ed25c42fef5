"""gpudoctor diff's text: a check whose status stayed and whose message changed (changes.py
_verdict_changed counts it) reads 'warn, message changed', not 'warn -> warn'."""

from gpudoctor.changes import Diff, VerdictChange
from gpudoctor.report.diff import lines


def _diff(before, after):
    v = VerdictChange(check="shm.size", hosts=["n1"], before=before, after=after, changes=[])
    return Diff(before_source="a", after_source="b", times={"n1": (None, None)}, changes=[], verdicts=[v],
                added=[], removed=[], unreachable=[], hashes_compared=True)


def test_same_status_another_message_is_said_so():
    text = "\n".join(lines(_diff(("warn", "64 MiB"), ("warn", "32 MiB"))))
    assert "shm.size  warn, message changed [n1]: 32 MiB" in text and "warn -> warn" not in text, text


def test_another_status_shows_the_move():
    text = "\n".join(lines(_diff(("pass", "16 GiB"), ("fail", "64 MiB"))))
    assert "shm.size  pass -> fail [n1]: 64 MiB" in text, text
