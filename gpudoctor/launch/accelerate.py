"""`accelerate launch` and accelerate's config files, read as accelerate 1.15 reads them:
src/accelerate/commands/launch.py (launch_command_parser: flags/accelerate.json;
_validate_launch_command: config values fill the flags left unset), commands/config/
config_args.py (load_config_from_file, BaseConfig.process_config: `distributed_type`
required, unknown keys refused; ClusterConfig's fields), and the launchers it hands over to:
torchrun (multi-GPU, FSDP, standard DeepSpeed) or the `deepspeed` runner (DeepSpeed over
several machines with the pdsh/openmpi/... multinode launcher).

accelerate never opens `deepspeed_config_file` at launch (the Accelerator in the script
does), so a missing one is accepted here too, and read only when distributed_type is
DEEPSPEED and the file is on this machine."""

import os

from gpudoctor.errors import InputError, excerpt
from gpudoctor.launch import configs
from gpudoctor.launch.common import count, parse, refuse

# accelerate/utils/dataclasses.py DistributedType, ComputeEnvironment
DISTRIBUTED_TYPES = ("NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA",
                     "MULTI_XPU", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM", "MULTI_HPU", "MULTI_NEURON")
MULTI = ("MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA", "MULTI_XPU", "MULTI_HPU", "MULTI_NEURON")
COMPUTE_ENVIRONMENTS = ("LOCAL_MACHINE", "AMAZON_SAGEMAKER")
# config_args.py: BaseConfig + ClusterConfig fields (accelerate 1.15), and the keys
# process_config() converts (fp16, dynamo_backend)
CLUSTER_KEYS = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes",
    "machine_rank", "num_machines", "gpu_ids", "main_process_ip", "main_process_port", "rdzv_backend",
    "same_network", "main_training_function", "enable_cpu_affinity", "fp8_config", "deepspeed_config",
    "fsdp_config", "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name",
    "tpu_zone", "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm", "tpu_env",
    "dynamo_config", "ipex_config",
}
CONVERTED = {"fp16", "dynamo_backend"}
SAGEMAKER_KEYS = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "ec2_instance_type",
    "iam_role_name", "image_uri", "profile", "region", "num_machines", "gpu_ids", "base_job_name",
    "pytorch_version", "transformers_version", "py_version", "sagemaker_inputs_file", "sagemaker_metrics_file",
    "additional_args", "dynamo_config", "enable_cpu_affinity",
}


