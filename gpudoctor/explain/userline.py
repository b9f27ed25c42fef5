"""The line of the user's own code a traceback ends in, read by the API it calls (issue 18): the fix of a
user-code answer names that line and how to change it, not only what the exception means.

1. The innermost frame in the user's own file (pytb.where: not site-packages / dist-packages, the standard
   library, a frozen module or exec'd code) with the source line CPython printed under it and the part its
   3.11+ caret line marks (pytb.frame_source; Lib/traceback.py StackSummary.format_frame_summary). The line is
   untrusted text: control and bidi characters dropped, blanks squashed, cut to MAX_LINE, quoted in a cause's
   text only (never in a fix line, which a person pastes).
2. The calls on that line (``name(`` / ``.method(``) resolved against generated/train_api.json
   (tools/gen_train_api.py: the signatures and first docstring lines of the training APIs of torch,
   transformers, accelerate and peft, read with inspect from the installed packages); two APIs of one name
   (Module.load_state_dict, Optimizer.load_state_dict) are told apart by the files of the frames the call
   went into. The answer names the called API's parameters that bear on what the exception means (BEARS:
   the one hand-written table here, meaning -> parameter-name words).
3. A plain expression on the line (a subscript ``a[i + k]``, an in-place ``x /= y``) is named with what the
   exception says of it: an index past the end in a Dataset's __getitem__ is its __len__ (the samplers draw
   every index of range(len(dataset)): torch/utils/data/sampler.py SequentialSampler / RandomSampler); a
   cast refusal at an in-place operator is the in-place op keeping its left side's dtype (ATen's
   TensorIterator: "result type X can't be cast to the desired output type Y", the output of an in-place op
   being its self).

The answer's root stays what it was: the line fills the first cause of a user-code family's answer whose
first cause has no evidence of its own (a generic fix); with evidence it is a note.
"""

import re

from gpudoctor.explain import pytb
from gpudoctor.explain.advice import clean
from gpudoctor.fixline import sh

MAX_LINE = 160
# families whose fix is the user's code (the brief of issue 18: code.*, usercode.*, torch.* and the libraries'
# usage entries a user's call reaches)
FAMILIES = ("code.", "usercode.", "torch.", "transformers.", "peft.", "accelerate.")
_CALL = re.compile(r"(?<![\w.])(\.?)([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,6})[ \t]{0,3}\(")
_SUBSCRIPT = re.compile(r"([A-Za-z_][\w.]{0,80})\[([^\[\]\n]{1,80})\]")
_AUGMENTED = re.compile(r"^([A-Za-z_][\w.\[\]'\"]{0,80}) ?(\+|-|\*|/|//|%|\*\*|@|&|\||\^|<<|>>)= ?(.{1,120})$")
# the names users give these classes (torch's own docs and tutorials: `from torch.nn.parallel import
# DistributedDataParallel as DDP`, https://pytorch.org/tutorials/intermediate/ddp_tutorial.html)
_ALIAS = {"DDP": "DistributedDataParallel", "FSDP": "FullyShardedDataParallel"}

