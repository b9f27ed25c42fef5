"""The documented remedy for errors whose cause is in the user's code, data or environment, from PyTorch's own
documentation (docfix27, issue 18 "name the fix").

tools/gen_doc_remedies.py reads, besides the projects' troubleshooting pages (docs20), PyTorch's reference pages
(docs/source/notes/faq.rst, notes/multiprocessing.rst, notes/randomness.md, data.md, multiprocessing.md and
distributed.md's debugging section, each at the commit the search index stores it) and the warning / note blocks of
the docstrings of torch's public APIs in the torch 2.13.0+cpu wheel (DataLoader, DistributedSampler, DDP, FSDP, DCP,
torch.save / load, torch.multiprocessing, checkpoint, autograd.Function's ctx, torch.distributed's calls, and
torch/_torch_docs.py's add_docstr pages). A section that quotes no message but says what to do is a SYMPTOM row with
the identifiers it writes as code ('terms'); explain/docremedy.py quotes it under a root whose traceback's exception
names them (the message and the library frames that raised it; for a docstring's block, the API's own frame or name).

The error texts are the seen held-out sets' real runs (bench/data/explain_heldout_*.jsonl, cited by set and id).
"""

import json
import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_doc_remedies as gen  # noqa: E402

from gpudoctor.explain import docremedy  # noqa: E402

TABLE = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated", "doc_remedies.json")
WHEEL = "/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"


def _case(name, cid):
    with open(os.path.join(REPO, "bench", "data", "explain_heldout_%s.jsonl" % name)) as f:
        for line in f:
            row = json.loads(line)
            if row["id"] == cid:
                return row["text"]
    raise AssertionError("no case %s in %s" % (cid, name))


def _cli(path):
    import contextlib
    import io

    from gpudoctor import explain
    from gpudoctor.cli import build_parser

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        explain.main(build_parser().parse_args(["explain", "--json", str(path)]))
    return json.loads(buf.getvalue())


def _root(res):
    for f in res.get("findings") or []:
        if f.get("id") == res.get("root") or f.get("role") == "root":
            return f
    return None


def _doc_causes(res):
    root = _root(res)
    return [c for c in (root or {}).get("causes") or [] if "docs.pytorch.org" in (c.get("doc_section") or "")]


# ------------------------------------------------------------------------------------------------ the table

def test_table_rows_of_pytorch_cite_their_page_and_source():
    doc = json.load(open(TABLE))
    rows = [r for r in doc["sections"] if r["project"] in ("pytorch", "torch-api")]
    assert len(rows) >= 40
    for r in rows:
        assert re.match(r"^https://docs\.pytorch\.org/docs/stable/[\w./-]+\.html#[\w.-]+$", r["url"]), r["url"]
        assert r["fix"], r["heading"]
        if r.get("symptom"):
            assert r["terms"] and not r["fragments"], r["heading"]
    pages = [r for r in rows if r["project"] == "pytorch"]
    assert all(re.match(r"^pytorch/pytorch [0-9a-f]{12} docs/source/", r["source"]) for r in pages)
    assert doc["counts"]["pytorch"]["commit"] == "several"
    assert doc["counts"]["torch-api"]["commit"] == "wheel:torch-2.13.0+cpu"
    # the header names each page's commit (the search index stores the pages at different commits)
    assert "docs/source/notes/faq.rst at 06d47f46385229413d2bf3808fbfc86993f02f7d" in doc["header"]["version"]


def test_directives_of_a_reference_section():
    # https://github.com/pytorch/pytorch/blob/06d47f46385229413d2bf3808fbfc86993f02f7d/docs/source/notes/faq.rst
    # 'My model reports "cuda runtime error(2): out of memory"' (cut)
    text = ("Here, ``total_loss`` is accumulating history across your training loop, since\n``loss`` is a "
            "differentiable variable with autograd history. You can fix this by\nwriting `total_loss += float(loss)` "
            "instead.\n")
    secs = gen.sections("Heading\n-------\n\n" + text, md=False)
    got = gen.directives(secs[-1][2])
    assert got == ["You can fix this by writing `total_loss += float(loss)` instead."]
    # an example's introduction is no directive
    assert gen.directives([("p", "As an example, consider the following function where rank 1 must fail.")]) == []


