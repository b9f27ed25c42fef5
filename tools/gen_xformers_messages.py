#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/xformers_messages.json: why xFormers' memory_efficient_attention found no
kernel for a call. xformers/ops/fmha/dispatch.py tries each operator of a priority list and, when none supports the
inputs, raises

    NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
         query : shape=(1, 4096, 8, 40) (torch.float32) ...
    `cutlassF` is not supported because:
        xFormers wasn't build with CUDA support
    `flshattF@v2.5.6` is not supported because:
        requires device with capability >= (8, 0) but your GPU has capability (7, 5) (too old)
        dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})

Each reason is one `reasons.append(...)` of an operator's not_supported_reasons / shape_not_supported_reasons
(xformers/ops/fmha/common.py and the operators' modules: cutlass.py, flash.py, flash3.py, ck.py, ...). This generator
reads every such append (its f-string as a format) and dispatch.py's own headers, with the family (knowledge/
xformers.toml) the RULES table gives: the build (xFormers' C++/CUDA operators not built for this torch: "xFormers
wasn't build with CUDA support", "operator wasn't built - see `python -m xformers.info`"), the GPU (capability too
old, bf16 below A100), the dtype; a reason in words any program prints ("dropout > 0.0", "has custom scale") is listed,
unassigned: the header line before it names xFormers.

The older release OLDER is read too: a wording it printed that the current one no longer does is a site of its own
(marked "older").

Usage:
    python tools/gen_xformers_messages.py --repo /path/to/xformers.git [--rev v0.0.35] [--record] [-o OUT]
    python tools/gen_xformers_messages.py --slice tools/data/xformers_messages_slice.txt -o OUT   (the test)

