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
        as tools/gen_torch_api.py does, and writes tools/data/torch_core_messages_slice.txt.gz too; --older: also
        the PY_FILES and OLDER_LIBS of an older release, whose wordings the newer one lacks become sites)
    python tools/gen_torch_core_messages.py --slice tools/data/torch_core_messages_slice.txt.gz -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/, BSD-3-Clause); pytorch/pytorch
(https://github.com/pytorch/pytorch): torch/serialization.py, torch/_weights_only_unpickler.py,
torch/nn/modules/module.py, torch/autograd/, torch/_dynamo/, torch/utils/data/, torch/cuda/,
torch/amp/, torch/utils/cpp_extension.py, and read whole (issue 18, lib-coverage) torch/nn/functional.py,
torch/nn/modules/{container,conv,batchnorm,activation,linear,sparse}.py, torch/nn/utils/clip_grad.py,
torch/optim/{optimizer,adam,adamw,sgd,lr_scheduler}.py, torch/utils/checkpoint.py, torch/cuda/graphs.py,
torch/utils/data/dataset.py, c10/core/AllocatorConfig.cpp,
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
SLICE = knowgen.data_path("torch_core_messages_slice.txt")  # (stored gzip'd, .txt.gz)
PY_FILES = ["serialization.py", "_weights_only_unpickler.py", "nn/modules/module.py", "autograd/__init__.py",
            "autograd/graph.py", "autograd/function.py", "_dynamo/exc.py", "_dynamo/convert_frame.py", "_inductor/exc.py",
            "_dynamo/eval_frame.py", "utils/data/dataloader.py", "utils/data/sampler.py",
            "utils/data/distributed.py", "cuda/__init__.py", "cuda/memory.py", "amp/grad_scaler.py",
            "amp/autocast_mode.py", "utils/cpp_extension.py",
            # lib-coverage (issue 18): the whole modules a training script calls directly with the most sites no table
            # held (counted in docs/explain.md, "Library modules by message sites"): nn.functional, the nn layers
            # that check their arguments, torch.optim's base class, Adam/AdamW/SGD and the LR schedulers,
            # activation checkpointing, CUDA graphs, gradient clipping and the map-style datasets
            "nn/functional.py", "nn/modules/container.py", "nn/modules/conv.py", "nn/modules/batchnorm.py",
            "nn/modules/activation.py", "nn/modules/linear.py", "nn/modules/sparse.py", "nn/utils/clip_grad.py",
            "optim/optimizer.py", "optim/adam.py", "optim/adamw.py", "optim/sgd.py", "optim/lr_scheduler.py",
            "utils/checkpoint.py", "cuda/graphs.py", "utils/data/dataset.py",
            # and the recurrent / transformer layers, the losses, GroupNorm, packed sequences, DataParallel and
            # the DataLoader's default collate function
            "nn/modules/rnn.py", "nn/utils/rnn.py", "nn/modules/transformer.py", "nn/modules/loss.py",
            "nn/modules/normalization.py", "nn/parallel/data_parallel.py", "utils/data/_utils/collate.py",
            "nn/attention/__init__.py"]
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
                      r"^Unknown (?:saved id|typename|endianness)|^expected key '0'|debug assert|INTERNAL ASSERT|"
                      # the lib-coverage modules' own invariants (no argument of the user's reaches them)
                      r"unexpectedly None|^Internal error|^Unexpected state|must be an UninitializedParameter|"
                      r"^capture_logs|^Expected (?:grad_scale and found_inf|per_device_and_dtype_grads|param_groups to "
                      r"be set|_cuda_runtime)|^bn_training must|^FIXME|^API has changed|report this bug|"
                      r"^Unknown _anneal_func_type|^self\.padding must be a tuple|went unexpectedly wrong|"
                      r"^CUDAGraph\._retain_pool|^capture_stream must not|^_foreach ops don't support autograd|"
                      r"^input to _none_or_dtype|^`requires_grad` is not supported for `step`")
# words any program prints (a container's index, Python's operand TypeError, a bare keyword check): no family of
# torch's from them alone
GENERIC_WORDING = re.compile(r"^[Ii]ndex (?:%s is )?out of range(?:: %s)?$|^unsupported operand type\(s\)|"
                             r"^Unexpected keyword arguments: %s$|^%s is not valid$|^mode %s is unknown!$")

# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning | string)
RULES = [
    ("internal", None, {"text": INTERNAL.pattern}),
    ("python-wording", None, {"text": PY_WORDING.pattern}),
    ("generic-wording", None, {"text": GENERIC_WORDING.pattern}),
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
                                              "text": r"mismatches the version that was used to compile"}),
    # _check_cuda_version's CUDA_GCC_VERSIONS / CUDA_CLANG_VERSIONS: the host compiler, not the toolkit (cbuild14)
    ("host-compiler", "build.host_compiler", {"where": r"cpp_extension", "level": r"raise",
                                              "text": r"required version by CUDA"}),
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
    ("usage", "torch.usage", {"where": r"^torch/(?:nn/modules|nn/functional|nn/utils|nn/parallel|nn/attention|optim|"
                                       r"autograd|utils/data|"
                                       r"utils/checkpoint|cuda|amp)\b", "level": r"raise"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign-sites): a raise no rule above assigns by its words gets the family
    # of the subsystem whose file raises it; these families name what failed, not why (a site-only match answers
    # 'family', explain/analyze.py _finding). A message that says the program goes on (Dynamo falling back to eager
    # for a frame, torch/_dynamo/exc.py SkipFrame / 'WON'T CONVERT') is no failure of the run.
    ("not a failure: the program falls back and goes on", None,
     {"where": r"^torch/_dynamo/", "text": r"fall(?:s|ing)? back|skip the frame|WON'T CONVERT"}),
    ("ctx-compile", "torch.compile_error", {"where": r"^torch/(?:_dynamo|_inductor)/", "level": r"^raise$"}),
    # torch.load(weights_only=True)'s unpickler refusing what the file holds
    ("ctx-unpickler", "torch.checkpoint_load", {"where": r"^torch/_weights_only_unpickler\.py", "level": r"^raise$"}),
    # torch.save / torch.load checking their own arguments
    ("ctx-serialization", "torch.usage", {"where": r"^torch/serialization\.py", "level": r"^raise$"}),
    # torch.utils.cpp_extension building or loading a C++/CUDA extension (knowledge/torch_context.toml)
    ("ctx-extension", "build.extension", {"where": r"^torch/utils/cpp_extension\.py", "level": r"^raise$"}),
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
     "The host compiler (gcc / clang) is outside the versions torch.utils.cpp_extension allows for this CUDA "
     "release (its CUDA_GCC_VERSIONS / CUDA_CLANG_VERSIONS table: {%-1|the range the message names}).",
     ["build with a compiler in that range: install it (apt-get install gcc-<N> g++-<N>; conda install -c conda-forge "
      "gxx=<N>) and export CC=gcc-<N> CXX=g++-<N> before the build (module load gcc/<N>; torch passes CC to nvcc as "
      "-ccbin), or use a CUDA toolkit (and a torch built for it) that allows this compiler"]),
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
    # raises it (tools/data/torch_core_messages_slice.txt.gz, torch 2.15 and the older releases named there) and the
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
    # ---- lib-coverage (issue 18): whole modules, torch 2.15 (the slice's header names the wheel), each row written
    # from the statement that raises it and the documentation of the call it checks. Sites left without a row keep
    # the family (torch.usage) and its ways to tell: the message names the argument.
    # -- torch/nn/functional.py and the layers that call it (https://pytorch.org/docs/stable/nn.functional.html)
    (r"^Expected more than 1 value per channel when training|^Expected more than 1 spatial element when training",
     "batch_norm / instance_norm in training mode got one value per channel: a batch of one sample reached a "
     "BatchNorm layer (usually the last, short batch of an epoch when len(dataset) % batch_size == 1, or a per-GPU "
     "batch of 1); statistics over one value are undefined.",
     ["DataLoader(..., drop_last=True) (and DistributedSampler(..., drop_last=True)) so no batch of 1 is left, or "
      "a per-GPU batch of 2 or more",
      "model.eval() for inference; nn.GroupNorm / nn.LayerNorm do not depend on the batch size"]),
    (r"^dropout probability has to be between 0 and 1",
     "nn.Dropout / F.dropout got p outside [0, 1] (p is the probability of zeroing, not a percentage nor a keep "
     "probability).",
     ["nn.Dropout(p=0.1): a float between 0 and 1 (check the config value that feeds it)"]),
    (r"^dropout1d: Expected 2D or 3D input",
     "F.dropout1d / nn.Dropout1d got an input of another rank: it zeroes whole channels of (N, C, L) or (C, L).",
     ["use nn.Dropout for other shapes, or reshape the input to (N, C, L)"]),
    (r"^Target size \(%s\) must be the same as input size|^Using a target size \(%s\) that is different to the "
     r"input size",
     "binary_cross_entropy(_with_logits) / mse_loss / l1_loss got a target whose shape differs from the "
     "prediction's (e.g. logits (N, 1) against labels (N,), or class indices given to a binary loss).",
     ["make the shapes equal: loss_fn(logits.squeeze(-1), target.float()) or target.view_as(logits)",
      "for several classes with integer labels use nn.CrossEntropyLoss (logits (N, C), target (N,) of class "
      "indices)"]),
    (r"^%s is not a valid value for reduction|^Invalid reduction mode: %s\. Expected one of",
     "A loss function got a reduction other than 'none', 'mean' or 'sum' (size_average= / reduce= are the "
     "deprecated spellings).",
     ["reduction='mean' (or 'sum' / 'none')"]),
    (r"^ignore_index cannot be specified when target contains probabilities",
     "F.linear_cross_entropy got a target of class probabilities (the logits' shape) together with ignore_index, "
     "which applies to class-index targets only.",
     ["pass class indices (target of shape (N,), dtype long: probs.argmax(-1)) to keep ignore_index, or drop "
      "ignore_index with probability targets"]),
    (r"^embed_dim %s not divisible by num_heads|^embed_dim must be divisible by num_heads|"
     r"^embed_dim and num_heads must be greater than 0",
     "nn.MultiheadAttention / F.multi_head_attention_forward: embed_dim must be a positive multiple of num_heads "
     "(each head gets embed_dim // num_heads features).",
     ["choose num_heads that divides embed_dim (e.g. embed_dim=512, num_heads=8), or change embed_dim"]),
    (r"^was expecting embedding dimension of %s, but got|^expecting (?:query|key|value) (?:weights|bias) shape|"
     r"^key's sequence and batch dims %s do not match value's|^key shape %s does not match value shape|"
     r"^For (?:batched \(3-D\)|unbatched \(2-D\)) `query`, expected `key` and `value`|"
     r"^query should be unbatched 2D or batched 3D tensor",
     "nn.MultiheadAttention got query / key / value whose shapes do not fit embed_dim or each other: its inputs "
     "are (L, N, E) by default, (N, L, E) only with batch_first=True.",
     ["nn.MultiheadAttention(embed_dim, num_heads, batch_first=True) for (batch, seq, feature) inputs; the last "
      "dimension of query must equal embed_dim (kdim / vdim for key and value)"]),
    (r"^The shape of the [23]D attn_mask is %s, but should be|^attn_mask's dimension %s is not supported|"
     r"expected `attn_mask` to be `None`, 2-D or 3-D|^Expected `attn_mask` shape to be|"
     r"expected `key_padding_mask` to be `None`|^only bool and floating types of %s are supported|"
     r"^Need attn_mask if specifying the is_causal hint|^expecting key_padding_mask shape of",
     "nn.MultiheadAttention / nn.Transformer: an attention mask has the wrong shape or dtype: attn_mask is (L, S) "
     "or (N * num_heads, L, S), key_padding_mask is (N, S), both bool or float; is_causal=True is a hint that "
     "needs the causal mask too.",
     ["attn_mask = nn.Transformer.generate_square_subsequent_mask(L) for causal attention; key_padding_mask = "
      "(input_ids == pad_id) of shape (N, S); repeat a per-sample mask num_heads times for the 3-D form"]),
    (r"^Got [345]D input, but \w+ mode needs|^Input Error: Only 3D, 4D and 5D input Tensors supported|"
     r"^only one of size or scale_factor should be defined|^either size or scale_factor should be defined|"
     r"^scale_factor must be None when size is specified|^size must be None when scale_factor is specified|"
     r"^Input and (?:output|scale_factor) must have the same number of spatial dimensions|"
     r"^expected size to be one of int or Tuple|^align_corners option can only be set with the interpolating modes|"
     r"^recompute_scale_factor is not meaningful|^Anti-alias option is (?:restricted|only supported)|^Lanczos mode",
     "F.interpolate / nn.Upsample got an input rank, mode or size arguments that do not fit: the input is "
     "(N, C, L) for 'linear', (N, C, H, W) for 'bilinear' / 'bicubic', (N, C, D, H, W) for 'trilinear'; exactly "
     "one of size / scale_factor.",
     ["add the batch / channel dimensions (x.unsqueeze(0)) or pick the mode of the input's rank; pass size= or "
      "scale_factor=, not both; align_corners only with the linear modes"]),
    (r"^Padding_idx must be within num_embeddings|^padding_idx must be within num_embeddings|"
     r"^Shape of weight does not match num_embeddings and embedding_dim|"
     r"^Embeddings parameter is expected to be 2-dimensional",
     "nn.Embedding got a padding_idx outside [-num_embeddings, num_embeddings) (a tokenizer's pad id at or above "
     "the vocabulary size), or _weight / from_pretrained weights of another shape.",
     ["padding_idx=tokenizer.pad_token_id with num_embeddings=len(tokenizer) (transformers: "
      "model.resize_token_embeddings(len(tokenizer)) after adding tokens); from_pretrained takes a 2-D "
      "(num_embeddings, embedding_dim) tensor"]),
    (r"^embedding_bag: |^offsets has to be a 1D Tensor|^if input is 2D, then offsets has to be None|"
     r"^input has to be 1D or 2D Tensor|^mode has to be one of sum, mean or max|^max mode does not support|"
     r"^If input is nested, then per_sample_weights",
     "F.embedding_bag / nn.EmbeddingBag: input and offsets do not fit its two forms (a 2-D input of fixed-length "
     "bags without offsets, or a 1-D input with 1-D offsets), or an option its mode does not support.",
     ["2-D input: offsets=None; 1-D input: offsets = start index of each bag (1-D long tensor); "
      "per_sample_weights only with mode='sum'"]),
    (r"^batch_norm eps must be (?:positive|non-negative)",
     "batch_norm got eps <= 0 (eps is added to the variance before the square root).",
     ["eps=1e-5 (the default) or another small positive float"]),
    (r"^nn\.functional\.grid_sample\(\): expected (?:mode|padding_mode)|^Expected theta to have floating point type|"
     r"^Expected a batch of [23]D affine matrices|^affine_grid only supports 4D and 5D sizes|"
     r"^Expected non-zero, positive output size",
     "F.grid_sample / F.affine_grid got a mode, theta or size outside what they take: theta is a float (N, 2, 3) "
     "batch for a 4-D size, (N, 3, 4) for a 5-D size.",
     ["grid_sample(mode='bilinear'|'nearest'|'bicubic', padding_mode='zeros'|'border'|'reflection'); "
      "affine_grid(theta.float(), size=(N, C, H, W))"]),
    (r"^fractional_max_pool[23]d requires|^output_size should be a sequence containing|^invalid output_size|"
     r"^max_unpooling: output_size must contain non-negative|^norm_type must be a non-zero value",
     "A pooling function (fractional_max_pool, max_unpool, lp_pool) got an output_size / output_ratio / "
     "norm_type outside what it takes.",
     ["fractional_max_pool: output_size= or output_ratio= (floats in (0, 1)); max_unpool: output_size of the "
      "pooled input's spatial size; lp_pool: norm_type != 0"]),
    (r"^margin must be greater than 0|^margin_ranking_loss : All input tensors should have same dimension|"
     r"^The anchor, positive, and negative tensors are expected to have the same number",
     "margin_ranking_loss / triplet_margin_with_distance_loss got inputs of different ranks or a margin <= 0.",
     ["give input1 / input2 / target (anchor / positive / negative) the same shape; margin > 0"]),
    (r"^var has negative entry|^var is of incorrect size",
     "F.gaussian_nll_loss got a variance with negative values or a shape that does not broadcast to the input.",
     ["pass a positive variance (softplus(x) + 1e-6 or exp of a log-variance) of the input's shape, or with its "
      "last dimension 1"]),
    (r"^Weights and input must have the same size",
     "binary_cross_entropy got weight= of another shape than the input.",
     ["a weight of the input's shape (or broadcast it: weight.expand_as(input)); for class weights use "
      "BCEWithLogitsLoss(pos_weight=...)"]),
    (r"^min_val cannot be greater than max_val|^max_val \(%s\) must be greater than min_val",
     "F.hardtanh / nn.Hardtanh got min_val above max_val.",
     ["hardtanh(x, min_val=-1.0, max_val=1.0): min_val < max_val"]),
    (r"^glu does not support scalars",
     "F.glu splits the input in halves along dim and got a 0-dimensional tensor.",
     ["pass a tensor whose size along dim is even"]),
    # -- torch/nn/modules/conv.py, batchnorm.py, linear.py, container.py (https://pytorch.org/docs/stable/nn.html)
    (r"^in_channels must be divisible by groups|^out_channels must be divisible by groups|"
     r"^groups must be a positive integer",
     "nn.Conv*d(groups=g) needs in_channels and out_channels to be multiples of g (depthwise: groups=in_channels).",
     ["pick groups that divides both channel counts (e.g. in_channels=out_channels=groups for a depthwise conv)"]),
    (r"^padding='same' is not supported for strided convolutions|^Invalid padding string",
     "nn.Conv*d(padding='same') works for stride 1 only; padding takes 'same', 'valid' or numbers.",
     ["with stride > 1 give the padding as a number: padding=kernel_size // 2 (odd kernels)"]),
    (r"^padding_mode must be one of|^Only \"zeros\" padding mode is supported|"
     r"^Only `zeros` padding mode is supported for ConvTranspose",
     "nn.Conv*d got a padding_mode other than 'zeros', 'reflect', 'replicate', 'circular' (transposed "
     "convolutions take 'zeros' only).",
     ["padding_mode='zeros' (or pad the input yourself with F.pad(x, pad, mode='reflect'))"]),
    (r"^Expected %sD \(unbatched\) or %sD \(batched\) input to %s, but got input of size",
     "A convolution got an input of the wrong rank: Conv2d takes (N, C, H, W) or (C, H, W); an image batch "
     "without its channel dimension or with an extra one.",
     ["reshape the input: x.unsqueeze(1) for a missing channel, x.permute(0, 3, 1, 2) for NHWC images, or use the "
      "Conv of the input's rank"]),
    (r"^ConvTranspose%sD: for %sD input, output_size must have|^requested an output size of %s, but valid sizes range",
     "nn.ConvTranspose*d(output_size=...) asked for a size its stride / padding cannot produce (the message gives "
     "the valid range).",
     ["pass an output_size inside the range the message names, or adjust output_padding / stride"]),
    (r"^expected (?:2D or 3D|4D|5D|at least 2D) input \(got %sD input\)",
     "A BatchNorm layer got an input of another rank: BatchNorm1d takes (N, C) or (N, C, L), BatchNorm2d "
     "(N, C, H, W), BatchNorm3d (N, C, D, H, W).",
     ["use the BatchNorm of the input's rank, or reshape the input"]),
    (r"^SyncBatchNorm expected input tensor to be on GPU|^SyncBatchNorm number of input channels should be non-zero",
     "nn.SyncBatchNorm runs on GPU tensors only (it all-reduces the statistics over the process group); the "
     "input was on the CPU.",
     ["model.to(device) before the forward, convert with nn.SyncBatchNorm.convert_sync_batchnorm(model) only for "
      "GPU training, or keep BatchNorm on CPU"]),
    (r"^The in_features inferred from input: %s is not equal to in_features|^in1_features must be > 0",
     "A Linear / Bilinear layer got a feature size other than the one it was built for.",
     ["build the layer with in_features = input.shape[-1] (print the shape just before it), or flatten the input "
      "first (torch.flatten(x, 1))"]),
    (r"^ModuleList\.extend should be called with an iterable|^ModuleDict\.update should be called with an iterable|"
     r"^ModuleDict update sequence element|^ParameterList\.extend should be called|^ParametersDict\.update should be|"
     r"^ParameterDict update sequence element|^module should be of type|^add operator supports only objects of "
     r"Sequential|^Non-positive multiplication factor",
     "nn.ModuleList / ModuleDict / ParameterList / ParameterDict / Sequential got something other than what the "
     "container holds (a module where a list is expected, a non-pair in update, a non-Sequential in +).",
     ["extend with a list of modules, update with a dict or (key, module) pairs, insert nn.Module objects"]),
    (r"^ParameterList should not be called|^ParameterDict should not be called",
     "An nn.ParameterList / ParameterDict was called like a layer; it only holds parameters.",
     ["iterate over it (for p in self.params: ...) or index it, inside forward()"]),
    (r"^Index given to ParameterDict cannot be used as a key",
     "nn.ParameterDict was indexed with a key that is not a string.",
     ["use string keys: self.params[str(i)]"]),
    # -- torch/optim/optimizer.py, adam.py, adamw.py, sgd.py (https://pytorch.org/docs/stable/optim.html)
    (r"^optimizer got an empty parameter list",
     "The optimizer was given no parameters: a generator (model.parameters()) already consumed, a filter on "
     "requires_grad that kept none (everything frozen), or a model that has no parameters yet.",
     ["torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=...) and check the list is not "
      "empty; build the optimizer after the model (and after PEFT / freezing) is complete"]),
    (r"^params argument given to the optimizer should be an iterable of Tensors or dicts|"
     r"^optimizer can only optimize Tensors|^param_group must be a dict|"
     r"^optimizer parameters need to be organized in ordered collections",
     "The optimizer's params are not a list of tensors or of parameter-group dicts (a module, a single tensor, a "
     "set, or a dict of name -> tensor).",
     ["torch.optim.SGD(model.parameters(), lr=...) or [{'params': [...], 'lr': ...}, ...]; a list, not a set"]),
    (r"^can't optimize a non-leaf Tensor",
     "A tensor passed to the optimizer is computed from others (it has a grad_fn): e.g. w = torch.randn(n, "
     "requires_grad=True).cuda() is the copy, not the leaf.",
     ["create leaves on the device: torch.randn(n, device='cuda', requires_grad=True), or move the model to the "
      "device before building the optimizer"]),
    (r"^some parameters appear in more than one parameter group",
     "Two parameter groups of the optimizer share a parameter (e.g. a weight-decay / no-decay split that puts "
     "some names in both, or tied embeddings listed twice).",
     ["split by name into disjoint groups: decay = [p for n, p in model.named_parameters() if not "
      "n.endswith('bias')], no_decay = the rest; deduplicate tied parameters"]),
    (r"^loaded state dict has a different number of parameter groups|"
     r"^loaded state dict contains a parameter group that doesn't match the size",
     "optimizer.load_state_dict got the state of an optimizer built over other parameters: the resumed run "
     "groups or freezes the parameters differently than the run that saved it (another model, LoRA vs full "
     "fine-tuning, frozen layers changed).",
     ["build the optimizer exactly as the saving run did before loading its state, or start the optimizer fresh "
      "(load only the model weights) when the trained parameters changed"]),
    (r"^parameter group didn't specify a value of required optimization parameter",
     "A parameter group has no value for a required option (lr for most optimizers) and the optimizer got no "
     "default.",
     ["give lr= to the optimizer or 'lr' in every group dict"]),
    (r"^all optimizer params should be with/without names|^all optimizer param groups should be with/without names",
     "The optimizer was given some parameters as (name, tensor) pairs and some as tensors.",
     ["pass model.named_parameters() everywhere or model.parameters() everywhere"]),
    (r"^`fused=True` requires all the params to be floating point Tensors of supported devices",
     "An optimizer with fused=True got parameters on a device its fused kernel lacks (CPU, or mixed devices) "
     "or of a non-float dtype.",
     ["move the model to the GPU before building the optimizer, or fused=False (the default picks foreach)"]),
    (r"^Attempting (?:%s|CUDA) graph capture of step\(\) for an instance of %s but param_groups' capturable is False",
     "optimizer.step() was captured in a CUDA graph (torch.cuda.graph / torch.compile mode='reduce-overhead') "
     "with capturable=False.",
     ["build the optimizer with capturable=True (Adam / AdamW / SGD ...) to capture its step"]),
    (r"^%s must return None or a tuple of \(new_args, new_kwargs\)",
     "An optimizer step pre-hook returned something other than None or (args, kwargs).",
     ["return None from the hook (or the 2-tuple of new arguments)"]),
    (r"^Invalid learning rate: %s|^Invalid epsilon value: %s|^Invalid beta parameter at index|"
     r"^Invalid weight_decay value|^Invalid momentum value|^betas must be either both floats or both Tensors",
     "The optimizer got a hyperparameter outside its range: lr, eps, weight_decay and momentum >= 0, betas in "
     "[0, 1) (a negative value computed by a schedule or a sign error in a config).",
     ["pass lr >= 0, eps >= 0, 0 <= beta < 1 (e.g. betas=(0.9, 0.999)); print the config value that feeds it"]),
    (r"^Nesterov momentum requires a momentum and zero dampening",
     "SGD(nesterov=True) needs momentum > 0 and dampening=0.",
     ["SGD(params, lr=..., momentum=0.9, dampening=0, nesterov=True)"]),
    (r"^`fused` and `foreach` cannot be `True` together|^`fused` does not support `differentiable`|"
     r"^Adam with fused=True does not support differentiable|^torch\.jit\.script not supported with (?:foreach|fused)|"
     r"^(?:lr|beta1|beta2|betas\[\d\]) as a Tensor is not supported for capturable=False and foreach=True|"
     r"^Tensor (?:lr|beta1|beta2|betas\[\d\]) must be 1-element|"
     r"^If capturable=True, params and state_steps must be",
     "The optimizer's implementation options conflict: fused and foreach together, fused with differentiable, a "
     "tensor lr / beta without capturable=True, or capturable with CPU parameters.",
     ["choose one implementation: leave foreach / fused unset (torch picks), or fused=True alone; a tensor lr "
      "needs capturable=True (or foreach=False) and one element; capturable needs the parameters on the GPU"]),
    (r"^AdamW? does not support sparse gradients|^`_fused_sgd` does not support sparse gradients",
     "An nn.Embedding(sparse=True) (or EmbeddingBag) gives sparse gradients, which Adam / AdamW / fused SGD "
     "cannot apply.",
     ["nn.Embedding(..., sparse=False), or optimise the sparse embedding with torch.optim.SparseAdam and the rest "
      "with Adam"]),
    # -- torch/optim/lr_scheduler.py (https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate)
    (r"^%s is not an Optimizer",
     "An LR scheduler was given something that is not a torch.optim.Optimizer (the model, a DeepSpeed engine, or "
     "a list of optimizers).",
     ["pass the optimizer instance: torch.optim.lr_scheduler.StepLR(optimizer, ...); under DeepSpeed use its "
      "\"scheduler\" config section or the engine's optimizer (engine.optimizer)"]),
    (r"^param 'initial_lr' is not specified in param_groups\[%s\] when resuming",
     "An LR scheduler was created with last_epoch >= 0 (resuming) over an optimizer whose groups have no "
     "'initial_lr': a fresh optimizer whose saved state was not loaded first.",
     ["create the scheduler with the default last_epoch=-1 and then scheduler.load_state_dict(ckpt['scheduler']); "
      "load optimizer.load_state_dict(ckpt['optimizer']) before creating the scheduler"]),
    (r"^Tried to step %s times\. The specified number of total steps is",
     "OneCycleLR was stepped more often than total_steps (epochs * steps_per_epoch): steps_per_epoch did not "
     "count the batches this process really runs (another dataloader length, gradient accumulation, or a resumed "
     "run that steps past the end).",
     ["steps_per_epoch = math.ceil(len(train_loader) / grad_accum_steps) of the loader each process iterates "
      "(after accelerate.prepare / DistributedSampler), scheduler.step() once per optimizer step; or total_steps "
      "= the real number of steps"]),
    (r"^You must define either total_steps OR \(epochs AND steps_per_epoch\)|"
     r"^Expected positive integer (?:total_steps|epochs|steps_per_epoch)|^Expected float between 0 and 1 pct_start|"
     r"^anneal_strategy must b[ey] one of",
     "OneCycleLR got no step count or a non-positive one (steps_per_epoch = len(loader) // accumulation was 0: a "
     "dataset smaller than one batch per process), or pct_start / anneal_strategy outside their values.",
     ["OneCycleLR(optimizer, max_lr, total_steps=N) with N >= 1, or epochs and steps_per_epoch both positive "
      "(check len(train_loader) on each process); pct_start in (0, 1), anneal_strategy 'cos' or 'linear'"]),
    (r"^Expected positive integer T_0|^Expected integer T_mult >= 1|^Expected float or int eta_min",
     "CosineAnnealingWarmRestarts got T_0 <= 0 (or not an int), T_mult < 1 or a non-number eta_min.",
     ["CosineAnnealingWarmRestarts(optimizer, T_0=10, T_mult=1, eta_min=0.0): integers for T_0 / T_mult"]),
    (r"^Expected %s lr_lambdas, but got|^lr_lambda should be a function",
     "LambdaLR / MultiplicativeLR got a list of lambdas of another length than the optimizer's param groups, or "
     "something that is not callable.",
     ["one function for all groups, or a list with one per param group"]),
    (r"must have the same length as optimizer\.param_groups",
     "A per-group list given to a scheduler (max_lr, base_lr, min_lr ...) has another length than the "
     "optimizer's param groups.",
     ["pass a single number, or a list with one value per optimizer.param_groups entry"]),
    (r"^Factor should be < 1\.0|^threshold mode %s is unknown!|^expected %s min_lrs|"
     r"^The number of param groups in the `optimizer` \(%s\) differs from when `ReduceLROnPlateau`",
     "ReduceLROnPlateau got factor >= 1, an unknown mode / threshold_mode, or a min_lr list that does not fit the "
     "param groups (e.g. groups added after the scheduler was built).",
     ["ReduceLROnPlateau(optimizer, mode='min'|'max', factor=0.1, threshold_mode='rel'|'abs', min_lr=0); build it "
      "after all param groups exist"]),
    (r"^Sequential Schedulers expects number of schedulers|expects at least one scheduler|"
     r"should have `optimizer` as its attribute|does not support `ReduceLROnPlateau` scheduler|"
     r"expects all schedulers to belong to the same optimizer",
     "SequentialLR / ChainedScheduler got no schedulers, milestones that are not one fewer than the schedulers, "
     "a ReduceLROnPlateau, or schedulers of different optimizers.",
     ["SequentialLR(optimizer, schedulers=[warmup, main], milestones=[warmup_steps]) with every scheduler built "
      "on that same optimizer; step ReduceLROnPlateau separately"]),
    (r"^Constant multiplicative factor expected|^Starting multiplicative factor expected|"
     r"^Ending multiplicative factor expected",
     "ConstantLR / LinearLR got a factor outside its range (ConstantLR 0..1, LinearLR start_factor in (0, 1], "
     "end_factor in [0, 1]).",
     ["LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=warmup_steps) (start_factor > 0)"]),
    (r"^optimizer must support momentum (?:or beta1 )?with `cycle_momentum` option enabled",
     "CyclicLR / OneCycleLR cycle the momentum by default and the optimizer has none (Adagrad, RMSprop without "
     "momentum ...).",
     ["cycle_momentum=False, or an optimizer with momentum / betas (SGD(momentum=0.9), AdamW)"]),
    (r"^mode is invalid and scale_fn is None",
     "CyclicLR got a mode other than 'triangular', 'triangular2', 'exp_range' without a scale_fn.",
     ["mode='triangular' (or pass scale_fn=)"]),
    # -- torch/utils/checkpoint.py (https://pytorch.org/docs/stable/checkpoint.html)
    (r"^When use_reentrant=True, torch\.utils\.checkpoint is incompatible with \.grad\(\)|"
     r"^Checkpointing is not compatible with \.grad\(\) or when an `inputs` parameter",
     "Reentrant activation checkpointing (use_reentrant=True) cannot serve torch.autograd.grad or backward("
     "inputs=...).",
     ["torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False) (transformers: "
      "gradient_checkpointing_kwargs={'use_reentrant': False}), or call .backward() without inputs"]),
    (r"^none of output has requires_grad=True, this checkpoint\(\) is not necessary",
     "Reentrant checkpointing (use_reentrant=True) found no output that requires grad: no input of the "
     "checkpointed block requires grad (frozen embeddings under LoRA / PEFT, or inputs without requires_grad).",
     ["use_reentrant=False (transformers: gradient_checkpointing_enable(gradient_checkpointing_kwargs="
      "{'use_reentrant': False})), or model.enable_input_require_grads() for frozen-embedding fine-tuning"]),
    (r"^Passing `context_fn`(?:,)? (?:or )?`debug`(?:, or `respect_saved_tensors_hooks`)? is only supported when "
     r"use_reentrant=False",
     "checkpoint(context_fn= / debug=) works with the non-reentrant implementation only.",
     ["checkpoint(fn, *args, use_reentrant=False, context_fn=...)"]),
    (r"^torch\.utils\.checkpoint: A different number of tensors was saved during the original forward|"
     r"^torch\.utils\.checkpoint: Recomputed values for the following tensors have different metadata|"
     r"^torch\.utils\.checkpoint: trying to save more tensors during recomputation",
     "Non-reentrant activation checkpointing recomputed the block in backward and it ran differently than in "
     "forward: the block's code depends on state that changed in between (a flag, a cache such as past_key_values "
     "/ use_cache=True, train/eval mode, a random branch, shapes from a global).",
     ["make the checkpointed forward depend only on its inputs (transformers: use_cache=False with gradient "
      "checkpointing); checkpoint(..., debug=True) prints the differing ops; determinism_check='none' only when "
      "the difference is known harmless"]),
    (r"^torch\.utils\.checkpoint: Unpack is being triggered for a tensor that was already unpacked once|"
     r"^Trying to backward an extra time\. You are only allowed to backward once",
     "A checkpointed region was back-propagated twice (backward twice through one graph, or ctx.saved_tensors "
     "read twice in a custom Function).",
     ["recompute the forward before a second backward, read ctx.saved_tensors once per backward"]),
    (r"^determinism_check should be one of",
     "checkpoint(determinism_check=...) got a value other than 'default' or 'none'.",
     ["determinism_check='default' (or 'none')"]),
    (r"^Size mismatch between (?:tensors|datasets)$",
     "TensorDataset / StackDataset got tensors (or datasets) of different lengths: every tensor's first dimension "
     "is the sample index and must be the same.",
     ["check x.shape[0] == y.shape[0] for each tensor given to TensorDataset(x, y) (a label tensor of another "
      "split, or features not yet batched the same way)"]),
    (r"^PyTorch's device state was initialized in the forward pass of a Checkpoint",
     "Non-reentrant activation checkpointing saw the first use of the GPU (its RNG state) inside the checkpointed "
     "forward, which it cannot replay in the recomputation.",
     ["move the model and the inputs to the GPU before the checkpointed call (CUDA initialised first), or "
      "checkpoint(..., preserve_rng_state=False) when the block has no randomness"]),
    (r"^Tensor cached during selective activation checkpoint has been mutated",
     "Selective activation checkpointing cached an op's output and an in-place op changed it before backward.",
     ["replace the in-place op after it (x.add_(y) -> x = x + y), or mark that op MUST_RECOMPUTE in the policy"]),
    # -- torch/nn/modules/rnn.py, nn/utils/rnn.py (https://pytorch.org/docs/stable/generated/torch.nn.LSTM.html)
    (r"^input\.size\(-1\) must be equal to input_size",
     "An RNN / LSTM / GRU was built for input_size features and the input's last dimension differs (often the "
     "batch and sequence dimensions swapped: inputs are (L, N, H_in) unless batch_first=True).",
     ["nn.LSTM(input_size=x.shape[-1], hidden_size=..., batch_first=True) for (batch, seq, feature) inputs, or "
      "x.permute(1, 0, 2)"]),
    (r"^input must have %s dimensions, got %s|^(?:RNN|LSTM|GRU): Expected input to be 2D or 3D|"
     r"^For (?:batched 3-D|unbatched 2-D) input, hx should also be|^(?:RNN|LSTM|GRU)Cell: Expected "
     r"(?:input|hidden|hx\[%s\]) to be 1D or 2D",
     "An RNN layer got an input or initial hidden state of the wrong rank: input (L, N, H_in) or (N, L, H_in) "
     "with batch_first, h0 (num_layers * num_directions, N, H_out); the cells take (N, H).",
     ["reshape the input (x.unsqueeze(0) for one sequence) and build h0 with "
      "torch.zeros(num_layers * num_directions, batch, hidden_size)"]),
    (r"^RNN input dtype \(%s\) does not match weight dtype|^input must have the type %s, got type",
     "An RNN got an input of another dtype than its weights (float64 from NumPy, or half weights with float input).",
     ["input.to(model dtype) or model.to(input dtype) (the message's own advice); torch.from_numpy(a).float()"]),
    (r"^dropout should be a number in range \[0, 1\]|^(?:bias|batch_first|input_size|hidden_size) should be of type|"
     r"^(?:input_size|hidden_size|num_layers) must be greater than zero|^proj_size (?:should be|has to be|argument)|"
     r"^Unknown nonlinearity",
     "An RNN / LSTM / GRU constructor argument is out of range or of the wrong type.",
     ["nn.LSTM(input_size=int, hidden_size=int > 0, num_layers >= 1, dropout in [0, 1], batch_first=True/False); "
      "proj_size only for LSTM and below hidden_size"]),
    (r"^Expected total_length to be at least the length of the longest sequence",
     "pad_packed_sequence(total_length=...) is shorter than the longest sequence in the batch.",
     ["total_length = the padded input's length (x.size(1) with batch_first), as the docs advise under "
      "DataParallel"]),
    (r"^batch_sizes should always be on CPU",
     "A PackedSequence was built by hand or with lengths on the GPU.",
     ["pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)"]),
    # -- torch/nn/parallel/data_parallel.py (https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html)
    (r"^module must have its parameters and buffers on device %s \(device_ids\[0\]\)",
     "nn.DataParallel needs the model on its first device (device_ids[0]) before the forward; part of it was on "
     "the CPU or another GPU.",
     ["model.to('cuda:0') (the first of device_ids, counted inside CUDA_VISIBLE_DEVICES) before or right after "
      "wrapping; better DistributedDataParallel with one process per GPU"]),
    (r"^no available devices were found|^device type could not be determined",
     "nn.DataParallel found no GPU to replicate on (CUDA not available to the process).",
     ["python -c 'import torch; print(torch.cuda.is_available(), torch.cuda.device_count())'; run without "
      "DataParallel on CPU"]),
    # -- torch/utils/data/_utils/collate.py (default_collate; https://pytorch.org/docs/stable/data.html#dataloader-collate-fn)
    (r"^each element in list of batch should be of equal size",
     "The DataLoader's default_collate got samples whose lists / sequences differ in length (text or token lists "
     "of varying length, a variable number of boxes) and cannot stack them.",
     ["pad in a collate_fn: DataLoader(..., collate_fn=lambda b: torch.nn.utils.rnn.pad_sequence(...)) (or "
      "transformers' DataCollatorWithPadding), or make every sample the same length"]),
    (r"^default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists",
     "The DataLoader's default_collate got a sample element it cannot batch (None from a failed load, a PIL image "
     "without ToTensor, a string array or a custom object).",
     ["return tensors from __getitem__ (transforms.ToTensor() for images), drop samples that load as None, or "
      "pass a collate_fn that handles that type"]),
    (r"^Batches of (?:nested|sparse) tensors are not currently supported by the default collate_fn",
     "default_collate cannot batch nested or sparse tensors.",
     ["pass a custom collate_fn (the message's own advice)"]),
    # -- torch/nn/modules/transformer.py, loss.py, normalization.py, nn/attention/__init__.py
    (r"^the batch number of src and tgt must be equal|^the feature number of src and tgt must be equal to d_model|"
     r"^activation should be relu/gelu",
     "nn.Transformer got src / tgt whose batch or feature sizes differ (inputs are (S, N, E) unless "
     "batch_first=True), or an activation other than relu / gelu.",
     ["nn.Transformer(d_model=E, batch_first=True) for (batch, seq, E) inputs; both src and tgt with the same "
      "batch and last dimension d_model"]),
    (r"^expected label_smoothing to be in range \[0, 1\]|^expected weight shape to be %s",
     "nn.CrossEntropyLoss got label_smoothing outside [0, 1] or class weights of another shape than (C,).",
     ["CrossEntropyLoss(weight=torch.tensor([w_0, ..., w_{C-1}]), label_smoothing=0.1)"]),
    (r"^TripletMarginLoss: expected margin|^TripletMarginWithDistanceLoss: expected margin|"
     r"^MultiMarginLoss: expected weight|^delta must be a float or int",
     "A loss module got a margin <= 0, a weight that is not 1-D, or a non-number delta.",
     ["margin > 0; weight a 1-D tensor of C values; HuberLoss(delta=1.0)"]),
    (r"^num_channels (?:\(%s\) )?must be divisible by num_groups",
     "nn.GroupNorm(num_groups, num_channels): the channels must split into equal groups.",
     ["pick num_groups that divides num_channels (e.g. 32 for 256 channels)"]),
    (r"^Backend must be an instance of SDPBackend",
     "torch.nn.attention.sdpa_kernel() got something other than SDPBackend values.",
     ["with sdpa_kernel(SDPBackend.FLASH_ATTENTION): ... (or a list of SDPBackend members)"]),
    # -- torch/cuda/graphs.py (https://pytorch.org/docs/stable/notes/cuda.html#cuda-graphs)
    (r"^make_graphed_callables does not support the autocast caching",
     "torch.cuda.make_graphed_callables ran under torch.autocast with its weight cache on.",
     ["with torch.autocast('cuda', dtype=..., cache_enabled=False): graphed = make_graphed_callables(...)"]),
    (r"^Modules must not have hooks registered at the time they are passed|"
     r"only parameters may be trainable\. All buffers must have|"
     r"^In the beta API, sample_args for each callable must contain only Tensors",
     "torch.cuda.make_graphed_callables got a module with hooks, a buffer that requires grad, or non-tensor "
     "sample arguments.",
     ["graph the module before registering hooks, keep buffers requires_grad=False, pass tensors only as "
      "sample_args"]),
    (r"^This CUDAGraph API requires the cuda-bindings package",
     "A CUDAGraph inspection API needs NVIDIA's cuda-bindings package.",
     ["pip install cuda-bindings (the message's own advice)"]),
    # -- torch/nn/utils/clip_grad.py (https://pytorch.org/docs/stable/generated/torch.nn.utils.clip_grad_norm_.html; its
    # non-finite norm is tools/gen_torch_messages.py's usercode.nan_inf site)
    (r"^foreach=True was passed, but can't use the foreach API on %s tensors",
     "clip_grad_norm_ / clip_grad_value_(foreach=True) got gradients on a device without foreach kernels.",
     ["foreach=None (the default: torch uses foreach where it can)"]),
    # -- torch/utils/data/dataset.py (https://pytorch.org/docs/stable/data.html)
    (r"^Sum of input lengths does not equal the length of the input dataset|^Fraction at index %s is not between",
     "random_split got lengths that do not add up to len(dataset) (integers), or fractions outside [0, 1].",
     ["random_split(ds, [0.9, 0.1]) (fractions summing to 1), or integer lengths n_train + n_val == len(ds)"]),
    (r"^Subclasses of (?:Iterable)?Dataset should implement",
     "A map-style Dataset subclass has no __getitem__ (a misspelt name, or an iterable dataset that should "
     "subclass IterableDataset).",
     ["define __getitem__(self, idx) and __len__, or subclass torch.utils.data.IterableDataset with __iter__"]),
    (r"^ConcatDataset does not support IterableDataset|^ChainDataset only supports IterableDataset|"
     r"^datasets should not be an empty iterable|^At least one dataset should be passed",
     "ConcatDataset takes map-style datasets and ChainDataset iterable ones; an empty list was given or the kinds "
     "were mixed.",
     ["ConcatDataset([...]) for datasets with __getitem__, ChainDataset([...]) for IterableDatasets; check the "
      "list is not empty"]),
    (r"overrides __getitem__ but not __getitems__",
     "A Subset subclass overrides __getitem__ but the DataLoader fetches a batch through __getitems__, which "
     "would bypass it.",
     ["also define __getitems__(self, indices) returning [self[i] for i in indices]"]),
]