# what an exception means, as the words of the answer's family and of the exception: the first that holds
_MEANINGS = [
    ("index", re.compile(r"index_out_of_range|IndexError|\bout of (?:range|bounds)\b", re.I)),
    ("key", re.compile(r"^KeyError\b")),
    ("dtype", re.compile(r"dtype|ScalarType|scalar type|can't be cast|\bHalf\b|BFloat16", re.I)),
    ("device", re.compile(r"two_devices|same device|different devices|map_location", re.I)),
    ("state", re.compile(r"state_dict|Missing key|Unexpected key|parameter group", re.I)),
    ("shape", re.compile(r"shape|size|dimension|\bdims?\b", re.I)),
    ("file", re.compile(r"FileNotFoundError|No such file|\[Errno 2\]|IsADirectoryError", re.I)),
]
# meaning -> the words of the parameters that bear on it (what a person decides; the parameters themselves are
# the generated table's)
BEARS = {
    "index": r"num_replicas|^rank$|drop_last|num_samples|batch_size|sampler|indices|num_embeddings|padding_idx|"
             r"max_length|truncation|ignore_index",
    "key": r"compute_metrics|metric_key_prefix|ignore_keys|remove_unused_columns|label_names|collate_fn|strict",
    "dtype": r"dtype|mixed_precision|^enabled$|bf16|fp16|force",
    "device": r"device|map_location|output_device|pin_memory",
    "state": r"strict|assign|prefix|ignore_mismatched_sizes|^params$|state_dict",
    "shape": r"shape|^size$|_size$|^dim$|drop_last|max_length|truncation|^padding$|features$|num_embeddings|"
             r"embedding_dim|num_replicas",
    "file": r"map_location|weights_only|^f$|path|pretrained_model_name_or_path|input_dir|output_dir|"
            r"local_files_only|cache_dir",
}
_SAY = {"index": "an index past the end", "key": "a key that is not there", "dtype": "a dtype the operation refuses",
        "device": "tensors on two devices", "state": "a saved state that does not fit the object it is loaded into",
        "shape": "a shape or size that does not fit", "file": "a file that is not there"}
# a rank's number in a file name: 'epoch1_rank1.pt', 'ckpt-rank-3' (not a bare 'r2': a run's or a round's)
_RANK_IN_PATH = re.compile(r"(?i)(?:^|[/_.\-])(rank)[_\-]?(\d{1,5})(?=[_.\-/]|$)")
_MISSING = re.compile(r"\[Errno 2\] No such file or directory: '([^'\n]{1,300})'")
# torch/csrc/autograd/engine.cpp validate_outputs: "Function <name> returned an invalid gradient at index <i> -
# got <sizes> but expected shape compatible with <shape>"
_BAD_GRAD = re.compile(r"Function (\w{1,80}) returned an invalid gradient at index (\d{1,4}) - got \[([\d, ]{0,80})\] "
                       r"but expected shape compatible with \[([\d, ]{0,80})\]")
# torch/csrc/utils/tensor_numpy.cpp aten_to_numpy_dtype: a ScalarType NumPy has no dtype for
_NO_NUMPY = re.compile(r"Got unsupported ScalarType (\w{1,24})")
# aten/src/ATen/TensorIterator.cpp compute_types: the result's dtype cannot be written to the output's
_CAST = re.compile(r"result type (\w{1,24}) can't be cast to the desired output type (\w{1,24})")


def table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("train_api")


def quote(src):
    """The source line as it may be shown: no control or bidi characters, blanks squashed, bounded, no
    backquote (the quote's own delimiter)."""
    text = clean(src or "").replace("`", "'")  # (advice.clean: C0/C1 controls, zero-width and bidi overrides -
    # Trojan Source, CVE-2021-42574 - and line separators never echoed, blanks folded)
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 6] + " [...]"


_IDENT = re.compile(r"^(?:[A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,4}|\d{1,9}(?:\.\d{1,9})?)$")


def ident(text, other):
    """A name of the user's code in a fix line only when it is a plain (dotted) name or a number: nothing else
    of the untrusted line goes into a line a person pastes."""
    return text if _IDENT.match(text or "") else other


_PY311 = re.compile(r"[/\\]python3\.(?:1[1-9]|[2-9]\d)[/\\]")


