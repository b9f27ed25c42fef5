#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/placement_messages.json: the checks with which launchers and inference
runtimes refuse a job started with another process count or placement than the one its model, engine or hosts were
made for -- TensorRT-LLM's engine world size against the MPI world size, Meta's reference Llama runner's checkpoint
shards against torchrun's world size, fairscale's model-parallel size against the world size, and ColossalAI's
`colossalai run` starting torchrun on each host over ssh with the launching shell's environment exported.

Read from the sources, never executed: every `raise X("...")`, `assert ..., "..."`, logger .error / .warning call
(tools/knowgen.py py_messages) and, in ColossalAI's launcher, `click.echo(...)` (how `colossalai run` reports: an
'Error: ...' echo is an error, the rest context). Each message becomes a bounded matcher assigned to a knowledge
family (knowledge/placement.toml) by RULES; MSG_FIX gives a message its meaning and a fix that names the counts the
message prints ({%N|...} slots: explain/slots.py). A raise no rule assigns is listed, never guessed.

Usage:
    python tools/gen_placement_messages.py --colossalai <git dir of hpcaitech/ColossalAI> \\
        --llama <git dir of meta-llama/llama> --fairscale <git dir of facebookresearch/fairscale> \\
        --mii <git dir of deepspeedai/DeepSpeed-MII> --verl <git dir of volcengine/verl> \\
        --trtllm <git dir of NVIDIA/TensorRT-LLM> | --trtllm-blocks FILE  [--record tools/data/placement_messages_slice.txt]
        (revisions: --colossalai-rev v0.5.1 --colossalai-older-rev v0.2.0 --llama-rev HEAD --fairscale-rev v0.4.13
        --trtllm-rev / --trtllm-older-rev: the commits TRTLLM_FILES names)
    python tools/gen_placement_messages.py --slice tools/data/placement_messages_slice.txt -o OUT   (the test)

