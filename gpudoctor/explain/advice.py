"""What the message itself says to do: the remedy a program prints in its own error text
("Please use --ntasks", "Consider setting NCCL_SOCKET_IFNAME", "is not supported, use X
instead", "set find_unused_parameters=True", "did you mean ...?"), quoted from the root
finding's line with its real values and ranked before the family's generic fix.

Where the text comes from: the root finding's matched lines, each with the lines its message
continues over (scan.py keeps them with the hit: message_lines()), and the exception message a
matched line belongs to (a Python exception whose message runs over several lines). Only a
finding that exists gets advice: a text with no finding stays as it was (a healthy log never
becomes a finding here).

The clause grammar is written from the phrasings the message sources use (the format strings
in gpudoctor/data/knowledge/generated/*.json; docs/explain.md "How the answer is built" has
the counts):
- a sentence that starts with an imperative (after the start, '. ', ': ', '(' or '; '):
  NCCL's "Set NCCL_MNNVL_ENABLE=0 to ignore this issue." (src/transport/nvls.cc), Horovod's
  "Ensure MPI is installed and reinstall Horovod with HOROVOD_WITH_MPI=1", MPICH's "Call
  MPI_Init or MPI_Init_thread first", Slurm's "Please use direct assignment instead."
  (src/common/read_config.c), DeepSpeed's "Set TORCH_CUDA_ARCH_LIST or make GPUs visible.";
- an imperative after ', ' / ' or ' ("... is not compatible with CR_CPU*, please change to
  use CR_CORE* instead", accelerate's "... or use `--main_process_port 0`");
- a modal or advisory phrase anywhere in a sentence: "you must / need to / should / can ...",
  "consider ...", "try ...", "make sure", "it is recommended to", "as a workaround", "to fix
  this, ...", "did you mean ...?" (CPython's NameError / AttributeError suggestions,
  Python/suggestions.c; Gloo's "did you run into the locked memory limit?",
  gloo/transport/ibverbs/memory_region.cc), argparse's "(choose from ...)" (Lib/argparse.py).

Phrasings that are NOT a remedy (the table _DROP / _DETAIL below): a request for more output
("run with NCCL_DEBUG=INFO for details": torch's ProcessGroupNCCL, "Rerunning with
num_workers=0 may give better error trace": torch/utils/data/_utils/signal_handling.py, "For
debugging consider passing CUDA_LAUNCH_BLOCKING=1": c10/cuda/CUDAException.cpp, "rerun with
--verbose", "Try 'srun --help' for more information") and a pointer to documentation ("see
https://...") become one 'more detail' note; a request to report a bug ("internal error -
please report this issue to the NCCL developers": NCCL's src/init.cc, "Please include the loss
function ... when reporting this issue": torch/csrc/distributed/c10d/reducer.cpp), "please try
again" (OpenSSH's password prompt) and "at your own risk" (Open MPI's run-as-root help) are
dropped.

Bounds: at most MAX_TEXT characters of one text are read, a sentence is cut at MAX_SENTENCE
characters before any pattern runs on it, a quoted clause is at most MAX_CLAUSE characters;
every pattern is a word alternation or a bounded repetition (linear in its input). The quoted
text is log text: control characters and bidi overrides are removed here, and the report
prints it through render.py's _one_line like every other log text.
"""

import re

from gpudoctor.explain import trailers

MAX_TEXT = 8192  # characters of one text (a line and its continuation) read for advice
MAX_SENTENCE = 600  # characters of one sentence tried
MAX_CLAUSE = 240  # characters of one quoted clause
MAX_REMEDIES = 3
MAX_DETAILS = 2
MAX_FOLLOW = 8  # lines an exception's or a record's message may continue over after its first
MAX_BLOCK = 16  # lines read to the end of a help block (Open MPI's, between two rules of dashes)
MAX_FOLLOW_BYTES = 1024  # bytes read of each such line
MAX_LINE0 = 4096  # a longer first line: the hit's shown part (around the match) is read instead

# C0/C1 controls, DEL, bidi embeddings/overrides/isolates, zero-width and line/paragraph separators
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")

