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
from gen_torch_api import Sources, _all_extended, _body_nodes, _key  # noqa: E402

GENERATOR = "tools/gen_api_history.py"
# two sets of packages, each its own table: the Hugging Face training stack (api_history.json) and the serving /
# training frameworks around it (api_history_serving.json)
SETS = {
    "hf": ("api_history", "transformers, accelerate, peft, trl, datasets and safetensors"),
    "serving": ("api_history_serving", "vllm, pytorch_lightning, diffusers, sglang and deepspeed (an sdist)"),
    # (removed18) the libraries the others run on: a name one of them removed, still called by another library's
    # older release ('numba-cuda still calls np.row_stack'), is a version mismatch between the two
    "sci": ("api_history_sci", "numpy, scipy, pandas, jax, flax, optax, huggingface_hub, torchvision and torchaudio"),
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
    # numpy from 1.20 (its deprecated type aliases, expired in 1.24) and jax from 0.4.16, its first wheel (its patch
    # releases are its lines: jax.tree_map, jax.abstract_arrays ... left within 0.4.x and later)
    "sci": {"numpy": (1, 20), "scipy": (1, 10), "pandas": (1, 5), "jax": (0, 4, 16), "flax": (0, 6), "optax": (0, 1),
            "huggingface_hub": (0, 10), "torchvision": (0, 15), "torchaudio": (2, 0)},
}
# transformers releases a minor line every few weeks and reading one takes ~30 s: every STEP-th line is read (and
# the newest), so its spans are "by release B" rather than "in release B" (the answer still names a release that
# has the name). vLLM's wheels are ~300 MB each: every line up to EARLY (the V0 -> V1 engine years), then every
# STEP-th line counted back from the newest. sglang changes its server arguments within a minor line: its patch
# releases are its lines (PATCH)
STEP = {"transformers": 3, "vllm": 4, "diffusers": 2, "sglang": 3, "jax": 4, "flax": 5, "huggingface_hub": 4,
        "optax": 3, "torchvision": 2, "torchaudio": 2}
EARLY = {"vllm": (0, 11)}
PATCH = {"sglang", "jax", "flax", "optax"}
SDIST = {"deepspeed"}  # DeepSpeed publishes no wheel: its sdist (a .tar.gz) is read the same way
NEWER_PY = ["--python-version", "3.13", "--only-binary=:all:"]
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
            if m and "__all__ +=" not in got[0] and "__all__.extend" not in got[0] and \
                    not (self.sub_all and "extend_all(" in got[0]):
                try:
                    return set(ast.literal_eval(m.group(1)))
                except (ValueError, SyntaxError):
                    pass
        got = Sources.public(self, mod, depth)
        if self.sub_all and got is not None and depth < 6:
            got = set(got) | self._sub_all(mod, depth)
        return got

    sub_all = False  # (removed18) the sci set reads `__all__ += sub.__all__` too

    def _sub_all(self, mod, depth):
        """(removed18) The names `__all__ += sub.__all__` / `__all__.extend(sub.__all__)` add, sub a submodule
        (numpy 1.x's core/__init__.py: `__all__ += numeric.__all__`; numpy/__init__.py: `__all__.extend(core.__all__)`):
        without them np.float_, np.product ... would be in no release read before 2.0."""
        got = self.tree(mod)
        out = set()
        if got is None:
            return out
        tree, is_pkg = got
        base = mod if is_pkg else mod.rsplit(".", 1)[0]
        for node in _body_nodes(tree.body):
            val = None
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
                val = node.value
            elif _all_extended(node) is not None:
                val = _all_extended(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                    isinstance(node.value.func, ast.Name) and node.value.func.id == "extend_all" and \
                    len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name):
                # numpy 1.x core/numeric.py: extend_all(fromnumeric) appends that module's __all__ to its own
                val = ast.Attribute(value=node.value.args[0], attr="__all__")
            if isinstance(val, ast.Attribute) and val.attr == "__all__" and isinstance(val.value, ast.Name):
                sub = "%s.%s" % (base, val.value.id)
                if sub in self.text and sub != mod:
                    out |= self.public(sub, depth + 1)
        return out


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
         r"environment variable|property|kwarg|alias)s?)?"
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
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out += _decorator_deprecations(node)
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


