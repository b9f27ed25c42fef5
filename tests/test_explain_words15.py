"""words15 (issue 18): slow or differing runs told in words, joined to the switches the torch wheel's own Python
reads (tools/gen_torch_switches.py -> gpudoctor/data/torch_switches.json) and to DDP's documented
broadcast at construction.

- an environment variable that turns torch.compile off (TORCH_COMPILE_DISABLE: torch/_dynamo/config.py's `disable`;
  TORCHDYNAMO_DISABLE: read where torch/_dynamo/eval_frame.py's optimize() returns _NullDecorator()), told as
  "torch.compile does nothing" / "no compile warm-up" / slowness;
- the DataLoader's persistent_workers (its docstring: with True it "will not shut down the worker processes after a
  dataset has been consumed once"; default False) where the text shows num_workers > 0 and the user tells a slowness
  per epoch;
- gradients averaged by hand (or DDP's init_sync=False) with weights initialised per rank: DDP's docstring says it
  broadcasts the parameters and buffers at construction, and without that "the user is required to ensure themselves
  that the weights are the same on all ranks".

The program lines are outputs of runs made here (torch 2.13.0+cpu, this machine, 2026-11-27): small scripts that
time a DataLoader's epochs with a 0.5 s worker_init_fn (persistent_workers False then True) and a torch.compile'd MLP
with and without TORCH_COMPILE_DISABLE=1 (first call 0.10 s against 56.45 s of compilation), and a one-process gloo
DDP built with find_unused_parameters=True (the reducer's warning). The sentences around
them are the user's words, written here. A setting with no told symptom is never a root (each case is run again
with its sentence taken away)."""

import os
import sys

import pytest

from gpudoctor.explain import explain_text, meaning, settings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# outputs of the runs (see the module docstring)
LOADER_FALSE = ("DataLoader(num_workers=2, persistent_workers=False)\nepoch 0 1.00s\nepoch 1 0.87s\nepoch 2 0.90s\n"
                "epoch 3 0.89s\ntotal 3.7s\n")
LOADER_TRUE = ("DataLoader(num_workers=2, persistent_workers=True)\nepoch 0 0.87s\nepoch 1 0.02s\nepoch 2 0.03s\n"
               "epoch 3 0.01s\ntotal 0.9s\n")
EPOCHS_ONLY = "epoch 0 1.00s\nepoch 1 0.87s\nepoch 2 0.90s\nepoch 3 0.89s\ntotal 3.7s\n"
COMPILE_OFF = "torch 2.13.0+cpu TORCH_COMPILE_DISABLE=1 first call 0.10s, then 3.18 ms/step\n"
# DDP (gloo, one process) built with find_unused_parameters=True over a model whose parameters all get gradients
FIND_UNUSED = ("[rank0]:[W1127 02:10:51.702157467 reducer.cpp:1529] Warning: find_unused_parameters=True was specified "
               "in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an "
               "extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your "
               "model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note "
               "that this warning may be a false positive if your model has flow control causing later iterations to "
               "have unused parameters. (function operator())\n")


def _root(text):
    r = explain_text(text)
    return r, (r["findings"][0] if r["findings"] and r["findings"][0].get("role") == "root" else None)


def _all(f):
    return "\n".join(c["text"] + " " + " ".join(c["fix"]) for c in f["causes"])


