"""Cases for the mutants of gpudoctor/explain/layout.py's rules (docs/mutation.md, fifth round): `read` over
a job's layout as record() leaves it (Layout: the claims of rank / world / device, accelerate's state blocks,
Lightning's GPU line, nvidia-smi's rows, torchrun's and DeepSpeed's process counts), each answer compared
whole (entry, what the lines show, the lines, the fix, root or note, the quoted texts), written out from
the module's rules: two ranks of one node on one GPU, a process that holds memory on GPU 0 besides its own,
two processes of one global rank, processes that each run a world of one, a run on the CPU."""

from types import SimpleNamespace as NS

import pytest

from gpudoctor.explain import layout as L

SHARE_FIX = ("local_rank = int(os.environ['LOCAL_RANK']); torch.cuda.set_device(local_rank) before the model is "
             "built; model.to(local_rank); DDP(model, device_ids=[local_rank])")
ALONE_FIX = ("start them with a launcher that sets RANK / WORLD_SIZE / LOCAL_RANK: torchrun --nnodes <N> "
             "--nproc-per-node <GPUs> --rdzv-backend c10d --rdzv-endpoint <first node>:29500 train.py on every node; "
             "under srun, read SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID in the script")
CPU_FIX = ("use_cpu: false in the accelerate config (`accelerate config`, or edit ~/.cache/huggingface/accelerate/"
           "default_config.yaml: distributed_type: MULTI_GPU, num_processes: <GPUs>), or launch without --cpu; "
           "`accelerate env` shows the config in use")
PL_FIX = ("Trainer(accelerator='gpu', devices=<GPUs>) (or accelerator='auto'): Lightning's Trainer runs on the CPU "
          "when accelerator='cpu' is given")
SAME_FIX = ("give each node its own rank: torchrun --node-rank $SLURM_NODEID (inside srun bash -c '...'), or "
            "--rdzv-backend c10d --rdzv-endpoint <first node>:29500 (node ranks assigned at the rendezvous); "
            "accelerate: machine_rank per machine; Lightning: start each task with srun so it reads SLURM_PROCID")


def C(line, kind="print", who=(0, None), rank=None, world=None, dev=None, sees=None, text=None, **kw):
    d = {"line": line, "who": who, "text": text or "claim of line %d" % line, "sees": sees, "kind": kind,
         "rank": rank, "world": world, "dev": dev, "local": None}
    d.update(kw)
    return d


def _st(claims=(), **kw):
    s = L.Layout()
    s.claims = list(claims)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def rd(s, complaint=None):
    out, notes = L.read(NS(layout=s), complaint)
    return [(f.eid, f.what, f.lines, f.fix, f.root, f.texts) for f in out], notes


def test_read_without_a_layout():
    assert L.read(NS(), None) == ([], []) and rd(_st()) == ([], [])


TWO = [C(3, rank=0, world=2, dev="cuda:0"), C(4, rank=1, world=2, dev="cuda:0")]
SAID = "ranks 0, 1 of 2 each print cuda:0 (line 3: claim of line 3; line 4: claim of line 4)"


def _share(why, lines, more=()):
    return ([("torch.ranks_share_gpu", "%s, and %s: the ranks share one GPU" % (SAID, why), lines, SHARE_FIX, True,
              ["claim of line 3", "claim of line 4"] + list(more))], [])


NOTE = [(3, SAID + ": on one node that is every rank on one GPU (set the device from LOCAL_RANK); on several nodes, "
         "or with one GPU visible per process (Slurm --gpus-per-task, Ray), it is right", SHARE_FIX)]


