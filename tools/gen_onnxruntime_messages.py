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
the CUDA provider is in the `onnxruntime-gpu` package). And the C++ session's checks of the arrays fed to sess.run()
(onnxruntime/core/session/inference_session.cc: CheckShapes, CheckTypes, ValidateInputsOutputs; an excerpt at a
commit): each `ORT_MAKE_STATUS(...)` and `ostr << ...` message, its literals joined, the `input_output_moniker` both
ways ('input' / 'output'): a fed array of another shape -> onnxruntime.input_shape (usercode.shape_mismatch), of
another element type -> onnxruntime.input_dtype (usercode.dtype_mismatch). MSG_FIX gives a message its own meaning and
fix.

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.12 onnxruntime==1.32.0 -d /tmp/w
    python tools/gen_onnxruntime_messages.py --wheel /tmp/w/onnxruntime-1.32.0-cp312-cp312-manylinux_2_28_x86_64.whl \\
        --cc-file <excerpt of onnxruntime/core/session/inference_session.cc> \\
        --cc-commit 003b97d3e334146462ae7e86905777e7f6310a56 [--record tools/data/onnxruntime_messages_slice.txt] [-o OUT]
    (the excerpt: the statements of CheckShapes, CheckTypes and the head of ValidateInputsOutputs, from
    https://github.com/microsoft/onnxruntime/blob/003b97d3e334146462ae7e86905777e7f6310a56/onnxruntime/core/session/
    inference_session.cc)
    python tools/gen_onnxruntime_messages.py --slice tools/data/onnxruntime_messages_slice.txt -o OUT   (the test)

