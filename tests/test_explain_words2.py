"""Symptoms told in words from the documents that describe them (knowledge/symptoms_usage.toml, the new classes of
explain/meaning.py; issue 18, words2). The real texts are users' own words from the public threads cited beside
each; the paraphrase sets (bench/data/symptom_paraphrases4*.jsonl) were written here from the docs."""

import json
import os

import pytest

from gpudoctor.explain import explain_text, meaning
from explainhelp import ANSWERED

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

REAL = [
    # charlesCXK/TorchSemiSeg#8
    ("There is the problem, I run the code reveral times, and each time the loss is different. Are there any random "
     "seeds haven't been fixed.", "torch.not_reproducible"),
    # psunlpgroup/CONTaiNER#6 ('fixed seed' is no fix: meaning._SOLVED)
    ("hello, when i run the code,i find that i can't get the same loss or f1 score with fixed seed.",
     "torch.not_reproducible"),
    # hiyouga/LlamaFactory#253 (title: ZeRO-3 full fine-tuning saved a pytorch_model.bin of 905 kB)
    ("deepspeed ZeRO stage3 全量微调baichuan13b模型 保存的模型（pytorch_model.bin）只有905kb", "deepspeed.zero3_save_empty"),
    # ssbuild/chatglm_finetuning#212 (title: the weights saved under stage 3 have dimension 0)
    ("Deepspeed stage3保存模型权重维度为0", "deepspeed.zero3_save_empty"),
    # bcbio/bcbio-nextgen-vm#159
    ("But when I log into the head node and try to submit a job to the queue, the job is never executed and remains "
     "pending.", "slurm.job_pending_words"),
    # rcgsheffield/sheffield_hpc#1563 (the FAQ entry's question)
    ("I submitted a job and after several days it is still waiting in the queue. How can I resolve this?",
     "slurm.job_pending_words"),
    # open-mmlab/OpenPCDet#886
    ("Hi, I see the randomness in data augmentation uses random in NumPy. But this will lead to the same randomness "
     "between different workers in the same dataloader when it forks multiple processes.", "torch.dataloader_same_random"),
    # WongKinYiu/yolov7#72
    ("Training works fine but as soon as validation step comes in it goes out of memory.", "torch.eval_oom"),
    # catalyst-team/catalyst#143
    ("My model uses only 80% of GPU during training. However, in validation step, It is out of memory.", "torch.eval_oom"),
]


def _root(kb, text):
    r = explain_text(text, kb)
    return r["root"] if r["verdict"] in ANSWERED else None


@pytest.mark.parametrize("text,want", REAL, ids=[w + ":" + t[:30] for t, w in REAL])
def test_real_words_name_the_symptom(kb, text, want):
    assert _root(kb, text) == want


def test_family_is_the_existing_one_and_several_causes_say_how_sure_low(kb):
    r = explain_text("the loss does not decrease at all, it stays at 2.30 for every epoch", kb)
    f = r["findings"][0]
    assert f["id"] == "torch.loss_not_decreasing" and f["family"] == "torch.usage" and f["confidence"] == "family"
    assert any("zero_grad" in x for c in f["causes"] for x in c["fix"]) and f["notes"][0].startswith("How sure: low")


def test_a_cause_named_elsewhere_in_the_text_moves_first(kb):
    # the zero_grad line is the script's, not the user's words: it points at the first cause (How sure: medium)
    r = explain_text("the loss never goes down\n    loss.backward()\n    optimizer.zero_grad()\n    optimizer.step()", kb)
    f = r["findings"][0]
    assert f["id"] == "torch.loss_not_decreasing" and "zero_grad" in f["causes"][0]["text"]
    assert f["causes"][0]["evidence"] and f["notes"][0].startswith("How sure: medium")


