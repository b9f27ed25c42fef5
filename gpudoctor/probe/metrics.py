"""Bandwidth arithmetic, as nccl-tests defines it (doc/PERFORMANCE.md,
https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):

- algbw = size / time, where ``size`` is the bytes of one rank's buffer for all_reduce and the
  whole gathered output for all_gather;
- busbw = algbw x 2(n-1)/n for all_reduce (a ring moves each byte 2(n-1)/n times over the
  slowest link), busbw = algbw x (n-1)/n for all_gather; n is the number of ranks.

busbw is comparable across rank counts and with the hardware's peak link rate.
"""

FACTORS = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1.0) / n,
}

DTYPE_BYTES = {"fp32": 4, "float32": 4, "bf16": 2, "bfloat16": 2, "fp16": 2, "float16": 2, "fp8": 1}


def bus_factor(op, nranks):
    if nranks < 2:
        return 0.0
    return FACTORS[op](nranks)


def algbw_gbps(nbytes, seconds):
    """GB/s (10^9 bytes a second, as nccl-tests prints)."""
    return nbytes / seconds / 1e9 if seconds > 0 else None


def busbw_gbps(op, nbytes, seconds, nranks):
    a = algbw_gbps(nbytes, seconds)
    return None if a is None else a * bus_factor(op, nranks)


def allreduce_seconds(nbytes, busbw, nranks):
    """Time of one ring all-reduce of ``nbytes`` at bus bandwidth ``busbw`` GB/s over
    ``nranks`` ranks: each rank moves 2(n-1)/n x nbytes through its slowest link."""
    if nranks < 2:
        return 0.0
    if not busbw:
        return None
    return nbytes * bus_factor("all_reduce", nranks) / (busbw * 1e9)


def step_estimate(params, dtype, scenarios):
    """All-reduce time per step for gradients of ``params`` parameters in ``dtype``, once per
    step (DDP, no overlap): [{name, nranks, busbw_gbps, seconds}] for each scenario
    {name, nranks, busbw_gbps}."""
    nbytes = float(params) * DTYPE_BYTES[dtype]
    out = []
    for s in scenarios:
        out.append(dict(s, grad_bytes=nbytes, seconds=allreduce_seconds(nbytes, s.get("busbw_gbps"), s["nranks"])))
    return out


def parse_count(text):
    """'7e9', '7B', '1.3b', '350M', '125000000' -> a number of parameters."""
    t = str(text).strip().lower().replace("_", "")
    mult = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    if t and t[-1] in mult:
        return float(t[:-1]) * mult[t[-1]]
    return float(t)
