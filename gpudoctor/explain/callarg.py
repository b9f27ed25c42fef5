"""The argument of the user's collective call that c10d's C++ check refused (callarg29, issue 18: "name the fix").

`ProcessGroupGloo::broadcast: invalid root rank: 2` is raised in C++: no Python raise site holds it, so
callguard.py (Python sites only) has nothing to read, and the message names neither the Python call nor its
argument. generated/c10d_args.json (tools/gen_c10d_args.py, read from the pinned torch wheel) keeps the message and
test of each of c10d's argument helpers (Utils.hpp: `assertRootRank`: `rank < 0 || rank >= size`), the tensor
parameters of each backend op (ProcessGroupGloo.hpp) and, per public collective of distributed_c10d.py, which of its
own arguments became each of the op's arguments (`opts.rootRank = group_src`, `group.scatter(output_tensors,
input_tensors, opts)` with `input_tensors = [scatter_list]`).

Under the root's traceback (libarg.fill's hook, after callguard), when the message is `<backend>::<op>: <helper's
message>` and a traceback frame is that collective (distributed_c10d.py, the function that calls the op), one fix
line after the cause's first: the call, the argument that became what the helper read (with what the user's line
passed as it, when that is a plain name or number), the helper's test as written, and the remedy the test gives
(a root rank: 0 .. the group's size - 1; a list size: one tensor per rank of the group; an empty list; matching
sizes / dtypes). More readings of the same table:
  - ProcessGroupNCCL.cpp's tensor refusals (no op prefix: "Tensors must be contiguous", "output tensor size must be
    equal to world_size times input tensor size") under a collective's frame: the arguments that became them;
  - `_ensure_all_tensors_same_dtype` (two dtypes): the collective's output list and input, with the user's names:
    allocate the output with torch.empty_like(<input>) / dtype=<input>.dtype, or cast the input;
  - an IndexError at `param[N]` (the line the traceback prints) where param is the collective's own argument or
    what it handed to a private check: the argument the user passed is empty (or shorter than N + 1);
  - callguard's site (Python guards): a guard reading len() of an argument the user's line wrote as a parenthesized
    string, `("dp")` (a string, not a one-element tuple: `("dp",)`), and the remedies a guard states itself:
    `len(set(x)) != len(x)` (distinct entries), `len(a) != len(b)` (one length).
  - a bare `assert <comparison>` (no message) that failed in a library frame under the user's call: the printed
    statement read with ast (`a % b == 0`: a must be divisible by b; `a == b`, `a < b`, ...), its names the
    library's; only names, numbers and plain words go into the line;
  - autograd's refusals to change a tensor that requires grad in place (check_inplace's "a leaf Variable that
    requires grad is being used in an in-place operation", resize_'s "cannot resize variables that require grad"):
    on the user's own line the tensor it changes (`p /= world`) under torch.no_grad() or on p.data; under a library
    call, pass it tensors that do not require grad.
The family never changes; a healthy log has no root and gets nothing. Names are the table's (the
wheel's source) or the traceback's; the user's path is sh()-quoted.
"""

import re

from gpudoctor.explain import pytb, userline
from gpudoctor.fixline import sh

MAX_MSG = 2000
_PREFIX = re.compile(r"^\s{0,8}(ProcessGroup[A-Za-z]{0,12})::([a-z_]{1,40}):\s{0,4}(.{1,500})", re.S)
UTILS = "torch/csrc/distributed/c10d/Utils.hpp"
C10D = "torch/distributed/distributed_c10d.py"
NCCL_CPP = "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"


def table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("c10d_args")


def _helper(rest):
    for h in table().get("helpers") or []:
        if re.match(h["re"], rest):
            return h
    return None


def _collective(tb, op):
    """(row, frame) of the public collective the traceback passes through that calls backend op ``op``."""
    rows = [c for c in table().get("calls") or [] if c["op"] == op]
    for file, line, fn in reversed(tb.get("frames") or []):
        if not file.replace("\\", "/").endswith(C10D):
            continue
        for c in rows:
            if c["api"].rsplit(".", 1)[-1] == fn:
                return c, (file, line, fn)
    return None


