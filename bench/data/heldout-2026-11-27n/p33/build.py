# builds explain_heldout_p33.jsonl from the verbatim logs in out/ (+ "$ cat FILE" of the user's files where noted)
import json, os
W = "/tmp/heldout-p33/work"
def log(j): return open(f"/tmp/heldout-p33/out/job-{j}.log", errors="replace").read().rstrip("\n")
def cat(j, rel, shown=None):
    return f"$ cat {shown or rel}\n" + open(f"{W}/job-{j}/{rel}").read().rstrip("\n")
SRC = "planted-local-2026-11-27p33"
C = []
def add(name, job, category, group, text, family, alts, fix, kws, note, healthy=False):
    C.append(dict(id=f"p33-{name}", url=f"planted:p33-{name}", source_repo=SRC, category=category, text=text,
                  family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                  group=group, label_note=note + f" [job-{job}]"))

# ---------------- library (user code) ----------------
add("lightning_test_best_without_checkpointing", "0201", "lightning", "library", log("0201"),
    "lightning.checkpoint", ["lightning.callbacks"],
    "trainer.test(ckpt_path=\"best\") needs a ModelCheckpoint callback that tracked a best model, but the Trainer was built with enable_checkpointing=False; either enable checkpointing (enable_checkpointing=True with ModelCheckpoint(monitor=\"val_loss\")) or call trainer.test(model, ...) with ckpt_path=None to test the weights in memory.",
    ["enable_checkpointing=True", "ckpt_path=None", "monitor="],
    "Lightning Trainer.test docs: ckpt_path 'best' uses the best model checkpoint from the previous trainer.fit call (https://lightning.ai/docs/pytorch/stable/common/trainer.html#test); source raises in checkpoint_connector._parse_ckpt_path when no ModelCheckpoint is configured. Seen: fit ran 3 epochs, test raised ValueError.")
add("hf_trainer_tokenizer_kwarg_v5", "0204", "transformers", "library", log("0204"),
    "transformers.trainer", ["code.lib_api_version", "transformers.usage"],
    "transformers 5 removed Trainer's tokenizer= argument (deprecated since 4.46); pass the tokenizer as processing_class=tok instead (or pin transformers<5 for old code).",
    ["processing_class", "transformers<5"],
    "Trainer docs list processing_class (https://huggingface.co/docs/transformers/main_classes/trainer#transformers.Trainer); tokenizer was deprecated in 4.46 in favour of processing_class and is gone in transformers 5.24.0 (seen: TypeError unexpected keyword argument).")
add("hf_compute_metrics_returns_array", "0205", "transformers", "library", log("0205"),
    "transformers.trainer", ["transformers.usage", "python.pickle"],
    "compute_metrics returned a numpy array (recall_per_class) as a metric value; the Trainer writes metrics into trainer_state.json / logs and needs plain scalars: return Python floats, e.g. one key per class with float(value) (or .tolist() if a list is really wanted).",
    ["float(", "scalar", "one key per class", "tolist"],
    "Trainer compute_metrics must return a dictionary string to metric values (https://huggingface.co/docs/transformers/main_classes/trainer#transformers.Trainer.compute_metrics); TrainerState.save_to_json json.dumps the log history (trainer_callback.py). Seen: first epoch's eval ran, then TypeError ndarray not JSON serializable at save.")
add("peft_load_adapter_from_merged_dir", "0206", "peft", "library", cat("0206", "infer.py") + "\n$ python infer.py\n" + log("0206"),
    "peft.usage", ["peft.library_error"],
    "The directory holds a full model saved after merge_and_unload(), not a LoRA adapter, so there is no adapter_config.json; load it directly with AutoModelForSequenceClassification.from_pretrained(\"ckpt/lora-sst\") (no PeftModel), or save the PeftModel (the adapter) before merging and load that directory with PeftModel.from_pretrained.",
    ["AutoModelForSequenceClassification.from_pretrained(\"ckpt", "before merging", "directly"],
    "PEFT docs: merge_and_unload returns the base model with LoRA merged in (https://huggingface.co/docs/peft/main/en/developer_guides/lora#merge-lora-weights-into-the-base-model); PeftModel.from_pretrained needs an adapter directory with adapter_config.json (peft/config.py _get_peft_type). Seen: ValueError Can't find adapter_config.json.")
