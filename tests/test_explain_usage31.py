"""explain-usage31 (issue 18): torch's own argument checks in call_guards.json - nn.functional, the nn layers,
torch.optim, and the torch._check(cond, lambda: msg) sites of torch/_refs, torch/_meta_registrations.py,
torch/_prims_common and torch/_decomp (tools/gen_call_guards.py).

The recordings are fixtures/recorded/explain-usage31/*.log (record.sh there: torch 2.13.0+cpu on this machine's CPU).
"""

import os
import sys

import pytest

from gpudoctor.explain import callguard
from gpudoctor.explain import explain_text, load_knowledge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(ROOT, "fixtures", "recorded", "explain-usage31")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_call_guards  # noqa: E402

META = '''
@register_meta(aten.fractional_max_pool2d.default)
def meta_fractional_max_pool2d(self, kernel_size, output_size, random_samples):
    torch._check(
        self.dtype == random_samples.dtype,
        lambda: f"Expect _random_samples to have the same dtype as input, got {random_samples.dtype}",
    )
    torch._check_value(len(kernel_size) == 2, lambda: "fractional_max_pool2d: kernel_size must be two ints")
    torch._check(self.dim() == 4, "a plain string: not a lambda, not read")
'''


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def _root(kb, name):
    with open(os.path.join(REC, name + ".log"), "rb") as f:
        return explain_text(f.read(), kb, source=name)["findings"][0]


def test_check_sites_read_their_condition_as_the_guard_and_the_op_as_the_call():
    rows = gen_call_guards.sites_of_file("torch/_meta_registrations.py", META, "test")
    by = {r["text"]: r for r in rows}
    assert set(by) == {"Expect _random_samples to have the same dtype as input, got %s",
                       "fractional_max_pool2d: kernel_size must be two ints"}
    r = by["Expect _random_samples to have the same dtype as input, got %s"]
    assert r["guard"] == "not (self.dtype == random_samples.dtype)"
    assert r["api"][0] == "torch.fractional_max_pool2d"  # the op's torch function before the meta kernel
    assert r["params"] == ["random_samples"]  # (self: the input tensor, not an argument named)
    assert r["where"] == "torch/_meta_registrations.py:4"  # (the torch._check call's line)
    assert by["fractional_max_pool2d: kernel_size must be two ints"]["params"] == ["kernel_size"]


def test_table_holds_the_new_sources():
    g = callguard.table()["guards"]
    files = {s["where"].rsplit(":", 1)[0] for s in g if s.get("params") or s.get("state")}
    for f in ("torch/nn/functional.py", "torch/_meta_registrations.py", "torch/_refs/__init__.py",
              "torch/optim/lr_scheduler.py", "torch/nn/modules/pooling.py"):
        assert f in files


def test_meta_kernel_check_named_with_its_argument(kb):
    f = _root(kb, "fractional_meta")
    fixes = [x for c in f["causes"] for x in c["fix"]]
    line = [x for x in fixes if " refuses this when `" in x]
    assert len(line) == 1
    assert "`not (self.dtype == random_samples.dtype)`" in line[0]
    assert "torch/_meta_registrations.py, in meta_fractional_max_pool2d" in line[0]
    assert "random_samples=" in line[0]


def test_layer_constructor_check_named_with_both_arguments(kb):
    f = _root(kb, "fractional_pool")
    line = [x for c in f["causes"] for x in c["fix"] if " refuses this when `" in x]
    assert len(line) == 1
    assert line[0].startswith("torch.nn.modules.pooling.FractionalMaxPool2d.__init__ refuses this when "
                              "`output_size is not None and output_ratio is not None` holds")
    assert "output_size=" in line[0] and "output_ratio=" in line[0]


def test_scheduler_check_names_the_public_scheduler(kb):
    f = _root(kb, "cycliclr")
    assert any("torch.optim.lr_scheduler.CyclicLR" in n for n in f["notes"])
