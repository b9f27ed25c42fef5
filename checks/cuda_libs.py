"""torch's CUDA libraries must be the ones it was built with. LD_LIBRARY_PATH wins over
DT_RUNPATH, so an older toolkit on it (a user report: /usr/local/cuda-11.4/lib64 before a
cu117 torch) gives "symbol cublasSetWorkspace_v2, version libcublas.so.11 not defined in
file libcublas.so.11 with link time reference" at `import torch`. The collector resolves
libtorch_cuda.so's dependencies the way ld.so does (and with --deep, by ldd)."""

import os

from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd

from ._gpu import torch_info


def _same(a, b):
    """Versions agree where both say something: '13.1.0.3' vs '13.1.0.3', '2.28.9' vs '2.28.9'."""
    if not a or not b or not isinstance(a, str) or not isinstance(b, str):  # untrusted: text versions only
        return None
    a, b = a.split("+")[0].split("."), b.split("+")[0].split(".")
    n = min(len(a), len(b), 3)
    return a[:n] == b[:n]


def _fixed_ld_library_path(ldlp, bad_dirs, prepend=None):
    keep = [d for d in (ldlp or "").split(":") if d and d.rstrip("/") not in bad_dirs]
    if prepend:
        keep = [p for p in prepend if p not in keep] + keep
    return ":".join(keep)


@check("cuda.libs", title="torch loads its own cuBLAS, cuDNN, CUDA runtime and NCCL (not an older copy)",
       needs=("python",))
def cuda_libs(facts, config):
    torch = torch_info(facts)
    if not torch:
        yield NA("torch is not installed in %s" % (facts["python"].get("executable") or "the job's interpreter"))
        return
    if not isinstance(torch.get("libs"), dict) or not torch["libs"].get("libs"):
        yield NA("torch %s links no CUDA libraries to judge (CPU build, or libtorch_cuda.so not found)"
                 % torch.get("version"))
        return
    info = torch["libs"]
    if not isinstance(info, dict) or not isinstance(info.get("libs"), list) or not isinstance(torch.get("version"), str):
        yield Skip("torch's library list in the facts is malformed")  # untrusted node output
        return
    ldd = torch.get("ldd") if isinstance(torch.get("ldd"), dict) else {}
    ldlp = info.get("ld_library_path") if isinstance(info.get("ld_library_path"), str) else ""
    ldlp_dirs = [d.rstrip("/") for d in ldlp.split(":") if d]
    bad = []  # (entry, path, dir)
    good = []
    # only entries as the collector writes them: a name, paths as text
    for e in (e for e in info["libs"] if isinstance(e, dict) and isinstance(e.get("name"), str)
              and all(isinstance(e.get(k), (str, type(None))) for k in ("path", "realpath", "bundled"))):
        path = ldd.get(e["name"], e.get("path")) if ldd else e.get("path")
        if not isinstance(path, (str, type(None))):
            continue
        if path is None:
            yield Finding.error(
                "%s (needed by torch %s) is not found: import torch fails with \"%s: cannot open shared object "
                "file\"" % (e["name"], torch["version"], e["name"]),
                observed="%s not found" % e["name"], expected=e.get("bundled") or "torch's bundled copy",
                fix=cmd("pip install --force-reinstall {pin} (in {prefix})", pin="%s==%s" % (
                    e.get("wheel") or "torch", e.get("bundled_version") or torch["version"].split("+")[0]),
                    prefix=facts["python"].get("prefix") or "the job's environment"))
            continue
        # the collector recorded where the path really leads (checks do no I/O)
        resolved = e.get("realpath") if path == e.get("path") else path
        if e.get("bundled") and (path == e["bundled"] or resolved == e["bundled"]):
            good.append("%s -> torch's bundled %s" % (e["name"], e.get("bundled_version") or "copy"))
            continue
        if e.get("in_bundle") and path == e.get("path"):
            good.append("%s -> torch's bundled %s" % (e["name"], e.get("version") or "copy"))
            continue
        if not e.get("bundled"):  # torch without bundled CUDA (conda, source build): its libs come from the system
            good.append("%s -> %s (torch bundles none; the system's)" % (e["name"], path))
            continue
        same = _same(e.get("version"), e.get("bundled_version"))
        if same:
            good.append("%s -> %s, the same version %s as torch's own" % (e["name"], path, e.get("version")))
            continue
        d = os.path.dirname(path).rstrip("/")
        bad.append((e, path, d, same))
    if not bad:
        yield Pass("torch %s: %s" % (torch["version"], "; ".join(good)))
        return
    from_ldlp = [b for b in bad if b[2] in ldlp_dirs]
    bad_dirs = sorted(set(b[2] for b in from_ldlp))
    bundled_dirs = []
    for e, _p, _d, _s in bad:
        bd = os.path.dirname(e["bundled"])
        if bd not in bundled_dirs:
            bundled_dirs.append(bd)
    new = _fixed_ld_library_path(ldlp, bad_dirs, None if from_ldlp and len(from_ldlp) == len(bad) else bundled_dirs)
    listing = "; ".join("%s -> %s (%s) instead of %s (%s)" % (
        e["name"], p, e.get("version") or "version unknown", e["bundled"], e.get("bundled_version") or "?")
        for e, p, d, s in bad)
    why = ("LD_LIBRARY_PATH entries %s come before torch's own copies" % ", ".join(bad_dirs)) if bad_dirs else \
        "the loader finds these before torch's own copies"
    sev = Finding.error if any(s is False for _e, _p, _d, s in bad) else Finding.warning
    yield sev(
        "torch %s would load CUDA libraries from outside its bundled wheels: %s; %s (\"version libcublas.so.N not "
        "defined\", \"undefined symbol\" at import torch)" % (torch["version"], listing, why),
        observed=listing, expected="torch's bundled copies under %s" % ", ".join(bundled_dirs),
        fix=cmd("export LD_LIBRARY_PATH={v}   (in the job's environment, e.g. ~/.bashrc or the launcher; drop the "
                "CUDA toolkit's lib64 from it: nvcc does not need it)", v=new),
        exports={"LD_LIBRARY_PATH": new})