def user_frame(tb):
    """The innermost frame of the user's own code that printed its source line: dict(file, line, fn, src,
    focus, callees: the files and functions of the frames it called), or None."""
    frames, srcs = tb.get("frames") or [], tb.get("src") or []
    # a 3.11+ traceback (a caret line on a frame, or a frame under lib/python3.11+): a frame with no caret line
    # raised on its whole line (Lib/traceback.py format_frame_summary prints carets only under a part of the line)
    carets = any(x[1] for x in srcs) or any(_PY311.search(f[0]) for f in frames)
    for k in range(len(frames) - 1, -1, -1):
        file, line, fn = frames[k]
        if pytb.where(file)[0] != "user" or file.startswith("<"):
            continue
        src, focus = srcs[k] if k < len(srcs) else ("", None)
        if not src:
            return None
        return {"file": file, "line": line, "fn": fn or "", "src": src, "focus": focus, "carets": carets,
                "callees": [(f[0].replace("\\", "/"), f[2]) for f in frames[k + 1:]]}
    deep = tb.get("user")  # beyond the innermost frames pytb keeps: every kept frame is below it
    if deep and deep[3][0] and not deep[0].startswith("<"):
        return {"file": deep[0], "line": deep[1], "fn": deep[2] or "", "src": deep[3][0], "focus": deep[3][1],
                "carets": carets, "cut": True, "callees": [(f[0].replace("\\", "/"), f[2]) for f in frames]}
    return None


def _params(rec):
    if rec.get("params") is not None:
        return [p[0] for p in rec["params"] if p[0] not in ("self", "cls") and p[1] not in ("VAR_POSITIONAL",
                                                                                            "VAR_KEYWORD")]
    sig = rec.get("sig") or ""  # a builtin's: 'numpy(*, force=False) -> numpy.ndarray'
    inner = sig[sig.find("(") + 1:sig.rfind(")")] if "(" in sig else ""
    return [p.split("=")[0].strip() for p in inner.split(",") if p.split("=")[0].strip().isidentifier()]


def _close(text, i):
    """The index of the parenthesis that closes the one at text[i] (quotes skipped), or len(text): one pass."""
    depth, quote_ch = 0, None
    for k in range(i, len(text)):
        ch = text[k]
        if quote_ch:
            if ch == quote_ch:
                quote_ch = None
        elif ch in "'\"":
            quote_ch = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def _went_into(name, rec, callee, by_fn):
    """Whether the frame ``callee`` (file, function) is API ``name``'s: its file, and (by_fn) its own function (a
    method's name; a class's __init__ / __new__ / __post_init__)."""
    f = rec.get("file")
    if not f or not callee[0].endswith("/" + f):
        return False
    short = name.rsplit(".", 1)[-1]
    return not by_fn or callee[1] in ((short, "__init__", "__new__", "__post_init__") if rec.get("kind") == "class"
                                      else (short,))


