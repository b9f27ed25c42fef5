import json, os
D = "/tmp/heldout-p31"
W = D + "/work"
def cat(job, f, show=None):
    return "$ cat %s\n%s" % (show or f, open(f"{W}/job-{job}/{f}").read().rstrip("\n"))
def log(job):
    return open(f"{D}/out/job-{job}.log").read().rstrip("\n")
def raw(p):
    return open(p).read().rstrip("\n")
SRC = "planted-local-2026-11-27p31"
C = []
def add(name, job, cat_, group, parts, family, alts, fix, kws, note, healthy=False):
    C.append(dict(id="p31-" + name, url="planted:p31-" + name, source_repo=SRC, category=cat_,
                  text="\n".join(parts), family=family, family_alternatives=alts, fix=fix,
                  fix_keywords=kws, healthy=healthy, group=group, label_note=note, _job=job))

# ---------------- infra ----------------
add("slurm_directive_space_ignored", 4107, "slurm", "infra",
    [cat(4107, "job.sbatch"), raw(f"{D}/out/job-4107.sub"), cat(4107, "slurm-1.out")],
    "slurm.sbatch_directive_ignored", ["slurm.eslurm_too_many_requested_cpus", "slurm.job_env"],
    "The line '# SBATCH --ntasks=2' has a space after '#', so sbatch treats it as an ordinary comment and the job gets 1 task; write '#SBATCH --ntasks=2' (no space) so the allocation holds the 2 tasks that srun -n 2 asks for.",
    ["#SBATCH --ntasks=2", "space after", "comment"],
    "sbatch only parses lines that begin exactly with '#SBATCH' (https://slurm.schedmd.com/sbatch.html, 'The batch script may contain options preceded with \"#SBATCH\"'); '# SBATCH' is a plain comment. Seen: step refused with 1-task allocation.")
add("slurm_array_index_one_based", 4113, "slurm", "infra",
    [cat(4113, "job.sbatch"), "$ sbatch job.sbatch\nSubmitted batch job 2", cat(4113, "shard-2_1.out"), cat(4113, "shard-2_2.out"), cat(4113, "shard-2_3.out")],
    "usercode.index_out_of_range", ["code.exception", "slurm.job_env"],
    "SLURM_ARRAY_TASK_ID takes the values given by --array (1,2,3) but the shard list is 0-based, so task 3 indexes past the end and part-a is never processed; use --array=0-2 (or shards[i - 1]).",
    ["--array=0-2", "i - 1", "0-based"],
    "Array task ids are exactly the --array values (https://slurm.schedmd.com/job_array.html). Tasks 1,2 succeeded on the wrong shards, task 3 raised IndexError.")
add("slurm_conf_env_stale_controller", 4131, "slurm", "infra",
    [cat(4131, "job.sbatch"), log(4131)],
    "slurm.communication", ["slurm.config", "slurm.conf_mismatch"],
    "SLURM_CONF in the user's environment points to an old slurm.conf whose SlurmctldHost/SlurmctldPort no longer match the running controller; unset SLURM_CONF (or point it at the cluster's current slurm.conf) and check with scontrol ping.",
    ["SlurmctldPort", "scontrol ping", "unset SLURM_CONF"],
    "Client commands read the file named by SLURM_CONF (https://slurm.schedmd.com/sbatch.html#OPT_SLURM_CONF) and contact SlurmctldHost:SlurmctldPort (https://slurm.schedmd.com/slurm.conf.html). Planted: conf copy with port 17399, controller on 17311.")
add("rsync_remote_rc_prints", 4142, "ssh", "infra",
    [cat(4142, "stage.sh"), log(4142)],
    "ssh.config", ["ssh.negotiate", "ssh.connect"],
    "The remote account's ~/.bashrc echoes a banner for every shell, including the non-interactive one sshd starts for rsync, which corrupts rsync's protocol stream; make the rc file silent unless the shell is interactive (e.g. [[ $- == *i* ]] guard, or print to stderr).",
    [".bashrc", "non-interactive", "interactive"],
    "rsync(1) DIAGNOSTICS: 'protocol version mismatch -- is your shell clean?' is caused by startup scripts producing output on non-interactive logins (https://download.samba.org/pub/rsync/rsync.1#DIAGNOSTICS). Planted: node1's ~/.bashrc echoes a module banner.")
