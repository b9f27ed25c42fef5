"""CPython's own fatal errors (python_fatal.toml; the faulthandler lines of elastic.toml's sig* entries) and the scan's
rule that a line starting a record of its own (an exception line, a fatal-error header) is never the rest of a
wrapped message (scan._RECORD_HEAD_B).

Texts run here (CPython 3.11.2, Debian 12's /usr/bin/python3): PYTHONHOME naming another Python's prefix
(`PYTHONHOME=/opt/python-3.9 python3 -c pass`), a C API call without the GIL
(`python3 -c "import ctypes; ctypes.CDLL(None).PyThreadState_Get()"`: CDLL releases the GIL around the call) and a
segmentation fault under faulthandler (`python3 -X faulthandler -c "import ctypes; ctypes.string_at(0)"`); and a
public thread, https://github.com/astral-sh/uv/issues/15334 (a standalone Python run outside its install:
sys.prefix '/install'; the maintainers' answer: python-build-standalone#380, use tox-uv)."""

import pytest

from gpudoctor.explain import explain_text

RUN_HERE_PYTHONHOME = "Python path configuration:\n  PYTHONHOME = '/opt/python-3.9'\n  PYTHONPATH = (not set)\n  program name = '/usr/bin/python3'\n  isolated = 0\n  environment = 1\n  user site = 1\n  safe_path = 0\n  import site = 1\n  is in build tree = 0\n  stdlib dir = '/opt/python-3.9/lib/python3.11'\n  sys._base_executable = '/usr/bin/python3'\n  sys.base_prefix = '/opt/python-3.9'\n  sys.base_exec_prefix = '/opt/python-3.9'\n  sys.platlibdir = 'lib'\n  sys.executable = '/usr/bin/python3'\n  sys.prefix = '/opt/python-3.9'\n  sys.exec_prefix = '/opt/python-3.9'\n  sys.path = [\n    '/opt/python-3.9/lib/python311.zip',\n    '/opt/python-3.9/lib/python3.11',\n    '/opt/python-3.9/lib/python3.11/lib-dynload',\n  ]\nFatal Python error: init_fs_encoding: failed to get the Python codec of the filesystem encoding\nPython runtime state: core initialized\nModuleNotFoundError: No module named 'encodings'\n\nCurrent thread 0x00007f24a7fb7040 (most recent call first):\n  <no Python frame>\n"

RUN_HERE_GIL = 'Fatal Python error: PyThreadState_Get: the function must be called with the GIL held, but the GIL is released (the current Python thread state is NULL)\nPython runtime state: initialized\n\nCurrent thread 0x00007f80a6340040 (most recent call first):\n  File "<string>", line 1 in <module>\n'

RUN_HERE_SEGV = 'Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f88ce3a8040 (most recent call first):\n  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at\n  File "<string>", line 1 in <module>\n'

UV_15334 = 'py311: install_deps> python -I -m pip install \'flake8<5.0.0\' \'importlib-metadata<5.0\' pytest-black \'pytest-cov<6.0\' \'pytest-flake8; python_version < "3.12"\' pytest-mypy pytest-pudb \'pytest<7\' setuptools types-mock\nCould not find platform independent libraries <prefix>\nCould not find platform dependent libraries <exec_prefix>\nPython path configuration:\n  PYTHONHOME = (not set)\n  PYTHONPATH = (not set)\n  program name = \'/home/nicola/Documenti/dev/tools/.tox/py311/bin/python\'\n  isolated = 1\n  environment = 0\n  user site = 0\n  safe_path = 1\n  import site = 1\n  is in build tree = 0\n  stdlib dir = \'/install/lib/python3.11\'\n  sys._base_executable = \'/home/nicola/.local/share/uv/python/cpython-3.11.13-linux-x86_64-gnu/bin/python3.11\'\n  sys.base_prefix = \'/install\'\n  sys.base_exec_prefix = \'/install\'\n  sys.platlibdir = \'lib\'\n  sys.executable = \'/home/nicola/Documenti/dev/tools/.tox/py311/bin/python\'\n  sys.prefix = \'/install\'\n  sys.exec_prefix = \'/install\'\n  sys.path = [\n    \'/install/lib/python311.zip\',\n    \'/install/lib/python3.11\',\n    \'/install/lib/python3.11/lib-dynload\',\n  ]\nFatal Python error: init_fs_encoding: failed to get the Python codec of the filesystem encoding\nPython runtime state: core initialized\nModuleNotFoundError: No module named \'encodings\'\n\nCurrent thread 0x00007df16616d740 (most recent call first):\n  <no Python frame>\npy311: exit 1 (0.02 seconds) /home/nicola/Documenti/dev/tools> python -I -m pip install \'flake8<5.0.0\' \'importlib-metadata<5.0\' pytest-black \'pytest-cov<6.0\' \'pytest-flake8; python_version < "3.12"\' pytest-mypy pytest-pudb \'pytest<7\' setuptools types-mock pid=2468762\n'