# a sentence ends at '.', '!' or '?' before whitespace (not 'e.g.', 'i.e.', 'etc.', 'vs.'), at '; ', at ' - ',
# at a line break, and at ') ' before a capital (torch's OOM message: '... reserved in total by PyTorch) If
# reserved memory is >> allocated memory try setting max_split_size_mb ...', c10/cuda/CUDACachingAllocator.cpp),
# and at a numbered item glued to the period before it (the DDP reducer's '... training loop.2) Reused ...')
_END = re.compile(r"(?<![eE]\.g)(?<![iI]\.e)(?<!etc)(?<!\bvs)(?<!\bNo)[.!?](?=\s|\d\)\s)"
                  r"|;\s|\s-{1,2}\s|\n|\)\s(?=[A-Z])")
# (famfix28) two sentences of a printed message glued by a concatenation without a blank (TORCH_CHECK's c10::str
# joins its arguments as written, c10/util/StringUtil.h: torch/csrc/autograd/VariableTypeUtils.h's '... is not
# allowed.You can make a clone ... update.See https://...'; Lightning's '... callback.Please remove it ...'): in the
# text read (apply), a blank after such a period, only before a word that starts a sentence of advice or a pointer
# ('torch.Tensor', 'nn.Module' stay one name). The generators' format strings are read as they are (their committed
# means / fix lines stay what they were)
_GLUED = re.compile(r"(?<=[a-z)`'\]])\.(?=(?:You|See|Please|Consider|Try|To|If|Use|Set|Make|We|This|It) )")

# the log header of a sentence: 'srun: error: ', 'RuntimeError: ', 'torch.distributed.DistBackendError: ',
# NCCL's 'init.cc:1247 NCCL WARN '
_HEAD = re.compile(r"[`'\"]{0,3}(?:[\w.-]{1,80}:\d{1,6} )?(?:NCCL (?:WARN|INFO) )?(?:[\w.\[\]/-]{1,60}: ){0,4}")

# imperatives a sentence or a clause starts with (what the sources print; see the module's doc)
_IMPERATIVE = (
    "use", "set", "pass", "specify", "increase", "decrease", "reduce", "lower", "add", "remove", "delete",
    "install", "reinstall", "upgrade", "downgrade", "update", "ensure", "run", "rerun", "re-run", "call", "disable",
    "enable", "unset", "check", "verify", "change", "rename", "replace", "restart", "reboot", "configure",
    "recompile", "rebuild", "avoid", "try", "consider", "please", "convert", "mount", "edit", "contact", "adjust",
    # torch's own (torch/_inductor/cudagraph_trees.py: '... clone the tensor outside of torch.compile()'; ATen's
    # 'move the tensor to ...')
    "clone", "move")
# after ', ' / ' or ' / ' and ' / ' then ': only these (a comma-clause is more often a statement:
# NCCL's 'minCTAs %d is larger than maxCTAs %d, set both to %d' says what NCCL did)
_AFTER_COMMA = ("use", "set", "pass", "specify", "increase", "decrease", "reduce", "try", "consider", "please",
                "check", "ensure", "run", "rerun", "re-run", "disable", "enable", "upgrade", "install",
                "reinstall", "downgrade", "rename")
_WORD = re.compile(r"(?<![\w./#-])(%s)(?=[ \t])" % "|".join(sorted({re.escape(w) for w in _IMPERATIVE},
                                                                    key=len, reverse=True)), re.IGNORECASE)
# modal and advisory phrases: advice wherever they stand in a sentence
_ADVISORY = re.compile("|".join([
    r"\byou(?: will| 'll|'ll)? (?:must|need(?:s)? to|should|can|could|may (?:want|need|wish) to"
    r"|might (?:want|need) to|have to|may also|can also|will (?:need|have) to)\b(?!'t| not)",
    r"\b(?:please|consider|try)\b(?![=_-]| (?:again|later)\b)", r"\bre-?running with\b",
    r"\bmake sure\b", r"\bbe sure to\b", r"\bensure that\b",
    r"\b(?:it is|it's|is) (?:recommended|advised|suggested|advisable) (?:to|that)\b",
    r"\bwe (?:recommend|suggest|advise)\b", r"\bas a workaround\b",
    r"\bto (?:fix|resolve|solve|avoid|work around|silence|suppress|ignore) (?:this|it|that|the)\b",
    r"\bdid you mean\b", r"\bmaybe you meant\b", r"\bdid you forget to\b", r"\(choose from\b",
    r"\bthe (?:fix|solution|workaround) is\b",
    # a purpose, then what to do: torch/_inductor/cudagraph_trees.py 'To prevent overwriting, clone the tensor ...'
    r"(?:^|(?<=: ))to (?:prevent|avoid|fix|resolve|enable|disable|use)\b[^,.;\n]{1,120},",
    # safetensors/torch.py _remove_duplicate_names: 'A potential way to correctly save your model is to use
    # `save_model`'
    r"\b(?:way|fix|solution|workaround)\b[^.\n]{0,80}?\bis to (?:use|call|set|pass|run|install)\b"]), re.IGNORECASE)
