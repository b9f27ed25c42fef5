#!/usr/bin/env python3
"""Build /tmp/heldout-p66/explain_heldout_p66.jsonl from the recorded logs in cases/ (eval-p66, session 32)."""
import json, os
C = "/tmp/heldout-p66/cases"
SR = "planted-h200-2026-11-29-p66/"
cases = [
 dict(id="p66-gan_generator_backward_after_discriminator_step", file="c01_bug.txt", comp="torch-autograd-engine-version-counter",
  family="usercode.inplace_modified", alts=[],
  fix="loss_g.backward() goes back through the retained D(fake) graph, but opt_d.step() has already updated the discriminator's weights in place (saved weight at version 1, now 2); detach fake for the discriminator loss and recompute D(fake) after the discriminator step for the generator loss (no retain_graph).",
  kw=["detach", "recompute", "re-run the discriminator", "after opt_d.step"],
  note="planted: GAN loop reusing d_fake = D(fake) for both losses with loss_d.backward(retain_graph=True); opt_d.step() between the two backwards. Fix verified: D(fake.detach()) for loss_d, loss_g = bce(D(fake), ones) after opt_d.step(): 300 steps, exit 0."),
 dict(id="p66-qkv_chunk_view_scaled_in_place", file="c02_bug.txt", comp="torch-autograd-multi-output-view",
  family="usercode.inplace_modified", alts=["torch.usage"],
  fix="q comes from qkv(x).chunk(3), one of several views of one tensor, and q.mul_(self.scale) modifies it in place, which autograd forbids for multi-output views (it only worked in the no_grad sanity pass); scale out of place: q = q * self.scale (or fold the scale into the attention scores).",
  kw=["q = q *", "q * self.scale", "clone", "not in-place", "non-inplace"],
  note="planted: attention block with q.mul_(scale) after chunk(); a no_grad sanity forward passed, the first training forward failed. Fix verified: q = q * self.scale, 100 steps, exit 0."),
 dict(id="p66-expanded_attention_mask_and_in_place", file="c03_bug.txt", comp="aten-internal-overlap-check",
  family="torch.usage", alts=["usercode.inplace_modified"],
  fix="mask is causal.unsqueeze(0).expand(B, T, T), a stride-0 view in which all batch rows share one memory, and `mask &= ~pad[...]` writes in place into it; combine out of place (mask = mask & ~pad[:, None, :]) or materialise the expanded mask first (contiguous/repeat/clone) before modifying it.",
  kw=["mask = mask &", "contiguous", "repeat", "out of place", "out-of-place"],
  note="planted: causal + key-padding mask built with expand() and &=; fix verified: mask = mask & ~pad[:, None, :], 60 steps, exit 0."),
 dict(id="p66-grad_scaler_update_after_plain_optimizer_step", file="c04_bug.txt", comp="torch-amp-grad-scaler",
  family="torch.usage", alts=[],
  fix="The fp16 loop does scaler.scale(loss).backward() but then calls optimizer.step() itself, so GradScaler never unscaled or inf-checked the gradients before scaler.update() (and the step would apply 65536x scaled gradients); call scaler.step(optimizer) (after scaler.unscale_(optimizer) when clipping) and then scaler.update().",
  kw=["scaler.step", "step(optimizer"],
  note="planted: optimizer.step() in place of scaler.step(optimizer) with clip_grad_norm_ on scaled grads; fix verified: scaler.unscale_ + clip + scaler.step(optimizer) + scaler.update(), 200 steps, scale stayed 65536, exit 0."),
 dict(id="p66-autograd_function_instance_called_without_apply", file="c05_bug.txt", comp="torch-autograd-function-call",
  family="torch.usage", alts=["torch.api_version"],
  fix="The gradient-reversal layer instantiates the new-style autograd Function and calls the instance (GradReverse()(f, lambd)); a Function with static forward/backward must be invoked through the class: GradReverse.apply(f, lambd).",
  kw=["apply", "GradReverse.apply"],
  note="planted: DANN gradient-reversal layer written in the old style call; fix verified: GradReverse.apply(f, lambd), 100 steps, exit 0."),
 dict(id="p66-sdpa_flash_only_with_explicit_causal_mask", file="c06_bug.txt", comp="torch-sdpa-backend-selection",
  family="torch.sdpa_no_kernel", alts=["torch.usage"],
  fix="sdpa_kernel(SDPBackend.FLASH_ATTENTION) leaves only the flash backend, and flash attention does not accept an explicit attn_mask, so no kernel is available; pass is_causal=True instead of the boolean causal mask (or also allow EFFICIENT_ATTENTION / MATH when a real mask is needed).",
  kw=["is_causal", "EFFICIENT_ATTENTION", "SDPBackend.MATH"],
  note="planted: bf16 causal attention forced to flash with a tril bool mask; fix verified: is_causal=True under the same flash-only context, 40 steps, exit 0."),
 dict(id="p66-custom_function_numpy_backward_returns_cpu_grad", file="c08_bug.txt", comp="torch-autograd-validate-outputs",
  family="usercode.tensors_on_two_devices", alts=["torch.usage"],
  fix="The custom autograd Function Ive (scipy.special.ive) computes its backward in NumPy and returns torch.from_numpy(...), a CPU tensor, as the gradient of an input on cuda:0 (its forward moved the result back, the backward does not); move the gradient to the input's device, e.g. torch.from_numpy(g).to(grad_output.device, grad_output.dtype).",
  kw=["grad_output.device", ".to(", "device=", "to the gpu", "to cuda"],
  note="planted: von Mises-Fisher NLL with a SciPy Bessel function wrapped in autograd.Function; fix verified: .to(grad_output.device, grad_output.dtype) on the returned gradient, 100 steps, exit 0."),
 dict(id="p66-healthy_compile_recompile_on_no_grad_validation", file="h01_bug.txt", comp="torch-dynamo-recompiles-log",
  healthy=True,
  note="recorded from a working run: torch.compile'd MLP, TORCH_LOGS=recompiles; the validation pass under torch.no_grad() recompiles once (GLOBAL_STATE grad_mode), expected; 3 epochs, val acc 0.67->0.79, exit 0."),
 dict(id="p66-healthy_compile_dynamic_shapes_info_log", file="h03_bug.txt", comp="torch-symbolic-shapes-info-log",
  healthy=True,
  note="recorded from a working run: torch.compile'd LM with variable sequence lengths, TORCH_LOGS=dynamic; INFO lines from automatic dynamic shapes (create_symbol, guards); 30 steps, exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category="healthy" if h else "cuda", text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"]))
with open("/tmp/heldout-p66/explain_heldout_p66.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