def _decorator_deprecations(node):
    """(removed18) A function or class whose decorator deprecates it: huggingface_hub's
    @_deprecate_method(version=..., message="Use `hf_hub_download` instead.") (utils/_deprecation.py), typing_extensions'
    / warnings' @deprecated("Use Y"): the decorated name is the message's subject."""
    out = []
    for d in node.decorator_list:
        if not isinstance(d, ast.Call):
            continue
        f = d.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if "deprecat" not in fname.lower():
            continue
        msgs = [_text(a, {}) for a in d.args] + [_text(k.value, {}) for k in d.keywords
                                                 if k.arg in ("message", "reason", "msg", "details", "additional_message")]
        for m in msgs:
            if not m or node.name.startswith("_"):
                continue
            pairs = [p for p in _pairs_in(m, "`%s`" % node.name) if p[0] == node.name]
            new = next((p[1] for p in pairs if p[1]), "") or table_new(node.name, m)
            out.append((node.name, new, " ".join(m.split())[:200].rstrip()))
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
    src.sub_all = pkg in FIRST["sci"]
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
    deprecated, gone = deprecations(files), set()
    for mod, name, state, new, msg in attr_tables(files, pkg):
        if state == "present" and mod in names and name not in names[mod]:
            names[mod] = sorted(names[mod] + [name])
        elif state == "gone":
            gone.add((mod, name))
        deprecated.append((name, new, msg))
    return {"names": names, "params": params, "deprecated": sorted(set(deprecated)), "gone": sorted(gone)}


# --------------------------------------------------------------------------- attribute tables (removed18)

# Libraries that keep the message of a deprecated or removed module attribute in a table their module __getattr__
# (PEP 562) reads:
# - numpy/__init__.py (https://github.com/numpy/numpy/blob/v1.26.0/numpy/__init__.py): __deprecated_attrs__
#   {name: (value, message)} (a DeprecationWarning, still served: 1.20's np.float, np.int ...), __former_attrs__
#   {name: message} (AttributeError with the message: those aliases from 1.24 on), __expired_functions__ (NEP 32's
#   financial functions, 1.20-1.25: callable, raising RuntimeError);
# - numpy/_expired_attrs_2_0.py __expired_attributes__ {name: migration note} (numpy 2.0's __getattr__: AttributeError
#   "`np.X` was removed in the NumPy 2.0 release. <note>",
#   https://github.com/numpy/numpy/blob/v2.0.0/numpy/_expired_attrs_2_0.py);
# - jax's _deprecations {name: (message, fn)} in each public module, read by jax/_src/deprecations.py
#   deprecation_getattr: fn None raises AttributeError(message), else warns DeprecationWarning(message)
#   (https://github.com/jax-ml/jax/blob/main/jax/_src/deprecations.py).
# The tables are built by literal code (string templates, str.format, comprehensions over lists of tuples): _Static
# evaluates that subset of the module's statements, nothing is imported.
ATTR_TABLES = {"__deprecated_attrs__": "deprecated", "__former_attrs__": "removed", "__expired_functions__": "removed",
               "__expired_attributes__": "removed", "_deprecations": "pair"}
# the replacement a table's message names for its own key: "use `Y` (instead)", "alias for (the builtin) `Y`",
# "available as `Y`", "in favor of Y", "replaced by Y", "moved to Y"
_TABLE_NEW = re.compile(r"(?:\buse|in favou?r of|replaced (?:by|with)|alias (?:for|of)|available (?:as|from)|"
                        r"switch to|moved to|migrate to)(?: the)?(?: builtin| equivalent| function| new)?:? %s" % _NEW,
                        re.I)


class _Opaque(object):
    """A value the static reader does not compute (an object, a call): formats as '{}'."""

    def __format__(self, spec):
        return "{}"

    def __repr__(self):
        return "{}"

    __str__ = __repr__


_OPAQUE = _Opaque()