# right after an imperative: a statement of what failed, not an instruction ('Check failed: x == y', glog's
# CHECK; 'Set device failed'; 'Call to recv failed', NCCL's misc/socket.cc; 'pass NULL socket')
_STATEMENT = re.compile("|".join([
    r"^\W{0,3}(?:of|is|was|were|has|had|are|count|status|null|nullptr|to \S{1,60} (?:from|failed|returned))\b",
    r"^[^.;]{0,30}?\b(?:failed|fails|errno|error code|returned|timed out|succeeded)\b"]), re.IGNORECASE)
# the writer's own words, not a program's: a person writes 'I', 'my', 'me' (a pasted thread's prose)
_PERSON = re.compile(r"(?<![\w'-])(?:I|i|I'm|i'm|I've|i've|I'd|i'd|[Mm]y|me)(?![\w'-])")

# not a remedy, dropped: a request to report a bug, a retry prompt, a disclaimer
_DROP = re.compile("|".join([
    r"\breport(?:ing)? (?:this|it|the (?:bug|issue|problem|error))\b", r"\bplease report\b",
    r"\b(?:file|open|submit|raise|create) (?:an? |the )?(?:new )?(?:bug|issue|ticket|github issue|bug report)\b",
    r"\bbug report\b", r"\b(?:this|it) (?:is|is likely|may be|might be|looks like|is probably) a bug\b",
    r"\ba bug in\b", r"\binternal error\b", r"\bshould (?:never|not) (?:happen|occur)\b", r"\bplease try again\b",
    r"\bat your own risk\b", r"\bcontact (?:the )?(?:developers|maintainers)\b", r"\bGLHF\b",
    # a pointer to the rest of the same message (torch.load's '(2) ... please check the recommended steps in the
    # following error message', torch/serialization.py): that message's own advice is read
    r"\bin the (?:following|next) (?:error )?message\b"]), re.IGNORECASE)
# a request for more output or a pointer to documentation: one 'more detail' note
_DEBUG_VARS = "|".join([
    r"NCCL_DEBUG(?:_SUBSYS|_FILE)?", "TORCH_DISTRIBUTED_DEBUG", "TORCH_CPP_LOG_LEVEL", "TORCH_SHOW_CPP_STACKTRACES",
    "CUDA_LAUNCH_BLOCKING", "TORCH_USE_CUDA_DSA", "UCX_LOG_LEVEL", "FI_LOG_LEVEL", "HYDRA_FULL_ERROR", "I_MPI_DEBUG",
    "TORCHELASTIC_ERROR_FILE", "PMIX_DEBUG", "SLURM_DEBUG", "TORCH_NCCL_TRACE_BUFFER_SIZE",
    "TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_LOGS", r"\w{1,40}_[Vv]erbose", r"\w{1,40}_VERBOSE"])
_DETAIL = re.compile("|".join([
    r"\b(?:%s)\b" % _DEBUG_VARS,
    r"\bfor (?:more |further |additional |full |better |detailed )?(?:details?|info(?:rmation)?|debugging"
    r"|diagnos\w{0,10}|usages?|help|context|trace(?:back)?s?|the full (?:error|trace|traceback))\b",
    r"\bto (?:print|get|see|show|display|obtain|enable) (?:out |more |the )?"
    r"(?:more |additional |detailed |further |full )?(?:info(?:rmation)?|details?|debug\w{0,6}|logs?|logging"
    r"|output|messages?|error trace|stack ?traces?|tracebacks?|device-side assertions)\b",
    r"\bbetter error trace\b", r"(?<![\w-])(?:--verbose|--debug|--help|-h|-v{1,3})(?![\w-])", r"\bverbos(?:e|ity)\b",
    r"\b(?:see|refer to|consult|read|visit|check)\b:? (?:the |our |this )?(?:documentation|docs?|manual|man page"
    r"|instructions|faq|website|wiki|guide|readme|help|notes|https?://)",
    r"\bsee:? https?://", r"\bmore (?:details|information|info) (?:at|on|in|here)\b",
    r"\b(?:enable|print|get|see) (?:the )?traceback\b"]), re.IGNORECASE)