def calls(uf, tb=None):
    """The training APIs the line calls, [(what the line wrote, API name, record)], the one the traceback went
    into first, then the others in the order written.

    The API the traceback went into is the one whose file and function are a frame after the user's (its file
    alone where the frames between were cut). Several calls of that name on the line
    (`net.load_state_dict(...); opt.load_state_dict(...)`, `model.to(dev)(x.to(dev))`) are told apart by where
    CPython says the line raised, never by the order written: the part its 3.11+ caret line marks (the outermost
    call there); with carets on the traceback's other frames but none on this one, the marked part is the whole
    line (Lib/traceback.py format_frame_summary omits carets that would span the line), so the line's own outer
    call; otherwise (before 3.11) nothing tells them apart and the answer names them all."""
    tb = table() if tb is None else tb
    apis, names = tb.get("apis", {}), tb.get("calls", {})
    callees = uf["callees"]
    src, focus = uf["src"][:pytb.MAX_SRC], uf["focus"] or ""
    occ = []  # (in the focus, start, end, what the line wrote, candidate APIs)
    for in_focus, text in ((True, focus), (False, src)):
        for m in _CALL.finditer(text):
            dotted = m.group(2)
            last = dotted.rsplit(".", 1)[-1]
            cands = names.get(_ALIAS.get(last, last), [])
            if cands:
                occ.append((in_focus, m.start(), _close(text, m.end() - 1), dotted, cands))
    # the API the traceback went into: the first frame after the user's that is a called API's own function (a
    # frame in its file alone is not: `model(batch.to(dev))` goes into module.py's _call_impl, not Module.to), or in
    # its file where pytb cut the frames between; the line's other calls returned (the frames say nothing of them)
    target = next((n for by_fn in ((True, False) if uf.get("cut") else (True,)) for c in callees for o in occ
                   for n in o[4] if _went_into(n, apis[n], c, by_fn)), None)
    out = []
    if target:
        claim = [o for o in occ if target in o[4]]
        chosen = next((o for o in claim if o[0]), None)
        if chosen is None and not focus and uf.get("carets"):
            # the whole line raised: its outer call ends where the line ends
            tail = len(src.rstrip()) - 1
            chosen = next((o for o in claim if o[2] == tail), None)
        wrote = {o[3] for o in claim if not o[0]} | ({chosen[3]} if chosen else set())
        if chosen is not None or len(wrote) == 1:
            out.append((chosen[3] if chosen else claim[0][3], target, apis[target]))
        else:
            out.append(("one of " + " / ".join(sorted(wrote, key=lambda w: src.find(w + "("))), target, apis[target]))
            occ = [o for o in occ if target not in o[4]]  # (read as that one call)
    for in_focus, _start, _end, dotted, cands in occ:
        if any(p[0] == dotted and p[1] == target for p in out):
            continue
        cands = [n for n in cands if n != target]
        pick = None
        if len(cands) > 1:
            # the dotted prefix the line wrote, against the API's module path ('dist.barrier', 'torch.load')
            head = dotted.rsplit(".", 1)[0] if "." in dotted else ""
            alias = {"dist": "torch.distributed", "F": "torch.nn.functional", "nn": "torch.nn", "np": "numpy"}
            full = alias.get(head, head)
            pick = next((n for n in cands if full and n.startswith(full + ".")), None)
        if pick is None and len(cands) == 1:
            pick = cands[0]
        if pick and all(p[1] != pick for p in out):
            out.append((dotted, pick, apis[pick]))
    return out


def meaning(f, tbr):
    text = "%s %s: %s" % (f["id"], tbr["exc"], tbr["msg"] or "")
    for key, rx in _MEANINGS:
        if key == "key":
            if rx.search(tbr["exc"].rsplit(".", 1)[-1]):
                return key
        elif rx.search(text):
            return key
    return None


def _dims(s):
    return [int(x) for x in re.findall(r"\d+", s)]


# aten/src/ATen/ExpandUtils.cpp infer_size_impl / expand's check: "The expanded size of the tensor (<n>) must match
# the existing size (<m>) at non-singleton dimension <d>"
_EXPAND = re.compile(r"expanded size of the tensor \((\d{1,9})\) must match the existing size \((\d{1,9})\)")
# a Hugging Face model's forward calling its embeddings module (transformers/models/<m>/modeling_<m>.py:
# `embedding_output = self.embeddings(`, `inputs_embeds = self.embed_tokens(`, `self.wpe(position_ids)`)
_EMBED_CALL = re.compile(r"\bself\.(?:embeddings|embed_tokens|embed_positions|wpe|wte|position_embeddings)\b")


def _in_embeddings(tbr):
    """The model file whose frame called its embeddings module, when the exception was raised at or below that
    call; else None."""
    frames, srcs = tbr.get("frames") or [], tbr.get("src") or []
    for k, (file, _line, _fn) in enumerate(frames):
        norm = file.replace("\\", "/")
        if "/transformers/models/" in norm and k < len(srcs) and _EMBED_CALL.search(srcs[k][0] or ""):
            return norm.rsplit("/transformers/", 1)[-1]
    return None


