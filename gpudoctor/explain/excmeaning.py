"""The innermost exception of a Python traceback read by what its words mean (issue 18), for explain's
structural answer (pyanswer._traceback_finding) when no knowledge entry matched and the exception's type
named no family: instead of the bare ``code.exception`` / ``<lib>.library_error``, the exception's chain
(the earlier exception first: "The above exception was the direct cause of the following exception:" /
"During handling of the above exception, another exception occurred:", Lib/traceback.py) is read for
the classes of words that say what was refused, first class first:

1. an operating-system error anywhere in the chain outranks the wrapper that re-raised it: ``[Errno N]``
   in the message (CPython's OSError_str, Objects/exceptions.c: "[Errno %S] %S: %R") or an OSError
   subclass of Python's (Doc/library/exceptions.rst, "OS exceptions": FileNotFoundError is ENOENT,
   PermissionError EACCES/EPERM, IsADirectoryError EISDIR, ...) is errno's family for that code
   (generated/errno.json, tools/gen_errno.py), naming the path it printed; and a write of torch.save that
   the filesystem cut short (caffe2/serialize/inline_container.cc ostream_write_func: a short write leaves
   current_pos_ behind, and the next write throws "unexpected pos <a> vs <b>"; libstdc++'s
   "basic_ios::clear: iostream error" is the std::ofstream's failure) is a full disk or quota first;
2. a checkpoint that could not be read (torch/serialization.py, PytorchStreamReader, the weights-only
   unpickler, safetensors' header) is torch.checkpoint_load; a state_dict that does not fit the model
   (torch/nn/modules/module.py load_state_dict: "Error(s) in loading state_dict", "Missing key(s)",
   "size mismatch for <param>") usercode.state_dict_mismatch, naming the parameter;
3. the Hugging Face Hub (huggingface_hub/errors.py: LocalEntryNotFoundError, RepositoryNotFoundError,
   GatedRepoError, HFValidationError; HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE; transformers/utils/hub.py
   cached_files, which takes a name that is no local folder for a repository id) is transformers.hub; an
   absolute or relative path given as a repository id is a local folder that does not exist there;
4. a refusal of torch's, by the words ATen's and torch's Python checks use (c10/util/Exception.h
   TORCH_CHECK messages name the two devices, dtypes, sizes, the index; ATen/Dispatch.h's
   '"<op>" not implemented for '<dtype>''; autograd's "does not require grad", "backward through the
   graph a second time", "modified by an inplace operation"; DTensor's and DeviceMesh's words; torch.compile's
   and CUDA graphs'; torch.use_deterministic_algorithms'): that usercode.* / torch.* family, for an exception
   raised in torch or whose message speaks torch's words (a call into ATen from the user's line has no
   frame of torch's: F.scaled_dot_product_attention);
5. a library's refusal of its own options (ValueError / TypeError / AssertionError in refusal words, raised in
   transformers' TrainingArguments / Trainer, accelerate, DeepSpeed's config): that library's config
   family, naming the option the message quotes.

Whatever the class, a sentence of the message that tells what to do ("Use Tensor.cpu() ...", "To prevent
overwriting, clone ...", "you can use the 'warn_only=True' option") is the library's own advice: it leads
the first cause (its text, never a fix line: what a log says is not pasted into a shell). How sure: low
(the family read from words), medium where the class names its site (the errno code, a checkpoint reader).
Every regex is bounded and runs on the exception's line (pytb keeps 300 characters of it).
"""

import re

from gpudoctor.explain import advice as _advice
from gpudoctor.explain import famfix
from gpudoctor.explain import pytb
from gpudoctor.fixline import operand, sh
from gpudoctor.explain.text import clip as _clip

MSG = 300  # characters of an exception's message read (pytb.parse_back keeps as many)
WHOLE = 900  # with the lines of a multi-line message after it (pytb._message_after)


def _msg(t):
    """The exception's message with the lines it goes on for (a multi-line str()), bounded."""
    more = t.get("more") or ""
    first = (t["msg"] or "")[:MSG]
    if len(first) >= MSG:
        return first  # pytb cut the first line: what follows it is not the next of its words
    return ("%s\n%s" % (first, more) if more else first).strip()[:WHOLE]

# ------------------------------------------------------------------ 1. the operating system's errors

