#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/api_history.json: in which release of transformers, accelerate, peft, trl, datasets and safetensors each public name, and each field of the config / arguments classes scripts pass keywords to, arrived or left.

A script written for one release of a library of the training stack fails on another with
`ImportError: cannot import name 'X' from 'transformers.utils'`, `AttributeError: module
'accelerate.utils' has no attribute 'X'` or `TypeError: TrainingArguments.__init__() got an
unexpected keyword argument 'X'`. This table says in which release each name or keyword arrived
(and in which it left), so explain can answer "X left transformers in 4.X: pip install
'transformers<4.X'" (gpudoctor/explain/apihistory.py).

Usage:
    python tools/gen_api_history.py --wheels DIR [--download] [--record SLICE] [-o OUT]
    python tools/gen_api_history.py --slice tools/data/api_history_slice.txt -o OUT   (the test)

Source: the released wheels on PyPI, the first release of each minor line (X.Y.0, or X.Y.1 where
X.Y.0 is not on PyPI) from FIRST on, fetched with pip's ordinary client (`pip index versions P`, then
`pip download --no-deps --only-binary=:all: P==V` into DIR, a cache outside the repository; --download
fetches the ones DIR lacks). Each wheel is opened as a zip and its .py files are read with `ast`, never
imported (tools/gen_torch_api.py Sources: module-level def / class / assignment / import, `from x
import *` resolved through __all__, into if / try blocks, so transformers' `if TYPE_CHECKING:` imports,
which mirror its lazy _import_structure, are read too).

What is read from each release:
- names: the public names (no leading '_') bound at module level of each public module at most
  DEPTH dots deep (tests, private modules, transformers' per-model packages left out, but the modeling
  files of MODELING models kept);
- params: the keyword parameters of CLASSES: a dataclass's fields (its own and those of its bases in the
  same package), else its __init__'s parameters.
