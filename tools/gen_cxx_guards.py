#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cxx_guards.json.gz: the checks torch's C++ makes (TORCH_CHECK and its
_VALUE / _INDEX / _TYPE / _NOT_IMPLEMENTED / _WITH forms, C10_THROW_ERROR, AT_ERROR, and the message constants such
as rpc_agent.h's kRpcTimeoutErrorStr), each with its message matcher, the function it is in, the condition that
guards it and a fix written from that condition (explain-cxxguards32, issue 18 "name the fix").

tools/gen_call_guards.py reads torch's Python sources only: a refusal raised in C++ (`torch.device('0')`:
c10/core/Device.cpp's `TORCH_CHECK(!has_error, "Invalid device string: '", device_string, "'")`) had no row, and
explain answered it by the traceback's shape. TORCH_CHECK(cond, args...) raises c10::Error (RuntimeError in Python;
the _VALUE / _INDEX / _TYPE / _NOT_IMPLEMENTED forms ValueError / IndexError / TypeError / NotImplementedError) with
the message c10::str(args...): each string literal is printed as written, each other argument is a value
(c10/util/Exception.h, https://github.com/pytorch/pytorch/blob/main/c10/util/Exception.h). With no message, it
prints "Expected <cond> to be true, but got false." Per site, read statically (never compiled):
  - text / re: the message as a printf-style format (literals as written, each value %s) and its bounded matcher
    (knowgen.matcher);
  - func: the C++ function the check sits in; guard: the check's own condition (TORCH_CHECK), or for a check of
    `false` / a throw, the `if` tests of the blocks it sits in (an `else` branch as `!(test)`);
  - kind: the Python exception class it raises; in_wheel: whether each literal piece of 6+ characters is in the
    wheel's shared objects (libtorch_cpu.so, libtorch_python.so, libc10.so: the code that prints it is there);
  - family / rule: from RULES (by the source folder and the message's words); a site no rule assigns is listed
    ('unassigned'), never guessed; a text another generated table already matches is left to that table (owned);
  - wants: the condition read as what it asks for (WANTS: `x >= 0` -> x must be >= 0, `t.is_contiguous()` -> make t
    contiguous, `a.device() == b.device()` -> the same device), the fix explain/cxxguard.py writes.

Sources, both of the torch 2.13.0+cpu wheel users install (https://download.pytorch.org/whl/cpu, BSD-3-Clause,
github.com/pytorch/pytorch at its torch/version.py git_version):
  - the C++ headers it ships under torch/include/ (c10/, ATen/, torch/csrc/): the inline checks of c10/core
    (Device.h's validate, ScalarType.h, TensorOptions.h), ATen/native's headers, torch/csrc/distributed (c10d's
    Store / Utils.hpp, rpc's rpc_agent.h), torch/csrc/autograd, torch/csrc/utils/python_arg_parser.h;
  - .cpp files the wheel does not ship, recorded whole from pytorch/pytorch in tools/data/cxx_guards_cpp.txt
    (`=== path @1` and the commit they were read at): c10/core/Device.cpp.

Usage:
    python tools/gen_cxx_guards.py --wheel /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl [-o OUT]
        (writes tools/data/cxx_guards_slice.txt.gz too: each site's statement and the guard/function read)
    python tools/gen_cxx_guards.py --slice tools/data/cxx_guards_slice.txt.gz -o OUT   (the test)
"""

import argparse
import json
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_cxx_guards.py"
NAME = "cxx_guards"
SLICE = "cxx_guards_slice.txt"
CPP = os.path.join(knowgen.DATA, "cxx_guards_cpp.txt")
HEADERS = re.compile(r"^torch/include/((?:c10/(?:core|util|cuda)|ATen/(?:native|core)|ATen|torch/csrc/(?:distributed/"
                     r"(?:c10d|rpc)|autograd|utils|cuda|api/include/torch/nn))/(?:[A-Za-z0-9_]+/){0,3}[A-Za-z0-9_]+\.(?:h|hpp|cuh))$")
LIBS = ("torch/lib/libtorch_cpu.so", "torch/lib/libtorch_python.so", "torch/lib/libc10.so")
MAX_GUARD = 240
MAX_GAPS = 8
MIN_OWN = 14  # non-blank literal characters a matched message needs (enough)
MIN_PIECE = 6  # a literal piece this long or longer is looked up in the wheel's strings

# macro -> (index of the condition or None, index where the message starts, Python exception class)
MACROS = {
    "TORCH_CHECK": (0, 1, "RuntimeError"), "TORCH_CHECK_VALUE": (0, 1, "ValueError"),
    "TORCH_CHECK_INDEX": (0, 1, "IndexError"), "TORCH_CHECK_TYPE": (0, 1, "TypeError"),
    "TORCH_CHECK_NOT_IMPLEMENTED": (0, 1, "NotImplementedError"), "TORCH_CHECK_LINALG": (0, 1, "LinAlgError"),
    "TORCH_CHECK_WITH": (1, 2, None), "C10_THROW_ERROR": (None, 1, None), "AT_ERROR": (None, 0, "RuntimeError"),
}
_CALL = re.compile(r"\b(%s)\s*\(" % "|".join(sorted(MACROS, key=len, reverse=True)))
# message constants: `constexpr auto kRpcTimeoutErrorStr = "... ({} ms) ..."` (fmt::format's {} is a value)
_CONST = re.compile(r"\b(?:constexpr\s+auto|const\s+std::string|constexpr\s+const\s+char\s*\*|const\s+char\s*\*)\s+"
                    r"(k[A-Za-z0-9]*(?:Error|Err|Msg|Message)[A-Za-z0-9]*)\s*=\s*((?:\"(?:[^\"\\\n]|\\.)*\"\s*)+);")
_THROW = re.compile(r"\bthrow\s+(TypeError|ValueError|IndexError)\s*\(")
_STR = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "else", "do", "try", "decltype", "defined"}
_FUNC = re.compile(r"([~A-Za-z_][A-Za-z0-9_:~<>]*)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*)?(?:noexcept\s*)?"
                   r"(?:override\s*)?(?:->\s*[^{;]+)?(?::[^{;]*)?$")
_IF = re.compile(r"(?:^|[\s;}])(?:else\s+)?if\s*\((.*)\)\s*$", re.S)

# (rule, path regex, message regex or None, family). First match wins; a site no row matches is unassigned.
RULES = [
    # torch.distributed.rpc: its agent's own timeout (rpc_agent.h kRpcTimeoutErrorStr; rpc_timeout of
    # init_rpc's TensorPipeRpcBackendOptions, or rpc_sync / rpc_async / remote's timeout=)
    ("rpc-timeout", r"distributed/rpc/", r"(?i)timeout|timed out", "torch.rpc_timeout"),
    ("rpc-usage", r"distributed/rpc/", None, "torch.distributed_usage"),
    # c10d's stores: a key not set within the store's timeout is the rendezvous' wait (Store.hpp / HashStore)
    ("store-wait", r"distributed/c10d/(?:[A-Za-z]*Store[A-Za-z]*)\.h", r"(?i)timeout|timed out", "rendezvous.store_timeout"),
    ("c10d-check", r"distributed/c10d/", None, "torch.c10d_error"),
    # the device string / index a call was given (c10/core/Device.*, python_arg_parser.h's device parsing)
    ("device", r"c10/core/Device|c10/core/DeviceType", None, "torch.usage"),
    ("arg-parser", r"torch/csrc/utils/python_arg_parser", None, "torch.usage"),
    # ATen's checks of the tensors an op was given: by what the message names
    ("aten-device", r"^ATen/|c10/core/TensorOptions|torch/csrc/autograd/",
     r"(?i)\bsame device\b|\bto be on\b|\bon the same\b|\bexpected (?:a )?(?:cuda|cpu)\b", "usercode.tensors_on_two_devices"),
    ("aten-dtype", r"^ATen/|c10/core/ScalarType|c10/core/TensorOptions",
     r"(?i)\bdtype\b|scalar ?type|\bexpected (?:Float|Double|Half|Long|Int)\b", "usercode.dtype_mismatch"),
    ("aten-index", r"^ATen/", r"(?i)out of (?:bounds|range)|\binvalid index\b", "usercode.index_out_of_range"),
    ("aten-shape", r"^ATen/",
     r"(?i)\bshapes?\b|\bsizes?\b|\bdim(?:ension)?s?\b|\bnumel\b|\bbroadcast|\bchannels\b|\bmust match\b",
     "usercode.shape_mismatch"),
    ("autograd-inplace", r"torch/csrc/autograd/", r"(?i)in-?place", "usercode.inplace_modified"),
    ("autograd-grad", r"torch/csrc/autograd/", r"(?i)require[s]? grad|grad_fn", "usercode.no_grad"),
]

# Rules whose family the site only hints: explain/cxxguard.py adds the site's condition to an answer of that family,
# and the site makes no pattern. ATen's and autograd's tensor checks are answered today by the traceback's words
# (usercode.shape_mismatch's structural reading names the user's call and line first); a pattern of the family would
# put the family's general causes (a Linear layer's in_features first) before that reading: measured on the seen
# sets and on fixtures/recorded/explain-cxxguards32/cat_shape.txt (torch.cat's sizes)
HINT_ONLY = {"aten-device", "aten-dtype", "aten-index", "aten-shape", "autograd-inplace", "autograd-grad"}

# The sites whose condition reads a value the message does not explain (`!has_error`, a constant with no condition):
# their meaning and fix, each from the code that prints the message (the cited source). (regex over the site's
# text, means, [fix]); {%N|words} is the message's Nth value (gpudoctor/explain/slots.py).
MSG_FIX = [
    # c10/core/Device.cpp Device::Device: the string must match ([a-zA-Z_]+)(?::([1-9]\d*|0))? (the comment above its
    # parser); the type is one parse_type's table names (or the registered privateuse1 backend's name)
    (r"^Invalid device string: '%s'$",
     "torch.device / .to() / torch.cuda.set_device got the device string {%1|the string}, which is not <type> or "
     "<type>:<index> (c10/core/Device.cpp: ([a-zA-Z_]+)(?::([1-9]\\d*|0))?): a bare index written as a string "
     "('0'), a leading or trailing blank, or a list of devices ('cuda:0,1').",
     ["write the device as 'cuda:0' (type, colon, index) or pass the index as an int: torch.device('cuda', 0), "
      "torch.cuda.set_device(0) (an index from the environment: int(os.environ['LOCAL_RANK']))"]),
    (r"^Expected one of %s device type at start of device string: %s$",
     "the device string starts with {%2|a name} that is not a device type of this torch build (c10/core/Device.cpp "
     "parse_type: cpu, cuda, xpu, mps, meta, hpu, ... or the registered privateuse1 backend): a misspelling, or a "
     "device name such as 'gpu' / 'nvidia'.",
     ["write the type as torch names it: 'cuda' (NVIDIA and ROCm GPUs), 'cpu', 'mps', 'xpu': torch.device('cuda:0')"]),
    (r"^Device index must not be negative$",
     "a device index below 0 was given (torch/csrc/utils/python_arg_parser.h deviceFromLong: device_index >= 0): "
     "often LOCAL_RANK / a rank variable that was never set (-1 as 'unset').",
     ["give the index of a device of this node, 0 .. torch.cuda.device_count()-1: under torchrun "
      "int(os.environ['LOCAL_RANK']); or torch.device('cuda') for the current device"]),
    # torch/csrc/utils/python_arg_parser.cpp FunctionSignature::parse: the value given for a parameter is not of the
    # type the signature declares (param.type_name(): Tensor, int, tuple of ints, float, bool, torch.dtype, ...)
    (r"\(\): argument '%s' \(position %ld\) must be %s, not %s$",
     "the call's argument {%2|named in the message} (position {%3|n}) was given a {%5|value of another type}; the "
     "signature of {%1|the function} wants {%4|the type it names} there (python_arg_parser.cpp "
     "FunctionSignature::parse).",
     ["pass {%2|that argument} as {%4|the type the message names}: a tensor where it says Tensor (torch.as_tensor(x), "
      "on the other operand's device), an int / a tuple of ints for sizes and dims (int(x), tuple(shape)), a "
      "torch.dtype for dtype (torch.float32, not 'float32')"]),
    (r"\(\): argument '%s' must be %s, not %s$",
     "the call's keyword argument {%2|named in the message} was given a {%4|value of another type}; the signature "
     "of {%1|the function} wants {%3|the type it names} (python_arg_parser.cpp FunctionSignature::parse).",
     ["pass {%2|that argument}= as {%3|the type the message names} (a tensor: torch.as_tensor(x); sizes: a tuple of "
      "ints; dtype: torch.float32, not a string)"]),
    (r"\(\): argument '%s' \(position %ld\) must be %s, but found element of type %s at pos %ld$",
     "the sequence given for {%2|the argument} (position {%3|n}) holds a {%5|value of another type} at index "
     "{%6|i}; {%1|the function} wants {%4|the type it names} (python_arg_parser.cpp FunctionSignature::parse).",
     ["make every element of {%2|that argument} a plain int (tuple(int(d) for d in shape)): a str, a float or a "
      "0-d tensor element is refused (x.item() / int(x) first)"]),
    (r"\(\) got an unexpected keyword argument '%s'$",
     "{%1|the function} has no parameter named {%2|the keyword given} in this torch release (python_arg_parser.cpp "
     "extra_kwargs: the keyword matches none of its signatures).",
     ["write the keyword as the function's documentation of this release names it (e.g. dim=, not dims= / axis= "
      "where numpy names differ), or pass it positionally"]),
    # torch/csrc/distributed/rpc/rpc_agent.h kRpcTimeoutErrorStr, set on the future by the agent's timeout poller
    # (tensorpipe_agent.cpp pollTimeoutRpcs) when an RPC's deadline passes; the default is kDefaultRpcTimeoutSeconds
    # (60 s); https://pytorch.org/docs/stable/rpc.html rpc_sync(timeout=): 0 is no timeout
    (r"^RPC ran for more than set timeout",
     "a torch.distributed.rpc call (rpc_sync / rpc_async / remote) got no answer within its timeout ({%1|the "
     "timeout} ms): the callee was slow, blocked or gone, or the timeout is too short for the work.",
     ["give the call the time it needs: rpc.rpc_sync(to, fn, args=..., timeout=SECONDS) (0: no timeout), or for "
      "every call rpc.init_rpc(..., rpc_backend_options=rpc.TensorPipeRpcBackendOptions(rpc_timeout=SECONDS)) "
      "(default 60 s)",
      "if the callee should have answered: read that worker's log for its own error, and look for a handler that "
      "waits on another RPC (with few num_worker_threads, TensorPipeRpcBackendOptions(num_worker_threads=...), "
      "default 16)"]),
]

# What a condition asks for, read from its shape: (regex over the condition, what it wants). %(a)s / %(b)s are the
# regex's named groups as written. First match wins; a condition no row reads keeps its text ("make `cond` hold").
_OP = r"(?P<a>[A-Za-z_][\w.\->\[\]()]{0,60}?)"
_VAL = r"(?P<b>[^&|?:;]{1,60}?)"
WANTS = [
    (r"^!?\s*%s\.empty\(\)$" % _OP, "%(a)s not empty"),
    (r"^%s\.defined\(\)$" % _OP, "%(a)s given (a defined tensor, not None)"),
    (r"^%s\.is_contiguous\([^)]*\)$" % _OP, "%(a)s contiguous (call .contiguous() on it first)"),
    (r"^%s\.is_cuda\(\)$" % _OP, "%(a)s on a CUDA device (.cuda() / .to('cuda'))"),
    (r"^%s\.is_cpu\(\)$" % _OP, "%(a)s on the CPU (.cpu())"),
    (r"^%s\.(?:device|get_device)\(\)\s*==\s*%s$" % (_OP, _VAL), "%(a)s on the device %(b)s (.to(...) both alike)"),
    (r"^%s\.(?:scalar_type|dtype)\(\)\s*==\s*%s$" % (_OP, _VAL), "%(a)s of dtype %(b)s (.to(dtype) both alike)"),
    (r"^%s\.(?:dim|ndimension)\(\)\s*==\s*%s$" % (_OP, _VAL), "%(a)s with %(b)s dimensions"),
    (r"^%s\s*>=\s*0$" % _OP, "%(a)s >= 0 (not negative)"),
    (r"^%s\s*>\s*0$" % _OP, "%(a)s > 0"),
    (r"^%s\s*(?P<op><=?|>=?|==|!=)\s*%s$" % (_OP, _VAL), "%(a)s %(op)s %(b)s"),
]


def strip_comments(src):
    """``src`` with its comments blanked (newlines kept: line numbers stay), string literals left as they are."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or (c == "'" and i + 2 < n):
            q = c
            j = i + 1
            while j < n and src[j] != q and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def blocks(src):
    """[(open, close, header)] of every {...} block of ``src`` (comments stripped): header is the text between the
    previous ';', '{' or '}' and the '{' (a function's signature, `if (x)`, `else`, a namespace, ...)."""
    out, stack, last, i, n = [], [], 0, 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            m = knowgen.C_STRING.match(src, i)
            i = m.end() if m else i + 1
            continue
        if c == "'" and i + 2 < n:
            j = src.find("'", i + 1 + (src[i + 1] == "\\"))
            i = j + 1 if 0 < j < i + 5 else i + 1
            continue
        if c == "#":  # a preprocessor line: its text is no block's header
            j = src.find("\n", i)
            while j > 0 and src[j - 1] == "\\":
                j = src.find("\n", j + 1)
            i = n if j < 0 else j
            last = i
            continue
        if c == "{":
            stack.append((i, " ".join(src[last:i].split())))
            last = i + 1
        elif c == "}":
            if stack:
                o, h = stack.pop()
                out.append((o, i, h))
            last = i + 1
        elif c == ";":
            last = i + 1
        i += 1
    return out


def enclosing(blks, pos):
    """(function name or None, [guard tests]) of the position ``pos``: the innermost function block around it and the
    `if` / `else` blocks between it and ``pos`` (an else's test is the if block just before it)."""
    around = sorted((b for b in blks if b[0] < pos < b[1]), key=lambda b: b[0])
    func, tests = None, []
    for o, _c, h in around:
        m = _IF.search(h)
        if m:
            tests.append(m.group(1).strip())
            continue
        if h.startswith("else") or h.endswith("else"):
            prev = [b for b in blks if b[1] < o and _IF.search(b[2]) and o - b[1] < 20]
            if prev:
                tests.append("!(%s)" % _IF.search(max(prev, key=lambda b: b[1])[2]).group(1).strip())
            continue
        f = _FUNC.search(h)
        if f and f.group(1).rsplit("::", 1)[-1] not in _KEYWORDS and not h.startswith(("namespace", "struct ", "class ")):
            func, tests = f.group(1), []  # (tests above the function are not its guards)
        elif "[" in h and "](" in h.replace(" ", ""):
            pass  # a lambda: its body is the enclosing function's
    return func, tests


def piece_format(arg):
    """A message argument as format text: string literals (adjacent ones joined) as written, '%' as '%%';
    c10::str(...) and `"a" + x + "b"` read piece by piece; any other expression one value (%s)."""
    arg = arg.strip()
    if not arg:
        return ""
    if re.fullmatch(r"(?:\"(?:[^\"\\\n]|\\.)*\"\s*)+", arg):
        return "".join(knowgen.c_unescape(m.group(1)) for m in _STR.finditer(arg)).replace("%", "%%")
    m = re.match(r"(?:c10::)?str\s*\(", arg)
    if m and arg.endswith(")"):
        parts = knowgen.call_args(arg, m.end())
        if parts is not None:
            return "".join(piece_format(p) for p in parts)
    plus = knowgen.call_args("(" + arg + ")", 1)
    if plus and len(plus) == 1 and "+" in arg and '"' in arg:
        pieces, depth, cur, i = [], 0, "", 0
        while i < len(arg):
            c = arg[i]
            if c == '"':
                mm = knowgen.C_STRING.match(arg, i)
                j = mm.end() if mm else i + 1
                cur += arg[i:j]
                i = j
                continue
            depth += c in "([{"
            depth -= c in ")]}"
            if c == "+" and depth == 0:
                pieces.append(cur)
                cur = ""
            else:
                cur += c
            i += 1
        pieces.append(cur)
        if len(pieces) > 1:
            return "".join(piece_format(p) for p in pieces)
    return "%s"


def wants(cond):
    """What a condition asks for in words (WANTS), or None."""
    c = " ".join(cond.split())
    while c.startswith("(") and c.endswith(")") and knowgen.call_args(c, 1) == [c[1:-1].strip()]:
        c = c[1:-1].strip()
    if "&&" in c or "||" in c:
        return None
    for rx, say in WANTS:
        m = re.match(rx, c)
        if m:
            return say % {k: (v or "").strip() for k, v in m.groupdict().items()}
    return None


def sites_of(path, src):
    """The raw sites of one C++ file: dicts with where, macro, kind, cond, text, func, guard."""
    code = strip_comments(src)
    blks = blocks(code)
    line_of = lambda i: code.count("\n", 0, i) + 1  # noqa: E731
    out = []
    for m in _CALL.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if code[line_start:m.start()].lstrip().startswith("#"):
            continue  # the macro's own #define
        args = knowgen.call_args(code, m.end())
        if not args:
            continue
        macro = m.group(1)
        ci, mi, kind = MACROS[macro]
        if macro in ("TORCH_CHECK_WITH", "C10_THROW_ERROR"):
            kind = {"ValueError": "ValueError", "IndexError": "IndexError", "TypeError": "TypeError",
                    "NotImplementedError": "NotImplementedError"}.get(args[0].strip(), "RuntimeError")
        cond = args[ci].strip() if ci is not None and ci < len(args) else None
        if cond is not None and re.fullmatch(r"false|0", cond):
            cond = None
        pieces = args[mi:] if mi < len(args) else []
        fmt = "".join(piece_format(p) for p in pieces)
        if not fmt.strip() and cond:
            fmt = "Expected %s to be true, but got false." % cond.replace("%", "%%")
        fmt = " ".join(fmt.split())
        func, tests = enclosing(blks, m.start())
        guard = cond if cond is not None else " && ".join(tests)
        # a check of its own condition is what was false; a throw / check of `false` sits under its if-tests
        out.append({"where": "%s:%d" % (path, line_of(m.start())), "macro": macro, "kind": kind,
                    "cond": cond, "text": fmt, "func": func, "guard": guard[:MAX_GUARD],
                    "negated": cond is not None})
    # torch/csrc/Exceptions.h's TypeError / ValueError / IndexError take a printf format and its values
    # (python_arg_parser.cpp: `throw TypeError("%s(): argument '%s' (position %ld) must be %s, not %s", ...)`)
    for m in _THROW.finditer(code):
        args = knowgen.call_args(code, m.end())
        if not args or not re.fullmatch(r"(?:\"(?:[^\"\\\n]|\\.)*\"\s*)+", args[0].strip()):
            continue
        fmt = " ".join("".join(knowgen.c_unescape(x.group(1)) for x in _STR.finditer(args[0])).split())
        func, tests = enclosing(blks, m.start())
        out.append({"where": "%s:%d" % (path, line_of(m.start())), "macro": "throw " + m.group(1),
                    "kind": m.group(1), "cond": None, "text": fmt, "func": func, "guard": " && ".join(tests)[:MAX_GUARD],
                    "negated": False})
    for m in _CONST.finditer(code):
        fmt = "".join(knowgen.c_unescape(s.group(1)) for s in _STR.finditer(m.group(2)))
        fmt = " ".join(fmt.replace("%", "%%").replace("{}", "%s").split())
        out.append({"where": "%s:%d" % (path, line_of(m.start())), "macro": m.group(1), "kind": "RuntimeError",
                    "cond": None, "text": fmt, "func": None, "guard": "", "negated": False})
    return out


_ANY_CONV = re.compile(r"(?<!%)%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]")


def literal_pieces(fmt):
    """The literal runs of a format (split at every printf conversion: the wheel may print a value with {} where the
    recorded source has %ld) that are long enough to look up."""
    return [p.replace("%%", "%").strip() for p in _ANY_CONV.split(fmt) if len(p.replace("%%", "%").strip()) >= MIN_PIECE]


def _owned_index():
    """[(needles, compiled re, table)] of the other generated tables' assigned sites (their texts are theirs)."""
    sys.path.insert(0, knowgen.ROOT)
    from gpudoctor.explain.knowledge import generated_files, read_json, table_name

    out = []
    for path in generated_files():
        name = table_name(path)
        if name in (NAME, "call_guards"):
            continue
        try:
            doc = read_json(path)
        except (OSError, ValueError):
            continue
        for s in doc.get("sites") or []:
            if s.get("family") and s.get("re") and s.get("needles"):
                out.append((s["needles"], s["re"], name))
    return out


def _owner(text, index):
    sample = re.sub(r"(?<!%)%s", "X", text).replace("%%", "%")
    squashed = "".join(sample.lower().split())
    for needles, rx, name in index:
        if all(n in squashed for n in needles):
            try:
                if re.search(rx, sample, re.I):
                    return name
            except re.error:
                continue
    return None


def enough(fmt):
    """Whether a C++ message has words enough of its own to be matched: two words and MIN_OWN non-blank literal
    characters ("Invalid device string: '%s'" has; "%s: %s" has not)."""
    lit = re.sub(r"(?<!%)%s", " ", fmt).replace("%%", "%")
    return len(re.findall(r"[A-Za-z]{2,}", lit)) >= 2 and len("".join(lit.split())) >= MIN_OWN


CUDA_ONLY = re.compile(r"(?:^|/)(?:cuda|cudnn|miopen|hip)/|CUDA[A-Za-z]*\.h|\.cuh$")


def in_strings(pieces, strings):
    """Whether every piece is in the wheel's strings (``strings``: a set of the pieces found, or the strings joined
    by newlines)."""
    if isinstance(strings, set):
        return all(p in strings for p in pieces)
    return all(p in strings for p in pieces)


def assign(row):
    rel = row["where"].split(":", 1)[0]
    for rule, prx, mrx, fam in RULES:
        if re.search(prx, rel) and (mrx is None or re.search(mrx, row["text"])):
            return rule, fam
    return None, None


def build(files, strings, version, owned_index=None):
    ids, sites, seen = set(), [], set()
    for path, src in files:
        for row in sites_of(path, src):
            fmt = row["text"]
            if not enough(fmt) or (row["where"], fmt) in seen:
                continue
            seen.add((row["where"], fmt))
            rx, _lit = knowgen.matcher(fmt)
            if rx is None or len(re.findall(r"\{0,\d+\}", rx)) > MAX_GAPS:
                continue
            pieces = literal_pieces(fmt)
            site = {"id": knowgen.unique_id("%s.%s" % (NAME, knowgen.slug(fmt)[:60]), ids), "where": row["where"],
                    "source": "cxx", "level": "raise", "kind": row["kind"], "macro": row["macro"], "text": fmt,
                    "re": rx, "func": row["func"], "guard": row["guard"], "cond_is_check": row["negated"]}
            if strings is not None:
                site["in_wheel"] = in_strings(pieces, strings)
                if not site["in_wheel"] and CUDA_ONLY.search(row["where"]):
                    site["in_wheel"] = "cuda-only"  # (a CUDA build's code: not in the CPU wheel's libraries)
            w = wants(row["guard"]) if row["negated"] and row["guard"] else None
            if w:
                site["wants"] = w
            rule, fam = assign(site)
            owner = _owner(fmt, owned_index) if owned_index is not None and fam else None
            if owner:
                site["owned"] = owner  # (another generated table assigns this text: its answer stays)
            elif fam and site.get("in_wheel", True) is not False and rule in HINT_ONLY:
                site["hint"], site["rule"] = fam, rule
            elif fam and site.get("in_wheel", True) is not False:
                site["family"], site["rule"] = fam, rule
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(
        "the C++ checks of torch's wheel (https://download.pytorch.org/whl/cpu; github.com/pytorch/pytorch): the "
        "headers it ships under torch/include (c10/core, c10/util, c10/cuda, ATen, ATen/native, ATen/core, "
        "torch/csrc/{distributed/c10d,distributed/rpc,autograd,utils,cuda}) and c10/core/Device.cpp "
        "(tools/data/cxx_guards_cpp.txt), cross-checked against the strings of libtorch_cpu.so, "
        "libtorch_python.so and libc10.so", version, GENERATOR,
        "families from the RULES table and 'wants' from the WANTS table of the generator; the fix is written by "
        "explain/cxxguard.py from func / guard / wants"), "sites": sites}


def _wheel_files(whl):
    files, strings, version = [], [], None
    with zipfile.ZipFile(whl) as z:
        for name in sorted(z.namelist()):
            m = HEADERS.match(name)
            if m:
                files.append((m.group(1), z.read(name).decode("utf-8", "replace")))
            elif name in LIBS:
                strings.extend(knowgen.binary_strings(z.read(name), MIN_PIECE))
            elif name == "torch/version.py":
                text = z.read(name).decode()
                v = re.search(r"__version__ = '([^']+)'", text).group(1)
                g = re.search(r"git_version = '([0-9a-f]+)'", text).group(1)
                version = "torch %s (git %s) of %s" % (v, g, os.path.basename(whl))
    return files, "\n".join(strings), version


def _all_pieces(files):
    out = set()
    for path, src in files:
        for row in sites_of(path, src):
            out.update(literal_pieces(row["text"]))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel")
    ap.add_argument("--slice")
    ap.add_argument("--no-owned", action="store_true", help="do not leave texts other tables assign to them")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if a.wheel:
        files, strings, version = _wheel_files(a.wheel)
        cpp, cpp_version = knowgen.read_slice(CPP)
        files += cpp
        version += "; %s" % cpp_version
        # the slice: the files read, whole (a test regenerates from it), and the wheel's strings that the sites' pieces
        # need (#! found lines)
        doc = build(files, strings, version, None if a.no_owned else _owned_index())
        knowgen.stale_fixes(ap, "MSG_FIX", MSG_FIX, doc["sites"])
        # the slice: the files of the assigned sites, whole (a test regenerates their rows from it), and the wheel's
        # strings that their pieces need (#! found lines)
        keep = {s["where"].split(":", 1)[0] for s in doc["sites"] if s.get("family") or s.get("hint")}
        kept = [(p, s) for p, s in files if p in keep]
        pieces = sorted(p for p in _all_pieces(kept) if p in strings)
        text = "#! version %s\n" % version + "".join("#! found %s\n" % json.dumps(p) for p in pieces) + "".join(
            "=== %s\n%s%s" % (p, s, "" if s.endswith("\n") else "\n") for p, s in kept)
        knowgen.save_text(knowgen.data_path(SLICE) if os.path.exists(knowgen.data_path(SLICE)) else
                          os.path.join(knowgen.DATA, SLICE + ".gz"), text)
    elif a.slice:
        files, version = knowgen.read_slice(a.slice)
        strings = set()
        with knowgen.open_text(a.slice) as f:
            for line in f:
                if line.startswith("#! found "):
                    strings.add(json.loads(line[len("#! found "):]))
                elif line.startswith("==="):
                    break
    else:
        raise SystemExit("give --wheel or --slice")
    if not a.wheel:
        doc = build(files, strings, version, None if a.no_owned else _owned_index())
    path = knowgen.write(NAME, doc, a.out)
    s = doc["sites"]
    print("%s: %d sites, %d assigned, %d hinted, %d owned by other tables, %d with a condition read (wants), %d not in the wheel"
          % (path, len(s), sum(1 for x in s if x.get("family")), sum(1 for x in s if x.get("hint")),
             sum(1 for x in s if x.get("owned")),
             sum(1 for x in s if x.get("wants")), sum(1 for x in s if x.get("in_wheel") is False)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
