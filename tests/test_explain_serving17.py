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


# ---- vLLM: pipeline parallelism per model architecture and release (tools/gen_vllm_pp.py, generated/vllm_pp.json)
import gen_vllm_pp  # noqa: E402
from gpudoctor.explain import vllmpp  # noqa: E402

_PP = ("NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the "
       "`SupportsPP` interface.\n")
PP_REAL = {
    # https://github.com/vllm-project/vllm/issues/16231 (Llama-4-Maverick, TP8 x PP2 over two nodes; the maintainer:
    # a newer vLLM has SupportsPP for it)
    "vllm_pp_16231": "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model "
                     "meta-llama/Llama-4-Maverick-17B-128E-Instruct --tensor-parallel-size 8 --pipeline-parallel-size 2\n"
                     + _PP,
    # https://github.com/vllm-project/vllm/issues/9015 (vLLM 0.6.2, Llama 3.2 Vision: the older wording lists the
    # architectures that DO have it)
    "vllm_pp_9015": "    raise NotImplementedError(\nNotImplementedError: Pipeline parallelism is only supported for the "
                    "following  architectures: ['AquilaForCausalLM', 'AquilaModel', 'DeepseekV2ForCausalLM', "
                    "'GPT2LMHeadModel', 'LlamaForCausalLM', 'Qwen2ForCausalLM', 'Qwen2VLForConditionalGeneration'].\n",
}


def test_vllm_pp_table_regenerates_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_vllm_pp.main, os.path.join(REPO, "tools", "data", "vllm_pp_slice.txt"),
                              tmp_path / "pp.json")
    full = knowgen.committed("vllm_pp")
    assert got["releases"] == full["releases"] and len(full["releases"]) >= 6
    for arch in gen_vllm_pp.RECORD:
        if arch in full["architectures"]:
            assert got["architectures"][arch] == full["architectures"][arch], arch
    # Qwen2 had pipeline parallelism from 0.6.0 (_PP_SUPPORTED_MODELS), not in 0.5.2's list
    assert full["architectures"]["DeepseekV2ForCausalLM"]["first_pp"] == "0.6.0"
    assert full["architectures"]["LlamaForCausalLM"]["first_pp"] == full["releases"][0]


def test_vllm_pp_names_the_release_for_the_architecture_in_the_log():
    tb = knowgen.committed("vllm_pp")
    # the lines vLLM prints (vllm/config/model.py 'Resolved architecture: %s', v1/engine/core.py 'Initializing a V1
    # LLM engine (v%s)'), with the refusal
    got = vllmpp.compute(["Initializing a V1 LLM engine (v0.8.3) with config: model='meta-llama/Llama-4-Maverick'",
                          "Resolved architecture: Llama4ForConditionalGeneration", _PP], tb)
    first = tb["architectures"]["Llama4ForConditionalGeneration"]["first_pp"]
    assert got and "vllm>=%s" % first in got[0] and "your vLLM is 0.8.3" in got[0]
    # a release the table says has it: no computed line (another cause)
    assert vllmpp.compute(["Initializing a V1 LLM engine (v9.0.0)", "Resolved architecture: "
                           "Llama4ForConditionalGeneration", _PP], tb) is None
    # the older wording's list names the architectures that have it: never read as the log's model
    assert vllmpp.compute([PP_REAL["vllm_pp_9015"]], tb) is None


def test_vllm_pp_real_texts(cli, tmp_path):
    for name, text in PP_REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = root_of(doc)
        assert root and root["id"] == "serving.parallel_config", (name, root and root["id"])
        assert "SupportsPP" in root["causes"][0]["text"], name
        assert re.search(r"upgrade vLLM|--pipeline-parallel-size 1", root["causes"][0]["fix"][0]), name
        assert "AquilaForCausalLM" not in fixes(root), name


