"""Failures told in words (gpudoctor/data/knowledge/symptoms.toml, gpudoctor/explain/symptoms.py,
issue 18): a user's sentence with no error line names the symptom's family and the causes its docs
list, told apart; an error line explain knows stays the root; healthy lines that mention the same
words (CUDA_VISIBLE_DEVICES=0,1, NCCL's INFO lines) never match.

The real wordings below are titles and sentences of public threads, cited at each; none comes from
bench/data/explain_heldout_* or from the held-out sets being collected."""

import os
import re
import textwrap

import pytest
from explainhelp import ANSWERED, root_of

from gpudoctor.explain import KnowledgeError, explain_text, load_knowledge
from gpudoctor.explain import symptoms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def answer(kb, text):
    res = explain_text(text, kb=kb, source="paste.txt")
    return res, root_of(res)


# (what the user wrote, the symptom): several phrasings of each, in other word orders, with GPU 0 as
# "GPU 0" / "cuda:0" / "device 0" and node as node / machine / host
VARIANTS = [
    ("DeepSpeed ignores CUDA_VISIBLE_DEVICES and uses all GPUs", "deepspeed.visible_devices_ignored"),
    ("CUDA_VISIBLE_DEVICES=2,3 is not respected by deepspeed", "deepspeed.visible_devices_ignored"),
    ("deepspeed still uses all 8 GPUs", "deepspeed.visible_devices_ignored"),
    ("deepspeed only runs on one node even though I have two", "deepspeed.single_node_only"),
    ("with deepspeed the second node is idle", "deepspeed.single_node_only"),
    ("NCCL_SOCKET_IFNAME is not passed to the other nodes by deepspeed", "deepspeed.env_not_on_remote"),
    ("accelerate runs on CPU", "accelerate.runs_on_cpu"),
    ("the HF Trainer is training on the cpu instead of the GPU", "accelerate.runs_on_cpu"),
    ("accelerate only uses one GPU", "accelerate.one_gpu_only"),
    ("both ranks end up on GPU 0", "torch.ranks_share_gpu"),
    ("all processes use cuda:0", "torch.ranks_share_gpu"),
    ("every process runs on device 0", "torch.ranks_share_gpu"),
    ("two processes share the same GPU with torchrun", "torch.ranks_share_gpu"),
    ("each rank allocates extra memory on GPU 0", "torch.gpu0_extra_memory"),
    ("torchrun rendezvoused with itself on each node", "elastic.nodes_alone"),
    ("each node trains alone (world size 1 per node)", "elastic.nodes_alone"),
    ("both machines train separately", "elastic.nodes_alone"),
    ("rendezvous on localhost:0", "elastic.rendezvous_localhost"),
    ("MASTER_ADDR is 127.0.0.1 on the second node", "elastic.rendezvous_localhost"),
    ("setting os.environ CUDA_VISIBLE_DEVICES has no effect", "cuda.visible_devices_no_effect"),
    ("nvidia-smi and pytorch GPU ids do not match", "cuda.device_order_differs"),
    ("torch.cuda.is_available() is False inside srun", "slurm.step_without_gpus"),
    ("no GPUs found in my sbatch job", "slurm.step_without_gpus"),
    ("under srun all tasks use GPU 0", "slurm.tasks_same_gpu"),
    ("inside slurm CUDA_VISIBLE_DEVICES is always 0", "slurm.visible_devices_renumbered"),
    ("sbatch with 2 nodes: the job only runs on the first node", "slurm.one_node_used"),
    ("srun starts too many processes with torchrun", "slurm.launcher_times_tasks"),
    ("NCCL falls back to sockets", "nccl.falls_back_to_sockets"),
    ("NCCL uses TCP instead of InfiniBand", "nccl.falls_back_to_sockets"),
    ("GPUDirect RDMA is not enabled", "nccl.gdr_not_used"),
    ("P2P is disabled between the GPUs", "nccl.p2p_not_used"),
    ("throughput drops after adding a second node", "nccl.slow_across_nodes"),
    ("training on two machines is slower than on one", "nccl.slow_across_nodes"),
    ("NCCL picks the wrong network interface", "nccl.wrong_interface"),
    ("NCCL over RoCE v2 is slow", "nccl.roce_not_working"),
    ("GPUs not visible in docker", "container.gpus_not_visible"),
    ("the container can't see the GPU", "container.gpus_not_visible"),
    ("/dev/shm is only 64M in the container", "container.shm_too_small"),
    ("GPUs disappear from the container after a while", "container.gpus_lost_later"),
    ("mpirun does not pass environment variables to the remote nodes", "mpi.env_not_passed"),
    ("every process thinks it is rank 0 when I use mpirun", "mpi.every_rank_zero"),
    ("mpirun puts all processes on the same host", "mpi.ranks_on_first_node"),
    ("only one node's GPUs are used", "launcher.one_node_used"),
]