def _bound(uf, row):
    """{parameter: the expression the user's line passes as it} for the collective's call on the line: positional
    arguments by the signature's order, keywords by name; only plain names and numbers (userline.ident)."""
    from gpudoctor.explain.argedit import _split_top

    src = (uf or {}).get("src") or ""
    name = row["api"].rsplit(".", 1)[-1]
    m = re.search(r"(?<![\w])(?:[A-Za-z_][\w]{0,40}\.){0,4}%s\s{0,3}\(" % re.escape(name), src[:pytb.MAX_SRC])
    if not m:
        return {}
    inner = src[m.end():userline._close(src, m.end() - 1)]
    out, params = {}, row.get("params") or []
    for i, part in enumerate(_split_top(inner)[:16]):
        part = part.strip()
        kw = re.match(r"^([A-Za-z_]\w{0,40})\s{0,4}=(?!=)\s{0,4}(.+)$", part, re.S)
        key, value = (kw.group(1), kw.group(2).strip()) if kw else (params[i] if i < len(params) else None, part)
        if key and userline.ident(value, None):
            out[key] = value
    return out


def _targets(h, row, ops):
    """The collective's parameters that became what the helper read."""
    op = ops.get(row["op"]) or {}
    names, args = op.get("tensors") or [], row.get("args") or []
    if h["reads"] == "rank":
        return list(row.get("root") or [])
    if h["reads"] == "root_tensor":
        return []
    if h["reads"] in ("input", "output"):
        idx = [i for i, n in enumerate(names) if h["reads"] in n.lower()]
        return [p for i in idx if i < len(args) for p in args[i]]
    return [p for a in args[:len(names) or None] for p in a]


def _remedy(h, targets, kwargs):
    """What the helper's test asks of the value, in the words of the test (Utils.hpp)."""
    test = h["test"]
    group = "dist.get_world_size(group)" if "group" in kwargs else "world_size"
    if h["reads"] == "rank":
        # assertRootRank: rank < 0 || rank >= size, size the process group's size
        return "a rank in 0 .. %s - 1 (the process group's ranks; with group= a global rank of a member, or group_%s=" \
               " its rank in the group)" % (group, "src" if any(t.endswith("src") for t in targets) else "dst")
    if "worldSize" in test or "static_cast<size_t>(size)" in test:
        return "a list of exactly %s tensors, one per rank of the process group" % group
    if test in ("tensors.empty()", "inputTensorListSize == 0"):
        return "a non-empty list of tensors"
    if test.startswith("!") and test.endswith(".empty()"):
        return "nothing on the ranks that are not the root (None / an empty list there)"
    if test.endswith("size() != 1"):
        return "a single tensor (a list with one element)"
    if "sizes()" in test:
        return "tensors of the size the message expects (every tensor of the list as large as the one it is " \
               "compared with: torch.empty_like of it, or split the data evenly)"
    if "type_equal" in test:
        return "tensors of the same dtype and device as the one they are compared with (torch.empty_like of it, " \
               "or .to(dtype=..., device=...))"
    if "kStrided" in test:
        return "dense tensors (.to_dense())"
    if "kCPU" in test:
        return "CPU tensors (.cpu()), or a process group whose backend takes these tensors (nccl for CUDA tensors)"
    if "device()" in test:
        return "tensors on one device"
    if "ListSize" in test:
        return "lists of the same length"
    return None


def _ordered(targets, row):
    """The parameters in the collective's signature order (src before group_src)."""
    order = row.get("params") or []
    return sorted(targets, key=lambda p: order.index(p) if p in order else len(order))


def _role(row, ops, param):
    """'input' / 'output' / None: which of the backend op's tensor lists the collective builds from ``param``."""
    names = (ops.get(row["op"]) or {}).get("tensors") or []
    for i, a in enumerate(row.get("args") or []):
        if param in a and i < len(names):
            return "output" if "output" in names[i].lower() else "input" if "input" in names[i].lower() else None
    return None


def _private_check(tb, msg):
    """(row, helper name, guard site) when the message is raised by one of distributed_c10d.py's private checks
    (callguard's table holds its site and test) that the traceback's collective frame called with its arguments."""
    from gpudoctor.explain import callguard

    frames = [fr for fr in tb.get("frames") or [] if fr[0].replace("\\", "/").endswith(C10D)]
    calls = table().get("calls") or []
    for k in range(len(frames) - 1, 0, -1):
        helper, outer = frames[k][2], frames[k - 1][2]
        for row in calls:
            if row["api"].rsplit(".", 1)[-1] != outer or helper not in (row.get("checks") or {}):
                continue
            for site in callguard.table().get("guards") or []:
                if site.get("func") == "torch.distributed.distributed_c10d." + helper and site.get("re") and \
                        re.search(site["re"], msg, re.I):
                    return row, helper, site
    return None


