"""Cases for the mutants of gpudoctor/explain/launchctx.py's rules, read() and judge() (docs/mutation.md, seventh
round; the small readers are tests/test_mutation_launchctx.py's).

test_explain_launchctx.py checks a few words of each answer. These scan a text for each branch of each rule (the
command lines, #SBATCH lines and prints in the forms srun(1), sbatch(1), mpirun(1), torchrun and accelerate take
and print, as quoted in launchctx's docstring and test_explain_launchctx's made-here texts) and compare read()'s
whole result (the entry, what it says, the lines it quotes, the fix, the symptoms it explains, whether the lines
show the failure alone, how sure) and the launch-owned part of judge()'s answer with the reviewed table
tests/test_mutation_launchctx_rules.json (regenerate on purpose with GPUDOCTOR_REGEN_GOLDEN=1 and review the
diff, as for tests/golden/)."""

import io
import json
import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import launchctx as L
from gpudoctor.explain.scan import Scan, scan_stream

from test_explain_launchctx import ACC_TWO, GPUS_PER_TASK, MPI_ENV, MPI_ZERO, ONE_NODE, REPLICA, SAME_RANK, \
    TIMES_TASKS

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "test_mutation_launchctx_rules.json")
REGEN = os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1"
with open(GOLDEN, encoding="utf-8") as _f:
    WANT = json.load(_f)

ORDINAL = "RuntimeError: CUDA error: invalid device ordinal\n"
ADDR = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n")
_SRUN_EXIT = TIMES_TASKS.split("$ cat slurm-7.out\n")[1]

