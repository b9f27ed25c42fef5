"""wrong18's torchwarn.py one case at a time (mutation18, docs/mutation.md "Round 13"): the forms of torch's W header
(dated with nanoseconds and a thread id, dated without, the old '[W file.cpp:N]'), each fallback wording
(ProcessGroupGloo.cpp's 'as fallback' / 'as a fallback', ProcessGroupGloo::split's 'Falling back to', 'falls back
on', TCPStore.cpp's ', so ignoring the error' / ', ignoring it'), the 600 characters read, a finding without its
match count, and note() said whole."""

import pytest

from gpudoctor.explain import torchwarn

W = "[W1127 06:47:29.919101921 ProcessGroupGloo.cpp:527] Warning: "


@pytest.mark.parametrize("line", [
    W + "Unable to resolve hostname to a (local) address. Using the loopback address as fallback.",
    "[W1127 06:47:29.919 ProcessGroupGloo.cpp:527] Warning: Using the loopback address as a fallback.",
    "[W1127 06:47:29.919101921 123456 ProcessGroupGloo.cpp:527] Warning: Using the loopback address as fallback.",
    "[W ProcessGroupGloo.cpp:527] Warning: Using the loopback address as fallback.",
    "[W socket.cpp:1] Falling back to default options",
    "[W socket.cpp:1] falls back on the default store",
    "[W socket.cpp:1] fall back to IPv4",
    "[W TCPStore.cpp:1] the store could not be deleted, so ignoring the error",
    "[W TCPStore.cpp:1] the key was not found, ignoring it",
    "[W TCPStore.cpp:1] the key was not found, ignoring this",
])
def test_each_header_form_and_fallback_wording(line):
    assert torchwarn.fell_back({"matches": [{"text": line}], "match_count": 1})
    assert torchwarn.fell_back({"matches": [{"text": line}]})  # no match count: the lines shown are all


@pytest.mark.parametrize("line", [
    "[E socket.cpp:1] Falling back to default options",  # an error record
    "[W socket.cpp:1] no fallback here",
    "[W TCPStore.cpp:1] the key was not found, ignoring",
    "[W socket.cpp:1] " + "x" * 401 + " Falling back to default options",  # over 400 characters before it
])
def test_not_a_fallback_warning(line):
    assert not torchwarn.fell_back({"matches": [{"text": line}], "match_count": 1})


def test_the_600_characters_read():
    # torch's record after a launcher's prefix: its wording must end within the line's first 600 characters
    rec = " [W socket.cpp:1] Falling back to"
    assert torchwarn.fell_back({"matches": [{"text": "x" * (600 - len(rec)) + rec + " default options"}]})
    assert not torchwarn.fell_back({"matches": [{"text": "x" * (601 - len(rec)) + rec + " default options"}]})
    assert not torchwarn.fell_back({"matches": [{"text": None}], "match_count": 1})


def test_note_said_whole():
    f = {"id": "mpi.hostname", "title": "the launcher could not resolve a host name", "first_line": 3,
         "matches": [{"text": W + "Using the loopback address as fallback."}, {"text": "second"}], "match_count": 2}
    assert torchwarn.note(f) == {
        "id": "mpi.hostname", "severity": "warning",
        "note": "torch printed this at warning level and went on with the fallback it names (TORCH_WARN: the run "
                "continues), and nothing else in the text failed: not the launcher could not resolve a host name. "
                "Act on it only if the fallback matters (on several nodes: set the interface it asks for, "
                "GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME).",
        "fix": "", "first_line": 3, "text": W + "Using the loopback address as fallback.", "match_count": 2}
    del f["match_count"]
    assert torchwarn.note(f)["match_count"] == 1
