"""Documented remedies from the projects' own troubleshooting / FAQ / guide pages (docs20, issue 18).

tools/gen_doc_remedies.py reads the documentation trees the projects keep in their repositories (pinned by commit)
into generated/doc_remedies.json: each section that quotes an error message and says what to do, with the message's
fragments, the remedy sentences, the page URL with the heading's anchor and the project's family. explain/docremedy.py
quotes the remedy when a failure line of a pasted text holds a documented fragment: below the causes the text proves,
or as the answer (family from the project) when nothing else answers.

The error texts are public threads' (cited per case); the doc sections are the pages' own (cited per case).
"""

import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_doc_remedies as gen  # noqa: E402

from gpudoctor import explain  # noqa: E402
from gpudoctor.explain import docremedy  # noqa: E402

SLICE = os.path.join(REPO, "tools", "data", "doc_remedies_slice.txt")
TABLE = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated", "doc_remedies.json")


def test_regenerates_from_the_recorded_slice(tmp_path):
    out = tmp_path / "doc_remedies.json"
    assert gen.main(["--slice", SLICE, "-o", str(out)]) == 0
    got, want = json.loads(out.read_text()), json.loads(open(TABLE).read())
    got["header"].pop("date")
    want["header"].pop("date")
    assert got == want
    assert want["sections"], "no section kept"
    for project, c in want["counts"].items():
        # ('kept' counts docfix27's symptom rows too, which quote no message)
        assert c["pages"] >= 1 and c["quoted"] >= c["with_remedy"] >= c["kept"] - c.get("symptom", 0) >= 0, project
        # (docfix27) PyTorch's pages are read at several commits (each row's 'source' names its page's) and its
        # docstrings from the wheel
        assert len(c["commit"]) == 40 or c["commit"] == "several" or c["commit"].startswith("wheel:"), project


# https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/docs/source/developer_guides/
# troubleshooting.md, section 'Error while loading the config because of an unexpected keyword argument' (cut)
PEFT_SECTION = """## Error while loading the config because of an unexpected keyword argument

When loading a PEFT config, you may encounter an error like this:

```
TypeError: LoraConfig.__init__() got an unexpected keyword argument <argument-name>
```

This is most likely due to a mismatch between the PEFT version used to save the config and the PEFT version used to
load it. The best way to resolve this issue is to install the latest PEFT version:

```sh
python -m pip install -U PEFT
```
"""

# https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641/docs/_tutorials/
# advanced-install.md, section 'CUDA version mismatch' (cut)
DS_SECTION = """## CUDA version mismatch

If you're getting the following error:

```
Exception: >- DeepSpeed Op Builder: Installed CUDA version {VERSION} does not match the version torch was compiled with {VERSION}, unable to compile cuda/cpp extensions without a matching cuda version.
```
You have a misaligned version of CUDA installed compared to the version of CUDA
used to compile Torch.

If you want to skip this check and proceed with the mismatched CUDA versions,
use the following environment variable, but beware of unexpected behavior:

```bash
DS_SKIP_CUDA_CHECK=1
```
"""


def _row(text, project, fam, url, style="hf"):
    (heading, _lvl, blocks), = [s for s in gen.sections(text, True) if s[0]]
    row, quoted, fixed = gen.read_section(project, fam, url, heading, blocks, style, True)
    assert quoted and fixed
    return row


def test_a_section_gives_its_message_fragments_remedy_and_anchor():
    row = _row(PEFT_SECTION, "peft", "peft.library_error",
               "https://huggingface.co/docs/peft/developer_guides/troubleshooting")
    assert row["classes"] == ["TypeError"]
    assert row["fragments"] == ["loraconfig.__init__() got an unexpected keyword argument"]
    assert row["fix"][0].startswith("The best way to resolve this issue is to install the latest PEFT version:")
    assert "`python -m pip install -U PEFT`" in row["fix"][0]  # the code block the sentence introduces
    assert row["url"].endswith("#error-while-loading-the-config-because-of-an-unexpected-keyword-argument")
    ds = _row(DS_SECTION, "deepspeed", "deepspeed.library_error", "https://www.deepspeed.ai/tutorials/advanced-install/",
              "jekyll")
    # '{VERSION}' is a value the user's text prints otherwise: the message is cut there
    assert "does not match the version torch was compiled with" in ds["fragments"]
    assert any("`DS_SKIP_CUDA_CHECK=1`" in f for f in ds["fix"]) and "DS_SKIP_CUDA_CHECK" in " ".join(ds["names"])
    assert ds["url"].endswith("#cuda-version-mismatch")


