"""The fix a raise site's own guard says (guards17, issue 18): a library refuses a call under a condition its source
TESTS (tools/knowgen.py guard_path reads it with `ast`: the assert's test, the if / elif / else tests around a raise,
the exception an except branch catches), and the shape of that test names what to change: `if self.training: raise`
-> the module is in training mode (model.eval()); `if not v.is_contiguous(): raise` -> v.contiguous() before the call;
`assert len(x) % 2 == 0` -> sizes divisible by 2 (a DataLoader's smaller last batch: drop_last=True).

RULES maps a guard's SHAPE (a predicate inside the test, and whether it being true is what fails) to advice, each
written from the documentation of that predicate (cited per rule) with the guard's own names in its slots. A guard no
rule reads gives nothing (the site keeps today's answer). advise() is what the generators call:
tools/gen_guard_messages.py for the libraries no table read before, and wheelmsgs.py's fallback for the existing wheel
generators' assert sites that no MSG_FIX row covers.
"""

import ast
import re

_TORCH_NN = "https://pytorch.org/docs/stable/generated/torch.nn.Module.html"
_DTYPES = {"float16", "half", "bfloat16", "float32", "float", "float64", "double", "int8", "uint8", "int16", "short",
           "int32", "int", "int64", "long", "bool", "complex64", "complex128", "cfloat", "cdouble"}
_SHORT_CAST = {"float32": ".float()", "float": ".float()", "float64": ".double()", "double": ".double()",
               "int64": ".long()", "long": ".long()", "float16": ".half()", "half": ".half()",
               "bfloat16": ".bfloat16()", "bool": ".bool()", "int32": ".int()", "int": ".int()"}


def _src(node):
    return ast.unparse(node)


def _who(node):
    """How advice names the object a predicate reads: 'self' is the object the user called (the model, the module)."""
    s = _src(node)
    return "the model (the module you called)" if s == "self" else "`%s`" % s


def predicates(test, fails_when_true, names=None):
    """[(node, p)] of the predicates inside ``test`` (an expression's source), p: whether the predicate being true is
    what makes the check fail. `not` and `~` turn p over; `and` / `or`, `all()` / `any()` and `.all()` / `.any()` keep
    it; a plain name assigned just above (``names``: {name: source}) is read as what was assigned to it."""
    try:
        root = ast.parse(test, mode="eval").body
    except SyntaxError:
        return []
    out = []
    names = names or {}

    def walk(n, p, depth=0):
        if depth > 12:
            return
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Not, ast.Invert)):
            walk(n.operand, not p, depth + 1)
        elif isinstance(n, ast.BoolOp):
            for v in n.values:
                walk(v, p, depth + 1)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("all", "any") \
                and not n.args:
            walk(n.func.value, p, depth + 1)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("all", "any") and n.args:
            a = n.args[0]
            walk(a.elt if isinstance(a, (ast.GeneratorExp, ast.ListComp)) else a, p, depth + 1)
        elif isinstance(n, ast.Name) and n.id in names:
            try:
                walk(ast.parse(names[n.id], mode="eval").body, p, depth + 1)
            except SyntaxError:
                pass
        else:
            out.append((n, p))
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)) and \
                    isinstance(n.comparators[0], ast.Constant) and isinstance(n.comparators[0].value, bool):
                # `x.training == False`: the attribute, turned over by what it is compared with
                walk(n.left, p if (n.comparators[0].value is True) == isinstance(n.ops[0], ast.Eq) else not p,
                     depth + 1)

    walk(root, fails_when_true)
    return out


def _attr(n, *attrs):
    return isinstance(n, ast.Attribute) and n.attr in attrs


def _call(n, *names):
    """Whether ``n`` is a call of a method or function named one of ``names``: the receiver (or first argument)."""
    if not isinstance(n, ast.Call):
        return None
    f = n.func
    if isinstance(f, ast.Attribute) and f.attr in names:
        return f.value
    if isinstance(f, ast.Name) and f.id in names:
        return n.args[0] if n.args else f
    return None


def _walk(n):
    return list(ast.walk(n))


# ------------------------------------------------------------------------------------------------ the rules
# each: (name, family or None (the package's), read(node, p) -> (reading, [fix]) or None, documentation)


