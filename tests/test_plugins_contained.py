"""A broken third-party plugin is one warning line and is skipped whole; the built-in
checks still run and the exit code is theirs (docs/writing-checks.md).

The plugins here are real distributions found by importlib.metadata (a dist-info folder
with entry_points.txt on PYTHONPATH), loaded by a real `gpudoctor check` subprocess."""

import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

DEV = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")

PLUGINS = {
    # a duplicate of a built-in id, after registering a check of its own
    "dup": '''from gpudoctor.registry import Pass, check
@check("site.first", title="registered before the duplicate")
def first(facts, config):
    yield Pass("ok")
@check("shm.size", title="a duplicate id")
def dup(facts, config):
    yield Pass("ok")
''',
    "broken": "import no_such_module_anywhere\n",
    "badmeta": '''from gpudoctor.registry import check
@check("NotASlug", title="bad id")
def f(facts, config):
    return ()
''',
}


def _install(tmp_path, name, source):
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / ("gdplug_%s.py" % name)).write_text(source)
    dist = site / ("gdplug_%s-1.0.dist-info" % name)
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gdplug-%s\nVersion: 1.0\n" % name)
    (dist / "entry_points.txt").write_text("[gpudoctor.checks]\n%s = gdplug_%s\n" % (name, name))
    return site


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_a_broken_plugin_is_one_warning_and_skipped_whole(tmp_path, name):
    site = _install(tmp_path, name, PLUGINS[name])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), ROOT]))
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", DEV, "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    warnings = [l for l in p.stderr.splitlines() if l.startswith("gpudoctor: warning: plugin %s" % name)]
    assert len(warnings) == 1 and "skipped" in warnings[0], p.stderr
    assert "Traceback" not in p.stderr
    doc = json.loads(p.stdout)
    ids = [c["id"] for c in doc["checks"]]
    assert "site.first" not in ids  # nothing of the broken plugin stays registered
    assert "shm.size" in ids and doc["summary"]["checks_crashed"] == 0
    assert p.returncode == doc["summary"]["exit_code"] in (0, 1)  # the built-in checks' verdict
