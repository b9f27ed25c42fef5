"""Reading the launch configs users hand us: YAML (accelerate) through PyYAML's safe loader
with bounded alias expansion and nesting, JSON (DeepSpeed) with bounded nesting, and
DeepSpeed's batch arithmetic as deepspeed/runtime/config.py does it
(DeepSpeedConfig._configure_train_batch_size / _set_batch_related_parameters /
_batch_assertion, DeepSpeed 0.19.x)."""

import json

from gpudoctor.errors import DuplicateKey, InputError, excerpt, read_input, unique_pairs

MAX_CONFIG_BYTES = 4 << 20
MAX_NODES = 20000  # YAML nodes after alias expansion: a real accelerate config has < 200
MAX_DEPTH = 64


def load_yaml(path, what="accelerate config"):
    """A YAML mapping, loaded by PyYAML's SafeLoader. An alias bomb (nested aliases that
    expand to billions of nodes in a few hundred bytes) is refused while composing: every
    alias is counted with the size of what it points to, so the bound holds before any
    expansion happens, in bounded memory."""
    import yaml

    data = read_input(path, what, limit=MAX_CONFIG_BYTES)
    text = data.decode("utf-8", "replace")

    class Bounded(yaml.SafeLoader):
        pass

    sizes = {}
    budget = [0]

    def size_of(node, depth=0):
        if depth > MAX_DEPTH:
            raise InputError("%s %s: nested more than %d levels deep" % (what, path, MAX_DEPTH))
        got = sizes.get(id(node))
        if got is not None:
            return got
        if isinstance(node, yaml.MappingNode):
            n = 1 + sum(size_of(k, depth + 1) + size_of(v, depth + 1) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            n = 1 + sum(size_of(v, depth + 1) for v in node.value)
        else:
            n = 1
        sizes[id(node)] = n
        return n

    def compose_node(self, parent, index):
        node = yaml.SafeLoader.compose_node(self, parent, index)
        budget[0] += 1 if node is None else min(size_of(node), MAX_NODES * 4 + 1)
        if budget[0] > MAX_NODES * 4:
            raise InputError("%s %s: more than %d YAML nodes once aliases are expanded (an alias bomb?)"
                             % (what, path, MAX_NODES))
        return node

    Bounded.compose_node = compose_node

    def bounded_int(loader, node):
        # int() of a 5,000-digit scalar raises ValueError (Python's digit limit), and a
        # 4,000-digit one is accepted but useless: no count in a launch config needs 20 digits
        if len(node.value) > 20:
            raise InputError("%s %s line %d: a number of %d digits" % (what, path, node.start_mark.line + 1,
                                                                     len(node.value)))
        return yaml.SafeLoader.construct_yaml_int(loader, node)

    Bounded.add_constructor("tag:yaml.org,2002:int", bounded_int)
    try:
        loader = Bounded(text)
        try:
            root = loader.get_single_node()
            if root is not None and size_of(root) > MAX_NODES:
                raise InputError("%s %s: more than %d YAML nodes once aliases are expanded (an alias bomb?)"
                                 % (what, path, MAX_NODES))
            doc = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = " line %d" % (mark.line + 1) if mark is not None else ""
        raise InputError("%s %s is not valid YAML%s: %s" % (what, path, where,
                                                           excerpt(getattr(exc, "problem", None) or str(exc), 80)))
    except RecursionError:
        raise InputError("%s %s: nested too deeply" % (what, path))
    except ValueError as exc:  # a scalar PyYAML's constructors refuse (a float like 1e99999 is inf, fine)
        raise InputError("%s %s: %s" % (what, path, excerpt(exc, 80)))
    if not isinstance(doc, dict):
        raise InputError("%s %s: expected a mapping of keys, got %s" % (what, path, excerpt(doc, 20)))
    return doc


def _depth_ok(value, depth=0):
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(_depth_ok(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return all(_depth_ok(v, depth + 1) for v in value)
    return True


def load_json(path, what="DeepSpeed config"):
    data = read_input(path, what, limit=MAX_CONFIG_BYTES)
    def bounded_int(text):
        # json would take any length; int() of 5,000 digits raises ValueError (Python's limit)
        if len(text) > 20:
            raise InputError("%s %s: a number of %d digits" % (what, path, len(text)))
        return int(text)

    try:
        # DeepSpeed reads its config with object_pairs_hook=dict_raise_error_on_duplicate_keys
        # (deepspeed/runtime/config_utils.py; config.py DeepSpeedConfig): a key named twice in one
        # object is "Duplicate keys in DeepSpeed config: [...]" and the job does not start, so the plan
        # does not reason on the last value as json would (red team 2026-11-26d). accelerate's
        # json.load keeps the last one (accelerate/commands/config/config_args.py load_config_from_file).
        doc = json.loads(data.decode("utf-8", "replace"), parse_int=bounded_int,
                         object_pairs_hook=unique_pairs if what == "DeepSpeed config" else None)
    except DuplicateKey as exc:
        raise InputError("DeepSpeed config %s: %s (DeepSpeed refuses it at start: Duplicate keys in DeepSpeed "
                         "config)" % (path, exc))
    except RecursionError:
        raise InputError("%s %s: nested too deeply" % (what, path))
    except ValueError as exc:
        raise InputError("%s %s is not valid JSON: %s" % (what, path, excerpt(exc, 100)))
    if not isinstance(doc, dict):
        raise InputError("%s %s: expected a JSON object" % (what, path))
    if not _depth_ok(doc):
        raise InputError("%s %s: nested more than %d levels deep" % (what, path, MAX_DEPTH))
    return doc


# ---------------------------------------------------------------- DeepSpeed batch arithmetic

def _ds_int(doc, key, path):
    """A batch value as DeepSpeed reads it (get_scalar_param: the JSON value itself). "auto"
    is the HF Trainer's placeholder, filled in before DeepSpeed sees the config: unknown here."""
    v = doc.get(key)
    if v is None:
        return None
    if isinstance(v, str) and v.strip().lower() == "auto":
        return "auto"
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError("DeepSpeed config %s: %s=%s is not a whole number" % (path, key, excerpt(v, 24)))
    if abs(v) > 1 << 40:
        raise InputError("DeepSpeed config %s: %s=%s is out of range" % (path, key, excerpt(v)))
    return v


def ds_batch(doc, world_size, path="ds.json"):
    """(train, micro, gas, error): DeepSpeed's resolution of the three batch values at a
    given world size, and the message DeepSpeed raises, or None when it starts.

    Mirrors DeepSpeedConfig._configure_train_batch_size(): _set_batch_related_parameters()
    derives the missing values (gas = train // micro // world; micro = train // world //
    gas; train = micro * gas * world; only train: gas 1, micro = train // world; only
    micro: gas 1, train = micro * world; neither: refused), then _batch_assertion()
    requires all three > 0 and train == micro * gas * world."""
    train = _ds_int(doc, "train_batch_size", path)
    micro = _ds_int(doc, "train_micro_batch_size_per_gpu", path)
    gas = _ds_int(doc, "gradient_accumulation_steps", path)
    if "auto" in (train, micro, gas) or world_size is None:
        return train, micro, gas, None
    ws = world_size
    sp = doc.get("sequence_parallel_size")
    if isinstance(sp, int) and not isinstance(sp, bool) and 0 < sp < 1 << 20:
        # DeepSpeedConfig.__init__ without an mpu (the HF zero.init case): world_size =
        # dist.get_world_size() / config["sequence_parallel_size"] (a true division)
        ws = ws / sp  # a float, as in DeepSpeed: the derived values are floats too
    try:
        if train is not None and micro is not None and gas is not None:
            pass
        elif train is not None and micro is not None:
            gas = train // micro // ws
        elif train is not None and gas is not None:
            micro = train // ws // gas
        elif micro is not None and gas is not None:
            train = micro * gas * ws
        elif train is not None:
            gas, micro = 1, train // ws
        elif micro is not None:
            train, gas = micro * ws, 1
        else:
            return train, micro, gas, "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided"
    except ZeroDivisionError:  # DeepSpeed divides by micro or gas before asserting they are > 0
        return train, micro, gas, "integer division or modulo by zero (a batch value of 0)"
    if train <= 0:
        return train, micro, gas, "Train batch size: %s has to be greater than 0" % train
    if micro <= 0:
        return train, micro, gas, "Micro batch size per gpu: %s has to be greater than 0" % micro
    if gas <= 0:
        return train, micro, gas, "Gradient accumulation steps: %s has to be greater than 0" % gas
    if train != micro * gas * ws:
        return train, micro, gas, ("Check batch related parameters. train_batch_size is not equal to "
                                   "micro_batch_per_gpu * gradient_acc_step * world_size %s != %s * %s * %s"
                                   % (train, micro, gas, ws))
    return train, micro, gas, None


def ds_precision(doc, path):
    """(bf16, fp16): each True, False, or None for "auto" (the HF Trainer fills it)."""
    out = []
    for key in ("bf16", "fp16"):
        sec = doc.get(key)
        if key == "bf16" and sec is None:
            sec = doc.get("bfloat16")  # DeepSpeed's older spelling (BFLOAT16_OLD)
        if sec is None:
            out.append(False)
            continue
        if not isinstance(sec, dict):
            raise InputError("DeepSpeed config %s: %s must be an object like {\"enabled\": true}" % (path, key))
        en = sec.get("enabled", False)
        if isinstance(en, str) and en.lower() == "auto":
            en = None
        elif not isinstance(en, bool):
            raise InputError("DeepSpeed config %s: %s.enabled=%s must be true, false or \"auto\""
                             % (path, key, excerpt(en, 20)))
        out.append(en)
    return tuple(out)
