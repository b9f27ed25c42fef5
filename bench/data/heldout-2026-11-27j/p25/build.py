# builds explain_heldout_p25.jsonl from cases/*.log; labels written after seeing each log, before any scoring
import json, os, re, sys
B = "/tmp/heldout-p25"
SRC = "planted-local-2026-11-27p25"
C = []
def case(name, category, group, family, alts, fix, kws, note, healthy=False, cid=None):
    C.append(dict(name=name, id="p25-" + (cid or name), category=category, group=group, family=family,
                  family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy, label_note=note))
H = "Nothing to fix: "
# ---------------- infrastructure ----------------
case("ssh_proxyjump_forwarding_denied", "ssh", "infra", "ssh.config", ["ssh.connect"],
     "The jump host login1 runs sshd with AllowTcpForwarding no, so ProxyJump (ssh -W stdio forwarding through login1) is refused and gpu02 is never reached (rank 1 on gpu06 then waits for rank 0). Have the admin allow TCP forwarding on the jump host, or reach the node another way (launch from the login node itself, or a ProxyCommand that runs nc on the jump host).",
     ["AllowTcpForwarding", "ProxyCommand", "jump host&allow"],
     "Own sshd instances on 127.0.25.x; login1 has 'AllowTcpForwarding no', gpu02 is reached with ProxyJump login1. sshd_config(5) AllowTcpForwarding https://man.openbsd.org/sshd_config#AllowTcpForwarding ; ssh(1) -J/-W https://man.openbsd.org/ssh#J . Log cut by my 60 s timeout (rank 1 waits forever). exit=124")
case("healthy_ssh_proxyjump_two_ranks", "ssh", "infra", "healthy", [], H + "both ranks, one reached through a jump host (ProxyJump login2, forwarding allowed), all_reduce to 3.0; the pseudo-terminal note is harmless.", [],
     "Same launcher as ssh_proxyjump_forwarding_denied, jump host login2 with default AllowTcpForwarding. exit=0", healthy=True)
case("ssh_hostkey_only_ssh_rsa", "ssh", "infra", "ssh.negotiate", ["ssh.host_key"],
     "Node gpu03's sshd offers only the SHA-1 'ssh-rsa' host key signature, which OpenSSH clients since 8.8 refuse by default. Give the node a modern host key / algorithm (ed25519, or rsa-sha2-256/512 for its RSA key); as a temporary workaround allow it for that host on the client with HostKeyAlgorithms +ssh-rsa.",
     ["HostKeyAlgorithms", "+ssh-rsa", "ed25519", "rsa-sha2"],
     "Node sshd with an RSA host key and 'HostKeyAlgorithms ssh-rsa'. OpenSSH 8.8 release notes https://www.openssh.com/txt/release-8.8 (ssh-rsa disabled by default; workaround HostKeyAlgorithms=+ssh-rsa). exit=124 (rank 0 waits; cut by my timeout)")
case("ssh_mux_maxsessions_refused", "ssh", "infra", "healthy", [],
     H + "the node's sshd allows 2 sessions per connection (MaxSessions 2), so two of the four multiplexed ssh sessions were refused and ssh fell back to separate connections ('disabling multiplexing'); all four shards finished. Raising MaxSessions on the node would only silence the messages.",
     [], "ControlMaster auto + ControlPersist on the client, node sshd MaxSessions 2, 4 parallel ssh commands. sshd_config(5) MaxSessions https://man.openbsd.org/sshd_config#MaxSessions . exit=0, all shards done.",
     healthy=True, cid="healthy_ssh_mux_session_refused_fallback")
case("mpirun_script_not_executable", "mpi", "infra", "mpi.exec_not_found", ["mpi.launch"],
     "./allreduce_mpi.py has no execute permission (mode 644), so Open MPI cannot exec it; make it executable (chmod +x allreduce_mpi.py, its shebang points at the venv python) or launch it through the interpreter (mpirun ... python allreduce_mpi.py).",
     ["chmod", "execute permission", "executable bit"],
     "Script with a shebang but mode 0644. Open MPI 4.1 orterun help text 'could not access or execute an executable' https://github.com/open-mpi/ompi/blob/v4.1.x/orte/tools/orterun/help-orterun.txt . exit=132")
