"""torch.distributed's own messages (tools/gen_torch_messages.py -> generated/torch_messages.json):
the generator regenerates the committed sites from its recorded slice, and real error texts from
public threads, run through the CLI (`gpudoctor explain --json FILE`), get the entry and its
specific fix. None of these texts is in fixtures/logs/ or bench/data/.
"""

import json
import os
import subprocess
import sys

import pytest
from explainhelp import assert_root, explain_cli, explain_paste, fixes
from gpudoctor.explain.knowledge import generated_path, open_table

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = generated_path("torch_messages")  # .json or .json.gz


def test_the_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    out = tmp_path / "torch_messages.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_torch_messages.py"), "--slice",
                    os.path.join(REPO, "tools", "data", "torch_messages_slice.txt"), "-o", str(out)],
                   check=True, capture_output=True)
    with open_table(GEN) as f:
        committed = json.load(f)
    with open(out) as f:
        got = json.load(f)
    assert got["sites"] == committed["sites"] and got["unassigned"] == committed["unassigned"]
    head = committed["header"]
    assert head["generator"] == "tools/gen_torch_messages.py" and head["version"].startswith("torch 2.13.0")
    # all three kinds of source are there, and the messages the brief names have their family
    assert {s["source"] for s in committed["sites"]} == {"python", "libtorch_cpu.so", "libtorch_python.so", "source"}
    fam = {}
    for s in committed["sites"]:
        fam.setdefault(s["text"], s["family"])
    assert fam["wait timeout after %sms, keys: %s"] == "rendezvous.store_timeout"
    assert fam["The server socket has failed to listen on any local network address."] == "rendezvous.address_in_use"
    assert fam["Socket Timeout"] == "rendezvous.store_timeout"
    assert any(f == "nccl.timeout" and "Watchdog caught collective operation timeout" in t for t, f in fam.items())


# Real texts (verbatim excerpts), each with its source thread.
REAL = {
    # https://github.com/modelscope/ms-swift/issues/4906 (torch >= 2.4 store wait)
    "store_wait": (
        "[rank0]:     recv_obj = pickle.loads(self.store.get(key))\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /broadcast_from/0/75465\n"),
    # https://github.com/showlab/Tune-A-Video/issues/90
    "port_in_use": (
        "RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
        "failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to "
        "0.0.0.0:29500 (errno: 98 - Address already in use).\n"),
    # https://github.com/HansenHuang0823/PlacidDreamer/issues/2 (accelerate's own check before launching)
    "accelerate_port": (
        '  File "/home/sunzhenyu/anaconda3/envs/PlacidDreamer/lib/python3.10/site-packages/accelerate/utils/launch.py",'
        " line 190, in prepare_multi_gpu_env\n"
        "    raise ConnectionError(\n"
        "ConnectionError: Tried to launch distributed communication on port `29500`, but another process is utilizing "
        "it. Please specify a different port (such as using the `--main_process_port` flag or specifying a different "
        "`main_process_port` in your config file) and rerun your script. To automatically use the next open port (on a "
        "single node), you can set this to `0`.\n"),
    # https://github.com/aurekaresearch/OpenDDE/issues/23
    "mismatch": (
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=0, OpType=_ALLGATHER_BASE, TensorShape=[359, 1, 1435, 16], "
        "TensorDtypes=BFloat16), but Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=0, "
        "OpType=_ALLGATHER_BASE, TensorShape=[359, 1, 1436, 16], TensorDtypes=BFloat16).\n"),
    # https://github.com/buxiangzhiren/DDCap/issues/35
    "unused_parameters": (
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This "
        "error indicates that your module has parameters that were not used in producing loss. You can enable unused "
        "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \n"
        "making sure all `forward` function outputs participate in calculating loss. \n"
        "Parameter indices which did not receive grad for rank 0: 1\n"),
}


def _explain(cli, tmp_path, text, entry=None, **kw):
    # exit 0: a known error explained (gpudoctor explain --help)
    root = assert_root(explain_paste(cli, tmp_path, text, rcs=(0,))[1], entry, **kw)
    return root, fixes(root, exports=True)