def test_code_and_descriptions_are_not_quoted_messages():
    # a line of code, a comment and a sentence of prose with 'error' are no program's message
    blocks = [("code", ["raise ValueError('the value is invalid for this option')",
                        "x = load()  # error: not found here in the cache", "model = Model(config)"]),
              ("p", "This can raise an error if the value is invalid for the option given.")]
    assert gen.quoted(blocks, "Usage", False) == []
    # an exception line with its message on the lines after it (accelerate's DistributedOperationException)
    blocks = [("code", ["accelerate.utils.operations.DistributedOperationException:", "",
                        "Cannot apply desired operation due to shape mismatches."])]
    assert gen.quoted(blocks, "x", False) == [("accelerate.utils.operations.DistributedOperationException",
                                               "Cannot apply desired operation due to shape mismatches.")]


def _causes(text):
    res = explain.explain_text(text)
    f = (res["findings"] or [{}])[0]
    return res, f.get("causes") or []


def _doc(causes):
    return [i for i, c in enumerate(causes) if c.get("doc_section")]


def test_documented_message_alone_is_answered_with_the_projects_family():
    # https://github.com/huggingface/sentence-transformers/issues/1030 (the whole report)
    text = ("ValueError: Connection error, and we cannot find the requested files in the cached path. Please try "
            "again or make sure your Internet connection is on.\n")
    res, causes = _causes(text)
    assert res["verdict"] == "likely_cause" and res["root"] == "transformers.hub"
    assert _doc(causes) == [0]
    assert causes[0]["doc_section"] == "https://huggingface.co/docs/transformers/troubleshooting#firewalled-environments"
    assert "offline mode" in " ".join(causes[0]["fix"])


def test_documented_remedy_ranks_below_the_cause_the_text_proves():
    # https://github.com/huggingface/trl/issues/2882 (rank 0's lines of the report)
    text = ('[rank0]:   File "/usr/local/lib/python3.10/dist-packages/accelerate/utils/operations.py", line 389, in '
            'wrapper\n'
            '[rank0]:     raise DistributedOperationException(\n'
            '[rank0]: accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due '
            'to shape mismatches. All shapes across devices must be valid.\n\n'
            '[rank0]: Operation: `accelerate.utils.operations.gather`\n'
            '[rank0]: Input shapes:\n'
            '[rank0]:   - Process 0: [2, 350, 32256]\n'
            '[rank0]:   - Process 1: [2, 658, 32256]\n')
    res, causes = _causes(text)
    assert res["root"].startswith("accelerate.")
    got = _doc(causes)
    assert len(got) == 1 and got[0] >= 1  # below the generated site's own cause of this message
    assert "basic_tutorials/troubleshooting#mismatched-tensor-shapes" in causes[got[0]]["doc_section"]
    # https://github.com/JIA-Lab-research/MGM/issues/91
    text = ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version "
            "12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions "
            "without a matching cuda version.\n")
    res, causes = _causes(text)
    got = _doc(causes)
    assert res["root"] == "deepspeed.ops" and len(got) == 1 and got[0] >= 1
    assert "DS_SKIP_CUDA_CHECK=1" in " ".join(causes[got[0]]["fix"])


def test_a_warning_line_or_a_healthy_log_gets_no_documented_remedy():
    # the documented message at INFO / WARNING level: no failure line, no answer from the page
    text = ("2024-05-01 10:00:00 WARNING hub: Connection error, and we cannot find the requested files in the cached "
            "path; retrying\n2024-05-01 10:00:02 INFO loaded model from cache\n")
    res, causes = _causes(text)
    assert not _doc(causes)
    # no line of the healthy fixtures holds a documented fragment at all
    folder = os.path.join(REPO, "fixtures", "logs", "healthy")
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), errors="replace") as f:
            for line in f:
                assert not docremedy.sections_of(line), (name, line)


def test_matching_is_linear_in_the_line():
    st = docremedy._table()
    key = next(iter(st["index"]))
    line = (key + " ") * 2000  # every position looks a fragment up and compares its words
    assert docremedy.sections_of(line) == []  # a fragment repeated is no section; its time (0.5 s): bench/cpu_bounds.py


@pytest.mark.parametrize("heading,style,want", [
    ("ValueError: Attempting to unscale FP16 gradients", "hf", "valueerror-attempting-to-unscale-fp16-gradients"),
    ("CUDA version mismatch", "jekyll", "cuda-version-mismatch"),
    ("Building for the correct architectures", "sphinx", "building-for-the-correct-architectures"),
    ("`RuntimeError` Exception", "github", "runtimeerror-exception"),
    ("Too Many Requests [[too-many-requests]]", "hf", "too-many-requests"),
])
def test_anchor_of_a_heading(heading, style, want):
    assert gen.anchor(heading, style) == want


class _Hit:
    def __init__(self, line, text, severity=None):
        self.line, self.text, self.severity = line, text, severity


class _Scan:
    def __init__(self, errors, tracebacks=()):
        self.errors, self.tracebacks = list(errors), list(tracebacks)


