"""The NVIDIA driver must be new enough for the CUDA that torch was built for and for the
local toolkit ("CUDA driver version is insufficient for CUDA runtime version"), and its
kernel module must match its user-space library ("Failed to initialize NVML:
Driver/library version mismatch", after a driver upgrade without a reboot)."""

from functools import lru_cache

from gpudoctor import data
from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd
from gpudoctor.versions import major_minor, vtuple

from ._gpu import cc_tuple, gpu_list


@lru_cache(maxsize=1)
def _table():  # the table is data: parse it once per run, not once per node
    t = data.load("cuda_driver")
    rows = [(vtuple(c), vtuple(d), d) for c, d in t["toolkit_min_driver"]]
    return t, rows


def requirement(cuda):
    """For CUDA 'X.Y': (floor, full) driver versions as strings; floor is what minor-version
    compatibility allows, full is the toolkit's own row (NVIDIA release notes, Tables 2 and 3)."""
    t, rows = _table()
    mm = major_minor(cuda)
    if not mm:
        return None, None
    same_minor = sorted((c, d) for c, dt, d in rows if c[:2] == mm)  # GA first, then updates
    # A minor with no row of its own (a release newer than the table): its full-support driver
    # is unknown, never borrowed from an older minor; only the major's floor can be judged here
    # (the check adds older_minor_bound, a lower bound that can only ever say "below").
    full = same_minor[0][1] if same_minor else None
    floor = t["major_floor"].get(str(mm[0])) if mm[0] >= 11 else None
    if floor and full and vtuple(full) < vtuple(floor):
        floor = full  # e.g. 11.0 GA ran on 450.51 before 11.x compatibility came with 450.80.02
    return floor or full, full


def older_minor_bound(cuda):
    """For a CUDA X.Y with no row of its own: (toolkit, driver) of the newest row of an older minor
    of the same major (13.2.2, 595.71.05 for 13.3). Table 3's minimums never go down from one
    toolkit to the next (tests/test_cuda_driver_compat.py checks it over the table), so a driver
    below this row is below X.Y's own minimum too; it is a lower bound only, never X.Y's number."""
    _, rows = _table()
    mm = major_minor(cuda)
    if not mm:
        return None
    older = [(c, d) for c, dt, d in rows if c[0] == mm[0] and c[:2] < mm[:2]]
    if not older:
        return None
    c, d = max(older)
    return "%d.%d.%d" % c, d


def toolkit_name(version):
    """'13.2.2' -> 'CUDA 13.2 Update 2' (Table 3's words; N.M.0 is GA)."""
    parts = version.split(".")
    return "CUDA %s.%s %s" % (parts[0], parts[1], "GA" if parts[2] == "0" else "Update " + parts[2])


def newest_cuda_for(driver):
    """The newest CUDA X.Y whose own row this driver satisfies (for the fix line)."""
    _, rows = _table()
    dv = vtuple(driver)
    if dv is None:  # a driver version that is not one (untrusted node output)
        return None
    ok = [c for c, dt, d in rows if dt <= dv]
    return "%d.%d" % max(ok)[:2] if ok else None


def _wants(facts):
    """(label, cuda X.Y) pairs: torch's CUDA build and the local toolkit."""
    out = []
    py = facts.get("python") or {}
    torch = py.get("torch") if isinstance(py, dict) and py.get("status") == "ok" else None
    if isinstance(torch, dict) and isinstance(torch.get("cuda"), str):
        out.append(("torch %s (built for CUDA %s)" % (torch.get("version"), torch["cuda"]), torch["cuda"]))
    cuda = facts.get("cuda") or {}
    if isinstance(cuda, dict) and cuda.get("status") == "ok" and isinstance(cuda.get("nvcc_version"), str):
        out.append(("the CUDA toolkit %s (nvcc)" % cuda["nvcc_version"], cuda["nvcc_version"]))
    return out