add("healthy_rsync_stage_dataset", 4150, "ssh", "infra",
    [cat(4150, "stage.sh"), log(4150)],
    "healthy", [], "No fix needed: the shards were copied to the node.", [], "Healthy counterpart of the rsync staging (clean remote rc).", healthy=True)
add("sbatch_dependency_captures_sentence", 4160, "slurm", "infra",
    [cat(4160, "submit.sh"), log(4160)],
    "launcher.script_args", ["slurm.eslurm_dependency", "slurm.error"],
    "sbatch prints 'Submitted batch job N', so $PREP holds the whole sentence and the unquoted expansion splits into extra arguments ('batch' is taken as the script); capture only the id with sbatch --parsable (or awk '{print $4}') before --dependency=afterok:$PREP.",
    ["--parsable", "awk '{print $4}'", "only the job id"],
    "sbatch --parsable: 'Outputs only the job id number and the cluster name if present' (https://slurm.schedmd.com/sbatch.html#OPT_parsable).")
add("inode_exhaustion_scratch_cache", 6111, "filesystem", "infra",
    [log(6111)],
    "errno.enospc", [],
    "The scratch filesystem ran out of inodes (one small file per sample) while bytes are still free, so df -h shows 1% used; check df -i, write the cache as a few large shard files instead of one file per sample, or use a filesystem/tmpfs with more inodes (nr_inodes).",
    ["df -i", "inode", "fewer"],
    "ENOSPC is also returned when no free inodes are left (open(2) ENOSPC; tmpfs nr_inodes in https://docs.kernel.org/filesystems/tmpfs.html). Planted: tmpfs size=2g,nr_inodes=1200 mounted on scratch inside unshare -m.")
add("ssh_loop_reads_hostfile_stdin", 6123, "ssh", "infra",
    [cat(6123, "hosts.txt"), cat(6123, "launch.sh"), log(6123)],
    "launcher.one_node_used", ["rendezvous.init_hang"],
    "ssh inside the 'while read ... done < hosts.txt' loop reads its stdin, swallowing the remaining lines of hosts.txt, so only node2 (rank 0) is launched and it waits for rank 1 forever; run ssh with -n (or redirect ssh's stdin from /dev/null) inside the loop.",
    ["ssh -n", "stdin"],
    "ssh(1) -n: 'Redirects stdin from /dev/null ... This must be used when ssh is run in the background' (https://man.openbsd.org/ssh#n); a bash while-read loop shares its stdin with commands in the body.")
add("healthy_ssh_loop_two_node_torchrun", 6130, "ssh", "infra",
    [cat(6130, "hosts.txt"), cat(6130, "launch.sh"), log(6130)],
    "healthy", [], "No fix needed: both nodes joined and the allreduce ran.", [], "Healthy: same launcher with ssh -n, gloo two-node torchrun over loopback sshd nodes.", healthy=True)
add("pdsh_hostfile_extra_column", 6136, "pdsh", "infra",
    [cat(6136, "hosts.txt"), log(6136)],
    "pdsh.error", ["ssh.connect", "ssh.pdsh"],
    "pdsh -w ^FILE takes every whitespace-separated word in the file as a host, so the rank column became hosts '0' and '1'; give pdsh a file with one hostname per line (e.g. cut -d' ' -f1 hosts.txt > nodes.txt; pdsh -w ^nodes.txt).",
    ["one hostname per line", "cut -d", "awk '{print $1}'"],
    "pdsh(1) -w ^file: 'read hosts from file' one per line (https://linux.die.net/man/1/pdsh); words 0/1 were resolved as 0.0.0.0/0.0.0.1.")
