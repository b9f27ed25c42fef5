"""A DeepSpeed JSON config joined to a plan: precision and the batch arithmetic (configs.ds_batch),
judged at the plan's world size once it is known (finish())."""

import os

from gpudoctor.launch import configs


def read_ds_config(plan, path):
    doc = configs.load_json(os.path.expanduser(path))
    plan.add_config_values(doc)
    plan.sources.append("DeepSpeed config %s" % path)
    plan.ds_config = path
    plan.add_file(os.path.expanduser(path))
    plan.ds_bf16, plan.ds_fp16 = configs.ds_precision(doc, path)
    plan._ds_doc = doc  # judged in finish(), once the world size is known
    train, micro, gas, _ = configs.ds_batch(doc, None, path)
    plan.batch.train_batch_size = None if train == "auto" else train
    plan.batch.micro_batch_per_gpu = None if micro == "auto" else micro
    plan.batch.gradient_accumulation_steps = None if gas == "auto" else gas
    if plan.ds_bf16:
        plan.precision = "bf16"
    elif plan.ds_fp16:
        plan.precision = "fp16"
    return plan


def finish(plan):
    doc = getattr(plan, "_ds_doc", None)
    if doc is None:
        return plan
    ws = plan.world_size()
    train, micro, gas, err = configs.ds_batch(doc, ws, plan.ds_config)
    auto = "auto" in (train, micro, gas)
    plan.batch.train_batch_size = None if train == "auto" else train
    plan.batch.micro_batch_per_gpu = None if micro == "auto" else micro
    plan.batch.gradient_accumulation_steps = None if gas == "auto" else gas
    if auto:
        plan.note("DeepSpeed batch values are \"auto\": the HF Trainer fills them in, not judged here")
    elif ws is None:
        plan.note("the world size is not known here: DeepSpeed's batch arithmetic not judged")
    else:
        plan.batch.ok = err is None
        plan.batch.error = err
    return plan