# ---- TRL's validation of vllm_mode (trl de27d612b / 7f53ac08f) and vLLM V1's engine core in another process
CONFIG_REAL = {
    # https://github.com/huggingface/trl/pull/3886 (the fix of #3885: a valid 'server' refused on the other ranks)
    "trl_mode_3886": ("[rank1]: ValueError: vllm_mode must be either 'server' or 'colocate', got 'server'.\n",
                      "trl.vllm_mode_check", r"trl>=0\.22\.0"),
    # https://github.com/huggingface/trl/issues/3859 (vLLM 0.10.0, a trainer reaching into llm_engine.model_executor)
    "vllm_v1_trl_3859": ("'LLMEngine' object has no attribute 'model_executor'\n  File \"/root/paddlejob/workspace/env_run/"
                         "llm_rl_exp/dpo/train/online_dpo.py\", line 270, in _generate_vllm\n    llm_model = "
                         "self.llm.llm_engine.model_executor.driver_worker.model_runner.model\n",
                         "serving.v1_engine_process", r"VLLM_ENABLE_V1_MULTIPROCESSING=0"),
}


def test_config_refusals_get_their_entry_and_fix(cli, tmp_path):
    for name, (text, want, fix_re) in CONFIG_REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = root_of(doc)
        assert root and root["id"] == want, (name, root and root["id"])
        assert re.search(fix_re, fixes(root)), (name, fixes(root))
    # a mode that is not one of the two stays the generated site's (a typo in GRPOConfig(vllm_mode=...))
    rc, doc = explain_paste(cli, tmp_path, "ValueError: vllm_mode must be either 'server' or 'colocate', got 'sever'.\n",
                            "--file", name="typo.txt", rcs=(0, 1))
    assert root_of(doc)["id"] == "trl.vllm", root_of(doc)["id"]


def test_megatron_bridge_environment(cli, tmp_path):
    # https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/2074 (torchrun outside the uv environment the Dockerfile made)
    text = "torchrun --nproc-per-node=4 ./auto_bridge_convert.py\n\nModuleNotFoundError: No module named 'megatron.bridge'\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="mb2074.txt", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "code.python_env", root and root["id"]
    assert re.search(r"uv run python -m torch\.distributed\.run", root["causes"][0]["fix"][0])
    # another package's missing module does not get Megatron-Bridge's cause
    rc, doc = explain_paste(cli, tmp_path, "ModuleNotFoundError: No module named 'omegaconf'\n", "--file",
                            name="omegaconf.txt", rcs=(0, 1))
    assert "uv sync" not in fixes(root_of(doc))


def test_fsdp_params_used_outside_forward(cli, tmp_path):
    # made here: torch 2.14.1, FSDP(M(), device_id=cpu) over gloo with 2 processes, one forward/backward of the root,
    # then model.module.emb(x) (what generate() on a wrapped model does); the last lines of process 0's traceback
    text = ("  File \"/tmp/serving17/fsdp/repro.py\", line 21, in run\n    inner.emb(x)\n"
            "  File \"/venv/lib/python3.11/site-packages/torch/nn/functional.py\", line 2621, in embedding\n"
            "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
            "RuntimeError: setStorage: sizes [16], strides [1], storage offset 0, and itemsize 4 requiring a storage "
            "size of 64 are out of bounds for storage of size 0\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="fsdp_cpu.txt", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "torch.fsdp_freed_params" and root["family"] == "torch.usage", root and root["id"]
    assert "summon_full_params" in root["causes"][0]["fix"][0]


# ---- xFormers: memory_efficient_attention with no operator (tools/gen_xformers_messages.py, v0.0.35 + v0.0.23.post1)
import gen_xformers_messages  # noqa: E402

_XF_HEAD = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(40, 1564, 1, 64) (torch.float32)\n     key         : shape=(40, 1564, 1, 64) "
            "(torch.float32)\n     value       : shape=(40, 1564, 1, 64) (torch.float32)\n     attn_bias   : <class "
            "'NoneType'>\n     p           : 0.0\n")
