"""family17's readers one at a time (mutation17, docs/mutation.md "Round 12"): pyanswer._outermost (the uncaught
traceback's top-level frame), _logged_record with a traceback (a record naming another file than that frame is not
the traceback's carrier), _a_wheel (a wheel's import package or distribution, any case). Records in logging's and
DeepSpeed's formats ('[%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s'); the whole paths are
tests/test_explain_family17.py's."""

from gpudoctor.explain import pyanswer

REC = "[WARNING] [train.py:12:main] checkpoint upload failed, retrying"


def _tb(*frames, **kw):
    return dict(frames=list(frames), **kw)


def test_outermost_is_the_top_level_frame_of_a_whole_traceback():
    top, inner = ("/w/train.py", 40, "<module>"), ("/w/utils.py", 12, "upload")
    assert pyanswer._outermost(_tb(top, inner)) == "/w/train.py"
    assert pyanswer._outermost(_tb(inner, outer=[top])) == "/w/train.py"  # the outer frames come first
    assert pyanswer._outermost(_tb(("/usr/lib/python3.11/runpy.py", 198, "_run_module_as_main"), top)) == \
        "/usr/lib/python3.11/runpy.py"  # python -m
    assert pyanswer._outermost(_tb(inner, top)) is None  # a helper's frame first: a logged traceback's
    assert pyanswer._outermost(_tb(top, inner, nframes=5)) is None  # frames left out of the text
    assert pyanswer._outermost(_tb(top, inner, nframes=2)) == "/w/train.py"
    assert pyanswer._outermost(_tb()) is None


def test_logged_record_with_its_traceback():
    top = ("/w/train.py", 40, "<module>")
    assert pyanswer._logged_record(REC, _tb(top)) is True  # the record names the top frame's file
    assert pyanswer._logged_record(REC, _tb(("C:\\w\\train.py", 40, "<module>"))) is True
    assert pyanswer._logged_record(REC, _tb(("/w/other.py", 40, "<module>"))) is False  # before an uncaught one
    assert pyanswer._logged_record(REC.replace("[train.py:12:main] ", ""), _tb(top)) is True  # no file named
    assert pyanswer._logged_record(REC, _tb(("/w/utils.py", 3, "helper"))) is True  # no top level: not told apart
    assert pyanswer._logged_record(REC.replace("WARNING", "INFO"), _tb(top)) is False  # not a warning
    assert pyanswer._logged_record("Warning: foo bar", None) is False  # no level as logging writes it


def test_a_wheel_by_import_package_or_distribution_in_any_case():
    assert pyanswer._a_wheel("sklearn") and pyanswer._a_wheel("scikit-learn") and pyanswer._a_wheel("Scikit-Learn")
    assert not pyanswer._a_wheel("Java") and not pyanswer._a_wheel("ffmpeg")


def test_a_package_not_installed_said_whole():
    # P25's transformers WandbCallback text (bench/data/explain_heldout_2026-11-27p25.jsonl)
    import json
    import os

    from gpudoctor import explain

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "data",
                        "explain_heldout_2026-11-27p25.jsonl")
    with open(path, encoding="utf-8") as f:
        text = next(c["text"] for c in map(json.loads, filter(str.strip, f))
                    if c["id"] == "p25-hf_report_to_wandb_not_installed")
    f = explain.explain_text(text)["findings"][0]
    assert f["id"] == "code.python_env"
    assert f["notes"][:2] == [
        "How sure: medium. No known message matched; the family is read from the text's shape (RuntimeError says the "
        "package wandb is not installed), which names where the error was raised, not a cluster cause.",
        "transformers needs wandb and it is not installed in the environment the job ran in (or a setting of yours "
        "asked for it: a logger, a backend, an integration)."]