Only what appears or disappears within the releases read is kept (a name in every release, or in none,
says nothing about versions), each as [index of the first release that has it, index of the first
release after its last (null: still in the newest)], indices into the package's release list.
"""

import ast
import json
import os
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
from gen_torch_api import Sources, _body_nodes, _key  # noqa: E402

GENERATOR = "tools/gen_api_history.py"
# two sets of packages, each its own table: the Hugging Face training stack (api_history.json) and the serving /
# training frameworks around it (api_history_serving.json)
SETS = {
    "hf": ("api_history", "transformers, accelerate, peft, trl, datasets and safetensors"),
    "serving": ("api_history_serving", "vllm, pytorch_lightning, diffusers, sglang and deepspeed (an sdist)"),
}
SOURCE = ("the wheels on PyPI (pip download --no-deps; DeepSpeed's sdist) of %s, the first release of each minor "
          "line, their .py files read with ast")
# the oldest minor line read per package (older ones predate the APIs scripts on clusters use today)
FIRST = {
    "hf": {"transformers": (4, 20), "accelerate": (0, 10), "peft": (0, 2), "trl": (0, 4), "datasets": (2, 0),
           "safetensors": (0, 3)},
    # vLLM from 0.5 (worker_use_ray's last lines, the V0 engine), Lightning from 1.9 (Trainer(gpus=...) until 2.0; 1.6-1.8 have no wheel on the index),
    # sglang from 0.4 (ServerArgs)
    "serving": {"vllm": (0, 5), "pytorch_lightning": (1, 9), "diffusers": (0, 18), "sglang": (0, 4),
                "deepspeed": (0, 12)},
}
# transformers releases a minor line every few weeks and reading one takes ~30 s: every STEP-th line is read (and
# the newest), so its spans are "by release B" rather than "in release B" (the answer still names a release that
# has the name). vLLM's wheels are ~300 MB each: every line up to EARLY (the V0 -> V1 engine years), then every
# STEP-th line counted back from the newest. sglang changes its server arguments within a minor line: its patch
# releases are its lines (PATCH)
STEP = {"transformers": 3, "vllm": 4, "diffusers": 2, "sglang": 3}
EARLY = {"vllm": (0, 11)}
PATCH = {"sglang"}
SDIST = {"deepspeed"}  # DeepSpeed publishes no wheel: its sdist (a .tar.gz) is read the same way
DEPTH = 3  # transformers.utils.import_utils: 3 parts
# transformers.models.<m>.modeling_<m> of the models scripts patch most (attention classes, rotary helpers)
MODELING = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen2_vl", "qwen3", "gemma", "gemma2", "phi3",
            "gpt2", "gpt_neox", "opt", "bert", "t5", "falcon", "bloom", "whisper", "clip", "llava")
SKIP = re.compile(r"(?:^|\.)(?:_|tests?(?:\.|$)|testing_utils|benchmarks?|examples?|commands(?:\.|$)|"
                  r"dummy_|convert_)")
# (package, class, modules that may define it: searched in order, the first that defines it wins)
CLASSES = [
    ("transformers", "TrainingArguments", ["transformers.training_args"]),
    ("transformers", "Seq2SeqTrainingArguments", ["transformers.training_args_seq2seq"]),
    ("transformers", "Trainer", ["transformers.trainer"]),
    ("transformers", "BitsAndBytesConfig", ["transformers.utils.quantization_config"]),
    ("accelerate", "Accelerator", ["accelerate.accelerator"]),
    ("accelerate", "DeepSpeedPlugin", ["accelerate.utils.dataclasses"]),
    ("accelerate", "FullyShardedDataParallelPlugin", ["accelerate.utils.dataclasses"]),
    ("peft", "LoraConfig", ["peft.tuners.lora.config", "peft.tuners.lora"]),
    ("peft", "PeftConfig", ["peft.config", "peft.utils.config"]),
    ("trl", "SFTConfig", ["trl.trainer.sft_config"]),
    ("trl", "DPOConfig", ["trl.trainer.dpo_config"]),
    ("trl", "GRPOConfig", ["trl.trainer.grpo_config"]),
    ("trl", "PPOConfig", ["trl.trainer.ppo_config"]),
    ("trl", "RewardConfig", ["trl.trainer.reward_config"]),
    ("trl", "SFTTrainer", ["trl.trainer.sft_trainer"]),
    ("trl", "DPOTrainer", ["trl.trainer.dpo_trainer"]),
    ("trl", "GRPOTrainer", ["trl.trainer.grpo_trainer"]),
    ("datasets", "load_dataset", ["datasets.load"]),
    ("vllm", "EngineArgs", ["vllm.engine.arg_utils"]),
    ("vllm", "AsyncEngineArgs", ["vllm.engine.arg_utils"]),
    ("vllm", "LLM", ["vllm.entrypoints.llm"]),
    ("vllm", "SamplingParams", ["vllm.sampling_params"]),
    ("sglang", "ServerArgs", ["sglang.srt.server_args"]),
    ("pytorch_lightning", "Trainer", ["pytorch_lightning.trainer.trainer"]),
    ("deepspeed", "DeepSpeedZeroConfig", ["deepspeed.runtime.zero.config"]),
    ("deepspeed", "DeepSpeedZeroOffloadParamConfig", ["deepspeed.runtime.zero.offload_config"]),
    ("deepspeed", "DeepSpeedZeroOffloadOptimizerConfig", ["deepspeed.runtime.zero.offload_config"]),
]
# pydantic / msgspec / DeepSpeed config classes: their annotated fields are their keywords, as a dataclass's
FIELD_BASES = {"BaseModel", "Struct", "DeepSpeedConfigModel"}
# command lines: the flags of every add_argument of these modules, plus (vLLM's EngineArgs.from_cli_args, sglang's
# ServerArgs.from_cli_args read every field from the parsed arguments) each field of the class, as
# '<package> CLI' with the flag's name ('--worker-use-ray' -> worker_use_ray); environment variables: the keys of
# vllm/envs.py's environment_variables, as 'vllm ENV'
CLI = {"vllm": (["vllm.engine.arg_utils", "vllm.entrypoints.openai.cli_args"], "EngineArgs"),
       "sglang": (["sglang.srt.server_args"], "ServerArgs"),
       "deepspeed": (["deepspeed.launcher.runner"], None)}
ENV = {"vllm": ("vllm.envs", "VLLM_")}


def tracked(mod, pkg):
    """Whether the public names of module ``mod`` are recorded."""
    rest = mod[len(pkg) + 1:] if mod != pkg else ""
    if rest and SKIP.search(rest):
        return False
    parts = mod.split(".")
    if mod == "transformers.models":  # star-imports every model: the same names as `transformers` itself
        return False
    if pkg == "transformers" and len(parts) >= 3 and parts[1] == "models" and parts[2] != "auto":
        return len(parts) == 4 and parts[2] in MODELING and parts[3] == "modeling_" + parts[2]
    return len(parts) <= DEPTH


def _is_dataclass(cls, index=None, depth=0):
    for d in cls.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if (isinstance(f, ast.Name) and f.id == "dataclass") or (isinstance(f, ast.Attribute) and f.attr == "dataclass"):
            return True
    for b in cls.bases:
        name = b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)
        if name in FIELD_BASES:
            return True
        base = (index or {}).get(name)
        if base is not None and base is not cls and depth < 6 and _is_dataclass(base, index, depth + 1):
            return True
    return False


def _classes(src, mods):
    """{name: ClassDef} of the top-level classes of ``mods``."""
    out = {}
    for mod in mods:
        got = src.tree(mod)
        if got is None:
            continue
        for node in _body_nodes(got[0].body):
            if isinstance(node, ast.ClassDef):
                out.setdefault(node.name, node)
    return out


def _fields(cls, index, depth=0):
    """The keyword parameters of class ``cls``: a dataclass's fields, its bases' first (by name in ``index``),
    else its __init__'s parameters; (names, takes **kwargs)."""
    names, varkw = [], False
    if _is_dataclass(cls, index):
        for b in cls.bases:
            base = index.get(b.id if isinstance(b, ast.Name) else getattr(b, "attr", None))
            if base is not None and base is not cls and depth < 6:
                got, vk = _fields(base, index, depth + 1)
                names += [n for n in got if n not in names]
                varkw = varkw or vk
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                    not node.target.id.startswith("_") and "ClassVar" not in ast.dump(node.annotation):
                if node.target.id not in names:
                    names.append(node.target.id)
                # a pydantic field's alias is the key the config file spells (DeepSpeed's stage3_* keys)
                if isinstance(node.value, ast.Call):
                    for k in node.value.keywords:
                        if k.arg == "alias" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) \
                                and k.value.value not in names:
                            names.append(k.value.value)
        return names, varkw
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__":
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs][1:]
            return names, a.kwarg is not None
    return None, False


