"""Mutation round 21 (mutation26): explain/callguard.py's fix line and note, whole, on the real recorded runs of
fixtures/explain/callfix26/ (torchrun, two gloo processes on CPU) and on a traceback of the table's own FSDP site.

test_callfix26.py asserts pieces of the line (its start, the argument); a mistake in the rest of it (the guard,
the file, the function, where the line goes among the fixes, the documented words' cut, the note's version) passed.
"""

import os

import pytest

from gpudoctor.explain import callguard
from gpudoctor.explain import explain_text, load_knowledge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "fixtures", "explain", "callfix26")


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def _root(kb, name):
    with open(os.path.join(FIX, name + ".log"), "rb") as f:
        res = explain_text(f.read(), kb, source=name)
    return res["findings"][0]


def test_new_subgroups_line_whole_and_second(kb):
    f = _root(kb, "new_subgroups_too_big")
    fixes = f["causes"][0]["fix"]
    # the line goes after the cause's own first fix, not before it and not at the end
    assert fixes[0].startswith("drop group_size=4 from the call")
    assert fixes[1] == (
        "torch.distributed.new_subgroups refuses this when `world_size < group_size` holds "
        "(torch/distributed/distributed_c10d.py, in new_subgroups): change group_size= (an argument of the call) "
        "in your call at /tmp/cf26rec/mis.py line 13 so that it does not; documented: group_size "
        "(torch.distributed.new_subgroups): \u201cThe size of each subgroup. If `None`, the default subgroup size is "
        "equal to the number of devices on each machine, based on the assumption that each machi [...] "
        "(default group_size=None)\u201d")
    assert ("The check that refused it: torch.distributed.new_subgroups raises at "
            "torch/distributed/distributed_c10d.py:6190 under `world_size < group_size` (torch 2.13.0+cpu; "
            "tools/gen_call_guards.py).") in f["notes"]
    assert sum(" refuses this when `" in x for x in fixes) == 1


def test_send_names_dst_and_the_private_check(kb):
    f = _root(kb, "send_to_self")
    line = f["causes"][0]["fix"][1]
    # send turns dst= into group_dst (userwalk26, 66d81fb6): dst named first where send documents it; two documented
    assert line == (
        "torch.distributed.send refuses this when `group.rank() == rank` holds (torch/distributed/distributed_c10d.py, "
        "in _check_not_self_rank): change group= (an argument of the call), dst= (an argument of the call), "
        "group_dst= (an argument of the call) in your call at /tmp/cf26rec/mis.py line 27 so that it does not; "
        "documented: group (torch.distributed.send): \u201cThe process group to work on. If None, the default process "
        "group will be used. (default group=None)\u201d; dst (torch.distributed.send): \u201cDestination rank on global "
        "process group (regardless of `group` argument). (default dst=None)\u201d")
    assert ("The check that refused it: torch.distributed._check_not_self_rank (reached from torch.distributed.send) "
            "raises at torch/distributed/distributed_c10d.py:1272 under `group.rank() == rank` (torch 2.13.0+cpu; "
            "tools/gen_call_guards.py).") in f["notes"]


# the table's FSDP site: its test reads the constructor argument use_orig_params (kept as self._use_orig_params)
_FSDP_MSG = "Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"
_SP = "/opt/venv/lib/python3.11/site-packages/"


def _fsdp_tb(user=True):
    frames = [("/home/u/train.py", 41, "main")] if user else []
    frames += [(_SP + "torch/distributed/fsdp/fully_sharded_data_parallel.py", 480, "__init__"),
               (_SP + "torch/distributed/fsdp/_flat_param.py", 600, "flatten_tensors"),
               (_SP + "torch/distributed/fsdp/_flat_param.py", 822, "_validate_tensors_to_flatten")]
    return {"msg": "ValueError: " + _FSDP_MSG, "frames": frames}


def _finding(fix=("first fix",)):
    return {"role": "root", "causes": [{"fix": list(fix)}], "notes": []}


