"""The NCCL_* settings a job on this node will see: the environment, then NCCL's own
config files (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html; NVIDIA/nccl src/misc/param.cc initEnv/setEnvFile):
NCCL_CONF_FILE if set (2.23+), else ~/.nccl.conf, then /etc/nccl.conf. Files never
override the environment (setenv(..., 0)), and the user file wins over /etc/nccl.conf.
"""

from .base import section
from .system import env_value

# variables whose value is a file NCCL reads: a missing one fails at init
PATH_VARS = ("NCCL_TOPO_FILE", "NCCL_GRAPH_FILE", "NCCL_CONF_FILE")


def parse_nccl_conf(text):
    """NAME=value lines; '#' starts a comment line (as NCCL's setEnvFile skips them)."""
    out = {}
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s.startswith("#") or "=" not in s:
            continue
        k, v = s.split("=", 1)
        k = k.strip()
        if k:
            out[k] = v.strip()
    return out


@section("nccl")
def nccl(ctx):
    # values pass the env section's rule: NCCL_IB_PASSWORD-like names are keyed hashes here
    # too, since a facts file is what users attach to tickets
    key = ctx.options.get("env_key")
    env = dict((k, env_value(k, v, key)) for k, v in ctx.env.items() if k.startswith("NCCL_"))
    user = env.get("NCCL_CONF_FILE") or (ctx.home.rstrip("/") + "/.nccl.conf")
    files = []
    effective = dict((k, {"value": v, "source": "environment"}) for k, v in env.items())
    for path in (user, "/etc/nccl.conf"):
        text = ctx.read(path)
        values = parse_nccl_conf(text) if text is not None else {}
        values = dict((k, env_value(k, v, key)) for k, v in values.items())
        files.append({"path": path, "exists": ctx.exists(path), "readable": text is not None, "values": values})
        for k, v in values.items():
            if k not in effective:
                effective[k] = {"value": v, "source": path}
    paths = {}
    for var in PATH_VARS:
        if var in effective and effective[var]["value"]:
            p = effective[var]["value"]
            paths[var] = {"path": p, "exists": ctx.exists(p)}
    return {"env": env, "files": files, "effective": effective, "paths": paths}
