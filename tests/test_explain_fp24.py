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


# ---------------------------------------------------------------- logged errors the program went on after, then the real failure

@pytest.mark.parametrize("parts,want", [
    # both ranks log a caught state_dict error and train on, rank 1 logs a caught OSError with its traceback, then
    # rank 1 dies of an uncaught ValueError (it was usercode.state_dict_mismatch, root_cause)
    (("fp23", "torchrun-cpu-ddp-caught-errors-then-rank1-dies.log"), "usercode.shape_mismatch"),
    # two WARNING records of a retried ConnectionError, success, progress, then ModuleNotFoundError (it was
    # rendezvous.connect, root_cause)
    (("fp23", "python-retry-recovered-then-import-error.log"), "code.python_env"),
    # the same in logging's default format (ERROR:loader:...), then an uncaught FileNotFoundError (recorded after the
    # mechanism was written: it was rendezvous.connect, root_cause)
    (("fp24", "python-logging-default-default-then-oserror.log"), "code.exception"),
])
def test_the_failure_after_records_the_program_went_on_after_is_the_root(kb, parts, want):
    r = _file(kb, *parts)
    assert r["verdict"] in ANSWERED and _ids(r)[0] == want, (r["verdict"], _ids(r))
    assert "rendezvous.connect" not in _ids(r)[:1] and "usercode.state_dict_mismatch" not in _ids(r)[:1]


def test_a_record_that_did_not_go_on_stays_the_root(kb):
    # an ERROR record, then the same exception uncaught: no later record of that logger, the record is the failure
    r = _file(kb, "fp24", "python-logging-default-ended-here.log")
    assert r["verdict"] == "root_cause" and _ids(r)[0] == "rendezvous.connect", (r["verdict"], _ids(r))


def test_records_that_went_on_then_a_line_nothing_reads_is_not_sure(kb):
    # WARNING records of a retried fetch, progress, then bash's report that the process aborted (fp23's run of
    # src/retry.py abortplain): nothing reads the end, so the records' family is How sure: low, with the end's line
    text = ("2026-11-28 00:20:55,446 WARNING data: fetch failed (attempt 1): ConnectionError: [Errno 111] Connection "
            "refused; retrying\n"
            "2026-11-28 00:20:55,446 WARNING data: fetch failed (attempt 2): ConnectionError: [Errno 111] Connection "
            "refused; retrying\n"
            "2026-11-28 00:20:55,446 INFO data: fetched 10 bytes after 3 attempts\n"
            "2026-11-28 00:20:55,446 INFO data: step 0 loss 1.000\n"
            "2026-11-28 00:20:55,446 INFO data: step 1 loss 0.500\n"
            "2026-11-28 00:20:55,446 INFO data: step 2 loss 0.333\n"
            "py/run_abort2.sh: line 2:  5354 Aborted                 python retry.py abortplain\n")
    r = _res(kb, text)
    assert r["verdict"] == "likely_cause", (r["verdict"], _ids(r))
    assert any("line 7" in n for n in r["findings"][0]["notes"] if isinstance(n, str))
    # ... the same records with no end after them: the job went on, no root
    r = _res(kb, text.rsplit("py/run_abort2", 1)[0])
    assert r["verdict"] == "no_error", (r["verdict"], _ids(r))


@pytest.mark.parametrize("name", ["torchrun-cpu-ddp-caught-errors-completes.log",
                                  "python-logging-exception-retry-recovered.log",
                                  "python-logging-warning-retry-recovered.log"])
def test_runs_that_recovered_stay_healthy(kb, name):
    r = _file(kb, "fp23", name)
    assert r["verdict"] == "no_error" and not r["findings"], (name, r["verdict"], _ids(r))