def default_config_file(environ):
    """config_args.py: $HF_HOME (or $XDG_CACHE_HOME/huggingface)/accelerate/default_config.yaml."""
    home = environ.get("HF_HOME") or os.path.join(environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return os.path.join(os.path.expanduser(home), "accelerate", "default_config.yaml")


def _typed(doc, key, kinds, path):
    v = doc.get(key)
    if v is None:
        return None
    if isinstance(v, bool) and bool not in kinds or not isinstance(v, kinds):
        raise InputError("accelerate config %s: %s is %s, not %s" % (
            path, key, excerpt(v, 24), " or ".join("a number" if k is int else "text" if k is str else
                                                  "a mapping" if k is dict else k.__name__ for k in kinds)))
    return v


def load_config(path, plan, flagged=False):
    """The config as accelerate's load_config_from_file + process_config see it."""
    if path.endswith(".json"):
        doc = configs.load_json(path, "accelerate config")
    else:
        doc = configs.load_yaml(path, "accelerate config")
    plan.add_config_values(doc)
    env = doc.get("compute_environment", "LOCAL_MACHINE")
    if env not in COMPUTE_ENVIRONMENTS:
        refuse("accelerate", "%s: %s is not a valid ComputeEnvironment" % (path, excerpt(env, 30)))
    if "distributed_type" not in doc:
        refuse("accelerate", "%s: A `distributed_type` must be specified in the config file." % path)
    keys = (SAGEMAKER_KEYS if env == "AMAZON_SAGEMAKER" else CLUSTER_KEYS) | CONVERTED
    extra = sorted(k for k in doc if str(k) not in keys)
    if extra:
        refuse("accelerate", "The config file at %s had unknown keys (%s)" % (
            path, ", ".join(excerpt(str(k), 30) for k in extra[:5])))
    dt = doc["distributed_type"]
    if env == "AMAZON_SAGEMAKER" and flagged:
        # a launcher flag given: _validate_launch_command skips the block that reads
        # parallelism_config, copies no SageMaker value (only a LOCAL_MACHINE config's), and
        # launch_command runs the flag's launcher here
        # SageMakerConfig (commands/config/config_args.py): ec2_instance_type and
        # iam_role_name have no default; distributed_type is a SageMakerDistributedType
        missing = [k for k in ("ec2_instance_type", "iam_role_name") if k not in doc]
        if missing:
            refuse("accelerate", "%s: SageMakerConfig.__init__() missing required argument%s: %s" % (
                path, "" if len(missing) == 1 else "s", ", ".join(repr(k) for k in missing)))
        # __post_init__ converts only a string (YAML reads `NO` as false, which stays as it is)
        if isinstance(doc["distributed_type"], str) and doc["distributed_type"] not in (
                "NO", "DATA_PARALLEL", "MODEL_PARALLEL"):
            refuse("accelerate", "%s: %s is not a valid SageMakerDistributedType" % (
                path, excerpt(doc["distributed_type"], 30)))
        nm = doc.get("num_machines", 1)
        if isinstance(nm, bool) or not isinstance(nm, int):
            raise InputError("accelerate config %s: num_machines is %s, not a whole number" % (path, excerpt(nm, 24)))
        plan.note("%s is a SageMaker config: with the launcher flag given, accelerate runs here and uses only "
                  "its mixed_precision and num_machines" % path)
        plan.sources.append("accelerate config %s" % path)
        return {"compute_environment": env, "distributed_type": doc["distributed_type"],
                "mixed_precision": doc.get("mixed_precision"), "num_machines": count(nm, "num_machines", path, 1),
                "sagemaker": True}
    if env == "AMAZON_SAGEMAKER":
        # accelerate 1.15's _validate_launch_command reads defaults.parallelism_config, which
        # SageMakerConfig lacks: `accelerate launch` fails on every SageMaker config given
        # without a launcher flag (--multi_gpu, --use_deepspeed, --use_fsdp, --tpu, ...)
        refuse("accelerate", "%s is a SageMaker config: accelerate 1.15 fails on it (AttributeError: 'SageMakerConfig' "
                             "object has no attribute 'parallelism_config'), and SageMaker jobs do not run on your "
                             "nodes" % path)
    if env == "LOCAL_MACHINE" and not isinstance(dt, str):
        # ClusterConfig.__post_init__ converts only a string: YAML 1.1 reads an unquoted `NO` as false, which stays
        # false, matches no distributed type, and accelerate launch runs the simple launcher (checked: 1.15)
        plan.note("%s: distributed_type %s is read by YAML as %r, not text: accelerate keeps it and starts no "
                  "distributed launcher (write 'NO' or MULTI_GPU in quotes)" % (path, excerpt(str(dt), 12), dt))
    elif env == "LOCAL_MACHINE" and dt not in DISTRIBUTED_TYPES:
        refuse("accelerate", "%s: distributed_type %s is not a valid DistributedType" % (path, excerpt(dt, 30)))
    for key in ("num_processes", "num_machines", "machine_rank", "main_process_port"):
        v = doc.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise InputError("accelerate config %s: %s is %s, not a whole number" % (path, key, excerpt(v, 24)))
        if v is not None:
            count(v, key, "accelerate config %s" % path, minimum=-1)
    for key in ("main_process_ip", "gpu_ids", "mixed_precision", "rdzv_backend"):
        v = doc.get(key)
        if v is not None and not isinstance(v, (str, int, float)) or isinstance(v, bool):
            raise InputError("accelerate config %s: %s is %s, not text" % (path, key, excerpt(v, 24)))
    for key in ("deepspeed_config", "fsdp_config", "fp8_config", "mpirun_config", "dynamo_config",
                "megatron_lm_config", "parallelism_config"):
        _typed(doc, key, (dict,), path)
    ds = doc.get("deepspeed_config") or {}
    for key in ("deepspeed_config_file", "deepspeed_hostfile", "deepspeed_multinode_launcher"):
        v = ds.get(key)
        if v is not None and not isinstance(v, str):
            raise InputError("accelerate config %s: deepspeed_config.%s is %s, not a path" % (path, key,
                                                                                            excerpt(v, 24)))
    if "num_processes" not in doc and dt == "NO":
        doc["num_processes"] = 1
    # ClusterConfig's field defaults for the keys a config leaves out
    for key, value in (("num_processes", -1), ("machine_rank", 0), ("num_machines", 1), ("rdzv_backend", "static")):
        if doc.get(key) is None:
            doc[key] = value
    if "mixed_precision" not in doc:
        doc["mixed_precision"] = "fp16" if doc.get("fp16") else None
    plan.sources.append("accelerate config %s" % path)
    plan.add_file(path)
    return doc


def read(plan, argv, environ, config_path=None):
    """`accelerate launch ARGS` (argv after `launch`), or a config alone (argv None)."""
    plan.launcher = "accelerate"
    a = parse("accelerate", "accelerate", list(argv or []) + ([] if argv else ["<script>"]), environ)
    if sum(bool(x) for x in (a.multi_gpu, a.cpu, a.tpu, a.use_deepspeed, a.use_fsdp)) > 1:
        refuse("accelerate", "You can only use one of `--cpu`, `--multi_gpu`, `--tpu`, `--use_deepspeed`, "
                             "`--use_fsdp` at a time.")
    if a.multi_gpu and a.num_processes is not None and a.num_processes < 2:
        refuse("accelerate", "You need to use at least 2 processes to use `--multi_gpu`.")
    path = a.config_file or config_path
    absent = False  # a config named but not on this machine: what it sets is unknown here
    if path is None:
        dflt = default_config_file(environ)  # accelerate 1.15 reads no variable naming the file itself
        if os.path.isfile(dflt) and not a.cpu:
            path = dflt
    elif (os.path.lexists(os.path.expanduser(path)) or not a.config_file) and \
            not os.path.isfile(os.path.expanduser(path)):
        # a directory, a fifo, a device, or a missing file the user named (plan --accelerate-config): refused
        # as accelerate refuses it (its os.path.isfile), never read
        refuse("accelerate", "The passed configuration file `%s` does not exist." % path)
    elif not os.path.isfile(os.path.expanduser(path)):
        # accelerate refuses ("The passed configuration file `X` does not exist.",
        # accelerate/commands/launch.py) where the file is missing; a plan is often made away from the
        # machine that launches (a script from a repository, another node): as DeepSpeed's config and
        # hostfiles, the file is said to be absent here and the line is planned from its flags
        plan.note("accelerate config %s is not on this machine: planned from the line's flags alone (accelerate "
                  "refuses to start where the file does not exist: 'The passed configuration file ... does not "
                  "exist.')" % path)
        path, absent = None, True
    flagged = bool(a.multi_gpu or a.tpu or a.use_deepspeed or a.use_fsdp or a.use_megatron_lm
                   or getattr(a, "tpu_use_cluster", False))
    doc = load_config(os.path.expanduser(path), plan, flagged) if path else None
    dtype = "NO"
    if doc is not None and doc.get("sagemaker"):
        if not a.mixed_precision:
            a.mixed_precision = doc.get("mixed_precision") or "no"
        if a.num_machines is None:
            a.num_machines = doc["num_machines"] if a.multi_gpu else 1
    elif doc is not None:
        dtype = doc["distributed_type"]
        if not (a.multi_gpu or a.tpu or a.use_deepspeed or a.use_fsdp or a.use_megatron_lm):
            a.use_deepspeed = dtype == "DEEPSPEED"
            a.multi_gpu = dtype in MULTI
            a.use_fsdp = dtype == "FSDP"
        for key in ("num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port",
                    "gpu_ids", "rdzv_backend"):
            if getattr(a, key, None) is None and doc.get(key) is not None:
                setattr(a, key, doc[key])
        ds = doc.get("deepspeed_config") or {}
        for key in ("deepspeed_config_file", "deepspeed_hostfile", "deepspeed_multinode_launcher",
                    "deepspeed_inclusion_filter", "deepspeed_exclusion_filter", "gradient_accumulation_steps",
                    "zero_stage"):
            if ds.get(key) is not None and getattr(a, key, None) is None:
                setattr(a, key, ds[key])
        mpi = doc.get("mpirun_config") or {}
        if getattr(a, "mpirun_hostfile", None) is None and mpi.get("mpirun_hostfile") is not None:
            # _validate_launch_command copies each key of the config's mappings (mpirun_config.mpirun_hostfile)
            # into the flag of that name when the line does not give it
            a.mpirun_hostfile = str(mpi["mpirun_hostfile"])
        if not a.mixed_precision:
            a.mixed_precision = doc.get("mixed_precision") or "no"
        if a.num_processes == -1:
            refuse("accelerate", "You need to manually pass in `--num_processes` using this config yaml.")
    elif absent:
        # the config would give num_machines, num_processes, main_process_ip/port, mixed_precision
        # (ms-swift's examples/train/multi-node/accelerate/train_node1.sh names multi_node.yaml, relative to
        # the repository's root): only the line's flags are known; one machine was planned, said as fact
        if a.num_processes is None and not a.cpu:
            plan.note("the config (not here) or this machine's GPU count gives the number of processes")
    else:
        if a.num_machines is None:
            a.num_machines = 1
        if a.mixed_precision is None:
            a.mixed_precision = "no"
        if a.num_processes is None and not a.cpu:
            plan.note("no config and no --num_processes: accelerate uses this machine's GPU count")
    mp = str(a.mixed_precision).lower() if a.mixed_precision is not None else None
    if mp not in ("no", "fp16", "bf16", "fp8", None):
        refuse("accelerate", "mixed_precision %s is not one of no, fp16, bf16, fp8" % excerpt(a.mixed_precision, 20))
    plan.mixed_precision = plan.precision = mp
    nm = a.num_machines if a.num_machines is not None else (None if absent and not a.cpu else 1)
    npr = a.num_processes
    # launch_command: a config whose distributed_type starts none of the distributed launchers (NO, MULTI_CPU,
    # a use_cpu config...) goes to simple_launcher, as --cpu does: the script runs once on this machine, or under
    # mpirun with an mpirun_hostfile (utils/launch.py prepare_simple_launcher_cmd_env)
    simple = doc is not None and not doc.get("sagemaker") and not a.cpu and not (
        a.multi_gpu or a.use_deepspeed or a.use_fsdp or a.use_megatron_lm or a.tpu) and dtype not in ("MEGATRON_LM",
                                                                                                     "XLA")
    if simple and not a.cpu and getattr(a, "mpirun_hostfile", None) is None:
        if npr not in (None, 1):
            plan.note("distributed_type %s: accelerate runs the script once on this machine (simple_launcher); "
                      "num_processes %s is not used: give --multi_gpu (or distributed_type: MULTI_GPU) to start "
                      "one process per GPU" % (excerpt(str(dtype), 20), npr))
        npr = nm if nm else 1  # one process on each machine that runs this line
    if a.cpu and getattr(a, "mpirun_hostfile", None) is None:
        # launch_command: --cpu goes to simple_launcher, which runs the script once
        # (utils/launch.py prepare_simple_launcher_cmd_env; only --mpirun_hostfile makes it mpirun)
        if npr not in (None, 1):
            plan.note("--cpu: accelerate runs the script once (simple_launcher); --num_processes %s is used only "
                      "with --mpirun_hostfile" % npr)
        simple = True
        npr, nm = 1, nm or 1
    if simple and getattr(a, "mpirun_hostfile", None) is None and nm is not None and nm > 1:
        # prepare_simple_launcher_cmd_env asserts both before anything starts
        if a.main_process_ip is None:
            refuse("accelerate", "AssertionError: When using multiple machines, you need to specify the main "
                                 "process IP.")
        if a.main_process_port is None:
            refuse("accelerate", "AssertionError: When using multiple machines, you need to specify the main "
                                 "process port.")
        npr = nm  # each machine runs the script once
    plan.nnodes_min = plan.nnodes_max = nm
    if npr is not None:
        plan.world_min = plan.world_max = npr
        if nm:
            plan.nproc_per_node = npr // nm
    port = a.main_process_port
    if nm is None:  # how many machines is the absent config's: the master and its port are too
        plan.master_port = port if port not in (None, 0) else None
        plan.rdzv_backend = a.rdzv_backend or "static"
        if argv:
            _script(plan, a)
        return plan
    if port == 0:
        port, plan.port_asked = None, 0
        plan.note("main_process_port 0: accelerate picks a free port on the main machine (one machine only: "
                  "the other machines cannot know it)")
    elif port is None:
        port = 29500  # torchrun's default, which accelerate hands the port to
    plan.master_port = port
    if nm > 1:
        # an address is text: YAML reads an unquoted `main_process_ip: 1234` (accelerate's multi_node
        # template quotes it) as a number, which the script reader's loopback test split as a string
        plan.master_addr = str(a.main_process_ip) if a.main_process_ip not in (None, "") else None
        if a.main_process_ip is None and not simple and not a.cpu and not (
                a.use_deepspeed and (a.deepspeed_multinode_launcher or "pdsh") != "standard"):
            # prepare_multi_gpu_env: --rdzv_endpoint f"{main_process_ip}:{port}" (or --master_addr
            # str(main_process_ip)): torchrun is handed the host name 'None', which no node resolves
            plan.master_addr = "None"
            plan.note("main_process_ip is not set on %d machines: accelerate hands torchrun the master address "
                      "'None' (str(None)), which no node resolves; set main_process_ip (or --main_process_ip) to "
                      "the machine_rank 0 node's address" % nm)
    else:
        # utils/launch.py prepare_multi_gpu_env: main_process_ip is used only when
        # num_machines > 1; one machine runs torchrun's default master 127.0.0.1
        plan.master_addr = "127.0.0.1"
        if a.main_process_ip and a.main_process_ip not in ("127.0.0.1", "localhost"):
            plan.note("main_process_ip %s is not used on one machine (num_machines 1): the master is 127.0.0.1"
                      % a.main_process_ip)
    plan.rdzv_backend = a.rdzv_backend or "static"
    cfg = (doc or {}).get("rdzv_backend") if not (doc or {}).get("sagemaker") else None
    if nm > 1 and cfg not in (None, plan.rdzv_backend):
        # accelerate 16cb6eb8 commands/launch.py: --rdzv_backend defaults to "static" (not None),
        # and _validate_launch_command copies a config value only into a flag still None, so
        # the config's rdzv_backend never reaches torchrun (the reading above does the same)
        cut = str(cfg)[:40]
        plan.config_values.append(cut)  # (the note's cut is a config value too: shown as one word, 82.)
        plan.note("rdzv_backend %s in the config is not used: accelerate launch's --rdzv_backend (default static) "
                  "wins over it, so the rendezvous is %s and the node rank counts; give --rdzv_backend %s on the "
                  "launch line" % (cut, plan.rdzv_backend, cut))
    if a.machine_rank is not None and _rank_read(a, nm, plan.rdzv_backend, dtype, doc is not None):
        plan.machine_rank = a.machine_rank
    if plan.master_addr and plan.master_port:
        plan.rdzv_endpoint = "%s:%s" % (plan.master_addr, plan.master_port)
    if nm <= 1 and plan.rdzv_backend != "static" and not simple and not a.cpu and not a.tpu:
        # one machine: prepare_multi_gpu_env passes --master_port only, no --rdzv_endpoint, so torch's c10d / etcd
        # store is at its own default, localhost:29400 (2379) (torch/distributed/run.py config_from_args)
        from gpudoctor.launch.torchrun import DEFAULT_PORTS

        if DEFAULT_PORTS.get(plan.rdzv_backend, -1) > 0:
            plan.master_addr, plan.master_port = "localhost", DEFAULT_PORTS[plan.rdzv_backend]
            plan.rdzv_endpoint = "localhost:%d" % plan.master_port
    if a.use_deepspeed:
        _deepspeed(plan, a, nm, npr, path, environ)
    if argv:
        _script(plan, a)
    return plan


def _script(plan, a):
    """The training script (or -m module) and its arguments, from accelerate launch's own argv."""
    plan.script = ("-m " + a.training_script) if a.module else a.training_script
    if not a.module and not a.no_python:
        plan.add_file(a.training_script)
    plan.script_args = list(a.training_script_args or [])


def _rank_read(a, nm, backend, dtype, configured):
    """Whether the launcher accelerate hands over to reads machine_rank (accelerate 1.15,
    commands/launch.py launch_command and utils/launch.py): on several machines, the
    torchrun path (multi-GPU, FSDP, Megatron-LM, DeepSpeed's "standard" launcher) passes it
    as --node_rank, which torch reads with the static rendezvous only (torch/distributed/run.py
    config_from_args: rdzv_configs["rank"] = args.node_rank for "static"; c10d and etcd rank
    the nodes as they join); DeepSpeed's runner reads it only with the "nossh" launcher
    (prepare_deepspeed_cmd_env: --node_rank ... --no_ssh; pdsh/openmpi/mvapich/slurm give
    each node its rank). One machine, --cpu, TPU and the simple launcher read none; without a
    config, _validate_launch_command turns multi-GPU on by itself when num_processes > 1 and the
    node has several GPUs (the GPU nodes this plan is for)."""
    if nm <= 1 or a.cpu or a.tpu:
        return False
    if a.use_deepspeed and (a.deepspeed_multinode_launcher or "pdsh") != "standard":
        return a.deepspeed_multinode_launcher == "nossh"
    if configured and not (a.use_deepspeed or a.use_fsdp or a.use_megatron_lm or a.multi_gpu
                           or dtype == "MEGATRON_LM"):
        return False  # simple_launcher: one process, no rank
    return backend == "static"


def _deepspeed(plan, a, nm, npr, path, environ):
    from gpudoctor.launch import deepspeed as ds_launcher
    from gpudoctor.launch.deepspeed_config import read_ds_config

    launcher = a.deepspeed_multinode_launcher or "pdsh"
    if nm > 1 and launcher != "standard":
        # accelerate hands over to the deepspeed runner (utils/launch.py
        # prepare_deepspeed_cmd_env): --hostfile str(deepspeed_hostfile) (the string "None" when
        # unset), --include/--exclude filters or --num_gpus num_processes // num_machines, no
        # --num_nodes: every host of the hostfile is used
        argv = ["--hostfile", str(a.deepspeed_hostfile)]
        if launcher == "nossh":
            argv += ["--node_rank", str(a.machine_rank), "--no_ssh"]
        else:
            argv += ["--no_local_rank", "--launcher", str(launcher)]
        if a.deepspeed_exclusion_filter is not None:
            argv += ["--exclude", str(a.deepspeed_exclusion_filter)]
        elif a.deepspeed_inclusion_filter is not None:
            argv += ["--include", str(a.deepspeed_inclusion_filter)]
        elif npr is not None:
            argv += ["--num_gpus", str(npr // nm)]
        if a.main_process_ip:
            argv += ["--master_addr", str(a.main_process_ip)]
        argv += ["--master_port", str(plan.master_port or 29500)]
        sub = type(plan)()
        ds_launcher.read(sub, argv + ["<script>"], environ)
        plan.nodes, plan.nodes_source = sub.nodes, "DeepSpeed " + (sub.nodes_source or "")
        plan.files.extend(f for f in sub.files if f not in plan.files and not f.endswith("<script>"))
        plan.notes.extend(sub.notes)
        if sub.world_min is not None and npr is not None and sub.world_min != npr:
            plan.note("DeepSpeed will start %d processes where num_processes says %d" % (sub.world_min, npr))
        plan.world_min, plan.world_max = sub.world_min, sub.world_max
        plan.nnodes_min, plan.nnodes_max = sub.nnodes_min, sub.nnodes_max
        plan.master_addr = sub.master_addr
        plan.rdzv_endpoint = sub.rdzv_endpoint
    f = a.deepspeed_config_file
    if f:
        p = os.path.expanduser(f)
        if os.path.isfile(p):
            read_ds_config(plan, f)
        else:
            plan.note("deepspeed_config_file %s is not on this machine: accelerate does not open it at launch "
                      "(the script does, on every node)" % f)
            plan.add_file(f)
