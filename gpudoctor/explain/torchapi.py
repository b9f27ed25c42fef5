"""Which torch release has a torch.distributed name, module or keyword argument (computed fix `torch_api`), and
the few other torch APIs scripts meet most (torch.compile, scaled_dot_product_attention, torch.amp,
checkpoint(use_reentrant=...), torch.load(weights_only=...), DistributedSampler(drop_last=...)).

A script written for one torch fails on another with one of these (the wordings are CPython's:
Objects/moduleobject.c module_getattro "module '%U' has no attribute '%U'", Python/ceval.c
import_from "cannot import name %R from %R", Lib/importlib/_bootstrap.py "No module named {!r}",
Python/getargs.c / ceval.c "%U() got an unexpected keyword argument '%S'"):

    AttributeError: module 'torch.distributed' has no attribute 'init_device_mesh'
    ImportError: cannot import name 'fully_shard' from 'torch.distributed.fsdp' (...)
    ModuleNotFoundError: No module named 'torch.distributed.device_mesh'
    TypeError: init_process_group() got an unexpected keyword argument 'device_id'

generated/torch_api.json (tools/gen_torch_api.py, from the torch wheels' own sources) says in which
release each arrived or was removed; the log's torch version (pip's `torch==2.1.0`, collect_env's
`PyTorch version: 2.1.0`, `2.1.0+cu121`) is compared with it when the log prints one.
"""

import re

# the modules the table records (tools/gen_torch_api.py PKG_DIRS): torch.distributed, torch.nn.parallel and the
# few others scripts meet most (torch itself, torch.nn.functional, torch.amp, torch.cuda.amp, checkpoint)
_MODS = (r"torch\.distributed(?:\.[A-Za-z_][\w.]{0,120})?|torch\.nn\.parallel(?:\.[A-Za-z_]\w{0,60})?|"
         r"torch\.nn\.functional|torch\.amp(?:\.[A-Za-z_]\w{0,60})?|torch\.cuda\.amp(?:\.[A-Za-z_]\w{0,60})?|"
         r"torch\.utils\.checkpoint|torch\.utils\.data\.distributed|torch")
_ATTR = re.compile(r"module '(%s)' has no attribute '([A-Za-z_]\w{0,80})'" % _MODS)
_IMPORT = re.compile(r"cannot import name '([A-Za-z_]\w{0,80})' from '(%s)'" % _MODS)
_NOMOD = re.compile(r"No module named '(torch\.(?:distributed|nn\.parallel|amp|cuda\.amp)(?:\.[A-Za-z_][\w.]{0,120})?)'")
# a keyword an older torch's function did not take, where it takes **kwargs and says so itself:
# torch/utils/checkpoint.py (1.x) raised ValueError("Unexpected keyword arguments: " + ",".join(kwargs));
# torch.load passed unknown keywords on to pickle's load (CPython Modules/_pickle.c via getargs:
# "'%U' is an invalid keyword argument for load()")
_CKPT = re.compile(r"Unexpected keyword arguments: (use_reentrant|context_fn|determinism_check|debug)\b")
_PICKLE = re.compile(r"'(weights_only|mmap)' is an invalid keyword argument for (?:load|Unpickler)\(\)")
# only these names of the module `torch` itself are recorded (gen_torch_api.py TOP_NAMES), and of them only these
# are answered: functions, and submodules that did not exist before they were bound (torch.amp and
# torch.distributed existed long before torch/__init__.py named them, so theirs is no release question)
_PARTIAL = {"torch"}
_TOP_ANSWERED = {"compile", "compiler", "export", "accelerator", "func", "vmap", "cond", "autocast", "inference_mode",
                 "set_float32_matmul_precision", "use_deterministic_algorithms", "set_default_device",
                 "get_default_device", "is_deterministic_algorithms_warn_only_enabled", "nested", "library"}
# the constructor call a traceback shows above a bare "__init__() got an unexpected keyword argument"
_CALL = re.compile(r"\b(DistributedDataParallel|FullyShardedDataParallel|DDP|FSDP|DistributedSampler|GradScaler)"
                   r"\s{0,4}\(")
_ALIAS = {"DDP": "DistributedDataParallel", "FSDP": "FullyShardedDataParallel"}
# torch/nn/modules/module.py Module.__getattr__: "'{type(self).__name__}' object has no attribute '{name}'"
# (torch 1.6-1.7 raised it as torch.nn.modules.module.ModuleAttributeError)
# (FullyShardedDataParallel is left out: its __getattr__ forwards to the wrapped module, so the model lacks it too)
_OBJ = re.compile(r"'(DistributedDataParallel|DataParallel)' object has no attribute "
                  r"'([A-Za-z_]\w{0,80})'")
