"""Python tracebacks and argparse refusals read from their shape, for explain's structural answer
(analyze.structural) when no knowledge entry matches: which exception ended a traceback, where
it was raised (the innermost frame: the user's own file or a library, named from its path), and
what chain it belongs to.

The format is CPython's (Lib/traceback.py, https://github.com/python/cpython/blob/main/Lib/traceback.py):
- ``Traceback (most recent call last):`` then one ``  File "<path>", line <n>, in <name>`` per frame,
  outermost first (StackSummary.format_frame_summary), each followed by its source line and, since
  3.11, caret lines; ``  [Previous line repeated N more times]`` for recursion;
- the exception line last (TracebackException.format_exception_only: ``<module>.<qualname>: <str>``,
  the module left out for builtins and __main__; the bare name when str() is empty);
- a chain prints the earlier exception first, then ``The above exception was the direct cause of
  the following exception:`` (raise ... from) or ``During handling of the above exception, another
  exception occurred:`` (_cause_message / _context_message) and the next traceback;
- an exception group (3.11, PEP 654) prints ``  + Exception Group Traceback (most recent call last):``
  and its sub-exceptions behind ``  | `` margins, separated by ``+---------------- 1 ----------------``.
Launchers' per-line prefixes (torch elastic's ``[rank3]: ``, srun -l's ``3: ``) are text.strip_prefix's.

argparse (Lib/argparse.py, ArgumentParser.error: print_usage to stderr, then
``%(prog)s: error: %(message)s`` and exit 2) prints ``usage: <prog> ...`` just before its error line.

The scanner (scan._replay) calls record() / record_argparse() on the lines its structural patterns
found (knowledge.STRUCTURAL '_struct_exc' / '_struct_argparse'), with the bytes before the line: a
traceback is read backwards from its exception line, so frame lines are never scan candidates (a
training log is full of them; test_explain_speed) and the work is bounded per traceback.
"""

import re

from gpudoctor.explain import trailers
from gpudoctor.explain.text import PREFIX as _PREFIX, clean, origin, strip_prefix

MAX_TRACEBACKS = 16  # tracebacks read per scan (the first ones: the first error is usually the root)
MAX_ARGPARSE = 8
MAX_BACK_LINES = 240  # lines read back from an exception line to its 'Traceback' header
MAX_BACK_BYTES = 1 << 16
MAX_GAP = 40  # lines without a frame before the walk gives up (not a traceback)
MAX_SOURCE = 20  # source and caret lines between the innermost frame and the exception line (3.13 prints
# a multi-line expression whole; rich shows 3 lines around it in a panel)
FRAMES_KEPT = 12  # innermost frames kept per traceback
OUTER_KEPT = 32  # frames beyond those, kept as (file, line, fn) only
MAX_TRIES = 256  # exception / 'prog: error:' lines read back per scan (a log of thousands costs no more)
# programs whose 'prog: error: ...' lines are their own logging, never argparse's (Slurm's log.c)
_NOT_ARGPARSE = frozenset(("srun", "sbatch", "salloc", "slurmd", "slurmstepd", "slurmctld", "scontrol", "sacct"))

HEADER = re.compile(r"^(?P<group>Exception Group )?Traceback \(most recent call last\):"
                    # rich's panel title (rich/traceback.py: 'Traceback [dim](most recent call last)')
                    r"|^[\u256d\u2500 ]*Traceback \(most recent call last\)[\u2500\u256e ]*$"
                    # IPython's (IPython/core/ultratb.py VerboseTB: the type, padding, then the title)
                    r"|^(?:[A-Za-z_][\w.]{0,120}) {2,80}Traceback \(most recent call last\)$")