TEXTS = {
    # srun x launcher
    "times_tasks": TIMES_TASKS,
    "times_tasks_one_banner": TIMES_TASKS.replace(" 23904 ", " 23906 "),
    "times_tasks_accelerate": "#SBATCH -n 8\n#SBATCH -N 2\n$ srun -N 2 -n 8 accelerate launch train.py\n" + ADDR,
    "times_tasks_module": "$ srun --ntasks-per-node=2 python -m torch.distributed.run --nproc_per_node=4 t.py\n" + ADDR,
    "times_tasks_one_per_node": "$ srun --ntasks-per-node=1 torchrun --nproc-per-node 4 t.py\n" + ADDR,
    "times_tasks_not_spawner": "$ srun --ntasks-per-node=2 accelerate env\n" + ADDR,
    "srun_exit": "+ torchrun --nnodes 1 --nproc-per-node 2 --master-port 29771 train.py\n" + _SRUN_EXIT +
                 "srun: error: node1: tasks 0-1: Exited with exit code 1\n",
    "srun_exit_ids": "+ torchrun --nproc-per-node 4 train.py\n" + ADDR +
                     "srun: error: node1: tasks 0,2-3,,-5: Exited with exit code 1\n",
    "srun_exit_one_task": "+ torchrun --nproc-per-node 4 train.py\n" + ADDR +
                          "srun: error: node1: task 3: Exited with exit code 1\n",
    "srun_exit_nproc_1": "+ torchrun --nproc-per-node 1 train.py\n" + ADDR +
                         "srun: error: node1: tasks 0-1: Exited with exit code 1\n",
    # --gpus-per-task and GPU binding
    "renumbered": GPUS_PER_TASK,
    "renumbered_two": "$ srun --ntasks-per-node=4 --gpus-per-task=2 python train.py\n" + ORDINAL,
    "renumbered_space": "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task a100:2\n"
                        "srun python train.py\n" + ORDINAL,
    "renumbered_as_many": "$ srun --ntasks-per-node=2 --gpus-per-task=2 python train.py\n" + ORDINAL,
    "renumbered_bind_none": GPUS_PER_TASK.replace("--gpus-per-task=1", "--gpus-per-task=1 --gpu-bind=none"),
    "renumbered_no_lines": "$ srun -N 1 -n 4 --gpus-per-task=1 --gpu-bind=closest python train.py\n" + ORDINAL,
    "bound_map": "$ srun --ntasks-per-node=4 --gpu-bind=map_gpu:0,1,2,3 python train.py\n" + ORDINAL,
    "bound_closest": "#SBATCH --ntasks-per-node=4\nsrun --gpu-bind=closest python train.py\n" + ORDINAL,
    "bound_alloc": "#SBATCH --ntasks-per-node=2\n#SBATCH --gpu-bind=per_task:1\nsrun python train.py\n" + ORDINAL,
    "bound_accel_no_g": "$ srun --ntasks-per-node=4 --accel-bind=v python train.py\n" + ORDINAL,
    "bound_one_task": "$ srun --ntasks-per-node=1 --gpu-bind=closest python train.py\n" + ORDINAL,
    # a batch script without srun
    "one_node": ONE_NODE,
    "one_node_member": "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks=2\npython train.py\n"
                       "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/2\n",
    "one_node_tasks_1": "#SBATCH -N 2\n#SBATCH --ntasks=1\npython train.py\n",
    "one_node_single": "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=4\npython train.py\n",
    "one_node_mpi": "#SBATCH --nodes=2\nmpirun python train.py\n",
    # the same rank twice
    "same_rank": SAME_RANK,
    "same_rank_no_port": "$ WORLD_SIZE=2 RANK=0 python train.py &\n$ WORLD_SIZE=2 RANK=0 python train.py\n" + ADDR,
    "same_rank_out_of_world": "$ WORLD_SIZE=2 RANK=2 python train.py &\n$ WORLD_SIZE=2 RANK=2 python train.py\n",
    "same_node_rank": "user@a:~$ torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 train.py\n"
                      "user@b:~$ torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 train.py\n" + ADDR,
    "same_node_rank_one_prompt": "user@a:~$ torchrun --nnodes 2 --node_rank 0 train.py\n"
                                 "user@a:~$ torchrun --nnodes 2 --node_rank 0 train.py\n",
    "same_machine_rank": ACC_TWO,
    # every process rank 0 of 1, and a world size that is not the task count
    "every_rank_zero": MPI_ZERO,
    "every_rank_zero_srun": "$ srun -n 3 python hello.py\nworker 0 of 1 step 1\nworker 0 of 1 step 2\n"
                            "worker 0 of 1 step 3\n",
    "every_rank_zero_few": "$ mpiexec -n 3 ./hello\nHello from rank 0 of 1\n",
    "every_rank_zero_one": "$ mpirun -np 1 python t.py\nrank 0 of 1\n",
    "world_wrong": "$ mpirun -np 4 python t.py\nrank 0 world_size 1\nrank 1 world_size 1\n",
    "world_wrong_srun": "$ srun -n 4 python t.py\nrank 0 world_size 1\nrank 1 world_size 1\nrank 2 world_size 1\n",
    # a local rank beside the GPUs it sees
    "local_rank": "$ srun -N1 --ntasks-per-node=2 bash -c 'echo LOCAL_RANK=$SLURM_LOCALID "
                  "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; python train.py'\n"
                  "LOCAL_RANK=0 CUDA_VISIBLE_DEVICES=0\nLOCAL_RANK=1 CUDA_VISIBLE_DEVICES=1\n" + ORDINAL,
    "local_rank_two": "SLURM_LOCALID: 2, CUDA_VISIBLE_DEVICES: 0,1\n" + ORDINAL,
    "local_rank_seen": "CUDA_VISIBLE_DEVICES=0,1,2 LOCAL_RANK=2\n" + ORDINAL,
    # srun / mpirun start python themselves
    "other_names": MPI_ENV,
    "other_names_srun": "$ srun -n 2 python train.py\n",
    "other_names_binary": "$ mpirun -np 2 ./train\n",
    # from the after run's survivors: srun bash -c (its assignments joined to the outer ones), shell
    # operators and wrappers that end or precede the command, a continued line (bash(1): '\\<newline>') at the
    # input's end and past 32 lines, an #SBATCH option without its value, more #SBATCH lines than are quoted, long
    # argument lists and values, the rules' loops past a first command that does not count
    "bash_c": "$ srun -n 2 bash -c 'RANK=$SLURM_PROCID python train.py'\n",
    "bash_xc_same_rank": "$ MASTER_ADDR=n1 srun -n 1 bash -xc 'WORLD_SIZE=2 RANK=0 MASTER_PORT=29400 python t.py' &\n"
                         "$ MASTER_ADDR=n1 srun -n 1 bash -xc 'WORLD_SIZE=2 RANK=0 MASTER_PORT=29400 python t.py'\n" + ADDR,
    "one_node_or": "#SBATCH --nodes=2\npython train.py || echo failed\n",
    "one_node_tee": "#SBATCH --nodes=2\npython train.py |& tee log.txt\n",
    "one_node_nohup": "#SBATCH --nodes=2\nnohup python train.py > out.log\n",
    "one_node_time": "#SBATCH --nodes=2\ntime python train.py\n",
    "one_node_long": "#SBATCH --nodes=2\n#SBATCH --ntasks=2\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=1\n"
                     "python -u train.py --epochs 3 --lr 0.1 --bs 8\n",
    "one_node_launcher": "#SBATCH --nodes=2\ntorchrun --nproc-per-node 4 train.py\npython eval.py\n",
    "cont_at_end": "$ srun -n 2 python t.py \\\n",
    "cont_33": "$ srun --ntasks-per-node=4 --gpu-bind=closest \\\n" + "  --label \\\n" * 32 + "  python t.py\n" + ORDINAL,
    "alloc_no_value": "#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task\nsrun python t.py\n" + ORDINAL,
    "renumbered_srun_bind_none": "$ srun --ntasks-per-node=4 --gpus-per-task=1 --gpu-bind=none python t.py\n" + ORDINAL,
    "renumbered_many_lines": "#SBATCH --ntasks-per-node=4\n#SBATCH --ntasks=4\n#SBATCH --gpus-per-task=1\n"
                             "#SBATCH --ntasks-per-core=1\nsrun python t.py\n" + ORDINAL,
    "bound_second": "$ srun -n 1 hostname\n$ srun --ntasks-per-node=4 --gpu-bind=closest python t.py\n" + ORDINAL,
    "bound_mask": "$ srun --ntasks-per-node=2 --gpu-bind=mask_gpu:0x1,0x2 python t.py\n" + ORDINAL,
    "local_rank_uuid": "LOCAL_RANK=2 CUDA_VISIBLE_DEVICES=GPU-5f1b2c3d-aaaa-bbbb-cccc-0123456789ab,"
                       "GPU-6e2c3d4e-dddd-eeee-ffff-0123456789ab\n" + ORDINAL,
    "local_rank_sbatch": "#SBATCH --ntasks-per-node=2\nLOCAL_RANK=1 CUDA_VISIBLE_DEVICES=1\n" + ORDINAL,
    "same_rank_other_script": "$ WORLD_SIZE=2 RANK=0 python train.py &\n$ WORLD_SIZE=2 RANK=0 python eval.py\n",
    "same_rank_two_groups": "user@a:~$ torchrun --nnodes 2 --node-rank 0 t.py\nuser@b:~$ torchrun --nnodes 2 "
                            "--node-rank 0 t.py\n$ WORLD_SIZE=2 RANK=0 python x.py &\n$ WORLD_SIZE=2 RANK=0 python x.py\n",
    "same_rank_after_single": "$ WORLD_SIZE=2 RANK=1 python x.py &\n$ WORLD_SIZE=2 RANK=0 python x.py &\n"
                              "$ WORLD_SIZE=2 RANK=0 python x.py\n",
    "same_rank_env_spawner": "user@a:~$ RANK=0 WORLD_SIZE=2 torchrun --nnodes 2 --node-rank 1 t.py\n"
                             "user@b:~$ RANK=0 WORLD_SIZE=2 torchrun --nnodes 2 --node-rank 1 t.py\n",
    # a container's run line (ocictx.py, read through read(); docker-run(1) / podman-run(1) options): no GPU option
    # beside nvidia-smi's 'No devices were found', a memory limit and a kill, a read-only root, the default /dev/shm
    "ctr_no_gpu": "$ docker run --rm img nvidia-smi\nNo devices were found\n",
    "ctr_gpus": "$ docker run --rm --gpus all img nvidia-smi\nNo devices were found\n",
    "ctr_runtime": "$ docker run --rm --runtime=nvidia img nvidia-smi\nNo devices were found\n",
    "ctr_device": "$ podman run --rm --device nvidia.com/gpu=all img nvidia-smi\nNo devices were found\n",
    "ctr_env": "$ docker run --rm -e NVIDIA_VISIBLE_DEVICES=all img nvidia-smi\nNo devices were found\n",
    "ctr_env_long": "$ docker container run --rm --env NVIDIA_VISIBLE_DEVICES=0 img nvidia-smi\nNo devices were found\n",
    "ctr_memory": "$ docker run -dm 8g img python t.py\nKilled\n",
    "ctr_memory_long": "$ docker run --memory=8g --name=x img python t.py\ntrain exited with code 137\n",
    "ctr_memory_before": "Killed\n$ docker run --memory 8g img python t.py\n",
    "ctr_readonly": "$ docker run --read-only img python t.py\nOSError: [Errno 30] Read-only file system: '/tmp/x'\n",
    "ctr_readonly_tmpfs": "$ docker run --read-only --tmpfs /tmp:rw img python t.py\n"
                          "OSError: [Errno 30] Read-only file system: '/tmp/x'\n",
    "ctr_readonly_podman": "$ podman run --read-only img python t.py\nOSError: [Errno 30] Read-only file system: '/x'\n",
    "ctr_readonly_podman_off": "$ podman run --read-only --read-only-tmpfs=false img python t.py\n"
                               "OSError: [Errno 30] Read-only file system: '/tmp/x'\n",
    "ctr_shm": "$ docker run -it img python t.py\nERROR: Unexpected bus error encountered in worker. This might be caused "
               "by insufficient shared memory (shm).\n",
    "ctr_shm_size": "$ docker run --shm-size=8g img python t.py\nERROR: Unexpected bus error encountered in worker. This "
                    "might be caused by insufficient shared memory (shm).\n",
    "ctr_ipc_host": "$ docker run --ipc host img python t.py\nERROR: Unexpected bus error encountered in worker. This "
                    "might be caused by insufficient shared memory (shm).\n",
    "ctr_ipc_container": "$ docker run --ipc=container:peer img python t.py\nERROR: Unexpected bus error encountered in "
                         "worker. This might be caused by insufficient shared memory (shm).\n",
    # DataParallel
    "replica": REPLICA,
    "replica_alone": REPLICA.split("Original")[0],
}