case("podman_cpuset_cpus_absent", "container", "infra", "container.oci_cgroup", ["container.oci_runtime"],
     "--cpuset-cpus=2-3 pins the container to CPUs 2 and 3, but this host only has CPUs 0-1; pin to CPUs that exist (e.g. --cpuset-cpus=0-1, see lscpu) or limit the amount with --cpus instead of pinning.",
     ["--cpuset-cpus=0-1", "--cpus=", "lscpu"],
     "2-CPU host, own minimal image. podman-run --cpuset-cpus https://docs.podman.io/en/latest/markdown/podman-run.1.html#cpuset-cpus-number . exit=125")
case("slurm_master_addr_compressed_nodelist", "slurm", "infra", "rendezvous.hostname", ["slurm.job_env", "launcher.script_args"],
     "MASTER_ADDR is set to $SLURM_JOB_NODELIST, which is a compressed hostlist expression (cn[1-2]), not a host name; set it to the first host: MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1).",
     ["scontrol show hostname", "hostlist", "first node"],
     "Own 2-node Slurm 22.05 (one slurmd per network namespace, cn1/cn2). sbatch(1) SLURM_JOB_NODELIST and scontrol 'show hostnames' https://slurm.schedmd.com/scontrol.html ; torch parse_rendezvous_endpoint rejects the name. exit=0 of the wrapper (job failed, both tasks exit 1)")
case("healthy_slurm_two_node_torchrun", "slurm", "infra", "healthy", [],
     H + "two nodes, one torchrun each, MASTER_ADDR from scontrol show hostnames; both ranks all_reduce to 3.0. The c10d 'hostname of the client socket cannot be retrieved' warnings are harmless (no reverse name for the peer address).",
     [], "Same cluster and script as slurm_master_addr_compressed_nodelist with the scontrol fix. exit=0", healthy=True)
case("slurm_sbatch_directives_after_command", "slurm", "infra", "slurm.job_env", ["slurm.node_config", "slurm.one_node_used"],
     "sbatch stops reading #SBATCH lines at the first command (module purge / source ...), so --nodes=2, --ntasks-per-node, --mem and --time were ignored and the job got 1 node; move all #SBATCH directives to the top of the script, before the first command.",
     ["top of the script", "before the first", "first non-comment", "first executable"],
     "sbatch(1): 'sbatch will stop processing further #SBATCH directives once the first non-comment non-whitespace line has been reached' https://slurm.schedmd.com/sbatch.html . exit=0 of the wrapper (srun fails in the job)")
case("slurm_step_mem_over_job_mem", "slurm", "infra", "slurm.node_resources", ["slurm.error", "slurm.oom"],
     "The step asks for 2 tasks x --mem-per-cpu=600M (1200M) but the job itself was given only --mem=400M (select CR_Core_Memory), so the step cannot be created; request step memory within the job's memory (drop --mem-per-cpu on srun or lower it to fit), or raise the job's --mem (the node has 1000 MB).",
     ["job's memory", "within the job", "1200M", "more memory than the job"],
     "SelectTypeParameters=CR_Core_Memory, RealMemory=1000. srun(1) --mem-per-cpu / step memory must fit the job allocation https://slurm.schedmd.com/srun.html#OPT_mem-per-cpu . exit=0 of the wrapper")
case("login_ulimit_cpu_time_killed", "limits", "infra", "limits.cpu_time", ["cascade.signal"],
     "The shell (like a login node) has a CPU-time soft limit of 30 s (ulimit -t), so the kernel sent SIGXCPU and killed training after one epoch; run the training as a batch/interactive job on compute nodes (sbatch / srun / salloc), or raise the soft limit (ulimit -S -t unlimited) where that is allowed.",
     ["ulimit -t", "RLIMIT_CPU", "sbatch", "compute node"],
     "Planted with `ulimit -S -t 30` before the command (not shown: a login node's limits.conf does the same). setrlimit(2) RLIMIT_CPU/SIGXCPU https://man7.org/linux/man-pages/man2/setrlimit.2.html . exit of python 152 (SIGXCPU)")
case("torchrun_privileged_port_nonroot", "rendezvous", "infra", "errno.eacces", ["rendezvous.address_in_use", "rendezvous.connect"],
     "Port 443 is a privileged port (below 1024) and the user is not root (no CAP_NET_BIND_SERVICE), so the c10d TCPStore cannot bind it; use an unprivileged port, e.g. --master-port=29500.",
     ["1024", "privileged", "29500", "CAP_NET_BIND_SERVICE"],
     "Run as an unprivileged user (unshare --user, no capabilities in the host network namespace). ip(7) / net.ipv4.ip_unprivileged_port_start https://man7.org/linux/man-pages/man7/ip.7.html . exit=1")
