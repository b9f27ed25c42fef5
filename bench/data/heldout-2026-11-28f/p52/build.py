#!/usr/bin/env python3
"""Turn the recorded logs of P52 into explain_heldout_p52.jsonl (text = the recorded output, verbatim)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
ENV = ("torch 2.13.0+cpu, datasets 5.2.0, lmdb 3.0.0, numpy 2.4.6, Python 3.11, Debian 12 VM, 2 cores, no GPU, "
       "torchrun --standalone --nproc-per-node 2 (gloo), OMP_NUM_THREADS=1")
P = "planted-cpu-2026-11-28-p52/"
cases = [
 dict(id="extension_build_lock_left_by_killed_job", log="ext_stale_lock.trim.log", repo="torch-cpp-extension",
      category="build", group="filesystem",
      family="build.extension", alts=["errno.file_lock"],
      fix="An earlier job was killed (SIGKILL) while ninja was compiling the JIT extension, leaving the FileBaton 'lock' file in the extension's build directory (~/.cache/torch_extensions/py311_cpu/fused_gelu/lock); every later load() sees it and waits forever. Delete that stale lock file (or the build directory, or point TORCH_EXTENSIONS_DIR at a fresh directory) and rerun.",
      kw=["torch_extensions", "lock file", "TORCH_EXTENSIONS_DIR"],
      note="planted: first torchrun of train_ext.py killed with SIGKILL (whole job) while c++ was compiling fused_gelu.cpp, which left the 0-byte lock file; the second run hung in FileBaton.wait() until SIGINT after 40 s. Fix verified by re-running after rm ~/.cache/torch_extensions/py311_cpu/fused_gelu/lock: build finished and 3 steps ran on both ranks, exit 0."),
 dict(id="memmap_token_file_rewritten_in_place", log="mm_truncated_bus_error.log", repo="torch-dataloader-memmap",
      category="dataloader", group="filesystem",
      family="usercode.dataloader_killed", alts=["elastic.sigbus", "errno.io"],
      fix="Not shared memory: prepare_tokens.py reopened data/tokens.bin with 'wb', truncating the file that the DataLoader workers had memory-mapped (np.memmap), so reading pages past the new end of file raised SIGBUS. Write the new token file under a temporary name and os.replace() it over the old one (running jobs keep the old inode), or write to a new path; never rewrite a file in place while a job has it mmapped.",
      kw=["truncat", "os.replace", "mmap"],
      note="planted: training (np.memmap of an 8 MB uint16 token file, DataLoader num_workers=2) started, 15 s later prepare_tokens.py rewrote the same file in place; both ranks' workers died with SIGBUS. Fix verified by re-running with prepare_tokens_atomic.py (write tokens.bin.tmp, then os.replace): training ran the whole epoch 0 (244 steps) after the replacement with no error (stopped by me during epoch 1)."),
 dict(id="checkpoint_rotation_rmtree_on_every_rank", log="rotate_race.log", repo="checkpoint-rotation",
      category="checkpoint", group="usercode-checkpoint",
      family="code.exception", alts=["errno.enoent"],
      fix="Every rank runs rotate_checkpoints() after the barrier, so both ranks shutil.rmtree() the same old checkpoint directory at the same time and one finds files already deleted by the other. Let only rank 0 delete old checkpoints (if rank == 0: rotate_checkpoints(); then dist.barrier()).",
      kw=["rank 0", "barrier", "both ranks"],
      note="planted: train_rotate.py saves sharded checkpoints every 20 steps and each rank rotates (keep 2); rank 1 failed in rmtree at the third save (step 60). Fix verified by re-running with rotation on rank 0 only followed by a barrier: all 10 saves, exit 0, two newest checkpoints kept."),
 dict(id="atomic_rename_onto_existing_checkpoint_dir", log="rename_onto_existing.log", repo="checkpoint-resume",
      category="checkpoint", group="usercode-checkpoint",
      family="errno.enotempty", alts=["code.exception"],
      fix="Resuming from step_200 into the same output directory makes the run save step_300 again, and os.rename(step_300.tmp, step_300) cannot replace the step_300 directory that already exists from the first run (rename onto a non-empty directory fails with ENOTEMPTY). Resume into a new output directory (or remove/move the old later checkpoints first, e.g. shutil.rmtree before the rename).",
      kw=["already exists", "rmtree", "output dir"],
      note="planted: first run saved step_100..step_400; resume from step_200 with a new lr crashed at the step-300 save. Fix verified by re-running the resume with --out ckpt_run_lr2e-3: saved step_300 and step_400, exit 0."),
 dict(id="datasets_save_to_disk_over_loaded_dataset", log="save_to_disk_itself.log", repo="datasets-save",
      category="data", group="usercode-data",
      family="datasets.usage", alts=["datasets.library_error"],
      fix="The dataset was opened with load_from_disk('data/reviews_ds') and is memory-mapped from that directory, so save_to_disk() refuses to write over it. Save the cleaned dataset to a different directory (e.g. data/reviews_ds_clean) and swap the directories afterwards.",
      kw=["different directory", "new directory", "another directory"],
      note="planted: clean_dataset.py does load_from_disk -> filter -> map -> save_to_disk(same path). Fix verified by re-running with save_to_disk(path + '_clean'): saved, exit 0."),
 dict(id="datasets_map_cache_on_readonly_mount", log="ds_map_readonly.log", repo="datasets-map-cache",
      category="data", group="filesystem",
      family="errno.erofs", alts=["datasets.usage", "errno.permission"],
      fix="Dataset.map() writes its cache file next to the dataset's arrow files, i.e. into /datasets/reviews, which is mounted read-only. Pass keep_in_memory=True to map (or cache_file_name= a path on writable storage), or copy the dataset to writable scratch first.",
      kw=["keep_in_memory", "cache_file_name", "writable"],
      note="planted: dataset saved with save_to_disk, bind-mounted read-only at /datasets inside a private mount namespace (unshare -m), load_from_disk + map on both ranks. Fix verified by re-running with map(..., keep_in_memory=True) on the same read-only mount: 2 epochs, exit 0."),
 dict(id="lmdb_readonly_open_without_lock_false", log="lmdb_no_lockfile_perm.log", repo="lmdb",
      category="dataloader", group="filesystem",
      family="errno.permission", alts=["errno.eacces", "code.library_error"],
      fix="lmdb.open(path, readonly=True) still creates/opens lock.mdb in the database directory; the shared /datasets/images.lmdb has no lock.mdb and is owned by another user (0755), so the open fails. Open read-only shared databases with lock=False (readonly=True, lock=False), or have the owner provide a lock.mdb the readers can use.",
      kw=["lock=False", "lock.mdb"],
      note="planted: LMDB written by root with map_size 1 GiB, lock.mdb removed (only data.mdb copied), bind-mounted at /datasets; training run as an unprivileged user (runuser). Fix verified by re-running as the same user with lmdb.open(..., readonly=True, lock=False): training ran, exit 0. (On a read-only mount instead, LMDB falls back by itself and the job ran: tried first.)"),
 dict(id="latest_symlink_target_relative_to_cwd", log="latest_symlink_relative.log", repo="checkpoint-symlink",
      category="checkpoint", group="usercode-checkpoint",
      family="errno.enoent", alts=["torch.checkpoint_load", "code.exception"],
      fix="os.symlink('checkpoints/step_300', 'checkpoints/latest') stores a relative target, and a relative symlink target is resolved from the link's own directory (checkpoints/checkpoints/step_300), so 'latest' is dangling. Create it with a target relative to the checkpoints directory (os.symlink('step_300', 'checkpoints/latest')) or with an absolute path.",
      kw=["dangling", "relative to", "absolute"],
      note="planted: save() does os.symlink(os.path.join(CKPT, 'step_N'), os.path.join(CKPT, 'latest')); resume loads checkpoints/latest/state.pt. Fix verified by re-running with os.symlink(os.path.basename(d), link): resumed at step 300 and ran to 600, exit 0."),
 dict(id="healthy_checkpoint_rotation_rank0", log="healthy_rotate_rank0.log", repo="checkpoint-rotation",
      category="healthy", group="healthy", healthy=True,
      note="Healthy: the fixed rotation run (rank 0 rotates after a barrier): 10 saves, exit 0, two newest checkpoints left."),
 dict(id="healthy_datasets_map_keep_in_memory_readonly", log="healthy_ds_keep_in_memory.log", repo="datasets-map-cache",
      category="healthy", group="healthy", healthy=True,
      note="Healthy: map(..., keep_in_memory=True) on a dataset under a read-only bind mount; 2 epochs, exit 0. The read-only mount line is expected (dataset area is read-only by design)."),
 dict(id="forkserver_socket_path_under_long_tmpdir", log="af_unix_tmpdir_long.log", repo="torch-dataloader-forkserver",
      category="dataloader", group="filesystem",
      family="errno.enametoolong", alts=["usercode.dataloader_worker_exception", "code.exception"],
      fix="The forkserver start method binds a Unix socket in a directory under TMPDIR; the job's TMPDIR is 122 characters long, so the socket path exceeds the 108-byte sun_path limit of AF_UNIX. Point TMPDIR at a short path (e.g. export TMPDIR=/tmp or a short per-job directory) before launching, or keep the default fork context.",
      kw=["shorter", "108", "sun_path"],
      note="planted: DataLoader(num_workers=2, multiprocessing_context='forkserver') with TMPDIR set to a 122-character per-job scratch path; both ranks fail when the first worker starts. Fix verified by re-running with TMPDIR=/tmp/heldout-p52/lt (short): 2 epochs, exit 0."),
 dict(id="healthy_latest_symlink_resume", log="healthy_latest_symlink_resume.log", repo="checkpoint-symlink",
      category="healthy", group="healthy", healthy=True,
      note="Healthy: the fixed symlink (latest -> step_300, relative to the checkpoints directory); resume at step 300 ran to 600, exit 0."),
]
with open(os.path.join(D, "explain_heldout_p52.jsonl"), "w", encoding="utf-8") as out:
    for c in cases:
        text = open(os.path.join(D, "logs", c["log"]), encoding="utf-8", errors="replace").read()
        h = c.get("healthy", False)
        row = {"id": "p52-" + c["id"], "url": "planted:" + P + c["id"], "source_repo": P + c["repo"],
               "category": c["category"], "text": text,
               "family": "healthy" if h else c["family"], "family_alternatives": [] if h else c["alts"],
               "fix": "" if h else c["fix"], "fix_keywords": [] if h else c["kw"], "healthy": h,
               "group": c["group"], "label_note": ("planted and fix verified by re-running. " if not h else "") + c["note"] + " Env: " + ENV + "."}
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(cases), "cases")