def _scan(text, kb):
    s = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, s, "<t>")
    return s


def _read(text, kb):
    return [{"eid": x.eid, "what": x.what, "ev": [list(e) for e in x.ev], "fix": x.fix,
             "symptoms": sorted(x.symptoms), "alone": x.alone, "sure": x.sure} for x in L.read(_scan(text, kb))]


def _judged(text, kb):
    """The launch-owned part of the answer: the root, the first cause of the root that launchctx made or gave a
    cause, its how-sure note, the launch notes."""
    r = explain.explain_text(text, kb)
    f = r["findings"][0] if r["findings"] else None
    titles = [(x["title"], "<title of %s>" % x["id"]) for x in r["findings"] if x.get("title")]
    c = f["causes"][0] if f and f["causes"] else None
    launch = c is not None and c["text"].startswith("Read from the launch lines")
    return {"verdict": r["verdict"], "root": r["root"], "roles": [[x["id"], x["role"]] for x in r["findings"][:3]],
            "cause": {"text": c["text"], "fix": c["fix"], "evidence": [[e["line"], e["text"]] for e in c["evidence"]]}
            if launch else None,
            "sure": _untitled(next((n for n in f["notes"] if n.startswith("How sure")), None), titles) if launch else None,
            "context": [{k: n[k] for k in ("severity", "note", "fix", "first_line", "text", "match_count")}
                        for n in r["context"] if n["id"] == "launch"]}