class _Static(object):
    """Evaluates the literal part of a module's statements: constants, f-strings, '+', str.format, tuples, lists,
    dicts, one-generator comprehensions, d[k] = v, d.update(...), into if / try / with blocks."""

    def __init__(self):
        self.env = {}

    def run(self, body, depth=0):
        for st in body:
            if depth > 8:
                return
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                t = st.targets[0]
                if isinstance(t, ast.Name):
                    self.env[t.id] = self.ev(st.value)
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                        isinstance(self.env.get(t.value.id), dict):
                    k = self.ev(t.slice)
                    if isinstance(k, str):
                        self.env[t.value.id][k] = self.ev(st.value)
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                self.env[st.target.id] = self.ev(st.value)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                f = st.value.func
                if isinstance(f, ast.Attribute) and f.attr == "update" and isinstance(f.value, ast.Name) and \
                        isinstance(self.env.get(f.value.id), dict) and len(st.value.args) == 1:
                    got = self.ev(st.value.args[0])
                    if isinstance(got, dict):
                        self.env[f.value.id].update(got)
            elif isinstance(st, ast.If):
                self.run(st.body, depth + 1)
                self.run(st.orelse, depth + 1)
            elif isinstance(st, ast.Try):
                self.run(st.body + st.orelse + st.finalbody, depth + 1)
            elif isinstance(st, ast.With):
                self.run(st.body, depth + 1)

    def ev(self, node, depth=0):
        if depth > 40:
            return _OPAQUE
        d = depth + 1
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for v in node.values:
                x = v.value if isinstance(v, ast.Constant) else self.ev(v.value, d)
                out.append(x if isinstance(x, str) else "{}")
            return "".join(out)
        if isinstance(node, ast.Name):
            return self.env.get(node.id, _OPAQUE)
        if isinstance(node, (ast.Tuple, ast.List)):
            got = [self.ev(e, d) for e in node.elts]
            return tuple(got) if isinstance(node, ast.Tuple) else got
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                kk = self.ev(k, d) if k is not None else None
                if isinstance(kk, str):
                    out[kk] = self.ev(v, d)
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.ev(node.left, d), self.ev(node.right, d)
            if isinstance(a, str) and isinstance(b, str) or isinstance(a, list) and isinstance(b, list):
                return a + b
            return _OPAQUE
        if isinstance(node, (ast.DictComp, ast.ListComp)) and len(node.generators) == 1:
            g = node.generators[0]
            items = self.ev(g.iter, d)
            if not isinstance(items, (list, tuple)) or len(items) > 5000 or g.ifs:
                return _OPAQUE
            names = [g.target.id] if isinstance(g.target, ast.Name) else \
                [e.id for e in g.target.elts if isinstance(e, ast.Name)] if isinstance(g.target, ast.Tuple) else []
            out = {} if isinstance(node, ast.DictComp) else []
            saved = dict(self.env)
            try:
                for it in items:
                    vals = [it] if isinstance(g.target, ast.Name) else it
                    if not isinstance(vals, (list, tuple)) or len(vals) != len(names) or not names:
                        continue
                    self.env.update(zip(names, vals))
                    if isinstance(node, ast.DictComp):
                        k = self.ev(node.key, d)
                        if isinstance(k, str):
                            out[k] = self.ev(node.value, d)
                    else:
                        out.append(self.ev(node.elt, d))
            finally:
                self.env = saved
            return out
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            base = self.ev(node.func.value, d)
            if isinstance(base, str):
                args = [self.ev(a, d) for a in node.args]
                kw = {k.arg: self.ev(k.value, d) for k in node.keywords if k.arg}
                try:
                    return base.format(*args, **kw)
                except (IndexError, KeyError, ValueError, AttributeError):
                    return _OPAQUE
        return _OPAQUE


def _table_module(path, pkg):
    """The module a table of file ``path`` answers for: the module itself, or the public package above a private
    module (numpy/_expired_attrs_2_0.py is numpy's); None inside a private package."""
    mod = path[:-3].replace("/", ".")
    if mod.endswith(".__init__"):
        mod = mod[:-9]
    parts = mod.split(".")
    if any(p.startswith("_") for p in parts[:-1]):
        return None
    if parts[-1].startswith("_"):
        parts = parts[:-1]
    return ".".join(parts) if parts and parts[0] == pkg else None


def table_new(name, msg, mod=""):
    """The replacement a table message names for its own key ``name`` of module ``mod`` ('' where it names none):
    the same name elsewhere counts ('jax.linear_util' -> 'jax.extend.linear_util', np.float -> the builtin
    'float'), the key's own spelling ('np.float', 'jax.tree_map') does not."""
    own = {"np." + name, "numpy." + name, "%s.%s" % (mod, name)}
    one = " ".join(msg.split())
    for m in _TABLE_NEW.finditer(one):
        new = _clean_new(m.group("new"))
        # 'Use DimSize = int | Any' spells a definition, not a name to use
        if new and _strong(new, m.group("newq")) and new not in own and not re.match(r"(?:e\.g|i\.e)\b", new) \
                and not one[m.end():].lstrip().startswith("="):
            return new
    return ""


