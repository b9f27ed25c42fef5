"""Never confidently wrong (issue 18 item 3, wrong27): the first failure before its echoes, by the program that printed
each line.

1. srun ends its own step. slurmstepd's '*** STEP N.M ON node CANCELLED AT time ***' (no 'DUE TO') is what any
   SIGTERM/SIGKILL of the step prints; slurm.cancelled reads it as a person's scancel. Under kill-on-bad-exit srun
   sends that signal itself: launch/slurm's _task_finish prints the task's end, then _step_signal logs 'Terminating %ps'
   (SchedMD/slurm src/plugins/launch/slurm/launch_slurm.c). With that line and a task's abnormal end, the CANCELLED
   line is the task's echo (rootguard.srun_ended_step); a scancel of the step prints no 'Terminating' line
   (fixtures/slurm/recorded24, recorded on slurm-wlm 22.05).
2. torchrun's --nnodes MIN:MAX is a range (https://pytorch.org/docs/stable/elastic/run.html): with MIN 1 a loopback
   endpoint breaks only a node that joins later (launch/script.py), not the run shown.
3. CrashLoopBackOff is not a cause (k8s.crashloop's own explanation: the kubelet restarts a container that exited;
   pkg/kubelet/container/sync_result.go): without a cause's evidence in the text it is an echo (echo_without_evidence),
   never the stated root cause; with the init container init-pytorch named, its wait for the master is the cause.
"""

import os

from explainhelp import explain_paste, ids, root_id, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(os.path.dirname(HERE), "fixtures", "slurm", "recorded24")


def _recorded(name):
    with open(os.path.join(RECORDED, name), encoding="utf-8") as f:
        return f.read()


def _context_ids(doc):
    return [n["id"] for n in doc.get("context") or ()]


# ---- 1. srun ends its own step

def _pmix():
    # AO (seen): openpmix/openpmix#3339, two ranks that chose different PMLs; srun killed the step after task 1
    # exited with code 14 ('srun: Terminating StepId=138.0')
    return seen_text("ao-pmix5-gds-shmem-pml-empty", "2026-11-27ao")


def test_a_step_srun_itself_terminated_is_not_someone_cancelling(cli, tmp_path):
    text = _pmix()
    assert "srun: Terminating StepId=138.0" in text and "CANCELLED AT" in text
    _, doc = explain_paste(cli, tmp_path, text)
    assert doc["verdict"] != "root_cause", ids(doc)
    assert root_id(doc) not in ("slurm.cancelled", "slurm.error"), ids(doc)
    # the task's end is what srun reports; the cancel is its echo, kept as a note
    assert root_id(doc) == "cascade.child_failed", ids(doc)
    assert "slurm.cancelled" in _context_ids(doc), _context_ids(doc)


def test_a_scancel_of_the_step_is_still_a_cancel(cli, tmp_path):
    # recorded: scancel JOBID.0 from another shell; srun prints no 'Terminating' line of its own
    for name in ("srun-step-cancelled.txt", "srun-job-cancelled.txt"):
        _, doc = explain_paste(cli, tmp_path, _recorded(name), name=name)
        assert root_id(doc) == "slurm.cancelled", (name, ids(doc))
        assert doc["verdict"] == "root_cause", (name, doc["verdict"])


def test_forced_termination_keeps_the_cancel(cli, tmp_path):
    # srun's own end of the job after ^C twice ('forcing job termination') is a person's doing: the same lines with it
    text = _pmix().replace("srun: Terminating StepId=138.0",
                           "srun: forcing job termination\nsrun: Terminating StepId=138.0")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "slurm.cancelled", ids(doc)


def test_the_task_own_failure_stays_the_root(cli, tmp_path):
    # tests/test_explain_slurm.py's chrisknewman/tusas#149 lines: the step's OOM kill, srun's 'Terminating StepId',
    # then the CANCELLED line; the OOM is the root and the cancel is no cause
    text = ("slurmstepd: error: Detected 1 oom_kill event in StepId=440575.0. Some of the step tasks have been OOM "
            "Killed.\nsrun: error: nid001277: tasks 1-3: Out Of Memory\nsrun: Terminating StepId=440575.0\n"
            "slurmstepd: error: *** STEP 440575.0 ON nid001277 CANCELLED AT 2023-12-05T07:16:01 ***\n")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "slurm.oom", ids(doc)
    assert "slurm.cancelled" not in [f["id"] for f in doc["findings"]], ids(doc)


