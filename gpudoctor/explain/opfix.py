"""The operation, the values and the user's line an error names, read into the concrete fix (issue 18 "names the
fix", explain-fix23).

Where explain already has the right family for an error of the user's code or data, the family's causes are
generic ("a tensor was left on the CPU"); the message itself says more: which argument of which operator is on
which device, which class index the loss refused, which count came out -1. Each reader below takes one such
message, tells its documented causes apart by what the message, the traceback's frames and the user's own source
line show, and puts the concrete edit first, worded as a user applies it. A reading becomes the root's first cause
with the message's line as its evidence; the family's other causes follow as the alternatives. The root, its
family and its verdict never change here.

1. Tensors on two devices (c10::impl::common_device_check_failure, aten/src/ATen/core/adaption.cpp,
   https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/core/adaption.cpp): "Expected all tensors to be on
   the same device, but got <arg> is on <device>, different from other tensors on <device> (when checking argument
   in method <method>)"; before torch 2.1 "... but found at least two devices, <common> and <arg's device>! (when
   checking argument for argument <arg> in method <method>)" (1.x spelled it "arugment"). The argument and the
   operator say which object is on the wrong device: a loss's target is the labels, an index / indices the ids of
   an embedding or gather, mat1 / input / self the batch, weight / mat2 / bias a module's parameters (a loss's
   weight its class weights); a frame in torchmetrics is a metric's state; two GPUs in one rank's process are a
   device taken before torch.cuda.set_device(local_rank) (https://pytorch.org/docs/stable/notes/cuda.html,
   "cuda:0 is the current device unless set_device").
2. A class index the loss refused: aten/src/ATen/native/LossNLL.cpp checks every target, "Target <t> is out of
   bounds." (CPU); the CUDA kernels assert `t >= 0 && t < n_classes` (cuda/Loss.cu) and `cur_target >= 0 &&
   cur_target < n_classes` (cuda/NLLLoss2d.cu). torch.nn.NLLLoss / CrossEntropyLoss: "each element in target has
   to have 0 <= value < C" (https://pytorch.org/docs/stable/generated/torch.nn.CrossEntropyLoss.html). A negative
   target is a padding / no-label value other than ignore_index (-100); a target >= C is a model built with fewer
   outputs than the data has classes (a transformers model's config num_labels, 2 by default:
   https://huggingface.co/docs/transformers/main_classes/configuration), or labels counted from 1.
3. -1 from a process group the rank is not in: torch.distributed.get_rank(group) and get_world_size(group) return
   -1 on a rank that is not a member of group (torch/distributed/distributed_c10d.py: "-1, if not part of the
   group"); a count or size of -1 under a distributed run, on a line that uses a rank or a group's size, is that
   value (chunk(-1): "chunk expects `chunks` to be greater than 0, got: -1").
"""

import re

from gpudoctor.explain import userline

_DEV = r"(?:cpu|cuda|mps|xpu|meta|hpu|npu|privateuseone)(?::\d{1,3})?"
_DEV_NEW = re.compile(r"Expected all tensors to be on the same device, but got (\w{1,40}) is on (" + _DEV +
                      r"), different from other tensors on (" + _DEV + r") \(when checking argument in method "
                      r"(\w{1,160})\)")
_DEV_OLD = re.compile(r"Expected all tensors to be on the same (?:common )?device, but found at least two devices, ("
                      + _DEV + r") and (" + _DEV + r")! ?(?:\(when checking ar(?:gu|ug)ment for argument (\w{1,40}) "
                      r"in method (\w{1,160})\))?")
_LOSS_METHOD = re.compile(r"(?i)nll_loss|cross_entropy|mse_loss|l1_loss|binary_cross_entropy|smooth_l1|huber|kl_div|"
                          r"ctc_loss|margin|hinge|soft_margin|cosine_embedding|poisson_nll|triplet")
_LABEL_ARGS = {"target", "targets", "label", "labels", "y"}
_INDEX_ARGS = {"index", "indices", "indexes", "idx"}
_PARAM_ARGS = {"weight", "mat2", "bias", "running_mean", "running_var", "weight_ih", "weight_hh", "bias_ih",
               "bias_hh", "vec2"}
# the names a line gives the labels, the ids and the batch (the words of torch's and transformers' own examples)
_LABEL_NAME = re.compile(r"(?i)^(?:\w{0,20}_)?(?:labels?|targets?|y|gt|truth|classes)(?:_\w{0,20})?$")
_IDS_NAME = re.compile(r"(?i)^(?:\w{0,20}_)?(?:ids|idx|index|indices|tokens?|input_ids)(?:_\w{0,20})?$")
_NAME = re.compile(r"[A-Za-z_][\w.]{0,80}")
_RANKED = re.compile(r"(?i)\blocal_rank\b|\bLOCAL_RANK\b|torchrun|torch[./]distributed|DistributedDataParallel|"
                     r"init_process_group|\[rank\d{1,5}\]|\[default\d{1,4}\]")


def _dev_kind(d):
    return d.split(":", 1)[0]


def _device_msg(text):
    """(arg, arg's device, the others' device, method) of ATen's device check, or None."""
    m = _DEV_NEW.search(text)
    if m:
        return m.group(1), m.group(2), m.group(3), m.group(4)
    m = _DEV_OLD.search(text)
    if m:
        return (m.group(3) or "", m.group(2), m.group(1), m.group(4) or "")
    return None


def _keyword_arg(src, key):
    """The plain name the line passes as keyword `key` (`bias=b`), or None."""
    m = re.search(r"(?<![\w.])%s\s{0,3}=\s{0,3}([A-Za-z_][\w.]{0,80})\s{0,3}[,)]" % re.escape(key), src)
    return userline.ident(m.group(1), None) if m else None


def _args_of_call(src):
    """The plain-name arguments of the line's outermost call and the name it calls: ([names], callee) or ([], '')."""
    m = re.search(r"(?<![\w.])([A-Za-z_][\w.]{0,80})\s{0,3}\(", src)
    if not m:
        return [], ""
    inner = src[m.end():userline._close(src, m.end() - 1)]
    names, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            a = cur.strip()
            if "=" in a and not a.startswith("="):
                a = a.split("=", 1)[1].strip()
            names.append(a if _NAME.fullmatch(a) else "")
            cur = ""
        else:
            cur += ch
    return names, m.group(1)


def _user(tbr):
    uf = userline.user_frame(tbr) if tbr else None
    return uf


def _frames_text(tbr):
    return "\n".join(f[0].replace("\\", "/") for f in (tbr or {}).get("frames") or [])


