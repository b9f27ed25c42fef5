"""srcprov.py_message_finding (pymsg19) asserted whole (mutation round 15, docs/mutation.md): the why, the note and
the upgrade line of the answer for a Python library's message pasted without its traceback, on the two messages
test_explain_pymsg19.py reads (DeepSpeed's loss scaler, deepspeed/runtime/fp16/loss_scaler.py; vLLM 0.5.4 / 0.6.3's
vllm/engine/arg_utils.py, quoted by sbintuitions/flexeval#76)."""

from gpudoctor import explain

LOW = ("How sure: low. No known message matched; the family is read from the log's shape (%s). Confirm it with the "
       "commands below before acting.")


def test_a_message_of_every_release_read():
    f = explain.explain_text("Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
                             "Exiting run.\n")["findings"][0]
    assert f["id"] == "deepspeed.library_error"
    assert f["notes"][:2] == [
        LOW % "its words are a message deepspeed's own code raises (deepspeed/runtime/fp16/loss_scaler.py, 13 words)",
        "The line's words are deepspeed's own message (deepspeed/runtime/fp16/loss_scaler.py): deepspeed printed it, "
        "though the line keeps no traceback. The message is in every deepspeed release read (0.12.0, 0.14.0, 0.16.0, "
        "0.19.0). The whole traceback (or the log lines before it) names the call that met it."]
    assert not any(x.startswith("upgrade ") for c in f["causes"] for x in c["fix"])


def test_a_message_of_older_releases_gets_the_upgrade_last():
    f = explain.explain_text("ValueError: Chunked prefill is not supported with sliding window. Set "
                             "--disable-sliding-window to disable sliding window.")["findings"][0]
    assert f["id"] == "vllm.library_error"
    assert f["notes"][:2] == [
        LOW % "its words are a message vllm's own code raises (vllm/engine/arg_utils.py, 14 words)",
        "The line's words are vllm's own message (vllm/engine/arg_utils.py): vllm printed it, though the line keeps "
        "no traceback. The message is in vllm 0.5.4, 0.6.3 of the releases read (0.5.4, 0.6.3, 0.8.5, 0.10.2, "
        "0.33.0); not in 0.8.5 and later. The whole traceback (or the log lines before it) names the call that met "
        "it."]
    assert [x for c in f["causes"] for x in c["fix"] if x.startswith("upgrade ")] == [
        "upgrade vllm: the message is from an older release (0.5.4, 0.6.3); the newest read, vllm 0.33.0, no longer "
        "prints it - pip install -U vllm (pip show vllm names the installed release)"]
