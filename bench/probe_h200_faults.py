"""The probe's failure handling on a real GPU host (NCCL, not a stand-in). Run from the
repository root:  PYTHONPATH=. python3 bench/probe_h200_faults.py OUTDIR
Each case writes OUTDIR/fault-<name>.json (the gpudoctor.probe/1 document) and a line to
OUTDIR/faults.txt: the node's error_kind, the time taken against the budget, what was left.

- bad-ifname: NCCL_SOCKET_IFNAME names no interface (P2P and SHM off): NCCL init fails;
- no-gpu: one group sees no GPU (CUDA_VISIBLE_DEVICES=""): its rank says so;
- rank-killed: a rank is SIGKILLed mid-sweep: the job is reported, the other rank ended;
- budget: a 1 MiB-1 GiB sweep over sockets under a 12 s budget: it stops, truncated, in time.
NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the others).
"""

import json
import os
import signal
import sys
import threading
import time

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/probe-faults"
os.makedirs(OUT, exist_ok=True)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.update({"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"})

from gpudoctor.probe import findings, launch, node, run  # noqa: E402

SOCK = {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}
NODES = ["h200x2-g0", "h200x2-g1"]


def record(name, doc, took):
    doc["findings_here"] = [{"check": f.check, "severity": f.severity, "message": f.message}
                            for f in findings.evaluate(doc, {})]
    with open(os.path.join(OUT, "fault-%s.json" % name), "w") as f:
        json.dump(doc, f, indent=1)
    kinds = {n["host"]: n["error_kind"] for n in doc["nodes"]}
    jobs = [(j["scope"], j["ok"], j["error_kind"], (j["error"] or "")[:160], j.get("truncated")) for j in doc["jobs"]]
    left = node.find_run(doc["run_id"])
    line = "%s: %.1fs of %gs; nodes %s; jobs %s; cleanup %s; left now %d" % (
        name, took, doc["budget_s"], kinds, jobs, doc["cleanup"], len(left))
    print(line, flush=True)
    with open(os.path.join(OUT, "faults.txt"), "a") as f:
        f.write(line + "\n")


def case(name, budget, node_env, gpus=1, hosts=NODES, during=None, sizes=None):
    t0 = time.time()
    if during:
        threading.Thread(target=during, daemon=True).start()
    doc = run.probe(hosts, launch.LocalTransport(), mode="nccl", budget=budget, gpus=gpus, node_env=node_env,
                    keep_logs=True, sizes=sizes)
    record(name, doc, time.time() - t0)


def kill_a_rank_after(seconds):
    """SIGKILL the second group's rank once it is measuring: the process carrying this run's
    token, NCCL_DEBUG=INFO (set by the worker for its ranks only) and CUDA_VISIBLE_DEVICES=1."""
    def go():
        time.sleep(seconds)
        for pid in os.listdir("/proc"):
            try:
                env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0") if pid.isdigit() else []
            except OSError:
                continue
            if b"NCCL_DEBUG=INFO" in env and b"CUDA_VISIBLE_DEVICES=1" in env and \
                    any(e.startswith(b"GPUDOCTOR_PROBE_RUN=") for e in env):
                print("killing rank pid", pid, flush=True)
                os.kill(int(pid), signal.SIGKILL)
                return
    return go


if __name__ == "__main__":
    case("bad-ifname", 60, {h: dict(SOCK, NCCL_SOCKET_IFNAME="doesnotexist0", CUDA_VISIBLE_DEVICES=str(i))
                            for i, h in enumerate(NODES)})
    case("no-gpu", 60, {NODES[0]: {"CUDA_VISIBLE_DEVICES": "0"}, NODES[1]: {"CUDA_VISIBLE_DEVICES": ""}})
    case("rank-killed", 60, {h: dict(SOCK, CUDA_VISIBLE_DEVICES=str(i)) for i, h in enumerate(NODES)},
         during=kill_a_rank_after(8))
    case("budget", 12, {h: dict(SOCK, CUDA_VISIBLE_DEVICES=str(i)) for i, h in enumerate(NODES)})
    print("done", flush=True)