def _devices(msg, tbr, whole):
    """(text, fix) for ATen's device check, or None where the family's own causes already say it (the optimizer's
    state: usercode.tensors_on_two_devices' evidence of torch/optim frames) or nothing tells the tensors apart."""
    got = _device_msg(msg)
    if got is None:
        return None
    arg, on, others, method = got
    frames = _frames_text(tbr)
    if "/torch/optim/" in frames:
        return None
    uf = _user(tbr)
    names, callee = _args_of_call(uf["src"]) if uf else ([], "")
    callee_name = userline.ident(callee, None)
    where = (" at your line %s:%d `%s`" % (uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"],
                                          userline.quote(uf["src"]))) if uf else ""
    said = ("%s is on %s, the other tensors on %s%s" % ("`%s`" % arg if arg else "one tensor", on, others,
                                                        " (in %s)" % method if method else ""))
    one_gpu = _dev_kind(on) == _dev_kind(others) == "cuda" and on != others
    if one_gpu:
        if not (tbr and tbr.get("rank") is not None) and not _RANKED.search(whole):
            return None  # one process over several GPUs: the family's own cause (a model split by device_map) says it
        return ("Tensors on two GPUs in one rank's process: %s%s. Each rank must use its own GPU only: something was "
                "made on a fixed device (.cuda(), 'cuda' or 'cuda:0' mean the current device, cuda:0 until "
                "torch.cuda.set_device is called) while the rest follows the local rank." % (said, where),
                "call torch.cuda.set_device(local_rank) first, before building the model or any tensor, and create "
                "them on device = torch.device(f'cuda:{local_rank}') (model.to(device), batch.to(device), "
                "DDP(model, device_ids=[local_rank]); a library's device='cuda' argument: device=f'cuda:{local_rank}')")
    if "/torchmetrics/" in frames:
        owner = callee_name.rsplit(".", 1)[0] if callee_name and "." in callee_name and \
            callee_name.rsplit(".", 1)[1] in ("update", "forward", "compute") else callee_name or "metric"
        return ("A torchmetrics metric keeps its state on the device it was created on or moved to: %s%s; the "
                "metric was created on the CPU while the predictions are on the GPU (or the reverse)." % (said, where),
                "move the metric to the predictions' device after creating it: %s = %s.to(device) (a "
                "MetricCollection too; inside a LightningModule assign it as an attribute so it moves with the "
                "module)" % (owner, owner))
    low_arg = arg.lower()
    loss = bool(_LOSS_METHOD.search(method or "")) or bool(_LOSS_METHOD.search(frames.rsplit("/", 1)[-1])) or \
        "/torch/nn/modules/loss.py" in frames
    arg_cpu = _dev_kind(on) == "cpu" and _dev_kind(others) != "cpu"
    arg_gpu = _dev_kind(on) != "cpu" and _dev_kind(others) == "cpu"
    if not (arg_cpu or arg_gpu):
        return None
    if low_arg in _LABEL_ARGS or (loss and low_arg in ("target",)):
        lab = next((n for n in names if n and _LABEL_NAME.match(n.rsplit(".", 1)[-1])), None) or \
            (names[1] if len(names) > 1 and names[1] else None)
        lab = userline.ident(lab, None) if lab else None
        first = userline.ident(names[0], None) if names and names[0] else None
        if arg_cpu:
            return ("The loss got its targets on %s and the predictions on %s: %s%s. The labels were not moved with "
                    "the batch." % (on, others, said, where),
                    "move the labels to the predictions' device before the loss: %s = %s.to(%s) (in the loop: "
                    "inputs, labels = inputs.to(device), labels.to(device))" % (
                        lab or "labels", lab or "labels", "%s.device" % first if first else "device"))
        return ("The loss got its targets on %s and the predictions on %s: %s%s; the model or its output stayed on "
                "the CPU." % (on, others, said, where),
                "run the model on the GPU (model.to(device)) so its output is on the labels' device, or compute the "
                "loss on one device: %s.to(%s)" % (first or "outputs", "%s.device" % lab if lab else "labels.device"))
    given = _keyword_arg(uf["src"], arg) if uf and arg else None
    if given:
        # the line passes the argument by its name (F.linear(x, w, bias=b)): that tensor is the one to move
        first = userline.ident(names[0], None) if names and names[0] else None
        return ("`%s` (passed as %s=) is on %s, the call's other tensors on %s%s." % (given, arg, on, others, where),
                "move the named tensor to the others' device before the call: %s = %s.to(%s)" % (
                    given, given, "%s.device" % first if first and first != given else "device"))
    if low_arg in _PARAM_ARGS:
        if arg_cpu:
            if loss and low_arg == "weight":
                crit = callee_name or "criterion"
                return ("The loss's class weights are on the CPU while its inputs are on %s: %s%s." % (
                            others, said, where),
                        "create the loss with its weights on the GPU, nn.CrossEntropyLoss(weight=class_weights.to("
                        "device)), or move it: %s = %s.to(device)" % (crit, crit))
            mod = callee_name if callee_name and callee_name not in ("F.linear", "torch.matmul") else None
            return ("A module's parameters (`%s`) are on the CPU while its input is on %s: %s%s. A module created "
                    "after model.to(device), created inside forward(), or kept in a plain list/dict (not an "
                    "nn.ModuleList / ModuleDict, so .to() never sees it) stays on the CPU." % (
                        arg, others, said, where),
                    "move the module to the GPU: %s.to(device) after the whole model is built (model.to(device) "
                    "last); register submodules in nn.ModuleList / nn.ModuleDict, and create new tensors in "
                    "forward() with device=x.device" % (mod or "model"))
        inp = userline.ident(names[0], None) if names and names[0] else None
        return ("The input is on the CPU while the module's parameters (`%s`) are on %s: %s%s. The batch was not "
                "moved to the model's device." % (arg, on, said, where),
                "move the input to the model's device before the call: %s = %s.to(device) with device = "
                "next(model.parameters()).device" % (inp or "x", inp or "x"))
    if low_arg in _INDEX_ARGS or "index_select" in method or "embedding" in method or "gather" in method:
        ids = next((n for n in names if n and _IDS_NAME.match(n.rsplit(".", 1)[-1])), None) or \
            (names[0] if names and names[0] else None)
        ids = userline.ident(ids, None) if ids else None
        if arg_cpu:
            return ("The ids / indices are on the CPU while the table they index (an embedding's weight) is on %s: "
                    "%s%s." % (others, said, where),
                    "move the ids to the model's device: %s = %s.to(model.device) (tokenizer outputs: inputs = "
                    "tokenizer(texts, return_tensors='pt').to(model.device))" % (ids or "input_ids",
                                                                                 ids or "input_ids"))
        return ("The ids / indices are on %s while the table they index is on the CPU: %s%s; the model (or that "
                "embedding) was not moved to the GPU." % (on, said, where),
                "move the model to the GPU before the call (model.to(device)), or keep the ids on the CPU with it")
    if arg_cpu and low_arg in ("mat1", "input", "self", "mat", "batch1", "x", "tensors", "other", "vec"):
        x = userline.ident(names[0], None) if names and names[0] else None
        return ("A tensor of the call is on the CPU while the rest is on %s: %s%s. The batch (or a tensor made "
                "without device=) was not moved to the model's device." % (others, said, where),
                "move it to the model's device before the call: %s = %s.to(device) (device = "
                "next(model.parameters()).device); create new tensors with device=x.device" % (x or "batch",
                                                                                          x or "batch"))
    return None


