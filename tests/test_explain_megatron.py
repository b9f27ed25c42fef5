"""Megatron-LM / Megatron-Core's checks of a run's arguments and parallel layout (issue 18, megatron13). Read from
NVIDIA/Megatron-LM core_v0.19.0 (and the wordings of core_v0.12.0 and core_v0.5.0) by tools/gen_megatron_messages.py;
its slice tools/data/megatron_messages_slice.txt keeps the statements used here with their line numbers. The generator
regenerates the committed sites, each assert keeps its condition, and real texts of public threads (cited per text)
get their family and a fix that states the rule.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "megatron_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_megatron_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id, root_of  # noqa: E402

REAL = {
    # https://github.com/NVIDIA-BioNeMo/bionemo-recipes/issues/784 (Megatron-Core 0.12-0.13's get_num_layers_to_build)
    "layers_bionemo_784": (
        '15: [rank15]:   File "/usr/local/lib/python3.12/dist-packages/megatron/core/transformer/transformer_block.py", '
        "line 110, in get_num_layers_to_build\n15: [rank15]:     num_layers % config.pipeline_model_parallel_size == 0\n"
        "15: [rank15]: AssertionError: num_layers should be divisible by pipeline_model_parallel_size\n",
        "megatron.parallel_sizes", r"--pipeline-model-parallel-size among the divisors of --num-layers"),
    # https://github.com/NVIDIA-NeMo/Megatron-Bridge/pull/5884 (the current f-string: its values in the line)
    "layers_bridge_5884": (
        "AssertionError: num_layers=60 should be divisible by config.pipeline_model_parallel_size=8\n",
        "megatron.parallel_sizes", r"divisors of --num-layers"),
    # https://github.com/alibaba/Pai-Megatron-Patch/issues/332 (sequence parallel's scatter of a packed sequence)
    "seq_pai_332": (
        '[rank0]:   File "/mnt/data/Pai-Megatron-Patch/PAI-Megatron-LM-240718/megatron/core/tensor_parallel/mappings.py", '
        "line 75, in _split_along_first_dim\n[rank0]: AssertionError: First dimension of the tensor should be divisible "
        "by tensor parallel size\n", "megatron.parallel_sizes", r"multiple of the TP size"),
    # https://github.com/modelscope/ms-swift/issues/5737 (arguments.py's check, its message in the title)
    "layers_swift_5737": (
        'Megatron-LM/megatron/training/arguments.py", line 561, in validate_args\n'
        "[rank14]:     assert num_layers % args.transformer_pipeline_model_parallel_size == 0, \\\n"
        "[rank14]: AssertionError: Number of layers should be divisible by the pipeline-model-parallel size\n",
        "megatron.parallel_sizes", r"divisors of --num-layers"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "megatron_messages.json")
    full = knowgen.committed("megatron_messages")
    assert got["header"]["version"] == full["header"]["version"] and "core_v0.19.0" in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 20
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k != "id"} == {k: v for k, v in by_text[s["text"]].items() if k != "id"}
    sites = {s["text"]: s for s in got["sites"]}
    # an assert keeps its condition; a message that does not state the rule gets it from the condition
    experts = sites["Number of experts should be a multiple of expert model parallel_size."]
    assert experts["condition"] == "args.num_experts % args.expert_model_parallel_size == 0"
    assert experts["family"] == "megatron.parallel_sizes"
    # an assert with no message is the traceback's source line; its fix states the condition as the user's flags
    bare = sites["assert args.hidden_size %% args.num_attention_heads == 0"]
    assert bare["level"] == "assert" and "`--hidden-size % --num-attention-heads == 0`" in bare["fix"][0]
    # older wordings carry the newest release that prints them
    assert sites["world size (%s) is not divisible by tensor model parallel size (%s)"]["until"] == "core_v0.5.0"
    assert sites["ERROR: Invalid metadata file %s. Exiting"]["level"] == "exit"  # print_rank_0 then sys.exit()
    # v2.x's ensure_divisibility names no size (every library's helper of that name prints it): not assigned
    assert sites["%s is not divisible by %s"]["family"] is None
    # 23.06's format has two places for three values: its fix says which number is which
    old = sites["world size is not divisible by tensor parallel size (%s) times pipeline parallel size (%s)"]
    assert old["until"] == "23.06" and "the first number it prints is the world size" in old["means"]
    assert sites["tensor model parallel group is not initialized"]["family"] == "megatron.parallel_state_init"
    # the datasets' files: a prefix with no .bin/.idx (its fix names preprocess_data.py), and log_single_rank(ERROR)
    # followed by sys.exit (the C++ helpers' build)
    idx = sites["One or both of the .idx and .bin files cannot be found at the path prefix %s"]
    assert idx["family"] == "megatron.data" and "preprocess_data.py" in idx["fix"][0]
    assert sites["Failed to compile the C++ dataset helper functions"]["level"] == "exit"
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_real_texts_get_their_family_and_the_rule(cli, tmp_path):
    for name, (text, want, fix) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == want, (name, ids(doc))
        assert re.search(fix, fixes(root_of(doc))), (name, fixes(root_of(doc)))


def test_lines_made_from_the_source_formats(cli, tmp_path):
    # composed from megatron/core/num_microbatches_calculator.py's and arguments.py's formats (core_v0.19.0)
    text = ("  File \"/workspace/Megatron-LM/megatron/training/arguments.py\", line 1292, in validate_args\n"
            "    assert args.hidden_size % args.num_attention_heads == 0\nAssertionError\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="bare.txt", rcs=(0, 1))
    assert root_id(doc) == "megatron.parallel_sizes"
    assert "`--hidden-size % --num-attention-heads == 0`" in root_of(doc)["causes"][0]["fix"][0]
    text = "AssertionError: global batch size (12) is not divisible by micro batch size (1) times data parallel size (8)\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="gbs.txt", rcs=(0, 1))
    assert root_id(doc) == "megatron.batch_size" and "--global-batch-size" in root_of(doc)["causes"][0]["fix"][0]
    text = ("AssertionError: Using tensor model parallelism or context parallelism require setting the environment "
            "variable CUDA_DEVICE_MAX_CONNECTIONS to 1\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="cdmc.txt", rcs=(0, 1))
    assert root_id(doc) == "megatron.cuda_device_max_connections"
    assert "export CUDA_DEVICE_MAX_CONNECTIONS=1" in root_of(doc)["causes"][0]["fix"][0]