CASES = [
    # persistent_workers=False printed by the program, each epoch as slow as the first
    ("Each epoch is slow, about 0.9 s, although the GPU work is tiny.\n", LOADER_FALSE, "torch.slow_setting",
     "persistent_workers=True"),
    # not set at all: the user quotes the loader's arguments; the docstring's default (False) is in effect
    ("Every epoch takes ~0.9 s, only the first one should be slow. Loader: num_workers=2, a worker_init_fn that "
     "opens our index.\n", EPOCHS_ONLY, "torch.slow_setting", "persistent_workers=True"),
    # an env dump with the variable, compile told to do nothing
    ("torch.compile does nothing for me: no compile warm-up at all and the same speed as eager.\n"
     "$ env | grep TORCH\n", "TORCH_COMPILE_DISABLE=1\n", "torch.slow_setting", "unset TORCH_COMPILE_DISABLE"),
    # the run's own print of the variable, the user tells a slowness against a colleague's run
    ("My compiled model is 2x slower than my colleague's with the same script.\n", COMPILE_OFF,
     "torch.slow_setting", "unset TORCH_COMPILE_DISABLE"),
    # TORCHDYNAMO_DISABLE (eval_frame.py) as an export in the job script
    # DDP's reducer's own warning says the flag is on (settings.toml's hand row, from the tuning guide and that warning)
    ("With DDP on 4 GPUs each step takes 410 ms instead of the 300 ms we expected from the single-GPU run.\n",
     FIND_UNUSED, "torch.slow_setting", "find_unused_parameters=False"),
    # torch/_dynamo/config.py reads it as bool(os.environ.get(...)): any non-empty value, '0' too, turns it on
    ("torch.compile gives no speedup at all on this model, same 41 ms/step as eager.\n",
     "+ export TORCHDYNAMO_SUPPRESS_ERRORS=0\n", "torch.slow_setting", "unset TORCHDYNAMO_SUPPRESS_ERRORS"),
    ("The compiled model runs eagerly, never compiles, in our Slurm job.\n#!/bin/bash\n",
     "export TORCHDYNAMO_DISABLE=1\npython train.py\n", "torch.slow_setting", "unset TORCHDYNAMO_DISABLE"),
]


@pytest.mark.parametrize("told,log,family,fix", CASES)
def test_told_symptom_with_the_switch(told, log, family, fix):
    r, f = _root(told + log)
    assert f is not None and f["id"] == family, (r["verdict"], [x["id"] for x in r["findings"]])
    assert fix in " ".join(f["causes"][0]["fix"]), f["causes"][0]
    # the rule: the same text without the user's sentence gives no root
    r2, f2 = _root(log)
    assert f2 is None or f2.get("from_settings") is not True, f2 and f2["id"]
    assert r2["verdict"] == "no_error", r2["verdict"]


def test_persistent_workers_on_is_no_cause():
    r, f = _root("Each epoch is slow, about 0.9 s, although the GPU work is tiny.\n" + LOADER_TRUE)
    assert f is None or "persistent_workers" not in _all(f)


def test_persistent_row_needs_a_slowness_told_per_epoch():
    # a slowness not told per epoch is not the workers' restart (the row's told_has)
    r, f = _root("Training is slow. Loader: num_workers=2, a worker_init_fn that opens our index.\n")
    assert f is None or "persistent_workers" not in _all(f)


def test_a_healthy_env_dump_stays_healthy():
    r, f = _root("$ env | grep TORCH\nTORCH_COMPILE_DISABLE=1\nTORCHDYNAMO_DISABLE=1\n"
                 "step 100 loss 2.31 3.2 ms/step\nDataLoader(num_workers=8, persistent_workers=False)\n")
    assert f is None and r["verdict"] == "no_error"


def test_switch_at_its_default_is_no_cause():
    r, f = _root("torch.compile does nothing for me, no compile warm-up.\n$ env | grep TORCH\nTORCH_COMPILE_DISABLE=0\n")
    assert f is None or "TORCH_COMPILE_DISABLE" not in _all(f)


def test_compile_told_to_do_nothing():
    yes = ["torch.compile does nothing for me", "torch.compile doesn't do anything", "compiling has no effect",
           "no compile warm-up at all", "torch.compile gives no speedup", "the model runs eagerly",
           "it never compiles", "torch.compile is a no-op here"]
    no = ["torch.compile finished in 30 s", "compilation took 2 minutes", "we compile with nvcc", "eager attention"]
    for s in yes:
        assert settings._NOCOMPILE.search(s), s
        assert settings._may_tell(s), s  # the scan hands the line over (a needle of TOLD_NEEDLES is on it)
    for s in no:
        assert not settings._NOCOMPILE.search(s), s


