"""The job's Python environment (the interpreter `--python` names): torch present and
built with CUDA on a GPU node, DeepSpeed's JIT prerequisites (what DeepSpeed's ds_report lists:
ninja, libaio for async_io, nvcc's CUDA major equal to torch's), and no deprecated
`pynvml` distribution (its FutureWarning fires on every `import pynvml`: https://pypi.org/project/pynvml/)."""

from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd

from ._gpu import gpu_list, torch_info


def _index_url(facts):
    """The PyTorch wheel index for the newest CUDA this node's driver runs."""
    from gpudoctor.checks.driver_cuda import newest_cuda_for

    drv = (facts.get("gpu") or {}).get("driver_version")
    cuda = newest_cuda_for(drv) if drv else None
    # PyTorch publishes cu126, cu128, cu130 builds for current releases (pytorch/pytorch RELEASE.md, Release Compatibility Matrix)
    for tag, need in (("cu130", (13, 0)), ("cu128", (12, 8)), ("cu126", (12, 6)), ("cu118", (11, 8))):
        if cuda and tuple(int(x) for x in cuda.split(".")) >= need:
            return "https://download.pytorch.org/whl/%s" % tag
    return "https://download.pytorch.org/whl/cu126"


@check("python.env", title="the job's Python has a CUDA torch and what its libraries need", needs=("python",),
       severity="error")
def python_env(facts, config):
    py = facts["python"]
    pkgs = py.get("packages") or {}
    torch = torch_info(facts)
    exe = py.get("executable") or "python"
    if not isinstance(pkgs, dict) or not isinstance(exe, str) or not isinstance(py.get("deep") or {}, dict) or (
            torch is not None and not isinstance(torch.get("version"), str)):
        yield Skip("the python facts are malformed (untrusted node output)")
        return
    gpus = gpu_list(facts)
    named = getattr(config, "python_source", None) in ("--python", "config")
    if torch is None and not named:
        # A prolog or a first run: the interpreter found by default may not be the job's (a conda
        # env, a venv); failing here would fail every job on a healthy node.
        yield NA("torch is not installed in %s (%s); name the job's interpreter to judge it: "
                 "gpudoctor check --python /path/to/env/bin/python" % (
                     exe, getattr(config, "python_source", None) or "the interpreter found by default"))
        return
    found = list(_problems(facts, py, pkgs, torch, exe, gpus))
    yield from found
    if not any(f.severity in ("error", "warning") for f in found):
        deep = py.get("deep") or {}
        extra = ", ".join("%s %s" % (k, pkgs[k]) for k in ("deepspeed", "accelerate", "transformers") if k in pkgs)
        yield Pass("%s: torch %s (%s)%s%s" % (
            exe, torch["version"], "CUDA %s" % torch["cuda"] if torch.get("cuda") else
            ("ROCm %s" % torch["hip"] if torch.get("hip") else "CPU build, no GPU on this node"),
            ", " + extra if extra else "", ", cuda_available=True" if deep.get("cuda_available") else ""))


