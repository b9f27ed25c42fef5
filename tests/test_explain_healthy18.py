"""Healthy outputs made here by running the real programs (fixtures/explain/healthy18/README.md: a CMake / Ninja /
Make C extension built by pip with warnings and failed try-compile checks, dpkg-buildpackage with warnings,
logging.exception() in a loop that goes on, jax / Hydra / Lightning / transformers on CPU, torchrun gloo) get no root
cause (issue 18). In process: one knowledge load for the folder, no subprocess per file."""

import glob
import os

import pytest

from gpudoctor.explain import explain_text
from gpudoctor.explain.outcome import record_head

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "fixtures", "explain", "healthy18")
LOGS = sorted(glob.glob(os.path.join(FOLDER, "*.log")))



def test_every_output_is_cited():
    with open(os.path.join(FOLDER, "README.md")) as f:
        readme = f.read()
    assert len(LOGS) >= 10
    for p in LOGS:
        assert os.path.basename(p) in readme, p


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_a_healthy_output_made_here_is_no_error(kb, path):
    with open(path, "rb") as f:
        res = explain_text(f.read(), kb=kb, source=path)
    assert (res["verdict"], res["root"], res["findings"]) == ("no_error", None, []), \
        [(f["id"], f["role"], f["matches"][0]["text"][:120]) for f in res["findings"]]


LOOP = ("2026-11-27 10:47:09,422 INFO preprocess: record 1: 1 tokens\n"
        "2026-11-27 10:47:09,439 ERROR preprocess: record 2 could not be read, skipping it\n"
        "Traceback (most recent call last):\n"
        '  File "/data/prep.py", line 20, in <module>\n'
        "    rid, toks = tokenize(rec)\n"
        '  File "/data/prep.py", line 14, in tokenize\n'
        "    return obj[\"id\"], obj[\"text\"].split()\n"
        "AttributeError: 'int' object has no attribute 'split'\n")


def test_a_logged_traceback_is_past_only_when_the_same_logger_goes_on(kb):
    # logging.exception() in a handler, then the same logger's 'finished' record: it went on (no root)
    done = LOOP + "2026-11-27 10:47:09,440 INFO preprocess: finished: 3 of 6 records written, 3 skipped\n"
    assert explain_text(done, kb=kb)["verdict"] == "no_error"
    # the same record, then the exception uncaught and a wrapper's 'done' (no logging record): still the failure
    wrapper = LOOP + "done\n"
    assert explain_text(wrapper, kb=kb)["verdict"] != "no_error"
    # another logger's 'finished' record (another header) is not this program going on
    other = LOOP + "[2026-11-27 10:47:09] finished: upload done\n"
    assert explain_text(other, kb=kb)["verdict"] != "no_error"


def test_record_head():
    assert record_head("ERROR preprocess: record 2") == record_head("INFO preprocess: finished")
    assert record_head("ERROR preprocess: x") == "L preprocess: "
    assert record_head("INFO:configs:2 of 4") == "L:configs:"
    assert record_head("the INFO") is None and record_head("ERROR") is None
    assert record_head("INFO x: y", ("ERROR",)) is None


@pytest.mark.parametrize("err,info", [
    # Hydra's job logging format, logging.basicConfig()'s default, a '|'-separated format (Lib/logging Formatter)
    ("[2026-11-27 10:47:09,439][__main__][ERROR] - ", "[2026-11-27 10:47:09,440][__main__][INFO] - "),
    ("ERROR:root:", "INFO:root:"),
    ("2026-11-27 10:47:09 | ERROR | prep | ", "2026-11-27 10:47:10 | INFO | prep | "),
])
def test_the_logged_traceback_in_other_record_formats(kb, err, info):
    tb = LOOP[LOOP.index("Traceback"):]
    text = info + "record 1: 1 tokens\n" + err + "record 2 could not be read, skipping it\n" + tb
    assert explain_text(text + info + "finished: 3 of 6 records written\n", kb=kb)["verdict"] == "no_error"
    assert explain_text(text, kb=kb)["verdict"] != "no_error"  # nothing after it: the exception may have ended it


def test_a_command_whose_failure_make_ignored_is_no_error(kb):
    # GNU make src/job.c child_error: ' (ignored)' for a '-' recipe line (the build goes on); '*** ' when it stops
    ran = "rm old.txt\nrm: cannot remove 'old.txt': No such file or directory\n"
    assert explain_text(ran + "make: [Makefile:4: clean] Error 1 (ignored)\ncc -o hello hello.c\n", kb=kb)["verdict"] \
        == "no_error"
    assert explain_text(ran + "make[2]: [clean] Error 1 (ignored)\n", kb=kb)["verdict"] == "no_error"  # make 3.81
    stopped = explain_text(ran + "make: *** [Makefile:4: clean] Error 1\n", kb=kb)
    assert stopped["verdict"] != "no_error"
    # an error line elsewhere in the text is still one
    other = explain_text("RuntimeError: boom\n" + "x\n" + ran + "make: [Makefile:4: clean] Error 1 (ignored)\n", kb=kb)
    assert other["verdict"] != "no_error"
