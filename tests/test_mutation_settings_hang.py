"""Cases for the mutants of settings.py's hang rows (docs/mutation.md, round 8): _hang_told (the user's words read as
hang.py reads a hang; a slow run is not one) and judge()'s branch that puts a setting which keeps a stuck collective
from failing after the hang answer's first cause, in the order found, with the note naming each setting and its line.
The settings and their meanings are PyTorch's ProcessGroupNCCL variables
(https://pytorch.org/docs/stable/torch_nccl_environment_variables.html) and transformers' TrainingArguments.ddp_timeout;
the NCCL lines are the INFO lines NCCL 2.21 prints at init (the form of tests/test_explain_settings.py's STUCK_INFO)."""

from gpudoctor.explain import explain_text

STUCK_INFO = ("node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
              "node1:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
              "node1:1234:1250 [0] NCCL INFO comm 0x5555 rank 0 nranks 16 cudaDev 0 busId 1c000 - Init COMPLETE\n"
              "The job is stuck at the first all_reduce forever.\n")
CMD = "python -m torch.distributed.run --nproc_per_node 4 run_clm.py --ddp_timeout %d --bf16\n"
TOLD = "Training hangs at step 1200 on 4 GPUs with no output for hours.\n"
ASYNC = "export TORCH_NCCL_ASYNC_ERROR_HANDLING=0\n"
MON = "export TORCH_NCCL_ENABLE_MONITORING=0\n"
NOTE = ("Your words tell a job that hangs (line %d), and the text sets %s: the cause below says why it waits instead of "
        "failing at the process group's timeout.")


def _root(text):
    r = explain_text(text)
    return r, (r["findings"][0] if r["findings"] else None)


def _heads(root):
    return [c["text"].split(":", 1)[0] for c in root["causes"]]


def _said(root):
    return [n for n in root["notes"] if n.startswith("Your words tell")]


def test_settings_follow_the_first_cause_in_order():
    plain = _root(STUCK_INFO)[1]
    for text, heads, told, note in [
        (ASYNC + MON + STUCK_INFO, ["TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1, an environment setting)",
                                    "TORCH_NCCL_ENABLE_MONITORING=0 (line 2, an environment setting)"], 6,
         "TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1), TORCH_NCCL_ENABLE_MONITORING=0 (line 2)"),
        (ASYNC + MON + CMD % 36000 + STUCK_INFO, ["TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1, an environment setting)",
                                                  "TORCH_NCCL_ENABLE_MONITORING=0 (line 2, an environment setting)",
                                                  "ddp_timeout=36000 (line 3, a command-line flag)"], 7,
         "TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1), TORCH_NCCL_ENABLE_MONITORING=0 (line 2), ddp_timeout=36000 (line 3)"),
        ("export NCCL_ASYNC_ERROR_HANDLING=0\n" + STUCK_INFO, ["NCCL_ASYNC_ERROR_HANDLING=0 (line 1, an environment "
                                                               "setting)"], 5, "NCCL_ASYNC_ERROR_HANDLING=0 (line 1)"),
    ]:
        r, root = _root(text)
        assert root["id"] == plain["id"] == "nccl.info_only"
        assert root["causes"][0]["text"] == plain["causes"][0]["text"]
        got = _heads(root)
        assert got[1:1 + len(heads)] == heads and got[1 + len(heads):] == _heads(plain)[1:], text
        assert _said(root) == [NOTE % (told, note)], text
        assert root["causes"][1]["fix"][0].startswith("unset ")


def test_a_hang_told_alone_and_a_slow_run_that_is_none():
    for text, head in [(CMD % 36000 + TOLD, "ddp_timeout=36000 (line 1, a command-line flag)"),
                       ("export TORCH_NCCL_ENABLE_MONITORING=false\n" + TOLD,
                        "TORCH_NCCL_ENABLE_MONITORING=false (line 1, an environment setting)")]:
        r, root = _root(text)
        assert root["id"] == "nccl.hang" and _heads(root)[1] == head and not _heads(root)[0].startswith(head[:12])
        assert _said(root) == [NOTE % (2, head.split(" (")[0] + " (line 1)")]
    # slower, not stuck: hang.py's other complaint, which the 'slow' rows answer; the hang rows stay out
    r, root = _root(ASYNC + STUCK_INFO.replace("The job is stuck at the first all_reduce forever.",
                                               "Training is much slower than before on 16 GPUs."))
    assert root["id"] == "torch.multi_gpu_no_speedup" and not _said(root)
    assert not any("ASYNC_ERROR_HANDLING" in c["text"] for c in root["causes"])
    r, root = _root(ASYNC + STUCK_INFO.replace("The job is stuck at the first all_reduce forever.\n", ""))
    assert r["verdict"] == "no_error" and root is None