# OSError's subclasses and the errno names Python maps to them (Doc/library/exceptions.rst, "OS exceptions";
# Objects/exceptions.c errnomap): the first name is the usual one
_OS_SUBCLASS = {
    "FileNotFoundError": ("ENOENT",), "PermissionError": ("EACCES", "EPERM"), "FileExistsError": ("EEXIST",),
    "IsADirectoryError": ("EISDIR",), "NotADirectoryError": ("ENOTDIR",), "BrokenPipeError": ("EPIPE",),
    "ProcessLookupError": ("ESRCH",), "ChildProcessError": ("ECHILD",), "InterruptedError": ("EINTR",),
    "BlockingIOError": ("EAGAIN",), "ConnectionResetError": ("ECONNRESET",),
    "ConnectionRefusedError": ("ECONNREFUSED",), "ConnectionAbortedError": ("ECONNABORTED",),
}
_ERRNO = re.compile(r"\[Errno (-?\d{1,4})\] ([^:\n\]]{1,100})(?:: '([^'\n]{1,300})')?")
# a short write of torch.save's zip writer (inline_container.cc ostream_write_func / writeRecord) and the
# std::ofstream failure under it
_SHORT_WRITE = re.compile(r"\bunexpected pos \d{1,20} vs \d{1,20}|basic_ios::clear: iostream error|"
                          r"PytorchStreamWriter failed writing", re.I)

# ------------------------------------------------------------------ 2. checkpoints

_CKPT_READ = re.compile(r"PytorchStreamReader|central directory|\bzip archive\b|invalid load key|"
                        r"Weights only load failed|"
                        r"\bweights_only\b|\bsafetensors?\b|SafetensorError|HeaderTooLarge|MetadataIncompleteBuffer|"
                        r"\bunexpected EOF\b|Ran out of input|\bunpickl", re.I)
# a reader's function (torch.load / _load / _legacy_load, safetensors' load_file / safe_open / deserialize), not a
# writer's (save_file's check of shared tensors speaks of safetensors too)
_LOADING = re.compile(r"load|open|deserial|read", re.I)
_STATE_DICT = re.compile(r"Error\(s\) in loading state_dict|Missing key\(s\) in state_dict|Unexpected key\(s\) in "
                         r"state_dict|size mismatch for ([\w.]{1,200})")

# ------------------------------------------------------------------ 3. the Hugging Face Hub

# (not any 'huggingface.co': a message's 'More information at https://huggingface.co/docs/...' is no Hub access)
_HUB = re.compile(r"LocalEntryNotFound|OfflineModeIsEnabled|HF_HUB_OFFLINE|TRANSFORMERS_OFFLINE|host='huggingface\.co'|"
                  r"RepositoryNotFound|GatedRepo|RevisionNotFound|EntryNotFound|HFValidationError|Repo id must|"
                  r"\b40[134] Client Error|not a valid model identifier|in the local cache|couldn't connect to")
# validate_repo_id's message quotes the id it refused (huggingface_hub/utils/_validators.py; its 'Repo id must use
# alphanumeric chars or ...' form has 140 characters before the id: './qlora-out' has one '/' and fails that check)
_REPO_ID = re.compile(r"Repo id must [^\n]{0,200}?: '([^'\n]{1,300})'")
# a local path in any form a user passes: absolute, ./ ../ ~, a Windows drive (C:\models, D:/runs) or share (\\host)
_LOCAL_ID = re.compile(r"^(?:[/~]|\.{1,2}[/\\]|[A-Za-z]:[/\\]|\\\\)")

# ------------------------------------------------------------------ 4. torch's refusals

# a message in torch's words (when no frame of torch's is innermost: an ATen op called from the user's line)
_TORCH_WORDS = re.compile(r"\btensors?\b|\bdtypes?\b|c10::|\baten[.:]|\bcuda:\d|\bscalar type\b|\bDTensor\b|\btorch\.|"
                          r"CUDAGraphs|\bautograd\b|\bgrad_fn\b|\brequires_grad\b|not implemented for '|"
                          # c10/core/WrapDimMinimal.cpp maybe_wrap_dim, aten/src/ATen/InferSize.h infer_size, autograd's
                          # leaf check (torch/csrc/autograd/VariableTypeUtils.h check_inplace), Tensor.item()'s
                          r"\bDimension out of range\b|\bshape '\[|\bleaf Variable\b|\brequires? grad\b|"
                          r"\bcannot be converted to Scalar\b|"
                          # aten/src/ATen/native/Blas.cpp addmv's and dot's size checks
                          r"\bsize mismatch, got input\b|\binconsistent tensor size\b|"
                          # aten/src/ATen/TensorIterator.cpp compute_types: an (in-place) output's dtype the result's
                          # cannot be cast to
                          r"\bcan't be cast to the desired output type\b", re.I)