class FastSources(Sources):
    """Sources whose `from m import *` reads m's literal __all__ without parsing the whole of m (transformers 5's
    `from .models import *` reaches every modeling file: parsing them all takes minutes a release)."""

    _ALL = re.compile(r"^__all__\s*=\s*(\[[^\]]{0,200000}\]|\([^)]{0,200000}\))", re.M)

    def public(self, mod, depth=0):
        got = self.text.get(mod)
        if got is not None and mod not in self._trees:
            m = self._ALL.search(got[0])
            if m and "__all__ +=" not in got[0] and "__all__.extend" not in got[0]:
                try:
                    return set(ast.literal_eval(m.group(1)))
                except (ValueError, SyntaxError):
                    pass
        return Sources.public(self, mod, depth)


# --------------------------------------------------------------------------- deprecation sites

# A deprecation site's message names the replacement: "X is deprecated ... use Y (instead)", "X is deprecated in
# favo(u)r of Y", "X has been renamed to Y", "X is replaced by Y", "use Y instead of X", argparse's
# "Deprecated, use Y" in the help of the deprecated flag. The helpers whose calls carry such messages (each
# library's own): warnings.warn (DeprecationWarning / FutureWarning), logging's warning / warning_once,
# transformers' utils/deprecation.py deprecate_kwarg(old_name, version, new_name=...), diffusers'
# utils/deprecation_utils.py deprecate(name, removal_version, message), vLLM's utils deprecate_kwargs(name,
# additional_message=...) and typing_extensions' @deprecated(message), Lightning's
# utilities/rank_zero.py rank_zero_deprecation(message), DeepSpeed's runtime/config_utils.py
# DeepSpeedConfigModel fields Field(..., deprecated=True, new_param="...") (json_schema_extra in pydantic 2),
# argparse's add_argument(..., help="Deprecated, use ...") and docstrings' "name: Deprecated, use Y".
_DEP_WORDS = re.compile(r"deprecat|renamed|in favou?r of|replaced by|superseded by|no longer supported|"
                        r"has been removed|was removed", re.I)
_ID = r"(?P<{0}q>[`'\"]?)(?P<{0}>--[A-Za-z][\w-]{{0,60}}(?:=[\w.'\"-]{{1,40}})?|" \
      r"[A-Za-z_][\w.]{{0,100}}(?:\([^()]{{0,80}}\)|=[\w.'\"-]{{1,40}})?)(?P={0}q)"
_OLD, _NEW = _ID.format("old"), _ID.format("new")
_KIND = r"(?:the )?(?:(?:argument|parameter|option|flag|attribute|function|method|class|module|field|key|" \
        r"keyword(?: argument)?|environment variable|env var|config(?:uration)?(?: key)?|property)s? )?"
_KIND2 = r"(?: (?:argument|parameter|option|flag|attribute|function|method|class|module|field|key|keyword argument|" \
         r"environment variable|property|kwarg)s?)?"
_USE = r"(?:use|using|in favou?r of|replaced (?:by|with)|switch to|migrate to|pass)" \
       r"(?: the(?: equivalent| function| class| method| argument| flag| option| new)?)?"
# a name after "for" is not the message's subject ("using `EvaluationStrategy` for `evaluation_strategy` is
# deprecated ... Use `IntervalStrategy`": the value is deprecated, not the argument); "Use of `X` is deprecated" is X's
_PAIRS = [re.compile(r"(?<!\bfor )" + r, re.I) for r in (
    r"%s%s%s (?:is|are|has been|have been|was|were|will be) (?:now |being )?deprecated[^\n]{0,200}?\b%s:? %s" % (
        _KIND, _OLD, _KIND2, _USE, _NEW),
    r"%s%s%s (?:has been |have been |was |were |is |are |will be )?renamed (?:to|as) %s" % (_KIND, _OLD, _KIND2, _NEW),
    r"%s%s%s (?:has been |is |was |are |will be )(?:replaced|superseded) (?:by|with) %s" % (_KIND, _OLD, _KIND2, _NEW),
    r"\buse %s instead of %s" % (_NEW, _OLD),
    r"%s%s%s (?:is|are|has been|was) (?:now )?deprecated" % (_KIND, _OLD, _KIND2),
)]
# a message whose subject is its site (the flag of add_argument, the name deprecate() is given): "Deprecated,
# use Y", "[DEPRECATED] ... Use Y instead"
_SUBJ = re.compile(r"deprecated\b[^\n]{0,200}?\b%s:? %s" % (_USE, _NEW), re.I)
_DOC = re.compile(r"^\s{0,40}(\w{3,80})(?: \([^)\n]{0,80}\))?: (?:\[)?deprecated\b[^\n]{0,80}?\b%s:? %s" % (_USE, _NEW),
                  re.I | re.M)