# IPython 8's frames (ultratb.py _format_filename / format_record): 'File <path>:<line>, in <fn>(<args>)',
# 'Cell In[4], line 26' (a notebook cell); IPython 7's '<path> in <fn>(<args>)'
IPY_FRAME = re.compile(r"^File (?P<file>[^\s:][^\n]{0,500}?|[A-Za-z]:[\\/][^\n]{0,500}?):(?P<line>\d{1,9})"
                       r"(?:, in (?P<fn>[\w<>.]{1,200}))?")
IPY7_FRAME = re.compile(r"^(?P<file>(?:/|[A-Za-z]:[\\/])[^\n]{0,500}?\.py) in (?P<fn>[\w<>.]{1,200})(?:\(|$)")
IPY_CELL = re.compile(r"^(?:Cell In ?\[(?P<cell>\d{1,7})\], line (?P<line>\d{1,9})|(?P<input><ipython-input-[\w-]{1,80}>) in "
                      r"(?P<fn>[\w<>.]{1,200}))")
RICH_FRAME = re.compile(r"^(?P<file>[^\s\u2502][^\u2502\n]{0,500}?):(?P<line>\d{1,9}) in (?P<fn>[\w<>.]{1,200})$")
_PATH_START = re.compile(r"^(?:/|~|\.{1,2}[/\\]|<|[A-Za-z]:[/\\])")
FRAME = re.compile(r'^File "(?P<file>[^"\n]{1,500})", line (?P<line>\d{1,9})(?:, in (?P<fn>[^\n]{1,200}))?')
CAUSE = "The above exception was the direct cause of the following exception:"
CONTEXT = "During handling of the above exception, another exception occurred:"
# format_exception_only's line: a dotted name, then ': message' or nothing
EXC_LINE = re.compile(r"^(?P<exc>(?:[A-Za-z_]\w{0,80}\.){0,12}[A-Za-z_]\w{0,80})(?:: ?(?P<msg>[^\n]*))?$")
# an exception group's margins and separators (traceback.py: _ExceptionPrintContext.indent / emit)
_MARGIN = re.compile(r"^(?:[ \t]*[|+](?:[ \t]|$))+")
_SEPARATOR = re.compile(r"^[+\-]*-{4,}(?: ?(?:\d{1,6}|\.\.\.) ?-{4,})?[+\-]*$")
# an exception's line (a name ending as exceptions' names do), for the walk back: one met before the
# innermost frame means the exception line ends no traceback of its own
_EXC_NAMED = re.compile(r"^(?:[A-Za-z_]\w{0,80}\.){0,12}[A-Z]\w{0,80}(?:Error|Exception|Exit|Interrupt|Warning|"
                        r"Iteration|Group|NotMet|Failure)(?::|$)")
USAGE = re.compile(r"^usage: (?P<prog>\S{1,200})")
# (accelerate's parsers: ArgumentParser("Accelerate CLI tool", usage="accelerate <command> [<args>]") and its
# subcommands, whose prog argparse makes from that usage: 'accelerate <command> [<args>] launch'
# (accelerate/commands/accelerate_cli.py, Lib/argparse.py add_subparsers))
ARGPARSE_ERROR = re.compile(r"^(?P<prog>Accelerate CLI tool|accelerate <command> \[<args>\] [\w-]{1,40}|[^\s:]{1,200}): "
                            r"error: (?P<msg>[^\n]{1,300})")

# argparse's own messages (Lib/argparse.py: parse_args, _parse_known_args, ArgumentError.__str__)
ARGPARSE_MESSAGES = ("unrecognized arguments: ", "the following arguments are required: ", "argument ",
                     "ambiguous option: ", "one of the arguments ")
# launchers whose own parser is argparse: argparse's prog is the basename of sys.argv[0]
LAUNCHER_PROGS = ("torchrun", "run.py", "launch.py", "deepspeed", "accelerate", "accelerate-launch")

