"""The job's Python environment: torch and friends, read from installed metadata and
files; torch is never imported here (it costs seconds and may touch the GPU)."""

import json
import os
import re
import subprocess
import sys

from .base import Unsupported, section

# Distributions whose versions matter to multi-node training (lower-case, '-' form).
PACKAGES = ("torch", "deepspeed", "accelerate", "transformers", "horovod", "triton", "numpy", "pynvml",
            "nvidia-ml-py", "nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nvidia-cublas-cu11",
            "nvidia-cublas-cu12", "nvidia-cublas", "nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime-cu12",
            "nvidia-cuda-runtime", "nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "ninja",
            "mpi4py", "flash-attn", "xformers", "vllm", "megatron-core", "apex")


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_dist_dirname(name):
    """'torch-2.11.0+cu130.dist-info' -> ('torch', '2.11.0+cu130')."""
    m = re.match(r"^(.+?)-(\d[^-]*?)(?:-py\d.*)?\.(dist-info|egg-info)$", name)
    return (_norm(m.group(1)), m.group(2)) if m else (None, None)


def parse_torch_version_py(text):
    out = {}
    for key in ("__version__", "cuda", "hip", "git_version", "debug"):
        m = re.search(r"^%s\s*(?::\s*\S+\s*)?=\s*(.+)$" % re.escape(key), text or "", re.M)
        if m:
            raw = m.group(1).strip()
            if raw in ("None", "False", "True"):
                out[key] = {"None": None, "False": False, "True": True}[raw]
            else:
                out[key] = raw.strip("'\"")
    return out


def scan_site(paths):
    """Installed distributions and where they live, found by listing sys.path dirs."""
    found = {}
    for d in paths:
        try:
            names = os.listdir(d)
        except (OSError, IOError):
            continue
        for name in names:
            dist, version = parse_dist_dirname(name)
            if dist in PACKAGES and dist not in found:
                found[dist] = {"version": version, "location": d}
    return found


def probe_here():
    """Facts about the interpreter this code runs in."""
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    pkgs = scan_site(paths)
    torch = None
    if "torch" in pkgs:
        tdir = os.path.join(pkgs["torch"]["location"], "torch")
        try:
            with open(os.path.join(tdir, "version.py")) as f:
                tv = parse_torch_version_py(f.read())
        except (OSError, IOError):
            tv = {}
        torch = {"version": tv.get("__version__") or pkgs["torch"]["version"], "cuda": tv.get("cuda"),
                 "hip": tv.get("hip"), "git_version": tv.get("git_version"), "path": tdir}
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "prefix": sys.prefix,
        "packages": dict((k, v["version"]) for k, v in sorted(pkgs.items())),
        "locations": dict((k, v["location"]) for k, v in sorted(pkgs.items())),
        "torch": torch,
    }


def probe_interpreter(ctx, python):
    """Run the collector's python section inside another interpreter (a conda env, a venv)."""
    from .bundle import build_script  # controller side only

    script = build_script()
    try:
        p = subprocess.Popen([python, "-", "--only", "python"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ctx.env)
        out, err = p.communicate(script.encode(), timeout=ctx.options.get("python_timeout", 20))
    except (OSError, IOError) as exc:
        raise Unsupported("cannot run %s: %s" % (python, exc))
    except subprocess.TimeoutExpired:
        p.kill()
        raise RuntimeError("%s did not answer within its timeout" % python)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (python, err.decode("utf-8", "replace").strip()[-300:]))
    doc = json.loads(out.decode())
    sec = doc["python"]
    if sec.get("status") != "ok":
        raise RuntimeError(sec.get("reason", "probe failed"))
    sec.pop("status")
    return sec


@section("python")
def python(ctx):
    if ctx.python and ctx.live:
        data = probe_interpreter(ctx, ctx.python)
        data["requested"] = ctx.python
        return data
    if not ctx.live:
        raise Unsupported("the Python environment is probed only on a live node")
    return probe_here()
