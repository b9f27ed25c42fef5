"""Sites assigned by source context (issue 18, assign13): munged's log_err / log_errno sites (they log, then exit the
daemon: dun/munge src/libcommon/log.c) and libmunge's socket messages (m_msg.c, m_msg_client.c) take the family of
what the call does (tools/gen_munge_messages.py CONTEXT_RULES); a site with fewer than 3 words of its own stays
unassigned. The OpenMP runtime's levels are tested in tests/test_explain_hostprog.py.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_munge_messages as munge  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, root_of  # noqa: E402


def test_munged_exit_sites_are_assigned_by_the_call_that_prints_them():
    sites = knowgen.committed("munge_messages")["sites"]
    ctx = [s for s in sites if s.get("rule") == "ctx-munged-exit"]
    assert len(ctx) >= 100 and {s["family"] for s in ctx} == {"munge.daemon"}
    assert all(s["where"].startswith("munge:src/munged/") and s["level"].startswith("log_err") for s in ctx)
    sock = {s["text"]: s for s in sites if s.get("rule") == "ctx-munge-socket"}
    assert sock["Failed to create socket: %s"]["family"] == "munge.not_running"
    # a word rule still comes first: the key file checks keep munge.daemon_start
    assert all(s["family"] == "munge.daemon_start" for s in sites if s["text"].startswith("Keyfile is insecure"))
    # munge's commands (src/munge/) print and exit too, but what they say is the command's use: not assigned here
    assert not any(str(s.get("rule")).startswith("ctx-") for s in sites if s.get("where", "").startswith("munge:src/munge/"))


def test_a_vague_site_stays_unassigned():
    assert not knowgen.specific_enough("Failed to %s: %s", munge.CTX_WORDS)
    assert knowgen.specific_enough("Failed to init work thread mutex", munge.CTX_WORDS)


def test_munged_thread_failure_is_munged_exiting(cli, tmp_path):
    # composed from the format of dun/munge src/munged/work.c (log_errno (EMUNGE_SNAFU, LOG_ERR, "Failed to init work
    # thread mutex")), in munged.log's shape (src/libcommon/log.c: time, priority, message, then strerror)
    text = "2026-11-26 10:00:00 +0000 Error:      Failed to init work thread mutex: Cannot allocate memory\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "munge.daemon", doc
    site = next(s for s in knowgen.committed("munge_messages")["sites"] if s["text"] == "Failed to init work thread mutex")
    assert re.search(site["re"], text)