# a rule or a prohibition the message states (what the call broke, not what to do): read only where a caller asks
# for it (find(rules=True): excmeaning quotes it, labelled as the message's rule, in a cause's text, never in a fix
# line). The libraries word their refusals so: Lightning's MisconfigurationException texts ("You can't
# `self.log({}={})` inside `{}`, must be one of {}.", src/lightning/pytorch/trainer/connectors/logger_connector/
# fx_validator.py check_logging_levels; "`ModelCheckpoint(save_last='link')` is only supported for local file
# paths", callbacks/model_checkpoint.py), accelerate's ValueError/RuntimeError texts ("You can't train a model that
# has been loaded with `device_map='auto'` in any distributed mode.", "--no_python cannot be used with TPU
# launcher", "cp_backend must be one of ...", src/accelerate/accelerator.py, commands/launch.py,
# parallelism_config.py). Every part is a word alternation or a bounded repetition (linear).
_STATED = re.compile("|".join([
    r"\byou (?:can't|cannot|can not|must not|mustn't|may not|should not|shouldn't"
    r"|are not (?:allowed|permitted|supposed) to)(?![\w'])",
    r"\b(?:is|are|was|were)(?: currently| yet)? not (?:allowed|permitted|supported|compatible)\b",
    r"\b(?:is|are) (?:only|not yet) (?:supported|allowed|available|compatible)\b",
    r"\bonly\b[^.;\n]{1,80}?\b(?:is|are) (?:supported|allowed|accepted|permitted)\b",
    r"\b(?:can't|cannot|can not|must not|may not) be (?:used|combined|set|passed|specified|enabled|called|mixed)\b",
    r"\bcan only be (?:used|set|passed|specified|enabled|called|one of)\b",
    r"\b(?:must|should|has to|have to|needs? to)(?: not)? (?:be|have|match|contain|equal) (?:one of|either|in|at "
    r"least|at most|greater|less|larger|smaller|positive|non-negative|divisible|equal|the same)\b",
    r"\b(?:expected|valid|allowed|supported|accepted)(?: values?| options?| choices?)?(?: are| is)?:? one of\b"]),
    re.IGNORECASE)


def clean(text):
    """Log text made safe to quote: control characters, bidi overrides and separators removed
    (replaced by a space), runs of whitespace folded."""
    return " ".join(_UNSAFE.sub(" ", str(text)).split())


def _sentences(text):
    """[(start, end)] of the sentences of text (at most 64), an end including its mark."""
    out, start = [], 0
    for m in _END.finditer(text):
        end = m.end() if text[m.start()] in ".!?)" else m.start()
        if end > start and text[start:end].strip():
            out.append((start, end))
        start = m.end()
        if len(out) >= 64:
            return out
    if text[start:].strip():
        out.append((start, len(text)))
    return out


# a line that ends in the middle of a sentence (Open MPI's help text is wrapped at ~70 columns: 'you must use
# either SLURM's PMI-1 or' / 'PMI-2 support.')
_CONNECTOR = re.compile(r"(?:,|\b(?:or|and|the|a|an|to|of|either|with|for|in|on|by|from|that|than|your|is|are|be))$")


def _join(lines):
    """One text from a message's lines: a line that ends without a mark and a next line that
    starts in lower case are one wrapped sentence (joined with a space), else a line break. A
    comment line ('# ...': a pasted script's or file's) is left out: it is no program's message."""
    out = ""
    for ln in lines:
        ln = clean(ln)
        if not ln or ln.startswith("#"):
            continue
        wrapped = ln[:1].islower() or ln[:1] == "(" or _CONNECTOR.search(out)
        if out and not out.endswith((".", "!", "?", ":", ";")) and wrapped:
            out += " " + ln
        else:
            out += ("\n" if out else "") + ln
        if len(out) >= MAX_TEXT:
            return out[:MAX_TEXT]
    return out


