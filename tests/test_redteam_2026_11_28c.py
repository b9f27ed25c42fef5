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