def _embeddings_overflow(uf, tbr, mean, tb):
    """An index or size refusal raised inside a transformers model's embeddings, under the user's call of the
    model: the input is longer than the model's position table (BertEmbeddings.forward slices position_ids and
    expands the token_type_ids buffer, both max_position_embeddings long: transformers/models/bert/modeling_bert.py)
    or holds a token id past the vocabulary (nn.Embedding: 'index out of range in self'); the tokenizer's
    parameters that bound the length, from the table."""
    if mean not in ("index", "shape") or not uf["callees"]:
        return None
    where = _in_embeddings(tbr)
    if where is None:
        return None
    tok = (tb.get("apis", {}).get("transformers.PreTrainedTokenizerBase.__call__") or {})
    bound = [p for p in _params(tok) if p in ("truncation", "max_length")] or ["truncation", "max_length"]
    ex = _EXPAND.search(tbr["msg"] or "")
    sizes = (" (%s positions asked of a table of %s)" % ex.groups()) if ex else ""
    text = ("It was raised inside the model's embeddings (%s), under your call of the model: the input is longer "
            "than the model's position table%s - its config's max_position_embeddings - or holds a token id past the "
            "vocabulary (a tokenizer of another model)." % (where, sizes))
    fix = ("tokenize with %s so no input is longer than the model takes: tokenizer(texts, truncation=True, "
           "max_length=model.config.max_position_embeddings) (PreTrainedTokenizerBase.__call__'s %s); and use the "
           "tokenizer of the same checkpoint as the model" % (" and ".join(bound), ", ".join(bound)))
    return text, fix


# Objects/exceptions.c UnicodeDecodeError_str: "'%U' codec can't decode byte 0x%02x in position %zd: %U"
_DECODE = re.compile(r"'([\w-]{1,30})' codec can't decode byte")


def _stdlib_reads(uf, tbr, mean, tb):
    """Readings from what the standard library's frames say: the main module run again in a spawned child
    (Lib/multiprocessing/spawn.py _fixup_main_from_path runs the parent's __main__ file with runpy.run_path in
    every child the 'spawn' / 'forkserver' start method makes, so module-level code that starts processes runs
    again there), a file read with the wrong codec, an iterator that ran out at the line's next()."""
    exc = tbr["exc"].rsplit(".", 1)[-1]
    frames = list(tbr.get("outer") or []) + list(tbr.get("frames") or [])
    if uf["fn"] == "<module>" and any(f[2] == "_fixup_main_from_path" and f[0].replace("\\", "/").endswith(
            "multiprocessing/spawn.py") for f in frames):
        return ("Your script's module level ran again inside a child process: the 'spawn' start method (DataLoader "
                "workers, torch.multiprocessing, ProcessPoolExecutor) re-runs the main file in every child "
                "(multiprocessing/spawn.py _fixup_main_from_path), and this line started processes there again.",
                "put the script's top-level code under a main guard, if __name__ == \"__main__\": main() - every "
                "line that builds the DataLoader, the model or starts processes (https://docs.python.org/3/library/"
                "multiprocessing.html#the-spawn-and-forkserver-start-methods)")
    dec = _DECODE.search(tbr["msg"] or "") if exc == "UnicodeDecodeError" else None
    if dec:
        return ("The file your line reads is not %s text (a byte %s cannot decode): it was written in another "
                "encoding (latin-1 / cp1252 from a spreadsheet or Windows, utf-16)." % (dec.group(1), dec.group(1)),
                "open it with the file's own encoding, open(path, encoding=\"latin-1\") (or \"cp1252\"; file -i "
                "<path> guesses it), or convert the file to utf-8 once (iconv -f latin1 -t utf-8); errors=\"replace\" "
                "only to skip bad bytes")
    if exc == "StopIteration" and not uf["callees"] and re.search(r"\bnext\(", uf["src"]):
        rank = tbr.get("rank")
        return ("next() on your line found the iterator exhausted%s." % (
                    ": rank %s ran out of batches before the others - ranks that step a different number of times "
                    "cannot meet in the same collectives" % rank if rank is not None else ""),
                "loop over the loader (for batch in loader) or catch StopIteration and start a new epoch's iterator"
                "%s" % ("; give every rank the same number of steps: DistributedSampler(dataset) pads every rank to "
                        "the same count (drop_last=False), or take min over ranks of len(loader) (all_reduce with "
                        "MIN); for uneven inputs by design, torch.distributed.algorithms.Join" if rank is not None
                        else ""))
    return None