def _starts_clause(s, i):
    """'start' when position i of sentence s begins a clause (the sentence's start, after ': ',
    '(', '- ', a quote), 'comma' after ', ' / ' or ' / ' and ' / ' then ' / 'please ', else None."""
    before = s[max(0, i - 10):i]  # the longest mark below, 'otherwise ', is 10 characters
    if not before.strip() or before.endswith(("(", "- ", "\"", "'", "`")) or before.rstrip().endswith(":"):
        return "start"
    if before.endswith((", ", " or ", " and ", " then ", "please ", "Please ", "then, ", "otherwise ")):
        return "comma"
    return None


# 'set' after a comma is advice when a variable, `code`, 'the ...' or key= follows
_SET_WHAT = re.compile(r"\s{1,3}(?:[`'\"]|[A-Z][A-Z0-9_]{2,}|the |\w{1,60}=)")


def _trigger(s):
    """Where the advice of sentence s begins (an index), or None."""
    m = _ADVISORY.search(s)
    if m:
        return m.start()
    for m in _WORD.finditer(s):
        where = _starts_clause(s, m.start())
        word = m.group(1).lower()
        if where is None or (where == "comma" and word not in _AFTER_COMMA):
            continue
        rest = s[m.end():m.end() + 100]
        if not rest.strip() or _STATEMENT.match(rest):
            continue  # 'Check failed: ...', 'Run 3 failed', 'Call to recv from ... failed'
        if word == "set" and where == "comma" and not _SET_WHAT.match(rest):
            continue  # 'set both to 8' says what the program did
        return m.start()
    return None


def _quote(s, at):
    """The clause to quote from sentence s whose advice starts at index at: the sentence
    without its log header ('srun: error: '), or from the advice on when that is too long; a
    quote or backquote the paste left at either end is dropped."""
    opened = s.rfind("(", 0, at)
    if opened >= 0 and s.find(")", opened) >= at:
        # advice inside parentheses ('unhandled system error (run with NCCL_DEBUG=INFO for details)'): that part
        s = s[opened + 1:s.find(")", opened)]
        at -= opened + 1
    head = _HEAD.match(s)
    a = head.end() if head and head.end() <= at else 0
    if s[:1] == "`" and a and not s[:a].strip("`'\"") and s[a:].count("`") % 2 and \
            not (s[a:].count("`") == 1 and s[a:].rstrip(" .!?").endswith("`")):  # (not one quoted sentence)
        a = 0  # a code span the sentence starts with ('`ModelCheckpoint(...)` is only supported ...'): its backtick
    cut = len(s) - a > MAX_CLAUSE and at > a
    q = s[at if cut else a:].strip()
    if len(q) > MAX_CLAUSE:
        q = q[:MAX_CLAUSE].rsplit(" ", 1)[0] + " ..."
    for mark in "`'\"":
        if q.count(mark) % 2:
            q = q.strip(mark)
    return ("... " + q) if cut else q


def find(text, rules=False):
    """[(kind, clause)] of one message text (a line, or a message's lines): kind 'remedy'
    (what the message says to do) or 'detail' (how to get more detail: debug output,
    documentation), and with ``rules`` kind 'rule' (a sentence with no remedy that states what
    the call broke: _STATED); in the text's order, without repeats."""
    lines = list(text) if isinstance(text, (list, tuple)) else str(text)[:MAX_TEXT].split("\n")
    text = _join(lines)
    out, seen = [], set()
    for a, b in _sentences(text):
        s = text[a:b][:MAX_SENTENCE].strip()
        if len(s) < 8 or _PERSON.search(s) or "**" in s:  # a person's prose (markdown bold: a thread's)
            continue
        at = _trigger(s)
        if _DROP.search(s):
            continue
        if trailers.in_sentence(s):
            # a library's trailer (trailers.py: JAX's 'Set JAX_TRACEBACK_FILTERING=off to include these.', Hydra's
            # HYDRA_FULL_ERROR): never what to do about the error; at most how to see more of it
            if at is not None and _DETAIL.search(s):
                q = _quote(s, at)
                if len(q) >= 8 and q.lower() not in seen:
                    seen.add(q.lower())
                    out.append(("detail", q))
            continue
        kind = None
        if at is None:
            rule = _STATED.search(s) if rules else None
            if rule is None:
                continue
            at, kind = rule.start(), "rule"  # (the sentence from its start: the rule's subject is in it)
        q = _quote(s, at)
        if len(q) < 8:
            continue
        kind = kind or ("detail" if _DETAIL.search(q) else "remedy")
        key = q.lower()
        if key not in seen:
            seen.add(key)
            out.append((kind, q))
    return out