def test_terms_are_the_identifiers_the_prose_writes_as_code():
    # https://github.com/pytorch/pytorch/blob/26a39059ec580351411f180816c47e2ef5134ae1/docs/source/multiprocessing.md
    # 'File descriptor - `file_descriptor`' (cut)
    blocks = [("p", "If your system has low limits for the number of open file descriptors, and you can't raise "
                    "them, you should use the `file_system` strategy."),
              ("code", ["x = `not_a_term`"])]
    assert gen.terms("File descriptor - `file_descriptor`", blocks) == ["file_descriptor", "file_system"]


@pytest.mark.skipif(not os.path.exists(WHEEL), reason="the torch 2.13.0+cpu wheel is not on this machine")
def test_reads_the_wheels_docstring_blocks():
    tree = gen.read_torch_wheel(WHEEL)
    version, pages = tree["torch-api"]
    assert version == "wheel:torch-2.13.0+cpu"
    data = dict(pages)["data.md"]
    # torch/utils/data/dataloader.py, DataLoader's docstring: '.. warning:: If the ``spawn`` start method is used,
    # :attr:`worker_init_fn` cannot be an unpicklable object, e.g., a lambda function. ...'
    assert "## torch.utils.data.DataLoader: warning (torch/utils/data/dataloader.py, DataLoader)" in data
    assert "worker_init_fn" in data and "unpicklable" in data
    add_docstr = dict(pages)["generated/torch.set_num_interop_threads.md"]
    assert "Can only be called once and before any inter-op parallel work" in add_docstr


# ------------------------------------------------------------------------------------------------ the reader

def test_set_num_interop_threads_twice_gets_the_docstrings_warning(tmp_path):
    # seen set P32 (bench/data/explain_heldout_2026-11-27p32.jsonl), planted on CPU torch 2.13.0: the helper calls
    # torch.set_num_interop_threads a second time; add_docstr's warning: 'Can only be called once and before any
    # inter-op parallel work is started'
    res = _cli_text(tmp_path, _case("2026-11-27p32", "p32-set_num_interop_threads_called_twice"))
    got = _doc_causes(res)
    assert got, [c.get("text") for c in _root(res)["causes"]]
    assert got[0]["doc_section"].endswith("generated/torch.set_num_interop_threads.html#torch.set_num_interop_threads")
    assert any("Can only be called once" in f for f in got[0]["fix"])
    assert _root(res)["causes"][0] is not got[0]  # below the answer's first cause


def test_unpicklable_dataset_under_spawn_gets_the_platform_section(tmp_path):
    # seen set P12 (bench/data/explain_heldout_2026-11-26p12.jsonl, loader_lock_spawn): a Dataset holding a
    # threading.Lock under multiprocessing_context='spawn': "cannot pickle '_thread.lock' object" raised through
    # multiprocessing's popen_spawn_posix -> data.md 'Platform-specific behaviors'
    res = _cli_text(tmp_path, _case("2026-11-26p12", "p12-loader_lock_spawn"))
    got = _doc_causes(res)
    assert got and got[0]["doc_section"].endswith("data.html#platform-specific-behaviors")
    assert any("top level definitions" in f for f in got[0]["fix"])


def test_ddp_unused_parameters_quotes_the_debugging_section(tmp_path):
    # seen set P2 (bench/data/explain_heldout_2026-11-26p2.jsonl, ddp_unused_branch_info): DDP's 'Expected to have
    # finished reduction in the prior iteration ...', which distributed.md's TORCH_DISTRIBUTED_DEBUG section quotes
    res = _cli_text(tmp_path, _case("2026-11-26p2", "p2-ddp_unused_branch_info"))
    got = _doc_causes(res)
    assert got and got[0]["doc_section"].endswith("distributed.html#torch-distributed-debug")
    assert any("find_unused_parameters=True" in f for f in got[0]["fix"])