# ---------------- library ----------------
add("hydra_runtime_interp_reloaded_outside_app", 5201, "hydra", "library",
    [cat(5201, "conf/config.yaml"), log(5201)],
    "omegaconf.interpolation", ["hydra.config"],
    "${hydra:runtime.output_dir} is a Hydra resolver that only exists inside a running @hydra.main app; the saved .hydra/config.yaml keeps it unresolved, so OmegaConf.load in evaluate.py cannot resolve paths.ckpt. Resolve the config inside the app (OmegaConf.resolve(cfg) and save that copy, or OmegaConf.to_yaml(cfg, resolve=True)), or pass the checkpoint path to evaluate.py.",
    ["OmegaConf.resolve", "resolve=True", "resolved copy"],
    "Hydra's 'hydra' resolver reads HydraConfig, set only during a Hydra run (https://hydra.cc/docs/configure_hydra/intro/#accessing-the-hydra-config); .hydra/config.yaml is saved unresolved (https://hydra.cc/docs/tutorials/basic/running_your_app/working_directory/).")
add("structured_int_given_scientific_float", 5207, "hydra", "library",
    ["$ cat train.py\n" + raw(f"{W}/job-5207/train.py").split("cs = ConfigStore")[0].rstrip(), log(5207)],
    "hydra.override", ["omegaconf.structured"],
    "trainer.max_steps is declared int in the structured config; the override 5e4 is parsed as the float 50000.0, which OmegaConf refuses to convert. Pass an integer literal: trainer.max_steps=50000.",
    ["max_steps=50000", "integer literal"],
    "Hydra override grammar parses 5e4 as a float (https://hydra.cc/docs/advanced/override_grammar/basic/); OmegaConf IntegerNode rejects non-integral floats (https://omegaconf.readthedocs.io/en/2.3_branch/structured_config.html).")
add("datasets_single_csv_no_validation_split", 5213, "datasets", "library",
    [cat(5213, "prepare.py"), log(5213)],
    "datasets.load", ["datasets.usage"],
    "Loading one CSV file yields only a 'train' split; create the validation split yourself (load split='train' then .train_test_split(test_size=0.1)) or pass data_files={'train': ..., 'validation': ...} with a separate validation file.",
    ["train_test_split", "data_files={", "test_size"],
    "https://huggingface.co/docs/datasets/loading#local-and-remote-files ('By default, loading local files creates a DatasetDict object with a train split') and https://huggingface.co/docs/datasets/process#split.")
add("datasets_select_more_rows_than_exist", 5219, "datasets", "library",
    [cat(5219, "debug_run.py"), log(5219)],
    "datasets.usage", ["usercode.index_out_of_range"],
    "select(range(1000)) asks for rows 0-999 but the dataset has only 300; cap the subset at the dataset size, e.g. select(range(min(1000, len(ds['train'])))).",
    ["min(1000", "len(ds"],
    "Dataset.select checks every index against the dataset size (https://huggingface.co/docs/datasets/process#select-and-filter).")
add("healthy_datasets_map_numproc_hash_warning", 5226, "datasets", "library",
    [cat(5226, "build_features.py"), log(5226)],
    "healthy", [], "No fix needed: map finished on all 300 rows; the hashing warning only disables caching for this transform.", [],
    "Healthy: 'couldn't be hashed properly, a random hash was used instead' is a caching warning (https://huggingface.co/docs/datasets/about_cache).", healthy=True)
add("hf_handwritten_config_no_model_type", 5232, "transformers", "library",
    [log(5232), cat(5232, "export/sentiment-v3/config.json")],
    "transformers.usage", ["transformers.library_error", "code.library_error"],
    "The exported config.json was written by hand with a few fields and no model_type, so AutoConfig cannot tell which architecture to build; export with model.save_pretrained('export/sentiment-v3') (which writes a full config with \"model_type\": \"bert\"), or add that key.",
    ["save_pretrained", "\"model_type\": \"bert\""],
    "AutoConfig picks the class from config.json's model_type (https://huggingface.co/docs/transformers/model_doc/auto#transformers.AutoConfig.from_pretrained); save_pretrained writes it (https://huggingface.co/docs/transformers/main_classes/model#transformers.PreTrainedModel.save_pretrained).")
