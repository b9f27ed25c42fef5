import json, re
B='/tmp/heldout-p29'
def log(j): return open(f'{B}/out_{j}.log').read().rstrip('\n')
def cat(path, shown): return f'$ cat {shown}\n' + open(path).read().rstrip('\n')
def slurm(j, outglob=None, extra=None):
    parts=[cat(f'{B}/work/{j}/job.sbatch','job.sbatch'), open(f'{B}/sub_{j}.txt').read().rstrip('\n')]
    if outglob:
        import glob; f=sorted(glob.glob(f'{B}/work/{j}/{outglob}'))[-1]
        parts.append(cat(f, f.split('/')[-1]))
    if extra: parts.append(open(extra).read().rstrip('\n'))
    return '\n'.join(parts)
def trim91():
    L=log('job-91d0').split('\n')
    # keep the launcher banner, the first two retry blocks and the last block + exit
    blocks=[i for i,l in enumerate(L) if 'TCPStore.cpp:340' in l]
    head=L[:blocks[1]+26]; tail=L[blocks[-1]-3:]
    return '\n'.join(head+['[... identical retry blocks try=2..8 trimmed ...]']+tail)
def man(j):
    for l in open(f'{B}/manifest.tsv'):
        p=l.rstrip('\n').split('\t')
        if p[0]==j: return f' | command: {p[2]} ; exit={p[1]}'
    return ''
C=[]
def add(name, j, cat_, group, text, family, alts, fix, kws, note, healthy=False):
    C.append(dict(id='p29-'+name, url='planted:p29-'+name, source_repo='planted-local-2026-11-27p29', category=cat_,
                  text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                  group=group, label_note=note+man(j)+f' | folder: work/{j}'))
# ---------------- infra ----------------
add('healthy_two_agent_c10d_shutdown_warning','job-f2a8','rendezvous','infra',cat(f'{B}/work/job-f2a8/launch.sh','launch.sh')+'\n'+log('job-f2a8'),
    'healthy',[], 'Nothing to fix: two torchrun agents started over ssh met through the c10d rendezvous on node1 and both ranks finished; the node_rank notice, known-hosts warnings and the recvVector/RendezvousConnectionError at shutdown (the store host exited first) are harmless.',[],
    'Healthy run with the shutdown warning the non-host agent prints when the c10d store host has already exited (torch elastic dynamic_rendezvous shutdown).', healthy=True)
add('ssh_identityfile_path_typo','job-2e90','ssh','infra',cat(f'{B}/work/job-2e90/run_all.sh','run_all.sh')+'\n'+log('job-2e90'),
    'ssh.publickey',['ssh.config'], 'The -i path names a key file that does not exist (keys/id_ed25519_cluster; the key is keys/id_ed25519), so no matching key is offered and every host answers Permission denied: point -i / IdentityFile at the existing private key.',
    ['IdentityFile','existing&key','key path'],
    'ssh(1) -i identity_file; ssh prints "not accessible" for a missing identity and continues: https://man.openbsd.org/ssh#i')
add('pdsh_hostfile_crlf','job-5b13','pdsh','infra',log('job-5b13'),
    'pdsh.error',['ssh.config'], 'The machines file has Windows CRLF line endings, so each host name ends in a carriage return that ssh rejects: convert it to Unix line endings (dos2unix machines or sed -i "s/\\r$//" machines).',
    ['dos2unix','line ending','crlf'],
    'pdsh -w ^file reads one host per line; the trailing \\r stays in the name; ssh rejects names with control chars (OpenSSH ssh.c valid_hostname). fix: dos2unix.')
add('netns_loopback_down_torchrun','job-91d0','rendezvous','infra',cat(f'{B}/work/job-91d0/job.sh','job.sh')+'\n'+trim91(),
    'rendezvous.connect',['errno.enetunreach'], 'unshare --net creates a new network namespace whose loopback interface is down, so even localhost is unreachable for the c10d store: bring lo up inside the namespace (ip link set lo up before torchrun) or run in the host network namespace.',
    ['ip link set lo up','loopback&up','lo up'],
    'unshare(1) --net: new namespace has only lo, initially down (network_namespaces(7)); torchrun --standalone uses localhost TCPStore. Trimmed repeated retry blocks 2..8.')
add('omegaconf_env_not_exported_to_ranks','job-9d47','omegaconf','infra',cat(f'{B}/work/job-9d47/launch.sh','launch.sh')+'\n'+cat(f'{B}/work/job-9d47/conf/config.yaml','conf/config.yaml')+'\n'+log('job-9d47'),
    'omegaconf.interpolation',['code.exception'], 'DATA_ROOT is set as a shell variable in launch.sh but never exported, so torchrun and its ranks do not inherit it and ${oc.env:DATA_ROOT} fails: export DATA_ROOT=... (or give oc.env a default, ${oc.env:DATA_ROOT,/path}).',
    ['export DATA_ROOT','oc.env:DATA_ROOT,'],
    'OmegaConf oc.env resolver raises if the variable is unset and no default is given: https://omegaconf.readthedocs.io/en/2.3_branch/custom_resolvers.html#oc-env ; bash: unexported variables are not passed to child processes.')
