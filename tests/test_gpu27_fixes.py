"""gpu26's leftovers, decided in session 27 (gpu27):
- watch.memory's 95% line against allocators that take their pool at start. Evidence (sources cited in
  gpudoctor/watch.py): TensorFlow maps all but 1.5 GiB (compute capability 8.x) or 1.8 GiB (9.0 on) of a GPU unless
  TF_FORCE_GPU_ALLOW_GROWTH=true, 99% of an H200: every default TensorFlow job would read "near full". JAX
  preallocates 75% by default (under the line; a pool grown past it grew for the arrays) or the fraction its
  variables set; vLLM's gpu_memory_utilization default is 0.9. The line stays; a GPU whose memory is such a pool
  (TensorFlow loaded with allow-growth off, a JAX fraction of 95% or more, or vLLM, whose
  --gpu-memory-utilization users set to 0.95-0.97) is not judged for room, and says why.
  The collector keeps the allocator variables and the framework names /proc/PID/maps shows (never a path).
- stray contexts through the nvidia-smi sampler: its pids() maps gpu_bus_id to the index --query-gpu gave.
Facts are gpu26's real recordings (fixtures/recorded/h200x2-2026-11-28d: 2x H200, and call2/: 1x H200)."""

import copy
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "fixtures", "recorded", "h200x2-2026-11-28d")


def _watch(save, edit=None):
    from gpudoctor.config import Config
    from gpudoctor.gather import from_facts
    from gpudoctor.runner import run_checks
    from gpudoctor.watch import WATCH

    nodes = from_facts(os.path.join(D, save))
    if edit:
        nodes[0].facts = copy.deepcopy(nodes[0].facts)
        edit(nodes[0].facts["watch"])
    report = run_checks(nodes, list(WATCH), Config())
    (r,) = [r for r in report.results if r.id == "watch.memory"]
    return r, [f for f in report.findings if f.check == "watch.memory"]


FILL1 = os.path.join("call2", "fill-save-vm.json")  # one rank took all but 2.5 GiB of a real H200


def _proc(w):
    (p,) = w["processes"]["list"]
    return p


# ------------------------------------------------------------------ the collector's side

def test_maps_give_the_framework_names_only():
    from gpudoctor.collector.watch import parse_maps_frameworks

    maps = (b"55d0c0a00000-55d0c0a21000 r--p 00000000 fe:00 1 /usr/bin/python3.12\n"
            b"7f2125800000-7f2139de5000 r-xp 00000000 fe:00 5065250                    "
            b"/opt/v/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so\n"
            b"7f1c2a000000-7f1c2b000000 r-xp 00000000 08:01 1234 "
            b"/usr/lib/python3/dist-packages/tensorflow/libtensorflow_framework.so.2\n"
            b"7f00 r-xp 0 00:00 0 /opt/v/lib/python3.12/site-packages/jaxlib/_jax.so\n"
            b"7f01 r-xp 0 0 0 /opt/v/lib/python3.12/site-packages/vllm/_C.abi3.so\n"
            b"7ffd r-xp 00000000 00:00 0                          [vdso]\n"
            b"7ffe rw-p 00000000 00:00 0 \n")
    assert parse_maps_frameworks(maps) == ["jax", "tensorflow", "torch", "vllm"]
    assert parse_maps_frameworks(b"") == [] and parse_maps_frameworks(None) == []
    # this test's own interpreter: no framework, and describe_process reads its maps
    from gpudoctor.collector.base import Context
    from gpudoctor.collector.watch import describe_process

    p = describe_process(Context(), os.getpid(), None)
    assert isinstance(p["frameworks"], list) and "tensorflow" not in p["frameworks"]