def test_work_as_a_noun_is_not_a_setting_tried():
    assert not settings._tried("Every epoch takes 1.6 s even though the GPU work is tiny. num_workers=8")
    assert settings._tried("Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed")
    assert settings._tried("NCCL_IB_DISABLE=1 works but it is slow")


def test_fixed_after_an_article_is_an_adjective():
    s = "the two ranks report different eval accuracy on the same fixed eval batch"
    assert not meaning._SOLVED.search(s)
    assert meaning._SOLVED.search("it is fixed now") and meaning._SOLVED.search("fixed it by setting the seed")


# the text of a run planted here would need 2 processes; this one is written in the forms torchrun and a script print
MANUAL_AVG = (
    "I average gradients by hand with dist.all_reduce(p.grad, op=dist.ReduceOp.AVG) after backward, without DDP. "
    "After training the two ranks report different accuracy on the same fixed eval batch, and a checksum of the "
    "parameters differs between ranks.\n"
    "[rank0] step 59 loss 2.2776\n[rank1] step 59 loss 2.2830\n"
    "[rank1] eval acc 0.1843 param checksum -10.106983\n[rank0] eval acc 0.1589 param checksum 5.238188\n")


def test_manual_average_without_a_broadcast():
    r, f = _root(MANUAL_AVG)
    assert f is not None and f["id"] == "torch.ranks_diverge", [x["id"] for x in r["findings"]]
    assert "broadcast" in " ".join(f["causes"][0]["fix"]) and "init_sync" in f["causes"][0]["text"]


def test_ranks_diverge_without_the_evidence_keeps_no_sync_first():
    r, f = _root("After training the two ranks report different accuracy, and a checksum of the parameters differs "
                 "between ranks.\nwith model.no_sync():\n    loss.backward()\n")
    assert f is not None and f["id"] == "torch.ranks_diverge"
    assert "no_sync" in f["causes"][0]["text"]


def test_generator_regenerates_the_committed_rows(tmp_path):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_torch_switches
    import knowgen

    got = knowgen.regenerated(gen_torch_switches.main, os.path.join(REPO, "tools", "data", "torch_switches_slice.txt"),
                              tmp_path / "out.json")
    from gpudoctor import data

    full = data.load("torch_switches")
    assert got["header"]["version"] == full["header"]["version"] == \
        "2.13.0+cpu (git cf30153c4c131c8164ee7798e5022d810682e2cb)"
    by_id = {s["id"]: s for s in full["sites"]}
    for s in got["sites"]:
        assert by_id.get(s["id"]) == s, s["id"]
    rules = {s["rule"]: s["var"] or s["config"] for s in got["sites"] if s.get("rule")}
    assert set(rules) == {"compile_off", "caches_off", "loader_not_persistent", "eager_fallback", "perf_hit",
                          "slow_autotune", "debug_trace"}
    assert {s["var"] for s in got["sites"] if s.get("rule") == "compile_off"} == {"TORCH_COMPILE_DISABLE",
                                                                               "TORCHDYNAMO_DISABLE"}
    assert sum(1 for s in got["sites"] if not s.get("family")) >= 20  # the rest are listed, unassigned
    # every row that settings.py makes of them is in its table, after the hand rows
    ids = [r["id"] for r in settings.table()]
    assert "torch_switch_torch_compile_disable_dynamo_config_py" in ids


def test_a_bandwidth_cap_is_told_slowness():
    st = settings.State()
    settings._told(st, 1, "all_reduce on our node tops out at ~21 GB/s bus bandwidth, the node next to it does 295 GB/s")
    assert [t[1] for t in st.told] == ["slow"]
    st = settings.State()
    settings._told(st, 1, "GPU memory peaks at 40 GB during the first epoch")
    assert st.told == []