# the packages whose frames name a library even outside site-packages (a source checkout, an
# editable install: /workspace/Megatron-LM/megatron/core/..., /opt/pytorch/torch/...): only names no
# project calls a folder of its own ('datasets', 'models', 'ray', 'nemo' are: TransTrack's datasets/)
KNOWN_LIBS = ("torch", "deepspeed", "accelerate", "transformers", "megatron", "pytorch_lightning",
              "lightning_fabric", "vllm", "flash_attn", "bitsandbytes", "peft", "horovod", "xformers",
              "colossalai", "fairscale", "torchvision", "torchaudio")
# names a package is known by (pip's name in site-packages -> the one explain uses)
_ALIASES = {"pytorch_lightning": "lightning", "lightning_fabric": "lightning"}
_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<pkg>[^/\\]{1,100})")
_STDLIB = re.compile(r"[/\\](?:lib(?:64)?[/\\]python\d(?:\.\d{1,2})?t?|Lib)[/\\]")
_BIN_LIBS = {"torchrun": "torch", "accelerate": "accelerate", "deepspeed": "deepspeed", "ds_report": "deepspeed",
             "ds": "deepspeed"}
_BIN = re.compile(r"[/\\]bin[/\\](%s)$" % "|".join(_BIN_LIBS))
_EGG = re.compile(r"^([A-Za-z_][\w]*?)(?:-\d[^/\\]*)?(?:\.egg|\.py|\.so|\.pyd)?$")
_IDENT = re.compile(r"[A-Za-z_]\w{0,99}")
_CYTHON = re.compile(r"^([A-Za-z_]\w{0,99})[/\\][\w/\\.-]{0,300}\.(?:pyx|pxi|pxd)$")


def _wheels():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("wheel_packages")


def owner(name):
    """The package a frame of import package ``name`` is read as: the main package of the distribution whose wheel
    installs it (generated/wheel_packages.json, tools/gen_wheel_packages.py: 'functorch' and 'torchgen' are torch's,
    'op_builder' DeepSpeed's, 'cupyx' CuPy's has no main one and stays), else ``name`` itself (family17)."""
    t = _wheels()
    dist = (t.get("packages") or {}).get(name)
    return (t.get("main") or {}).get(dist) or name if dist else name


def distribution(name):
    """The distribution pip installs import package ``name`` from ('sklearn' -> 'scikit-learn'), else ``name``."""
    return (_wheels().get("packages") or {}).get(name) or name


def where(path):
    """('user', None), ('lib', name) or ('stdlib', None) for a frame's file path."""
    if path.startswith("<"):
        # '<frozen runpy>' is the interpreter's own, '<string>' code made by exec (a dataclass's __init__,
        # namedtuple, python -c): neither names whose call it was; '<stdin>' / '<ipython-input-1-...>' are the user's
        return ("stdlib", None) if path.startswith(("<frozen", "<string>")) else ("user", None)
    b = _BIN.search(path)
    if b:  # a launcher's console script (/usr/local/bin/torchrun): the package's, not the user's
        return "lib", _BIN_LIBS[b.group(1)]
    m = _SITE.search(path)
    if m:
        pkg = m.group("pkg")
        e = _EGG.match(pkg)
        # (a folder's name is the log's: its leading identifier only, what Python can import; the whole name went into
        # 'pip install -U x;touch PWN;#' fix lines, red team 2026-11-27b)
        name = e.group(1) if e else (_IDENT.match(pkg) or [None])[0]
        if name:
            return "lib", _ALIASES.get(name) or owner(name)
    parts = re.split(r"[/\\]", path)
    for p in parts[:-1]:
        if p in KNOWN_LIBS:
            return "lib", _ALIASES.get(p, p)
    c = _CYTHON.match(path)
    if c:
        # (noans22) a compiled (Cython) module's frame: Cython records the .pyx / .pxi path relative to the package
        # root it was built from ('numpy/random/_generator.pyx', 'pyarrow/error.pxi', 'pandas/_libs/lib.pyx'), so
        # the first folder is the installed package, never the user's file (P35's numpy frame was 'your own code')
        return "lib", _ALIASES.get(c.group(1)) or owner(c.group(1))
    if _STDLIB.search(path):
        return "stdlib", None
    return "user", None


