#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/rl_messages.json: what the RL trainers that run vLLM for their rollouts
refuse in their configuration before training starts: OpenRLHF's `train_ppo_ray` (the actor / reference / critic /
reward GPU layout against the vLLM engines x tensor parallel size when colocated, the sample batches against the
processes, flags that need another flag) and its Ray launcher and vLLM engine wrapper; verl's trainer and workers'
configuration checks (ppo_mini_batch_size against n and the data-parallel size, ulysses / tensor-parallel sizes
against the GPUs, the rollout's tensor_model_parallel_size, micro batch sizes) and its vLLM rollout.

Read from the sources, never executed: every `raise X("...")` and `assert ..., "..."` of FILES (tools/knowgen.py
py_messages), each a bounded matcher with the family RULES gives (knowledge/serving_rl.toml): rl.parallel_layout
(the GPUs, nodes, engines and parallel sizes that must multiply or divide), rl.config (the other refusals of a flag
or a config value, the message names it). A message verl's ray_trainer.py already has in
generated/placement_messages.json (tools/gen_placement_messages.py, its Ray resource check) is left to that table; a
raise in words any program prints is listed, never guessed.

Usage:
    python tools/gen_rl_messages.py --openrlhf <git dir of OpenRLHF/OpenRLHF> --verl <git dir of volcengine/verl>
        [--record] [-o OUT]   (revisions: OPENRLHF_REV and the older OPENRLHF_OLDER, whose flat flags
        --actor_num_gpus_per_node / --vllm_num_engines 2025 threads quote; VERL_REV and the older VERL_OLDER, whose
        fsdp_workers.py normalized the batch sizes)
    python tools/gen_rl_messages.py --slice tools/data/rl_messages_slice.txt -o OUT   (the test)

Sources: OpenRLHF/OpenRLHF (https://github.com/OpenRLHF/OpenRLHF, Apache-2.0) openrlhf/cli/*.py and
openrlhf/trainer/ray/*.py; volcengine/verl (https://github.com/volcengine/verl, Apache-2.0) verl/trainer/main_ppo.py,
verl/trainer/ppo/ray_trainer.py, verl/utils/config.py, verl/workers/config/*.py, verl/workers/rollout/vllm_rollout/
*.py, verl/workers/{fsdp,megatron}_workers.py. Docs: https://openrlhf.readthedocs.io/en/latest/ (hybrid engine: colocate_all_models, vllm_num_engines x
vllm_tensor_parallel_size), https://verl.readthedocs.io/en/latest/examples/config.html (batch sizes and parallelism).
"""

import ast
import json
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_rl_messages.py"
NAME = "rl_messages"
SLICE = os.path.join(knowgen.DATA, NAME + "_slice.txt")
OPENRLHF_REV, OPENRLHF_OLDER, VERL_REV, VERL_OLDER = "v0.11.0", "v0.8.0", "v0.7.0", "v0.4.1"
FILES = {"openrlhf": r"^openrlhf/(?:cli/[a-z_]+|trainer/ray/[a-z_]+)\.py$",
         "verl": r"^verl/(?:trainer/main_ppo|trainer/ppo/ray_trainer|utils/config|workers/config/[a-z_]+|"
                 r"workers/rollout/vllm_rollout/[a-z_]+|workers/(?:fsdp|megatron)_workers)\.py$"}
NEED = 12

LAYOUT = (r"after normalization|num_gpus_per_node|num_nodes|n_gpus|nnodes|tensor_parallel_size|tensor_model_parallel_size|"
          r"num_engines|world.size|ulysses|ring_attn|data.parallel|dp_size|tp_size|pipeline_model_parallel|"
          r"number of (?:GPUs|processes|actor processes)|effective number of actor")
RULES = [
    ("internal", None, {"text": r"should not happen|not implemented|^Unknown |^Unsupported |^Invalid |must be called "
                                r"before|is not initialized|already initialized|must be initialized|must not be empty|"
                                r"^Warning: |server is not launched"}),
    # a package too old or missing (vllm, nvtx): the message names the release it needs
    ("version", "code.package_too_old", {"level": r"^raise$", "text": r"vllm >= ?%s|vllm >= ?\d|vLLM > ?\d|version must be "
                                                                      r"greater|is required for|properly installed|"
                                                                      r"pip3? install"}),
    ("layout", "rl.parallel_layout", {"level": r"^raise$", "text": LAYOUT}),
    ("config", "rl.config", {"level": r"^raise$"}),
]

MSG_FIX = [
    (r"should be larger than 0 after normalization",
     "verl's workers (fsdp_workers.py, v0.2-v0.4) normalize the batch sizes per data-parallel rank: ppo_mini_batch_size "
     "x rollout.n // (the GPUs / ulysses_sequence_parallel_size); fewer prompts per mini batch than data-parallel "
     "ranks gives 0.",
     ["actor_rollout_ref.actor.ppo_mini_batch_size (and critic.ppo_mini_batch_size) x rollout.n >= trainer.n_gpus_per_node "
      "x trainer.nnodes / ulysses_sequence_parallel_size, and data.train_batch_size >= ppo_mini_batch_size; or fewer "
      "GPUs"]),
    (r"must be equal to vllm_num_engines \* vllm_tensor_parallel_size",
     "OpenRLHF's train_ppo_ray with --colocate_all_models (and no async training) puts each vLLM engine's GPUs on the "
     "actor's: actor_num_nodes x actor_num_gpus_per_node must equal vllm_num_engines x vllm_tensor_parallel_size.",
     ["--vllm_num_engines = actor_num_nodes x actor_num_gpus_per_node / --vllm_tensor_parallel_size (e.g. 8 actor "
      "GPUs: 8 engines of TP 1, 4 of TP 2, 2 of TP 4); or drop --colocate_all_models to give vLLM GPUs of its own"]),
    (r"^num_nodes and num_gpus_per_node must be the same when colocate",
     "OpenRLHF colocates two models on one placement group (--colocate_actor_ref / --colocate_critic_reward / "
     "--colocate_all_models): both must ask for the same nodes and GPUs per node.",
     ["give both models the same --*_num_nodes and --*_num_gpus_per_node, or drop the --colocate_* flag"]),
    (r"number of sample batches must be greater than or equal to the effective number of actor processes",
     "OpenRLHF splits n_samples_per_prompt x rollout_batch_size / micro_rollout_batch_size sample batches over the "
     "actor's processes (its GPUs divided by ring attention and DeepSpeed tensor parallel sizes): fewer batches than "
     "processes leave a process without data.",
     ["raise --rollout_batch_size or --n_samples_per_prompt, or lower --micro_rollout_batch_size, or use fewer actor "
      "GPUs"]),
]


def _placement_texts():
    """The texts tools/gen_placement_messages.py already has (verl's Ray resource check): left to that table."""
    try:
        with knowgen.open_text(knowgen.out_path("placement_messages")) as f:  # (.json or .json.gz)
            return {s["text"] for s in json.load(f)["sites"]}
    except (OSError, ValueError, KeyError):
        return set()


def _messages(src):
    """(line, (first, last), format) of each raise / assert message of a Python source (or a slice block)."""
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = knowgen.py_message(node)
        if level != "raise":
            continue
        fmt = knowgen._py_message_format(node, arg)
        if fmt:
            yield node.lineno, (node.lineno, node.end_lineno), " ".join(fmt.split())


def build(files, version, skip=None):
    skip = _placement_texts() if skip is None else skip
    sites, seen, ids = [], set(), set()
    for path, src in files:
        m = re.match(r"older/([^/]+)/(.+)$", path)
        real = m.group(2) if m else path
        for line, _, fmt in _messages(src):
            if fmt in seen or fmt in skip:
                continue
            seen.add(fmt)
            where = "%s:%d" % (real, line)
            site = {"id": knowgen.unique_id("rl." + ("older_" if m else "") + knowgen.slug(where), ids),
                    "where": where, "level": "raise", "text": fmt}
            if m:
                site["older"] = m.group(1)
            rx, literal = knowgen.printf_to_regex(fmt)
            if knowgen.unanchored(site, rx, literal, NEED):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": real, "text": fmt, "level": "raise"})
            if family and not knowgen.own_enough(fmt):
                rule, family = "too few words of its own", None
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("OpenRLHF/OpenRLHF (https://github.com/OpenRLHF/OpenRLHF) and volcengine/verl "
                                     "(https://github.com/volcengine/verl): the configuration checks of FILES",
                                     version, GENERATOR, "raise/assert messages; families from the RULES table of "
                                     "the generator"), "sites": sites}


def from_repos(openrlhf, verl):
    out, versions = [], []
    for repo, rev, key, older in ((openrlhf, OPENRLHF_REV, "openrlhf", None), (openrlhf, OPENRLHF_OLDER, "openrlhf",
                                                                               "openrlhf-" + OPENRLHF_OLDER),
                                  (verl, VERL_REV, "verl", None), (verl, VERL_OLDER, "verl", "verl-" + VERL_OLDER)):
        git = knowgen.git_reader(repo)
        files = knowgen.tree_files(git, rev, (key,), lambda p: re.match(FILES[key], p))
        out += [(("older/%s/%s" % (older, p)) if older else p, t) for p, t in files]
        versions.append("%s %s" % (key, knowgen.revision(git, rev, describe=False)))
    return out, "; ".join(versions)


def main(argv):
    return knowgen.sites_main(__doc__, argv, NAME, GENERATOR, build, MSG_FIX, SLICE, source=("openrlhf", "verl"),
                              spans=lambda p, src: [span for _, span, _ in _messages(src)],
                              shape=lambda lines: textwrap.dedent("\n".join(lines)),
                              load=lambda a: from_repos(a.openrlhf, a.verl))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