add('slurm_set_u_cpus_per_task_unset','job-c301','slurm','infra',slurm('job-c301','pretok-*.out'),
    'slurm.job_env',['code.exception'], 'SLURM_CPUS_PER_TASK is only set when --cpus-per-task is requested, so under set -u the script aborts: add #SBATCH --cpus-per-task=N, or use a default ${SLURM_CPUS_PER_TASK:-1}.',
    ['--cpus-per-task','SLURM_CPUS_PER_TASK:-'],
    'sbatch(1) OUTPUT ENVIRONMENT VARIABLES: SLURM_CPUS_PER_TASK "Number of cpus requested per task. Only set if the --cpus-per-task option is specified." https://slurm.schedmd.com/sbatch.html')
add('slurm_begin_time_pending','job-c477','slurm','infra',slurm('job-c477',None,f'{B}/work/job-c477/status.txt'),
    'slurm.pending',[], 'The script carries #SBATCH --begin=23:00, so the job is held until 23:00 (Reason=BeginTime): remove --begin (or scontrol update jobid=5 StartTime=now) to run it now.',
    ['StartTime=now','remove&--begin','scontrol update'],
    'sbatch --begin defers eligibility; squeue reason BeginTime: https://slurm.schedmd.com/squeue.html#SECTION_JOB-REASON-CODES ; scontrol update StartTime.')
add('slurm_nodelist_and_exclude_same_node','job-c5a9','slurm','infra',slurm('job-c5a9'),
    'slurm.eslurm_invalid_node_name',['slurm.node_config','slurm.error'], 'The script both requires node vm (--nodelist=vm) and excludes it (--exclude=vm); the request is contradictory: drop one of the two directives.',
    ['drop one','remove&--exclude','remove&--nodelist'],
    'sbatch(1) --nodelist / --exclude; a node that is both required and excluded is rejected at submit (slurmctld job_mgr). https://slurm.schedmd.com/sbatch.html')
add('slurm_module_command_absent','job-c6d2','slurm','infra',slurm('job-c6d2','prep-*.out'),
    'slurm.job_env',['code.python_env'], 'The batch script calls "module" but Environment Modules/Lmod is not initialised in the non-interactive batch shell on the node (or not installed): source the modules init (e.g. source /etc/profile.d/modules.sh or use #!/bin/bash -l) or drop module and activate the software environment directly.',
    ['#!/bin/bash -l','profile.d','lmod'],
    'Lmod/Environment Modules define "module" as a shell function through /etc/profile.d; non-login batch shells need it sourced: https://lmod.readthedocs.io/en/latest/030_installing.html')
add('healthy_slurm_torchrun_gloo','job-c8f0','slurm','infra',slurm('job-c8f0','ddp-*.out'),
    'healthy',[], 'Nothing to fix: one srun task ran torchrun with 2 gloo ranks under Slurm; the OMP_NUM_THREADS banner is informational.',[],
    'Healthy run.', healthy=True)
add('mpirun_wdir_not_created','job-f610','mpi','infra',cat(f'{B}/work/job-f610/run.sh','run.sh')+'\n'+log('job-f610'),
    'mpi.error',['errno.enoent'], 'The --wdir directory (scratch/run-<date>) does not exist on the node, so mpirun cannot chdir there before starting the ranks: create it first on every node (mkdir -p "$SCRATCH", e.g. via the job script or pdsh) or point --wdir at an existing directory.',
    ['mkdir -p','create it first','create the directory'],
    'Open MPI mpirun(1) --wdir <dir>: "Change to the directory <dir> before the user\'s program executes"; the directory must exist on each node: https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html')
add('slurm_directive_job_name_with_space','job-f7d3','slurm','infra',slurm('job-f7d3'),
    'slurm.error',['slurm.job_env'], 'The #SBATCH --job-name value contains an unquoted space, so sbatch reads "shard" as a separate, invalid directive: use a name without spaces (--job-name=tokenize-shard) or quote it.',
    ['tokenize-shard','without spaces','quote'],
    'sbatch(1) parses each #SBATCH line as command-line options; whitespace splits arguments: https://slurm.schedmd.com/sbatch.html#SECTION_DESCRIPTION')