def _body(text):
    """The line without launcher prefixes, exception-group margins and rich's panel borders; whether it
    had a margin."""
    body, _ = strip_prefix(clean(text))
    if body[:1] == "\u2502" or body[-1:] == "\u2502":  # rich's panel: '│ <text> │'
        body = body.strip("\u2502 \t")
    m = _MARGIN.match(body)
    if m:
        return body[m.end():].strip(), True
    return body.strip(), False


def _frame(lines, i, body):
    """(file, line, fn) when line i (its body given) is a frame: CPython's '  File "<f>", line N, in
    <fn>', or rich's '<f>:N in <fn>' (rich/traceback.py Traceback._render_stack), whose long path rich
    wraps onto the line before it inside the panel; else None."""
    f = FRAME.match(body)
    if f:
        return f.group("file"), int(f.group("line")), (f.group("fn") or "").strip()
    if body.startswith(("File ", "Cell In", "<ipython-input")):
        f = IPY_FRAME.match(body)
        if f:
            return f.group("file"), int(f.group("line")), f.group("fn") or ""
        f = IPY_CELL.match(body)
        if f:
            if f.group("input"):
                return f.group("input"), 0, f.group("fn")
            return "<cell In[%s]>" % f.group("cell"), int(f.group("line")), "<module>"
    if " in " not in body or len(body) > 600:
        return None
    r = RICH_FRAME.match(body)
    if not r:
        r = IPY7_FRAME.match(body) if body[:1] == "/" or body[1:3] in (":\\", ":/") else None
        return (r.group("file"), 0, r.group("fn")) if r else None  # (IPython 7 prints the line on '---> N')
    file = r.group("file")
    if i > 0 and not _PATH_START.match(file) and "/" not in file and "\\" not in file:
        prev, _ = _body(lines[i - 1])
        if prev and " " not in prev and ("/" in prev or "\\" in prev) and len(prev) < 600:
            file = prev + file  # '.../accelerate/accelerator.' + 'py'
    if not (_PATH_START.match(file) or "/" in file or "\\" in file or file.endswith(".py")):
        return None
    return file, int(r.group("line")), r.group("fn")


def parse_back(lines, exc_text=None):
    """The traceback that ends at the last of ``lines`` (oldest first; the exception line last),
    read backwards to its 'Traceback (most recent call last):' header; None when the lines before
    it are not a traceback's. -> dict: exc, msg, frames [(file, line, fn)] innermost last (at most
    FRAMES_KEPT), nframes, header (index in lines, None without one), chain ('cause', 'context' or
    None: how it follows an earlier exception), group (inside an exception group)."""
    if not lines:
        return None
    last, margin = _body(exc_text if exc_text is not None else lines[-1])
    m = EXC_LINE.match(last)
    if not m:
        return None
    frames, nframes, header, gap, group = [], 0, None, 0, margin
    fidx = []  # each kept frame's index in lines (for its source line: frame_source)
    user, outer, kept_user = None, [], None
    i = len(lines) - 2
    while i >= 0 and len(lines) - 1 - i <= MAX_BACK_LINES:
        body, marg = _body(lines[i])
        group = group or marg
        h = HEADER.match(body)
        if h:
            header = i
            group = group or bool(h.group("group"))
            break
        f = _frame(lines, i, body)
        if f:
            nframes += 1
            if len(frames) < FRAMES_KEPT:
                frames.append(f)
                fidx.append(i)
            else:
                if len(outer) < OUTER_KEPT:
                    outer.append(f)  # (how the stack began: multiprocessing's spawn re-running the main file)
                if kept_user is None:  # whether the kept frames hold one of the user's (read once: they are full)
                    kept_user = any(where(x[0])[0] == "user" for x in frames)
                if user is None and not kept_user and where(f[0])[0] == "user":
                    user = (f, i)  # the innermost frame of the user's code, beyond the kept ones (a deep library stack)
            gap = 0
        elif not nframes and (body in (CAUSE, CONTEXT) or _EXC_NAMED.match(body)):
            return None  # the exception line is not the end of a traceback (another one ended before it)
        else:
            gap += 1
            # between the exception line and its innermost frame only that frame's source and caret lines
            if gap > (MAX_GAP if nframes else MAX_SOURCE):
                break
        i -= 1
    if not nframes:
        return None
    chain = None
    if header is not None:
        for k in range(header - 1, max(-1, header - 4), -1):
            body, _ = _body(lines[k])
            if body == CAUSE:
                chain = "cause"
            elif body == CONTEXT:
                chain = "context"
            if body:
                break
    frames.reverse()
    fidx.reverse()
    return {"exc": m.group("exc"), "msg": (m.group("msg") or "").strip()[:300], "frames": frames,
            "nframes": nframes, "header": header, "chain": chain, "group": group,
            "src": [frame_source(lines, k) for k in fidx],
            # (file, line, fn, (source, focus)) of the innermost user frame when the kept frames hold none
            "user": user[0] + (frame_source(lines, user[1]),) if user else None,
            "outer": outer[::-1]}  # frames beyond the kept ones, outermost first (at most OUTER_KEPT)


