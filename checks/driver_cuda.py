"""The NVIDIA driver must be new enough for the CUDA that torch was built for and for the
local toolkit ("CUDA driver version is insufficient for CUDA runtime version"), and its
kernel module must match its user-space library ("Failed to initialize NVML:
Driver/library version mismatch", after a driver upgrade without a reboot)."""

from gpudoctor import data
from gpudoctor.registry import Finding, check
from gpudoctor.versions import major_minor, vtuple


def _table():
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
    if not same_minor:  # a minor we have no row for: the newest row of that major below it
        same_minor = sorted(((c, d) for c, dt, d in rows if c[0] == mm[0] and c[:2] < mm), reverse=True)
    full = same_minor[0][1] if same_minor else None
    floor = t["major_floor"].get(str(mm[0])) if mm[0] >= 11 else None
    if floor and full and vtuple(full) < vtuple(floor):
        floor = full  # e.g. 11.0 GA ran on 450.51 before 11.x compatibility came with 450.80.02
    return floor or full, full


def newest_cuda_for(driver):
    """The newest CUDA X.Y whose own row this driver satisfies (for the fix line)."""
    _, rows = _table()
    dv = vtuple(driver)
    ok = [c for c, dt, d in rows if dt <= dv]
    return "%d.%d" % max(ok)[:2] if ok else None


def _wants(facts):
    """(label, cuda X.Y) pairs: torch's CUDA build and the local toolkit."""
    out = []
    py = facts.get("python") or {}
    torch = py.get("torch") if py.get("status") == "ok" else None
    if torch and torch.get("cuda"):
        out.append(("torch %s (built for CUDA %s)" % (torch["version"], torch["cuda"]), torch["cuda"]))
    cuda = facts.get("cuda") or {}
    if cuda.get("status") == "ok" and cuda.get("nvcc_version"):
        out.append(("the CUDA toolkit %s (nvcc)" % cuda["nvcc_version"], cuda["nvcc_version"]))
    return out


@check("driver.cuda", title="the NVIDIA driver supports the CUDA of torch and of the toolkit", needs=("gpu",))
def driver_cuda(facts, config):
    driver = facts["gpu"].get("driver_version")
    if not driver:
        return
    for label, cuda in _wants(facts):
        floor, full = requirement(cuda)
        if not floor:
            yield Finding.info("%s: CUDA %s is not in gpudoctor's driver table; cannot judge driver %s"
                               % (label, cuda, driver))
            continue
        newest = newest_cuda_for(driver)
        alt = ("or use a build for CUDA <= %s, which driver %s supports (for torch: "
               "pip install torch --index-url https://download.pytorch.org/whl/cu%s)"
               % (newest, driver, newest.replace(".", ""))) if newest else ""
        if vtuple(driver) < vtuple(floor):
            yield Finding.error(
                "driver %s is too old for %s: needs >= %s (\"CUDA driver version is insufficient for CUDA "
                "runtime version\")" % (driver, label, floor),
                observed="driver %s" % driver, expected=">= %s (full support: >= %s)" % (floor, full),
                fix="upgrade the NVIDIA driver to >= %s, %s" % (full, alt))
        elif vtuple(driver) < vtuple(full):
            yield Finding.warning(
                "driver %s runs %s only through minor-version compatibility (no PTX JIT, newer APIs fail)"
                % (driver, label), observed="driver %s" % driver, expected=">= %s" % full,
                fix="upgrade the NVIDIA driver to >= %s for full CUDA %s support" % (full, cuda))


@check("driver.mismatch", title="the driver's kernel module matches its user-space library (NVML)", needs=("gpu",))
def driver_mismatch(facts, config):
    gpu = facts["gpu"]
    kernel = gpu.get("driver_version")
    libs = gpu.get("nvml_libs") or {}
    init_error = ((gpu.get("nvml") or {}).get("init_error") or "")
    fix = ("reboot the node (the driver was upgraded without one); or, with no GPU process running: "
           "rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && modprobe nvidia nvidia_uvm")
    if "mismatch" in init_error.lower():
        yield Finding.error("NVML fails: %s" % init_error, observed=init_error, fix=fix)
        return
    if kernel and libs and kernel not in libs:
        yield Finding.error(
            "kernel module is %s but user-space libnvidia-ml.so is %s: \"Failed to initialize NVML: "
            "Driver/library version mismatch\"" % (kernel, ", ".join(sorted(libs))),
            observed="module %s, library %s" % (kernel, ", ".join(sorted(libs))), expected="the same version",
            fix=fix)
