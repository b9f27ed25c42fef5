"""The job's Python environment: torch and friends, read from installed metadata and
files; torch is never imported here (it costs seconds and may touch the GPU)."""

import os
import sys

from .base import WEBHOOK_PATH_RE, Pattern, Unsupported, re, run_command, section

try:
    import _struct as struct  # what struct.py re-exports (unpack_from, error), without its lookup on sys.path
except ImportError:
    import struct

# ---- ELF reading ----------------------------------------------------------------------
# Just enough ELF reading to answer "which libcublas will torch really load" and "which
# GPU archs was torch built for" without importing torch or running ldd (ldd maps every
# library: 0.26 s for libtorch_cuda.so on an H100 node, more than gpudoctor's whole
# local budget). ELF64 little-endian only (x86-64, aarch64); anything else returns None.
#
# Search order emulated (ld.so(8), glibc elf/dl-load.c):
#   DT_RPATH of the loading object (only when it has no DT_RUNPATH), LD_LIBRARY_PATH,
#   DT_RUNPATH, /etc/ld.so.cache, then /lib and /usr/lib (lib64 on 64-bit RPM systems).
# torch 2.11's libtorch_cuda.so carries DT_RPATH $ORIGIN/../../nvidia/*/lib (read with
# readelf -d on an H100 node, fixtures/recorded/), so LD_LIBRARY_PATH cannot override its
# direct dependencies; older wheels and conda builds use DT_RUNPATH or none, and there
# LD_LIBRARY_PATH wins (the libcublas.so.11 "version ... not defined" failure a user reported with /usr/local/cuda-11.4/lib64 on LD_LIBRARY_PATH).



# Every file this module reads goes through _real(ctx, path): the collector's Context maps
# the node's path into its root (a recorded tree in tests); ctx None reads this machine.


def _real(ctx, path):
    return ctx.path(path) if ctx is not None else path


def _exists(ctx, path):
    return os.path.exists(_real(ctx, path))


def _realpath(ctx, path):
    """os.path.realpath inside the context's root, as the node would see it."""
    real = os.path.realpath(_real(ctx, path))
    root = getattr(ctx, "root", "/") or "/"
    if root not in ("/", "") and real.startswith(os.path.realpath(root)):
        real = "/" + os.path.relpath(real, os.path.realpath(root)).lstrip("/")
    return real


DT_NEEDED, DT_RPATH, DT_RUNPATH = 1, 15, 29
SHT_DYNAMIC = 6


def _sections(f):
    """[(name, type, offset, size, link)] of an ELF64 LE file, or None."""
    head = f.read(64)
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", head, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
    if not shoff or shentsize < 64 or not shnum:
        return None
    f.seek(shoff)
    raw = f.read(shentsize * shnum)
    secs = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link = struct.unpack_from("<IIQQQQI", raw, i * shentsize)
        secs.append([name, typ, off, size, link])
    if shstrndx >= len(secs):
        return None
    f.seek(secs[shstrndx][2])
    names = f.read(secs[shstrndx][3])
    for s in secs:
        end = names.find(b"\x00", s[0])
        s[0] = names[s[0]:end].decode("ascii", "replace")
    return [tuple(s) for s in secs]


def read_section(path, name, limit=256 << 20, ctx=None):
    """Bytes of one section (e.g. '.rodata'), or None."""
    try:
        with open(_real(ctx, path), "rb") as f:
            secs = _sections(f)
            for sname, _t, off, size, _l in secs or ():
                if sname == name:
                    f.seek(off)
                    return f.read(min(size, limit))
    except (OSError, IOError, struct.error):
        return None
    return None


def dynamic(path, ctx=None):
    """{'needed': [...], 'rpath': [...], 'runpath': [...]} of an ELF64 LE shared object, or None."""
    try:
        with open(_real(ctx, path), "rb") as f:
            secs = _sections(f)
            if not secs:
                return None
            dyn = [s for s in secs if s[1] == SHT_DYNAMIC]
            if not dyn:
                return {"needed": [], "rpath": [], "runpath": []}
            _n, _t, off, size, link = dyn[0]
            f.seek(off)
            raw = f.read(size)
            f.seek(secs[link][2])
            strtab = f.read(secs[link][3])
    except (OSError, IOError, struct.error, IndexError):
        return None

    def s(i):
        return strtab[i:strtab.find(b"\x00", i)].decode("utf-8", "replace")

    out = {"needed": [], "rpath": [], "runpath": []}
    for i in range(0, len(raw) - 15, 16):
        tag, val = struct.unpack_from("<qQ", raw, i)
        if tag == 0:
            break
        if tag == DT_NEEDED:
            out["needed"].append(s(val))
        elif tag == DT_RPATH:
            out["rpath"].extend(p for p in s(val).split(":") if p)
        elif tag == DT_RUNPATH:
            out["runpath"].extend(p for p in s(val).split(":") if p)
    return out


def parse_ldconfig_p(text):
    """`ldconfig -p` -> {soname: [paths]} for 64-bit entries, cache order kept."""
    out = {}
    for line in (text or "").splitlines():
        m = re.match(r"^\s+(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)", line)
        if not m:
            continue
        flags = m.group(2)
        if "64" not in flags and "AArch64" not in flags:  # 32-bit libc6 entries
            continue
        out.setdefault(m.group(1), []).append(m.group(3))
    return out


