#!/usr/bin/env python3
"""Plant held-out set P14 on this machine (CPU only): run each case's script in its own work dir,
record verbatim combined stdout+stderr (as the user's terminal shows it) into logs/<name>.log,
and the command, exit code and versions into logs/manifest.json.
Usage: python3 plant14.py [name ...]"""
import json, os, shutil, subprocess, sys, time
H = "/tmp/heldout-p14"; S = H + "/scripts"; W = H + "/work"; L = H + "/logs"
VENV = H + "/venv/bin"
TR = "torchrun --standalone --nproc_per_node=2"
# name: (script, shown-as filename, launcher, timeout_s, extra env, setup fn name, shell prefix hidden from the log)
C = {}
def case(name, script, fname="train.py", launch="python", timeout=60, env=None, setup=None, hidden="", extra=()):
    C[name] = dict(script=script, fname=fname, launch=launch, timeout=timeout, env=env or {}, setup=setup, hidden=hidden, extra=list(extra))
from plant14_cases import register
register(case)

from plant14_cases import setup

def run(name):
    # neutral work dir name (the case name would hint at the cause in every traceback path)
    c = C[name]; d = W + "/job-" + __import__("hashlib").sha1(name.encode()).hexdigest()[:6]
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    dst = d + "/" + c["fname"]; os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(S + "/" + c["script"], dst)
    for e in c["extra"]: shutil.copy(S + "/" + e, d + "/" + e)
    if c["setup"]: setup(c["setup"], d)
    shown = "%s %s" % (c["launch"], c["fname"])
    env = dict(os.environ); env["PATH"] = VENV + ":" + env["PATH"]; env.pop("PYTHONHASHSEED", None); env.update(c["env"])
    env["HOME"] = W + "/home"; env["HF_HUB_OFFLINE"] = "1"; env["TERM"] = "dumb"
    os.makedirs(env["HOME"], exist_ok=True)
    t0 = time.time()
    try:
        cmd = c["hidden"] + "exec timeout -s INT %d %s" % (c["timeout"], shown)
        if ";" in shown:   # several commands typed one after the other
            cmd = c["hidden"] + "; ".join("timeout -s INT %d %s" % (c["timeout"], part.strip()) for part in shown.split(";"))
        p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=c["timeout"] + 30)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "harness-timeout"
    text = "$ " + shown + "\n" + out
    if rc == 124 or rc == 130: text += "^C\n"
    open(L + "/" + name + ".log", "w").write(text)
    m = json.load(open(L + "/manifest.json")) if os.path.exists(L + "/manifest.json") else {}
    m[name] = dict(command=shown, hidden_shell_prefix=c["hidden"], env={k: v for k, v in c["env"].items()}, cwd=d,
                   exit_code=rc, seconds=round(time.time() - t0, 1), timeout_s=c["timeout"], script=c["script"],
                   when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    json.dump(m, open(L + "/manifest.json", "w"), indent=1, sort_keys=True)
    print("==", name, "rc", rc, "%.1fs" % (time.time() - t0), flush=True)

if __name__ == "__main__":
    names = sys.argv[1:] or list(C)
    for n in names: run(n)
