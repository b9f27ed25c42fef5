import json, os, signal, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpuprogs import *
HERE = os.path.dirname(os.path.abspath(__file__))
VBIN = os.environ.get("VBIN", "/tmp/venv-ml/bin")
def tr(port, extra=""):
    return "torchrun --nproc-per-node 2 --master-port %d %strain.py" % (port, extra)
S = {}
def add(name, prog, cmd, env=None, limit=90, files=None):
    f = {"train.py": prog}; f.update(files or {})
    S[name] = dict(prog=f, cmd=cmd, env=dict(env or {}), limit=limit)
add("u01", P_MESH, tr(43711))
add("u02", P_A2A, tr(43712))
add("u03", P_RS, tr(43713))
add("u04", P_CKSEQ, "python train.py")
add("u05", P_REPL, tr(43715))
add("c01", P_TIKTOKEN, "python train.py", limit=120)
add("c02", P_OMP0, tr(43717), dict(OMP_NUM_THREADS="0"))
add("w01", P_FSDP_SYNC, tr(43718))
add("b01", P_FSDP_SYNC, tr(43719), dict(REENABLE="1"))
add("w02", P_INITSYNC, tr(43720))
add("b02", P_INITSYNC, tr(43721), dict(INIT_SYNC="1"))
add("w03", P_DDP_OK, "date -u +%T; time torchrun --nnodes 1:2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint localhost:43722 train.py; date -u +%T", limit=150)
add("b03", P_DDP_OK, "date -u +%T; time torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint localhost:43723 train.py; date -u +%T", limit=150)
add("w04", P_BCAST, tr(43724), limit=60)
add("c03", P_DDP_OK, "torchrun --nproc-per-node 2 --master-port 70013 train.py")
add("c04", P_DDP_OK, tr(43730), dict(GLOO_DEVICE_TRANSPORT="UV"))
add("w05", P_TAG, tr(43731), limit=60)
add("u06", P_ST_OLD, "python prep.py && python train.py", files={"prep.py": ST_PREP}, limit=150)
add("u07", PL_R0, "python train.py", limit=150)
add("u08", P_INTEROP, tr(43741))
add("u09", P_INTEROP2, tr(43742))
add("u10", P_BF16, tr(43743))
add("u11", PL_BEST, "python train.py", limit=150)
add("h01", PL_OK, "python train.py", limit=180)
add("h02", P_ST_OK, "python prep.py && python train.py", files={"prep.py": ST_PREP}, limit=180)
add("h03", P_DDP_OK, tr(43727, "--tee 3 --log-dir tlogs "))
def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    for fn, text in sc["prog"].items():
        open(os.path.join(jobdir, fn), "w").write(text.lstrip("\n"))
    env = dict(os.environ, PYTHONUNBUFFERED="1", PATH=VBIN + os.pathsep + os.environ["PATH"])
    env.pop("OMP_NUM_THREADS", None)
    env.update(sc["env"])
    t = time.time(); rec = {"name": name, "cmd": sc["cmd"], "env": sc["env"], "jobdir": jobdir,
                            "start_utc": time.strftime("%H:%M:%S", time.gmtime())}
    with open(os.path.join(out, name + ".log"), "wb") as logf:
        proc = subprocess.Popen(sc["cmd"], shell=True, executable="/bin/bash", cwd=jobdir, stdout=logf,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=sc["limit"])
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL); proc.wait(); rc = "timeout %d s" % sc["limit"]
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec.update(rc=rc, seconds=round(time.time() - t, 1))
    return rec
if __name__ == "__main__":
    out = os.path.join(HERE, "logs"); os.makedirs(out, exist_ok=True)
    base = "/tmp/job-7q3k"
    names = sys.argv[1:] or list(S)
    man = os.path.join(HERE, "manifest.jsonl")
    for i, n in enumerate(names):
        r = run_one(n, S[n], os.path.join(base, "job%02d" % list(S).index(n)), out)
        print(r, flush=True)
        open(man, "a").write(json.dumps(r) + "\n")
