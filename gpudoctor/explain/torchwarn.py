"""torch's own warning that it took a fallback and went on (wrong18, issue 18 item 3).

torch's C++ code reports a warning with TORCH_WARN (c10/util/Exception.h; the warning handler logs it at glog's W
level as '[W<mmdd> <time> <file>:<line>] Warning: <message> (function <fn>)', c10/util/Exception.cpp
WarningHandler::process: https://github.com/pytorch/pytorch/blob/main/c10/util/Exception.cpp) or c10d's
C10D_WARNING, and execution continues: only TORCH_CHECK throws. A warning that says it used a fallback names the way
torch took instead: ProcessGroupGloo.cpp's createDefaultDevice 'Unable to resolve hostname to a (local) address.
Using the loopback address as fallback.' (https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/
ProcessGroupGloo.cpp), ProcessGroupGloo::split's 'Falling back to default options', TCPStore.cpp's '... so ignoring
the error'. Entries written for other programs' failures match such a line by its words ('Unable to resolve
hostname' as an MPI launcher's or the rendezvous' failure); in a text where nothing else failed, the line is what
torch went on after, not a root (analyze.py: the findings become notes).
"""

import re

# torch's glog-style header at W level (both the dated '[W1127 06:47:29.919101921 file.cpp:527]' and the older
# '[W file.cpp:527]'), then the message, then words saying it took another way
_FELL_BACK = re.compile(r"\[W(?:\d{4} \d\d:\d\d:[\d.]{2,16})?(?: \d{1,9})? [\w./-]{1,120}:\d{1,6}\] [^\n]{0,400}?"
                        r"(?:\bas (?:a )?fallback\b|\b[Ff]all(?:ing|s)? back (?:to|on)\b|, (?:so )?ignoring (?:it|the|this)\b)")
MAX_LINE = 600


def fell_back(f):
    """Whether every line a finding matched (and it showed them all) is such a warning of torch's."""
    ms = f.get("matches") or []
    return bool(ms) and f.get("match_count", len(ms)) <= len(ms) and \
        all(_FELL_BACK.search((m.get("text") or "")[:MAX_LINE]) for m in ms)


def note(f):
    """The note a finding on such lines becomes."""
    m = f["matches"][0]
    return {"id": f["id"], "severity": "warning",
            "note": ("torch printed this at warning level and went on with the fallback it names (TORCH_WARN: the run "
                     "continues), and nothing else in the text failed: not %s. Act on it only if the fallback matters "
                     "(on several nodes: set the interface it asks for, GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME)."
                     % f["title"]),
            "fix": "", "first_line": f["first_line"], "text": m.get("text"), "match_count": f.get("match_count", 1)}