# --------------------------------------------------------------------------- scan side


def message_lines(win, hit):
    """The matched line (its prefix-free text) and the lines its message continues over:
    - an exception's message ('RuntimeError: ...' and the lines after it: Python prints the
      message as it is, line breaks and all), a line with a launcher's prefix followed by lines
      with the same prefix (the same rank and host), a program's record followed by its next
      records of the same header ('sbatch: error: ' twice: Slurm prints one message as several
      error() calls): the lines up to a blank line or a new record (an INFO/WARN line, another
      exception, a traceback, a frame), at most MAX_FOLLOW;
    - a line inside a help block (Open MPI's and PRRTE's help files print a message between two
      rules of dashes, blank lines and all): the lines up to the closing rule.
    Anything else is the line alone (a person's prose after a pasted error is not the message).
    A line longer than MAX_LINE0 is its shown part alone. Called by scan.py for the hits it
    keeps (scan.MAX_SHOWN per entry), never for every line."""
    from gpudoctor.explain.scan import _decode
    from gpudoctor.explain.text import origin, severity, strip_prefix

    raw0 = win.raw(0)
    if len(raw0) > MAX_LINE0:
        return (_whole_sentences(hit.text),)
    text0 = win.text(0)
    body0, prefixed0 = strip_prefix(text0)
    who0 = origin(text0[:512])[:2] if prefixed0 else None
    head0 = _PROG_HEAD.match(body0)
    message = bool(prefixed0 or head0 or _EXC_LINE.match(body0))
    lines, block, ended = [body0.strip()], [], False  # the message's lines; the block's; a blank line seen
    for i in range(1, MAX_BLOCK + 1):
        raw = win.raw(i)
        if not raw.strip():
            ended = True  # a message ends at a blank line; a help block goes on to its rule
            continue
        text = _decode(raw[:MAX_FOLLOW_BYTES])
        body, prefixed = strip_prefix(text)
        if _RULE.match(body):
            return tuple([lines[0]] + block)  # the help block's lines up to its closing rule
        if prefixed != prefixed0 or (prefixed and origin(text[:512])[:2] != who0):
            break
        head = _PROG_HEAD.match(body)
        if head:
            if not head0 or head.group(0) != head0.group(0):
                break  # another program's or level's record
            body = body[head.end():]  # the same program's next line of one message
        if severity(body) is not None or _NEW_RECORD.match(body):
            break
        block.append(body.strip())
        if message and not ended and len(lines) <= MAX_FOLLOW:
            lines.append(body.strip())
    return tuple(lines)


def _whole_sentences(shown):
    """A long line's shown part (scan._display: '... ' the part around the match ' ...') without
    the sentences its cut ends went through the middle of."""
    if shown.endswith(" ..."):
        end = shown.rfind(". ", 0, len(shown) - 4)
        shown = shown[:end + 1] if end > 0 else shown[:-4]
    if shown.startswith("... "):
        start = shown.find(". ", 4)
        shown = shown[start + 2:] if start > 0 else shown[4:]
    return shown


# 'srun: error: ', 'sbatch: error: ', 'slurmstepd: error: ': a program's record header
_PROG_HEAD = re.compile(r"[\w.-]{1,40}(?:\[\d{1,10}\])?: (?:error|fatal|warning|info|debug\d?): ")
# an exception's line as Python's traceback module prints it: a (dotted) class name, ': ', its message
_EXC_LINE = re.compile(r"\s{0,8}(?:[A-Za-z_]\w{0,80}\.){0,12}[A-Za-z_]\w{0,80}(?:Error|Exception|NotMet|Failure): ")
_RULE = re.compile(r"\s{0,4}[-=*]{8,}\s*$")
_NEW_RECORD = re.compile(
    r"\s{0,8}(?:Traceback \(most recent call last\)|File \"|The above exception|During handling of the above"
    r"|Exception raised from |frame #\d|\^|\[[IWEF]\d{4} |[IWEF]\d{4} \d|terminate called|\$ |>>> "
    r"|(?:[A-Za-z_]\w{0,80}\.){0,12}[A-Za-z_]\w{0,80}(?:Error|Exception|Warning|Interrupt|Exit)(?::|$))")