# a tensor of no elements where the call needed a parameter's values: 'vec (0)', 'torch.Size([0])', 'src [0]'
_EMPTY = re.compile(r"\bvec \(0\)|\bmat \(0x|torch\.Size\(\[0\]\)|\bsrc \[0\]|\band 0 elements\b")
# first match wins: autograd's first (its messages name a tensor's type: 'torch.cuda.FloatTensor [4, 8]')
_TORCH_RULES = [
    ("usercode.no_grad", re.compile(r"does not require grad|does not have a grad_fn", re.I)),
    ("usercode.backward_twice", re.compile(r"backward through the graph a second time|"
                                           r"saved (?:intermediate values|tensors) of the graph", re.I)),
    ("usercode.inplace_modified", re.compile(r"modified by an inplace operation|leaf Variable that requires grad "
                                             r"is being used in an in-?place", re.I)),
    ("torch.distributed_usage", re.compile(r"\bDTensor\b|DeviceMesh|device mesh|\bplacements?\b|process group", re.I)),
    ("torch.compile_error", re.compile(r"CUDAGraphs?|cudagraph|\btorch\.compile\b|\bdynamo\b|\binductor\b|fullgraph|"
                                       r"graph break", re.I)),
    ("torch.usage", re.compile(r"deterministic (?:implementation|algorithms?)|use_deterministic_algorithms", re.I)),
    # a dimension index or a shape that does not fit the tensor (maybe_wrap_dim, infer_size, item() of many elements)
    ("usercode.shape_mismatch", re.compile(r"\bDimension out of range\b|\bshape '\[[^\n']{0,80}' is invalid for input|"
                                           r"\bwith \d{1,12} elements cannot be converted to Scalar", re.I)),
    # ATen/Dispatch.h: '"<op>" not implemented for '<ScalarType>'': no kernel of the op for that dtype
    ("usercode.dtype_mismatch", re.compile(r"not implemented for '(?:Half|BFloat16|Float|Double|Long|Int|Short|Char|"
                                           r"Byte|Bool|ComplexFloat|ComplexDouble|Float8_\w{1,12})'")),
]
# the exception classes of torch.compile's own packages (family17)
_COMPILE_EXC = re.compile(r"^torch\._(?:dynamo|inductor)\.exc\.[A-Z]\w{0,80}$")
# The tensor rule an exception of torch's breaks, read from the words torch's checks use to say it
# (ATen's TORCH_CHECK messages name the two devices, dtypes, sizes or the index: c10/util/Exception.h, e.g.
# aten/src/ATen/native/TensorShape.cpp 'view size is not compatible with input tensor's size and stride',
# aten/src/ATen/TensorUtils.cpp 'Expected all tensors to be on the same device', 'expected scalar type ...'),
# first match wins, after _TORCH_RULES; read() tries it only for an exception raised by torch or whose message speaks
# torch's words
_TENSOR_RULE = [
    ("usercode.tensors_on_two_devices",
     re.compile(r"same device|on different devices|cuda:\d{1,3} and cpu|cpu and cuda:\d{1,3}", re.I)),
    ("usercode.dtype_mismatch",
     re.compile(r"\bdtypes?\b|scalar type|\b(?:Half|BFloat16|Float|Double|Long|Int|Bool|Byte)Tensor\b|"
                r"c10::(?:Half|BFloat16)|\b(?:floating point|integral|integer) type\b|"
                r"\bgot (?:Long|Float|Half|BFloat16|Double|Int|Bool|Byte)\b|\bresult type \w{1,24} can't be cast\b",
                re.I)),
    ("usercode.nan_inf", re.compile(r"\b(?:nan|inf|non-?finite)\b", re.I)),
    ("usercode.index_out_of_range", re.compile(r"out of (?:range|bounds)|\bindex \d{1,12} is out", re.I)),
    ("usercode.shape_mismatch",
     re.compile(r"\bshapes?\b|\bsizes? (?:of|mismatch)|\bsize \[|\bdimensions?\b|\bdims?\b|non-singleton|"
                r"\bstrides?\b|broadcast|batch_size|\bview size\b", re.I)),
]
_DISPATCH_DTYPE = re.compile(r"\"([\w:.]{1,120})\" not implemented for '(\w{1,24})'")

# ------------------------------------------------------------------ 5. a library's options

# (library, file part) -> the family of that library's configuration
_LIB_CONFIG = [
    ("transformers", "training_args", "transformers.trainer"), ("transformers", "trainer", "transformers.trainer"),
    ("transformers", "", "transformers.usage"),
    ("accelerate", "", "accelerate.config"),
    ("deepspeed", "config", "deepspeed.config"), ("deepspeed", "zero/", "deepspeed.config"),
]
# (not KeyError: its message is only the key, and a library's own dict lookup is no refusal of an option)
_CONFIG_EXC = ("ValueError", "TypeError", "AssertionError")
# the words of a refusal (what a value must be, may not be, or is not) or of the options themselves
_REFUSAL = re.compile(r"\b(?:must|should|cannot|can't|can not|only|not supported|unsupported|invalid|unexpected|"
                      r"expected|either|both|requires?|not allowed|not compatible|incompatible|mutually exclusive|"
                      r"ignored|"
                      r"config(?:uration)?|arguments?|options?|parameters?)\b",
                      re.I)