_KWARG = re.compile(r"\b([A-Za-z_]\w{0,80}(?:\.__init__)?)\(\) got an unexpected keyword argument '([A-Za-z_]\w{0,80})'")
# the torch release the log prints: pip (`torch==2.1.0`, `torch  2.1.0`), torch.utils.collect_env
# (`PyTorch version: 2.1.0`), transformers-cli / accelerate env (`PyTorch version (GPU?): 2.1.0 (True)`),
# torch.__version__ with its local build (`2.1.0+cu121`), a user's own `torch version is 2.5.1`
_TORCH_V = [re.compile(r"(?:\btorch(?:==| {1,40}|: ?|-| version(?: is|:)? ?)|PyTorch version(?: \(GPU\?\))?: |"
                       r"torch\.__version__[^\n]{0,20}?)"
                       r"(\d\.\d{1,3}\.\d{1,3})(?![\w.])"),
            re.compile(r"\b(\d\.\d{1,3}\.\d{1,3})(?:a0)?\+(?:cu1[0-3]\d|cpu|rocm[\d.]{1,8})\b")]
# private predecessors the table does not list (names with a leading '_' are left out): torch 1.13's
# release notes name all_gather_into_tensor / reduce_scatter_tensor as the public _all_gather_base /
# _reduce_scatter_base (https://github.com/pytorch/pytorch/releases/tag/v1.13.0)
INSTEAD = {
    "all_gather_into_tensor": "dist._all_gather_base(output, input) on torch < 1.13",
    "reduce_scatter_tensor": "dist._reduce_scatter_base(output, input) on torch < 1.13",
}
# and the other way: the public names of those private ones
PUBLIC = {
    "_all_gather_base": "dist.all_gather_into_tensor(output, input) (torch 1.13 and newer)",
    "_reduce_scatter_base": "dist.reduce_scatter_tensor(output, input) (torch 1.13 and newer)",
}


def _private(kind, where, name):
    """Whether the thing asked is outside what the table records: a name or argument with a leading '_', or a
    module with a private part below torch.distributed's first level (tools/gen_torch_api.py MODULE_SKIP)."""
    if name and name.startswith("_"):
        return True
    mod = where if kind == "module" else (where if kind in ("attr", "import") else "")
    return any(p.startswith("_") for p in mod.split(".")[3:])


def table():
    """generated/torch_api.json, read once ({} when missing)."""
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("torch_api")


def _vt(v):
    return tuple(int(x) for x in re.findall(r"\d+", v or ""))[:3]


def torch_in_log(texts):
    """The torch release a log prints (X.Y.Z), or None."""
    for t in texts:
        for rx in _TORCH_V:
            m = rx.search(t)
            if m:
                return m.group(1)
    return None


def asked(texts):
    """(kind, where, name) of the first line that asks torch for something it lacks: kind 'attr' (where: the
    module), 'import' (the module), 'module' (where: the module, name None), 'kwarg' (where: the callable)."""
    for t in texts:
        m = _ATTR.search(t)
        if m:
            return "attr", m.group(1), m.group(2)
        m = _IMPORT.search(t)
        if m:
            return "import", m.group(2), m.group(1)
        m = _NOMOD.search(t)
        if m:
            return "module", m.group(1).rstrip("."), None
        m = _KWARG.search(t)
        if m and m.group(1) == "__init__":
            # Python < 3.10 names no class ("__init__() got an unexpected keyword argument 'x'"): the
            # traceback's source line above it names the call (model = DDP(model, ..., x=...))
            cls = next((c.group(1) for u in texts for c in [_CALL.search(u)] if c), None)
            if cls:
                return "kwarg", _ALIAS.get(cls, cls) + ".__init__", m.group(2)
            continue
        if m:
            return "kwarg", m.group(1), m.group(2)
        m = _OBJ.search(t)
        if m:
            return "obj", m.group(1), m.group(2)
        m = _CKPT.search(t)
        if m:
            return "kwarg", "checkpoint", m.group(1)
        m = _PICKLE.search(t)
        if m:
            return "kwarg", "load", m.group(1)
    return None


