"""A fix per launcher / trainer / mpirun message, not per family (issue 18): the user-facing sites of
tools/gen_trainer_messages.py (DeepSpeed's config checks, accelerate's Accelerator and plugins, transformers'
Trainer / TrainingArguments), tools/gen_launcher_messages.py (DeepSpeed's op builder and launcher, accelerate's
launch-time validation, pdsh) and Open MPI's / PRRTE's help topics (tools/gen_ompi_help.py TOPIC_FIX, shared by
tools/gen_prrte_help.py) carry their own `means` / `fix`, each written from the code or help text that prints it.
Every text in CASES is a real one from the public thread cited above it (none from the held-out sets:
bench/data/explain_heldout_*.jsonl name none of these threads). The generators' regeneration from their slices is
tests/test_explain_generated.py.
"""

import re

import pytest
from explainhelp import assert_root, generated_sites

from gpudoctor import explain


CASES = [
    # https://github.com/open-mpi/ompi/issues/8955 (mpirun -np 200 on one node; settled: --oversubscribe, or slots)
    ("ompi-not-enough-slots",
     "$ mpirun  -np 200 ./example\n\n"
     "There are not enough slots available in the system to satisfy the 200\n"
     "slots that were requested by the application:\n\n  ./example\n\n"
     "Either request fewer slots for your application, or make more slots\navailable for use.\n",
     "mpi.slots", "slots=<ranks on it>"),
    # https://github.com/openpmix/prrte/issues/393 (Open MPI 5's PRRTE says the same in its own help file)
    ("prrte-not-enough-slots",
     "[noname:70172] PRRTE ERROR:  in file ../../../../../../prrte/src/mca/rmaps/base/rmaps_base_map_job.c at line 381\n"
     "--------------------------------------------------------------------------\n"
     "There are not enough slots available in the system to satisfy the 7\n"
     "slots that were requested by the application:\n\n  ./my_App\n\n"
     "Either request fewer slots for your application, or make more slots\navailable for use.\n",
     "mpi.slots", "slots=<ranks on it>"),
    # https://github.com/3dem/relion/issues/179 (the openib BTL on nodes without InfiniBand; settled: -mca btl ^openib)
    ("ompi-btl-no-nics",
     "--------------------------------------------------------------------------\n"
     "[[46667,1],2]: A high-performance Open MPI point-to-point messaging module\n"
     "was unable to find any relevant network interfaces:\n\n"
     "Module: OpenFabrics (openib)\nHost: gpu005\n\n"
     "Another transport will be used instead, although this may result in\nlower performance.\n"
     "--------------------------------------------------------------------------\n",
     "mpi.error", "--mca btl ^openib"),
    # https://github.com/bmaltais/kohya_ss/issues/2498 (accelerate 0.21-0.27's wording, read from v0.27.2 by
    # --older-accelerate; settled: another main process port)
    ("accelerate-port-in-use-older-wording",
     "ConnectionError: Tried to launch distributed communication on port `29500`, but another process is utilizing "
     "it. Please specify a different port (such as using the `----main_process_port` flag or specifying a different "
     "`main_process_port` in your config file) and rerun your script. To automatically use the next open port (on a "
     "single node), you can set this to `0`.\n",
     "rendezvous.address_in_use", "--main_process_port <another port>"),
    # https://github.com/QwenLM/Qwen/issues/1171 (transformers' --deepspeed read through accelerate's HfDeepSpeedConfig;
    # settled by the maintainer: the file must exist relative to the working directory)
    ("ds-config-path-missing",
     "ValueError: Expected a string path to an existing deepspeed config, or a dictionary, or a base64 encoded string. "
     "Received: finetune/ds_config_zero3.json\n",
     "deepspeed.config", "absolute path"),
    # https://github.com/xsc1234/INFO-RAG/issues/7 (DeepSpeed's FusedAdam JIT build; the message itself names ninja)
    ("ds-jit-ninja",
     "RuntimeError: Unable to JIT load the fused_adam op due to ninja not being installed.\n",
     "deepspeed.ops", "ninja --version must work on every node"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_launcher_and_mpirun_texts_get_their_own_fix(kb, name, text, family, fix):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=re.escape(fix),
                       confidence="cause")
    # the message's own cause is the first one, with its line as evidence, before the family's generic causes
    assert root["causes"][0]["evidence"], root["causes"][0]


@pytest.mark.parametrize("source,texts,least", [
    ("trainer_messages", ["Expected a string path to an existing deepspeed config, or a dictionary or a valid base64. "
                          "Received: %s",
                          "Duplicate keys in DeepSpeed config: %s",
                          "Please specify the ZeRO optimization config in the DeepSpeed config.",
                          "Trainer: training requires a train_dataset."], 150),
    ("launcher_messages", ["CUDA_HOME does not exist, unable to compile CUDA op(s)",
                           "Unable to JIT load the %s op due to ninja not being installed.",
                           "The passed configuration file `%s` does not exist. Please pass an existing file to "
                           "`accelerate launch`, or use the default one created through `accelerate config` and run "
                           "`accelerate launch` without the `--config_file` argument."], 90),
    ("ompi_help", ["There are not enough slots available in the system to satisfy the %d",
                   "MCA framework parameters can only take a single negation operator",
                   "Error: system limit exceeded on number of network connections that can be open"], 40),
])
def test_user_facing_sites_carry_their_own_fix(source, texts, least):
    """The messages a user meets: each assigned and with a fix of its own (not the family's)."""
    by_text = {s["text"]: s for s in generated_sites(source)}
    for text in texts:
        site = by_text[text]
        assert site["family"] and site["means"] and site["fix"], site
    fixed = sum(1 for s in generated_sites(source) if s.get("fix"))
    assert fixed >= least, fixed