def _train_mode(n, p):
    # torch.nn.Module.eval(): "Sets the module in evaluation mode ... equivalent with self.train(False)"; .training is
    # the flag it sets on the module and every submodule
    if not _attr(n, "training"):
        return None
    who = _who(n.value)
    if p:
        return ("%s is in training mode (`%s` is true) and this call is refused in it" % (who, _src(n)),
                ["switch it to evaluation mode before this call: model.eval() (and .eval() on every module used with "
                 "it, e.g. a likelihood); call model.train() again before training (%s)" % (_TORCH_NN + "#torch.nn.Module.eval")])
    return ("%s is in evaluation mode (`%s` is false) and this call needs training mode" % (who, _src(n)),
            ["switch it to training mode before this call: model.train() (%s)" % (_TORCH_NN + "#torch.nn.Module.train")])


def _contiguous(n, p):
    # torch.Tensor.is_contiguous / .contiguous(): "Returns a contiguous in memory tensor containing the same data"
    who = _call(n, "is_contiguous")
    if who is None or p:
        return None
    return ("%s is not contiguous in memory (a slice, transpose, permute, chunk or expand of another tensor is a view "
            "that shares its memory)" % _who(who),
            ["make the tensor contiguous before the call: t = t.contiguous() (or .clone()), which copies a view into "
             "memory of its own (https://pytorch.org/docs/stable/generated/torch.Tensor.contiguous.html)"])


def _sorted(n, p):
    # a comparison of a sequence with itself shifted by one (t[1:] > t[:-1]) tests that it is sorted; strict (< / >)
    # also refuses a value that repeats. torch.unique returns the unique values sorted
    # (https://pytorch.org/docs/stable/generated/torch.unique.html)
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Lt, ast.Gt, ast.LtE, ast.GtE))):
        return None
    a, b = n.left, n.comparators[0]

    def shifted(x):
        return isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Slice) and (
            x.slice.lower is not None or x.slice.upper is not None)
    diff = _call(a, "diff") is not None and isinstance(b, ast.Constant) and b.value == 0
    if not (diff or (shifted(a) and shifted(b) and _src(a.value) == _src(b.value))):
        return None
    seq = _src(a.value) if not diff else _src(_call(a, "diff"))
    strict = isinstance(n.ops[0], (ast.Lt, ast.Gt))
    return ("`%s` must be %s sorted%s" % (seq, "strictly" if strict else "", " (no value may repeat)" if strict else ""),
            ["pass the values sorted%s: sort them (torch.sort) and remove or merge the repeated ones (torch.unique "
             "returns the unique values sorted; average the observations that share a value); a rounding that makes "
             "two values equal makes them repeat (https://pytorch.org/docs/stable/generated/torch.unique.html)"
             % (" and unique (strictly increasing)" if strict else "")])


def _divisible(n, p):
    # `x % N == 0`: x must be a multiple of N; a DataLoader's last batch is smaller unless drop_last=True
    # (https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader: "drop_last ... drop the last incomplete
    # batch, if the dataset size is not divisible by the batch size")
    mod = next((m for m in _walk(n) if isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mod)), None)
    if mod is None or not isinstance(n, ast.Compare) or isinstance(mod.left, (ast.Constant, ast.JoinedStr)):
        return None
    # (review17) only `x % N` compared with 0: `kernel_size % 2 != 1` asks for an ODD number, and was told "make
    # `kernel_size` a multiple of 2"
    # (`rows % tile_rows == cols % tile_cols == 0`, bitsandbytes, chains to the 0)
    if not (all(isinstance(o, (ast.Eq, ast.NotEq)) for o in n.ops) and
            any(isinstance(c, ast.Constant) and c.value == 0 and not isinstance(c.value, bool)
                for c in [n.left] + n.comparators)):
        return None
    left, by = _src(mod.left), _src(mod.right)
    batch = re.search(r"\blen\(|shape\[0\]|size\(0\)|batch", left)
    fix = ["make `%s` a multiple of %s%s" % (
        left, by, "; where it is a batch's size, the last batch of a DataLoader is smaller unless "
        "DataLoader(..., drop_last=True) drops it (https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)"
        if batch else "")]
    return ("`%s` must be divisible by %s" % (left, by), fix)


