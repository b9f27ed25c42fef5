"""review15: timm's short messages (and Hydra's raised as a built-in class) are matched only after the exception class that raises them (tools/gen_pylibs_messages.py
knowgen.own_enough / _raised_class). A timm message with fewer than 4 words or 20 characters of its own ('Could not import %s:
%s', 'Config file not found: %s', 'Expected %s channels, got %s') is what any program may print: matched alone it made
another program's line (an optional package's import warning, an app's config notice) a confidently-wrong timm root.
"""

import re

import pytest

from gpudoctor import explain
from gpudoctor.explain.knowledge import load_knowledge

import explainhelp

# lines of other programs that carry a short timm message's words (a healthy run's warnings and notices): no root of
# timm's entries
OTHERS = [
    "WARNING: Could not import apex: falling back to native AMP",
    "[INFO] Config file not found: /etc/myapp.conf, using defaults",
    "Expected 3 channels, got 1 (converting the grayscale image to RGB)",
    "Failed to load 5 consecutive samples from shard 12, skipping it",
    "Tensor size mismatch fc.weight: [10] vs fc.weight: [20]. Remap failed.",
    # Hydra's _locate raises ImportError('Error loading ...') (hydra/_internal/utils.py), printed with its traceback
    "Error loading 'plugin_x': retrying in 5 s",
]


def test_short_timm_messages_need_their_exception_class():
    sites = [s for s in explainhelp.generated_sites("pylibs_messages") if s.get("family") and s["where"].startswith("timm/")]
    short = [s for s in sites if s["text"] in ("Could not import %s: %s", "Config file not found: %s",
                                                "Expected %s channels, got %s", "Unknown model (%s)")]
    assert len(short) == 4, [s["text"] for s in short]
    for s in short:
        assert re.match(r"[A-Z]\w*(?:Error|Exception)(?::|\\:)", s["re"]), s


def test_other_programs_lines_get_no_timm_root():
    kb = load_knowledge()
    for text in OTHERS:
        doc = explain.explain_text(text + "\n", kb)
        roots = [f["id"] for f in doc.get("findings") or [] if f.get("role") == "root"]
        assert not [r for r in roots if r.startswith(("timm.", "hydra."))], (text, roots)


def test_a_specific_roots_own_fix_stays_first_before_the_refused_argument():
    # torch's device check names the argument ('when checking argument for argument bias'); the root's own fix
    # (move the tensor) comes first, libarg's 'change bias in that call' after it (review15)
    from gpudoctor.explain import explain_text

    text = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 12, in <module>\n'
            "    out = F.linear(x, w, bias=b)\n"
            '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py", line 100, in linear\n'
            "    return torch._C._nn.linear(input, weight, bias)\n"
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
            "cpu! (when checking argument for argument bias in method wrapper_CUDA__addmm)\n")
    f = explain_text(text)["findings"][0]
    assert f["id"] == "usercode.tensors_on_two_devices"
    fixes = f["causes"][0]["fix"]
    assert "move the named tensor" in fixes[0]
    assert "b = b.to(x.device)" in fixes[0]  # (explain-fix23: opfix names the tensor the line passed as bias=)
    assert any("change bias in that call" in x for x in fixes[1:])


@pytest.mark.parametrize("finding, generic", [
    # (the confidence analyze gives each: a specific entry with its cause's evidence, a generic entry, the traceback's
    # shape only)
    ({"id": "usercode.tensors_on_two_devices", "confidence": "cause"}, False),
    ({"id": "cuda.oom", "confidence": "cause"}, False),
    ({"id": "timm.library_error", "confidence": "structural"}, True),
    ({"id": "code.exception", "confidence": "structural"}, True),
    ({"id": "code.library_error", "confidence": "structural"}, True),
    ({"id": "torch.usage", "confidence": "family"}, True),
    ({"id": "rendezvous.connect", "confidence": "structural"}, True),
])
def test_which_roots_take_the_refused_argument_first(finding, generic):
    from gpudoctor.explain import libarg

    assert libarg._generic(finding) is generic