def _untitled(note, titles):
    """The note with the other findings' titles (knowledge text, not launchctx's) as placeholders."""
    for t, name in titles:
        note = note.replace(t, name) if note else note
    return note


def _check(key, got):
    if REGEN:
        WANT[key] = got
        return
    assert key in WANT, "no expectation for %s: regenerate with GPUDOCTOR_REGEN_GOLDEN=1 and review" % key
    assert got == WANT[key]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_read_whole(kb, name):
    _check("read:" + name, _read(TEXTS[name], kb))


JUDGED = ["times_tasks", "srun_exit", "renumbered", "bound_map", "one_node", "same_rank", "same_machine_rank",
          "every_rank_zero", "world_wrong", "local_rank", "local_rank_two", "other_names", "replica", "replica_alone",
          "times_tasks_one_per_node", "other_names_srun"]

# judge's other paths: a healthy text (a launch fact that explains nothing is no warning), a hang the user tells of
# with a launch fact behind hangs, more launch notes than three, and a root whose symptom no launch fact causes
EXTRA = {
    "healthy_launch": "$ srun -n 2 python train.py\nepoch 1 loss 0.5\n",
    "told_hang": "my job hangs at startup, nothing printed after this:\n#SBATCH --nodes=2\n#SBATCH --ntasks=2\n"
                 "python train.py\n",
    "many_notes": "$ srun -n 4 --ntasks-per-node=4 --gpus-per-task=1 python train.py\nrank 0 world_size 1\n"
                  "rank 1 world_size 1\nRuntimeError: Caught RuntimeError in replica 1 on device 1.\n"
                  "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
    "other_symptom": "$ srun --ntasks-per-node=4 --gpus-per-task=1 python train.py\n"
                     "ModuleNotFoundError: No module named 'apex'\n",
}