def _is_module(n, p):
    # isinstance(f, nn.Module) is false for a plain function: an nn.Module subclass holds its parameters as attributes
    # (module.parameters()), which a library reads from it (https://pytorch.org/docs/stable/notes/modules.html)
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" and
            len(n.args) == 2) or p:
        return None
    types = _src(n.args[1])
    if not re.search(r"\bModule\b", types):
        return None
    return ("%s is not a torch.nn.Module (`%s` is false)" % (_who(n.args[0]), _src(n)),
            ["pass it as a subclass of torch.nn.Module (class F(nn.Module) with a forward(), its tensors as "
             "nn.Parameter attributes), not a plain function or lambda (https://pytorch.org/docs/stable/notes/modules.html)"])


def _instance(n, p):
    # isinstance(x, T) false: the call takes a T there (https://docs.python.org/3/library/functions.html#isinstance)
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" and
            len(n.args) == 2) or p:
        return None
    if _src(n.args[0]).startswith("self."):
        return None  # (review17) the object's own state (torchmetrics' `self.similarity`): nothing the user passes
    types = _src(n.args[1]).strip("()")
    if not re.fullmatch(r"[A-Za-z_][\w.]{0,60}(?:, ?[A-Za-z_][\w.]{0,60}){0,5},?", types):
        return None
    types = " or ".join(t.strip() for t in types.split(",") if t.strip())
    return ("%s is not a %s (`%s` is false)" % (_who(n.args[0]), types, _src(n)),
            ["pass %s as a %s (convert it first, e.g. torch.as_tensor(x) for a torch.Tensor)" % (_who(n.args[0]), types)
             # (review17: not for another framework's Tensor: safetensors' paddle.Tensor check got torch's example)
             if "Tensor" in types and not re.search(r"\b(?:paddle|tf|tensorflow|jax|jnp|mx|mindspore)\.", types)
             else "pass %s as a %s" % (_who(n.args[0]), types)])


def _callable(n, p):
    # callable(x) (https://docs.python.org/3/library/functions.html#callable)
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "callable" and n.args) or p:
        return None
    return ("%s is not callable" % _who(n.args[0]),
            ["pass a callable there (a function, or an object with __call__), not the value it returns "
             "(https://docs.python.org/3/library/functions.html#callable)"])


def _device(n, p):
    # tensors of one operation are on one device; Tensor.to(device) moves one
    # (https://pytorch.org/docs/stable/generated/torch.Tensor.to.html)
    if not isinstance(n, ast.Compare) or not any(_attr(m, "device", "is_cuda") for m in _walk(n)):
        return None
    return ("the tensors are not on the device the call expects (`%s`)" % _src(n),
            ["put the tensors on the same device before the call: x = x.to(other.device) (model.to(device) for a "
             "module) (https://pytorch.org/docs/stable/generated/torch.Tensor.to.html)"])


def _grad(n, p):
    # Tensor.requires_grad / requires_grad_(), Tensor.detach(), torch.no_grad
    # (https://pytorch.org/docs/stable/generated/torch.Tensor.requires_grad_.html,
    # https://pytorch.org/docs/stable/generated/torch.no_grad.html)
    if not _attr(n, "requires_grad"):
        return None
    who = _who(n.value)
    if p:
        return ("%s requires grad and this call refuses a tensor that does" % who,
                ["pass it detached (x.detach()), or make the call under torch.no_grad() "
                 "(https://pytorch.org/docs/stable/generated/torch.no_grad.html)"])
    return ("%s does not require grad and this call needs one that does" % who,
            ["make it require grad before the call: x.requires_grad_() "
             "(https://pytorch.org/docs/stable/generated/torch.Tensor.requires_grad_.html)"])


def _dtype_names(n):
    return [m.attr for m in _walk(n) if _attr(m, *_DTYPES) and isinstance(m.value, ast.Name) and
            m.value.id in ("torch", "np", "numpy")]


