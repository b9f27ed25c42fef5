import json
SRC = "planted-cpu-2026-11-27-p35"
M = {}
for l in open("manifest.jsonl"):
    d = json.loads(l); M[d["case"]] = d
VERS = "CPU torch 2.14.1 (PyPI wheel, run on CPU), lightning 2.6.6, transformers 5.24.0, accelerate 1.15.0, datasets 5.2.0, peft 0.21.2, torchmetrics 1.9.0, hydra-core 1.3.8, omegaconf 2.3.1, webdataset 1.0.2; OpenSSH 9.2 sshd instances on 127.0.35.x:2335; Slurm 22.05 (auth/none, one node); podman 4.3.1 + runc; Debian 12, 2 cores"
# case, category, group, family, alts, fix, keywords, citation, healthy, rename
C = [
 ("ssh_dotssh_foreign_owner_strictmodes", "ssh", "infra", "ssh.permissions", ["ssh.publickey"],
  "On the refusing node the login user's ~/.ssh directory is owned by another uid (restored with foreign numeric ids) and sshd's StrictModes rejects the key; chown the ~/.ssh directory and authorized_keys back to the login user and keep them 700/600 (the node's sshd log names the path).",
  ["chown", "StrictModes", "ownership"],
  "sshd_config(5) StrictModes: 'Specifies whether sshd should check file modes and ownership of the user's files and home directory before accepting login' (https://man.openbsd.org/sshd_config#StrictModes); sshd(8) FILES ~/.ssh/ (https://man.openbsd.org/sshd#FILES). Node 127.0.35.12's sshd log: 'Authentication refused: bad ownership or modes for directory'. Killed by timeout while node 0 waited."),
 ("ssh_allowusers_excludes_root", "ssh", "infra", "ssh.permissions", ["ssh.publickey"],
  "The node's sshd_config has 'AllowUsers svc-train', so any other account is refused even with a valid key; log in as an account listed in AllowUsers (or have the admin add the launching user to AllowUsers/AllowGroups).",
  ["AllowUsers", "AllowGroups"],
  "sshd_config(5) AllowUsers: 'login is allowed only for user names that match one of the patterns' (https://man.openbsd.org/sshd_config#AllowUsers). Node log: 'User root from 127.0.0.1 not allowed because not listed in AllowUsers'. Killed by timeout."),
 ("ssh_pubkey_algorithms_rsa_only", "ssh", "infra", "ssh.negotiate", ["ssh.publickey"],
  "The node's sshd only accepts rsa-sha2-512/rsa-sha2-256 user keys (PubkeyAcceptedAlgorithms), so the ed25519 key is never accepted; use an RSA key that is in authorized_keys (ssh -i id_rsa) or add ssh-ed25519 to PubkeyAcceptedAlgorithms on the node.",
  ["PubkeyAcceptedAlgorithms", "rsa-sha2", "RSA key"],
  "sshd_config(5) PubkeyAcceptedAlgorithms (https://man.openbsd.org/sshd_config#PubkeyAcceptedAlgorithms). Killed by timeout."),
 ("ssh_key_forced_command_health", "ssh", "infra", "ssh.config", ["launcher.one_node_used", "rendezvous.init_hang"],
  "The key used by the launcher is installed on the second node with a forced command (command=\"...\" in authorized_keys, a health-check key), so sshd runs that command instead of torchrun and node 1 never joins; use a separate key without the command= restriction for the launcher.",
  ["command=", "forced command", "separate key"],
  "sshd(8) AUTHORIZED_KEYS FILE FORMAT, command=\"command\": 'the command supplied by the user (if any) is ignored' (https://man.openbsd.org/sshd#command=_command_). Node 0's torchrun waited for node 1 until the timeout."),
 ("ssh_config_remotecommand_with_command", "ssh", "infra", "ssh.config", [],
  "The user's ssh_config sets RemoteCommand (with RequestTTY) for Host gpu-*, which ssh refuses to combine with a command on the command line; drop RemoteCommand from that block (keep it for an interactive-only alias) or call ssh with -o RemoteCommand=none in the launcher.",
  ["RemoteCommand", "ssh_config"],
  "ssh_config(5) RemoteCommand (https://man.openbsd.org/ssh_config#RemoteCommand); OpenSSH ssh.c refuses 'Cannot execute command-line and remote command.' Launcher exit 0 because it only waits."),
 ("ssh_config_host_glob_single_char", "ssh", "infra", "ssh.config", ["ssh.connect"],
  "In ssh_config the pattern 'Host gpu?' matches exactly one character after 'gpu', so gpu11 and gpu16 get none of Port 2335/User/IdentityFile and ssh tries port 22; use a wildcard pattern such as 'Host gpu*' (or list the hosts).",
  ["gpu*", "wildcard", "Host pattern"],
  "ssh_config(5) PATTERNS: '?' matches exactly one character, '*' zero or more (https://man.openbsd.org/ssh_config#PATTERNS)."),
 ("distributed_sampler_local_world_size_multinode", "torch.distributed", "infra", "torch.distributed_usage", ["torch.no_distributed_sampler"],
  "Two nodes x 1 process: the script builds DistributedSampler with num_replicas=LOCAL_WORLD_SIZE (per node) but rank=RANK (global), so rank 1 is out of range; pass the global world size (dist.get_world_size()) and global rank, or let DistributedSampler take both from the process group.",
  ["get_world_size", "global world size", "process group"],
  "torch.utils.data.DistributedSampler: num_replicas 'Number of processes participating in distributed training. By default, world_size is retrieved from the current distributed group' (https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler); torchrun env vars LOCAL_WORLD_SIZE vs WORLD_SIZE (https://pytorch.org/docs/stable/elastic/run.html#environment-variables). Two torchrun agents started over ssh on 127.0.35.11/.16."),
 ("podman_env_passthrough_not_exported", "container", "infra", "rendezvous.env_missing", ["container.oci_runtime"],
  "The launcher sets MASTER_ADDR/MASTER_PORT as plain shell variables and passes '-e MASTER_ADDR -e MASTER_PORT' to podman, which copies a named variable only from its own environment; export them before podman run (or pass -e MASTER_ADDR=$MASTER_ADDR).",
  ["export MASTER_ADDR", "MASTER_ADDR=$MASTER_ADDR", "exported"],
  "podman-run --env: 'If no value is set ... podman checks the host environment for a value' (https://docs.podman.io/en/latest/markdown/podman-run.1.html#env-e-env); bash: variables reach child processes only when exported (https://www.gnu.org/software/bash/manual/html_node/Bourne-Shell-Builtins.html#index-export). Launcher exit 0 because it only waits."),
 ("slurm_tmp_disk_request_no_tmpdisk", "slurm", "infra", "slurm.node_config", ["slurm.node_resources"],
  "The batch script asks for --tmp=50G of local scratch but the partition's nodes advertise TmpDisk=0 (sinfo -o %d); drop or lower --tmp to what the nodes advertise, or ask the admin to set TmpDisk/TmpFS for the nodes.",
  ["TmpDisk", "remove --tmp", "lower --tmp", "drop --tmp"],
  "sbatch(1) --tmp: 'Specify a minimum amount of temporary disk space per node' (https://slurm.schedmd.com/sbatch.html#OPT_tmp); slurm.conf(5) TmpDisk (https://slurm.schedmd.com/slurm.conf.html#OPT_TmpDisk). Own one-node Slurm 22.05, node with TmpDisk=0."),
 ("lightning_earlystop_monitor_key_mismatch", "lightning", "library", "lightning.callbacks", ["lightning.log"],
  "The module logs 'val/loss' but EarlyStopping monitors 'val_loss'; monitor the exact logged key, EarlyStopping(monitor=\"val/loss\").",
  ["monitor=\"val/loss\"", "monitor='val/loss'", "exact logged key"],
  "Lightning EarlyStopping docs: monitor is the quantity logged with self.log (https://lightning.ai/docs/pytorch/stable/common/early_stopping.html). Lightning ddp on 2 CPU processes."),
 ("torchmetrics_one_based_targets", "torchmetrics", "library", "torchmetrics.usage", ["usercode.index_out_of_range"],
  "The targets are 1-based ratings (1..3) while MulticlassAccuracy(num_classes=3) expects class indices 0..2, so the confusion bincount has the wrong size; convert targets to 0-based (target - 1) before update.",
  ["target - 1", "0-based", "zero-based", "subtract 1"],
  "torchmetrics MulticlassAccuracy: target is an int tensor of shape (N, ...) with values in [0, num_classes) (https://lightning.ai/docs/torchmetrics/stable/classification/accuracy.html#multiclassaccuracy). torchrun --nproc-per-node 2, gloo."),
 ("webdataset_shardwriter_pattern_no_index", "webdataset", "library", "code.library_error", [],
  "wds.ShardWriter formats the shard number into the pattern with %, so the pattern needs a printf field; use e.g. 'shards/train-%06d.tar'.",
  ["%06d", "printf-style", "shard number field"],
  "webdataset ShardWriter: pattern is 'Output file pattern' formatted with the shard index (https://github.com/webdataset/webdataset/blob/main/webdataset/writer.py, next_stream: self.pattern % self.shard); README example 'ShardWriter(\"out-%06d.tar\")'."),
 ("dataloader_prefetch_factor_zero_workers", "torch.dataloader", "library", "torch.usage", ["code.library_error"],
  "The YAML sets prefetch_factor: 4 together with num_workers: 0; prefetch_factor only applies to worker processes, so drop it (null) while debugging with 0 workers, or use num_workers > 0.",
  ["prefetch_factor: null", "drop prefetch_factor", "remove prefetch_factor"],
  "torch.utils.data.DataLoader prefetch_factor: 'Number of batches loaded in advance by each worker ... (default value depends on the set value for num_workers. If value of num_workers=0 default is None...)' (https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)."),
 ("hydra_primary_config_yml_extension", "hydra", "library", "hydra.config", [],
  "The primary config is conf/train.yml but Hydra only loads .yaml files; rename it to conf/train.yaml.",
  ["train.yaml", "rename"],
  "Hydra config files use the .yaml extension (https://hydra.cc/docs/tutorials/basic/your_first_app/config_file/); hydra core config loader looks up '<name>.yaml' (https://github.com/facebookresearch/hydra/blob/main/hydra/_internal/config_repository.py)."),
 ("datasets_interleave_probabilities_not_normalized", "datasets", "library", "datasets.usage", [],
  "The sampling probabilities passed to interleave_datasets are 0.6, 0.25 and 0.2 (sum 1.05; a hand-edited last weight); they must sum to 1, e.g. normalize the weights (w / sum) -> [0.60, 0.25, 0.15].",
  ["normalize", "divide by the sum", "0.15"],
  "datasets interleave_datasets(probabilities=...) samples with numpy Generator.choice, which requires probabilities that sum to 1 (https://huggingface.co/docs/datasets/process#interleave ; https://numpy.org/doc/stable/reference/random/generated/numpy.random.Generator.choice.html)."),
 ("hydra_dataclass_mutable_list_default", "hydra", "library", "omegaconf.structured", ["hydra.config"],
  "A structured-config dataclass gives a list field a plain list default; dataclasses reject mutable defaults: write layers: List[int] = field(default_factory=lambda: [256, 128, 64]).",
  ["field(default_factory=lambda", "lambda: ["],
  "Python dataclasses, mutable default values (https://docs.python.org/3/library/dataclasses.html#mutable-default-values); OmegaConf structured configs with lists (https://omegaconf.readthedocs.io/en/2.3_branch/structured_config.html#lists)."),
 ("hf_multilabel_problem_type_int_labels", "transformers", "library", "transformers.usage", ["usercode.shape_mismatch"],
  "The config sets problem_type='multi_label_classification' (BCEWithLogits, needs multi-hot float labels of shape [batch, num_labels]) while each document has one integer tag; use problem_type='single_label_classification' (or leave it unset) for one label per example, or pass multi-hot float labels.",
  ["single_label_classification", "multi-hot", "one-hot"],
  "transformers BertForSequenceClassification: problem_type selects the loss; multi_label_classification uses BCEWithLogitsLoss on float labels (https://huggingface.co/docs/transformers/main_classes/configuration#transformers.PretrainedConfig.problem_type)."),
 ("lightning_scheduler_interval_batch", "lightning", "library", "lightning.optimizers", ["lightning.config"],
  "The lr_scheduler dict uses 'interval': 'batch'; Lightning accepts only 'step' or 'epoch', use 'interval': 'step' for a per-batch OneCycleLR.",
  ["'interval': 'step'", "\"interval\": \"step\"", "interval='step'"],
  "LightningModule.configure_optimizers lr_scheduler_config: 'interval': 'epoch' or 'step' (https://lightning.ai/docs/pytorch/stable/common/lightning_module.html#configure-optimizers)."),
 ("datasets_from_generator_called_generator", "datasets", "library", "datasets.usage", [],
  "Dataset.from_generator was given a generator object (read_records(...) already called); pass the generator function and its arguments: Dataset.from_generator(read_records, gen_kwargs={'path': 'records.jsonl'}).",
  ["gen_kwargs", "pass the function", "without calling"],
  "datasets Dataset.from_generator(generator: Callable, gen_kwargs=...) (https://huggingface.co/docs/datasets/package_reference/main_classes#datasets.Dataset.from_generator)."),
 ("hf_resume_checkpoint_literal_last", "transformers", "library", "transformers.trainer", [],
  "resume_from_checkpoint='out/checkpoint-last' names a folder that does not exist (Trainer writes checkpoint-<step>); pass resume_from_checkpoint=True to resume from the latest checkpoint in output_dir, or the real checkpoint-<step> path.",
  ["resume_from_checkpoint=True", "checkpoint-<step>", "get_last_checkpoint"],
  "transformers Trainer.train(resume_from_checkpoint): 'If a bool and equals True, load the last checkpoint in args.output_dir' (https://huggingface.co/docs/transformers/main_classes/trainer#transformers.Trainer.train)."),
 ("peft_layers_to_transform_beyond_depth", "peft", "library", "peft.usage", ["peft.library_error"],
  "layers_to_transform=[8, 9, 10, 11] was copied from a 12-layer recipe but this model has 2 encoder layers, so no query/value module is selected; use indices of existing layers (e.g. [0, 1], below num_hidden_layers) or drop layers_to_transform.",
  ["num_hidden_layers", "existing layer", "[0, 1]"],
  "PEFT LoraConfig.layers_to_transform: 'The layer indices to transform' (https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig)."),
 ("omegaconf_yaml_duplicate_section", "omegaconf", "library", "config.yaml_syntax", ["omegaconf.interpolation"],
  "config.yaml defines the top-level key 'optim' twice (a later override block pasted at the end); YAML mapping keys must be unique: merge the two optim blocks into one (or move the override to the command line).",
  ["merge the two", "single optim", "remove the second"],
  "YAML 1.2 spec: mapping keys are unique (https://yaml.org/spec/1.2.2/#mapping); OmegaConf.load raises on duplicate keys (https://github.com/omry/omegaconf/blob/master/omegaconf/_utils.py, get_yaml_loader construct_mapping)."),
 ("ssh_config_misspelled_option", "ssh", "infra", "ssh.config", [],
  "Line 9 of the launcher's ssh_config misspells IdentityFile ('IdentiyFile'), and ssh refuses to run with an unknown option; correct the keyword to IdentityFile.",
  ["IdentityFile", "misspel", "typo"],
  "ssh_config(5) IdentityFile (https://man.openbsd.org/ssh_config#IdentityFile); OpenSSH readconf.c stops on unknown keywords ('terminating, N bad configuration options'). Launcher exit 0 because it only waits."),
 ("timm_auto_augment_policy_string", "timm", "library", "code.library_error", ["timm.usage"],
  "timm's auto_augment config string for RandAugment starts with 'rand' as its first dash-separated section ('rand-m9-n2-mstd0.5'); 'randaugment-m9-n2' is not parsed: pass auto_augment='rand-m9-n2'.",
  ["rand-m9", "rand-m", "'rand-"],
  "timm data augmentation docs, RandAugment config string 'rand-m9-mstd0.5' (https://huggingface.co/docs/timm/reference/data ; timm/data/auto_augment.py rand_augment_transform: 'config_str: String defining configuration of random augmentation. Consists of multiple sections separated by dashes (-). The first section defines the specific variant of rand augment (currently only rand)')."),
 ("accelerate_gather_uneven_lengths", "accelerate", "library", "healthy", [], "", [], "Healthy: accelerate launch --cpu --num_processes 2; ranks hold 56 and 48 predictions and Accelerator.gather returns all 104, rc 0.", True, "healthy_accelerate_gather_uneven_shards"),
 ("slurm_license_not_defined", "slurm", "infra", "slurm.error", ["slurm.config"],
  "The batch script (copied from another cluster's template) requests --licenses=scratch:1, but this cluster defines no license named scratch (no Licenses= in slurm.conf; scontrol show licenses is empty); remove the --licenses line or request a license that this cluster defines.",
  ["scontrol show lic", "Licenses=", "remove the --licenses", "remove --licenses"],
  "sbatch(1) -L/--licenses: 'Specification of licenses (or other resources available on all nodes of the cluster) which must be allocated to this job' (https://slurm.schedmd.com/sbatch.html#OPT_licenses); slurm.conf(5) Licenses (https://slurm.schedmd.com/slurm.conf.html#OPT_Licenses); licenses guide (https://slurm.schedmd.com/licenses.html). Own one-node Slurm 22.05 with no Licenses defined."),
 ("healthy_ssh_two_node_torchrun", "ssh", "infra", "healthy", [], "", [], "Healthy: same ssh launcher as the ssh cases, nodes 127.0.35.11/.16 with plain sshd config, gloo all_reduce over 2 torchrun agents.", True),
 ("healthy_podman_two_rank_host_network", "container", "infra", "healthy", [], "", [], "Healthy: same podman launcher with MASTER_ADDR/MASTER_PORT exported, --network host, runc.", True),
 ("healthy_slurm_two_task_srun", "slurm", "infra", "healthy", [], "", [], "Healthy: sbatch --ntasks=2 with srun, env:// from SLURM_PROCID/SLURM_NTASKS on the own one-node Slurm; command also polls squeue and cats the output file.", True),
 ("healthy_lightning_ddp_cpu_earlystop", "lightning", "library", "healthy", [], "", [], "Healthy: Lightning ddp on 2 CPU processes with EarlyStopping(monitor matching the logged key); noisy warnings (srun hint, tensorboardX, LeafSpec deprecation, log_every_n_steps).", True),
 ("accelerate_save_pretrained_on_wrapped_model", "accelerate", "library", "healthy", [], "", [], "Healthy: accelerate launch --cpu --num_processes 2, tiny BERT trained one pass and saved from the main process (the save_pretrained call did not fail on this accelerate/transformers version), rc 0.", True, "healthy_accelerate_cpu_save_pretrained"),
]
out = []; bad = []
for row in C:
    case, cat, grp, fam, alts, fix, kws, cite = row[:8]
    healthy = len(row) > 8 and row[8]
    cid = row[9] if len(row) > 9 else case
    m = M[case]
    text = open(f"logs/{case}.log", errors="replace").read().rstrip("\n")
    lines = text.split("\n")
    assert len(lines) <= 400, case
    for k in kws:
        parts = k.split("&")
        if all(p.lower() in text.lower() for p in parts):
            bad.append((case, k))
    note = f"{cite} | {VERS} | command: {m['command']} ; exit={m['exit']} | folder: {m['folder']} (run {m['started']})"
    out.append(dict(id=f"p35-{cid}", url=f"planted:{cid}", source_repo=SRC, category=cat, text=text, family=fam,
                    family_alternatives=alts, fix=fix if not healthy else "", fix_keywords=kws, healthy=bool(healthy),
                    group=grp, label_note=note))
print("keyword-in-text:", bad)
with open("explain_heldout_p35.jsonl", "w") as f:
    for d in out: f.write(json.dumps(d, ensure_ascii=False) + "\n")
import collections
print(len(out), collections.Counter((d["group"], d["healthy"]) for d in out))
