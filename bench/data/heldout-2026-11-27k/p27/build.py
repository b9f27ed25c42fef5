import json, re
L = "/tmp/heldout-p27/logs/"
man = json.load(open(L + "manifest.json")); ver = json.load(open(L + "versions.json"))
LIB, INF = "library", "infra"
R = []
def add(name, cat, group, family, alts, fix, kws, note):
    text = open(L + name + ".log").read()
    assert len(text.splitlines()) <= 400, name
    for k in kws:
        assert not all(p.lower() in text.lower() for p in k.split("&")), (name, k)
    m = man[name]
    R.append(dict(id="p27-" + name, url="planted:p27-" + name, source_repo="planted-local-2026-11-27p27", category=cat,
                  text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=family == "healthy",
                  group=group, label_note=note + " | command: %s ; exit=%s" % (m["command"], m["exit_code"])))
H = "Nothing to fix: "
add("peft_llama_names_on_bert", "peft", LIB, "peft.usage", ["peft.library_error"],
    "target_modules uses LLaMA-style names (q_proj, v_proj) but BERT's attention Linear layers are named query, key and value, so no module is adapted: set LoraConfig(target_modules=['query', 'value']) (check the names with model.named_modules()).",
    ["query&value", "named_modules"],
    "peft LoraConfig target_modules must match module names of the base model: https://huggingface.co/docs/peft/package_reference/lora ; BERT attention names in transformers modeling_bert.py (BertSelfAttention.query/key/value).")
add("einops_cls_token_grid", "einops", LIB, "usercode.shape_mismatch", ["code.library_error"],
    "The encoder output has 50 tokens: the prepended class (CLS) token plus the 7x7=49 patch tokens, so it cannot be rearranged into a 7x7 grid. Drop the class token before reshaping (rearrange(tokens[:, 1:], ...)).",
    ["[:, 1:]", "cls token", "class token"],
    "einops rearrange requires the composed axis length to equal h*w: https://einops.rocks/api/rearrange/ ; the CLS token is concatenated in PatchEncoder.forward (script).")
add("lightning_log_vector_metric", "lightning", LIB, "lightning.log", ["usercode.shape_mismatch"],
    "self.log accepts only scalar values, and val_recall is a 3-element per-class tensor: log each class as its own scalar (self.log_dict({f'val_recall_{c}': recall[c] for c in range(3)})) or log a reduced value.",
    ["log_dict", "each class"],
    "LightningModule.log value must be a single-element tensor or number: https://lightning.ai/docs/pytorch/stable/extensions/logging.html ; log_dict for several values.")
add("torchmetrics_mask_255", "torchmetrics", LIB, "torchmetrics.usage", ["code.library_error"],
    "The ground-truth masks are stored as 0/255 (PNG convention) but binary metrics need targets in {0, 1}: convert them before update, e.g. target = (mask > 127).long() or mask // 255.",
    ["// 255", "> 127", "/ 255", "binariz"],
    "torchmetrics binary classification input validation (targets must be 0/1, validate_args): https://lightning.ai/docs/torchmetrics/stable/classification/jaccard_index.html#binaryjaccardindex ; masks written by the script as 0/255.")
add("gpt2_seqcls_no_pad_id", "transformers", LIB, "transformers.usage", ["transformers.library_error"],
    "GPT-2 has no padding token, and GPT2ForSequenceClassification needs config.pad_token_id to find the last real token of each padded sequence: set tokenizer.pad_token = tokenizer.eos_token and model.config.pad_token_id = tokenizer.pad_token_id (or build the config with pad_token_id=eos id).",
    ["config.pad_token_id", "pad_token_id&eos"],
    "transformers GPT2ForSequenceClassification docs (uses pad_token_id to find the last token): https://huggingface.co/docs/transformers/model_doc/gpt2#transformers.GPT2ForSequenceClassification")
add("timm_features_only_list", "timm", LIB, "timm.usage", ["usercode.shape_mismatch"],
    "With features_only=True a timm model returns a list of feature maps (one per out_index), not a tensor: take the map you need (f = self.backbone(x)[-1]) before pooling, or create the model with num_classes=0 to get pooled features directly.",
    ["[-1]", "num_classes=0", "forward_features"],
    "timm feature extraction: features_only returns a list of feature maps: https://huggingface.co/docs/timm/feature_extraction")
add("datasets_json_nested_field", "datasets", LIB, "datasets.load", ["datasets.usage"],
    "reviews.json is one JSON object whose rows sit under the key 'data', so the json builder makes a single row (version, source, data) and the split fails: load it with load_dataset('json', data_files=..., field='data').",
    ["field=", "field 'data'"],
    "datasets JSON loading with nested records uses field=: https://huggingface.co/docs/datasets/loading#json")