def _dtype(n, p):
    # torch.dtype (https://pytorch.org/docs/stable/tensor_attributes.html#torch.dtype); Tensor.to(dtype) casts,
    # .float() / .double() / .long() are its short forms; Tensor.is_floating_point
    if _call(n, "is_floating_point") is not None and isinstance(n, ast.Call):
        if p:
            return None
        return ("%s is not a floating point tensor" % _who(_call(n, "is_floating_point")),
                ["cast it to floating point before the call: x.float() (or .double()) "
                 "(https://pytorch.org/docs/stable/generated/torch.Tensor.float.html)"])
    if not isinstance(n, ast.Compare) or not any(_attr(m, "dtype") for m in _walk(n)):
        return None
    want = _dtype_names(n)
    positive = len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.In, ast.Is))
    if want and positive != p:  # `x.dtype == torch.float64` must hold (or `in (...)`): cast to one of them
        casts = ", ".join("x.to(torch.%s)%s" % (w, " / x%s" % _SHORT_CAST[w] if w in _SHORT_CAST else "")
                          for w in dict.fromkeys(want))
        return ("the tensor's dtype is not the one the call expects (`%s`)" % _src(n),
                ["cast the tensor before the call: %s (https://pytorch.org/docs/stable/generated/torch.Tensor.to.html)"
                 % casts])
    return ("the tensors' dtypes do not fit (`%s`)" % _src(n),
            ["give the tensors the dtype the call expects (the message names it): x.to(dtype) (.float() for float32, "
             ".double() for float64, .long() for int64) (https://pytorch.org/docs/stable/tensor_attributes.html#torch.dtype)"])


def _shape(n, p):
    # Tensor.dim() / .ndim / .shape / .size(); unsqueeze adds a dimension of size one, squeeze removes it, reshape
    # (https://pytorch.org/docs/stable/generated/torch.unsqueeze.html, torch.reshape.html)
    if not isinstance(n, ast.Compare):
        return None
    dims = [m for m in _walk(n) if _call(m, "dim", "ndimension") is not None and isinstance(m, ast.Call) and
            isinstance(m.func, ast.Attribute) or _attr(m, "ndim") or
            (isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "len" and m.args and
             _attr(m.args[0], "shape"))]
    shapes = [m for m in _walk(n) if _attr(m, "shape") or (isinstance(m, ast.Call) and _attr(m.func, "size"))]
    if not dims and not shapes:
        return None
    rank = ""
    if dims and n.left in dims and len(n.ops) == 1 and isinstance(n.comparators[0], ast.Constant) and \
            isinstance(n.comparators[0].value, int) and isinstance(n.ops[0], (ast.Eq, ast.NotEq)):
        rank = " (the check wants %d dimensions)" % n.comparators[0].value
    pair = [_src(m.value) for m in (n.left, n.comparators[0]) if _attr(m, "shape")] if len(n.ops) == 1 else []
    if len(pair) == 2 and pair[0] != pair[1] and isinstance(n.ops[0], (ast.Eq, ast.NotEq)):
        return ("`%s` and `%s` do not have the same shape (`%s`)" % (pair[0], pair[1], _src(n)),
                ["give `%s` and `%s` the same shape (the message prints both): reshape / unsqueeze / squeeze the one "
                 "that differs, e.g. x.unsqueeze(-1) or x.squeeze(-1) for a trailing dimension of size one "
                 "(https://pytorch.org/docs/stable/generated/torch.reshape.html)" % (pair[0], pair[1])])
    if not dims:
        # (review17) a size compared with a number or a name (`X.size(-2) == 0`: an empty input; `X.shape[-2] != 1`
        # before 'not implemented for q>1'; `res.shape != expected_shape`: the library's own kernel result) is no
        # missing or extra dimension of size one: the unsqueeze / squeeze advice below would mislead; no advice
        return None
    return ("a tensor's shape is not the one the call expects (`%s`)%s" % (_src(n), rank),
            ["give the tensor the shape the call expects (the message names it): add a dimension of size one with "
             "x.unsqueeze(-1) (e.g. targets of shape (n,) -> (n, 1)), remove one with x.squeeze(-1), or "
             "x.reshape(...) (https://pytorch.org/docs/stable/generated/torch.unsqueeze.html)"])


def _choice(n, p):
    # `x in ('a', 'b')` / `x not in [...]` with a literal collection: the values the call accepts
    # (https://docs.python.org/3/reference/expressions.html#membership-test-operations)
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn))):
        return None
    coll = n.comparators[0]
    if not isinstance(coll, (ast.Tuple, ast.List, ast.Set)) or not coll.elts or \
            not all(isinstance(e, ast.Constant) for e in coll.elts):
        return None
    if (isinstance(n.ops[0], ast.In) and p) or (isinstance(n.ops[0], ast.NotIn) and not p):
        return None  # the listed values are the refused ones
    vals = ", ".join(repr(e.value) for e in coll.elts[:12])
    return ("`%s` is not one of the values the call accepts (%s)" % (_src(n.left), vals),
            ["pass `%s` as one of: %s" % (_src(n.left), vals)])


