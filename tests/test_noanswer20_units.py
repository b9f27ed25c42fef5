"""scalefloor.py (noanswer20: DeepSpeed's fp16 loss scaler at its floor) asserted whole (mutation round 15,
docs/mutation.md): the cause, its confirm and fix lines, the note and the why; which overflow line is the last; a
scale that came back up and fell again; a loss log line between the floor lines.

The lines are DeepSpeed's DynamicLossScaler.update_scale log (deepspeed/runtime/fp16/loss_scaler.py, https://github.
com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/fp16/loss_scaler.py): 'OVERFLOW! Rank 0 Skipping step.
Attempted loss scale: <cur>, reducing to <next>' with next = max(cur / factor, min_scale); after scale_window good
steps the scaler doubles the scale (1 -> 2), so a run at its floor can print '2, reducing to 1' and then '1, reducing
to 1' again; the HF Trainer logs "{'loss': ...}" every logging_steps whether the step was skipped or not."""

from gpudoctor import explain
from explainhelp import ANSWERED

L = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %s, reducing to %s\n"
LOSS = "{'loss': 0.0, 'learning_rate': 1e-05, 'epoch': 0.01}\n"

CAUSE = {
    "text": "fp16 overflows at DeepSpeed's minimum loss scale (1): the loss or the gradients are inf / NaN in fp16 "
            "whatever the scale, so every step is skipped.",
    "checks": [],
    "confirm": ["the loss printed each step before backward (inf / nan), and the config's fp16 section (loss_scale 0 "
                "= dynamic, initial_scale_power, min_loss_scale)"],
    "fix": ["train in bf16 where the GPU has it (Ampere or newer): \"bf16\": {\"enabled\": true} instead of \"fp16\" "
            "in the DeepSpeed config (--bf16 with the HF Trainer); a model pretrained in bf16 often overflows in fp16",
            "the transformers debugging guide for this log: a higher initial_scale_power in the fp16 section "
            "(\"initial_scale_power\": 32 'usually works'), https://huggingface.co/docs/transformers/debugging",
            "lower the learning rate, or find the input / layer that makes the loss inf (torch.autograd."
            "set_detect_anomaly(True) for one step)"],
    "exports": {}, "evidence": [], "static_rank": 0, "computed": None}
NOTE = ("DeepSpeed halves the loss scale at each overflow down to min_loss_scale (default 1); an overflow that cannot "
        "reduce it any more (the same number twice) means the gradients are inf / NaN even unscaled, and DeepSpeed "
        "skips that step: the run goes on without training. Next: where the loss first becomes inf / NaN (print it "
        "before backward), and whether the model was trained in bf16 (its activations can exceed fp16's 65504).")


def _floor_root(text):
    r = explain.explain_text(text)
    assert r["verdict"] in ANSWERED, r["verdict"]
    f = r["findings"][0]
    assert f["id"] == "torch.loss_nan" and f["confidence"] == "structural"
    return f


def test_the_floor_after_the_scale_came_back_up_with_loss_lines_between():
    # a warm-up halving, the floor, a Trainer loss line, the scale doubled after a window and halved again, the floor:
    # the lines at the last line's scale count (2), the last one ends the text
    f = _floor_root(L % (65536, 32768) + L % (1, 1) + LOSS + L % (2, 1) + L % (1, 1))
    assert f["causes"][0] == CAUSE
    assert f["matches"][0]["line"] == 5 and f["matches"][0]["text"] == (L % (1, 1)).strip()
    assert f["notes"][0] == ("How sure: low. No known message matched; the family is read from the log's shape "
                             "(DeepSpeed's fp16 loss scaler at its floor: 'Attempted loss scale: 1, reducing to 1', 2 "
                             "times, the last lines of the text). Confirm it with the commands below before acting.")
    assert f["notes"][1] == NOTE


def test_the_scale_named_is_the_floor_s_own():
    f = _floor_root(L % (2, 2) + L % (2, 2) + L % (2, 2) + "  15%|███       | 28/189 [00:14<01:13,  2.18it/s]\n")
    assert f["causes"][0]["text"].startswith("fp16 overflows at DeepSpeed's minimum loss scale (2): ")
    assert "'Attempted loss scale: 2, reducing to 2', 3 times," in f["notes"][0]
    assert f["matches"][0]["line"] == 3  # the last floor line is the finding's line


def test_a_loss_line_before_the_last_floor_line_does_not_stop_the_reading():
    # the Trainer logs its loss between skipped steps; only what follows the last overflow line decides
    f = _floor_root(L % (1, 1) + L % (1, 1) + LOSS + L % (1, 1))
    assert f["matches"][0]["line"] == 4 and "3 times" in f["notes"][0]


def test_a_floor_line_before_the_last_one_is_not_the_end():
    # the last overflow line is not at the floor (the scale went up after it): not read, whatever came before
    r = explain.explain_text(L % (1, 1) + L % (1, 1) + L % (2, 1))
    assert r["verdict"] == "no_error", r["findings"][:1]


def test_floor_lines_past_the_read_tail_do_not_break_the_answer():
    # the floor, then 450 progress-bar lines: the tail summary holds the last 400 lines (hang.summarize_tail), so the
    # last overflow line is not in it and the reading is not made; explain still answers
    bars = "".join("  %d%%|██| %d/450 [00:%02d<00:10, 2.18it/s]\n" % (i * 100 // 450, i, i % 60) for i in range(450))
    r = explain.explain_text(L % (1, 1) * 3 + bars)
    assert r["verdict"] == "no_error" and not r["findings"]
