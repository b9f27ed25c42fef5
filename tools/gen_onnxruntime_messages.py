#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/onnxruntime_messages.json: what ONNX Runtime's Python API refuses or warns
about, above all that the execution provider asked for (CUDAExecutionProvider, TensorrtExecutionProvider) is not in
the installed build, after which the session runs on the CPU.

Read from the onnxruntime wheel (PyPI), never executed (tools/wheelmsgs.py): every `raise X("...")`, `assert ...,
"..."`, logger .error / .warning and warnings.warn of FILES (onnxruntime/__init__.py and onnxruntime/capi/*.py), a
message built in a variable first. Each becomes a bounded matcher assigned to a knowledge entry
(knowledge/onnxruntime.toml) by RULES. Warnings are context only, except those WARNING_RULES names: a warning that the
provider the caller asked for is absent is the failure itself (onnxruntime_inference_collection.py
check_and_normalize_provider_args: the provider is dropped and the session is made with the ones the build has, which
is the CPU for the `onnxruntime` wheel; https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html:
the CUDA provider is in the `onnxruntime-gpu` package). MSG_FIX gives a message its own meaning and fix.

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.12 onnxruntime==1.32.0 -d /tmp/w
    python tools/gen_onnxruntime_messages.py --wheel /tmp/w/onnxruntime-1.32.0-cp312-cp312-manylinux_2_28_x86_64.whl \\
        [--record tools/data/onnxruntime_messages_slice.txt] [-o OUT]
    python tools/gen_onnxruntime_messages.py --slice tools/data/onnxruntime_messages_slice.txt -o OUT   (the test)

Source: onnxruntime (https://pypi.org/project/onnxruntime/, MIT; https://github.com/microsoft/onnxruntime,
onnxruntime/python/onnxruntime_inference_collection.py). The regenerated table read onnxruntime 1.32.0.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_onnxruntime_messages.py"
FILES = r"^onnxruntime/(?:__init__|capi/[a-z_]+)\.py$"

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"must return a?n? ?instance of type|needs to be of type `onnxruntime\.capi"}),
    ("ctx-session", "onnxruntime.usage", {"level": r"^raise$",
                                          "where": r"^onnxruntime/capi/onnxruntime_inference_collection\.py:"}),
]
# warnings that are the failure: (rule, knowledge entry, regex over the text)
WARNING_RULES = [
    ("provider-absent", "onnxruntime.provider_absent", r"is not in available provider names"),
]

_DOC = "https://onnxruntime.ai/docs/"
MSG_FIX = [
    (r"is not in available provider names",
     "onnxruntime_inference_collection.py: the session was asked for an execution provider that the installed "
     "onnxruntime build does not contain; ONNX Runtime drops it and makes the session with the providers it has "
     "(the `onnxruntime` wheel has only the CPU ones, so the model runs on the CPU, slowly, with no error). The CUDA "
     "and TensorRT providers come with the `onnxruntime-gpu` package, built for one CUDA major.",
     ["pip uninstall -y onnxruntime && pip install onnxruntime-gpu (the wheel for your CUDA major; both installed "
      "at once, the CPU one may shadow it); check with python -c 'import onnxruntime as ort; "
      "print(ort.get_available_providers())' that CUDAExecutionProvider is listed; " + _DOC +
      "execution-providers/CUDA-ExecutionProvider.html#requirements"]),
    (r"^Required inputs \(%s\) are missing from input feed",
     "InferenceSession.run(): the input feed dict lacks inputs the model declares (its keys must be the model's "
     "input names).",
     ["name the feed's keys after the model's inputs: [i.name for i in sess.get_inputs()]"]),
    (r"^'providers' and 'provider_options' should be the same length|^'providers' values must be|^'provider_options' "
     r"values must be dicts|^Only string values for 'providers'",
     "InferenceSession(providers=..., provider_options=...): the provider list and its options do not fit together.",
     ["pass providers=[('CUDAExecutionProvider', {'device_id': 0}), 'CPUExecutionProvider'] (a name, or a (name, "
      "options dict) tuple, each), or two lists of the same length"]),
]


def build(files, version):
    sites = wheelmsgs.py_sites(files, "onnxruntime.", RULES, MSG_FIX)
    for s in sites:
        if (s.get("rule") or "").startswith("ctx-") and not knowgen.own_enough(s["text"]):
            # matched on its words alone by the file that raises it: too few of its own ('Unsupported device type: %s')
            s.update({"family": None, "rule": "too few words of its own to assign by its source file"})
            s.pop("means", None), s.pop("fix", None)
        if s.get("level") != "warning" or not s.get("re"):
            continue
        for rule, family, rx in WARNING_RULES:
            if re.search(rx, s["text"]):
                s.update({"family": family, "rule": rule})
                knowgen.give_fix(s, MSG_FIX, s["text"])
                break
    return {"header": knowgen.header("onnxruntime (https://pypi.org/project/onnxruntime/)", version, GENERATOR,
                                     "raise/assert/logger/warnings messages of onnxruntime/__init__.py and "
                                     "onnxruntime/capi/*.py; families from the RULES and WARNING_RULES tables of the "
                                     "generator"),
            "sites": sites}


def read(wheel, older=None):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "onnxruntime")
    return files, version.split(" (")[0]


def main(argv):
    return wheelmsgs.main(argv, __doc__, "onnxruntime_messages", "onnxruntime", read, build, MSG_FIX, GENERATOR,
                          lambda s: s.get("family"), "the statements of the assigned sites")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
