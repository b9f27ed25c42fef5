"""A meaning and fix of their own for the CUDA runtime/driver codes, the CUDA libraries' statuses, NVML's
return codes and errno names (tools/gen_cuda_errors.py, gen_cuda_libs.py, gen_nvml.py, gen_errno.py: MEANS),
checked on real texts from the cited public threads (none from the held-out sets)."""

import pytest
from explainhelp import generated_sites

from gpudoctor import explain


@pytest.mark.parametrize("name,least", [("cuda_errors", 100), ("cuda_libs", 80), ("nvml", 28), ("errno", 60)])
def test_most_codes_have_a_meaning_and_fix_of_their_own(name, least):
    sites = generated_sites(name)
    own = [s for s in sites if s.get("fix")]
    assert len(own) >= least
    assert all(s.get("family") and s["means"] and s["fix"] for s in own)
    # each code's own text, except the groups that share one (texture/graphics/profiler/deprecated CUDA codes,
    # MPS): at most 13 sites a text
    counts = {}
    for s in own:
        counts[s["means"]] = counts.get(s["means"], 0) + 1
    assert max(counts.values()) <= 13 and len(counts) >= least - 30


REAL = [
    # https://github.com/Wan-Video/Wan2.2/issues/118 (cudaErrorLaunchOutOfResources, 701)
    ("RuntimeError: CUDA error: too many resources requested for launch\nCUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
     "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
     "cuda.api_error", "registers or shared memory", "TORCH_CUDA_ARCH_LIST"),
    # https://github.com/pytorch/pytorch/issues/36037 (cudaErrorNotSupported, 801: CUDA IPC on Windows)
    ("RuntimeError: cuda runtime error (801) : operation not supported at "
     "C:\\w\\1\\s\\windows\\pytorch\\torch/csrc/generic/StorageSharing.cpp:245\n",
     "cuda.api_error", "Windows", "num_workers=0"),
    # https://github.com/pytorch/pytorch/issues/88038 (torch cu117's cuFFT on an RTX 4090)
    ("    return _VF.stft(input, n_fft, hop_length, win_length, window,  # type: ignore[attr-defined]\n"
     "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n", "cudalib.error", "too old for this GPU", "cu118"),
    # https://github.com/sehoffmann/dmlcloud/issues/55 (a GPU that does not report its serial)
    ("[rank1]:   File \"/x/dmlcloud/core/callbacks.py\", line 583, in pre_run\n"
     "[rank1]:     'serial': pynvml.nvmlDeviceGetSerial(handle),\n"
     "[rank1]:   File \"/x/site-packages/pynvml.py\", line 1042, in _nvmlCheckReturn\n"
     "[rank1]:     raise NVMLError(ret)\n[rank1]: pynvml.NVMLError_NotSupported: Not Supported\n",
     "nvml.error", "not a fault", "skip that metric"),
    # https://github.com/bihealth/snappy-pipeline/issues/86 (execve's E2BIG)
    ("  File \"/x/lib/python3.8/subprocess.py\", line 1702, in _execute_child\n"
     "    raise child_exception_type(errno_num, err_msg, err_filename)\n"
     "OSError: [Errno 7] Argument list too long: '/usr/bin/bash'\n", "errno.syscall", "execve(2)", "env | wc -c"),
]


@pytest.mark.parametrize("text,entry,means,fix", REAL, ids=[r[1] + ":" + r[3] for r in REAL])
def test_real_texts_get_the_codes_own_meaning_and_fix_first(kb, text, entry, means, fix):
    res = explain.explain_text(text, kb)
    root = res["findings"][0]
    assert res["verdict"] == "root_cause" and root["id"] == entry
    first = root["causes"][0]
    assert means in first["text"] and any(fix in x for x in first["fix"]), first