Source: onnxruntime (https://pypi.org/project/onnxruntime/, MIT; https://github.com/microsoft/onnxruntime,
onnxruntime/python/onnxruntime_inference_collection.py). The regenerated table read onnxruntime 1.32.0.
"""

import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_onnxruntime_messages.py"
FILES = r"^onnxruntime/(?:__init__|capi/[a-z_]+)\.py$"
# the C++ session's checks of a run's feeds (microsoft/onnxruntime at a commit: CheckShapes, CheckTypes and the head of
# ValidateInputsOutputs, recorded as an excerpt): what sess.run() raises as InvalidArgument: [ONNXRuntimeError] : 2 :
# INVALID_ARGUMENT : <message>
CC_PATH = "onnxruntime/core/session/inference_session.cc"

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"must return a?n? ?instance of type|needs to be of type `onnxruntime\.capi"}),
    ("feed-shape", "onnxruntime.input_shape", {"where": r"^onnxruntime/core/session/",
                                               "text": r"^Got invalid dimensions for input|^Invalid rank for input"}),
    ("feed-dtype", "onnxruntime.input_dtype", {"where": r"^onnxruntime/core/session/",
                                               "text": r"^Unexpected input data type"}),
    ("ctx-session", "onnxruntime.usage", {"level": r"^raise$",
                                          "where": r"^onnxruntime/capi/onnxruntime_inference_collection\.py:"}),
]
# warnings that are the failure: (rule, knowledge entry, regex over the text)
WARNING_RULES = [
    ("provider-absent", "onnxruntime.provider_absent", r"is not in available provider names"),
]

_DOC = "https://onnxruntime.ai/docs/"
MSG_FIX = [
    (r"^Got invalid dimensions for input|^Invalid rank for input",
     "onnxruntime/core/session/inference_session.cc CheckShapes(): a fed array's shape differs from the model's "
     "declared input shape in the dimensions listed (Got / Expected per index); a dimension exported as a fixed number "
     "(a batch of 1, an image size) accepts only that number.",
     ["give the input the model's shape (sess.get_inputs()[0].shape): add or drop the batch axis (np.expand_dims(x, 0)), "
      "transpose NHWC / NCHW (x.transpose(0, 3, 1, 2)), resize to the exported size; or re-export the model with the "
      "varying dimensions dynamic: torch.onnx.export(..., dynamic_axes={'<input>': {0: 'batch'}})"]),
    (r"^Unexpected input data type",
     "onnxruntime/core/session/inference_session.cc CheckTypes(): a fed array's element type differs from the model's "
     "input type (NumPy arrays are float64 by default, models usually float32).",
     ["cast the input to the model's type: x.astype(np.float32) (sess.get_inputs()[0].type names it)"]),

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


_STR = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_CHOICE = re.compile(r'const[ \t]+char\*[ \t]+const[ \t]+(\w{1,60})[ \t]*=[ \t]*[^?;\n]{1,80}\?[ \t]*"([^"\n]*)"[ \t]*:'
                     r'[ \t]*"([^"\n]*)"[ \t]*;')


def cc_sites(src):
    """(level, line, format) of the session's statuses in a C++ excerpt: each `ORT_MAKE_STATUS(ONNXRUNTIME, <CODE>,
    args...)` and each `ostr << ...;` stream, their string literals joined, an operand named by the excerpt's
    `const char* const <name> = c ? "a" : "b";` both ways (its first line is what a user sees), any other a value."""
    choices = {m.group(1): [m.group(2), m.group(3)] for m in _CHOICE.finditer(src)}
    out = []
    calls = [(m.start(), m.end(), "call") for m in re.finditer(r"ORT_MAKE_STATUS\(", src)]
    calls += [(m.start(), m.end(), "stream") for m in re.finditer(r"\bostr[ \t]*<<", src)]
    for start, end, kind in calls:
        stop = src.find(";", end)
        body = src[end:stop]
        ops = (knowgen.call_args(body, 0) or [])[2:] if kind == "call" else [o.strip() for o in body.split("<<")]
        variants = [("", {})]  # (text, {name: branch}): a name used twice takes the same branch
        for op in ops:
            if re.fullmatch(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', op):
                parts = {None: "".join(knowgen.c_unescape(x) for x in _STR.findall(op)).replace("%", "%%")}
            elif op in choices:
                parts = dict(enumerate(choices[op]))
            else:
                parts = {None: "%s"}
            variants = [(v + p, dict(ch, **({op: k} if k is not None else {}))) for v, ch in variants
                        for k, p in parts.items() if k is None or ch.get(op, k) == k]
        variants = [v for v, _ in variants]
        line = src.count("\n", 0, start) + 1
        for v in variants:
            text = " ".join(v.split("\n")[0].split())
            if kind == "stream" and not re.match(r"[A-Z]", text):
                continue  # a continuation of the stream's message (" index: %s Got: %s ...")
            if re.search(r"[A-Za-z]{3}", text.replace("%s", "")):
                out.append(("raise", line, text))
    return out


def build(files, version):
    sites = wheelmsgs.py_sites([(p, s) for p, s in files if p.endswith(".py")], "onnxruntime.", RULES, MSG_FIX)
    seen = {s["text"] for s in sites}
    ids = {s["id"] for s in sites}
    for path, srcs in wheelmsgs.group(files).items():
        if not path.endswith(".cc"):
            continue
        for level, line, fmt in cc_sites(wheelmsgs.overlay([textwrap.dedent(x) for x in srcs])):
            if fmt in seen:
                continue
            seen.add(fmt)
            sites.append(wheelmsgs.site_for("onnxruntime.cc_", ids, level, "%s:%d" % (path, line), fmt, RULES,
                                            MSG_FIX))
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
    return {"header": knowgen.header("onnxruntime (https://pypi.org/project/onnxruntime/), microsoft/onnxruntime "
                                     "(https://github.com/microsoft/onnxruntime) " + CC_PATH, version, GENERATOR,
                                     "raise/assert/logger/warnings messages of onnxruntime/__init__.py and "
                                     "onnxruntime/capi/*.py; the C++ session's checks of a run's feeds; families from "
                                     "the RULES and WARNING_RULES tables of the generator"),
            "sites": sites}


def read(wheel, cc_file, cc_commit):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "onnxruntime")
    with open(cc_file) as f:
        files.append((CC_PATH, f.read()))
    return files, version.split(" (")[0] + "; microsoft/onnxruntime %s %s" % (CC_PATH, cc_commit)


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheel", extra=[
        ("--cc-file", {"help": "the excerpt of " + CC_PATH + " (CheckShapes, CheckTypes, the head of "
                                                              "ValidateInputsOutputs) at --cc-commit"}),
        ("--cc-commit", {"help": "the microsoft/onnxruntime commit the excerpt was read at"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites)"})])
    if a.wheel:
        if not (a.cc_file and a.cc_commit):
            a.error("give --cc-file and --cc-commit with --wheel")
        files, version = read(a.wheel, a.cc_file, a.cc_commit)
    else:
        files, version = knowgen.read_slice(a.slice)
    out = build(files, version)
    if a.wheel:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, out["sites"], of="wheel")
        if a.record:
            kept = {wheelmsgs.site_key(s) for s in out["sites"] if s.get("family")}
            cc = [(p, 1, src) for p, src in files if p == CC_PATH]  # the excerpt whole, as read
            wheelmsgs.write_record(a.record, version, files, kept.__contains__, GENERATOR, cc)
    return knowgen.emit("onnxruntime_messages", out, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
