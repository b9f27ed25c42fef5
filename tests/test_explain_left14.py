"""Issue 18, left14: last round's known weak answers, fixed at their mechanism.

1. A Lightning / torchmetrics site whose message only states a rule gets the action the rule implies
   (tools/gen_lightning_messages.rule_action), never the rule again as a fix line.
2. A Megatron-LM assert with no message (its site's text is the source line `assert <condition>`) answers only
   where that assert failed: the innermost frame in that Megatron file, then a bare AssertionError.
3. NCCL's bootstrap root WARNs about what the processes sent it (src/bootstrap.cc bootstrapRoot: nranks,
   rank) are the ranks disagreeing (nccl.invalid_usage), read from the `if` condition above them, not a socket.
4. A line at warning level (torch c10's '[W...' prefix, c10/util/Logging.h) of an error entry is the root only
   when no other entry's error-level line follows it.
"""

import json
import os
import sys

import pytest

from gpudoctor import explain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_lightning_messages as genl  # noqa: E402
import gen_nccl_messages as genn  # noqa: E402
from gpudoctor.explain.knowledge import open_generated

GEN = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated")


def _root(kb, text):
    res = explain.explain_text(text, kb)
    f = next((f for f in res["findings"] if f["role"] == "root"), None)
    return (f and f["id"]), f, res


# --- 1. Lightning: the action a stated rule implies --------------------------------------------------------------
# each a rule quoted from lightning 2.6.6 / torchmetrics 1.9.0 (https://github.com/Lightning-AI/pytorch-lightning,
# src/lightning/{pytorch,fabric}/...; https://github.com/Lightning-AI/torchmetrics src/torchmetrics/functional/...)
RULES = [
    ("`precision` must be one of: \u2026", "set `precision` to one of the values the message lists"),
    ("When passing string value for the `profiler` parameter of `Trainer`, it can only be one of \u2026",
     "set `profiler` to one of the values the message lists"),
    ("mode should be either `linear` or `exponential`", "set `mode` to one of the values the message lists"),
    ("AMP and the LBFGS optimizer are not compatible.", "use AMP or the LBFGS optimizer, not both together"),
    ("You cannot set both `auto_wrapper_callable` and `activation_checkpointing_policy`.",
     "do not set both `auto_wrapper_callable` and `activation_checkpointing_policy`"),
    ("`\u2026` cannot be called before `.increment()` has been called.", "call `.increment()` before `\u2026`"),
    ("Calling `.launch()` again is not allowed.", "avoid calling `.launch()` again"),
    ("Loading a single optimizer object from a checkpoint is not supported yet with the FSDP strategy.",
     "avoid loading a single optimizer object from a checkpoint with the FSDP strategy"),
    ("The DeepSpeed strategy is only supported on CUDA GPUs but `\u2026` is used.",
     "use the DeepSpeed strategy only on CUDA GPUs"),
    ("`clip_grad_by_value` is not supported by `ColossalAI`", "do not use `clip_grad_by_value` with `ColossalAI`"),
    # a clause of its own, or a shape none of the above: only that the message states the rule
    ("You set `Trainer(sync_batchnorm=True)` and provided a `\u2026` plugin, but this is not allowed.", genl.RULE_FALLBACK),
    ("The highest label in `target` should be smaller than `num_classes`.", genl.RULE_FALLBACK),
]


@pytest.mark.parametrize("rule,action", RULES)
def test_a_stated_rule_becomes_the_action_it_implies(rule, action):
    assert genl.rule_action(rule) == action


def test_no_lightning_fix_line_repeats_its_stated_rule():
    with open_generated("lightning_messages") as f:
        sites = json.load(f)["sites"]
    stated = [s for s in sites if s.get("quoted") and s["means"].startswith("The message states the rule")]
    assert len(stated) > 100
    for s in stated:
        rule = s["means"].split("\u201c", 1)[1].rstrip("\u201d")
        assert s["fix"] == [genl.rule_action(rule)] and rule not in s["fix"][0], s["id"]
    assert sum(s["fix"][0] != genl.RULE_FALLBACK for s in stated) > len(stated) // 2