@pytest.mark.parametrize("text,want", VARIANTS, ids=[v[1] + ":" + v[0][:30] for v in VARIANTS])
def test_each_wording_names_its_symptom(kb, text, want):
    res, root = answer(kb, text)
    assert res["verdict"] in ANSWERED and root["id"] == want, (text, res["verdict"], root and root["id"])
    assert root["from_words"] and root["references"][0]["url"].startswith("https://")


# Real wordings of public threads (titles and sentences as their authors wrote them)
REAL = [
    # deepspeedai/DeepSpeed#662 (title; the launcher sets the variable itself, the thread's answer):
    # https://github.com/deepspeedai/DeepSpeed/issues/662
    ("CUDA_VISIBLE_DEVICES isn't being respected / hostfile doesn't quite work for one node",
     "cuda.visible_devices_no_effect"),
    # deepspeedai/DeepSpeed#5818 (title): https://github.com/deepspeedai/DeepSpeed/issues/5818
    ("[BUG] Launcher does not honor CUDA_VISIBLE_DEVICES", "cuda.visible_devices_no_effect"),
    # pytorch/examples#969 (title; a torch.load without map_location, the thread's answer):
    # https://github.com/pytorch/examples/issues/969
    ("DDP: why does every process allocate memory of GPU 0 and how to avoid it?", "torch.gpu0_extra_memory"),
    # areal-project/AReaL#639 (title, and the first sentence of its description):
    # https://github.com/areal-project/AReaL/issues/639
    ("[BUG] NCCL uses Socket instead of InfiniBand on NA132 cluster", "nccl.falls_back_to_sockets"),
    ("Cross-node collective operations (AllReduce, Broadcast) are 4-5x slower than expected due to NCCL falling "
     "back to Socket transport instead of InfiniBand.", "nccl.falls_back_to_sockets"),
    # pmodels/mpich#1454 and #1031 (titles): https://github.com/pmodels/mpich/issues/1454,
    # https://github.com/pmodels/mpich/issues/1031
    ("mpiexec.hydra does not transfer environment", "mpi.env_not_passed"),
    ("mpiexec doesn't pass LD_LIBRARY_PATH env variable to the processes", "mpi.env_not_passed"),
    # NVIDIA/MinkowskiEngine#429 and pytorch/pytorch#18690 (titles; --gpus / nvidia-docker, the answers):
    # https://github.com/NVIDIA/MinkowskiEngine/issues/429, https://github.com/pytorch/pytorch/issues/18690
    ("torch.cuda.is_available() returns False in docker", "container.gpus_not_visible"),
    ("torch.cuda.is_available() is False in container created by pytorch images downloaded from dockerhub",
     "container.gpus_not_visible"),
]


@pytest.mark.parametrize("text,want", REAL, ids=[r[1] + ":" + r[0][:30] for r in REAL])
def test_real_wordings_of_public_threads(kb, text, want):
    res, root = answer(kb, text)
    assert root is not None and root["id"] == want, (text, res["verdict"], root and root["id"])