XF_REAL = {
    # https://github.com/kijai/ComfyUI-SUPIR/issues/167 (the maintainer: the xformers install is not working)
    "xf_supir_167": (_XF_HEAD + "`fa2F@0.0.0` is not supported because:\n    xFormers wasn't build with CUDA support\n"
                     "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n"
                     "    dtype=torch.float32 (supported: {torch.bfloat16, torch.float16})\n    operator wasn't built - "
                     "see `python -m xformers.info` for more info\n`cutlassF` is not supported because:\n    xFormers "
                     "wasn't build with CUDA support\n    operator wasn't built - see `python -m xformers.info` for more "
                     "info\n", "xformers.build", r"xformers\.info"),
    # https://github.com/facebookresearch/xformers/issues/1143 (tensors on the CPU: every operator is CUDA's)
    "xf_cpu_1143": (_XF_HEAD + "`fa2F@v2.5.7-pt` is not supported because:\n    device=cpu (supported: {'cuda'})\n"
                    "    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})\n`cutlassF-pt` is not supported "
                    "because:\n    device=cpu (supported: {'cuda'})\n", "xformers.inputs", r"cutlassF"),
}


def test_xformers_generator_and_real_texts(cli, tmp_path):
    got = knowgen.regenerated(gen_xformers_messages.main, os.path.join(REPO, "tools", "data",
                                                                        "xformers_messages_slice.txt"),
                              tmp_path / "xf.json")
    full = knowgen.committed("xformers_messages")
    assert {s["text"]: s["family"] for s in got["sites"]} == {s["text"]: s["family"] for s in full["sites"]}
    by_text = {s["text"]: s for s in full["sites"]}
    assert by_text["xFormers wasn't build with CUDA support"]["family"] == "xformers.build"
    assert by_text["requires device with capability > %s but your GPU has capability %s (too old)"]["older"]
    assert by_text["dropout > 0.0"]["family"] is None  # a reason in any program's words
    for name, (text, want, fix_re) in XF_REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = root_of(doc)
        assert root and root["id"] == want, (name, root and root["id"])
        assert re.search(fix_re, fixes(root)), (name, fixes(root))


# ---- the RL trainers' configuration checks (tools/gen_rl_messages.py: OpenRLHF v0.11.0 / v0.8.0, verl v0.7.0 / v0.4.1)
import gen_rl_messages  # noqa: E402


def test_rl_generator_and_real_texts(cli, tmp_path):
    got = knowgen.regenerated(gen_rl_messages.main, os.path.join(REPO, "tools", "data", "rl_messages_slice.txt"),
                              tmp_path / "rl.json")
    full = knowgen.committed("rl_messages")
    assert {s["text"]: s["family"] for s in got["sites"]} == {s["text"]: s["family"] for s in full["sites"]}
    by_text = {s["text"]: s for s in full["sites"]}
    site = by_text["actor_num_nodes * actor_num_gpus_per_node must be equal to vllm_num_engines * "
                   "vllm_tensor_parallel_size, got %s and %s"]
    assert site["family"] == "rl.parallel_layout" and "--vllm_num_engines" in site["fix"][0]
    # verl's ray_trainer.py resource check stays generated/placement_messages.json's
    assert not any(t.startswith("Total available GPUs") for t in by_text)
    # https://github.com/PRIME-RL/TTRL/issues/43 (verl's fsdp_workers.py, the normalized mini batch of 0)
    text = ("Traceback (most recent call last):\n  File \"/home/tjy/TTRL/verl/verl/trainer/main_ppo.py\", line 31, in "
            "main\n    run_ppo(config)\nAssertionError: ppo_mini_batch_size 0 should be larger than 0 after "
            "normalization\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="ttrl43.txt", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "rl.parallel_layout", root and root["id"]
    assert "n_gpus_per_node" in fixes(root)