@pytest.mark.parametrize("kw,want", [
    ({"nproc": (1, 2)}, _share("--nproc-per-node 2 (line 1) puts ranks 0-1 on one node", [3, 4])),
    ({"nproc": (1, 1)}, ([], NOTE)),
    ({"ds_nodes": [(2, 1, 2, 0)]}, _share("DeepSpeed's launcher says nnodes=1, num_local_procs=2 (line 2)", [3, 4])),
    ({"ds_nodes": [(2, 2, 2, 0), (5, 1, 1, 0)]}, ([], NOTE)),
    ({"smi_gpus": {0, 1}, "smi_procs": [(8, 0, "11", "python", 500), (9, 0, "12", "/usr/bin/Python3", 500),
                                        (10, 0, "13", "bash", 5), (11, 1, "14", "Xorg", 5)],
      "smi_text": {8: "row of line 8", 9: "row of line 9"}},
     _share("nvidia-smi lists 2 python processes on GPU 0 and none on GPU 1", [3, 4, 8], ["row of line 8"])),
    # torchrun's count and nvidia-smi: the count says it, the smi line is not added
    ({"nproc": (1, 2), "smi_gpus": {0, 1}, "smi_procs": [(9, 0, "12", "torchrun", 5), (8, 0, "11", "python", 5)]},
     _share("--nproc-per-node 2 (line 1) puts ranks 0-1 on one node", [3, 4])),
    # every GPU has a process, or only one python process: no evidence
    ({"smi_gpus": {0, 1}, "smi_procs": [(8, 0, "11", "python", 500), (9, 0, "12", "python", 5),
                                        (10, 1, "13", "python", 5)]}, ([], NOTE)),
    ({"smi_gpus": {0, 1}, "smi_procs": [(8, 0, "11", "python", 500), (9, 0, "11", "python", 5)]}, ([], NOTE)),
    ({"smi_procs": [(8, 0, "11", "python", 500), (9, 0, "12", "python", 5)]}, ([], NOTE)),
])
def test_ranks_on_one_gpu(kw, want):
    assert rd(_st(TWO, **kw)) == want


def test_ranks_on_one_gpu_lists_four_and_quotes_two():
    claims = [C(10 + i, rank=r, world=8, dev="cuda:1", text="  rank %d on cuda:1  " % r) for i, r in enumerate((5, 1, 3, 0, 2))]
    claims += [C(30, rank=1, world=8, dev="cuda:1"), C(31, rank=6, world=8, dev="cuda:2"),
               C(32, rank=7, world=8, dev="cuda:2", kind="hf", dist=True), C(33, rank=7, world=1, dev="cuda:2"),
               C(34, rank=None, world=8, dev="cuda:2"), C(35, rank=7, world=8, dev=None)]
    got = rd(_st(claims, nproc=(1, 6)))
    assert got == ([("torch.ranks_share_gpu", "ranks 0, 1, 2, 3 of 8 each print cuda:1 (line 13: rank 0 on cuda:1; "
                     "line 11: rank 1 on cuda:1), and --nproc-per-node 6 (line 1) puts ranks 0-5 on one node: the ranks "
                     "share one GPU", [13, 11, 14, 12], SHARE_FIX, True,
                     ["  rank 0 on cuda:1  ", "  rank 1 on cuda:1  ", "  rank 2 on cuda:1  ", "  rank 3 on cuda:1  "])],
                   [])
    # ranks 0-5 on a node of 5: not one node
    assert rd(_st(claims, nproc=(1, 5)))[0] == []
    # two devices with two ranks each: the first device only
    two = [C(1, rank=0, world=4, dev="cuda:1"), C(2, rank=1, world=4, dev="cuda:1"),
           C(3, rank=2, world=4, dev="cuda:0"), C(4, rank=3, world=4, dev="cuda:0")]
    got = rd(_st(two))
    assert len(got[1]) == 1 and got[1][0][0] == 3 and "ranks 2, 3 of 4 each print cuda:0" in got[1][0][1]


def test_a_process_on_gpu_0_besides_its_own():
    procs = [(8, 0, "11", "python", 300), (9, 1, "11", "python", 9000), (10, 0, "12", "python", 300),
             (11, 2, "12", "python", 600), (12, 0, "13", "python", 300), (13, 3, "13", "python", 599),
             (14, 0, "14", "python", 0), (15, 3, "14", "python", 1)]
    assert rd(_st(smi_procs=procs, smi_gpus={0, 1, 2, 3}, smi_text={8: "row 8", 10: "row 10"})) == (
        [("torch.gpu0_extra_memory", "nvidia-smi lists 2 processes that each hold memory on GPU 0 besides their own "
          "GPU (PID 11: 300 MiB on GPU 0, 9000 MiB on GPU 1; PID 12: 300 MiB on GPU 0, 600 MiB on GPU 2)", [8, 10],
          "local_rank = int(os.environ['LOCAL_RANK']); torch.cuda.set_device(local_rank) as the first CUDA call of "
          "each process (before the model, torch.load and init_process_group); torch.load(..., map_location='cpu')",
          True, ["row 8", "row 10"])], [])
    assert rd(_st(smi_procs=procs[:2] + procs[4:6], smi_gpus={0, 1, 3})) == ([], [])