# --------------------------------------------------------------------------- answer side


def _texts(result, scan):
    """[(line, text)] the root finding's advice is read from: each matched line with the lines
    its message continues over, and the message of the exception a matched line is part of."""
    root = result["findings"][0]
    kept = {}
    for hits in scan.matches.values():
        for h in hits:
            if getattr(h, "more", None) and h.line not in kept:
                kept[h.line] = h
    out, used = [], set()
    for mt in root["matches"][:MAX_SHOWN_READ]:
        ln = mt.get("line")
        if not isinstance(ln, int) or ln in used:
            continue  # a Flight Recorder dump or a RAS report: gpudoctor's own reading, not a message
        h = kept.get(ln)
        used.add(ln)
        out.append((ln, h.more if h is not None else (mt.get("text") or "",)))
        # the exception message this line belongs to (its first line is the exception line)
        for x in kept.values():
            if x.line < ln <= x.line + len(x.more) - 1 and x.line not in used and \
                    x.pattern is not None and x.pattern.entry in ("_struct_exc", "_struct_terminate"):
                used.add(x.line)
                out.append((x.line, x.more))
    return out


MAX_SHOWN_READ = 3


def _salient(q):
    """The words of a clause a fix would have to name to say the same: flags, variables,
    key=value, `code`, snake_case names."""
    got = set()
    for m in _SALIENT.finditer(q):
        w = m.group(0).strip("`'\".,;:()").lower()
        if len(w) >= 3:
            got.add(w.split("=")[0] if "=" in w and not w.startswith("-") else w)
    return got


_SALIENT = re.compile("|".join([
    r"`[^`\n]{1,80}`", r"(?<![\w-])--?[A-Za-z][\w-]{1,40}(?:=[^\s,;)`'\"]{1,60})?",
    r"\b[A-Z][A-Z0-9]{1,20}_[A-Z0-9_]{1,60}\b", r"\b\w{1,40}=[^\s,;)`'\"]{1,60}",
    r"\b[a-z][a-z0-9]{0,30}_[a-z0-9_]{1,40}\b", r"\b\w{2,30}\(\)"]))


def _says_it(q, causes):
    """Whether one of ``causes`` (the site-specific ones) already says clause q."""
    words = _salient(q)
    flat = " ".join(q.lower().split())
    # (famfix28) a cause's text that quotes the message whole ('The call was refused (RuntimeError: Inference tensors
    # cannot be saved for backward. To work around you can make a clone ...)') repeats the clause without saying to
    # do it: its fix lines alone count ('change the argument ... the message names' left the remedy unsaid). A text
    # that quotes the clause as what to do (excmeaning's 'The message says what to do: “...”') has said it
    def text_says(c):
        text = " ".join((c.get("text") or "").lower().split())
        return [text] if flat not in text or "\u201c" + flat in text else []

    said = " ".join(" ".join(text_says(c) + list(c.get("fix") or []) +
                             ["%s=%s" % kv for kv in (c.get("exports") or {}).items()]) for c in causes).lower()
    if not said:
        return False
    if words:  # most of what it names (a fix says `find_unused_parameters=True`, not every word of the clause)
        return 2 * sum(w.strip("`") in said for w in words) >= len(words)
    return flat in " ".join(said.split())


def _specific(c):
    """A cause that is this site's or this log's own: a generated site's fix, a fix computed
    from facts or the log, a launch-config reading, a cause the log's evidence points at."""
    return c.get("static_rank") == 0 or bool(c.get("computed_fix")) or bool(c.get("evidence")) or \
        bool(c.get("edit"))  # (a concrete edit from the message and the user's call line: argedit.py)