@pytest.mark.parametrize("name", JUDGED + sorted(EXTRA))
def test_judged_whole(kb, name):
    _check("judge:" + name, _judged(TEXTS.get(name) or EXTRA[name], kb))


def test_tell_apart_and_no_state():
    r = {"findings": [{"id": "errno.eaddrinuse", "family": "x"}], "context": []}
    L._tell_apart(r)
    assert [c["id"] for c in r["context"]] == ["launch"] and r["context"][0]["note"] == (
        "Launch mistakes that end in this error too: %s." % L.TELL_APART[0][1])
    assert r["context"][0]["severity"] == "info" and r["context"][0]["match_count"] == 0
    r = {"findings": [{"id": "x", "family": "cuda.invalid_device_ordinal"}], "context": []}
    L._tell_apart(r)
    assert r["context"][0]["note"].endswith(L.TELL_APART[1][1] + ".")
    for findings in ([], [{"id": "errno.eaddrinuse", "from_launch": True}], [{"id": "x"}]):
        r = {"findings": findings, "context": []}
        L._tell_apart(r)
        assert r["context"] == []
    assert L.read(Scan()) == []


def test_the_table_has_no_stale_keys():
    if REGEN:
        keys = {"read:" + n for n in TEXTS} | {"judge:" + n for n in JUDGED + sorted(EXTRA)}
        for k in list(WANT):
            if k not in keys:
                del WANT[k]
        with open(GOLDEN, "w", encoding="utf-8") as f:
            json.dump(WANT, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    assert set(WANT) == {"read:" + n for n in TEXTS} | {"judge:" + n for n in JUDGED + sorted(EXTRA)}