def _dtype_line(tb, f, row, helper, site):
    """The one-dtype rule of _ensure_all_tensors_same_dtype's test, with the output list and input of the call."""
    if ".dtype" not in site.get("guard", "") and "dtype" not in site.get("guard", ""):
        return None
    ops = table().get("ops") or {}
    targets = _ordered([p for a in row["checks"][helper] for p in a], row)
    if len(targets) < 2:
        return None
    uf = userline.user_frame(tb)
    kwargs = _bound(uf, row)
    out = next((p for p in targets if _role(row, ops, p) == "output"), None)
    inp = next((p for p in targets if _role(row, ops, p) == "input"), None)
    if not out or not inp:
        return None
    src = kwargs.get(inp, inp)
    shown = lambda p: "%s=%s" % (p, kwargs[p]) if p in kwargs else "%s=" % p  # noqa: E731
    user = pytb.last_user_frame(tb)
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    return ("%s hands %s and %s to its check %s, which refuses tensors of two dtypes (`%s`, %s): allocate the "
            "output %s with the input's dtype, torch.empty_like(%s) or dtype=%s.dtype, or cast the input %s to the "
            "output's dtype%s" % (row["api"], shown(out), shown(inp), helper, site["guard"], C10D, shown(out), src,
                                  src, shown(inp), where))


# `("dp")` on the user's line: a parenthesized string, not a tuple ("A parenthesized expression list yields whatever
# that expression list yields: if the list contains at least one comma, it yields a tuple; otherwise, it yields the
# single expression", https://docs.python.org/3/reference/expressions.html#parenthesized-forms)
_PAREN_STR = re.compile(r"""^\(\s{0,4}(["'])([A-Za-z0-9_.\-]{1,40})\1\s{0,4}\)$""")
# guard shapes whose remedy the test itself states (tools/gen_call_guards.py keeps the test as written)
_DISTINCT = re.compile(r"len\(set\((\w+)\)\) != len\(\1\)")
_SAME_LEN = re.compile(r"len\((\w+)\) != len\((\w+)\)")


def _guard_line(tb):
    """What a Python guard callguard found asks of the user's value: a one-element tuple written without its comma
    (the test reads its len() or its entries, and the line passes a parenthesized string), entries that must be
    distinct (`len(set(x)) != len(x)`), two arguments of one length (`len(a) != len(b)`)."""
    from gpudoctor.explain import callguard
    from gpudoctor.explain.argedit import _kwargs

    got = callguard.find(tb)
    if not got:
        return None
    site = got[0]
    params, guard = site.get("params") or [], site.get("guard") or ""
    uf = userline.user_frame(tb)
    kw = _kwargs((uf or {}).get("src") or "")
    out = []
    for p in params:
        m = _PAREN_STR.match(kw.get(p, "").strip())
        if m and "len(%s)" % p in guard.replace(" ", ""):
            q, word = m.group(1), m.group(2)
            out.append("%s=(%s%s%s) is the string %s%s%s, not a tuple (a parenthesized expression without a comma "
                       "is the expression itself; len() counts its characters): write %s=(%s%s%s,) with the comma" % (
                           p, q, word, q, q, word, q, p, q, word, q))
    d = _DISTINCT.search(guard)
    if d and d.group(1) in params and not out:
        out.append("the entries of %s= must be distinct (`%s` holds when one repeats): give each its own value"
                   % (d.group(1), d.group(0)))
    s = _SAME_LEN.search(guard)
    if s and not out and s.group(1) in params and s.group(2) in params:
        out.append("%s= and %s= must have the same length (`%s`): one entry of %s per entry of %s" % (
            s.group(1), s.group(2), s.group(0), s.group(2), s.group(1)))
    return "; ".join(out) or None


_INDEX_MSG = re.compile(r"\bindex out of range\b")