def parse_ldd(text):
    """`ldd` output -> {soname: path or None ('not found')}."""
    out = {}
    for line in (text or "").splitlines():
        m = re.match(r"^\s*(\S+)\s+=>\s+(not found|\S+)", line)
        if m:
            out[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    return out


def expand_origin(dirs, origin):
    return [d.replace("${ORIGIN}", origin).replace("$ORIGIN", origin) for d in dirs]


def resolve(name, origin, dyn, ld_library_path, ld_cache, exists=os.path.exists):
    """Where the dynamic loader finds `name` for an object in `origin` with dynamic info
    `dyn`: (path, how) with how in rpath, LD_LIBRARY_PATH, runpath, ld.so.cache, default;
    (None, None) when nowhere."""
    search = []
    if not dyn.get("runpath"):
        search += [(d, "rpath") for d in expand_origin(dyn.get("rpath") or [], origin)]
    search += [(d, "LD_LIBRARY_PATH") for d in (ld_library_path or "").split(":") if d]
    search += [(d, "runpath") for d in expand_origin(dyn.get("runpath") or [], origin)]
    for d, how in search:
        p = os.path.join(d, name)
        if exists(p):
            return os.path.normpath(p), how
    for p in ld_cache.get(name, []):
        if exists(p):
            return p, "ld.so.cache"
    for d in ("/lib64", "/usr/lib64", "/lib", "/usr/lib"):
        p = os.path.join(d, name)
        if exists(p):
            return p, "default"
    return None, None


# ---- the Python environment ------------------------------------------------------------

# Distributions whose versions matter to multi-node training (lower-case, '-' form).
PACKAGES = ("torch", "deepspeed", "accelerate", "transformers", "horovod", "triton", "numpy", "pynvml",
            "nvidia-ml-py", "nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nvidia-cublas-cu11",
            "nvidia-cublas-cu12", "nvidia-cublas", "nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime-cu12",
            "nvidia-cuda-runtime", "nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "ninja",
            "mpi4py", "flash-attn", "xformers", "vllm", "megatron-core", "apex")


_DIST_RE = Pattern(r"^(.+?)-(\d[^-]*?)(?:-py\d.*)?\.(dist-info|egg-info)$")
_SEPARATORS = {ord("_"): "-", ord("."): "-"}


def _norm(name):
    """re.sub(r"[-_.]+", "-", name).lower() (PEP 503's normalisation), with string methods."""
    name = name.translate(_SEPARATORS)
    while "--" in name:
        name = name.replace("--", "-")
    return name.lower()


def parse_dist_dirname(name):
    """'torch-2.11.0+cu130.dist-info' -> ('torch', '2.11.0+cu130'): what _DIST_RE matches, read
    with string methods for every name of every sys.path folder of every node (no re there):
    the first '-' followed by a digit where the rest is a version without '-', or one followed by
    '-py<digit>' (an egg's '-py3.8'). A name with a line break in it goes to the pattern itself
    ('.' and '$' treat those apart)."""
    if "\n" in name:
        m = _DIST_RE.match(name)
        return (_norm(m.group(1)), m.group(2)) if m else (None, None)
    if name.endswith(".dist-info"):
        stem = name[:-10]
    elif name.endswith(".egg-info"):
        stem = name[:-9]
    else:
        return None, None
    i = stem.find("-", 1)
    while i >= 0:
        if i + 1 < len(stem) and stem[i + 1].isdecimal():
            rest = stem[i + 1:]
            j = rest.find("-")
            if j < 0:
                return _norm(stem[:i]), rest
            if rest.startswith("-py", j) and j + 3 < len(rest) and rest[j + 3].isdecimal():
                return _norm(stem[:i]), rest[:j]
        i = stem.find("-", i + 1)
    return None, None


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


def _pkg_info_version(path, ctx=None):
    """The Version: header of a PKG-INFO (core metadata), read from its first 8 KiB; None when absent."""
    try:
        if os.path.isdir(_real(ctx, path)):
            path = os.path.join(path, "PKG-INFO")
        with open(_real(ctx, path), "rb") as f:
            head = f.read(8192).decode("utf-8", "replace")
    except (OSError, IOError):
        return None
    for line in head.splitlines():
        if not line.strip():
            break  # the headers end at the first empty line
        if line.startswith("Version:"):
            return line[8:].strip()[:64] or None
    return None


def scan_site(paths, ctx=None):
    """Installed distributions and where they live, found by listing sys.path dirs. importlib.metadata finds two
    more kinds this reads too: an egg on sys.path (easy-install.pth adds 'apex-0.1-py3.10-linux-x86_64.egg'; its
    name says the version) and a develop / legacy editable install's '<name>.egg-info' beside the sources, which
    has no version in its name (its PKG-INFO has)."""
    found = {}
    for d in paths:
        base = os.path.basename(d.rstrip("/"))
        if base.endswith(".egg"):
            dist, version = parse_dist_dirname(base[:-4] + ".egg-info")
            if dist in PACKAGES and dist not in found:
                found[dist] = {"version": version, "location": d}
        try:
            names = sorted(os.listdir(_real(ctx, d)))
        except (OSError, IOError):
            continue
        for name in names:
            dist, version = parse_dist_dirname(name)
            if dist is None and name.endswith(".egg-info") and _norm(name[:-9]) in PACKAGES:
                dist = _norm(name[:-9])
                if dist not in found:
                    version = _pkg_info_version(os.path.join(d, name), ctx)
            if dist in PACKAGES and dist not in found:
                found[dist] = {"version": version, "location": d}
    return found


# torch's CUDA libraries that the cuda.libs check follows, and the wheel each comes from
# (cu13 wheels drop the -cuXX suffix: nvidia-cublas, nvidia-cuda-runtime).
CUDA_LIBS = (("libcublas", ("nvidia-cublas", "nvidia-cublas-cu12", "nvidia-cublas-cu11")),
             ("libcublasLt", ("nvidia-cublas", "nvidia-cublas-cu12", "nvidia-cublas-cu11")),
             ("libcudart", ("nvidia-cuda-runtime", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11")),
             ("libcudnn", ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11")),
             ("libnccl", ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11")))

# "NCCL version 2.28.9+cuda13.0": NVIDIA/nccl src/init.cc VERSION_STRING, kept so that
# `strings` reveals the version (pytorch/pytorch#116977: the libnccl that loads can differ from torch's)
_NCCL_RE = Pattern(br"NCCL version (\d+\.\d+\.\d+)([^+\x00]*)\+cuda(\d+\.\d+)")
# torch._C._cuda_getArchFlags(): "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120" in libtorch_python.so's .rodata
_ARCH_RE = Pattern(br"sm_\d+[af]?(?: (?:sm|compute)_\d+[af]?)*\x00")


def scan_arch_list(libtorch_python, ctx=None):
    """torch.cuda.get_arch_list() without importing torch: the NUL-terminated arch string
    in .rodata of libtorch_python.so (a whole-file scan took 0.21 s on an H100 node)."""
    data = read_section(libtorch_python, ".rodata", ctx=ctx)
    if not data:
        return None
    best = None
    for m in _ARCH_RE.finditer(data):
        if m.start() > 0 and data[m.start() - 1:m.start()] != b"\x00":
            continue
        text = m.group(0)[:-1].decode("ascii")
        if best is None or len(text) > len(best):
            best = text
    return best.split() if best else None


def scan_nccl_version(path, ctx=None):
    """'NCCL version 2.28.9+cuda13.0' from a libnccl.so, without loading it."""
    data = read_section(path, ".rodata", ctx=ctx)
    if data is None:
        try:
            with open(_real(ctx, path), "rb") as f:
                data = f.read(64 << 20)
        except (OSError, IOError):
            return None
    m = _NCCL_RE.search(data)
    if not m:
        return None
    return {"version": m.group(1).decode() + m.group(2).decode("ascii", "replace"),
            "cuda": m.group(3).decode(), "string": m.group(0).decode("ascii", "replace")}


def _run(argv, env=None, timeout=10):
    return run_command(argv, env=env, timeout=timeout)


def _ldconfig_cache(ctx=None):
    for exe in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "/sbin/ldconfig.real"):
        if ctx is not None and ctx.commands is not None:  # a recorded tree: its recorded reply
            rc, out = ctx.run([exe, "-p"])
            if rc == 0:
                return parse_ldconfig_p(out)
            continue
        if _exists(ctx, exe):
            rc, out = (ctx.run if ctx is not None else _run)([exe, "-p"])
            if rc == 0:
                return parse_ldconfig_p(out)
    return {}


def _lib_version(path, site, ctx=None):
    """Version from a resolved library: libcublas.so.13.1.0.3 -> 13.1.0.3 (via symlinks)."""
    real = _realpath(ctx, path)
    m = re.search(r"\.so\.(\d+(?:\.\d+)*)$", os.path.basename(real))
    return real, (m.group(1) if m else None)


def resolve_torch_libs(tdir, site, pkgs, env, ctx=None):
    """Which libcublas/libcublasLt/libcudart/libcudnn/libnccl libtorch_cuda.so loads under
    the job's LD_LIBRARY_PATH, by the loader's own search order (elf.resolve)."""
    lib = os.path.join(tdir, "lib", "libtorch_cuda.so")
    dyn = dynamic(lib, ctx) if _exists(ctx, lib) else None

    def exists(p):
        return _exists(ctx, p)

    if dyn is None:
        return None
    origin = os.path.dirname(lib)
    cache = None
    ldlp = env.get("LD_LIBRARY_PATH", "")
    out = {"object": lib, "rpath": dyn["rpath"], "runpath": dyn["runpath"], "ld_library_path": ldlp,
           "libs": []}
    # torch's own search dirs inside site-packages: where its bundled nvidia/* wheels are
    bundled_dirs = [os.path.normpath(d) for d in expand_origin(dyn["rpath"] + dyn["runpath"], origin)
                    if os.path.normpath(d).startswith(os.path.normpath(site))]
    wheel_root = os.path.join(site, "nvidia")
    for stem, dists in CUDA_LIBS:
        names = [n for n in dyn["needed"] if n.startswith(stem + ".so")]
        for name in names:
            path, how = resolve(name, origin, dyn, ldlp, {}, exists=exists)
            if path is None or how == "default":
                if cache is None:
                    cache = _ldconfig_cache(ctx)
                path, how = resolve(name, origin, dyn, ldlp, cache, exists=exists)
            # the copy torch ships with (its nvidia/* wheel), wherever the loader went
            bundled = None
            for d in bundled_dirs:
                if exists(os.path.join(d, name)):
                    bundled = os.path.normpath(os.path.join(d, name))
                    break
            if bundled is None and os.path.isdir(_real(ctx, wheel_root)):
                for sub in sorted(os.listdir(_real(ctx, wheel_root))):
                    p = os.path.join(wheel_root, sub, "lib", name)
                    if exists(p):
                        bundled = p
                        break
            wheel = [(d, pkgs[d]["version"]) for d in dists if d in pkgs]
            entry = {"lib": stem, "name": name, "path": path, "how": how, "bundled": bundled,
                     "bundled_version": wheel[0][1] if wheel else None, "wheel": wheel[0][0] if wheel else None}
            if path:
                entry["realpath"], entry["version"] = _lib_version(path, site, ctx)
                entry["in_bundle"] = bool(bundled) and entry["realpath"] == _realpath(ctx, bundled)
                if entry["in_bundle"] and entry["bundled_version"]:  # wheel files carry only the soname major
                    entry["version"] = entry["bundled_version"]
            if stem == "libnccl" and path:
                nv = scan_nccl_version(path, ctx)
                entry["version"] = nv["version"] if nv else entry.get("version")
                entry["nccl_string"] = nv["string"] if nv else None
            if bundled and stem == "libnccl":
                nv = scan_nccl_version(bundled, ctx)
                if nv:
                    entry["bundled_version"] = nv["version"]
            out["libs"].append(entry)
    return out


def _build_tools(env, prefix, ctx=None):
    """What DeepSpeed's JIT ops need besides nvcc: ninja (on PATH, as
    torch.utils.cpp_extension runs it) and libaio's .so and header (async_io)."""
    path = env.get("PATH", "")
    ninja_path = None
    for d in path.split(":"):
        if d and os.access(_real(ctx, os.path.join(d, "ninja")), os.X_OK):
            ninja_path = os.path.join(d, "ninja")
            break
    env_ninja = os.path.join(prefix, "bin", "ninja")
    aio_so = None
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu", os.path.join(prefix, "lib")):
        for n in ("libaio.so", "libaio.so.1", "libaio.so.1t64"):
            if _exists(ctx, os.path.join(d, n)):
                aio_so = aio_so or os.path.join(d, n)
    aio_h = None
    for d in ("/usr/include", os.path.join(prefix, "include")):
        if _exists(ctx, os.path.join(d, "libaio.h")):
            aio_h = os.path.join(d, "libaio.h")
            break
    return {"ninja": ninja_path, "ninja_in_env": env_ninja if os.access(_real(ctx, env_ninja), os.X_OK) else None,
            "libaio_so": aio_so, "libaio_h": aio_h}


_DEEP = r"""
import sys
if sys.path and sys.path[0] == "":  # `-c` puts the current folder first: its torch.py would be imported
    del sys.path[0]
import json
out = {}
try:
    import torch
    out["version"] = torch.__version__
    out["cuda_available"] = bool(torch.cuda.is_available())
    out["device_count"] = torch.cuda.device_count()
    out["arch_list"] = torch.cuda.get_arch_list()
    try:
        out["nccl_version"] = ".".join(str(x) for x in torch.cuda.nccl.version())
    except Exception as exc:
        out["nccl_error"] = "%s: %s" % (type(exc).__name__, exc)
    out["capabilities"] = ["%d.%d" % torch.cuda.get_device_capability(i) for i in range(out["device_count"])]
except Exception as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
sys.stdout.write(json.dumps(out))
"""


def probe_deep(env, timeout):
    """--deep: import torch in a child (seconds; touches the GPU) and ask it directly."""
    import json
    import time

    t0 = time.time()
    rc, out = _run([sys.executable, "-c", _DEEP], env=env, timeout=timeout)
    res = {"seconds": round(time.time() - t0, 2)}
    if rc == -9:
        res["error"] = "import torch did not finish within %ss" % timeout
        return res
    try:
        res.update(json.loads(out.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        res["error"] = "rc=%s: %s" % (rc, out.strip()[-500:])
    return res


def _interpreter(ctx):
    """(executable, version, prefix, sys.path) of the interpreter described: the one this code
    runs in on a live node, or the one a recorded tree describes (option `interpreter`)."""
    rec = ctx.options.get("interpreter")
    if rec:
        return rec["executable"], rec["version"], rec["prefix"], list(rec["path"])
    if not ctx.live:
        raise Unsupported("the Python environment is probed only on a live node or from a recorded interpreter")
    return sys.executable, "%d.%d.%d" % sys.version_info[:3], sys.prefix, list(sys.path)


def probe_here(ctx):
    """Facts about the interpreter this code runs in (or the recorded one in ctx.options)."""
    options = dict(ctx.options or {})
    env = ctx.env
    if env.get("GPUDOCTOR_DEEP") == "1":  # `gpudoctor check --deep` (reaches probed interpreters too)
        options["deep"] = True
    executable, version, prefix, sys_path = _interpreter(ctx)
    paths = [p for p in sys_path if p and os.path.isdir(_real(ctx, p))]
    pkgs = scan_site(paths, ctx)
    torch = None
    if "torch" in pkgs:
        site = pkgs["torch"]["location"]
        tdir = os.path.join(site, "torch")
        tv = parse_torch_version_py(ctx.read(os.path.join(tdir, "version.py")) or "")
        torch = {"version": tv.get("__version__") or pkgs["torch"]["version"], "cuda": tv.get("cuda"),
                 "hip": tv.get("hip"), "git_version": tv.get("git_version"), "path": tdir}
        py_lib = os.path.join(tdir, "lib", "libtorch_python.so")
        torch["arch_list"] = scan_arch_list(py_lib, ctx) if tv.get("cuda") and _exists(ctx, py_lib) else None
        torch["arch_list_source"] = "libtorch_python.so .rodata" if torch["arch_list"] else None
        torch["libs"] = resolve_torch_libs(tdir, site, pkgs, env, ctx) if tv.get("cuda") else None
        if options.get("deep") and tv.get("cuda") and ctx.live:
            rc, out = _run(["ldd", os.path.join(tdir, "lib", "libtorch_cuda.so")], env=env, timeout=30)
            torch["ldd"] = parse_ldd(out) if rc == 0 else None
    nccl = None
    for dist in ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"):
        if dist in pkgs:
            lib = os.path.join(pkgs[dist]["location"], "nvidia", "nccl", "lib", "libnccl.so.2")
            scanned = scan_nccl_version(lib, ctx) if _exists(ctx, lib) else None
            nccl = {"wheel": dist, "wheel_version": pkgs[dist]["version"], "path": lib if scanned else None,
                    "version": scanned["version"] if scanned else None,
                    "cuda": scanned["cuda"] if scanned else None}
            break
    loaded = [e for e in ((torch or {}).get("libs") or {}).get("libs", []) if e["lib"] == "libnccl"]
    if loaded and loaded[0].get("path"):  # what torch really loads wins over the wheel
        nccl = dict(nccl or {}, loaded_path=loaded[0]["path"], loaded_version=loaded[0].get("version"))
    out = {
        "executable": executable,
        "version": version,
        "prefix": prefix,
        "packages": dict((k, v["version"]) for k, v in sorted(pkgs.items())),
        "locations": dict((k, v["location"]) for k, v in sorted(pkgs.items())),
        "torch": torch,
        "nccl": nccl,
        "build_tools": _build_tools(env, prefix, ctx),
    }
    if options.get("deep") and ctx.live:
        out["deep"] = probe_deep(env, options.get("deep_timeout", 120)) if torch else {"error": "torch not installed"}
    return out


# What another program printed may name a credential in other shapes than NAME=value (docs/security.md 57.):
# a flag or a header whose name is a credential's (`--password X`, `--api-key X`, `password: X`, `X-Api-Key: X`:
# the name's last word, as explain/redact.py's secret_name reads it), an HTTP Authorization header's credentials
# (RFC 9110 section 11.6.2: `Authorization: Bearer X`, `Basic X`), a URL's userinfo password (RFC 3986 section
# 3.2.1: `https://user:X@host`), and the password options of programs that take one after a short flag:
# `mysql -pX` / `-p X` (dev.mysql.com/doc/refman/8.0/en/connection-options.html), `sshpass -p X`, `curl -u user:X`.
_CRED_LAST = frozenset(("token", "secret", "password", "passwd", "passphrase", "apikey", "credential", "credentials",
                        "pass", "pwd", "auth", "authorization", "cookie", "jwt", "bearer", "secretkey", "accesskey",
                        "privatekey", "accesstoken", "authtoken", "storepass", "keypass", "srcstorepass",
                        "deststorepass", "srckeypass", "destkeypass"))
_NOT_KEY = ("sort", "cache", "primary", "foreign", "metric", "dict", "hot", "public")
_SPECIAL_TOKEN = ("pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "max", "num", "new")
# words that follow a flag's name in prose ('required option --password or --token missing'), not its value
_PROSE = frozenset(("or", "and", "to", "is", "are", "was", "not", "with", "for", "the", "a", "an", "in", "of", "on",
                    "option", "flag", "missing", "given", "set", "required", "must", "should", "instead", "argument",
                    "only", "if", "...", "<redacted>"))
_VALUE = r"""('[^'\n]{1,512}'|"[^"\n]{1,512}"|[^\s'"\]),;}]{1,512})"""  # a quoted value is cut whole
_VALUE_RX = Pattern(_VALUE)
# (a name and its operator only: the value is read after a credential's name and never consumed by another name's
# match, so '--bf16 --token X' and 'error: password: X' read the second name; a blank-separated value never starts
# with '-', the next flag)
# (a here-string after a credential's flag is what it reads, `some-cli --token <<< X`: its word is the value, as
# explain/redact.py's _FLAG reads it; mutation round 24)
_CRED_FLAG = Pattern(r"(?<![\w-])(--?[A-Za-z][\w.-]{0,80})(=|[ \t]{1,4}(?:<<<[ \t]{0,4})?(?!-))")
_CRED_KEY = Pattern(r"(?<![\w.-])([A-Za-z][\w.-]{0,80})([\"']?:[ \t]{0,4})")
_AUTHORIZATION = Pattern(r"(?i)(?<![\w-])((?:proxy-)?authorization[\"']?:[ \t]{0,4})[^\n'\"]{1,1024}")
_AUTH_SCHEME = Pattern(r"(?<![\w-])(Bearer|Basic|Digest)([ \t]{1,4})([A-Za-z0-9._~+/=:-]{6,4096})")
# (the user may be empty: Redis' `redis://:X@host`; a registry login's `-p X` and `wandb login KEY`, as
# explain/redact.py reads them: docs/security.md 77.)
_URL_PASSWORD = Pattern(r"(://[^\s:/@'\"]{0,128}:)[^\s/@'\"]{1,256}@")
# a webhook URL whose path is the credential (Slack, Discord, Teams, a Telegram bot: base.WEBHOOK_PATH_RE)
_URL_PATH_SECRET = Pattern("(?i)" + WEBHOOK_PATH_RE)
_PW_PROGRAM = Pattern(r"(?<![\w.-])(mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb"
                         r"|mariadb-dump|mariadb-admin|sshpass|curl|(?:docker|podman|nerdctl|buildah|skopeo|oras|crane"
                         r"|helm[ \t]{1,4}registry)[ \t]{1,4}login)(?![\w.-])"
                         r"(?:'[^'\n]{0,512}'|\"[^\"\n]{0,512}\"|[^\n;|&'\"]){0,600}")
# a credential's upper-case name and a random-looking value apart by blanks (`AWS_SECRET_ACCESS_KEY wJalr...`, a
# printenv-like table), as explain/redact.py's _BARE_PAIR reads it (docs/security.md 79., 85.: 6 characters or more,
# never a name after '$', a color code before and after the value)
_BARE_PAIR = Pattern(r"(?<![\w.$-])([A-Z][A-Z0-9_]{2,80})([ \t]{1,8}(?:\x1b\[[0-9;]{0,20}m)?)"
                     r"(?=[A-Za-z0-9/+=_.-]{0,511}[0-9])(?=[A-Za-z0-9/+=_.-]{0,511}[A-Za-z])[A-Za-z0-9/+=_.-]{6,512}"
                     r"(?:\x1b\[[0-9;]{0,20}m)?(?![^\s'\"`,;)\]}])")
# a lower-case snake_case credential's name and a random-looking value apart by blanks (`aws configure set
# aws_secret_access_key X`), as explain/redact.py's _BARE_SNAKE reads it (docs/security.md 97.)
_BARE_SNAKE = Pattern(r"(?<![\w.$-])([a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,6})([ \t]{1,8})"
                      r"(?=[A-Za-z0-9/+=_.-]{0,511}[0-9])(?=[A-Za-z0-9/+=_.-]{0,511}[A-Za-z])[A-Za-z0-9/+=_.-]{16,512}"
                      r"(?![^\s'\"`,;)\]}])")
_WANDB_KEY = Pattern(r"(?<![\w.-])(wandb[ \t]{1,4}login(?:[ \t]{1,4}--?[a-z][a-z-]{0,30}(?:=[^\s]{1,200})?){0,8}"
                     r"[ \t]{1,4}['\"]?)[A-Za-z0-9_-]{20,200}(?![^\s'\"])")
# the password `echo` / `printf` writes into a pipe, or a here-string's, that ends in a program reading a secret on
# stdin (`--password-stdin` of docker login and the other registry clients, gh's `--with-token`, `sudo -S`, `kinit`,
# `chpasswd`, `passwd --stdin`); a `set -x` trace writes a pipeline's commands on lines of their own, so a traced echo or
# printf on the line before or after such a reader writes it too; and the password operands of OpenSSL (`-passin
# pass:X`), redis-cli (`-a X`), the OpenLDAP clients (`-w X`), Samba (`-U user%X`), `az login -p X` and the MongoDB
# shells (`-p X`). explain/redact.py _STDIN_SECRETS and _OPERAND_SECRETS read the same (docs/security.md 92., 96.)
# (a value in quotes is read to its closing quote, blanks and separators too: explain/redact.py's _OPVAL, 112.)
_QUOTED = r"""(?:(?<=')[^'\n]{1,256}?(?=(?:\\n)?')|(?<=")[^"\n]{1,256}?(?=(?:\\n)?")|[^\s'"`\\;|&]{1,256})"""
_ECHOED = r"""((?:echo|printf)(?:[ \t]{1,4}(?:-[neE]{1,3}|'%s(?:\\n)?'|"%s(?:\\n)?"|%s))?[ \t]{1,4}['"]?)(?![$.])""" \
          + _QUOTED
# (a program named by its path, `/usr/bin/sudo -S`, is read too: explain/redact.py's _DIR, docs/security.md 105.)
_DIR = r"(?:[\w.~+-]{0,64}/){0,16}"
_READER = (r"(?:[^\n;&|]{0,300}?[ \t]--(?:password-stdin|with-token)(?![\w-])"
           r"|[ \t]{0,4}" + _DIR + r"(?:sudo[ \t](?:[^\n;&|]{0,60}?[ \t])?-[A-Za-z]{0,5}S(?![\w-])"
           r"|(?:sudo[ \t]{1,4}" + _DIR + r")?(?:kinit|chpasswd)(?![\w.-])|(?:sudo[ \t]{1,4}" + _DIR +
           r")?passwd[ \t][^\n;&|]{0,60}?--stdin(?![\w-])))")
_STDIN_LINE = r"[ \t]{0,8}\+{1,8}[ \t]" + _READER.replace(r"[^\n;&|]{0,300}?", r"[^\n]{0,300}?", 1)
# up to three other trace lines between the two: a pipeline's sides start at once and bash traces each as it starts
# ('+ docker login ... --password-stdin', '++ cat regpass', '+ echo X' came in either order in clean-clone CI runs)
_GAP = r"(?:[ \t]{0,8}\+{1,8}[ \t][^\n]{0,300}\n){0,3}"
_OPVALUE = r"""(?![$.])""" + _QUOTED
_STDIN_PW = (
    Pattern(r"(?<![\w.-])" + _ECHOED + r"""(?=(?:\\n)?['"]?[ \t]{0,4}\|""" + _READER + ")"),
    Pattern(r"((?:--(?:password-stdin|with-token)(?![\w-])|(?<![\w.-])(?:sudo[ \t][^\n;&|]{0,60}?-[A-Za-z]{0,5}S"
            r"|kinit|chpasswd|passwd[ \t][^\n;&|]{0,60}?--stdin)(?![\w-]))[^\n;&|]{0,300}?<<<[ \t]{0,4}['\"]?)"
            + _OPVALUE),
    Pattern(r"((?:^|(?<=\n))[ \t]{0,8}\+{1,8}[ \t]" + _ECHOED[1:] + r"""(?=(?:\\n)?['"]?[ \t]{0,4}\n"""
            + _GAP + _STDIN_LINE
            + ")"),
    Pattern(r"((?:^|(?<=\n))" + _STDIN_LINE + r"[^\n]{0,300}\n" + _GAP + r"[ \t]{0,8}\+{1,8}[ \t]" + _ECHOED[1:]),
    # (red team 2026-11-29, 114.: the quote before OpenSSL's `pass:` and `vault login X`, as explain/redact.py's
    # _OPERAND_SECRETS reads them, with their sources; ssh-keygen's -N/-P and sqlcmd's -P: _SWITCH_PW)
    Pattern(r"((?<![\w.-])-pass(?:in|out)?[ \t]{1,4}(['\"])pass:)[^'\"\n]{1,256}(?=['\"])"),
    Pattern(r"((?<![\w.-])vault[ \t]{1,4}login(?:[ \t]{1,4}-{1,2}[A-Za-z][\w-]{0,40}(?:=[^\s;|&]{0,200})?){0,8}"
            r"[ \t]{1,4}['\"]?)(?=[^\s'\"=`\\;|&]{0,255}[0-9.])[^\s'\"=`\\;|&-][^\s'\"=`\\;|&]{7,255}(?![^\s'\";|&])"),
    Pattern(r"((?<![\w.-])-pass(?:in|out)?[ \t]{1,4}['\"]?pass:)" + _OPVALUE),
    Pattern(r"((?<![\w.-])redis-cli(?=[ \t])[^\n;|&]{0,300}?[ \t]-a[ \t]{1,4}['\"]?)" + _OPVALUE),
    Pattern(r"((?<![\w.-])ldap(?:search|modify|add|delete|passwd|compare|whoami|modrdn|exop)(?=[ \t])[^\n;|&]{0,300}?"
            r"[ \t]-w[ \t]{1,4}['\"]?)" + _OPVALUE),
    Pattern(r"((?<![\w.-])(?:smbclient|smbcacls|rpcclient|smbget)(?=[ \t])[^\n;|&]{0,300}?[ \t](?:-U|--user(?:name)?"
            r"(?:=|[ \t]))[ \t]{0,4}['\"]?[^\s%'\"`\\;|&]{1,128}%)" + _OPVALUE),
    Pattern(r"((?<![\w.-])(?:az[ \t]{1,4}login|mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport)(?=[ \t])"
            r"[^\n;|&]{0,300}?[ \t]-p[ \t]{1,4}['\"]?)" + _OPVALUE))
# each password switch of ssh-keygen's and sqlcmd's command (explain/redact.py's _SWITCH_SECRETS, with the sources)
_SWITCH_PW = (
    (Pattern(r"(?<![\w.-])ssh-keygen(?=[ \t])[^\n;|&]{1,300}"),
     Pattern(r"((?<=[ \t])-[A-Za-z]{0,8}?[NP](?:[ \t]{1,4}['\"]?|(?=[^\s'\"`])))" + _OPVALUE)),
    (Pattern(r"(?<![\w.-])(?:sqlcmd|bcp|osql)(?=[ \t])[^\n;|&]{1,300}"),
     Pattern(r"((?<=[ \t])-P(?:[ \t]{1,4}['\"]?|(?=[^\s'\"`])))" + _OPVALUE)))
_STDIN_NEEDLES = ("password-stdin", "with-token", "sudo", "kinit", "passwd", "pass:", "redis-cli", "ldap", "smb",
                  "rpcclient", "az ", "mongo", "ssh-keygen", "sqlcmd", "bcp", "osql", "vault")
_SHORT_PW = Pattern(r"(?<=\s)(-p)([ \t]{0,4})(?!-)('[^'\n]{1,512}'|\"[^\"\n]{1,512}\"|[^\s'\"]{1,512})")
_CURL_USER = Pattern(r"(?<=\s)(-u|--user|--proxy-user|-U)([ \t]{1,4}|=)((?P<cq>['\"])?[^\s:'\"]{0,128}:)"
                     r"((?(cq)[^'\"\n]{1,512}|[^\s'\"]{1,512}))")


def _cred_name(name):
    """Whether a flag's or a key's name reads as a credential's: its last word (split at _ - . and camelCase)."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip("-").rsplit(".", 1)[-1])
    words = [w for w in re.split(r"[_-]+", name.lower()) if w]
    if not words:
        return False
    if words[-1] == "key":
        return len(words) > 1 and words[-2] not in _NOT_KEY
    if words[-1] == "token" and len(words) > 1 and words[-2] in _SPECIAL_TOKEN:
        return False
    return words[-1] in _CRED_LAST or words[-1].endswith(("token", "secret", "password", "apikey"))


def _cut_named(rx, text):
    """``text`` with the value after each match of ``rx`` (a name, its operator) whose name is a credential's cut."""
    out, last = [], 0
    for m in rx.finditer(text):
        if m.start() < last or not _cred_name(m.group(1)):
            continue
        v = _VALUE_RX.match(text, m.end())
        if not v:
            continue
        value = v.group(0)
        quote = value[0] if value[0] in "'\"" else ""
        bare = value.strip("'\"")
        if bare.lower() in _PROSE or bare.startswith(("$", "<", "...")) or (not quote and value.startswith("-")):
            continue
        out.append(text[last:m.end()] + quote + "..." + quote)
        last = v.end()
    return "".join(out) + text[last:]


# A value the wrapper was handed in its environment, or gave a variable in what it printed (`set -x` traces
# `+ DBCONN=...` before the line that uses it), is its name's whatever the name: where the facts would show that
# name's value only as a keyed hash (system.env_value, docs/security.md 10.), the value is written `$NAME` wherever it
# stands in what was printed (docs/security.md 60.). Shorter values are left: a word that short is everywhere.
_MIN_HIDDEN = 6
_ASSIGNED = Pattern(r"(?<![\w$])(['\"]?)([A-Za-z_][A-Za-z0-9_]{0,127})=")


def _assigned_value(text, m):
    """The value an assignment at ``m`` gives, as a trace or an echo prints it: to the quote before the name, a
    quoted word whole, or a bare word."""
    at, quote = m.end(), m.group(1)
    if quote:
        end = text.find(quote, at)
        return text[at:end if end >= 0 else at + 4096][:4096]
    if text[at:at + 1] in ("'", '"'):
        end = text.find(text[at], at + 1)
        return text[at + 1:end] if end > at else ""
    v = re.match(r"[^\s'\"]{1,4096}", text[at:at + 4096])
    return v.group(0) if v else ""


def _hidden_values(text, env):
    """{value: name} of every value (at least _MIN_HIDDEN characters) the facts would hash: the environment's, and
    those ``text`` assigns."""
    from .system import credential_shape, env_shown

    pairs = [(n, v) for n, v in (env or {}).items() if isinstance(n, str) and isinstance(v, str)]
    pairs += [(m.group(2), _assigned_value(text, m)) for m in _ASSIGNED.finditer(text)]
    found, size = {}, 0
    for name, value in pairs:
        value = value.strip()
        if len(value) < _MIN_HIDDEN or len(value) > 4096 or value in found:
            continue
        if env_shown(name) and not credential_shape(value):
            continue
        found[value] = name
        size += len(value)
        if len(found) >= 4096 or size > 1 << 20:
            break
    return found


def _no_env_values(text, env=None, seen=None):
    """``text`` with every hidden value (_hidden_values of ``env`` and of ``seen``, the whole output ``text`` was
    cut from, so an assignment before the window counts) written ``$NAME``, in one pass, the longest first."""
    found = _hidden_values(text if seen is None else seen, env)
    found = {v: n for v, n in found.items() if v in text}
    if not found:
        return text
    rx = re.compile("|".join(re.escape(v) for v in sorted(found, key=len, reverse=True)))
    return rx.sub(lambda m: "$" + found[m.group(0)], text)


def _no_values(text, env=None, seen=None):
    """What another program printed (a wrapper script, /usr/bin/env, a `set -x` trace on stderr), as it may leave the
    node in the facts: a NAME=value keeps its name only, and a credential's shape (Hugging Face hf_, GitHub, GitLab,
    Slack, OpenAI sk-, AWS AKIA: explain/redact.py's list) is cut. stderr's tail kept the value too, so a wrapper that
    traced `export HF_TOKEN=hf_...` and failed put the token into the report (docs/security.md 50.). The value after
    a credential's flag or header, an Authorization scheme, a URL's password and `mysql -p`'s / `sshpass -p`'s /
    `curl -u`'s password are cut too, ordinary words kept (57.). A value the environment ``env`` holds, or the text
    assigns, under a name the facts would hash is written ``$NAME`` wherever it stands (60.)."""
    text = _no_env_values(text, env, seen)
    if "['" in text or '["' in text:
        text = _ARGV_LIST.sub(_argv_list, text)
    return _no_secret_words(text)


# an argument vector written as a list (subprocess.CalledProcessError's "Command '['sshpass', '-p', 'X', ...]'
# returned non-zero exit status 5", a logged sys.argv or a JSON array): no program's reader sees `sshpass -p X` there,
# so each list of 2-256 words is read as the command line its words make, and each word that reading cuts is written
# back in its own quotes (explain/redact.py's _ARGV reads lists so, docs/security.md 106.; red team 2026-11-29, 114.)
_ARGV_ITEM = r"'[^'\\\n]{0,512}'" + r'|"[^"\\\n]{0,512}"'
_ARGV_LIST = Pattern(r"\[[ \t]{0,4}(?:%s)(?:,[ \t]{0,4}(?:%s)){1,255}" % (_ARGV_ITEM, _ARGV_ITEM))
_ARGV_ITEM_RX = Pattern(_ARGV_ITEM)


def _argv_list(m):
    items = list(_ARGV_ITEM_RX.finditer(m.group(0)))
    # a word with a blank or a quote is no word of a command line ('_' stands for it); one holding a separator is read
    # in quotes, so a reader takes it whole
    words = [i.group(0)[1:-1] if re.fullmatch(r"[^\s'\"`\\]{1,512}", i.group(0)[1:-1]) else "_" for i in items]
    words = ["'%s'" % w if re.search(r"[;|&<>()]", w) else w for w in words]
    cut = _no_secret_words(" ".join(words)).split(" ")
    if len(cut) != len(words) or cut == words:
        return m.group(0)
    out, last = [], 0
    for i, w, c in zip(items, words, cut):
        if w != "_" and c != w:
            out.append(m.group(0)[last:i.start() + 1])
            out.append(c.replace("'", "").replace('"', ""))
            last = i.end() - 1
    out.append(m.group(0)[last:])
    return "".join(out)


def _no_secret_words(text):
    """_no_values' readings of names, flags, URLs, programs' operands and credentials' shapes (the environment's
    values are _no_env_values')."""
    text = re.sub(r"([A-Za-z_][A-Za-z0-9_]*=)\S*", r"\1...", text)
    text = _AUTHORIZATION.sub(r"\1...", text)
    text = _AUTH_SCHEME.sub(r"\1\2...", text)
    text = _cut_named(_CRED_FLAG, text)
    text = _cut_named(_CRED_KEY, text)
    text = _URL_PASSWORD.sub(r"\1...@", text)
    text = _URL_PATH_SECRET.sub(r"\1...", text)
    text = _PW_PROGRAM.sub(lambda m: _CURL_USER.sub(r"\1\2\3...", m.group(0)) if m.group(1) == "curl" else
                           _SHORT_PW.sub(lambda p: p.group(0) if p.group(3).startswith("...") else
                                         p.group(1) + p.group(2) + "...", m.group(0)), text)
    text = _WANDB_KEY.sub(r"\1...", text)
    if any(n in text for n in _STDIN_NEEDLES):
        for rx in _STDIN_PW:
            text = rx.sub(r"\1...", text)
        for cmd, switch in _SWITCH_PW:
            text = cmd.sub(lambda m: switch.sub(r"\1...", m.group(0)), text)
    text = _BARE_PAIR.sub(lambda m: m.group(1) + m.group(2) + "..." if _cred_name(m.group(1)) else m.group(0), text)
    if "_" in text:
        text = _BARE_SNAKE.sub(lambda m: m.group(1) + m.group(2) + "..." if _cred_name(m.group(1)) else m.group(0),
                               text)
    # (the shapes last: 'hf_token: X' cut as a shape first lost the name its value is cut by)
    return re.sub(r"(?<![A-Za-z0-9_])(?:hf_|gh[opusr]_|github_pat_|glpat-|xox[abprs]-|sk-|AKIA|AIza|hv[sbr]\.)"
                  r"[A-Za-z0-9_-]{4,}",
                  "...", text)


def probe_interpreter(ctx, python):
    """Run the collector's python section inside another interpreter (a conda env, a venv)."""
    import json
    import subprocess

    from .bundle import build_script  # controller side only

    script = build_script()
    try:
        argv = [python, "-", "--only", "python"]
        for key in ("deep", "deep_timeout"):
            if key in ctx.options:
                argv += ["--set", "%s=%s" % (key, json.dumps(ctx.options[key]))]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ctx.env)
        deep = ctx.options.get("deep") or ctx.env.get("GPUDOCTOR_DEEP") == "1"
        timeout = ctx.options.get("python_timeout", 20) + (ctx.options.get("deep_timeout", 120) if deep else 0)
        out, err = p.communicate(script.encode(), timeout=timeout)
    except (OSError, IOError) as exc:
        # the job's interpreter exists nowhere or cannot start: a failure to judge, not an absence
        raise RuntimeError("cannot run %s: %s" % (python, exc))
    except subprocess.TimeoutExpired:
        p.kill()
        raise RuntimeError("%s did not answer within its timeout" % python)
    if p.returncode != 0:
        # (cut after the values are: a tail that began inside 'Authorization: Bearer X' kept X, a bare word)
        err = err[-(1 << 20):].decode("utf-8", "replace").strip()
        said = _no_values(err[-4000:], ctx.env, err)[-300:]
        raise RuntimeError("%s failed: %s" % (python, said or "exit status %d, nothing on stderr" % p.returncode))
    try:
        sec = json.loads(out.decode("utf-8", "replace"))["python"]
        sec.get("status")
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        # not an interpreter that ran the probe (a wrapper script, python2, another program): say what it printed
        out = " ".join(out[:1 << 20].decode("utf-8", "replace").split())
        shown = _no_values(out[:4000], ctx.env, out)[:120]
        raise RuntimeError("%s printed no facts, as an interpreter older than Python 3.6 or another program "
                           "would: %s" % (python, "its output began with " + shown if shown else "it printed nothing"))
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
    return probe_here(ctx)