def test_words_alone_name_the_family_and_how_to_tell_the_causes_apart(kb):
    """Never one cause from a generic phrase: a low answer listing the docs' causes, each with a confirm."""
    res, root = answer(kb, "NCCL falls back to sockets")
    assert root["confidence"] == "family" and root["notes"][0].startswith("How sure: low. Read from your words")
    assert len(root["causes"]) >= 3 and not any(c["evidence"] for c in root["causes"])
    assert all(c["confirm"] for c in root["causes"]), [c["text"][:40] for c in root["causes"]]
    fixes = " ".join(f for c in root["causes"] for f in c["fix"])
    assert "NCCL_IB_DISABLE" in fixes and "/dev/infiniband" in fixes


def test_a_line_of_the_text_moves_its_cause_first(kb):
    """The launch line pasted with the words names the cause (DeepSpeed ignores the variable when
    --num_gpus is given): that cause first, with its line, how sure: medium."""
    text = ("DeepSpeed ignores CUDA_VISIBLE_DEVICES and uses all GPUs\n"
            "$ CUDA_VISIBLE_DEVICES=2,3 deepspeed --num_gpus 2 train.py --deepspeed ds.json\n")
    res, root = answer(kb, text)
    assert root["id"] == "deepspeed.visible_devices_ignored" and root["confidence"] == "cause"
    first = root["causes"][0]
    assert "--num_gpus" in first["text"] and first["evidence"][0]["line"] == 2
    assert "--include localhost:1,2" in first["fix"][0]
    assert root["notes"][0].startswith("How sure: medium")
    # the broader reading of the same line (cuda.visible_devices_no_effect) is no second note
    assert not [n for n in res["context"] if n["severity"] == "words"]


def test_an_error_line_stays_the_root_and_the_words_are_context(kb):
    """NCCL's own 'Duplicate GPU detected' (NCCL src/init.cc) is the root; the user's sentence is a note."""
    text = textwrap.dedent("""\
        both ranks end up on GPU 0, then it crashes:
        host:123:456 [1] init.cc:1270 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000
        RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, invalid usage, NCCL version 2.14.3
        """)
    res, root = answer(kb, text)
    assert root["id"] == "nccl.duplicate_gpu" and not root.get("from_words")
    notes = [n for n in res["context"] if n["severity"] == "words"]
    assert [n["id"] for n in notes] == ["torch.ranks_share_gpu"] and notes[0]["first_line"] == 1
    assert not any(f["id"] == "torch.ranks_share_gpu" for f in res["findings"])


HEALTHY = [
    # an environment dump and a launch line that mention the same names in passing
    "CUDA_VISIBLE_DEVICES=0,1\nNCCL_IB_DISABLE=1\nMASTER_ADDR=127.0.0.1\n",
    "export CUDA_VISIBLE_DEVICES=0,1\n$ CUDA_VISIBLE_DEVICES=0,1 torchrun --standalone --nproc_per_node=2 train.py\n",
    # NCCL's own INFO lines (src/transport/net_ib.cc, net_socket.cc) as a working run prints them
    "vm:1558:1558 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'\n"
    "vm:1558:1558 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
    "vm:1558:1558 [0] NCCL INFO Using network Socket\n",
    # DeepSpeed's launcher lines (deepspeed/launcher/runner.py) on a working single-node run
    "[2024-02-06 10:28:20,906] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with "
    "training with local resources only.\nDetected CUDA_VISIBLE_DEVICES=1: setting --include=localhost:1\n",
    # cuda-samples' p2pBandwidthLatencyTest output
    "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n     0 770.54  11.42\n",
    # gpudoctor's own report line
    "N/A  rdma.ports        no RDMA device: NCCL will use TCP sockets\n",
    # a launch line: what was run (one node's rendezvous on localhost is right), not what was seen
    "$ python -u -m torch.distributed.run --nproc_per_node=1 --rdzv-endpoint localhost:6000 --rdzv_backend c10d x.py\n",
    "CUDA_VISIBLE_DEVICES=2,3 deepspeed --num_gpus 2 train.py --deepspeed ds.json\n",
    # the user saying it is all right, or describing how it should be
    "deepspeed uses all GPUs as expected\n",
    "each process uses one GPU\n",
]