_CALLS = {"warn", "warning", "warning_once", "warn_once", "info_once", "info", "deprecate", "rank_zero_deprecation",
          "rank_zero_warn", "deprecation_warning", "add_argument", "deprecated", "deprecate_kwarg",
          "deprecate_kwargs", "warn_deprecated", "_deprecation_warning", "DeprecationWarning", "FutureWarning",
          "ValueError", "TypeError", "RuntimeError", "error", "print_rank_0", "logger_warning"}
# a name spelled as a word of English is a name only when the message quotes it
_WORDS = {"this", "it", "that", "the", "a", "an", "is", "are", "these", "they", "which", "argument", "parameter",
          "option", "instead", "now", "has", "was", "will", "be", "been", "please", "with", "you", "we", "its",
          "and", "or", "not", "deprecated", "support", "usage", "method", "function", "class", "flag", "setting",
          "value", "values", "mode", "version", "default", "passing", "setting", "using", "use"}


def _text(node, env):
    """The literal text of a message expression: strings, f-strings (a value: '{}'), '+' and implicit
    concatenation, str.format, a name assigned a string earlier in the function, DeprecationWarning(msg)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        a = _text(node.left, env)
        b = _text(node.right, env) if isinstance(node.op, ast.Add) else ""
        return None if a is None else a + (b if b is not None else "{}")
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "format":
            return _text(f.value, env)
        if isinstance(f, ast.Name) and f.id in ("DeprecationWarning", "FutureWarning", "UserWarning") and node.args:
            return _text(node.args[0], env)
    return None


def _strong(tok, quoted):
    """Whether ``tok`` is a name and not a word of the sentence."""
    tok = (tok or "").rstrip(".,;:")
    if not tok or "{}" in key_of(tok):  # a placeholder inside a call's parentheses is a value, not the name
        return False
    if quoted:
        return True
    return tok.lower() not in _WORDS and bool(re.search(r"[_.(]|^--|[a-z][A-Z]|=", tok))


def key_of(tok):
    """The name a message's spelling stands for: '--worker-use-ray' -> worker_use_ray, 'Trainer(gpus=...)' ->
    gpus, 'a.b.c()' -> c (explain looks a name up the same way)."""
    tok = tok.strip("`'\" ")
    if tok.startswith("-"):
        return tok.lstrip("-").split("=")[0].replace("-", "_")
    m = re.match(r"[\w.]{1,100}\((\w{1,80})\s?=", tok)
    if m:
        return m.group(1)
    tok = tok.split("(")[0].rstrip(".")
    return tok.rsplit(".", 1)[-1]


def _clean_new(tok):
    tok = tok.strip("`'\" ").rstrip(".,;:")
    if not tok or "{}" in key_of(tok) or len(tok) > 120:
        return ""
    return tok.replace("{}", "...")


def _pairs_in(msg, subject=None):
    """[(old, new, message)] named by one message (subject: the site's own name, for 'Deprecated, use Y')."""
    out = []
    one = " ".join(msg.split())
    for rx in _PAIRS:
        for m in rx.finditer(one):
            old, oq = m.group("old"), m.group("oldq")
            new = m.groupdict().get("new")
            if not _strong(old, oq):
                if subject and old.lower() in _WORDS | {"{}"}:
                    old, oq = subject, "`"
                else:
                    continue
            if new is not None and not _strong(new, m.group("newq")):
                continue
            k = key_of(old)
            if len(k) >= 3 and re.fullmatch(r"[A-Za-z_]\w{2,80}", k):
                out.append((k, _clean_new(new) if new else "", one[:200]))
    named = {o for o, n, _ in out if n}
    out = [r for r in out if r[1] or r[0] not in named]
    if subject and not any(o == key_of(subject) for o, _, _ in out):
        m = _SUBJ.search(one)
        if m and _strong(m.group("new"), m.group("newq")):
            out.append((key_of(subject), _clean_new(m.group("new")), one[:200]))
    return out


def deprecations(files):
    """Every (old, new, message) the deprecation sites of one release's .py files name; new '' where the message
    names none."""
    out = []
    for path, text in files:
        if not _DEP_WORDS.search(text):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for m in _DOC.finditer(text):  # docstrings: "worker_use_ray: Deprecated, use distributed_executor_backend"
            out.append((m.group(1), _clean_new(m.group("new")), " ".join(m.group(0).split())[:200]))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                out += _field_deprecations(node)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                continue
            # a function's calls, with the strings it assigns to names (msg = "..."; warnings.warn(msg)); the
            # module's own statements with the module-level ones
            # (review17) a class's methods are read as functions of their own (ast.walk reaches them), not with
            # the module's statements; and a name assigned twice in one function (diffusers' unfuse_lora:
            # depr_message for unfuse_transformer, then for unfuse_text_encoder) is read at each call as its latest
            # assignment ABOVE the call, not the function's last one
            body = [node] if not isinstance(node, ast.Module) else \
                [x for x in node.body if not isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
            assigned, env = [], {}
            for st in body:
                for sub in ast.walk(st):
                    if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
                        assigned.append(sub)
            assigned.sort(key=lambda a: (a.lineno, a.col_offset))
            for sub in assigned:
                got = _text(sub.value, env)
                if got is not None:
                    env[sub.targets[0].id] = got
                    sub._review17_text = got
            for st in body:
                for call in ast.walk(st):
                    if isinstance(call, ast.Call):
                        at = {}
                        for sub in assigned:
                            if sub.lineno >= call.lineno:
                                break
                            if getattr(sub, "_review17_text", None) is not None:
                                at[sub.targets[0].id] = sub._review17_text
                        out += _call_deprecations(call, at)
    seen, uniq = set(), []
    for row in out:
        if row[:2] not in seen:
            seen.add(row[:2])
            uniq.append(row)
    return uniq


def _call_deprecations(call, env):
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    if name not in _CALLS:
        return []
    strs = [a for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if name == "deprecate_kwarg" and strs:  # transformers: deprecate_kwarg("old", version, new_name="new")
        new = kw.get("new_name")
        new = new.value if isinstance(new, ast.Constant) and isinstance(new.value, str) else ""
        return [(strs[0].value, new, "deprecate_kwarg(%r, new_name=%r)" % (strs[0].value, new))]
    subject = None
    if name == "add_argument":
        flags = [s.value for s in strs if s.value.startswith("--")]
        subject = flags[0] if flags else None
        dep = kw.get("deprecated")
        if subject and isinstance(dep, ast.Constant) and dep.value is True:
            msgs = [_text(kw["help"], env) or ""] if "help" in kw else []
            got = [p for m in msgs for p in _pairs_in(m, subject)]
            return got or [(key_of(subject), "", "add_argument(%r, deprecated=True)" % subject)]
    elif name in ("deprecate", "deprecate_kwargs") and strs:
        subject = strs[0].value
    msgs = [_text(a, env) for a in call.args] + [_text(kw[k], env) for k in ("help", "message", "additional_message",
                                                                          "msg", "reason") if k in kw]
    out = []
    for m in msgs:
        if m and _DEP_WORDS.search(m):
            out += _pairs_in(m, subject)
    return out


def _field_deprecations(cls):
    """DeepSpeed's DeepSpeedConfigModel fields: name: T = Field(default, deprecated=True, new_param="other") (or
    json_schema_extra={"deprecated": True, "new_param": "other"})."""
    out = []
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Call)):
            continue
        kw = {k.arg: k.value for k in node.value.keywords if k.arg}
        extra = kw.get("json_schema_extra")
        if isinstance(extra, ast.Dict):
            kw.update({k.value: v for k, v in zip(extra.keys, extra.values) if isinstance(k, ast.Constant)})
        dep = kw.get("deprecated")
        if isinstance(dep, ast.Constant) and dep.value is True:
            new = kw.get("new_param")
            new = new.value if isinstance(new, ast.Constant) and isinstance(new.value, str) else ""
            out.append((node.target.id, new, "%s: Field(deprecated=True, new_param=%r)" % (node.target.id, new)))
    return out


def extract(pkg, files):
    """What one release of ``pkg`` holds: {"names": {module: [...]}, "params": {class: [...]}, "deprecated":
    [(old, new, message)]}."""
    src = FastSources(files)
    names = {}
    for mod in sorted(src.text):
        if mod == pkg or mod.startswith(pkg + ".") and tracked(mod, pkg):
            if src.tree(mod) is not None:
                names[mod] = sorted(n for n in src.names(mod) if not n.startswith("_"))
    params = {}
    for p, cls, mods in CLASSES:
        if p != pkg:
            continue
        for mod in mods:
            got = src.tree(mod)
            if got is None:
                continue
            node = None
            for n in _body_nodes(got[0].body):
                if getattr(n, "name", None) == cls and isinstance(n, (ast.ClassDef, ast.FunctionDef)):
                    node = n
            if node is None:
                continue
            if isinstance(node, ast.FunctionDef):
                a = node.args
                params[cls] = sorted(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
            else:
                # bases defined in the same package (Seq2SeqTrainingArguments(TrainingArguments)), looked up in the
                # modules CLASSES names for it
                index = _classes(src, [mod] + [m for q, _, ms in CLASSES if q == pkg for m in ms])
                got_f, _ = _fields(node, index)
                if got_f is not None:
                    params[cls] = sorted(got_f)
            break
    if pkg in CLI:
        mods, cls = CLI[pkg]
        flags = set(params.get(cls, ())) if cls else set()
        for mod in mods:
            got = src.tree(mod)
            for call in ast.walk(got[0]) if got else ():
                if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "add_argument":
                    for a in call.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                            flags.add(key_of(a.value))
        if flags:
            params["%s CLI" % pkg] = sorted(flags)
    if pkg in ENV:
        mod, prefix = ENV[pkg]
        got = src.tree(mod)
        env = set()
        for node in ast.walk(got[0]) if got else ():
            if isinstance(node, ast.Dict):
                env |= {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str) and
                        re.fullmatch(prefix + r"[A-Z0-9_]{1,80}", k.value)}
        if env:
            params["%s ENV" % pkg] = sorted(env)
    return {"names": names, "params": params, "deprecated": sorted(deprecations(files))}


# --------------------------------------------------------------------------- the table

def _span(present, releases):
    idx = [i for i, r in enumerate(releases) if r in present]
    first, last = idx[0], idx[-1]
    return [first, last + 1 if last + 1 < len(releases) else None]


def _enc(spans):
    """{name: [first, after-last or None]} as one string, 'name=first-afterlast' (after-last empty: still in the
    newest), space-separated: explain loads every generated file when it starts, and one string per module parses
    in a fraction of the time that thousands of small lists take (gpudoctor/explain/apihistory.py decodes it)."""
    return " ".join("%s=%d-%s" % (n, a, "" if b is None else b) for n, (a, b) in sorted(spans.items()))


def replaced(per, releases):
    """{old: [replacement or '', first, last release index with a message about it, the newest message]} from
    each release's deprecation sites (extract()'s "deprecated")."""
    deps, out = {}, {}
    for i, r in enumerate(releases):
        for old, new, msg in per[r].get("deprecated", ()):
            deps.setdefault(old, {}).setdefault(new, []).append((i, msg))
    for old, by in sorted(deps.items()):
        named = {n: v for n, v in by.items() if n} or by
        # the one named in the most releases; of equals the one that says the value too ('--x=ray' over 'x'),
        # then the newest
        new, rows = max(named.items(), key=lambda kv: (len(kv[1]), "=" in kv[0], kv[1][-1][0], kv[0]))
        idx = sorted({i for v in by.values() for i, _ in v})
        out[old] = [new, idx[0], idx[-1], rows[-1][1]]
    return out


def replaced_only(d, which, out, record=None, jobs=2):
    """--replaced-only: read only the deprecation sites of each release in folder ``d`` and put them, as
    "replaced", into the table at ``out`` (built before from the same releases: its names and params stay)."""
    from concurrent.futures import ProcessPoolExecutor

    path = out or os.path.join(knowgen.OUT_DIR, SETS[which][0] + ".json")
    with open(path) as f:
        doc = json.load(f)
    todo = []
    for pkg, t in sorted(doc["packages"].items()):
        for release in t["releases"]:
            w = _wheel(d, pkg, release)
            if w is None:
                raise SystemExit("%s %s: no wheel in %s (the table was built from it)" % (pkg, release, d))
            todo.append((pkg, release, w))
    per = {}
    with ProcessPoolExecutor(jobs) as pool:
        for (pkg, release, w), got in zip(todo, pool.map(_read_deprecations, todo)):
            per.setdefault(pkg, {})[release] = {"names": {}, "params": {}, "deprecated": got}
    if record:
        with open(record, "w") as f:
            f.write("# Recorded by tools/gen_api_history.py --replaced-only --record: per release, the deprecation "
                    "sites (d <old> <new> <message>, tab-separated)\n")
            for pkg, rs in sorted(per.items()):
                for release, got in rs.items():
                    f.write("#! release %s %s\n" % (pkg, release))
                    for old, new, msg in got["deprecated"]:
                        f.write("d\t%s\t%s\t%s\n" % (old, new, " ".join(msg.split())))
    for pkg, t in doc["packages"].items():
        t["replaced"] = replaced(per[pkg], t["releases"])
    doc["header"]["note"] = build({}, "", which)["header"]["note"]
    doc["header"]["date"] = knowgen.header("", "", "")["date"]
    return doc, path


def _read_deprecations(job):
    pkg, release, path = job
    print("read %s" % os.path.basename(path), file=sys.stderr)
    return sorted(deprecations(_files(pkg, path)))


def build(per_pkg, version, which="hf"):
    """per_pkg: {package: {release: extract()}}; which: the set (SETS)."""
    out = {}
    for pkg, per in sorted(per_pkg.items()):
        releases = sorted(per, key=_key)
        names, params, mods = {}, {}, {}
        for r in releases:
            for mod, ns in per[r]["names"].items():
                mods.setdefault(mod, set()).add(r)
                for n in ns:
                    names.setdefault(mod, {}).setdefault(n, set()).add(r)
            for cls, ps in per[r]["params"].items():
                for n in ps:
                    params.setdefault(cls, {}).setdefault(n, set()).add(r)
        full = len(releases)
        named = {m: {n: _span(rs, releases) for n, rs in sorted(ns.items()) if len(rs) < full and len(rs) < len(mods[m])}
                 for m, ns in sorted(names.items())}
        out[pkg] = {
            "releases": releases,
            "modules": _enc({m: _span(rs, releases) for m, rs in sorted(mods.items())}),
            # a module whose names never change within the releases that have it says nothing: kept as a module only
            "names": {m: _enc(ns) for m, ns in named.items() if ns},
            "params": {},
        }
        # the deprecation sites: per old name the replacement its messages name (the one named in the most
        # releases; the newest of equals), [replacement or "", first, last release index with such a message, the
        # newest message]
        out[pkg]["replaced"] = replaced(per, releases)
        # a class's fields: only those that change, plus the releases the class is read in
        for c, ps in sorted(params.items()):
            seen = sorted(set().union(*ps.values()), key=_key)
            out[pkg]["params"][c] = {"read": [releases.index(seen[0]), releases.index(seen[-1])],
                                     "args": _enc({n: _span(rs, releases) for n, rs in sorted(ps.items())
                                                   if len(rs) < len(seen)})}
    note = ("generated by %s; do not edit by hand, run it again. Per package: releases read (oldest first); "
            "modules: 'module=first-afterlast ...' for each module whose names are recorded; names: per "
            "module, only the names that appear or disappear within those releases, 'name=first-afterlast ...' "
            "(first: index of the first release with it; afterlast: of the first release after its last, empty: "
            "still in the newest); params: per class, read: [first, last] release index it is found in, args: "
            "its keyword fields that change, encoded the same way ('<package> CLI': the command line's flags, "
            "'--a-b' as a_b; '<package> ENV': its environment variables); replaced: per name a deprecation "
            "site names, [its replacement ('' where the message names none), first and last release index "
            "whose sources carry the message, the newest message]"
            % GENERATOR)
    return {"header": knowgen.header(SOURCE % SETS[which][1], version, GENERATOR, note), "packages": out}


def write(doc, out, which="hf"):
    path = out or os.path.join(knowgen.OUT_DIR, SETS[which][0] + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        # one line per module / class: small, and a regeneration diffs line by line
        # "sites": none (explain loads every generated file as message sites: gpudoctor/explain/knowledge.py)
        f.write('{"header": %s,\n"sites": [],\n"packages": {\n' % json.dumps(doc["header"], sort_keys=True))
        pk = sorted(doc["packages"].items())
        for i, (pkg, d) in enumerate(pk):
            f.write('%s: {"releases": %s,\n"modules": %s,\n"params": {\n' % (
                json.dumps(pkg), json.dumps(d["releases"]), json.dumps(d["modules"], separators=(",", ":"))))
            f.write(",\n".join("%s: %s" % (json.dumps(c), json.dumps(v, separators=(",", ":")))
                               for c, v in sorted(d["params"].items())))
            f.write('},\n"replaced": {\n')
            f.write(",\n".join("%s: %s" % (json.dumps(o), json.dumps(v, separators=(",", ":"), ensure_ascii=False))
                               for o, v in sorted(d.get("replaced", {}).items())))
            f.write('},\n"names": {\n')
            f.write(",\n".join("%s: %s" % (json.dumps(m), json.dumps(v, separators=(",", ":")))
                               for m, v in sorted(d["names"].items())))
            f.write("}}%s\n" % ("," if i < len(pk) - 1 else ""))
        f.write("}}\n")
    return path


# --------------------------------------------------------------------------- the record (slice)

def write_record(path, version, rows):
    """rows: [(package, release, wheel, extract())]; per package the first release whole, then what each adds
    (n+) and drops (n-) against the one before."""
    with open(path, "w") as f:
        f.write("# Recorded by tools/gen_api_history.py --record: per package release, the wheel read, then the public\n"
                "# names of each tracked module (n <module> <names>; after the first release n+/n- add and drop and\n"
                "# n- <module> drops the module) and the keyword fields of CLASSES (p <class> <names>).\n")
        f.write("#! version %s\n" % version)
        prev = {}
        for pkg, release, wheel, got in rows:
            f.write("#! release %s %s %s\n" % (pkg, release, wheel))
            before = prev.get(pkg)
            for mod in sorted(set(got["names"]) | set(before["names"] if before else ())):
                now = set(got["names"].get(mod, ()))
                if before is None or mod not in before["names"]:
                    f.write("n %s %s\n" % (mod, " ".join(sorted(now))))
                elif mod not in got["names"]:
                    f.write("n- %s\n" % mod)
                else:
                    old = set(before["names"][mod])
                    for sign, items in (("+", sorted(now - old)), ("-", sorted(old - now))):
                        if items:
                            f.write("n%s %s %s\n" % (sign, mod, " ".join(items)))
            for cls, ps in sorted(got["params"].items()):
                f.write("p %s %s\n" % (cls.replace(" ", "~"), " ".join(ps)))
            for old, new, msg in got.get("deprecated", ()):
                f.write("d\t%s\t%s\t%s\n" % (old, new, " ".join(msg.split())))
            prev[pkg] = got


def from_slice(path):
    per, version, cur, prev = {}, "slice", None, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("#! release "):
                _, _, pkg, release = line.split()[:4]
                before = prev.get(pkg)
                cur = {"names": {m: list(ns) for m, ns in before["names"].items()} if before else {}, "params": {},
                       "deprecated": []}
                per.setdefault(pkg, {})[release] = cur
                prev[pkg] = cur
            elif cur is None or not line or line.startswith("#"):
                continue
            elif line.startswith("d\t"):
                cur["deprecated"].append(tuple((line.split("\t") + ["", ""])[1:4]))
            else:
                parts = line.split()
                kind, what, items = parts[0], parts[1], parts[2:]
                if kind == "n":
                    cur["names"][what] = items
                elif kind == "n+":
                    cur["names"][what] = sorted(set(cur["names"].get(what, ())) | set(items))
                elif kind == "n-" and items:
                    cur["names"][what] = sorted(set(cur["names"].get(what, ())) - set(items))
                elif kind == "n-":
                    cur["names"].pop(what, None)
                elif kind == "p":
                    cur["params"][what.replace("~", " ")] = items
    return per, version


# --------------------------------------------------------------------------- the wheels

def releases_of(pkg, which="hf"):
    """The first release of each minor line from FIRST[pkg] on (each patch release: PATCH), as `pip index versions`
    lists them, thinned by STEP / EARLY."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", pkg], capture_output=True, text=True,
                         timeout=120).stdout
    m = re.search(r"Available versions: (.*)", out)
    if not m:
        raise SystemExit("pip index versions %s: no versions" % pkg)
    best = {}
    for v in m.group(1).split(", "):
        if re.fullmatch(r"\d+\.\d+\.\d+", v):
            k = _key(v)
            line = k if pkg in PATCH else k[:2]
            if k[:2] >= FIRST[which][pkg] and (line not in best or k < best[line]):
                best[line] = k
    keys = sorted(best)
    step = STEP.get(pkg, 1)
    if pkg in EARLY:  # every line up to EARLY, then every STEP-th counted back from the newest
        early = [k for k in keys if k[:2] <= EARLY[pkg]]
        late = [k for k in keys if k[:2] > EARLY[pkg]]
        keys = early + sorted(late[::-1][::step])
    else:
        keys = [k for i, k in enumerate(keys) if i % step == 0 or i == len(keys) - 1]
    return [".".join(map(str, best[k])) for k in keys]


def _wheel(d, pkg, release):
    for name in sorted(os.listdir(d)):
        if name.startswith("%s-%s" % (pkg, release)) and (
                name.startswith("%s-%s-" % (pkg, release)) and name.endswith(".whl") or
                name == "%s-%s.tar.gz" % (pkg, release)):
            return os.path.join(d, name)
    return None


def _read(job):
    pkg, release, path = job
    files = _files(pkg, path)
    print("read %s" % os.path.basename(path), file=sys.stderr)
    return extract(pkg, files)


def _files(pkg, path):
    """The (name, text) of every .py file of ``pkg`` in a wheel or an sdist."""
    if path.endswith(".tar.gz"):  # an sdist: <pkg>-<release>/<pkg>/...
        import tarfile

        with tarfile.open(path) as t:
            files = []
            for m in t.getmembers():
                n = m.name.split("/", 1)[-1]
                if m.isfile() and n.startswith(pkg + "/") and n.endswith(".py"):
                    files.append((n, t.extractfile(m).read().decode("utf-8", "replace")))
    else:
        with zipfile.ZipFile(path) as z:
            files = [(n, z.read(n).decode("utf-8", "replace")) for n in z.namelist()
                     if n.startswith(pkg + "/") and n.endswith(".py")]
    return files


def from_wheels(d, download, record=None, jobs=2, which="hf"):
    from concurrent.futures import ProcessPoolExecutor

    per, rows, todo = {}, [], []
    for pkg in sorted(FIRST[which]):
        for release in releases_of(pkg, which):
            path = _wheel(d, pkg, release)
            if path is None and download:
                how = ["--no-binary=:all:"] if pkg in SDIST else \
                    ["--only-binary=:all:"]
                subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps"] + how +
                               ["-d", d, "%s==%s" % (pkg, release)], timeout=900)
                path = _wheel(d, pkg, release)
            if path is None:
                print("skipped %s %s: no wheel" % (pkg, release), file=sys.stderr)
                continue
            todo.append((pkg, release, path))
    with ProcessPoolExecutor(jobs) as pool:
        for (pkg, release, path), got in zip(todo, pool.map(_read, todo)):
            per.setdefault(pkg, {})[release] = got
            rows.append((pkg, release, os.path.basename(path), got))
    version = "; ".join("%s %d releases %s to %s" % (p, len(v), min(v, key=_key), max(v, key=_key))
                        for p, v in sorted(per.items()))
    if record:
        write_record(record, version, rows)
    return per, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheels", source_opts={"help": "the folder of cached wheels"},
                          extra=[("--record", {"help": "write what was read as a slice (with --wheels)"}),
                                 ("--download", {"action": "store_true",
                                                 "help": "pip download the wheels the folder lacks"}),
                                 ("--set", {"choices": sorted(SETS), "default": None,
                                            "help": "the packages read: hf (api_history.json, the default) or "
                                                    "serving (api_history_serving.json)"}),
                                 ("--jobs", {"type": int, "default": 2}),
                                 ("--replaced-only", {"action": "store_true",
                                                      "help": "with --wheels: only the deprecation sites, put into "
                                                              "the table OUT already built from those releases"})])
    if a.wheels and a.replaced_only:
        doc, path = replaced_only(a.wheels, a.set or "hf", a.out, a.record, a.jobs)
        write(doc, path, a.set or "hf")
        print("%s: %s" % (path, ", ".join("%s %d replaced" % (p, sum(1 for v in d["replaced"].values() if v[0]))
                                          for p, d in sorted(doc["packages"].items()))))
        return 0
    if a.wheels:
        which = a.set or "hf"
        per, version = from_wheels(a.wheels, a.download, a.record, a.jobs, which)
    else:
        per, version = from_slice(a.slice)
        which = a.set or next((w for w in SETS if set(per) <= set(FIRST[w])), "hf")
    if not per:
        a.error("no release read")
    doc = build(per, version, which)
    path = write(doc, a.out, which)
    print("%s: %s; %d bytes" % (path, ", ".join("%s %d names %d params %d replaced" % (
        p, sum(len(v.split()) for v in d["names"].values()), sum(len(v["args"].split()) for v in d["params"].values()),
        sum(1 for v in d["replaced"].values() if v[0]))
        for p, d in sorted(doc["packages"].items())), os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
