"""Cases for the mutants of gpudoctor/explain/launchctx.py's small readers (docs/mutation.md, sixth round): srun's
options as srun(1) takes them (--name=V, --name V, flags without a value, -nV / -n V, the command after them),
numbers and GPU counts (N or type:N, --gpus-per-task=a100:1), a launcher's option in either spelling, the GPUs a
CUDA_VISIBLE_DEVICES value shows (CUDA's list of indexes and GPU-/MIG- UUIDs, stopping at the first invalid entry),
the tasks per node srun starts, and the per-node process count against CUDA_VISIBLE_DEVICES compared whole."""

from types import SimpleNamespace

import pytest

from gpudoctor.explain import launchctx as L


def test_srun_options():
    assert L._srun_opts(["--nodes=2", "-n", "8", "--label", "--gpus-per-task", "1", "-c4", "torchrun", "-x"]) == (
        {"--nodes": "2", "-n": "8", "--label": "", "--gpus-per-task": "1", "-c": "4"}, ["torchrun", "-x"])
    assert L._srun_opts(["-l", "python", "t.py"]) == ({"-l": ""}, ["python", "t.py"])  # -l takes no value
    assert L._srun_opts(["--ntasks"]) == ({"--ntasks": ""}, [])
    assert L._srun_opts(["-N"]) == ({"-N": ""}, [])
    assert L._srun_opts(["-", "x"]) == ({}, ["-", "x"])
    assert L._srun_opts([]) == ({}, [])


@pytest.mark.parametrize("v,i,c", [("8", 8, 8), ("123456", 123456, 123456), ("1234567", None, None), ("a100:2", None, 2),
                                   ("x", None, None), ("", None, None), (None, None, None), (8, None, None),
                                   ("nvidia.a-1:3", None, 3), (":3", None, None), ("8 ", None, None)])
def test_numbers_and_gpu_counts(v, i, c):
    assert (L._int(v), L._count(v)) == (i, c)


def test_a_launchers_option_in_either_spelling():
    argv = ["torchrun", "--nproc_per_node=4", "--nnodes", "2", "--rdzv-id"]
    assert L._flag(argv, "--nproc-per-node") == "4"
    assert L._flag(argv, "--nnodes") == "2"
    assert L._flag(argv, "--rdzv_id") is None  # no value after it
    assert L._flag(argv, "--master-port") is None
    assert L._flag(["x"] * 80 + ["--nnodes=2"], "--nnodes") is None  # the first 80 words
    assert L._flag(["x"] * 79 + ["--nnodes=2"], "--nnodes") == "2"
    assert L._base("/usr/local/bin/torchrun") == "torchrun" and L._base("torchrun") == "torchrun"


@pytest.mark.parametrize("value,n", [("0,1", 2), ("0, 1 ,2", 3), ("GPU-5f1b2c3d-aaaa,MIG-1234-5678", 2), ("0,x,1", 1),
                                     ("", None), ("-1", None), ("1000", None), ("GPU-abc", None), ("7", 1)])
def test_the_gpus_cuda_visible_devices_shows(value, n):
    assert L._visible(value) == n


def test_tasks_per_node_srun_starts():
    assert L._per_node({"--ntasks-per-node": "4", "-n": "16"}, {}) == 4
    assert L._per_node({"-n": "8", "-N": "3"}, {}) == 3  # rounded up
    assert L._per_node({"--ntasks": "8", "--nodes": "2"}, {}) == 4
    assert L._per_node({"-n": "8"}, {"nodes": 4}) == 2
    assert L._per_node({"-n": "8"}, {"ntasks_per_node": 5}) is None  # -n without nodes: unknown
    assert L._per_node({"-n": "8", "-N": "x"}, {"ntasks_per_node": 5}) == 5
    assert L._per_node({}, {"ntasks_per_node": 2, "tasks": 9, "nodes": 2}) == 2
    assert L._per_node(None, {"tasks": 9, "nodes": 2}) == 5
    assert L._per_node(None, {"tasks": 9}) is None and L._per_node(None, {}) is None


def _cmd(argv, line=5, env=None, src=0):
    return {"prog": "spawner", "argv": argv, "env": env or {}, "line": line, "text": " ".join(argv), "src": src}


def _nvv(cmds, cvd=()):
    out = []
    L._nproc_vs_visible(SimpleNamespace(cmds=cmds, cvd=list(cvd)), out)
    return [(f.eid, f.what, f.ev, f.fix, f.symptoms) for f in out]