MAX_SRC = 300  # characters of a frame's source line kept
# the caret line CPython 3.11+ prints under a frame's source line (Lib/traceback.py
# StackSummary.format_frame_summary: '~' under the whole expression, '^' under the part that failed)
_CARETS = re.compile(r"^ {0,400}[~^]{1,400} {0,4}$")


def frame_source(lines, k):
    """(source, focus) of the frame at lines[k]: the source line CPython printed under it
    (format_frame_summary prints it stripped, indented four spaces) and the part of it its caret line
    (3.11+) marks, or None for either; ('', None) when the frame printed no source line (a frozen
    module, code without a file)."""
    if k + 1 >= len(lines) - 1 or FRAME.match(_body(lines[k])[0]) is None:
        return "", None
    raw = clean(lines[k + 1])
    src, _ = _body(raw)
    if not src or FRAME.match(src) or HEADER.match(src) or _CARETS.match(src) or len(src) > 2000:
        return "", None
    focus = None
    if k + 2 < len(lines) - 1:
        craw = clean(lines[k + 2])
        cbody, _ = strip_prefix(craw)
        if ("^" in cbody or "~" in cbody) and _CARETS.match(cbody):
            # columns: the caret line carries the same launcher prefix as the source line; its carets start
            # where the marked expression starts
            start = raw.find(src)
            left = len(craw) - len(craw.lstrip(" \t>")) if not cbody.strip() else craw.find(cbody.strip())
            width = len(cbody.strip())
            if start >= 0 and left >= start:
                part = src[left - start:left - start + width]
                if part.strip() and len(part) == width:
                    focus = part[:MAX_SRC]
    return src[:MAX_SRC], focus


def parse(text):
    """Every traceback of a text (a list of parse_back() results, each with 'line': the index of
    its exception line), for tests and small pastes: each line that looks like an exception line
    is tried as the end of one."""
    lines = text.splitlines()
    out = []
    for n in range(len(lines)):
        body, _ = _body(lines[n])
        if EXC_LINE.match(body) and not _frame(lines, n, body) and not HEADER.match(body):
            got = parse_back(lines[max(0, n - MAX_BACK_LINES):n + 1])
            if got:
                got["line"] = n
                out.append(got)
    return out