def _has_attr(n, p):
    # hasattr(obj, 'name') (https://docs.python.org/3/library/functions.html#hasattr)
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "hasattr" and len(n.args) == 2
            and isinstance(n.args[1], ast.Constant)) or p:
        return None
    return ("%s has no attribute %r" % (_who(n.args[0]), n.args[1].value),
            ["pass an object that has .%s there (hasattr(obj, %r) is false for the one passed: another type than the "
             "call expects)" % (n.args[1].value, n.args[1].value)])


_INSTALL = re.compile(r"pip install (?:-U |--upgrade )?['\"`]?([A-Za-z][\w.\-]{1,60}(?:\[[\w,\-]{1,60}\])?)|"
                      r"\binstall ['\"`]?([a-z][\w\-]{1,40})['\"`]?(?: to | with |\.|$)", re.I)


def _install(n, p, text=""):
    # importlib.util.find_spec(name) is None when the module cannot be found
    # (https://docs.python.org/3/library/importlib.html#importlib.util.find_spec); an ImportError / ModuleNotFoundError
    # branch (https://docs.python.org/3/library/exceptions.html#ImportError) is the package not installed
    pkg = None
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot)) and \
            isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value is None:
        # `find_spec('x') is None` fails when the module is missing
        if isinstance(n.ops[0], ast.Is) != p:
            return None
        n, p = n.left, False
    got = n.args[0] if _call(n, "find_spec") is not None and n.args else None
    if got is not None and isinstance(got, ast.Constant) and isinstance(got.value, str):
        if p:
            return None
        pkg = got.value.split(".")[0]
    elif isinstance(n, ast.Call):
        name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        # (review17) an import check takes no argument (diffusers / transformers is_peft_available()); a method
        # such as _AttentionBackendRegistry._is_context_parallel_available(backend) tests a backend, not a package
        # (and transformers' _is_package_available("x") names no package in its own name)
        m = re.match(r"^_?is_([a-z][a-z0-9_]{1,40})_available$", name or "") if not (n.args or n.keywords) else None
        if m and not p:
            pkg = m.group(1)
    if pkg is None:
        return None
    return _install_fix(pkg, text)


def _install_fix(pkg, text):
    m = _INSTALL.search(text or "")
    pkg = (m.group(1) or m.group(2)) if m else pkg
    return ("the package %s is not installed (or not importable) in this environment" % pkg,
            ["install it in the environment the job runs in: pip install %s (the build that matches the installed "
             "torch where it is a torch extension), then rerun" % pkg])


def _none(n, p):
    # `x.attr is None`: the call needs what sets it first; `x is None` for an argument: the argument is required
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot)) and
            isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value is None):
        return None
    unset = isinstance(n.ops[0], ast.Is) == p  # what fails: the value being None
    who = _src(n.left)
    if not unset:
        return None
    if isinstance(n.left, ast.Attribute):
        if n.left.attr.startswith("_"):
            return None  # (review17) a private attribute (diffusers' `self._workflow_map`): the class's, not the user's
        return ("`%s` is not set yet (None) when this is called" % who,
                ["set `%s` before this call: call what sets it first (the message names it), or pass it where the "
                 "object is made" % who])
    if isinstance(n.left, ast.Name):
        return ("the argument `%s` was not given (None)" % who, ["pass `%s` to the call" % who])
    return None


def _joined(name, hits):
    """One (reading, [fix]) of a rule that several predicates of one test meet: for the alternatives of a type or of
    a missing argument (`isinstance(x, str)` or `isinstance(x, list)`; `a is None and b is None`), all of them."""
    if len(hits) == 1 or name not in ("instance", "none"):
        return hits[0]
    if name == "instance":
        subj = [re.match(r"^(.*) is not an? (.*?) \(", h[0]) for h in hits]
        if all(subj) and len({m.group(1) for m in subj}) == 1:
            types = " or ".join(dict.fromkeys(m.group(2) for m in subj))
            return ("%s is not a %s" % (subj[0].group(1), types), ["pass %s as a %s" % (subj[0].group(1), types)])
        return hits[0]
    args = [re.search(r"`([^`]{1,80})`", h[1][0]).group(1) for h in hits]
    args = list(dict.fromkeys(args))
    return ("%s %s not set (None)" % (" and ".join("`%s`" % a for a in args), "is" if len(args) == 1 else "are"),
            ["pass %s (the message says which the call needs)" % " or ".join("`%s`" % a for a in args)])