Source: facebookresearch/xformers (https://github.com/facebookresearch/xformers, BSD-3-Clause), read with
`git show REV:path`; the regenerated table read the release tags v0.0.35 and v0.0.23.post1. Installation (a wheel per torch release):
https://github.com/facebookresearch/xformers#installing-xformers.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_xformers_messages.py"
NAME = "xformers_messages"
SLICE = os.path.join(knowgen.DATA, NAME + "_slice.txt")
DIR = "xformers/ops/fmha/"
OLDER = "v0.0.23.post1"  # the release of early 2024 (torch 2.2), read for its wordings
NEED = 10  # "(supported:" of the dtype reason is 11

RULES = [
    # dispatch.py: the headers of the refusal
    ("no-operator", "xformers.inputs", {"text": r"^No operator found for `%s` with inputs:|^Operator `%s` does not "
                                                r"support inputs:"}),
    # the C++/CUDA operators absent from this install (a wheel for another torch, a CPU-only build, a failed build)
    ("build", "xformers.build", {"text": r"wasn't build with CUDA support|operator wasn't built|"
                                         # torch_attention_compat.py / flash.py: the torch it runs with is not the one
                                         # it was built against (the aten attention schemas, the bundled FlashAttention)
                                         r"doesnt have a compatible aten::|doesnt implement torch\.nn\.attention|"
                                         r"^Requires Flash-Attention version"}),
    # the GPU and the dtype
    ("gpu", "xformers.inputs", {"text": r"but your GPU has capability|only supported on A100\+ GPUs|"
                                        r"sm80 minimum compute capacity"}),
    ("dtype", "xformers.inputs", {"text": r"^dtype=%s \(supported: %s\)$"}),
]

_INFO = "python -m xformers.info   (which operators this install has: 'unavailable' ones were not built)"
MSG_FIX = [
    (r"wasn't build with CUDA support|operator wasn't built|doesnt have a compatible aten::|^Requires Flash-Attention",
     "This xFormers install has no compiled C++/CUDA operators for this torch: a wheel built for another torch "
     "release (pip installed xformers for one torch, torch was changed after), a CPU-only torch, or a source build "
     "that skipped CUDA.",
     [_INFO, "install the xformers wheel made for the installed torch (pip install -U xformers --index-url "
             "https://download.pytorch.org/whl/cu<XY>, the same index and CUDA as torch), or reinstall torch at the "
             "release xformers was built for; or leave xformers out (diffusers / the library's sdpa attention)"]),
    (r"but your GPU has capability %s \(too old\)|only supported on A100\+ GPUs|sm80 minimum compute capacity",
     "The operator (FlashAttention's flshattF / fa3F) needs a newer GPU (compute capability 8.0+, 9.0 for fa3F) "
     "than this one; xFormers then needs another operator (cutlassF) for the call, whose own reason is the one to "
     "fix.",
     ["read the reasons of the other operators in the message (cutlassF's: its build, the dtype); on a pre-Ampere "
      "GPU use fp16 rather than bf16", _INFO]),
    (r"^dtype=%s \(supported: %s\)$",
     "No operator takes this dtype: FlashAttention's need fp16 / bf16, cutlassF also takes float32 when it is "
     "built.",
     ["run attention in fp16 / bf16 (torch_dtype, autocast), or use an xformers build with cutlassF "
      "(python -m xformers.info)"]),
]


def _reason_args(tree):
    """(line, end line, message node) of each `reasons.append(msg)` and of dispatch.py's raised f-strings."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "reasons" and node.args:
            yield node.lineno, node.end_lineno, node.args[0]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id == "msg" and isinstance(node.value, ast.JoinedStr):
            yield node.lineno, node.end_lineno, node.value
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and \
                isinstance(node.exc.args[0], ast.JoinedStr):
            yield node.lineno, node.end_lineno, node.exc.args[0]


def sites_of(path, src):
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return
    for line, end, arg in _reason_args(tree):
        fmt = knowgen.py_format(arg)
        if fmt:
            first = fmt.strip().split("\n")[0]  # a multi-line f-string: its first line is printed alone
            yield line, " ".join(first.split()), (line, end)


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for line, fmt, _ in sites_of(path, src):
            if fmt in seen or not fmt.strip("%s "):
                continue
            seen.add(fmt)
            where = "%s:%d" % (path, line)
            site = {"id": knowgen.unique_id("xformers." + knowgen.slug(where), ids), "where": where, "text": fmt,
                    "level": "raise"}
            if path.startswith("older/"):
                site["older"] = "xformers " + path.split("/")[1]
            rx, literal = knowgen.printf_to_regex(fmt)
            if not knowgen.unanchored(site, rx, literal, need=NEED):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
                site.update({"re": rx, "family": family, "rule": rule or "a reason in words any program prints: "
                                                                       "the header before it names xFormers"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("facebookresearch/xformers (https://github.com/facebookresearch/xformers) %s*.py"
                                     % DIR, version, GENERATOR,
                                     "the operators' not-supported reasons and dispatch.py's headers; families from "
                                     "the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    """The current release's files, then OLDER's (as 'older/<tag>/<path>': wordings threads of 2023-2024 quote, such
    as 'requires device with capability > (8, 0)' before '>=')."""
    git = knowgen.git_reader(repo)
    keep = lambda p: re.match(re.escape(DIR) + r"[a-z_0-9]+\.py$", p)  # noqa: E731
    files = knowgen.tree_files(git, rev, (DIR,), keep)
    files += [("older/%s/%s" % (OLDER, p), t) for p, t in knowgen.tree_files(git, OLDER, (DIR,), keep)]
    return files, "%s; older %s" % (knowgen.revision(git, rev, describe=False), OLDER)


def _standalone(lines):
    """A statement's lines as a block that parses alone: dedented, or (a multi-line string's lines at column 0 after
    an indented first line) its first line's indentation taken off."""
    text = textwrap.dedent("\n".join(lines))
    try:
        ast.parse(text)
    except SyntaxError:
        text = "\n".join([lines[0].lstrip()] + lines[1:])
    return text


def main(argv):
    return knowgen.sites_main(__doc__, argv, NAME, GENERATOR, build, MSG_FIX, SLICE, rev="v0.0.35",
                              spans=lambda p, src: [span for _, _, span in sites_of(p, src)],
                              shape=_standalone, load=lambda a: from_repo(a.repo, a.rev))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