def innermost(tb):
    """(file, line, fn, kind, lib) of the frame that raised: the innermost frame, or, when that is
    the standard library's (json, subprocess, socket), the innermost frame outside it (the code
    that called it); None without frames."""
    if not tb or not tb["frames"]:
        return None
    chosen = None
    for file, line, fn in reversed(tb["frames"]):
        kind, lib = where(file)
        if chosen is None:
            chosen = (file, line, fn, kind, lib)
        if kind != "stdlib":
            return (file, line, fn, kind, lib)
    return chosen


def last_user_frame(tb):
    """(file, line, fn) of the innermost frame in the user's own code, or None."""
    for file, line, fn in reversed((tb or {}).get("frames") or []):
        if where(file)[0] == "user":
            return file, line, fn
    deep = (tb or {}).get("user")  # beyond the innermost frames kept (parse_back: a deep library stack)
    return tuple(deep[:3]) if deep else None


def _lines_before(scan, win, count, limit):
    """Up to ``count`` decoded lines before the window's first line (oldest first), from its
    buffer and the bytes the scan kept before that buffer (scan.behind), at most ``limit`` bytes."""
    buf, start = win.buf, win.start
    lo = max(0, start - limit)
    chunk = buf[lo:start]
    if lo == 0 and start < limit and getattr(scan, "behind", b""):
        chunk = scan.behind[-(limit - start):] + chunk
    raw = chunk.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()
    if lo > 0 and raw:
        raw = raw[1:]  # cut in the middle of a line
    raw = raw[-count:]
    return [r.decode("utf-8", "replace") for r in raw]


def _same_rank(lines, rank):
    """The lines of one rank (the exception line's), when ranks' lines are interleaved, and how
    many lines before the exception line each was."""
    n = len(lines)
    kept = [(ln, n - i) for i, ln in enumerate(lines) if rank is None or origin(ln)[0] in (rank, None)]
    return [ln for ln, _ in kept], [back for _, back in kept]


MAX_MORE = 6  # lines of a multi-line exception message read after its exception line
MAX_MORE_CHARS = 600
# a line that is no continuation of a message: a traceback's, a logger's record (a time stamp, glog's 'W1126 ',
# a level name, '[2026-...'), a progress bar, another exception's line, a Python warning ('<file>:<line>: <Category>:
# <message>', Lib/warnings.py _formatwarnmsg_impl)
_NOT_MESSAGE = re.compile(r"^(?:Traceback \(|File \"|\[|\d{2,4}[-:/]\d|[WEIF]\d{4} |(?:INFO|WARNING|WARN|ERROR|DEBUG|"
                          r"CRITICAL)\b|\d{1,3}%\||[^\s:]{1,300}:\d{1,7}: [A-Z]\w{0,60}Warning: )")


def _who(text):
    """Whether a line has a launcher's prefix, and the (rank, host) it names."""
    return origin(text[:512])[:2] if strip_prefix(clean(text))[1] else None


def _message_after(win, start):
    """The lines of a multi-line exception message after its exception line (str() of the exception holds
    newlines: transformers', accelerate's and torch._logging's messages go on for lines), up to a blank line or
    a line that is not the message's; '' when none."""
    # its lines carry the exception line's own prefix: a launcher prefixes every line of a rank's stream ('[rank1]: ',
    # torchrun's), so an unprefixed line after a prefixed one is another process's (the rule of advice.message_lines)
    who0 = _who(win.text(start - 1))
    out, size = [], 0
    for i in range(start, start + MAX_MORE):
        raw = win.raw(i)
        if not raw.strip() or len(raw) > 4096:
            break
        text = win.text(i)
        if _who(text) != who0:
            break
        body, margin = _body(text)
        if not body or margin or HEADER.match(body) or body in (CAUSE, CONTEXT) or _NOT_MESSAGE.match(body) or \
                _EXC_NAMED.match(body) or trailers.is_line(body):
            break  # (a library's trailer - JAX's 'For simplicity, JAX has removed ...' note - is no part of it)
        out.append(body[:300])
        size += len(out[-1]) + 1
        if size >= MAX_MORE_CHARS:
            break
    while out and _RULE_LINE.match(out[-1]):
        out.pop()  # the rule of dashes a trailer is printed under (jax's add_note, equinox's block)
    return "\n".join(out)[:MAX_MORE_CHARS]


