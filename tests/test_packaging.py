"""The wheel a user installs: checks/ lands as gpudoctor.checks (never a top-level
`checks` package), and a third-party plugin's checks are picked up via entry points."""

import json
import os
import subprocess
import sys
import venv
import zipfile

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    """gpudoctor's wheel and the example plugin's (tests/plugin_pkg, built from a copy: no build
    files in the tree), made by one pip run (each pip start is 1-2 s of this file)."""
    out = tmp_path_factory.mktemp("dist")
    work = out / "plugin"
    subprocess.run(["cp", "-r", os.path.join(ROOT, "tests", "plugin_pkg"), str(work)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    ROOT, str(work)], check=True)
    (whl,) = [p for p in out.iterdir() if p.name.startswith("gpudoctor-")]
    (plugin_whl,) = out.glob("gpudoctor_example_plugin-*.whl")
    return whl, plugin_whl


@pytest.fixture(scope="module")
def wheel(wheels):
    return wheels[0]


def test_wheel_layout(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "gpudoctor/checks/shm.py" in names
    assert "gpudoctor/data/cuda_driver.json" in names
    assert not [n for n in names if n.startswith("checks/")], "a top-level checks package leaked into the wheel"
    tops = {n.split("/")[0] for n in names if not n.startswith("gpudoctor-")}
    assert tops == {"gpudoctor"}
    # every module and data file of the source tree ships (a package left out of pyproject's
    # list installs a gpudoctor whose `explain` or `plan` cannot import)
    src = set()
    for base, prefix in ((os.path.join(ROOT, "gpudoctor"), "gpudoctor"), (os.path.join(ROOT, "checks"),
                                                                         "gpudoctor/checks")):
        for d, dirs, files in os.walk(base):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            rel = os.path.relpath(d, base)
            package = "__init__.py" in files
            for f in files:
                # modules of packages, and data files (a script beside data, like the
                # launch flag tables' generator, is a maintainer's tool, not shipped)
                if (f.endswith(".py") and package) or f.endswith((".json", ".toml", ".json.gz")):
                    src.add("/".join(p for p in (prefix, rel, f) if p != "."))
    missing = sorted(src - set(names))
    assert not missing, missing
    # the big generated tables are stored gzip'd (tools/gzip_tables.py): they ship as they are stored
    assert any(n.startswith("gpudoctor/data/knowledge/generated/") and n.endswith(".json.gz") for n in names)


def test_fresh_venv_install_runs_and_finds_plugin(wheels, tmp_path):
    wheel, plugin_whl = wheels
    env_dir = tmp_path / "venv"
    # system site-packages give the runtime dependencies without a download; the wheel
    # itself and the plugin are installed into the venv, over nothing of ours. The venv gets no
    # pip of its own (ensurepip was 3 s of this test's 6): this interpreter's pip installs into
    # it with --python (pip >= 22.3; tests/run.sh upgrades pip), as the venv's own pip would.
    venv.EnvBuilder(with_pip=False, system_site_packages=True).create(env_dir)
    py = str(env_dir / "bin" / "python")
    subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", str(wheel),
                    str(plugin_whl)], check=True)
    clean = dict(os.environ, PYTHONPATH="")
    where = subprocess.run([py, "-c", "import gpudoctor, gpudoctor.checks; print(gpudoctor.checks.__file__)"],
                           capture_output=True, text=True, cwd=str(tmp_path), env=clean, check=True).stdout
    assert where.startswith(str(env_dir)), where
    assert subprocess.run([py, "-c", "import checks"], capture_output=True, cwd=str(tmp_path), env=clean).returncode != 0
    out = subprocess.run([str(env_dir / "bin" / "gpudoctor"), "list", "--json"], capture_output=True, text=True,
                         cwd=str(tmp_path), env=clean, check=True).stdout
    ids = {c["id"]: c for c in json.loads(out)}
    assert ids["site.cpus"]["module"] == "gpudoctor_example_plugin.checks"
    assert "shm.size" in ids
    p = subprocess.run([str(env_dir / "bin" / "gpudoctor"), "check", "--select", "site", "--json"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=clean)
    report = json.loads(p.stdout)
    assert [c["id"] for c in report["checks"]] == ["site.cpus"]
    cpus = os.cpu_count()
    assert report["checks"][0]["status"] == ("warn" if cpus < 4 else "pass")
    r = subprocess.run([py, "-m", "gpudoctor", "--version"], capture_output=True, text=True, cwd=str(tmp_path), env=clean)
    assert r.stdout.startswith("gpudoctor ")
    # the other commands import from the installed wheel too
    exe = str(env_dir / "bin" / "gpudoctor")
    r = subprocess.run([exe, "explain", "NCCL WARN NET/Socket : no socket interface found"], capture_output=True,
                       text=True, cwd=str(tmp_path), env=clean)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr and r.stdout, r.stderr
    # the generated knowledge (gpudoctor/data/knowledge/generated/*.json) ships in the wheel: a
    # CUDA code only the generated table knows
    r = subprocess.run([exe, "explain", "--json", "RuntimeError: CUDA error: misaligned address"], capture_output=True,
                       text=True, cwd=str(tmp_path), env=clean)
    assert json.loads(r.stdout)["root"] == "cuda.illegal_access", r.stderr
    r = subprocess.run([exe, "plan", "--json", "--launch", "mpirun -np 16 -H gpu1:8,gpu2:8 python train.py"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=clean)
    assert r.returncode == 0 and json.loads(r.stdout)["world_size"] == {"min": 16, "max": 16}, r.stderr


def test_duplicate_check_ids_are_refused():
    from gpudoctor.registry import Check, Registry, RegistryError

    reg = Registry()
    reg.add(Check(id="a.b", title="t", func=lambda f, c: ()))
    with pytest.raises(RegistryError, match="registered twice"):
        reg.add(Check(id="a.b", title="t", func=lambda f, c: ()))
    with pytest.raises(RegistryError, match="dotted lowercase slug"):
        reg.add(Check(id="NoDots", title="t", func=lambda f, c: ()))


def test_every_registered_check_is_well_formed():
    from gpudoctor.registry import load_checks

    reg = load_checks()
    assert len(reg) >= 5
    for chk in reg:
        assert chk.title and chk.severity in ("error", "warning", "info")
        assert chk.module.startswith("gpudoctor.checks.") or chk.module.startswith("gpudoctor_")
        assert all(isinstance(n, str) for n in chk.needs)


def test_the_license_is_an_spdx_expression(wheel):
    """setuptools deprecates `license = {text = ...}` and refuses it from 2027-02-18 (SetuptoolsDeprecationWarning,
    seen by userwalk22 building the README's install): `license = "Apache-2.0"` (PEP 639) reaches the wheel's
    metadata as License-Expression."""
    meta = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA")]
    text = zipfile.ZipFile(wheel).read(meta[0]).decode()
    assert "License-Expression: Apache-2.0" in text.splitlines()
