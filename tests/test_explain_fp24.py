"""fp24 (issue 18 item 3, never confidently wrong): false alarms of session 24's explain readers and caught or
recovered errors printed before the real failure.

- progline.py's command-line pattern and deeper.py's state lines are no program's output: a user's sentence on such a
  line ("mpirun puts all processes on the same host" is also mpirun's command alone on its line) still gets its
  symptom (symptoms._program_lines);
- progline answers only a line no table read (the kernel's 'nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected'
  is gpu.pcie_corrected's note, and the AER report's next lines go on it), and a failure word after 'to' or a modal
  is what may happen (pdsh's 'interrupt (one more within 1 sec to abort)');
- outcome.past_records: a root standing only on logging records its program went on after (WARNING / ERROR records
  then the same logger's or rank's progress; a traceback such a record carried) yields to the later failure.

Texts: fixtures/explain/fp23/ and fixtures/explain/fp24/ (real runs on this project's build VM; their README.md says
how each was made), and lines in the printers' own formats (pdsh's src/pdsh/dsh.c, Linux's drivers/pci/pcie/aer.c)."""

import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import symptoms

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "explain")
ANSWERED = ("root_cause", "likely_cause")


def _res(kb, text):
    return explain.explain_text(text, kb, source="paste.txt")


def _file(kb, *parts):
    with open(os.path.join(FIX, *parts), encoding="utf-8") as f:
        return _res(kb, f.read())


def _ids(r):
    return [f["id"] for f in r["findings"]]


# ---------------------------------------------------------------- a user's sentence that starts with a program

@pytest.mark.parametrize("text,want", [
    ("mpirun puts all processes on the same host", "mpi.ranks_on_first_node"),
    ("sbatch with 2 nodes: the job only runs on the first node", "slurm.one_node_used"),
    ("nvidia-smi and pytorch GPU ids do not match", "cuda.device_order_differs"),
    ("/dev/shm is only 64M in the container", "container.shm_too_small"),
])
def test_a_sentence_that_starts_with_a_known_program_is_still_the_users(kb, text, want):
    r = _res(kb, text)
    assert r["verdict"] in ANSWERED and _ids(r)[:1] == [want], (r["verdict"], _ids(r))


def test_progline_and_deeper_lines_are_not_program_lines():
    # the keys symptoms leaves out of 'a program printed this line'
    from gpudoctor.explain import deeper, progline

    assert "_struct_pl_cmd" in progline.USER_LINES and "_struct_pl_prog" not in progline.USER_LINES
    assert deeper.CONTEXT_LINES and all(k.startswith("_struct_dc") for k in deeper.CONTEXT_LINES)
    assert symptoms  # (imported: _program_lines reads both)


# ---------------------------------------------------------------- progline on lines a table read or a possibility

def test_a_failure_word_after_to_is_what_may_happen(kb):
    # pdsh's first Ctrl-C (src/pdsh/dsh.c: "interrupt (one more within 1 sec to abort)"), pdcp's the same
    for line in ("pdsh@gpu1: interrupt (one more within 1 sec to abort)\n",
                 "pdcp@login: interrupt (one more within 1 sec to abort)\n"):
        assert _res(kb, line)["verdict"] == "no_error", line
    # ... and a failure it reports is still one
    r = _res(kb, "pdcp@login: gpu01: rcmd: socket: Permission denied\n")
    assert r["verdict"] in ANSWERED, r["verdict"]


AER = ("[ 5.31] pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0\n"
       "[ 5.32] nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
       "[ 5.33] nvidia 0000:18:00.0:   device [10de:2330] error status/mask=00000001/0000e000\n"
       "[ 5.34] nvidia 0000:18:00.0:    [ 0] RxErr                  (First)\n")


def test_a_device_line_a_table_read_and_its_report_lines_are_not_the_drivers_failure(kb):
    r = _res(kb, AER)
    assert r["verdict"] == "no_error" and not r["findings"], (r["verdict"], _ids(r))
    # a failure line of the driver no table reads, alone, is still the driver's
    r = _res(kb, "[ 9.10] nvidia 0000:18:00.0: loading /lib/firmware/nvidia/gsp.bin failed with error -4\n")
    assert r["verdict"] in ANSWERED, r["verdict"]


@pytest.mark.parametrize("name", ["pdsh-mpirun-munge-podman-transcript.log", "bash-history-pdsh-mpirun.txt",
                                  "python-logging-default-recovered.log"])
def test_healthy_recordings_have_no_root(kb, name):
    r = _file(kb, "fp24", name)
    assert r["verdict"] == "no_error" and not r["findings"], (name, r["verdict"], _ids(r))


def test_srun_without_a_configuration_is_slurms(kb):
    r = _file(kb, "fp24", "srun-rdma-no-config-transcript.log")
    assert r["verdict"] in ANSWERED and _ids(r)[0].startswith("slurm."), (r["verdict"], _ids(r))