_RULE_LINE = re.compile(r"^[-=_*~]{3,300}$")


def record(scan, hit, win):
    """Read the traceback that ends at an exception line (a '_struct_exc' hit) and keep it in
    scan.tracebacks (the first MAX_TRACEBACKS)."""
    tbs = scan.tracebacks
    if len(tbs) >= MAX_TRACEBACKS or (tbs and tbs[-1]["line"] == hit.line) or scan.tb_tries >= MAX_TRIES:
        return
    text0 = win.text(0)
    body, _ = _body(text0)
    if not EXC_LINE.match(body):
        return  # an exception's name inside a message ('ERROR - RuntimeError: ...'), not a traceback's end
    scan.tb_tries += 1
    # a traceback's exception line follows its innermost frame within a few source / caret lines: a short
    # look first, so that a log of exception lines without tracebacks costs little
    near = _lines_before(scan, win, MAX_SOURCE + 1, 1 << 13)
    if not any(_frame(near, k, _body(ln)[0]) for k, ln in enumerate(near)):
        return
    rank = hit.origin[0] if hit.origin else None
    before, back = _same_rank(_lines_before(scan, win, MAX_BACK_LINES, MAX_BACK_BYTES), rank)
    tb = parse_back(before + [text0])
    if tb is None:
        return
    tb["line"] = hit.line
    tb["header_line"] = hit.line - back[tb["header"]] if tb["header"] is not None else None
    tb["hit"] = hit
    tb["rank"] = rank
    tb["more"] = _message_after(win, 1)
    # the line before the header: a warning's ('UserWarning ... Traceback'), or the interpreter's own
    # 'Exception ignored in: <obj>' (sys.unraisablehook: the program went on)
    tb["intro"] = tb["intro_line"] = None
    if tb["header"] is not None:
        for k in range(tb["header"] - 1, max(-1, tb["header"] - 3), -1):
            b, _ = _body(before[k])
            if b:
                tb["intro"], tb["intro_line"] = b[:300], hit.line - back[k]
                break
    tbs.append(tb)


# an exception's name as format_exception_only prints it, for the line a traceback read forward ends in: a
# class name (dotted, or capitalised) - 'socket.gaierror', 'KeyboardInterrupt', 'torch._dynamo.exc.Unsupported' -
# never a source line such as 'else:' or 'main'
_EXC_CLASS = re.compile(r"^(?:(?:[A-Za-z_]\w{0,80}\.){1,12}[A-Za-z_]\w{0,80}|[A-Z]\w{0,80})(?::|$)")


def _indent(text):
    """The spaces a traceback line starts with, after a launcher's per-line prefix ('[rank0]: ', text.PREFIX)."""
    t = clean(text)
    lead = len(t) - len(t.lstrip(" \t"))
    rest = t.lstrip(" \t>")
    for _ in range(6):
        m = _PREFIX.match(rest)
        if not m or m.end() == 0:
            break
        end = m.end()
        while end > 0 and rest[end - 1] in " \t":
            end -= 1  # (PREFIX takes the spaces after the prefix too: they are the line's indentation)
        rest = rest[end:]
        lead = len(rest) - len(rest.lstrip(" \t"))
        rest = rest.lstrip(" \t")
    return lead


