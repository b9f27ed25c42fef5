"""Serving and RL frameworks' configuration refusals, from their sources (issue 18 item 1, serving17):
FlashAttention's own checks (tools/gen_flashattn_messages.py over Dao-AILab/flash-attention v2.8.3, its slice
tools/data/flashattn_messages_slice.txt) and real texts of public threads (cited per text) that get their entry and
the fix the code that raises them points at.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_flashattn_messages  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, root_of  # noqa: E402

_TB_FA = ('  File "/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py", line 96, in '
          '_flash_attn_forward\n    out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.fwd(\n')
REAL = {
    # https://github.com/Dao-AILab/flash-attention/issues/762 (a Turing Quadro RTX 5000 / Tesla T4; tridao: Turing is
    # not supported)
    "fa_ampere_762": ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n", "flash_attn.gpu_arch",
                      r'attn_implementation=\\?"sdpa'),
    # https://github.com/if-ai/ComfyUI-IF_Trellis/issues/40 (c10's 'Exception raised from mha_fwd at ...flash_api.cpp')
    "fa_ampere_trellis_40": ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\nException raised from "
                             "mha_fwd at C:\\Users\\x\\AppData\\Local\\Temp\\pip-install-onk9dffz\\flash-attn_8c421b15\\"
                             "csrc\\flash_attn\\flash_api.cpp:370 (most recent call first):\n", "flash_attn.gpu_arch",
                             r"compute_cap"),
    # https://github.com/xorbitsai/inference/issues/3770 (the interface's frame, then the C++ check's message)
    "fa_dtype_xinference_3770": ("Traceback (most recent call last):\n" + _TB_FA +
                                 "RuntimeError: [address=0.0.0.0:37093, pid=1304] FlashAttention only support fp16 and "
                                 "bf16 data type\n", "flash_attn.dtype", r"torch_dtype=torch\.bfloat16"),
    # https://github.com/QwenLM/Qwen3/issues/406 (the maintainer: torch_dtype="auto" / torch.bfloat16 in from_pretrained)
    "fa_dtype_qwen_406": ("RuntimeError: FlashAttention only support fp16 and bf16 data type\n", "flash_attn.dtype",
                          r"torch_dtype"),
}


def test_flashattn_generator_regenerates_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_flashattn_messages.main, os.path.join(REPO, "tools", "data",
                                                                         "flashattn_messages_slice.txt"),
                              tmp_path / "fa.json")
    full = knowgen.committed("flashattn_messages")
    assert {s["text"]: {k: v for k, v in s.items() if k != "id"} for s in got["sites"]} == \
        {s["text"]: {k: v for k, v in s.items() if k != "id"} for s in full["sites"]}
    by_text = {s["text"]: s for s in full["sites"]}
    # the source's condition (cc_major >= 8), its family and its fix
    site = by_text["FlashAttention only supports Ampere GPUs or newer."]
    assert site["family"] == "flash_attn.gpu_arch" and site["where"].startswith("csrc/flash_attn/flash_api.cpp:")
    assert re.search(site["re"], "FlashAttention only supports Ampere GPUs or newer")  # quoted without its '.'
    assert by_text["FlashAttention only support fp16 and bf16 data type"]["family"] == "flash_attn.dtype"
    assert by_text["FlashAttention forward only supports head dimension at most 256"]["family"] == "flash_attn.head_dim"
    # any attention library's words: listed, not assigned
    assert by_text["query and key must have the same dtype"]["family"] is None
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_real_texts_get_their_entry_and_fix(cli, tmp_path):
    for name, (text, want, fix_re) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = root_of(doc)
        assert root and root["id"] == want, (name, root and root["id"])
        assert root.get("family") == "flash_attn.library_error", name
        assert re.search(fix_re, fixes(root)), (name, fixes(root))
