"""DeepSpeed's batch arithmetic, computed from its own message (computed fix `ds_batch`).

deepspeed/runtime/config.py _batch_assertion() asserts

    train_batch == micro_batch * grad_acc * self.world_size,
        "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
        "gradient_acc_step * world_size {train_batch} != {micro_batch} * {grad_acc} * {world_size}"

so the message carries the four numbers of this run. The values that satisfy it with this run's world
size are computed here: the train_batch_size the other two give, or the micro batch / gradient
accumulation that keeps train_batch_size.
"""

import re

_NUMS = re.compile(r"world_size\s{0,4}(\d{1,9})\s{0,4}!=\s{0,4}(\d{1,9})\s{0,4}\*\s{0,4}(\d{1,9})\s{0,4}\*\s{0,4}(\d{1,9})")


def ds_batch(texts):
    """(fix line, why) from the numbers of DeepSpeed's batch assertion, or None."""
    for t in texts:
        m = _NUMS.search(" ".join(t.split()))  # a message wrapped over lines (rich's traceback) joined
        if not m:
            continue
        tb, mb, ga, ws = (int(x) for x in m.groups())
        if min(mb, ga, ws) <= 0:
            return None
        ways = ["train_batch_size %d (= %d * %d * %d)" % (mb * ga * ws, mb, ga, ws)]
        if tb % (mb * ws) == 0 and tb // (mb * ws) > 0:
            ways.append("gradient_accumulation_steps %d (keeps train_batch_size %d)" % (tb // (mb * ws), tb))
        if tb % (ga * ws) == 0 and tb // (ga * ws) > 0:
            ways.append("train_micro_batch_size_per_gpu %d (keeps train_batch_size %d)" % (tb // (ga * ws), tb))
        line = "for this run's %d rank%s set %s" % (ws, "" if ws == 1 else "s", ", or ".join(ways))
        if tb % ws:
            line += "; %d is not a multiple of the world size %d, so no micro batch and accumulation reach it" % (tb, ws)
        why = "the message: train_batch_size %d != micro batch %d * gradient accumulation %d * world size %d" % (
            tb, mb, ga, ws)
        return line, why
    return None


# A key of the DeepSpeed config that its pydantic model does not accept: DeepSpeedConfigModel
# (deepspeed/runtime/config_utils.py) forbids extra keys, and pydantic 2 prints the key on the line after
# "N validation error(s) for <Model>", then "Extra inputs are not permitted [type=extra_forbidden, ...]"
# (https://docs.pydantic.dev/latest/errors/validation_errors/#extra_forbidden). The knowledge's two-line pattern
# (trainer.toml, deepspeed.config) captures the model (dscls) and the key (dsfield); the model's accepted keys come
# from DeepSpeed's source (generated/ds_config_fields.json, tools/gen_ds_config_fields.py).
MAX_CLOSE = 3


def ds_field(hits):
    """(fix line, why) naming the closest keys the model accepts for the key it refused, or None. ``hits``: the
    finding's scan hits (their named groups dscls / dsfield)."""
    import difflib

    from gpudoctor.explain.knowledge import generated_table

    tb = generated_table("ds_config_fields") or {}
    models = tb.get("models") or {}
    for h in hits or ():
        g = getattr(h, "groups", None) or {}
        cls, key = g.get("dscls"), g.get("dsfield")
        model = models.get(cls) if isinstance(cls, str) else None
        if not model or not isinstance(key, str) or not key:
            continue
        parts = key.split(".")
        for part in parts[:-1]:  # offload_optimizer.pin_memroy: the nested section's model
            sub = (model.get("nested") or {}).get(part)
            if not isinstance(sub, str) or sub not in models:
                break
            cls, model = sub, models[sub]
        leaf = parts[-1]
        keys = [k for k in model.get("keys") or () if isinstance(k, str)]
        if leaf in keys:  # a key the model knows (another error on it): not this question
            return None
        close = difflib.get_close_matches(leaf, keys, n=MAX_CLOSE, cutoff=0.6)
        version = tb.get("deepspeed") or "?"
        why = "%s accepts %d keys in deepspeed %s (tools/gen_ds_config_fields.py, from its pydantic model)" % (
            cls, len(keys), version)
        if close:
            line = "in the DeepSpeed config, %s: %s is no key of %s: did you mean %s? (rename it; a key of " \
                   "another DeepSpeed release: pip show deepspeed)" % (key, leaf, cls, " or ".join(close))
        else:
            line = "in the DeepSpeed config, %s: %s is no key of %s; the keys it takes: %s" % (
                key, leaf, cls, ", ".join(keys[:24]) + (" ..." if len(keys) > 24 else ""))
        return line, why
    return None