# A message of few words is any program's line alone: its matcher needs what Python / TORCH_CHECK print
# before it (the exception's type) - tools/gen_torch_messages.py's CONTEXT_BELOW / _CONTEXT, the same rule.
CONTEXT_BELOW = 16
_CONTEXT = r"(?:\b\w{0,60}(?:Error|Exception|Warning)\b: )[^\n]{0,200}?"
# a short message that other programs print too ('Unsupported class file major version 61' is Gradle's): its
# matcher needs what torch prints before it (torch 2.1-2.3's _get_wo_message: "WeightsUnpickler error: " + the
# unpickler's text; the exception's type when raised alone)
OWN_CONTEXT = [(re.compile(r"^Unsupported class %s$|^Trying to instantiate unsupported class %s$"),
                r"(?:WeightsUnpickler error: |UnpicklingError: )"),
               # TensorDataset / StackDataset's asserts (torch/utils/data/dataset.py): AssertionError's own line
               (re.compile(r"^Size mismatch between (?:tensors|datasets)$"), r"AssertionError: ")]
_NAME_MSG = re.compile(r"(?:MESSAGE|WARNING|WARN)$|_err_msg_format$")  # collate.py's default_collate_err_msg_format
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
    """(level, first, last, format, its first line) of each message of a Python source (_msg_nodes; a
    `logger.x("... %s", a)` format as written; the first line: knowgen.first_line, None for a message of one
    line); nothing when the source does not parse."""
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
            yield level, node.lineno, node.end_lineno, " ".join(fmt.split()), knowgen.first_line(fmt)