add("peft_lora_inference_mode_true_training", 5238, "peft", "library",
    [cat(5238, "train_lora.py"), log(5238)],
    "peft.usage", ["usercode.no_grad"],
    "LoraConfig(inference_mode=True) builds the adapter frozen (0 trainable params), so the loss has no grad_fn; set inference_mode=False (the default) when training the adapter.",
    ["inference_mode=False"],
    "PeftConfig.inference_mode: 'Whether to use the Peft model in inference mode' (https://huggingface.co/docs/peft/package_reference/config); in inference mode adapter weights get requires_grad=False.")
add("webdataset_brace_range_past_last_shard", 5251, "webdataset", "library",
    [cat(5251, "train.py"), "$ ls shards\n" + "\n".join(sorted(os.listdir(f"{W}/job-5251/shards"))), log(5251)],
    "errno.enoent", ["code.library_error"],
    "The brace pattern train-{000000..000007}.tar expands to 8 shard names but only 000000-000003 exist; make the range match the shards on disk (train-{000000..000003}.tar) or build the url list with glob.",
    ["{000000..000003}", "glob"],
    "WebDataset expands brace notation into a list of shard urls and opens each in turn (https://github.com/webdataset/webdataset#readme, 'shards/train-{000000..000999}.tar').")
add("torchmetrics_mse_pred_column_vs_1d_target", 5257, "torchmetrics", "library",
    [cat(5257, "train_reg.py"), log(5257)],
    "torchmetrics.usage", ["usercode.shape_mismatch"],
    "The model output is (64, 1) while the targets are (64,); squeeze the last dim before updating the metrics (mse.update(pred.detach().squeeze(-1), y)) as the loss already does.",
    ["squeeze the", "squeeze(-1) before", "view(-1)", "flatten"],
    "MeanSquaredError requires preds and target of the same shape (https://lightning.ai/docs/torchmetrics/stable/regression/mean_squared_error.html).")
add("lightning_hparams_without_save_hyperparameters", 5263, "lightning", "library",
    [cat(5263, "train.py"), log(5263)],
    "lightning.config", ["code.exception", "lightning.library_error"],
    "self.hparams is only filled by self.save_hyperparameters(); call it in __init__ (or keep lr/weight_decay as attributes and use those in configure_optimizers).",
    ["save_hyperparameters"],
    "https://lightning.ai/docs/pytorch/stable/common/lightning_module.html#save-hyperparameters ('Use save_hyperparameters() within your LightningModule's __init__ method ... accessible via self.hparams').")
add("lightning_gradient_clip_algorithm_max", 5270, "lightning", "library",
    [cat(5270, "train.py"), log(5270)],
    "lightning.config", ["lightning.library_error"],
    "gradient_clip_algorithm accepts only 'norm' or 'value'; for max-norm clipping use gradient_clip_algorithm='norm' (the default) with gradient_clip_val=1.0.",
    ["gradient_clip_algorithm='norm'", "gradient_clip_algorithm=\"norm\"", "clip_grad_norm"],
    "Trainer(gradient_clip_algorithm=...): 'norm' by default, or 'value' (https://lightning.ai/docs/pytorch/stable/common/trainer.html#gradient-clip-algorithm).")
add("healthy_lightning_ddp_cpu_val", 5276, "lightning", "library",
    [log(5276)], "healthy", [], "No fix needed: 3 epochs ran on 2 CPU ddp processes.", [],
    "Healthy with noisy warnings (num_workers, log_every_n_steps, LeafSpec deprecation).", healthy=True)
add("healthy_torchrun_torchmetrics_sync", 5282, "torchmetrics", "library",
    [log(5282)], "healthy", [], "No fix needed: metrics synced over gloo on both ranks.", [],
    "Healthy: torchrun --nproc-per-node 2, gloo, torchmetrics compute on all ranks; OMP_NUM_THREADS banner.", healthy=True)
