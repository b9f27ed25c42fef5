"""fp25 (issue 18 item 3, never confidently wrong): session 25's false-alarm hunt over healthy texts.

Real healthy runs of programs explain's progline.py knows (fixtures/explain/fp25/, made by the scripts in its src/,
README.md says how): OpenSSH's client at -v against a live sshd on 127.0.0.2 (key offered, refused, then accepted),
Open MPI's --display-map and btl verbose output, pdsh -d's summary ('Failures: 0'), podman and runc versions.
None may get a root; and a user's sentence that starts with a program's name is the user's, not that program's
failure line (progline's 'Printed by the program' answer)."""

import os

import pytest

from gpudoctor import explain

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "explain", "fp25")


def _res(kb, text):
    return explain.explain_text(text, kb, source="paste.txt")


@pytest.mark.parametrize("name", ["ssh-v-live-sshd-key-accepted.log", "mpirun-pdsh-verbose-transcript.log"])
def test_a_healthy_real_run_gets_no_error(kb, name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        r = _res(kb, f.read())
    assert r["verdict"] == "no_error" and not r["findings"], (r["verdict"], [x["id"] for x in r["findings"]])


@pytest.mark.parametrize("text", [
    "munge credential rejected when srun starts",
    "pdsh hangs on one node",
    "ssh -v stops after the key is offered",
    "scontrol show job says Reason=Resources",
])
def test_a_sentence_that_starts_with_a_program_is_not_its_failure_line(kb, text):
    r = _res(kb, text)
    notes = [n for f in r["findings"] for n in (f.get("notes") or [])]
    assert not any("Printed by the program" in n for n in notes), notes
    assert r["verdict"] not in ("root_cause",), (r["verdict"], [x["id"] for x in r["findings"]])