# --- 2. Megatron-LM's asserts with no message ---------------------------------------------------------------------
# CPython 3.11's format (Lib/traceback.py): the frame's source line, then the exception ('AssertionError' alone when
# the assert has no message); megatron/training/arguments.py validate_args at core_v0.12 holds
# `assert args.hidden_size % args.num_attention_heads == 0` with no message (https://github.com/NVIDIA/Megatron-LM)
MEGATRON_TB = """Traceback (most recent call last):
  File "/workspace/Megatron-LM/pretrain_gpt.py", line 280, in <module>
    pretrain(
  File "/workspace/Megatron-LM/megatron/training/training.py", line 255, in pretrain
    initialize_megatron(
  File "/workspace/Megatron-LM/megatron/training/arguments.py", line 467, in validate_args
    assert args.hidden_size % args.num_attention_heads == 0
AssertionError
"""


def test_a_bare_megatron_assert_answers_where_it_failed(kb):
    rid, f, _ = _root(kb, MEGATRON_TB)
    assert rid == "megatron.parallel_sizes"
    assert "--num-attention-heads" in f["causes"][0]["text"]


def test_the_same_source_line_in_the_users_file_is_not_megatrons_check(kb):
    rid, _, res = _root(kb, MEGATRON_TB.replace("/workspace/Megatron-LM/megatron/training/arguments.py",
                                                "/home/me/mytrain.py"))
    assert rid != "megatron.parallel_sizes"
    assert not any(f["id"].startswith("megatron.") for f in res["findings"])


def test_another_exception_on_the_asserts_line_is_not_the_check_failing(kb):
    # the condition raised while it was evaluated (a None argument): review13-b's reproduction
    text = MEGATRON_TB.replace("AssertionError", "TypeError: unsupported operand type(s) for %: 'NoneType' and 'int'")
    _, _, res = _root(kb, text)
    assert not any(f["id"] == "megatron.parallel_sizes" for f in res["findings"])


# --- 3. NCCL's bootstrap root: the ranks disagree ------------------------------------------------------------------
# NVIDIA/nccl 5067397c src/bootstrap.cc bootstrapRoot (https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc)
BOOTSTRAP_ROOT = """static void* bootstrapRoot(void* rargs) {
  do {
    if (nranks != info.nranks || nroots != info.nroots || iroot != info.iroot || offset != info.offset) {
      WARN("Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs %d, iroot %d vs %d, offset %d "
           "vs %d",
           nranks, info.nranks, nroots, info.nroots, iroot, info.iroot, offset, info.offset);
      goto out;
    }
    NCCLCHECKGOTO(ncclSocketAccept(&sock, listenSock), res, out);
    WARN("Bootstrap Root : no condition above");
"""


def test_the_condition_above_a_warn_is_read():
    assert genn._condition(BOOTSTRAP_ROOT, 4).startswith("if (nranks != info.nranks ||")
    assert genn._condition(BOOTSTRAP_ROOT, 10) == ""
    assert genn._enclosing(BOOTSTRAP_ROOT, 4) == "bootstrapRoot"


def test_bootstrap_root_sites_are_the_ranks_disagreeing_and_the_rest_of_the_file_stays_sockets():
    with open_generated("nccl_messages") as f:
        sites = json.load(f)["sites"]
    boot = [s for s in sites if s["where"].startswith("src/bootstrap.cc") and s["text"].startswith("Bootstrap Root :")]
    assert {s["family"] for s in boot} == {"nccl.invalid_usage"} and len(boot) == 5
    assert all(s["rule"] == "ranks-disagree" for s in boot)
    other = [s for s in sites if s["where"].startswith("src/bootstrap.cc") and s not in boot]
    assert any(s["family"] == "nccl.net_socket" for s in other)
    assert not any(s.get("rule") == "ranks-disagree" for s in other)


# made here: two processes on 2 H100s with WORLD_SIZE 2 and 3 (bench/plant6_h100x2.py, world_size_env_mismatch)
NRANKS_LOG = ("NCCL version 2.28.9+cuda13.0\n\n[2026-11-26 09:01:08] vm:601:1080 [0] bootstrap.cc:327 NCCL WARN "
              "Bootstrap Root : mismatch in info from procs, nranks 3 vs 2, nroots 1 vs 1, iroot 0 vs 0\n")


