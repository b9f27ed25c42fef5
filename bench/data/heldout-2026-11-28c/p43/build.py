#!/usr/bin/env python3
"""Build explain_heldout_p43.jsonl from the recorded outputs in rec/ (run01..run13, see w/map.txt)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
REPO = "planted-cpu-2026-11-28-p43"
def T(run):
    t = open(os.path.join(D, "rec", run + ".txt"), encoding="utf-8").read().rstrip("\n")
    assert t.count("\n") + 1 <= 400, run
    return t
C = [
 dict(run="run01", name="reduce_dst_equals_world_size", category="torch.distributed", family="torch.distributed_usage",
      alts=["code.exception", "usercode.index_out_of_range"],
      fix="Ranks are numbered 0..world_size-1, so dst=world_size (2) names a rank that does not exist: reduce to the last rank with dst=world_size - 1 (or to rank 0).",
      kw=["world_size - 1", "world_size-1", "0-based", "zero-based", "last rank is"],
      group="usercode-collective",
      note="planted: dist.reduce(..., dst=dist.get_world_size()) under torchrun --nproc-per-node 2 (gloo, torch 2.13.0+cpu); fix verified by re-running with dst=world_size - 1 (accuracy printed on rank 1, exit 0)."),
 dict(run="run02", name="broadcast_object_list_length_differs", category="torch.distributed", family="torch.collective_mismatch",
      alts=["torch.distributed_usage", "gloo.enforce"],
      fix="broadcast_object_list needs an object list of the same length on every rank: rank 0 broadcasts [cfg, vocab] (2 objects) while the other ranks pass [None] (1 slot), so the size tensors differ; allocate [None, None] (or [None] * len) on the receiving ranks, or broadcast one dict holding both.",
      kw=["same length", "[None, None]", "[None] * 2", "number of objects"],
      group="usercode-collective",
      note="planted: rank 0 list of 2 objects vs [None] on rank 1 (gloo, torch 2.13.0+cpu): gloo enforce 'Received data size doesn't match expected size' on rank 1 (SIGABRT), connection reset on rank 0; fix verified by re-running with payload = [None, None] (both ranks printed the config, exit 0)."),
 dict(run="run03", name="default_collate_variable_length_sequences", category="dataloader", family="usercode.dataloader_worker_exception",
      alts=["usercode.shape_mismatch", "code.exception"],
      fix="The dataset returns token sequences of different lengths and the default collate_fn can only stack equal-sized tensors (one worker fails in torch.stack, the other in its shared-memory resize_): pass a collate_fn that pads the batch, e.g. torch.nn.utils.rnn.pad_sequence(batch, batch_first=True), or truncate/pad every sample to a fixed length.",
      kw=["pad_sequence", "pad", "fixed length"],
      group="usercode-data",
      note="planted: variable-length LongTensor samples, DataLoader(batch_size=8, num_workers=2) with DistributedSampler under torchrun 2 ranks; rank 0's worker reported 'Trying to resize storage that is not resizable', rank 1's 'stack expects each tensor to be equal size'; fix verified by re-running with collate_fn=pad_sequence(batch_first=True) (2 epochs, exit 0)."),
 dict(run="run04", name="pythonsafepath_hides_script_dir_module", category="python-env", family="code.python_env",
      alts=["code.exception"],
      fix="PYTHONSAFEPATH=1 (exported by the job template) stops Python from putting the script's directory on sys.path, so 'from model import Net' cannot find model.py next to train.py: remove the export (unset it), or add the project directory to PYTHONPATH / install the project as a package.",
      kw=["unset", "sys.path", "remove the export", "PYTHONPATH="],
      group="python-env",
      note="planted: export PYTHONSAFEPATH=1 in the job script (Python 3.11); fix verified by re-running the same script without that line (training finished, exit 0)."),
 dict(run="run05", name="load_state_dict_given_whole_checkpoint_dict", category="checkpoint", family="usercode.state_dict_mismatch",
      alts=["torch.checkpoint_load", "code.exception"],
      fix="ckpt/last.pt is a training checkpoint dict {'epoch', 'model', 'optimizer'}, not a bare state_dict, so load_state_dict sees keys 'epoch', 'model', 'optimizer': pass the model entry, net.load_state_dict(torch.load(path)['model']) (and restore the optimizer from ['optimizer']).",
      kw=["['model']", "[\"model\"]", "checkpoint['model']", "ckpt['model']"],
      group="usercode-checkpoint",
      note="planted: the script saves {'epoch','model','optimizer'} and on resume calls net.load_state_dict(torch.load(path)); fix verified by re-running with torch.load(path)['model'] (resumed, trained, exit 0)."),
 dict(run="run06", name="checkpoint_is_git_lfs_pointer", category="checkpoint", family="torch.checkpoint_load",
      alts=["python.pickle", "code.exception"],
      fix="checkpoints/pretrained_encoder.pt is a 132-byte Git LFS pointer file (text starting with 'version https://git-lfs...', opcode 118 = 'v'), not the weights, because the repository was cloned without LFS: run git lfs install && git lfs pull (or download the real file); setting weights_only=False would not help.",
      kw=["lfs", "pointer", "git lfs pull"],
      group="usercode-checkpoint",
      note="planted: the checkpoint path holds a Git LFS pointer (132 bytes); torch 2.13 weights_only load fails with 'Unsupported operand 118' and suggests weights_only=False (a red herring); fix verified by replacing the pointer with the real torch.save'd state_dict, as git lfs pull would (training ran, exit 0)."),
 dict(run="run07", name="np_load_object_array_shards", category="data", family="code.library_error",
      alts=["python.pickle", "code.exception"],
      fix="The shards were saved with np.save as object arrays (ragged token lists), which np.load refuses by default: load them with np.load(path, allow_pickle=True) if the files are trusted, or re-save them as padded int arrays / offsets+values so no pickling is needed.",
      kw=["allow_pickle=True", "padded", "re-save"],
      group="usercode-data",
      note="planted: ragged sequences saved as dtype=object .npy shards (numpy 2.4.6); fix verified by re-running with np.load(path, allow_pickle=True) (training ran, exit 0)."),
 dict(run="run08", name="numpy_not_installed_in_env", category="python-env", family="code.python_env",
      alts=["code.exception", "code.package_too_old"],
      fix="NumPy is not installed in the job's environment (torch does not depend on it; 'Failed to initialize NumPy: No module named numpy' at startup), so tensor.numpy() fails at the end: pip install numpy into that environment (or compute the counts with torch ops).",
      kw=["pip install numpy", "install numpy", "conda install numpy"],
      group="python-env",
      note="planted: fresh venv with only the torch 2.13.0+cpu wheel and its dependencies (no numpy); fix verified by pip install numpy in the same venv and re-running (metrics.json written, exit 0)."),
 dict(run="run09", name="pandas_built_for_numpy1_on_pythonpath", category="python-env", family="code.package_too_old",
      alts=["code.lib_api_version", "code.python_env"],
      fix="PYTHONPATH puts a shared site-packages with pandas 1.5.3 (compiled against NumPy 1.x) ahead of the venv, whose NumPy is 2.x, so pandas' C extensions fail the dtype-size ABI check: drop that PYTHONPATH entry and install a pandas built for NumPy 2 (pandas >= 2.2.2) in the venv, or pin numpy<2 in that environment.",
      kw=["numpy<2", "upgrade pandas", "pandas>=2", "pandas 2", "NumPy 2"],
      group="python-env",
      note="planted: pandas 1.5.3 wheel (+pytz, dateutil, six) installed with --target into a shared dir on PYTHONPATH, venv has numpy 2.4.6; fix verified by removing the PYTHONPATH line and installing pandas 3.1.1 in the venv (training ran, exit 0)."),
 dict(run="run10", name="empty_npy_shard_one_rank", category="data", family="code.exception",
      alts=["errno.eio", "usercode.dataloader_worker_exception"],
      fix="Rank 1's shard data/feat_00001.npy is a 0-byte file (an interrupted copy), so np.load finds no data: re-copy or regenerate that shard (check sizes/checksums after staging) and rerun.",
      kw=["re-copy", "regenerate", "0 bytes", "empty file", "truncated"],
      group="usercode-data",
      note="planted: feat_00001.npy truncated to 0 bytes (ls -l shows it); fix verified by restoring the shard and re-running (both ranks loaded (512, 32), exit 0)."),
 dict(run="run11", name="healthy_numpy_missing_warning_only", category="healthy", healthy=True,
      note="healthy: same venv without NumPy; torch prints the 'Failed to initialize NumPy' UserWarning at startup, but this script never converts to NumPy, so training finished and metrics.json was written (exit 0)."),
 dict(run="run12", name="healthy_resume_all_keys_matched", category="healthy", healthy=True,
      note="healthy: resume from ckpt/last.pt (load_state_dict returned <All keys matched successfully>), two more epochs with DistributedSampler.set_epoch, exit 0."),
 dict(run="run13", name="healthy_all_gather_object_eval_summary", category="healthy", healthy=True,
      note="healthy: 2-rank gloo evaluation on memory-mapped .npy data, per-rank dicts gathered with all_gather_object and summarised on rank 0, exit 0."),
]
rows = []
for c in C:
    h = c.get("healthy", False)
    rows.append(dict(id="p43-" + c["name"], url="planted:p43-" + c["name"], source_repo=REPO, category=c["category"],
                     text=T(c["run"]), family="healthy" if h else c["family"],
                     family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
                     fix_keywords=[] if h else c["kw"], healthy=h, group="healthy" if h else c["group"],
                     label_note=c["note"]))
with open(os.path.join(D, "explain_heldout_p43.jsonl"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "rows,", sum(r["healthy"] for r in rows), "healthy")