add("hf_only_tokenizer_saved", 5294, "transformers", "library",
    [log(5294)],
    "transformers.usage", ["transformers.library_error", "errno.enoent"],
    "finetune.py saved only the tokenizer into outputs/sentiment-ft (no config.json, no weights), so from_pretrained finds no model there; also save the model (model.save_pretrained('outputs/sentiment-ft') or trainer.save_model()).",
    ["model.save_pretrained", "save_model"],
    "https://huggingface.co/docs/transformers/main_classes/model#transformers.PreTrainedModel.save_pretrained; tokenizer.save_pretrained writes only tokenizer files (https://huggingface.co/docs/transformers/main_classes/tokenizer).")

add("datasets_set_format_columns_drops_label", 5305, "datasets", "library",
    [cat(5305, "train.py"), log(5305)],
    "datasets.usage", ["code.exception"],
    "set_format('torch', columns=['input_ids', 'attention_mask']) restricts the rows the dataset returns to those two columns, so batch['label'] is missing; include 'label' in columns (or pass output_all_columns=True).",
    ["output_all_columns", "columns=[\"input_ids\", \"attention_mask\", \"label\"]", "'label' in columns", "include the label"],
    "Dataset.set_format(columns=...): 'Columns to format in the output. None means __getitem__ returns all columns'; output_all_columns keeps the others (https://huggingface.co/docs/datasets/package_reference/main_classes#datasets.Dataset.set_format).")

add("ssh_config_wildcard_block_first", 6142, "ssh", "infra",
    [cat(6142, "ssh_config"), log(6142)],
    "ssh.config", ["ssh.connect"],
    "ssh uses the first value it obtains for each option, and the 'Host *' block comes first in the file, so its Port 22 wins over node2's Port 22310; put the specific Host blocks first and the 'Host *' defaults at the end of the file.",
    ["end of the file", "first obtained value", "specific host blocks first", "host-specific"],
    "ssh_config(5): 'Since the first obtained value for each parameter is used, more host-specific declarations should be given near the beginning of the file, and general defaults at the end' (https://man.openbsd.org/ssh_config).")
add("master_addr_from_hostname_I_all_addresses", 6148, "rendezvous", "infra",
    [cat(6148, "run_node.sh"), log(6148)],
    "rendezvous.hostname", ["rendezvous.connect", "launcher.script_args"],
    "hostname -I prints every address of the node separated by spaces, so MASTER_ADDR became '192.0.2.2 10.88.0.1 10.173.33.1 fd00::2 ', which getaddrinfo cannot resolve and the ranks retry until the store times out; set MASTER_ADDR to one address (e.g. $(hostname -I | awk '{print $1}') or the address of the cluster interface) or to a resolvable hostname.",
    ["awk '{print $1}'", "cut -d' ' -f1", "one address", "single address"],
    "hostname(1) -I: 'Display all network addresses of the host' (https://manpages.debian.org/bookworm/hostname/hostname.1.en.html); MASTER_ADDR must be one address/hostname of the rank-0 node (https://pytorch.org/docs/stable/distributed.html#environment-variable-initialization). Run killed by my 60 s timeout while retrying.")

add("healthy_slurm_array_three_shards", 4178, "slurm", "infra",
    [cat(4178, "job.sbatch"), "$ sbatch job.sbatch\nSubmitted batch job 8", "$ squeue\n" + "               8_2     debug   shards     root PD       0:00      1 (Resources)", cat(4178, "shard-8_0.out"), cat(4178, "shard-8_1.out"), cat(4178, "shard-8_2.out")],
    "healthy", [], "No fix needed: all three array tasks processed their shard; task 2 waited briefly for a free CPU.", [],
    "Healthy: --array=0-2 on a 2-CPU node; the squeue line (Resources) was captured while task 2 waited.", healthy=True)

bad = []
for c in C:
    t = c["text"].lower()
    n = len(c["text"].splitlines())
    if n > 400: bad.append((c["id"], "lines", n))
    for k in c["fix_keywords"]:
        if all(p.lower() in t for p in k.split("&")): bad.append((c["id"], "kw in text", k))
    for w in ["p31", "heldout"]:
        pass
with open(f"{D}/explain_heldout_p31.jsonl", "w") as f:
    for c in C:
        c = {k: v for k, v in c.items() if k != "_job"}
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases;", sum(c["healthy"] for c in C), "healthy")
print("BAD:", bad)