@pytest.mark.parametrize("name,entry,fix", [
    ("store_wait", "rendezvous.store_timeout", "first failing rank"),
    ("port_in_use", "rendezvous.address_in_use", "ss -ltnp"),
    ("accelerate_port", "rendezvous.address_in_use", "--main_process_port"),
    ("mismatch", "torch.collective_mismatch", "TORCH_DISTRIBUTED_DEBUG=DETAIL"),
    ("unused_parameters", "torch.ddp_unused_parameters", "find_unused_parameters=True"),
])
def test_real_torch_distributed_errors_get_the_specific_fix(cli, tmp_path, name, entry, fix):
    root, got = _explain(cli, tmp_path, REAL[name], entry, confidence="cause")
    assert fix in got + "\n".join(root.get("debug", [])), (name, got)


def test_the_store_timeout_is_not_read_as_a_plain_errno_timeout(cli, tmp_path):
    # the miss before this source: DistStoreError answered as errno.timeout ("a peer did not answer")
    root, got = _explain(cli, tmp_path, REAL["store_wait"])
    assert root["family"] != "errno.timeout" and "MASTER_ADDR" in got


def test_c10d_progress_lines_of_a_healthy_start_are_no_error(cli, tmp_path):
    # info lines of socket.cpp / TCPStore.cpp (strings of the same libtorch_cpu.so) match no error site
    path = tmp_path / "ok.txt"
    path.write_text("[I socket.cpp:835] The server socket has started to listen on [::]:29500.\n"
                    "[I socket.cpp:923] The client socket has connected to [localhost]:29500 on [localhost]:51350.\n"
                    "[I TCPStore.cpp:290] TCP client connected to host 127.0.0.1:29500\n")
    rc, doc = explain_cli(cli, path)
    assert rc == 0 and doc["verdict"] == "no_error"


# Argument checks with their own meaning and fix (tools/gen_torch_messages.py SITE_FIX), on real texts
# (verbatim excerpts), each from its public thread; none is in fixtures/logs/ or bench/data/.
OWN_FIX = {
    # https://github.com/pytorch/pytorch/issues/100243 (the model still on the CPU when DDP wraps it)
    "ddp_cpu_module": (
        '  File "train_ddp.py", line 57, in main\n'
        "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[LOCAL_RANK],output_device=LOCAL_RANK)\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/parallel/distributed.py", line 508, in __init__\n'
        "    self._log_and_throw(\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/parallel/distributed.py", line 604, in _log_and_throw\n'
        "    raise err_type(err_msg)\n"
        "ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
        "single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], output_device 0, and module "
        "parameters {device(type='cpu')}.\n"),
    # https://github.com/guoqincode/Open-AnimateAnyone/issues/32 (a UNet with every parameter frozen)
    "ddp_frozen": (
        "  unet = DDP(unet, device_ids=[local_rank], output_device=local_rank)\n"
        '  File "/home/hongfating/miniconda3/envs/animate/lib/python3.8/site-packages/torch/nn/parallel/distributed.py",'
        " line 551, in __init__\n"
        "    self._log_and_throw(\n"
        '  File "/home/hongfating/miniconda3/envs/animate/lib/python3.8/site-packages/torch/nn/parallel/distributed.py",'
        " line 686, in _log_and_throw\n"
        "    raise err_type(err_msg)\n"
        "RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
        "gradient.\n"),
    # https://github.com/snowflakedb/ArcticInference/issues/175 (an all_gather_into_tensor sized for another count)
    "all_gather_into_tensor": (
        "(VllmWorker rank=0 pid=104) ERROR 09-09 02:24:28 [multiproc_executor.py:522] ValueError: output tensor size "
        "must be equal to world_size times input tensor size\n"
        '(VllmWorker rank=1 pid=105) ERROR 09-09 02:24:28 [multiproc_executor.py:522]   File "/usr/local/lib/python3.12/'
        'dist-packages/torch/distributed/distributed_c10d.py", line 3836, in all_gather_into_tensor\n'
        "(VllmWorker rank=1 pid=105) ERROR 09-09 02:24:28 [multiproc_executor.py:522]     work = "
        "group._allgather_base(output_tensor, input_tensor, opts)\n"),
    # https://github.com/skyhehe123/SA-SSD/issues/17 (DDP's broadcast of a model left on the CPU)
    "cuda_and_dense": (
        '  File "/root/miniconda3/envs/pcdet/lib/python3.7/site-packages/torch/nn/parallel/distributed.py", line 480, '
        "in _distributed_broadcast_coalesced\n"
        "    dist._broadcast_coalesced(self.process_group, tensors, buffer_size)\n"
        "RuntimeError: Tensors must be CUDA and dense\n"),
    # https://github.com/ByteDance-Seed/Bagel/issues/85 (FSDP1 over a LoRA model: frozen and trainable in one unit)
    "fsdp_requires_grad": (
        "any suggestions for using LoraConfig/get_peft_model? it reports the following error: ValueError: Must "
        "flatten tensors with uniform `requires_grad` when `use_orig_params=False`\n"),
    # https://github.com/huggingface/transformers/issues/27542 (the same check as torch 2.0 words it)
    "fsdp_requires_grad_2_0": (
        '  File "/home/aelkordy/.conda/envs/mamoth/lib/python3.9/site-packages/torch/distributed/fsdp/flat_param.py", '
        "line 440, in _init_flat_param\n"
        "    raise ValueError(\n"
        "ValueError: `FlatParameter` requires uniform `requires_grad`\n"),
    # https://github.com/meta-pytorch/torchtune/issues/2856 (LoRA under FSDP2: a plain tensor meets a DTensor)
    "dtensor_mixed": (
        '[rank1]:   File "/home/ubuntu/miniconda3/envs/py310/lib/python3.10/site-packages/torch/distributed/tensor/'
        '_dispatch.py", line 452, in _try_replicate_spec_for_scalar_tensor\n'
        "[rank1]:     raise RuntimeError(\n"
        "[rank1]: RuntimeError: aten.mm.default: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor "
        "to DTensor before calling distributed operators!\n"),
    # https://github.com/Facico/Chinese-Vicuna/issues/168 (an fp16 model under the Trainer's GradScaler)
    "gradscaler_fp16": (
        '  File "/home/whzhu_st/mypython/lib/python3.8/site-packages/torch/cuda/amp/grad_scaler.py", line 210, in '
        "_unscale_grads_\n"
        '    raise ValueError("Attempting to unscale FP16 gradients.")\n'
        "ValueError: Attempting to unscale FP16 gradients.\n"),
}


