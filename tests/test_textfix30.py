"""explain on real torchrun --nnodes refusals (fixtures/recorded/textfix30/README.md says how each was made).

torchrun's parse_min_max_nnodes (torch/distributed/run.py,
https://github.com/pytorch/pytorch/blob/main/torch/distributed/run.py) accepts one integer N or MIN:MAX, and
config_from_args asserts 0 < MIN <= MAX: the answer must name the accepted forms with a corrected value.
"""
import json
import types
from pathlib import Path

from inprocess import gd

ROOT = Path(__file__).resolve().parents[1]
REC = ROOT / "fixtures" / "recorded" / "textfix30"


def _run(path):
    """`gpudoctor explain --json PATH` in this process (tests/inprocess.py), returned as the subprocess.run it replaced
    returned it: these tests assert its output, and a process each loaded explain's knowledge again (suite32: each
    of its 4 calls gave the subprocess's exit code, stdout and stderr)."""
    rc, out, err = gd(["explain", "--json", str(path)], ROOT)
    return types.SimpleNamespace(returncode=rc, stdout=out, stderr=err)


def _first(path):
    out = _run(str(path))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["root"] == "torch.distributed_usage", doc["root"]
    return doc["findings"][0]


def _text(root):
    return json.dumps(root)


def test_three_part_nnodes_names_the_two_accepted_forms():
    root = _first(REC / "nnodes-1_2_4.log")
    t = _text(root)
    assert "torch.distributed_usage" in t
    assert "MIN:MAX" in t and "--nnodes=2" in t


def test_a_min_above_the_max_gets_an_ordered_range():
    root = _first(REC / "nnodes-4_2.log")
    t = _text(root)
    assert "torch.distributed_usage" in t
    assert "1 <= MIN <= MAX" in t and "--nnodes=2:4" in t


def test_a_range_written_with_a_dash_is_torchruns_and_gets_the_colon_form():
    # int()'s own ValueError from inside parse_min_max_nnodes: was cascade.child_failed (low), the frame tells it
    root = _first(REC / "nnodes-2-4.log")
    first = root["causes"][0]
    assert "parse_min_max_nnodes" in first["text"]
    assert any("--nnodes=2:4" in f and "not 2-4" in f for f in first["fix"]), first


def test_gloo_told_an_interface_the_node_lacks_is_its_socket_ifname():
    # real: GLOO_SOCKET_IFNAME=eth9 (no such interface) under torchrun, gloo's device.cc 'Unable to find address for'
    out = _run(str(REC / "gloo-ifname-missing.log"))
    doc = json.loads(out.stdout)
    assert doc["root"] == "gloo.socket_ifname", doc["root"]
    first = doc["findings"][0]["causes"][0]
    assert "names an interface this node does not have" in first["text"]
    assert any("GLOO_SOCKET_IFNAME" in f for f in first["fix"]), first