def apply(result, scan):
    """Add what the root finding's message says to do as a cause (after the causes specific to
    this site or log, before the family's generic ones), and what it says about more detail as
    a note. Runs after fixes.apply (a computed fix is never displaced)."""
    findings = result.get("findings") or []
    if not findings or result.get("verdict") not in ("root_cause", "echo_only"):
        return result
    root = findings[0]
    if root.get("from_launch"):
        return result  # read from a launch line or launcher config (launchpaste.py): no program's message
    if root.get("triage"):
        # a hang or slow-run answer (hang.py): its lines are the user's own complaint ('... you should always
        # check training because it can stop in the middle of training.' was quoted as the message's remedy)
        return result
    remedies, details = [], []
    for ln, lines in _texts(result, scan):
        for kind, q in find([_GLUED.sub(". ", x) if isinstance(x, str) else x for x in lines]):
            lst = remedies if kind == "remedy" else details
            if q not in [x[1] for x in lst]:
                lst.append((ln, q))
    causes = root["causes"]
    if root.get("confidence") == "cause":
        # an entry written for this message (not a family's menu of causes): its causes are this
        # message's own; the advice is left out when any of them says it already
        specific = causes
    else:
        specific = [c for c in causes if c.get("static_rank") == 0 or c.get("computed_fix")]
    remedies = [(ln, q) for ln, q in remedies if not _says_it(q, specific)]
    # the same remedy from two lines that differ in a value only (nvidia-container-cli's 'cuda>=12.1' from docker and
    # 'cuda>=12.2' from pyxis): the first line's words once
    from gpudoctor.explain.analyze import _overlap

    remedies = [(ln, q) for i, (ln, q) in enumerate(remedies) if all(_overlap(q, p) < 0.8 for _, p in remedies[:i])]
    # what names something to set, pass or use (a flag, a variable, key=value, `code`) first
    remedies = sorted(remedies, key=lambda x: not _salient(x[1]))[:MAX_REMEDIES]
    if remedies:
        shown = {mt["line"]: mt["text"] for mt in root["matches"]}
        first = remedies[0][0]
        causes.append({
            "text": "The message itself says what to do (line %s)." % first, "checks": [], "confirm": [],
            "fix": [_says(q) for _, q in remedies], "exports": {},
            "evidence": [{"line": first, "text": clean(shown.get(first, remedies[0][1]))[:400]}],
            "static_rank": 0, "computed": None, "advice": True})
        place(result)
    for ln, q in details[:MAX_DETAILS]:
        root["notes"].append("More detail, as the message says (line %s): \"%s\"" % (ln, q))
    from gpudoctor.explain import hookdef

    hookdef.fill(result, scan)  # (famfix28) the method the message says the user's class must define, by its name
    return result


_SAYS = "the message says: \"%s\""
# the message's words inside double quotes, where bash still expands $(...), backticks, $VAR, \ and (interactively)
# '!': a message that held them ran them when its fix line was pasted whole (red team 2026-11-26f: 'please use
# --b$(touch X)' in an exception's message). Such words are one single-quoted shell word (fixline.sh, 15.); the
# message's own plain words keep their double quotes.
_DQ_SPECIAL = re.compile(r'[$`\\"!]')


def _says(q):
    from gpudoctor.fixline import needs_ansi_c, sh

    if not _DQ_SPECIAL.search(q) and not needs_ansi_c(q):  # (a control or format character: $'...', 15.)
        return _SAYS % q

    return "the message says: " + sh(q)


def place(result):
    """Put the root's advice cause in its rank: below the causes specific to this site or log (a
    generated site's fix, a computed fix, a launch-config reading, a cause the log's evidence
    points at) and, for an entry written for this message (how sure: cause), below its first
    cause; above the family's generic causes. Advice that names nothing concrete ('Please check
    network connectivity') goes below the first cause, but for a root read from the log's shape
    alone (structural), whose causes are all generic. fixes.run_confirming_checks calls it again
    after it computed fixes from this machine's facts (--check)."""
    findings = result.get("findings") or []
    if not findings:
        return result
    root = findings[0]
    adv = [c for c in root["causes"] if c.get("advice")]
    if not adv:
        return result
    causes = [c for c in root["causes"] if not c.get("advice")]
    lead = 0
    while lead < len(causes) and _specific(causes[lead]):
        lead += 1
    first = adv[0]["fix"][0]
    concrete = _salient(first[len(_SAYS) - 3:-1])
    # a root read from the log's shape alone (how sure: structural, 'No known message matched')
    # has generic first causes ('read the exception's message'): the message's own words are
    # the most specific thing the text offers, concrete or not (Horovod's shutdown message says
    # to look for the exception before it, uber/horovod's torch/mpi_ops.py)
    shape_only = root.get("confidence") == "structural" and lead == 0
    if (root.get("confidence") == "cause" or not concrete) and causes and not shape_only:
        lead = max(lead, 1)
    root["causes"] = causes[:lead] + adv + causes[lead:]
    return result
