"""The CUDA toolkits installed on the node (nvcc on PATH, /usr/local/cuda*)."""

import os

from .base import loads, re, section

# The version patterns of this module, read with string methods: every node runs this section,
# and re (with enum, functools...) is 5 ms of a node's collector (Python 3.11) for a few names.
# \d is str.isdecimal() (both are Unicode's Nd in CPython's _sre); tests/test_collector_lean.py
# compares each with the regular expression it stands for.


def _digits(text, i):
    """The end of the run of decimal digits at text[i:] (i when there is none)."""
    while i < len(text) and text[i].isdecimal():
        i += 1
    return i


def dotted(text, i=0, parts=(2, 3)):
    r"""The end of r"\d+(?:\.\d+)..." at text[i:], greedy, with parts[0] to parts[1] numbers
    (r"\d+\.\d+(?:\.\d+)?" is (2, 3), r"\d+\.\d+\.\d+" (3, 3)); None when it does not match."""
    end = _digits(text, i)
    if end == i:
        return None
    n = 1
    while n < parts[1] and end + 1 < len(text) and text[end] == "." and text[end + 1].isdecimal():
        end, n = _digits(text, end + 1), n + 1
    return end if n >= parts[0] else None


def _full(name):
    """What a pattern ending in $ sees: $ also matches before one newline at the very end."""
    return name[:-1] if name.endswith("\n") else name


def parse_cuda_version_json(text):
    try:
        return loads(text)["cuda"]["version"]  # json.loads (base.loads: no json module on the node)
    except (ValueError, KeyError, TypeError):
        return None


def parse_nvcc_version(text):
    m = re.search(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)", text or "")  # only after running nvcc
    return m.group(2) if m else None


def version_txt(text):
    r"""re.search(r"CUDA Version (\d+\.\d+(?:\.\d+)?)", text).group(1) (version.txt of CUDA up to 11.0)."""
    at = text.find("CUDA Version ")
    while at >= 0:
        end = dotted(text, at + 13)
        if end is not None:
            return text[at + 13:end]
        at = text.find("CUDA Version ", at + 1)
    return None


def nvcc_wheel_version(name):
    r"""re.match(r"nvidia_cuda_nvcc(?:_cu\d+)?-(\d+\.\d+\.\d+)", name).group(1): the nvcc wheel's
    dist-info (nvidia_cuda_nvcc-13.0.88.dist-info, nvidia_cuda_nvcc_cu12-12.4.131.dist-info)."""
    if not name.startswith("nvidia_cuda_nvcc"):
        return None
    i = 16
    if name.startswith("_cu", i):
        end = _digits(name, i + 3)
        if end == i + 3:
            return None
        i = end
    if not name.startswith("-", i):
        return None
    end = dotted(name, i + 1, (3, 3))
    return name[i + 1:end] if end is not None else None


def compat_lib_version(name):
    r"""re.match(r"^libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$", name).group(1)."""
    name = _full(name)
    if not name.startswith("libcuda.so."):
        return None
    end = dotted(name, 11)
    return name[11:] if end == len(name) else None


def toolkit_version(ctx, prefix):
    v = parse_cuda_version_json(ctx.read(prefix + "/version.json"))
    if v:
        return v
    v = version_txt(ctx.read(prefix + "/version.txt", ""))
    if v:
        return v
    for name in ctx.listdir(prefix + "/dist-info"):  # toolkits assembled from NVIDIA's wheels
        v = nvcc_wheel_version(name)
        if v:
            return v
    return None


def _realpath(ctx, path):
    """os.path.realpath inside the context's root (a recorded tree in tests), as the node sees it."""
    root = ctx.path("/")
    real = os.path.realpath(ctx.path(path))
    if root in ("/", ""):
        return real
    root = os.path.realpath(root)
    return "/" + os.path.relpath(real, root).lstrip("/") if real.startswith(root + "/") else None


def nvcc_target(ctx, nvcc):
    """The nvcc binary that running ``nvcc`` starts, where that is certain without running it:
    the target of a symlink (update-alternatives, /usr/bin/nvcc -> /usr/local/cuda-12.4/bin/nvcc),
    or the one absolute .../bin/nvcc a forwarding wrapper execs: a small script of a #! line,
    comments and one line ``exec /usr/local/cuda-13.0/bin/nvcc "$@"`` (and nothing else; any
    other script is run as before). None otherwise."""
    real = _realpath(ctx, nvcc)
    if real and real != nvcc and real.endswith("/bin/nvcc"):
        return real
    head = ctx.read(nvcc, "", limit=4096)
    if not head.startswith("#!") or len(head) >= 4096:
        return None
    lines = [l.strip() for l in head.splitlines()[1:]]
    code = [l for l in lines if l and not l.startswith("#")]
    if len(code) != 1:
        return None
    words = code[0].split()
    if len(words) < 2 or words[0] != "exec" or not words[1].startswith("/") or not words[1].endswith("/bin/nvcc"):
        return None
    if any(w not in ('"$@"', "$@") for w in words[2:]):
        return None
    return words[1] if ctx.exists(words[1]) else None


def find_compat(ctx):
    """cuda-compat user-mode drivers (libcuda.so.<driver version>) in /usr/local/cuda*/compat
    and on LD_LIBRARY_PATH (forward compatibility: https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html)."""
    ldlp = [d.rstrip("/") for d in ctx.env.get("LD_LIBRARY_PATH", "").split(":") if d]
    dirs = ["/usr/local/%s/compat" % n for n in ctx.listdir("/usr/local") if n == "cuda" or n.startswith("cuda-")]
    found = []
    for d in dirs + [d for d in ldlp if d not in dirs]:
        for name in ctx.listdir(d):
            v = compat_lib_version(name)
            if v:
                found.append({"dir": d, "version": v, "on_ld_library_path": d in ldlp,
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
        target = nvcc_target(ctx, nvcc) if nvcc_version is None else None
        if target:  # the toolkit it runs answers without a process (a shell wrapper's was 3-4 ms a node)
            nvcc_version = toolkit_version(ctx, target.rsplit("/bin/", 1)[0])
        if nvcc_version is None:
            rc, out = ctx.run([nvcc, "--version"])
            nvcc_version = parse_nvcc_version(out) if rc == 0 else None
    cuda_home = ctx.env.get("CUDA_HOME") or ctx.env.get("CUDA_PATH")
    return {"nvcc": nvcc, "nvcc_version": nvcc_version, "toolkits": toolkits, "cuda_home": cuda_home,
            "cuda_home_version": toolkit_version(ctx, cuda_home.rstrip("/")) if cuda_home else None,
            "compat": find_compat(ctx), "ld_library_path": ctx.env.get("LD_LIBRARY_PATH")}