@pytest.mark.parametrize("text", HEALTHY, ids=range(len(HEALTHY)))
def test_healthy_lines_that_mention_the_words_do_not_match(kb, text):
    res, root = answer(kb, text)
    assert not (root and root.get("from_words")), root and root["id"]
    assert not [n for n in res["context"] if n["severity"] == "words"]


def test_healthy_logs_have_no_words(kb):
    """The healthy logs of fixtures/logs/healthy hold no sentence a symptom reads (their bodies)."""
    from gpudoctor.explain.scan import Scan, scan_stream
    import io

    folder = os.path.join(ROOT, "fixtures", "logs", "healthy")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".log"))
    assert len(names) >= 20
    for n in names:
        with open(os.path.join(folder, n), "rb") as f:
            body = f.read().partition(b"# ---\n")[2]
        sc = Scan()
        scan_stream(io.BytesIO(body), kb, sc, n)
        assert symptoms.found(sc, kb) == [], n


def test_the_table_covers_every_area_and_cites_its_docs(kb):
    entries = [e for e in kb.entries if "words" in e]
    assert len(entries) >= 25
    areas = {e["id"].split(".")[0] for e in entries}
    assert {"deepspeed", "accelerate", "elastic", "torch", "slurm", "nccl", "container", "mpi"} <= areas
    for e in entries:
        assert e["structural"] and e["references"] and all(r["url"].startswith("https://") for r in e["references"])
        assert all(c["fix"] for c in e["causes"])
        if len(e["causes"]) > 1:  # several causes: each says how to tell it apart (confirm, or evidence in the text)
            assert all(c["confirm"] or c["evidence"] for c in e["causes"]), e["id"]
    # every way anchors on needles of 4+ characters (or a rare three-letter name) that the prefilter finds
    for p in [p for p in kb.patterns if p.entry.startswith(symptoms.PREFIX)]:
        assert all(len(n) >= 4 or n in symptoms._RARE3 for n in p.needles_b), (p.entry, p.needles)


