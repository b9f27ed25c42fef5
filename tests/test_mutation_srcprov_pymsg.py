"""srcprov.py_message_finding, the parts mutation round 17 found unasserted (docs/mutation.md): torch's messages read
by their subpackage's family area (provenance.torch_area), a line of a run that went on past it, and a second line
after one that gives no family. The messages are the library's own (generated/py_messages.json: torch 2.13.0's
torch/amp/grad_scaler.py, torch/_dynamo/pgo.py; DeepSpeed's deepspeed/runtime/fp16/loss_scaler.py)."""

from gpudoctor import explain

LOW = ("How sure: low. No known message matched; the family is read from the log's shape (%s). Confirm it with the "
       "commands below before acting.")
AMP = "RuntimeError: _scale should not be none after lazy init\n"          # torch/amp: the torch area
DYNAMO = "RuntimeError: _code_state must be initialized before reading extra remote code state\n"   # the compile area
DS = "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n"
STEP = "step 10 loss 2.31\n"


def _answer(text):
    r = explain.explain_text(text)
    return r["verdict"], [(f["id"], f["notes"][:2]) for f in r["findings"]]


def _torch(words):
    return ("torch.library_error", [
        LOW % "its words are a message torch's own code raises (torch/amp/grad_scaler.py, %d words)" % words,
        "The line's words are torch's own message (torch/amp/grad_scaler.py): torch printed it, though the line keeps "
        "no traceback. The message is in every torch release read (2.13.0). The whole traceback (or the log lines "
        "before it) names the call that met it."])


def _deepspeed():
    return ("deepspeed.library_error", [
        LOW % "its words are a message deepspeed's own code raises (deepspeed/runtime/fp16/loss_scaler.py, 13 words)",
        "The line's words are deepspeed's own message (deepspeed/runtime/fp16/loss_scaler.py): deepspeed printed it, "
        "though the line keeps no traceback. The message is in every deepspeed release read (0.12.0, 0.14.0, 0.16.0, "
        "0.19.0). The whole traceback (or the log lines before it) names the call that met it."])


def test_a_torch_message_takes_its_subpackage_s_family():
    assert _answer(AMP) == ("likely_cause", [_torch(8)])


def test_a_torch_message_of_an_area_with_no_family_is_not_answered_as_torch_s():
    # torch/_dynamo's sites are the compile families' (provenance.torch_area), which have no library_error / usage
    # entry: not torch.library_error
    # entry: not torch.library_error (struct23: the builtin RuntimeError alone is then lastresort's likely
    # code.library_error, How sure: low)
    verdict, found = _answer(DYNAMO)
    assert (verdict, [f[0] for f in found]) == ("likely_cause", ["code.library_error"])
    assert "the exception RuntimeError alone" in found[0][1][0]


def test_a_second_line_is_read_after_one_with_no_family():
    assert _answer(DYNAMO + DS) == ("likely_cause", [_deepspeed()])


def test_the_first_line_with_a_family_answers():
    assert _answer(DS + AMP) == ("likely_cause", [_deepspeed()])


def test_a_line_the_run_went_on_past_is_not_the_answer():
    assert _answer(AMP + STEP + STEP) == ("unknown_error", [])        # two progress lines after it
    assert _answer(AMP + STEP + STEP + DS) == ("likely_cause", [_deepspeed()])
    assert _answer(AMP + STEP) == ("likely_cause", [_torch(8)])       # one is not enough


def test_a_message_the_library_logs_at_error_level():
    # deepspeed/autotuning/utils.py logs it (logger.error), it raises nothing
    assert _answer("[ERROR] hostfile contains duplicate hosts, unable to proceed with training\n") == (
        "likely_cause", [("deepspeed.library_error", [
            LOW % "its words are a message deepspeed's own code logs at error (deepspeed/autotuning/utils.py, 9 words)",
            "The line's words are deepspeed's own message (deepspeed/autotuning/utils.py): deepspeed printed it, "
            "though the line keeps no traceback. The message is in every deepspeed release read (0.12.0, 0.14.0, "
            "0.16.0, 0.19.0). The whole traceback (or the log lines before it) names the call that met it."])])