add("hydra_defaults_option_absent", "hydra", LIB, "hydra.config", ["hydra.override"],
    "The defaults list selects optimizer: adamw, but conf/optimizer/ only has adam.yaml and sgd.yaml: create conf/optimizer/adamw.yaml (with _target_: torch.optim.AdamW) or pick an existing option (optimizer: adam, or override optimizer=adam).",
    ["adamw.yaml", "optimizer=adam", "optimizer: adam"],
    "Hydra config groups and defaults list: an option must exist as <group>/<option>.yaml: https://hydra.cc/docs/tutorials/basic/your_first_app/config_groups/")
add("collator_padding_token_labels", "transformers", LIB, "transformers.usage", ["code.library_error"],
    "DataCollatorWithPadding pads only the tokenizer inputs, not per-token labels of different lengths; for token classification use DataCollatorForTokenClassification(tokenizer), which pads labels with -100.",
    ["DataCollatorForTokenClassification", "-100"],
    "transformers data collators: DataCollatorForTokenClassification pads labels (label_pad_token_id=-100): https://huggingface.co/docs/transformers/main_classes/data_collator#transformers.DataCollatorForTokenClassification")
add("safetensors_load_pickle_bin", "safetensors", LIB, "code.library_error", ["torch.checkpoint_load"],
    "export/model.bin was written with torch.save (a pickle/zip file), not in safetensors format, so safetensors cannot parse its header: load it with torch.load(path, weights_only=True), or export with safetensors.torch.save_file(state_dict, 'model.safetensors').",
    ["torch.load", "save_file", "weights_only"],
    "safetensors format (8-byte header length then JSON header): https://huggingface.co/docs/safetensors/index ; torch.save writes a zip/pickle: https://pytorch.org/docs/stable/generated/torch.save.html")
add("omegaconf_yaml_tab_indent", "omegaconf", LIB, "code.library_error", ["code.exception", "hydra.config"],
    "YAML does not allow tab characters for indentation, and base.yaml indents the optim block (lines 5-6) with tabs: replace the tabs with spaces.",
    ["spaces", "indent with space"],
    "YAML 1.2 spec 6.1: tabs must not be used for indentation: https://yaml.org/spec/1.2.2/#61-indentation-spaces ; OmegaConf.load parses with PyYAML.")
add("lightning_num_nodes_one_node_started", "lightning", INF, "rendezvous.init_hang", ["lightning.config", "launcher.one_node_used"],
    "Trainer(num_nodes=2, devices=2) expects 4 processes (MEMBER x/4) and waits for the second node's ranks, which were never started: on a single machine set num_nodes=1, or start the same command on the second node with NODE_RANK=1 and MASTER_ADDR pointing at node 0.",
    ["num_nodes=1", "NODE_RANK"],
    "Lightning multi-node without a cluster manager: run the script on every node with MASTER_ADDR, MASTER_PORT, NODE_RANK; num_nodes must match: https://lightning.ai/docs/pytorch/stable/clouds/cluster_intermediate_1.html . Cut by my 60 s timeout (it waits).")
add("ssh_authorized_keys_from_pattern", "ssh", INF, "ssh.publickey", ["ssh.permissions", "ssh.connect"],
    "The nodes' authorized_keys entry restricts the key with from=\"10.0.0.0/8,192.168.0.0/16\", and the launch host connects from 127.0.0.1 (outside the pattern), so the key is refused: add the launch host's address or network to the from= list (or drop the restriction) on the nodes.",
    ["from=", "authorized_keys"],
    "Own sshd instances on 127.0.0.73/.74 port 2227. sshd(8) AUTHORIZED_KEYS FILE FORMAT, from=\"pattern-list\": https://man.openbsd.org/sshd#from=_pattern-list_")
add("ssh_alias_not_resolvable_master", "rendezvous", INF, "rendezvous.hostname", ["launcher.empty_address"],
    "The launcher passes the first node's ssh alias (cn01) as --master-addr, but cn01 exists only as a Host entry in ~/.ssh/config (HostName 127.0.0.71), not in DNS or /etc/hosts, so torchrun on the nodes cannot resolve it: pass the node's real address/resolvable name as MASTER_ADDR, or add cn01 to /etc/hosts.",
    ["/etc/hosts", "HostName", "alias"],
    "Own sshd instances on 127.0.0.71/.72 with ssh_config Host aliases. ssh_config(5) Host/HostName are ssh-only: https://man.openbsd.org/ssh_config#HostName ; torchrun --master-addr must resolve on every node: https://pytorch.org/docs/stable/elastic/run.html . Cut by my 120 s timeout (c10d keeps retrying).")