_TARGET = re.compile(r"Target (-?\d{1,12}) is out of bounds")
_ASSERT_CLASSES = re.compile(r"(?:cur_target|\bt) >= 0 && (?:cur_target|\bt) < n_classes")
_HF_MODEL = re.compile(r"/transformers/models/[\w/]{1,120}\.py")


def _targets(msg, tbr, whole):
    """(text, fix) for a class index the loss refused, or None."""
    m = _TARGET.search(msg)
    value = int(m.group(1)) if m else None
    if value is None and not _ASSERT_CLASSES.search(msg):
        return None
    frames = _frames_text(tbr)
    hf = bool(_HF_MODEL.search(frames)) or bool(_HF_MODEL.search(whole))
    srcs = " ".join((s[0] or "") for s in (tbr or {}).get("src") or [])
    num_labels = hf or "num_labels" in srcs
    uf = _user(tbr)
    where = (" (your line %s:%d `%s`)" % (uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"],
                                         userline.quote(uf["src"]))) if uf else ""
    size = ("num_labels=K in from_pretrained(..., num_labels=K) / the config (a transformers model has 2 unless "
            "told: config.num_labels)" if num_labels else "the last layer's out_features = K")
    if value is not None and value < 0:
        return ("The loss got the target %d%s: a class index must be in [0, C); a negative label is a padding or "
                "'no label' value the loss does not skip (CrossEntropyLoss / NLLLoss skip only ignore_index, -100 "
                "by default)." % (value, where),
                "mark the labels to skip with -100 (labels[labels == %d] = -100), or build the loss with "
                "ignore_index=%d (nn.CrossEntropyLoss(ignore_index=%d))" % (value, value, value))
    if value is None:
        # the CUDA assert prints no value: a target >= C or a negative one (a padding label)
        return ("The loss got a target outside [0, n_classes)%s (the CUDA kernel's assert prints no value): a class "
                "index >= C, the logits' last dimension (a model built with fewer outputs than the labels have "
                "classes, labels counted from 1), or a negative padding / 'no label' value the loss does not skip "
                "(only ignore_index, -100 by default, is skipped)." % where,
                "num_classes = number of distinct labels (K = labels.max() + 1): %s; if the labels count from 1, use "
                "labels - 1; mask padding labels with -100 (or CrossEntropyLoss(ignore_index=<that value>)); check "
                "labels.min() >= 0 and labels.max() < logits.shape[-1] on the CPU (or with CUDA_LAUNCH_BLOCKING=1)"
                % size)
    return ("The loss got the target %d%s, but the model's output has only C classes (a target must be in [0, C), "
            "C = the logits' last dimension): the model was built with fewer outputs than the labels have classes, or "
            "the labels count from 1 (1..C)." % (value, where),
            "build the model with one output per class, num_classes = number of distinct labels (K = labels.max() + 1, "
            "at least %d here): %s; if the labels count from 1, use labels - 1; check labels.min() >= 0 and "
            "labels.max() < logits.shape[-1] before the loss" % (value + 1, size))


# ATen's CPU index checks: "index I is out of bounds for dimension D with size S" (native/IndexingUtils.h /
# TensorAdvancedIndexing.cpp for tensor[idx], index_select; native/ScatterGatherChecks.h for scatter / gather) and
# F.one_hot's (native/Onehot.cpp): "Class values must be smaller than num_classes." / "Class values must be
# non-negative."
_BOUNDS = re.compile(r"index (-?\d{1,15}) is out of bounds for dimension (\d{1,3}) with size (\d{1,15})")
_ONE_HOT = re.compile(r"Class values must be (smaller than num_classes|non-negative)")


def _index_bounds(msg, tbr, whole):
    """(text, fix) for an index past a dimension's size, with the numbers; or F.one_hot's class check."""
    uf = _user(tbr)
    where = (" (your line %s:%d `%s`)" % (uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"],
                                         userline.quote(uf["src"]))) if uf else ""
    oh = _ONE_HOT.search(msg)
    if oh:
        if oh.group(1) == "non-negative":
            return ("F.one_hot got a negative class value%s: a padding or 'no label' value among the labels." % where,
                    "drop or mask those labels before one_hot (labels[labels >= 0]), or map them to a class of their "
                    "own")
        return ("F.one_hot got a class value >= num_classes%s: the labels reach a class the count given leaves out "
                "(more classes in the data than num_classes, or labels counted from 1)." % where,
                "pass the real class count, num_classes = int(labels.max()) + 1 at least (or the dataset's number of "
                "classes); if the labels count from 1, use labels - 1")
    m = _BOUNDS.search(msg)
    if not m:
        return None
    i, dim, size = int(m.group(1)), int(m.group(2)), int(m.group(3))
    src = uf["src"] if uf else ""
    classes = bool(re.search(r"scatter|one_hot|gather|labels?|targets?|class", src))
    if i < 0:
        return ("The index %d is below -%d%s: a negative value (a padding or 'no label' -1 read as an index from the "
                "end reaches past the start only below -size)." % (i, size, where),
                "drop or mask the negative values before indexing (idx[idx >= 0]), or give them a valid index")
    if i == size:
        text = ("The index %d equals the size %d of dimension %d%s: valid indices are 0..%d, so this is an off by "
                "one - a count or a length used as an index, or values counted from 1." % (i, size, dim, where,
                                                                                     size - 1))
    else:
        text = ("The index %d is past the size %d of dimension %d%s: the indices come from a larger table than the "
                "one indexed (ids of another vocabulary or dataset, %s)." % (
                    i, size, dim, where, "labels of more classes than the tensor has" if classes else
                    "positions of a longer sequence"))
    fix = ("make the indexed size cover the values: %s; or bring the indices into 0..%d (values counted from 1: "
           "idx - 1); assert idx.max() < x.size(%d) before the call" % (
               "build it with %d entries along dimension %d (for class labels: num_classes = labels.max() + 1)" % (
                   i + 1, dim) if classes else "a dimension of at least %d" % (i + 1), size - 1, dim))
    return text, fix


