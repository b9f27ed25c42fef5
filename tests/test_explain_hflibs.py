"""Hugging Face datasets, TRL and bitsandbytes messages (issue 18, libs13b): read from the datasets 5.2.0 (and older
2.21.0), trl 1.16.0 (and older 0.12.2, 0.16.0, 0.17.0) and bitsandbytes 0.50.2 (and older 0.43.3, 0.41.1) wheels by
tools/gen_hflibs_messages.py (its slice tools/data/hflibs_messages_slice.txt keeps the statements of the assigned
sites with their line numbers): the generator regenerates the committed sites, and real texts of public threads
(cited per text) get their entry and the fix the code that raises them points at.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_arrow_messages  # noqa: E402
import gen_hflibs_messages  # noqa: E402
import knowgen  # noqa: E402

from gpudoctor import explain  # noqa: E402

REAL = {
    # https://github.com/ylacombe/musicgen-dreamboothing/issues/12 (datasets 2.x, Dataset.map(num_proc=N))
    "datasets_map_died_musicgen_12": (
        "Traceback (most recent call last):\n"
        "  File \"D:\\musicgen-dreamboothing\\dreambooth_musicgen.py\", line 655, in main\n"
        "    raw_datasets = raw_datasets.map(\n"
        "  File \"D:\\musicgen-dreamboothing\\venv\\lib\\site-packages\\datasets\\arrow_dataset.py\", line 3165, in map\n"
        "    for rank, done, content in iflatmap_unordered(\n"
        "  File \"D:\\musicgen-dreamboothing\\venv\\lib\\site-packages\\datasets\\utils\\py_utils.py\", line 711, in "
        "iflatmap_unordered\n    raise RuntimeError(\n"
        "RuntimeError: One of the subprocesses has abruptly died during map operation.To debug the error, disable "
        "multiprocessing.\n", "datasets.usage", r"lower num_proc"),
    # https://github.com/huggingface/datasets/issues/6352 (datasets 2.14.5 with fsspec 2023.10)
    "datasets_localfs_6352": (
        "  File \"/home/aelkordy/.conda/envs/prune_llm/lib/python3.9/site-packages/datasets/builder.py\", line 1108, "
        "in as_dataset\n    raise NotImplementedError(f\"Loading a dataset cached in a {type(self._fs).__name__} is "
        "not supported.\")\nNotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.\n",
        "datasets.load", r"pip install -U datasets"),
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/828 (bitsandbytes 0.41)
    "bnb_setup_failed_828": (
        "RuntimeError: \n        CUDA Setup failed despite GPU being available. Please run the following command to get "
        "more information:\n\n        python -m bitsandbytes\n\n        Inspect the output of the command and see if "
        "you can locate CUDA libraries. You might need to add them\n        to your LD_LIBRARY_PATH. If you suspect a "
        "bug, please take the information from python -m bitsandbytes\n        and open an issue at: "
        "https://github.com/TimDettmers/bitsandbytes/issues\n", "bitsandbytes.setup", r"pip install -U bitsandbytes"),
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/693 (bitsandbytes <= 0.41: the library is None)
    "bnb_none_lib_693": ("AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_fp16_nf4'\n",
                         "bitsandbytes.setup", r"CUDA SETUP"),
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1559 (bitsandbytes 0.43-0.45, a source checkout)
    "bnb_native_lib_1559": (
        "Could not find the bitsandbytes CUDA binary at PosixPath('/notebooks/bitsandbytes/bitsandbytes/"
        "libbitsandbytes_cuda124.so')\nCould not load bitsandbytes native library: /notebooks/bitsandbytes/"
        "bitsandbytes/libbitsandbytes_cpu.so: cannot open shared object file: No such file or directory\n",
        "bitsandbytes.setup", r"pip install -U bitsandbytes|BNB_CUDA_VERSION"),
    # https://github.com/huggingface/trl/issues/2858 (trl 0.15/0.16 GRPOTrainer, num_generations=8 on one process)
    "trl_grpo_generations_2858": (
        "ValueError: The global train batch size (1 x 1) must be evenly divisible by the number of generations per "
        "prompt (8). Given the current train batch size, the valid values for the number of generations are: [].\n",
        "trl.config", r"num_generations"),
}


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_hflibs_messages.main, os.path.join(REPO, "tools", "data",
                                                                     "hflibs_messages_slice.txt"),
                              tmp_path / "hflibs_messages.json")
    full = knowgen.committed("hflibs_messages")
    assert got["header"]["version"] == full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 100
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    # every assigned site of the full read is in the slice
    assert {t for t, s in by_text.items() if s.get("family")} <= {s["text"] for s in got["sites"]}
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_what_the_rules_keep_out():
    sites = {s["text"]: s for s in knowgen.committed("hflibs_messages")["sites"]}
    # bitsandbytes' setup log: the line that names the failure is assigned, its advice lines are not
    assert sites["CUDA SETUP: Required library version not found: %s. Maybe you need to compile it from source?"][
        "family"] == "bitsandbytes.setup"
    assert sites["CUDA SETUP: Solution 1): Your paths are probably not up-to-date. You can update them via: sudo "
                 "ldconfig."]["family"] is None
    # the None library's AttributeError is read only from the releases that leave the library None (0.43.3, 0.41.1);
    # 0.50's ErrorHandlerMockBNBNativeLibrary raises its own text instead
    none_lib = [s for s in sites.values() if s["text"].startswith("'NoneType' object has no attribute 'c")]
    assert none_lib and all(s.get("older") in ("bitsandbytes 0.43.3", "bitsandbytes 0.41.1") for s in none_lib)
    assert sites["Could not load bitsandbytes native library: %s"]["family"] == "bitsandbytes.setup"
    # words Python and torch.optim print too (TRL's lazy module, bitsandbytes' copy of Optimizer.load_state_dict)
    assert sites["module %s has no attribute %s"]["family"] is None
    assert sites["loaded state dict has a different number of parameter groups"]["family"] is None
    # a warning is context only
    assert all(s["family"] is None for s in sites.values() if s["level"] == "warning")


def test_real_texts_get_their_entry_and_fix(kb):
    for name, (text, want, fix_re) in REAL.items():
        res = explain.explain_text(text, kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        # the first cause's fix: the site's own (MSG_FIX)
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])


def test_datasets_progress_lines_are_healthy(kb):
    # what datasets prints while it works (its tqdm bars: arrow_dataset.py map's desc, builder.py's split generation)
    res = explain.explain_text("Map (num_proc=8): 100%|##########| 1000/1000 [00:02<00:00, 450.12 examples/s]\n"
                               "Generating train split: 1000 examples [00:00, 2000.00 examples/s]\n", kb)
    assert res["verdict"] == "no_error" and not res["findings"]


# Apache Arrow's refusals under datasets (tools/gen_arrow_messages.py, apache-arrow-25.0.1)
ARROW = {
    # https://github.com/huggingface/datasets/issues/1817 (a batched map that concatenates input_ids only; the
    # maintainer: the other columns kept their length)
    "arrow_collen_1817": ("pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 599 but got length 1500\n",
                          r"remove_columns=ds.column_names"),
    # https://github.com/huggingface/datasets/issues/6460 (pyarrow.json: a list column of numbers then strings)
    "arrow_json_6460": ("ArrowInvalid: JSON parse error: Column(/ner/[]/[]/[]) changed from number to string in row 0\n",
                        r"features=Features"),
    # https://github.com/hiyouga/LlamaFactory/issues/412 (datasets' json builder on a file that is one JSON document)
    "arrow_json_412": ("  File \"pyarrow/error.pxi\", line 100, in pyarrow.lib.check_status\npyarrow.lib.ArrowInvalid: "
                       "JSON parse error: Column() changed from object to array in row 0\n", r"field="),
}


def test_arrow_generator_regenerates_and_its_real_texts(tmp_path, kb):
    got = knowgen.regenerated(gen_arrow_messages.main, os.path.join(REPO, "tools", "data", "arrow_messages_slice.txt"),
                              tmp_path / "arrow_messages.json")
    full = knowgen.committed("arrow_messages")
    assert got["header"]["version"] == full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert {t for t, s in by_text.items() if s.get("family")} == {s["text"] for s in got["sites"] if s.get("family")}
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    # a helper's prefix is read from the source (csv/parser.cc ParseError: 'CSV parse error: ')
    assert by_text["CSV parse error: Expected %s columns, got %s: %s%s"]["family"] == "datasets.arrow"
    for name, (text, fix_re) in ARROW.items():
        root = explain.explain_text(text, kb)["findings"][0]
        assert root["id"] == "datasets.arrow", name
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])
