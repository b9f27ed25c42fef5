#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_messages.json: the errors torch.distributed
can print - c10d's TCPStore, sockets, process groups, DDP's reducer, the NCCL watchdog, the
rendezvous handlers, torchrun's elastic agent - each with a bounded matcher and the knowledge
family from the RULES table below. Sites no rule assigns are listed (docs/explain.md), never guessed.

Three kinds of source, all from the torch that users run:
- python: `raise X("...")` and `logger.error/warning/exception(...)` in torch/distributed/**.py and
  torch/nn/parallel/distributed.py of a torch wheel, read with Python's ast (never executed);
  recorded as one slice block per statement (`=== path @LINE`).
- strings: the C++ messages of c10d as the wheel's libtorch_cpu.so holds them (the format strings
  of C10_THROW_ERROR / TORCH_CHECK / C10D_ERROR, c10::str fragments). The linker keeps each
  translation unit's strings together after the unit's own __FILE__ string
  (".../torch/csrc/distributed/c10d/<file>"), so each string is attributed to the c10d file whose
  path string precedes it (an attribution, not a line number). A CPU wheel has no
  ProcessGroupNCCL; its messages come from the source below.
- cpp: statements copied from pinned ProcessGroupNCCL.cpp and TCPStore.cpp (the NCCL watchdog, its
  timeout and abort messages; the store's "Socket Timeout"), recorded in tools/data/torch_cpp_source.txt
  with the commits they were read at.
- usercode: what a bug in the training code or its data makes torch print (USER_RULES below): the
  strings of the wheel's libtorch_cpu.so / libtorch_python.so that USER_SELECT picks (ATen's device
  and dtype checks, autograd's, the DataLoader's worker and shared-memory errors), the raise and
  `error_msgs.append` statements of USER_PY (load_state_dict, clip_grad_norm_, the DataLoader), and
  the CUDA-only statements a CPU wheel does not hold (the caching allocator's out-of-memory message,
  the loss and indexing kernels' asserts), copied in tools/data/torch_usercode_source.txt.

Usage:
    pip download --no-deps --index-url https://download.pytorch.org/whl/cpu torch   (unzip the wheel)
    python tools/gen_torch_messages.py --wheel /path/to/site-packages/torch [-o OUT]
        (writes tools/data/torch_messages_slice.txt too)
    python tools/gen_torch_messages.py --slice tools/data/torch_messages_slice.txt -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/, BSD-3-Clause): torch/distributed/,
torch/lib/libtorch_cpu.so; pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
(https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp).
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_torch_messages.py"
SLICE = os.path.join(knowgen.DATA, "torch_messages_slice.txt")
CPP = os.path.join(knowgen.DATA, "torch_cpp_source.txt")
USER_CPP = os.path.join(knowgen.DATA, "torch_usercode_source.txt")
PY_DIRS = ["distributed"]  # under the torch package
PY_FILES = ["nn/parallel/distributed.py"]
PY_SKIP = re.compile(r"/(?:_?tests?|testing|benchmarks|examples|_tools|flight_recorder/components)/|/_composable/|"
                     r"/tensor/|/_tensor/|/pipelining/|/checkpoint/|/fsdp/|/_shard/|/rpc/|/autograd/|/optim/|"
                     r"/algorithms/|/_symmetric_memory/|/nn/api/|/_local_tensor/")
_C10D = "/torch/csrc/distributed/c10d/"
_SO_MARK = re.compile(r"^/\S+\.(?:cpp|cc|c|hpp|h|cu|cuh)$")

# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning | string | cpp)
RULES = [
    # sockets and the TCPStore (socket.cpp, TCPStore*.cpp, elastic/utils/distributed.py)
    # socket.cpp's per-address attempts (SocketListenOp / SocketConnectOp::recordError: C10D_WARNING, then the
    # next address): on a host without IPv6, '[::]' / '[::1]' fail with errno 97 or 99 and IPv4 works. The
    # errors are the final 'failed to listen on any local network address' / 'failed to connect to any network
    # address of' / the timeout, which carry these texts; rendezvous.toml's own patterns keep a lone attempt
    # that names another errno (98: the port is taken; 111, 113: see rendezvous.connect)
    ("address-attempt", None, {"text": r"^The server socket has failed to bind to %s %s\.$|"
                                       r"^The client socket has failed to connect to %s %s\.$"}),
    ("listen", "rendezvous.address_in_use", {"text": r"failed to listen on(?! provided)|failed to bind\b|"
                                                      r"failed to bind to|already in use|"
                                                      r"could not be initialized on any address"}),
    ("store-wait", "rendezvous.store_timeout", {"text": r"wait timeout after|^Socket Timeout$|barrier timeout after|"
                                                        r"waiting for clients|retrieving ncclUniqueId|missing.ranks|"
                                                        r"waiting for all .* members to join|"
                                                        r"Error waiting on exit barrier|"
                                                        r"possible application crash on rank 0"}),
    ("client-timeout", "rendezvous.connect", {"text": r"client socket has timed out|failed to connect to any network|"
                                                      r"client socket has failed to connect|TCP client failed to connect|"
                                                      r"connection to the C10d store has failed|Ping failed"}),
    ("gai", "rendezvous.hostname", {"text": r"network addresses of .* cannot be retrieved|gai error"}),
    ("store-gone", "errno.peer_gone", {"text": r"Connection was likely closed|Remote peer closed the connection|"
                                               r"Connection closed by peer|Connection reset by peer"}),
    ("libuv", "torch.windows_libuv", {"text": r"use_libuv was requested"}),
    # collectives: the watchdog, mismatches, DDP
    ("watchdog-timeout", "nccl.timeout", {"text": r"Watchdog caught collective operation timeout|"
                                                  r"timed out in blocking wait|NCCL monitor thread timeout|"
                                                  r"detects no heartbeat|watchdog heartbeat detected|failed to pass monitoredBarrier|"
                                                  r"timed out in monitoredBarrier"}),
    ("watchdog-abort", "cascade.watchdog_abort", {"text": r"Some NCCL operations have failed or timed out|"
                                                          r"taking the entire process down|"
                                                          r"watchdog thread terminated with exception|"
                                                          r"NCCL communicator (?:was aborted|encountered error)"}),
    ("mismatch", "torch.collective_mismatch", {"text": r"Detected mismatch between collectives|"
                                                       r"Collectives differ in the following aspects"}),
    ("unused-params", "torch.ddp_unused_parameters", {"text": r"Expected to have finished reduction in the prior|"
                                                              r"did not receive grad for rank|"
                                                              r"did not get gradient in backwards pass"}),
    ("ready-twice", "torch.ddp_ready_twice", {"text": r"marked as ready twice|mark a variable ready only once"}),
    ("ddp-params", "torch.ddp_model_mismatch", {"text": r"DDP expects same model across all ranks|"
                                                        r"appears not to match (?:sizes|strides) of the same param"}),
    ("no-pg", "torch.pg_not_initialized", {"text": r"process group has not been initialized"}),
    ("no-nccl", "torch.no_nccl", {"text": r"doesn't have NCCL built in"}),
    ("no-gpu", "cuda.not_available", {"text": r"only supported with GPUs, no GPUs found|^Cuda is not available"}),
    ("ordinal", "cuda.invalid_device_ordinal", {"text": r"exceeds available GPUs in CUDA_VISIBLE_DEVICES"}),
    ("gloo-mesh", "gloo.socket_ifname", {"text": r"Gloo connectFullMesh failed|"
                                                 r"Unable to resolve hostname to a \(local\) address"}),
    # the launcher side: env:// and torchrun's rendezvous and agent
    ("env", "rendezvous.env_missing", {"text": r"environment variable .* expected, but not set"}),
    ("store-barrier", "rendezvous.store_barrier", {"text": r"Timed out initializing process group in store based"}),
    ("signal", "cascade.signal", {"where": r"elastic/multiprocessing/api", "text": r"got signal"}),
    ("child-failed", "cascade.child_failed", {"where": r"elastic/multiprocessing/api", "text": r"failed \(exitcode"}),
    # the rest: the message itself names what to change (generic families, their causes tell apart)
    ("torchrun-usage", "torch.distributed_usage", {"where": r"^torch/distributed/(?:run|launch|elastic|launcher)",
                                                   "level": r"raise"}),
    ("api-usage", "torch.distributed_usage", {"where": r"^torch/(?:distributed|nn/parallel)/", "level": r"raise"}),
    ("c10d-check", "torch.c10d_error", {"level": r"raise|string",
                                        "text": r"\b(?:must|cannot|can't|not supported|does not support|doesn't support|"
                                                r"requires?|[Ii]nvalid|[Uu]nsupported|[Ee]xpected|mismatch|not implemented|"
                                                r"[Ff]ailed|[Ee]rror|[Uu]nknown)\b"}),
]

# What one message means and what to do where the message itself says enough and its family's fix is
# too general (the first regex over the site's text that matches; an assigned site only), from the code
# around the site: TCPStore.cpp (TCPServer's waitForWorkers: "K/N clients joined" counts the ranks that
# connected). socket.cpp's connect messages ("timed out ... trying to connect to (host, port)", "failed to
# connect to ...") do not say which of rendezvous.connect's causes it is: the family's causes and their
# evidence (a login node, a loopback address in the message) tell them apart.
# (torchrun's own signal lines, under 12 literal characters here, are elastic.sigterm's hand-written patterns.)
SITE_FIX = [
    (r"^Timed out after %s seconds waiting for clients\. %s/%s clients joined\.",
     "c10d TCPStore.cpp: the store's server on node 0 waited for every rank of the world size and only the first "
     "number connected: the rest were never started or cannot reach MASTER_ADDR:MASTER_PORT.",
     ["start torchrun on every node with the same --nnodes and a distinct --node-rank 0..N-1 (two nodes with one "
      "--node-rank count once); under Slurm: srun --ntasks-per-node=1 torchrun --node-rank $SLURM_NODEID ...",
      "on a node that did not join: its own log for an earlier error, and nc -zv <MASTER_ADDR> <MASTER_PORT>",
      "--nnodes x --nproc-per-node must be the world size the store waits for"]),
]

# What a bug in the job's code or data makes torch print (the usercode sources): (rule, knowledge
# entry, {field: regex}), the first match assigns; each entry says what a training user does. A
# site no rule names is listed (docs/explain.md), never guessed.
USER_RULES = [
    ("oom", "cuda.oom", {"text": r"^CUDA out of memory"}),
    ("two-devices", "usercode.tensors_on_two_devices", {"text": r"Expected all tensors to be on the same device"}),
    ("dl-shm", "usercode.dataloader_shm", {"text": r"bus error encountered in worker|workers are out of shared memory|"
                                                   r"unable to allocate shared memory"}),
    ("dl-died", "usercode.dataloader_killed", {"text": r"^DataLoader worker \(pid|segmentation fault encountered in worker|"
                                                       r"^DataLoader timed out after"}),
    ("dl-emfile", "errno.emfile", {"text": r"^Too many open files\. Communication with the workers"}),
    ("shm-open", "usercode.shm_open", {"text": r"^unable to open shared memory object"}),
    ("state-dict", "usercode.state_dict_mismatch", {"text": r"Error\(s\) in loading state_dict|^size mismatch for|"
                                                            r"(?:Missing|Unexpected) key\(s\) in state_dict"}),
    ("no-grad", "usercode.no_grad", {"text": r"of tensors does not require grad and does not have a grad_fn"}),
    ("backward-twice", "usercode.backward_twice", {"text": r"backward through the graph a second time \(or"}),
    ("inplace", "usercode.inplace_modified", {"text": r"modified by an inplace operation"}),
    ("nan", "usercode.nan_inf", {"text": r"returned nan values in its|gradients from `parameters` is non-finite"}),
    ("labels", "cuda.device_assert", {"where": r"\.cu$", "text": r"^Assertion `"}),
    ("index", "usercode.index_out_of_range", {"text": r"^index out of range in self"}),
    ("dtype", "usercode.dtype_mismatch", {"text": r"^expected scalar type\b|^expected m1 and m2 to have the same dtype"}),
    ("shapes", "usercode.shape_mismatch", {"text": r"^mat1 and mat2 shapes cannot be multiplied|^Expected input batch_size|"
                                                   r"must match the size of tensor b"}),
]
# the strings of the wheel's libraries and the python messages that are usercode sites (case-sensitive)
USER_SELECT = re.compile(
    r"^Expected all tensors to be on the same device|bus error encountered in worker|workers are out of shared memory|"
    r"^unable to allocate shared memory|^DataLoader worker \(pid|^unable to open shared memory object|"
    r"of tensors does not require grad and does not have a grad_fn|^Trying to backward through the graph a second time|"
    r"^one of the variables needed for gradient computation has been modified by an inplace operation|"
    r"' returned nan values in its|^index out of range in self$|^expected scalar type ?$|"
    r"^expected m1 and m2 to have the same dtype|^mat1 and mat2 shapes cannot be multiplied \($|"
    r"^Expected input batch_size \($|^\) must match the size of tensor b \($")
# and of the python statements (USER_PY): load_state_dict's errors, clip_grad_norm_'s, the DataLoader's
USER_SELECT_PY = re.compile(USER_SELECT.pattern + r"|^Too many open files\. Communication|state_dict|"
                            r"^size mismatch for|is non-finite, so it cannot be clipped|^DataLoader ")
USER_LIBS = ["lib/libtorch_cpu.so", "lib/libtorch_python.so"]
USER_PY = ["nn/modules/module.py", "nn/utils/clip_grad.py", "utils/data/dataloader.py"]


# ---------------------------------------------------------------- python


def _py_sites(path, src, user=False):
    """(level, line, format) of each raise / logger call with a message in a python source (with
    user: also load_state_dict's `error_msgs.append/insert(...)`, joined into its RuntimeError)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = None, None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            level, arg = "raise", node.exc.args[0]
        elif user and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "insert") and isinstance(node.func.value, ast.Name) and \
                node.func.value.id == "error_msgs" and node.args:
            level, arg = "raise", node.args[-1]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("error", "warning", "critical", "exception") and node.args and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in ("logger", "log", "logging", "_logger"):
            level, arg = ("warning" if node.func.attr == "warning" else "error"), node.args[0]
        if level is None:
            continue
        if level != "raise" and len(node.args) > 1 and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            fmt = arg.value  # logger.error("... %s", x): already a %-format
        else:
            fmt = knowgen.py_format(arg)
        if fmt:
            yield level, node.lineno, node.end_lineno, " ".join(fmt.split())


def _py_blocks(rel, src, user=False):
    """The slice blocks of a python file: each site's statement lines, dedented, at its line (with
    user: only the messages USER_SELECT picks, in `usercode:` blocks)."""
    lines = src.splitlines(True)
    seen = set()
    for _level, first, last, _fmt_ in _py_sites(rel, src, user):
        if (first, last) in seen or (user and not USER_SELECT_PY.search(_fmt_)):
            continue
        seen.add((first, last))
        body = textwrap.dedent("".join(lines[first - 1:last]))
        try:
            ast.parse(body)
        except SyntaxError:  # a statement that starts inside a larger one: keep only the call
            continue
        yield "=== %s%s @%d\n%s" % ("usercode:" if user else "", rel, first, body if body.endswith("\n") else body + "\n")


# ---------------------------------------------------------------- libtorch_cpu.so strings

_NOT_MESSAGE = re.compile(r"INTERNAL ASSERT FAILED|Could this error message be improved|^/|pytorch\.wait_counter|"
                          r"\b(?:std|c10|at|torch)::|<[^<>]*(?:<|::)|->\s*Tensor|\(Tensor|^\s*$|"
                          r"^(?:HTTP/|Content-|Sec-WebSocket|Upgrade:|Connection: Upgrade)")


def so_strings(path, minimum=8):
    """The printable runs of a shared object, as `strings -n 8` prints them."""
    with open(path, "rb") as f:
        data = f.read()
    return [m.group().decode("ascii") for m in re.finditer(rb"[\x20-\x7e\t]{%d,}" % minimum, data)]


def c10d_strings(strings):
    """{c10d source file: [message strings]} from the string table: the run of strings from the
    first c10d __FILE__ string to the next non-c10d translation unit's, each attributed to the c10d
    file whose path string precedes it."""
    marks = [i for i, s in enumerate(strings) if _SO_MARK.match(s)]
    c10d = [i for i in marks if _C10D in strings[i]]
    if not c10d:
        return {}
    end = next((i for i in marks if i > c10d[-1] and _C10D not in strings[i] and strings[i].endswith((".cpp", ".cc"))),
               c10d[-1] + 1)
    out, cur = {}, None
    for i in range(c10d[0], end):
        s = strings[i]
        if _SO_MARK.match(s):
            if _C10D in s:  # the strings after a unit's path string are that unit's (or its neighbour's)
                cur = "libtorch_cpu.so near torch/csrc/distributed/c10d/" + s.split(_C10D, 1)[1]
            continue
        if cur and " " in s.strip() and not _NOT_MESSAGE.search(s) and re.search(r"[A-Za-z]{3}", s):
            out.setdefault(cur, []).append(s)
    return out


def _fmt_braces(s):
    """A libfmt format ('{}', '{:x}') as a printf one; a literal '%' doubled."""
    return re.sub(r"\{[^{}]{0,20}\}", "%s", s.replace("%", "%%"))


# ---------------------------------------------------------------- C++ source statements

_CPP_CALL = re.compile(r"\b(C10_THROW_ERROR|C10_BUILD_ERROR|TORCH_CHECK_WITH|TORCH_CHECK|c10::str|LOG\((?:ERROR|WARNING)\)"
                       r"|TORCH_WARN)\s*(\(|<<)")


def _cpp_message(parts):
    """String literals verbatim (adjacent ones joined), anything else %s."""
    fmt = []
    for a in parts:
        a = a.strip()
        lits = re.findall(r'"((?:[^"\\]|\\.)*)"', a)
        if lits and re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*"\s*)+', a):
            fmt.append("".join(lits).replace("%", "%%").replace('\\"', '"').replace("\\n", " "))
        elif a:
            fmt.append("%s")
    return "".join(fmt)


# the usercode statements' other forms: `oss << parts;` (DataLoader.cpp), `const char* NAME = "..." "...";`
# (saved_variable.cpp's ERR_BACKWARD_TWICE), SIGNAL_HANDLER(SIG, name, "message") (DataLoader.cpp) and
# CUDA_KERNEL_ASSERT(cond), which prints "Assertion `cond` failed." (c10/macros/Macros.h)
_USER_STREAM = re.compile(r"\b(?:oss|ss|message)\s*<<")
_USER_CONST = re.compile(r'\bconst char\s*\*\s*\w+\s*=((?:\s*"(?:[^"\\]|\\.)*")+)\s*;')
_USER_MACRO = re.compile(r"\b(SIGNAL_HANDLER|CUDA_KERNEL_ASSERT)\s*\(")


def user_cpp_sites(src):
    """(level, format) of each message of a usercode C++ block: cpp_sites' forms and the four above."""
    for _line, level, fmt in cpp_sites(src):
        yield level, fmt
    for m in _USER_STREAM.finditer(src):
        fmt = " ".join(_cpp_message(re.split(r"<<", src[m.end():src.find(";", m.end())])).split())
        if fmt and fmt != "%s":
            yield "raise", fmt
    for m in _USER_CONST.finditer(src):
        yield "raise", " ".join(_cpp_message([m.group(1)]).split())
    for m in _USER_MACRO.finditer(src):
        args = knowgen.call_args(src, m.end()) or []
        if m.group(1) == "SIGNAL_HANDLER" and len(args) == 3:
            yield "error", " ".join(_cpp_message(args[2:]).split())
        elif m.group(1) == "CUDA_KERNEL_ASSERT" and len(args) == 1:
            yield "raise", "Assertion `%s` failed." % " ".join(args[0].split()).replace("%", "%%")


def cpp_sites(src):
    """(line, level, format) of each message of a C++ statement block (C10_THROW_ERROR(Type, msg),
    TORCH_CHECK(cond, parts...), c10::str(parts...), LOG(ERROR) << parts)."""
    for m in _CPP_CALL.finditer(src):
        name, line = m.group(1), src.count("\n", 0, m.start()) + 1
        if m.group(2) == "<<":
            end = src.find(";", m.end())
            parts = re.split(r"<<", src[m.end():end])
            fmt, level = _cpp_message(parts), "error" if "ERROR" in name else "warning"
        else:
            args = knowgen.call_args(src, m.end()) or []
            if name in ("C10_THROW_ERROR", "C10_BUILD_ERROR"):
                if len(args) < 2 or args[1].startswith("c10::str"):  # the c10::str(...) is its own site
                    continue
                fmt, level = _cpp_message(re.split(r"\s\+\s", args[1])), "raise"
            elif name == "TORCH_CHECK_WITH":
                fmt, level = _cpp_message(args[2:]), "raise"
            elif name == "TORCH_CHECK":
                fmt, level = _cpp_message(args[1:]), "raise"
            elif name == "TORCH_WARN":
                fmt, level = _cpp_message(args), "warning"
            else:
                fmt, level = _cpp_message(args), "raise"
        fmt = " ".join(fmt.split())
        if fmt and fmt != "%s":
            yield line, level, fmt


# ---------------------------------------------------------------- build


def _site_id(where, fmt):
    slug = re.sub(r"[^a-z0-9]+", "_", re.sub(r"%[a-z]", "", fmt.lower()))[:40].strip("_")
    base = re.sub(r"[^a-z0-9]+", "_", where.lower().replace("libtorch_cpu.so near ", "").replace("torch/csrc/distributed/c10d/", "c10d/")
                  .replace("torch/distributed/", "")).strip("_")
    return "torch.%s.%s" % (base, slug)


# A message of few words ('Socket Timeout', 'Invalid state!', 'Unknown option', '%s is not available.')
# is any program's line alone ('flash-attn is not available.' was torch.distributed_usage): its
# matcher needs what torch prints before it - the exception's type ('DistStoreError: ', Python's
# traceback line, TORCH_CHECK's 'RuntimeError: '), c10d's '[c10d] ' log tag, glog's '[E1125 ...
# file.cpp:N] ' or the Python logger's 'ERROR:torch.distributed...:'.
CONTEXT_BELOW = 16
_CONTEXT = (r"(?:\b\w{0,60}(?:Error|Exception|Timeout)\b: |\[c10d[^\]\n]{0,20}\] |"
            r"\b[EWF]\d{4} \d\d:\d\d:\d\d[^\]\n]{0,120}\] |\bERROR:[\w.]{1,80}:)[^\n]{0,200}?")


def build(files, version):
    sites, seen, ids = [], set(), set()

    def add(where, level, fmt, src, user=False):
        if fmt in seen:
            return
        seen.add(fmt)
        rx, literal = knowgen.printf_to_regex(fmt)
        site = {"id": _site_id(where, fmt), "where": where, "source": src, "level": level, "text": fmt}
        n, base = 2, site["id"]
        while site["id"] in ids:
            site["id"], n = "%s_%d" % (base, n), n + 1
        ids.add(site["id"])
        if not knowgen.unanchored(site, rx, literal, 12):
            rule, family = knowgen.assign(USER_RULES if user else RULES, site, {"where": where, "text": fmt,
                                                                                "level": level})
            if family is None and level == "warning":
                rule = "a warning, not an error"
            if len("".join(literal.split())) < CONTEXT_BELOW:
                rx = _CONTEXT + rx
            site.update({"re": rx, "family": family, "rule": rule})
            if not user:
                knowgen.give_fix(site, SITE_FIX, fmt)
        sites.append(site)

    for path, text in files:
        if path.startswith("userstrings:"):
            for s in text.splitlines():
                if s.strip():
                    add(path[len("userstrings:"):], "string", " ".join(_fmt_braces(s).split()),
                        path.rsplit("/", 1)[-1], user=True)
        elif path.startswith("usercode:") and path.endswith(".py"):
            for level, line, _last, fmt in _py_sites(path, text, user=True):
                if USER_SELECT_PY.search(fmt):
                    add("%s:%d" % (path[len("usercode:"):], line), level, fmt, "python", user=True)
        elif path.startswith("usercode:"):
            for level, fmt in user_cpp_sites(text):
                add(path[len("usercode:"):], level, fmt, "source", user=True)
        elif path.startswith("strings:"):
            for s in text.splitlines():
                if s.strip():
                    add(path[len("strings:"):], "string", " ".join(_fmt_braces(s).split()), "libtorch_cpu.so")
        elif path.endswith(".py"):
            for level, line, _last, fmt in _py_sites(path, text):
                add("%s:%d" % (path, line), level, fmt, "python")
        else:
            for _line, level, fmt in cpp_sites(text):  # copied statements: the file, not a line
                add(path, level, fmt, "source")
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/): torch/distributed python modules and "
                                     "the c10d strings of torch/lib/libtorch_cpu.so; pytorch/pytorch "
                                     "ProcessGroupNCCL.cpp, TCPStore.cpp (tools/data/torch_cpp_source.txt)", version, GENERATOR,
                                     "families from the RULES table of the generator; a libtorch_cpu.so string is "
                                     "attributed to the c10d file whose path string precedes it"),
            "sites": sites}


def slice_from_wheel(torch_dir):
    """The slice text of a torch package folder (python statements, c10d strings) plus the
    recorded ProcessGroupNCCL statements."""
    vfile = os.path.join(torch_dir, "version.py")
    ver = {}
    with open(vfile) as f:
        exec(compile(f.read(), vfile, "exec"), ver)  # torch/version.py: two assignments, no imports of torch
    out = ["#! version torch %s (git %s); C++ statements: tools/data/torch_cpp_source.txt\n"
           % (ver["__version__"], ver["git_version"]),
           "# generated by tools/gen_torch_messages.py --wheel from the torch wheel (BSD-3-Clause): each raise/logger "
           "statement of torch/distributed at its line, and the c10d message strings of torch/lib/libtorch_cpu.so\n"]
    paths = []
    for d in PY_DIRS:
        for root, dirs, names in os.walk(os.path.join(torch_dir, d)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    paths.append(os.path.relpath(os.path.join(root, n), os.path.dirname(torch_dir)))
    paths += ["torch/" + p for p in PY_FILES]
    for rel in paths:
        if PY_SKIP.search("/" + rel):
            continue
        with open(os.path.join(os.path.dirname(torch_dir), rel)) as f:
            out.extend(_py_blocks(rel, f.read()))
    for path, strings in sorted(c10d_strings(so_strings(os.path.join(torch_dir, "lib", "libtorch_cpu.so"))).items()):
        out.append("=== strings:%s\n%s\n" % (path, "\n".join(strings)))
    with open(CPP) as f:
        out.append("".join(line for line in f if not line.startswith("#")))
    # usercode: the selected python statements, library strings and the recorded CUDA-only statements
    for rel in USER_PY:
        with open(os.path.join(torch_dir, rel)) as f:
            out.extend(_py_blocks("torch/" + rel, f.read(), user=True))
    for lib in USER_LIBS:
        picked = sorted({s.strip() for s in so_strings(os.path.join(torch_dir, lib)) if USER_SELECT.search(s.strip())})
        out.append("=== userstrings:torch/%s\n%s\n" % (lib, "\n".join(picked)))
    with open(USER_CPP) as f:
        out.append("".join(line for line in f if not line.startswith("#")))
    return "".join(out)


def main(argv):
    a = knowgen.arguments(__doc__, argv, "wheel", source_opts={
        "help": "the torch package folder of an unpacked wheel (holds version.py, lib/)"})
    path = a.slice
    if a.wheel:
        with open(SLICE, "w") as f:
            f.write(slice_from_wheel(a.wheel))
        path = SLICE
    files, version = knowgen.read_slice(path)
    doc = build(files, version)
    knowgen.stale_fixes(a, "SITE_FIX", SITE_FIX, doc["sites"], "release")
    return knowgen.emit("torch_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
