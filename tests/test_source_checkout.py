"""`python -m gpudoctor` from a source checkout (a clone, not installed) finds the top-level checks/ as
gpudoctor.checks, as an install does (pyproject.toml's package-dir); an installed package keeps its own.

Seen on the 4x H100 device host (bench/watch_h100x4.sh, 2026-11-27): `python3 -m gpudoctor check` run in the
repository root exited 3 ("No module named 'gpudoctor.checks'") while facts, watch and probe worked."""

import os
import shutil
import subprocess
import sys

from conftest import ROOT

PROBE = "import gpudoctor.checks, sys; sys.stdout.write(gpudoctor.checks.__file__)"


def tree(tmp_path, pyproject=True, installed=False):
    pkg = tmp_path / "gpudoctor"
    pkg.mkdir()
    shutil.copy(os.path.join(ROOT, "gpudoctor", "__init__.py"), pkg / "__init__.py")
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "__init__.py").write_text("WHERE = 'top'\n")
    if pyproject:
        (tmp_path / "pyproject.toml").write_text("[project]\nname = 'gpudoctor'\n")
    if installed:
        (pkg / "checks").mkdir()
        (pkg / "checks" / "__init__.py").write_text("WHERE = 'installed'\n")
    return tmp_path


def run(cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-S", "-c", PROBE], cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_checkout_finds_its_top_level_checks(tmp_path):
    r = run(tree(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == str(tmp_path / "checks" / "__init__.py")


def test_an_installed_package_keeps_its_own_checks(tmp_path):
    r = run(tree(tmp_path, installed=True))
    assert r.returncode == 0, r.stderr
    assert r.stdout == str(tmp_path / "gpudoctor" / "checks" / "__init__.py")


def test_a_checks_folder_beside_a_package_that_is_no_checkout_is_not_taken(tmp_path):
    r = run(tree(tmp_path, pyproject=False))
    assert r.returncode == 1 and "No module named 'gpudoctor.checks'" in r.stderr