_MINUS_ONE = re.compile(r"(?:got:? |of |size |dimension |= ?|is |\()-1\b(?![.\d\]])")
_USES_RANK = re.compile(r"(?i)\b\w{0,30}(?:world_size|_size|_world|nranks|num_ranks|ranks?|group)\w{0,20}\b|"
                        r"get_world_size\(|get_rank\(")


def _non_member(msg, tbr, whole):
    """(text, fix) for -1 from get_rank / get_world_size of a group the rank is not in, or None."""
    if not _MINUS_ONE.search(msg) or "shape '[" in msg:
        return None
    uf = _user(tbr)
    if uf is None or not _USES_RANK.search(uf["src"]):
        return None
    rank = tbr.get("rank")
    if rank is None and not re.search(r"new_group\(|get_world_size\(|get_rank\(|torch/distributed/", whole):
        return None
    return ("A count of -1 reached your line %s:%d `%s`%s: torch.distributed.get_world_size(group) and "
            "get_rank(group) return -1 on a rank that is not a member of the group (distributed_c10d.py: '-1, if "
            "not part of the group'), so the group's new_group(ranks=[...]) does not list this rank." % (
                uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"], userline.quote(uf["src"]),
                " on rank %s" % rank if rank is not None else ""),
            "list every rank that uses the group in new_group(ranks=[...]) (all ranks call new_group with the same "
            "ranks, members or not), or skip the group's work on a rank that is not a member (if "
            "dist.get_rank(group) == -1 / if rank not in ranks)")


# a device index written on the line that every rank runs: GPU 0 itself (torch's DDP tutorial binds each process to
# its own: device_ids=[rank], https://pytorch.org/tutorials/intermediate/ddp_tutorial.html; barrier's device_ids and
# init_process_group's device_id, https://pytorch.org/docs/stable/distributed.html), as (pattern, what it wrote,
# the edit)
_FIXED = (
    (re.compile(r"\bdevice_ids\s{0,3}=\s{0,3}\[\s{0,3}0\s{0,3}\]"), "device_ids=[0]", "device_ids=[local_rank]"),
    (re.compile(r"\bdevice_id\s{0,3}=\s{0,3}(?:0\b|torch\.device\(\s{0,3}['\"]cuda(?::0)?['\"]\s{0,3},\s{0,3}0\s{0,3}\)|"
                r"torch\.device\(\s{0,3}['\"]cuda:0['\"]\s{0,3}\))"), "device_id=0",
     "device_id=torch.device('cuda', local_rank)"),
    (re.compile(r"\bset_device\(\s{0,3}(?:0|['\"]cuda:0['\"])\s{0,3}\)"), "set_device(0)", "set_device(local_rank)"),
    (re.compile(r"\.cuda\(\s{0,3}0\s{0,3}\)"), ".cuda(0)", ".cuda(local_rank)"),
    (re.compile(r"\.to\(\s{0,3}0\s{0,3}[,)]"), ".to(0)", ".to(local_rank)"),
    (re.compile(r"torch\.device\(\s{0,3}['\"]cuda['\"]\s{0,3},\s{0,3}0\s{0,3}\)"), "torch.device('cuda', 0)",
     "torch.device('cuda', local_rank)"),
    (re.compile(r"['\"]cuda:0['\"]"), "'cuda:0'", "f'cuda:{local_rank}'"),
    (re.compile(r"\b(?:output_device|device)\s{0,3}=\s{0,3}0\b"), "device=0", "device=local_rank"),
)
_DEVICE_WORDS = re.compile(r"(?i)device|cuda|\bgpu|ordinal|nccl|backend constrained|duplicate|same device")


def _rank_above_zero(rank):
    m = re.search(r"(\d{1,6})$", str(rank or ""))
    return bool(m) and int(m.group(1)) > 0


def _fixed_device(msg, tbr, whole):
    """(text, fix) for GPU 0 written on the line of a rank other than 0 whose error is about a device, or None."""
    if tbr is None or not _rank_above_zero(tbr.get("rank")) or not _DEVICE_WORDS.search(msg):
        return None
    uf = _user(tbr)
    if uf is None:
        return None
    src = uf["src"].split("#", 1)[0]
    for rx, wrote, edit in _FIXED:
        if rx.search(src):
            rank = str(tbr["rank"])
            return ("Your line %s:%d `%s` names GPU 0 itself, and %s runs it too: that rank then works on cuda:0 - rank "
                    "0's GPU - instead of its own (its process group and tensors are on its local rank's GPU)." % (
                        uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"], userline.quote(uf["src"]),
                        "rank %s" % rank if rank.isdigit() else rank),
                    "use each rank's own GPU on that line: %s instead of %s (local_rank = int(os.environ['LOCAL_RANK']), "
                    "after torch.cuda.set_device(local_rank))" % (edit, wrote))
    return None


# torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: a group bound to one device (init_process_group's device_id, or
# the device of its first collective) checks each collective's tensors: "Tensor found on device cuda:X but backend
# constrained to cuda:Y" (logged) and "Attempt to perform collective on tensor not on device passed to
# init_process_group" (raised)
_CONSTRAINED = re.compile(r"Tensor found on device (cuda:\d{1,3}) but backend constrained to (cuda:\d{1,3})|"
                          r"Attempt to perform collective on tensor not on device passed to init_process_group")


def _bound_device(msg, tbr, whole):
    """(text, fix) for a collective's tensor on another GPU than the one the rank's group is bound to, or None."""
    m = _CONSTRAINED.search(msg)
    if not m:
        return None
    uf = _user(tbr)
    where = (" at your line %s:%d `%s`" % (uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"],
                                          userline.quote(uf["src"]))) if uf else ""
    on = (" (on %s, the group on %s)" % (m.group(1), m.group(2))) if m.group(1) else ""
    return ("The collective's tensor%s is not on the GPU this rank's process group is bound to%s: it was made by code "
            "that ran before torch.cuda.set_device(local_rank) or on a fixed device (.cuda(), 'cuda' and 'cuda:0' mean "
            "the current device, cuda:0 until set_device; a library built with device='cuda' too)." % (on, where),
            "call torch.cuda.set_device(local_rank) before creating the model or any tensor, and create them on "
            "device = torch.device(f'cuda:{local_rank}') (a library's device='cuda' argument: device=f'cuda:"
            "{local_rank}'); init_process_group(..., device_id=device) binds the group to that same GPU")