add("lightning_monitored_metric_logged_on_rank0_only", "0213", "lightning", "library", cat("0213", "train.py") + "\n$ python train.py\n" + log("0213"),
    "lightning.log", ["lightning.checkpoint", "lightning.callbacks"],
    "val_loss is logged only when trainer.is_global_zero, so on rank 1 ModelCheckpoint(monitor='val_loss') finds no such metric and raises, and rank 0 then dies in the collective; log the monitored metric on every process: remove the is_global_zero guard and call self.log(\"val_loss\", loss, sync_dist=True) on all processes.",
    ["every process", "all processes", "remove&is_global_zero", "drop&is_global_zero"],
    "Lightning logging docs: in distributed runs self.log must be called on all processes; sync_dist=True reduces across devices; rank_zero_only metrics cannot be monitored by callbacks (https://lightning.ai/docs/pytorch/stable/extensions/logging.html#logging-from-a-lightningmodule, rank_zero_only note). Seen: rank1 MisconfigurationException could not find monitored key; rank0 gloo connection closed.")
add("hydra_json_dump_dictconfig", "0216", "hydra", "library", "$ python train.py\n" + log("0216"),
    "hydra.config", ["python.pickle", "config.json_syntax"],
    "cfg is an omegaconf DictConfig, which json cannot encode; convert it first with OmegaConf.to_container(cfg, resolve=True) (or save it as YAML with OmegaConf.save(cfg, path)).",
    ["to_container", "OmegaConf.save"],
    "OmegaConf docs: OmegaConf.to_container converts DictConfig to a primitive dict; OmegaConf.save writes YAML (https://omegaconf.readthedocs.io/en/2.3_branch/usage.html#omegaconf-to-container). Seen: TypeError Object of type DictConfig is not JSON serializable.")

# healthy (library)
add("healthy_hf_regression_head_new_weights", "0203", "transformers", "library", "$ python train.py\n" + log("0203"),
    "healthy", [], "Nothing to fix: the run trained and finished; the load report only says the new classifier head was initialised.",
    [], "Healthy: num_labels=1 regression fine-tune on CPU from a base encoder, 4 steps, train_loss printed, rc 0.", healthy=True)
add("healthy_gloo_reduce_scatter_deprecation", "0210", "torch.distributed", "library", "$ torchrun --nproc-per-node 2 shard_grads.py\n" + log("0210"),
    "healthy", [], "Nothing to fix: both ranks got their reduced chunk; the FutureWarning only announces a renamed API.",
    [], "Healthy: reduce_scatter_tensor on gloo with 2 ranks, rc 0.", healthy=True)
add("healthy_lightning_ddp_cpu_two_procs", "0220", "lightning", "library", "$ python train.py\n" + log("0220"),
    "healthy", [], "Nothing to fix: 3 epochs on 2 CPU processes finished and a checkpoint was written; the srun hint and deprecation lines are noise.",
    [], "Healthy: Lightning ddp on 2 CPU processes (gloo), rc 0.", healthy=True)

# ---------------- infrastructure ----------------
add("ssh_key_passphrase_noninteractive", "0102", "ssh", "infra", log("0102"),
    "ssh.publickey", ["ssh.config", "ssh.pdsh"],
    "The only identity (~/.ssh/id_pass) is passphrase-protected and no agent runs, so non-interactive ssh (pdsh, BatchMode) cannot use it; start ssh-agent and add the key in the launching shell (eval $(ssh-agent); ssh-add ~/.ssh/id_pass), or use a separate key without a passphrase for intra-cluster logins.",
    ["ssh-agent", "without a passphrase", "empty passphrase"],
    "ssh-agent(1)/ssh-add(1): agent holds decrypted keys for later non-interactive use (https://man.openbsd.org/ssh-agent); BatchMode=yes disables passphrase querying (https://man.openbsd.org/ssh_config#BatchMode). Seen: Permission denied (publickey); ssh-keygen -y -P '' confirms passphrase.")