add('slurm_wrap_plus_script_args','job-f8b9','slurm','infra',cat(f'{B}/work/job-f8b9/job.sbatch','job.sbatch')+'\n'+open(f'{B}/sub_job-f8b9.txt').read().rstrip('\n'),
    'slurm.error',[], 'The command gives both --wrap and a batch script with arguments; --wrap replaces the script, so script arguments are rejected: submit either the script (sbatch --job-name=lr-sweep job.sbatch 3e-4) or --wrap alone.',
    ['sbatch --job-name=lr-sweep job.sbatch 3e-4','either the script','--wrap alone'],
    'sbatch(1) --wrap: "Sbatch will wrap the specified command string in a simple sh shell script, and submit that script"; a script file plus --wrap is refused: https://slurm.schedmd.com/sbatch.html#OPT_wrap')
# ---------------- library ----------------
add('hf_trainingargs_evaluation_strategy_removed','job-a310','transformers','library',log('job-a310'),
    'code.library_error',['code.lib_api_version'], 'TrainingArguments no longer accepts evaluation_strategy (renamed eval_strategy and the old name removed): pass eval_strategy="epoch".',
    ['eval_strategy=','renamed'],
    'transformers TrainingArguments eval_strategy (evaluation_strategy deprecated in 4.46, removed later): https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments')
add('healthy_hf_trainer_cpu','job-a7f2','transformers','library',log('job-a7f2'),
    'healthy',[], 'Nothing to fix: the Trainer trained and evaluated one epoch on CPU; the pin_memory warning is informational.',[],
    'Healthy run with pin_memory warning.', healthy=True)
add('hf_lr_scheduler_type_typo','job-c05e','transformers','library',log('job-c05e'),
    'code.library_error',['code.exception'], 'lr_scheduler_type="cosine_warmup" is not a SchedulerType: use "cosine" (with warmup_steps) or another listed name such as "cosine_with_min_lr".',
    ['lr_scheduler_type="cosine"','warmup_steps'],
    'transformers SchedulerType enum (trainer_utils / training_args): https://huggingface.co/docs/transformers/main_classes/optimizer_schedules#transformers.SchedulerType')
add('hf_compute_metrics_tuple_hidden_states','job-e6d8','transformers','library',log('job-e6d8'),
    'code.exception',['code.library_error'], 'With output_hidden_states=True the model returns extra outputs, so EvalPrediction.predictions is a tuple (logits, hidden_states): take the logits (preds = preds[0] if isinstance(preds, tuple)) or use preprocess_logits_for_metrics, or do not keep hidden states during evaluation.',
    ['preds[0]','preprocess_logits_for_metrics','isinstance&tuple'],
    'Trainer.evaluation_loop returns all non-loss outputs; transformers docs Trainer compute_metrics / preprocess_logits_for_metrics: https://huggingface.co/docs/transformers/main_classes/trainer')
add('datasets_from_dict_unequal_lengths','job-0d21','datasets','library',log('job-0d21'),
    'datasets.arrow',['datasets.usage'], 'texts and labels have different lengths (the corpus has continuation lines that split records), so Dataset.from_dict cannot build the table: make the columns the same length (parse one record per sample, check len(texts) == len(labels)).',
    ['same length','len(texts)'],
    'Dataset.from_dict builds an Arrow table whose columns must be equal length: https://huggingface.co/docs/datasets/package_reference/main_classes#datasets.Dataset.from_dict')
add('datasets_batched_map_returns_scalar','job-1f3c','datasets','library',log('job-1f3c'),
    'datasets.usage',['datasets.library_error'], 'With batched=True the function gets a batch and must return a list per column (one value per example): return {"n_words": [len(t.split()) for t in batch["text"]]}.',
    ['one value per example','for t in batch'],
    'datasets map batched: function returns lists of same batch size: https://huggingface.co/docs/datasets/about_map_batch')
add('healthy_datasets_batched_map','job-e3b5','datasets','library',log('job-e3b5'),
    'healthy',[], 'Nothing to fix: batched map added n_words to 1000 rows.',[],'Healthy run.', healthy=True)
add('datasets_validation_glob_no_files','job-2b77','datasets','library',log('job-2b77'),
    'datasets.load',['datasets.usage'], 'The validation pattern data/valid-*.csv matches no file (only train-*.csv exist), so the validation split is empty: point data_files["validation"] at the real validation files or drop it and make one with train_test_split.',
    ['train_test_split','point data_files','matches no file'],
    'datasets load_dataset data_files patterns: https://huggingface.co/docs/datasets/loading#local-and-remote-files')
