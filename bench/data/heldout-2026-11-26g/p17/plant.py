#!/usr/bin/env python3
"""Plant held-out set P17 (CPU only): each case runs in its own neutral job dir under /tmp/jobs;
combined stdout+stderr saved verbatim to logs/<name>.log (prefixed by the '$ command' line),
command/exit code/versions to logs/manifest.json.  Usage: plant.py [name ...]"""
import hashlib, json, os, shutil, subprocess, sys, time
H = "/tmp/heldout-p17"; L = H + "/logs"; W = "/tmp/jobs"
VENV = H + "/venv/bin"
sys.path.insert(0, H)
from cases import C

def versions():
    code = ("import importlib.metadata as m\n"
            "for p in ['torch','lightning','transformers','accelerate','datasets','peft','torchmetrics','timm','omegaconf','hydra-core','webdataset','numpy']:\n"
            "    try: print(p, m.version(p))\n    except Exception as e: print(p, 'absent')\n")
    return subprocess.run([VENV + "/python", "-c", code], capture_output=True, text=True).stdout

def run(name):
    c = C[name]
    d = W + "/" + hashlib.sha1(name.encode()).hexdigest()[:8]
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    for rel, body in c.get("files", {}).items():
        p = d + "/" + rel; os.makedirs(os.path.dirname(p), exist_ok=True); open(p, "w").write(body)
    env = dict(os.environ); env["PATH"] = VENV + ":" + env["PATH"]
    env.update({"HOME": W + "/home", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TERM": "dumb",
                "TOKENIZERS_PARALLELISM": "true", "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS", "")})
    if not env["OMP_NUM_THREADS"]: env.pop("OMP_NUM_THREADS")
    env.update(c.get("env", {}))
    os.makedirs(env["HOME"], exist_ok=True)
    if c.get("prep"):   # data preparation, not shown in the log
        subprocess.run([VENV + "/python", "-c", c["prep"]], cwd=d, env=env, check=True)
    t0 = time.time(); shown = c["cmd"]; to = c.get("timeout", 180)
    try:
        p = subprocess.run(["bash", "-c", "timeout -s INT %d %s" % (to, shown)], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=to + 30)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "harness-timeout"
    open(L + "/" + name + ".log", "w").write("$ " + shown + "\n" + out)
    mf = L + "/manifest.json"
    m = json.load(open(mf)) if os.path.exists(mf) else {}
    m[name] = dict(command=shown, env=c.get("env", {}), cwd=d, exit_code=rc, seconds=round(time.time() - t0, 1),
                   when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    m["_versions"] = versions()
    json.dump(m, open(mf, "w"), indent=1, sort_keys=True)
    print("==", name, "rc", rc, "%.1fs" % (time.time() - t0), flush=True)

if __name__ == "__main__":
    for n in sys.argv[1:] or list(C): run(n)
