#!/usr/bin/env python3
"""P56 planting harness (eval-p56). Runner copied from bench/plant34_h100x2.py (itself adapted from plant30_h100x2.py)."""
import concurrent.futures, json, os, signal, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
PYEXE = sys.executable
BIN = os.path.dirname(PYEXE)
T0 = time.time()
START_BY_S = float(os.environ.get("P56_START_BY_S", "300"))
END_BY_S = float(os.environ.get("P56_END_BY_S", "440"))
import importlib
scenarios = importlib.import_module(os.environ.get("P56_SCEN", "scen")).scenarios
def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = dict(sc["env"])
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": sorted(files)}
    if time.time() - T0 > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T0))))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for k, v in env_add.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if sc.get("prep"):
        with open(os.path.join(out, name + ".prep.log"), "wb") as pf:
            try:
                subprocess.run(sc["prep"], shell=True, executable="/bin/bash", cwd=jobdir, stdout=pf,
                               stderr=subprocess.STDOUT, env=env, timeout=60)
            except subprocess.TimeoutExpired:
                pf.write(b"prep timeout\n")
    t = time.time()
    rec["start_utc"] = time.strftime("%H:%M:%S", time.gmtime())
    with open(os.path.join(out, name + ".log"), "wb") as logf:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=jobdir, stdout=logf,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            rc = "timeout %d s" % limit
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec.update(rc=rc, seconds=round(time.time() - t, 1))
    return rec


def facts():
    def sh(c):
        try:
            p = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
            return (p.stdout + p.stderr).strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version "
                         "--format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), "
                    "torch.backends.cudnn.version())'" % PYEXE),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl|jax|flax|optax|orbax|"
                   "sentencepiece|transformers|torchvision|cupy|pytorch-lightning|lightning|sentence-transformers|tiktoken|accelerate|jaxlib)'" % PYEXE),
        "python": sys.version.split()[0],
        "python_path": PYEXE,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "links": sh("ip -o link 2>/dev/null || ls /sys/class/net"),
        "addrs": sh("ip -o addr 2>/dev/null | cut -c1-120"),
        "shm": sh("df -h /dev/shm"),
        "stubs": sh("find / -xdev -name 'libcuda.so*' 2>/dev/null | head -20"),
        "ulimit": sh("ulimit -a"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH", "XLA_",
                                 "TORCHINDUCTOR", "TRITON_", "LOGLEVEL"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p56out"
    mname = os.environ.get("P56_MANIFEST", "manifest.json")
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
    base = tempfile.mkdtemp(prefix="job-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    idx = {n: i for i, n in enumerate(list(all_sc))}
    results = []

    def note(r):
        results.append(r)
        print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)

    def jd(n):
        return os.path.join(base, "job%02d" % idx[n])

    par = sorted([n for n in want if not all_sc[n].get("seq") and not all_sc[n].get("pair")
                  and not all_sc[n].get("paired")], key=lambda n: -all_sc[n]["limit"])
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P56_JOBS", "3"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    for n in want:
        s = all_sc[n]
        if s.get("paired"):
            continue
        if s.get("seq"):
            note(run_one(n, s, jd(n), out))
        elif s.get("pair"):
            pair = [n] + ([s["pair"]] if s["pair"] in want else [])
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in pair]
                for f in concurrent.futures.as_completed(futs):
                    note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, mname), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf %s *.log && rm -f *.log" % (out, os.environ.get("P56_TAR", "logs.tar.gz")),
                   shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
