"""explain/launchctx.py: a symptom explained by how the job was launched, when the text shows the launch.

The texts marked 'made here' were printed on this machine by CPU torch 2.13.0+cpu (Python 3.11; the venv's path
shortened to /opt/venv, the script's folder to /work/job) and Open MPI 4.1's mpirun, from the command lines they
show; a job script shown with `cat` is the script as written (this machine's Slurm did not run it: the output under
it is what its command printed when run here with the variables sbatch/srun set). Long tracebacks are cut to their
first and last frames. The others use a tool's own message format, cited per case."""

from gpudoctor import explain

# made here: two torchruns of one node on one port (what srun --ntasks-per-node=2 starts): each prints its
# OMP_NUM_THREADS banner (torch/distributed/run.py), the second cannot bind the static rendezvous' store
TIMES_TASKS = '$ cat job.sh\n#!/bin/bash\n#SBATCH -N1 --ntasks-per-node=2\nsrun torchrun --nnodes 1 --nproc-per-node 2 --master-port 29771 train.py\n$ cat slurm-7.out\nW1126 14:04:49.786000 23906 torch/distributed/run.py:874] \nW1126 14:04:49.786000 23906 torch/distributed/run.py:874] *****************************************\nW1126 14:04:49.786000 23906 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \nW1126 14:04:49.786000 23906 torch/distributed/run.py:874] *****************************************\nW1126 14:04:49.796000 23904 torch/distributed/run.py:874] \nW1126 14:04:49.796000 23904 torch/distributed/run.py:874] *****************************************\nW1126 14:04:49.796000 23904 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \nW1126 14:04:49.796000 23904 torch/distributed/run.py:874] *****************************************\nTraceback (most recent call last):\n  File "/opt/venv/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n    self._store = TCPStore(  # type: ignore[call-arg]\n                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\ntorch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29771, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\nrank 0 of 2\nrank 1 of 2\n'

# made here: the same command line (RANK=0) run twice
SAME_RANK = '$ MASTER_ADDR=127.0.0.1 MASTER_PORT=29761 WORLD_SIZE=2 RANK=0 python train.py &\n$ MASTER_ADDR=127.0.0.1 MASTER_PORT=29761 WORLD_SIZE=2 RANK=0 python train.py\nTraceback (most recent call last):\n  File "/work/job/train.py", line 2, in <module>\n    dist.init_process_group("gloo")\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper\n    return func(*args, **kwargs)\n           ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 97, in wrapper\n    func_return = func(*args, **kwargs)\n                  ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group\n    store, rank, world_size = next(rendezvous_iterator)\n                              ^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 280, in _env_rendezvous_handler\n    store = _create_c10d_store(\n            ^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 199, in _create_c10d_store\n    return TCPStore(\n           ^^^^^^^^^\ntorch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29761, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n'

# made here: mpirun -np 2 of a script that reads RANK / WORLD_SIZE, which mpirun does not set
MPI_ZERO = '$ mpirun --allow-run-as-root -np 2 python mpi_train.py\nrank 0 of 1: training on 50000 samples\nrank 0 of 1: training on 50000 samples\n'

# made here: a 2-node batch script that runs python itself; the output is that python run here with
# SLURM_PROCID=0 SLURM_NTASKS=8 (what the batch step's environment holds), waiting for the 7 tasks never started
ONE_NODE = '$ cat job.sh\n#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-node=4\nsource ~/venv/bin/activate\npython train_slurm.py\n$ cat slurm-9.out\nrank 0 world_size 8\nTraceback (most recent call last):\n  File "/work/job/train_slurm.py", line 4, in <module>\n    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29781", rank=rank, world_size=world,\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper\n    return func(*args, **kwargs)\n           ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 97, in wrapper\n    func_return = func(*args, **kwargs)\n                  ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group\n    store, rank, world_size = next(rendezvous_iterator)\n                              ^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 232, in _tcp_rendezvous_handler\n    store = _create_c10d_store(\n            ^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 199, in _create_c10d_store\n    return TCPStore(\n           ^^^^^^^^^\ntorch.distributed.DistStoreError: Timed out after 6 seconds waiting for clients. 1/8 clients joined.\n'

# srun(1): --gpus-per-task binds each task to its own GPUs (--gpu-bind=per_task implied); the error is torch's
# CUDA check (c10/cuda/CUDAException.cpp: "CUDA error: invalid device ordinal")
GPUS_PER_TASK = """#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-task=1
srun python train.py --distributed
Traceback (most recent call last):
  File "/work/job/train.py", line 9, in <module>
    torch.cuda.set_device(local_rank)
torch.AcceleratorError: CUDA error: invalid device ordinal
"""