def attr_tables(files, pkg):
    """[(module, name, 'present' or 'gone', replacement, message)] of the attribute tables (ATTR_TABLES) of one
    release's .py files."""
    out = []
    for path, text in files:
        if not any(t in text for t in ATTR_TABLES):
            continue
        mod = _table_module(path, pkg)
        if mod is None:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        st = _Static()
        st.run(tree.body)
        for var, kind in ATTR_TABLES.items():
            got = st.env.get(var)
            if not isinstance(got, dict):
                continue
            for name, v in sorted(got.items()):
                if not re.fullmatch(r"[A-Za-z_]\w{0,80}", name):
                    continue
                if kind == "pair":  # jax: (message, fn or None)
                    if not (isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)):
                        continue
                    msg, state = v[0], "gone" if v[1] is None else "present"
                elif kind == "deprecated":  # numpy: (value, message)
                    if not (isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], str)):
                        continue
                    msg, state = v[1], "present"
                else:
                    if not isinstance(v, str):
                        continue
                    msg, state = v, "gone"
                msg = " ".join(msg.split())
                if var == "__expired_attributes__":  # numpy 2's __getattr__ prints the note after its own words
                    msg = "`np.%s` was removed in the NumPy 2.0 release. %s" % (name, msg)
                out.append((mod, name, state, table_new(name, msg, mod), msg[:200].rstrip()))
    return out


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

    path = out or knowgen.out_path(SETS[which][0])
    with knowgen.open_text(path) as f:
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
        # (removed18) a name a release's table lists as removed (numpy's __expired_attributes__: "`np.float_` was
        # removed in the NumPy 2.0 release") was in the releases before it, even where the reader did not bind it
        # (set up by code it does not follow): it is counted in every release read before the first that lists it
        first_gone = {}
        for i, r in enumerate(releases):
            for mod, n in per[r].get("gone", ()):
                first_gone.setdefault((mod, n), i)
        for (mod, n), i in sorted(first_gone.items()):
            if i and mod in names and not names[mod].get(n):
                names[mod][n] = {r for r in releases[:i] if r in mods.get(mod, ())}
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
    path = out or knowgen.out_path(SETS[which][0])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with knowgen.open_write(path) as f:
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
            gone = {}
            for mod, n in got.get("gone", ()):
                gone.setdefault(mod, []).append(n)
            for mod, ns in sorted(gone.items()):
                f.write("g %s %s\n" % (mod, " ".join(sorted(ns))))
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
                       "deprecated": [], "gone": []}
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
                elif kind == "g":  # (removed18) names the release's attribute tables list as removed
                    cur["gone"] += [(what, n) for n in items]
    return per, version


# --------------------------------------------------------------------------- the wheels

def releases_of(pkg, which="hf"):
    """The first release of each minor line from FIRST[pkg] on (each patch release: PATCH), as `pip index versions`
    lists them, thinned by STEP / EARLY."""
    listed = []
    # (removed18) pip lists only the releases this Python can install: numpy 2.5 and jax 0.11 need Python >= 3.12,
    # so the sci set also asks for those of a newer one
    for py in ([], NEWER_PY) if which == "sci" else ([],):
        out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", pkg] + py, capture_output=True,
                             text=True, timeout=120).stdout
        m = re.search(r"Available versions: (.*)", out)
        listed += m.group(1).split(", ") if m else []
    if not listed:
        raise SystemExit("pip index versions %s: no versions" % pkg)
    best = {}
    for v in listed:
        if re.fullmatch(r"\d+\.\d+\.\d+", v):
            k = _key(v)
            line = k if pkg in PATCH else k[:2]
            if (k if pkg in PATCH else k[:2]) >= FIRST[which][pkg] and (line not in best or k < best[line]):
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
                for py in ([], ["--python-version", "3.9", "--platform", "manylinux2014_x86_64"],
                           NEWER_PY + ["--platform", "manylinux_2_28_x86_64", "--platform", "manylinux2014_x86_64"]):
                    # (removed18) numpy 1.20's wheels are for Python <= 3.9: the same sources, another tag
                    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps"] + how + py +
                                   ["-d", d, "%s==%s" % (pkg, release)], timeout=900)
                    path = _wheel(d, pkg, release)
                    if path is not None or pkg in SDIST:
                        break
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