def test_nranks_vs_nranks_is_answered_as_the_world_size_differing(kb):
    rid, f, _ = _root(kb, NRANKS_LOG)
    assert rid == "nccl.invalid_usage"
    assert "WORLD_SIZE" in " ".join(f["causes"][0]["fix"])


# --- 4. a warning-level line is a root only when nothing at error level follows -----------------------------------
# made here on three Slurm nodes (bench/data set P11, p11-venv_missing_one_node): Gloo's '[W...' fallback warning
# (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp), then the store's error on the nodes that did start
GLOO_WARN = ("[W1126 13:50:39.538238385 ProcessGroupGloo.cpp:524] Warning: Unable to resolve hostname to a (local) "
             "address. Using the loopback address as fallback. Manually set the network interface to bind to with "
             "GLOO_SOCKET_IFNAME. (function operator())\n")
STORE_ERR = ("Traceback (most recent call last):\n"
             "  File \"/tmp/p11run/train_slurm.py\", line 5, in <module>\n"
             "    dist.init_process_group(\"gloo\", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=25))\n"
             "torch.distributed.DistStoreError: Timed out after 26 seconds waiting for clients. 2/3 clients joined.\n")


def test_a_warning_line_is_not_the_root_when_an_error_follows(kb):
    rid, _, res = _root(kb, GLOO_WARN + STORE_ERR)
    assert rid == "rendezvous.store_timeout"
    assert rid != "mpi.hostname" and res["verdict"] == "root_cause"


def test_a_warning_line_with_nothing_after_it_keeps_its_answer(kb):
    alone, _, _ = _root(kb, GLOO_WARN)
    before, _, _ = _root(kb, GLOO_WARN + "epoch 1 loss 0.5\n")
    assert alone == before  # what it was: the reader did not change for a warning alone


@pytest.mark.parametrize("line,level", [
    # torch's c10 logger, glog's format (c10/util/logging_is_not_google_glog.h MessageLogger: "IWEF"[severity], then
    # the date, time, file:line)
    ("[W1126 13:50:38.189318288 socket.cpp:207] [c10d] The hostname of the client socket cannot be retrieved. err=-3",
     "warn"),
    ("[E1126 13:51:04.542719989 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout", None),
    ("[F1126 13:51:04.542719989 ProcessGroupNCCL.cpp:1500] [Rank 1] [PG 0 Rank 1] Watchdog timed out", None),
    ("[I1126 13:50:38.189318288 TCPStore.cpp:312] [c10d - debug] The server has started on port = 29500.", "info"),
])
def test_c10_log_levels(line, level):
    from gpudoctor.explain.text import severity

    assert severity(line) == level


# --- a site whose matcher is only the start of an interpreter wording ----------------------------------------------
# torch/_weights_only_unpickler.py raises UnpicklingError(f"Unsupported operand {key[0]}"), matched as
# 'Unsupported operand' (case-insensitive); CPython's own 'unsupported operand type(s) for %.100s: ...'
# (Objects/abstract.c binop_type_error) is any program's TypeError. torch.serialization prints its own line with
# 'WeightsUnpickler error: ' before the unpickler's message (torch/serialization.py, _get_wo_message).
UNPICKLER = ("_pickle.UnpicklingError: Weights only load failed. Re-running `torch.load` with `weights_only` set to "
             "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
             "file from a trusted source.\nPlease file an issue with the following so that we can make "
             "`weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported operand 149\n")


def test_the_interpreters_unsupported_operand_is_no_checkpoint_error(kb):
    from gpudoctor.explain import knowledge

    assert knowledge._not_interpreter("Unsupported operand %s", r"Unsupported\ operand") == \
        r"Unsupported\ operand(?!\ type\(s\)\ for\ )"
    text = MEGATRON_TB.replace("AssertionError", "TypeError: unsupported operand type(s) for %: 'NoneType' and 'int'")
    assert _root(kb, text)[0] != "torch.checkpoint_load"
    assert _root(kb, UNPICKLER)[0] == "torch.checkpoint_load"
