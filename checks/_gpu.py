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


def visible_gpus(facts):
    """(GPUs a process of this node sees, the CUDA_VISIBLE_DEVICES value that narrows them, or None).
    NVML (the gpu section) lists every GPU whatever CUDA_VISIBLE_DEVICES says; CUDA counts the
    list's entries up to the first that names no GPU ("If one of the indices is invalid, only the
    devices whose index precedes the invalid index are visible", CUDA C Programming Guide, CUDA
    Environment Variables: https://docs.nvidia.com/cuda/cuda-c-programming-guide/#env-vars).
    Seen on a real 2x H100: CUDA_VISIBLE_DEVICES=0 under torchrun --nproc-per-node 2, and the fix
    read 'torchrun --nproc_per_node 2 (this node has 2 GPUs)', the launch that failed."""
    gpu = facts.get("gpu") if isinstance(facts, dict) else None
    if not isinstance(gpu, dict) or gpu.get("status", "ok") != "ok":
        return None, None
    gpus = [g for g in gpu.get("gpus") if isinstance(g, dict)] if isinstance(gpu.get("gpus"), list) else []
    env = facts.get("env") if isinstance(facts.get("env"), dict) and facts["env"].get("status", "ok") == "ok" else {}
    env = env if isinstance(env.get("values"), dict) or not env.get("values") else {}
    v = (env.get("values") or {}).get("CUDA_VISIBLE_DEVICES")
    if not isinstance(v, str):
        return len(gpus), None  # unset (or kept only as a hash: nothing to count)
    seen = []
    for tok in v.split(","):
        tok = tok.strip()
        if tok.isdigit() and int(tok) < len(gpus):
            idx = int(tok)
        else:
            ids = [g.get("index") for g in gpus if tok[:4] in ("GPU-", "MIG-") and isinstance(g.get("uuid"), str)
                   and g["uuid"].startswith(tok)]
            if len(ids) != 1:
                break
            idx = ids[0]
        if idx in seen:
            break
        seen.append(idx)
    return len(seen), v