case("ssh_launcher_unquoted_value", "launcher", "infra", "launcher.script_args", ["code.exception"],
     "The home-made launcher pastes RUN_NAME unquoted into the remote command string; the remote shell splits 'bert base lr3e-4 warmup' into words, runs 'base' as a command, and the trainer never starts on either host. Quote the value for the remote shell (e.g. printf %q, or RUN_NAME='...' inside the command).",
     ["printf %q", "quote", "${RUN_NAME@Q}"],
     "ssh(1): the command string is run by the remote user's shell https://man.openbsd.org/ssh ; bash word splitting. Launcher exits 0 (uses wait). exit=0")
case("podman_publish_port_taken", "container", "infra", "rendezvous.address_in_use", ["container.oci_network"],
     "Another container on this host (p25a) already publishes host port 29535, so this one cannot bind it; publish a different host port (e.g. -p 29536:29500 and point the other ranks at it), stop the other container (podman ps), or use --network=host with a distinct MASTER_PORT per job.",
     ["podman ps", "different host port", "another port", "-p 29536"],
     "First container started with the same -p 29535:29500 and still running. podman-run --publish https://docs.podman.io/en/latest/markdown/podman-run.1.html#publish-p-ip-hostport-containerport-protocol . exit=126")
case("mpirun_hostfile_slot_typo", "mpi", "infra", "mpi.slots", ["mpi.usage", "mpi.launch"],
     "The hostfile writes 'slot=2'; Open MPI's hostfile keyword is 'slots=2' (plural), so the file fails to parse. Write '127.0.25.1 slots=2'.",
     ["slots=", "slots=2"],
     "Open MPI 4.1 mpirun(1) hostfile format 'slots=N' https://www.open-mpi.org/doc/v4.1/man1/mpirun.1.php#sect11 . exit=1")
case("pdsh_default_rcmd_rsh", "ssh", "infra", "ssh.pdsh", ["pdsh.error", "ssh.connect"],
     "pdsh's default remote command module here is rsh (pdsh -V: default: rsh), which connects to the rsh port where nothing listens; use ssh: pdsh -R ssh ... or export PDSH_RCMD_TYPE=ssh.",
     ["-R ssh", "PDSH_RCMD_TYPE", "rcmd"],
     "Debian pdsh 2.34 (rcmd modules ssh,rsh,exec; default rsh). pdsh(1) -R and PDSH_RCMD_TYPE https://linux.die.net/man/1/pdsh . exit=0 (pdsh)")
case("slurm_ulimit_stack_kib_segfault", "limits", "infra", "code.exception", ["slurm.job_env", "cascade.signal"],
     "`ulimit -s 64` sets the stack limit to 64 KiB (ulimit counts in 1024-byte units), far too small: srun (and python/torch) crash with a segmentation fault. Remove the line or give the value in KiB (ulimit -s 65536, or ulimit -s unlimited).",
     ["KiB", "kilobytes", "ulimit -s unlimited", "65536"],
     "bash ulimit -s is in 1024-byte increments https://www.gnu.org/software/bash/manual/html_node/Bash-Builtins.html#index-ulimit ; python with ulimit -s 64 also segfaults at 'import torch' (tried). exit=0 of the wrapper (step exit 139)")
# ---------------- user code in training libraries ----------------
case("lightning_ddp_spawn_unpicklable_attr", "usercode", "usercode", "lightning.strategy", ["code.exception", "lightning.library_error"],
     "strategy='ddp_spawn' pickles the LightningModule to send it to the spawned processes, and the module holds an open file handle (self.metrics_file) which cannot be pickled. Use strategy='ddp' (starts processes without pickling the module), or open the file lazily on each rank (e.g. in setup()/on_fit_start) instead of in __init__.",
     ['strategy="ddp"', "strategy='ddp'", "lazily", "on_fit_start"],
     "Lightning 2.6.6, CPU, devices=2. Lightning docs on ddp_spawn limitations (everything must be picklable) https://lightning.ai/docs/pytorch/stable/accelerators/gpu_intermediate.html#distributed-data-parallel-spawn . exit=1")