def _result(root_id, family, line, causes):
    return {"verdict": "root_cause", "findings": [{"id": root_id, "family": family, "confidence": "medium",
                                                   "matches": [{"line": line}], "causes": causes}]}


def test_apply_ranks_and_relates_the_documented_cause():
    from gpudoctor.explain import load_knowledge

    kb = load_knowledge()
    # (the DeepSpeed page's message, as a failure line)
    msg = ("Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was "
           "compiled with 11.7, unable to compile cuda/cpp extensions without a matching cuda version.")
    proven = {"text": "p", "fix": [], "evidence": [{"line": 3}], "static_rank": 1, "computed": None}
    generic = {"text": "g", "fix": [], "evidence": [], "static_rank": 1, "computed": None}
    # below the proven cause, and below the answer's first cause
    res = _result("deepspeed.ops", "deepspeed.ops", 3, [proven, dict(generic)])
    docremedy.apply(res, _Scan([_Hit(3, msg)]), kb)
    assert [bool(c.get("doc_section")) for c in res["findings"][0]["causes"]] == [False, True, False]
    res = _result("deepspeed.ops", "deepspeed.ops", 3, [dict(generic), dict(generic)])
    docremedy.apply(res, _Scan([_Hit(3, msg)]), kb)
    assert [bool(c.get("doc_section")) for c in res["findings"][0]["causes"]] == [False, True, False]
    # a root of another family whose line is far from the documented line: not this page's message
    res = _result("nccl.net_ib", "nccl.net_ib", 400, [dict(generic)])
    docremedy.apply(res, _Scan([_Hit(3, msg)]), kb)
    assert len(res["findings"][0]["causes"]) == 1
    # ... but the root's own line (within NEAR lines) is, whatever its family
    res = _result("cuda.api_error", "cuda.api_error", 5, [dict(generic)])
    docremedy.apply(res, _Scan([_Hit(3, msg)]), kb)
    assert res["findings"][0]["causes"][1]["doc_section"].endswith("#cuda-version-mismatch")
    # a WARN line is no failure line; a healthy answer is never read
    res = _result("deepspeed.ops", "deepspeed.ops", 3, [dict(generic)])
    docremedy.apply(res, _Scan([_Hit(3, msg, "warn")]), kb)
    assert len(res["findings"][0]["causes"]) == 1
    res = {"verdict": "no_error", "findings": []}
    docremedy.apply(res, _Scan([_Hit(3, msg)]), kb)
    assert res == {"verdict": "no_error", "findings": []}


def test_a_short_fragment_needs_the_project_named():
    # https://github.com/kubernetes-sigs/jobset/issues/67: the API server's webhook error for JobSet's own webhook
    text = ('Error from server (InternalError): error when creating "jobset.yaml": Internal error occurred: failed '
            'calling webhook "mjobset.kb.io": failed to call webhook: Post "https://jobset-webhook-service.jobset-'
            'system.svc:443/mutate-batch-x-k8s-io-v1alpha1-jobset?timeout=10s": no endpoints available for service '
            '"jobset-webhook-service"\n')
    res, causes = _causes(text)
    assert res["root"] == "k8s.jobset" and _doc(causes) == [0]
    assert "jobset.sigs.k8s.io/docs/troubleshooting/" in causes[0]["doc_section"]
    # https://github.com/elastic/cloud-on-k8s/issues/1114: the same API server words for another operator's webhook:
    # the line holds JobSet's five-word fragment, the text never names JobSet, so no JobSet answer
    line = ('Internal error occurred: failed calling webhook "validation.elasticsearch.elastic.co": Post https://'
            'elastic-webhook-service.elastic-system.svc:443/validate-elasticsearches?timeout=30s: no endpoints '
            'available for service "elastic-webhook-service"')
    assert any(0 < n < docremedy.LONG for _r, n in docremedy.sections_of(line))
    from gpudoctor.explain import load_knowledge

    kb = load_knowledge()
    res = {"verdict": "unknown_error", "findings": [], "errors": [{"line": 1, "text": line}]}
    docremedy.apply(res, _Scan([_Hit(1, line)]), kb)
    assert res["verdict"] == "unknown_error" and not res["findings"]
    named = line.replace("elastic-webhook-service.elastic-system", "jobset-webhook-service.jobset-system")
    assert docremedy.names_project(_Scan([_Hit(1, named)]), "jobset")
    assert not docremedy.names_project(_Scan([_Hit(1, line)]), "jobset")


def test_a_project_is_named_by_its_packages_spelling():
    frames = [("/opt/venv/lib/python3.11/site-packages/pytorch_lightning/trainer/trainer.py", 10, "fit")]
    assert docremedy.names_project(_Scan([], [{"exc": "RuntimeError", "frames": frames}]), "lightning")
    assert not docremedy.names_project(_Scan([], [{"exc": "RuntimeError", "frames": frames}]), "jax")
