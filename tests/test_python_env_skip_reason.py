"""A job interpreter that exits non-zero without a word is 'skipped' with a reason that says so
(the skip read '/bin/false failed: ' with nothing after it)."""

import json
import subprocess
import sys


def test_a_silent_failing_interpreter_gives_a_reason():
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--python", "/bin/false", "--select", "python.env",
                        "--json"], capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    (r,) = [c for c in doc["checks"] if c["id"] == "python.env"]
    assert r["status"] == "skipped" and "/bin/false failed: exit status 1, nothing on stderr" in json.dumps(r), r
