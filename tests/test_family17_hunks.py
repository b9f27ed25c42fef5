"""family17's hunks of pyanswer._traceback_finding that mutation17 left (docs/mutation.md "Round 13"): the 'requires X
to be installed' answer's fix (the message's own pip command with its extras and full stop, the distribution where
the message gives none, transformers' requires_backends form for a package no wheel table knows, a requirement
raised by the user's own code, the exception type's family when the message names no package) and the library-error
fix naming the distribution pip installs (scikit-learn for sklearn) with and without the user's frame; and
_logged_record's 300 characters and its header-only record. The messages are the libraries' own forms
(transformers/integrations/integration_utils.py '<X>Callback requires <pkg> to be installed. Run `pip install <pkg>`.',
transformers/utils/import_utils.py requires_backends '<cls> requires the <pkg> library but it was not found in your
environment', sklearn/utils/_param_validation.py InvalidParameterError); the answers are said whole."""

import copy

import pytest

from gpudoctor import explain
from gpudoctor.explain import pyanswer
from gpudoctor.explain.knowledge import load_knowledge

SITE = "/opt/conda/lib/python3.10/site-packages/"
USER = ("/home/u/train.py", 30, "<module>", "trainer = build(cfg)")
ENV_FIX = "install it in the environment every node uses (the same venv/conda path on all nodes), or make the " \
          "launcher use that python"


def _tb(frames, exc):
    s = "Traceback (most recent call last):\n"
    for f, n, fn, src in frames:
        s += '  File "%s", line %d, in %s\n    %s\n' % (f, n, fn, src)
    return s + exc + "\n"


def _integration(exc):
    return _tb([USER, (SITE + "transformers/integrations/integration_utils.py", 300, "setup", "raise RuntimeError(msg)")],
               exc)


def _first(text, kb=None):
    return explain.explain_text(text, kb=kb)["findings"][0]


def _medium(exc, pkg):
    return "How sure: medium. No known message matched; the family is read from the text's shape (%s says the " \
           "package %s is not installed), which names where the error was raised, not a cluster cause." % (exc, pkg)


def _install(what):
    return "pip install %s in the job's environment, or stop asking for it (the setting that names it)" % what


@pytest.mark.parametrize("msg,pkg,fix", [
    # the message's pip command as given, its extras quoted for the shell and the sentence's full stop left out
    ("RayTuneCallback requires ray to be installed. Run pip install ray[tune].", "ray", "'ray[tune]'"),
    # a distribution no wheel table knows (PaddleX): the message's own command, its upper-case X kept
    ("PaddleCallback requires PaddleX to be installed. Run pip install PaddleX.", "PaddleX", "PaddleX"),
    # no pip command: the distribution of the import package
    ("TensorBoardCallback requires tensorboard to be installed. Either update your PyTorch version or install "
     "tensorboardX.", "tensorboard", "tensorboard"),
])
def test_a_library_says_a_package_is_not_installed(msg, pkg, fix):
    f = _first(_integration("RuntimeError: " + msg))
    assert f["id"] == "code.python_env"
    assert f["notes"][:2] == [_medium("RuntimeError", pkg),
                              "transformers needs %s and it is not installed in the environment the job ran in (or a "
                              "setting of yours asked for it: a logger, a backend, an integration)." % pkg]
    assert [c["fix"] for c in f["causes"]][1] == [_install(fix), ENV_FIX]


def test_requires_backends_for_a_package_no_wheel_table_knows():
    # transformers' requires_backends form names the library itself; essentia is no wheel of generated/wheel_packages
    f = _first(_tb([USER, (SITE + "transformers/utils/import_utils.py", 1405, "requires_backends",
                           "raise ImportError(msg)")],
                   "ImportError: Pop2PianoFeatureExtractor requires the essentia library but it was not found in your "
                   "environment. You can install it with pip."))
    assert f["id"] == "code.python_env" and f["notes"][0] == _medium("ImportError", "essentia")
    assert [c["fix"] for c in f["causes"]][1] == [_install("essentia"), ENV_FIX]


