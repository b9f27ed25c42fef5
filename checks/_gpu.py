"""Helpers shared by the GPU checks (not a check module: the registry skips '_' modules)."""

import re


def gpu_list(facts):
    """GPUs as NVML/nvidia-smi saw them; /proc/driver/nvidia/gpus when neither answered."""
    sec = facts.get("gpu") or {}
    if not isinstance(sec, dict) or sec.get("status") != "ok":
        return []
    gpus = sec.get("gpus") if sec.get("gpus") is not None else (sec.get("gpus_proc") or [])
    # node output is untrusted: only GPU records (dicts) count
    return [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else []


def cc_tuple(cc):
    m = re.match(r"^(\d+)\.(\d+)$", str(cc or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def torch_info(facts):
    py = facts.get("python") or {}
    torch = py.get("torch") if isinstance(py, dict) and py.get("status") == "ok" else None
    return torch if isinstance(torch, dict) else None


def arch_covers(arch_list, cc):
    """Can a build with these archs run on compute capability cc=(major, minor)?
    sm_XY cubins run on X.Y and later minors of the same major; sm_XYa only on X.Y;
    sm_XYf on the X family from Y up; compute_XY (PTX) is JIT-compiled for any cc >= X.Y
    (CUDA C++ Programming Guide, "Binary Compatibility" / "PTX Compatibility")."""
    for a in arch_list if isinstance(arch_list, (list, tuple)) else ():
        m = re.match(r"^(sm|compute)_(\d+)([af]?)$", a) if isinstance(a, str) else None
        if not m:
            continue
        n = int(m.group(2))
        am, ami = n // 10, n % 10
        if m.group(1) == "sm":
            if m.group(3) == "a":
                if (am, ami) == cc:
                    return True
            elif am == cc[0] and ami <= cc[1]:
                return True
        elif m.group(3) != "a" and (am, ami) <= cc:
            return True
    return False


def sm(cc):
    return "sm_%d%d" % cc