Sources (each at the revision its header records):
- hpcaitech/ColossalAI (https://github.com/hpcaitech/ColossalAI, Apache-2.0) colossalai/cli/launcher/{run,
  multinode_runner,hostinfo}.py and colossalai/initialize.py at v0.5.1; the launcher of v0.2.0 (older: it printed
  'Error: failed to run %s on %s' with nothing after the host, the form 2023 threads quote; v0.2.1 added ', is
  localhost: %s, exception: %s', hpcaitech/ColossalAI#2442). run.py launch_multi_processes() copies every variable
  of the launching shell's environment that has a value and no line break, and multinode_runner.py run_on_host()
  runs the torchrun command on each host through fabric.Connection (ssh; the local host too, fab_conn.local) under
  `export K="V" ...` of all of them (fab_conn.prefix): a name bash refuses stops the export on every host, and a
  remote host needs ssh that logs in without a password (fabric/paramiko: keys, ~/.ssh/config).
- meta-llama/llama (https://github.com/meta-llama/llama) llama/generation.py: Llama.build() takes the
  model-parallel size from WORLD_SIZE (torchrun's --nproc_per_node x nodes) and asserts it equals the number of
  consolidated.*.pth shards ('Loading a checkpoint for MP=%s but world size is %s'; the README: MP 1 for 7B, 2 for
  13B, 8 for 70B).
- facebookresearch/fairscale (https://github.com/facebookresearch/fairscale) fairscale/nn/model_parallel/
  {initialize,utils}.py at v0.4.13: initialize_model_parallel() takes min(model_parallel_size, world_size) and
  ensure_divisibility() asserts '%s is not divisible by %s' (world size, model-parallel size) -- words that
  Megatron's and vLLM's helpers print too, so no family by its words alone (knowledge/placement.toml reads it under
  fairscale's own frame).
- deepspeedai/DeepSpeed-MII (https://github.com/deepspeedai/DeepSpeed-MII, Apache-2.0) mii/config.py at v0.3.3:
  _allocate_devices() puts each replica's tensor_parallel GPUs on one host of the hostfile ('Only able to place %s
  replicas, but %s replicas were requested.').
- volcengine/verl (https://github.com/volcengine/verl, Apache-2.0) verl/trainer/ppo/ray_trainer.py at v0.7.0: the
  trainer's check of the Ray cluster's GPUs against its resource pools ('Total available GPUs %s is less than total
  desired GPUs %s').
- NVIDIA/TensorRT-LLM (https://github.com/NVIDIA/TensorRT-LLM, Apache-2.0) TRTLLM_FILES: the engine's world size
  (tensor_parallel x pipeline_parallel of its config.json) against MPI's (mpi_world_size(): the ranks mpirun
  started; 1 under plain python). Its repository (2.5 GB) was not fetched here: --trtllm-blocks reads the
  statements of TRTLLM_FILES at their commits as a slice ('=== path @line' blocks, '#! version' line).
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_placement_messages.py"
COLOSSALAI_FILES = ["colossalai/cli/launcher/run.py", "colossalai/cli/launcher/multinode_runner.py",
                    "colossalai/cli/launcher/hostinfo.py", "colossalai/initialize.py"]
COLOSSALAI_OLDER_FILES = ["colossalai/cli/launcher/run.py", "colossalai/cli/launcher/multinode_runner.py"]
LLAMA_FILES = ["llama/generation.py"]
FAIRSCALE_FILES = ["fairscale/nn/model_parallel/initialize.py", "fairscale/nn/model_parallel/utils.py"]
MII_FILES = ["mii/config.py"]
VERL_FILES = ["verl/trainer/ppo/ray_trainer.py"]
# (path, which revision: current or older 0.5); the v0.5 examples' runners (examples/<model>/run.py) all carry
# the same assert, llama's stands for them
TRTLLM_FILES = [("tensorrt_llm/runtime/model_runner.py", "current"), ("examples/llama/run.py", "older")]

WORLD = r"[Ww]orld size|world_size|Runtime world size"
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level (raise | error | echo | warning).
# The first that matches wins; a warning is context only (wheelmsgs.site_for).
RULES = [
    # shared helper words (fairscale utils.ensure_divisibility, and Megatron's, vLLM's, SGLang's): no library named
    ("shared-helper", None, {"text": r"^%s is not divisible by %s$"}),
    ("internal", None, {"text": r"already initialized|is not initialized|^no checkpoint files found|"
                                r"is not found in the current connections"}),
    # the process count against the size the model / engine / checkpoint was made for
    ("world-size", "launcher.model_parallel_size", {"level": r"^raise$", "text": WORLD}),
    # TensorRT-LLM's C++ runtime (runtime/worldConfig.cpp WorldConfig::mpi): MPI's size against the engine's tp x pp
    ("mpi-size", "launcher.model_parallel_size", {"where": r"worldConfig\.cpp:", "text": r"mpiSize == tp|MPI size %d != TP"}),
    ("tllm-internal", None, {"where": r"\.cpp:"}),
    # verl (trainer/ppo/ray_trainer.py ResourcePoolManager._check_resource_available): the GPUs of the Ray cluster the
    # driver joined against the resource pools' total
    ("verl-resources", "ray.resources", {"where": r"^verl/", "text": r"^Total available GPUs %s is less than total desired"}),
    # DeepSpeed-MII (mii/config.py _allocate_devices): each replica's tensor_parallel GPUs on one host of the hostfile
    ("mii-placement", "launcher.model_parallel_size", {"where": r"^mii/config\.py:",
                                                       "text": r"^Only able to place %s replicas|^Device map contains %s mappings|"
                                                               r"^Number of devices must match tensor_parallel"}),
    # colossalai.launch_from_torch / _slurm / _openmpi (initialize.py): the variables the launcher it names sets per
    # process are missing (KeyError re-raised): the script was not started by that launcher
    ("colossalai-env", "rendezvous.env_missing", {"where": r"^colossalai/initialize\.py:",
                                                  "text": r"^Could not find %s in the (?:torch|SLURM|OpenMPI) environment"}),
    # colossalai run: the command could not be run on a host (fabric: ssh / the exported environment)
    ("colossalai-run", "launcher.colossalai_run", {"where": r"^colossalai/cli/launcher/multinode_runner\.py:",
                                                   "level": r"^error$", "text": r"^Error: failed to run "}),
    # colossalai run's own refusals of its options and hostfile (run.py: --host / --hostfile / --include)
    ("colossalai-options", "launcher.colossalai_options", {"where": r"^colossalai/cli/launcher/",
                                                           "level": r"^(?:raise|error)$"}),
]

# What one message means and what to do (the first regex over the message's format that matches).
MSG_FIX = [
    (r"^Engine world size \(%s\) != Runtime world size \(%s\)$",
     "TensorRT-LLM's runner (examples/<model>/run.py, v0.5) read the engine's config.json: it was built for "
     "{%1|N} ranks (builder_config.tensor_parallel), one engine file per rank, and MPI started {%2|a different number "
     "of} process(es) (tensorrt_llm.mpi_world_size(): the ranks of mpirun; 1 under plain python).",
     ["mpirun -n {%1|<the engine's tensor_parallel>} python run.py ... (one MPI rank per engine rank; "
      "--allow-run-as-root in a container), or rebuild the engine with the tp size you run (build.py --world_size "
      "{%2|<processes>})"]),
    (r"^Engine world size \(%s \* %s\) != Runtime world size \(%s\)$",
     "TensorRT-LLM's ModelRunner (runtime/model_runner.py _builder_to_model_config) read the engine's config.json: it "
     "was built for tensor_parallel {%1|tp} x pipeline_parallel {%2|pp} ranks and MPI started {%3|a different "
     "number of} process(es) (mpi_world_size(): 1 under plain python).",
     ["mpirun -n <tp x pp = {%1|tp} x {%2|pp}> python run.py --engine_dir ... (one MPI rank per engine rank), or "
      "rebuild the engine (trtllm-build --tp_size / --pp_size) for the GPUs you start"]),
    (r"^\[TensorRT-LLM\]\[ERROR\] Assertion failed: mpiSize == tp \* pp",
     "TensorRT-LLM's C++ runtime (runtime/worldConfig.cpp WorldConfig::mpi) checks that MPI started as many ranks as "
     "the engine's tensor x pipeline parallelism (x context parallelism); they differ: run.py / the server started "
     "as one process (python ..., MPI size 1) for an engine of several ranks, or mpirun -n with another count.",
     ["mpirun -n <tp x pp of the engine: its config.json mapping> python run.py ... (one MPI rank per engine rank), or "
      "rebuild the engine for the GPUs you start (trtllm-build --tp_size / --pp_size)"]),
    (r"^\[TensorRT-LLM\]\[ERROR\] Assertion failed: MPI size %d != TP size %d \* PP size %d",
     "TensorRT-LLM's C++ runtime (runtime/worldConfig.cpp WorldConfig::mpi): MPI started {%1|N} rank(s) and the "
     "engine needs TP {%2|tp} x PP {%3|pp} (x CP in later releases): run.py / the server started as one process, or "
     "mpirun -n with another count.",
     ["mpirun -n <{%2|tp} x {%3|pp}> python run.py ... (one MPI rank per engine rank; --allow-run-as-root in a "
      "container), or rebuild the engine for {%1|the ranks you start} (trtllm-build --tp_size / --pp_size)"]),
    (r"^Loading a checkpoint for MP=%s but world size is %s$",
     "llama/generation.py Llama.build(): the model-parallel size is the world size torchrun started (WORLD_SIZE), "
     "and it must equal the checkpoint's number of shards (consolidated.*.pth): the checkpoint has {%1|MP} "
     "shard(s), torchrun started {%2|a different number of} process(es).",
     ["torchrun --nproc_per_node <MP> example_chat_completion.py --ckpt_dir <dir> ..., MP being the checkpoint's "
      "number of consolidated.*.pth files ({%1|MP} by this message; 0 means --ckpt_dir holds none: fix the path "
      "first); the README's table: 1 for 7B/8B, 2 for 13B, 8 for 70B"]),
    (r"^Only able to place %s replicas, but %s replicas were requested",
     "DeepSpeed-MII (mii/config.py _allocate_devices) places each replica's tensor_parallel GPUs on one host of the "
     "hostfile: a host of N slots holds N // tensor_parallel replicas, so {%1|fewer} replica(s) fit where {%2|more} "
     "were asked for (a tensor_parallel larger than one host's slots fits none: it is per replica, not in total).",
     ["mii.serve(..., tensor_parallel=<at most one host's slots>, replica_num=<sum over hosts of slots // "
      "tensor_parallel>): e.g. two hosts of slots=8 -> tensor_parallel=8, replica_num=2; or a device_map naming each "
      "replica's GPUs"]),
    (r"^Device map contains %s mappings, but only %s replicas were requested",
     "DeepSpeed-MII (mii/config.py _allocate_devices): the device_map given names {%1|another number of} GPU groups "
     "than replica_num {%2|asks for}; each group is one replica's tensor_parallel GPUs.",
     ["give replica_num equal to the device_map's groups (one list of tensor_parallel GPU indices per replica), or "
      "drop device_map and let MII fill the hostfile's slots"]),
    (r"^Number of devices must match tensor_parallel\. Found %s devices for host %s, but tensor_parallel=%s",
     "DeepSpeed-MII (mii/config.py _allocate_devices): a replica's GPU list in the device_map for host {%2|the host} "
     "holds {%1|another number of} GPU(s), and each replica needs exactly tensor_parallel ({%3|N}) of them on one host.",
     ["give each replica a list of tensor_parallel GPU indices of one host in device_map ({'<host>': [[0, 1], [2, 3]]} "
      "for tensor_parallel=2), or set tensor_parallel to the list's length"]),
    (r"^Total available GPUs %s is less than total desired GPUs %s",
     "verl's trainer (trainer/ppo/ray_trainer.py _check_resource_available) counts the GPUs of the Ray cluster its "
     "driver is connected to: {%1|fewer} against {%2|the resource pools' total} (trainer.n_gpus_per_node x "
     "trainer.nnodes): the driver's ray.init() started a new one-node cluster instead of joining the multi-node one, "
     "the other nodes did not join, or other jobs hold GPUs.",
     ["start Ray on every node (head: ray start --head --port=6379; others: ray start --address=<head IP>:6379) and "
      "run the trainer on the head joined to it (RAY_ADDRESS=<head IP>:6379 or ray.init(address='auto'), or ray job "
      "submit --address=http://<head IP>:8265 -- python3 -m verl.trainer.main_ppo ...); ray status must list every "
      "node's GPUs; or ask for what the cluster has (trainer.nnodes, trainer.n_gpus_per_node)"]),
    (r"^Could not find %s in the torch environment",
     "colossalai.launch_from_torch() (colossalai/initialize.py) reads RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and "
     "MASTER_PORT, which torchrun (and colossalai run, which starts torchrun) set in each process it starts; "
     "{%1|one} is missing: the script was started with plain python (or by srun / mpirun, which set others).",
     ["colossalai run --nproc_per_node <GPUs per node> train.py (several nodes: --host / --hostfile), or torchrun "
      "--nproc_per_node <GPUs per node> train.py; under srun / mpirun call colossalai.launch_from_slurm / "
      "launch_from_openmpi instead"]),
    (r"^Could not find %s in the SLURM environment",
     "colossalai.launch_from_slurm() (colossalai/initialize.py) reads SLURM_PROCID and SLURM_NPROCS, which srun "
     "sets in each task it starts; {%1|one} is missing: the script runs in the batch script itself (sbatch runs it "
     "once, on the first node) or outside an allocation.",
     ["srun --ntasks-per-node=<GPUs per node> python train.py (inside the allocation: one task per GPU, "
      "host and port given to launch_from_slurm), or use colossalai run / torchrun with launch_from_torch"]),
    (r"^Could not find %s in the OpenMPI environment",
     "colossalai.launch_from_openmpi() (colossalai/initialize.py) reads OMPI_COMM_WORLD_RANK, _LOCAL_RANK and _SIZE, "
     "which Open MPI's mpirun sets in each process; {%1|one} is missing: the script was not started by Open MPI's "
     "mpirun (plain python, or another MPI's launcher).",
     ["mpirun -np <processes> -npernode <GPUs per node> python train.py (Open MPI's), or use colossalai run / "
      "torchrun with launch_from_torch"]),
    (r"^Error: failed to run %s on %s",
     "colossalai run (cli/launcher/multinode_runner.py run_on_host) could not run the torchrun command on "
     "{%2|that host}: it runs it through fabric over ssh (the local host through a local shell) after exporting "
     "every variable of the launching shell; the ssh login, that export, or the command itself failed there.",
     ["ssh {%2|<host>} hostname from the launching node must work without a password (ssh-keygen; ssh-copy-id "
      "{%2|<host>}; --ssh_port if sshd listens elsewhere)", "the lines above it: bash's 'export: ... not a valid "
      "identifier' (a variable colossalai run cannot export: unset it, or start torchrun directly on each node) or "
      "the rank's own error"]),
]


def _echo(node):
    """colossalai's click.echo(...) (cli/launcher): (level, message node); an 'Error: ...' echo is an error."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "echo" and \
            isinstance(node.func.value, ast.Name) and node.func.value.id == "click" and node.args:
        fmt = knowgen.py_format(node.args[0]) or ""
        return ("error" if fmt.startswith("Error:") else "echo"), node.args[0]
    return None, None


# TensorRT-LLM's C++ checks (cpp/include/tensorrt_llm/common/assert.h): TLLM_CHECK(cond) throws with the condition as
# written, TLLM_CHECK_WITH_INFO(cond, fmt, ...) with the formatted info; either prints as '[TensorRT-LLM][ERROR]
# Assertion failed: <that> (<file>:<line>)' (tensorrt_llm::common::throwRuntimeError, TllmException).
_TLLM_CHECK = re.compile(r"\bTLLM_CHECK(_WITH_INFO)?\s*\(")
TLLM_PREFIX = "[TensorRT-LLM][ERROR] Assertion failed: "


def cpp_sites_of(src):
    """(level, line, format) of TensorRT-LLM's TLLM_CHECK / TLLM_CHECK_WITH_INFO in a C++ source."""
    for m in _TLLM_CHECK.finditer(src):
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        if m.group(1):
            if len(args) < 2:
                continue
            fmt = knowgen.c_format(args[1], 0)
        else:
            fmt = " ".join(args[0].split()).replace("%", "%%")
        if fmt:
            yield "raise", src.count("\n", 0, m.start()) + 1, TLLM_PREFIX + " ".join(fmt.split())


def sites_of(path, srcs):
    """(level, 'path:line', format) of the messages of one file (``srcs``: the file, or its slice's blocks)."""
    out = set()
    if path.endswith(".cpp"):
        for src in srcs:
            out.update(cpp_sites_of(src))
        for level, line, fmt in sorted(out, key=lambda s: (s[1], s[0], s[2])):
            yield level, "%s:%d" % (path, line), fmt
        return
    for src in srcs:
        out.update(knowgen.py_messages(textwrap.dedent(src), _echo if "/cli/" in path else None))
    for level, line, fmt in sorted(out, key=lambda s: (s[1], s[0], s[2])):
        yield level, "%s:%d" % (path, line), fmt


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, srcs in wheelmsgs.group(files).items():
        if not path.endswith((".py", ".cpp")):
            continue
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        firsts = knowgen.py_first_lines([textwrap.dedent(s) for s in srcs]) if path.endswith(".py") else {}
        for level, where, fmt in sites_of(real, srcs):
            if fmt in seen:
                continue
            seen.add(fmt)
            prefix = "placement." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "")
            site = wheelmsgs.site_for(prefix, ids, level, where, fmt, RULES, MSG_FIX,
                                      older=m and "%s %s" % (m.group(1), m.group(2)),
                                      first=firsts.get(int(where.rsplit(":", 1)[1])))
            if level == "echo" and site.get("re") and not site.get("family"):
                site["rule"] = "an echo, not an error"
            sites.append(site)
    return {"header": knowgen.header("hpcaitech/ColossalAI, meta-llama/llama, facebookresearch/fairscale, "
                                     "deepspeedai/DeepSpeed-MII, volcengine/verl and NVIDIA/TensorRT-LLM (https://github.com/...)",
                                     version, GENERATOR,
                                     "raise/assert/logger/click.echo messages of ColossalAI's launcher, Llama's "
                                     "reference runner, fairscale's model-parallel init and TensorRT-LLM's runners; "
                                     "families from the RULES table of the generator"),
            "sites": sites}


def _git_files(repo, rev, paths, older=None):
    git = knowgen.git_reader(repo)
    version = knowgen.revision(git, rev, untagged=rev)
    pre = "older/%s-%s/" % older if older else ""
    return [(pre + p, git("show", "%s:%s" % (rev, p))) for p in paths], version


def read_sources(a):
    files, versions = [], []
    for name, repo, rev, paths in (("ColossalAI", a.colossalai, a.colossalai_rev, COLOSSALAI_FILES),
                                   ("llama", a.llama, a.llama_rev, LLAMA_FILES),
                                   ("fairscale", a.fairscale, a.fairscale_rev, FAIRSCALE_FILES),
                                   ("DeepSpeed-MII", a.mii, a.mii_rev, MII_FILES),
                                   ("verl", a.verl, a.verl_rev, VERL_FILES)):
        got, v = _git_files(repo, rev, paths)
        files += got
        versions.append("%s %s" % (name, v))
    older_rev = a.colossalai_older_rev
    got, v = _git_files(a.colossalai, older_rev, COLOSSALAI_OLDER_FILES, ("colossalai", older_rev.lstrip("v")))
    files += got
    versions.append("older: ColossalAI %s" % v)
    if a.trtllm_blocks:
        got, v = knowgen.read_slice(a.trtllm_blocks)
    else:
        got = []
        for p, which in TRTLLM_FILES:
            rev = a.trtllm_rev if which == "current" else a.trtllm_older_rev
            got += _git_files(a.trtllm, rev, [p], ("tensorrt_llm", "0.5") if which == "older" else None)[0]
        v = "TensorRT-LLM %s; older (examples): %s" % (a.trtllm_rev, a.trtllm_older_rev)
    files += got
    versions.append(v)
    return files, "; ".join(versions)


def _statements(src, lines):
    """[(first, last)] line spans of the statements of ``src`` that begin at or hold one of ``lines``."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    compound = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)
    spans = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, compound) and \
                any(node.lineno <= ln <= node.end_lineno for ln in lines):
            spans.add((node.lineno, node.end_lineno))
    return sorted(spans)


def write_record(path, version, files, sites):
    """The slice: each assigned site's statement (and every site's of the TensorRT-LLM blocks, kept whole)."""
    keep = {}
    for s in sites:
        if s.get("family") or s.get("rule") in ("shared-helper",):
            keep.setdefault(wheelmsgs.site_key(s).rsplit(":", 1)[0], set()).add(int(s["where"].rsplit(":", 1)[1]))
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the statements of the message sites it assigns, each as the source has\n"
                "# it (=== path @first line).\n" % GENERATOR)
        f.write("#! version %s\n" % version)
        for p, srcs in wheelmsgs.group(files).items():
            for src in srcs:
                text = textwrap.dedent(src)
                lines = text.splitlines()
                if p.endswith(".cpp"):  # a C++ file comes as its blocks (--trtllm-blocks): each kept whole
                    first = len(src) - len(src.lstrip("\n")) + 1
                    if any(first <= ln <= len(lines) for ln in keep.get(p, ())):
                        f.write("=== %s @%d\n%s\n" % (p, first, "\n".join(lines[first - 1:]).rstrip("\n")))
                    continue
                for a_, b in _statements(text, keep.get(p, ())):
                    f.write("=== %s @%d\n%s\n" % (p, a_, textwrap.dedent("\n".join(lines[a_ - 1:b]))))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=None, extra=[
        ("--colossalai", {}), ("--colossalai-rev", {"default": "v0.5.1"}),
        ("--colossalai-older-rev", {"default": "v0.2.0"}),
        ("--llama", {}), ("--llama-rev", {"default": "HEAD"}),
        ("--fairscale", {}), ("--fairscale-rev", {"default": "v0.4.13"}),
        ("--mii", {}), ("--mii-rev", {"default": "v0.3.3"}),
        ("--verl", {}), ("--verl-rev", {"default": "v0.7.0"}),
        ("--trtllm", {}), ("--trtllm-rev", {"default": "2340c776201e4dba9aa625b8615e3e6ca9d7a7f6"}),
        ("--trtllm-older-rev", {"default": "23bc5b7c490576071a021d6fcfc32c5808db36a2"}),
        ("--trtllm-blocks", {"help": "TRTLLM_FILES' statements as a slice, when the repository cannot be read"}),
        ("--record", {"help": "write the slice"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    elif a.colossalai and a.llama and a.fairscale and a.mii and a.verl and (a.trtllm or a.trtllm_blocks):
        files, version = read_sources(a)
    else:
        a.error("give --colossalai, --llama, --fairscale, --mii, --verl and --trtllm (or --trtllm-blocks), or --slice")
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "revision")
        if a.record:
            write_record(a.record, version, files, doc["sites"])
    return knowgen.emit("placement_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