def test_state_set_by_a_constructor_argument():
    f = _finding()
    callguard.fill(None, [f], _fsdp_tb())
    assert f["causes"][0]["fix"][0] == "first fix"
    line = f["causes"][0]["fix"][1]
    # the user's line called FSDP(...): its __init__ reached flatten_tensors
    assert line.startswith("your call to the constructor reaches torch.distributed.fsdp._flat_param.FlatParamHandle."
                           "flatten_tensors, which refuses this when `not self._use_orig_params and ")
    assert "(torch/distributed/fsdp/_flat_param.py, in _validate_tensors_to_flatten)" in line
    assert ": change use_orig_params= (the object's constructor argument that set it) in your call at " \
           "/home/u/train.py line 41 so that it does not" in line
    # the frame matched: the note names the matching package's release, not the whole version list
    assert f["notes"] == [
        "The check that refused it: torch.distributed.fsdp._flat_param.FlatParamHandle._validate_tensors_to_flatten "
        "(reached from torch.distributed.fsdp._flat_param.FlatParamHandle.flatten_tensors) raises at "
        "torch/distributed/fsdp/_flat_param.py:822 under `" + callguard.find(_fsdp_tb())[0]["guard"] +
        "` (torch 2.13.0+cpu; tools/gen_call_guards.py)."]
    # filled twice (two hooks, two passes): one line, one note
    callguard.fill(None, [f], _fsdp_tb())
    assert len(f["causes"][0]["fix"]) == 2 and len(f["notes"]) == 1


def test_line_first_when_the_cause_had_no_fix_and_no_user_frame():
    f = _finding(fix=())
    callguard.fill(None, [f], _fsdp_tb(user=False))
    assert len(f["causes"][0]["fix"]) == 1
    line = f["causes"][0]["fix"][0]
    assert "use_orig_params= (the object's constructor argument that set it) so that it does not" in line
    assert " in your call at " not in line


def test_the_site_is_found_by_its_frame_even_under_a_longer_message():
    site, frame = callguard.find(_fsdp_tb())
    assert site["state"] == ["use_orig_params"]
    assert frame == (_SP + "torch/distributed/fsdp/_flat_param.py", 822, "_validate_tensors_to_flatten")
    # the innermost matching library frame, not an outer one
    tb = _fsdp_tb()
    tb["frames"].append((_SP + "torch/nn/modules/module.py", 10, "_call_impl"))
    assert callguard.find(tb)[1][2] == "_validate_tensors_to_flatten"
    # an empty or blank message: nothing to match
    assert callguard.find({"msg": "  \n", "frames": tb["frames"]}) is None
    assert callguard.find({"frames": tb["frames"]}) is None and callguard.find(None) is None


@pytest.mark.parametrize("role", ["symptom", None])
def test_nothing_unless_the_first_finding_is_a_root_with_causes(role):
    f = _finding()
    f["role"] = role
    callguard.fill(None, [f], _fsdp_tb())
    assert f["causes"][0]["fix"] == ["first fix"] and f["notes"] == []
    g = _finding()
    g["causes"] = []
    callguard.fill(None, [g], _fsdp_tb())
    assert g["notes"] == []
    h = _finding()
    callguard.fill(None, [h], {})
    assert h["causes"][0]["fix"] == ["first fix"]
    callguard.fill(None, [], _fsdp_tb())  # no finding at all: nothing to do, no error


def test_documented_choices_and_default_through_accelerates_load_state():
    # Accelerator.load_state(map_location=...) hands it to checkpointing.load_accelerator_state, whose test refuses
    # anything but None / 'cpu' / 'on_device' (accelerate 1.15.0, checkpointing.py:226)
    msg = "Unsupported optimizer map location passed, please choose one of `None`, `'cpu'`, or `'on_device'`"
    tb = {"msg": "TypeError: " + msg,
          "frames": [("/home/u/train.py", 88, "main"), (_SP + "accelerate/accelerator.py", 3500, "load_state"),
                     (_SP + "accelerate/checkpointing.py", 226, "load_accelerator_state")]}
    f = _finding()
    callguard.fill(None, [f], tb)
    assert f["causes"][0]["fix"][1] == (
        "your call to load_state reaches accelerate.checkpointing.load_accelerator_state, which refuses this when "
        "`map_location not in [None, 'cpu', 'on_device']` holds (accelerate/checkpointing.py, in "
        "load_accelerator_state): change what your call to load_state hands on as map_location in your call at "
        "/home/u/train.py line 88 so that it does not; documented: map_location "
        "(accelerate.checkpointing.load_accelerator_state): \u201cWhat device to load the optimizer state onto. Should "
        "be one of either \"cpu\" or \"on_device\". (its documented choices: map_location='cpu', "
        "map_location='on_device'; default map_location=None)\u201d")
    # the note names accelerate's release (the site's package), not torch's
    assert f["notes"] == [
        "The check that refused it: accelerate.checkpointing.load_accelerator_state raises at "
        "accelerate/checkpointing.py:226 under `map_location not in [None, 'cpu', 'on_device']` (accelerate 1.15.0; "
        "tools/gen_call_guards.py)."]