@pytest.mark.parametrize("name,entry,means,fix", [
    ("gradscaler_fp16", "usercode.dtype_mismatch", "parameters themselves are float16", "keep the model float32"),
    ("fsdp_requires_grad", "torch.distributed_usage", "mixes frozen and trainable", "use_orig_params=True"),
    ("fsdp_requires_grad_2_0", "torch.distributed_usage", "mixes frozen and trainable", "use_orig_params=True"),
    ("dtensor_mixed", "torch.distributed_usage", "plain torch.Tensor", "DTensor.from_local"),
    ("ddp_cpu_module", "torch.distributed_usage", "still on the CPU", "model.to(local_rank); model = DDP(model, "
                                                                       "device_ids=[local_rank])"),
    ("ddp_frozen", "torch.distributed_usage", "requires_grad=False", "wrap only the trainable submodule"),
    ("all_gather_into_tensor", "torch.c10d_error", "world_size x input.numel()", "dist.get_world_size(group)"),
    ("cuda_and_dense", "torch.c10d_error", "on the CPU", "t.cuda(local_rank)"),
])
def test_an_argument_check_gets_the_meaning_and_fix_of_its_own_message(kb, name, entry, means, fix):
    from gpudoctor import explain

    res = explain.explain_text(OWN_FIX[name], kb)
    root = res["findings"][0]
    assert root["id"] == entry and root["confidence"] == "cause", (name, root["id"])
    # the message's own cause comes first, with its line as evidence, before the family's generic causes
    first = root["causes"][0]
    assert means in first["text"] and any(fix in f for f in first["fix"]), (name, first)
    assert first["evidence"] and first["evidence"][0]["text"] in OWN_FIX[name]


def test_most_argument_checks_of_the_torch_generator_carry_their_own_fix():
    # before this table, 1 of 918 sites had its own fix; the user-facing checks of distributed_c10d.py,
    # DDP's constructor and ProcessGroupNCCL's tensor checks are what the table is for
    with open_table(GEN) as f:
        sites = json.load(f)["sites"]
    own = [s for s in sites if s.get("fix")]
    assert len(own) >= 150
    for text in ("Tensors must be contiguous", "device_ids can only be None or contain a single element.",
                 "trying to initialize the default process group twice!",
                 "input tensor must be the same size as output size times world size",
                 # torch 2.5.1's wording (--older), reworded by 2.13 ("Rank %s is out of range ...")
                 "The new group's rank should be within the world_size set by init_process_group"):
        assert any(s["text"] == text and s.get("fix") for s in sites), text
    # every fix is a list of concrete strings beside its meaning (the loader's own contract)
    assert all(isinstance(s["means"], str) and s["fix"] and all(isinstance(x, str) for x in s["fix"]) for s in own)
