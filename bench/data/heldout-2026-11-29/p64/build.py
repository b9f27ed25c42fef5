#!/usr/bin/env python3
"""Build /tmp/heldout-p64/explain_heldout_p64.jsonl from the recorded texts in cases/ (eval-p64, session 32)."""
import json, os
C = "/tmp/heldout-p64/cases"
SR = "planted-cpu-2026-11-29-p64/"
cases = [
 dict(id="p64-scheduler_last_epoch_without_optimizer_state", file="c1_sched_last_epoch.txt", comp="torch-lr-scheduler",
  category="torch.distributed", family="torch.checkpoint_load", alts=["torch.usage"],
  fix="On resume the script builds StepLR with last_epoch=start-1 on a freshly created optimizer (its param_groups have no initial_lr yet; the optimizer state is loaded only afterwards); create the scheduler normally and restore it with sched.load_state_dict(ckpt['sched']) after opt.load_state_dict(ckpt['optim']), or load the optimizer state before constructing the scheduler.",
  kw=["state_dict", "load the optimizer&before", "optimizer state&before"],
  note="planted: epoch checkpoints from a 2-epoch run, resume with --resume ckpt_sched/epoch1.pt; fix verified (FIX=1 path: scheduler built with default last_epoch, opt.load_state_dict then sched.load_state_dict): epochs 2-3 ran with lr 0.05 -> 0.025."),
 dict(id="p64-resume_optimizer_param_groups_split_changed", file="c2_param_groups.txt", comp="torch-optimizer-load-state-dict",
  category="torch.distributed", family="torch.checkpoint_load", alts=["usercode.state_dict_mismatch"],
  fix="The checkpoint's AdamW state has one param group but --no-decay-bias-norm now builds two (decay / no-decay), so optimizer.load_state_dict refuses it; resume with the same param-group layout as when the checkpoint was saved (drop the flag until the next fresh run), or start a fresh optimizer / remap the saved state into the new groups.",
  kw=["same&group", "fresh optimizer", "remap", "drop&flag", "without the flag"],
  note="planted: checkpoint step20 written without the flag, resume with it; fix verified: same resume without --no-decay-bias-norm ran steps 20-40; also FRESH_OPT=1 (new optimizer, flag on) ran."),
 dict(id="p64-safetensors_metadata_int_values", file="c3_safetensors_metadata_int.txt", comp="safetensors-save-file",
  category="torch.distributed", family="torch.usage", alts=["code.exception"],
  fix="safetensors save_file accepts metadata only as a dict of str to str, and the export passes ints/floats (step, world_size, loss); convert every value to a string (str(v) or json.dumps) before saving.",
  kw=["string", "str(", "json.dumps"],
  note="planted as shown (safetensors 0.8.0); fix verified: FIX=1 converts the values with str(): 3 exports written, metadata read back with safe_open."),
 dict(id="p64-save_pretrained_to_read_only_project_mount", file="c5_output_dir_readonly.txt", comp="transformers-save-pretrained",
  category="errno", family="errno.erofs", alts=[],
  fix="The output directory is on /mnt/project, which is mounted read-only on the compute node, so save_pretrained cannot create it; write checkpoints to a writable location (node scratch or a read-write shared path) and copy them back, or get the share mounted read-write.",
  kw=["writable", "read-write", "remount", "scratch"],
  note="planted: private mount namespace (unshare -m), /mnt/project a read-only bind mount; fix verified: same namespace, --output-dir on a writable path saved config.json + model.safetensors."),
 dict(id="p64-old_checkpoint_has_now_non_persistent_rope_buffer", file="c6_nonpersistent_buffer_unexpected.txt", comp="torch-load-state-dict-strict",
  category="torch.distributed", family="usercode.state_dict_mismatch", alts=["torch.checkpoint_load"],
  fix="The checkpoint was written when rope.inv_freq was a persistent buffer; the current model code registers it with persistent=False (it is recomputed at init), so strict loading rejects the stale keys; drop the *.rope.inv_freq entries from the state dict before load_state_dict (or load with strict=False and check nothing else is missing).",
  kw=["persistent", "strict=false", "drop&inv_freq", "remove&inv_freq", "pop("],
  note="planted: v1 checkpoint saved with OLD_MODEL=1 (persistent buffer), v2 code non-persistent; fix verified: FIX=1 filters the rope.inv_freq keys, 20 steps ran and saved."),
 dict(id="p64-every_rank_atomic_save_same_tmp_file", file="c7_every_rank_atomic_rename.txt", comp="python-os-replace-checkpoint",
  category="errno", family="errno.enoent", alts=["torch.distributed_usage"],
  fix="save_checkpoint runs on every rank with the same temp path, so both ranks write ckpt_atomic/last.pt.tmp and the first os.replace moves it away before the second; write the checkpoint on rank 0 only (if rank == 0, then a barrier), or give each writer a unique temp file.",
  kw=["rank == 0", "only on rank", "rank 0 only", "one rank", "unique"],
  note="planted: the failure reproduced in 3 of 3 runs (which rank fails varies); fix verified: FIX=1 saves on rank 0 only: steps 10/20/30 written."),
 dict(id="p64-accelerate_load_state_new_registered_object", file="c8_acc_custom_obj_count.txt", comp="accelerate-load-state",
  category="deepspeed/accelerate", family="torch.checkpoint_load", alts=["accelerate.library_error"],
  fix="The checkpoint was saved before --ema existed (no custom_checkpoint file) but the resumed run registers the EMA with register_for_checkpointing before load_state; register the new EMA after accelerator.load_state when resuming from such a checkpoint (or resume with the same registered objects).",
  kw=["after&load_state", "register&after", "after loading"],
  note="planted (accelerate 1.15.0 under torchrun, CPU); fix verified: FIX=1 registers the EMA after load_state: resumed at step 20, step_30/step_40 saved with custom_checkpoint_0.pkl."),
 dict(id="p64-python_rng_state_restored_from_json_list", file="c9_rng_state_json_list.txt", comp="python-random-setstate",
  category="torch.distributed", family="torch.checkpoint_load", alts=["code.exception"],
  fix="The per-rank shuffle RNG state is stored in a JSON sidecar, and JSON turns random.getstate()'s tuples into lists, which Random.setstate rejects; convert it back ((v, tuple(s), g)) before setstate, or store the RNG state with pickle/torch.save instead of JSON.",
  kw=["json", "tuple(", "pickle", "convert"],
  note="planted as shown (Python 3.11.7); fix verified: FIX=1 converts the inner list to a tuple: both ranks resumed at cursor 20 and ran to step 40."),
 dict(id="p64-resume_on_more_ranks_per_rank_data_state", file="c10_resume_more_ranks_per_rank_state.txt", comp="torchrun-resume-world-size",
  category="torch.distributed", family="torch.checkpoint_load", alts=["errno.enoent"],
  fix="The checkpoint was written by 2 ranks and holds per-rank data state files only for ranks 0 and 1; resuming with --nproc-per-node 4 makes ranks 2 and 3 look for files that never existed; resume with the same world size (2 ranks) or re-shard the data state for the new number of ranks.",
  kw=["world size", "same number", "nproc-per-node 2", "re-shard", "reshard"],
  note="planted: step20 checkpoint from 2 ranks, resume on 4; fix verified: the same resume with --nproc-per-node 2 ran to step 40."),
 dict(id="p64-healthy_accelerate_resume_three_procs_from_two_info", file="h1_acc_resume_3procs_from_2.txt", comp="accelerate-load-state",
  category="healthy", healthy=True,
  note="recorded from a working run: LOGLEVEL=INFO (torchrun elastic INFO + accelerate INFO), 3 processes resume a 2-process save_state checkpoint (random_states_2 absent, handled), steps 30/40 saved, exit 0."),
 dict(id="p64-healthy_trainer_resume_three_procs_unused_params_warning", file="h2_trainer_resume_3procs_rng_missing.txt", comp="transformers-trainer-resume",
  category="healthy", healthy=True,
  note="recorded from a working run: HF Trainer (transformers 5.24.0, CPU, gloo) resumes checkpoint-20 written by 2 processes on 3 processes; DDP find_unused_parameters warnings, progress bars, exit 0."),
 dict(id="p64-healthy_steplr_step_epoch_deprecation_on_resume", file="h3_sched_step_epoch_deprecated.txt", comp="torch-lr-scheduler",
  category="healthy", healthy=True,
  note="recorded from a working run: resume from epoch1.pt with scheduler.step(epoch) (closed form, UserWarning deprecation); LRs 0.05/0.025/0.025/0.0125 as expected, exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"]))
with open("/tmp/heldout-p64/explain_heldout_p64.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