add("mpi_btl_self_only", "mpi", INF, "mpi.transport", ["mpi.error"],
    "cluster_env.sh exports OMPI_MCA_btl=self, which leaves only the loopback-to-self transport, so two processes cannot talk: include a shared-memory and network BTL (OMPI_MCA_btl=self,vader,tcp) or unset OMPI_MCA_btl.",
    ["vader", "self,tcp", "unset OMPI_MCA_btl"],
    "Open MPI 4.1 FAQ (selecting BTLs: self is for a process sending to itself; vader shared memory, tcp between nodes): https://www.open-mpi.org/faq/?category=tcp#tcp-selection ; OMPI_MCA_ env vars set MCA params.")
add("slurm_sbatch_crlf_script", "slurm", INF, "slurm.error", ["slurm.job_env"],
    "The batch script was saved with Windows (CRLF) line endings; convert it to Unix line endings (dos2unix job.sbatch, or sed -i 's/\\r$//' job.sbatch) and submit again.",
    ["dos2unix", "sed -i"],
    "Own single-node Slurm 22.05 (auth/none). sbatch rejects scripts containing \\r\\n: src/sbatch/sbatch.c (https://github.com/SchedMD/slurm/blob/slurm-22-05-8-1/src/sbatch/sbatch.c).")
add("slurm_wrap_double_quotes_expand", "slurm", INF, "launcher.script_args", ["slurm.job_env"],
    "The --wrap string is in double quotes, so the submitting shell expands $SLURM_NODEID (unset on the login side) to nothing before sbatch sees it, leaving --node-rank without a value: escape it (\\$SLURM_NODEID, as done for SLURM_NNODES) or put the wrap command in single quotes so it expands inside the job.",
    ["\\$SLURM_NODEID", "single quote", "escape"],
    "Own single-node Slurm 22.05. sbatch --wrap runs the string in sh inside the job: https://slurm.schedmd.com/sbatch.html#OPT_wrap ; shell double-quote expansion: https://www.gnu.org/software/bash/manual/html_node/Double-Quotes.html")
add("yaml_scientific_lr_string", "yaml", LIB, "code.exception", ["usercode.dtype_mismatch", "torch.usage"],
    "PyYAML follows YAML 1.1, where a float needs a decimal point, so 'lr: 3e-4' is loaded as the string '3e-4' and AdamW compares it with 0.0: write lr: 3.0e-4 (or 0.0003) in config.yaml, or convert with float(cfg['lr']).",
    ["3.0e-4", "0.0003", "float(cfg"],
    "PyYAML's float resolver requires a '.' (YAML 1.1): https://github.com/yaml/pyyaml/issues/173 ; torch.optim.AdamW checks 0.0 <= lr.")
add("slurm_ntasks_without_srun", "slurm", INF, "rendezvous.store_timeout", ["launcher.single_process", "slurm.job_env"],
    "#SBATCH -n2 only allocates two tasks; the batch script itself runs once, so 'python train.py' starts a single process (rank 0 of 2) that waits for rank 1 until the store times out. Start the tasks with srun (srun python train.py) so Slurm launches both ranks with their SLURM_PROCID.",
    ["srun"],
    "Own single-node Slurm 22.05. sbatch: the script runs on the first node only, srun launches the tasks: https://slurm.schedmd.com/sbatch.html#SECTION_DESCRIPTION ; https://slurm.schedmd.com/srun.html")
for n, cat, grp, what in [
    ("healthy_lightning_ddp_cpu", "lightning", LIB, "Lightning DDP on 2 CPU processes trained 3 epochs; the srun hint, tensorboardX note, LeafSpec deprecation and log_every_n_steps warnings are informational."),
    ("healthy_accelerate_gather_for_metrics", "accelerate", LIB, "accelerate launch on 2 CPU processes with gather_for_metrics counted all 101 eval samples; exit 0."),
    ("healthy_peft_lora_bert", "peft", LIB, "LoRA on BERT's query/value layers trained and the adapter was saved; exit 0."),
    ("healthy_ssh_two_node_torchrun", "ssh", INF, "two torchrun nodes started over ssh reached each other and all_reduce gave the right sum; the known_hosts notices are informational."),
    ("healthy_mpirun_two_ranks", "mpi", INF, "both MPI ranks ran the allreduce and got sum=3; exit 0."),
    ("healthy_slurm_sbatch_torchrun", "slurm", INF, "the batch job ran torchrun with 2 ranks and the all_reduce is right; the Gloo hostname fallback warning is harmless on one node.")]:
    add(n, cat, grp, "healthy", [], H + what, [], "Healthy run, kept with its warnings.")
with open("/tmp/heldout-p27/explain_heldout_p27.jsonl", "w") as o:
    for r in R: o.write(json.dumps(r) + "\n")
print(len(R), "cases,", sum(r["healthy"] for r in R), "healthy")