# Lib/multiprocessing/process.py BaseProcess.run calls self._target(*self._args, **self._kwargs); torch's
# mp.spawn (torch/multiprocessing/spawn.py _wrap) calls fn(i, *args): the process index first, then args, which must
# be a tuple (https://pytorch.org/docs/stable/multiprocessing.html#spawning-subprocesses); CPython's messages
# (Python/ceval.c format_kwargs_error / check_args_iterable: "Value after * must be an iterable, not int", before
# 3.11 "<f>() argument after * must be an iterable, not int"; Python/ceval.c too_many_positional: "f() takes 1
# positional argument but 2 were given"; missing_arguments: "f() missing 1 required positional argument: 'x'")
_STAR = re.compile(r"(?:Value|argument) after \* must be an iterable, not (\w{1,40})")
_TAKES = re.compile(r"(\w{1,80})\(\) takes (\d{1,3}) positional arguments? but (\d{1,3}) (?:were|was) given")
_MISSING_ARG = re.compile(r"(\w{1,80})\(\) missing (\d{1,3}) required positional arguments?: ([^\n]{1,160})")
_ARGS_NOT_TUPLE = re.compile(r"\bargs\s{0,3}=\s{0,3}\(\s{0,3}([A-Za-z_][\w.]{0,60})\s{0,3}\)")


def _started_by(tbr):
    """'spawn' when the innermost frames are mp.spawn's _wrap, 'process' for multiprocessing's Process.run, else
    None."""
    for file, _line, fn in reversed((tbr or {}).get("frames") or []):
        norm = file.replace("\\", "/")
        if norm.endswith("torch/multiprocessing/spawn.py") and fn == "_wrap":
            return "spawn"
        if norm.endswith("multiprocessing/process.py") and fn == "run":
            return "process"
    return None


def _spawn_args(msg, tbr, whole):
    """(text, fix) for the function a process was started with, called with arguments it does not take, or None."""
    how = _started_by(tbr)
    if how is None:
        return None
    star = _STAR.search(msg)
    if star:
        name = _ARGS_NOT_TUPLE.search(whole)
        arg = userline.ident(name.group(1), None) if name else None
        return ("The args given to %s are not a tuple but one %s: (x) is x in Python, only (x,) is a tuple, and "
                "the child calls fn(%s*args)." % ("mp.spawn" if how == "spawn" else "the Process", star.group(1),
                                                  "i, " if how == "spawn" else ""),
                "pass a tuple with a trailing comma: args=(%s,)%s" % (
                    arg or "world_size", " instead of args=(%s)" % arg if arg else ""))
    takes, missing = _TAKES.search(msg), _MISSING_ARG.search(msg)
    if how == "spawn" and (takes or missing):
        fn = userline.ident((takes or missing).group(1), "fn")
        return ("mp.spawn calls %s(i, *args): the process index i (0 .. nprocs-1) comes first, then the args tuple; "
                "%s does not take them in that order (%s)." % (fn, fn, userline.quote(msg.split(": ", 1)[-1])),
                "make the process index the first parameter: def %s(rank, <the args tuple's items>), and pass only "
                "the rest in args=(...); use that rank (with world_size) in init_process_group" % fn)
    return None


_COLLATE = "torch/utils/data/_utils/collate.py"


def _collate(msg, tbr, whole):
    """(text, fix) for the default collate refusing a batch because of one sample, or None."""
    frames = _frames_text(tbr)
    if _COLLATE not in frames:
        return None
    exc = (tbr.get("exc") or "").rsplit(".", 1)[-1]
    if "NoneType" in msg or "found <class 'NoneType'>" in msg:
        return ("A sample of the batch is None: the DataLoader's default collate got None from your Dataset's "
                "__getitem__ for some index (a file it could not read or a record it skipped with a bare return).",
                "make __getitem__ always return a sample (fix or drop the bad record from the index), or drop the "
                "Nones in a collate_fn: def collate(batch): return torch.utils.data.default_collate([b for b in "
                "batch if b is not None]) (DataLoader(..., collate_fn=collate))")
    if exc == "KeyError":
        key = (tbr.get("msg") or "").strip().strip("'\"")[:60]
        k = userline.ident(key, None)
        return ("The samples of one batch are dicts with different keys: the default collate reads every key of the "
                "first sample in every sample (collate.py: [d[key] for d in batch]), and a sample lacks %s." % (
                    userline.quote(repr(key)) if key else "one"),
                "give every sample the same keys (a default where a record lacks it%s), or write a collate_fn that "
                "fills or drops it" % (": sample.setdefault('%s', <default>)" % k if k else ""))
    return None


# ATen's shape checks that print both sides: addmm / matmul "mat1 and mat2 shapes cannot be multiplied (AxB and CxD)"
# (aten/src/ATen/native/LinearAlgebra.cpp; nn.Linear's weight is [out, in], so mat2 = weight.t() is in x out: C is
# the layer's in_features, B the input's last dimension) and the convolution's "Given groups=G, weight of size
# [O, I, ...], expected input[N, C, ...] to have I*G channels, but got C channels instead"
# (aten/src/ATen/native/Convolution.cpp check_shape_forward; Conv2d's weight is [out, in/groups, kH, kW])
_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d{1,9})x(\d{1,9}) and (\d{1,9})x(\d{1,9})\)")
_CONV = re.compile(r"Given groups=(\d{1,6}), weight of size \[(\d{1,9}), (\d{1,9})[\d, ]{0,40}\], expected "
                   r"input\[[\d, ]{1,60}\] to have (\d{1,9}) channels, but got (\d{1,9}) channels instead")


# aten/src/ATen/InferSize.h infer_size_impl: "shape '[d0, d1, ...]' is invalid for input of size N" (view / reshape:
# the sizes' product must be N; one -1 stands for N / the product of the others)
_VIEW = re.compile(r"shape '\[(-?\d{1,9}(?:, ?-?\d{1,9}){0,11})\]' is invalid for input of size (\d{1,15})")