# torch/nn/parallel/parallel_apply.py wraps a replica's error: ExceptionWrapper(where=f"in replica {i} on device
# {device}"), torch/_utils.py ExceptionWrapper.reraise: f"Caught {exc_type.__name__} {where}.\nOriginal {msg}"
REPLICA = """Traceback (most recent call last):
  File "/work/job/train.py", line 40, in <module>
    out = model(batch)
RuntimeError: Caught RuntimeError in replica 1 on device 1.
Original Traceback (most recent call last):
  File "/work/job/model.py", line 12, in forward
    self.cache.append(x)
RuntimeError: Expected all tensors to be on the same device
"""


# accelerate's config keys (commands/config/config_args.py ClusterConfig), one file shown for two machines, the
# same command at two machines' prompts; the user's words say it hangs (hang.py's complaint)
ACC_TWO = """I copied this config to both machines and ran the same command on each; both hang at startup:
$ cat multi.yaml
distributed_type: MULTI_GPU
machine_rank: 0
main_process_ip: 10.0.0.1
main_process_port: 29500
num_machines: 2
num_processes: 16
rdzv_backend: static
user@node1:~$ accelerate launch --config_file multi.yaml train.py
user@node2:~$ accelerate launch --config_file multi.yaml train.py
"""


# made here: mpirun -np 2 of a script that calls init_process_group("gloo") (env://); cut to the first frame
MPI_ENV = '$ mpirun --allow-run-as-root -np 2 python train.py\nTraceback (most recent call last):\n  File "/work/job/train.py", line 2, in <module>\n    dist.init_process_group("gloo")\nValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set\nTraceback (most recent call last):\n  File "/work/job/train.py", line 2, in <module>\n    dist.init_process_group("gloo")\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper\n    return func(*args, **kwargs)\n           ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 97, in wrapper\n    func_return = func(*args, **kwargs)\n                  ^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group\n    store, rank, world_size = next(rendezvous_iterator)\n                              ^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 269, in _env_rendezvous_handler\n    rank = int(_get_env_or_raise("RANK"))\n               ^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 254, in _get_env_or_raise\n    raise _env_error(env_var)\nValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set\n--------------------------------------------------------------------------\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n--------------------------------------------------------------------------\n--------------------------------------------------------------------------\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[18848,1],0]\n  Exit code:    1\n--------------------------------------------------------------------------\n'


def _answer(text, kb):
    r = explain.explain_text(text, kb)
    return r, [(f["id"], f["role"]) for f in r["findings"]]


def test_srun_times_torchrun(kb):
    r, fs = _answer(TIMES_TASKS, kb)
    assert fs[:2] == [("slurm.launcher_times_tasks", "root"), ("rendezvous.address_in_use", "related")]
    c = r["findings"][0]["causes"][0]
    assert "2 tasks per node" in c["text"] and "23904, 23906" in c["text"]
    assert "--ntasks-per-node=1" in c["fix"][0]
    # one task per node: the same error keeps its own answer, with the launch causes to tell apart
    r, fs = _answer(TIMES_TASKS.replace("--ntasks-per-node=2", "--ntasks-per-node=1"), kb)
    assert fs[0] == ("rendezvous.address_in_use", "root")
    assert any(n["id"] == "launch" and "srun task" in n["note"] for n in r["context"])


def test_same_rank_twice(kb):
    r, fs = _answer(SAME_RANK, kb)
    assert fs[:2] == [("launcher.same_rank", "root"), ("rendezvous.address_in_use", "related")]
    assert "RANK 0 of a world of 2" in r["findings"][0]["causes"][0]["text"]
    assert [e["line"] for e in r["findings"][0]["causes"][0]["evidence"]] == [1, 2]
    r, fs = _answer(SAME_RANK.replace("RANK=0 python train.py\n", "RANK=1 python train.py\n", 1), kb)
    assert fs[0][0] == "rendezvous.address_in_use"