case("lightning_manual_opt_gradient_clip", "usercode", "usercode", "lightning.config", ["lightning.optimizers", "lightning.library_error"],
     "With manual optimization the Trainer cannot clip gradients; remove gradient_clip_val from the Trainer and clip in training_step before opt.step() with self.clip_gradients(opt, gradient_clip_val=1.0, gradient_clip_algorithm='norm').",
     ["clip_gradients", "clip_grad_norm_"],
     "Lightning manual optimization docs, gradient clipping https://lightning.ai/docs/pytorch/stable/model/manual_optimization.html . exit=1")
case("lightning_two_optimizers_automatic", "usercode", "usercode", "lightning.optimizers", ["lightning.library_error"],
     "configure_optimizers returns two optimizers while automatic optimization is on, which Lightning 2.x does not support; for different learning rates use one optimizer with two parameter groups (AdamW([{'params': encoder, 'lr': 1e-4}, {'params': head, 'lr': 1e-3}])), or switch to manual optimization.",
     ["param group", "parameter group", "manual_backward"],
     "Lightning 2.0 removed multiple optimizers in automatic optimization https://lightning.ai/docs/pytorch/stable/upgrade/from_1_9.html . exit=1")
case("lightning_log_in_on_train_end", "usercode", "usercode", "lightning.log", ["lightning.hooks", "lightning.library_error"],
     "self.log() is not allowed in on_train_end; log the value in a hook that supports it (on_train_epoch_end or training_step), or write it to the logger directly (self.logger.log_metrics).",
     ["on_train_epoch_end", "log_metrics"],
     "Lightning hooks where self.log is allowed https://lightning.ai/docs/pytorch/stable/extensions/logging.html#automatic-logging . exit=1")
case("lightning_datamodule_setup_stage_train", "usercode", "usercode", "lightning.data", ["code.exception", "lightning.library_error"],
     "The DataModule's setup() compares stage with 'train', but Lightning calls setup(stage='fit') (stages are fit, validate, test, predict), so train_set/val_set are never created; test for stage == 'fit' (or stage in ('fit', None)).",
     ['"fit"', "'fit'", "stage=fit"],
     "LightningDataModule.setup docs https://lightning.ai/docs/pytorch/stable/data/datamodule.html#setup . exit=1")
case("hf_report_to_wandb_not_installed", "usercode", "usercode", "transformers.trainer", ["code.python_env"],
     "The run config sets TrainingArguments(report_to='wandb') but wandb is not installed; install wandb or report to something available (report_to='none' or 'tensorboard').",
     ["report_to", 'report_to="none"', "report_to='none'"],
     "transformers 5.24 TrainingArguments.report_to https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments.report_to . exit=1")
case("hf_cosine_with_min_lr_no_kwargs", "usercode", "usercode", "transformers.trainer", ["transformers.usage"],
     "lr_scheduler_type='cosine_with_min_lr' needs its floor: pass lr_scheduler_kwargs={'min_lr': 1e-6} or {'min_lr_rate': 0.1} in TrainingArguments (or use plain 'cosine').",
     ["lr_scheduler_kwargs={", '"min_lr_rate"', "'min_lr_rate'", '"min_lr"', "'min_lr'"],
     "transformers get_cosine_with_min_lr_schedule_with_warmup https://huggingface.co/docs/transformers/main_classes/optimizer_schedules . exit=1")
case("hf_string_labels_not_encoded", "usercode", "usercode", "transformers.usage", ["datasets.usage", "usercode.dtype_mismatch"],
     "The label column holds strings ('positive'/'negative'), which the collator cannot turn into a tensor (the padding hint in the message is misleading); encode labels as integer ids before training, e.g. ds.class_encode_column('label') or a label2id map.",
     ["class_encode_column", "label2id", "integer id", "ClassLabel"],
     "datasets Dataset.class_encode_column https://huggingface.co/docs/datasets/process#cast ; transformers sequence classification guide (label2id) https://huggingface.co/docs/transformers/tasks/sequence_classification . exit=1")
case("accelerate_register_obj_no_state_dict", "usercode", "usercode", "accelerate.library_error", ["code.exception"],
     "accelerator.register_for_checkpointing only takes objects with state_dict() and load_state_dict(); give EMATracker those two methods (returning/restoring decay and value), or save it yourself.",
     ["def state_dict", "def load_state_dict", "implement&state_dict"],
     "accelerate docs, checkpointing custom objects https://huggingface.co/docs/accelerate/usage_guides/checkpoint . exit=1")
