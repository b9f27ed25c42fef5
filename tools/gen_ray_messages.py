#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ray_messages.json: what Ray prints when a node cannot start or
join a cluster, when the nodes' Ray or Python versions differ, when resources or a placement group cannot be
had, and when Ray Train's TorchTrainer cannot set up its workers and torch's process group. Read from the ray
wheel (PyPI), never executed: every `raise X("...")`, `assert ..., "..."` and logger/logging .error / .warning
/ .critical call (tools/knowgen.py py_messages), plus the module-level message constants that a raise formats
(`connect_error = ("Unable to connect to GCS (ray head) at {}. " ...)` in ray/_private/utils.py) and the
local ones a raise passes by name, of FILES.
Each message becomes a bounded matcher assigned to a knowledge family (ray.toml) by RULES; the rest is listed.

Usage:
    python tools/gen_ray_messages.py --wheel ray-2.60.0-cp311-cp311-manylinux2014_x86_64.whl [-o OUT]
        (pip download --no-deps ray)
    python tools/gen_ray_messages.py --slice tools/data/ray_messages_slice.txt -o OUT   (the test)

Source: ray (https://pypi.org/project/ray/, Apache-2.0); ray-project/ray (https://github.com/ray-project/ray):
python/ray/_private/{services,worker,node,utils}.py, python/ray/scripts/scripts.py,
python/ray/util/placement_group.py, python/ray/train/. The cluster commands are documented at
https://docs.ray.io/en/latest/cluster/cli.html, TorchTrainer at https://docs.ray.io/en/latest/train/api/api.html.
"""

import ast
import os
import re
import sys
import textwrap
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ray_messages.py"
FILES = re.compile(r"^ray/(?:_private/(?:services|worker|node|utils)\.py|scripts/scripts\.py|util/placement_group\.py|"
                   r"autoscaler/_private/autoscaler\.py|"
                   r"train/(?:torch/[a-z_]+\.py|_internal/[a-z_]+\.py|v2/api/[a-z_]+\.py|"
                   r"v2/_internal/(?:execution|callbacks)/.{1,80}\.py))$")

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("warning", None, {"level": r"^warning$"}),
    ("version", "ray.version_mismatch", {"text": r"^Version mismatch|version mismatch|[Vv]ersion of Ray"}),
    ("no-cluster", "ray.no_cluster", {"text": r"Could not find any running Ray instance|Unable to connect to GCS|"
                                              r"Failed to %s GCS|Failed to (?:start|connect to) GCS|"
                                              r"Did GCS start successfully|head node or gcs start|"
                                              r"Can't find a `node_ip_address\.json`|"
                                              r"Failed to connect to Ray cluster at"}),
    # ray.init(address=...) given settings only a new cluster takes (worker.py: 'When connecting to an existing
    # cluster, num_cpus and num_gpus must not be provided.'): the call's arguments, not the cluster's resources
    ("init-existing", "ray.usage", {"text": r"^When connecting to an existing cluster, .{1,80} must not be provided"}),
    ("resources", "ray.resources", {"text": r"can fulfill resource request|[Pp]lacement group|PlacementGroup|[Ii]nfeasible|[Ii]nsufficient "
                                            r"(?:cluster )?resources|cannot be scheduled|not enough (?:GPUs|CPUs|"
                                            r"resources)|resources_per_worker|num_gpus"}),
    ("train-backend", "ray.train_backend", {"where": r"^ray/train/", "text": r"process group|NCCL|nccl|MASTER_ADDR|"
                                                                         r"[Ww]orker group failed|workers? (?:failed|died)|"
                                                                         r"failed to initialize|TorchConfig"}),
]
# Assigned by SOURCE CONTEXT (issue 18, assign-sites2; tools/gen_slurm_messages.py CONTEXT_RULES, the same pattern): a
# raise or error no rule above assigns by its words gets the family of the part of Ray that raises it
# (knowledge/ray_context.toml): the family and the ways to tell its causes apart, never one cause. Too few words of
# its own (VAGUE) stays unassigned.
CONTEXT_RULES = [
    # the node's processes: ray start (scripts.py) and the code both it and ray.init run to start or join (services.py:
    # GCS, raylet, dashboard, object store; node.py: the session, ports, spilling)
    ("ctx-start", "ray.start", r"^ray/(?:_private/(?:services|node)|scripts/scripts)\.py:"),
    # the worker group of Ray Train (v1 backend_executor / worker_group, v2 execution/worker_group)
    ("ctx-train-workers", "ray.train_backend", r"^ray/train/(?:_internal/(?:backend_executor|worker_group)\.py|"
                                               r"v2/_internal/execution/worker_group/)"),
    # the program's own calls and settings: ray core's API (worker.py: ray.init / put / get / wait / kill; utils.py:
    # runtime_env, namespace), placement_group(), Ray Train's public API and config classes, ray.train.torch
    ("ctx-usage", "ray.usage", r"^ray/(?:_private/(?:worker|utils)\.py|util/placement_group\.py|train/v2/api/|"
                               r"train/torch/)"),
]
RULES += [(name, family, {"level": r"^(?:raise|error|critical)$", "where": where})
          for name, family, where in CONTEXT_RULES]
VAGUE = "too few words of its own to assign by its source file"  # knowgen.specific_enough


# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^Could not find any running Ray instance\. Please specify the one to connect to by setting `--address` flag "
     r"or `RAY_ADDRESS` environment variable\.$",
     "ray.init(address='auto') or `ray start --address=auto` looked for a cluster this machine started and found "
     "none: no `ray start --head` ran here, it ran on another node (or in another container), or it stopped.",
     ["on the head node: ray start --head --port=6379; on every other node: ray start --address=<head IP>:6379; "
      "in the job: ray.init(address='<head IP>:6379') or export RAY_ADDRESS=<head IP>:6379",
      "ray status   (on the head: is the cluster up, which nodes joined)"]),
    (r"^Unable to connect to GCS \(ray head\) at %s\.",
     "this node could not reach the head's GCS at {%1|the address}: the head is not running there, its Ray "
     "version differs, or a firewall blocks the port (6379 by default, and the ranges Ray opens).",
     ["on the head: ray status; from this node: nc -zv <head IP> 6379", "open the ports between the nodes (ray "
      "start --port, --node-manager-port, --object-manager-port, --min-worker-port/--max-worker-port)",
      "ray --version and python --version on both nodes must match"]),
    (r"^Version mismatch: The cluster was started with:$",
     "the nodes (or this process and the cluster) run different Ray or Python versions: Ray refuses to join them "
     "(RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor relaxes only the Python patch level).",
     ["install the same ray (pip install ray==<the head's version>) and the same Python on every node and in "
      "the job's environment; then ray stop and ray start again on each node"]),
    (r"^Ray version mismatch: cluster has Ray version %s but local Ray version is %s$",
     "`ray start --address` on this node found a head running Ray {%1|<the head's version>}, and this node has "
     "{%2|another version}.",
     ["pip install ray=={%1|<the head's version>} on this node (or upgrade the head), then ray start "
      "--address=<head IP>:6379 again"]),
    (r"^Placement group creation timed out\.",
     "Ray Train asked for one bundle per worker (ScalingConfig: num_workers x resources_per_worker, a GPU each with "
     "use_gpu=True) and the cluster never had them free: fewer GPUs or CPUs than asked for, nodes that did not "
     "join, or another job holding them.",
     ["ray status   (the cluster's total and used resources; every node must have joined)", "ask for what the "
      "cluster has: ScalingConfig(num_workers=<GPUs in the cluster>, use_gpu=True, resources_per_worker={'GPU': 1, "
      "'CPU': <cores per GPU>})"]),
    (r"^Error: No available node types can fulfill resource request %s\.",
     "Ray's autoscaler (autoscaler/_private/autoscaler.py) found the request it prints (resource: amount) larger than "
     "any node the cluster has or may add: a task or actor asks for GPUs (num_gpus) on a cluster whose nodes declared "
     "none -- ray.init(num_gpus=0), ray start on a node without GPUs (or without --num-gpus where Ray does not see "
     "them), the GPU nodes never joined -- or for more of one resource than a single node has.",
     ["ray status   (each node's resources: is there a node with the GPUs asked for?)",
      "give the cluster the resource: ray start --address=<head IP>:6379 --num-gpus=<N> on the GPU nodes (the head "
      "too if tasks run there), ray.init() without num_gpus=0; or ask for what one node has "
      "(@ray.remote(num_gpus=...), ScalingConfig(resources_per_worker=...))"]),
    (r"^Insufficient cluster resources to launch training workers\.",
     "the worker group asks for more than the cluster can ever provide (the next line names the resource, the "
     "amount asked for and the most the cluster has): ScalingConfig asks for more workers, GPUs or CPUs per "
     "worker than the nodes have.",
     ["ray status; lower num_workers or resources_per_worker in ScalingConfig, or add nodes (ray start "
      "--address=<head IP>:6379 on each)"]),
]


def _constants(tree):
    """(line, format) of the string constants and f-strings a message is built from (NAME = "..." whose name ends
    in error, msg or message, at any level: `error_message = f"Version mismatch: {mismatch_msg}"` is raised as
    `raise RuntimeError(error_message)` in ray/_private/utils.py). A {field} naming another such constant of the
    file is that constant's text (mismatch_msg: 'The cluster was started with:\\n    Ray: ...'); the format is cut
    at its first newline, the line a log shows it on."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and re.search(r"(?:error|msg|message)$", node.targets[0].id, re.I):
            if isinstance(node.value, ast.JoinedStr):
                fmt = "".join(v.value.replace("%", "%%") if isinstance(v, ast.Constant) else
                              names.get(v.value.id, "%s") if isinstance(v, ast.FormattedValue) and
                              isinstance(v.value, ast.Name) else "%s" for v in node.value.values)
            else:
                fmt = knowgen.py_format(node.value)
                fmt = fmt and re.sub(r"\{[^{}]*\}", "%s", fmt)
            if fmt:
                names[node.targets[0].id] = fmt
                yield node.lineno, fmt.split("\n")[0]


# the level of a message constant's site: written "raise" in the table (a raise formats it), but no ctx-* rule assigns
# it: a constant may be a line of a longer message ('The cluster was started with:', mismatch_msg) or a healthy one
# ('Ray runtime started.', scripts.py's startup message)
CONSTANT = "constant"


def _summarized(node):
    """The autoscaler's event_summarizer.add_once_per_interval(message, ...) (ray/autoscaler/_private/autoscaler.py):
    the driver prints each such message as a line of its own, '(autoscaler +17s) Error: No available node types
    can fulfill resource request {'GPU': 1.0, 'CPU': 1.0}. Add suitable node types ...' (ray.init(num_gpus=0) and
    a task with num_gpus=1, run here with ray 2.60.0); one that starts with 'Error:' is an error, the rest
    warnings (context)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "add_once_per_interval" and node.args:
        fmt = knowgen.py_format(node.args[0]) or ""
        return ("error" if fmt.startswith("Error:") else "warning"), node.args[0]
    return None, None


def sites_of(path, src):
    src = textwrap.dedent(src)  # a slice's statement blocks keep their indentation
    for level, line, fmt in knowgen.py_messages(src, _summarized):
        yield "%s:%d" % (path, line), fmt, level
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for line, fmt in _constants(tree):
        yield "%s:%d" % (path, line), " ".join(fmt.split()), CONSTANT


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for where, fmt, level in sites_of(path, src):
            const, level = level == CONSTANT, "raise" if level == CONSTANT else level
            if fmt in seen:
                continue
            seen.add(fmt)
            site = {"id": knowgen.unique_id("ray." + knowgen.slug(where), ids), "where": where, "text": fmt,
                    "level": level}
            rx, literal = knowgen.printf_to_regex(fmt)
            if not knowgen.unanchored(site, rx, literal, need=12):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                # words, not identifiers: 'listen_error_messages: %s' (worker.py) is one name, no words of its own
                if str(rule).startswith("ctx-") and (const or not knowgen.specific_enough(fmt, names=False)):
                    rule, family = ("a message constant, not assigned by its source file" if const else VAGUE), None
                site.update({"re": rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("ray (https://pypi.org/project/ray/)", version, GENERATOR,
                                     "raise/assert/logger messages and message constants of ray/_private (services, "
                                     "worker, node, utils), ray/scripts, ray/util/placement_group.py and ray/train; "
                                     "families from the RULES table of the generator"), "sites": sites}


def from_wheel(path):
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if FILES.match(n))
        meta = next(n for n in z.namelist() if re.match(r"ray-[^/]+\.dist-info/METADATA$", n))
        version = re.search(r"^Version:\s*(\S+)", z.read(meta).decode(), re.M).group(1)
        files = [(n, z.read(n).decode("utf-8", "replace")) for n in names]
    return files, "ray %s (%s)" % (version, os.path.basename(path))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheel")
    files, version = from_wheel(a.wheel) if a.wheel else knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.wheel:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="wheel")
    return knowgen.emit("ray_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