add("nsswitch_hosts_without_files", "0104", "dns", "infra", log("0104"),
    "rendezvous.hostname", ["errno.enoent", "launcher.nodes_apart"],
    "node1 is in /etc/hosts but /etc/nsswitch.conf says `hosts: dns`, so glibc never reads /etc/hosts and the rendezvous name does not resolve; put files back in the lookup order (`hosts: files dns`).",
    ["files dns", "hosts: files"],
    "nsswitch.conf(5): the hosts database lookup order; 'files' is /etc/hosts (https://man7.org/linux/man-pages/man5/nsswitch.conf.5.html). Planted inside `unshare -m` with bind-mounted hosts/nsswitch.conf copies. Seen: socket.gaierror Name or service not known; getent exit 2.")
add("sbatch_partition_env_overrides_directive", "0105", "slurm", "infra", log("0105"),
    "slurm.partition", ["slurm.eslurm_invalid_partition_name", "slurm.job_env"],
    "SBATCH_PARTITION=gpu-a100 is exported in the shell (left from another cluster's rc file) and sbatch input environment variables override #SBATCH directives, so the job asked for gpu-a100; unset SBATCH_PARTITION (remove it from ~/.bashrc) or pass --partition=debug on the command line.",
    ["unset SBATCH_PARTITION", "override", "--partition=debug on the command line"],
    "sbatch(1) INPUT ENVIRONMENT VARIABLES: 'they will override any options set in a batch script' (https://slurm.schedmd.com/sbatch.html#SECTION_INPUT-ENVIRONMENT-VARIABLES); SBATCH_PARTITION same as -p. Seen: invalid partition specified: gpu-a100.")
add("sbatch_hold_job_never_starts", "0106", "slurm", "infra", cat("0106", "prep.sbatch") + "\n" + log("0106"),
    "slurm.held", ["slurm.eslurm_job_held", "slurm.pending"],
    "The script has `#SBATCH --hold`, so the job is submitted held (reason JobHeldUser) and never starts while the node is idle; release it with `scontrol release <jobid>` and remove --hold from the script.",
    ["scontrol release", "remove --hold"],
    "sbatch(1) -H/--hold: job submitted in held state (priority zero), released with scontrol release (https://slurm.schedmd.com/sbatch.html#OPT_hold). Seen: PD (JobHeldUser) for 20 s with node idle.")
add("filestore_init_file_reused", "0108", "rendezvous", "infra", log("0108"),
    "rendezvous.connect", ["rendezvous.init_hang", "gloo.timeout"],
    "init_method=file:// reused a file left by an earlier run that crashed before destroy_process_group, so the ranks read the old run's addresses and connect to dead ports; delete the pg_init file before each launch or give every run a new, unique file name.",
    ["delete&pg_init", "remove&pg_init", "unique&file", "rm "],
    "torch.distributed docs, Shared file-system initialization: 'the file ... will be reused ... it is your responsibility to make sure that the file is cleaned up before the next init_process_group() call on the same file path/name' (https://pytorch.org/docs/stable/distributed.html#shared-file-system-initialization). Seen: Gloo connectFullMesh Connection refused to old ports. Wrapper exit 0 (the two ranks ran in background under `wait`); both ranks raised.")
add("sshd_permitrootlogin_no_one_node", "0109", "ssh", "infra", log("0109"),
    "ssh.permissions", ["ssh.publickey", "ssh.pdsh", "ssh.config"],
    "node3's sshd has `PermitRootLogin no`, so the root login is refused although the key is fine (the other nodes allow it); run the job as a normal user, or make node3's sshd_config match the others (PermitRootLogin prohibit-password) and reload sshd.",
    ["PermitRootLogin prohibit-password", "non-root", "normal user"],
    "sshd_config(5) PermitRootLogin (https://man.openbsd.org/sshd_config#PermitRootLogin); sshd logs 'ROOT LOGIN REFUSED'. The node log was read from my own node3 sshd -E file; the line '$ tail -n 3 /var/log/sshd.log' names it as a user would. Seen: node1/2 ok, node3 Permission denied (publickey).")