def _alone(what, lines, texts):
    return ([("launcher.single_process", what, lines, ALONE_FIX, True, texts)], [])


@pytest.mark.parametrize("claims,want", [
    ([C(2, world=1, rank=0, who=(0, "0")), C(3, world=1, rank=0, who=(0, "1")), C(4, world=1, rank=0, who=(0, "1"))],
     _alone("2 processes (0, 1) each say world size 1: each runs alone, none was told the others' rank (lines 2, 3)",
            [2, 3], ["claim of line 2", "claim of line 3"])),
    ([C(5, kind="pl", world=1, rank=0), C(2, kind="pl", world=1, rank=0)],
     _alone("2 processes (line 2, line 5) each say world size 1: each runs alone, none was told the others' rank "
            "(lines 2, 5)", [2, 5], ["claim of line 2", "claim of line 5"])),
    ([C(2, world=1, rank=0, who=(0, None)), C(3, world=1, rank=0, who=(1, None)), C(4, world=2, who=(2, None)),
      C(6, world=1, kind="hf", who=(3, None))],
     _alone("2 processes (file 1, file 2) each say world size 1: each runs alone, none was told the others' rank "
            "(lines 2, 3)", [2, 3], ["claim of line 2", "claim of line 3"])),
    ([C(9 - i, world=1, who=(0, str(i))) for i in range(6)],
     _alone("6 processes (5, 4, 3, 2) each say world size 1: each runs alone, none was told the others' rank "
            "(lines 4, 5, 6, 7)", [4, 5, 6, 7], ["claim of line 4", "claim of line 5", "claim of line 6",
                                                  "claim of line 7"])),
])
def test_processes_each_a_world_of_one(claims, want):
    assert rd(_st(claims)) == want


def test_a_world_of_one_that_sees_several_gpus():
    assert rd(_st([C(2, world=1, rank=0, sees=2, text="rank 0 world_size 1 device cuda:0 (visible GPUs: 2)")])) == (
        [("launcher.single_process", "the script says world size 1 (line 2: rank 0 world_size 1 device cuda:0 (visible "
          "GPUs: 2)) and the process sees 2 GPUs (same line)", [2], "torchrun --nproc-per-node 2 train.py (or "
          "accelerate launch --multi_gpu --num_processes 2): plain `python train.py` starts one process, which uses "
          "one GPU", True, ["rank 0 world_size 1 device cuda:0 (visible GPUs: 2)"])], [])
    assert rd(_st([C(2, world=1, rank=0, text="  world 1  "), C(7, kind="hf", ngpu=4, dist=True, text=" hf " + "x" * 120)])) == (
        [("launcher.single_process", "the script says world size 1 (line 2: world 1) and the process sees 4 GPUs "
          "(hf %s)" % ("x" * 97), [2, 7], "torchrun --nproc-per-node 4 train.py (or accelerate launch --multi_gpu "
          "--num_processes 4): plain `python train.py` starts one process, which uses one GPU", True,
          ["  world 1  ", " hf " + "x" * 120])],
        [])
    assert rd(_st([C(2, world=1, rank=0)], smi_gpus={0, 1, 2}))[0][0][2] == [2]  # nvidia-smi's count: no line
    assert rd(_st([C(2, world=1, rank=0, sees=1)])) == ([], [])


HF_WHAT = ("transformers' 'n_gpu: 4, distributed training: False' (line 7): one process drives 4 GPUs through "
           "torch.nn.DataParallel (the Trainer wraps the model in it when n_gpu > 1 without a distributed launch)")
HF_FIX = ("torchrun --nproc-per-node 4 run_script.py ... (or accelerate launch --multi_gpu --num_processes 4): one "
          "process per GPU, DistributedDataParallel")


