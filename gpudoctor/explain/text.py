"""What a pasted or logged line says once the paste's noise is gone: ANSI colours, CR,
rank/host/pid/timestamp prefixes; and its severity (an INFO or WARN line is context, never a
root cause alone).

The prefixes are those the launchers and loggers print:
- torchrun --tee / --redirects: ``[rank3]:``, ``[default0]:`` (torch.distributed.elastic)
- srun -l / pdsh / deepspeed's pdsh runner: ``0: ``, ``host: ``
- Open MPI --tag-output: ``[1,0]<stderr>:``
- Ray: ``(RayTrainWorker pid=123, ip=10.0.0.1)``
- NCCL: ``host:pid:tid [dev]`` (NCCL_DEBUG's default prefix, src/debug.cc)
- timestamps: ISO 8601, syslog (``Nov 23 01:02:03 host kernel:``), ``[2024-01-01 12:00:00,123]``
"""

import re

from gpudoctor.explain.knowledge import Pattern

ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])")

_PREFIXES = [
    r"\[(?:rank|default|local_rank|node)?\d+\]\s*:?",           # [rank3]: [default0]: [1]:
    r"(?:rank)?\d{1,5}:(?=\s)",                                  # srun -l '0: ', 'rank0: '
    r"\[\d+,\d+\]<std(?:out|err)>:",                             # Open MPI --tag-output
    r"\(\w+ pid=\d+(?:, ip=[\d.]+)?\)",                          # Ray
    r"\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?(?:\s*[-|,:]\s)?",  # ISO
    r"\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?(?:\s*[-|]\s)?",           # 12:00:01.123
    r"[A-Z][a-z]{2}\s+\d{1,2} \d\d:\d\d:\d\d [\w.-]+ [\w./-]+(?:\[\d+\])?:",  # syslog
    r"\[\s*\d+\.\d+\]",                                          # dmesg [ 1234.5678]
    r"[\w.-]+:\d+:\d+(?=\s+\[\d+\])",                            # NCCL host:pid:tid
    # pdsh/deepspeed 'worker-0: ', '10.0.0.1: ': a [\w.-] name holding a digit, no '.' to start nor '..' before
    # its first digit. Written without nested repeats that overlap (the former (?:[\w-]+\.)*[\w-]*\d[\w.-]*
    # took each split of 'libnccl.so.2.libnccl.so.2...' in turn when no ':' came: 1 MiB of it 171 s of CPU,
    # red team 2026-11-26d); the same names: the run before the first digit, then the digit and the rest. Not an
    # exception's qualified class (noans22): 'urllib3.exceptions.NameResolutionError: ...' is the exception line of a
    # package whose name holds a digit (CPython's format_exception_only), not a host's output
    r"(?![\w.-]{0,200}(?:Error|Exception|Warning|Failure|Interrupt|Exit):)"
    r"(?:(?:[^\W\d]|-)+(?:\.(?:[^\W\d]|-)+)*\.?)?\d[\w.-]*:(?=\s)",
]
PREFIX = re.compile(r"^\s*(?:%s)\s*" % "|".join("(?:%s)" % p for p in _PREFIXES))
# the same over bytes, for the scanner's cheap "is this line a new record?" test
PREFIX_B = re.compile((r"\s*(?:%s)" % "|".join("(?:%s)" % p for p in _PREFIXES)).encode())

# The header of an absl / glog / c10 log record, one definition for every reader. abseil-cpp's
# (absl/log/internal/log_format.cc FormatLogPrefix: 'I1127 01:00:53.429734    8216 file.cc:12] ', the thread id '%7d');
# glog's (google/glog src/logging.cc LogMessage::Init: the year first by default since 0.6, flag log_year_in_prefix,
# 'I20250331 ...'; the thread id printed as std::this_thread::get_id() since 0.7, which libstdc++ writes as the
# pthread_t, fifteen digits on x86-64 Linux, in a field of 5); torch's c10 logger in brackets without the thread
# (c10/util/Logging.cpp: '[W1126 13:53:31.247387868 ProcessGroupNCCL.cpp:1575]'). Groups: severity letter, year
# (or None), MMDD, clock, thread id (or None), file, line. glog's own golden output checks it
# (tests/test_explain_glog_upstream.py).
GLOG_SEVERITY = r"\[?([IWEF])"
GLOG_WHEN = r"(\d{4})?(\d{4}) (\d\d:\d\d:\d\d(?:\.\d{1,9})?)"  # its date and time: year, MMDD, clock
GLOG_REST = r"(?: {1,12}(\d{1,20}))? ([\w./+-]{1,200}):(\d{1,6})\]"  # thread id, file, line
GLOG_HEAD = GLOG_SEVERITY + GLOG_WHEN + GLOG_REST