def test_the_users_own_code_says_a_package_is_not_installed():
    f = _first(_tb([USER, ("/home/u/loggers.py", 12, "setup", "raise RuntimeError(msg)")],
                   "RuntimeError: the logger requires wandb to be installed. Run pip install wandb"))
    assert f["notes"][1] == "The code needs wandb and it is not installed in the environment the job ran in (or a " \
                            "setting of yours asked for it: a logger, a backend, an integration)."


def test_without_the_environment_entry_the_message_is_the_librarys():
    kb = load_knowledge()
    kb2 = copy.copy(kb)
    kb2.by_id = {k: v for k, v in kb.by_id.items() if k != "code.python_env"}
    f = _first(_integration("RuntimeError: RayTuneCallback requires ray to be installed. Run pip install ray[tune]."),
               kb2)
    assert f["id"] == "transformers.library_error", f["id"]


def test_an_import_error_without_a_package_is_read_by_its_type():
    f = _first(_tb([("/home/u/run.py", 8, "<module>", "import foo"),
                    (SITE + "transformers/utils/import_utils.py", 1405, "requires_backends",
                     'raise ImportError("".join(failed))')], "ImportError: \nFlaxAutoModel needs the FLAX library."))
    assert f["id"] == "code.python_env"
    assert f["notes"][0] == "How sure: low. No known message matched; the family is read from the log's shape (the " \
                            "exception type ImportError). Confirm it with the commands below before acting."


def test_an_import_error_that_names_the_package_is_not_read_by_its_type():
    f = _first(_tb([USER, (SITE + "transformers/utils/import_utils.py", 1405, "requires_backends",
                           "raise ImportError(msg)")],
                   "ImportError: AutoProcessor requires the essentia library but it was not found in your environment."))
    assert f["notes"][0] == _medium("ImportError", "essentia")


def test_the_library_error_fix_names_the_distribution():
    # python -m: runpy's frame, no frame of the user's
    f = _first(_tb([("/usr/lib/python3.10/runpy.py", 196, "_run_module_as_main", "return _run_code(code)"),
                    (SITE + "sklearn/utils/_param_validation.py", 95, "validate_parameter_constraints",
                     "raise InvalidParameterError(")],
                   "sklearn.utils._param_validation.InvalidParameterError: The 'n_estimators' parameter of "
                   "RandomForestClassifier must be an int in the range [1, inf). Got 0 instead."))
    assert f["id"] == "code.library_error"
    assert f["causes"][0]["fix"][0] == "read the message of sklearn on the line above and change the call or its " \
                                       "configuration; check the version of scikit-learn against torch's (pip show " \
                                       "scikit-learn)"
    # the user's frame named; a library that is its own distribution: pip list
    f = _first(_tb([USER, (SITE + "tabula/io.py", 80, "_run", "raise RuntimeError(msg)")],
                   "RuntimeError: tabula requires Java to be installed."))
    assert f["causes"][0]["fix"][0] == "read the message of tabula on the line above and change the call (called " \
                                       "from your /home/u/train.py, line 30) or its configuration; check the version " \
                                       "of tabula against torch's (pip list)"


def test_logged_record_reads_300_characters_and_needs_words():
    top = dict(frames=[("/w/train.py", 40, "<module>")])
    head = "W1127 10:00:00.123456 1234 /"
    pad = 300 - len(head) - len("utils.py:2134")
    rec = head + "d" * (pad % 2) + "d/" * (pad // 2) + "utils.py:2134] checkpoint upload failed"
    assert rec.index("]") == 300  # the file and line end at character 300: the ']' after them is not read
    assert pyanswer._logged_record(rec, top) is True
    assert pyanswer._logged_record(rec[:299] + rec[301:], top) is False  # within 300: another file's record
    assert pyanswer._logged_record("W1127 10:00:00.123456 1234 utils.py:12] 12", None) is False  # the header alone
