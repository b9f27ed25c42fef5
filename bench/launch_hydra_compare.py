#!/usr/bin/env python3
"""`gpudoctor plan mpiexec ...` against MPICH's own Hydra (launch24): ranks per host for random
machinefiles (`host`, `host:N` lines; -f / -machinefile / -hostfile) and -hosts lists, with and
without -ppn and -n. Hydra places the ranks without starting anything: `mpiexec.hydra -launcher
manual -v` prints its "Proxy information" (per MPMD section) (each host and its process count) and then waits for
proxies started by hand; it is killed after 3 s. A case where both refuse counts as agreeing.

Hydra without installing it (Debian 12's mpich 4.0.2 would take over the mpirun/mpiexec
alternatives from Open MPI):
    apt-get download mpich libslurm38 && for d in *.deb; do dpkg -x $d ROOT; done
    python bench/launch_hydra_compare.py ROOT SEED N
Where the line's name is `mpiexec`, gpudoctor reads Open MPI's rules unless Open MPI would refuse
what Hydra reads (docs/launch.md): the cases left are those (a machinefile of plain host names
with no -n, or -n past its lines: Open MPI refuses, Hydra runs)."""
import json, os, random, re, subprocess, sys
ROOT = sys.argv[1]
HY = os.path.join(ROOT, "usr/bin/mpiexec.hydra")
LIB = os.path.join(ROOT, "usr/lib/x86_64-linux-gnu")
TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = os.path.join(ROOT, "w")
os.makedirs(W, exist_ok=True)

def hydra(args):
    p = subprocess.Popen([HY, "-launcher", "manual", "-v"] + args, cwd=W, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={"LD_LIBRARY_PATH": LIB, "PATH": "/usr/bin:/bin"},
                         start_new_session=True)
    out = b""
    try:
        out, _ = p.communicate(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
    t = out.decode(errors="replace")
    if "Proxy information" not in t:
        return ("error", [l for l in t.splitlines() if l.strip()][:2])
    res, host = {}, None
    for l in t.split("Proxy information")[1].splitlines():
        m = re.match(r"^\s+\[\d+\] proxy: (\S+) \((\d+) cores\)", l)
        if m:
            host = m.group(1); res.setdefault(host, 0); continue
        m = re.match(r"^\s+Exec list: (.*)$", l)
        if m and host:
            res[host] += sum(int(x) for x in re.findall(r"\((\d+) processes\)", m.group(1)))
        if l.startswith("====="):
            break
    return ("ok", res)

def mine(args):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "plan", "--json", "--", "mpiexec"] + args,
                       cwd=W, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=TREE))
    if p.returncode == 2:
        return ("error", [p.stderr.strip()[:200]])
    d = json.loads(p.stdout)
    res = {}
    for n in d.get("nodes") or []:
        res[n["host"]] = (res.get(n["host"]) or 0) + (n["procs"] if n["procs"] is not None else -999)
    return ("ok", res)

def cases(seed, k):
    r = random.Random(seed)
    out = []
    for _ in range(k):
        hosts = ["h%d" % i for i in range(1, r.randint(1, 4) + 1)]
        form = r.choice(["f", "hosts", "hostfile", "machinefile"])
        args = []
        if form == "hosts":
            args += ["-hosts", ",".join(h + (":%d" % r.randint(1, 4) if r.random() < .5 else "") for h in hosts)]
        else:
            name = "hf%d" % len(out)
            with open(os.path.join(W, name), "w") as f:
                for h in hosts:
                    f.write(h + (":%d" % r.randint(1, 4) if r.random() < .6 else "") + "\n")
            args += ["-" + form if form != "f" else "-f", name]
        if r.random() < .5:
            args += ["-ppn", str(r.randint(1, 4))]
        if r.random() < .8:
            args += [r.choice(["-n", "-np"]), str(r.randint(1, 12))]
        args += ["python", "t.py"]
        while r.random() < .3:  # an MPMD section (MPICH's mpiexec(1): `-n 1 ./master : -n 19 ./slave`)
            args += [":"] + ([r.choice(["-n", "-np"]), str(r.randint(1, 6))] if r.random() < .7 else []) + [
                "python", "u.py"]
        out.append(args)
    return out

seed, k = int(sys.argv[2]), int(sys.argv[3])
bad = 0
for args in cases(seed, k):
    h, m = hydra(args), mine(args)
    same = h == m or (h[0] == m[0] == "error")
    if not same:
        bad += 1
        files = [open(os.path.join(W, a)).read().replace("\n", " ") for a in args if a.startswith("hf")]
        print("DIFF", " ".join(args), files, "| hydra", h, "| plan", m)
print("seed", seed, "cases", k, "differ", bad)