def test_c10d_ipv6_warning_with_errno_97_stays_harmless(kb):
    # https://github.com/NVIDIA/Megatron-LM/issues/301: torchrun's store tries IPv6 first, then IPv4 works;
    # EAFNOSUPPORT's own row must not turn the warning into an error
    line = ("[W socket.cpp:424] [c10d] The server socket cannot be initialized on [::]:6000 (errno: 97 - Address "
            "family not supported by protocol).\n")
    assert explain.explain_text(line, kb)["verdict"] == "no_error"


# pyxis and enroot (tools/gen_container_messages.py MSG_FIX), real texts of NVIDIA/pyxis#61 and mlcommons/endpoints#467
PYXIS_61 = ("slurmstepd: error: pyxis: container start failed with error code: 1\n"
            "slurmstepd: error: pyxis: printing contents of log file ...\n"
            "slurmstepd: error: pyxis:     enroot-switchroot: failed to execute: /bin/bash: No such file or directory\n"
            "slurmstepd: error: pyxis: couldn't start container\n"
            "slurmstepd: error: pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint\n")
ENDPOINTS_467 = ("pyxis: importing docker image: ghcr.io/mlcommons/endpoints:598dbfde-livecodebench\n"
                 "[2026-08-24T23:56:56.408] error: pyxis: child 4023939 failed with error code: 4\n"
                 "[2026-08-24T23:56:56.408] error: pyxis: failed to import docker image: "
                 "ghcr.io/mlcommons/endpoints:598dbfde-livecodebench\n"
                 "[2026-08-24T23:56:56.408] error: pyxis: printing enroot log file:\n")


def test_enroot_helper_line_names_the_command_the_image_lacks(kb):
    res = explain.explain_text(PYXIS_61, kb)
    assert res["findings"][0]["id"] == "pyxis.container_start"
    helper = next(f for f in res["findings"] if f["id"] == "enroot.error")
    first = helper["causes"][0]
    assert "/bin/bash could not be run inside the container" in first["text"]
    assert "which /bin/bash" in first["fix"][0]


def test_pyxis_child_exit_code_is_its_own_cause(kb):
    res = explain.explain_text(ENDPOINTS_467, kb)
    root = res["findings"][0]
    assert root["id"] == "pyxis.import_failed" and "exit code 4" in root["causes"][0]["text"]


# nvidia-container-cli's error kinds (container.toml container.nvml_driver), real texts of the cited threads
NVIDIA_CONTAINER_CLI = [
    # https://github.com/NVIDIA/nvidia-docker/issues/825
    ("stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/bd4f3570d4eb/merged/"
     "usr/bin/nvidia-smi: file exists\n", "already contains the driver's own files", "docker commit"),
    # https://github.com/hekmak/Conf-net/issues/5 (the fix: NVIDIA/nvidia-docker#587)
    ("Running hook #1:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: ldcache error: open "
     "failed: /sbin/ldconfig.real: no such file or directory: unknown.\n", "does not exist on this host",
     "/etc/nvidia-container-runtime/config.toml"),
    # https://github.com/NVIDIA/nvidia-docker/issues/1447
    ("Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: container error: "
     "cgroup subsystem devices not found: unknown.\n", "devices cgroup", "no-cgroups = true"),
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/203
    ("nvidia-container-cli.real: device error: MIG-GPU-932bfb2c-849a-2a22-1e84-9eff6bc02b39/1/0: unknown device\n",
     "a GPU this host does not have", "nvidia-smi -L"),
]


@pytest.mark.parametrize("text,cause,fix", NVIDIA_CONTAINER_CLI, ids=["mount", "ldcache", "cgroup", "device"])
def test_nvidia_container_cli_error_kinds_get_their_own_cause(kb, text, cause, fix):
    res = explain.explain_text(text, kb)
    root = res["findings"][0]
    assert res["verdict"] == "root_cause" and root["id"] == "container.nvml_driver"
    first = root["causes"][0]
    assert cause in first["text"] and any(fix in x for x in first["fix"]), first