def _index_line(tb):
    """An IndexError at `param[N]` in distributed_c10d.py (the source line the traceback prints), where param is a
    collective's own argument or what it handed to one of its private checks: the argument has fewer than N + 1
    elements (an empty list for [0])."""
    t = table()
    frames, srcs = tb.get("frames") or [], tb.get("src") or []
    if not (tb.get("exc") or "").endswith("IndexError") or not _INDEX_MSG.search(tb.get("msg") or "") or not frames:
        return None
    k = len(frames) - 1
    file, _line, fn = frames[k]
    src = (srcs[k][0] if k < len(srcs) and srcs[k] else "") or ""
    if not file.replace("\\", "/").endswith(C10D) or not src:
        return None
    hit = next(((p, i) for p, i in (t.get("index") or {}).get(fn, ())
                if re.search(r"(?<![\w.])%s\s{0,3}\[\s{0,3}%d\s{0,3}\]" % (re.escape(p), i), src)), None)
    if not hit:
        return None
    param, i = hit
    via = None
    if fn.startswith("_"):
        if k == 0 or not frames[k - 1][0].replace("\\", "/").endswith(C10D):
            return None
        api = "torch.distributed." + frames[k - 1][2]
        args = ((t.get("checks") or {}).get(api) or {}).get(fn)
        names = (t.get("check_params") or {}).get(fn) or []
        if not args or param not in names or names.index(param) >= len(args) or not args[names.index(param)]:
            return None
        targets, via = args[names.index(param)], fn
    else:
        api, targets = "torch.distributed." + fn, [param]
    row = {"api": api, "params": (t.get("signature") or {}).get(api) or []}
    kwargs = _bound(userline.user_frame(tb), row)
    passed = ["%s=%s" % (p, kwargs[p]) for p in targets if p in kwargs]
    user = pytb.last_user_frame(tb)
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    return ("%s %s %s%s, and `%s[%d]` reads its element %d (%s): the list you passed has %s. Pass at least %d "
            "element%s there, or skip the call on a rank whose list is empty%s" % (
                api, "hands" if via else "reads its argument", " / ".join("%s=" % p for p in targets),
                " to its check %s" % via if via else "", param, i, i, C10D,
                "no elements (an IndexError)" if i == 0 else "fewer than %d (an IndexError)" % (i + 1), i + 1,
                "" if i == 0 else "s", (" (it passes %s)" % ", ".join(passed) if passed else "") + where))


def _nccl_line(tb, msg):
    """ProcessGroupNCCL.cpp's tensor refusal ("Tensors must be contiguous", "input tensor must be the same size as
    output size times world size") under a collective's frame: the arguments that became the tensors it read."""
    row = next((r for r in table().get("nccl") or [] if re.match(r["re"], msg.strip())), None)
    if not row:
        return None
    got = None
    for file, _line, fn in reversed(tb.get("frames") or []):
        if file.replace("\\", "/").endswith(C10D):
            got = next((c for c in table().get("calls") or [] if c["api"].rsplit(".", 1)[-1] == fn), None)
            if got:
                break
    if not got:
        return None
    ops = table().get("ops") or {}
    h = {"reads": row["reads"]}
    targets = _ordered(_targets(h, got, ops), got)
    if not targets:
        return None
    kwargs = _bound(userline.user_frame(tb), got)
    passed = ["%s=%s" % (p, kwargs[p]) for p in targets if p in kwargs]
    user = pytb.last_user_frame(tb)
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    return ("%s hands %s to the NCCL backend, whose check refuses %s: \u201c%s\u201d%s (%s): change %s%s%s" % (
        got["api"], " / ".join("%s=" % p for p in targets), "them" if len(targets) > 1 else "it",
        row["text"].strip(), " under `%s`" % row["test"] if row["test"] else "", NCCL_CPP,
        " / ".join("%s=" % p for p in targets), " (it passes %s)" % ", ".join(passed) if passed else "", where))


