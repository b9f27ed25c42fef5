#!/usr/bin/env python3
"""Time `gpudoctor explain --json` on one long line of each trigger phrase of session 23's readers (opfix, lastresort),
~40 KB and ~640 KB, alone and after a traceback header. usage: python bench/explain_long_lines23.py PYTHON [--round 24|25|26|27|28|29|30]
(--round 24: the trigger phrases of session 24's readers instead: progline, deeper, choices, outdir, oldrelease, the
Slurm cancel / requeue entries and fp24's logging records; --round 25: session 25's jobshape, differential, red
team 2026-11-28d's redaction and slurm.gpudoctor_drain; --round 27: session 27's readers (triggers27); --round 26: session 26's callguard (after a torch.distributed
frame), slurm.node_reason and the webhook/netrc/key redaction)"""
# Long adversarial lines for this round's explain readers (opfix, lastresort): each trigger phrase repeated to
# ~40 KB and ~640 KB on one line, alone and after a traceback header; time explain --json on each.
import subprocess, sys, time, tempfile, os
triggers = [
 "Expected all tensors to be on the same device, but got ",
 "Target 5 is out of bounds. ",
 "index 10 is out of bounds for dimension 0 with size 10 ",
 "shape '[4, 3]' is invalid for input of size 10 ",
 "mat1 and mat2 shapes cannot be multiplied (4x3072 and 784x10) ",
 "expected input[4, 1, 28, 28] to have 3 channels, but got 1 channels instead ",
 "Class values must be smaller than num_classes. ",
 "Input tensor data type is not supported for NCCL process group: ",
 "Assertion `t >= 0 && t < n_classes` failed. ",
 "terminate called after throwing an instance of ",
 "thread 'main' panicked at ",
 "FATAL:   ", "Error response from daemon: ", "INTERNAL ASSERT FAILED at ",
 "RuntimeError: ", "TypeError: f() got an unexpected keyword argument 'x' ",
 "AttributeError: 'NoneType' object has no attribute ",
 "Segmentation fault (core dumped) ", "new_group(ranks=[", "get_world_size(group) ",
]
triggers24 = [
 "pdsh@node1: node2: ssh exited with exit code 255 ", "mlxfwmanager: error: ", "-E- Failed to open device ",
 "[ERROR] ", "level=error msg=\"failed\" ", "mlx5_core 0000:3b:00.0: mlx5_cmd_check failed ",
 "nvidia-driver-daemonset-abcde 0/1 CrashLoopBackOff 12 30m ", "kubectl logs -n gpu-operator nvidia-driver-daemonset ",
 "process_vm_readv: Operation not permitted ", "srun: error: Job credential revoked ",
 "inotify_init() failed: Too many open files ", "invalid choice: 'adam' (choose from 'adamw', 'sgd') ",
 "No such file or directory: 'ckpts/run3/model.pt' ", "NCCL version 2.18.1+cuda12.1 ",
 "*** STEP 12.0 ON sn1 CANCELLED AT 2026-11-28T02:00:00 *** ", "DUE TO JOB REQUEUE ",
 "WARNING:root:retrying after ConnectionError ", "ERROR:loader:failed to read shard ",
]
# session 25's readers: jobshape (launchers' shape lines), the differential (a root with no cause line), red team
# 2026-11-28d's redaction of operand passwords, slurm.gpudoctor_drain
triggers25 = [
 "WORLD INFO DICT: {'node1': [0, 1], ", "nnodes=2, num_local_procs=8, node_rank=0 ", "group_rank=0 ",
 "has joined round 0 of the rendezvous 'x' as rank 0 in a world of size 2 ", "Rendezvous'ing worker group ",
 "torchrun --nnodes 2 --node-rank 0 ", "MASTER_ADDR=node1 ", "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4 ",
 "cmd = pdsh -S -f 1024 -w node1,node2 ", "min_nodes : 2 ", "mysql -pSecret1 ", "sshpass -p hunter2 ",
 "docker login -p abc ", "curl -u u:pw ", "redis://:pw@host ", "AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI ",
 "Reason=gpudoctor: ", "NCCL WARN Call to ibv_modify_qp failed ",
]
# session 26's readers: callguard (a library's refusal of a call: a torch.distributed frame above the message), the
# Slurm node reasons (slurm.node_reason), red team 2026-11-28e's / review26's webhook, netrc and key redaction
triggers26 = [
 "Invalid destination rank: destination rank should not be the same as the rank of the current process. ",
 "Rank 5 is out of range. Valid ranks are 0 to 1 (world_size=2) ", "The arg 'group_size' (4) must not exceed ",
 "Each mesh_dim_name must be unique. ", "Argument ``scatter_list`` must be specified on source rank. ",
 "Global rank 1 is not part of group ", "device_id cuda:0 does not match the current compilation's ",
 "Reason=bad gpu 3 [root@2026-11-28T08:00:00] ", "maint: BIOS update ( root      2026-11-26T16:32:52 s2 ",
 "https://hooks.slack.com/services/T000/B000/XXXX ", "https://discord.com/api/v10/webhooks/1/abc ",
 "machine h login u password p ", "AIzaSyA-1234567890abcdefghijklmnopqrstu ", "SSHPASS=hunter2 ",
 "/open-apis/bot/v2/hook/abcdef ",
]
# session 27's readers: wrong27 (srun's own step kill, CrashLoopBackOff as an echo, spawn's signal, Ray's memory monitor
# and dead actors), docfix27's documented remedies (after a torch traceback), slurm27/review27's node names in
# scontrol dumps, red team 2026-11-28f's short credentials and colour-coded bearer tokens, perf27's srun task lines
triggers27 = [
 "srun: Terminating StepId=138.0 ", "CrashLoopBackOff ", "process 1 terminated with signal SIGKILL ",
 "Task was killed due to the node running low on memory. ", "ray.exceptions.ActorDiedError: ",
 "ray.exceptions.WorkerCrashedError: ", "NodeName=sn3 Arch=x86_64 State=IDLE+DRAIN Reason=Kill task failed ",
 "DB_PASSWORD hunter2 ", "token: Zq9xK2 ", "Bearer \x1b[2mabcdef0123456789 ",
 "srun: error: node1: task 3: Exited with exit code 1 ", "Can only be called once ",
 "DataLoader worker (pid 123) is killed by signal: Killed. ",
]
# session 28's readers: famfix28's objtype (CPython's attribute / callable messages on the user's line) and hookdef (a
# framework's "define this method"), spec28's either-spelling 'can not', red team 2026-11-28g's Xid shape cache, slurm28's
# MUNGE lines and the node names its fix lines fill in
triggers28 = [
 "AttributeError: 'NoneType' object has no attribute 'num_workers' ", "TypeError: 'tuple' object is not callable ",
 "No `test_step()` method defined to run `Trainer.test`. ",
 "TypeError: Can't instantiate abstract class Net with abstract method forward ",
 "Memory specification can not be satisfied ", "NVRM: Xid (PCI:0000:3b:00): 63, pid=1, Row Remapper ",
 "Munge decode failed: Invalid credential ", "Munge decode failed: Rewound credential ",
 "Prolog failure on node sn3 ", "Nodes sn3 not responding ", "srun: error: sn3: task 2: Exited with exit code 1 ",
]
triggers29 = [
 "bash: ./train.sh: cannot execute: required file not found ", "/usr/bin/env: 'python3 -u': No such file or directory ",
 "sh: 1: source: not found ", "bash: line 1: $'\\r': command not found ",
 "error while loading shared libraries: libfoo.so.1: cannot open shared object file: No such file or directory ",
 "Fatal Python error: init_fs_encoding: failed to get the Python codec of the filesystem encoding ",
 "RuntimeError: Tensors must be CUDA and dense ", "ValueError: Invalid root rank ",
 "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation. ",
 "srun: error: execve(): train.sh: No such file or directory ",
]
triggers30 = [
 "/usr/bin/env: \u2018python3\\r\u2019: No such file or directory ", "bash: ./run.sh: /bin/bash^M: bad interpreter: ",
 "ImportError: dynamic module does not define module export function (PyInit_fast_ops) ",
 "ImportError: /x/e.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs ",
 "ERROR: x-1-cp312-cp312-linux_x86_64.whl is not a supported wheel on this platform. ",
 "exitcode  : -4 (pid: 22424)  (SIGILL) ", "Signal 4 (SIGILL) received by PID 1 ", "OSError: [Errno 8] Exec format error: './a.sh' ",
 "The IPv6 network addresses of (:, 1) cannot be retrieved (gai error: -2 - Name or service not known). ",
 "port: 45123, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use ",
 "RuntimeError: Unrecognized mode=max_autotune, should be one of: default, max-autotune ",
]
PRE26 = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    dist.send(t, dst=rank)\n"
         "  File \"/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py\", line 2410, in send\n"
         "    raise ValueError(\"x\")\nValueError: ")
if sys.argv[2:] in (["--round", "24"], ["--round", "25"], ["--round", "26"], ["--round", "27"], ["--round", "28"], ["--round", "29"], ["--round", "30"]):
    triggers = {"24": triggers24, "25": triggers25, "26": triggers26, "27": triggers27, "28": triggers28, "29": triggers29, "30": triggers30}[sys.argv[3]]
worst = (0, None)
for t in triggers:
    for size in (40_000, 640_000):
        line = (t * (size // len(t) + 1))[:size]
        for pre in ("", PRE26 if sys.argv[3:] == ["26"] else
                    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = f(y)\nRuntimeError: "):
            with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
                f.write(pre + line + "\n")
            t0 = time.time()
            p = subprocess.run([sys.argv[1], "-m", "gpudoctor", "explain", "--json", f.name], capture_output=True, timeout=300)
            dt = time.time() - t0
            os.unlink(f.name)
            if dt > worst[0]:
                worst = (dt, (t[:30], size, bool(pre), p.returncode))
            if dt > 5 or p.returncode not in (0, 1):
                print("SLOW/ERR", round(dt, 2), t[:40], size, bool(pre), p.returncode, p.stderr[-200:])
print("worst", round(worst[0], 2), worst[1])
