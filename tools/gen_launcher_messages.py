#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/launcher_messages.json: the errors and warnings the
DeepSpeed and accelerate launchers (and DeepSpeed's op builders, which ds_report and JIT builds
run) raise or print, each with a bounded matcher and the knowledge family from the RULES table
below; MSG_FIX gives a message its own meaning and fix where its family's is too general.

Usage:
    pip download --no-deps deepspeed accelerate -d /tmp/pyl   (unpack the sdist / wheel)
    python tools/gen_launcher_messages.py --deepspeed /tmp/pyl/ds/deepspeed-X --accelerate /tmp/pyl/acc \\
        --pdsh <a git directory of chaos/pdsh> [--pdsh-rev REV] [-o OUT]
        (the releases are read from the sdist's PKG-INFO, the wheel's METADATA and `git describe`)
    python tools/gen_launcher_messages.py --slice tools/data/launcher_messages_slice.txt -o OUT   (the test)

Sources: deepspeed (https://pypi.org/project/deepspeed/, sdist) deepspeed/launcher/*.py and
op_builder/*.py; accelerate (https://pypi.org/project/accelerate/, wheel) accelerate/commands/launch.py,
accelerate/utils/launch.py, accelerate/state.py, accelerate/commands/config/config_args.py; pdsh
(https://github.com/chaos/pdsh, at a commit) PDSH_FILES below: its err()/errx() format strings.
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
    ("acc-master-env", "rendezvous.env_missing", {"where": r"accelerate", "text": r"`MASTER_ADDR` env was not set"}),
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
     ["getent hosts <host> on the launching node; fix the hostfile's names or /etc/hosts (DNS)"]),
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
     ["ssh -o PasswordAuthentication=no <host> hostname   (from the launching node, to every host of the hostfile)",
      "ssh-copy-id <host> (or a key in ~/.ssh/authorized_keys of every node); one node only: remove the hostfile",
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
    (r"^Less than two GPU ids were configured and tried to run on multiple GPUs",
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
    (r"`MASTER_ADDR` env was not set",
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


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for level, where, fmt in sorted(sites_of(path, src), key=lambda s: int(s[1].rsplit(":", 1)[1])):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "launcher.%s" % knowgen.slug(where), "where": where,
                    "level": level, "text": fmt}
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


def read_pdsh(repo, rev):
    """PDSH_FILES at a commit of a pdsh git directory, and "pdsh <git describe> (commit <sha>)"."""
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev).strip()
    described = git("describe", "--tags", "--always", rev).strip()
    return [(p, git("show", "%s:%s" % (commit, p))) for p in PDSH_FILES], \
        "pdsh %s (commit %s)" % (described.replace("pdsh-", "", 1), commit)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("deepspeed", "accelerate", "pdsh"), source_opts={
        "deepspeed": {"help": "the unpacked deepspeed sdist (the folder with deepspeed/ and op_builder/)"},
        "accelerate": {"help": "the unpacked accelerate wheel (the folder that holds accelerate/)"},
        "pdsh": {"help": "a git directory of https://github.com/chaos/pdsh (e.g. fetched)"}}, extra=[
        ("--pdsh-rev", {"default": "HEAD"}),
        ("--version", {"default": "", "help": 'default: read from PKG-INFO and the dist-info METADATA, '
                                              'e.g. "deepspeed 0.19.8, accelerate 1.15.0"'})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        pdsh_files, pdsh_version = read_pdsh(a.pdsh, a.pdsh_rev)
        files = read_roots(a.deepspeed, a.accelerate) + pdsh_files
        version = a.version or "%s, %s" % (release_of(a.deepspeed, a.accelerate), pdsh_version)
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("launcher_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
