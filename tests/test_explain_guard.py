"""Regression guards for `gpudoctor explain` while generated knowledge grows (issue 18): a
healthy line of a training log must stay free of prefilter hits (every hit makes its line a
candidate: the scan's cost), and answers that an older, more specific entry gave must not be
taken over by a broader new one.
"""

import pytest

from gpudoctor import explain
from gpudoctor.explain import scan
from gpudoctor.explain.knowledge import squash

# What a healthy training job prints on every step, by the thousands (bench/explain_bench.py's
# noise, plus the shapes of the HF Trainer, Lightning and DeepSpeed progress lines). Written here
# in the format those tools print; no error in any of them.
PROGRESS = [
    "[rank3]:[I1125 12:05:07.123456 4242 train.py:88] step 1200 loss=2.3456 lr=1.0e-04 grad_norm=0.812 tokens/s=51234",
    "2024-03-01 12:05:07,123 - INFO - Epoch 3 | iter 1200/100000 | loss 2.3456 | time 0.512s",
    "{'loss': 0.6931, 'grad_norm': 1.2345, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
    "Epoch 0:  42%|####2     | 420/1000 [01:07<01:33, 6.21it/s, loss=0.123, v_num=0, train_loss_step=0.118]",
    "[2024-03-01 12:05:07,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=1200, skipped=0, lr=[4.9e-05], "
    "mom=[(0.9, 0.999)]",
    "gpu-node-07:4242:99 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/IPC/read",
    "gpu-node-07:4242:99 [3] NCCL INFO comm 0x55cc8aa86c70 rank 3 nranks 16 cudaDev 3 busId 1c000 - Init COMPLETE",
    "Training:  42%|####      | 1200/100000 [01:07<02:10, 7.61it/s]",
]


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


# printed once, when training ends: read as the run's end (knowledge.STRUCTURAL _struct_completed), one hit a run
END_OF_RUN = "{'train_runtime': 812.3, 'train_samples_per_second': 61.5, 'train_steps_per_second': 0.96, 'train_loss': 1.234}"


def test_the_end_of_run_metrics_hit_only_the_completion_pattern(kb):
    hits = {p.entry for found in scan._hits(kb, squash(END_OF_RUN.encode())) for _, n in found for p in kb.by_hit[n]}
    assert hits == {"_struct_completed"}, hits


@pytest.mark.parametrize("line", PROGRESS)
def test_a_training_progress_line_has_no_prefilter_hit(kb, line):
    # usercode.nan_inf's evidence 'loss[^\n]{0,40}nan' had the needle 'loss': every step's line was a
    # candidate and the 100 MB benchmark log took 22 s of CPU instead of 4.6 s
    hits = [n for found in scan._hits(kb, squash(line.encode())) for _, n in found]
    assert hits == [], [(n, sorted({p.entry for p in kb.by_hit[n]})) for n in hits]


@pytest.mark.parametrize("line", [
    "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.5}",  # the HF Trainer's log dict
    "Loss is nan, stopping training",  # the print of MAE's / DETR's engine_pretrain.py
    "epoch 3 step 10 loss: tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
    "step 40 loss=inf lr=0.1",
])
def test_a_non_finite_loss_is_still_evidence_of_divergence(kb, line):
    text = "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.\n" + line + "\n"
    res = explain.explain_text(text.encode(), kb)
    root = res["findings"][0]
    assert res["root"] == "usercode.nan_inf"
    assert root["causes"][0]["text"].startswith("The training diverged")
    assert [e["text"] for e in root["causes"][0]["evidence"]] == [line]


