"""words16's readers one at a time (mutation16, docs/mutation.md "Round 11"): settings.py's figures compared in a
sentence (_spread, _compared), and ncclinfo's clipping of the told sentence it quotes (_clip). The whole path is
tests/test_explain_words16.py's (runs made here)."""

import pytest

from gpudoctor.explain import ncclinfo, settings


@pytest.mark.parametrize("text,spread", [
    # each unit against the same time in another unit: no spread; a wrong factor for either would show one
    ("500 ms here, 0.5 s there", False), ("1000 µs here, 1 ms there", False), ("1 h here, 3600 s there", False),
    ("2 minutes here, 120 seconds there", False), ("2 mins here, 120 secs there", False),
    ("1 min here, 60 sec there", False), ("3 hours here, 180 min there", False),
    ("1500 milliseconds here, 1.5 seconds there", False), ("2000 microseconds here, 2 msec there", False),
    ("1 GB/s here, 1000 MB/s there", False), ("8 Gbps here, 1 GB/s there", False),
    # exactly twice is a spread; a bit under is not; GiB/s is 1.07 GB/s
    ("1 min here, 30 s there", True), ("1 min here, 31 s there", False), ("2.5 s here, 1 s there", True),
    ("1.9 GiB/s here, 1 GB/s there", True), ("1.8 GiB/s here, 1 GB/s there", False),
    # one figure, or a zero beside one, is no comparison
    ("5 s", False), ("0 s here, 5 s there", False), ("", False),
    ("4.7 SECONDS per call; 0.05 ms elsewhere", True),
])
def test_spread_of_the_figures(text, spread):
    got = settings._spread(settings._TIME_FIG, text) or settings._spread(settings._BW_FIG, text)
    assert got is spread


def test_spread_reads_the_first_600_characters():
    head = "it takes 1 ms; " + "x" * (599 - len("it takes 1 ms; "))
    assert len(head) == 599
    assert settings._spread(settings._TIME_FIG, head + " 5s") is False  # '5' at 600: not read
    assert settings._spread(settings._TIME_FIG, head[:-1] + " 5s") is False  # '5' at 599, 's' at 600
    assert settings._spread(settings._TIME_FIG, head[:-2] + " 5s") is True


def test_compared_needs_another_run_no_content_and_a_spread():
    assert settings._compared("The same script on another node takes 0.05 ms per call, here 4.7 s.")
    assert not settings._compared("Step one takes 0.05 ms per call, step two 4.7 s.")  # no other run
    assert not settings._compared("The same script on another node takes 0.05 ms, here 4.7 s, which is expected.")
    assert not settings._compared("The same script on another node takes 1 s per call, here 1.5 s.")
    assert settings._compared("The same script on another node gets 200 GB/s, here 20 GB/s.")


def test_clip_the_quoted_sentence():
    assert ncclinfo._clip("a  b\n\t c", 5) == "a b c"
    assert ncclinfo._clip("x" * 10, 10) == "x" * 10
    assert ncclinfo._clip("x" * 11, 10) == "x" * 7 + "..."