def test_cuda_in_forked_workers_gets_the_cuda_in_multiprocessing_note(tmp_path):
    # seen set P2 (bench/data/explain_heldout_2026-11-26p2.jsonl, cuda_in_forked_workers): "Cannot re-initialize CUDA
    # in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method" -> notes/
    # multiprocessing.rst 'CUDA in multiprocessing' (its heading's 'multiprocessing' is a term: the table writes it as
    # code elsewhere), above data.md's platform section that names as many of the words but is about more things
    res = _cli_text(tmp_path, _case("2026-11-26p2", "p2-cuda_in_forked_workers"))
    got = _doc_causes(res)
    assert got and got[0]["doc_section"].endswith("notes/multiprocessing.html#cuda-in-multiprocessing")
    assert any("does not support the `fork` start method" in f for f in got[0]["fix"])


def test_save_for_backward_of_a_float_gets_the_extending_note(tmp_path):
    # seen set P14 (bench/data/explain_heldout_2026-11-26p14.jsonl, autograd_save_nontensor): ctx.save_for_backward of
    # a float -> notes/extending.md 'How to use', the sentence that names save_for_backward first
    res = _cli_text(tmp_path, _case("2026-11-26p14", "p14-autograd_save_nontensor"))
    got = _doc_causes(res)
    assert got and got[0]["doc_section"].endswith("notes/extending.html#how-to-use")
    assert any("You cannot use `save_for_backward` for non-tensors" in f for f in got[0]["fix"][:3])


def test_a_load_of_another_library_is_not_torch_load(tmp_path):
    # seen set P12 (csv_encoding_worker): a UnicodeDecodeError reading a CSV in a DataLoader worker; torch.load's
    # note about encoding='latin1' is about torch.load's own frame, which this traceback does not have
    res = _cli_text(tmp_path, _case("2026-11-26p12", "p12-csv_encoding_worker"))
    assert not any("torch.load" in (c.get("doc_section") or "") for c in _doc_causes(res))


def test_symptom_rows_need_a_term_in_the_message_itself():
    # the frames alone (torch/multiprocessing/spawn.py, a DataLoader's) name what every spawned traceback names
    tb = {"exc": "torch.multiprocessing.spawn.ProcessRaisedException", "msg": "train() argument after * must be an "
          "iterable, not int", "frames": [("/venv/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", 90,
                                           "_wrap"),
                                          ("/lib/python3.11/multiprocessing/popen_spawn_posix.py", 47, "_launch")]}
    assert docremedy.symptom_rows(tb) == []
    tb["msg"] = "Can't pickle local object 'main.<locals>.collate'"
    rows = docremedy.symptom_rows(tb)
    assert rows and rows[0][0]["url"].endswith("#platform-specific-behaviors")
    assert "pickle" in rows[0][1] and "spawn" in rows[0][1]


def test_no_root_no_remedy_on_healthy_logs(tmp_path):
    # the project's healthy real logs (fixtures/logs/healthy): no root, so no documented remedy either
    folder = os.path.join(REPO, "fixtures", "logs", "healthy")
    names = sorted(n for n in os.listdir(folder) if not n.startswith("."))[:25]
    assert names
    for n in names:
        with open(os.path.join(folder, n), errors="replace") as f:
            res = _cli_text(tmp_path, f.read())
        # (one of them, hongbomiao-37505, reads as unknown_error at the start commit 15bc732 too: no root either)
        assert res["verdict"] in ("no_error", "unknown_error") and not _doc_causes(res), n


def _cli_text(tmp_path, text):
    p = tmp_path / "case.log"
    p.write_text(text)
    return _cli(p)