def specific(uf, tbr, mean, tb=None):
    """(text, fix) of a rule that reads the line's expression with the exception, or None."""
    msg, src = tbr["msg"] or "", uf["src"]
    tb = table() if tb is None else tb
    emb = _embeddings_overflow(uf, tbr, mean, tb) or _stdlib_reads(uf, tbr, mean, tb)
    if emb:
        return emb
    from gpudoctor.explain import objtype  # (famfix28) the name the line uses whose type CPython's message names

    got = objtype.read(uf, tbr, ident, quote)
    if got:
        return got
    subs = _SUBSCRIPT.findall(uf["focus"] or src)
    # (a subscript read as the raiser only where the user's frame is the innermost one: a KeyError that a library's
    # __getitem__ raises with a message of its own is no missing key of the line)
    own = not uf["callees"]
    if mean == "index" and uf["fn"] == "__getitem__" and subs and own:
        seq, idx = subs[-1]
        off = re.search(r"[+-] ?([A-Za-z_][\w.]{0,60}|\d{1,6})\s*$", idx)
        text = ("Your dataset's __getitem__ reads `%s[%s]` past the end of %s: the DataLoader's sampler asks for "
                "every index of range(len(dataset)) (torch/utils/data/sampler.py), so __len__ counts more samples "
                "than __getitem__ can serve." % (quote(seq), quote(idx), quote(seq)))
        k = ident(off.group(1), None) if off else None
        fix = ("make __len__ return the number of indices __getitem__ can serve%s (an off by one: the largest index "
               "asked is len(dataset) - 1)" % (
                   ", len(%s) %s %s, since __getitem__ adds %s to the index" % (
                       ident(seq, "the sequence"), "-" if "+" in off.group(0) else "+", k, k) if k else ""))
        return text, fix
    if mean == "key" and subs and own:
        key = msg.strip().strip("'\"")[:80]
        seq = next((s for s, i in subs if key and key in i), subs[-1][0])
        text = "Your line reads the key %s of `%s`, and %s has no such key." % (quote(repr(key)), quote(seq),
                                                                               quote(seq))
        name = ident(seq, None)
        return text, ("print %s just before that line and read a key it has, or make whatever fills it add "
                      "that key" % ("its keys (print(sorted(%s)))" % name if name else "the keys of the mapping"))
    aug = _AUGMENTED.match(src.split("#", 1)[0].strip())
    cast = _CAST.search(msg)
    if aug and (cast or mean == "dtype"):
        lhs, op, rhs = aug.groups()
        have = cast.group(2) if cast else "its own"
        return ("The in-place `%s %s= %s` writes the result into %s and keeps %s dtype (%s): the result is %s and "
                "cannot be cast back." % (quote(lhs), op, quote(rhs), quote(lhs), "its", have,
                                          cast.group(1) if cast else "of another dtype"),
                "compute it out of place (%s), or convert %s to a float dtype first (%s.float()): an in-place "
                "operator keeps the dtype of its left side" % (
                    "%s = %s %s %s" % (lhs, lhs, op, rhs) if ident(lhs, None) and ident(rhs.strip(), None)
                    else "x = x %s y, not x %s= y" % (op, op), ident(lhs, "it"), ident(lhs, "x")))
    nn = _NO_NUMPY.search(msg)
    if nn and re.search(r"\.numpy\(|np\.(?:asarray|array)\(|\.tolist\(", src):
        return ("NumPy has no dtype for %s (torch/csrc/utils/tensor_numpy.cpp): the tensor your line converts to "
                "NumPy is %s." % (nn.group(1), nn.group(1)),
                "convert it to float32 before NumPy: .float().numpy() (or .to(torch.float32)) on your line")
    bg = _BAD_GRAD.search(msg)
    if bg:
        name, i, got, want = bg.group(1), int(bg.group(2)), _dims(bg.group(3)), _dims(bg.group(4))
        cls = name[:-len("Backward")] if name.endswith("Backward") else name
        flip = got == want[::-1] and got != want
        return ("The backward of your autograd.Function %s returns, for its input %d, a gradient of shape %s where "
                "that input has shape %s (torch/csrc/autograd/engine.cpp validate_outputs)%s." % (
                    cls, i, got, want, ": it is transposed" if flip else ""),
                "in %s.backward return for each input a gradient of the same shape as that input%s" % (
                    cls, " (the transpose of what it returns now: .t() / .transpose(0, 1), e.g. grad @ w.t() "
                         "instead of grad @ w)" if flip else ""))
    if mean == "file":
        miss = _MISSING.search(msg)
        r = _RANK_IN_PATH.search(miss.group(1)) if miss else None
        if r and int(r.group(2)) > 0:
            path = miss.group(1)
            return ("The file your line opens, %s, carries this rank's number (%s%s) and does not exist: a checkpoint "
                    "that rank 0 alone saves (if rank == 0: torch.save(...)) is one file, for every rank to load."
                    % (quote(path), r.group(1), r.group(2)),
                    "load the same file on every rank, the path without the rank (rank 0's, e.g. %s), with "
                    "map_location; or save one file per rank on every rank (the DDP tutorial saves on rank 0 and "
                    "loads it on all: https://pytorch.org/tutorials/intermediate/ddp_tutorial.html)" % sh(
                        path[:r.start(2)] + "0" + path[r.end(2):]))
    return None


