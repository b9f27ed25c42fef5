"""rootguard.wdir_first_cause (wrong20) asserted whole (mutation round 15, docs/mutation.md): the first cause Open
MPI's working-directory banner gives mpi.error, on the seen P29 text (a real Open MPI 4.1 mpirun, --wdir to a
directory never made) and variants of it: no Node field, a directory with a blank, the banner without its topic."""

from explainhelp import seen_text

from gpudoctor import explain
from gpudoctor.explain import rootguard

DIR = "/tmp/heldout-p29/work/job-f610/scratch/run-20261127"


def _p29():
    return seen_text("p29-mpirun_wdir_not_created", "2026-11-27p29")


def _first(text):
    f = explain.explain_text(text)["findings"][0]
    assert f["id"] == "mpi.error"
    return f["causes"][0]


def _want(path, shown, where):
    return {
        "text": "mpirun could not change to the working directory %s %s (its --wdir, or the directory it was started "
                "from): the directory does not exist there, or is not accessible to the user" % (path, where),
        "checks": [], "confirm": ["ls -ld %s   (%s)" % (shown, where)],
        "fix": ["create it first, on every node the job uses: mkdir -p %s (in the job script before mpirun; on other "
                "nodes through ssh / pdsh / srun --ntasks-per-node=1), or point --wdir at a directory that exists on "
                "every node (a shared filesystem)" % shown],
        "exports": {}, "static_rank": 0, "computed": None}


def test_the_banner_s_directory_and_node():
    c = _first(_p29())
    assert [(e["line"], e["text"]) for e in c.pop("evidence")] == [(10, "Working directory: " + DIR)]
    assert c == _want(DIR, DIR, "on vm")


def test_no_node_field_and_a_directory_with_a_blank():
    c = _first(_p29().replace("Node: vm\n", ""))
    c.pop("evidence")
    assert c == _want(DIR, DIR, "on that node")
    c = _first(_p29().replace(DIR, "/scratch/my run"))
    c.pop("evidence")
    assert c == _want("/scratch/my run", "'/scratch/my run'", "on vm")


def test_only_mpi_error_s_working_directory_topic():
    text = _p29()
    # the banner's first line alone (another topic after it): no working-directory cause
    other = text.replace("change to the specified working directory:", "access or execute an executable:")
    assert not any("working directory" in c["text"] for f in explain.explain_text(other)["findings"][:1]
                   for c in f["causes"])
    rootguard.wdir_first_cause([], None)  # nothing to change, no error
    f = {"id": "mpi.exec_not_found", "causes": []}
    rootguard.wdir_first_cause([f], None)
    assert f["causes"] == []