add("slurm_ntasks_per_node_unset_torchrun", "0112", "slurm", "infra", cat("0112", "launch.sbatch") + "\n" + log("0112"),
    "slurm.job_env", ["launcher.nproc_gpus", "launcher.script_args"],
    "SLURM_NTASKS_PER_NODE is only set when --ntasks-per-node is requested; the job asked for --ntasks=2 only, so torchrun got an empty --nproc-per-node; add `#SBATCH --ntasks-per-node=2` (or use $SLURM_NTASKS for one node, or a literal 2).",
    ["--ntasks-per-node=2", "#SBATCH --ntasks-per-node"],
    "sbatch(1) OUTPUT ENVIRONMENT VARIABLES: SLURM_NTASKS_PER_NODE 'Number of tasks requested per node. Only set if the --ntasks-per-node option is specified' (https://slurm.schedmd.com/sbatch.html#OPT_SLURM_NTASKS_PER_NODE). Seen: ValueError Unsupported nproc_per_node value: ''.")
add("slurm_master_port_per_task", "0113", "rendezvous", "infra", cat("0113", "job.sbatch") + "\n" + log("0113"),
    "rendezvous.store_timeout", ["rendezvous.connect", "slurm.job_env"],
    "MASTER_PORT is computed per task as 29660 + SLURM_PROCID, so rank 0 hosts the store on 29660 while rank 1 connects to 29661 where nothing listens; all ranks must use the same MASTER_ADDR and MASTER_PORT (export one fixed port in the batch script before srun).",
    ["same MASTER_PORT", "same port", "one fixed port"],
    "torch.distributed env:// init: MASTER_PORT 'a free port on the machine with rank 0', the same for all ranks (https://pytorch.org/docs/stable/distributed.html#environment-variable-initialization). Seen: rank 1 client socket timed out connecting to (vm, 29661).")

# healthy (infra)
add("healthy_pdsh_first_contact_known_hosts", "0110", "ssh", "infra", log("0110"),
    "healthy", [], "Nothing to fix: every node answered; the 'Permanently added' lines are the first-contact host-key notices.",
    [], "Healthy: pdsh -R ssh over 3 sshd nodes with a fresh known_hosts and accept-new, rc 0.", healthy=True)
add("healthy_slurm_two_task_gloo_smoke", "0111", "slurm", "infra", cat("0111", "train.sbatch") + "\n" + log("0111"),
    "healthy", [], "Nothing to fix: both Slurm tasks joined the gloo group and all-reduced.",
    [], "Healthy: sbatch --ntasks=2 with srun, env:// from SLURM_PROCID/NTASKS, rc 0.", healthy=True)

add("lightning_configure_optimizers_returns_tuple", "0230", "lightning", "library", "$ python train.py\n" + log("0230"),
    "lightning.optimizers", ["lightning.config"],
    "configure_optimizers returns a bare tuple (optimizer, scheduler), which Lightning does not accept; return two lists, return [optimizer], [scheduler], or a dict {\"optimizer\": optimizer, \"lr_scheduler\": scheduler}.",
    ["[optimizer], [scheduler]", "\"lr_scheduler\": scheduler", "two lists"],
    "Lightning LightningModule.configure_optimizers docs: allowed return forms (single optimizer, list, two lists, dict) (https://lightning.ai/docs/pytorch/stable/common/lightning_module.html#configure-optimizers). Seen: MisconfigurationException Unknown configuration for model optimizers.")
add("datasets_csv_semicolon_one_column", "0231", "datasets", "library", "$ head -3 reviews.csv\ntext;label\nthe movie was great;1\nawful plot;0\n$ python prep.py\n" + log("0231"),
    "datasets.load", ["datasets.usage"],
    "The CSV uses ';' as separator, so the csv builder (pandas.read_csv defaults, sep=',') read one column named 'text;label' and there is no 'text' column; pass the separator: load_dataset(\"csv\", data_files=..., sep=\";\") (delimiter=\";\" also works).",
    ["sep=\";\"", "delimiter=\";\""],
    "HF datasets CsvConfig passes pandas.read_csv options (sep/delimiter) (https://huggingface.co/docs/datasets/package_reference/loading_methods#datasets.packaged_modules.csv.CsvConfig). Seen: features ['text;label'], KeyError 'text' in map. The head -3 lines are the file's first 3 lines, typed here as the user would show them.")