def record_header(scan, hit, win):
    """Read forward from a 'Traceback (most recent call last):' line (a '_struct_traceback' hit) to the
    exception line that ends it, for the exceptions whose names the scan's exception pattern does not
    know ('socket.gaierror: ...', 'KeyboardInterrupt', 'torch._dynamo.exc.Unsupported: ...'): kept in
    scan.tracebacks like record()'s; a traceback record() reads at its exception line is kept once."""
    tbs = scan.tracebacks
    if len(tbs) >= MAX_TRACEBACKS or scan.tb_tries >= MAX_TRIES:
        return
    text0 = win.text(0)
    if not HEADER.match(_body(text0)[0]):
        return
    scan.tb_tries += 1
    rank = hit.origin[0] if hit.origin else None
    lines, nframes, size = [text0], 0, 0
    for i in range(1, MAX_BACK_LINES):
        raw = win.raw(i)
        size += len(raw)
        if (not raw and not win.raw(i + 1)) or size > MAX_BACK_BYTES:
            return
        text = win.text(i) if len(raw) <= 4096 else ""
        if rank is not None and origin(text)[0] not in (rank, None):
            continue  # another rank's line, interleaved
        lines.append(text)
        body, _ = _body(text)
        if _frame(lines, len(lines) - 1, body):
            nframes += 1
            continue
        if HEADER.match(body) or body in (CAUSE, CONTEXT):
            return  # a header without an exception line: cut
        if nframes and _EXC_CLASS.match(body) and EXC_LINE.match(body) and _indent(text) <= _indent(text0):
            # (the exception line is at the header's margin; a frame's source line is indented past it: '    f.line'
            # under 'File ".../traceback.py", line 433' is a dotted name too, and was read as the exception - family16)
            tb = parse_back(lines)
            if tb is None:
                return
            line = hit.line + i
            if any(t["line"] == line for t in tbs):
                return
            tb.update(line=line, header_line=hit.line, rank=rank, intro=None, intro_line=None,
                      more=_message_after(win, i + 1),
                      hit=type(hit)(line, text.strip()[:400], hit.pattern, {"exc": tb["exc"]}, None, hit.origin))
            # what was printed just before the header: a chain's message, a logger's record, 'Exception ignored'
            pre, back = _same_rank(_lines_before(scan, win, 4, 1 << 13), rank)
            for k in range(len(pre) - 1, -1, -1):
                b, _ = _body(pre[k])
                if not b:
                    continue
                if b in (CAUSE, CONTEXT):
                    tb["chain"] = "cause" if b == CAUSE else "context"
                else:
                    tb["intro"], tb["intro_line"] = b[:300], hit.line - back[k]
                break
            tbs.append(tb)
            return


def record_argparse(scan, hit, win):
    """An argparse error line ('<prog>: error: <message>') with its 'usage: <prog>' line before it
    (ArgumentParser.error): kept in scan.argparse (the first MAX_ARGPARSE)."""
    if len(scan.argparse) >= MAX_ARGPARSE or scan.ap_tries >= MAX_TRIES:
        return
    body, _ = _body(win.text(0))
    m = ARGPARSE_ERROR.match(body)
    if not m or m.group("prog") in _NOT_ARGPARSE:
        return
    scan.ap_tries += 1
    prog = m.group("prog")
    rank = hit.origin[0] if hit.origin else None
    msg = m.group("msg").strip()
    before, _ = _same_rank(_lines_before(scan, win, 60, 1 << 14), rank)
    usage = None
    for k in range(len(before) - 1, -1, -1):
        b, _ = _body(before[k])
        u = USAGE.match(b)
        if u:
            if u.group("prog").lower() != prog.split()[0].lower():
                return
            usage = b[:300]
            break
    if usage is None and not (msg.startswith(ARGPARSE_MESSAGES) and (prog.endswith(".py") or
                                                                     prog.split()[0].lower() in LAUNCHER_PROGS)):
        return  # a paste that left the usage out: only argparse's own messages, from a script or a launcher
    scan.argparse.append({"line": hit.line, "prog": prog, "msg": msg, "hit": hit, "usage": usage, "rank": rank})


RECORD = {"_struct_exc": record, "_struct_argparse": record_argparse, "_struct_traceback": record_header}