def _with_api(uf, mean, found):
    """(text, fix) naming the API the line calls and its parameters that bear on the meaning, or None."""
    if not found:
        return None
    wrote, name, rec = found[0]
    params = _params(rec)
    bear = [p for p in params if mean and re.search(BEARS.get(mean, "(?!)"), p)]
    if name.endswith(".load_state_dict") and mean in ("state", "shape", "key", None):
        owner = name[:-len(".load_state_dict")]
        text = ("Your line calls %s (%s.load_state_dict: %s): the state it loads was saved from an object built "
                "otherwise." % (quote(wrote), owner, (rec.get("doc") or "")[:120]))
        if owner.endswith("Optimizer") or "lr_scheduler" in owner:
            fix = ("build the optimizer over the same parameters, in the same param groups and order, as the run that "
                   "saved it (its params argument; add_param_group) before loading; if the model changed (layers "
                   "added or frozen), start a new optimizer instead of loading the old state")
        else:
            fix = ("build the model with the configuration that saved it; for keys saved with a wrapper's prefix "
                   "(module., _orig_mod.) strip it; strict=False loads the keys that match and returns the others")
        return text, fix
    if not bear:
        return None
    text = "Your line calls %s (%s: %s)." % (quote(wrote), name, (rec.get("doc") or rec.get("sig") or "")[:140])
    fix = "check the arguments of %s that bear on %s: %s" % (name, _SAY.get(mean, "this"), ", ".join(bear))
    return text, fix


def _prefixed_key(tbr, key, tb):
    """(text, fix) when a missing key starts with a prefix a library function of the traceback adds (a parameter
    whose default is that prefix: Trainer.evaluate(metric_key_prefix='eval') names its metrics 'eval_<name>'), and
    the parameters of that function's class that share the prefix parameter's first word (what gives the rest of
    the key: Trainer(compute_metrics=...)); None otherwise."""
    apis = tb.get("apis", {})
    for file, _line, fn in reversed(tbr.get("frames") or []):
        norm = file.replace("\\", "/")
        for name, rec in apis.items():
            if name.rsplit(".", 1)[-1] != fn or not rec.get("file") or not norm.endswith("/" + rec["file"]):
                continue
            for pname, _kind, default in rec.get("params") or []:
                if not pname.endswith("prefix") or not default or default[:1] not in "'\"":
                    continue
                pre = default.strip("'\"")
                if not pre or not key.startswith(pre + "_"):
                    continue
                word = pname.split("_")[0]
                owner = apis.get(name.rsplit(".", 1)[0]) or {}
                given = [p[0] for p in owner.get("params") or [] if word in p[0] and p[0] != pname]
                return ("%s names each value %s_<name> (its parameter %s=%s): %s is %s from what it is given%s." % (
                            name, pre, pname, default, quote(repr(key)), quote(repr(key[len(pre) + 1:])),
                            " (%s(%s=...))" % (name.rsplit(".", 1)[0], given[0]) if given else ""),
                        "make %s return a dict with the key %s (or read a key it has)" % (
                            ("%s" % given[0]) if given else "what feeds %s" % name, sh(key[len(pre) + 1:])))
    return None