@pytest.mark.parametrize("line,entry", [
    # Slurm's auth/munge plugin prints munge's own text after its own (auth_munge.c 'Munge decode
    # failed: %s', munge_strerror's texts of dun/munge src/libmunge/strerror.c); lines written here
    ("slurmd[1234]: error: Munge decode failed: Expired credential", "munge.clock_skew"),
    ("srun: error: Munge decode failed: Invalid credential", "munge.key_mismatch"),
])
def test_a_munge_answer_keeps_slurms_authentication_family(kb, line, entry):
    # munge's generated entries name the cause; before them slurm.auth answered these lines, and a
    # more specific answer must not move the family (the family right / confidently wrong scores)
    res = explain.explain_text((line + "\n").encode(), kb)
    root = res["findings"][0]
    assert (res["verdict"], root["id"], root["family"]) == ("root_cause", entry, "slurm.auth")


@pytest.mark.parametrize("ch", "*=-#~_")
def test_a_separator_row_is_no_error(kb, ch):
    # rows of one character frame banners everywhere (torchrun's OMP_NUM_THREADS notice in
    # torch/distributed/run.py, DeepSpeed's and pytest's headers); opal_info's [developer warning:
    # field too long] help topic starts with 74 '*' and matched any such row as mpi.error
    for n in (20, 41, 74, 80, 120):
        text = "epoch 1 done\n" + ch * n + "\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default\n" \
            + ch * n + "\n"
        res = explain.explain_text(text.encode(), kb)
        assert (res["verdict"], res["findings"]) == ("no_error", []), (n, [f["id"] for f in res["findings"]])


def test_an_open_mpi_component_line_is_found_by_its_component_prefix(kb):
    # the structural MCA patterns (knowledge.STRUCTURAL _struct_mpi) had the error words as needles:
    # every line with 'enabled', 'error' or 'failed' was a candidate for nine of them
    mca = [p for p in kb.patterns if p.entry == "_struct_mpi" and "(?P<mca>" in p.source]
    assert len(mca) == 9
    for p in mca:
        fw = p.source.split("(?P<mca>")[1].split(")")[0]
        assert p.needles_b == [(fw + "_").encode()], p.source
    line = ("[node1:01234] btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected "
            "process identifier [[1234,1],1]: connect() to 10.0.0.2 failed: Connection refused (111)\n")
    res = explain.explain_text(line.encode(), kb)
    assert res["verdict"] == "root_cause" and res["findings"][0]["family"].startswith("mpi."), res["root"]


@pytest.mark.parametrize("line, root", [
    # any logger's bare '[ERROR] <errno text>' (Maven, Python logging) is not enroot's
    ("[ERROR] No such file or directory", None),
    ("2024-03-01 12:05:07 [ERROR] Failed to mount the volume", None),
    # enroot's own common::err texts name what they could not find (src/common.sh:150 'No such file or
    # directory: %s', src/runtime.sh:215 'Failed to mount: %s', https://github.com/NVIDIA/enroot)
    ("[ERROR] No such file or directory: /shared/images/pytorch.sqsh", "enroot.error"),
    ("pyxis:     [ERROR] Failed to mount: /run/enroot/pyxis_42", "enroot.error"),
])
def test_enroots_generic_error_needs_enroots_own_text(kb, line, root):
    res = explain.explain_text((line + "\n").encode(), kb)
    assert res.get("root") == root, (res["verdict"], res.get("root"))


def test_a_bare_connection_reset_is_not_an_nccl_answer(kb):
    # issue 18 item 3: a generic phrase alone names no specific cause. Python's ConnectionResetError
    # (any socket: Gloo, TCPStore, a DataLoader's HTTP fetch) was answered as ncclRemoteError
    res = explain.explain_text(b"ConnectionResetError: [Errno 104] Connection reset by peer\n", kb)
    assert "nccl.remote_error" not in [f["id"] for f in res["findings"]], res["findings"]
    # NCCL's own line keeps it (misc/socket.cc socketProgressOpt, https://github.com/NVIDIA/nccl)
    line = (b"node1:123:456 [0] misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<4567> "
            b"failed : Connection reset by peer\n")
    assert explain.explain_text(line, kb)["root"] == "nccl.remote_error"