def span(kind, where, name, tb=None):
    """(what, {"since", "removed"} or None, releases) for the thing asked: None when no release read has it."""
    tb = table() if tb is None else tb
    mods, names, params = tb.get("modules", {}), tb.get("names", {}), tb.get("params", {})
    if kind == "module":
        return where, mods.get(where)
    if kind in ("attr", "import"):
        what = "%s.%s" % (where, name)
        if where not in names and what not in mods:
            return None, None  # a module whose names the table does not hold: no answer rather than a guess
        if where in _PARTIAL and (name not in names.get(where, {}) or name not in _TOP_ANSWERED):
            return None, None  # torch's own names come mostly from torch._C: only the recorded ones are answered
        return what, names.get(where, {}).get(name) or mods.get(what)
    if kind == "obj":
        ms = tb.get("members", {}).get(where)
        if ms is None:
            return None, None
        return "%s.%s" % (where, name), ms.get(name)
    fn = where[:-len(".__init__")] if where.endswith(".__init__") else where
    p = params.get(fn)
    if p is None:
        return None, None
    return "%s(%s=...)" % (fn, name), p["args"].get(name)


def elsewhere(kind, where, name, sp, tb):
    """The same name in another module of the table that older releases have (DTensor in
    torch.distributed._tensor before torch.distributed.tensor, fully_shard in _composable.fsdp before
    torch.distributed.fsdp): 'M.X (torch A to B)', or None."""
    if kind not in ("attr", "import") or not sp or not sp.get("since"):
        return None
    first, last = tb["releases"][0], tb["releases"][-1]
    best = None
    for mod, names in sorted(tb.get("names", {}).items()):
        got = names.get(name)
        if mod == where or not got or _vt(got.get("since") or first) >= _vt(sp["since"]):
            continue
        # one still there first (fully_shard: _composable.fsdp's, not _composable's FSDP1-based one that
        # 2.6 removed), then the oldest
        key = (bool(got.get("removed")), _vt(got.get("since") or first))
        if best is None or key < best[2]:
            best = (mod, got, key)
    if best is None:
        return None
    mod, got, _ = best
    return "%s.%s (torch %s to %s)" % (mod, name, got.get("since") or ("<= " + first),
                                       _release_before(tb, got["removed"]) if got.get("removed") else last)


def _release_before(tb, release):
    rel = tb["releases"]
    return rel[rel.index(release) - 1] if release in rel and rel.index(release) > 0 else release