def read(f, tbr, tb=None):
    """The cause (text, fix, specific) for finding f from traceback tbr, or None; specific: read from the line's
    expression with the exception (else only the API it calls)."""
    uf = user_frame(tbr)
    if uf is None:
        return None
    mean = meaning(f, tbr)
    where = "%s:%d%s" % (uf["file"].replace("\\", "/").rsplit("/", 1)[-1], uf["line"],
                         " (in %s)" % uf["fn"] if uf["fn"] and not uf["fn"].startswith("<") else "")
    src = uf["src"]
    if "#" in src and not re.search(r"['\"]", src.split("#", 1)[0]):
        src = src.split("#", 1)[0]  # a trailing comment (no string before it could hold the '#')
    line = "Your line %s: `%s`." % (quote(where), quote(src))
    tb = table() if tb is None else tb
    got, own = specific(uf, tbr, mean, tb), True
    if got and mean == "key":
        more = _prefixed_key(tbr, (tbr["msg"] or "").strip().strip("'\"")[:80], tb)
        if more:
            got = ("%s %s" % (got[0], more[0]), "%s; %s" % (more[1], got[1]))
    if got is None:
        got, own = _with_api(uf, mean, calls(uf, tb)), False
    if got is None:
        return None
    text, fix = got[:2]
    if len(got) > 2 and got[2]:  # (objtype) an edit made where the name was set, not on this line
        return "%s %s" % (line, text), "%s (your line %s (%s) shows it)" % (fix, sh(uf["file"]), uf["line"]), own
    return "%s %s" % (line, text), "on your line %s (%s): %s" % (sh(uf["file"]), uf["line"], fix), own


def _tracebacks_of(scan, f):
    """The tracebacks with a frame of the user's code: the one whose exception line the root matched first, then
    the others in the log's order (a spawned child's traceback printed before the parent's)."""
    lines = {m["line"] for m in f.get("matches") or []}
    tbs = [t for t in getattr(scan, "tracebacks", []) if user_frame(t)]
    return sorted(tbs, key=lambda t: t["line"] not in lines)


def fill(scan, findings):
    """Put the user's line into the root's first cause (analyze.analyze's hook)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f["id"].startswith(FAMILIES) or not f.get("causes"):
        return
    got = None
    for tbr in _tracebacks_of(scan, f):
        one = read(f, tbr)
        if one and (one[2] or got is None):
            got = one
        if got and got[2]:
            break  # a reading of a line's expression, over the API alone of the root's own traceback
    if got is None:
        return
    text, fix, own = got
    # the API's parameters alone lead only an answer that has no reading of its own (code.exception, a structural
    # answer); a reading of the line's expression leads any answer whose first cause is generic
    if f["causes"][0].get("evidence") or not (own or f["id"].startswith("code.") or
                                              f.get("confidence") == "structural"):
        f["notes"].append("%s Fix: %s." % (text, fix))
        return
    if not own:
        # the API's parameters: a fix line after the first cause's own first one (which may name more: the path
        # a FileNotFoundError printed), the line and the API in a note
        f["causes"][0]["fix"].insert(1, fix)
        f["notes"].append(text)
        return
    f["causes"].insert(0, {"text": text, "checks": [], "confirm": [], "fix": [fix], "exports": {}, "evidence": [],
                           "static_rank": 0, "computed": None})
