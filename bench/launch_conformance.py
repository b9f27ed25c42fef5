"""Launch-plan conformance: the same inputs through the real launcher's own code and through
gpudoctor's reading of it (gpudoctor/launch/), agreement per launcher.

Nothing is launched. The references, and how each runs without starting training:
- DeepSpeed 0.19.8: deepspeed.launcher.runner.main() with subprocess.Popen / ssh checks
  replaced by a stub that captures the command (the world info it would hand to every node),
  and the accelerator's device count fixed at 8; batch arithmetic through
  deepspeed.runtime.config.DeepSpeedConfig with deepspeed.comm's world size set.
- torch 2.13 (CPU wheel): torch.distributed.run.main() with elastic_launch replaced by a
  stub that captures the LaunchConfig; a static endpoint then goes through torch's own
  parse_rendezvous_endpoint(endpoint, -1) as static_tcp_rendezvous does.
- accelerate 1.15: launch_command_parser().parse_args() and _validate_launch_command().
- horovod 0.28.1 (source checkout, --horovod DIR): launch.parse_args() and
  hosts.parse_hosts_and_slots / get_host_assignments.
- Open MPI 4.1.4 (Debian openmpi-bin): `mpirun --do-not-launch --display-map`.
- MPICH 4.0 Hydra (Debian mpich): `mpiexec.hydra -verbose -launcher manual`, the proxies'
  --hostname / --exec-proc-count read, then killed (nothing runs: the manual launcher waits
  for a person to start the proxies).
- launch scripts (fixtures/launch/scripts/, `gpudoctor plan SCRIPT`): bash runs each one in a
  temp dir with the launchers, srun and scontrol replaced by stubs that record their argv;
  every word gpudoctor knows must be the word bash passed.

Run (the references live in their own venv, never gpudoctor's):
    /work/refvenv/bin/python bench/launch_conformance.py --horovod /tmp/horovod [--write-golden] [--markdown]
"""

import argparse
import base64
import contextlib
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
UP = os.path.join(ROOT, "fixtures", "launch", "upstream")
WORLD_SIZES = (1, 2, 3, 4, 8, 16, 32, 64)


class Captured(Exception):
    def __init__(self, value):
        super().__init__("captured")
        self.value = value


def gd(line, files=None, environ=None, accelerate=None):
    """gpudoctor's reading: a normalised result or ('refused', message)."""
    from gpudoctor.errors import InputError
    from gpudoctor.launch import build_plan

    with tempfile.TemporaryDirectory() as d:
        cwd = os.getcwd()
        os.chdir(d)
        try:
            for name, text in (files or {}).items():
                with open(name, "w") as f:
                    f.write(text)
            try:
                return build_plan(launch=line, environ=dict(environ or {}), accelerate=accelerate,
                                  accelerate_given=accelerate is not None and line is None), None
            except InputError as exc:
                return None, str(exc)
        finally:
            os.chdir(cwd)


# ------------------------------------------------------------------ DeepSpeed

