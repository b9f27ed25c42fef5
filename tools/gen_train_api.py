#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/train_api.json: the signatures and first docstring lines of the training APIs users call (torch, transformers, accelerate, peft).

explain reads the line of the user's own code that a traceback ends in (gpudoctor/explain/userline.py) and
names the API that line calls, with the parameters of that API that bear on what the exception means (a
sampler's num_replicas / drop_last for a length, load_state_dict's strict for missing keys, torch.load's
map_location / weights_only for a checkpoint). The parameters are the installed packages' own: this
generator imports each package in a throwaway virtual environment and reads inspect.signature() and the
first lines of the docstring of every API in APIS (never hand-typed).

Usage:
    python tools/gen_train_api.py --venv DIR [--record tools/data/train_api_slice.json] [-o OUT]
        (creates a venv at DIR, pip installs PINS there - torch from its CPU index
        https://download.pytorch.org/whl/cpu - and reads them)
    python tools/gen_train_api.py --python PY [--record ...] [-o OUT]
        (an interpreter that already has the four packages installed: the committed table was made so, from a
        venv holding exactly PINS, since download.pytorch.org does not resolve on the machine that made it)
    python tools/gen_train_api.py --slice tools/data/train_api_slice.json -o OUT   (the test)

Source: the packages as pip installs them (PINS; the versions read are recorded in the header). What is
read per API: its qualified name, kind (class / function / method), the parameters of its signature
(a class's: its constructor's) with kind and default (repr, bounded), the first paragraph of its
docstring (bounded) and the file that defines it, relative to site-packages (explain tells two APIs of
one name apart by the frames of a traceback: Module.load_state_dict is torch/nn/modules/module.py,
Optimizer.load_state_dict torch/optim/optimizer.py).
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_train_api.py"
SOURCE = "the installed packages' own signatures and docstrings (inspect.signature, inspect.getdoc), in a throwaway " \
         "virtual environment"
PINS = ("torch==2.13.0", "transformers==5.24.0", "accelerate==1.15.0", "peft==0.21.2")
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
MAX_DOC = 300
MAX_DEFAULT = 60

# the training APIs users call, by their public dotted names (what a script writes); which of them a line
# calls is read from the line (userline.py)
APIS = (
    # data
    "torch.utils.data.DataLoader", "torch.utils.data.Dataset", "torch.utils.data.IterableDataset",
    "torch.utils.data.distributed.DistributedSampler", "torch.utils.data.get_worker_info",
    "torch.utils.data.random_split", "torch.utils.data.Subset", "torch.utils.data.default_collate",
    # checkpoints and state
    "torch.load", "torch.save", "torch.nn.Module.load_state_dict", "torch.nn.Module.state_dict",
    "torch.optim.Optimizer", "torch.optim.Optimizer.load_state_dict", "torch.optim.Optimizer.state_dict",
    "torch.optim.Optimizer.add_param_group", "torch.optim.Optimizer.step", "torch.optim.Optimizer.zero_grad",
    "torch.optim.AdamW", "torch.optim.Adam", "torch.optim.SGD",
    "torch.optim.lr_scheduler.LRScheduler", "torch.optim.lr_scheduler.LRScheduler.load_state_dict",
    # tensors
    "torch.Tensor.numpy", "torch.Tensor.tolist", "torch.Tensor.item", "torch.Tensor.to", "torch.Tensor.view",
    "torch.Tensor.reshape", "torch.Tensor.backward", "torch.Tensor.float", "torch.Tensor.long",
    "torch.tensor", "torch.from_numpy", "torch.cat", "torch.stack", "torch.autograd.Function.forward",
    "torch.autograd.Function.backward", "torch.nn.Module.to", "torch.nn.Embedding", "torch.nn.Linear",
    "torch.nn.functional.cross_entropy", "torch.nn.functional.mse_loss", "torch.nn.functional.embedding",
    "torch.nn.utils.clip_grad_norm_",
    # precision
    "torch.autocast", "torch.amp.GradScaler", "torch.amp.GradScaler.scale", "torch.amp.GradScaler.step",
    # distributed
    "torch.nn.parallel.DistributedDataParallel", "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.init_process_group", "torch.distributed.all_reduce", "torch.distributed.all_gather",
    "torch.distributed.all_gather_into_tensor", "torch.distributed.reduce_scatter_tensor",
    "torch.distributed.broadcast", "torch.distributed.barrier", "torch.distributed.gather",
    "torch.distributed.scatter", "torch.distributed.all_to_all_single", "torch.distributed.send",
    "torch.distributed.recv", "torch.distributed.all_gather_object", "torch.distributed.broadcast_object_list",
    "torch.compile",
    # transformers
    "transformers.AutoModel.from_pretrained", "transformers.AutoTokenizer.from_pretrained",
    "transformers.PreTrainedModel.from_pretrained", "transformers.PreTrainedModel.save_pretrained",
    "transformers.PreTrainedModel.resize_token_embeddings",
    "transformers.PreTrainedTokenizerBase.__call__", "transformers.Trainer", "transformers.Trainer.train",
    "transformers.Trainer.evaluate", "transformers.TrainingArguments", "transformers.DataCollatorWithPadding",
    "transformers.TrainerCallback.on_evaluate",
    # accelerate
    "accelerate.Accelerator", "accelerate.Accelerator.prepare", "accelerate.Accelerator.backward",
    "accelerate.Accelerator.gather", "accelerate.Accelerator.gather_for_metrics",
    "accelerate.Accelerator.unwrap_model", "accelerate.Accelerator.save_state", "accelerate.Accelerator.load_state",
    "accelerate.Accelerator.accumulate",
    # peft
    "peft.get_peft_model", "peft.LoraConfig", "peft.PeftModel.from_pretrained",
)


_SIG_LINE = re.compile(r"^[A-Za-z_][\w.]{0,80}\([^\n]{0,400}\)(?: -> [^\n]{1,80})?$")


def introspect(names):
    """The records of ``names`` in this interpreter (run under the venv's python)."""
    import importlib
    import inspect

    out, versions = [], {}
    for name in names:
        parts = name.split(".")
        obj, mod = None, None
        for i in range(len(parts) - 1, 0, -1):
            try:
                mod = importlib.import_module(".".join(parts[:i]))
            except Exception:  # noqa: BLE001  (an attribute path, not a module: try a shorter one)
                continue
            obj = mod
            try:
                for p in parts[i:]:
                    obj = getattr(obj, p)
            except AttributeError:
                obj = None
            break
        if obj is None:
            out.append({"name": name, "missing": True})
            continue
        top = parts[0]
        if top not in versions:
            versions[top] = getattr(sys.modules[top], "__version__", None)
        kind = "class" if inspect.isclass(obj) else ("method" if inspect.isclass(_owner(parts)) else "function")
        params = []
        try:
            sig = inspect.signature(obj)
            for p in sig.parameters.values():
                d = None if p.default is inspect.Parameter.empty else repr(p.default)[:MAX_DEFAULT]
                params.append([p.name, p.kind.name, d])
        except (TypeError, ValueError):
            params = None
        paras = [" ".join(x.split()) for x in (inspect.getdoc(obj) or "").split("\n\n") if x.strip()]
        # a builtin's docstring opens with its signature ('numpy(*, force=False) -> numpy.ndarray'): kept apart,
        # the paragraph after it is the doc
        sig_line = paras.pop(0) if paras and _SIG_LINE.match(paras[0]) else None
        doc = (paras[0] if paras else "")[:MAX_DOC]
        try:
            f = inspect.getsourcefile(inspect.unwrap(obj))
        except (TypeError, OSError):
            f = None
        if f:
            f = f.replace("\\", "/")
            f = f.split("-packages/", 1)[-1]
        out.append({"name": name, "kind": kind, "params": params, "doc": doc, "file": f,
                    "sig": sig_line[:MAX_DOC] if sig_line and params is None else None})
    return {"versions": versions, "python": "%d.%d" % sys.version_info[:2], "records": out}


def _owner(parts):
    import importlib

    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001
            continue
        try:
            for p in parts[i:-1]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj if i < len(parts) - 1 else None
    return None


def build(raw):
    """The table from introspect()'s output: {header, apis: {name: record}, calls: {last name: [names]}}."""
    apis, calls = {}, {}
    for r in raw["records"]:
        if r.get("missing"):
            continue
        apis[r["name"]] = {k: r.get(k) for k in ("kind", "params", "doc", "file", "sig")}
        call = r["name"].rsplit(".", 1)[-1]
        if call == "__call__":  # a tokenizer is called as tokenizer(...): its class's name is no call name
            call = r["name"].rsplit(".", 2)[-2]
        calls.setdefault(call, []).append(r["name"])
    v = raw["versions"]
    header = knowgen.header(SOURCE, ", ".join("%s %s" % (k, v[k]) for k in sorted(v)) + " (python %s)" % raw["python"],
                            GENERATOR)
    header["date"] = raw.get("date") or header["date"]  # the day the packages were read (the slice records it)
    return {"header": header,
            "apis": dict(sorted(apis.items())), "calls": dict(sorted(calls.items())),
            # (no message sites: explain's knowledge loader reads every generated file's 'sites')
            "sites": [], "unassigned": []}


def from_python(py):
    res = subprocess.run([py, os.path.abspath(__file__), "--introspect"], capture_output=True, text=True,
                         timeout=900, check=True)
    return json.loads(res.stdout)


def make_venv(path, torch_index=TORCH_INDEX):
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    py = os.path.join(path, "bin", "python")
    subprocess.run([py, "-m", "pip", "install", "-q"] + (["--index-url", torch_index] if torch_index else []) +
                   [PINS[0] if torch_index else PINS[0].split("+")[0]], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q"] + list(PINS[1:]), check=True)
    return py


def main(argv):
    if argv[:1] == ["--introspect"]:
        json.dump(introspect(APIS), sys.stdout)
        return 0
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--venv")
    g.add_argument("--python")
    g.add_argument("--slice")
    ap.add_argument("--record")
    ap.add_argument("--torch-index", default=TORCH_INDEX, help="where --venv gets torch ('' for the default index)")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if a.slice:
        with open(a.slice) as f:
            raw = json.load(f)
    else:
        raw = from_python(make_venv(a.venv, a.torch_index) if a.venv else a.python)
        raw["date"] = __import__("datetime").date.today().isoformat()
        if a.record:
            with open(a.record, "w") as f:
                json.dump(raw, f, indent=0, sort_keys=True)
                f.write("\n")
    doc = build(raw)
    path = knowgen.write("train_api", doc, a.out)
    print("%s: %d APIs (%s)" % (path, len(doc["apis"]), doc["header"]["version"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