case("accelerate_tensorboard_not_installed", "usercode", "usercode", "accelerate.library_error", ["code.python_env"],
     "log_with='tensorboard' was requested but no TensorBoard package is installed, so accelerate silently logs nothing; install tensorboard (pip install tensorboard) and give the Accelerator a project_dir / logging_dir for the event files.",
     ["pip install tensorboard", "install tensorboard", "tensorboardX", "project_dir"],
     "accelerate tracking guide https://huggingface.co/docs/accelerate/usage_guides/tracking (tensorboard needs the package and a logging dir). Run exits 0 but writes no logs. exit=0")
case("datasets_classlabel_value_not_in_names", "usercode", "usercode", "datasets.usage", ["datasets.library_error"],
     "Row 217 of animals.csv has species 'Dog' (capitalised), which is not one of the ClassLabel names ['bird','cat','dog']; normalise the strings before cast_column (e.g. ds.map to lowercase/strip) or fix the CSV row.",
     ["lower()", "lowercase", "normalize", "normalise"],
     "datasets ClassLabel str2int raises on unknown names https://huggingface.co/docs/datasets/package_reference/main_classes#datasets.ClassLabel . exit=1")
case("timm_mixup_odd_last_batch", "usercode", "usercode", "timm.usage", ["code.exception"],
     "timm's Mixup (batch mode) needs an even batch size; 101 samples with batch_size=16 leave a last batch of 5. Use DataLoader(..., drop_last=True) as timm's own train script does (or make the dataset size fit).",
     ["drop_last", "drop the last"],
     "timm Mixup asserts an even batch https://github.com/huggingface/pytorch-image-models/blob/main/timm/data/mixup.py ; timm train.py uses drop_last for training. exit=1")
case("hydra_instantiate_optimizer_no_partial", "usercode", "usercode", "hydra.instantiate", ["code.library_error"],
     "instantiate(cfg.optimizer) tries to build AdamW without its params; mark the optimizer config `_partial_: true` so instantiate returns a partial that is then called with model.parameters(), or pass params at instantiate time (instantiate(cfg.optimizer, params=model.parameters())).",
     ["_partial_", "params=model.parameters()", "functools.partial"],
     "Hydra instantiate docs, partial instantiation https://hydra.cc/docs/advanced/instantiate_objects/overview/#partial-instantiation . exit=1")
case("hydra_chdir_relative_data_path", "usercode", "usercode", "hydra.config", ["errno.enoent", "code.library_error"],
     "The config sets hydra.job.chdir: true, so Hydra changes the working directory into the run's output folder and the relative data/train.csv no longer resolves; resolve it against the original directory (hydra.utils.to_absolute_path / get_original_cwd), use an absolute path, or drop chdir.",
     ["to_absolute_path", "get_original_cwd", "chdir", "hydra.runtime.cwd"],
     "Hydra working directory docs https://hydra.cc/docs/tutorials/basic/running_your_app/working_directory/ . The config is not in the text. exit=1")
case("omegaconf_struct_assign_new_key", "usercode", "usercode", "omegaconf.structured", ["hydra.config", "code.library_error"],
     "Hydra hands the task a config in struct mode, which refuses new keys; add run_id inside `with open_dict(cfg):` (or OmegaConf.set_struct(cfg, False)), or declare run_id in config.yaml (e.g. run_id: null).",
     ["open_dict", "set_struct"],
     "OmegaConf struct flag https://omegaconf.readthedocs.io/en/2.3_branch/usage.html#struct-flag ; Hydra open_dict. exit=1")
case("hydra_override_tuple_syntax", "usercode", "usercode", "hydra.override", ["code.library_error"],
     "Hydra's override grammar has no tuple syntax; give the list with square brackets: 'optimizer.betas=[0.9,0.95]'.",
     ["[0.9,0.95]", "[0.9, 0.95]", "square bracket"],
     "Hydra override grammar https://hydra.cc/docs/advanced/override_grammar/basic/ (lists use []). exit=1")
case("hydra_joblib_launcher_not_installed", "usercode", "usercode", "hydra.config", ["code.python_env"],
     "hydra/launcher=joblib needs the Joblib launcher plugin, which is not installed (only 'basic' is available); pip install hydra-joblib-launcher, or drop the override to use the basic launcher.",
     ["hydra-joblib-launcher", "hydra_plugins"],
     "Hydra Joblib launcher plugin https://hydra.cc/docs/plugins/joblib_launcher/ . exit=1")
