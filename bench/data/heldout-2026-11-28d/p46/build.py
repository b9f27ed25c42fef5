#!/usr/bin/env python3
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-28-p46"
ENV = "torchrun --nproc-per-node 2 (gloo, torch 2.13.0+cpu, Python 3.11, Debian 12 VM, no GPU)"
C = [
 ("run01", "checkpoint_pickles_module_holding_process_group", "checkpoint", "usercode-checkpoint",
  "python.pickle", ["code.exception", "torch.distributed_usage"],
  "torch.save(net) pickles the whole module, and Net keeps the ProcessGroup from dist.new_group() as an attribute (self.metric_group), which cannot be pickled: save net.state_dict() instead (from rank 0), or keep the group out of the module / drop it in __getstate__.",
  ["state_dict", "__getstate__", "keep the group out"],
  "planted: Net.__init__ stores dist.new_group(backend='gloo') in self.metric_group and the loop calls torch.save(net, ...); fix verified by re-running with torch.save(net.state_dict(), ...) on rank 0 (2 epochs, exit 0)."),
 ("run03", "world_size_env_var_is_string", "user-code", "usercode-env",
  "code.exception", ["torch.distributed_usage", "torch.usage"],
  "os.environ values are strings, so world_size = os.environ.get('WORLD_SIZE', 1) is the str '2' under torchrun and GLOBAL_BATCH // world_size fails: convert it with int(os.environ['WORLD_SIZE']) (or use dist.get_world_size() after init).",
  ["int(os.environ", "get_world_size", "string&int"],
  "planted: WORLD_SIZE read without int(); fix verified by re-running with int(os.environ.get('WORLD_SIZE', 1)) (per-rank batch 32, exit 0)."),
 ("run04", "model_module_without_ddp_wrap_single_process", "user-code", "usercode-ddp",
  "torch.ddp_wrapper_attribute", ["code.exception", "torch.usage"],
  "The script wraps the model in DDP only when world_size > 1, and with --nproc-per-node 1 the plain nn.Sequential has no .module, so model.module.state_dict() fails: unwrap only when wrapped (model.module if isinstance(model, DDP) else model), or always wrap in DDP.",
  ["isinstance", "hasattr", "unwrap", "always wrap"],
  "planted: `if world > 1: model = DDP(model)` and later torch.save(model.module.state_dict()); run with torchrun --nproc-per-node 1; fix verified by re-running with (model.module if isinstance(model, DDP) else model).state_dict() (saved ckpt/model.pt, exit 0)."),
 ("run05", "adam_with_sparse_embedding_gradients", "user-code", "usercode-optimizer",
  "torch.usage", ["code.exception", "torch.distributed_usage"],
  "nn.Embedding(sparse=True) produces sparse gradients, which torch.optim.Adam cannot take: give the embedding parameters to a SparseAdam (and the dense head to Adam) as two optimizers, or build the embedding with sparse=False (dense gradients).",
  ["sparse=False", "dense gradient", "two optimizers", "separate optimizer"],
  "planted: DDP (gloo) over nn.Embedding(10000, 32, sparse=True) + Linear with a single torch.optim.Adam; fix verified by re-running with SparseAdam for model.module.emb and Adam for model.module.head (10 steps, exit 0)."),
 ("run06", "eval_loader_drop_last_empty_per_rank_shard", "data", "usercode-data",
  "code.exception", ["torch.distributed_usage", "torch.usage"],
  "The 50-sample validation set is split by DistributedSampler into 25 samples per rank, fewer than batch_size=32, and drop_last=True drops that only partial batch, so the loop runs zero batches and total_loss / n_batches divides by zero: use drop_last=False for evaluation (or a batch size no larger than the per-rank shard) and guard the division.",
  ["drop_last=False", "25 samples", "per-rank shard", "fewer samples than"],
  "planted: DataLoader(val, batch_size=32, sampler=DistributedSampler(val), drop_last=True) on a 50-sample set with 2 ranks; fix verified by re-running with drop_last=False (val_loss printed on both ranks, exit 0)."),
 ("run07", "distributed_sampler_passed_as_batch_sampler", "dataloader", "usercode-data",
  "usercode.dataloader_worker_exception", ["torch.usage", "code.exception"],
  "DistributedSampler yields single indices, but it was passed as batch_sampler=, which must yield lists of indices, so the worker's fetch iterates an int: pass it as sampler=sampler together with batch_size=32 (or wrap it in a BatchSampler).",
  ["sampler=sampler,", "sampler=sampler)", "BatchSampler", "yields single ind"],
  "planted: DataLoader(ds, batch_sampler=DistributedSampler(ds), num_workers=2); fix verified by re-running with DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2) (2 epochs, exit 0)."),
 ("run08", "contrastive_loss_on_non_differentiable_all_gather", "torch.distributed", "usercode-collective",
  "usercode.no_grad", ["torch.distributed_usage", "torch.usage"],
  "torch.distributed.all_gather writes into fresh tensors with no autograd history, so the contrastive loss built only from the gathered embeddings has no grad_fn: use an autograd-aware gather (torch.distributed.nn.functional.all_gather or the functional collectives), or put the local embeddings (with grad) back into their slot of the gathered list.",
  ["torch.distributed.nn", "differentiable", "autograd-aware", "functional_collectives", "functional collectives"],
  "planted: za_all = cat(dist.all_gather(...)) of za/zb, loss = cross_entropy(za_all @ zb_all.T); fix verified by re-running with torch.distributed.nn.functional.all_gather (loss 0.06 -> 0.016 in 5 steps, exit 0; torch 2.13 warns that this function is deprecated)."),
 ("run09", "resume_map_location_cuda_on_cpu_nodes", "checkpoint", "usercode-checkpoint",
  "torch.checkpoint_load", ["cuda.not_available", "code.exception"],
  "The resume code loads the checkpoint with map_location=f'cuda:{local_rank}', but these CPU-only (gloo) nodes have no CUDA: load with map_location='cpu' (or pick the device from torch.cuda.is_available()).",
  ["map_location='cpu'", "map_location=\"cpu\"", "map_location=torch.device(\"cpu\")"],
  "planted: checkpoints/last.pt written on CPU, train.py resumes with torch.load(..., map_location=f'cuda:{local_rank}') on a machine without GPU; fix verified by re-running with map_location='cpu' (resumed at epoch 4 on both ranks, exit 0)."),
 ("run10", "truncated_jsonl_record_with_max_restarts", "data", "usercode-data",
  "code.exception", ["config.json_syntax"],
  "Line 738 of data/train.jsonl (record id 737) is truncated, so json.loads raises on rank 1 when it reaches that sample; --max-restarts only re-runs into the same bad record (the later Gloo connectFullMesh errors are from the restarted attempts): repair or regenerate the truncated line (or skip malformed records) before restarting.",
  ["line 738", "truncated", "malformed", "corrupt"],
  "planted: line 738 of data/train.jsonl cut to 40 characters; torchrun --max-restarts 2 gives 3 attempts; fix verified by re-running with that line restored (whole epoch, exit 0). The restart attempts' Gloo connectFullMesh 'Connection refused' errors are a side effect (they did not appear once the data was repaired)."),
 ("run13", "broadcast_object_class_importable_only_on_rank0", "python-env", "python-env",
  "code.python_env", ["python.pickle", "code.exception"],
  "Only rank 0 puts tools/ on sys.path and imports expspec, then broadcasts an ExperimentSpec object; unpickling it on rank 1 needs to import expspec, which is not on rank 1's sys.path: add tools to sys.path (or make it an installed package) on every rank before broadcast_object_list, or broadcast a plain dict (dataclasses.asdict) and rebuild it.",
  ["every rank", "all ranks", "asdict", "plain dict", "each rank"],
  "planted: sys.path.insert(0, 'tools') and `import expspec` only under `if rank == 0:`; fix verified by re-running with sys.path.insert(0, 'tools') before the branch on all ranks (2 epochs, exit 0)."),
 ("run11", "healthy_resume_from_checkpoint_second_launch", "healthy", "healthy", "healthy", [], "", [],
  "healthy: two consecutive torchrun launches (--max-restarts 1), the second resumes from ckpt/last.pt at epoch 3; val_acc rises 0.56 -> 0.92; both exit 0."),
 ("run12", "healthy_contrastive_functional_all_gather_deprecation", "healthy", "healthy", "healthy", [], "", [],
  "healthy: contrastive training with torch.distributed.nn.functional.all_gather; the FutureWarning (deprecated in torch 2.13) is harmless; loss falls and exit 0."),
 ("run14", "healthy_no_sync_grad_accumulation", "healthy", "healthy", "healthy", [], "", [],
  "healthy: DDP gradient accumulation with model.no_sync() for 3 of 4 micro-steps; loss falls, params identical on both ranks, exit 0; the OMP_NUM_THREADS banner is torchrun's default notice."),
]
rows = []
for run, name, cat, group, fam, alts, fix, kws, note in C:
    text = open(os.path.join(D, "rec", run + ".txt"), encoding="utf-8").read().rstrip("\n")
    rows.append(dict(id="p46-" + name, url="planted:p46-" + name, source_repo=SRC, category=cat, text=text,
                     family=fam, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=fam == "healthy",
                     group=group, label_note=note + " Launched with " + ENV + "."))
with open(os.path.join(D, "explain_heldout_p46.jsonl"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(os.path.join(D, "map.txt"), "w") as f:
    for c in C:
        f.write(c[0] + " p46-" + c[1] + "\n")
print(len(rows), "rows")