DS_HOSTFILE = "worker-0 slots=4\nworker-1 slots=4\n"
DS_CASES = [
    # tests/unit/launcher/test_run.py (DeepSpeed 38327e07): parse_resource_filter cases, as launch lines
    ("test_parser_local: no filter", "-H hf --num_nodes 1 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: exclude worker-0:1", "-H hf -e worker-0:1 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: exclude worker-0:1,2", "-H hf -e worker-0:1,2 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: include worker-0:1", "-H hf -i worker-0:1 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: include worker-0:1,1", "-H hf -i worker-0:1,1 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: include worker-0:1@worker-0:0,1", "-H hf -i worker-0:1@worker-0:0,1 x.py",
     {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: include worker-0", "-H hf -i worker-0 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: exclude worker-0 (nothing left)", "-H hf -e worker-0 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_local: exclude worker-0:0,1,2,3", "-H hf -e worker-0:0,1,2,3 x.py", {"hf": "worker-0 slots=4\n"}),
    ("test_parser_multinode: no filter", "-H hf x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_multinode: include worker-1:0,3", "-H hf -i worker-1:0,3 x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_multinode: exclude worker-1", "-H hf -e worker-1 x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_multinode: exclude worker-0:0,1@worker-1:3", "-H hf -e worker-0:0,1@worker-1:3 x.py",
     {"hf": DS_HOSTFILE}),
    ("test_parser_errors: include jeff", "-H hf -i jeff x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_errors: exclude jeff", "-H hf -e jeff x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_errors: include worker-1:4", "-H hf -i worker-1:4 x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_errors: exclude worker-1:4", "-H hf -e worker-1:4 x.py", {"hf": DS_HOSTFILE}),
    ("test_parser_errors: exclude worker-1@worker-0:1@5", "-H hf -e worker-1@worker-0:1@5 x.py",
     {"hf": DS_HOSTFILE}),
    ("test_parser_mutual_exclusive", "-H hf -i worker-0 -e worker-1 x.py", {"hf": DS_HOSTFILE}),
    ("test_num_plus_parser 1", "--num_nodes 1 -i localhost foo.py", {}),
    ("test_num_plus_parser 2", "--num_nodes 1 --num_gpus 1 -i localhost foo.py", {}),
    ("test_num_plus_parser 3", "--num_gpus 1 -i localhost foo.py", {}),
    ("test_num_plus_parser 4", "--num_nodes 1 -e localhost foo.py", {}),
    ("test_num_plus_parser 5", "--num_nodes 1 --num_gpus 1 -e localhost foo.py", {}),
    ("test_num_plus_parser 6", "--num_gpus 1 -e localhost foo.py", {}),
    ("test_hostfile_good", "-H hf x.py", {"hf": "\n    worker-1 slots=2\n    worker-2 slots=2\n\n    localhost slots=1"
                                                 "\n    123.23.12.10 slots=2\n\n    #worker-1 slots=3\n    # c\n"}),
    ("test_hostfiles_bad: duplicate", "-H hf x.py", {"hf": "worker-1 slots=2\nworker-2 slots=1\nworker-1 slots=1\n"}),
    ("test_hostfiles_bad: whitespace", "-H hf x.py", {"hf": "this is bad slots=1\n"}),
    ("test_hostfiles_bad: missingslots", "-H hf x.py", {"hf": "missingslots\n"}),
    ("test_hostfiles_bad: mix", "-H hf x.py", {"hf": "worker-1 slots=2\nthis is bad slots=1\nworker-2 slots=4\n"}),
    # the lines: flags gpudoctor used to ignore or let swallow the script
    ("--num_nodes 1 over two hosts", "-H hf --num_nodes 1 x.py", {"hf": DS_HOSTFILE}),
    ("--num_gpus 2 over two hosts", "-H hf --num_gpus 2 x.py", {"hf": DS_HOSTFILE}),
    ("--num_gpus 8 above the slots", "-H hf --num_gpus 8 x.py", {"hf": DS_HOSTFILE}),
    ("--num_nodes 3 no hostfile", "--num_nodes 3 x.py", {}),
    # (--autotuning is left out: with it the runner starts the autotuner's experiments)
    ("value flags before the script", "-H hf --bind_core_list 0-3 --venv_script v.sh "
                                      "--log_level debug --ssh_port 2222 x.py --lr 1", {"hf": DS_HOSTFILE}),
    ("--num_gpus=8 --master_port (fixtures/launch/launch_lines.txt)",
     "--num_gpus=8 --master_port 29512 main.py --deepspeed ds.json", {}),
    ("abbreviation --num_g", "--num_g 2 x.py", {}),
    ("--num_nodes 1:4 (int)", "--num_nodes 1:4 x.py", {}),
    ("CUDA_VISIBLE_DEVICES as include", "x.py", {}, {"CUDA_VISIBLE_DEVICES": "0,1"}),
    # multinode_runner.py backends (test_multinode_runner.py builds each of them)
    ("--launcher openmpi", "-H hf --launcher openmpi x.py", {"hf": DS_HOSTFILE}),
    ("--launcher openmpi with --include", "-H hf --launcher openmpi -i worker-0 x.py", {"hf": DS_HOSTFILE}),
    ("--launcher mpich with --num_gpus", "-H hf --launcher mpich --num_gpus 2 x.py", {"hf": DS_HOSTFILE}),
    ("--launcher mpich uneven slots", "-H hf --launcher mpich x.py", {"hf": "a slots=4\nb slots=2\n"}),
    ("--launcher impi", "-H hf --launcher impi x.py", {"hf": DS_HOSTFILE}),
    ("--launcher MVAPICH uneven", "-H hf --launcher MVAPICH x.py", {"hf": "a slots=4\nb slots=2\n"}),
    ("--launcher slurm", "-H hf --launcher slurm x.py", {"hf": DS_HOSTFILE}),
    ("--launcher slurm with device ids", "-H hf --launcher slurm -i worker-1:1,2 x.py", {"hf": DS_HOSTFILE}),
    ("--launcher slurm uneven", "-H hf --launcher slurm x.py", {"hf": "a slots=4\nb slots=2\n"}),
    ("--launcher bogus", "-H hf --launcher bogus x.py", {"hf": DS_HOSTFILE}),
    ("--launcher bogus, one host", "-H hf --launcher bogus -i worker-0 x.py", {"hf": DS_HOSTFILE}),
    ("--no_ssh --node_rank 1", "-H hf --no_ssh --node_rank 1 x.py", {"hf": DS_HOSTFILE}),
    ("--no_ssh without --node_rank", "-H hf --no_ssh x.py", {"hf": DS_HOSTFILE}),
    ("--force_multi one host", "-H hf --force_multi x.py", {"hf": "worker-0 slots=4\n"}),
    # issue 19: runner.py _parse_hostfile's `^(\S+)\s+slots=(\d+)` keeps pdsh's brackets
    ("issue 19: pdsh brackets in the hostfile", "-H hf x.py", {"hf": "worker-[1-2] slots=2\n"}),
    ("issue 19: --force_multi over two hosts", "-H hf --force_multi x.py", {"hf": DS_HOSTFILE}),
]


def ds_real(argv, files, environ):
    from deepspeed.launcher import runner
    import deepspeed.launcher.multinode_runner as mr
    from deepspeed.accelerator import get_accelerator

    acc = get_accelerator()
    saved = (subprocess.Popen, subprocess.check_call, subprocess.check_output, acc.device_count,
             dict(os.environ))

    def popen(cmd, *a, **k):
        raise Captured(cmd)

    subprocess.Popen = popen
    subprocess.check_call = lambda *a, **k: 0
    subprocess.check_output = lambda *a, **k: b"10.0.0.1\n"
    acc.device_count = lambda: 8
    for cls in (mr.PDSHRunner, mr.OpenMPIRunner, mr.MPICHRunner, mr.IMPIRunner, mr.SlurmRunner):
        cls.backend_exists = lambda self: True
    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    os.environ.update(environ or {})
    with tempfile.TemporaryDirectory() as d:
        cwd = os.getcwd()
        os.chdir(d)
        try:
            for name, text in files.items():
                with open(name, "w") as f:
                    f.write(text)
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                runner.main(argv)
            return ("no command",)
        except Captured as c:
            cmd = [a for a in c.value if isinstance(a, str)]
            if cmd and os.path.basename(cmd[0]) in ("mpirun", "srun"):
                # the MPI and Slurm backends hand the process count to mpirun/srun (-n/-np N;
                # Intel MPI's: one `-n 1` per rank, ':'-separated)
                return {"total processes": sum(int(cmd[i + 1]) for i, w in enumerate(cmd) if w in ("-n", "-np"))}
            info = [a for a in cmd if "--world_info=" in a]
            if not info:
                info = [w for a in cmd for w in a.split() if "--world_info=" in w]
            wi = json.loads(base64.urlsafe_b64decode(info[0].split("=", 1)[1]))
            return {h: len(v) for h, v in wi.items()}
        except SystemExit as e:
            return ("refused", "argparse exit %s" % e.code)
        except (ValueError, RuntimeError, AssertionError, IndexError) as e:
            return ("refused", "%s: %s" % (type(e).__name__, e))
        finally:
            os.chdir(cwd)
            subprocess.Popen, subprocess.check_call, subprocess.check_output, acc.device_count = saved[:4]
            os.environ.clear()
            os.environ.update(saved[4])


def ds_mine(argv, files, environ):
    import shlex

    plan, err = gd("deepspeed " + " ".join(shlex.quote(a) for a in argv), files, environ)
    if err:
        return ("refused", err)
    # the reference counts GPUs on this machine as 8 (stubbed): gpudoctor leaves them unknown
    got = {n.host: (n.procs if n.procs is not None else 8) for n in plan.nodes}
    backend = ([argv[i + 1] for i, w in enumerate(argv) if w == "--launcher"] or ["pdsh"])[-1]
    if backend in ("openmpi", "mpich", "impi", "mvapich", "slurm") and len(got) > 1:
        return {"total processes": sum(got.values())}
    return got


def run_deepspeed():
    rows = []
    for case in DS_CASES:
        name, line, files = case[:3]
        env = case[3] if len(case) > 3 else {}
        argv = line.split()
        real, mine = ds_real(argv, files, env), ds_mine(argv, files, env)
        rows.append((name, line, _same(real, mine), real, mine))
    return rows


def _refused(x):
    return isinstance(x, tuple) and len(x) == 2 and x[0] == "refused"


def _same(real, mine):
    if _refused(real) or _refused(mine):
        return _refused(real) and _refused(mine)
    return real == mine


# ------------------------------------------------------------------ DeepSpeed batch arithmetic

def ds_configs():
    return sorted(glob.glob(os.path.join(UP, "deepspeed", "**", "*.json"), recursive=True))


def ds_batch_real(path, ws):
    """DeepSpeed's own batch code on the config's values: the getters DeepSpeedConfig uses
    (get_train_batch_size, ...) and its _configure_train_batch_size() at world size ws. The
    rest of DeepSpeedConfig (removed keys, pydantic checks of "auto") is not the batch's
    business and is left out, so every config is judged."""
    import hjson
    from deepspeed.runtime import config as C

    try:
        doc = hjson.load(open(path), object_pairs_hook=dict)  # how DeepSpeed reads a config path
    except Exception as e:
        return ["other", "hjson: %s" % str(e)[:60]]
    c = C.DeepSpeedConfig.__new__(C.DeepSpeedConfig)
    c.world_size = ws
    c.train_batch_size = C.get_train_batch_size(doc)
    c.train_micro_batch_size_per_gpu = C.get_train_micro_batch_size_per_gpu(doc)
    c.gradient_accumulation_steps = C.get_gradient_accumulation_steps(doc)
    if "auto" in (c.train_batch_size, c.train_micro_batch_size_per_gpu, c.gradient_accumulation_steps):
        return ["auto"]
    try:
        c._configure_train_batch_size()
        return [c.train_batch_size, c.train_micro_batch_size_per_gpu, c.gradient_accumulation_steps, True]
    except (AssertionError, ZeroDivisionError):
        return [None, None, None, False]
    except TypeError as e:  # a placeholder string (TEMPLATE files)
        return ["other", str(e)[:60]]


def ds_batch_mine(path, ws):
    from gpudoctor.errors import InputError
    from gpudoctor.launch import configs

    try:
        doc = configs.load_json(path)
        t, m, g, err = configs.ds_batch(doc, ws, path)
    except InputError as exc:
        return ["invalid", str(exc)[:80]]
    if "auto" in (t, m, g):
        return ["auto"]
    return [t, m, g, True] if err is None else [None, None, None, False]


def run_batch(write_golden):
    golden, rows = {}, []
    for path in ds_configs():
        rel = os.path.relpath(path, UP)
        for ws in WORLD_SIZES:
            real, mine = ds_batch_real(path, ws), ds_batch_mine(path, ws)
            golden.setdefault(rel, {})[str(ws)] = real
            if real[0] == "other":
                # DeepSpeed refuses for another reason (a removed key, a placeholder value)
                ok = mine == ["auto"] or mine[0] == "invalid" or mine[3] is True
            elif mine[0] == "invalid":
                ok = False
            else:
                ok = real == mine
            rows.append(("%s @ %d" % (rel, ws), "", ok, real, mine))
    if write_golden:
        with open(os.path.join(UP, "deepspeed_batch_expected.json"), "w") as f:
            json.dump({"reference": "deepspeed 0.19.8 DeepSpeedConfig", "world_sizes": list(WORLD_SIZES),
                       "configs": golden}, f, indent=1, sort_keys=True)
            f.write("\n")
    return rows


# ------------------------------------------------------------------ torchrun

TORCH_CASES = [
    ("static 2 nodes", "--nnodes 2 --nproc-per-node 8 --master-addr gpu1 --master-port 29501 t.py", {}),
    ("defaults one node (standalone)", "t.py", {}),
    ("MASTER_ADDR env ignored", "--nnodes=2 --nproc_per_node 8 t.py", {"MASTER_ADDR": "gpu1", "MASTER_PORT": "29501"}),
    ("elastic 1:4 c10d", "--nnodes=1:4 --nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=gpu1:29400 t.py", {}),
    ("c10d endpoint without port", "--nnodes 2 --rdzv-backend c10d --rdzv-endpoint gpu1 t.py", {}),
    ("c10d master-addr, no endpoint", "--nnodes 2 --rdzv-backend c10d --master-addr gpu1 t.py", {}),
    ("static endpoint without port", "--nnodes 2 --rdzv-backend static --rdzv-endpoint gpu1 t.py", {}),
    ("IPv6 endpoint", "--nnodes 2 --rdzv-backend c10d --rdzv-endpoint [fe80::1]:1234 t.py", {}),
    ("IPv6 endpoint without port", "--nnodes 2 --rdzv-backend c10d --rdzv-endpoint [fe80::1] t.py", {}),
    ("-r -t --numa-binding value flags", "-r 3 -t 3 --numa-binding node --nnodes 2 --master-addr a t.py --x", {}),
    ("PET_NNODES", "--nproc-per-node 4 --master-addr a t.py", {"PET_NNODES": "3"}),
    ("--standalone", "--standalone --nproc-per-node 4 t.py", {}),
    ("bad nnodes 0:2", "--nnodes 0:2 t.py", {}),
    ("bad nnodes 1:2:3", "--nnodes 1:2:3 t.py", {}),
    ("--no-python module", "--nnodes 2 --master-addr a --no-python ./run.sh", {}),
    ("-m module", "--nnodes 2 --master-addr a -m pkg.train --lr 1", {}),
    ("unknown flag", "--nnodes 2 --bogus 1 t.py", {}),
    ("abbreviation --nproc", "--nproc 2 t.py", {}),
    ("underscore spelling", "--nnodes 2 --nproc_per_node 4 --master_addr a --master_port 1234 --node_rank 1 t.py", {}),
    ("--max-restarts -1", "--max-restarts -1 t.py", {}),
    ("value flags: rdzv-conf, log-dir, tee, redirects, role, local-addr",
     "--nnodes 2 --master-addr a --rdzv-conf timeout=900 --log-dir /tmp/l --tee 3 --redirects 3 --role trainer "
     "--local-addr 10.0.0.2 --rdzv-id job1 --start-method fork --monitor-interval 1 t.py --lr 1", {}),
    ("--local-ranks-filter 0,1", "--nnodes 2 --master-addr a --local-ranks-filter 0,1 t.py", {}),
    ("--local-ranks-filter x", "--nnodes 2 --master-addr a --local-ranks-filter x t.py", {}),
    ("--start-method bogus (choices)", "--start-method bogus t.py", {}),
    ("--run-path", "--nnodes 2 --master-addr a --run-path t.py", {}),
    ("--master-port 70000", "--nnodes 2 --master-addr a --master-port 70000 t.py", {}),
    ("etcd endpoint default port", "--nnodes 2 --rdzv-backend etcd --rdzv-endpoint e1 t.py", {}),
    ("PET_MASTER_ADDR / PET_MASTER_PORT", "--nnodes 2 t.py", {"PET_MASTER_ADDR": "gpu9", "PET_MASTER_PORT": "1234"}),
    ("PET_STANDALONE=1", "--nproc-per-node 2 t.py", {"PET_STANDALONE": "1"}),
]

LAUNCH_CASES = [
    # python -m torch.distributed.launch (torch/distributed/launch.py): --use-env on top of run.py's flags
    ("launch --use_env", "--nproc_per_node=8 --nnodes=2 --node_rank=0 --master_addr a --use_env train.py", {}),
    ("launch --use-env", "--nproc-per-node 2 --nnodes 2 --master-addr a --use-env train.py --x", {}),
    ("launch --no-python without --use-env", "--nnodes 2 --master-addr a --no-python ./run.sh", {}),
    ("launch MASTER_ADDR env ignored", "--nnodes 2 --nproc_per_node 4 t.py", {"MASTER_ADDR": "gpu1"}),
]


def torch_real(argv, environ, module="run"):
    import torch.distributed.launch as launch_mod
    import torch.distributed.run as run
    from torch.distributed.elastic.rendezvous.utils import parse_rendezvous_endpoint

    saved = run.elastic_launch, dict(os.environ)

    def fake(config, entrypoint):
        raise Captured(config)

    run.elastic_launch = fake
    os.environ.update(environ)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            (launch_mod.main if module == "launch" else run.main)(argv)
    except Captured as c:
        cfg = c.value
        ep = cfg.rdzv_endpoint
        try:
            # the default ports of the handlers: c10d_rendezvous_backend.py DEFAULT_PORT, etcd_rendezvous*.py 2379
            default = {"c10d": 29400, "static": -1, "etcd": 2379, "etcd-v2": 2379}.get(cfg.rdzv_backend, -1)
            host, port = parse_rendezvous_endpoint(ep, default)
            if cfg.rdzv_backend == "static" and port == -1:
                return ("refused", "Port is absent in endpoint")
        except ValueError as e:
            return ("refused", str(e))
        return (cfg.min_nodes, cfg.max_nodes, cfg.nproc_per_node, cfg.rdzv_backend, host, port)
    except SystemExit as e:
        return ("refused", "argparse exit %s" % e.code)
    except (ValueError, RuntimeError, AssertionError) as e:
        return ("refused", "%s: %s" % (type(e).__name__, str(e)[:80]))
    finally:
        run.elastic_launch = saved[0]
        os.environ.clear()
        os.environ.update(saved[1])
    return ("no config",)


def torch_mine(argv, environ, module="run"):
    import shlex

    prog = "python -m torch.distributed.launch " if module == "launch" else "torchrun "
    plan, err = gd(prog + " ".join(shlex.quote(a) for a in argv), {}, environ)
    if err:
        return ("refused", err)
    host, _, port = plan.rdzv_endpoint.rpartition(":")
    host = host[1:-1] if host.startswith("[") else host
    return (plan.nnodes_min, plan.nnodes_max, plan.nproc_per_node, plan.rdzv_backend, host,
            int(port) if port else -1)


def run_torch():
    rows = []
    for name, line, env in TORCH_CASES:
        argv = line.split()
        real, mine = torch_real(argv, env), torch_mine(argv, env)
        rows.append((name, line, _same(real, mine), real, mine))
    for name, line, env in LAUNCH_CASES:
        argv = line.split()
        real, mine = torch_real(argv, env, "launch"), torch_mine(argv, env, "launch")
        rows.append((name, line, _same(real, mine), real, mine))
    return rows


# ------------------------------------------------------------------ accelerate

def acc_configs():
    return sorted(glob.glob(os.path.join(UP, "accelerate", "**", "*.y*ml"), recursive=True))


ACC_LINES = [
    ("--mixed_precison typo (docs)", "--mixed_precison fp16 t.py"),
    ("--main_process_port 0", "--multi_gpu --num_processes 2 --main_process_port 0 t.py"),
    ("value flags", "--monitor_interval 3 --num_cpu_threads_per_process 4 --dynamo_backend no --zero_stage 2 "
                    "--rdzv_backend c10d --num_processes 1 t.py"),
    ("multi_gpu one process", "--multi_gpu --num_processes 1 t.py"),
    ("two launch modes", "--multi_gpu --use_deepspeed --num_processes 2 t.py"),
    ("hyphen spelling", "--multi-gpu --num-processes 4 --num-machines 2 --main-process-ip a t.py"),
    ("bad mixed precision", "--mixed_precision fp32 --num_processes 1 t.py"),
    ("multi-machine flags", "--multi_gpu --num_machines 2 --num_processes 16 --machine_rank 1 --main_process_ip a "
                            "--main_process_port 1234 --same_network t.py"),
    ("DeepSpeed JSON not on this machine", "--use_deepspeed --num_processes 2 --deepspeed_config_file /nowhere.json "
                                           "t.py"),
    ("missing config file", "--config_file /nowhere.yaml t.py"),
    ("--cpu", "--cpu --num_processes 4 t.py"),
    ("module", "--num_processes 1 -m pkg.train --lr 1"),
    ("bf16", "--mixed_precision bf16 --num_processes 1 t.py"),
    ("issue 19: --cpu alone", "--cpu t.py"),
    ("issue 19: --use_deepspeed --use_fsdp", "--use_deepspeed --use_fsdp --num_processes 2 t.py"),
]
# (name, argv, config under fixtures/launch/upstream/accelerate)
ACC_CONFIG_LINES = [
    ("issue 19: SageMaker config with --multi_gpu", "--multi_gpu --num_processes 4 t.py",
     "tests/test_configs/0_30_0_sagemaker.yaml"),
    ("issue 19: SageMaker config alone", "t.py", "tests/test_configs/0_30_0_sagemaker.yaml"),
]


def acc_real(argv, config):
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    if config:
        argv = ["--config_file", config] + argv
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = launch_command_parser().parse_args(argv)
            args, defaults, mp_from_config = _validate_launch_command(args)
    except SystemExit as e:
        return ("refused", "argparse exit %s" % e.code)
    except (ValueError, TypeError, KeyError, FileNotFoundError, AttributeError) as e:
        return ("refused", "%s: %s" % (type(e).__name__, str(e)[:80]))
    port = args.main_process_port
    # utils/launch.py prepare_multi_gpu_env: main_process_ip is used only when num_machines > 1;
    # one machine runs torchrun's default master 127.0.0.1
    ip = args.main_process_ip if (args.num_machines or 1) > 1 else "127.0.0.1"
    nproc = args.num_processes
    if (args.cpu or getattr(args, "use_cpu", False)) and getattr(args, "mpirun_hostfile", None) is None:
        nproc = 1  # launch_command -> simple_launcher: the script runs once (prepare_simple_launcher_cmd_env)
    return (nproc, args.num_machines, ip,
            None if port == 0 else (29500 if port is None else port), str(args.mixed_precision).lower())


def acc_mine(argv, config):
    import shlex

    if config:
        argv = ["--config_file", config] + argv
    plan, err = gd("accelerate launch " + " ".join(shlex.quote(a) for a in argv), {}, {"HF_HOME": "/nonexistent"})
    if err:
        return ("refused", err)
    return (plan.world_min, plan.nnodes_min, plan.master_addr, plan.master_port, plan.mixed_precision)


def run_accelerate():
    rows = []
    for path in acc_configs():
        real, mine = acc_real(["t.py"], path), acc_mine(["t.py"], path)
        if isinstance(real, tuple) and len(real) == 5 and real[0] is not None and isinstance(mine, tuple) and \
                len(mine) == 5:
            # accelerate reports the DeepSpeed handoff's own counts later; compare what the config says
            if mine[0] is None:
                mine = (real[0],) + mine[1:]
        rows.append((os.path.relpath(path, UP), "--config_file", _same(real, mine) or _loose(real, mine), real, mine))
    for name, line in ACC_LINES:
        real, mine = acc_real(line.split(), None), acc_mine(line.split(), None)
        rows.append((name, line, _same(real, mine) or _loose(real, mine), real, mine))
    for name, line, rel in ACC_CONFIG_LINES:
        path = os.path.join(UP, "accelerate", rel)
        real, mine = acc_real(line.split(), path), acc_mine(line.split(), path)
        rows.append((name, line, _same(real, mine) or _loose(real, mine), real, mine))
    return rows


def _loose(real, mine):
    """num_processes None on the reference means 'this machine's GPU count' (0 here, no GPU):
    gpudoctor leaves it unknown."""
    if not (isinstance(real, tuple) and isinstance(mine, tuple)) or len(real) != 5 or len(mine) != 5:
        return False
    r, m = list(real), list(mine)
    if r[0] in (0, None) and m[0] is None:
        r[0] = None
    if r[2] is None and m[2] is None:
        pass
    return tuple(r) == tuple(m)


# ------------------------------------------------------------------ accelerate -> deepspeed runner

SEED_DIR = os.path.join(ROOT, "fixtures", "launch")
HANDOFF_CASES = [
    # (name, config text, files beside it)
    ("fixtures/launch/accelerate_seed002.yaml, 2-host hostfile",
     open(os.path.join(SEED_DIR, "accelerate_seed002.yaml")).read(),
     {"hostfile": "huaweiyun1 slots=8\nhuaweiyun2 slots=8\n"}),
    ("3-host hostfile, num_machines 2", "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 8\n"
     "main_process_ip: a\ndeepspeed_config:\n  deepspeed_hostfile: hf\n",
     {"hf": "a slots=4\nb slots=4\nc slots=4\n"}),
    ("inclusion filter", "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 8\nmain_process_ip: a\n"
     "deepspeed_config:\n  deepspeed_hostfile: hf\n  deepspeed_inclusion_filter: b:0,1@c\n",
     {"hf": "a slots=4\nb slots=4\nc slots=4\n"}),
    ("no hostfile", "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 8\nmain_process_ip: a\n", {}),
    ("standard launcher: torchrun", "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 8\n"
     "main_process_ip: a\ndeepspeed_config:\n  deepspeed_multinode_launcher: standard\n", {}),
]


def handoff_real(text, files):
    """accelerate's own handoff command (prepare_deepspeed_cmd_env), then DeepSpeed's runner on it."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env

    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "c.yaml")
        with open(cfg, "w") as f:
            f.write(text)
        cwd = os.getcwd()
        os.chdir(d)
        try:
            for name, body in files.items():
                with open(name, "w") as f:
                    f.write(body)
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                args = launch_command_parser().parse_args(["--config_file", cfg, "t.py"])
                args, defaults, _ = _validate_launch_command(args)
                # launch_command() sets this before the handoff (accelerate/commands/launch.py)
                args.deepspeed_fields_from_accelerate_config = ",".join(defaults.deepspeed_config.keys())
                cmd, _env = prepare_deepspeed_cmd_env(args)
        except (ValueError, TypeError) as e:
            return ("refused", str(e)[:80])
        finally:
            os.chdir(cwd)
    if cmd is None:  # the standard launcher: torchrun with nnodes / nproc_per_node
        return {"torchrun nnodes": int(args.nnodes), "nproc_per_node": int(args.nproc_per_node)}
    return ds_real(cmd[1:], files, {})


def handoff_mine(text, files):
    plan, err = gd(None, dict(files, **{"c.yaml": text}), {}, accelerate="c.yaml")
    if err:
        return ("refused", err)
    if not plan.nodes:
        return {"torchrun nnodes": plan.nnodes_min, "nproc_per_node": plan.nproc_per_node}
    return {n.host: (n.procs if n.procs is not None else 8) for n in plan.nodes}


def run_handoff():
    rows = []
    for name, text, files in HANDOFF_CASES:
        real, mine = handoff_real(text, files), handoff_mine(text, files)
        rows.append((name, "", _same(real, mine), real, mine))
    return rows


# ------------------------------------------------------------------ Open MPI

MYHOST = "aa slots=2\nbb slots=2\ncc slots=2\n"
OMPI_CASES = [
    # Open MPI mpirun(1) examples (docs/man-openmpi/man1/mpirun.1.rst) and the lines
    ("man: -H aa,aa,bb", "-H aa,aa,bb ./a.out", {}),
    ("man: -H aa,aa,bb -np 3", "-np 3 -H aa,aa,bb ./a.out", {}),
    ("man: --hostfile myhostfile (slots=2 x3)", "--hostfile myhostfile ./a.out", {"myhostfile": MYHOST}),
    ("man: --hostfile --host aa", "--hostfile myhostfile --host aa ./a.out", {"myhostfile": MYHOST}),
    ("man: --hostfile --host dd (not in file)", "--hostfile myhostfile --host dd ./a.out", {"myhostfile": MYHOST}),
    ("man: -H aa,bb --map-by ppr:2:node", "-H aa,bb --map-by ppr:2:node ./a.out", {}),
    ("man: -H aa,bb --map-by ppr:1:node", "-H aa,bb --map-by ppr:1:node ./a.out", {}),
    ("man: -hostfile -np 6 over 12 slots", "-hostfile myhostfile -np 6 ./a.out",
     {"myhostfile": "aa slots=4\nbb slots=4\ncc slots=4\n"}),
    ("man: -np 14 over 12 slots", "--hostfile myhostfile -np 14 ./a.out",
     {"myhostfile": "aa slots=4\nbb slots=4\ncc slots=4\n"}),
    ("man: -np 14 --oversubscribe", "--hostfile myhostfile -np 14 --oversubscribe ./a.out",
     {"myhostfile": "aa slots=4\nbb slots=4\ncc slots=4\n"}),
    ("man: -H aa,bb -np 8", "-H aa,bb -np 8 ./a.out", {}),
    ("man: --np 2 --host hostA:4,hostB:2", "--np 2 --host hostA:4,hostB:2 ./a.out", {}),
    ("man: --np 4 --host hostA:4,hostB:2", "--np 4 --host hostA:4,hostB:2 ./a.out", {}),
    ("seed 004", "-np 16 -H gpu1:8,gpu2:8 --allow-run-as-root -bind-to none -map-by slot -x NCCL_DEBUG=INFO "
                 "-x LD_LIBRARY_PATH -mca pml ob1 -mca btl ^openib python3 train.py", {}),
    ("-np below slots", "-np 12 -H gpu1:8,gpu2:8 python3 train.py", {}),
    ("-np above slots", "-np 20 -H gpu1:8,gpu2:8 python3 train.py", {}),
    ("-N 2", "-N 2 -H a:4,b:4 ./x", {}),
    ("-npernode 2", "-npernode 2 -H a:4,b:4 ./x", {}),
    ("--map-by ppr:2:node", "--map-by ppr:2:node -H a:4,b:4 ./x", {}),
    ("--map-by node -np 3", "--map-by node -np 3 -H a:4,b:4 ./x", {}),
    ("no -np over plain hosts", "-H a,b ./x", {}),
    ("hostfile plain names, -np", "-np 3 -hostfile hf ./x", {"hf": "aa\nbb\naa\n"}),
    ("hostfile plain names, no -np", "-hostfile hf ./x", {"hf": "aa\nbb\n"}),
    ("hostfile aa:4 is a host name", "-np 3 -hostfile hf ./x", {"hf": "bb slots=2\naa:4\n"}),
    ("hostfile user@, count=, max_slots", "-np 4 -hostfile hf ./x",
     {"hf": "user@aa count=2\nbb max_slots=4 slots=2\n"}),
    ("hostfile slots twice", "-np 2 -hostfile hf ./x", {"hf": "aa slots=2\naa slots=2\n"}),
    ("--np=3 is not an option", "--np=3 -H aa:4 ./x", {}),
    ("man: MPMD -H aa -n 1 hostname : -H bb,cc -n 2 uptime", "-H aa -n 1 hostname : -H bb,cc -n 2 uptime", {}),
    ("MPMD continuing over the same hosts", "-np 2 -H aa:2,bb:2 ./a : -np 2 ./b", {}),
    ("MPMD same -H twice", "-H aa:2,bb:2 -np 2 ./a : -H aa:2,bb:2 -np 2 ./b", {}),
    ("MPMD over the slots", "-np 3 -H aa:2,bb:2 ./a : -np 2 ./b", {}),
    ("unknown option", "--bogus 3 -np 2 -H aa:2 ./x", {}),
    # issue 19: orte/util/hostfile/hostfile_lex.l and hostfile.c
    ("issue 19: max_slots without slots", "-np 6 -hostfile hf ./x", {"hf": "aa slots=2\nbb max_slots=4\n"}),
    ("issue 19: slots = 4 with blanks", "-hostfile hf ./x", {"hf": "aa slots = 4\n"}),
    ("issue 19: // comments", "-hostfile hf ./x", {"hf": "// nodes\naa slots=4 // first\n"}),
    ("issue 19: slot=4 (singular)", "-hostfile hf ./x", {"hf": "aa slot=4\n"}),
    ("issue 19: node-set brackets", "-hostfile hf ./x", {"hf": "node[1-2] slots=4\n"}),
]


def ompi_real(line, files):
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.run(["mpirun.openmpi", "--do-not-launch", "--display-map"] + line.split(), cwd=d, env=env,
                           capture_output=True, text=True, timeout=60)
        out = p.stdout + p.stderr
        nodes = re.findall(r"Data for node: (\S+)\s+Num slots: (\d+)\s+Max slots: \d+\s+Num procs: (\d+)", out)
        if not nodes:
            first = [l.strip() for l in out.splitlines() if l.strip() and not l.startswith("---")][:1]
            return ("refused", first[0][:100] if first else "rc %d" % p.returncode)
        if "not enough slots" in out or "unknown option" in out:
            return ("refused", "after map")
        me = os.uname().nodename  # Open MPI names this machine by its hostname, the line said localhost
        return {("localhost" if h == me and "localhost" in line else h): int(n) for h, _s, n in nodes}


def mpi_mine(prog, line, files):
    plan, err = gd(prog + " " + line, files, {})
    if err:
        return ("refused", err)
    return {n.host: n.procs for n in plan.nodes if n.procs}


def run_ompi():
    rows = []
    for name, line, files in OMPI_CASES:
        real, mine = ompi_real(line, files), mpi_mine("mpirun", line, files)
        rows.append((name, line, _same(real, mine), real, mine))
    return rows


# ------------------------------------------------------------------ MPICH Hydra

HYDRA_CASES = [
    # mpiexec(1) examples (src/pm/hydra/mansrc/mpiexec.adoc) and the lines
    ("man: -n 4 a.out", "-n 4 ./a.out", {}),
    ("issue: -f hosts -n 4", "-f hosts -n 4 ./app", {"hosts": "aa:2\nbb:2\n"}),
    ("-f machinefile wraps", "-f mf -n 8 ./app", {"mf": "aa:4\nbb:2\n"}),
    ("-f below slots", "-f mf -n 3 ./app", {"mf": "aa:4\nbb:2\n"}),
    ("-hosts list", "-hosts aa,bb -n 4 ./app", {}),
    ("-hosts with counts", "-hosts aa:2,bb:2 -n 4 ./app", {}),
    ("-ppn 1", "-hosts aa,bb -ppn 1 -n 2 ./app", {}),
    ("-ppn 2 wraps", "-f mf -ppn 2 -n 6 ./app", {"mf": "aa\nbb\n"}),
    # (-launcher itself is taken by the bench: it runs Hydra with -launcher manual)
    ("-launcher-exec -genv", "-launcher-exec /usr/bin/ssh -genv NCCL_DEBUG INFO -f mf -n 2 ./app",
     {"mf": "aa:1\nbb:1\n"}),
    ("--hosts=aa,bb", "--hosts=aa,bb -n 2 ./app", {}),
    ("machinefile comments", "-machinefile mf -n 3 ./app", {"mf": "# nodes\naa:2 # first\nbb\n"}),
    ("-genvlist, -wdir, -l", "-genvlist NCCL_DEBUG,PATH -wdir /tmp -l -hosts aa,bb -n 4 ./app", {}),
    ("-hostfile spelled out", "-hostfile mf -n 2 ./app", {"mf": "aa:1\nbb:1\n"}),
    ("-np with repeated host", "-hosts aa,aa,bb -n 3 ./app", {}),
    # issue 19: HYDU_process_mfile_token, round-robin wrap, MPMD sections
    ("issue 19: Open MPI's 'host slots=N'", "-f mf -n 2 ./app", {"mf": "aa slots=4\n"}),
    ("issue 19: -machinefile -n 7 over host:2", "-machinefile mf -n 7 ./app", {"mf": "aa:2\nbb:2\n"}),
    ("issue 19: MPMD -n 4 : -n 4", "-f mf -n 4 ./a : -n 4 ./b", {"mf": "aa:4\nbb:4\n"}),
]


def hydra_real(line, files):
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        try:
            p = subprocess.run(["timeout", "-s", "KILL", "3", "mpiexec.hydra", "-verbose", "-launcher", "manual"]
                               + line.split(), cwd=d, capture_output=True, text=True, timeout=20)
            out = p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() + (e.stderr or b"").decode()
    got = {}
    for block in re.split(r"Arguments being passed to proxy \d+:", out)[1:]:
        host = re.search(r"--hostname (\S+)", block)
        counts = [int(x) for x in re.findall(r"--exec-proc-count (\d+)", block)]
        if host:
            got[host.group(1)] = got.get(host.group(1), 0) + sum(counts)
    if not got:
        first = [l.strip() for l in out.splitlines() if l.strip()][:1]
        return ("refused", first[0][:100] if first else "no proxies")
    if list(got) == ["localhost"] or list(got) == [os.uname().nodename]:
        return {"localhost": sum(got.values())}
    return got


def run_hydra():
    rows = []
    for name, line, files in HYDRA_CASES:
        real, mine = hydra_real(line, files), mpi_mine("mpiexec.hydra", line, files)
        rows.append((name, line, _same(real, mine), real, mine))
    return rows


# ------------------------------------------------------------------ horovodrun

HVD_CASES = [
    # horovod docs / test/single/test_run.py host strings
    ("docs: -np 4 -H localhost:4", "-np 4 -H localhost:4 python train.py"),
    ("issue: -np 2 -H a:2,b:2", "-np 2 -H a:2,b:2 python train.py"),
    ("-np 4 over a:2,b:2", "-np 4 -H a:2,b:2 python train.py"),
    ("-np 5 over 4 slots", "-np 5 -H a:2,b:2 python train.py"),
    ("--num-proc --hosts --network-interfaces --start-timeout", "--num-proc 4 --hosts a:2,b:2 --network-interfaces "
                                                                 "eth0 --start-timeout 30 python train.py"),
    ("host without slots", "-np 2 -H a,b python train.py"),
    ("IP hosts", "-np 8 -H 10.11.11.11:4,10.11.11.12:4 python train.py"),
    ("--gloo -np 2 over 4 slots", "--gloo -np 2 -H a:2,b:2 python train.py"),
    ("--gloo -np 5 over 4 slots", "--gloo -np 5 -H a:2,b:2 python train.py"),
]


def hvd_real(argv, src):
    sys.path.insert(0, src)
    from horovod.runner import launch
    from horovod.runner.common.util import hosts as H

    saved = list(sys.argv)
    sys.argv[:] = ["horovodrun"] + argv
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            a = launch.parse_args()
        spec = a.hosts or "localhost:%d" % a.num_proc
        H.parse_hosts_and_slots(spec)
        slots = H.get_host_assignments(H.parse_hosts(spec), a.num_proc)  # refuses np > slots
        if not a.use_gloo:
            # mpi_run.py hands the job to `mpirun -np N -H <hosts as given>`: Open MPI maps it
            return ompi_real("-np %d -H %s ./x" % (a.num_proc, spec), {})
        out = {}
        for s in slots:  # gloo_run: one process per assigned slot
            out[s.hostname] = out.get(s.hostname, 0) + 1
        return out
    except SystemExit as e:
        return ("refused", "argparse exit %s" % e.code)
    except ValueError as e:
        return ("refused", str(e)[:80])
    finally:
        sys.argv[:] = saved


def run_horovod(src):
    rows = []
    for name, line in HVD_CASES:
        real, mine = hvd_real(line.split(), src), mpi_mine("horovodrun", line, {})
        rows.append((name, line, _same(real, mine), real, mine))
    return rows


# ------------------------------------------------------------------ launch scripts

SCRIPT_DIR = os.path.join(ROOT, "fixtures", "launch", "scripts")
SCRIPT_ALLOC = {"SLURM_JOB_NODELIST": "node[1-2]", "SLURM_PROCID": "0", "SLURM_NODEID": "0"}
# (script, its arguments, the allocation bash runs it in)
SCRIPT_CASES = [
    ("users_notes_train.sh", ["2", "1"], {}),
    ("users_notes_train.sh", [], {}),
    ("megatron_bert_distributed.sh", ["/ckpt", "/data/x"], {}),
    ("pytorch_examples_sbatch_run.sh", [], dict(SCRIPT_ALLOC, SLURM_NNODES="4", SLURM_NTASKS="4")),
    ("lightning_submit.sh", [], dict(SCRIPT_ALLOC, SLURM_NNODES="32", SLURM_NTASKS="64")),
    ("issue19_procid_once.sbatch", [], dict(SCRIPT_ALLOC, SLURM_NNODES="2")),
    ("issue19_procid_per_task.sbatch", [], dict(SCRIPT_ALLOC, SLURM_NNODES="2")),
    ("hardcoded_rank.sh", [], {}),
    ("koglm_eval_run_cmd.sh", [], {}),
    ("deepseek_slurm_sh_c.sh", ["-N", "2"], dict(SCRIPT_ALLOC, SLURM_NNODES="2")),
    ("llama_factory_run_ds.sh", ["--lr", "1"], {}),
    ("hpcfund47_c10d_procid.sbatch", [], dict(SCRIPT_ALLOC, SLURM_NNODES="2", SLURM_JOB_ID="7")),
]
_STUB = "#!/bin/sh\nprintf '%s\\037' \"$(basename \"$0\")\" \"$@\" >> \"$REC\"; printf '\\036' >> \"$REC\"\n"
_SRUN = """#!/bin/bash
printf '%s\\037' srun "$@" >> "$REC"; printf '\\036' >> "$REC"
n=2
while [ $# -gt 0 ]; do case "$1" in -n|--ntasks) n=$2; shift 2;; --ntasks=*) n=${1#*=}; shift;;
  -w|-N|--nodes) shift 2;; -*) shift;; *) break;; esac; done
