#!/usr/bin/env python3
"""Build /tmp/heldout-p65/explain_heldout_p65.jsonl from the recorded texts in rec/ (eval-p65, session 32)."""
import json, os
C = "/tmp/heldout-p65/rec"
SR = "planted-cpu-2026-11-29-p65/"
cases = [
 dict(id="p65-accelerate_launch_config_file_after_script", file="run01.txt", comp="transformers-hfargumentparser",
  category="deepspeed/accelerate", family="launcher.script_args", alts=["launcher.accelerate_error", "transformers.usage"],
  fix="`--config_file cpu2.yaml` was written after the script name, so `accelerate launch` did not see it (it launched one process with defaults) and passed it to train_clm.py, whose HfArgumentParser rejects unknown arguments; put the launcher's own options (--config_file, --num_processes, ...) before the script path.",
  kw=["before", "precede", "ahead of", "in front of"],
  note="planted as shown; fix verified: `accelerate launch --config_file cpu2.yaml train_clm.py ...` (same script args) launched 2 processes (world 2) and finished training + eval."),
 dict(id="p65-block_size_exceeds_gpt2_n_positions", file="run02.txt", comp="gpt2-position-embedding",
  category="torch.distributed", family="usercode.index_out_of_range", alts=["transformers.usage", "usercode.shape_mismatch"],
  fix="--block_size 128 makes 128-token training blocks but the GPT-2 checkpoint was built with n_positions=64 (64 position embeddings), so the position-embedding lookup (wpe) indexes past its table; use a block size no larger than the model's n_positions / max_position_embeddings (64 here), or build the model with a larger context.",
  kw=["n_positions", "max_position_embeddings", "context length", "context window", "position embedding"],
  note="planted: tiny GPT2Config(n_positions=64) checkpoint built locally; fix verified: --block_size 64 trained and evaluated on both ranks."),
 dict(id="p65-second_accelerator_changes_mixed_precision", file="run04.txt", comp="accelerate-state",
  category="deepspeed/accelerate", family="accelerate.library_error", alts=["accelerate.config", "code.exception"],
  fix="A helper module imported by the script (a logging util) already creates `Accelerator()` at import time, which initialises the process-wide AcceleratorState without bf16; the script's own `Accelerator(..., mixed_precision='bf16')` then cannot change it. Create only one Accelerator (in the helper use PartialState() lazily or pass the script's accelerator in), so the first and only initialisation gets the real settings.",
  kw=["PartialState", "only one", "single accelerator", "import", "helper"],
  note="planted: logutil.py does `_acc = Accelerator()` at module level; fix verified: logutil uses PartialState() inside get_logger (called after the script's Accelerator), run finished with processes=2 and bf16. (A PartialState() at import time, tried first, ran but as 1 process per rank on these CPU nodes, so the lazy form is the verified fix.)"),
 dict(id="p65-lm_collator_with_ragged_labels_column", file="run05.txt", comp="transformers-data-collator-lm",
  category="torch.distributed", family="transformers.usage", alts=["usercode.shape_mismatch", "usercode.dataloader_worker_exception"],
  fix="The tokenize function adds a `labels` column (a copy of input_ids, one length per text) and DataCollatorForLanguageModeling(mlm=False) pads only input_ids/attention_mask, so the ragged labels cannot be stacked; do not add labels yourself (the causal-LM collator builds them from the padded input_ids with -100 on padding), or pad labels too (e.g. DataCollatorForSeq2Seq).",
  kw=["remove the labels", "drop the labels", "don't add labels", "do not add labels", "DataCollatorForSeq2Seq"],
  note="planted: tokenize() sets enc['labels'] = input_ids copy, no grouping; fix verified: the same script without the labels line trained and evaluated (train_loss 4.499)."),
 dict(id="p65-load_dataset_datasetdict_passed_to_trainer", file="run08.txt", comp="datasets-datasetdict",
  category="torch.distributed", family="datasets.usage", alts=["transformers.trainer", "code.exception"],
  fix="load_dataset('json', data_files=one_file) without split= returns a DatasetDict ({'train': ...}), and that dict was passed to Trainer as train_dataset, so the sampler's integer index hits the dict; pass the split (split=\"train\" in load_dataset or lm[\"train\"]).",
  kw=["split=", "[\"train\"]"],
  note="planted as shown; fix verified: load_dataset(..., split=\"train\") with the same command trained 1 epoch on both ranks."),
 dict(id="p65-peft_lora_targets_layernorm", file="run09.txt", comp="peft-lora-target-modules",
  category="torch.distributed", family="peft.usage", alts=["peft.library_error"],
  fix="--lora_targets includes ln_1,ln_2, which in GPT-2 are LayerNorm modules; LoRA can only wrap Linear/Conv1D/Embedding/Conv layers, so get_peft_model refuses; target only the projection layers (c_attn, c_proj, c_fc) and, if the LayerNorms must be trained, list them in modules_to_save instead.",
  kw=["modules_to_save", "remove", "drop", "only c_attn", "exclude"],
  note="planted as shown; fix verified: --lora_targets c_attn,c_proj trained on both ranks (5,632 trainable params). The modules_to_save variant was not run. Near-neighbour of p17-peft_regex_matches_container (same peft error; there a regex over-matched container modules, here LayerNorm names listed on purpose)."),
 dict(id="p65-accelerate_load_state_checkpoint_predates_scheduler", file="run14.txt", comp="accelerate-load-state",
  category="deepspeed/accelerate", family="torch.checkpoint_load", alts=["accelerate.library_error", "errno.enoent"],
  fix="The resumed checkpoint ckpt/epoch_0 was written by the previous version of the script, which had no LR scheduler; now a scheduler is passed to accelerator.prepare, so load_state expects scheduler.bin and the file does not exist. Resume such old checkpoints with load_state before preparing the new scheduler (then step it to the resumed position), or start a fresh run; new checkpoints include scheduler.bin.",
  kw=["without", "older", "previous", "predates", "before"],
  note="planted: the checkpoint was written by a first run of the script without scheduler (setup_run14_finetune_v1.py, setup_run14.log), epochs 1-2 deleted; fix verified: load_state before creating/preparing the scheduler (scheduler fast-forwarded), resumed at epoch 1 and finished epochs 1-2, new checkpoints with scheduler.bin."),
 dict(id="p65-evaluate_distributed_metric_node_local_cache", file="run17.txt", comp="evaluate-distributed-metric",
  category="torch.distributed", family="code.library_error", alts=["errno.file_lock", "torch.distributed_usage"],
  fix="evaluate's distributed mode (num_process/process_id) has every process write its predictions and a lock file into the metric cache directory and rank 0 waits to see the others' files, but the job sets HF_HOME=$TMPDIR/hf, a node-local directory, so rank 0 on node 0 never sees node 1's lock file; give the metric a cache_dir on a filesystem shared by all nodes (or HF_HOME there), or gather predictions with torch.distributed/accelerate and compute the metric on rank 0 only.",
  kw=["shared", "gather", "cache_dir", "nfs"],
  note="planted: two torchrun agents (--nnodes 2, one process each) on this VM, each with its own TMPDIR standing in for node-local scratch, HF_HOME=$TMPDIR/hf; the text is node 0's output (node 1 failed the same way, rec/run17_node1_companion.log). Metric = a local evaluate module (metrics/seq_accuracy, no download). Fix verified: same two-node launch with evaluate.load(..., cache_dir=<one directory both nodes see>) printed validation accuracy, both exit 0."),
 dict(id="p65-trainer_resume_node_local_output_dir_second_node", file="run18.txt", comp="transformers-trainer-checkpoint",
  category="torch.distributed", family="transformers.trainer", alts=["torch.checkpoint_load"],
  fix="--output_dir $TMPDIR/out is node-local scratch: when the checkpoints were written only the global main process (node 0) saved the model/optimizer/trainer state, so node 1's copy of checkpoint-40 holds just its rng_state_1.pth and resuming there finds no valid checkpoint; put output_dir (and the checkpoint given to --resume_from_checkpoint) on a filesystem shared by all nodes.",
  kw=["shared", "same filesystem", "common filesystem", "nfs"],
  note="planted: two torchrun agents (--nnodes 2, 1 process each) with separate TMPDIRs standing in for node-local disks; a first 2-node run (setup_run18_n*.log) wrote checkpoint-20/40 with --output_dir $TMPDIR/out; the text is node 1's output of the resume run (node 0 then failed with gloo 'Connection closed by peer', rec/run18_node0_companion.log). The runner's own '[exit 1]' line was removed from the end. Fix verified: same 2-node setup+resume with --output_dir on one directory both nodes see: resumed and finished (both exit 0). --save_on_each_node was tried and did NOT fix it here (transformers 5.24.0 wrote no model.safetensors into node 1's checkpoint), so it is not a keyword."),
 dict(id="p65-healthy_lora_gpt2_conv1d_fan_in_fan_out_warning", file="run10.txt", comp="peft-lora-gpt2",
  category="healthy", healthy=True,
  note="recorded from a working run: LoRA on GPT-2 c_attn (Conv1D) under torchrun 2 ranks; fan_in_fan_out UserWarning, is_gradient_checkpointing FutureWarning and DDP find_unused_parameters warning are harmless; exit 0."),
 dict(id="p65-healthy_trainer_resume_on_more_ranks", file="run11.txt", comp="transformers-trainer-resume",
  category="healthy", healthy=True,
  note="recorded from a working run: checkpoint-40 written by a 1-process run, resumed with torchrun 2 ranks; 'missing keys ... lm_head.weight' (tied to wte) and the logging_steps mismatch warning are harmless; finished epoch 2 and evaluated, exit 0."),
 dict(id="p65-healthy_streaming_dataset_trainer_worker_cap", file="run13.txt", comp="datasets-streaming-trainer",
  category="healthy", healthy=True,
  note="recorded from a working run: streaming json dataset (1 shard) with Trainer, 2 ranks, --dataloader_num_workers 2, max_steps 60; 'Too many dataloader workers ... Stopping 1 dataloader workers' is informational; exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    o = dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"])
    for k in o["fix_keywords"]:
        assert not all(p.lower() in text.lower() for p in k.split("&")), (c["id"], k)
    out.append(o)
labels = set(l.strip() for l in open("/tmp/heldout-p65/labels.txt"))
for o in out:
    for f in ([o["family"]] + o["family_alternatives"]):
        assert f == "healthy" or f in labels, (o["id"], f)
with open("/tmp/heldout-p65/explain_heldout_p65.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