# the option a message names: `x`, 'x', "x", or a snake_case / UPPER_CASE name (bounded)
_OPTION = re.compile(r"[`'\"]([A-Za-z_][\w.\-]{1,60})[`'\"]|\b([a-z][a-z0-9]{0,30}(?:_[a-z0-9]{1,30}){1,6})\b|"
                     r"\b([A-Z][A-Z0-9]{1,30}(?:_[A-Z0-9]{1,30}){1,6})\b")

# ------------------------------------------------------------------ the library's own advice

# (the sentences that say what to do are advice.py's grammar, one place for every message's advice)
# TORCH_CHECK's convention (c10/util/Exception.h; ATen's checks): 'Expected <what> to be <X>, but got <Y>'
_EXPECTED = re.compile(r"\b[Ee]xpected (?:all )?([\w.\[\]]{1,60}) (?:dtype |tensors? |device |size |shape |argument )?"
                       r"to (?:be|have|match) ([^,;\n]{1,120}?),? but (?:got|found) ([^\n]{1,120})")


def advice(msg):
    """The sentences of a message that tell what to do (advice.find's remedies: at most two, each clipped), ''
    when none."""
    msg = (msg or "")[:WHOLE]
    if len(msg) in (MSG, WHOLE):  # the last sentence was cut by the reader's limit
        sents = _advice._sentences(msg)
        msg = msg[:sents[-1][0]] if sents else ""
    found = _advice.find(msg)
    # what to do (a remedy); without one, where the message says to look ('For more info on various settings, try
    # TORCH_LOGS="help"', torch/_logging/_internal.py: the values it accepts)
    got = [q for kind, q in found if kind == "remedy"][:2] or [q for kind, q in found if kind == "detail"][:1]
    return " ".join(_clip(q, 200) for q in got)


def rule(msg):
    """The first sentence of a message that states the rule the call broke, when it says nothing to do
    (advice.find's 'rule': Lightning's "You can't `self.log(on_step=True)` inside `on_train_epoch_end`, must be one
    of (False,)."), clipped; '' when none."""
    msg = (msg or "")[:WHOLE]
    if len(msg) in (MSG, WHOLE):  # the last sentence was cut by the reader's limit
        sents = _advice._sentences(msg)
        msg = msg[:sents[-1][0]] if sents else ""
    got = [q for kind, q in _advice.find(msg, rules=True) if kind == "rule"]
    return _clip(got[0], 200) if got else ""


# how a cause's text quotes the message: what it says to do, or (with no remedy) the rule it states
SAYS_DO = "The message says what to do: \u201c%s\u201d"
SAYS_RULE = "The message states the rule: \u201c%s\u201d"


def _rule_of(tb, chain):
    return next((r for r in (rule(_msg(t)) for t in [tb] + list(chain)) if r), "")


def expected(msg):
    """'<what> must be <X> (it got <Y>)' from a message in TORCH_CHECK's 'Expected ... but got ...' form, or ''."""
    m = _EXPECTED.search((msg or "")[:WHOLE])
    if not m:
        return ""
    return "torch expected %s to be %s and got %s" % (m.group(1), m.group(2).strip(),
                                                      _clip(m.group(3).strip(" ."), 120))


def _errno_site(name=None, code=None):
    from gpudoctor.explain.knowledge import generated_table

    for s in generated_table("errno").get("sites") or []:
        if (name and s.get("name") == name) or (code is not None and s.get("code") == code):
            return s
    return None


def _os_error(by, chain):
    """(entry id, how it was read, the errno site, the path) of the first OS error in the chain, or None."""
    for t in chain:
        msg = (t["msg"] or "")[:MSG]
        m = _ERRNO.search(msg)
        name = t["exc"].rsplit(".", 1)[-1]
        site = None
        if m:
            site = _errno_site(code=int(m.group(1)))
        elif name in _OS_SUBCLASS:
            site = _errno_site(name=_OS_SUBCLASS[name][0])
        if site is None:
            continue
        fam = site.get("family")
        if fam not in by:
            return None  # an errno with no family of its own (ENOENT): the structural answer names its path
        how = "%s (%s, errno %s)" % (t["exc"], site["name"], site["code"])
        return fam, how, site, (m.group(3) if m else None)
    return None


def _from_torch(tb):
    frames = tb.get("frames") or []
    # the innermost frame only: elastic's @record wrapper around the user's main is an outer frame of torch's
    return bool(frames) and "/torch/" in frames[-1][0].replace("\\", "/")