def _view(msg, tbr):
    m = _VIEW.search(msg)
    if not m:
        return None
    dims, n = [int(x) for x in m.group(1).split(",")], int(m.group(2))
    known = 1
    for d in dims:
        if d > 0:
            known *= d
    if known <= 0 or n <= 0 or dims.count(-1) > 1 or any(d == 0 or d < -1 for d in dims):
        return None
    shape = "[%s]" % ", ".join(str(d) for d in dims)
    ranked = tbr is not None and tbr.get("rank") is not None
    tp = ("; under tensor parallelism each rank holds 1/%d of the heads or features after ColwiseParallel / "
          "RowwiseParallel: view with the local count, n_heads // tp_size (torch's TP tutorial sets "
          "attention.n_heads //= tp_mesh.size() after parallelize_module)" if ranked else "")
    if -1 in dims and known > n and known % n == 0 and ranked:
        k = known // n
        return ("The view %s cannot split this rank's %d elements: the sizes other than -1 multiply to %d, %d times "
                "more, so the -1 dimension would be 1/%d - this rank holds less than one unit of it (one head): more "
                "tensor-parallel ranks than heads." % (shape, n, known, k, k),
                "make the tensor-parallel degree divide the number of heads and of key/value heads (n_heads and "
                "n_kv_heads, num_key_value_heads): a TP size of at most n_kv_heads, or replicate the kv heads; "
                "each rank then views its local count, n_kv_heads // tp_size")
    if -1 in dims:
        return ("The view %s cannot split the tensor's %d elements: the sizes other than -1 multiply to %d, which "
                "does not divide %d - one of them is not the tensor's (a config value such as the heads or the hidden "
                "size that this tensor does not have)." % (shape, n, known, n),
                "compute the sizes from the tensor itself (x.size(i)) instead of a config value, and check which one "
                "differs: %d elements over %d" % (n, known))
    if known > n and known % n == 0:
        k = known // n
        return ("The view %s asks for %d elements and the tensor holds %d, 1/%d of that: one size of the view is %d "
                "times what this tensor has%s." % (shape, known, n, k, k,
                                                  " (this rank's shard of it)" if ranked else ""),
                "write the sizes from the tensor (x.size(i), or -1 for the one that varies) instead of the full model's "
                "value%s" % ((tp % k) if tp else ""))
    if n > known and n % known == 0:
        k = n // known
        return ("The view %s asks for %d elements and the tensor holds %d, %d times that: the view leaves out a "
                "dimension of size %d (a batch or sequence dimension, or a doubled hidden size)." % (
                    shape, known, n, k, k),
                "keep that dimension in the view: -1 for the one that varies (x.view(-1, ...)), or the sizes from the "
                "tensor (x.size(i))")
    return ("The view %s asks for %d elements and the tensor holds %d: no integer factor joins them, so a size of the "
            "view comes from a config that does not fit this tensor." % (shape, known, n),
            "compute the sizes from the tensor itself (x.size(i), -1 for one of them) and print x.shape just before "
            "the view to see which one differs")


# aten/src/ATen/native/LossNLL.cpp (nll_loss_nd, what cross_entropy runs for an input of more than 2 dimensions):
# the classes are the input's dimension 1 ([N, C, d1, ...], https://pytorch.org/docs/stable/generated/
# torch.nn.CrossEntropyLoss.html), the target must be [N, d1, ...]: "Expected target size [N, d1...], got [...]"
_TARGET_SIZE = re.compile(r"Expected target size \[(\d{1,9}(?:, ?\d{1,9}){0,6})\], got \[(\d{1,9}(?:, ?\d{1,9}){0,6})\]")
# aten/src/ATen/TensorUtils.cpp checkScalarTypes, as embedding calls it: "Expected tensor for argument #1 'indices' to
# have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments
# for embedding)"
_IDS_DTYPE = re.compile(r"argument #\d{1,2} 'indices' to have one of the following scalar types: Long, Int; but got "
                        r"(?:torch\.)?(?:cuda\.)?(\w{1,30}) instead \(while checking arguments for (\w{1,40})\)")


def _loss_layout(msg, tbr):
    m = _TARGET_SIZE.search(msg)
    if m:
        want = [int(x) for x in m.group(1).split(",")]
        got = [int(x) for x in m.group(2).split(",")]
        if len(want) == len(got) == 2 and want[0] == got[0] and want[1] != got[1]:
            n, v, t = want[0], want[1], got[1]
            if n == 1:
                # a batch of one holding t rows: a batch wrapped in another (torch.utils.data.DataLoader: a sampler
                # that yields lists of indices belongs in batch_sampler=, and batch_size=None turns automatic batching
                # off for a dataset that returns whole batches, https://pytorch.org/docs/stable/data.html)
                return ("The logits are [1, %d, %d]: a batch of one that holds %d rows, so the loss read the %d as the "
                        "classes and wanted a target of [1, %d]. A batch wrapped in another batch makes that shape (a "
                        "BatchSampler or a sampler of index lists given as sampler= with the DataLoader's default "
                        "batch_size=1, a dataset that returns whole batches, an extra unsqueeze(0)); a sequence model's "
                        "[batch, seq, classes] with one sequence does too." % (t, v, t, t, v),
                        "if the %d rows are samples: DataLoader(dataset, batch_sampler=sampler) (not sampler=, and no "
                        "batch_size), or DataLoader(..., batch_size=None) for a dataset that returns batches; if they "
                        "are a sequence: loss_fn(logits.view(-1, %d), labels.view(-1))" % (t, v))
            return ("The loss read dimension 1 of the logits (%d) as the classes: for an input of more than 2 "
                    "dimensions cross_entropy / nll_loss take [N, C, d1, ...], and these logits are [%d, %d, %d] with "
                    "the classes last (a sequence model's [batch, seq, vocab]), so the target had to be [%d, %d] and "
                    "is [%d, %d]." % (t, n, t, v, n, v, n, t),
                    "flatten both: loss_fn(logits.view(-1, %d), labels.view(-1)) (logits.reshape(-1, logits.size(-1))), "
                    "or put the classes in dimension 1: loss_fn(logits.transpose(1, 2), labels)" % v)
        return None
    m = _IDS_DTYPE.search(msg)
    if m:
        uf = _user(tbr)
        names, _callee = _args_of_call(uf["src"]) if uf else ([], "")
        ids = next((n for n in names if n and _IDS_NAME.match(n.rsplit(".", 1)[-1])), None) or \
            (names[0] if names and names[0] else None)
        ids = userline.ident(ids, None) if ids else None
        return ("The ids given to %s are %s, not integers: an embedding looks rows up by Long / Int ids (a float tensor "
                "from NumPy, torch.tensor of floats, or a collate / normalisation that made them float)." % (
                    m.group(2), m.group(1)),
                "pass integer ids: %s = %s.long() (or build them with dtype=torch.long; tokenizers return int64 with "
                "return_tensors='pt')" % (ids or "input_ids", ids or "input_ids"))
    return None