@check("driver.cuda", title="the NVIDIA driver supports the CUDA of torch and of the toolkit", needs=("gpu",))
def driver_cuda(facts, config):
    kernel_driver = facts["gpu"].get("driver_version")
    if not kernel_driver:
        yield Skip("the driver version could not be read (no /proc/driver/nvidia/version, NVML silent)")
        return
    if not isinstance(kernel_driver, str) or vtuple(kernel_driver) is None:  # untrusted node output
        yield Skip("the driver version in the facts is not a version")
        return
    wants = _wants(facts)
    if not wants:
        yield NA("driver %s: neither a CUDA torch nor a CUDA toolkit (nvcc) here to judge it against" % kernel_driver)
        return
    driver = kernel_driver
    bad = False
    compat_findings, compat = _forward_compat(facts, kernel_driver)
    for f in compat_findings:
        bad = bad or f.severity != "info"
        yield f
    if compat:  # libcuda from cuda-compat is what CUDA will load: judge the CUDA needs against it
        driver = compat["version"]
    for f in _dropped_archs(facts):
        bad = True
        yield f
    judged = []
    for label, cuda in wants:
        floor, full = requirement(cuda)
        if not floor:
            yield Skip("%s: CUDA %s is not in gpudoctor's driver table (gpudoctor/data/cuda_driver.json); "
                       "cannot judge driver %s" % (label, cuda, driver))
            continue
        newest = newest_cuda_for(driver)
        alt = cmd("or use a build for CUDA <= {newest}, which driver {driver} supports (for torch: "
                  "pip install torch --index-url {url})", newest=newest, driver=driver,
                  url="https://download.pytorch.org/whl/cu%s" % newest.replace(".", "")) if newest else ""
        if vtuple(driver) < vtuple(floor):
            fc = _compat_offer(facts, full)
            if fc:
                alt += cmd("; or forward compatibility (data-center GPUs): export LD_LIBRARY_PATH={v}", v=fc)
            bad = True
            yield Finding.error(
                "driver %s is too old for %s: needs >= %s (\"CUDA driver version is insufficient for CUDA "
                "runtime version\")" % (driver, label, floor),
                observed="driver %s" % driver, expected=">= %s (full support: >= %s)" % (floor, full or "unknown"),
                fix=cmd("upgrade the NVIDIA driver to >= {v}, ", v=full or floor) + alt)
        elif full is None:
            bound = older_minor_bound(cuda)
            xy = "%d.%d" % major_minor(cuda)
            if bound and vtuple(driver) < vtuple(bound[1]):
                # below an older toolkit's row, so below this one's too (the rows never go down): the
                # same verdict as a driver below its own row, without inventing that row's number
                bad = True
                yield Finding.warning(
                    "driver %s runs %s only through minor-version compatibility (no PTX JIT, newer APIs fail): "
                    "it is older than the driver %s already needs (>= %s), so older than CUDA %s's own minimum "
                    "(NVIDIA release notes, Table 3; not in gpudoctor's table)"
                    % (driver, label, toolkit_name(bound[0]), bound[1], xy),
                    observed="driver %s" % driver,
                    expected="CUDA %s's Table 3 driver (at least %s)" % (xy, bound[1]),
                    fix=cmd("upgrade the NVIDIA driver to the one CUDA {cuda}'s release notes list in Table 3 "
                            "(at least {v}) for full CUDA {cuda} support", cuda=xy, v=bound[1]))
                continue
            yield Skip("%s: driver %s meets CUDA %s.x's minor-version compatibility floor %s%s; its full-support "
                       "driver is not in gpudoctor's table (gpudoctor/data/cuda_driver.json), so full support "
                       "is not judged" % (label, driver, cuda.split(".")[0], floor,
                                          " and %s's %s" % (toolkit_name(bound[0]), bound[1]) if bound else ""))
        elif vtuple(driver) < vtuple(full):
            bad = True
            yield Finding.warning(
                "driver %s runs %s only through minor-version compatibility (no PTX JIT, newer APIs fail)"
                % (driver, label), observed="driver %s" % driver, expected=">= %s" % full,
                fix=cmd("upgrade the NVIDIA driver to >= {v} for full CUDA {cuda} support", v=full, cuda=cuda))
        else:
            judged.append("%s needs >= %s" % (label, full))
    if judged and not bad:
        yield Pass("driver %s%s; %s" % (driver, " (cuda-compat)" if compat else "", "; ".join(judged)))


def _datacenter(facts):
    """Forward compatibility runs on data-center GPUs (and some NGC-ready RTX), not GeForce/TITAN
    (https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html); the name is the only cheap hint."""
    names = [g.get("name") or "" for g in gpu_list(facts)]
    return not any("GeForce" in n or "TITAN" in n for n in names)


def _forward_compat(facts, kernel_driver):
    """Findings about a cuda-compat libcuda on LD_LIBRARY_PATH, and the one CUDA will load."""
    cuda = facts.get("cuda") or {}
    if not isinstance(cuda, dict) or cuda.get("status") != "ok":
        return [], None
    compat = cuda.get("compat") if isinstance(cuda.get("compat"), list) else []
    # node output is untrusted: a compat entry needs its dir and version as text
    active = sorted((c for c in compat if isinstance(c, dict) and c.get("on_ld_library_path")
                     and isinstance(c.get("dir"), str) and isinstance(c.get("version"), str)),
                    key=lambda c: c.get("ld_library_path_index") if isinstance(c.get("ld_library_path_index"), int)
                    else 0)
    if not active:
        return [], None
    c = active[0]
    ldlp = cuda.get("ld_library_path") if isinstance(cuda.get("ld_library_path"), str) else ""
    cleaned = ":".join(d for d in ldlp.split(":") if d and d.rstrip("/") != c["dir"])
    cv, kv = vtuple(c["version"]), vtuple(kernel_driver)
    if cv is None or kv is None:
        return [], None
    if cv < kv:
        return [Finding.error(
            "LD_LIBRARY_PATH puts %s/libcuda.so.%s (cuda-compat) before the driver's own libcuda.so.%s: an older "
            "user-mode driver over a newer kernel module fails with CUDA error 803 \"system has unsupported display "
            "driver / cuda driver combination\"" % (c["dir"], c["version"], kernel_driver),
            observed="libcuda %s over kernel module %s" % (c["version"], kernel_driver),
            expected="libcuda %s (the driver's own) or a cuda-compat newer than it" % kernel_driver,
            fix=cmd("export LD_LIBRARY_PATH={v}   (the driver {drv} is newer than this compat package: it is not "
                    "needed)", v=cleaned, drv=kernel_driver),
            exports={"LD_LIBRARY_PATH": cleaned})], None
    if cv > kv and not _datacenter(facts):
        return [Finding.error(
            "forward compatibility (cuda-compat %s in %s) is active on a GPU that does not support it: CUDA error 804 "
            "\"forward compatibility was attempted on non supported HW\"" % (c["version"], c["dir"]),
            observed="cuda-compat %s, GPUs: %s" % (c["version"], ", ".join(sorted(set(
                g.get("name") or "?" for g in gpu_list(facts))))),
            expected="a data-center GPU, or no cuda-compat on LD_LIBRARY_PATH",
            fix=cmd("export LD_LIBRARY_PATH={v} and upgrade the driver instead", v=cleaned),
            exports={"LD_LIBRARY_PATH": cleaned})], None
    if cv > kv:
        return [Finding.info("forward compatibility active: cuda-compat libcuda %s (%s) over kernel driver %s"
                             % (c["version"], c["dir"], kernel_driver))], c
    return [], None