# (lead, session 30) a torch function implemented in C++ (an ATen op: torch._scaled_mm, torch.matmul, F.conv2d) raises
# from the user's own line: no frame of torch's is printed, and its TORCH_CHECK message need not use torch's words
# ('Invalid scaling configuration.'). The innermost frame's source line calling torch.<name>( / F.<name>( says whose
# refusal it is. Only a plain call expression is read (the marked part on 3.11+, else the line).
_TORCH_CALL = re.compile(r"(?<![\w.])(torch(?:\.(?:nn\.functional|linalg|fft|special|sparse|nested|cuda|_C|ops\.aten))?"
                         r"\.(?:_{0,2}[a-z][a-z0-9_]{0,60})|F\.[a-z][a-z0-9_]{0,60})\s{0,4}\(")
# the rules of ops whose refusals say little (aten/src/ATen/native/cuda/Blas.cpp and native/Blas.cpp _scaled_mm:
# mat1 row-major, mat2 column-major, both dims multiples of 16, float8 inputs, float32 scales: one element each for
# tensor-wise scaling, (M, 1) and (1, N) for row-wise; https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/Blas.cpp)
_OP_RULES = {
    "torch._scaled_mm": "torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=...) wants a and b in a float8 dtype "
                        "(torch.float8_e4m3fn / float8_e5m2), a row-major and b column-major (pass b as x.t() of a "
                        "row-major x), every dimension a multiple of 16, and float32 scales: one-element tensors "
                        "for tensor-wise scaling, or scale_a of shape (M, 1) and scale_b of shape (1, N) for "
                        "row-wise; cast the scales with .float()",
}


def _torch_call(tb):
    """The torch function the innermost frame's line calls ('torch._scaled_mm'; 'F.conv2d' as
    'torch.nn.functional.conv2d'), when that frame is the
    user's own (the exception came out of torch's C++ code), else None."""
    frames, src = tb.get("frames") or [], tb.get("src") or []
    if not frames or not src or len(src) != len(frames) or pytb.where(frames[-1][0])[0] != "user":
        return None
    line, focus = src[-1]
    m = _TORCH_CALL.search(focus or "") or _TORCH_CALL.search(line or "")
    if not m:
        return None
    return "torch.nn.functional." + m.group(1)[2:] if m.group(1).startswith("F.") else m.group(1)


def _other_lib(t):
    """The library other than torch whose frame raised (Horovod's 'broadcast a tensor' is Horovod's), or None."""
    from gpudoctor.explain import pytb

    inner = pytb.innermost(t)
    return inner[4] if inner and inner[3] == "lib" and inner[4] != "torch" else None


def _options(msg, limit=3):
    out = []
    for m in _OPTION.finditer(msg[:WHOLE]):
        v = next(g for g in m.groups() if g)
        if v not in out and not v.startswith(("http", "self.")):
            out.append(v)
        if len(out) == limit:
            break
    return out


# errnos that name the file itself (missing, not allowed, a directory): the path is the answer, not the reader
_FILE_ERRNOS = (1, 2, 13, 20, 21)
# CPython's own IndexError messages (Objects/listobject.c, tupleobject.c, unicodeobject.c): a Python sequence, not a
# tensor's index
_PY_INDEX = re.compile(r"^(?:list|tuple|string|deque|range object) index out of range")


def _reading_checkpoint(t):
    """The exception was raised while torch.load read a file (torch/serialization.py's load and its readers in the
    innermost frames) and says nothing of the file's access: the file's contents were refused (a truncated or
    foreign file: PyTorchFileReader raises OSError [Errno 22] on a cut archive, made here with torch 2.13)."""
    frames = t.get("frames") or []
    inner = [f for f in frames[-3:] if f[0].replace("\\", "/").endswith("torch/serialization.py")]
    if not inner or not any(f[0].replace("\\", "/").endswith("torch/serialization.py") and f[2] in ("load", "_load")
                            for f in frames):
        return False
    m = _ERRNO.search(t["msg"] or "")
    return not (m and int(m.group(1)) in _FILE_ERRNOS) and t["exc"].rsplit(".", 1)[-1] not in (
        "FileNotFoundError", "PermissionError", "IsADirectoryError", "NotADirectoryError")


