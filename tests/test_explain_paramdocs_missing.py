"""A library check that an argument was not given at all names the argument and where it goes (fix22, issue 18
"name the fix"): paramdocs.missing.

Real texts: the seen held-out sets' P36 (torch 2.11.0+cu130 on two H100s: DeviceMesh.get_local_rank() on a 2-D mesh,
torch/distributed/device_mesh.py "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.") and
P17 (transformers on CPU: Trainer over an IterableDataset without max_steps, transformers/trainer.py _validate_args
"max_steps has to be specified"), read from bench/data/.
"""

import pytest

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import paramdocs

from seen_case import seen_case as _case


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _first_fixes(res):
    f = next(x for x in res["findings"] if x.get("role") == "root")
    return f["causes"][0]["fix"], f


def test_the_raising_function_called_on_the_line_gets_the_argument(kb):
    fixes, _f = _first_fixes(explain.explain_text(_case("2026-11-27p36", "p36-device_mesh_2d_get_local_rank"), kb))
    assert fixes[0] == ("pass mesh_dim=<a value> in the call on line 7: get_local_rank(..., mesh_dim=...) (the message "
                        "requires it)")


def test_the_config_class_the_called_api_takes(kb):
    # Trainer(args=args) raises; two transformers classes document max_steps (TrainerState, TrainingArguments): the
    # one Trainer's documented 'args' type names
    fixes, f = _first_fixes(explain.explain_text(_case("2026-11-26p17", "p17-hf_iterable_no_max_steps"), kb))
    assert fixes[0].startswith("pass max_steps=<int> where it is built: TrainingArguments(..., max_steps=...)")
    assert any(n.startswith("TrainingArguments's documentation of max_steps (transformers ") and "positive number" in n
               for n in f["notes"])


@pytest.mark.parametrize("msg, want", [
    ("Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.", "mesh_dim"),
    ("max_steps has to be specified", "max_steps"),
    ("`group_size` must be provided.", "group_size"),
    # an environment variable, a value that must be set *to* something, a relation: not an absent argument
    ("MASTER_ADDR must be set", None),
    ("lr must be set to a positive value", None),
    ("the model should be passed through accelerator.prepare", None),
])
def test_what_reads_as_an_absent_argument(msg, want):
    m = paramdocs._MISSING.search(msg)
    assert (m.group("p") if m else None) == want


def test_a_name_the_message_does_not_call_an_argument_is_not_one(kb):
    # accelerate's gather of Python ints: "... objects that are valid for `is_torch_tensor` should be passed" (P17):
    # not a parameter of gather, which the table does not document either
    res = explain.explain_text(_case("2026-11-26p17", "p17-acc_gather_python_ints"), kb)
    fixes = [x for f in res["findings"] for c in f.get("causes") or [] for x in c.get("fix") or []]
    assert not any("is_torch_tensor=" in x for x in fixes)


def test_an_argument_the_line_passes_is_not_absent():
    tb = {"msg": "`mesh_dim` needs to be specified", "frames": []}
    assert paramdocs.missing(tb) == (None, None)


def test_an_object_made_without_the_argument_its_method_needs(kb):
    # P36 (torch 2.11.0+cu130, two H100s): start.elapsed_time(end) on events made by torch.cuda.Event() -
    # "Both events must be created with argument 'enable_timing=True'." raised in torch/cuda/streams.py Event.elapsed_time
    fixes, f = _first_fixes(explain.explain_text(_case("2026-11-27p36", "p36-cuda_event_elapsed_no_timing"), kb))
    assert fixes[0] == ("create it with Event(enable_timing=True, ...) where it is built (the message requires it; "
                        "Event raised in Event.elapsed_time)")
    assert any(n.startswith("Event's documentation of enable_timing (torch ") for n in f["notes"])


@pytest.mark.parametrize("msg, want", [
    ("Both events must be created with argument 'enable_timing=True'.", ("enable_timing", "True")),
    ("the sampler must be constructed with shuffle=False", ("shuffle", "False")),
    ("This instance was created with a tensor", None),
])
def test_what_reads_as_made_with_an_argument(msg, want):
    m = paramdocs._BUILT.search(msg)
    assert ((m.group("p"), m.group("v")) if m else None) == want


def test_an_argument_from_a_mapping_gets_the_key_edit(kb):
    # P35 (torch on CPU): DataLoader(ds, shuffle=True, **cfg) with a config that sets prefetch_factor: 4 and
    # num_workers: 0 - "... otherwise set prefetch_factor to None." (torch/utils/data/dataloader.py)
    fixes, _f = _first_fixes(explain.explain_text(_case("2026-11-27p35", "p35-dataloader_prefetch_factor_zero_workers"),
                                                  kb))
    assert fixes[0] == ("prefetch_factor comes from the mapping passed as **cfg (not written on the line): set its "
                        "'prefetch_factor' key to None there, or drop the key (in a YAML / OmegaConf config that fills "
                        "it: prefetch_factor: null)")


@pytest.mark.parametrize("src, want", [
    ("loader = DataLoader(ds, prefetch_factor=4, **cfg)", False),  # written on the line: argedit's / paramdocs' own
    ("loader = DataLoader(ds, prefetch_factor=4)", False),  # no mapping
    ("loader = DataLoader(ds, **cfg, **extra)", False),  # two mappings: which one holds it is not known
    ("loader = DataLoader(ds, **cfg.loader)", True),
    ("loader = DataLoader(ds, **cfg['loader;touch x'])", False),  # not a plain name: never written in a fix line
])
def test_which_lines_take_the_argument_from_a_mapping(kb, src, want):
    text = ("Traceback (most recent call last):\n"
            "  File \"/w/train.py\", line 5, in <module>\n"
            "    %s\n"
            "  File \"/v/lib/python3.11/site-packages/torch/utils/data/dataloader.py\", line 288, in __init__\n"
            "    raise ValueError(\n"
            "ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
            "enable multiprocessing, otherwise set prefetch_factor to None.\n" % src)
    fixes = [x for f in explain.explain_text(text, kb)["findings"] for c in f.get("causes") or []
             for x in c.get("fix") or []]
    assert any("comes from the mapping passed as **" in x for x in fixes) is want, fixes
