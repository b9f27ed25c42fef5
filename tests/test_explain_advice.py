"""explain quotes what the message itself says to do (gpudoctor/explain/advice.py).

Real texts, each from the public thread or the source file named beside it; the grammar cases
below them are the phrasings of the message sources (advice.py's doc cites each)."""

import io
import json

import pytest

from gpudoctor import explain
from gpudoctor.explain import advice

from explainhelp import explain_paste, fixes, root_of


def _advice(finding):
    return [c for c in finding["causes"] if c.get("advice")]


def _answer(kb, text, assume_error=False):
    return explain.explain_text(text, kb, assume_error=assume_error)


# https://github.com/naver/mast3r/issues/114 (torch 2.6's torch.load, torch/serialization.py _get_wo_message)
MAST3R_114 = """\
Traceback (most recent call last):
  File "/home/user/mast3r/demo.py", line 38, in <module>
    ckpt = torch.load(modelname, 'cpu')  # TODO from pretrained to download it automatically
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/dist-packages/torch/serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, \
do those steps only if you trust the source of the checkpoint. 
\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to \
`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary \
code execution. Do it only if you got the file from a trusted source.
\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error \
message.
\tWeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default. Please \
use `torch.serialization.add_safe_globals([Namespace])` or the `torch.serialization.safe_globals([Namespace])` context \
manager to allowlist this global if you trust this class/function.

Check the documentation of torch.load to learn more about types accepted by default with weights_only \
https://pytorch.org/docs/stable/generated/torch.load.html.
"""


def test_an_exception_message_over_several_lines_gives_its_own_remedy_with_its_values(kb):
    doc = _answer(kb, MAST3R_114)
    root = root_of(doc)
    adv = _advice(root)
    assert len(adv) == 1, [c["text"] for c in root["causes"]]
    # "(2) ... please check the recommended steps in the following error message" points at the next line
    assert len(adv[0]["fix"]) == 1, adv[0]["fix"]
    said = " ".join(adv[0]["fix"])
    # the remedy is on the exception's fourth line, with this checkpoint's class in it
    assert "torch.serialization.add_safe_globals([Namespace])" in said, said
    # (in single quotes: its backticks would run inside double quotes, red team 2026-11-26f)
    assert adv[0]["fix"][0].startswith("the message says: '"), adv[0]["fix"]
    # names something to call: above the family's generic causes
    assert root["causes"].index(adv[0]) < len(root["causes"]) - 1
    assert all(c["static_rank"] == 0 or c.get("evidence") for c in root["causes"][:root["causes"].index(adv[0])])


# https://github.com/vision-x-nyu/thinking-in-space/issues/22 (accelerate's port check, accelerate/commands/launch.py)
ACCELERATE_PORT = ("Tried to launch distributed communication on port `29500`, but another process is utilizing it. "
                   "Please specify a different port (such as using the `--main_process_port` flag or specifying a "
                   "different `main_process_port` in your config file) and rerun your script. To automatically use the "
                   "next open port (on a single node), you can set this to `0`.")


def test_a_pasted_message_gives_its_remedy_in_the_text_report(cli, tmp_path, kb):
    doc = _answer(kb, ACCELERATE_PORT, assume_error=True)
    root = root_of(doc)
    said = " ".join(c for a in _advice(root) for c in a["fix"])
    # the entry's own fix names the flag already (not repeated); the message's other remedy is quoted
    assert "--main_process_port" in fixes(root) and "you can set this to `0`" in said, root["causes"]
    out = io.StringIO()
    explain.render_text(doc, out)
    # (the quoted remedy is one shell word: never broken over two lines, red team 2026-11-27b; a fix line is never
    # wrapped at all, wrap23)
    assert "fix: the message says: 'To automatically use the next open port" in out.getvalue()


