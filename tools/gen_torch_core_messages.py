#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_core_messages.json: torch's own messages outside
torch.distributed that a training job meets - torch.load, nn.Module, autograd's Python layer,
torch.compile (TorchDynamo), the DataLoader's options and samplers, torch.cuda, torch.amp, the CUDA
caching allocator's PYTORCH_CUDA_ALLOC_CONF parsing, torch.utils.cpp_extension - each with a bounded
matcher, the knowledge family from the RULES table below and, for the sites users meet, their own
meaning and fix (MSG_FIX). Sites no rule assigns are listed (docs/explain.md), never guessed.

Two kinds of source, both from the torch wheel users run (PyPI's Linux x86_64 wheel, a CUDA build):
- python: `raise X("...")`, `warnings.warn(...)`, `log.warning/error(...)`, the module-level message
  constants (cpp_extension.py's CUDA_MISMATCH_MESSAGE, ...) and the `return "..."` of the functions
  that build a message (serialization.py's _get_wo_message) in PY_FILES, read with Python's ast (never
  executed); recorded as one slice block per statement (`=== path @LINE`).
- strings: the C++ messages of the libraries in LIBS (c10's allocator configuration in libc10.so and
  libc10_cuda.so: c10/core/AllocatorConfig.cpp, c10/cuda/CUDAAllocatorConfig.cpp) that LIB_SELECT
  picks, and the messages JOINS spells from the fragments a c10::str / CAFFE_THROW call joins
  (caffe2/serialize/inline_container.cc's "PytorchStreamReader failed " "reading zip archive" ": "
  <miniz's error>), kept only when every fragment is in the library.

torch.distributed, DDP/FSDP and the usercode sites of tools/gen_torch_messages.py (load_state_dict's
errors, the DataLoader's worker and timeout messages, autograd's C++ messages, the out-of-memory
message) are that generator's: a message its USER_SELECT_PY picks is left out here (OWNED).

Usage:
    python tools/gen_torch_core_messages.py --pypi 2.15.0 --older 2.1.0 --older 2.4.0 [-o OUT]
        (reads PY_FILES and LIBS of that release's Linux x86_64 wheel from PyPI by HTTP range requests,
        as tools/gen_torch_api.py does, and writes tools/data/torch_core_messages_slice.txt too; --older: also
        the PY_FILES and OLDER_LIBS of an older release, whose wordings the newer one lacks become sites)
    python tools/gen_torch_core_messages.py --slice tools/data/torch_core_messages_slice.txt -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/, BSD-3-Clause); pytorch/pytorch
(https://github.com/pytorch/pytorch): torch/serialization.py, torch/_weights_only_unpickler.py,
torch/nn/modules/module.py, torch/autograd/, torch/_dynamo/, torch/utils/data/, torch/cuda/,
torch/amp/, torch/utils/cpp_extension.py, c10/core/AllocatorConfig.cpp,
c10/cuda/CUDAAllocatorConfig.cpp, caffe2/serialize/inline_container.cc.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_torch_messages  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_torch_core_messages.py"
SLICE = os.path.join(knowgen.DATA, "torch_core_messages_slice.txt")
PY_FILES = ["serialization.py", "_weights_only_unpickler.py", "nn/modules/module.py", "autograd/__init__.py",
            "autograd/graph.py", "autograd/function.py", "_dynamo/exc.py", "_dynamo/convert_frame.py", "_inductor/exc.py",
            "_dynamo/eval_frame.py", "utils/data/dataloader.py", "utils/data/sampler.py",
            "utils/data/distributed.py", "cuda/__init__.py", "cuda/memory.py", "amp/grad_scaler.py",
            "amp/autocast_mode.py", "utils/cpp_extension.py"]
LIBS = ["lib/libc10.so", "lib/libc10_cuda.so", "lib/libtorch_cpu.so"]
# an --older release's libraries (the allocator's wording before c10/core/AllocatorConfig.cpp; libtorch_cpu.so's
# JOINS read the same in those releases)
OLDER_LIBS = ["lib/libc10.so", "lib/libc10_cuda.so"]
# the allocator configuration's messages (c10/core/AllocatorConfig.cpp, c10/cuda/CUDAAllocatorConfig.cpp:
# TORCH_CHECK / TORCH_WARN texts of the parse* functions), as the library strings hold them
LIB_SELECT = {
    "lib/libc10.so": re.compile(r"^(?:garbage_collect\w* is invalid|For roundups, |CachingAllocator option |"
                                r"pinned_max_round_threshold_mb \($|"
                                r"\) > pinned_max_cached_size_mb \($|Expected closing bracket|Expected 'True' or 'False')"),
    "lib/libc10_cuda.so": re.compile(r"^(?:per_process_memory_fraction is invalid|Unknown allocator backend|"
                                     r"Allocator backend parsed at runtime|backend:cudaMallocAsync ignores|"
                                     r"Pinned reserve segment size|Ignoring invalid expandable-segment|"
                                     r"Expected closing bracket|Expected 'True' or 'False'|"
                                     # torch 2.1's wording (c10/cuda/CUDACachingAllocator.cpp's parseArgs then)
                                     r"Unrecognized CachingAllocator option|Expected a single True/False argument|"
                                     r"Error parsing CachingAllocator settings|Error parsing (?:backend|roundup)|"
                                     r"Error, expecting \w+ value|backend:cudaMallocAsync requires CUDA runtime|"
                                     r"garbage_collect_threshold too |CachingAllocator option |For roundups, )"),
    "lib/libtorch_cpu.so": None,  # JOINS only
}
# messages a C++ call joins from fragments: (library, where, fragments, format); the format is recorded
# when every fragment is one of the library's strings. caffe2/serialize/inline_container.cc
# PyTorchStreamReader::valid(): CAFFE_THROW("PytorchStreamReader failed ", what, info, ": ",
# mz_zip_get_error_string(err)) with what = "reading zip archive" (init), "locating file " + name,
# "reading file " + name; miniz's mz_zip_get_error_string texts ("failed finding central directory",
# "file read failed", "not a ZIP archive"). c10/cuda/CUDAAllocatorConfig.cpp / c10/core/AllocatorConfig.cpp
# parseArgs: TORCH_CHECK(false, "Unrecognized key '", key, "' in CUDA allocator config.") (the Accelerator
# allocator's in AllocatorConfig.cpp)
JOINS = [
    ("lib/libtorch_cpu.so", "caffe2/serialize/inline_container.cc",
     ["PytorchStreamReader failed ", "reading zip archive"], "PytorchStreamReader failed reading zip archive: %s"),
    ("lib/libtorch_cpu.so", "caffe2/serialize/inline_container.cc",
     ["PytorchStreamReader failed ", "locating file ", "file not found"],
     "PytorchStreamReader failed locating file %s: file not found"),
    ("lib/libtorch_cpu.so", "caffe2/serialize/inline_container.cc",
     ["PytorchStreamReader failed ", "reading file ", "file read failed"],
     "PytorchStreamReader failed reading file %s: file read failed"),
    ("lib/libtorch_cpu.so", "caffe2/serialize/inline_container.cc",
     ["PytorchStreamWriter failed ", "writing file "], "PytorchStreamWriter failed writing file %s: %s"),
    ("lib/libc10_cuda.so", "c10/cuda/CUDAAllocatorConfig.cpp",
     ["Unrecognized key '", "' in CUDA allocator config."], "Unrecognized key '%s' in CUDA allocator config."),
    ("lib/libc10.so", "c10/core/AllocatorConfig.cpp",
     ["Unrecognized key '", "' in Accelerator allocator config."],
     "Unrecognized key '%s' in Accelerator allocator config."),
]
# what tools/gen_torch_messages.py's usercode sites hold: left out here
OWNED = gen_torch_messages.USER_SELECT_PY
# a message in Python's own wording (AttributeError / TypeError of any class): never torch's alone
PY_WORDING = re.compile(r"^%s object has no attribute|^'%s' object has no attribute|^%s\.__init__\(\) (?:got an|takes)|"
                        r"^%s has no attribute `%s`$|^module %s has no attribute %s$")
# internal consistency checks (a bug in torch, not in the job): unassigned
INTERNAL = re.compile(r"must not be None|should not be None|to be set\.?$|report a bug|should never be called|^bug:|"
                      r"^Expected (?:output|self\.forward|compiled_forward|compiler_name|gradient function)|"
                      r"must have output_instructions|^Implement |NYI$|^Trace id|^frame_id|^RESUME|^closure length|"
                      r"inconsistent|does not match shutdown|^Invalid iterator state|exceeded maximum allowed tasks|"
                      r"must be a str, got|_growth_tracker|^_scale|^_get_scale_async|^saved_id must|"
                      r"^Unknown (?:saved id|typename|endianness)|^expected key '0'|debug assert|INTERNAL ASSERT")

# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning | string)
RULES = [
    ("internal", None, {"text": INTERNAL.pattern}),
    ("python-wording", None, {"text": PY_WORDING.pattern}),
    # the allocator's settings (libc10*.so)
    ("alloc-conf", "cuda.alloc_conf", {"where": r"libc10", "level": r"string|raise"}),
    # torch.load: the file (serialization.py, _weights_only_unpickler.py, inline_container.cc)
    ("load-device", "cuda.not_available", {"text": r"deserialize object on a (?:%s|CUDA) device but|"
                                                   r"device module is not registered"}),
    ("load-ordinal", "cuda.invalid_device_ordinal", {"text": r"deserialize object on (?:%s|CUDA) device %s but"}),
    ("load", "torch.checkpoint_load", {"where": r"serialization\.py|_weights_only_unpickler|inline_container",
                                       "level": r"raise|string",
                                       "text": r"PytorchStream|Weights only load failed|Unsupported global|"
                                               r"Invalid magic number|is a zip archive|legacy \.tar format|"
                                               r"TorchScript archive|safetensors|mmap can only be used|"
                                               r"checkpoint returned by torch\.save|not found in deserialized|"
                                               r"restore data location|WEIGHTS_ONLY_LOAD|explicit pickle_module|"
                                               r"Invalid protocol version|blocked|unsupported|[Uu]nexpected|"
                                               r"Unsupported operand|Unsupported class|supports dill|weights_only|"
                                               r"allowlisted via `add_safe_globals`|likely corrupt|to load DTensors|^Can only build Tensor|"
                                               r"unsupported class"}),
    # torch.cuda
    ("no-cuda", "cuda.not_available", {"level": r"raise", "text": r"compiled without CUDA support|"
                                                                  r"not compiled with CUDA enabled"}),
    ("ordinal", "cuda.invalid_device_ordinal", {"where": r"^torch/cuda/", "level": r"raise",
                                                "text": r"is not visible \(CUDA_VISIBLE|^Invalid (?:peer )?device id"}),
    ("fork", "cuda.init_failed", {"text": r"re-initialize CUDA in forked subprocess|libcudart functions unavailable"}),
    ("bf16", "cuda.bf16_unsupported", {"text": r"does not support bfloat16"}),
    # torch.utils.cpp_extension: building an extension
    ("cuda-home", "build.cuda_home", {"where": r"cpp_extension", "level": r"raise",
                                      "text": r"CUDA_HOME environment variable is not set|^nvcc not found at|"
                                              r"^CUDA was not found on the system"}),
    ("ninja", "build.ninja", {"where": r"cpp_extension", "level": r"raise", "text": r"^Ninja is required|ninja is required"}),
    ("cuda-mismatch", "build.cuda_mismatch", {"where": r"cpp_extension", "level": r"raise",
                                              "text": r"mismatches the version that was used to compile|"
                                                      r"required version by CUDA"}),
    ("arch", "build.nvcc_arch", {"where": r"cpp_extension", "level": r"raise", "text": r"^Unknown CUDA arch"}),
    # torch.compile
    ("dynamo", "torch.compile_error", {"where": r"_dynamo/", "level": r"raise",
                                       "text": r"fullgraph|recompile_limit|not (?:yet )?supported|cannot JIT compile|"
                                               r"does not support compiling|aot compile|AOT Compile|compile stance|"
                                               r"set_stance|caching is required"}),
    # TorchInductor's own exceptions (torch/_inductor/exc.py): triton missing or the GPU too old for it
    ("inductor", "torch.compile_error", {"where": r"_inductor/exc\.py", "level": r"raise",
                                         "text": r"triton|^No working C\+\+ compiler found"}),
    # the DataLoader's pin-memory thread (its workers' messages are gen_torch_messages' usercode sites)
    ("pin-thread", "usercode.dataloader_killed", {"text": r"^Pin memory thread exited unexpectedly"}),
    # the rest: an argument or state check of the API; its message names what to change
    ("usage", "torch.usage", {"where": r"^torch/(?:nn/modules|autograd|utils/data|cuda|amp)/", "level": r"raise"}),
]

_NO_CUDA_WHEEL = ("install a CUDA build of torch: pip install torch --index-url https://download.pytorch.org/whl/cu<XY> "
                  "(the CUDA release of the driver or below: nvidia-smi's 'CUDA Version'); "
                  "python -c 'import torch; print(torch.version.cuda)' prints None for a CPU wheel")
_ALLOC_DOC = "https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"
_TRUST = "only for a checkpoint you trust (it runs the pickle's code): torch.load(path, weights_only=False)"

# What one message means and what to do (the first regex over the site's format that matches; an assigned
# site only), written from the code around each site and the documentation of the call it guards (torch 2.15):
# - torch/serialization.py (torch.load: _check_dill_version, _get_restore_location / _validate_device,
#   _legacy_load's magic number, _load's weights_only paths, _get_wo_message), torch/_weights_only_unpickler.py
#   and https://pytorch.org/docs/stable/generated/torch.load.html, https://pytorch.org/docs/stable/notes/serialization.html
#   ("weights_only ... default True since 2.6"; add_safe_globals / safe_globals; map_location)
# - caffe2/serialize/inline_container.cc (PyTorchStreamReader::init / valid: the file is not a whole zip archive)
# - torch/nn/modules/module.py (__setattr__, register_parameter/buffer, _apply, to()) and
#   https://pytorch.org/docs/stable/generated/torch.nn.Module.html (to_empty, "meta" device:
#   https://pytorch.org/docs/stable/meta.html)
# - torch/autograd/__init__.py (_make_grads), function.py and https://pytorch.org/docs/stable/notes/extending.html
# - torch/utils/data/dataloader.py (DataLoader.__init__'s option checks), distributed.py (DistributedSampler) and
#   https://pytorch.org/docs/stable/data.html
# - torch/cuda/__init__.py (_lazy_init: "To use CUDA with multiprocessing, you must use the 'spawn' start
#   method"; _raw_device_uuid_nvml; set_device), memory.py (set_per_process_memory_fraction) and
#   https://pytorch.org/docs/stable/notes/multiprocessing.html#cuda-in-multiprocessing
# - torch/amp/grad_scaler.py (unscale_ / step / update's state checks, _unscale_grads_'s allow_fp16) and
#   https://pytorch.org/docs/stable/amp.html, https://pytorch.org/docs/stable/notes/amp_examples.html
#   ("unscale_ should only be called once per optimizer per step call")
# - torch/_dynamo/convert_frame.py (the recompile limit: config.recompile_limit, fail_on_recompile_limit_hit),
#   eval_frame.py (Python versions, jit.script) and https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html
# - torch/utils/cpp_extension.py (_check_cuda_version, _get_cuda_arch_flags, verify_ninja_availability,
#   CUDA_HOME) and https://pytorch.org/docs/stable/cpp_extension.html
# - c10/core/AllocatorConfig.cpp, c10/cuda/CUDAAllocatorConfig.cpp and the PYTORCH_CUDA_ALLOC_CONF docs, _ALLOC_DOC
MSG_FIX = [
    # ---- torch.load
    (r"^Attempting to deserialize object on a (?:%s|CUDA) device but torch\.(?:%s|cuda)\.is_available\(\) is False",
     "torch.load: the checkpoint's tensors were saved on a GPU and this process sees none (a CPU-only node or "
     "torch wheel, or CUDA_VISIBLE_DEVICES empty).",
     ["torch.load(path, map_location='cpu') on a machine without GPUs", _NO_CUDA_WHEEL]),
    (r"^The %s device module is not registered",
     "torch.load: the checkpoint names a device type (cuda, xpu, mps ...) this torch build does not have.",
     ["torch.load(path, map_location='cpu'), then move the model to the device this machine has"]),
    (r"^Attempting to deserialize object on (?:%s|CUDA) device %s but torch\.(?:%s|cuda)\.device_count\(\) is %s",
     "torch.load: the tensors were saved on a GPU index this process does not see (saved from cuda:N by rank N; "
     "this process sees fewer GPUs, e.g. one per rank under torchrun/Slurm with CUDA_VISIBLE_DEVICES set).",
     ["torch.load(path, map_location=f'cuda:{local_rank}') or map_location='cpu' and then .to(device)",
      "save from rank 0 only and from CPU copies: torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path)"]),
    (r"^PytorchStreamReader failed reading zip archive",
     "torch.load: the file is not a whole zip archive (torch.save's format): truncated by an interrupted save, a "
     "full disk or an unfinished copy / download, or another kind of file (an HTML error page, a Git LFS pointer).",
     ["ls -l the file (a Git LFS pointer is ~130 bytes: git lfs pull); download or copy it again, or load the "
      "previous checkpoint",
      "save to a temporary name and os.replace() it when torch.save returns, so a killed job never leaves a "
      "half-written checkpoint; check the free space (df -h) of the checkpoint folder"]),
    (r"^PytorchStreamReader failed (?:locating|reading) file",
     "torch.load: the checkpoint archive lacks a record it lists or cannot read it (a truncated file, or one written "
     "by another torch release's format).",
     ["load the previous checkpoint or copy the file again; compare its size with the original"]),
    (r"^PytorchStreamWriter failed writing file",
     "torch.save could not write the checkpoint: the folder's disk is full, its quota is reached, or the path "
     "is not writable.",
     ["df -h / quota on the checkpoint folder; free space or save elsewhere (save only on rank 0)"]),
    (r"^Invalid magic number; corrupt file\?",
     "torch.load: the file is neither torch.save's zip format nor its legacy format (a truncated file, or a file of "
     "another library: safetensors, numpy, a TensorFlow / JAX checkpoint).",
     ["check what the file is (file path; head -c 64 path); safetensors: safetensors.torch.load_file(path)",
      "copy / download it again if it should be a torch checkpoint"]),
    (r"^%s is a zip archive \(did you mean to use torch\.jit\.load\(\)\?\)",
     "torch.load was given a TorchScript archive (torch.jit.save's file).",
     ["torch.jit.load(path)"]),
    (r"^Cannot use ``weights_only=True`` with TorchScript archives",
     "torch.load with weights_only=True (the default since torch 2.6) was given a TorchScript archive.",
     ["torch.jit.load(path) for a TorchScript file"]),
    (r"^Cannot use ``weights_only=True`` with files saved in the legacy \.tar format",
     "torch.load with weights_only=True (the default since torch 2.6) cannot read the legacy .tar format of "
     "torch before 0.4.",
     [_TRUST, "then re-save it with a current torch (torch.save) to load it with weights_only=True"]),
    (r"^mmap can only be used with files saved with",
     "torch.load(mmap=True) needs the zip format; the file is in the legacy format.",
     ["load it once without mmap and re-save it with torch.save (the zip format is the default)"]),
    (r"^Attempting to load a safetensors file but safetensors is not installed",
     "torch.load was given a .safetensors file and the safetensors package is missing.",
     ["pip install safetensors (or load it with safetensors.torch.load_file(path))"]),
    (r"^Loading safetensors file with (?:dict|callable) map_location is not supported",
     "torch.load of a safetensors file takes only a device as map_location.",
     ["map_location='cpu' (or a torch.device), then move the tensors"]),
    (r"^Weights only load failed|^In PyTorch 2\.6, we changed the default value of the .weights_only. argument",
     "torch.load's weights-only unpickler (weights_only=True, the default since torch 2.6) met an object it does not "
     "allow: a checkpoint that holds more than tensors (numpy arrays, an argparse Namespace, a library's class, a "
     "whole model object).",
     ["allow the global the message names: torch.serialization.add_safe_globals([TheClass]) (or with "
      "torch.serialization.safe_globals([...]): torch.load(path))", _TRUST,
      "save checkpoints as state_dicts of tensors and plain Python types, so they load with weights_only=True"]),
    (r"^Unsupported global: GLOBAL %s was not an allowed global by default|^Unsupported class %s$|"
     r"^Trying to instantiate unsupported class %s$",
     "torch.load's weights-only unpickler (the default since torch 2.6) refused the class or function the message "
     "names.",
     ["torch.serialization.add_safe_globals([{%1|<the named class>}]) before torch.load, if you trust the file", _TRUST]),
    (r"^Trying to load unsupported GLOBAL %s whose module %s is blocked",
     "torch.load's weights-only unpickler refused a global from a module it blocks outright (os, subprocess, "
     "builtins' eval ...): the checkpoint would run code when loaded.",
     ["do not load the file unless you know where it comes from; " + _TRUST]),
    (r"^Can only (?:build Tensor, Parameter, OrderedDict|create new object for nn\.Parameter) or (?:types|classes) "
     r"allowlisted via `add_safe_globals`|^Can only build Tensor, parameter or (?:dict|OrderedDict) objects",
     "torch.load's weights-only unpickler (the default since torch 2.6) met an object of a class it does not allow "
     "(the class is named after 'but got').",
     ["torch.serialization.add_safe_globals([{%1|<that class>}]) before torch.load, if you trust the file", _TRUST]),
    (r"^Object created by NEWOBJ was not initialized by BUILD; the pickle data is likely corrupt",
     "torch.load's weights-only unpickler found an object the pickle never finished: the file is truncated, "
     "corrupt or crafted.",
     ["load the previous checkpoint or copy / download the file again; load it only if you trust its source"]),
    (r"^``torch\.distributed\.tensor`` must be imported to load DTensors",
     "The checkpoint holds DTensors (saved from FSDP2 / tensor parallelism) and torch.distributed.tensor was not "
     "imported before torch.load.",
     ["import torch.distributed.tensor before torch.load (or save a full state dict: "
      "torch.distributed.checkpoint.state_dict.get_model_state_dict(..., options=StateDictOptions(full_state_dict=True)))"]),
    (r"^Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`",
     "Both environment variables that force torch.load's weights_only are set.",
     ["unset one of TORCH_FORCE_WEIGHTS_ONLY_LOAD / TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD (check the job script and "
      "the container's environment)"]),
    (r"^Can not safely load weights when explicit pickle_module is specified",
     "torch.load got pickle_module= together with weights_only=True (the default since torch 2.6).",
     ["drop pickle_module=, or pass weights_only=False for a file you trust"]),
    (r"^'torch' supports dill >= %s, but you have dill %s",
     "torch.load/save with pickle_module=dill needs a newer dill.",
     ["pip install -U dill (or use the default pickle module)"]),
    # ---- nn.Module
    (r"^cannot assign (?:parameters?|buffer|module) before Module\.__init__\(\) call",
     "A submodule, parameter or buffer was assigned in an nn.Module subclass's __init__ before super().__init__() ran.",
     ["call super().__init__() as the first line of the module's __init__"]),
    (r"^cannot assign '%s' (?:object to parameter|as parameter) '%s' \(torch\.nn\.Parameter or None",
     "An attribute that is a registered parameter was assigned a plain tensor (or another object): parameters "
     "can only be replaced by nn.Parameter or None.",
     ["wrap it: self.weight = nn.Parameter(t), or copy in place: with torch.no_grad(): self.weight.copy_(t)",
      "use another attribute name (or register_buffer) for a tensor that is not trained"]),
    (r"^Cannot assign non-leaf Tensor to parameter '%s'",
     "nn.Parameter(...) / register_parameter got a tensor computed from others (it has a grad_fn).",
     ["create the parameter from a leaf: nn.Parameter(t.detach().clone()), and compute derived values in forward()"]),
    (r"^cannot assign '%s' as child module '%s' \(torch\.nn\.Module or None expected\)",
     "An attribute that holds a submodule was assigned something that is not an nn.Module.",
     ["assign an nn.Module (or None), or use another attribute name"]),
    (r"^Module \[%s\] is missing the required \"forward\" function",
     "The module was called but its class defines no forward() (a misspelt name, or forward indented inside "
     "__init__).",
     ["define def forward(self, ...) at the class level of {%1|the module named in the message}"]),
    (r"Please use torch\.nn\.Module\.to_empty\(\) instead of torch\.nn\.Module\.to\(\) when moving module from meta",
     "The model was built on the meta device (no data: accelerate's init_empty_weights, device='meta', "
     "low_cpu_mem_usage) and .to(device) cannot copy tensors that have no data.",
     ["model.to_empty(device=device) and then load the weights (model.load_state_dict(sd, assign=True)), or build "
      "the model without the meta device"]),
    (r"^nn\.Module\.to only accepts floating point or complex dtypes",
     "model.to(dtype) was given an integer or bool dtype.",
     ["model.to(torch.bfloat16) / .half() / .float(); quantize integer types with a quantization API instead"]),
    # ---- autograd
    (r"^grad can be implicitly created only for scalar outputs",
     "backward() was called on a tensor with more than one element (a loss that was not reduced, e.g. "
     "reduction='none', or one loss per GPU returned by nn.DataParallel).",
     ["reduce it first: loss.mean().backward() (or .sum()), or pass the gradient: out.backward(gradient=torch.ones_like(out))"]),
    (r"^Mismatch in shape: grad_output\[%s\] has a shape of %s and output\[%s\] has a shape of",
     "backward(gradient=...) / autograd.grad(grad_outputs=...) got a gradient whose shape differs from the output's.",
     ["pass a gradient of the output's shape (torch.ones_like(out)), or reduce the output to a scalar first "
      "(out.sum().backward())"]),
    (r"^Legacy autograd function with non-static forward method is deprecated",
     "A custom torch.autograd.Function is written in the pre-1.3 style (instance forward/backward, called as an "
     "object).",
     ["make forward and backward @staticmethod with ctx as first argument, and call MyFn.apply(x) instead of "
      "MyFn()(x) (https://pytorch.org/docs/stable/notes/extending.html)"]),
    (r"^You must implement the (?:forward|jvp) function for custom autograd\.Function|"
     r"^You must implement either the backward or vjp method",
     "A custom torch.autograd.Function lacks the method the message names.",
     ["define it as a @staticmethod of the Function (https://pytorch.org/docs/stable/notes/extending.html)"]),
    # ---- DataLoader, samplers
    (r"^sampler option is mutually exclusive with shuffle",
     "DataLoader got both sampler= (e.g. a DistributedSampler) and shuffle=True.",
     ["DataLoader(ds, sampler=DistributedSampler(ds, shuffle=True), shuffle=False) and call "
      "sampler.set_epoch(epoch) each epoch"]),
    (r"^batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
     "DataLoader got batch_sampler= together with batch_size / shuffle / sampler / drop_last.",
     ["pass only batch_sampler= (it decides the batches), or drop it and use batch_size/sampler"]),
    (r"^prefetch_factor option could only be specified in multiprocessing",
     "DataLoader got prefetch_factor with num_workers=0 (prefetching needs worker processes).",
     ["prefetch_factor=None when num_workers=0, or num_workers > 0"]),
    (r"^persistent_workers option needs num_workers > 0",
     "DataLoader(persistent_workers=True) with num_workers=0.",
     ["persistent_workers=False when num_workers=0, or num_workers > 0"]),
    (r"^num_workers option should be non-negative",
     "DataLoader got a negative num_workers (often computed from os.cpu_count() or a Slurm variable that was unset).",
     ["num_workers=0 or a positive number; e.g. int(os.environ.get('SLURM_CPUS_PER_TASK', 4))"]),
    (r"^multiprocessing_context can only be used with multi-process loading",
     "DataLoader got multiprocessing_context= with num_workers=0.",
     ["drop multiprocessing_context= or use num_workers > 0"]),
    (r"^Invalid rank %s, rank should be in the interval \[0, %s\]",
     "DistributedSampler(rank=, num_replicas=) got a rank outside 0..num_replicas-1 (a local rank passed for a global "
     "one, or num_replicas the number of GPUs of one node).",
     ["DistributedSampler(ds) after init_process_group (it reads the global rank and world size), or "
      "rank=dist.get_rank(), num_replicas=dist.get_world_size()"]),
    (r"^Number of (?:subsampled )?indices \(%s\) does not match (?:total_size|num_samples)",
     "DistributedSampler produced another number of indices than it computed from len(dataset): the dataset's "
     "__len__ changed after the sampler was built, or __len__ disagrees with the indices it serves.",
     ["build the sampler after the dataset's final length is known (and again when it changes); make __len__ "
      "return the number of items __getitem__ serves"]),
    (r"^Pin memory thread exited unexpectedly",
     "The DataLoader's pin-memory thread died: usually the process is short of memory (pinned host memory is "
     "page-locked RAM) or a worker died first.",
     ["the lines before it (a worker killed by a signal, the OOM killer in dmesg); pin_memory=False or fewer "
      "workers / a smaller prefetch_factor to compare"]),
    # ---- torch.cuda
    (r"^Cannot re-initialize CUDA in forked subprocess",
     "CUDA was initialised in the parent before fork(): a DataLoader worker or multiprocessing child started with "
     "the 'fork' start method touched CUDA (a tensor moved to the GPU in the Dataset, torch.cuda.* called at "
     "import time).",
     ["keep CUDA out of the Dataset and workers (move batches to the GPU in the training loop)",
      "or use spawn: torch.multiprocessing.set_start_method('spawn') / DataLoader(..., "
      "multiprocessing_context='spawn')"]),
    (r"^Torch not compiled with CUDA enabled|^PyTorch was compiled without CUDA support",
     "The installed torch is a CPU-only build (or a macOS build) and the code asks for CUDA.",
     [_NO_CUDA_WHEEL]),
    (r"^libcudart functions unavailable",
     "torch's CUDA runtime functions are missing: a broken or mixed installation (two torch builds in one "
     "environment).",
     ["pip uninstall -y torch (repeat until none is left), then install one CUDA build of torch"]),
    (r"^device %s is not visible \(CUDA_VISIBLE_DEVICES=%s\)",
     "A GPU index was asked for that CUDA_VISIBLE_DEVICES hides (the process sees only the listed GPUs, renumbered "
     "from 0).",
     ["use indices 0..N-1 of the visible GPUs (under torchrun: LOCAL_RANK; under Slurm's GPU binding each task may "
      "see only cuda:0)"]),
    (r"^Invalid (?:peer )?device id",
     "A GPU index at or above torch.cuda.device_count() was used (more ranks per node than visible GPUs, or a "
     "global rank used as a device index).",
     ["torch.cuda.set_device(int(os.environ['LOCAL_RANK'])); start --nproc-per-node equal to the GPUs per node"]),
    (r"^(?:nvidia-ml-py|pynvml) does not seem to be installed",
     "A torch.cuda call that reads NVML (utilization(), temperature(), power_draw(), memory_usage(), or the "
     "device list under CUDA_VISIBLE_DEVICES with UUIDs) needs the nvidia-ml-py package.",
     ["pip install nvidia-ml-py (imported as pynvml; not the old pynvml package)"]),
    (r"^Invalid fraction value: %s\. Allowed range: 0~1|^Invalid type for fraction argument",
     "torch.cuda.set_per_process_memory_fraction got a value outside 0..1 (it is a fraction of the GPU's memory, "
     "not bytes).",
     ["torch.cuda.set_per_process_memory_fraction(0.5, device) (a float between 0 and 1)"]),
    # ---- torch.amp
    (r"^unscale_\(\) has already been called on this optimizer since the last update\(\)",
     "GradScaler.unscale_(optimizer) ran twice in one step (e.g. once in the code and once in a library's "
     "gradient clipping).",
     ["call scaler.unscale_(optimizer) once per step, before clip_grad_norm_, then scaler.step(optimizer); "
      "scaler.update()"]),
    (r"^unscale_\(\) is being called after step\(\)",
     "GradScaler.unscale_ ran after scaler.step(optimizer) in the same iteration.",
     ["order per step: scaler.scale(loss).backward(); scaler.unscale_(opt); clip; scaler.step(opt); scaler.update()"]),
    (r"^step\(\) has already been called since the last update\(\)",
     "GradScaler.step(optimizer) ran twice for one optimizer without scaler.update() between.",
     ["call scaler.update() once after the step(s) of every iteration"]),
    (r"^No inf checks were recorded for this optimizer|^No inf checks were recorded prior to update",
     "GradScaler.step found no gradients to check: the loss was not scaled through scaler.scale(loss).backward(), "
     "or the optimizer's parameters got no gradient (frozen, or not in this graph).",
     ["scaler.scale(loss).backward() before scaler.step(optimizer); check the optimizer holds the trained "
      "parameters (requires_grad=True)"]),
    (r"^The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler",
     "GradScaler.load_state_dict got the empty state of a GradScaler that was disabled when the checkpoint was "
     "saved (enabled=False, e.g. a bf16 or CPU run).",
     ["resume with the same precision settings as the run that saved it, or skip loading the scaler's state when "
      "it is empty"]),
    (r"^Closure use is not currently supported if GradScaler is enabled",
     "scaler.step(optimizer, closure) (LBFGS-style) is not supported with GradScaler.",
     ["run without the closure, or without GradScaler (bfloat16 needs none)"]),
    (r"^Current CUDA Device does not support bfloat16",
     "torch.autocast(dtype=torch.bfloat16) on a GPU without bfloat16 (compute capability below 8.0: V100, T4).",
     ["dtype=torch.float16 with GradScaler on this GPU, or run on Ampere or newer"]),
    (r"^User specified an unsupported autocast device_type",
     "torch.autocast got a device_type it does not know.",
     ["torch.autocast(device_type='cuda', dtype=...) (or 'cpu'): the type, not 'cuda:0'"]),
    # ---- torch.compile
    (r"^Hard failure due to fullgraph=True",
     "torch.compile(fullgraph=True) hit the recompile limit: the function was compiled again for every new "
     "shape / Python value until torch._dynamo.config.recompile_limit (8 by default) ran out.",
     ["TORCH_LOGS=recompiles to see what changes; mark varying dims dynamic (torch._dynamo.mark_dynamic(x, 0) or "
      "torch.compile(dynamic=True)), or raise torch._dynamo.config.recompile_limit"]),
    (r"^Hard failure due to fail_on_recompile_limit_hit",
     "torch._dynamo.config.fail_on_recompile_limit_hit is set and a function reached the recompile limit.",
     ["TORCH_LOGS=recompiles to see what changes between calls; make those shapes dynamic or raise "
      "torch._dynamo.config.recompile_limit"]),
    (r"^Python %s not yet supported for torch\.compile|^Python 3\.\d+\+ not yet supported for torch\.compile|"
     r"^torch\.compile is not supported on Python",
     "This torch release's torch.compile does not support the running Python version.",
     ["run a Python this torch supports (python --version; the release notes of torch), or a newer torch, or "
      "drop torch.compile"]),
    (r"^torch\.compile cannot JIT compile during CUDA graph capture",
     "A torch.compile'd function compiled for the first time inside CUDA graph capture.",
     ["run a few warm-up iterations before capturing (torch.cuda.graph / mode='reduce-overhead' captures after "
      "warm-up)"]),
    (r"^torch\.compile does not support compiling torch\.jit\.script",
     "torch.compile was given a TorchScript (jit.script / jit.freeze) module.",
     ["compile the original eager nn.Module instead"]),
    # torch/_inductor/exc.py (TritonMissing, GPUTooOldForTriton) and the triton requirement of
    # inductor's GPU backend: https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html
    (r"^Cannot find a working triton installation",
     "torch.compile's default backend (inductor) generates Triton kernels for the GPU and the triton package is "
     "missing or too old for this torch.",
     ["install the triton that this torch release pins: pip install torch reinstalls it (Linux wheels depend on "
      "'triton==<version>'; check pip show triton against the torch wheel's Requires-Dist)",
      "or compile without Triton: torch.compile(model, backend='aot_eager'), or drop torch.compile"]),
    (r"which is too old to be supported by the triton GPU compiler",
     "torch.compile's inductor backend needs a GPU of compute capability 7.0 or newer for Triton (a P100, K80 or "
     "GTX 10xx is older).",
     ["run without torch.compile on this GPU (the script's compile option off, or TORCH_COMPILE_DISABLE=1: "
      "torch/_dynamo/config.py's disable), or torch.compile(model, backend='aot_eager') (no Triton kernels)"]),
    (r"^No working C\+\+ compiler found in",
     "torch.compile's inductor (torch 2.1-2.2) found no C++ compiler for its CPU kernels and wrapper "
     "(torch._inductor.config.cpp.cxx: $CXX, g++, or the conda compiler).",
     ["install g++ on every node (apt install g++ / module load gcc) or export CXX=<a compiler>; or "
      "torch.compile(backend='aot_eager') to compare"]),
    # ---- torch.utils.cpp_extension
    (r"^CUDA_HOME environment variable is not set",
     "Building a CUDA extension (or a JIT-compiled op) found no CUDA toolkit: CUDA_HOME is unset and nvcc is not "
     "on PATH. The torch wheel brings the CUDA runtime, not nvcc.",
     ["export CUDA_HOME=/usr/local/cuda-<torch.version.cuda> (module load cuda/<version> on a cluster), or install "
      "the toolkit matching torch.version.cuda"]),
    (r"^nvcc not found at '%s'",
     "CUDA_HOME points at a folder without bin/nvcc (a runtime-only install, or the wrong path).",
     ["export CUDA_HOME to a full toolkit (ls $CUDA_HOME/bin/nvcc), matching torch.version.cuda"]),
    (r"^CUDA was not found on the system",
     "No CUDA toolkit was found (CUDA_HOME / CUDA_PATH unset, no nvcc on PATH) while building an extension.",
     ["export CUDA_HOME=/usr/local/cuda-<version> (or module load cuda), matching torch.version.cuda"]),
    (r"^Ninja is required to load C\+\+ extensions|ninja is required to build",
     "torch.utils.cpp_extension's JIT build (load(), or a library that compiles ops at run time) needs ninja.",
     ["pip install ninja (in the job's environment; ninja --version must run)"]),
    (r"^The detected CUDA version \(%s\) mismatches the version that was used to compile",
     "The CUDA toolkit found for building (nvcc of CUDA_HOME) has another major version than the CUDA torch was "
     "built with.",
     ["point CUDA_HOME at a toolkit of torch.version.cuda's major version (module load cuda/{%2|<X.Y>}), or install "
      "the torch build for the toolkit you have"]),
    (r"^The current installed version of %s \(%s\) is (?:less|greater) than the (?:minimum|maximum) required version by CUDA",
     "The host compiler (gcc / clang) is outside the versions this CUDA toolkit's nvcc supports.",
     ["use a supported compiler: export CC=gcc-<N> CXX=g++-<N> (module load gcc/<N>), or a CUDA toolkit that "
      "supports this compiler (the CUDA installation guide lists the versions)"]),
    (r"^Unknown CUDA arch \(%s\) or GPU not supported",
     "TORCH_CUDA_ARCH_LIST (or the GPU's compute capability) names {%1|an architecture} this torch's cpp_extension does "
     "not know (a newer GPU than the torch release, or a typo).",
     ["export TORCH_CUDA_ARCH_LIST to the GPUs' compute capability (nvidia-smi --query-gpu=compute_cap "
      "--format=csv, e.g. '8.0;9.0'), or upgrade torch for a newer GPU"]),
    # ---- the allocator's settings (PYTORCH_CUDA_ALLOC_CONF)
    (r"^Unrecognized key '%s' in (?:CUDA|Accelerator) allocator config|^Unrecognized CachingAllocator option",
     "PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF) holds a key this torch release does not know (a setting of "
     "a newer release, a typo, or '=' where ':' belongs).",
     ["fix or remove {%1|the key}: keys are key:value, comma-separated (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True); "
      "the keys of this release: " + _ALLOC_DOC]),
    (r"^CachingAllocator option max_split_size_mb too small",
     "PYTORCH_CUDA_ALLOC_CONF's max_split_size_mb is below the allocator's minimum (a value in bytes, or too small).",
     ["max_split_size_mb is in MB and must be larger than 20: e.g. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128"]),
    (r"^garbage_collect\w* is invalid, set it in|^garbage_collect_threshold too (?:small|big)",
     "PYTORCH_CUDA_ALLOC_CONF's garbage_collection_threshold is outside (0.0, 1.0).",
     ["garbage_collection_threshold:0.8 (a fraction between 0 and 1)"]),
    (r"^For roundups, the ",
     "PYTORCH_CUDA_ALLOC_CONF's roundup_power2_divisions is not a power of 2.",
     ["roundup_power2_divisions:4 (or [256:1,512:2,>:4]: powers of 2)"]),
    (r"^per_process_memory_fraction is invalid",
     "PYTORCH_CUDA_ALLOC_CONF's per_process_memory_fraction is outside [0.0, 1.0].",
     ["per_process_memory_fraction:0.9 (a fraction of the GPU's memory)"]),
    (r"^Unknown allocator backend",
     "PYTORCH_CUDA_ALLOC_CONF's backend is neither native nor cudaMallocAsync.",
     ["backend:native (the default) or backend:cudaMallocAsync"]),
    (r"^Allocator backend parsed at runtime != allocator backend parsed at load time",
     "PYTORCH_CUDA_ALLOC_CONF's backend was changed after torch was imported (os.environ set in the script after "
     "import torch, or torch.cuda.memory._set_allocator_settings).",
     ["set PYTORCH_CUDA_ALLOC_CONF=backend:... in the environment before Python starts (the job script / "
      "launcher), not in the script after import torch"]),
    (r"^Error parsing CachingAllocator settings|^Error, expecting \w+ value|^Error parsing (?:backend|roundup)",
     "PYTORCH_CUDA_ALLOC_CONF does not parse: it is a comma-separated list of key:value, and a key has no value "
     "(or '=' where ':' belongs).",
     ["write it as key:value,key:value (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:True); "
      "the keys of this release: " + _ALLOC_DOC]),
    (r"^backend:cudaMallocAsync requires CUDA runtime",
     "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync needs a CUDA driver of 11.4 or newer; this node's driver is "
     "older.",
     ["backend:native (the default), or update the NVIDIA driver on the node (nvidia-smi shows its CUDA version)"]),
    (r"^Expected 'True' or 'False' at index|^Expected a single True/False argument",
     "A boolean setting of PYTORCH_CUDA_ALLOC_CONF (expandable_segments, ...) is not spelt True or False.",
     ["expandable_segments:True (capitalised; not true/1)"]),
    (r"^Expected closing bracket",
     "A list value of PYTORCH_CUDA_ALLOC_CONF (roundup_power2_divisions:[...]) has no closing ']'.",
     ["close the bracket, and quote the whole value in the shell"]),
    # ---- site-fixes-3 (issue 18): the remaining user-reachable raises of the slice, each from the statement that
    # raises it (tools/data/torch_core_messages_slice.txt, torch 2.15 and the older releases named there) and the
    # docs of the call it guards. Left without a row (28 sites): checks no user argument reaches (autograd's
    # GradientEdge / NestedTensor / typeinfo internals, AOT-compile callbacks, the DataLoader's private iterator
    # classes and datapipe sharding hooks: 15), ROCm probes (amdsmi, libamd_smi.so, HIP_VISIBLE_DEVICES: 9, no
    # NVIDIA cluster prints them) and CUDA storages' private constructors (3), autograd's init failure (1).
    # -- torch.load / serialization.py, _weights_only_unpickler.py (https://pytorch.org/docs/stable/generated/torch.load.html)
    (r"^don't know how to restore data location of %s \(tagged with %s\)",
     "torch.load: the checkpoint's tensors carry a device tag ({%2|the tag}) no registered device module can "
     "restore: saved on a device type (xpu, hpu, a custom backend) this torch build does not have.",
     ["torch.load(path, map_location='cpu'), then move the model to this machine's device",
      "or install the torch build / extension of the device that saved it (e.g. intel_extension_for_pytorch)"]),
    (r"^Invalid protocol version: %s|^storage key %s not found in deserialized_objects",
     "torch.load: the legacy (non-zip) checkpoint is damaged or was written by an incompatible writer: its "
     "pickle protocol header or a storage record is not where torch.save puts it.",
     ["copy / download the file again (compare its size and sha256 with the source) or load an earlier checkpoint",
      "re-save it with a torch that reads it: torch.save(torch.load(p, map_location='cpu'), p2)"]),
    (r"^Expected input to be a checkpoint returned by torch\.save",
     "torch.load / torch.serialization: the file is not a torch.save checkpoint (a TorchScript archive from "
     "torch.jit.save, a safetensors or a NumPy file).",
     ["a TorchScript file: torch.jit.load(path); safetensors: safetensors.torch.load_file(path); else the "
      "loader of the program that wrote it"]),
    (r"^unsupported persistent id encountered|^Unsupported operand %s",
     "torch.load(weights_only=True) (the default since torch 2.6) met a pickle opcode or persistent id outside "
     "the safe subset: the checkpoint holds Python objects, not only tensors and containers.",
     [_TRUST, "or allow the named classes: torch.serialization.add_safe_globals([...]) before torch.load"]),
    # -- nn.Module (torch/nn/modules/module.py, https://pytorch.org/docs/stable/generated/torch.nn.Module.html)
    (r"^Cannot use both regular backward hooks and full backward hooks",
     "nn.Module: register_backward_hook (deprecated) and register_full_backward_hook were both used on one "
     "module (or globally): torch allows one kind.",
     ["replace register_backward_hook(...) with register_full_backward_hook(...) everywhere (a library may "
      "register one: check the callbacks of profilers / debuggers)"]),
    (r"^(?:buffer|parameter|module) name should be a string\. Got %s|^(?:buffer|parameter) name can't contain \"\.\"|"
     r"^(?:buffer|parameter|module) name can't be empty string|^module name can't contain \"\.\", got: %s|"
     r"^attribute '%s' already exists",
     "nn.Module.register_buffer / register_parameter / add_module got a bad name: not a str, empty, with a '.' "
     "(dots separate submodules in state_dict keys) or the name of an existing attribute.",
     ["pass a plain identifier: self.register_buffer('running_mean', t); for nested names use the submodule: "
      "self.sub.register_buffer(...); pick a name that is no attribute yet"]),
    (r"^%s is not a Module subclass|^`module` is not an nn\.Module, found %s|^`%s` is not an nn\.Module$|"
     r"^Cannot set the submodule without a target name",
     "nn.Module.add_module / set_submodule / get_submodule got something that is not an nn.Module (a function, a "
     "list of modules, None) or an empty target.",
     ["wrap lists of layers in nn.ModuleList / nn.Sequential; pass a dotted path ('encoder.layer.0') to "
      "get_submodule / set_submodule"]),
    (r"^`%s` is not an nn\.Parameter|^`%s` is not a buffer",
     "nn.Module.get_parameter / get_buffer: the dotted path {%1|the name} exists but is a plain attribute, not a "
     "registered parameter or buffer.",
     ["register it: self.w = nn.Parameter(t) or self.register_buffer('name', t); list what exists with "
      "[n for n, _ in model.named_parameters()] / named_buffers()"]),
    (r"^cannot assign '%s' (?:object to|as) buffer '%s'",
     "nn.Module: a value of type {%1|this type} was assigned to the registered buffer {%2|the buffer}: a buffer holds "
     "a torch.Tensor or None (a Python number, NumPy array or list is refused).",
     ["assign a tensor: self.{%2|name} = torch.as_tensor(value, device=self.{%2|name}.device), or use a plain "
      "attribute name that is not a buffer"]),
    (r"^ScriptModule does not support non-persistent buffers|^Registering a non-persistent buffer on a Module "
     r"subclass that implements register_buffer",
     "register_buffer(..., persistent=False) on a module that cannot keep it out of state_dict (a TorchScript "
     "module, or a subclass whose own register_buffer lacks the persistent argument).",
     ["register it persistent (the default), or add persistent=True/False to the subclass's register_buffer "
      "override and pass it on to super().register_buffer"]),
    (r"^training mode is expected to be boolean",
     "nn.Module.train(mode) got a non-bool mode (train('eval'), train(0)).",
     ["model.train() / model.train(False) / model.eval()"]),
    (r"^You are trying to (?:call|revive) the hook of a dead Module",
     "A hook's handle outlived its module: the module was garbage-collected (a temporary model) and its "
     "registered hook was called or re-registered.",
     ["keep a reference to the module while its hooks are in use, and handle.remove() them before dropping it"]),
    (r"^_apply\(\): Couldn't swap %s\.%s|^param must be a Parameter$|^param must be a leaf tensor|"
     r"^param_grad must be a leaf tensor",
     "module.to() / .cuda() / .half() (nn.Module._apply) could not replace a parameter {%1|module}.{%2|name}: it is "
     "no longer a leaf nn.Parameter (an operation's output assigned to it) or is shared with a tensor subclass "
     "that cannot be swapped.",
     ["assign parameters as nn.Parameter(tensor) (not the result of an op on a parameter), and move the model to "
      "its device before creating the optimizer / wrapping it in DDP or FSDP"]),
    (r"^forward pre-hook must return None or a tuple of \(new_args, new_kwargs\)",
     "A forward pre-hook registered with with_kwargs=True returned something other than None or (args, kwargs).",
     ["return None (keep the inputs) or a 2-tuple (args_tuple, kwargs_dict) from the hook"]),
    (r"^module_load returned one of self or other",
     "A tensor subclass's module_load (used by load_state_dict with assign / swap_module_params_on_conversion) "
     "returned one of its inputs instead of a new tensor.",
     ["return other.detach() (or a copy) from module_load"]),
    # -- autograd (torch/autograd/__init__.py, graph.py, function.py; https://pytorch.org/docs/stable/autograd.html)
    (r"^`?'?inputs'?`? argument to `?(?:backward|grad)\(\)`? (?:cannot be empty|must be a dict)",
     "torch.autograd.backward / grad got an empty (or wrongly typed) `inputs`: the tensors to take gradients "
     "for must be given as a non-empty sequence of tensors.",
     ["pass inputs=[t1, t2] (tensors with requires_grad=True), or leave inputs out to accumulate into every leaf"]),
    (r"^`?'?grad_tensors'?`? and `?'?grad_variables'?`? \(deprecated\) arguments both passed",
     "backward() got both grad_tensors and its old name grad_variables.",
     ["pass only grad_tensors=..."]),
    (r"^Expected allow_unused to be True or not passed when materialize_grads=True",
     "torch.autograd.grad(materialize_grads=True) needs allow_unused=True (or not passed).",
     ["drop allow_unused=False, or drop materialize_grads"]),
    (r"^For complex Tensors, both grad_output and output are required to have the same dtype",
     "backward(grad_tensors=...) for a complex output got a gradient of another dtype ({%2|grad_output dtype} vs "
     "{%4|output dtype}).",
     ["pass grad_tensors of the output's dtype: torch.ones_like(out)"]),
    (r"^gradients can be either Tensors or None, but got %s",
     "backward()/grad() got a grad_outputs entry of type {%1|this type}: each must be a tensor or None.",
     ["pass tensors: grad_outputs=[torch.ones_like(out)]"]),
    (r"^If `is_grads_batched=True`, we interpret the first dimension",
     "torch.autograd.grad(is_grads_batched=True): a grad_output's shape after its first (batch) dimension does "
     "not match its output's shape.",
     ["give each grad_output the shape (B, *output.shape)"]),
    (r"^It is not possible to get the gradient edge for a Tensor that does not require gradients",
     "torch.autograd.graph.get_gradient_edge was called on a tensor with requires_grad=False.",
     ["call it on tensors that require grad (t.requires_grad_() before the forward)"]),
    (r"^torch\.autograd\.graph\.region_activation_memory_budget",
     "torch.autograd.graph.region_activation_memory_budget got a value outside a float in [0, 1] or was used "
     "outside torch.compile (it steers the compiled activation checkpointing only).",
     ["pass a float between 0 and 1, inside a function compiled with torch.compile"]),
    (r"^allow_mutation_on_saved_tensors contexts cannot be nested",
     "torch.autograd.graph.allow_mutation_on_saved_tensors() was entered inside another one.",
     ["use one context around the forward and backward"]),
    (r"^Implementing both 'backward' and 'vjp' for a custom Function|^setup_context is not implemented|"
     r"^In order to use an autograd\.Function with functorch transforms|^To use autograd\.Function with vmap|"
     r"^save_for_forward expects all arguments to be tensors|^set_output_grad_dtype can only be called once",
     "A custom torch.autograd.Function is not written as the extending docs require: backward and vjp both "
     "defined, setup_context missing for a functorch transform (vmap, grad, jacrev), no vmap rule, or a non-tensor "
     "passed to ctx.save_for_forward.",
     ["follow https://pytorch.org/docs/stable/notes/extending.html: forward(...) without ctx plus "
      "setup_context(ctx, inputs, output), backward only (not vjp), generate_vmap_rule = True for vmap; keep "
      "non-tensors as ctx attributes"]),
    (r"^backward\(\) called inside a functorch transform",
     "loss.backward() was called inside torch.func / functorch transforms (vmap, grad), which compute gradients "
     "functionally.",
     ["use torch.func.grad / torch.func.vjp inside the transform, or call backward() outside it"]),
    (r"^torch\.autograd\.variable\(\.\.\.\) is deprecated",
     "torch.autograd.variable(...) was removed: Variables are tensors since torch 0.4.",
     ["torch.tensor(data, requires_grad=True)"]),
    # -- torch.compile (torch/_dynamo/eval_frame.py, https://pytorch.org/docs/stable/torch.compiler.html)
    (r"^attempted to set_stance in a torch\.compile region|^invalid torch\.compile stance '%s'",
     "torch.compiler.set_stance was called inside a compiled function, or with an unknown stance "
     "({%1|the stance}).",
     ["call torch.compiler.set_stance('default' | 'force_eager' | 'eager_on_recompile' | 'fail_on_recompile') "
      "outside the compiled region"]),
    (r"^Dynamo configs suppress_error and fail_on_recompile_limit_hit can not both be active",
     "torch._dynamo.config.suppress_errors=True and fail_on_recompile_limit_hit=True contradict each other.",
     ["set only one of them (TORCHDYNAMO_SUPPRESS_ERRORS=1 in the environment sets the first)"]),
    (r"^AOT Compile is not enabled|^Graph breaks are not supported with aot compile|"
     r"^Cannot precompile with torch\._inductor\.config\.force_disable_caches",
     "An ahead-of-time / precompile of torch.compile needs its own setting: enable_aot_compile, a graph without "
     "breaks (fullgraph=True) and the inductor caches on.",
     ["torch._dynamo.config.enable_aot_compile = True; torch.compile(model, fullgraph=True); leave "
      "TORCHINDUCTOR_FORCE_DISABLE_CACHES unset"]),
    (r"^Only `fullgraph` kwarg override is supported for now",
     "torch.compile's per-call option override accepts fullgraph only.",
     ["pass other options (mode, backend, dynamic) to torch.compile(...) itself"]),
    (r"^Detected that you are using FX to (?:torch\.jit\.trace|symbolically trace) a dynamo-optimized function",
     "torch.fx.symbolic_trace / torch.jit.trace was run on a function already wrapped by torch.compile.",
     ["trace or script the original (uncompiled) model, or compile the traced result instead"]),
    (r"^Windows not yet supported for (?:torch\.compile|inductor)",
     "torch.compile (inductor) did not run on Windows in this torch release (2.1-2.4).",
     ["use Linux or WSL2 for torch.compile, a newer torch, or torch.compile(backend='eager') / no compile on Windows"]),
    (r"^Dynamo: expected not to compile nested code",
     "Code run by a torch.compile(fullgraph=True) function triggered a second compilation inside it (a nested "
     "compiled function or module).",
     ["compile the outermost function only (drop torch.compile on the inner modules), or fullgraph=False"]),
    # -- DataLoader and samplers (torch/utils/data/dataloader.py, sampler.py, https://pytorch.org/docs/stable/data.html)
    (r"^timeout option should be non-negative|^prefetch_factor option should be non-negative|"
     r"^prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter",
     "DataLoader got a negative timeout or a prefetch_factor below 1.",
     ["DataLoader(..., timeout=0 (or seconds > 0), prefetch_factor=2) (prefetch_factor only with num_workers > 0)"]),
    (r"^batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
     "DataLoader(batch_size=None) turns batching off, so drop_last=True has no batches to drop.",
     ["drop drop_last=True, or give a batch_size"]),
    (r"^multiprocessing_context option should",
     "DataLoader's multiprocessing_context is not a start method of this platform ('fork', 'spawn', "
     "'forkserver') nor a multiprocessing context: got {%-1|the value}.",
     ["multiprocessing_context='spawn' (or 'forkserver'; 'fork' on Linux only), or "
      "torch.multiprocessing.get_context('spawn')"]),
    (r"^%s attribute should not be set after %s is initialized",
     "An option of a DataLoader (batch_size, sampler, drop_last, ...) was set on the object after it was "
     "created: the loader's iterators were built from the old values.",
     ["create a new DataLoader with the option (DataLoader(dataset, batch_size=..., ...))"]),
    (r"^\{\} cannot be pickled|^%s cannot be pickled",
     "A DataLoader iterator was pickled (deepcopy, a multiprocessing spawn of an object holding it): a live "
     "iterator with worker processes cannot be.",
     ["pickle the Dataset / DataLoader, not iter(loader); re-create the iterator in the new process"]),
    (r"^replacement should be a boolean value|^num_samples should be a positive integer value|"
     r"^weights should be a 1d sequence|^batch_size should be a positive integer value|"
     r"^drop_last should be a boolean value",
     "A sampler (RandomSampler, WeightedRandomSampler, BatchSampler) got an option of the wrong kind: "
     "{%1|the value}.",
     ["replacement / drop_last: True or False; num_samples and batch_size: a positive int (len(dataset) can be 0: "
      "an empty dataset); weights: a 1-D sequence with one weight per sample"]),
    (r"^Requires distributed package to be available",
     "DistributedSampler was created with a torch built without torch.distributed (macOS / Windows builds "
     "without USE_DISTRIBUTED) or without num_replicas/rank given.",
     ["use a Linux torch wheel, or pass num_replicas= and rank= explicitly"]),
    # -- torch.cuda (torch/cuda/__init__.py, memory.py)
    (r"^cuda driver can't be loaded, is cuda enabled\?",
     "torch.cuda's NVML queries (torch.cuda.utilization, memory_usage, temperature, power_draw through pynvml) "
     "found no loaded NVIDIA driver (NVMLError_DriverNotLoaded): no driver in this node or container.",
     ["nvidia-smi on the node; in a container run with --gpus all (docker) / --nv (apptainer) / the NVIDIA "
      "container toolkit so the driver's libraries are mounted"]),
    (r"^Can't get device UUIDs",
     "torch.cuda (_raw_device_uuid_nvml): CUDA_VISIBLE_DEVICES lists GPUs by UUID (GPU-... / MIG-...) and NVML "
     "could not return the devices' UUIDs to match them.",
     ["nvidia-smi -L (the UUIDs this node has: the variable must name those), or set CUDA_VISIBLE_DEVICES to "
      "indices (0,1,...)"]),
    (r"^invalid value of debug_mode, expected one of",
     "torch.cuda.set_sync_debug_mode got an unknown mode.",
     ["torch.cuda.set_sync_debug_mode('default' | 'warn' | 'error') (or 0/1/2)"]),
    (r"^Invalid type for stream argument, must be `torch\.cuda\.Stream`",
     "A torch.cuda memory call (caching_allocator_alloc) got a stream that is neither a torch.cuda.Stream nor "
     "an int pointer.",
     ["pass torch.cuda.current_stream() (or a torch.cuda.Stream)"]),
    (r"^expected a CUDA tensor, got device %s",
     "A torch.cuda memory call got a tensor on {%1|another device}, not on a GPU.",
     ["move it first: t = t.cuda()"]),
    (r"^torch\.cuda\._use_uvm\(\) requires the 'cuda-python' package",
     "torch.cuda._use_uvm() needs NVIDIA's cuda-python bindings.",
     ["pip install cuda-python (of the CUDA major version torch was built for)"]),
    # -- torch.amp (torch/amp/grad_scaler.py, autocast_mode.py, https://pytorch.org/docs/stable/amp.html)
    (r"^The growth factor must be > 1\.0|^The backoff factor must be < 1\.0",
     "GradScaler(growth_factor=..., backoff_factor=...) got a growth factor <= 1 or a backoff factor >= 1.",
     ["use the defaults (growth_factor=2.0, backoff_factor=0.5) or values on the right side of 1"]),
    (r"^Attempted %s but _scale is None",
     "A GradScaler method ({%1|the call}) ran before scaler.scale(loss) created the scale (or after a state "
     "dict without one was loaded).",
     ["call scaler.scale(loss).backward() first in each step, then scaler.step(optimizer), scaler.update()"]),
    (r"^outputs must be a Tensor or an iterable of Tensors|^expected param to be torch\.Tensor, got %s",
     "GradScaler.scale() got something other than a tensor (or nested iterables of tensors), e.g. a model output "
     "object or a float loss.",
     ["scale the loss tensor: scaler.scale(loss) where loss = outputs.loss (a tensor, not loss.item())"]),
    (r"^A GradScaler instance may only be pickled at the beginning of an iteration",
     "A GradScaler was pickled / deep-copied in the middle of a step (between scale() and update()).",
     ["save scaler.state_dict() after scaler.update() instead of pickling the scaler"]),
    (r"^Expected `device_type` of type `str`|^autocast\(\)\(func\) requires a callable",
     "torch.autocast got a device_type that is not a string (torch.device('cuda')) or was used as a decorator on "
     "something that is not callable.",
     ["with torch.autocast(device_type='cuda', dtype=torch.bfloat16): output = model(input)"]),
    # -- the CUDA caching allocator (c10/cuda/CUDAAllocatorConfig.cpp, c10/core/AllocatorConfig.cpp)
    (r"^CachingAllocator option large_segment_size_mb must be >|^CachingAllocator option max_non_split_rounding_mb "
     r"too small|^Pinned reserve segment size has to be greater than 0",
     "A size option of PYTORCH_CUDA_ALLOC_CONF (large_segment_size_mb, max_non_split_rounding_mb, "
     "pinned_reserve_segment_size_mb) is below its minimum.",
     ["raise the value (sizes are in MB: max_non_split_rounding_mb:20) or drop the key; the keys of this release: "
      + _ALLOC_DOC]),
]

# A message of few words is any program's line alone: its matcher needs what Python / TORCH_CHECK print
# before it (the exception's type) - tools/gen_torch_messages.py's CONTEXT_BELOW / _CONTEXT, the same rule.
CONTEXT_BELOW = 16
_CONTEXT = r"(?:\b\w{0,60}(?:Error|Exception|Warning)\b: )[^\n]{0,200}?"
# a short message that other programs print too ('Unsupported class file major version 61' is Gradle's): its
# matcher needs what torch prints before it (torch 2.1-2.3's _get_wo_message: "WeightsUnpickler error: " + the
# unpickler's text; the exception's type when raised alone)
OWN_CONTEXT = [(re.compile(r"^Unsupported class %s$|^Trying to instantiate unsupported class %s$"),
                r"(?:WeightsUnpickler error: |UnpicklingError: )")]
_NAME_MSG = re.compile(r"(?:MESSAGE|WARNING|WARN)$")
_MSG_FUNC = re.compile(r"_message$|_msg$")


# ---------------------------------------------------------------- python

def _msg_nodes(tree):
    """(level, first line, last line, message node) of each message of a Python module: knowgen.py_message's
    kinds (raise, assert, warnings.warn, logger/logging), `log.` calls, the module-level ALLCAPS constants
    named *MESSAGE / *WARNING / *WARN, and the `return "..."` of functions named *_message / *_msg."""
    for node in ast.walk(tree):
        level, arg = knowgen.py_message(node)
        if level is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("log", "_logger") \
                and node.func.attr in ("warning", "error", "critical", "exception"):
            level, arg = ("warning" if node.func.attr == "warning" else "error"), node.args[0]
        if level is not None:
            yield level, node, arg
    for node in ast.walk(tree):
        # an exception class's own text: super().__init__("...", ...) (torch/_inductor/exc.py's TritonMissing)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" \
                and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                and node.func.value.func.id == "super" and node.args:
            yield "raise", node, node.args[0]
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _NAME_MSG.search(node.targets[0].id):
            yield ("warning" if "WARN" in node.targets[0].id else "raise"), node, node.value
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and _MSG_FUNC.search(fn.name):
            for node in ast.walk(fn):
                if isinstance(node, ast.Return) and node.value is not None:
                    yield "raise", node, node.value


def py_sites(src):
    """(level, first, last, format) of each message of a Python source (_msg_nodes; a `logger.x("... %s", a)`
    format as written); nothing when the source does not parse."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for level, node, arg in _msg_nodes(tree):
        fmt = knowgen.py_format(arg)
        if isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(arg, ast.Constant) \
                and isinstance(arg.value, str) and level != "raise":
            fmt = arg.value  # logging formats msg % args (CPython Lib/logging/__init__.py, LogRecord.getMessage)
        if isinstance(node, ast.Assign) and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            fmt = arg.value  # a message constant is a %-format: cpp_extension.py raises CUDA_MISMATCH_MESSAGE % (...)
            if "%" not in fmt:  # or a str.format one (torch 2.1's CUDA_MISMATCH_MESSAGE.format(...))
                fmt = re.sub(r"\{[^{}]{0,20}\}", "%s", fmt)
        if fmt:
            yield level, node.lineno, node.end_lineno, " ".join(fmt.split())


def py_blocks(rel, src):
    """The slice blocks of a Python file: each message's statement, dedented, at its line (a message OWNED
    by gen_torch_messages left out)."""
    lines = src.splitlines(True)
    seen = set()
    for _level, first, last, fmt in py_sites(src):
        if (first, last) in seen or OWNED.search(fmt):
            continue
        seen.add((first, last))
        body = textwrap.dedent("".join(lines[first - 1:last]))
        if body.lstrip().startswith("return "):  # a message function's return: one line above, its def
            body, first = "def _message():\n" + textwrap.indent(body, "    "), first - 1
        try:
            ast.parse(body)
        except SyntaxError:  # a statement that starts inside a larger one: keep only what parses
            continue
        yield "=== %s @%d\n%s" % (rel, first, body if body.endswith("\n") else body + "\n")


# ---------------------------------------------------------------- library strings

def lib_blocks(lib, data):
    """The slice blocks of one library: the strings LIB_SELECT picks (one a line) and the JOINS whose
    fragments it holds."""
    strings = knowgen.binary_strings(data, 6)  # `strings -n 6`
    have = set(strings)
    out = []
    pick = LIB_SELECT.get(lib)
    if pick is not None:
        picked = sorted({s for s in strings if pick.search(s)})
        out.append("=== strings:torch/%s\n%s\n" % (lib, "\n".join(picked)))
    for jlib, where, frags, fmt in JOINS:
        if jlib == lib and all(f in have for f in frags):
            out.append("=== joined:torch/%s (%s)\n%s\n" % (lib, where, fmt))
    return out


def _fmt_string(s):
    """A library string as a printf format: a literal '%' doubled; a fragment's open end (a c10::str part that
    a value follows: it ends in a blank) without its joining ', ' / ': ' (older releases ended the sentence
    there: torch 2.0's "... parsed at load time" had no value after it, pytorch/pytorch#104801)."""
    if s[-1:].isspace():
        s = s.rstrip().rstrip(",:;")
    return " ".join(s.replace("%", "%%").split())


# ---------------------------------------------------------------- build

def _site_id(where, fmt):
    slug = knowgen.slug(re.sub(r"%[a-z]", "", fmt))[:40].strip("_")
    base = knowgen.slug(re.sub(r"^torch/|:\d+$|\.py\b", "", where.split(" (")[0]))
    return "torch_core.%s.%s" % (base, slug)


def build(files, version):
    sites, seen, ids = [], set(), set()

    def add(where, level, fmt, src):
        if fmt in seen:
            return
        seen.add(fmt)
        rx, literal = knowgen.printf_to_regex(fmt)
        site = {"id": knowgen.unique_id(_site_id(where, fmt), ids), "where": where, "source": src,
                "level": level, "text": fmt}
        if not knowgen.unanchored(site, rx, literal, 12):
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
            if level == "warning" and (src == "python" or family is None):
                # a warning is printed by healthy runs too: listed, never a finding
                rule, family = "a warning, not an error", None
            own = next((pre for crx, pre in OWN_CONTEXT if crx.search(fmt)), None)
            if own:
                rx = own + rx
            elif len("".join(literal.split())) < CONTEXT_BELOW:
                rx = _CONTEXT + rx
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
        sites.append(site)

    for path, text in files:
        # an older release's block: 'older:2.1.0:<path>' (slice_from_pypi --older); the newest release comes first
        # in the slice, so only the wordings it no longer prints become sites (add keeps the first of a format)
        release = ""
        if path.startswith("older:"):
            rel, path = path[len("older:"):].split(":", 1)
            release = " (torch %s)" % rel
        if path.startswith("strings:"):
            lib = path[len("strings:"):]
            for s in text.splitlines():
                if s.strip():
                    warn = re.match(r"backend:cudaMallocAsync ignores|Ignoring invalid|pinned_max_round_threshold_mb|"
                                    r"\) > pinned_max_cached_size_mb", s)  # TORCH_WARN texts
                    add(lib + release, "warning" if warn else "string", _fmt_string(s), lib.rsplit("/", 1)[-1])
        elif path.startswith("joined:"):
            for s in text.splitlines():
                if s.strip():
                    add(path[len("joined:"):] + release, "string", s.strip(), "joined")
        elif path.endswith(".py"):
            for level, line, _last, fmt in py_sites(text):
                if not OWNED.search(fmt):
                    add("%s:%d%s" % (path, line, release), level, fmt, "python")
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/): torch.load, nn.Module, autograd, "
                                     "torch.compile, torch.utils.data, torch.cuda, torch.amp, cpp_extension "
                                     "python modules; the allocator-configuration strings of libc10.so / "
                                     "libc10_cuda.so and torch.load's archive messages of libtorch_cpu.so",
                                     version, GENERATOR,
                                     "families from the RULES table and fixes from the MSG_FIX table of the "
                                     "generator; torch.distributed and the usercode sites are torch_messages.json's"),
            "sites": sites}