add('accelerate_save_state_no_project_dir','job-3c18','accelerate','library',log('job-3c18'),
    'accelerate.config',['code.library_error'], 'automatic_checkpoint_naming=True saves under project_dir/checkpoints, but no project_dir was given: set ProjectConfiguration(project_dir="runs/exp", automatic_checkpoint_naming=True) (or pass an output_dir to save_state).',
    ['project_dir=','ProjectConfiguration'],
    'accelerate ProjectConfiguration(project_dir, automatic_checkpoint_naming): https://huggingface.co/docs/accelerate/usage_guides/checkpoint ; save_state joins project_dir + "checkpoints".')
add('healthy_lightning_ddp_cpu_2proc','job-6f93','lightning','library',log('job-6f93'),
    'healthy',[], 'Nothing to fix: Lightning DDP on 2 CPU processes (gloo) finished 2 epochs; srun hint, litlogger tip and LeafSpec deprecation are informational.',[],
    'Healthy run with noisy warnings.', healthy=True)
add('lightning_ckpt_every_n_steps_and_epochs','job-8c20','lightning','library',log('job-8c20'),
    'lightning.callbacks',['lightning.config'], 'ModelCheckpoint accepts only one of every_n_train_steps, every_n_epochs and train_time_interval: keep one (e.g. drop every_n_epochs=1 and keep every_n_train_steps=50).',
    ['drop every_n_epochs','keep one','only one of'],
    'lightning ModelCheckpoint docs: "every_n_train_steps ... This must be mutually exclusive with train_time_interval and every_n_epochs": https://lightning.ai/docs/pytorch/stable/api/lightning.pytorch.callbacks.ModelCheckpoint.html')
add('lightning_earlystopping_mode_maximize','job-8e64','lightning','library',log('job-8e64'),
    'lightning.callbacks',['lightning.config'], 'EarlyStopping mode must be "min" or "max": use mode="max" for val_acc.',
    ['mode="max"',"mode='max'"],
    'lightning EarlyStopping(mode: one of min, max): https://lightning.ai/docs/pytorch/stable/api/lightning.pytorch.callbacks.EarlyStopping.html')
add('peft_lora_rank_zero_from_env_default','job-9a03','peft','library',log('job-9a03'),
    'peft.usage',['peft.library_error'], 'LoraConfig got r=0 because LORA_RANK was not set and the script defaults to "0": give LoRA a positive rank (set LORA_RANK=8 or change the default to 8).',
    ['LORA_RANK=','r=8','positive rank'],
    'peft LoraConfig r: "Lora attention dimension (the rank)"; update_layer rejects r <= 0: https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig')
add('hydra_plus_append_existing_key','job-b112','hydra','library',log('job-b112'),
    'hydra.override',['hydra.config'], 'optim.weight_decay already exists in the config, so the + (append) prefix is an error: override it without the prefix (optim.weight_decay=0.01) or use ++ to add-or-override.',
    ['without the +','no prefix','without the prefix'],
    'Hydra override grammar: +key appends (fails if present), key=value overrides, ++key force-adds: https://hydra.cc/docs/advanced/override_grammar/basic/')
add('healthy_hydra_override','job-e019','hydra','library',log('job-e019'),
    'healthy',[], 'Nothing to fix: the overrides were applied and the config printed.',[],'Healthy run.', healthy=True)
add('hf_generate_max_length_below_prompt','job-d240','transformers','library',log('job-d240'),
    'code.library_error',['code.exception'], 'max_length counts the prompt too, and the prompt already has 48 tokens: pass max_new_tokens=N (or a max_length greater than the prompt length).',
    ['max_new_tokens=','greater than the prompt'],
    'transformers GenerationConfig max_length vs max_new_tokens: https://huggingface.co/docs/transformers/main_classes/text_generation#transformers.GenerationConfig')
add('dataloader_persistent_workers_zero_workers','job-d7c1','torch','library',log('job-d7c1'),
    'code.library_error',['code.exception'], 'persistent_workers=True needs worker processes, but NUM_WORKERS defaults to 0: set NUM_WORKERS>0 or pass persistent_workers=workers > 0.',
    ['num_workers=2','persistent_workers=False','persistent_workers=workers > 0'],
    'torch.utils.data.DataLoader persistent_workers: https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader')
# keyword check
bad=0
for c in C:
    t=c['text'].lower()
    for k in c['fix_keywords']:
        for alt in [k]:
            parts=[p.lower() for p in alt.split('&')]
            if all(p in t for p in parts): print('KEYWORD IN TEXT', c['id'], k); bad+=1
    n=c['text'].count('\n')+1
    if n>400: print('TOO LONG', c['id'], n); bad+=1
with open(f'{B}/explain_heldout_p29.jsonl','w') as f:
    for c in C: f.write(json.dumps(c, ensure_ascii=False)+'\n')
print(len(C),'cases', sum(c['healthy'] for c in C),'healthy', 'bad', bad)