# Open MPI 4.1's help-errmgr-base.txt [failed-daemon] (orte/mca/errmgr/base), as printed on the users list
# (https://www.mail-archive.com/users@lists.open-mpi.org/ , 'An ORTE daemon has unexpectedly failed')
ORTE_FAILED_DAEMON = """\
srun: error: node1-128-18: task 1: Exited with exit code 1
--------------------------------------------------------------------------
An ORTE daemon has unexpectedly failed after launch and before
communicating back to mpirun. This could be caused by a number
of factors, including an inability to create a connection back
to mpirun due to a lack of common network interfaces and/or no
route found between them. Please check network connectivity
(including firewalls and network routing requirements).
--------------------------------------------------------------------------
"""


def test_a_help_block_gives_its_advice_and_advice_naming_nothing_stays_below_the_first_cause(kb):
    root = root_of(_answer(kb, ORTE_FAILED_DAEMON))
    adv = _advice(root)
    assert adv and adv[0]["fix"] == ['the message says: "Please check network connectivity (including firewalls and '
                                     'network routing requirements)."'], root["causes"]
    assert root["causes"].index(adv[0]) >= 1  # names nothing concrete: the family's first cause stays first


# torch's CUDA check (c10/cuda/CUDAException.cpp c10_cuda_check_implementation), as in
# https://github.com/pytorch/pytorch/issues/103256 ('device-side assert triggered')
DEVICE_ASSERT = """\
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss = criterion(out, labels)
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""
# NCCL's ncclGetErrorString (src/init.cc) inside torch's C10D_NCCL_CHECK (torch/csrc/distributed/c10d/NCCLUtils.hpp)
NCCL_SYSTEM = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
               "1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n")
NCCL_INTERNAL = ("RuntimeError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, "
                 "internal error - please report this issue to the NCCL developers, NCCL version 2.18.1\n")


@pytest.mark.parametrize("text, note", [(DEVICE_ASSERT, "CUDA_LAUNCH_BLOCKING=1"),
                                        (NCCL_SYSTEM, "run with NCCL_DEBUG=INFO for details"),
                                        (NCCL_INTERNAL, None)])
def test_more_output_is_a_note_and_a_bug_report_request_is_dropped(kb, text, note):
    root = root_of(_answer(kb, text))
    assert not _advice(root), root["causes"][0]
    notes = [n for n in root["notes"] if n.startswith("More detail, as the message says")]
    if note:
        assert any(note in n for n in notes), root["notes"]
    else:
        assert not notes and not any("report this issue" in f for c in root["causes"] for f in c["fix"])


# torch/csrc/distributed/c10d/reducer.cpp (the unused-parameters message); torch.ddp_unused_parameters says it
DDP_UNUSED = (
    "[rank0]: RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing loss. You can enable unused "
    "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate in "
    "calculating loss.\n")


def test_advice_an_entry_for_this_message_already_gives_is_not_repeated(kb):
    root = root_of(_answer(kb, DDP_UNUSED))
    assert root["id"] == "torch.ddp_unused_parameters"
    assert not _advice(root), [c["fix"] for c in root["causes"]]


HEALTHY = """\
[rank0]: /usr/lib/python3/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create \
16 worker processes in total. Our suggested max number of worker in current system is 8. Please be aware that \
excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential \
slowness/freeze if necessary.
[rank0]: To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
epoch 1 step 100 loss 2.31
Training completed. Consider setting NCCL_SOCKET_IFNAME for faster start-up.
"""


def test_a_healthy_log_with_advice_in_it_stays_healthy(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, HEALTHY, rcs=(0,))
    assert doc["verdict"] == "no_error" and doc["findings"] == [], doc["findings"]


# ---------------------------------------------------------------- the grammar (advice.find), phrasings of the sources
@pytest.mark.parametrize("text, want", [
    ("srun: error: Please use --ntasks instead of -n", [("remedy", "Please use --ntasks instead of -n")]),
    # NCCL src/transport/nvls.cc
    ("NCCL WARN MNNVL (cliqueSize 4) is available but not working on this system. Check the IMEX channel configuration "
     "(/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",
     [("remedy", "Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels)."),
      ("remedy", "Set NCCL_MNNVL_ENABLE=0 to ignore this issue.")]),
    # Slurm src/common/read_config.c
    ("CR_ONE_TASK_PER_CORE is not compatible with CR_CPU*, please change to use CR_CORE* instead.",
     [("remedy", "CR_ONE_TASK_PER_CORE is not compatible with CR_CPU*, please change to use CR_CORE* instead.")]),
    # CPython's suggestions; argparse's invalid choice
    ("NameError: name 'torh' is not defined. Did you mean: 'torch'?", [("remedy", "Did you mean: 'torch'?")]),
    ("train.py: error: argument --backend: invalid choice: 'ncl' (choose from 'nccl', 'gloo', 'mpi')",
     [("remedy", "argument --backend: invalid choice: 'ncl' (choose from 'nccl', 'gloo', 'mpi')")]),
    # torch's OOM message (c10/cuda/CUDACachingAllocator.cpp): the sentence after ') '
    ("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.77 GiB total capacity; 5.25 GiB reserved in total by "
     "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
     [("remedy", "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")]),
    # torch/utils/data/_utils/signal_handling.py; Slurm's usage hint
    ("DataLoader worker (pid 1234) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. "
     "Rerunning with num_workers=0 may give better error trace.",
     [("detail", "Rerunning with num_workers=0 may give better error trace.")]),
    ("srun: error: Try 'srun --help' for more information", [("detail", "Try 'srun --help' for more information")]),
    # torch's reducer.cpp: a numbered item glued to the sentence before it
    ("Please make sure model parameters are not shared across multiple concurrent forward-backward passes. or try to "
     "use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused "
     "parameters in multiple reentrant backward passes.",
     [("remedy", "Please make sure model parameters are not shared across multiple concurrent forward-backward "
                 "passes."),
      ("remedy", "or try to use _set_static_graph() as a workaround if this module graph does not change during "
                 "training loop.")]),
    # not advice: statements of what failed or what the program did, a request to report, prose, a retry prompt,
    # a field named like a verb (c10d's socket.cpp retry line)
    ("[c10d] The client socket has failed to connect to [node1]:29500 (errno: 111 - Connection refused). try=0, "
     "timeout=5000ms, delay=3069ms", []),
    ("Check failed: x == y (3 vs. 4)", []),
    ("minCTAs 8 is larger than maxCTAs 4, set both to 4", []),
    ("misc/socket.cc:538 NCCL WARN Net : Call to recv from 10.0.0.2<44332> failed : Connection reset by peer", []),
    ("Could not parse 'x' Using default instead.", []),
    ("Failed to set SLURM_NTASKS_PER_NODE env variable", []),
    ("NCCL WARN Cuda failure 'invalid argument', internal error - please report this issue to the NCCL developers", []),
    ("localhost: Permission denied, please try again.", []),
    ("I tried to set NCCL_IB_DISABLE=1 and it still hangs, you should try it", []),
    ("# fix: run the container with --net host", []),
])
def test_the_clause_grammar(text, want):
    assert advice.find(text) == want


def test_a_quoted_clause_is_capped_and_free_of_control_characters():
    long = "RuntimeError: bad value. Please set GPUDOCTOR_X to " + "a" * 5000 + " now."
    got = advice.find(long)
    assert got and len(got[0][1]) <= advice.MAX_CLAUSE + 8, got
    evil = "ValueError: bad value. Please use \x1b]0;title\x07--fix\u202e\u2066 now\x00 or\u2028this."
    (kind, q), = advice.find(evil)
    assert kind == "remedy" and q.isprintable() and "\x1b" not in q and "\u202e" not in q, repr(q)


def test_a_1_mb_line_costs_little():
    line = "Please use " + "a, " * 300000 + "x " + "(((" * 50000 + " try " * 20000
    assert [k for k, _ in advice.find(line)] == ["remedy"]
    # a known error on a 1 MB line: the advice comes from the part shown around the match, whole sentences only
    text = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB. " + \
        "Please set GPUDOCTOR_X=1 and retry. " * 28000
    want = [['the message says: "Please set GPUDOCTOR_X=1 and retry."']]
    root = root_of(explain.explain_text(text + "\n"))  # its CPU time (bound 5 s with the line above): bench/cpu_bounds.py
    assert [c["fix"] for c in _advice(root)] == want, root["id"]


class _Scan:
    matches = {}


def _result(causes, line_text, confidence="family"):
    return {"verdict": "root_cause", "findings": [{
        "id": "x", "confidence": confidence, "notes": [], "causes": causes,
        "matches": [{"line": 3, "text": line_text, "severity": None}]}]}


def _cause(fix, **kw):
    c = {"text": "a cause", "checks": [], "confirm": [], "fix": list(fix), "exports": {}, "evidence": [],
         "static_rank": 1, "computed": None}
    c.update(kw)
    return c


def test_a_computed_fix_and_a_site_fix_that_says_it_are_never_displaced():
    line = "NCCL WARN Bootstrap : no socket interface found. Please set NCCL_SOCKET_IFNAME to the interface to use."
    computed = _cause(["export NCCL_SOCKET_IFNAME=ens5   (this node)"], computed_fix="export NCCL_SOCKET_IFNAME=ens5",
                      computed="socket_ifname")
    r = advice.apply(_result([computed, _cause(["generic"])], line), _Scan())
    assert r["findings"][0]["causes"][0] is computed and not _advice(r["findings"][0])  # it says it already
    site = _cause(["use --main_process_port"], static_rank=0, evidence=[{"line": 3, "text": ACCELERATE_PORT}])
    r = advice.apply(_result([site, _cause(["generic"])], ACCELERATE_PORT), _Scan())
    causes = r["findings"][0]["causes"]
    assert causes[0] is site and [c["fix"] for c in _advice(r["findings"][0])] == \
        [["the message says: 'To automatically use the next open port (on a single node), you can set this to `0`.'"]]
    assert causes.index(_advice(r["findings"][0])[0]) == 1  # below the site's own fix
    json.dumps(r)  # stays a JSON document
    # --check computes a fix from this machine's facts after the advice was placed: place() puts it back below
    generic = _cause(["export NCCL_SOCKET_IFNAME=<the interface>"], computed="socket_ifname")
    line = "NCCL WARN no socket interface found. Please set GPUDOCTOR_Y=1 first."
    r = advice.apply(_result([generic], line), _Scan())
    assert r["findings"][0]["causes"][0].get("advice")
    generic["computed_fix"] = "export NCCL_SOCKET_IFNAME=ens5"
    advice.place(r)
    assert r["findings"][0]["causes"][0] is generic and r["findings"][0]["causes"][1].get("advice")


def test_a_stated_rule_is_its_own_kind_and_only_when_asked():
    # accelerate's src/accelerate/accelerator.py: a prohibition, nothing to do
    msg = "You can't customize device placements with DeepSpeed or Megatron-LM."
    assert advice.find(msg) == []  # (the root's advice cause, apply(), never quotes a rule as what to do)
    assert advice.find(msg, rules=True) == [("rule", msg)]
    # a remedy beside the rule: the remedy is what is found (accelerator.py's Megatron-LM scheduler message)
    both = ("You can't use a custom scheduler with Megatron-LM. Please use the "
            "`accelerate.utils.MegatronLMDummyScheduler` instead.")
    assert [k for k, _ in advice.find(both, rules=True)] == ["rule", "remedy"]
    # bounded: a long sentence of near-matches ('only ... is' without the last word) stays linear
    assert advice.find(("only x " * 20000) + "is", rules=True) == []  # its CPU time (bound 1 s): bench/cpu_bounds.py