add("lightningcli_config_key_not_init_arg", "0232", "lightning", "library", cat("0232", "config.yaml") + "\n$ python main.py fit --config config.yaml\n" + log("0232"),
    "lightning.config", ["config.yaml_syntax", "lightning.api_version"],
    "LightningCLI builds the model from Regressor.__init__'s arguments, and the config uses model.lr while the argument is named learning_rate; rename the key to model.learning_rate (learning_rate: 0.003) in config.yaml (or rename the __init__ parameter).",
    ["learning_rate: 0.003", "rename&model.lr", "__init__"],
    "Lightning CLI docs: the config keys are the __init__ arguments of the model/datamodule (https://lightning.ai/docs/pytorch/stable/cli/lightning_cli_intermediate.html); jsonargparse rejects unknown keys. Seen: error: Subcommand 'fit' does not accept option 'model.lr'.")
add("peft_adapter_head_size_base_default_labels", "0233", "peft", "library", "$ python serve.py\n" + log("0233"),
    "peft.usage", ["usercode.state_dict_mismatch", "transformers.usage"],
    "The adapter was trained on a 3-label model (its saved classifier in modules_to_save is 3x32), but serve.py builds the base with the default 2 labels; load the base with the same head (the same number of labels as in training), AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=3), before PeftModel.from_pretrained.",
    ["num_labels=3", "same number of labels"],
    "PEFT: for SEQ_CLS the classifier is added to modules_to_save and saved with the adapter (https://huggingface.co/docs/peft/main/en/package_reference/lora#peft.LoraConfig modules_to_save); the base must match the training architecture. transformers num_labels defaults to 2 (PretrainedConfig). Seen: size mismatch [3,32] vs [2,32].")
add("slurm_tmpdir_site_variable_unset", "0114", "slurm", "infra", cat("0114", "stage.sbatch") + "\n" + log("0114"),
    "slurm.job_env", ["errno.enoent"],
    "SLURM_TMPDIR is not a standard Slurm variable (some sites set it in their prolog); this cluster does not, so the shards were unpacked into /shards and the task looks for ./shards; create and export a node-local directory yourself, e.g. export SLURM_TMPDIR=/tmp/$SLURM_JOB_ID; mkdir -p $SLURM_TMPDIR (or use the path the site documents).",
    ["export SLURM_TMPDIR=", "$SLURM_JOB_ID", "site-specific", "prolog"],
    "sbatch(1) OUTPUT ENVIRONMENT VARIABLES do not list SLURM_TMPDIR (https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES); it is a site prolog variable, e.g. Alliance/Compute Canada docs (https://docs.alliancecan.ca/wiki/Using_node-local_storage). Seen: FileNotFoundError 'shards'. Side effect on my machine: the job (root) created /shards on the host root, removed right after.")
add("healthy_hf_trainer_torchrun_two_cpu", "0221", "transformers", "library", "$ torchrun --nproc-per-node 2 finetune.py\n" + log("0221"),
    "healthy", [], "Nothing to fix: both processes trained one epoch; the find_unused_parameters line is a performance note.",
    [], "Healthy: HF Trainer under torchrun 2 CPU processes (gloo), rc 0.", healthy=True)

bad = []
for c in C:
    t = c["text"].lower()
    for k in c["fix_keywords"]:
        parts = [p.lower() for p in k.split("&")]
        if all(p in t for p in parts):
            bad.append((c["id"], k))
    assert len(c["text"].splitlines()) <= 400, c["id"]
    if not c["healthy"]:
        assert 1 <= len(c["fix_keywords"]) <= 5, c["id"]
print("keyword-in-text:", bad)
with open("/tmp/heldout-p33/explain_heldout_p33.jsonl", "w") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases")
