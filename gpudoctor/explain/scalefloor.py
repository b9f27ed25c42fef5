"""DeepSpeed's fp16 loss scaler stuck at its floor (noanswer20, issue 18 item 2): every step overflows and is skipped,
the run goes on without training, and no line says it failed.

DeepSpeed's DynamicLossScaler (deepspeed/runtime/fp16/loss_scaler.py update_scale, https://github.com/deepspeedai/
DeepSpeed/blob/master/deepspeed/runtime/fp16/loss_scaler.py) logs each overflow as '[deepspeed] OVERFLOW! Rank 0
Skipping step. Attempted loss scale: <cur>, reducing to <next>' ('[deepscale]' before 2021) with next_scale =
max(cur_scale / scale_factor, min_scale): the two numbers are equal when the scale already is at min_loss_scale
(default 1, deepspeed/runtime/constants.py FP16_MIN_LOSS_SCALE_DEFAULT) and cannot go lower (with
raise_error_at_min_scale it raises 'Current loss scale already at minimum' instead). An overflow at the floor means
the gradients overflow fp16 even unscaled - the loss or activations are inf / NaN - and every such step is skipped.

Older releases also printed a hysteresis step with two equal numbers: hits() counts only the lines at the last
line's scale (review20). Read when the text's last overflow lines are at the floor (twice or more) and nothing but
overflow lines and progress bars follows them (a run whose scale recovered, or that went on to log losses, is not
read); a warm-up's overflows (65536 -> 32768) never are. The answer is torch.loss_nan (How sure: low) with
DeepSpeed's and the transformers debugging guide's remedies (https://huggingface.co/docs/transformers/debugging: "the
loss scaler couldn't find a scaling coefficient ... Try a higher initial_scale_power value (32 usually works)"),
bf16 first where the GPU has it.
"""

import re

PATTERNS = {"_struct_ex_scalefloor": [
    (r"\[(?:deepspeed|deepscale)\] OVERFLOW! Rank \d{1,6} Skipping step\. Attempted loss scale: (?P<cur>\d{1,12}"
     r"(?:\.\d{1,8})?), reducing to (?P<next>\d{1,12}(?:\.\d{1,8})?)", ["overflow!rank"])]}
FLOOR_LINES = 2  # overflow lines at the floor the text must have
# what may follow the last one: more overflow lines, tqdm's bars ('15%|███ | 28/189 [00:14<01:13, 2.18it/s]'), an
# ellipsis a paste left, blank lines
_TRAIL = re.compile(r"^\s*(?:\d{1,3}%\|[^\n]{0,400}|\[(?:\.\.\.|…)\]|\.\.\.|…|`{3})?\s*$")
_OVERFLOW = re.compile(r"\[(?:deepspeed|deepscale)\] OVERFLOW! ")


def _floor(h):
    try:
        return float(h.groups.get("cur")) == float(h.groups.get("next"))
    except (TypeError, ValueError):
        return False


def hits(scan):
    """The floor's overflow lines when the text ends in them; [] else."""
    got = scan.matches.get("_struct_ex_scalefloor") or []
    if not got or not _floor(got[-1]):
        return []
    # (review20) the floor is one number: an equal pair at another scale is a hysteresis step of DeepSpeed releases
    # that logged 'Attempted loss scale: 262144, reducing to 262144' while consuming hysteresis (the transformers
    # DeepSpeed guide's log shows it at the top of a run), not the minimum
    floor = [h for h in got if _floor(h) and float(h.groups.get("cur")) == float(got[-1].groups.get("cur"))]
    if len(floor) < FLOOR_LINES:
        return []
    from gpudoctor.explain.hang import _tails

    last = got[-1]
    tail = next((t for t in _tails(scan) if any(ln == last.line for ln, _ in t.get("user") or ())), None)
    if tail is None:
        return []
    for ln, text in tail["user"]:
        if ln > last.line and not (_OVERFLOW.search(text) or _TRAIL.match(text)):
            return []
    return floor


def finding(scan, kb, structural_finding):
    floor = hits(scan)
    by = kb.by_id
    if not floor or "torch.loss_nan" not in by:
        return None
    h = floor[-1]
    scale = h.groups.get("cur")
    f = structural_finding(by["torch.loss_nan"], h, "DeepSpeed's fp16 loss scaler at its floor: 'Attempted loss "
                           "scale: %s, reducing to %s', %d times, the last lines of the text" % (
                               scale, h.groups.get("next"), len(floor)), scan)
    f["notes"].append("DeepSpeed halves the loss scale at each overflow down to min_loss_scale (default 1); an "
                      "overflow that cannot reduce it any more (the same number twice) means the gradients are inf / "
                      "NaN even unscaled, and DeepSpeed skips that step: the run goes on without training. Next: "
                      "where the loss first becomes inf / NaN (print it before backward), and whether the model was "
                      "trained in bf16 (its activations can exceed fp16's 65504).")
    f["causes"].insert(0, {
        "text": "fp16 overflows at DeepSpeed's minimum loss scale (%s): the loss or the gradients are inf / NaN in "
                "fp16 whatever the scale, so every step is skipped." % scale,
        "checks": [], "confirm": ["the loss printed each step before backward (inf / nan), and the config's fp16 "
                                  "section (loss_scale 0 = dynamic, initial_scale_power, min_loss_scale)"],
        "fix": ["train in bf16 where the GPU has it (Ampere or newer): \"bf16\": {\"enabled\": true} instead of "
                "\"fp16\" in the DeepSpeed config (--bf16 with the HF Trainer); a model pretrained in bf16 often "
                "overflows in fp16",
                "the transformers debugging guide for this log: a higher initial_scale_power in the fp16 section "
                "(\"initial_scale_power\": 32 'usually works'), https://huggingface.co/docs/transformers/debugging",
                "lower the learning rate, or find the input / layer that makes the loss inf (torch.autograd."
                "set_detect_anomaly(True) for one step)"],
        "exports": {}, "evidence": [], "static_rank": 0, "computed": None})
    return f
