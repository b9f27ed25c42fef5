#!/usr/bin/env python3
"""Plant held-out set P27 on this CPU machine: each case runs in its own neutral work dir
(work/job-<sha1[:6]>), its combined stdout+stderr is saved verbatim to logs/<name>.log (prefixed by the
command line as the user typed it), and command, exit code, env and versions go to logs/manifest.json.
Infra cases use our own sshd instances on 127.0.0.7x, our own single-node Slurm (slurmctld+slurmd in a
private UTS namespace, ports 16927/16928) and our own Open MPI runs; everything is stopped at the end.
Usage: python3 plant27_local.py [name ...]"""
import hashlib, json, os, shutil, subprocess, sys, time
H = "/tmp/heldout-p27"; CS = H + "/cases"; W = H + "/work"; LG = H + "/logs"; INF = H + "/infra"
VENV = H + "/venv/bin"; PY = VENV + "/python"
C = {}

def case(name, files, cmd, env=None, hidden="", timeout=120, ssh=False, slurm=False):
    """files: {dest: src under cases/}; cmd: what the user typed (shown); hidden: shell prefix not shown."""
    C[name] = dict(files=files, cmd=cmd, env=env or {}, hidden=hidden, timeout=timeout, ssh=ssh, slurm=slurm)

TR = "torchrun --nproc-per-node 2"
ACC = "accelerate launch --cpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no"
# ---------------- user code in training libraries
case("peft_llama_names_on_bert", {"train.py": "L1.py"}, "python train.py")
case("einops_cls_token_grid", {"train.py": "L2.py"}, "python train.py")
case("lightning_log_vector_metric", {"train.py": "L3.py"}, "python train.py")
case("accelerate_gather_uneven_slices", {"train.py": "L5.py"}, ACC + " train.py")
case("torchmetrics_mask_255", {"eval_seg.py": "L6.py"}, "python eval_seg.py")
case("gpt2_seqcls_no_pad_id", {"finetune.py": "L7.py"}, "python finetune.py")
case("timm_features_only_list", {"train.py": "L8.py"}, "python train.py")
case("datasets_json_nested_field", {"prep.py": "L9.py"}, "python prep.py")
case("hydra_defaults_option_absent", {"train.py": "L10/train.py", "conf": "L10/conf"}, "python train.py")
case("gloo_reduceop_avg", {"train.py": "L11.py"}, TR + " train.py")
case("collator_padding_token_labels", {"ner.py": "L12.py"}, "python ner.py")
case("safetensors_load_pickle_bin", {"serve.py": "L14.py"}, "python serve.py")
case("omegaconf_yaml_tab_indent", {"train.py": "L15/train.py", "base.yaml": "L15/base.yaml"}, "python train.py optim.lr=0.02")
case("lightning_num_nodes_one_node_started", {"train.py": "L16.py"}, "MASTER_ADDR=127.0.0.1 MASTER_PORT=29733 python train.py", timeout=60)
case("yaml_scientific_lr_string", {"train.py": "L17/train.py", "config.yaml": "L17/config.yaml"}, "python train.py")
case("lightning_fit_dataset_not_loader", {"train.py": "L18.py"}, "python train.py")
case("safetensors_transposed_view", {"export.py": "L19.py"}, "python export.py")
case("lightning_ckpt_monitor_no_val_loop", {"train.py": "L20.py"}, "python train.py")
case("healthy_lightning_ddp_cpu", {"train.py": "H2.py"}, "python train.py", timeout=240)
case("healthy_accelerate_gather_for_metrics", {"train.py": "H3.py"}, ACC + " train.py")
case("healthy_peft_lora_bert", {"train.py": "H5.py"}, "python train.py")

# ---------------- infrastructure of a multi-node job
IN = {"ddp_allreduce.py": "infra/ddp_allreduce.py"}
case("healthy_ssh_two_node_torchrun", dict(IN, **{"launch.sh": "infra/launch.sh", "nodes.txt": "@cn01 cn02"}),
     "MASTER_ADDR=127.0.0.71 ./launch.sh", ssh=True)
case("ssh_authorized_keys_from_pattern", dict(IN, **{"launch.sh": "infra/launch.sh", "nodes.txt": "@cn03 cn04"}),
     "./launch.sh", ssh=True)
case("ssh_rc_noise_in_captured_output", dict(IN, **{"launch_ip.sh": "infra/launch_ip.sh", "nodes.txt": "@cn05 cn02"}),
     "./launch_ip.sh", ssh=True)
case("ssh_alias_not_resolvable_master", dict(IN, **{"launch.sh": "infra/launch.sh", "nodes.txt": "@cn01 cn02"}),
     "./launch.sh", ssh=True)