def ungrouped(rx):
    """``rx`` with its groups made non-capturing, to embed in another pattern."""
    return re.sub(r"\((?!\?)", "(?:", rx)


GLOG_HEAD_NC = ungrouped(GLOG_HEAD)


def glog_when(year, mmdd, clock):
    """origin()'s time of a glog/absl header: an ISO date when glog printed the year, else the month and day."""
    if year:
        day = "%s-%s-%s" % (year, mmdd[:2], mmdd[2:])
        return ("iso", day + "T" + clock, "%s %s" % (day, clock))
    key = "%s-%s %s" % (mmdd[:2], mmdd[2:], clock)
    return ("mmdd", key, key)

# A structured record's own level field, first in its line (wrong17): zap's JSON encoder writes '{"level":"warn",
# "ts":...' (go.uber.org/zap zapcore/json_encoder.go, LowercaseLevelEncoder), logrus 'time="..." level=warning msg=...'
# or '{"level":"info",...}' (sirupsen/logrus text_formatter.go, json_formatter.go), Go's log/slog 'time=... level=WARN
# msg=...' and '{"time":...,"level":"INFO",...}' (log/slog handler.go). The level word is the record's severity, as
# NCCL's WARN is; an error-level record keeps none (an error line).
_STRUCT_LEVEL = (r'^(?:\{(?:"(?:time|ts)"\s?:\s?(?:"[^"\n]{1,40}"|[\d.e+]{1,24})\s?,\s?)?"(?:level|lvl|severity)"\s?:\s?"'
                 r'|(?:time=(?:"[^"\n]{1,40}"|\S{1,40}) )?(?:level|lvl)=)(?i:%s)\b')

# (glog's 'I20251127 12:00:00' too: the year first with its log_year_in_prefix flag, google/glog src/logging.cc)
# Severity markers, looked for at the start of the prefix-free line (or NCCL's, anywhere in
# its first 80 characters: 'host:pid:tid [0] NCCL INFO ...').
_INFO = re.compile(r"^(?:\[\d+\]\s*)?(?:NCCL (?:INFO|TRACE)\b|\[?(?:INFO|DEBUG|TRACE|NOTICE)\b\]?"
                   r"|I\d{4}(?:\d{4})? \d\d:\d\d"
                   r"|I (?=\S+\.(?:cc|cpp|h):\d+\])"
                   r"|\[I(?: |\d{4} |\w*\s))|^\S.{0,60}?\b(?:NCCL INFO)\b|^.{0,60}?(?:[-|] INFO [-|]|\bINFO:)"
                   # Slurm's debug levels (src/common/log.c log_msg: 'debug:  ', 'debug2: ' .. 'debug5: ' after
                   # the program's name, or after the time stamp and a step's '[12.0] ' in a daemon's log
                   # file)
                   r"|^(?:(?:srun|sbatch|salloc|sattach|sbcast|scontrol|slurmd|slurmstepd|slurmctld|slurmdbd)"
                   r"(?:\[\d{1,10}\])?: )?(?:\[[^\]\n]{1,40}\] )?debug\d?: "
                   r"|" + _STRUCT_LEVEL % r"info|debug|trace")
_WARN = re.compile(r"^(?:\[\d+\]\s*)?(?:NCCL WARN\b|\[?(?:WARN|WARNING)\b\]?|W\d{4}(?:\d{4})? \d\d:\d\d"
                   r"|\[W(?: |\d{4} |\w*\s)"
                   r"|W (?=\S+\.(?:cc|cpp|h):\d+\]))"
                   r"|^.{0,60}?\bNCCL WARN\b|^.{0,60}?(?:[-|] WARN(?:ING)? [-|]|\bWARN(?:ING)?:)"
                   r"|^.{0,200}?\b\w*Warning: "
                   r"|" + _STRUCT_LEVEL % r"warn|warning")
# a structured record at warn, info or debug level (rootguard.structured_warning)
STRUCT_QUIET = re.compile(_STRUCT_LEVEL % r"warn|warning|info|debug|trace")