def test_mpirun_every_rank_zero(kb):
    r, fs = _answer(MPI_ZERO, kb)
    assert fs == [("mpi.every_rank_zero", "root")] and r["verdict"] == "root_cause"
    # each process knows its rank: healthy, nothing said
    ok = MPI_ZERO.replace("rank 0 of 1", "rank 0 of 2", 1).replace("rank 0 of 1", "rank 1 of 2")
    r, fs = _answer(ok, kb)
    assert fs == [] and r["verdict"] == "no_error"
    # mpiexec by its path after a notebook's '!', and an MPI program's own words (mpiexec(1) -np; a hello world
    # that prints its communicator's size)
    text = ("! /usr/mpi/gcc/openmpi-4.1.5/bin/mpiexec -np 3 python hello.py\n" +
            "Hello World 0\nTotal number of processes 1\n" * 3)
    r, fs = _answer(text, kb)
    assert fs == [("mpi.every_rank_zero", "root")]
    # ranks 0 and 1 but a world of 1: the world size is wrong, not the ranks
    r, fs = _answer(MPI_ZERO.replace("rank 0 of 1", "rank 1 of 1", 1), kb)
    assert not any(f[0] == "mpi.every_rank_zero" for f in fs)


def test_batch_script_python_without_srun(kb):
    r, fs = _answer(ONE_NODE, kb)
    assert fs[0] == ("slurm.one_node_used", "root")
    assert "2 nodes and 8 tasks" in r["findings"][0]["causes"][0]["text"]
    r, fs = _answer(ONE_NODE.replace("\npython train_slurm.py", "\nsrun python train_slurm.py"), kb)
    assert fs[0][0] != "slurm.one_node_used"
    r, fs = _answer(ONE_NODE.replace("\npython train_slurm.py", "\npython prep.py\nmpirun python train_slurm.py"), kb)
    assert fs[0][0] != "slurm.one_node_used"


def test_gpus_per_task_renumbers(kb):
    r, fs = _answer(GPUS_PER_TASK, kb)
    assert fs[:2] == [("slurm.visible_devices_renumbered", "root"), ("cuda.invalid_device_ordinal", "related")]
    assert "--gpus-per-node=4" in r["findings"][0]["causes"][0]["fix"][0]
    r, fs = _answer(GPUS_PER_TASK.replace("--gpus-per-task=1", "--gpus-per-task=1 --gpu-bind=none"), kb)
    assert fs[0][0] == "cuda.invalid_device_ordinal"


def test_dataparallel_replica(kb):
    # the replica's own error has an answer: it stays the root, DataParallel is a note beside it
    r, fs = _answer(REPLICA, kb)
    assert fs[0] == ("usercode.tensors_on_two_devices", "root")
    assert any(n["id"] == "launch" and "DataParallel" in n["note"] and n["first_line"] == 4 for n in r["context"])
    # nothing else to go on: one process driving several GPUs is the answer
    r, fs = _answer(REPLICA.split("Original")[0], kb)
    assert fs[0] == ("launcher.single_process", "root")
    assert "torchrun --nproc-per-node" in r["findings"][0]["causes"][0]["fix"][0]
    assert r["findings"][0]["notes"][0].startswith("How sure: low")
    # a replica's error that is a code bug (its own answer, even a generic one): DataParallel stays a note
    r, fs = _answer(REPLICA.replace("RuntimeError: Expected all tensors to be on the same device",
                                    "AttributeError: 'NoneType' object has no attribute 'append'"), kb)
    assert fs[0][0] != "launcher.single_process"
    assert any(n["id"] == "launch" and "DataParallel" in n["note"] for n in r["context"])


def test_accelerate_config_copied_to_two_machines(kb):
    r, fs = _answer(ACC_TWO, kb)
    assert fs[0] == ("launcher.same_rank", "root")
    c = r["findings"][0]["causes"][0]
    assert "machine_rank 0 of 2 machines" in c["text"] and "--machine_rank" in c["fix"][0]
    assert [e["line"] for e in c["evidence"]] == [4, 10, 11]
    # the second machine given its own rank, or the command twice at one prompt (a retry): not this
    r, fs = _answer(ACC_TWO.replace("yaml train.py\n", "yaml --machine_rank 1 train.py\n", 2).replace(
        "--machine_rank 1 train.py\nuser@node2", "train.py\nuser@node2"), kb)
    assert all(f[0] != "launcher.same_rank" for f in fs)
    r, fs = _answer(ACC_TWO.replace("user@node2", "user@node1"), kb)
    assert all(f[0] != "launcher.same_rank" for f in fs)