case("webdataset_batched_and_loader_batch", "usercode", "usercode", "code.library_error", ["usercode.shape_mismatch"],
     "The WebDataset pipeline already batches (.batched(32)) and the DataLoader batches again (batch_size=32), giving [n, 32, ...] inputs; pass batch_size=None to the DataLoader (or use wds.WebLoader(..., batch_size=None)), or remove .batched().",
     ["batch_size=None", "WebLoader", "batched twice", "double batch"],
     "WebDataset docs: batch in the pipeline and use batch_size=None in the loader https://github.com/webdataset/webdataset#dataloader . exit=1")
case("webdataset_fewer_shards_than_workers", "usercode", "usercode", "code.library_error", ["usercode.dataloader_worker_exception"],
     "Shards are split among DataLoader workers and there are only 2 shards for num_workers=4, so two workers get none; use at most as many workers as shards (num_workers=2) or write the data into more shards.",
     ["num_workers=2", "more shards", "number of shards"],
     "WebDataset splits shards per worker (split_by_worker) and checks for empty workers, webdataset 1.0.2 compat.py check_empty. exit=1")
case("healthy_lightning_ddp_datamodule", "usercode", "usercode", "healthy", [],
     H + "Lightning DDP on 2 CPU processes with a DataModule trained 2 epochs; the LeafSpec deprecation, sync_dist hint and log_every_n_steps notes are informational.",
     [], "fit_dm.py with setup() testing stage == 'fit'. exit=0", healthy=True)
case("healthy_hydra_chdir_abs_path_version_base", "usercode", "usercode", "healthy", [],
     H + "the version_base warning only says Hydra assumes 1.1 defaults; data path resolved with to_absolute_path and training ran 2 epochs.",
     [], "hydra.main without version_base, chdir: true, to_absolute_path. exit=0", healthy=True)
case("healthy_webdataset_unbatched_loader", "usercode", "usercode", "healthy", [],
     H + "WebDataset pipeline batches itself, DataLoader(batch_size=None, num_workers=2) over 2 shards; 2 epochs of 8 steps.",
     [], "exit=0", healthy=True)
case("healthy_hf_trainer_epoch_eval", "usercode", "usercode", "healthy", [],
     H + "Trainer on CPU trained one epoch and evaluated (loss ~0.69 on random tiny model is expected); progress bars and the DeepSpeed accelerator notice are noise.",
     [], "hf_train.py with integer labels, eval_strategy=epoch, report_to none. exit=0", healthy=True)

def main():
    man = {}
    for l in open(f"{B}/manifest.jsonl"):
        d = json.loads(l); man[d["name"]] = d
    names = sorted(os.path.basename(f)[:-4] for f in os.listdir(f"{B}/cases") if f.endswith(".log"))
    lab = {c["name"] for c in C}
    assert set(names) == lab, (set(names) ^ lab)
    bad = 0; out = []
    for c in C:
        text = open(f"{B}/cases/{c['name']}.log", encoding="utf-8", errors="replace").read()
        assert len(text.splitlines()) <= 400, c["name"]
        low = text.lower()
        for k in c["fix_keywords"]:
            parts = [p.lower() for p in k.split("&")]
            if all(p in low for p in parts):
                print("KEYWORD IN TEXT", c["name"], k); bad += 1
        if not c["healthy"]:
            assert 2 <= len(c["fix_keywords"]) <= 5, c["name"]
        else:
            assert c["family"] == "healthy"
        out.append(dict(id=c["id"], url=f"planted:{c['id']}", source_repo=SRC, category=c["category"], text=text,
                        family=c["family"], family_alternatives=c["family_alternatives"], fix=c["fix"],
                        fix_keywords=c["fix_keywords"], healthy=c["healthy"], group=c["group"], label_note=c["label_note"]))
    labels = set(open(f"{B}/labels.txt").read().split())
    for o in out:
        for f in [o["family"]] + o["family_alternatives"]:
            if f != "healthy" and not any(x == f or x.startswith(f + ".") for x in labels):
                print("UNKNOWN FAMILY", o["id"], f); bad += 1
    if bad and "--force" not in sys.argv:
        sys.exit(f"{bad} problems")
    with open(f"{B}/explain_heldout_p25.jsonl", "w") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    print(len(out), "cases;", sum(o["healthy"] for o in out), "healthy")
main()