def _root(text):
    r = explain_text(text)
    assert r["verdict"] == "root_cause", r["verdict"]
    return r["findings"][0]


def _first_cause_with_evidence(f):
    return next(c for c in f["causes"] if c.get("evidence"))


def test_pythonhome_of_another_python_is_named():
    f = _root(RUN_HERE_PYTHONHOME)
    assert f["id"] == "python.startup_stdlib"
    c = _first_cause_with_evidence(f)
    assert "PYTHONHOME" in c["text"] and "env -u PYTHONHOME" in " ".join(c["fix"])


def test_a_standalone_python_outside_its_install_is_the_venv_cause():
    f = _root(UV_15334)
    assert f["id"] == "python.startup_stdlib"
    c = _first_cause_with_evidence(f)
    assert "/install" in c["text"] and "uv venv" in " ".join(c["fix"])
    # 'PYTHONHOME = (not set)' is no evidence of the PYTHONHOME cause
    assert not any(c2.get("evidence") for c2 in f["causes"] if c2["text"].startswith("PYTHONHOME"))


def test_the_exception_line_is_not_joined_to_the_state_line_above_it():
    f = _root(RUN_HERE_PYTHONHOME)
    shown = " ".join(str(x) for x in f.get("lines", [])) + repr(f)
    assert "initializedModuleNotFoundError" not in shown
    # the bare ModuleNotFoundError (no fatal-error header) is read as its own line, not glued to the one before
    r = explain_text("Python runtime state: core initialized\nModuleNotFoundError: No module named 'encodings'\n")
    assert "initializedModuleNotFoundError" not in repr(r)


def test_a_c_api_call_without_the_gil_is_named():
    f = _root(RUN_HERE_GIL)
    assert f["id"] == "python.gil_not_held"
    c = _first_cause_with_evidence(f)
    assert "extension" in c["text"].lower() and "force-reinstall" in " ".join(c["fix"])


def test_the_gil_error_at_exit_is_the_finalizing_cause():
    text = RUN_HERE_GIL.replace("Python runtime state: initialized", "Python runtime state: finalizing (tstate=0x0000000152604b80)")
    c = _first_cause_with_evidence(_root(text))
    assert "shutting down" in c["text"] and "destroy_process_group" in " ".join(c["fix"])


def test_faulthandlers_segmentation_fault_is_the_native_crash():
    f = _root(RUN_HERE_SEGV)
    assert f["id"] == "elastic.sigsegv"


@pytest.mark.parametrize("name, entry", [("Bus error", "elastic.sigbus"), ("Segmentation fault", "elastic.sigsegv")])
def test_faulthandlers_other_signals(name, entry):
    assert _root(RUN_HERE_SEGV.replace("Segmentation fault", name))["id"] == entry


@pytest.mark.parametrize("text", [
    "export PYTHONHOME=/opt/python\nPython path configuration:\n  PYTHONHOME = '/opt/python'\nEpoch 1: loss 0.41\n",
    "faulthandler enabled; see https://docs.python.org/3/library/faulthandler.html for 'Fatal Python error'\n",
])
def test_no_root_without_the_fatal_error(text):
    assert explain_text(text)["verdict"] != "root_cause"