def test_nproc_above_cuda_visible_devices(kb):
    # torch's CUDA check (c10/cuda/CUDAException.cpp) under torchrun's [rankN]: prefix
    text = ("$ export CUDA_VISIBLE_DEVICES=0,1\n$ torchrun --nproc-per-node 4 train.py\n"
            "[rank3]: torch.AcceleratorError: CUDA error: invalid device ordinal\n")
    r, fs = _answer(text, kb)
    assert fs[0] == ("cuda.invalid_device_ordinal", "root")
    c = r["findings"][0]["causes"][0]
    assert "4 processes per node" in c["text"] and "local ranks 2..3" in c["text"]
    assert "torchrun --nproc-per-node 2" in c["fix"][0] and [e["line"] for e in c["evidence"]] == [1, 2]
    r, fs = _answer(text.replace("0,1\n", "0,1,2,3\n"), kb)
    assert "Read from the launch lines" not in r["findings"][0]["causes"][0]["text"]


def test_local_rank_beside_cuda_visible_devices(kb):
    # each task's own print of SLURM_LOCALID and CUDA_VISIBLE_DEVICES (srun(1): the task environment), then torch's
    # CUDA check
    text = ("$ srun -N1 --ntasks-per-node=2 bash -c 'echo LOCAL_RANK=$SLURM_LOCALID "
            "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; python train.py'\n"
            "LOCAL_RANK=0 CUDA_VISIBLE_DEVICES=0\nLOCAL_RANK=1 CUDA_VISIBLE_DEVICES=1\n"
            "[rank1]: torch.AcceleratorError: CUDA error: invalid device ordinal\n")
    r, fs = _answer(text, kb)
    assert fs[:2] == [("slurm.visible_devices_renumbered", "root"), ("cuda.invalid_device_ordinal", "related")]
    assert "local rank 1 sees CUDA_VISIBLE_DEVICES=1 (line 3)" in r["findings"][0]["causes"][0]["text"]
    # no Slurm in the text: the first cause of the same root; two GPUs visible to local rank 1: not this
    r, fs = _answer(text.split("\n", 1)[1], kb)
    assert fs[0] == ("cuda.invalid_device_ordinal", "root")
    assert "local rank 1 sees" in r["findings"][0]["causes"][0]["text"]
    r, fs = _answer(text.replace("DEVICES=1\n", "DEVICES=0,1\n"), kb)
    assert not any("local rank 1 sees" in c["text"] for f in r["findings"] for c in f["causes"])


def test_mpirun_starts_python_itself(kb):
    r, fs = _answer(MPI_ENV, kb)
    assert fs[0] == ("rendezvous.env_missing", "root")
    c = r["findings"][0]["causes"][0]
    assert "mpirun starts the script itself (line 1)" in c["text"] and "OMPI_COMM_WORLD_RANK" in c["fix"][0]
    # plain python: the entry's own first cause
    r, fs = _answer(MPI_ENV.replace("mpirun --allow-run-as-root -np 2 python", "python"), kb)
    assert fs[0] == ("rendezvous.env_missing", "root")
    assert "Read from the launch lines" not in r["findings"][0]["causes"][0]["text"]


def test_srun_task_exit_line_with_a_launcher(kb):
    # the job script not shown: set -x's trace of the command each task ran, torchrun's real error (TIMES_TASKS),
    # and srun's task-exit line (src/plugins/launch/slurm/launch_slurm.c: "%s: %s %s: Exited with exit code %d")
    tail = TIMES_TASKS.split("$ cat slurm-7.out\n")[1]
    text = "+ torchrun --nnodes 1 --nproc-per-node 2 --master-port 29771 train.py\n" + tail + \
        "srun: error: node1: tasks 0-1: Exited with exit code 1\n"
    r, fs = _answer(text, kb)
    assert fs[:2] == [("slurm.launcher_times_tasks", "root"), ("rendezvous.address_in_use", "related")]
    assert "srun reports 2 tasks of one host" in r["findings"][0]["causes"][0]["text"]
    # torchrun's own config dump instead of its command line (torch/distributed/launcher/api.py launch_agent:
    # "  nproc_per_node   : %(nproc_per_node)s"; layout.py reads it)
    dump = text.replace("+ torchrun --nnodes 1 --nproc-per-node 2 --master-port 29771 train.py\n",
                        "I1126 14:04:49.790000 23906 torch/distributed/launcher/api.py:188]   nproc_per_node   : 2\n")
    r, fs = _answer(dump, kb)
    assert fs[0] == ("slurm.launcher_times_tasks", "root") and "starts 2 workers itself (line 1)" in \
        r["findings"][0]["causes"][0]["text"]
    r, fs = _answer(text.replace("tasks 0-1:", "task 0:"), kb)
    assert fs[0][0] == "rendezvous.address_in_use"