# autograd's refusals of a change to a tensor that requires grad, each with the test it makes (the torch wheel's
# torch/include/torch/csrc/autograd/VariableTypeUtils.h check_inplace: can_mutate_inplace_result::is_leaf /
# view_of_leaf; torch/csrc/autograd/VariableTypeManual.cpp resize_: TORCH_CHECK(!self.requires_grad(), ...),
# https://github.com/pytorch/pytorch/blob/main/torch/csrc/autograd/VariableTypeManual.cpp)
_GRAD_CHECKS = [
    ("a leaf Variable that requires grad is being used in an in-place operation", "var.is_leaf() && "
     "var.requires_grad()", "torch/csrc/autograd/VariableTypeUtils.h, check_inplace"),
    ("a view of a leaf Variable that requires grad is being used in an in-place operation", "the view's base "
     "is_leaf() && requires_grad()", "torch/csrc/autograd/VariableTypeUtils.h, check_inplace"),
    ("cannot resize variables that require grad", "self.requires_grad()",
     "torch/csrc/autograd/VariableTypeManual.cpp, resize_"),
]
_AUG = re.compile(r"^\s{0,40}([A-Za-z_][\w.]{0,60}?)(?:\[[^\]\n]{0,80}\])?\s{0,4}(?:[-+*/%@&|^]|//|\*\*)=(?!=)")
_INPLACE = re.compile(r"(?<![\w.])([A-Za-z_][\w.]{0,60}?)\.([a-z][a-z0-9_]{0,30}_)\(")


def _grad_line(tb, msg):
    """autograd refused to change, in place, a tensor that requires grad: on the user's own line, the tensor the line
    changes (`p /= world`, `w.add_(...)`) and the remedy the test gives (torch.no_grad() for a parameter update, or
    .data / .detach()); under a library call, the tensors the user's call handed it (pass them detached, or made
    with requires_grad=False)."""
    from gpudoctor.explain import callguard

    hit = next((c for c in _GRAD_CHECKS if msg.strip().startswith(c[0])), None)
    frames = tb.get("frames") or []
    if not hit or not frames:
        return None
    text, test, where = hit
    uf = userline.user_frame(tb)
    user = pytb.last_user_frame(tb)
    at = " (%s line %d)" % (sh(user[0]), user[1]) if user and user[1] else ""
    if pytb.where(frames[-1][0])[0] == "user" and uf:
        src = uf.get("src") or ""
        m = _AUG.match(src) or _INPLACE.search(src)
        name = userline.ident(m.group(1), None) if m else None
        if not name:
            return None
        return ("%s is a tensor that requires grad (a parameter, or made with requires_grad=True) and autograd "
                "refuses this in-place change of it (`%s`, %s): make the change under `with torch.no_grad():` (a "
                "manual update of parameters: averaging, scaling, initialising), or on %s.data / %s.detach() where "
                "autograd must not see it%s" % (name, test, where, name, name, at))
    # the function the user's line called: the first frame under it that is neither a decorator's / nn.Module's
    # pass-through (callguard._PASS), a context manager's machinery (contextlib's __enter__, torch's
    # generator_context) nor private
    k = max((i for i, fr in enumerate(frames) if pytb.where(fr[0])[0] == "user"), default=None)
    if k is None:
        return None
    entry = next((fn for _f, _l, fn in frames[k + 1:] if fn and fn not in callguard._PASS and not fn.startswith("_")
                  and fn != "generator_context"), None)
    if not entry or not userline.ident(entry, None):
        return None
    return ("your call to %s changes in place (resizes / writes) a tensor you passed it, and autograd refuses that for "
            "a tensor that requires grad (`%s`, %s): pass it tensors that do not require grad (x.detach(), or "
            "create them with requires_grad=False and call requires_grad_() after the call)%s" % (
                entry, test, where, at))


_WORD = re.compile(r"^[A-Za-z0-9_.\-]{0,40}$")