def compute(texts, tb=None):
    """(fix line, why) for the torch.distributed API a log asks for, or None when the log asks for none."""
    tb = table() if tb is None else tb
    got = asked(texts)
    if not got or not tb.get("releases"):
        return None
    kind, where, name = got
    what, sp = span(kind, where, name, tb)
    if what is None:
        return None
    first, last = tb["releases"][0], tb["releases"][-1]
    have = torch_in_log(texts)
    yours = (" (your torch is %s)" % have) if have else ""
    instead = INSTEAD.get(name) or elsewhere(kind, where, name, sp, tb)
    alt = ("; or use %s" % instead) if instead else ""
    bound = tb.get("names", {}).get(where, {}).get(name) if kind == "attr" else None
    msp = tb.get("modules", {}).get(what) if kind == "attr" else None
    if msp is not None and (bound is None or (bound.get("since") or "") != (msp.get("since") or "")):
        # a submodule: an attribute of its package once something imports it; the package may import it itself
        # only from a later release on (torch.distributed imports device_mesh since 2.4; the module is from 2.2)
        first, last = tb["releases"][0], tb["releases"][-1]
        since, removed = msp.get("since"), msp.get("removed")
        have = torch_in_log(texts)
        line = "%s is a submodule (in torch %s%s)" % (
            what, ("since " + since) if since else "from %s on" % first, (", removed in " + removed) if removed else "")
        if bound is not None and bound.get("since"):
            line += ", which %s imports itself since torch %s" % (where, bound["since"])
        line += ": import it before use, import %s" % what
        if since and (not have or _vt(have) < _vt(since)):
            line += "; on a torch older than %s upgrade: pip install 'torch>=%s'%s" % (
                since, since, (" (your torch is %s)" % have) if have else "")
        return line, "generated/torch_api.json: %s is a module of the releases read (%s to %s)" % (what, first, last)
    if kind == "obj" and sp is None:
        first, last = tb["releases"][0], tb["releases"][-1]
        if name.startswith("_"):
            line = ("%s is private and no torch release from %s to %s gives the %s wrapper a member of that name: the "
                    "code was written against another torch's internals; pin the torch it was written for, or port it"
                    % (what, first, last, where))
            return line, "generated/torch_api.json: %s's members per release" % where
        line = ("%s is not an attribute of the %s wrapper in any torch release from %s to %s: it is your model's. The "
                "wrapper keeps the model as .module and forwards only forward(): use model.module.%s (or keep a "
                "reference to the unwrapped model; accelerate: accelerator.unwrap_model(model).%s)"
                % (name, where, first, last, name, name))
        return line, "generated/torch_api.json: %s's members per release (torch/nn/modules/module.py __getattr__)" % where
    if sp is None and _private(kind, where, name):
        public = PUBLIC.get(name or "")
        line = ("%s is private (a leading '_'; the table holds the public API only): private names come and go "
                "between releases without notice%s; pin the torch the code was written for, or port it to the public "
                "API" % (what, ("; its public form is %s" % public) if public else ""))
        return line, "generated/torch_api.json: public names only (tools/gen_torch_api.py)"
    if sp is None:
        line = ("no torch release from %s to %s has %s: check the spelling against the docs of your torch "
                "(python -c 'import torch; print(torch.__version__)'), or it belongs to another library"
                % (first, last, what))
        return line, "generated/torch_api.json: %s not found in any release read" % what
    since, removed = sp.get("since"), sp.get("removed")
    if removed:
        older = have and _vt(have) < _vt(removed)
        line = "%s was removed in torch %s%s: pin pip install 'torch<%s' for this code, or port it%s" % (
            what, removed, yours, removed, alt)
        if older:
            line = "%s was removed in torch %s, but your torch %s is older: the torch that ran is not the one the " \
                   "log reports (python -c 'import torch; print(torch.__version__, torch.__file__)' on the node)" % (
                       what, removed, have)
        return line, "generated/torch_api.json: %s exists in torch %s up to the release before %s" % (
            what, since or ("<= " + first), removed)
    if since:
        if have and _vt(have) >= _vt(since):
            line = ("%s arrived in torch %s and the log reports torch %s: the process that failed imports another "
                    "torch (python -c 'import torch; print(torch.__version__, torch.__file__)' in the job's "
                    "environment, on every node)" % (what, since, have))
        else:
            line = "%s arrived in torch %s%s: upgrade, pip install 'torch>=%s' (the build for your CUDA: " \
                   "https://pytorch.org/get-started/locally/)%s%s" % (
                       what, since, yours if not have else " (your torch %s is older)" % have, since, alt,
                       "" if kind != "kwarg" else ", or drop the argument %s" % name)
        return line, "generated/torch_api.json: first in torch %s of the releases read (%s to %s)" % (
            since, first, last)
    if kind == "kwarg":
        if have and _vt(have) >= _vt(first):
            line = ("%s is accepted by every torch release from %s to %s, your torch %s included: the %s called is "
                    "not torch's (another library's class of that name, e.g. apex.parallel's), or another torch is "
                    "imported (python -c 'import torch; print(torch.__version__, torch.__file__)')"
                    % (what, first, last, have, where.split(".")[0]))
        else:
            line = ("%s is accepted by every torch release from %s to %s: your torch is older than %s (upgrade: "
                    "pip install 'torch>=%s'), or the %s called is another library's (e.g. apex.parallel's)"
                    % (what, first, last, first, first, where.split(".")[0]))
        return line, "generated/torch_api.json: in every release read"
    if kind == "obj":
        line = ("%s is a member of torch's %s in every release from %s to %s: your torch is older than %s, the object "
                "is another library's class of that name (apex.parallel's), or an attribute the wrapper sets later "
                "(in a later call) was read before it" % (what, where, first, last, first))
        return line, "generated/torch_api.json: %s's members per release" % where
    if not where.startswith("torch.distributed"):
        line = ("%s is in every torch release from %s to %s: your torch is older than %s (python -c 'import torch; "
                "print(torch.__version__, torch.__file__)'), or a file or folder of yours named torch shadows it"
                % (what, first, last, first))
        return line, "generated/torch_api.json"
    line = ("%s is in every torch release from %s to %s: this torch was built without torch.distributed "
            "(python -c 'import torch.distributed as d; print(d.is_available())' prints False: the macOS / Windows "
            "wheels of some releases, USE_DISTRIBUTED=0 builds), or a file of yours named torch.py or "
            "distributed.py shadows it" % (what, first, last))
    return line, "generated/torch_api.json"