def _compat_offer(facts, need):
    """An installed cuda-compat new enough for `need`, as the LD_LIBRARY_PATH to export."""
    cuda = facts.get("cuda") or {}
    if cuda.get("status") != "ok" or not _datacenter(facts):
        return None
    ok = [c for c in cuda.get("compat") or ()  # cuda-compat packages only, not the driver's own libcuda
          if c["dir"].rstrip("/").endswith("/compat") and vtuple(c["version"]) >= vtuple(need)]
    if not ok:
        return None
    best = max(ok, key=lambda c: vtuple(c["version"]))
    rest = [d for d in (cuda.get("ld_library_path") or "").split(":") if d and d != best["dir"]]
    return ":".join([best["dir"]] + rest)


def _dropped_archs(facts):
    """GPUs older than what a CUDA major still supports (Kepler gone in 12.0; Maxwell,
    Pascal, Volta gone in 13.0: the CUDA 12.0 and 13.0 release notes, "Deprecated Architectures")."""
    t = data.load("cuda_driver")
    gpus = gpu_list(facts)
    for label, cuda in _wants(facts):
        major = str((major_minor(cuda) or (0,))[0])
        floor = t["min_compute_capability"].get(major)
        if not floor:
            continue
        low = [g for g in gpus if cc_tuple(g.get("compute_capability")) and
               cc_tuple(g.get("compute_capability")) < cc_tuple(floor)]
        if not low:
            continue
        names = ", ".join("%s (cc %s)" % (g.get("name"), g.get("compute_capability")) for g in low)
        last = t["last_toolkit_for_dropped"].get(major)
        yield Finding.error(
            "%s cannot run on %s: CUDA %s.x dropped %s (it needs compute capability >= %s)"
            % (label, names, major, t["dropped_architectures"].get(major, "these GPUs"), floor),
            observed=names, expected="compute capability >= %s for CUDA %s" % (floor, major),
            fix=cmd("use CUDA <= {last} on these GPUs: for torch, pip install torch --index-url "
                    "https://download.pytorch.org/whl/{tag}", last=last, tag="cu126" if major == "13" else "cu118"))


@check("driver.mismatch", title="the driver's kernel module matches its user-space library (NVML)", needs=("gpu",))
def driver_mismatch(facts, config):
    gpu = facts["gpu"]
    kernel = gpu.get("driver_version")
    libs = gpu.get("nvml_libs") or {}
    nvml = gpu.get("nvml") if isinstance(gpu.get("nvml"), dict) else {}
    init_error = nvml.get("init_error") or ""
    if not isinstance(kernel, (str, type(None))) or not isinstance(libs, dict) or not isinstance(init_error, str) \
            or not all(isinstance(k, str) for k in libs):
        yield Skip("driver and NVML library versions in the facts are not text")  # untrusted node output
        return
    fix = ("reboot the node (the driver was upgraded without one); or, with no GPU process running: "
           "rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && modprobe nvidia nvidia_uvm")
    if "mismatch" in init_error.lower():
        yield Finding.error("NVML fails: %s" % init_error, observed=init_error, fix=fix)
        return
    if not kernel or not libs:
        yield Skip("cannot compare: kernel module %s, libnvidia-ml.so %s" % (
            kernel or "version unknown", ", ".join(sorted(libs)) or "not found"))
        return
    if kernel not in libs:
        yield Finding.error(
            "kernel module is %s but user-space libnvidia-ml.so is %s: \"Failed to initialize NVML: "
            "Driver/library version mismatch\"" % (kernel, ", ".join(sorted(libs))),
            observed="module %s, library %s" % (kernel, ", ".join(sorted(libs))), expected="the same version",
            fix=fix)
    else:
        yield Pass("kernel module %s = libnvidia-ml.so %s%s" % (kernel, kernel, " (NVML initialised)" if not init_error
                                                                  else ""))