def _wheel(meta, release):
    wheels = sorted((f for f in meta["releases"].get(release, []) if f["filename"].endswith(".whl") and
                     "linux" in f["filename"] and "x86_64" in f["filename"] and not f.get("yanked")),
                    key=lambda f: f["filename"])
    if not wheels:
        raise SystemExit("torch %s: no Linux x86_64 wheel on PyPI" % release)
    return wheels[0]


def slice_from_pypi(release, older=()):
    """The slice text of torch ``release``'s Linux x86_64 wheel on PyPI: one look-up of PyPI's JSON API,
    then range requests for PY_FILES, torch/version.py and LIBS only (gen_torch_api.zip_members); and of each
    ``older`` release, the PY_FILES it has and its OLDER_LIBS, as 'older:<release>:' blocks after the newest."""
    import json

    import gen_torch_api as api

    meta = json.loads(api._get("https://pypi.org/pypi/torch/json"))
    w = _wheel(meta, release)
    want = {"torch/" + p for p in PY_FILES + LIBS + ["version.py"]}
    got = api.zip_members(api._file_url(w["url"]), w["size"], lambda n: n in want)
    missing = sorted(want - set(got))
    if missing:
        raise SystemExit("torch %s: %s not in %s" % (release, ", ".join(missing), w["filename"]))
    ver = dict(re.findall(r"^(__version__|git_version)\s*=\s*'([^']*)'", got["torch/version.py"].decode(), re.M))
    olds = []
    for rel in older:
        ow = _wheel(meta, rel)
        ogot = api.zip_members(api._file_url(ow["url"]), ow["size"],
                               lambda n: n in {"torch/" + p for p in PY_FILES + OLDER_LIBS})
        olds.append((rel, ow, ogot))
    out = ["#! version torch %s (git %s) of %s (sha256 %s)%s\n" % (
               ver.get("__version__", "?"), ver.get("git_version", "?"), w["filename"], w["digests"]["sha256"][:16],
               "".join("; older: torch %s, %s (sha256 %s)" % (rel, ow["filename"], ow["digests"]["sha256"][:16])
                       for rel, ow, _g in olds)),
           "# generated by tools/gen_torch_core_messages.py --pypi from the torch wheel (BSD-3-Clause): each message "
           "statement of its PY_FILES at its line, the strings LIB_SELECT picks and the JOINS found in its LIBS\n"]
    for p in PY_FILES:
        rel = "torch/" + p
        out.extend(py_blocks(rel, got[rel].decode("utf-8", "replace")))
    for lib in LIBS:
        out.extend(lib_blocks(lib, got["torch/" + lib]))
    for rel, _ow, ogot in olds:
        for p in PY_FILES:
            if "torch/" + p in ogot:
                out.extend(b.replace("=== ", "=== older:%s:" % rel, 1)
                           for b in py_blocks("torch/" + p, ogot["torch/" + p].decode("utf-8", "replace")))
        for lib in OLDER_LIBS:
            if "torch/" + lib in ogot:
                out.extend(b.replace("=== ", "=== older:%s:" % rel, 1) for b in lib_blocks(lib, ogot["torch/" + lib]))
    return "".join(out)


def main(argv):
    a = knowgen.arguments(__doc__, argv, "pypi", source_opts={
        "metavar": "RELEASE", "help": "a torch release on PyPI (its Linux x86_64 wheel is read by range requests)"},
        extra=[("--older", {"action": "append", "default": [],
                            "help": "with --pypi: an older torch release whose PY_FILES and OLDER_LIBS are read too "
                                    "(only the wordings the newer release lacks become sites; repeatable)"})])
    path = a.slice
    if a.pypi:
        text = slice_from_pypi(a.pypi, a.older)
        with open(SLICE, "w") as f:
            f.write(text)
        path = SLICE
    files, version = knowgen.read_slice(path)
    doc = build(files, version)
    knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("torch_core_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