case("mpi_btl_self_only", {"allreduce": "infra/allreduce", "cluster_env.sh": "@export OMPI_MCA_btl=self\nexport OMP_NUM_THREADS=1\n"},
     "source ./cluster_env.sh; mpirun -np 2 ./allreduce", env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
case("healthy_mpirun_two_ranks", {"allreduce": "infra/allreduce"}, "mpirun -np 2 ./allreduce",
     env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
case("torchrun_ipv6_endpoint_unbracketed", IN,
     "torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint ::1:29729 ddp_allreduce.py", timeout=90)
case("slurm_srun_output_dir_missing", IN, "srun -N1 -n2 -o logs/%j-%t.out python ddp_allreduce.py", slurm=True)
case("slurm_sbatch_crlf_script", dict(IN, **{"job.sbatch": "@#!/bin/bash\r\n#SBATCH -N1\r\n#SBATCH -n1\r\n#SBATCH -t 5\r\nsrun python -c 'print(1)'\r\n"}),
     "sbatch job.sbatch", slurm=True)
case("slurm_wrap_double_quotes_expand", IN,
     "sbatch -N1 -n1 -o run.out --wrap \"torchrun --nnodes \\$SLURM_NNODES --node-rank $SLURM_NODEID --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29731 ddp_allreduce.py\"; sleep 12; cat run.out",
     slurm=True)
case("slurm_ntasks_without_srun", {"train.py": "S1.py", "job.sbatch": "@#!/bin/bash\n#SBATCH -N1\n#SBATCH -n2\n#SBATCH -t 5\n#SBATCH -o train-%j.out\nexport OMP_NUM_THREADS=1\npython train.py\n"},
     "sbatch job.sbatch; sleep 35; cat train-*.out", slurm=True, timeout=90)
case("healthy_slurm_sbatch_torchrun", dict(IN, **{"job.sbatch": "@#!/bin/bash\n#SBATCH -N1\n#SBATCH -n1\n#SBATCH -c2\n#SBATCH -t 5\n#SBATCH -o run-%j.out\nexport OMP_NUM_THREADS=1\nsrun torchrun --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29732 ddp_allreduce.py\n"}),
     "sbatch job.sbatch; sleep 12; cat run-*.out", slurm=True)

# ---------------- own infrastructure
SSHD = "/usr/sbin/sshd"
NODES = {"cn01": ("127.0.0.71", "authorized_keys", ""), "cn02": ("127.0.0.72", "authorized_keys", ""),
         "cn03": ("127.0.0.73", "authorized_keys_from", ""), "cn04": ("127.0.0.74", "authorized_keys_from", ""),
         "cn05": ("127.0.0.75", "authorized_keys", "SetEnv BASH_ENV=%s/ssh/site_env.sh" % INF)}
PORT = 2227

def sh(c, **kw):
    return subprocess.run(["bash", "-c", c], **kw)

def ssh_up(home):
    d = INF + "/ssh"; os.makedirs(d, exist_ok=True); os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    if not os.path.exists(d + "/host_ed25519"):
        sh("ssh-keygen -q -t ed25519 -N '' -f %s/host_ed25519 && ssh-keygen -q -t ed25519 -N '' -f %s/id_ed25519" % (d, d), check=True)
        pub = open(d + "/id_ed25519.pub").read().strip()
        open(d + "/authorized_keys", "w").write(pub + "\n")
        open(d + "/authorized_keys_from", "w").write('from="10.0.0.0/8,192.168.0.0/16" ' + pub + "\n")
        open(d + "/site_env.sh", "w").write('echo "*** $(hostname -s): scratch purge runs Sundays 02:00, see /etc/motd ***"\n')
    for n, (a, ak, extra) in NODES.items():
        nd = d + "/" + n; os.makedirs(nd, exist_ok=True)
        open(nd + "/sshd_config", "w").write("\n".join([
            "ListenAddress %s:%d" % (a, PORT), "HostKey %s/host_ed25519" % d, "PidFile %s/sshd.pid" % nd,
            "AuthorizedKeysFile %s/%s" % (d, ak), "PermitRootLogin prohibit-password", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "MaxStartups 200:30:400",
            "LogLevel ERROR", extra, ""]))
        if not (os.path.exists(nd + "/sshd.pid") and sh("kill -0 $(cat %s/sshd.pid) 2>/dev/null" % nd).returncode == 0):
            sh("%s -f %s/sshd_config -E %s/log" % (SSHD, nd, nd), check=True)
    os.makedirs(home + "/.ssh", mode=0o700, exist_ok=True)
    shutil.copy(d + "/id_ed25519", home + "/.ssh/id_ed25519"); os.chmod(home + "/.ssh/id_ed25519", 0o600)
    cfg = []
    for n, (a, _, _) in NODES.items():
        cfg += ["Host " + n, "  HostName " + a, "  Port %d" % PORT, "  User root", "  IdentityFile %s/.ssh/id_ed25519" % home,
                "  StrictHostKeyChecking accept-new", "  UserKnownHostsFile %s/.ssh/known_hosts" % home, ""]
    open(home + "/.ssh/config", "w").write("\n".join(cfg)); os.chmod(home + "/.ssh/config", 0o600)

def ssh_down():
    for n in NODES:
        p = INF + "/ssh/" + n + "/sshd.pid"
        if os.path.exists(p):
            sh("kill $(cat %s) 2>/dev/null" % p)

SL = INF + "/slurm"
SLURM_CONF = SL + "/slurm.conf"

def slurm_up():
    os.makedirs(SL + "/state", exist_ok=True); os.makedirs(SL + "/spool", exist_ok=True)
    open(SLURM_CONF, "w").write("""ClusterName=lab
SlurmctldHost=gn01(127.0.0.81)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16927
SlurmdPort=16928
AuthType=auth/none
CredType=cred/none
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=gn01 NodeAddr=127.0.0.81 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""".format(d=SL))
    if not os.path.exists(SL + "/slurmd.pid"):
        sh("export SLURM_CONF=%s; unshare --uts sh -c 'hostname gn01; /usr/sbin/slurmctld -f %s; /usr/sbin/slurmd -f %s'" % (SLURM_CONF, SLURM_CONF, SLURM_CONF), check=True)
    for _ in range(60):
        o = sh("SLURM_CONF=%s sinfo -h -o %%T" % SLURM_CONF, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
        if o.strip() == "idle": return
        time.sleep(0.5)
    print("slurm not idle:", o)

def slurm_down():
    for p in ("slurmd.pid", "slurmctld.pid"):
        if os.path.exists(SL + "/" + p):
            sh("kill $(cat %s/%s) 2>/dev/null" % (SL, p))
            if os.path.exists(SL + "/" + p): os.remove(SL + "/" + p)

def versions():
    v = {}
    q = "import importlib.metadata as m\nfor p in ['torch','lightning','transformers','accelerate','datasets','peft','torchmetrics','timm','hydra-core','omegaconf','einops','safetensors','tokenizers']:\n  try: print(p, m.version(p))\n  except Exception as e: print(p, 'absent')"
    for l in subprocess.run([PY, "-c", q], stdout=subprocess.PIPE).stdout.decode().splitlines():
        k, _, x = l.partition(" "); v[k] = x
    for k, c in (("python", PY + " -V"), ("openmpi", "mpirun --version | head -1"), ("slurm", "sinfo -V"),
                 ("openssh", "ssh -V 2>&1"), ("kernel", "uname -r"), ("os", "grep PRETTY /etc/os-release")):
        v[k] = sh(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode().strip()
    return v

def run(name):
    c = C[name]; d = W + "/job-" + hashlib.sha1(name.encode()).hexdigest()[:6]
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    home = W + "/home-" + hashlib.sha1(name.encode()).hexdigest()[:6]; shutil.rmtree(home, ignore_errors=True); os.makedirs(home)
    for dst, src in c["files"].items():
        if src.startswith("@"):
            open(d + "/" + dst, "w", newline="").write(src[1:].replace(" ", "\n") if dst == "nodes.txt" else src[1:])
        elif os.path.isdir(CS + "/" + src): shutil.copytree(CS + "/" + src, d + "/" + dst)
        else: shutil.copy(CS + "/" + src, d + "/" + dst)
    env = dict(os.environ); env["PATH"] = VENV + ":" + env["PATH"]
    for k in list(env):
        if k.startswith(("SLURM_", "OMPI_", "PMIX_", "VIRTUAL_ENV")) or k in ("PYTHONHASHSEED",): env.pop(k)
    env.update({"HOME": home, "HF_HUB_OFFLINE": "1", "TERM": "dumb", "PY": PY, "HF_DATASETS_CACHE": home + "/.cache/hf"})
    env.update(c["env"])
    if c["ssh"]:   # OpenSSH reads ~/.ssh/config from the passwd home, not $HOME: a hidden wrapper adds -F
        ssh_up(home); env["PATH"] = INF + "/bin:" + env["PATH"]
    if c["slurm"]: env["SLURM_CONF"] = SLURM_CONF
    t0 = time.time()
    cmd = c["hidden"] + c["cmd"]
    try:
        p = subprocess.run(["timeout", "-s", "INT", str(c["timeout"]), "bash", "-c", cmd], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=c["timeout"] + 30)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "harness-timeout"
    text = "$ " + c["cmd"] + "\n" + out
    if rc in (124, 130): text += "^C\n"
    open(LG + "/" + name + ".log", "w").write(text)
    m = json.load(open(LG + "/manifest.json")) if os.path.exists(LG + "/manifest.json") else {}
    m[name] = dict(command=c["cmd"], hidden_shell_prefix=c["hidden"], env=c["env"], cwd=d, exit_code=rc,
                   seconds=round(time.time() - t0, 1), timeout_s=c["timeout"], files=c["files"],
                   when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    json.dump(m, open(LG + "/manifest.json", "w"), indent=1, sort_keys=True)
    print("==", name, "rc", rc, "%.1fs" % (time.time() - t0), flush=True)

if __name__ == "__main__":
    os.makedirs(LG, exist_ok=True)
    names = sys.argv[1:] or list(C)
    try:
        if any(C[n]["slurm"] for n in names): slurm_up()
        for n in names: run(n)
    finally:
        ssh_down(); slurm_down()
    if not os.path.exists(LG + "/versions.json"):
        json.dump(versions(), open(LG + "/versions.json", "w"), indent=1)
