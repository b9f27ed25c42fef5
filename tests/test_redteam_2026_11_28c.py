"""Red team 2026-11-28c (docs/security.md 59.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(argv, cwd, timeout=120, env=None, stdin=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                         cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s still ran after %d s" % (" ".join(argv), timeout))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# 59.: modules gpudoctor imports after the interpreter has started (argparse, textwrap, traceback, tomllib, shlex,
# ...); those the interpreter imported at start (os, re, ...) are not taken from the folder anyway.
_STDLIB_PLANTED = ("argparse", "textwrap", "traceback", "shlex", "tomllib", "json", "subprocess", "tempfile", "hmac",
                   "secrets", "hashlib", "socket", "signal", "datetime", "gettext", "locale", "string", "difflib")


@pytest.mark.parametrize("args", [["--version"], ["explain", "log.txt"], ["check", "--json"]])
def test_python_m_gpudoctor_imports_nothing_from_the_folder_it_runs_in(tmp_path, args):
    # `python -m gpudoctor` puts the current folder (its full path) first on sys.path before gpudoctor is imported:
    # an argparse.py in a cloned repository ran when gpudoctor's CLI imported argparse (and a traceback.py when the
    # crash file was written). gpudoctor/__init__.py takes that entry out first.
    folder, hits = tmp_path / "repo", tmp_path / "hits"
    folder.mkdir()
    hits.mkdir()
    for name in _STDLIB_PLANTED:
        (folder / ("%s.py" % name)).write_text("open(%r, 'w').close()\n" % str(hits / name))
    (folder / "log.txt").write_text("RuntimeError: CUDA error: out of memory\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PYTHONPATH"] = ROOT  # as installed (the editable install's finder would do the same)
    rc, out, err = _run([sys.executable, "-m", "gpudoctor"] + args, folder, env=env)
    assert sorted(os.listdir(str(hits))) == [], "python -m gpudoctor %s ran the folder's modules" % args[0]
    assert rc in (0, 1), err[-2000:]


def test_python_m_gpudoctor_still_runs_from_a_source_checkout():
    # the package found in the folder itself (a clone, `python -m gpudoctor` at its top) keeps working: its own
    # modules are looked up through the package, and the top-level checks/ as gpudoctor.checks
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    rc, out, err = _run([sys.executable, "-m", "gpudoctor", "check", "--json", "--select", "shm.size"], ROOT,
                        env=env)
    assert rc in (0, 1), err[-2000:]
    assert '"shm.size"' in out


_WRAPPER_TRACE = """#!/bin/bash
set -x
DBCONN=Zq81hunter2xyz
Q='Qq5 two words'
connect-db --conn "$DBCONN" --svc "$SVC_URL_X" --quoted "$Q"
exit %d
"""
_WRAPPER_ECHO = """#!/bin/bash
echo "using $SVC_URL_X and $DBCONN2 for the run"
exit %d
"""


@pytest.mark.parametrize("script", [_WRAPPER_TRACE, _WRAPPER_ECHO])
@pytest.mark.parametrize("rc", [3, 0])
def test_a_wrapper_keeps_no_value_of_a_variable_whose_name_is_no_credentials(tmp_path, script, rc):
    # 60.: 50. and 57. cut NAME=value and credential-named flags, but the value came back wherever the wrapper used
    # it: `connect-db --conn "$DBCONN"` traced as `--conn Zq81hunter2xyz`, an environment variable echoed in words.
    # The facts show neither name's value (env_value hashes it); what the wrapper printed now says `$NAME` there.
    w = tmp_path / "w"
    w.write_text(script % rc)
    w.chmod(0o755)
    env = dict(os.environ, SVC_URL_X="Kx7secretvalue99", DBCONN2="Pp0another77", PYTHONPATH=ROOT)
    code, out, err = _run([sys.executable, "-P", "-m", "gpudoctor", "check", "--python", str(w), "--json"], tmp_path,
                          env=env)
    assert code == 1, err[-2000:]
    said = out + err
    for part in ("Zq81hunter2", "hunter2xyz", "Kx7secret", "secretvalue99", "Pp0another", "Qq5 two", "two words"):
        assert part not in said.replace("\\x20", " "), part
    if (script is _WRAPPER_TRACE) == (rc != 0):  # (stderr is shown for a failing wrapper, stdout otherwise)
        assert "$SVC_URL_X" in said  # what it was is still said, by name
