"""The prolog tier (`check --fast`) stays lean: it imports none of the modules only other
commands, a launch line, history or a plugin need (each one costs the prolog 5-45 ms on a GPU
node: docs/benchmarks.md, "The prolog tier against the NVML floor"), and the shortcuts that
keep it so change no verdict."""

import os
import subprocess
import sys

from gpudoctor import registry
from gpudoctor.cli import build_parser
from gpudoctor.commands import NAMES

# never imported by `gpudoctor check --fast` without --launch, --history or a plugin
DENY = ("importlib.metadata", "email", "zipfile", "tempfile", "gpudoctor.launch", "gpudoctor.launch.script",
        "gpudoctor.explain", "gpudoctor.slurm", "rich", "ClusterShell", "fabric", "paramiko", "invoke", "yaml",
        "packaging", "hashlib", "difflib", "traceback",
        # the value classes are plain (gpudoctor/record.py), the check modules listed without
        # pkgutil: dataclasses, inspect (with ast, dis, tokenize) and typing were 7-9 ms
        "dataclasses", "inspect", "typing", "pkgutil") + tuple("gpudoctor.commands." + n for n in NAMES if n not in ("check", "probe"))

_PROG = """import atexit, sys
sys.stderr.write("STARTUP " + " ".join(sorted(sys.modules)) + "\\n")
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n"))
from gpudoctor.cli import main
sys.exit(main(["check", "--fast", "--json"]))
"""


def test_check_fast_imports_none_of_the_heavy_modules(tmp_path):
    env = dict(os.environ, GPUDOCTOR_STATE_DIR=str(tmp_path / "state"))
    for var in ("GPUDOCTOR_CONFIG", "VIRTUAL_ENV", "CONDA_PREFIX", "SLURM_JOB_NODELIST"):
        env.pop(var, None)
    p = subprocess.run([sys.executable, "-c", _PROG], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode in (0, 1), p.stderr
    assert '"checks"' in p.stdout  # a real report came out
    # what the interpreter loaded before gpudoctor (site and its .pth hooks) is not gpudoctor's
    mods = set(p.stderr.rsplit("MODULES ", 1)[1].split()) - set(p.stderr.split("STARTUP ", 1)[1].split("\n")[0].split())
    assert "gpudoctor.checks.launch" in mods  # every check still ran
    # the collector ran here, or (on a GPU node) in the children gpudoctor/early.py forks
    assert ("gpudoctor.collector.nvidia" in mods) != os.path.exists("/proc/driver/nvidia/version")
    assert sorted(m for m in mods if m in DENY or m.split(".")[0] in DENY) == []


_PROG_CHILD = """import atexit, sys
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n"))
from gpudoctor import early
start = early.start
early.start = lambda argv: start(argv, proc=sys.argv[1])  # a stand-in for the driver's /proc file
from gpudoctor.cli import main
sys.exit(main(["check", "--fast", "--json"]))
"""


def test_with_the_child_collecting_the_parent_imports_no_collector(tmp_path):
    """On a GPU node the prolog tier's facts come from the child forked first thing
    (gpudoctor/early.py); the parent then imports neither the collector nor what only the
    collector uses."""
    env = dict(os.environ, GPUDOCTOR_STATE_DIR=str(tmp_path / "state"))
    for var in ("GPUDOCTOR_CONFIG", "VIRTUAL_ENV", "CONDA_PREFIX", "SLURM_JOB_NODELIST"):
        env.pop(var, None)
    version = tmp_path / "version"
    version.write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04\n")
    p = subprocess.run([sys.executable, "-c", _PROG_CHILD, str(version)], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode in (0, 1), p.stderr
    assert '"checks"' in p.stdout and '"host.name"' in p.stdout  # a real report came out
    mods = set(p.stderr.rsplit("MODULES ", 1)[1].split())
    assert "gpudoctor.checks.launch" in mods and "gpudoctor.early" in mods
    lean = ("gpudoctor.collector", "socket", "subprocess", "hashlib", "pynvml") + DENY
    assert sorted(m for m in mods if m in lean or m.split(".")[0] in lean) == []


def test_parser_builds_only_the_named_command_and_every_name_maps():
    every = build_parser([])._subparsers._group_actions[0].choices
    assert len(every) == len(NAMES)
    for word in every:  # each command's own word builds that command alone
        assert list(build_parser([word, "--help"])._subparsers._group_actions[0].choices) == [word]
    assert set(build_parser(["chek"])._subparsers._group_actions[0].choices) == set(every)  # a typo: told the choices
    assert set(build_parser(["--version"])._subparsers._group_actions[0].choices) == set(every)


def test_plugin_prescan_finds_what_importlib_metadata_would(tmp_path):
    site = tmp_path / "site"
    (site / "other-1.0.dist-info").mkdir(parents=True)
    (site / "other-1.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    (site / "old.egg-info").write_text("Metadata-Version: 1.0\n")  # a PKG-INFO-style file, no entry points
    assert registry._may_have_plugins([str(site), str(tmp_path / "missing.zip")], meta_path=[]) is False
    (site / "Plug-2.0.DIST-INFO").mkdir()
    (site / "Plug-2.0.DIST-INFO" / "entry_points.txt").write_text("[gpudoctor.checks]\nplug = plug_mod\n")
    assert registry._may_have_plugins([str(site)], meta_path=[]) is True
    zipped = tmp_path / "deps.zip"
    zipped.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert registry._may_have_plugins([str(zipped)], meta_path=[]) is True  # cannot vouch: importlib.metadata decides

    class Finder:
        def find_distributions(self, context=None):
            return []

    assert registry._may_have_plugins([], meta_path=[Finder()]) is True
