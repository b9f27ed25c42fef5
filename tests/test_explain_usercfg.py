"""The user's call or configuration, reported through a library (issue 18): a torch.distributed API the
installed torch lacks, DeepSpeed's batch-size arithmetic, accelerate refusing a device_map / 8-bit model
under DDP, the DeepSpeed config disagreeing with the Trainer's arguments.

The knowledge is generated from the libraries' own sources: tools/gen_torch_api.py reads the torch
wheels' torch/distributed sources per release (its record tools/data/torch_api_slice.txt), and
tools/gen_trainer_messages.py reads deepspeed's runtime config, accelerate's Accelerator and
transformers' Trainer (its slice tools/data/trainer_messages_slice.txt.gz). Each generator regenerates
the committed file from its slice; the real texts come from public threads, cited per text.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_torch_api  # noqa: E402
import gen_trainer_messages  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id  # noqa: E402

from gpudoctor.explain import torchapi  # noqa: E402

# Real texts from public threads (the user-visible lines as posted), each with the entry explain must
# name and a word of the fix the thread settled on.
REAL = {
    # https://github.com/QwenLM/Qwen2.5-Omni/issues/87 (settled: a newer torch, "Please use torch==2.6.0")
    # (a submodule: an attribute once imported; the module exists since torch 2.2)
    "qwen_omni_87": ("AttributeError: module 'torch.distributed' has no attribute 'device_mesh'\n",
                     "torch.api_version", "import torch.distributed.device_mesh"),
    # https://github.com/zyushun/Adam-mini/issues/33 (settled: "upgrade your torch version")
    "adam_mini_33": ("torch version is 1.12.0+cu116\n"
                     "ModuleNotFoundError: No module named 'torch.distributed._tensor'\n",
                     "torch.api_version", "your torch 1.12.0 is older"),
    # https://github.com/EleutherAI/bergson/pull/251 (settled: require torch>=2.4 for FSDP2's fully_shard)
    "bergson_251": ("ImportError: cannot import name 'fully_shard' from 'torch.distributed.fsdp'\n",
                    "torch.api_version", "pip install 'torch>="),
    # https://github.com/huggingface/accelerate/issues/436 (PyTorch 1.11.0; ShardingStrategy came with 1.12)
    "accelerate_436": ("- PyTorch version (GPU?): 1.11.0 (True)\n"
                       "ImportError: cannot import name 'ShardingStrategy' from "
                       "'torch.distributed.fsdp.fully_sharded_data_parallel'\n",
                       "torch.api_version", "arrived in torch 1.12.0"),
    # https://github.com/cavalleria/cavaface/issues/62 (every torch has it: a build without distributed)
    "cavaface_62": ("AttributeError: module 'torch.distributed' has no attribute 'init_process_group'\n",
                    "torch.api_version", "built without torch.distributed"),
    # https://github.com/OpenRLHF/OpenRLHF/issues/346 (settled: a batch size that is a multiple of the 7 GPUs)
    "openrlhf_346": ("AssertionError: Check batch related parameters. train_batch_size is not equal to "
                     "micro_batch_per_gpu * gradient_acc_step * world_size 256 != 2 * 18 * 7\n",
                     "deepspeed.batch_size", "train_batch_size 252 (= 2 * 18 * 7)"),
    # https://github.com/bigcode-project/starcoder/issues/77 (rich's traceback wraps the message over 3 lines)
    "starcoder_77": ("AssertionError: Check batch related parameters. train_batch_size is not\n"
                     "equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 *\n"
                     "8 * 1\n"
                     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 "
                     "(pid: 4012) of binary: /opt/conda/bin/python\n",
                     "deepspeed.batch_size", "train_batch_size"),
    # https://github.com/LIN-SHANG/InstructERC/issues/16
    "instructerc_16": ("AssertionError: Micro batch size per gpu: 0 has to be greater than 0\n",
                       "deepspeed.batch_size", "train_batch_size"),
    # https://github.com/yangjianxin1/Firefly/issues/270 (torchrun --nproc_per_node=4, QLoRA: device_map per rank)
    "firefly_270": ("ValueError: You can't train a model that has been loaded in 8-bit precision on a different "
                    "device than the one you're training on. Make sure you loaded the model on the correct device "
                    "using for example `device_map={'':torch.cuda.current_device()}`\n",
                    "accelerate.quantized_distributed", "device_map={'': "),
    # https://github.com/huggingface/peft/issues/414 (accelerate 0.19's wording; settled: a newer accelerate that
    # loads per process, huggingface/accelerate#1523)
    "peft_414": ("ValueError: You can't train a model that has been loaded in 8-bit precision on multiple devices.\n",
                 "accelerate.quantized_distributed", "device_map={'': "),
    # https://github.com/yandex-research/DeDLOC/issues/3 (transformers 4.x's older wording; settled: the runtime
    # had no GPU)
    "dedloc_3": ("ValueError: Mixed precision training with AMP or APEX (`--fp16`) and FP16 evaluation can only be "
                 "used on CUDA devices.\n", "transformers.precision_no_gpu", "CUDA build of torch"),
    # https://github.com/FlagOpen/FlagEmbedding/issues/546 (transformers 4.3x; cu12 wheels on a CUDA 11.6 setup)
    "flagembedding_546": ("ValueError: FP16 Mixed precision training with AMP or APEX (`--fp16`) and FP16 half "
                          "precision evaluation (`--fp16_full_eval`) can only be used on CUDA or NPU devices or "
                          "certain XPU devices (with IPEX).\n", "transformers.precision_no_gpu", "CUDA Version"),
    # https://github.com/ultralytics/yolov5/issues/90 (settled: model.module.model)
    "yolov5_90": ("  File \"/home/aixin/anaconda3/envs/pytorch/lib/python3.6/site-packages/torch/nn/modules/module.py\", "
                  "line 539, in __getattr__\n    type(self).__name__, name))\n"
                  "AttributeError: 'DistributedDataParallel' object has no attribute 'model'\n",
                  "torch.ddp_wrapper_attribute", "model.module.model"),
    # https://github.com/VinAIResearch/XPhoneBERT/issues/7 (torch==1.12.1; settled: net_g.module.enc_p)
    "xphonebert_7": ("AttributeError: 'DistributedDataParallel' object has no attribute 'enc_p'\n",
                     "torch.ddp_wrapper_attribute", "model.module.enc_p"),
    # https://github.com/huggingface/diffusers/issues/2044 (accelerate launch; the unet is wrapped)
    "diffusers_2044": ("    if unet.dtype != torch.float32:\n"
                       "AttributeError: 'DistributedDataParallel' object has no attribute 'dtype'\n",
                       "torch.ddp_wrapper_attribute", "unwrap_model"),
    # https://github.com/rwth-i6/returnn/issues/1467 (a torch 2.1 environment: DDP's own num_iterations counter is
    # gone since torch 2.1, read from the wheels' sources)
    "returnn_1467": ("    line: pt_model.num_iterations += 1\n"
                     "  File \"/home/az668407/work/py-envs/py3.10-torch2.1/lib/python3.10/site-packages/torch/nn/"
                     "modules/module.py\", line 1695, in Module.__getattr__\n"
                     "    line: raise AttributeError(f\"'{type(self).__name__}' object has no attribute '{name}'\")\n"
                     "AttributeError: 'DistributedDataParallel' object has no attribute 'num_iterations'\n",
                     "torch.ddp_wrapper_attribute", "removed in torch 2.1.0"),
    # https://github.com/NVlabs/MambaVision/issues/9 (settled: "pip install --upgrade torch")
    "mambavision_9": ("AttributeError: module 'torch.nn.functional' has no attribute 'scaled_dot_product_attention'\n",
                      "torch.api_version", "arrived in torch 2.0.0"),
    # https://github.com/dropbox/hqq/issues/15 (torch.compile on an old torch)
    "hqq_15": ("AttributeError: module 'torch' has no attribute 'compile'\n", "torch.api_version",
               "torch.compile arrived in torch 2.0.0"),
    # https://github.com/MooreThreads/Moore-AnimateAnyone/issues/39 (torch.load(weights_only=...) on torch < 1.13,
    # which passed it on to pickle; chaofengc/IQA-PyTorch#219 settled the same with torch >= 1.13)
    "animateanyone_39": ("TypeError: 'weights_only' is an invalid keyword argument for Unpickler()\n",
                         "torch.api_version", "load(weights_only=...) arrived in torch 1.13.0"),
    # https://github.com/shibing624/MedicalGPT/issues/191 (settled: the ds config's fp16 to 'auto')
    "medicalgpt_191": ("  File \"/home/wjy/software/anaconda3/envs/nlp/lib/python3.10/site-packages/transformers/"
                       "deepspeed.py\", line 220, in trainer_config_finalize\n"
                       "    raise ValueError(\n"
                       "ValueError: Please correct the following DeepSpeed config values that mismatch "
                       "TrainingArguments values:\n"
                       "- ds fp16.enabled=True vs hf fp16|fp16_full_eval+fp16_backend(amp)=False\n"
                       "The easiest method is to set these DeepSpeed config values to 'auto'.\n",
                       "deepspeed.hf_config_mismatch", "\"auto\""),
}


def test_torch_api_regenerates_from_its_record(tmp_path):
    out = tmp_path / "torch_api.json"
    gen_torch_api.main(["--slice", os.path.join(REPO, "tools", "data", "torch_api_slice.txt"), "-o", str(out)])
    import json

    got, full = json.loads(out.read_text()), knowgen.committed("torch_api")
    for key in ("releases", "modules", "names", "params", "members"):
        assert got[key] == full[key], key
    assert got["header"]["version"] == full["header"]["version"]
    # what the wheels' sources say (torch's own release notes agree): device_id arrived in 2.3,
    # DeviceMesh's public module in 2.2, FSDP2's fully_shard in torch.distributed.fsdp in 2.6
    assert full["params"]["init_process_group"]["args"]["device_id"]["since"] == "2.3.0"
    assert full["modules"]["torch.distributed.device_mesh"]["since"] == "2.2.0"
    assert full["names"]["torch.distributed.fsdp"]["fully_shard"]["since"] == "2.6.0"


def test_torch_api_reads_python_sources_with_ast():
    # two releases' init_process_group, as their wheels' distributed_c10d.py define it (abridged), and a
    # package whose __init__ star-imports it under `if is_available():`
    old = ("__all__ = ['init_process_group', 'Backend']\n"
           "class Backend: pass\n"
           "def init_process_group(backend, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,\n"
           "                       group_name='', pg_options=None):\n    pass\n")
    new = old.replace("pg_options=None)", "pg_options=None, device_id=None)")
    pkg = ("def is_available(): return True\n"
           "if is_available():\n    from .distributed_c10d import *\n    from .device_mesh import DeviceMesh\n")
    per = {}
    for rel, c10d, extra in (("2.2.0", old, []), ("2.3.0", new, [("torch/distributed/device_mesh.py",
                                                                   "class DeviceMesh: pass\n")])):
        files = [("torch/distributed/__init__.py", pkg), ("torch/distributed/distributed_c10d.py", c10d)] + extra
        per[rel] = gen_torch_api.extract(files)
    assert per["2.2.0"]["params"]["init_process_group"]["args"][-1] == "pg_options"
    assert "DeviceMesh" in per["2.2.0"]["names"]["torch.distributed"]  # bound by the import line itself
    doc = gen_torch_api.build(per, "test")
    assert doc["params"]["init_process_group"]["args"]["device_id"] == {"since": "2.3.0", "removed": None}
    assert doc["params"]["init_process_group"]["args"]["backend"] == {"since": None, "removed": None}
    assert doc["modules"]["torch.distributed.device_mesh"]["since"] == "2.3.0"
    assert "init_process_group" in per["2.2.0"]["names"]["torch.distributed"]
    # importing a submodule makes it an attribute of the package (Python reference, 5.4.2 Submodules)
    assert "device_mesh" in per["2.3.0"]["names"]["torch.distributed"]


def test_torch_api_answers_compare_the_log_version():
    line = "TypeError: init_process_group() got an unexpected keyword argument 'device_id'"
    fix, why = torchapi.compute([line, "torch==2.1.2"])
    assert "arrived in torch 2.3.0" in fix and "your torch 2.1.2 is older" in fix and "torch>=2.3.0" in fix
    fix, _ = torchapi.compute([line, "PyTorch version: 2.4.0"])
    assert "another torch" in fix  # the log's torch has it: the failing process imports a different one
    fix, _ = torchapi.compute(["TypeError: DistributedDataParallel.__init__() got an unexpected keyword argument "
                               "'device_mesh'"])
    assert "DistributedDataParallel(device_mesh=...)" in fix and "arrived in torch 2." in fix
    fix, _ = torchapi.compute(["AttributeError: module 'torch.distributed' has no attribute 'init_proces_group'"])
    assert fix.startswith("no torch release from 1.9.0")
    assert torchapi.compute(["AttributeError: module 'numpy' has no attribute 'float'"]) is None
    # Python < 3.10 prints a bare __init__(): the call line above names the class; without one, no answer
    init = "TypeError: __init__() got an unexpected keyword argument 'static_graph'"
    fix, _ = torchapi.compute(["    model = DDP(model, device_ids=[rank], static_graph=True)", init, "torch==1.10.2"])
    assert "DistributedDataParallel(static_graph=...) arrived in torch 1.11.0" in fix and "1.10.2 is older" in fix
    assert torchapi.compute(["    loader = DataLoader(ds, static_graph=True)", init]) is None
    # a wrapper's attribute: the model's own -> model.module.X; a member of a later torch -> that release
    fix, _ = torchapi.compute(["AttributeError: 'DistributedDataParallel' object has no attribute 'generate'"])
    assert "model.module.generate" in fix
    fix, _ = torchapi.compute(["AttributeError: 'DistributedDataParallel' object has no attribute 'join_hook'",
                               "torch==1.9.0"])
    assert "DistributedDataParallel.join_hook arrived in torch 1.10.0" in fix
    # a submodule the package does not import itself: import it (upgrade only when older than the module)
    fix, _ = torchapi.compute(["AttributeError: module 'torch.distributed' has no attribute 'fsdp'", "torch==2.4.0"])
    assert "import torch.distributed.fsdp" in fix and "upgrade" not in fix
    # private names are not in the table: never "no release has it"
    fix, _ = torchapi.compute(["AttributeError: module 'torch.distributed' has no attribute '_all_gather_base'"])
    assert "is private" in fix and "all_gather_into_tensor" in fix
    fix, _ = torchapi.compute(["ModuleNotFoundError: No module named 'torch.distributed.fsdp._runtime_utils'"])
    assert "is private" in fix


def test_deepspeed_batch_values_are_computed_from_the_message():
    from gpudoctor.explain.dsconfig import ds_batch

    msg = ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
           "gradient_acc_step * world_size %s")
    fix, why = ds_batch([msg % "32 != 4 * 1 * 4"])  # a config for 8 GPUs run on 4
    assert "train_batch_size 16 (= 4 * 1 * 4)" in fix and "gradient_accumulation_steps 2" in fix
    assert "micro batch 4" in why and "world size 4" in why
    fix, _ = ds_batch([msg % "256 != 2 * 18 * 7"])
    assert "not a multiple of the world size 7" in fix and "gradient_accumulation_steps" not in fix
    assert ds_batch([msg % "8 != 0 * 1 * 1"]) is None and ds_batch(["train_batch_size 8"]) is None


def test_trainer_messages_regenerate_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen_trainer_messages.main,
                              os.path.join(REPO, "tools", "data", "trainer_messages_slice.txt.gz"),
                              tmp_path / "trainer_messages.json")
    full = knowgen.committed("trainer_messages")
    assert got["sites"] == full["sites"] and got["header"]["version"] == full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    batch = [s for t, s in by_text.items() if t.startswith("Check batch related parameters")]
    assert batch and batch[0]["family"] == "deepspeed.batch_size" and "fix" not in batch[0]  # computed: ds_batch
    assert by_text["bfloat16 and fp16 modes cannot be simultaneously enabled"]["family"] == "deepspeed.config"
    assert all(not s["family"] for s in full["sites"] if s["level"] == "warning")


def test_real_texts_name_the_entry_and_the_fix(cli, tmp_path):
    for name, (text, entry, word) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        assert root_id(doc) == entry, (name, ids(doc))
        assert word in fixes(doc["findings"][0], " "), (name, fixes(doc["findings"][0]))
