"""PMIx's own error lines (issue 18): `PMIX ERROR: <code> in file <f> at line <n>`.

The codes are generated from openpmix/openpmix (tools/gen_pmix_errors.py; its slice
tools/data/pmix_errors_slice.txt keeps v5.0.11's constants sections and v3.2.5's PMIx_Error_string
verbatim): the generator regenerates the committed table, and real texts from public threads (cited
per text) get the mpi.pmix family with the fix their thread settled on, through the CLI.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "pmix_errors_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_pmix_errors as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import assert_root, explain_paste, fixes  # noqa: E402

REAL = {
    # https://github.com/open-mpi/ompi/issues/7516 (Open MPI 4.0.3, PMIx 3.1; settled by the maintainer:
    # "just export the PMIX_MCA_gds=hash envar")
    "gds_lock_7516": "[Mac-802.local:41496] PMIX ERROR: ERROR in file gds_ds12_lock_pthread.c at line 206\n",
    # https://github.com/openpmix/openpmix/issues/1716 (PMIx 2.0.4 on macOS: the same lock, every run)
    "gds_lock_1716": ("[Gautams-MacBook-Air.local:35779] PMIX ERROR: ERROR in file gds_ds12_lock_pthread.c at line 206\n"
                      "Hello WorldHello World[Gautams-MacBook-Air.local:35778] PMIX ERROR: ERROR in file "
                      "gds_ds12_lock_pthread.c at line 206\n"),
    # https://github.com/open-mpi/ompi/issues/5535 (Open MPI 3.1.1: UNPACK-PAST-END at MPI_Init)
    "unpack_5535": (
        "$ mpirun -np 12 main\n"
        "[HAS-T640:11663] PMIX ERROR: UNPACK-PAST-END in file unpack.c at line 206\n"
        "[HAS-T640:11663] PMIX ERROR: UNPACK-PAST-END in file unpack.c at line 147\n"
        "[HAS-T640:11663] PMIX ERROR: UNPACK-PAST-END in file client/pmix_client.c at line 228\n"
        "*** An error occurred in MPI_Init\n*** on a NULL communicator\n"),
    # https://github.com/open-mpi/ompi/issues/13558 (Open MPI 5.0.9 prints the constant's name)
    "unpack_name_13558": ("[vlxssl18.gpfs.boe:152058] PMIX ERROR: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER in file "
                          "base/plm_base_launch_support.c at line 1578\n"),
    # https://github.com/open-mpi/ompi/issues/9785 (Open MPI 4.1.0: the server side after ranks went away)
    "unreach_9785": ("[cn007.24154] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2147\n"
                     "[cn007.24154] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2147\n"),
}


def test_generator_regenerates_the_committed_table_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "pmix_errors.json")
    full = knowgen.committed("pmix_errors")
    assert got["header"]["version"] == full["header"]["version"] and "commit " in got["header"]["version"]
    assert got["sites"] == full["sites"] and got["unassigned"] == full["unassigned"]
    sites = {s["name"]: s for s in got["sites"]}
    # both strings PMIx_Error_string printed: v3's switch and v5's constant name
    assert sites["PMIX_ERR_UNREACH"]["printed"] == ["PMIX_ERR_UNREACH", "UNREACHABLE"]
    assert sites["PMIX_ERR_UNREACH"]["code"] == -25
    assert "UNPACK-PAST-END" in sites["PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER"]["printed"]
    assert sites["PMIX_ERR_INVALID_CRED"]["family"] == "mpi.pmix_psec_munge"
    assert sites["PMIX_ERR_JOB_EXE_NOT_FOUND"]["family"] == "mpi.exec_not_found"
    # events are not errors: no matcher, listed as unassigned
    assert sites["PMIX_GROUP_INVITED"]["family"] is None and sites["PMIX_GROUP_INVITED"]["re"] is None
    assert "pmix.PMIX_GROUP_INVITED" in full["unassigned"]


def test_matchers_need_pmix_s_line():
    sites = {s["name"]: s for s in knowgen.committed("pmix_errors")["sites"]}
    err = re.compile(sites["PMIX_ERROR"]["re"])
    assert err.search("PMIX ERROR: ERROR in file x.c at line 1")
    assert not err.search("srun: error: PMIX_ERROR_LOG is a macro")
    unreach = re.compile(sites["PMIX_ERR_UNREACH"]["re"])
    assert unreach.search("PMIx_Init failed: PMIX_ERR_UNREACH") and not unreach.search("UNREACHABLE host")


def test_real_pmix_texts_get_the_family_and_the_thread_s_fix(cli, tmp_path):
    want = {"gds_lock_7516": "PMIX_MCA_gds=hash", "gds_lock_1716": "PMIX_MCA_gds=hash",
            "unpack_5535": "which mpirun", "unpack_name_13558": "which mpirun",
            "unreach_9785": "find what ended first"}
    for name, text in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        root = assert_root(doc, entry="mpi.pmix", verdict="root_cause", fix=want[name])
        assert root["confidence"] == "cause", (name, root["confidence"])
        assert "PMIx" in root["title"]


def test_an_unknown_code_still_gets_the_family(cli, tmp_path):
    # a code no table row has (a newer PMIx): PMIX_ERROR_LOG's shape alone names the family
    rc, doc = explain_paste(cli, tmp_path, "[n1:1] PMIX ERROR: PMIX_ERR_SOMETHING_NEW in file a.c at line 9\n",
                            "--file", rcs=(0,))
    root = assert_root(doc, entry="mpi.pmix")
    assert root["confidence"] == "family" and "PMIX_MCA_gds=hash" in fixes(root, " ")
