#!/usr/bin/env python3
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-28-p49"
ENV = "torchrun --nproc-per-node 2 (gloo, c10d store on localhost; run12: mp.spawn with a file:// init) on torch 2.13.0+cpu, numpy 2.4.6, Python 3.11, Debian 12 VM, 2 cores, no GPU, OMP_NUM_THREADS=1"
C = [
 ("run01", "monitored_barrier_rank1_polls_flag_written_after_barrier", "torch.distributed", "usercode-collective",
  "usercode.monitored_barrier", ["torch.distributed_usage", "torch.collective_mismatch"],
  "Rank 1 polls for cache/vocab.ready before it reaches the monitored_barrier, but rank 0 writes that file only after the barrier, so the two ranks wait on each other (a deadlock) until rank 0's 30 s monitored_barrier timeout names rank 1: write the ready file before the barrier (or drop the file polling and let every rank simply wait in the barrier after rank 0 builds the cache).",
  ["before the barrier", "before the monitored_barrier", "deadlock", "drop the polling", "vocab.ready&before"],
  "planted: rank 0 builds the cache, enters dist.monitored_barrier(timeout=30 s) and writes cache/vocab.ready after it; rank 1 loops on os.path.exists(vocab.ready) before the barrier; fix verified by re-running with the flag written right after build_vocab_cache() (before the barrier): 20 steps, exit 0."),
 ("run02", "spawn_dataloader_local_collate_fn", "dataloader", "usercode-data",
  "python.pickle", ["python.multiprocessing", "usercode.dataloader_worker_exception"],
  "With multiprocessing_context='spawn' the DataLoader pickles its collate_fn to send it to each worker, and pad_collate is a nested function defined inside main(), which cannot be pickled: define the collate function at module level (top-level, passing settings via functools.partial if needed), or use the fork context / num_workers=0.",
  ["module level", "module-level", "top-level", "top level", "functools.partial"],
  "planted: pad_collate defined inside main() (closure over pad_value) and DataLoader(..., num_workers=2, collate_fn=pad_collate, multiprocessing_context='spawn'); fix verified by re-running with pad_collate moved to module level (2 epochs, exit 0)."),
 ("run03", "label_map_built_per_rank_shard", "data", "usercode-data",
  "torch.ddp_model_mismatch", ["usercode.shape_mismatch", "torch.distributed_usage"],
  "Each rank builds label2id from the labels present in its own CSV shard; part-00001 has no 'bird' rows, so rank 1's output layer has 4 classes against 5 on rank 0 and DDP's parameter-shape check fails: build the label vocabulary from the whole data set (a fixed label list, or the union of all ranks' label sets via all_gather_object) so every rank has the same number of classes.",
  ["union", "global label", "all_gather_object", "label list", "same number of classes"],
  "planted: data/part-00000.csv has 5 labels, part-00001.csv only 4, labels = sorted(set(shard labels)) per rank; fix verified by re-running with the union of the ranks' label sets (all_gather_object): 5 classes on both ranks, 5 epochs, exit 0 (one of three fix runs aborted with 'terminate called without an active exception' after training had finished, see README; the two re-runs were clean)."),
 ("run04", "zipfile_handle_shared_by_forked_workers", "dataloader", "usercode-data",
  "usercode.dataloader_worker_exception", ["python.multiprocessing", "code.library_error"],
  "The ZipFile is opened once in Dataset.__init__ and its open file handle is inherited by the forked DataLoader workers, which then share one file offset and interleave their seeks/reads, so a worker decompresses garbage (zlib 'invalid block type'): open the ZipFile lazily in each worker (in __getitem__ on first use, or in worker_init_fn), not in __init__.",
  ["worker_init_fn", "lazily", "per worker", "each worker", "file offset"],
  "planted: ZipSpectrograms opens zipfile.ZipFile(path) in __init__, num_workers=4 (fork), 256 deflated .npy members; the failure came in epoch 1 on rank 1; fix verified by re-running twice with the ZipFile opened lazily per worker (3 epochs, exit 0 both times)."),
 ("run05", "torch_load_mmap_on_legacy_format_checkpoint", "checkpoint", "usercode-checkpoint",
  "torch.checkpoint_load", ["torch.api_version", "code.exception"],
  "torch.load(..., mmap=True) only works with the zip-based checkpoint format, and pretrained/encoder_v1.pt was written in the legacy (non-zip) format: convert it once (load it without mmap and torch.save it again in the default format) and memory-map the new file, or load without mmap=True.",
  ["re-save", "resave", "convert", "without mmap", "mmap=False"],
  "planted: pretrained/encoder_v1.pt saved with _use_new_zipfile_serialization=False, finetune.py loads it with mmap=True, weights_only=True; fix verified by re-running on a copy re-saved with torch.save defaults (mmap load works, 30 steps, exit 0)."),
 ("run06", "csv_shard_with_header_row", "data", "usercode-data",
  "code.exception", ["code.library_error"],
  "shards/train_01.csv (rank 1's shard) starts with a header line (y,x1,...,x8) while train_00.csv has none, and np.loadtxt parses every line as numbers: skip the header for that file (skiprows=1) or regenerate the shards consistently without a header row.",
  ["header", "skiprows"],
  "planted: train_00.csv written without header, train_01.csv with 'y,x1..x8'; each rank np.loadtxt's its own shard; fix verified by re-running with skiprows=1 for files whose first field is not numeric (3 epochs, exit 0)."),
 ("run07", "dataset_grown_after_distributed_sampler_built", "dataloader", "usercode-data",
  "torch.distributed_usage", ["torch.usage", "code.exception"],
  "The epoch loop appends hard examples to the dataset (1024 -> 1201 samples), but the DistributedSampler computed num_samples/total_size (1024) when it was built, so its next padding goes wrong and it asserts (the persistent workers would also keep the old dataset copy): rebuild the DistributedSampler and the DataLoader after changing the dataset (or keep the dataset size fixed during training).",
  ["rebuild", "recreate", "re-create", "new DistributedSampler", "new sampler"],
  "planted: ds.add_hard_examples() extends the dataset in place after each epoch while the same DistributedSampler and DataLoader(persistent_workers=True) are reused; fix verified by re-running with a new DistributedSampler and DataLoader built after each change (4 epochs, dataset 1024 -> 1778, exit 0)."),
 ("run08", "post_localsgd_default_subgroup_without_cuda", "torch.distributed", "usercode-collective",
  "torch.distributed_usage", ["torch.usage", "code.exception"],
  "PostLocalSGDState(subgroup=None) makes post_localSGD_hook create subgroups with dist.new_subgroups() at the switch to local SGD, whose default group size is the CUDA device count and which refuses to run without CUDA: on CPU/gloo create the subgroup explicitly (dist.new_subgroups(group_size=N)) and pass it as subgroup= to PostLocalSGDState.",
  ["subgroup=", "new_subgroups(group_size", "explicit subgroup", "explicitly"],
  "planted: DDP + post_localSGD_hook with PostLocalSGDState(process_group=None, subgroup=None, start_localSGD_iter=20) + PostLocalSGDOptimizer on gloo; fails at step 21 on both ranks; fix verified by re-running with subgroup, _ = dist.new_subgroups(group_size=world_size) passed as subgroup= (80 steps, parameters equal after averaging, exit 0)."),
 ("run11", "inplace_normalize_on_readonly_mmap_segfault", "data", "usercode-data",
  "elastic.sigsegv", ["code.library_error", "torch.usage"],
  "The shard is opened with np.load(mmap_mode='r'), a read-only memory map, and torch.from_numpy shares that memory; the in-place standardization x.sub_(mean).div_(std) writes to read-only pages and both ranks die with SIGSEGV right after the 'not writable' warning: standardize out of place (x = (x - mean) / std) or load a writable copy (no mmap_mode, or np.array(arr)).",
  ["mmap_mode", "out-of-place", "out of place", "np.array(", "read-only"],
  "planted: np.load(f'features/part{rank}.npy', mmap_mode='r') -> torch.from_numpy -> all_reduce of the statistics -> x.sub_(mean).div_(std); fix verified by re-running with x = (x - mean) / std (3 epochs, exit 0; the warning remains and is harmless then)."),
 ("run09", "healthy_zero_redundancy_optimizer_consolidated_save", "healthy", "healthy", "healthy", [], "", [],
  "healthy: DDP + ZeroRedundancyOptimizer(AdamW) on gloo, uneven optimizer shards (65536 vs 9732 params is the expected greedy partition by parameter tensor), loss falls, consolidate_state_dict(to=0) and save on rank 0, exit 0."),
 ("run10", "healthy_iterable_dataset_sharded_by_rank_and_worker", "healthy", "healthy", "healthy", [], "", [],
  "healthy: IterableDataset sharded by (rank, worker) via get_worker_info, 2 workers per rank, 40 steps, loss falls 0.70 -> 0.35, the two ranks saw disjoint records (overlap 0), exit 0."),
 ("run12", "healthy_mp_spawn_file_init", "healthy", "healthy", "healthy", [], "", [],
  "healthy: two workers started by torch.multiprocessing.spawn with a file:// init_method under the __main__ guard, DDP on gloo, loss falls on both workers, 'all workers finished', exit 0."),
]
rows = []
for run, name, cat, group, fam, alts, fix, kws, note in C:
    text = open(os.path.join(D, "rec", run + ".txt"), encoding="utf-8").read().rstrip("\n")
    rows.append(dict(id="p49-" + name, url="planted:p49-" + name, source_repo=SRC, category=cat, text=text,
                     family=fam, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=fam == "healthy",
                     group=group, label_note=note + " Launched with " + ENV + "."))
with open(os.path.join(D, "explain_heldout_p49.jsonl"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(os.path.join(D, "map.txt"), "w") as f:
    for c in C:
        f.write(c[0] + " p49-" + c[1] + "\n")
print(len(rows), "rows")