[ $# -eq 0 ] && exit 0
for t in $(seq 0 $((n - 1))); do SLURM_PROCID=$t SLURM_NODEID=$t "$@"; done
"""


def script_real(script, args, alloc):
    """Every launcher call bash makes running the script, the launchers, srun and scontrol
    replaced by stubs that record their argv (nothing is started)."""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "bin"))
        for name, text in [(n, _STUB) for n in ("torchrun", "deepspeed", "accelerate", "mpirun", "python",
                                                "ipython", "module", "horovodrun")] + \
                [("srun", _SRUN), ("scontrol", "#!/bin/sh\nprintf 'node1\\nnode2\\n'\n")]:
            with open(os.path.join(d, "bin", name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(d, "bin", name), 0o700)
        rec = os.path.join(d, "rec")
        open(rec, "w").close()
        env = dict(alloc, PATH="%s/bin:/usr/bin:/bin" % d, REC=rec, HOME=d)
        subprocess.run(["bash", os.path.join(SCRIPT_DIR, script)] + args, cwd=d, env=env, timeout=30,
                       capture_output=True)
        with open(rec, "rb") as f:
            return [r.split("\x1f")[:-1] for r in f.read().decode().split("\x1e") if r]


def script_mine(script, args):
    from gpudoctor.launch.script import read_script

    return read_script(os.path.join(SCRIPT_DIR, script), args, environ={})


def _script_agrees(argv, real):
    from gpudoctor.launch.script import MARK

    while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):  # the launcher's environment
        argv = argv[1:]
    words = [os.path.basename(a) if k == 0 else a for k, a in enumerate(argv)]
    inner = [a for a in words if a != "srun"] if words and words[0] == "srun" else words
    whole = re.compile("^" + MARK + r"\d+" + MARK + "$")

    def match(p, r):  # an unquoted unknown alone in its word may be no word or several
        if not p:
            return not r
        if whole.match(p[0]):
            return any(match(p[1:], r[k:]) for k in range(len(r) + 1))
        return bool(r) and (MARK in p[0] or p[0] == r[0]) and match(p[1:], r[1:])

    for r in real:
        for w in (words, inner, words[-len(r):] if r else words):  # the tail: srun [opts] LAUNCHER ...
            if w and r and w[0] == r[0] and match(w[1:], r[1:]):
                return True
    return False


def run_scripts():
    """Each launch line gpudoctor finds, word by word against what bash passed the stub:
    every word gpudoctor knows is the word bash passed (unknowns match anything), never
    refused, and the world size known or named as the allocation's."""
    rows = []
    for script, args, alloc in SCRIPT_CASES:
        real = script_real(script, args, alloc)
        res = script_mine(script, args)
        for la in res.launches:
            ok = _script_agrees(la.argv, real) and la.refused is None
            mine = {"refused": la.refused} if la.refused else {
                "world": la.plan.world_size(), "nnodes": la.plan.nnodes_max, "findings": len(la.findings)}
            rows.append(("%s %s line %d" % (script, " ".join(args), la.line), la.shown[:80], ok,
                         [r for r in real if r and r[0] != "srun"][:1], mine))
        if not res.launches:
            rows.append((script, "", False, real[:1], "no launch line found"))
    return rows


# ------------------------------------------------------------------ report

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--horovod", help="a horovod source checkout (its horovod/ package)")
    ap.add_argument("--write-golden", action="store_true", help="write fixtures/launch/upstream/"
                                                                "deepspeed_batch_expected.json")
    ap.add_argument("--markdown", action="store_true", help="print the agreement table for docs/launch.md")
    ap.add_argument("--only", help="one launcher")
    ap.add_argument("--verbose", action="store_true", help="print every case")
    a = ap.parse_args()
    import logging

    logging.disable(logging.CRITICAL)
    suites = [("deepspeed (runner.main)", run_deepspeed), ("DeepSpeed batch (DeepSpeedConfig)",
                                                             lambda: run_batch(a.write_golden)),
              ("torchrun (torch.distributed.run)", run_torch), ("accelerate launch", run_accelerate),
              ("accelerate -> deepspeed runner", run_handoff),
              ("Open MPI mpirun 4.1.4", run_ompi), ("MPICH Hydra mpiexec 4.0", run_hydra),
              ("launch scripts (bash with argv-recording stubs)", run_scripts)]
    if a.horovod:
        suites.append(("horovodrun 0.28.1", lambda: run_horovod(a.horovod)))
    table = []
    for title, fn in suites:
        if a.only and a.only.lower() not in title.lower():
            continue
        rows = fn()
        agree = sum(1 for r in rows if r[2])
        table.append((title, agree, len(rows)))
        print("== %s: %d/%d agree" % (title, agree, len(rows)))
        for name, line, ok, real, mine in rows:
            if not ok or a.verbose:
                print("  %s %s | %s\n      real: %s\n      mine: %s"
                      % ("ok  " if ok else "DIFF", name, line, real, mine))
    if a.markdown:
        print("\n| launcher (reference) | cases | agree |\n|---|---|---|")
        for title, agree, n in table:
            print("| %s | %d | %d (%.0f%%) |" % (title, n, agree, 100.0 * agree / n))


if __name__ == "__main__":
    main()