def test_more_processes_per_node_than_visible_gpus():
    tr = _cmd(["torchrun", "--nproc-per-node=4", "train.py"], env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert _nvv([tr]) == [(
        "_cause", "torchrun starts 4 processes per node (line 5) but CUDA_VISIBLE_DEVICES=0,1 (line 5) shows each "
        "process 2 GPUs: local ranks 2..3 ask for a device the process does not have",
        [(5, "torchrun --nproc-per-node=4 train.py")],
        "start as many processes as the GPUs CUDA_VISIBLE_DEVICES lists: torchrun --nproc-per-node 2 (or list 4 GPUs "
        "in CUDA_VISIBLE_DEVICES)", L.ORDINAL | L.DUP)]
    # the last line before it of the same input that sets it; one GPU short
    ds = _cmd(["/opt/bin/deepspeed", "--num_gpus", "2", "t.py"], line=9)
    cvd = [(0, 3, "0,1,2", "export CUDA_VISIBLE_DEVICES=0,1,2"), (0, 4, "0", "export CUDA_VISIBLE_DEVICES=0"),
           (0, 12, "0,1", "late"), (1, 2, "0,1", "other input")]
    assert _nvv([ds], cvd) == [(
        "_cause", "deepspeed starts 2 processes per node (line 9) but CUDA_VISIBLE_DEVICES=0 (line 4) shows each "
        "process 1 GPU: local rank 1 asks for a device the process does not have",
        [(4, "export CUDA_VISIBLE_DEVICES=0"), (9, "/opt/bin/deepspeed --num_gpus 2 t.py")],
        "start as many processes as the GPUs CUDA_VISIBLE_DEVICES lists: deepspeed --num_gpus 1 (or list 2 GPUs in "
        "CUDA_VISIBLE_DEVICES)", L.ORDINAL | L.DUP)]
    # accelerate: processes over machines
    acc = _cmd(["accelerate", "launch", "--num_processes=8", "--num_machines=2", "t.py"],
               env={"CUDA_VISIBLE_DEVICES": "0,1"})
    got = _nvv([acc])
    assert got[0][1].startswith("accelerate starts 4 processes per node") and got[0][3].startswith(
        "start as many processes as the GPUs CUDA_VISIBLE_DEVICES lists: accelerate launch --num_processes 2 (or list "
        "4 GPUs")
    assert _nvv([_cmd(["accelerate", "launch", "--num_processes=2"], env={"CUDA_VISIBLE_DEVICES": "0"})])[0][1] \
        .startswith("accelerate starts 2 processes per node")


@pytest.mark.parametrize("cmds", [
    [_cmd(["torchrun", "--nproc-per-node=2"], env={"CUDA_VISIBLE_DEVICES": "0,1"})],  # as many GPUs
    [_cmd(["torchrun", "--nproc-per-node=1"], env={"CUDA_VISIBLE_DEVICES": ""})],  # one process
    [_cmd(["torchrun", "--nproc-per-node=4"])],  # no CUDA_VISIBLE_DEVICES
    [_cmd(["torchrun", "--nproc-per-node=4"], env={"CUDA_VISIBLE_DEVICES": "x"})],  # shows none that counts
    [dict(_cmd(["torchrun", "--nproc-per-node=4"], env={"CUDA_VISIBLE_DEVICES": "0"}), prog="python")],
    [_cmd([], env={"CUDA_VISIBLE_DEVICES": "0"})],
    [_cmd(["accelerate", "launch", "--num_processes=4", "--num_machines=4"], env={"CUDA_VISIBLE_DEVICES": "0"})],
])
def test_no_more_processes_than_gpus(cmds):
    assert _nvv(cmds, [(1, 1, "0", "another input's line")]) == []


def test_from_the_after_runs_survivors():
    # a value as the last word; a name given in '_' spelling finds the '-' one too
    assert L._srun_opts(["-n", "8"]) == ({"-n": "8"}, []) and L._srun_opts(["--ntasks", "8"]) == ({"--ntasks": "8"}, [])
    assert L._flag(["--nnodes", "2"], "--nnodes") == "2" and L._flag(["--num-gpus", "2"], "--num_gpus") == "2"
    # processes per machine rounded down (5 over 2 machines is 2 per node: as many as the GPUs)
    acc = _cmd(["accelerate", "launch", "--num_processes=5", "--num_machines=2"], env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert _nvv([acc]) == []
    # a command that is no launcher before the one that is
    py = dict(_cmd(["python", "t.py"], line=2), prog="python")
    tr = _cmd(["torchrun", "--nproc-per-node=4", "train.py"], env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert len(_nvv([py, _cmd([], line=3), _cmd(["torchrun", "--nproc-per-node=1"], line=4), tr])) == 1