def read(by, tb, chain):
    """What the chain's words mean: a dict (eid, how, sure, text, fix, advice) or None when no class holds.
    ``tb`` is the first exception of the chain, ``chain`` the ones printed after it (pyanswer._chain_after)."""
    seq = [tb] + list(chain)
    for t in seq:
        if _reading_checkpoint(t) and "torch.checkpoint_load" in by:
            return {"eid": "torch.checkpoint_load", "how": "%s raised while torch.load read the file" % t["exc"],
                    "sure": "medium", "text": None, "fix": []}
    got = _os_error(by, seq)
    if got:
        eid, how, site, path = got
        text = site.get("means") or by[eid]["title"]
        fix = list(site.get("fix") or [])
        if path:
            fix.insert(0, "check %s on the node that raised it (ls -ld %s; df -h %s)" % (sh(path), operand(path),
                                                                                         operand(path)))
        return {"eid": eid, "how": "the OS error %s in the exception's chain" % how, "sure": "medium",
                "text": "%s%s." % (text[:1].upper() + text[1:], " (path: %s)" % path if path else ""), "fix": fix}
    for t in seq:
        msg = _msg(t)
        if _SHORT_WRITE.search(msg) and "errno.enospc" in by:
            return {"eid": "errno.enospc", "how": "torch.save's writer saw a short write ('%s')" % _clip(msg, 80),
                    "sure": "low",
                    "text": "The checkpoint's file stopped taking bytes while torch.save wrote it (a short write: "
                            "PyTorchStreamWriter's position fell behind, caffe2/serialize/inline_container.cc): the "
                            "filesystem refused the write - a full disk or a used-up quota first (ENOSPC, EDQUOT), "
                            "a file-size limit on the process (ulimit -f, RLIMIT_FSIZE: EFBIG, since Python ignores "
                            "SIGXFSZ; setrlimit(2)), else an I/O error of a network filesystem (EIO).",
                    "fix": ["df -h and quota -s (Lustre: lfs quota -h -u $USER <mount>) on the checkpoint's folder; "
                            "free space or save to a filesystem with room, and keep fewer checkpoints "
                            "(save_total_limit)",
                            "ulimit -f in the job's shell (srun bash -c 'ulimit -f'): anything but 'unlimited' caps "
                            "every file; ulimit -f unlimited before the launcher (limits.conf fsize, LimitFSIZE=, "
                            "--ulimit fsize=-1 where it is set)"]}
    for t in seq:
        msg = _msg(t)
        sd = _STATE_DICT.search(msg)
        if sd and "usercode.state_dict_mismatch" in by:
            # (torch's message starts 'Error(s) in loading state_dict for Net:' and names the parameter on a later
            # line, module.py load_state_dict: the first 'size mismatch for <param>' anywhere, not the first match)
            param = next((m.group(1) for m in _STATE_DICT.finditer(msg) if m.group(1)), None)
            return {"eid": "usercode.state_dict_mismatch", "how": "load_state_dict's refusal ('%s')" % _clip(
                msg, 80), "sure": "medium",
                "text": "The checkpoint's tensors do not fit the model%s: another architecture or configuration "
                        "(a vocabulary or layer size), or a prefix (module., _orig_mod.) on its keys." % (
                            " (parameter %s)" % param if param else ""),
                "fix": (["compare the shape of %s in the checkpoint with the model's "
                         "(torch.load(path, map_location='cpu')[key].shape vs model.state_dict()[key].shape)"
                         % sh(param)] if param else [])}
        if _CKPT_READ.search(msg) and ("torch.checkpoint_load" in by) and (
                "PytorchStreamReader" in msg or any(("serialization" in f[0] or "safetensors" in f[0]) and
                                                    _LOADING.search(f[2] or "") for f in t.get("frames") or [])):
            return {"eid": "torch.checkpoint_load", "how": "the checkpoint reader's words ('%s')" % _clip(msg, 80),
                    "sure": "medium", "text": None, "fix": []}
    for t in seq:
        msg = _msg(t)
        if (_HUB.search(msg) or _HUB.search(t["exc"])) and "transformers.hub" in by:
            rid = _REPO_ID.search(msg)
            local = rid and _LOCAL_ID.match(rid.group(1))
            text = ("%s is a path, and no folder of that name exists where this rank ran: from_pretrained takes a "
                    "name that is not a local folder for a Hub repository id" % rid.group(1)) if local else None
            fix = (["the folder %s does not exist on this node (ls -ld %s): check the path, the mount on every node "
                    "and the working directory the launcher gave the rank" % (sh(rid.group(1)), operand(rid.group(1)))]
                   if local else [])
            return {"eid": "transformers.hub", "how": "the Hugging Face Hub's words in %s" % t["exc"],
                    "sure": "low", "text": text, "fix": fix}
    for t in seq:
        msg = _msg(t)
        if not msg or not t["exc"].rsplit(".", 1)[-1].endswith("Error") or _PY_INDEX.match(msg):
            continue
        call = _torch_call(t)
        if not (_from_torch(t) or _TORCH_WORDS.search(msg) or call) or _other_lib(t):
            continue
        # an environment variable torch reads, named in a refusal ('For more info on various settings, try
        # TORCH_LOGS="help"', torch/_logging/_internal.py): famfix's names of the variables a job's stack reads
        env = famfix.names([msg], "var") if _from_torch(t) and _REFUSAL.search(msg) else None
        if env and "torch.usage" in by:
            return {"eid": "torch.usage", "how": "torch refused the value of %s" % env, "sure": "low",
                    "text": "torch refused the value of the environment variable %s (the message lists what it "
                            "accepts)." % env,
                    "fix": ["check %s where the job sets it (echo \"$%s\"; the job script, the container's ENV, "
                            "the launcher's --env) and give it a value the message accepts, or unset it"
                            % (sh(env), env)], "advice": advice(msg)}
        first = (t["msg"] or "")[:MSG]  # the topic is the first line's: later lines list values (a setting's names)
        for eid, rx in _TORCH_RULES + _TENSOR_RULE:
            m = rx.search(first)
            if m and eid in by:
                fix = []
                d = _DISPATCH_DTYPE.search(msg)
                if eid == "usercode.dtype_mismatch" and d:
                    fix.append("%s has no kernel for %s: give it float32 tensors (x.float()), or keep the module "
                               "and its optimizer state in float32 and use autocast for lower precision"
                               % (sh(d.group(1)), sh(d.group(2))))
                exp = expected(msg)
                got = {"eid": eid, "how": "torch's words '%s'" % m.group(0), "sure": "low",
                       "text": ("The call's arguments break the rule the message states: %s." % exp) if exp else None,
                       "fix": fix, "advice": advice(msg)}
                if _EMPTY.search(msg) and eid in ("usercode.shape_mismatch", "usercode.dtype_mismatch"):
                    got["first"] = _SHARDED
                op = _OP_RULES.get(call)
                if op:  # the op's own rules, where its message says little of them
                    got["fix"].insert(0, op)
                return got
        if _COMPILE_EXC.match(t["exc"]) and "torch.compile_error" in by:
            # (family17) an exception class torch.compile's own packages define and raise (torch/_dynamo/exc.py:
            # BackendCompilerFailed, Unsupported, ...; torch/_inductor/exc.py: InductorError, LoweringException's
            # wrapper): the compile stack stopped, whose words no rule above read
            return {"eid": "torch.compile_error", "how": "%s, an exception of torch.compile's own" % t["exc"],
                    "sure": "low", "text": None, "fix": [], "advice": advice(msg)}
        adv = advice(msg)
        if adv and "torch.usage" in by:
            return {"eid": "torch.usage", "how": "torch refused the call and said what to do", "sure": "low",
                    "text": None, "fix": [], "advice": adv}
        if call and "torch.usage" in by and t["exc"].rsplit(".", 1)[-1] in ("ValueError", "RuntimeError",
                                                                             "TypeError", "IndexError"):
            fn = call
            rule_ = _OP_RULES.get(fn)
            return {"eid": "torch.usage", "how": "%s, called on your line, refused its arguments" % fn, "sure": "low",
                    "text": "%s refused the arguments your line gives it (a check in torch's C++ code, so no frame "
                            "of torch's is printed): the message names the rule they break." % fn,
                    "fix": ([rule_] if rule_ else []) + [
                        "change the call to %s so its arguments meet the rule the message states (its documented "
                        "arguments: https://pytorch.org/docs/stable/generated/%s.html)" % (fn, fn)],
                    "advice": None}
    return _lib_option(by, seq[-1])