# (name, family or None, reader); their order is the order advice is given in when one guard holds several
RULES = [
    ("train-mode", None, _train_mode),
    ("contiguous", None, _contiguous),
    ("sorted", None, _sorted),
    ("divisible", None, _divisible),
    ("module", None, _is_module),
    ("callable", None, _callable),
    ("instance", None, _instance),
    ("install", "code.python_env", _install),
    ("device", "usercode.tensors_on_two_devices", _device),
    ("requires-grad", None, _grad),
    ("dtype", "usercode.dtype_mismatch", _dtype),
    ("shape", "usercode.shape_mismatch", _shape),
    ("choice", None, _choice),
    ("hasattr", None, _has_attr),
    ("none", None, _none),
]
MAX_FIXES = 2


# the rules an enclosing condition (not the innermost one) is not read by: an argument tested for None further out
# selects a branch (`if conditions is None:` and inside it the check that failed), and says nothing of what failed
# inside it; a mode or state the whole block depends on does (gpytorch's `if self.training:` holds its checks of the
# inputs, botorch's `if X.dim() != Y.dim():` the `if strict: raise`)
WEAK = ("none",)


# an attribute the class keeps private (a leading underscore), read through self
_PRIVATE = re.compile(r"(?<![\w.])self\._")


def _groups(path):
    """The path's tests in groups, innermost first: an assert, each if, an except, and the tests of one else chain
    (each was false) together."""
    out = []
    for how, test in path:
        if how == "else" and out and out[-1][0][0] == "else":
            out[-1].append((how, test))
        else:
            out.append([(how, test)])
    return out


def advise(path, names=None, text=""):
    """What the guard ``path`` (knowgen.guard_path: [(how, test)], innermost first) says: (rule names, family or None,
    reading, [fix]) from the rules its predicates meet (the innermost test's first, at most MAX_FIXES), or None.
    ``names``: {name: assigned source} (knowgen.guard_names); ``text``: the message (a package named in it)."""
    got, family = [], None
    for depth, group in enumerate(_groups(path)):
        how, test = group[0]
        if depth and how == "else":
            # (review17) an ENCLOSING else chain is the branch the code took, not what failed inside it: einops'
            # 'Length of anonymous axis does not match' raised under `if axis.value != axis_length:` in the else of
            # `elif isinstance(axis, str):` was told "pass `axis` as a str". Only an else chain the raise is directly
            # in (depth 0: none of the chain's tests held) says what the code expected
            continue
        if how == "except":
            if any(re.search(r"\b(?:ImportError|ModuleNotFoundError)\b", t) for t in test):
                m = _INSTALL.search(text or "")
                if m:
                    got.append(("install", "code.python_env") + _install_fix(m.group(1) or m.group(2), text))
            if got:
                break
            continue
        preds = [x for h, t in group for x in predicates(t, h == "if", names)]
        used = set()  # a predicate one rule read is not read again by a later one
        for name, fam, read in RULES:
            if any(g[0] == name for g in got) or (depth and name in WEAK):
                continue
            hits = []
            for k, (node, p) in enumerate(preds):
                if name == "none" and how == "assert" and isinstance(getattr(node, "left", None), ast.Name):
                    continue  # `assert x is not None` of a local: the library's own state, not a missing argument
                if _PRIVATE.search(_src(node)):
                    continue  # (review17) the object's private state (`self._input_predictions`): not the user's to pass
                r = None if k in used else read(node, p, text) if name == "install" else read(node, p)
                if r:
                    hits.append(r)
                    used.add(k)
            if hits:
                got.append((name, fam) + _joined(name, hits))
        if got:
            break  # the innermost test a rule reads decides; outer ones only when it says nothing
    if not got:
        return None
    got.sort(key=lambda g: [r[0] for r in RULES].index(g[0]))
    got = got[:MAX_FIXES]
    family = next((g[1] for g in got if g[1]), None)
    return [g[0] for g in got], family, "; ".join(g[2] for g in got), [g[3][0] for g in got]
