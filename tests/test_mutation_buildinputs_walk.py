"""buildinputs.structural's walk over the missing-input lines, the parts mutation round 17 found unasserted
(docs/mutation.md): a line the run went on past (two progress lines after it) is not the answer and the next one is
read (continue, not break); a line at INFO level is no failure. GCC's own 'fatal error: X: No such file or directory'
(gcc/incpath.cc / libcpp's open_file_failed)."""

from gpudoctor import explain

NCCL = "x.c:1:10: fatal error: nccl.h: No such file or directory\n"
MPI = "y.c:1:10: fatal error: mpi.h: No such file or directory\n"
STEPS = "step 1 loss 2\nstep 2 loss 2\n"


def _answer(text):
    r = explain.explain_text(text)
    return r["verdict"], [(f["id"], f["notes"][:1], [c["text"] for c in f["causes"][:1]]) for f in r["findings"]]


def test_a_line_the_run_went_on_past_is_skipped_and_the_next_read():
    assert _answer(NCCL + STEPS) == ("no_error", [])
    assert _answer(NCCL + STEPS + MPI) == ("root_cause", [("build.tool_error", [
        "How sure: medium. No known message matched; the family is read from the text's shape (the build's missing "
        "header mpi.h (an MPI implementation's development files)), which names where the error was raised, not a "
        "cluster cause."], [
        "The build needs the header mpi.h, which libmpich-dev / libopenmpi-dev provides (an MPI implementation's "
        "development files): not installed here, or installed where the build does not look."])])


def test_a_missing_header_at_info_level_is_no_failure():
    assert _answer("INFO " + NCCL) == ("no_error", [])