def _lib_option(by, t):
    frames = t.get("frames") or []
    if not frames or t["exc"].rsplit(".", 1)[-1] not in _CONFIG_EXC:
        return None
    from gpudoctor.explain import pytb

    file = frames[-1][0].replace("\\", "/")
    kind, lib = pytb.where(frames[-1][0])
    if kind != "lib":
        return None
    msg = _msg(t)
    for name, part, eid in _LIB_CONFIG:
        if lib == name and part in file.rsplit("/%s/" % name, 1)[-1] and eid in by:
            opts = _options(msg)
            if not opts or not _REFUSAL.search(msg):
                return None
            return {"eid": eid, "how": "%s refused an option in %s (%s)" % (lib, file.rsplit("/", 1)[-1],
                                                                             ", ".join(opts)),
                    "sure": "low", "text": "%s refused the value of %s: the message says what it accepts." % (
                        lib, ", ".join(opts)),
                    "fix": ["change %s where the job sets it (the script's arguments, the config file, or the "
                            "environment) to a value the message accepts" % " / ".join(sh(o) for o in opts)],
                    "advice": advice(msg)}
    return None


# what to print at the call, per tensor rule: a first cause that says what the message says, in place of a
# family's most common case (a Linear layer's in_features) that the message does not name
_LOOK = {"usercode.shape_mismatch": "shapes (x.shape) and the dim / size arguments",
         "usercode.dtype_mismatch": "dtypes (x.dtype) and the model's (next(model.parameters()).dtype)",
         "usercode.tensors_on_two_devices": "devices (x.device) and the model's",
         "usercode.index_out_of_range": "index values (idx.min(), idx.max()) against the size indexed",
         "usercode.nan_inf": "values (torch.isfinite(x).all()) step by step from the inputs"}