def _assert_line(tb, msg):
    """A bare `assert <test>` (no message) that failed in a library frame under the user's call: the traceback prints
    the statement; its test read with ast says what had to hold: `a % b == 0` (a divisible by b), `a == b`, `a < b`
    and the like. The names are the library's (computed there from what the call passed), so the line names the
    library function and the user's call, not an argument."""
    import ast

    frames, srcs = tb.get("frames") or [], tb.get("src") or []
    if not (tb.get("exc") or "").endswith("AssertionError") or msg.strip() or not frames:
        return None
    k = len(frames) - 1
    src = ((srcs[k][0] if k < len(srcs) and srcs[k] else "") or "").strip()
    if pytb.where(frames[k][0])[0] == "user" or not src.startswith("assert ") or len(src) > 200:
        return None
    try:
        test = ast.parse(src).body[0].test
    except (SyntaxError, IndexError, AttributeError, ValueError):
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    # the statement is the log's text: only names, numbers, plain words and arithmetic go into the fix line
    plain = (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load,
             ast.operator, ast.unaryop, ast.cmpop, ast.Call, ast.Tuple)
    for n in ast.walk(test):
        if not isinstance(n, plain) or isinstance(n, ast.Constant) and not (
                isinstance(n.value, (int, float)) or isinstance(n.value, str) and _WORD.match(n.value)):
            return None
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in ("len", "int", "min", "max")):
            return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    shown = ast.unparse(test)
    if (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(op, ast.Eq)
            and isinstance(right, ast.Constant) and right.value == 0):
        what = "%s must be divisible by %s" % (ast.unparse(left.left), ast.unparse(left.right))
    else:
        words = {ast.Eq: "must equal", ast.NotEq: "must differ from", ast.Lt: "must be below",
                 ast.LtE: "must be at most", ast.Gt: "must be above", ast.GtE: "must be at least"}
        if type(op) not in words:
            return None
        what = "%s %s %s" % (ast.unparse(left), words[type(op)], ast.unparse(right))
    fn = frames[k][2]
    kk = max((i for i, fr in enumerate(frames) if pytb.where(fr[0])[0] == "user"), default=None)
    if kk is None or not userline.ident(fn or "", None):
        return None
    skip = ("wrapper", "inner", "__call__", "__enter__", "generator_context", "decorate_context")
    entry = next((f for _f, _l, f in frames[kk + 1:] if f and not f.startswith("_") and f not in skip), None)
    user = pytb.last_user_frame(tb)
    at = " (%s line %d)" % (sh(user[0]), user[1]) if user and user[1] else ""
    via = entry if entry and entry != fn and userline.ident(entry, None) else None
    return ("%s%s asserts `%s` (its own names, computed from what it was passed): %s; change the call's inputs so "
            "that it holds%s" % ("your call to %s reaches %s, which" % (via, fn) if via else fn, "" if via else "",
                                 shown, what, at))


def fill(scan, findings, tb):
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes") or not tb:
        return
    msg = (tb.get("msg") or "")[:MAX_MSG]
    m = _PREFIX.match(msg)
    if not m:
        got = _private_check(tb, msg)
        line = _dtype_line(tb, f, *got) if got else (_guard_line(tb) or _index_line(tb) or _nccl_line(tb, msg)
                                                     or _grad_line(tb, msg) or _assert_line(tb, msg))
        fixes = f["causes"][0]["fix"]
        if line and line not in fixes:
            at = next((i + 1 for i, x in enumerate(fixes) if " refuses this when `" in x), min(1, len(fixes)))
            fixes.insert(at, line)
        return
    backend, op, rest = m.groups()
    h = _helper(rest)
    got = _collective(tb, op) if h else None
    if not got:
        return
    row, _frame = got
    ops = table().get("ops") or {}
    targets = _ordered(_targets(h, row, ops), row)
    remedy = _remedy(h, targets, {})
    if not targets or not remedy:
        return
    uf = userline.user_frame(tb)
    kwargs = _bound(uf, row)
    remedy = _remedy(h, targets, kwargs)
    passed = ["%s=%s" % (p, kwargs[p]) for p in targets if p in kwargs]
    args = " / ".join("%s=" % p for p in targets)
    user = pytb.last_user_frame(tb)
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    what = ("opts.rootRank" if h["reads"] == "rank" else
            "its %s tensor list" % h["reads"] if h["reads"] in ("input", "output") else "the tensors it checks")
    line = ("%s hands %s to %s::%s as %s, and c10d's %s refuses it when `%s` holds (%s): pass %s %s%s%s" % (
        row["api"], args, backend, op, what, h["helper"], h["test"], UTILS, args, remedy,
        " (it passes %s)" % ", ".join(passed) if passed else "", where))
    fixes = f["causes"][0]["fix"]
    if line not in fixes:
        fixes.insert(min(1, len(fixes)), line)
    note = ("The check that refused it: c10d's %s (%s, in the torch wheel's headers) under `%s`, called by %s::%s, "
            "which %s reaches (%s; tools/gen_c10d_args.py)." % (
                h["helper"], UTILS, h["test"], backend, op, row["api"],
                table().get("header", {}).get("version", "").split(";")[0]))
    if note not in f["notes"]:
        f["notes"].append(note)