def test_a_way_without_an_anchor_is_refused_at_load(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(textwrap.dedent("""\
        [[entry]]
        id = "x.words"
        title = "t"
        rank = 40
        structural = true
        words = [["\\\\bis\\\\b", "\\\\bit\\\\b"]]
        explain = "e"
        [[entry.causes]]
        text = "c"
        fix = ["f"]
        [[entry.references]]
        title = "r"
        url = "https://example.org/"
        """))
    with pytest.raises(KnowledgeError, match="prefilter"):
        load_knowledge(files=[str(path)], known_checks=None)


def test_the_words_patterns_stay_linear_on_long_lines(kb):
    """Lookaheads bounded to SPAN characters: a 4 KiB line of near-misses takes milliseconds."""
    pats = [p for p in kb.patterns if p.entry.startswith(symptoms.PREFIX)]
    line = ("deepspeed cuda_visible_devices all ranks gpu 0 srun nccl back to " * 70)[:4096]
    for p in pats:  # their CPU time (bound 0.5 s a 50 patterns): bench/cpu_bounds.py
        p.regex.search(line)
    assert re.match(r"\^\(\?=\.\{0,%d\}\?" % symptoms.SPAN, pats[0].source)


def test_the_hang_triage_gives_way_to_the_symptom_and_follows_it(kb):
    """'very slow' alone is the hang triage's family answer (nccl.hang); the words name what was seen."""
    res, root = answer(kb, "NCCL falls back to sockets and training is very slow across 2 nodes")
    assert root["id"] == "nccl.falls_back_to_sockets" and root["role"] == "root"
    assert [f["id"] for f in res["findings"][1:]] == ["nccl.hang"] and res["findings"][1]["role"] == "related"


def test_an_answer_from_nccl_info_lines_stays_the_root():
    """areal-project/AReaL#639 with its NCCL line (https://github.com/areal-project/AReaL/issues/639): ncclinfo's
    answer from 'NET/Socket : Using [0]bond0' stays; the sentence is a note."""
    kb = load_knowledge()
    text = ("Cross-node collective operations (AllReduce, Broadcast) are 4-5x slower than expected due to NCCL "
            "falling back to Socket transport instead of InfiniBand.\n\nNCCL logs show:\n```\n"
            "NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>\n```\n")
    res, root = answer(kb, text)
    assert root["id"] == "nccl.ib_no_device"
    assert [n["id"] for n in res["context"] if n["severity"] == "words"] == ["nccl.falls_back_to_sockets"]


# what a healthy job prints by the thousands: no line of it may be a candidate of a words pattern (each candidate
# costs the scan; tests/test_explain_guard.py holds the same rule for every pattern)
BUSY_LINES = [
    "[rank3]:[I1125 12:05:07.123456 4242 train.py:88] step 1200 loss=2.3456 lr=1.0e-04 grad_norm=0.812",
    "gpu-node-07:4242:99 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/IPC/read",
    "gpu-node-07:4242:99 [3] NCCL INFO comm 0x55cc8aa86c70 rank 3 nranks 16 cudaDev 3 busId 1c000 - Init COMPLETE",
    "gpu-node-07:4242:99 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/0/GDRDMA",
    "[2024-03-01 12:05:07,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=1200, skipped=0, lr=[4.9e-05]",
    "{'loss': 0.6931, 'grad_norm': 1.2345, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
    "tensor([0.1, 0.2], device='cuda:0', grad_fn=<AddBackward0>)",
]


@pytest.mark.parametrize("line", BUSY_LINES, ids=range(len(BUSY_LINES)))
def test_a_busy_log_line_is_no_candidate_of_the_words(kb, line):
    from gpudoctor.explain import scan
    from gpudoctor.explain.knowledge import squash

    hits = {p.entry for found in scan._hits(kb, squash(line.encode())) for _, n in found for p in kb.by_hit[n]}
    assert not [e for e in hits if e.startswith(symptoms.PREFIX)], hits


# transformers' own warning (src/transformers/models/auto/image_processing_auto.py, AutoImageProcessor.from_pretrained,
# https://github.com/huggingface/transformers/blob/v4.48.0/src/transformers/models/auto/image_processing_auto.py),
# printed on healthy runs: the program's words, no complaint
SLOW_PROCESSOR = ("Using a slow image processor as `use_fast` is unset and a slow processor was saved with this model. "
                  "`use_fast=True` will be the default behavior in v4.52, even if the model was saved with a slow "
                  "processor. This will result in minor differences in outputs. You'll still be able to use a slow "
                  "processor with `use_fast=False`.")


@pytest.mark.parametrize("line", [
    SLOW_PROCESSOR,
    "# this makes every step much slower, only for debugging",  # a comment of the job script
    "if slow_mode == True: print('training is very slow')",  # a line of Python
])
def test_a_program_or_code_line_is_no_told_symptom(line):
    # settings.py's refusals (_PROGRAM, _CODE) hold for symptoms.py's readers too: the export beside such a line was
    # torch.slow_debug_setting's root, read from the words of the program or the code
    text = "export CUDA_LAUNCH_BLOCKING=1\n%s\nepoch 1 loss 0.3\n" % line
    r = explain_text(text)
    assert r["verdict"] == "no_error" and not r["findings"], [f["id"] for f in r["findings"]]
    # the user's own sentence beside the same export still is one
    r = explain_text("export CUDA_LAUNCH_BLOCKING=1\nTraining is much slower than on my other machine, about 3x.\n")
    assert r["findings"][0]["id"] == "torch.slow_debug_setting"


@pytest.mark.parametrize("line", [
    "for some reason the training is much slower than on my other machine, about 3x.",
    "from the second epoch on, training is much slower than on my other machine, about 3x.",
])
def test_a_sentence_that_begins_with_a_python_keyword_is_still_told(line):
    # settings._CODE counts a keyword at a line's start only in a statement's shape (review13-a): these sentences, in
    # lower case, were refused as code and the export beside them was no longer the answer (it was at 80c39cc)
    r = explain_text("export CUDA_LAUNCH_BLOCKING=1\n%s\n" % line)
    assert r["findings"] and r["findings"][0]["id"] == "torch.slow_debug_setting", [f["id"] for f in r["findings"]]
