#!/usr/bin/env python3
"""Build /tmp/heldout-p58/explain_heldout_p58.jsonl from the recorded texts in cases/ (eval-p58, session 31)."""
import json, os
C = "/tmp/heldout-p58/cases"
SR = "planted-cpu-2026-11-29-p58/"
cases = [
 dict(id="p58-dataloader_worker_cache_cgroup_oom_killed", file="c1_dataloader_worker_cache_cgroup_killed.txt", comp="torch-dataloader-worker-signal",
  category="torch.distributed", family="usercode.dataloader_killed", alts=[],
  fix="A DataLoader worker was killed by the kernel OOM killer: with --cache every worker process keeps its own copy of each decoded 4 MiB clip, so the 4 workers of the 2 ranks grew past the job's 900 MiB memory (cgroup) limit; drop the per-worker cache (decode on the fly), use fewer workers, or give the job more memory.",
  kw=["oom", "memory"],
  note="planted: cgroup-v1 memory.limit_in_bytes=900M around torchrun, --cache on; fix verified: same limit, same command without --cache ran both epochs (max usage 644 MiB)."),
 dict(id="p58-preload_dataset_rank_cgroup_oom_sigkill", file="c2_preload_rank_cgroup_sigkill.txt", comp="torchrun-oom-killed-rank",
  category="torch.distributed", family="elastic.sigkill", alts=[],
  fix="Rank 0 was SIGKILLed by the kernel OOM killer: --preload decodes the whole dataset into RAM in every rank (about 1 GiB per rank), which exceeds the job's 1.5 GiB memory (cgroup) limit; load samples lazily (drop --preload) or raise the job's memory limit.",
  kw=["oom", "memory"],
  note="planted: cgroup-v1 memory.limit_in_bytes=1500M around torchrun; fix verified: same limit, same command without --preload finished (training done)."),
 dict(id="p58-timeout_wrapper_sigterm_mid_training", file="c3_timeout_wrapper_sigterm.txt", comp="coreutils-timeout-torchrun",
  category="torch.distributed", family="elastic.sigterm", alts=["cascade.signal"],
  fix="The coreutils `timeout 30` wrapper sent SIGTERM to torchrun after 30 s while training was still running (timeout exits 124), so torchrun shut the workers down; give the wrapper a duration longer than the job needs (or remove it) and checkpoint so a cut-off run can resume.",
  kw=["longer", "increase", "more time"],
  note="planted as shown; fix verified: `timeout 300` with the same command finished all 20 epochs (rc 0)."),
 dict(id="p58-nohup_torchrun_still_killed_by_sighup", file="c4_nohup_torchrun_sighup.txt", comp="torchrun-sighup-handler",
  category="torch.distributed", family="elastic.sigterm", alts=["cascade.signal"],
  fix="nohup does not protect torchrun: torchrun installs its own SIGHUP handler (overriding nohup's SIG_IGN), so when the terminal hung up (ssh session closed) it got signal 1 and shut the workers down; start the job detached from the terminal with setsid, or inside tmux/screen, or as a batch job.",
  kw=["setsid", "tmux", "screen"],
  note="planted: torchrun run in the foreground of a pty (util-linux script) under nohup, then the pty's master side killed (kernel hangup -> SIGHUP); fix verified: `setsid torchrun ...` in the same pty survived the same hangup and printed 'training done'. A run without nohup failed the same way (not used)."),
 dict(id="p58-input_prompt_under_nohup_ebadf", file="c5_input_prompt_under_nohup.txt", comp="python-input",
  category="errno", family="errno.ebadf", alts=["code.exception"],
  fix="Rank 0 stops at an interactive input() question because the output dir already holds checkpoints, but nohup replaced the terminal stdin with /dev/null opened write-only, so reading it fails with EBADF and the job dies; run non-interactively: pass the script's --overwrite flag (or clear / change --out-dir) instead of answering on stdin.",
  kw=["--overwrite", "interactive", "stdin"],
  note="planted: nohup torchrun in the foreground of a pty (util-linux script), runs/exp1 holding 2 files; fix verified: same command with --overwrite saved step10..step40."),
 dict(id="p58-os_get_terminal_size_stdout_redirected_enotty", file="c6_get_terminal_size_redirected.txt", comp="python-os",
  category="errno", family="errno.enotty", alts=["code.exception"],
  fix="The progress bar calls os.get_terminal_size(), which raises ENOTTY (Inappropriate ioctl for device) when stdout is a file (> train.log, nohup, batch jobs); use shutil.get_terminal_size() with a fallback size, or draw the bar only when sys.stdout.isatty().",
  kw=["shutil", "isatty", "fallback"],
  note="planted as shown (stdout redirected to a file); fix verified: shutil.get_terminal_size((80, 24)) in place of os.get_terminal_size() ran 50/50 steps with the same redirection."),
 dict(id="p58-preemption_checkpoint_exceeds_torchrun_shutdown_grace", file="c7_preempt_ckpt_exceeds_shutdown_grace.txt", comp="torchrun-shutdown-grace",
  category="torch.distributed", family="elastic.sigterm", alts=["elastic.sigkill", "cascade.signal"],
  fix="On SIGTERM (preemption) torchrun forwards SIGTERM to the workers and SIGKILLs them after its default 30 s shutdown timeout, but the preemption checkpoint needs ~40 s, so it is cut off half-written (shards 6-7 of 8); raise torchrun's --shutdown-timeout (TORCH_ELASTIC_SHUTDOWN_TIMEOUT) above the checkpoint time, or make the emergency checkpoint smaller/faster.",
  kw=["shutdown-timeout", "shutdown_timeout", "grace"],
  note="planted: `kill -TERM <torchrun pid>` after step 40 (as a scheduler's preemption); the checkpoint writes 8 shards per rank with a 5 s sleep per shard standing in for a slow shared file system; fix verified: --shutdown-timeout 90 with the same kill wrote all 8 shards and the .done markers on both ranks."),
 dict(id="p58-dataloader_timeout_shorter_than_worker_startup", file="c8_dataloader_timeout_slow_worker_start.txt", comp="torch-dataloader-timeout",
  category="torch.distributed", family="usercode.dataloader_worker_exception", alts=["code.exception"],
  fix="DataLoader(timeout=10) makes the main process give up when a batch takes more than 10 s, and each worker's first item opens the shard index (~20 s); raise the DataLoader timeout above the worker start-up time or leave it at 0 (wait forever).",
  kw=["timeout", "longer"],
  note="planted (the 20 s index open is a sleep standing in for a slow shared file system); fix verified: --loader-timeout 120 ran both epochs."),
 dict(id="p58-healthy_setsid_nohup_survived_terminal_hangup", file="h1_setsid_nohup_survived_hangup.txt", comp="setsid-nohup-torchrun",
  category="healthy", healthy=True,
  note="recorded from a working run: setsid nohup torchrun in a pty, the pty hung up after step 8, the job finished (training done)."),
 dict(id="p58-healthy_elastic_info_logging_monitor_interval", file="h2_loglevel_info_monitor_interval.txt", comp="torchrun-elastic-agent-info",
  category="healthy", healthy=True,
  note="recorded from a working run: LOGLEVEL=INFO TORCH_CPP_LOG_LEVEL=INFO, --monitor-interval 1; exit 0; the uv_loop_close EBUSY INFO line is harmless."),
 dict(id="p58-healthy_pin_memory_no_accelerator_file_system_sharing", file="h3_pin_memory_no_accelerator_file_system.txt", comp="torch-dataloader-pin-memory",
  category="healthy", healthy=True,
  note="recorded from a working run: pin_memory=True on CPU nodes (warning only), file_system sharing strategy, persistent workers; 3 epochs, exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"]))
with open("/tmp/heldout-p58/explain_heldout_p58.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
