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