def _shapes(msg, tbr, whole):
    """(text, fix) for a Linear or a convolution whose input has another width than the layer was built for."""
    got = _view(msg, tbr) or _loss_layout(msg, tbr)
    if got:
        return got
    m = _MATMUL.search(msg)
    if m:
        a, b, c, d = (int(x) for x in m.groups())
        if b == c:
            return None
        return ("A Linear layer built for %d input features (in_features=%d, out_features=%d) got an input whose "
                "last dimension is %d (mat1 %dx%d: the input, mat2 %dx%d: the layer's weight transposed): the input's "
                "size is not the one the model was written for (a flattened conv / pooling output of another image "
                "size, another sequence length or hidden size, a checkpoint or config of another width)." % (
                    c, c, d, b, a, b, c, d),
                "make them agree: build that layer as nn.Linear(%d, %d) (in_features = the input's last dimension, "
                "%d), or give it the input it was built for (the image size / hidden size of its config; flatten "
                "with x.flatten(1) after an nn.AdaptiveAvgPool2d so the width no longer depends on the input size)"
                % (b, d, b))
    m = _CONV.search(msg)
    if m:
        groups, _out, per, want, got = (int(x) for x in m.groups())
        if want == got:
            return None
        rgb = {want, got} == {1, 3}
        return ("A convolution built for %d input channels (in_channels=%d, weight [%d, %d, ...] with groups=%d) got "
                "an input with %d channels%s." % (want, want, _out, per, groups, got,
                                                  ": images of the other colour mode (grayscale 1 vs RGB 3)"
                                                  if rgb else ""),
                "build the first layer for the data: in_channels=%d (timm: in_chans=%d; torchvision's first conv "
                "replaced with nn.Conv2d(%d, ...)), or convert the data to %d channels%s" % (
                    got, got, got, want, " (PIL: image.convert('RGB') / .convert('L'); a tensor: x.expand(-1, 3, -1, "
                    "-1) for 1 -> 3)" if rgb else ""))
    return None


# c10/cuda/CUDACachingAllocator.cpp, the OOM message: "GPU <i> has a total capacity of <t> of which <f> is free.
# Process <pid> has <m> memory in use. ..." - one "Process ... has" per process NVML lists on that device (the
# others', and this one's as "Including non-PyTorch memory, this process has ..."); several on one GPU in a
# distributed job are ranks that share it (https://pytorch.org/docs/stable/notes/cuda.html, torch.cuda.set_device)
_OOM_GPU = re.compile(r"GPU (\d{1,3}) has a total capacity of ([\d.]{1,12} [KMGT]iB)")
_OOM_PROC = re.compile(r"Process (\d{1,10}) has ([\d.]{1,12} [KMGT]iB) memory in use")


_ASK = re.compile(r"Tried to allocate ([\d.]{1,12} [KMGT]iB)")
_FREE = re.compile(r"of which ([\d.]{1,12} [KMGT]iB) is free")
_UNIT = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def _bytes(text):
    num, unit = text.split()
    try:
        return float(num) * _UNIT[unit]
    except (ValueError, KeyError):
        return 0.0


def _oom_shared(msg, tbr, whole):
    """(text, fix) for a CUDA OOM whose message lists several processes on the GPU, or None."""
    g = _OOM_GPU.search(msg)
    procs = {}
    for m in _OOM_PROC.finditer(msg):
        procs.setdefault(m.group(1), m.group(2))
    if not g or len(procs) < 2:
        return None
    # the others explain the failure only where they hold a real share of the GPU and the request would have fit
    # without them (a 256 GiB request on an 80 GiB GPU is the request's own; NVML lists every container's
    # processes, often a few hundred MiB each)
    ask, free = _ASK.search(msg), _FREE.search(msg)
    others = sum(_bytes(v) for v in procs.values())
    cap = _bytes(g.group(2))
    if not ask or not free or others < 0.2 * cap or _bytes(ask.group(1)) > _bytes(free.group(1)) + others:
        return None
    if re.search(r"(?i)/(?:vllm|sglang|verl|ray|openrlhf|trl|tensorrt_llm)/", whole):
        return None  # a colocating framework shares a GPU between its engines by design (gpu_memory_utilization)
    uses = ", ".join("%s: %s" % kv for kv in list(procs.items())[:6])
    ranked = (tbr is not None and tbr.get("rank") is not None) or bool(_RANKED.search(whole))
    if ranked:
        return ("%d processes hold memory on GPU %s (%s) when this rank ran out of it: ranks of the job share one GPU "
                "- a process that does not set its device first creates its CUDA context and tensors on cuda:0 (or "
                "the launcher started more processes than GPUs)." % (len(procs), g.group(1), uses),
                "give every rank its own GPU: torch.cuda.set_device(local_rank) before anything touches CUDA, and "
                "device = torch.device('cuda', local_rank) for the model and the batches (torch.load(..., "
                "map_location=device)); one process per GPU (--nproc_per_node = the GPUs of the node)")
    return ("%d processes hold memory on GPU %s (%s): another process (a stale run, another job or user, a second "
            "process of this one) uses the same GPU." % (len(procs), g.group(1), uses),
            "nvidia-smi --query-compute-apps=pid,used_memory --format=csv shows them: stop the stale one, or run on "
            "a free GPU (CUDA_VISIBLE_DEVICES=<a free index>)")


# the CUDA kernels' own asserts behind "device-side assert triggered", by the kernel that printed it (each line is
# "<file>:<line>: <kernel>: block: [..], thread: [..] Assertion `<condition>` failed."): Indexing.cu's
# index_select (nn.Embedding's lookup) `srcIndex < srcSelectDimSize`; ScatterGatherKernel.cu's `idx_dim >= 0 &&
# idx_dim < index_size && "index out of bounds"` (gather / scatter / scatter_add); IndexKernel.cu's `-sizes[i] <=
# index && index < sizes[i] && "index out of bounds"` (tensor[idx] with a tensor of indices)
_KERNEL_ASSERTS = (
    (re.compile(r"srcIndex < srcSelectDimSize"),
     "The failed check is index_select's (Indexing.cu, what nn.Embedding's lookup runs): an id is >= the number of "
     "rows of the table it indexes - a token id past the embedding's vocabulary (a tokenizer with added tokens or of "
     "another model) or a position id past max_position_embeddings.",
     "make the table cover the ids: model.resize_token_embeddings(len(tokenizer)) after adding tokens, the tokenizer "
     "of the same checkpoint, nn.Embedding(num_embeddings = max id + 1); truncate to the model's max_position_embeddings "
     "(tokenizer(..., truncation=True, max_length=...)); check input_ids.max() < embedding.num_embeddings"),
    (re.compile(r"idx_dim >= 0 && idx_dim < index_size"),
     "The failed check is gather / scatter's (ScatterGatherKernel.cu): an index is negative or >= the size of the "
     "dimension it indexes - most often labels used as indices (scatter_ for one-hot, gather of the label's logit) "
     "with a value past the class count, or a -1 / -100 padding label.",
     "check index.min() >= 0 and index.max() < x.size(dim) before the gather / scatter: the class count must exceed "
     "the largest label (num_classes = labels.max() + 1), and padding labels must be masked out first"),
    (re.compile(r"-sizes\[i\] <= index && index < sizes\[i\]"),
     "The failed check is advanced indexing's (IndexKernel.cu, tensor[idx] with a tensor of indices): an index is "
     "past the size of the dimension it indexes (or below -size).",
     "check idx.min() >= -x.size(d) and idx.max() < x.size(d) before the indexing (run it once on the CPU: it raises "
     "IndexError with the value and the size)"),
)