# a 0-element tensor where a parameter should be: a sharded parameter read outside the code that gathers it.
# DeepSpeed ZeRO-3 frees each partitioned parameter to an empty tensor (deepspeed/runtime/zero/
# partition_parameters.py: param.data = torch.empty(0)) outside the engine's forward; a user's matmul with it
# reads 'size mismatch, got input (N), mat (NxM), vec (0)' (https://github.com/huggingface/accelerate/issues/1261,
# the same made here with CPU torch 2.13), and a load_state_dict into such a model 'the shape in current model is
# torch.Size([0])' (https://github.com/Lightning-AI/pytorch-lightning/issues/18648)
_SHARDED = {
    "text": "A tensor of 0 elements where a parameter should be: a sharded parameter used outside the code that "
            "gathers it. DeepSpeed ZeRO-3 leaves each partitioned parameter as an empty placeholder outside the "
            "engine's forward (and a model built under deepspeed.zero.Init); FSDP keeps only a shard outside forward.",
    "fix": ["use the parameter inside the model's forward (through the engine), or gather it first: with "
            "deepspeed.zero.GatheredParameters(param): ... (ZeRO-3; modifier_rank=0 to change it); FSDP: with "
            "FullyShardedDataParallel.summon_full_params(model): ... (FSDP2: model.unshard())"],
}


def with_advice(f, tb, chain):
    """The message's own advice in the first cause of a structural answer that did not come from read()
    (pyanswer's library / code.exception answers): its text, quoted, never a fix line."""
    if f is None or not f.get("causes") or any(("The message says what to do" in c["text"] or
                                                "The message states the rule" in c["text"]) for c in f["causes"]):
        return f
    adv = next((a for a in (advice(_msg(t)) for t in [tb] + list(chain)) if a), "")
    rl = "" if adv else _rule_of(tb, chain)
    said = (SAYS_DO % adv) if adv else (SAYS_RULE % rl) if rl else ""
    if said:
        c = f["causes"][0]
        c["text"] = "%s %s" % (c["text"], said)
    return f


def finding(scan, kb, tb, chain, what, where):
    """pyanswer's structural finding from read(), or None."""
    got = read(kb.by_id, tb, chain)
    if not got:
        return None
    from gpudoctor.explain.analyze import _structural_finding

    f = _structural_finding(kb.by_id[got["eid"]], tb["hit"], got["how"], scan, sure=got["sure"])
    adv = got.get("advice")
    text = got.get("text")
    if not text and not got["fix"] and got["eid"] in _LOOK:
        text = "torch refused the tensors of the call at %s, as its message says (%s)." % (where, _clip(what, 160))
        got["fix"] = ["print the %s of that call's tensors just before it (%s), and make them fit what the message "
                      "asks" % (_LOOK[got["eid"]], sh(where))]
    if adv:
        text = "%s %s" % (text or "The call was refused (%s)." % _clip(what, 160), SAYS_DO % adv)
    # no remedy: the rule the message states, quoted in the cause's text (TORCH_CHECK's 'Expected ...' is read above)
    rl = "" if adv or (text and "the rule the message states" in text) else _rule_of(tb, chain)
    if rl and text:
        text = "%s %s" % (text, SAYS_RULE % rl)
    elif rl:
        f["causes"][0]["text"] = "%s %s" % (f["causes"][0]["text"], SAYS_RULE % rl)
    if text:
        f["causes"].insert(0, {"text": text, "checks": [], "confirm": [],
                               "fix": got["fix"] or list(f["causes"][0]["fix"]), "exports": {},
                               # no evidence line: its words are read, not a message known to mean it (an
                               # evidence line would make analyze say 'How sure: high')
                               "evidence": [], "static_rank": 0,
                               "computed": None})
    elif got["fix"]:
        f["causes"][0]["fix"][:0] = got["fix"]
    if got.get("first"):
        f["causes"].insert(0, {"text": got["first"]["text"], "checks": [], "confirm": [],
                               "fix": list(got["first"]["fix"]), "exports": {}, "evidence": [], "static_rank": 0,
                               "computed": None})
    f["notes"].append("Read from the words of the exception raised at %s: %s%s" % (
        where, what, "" if what.endswith((".", "!", "?")) else "."))  # (a message's own period, or '...', ends it)
    return f