# ---- 2. an elastic node range is not its maximum

def _p32():
    # P32 (planted, seen): a single-node job launched with torchrun --nnodes 1:2 and a localhost rendezvous endpoint;
    # it runs, slower to start (the rendezvous waits for the range's last call)
    return seen_text("p32-torchrun_elastic_nnodes_range_last_call_wait", "2026-11-27p32")


def test_a_range_whose_minimum_is_one_node_may_use_loopback(cli, tmp_path):
    # torchrun's --nnodes MIN_SIZE:MAX_SIZE (https://pytorch.org/docs/stable/elastic/run.html): with MIN 1 the job runs
    # on this node alone; a localhost endpoint breaks only a node that joins later (a note of the plan, not the root)
    text = _p32()
    assert "--nnodes 1:2" in text and "--rdzv-endpoint localhost:" in text
    _, doc = explain_paste(cli, tmp_path, text)
    assert "launcher.loopback_master" not in [f["id"] for f in doc["findings"]], ids(doc)


def test_a_fixed_count_of_two_nodes_with_loopback_is_still_the_finding(cli, tmp_path):
    for nn in ("2", "2:2"):
        _, doc = explain_paste(cli, tmp_path, _p32().replace("--nnodes 1:2", "--nnodes " + nn), name="n%s.txt" % nn[0])
        assert root_id(doc) == "launcher.loopback_master", (nn, ids(doc))


# ---- 3. CrashLoopBackOff is the echo of the container's own failure

def test_crashloop_alone_is_an_echo_not_a_stated_cause(cli, tmp_path):
    # R (seen): kubeflow/pytorch-operator#258, `kubectl get pods` with a worker in CrashLoopBackOff and no log of its
    text = seen_text("ptop-258-pytorchjob-worker-crashloop-user-namespace-sidecar", "2026-11-26r")
    assert "CrashLoopBackOff" in text
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "k8s.crashloop" and doc["verdict"] == "echo_only", (doc["verdict"], ids(doc))
    assert "--previous" in "\n".join(doc["findings"][0]["causes"][0]["fix"])


def test_crashloop_of_the_init_container_keeps_its_cause(cli, tmp_path):
    # tests/test_explain_k8s.py's kubeflow/training-operator events: the container that restarts is init-pytorch
    from test_explain_k8s import INIT_PYTORCH

    _, doc = explain_paste(cli, tmp_path, INIT_PYTORCH)
    assert root_id(doc) == "k8s.crashloop" and doc["verdict"] == "root_cause", (doc["verdict"], ids(doc))
    assert "init-pytorch" in doc["findings"][0]["causes"][0]["text"]


def test_crashloop_beside_the_container_own_error_is_its_cascade(cli, tmp_path):
    # the pod's state and the previous run's own exception (kubectl logs --previous) pasted together: the exception
    # is the root, the state its cascade
    text = ("pytorch-dist-mnist-worker-0   0/1   CrashLoopBackOff   4   3m\n"
            "Traceback (most recent call last):\n  File \"/app/train.py\", line 3, in <module>\n    import numpy\n"
            "ModuleNotFoundError: No module named 'numpy'\n")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) != "k8s.crashloop", ids(doc)
    roles = {f["id"]: f["role"] for f in doc["findings"]}
    assert roles.get("k8s.crashloop") in (None, "cascade"), roles


# ---- 4. torch.multiprocessing.spawn's report of a child that died without a Python error

SPAWN = ("Traceback (most recent call last):\n  File \"/work/train.py\", line 88, in <module>\n"
         "    mp.spawn(main, args=(world_size,), nprocs=world_size, join=True)\n"
         "  File \"/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py\", line 340, in spawn\n"
         "    return start_processes(fn, args, nprocs, join, daemon, start_method=\"spawn\")\n"
         "  File \"/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py\", line 230, in join\n"
         "    raise ProcessExitedException(\n"
         "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal %s\n")