def test_transformers_data_parallel_is_a_note_or_with_a_complaint_the_root():
    hf = C(7, kind="hf", ngpu=4, dist=False, text="hf line")
    assert rd(_st([hf])) == ([], [(7, HF_WHAT, HF_FIX)])
    assert rd(_st([hf]), complaint=(9, "slow")) == ([("launcher.single_process", HF_WHAT, [7], HF_FIX, True,
                                                       ["hf line"])], [])
    assert rd(_st([C(7, kind="hf", ngpu=1, dist=False)])) == ([], [])
    assert rd(_st([C(7, kind="hf", ngpu=4, dist=True)])) == ([], [])


ACC_WHAT = "accelerate's state says 'Distributed environment: NO' (line 4) on a machine where nvidia-smi lists 2 GPUs"
ACC_FIX = ("accelerate launch --multi_gpu --num_processes 2 train.py (or `accelerate config`: distributed_type "
           "MULTI_GPU, num_processes 2)")


def test_accelerate_not_distributed_on_several_gpus():
    b = {"line": 4, "env": "NO", "device": "cuda:0", "text": "Distributed environment: NO"}
    assert rd(_st(acc=[b], smi_gpus={0, 1})) == ([], [(4, ACC_WHAT, ACC_FIX)])
    assert rd(_st(acc=[b], smi_gpus={0, 1}), complaint=(9, "x")) == (
        [("launcher.single_process", ACC_WHAT, [4], ACC_FIX, True, ["Distributed environment: NO"])], [])
    got = rd(_st([C(1, kind="hf", ngpu=2, dist=True, text="  seen  ")], acc=[b]), complaint=(9, "x"))
    assert got[0][0][1] == "accelerate's state says 'Distributed environment: NO' (line 4) on a machine where seen" \
        and got[0][0][2] == [4, 1]
    for other in (dict(b, env="MULTI_GPU"), dict(b, device="cpu"), {"line": 4, "env": "NO", "text": "t"}):
        got = rd(_st(acc=[other], smi_gpus={0, 1}), complaint=(9, "x"))
        assert all(f[0] != "launcher.single_process" for f in got[0]) and all(n[1] != ACC_WHAT for n in got[1])
    assert rd(_st(acc=[b], smi_gpus={0})) == ([], [])


CPU = {"line": 4, "env": "MULTI_GPU", "device": "cpu", "text": "  Device: cpu  "}
CPU_WHAT = "accelerate's state says Device: cpu (line 4: Device: cpu)"


@pytest.mark.parametrize("kw,complaint,want", [
    ({"acc": [{"line": 2, "env": "NO", "device": "cuda"}, CPU]}, None,
     ([], [(4, CPU_WHAT + ": if this machine has GPUs, accelerate was told to use the CPU", CPU_FIX)])),
    ({"acc": [CPU]}, (9, "slow"), ([("accelerate.runs_on_cpu", CPU_WHAT + ", and the text says the run is slow "
                                    "(line 9)", [4, 9], CPU_FIX, True, ["  Device: cpu  ", "slow"])], [])),
    ({"acc": [CPU], "smi_gpus": {0, 1, 2}}, (9, "slow"),
     ([("accelerate.runs_on_cpu", CPU_WHAT + " while nvidia-smi lists 3 GPUs", [4], CPU_FIX, True,
        ["  Device: cpu  "])], [])),
    ({"acc": [CPU], "pl_gpu": (1, "GPU available: True (cuda), used: False", True, False)}, None,
     ([("accelerate.runs_on_cpu", CPU_WHAT + " while GPU available: True (cuda), used: False", [4], CPU_FIX, True,
        ["  Device: cpu  "])], [])),
    ({"acc": [CPU], "pl_gpu": (1, "GPU available: False, used: False", False, False)}, None,
     ([], [(4, CPU_WHAT + ": if this machine has GPUs, accelerate was told to use the CPU", CPU_FIX)])),
    ({"pl_gpu": (1, " GPU available: True (cuda), used: False ", True, False)}, None,
     ([], [(1, "Lightning says a GPU is available but not used (line 1: GPU available: True (cuda), used: False)",
            PL_FIX)])),
    ({"pl_gpu": (1, "GPU available: True (cuda), used: False", True, False)}, (3, "x"),
     ([("accelerate.runs_on_cpu", "Lightning says a GPU is available but not used (line 1: GPU available: True "
        "(cuda), used: False)", [1], PL_FIX, True, ["GPU available: True (cuda), used: False"])], [])),
    ({"pl_gpu": (1, "GPU available: False, used: False", False, False)}, (3, "x"), ([], [])),
    ({"pl_gpu": (1, "GPU available: True (cuda), used: True", True, True)}, (3, "x"), ([], [])),
])
def test_on_the_cpu(kw, complaint, want):
    assert rd(_st(**kw), complaint) == want


