"""slurm25: explain reads gpudoctor's own drain reason where Slurm prints it (slurm24's leftover)."""
from gpudoctor import explain


def test_scontrol_reason_of_a_gpudoctor_drain_names_the_check_and_the_resume():
    # composed in the form `scontrol show node` prints (src/scontrol/info_node.c: Reason=<text> [<user>@<time>])
    # with the reason gpudoctor/slurm.py short_reason writes; not a recording
    text = ("NodeName=sn3 Arch=x86_64 CoresPerSocket=1\n"
            "   State=IDLE+DRAIN ThreadsPerCore=1\n"
            "   Reason=gpudoctor: shm.size: /dev/shm is 64.0 MiB [root@2026-11-28T03:18:40]\n")
    r = explain.explain_text(text, None)
    assert r["findings"] and r["findings"][0]["id"] == "slurm.gpudoctor_drain", [f["id"] for f in r["findings"]]
    fix = " ".join(r["findings"][0]["causes"][0]["fix"])
    assert "gpudoctor check --select" in fix and "state=resume" in fix, fix


def test_the_phrase_outside_slurms_reason_columns_is_no_drain():
    # a user's sentence that merely starts a line with 'gpudoctor: ' and has no sinfo -R columns after it
    r = explain.explain_text("gpudoctor: checking 4 nodes, please wait\n", None)
    assert not any(f["id"] == "slurm.gpudoctor_drain" for f in r["findings"]), [f["id"] for f in r["findings"]]