def test_a_spawned_child_killed_by_sigkill_is_the_oom_reading(cli, tmp_path):
    # ProcessContext.join's message for a child a signal ended (torch/multiprocessing/spawn.py, f"process {i:d}
    # terminated with signal {name}"): the same reading as torchrun's 'failed (exitcode: -9)'
    _, doc = explain_paste(cli, tmp_path, SPAWN % "SIGKILL")
    assert root_id(doc) == "elastic.sigkill" and doc["verdict"] == "root_cause", ids(doc)
    _, doc = explain_paste(cli, tmp_path, SPAWN % "SIGBUS", name="bus.txt")
    assert root_id(doc) == "elastic.sigbus", ids(doc)
    # before, the exception's class read from its shape: torch.library_error ('PyTorch rejects how it is called')
    assert "torch.library_error" not in ids(doc)


def test_a_spawned_child_that_exited_or_aborted_is_an_echo(cli, tmp_path):
    for tail, name in (("process 1 terminated with exit code 1", "exit.txt"),
                       ("process 1 terminated with signal SIGABRT", "abrt.txt")):
        text = (SPAWN % "X").replace("process 1 terminated with signal X", tail)
        _, doc = explain_paste(cli, tmp_path, text, name=name)
        assert doc["verdict"] == "echo_only", (tail, doc["verdict"], ids(doc))
        assert root_id(doc) in ("cascade.child_failed", "cascade.signal"), (tail, ids(doc))


def test_the_child_own_error_stays_the_root(cli, tmp_path):
    # ProcessRaisedException carries the child's traceback ('-- Process 1 terminated with the following error:'): the
    # child's exception answers, the spawn report adds nothing
    text = ("torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
            "-- Process 1 terminated with the following error:\n"
            "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in main\n    import numpy\n"
            "ModuleNotFoundError: No module named 'numpy'\n")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) not in ("cascade.child_failed", "cascade.signal", "elastic.sigkill"), ids(doc)


# ---- 5. Ray's memory monitor and a worker's death

# Ray's docs, "Out-Of-Memory Prevention" (https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html):
# the exception a caller gets when the memory monitor killed the task's worker
RAY_OOM = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
           "Memory on the node (IP: 10.0.62.231, ID: e5d953ef03e55e26f13973ea1b5a0fd0ecc729cd820bc89e4aa50451) "
           "where the "
           "task (task ID: 43534ce9375fa8e4cd0d0ec285d9974a6a95897401000000, name=allocate_memory, pid=11362, memory "
           "used=1.25GB) was running was 27.71GB / 28.80GB (0.962273), which exceeds the memory usage threshold of 0.95. "
           "Ray killed this worker (ID: 6f2ec5c8b0d5f5a66572859faf192d36743536c2e9702ea58084b037) because it was the "
           "most recently scheduled task\n")
# python/ray/exceptions.py ActorDiedError's message with the exit detail Ray appends for a process that vanished
ACTOR_DIED = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
              "\tclass_name: WorkerDict\n\tactor_id: 8d5a9c8f6e4b3a2b1c0d\n\tpid: 40126\n"
              "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
              "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root "
              "causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force "
              "is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n")


def test_ray_memory_monitor_is_host_memory(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, RAY_OOM)
    root = doc["findings"][0]
    assert root_id(doc) == "ray.memory_monitor" and root["family"] == "errno.enomem", ids(doc)
    assert doc["verdict"] == "root_cause"
    assert "RAY_memory_usage_threshold" in "\n".join(f for c in root["causes"] for f in c["fix"])
    # before: the exception's class read from its shape (errno.enomem's locked-memory cause first)


def test_an_actor_death_alone_is_an_echo_with_its_usual_causes(cli, tmp_path):
    # Ray's own list of 'potential root causes' is boilerplate, not evidence: the death is the echo of the process's
    # end, answered with the ways to tell the causes apart; before, ray.usage ('a Ray Train setting is invalid')
    _, doc = explain_paste(cli, tmp_path, ACTOR_DIED)
    assert root_id(doc) == "ray.worker_died" and doc["verdict"] == "echo_only", (doc["verdict"], ids(doc))
    assert "ray.usage" not in ids(doc)
    # with the exit type that names the memory monitor, the monitor's kill is the root
    text = ACTOR_DIED.replace("Worker exit type: SYSTEM_ERROR", "Worker exit type: NODE_OUT_OF_MEMORY") + RAY_OOM
    _, doc = explain_paste(cli, tmp_path, text, name="oom.txt")
    assert root_id(doc) == "ray.memory_monitor" and doc["verdict"] == "root_cause", ids(doc)