def _kernel_assert(msg, tbr, whole):
    for rx, text, fix in _KERNEL_ASSERTS:
        if rx.search(msg):
            return text, fix
    return None


# torch/csrc/distributed/c10d/reducer.cpp (Reducer::ensure_prior_reduction_finished): with TORCH_DISTRIBUTED_DEBUG
# INFO / DETAIL the error names them, "Parameters which did not receive grad for rank <r>: <name>, <name>"
_NO_GRAD = re.compile(r"Parameters which did not receive grad for rank (\d{1,6}): ([\w.]{1,120}(?:, [\w.]{1,120}){0,30})")


def _unused_params(msg, tbr, whole):
    """(text, fix) naming the parameters DDP found without a gradient, or None."""
    text = msg + "\n" + ((tbr or {}).get("more") or "")
    m = _NO_GRAD.search(text)
    if not m:
        return None
    names = [userline.ident(n, None) for n in m.group(2).split(", ")]
    names = [n for n in names if n]
    if not names:
        return None
    mods = []
    for n in names:
        head = n.rsplit(".", 1)[0] if "." in n else n
        head = head[len("module."):] if head.startswith("module.") else head
        if head not in mods:
            mods.append(head)
    shown = ", ".join(names[:6]) + (" ..." if len(names) > 6 else "")
    return ("DDP found parameters without a gradient on rank %s: %s - %s took no part in the loss of that step (a head "
            "or branch not called, or its output left out of the loss)." % (m.group(1), shown, ", ".join(mods[:4])),
            "if %s is never used: delete it or freeze it (model.%s.requires_grad_(False) before wrapping in DDP); if "
            "it is used only on some steps: DistributedDataParallel(model, find_unused_parameters=True) (or "
            "static_graph=True when the unused set is the same every step); else add its output to the loss" % (
                mods[0], mods[0]))


_READERS = (
    ("torch.", _fixed_device),
    ("usercode.", _fixed_device),
    ("nccl.", _fixed_device),
    ("cuda.", _fixed_device),
    ("code.", _fixed_device),
    ("torch.", _bound_device),
    ("nccl.", _bound_device),
    ("usercode.", _bound_device),
    ("cuda.oom", _oom_shared),
    ("torch.ddp_unused_parameters", _unused_params),
    ("usercode.tensors_on_two_devices", _devices),
    ("usercode.index_out_of_range", _targets),
    ("cuda.device_assert", _targets),
    ("cuda.device_assert", _kernel_assert),
    ("code.exception", _targets),
    ("code.exception", _non_member),
    ("code.exception", _index_bounds),
    ("usercode.index_out_of_range", _index_bounds),
    ("usercode.shape_mismatch", _shapes),
    ("usercode.dtype_mismatch", _shapes),
    ("code.exception", _shapes),
    # (lead, session 30) an ATen op's refusal raised from the user's line is torch.usage (excmeaning._torch_call),
    # where it was code.exception: the same message readers
    ("torch.usage", _targets),
    ("torch.usage", _non_member),
    ("torch.usage", _index_bounds),
    ("torch.usage", _shapes),
    ("code.", _spawn_args),
    ("torch.", _spawn_args),
    ("code.", _collate),
    ("usercode.", _collate),
    ("usercode.", _non_member),
    ("torch.distributed_usage", _non_member),
)


def _lines(scan, f):
    """(message, traceback or None, matched line) for the root: the tracebacks whose exception line the root
    matched first, then its matched lines alone."""
    lines = {m["line"]: m["text"] for m in f.get("matches") or []}
    out = []
    for t in getattr(scan, "tracebacks", []) or []:
        if t.get("line") in lines:
            out.append(("%s: %s" % (t.get("exc") or "", t.get("msg") or ""), t, lines[t["line"]], t["line"]))
    for t in getattr(scan, "tracebacks", []) or []:
        if t.get("line") not in lines:
            out.append(("%s: %s" % (t.get("exc") or "", t.get("msg") or ""), t, None, t.get("line")))
    for n, text in lines.items():
        out.append((text, None, text, n))
    return out


def _context(scan):
    """What the scan kept that says how the job ran (explain reads a stream, not a whole text): the launchers seen
    and every kept traceback's frames and source lines, bounded."""
    parts = [" ".join(sorted(getattr(scan, "launchers", {}) or {}))]
    for t in getattr(scan, "tracebacks", []) or []:
        parts += [f[0] for f in t.get("frames") or []]
        parts += [s[0] or "" for s in t.get("src") or []]
        parts.append("[rank%s]" % t["rank"] if t.get("rank") is not None else "")
    return "\n".join(parts)[:100000]


def fill(scan, findings):
    """Put the concrete reading of the root's message first among its causes (analyze.analyze's hook, after
    userline)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes"):
        return
    if f["causes"][0]["text"].startswith("Your line "):
        return  # userline read the line's own expression with the exception (a Dataset's __len__): it says more
    whole = None
    for prefix, reader in _READERS:
        if not (f["id"] == prefix or (prefix.endswith(".") and f["id"].startswith(prefix))):
            continue
        for msg, tbr, matched, n in _lines(scan, f):
            whole = _context(scan) if whole is None else whole
            got = reader(msg, tbr, whole)
            if not got:
                continue
            text, fix = got
            ev = [{"line": n, "text": (matched or msg)[:400]}] if n is not None else []
            f["causes"].insert(0, {"text": text, "checks": [], "confirm": [], "fix": [fix], "exports": {},
                                   "evidence": ev, "static_rank": 0, "computed": None})
            return