def test_ev_a_slow_run_is_a_debug_setting_only_beside_the_setting(kb):
    assert _root(kb, "Training is much slower than it should be.") != "torch.slow_debug_setting"
    r = explain_text("Training is much slower than it should be.\nCUDA_LAUNCH_BLOCKING=1\nstep 10 loss 0.3", kb)
    assert r["root"] == "torch.slow_debug_setting" and "CUDA_LAUNCH_BLOCKING" in r["findings"][0]["causes"][0]["text"]
    # (written here) with the job's env dump and NCCL's banner after the user's words
    r = explain_text("Same script, but on this node it runs much slower than last week.\n\nCUDA_LAUNCH_BLOCKING=1\n"
                     "NCCL_DEBUG=WARN\nNCCL version 2.28.9+cuda13.0\nworld size 2\n[rank 0] step 50 loss 0.039 11.0 ms/step\n", kb)
    assert r["root"] == "torch.slow_debug_setting"


@pytest.mark.parametrize("text", [
    "step 100 loss 2.30\nstep 200 loss 1.95\nstep 300 loss 1.71",
    "Submitted batch job 4242\njob 4242 pending (Priority), started after 2 minutes, finished fine",
    "saved checkpoint to ckpt/epoch_3.pt (412 MB)",
    "mpirun -np 4 python train.py\nrank 0 of 4 ready\nrank 1 of 4 ready",
    "the seed is fixed and the results are identical between runs now, solved",
    "但是发现对比单卡同样参数设置的模型，多卡的精度会大幅下降",  # parameter *settings* (tczhangzhi/pytorch-distributed#3)
])
def test_no_new_symptom_on_ordinary_lines(kb, text):
    # only the last line is a symptom: the existing one (test_explain_meaning.REAL), not a new class's
    want = "torch.loss_differs_multi_gpu" if "多卡的精度" in text else None
    assert _root(kb, text) == want


def test_nan_told_with_several_gpus_in_the_line_is_not_the_training_math(kb):
    # '!!': absent from the whole line (a NaN that only multi-GPU runs show is a transport or GPU question)
    assert _root(kb, "the loss becomes nan after 300 steps") == "torch.loss_nan"
    assert _root(kb, "I have nan in the losses. It happens only when I use multiple GPUs.") != "torch.loss_nan"


def test_a_sentence_that_only_names_the_tool_is_read_with_the_next(kb):
    # (written here) meaning.TOPICS: the line naming mpiexec has no predicate; the next line's alone is the sampler's
    assert _root(kb, "I launch the job with mpiexec -n 4.\nEach process trains on the whole dataset and they print "
                     "identical logs.") == "mpi.every_rank_zero"
    assert _root(kb, "We use FSDP with 8 GPUs. The loss is 2.30 at every step.") == "torch.fsdp_params_not_updated"
    assert _root(kb, "We use FSDP with 8 GPUs and mpirun.") is None


def test_paraphrase_sets_floor(kb):
    # docs/explain.md "Symptoms from the documents that describe them": set 4's check half 29/30, fresh 26/28, set 5's
    # check half 12/13
    for name, lines, floor in (("symptom_paraphrases4", range(2, 62, 2), 28), ("symptom_paraphrases4_fresh", range(1, 29), 25),
                               ("symptom_paraphrases5", range(2, 27, 2), 11)):
        with open(os.path.join(ROOT, "bench", "data", name + ".jsonl"), encoding="utf-8") as f:
            cases = [json.loads(x) for i, x in enumerate(f, 1) if i in lines]
        got = [_root(kb, c["text"]) for c in cases]
        assert sum(g == c["want"] for g, c in zip(got, cases)) >= floor
        assert not [g for g, c in zip(got, cases) if g is not None and g != c["want"]]  # no wrong root


def test_new_classes_are_linear_time():
    lines = ["runs " * 150, "not " * 150 + "x", "stays " * 150, "the job " * 100, "grows " * 100 + "x",
             "print the same " * 50, "no error " * 80, "is 1.0 at every " * 40, "一直在 " * 150, "zero3 save empty " * 40]
    for s in lines:  # their CPU time (bound 1 s): bench/cpu_bounds.py
        for _ in range(5):
            got = meaning.classes(s)
            assert got is None or (isinstance(got["idx"], list) and isinstance(got["figs"], list)), (s[:20], got)