def _problems(facts, py, pkgs, torch, exe, gpus):
    if torch is None:
        yield Finding.error("torch is not installed in %s" % exe, observed="no torch in %s" % (py.get("prefix") or exe),
                            expected="torch with CUDA",
                            fix=cmd("{exe} -m pip install torch --index-url {url}   (or pass the job's interpreter: "
                                    "gpudoctor check --python /path/to/env/bin/python)", exe=exe, url=_index_url(facts)))
    elif not torch.get("cuda") and not torch.get("hip") and gpus:
        yield Finding.error(
            "torch %s in %s is a CPU-only build on a node with %d NVIDIA GPU(s): torch.cuda.is_available() is False"
            % (torch["version"], exe, len(gpus)), observed="torch.version.cuda = None", expected="a CUDA build",
            fix=cmd("{exe} -m pip install --force-reinstall {pin} --index-url {url}",
                    exe=exe, pin="torch==%s" % torch["version"].split("+")[0], url=_index_url(facts)))
    deep = py.get("deep") or {}
    if torch and deep:
        if deep.get("error"):
            yield Finding.error("import torch failed in %s: %s" % (exe, deep["error"]), observed=deep["error"],
                                fix=cmd("{exe} -c 'import torch' shows the whole error; gpudoctor explain '<error>'",
                                        exe=exe))
        elif gpus and torch.get("cuda") and deep.get("cuda_available") is False:
            yield Finding.error(
                "torch.cuda.is_available() is False on a node with %d GPU(s)" % len(gpus),
                observed="cuda_available=False, device_count=%s" % deep.get("device_count"), expected="True",
                fix=cmd("{exe} -c 'import torch; torch.cuda.init()' prints the CUDA error; check CUDA_VISIBLE_DEVICES "
                        "and the driver.cuda finding", exe=exe))
    if "pynvml" in pkgs:
        yield Finding.warning(
            "the deprecated pynvml %s distribution is installed in %s: every `import pynvml` (torch.cuda does it) "
            "warns \"The pynvml package is deprecated\"" % (pkgs["pynvml"], exe),
            observed="pynvml %s" % pkgs["pynvml"], expected="nvidia-ml-py only",
            fix=cmd("{exe} -m pip uninstall -y pynvml && {exe} -m pip install -U nvidia-ml-py", exe=exe))
    if "deepspeed" in pkgs and torch:
        yield from _deepspeed(facts, py, torch, exe)


def _deepspeed(facts, py, torch, exe):
    tools = py.get("build_tools") or {}
    ds = py["packages"]["deepspeed"]
    if not tools.get("ninja"):
        where = tools.get("ninja_in_env")
        yield Finding.warning(
            "deepspeed %s JIT-compiles its ops with ninja, which is not on PATH" % ds,
            observed="ninja not on PATH" + (" (it is in %s, whose bin/ is not on PATH)" % where if where else ""),
            expected="ninja on PATH",
            fix=cmd("export PATH={bin}:$PATH", bin=where.rsplit("/", 1)[0]) if where else
            cmd("{exe} -m pip install ninja", exe=exe))
    if not (tools.get("libaio_so") and tools.get("libaio_h")):
        missing = " and ".join(x for x, k in (("libaio .so", "libaio_so"), ("libaio.h", "libaio_h")) if not tools.get(k))
        yield Finding.warning(
            "deepspeed %s: async_io (ZeRO-Infinity NVMe offload) needs libaio's .so and headers; %s missing"
            % (ds, missing), observed="%s missing" % missing, expected="libaio-dev installed",
            fix="apt-get install -y libaio-dev   (RHEL/Rocky: dnf install -y libaio-devel); skip if you never "
                "offload to NVMe")
    cuda = facts.get("cuda") or {}
    # DeepSpeed builds with torch.utils.cpp_extension's CUDA_HOME: $CUDA_HOME, else nvcc on PATH
    nvcc = (cuda.get("cuda_home_version") or cuda.get("nvcc_version")) if cuda.get("status") == "ok" else None
    tc = torch.get("cuda")
    if not tc:
        return
    if not nvcc:
        yield Finding.warning(
            "deepspeed %s: no nvcc (CUDA_HOME unset and none on PATH), so ops that are not pre-built cannot "
            "JIT-compile" % ds, observed="no CUDA toolkit", expected="CUDA %s toolkit" % tc,
            fix=cmd("install the CUDA {v} toolkit and export CUDA_HOME={home} PATH={home}/bin:$PATH",
                    v=tc, home="/usr/local/cuda-%s" % tc))
    elif nvcc.split(".")[0] != tc.split(".")[0]:
        yield Finding.error(
            "deepspeed %s: nvcc is CUDA %s but torch %s was built for CUDA %s: DeepSpeed refuses to JIT-build ops "
            "(\"Installed CUDA version %s does not match the version torch was compiled with %s\")"
            % (ds, nvcc, torch["version"], tc, ".".join(nvcc.split(".")[:2]), tc),
            observed="nvcc %s, torch CUDA %s" % (nvcc, tc), expected="the same CUDA major",
            fix=cmd("install CUDA {v} and export CUDA_HOME={home} PATH={home}/bin:$PATH (or a torch built for "
                    "CUDA {major})", v=tc, home="/usr/local/cuda-%s" % tc, major=nvcc.split(".")[0]),
            exports={"CUDA_HOME": "/usr/local/cuda-%s" % tc})
