"""More torch, NCCL and Gloo message sites with a meaning and fix of their own (issue 18, site-fixes-3):
the generators' SITE_FIX / MSG_FIX rows written from the code that raises each message
(tools/gen_torch_messages.py, gen_torch_core_messages.py, gen_nccl_messages.py, gen_gloo_messages.py).
A matched message is answered with what that message means and what to change, as the first cause
(confidence: cause), with the line's own value where the row has a slot. Every text in CASES is a
real one from the public thread cited above it (none from the held-out sets: bench/data/
explain_heldout_*.jsonl name none of these threads).
"""

import re

import pytest
from explainhelp import assert_root, generated_sites

from gpudoctor import explain

CASES = [
    # https://github.com/meta-pytorch/torchrec/issues/1118 (torch 2.0 DDP with gradient_as_bucket_view=True
    # after a grad was replaced; reducer.cpp's check)
    ("ddp-grad-not-bucket-view",
     "RuntimeError: Detected at least one parameter gradient is not the expected DDP bucket view with "
     "gradient_as_bucket_view=True. This may happen (for example) if multiple allreduce hooks were registered onto "
     "the same parameter. If you hit this error, please file an issue with a minimal repro.\n",
     "torch.c10d_error", r"gradient_as_bucket_view=False", None),
    # https://github.com/horovod/horovod/issues/785 (two ranks of a node, CUDA IPC between them refused)
    ("nccl-cuda-ipc-open",
     "HOSTNAME:4974:4981 [0] NCCL INFO Ring 00 : 0[0] -> 1[0] via P2P/IPC\n"
     "HOSTNAME:4974:4981 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle : 11 invalid argument\n"
     "HOSTNAME:4974:4981 [0] NCCL INFO init.cu:568 -> 1\n",
     "nccl.unhandled_cuda_error", r"NCCL_P2P_DISABLE=1", None),
    # https://github.com/gpleiss/temperature_scaling/issues/5 (a list assigned to a registered buffer)
    ("buffer-assigned-a-list",
     "  File \"/home/gchennupati/.local/lib/python2.7/site-packages/torch/nn/modules/module.py\", line 113, in "
     "register_buffer\n"
     "    .format(torch.typename(tensor), name))\n"
     "TypeError: cannot assign 'list' object to buffer 'CatBN_output_buffer' (torch Tensor or None required)\n",
     "torch.usage", r"self\.CatBN_output_buffer = torch\.as_tensor", r"\blist\b"),
    # https://github.com/pytorch/pytorch/issues/3232 (register_buffer under a name the module already has)
    ("register-buffer-name-taken",
     "    raise KeyError(\"attribute '{}' already exists\".format(name))\n"
     "\n"
     "KeyError: \"attribute 'blah' already exists\"\n",
     "torch.usage", r"no attribute yet", None),
]


@pytest.mark.parametrize("name,text,family,fix,means", CASES, ids=[c[0] for c in CASES])
def test_a_matched_message_gets_its_own_meaning_and_fix(kb, name, text, family, fix, means):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=fix,
                       confidence="cause")
    first = root["causes"][0]
    assert first["evidence"], first
    if means:  # the row's slot shows the line's own value
        assert re.search(means, first["text"]), first["text"]


def test_internal_invariants_keep_their_family_answer_and_counts_grew():
    """Rows cover what a user can cause; the checks no argument reaches keep their family's causes."""
    torch = {s["text"]: s for s in generated_sites("torch_messages")}
    nccl = {s["text"]: s for s in generated_sites("nccl_messages")}
    assert "fix" not in torch["Expected _is_root to be set after lazy init"]
    assert "fix" not in nccl["ncclSocketGetFd: pass NULL socket"]
    # a value of the line in the fix: the ncclConfig_t field's value, the NCCL_WORK_FIFO_BYTES given
    assert "{%-1|" in nccl["Invalid config blocking attribute value %d"]["means"]
    assert "NCCL_IB_ECE_ENABLE=0" in " ".join(nccl["Call to ibv_set_ece failed with error %s errno %d"]["fix"])
    for name, least in (("torch_messages", 520), ("torch_core_messages", 240), ("nccl_messages", 440),
                        ("gloo_messages", 35)):
        assert sum(1 for s in generated_sites(name) if s.get("fix")) >= least, name