def clip(text, limit):
    """``text`` cut to at most ``limit`` characters at a sentence's end, else a word's, '[...]' where
    it was cut: a quote in a note or an answer never stops inside a word ('If the shutdown w.')."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text[:max(1, limit - 6)]
    end = max(cut.rfind(". "), cut.rfind("; "))
    space = cut.rfind(" ")
    if end > limit // 2:
        cut = cut[:end + 1]
    elif space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + " [...]"


def clean(text):
    """A decoded line without ANSI escapes and CR (the last \\r-separated part of a tqdm line
    is kept whole: the caller passes the part it wants)."""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    return text.replace("\r", " ").rstrip()


def strip_prefix(text):
    """(the line without its launcher/logger prefixes, whether one was removed). The indentation
    or '> ' quoting of a pasted block is removed too, but is not a prefix: every line of the
    paste has it."""
    out, removed = text.lstrip(" \t>"), False
    for _ in range(6):
        m = PREFIX.match(out)
        if not m or m.end() == 0:
            break
        if _LEVEL.match(out):
            # after a daemon log's time stamp, 'debug2: ' is Slurm's level (severity), not a host; first in its line
            # it is OpenSSH's (log.c: ssh -v / sshd -d print 'debug1: ' .. 'debug3: ') or Slurm's level too, so
            # 'debug1: load_hostkeys: fopen ...: No such file or directory' of a healthy ssh -v is an info line
            # (fixtures/explain/healthy/ssh-v-login-accepted.log), not host debug1's error
            break
        out, removed = out[m.end():], True
    return out, removed


_LEVEL = re.compile(r"\s*debug\d:")


# Who printed a line and when, from the same prefixes: (regex, what its groups are). The rank
# is a string: '3' for a global rank, 'local 3' for torchrun's '[default3]:' (a local rank).
_ORIGINS = [
    (re.compile(r"\[rank(\d{1,7})\]\s*:?"), "rank"),                  # torch: [rank3]:
    (re.compile(r"\[(?:default|local_rank)(\d{1,5})\]\s*:?"), "local"),  # torchrun --tee: [default3]:
    (re.compile(r"(?:rank)?(\d{1,7}):(?=\s)"), "rank"),                 # srun -l '3: ', 'rank3: '
    (re.compile(r"\[\d+,(\d{1,7})\]<std(?:out|err)>:"), "rank"),        # Open MPI --tag-output
    (re.compile(r"\(\w+ pid=\d+(?:, ip=([\d.]+))?\)"), "host"),          # Ray
    (re.compile(r"\[?(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:[.,]\d+)?)(?:Z|[+-]\d\d:?\d\d)?\]?"
                r"(?:\s*[-|,:]\s)?"), "iso"),
    (re.compile(r"\[?(\d\d:\d\d:\d\d(?:[.,]\d+)?)\]?(?:\s*[-|]\s)?"), "hms"),
    (re.compile(r"([A-Z][a-z]{2})\s+(\d{1,2}) (\d\d:\d\d:\d\d) ([\w.-]+) [\w./-]+(?:\[\d+\])?:"), "syslog"),
    (re.compile(r"\[\s*(\d+\.\d+)\]"), "uptime"),                        # dmesg
    (re.compile(r"([\w.-]+):\d+:\d+(?=\s+\[\d+\])"), "host"),             # NCCL host:pid:tid [dev]
    (re.compile(r"\[\d{1,3}\]"), None),                                  # NCCL's [dev] after it
    # pdsh 'worker-0: ': _PREFIXES' last pattern (linear: no overlapping nested repeats; the former
    # ((?:[\w-]+\.)*[\w-]*\d[\w.-]*) cost 0.1 s on a 4,000-digit line, read back from every traceback)
    (re.compile(r"((?:(?:[^\W\d]|-)+(?:\.(?:[^\W\d]|-)+)*\.?)?\d[\w.-]*):(?=\s)"), "host"),
    # torch / glog: '[W1123 12:00:00.123456 1234 ProcessGroupNCCL.cpp:616]'
    (re.compile(GLOG_HEAD), "glog"),
]
# one match finds which prefix comes next (then its own regex reads its groups)
_ORIGIN_ANY = re.compile("(?:%s)\\s*" % "|".join("(?P<o%d>%s)" % (i, rx.pattern) for i, (rx, _) in enumerate(_ORIGINS)))
_ORIGIN_AT = {"o%d" % i: (_ORIGIN_ANY.groupindex["o%d" % i], kind) for i, (_, kind) in enumerate(_ORIGINS)}
_GLOG = re.compile(GLOG_SEVERITY + GLOG_WHEN)  # its date and time, not closed
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


class _Groups:
    """The groups of one alternative of _ORIGIN_ANY, numbered as in its own regex."""

    __slots__ = ("m", "at")

    def __init__(self, m, at):
        self.m, self.at = m, at

    def group(self, i):
        return self.m.group(self.at + i)

    def end(self):
        return self.m.end()


def origin(text):
    """(rank, host, time) of a line from its prefixes, each None when not printed. time is
    (kind, sort key, shown): times of one kind compare (ISO dates, glog's MMDD, syslog's,
    a bare clock, dmesg's seconds since boot); kinds never compare with each other."""
    rank = host = when = None
    pos = len(text) - len(text.lstrip(" \t>"))
    match = _ORIGIN_ANY.match
    for _ in range(8):
        found = match(text, pos)
        if not found or found.end() == pos:
            break
        at, kind = _ORIGIN_AT[found.lastgroup]
        m = _Groups(found, at) if kind in ("syslog", "iso", "glog") else None
        g1 = found.group(at + 1) if kind is not None else None
        if kind == "rank" and rank is None:
            rank = str(int(g1))
        elif kind == "local" and rank is None:
            rank = "local %d" % int(g1)
        elif kind == "host" and host is None and g1 and "_" not in g1:  # mlx5_core: is no host
            host = g1
        elif kind == "glog" and when is None:
            when = glog_when(m.group(2), m.group(3), m.group(4))
        elif kind == "iso" and when is None:
            clock = m.group(2).replace(",", ".")
            when = ("iso", m.group(1) + "T" + clock, "%s %s" % (m.group(1), clock))
        elif kind == "hms" and when is None:
            clock = g1.replace(",", ".")
            when = ("hms", clock, clock)
        elif kind == "syslog":
            host = host or m.group(4)
            if when is None:
                key = "%02d-%02d %s" % (_MONTHS.get(m.group(1), 0), int(m.group(2)), m.group(3))
                when = ("mmdd", key, "%s %s %s" % (m.group(1), m.group(2), m.group(3)))
        elif kind == "uptime" and when is None:
            when = ("uptime", "%020.6f" % float(g1), "[%s]" % g1)
        pos = found.end()
    if when is None:
        m = _GLOG.match(text, pos)
        if m:
            when = glog_when(m.group(2), m.group(3), m.group(4))
    return rank, host, when


_NCCL_RETURN = re.compile(r"\.(?:cc|cu|c|h):\d+ -> [1-9]\d*\b")


def severity(body):
    """'info', 'warn' or None (an error, or a line without a marker) for a prefix-free line."""
    if _NCCL_RETURN.search(body):
        return None  # NCCL's error return chain ('init.cc:1303 -> 2'), printed at INFO level
    if _INFO.search(body):
        return "info"
    if _WARN.search(body):
        return "warn"
    return None


# A line that says something failed, when no knowledge entry explains it: it turns "no error
# found" (exit 0) into "no known error" (exit 1). Only lines that are not INFO/WARN count.
# after "error:": not a metric's value, a number with a decimal point, an exponent or a percent sign that ends
# the line or a field ('train error: 0.12, val error: 0.15', 'top1 error: 23.4% |', Progbar's '%.4e')
_METRIC = r"(?!\s{0,3}[-+]?(?:\d{1,12}(?:\.\d{1,12}(?:e[-+]?\d{1,3})?|e[-+]?\d{1,3})%?|\d{1,12}%)\s{0,3}(?:$|[,;|)\]}]|-\s))"
GENERIC_ERRORS = [
    r"Traceback \(most recent call last\)",
    # (not a metric's name and value: Keras' progress bar, keras/utils/generic_utils.py Progbar.update,
    # ' - mean_squared_error: 0.0123')
    r"\b[A-Z]\w*(?:Error|Exception)\b(?::" + _METRIC + "|$)",
    # not a metric's value ('train error: 0.12, val error: 0.15', 'top1 error: 23.4% |', Progbar's '%.4e'), nor
    # AER's corrected errors (below)
    r"\berror(?::(?! severity=Corrected\b)" + _METRIC + r"| \d+\b| code\b)",
    r"^\s*(?:fatal|error|failed|failure)\b",
    r"\b(?:fatal error|failed to|failed with|has failed|is failed|failed\b.{0,20}\b(?:error|code|status))",
    r"\bsegmentation fault\b",
    # a failed CHECK of glog / abseil (glog src/glog/logging.h, absl/log/internal/check_op.h: 'Check failed: <cond>',
    # logged at FATAL, 'F0123 ... file.cc:12] Check failed: ...'), and the stack trace both print after any FATAL
    # record ('*** Check failure stack trace: ***'): the process aborts
    r"(?:^\s{0,8}|\] )Check failed: ",
    r"^\s{0,8}\*\*\* Check failure stack trace: \*\*\*",
    r"\bcore dumped\b",
    # (SIGBUS: 'Bus error (core dumped)'; not Linux AER's 'PCIe Bus Error: severity=Corrected', an error the link
    # corrected, drivers/pci/pcie/aer.c: a note, gpu.pcie_corrected)
    r"\bbus error\b(?!: severity=Corrected\b)",
    r"\bexit(?:code| code| status)\s*[:=]?\s*-?[1-9]",
    r"\bexited with (?:code|status) -?[1-9]",
    r"\bkilled by signal\b",
    r"\b(?:undefined|unknown) symbol\b",
    r"\bcannot (?:open|find|allocate|connect|access|load)\b",
    r"\bunable to\b",
    # torch's collect_env (the issue template's environment block) prints "Could not collect" for each
    # value it could not read (torch/utils/collect_env.py pretty_str: replace_nones(..., "Could not collect"))
    r"\bcould not\b(?! collect\b)",
    r"\bpermission denied\b",
    r"\bno such file or directory\b",
    r"\bconnection refused\b",
    r"\btimed out\b",
    # (struct23) the C / C++ / Rust runtimes' own report that the process is aborting, and torch's internal assert:
    # libstdc++'s verbose terminate handler (libsupc++/vterminate.cc: 'terminate called after throwing an instance of
    # ...', 'terminate called without an active exception', 'terminate called recursively'), glibc's assert
    # (assert/assert.c __assert_fail_base: '<prog>: <file>:<line>: <function>: Assertion `<expr>' failed.'), Rust's
    # panic (library/std/src/panicking.rs: "thread '<name>' panicked at", rustc 1.95 with the thread's id:
    # "thread 'main' (22874) panicked at"), c10's TORCH_INTERNAL_ASSERT
    # (c10/util/Exception.cpp: '<cond> INTERNAL ASSERT FAILED at "<file>":<line>')
    r"\bterminate called (?:after throwing|without an active exception|recursively)",
    r"\bAssertion [`'][^\n]{0,300}' failed\.",
    r"\bthread '[^'\n]{0,100}'(?: \(\d{1,10}\))? panicked at\b",
    r"\bINTERNAL ASSERT FAILED at\b",
    # (struct23) a shell's report of a job a fault signal ended, alone on its line (bash jobs.c: strsignal()'s text;
    # 'Segmentation fault' and '(core dumped)' are counted above), and the Docker client's print of the engine's
    # refusal (moby client/errors.go: 'Error response from daemon: %s')
    r"^\s{0,8}(?:Aborted|Illegal instruction|Floating point exception|Trace/breakpoint trap|Bad system call)\s{0,8}$",
    r"\bError response from daemon: ",
]


def generic_error_patterns():
    return [Pattern("_error", "generic", src, 0) for src in GENERIC_ERRORS]


# The launcher seen in a log decides the flag names of a fix (accelerate's port flag is
# --main_process_port, torchrun's --master_port). Module paths and banners each launcher
# prints in tracebacks and start-up lines.
LAUNCHERS = {
    "accelerate": [r"accelerate launch", r"accelerate/commands/launch\.py", r"accelerate\.commands\.launch",
                   r"bin/accelerate\b"],
    "deepspeed": [r"deepspeed/launcher/(?:runner|launch)\.py", r"deepspeed\.launcher\.(?:runner|launch)",
                  r"\[launch\.py:\d+:main\]", r"\[runner\.py:\d+:main\]", r"bin/deepspeed\b"],
    "mpirun": [r"\bmpirun\b", r"\bprterun\b", r"\borted\b", r"\bhorovodrun\b", r"Open MPI", r"PMIx"],
    "torchrun": [r"torch/distributed/(?:run|launch)\.py", r"torch\.distributed\.(?:run|launch)\b", r"\btorchrun\b",
                 r"torch/distributed/elastic/", r"torch\.distributed\.elastic"],
}


def launcher_patterns():
    return [Pattern(name, "launcher", src, 0) for name, srcs in sorted(LAUNCHERS.items()) for src in srcs]