# the modules read whole for issue 18 (lib-coverage): PY_FILES from nn/functional.py on; a message of theirs that
# spans lines gets its first line as matcher (knowgen.matcher), the sites read before keep theirs
WHOLE = set(PY_FILES[PY_FILES.index("nn/functional.py"):])


def py_blocks(rel, src):
    """The slice blocks of a Python file: each message's statement, dedented, at its line (a message OWNED
    by gen_torch_messages left out)."""
    lines = src.splitlines(True)
    seen = set()
    for _level, first, last, fmt, _first_line in py_sites(src):
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

    def add(where, level, fmt, src, first=None):
        if fmt in seen:
            return
        seen.add(fmt)
        rx, literal = knowgen.matcher(fmt, first)  # a message printed over several lines: its first line matches
        site = {"id": knowgen.unique_id(_site_id(where, fmt), ids), "where": where, "source": src,
                "level": level, "text": fmt}
        if not knowgen.unanchored(site, rx, literal, 12):
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
            if str(rule).startswith("ctx-") and not knowgen.specific_enough(fmt, errtexts=()):
                # too few words of its own to be this message alone ('negative argument', 'Missing argument %s'):
                # left unassigned rather than given its file's family (tools/gen_slurm_messages.py VAGUE)
                rule, family = "too few words of its own to assign by its source file", None
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
            whole = path[len("torch/"):] in WHOLE
            for level, line, _last, fmt, first in py_sites(text):
                if not OWNED.search(fmt):
                    add("%s:%d%s" % (path, line, release), level, fmt, "python", first if whole else None)
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/): torch.load, nn.Module, autograd, "
                                     "torch.compile, torch.utils.data, torch.cuda, torch.amp, cpp_extension, "
                                     "nn.functional and the nn layers, torch.optim, torch.utils.checkpoint, "
                                     "torch.cuda.graphs python modules; the allocator-configuration strings of libc10.so / "
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
        knowgen.save_text(SLICE, text)
        path = SLICE
    files, version = knowgen.read_slice(path)
    doc = build(files, version)
    knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("torch_core_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