def test_the_allocator_variables_are_kept_beside_the_communication_ones():
    from gpudoctor.collector.watch import parse_environ

    env = parse_environ(b"XLA_PYTHON_CLIENT_MEM_FRACTION=.97\0XLA_PYTHON_CLIENT_PREALLOCATE=false\0"
                        b"XLA_CLIENT_MEM_FRACTION=.5\0TF_FORCE_GPU_ALLOW_GROWTH=true\0XLA_FLAGS=--x\0"
                        b"TF_CPP_MIN_LOG_LEVEL=2\0NCCL_DEBUG=INFO\0PATH=/bin")
    assert env == {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".97", "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                   "XLA_CLIENT_MEM_FRACTION": ".5", "TF_FORCE_GPU_ALLOW_GROWTH": "true", "NCCL_DEBUG": "INFO"}


# ------------------------------------------------------------------ watch.memory against a pool taken at start

def test_the_recorded_full_gpu_is_still_near_full():
    r, (f,) = _watch(FILL1)
    assert r.status == "warn" and f.message.startswith("GPU memory near full: GPU 0 holds 138.1 of 140.4 GiB (98%)")


def test_tensorflow_with_allow_growth_off_is_not_judged_for_room():
    def tf(w):
        _proc(w)["frameworks"] = ["tensorflow"]

    r, found = _watch(FILL1, tf)
    assert r.status == "pass" and not found
    assert r.summary.startswith("GPU 0 holds 138.1 GiB of 140 GiB at the peak (98%); one GPU; GPU 0 not judged for "
                                "room (138.1 of 140.4 GiB held): pid ")
    assert r.summary.endswith(" loads TensorFlow, which maps nearly all of a GPU at start "
                              "(TF_FORCE_GPU_ALLOW_GROWTH=true shows what it needs)")

    def grows(w):  # allow-growth on: TensorFlow holds what it needs, so 98% is the need
        tf(w)
        _proc(w)["env"]["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"

    r, (f,) = _watch(FILL1, grows)
    assert r.status == "warn" and f.message.startswith("GPU memory near full")
    r, (f,) = _watch(FILL1, lambda w: _proc(w).update(frameworks=["torch"]))  # PyTorch does not preallocate
    assert r.status == "warn"


def test_vllm_is_its_pool():
    r, found = _watch(FILL1, lambda w: _proc(w).update(frameworks=["torch", "vllm"]))
    assert r.status == "pass" and not found and r.summary.endswith(
        "loads vLLM, which takes --gpu-memory-utilization of the GPU (0.9 by default) for its weights and KV cache at "
        "start (its log's KV cache size says the room)")


def test_a_jax_fraction_of_95_or_more_is_its_pool():
    def jax(value, **more):
        def edit(w):
            _proc(w)["env"].update({"XLA_PYTHON_CLIENT_MEM_FRACTION": value}, **more)
        return edit

    r, found = _watch(FILL1, jax(".97"))
    assert r.status == "pass" and not found and ("XLA_PYTHON_CLIENT_MEM_FRACTION=0.97 makes JAX preallocate 97% of "
                                                 "the GPU at its first operation") in r.summary
    # the newer name is read first (JAX's page: XLA_CLIENT_MEM_FRACTION, the old name deprecated)
    r, _ = _watch(FILL1, jax(".5", XLA_CLIENT_MEM_FRACTION="0.96"))
    assert r.status == "pass" and "XLA_CLIENT_MEM_FRACTION=0.96" in r.summary
    # a fraction under the line cannot explain 98%: the pool grew for the arrays; no preallocation: the need
    for edit in (jax(".9"), jax(".97", XLA_PYTHON_CLIENT_PREALLOCATE="false"),
                 jax(".97", XLA_PYTHON_CLIENT_ALLOCATOR="platform")):
        r, (f,) = _watch(FILL1, edit)
        assert r.status == "warn" and f.message.startswith("GPU memory near full")
    # a node's values are parsed, never shown: a hostile one excuses nothing and is not echoed
    for bad in ("nan", "inf", "1e9", "-1", "x;touch M", "\x1b]52;c;e\x07"):
        r, (f,) = _watch(FILL1, jax(bad))
        assert r.status == "warn" and bad not in f.message and bad not in (r.summary or "")


def test_a_pool_beside_another_finding_is_said_as_a_note():
    two = "fill-save-vm.json"  # 2 ranks: GPU 0 filled, GPU 1 10 GiB: near full and uneven

    def tf0(w):
        for p in w["processes"]["list"]:
            p["frameworks"] = ["tensorflow"] if 0 in p["gpus"] else ["torch"]

    r, found = _watch(two, tf0)
    sev = sorted((f.severity, f.message.split(":")[0]) for f in found)
    assert sev == [("info", "GPU 0 not judged for room (139.0 of 140.4 GiB held)"),
                   ("warning", "uneven GPU memory")]


# ------------------------------------------------------------------ stray contexts through the nvidia-smi sampler

class _SmiHost(object):
    """nvidia-smi's answers on the recorded stray host, rebuilt from what was recorded there: --query-gpu from the
    save's GPUs (index, name, uuid, NVML's bus id) and first sample; --query-compute-apps=gpu_bus_id,pid from
    stray-apps.csv's pid/uuid rows with each uuid's bus id. The formats are nvidia-smi's as recorded on an H100
    (fixtures/watch/h100-machine.txt: '0, NVIDIA H100 80GB HBM3, GPU-..., 00000000:00:06.0, 100, ...' and
    '00000000:00:06.0, 488')."""

    live = True

    def __init__(self):
        w = json.load(open(os.path.join(D, "stray-save-vm.json")))["watch"]
        self.gpus = w["gpu"]["gpus"]
        self.nvml_pids = dict((p["pid"], p["gpus"]) for p in w["processes"]["list"])
        bus = dict((g["uuid"], g["bus_id"].upper()) for g in self.gpus)
        rows = [line.split(", ") for line in open(os.path.join(D, "stray-apps.csv")).read().splitlines()[1:]]
        self.apps = "".join("%s, %s\n" % (bus[u], pid) for pid, u, _m in rows)

    def run(self, argv):
        if argv[1].startswith("--query-compute-apps=gpu_bus_id,pid"):
            return 0, self.apps
        if argv[1] == "--query-gpu=driver_version":
            return 0, "580.159.04\n" * len(self.gpus)
        out = ""
        for g in self.gpus:
            s = g["samples"][0]
            out += "%d, %s, %s, %s, %d, %d, %.2f, 700.00, %d, %d, %d\n" % (
                g["index"], g["name"], g["uuid"], g["bus_id"].upper(), s["util_pct"], s["mem_util_pct"],
                s["power_w"], s["sm_clock_mhz"], s["mem_used_mib"], g["memory_total_mib"])
        return 0, out


def test_the_smi_sampler_finds_the_stray_context_nvml_found():
    from gpudoctor.collector.watch import SmiSampler

    host = _SmiHost()
    assert host.apps == ("00000000:00:06.0, 855\n00000000:00:06.0, 856\n00000000:00:07.0, 856\n")
    smi = SmiSampler(host)
    assert [(g["index"], g["bus_id"], g["memory_total_mib"]) for g in smi.info()["gpus"]] == [
        (0, "00000000:00:06.0", 143771), (1, "00000000:00:07.0", 143771)]
    got = dict((p, sorted(i)) for p, i in smi.pids().items())
    assert got == host.nvml_pids == {855: [0], 856: [0, 1]}

    def through_smi(w):  # the same window as the nvidia-smi sampler reports it
        w["gpu"]["source"] = "nvidia-smi"
        for p in w["processes"]["list"]:
            p["gpus"] = got[p["pid"]]

    r, (f,) = _watch("stray-save-vm.json", through_smi)
    assert f.message.startswith("1 of the job's processes hold a context on another rank's GPU beside their own "
                                "(pid 856 on GPU 0,1)")
