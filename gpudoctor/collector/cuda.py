"""The CUDA toolkits installed on the node (nvcc on PATH, /usr/local/cuda*)."""

import json
import re

from .base import section


def parse_cuda_version_json(text):
    try:
        return json.loads(text)["cuda"]["version"]
    except (ValueError, KeyError, TypeError):
        return None


def parse_nvcc_version(text):
    m = re.search(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)", text or "")
    return m.group(2) if m else None


def toolkit_version(ctx, prefix):
    v = parse_cuda_version_json(ctx.read(prefix + "/version.json"))
    if v:
        return v
    m = re.search(r"CUDA Version (\d+\.\d+(?:\.\d+)?)", ctx.read(prefix + "/version.txt", ""))
    if m:
        return m.group(1)
    for name in ctx.listdir(prefix + "/dist-info"):  # toolkits assembled from NVIDIA's wheels
        m = re.match(r"nvidia_cuda_nvcc(?:_cu\d+)?-(\d+\.\d+\.\d+)", name)
        if m:
            return m.group(1)
    return None


def find_compat(ctx):
    """cuda-compat user-mode drivers (libcuda.so.<driver version>) in /usr/local/cuda*/compat
    and on LD_LIBRARY_PATH (forward compatibility: https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html)."""
    ldlp = [d.rstrip("/") for d in ctx.env.get("LD_LIBRARY_PATH", "").split(":") if d]
    dirs = ["/usr/local/%s/compat" % n for n in ctx.listdir("/usr/local") if n == "cuda" or n.startswith("cuda-")]
    found = []
    for d in dirs + [d for d in ldlp if d not in dirs]:
        for name in ctx.listdir(d):
            m = re.match(r"^libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$", name)
            if m:
                found.append({"dir": d, "version": m.group(1), "on_ld_library_path": d in ldlp,
                              "ld_library_path_index": ldlp.index(d) if d in ldlp else None})
    return found


@section("cuda")
def cuda(ctx):
    toolkits = []
    for name in ctx.listdir("/usr/local"):
        if name == "cuda" or name.startswith("cuda-"):
            prefix = "/usr/local/" + name
            if ctx.exists(prefix + "/bin/nvcc") or ctx.exists(prefix + "/version.json"):
                toolkits.append({"path": prefix, "version": toolkit_version(ctx, prefix),
                                 "link": ctx.readlink(prefix)})
    nvcc = ctx.which("nvcc")
    nvcc_version = None
    if nvcc:
        prefix = nvcc.rsplit("/bin/", 1)[0]
        nvcc_version = toolkit_version(ctx, prefix)
        if nvcc_version is None:
            rc, out = ctx.run([nvcc, "--version"])
            nvcc_version = parse_nvcc_version(out) if rc == 0 else None
    cuda_home = ctx.env.get("CUDA_HOME") or ctx.env.get("CUDA_PATH")
    return {"nvcc": nvcc, "nvcc_version": nvcc_version, "toolkits": toolkits, "cuda_home": cuda_home,
            "cuda_home_version": toolkit_version(ctx, cuda_home.rstrip("/")) if cuda_home else None,
            "compat": find_compat(ctx), "ld_library_path": ctx.env.get("LD_LIBRARY_PATH")}
