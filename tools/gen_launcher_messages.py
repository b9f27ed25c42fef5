#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/launcher_messages.json: the errors and warnings the
DeepSpeed and accelerate launchers (and DeepSpeed's op builders, which ds_report and JIT builds
run) raise or print, each with a bounded matcher and the knowledge family from the RULES table
below; MSG_FIX gives a message its own meaning and fix where its family's is too general.

Usage:
    pip download --no-deps deepspeed accelerate -d /tmp/pyl   (unpack the sdist / wheel)
    python tools/gen_launcher_messages.py --deepspeed /tmp/pyl/ds/deepspeed-X --accelerate /tmp/pyl/acc \\
        --pdsh <a git directory of chaos/pdsh> [--pdsh-rev REV] [--older-accelerate <accelerate.git>
        --older-accelerate-rev v0.27.2] [-o OUT]
        (the releases are read from the sdist's PKG-INFO, the wheel's METADATA and `git describe`)
    python tools/gen_launcher_messages.py --slice tools/data/launcher_messages_slice.txt -o OUT   (the test)

Sources: deepspeed (https://pypi.org/project/deepspeed/, sdist) deepspeed/launcher/*.py and
op_builder/*.py; accelerate (https://pypi.org/project/accelerate/, wheel) accelerate/commands/launch.py,
accelerate/utils/launch.py, accelerate/state.py, accelerate/commands/config/config_args.py; pdsh
(https://github.com/chaos/pdsh, at a commit) PDSH_FILES below: its err()/errx() format strings.
--older-accelerate <a git directory of huggingface/accelerate> adds what an older accelerate printed that the
current one no longer does (read with `git show REV:src/<path>`; marked "older"): accelerate 0.21-0.27 asked for
`----main_process_port` when the port was in use (fixed by huggingface/accelerate#2541, 0.28.0), a line public
threads quote as it was.
Sites: `raise X("...")`, `assert cond, "..."`, `logger.error/warning/critical(...)`,
`warnings.warn(...)` and, in op_builder/, `self.warning(...)` (printed as ` [WARNING]  ...` by
ds_report and by JIT builds: op_builder/builder.py OpBuilder.warning). f-strings, `+`, `%` and
`.format` messages included. Read with Python's ast (never executed). A slice holds files, each
after `=== path`.

What the launchers carry to the ranks they start (read from the same sources, deepspeed 0.19.8):
deepspeed/launcher/runner.py exports only the variables whose names start with EXPORT_ENVS
('MLFLOW', 'PYTHON', 'MV2', 'UCX') plus the accelerator's export_envs() ('NCCL' for CUDA,
accelerator/cuda_accelerator.py), and every KEY=VALUE line of ~/.deepspeed_env then ./.deepspeed_env
(DS_ENV_FILE renames the file; `key, val = var.split('=', maxsplit=1)`: a line without '=' stops the
launcher); the pdsh runner runs `export K=V; ...; cd <cwd>; <launching python> -u -m
deepspeed.launcher.launch ...` on each host (multinode_runner.py PDSHRunner.get_cmd), so PATH,
LD_LIBRARY_PATH, CUDA_HOME, HF_* and a conda/venv activation are not carried (--venv_script sources an
activation script first); openmpi passes the same set with -x, mvapich with -env, mpich/impi with
-genv, while the slurm runner passes `srun --export=ALL,...` (the whole environment). With no
--master_addr the master is the first address `ssh <first host> hostname -I` prints. accelerate
(utils/launch.py prepare_multi_gpu_env / prepare_deepspeed_cmd_env): main_process_port None is
29500; 0 is `get_free_port()` (accelerate >= 1.7.0, huggingface/accelerate#3501) picked on each
machine separately; before 1.7.0, 0 went to torchrun as --master_port 0.
"""

import ast
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_launcher_messages.py"
FILES = {  # globs under each root, read in this order
    "deepspeed": ["deepspeed/launcher/runner.py", "deepspeed/launcher/launch.py",
                  "deepspeed/launcher/multinode_runner.py", "deepspeed/launcher/launcher_helper.py", "op_builder/*.py"],
    "accelerate": ["accelerate/commands/launch.py", "accelerate/utils/launch.py", "accelerate/state.py",
                   "accelerate/commands/config/config_args.py"],
}
# pdsh (https://github.com/chaos/pdsh, GPL-2.0), DeepSpeed's default multi-node backend: its err()/errx()
# messages (src/common/err.c: %p = "pdsh@<this host>", %S = a host name, %m = strerror(errno))
PDSH_FILES = ["src/pdsh/main.c", "src/pdsh/mod.c", "src/pdsh/dsh.c", "src/pdsh/rcmd.c", "src/pdsh/wcoll.c",
              "src/common/pipecmd.c", "src/modules/sshcmd.c"]
# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning).
# A warning is assigned only by a rule that names the level "warning": the rest are context.
RULES = [
    # pdsh: progress and summary lines (-d, ^C) are no error; a remote command's exit is an echo of
    # that command's own error (exit code 255 is ssh's own failure: ssh.pdsh's hand-written pattern)
    ("pdsh-status", None, {"where": r"^src/", "text": r"\[(?:new|failed|done|canceled)\]|connecting|in progress|"
                                                     r"timeout in|interrupt|\^Z within|Connect time:|Command time:|Failures:|"
                                                     r"Canceled|sending signal|Didn't expect|history|"
                                                     r"warning: (?:Ignoring|target|file)|already loaded"}),
    ("pdsh-exit", "cascade.child_failed", {"where": r"^src/", "text": r"exited with|killed by signal|nonzero status|"
                                                                      r"terminating all processes"}),
    ("pdsh-unprefixed", None, {"where": r"^src/", "text": r"^(?!pdsh@)"}),
    ("pdsh", "pdsh.error", {"where": r"^src/"}),
    ("ds-opbuild-note", "deepspeed.ds_report_optional_ops", {"where": r"^op_builder/", "level": r"^warning$"}),
    ("ds-opbuild", "deepspeed.ops", {"where": r"^op_builder/", "level": r"raise|error"}),
    # runner.py fetch_hostfile(): no hostfile (default /job/hostfile) -> this node's GPUs only, a warning
    ("ds-no-hostfile", "deepspeed.no_hostfile", {"where": r"deepspeed", "text": r"^Unable to find hostfile",
                                                 "level": r"^warning$"}),
    ("ds-master-addr", "deepspeed.master_addr", {"where": r"deepspeed", "text": r"master address|hostname -I"}),
    ("ds-no-ssh", "deepspeed.launcher", {"where": r"deepspeed", "text": r"without ssh"}),
    ("ds-env", "deepspeed.remote_env", {"where": r"deepspeed", "text": r"deepspeed_env|environment"}),
    ("ds-ssh", "ssh.pdsh", {"where": r"deepspeed", "text": r"pdsh|ssh|passwordless"}),
    ("ds-hostfile", "deepspeed.launcher", {"where": r"deepspeed", "text": r"hostfile|slot|include|exclude|num_gpus|"
                                                                          r"num_nodes|resource|GPU|devices per node"}),
    ("ds-rank-exit", "cascade.child_failed", {"where": r"deepspeed", "text": r"exits with return code"}),
    ("ds-other", "launcher.deepspeed_error", {"where": r"deepspeed", "level": r"raise|error"}),
    ("acc-port", "rendezvous.address_in_use", {"where": r"accelerate", "text": r"port .*(?:in use|already|utilizing)",
                                               "level": r"raise|error"}),
    ("acc-master-env", "rendezvous.env_missing", {"where": r"accelerate", "text": r"`MASTER_ADDR` env was not set|"
                                                                                    r"MASTER_ADDR env not set"}),
    ("acc", "launcher.accelerate_error", {"where": r"accelerate", "level": r"raise|error"}),
]

# What one message means and what to do where its family's fix is too general (the first regex
# over the message that matches; sources: the code around each site, cited in `means`).
MSG_FIX = [
    (r'module path "%s" insecure|skipping insecure module',
     "pdsh/mod.c: pdsh loads its modules (rcmd/ssh, ...) only from a directory that, like every parent, is owned "
     "by root or pdsh's owner and not writable by group or others; the next line names the directory and why.",
     ["chmod go-w <the directory the next line names> (and its parents), or use the distribution's pdsh "
      "(apt-get install pdsh / dnf install pdsh pdsh-rcmd-ssh) instead of one installed under a shared prefix"]),
    (r"Couldn't load any pdsh modules|no modules found",
     "pdsh/main.c, mod.c: pdsh found no modules in its module directory (a pdsh copied without its lib/pdsh, or "
     "PDSH_MODULE_DIR pointing elsewhere).",
     ["reinstall pdsh from the distribution (apt-get install pdsh), or export PDSH_MODULE_DIR=<the folder with "
      "rcmd_ssh.so> on the node that runs deepspeed"]),
    (r"unable to initialize an rcmd module|Failed to initialize requested module|No rcmd module for",
     "pdsh/dsh.c, mod.c: pdsh has no working remote-command module for the type asked (DeepSpeed's runner sets "
     "PDSH_RCMD_TYPE=ssh: the ssh module is missing or failed to load).",
     ["install pdsh's ssh module (Debian/Ubuntu: the pdsh package; RHEL: pdsh-rcmd-ssh), then pdsh -R ssh -w <host> "
      "hostname must work from the node that runs deepspeed"]),
    (r'gethostbyname\("%s"\) failed',
     "pdsh/dsh.c: a host name of the hostfile (pdsh -w) does not resolve on the node that runs the launcher.",
     ["getent hosts {%2|<host>} on the launching node; fix the hostfile's names or /etc/hosts (DNS)"]),
    (r"execvp %s failed|exec cmd %s failed",
     "pdsh's pipecmd.c could not start the remote-shell program (ssh) on the launching node.",
     ["install the ssh client on the node that runs deepspeed (apt-get install openssh-client), and check "
      "PDSH_SSH_ARGS / PATH"]),
    (r"^Unable to detect suitable master address via",
     "deepspeed/launcher/runner.py: with no --master_addr the launcher runs `ssh <first host of the hostfile> "
     "hostname -I` and takes the first address; that command failed or printed nothing there.",
     ["deepspeed --hostfile hostfile --master_addr <IP of the first host on the network every node shares> ...",
      "ssh <first host> hostname -I   (what the launcher ran; some images have no `hostname -I`)"]),
    (r"was not reachable via ssh",
     "deepspeed/launcher/runner.py checks `ssh -o PasswordAuthentication=no <first host> hostname` before it "
     "starts pdsh: the launching node cannot log in to that host without a password.",
     ["ssh -o PasswordAuthentication=no {%2|<host>} hostname   (from the launching node, to every host of the hostfile)",
      "ssh-copy-id {%2|<host>} (or a key in ~/.ssh/authorized_keys of every node); one node only: remove the hostfile",
      "or start the ranks without ssh: deepspeed --launcher slurm (inside the allocation) / --no_ssh --node_rank N"]),
    (r"^launcher '%s' not installed",
     "deepspeed/launcher/multinode_runner.py backend_exists(): the chosen --launcher's tool is not on the launching "
     "node's PATH (pdsh: pdsh; openmpi: ompi_info; slurm: sinfo; mpich/impi: mpirun; mvapich: mpiname).",
     ["apt-get install pdsh (the default launcher), or pick one that exists: deepspeed --launcher slurm|openmpi ..."]),
    (r"^Unknown launcher",
     "deepspeed/launcher/runner.py: --launcher is one of pdsh, openmpi, mvapich, slurm, mpich, impi.",
     ["deepspeed --launcher pdsh|openmpi|mvapich|slurm|mpich|impi ..."]),
    (r"^Unable to proceed, no GPU resources available",
     "deepspeed/launcher/runner.py: no hostfile was found (default /job/hostfile) and this machine has no GPU: the "
     "launcher ran on a login or CPU node, or in a container started without GPUs.",
     ["run deepspeed on a GPU node (inside the allocation: srun --pty / sbatch), or give the nodes with "
      "--hostfile hostfile ('<host> slots=<GPUs>' lines)", "nvidia-smi -L on the node that runs the launcher"]),
    (r"^Num nodes is >1 but no extra nodes",
     "deepspeed/launcher/runner.py: --num_nodes > 1 needs a hostfile that lists the nodes (none was found).",
     ["deepspeed --hostfile hostfile --num_nodes N ... with one '<host> slots=<GPUs>' line per node"]),
    (r"requires same number of devices per node",
     "deepspeed/launcher/multinode_runner.py: the mpich/impi/mvapich runners start the same number of ranks per "
     "host (-ppn), so every hostfile line needs the same slots.",
     ["give every host the same slots= in the hostfile, or use --launcher pdsh|slurm"]),
    (r"backend does not support (?:worker include|limiting num)",
     "deepspeed/launcher/multinode_runner.py: the MPI runners take the whole hostfile; --include/--exclude/"
     "--num_nodes/--num_gpus work with pdsh (and slurm) only.",
     ["write the hosts and slots you want into the hostfile, or use --launcher pdsh"]),
    (r"^Hostfile contains a bad entry|^Hostfile is empty or not formatted correctly",
     "deepspeed/launcher/runner.py _parse_hostfile(): every line that is not empty or a '#' comment must match "
     "'^(\\S+)\\s+slots=(\\d+)' - a host name, blanks, slots=<GPUs> (Open MPI's 'max_slots=' or ':8' forms, "
     "'slots = 8' with blanks, or a bare host name are refused); the 'Bad hostfile text' line prints what was read.",
     ["write one line per node: '<hostname> slots=<GPUs on it>' (e.g. 'node01 slots=8'), '#' for comments; then "
      "deepspeed --hostfile <that file> ...", "under Slurm, from the allocation: scontrol show hostnames "
      "$SLURM_JOB_NODELIST | sed 's/$/ slots=8/' > hostfile"]),
    (r"^Hostfile contains multiple entries for",
     "deepspeed/launcher/runner.py _parse_hostfile(): each host may appear once; its slots= is the number of GPUs "
     "used on it.",
     ["keep one line per host (sort -u hostfile), with slots= set to that host's GPU count"]),
    (r"^include_str and exclude_str are mutually exclusive|^Cannot specify num_nodes/gpus with include/exclude",
     "deepspeed/launcher/runner.py: --include and --exclude cannot be combined, nor either with --num_nodes / "
     "--num_gpus (they select from the hostfile in different ways).",
     ["keep one selection: --include 'node01:0,1@node02' (host[:GPU,GPU][@host...]) or --exclude 'node03', or "
      "--num_nodes/--num_gpus alone"]),
    (r"^Hostname '%s' not found in hostfile|^No slot '%s' specified on host '%s'",
     "deepspeed/launcher/runner.py parse_resource_filter(): the --include/--exclude NODE_SPEC (host[:slot,slot]"
     "[@host...]) names a host that is not in the hostfile, or a GPU index not below that host's slots=.",
     ["use the hostfile's own host names (as written there) and GPU indices 0..slots-1 in --include/--exclude"]),
    (r"^You can only use one of `--cpu`, `--multi_gpu`, `--tpu`, `--use_deepspeed`, `--use_fsdp` at a time",
     "accelerate/commands/launch.py _validate_launch_command(): those flags each pick the distributed type; more "
     "than one was given (on the command line, next to what the config file sets).",
     ["pass one of them (DeepSpeed and FSDP already run on several GPUs: --use_deepspeed --num_processes N, not "
      "--multi_gpu too), or set distributed_type in the config (accelerate config) and pass none"]),
    (r"^Less than two GPU ids were configured and tried to run on (?:on )?multiple GPUs",
     "accelerate/commands/launch.py: --multi_gpu (or a MULTI_GPU config) on one machine with gpu_ids naming fewer "
     "than two GPUs.",
     ["accelerate launch --multi_gpu --gpu_ids all (or --gpu_ids 0,1,...) --num_processes <that many> ..., or drop "
      "--multi_gpu for one GPU; check gpu_ids in the config file (accelerate env shows it)"]),
    (r"^You need to manually pass in `--num_processes` using this config yaml",
     "accelerate/commands/launch.py: the config file says num_processes: -1 (no count), so the launch needs one.",
     ["accelerate launch --num_processes <total processes over all machines, usually GPUs per node x nodes> ..., or "
      "set num_processes in the config"]),
    (r"^When using multiple machines, you need to specify the main process IP",
     "accelerate/utils/launch.py: num_machines > 1 needs main_process_ip (the address of machine_rank 0).",
     ["accelerate launch --num_machines N --machine_rank R --main_process_ip <IP of machine 0> --main_process_port "
      "<free port, the same on every machine> ... (or main_process_ip in each machine's config)"]),
    (r"^When using multiple machines, you need to specify the main process port",
     "accelerate/utils/launch.py: num_machines > 1 needs main_process_port, the same fixed port on every machine.",
     ["accelerate launch ... --main_process_port 29500 (a free port, not 0: with 0 each machine picks its own)"]),
    (r"^Launching training without ssh, but --node_rank",
     "deepspeed/launcher/runner.py: with --no_ssh the launcher is started on every node by you (or your scheduler) "
     "and each needs its own --node_rank, 0 <= node_rank < the number of hosts in the hostfile.",
     ["on node i: deepspeed --hostfile hostfile --no_ssh --node_rank i --master_addr <node 0's IP> ... "
      "(under Slurm: --node_rank $SLURM_NODEID)"]),
    (r"`MASTER_ADDR` env was not set|MASTER_ADDR env not set",
     "accelerate/state.py: the processes were started without accelerate launch / torchrun on several nodes "
     "(e.g. srun or mpirun directly) and MASTER_ADDR is not in their environment.",
     ["export MASTER_ADDR=<rank 0's host reachable from every node> (Slurm: $(scontrol show hostnames "
      "$SLURM_JOB_NODELIST | head -n1)) and MASTER_PORT before the step, or start with accelerate launch"]),
    (r"^Using RTX 4000 series doesn't support",
     "accelerate/state.py: this GPU and driver (RTX 40xx on an older driver: utils/environment.py "
     "check_cuda_p2p_ib_support) cannot use P2P or InfiniBand, and NCCL would hang or fail.",
     ["export NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 (accelerate launch sets both itself)"]),
    (r"^You need to use at least 2 processes to use `--multi_gpu`",
     "accelerate/commands/launch.py: --multi_gpu (distributed_type MULTI_GPU) with num_processes 1.",
     ["accelerate launch --multi_gpu --num_processes <GPUs> ..., or drop --multi_gpu for one process"]),
]


# More rows (issue 18): DeepSpeed's op builder (op_builder/builder.py, async_io.py, evoformer_attn.py;
# https://www.deepspeed.ai/tutorials/advanced-install/), its launcher (runner.py, launch.py,
# multinode_runner.py, launcher_helper.py; https://www.deepspeed.ai/getting-started/#resource-configuration-multi-node),
# accelerate's launch-time validation (commands/launch.py, utils/launch.py, state.py, commands/config/config_args.py;
# https://huggingface.co/docs/accelerate/basic_tutorials/launch) and pdsh (src/pdsh/*.c).
MSG_FIX += [
    (r"^CUDA_HOME does not exist, unable to compile CUDA op",
     "op_builder/builder.py installed_cuda_version(): torch.utils.cpp_extension found no CUDA toolkit (CUDA_HOME "
     "unset and no nvcc on PATH or in /usr/local/cuda), so DeepSpeed cannot build its CUDA ops (JIT or "
     "DS_BUILD_OPS=1); the pip wheels of torch carry the CUDA runtime, not nvcc.",
     ["install the CUDA toolkit of torch's CUDA version (python -c 'import torch; print(torch.version.cuda)'; "
      "conda install -c nvidia cuda-toolkit=<that version>, or the system package), then export "
      "CUDA_HOME=<its prefix, e.g. /usr/local/cuda-12.4> PATH=$CUDA_HOME/bin:$PATH",
      "or use ops that need no build: pip install deepspeed without DS_BUILD_*; ds_report shows what is compatible"]),
    (r"^Unable to run %s, unable to compile CUDA op",
     "op_builder/builder.py installed_cuda_version(): CUDA_HOME points at a folder without a working bin/nvcc (a "
     "runtime-only CUDA, e.g. the nvidia-* pip wheels or a container's base image).",
     ["$CUDA_HOME/bin/nvcc -V must work: install the toolkit (cuda-nvcc / cuda-toolkit of torch's CUDA version) or "
      "point CUDA_HOME at a full one (a -devel container image)"]),
    (r"Installed CUDA version %s does not match the version torch was compiled with",
     "op_builder/builder.py assert_no_cuda_mismatch(): nvcc under CUDA_HOME has another major.minor than "
     "torch.version.cuda (minor differences within CUDA 11 or 12 are accepted), and extensions built with it would "
     "not load.",
     ["point CUDA_HOME at the toolkit of torch's CUDA (both numbers are in the message), or install the torch wheel "
      "for that CUDA (https://pytorch.org/get-started/locally/)",
      "DS_SKIP_CUDA_CHECK=1 skips the check at your own risk"]),
    (r"^PyTorch version mismatch! DeepSpeed ops were compiled",
     "op_builder/builder.py validate_torch_version(): the prebuilt ops (DS_BUILD_OPS=1 install) were compiled "
     "against another torch major.minor than the one running; the message prints both.",
     ["pip uninstall deepspeed; then reinstall it with the torch you use now (DS_BUILD_OPS=1 pip install deepspeed "
      "--no-build-isolation, or without DS_BUILD_* to JIT-build the ops), or install the torch version it names"]),
    (r"^(?:CUDA|HIP) version mismatch! DeepSpeed ops were compiled",
     "op_builder/builder.py validate_torch_op_version(): the prebuilt ops were compiled for another CUDA (HIP) "
     "major.minor than the running torch's.",
     ["reinstall deepspeed built against this torch (pip install --force-reinstall --no-cache-dir deepspeed with "
      "DS_BUILD_OPS=1, or without DS_BUILD_* for JIT builds), or the torch of the CUDA it names"]),
    (r"^Unable to JIT load the %s op due to ninja not being installed",
     "op_builder/builder.py jit_load(): DeepSpeed builds the op at first use with torch.utils.cpp_extension, which "
     "needs the ninja build tool on PATH.",
     ["pip install ninja in the job's environment (ninja --version must work on every node)"]),
    (r"^Unable to JIT load the %s op due to it not being compatible",
     "op_builder/builder.py jit_load(): the op's is_compatible() failed (ds_report shows [NO] in 'compatible' and "
     "warnings above say why: missing libaio, CUDA too old, GPU too old, torch missing).",
     ["ds_report   (the [WARNING] lines name what the op needs: e.g. apt-get install libaio-dev for async_io); or "
      "leave the feature off"]),
    (r"cannot probe CUDA device capabilities in a forked subprocess",
     "op_builder/builder.py jit_load(): the op is built in a process forked after CUDA was initialised (a "
     "DataLoader worker, multiprocessing fork), where torch cannot query the GPUs' compute capability.",
     ["export TORCH_CUDA_ARCH_LIST=\"8.0;9.0\" (your GPUs' compute capabilities), or build the op in the main "
      "process first / pre-build with DS_BUILD_<OP>=1"]),
    (r"found no CUDA devices\. Set TORCH_CUDA_ARCH_LIST or make GPUs visible",
     "op_builder/builder.py jit_load(): the JIT build probes the visible GPUs for their compute capability and sees "
     "none (a login node, CUDA_VISIBLE_DEVICES empty, a container without GPUs).",
     ["build on a GPU node, or export TORCH_CUDA_ARCH_LIST=\"8.0;9.0\" (the target GPUs' capabilities) before the "
      "build"]),
    (r"^Unable to load %s op due to no compute capabilities remaining after filtering",
     "op_builder/builder.py: every compute capability in TORCH_CUDA_ARCH_LIST (or the GPUs') is below what this op "
     "supports (filter_ccs: e.g. Ampere and newer for some inference ops).",
     ["set TORCH_CUDA_ARCH_LIST to capabilities the op supports (8.0+ for most), or run on such GPUs"]),
    (r"^%s: please install the %s package with %s|requires the dev libaio \.so object and headers|If libaio is "
     r"already installed \(perhaps from source\)",
     "op_builder/async_io.py: ds_report's async_io (and gds) op needs libaio's headers and library to build; it is "
     "used only by ZeRO-Infinity NVMe offload / DeepNVMe. A report with these warnings is healthy for training "
     "without NVMe offload.",
     ["only for offload to NVMe: apt-get install libaio-dev (dnf install libaio-devel), or with a libaio built "
      "elsewhere export CFLAGS=-I<prefix>/include LDFLAGS=-L<prefix>/lib; then ds_report shows async_io [OKAY]"]),
    (r"^Unable to locate CUTLASS|^CUTLASS_PATH %s does not contain CUTLASS headers|^Please pip install nvidia-cutlass|"
     r"^Unable to locate CUTLASS from the nvidia-cutlass",
     "op_builder/evoformer_attn.py: the Evoformer attention op (DS4Sci) compiles against CUTLASS headers.",
     ["pip install nvidia-cutlass, or export CUTLASS_PATH=<a CUTLASS >= 3.1 checkout>"]),
    (r"^slurm backend cannot select specific device ids|^slurm backend needs the same slot count on every host|"
     r"^slurm backend does not support remapping visible devices",
     "deepspeed/launcher/multinode_runner.py SlurmRunner: srun places tasks by count, so --include/--exclude of "
     "single GPUs, different slots per host, or visible-device remapping cannot be honoured.",
     ["filter whole hosts only (or keep the first N GPUs on every host), or request the GPUs from Slurm (--gpus-per-"
      "node) instead of filtering; or --launcher pdsh"]),
    (r"^rank number doesn't match!|^rank number is not in current env!|^local_rank number doesn't match!",
     "deepspeed/launcher/launcher_helper.py env_mapping(): launcher_helper (the mpich/impi runners) reads RANK / "
     "LOCAL_RANK from the MPI launcher's variables (PMI_RANK, MPI_LOCALRANKID, ...); none was set, or two disagree.",
     ["start it through mpirun/mpiexec of the MPI the runner names (deepspeed --launcher mpich|impi), not directly; "
      "check that the MPI's mpirun is the one on PATH"]),
    (r"should not be a file, it should be a directory\.$|^unable to create directory %s for each rank log",
     "deepspeed/launcher/launch.py: --enable_each_rank_log names a file, or a folder that cannot be created.",
     ["--enable_each_rank_log <a writable folder on every node>"]),
    (r"^pid file exists but shouldn't",
     "deepspeed/launcher/launch.py: --save_pid found /tmp/<name>.deepspeed left by an earlier launcher.",
     ["rm /tmp/<name>.deepspeed (or another --save_pid name)"]),
    (r"^Don't use both the '--no_python' flag and the '--module' flag|^--module and --no_python cannot be used "
     r"together",
     "the launcher's --module runs python -m <script>; --no_python runs the script as a program: one or the other.",
     ["drop one of --module / --no_python"]),
    (r"^DeepSpeed is not installed => run `pip3 install deepspeed`|^DeepSpeed is not available => install it",
     "accelerate: distributed_type DEEPSPEED (--use_deepspeed or the config) but deepspeed cannot be imported in "
     "this environment (on this node).",
     ["pip install deepspeed in the environment the ranks run in (every node); python -c 'import deepspeed' must "
      "work"]),
    (r"^Your assigned backend %s is not available, please use",
     "accelerate/state.py: the backend asked for (InitProcessGroupKwargs / --backend) is not available here (nccl "
     "with a CPU-only torch, or no GPU).",
     ["use the backend the message proposes, or install torch's CUDA build for nccl"]),
    (r"^mpirun or mpiexec were not found",
     "accelerate/utils/launch.py: multi-CPU launch (--mpirun_hostfile) runs mpirun, and none is on PATH.",
     ["install Open MPI / Intel MPI / MVAPICH (or put its bin on PATH), or launch CPU training with torchrun"]),
    (r"^Tried to launch distributed communication on port `%s`, but another process is utilizing it",
     "accelerate/utils/launch.py: main_process_port is in use on this machine (a previous run still alive, or "
     "another job on the node).",
     ["accelerate launch --main_process_port <another port> ... (the same on every machine); single node: 0 picks a "
      "free one", "ss -ltnp | grep {%1|<port>}   (who holds it)"]),
    (r"^When using `--fsdp_cpu_ram_efficient_loading` set `--fsdp_sync_module_states` to `True`",
     "accelerate/utils/launch.py: with cpu_ram_efficient_loading only rank 0 loads the weights; the others get them "
     "through sync_module_states.",
     ["accelerate launch ... --fsdp_cpu_ram_efficient_loading true --fsdp_sync_module_states true (or both in the "
      "config)"]),
    (r"^`cp_size > 1` specified in the `parallelism_config`, but no `fsdp_plugin`|^Using `cp_size>1` requires FSDP2|"
     r"^You cannot use `--use_parallelism_config` without `--use_fsdp`",
     "accelerate/state.py / commands/launch.py: context parallelism (cp_size > 1, cp_backend torch) shards the "
     "model with FSDP2.",
     ["accelerate launch --use_fsdp --fsdp_version 2 --use_parallelism_config ... (fsdp_version: 2 in the config)"]),
    (r"^Unknown dynamo backend",
     "accelerate/utils/launch.py: --dynamo_backend is not one of torch._dynamo's backends (the message lists them).",
     ["accelerate launch --dynamo_backend no|inductor ... (dynamo_config in the accelerate config)"]),
    (r"^Unknown mixed_precision mode: %s\. Choose between",
     "accelerate/utils/launch.py: --mixed_precision (or the config's mixed_precision) is not no, fp16, bf16 or fp8.",
     ["accelerate launch --mixed_precision bf16|fp16|no ..."]),
    (r"^bf16 mixed precision requires PyTorch >= 1\.10 and a supported device",
     "accelerate/commands/launch.py: --mixed_precision bf16 and the GPU of the launching node has no bf16 "
     "(accelerate/utils/imports.py is_bf16_available(): torch.cuda.is_bf16_supported() False, a GPU below compute "
     "capability 8.0); a machine without a GPU passes this check.",
     ["python -c 'import torch; print(torch.cuda.get_device_name(), torch.cuda.is_bf16_supported())'; on V100/T4 "
      "use --mixed_precision fp16"]),
    (r"^FP8 is not available on this machine|^Using `fp8` precision requires",
     "accelerate: --mixed_precision fp8 needs transformer-engine, MS-AMP or torchao installed (and an FP8 GPU).",
     ["pip install torchao (or transformer_engine[pytorch]), or --mixed_precision bf16"]),
    (r"^nossh launcher requires DeepSpeed >= 0\.14\.5",
     "accelerate/utils/launch.py: deepspeed_multinode_launcher nossh uses DeepSpeed's --no_ssh, added in 0.14.5.",
     ["pip install -U 'deepspeed>=0.14.5', or another deepspeed_multinode_launcher (pdsh, standard)"]),
    (r"^Your training script should have a function named %s",
     "accelerate/commands/launch.py (TPU): --main_training_function names a function the script does not define.",
     ["--main_training_function <the function that trains> (default main)"]),
    (r"^The passed configuration file `%s` does not exist",
     "accelerate/commands/config/config_args.py: --config_file names {%1|a missing file} (a relative path from another "
     "working directory, or a node where it was never written).",
     ["accelerate launch --config_file <absolute path present on every node> ..., or run accelerate config there "
      "(default ~/.cache/huggingface/accelerate/default_config.yaml)"]),
    (r"^A `distributed_type` must be specified in the config file",
     "accelerate/commands/config/config_args.py: the accelerate YAML/JSON has no distributed_type key.",
     ["add distributed_type: MULTI_GPU (NO, DEEPSPEED, FSDP, ...) to the config, or regenerate it with accelerate "
      "config"]),
    (r"^The config file at %s had unknown keys",
     "accelerate/commands/config/config_args.py: the config has keys this accelerate does not know (written by a "
     "newer accelerate, or misspelled).",
     ["pip install -U accelerate to the release that wrote the config, or delete {%2|the keys the message lists}"]),
    (r"Unable to read HOME env var|Unable to open %s/\.pdsh: path too long|Unable to create ~/\.pdsh|Couldn't find "
     r"~/\.pdsh|~/\.pdsh exists but is not a directory",
     "pdsh/main.c: pdsh keeps per-user state in ~/.pdsh and could not use it (HOME unset in a scheduler's "
     "environment, a read-only home, or a file named .pdsh).",
     ["export HOME=<a writable home> before deepspeed; rm ~/.pdsh if it is a file"]),
    (r"Can't load %s: %s|error: %s/%s failed to initialize|can't resolve pdsh module",
     "pdsh/mod.c: a pdsh module (rcmd_ssh, ...) failed to load or initialise; the message gives the dlopen error.",
     ["reinstall pdsh from the distribution (its modules must match the binary); pdsh -L lists the modules it loads"]),
    (r"Can't stat root directory|Can't stat \"%s\"|Unable to determine ownership of pdsh binary|Path too long while "
     r"checking permissions",
     "pdsh/mod.c: pdsh checks the owner and permissions of its module directory and its parents before loading "
     "modules, and could not.",
     ["use a pdsh installed by the distribution under /usr, with root-owned, not group/other-writable directories"]),
    (r": %s: command timeout$",
     "pdsh/dsh.c: the remote command ran longer than pdsh's -u timeout (DeepSpeed sets none by default; "
     "PDSH_ARGS_APPEND may).",
     ["remove -u from PDSH_ARGS_APPEND (or raise it) for training runs"]),
]

MSG_FIX += [
    (r"^The `PartialState` or `Accelerator` must be initialized before calling this function|^Please make sure to "
     r"properly initialize your accelerator via",
     "accelerate/state.py: a function that reads the distributed state (process index, device, ...) ran before any "
     "Accelerator() / PartialState() was created in this process (at import time, in a DataLoader worker, or in a "
     "script started without it).",
     ["create accelerator = Accelerator() (or PartialState()) at the start of main(), before the code that calls the "
      "function"]),
    (r"^Your training script should be a python script and not",
     "accelerate/utils/launch.py (SageMaker): the training script must be a .py file.",
     ["pass the .py script (a shell script: run its python command in it instead)"]),
]


def _op_builder_warning(node, path):
    """deepspeed's OpBuilder.warning (op_builder/builder.py: print(f"{WARNING} {msg}")): (level, message node)."""
    if path.startswith("op_builder/") and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "warning" and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" \
            and node.args:
        return "warning", node.args[0]
    return None, None


_C_CALL = re.compile(r'\b(errx?)\s*\(\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
_C_STR = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_C_ESC = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def c_sites_of(path, src):
    """pdsh's err()/errx() calls whose first argument is a string literal (concatenated literals
    joined, C escapes decoded); pdsh's own conversions (src/common/err.c) become printf ones."""
    for m in _C_CALL.finditer(src):
        text = "".join(re.sub(r"\\(.)", lambda e: _C_ESC.get(e.group(1), e.group(1)), lit)
                       for lit in _C_STR.findall(m.group(2)))
        fmt = text.replace("%%", "\0").replace("%p", "pdsh@%s").replace("%S", "%s").replace("%m", "%s")
        fmt = " ".join(fmt.replace("\0", "%%").split())
        if fmt:
            yield "error", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


def sites_of(path, src):
    if path.endswith(".c"):
        yield from c_sites_of(path, src)
        return
    for level, line, fmt in knowgen.py_messages(src, lambda node: _op_builder_warning(node, path)):
        yield level, "%s:%d" % (path, line), fmt


# A long message of several sentences (accelerate/utils/launch.py's port message: one sentence saying what
# happened, then two of advice) is often pasted cut short (huggingface/accelerate#2955 stops at 'To
# automatically use the next open po'): its matcher ends after the first sentence when that sentence alone
# has FIRST_SENTENCE_LITERAL characters of literal text. Another site whose first sentence is the same
# (an older release's wording of the advice) keeps its whole text.
LONG_FORMAT, FIRST_SENTENCE_LITERAL = 160, 40


def _first_sentence(fmt, rx, literal, taken):
    if len(fmt) <= LONG_FORMAT:
        return rx, literal
    m = re.search(r"[.!?]\s+(?=[A-Z`'\"(])", fmt)
    if not m:
        return rx, literal
    first_rx, first_literal = knowgen.printf_to_regex(fmt[:m.start() + 1])
    if len("".join(first_literal.split())) < FIRST_SENTENCE_LITERAL or first_rx in taken:
        return rx, literal
    taken.add(first_rx)
    return first_rx, first_literal


def build(files, version):
    sites, seen, taken = [], set(), set()
    for path, src in files:
        m = re.match(r"older/([a-z]+)-([^/]+)/(.+)$", path)
        for level, where, fmt in sorted(sites_of(m.group(3) if m else path, src),
                                        key=lambda s: int(s[1].rsplit(":", 1)[1])):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = _first_sentence(fmt, *knowgen.printf_to_regex(fmt), taken)
            site = {"id": "launcher.%s%s" % ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "",
                                             knowgen.slug(where)),
                    "where": where, "level": level, "text": fmt}
            if m:  # printed by that older release only (the current one reworded or dropped it)
                site["older"] = "%s %s" % (m.group(1), m.group(2))
            least = knowgen.MIN_LITERAL if where.startswith("src/") else 12  # pdsh's lines carry "pdsh@"
            if knowgen.unanchored(site, rx, literal, least):
                sites.append(site)
                continue
            fields = {"where": where, "text": fmt, "level": level}
            rules = RULES if level != "warning" else [r for r in RULES if "warning" in r[2].get("level", "")]
            rule, family = knowgen.assign(rules, site, fields)
            if family is None and level == "warning":
                rule = "a warning, not an error"
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("deepspeed (https://pypi.org/project/deepspeed/) launcher and op builder "
                                     "modules, accelerate (https://pypi.org/project/accelerate/) launcher modules "
                                     "and pdsh (https://github.com/chaos/pdsh) messages",
                                     version, GENERATOR),
            "sites": sites}


def read_roots(deepspeed, accelerate):
    files = []
    for root, globs in ((deepspeed, FILES["deepspeed"]), (accelerate, FILES["accelerate"])):
        for g in globs:
            names = sorted(glob.glob(os.path.join(root, g)))
            if not names:
                raise SystemExit("%s: no file %s (the layout changed?)" % (root, g))
            for n in names:
                with open(n) as f:
                    files.append((os.path.relpath(n, root), f.read()))
    return files


def release_of(deepspeed, accelerate):
    """"deepspeed X, accelerate Y" from the sdist's PKG-INFO and the wheel's dist-info METADATA."""
    ds = knowgen.package_version([os.path.join(deepspeed, "PKG-INFO")])
    acc = knowgen.package_version(sorted(glob.glob(os.path.join(accelerate, "accelerate-*.dist-info", "METADATA"))))
    return "deepspeed %s, accelerate %s" % (ds, acc)


def read_older_accelerate(repo, rev):
    """FILES["accelerate"] of an older accelerate, at ``rev`` of a git directory of huggingface/accelerate
    (the package under src/), as 'older/accelerate-<version>/<path>'; and "accelerate <version> (commit <sha>)"."""
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev + "^{commit}").strip()
    version = rev[1:] if rev.startswith("v") else rev
    files = [("older/accelerate-%s/%s" % (version, g), git("show", "%s:src/%s" % (commit, g))) for g in FILES["accelerate"]]
    return files, "accelerate %s (commit %s)" % (version, commit)


def read_pdsh(repo, rev):
    """PDSH_FILES at a commit of a pdsh git directory, and "pdsh <git describe> (commit <sha>)"."""
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev + "^{commit}").strip()
    described = git("describe", "--tags", "--always", rev).strip()
    return [(p, git("show", "%s:%s" % (commit, p))) for p in PDSH_FILES], \
        "pdsh %s (commit %s)" % (described.replace("pdsh-", "", 1), commit)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("deepspeed", "accelerate", "pdsh"), source_opts={
        "deepspeed": {"help": "the unpacked deepspeed sdist (the folder with deepspeed/ and op_builder/)"},
        "accelerate": {"help": "the unpacked accelerate wheel (the folder that holds accelerate/)"},
        "pdsh": {"help": "a git directory of https://github.com/chaos/pdsh (e.g. fetched)"}}, extra=[
        ("--pdsh-rev", {"default": "HEAD"}),
        ("--older-accelerate", {"help": "a git directory of https://github.com/huggingface/accelerate: the messages "
                                        "--older-accelerate-rev printed that the current release no longer does"}),
        ("--older-accelerate-rev", {"default": "v0.27.2"}),
        ("--version", {"default": "", "help": 'default: read from PKG-INFO and the dist-info METADATA, '
                                              'e.g. "deepspeed 0.19.8, accelerate 1.15.0"'})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        pdsh_files, pdsh_version = read_pdsh(a.pdsh, a.pdsh_rev)
        files = read_roots(a.deepspeed, a.accelerate) + pdsh_files
        version = a.version or "%s, %s" % (release_of(a.deepspeed, a.accelerate), pdsh_version)
        if a.older_accelerate:
            older, older_version = read_older_accelerate(a.older_accelerate, a.older_accelerate_rev)
            files += older
            version += "; older: " + older_version
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("launcher_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