def test_srun_gpu_binding_renumbers(kb):
    # srun(1): --accel-bind=g binds each task to the GPUs closest to its CPUs; --gpu-bind=single:1 one GPU per task.
    # A continued srun line (backslash) is read by its own words
    text = ("#SBATCH --nodes=1\n#SBATCH --gres=gpu:4\n#SBATCH --ntasks-per-node=4\n"
            "srun --cpu_bind=v --accel-bind=gn python -u train.py \\\n    --epochs 3\n"
            "    torch.cuda.set_device(device)\nRuntimeError: CUDA error: invalid device ordinal\n")
    r, fs = _answer(text, kb)
    assert fs[:2] == [("slurm.visible_devices_renumbered", "root"), ("cuda.invalid_device_ordinal", "related")]
    assert "--accel-bind=gn, line 4" in r["findings"][0]["causes"][0]["text"]
    r, fs = _answer(text.replace("--accel-bind=gn", "--gpu-bind=single:1"), kb)
    assert "its one GPU" in r["findings"][0]["causes"][0]["text"]
    r, fs = _answer(text.replace("--accel-bind=gn", "--gpu-bind=none"), kb)
    assert fs[0][0] == "cuda.invalid_device_ordinal"


# pytorch/examples distributed/ddp-tutorial-series/slurm/sbatch_run.sh (commit 0646d69f), verbatim: srun torchrun
# with its options over continuation lines, as sbatch scripts write a long command
SBATCH_RUN = """#!/bin/bash

#SBATCH --job-name=multinode-example
#SBATCH --nodes=4
#SBATCH --ntasks=4
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=4

nodes=( $( scontrol show hostnames $SLURM_JOB_NODELIST ) )
nodes_array=($nodes)
head_node=${nodes_array[0]}
head_node_ip=$(srun --nodes=1 --ntasks=1 -w "$head_node" hostname --ip-address)

echo Node IP: $head_node_ip
export LOGLEVEL=INFO

job_id=2024
srun torchrun \\
--nnodes 4 \\
--nproc_per_node 1 \\
--rdzv_id ${job_id} \\
--rdzv_backend c10d \\
--rdzv_endpoint $head_node_ip:29500 \\
/shared/examples/multinode_torchrun.py 50 10
"""


def _cmds(text, kb):
    import io

    from gpudoctor.explain.scan import Scan, scan_stream

    s = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, s, "<t>")
    return [(c["line"], c["prog"], c["argv"]) for c in s.launchctx.cmds]


def test_a_command_over_continuation_lines_is_one_command(kb):
    got = _cmds("$ cat sbatch_run.sh\n" + SBATCH_RUN, kb)
    assert got == [(19, "spawner", ["torchrun", "--nnodes", "4", "--nproc_per_node", "1", "--rdzv_id", "${job_id}",
                                    "--rdzv_backend", "c10d", "--rdzv_endpoint", "$head_node_ip:29500",
                                    "/shared/examples/multinode_torchrun.py", "50", "10"])]
    # the made-here job of test_srun_times_torchrun with its srun line split the same way: torchrun on a line of its
    # own is still the program srun starts (it was read as a command without srun)
    split = TIMES_TASKS.replace("srun torchrun --nnodes 1 --nproc-per-node 2 --master-port 29771 train.py",
                                "srun \\\n  torchrun --nnodes 1 \\\n  --nproc-per-node 2 \\\n  --master-port 29771 train.py")
    r, fs = _answer(split, kb)
    assert fs[:2] == [("slurm.launcher_times_tasks", "root"), ("rendezvous.address_in_use", "related")]
    # bounded: at most MAX_CONT continuation lines are joined
    long = "$ srun \\\n" + "  -l \\\n" * 40 + "  python train.py\n"
    (line, prog, argv), = _cmds(long, kb)
    assert line == 1 and argv == [] and prog is None


def test_a_full_reader_retires_its_pattern(kb):
    # 10^5 'rank 0 of 1' lines cost 5.5 s CPU at ecf38c7 (each a candidate line through the whole per-line path
    # while launchctx kept only the first MAX_ALONE): the pattern is retired once its list is full, so only the
    # lines before that are tried (counted, not timed); the answer is the same
    import io

    from gpudoctor.explain import launchctx
    from gpudoctor.explain.scan import Scan, scan_stream

    text = "$ mpirun -np 2 python mpi_train.py\n" + "".join("rank 0 of 1: step %d\n" % i for i in range(3000))
    s = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, s, "<t>")
    assert len(s.launchctx.alone) == launchctx.MAX_ALONE and len(s.retired) == 1
    assert s.tried <= launchctx.MAX_ALONE + 2
    assert _answer(text, kb)[1] == [("mpi.every_rank_zero", "root")]
