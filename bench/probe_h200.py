"""The probe on a real GPU host, and what the team keeps from it (docs/benchmarks.md).

Run from the repository root on a machine with GPUs and the job's torch:
    PYTHONPATH=. python3 bench/probe_h200.py OUTDIR
Every step is bounded by a timeout and writes its own file under OUTDIR:
  machine.txt             nvidia-smi, topology, kernel, torch/NCCL versions
  facts.json, facts-deep.json   `gpudoctor facts` of this host
  probe-nvlink.json       the probe, one node, all GPUs (P2P/NVLink)
  probe-socket.json       two "nodes" on this host (one GPU each), NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
  probe-shm.json          the same with P2P disabled only (SHM)
  probe-cli.json/.txt     `gpudoctor probe --local` as a user runs it
  torch-loop-*.txt        a plain torch.distributed timing loop under torchrun, for comparison
  nccl-tests.txt          all_reduce_perf, when nccl-tests builds here (.carry/nccl-tests)
  healthy-*.log, planted-*.log  NCCL_DEBUG=INFO logs of healthy and faulty launches
NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the others) in every process started here.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/probe-out"
os.makedirs(OUT, exist_ok=True)
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
SAFE = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(SAFE)
os.environ["PYTHONUNBUFFERED"] = "1"
T0 = time.time()
STAMP = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def say(msg):
    print("[%6.1fs] %s" % (time.time() - T0, msg), flush=True)


def sh(cmd, timeout, env=None, path=None, shell=False):
    """Run a command (bounded); its output, also written to ``path``."""
    e = dict(os.environ)
    e.update(env or {})
    t = time.time()
    try:
        p = subprocess.run(cmd, shell=shell, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, cwd=HERE, start_new_session=True)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as exc:
        out, rc = (exc.stdout or b"").decode("utf-8", "replace") + "\n[timed out after %ss]\n" % timeout, 124
    except OSError as exc:
        out, rc = "[%s]\n" % exc, 127
    took = time.time() - t
    if path:
        with open(os.path.join(OUT, path), "w") as f:
            f.write(out)
    say("%s: rc=%s in %.1fs" % (cmd if isinstance(cmd, str) else " ".join(cmd)[:100], rc, took))
    return rc, out


def machine():
    parts = []
    for c in (["nvidia-smi"], ["nvidia-smi", "topo", "-m"], ["nvidia-smi", "nvlink", "-s"], ["uname", "-a"],
              ["nproc"], ["ip", "-br", "addr"], ["df", "-h", "/dev/shm"],
              [sys.executable, "-c", "import torch;print('torch', torch.__version__, 'cuda', torch.version.cuda, "
                                     "'nccl', torch.cuda.nccl.version(), 'gpus', torch.cuda.device_count())"]):
        rc, out = sh(c, 60)
        parts.append("$ %s\n%s" % (" ".join(c), out))
    with open(os.path.join(OUT, "machine.txt"), "w") as f:
        f.write("captured %s\n\n" % STAMP + "\n".join(parts))
    return parts[-1]


def probe_runs():
    from gpudoctor.probe import launch, run

    tr = launch.LocalTransport()
    say("probe (a): one node, both GPUs")
    doc = run.probe(["h200x2"], tr, mode="nccl", budget=100, keep_logs=True, log=say)
    json.dump(doc, open(os.path.join(OUT, "probe-nvlink.json"), "w"), indent=1)
    say("probe (b): two nodes on this host, sockets")
    env = {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}
    node_env = {"h200x2-g0": dict(env, CUDA_VISIBLE_DEVICES="0"), "h200x2-g1": dict(env, CUDA_VISIBLE_DEVICES="1")}
    doc = run.probe(["h200x2-g0", "h200x2-g1"], tr, mode="nccl", budget=150, keep_logs=True, log=say,
                    gpus=1, node_env=node_env)
    if not any(j["ok"] for j in doc["jobs"]):  # no interface but lo: NCCL skips lo unless named
        say("socket run failed (%s); again with NCCL_SOCKET_IFNAME=lo" % [j["error"] for j in doc["jobs"]])
        for v in node_env.values():
            v["NCCL_SOCKET_IFNAME"] = "lo"
        json.dump(doc, open(os.path.join(OUT, "probe-socket-first.json"), "w"), indent=1)
        doc = run.probe(["h200x2-g0", "h200x2-g1"], tr, mode="nccl", budget=150, keep_logs=True, log=say,
                        gpus=1, node_env=node_env)
    json.dump(doc, open(os.path.join(OUT, "probe-socket.json"), "w"), indent=1)
    say("probe (b2): two nodes on this host, P2P disabled (SHM)")
    node_env = {"h200x2-g0": {"NCCL_P2P_DISABLE": "1", "CUDA_VISIBLE_DEVICES": "0"},
                "h200x2-g1": {"NCCL_P2P_DISABLE": "1", "CUDA_VISIBLE_DEVICES": "1"}}
    doc = run.probe(["h200x2-g0", "h200x2-g1"], tr, mode="nccl", budget=60, keep_logs=True, log=say, gpus=1,
                    node_env=node_env, sizes=[1 << 20 << i for i in range(0, 11, 2)])
    json.dump(doc, open(os.path.join(OUT, "probe-shm.json"), "w"), indent=1)
    render_all()


def render_all():
    """The text report of each recorded run, as `gpudoctor probe` prints it (findings from the
    run alone: these docs carry no facts), with the all-reduce time per step for 7e9 bf16."""
    import io

    from gpudoctor.probe import findings, report

    for name in ("probe-nvlink", "probe-socket", "probe-shm"):
        path = os.path.join(OUT, name + ".json")
        if not os.path.exists(path):
            continue
        doc = json.load(open(path))
        f = findings.evaluate(doc, {})
        buf = io.StringIO()
        report.render_text(doc, f, buf, report.estimate(doc, 7e9, "bf16"))
        open(os.path.join(OUT, name + ".txt"), "w").write(buf.getvalue())


LOOP = r'''
import os, time, torch, torch.distributed as dist
dist.init_process_group("nccl")
r, n = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
if r == 0:
    print("size_bytes time_us algbw_GBps busbw_GBps (all_reduce, float32, 5 warm-up + 20 timed, CUDA events)")
for i in range(11):
    nbytes = (1 << 20) << i
    x = torch.zeros(nbytes // 4, device="cuda")
    for _ in range(5):
        dist.all_reduce(x)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(); s.record()
    for _ in range(20):
        dist.all_reduce(x)
    e.record(); torch.cuda.synchronize()
    t = s.elapsed_time(e) / 20 / 1e3
    if r == 0:
        alg = nbytes / t / 1e9
        print("%d %.1f %.2f %.2f" % (nbytes, t * 1e6, alg, alg * 2 * (n - 1) / n), flush=True)
dist.destroy_process_group()
'''

TINY = r'''
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("rank", dist.get_rank(), "sum", x[0].item(), flush=True)
dist.destroy_process_group()
'''

ACC = r'''
import torch
from accelerate import Accelerator
acc = Accelerator()
x = torch.ones(4, device=acc.device) * (acc.process_index + 1)
y = acc.reduce(x, reduction="sum")
acc.print("accelerate reduce:", y.tolist(), "processes", acc.num_processes)
acc.end_training() if hasattr(acc, "end_training") else None
'''

INFO = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"}


def gpus_here():
    """'2x NVIDIA H100 80GB HBM3' from nvidia-smi -L (the header said H200 whatever the host was)."""
    try:
        names = [l.split(":", 1)[1].split("(UUID")[0].strip() for l in subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout.splitlines() if ":" in l]
    except (OSError, subprocess.SubprocessError):
        names = []
    return "%dx %s" % (len(names), names[0]) if names else "GPU"


def header(path, family, command, fix, note):
    body = open(os.path.join(OUT, path)).read()
    with open(os.path.join(OUT, path), "w") as f:
        f.write("# source: captured on a %s host (one machine, Firecracker VM), %s, by "
                "bench/probe_h200.py; %s\n# family: %s\n# fix: %s\n# command: %s\n# ---\n" % (
                    gpus_here(), STAMP, note, family, fix, command))
        f.write(body)


def torch_runs():
    for name, src in (("loop.py", LOOP), ("tiny.py", TINY), ("acc.py", ACC)):
        with open("/tmp/" + name, "w") as f:
            f.write(src)
    run = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    sh(run + ["/tmp/loop.py"], 120, env=INFO, path="torch-loop-nvlink.txt")
    header("torch-loop-nvlink.txt", "healthy", "torchrun --standalone --nproc_per_node 2 loop.py",
           "none: healthy run", "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET, both GPUs over NVLink")
    sh(run + ["/tmp/loop.py"], 180, env=dict(INFO, NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1"),
       path="torch-loop-socket.txt")
    header("torch-loop-socket.txt", "healthy", "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 torchrun ... loop.py",
           "none: healthy run (forced onto NET/Socket)", "NCCL_DEBUG=INFO, P2P and SHM disabled")
    if shutil.which("accelerate") or True:
        sh([sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
            "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "/tmp/acc.py"], 120,
           env=INFO, path="healthy-accelerate.log")
        header("healthy-accelerate.log", "healthy", "accelerate launch --multi_gpu --num_processes 2 acc.py",
               "none: healthy run", "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET")


def planted():
    run = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2"]
    sh(run + ["--standalone", "/tmp/tiny.py"], 90, path="planted-socket-ifname.log",
       env=dict(INFO, NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1", NCCL_SOCKET_IFNAME="doesnotexist0"))
    header("planted-socket-ifname.log", "nccl.socket_ifname",
           "NCCL_SOCKET_IFNAME=doesnotexist0 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 torchrun --nproc_per_node 2 tiny.py",
           "unset NCCL_SOCKET_IFNAME or name an interface that exists (ip -br link)", "planted fault")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", 29533))
    s.listen(4)
    sh(run + ["--master_addr", "127.0.0.1", "--master_port", "29533", "--nnodes", "1", "--node_rank", "0",
              "/tmp/tiny.py"], 90, path="planted-port-in-use.log", env=INFO)
    s.close()
    header("planted-port-in-use.log", "rendezvous.address_in_use",
           "(a listener on 29533) torchrun --master_addr 127.0.0.1 --master_port 29533 --nproc_per_node 2 tiny.py",
           "pick a free --master_port (ss -ltn) or stop the process holding it", "planted fault")
    planted_shm()


def planted_shm():
    """A 256 KiB /dev/shm in a private mount namespace. NCCL's SHM transport keeps its buffers in
    cuMem host allocations unless NCCL_CUMEM_ENABLE=0, in which case they are /dev/shm files
    (src/transport/shm.cc, src/misc/shmutils.cc): only then does a small /dev/shm break it."""
    for f in ("tiny.py",):
        with open("/tmp/" + f, "w") as fh:
            fh.write(TINY)
    if shutil.which("unshare"):
        cmd = ("mount -t tmpfs -o size=256k tmpfs /dev/shm && df -h /dev/shm && exec %s -m torch.distributed.run "
               "--standalone --nproc_per_node 2 /tmp/tiny.py" % sys.executable)
        sh(["unshare", "-m", "sh", "-c", cmd], 120, path="planted-shm-tiny.log",
           env=dict(INFO, NCCL_P2P_DISABLE="1", NCCL_CUMEM_ENABLE="0", NCCL_DEBUG_SUBSYS="INIT,NET,SHM"))
        header("planted-shm-tiny.log", "shm.size",
               "unshare -m; mount -t tmpfs -o size=256k tmpfs /dev/shm; NCCL_P2P_DISABLE=1 NCCL_CUMEM_ENABLE=0 "
               "torchrun --standalone --nproc_per_node 2 tiny.py",
               "give /dev/shm room: docker run --shm-size=8g (or --ipc=host)", "planted fault (a 256 KiB /dev/shm)")


def nccl_tests():
    src = os.path.join(HERE, ".carry", "nccl-tests")
    if not os.path.isdir(src) or not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        say("nccl-tests: no source or no nvcc")
        return
    import nvidia.nccl

    nh = "/tmp/ncclhome"
    base = os.path.dirname(nvidia.nccl.__file__) if nvidia.nccl.__file__ else list(nvidia.nccl.__path__)[0]
    os.makedirs(nh + "/lib", exist_ok=True)
    if not os.path.exists(nh + "/include"):
        os.symlink(os.path.join(base, "include"), nh + "/include")
    for lib in os.listdir(os.path.join(base, "lib")):
        dst = os.path.join(nh, "lib", lib)
        if not os.path.exists(dst):
            os.symlink(os.path.join(base, "lib", lib), dst)
    if not os.path.exists(nh + "/lib/libnccl.so"):
        os.symlink(os.path.join(base, "lib", "libnccl.so.2"), nh + "/lib/libnccl.so")
    rc, out = sh("make -j32 -C %s/src BUILDDIR=/tmp/nt NCCL_HOME=%s MPI=0 "
                 "NVCC_GENCODE='-gencode=arch=compute_90,code=sm_90' /tmp/nt/all_reduce_perf" % (src, nh), 240,
                 shell=True, path="nccl-tests-build.txt")
    if rc == 0:
        sh("LD_LIBRARY_PATH=%s/lib:$LD_LIBRARY_PATH /tmp/nt/all_reduce_perf -b 1M -e 1G -f 2 -g 2 -w 5 -n 20" % nh, 120,
           shell=True, path="nccl-tests.txt", env=INFO)
        sh("LD_LIBRARY_PATH=%s/lib:$LD_LIBRARY_PATH /tmp/nt/all_reduce_perf -b 1M -e 1G -f 2 -g 2 -w 5 -n 20" % nh, 180,
           shell=True, path="nccl-tests-socket.txt", env=dict(NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1"))


def cli():
    sh([sys.executable, "-m", "gpudoctor", "facts"], 120, path="facts.json")
    sh([sys.executable, "-m", "gpudoctor", "facts", "--deep"], 180, path="facts-deep.json")
    sh([sys.executable, "-m", "gpudoctor", "probe", "--local", "--mode", "nccl", "--budget", "60", "--json",
        "--params", "7e9", "--grad-dtype", "bf16"], 90, path="probe-cli.json")
    sh([sys.executable, "-m", "gpudoctor", "probe", "--local", "--budget", "60", "--params", "7e9"], 90,
       path="probe-cli.txt")


STEPS = [("machine", machine), ("cli", cli), ("probe", probe_runs), ("torch", torch_runs), ("planted", planted),
         ("planted-shm", planted_shm), ("nccl-tests", nccl_tests)]

if __name__ == "__main__":
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    for name, fn in STEPS:
        if only and name not in only:
            continue
        try:
            fn()
        except Exception as exc:  # one step's failure must not lose the others' files
            import traceback

            say("step %s failed: %s" % (name, exc))
            with open(os.path.join(OUT, "error-%s.txt" % name), "w") as f:
                f.write(traceback.format_exc())
    say("done")
