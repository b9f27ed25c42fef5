#!/usr/bin/env python3
"""Build explain_heldout_p56.jsonl from the planted logs in run1/ and run2/ (eval-p56)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
ENV = ("planted on 2x NVIDIA H200 (kind nvidia-h200-x2, Python 3.12, torch 2.11.0+cu130, CUDA 13.0, NCCL 2.28.9, "
       "triton 3.6.0; NCCL_NVLS_ENABLE=0), harness plant56.py + %s (copied into harness/), log %s, rc %s; ")
TR = "torchrun --standalone --nproc-per-node 2 train.py"
SR = "planted-gpu-2026-11-28-p56/"
def log(run, name):
    return open(os.path.join(D, run, name + ".log"), encoding="utf-8").read().rstrip("\n")
C = []
def add(sid, run, name, comp, family, alts, fix, kws, note, category="torch", group="usercode", healthy=False, rc="1"):
    scen = "scen.py" if run == "run1" else "scen2.py"
    text = "$ " + TR + "\n" + log(run, name)
    C.append(dict(id="p56-" + sid, url="planted:p56-" + sid, source_repo=SR + comp, category=category,
                  text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                  group=group, label_note=ENV % (scen, "%s/%s.log" % (run, name), rc) + note))

add("alloc_conf_backend_misspelled", "run1", "f01", "c10.cuda.allocator_config", "cuda.alloc_conf", [],
    "The job environment sets PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsnyc (misspelled), and the allocator config parser "
    "accepts only 'native' or 'cudaMallocAsync', so CUDA initialisation fails in torch.cuda.set_device: fix the spelling "
    "(backend:cudaMallocAsync) or drop the backend option.",
    ["PYTORCH_CUDA_ALLOC_CONF", "cudaMallocAsnyc", "misspel", "typo"],
    "planted: env PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsnyc for a plain DDP script; the error is raised at the first CUDA "
    "call on both ranks. Label settled by planting.", category="cuda", group="environment")
add("scaled_mm_two_e5m2_operands", "run1", "f02", "torch._scaled_mm", "torch.usage", ["usercode.dtype_mismatch"],
    "torch._scaled_mm cannot multiply two float8_e5m2 matrices: keep e5m2 for the gradient operand only and quantize the "
    "activations (the other operand) to float8_e4m3fn (the usual hybrid FP8 recipe), or use e4m3 for both.",
    ["e4m3", "float8_e4m3fn"],
    "planted: FP8 weight-gradient GEMM with grad_out and activations both cast to torch.float8_e5m2 (layouts and tensor-wise "
    "fp32 scales correct); both ranks fail at the first _scaled_mm. Label settled by planting.")
add("memory_fraction_above_one", "run1", "f03", "torch.cuda.memory", "torch.usage", ["cuda.alloc_conf", "memory_fraction"],
    "The config's gpu_memory_fraction is 1.2, but torch.cuda.set_per_process_memory_fraction takes a fraction of the GPU's "
    "total memory in [0, 1]: set it to e.g. 0.9 (or remove the call to use the whole GPU).",
    ["0.9", "0.8", "below 1", "less than 1", "<= 1"],
    "planted: config dict gpu_memory_fraction 1.2 passed to torch.cuda.set_per_process_memory_fraction on both ranks. "
    "Label settled by planting.", category="cuda", group="usercode")
add("resume_ema_no_map_location_rank1_cuda0", "run1", "f04", "aten", "torch.checkpoint_load",
    ["usercode.tensors_on_two_devices", "torch.gpu0_extra_memory"],
    "Rank 0 saved the checkpoint from cuda:0 and every rank resumes with torch.load() without map_location, so on rank 1 the "
    "EMA tensors (a plain list in the checkpoint, which load_state_dict does not move) come back on cuda:0 while the model is "
    "on cuda:1, and e.lerp_(p) fails. Load with map_location=f'cuda:{local_rank}' (or 'cpu') and/or move the EMA tensors "
    "to each parameter's device (.to(p.device)).",
    ["map_location", ".to("],
    "planted: DDP train 10 steps, rank 0 torch.save({'model','ema','opt','step'}), barrier, all ranks torch.load() without "
    "map_location; rank 0 continues, rank 1 fails in the EMA update. Label settled by planting.")
add("rowwise_scaled_mm_1d_scales", "run1", "f05", "torch._scaled_mm", "torch.usage", ["usercode.shape_mismatch"],
    "For row-wise FP8 scaling torch._scaled_mm needs 2-D scales: scale_a of shape (M, 1) and scale_b of shape (1, N); the "
    "script passes 1-D scales of shape (M,) and (N,). Keep the reduced dim (amax(dim=1, keepdim=True)) and pass "
    "scale_b as sw.t() / sw[None, :] (unsqueeze).",
    ["keepdim", "unsqueeze", "[:, None]", "(M, 1)", "reshape"],
    "planted: FP8 linear with per-row amax scales computed without keepdim; both ranks fail with 'Invalid scaling "
    "configuration'. Label settled by planting (the identical script with (M,1)/(1,N) scales ran, run2/k04).")
add("anomaly_nan_zero_vector_normalize", "run1", "f06", "torch.autograd.anomaly_mode", "usercode.nan_inf", ["torch.loss_nan"],
    "At step 7 rank 1's batch contains an all-padding row, so the bag-of-embeddings vector h is all zeros and the manual "
    "h / h.norm() divides 0 by 0, putting NaN into the forward; anomaly mode then stops in the backward of the cosine loss. "
    "Use F.normalize(h, dim=-1) (which clamps the norm with an epsilon) or skip empty documents.",
    ["normalize", "epsilon", "empty", "all-padding", "clamp"],
    "planted: torch.autograd.set_detect_anomaly(True), embedding with padding_idx=0, h = emb(ids).sum(1); h = h / h.norm(); "
    "rank 1 step 7 row 5 set to padding. The anomaly traceback names the cosine_similarity line, not the division "
    "(the NaN is created in the forward). Label settled by planting.", category="usercode")
add("cuda_event_recorded_before_set_device", "run1", "f09", "torch.cuda.Event", "torch.usage",
    ["usercode.tensors_on_two_devices", "cuda.api_error"],
    "The StepTimer's CUDA events are first recorded in a warm-up that runs before torch.cuda.set_device(local_rank), i.e. on "
    "cuda:0 in every process; on rank 1 the training loop then records them on cuda:1, which torch refuses (the message "
    "'Event device ... does not match recording stream's device' is cut off after 'Event device'). Call "
    "torch.cuda.set_device(local_rank) before any CUDA work (or create/record the events only after it).",
    ["set_device", "cuda:0", "device 0"],
    "planted: events created at import and recorded in a warm-up matmul before init (set_device); rank 0 unaffected, rank 1 "
    "fails at the first timer.begin() in the loop. The truncated message is what torch 2.11 printed. Label settled by planting.")
add("rank0_gathers_full_vocab_logits_oom", "run1", "f10", "c10.cuda.caching_allocator", "cuda.oom",
    ["torch.eval_oom", "torch.memory_grows"],
    "Rank 0 keeps every eval batch's full-vocabulary fp32 logits from both ranks on the GPU (dist.gather into a growing list, "
    "about 7.8 GiB more per batch) until its 140 GiB GPU is full; it is not fragmentation. Compute the metric per batch "
    "(sum the loss / top-k hits on each rank and all_reduce the sums), or move the gathered blocks to the CPU.",
    ["per batch", "cpu", "all_reduce", "accumulat"],
    "planted: lm_head 1024x128256, 8192 tokens per eval batch, dist.gather of fp32 logits to rank 0 and append to a list; OOM "
    "at batch 10 on rank 0 only (rank 1 then torn down by torchrun). Label settled by planting.", category="cuda")
add("compile_mode_underscore", "run1", "f12", "torch.compile", "torch.compile_error", ["torch.usage"],
    "COMPILE_MODE defaults to 'max_autotune' (underscore); torch.compile's modes are spelled with hyphens: use "
    "mode='max-autotune' (or 'max-autotune-no-cudagraphs').",
    ["'max-autotune'", "\"max-autotune\"", "hyphen", "underscore", "dash"],
    "planted: torch.compile(model, mode='max_autotune') before DDP wrapping; both ranks fail at once. Label settled by planting.")
add("int_mm_decode_batch_8", "run2", "g01", "torch._int_mm", "torch.usage", ["usercode.shape_mismatch"],
    "torch._int_mm (int8 x int8 -> int32 GEMM) requires the first operand to have more than 16 rows; the decode step has only "
    "8. Pad the int8 activations to at least 17 rows (and slice the result) or fall back to a float matmul for small batches.",
    ["pad", "fall back", "fallback", "float matmul"],
    "planted: W8A8 projection with x8 of shape (8, 4096) and w8.t() (4096, 4096); both ranks fail. Label settled by planting.")
add("fp16_attention_scores_overflow_nan", "run2", "g02", "torch.amp.GradScaler", "usercode.nan_inf", ["torch.loss_nan"],
    "Under fp16 autocast the unscaled attention scores q @ k^T of the unnormalized, growing inputs exceed the fp16 range "
    "(65504) and softmax returns NaN from step 7 (GradScaler keeps skipping steps and halving the scale, which cannot help a "
    "forward overflow). Scale the scores by 1/sqrt(d) (or use F.scaled_dot_product_attention), normalize the inputs, or "
    "train with bf16 autocast.",
    ["bf16", "bfloat16", "overflow", "sqrt", "scaled_dot_product_attention"],
    "planted: single-head attention without 1/sqrt(d), inputs multiplied by 1+8*step, fp16 autocast + GradScaler; loss nan from "
    "step 7 on, run exits 0. Label settled by planting.", category="usercode", rc="0")

add("healthy_compile_ddp_recompile_short_last_batch", "run1", "h01", "torch._dynamo", "healthy", [], "", [],
    "planted: healthy: DDP(torch.compile(model)) with TORCH_LOGS=recompiles; the short last batch (100 rows) triggers one "
    "recompile per rank (size mismatch 256 vs 100) and the TF32 hint is printed; training finished, exit 0.",
    category="healthy", group="healthy", healthy=True, rc="0")
add("healthy_cublas_no_context_warning_thread", "run2", "k03", "aten.cublas", "healthy", [], "", [],
    "planted: healthy: a helper thread runs a GPU matmul for feature statistics; cuBLAS warns that the thread had no current "
    "CUDA context and sets the primary context (harmless); 2-rank training with manual all_reduce finished, exit 0.",
    category="healthy", group="healthy", healthy=True, rc="0")
add("healthy_compile_ddp_graphs_log", "run2", "k05", "torch._dynamo", "healthy", [], "", [],
    "planted: healthy: DDP(torch.compile(model), bucket_cap_mb=8) with TORCH_LOGS=ddp_graphs prints the DDPOptimizer's "
    "original and split FX graphs (debug output); training finished 20 steps, exit 0.",
    category="healthy", group="healthy", healthy=True, rc="0")

with open(os.path.join(D, "explain_heldout_p56.jsonl"), "w", encoding="utf-8") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