def _same(n, rank, world, lines):
    return ([("launcher.same_rank", "%d processes each claim global rank %d of a world of %d (lines %s)" % (
        n, rank, world, ", ".join(str(x) for x in lines)), lines, SAME_FIX, True,
        ["claim of line %d" % x for x in lines])], [])


@pytest.mark.parametrize("claims,want", [
    ([C(2, kind="pl", rank=0, world=2), C(5, kind="pl", rank=0, world=2)], _same(2, 0, 2, [2, 5])),
    ([C(2, kind="pl", rank=1, world=3), C(5, kind="pl", rank=1, world=3), C(6, kind="pl", rank=0, world=3),
      C(7, kind="pl", rank=2, world=3)], _same(2, 1, 3, [2, 5])),  # Lightning's line is once per process
    ([C(2, rank=0, world=4, who=(0, "a")), C(5, rank=0, world=4, who=(0, "b")), C(6, rank=0, world=4, who=(0, "b"))],
     _same(2, 0, 4, [2, 5])),
    ([C(2 + i, rank=3, world=4, who=(0, str(i))) for i in range(5)], _same(5, 3, 4, [2, 3, 4, 5])),
    # every rank of the world printed: a print repeated, not two processes
    ([C(2, rank=0, world=2, who=(0, "a")), C(5, rank=0, world=2, who=(0, "b")), C(6, rank=1, world=2, who=(0, "b"))],
     ([], [])),
    ([C(2, rank=0, world=2, who=(0, "a")), C(5, rank=0, world=2, who=(0, "a"))], ([], [])),
    ([C(2, rank=0, world=2, who=(0, "a")), C(5, rank=0, world=2, who=(0, "b"), kind="hf", dist=True)], ([], [])),
    ([C(2, rank=0, world=None, who=(0, "a")), C(5, rank=0, world=None, who=(0, "b"))], ([], [])),
    ([C(2, kind="pl", rank=0, world=2)], ([], [])),
])
def test_two_processes_of_one_rank(claims, want):
    assert rd(_st(claims)) == want


def test_two_ranks_claimed_twice_the_first_by_rank():
    claims = [C(2, kind="pl", rank=1, world=4), C(3, kind="pl", rank=1, world=4), C(4, kind="pl", rank=0, world=4),
              C(5, kind="pl", rank=0, world=4)]
    assert rd(_st(claims)) == _same(2, 0, 4, [4, 5])


def test_survivors_of_the_rules_run():
    # nvidia-smi: torchrun's process counts as a python one; up to 4 idle GPUs named
    smi = {"smi_gpus": set(range(7)), "smi_procs": [(8, 0, "11", "python", 5), (9, 0, "12", "/usr/bin/torchrun", 5)]}
    got = rd(_st(TWO, **smi))
    assert got[0][0][1] == SAID + (", and nvidia-smi lists 2 python processes on GPU 0 and none on GPU 1, 2, 3, 4: the "
                                   "ranks share one GPU") and got[0][0][2] == [3, 4, 8]
    # the first device with two ranks, after one with a single rank; a quoted text cut at 80 characters
    long = "r" * 100
    claims = [C(1, rank=0, world=4, dev="cuda:0"), C(2, rank=1, world=4, dev="cuda:1", text=long),
              C(3, rank=2, world=4, dev="cuda:1")]
    assert rd(_st(claims))[1][0][1].startswith("ranks 1, 2 of 4 each print cuda:1 (line 2: %s; line 3: " % ("r" * 80))
    # the GPUs seen: the first of equal counts, a claim's count over nvidia-smi's equal one, a print's n_gpu unread
    assert L._gpus_seen(_st([C(1, sees=2), C(2, sees=2)], smi_gpus={0, 1})) == (2, 1, "claim of line 1")
    assert L._gpus_seen(_st([C(1, ngpu=8)])) == (0, None, None)
    assert L._gpus_seen(_st([C(1, kind="hf", ngpu=3, dist=True)], smi_gpus={0, 1, 2, 3})) == (
        4, None, "nvidia-smi lists 4 GPUs")
