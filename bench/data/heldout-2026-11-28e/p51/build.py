#!/usr/bin/env python3
"""Build explain_heldout_p51.jsonl from the planted logs in run1/ and run2/ (eval-p51)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
ENV = ("planted on 1x NVIDIA H200 (kind nvidia-h200, driver 580.159.04, Python 3.12, torch 2.11.0+cu130, CUDA 13.0, "
       "NCCL 2.28.9), harness build/p51/plant51.py + %s (copied into harness/), log %s, rc %s; ")
def log(run, name):
    return open(os.path.join(D, run, name + ".log"), encoding="utf-8").read().rstrip("\n")
C = []
def add(sid, run, name, cmd, family, alts, fix, kws, note, category="cuda", group="usercode", healthy=False, rc="1",
        prefix=""):
    scen = "scen.py" if run == "run1" else "scen2.py"
    text = prefix + "$ " + cmd + "\n" + log(run, name)
    C.append(dict(id="p51-" + sid, url="planted:p51-" + sid, source_repo="planted-gpu-2026-11-28-p51", category=category,
                  text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                  group=group, label_note=ENV % (scen, "%s/%s.log" % (run, name), rc) + note))
PY = "python train.py"
add("tf32_legacy_flag_read_after_new_api_set", "run1", "s01a", PY, "torch.usage", ["torch.api_version"],
    "The script enables TF32 with the new per-backend API (torch.backends.cuda.matmul.fp32_precision / cudnn.conv.fp32_precision) "
    "but its logging helper reads the legacy flag torch.backends.cuda.matmul.allow_tf32; PyTorch 2.9+ refuses to mix the two "
    "APIs. Read/print the new fp32_precision attributes instead (or use only the legacy allow_tf32/set_float32_matmul_precision API).",
    ["fp32_precision", "set_float32_matmul_precision"],
    "planted: new-API fp32_precision='tf32' set at the top, then print(...allow_tf32...) in log_run_config raises the 'mix of the "
    "legacy and new APIs' RuntimeError. Healthy counterpart (only the new API, reading fp32_precision) ran fine in run1/h05.log. "
    "The setting lines are not in the traceback; the answer must infer the new API from the message (medium-high).")
add("tf32_new_api_value_uppercase", "run2", "s16", PY, "torch.usage", ["torch.api_version", "code.exception"],
    "torch.backends.cuda.matmul.fp32_precision only accepts the lowercase values 'ieee', 'tf32' (and 'none'); 'TF32' is rejected. "
    "Write fp32_precision = \"tf32\" in lower case.",
    ["lowercase", "lower case", "lower-case", "ieee"],
    "planted: torch.backends.cuda.matmul.fp32_precision = \"TF32\" -> RuntimeError: Unknown precision: TF32. The lowercase value "
    "\"tf32\" ran in run1/h05.log and run1/s01a (set without error). High confidence.")
add("fp8_model_cast_plain_linear", "run1", "s02", PY, "torch.usage", ["code.exception", "torch.api_version"],
    "Casting the whole model and the input to torch.float8_e4m3fn does not give FP8 compute: ordinary ops (addmm/linear) have no "
    "float8 kernels. FP8 matmuls need torch._scaled_mm with per-tensor scales (or a library such as torchao float8 / "
    "Transformer Engine); otherwise keep the model in bf16 (store fp8 weights only with dequantization before the matmul).",
    ["_scaled_mm", "torchao", "transformer engine", "transformer_engine", "dequant"],
    "planted: model.to(torch.float8_e4m3fn) and model(x.to(torch.float8_e4m3fn)) -> NotImplementedError: \"addmm_cuda\" not "
    "implemented for 'Float8_e4m3fn'. The same layer via torch._scaled_mm ran in run1/h03.log (rel err 0.037). High confidence.")
add("fp8_scaled_mm_mat2_row_major", "run1", "s03", PY, "torch.usage", ["usercode.shape_mismatch", "code.exception"],
    "torch._scaled_mm needs mat1 row-major and mat2 column-major. The FP8 weight was stored as w.t().contiguous() (a row-major "
    "[in, out] copy); keep the weight as [out, in] row-major and pass self.w8.t() (a column-major view), without .contiguous().",
    [".t()", "transpose", "contiguous"],
    "planted: w8 = (w/scale).to(fp8).t().contiguous(), then torch._scaled_mm(x8, self.w8, ...) -> RuntimeError: Only "
    "multiplication of row-major and column-major matrices is supported by cuBLASLt. The fix (w8 row-major [out,in], pass w8.t()) "
    "ran in run1/h03.log. Not the p10 divisible-by-16 mechanism. High confidence.")
add("pluggable_allocator_swapped_after_cuda_alloc", "run1", "s05", "nvcc -shared -Xcompiler -fPIC -o alloc.so alloc.cu && python train.py",
    "torch.usage", ["cuda.alloc_conf"],
    "torch.cuda.memory.change_current_allocator() only works before the CUDA caching allocator has been used; the model had "
    "already been moved to the GPU. Create the CUDAPluggableAllocator and call change_current_allocator at the very start of "
    "the process, before any CUDA tensor/model.cuda().",
    ["before any", "at the start", "very start", "beginning", "first cuda"],
    "planted: model.cuda() (32 MiB allocated) then change_current_allocator(CUDAPluggableAllocator('./alloc.so', ...)) -> "
    "RuntimeError: Can't swap an already initialized allocator. The allocator .so compiled fine with nvcc (prep in the same "
    "command). The fix follows from the PyTorch docs (swap must precede allocation); not re-run. High confidence.")
add("device_string_lists_two_gpus", "run1", "s06", PY, "torch.usage", ["cuda.invalid_device_ordinal", "code.exception"],
    "torch.device takes one device; 'cuda:0,1' from the config is not a valid device string. Use one device per process "
    "(e.g. torchrun + DistributedDataParallel with cuda:{local_rank}), or choose GPUs with CUDA_VISIBLE_DEVICES=0,1 and "
    "DataParallel(device_ids=[0, 1]); for one GPU set device to 'cuda:0'.",
    ["CUDA_VISIBLE_DEVICES", "DistributedDataParallel", "DataParallel", "torchrun", "one device"],
    "planted: cfg device 'cuda:0,1' -> torch.device(...) RuntimeError: Invalid device string: 'cuda:0,1'. Deterministic parse "
    "error; high confidence.")
add("cuda_ipc_tensor_forwarded_to_third_process", "run1", "s07", PY, "torch.usage", ["code.exception"],
    "The augment process puts a CUDA tensor it received from the loader process (via CUDA IPC) onto another queue; PyTorch "
    "cannot re-share a CUDA tensor received from another process, so those batches are dropped (the queue feeder thread prints "
    "the error) and the trainer waits. Clone the tensor in the relay process before forwarding (img = img.clone()), or send "
    "from the producer directly.",
    ["clone()", "clone it", "a clone", "clone the"],
    "planted: 3 processes on one GPU (spawn); relay forwards unmodified received CUDA tensors for even batch ids -> 'Attempted "
    "to send CUDA tensor received from another process; this is not currently supported.' printed twice by the feeder thread, "
    "trainer gets 2 of 4 batches and times out; rc 0 (trainer exits by its own timeout). Flipped (new) tensors passed, which "
    "confirms clone/new storage fixes it. High confidence.", rc="0")
add("rng_state_loaded_to_gpu_by_map_location", "run1", "s08",
    "python train.py --epochs 2 && python train.py --resume ckpt_last.pt --epochs 2", "torch.checkpoint_load", ["torch.usage"],
    "The checkpoint was loaded with torch.load(..., map_location=\"cuda\"), which also moved the saved RNG states (CPU "
    "ByteTensors) to the GPU; torch.set_rng_state / torch.cuda.set_rng_state need CPU ByteTensors. Load with "
    "map_location=\"cpu\" (then move the model/optimizer) or pass ckpt[\"rng_cpu\"].cpu() / ckpt[\"rng_cuda\"].cpu().",
    ["map_location", ".cpu()"],
    "planted: first run saves ckpt with torch.get_rng_state()/torch.cuda.get_rng_state(); resume does torch.load(map_location="
    "'cuda') then torch.set_rng_state(ckpt['rng_cpu']) -> TypeError: RNG state must be a torch.ByteTensor. The torch.load line "
    "is not in the traceback (medium-high).")
add("rope_cache_built_under_inference_mode", "run1", "s09", PY, "torch.usage", ["usercode.no_grad"],
    "The rotary cos/sin cache is built in a method decorated with @torch.inference_mode(), so those tensors are inference "
    "tensors and cannot be saved for backward in training. Build the cache under torch.no_grad() (e.g. as a register_buffer) "
    "or clone the cached tensors before use.",
    ["cache", "precomput", "buffer"],
    "planted: Rotary.build_cache decorated with @torch.inference_mode() in __init__, used in training forward -> RuntimeError: "
    "Inference tensors cannot be saved for backward. The message names the generic fix; the keywords check that the answer "
    "points at the precomputed cache (medium-high).")
add("cuda_graph_capture_adam_not_capturable", "run1", "s12", PY, "torch.usage", ["cuda.api_error"],
    "Whole-step CUDA graph capture includes optimizer.step(), and torch.optim.Adam must be created with capturable=True "
    "(keeps step counters on the GPU) to be captured.",
    ["capturable=True", "capturable = True"],
    "planted: warmup on a side stream, torch.cuda.graph capture of forward+backward+Adam.step() with default Adam -> "
    "'Attempting CUDA graph capture of step() for an instance of Adam but param_groups' capturable is False.' The same script "
    "with capturable=True captured and replayed 200 iterations (loss 0.92 -> 0.064) in run1/h02.log. High confidence.")
add("cuda_graph_manual_capture_on_default_stream", "run1", "s13", PY, "torch.usage",
    ["cuda.api_error", "cuda.cudaErrorStreamCaptureUnsupported"],
    "CUDAGraph.capture_begin() was called on the default (legacy) stream; graphs must be captured on a side stream. Use "
    "`with torch.cuda.graph(g):` (it captures on its own stream) or wrap capture_begin/capture_end in "
    "`with torch.cuda.stream(s):` for s = torch.cuda.Stream() (warm up on that stream too).",
    ["torch.cuda.graph(", "torch.cuda.stream", "side stream", "torch.cuda.Stream"],
    "planted: manual g.capture_begin()/capture_end() around an inference forward on the default stream -> 'CUDA graphs must be "
    "captured on a non-default stream.' Capturing with torch.cuda.graph(...) (side stream) worked in run1/h02.log. High "
    "confidence. Different from p9 (sync inside capture).")
add("make_graphed_callables_inside_autocast", "run2", "s19", PY, "torch.usage", ["cuda.api_error"],
    "torch.cuda.make_graphed_callables was called inside torch.autocast with the default autocast weight cache; graphing does "
    "not support it. Use torch.autocast(..., cache_enabled=False) around both graphing and the training step, or graph the "
    "module outside the autocast region.",
    ["cache_enabled=False&autocast(", "outside"],
    "planted: with torch.autocast('cuda', dtype=torch.bfloat16): make_graphed_callables(model, (sample,)) -> RuntimeError: "
    "make_graphed_callables does not support the autocast caching. Please set `cache_enabled=False`. Fix from the message and "
    "the PyTorch CUDA-graphs docs; not re-run. High confidence.")
add("nvidia_smi_index_from_slurm_localid", "run2", "s24", "SLURM_LOCALID=1 bash prolog.sh", "nvidia_smi.invalid_device",
    ["nvidia_smi.no_devices_were_found", "slurm.env.slurm_localid", "cuda.invalid_device_ordinal"],
    "The prolog queries nvidia-smi -i ${SLURM_LOCALID}, but the task sees only one GPU (index 0; on Slurm with device "
    "constraint each task sees its own GPUs renumbered from 0), so index 1 does not exist and nvidia-smi says 'No devices were "
    "found'. Query index 0 / all visible GPUs (no -i), or map via CUDA_VISIBLE_DEVICES / SLURM_STEP_GPUS, not the local task id.",
    ["-i 0", "index 0", "CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "only one GPU"],
    "planted on the 1-GPU machine: nvidia-smi -i 1 -> 'No devices were found', rc 6. The GPU is healthy (all other scenarios "
    "ran on it). The cause (index beyond the visible GPUs) is settled by the plant; that the user is on a per-task-constrained "
    "Slurm node is the story, the log alone does not show it (medium).", rc="6",
    prefix="$ cat prolog.sh\n" + open(os.path.join(D, "prolog.sh")).read().rstrip("\n") + "\n")
# healthy
add("healthy_gloo_two_ranks_share_one_gpu", "run1", "h01", "torchrun --standalone --nproc-per-node 2 train.py", "healthy", [],
    "", [], "planted healthy: DDP over gloo with CUDA tensors, 2 ranks on the same GPU, 10 steps, params equal on both ranks, "
    "rc 0. High confidence.", category="healthy", group="healthy", healthy=True, rc="0")
add("healthy_cuda_graph_full_step_capturable_adam", "run1", "h02", PY, "healthy", [], "", [],
    "planted healthy: whole train step (forward, backward, Adam(capturable=True).step) captured with torch.cuda.graph and "
    "replayed 200 times, 0.88 ms/iter, loss decreasing, rc 0. High confidence.", category="healthy", group="healthy",
    healthy=True, rc="0")
add("healthy_fp8_scaled_mm_linear", "run1", "h03", PY, "healthy", [], "", [],
    "planted healthy: FP8 linear with torch._scaled_mm (row-major x, column-major w.t()), rel err 0.037 vs fp32, FP8 GEMM "
    "~1.3-1.4 PFLOP/s on H200, rc 0. High confidence.", category="healthy", group="healthy", healthy=True, rc="0")
add("healthy_sdp_kernel_deprecated_warning", "run2", "s22", PY, "healthy", [], "", [],
    "planted healthy: old torch.backends.cuda.sdp_kernel(enable_flash=True, ...) context; only a FutureWarning that it is "
    "deprecated, the flash attention call runs and prints its output, rc 0. High confidence (warning only).",
    category="healthy", group="healthy", healthy=True, rc="0")
with open(os.path.join(D, "explain_heldout_p51.jsonl"), "w", encoding="utf-8") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
