"""Slurm's site-policy refusals at submission (issue 18): slurmctld puts the limit's reason string in its reply
(src/slurmctld/job_mgr.c: err_msg = job_state_reason_string(acct_reason), ESLURM_ACCOUNTING_POLICY) and
sbatch/srun/salloc print it at error level (src/common/slurm_protocol_pack.c, _unpack_return_code2_msg), so the
reason reaches the user as '<prog>: error: QOSMaxSubmitJobPerUserLimit' before 'Job violates accounting/QOS
policy'. tools/gen_slurm_reasons.py matches that form too; real texts from public threads, cited per text.
"""

import json
import os

from explainhelp import assert_root, explain_paste, fixes
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# https://github.com/szcf-weiya/techNotes/issues/7 (salloc refused: the QOS's MaxSubmitPU; settled with
# sacctmgr show qos ... MaxSubmitPU)
TECHNOTES_7 = ("$ salloc -N1\nsalloc: error: QOSMaxSubmitJobPerUserLimit\nsalloc: error: Job submit/allocate failed: "
               "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n")
# https://github.com/VUIIS/dax/issues/504 (a GPU job refused by the QOS's GrpTRES on gres)
DAX_504 = ("2025-04-02 11:01:15,079 - ERROR - cluster - sbatch: error: QOSGrpGRES\nsbatch: error: Batch job "
           "submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n")


def test_the_reason_line_alone_names_the_limit(cli, tmp_path):
    # the first line of techNotes#7 on its own (what a wrapper that keeps one line of stderr shows)
    rc, doc = explain_paste(cli, tmp_path, "salloc: error: QOSMaxSubmitJobPerUserLimit\n", "--file", rcs=(0,))
    root = assert_root(doc, entry="slurm.qos_limit", verdict="root_cause", confidence="cause")
    assert "MaxSubmitJobsPerUser" in root["causes"][0]["text"] and "refused at submission" in root["causes"][0]["text"]
    assert "sacctmgr show" in fixes(root, " ")


def test_real_refusals_get_the_qos_family(cli, tmp_path):
    for name, text in (("technotes_7", TECHNOTES_7), ("dax_504", DAX_504)):
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        root = assert_root(doc, entry="slurm.qos_limit", verdict="root_cause")
        assert "sacctmgr show" in fixes(root, " "), name


def test_the_error_form_needs_the_whole_line():
    with open_generated("slurm_reasons") as f:
        sites = {s["text"]: s for s in json.load(f)["sites"]}
    import re

    rx = re.compile(sites["QOSMaxSubmitJobPerUserLimit"]["re"])
    assert rx.search("sbatch: error: QOSMaxSubmitJobPerUserLimit") and rx.search("srun: error: QOSMaxSubmitJobPerUserLimit ")
    assert not rx.search("sbatch: error: QOSMaxSubmitJobPerUserLimit exceeded by job 12 (made up)")
    assert not rx.search("mytool: error: QOSMaxSubmitJobPerUserLimit")
