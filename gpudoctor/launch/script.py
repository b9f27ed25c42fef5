"""`gpudoctor plan SCRIPT [ARGS...]`: the launch lines of a shell script (train.sh, run.sh,
an sbatch file), read the way bash would expand them, WITHOUT running anything.

What is read (bash(1) "EXPANSION", in bash's order, on a subset of the language): backslash
continuations; `NAME=value`, `export`/`declare`/`local`/`readonly` assignments, `+=`, arrays
`A=(x y)` and `"${A[@]}"`; `$NAME`, `${NAME}`, `${NAME:-w}`, `${NAME-w}`, `${NAME:=w}`,
`${NAME:+w}`, `${#NAME}`; the positional `$1`..`$9`, `$@`, `$#` from ARGS, `set --` and
`shift`; `$(( ))` arithmetic on known whole numbers; quoting (single quotes literal, double
quotes keep one word, unquoted expansions split on blanks: a DISTRIBUTED_ARGS string used
unquoted becomes several arguments); a heredoc fed to a shell (`bash <<EOF`, `srun bash
<<'EOS'`, `ssh host bash -s <<EOF`) read as that shell's script, other heredoc bodies skipped;
`ssh host "cmd"` read as a command line on that host; `#SBATCH` headers before the first
command (sbatch(1): "before any executable commands") give the allocation. Every command
is looked at; the ones whose program is a launcher (gpudoctor/launch/__init__.py) are planned.

What stays unknown is said, with where it comes from at run time: `$(hostname -I)` (this
node's address), `$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)` (the first
node of the allocation), SLURM_* (the allocation, known when the #SBATCH headers give it),
a value set in a branch of an `if`/`case`, anything else from the environment (with the
value it has in this shell when it has one). A launch line with unknown values is planned
twice with two different stand-ins for them: what differs between the two plans depends on
the unknown and is shown as unknown, never guessed.
"""

import ast
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from gpudoctor.collector.system import credential_pattern, credential_shape, env_shown, secret_env_name
from gpudoctor.errors import InputError, NotRegularFile, excerpt, missing, read_input

MAX_SCRIPT = 1 << 20
MAX_COMMANDS = 20000
MAX_VALUE = 1 << 16  # characters in one variable (A=$A$A doubles: bounded, never a MemoryError)
MAX_NESTING = 40  # $( $( ... ) ) and ${...} inside one another
MAX_ITERATIONS = 64  # passes of a simulated while loop
MAX_NESTED_PASSES = 256  # passes of a followed `for` in followed `for` loops, all of them together
MAX_HEREDOCS = 16  # heredocs opened by one line (`cmd <<A <<B`); their bodies are bounded by the script's size
SHELLS = ("bash", "sh", "zsh", "dash", "ksh")
# characters of expanded text one script may make, all its words together (a 1 MiB script of
# `$A` with A 60 KB long would expand to 9 GB); a real script makes a few hundred KB
MAX_EXPANDED = 16 << 20
MAX_WRITTEN = 32  # files a script writes that are kept (hostfiles), each at most MAX_VALUE characters
SSH_VALUE = set("BbcDEeFIiJLlmOopQRSWw")  # ssh(1) SYNOPSIS: the options that take a value
PDSH_VALUE = set("wxgXltufRe")  # pdsh(1): -w hosts, -x, -g, -X, -l user, -t, -u, -f, -R, -e
_PLAIN = re.compile(r"[^\\'\"$`~<>]+")
_PLAIN_DQ = re.compile(r"[^\\$`]+")
MARK = "\x00"
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NAME_RE = re.compile(NAME)
# a task's own rank: srun sets them per task (srun(1) OUTPUT ENVIRONMENT VARIABLES); Open MPI
# and PMI set the others per process
PER_TASK = ("SLURM_PROCID", "SLURM_NODEID", "SLURM_LOCALID", "SLURM_TASK_PID", "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMIX_RANK", "PMI_LOCAL_RANK")
LAUNCH_PROGS = ("torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "mpiexec.hydra", "orterun",
                "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich", "mpiexec.mpich", "horovodrun", "srun")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
HOSTISH = re.compile(r"ADDR|HOST|_IP$|^IP|MASTER$|NODELIST|NODE_LIST|HEAD|HOSTNAME|ENDPOINT")
KEYWORDS = {"then", "do", "else", "{", "!", "time", "nohup", "exec", "command", "builtin"}
# commands that run the command after their options (and operands): the options of each that
# take the next word, and how many operands come before the command (coreutils timeout.c,
# nice.c, stdbuf.c, env.c; util-linux taskset.c, ionice.c, chrt.c; numactl(8); GNU time).
# TransformerEngine's examples/pytorch/ep/run_test_ep.sh runs `timeout --foreground
# --signal=KILL "${TEST_TIMEOUT_S}" torchrun ...`: no launch line was found
WRAPPERS = {
    "env": (("-u", "--unset", "-C", "--chdir", "-S", "--split-string"), 0),
    "exec": (("-a",), 0),
    "nohup": ((), 0),
    "time": (("-f", "--format", "-o", "--output"), 0),
    "stdbuf": (("-i", "-o", "-e", "--input", "--output", "--error"), 0),
    "numactl": (("-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-i", "--interleave", "-p",
                 "--preferred", "-P", "--preferred-many", "-b", "--balancing"), 0),
    "timeout": (("-k", "--kill-after", "-s", "--signal"), 1),
    "nice": (("-n", "--adjustment"), 0),
    "ionice": (("-c", "--class", "-n", "--classdata"), 0),
    "taskset": ((), 1),
    "chrt": (("-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"), 1),
    # `nsys profile|launch [switch options] APP [ARGS]`: read in the loop below (_nsys_app)
    "nsys": ((), 0),
}
# `uv run [OPTIONS] COMMAND`: uv's options end at the command (uv's CLI reference,
# https://docs.astral.sh/uv/reference/cli/#uv-run: "All options to uv must be provided before the
# command"); those that take a value; `-m/--module MOD` runs `python -m MOD`. NVIDIA-NeMo/Megatron-Bridge's
# examples run `uv run --no-sync python -m torch.distributed.run ...`: no launch line was found
UV_RUN_VALUE = frozenset((
    "--extra", "--no-extra", "--group", "--no-group", "--only-group", "--with", "--with-editable",
    "--with-requirements", "--package", "--env-file", "--index", "--default-index", "--index-url", "-i",
    "--extra-index-url", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution",
    "--prerelease", "--fork-strategy", "--exclude-newer", "--exclude-newer-package", "--no-build-isolation-package",
    "--config-setting", "-C", "--config-settings-package", "--link-mode", "--refresh-package", "--reinstall-package",
    "--upgrade-package", "-P", "--no-binary-package", "--no-build-package", "--python", "-p", "--python-platform",
    "--directory", "--project", "--config-file", "--cache-dir", "--color", "--allow-insecure-host", "--group-file",
    "--no-group-file"))
OPENERS = {"if", "while", "until", "case", "for", "select"}
SPOOL = "slurmd's spool directory"  # where slurmd runs its copy of a batch script: $0 there
UNDECIDED = "undecided"  # a guard (&&, ||) whose test is decided only at run time
CLOSERS = {"fi", "done", "esac"}
GROUP_OPEN, GROUP_CLOSE = {"{", "if", "case"}, {"}", "fi", "esac"}  # compound commands an && / || guard holds over


class _ScriptEnd(Exception):
    """An `exit` or `exec CMD` that surely runs: the shell reading the text stops (Reader.run_text)."""


class Fields(list):
    """Words an expansion already split as bash does (the default word of an unquoted ${X:-'a b'})."""


@dataclass
class Unknown:
    text: str  # what the script says: $(hostname -I), $SLURM_PROCID, $1
    why: str  # where it comes from at run time
    here: Optional[str] = None  # what it would be from this shell
    fixed: Optional[str] = None  # the value it takes although it looks per-node (batch shell)
    host: bool = False  # stands for a host name (stand-ins must pass the host-name rule)
    once: bool = False  # a task's own rank, expanded once by the batch shell
    given: bool = False  # known: an argument of the script, or the allocation's (#SBATCH)
    optional: bool = False  # words bash passes or not (appended in a branch decided at run time): planned without


@dataclass
class Launch:
    line: int
    argv: List[str]
    shown: str  # the expanded line, unknowns as the script wrote them
    unknown: List[Unknown] = field(default_factory=list)
    plan: object = None
    refused: Optional[str] = None
    blocked: Optional[str] = None  # bash would not run the command (a redirection that fails): the refusal
    findings: List[str] = field(default_factory=list)
    varies: List[str] = field(default_factory=list)  # plan fields that depend on an unknown
    argv_shown: Optional[List[str]] = None  # argv as `shown` writes it (no internal stand-in marks): the JSON's
    via_shell: bool = False  # in `srun bash -c '...'`: each task's own shell expanded it
    in_batch: bool = False  # run by the batch shell itself (an sbatch file, no srun in front): on the first node only
    # each task rank the batch shell expanded once (Unknown.once, by its text) -> the plan fields
    # that change when it takes another value: where the launcher reads it ([]: nowhere)
    once_uses: Dict[str, List[str]] = field(default_factory=dict)
    written: Dict[str, str] = field(default_factory=dict)  # files the script wrote before this line
    no_args: bool = False  # its words read the script's arguments ("$@", $1), and the plan was given none
    empties: Dict[str, int] = field(default_factory=dict)  # names it expanded that the script set to nothing: line
    # the job this line runs in where it is not the script's own (`sbatch --wrap CMD`: the job sbatch's options ask for)
    alloc: Optional[Dict[str, object]] = None
    # `srun [opts] X.sh` whose X.sh was read here and starts no launcher and no python: srun's tasks each run it
    task_script: Optional[str] = None
    remote: Optional[str] = None  # the host `ssh HOST CMD` started it on (as shown), None for this machine's shell


@dataclass
class Script:
    path: str
    args: List[str]
    allocation: Dict[str, object] = field(default_factory=dict)
    from_allocation: Dict[str, str] = field(default_factory=dict)
    launches: List[Launch] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    variables: Dict[str, str] = field(default_factory=dict)  # the last known value of every name
    # the texts read (the script, the files it sources): which '; ' of a note is the script's (render_script)
    texts: List[str] = field(default_factory=list, repr=False)

    def to_json(self):
        return {
            "schema": "gpudoctor.script/1",
            "script": self.path,
            "args": list(self.args),
            "allocation": dict(self.allocation),
            "from_allocation": dict(self.from_allocation),
            "launches": [{
                "line": l.line, "argv": _launcher_argv(l)[1], "env": _launcher_argv(l)[0], "command": l.shown,
                "unknown": [{"text": u.text, "from": u.why, "here": u.here} for u in l.unknown if not u.given],
                "known": [{"text": u.text, "value": u.fixed, "from": u.why} for u in l.unknown if u.given],
                "depends_on_unknown": list(l.varies),
                "plan": l.plan.to_json() if l.plan is not None else None,
                "refused": l.refused, "findings": list(l.findings)} for l in self.launches],
            "notes": list(self.notes),
        }


def _secret(name, value):
    """Whether NAME=VALUE is a secret the plan never prints: NAME reads as a credential's (collector/system.py
    secret_env_name: a part of it holds TOKEN, SECRET, PASS, KEY..., not a word of its own such as Chinese-LLaMA-
    Alpaca-2's `chinese_tokenizer_path`, which was written back as $chinese_tokenizer_path where bash passes the
    path), or VALUE has a credential's shape whatever its name (collector/system.py credential_shape: hf_..., ghp_...,
    AKIA..., sk-..., a JWT, a URL's password). A whole number in a *TOKENS* name is a count of tokens
    (Megatron-DeepSpeed's LR_DECAY_TOKENS=260000000000, TRAIN_TOKENS, MAX_NEW_TOKENS), not a credential: kept, it
    was written back as $LR_DECAY_TOKENS wherever those digits stood, a word bash never passes."""
    return secret_env_name(name, count=bool(re.match(r"^[0-9][0-9_]*$", value)), path=value.startswith("/")) or \
        credential_shape(value)


_STAR_CHAR = re.compile(r"\*")  # a pattern token: the character *, quoted or escaped (a bare "*" is the star)


def _glob_ends(toks, value):
    """f(b): a bit set of the ends e such that the pattern tokens (Reader._glob) match value[b:e] whole. One pass of
    bit operations per token (a star: every end from the first reached on; a character: the reached ends whose
    character passes, moved on by one), so a pattern of many stars costs no more than its length."""
    n, full = len(value), (1 << (len(value) + 1)) - 1
    masks = []
    for t in toks:
        if t == "*":
            masks.append(None)
            continue
        mask = 0
        for j, ch in enumerate(value):
            if t is None or (t == ch if isinstance(t, str) else t.fullmatch(ch)):
                mask |= 1 << j
        masks.append(mask)

    def ends(b):
        reach = 1 << b
        for mask in masks:
            if not reach:
                return 0
            if mask is None:
                reach = full & ~((reach & -reach) - 1)
            else:
                reach = (reach & mask) << 1 & full
        return reach

    return ends


def _launcher_argv(l):
    """(the NAME=value words in front of the launcher, the launcher's own argv) of a launch line as
    the JSON writes it: `CUDA_VISIBLE_DEVICES=0,1 accelerate launch ...` and `env N=v torchrun ...`
    put N=v in the launcher's environment, not in its argv (bash(1) SIMPLE COMMAND EXPANSION)."""
    argv = list(l.argv if l.argv_shown is None else l.argv_shown)
    k = 0
    while k < len(argv) - 1 and re.match("^" + NAME + "=", argv[k]):
        k += 1
    return argv[:k], argv[k:]


# ------------------------------------------------------------------ lexing

def _logical_lines(text):
    """(first line number, text, heredocs) of each logical line (_logical_lines_q)."""
    return [x[:3] for x in _logical_lines_q(text)]


def _logical_lines_q(text):
    """(first line number, text, heredocs, unclosed) for each line after joining backslash-newline
    (outside single quotes), lines inside an open quote or an array `NAME=(` not closed yet.
    A heredoc's body is taken out of the script's lines and given with the line that opens it:
    [{"delim", "quoted", "body", "line"}], in the order of its `<<` operators. Each physical line
    is scanned once (a quote left open at the top of a 1 MiB file costs one pass, not one pass
    per line). unclosed: (the line, the quote) of a quote the file never closes, else None."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        start, parts, inner = i + 1, [], []
        q, depth, opened = None, 0, None
        counting = bool(re.match(r"^\s*(?:export\s+|declare\s+-a\s+|local\s+)?" + NAME + r"\+?=\(", lines[i]))
        sub = [0, None]
        while i < len(lines):
            line = lines[i]
            i += 1
            before = q
            opened_sub = sub[0]
            sub[1] = 0 if opened_sub else None
            q, depth, comment = _scan(line, q, depth, counting, sub)
            if q is not None and before is None:
                opened = i  # the physical line a quote still open was opened on
            trailing = len(line) - len(line.rstrip("\\"))
            # bash keeps a backslash-newline in $'...' as written, and continues no comment line (a
            # comment's trailing backslash is the comment's: `#python run_clm.py \` above the line that replaced it)
            if trailing % 2 == 1 and q not in ("'", "$'") and not comment:
                parts.append(line[:-1])  # backslash-newline: the next line continues this word
                continue
            parts.append(line)
            if q is None and sub[0] > 0 and sub[1] is not None and "<<" in line[sub[1]:]:
                # `X=$(cat <<EOF` ... `EOF` `)`: a here-document inside a command substitution is the
                # substitution's (bash(1) Command Substitution); its body lines are no commands of the script. They
                # are kept apart (inner, shown by a stand-in) so no quote in them is scanned
                for word, strip in _heredoc_words(line[sub[1]:]):
                    end = re.sub(r"""\\(.)|['"]""", lambda m: m.group(1) or "", word)
                    body, first = [], i + 1
                    while i < len(lines) and (lines[i].lstrip("\t") if strip else lines[i]) != end:
                        body.append(lines[i].lstrip("\t") if strip else lines[i])
                        i += 1
                    i += 1
                    inner.append({"delim": end, "quoted": bool(re.search(r"""['"\\]""", word)),
                                  "body": "\n".join(body) + "\n", "line": first, "inner": True})
                    parts.append("\n%sH%d%s" % (MARK, len(inner) - 1, MARK))
            if q is None and not (counting and depth > 0) and sub[0] <= 0:
                break
            parts.append("\n")
        cur = "".join(parts)
        docs = list(inner)
        for word, strip in (_heredoc_words(cur) if "<<" in cur else []):
            # bash(1) Here Documents: the delimiter is the word after quote removal; any quoted
            # character in it means the body is not expanded; `<<-` strips leading tabs from the
            # body's lines and the delimiter line
            end = re.sub(r"""\\(.)|['"]""", lambda m: m.group(1) or "", word)
            quoted = bool(re.search(r"""['"\\]""", word))
            body, first = [], i + 1
            while i < len(lines) and (lines[i].lstrip("\t") if strip else lines[i]) != end:
                body.append(lines[i].lstrip("\t") if strip else lines[i])
                i += 1
            if i >= len(lines) and body and body[-1] == "":
                body.pop()  # the end of the file delimits it (bash): the text's final newline is no line of it
            i += 1
            docs.append({"delim": end, "quoted": quoted, "body": "\n".join(body) + "\n", "line": first})
        # a quote the file never closes: bash stops there with a syntax error ("unexpected EOF
        # while looking for matching `\"'") and runs nothing of that command
        unclosed = (opened or start, q) if q is not None and i >= len(lines) else None
        out.append((start, cur, docs, unclosed))
    return out


def _heredoc_words(cur):
    """(delimiter word as written, strip tabs) for each `<<` / `<<-` of a logical line, as
    lex() finds them (outside quotes and comments; `<<<` is a here-string, not one)."""
    toks = lex(cur)
    found = []
    for k, (kind, t) in enumerate(toks):
        if kind == "op" and t in ("heredoc", "heredoc-"):
            word = next((w for kk, w in toks[k + 1:k + 3] if kk == "w"), None)
            if word is not None:
                found.append((word, t == "heredoc-"))
    return found[:MAX_HEREDOCS]


def _scan(line, q, depth, count_parens, sub=None):
    """The quote still open, the parenthesis depth after one physical line, and whether it ends in
    a comment. sub: [the depth of $( still open outside quotes, where on this line the first one's text begins]
    (a `$(cat <<EOF` whose here-document follows: _logical_lines_q)."""
    k, n = 0, len(line)
    while k < n:
        c = line[k]
        if q is None:
            if sub is not None:
                if c == "$" and line[k + 1:k + 2] == "(":
                    two = line[k + 2:k + 3] == "("
                    sub[0] += 2 if two else 1  # $(( )): both parentheses close it
                    if count_parens:
                        depth += 2 if two else 1  # (an array's own count, as before: its `)` are counted too)
                    if sub[0] <= 2 and sub[1] is None:
                        sub[1] = k + 2
                    k += 3 if two else 2
                    continue
                if c == "(" and sub[0] > 0:
                    sub[0] += 1
                elif c == ")" and sub[0] > 0:
                    sub[0] -= 1
            if c == "\\":
                k += 2
                continue
            if c == "#" and (k == 0 or line[k - 1] in " \t;&|("):
                return q, depth, True  # a comment, to the end of the line
            if c == "$" and line[k + 1:k + 2] == "$":
                k += 2  # $$ (the shell's PID): a quote after it is a plain one
                continue
            if c == "$" and line[k + 1:k + 2] == "'":
                q = "$'"  # $'...': a backslash escapes the quote (bash(1) QUOTING, ANSI-C quoting)
                k += 2
                continue
            if c in "'\"":
                q = c
            elif count_parens and c == "(":
                depth += 1
            elif count_parens and c == ")":
                depth -= 1
        elif q == "'":
            if c == "'":
                q = None
        elif q == "$'":
            if c == "\\":
                k += 2
                continue
            if c == "'":
                q = None
        else:
            if c == "\\":
                k += 2
                continue
            if c == '"':
                q = None
            elif c == "$" and line[k + 1:k + 2] == "{":
                # "${V//"/"/_}": quotes inside a ${...} in double quotes nest (bash(1) Parameter Expansion); one
                # closed on this line is skipped whole, so its inner quotes do not end the double quote
                j = _skip_balanced(line, k + 1, "{", "}", missing=-1)
                if j > 0:
                    k = j
                    continue
        k += 1
    return q, depth, False


MAX_QUOTE_NESTING = 200  # scans of quotes and substitutions inside one another (a "${X:-"..."}" level is two)


def _nested_too_deep():
    raise InputError("the script nests quotes and $(...)/${...} more than %d deep: not read (no launch script "
                     "does)" % (MAX_QUOTE_NESTING // 2))


def _skip_balanced(s, i, open_, close, missing=None, nest=0):
    """Index after the `close` that balances s[i] == open_ (quotes respected); `missing` (default len(s)) where s
    does not close it. nest: how deep this scan is inside others (bounded: a line of 3,000 `"$(` was a
    RecursionError, exit 3)."""
    if nest > MAX_QUOTE_NESTING:
        _nested_too_deep()
    depth, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "$" and s[i + 1:i + 2] in ("'", "$"):
            i = _ansi_c_end(s, i) if s[i + 1] == "'" else i + 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_dq(s, i + 1, nest + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n if missing is None else missing


_ANSI_C = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c_end(s, i):
    """Index after the quote closing the $'...' at s[i] (len(s) if none): inside it a backslash
    escapes any character, `\\'` included (bash(1) QUOTING)."""
    j, n = i + 2, len(s)
    while j < n and s[j] != "'":
        j += 2 if s[j] == "\\" else 1
    return min(j + 1, n)


def _ansi_c(s, i):
    """(text, next index) of the $'...' quote at s[i] (bash(1) QUOTING: \\n, \\t, \\xHH, \\NNN, ...)."""
    out, j, n = [], i + 2, len(s)
    while j < n and s[j] != "'":
        if s[j] == "\\" and j + 1 < n:
            c = s[j + 1]
            m = re.match(r"x([0-9a-fA-F]{1,2})|([0-7]{1,3})", s[j + 1:j + 4])
            if c in _ANSI_C:
                out.append(_ANSI_C[c])
                j += 2
            elif m:
                out.append(chr(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8) & 0xFF))
                j += 1 + len(m.group(0))
            else:
                out.append(s[j:j + 2])  # an escape bash keeps as written
                j += 2
        else:
            out.append(s[j])
            j += 1
    return "".join(out), j + 1


def _unescaped(s, what, i):
    """The index of the first `what` in s from i that no backslash escapes, else -1."""
    k = s.find(what, i)
    while k > 0 and (len(s[:k]) - len(s[:k].rstrip("\\"))) % 2 == 1:
        k = s.find(what, k + 1)
    return k


def _skip_dq(s, i, nest=0):
    if nest > MAX_QUOTE_NESTING:
        _nested_too_deep()
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and s[i + 1:i + 2] == "(":
            i = _skip_balanced(s, i + 1, "(", ")", nest=nest + 1)
            continue
        if c == "$" and s[i + 1:i + 2] == "[":
            i = _skip_balanced(s, i + 1, "[", "]", nest=nest + 1)
            continue
        if c == "$" and s[i + 1:i + 2] == "{":
            # a ${...} inside double quotes is read to its own }: quotes in it nest, "${V//"/"/_}" is one quoted
            # word (bash(1) Parameter Expansion; bash 5.2 prints a_b_c for V=a/b/c)
            i = _skip_balanced(s, i + 1, "{", "}", nest=nest + 1)
            continue
        if c == "`":
            j = s.find("`", i + 1)
            i = n if j < 0 else j + 1
            continue
        i += 1
    return n


def _unquoted_index(s, what, i=0):
    """The index of the first `what` in s from i outside quotes, escapes and $(...)/${...}/`...` (len(s) if
    none): where ${V/pattern/string}'s pattern ends ("${V//"/"/_}": its pattern is a quoted /)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == what:
            return i
        if c == "\\":
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
        elif c == '"':
            i = _skip_dq(s, i + 1)
        elif c == "$" and s[i + 1:i + 2] in ("(", "{", "["):
            i = _skip_balanced(s, i + 1, s[i + 1], {"(": ")", "{": "}", "[": "]"}[s[i + 1]])
        elif c == "`":
            j = s.find("`", i + 1)
            i = n if j < 0 else j + 1
        else:
            i += 1
    return n


def lex(s):
    """Words (raw, quotes kept) and operators of one logical line. A word is built as a list of
    pieces, joined once (adding to a str copied the word per character: a line of 300,000
    escaped characters took 6 s)."""
    toks, i, n = [], 0, len(s)
    word = None  # None outside a word, else the list of its pieces
    while i < n:
        c = s[i]
        if c in " \t\n":
            if word is not None:
                toks.append(("w", "".join(word)))
                word = None
            if c == "\n":
                toks.append(("op", ";"))
            i += 1
            continue
        if c == "(" and s[i + 1:i + 2] == "(" and (word is None or "".join(word) == "for"):
            # `(( RANK=RANK+1 ))`: an arithmetic command (bash(1) Compound Commands), one word; after `for` (with or
            # without a blank: `for((i=0;i<N;i++))`) the arithmetic for loop's `((init; test; step))`, one word too
            if word is not None:
                toks.append(("w", "for"))
                word = None
            j = _skip_balanced(s, i, "(", ")")
            toks.append(("w", s[i:j]))
            i = j
            continue
        if c == "#" and word is None:
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "<>" and s[i + 1:i + 2] == "(":
            # a process substitution, <(list) or >(list), anywhere in a word: one word, bash passes /dev/fd/N for it
            # (bash(1) Process Substitution; `echo a=<(true)` prints a=/dev/fd/63). It was read as a redirection
            # and the list's words as the command's: `exec 3< <(echo hi) torchrun a.py` planned `hi torchrun a.py`
            # (script23's leftover), `--f <(echo a)` passed `a`
            j = _skip_balanced(s, i + 1, "(", ")")
            word = [] if word is None else word
            word.append(s[i:j])
            i = j
            continue
        if c in ";&|()<>" and not (c in "<>" and word is not None and False):
            if c in "<>" or (c == "&" and s[i + 1:i + 2] == ">"):
                # a redirection: its target word is not an argument
                if word is not None and "".join(word).isdigit():
                    word = None
                if word is not None:
                    toks.append(("w", "".join(word)))
                    word = None
                j = i
                while j < n and s[j] in "<>&":
                    j += 1
                if s[i:j] == "<<" and s[j:j + 1] == "-":
                    j += 1  # `<<-`: a heredoc whose leading tabs are stripped
                if s[i:j] in ("<<", "<<-"):
                    toks.append(("op", "heredoc" if s[i:j] == "<<" else "heredoc-"))
                toks.append(("op", {">": "redir>", ">>": "redir>>", ">|": "redir>", "<": "redir<"}.get(
                    s[i:j], "redir")))
                i = j
                continue
            if word is not None:
                toks.append(("w", "".join(word)))
                word = None
            two = s[i:i + 2]
            if two in ("&&", "||", ";;"):
                toks.append(("op", two))
                i += 2
            else:
                toks.append(("op", c))
                i += 1
            continue
        word = [] if word is None else word
        if c == "\\":
            word.append(s[i:i + 2])
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            j = n if j < 0 else j + 1
            word.append(s[i:j])
            i = j
        elif c == '"':
            j = _skip_dq(s, i + 1)
            word.append(s[i:j])
            i = j
        elif c == "$" and s[i + 1:i + 2] == "$":
            word.append("$$")  # the PID: a quote after it is a plain one
            i += 2
        elif c == "$" and s[i + 1:i + 2] == "'":
            j = _ansi_c_end(s, i)  # $'it\'s': the escaped quote does not end it
            word.append(s[i:j])
            i = j
        elif c == "$" and s[i + 1:i + 2] == "(":
            j = _skip_balanced(s, i + 1, "(", ")")
            word.append(s[i:j])
            i = j
        elif c == "$" and s[i + 1:i + 2] == "{":
            j = _skip_balanced(s, i + 1, "{", "}")
            word.append(s[i:j])
            i = j
        elif c == "$" and s[i + 1:i + 2] == "[":
            j = _skip_balanced(s, i + 1, "[", "]")  # $[expr]: bash's old arithmetic expansion, one word
            word.append(s[i:j])
            i = j
        elif c == "`":
            j = s.find("`", i + 1)
            j = n if j < 0 else j + 1
            word.append(s[i:j])
            i = j
        elif c == "=" and s[i + 1:i + 2] == "(" and re.match("^" + NAME + r"\+?$", "".join(word)):
            j = _skip_balanced(s, i + 1, "(", ")")  # NAME=(array items)
            word.append(s[i:j])
            i = j
        else:
            word.append(c)
            i += 1
    if word is not None:
        toks.append(("w", "".join(word)))
    return toks


# ------------------------------------------------------------------ the reader

class Reader:
    def __init__(self, path, args, environ=None, batch=False):
        self.path = path
        self.env_here = dict(os.environ if environ is None else environ)
        self.vars = {}  # name -> str (may hold unknown marks) or list (array)
        self.exported = set()
        self.integers = set()  # names given the integer attribute (`declare -i N`): assignments are arithmetic
        self.scopes = []  # per function call running: name -> its value before the call's `local` (None: unset)
        self.parens = []  # each `(` open: the shell state before it where it starts a subshell, else None
        self.piped = False  # the command read last ended with `|`: the next one is a pipeline's element too
        self.unknowns = []
        self.positional = list(args)
        self.no_args = not args
        self.texts = 0  # texts being read inside one another (run_text): the script's own is the first
        self.alone = False  # reading a function never called, on its own (read_script)
        self.args_unknown = None  # why the arguments are known only at run time (a shift / set -- in a branch)
        self.stdin = None  # the heredoc fed to the command being read: {"delim", "quoted", "body", "line"}
        self.out = None  # its output redirection: (">" or ">>", the target word as written)
        self.ins = []  # its input redirections' target words (`<FILE`), as written
        self.set_empty = {}  # name -> the line that set it to nothing (`n_gpus=`: a template's value to fill in)
        self.empty_reads = set()  # such names the command being read expanded
        self.written = {}  # files the script writes (cat/echo/printf > file): path -> text, bounded
        self.result = Script(path=path, args=list(args))
        self.batch = batch  # an sbatch file: the batch shell runs it once, on the first node
        # if/elif/else/fi, loops and case, each {kind, cur, any, unk}: cur True (this branch
        # runs), False (it does not: the test is decided by known values), None (decided at
        # run time: a value set there may not be the one used)
        self.frames = []
        self.case_pattern = False
        self.line = 0
        self.commands = 0
        self.expanded = 0  # characters of expanded text so far (_spend, MAX_EXPANDED)
        self.remote = None  # the host whose shell reads what is read now (ssh/pdsh), None for this one
        self.secrets = {}  # value -> NAME, for each value a secret-looking name was given (assign)
        self.depth = 0  # eval / source nesting
        self.nesting = 0  # command substitutions inside one another
        self.guard = None  # the next command runs only if (True/False/UNDECIDED) after && or ||; None: no guard
        self.guard_dep = False  # that guard was decided by reading an argument not given (argdep below)
        # reads of a script argument not given (and of $#, $@, $* when none was given): a test that read one is
        # decided only because the plan has no arguments (`[ -z "$1" ] && exit 1`), so an exit it guards is not
        # followed (argdep on the frame)
        self.arg_reads = 0
        self.last_test_argdep = False
        self.inner_docs = []  # the here-documents of `$(cat <<EOF ...)` substitutions (_logical_lines_q)
        self.gdep_now = False
        self.status = None  # with a guard: the and-or list's status so far (True/False, None: decided at run time)
        self.functions = {}  # name -> the tokens of its body
        self.called = set()
        self.pending_func = None
        self.task_progs = None  # inside `srun bash -c STRING`: the python programs the string runs
        self.cwd = None  # the directory after the script's own `cd` (None: where it was started)

    @property
    def cond(self):
        return any(f["cur"] is None for f in self.frames)

    @property
    def skipping(self):
        return any(f["cur"] is False for f in self.frames)

    def _if_test(self, words):
        """An `if` / `elif` condition: a test, or the builtins `true`, `:` and `false` alone (`if false; then` keeps a
        block from running; launch23's fuzz against bash), `!` negating them."""
        r = self.test(words)
        w = [x for x in words if x != ";"]
        neg = w[:1] == ["!"]
        if r is None and len(w) == 1 + neg and w[neg] in ("true", ":", "false"):
            r = (w[neg] != "false") != neg
        return r

    def test(self, words):
        """_test, and whether it read an argument not given (last_test_argdep)."""
        before = self.arg_reads
        try:
            return self._test(words)
        finally:
            self.last_test_argdep = self.arg_reads != before

    def _test(self, words):
        """True, False or None (not decidable here) for `[ ... ]`, `[[ ... ]]`, `test ...`
        with known operands: = == != -eq -ne -lt -le -gt -ge, -z, -n, a lone word."""
        import fnmatch

        neg = False
        w = list(words)
        if w[:1] == ["!"]:
            neg, w = True, w[1:]
        if w and w[0].startswith("((") and w[-1].endswith("))"):
            # `if (( ${#EXTRA_ARGS[@]} > 0 ))`: true where the arithmetic is not 0 (bash(1) ((expression)); FastVideo
            # examples/train/run_slurm.sh; launch26)
            v = self.arith(" ".join(w)[2:-2])
            if MARK in v or not re.match(r"^-?[0-9]+$", v):
                return None
            return (int(v) != 0) != neg
        if not w or w[0] not in ("[", "[[", "test"):
            return None
        close = {"[": "]", "[[": "]]"}.get(w[0])
        body = w[1:]
        if close:
            if not body or body[-1] != close:
                return None
            body = body[:-1]
        if body[:1] == ["!"]:
            neg, body = not neg, body[1:]
        quoted = [b[:1] in ("'", '"') for b in body]

        def given(v):  # an argument not given is empty to bash's test (`[ -z "$2" ]` picks the default)
            return re.sub(MARK + r"(\d+)" + MARK, lambda m: "" if self.unknowns[int(m.group(1))].why.endswith(
                "not given here") else m.group(0), v)

        if close == "]]":  # [[ ]] splits no word (bash(1) [[ expression ]])
            vals = [given(self.resolve(" ".join(self.expand(b, split=False)))) for b in body]
        else:
            # `[` and `test` are commands: their words are split, and an unquoted one that expands to nothing is no
            # word at all (E empty: `[ -n $E ]` is `[ -n ]`, true; mutation round 17, against bash)
            vals = [given(self.resolve(f)) for b in body for f in self.expand(b, split=True)
                    if not ("'" not in b and '"' not in b and given(self.resolve(f)) == "")]
        if any(MARK in v for v in vals):
            return None
        r = None
        if len(vals) == 1:
            r = vals[0] != ""
        elif len(vals) == 2 and vals[0] in ("-z", "-n"):
            r = (vals[1] == "") if vals[0] == "-z" else (vals[1] != "")
        elif len(vals) == 3:
            a, op, b = vals
            if op in ("=", "=="):
                r = fnmatch.fnmatchcase(a, b) if close == "]]" and not quoted[2] else a == b
            elif op == "!=":
                r = not (fnmatch.fnmatchcase(a, b) if close == "]]" and not quoted[2] else a == b)
            elif op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
                if not (re.match(r"^-?[0-9]{1,18}$", a) and re.match(r"^-?[0-9]{1,18}$", b)):
                    return None
                x, y = int(a), int(b)
                r = {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]
        if r is None:
            return None
        return not r if neg else r

    # -------------------------------------------------------------- unknowns
    def unknown(self, text, why, here=None, fixed=None, host=False, once=False, given=False, optional=False):
        for i, u in enumerate(self.unknowns):
            if (u.text, u.why, u.fixed, u.optional) == (text, why, fixed, optional):
                return "%s%d%s" % (MARK, i, MARK)
        self.unknowns.append(Unknown(text, why, here, fixed, host or bool(HOSTISH.search(text.upper())), once,
                                     given, optional))
        return "%s%d%s" % (MARK, len(self.unknowns) - 1, MARK)

    def marks(self, s):
        return [self.unknowns[int(m)] for m in re.findall(MARK + r"(\d+)" + MARK, s)]

    def resolve(self, s):
        """Known stand-ins (arguments, the allocation's values) replaced by their values."""
        def one(m):
            u = self.unknowns[int(m.group(1))]
            return u.fixed if u.given else m.group(0)

        return re.sub(MARK + r"(\d+)" + MARK, one, s)

    def shown(self, s):
        """The text with unknowns as the script wrote them, known arguments by their value.
        A `$NAME` followed by a character of a name is written `${NAME}`, and a positional
        parameter past 9 `${10}`: bash reads `$NAME_x` as the variable NAME_x and `$13` as
        `${1}3` (bash(1), Parameter Expansion: "The braces are required when parameter is a
        positional parameter with more than one digit, or when parameter is followed by a
        character which is not to be interpreted as part of its name"; GLM's
        ds_finetune_superglue.sh `EXPERIMENT_NAME=${EXPERIMENT_NAME}_${DATESTR}` was shown
        `$EXPERIMENT_NAME_$(date ...)`, Pai-Megatron-Patch's `${13}` as `$13`; launch24)."""
        parts = re.split(MARK + r"(\d+)" + MARK, s)
        if len(parts) == 1:
            return s
        out, bare = [], []
        for j, p in enumerate(parts):
            if j % 2 == 0:
                out.append(p)
                continue
            u = self.unknowns[int(p)]
            t = u.fixed if u.given else u.text
            m = None if u.given else re.match(r"^\$([A-Za-z_][A-Za-z0-9_]*|[0-9]+)$", t)
            if m:
                bare.append((len(out), m.group(1)))
            out.append(t)
        for k, name in bare:
            after = next((x for x in out[k + 1:] if x), "")
            nxt = r"[0-9]" if name.isdigit() else r"[A-Za-z0-9_]"
            if (name.isdigit() and len(name) > 1) or re.match(nxt, after):
                out[k] = "${%s}" % name
        return "".join(out)

    # -------------------------------------------------------------- variables
    def get(self, name):
        if name in self.vars:
            v = self.vars[name]
            return " ".join(v) if isinstance(v, list) else v
        if name in PER_TASK and self.batch:
            # the batch shell is task 0 of node 0 of the allocation: srun(1) sets these per
            # task, the batch script sees its own
            return self.unknown("$" + name, "a task's own rank, but expanded here by the batch shell, once: 0 on "
                                            "every node", fixed="0", once=True)
        alloc = self.result.from_allocation.get(name)
        if alloc is not None:
            return self.unknown("$" + name, alloc, fixed=str(self.result.allocation["env"][name]), given=True)
        if name in PER_TASK:
            return self.unknown("$" + name, "each task's own rank (set by its launcher)")
        if name.startswith("SLURM_"):
            return self.unknown("$" + name, "the Slurm allocation at run time", here=self.here(name))
        if name in ("RANDOM", "SRANDOM"):
            return self.unknown("$" + name, "a random number at run time")
        if name in ("HOSTNAME",):
            return self.unknown("$HOSTNAME", "this node's name at run time", here=self.here(name), host=True)
        if name in ("PWD",):
            if self.cwd is not None:
                return self.cwd
            return self.unknown("$PWD", "the directory the script runs in", here=os.getcwd())
        return self.unknown("$" + name, "the environment at run time", here=self.here(name))

    def here(self, name):
        """NAME's value in this shell, as the plan prints it ("from this shell: ..."): only for
        a name the facts show too (collector/system.py env_shown: an allow-list, never a
        secret-looking name); another variable that is set is said to be set, its value not
        printed (a script passes tokens on: `--token $HF_TOKEN` printed the token)."""
        value = self.env_here.get(name)
        if not value or env_shown(name):
            return value
        return "set (value not shown: not an allow-listed name)"

    def assign(self, name, value, append=False):
        if value == "" and not append and not self.cond:
            self.set_empty[name] = self.line
        else:
            self.set_empty.pop(name, None)
        if append and name in self.vars:
            old = self.vars[name]
            if isinstance(old, list) or isinstance(value, list):
                value = (old if isinstance(old, list) else [old]) + (value if isinstance(value, list) else [value])
            else:
                value = old + value
        if any(f["kind"] == "loop" and f["cur"] is None for f in self.frames):
            # an argument-parsing loop (while [[ $# -gt 0 ]]; do case $1 in ...): which
            # iteration sets it, and to what, is decided at run time
            value = self.unknown("$" + name, "set in a loop (line %d)" % self.line)
        elif self.cond and name in self.vars and self.vars[name] != value and _appends_words(self.vars[name], value):
            # words appended in a branch decided at run time (smollm's templates_with_launcher train.slurm: `if [ !
            # -z "$GRAD_ACC" ]; then LAUNCHER="${LAUNCHER} --gradient_accumulation_steps ${GRAD_ACC}"`): the words
            # before stay known, the words appended are one unknown that bash passes or not (launch25; the whole
            # command was unknown, and no launch line was planned)
            before = self.vars[name]
            tail = value[len(before):]
            t = self.shown(tail.strip())
            value = before + " " + self.unknown(
                "[%s]" % (t if len(t) <= 60 else t[:57] + "..."),
                "words appended to $%s only if the branch at line %d runs (decided at run time); planned without "
                "them" % (name, self.line), optional=True)
        elif self.cond and name in self.vars and self.vars[name] != value:
            # set in a branch (or a loop) to something else than before: which one runs is
            # decided at run time
            before = self.vars[name]
            value = self.unknown("$" + name, "set differently in a branch or loop (line %d): %s or %s" % (
                self.line, excerpt(self.shown(" ".join(before) if isinstance(before, list) else before), 30),
                excerpt(self.shown(" ".join(value) if isinstance(value, list) else value), 30)))
        for f in self.frames:
            if f["kind"] == "if" and f.get("paths") and f["cur"] is not False:
                f["paths"][-1].add(name)
        size = sum(len(v) for v in value) if isinstance(value, list) else len(value)
        if size > MAX_VALUE or (isinstance(value, list) and len(value) > MAX_VALUE // 8):
            value = self.unknown("$" + name, "a value longer than %d characters (not followed)" % MAX_VALUE)
        self.vars[name] = value
        if isinstance(value, str) and len(value) >= 6 and MARK not in value and \
                _secret(name, value):
            self.secrets[value] = name  # written back as $NAME in what the plan prints (_redact)

    # -------------------------------------------------------------- expansion
    def expand(self, raw, split=True):
        """Fields of one word: parameter, command and arithmetic expansion, then splitting
        of the unquoted parts, then quote removal (bash(1) EXPANSION)."""
        # the field being built is a list of pieces (joined once): `cur += piece` on a closure
        # cell copies the whole field each time (a line of 300,000 `\\x` took 14 s), and every
        # piece is counted against the script's expansion budget (_spend)
        fields, cur, has = [], [], False
        i, n = 0, len(raw)

        def add(piece):
            if piece:
                self._spend(len(piece))
                cur.append(piece)

        def end_field():
            fields.append("".join(cur))
            cur.clear()

        def emit(text, quoted):
            nonlocal has
            if quoted or not split:
                add(text)
                has = True
                return
            if MARK in text:
                # an unquoted argument given as '' or '  ' (or 'a b'): bash splits its value, so an empty one is no
                # word at all (bash(1) Word Splitting: "unquoted implicit null arguments ... are removed"); a
                # given value without blanks stays its stand-in (the plan says where it came from)
                text = re.sub(MARK + r"(\d+)" + MARK, self._blank_given, text)
            self._spend(len(text))  # re.split reads all of it
            parts = re.split(r"[ \t\n]+", text)
            if sum(1 for p in parts if p) > 1 and self._splits_a_secret(text):
                # the words bash splits a secret-looking value into are parts of it, which _redact (whole values
                # only) left: A=($DB_PASSWORD); ${A[1]}, `for w in $X`, `set -- $X` (docs/security.md 67.)
                mark = self.unknown(excerpt(raw, 60)[1:-1], "the words bash splits a secret-looking value into "
                                    "(not shown)")
                parts = ([""] if parts[0] == "" else []) + [mark] + ([""] if parts[-1] == "" else [])
            for k, p in enumerate(parts):
                if k > 0:
                    if has or cur:
                        end_field()
                    has = False
                if p:
                    add(p)
                    has = True

        while i < n:
            c = raw[i]
            if c == "\\":
                add(raw[i + 1:i + 2])
                has = True
                i += 2
            elif c == "'":
                j = raw.find("'", i + 1)
                j = n if j < 0 else j
                add(raw[i + 1:j])
                has = True
                i = j + 1
            elif c == '"':
                j = _skip_dq(raw, i + 1)
                inner = raw[i + 1:j - 1]
                m = re.match(r"^\$\{(" + NAME + r")\[@\](?::([0-9]{1,4})(?::([0-9]{1,4}))?)?\}$|^\$@$|"
                             r"^\$\{@(?::([0-9]{1,4})(?::([0-9]{1,4}))?)?\}$", inner)
                pre = post = ""
                if not m and ("@" in inner):
                    # "--k=$@", "x${A[@]}y": one such expansion inside other text in the quotes; bash joins the text
                    # before it to its first item and the text after it to its last ("x$@y" with a, b: xa, by), and
                    # with no items leaves the text one word (bash(1) Special Parameters, @)
                    for e in _AT_EXPANSION.finditer(inner):
                        a, b = inner[:e.start()], inner[e.end():]
                        if (len(a) - len(a.rstrip("\\"))) % 2 == 0 and all(
                                x.count("{") == x.count("}") and x.count("(") == x.count(")") and
                                x.count("`") % 2 == 0 and not _AT_EXPANSION.search(x) for x in (a, b)):
                            m, pre, post = re.match(r"^\$\{(" + NAME + r")\[@\](?::([0-9]{1,4})(?::([0-9]{1,4}))?)?"
                                                    r"\}$|^\$@$|^\$\{@(?::([0-9]{1,4})(?::([0-9]{1,4}))?)?\}$",
                                                    e.group(0)), a, b
                        break
                items = None
                if m and m.group(1) and isinstance(self.vars.get(m.group(1)), list) and not (
                        m.group(2) is not None and any(re.match("^" + MARK + r"\d+" + MARK + "$", x)
                                                       for x in self.vars[m.group(1)])):
                    # (a slice of a list with an item known only at run time, which may be several words: not here)
                    items = list(self.vars[m.group(1)])
                    if m.group(2) is not None:  # "${A[@]:1:2}": items 1 and 2, one word each
                        items = items[int(m.group(2)):]
                        items = items[:int(m.group(3))] if m.group(3) is not None else items
                elif m and not m.group(1) and not self.args_unknown:
                    items = list(self.positional)
                    if m.group(4) is not None:
                        # "${@:6}": arguments 6 on, one word each, and no word at all when there are fewer than 6
                        # (bash(1) Parameter Expansion, ${parameter:offset:length} with @; it was one empty word:
                        # launch28's measure part, DocumentLabeler tools/training_scripts/dist_train_with_params.sh)
                        off = int(m.group(4))
                        items = [self.positional_arg(0)] + items if off == 0 else items[off - 1:]
                        items = items[:int(m.group(5))] if m.group(5) is not None else items
                    if self.no_args and not self.positional:
                        self.arg_reads += 1  # "$@" of a plan given no arguments (a usage check reads it)
                if items is not None:  # "${A[@]}", "$@": one word per item
                    if pre or post:
                        pre_t, post_t = self._dq(pre), self._dq(post)
                        items = [pre_t + post_t] if not items else (
                            [pre_t + items[0]] + items[1:] if len(items) > 1 else [pre_t + items[0] + post_t])
                        if len(items) > 1:
                            items[-1] += post_t
                    for k, item in enumerate(items):
                        if k:
                            end_field()
                        add(item)
                    has = has or bool(items)
                else:
                    add(self._dq(inner))
                    has = True
                i = j
            elif c == "$" and raw[i + 1:i + 2] == "'":
                text, i = _ansi_c(raw, i)  # $'a\tb': a quote with backslash escapes
                add(text)
                has = True
            elif c == "$" or c == "`":
                text, i, is_array = self._dollar(raw, i, quoted=False)
                if isinstance(is_array, Fields):  # an unquoted ${X:-'a b'}: its quotes kept 'a b' one word
                    for k, item in enumerate(is_array):
                        if k:
                            end_field()
                        add(item)
                        has = True
                elif is_array is not None:
                    for k, item in enumerate(is_array):
                        if k:
                            end_field()
                        emit(item, False)
                else:
                    emit(text, False)
            elif c in "<>" and raw[i + 1:i + 2] == "(":  # a process substitution (lex): a path at run time
                j = _skip_balanced(raw, i + 1, "(", ")")
                text = raw[i:j] if j - i <= 80 and raw[i:j].isprintable() else excerpt(raw[i:j], 80)
                add(self.unknown(text, "a pipe from a command at run time (bash passes "
                                 "/dev/fd/N)" if c == "<" else "a pipe to a command at run time (bash passes "
                                 "/dev/fd/N)"))
                has = True
                i = j
            elif c == "~" and i == 0 and (n == 1 or raw[1] == "/"):
                add(os.path.expanduser("~"))
                has = True
                i += 1
            else:
                # a run of ordinary characters at once
                run = _PLAIN.match(raw, i)
                add(run.group(0) if run else c)
                has = True
                i = run.end() if run else i + 1
        if has or cur:
            end_field()
        return fields

    def _blank_given(self, m):
        u = self.unknowns[int(m.group(1))]
        blank = u.given and u.fixed is not None and (u.fixed == "" or re.search(r"[ \t\n]", u.fixed))
        return u.fixed if blank else m.group(0)

    def _spend(self, n):
        """Count n characters of expanded text against the script's budget: a value used over
        and over (`A=<60 KB>` then `$A` 150,000 times on one line) would take gigabytes and
        minutes where bash takes them too; past MAX_EXPANDED the script is refused."""
        self.expanded += n
        if self.expanded > MAX_EXPANDED:
            raise InputError("%s: line %d: the script expands to more than %d characters (a value used over and "
                             "over): not read further" % (excerpt(self.path, 200), self.line, MAX_EXPANDED))

    def _dq(self, s):
        out, i, n = [], 0, len(s)
        while i < n:
            c = s[i]
            if c == "\\" and s[i + 1:i + 2] in ("$", "`", '"', "\\", "\n"):
                out.append(s[i + 1])
                i += 2
            elif c in "$`":
                text, i, arr = self._dollar(s, i, quoted=True)
                piece = " ".join(arr) if arr is not None else text
                self._spend(len(piece))
                out.append(piece)
            else:
                run = _PLAIN_DQ.match(s, i)
                out.append(run.group(0) if run else c)
                i = run.end() if run else i + 1
        return "".join(out)

    def _dollar(self, s, i, quoted):
        """(text, next index, array items or None) for the expansion at s[i]."""
        n = len(s)
        if s[i] == "`":
            j = s.find("`", i + 1)
            j = n if j < 0 else j
            return self.command_subst(s[i + 1:j]), j + 1, None
        nxt = s[i + 1:i + 2]
        if s[i + 1:i + 3] == "((":
            j = _skip_balanced(s, i + 1, "(", ")")
            return self._nested("$((...))", lambda: (self.arith(s[i + 3:j - 2]), None))[0], j, None
        if nxt == "(":
            j = _skip_balanced(s, i + 1, "(", ")")
            return self.command_subst(s[i + 2:j - 1]), j, None
        if nxt == "[":
            # `$[$GLOBAL_BATCH_SIZE/($WORLD_SIZE*$NPROC_PER_NODE*$LOCAL_BATCH_SIZE)]`: the old form of $((...)), which
            # bash still expands (bash(1) Arithmetic Expansion; VideoLLaMA2 scripts/vllava/finetune.sh; it was read
            # as `$` and a glob, the variable 'the environment at run time'; launch26)
            j = _skip_balanced(s, i + 1, "[", "]")
            return self._nested("$[...]", lambda: (self.arith(s[i + 2:j - 1]), None))[0], j, None
        if nxt == "{":
            j = _skip_balanced(s, i + 1, "{", "}")
            text, arr = self._nested("${...}", lambda: self.param(s[i + 2:j - 1], quoted))
            return text, j, arr
        m = _NAME_RE.match(s, i + 1)  # not s[i + 1:]: a copy of the rest of the word per `$`
        if m:
            if isinstance(self.vars.get(m.group(0)), list):
                # $ARR is ${ARR[0]} (bash(1) Arrays: "without a subscript is equivalent to ... 0")
                return self.param(m.group(0), quoted)[0], m.end(), None
            return self.get(m.group(0)), m.end(), None
        if nxt.isdigit():
            k = int(nxt)
            return self.positional_arg(k), i + 2, None
        if nxt in ("@", "*", "#") and self.args_unknown:
            return self.unknown("$" + nxt, self.args_unknown), i + 2, None
        if nxt in ("@", "*", "#") and self.no_args and not self.positional:
            self.arg_reads += 1
        if nxt in ("@", "*"):
            return " ".join(self.positional), i + 2, (list(self.positional) if quoted and nxt == "@" else None)
        if nxt == "#":
            return str(len(self.positional)), i + 2, None
        if nxt in ("$", "!", "?", "-"):
            return self.unknown("$" + nxt, "the shell at run time"), i + 2, None
        return "$", i + 1, None

    def positional_arg(self, k):
        if k == 0:
            if self.batch:
                # sbatch stores the script and slurmd runs its own copy (SlurmdSpoolDir/job<ID>/slurm_script):
                # $0 there is that copy, not where the file is here ($SLURM_SUBMIT_DIR is the directory sbatch ran in)
                return self.unknown("$0", "the copy of the batch script slurmd runs (in %s), not this file's "
                                          "path" % SPOOL)
            return self.path
        if self.args_unknown and k > len(self.positional):
            # not "not given" (which a test reads as empty): after a shift in a branch decided at run time $1 may be
            # any argument ('if test "$1" = a; then torchrun ...; fi' was skipped as decided false)
            return self.unknown("$%d" % k, self.args_unknown)
        if k <= len(self.positional):
            v = self.positional[k - 1]
            if MARK in v:
                return v
            return self.unknown("$%d" % k, "argument %d of the script" % k, fixed=v, given=True)
        # bash expands an unset one to nothing; the plan says it is needed instead
        self.arg_reads += 1
        return self.unknown("$%d" % k, "argument %d of the script, not given here" % k)

    def _spool_path(self, cmd, vals):
        """A path made from $0 of an sbatch file (`$(dirname "$0")`): slurmd's spool directory; else None."""
        if any(SPOOL in u.why for v in vals for u in self.marks(v)):
            return self.unknown("$(%s)" % excerpt(" ".join(cmd.split()), 80)[1:-1], "a path in %s (from $0 of an "
                                "sbatch file), not this file's directory" % SPOOL)
        return None

    def _glob(self, raw):
        """The tokens of a bash pattern word (bash(1) Pattern Matching): "*", or a one-character test (a str: that
        character; None: any; a compiled [...] class, [:class:] read); a quoted or escaped character is literal, an
        unquoted expansion's text is a pattern too. None where it holds a value known only at run time or a construct
        not read here (extglob). Matched by _glob_ends, bit sets over the value: no regex, no backtracking."""
        out, i, n = [], 0, len(raw)

        def literal(text):  # a quoted or escaped * is the character, not the star ("${V//"*"/x}")
            out.extend(_STAR_CHAR if ch == "*" else ch for ch in text)

        while i < n:
            c = raw[i]
            if c == "\\" and i + 1 < n:
                literal(raw[i + 1])
                i += 2
            elif c == "'":
                j = raw.find("'", i + 1)
                j = n if j < 0 else j
                literal(raw[i + 1:j])
                i = j + 1
            elif c == '"':
                j = _skip_dq(raw, i + 1)
                text = self.resolve(self._dq(raw[i + 1:j - 1]))
                if MARK in text:
                    return None
                literal(text)
                i = j
            elif c in "$`":
                text, i, _arr = self._dollar(raw, i, quoted=False)
                text = self.resolve(text)
                if MARK in text:
                    return None
                sub = self._glob(re.sub(r"""([\\'"])""", r"\\\1", text))  # its text is a pattern, quotes literal
                if sub is None:
                    return None
                out.extend(sub)
            elif c in "@+!*?" and raw[i + 1:i + 2] == "(":
                return None  # extglob's @(...) etc.: not read
            elif c == "*":
                if not out or out[-1] != "*":
                    out.append("*")
                i += 1
            elif c == "?":
                out.append(None)
                i += 1
            elif c == "[":
                m = re.match(r"\[(!|\^)?(\]?(?:\[:[a-z]+:\]|[^\]])*)\]", raw[i:])
                if not m:
                    out.append(c)
                    i += 1
                    continue
                classes = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
                           "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f",
                           "punct": re.escape(r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~""")}
                body, k, parts = m.group(2), 0, []
                while k < len(body):
                    cm = re.match(r"\[:([a-z]+):\]", body[k:])
                    if cm:
                        if cm.group(1) not in classes:
                            return None
                        parts.append(classes[cm.group(1)])
                        k += cm.end()
                    elif body[k] == "-" and 0 < k < len(body) - 1:
                        if parts and parts[-1] == re.escape(body[k - 1]) and body[k + 1] != "[" and \
                                body[k - 1] > body[k + 1]:
                            # a reversed range ([z-a]) matches nothing to bash; Python's re refused it, and a script
                            # with `case $X in [z-a]*)` ended plan with an internal error (exit 3)
                            parts.pop()
                            k += 2
                            continue
                        parts.append("-")
                        k += 1
                    else:
                        parts.append(re.escape(body[k]))
                        k += 1
                try:
                    out.append(re.compile("[%s%s]" % ("^" if m.group(1) else "", "".join(parts)) if parts else
                                          ("[\\s\\S]" if m.group(1) else "(?!)")))
                except re.error:
                    return None  # a bracket expression not read here: the pattern is not followed
                i += m.end()
            else:
                out.append(c)
                i += 1
        return out

    def _pattern_op(self, name, value, rest):
        """${X#p} ${X##p} ${X%p} ${X%%p} ${X/p/r} ${X//p/r} ${X/#p/r} ${X/%p/r} ${X^^} ${X,,} ${X^} ${X,} of a known,
        not secret value, as bash(1) Parameter Expansion computes them; None: not read (the caller's unknown). A
        replacement holding an unquoted & is left: bash 5.2's patsub_replacement puts the match there, older bash
        an &."""
        if value is None or not isinstance(value, str) or self.marks(value) or len(value) > 1024 or \
                name in ("@", "*"):  # bounded: _glob_ends tests each character of the value once a token
            return None
        if value in self.secrets or _secret(name, value):
            return None  # a part of a secret-looking value is never shown (docs/security.md 36.)
        case = {"^^": str.upper, ",,": str.lower}
        if rest in case:
            return case[rest](value)
        if rest in ("^", ","):
            return (value[:1].upper() if rest == "^" else value[:1].lower()) + value[1:]
        n = len(value)
        m = re.match(r"^(##|#|%%|%)(.*)$", rest, re.S)
        if m:
            toks = self._glob(m.group(2))
            if toks is None or len(toks) > 128:
                return None
            ends = _glob_ends(toks, value)
            if m.group(1).startswith("#"):
                e = ends(0)
                if not e:
                    return value
                return value[(e.bit_length() - 1) if m.group(1) == "##" else (e & -e).bit_length() - 1:]
            for b in (range(0, n + 1) if m.group(1) == "%%" else range(n, -1, -1)):
                if ends(b) >> n & 1:
                    return value[:b]
            return value
        if not rest.startswith("/"):
            return None
        kind = rest[1:2] if rest[1:2] in ("/", "#", "%") else ""
        body = rest[1 + len(kind):]
        k = _unquoted_index(body, "/")  # the pattern ends at the first unquoted / (a quoted "/" is the pattern)
        toks, repl_raw = self._glob(body[:k]), body[k + 1:]
        if toks is None or len(toks) > 128 or re.search(r"(^|[^\\])&", repl_raw.replace("'&'", "").replace('"&"', "")):
            return None
        repl = self.resolve(" ".join(self.expand(repl_raw, split=False))) if repl_raw else ""
        if MARK in repl:
            return None
        if not toks:  # an empty pattern: /# and /% put the replacement at the start or the end
            return repl + value if kind == "#" else value + repl if kind == "%" else value
        ends, out, b = _glob_ends(toks, value), [], 0
        while b <= n:
            if kind == "#" and b > 0 or b == n and n > 0 and kind in ("/", ""):
                out.append(value[b:])
                break  # /#: at the start only; at the end of a non-empty value nothing is left to replace
            e = ends(b)
            if kind == "%":
                e &= 1 << n
            if not e:
                if kind == "#":
                    out.append(value)
                    break
                out.append(value[b:b + 1])
                b += 1
                continue
            e = e.bit_length() - 1  # the longest match from b
            out.append(repl)
            if e == b:  # an empty match: bash moves on one character
                out.append(value[b:b + 1])
                e = b + 1
            if kind != "/":
                out.append(value[e:])
                return "".join(out)
            b = e
        return "".join(out)

    def _op_word(self, word, quoted):
        """The word of ${VAR:-word} (and :=, :+, ...) as bash gives it: expanded, then its
        quotes removed (bash(1) Parameter Expansion: the word undergoes tilde, parameter,
        command and arithmetic expansion and quote removal). ${RANK:-"0"} is 0, not "0"
        (NVIDIA/Megatron-LM examples/mixtral/train_mixtral_8x7b_distributed.sh). Inside
        double quotes a '...' stays as written ("${X:-'a'}" is 'a'), a "..." loses its quotes."""
        if '"' not in word and "'" not in word and "\\" not in word:
            return self._dq(word)
        if not quoted:
            return " ".join(self.expand(word, split=False))
        out, i, n = [], 0, len(word)
        while i < n:
            if word[i] == '"':
                j = _skip_dq(word, i + 1)
                out.append(self._dq(word[i + 1:j - 1]))
                i = j
            elif word.startswith("$'", i):
                # bash(1) shopt extquote (on by default): $'...' is decoded inside a double-quoted
                # ${...}: "${X:-$'\t'}" is a TAB
                text, i = _ansi_c(word, i)
                out.append(text)
            else:
                j = min([k for k in (word.find('"', i), _unescaped(word, "$'", i)) if k >= 0] or [n])
                out.append(self._dq(word[i:j]))
                i = j
        return "".join(out)

    def _op_fields(self, word, quoted):
        """(text, fields) of the default word taken by an unquoted ${X:-word} with quotes in it:
        bash splits only its unquoted parts (${X:-'a b'} is one word 'a b'); else (text, None)."""
        text = self._op_word(word, quoted)
        if quoted or ('"' not in word and "'" not in word and "\\" not in word):
            return text, None
        toks = list(lex(word))  # its unquoted blanks separate words
        if any(k != "w" for k, _ in toks):
            return text, None
        return text, Fields(f for _, w in toks for f in self.expand(w, split=True))

    def param(self, body, quoted=False):
        m = re.match(r"^(#?)(" + NAME + r"|[0-9]+|@|\*)(\[(@|\*|[0-9]+|[^][]{1,200})\])?(.*)$", body, re.S)
        if not m:
            return self.unknown("${%s}" % body, "an expansion gpudoctor does not read"), None
        if self.args_unknown and (m.group(2) in ("@", "*") or m.group(2).isdigit() and m.group(2) != "0"):
            return self.unknown("${%s}" % body, self.args_unknown), None
        length, name, idx, rest = m.group(1), m.group(2), m.group(4), m.group(5)
        if idx is not None and idx not in ("@", "*") and not idx.isdigit():
            # ${ip_list[node_rank]}: an indexed array's subscript is arithmetic (bash(1) Arrays: "The subscript is
            # treated as an arithmetic expression that must evaluate to a number"); insightface's arcface_torch
            # dist.sh, `ssh face@${ip_list[node_rank]}` in a for ((...)) loop (launch29)
            k = self.arith(idx) if isinstance(self.vars.get(name), list) else None
            if k is None or self.marks(k) or not re.fullmatch(r"[0-9]{1,6}", k.strip()):
                return self.unknown("${%s}" % body, "an expansion gpudoctor does not read"), None
            idx = str(int(k))
        if name == "BASH_SOURCE" and idx in (None, "0") and not length and not rest and name not in self.vars:
            # bash(1) BASH_SOURCE: ${BASH_SOURCE[0]} is the file being read, $0 in the script itself
            return (self.positional_arg(0) if not self.depth else
                    self.unknown("${%s}" % body, "the file being sourced, at run time")), None
        if name.isdigit():
            value, is_set = self.positional_arg(int(name)), int(name) <= len(self.positional)
        elif name in ("@", "*"):
            value, is_set = " ".join(self.positional), bool(self.positional)
            if self.no_args and not self.positional:
                self.arg_reads += 1
        else:
            is_set = name in self.vars or name in self.result.from_allocation or (
                name in PER_TASK or name.startswith("SLURM_"))
            v = self.vars.get(name)
            if v == "" and name in self.set_empty:
                self.empty_reads.add(name)
            if isinstance(v, list):
                if idx in ("@", "*"):
                    if length:
                        whole = re.compile("^" + MARK + r"(\d+)" + MARK + "$")
                        spread = [whole.match(x) for x in v]
                        if any(spread):
                            # NODES=( $(scontrol show hostnames ...) ): an item known only at run
                            # time is zero or more words; ${#NODES[@]} was 1 (awsome-distributed-
                            # training stable-diffusion 2.train.sbatch: --world_size 8, bash 16)
                            names = [self.unknowns[int(m.group(1))].why == "the allocation's node names"
                                     for m in spread if m]
                            nn = self.result.allocation.get("nodes")
                            if len(v) == 1 and all(names) and nn is not None:
                                return str(nn), None
                            return self.unknown("${#%s[@]}" % name, "the number of %s at run time" % (
                                "nodes in the allocation" if len(v) == 1 and all(names) else
                                "words a value known at run time splits into")), None
                        return str(len(v)), None
                    sl = re.match(r"^:([0-9]{1,4})(?::([0-9]{1,4}))?$", rest)
                    if sl and any(re.match("^" + MARK + r"\d+" + MARK + "$", x) for x in v):
                        # an item known only at run time may be several words (HOSTNAMES=($(scontrol show hostnames
                        # ...)); ${HOSTNAMES[@]:1}: trlx's sweep-cw.sh's worker nodes), so which items a slice takes is
                        # too
                        return self.unknown("${%s}" % body, "items of a list known only at run time"), None
                    if sl:  # ${A[@]:1:2}: the items from 1, at most 2 (it was every item)
                        v = v[int(sl.group(1)):]
                        v = v[:int(sl.group(2))] if sl.group(2) is not None else v
                    return " ".join(v), list(v)
                value = v[int(idx)] if idx and idx.isdigit() and int(idx) < len(v) else (v[0] if v and not idx else "")
                if (not idx or idx == "0") and v and self.marks(v[0]) and re.match(
                        "^" + MARK + r"\d+" + MARK + "$", v[0]) and \
                        self.marks(v[0])[0].why == "the allocation's node names":
                    # nodes=( $(scontrol show hostnames ...) ); ${nodes[0]}: its first word
                    value = self.unknown(self.marks(v[0])[0].text + "[0]", "the first node of the allocation",
                                         host=True)
                elif idx and idx.isdigit() and v and re.match("^" + MARK + r"\d+" + MARK + "$", v[0]) and \
                        self.marks(v[0])[0].why == "the allocation's node names":
                    # ${NODES[1]}: the first item is every node's name, one word each at run time, so item k is the
                    # (k+1)th node (bash passes the second node's name), never "" (mutation round 17's gap)
                    k = int(idx)
                    nth = ("the %s node" % ORDINALS[k]) if k < len(ORDINALS) else "node %d (from 0)" % k
                    value = self.unknown(self.marks(v[0])[0].text + "[%d]" % k, nth + " of the allocation", host=True)
            elif name in self.vars or is_set:
                value = self.get(name)
            else:
                value = None  # unset, or from the environment
        if length:
            if name in ("@", "*"):
                # bash(1) Shell Parameter Expansion, ${#parameter}: "If parameter is * or @, the value substituted is
                # the number of positional parameters" (it was the length of "$*"; mutation round 16's finding)
                return str(len(self.positional)), None
            value = self.resolve(value) if value is not None else None
            if value is None or self.marks(value):
                return self.unknown("${#%s}" % name, "the length of a value known at run time"), None
            if len(value) >= 6 and (value in self.secrets or _secret(name, value) or self._holds_secret(value)):
                # ${#DB_URL} printed a secret's length, which 36. keeps unknown for ${X:offset:length}
                # (docs/security.md 73.)
                return self.unknown("${#%s}" % name, "the length of a secret-looking value (not shown)"), None
            return str(len(value)), None
        sl = re.match(r"^:\s*([0-9]{1,4})(?::([0-9]{1,4}))?$", rest)
        if sl:  # ${@:4}, ${@:2:3}, ${VAR:0:8}: bash's offset[:length]
            off, ln = int(sl.group(1)), sl.group(2)
            if name in ("@", "*"):
                items = [self.path] + list(self.positional) if off == 0 else list(self.positional)[off - 1:]
                items = items[:int(ln)] if ln is not None else items
                return " ".join(items), (items if quoted_at(name) else None)
            if value is None or self.marks(value):
                return self.unknown("${%s}" % body, "a part of a value known at run time"), None
            if value in self.secrets or _secret(name, value):
                # a part of a secret-looking value: _redact writes back whole values only, so ${HF_TOKEN:3} printed
                # the token after its prefix (docs/security.md 36.)
                return self.unknown("${%s}" % body, "a part of a secret-looking value (not shown)"), None
            part = value[off:]
            return (part[:int(ln)] if ln is not None else part), None
        op = re.match(r"^(:?[-=+?])(.*)$", rest, re.S)
        if rest and not op:
            done = self._pattern_op(name, value, rest)
            if done is not None:
                return done, None
            return self.unknown("${%s}" % body, "an expansion gpudoctor does not read (pattern or substring)"), None
        if value is None and not (name.isdigit() or name in ("@", "*")):
            here = self.here(name)
            if op and op.group(1) in (":-", "-", ":=", "="):
                word, fields = self._op_fields(op.group(2), quoted)
                if op.group(1) in (":=", "="):
                    self.assign(name, word)
                    fields = None  # ${X:=word}: the value assigned is what is split
                # the default is used unless the environment sets NAME at run time
                if name not in self.env_here or self.batch:
                    if MARK not in word and re.search(r"RANK|NODE_ID|PROCID", name):
                        # ${NODE_RANK:-0}: planned with the default, but the value is the
                        # node's own when its environment sets it (never "hard-coded")
                        return self.unknown("${%s}" % body, "the environment at run time, else %s" % word,
                                            fixed=word, given=True), None
                    return word, fields
                return self.unknown("${%s}" % body, "the environment at run time, else %s" % excerpt(word, 30),
                                    here=here), None
            if op and op.group(1) in (":+", "+"):
                return self.unknown("${%s}" % body, "set only if %s is in the environment" % name), None
            return self.get(name), None
        if op:
            kind, word = op.group(1), op.group(2)
            empty = value == "" or (value is not None and self.resolve(value) == "")  # a given "" too
            unset = not is_set
            if kind in (":-", ":="):
                use = empty or unset
            elif kind in ("-", "="):
                use = unset
            elif kind in (":+", "+"):
                if unset or (kind == ":+" and empty):
                    return "", None
                if kind == ":+" and value is not None and not re.sub(MARK + r"\d+" + MARK, "", self.resolve(value)):
                    # C="$X"; ${C:+word}: word, or nothing where C is empty at run time
                    return self.unknown("${%s}" % body, "the word if %s is not empty at run time, else nothing"
                                        % name), None
                # the alternate word splits as a default does: ${X:+'a b'} is one word (bash(1))
                return self._op_fields(word, quoted)
            else:
                use = False
            if use:
                w, fields = self._op_fields(word, quoted)
                if kind in (":=", "=") and not name.isdigit():
                    self.assign(name, w)
                    fields = None
                return w, fields
        return value, None

    def _nested(self, what, fn):
        """fn() one level deeper: ${x:-${x:-...}} or $(( $(( ... )) )) 10,000 deep is a bounded
        unknown, never a RecursionError (each level is a few Python frames)."""
        if self.nesting >= MAX_NESTING:
            return self.unknown(what, "expansions nested more than %d deep" % MAX_NESTING), None
        self.nesting += 1
        try:
            return fn()
        finally:
            self.nesting -= 1

    def command_subst(self, cmd):
        if self.nesting >= MAX_NESTING:
            return self.unknown("$(...)", "command substitutions nested more than %d deep" % MAX_NESTING)
        self.nesting += 1
        try:
            return self._command_subst(cmd)
        finally:
            self.nesting -= 1

    def _command_subst(self, cmd):
        m = re.match(r"^\s*cat\s*<<-?\s*\S+\s*\n" + MARK + r"H(\d+)" + MARK + r"\s*$", cmd)
        if m and int(m.group(1)) < len(self.inner_docs):
            return self._inner_doc(self.inner_docs[int(m.group(1))])
        c = " ".join(re.sub(MARK + r"H\d+" + MARK, "...", cmd).split())
        if re.search(r"scontrol\s+show\s+hostnames?\b", c):
            if re.search(r"\|\s*head\s+(-n\s*1|-1|--lines=1)\b", c):
                return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the first node of the allocation", host=True)
            if re.search(r"\|\s*wc\s+-l", c):
                nn = self.result.allocation.get("nodes")
                if nn is not None:
                    return str(nn)
                return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the number of nodes in the allocation")
            return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the allocation's node names", host=True)
        if re.match(r"^hostname(\s+-[sfA])?$", c):
            import socket

            return self.unknown("$(%s)" % c, "this node's name at run time", here=socket.gethostname(), host=True)
        m = re.search(r"\bsrun\b.*\s(?:-w|--nodelist)[ =](\S+).*\bhostname\b", c)
        if m:  # srun -w "$head_node" hostname --ip-address: that node's name or address
            val = " ".join(self.expand(m.group(1), split=False))
            one = re.match("^" + MARK + r"(\d+)" + MARK + "$", val)
            node = self.unknowns[int(one.group(1))].why if one else excerpt(self.shown(val), 60)[1:-1]
            return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the address of %s at run time" % node, host=True)
        if re.search(r"\bhostname\s+(-[iI]\b|--ip-address|--all-ip-addresses)", c) or \
                re.search(r"\bip\s+(-\S+\s+)*addr", c):
            return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "this node's address at run time", host=True)
        if re.search(r"nvidia-smi\s+(-L|--list-gpus)\s*\|\s*wc\s+-l", c) or "device_count()" in c:
            g = self.result.allocation.get("gpus_per_node")
            if g is not None:
                return str(g)
            return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the GPU count of the node it runs on")
        m = re.match(r"^echo\s+(.*)$", c)
        if m and "|" not in c and ";" not in c:
            return " ".join(f for w in lex(m.group(1)) if w[0] == "w" for f in self.expand(w[1]))
        if re.match(r"^(shuf|od|python\S*\s+-c\s+.*random|.*\$RANDOM)", c):
            return self.unknown("$(%s)" % excerpt(c, 60)[1:-1], "a random number at run time")
        if c == "pwd":
            return self.cwd if self.cwd is not None else os.getcwd()
        known = self._path_subst(cmd)
        if known is not None and self._of_a_secret(cmd):
            # dirname / basename / realpath of a secret-looking value print a part of it, which _redact (whole values
            # only) left: `$(dirname "$DB_PASSWORD")` (docs/security.md 66., as 36. for ${X:offset})
            return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "a part of a secret-looking value (not shown)")
        if known is not None:
            return known
        return self.unknown("$(%s)" % excerpt(c, 80)[1:-1], "the output of a command at run time")

    def _of_a_secret(self, cmd):
        """Whether the command ``cmd`` names a variable whose value holds a secret-looking value, or the text holds
        one itself (its words are not expanded again: ${X:=v} and $((i++)) act once)."""
        if self._holds_secret(cmd):
            return True
        for name in set(re.findall(r"\$\{?[#!]?(" + NAME + ")", cmd)):
            value = self.vars.get(name)
            if isinstance(value, list):
                value = " ".join(v for v in value if isinstance(v, str))
            if isinstance(value, str) and value and (_secret(name, value) or self._holds_secret(value)):
                return True
        return False

    def _splits_a_secret(self, text):
        """Whether splitting ``text`` at blanks cuts a secret-looking value (of 6 characters and more) that holds a
        blank: its words would be parts of it (a whole value in a field is written back as $NAME by _redact)."""
        cut = re.compile(r"[ \t\n]")
        return any(h in text for h in self.secrets if cut.search(h.strip())) or any(
            v in text for n, v in list(self.vars.items())[:4096]
            if isinstance(v, str) and len(v) >= 6 and cut.search(v.strip()) and MARK not in v and _secret(n, v))

    def _holds_secret(self, text):
        """Whether ``text`` holds a secret-looking value (one a secret-looking name was given, or of a credential's
        shape: _secret)."""
        if credential_shape(text):
            return True
        # (values of 6 characters and more, as self.secrets: `USE_AUTH=1` is in every path with a 1)
        return any(h in text for h in self.secrets) or any(
            v in text for n, v in list(self.vars.items())[:4096]
            if isinstance(v, str) and len(v) >= 6 and MARK not in v and _secret(n, v))

    def _inner_doc(self, doc):
        """$(cat <<EOF ... EOF): the here-document's text (bash(1) Here Documents: expanded unless its delimiter is
        quoted; `\\` quotes only \\, $, ` and a newline), less its trailing newlines (Command Substitution)."""
        body = doc["body"]
        if not doc["quoted"]:
            out, i, n = [], 0, len(body)
            while i < n:  # the same text as a double-quoted word: a bare " is literal here, \" keeps its \\
                c = body[i]
                if c == "\\" and i + 1 < n:
                    out.append(c + body[i + 1] if body[i + 1] in "$`\\\n" else
                               "\\\\\\\"" if body[i + 1] == '"' else c + body[i + 1])
                    i += 2
                    continue
                out.append('\\"' if c == '"' else c)
                i += 1
            body = " ".join(self.expand('"%s"' % "".join(out), split=False))
        return body.rstrip("\n")

    def _path_subst(self, cmd):
        """$(dirname W), $(basename W [SUFFIX]), $(cd W && pwd), $(realpath W), $(readlink -f W) of a known word W, as
        coreutils and bash compute them (a string operation: POSIX dirname/basename; `cd W && pwd` and realpath are W
        made absolute from the shell's directory, with . and .. folded, as bash's logical pwd prints it: the node's
        symbolic links are not known here). The idiom `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)` names the
        script's own directory (xtuner, DeepSpeed, torchtitan scripts), also in its `cd -- "$( dirname -- ... )"
        &> /dev/null && pwd` spelling (https://stackoverflow.com/a/246128; NVIDIA-NeMo/RL's tests), and
        `$(realpath $SCRIPT_DIR/../..)` a repository's root. None: not one of these, or W not known."""
        cmds = self._simple_cmds(lex(cmd.strip()))
        if cmds is None:
            return None
        (words, redirs), ops = cmds[0][0], [op for _, op in cmds[1:]]
        if len(cmds) == 1 and not redirs and words and words[0] in ("dirname", "basename"):
            args = words[1:]
            if args[:1] == ["--"]:
                args = args[1:]
            elif args and args[0].startswith("-"):
                return None
            if not 1 <= len(args) <= (1 if words[0] == "dirname" else 2):
                return None
            if any(len(self.expand(w)) != 1 for w in args):
                return None  # an unquoted operand that word-splits (V="/x y/z.sh"): bash passes other operands
            vals = [" ".join(self.expand(w, split=False)) for w in args]
            if any(MARK in v for v in vals):
                return self._spool_path(cmd, vals)
            if not vals[0]:
                return None
            w = vals[0].rstrip("/") or "/"
            if words[0] == "dirname":
                if w == "/":
                    return "/"
                head = w.rpartition("/")[0] if "/" in w else "."
                return head.rstrip("/") or ("/" if "/" in w else ".")
            base = w.rpartition("/")[2] or "/"
            if len(vals) == 2 and vals[1] and base != vals[1] and base.endswith(vals[1]):
                base = base[:-len(vals[1])]
            return base
        target, need = None, None
        if len(cmds) == 2 and ops[0] in ("&&", ";") and words[:1] == ["cd"] and \
                cmds[1][0][0][:1] == ["pwd"] and not cmds[1][0][1] and cmds[1][0][0][1:] in ([], ["-L"], ["-P"]):
            # cd's own output (CDPATH) sent to /dev/null does not change what pwd prints
            args = words[1:]
            if args[:1] == ["--"]:
                args = args[1:]
            if len(args) == 1:
                # cd fails where W is missing or not a directory: `&&` then prints nothing, `;` the old directory
                target, need = args[0], "cd"
        elif len(cmds) == 1 and not redirs and words and (
                words[0] == "realpath" or words[0] == "readlink" and any(w in ("-f", "-m", "-e") for w in words)):
            # realpath [-e|-m|-s|-q|-L|-P] W, readlink -f|-e|-m W (coreutils): one operand. They fail (print
            # nothing) where a directory on the way is missing (-e: W itself; -m: never), so the path is computed
            # only where that part exists here, the script's own tree as the node has it
            args = [w for w in words[1:] if w not in (
                "-e", "-m", "-s", "-q", "-L", "-P", "-f", "--canonicalize-existing", "--canonicalize-missing",
                "--no-symlinks", "--strip", "--quiet", "--logical", "--physical", "--canonicalize")]
            if args[:1] == ["--"]:
                args = args[1:]
            if len(args) == 1 and not args[0].startswith("-"):
                target = args[0]
                need = "whole" if any(w in ("-e", "--canonicalize-existing") for w in words) else None if any(
                    w in ("-m", "--canonicalize-missing") for w in words) else "dir"
        if target is None or len(self.expand(target)) != 1:
            return None  # (an unquoted W that word-splits is two operands to bash)
        d = " ".join(self.expand(target, split=False))
        if MARK in d:
            return self._spool_path(cmd, [d])
        if not d or d.startswith(("-", "~")):
            return None
        path = os.path.normpath(os.path.join(self.cwd if self.cwd is not None else os.getcwd(), d))
        if need == "cd":
            # bash's logical cd folds . and .. only over directories that exist (`cd a/nope/..`: "No such file or
            # directory"), and W itself must be one
            cur = "/"
            for part in os.path.join(self.cwd if self.cwd is not None else os.getcwd(), d).split("/"):
                if part == "..":
                    if not os.path.isdir(cur):
                        return None
                    cur = os.path.dirname(cur)
                elif part not in ("", "."):
                    cur = os.path.join(cur, part)
            return path if os.path.isdir(cur) else None
        if need is not None:
            # each directory named on the way must exist (coreutils canonicalize: "all but the last component")
            whole = os.path.join(self.cwd if self.cwd is not None else os.getcwd(), d)
            if whole.endswith("/") and os.path.exists(whole.rstrip("/")) and not os.path.isdir(whole):
                return None  # `realpath file/`: "Not a directory"
            parts = whole.rstrip("/").split("/")
            upto = parts if need == "whole" else parts[:-1]
            for k in range(1, len(upto) + 1):
                step = "/".join(upto[:k]) or "/"
                if upto[k - 1] not in ("", ".", "..") and not (os.path.isdir(step) or k == len(parts) and
                                                               os.path.exists(step)):
                    return None
        return path

    @staticmethod
    def _simple_cmds(toks):
        """The simple commands of a list joined by && or ; as [(words, redirections), ...] with each command's
        operator before it (the first one's is None); a redirection's target word is dropped. None for a pipe,
        ||, &, a subshell or anything else."""
        out, words, redirs, op, skip = [], [], 0, None, False
        for k, t in toks:
            if k == "op" and t.startswith("redir"):
                redirs, skip = redirs + 1, True
                continue
            if k == "w":
                if skip:
                    skip = False
                else:
                    words.append(t)
                continue
            if k != "op" or t not in ("&&", ";") or skip:
                return None
            out.append(((words, redirs), op))
            words, redirs, op = [], 0, t
        if skip:
            return None
        out.append(((words, redirs), op))
        return out

    def arith(self, expr):
        """$(( )) on whole numbers: names and $-expansions replaced, then + - * / % ** ( )
        and comparisons evaluated without eval (an AST walk)."""
        secret = []

        def name_value(m):
            v = self.vars.get(m.group(0))
            if v is None:
                v = self.get(m.group(0))
            v = v if not isinstance(v, list) else v[0] if v else "0"
            if isinstance(v, str) and len(v) >= 6 and (v in self.secrets or _secret(m.group(0), v)):
                secret.append(m.group(0))
            return "(%s)" % v

        text = "".join(self._dq(expr))
        if self._holds_secret(text):
            secret.append(expr)
        if not self.marks(text):
            # bash's integer constants (bash(1) ARITHMETIC EVALUATION): 0N octal, 0xN hex, BASE#N; anything else that
            # starts with a digit (126_953_125, 08, 1e3) is an error: "value too great for base", the command fails
            bad, unread = [], []

            def number(m):
                tok = m.group(0)
                b = re.fullmatch(r"([0-9]+)#([0-9A-Za-z@_]+)", tok)
                if b and 36 < int(b.group(1)[:3]) <= 64:
                    unread.append(tok)  # bases up to 64 (digits, letters, @, _): not read here
                    return "0"
                try:
                    if re.fullmatch(r"0[xX][0-9a-fA-F]+", tok):
                        return "(%d)" % int(tok, 16)
                    if re.fullmatch(r"0[0-7]*", tok):
                        return "(%d)" % int(tok, 8) if len(tok) > 1 else "0"
                    if re.fullmatch(r"[1-9][0-9]*", tok):
                        return tok
                    if b and 2 <= int(b.group(1)) <= 36:
                        return "(%d)" % int(b.group(2), int(b.group(1)))
                except ValueError:
                    pass
                bad.append(tok)
                return "0"

            text = re.sub(r"(?<![A-Za-z0-9_])[0-9][0-9A-Za-z_#@]*", number, text)
            if unread:
                return self.unknown("$((%s))" % expr.strip(), "arithmetic gpudoctor does not read")
            if bad:
                return self.unknown("$((%s))" % self.shown(expr).strip(), "an error to bash (%s: value too great for "
                                    "base): the command fails, a variable it assigns stays as it was" % excerpt(bad[0], 30))
        text = re.sub(NAME, name_value, text)
        text = self.resolve(text)
        if secret:
            # $((API_KEY / 1000)) printed the key's first digits (docs/security.md 70., as 36. for ${X:offset})
            return self.unknown("$((%s))" % self.shown(expr).strip(), "arithmetic on a secret-looking value (not "
                                "shown)")
        if self.marks(text):
            return self.unknown("$((%s))" % self.shown(expr).strip(), "arithmetic on a value known at run time")
        try:
            tree = ast.parse(text.replace("/", "//").replace("////", "//").strip() or "0", mode="eval")
            value = _eval(tree.body)
        except (SyntaxError, ValueError, ZeroDivisionError, RecursionError, MemoryError):
            return self.unknown("$((%s))" % expr.strip(), "arithmetic gpudoctor does not read")
        return str(value)

    def arith_command(self, expr):
        """`(( NAME=expr ))`, `(( NAME+=expr ))`, `(( NAME++ ))`: the assignment a loop's counter
        makes (a node rank counted per host); other arithmetic commands change nothing read."""
        m = re.match(r"^\s*(?:(\+\+|--)\s*(" + NAME + r")|(" + NAME + r")\s*(\+\+|--|[-+*/%]?=(?!=))(.*))\s*$",
                     expr, re.S)
        if not m:
            return
        if m.group(2):
            name, op, rhs = m.group(2), m.group(1), ""
        else:
            name, op, rhs = m.group(3), m.group(4), m.group(5)
        if op in ("++", "--"):
            value = self.arith("%s %s 1" % (name, op[0]))
        elif op == "=":
            value = self.arith(rhs)
        else:
            value = self.arith("%s %s (%s)" % (name, op[0], rhs))
        if self.cond:
            value = self.unknown("$%s" % name, "set by arithmetic in a branch or loop known at run time")
        self.assign(name, value)

    # -------------------------------------------------------------- commands
    def run_text(self, text, inner=False, base=0):
        """Read a text as one shell reads it; an `exec CMD` that surely runs ends the script's own (_ScriptEnd)."""
        self.texts += 1
        try:
            self._run_text(text, inner, base)
        except _ScriptEnd:
            pass
        finally:
            self.texts -= 1

    def _ends_script(self, words, t, cmd=()):
        """Whether the command about to run is `exec CMD` (not exec's redirections alone) that ends the script for
        sure: in the script's own text (no function, sourced file or task's shell), not in a branch decided at run
        time or skipped, not in a subshell or pipeline element. (`exit` is not followed: a usage check
        `[ -z "$1" ] && exit 1` would end the plan of a script read without its arguments.)"""
        rest = list(words)
        while rest and rest[0] in ("then", "do", "else", "{", "!"):
            rest.pop(0)
        if rest[:1] == ["exit"] and self.texts == 1 and not self.depth and not self.alone and len(rest) <= 2:
            # `exit` where every enclosing if / && / || / case was decided by the script's own known values (a
            # template's `CONTAINER_IMAGE=""` then `[ -z "$CONTAINER_IMAGE" ] && exit 1`): bash ends the script
            # there. Not where a test read an argument the plan was not given (a usage check), nor in a loop, a
            # function, a sourced file, a subshell or a pipeline (the branches: _exit_follows, after the command's
            # then / else / `;;` moved them)
            return "exit"
        if len(rest) < 2 or rest[0] != "exec" or self.texts != 1 or self.depth or self.alone:
            return False
        # exec must be followed by the command itself: `exec > >(tee -a log) 2>&1` (a redirection first, its process
        # substitution's words after it) and `exec {fd}>log` only redirect the script's own shell, which goes on
        raw = [w for w in cmd if w not in ("then", "do", "else", "{", "!")]
        k = 1
        while k + 1 < len(raw) and raw[k] is None and raw[k + 1] is not None:
            k += 2  # `exec 2>log CMD`: a redirection with a plain target before the command (bash reads it anywhere)
        if len(raw) <= k or raw[k] is None or re.match(r"^\{\w+\}$", raw[k]):
            return False
        # whether a branch skips it: after command() read the then / else / do before it (as for exit: an `else exec
        # CMD` of an if the script's values decide runs and ends the script)
        return "exec"

    def _exec_follows(self, t):
        """After `exec CMD` ran (command()): not in a branch skipped or decided at run time (nor by an argument the
        plan was not given, as for exit), a subshell or a pipeline element."""
        # the first pass of `while true; do ... exec CMD ...; done` runs for sure: that loop alone does not make the
        # exec undecided (launch24's left list: the plan listed the lines after it, which bash never runs)
        cond = any(f["cur"] is None and not f.get("first") for f in self.frames)
        return not (cond or self.skipping or self.piped or t == "|" or any(p is not None for p in self.parens)
                    or any(f.get("argdep") for f in self.frames))

    def _exit_follows(self, t):
        """After `exit` ran (command()): every enclosing if / && / || / case decided by known values, none by an
        argument not given, no loop, subshell or pipeline."""
        if self.cond or self.skipping or self.piped or t == "|" or any(p is not None for p in self.parens):
            return False
        return not any(f.get("argdep") or f["kind"] not in ("if", "guard", "case") for f in self.frames)

    def _run_text(self, text, inner=False, base=0):
        lines = _logical_lines_q(text)
        for at, (lineno, logical, docs, unclosed) in enumerate(lines):
            self.line = base + lineno if not inner else self.line
            if unclosed is not None:
                # accelerate's examples/slurm/submit_multicpu.sh opens `export LAUNCHER="...`
                # and never closes it: bash stops there (exit 2); the launch was never run
                first = (base + lineno) if not inner else self.line
                last = (base + unclosed[0]) if not inner else self.line
                self.result.notes.append(
                    "line %d: a %s in the command that starts here is never closed%s: bash stops with a syntax "
                    "error (unexpected EOF while looking for matching `%s') and runs nothing from line %d on" % (
                        first, "double quote" if unclosed[1] == '"' else "single quote" if unclosed[1] in ("'", "$'") else
                        "quote", "" if last == first else " (quotes pair up from there; the one left open is on "
                                                          "line %d)" % last, unclosed[1][-1], first))
                break
            subdocs = [d for d in docs if d.get("inner")]
            if subdocs:  # a here-document of a `$(cat <<EOF ...)`: numbered for this reader (_command_subst)
                logical = re.sub(MARK + r"H(\d+)" + MARK, lambda m: "%sH%d%s" % (
                    MARK, len(self.inner_docs) + int(m.group(1)), MARK), logical)
                self.inner_docs.extend(subdocs)
            toks, docs = lex(logical), [d for d in docs if not d.get("inner")]
            for k, (kind, t) in enumerate(toks):
                if kind == "op" and t in ("heredoc", "heredoc-") and docs:
                    toks[k] = ("op", ("heredoc", docs.pop(0)))  # the body travels with its command
            try:
                # (a ("line", N) mark first: a followed loop's recorded pass replays it, and a launch of a later pass
                # is on its own line, not on the `done` that replays it: userwalk27)
                self.feed(([] if inner else [("line", self.line)]) + toks + [("op", ";")])
            except _ScriptEnd as end:
                if getattr(end, "note", None) and any(any(k == "w" for k, _ in lex(x[1])) for x in lines[at + 1:]):
                    self.result.notes.append(end.note)
                raise

    def feed(self, tokens):
        """Run a stream of tokens; while a simulated loop is being read the first time, its
        frame also keeps the tokens to replay them (loop())."""
        cmd, stdin, out, ins = [], None, None, []
        for kind, t in tokens:
            for f in self.frames:
                if f.get("record") is not None:
                    f["record"].append((kind, t))
            if kind == "line":  # the script line the next tokens were read from (_run_text)
                self.line = t
                continue
            fn = next((f for f in reversed(self.frames) if f["kind"] == "func"), None)
            if fn is not None and kind == "w" and t in ("{", "}") and not cmd:
                fn["depth"] += 1 if t == "{" else -1
                if fn["depth"] == 0:  # the function's closing brace: keep its body for calls
                    while self.frames and self.frames[-1] is not fn:
                        self.frames.pop()
                    self.frames.pop()
                    # (without _run_text's line marks: a call's launches are on the call's line)
                    self.functions[fn["name"]] = [x for x in fn["record"][:-1] if x[0] != "line"]
                continue
            if kind == "w" and t == "{" and not cmd and self.pending_func or (
                    kind == "w" and t == "{" and len(cmd) == 2 and cmd[0] == "function"):
                # name() { ... } / function name { ... }: read when it is called, with its arguments
                name = self.pending_func or cmd[1].rstrip("()")
                self.pending_func = None
                cmd = []
                self.frames.append({"kind": "func", "cur": False, "any": False, "unk": False, "name": name,
                                    "depth": 1, "record": []})
                continue
            top = self.frames[-1] if self.frames else None
            expecting = top is not None and top["kind"] == "case" and top.get("expect")
            if expecting and kind == "w" and t != "esac" and not cmd:
                top["pats"] = (top.get("pats") or []) + [t]  # a case pattern: `big|large)`
                continue
            if expecting and kind == "op" and t in ("|", "(") and top.get("pats") is not None:
                continue
            if expecting and kind == "op" and t == ")" and top.get("pats"):
                self._case_branch(top)
                continue
            if kind == "w":
                cmd.append(t)
                if len(cmd) >= 3 and cmd[-1] == "in" and cmd[-3] == "case" and all(
                        w in KEYWORDS for w in cmd[:-3]):
                    # `case $1 in b) ...` on one line: the patterns follow at once (after `A && `, the guard holds
                    # to its `esac`, as for a group)
                    opens = sum(w in GROUP_OPEN for w in cmd[:-2])  # `{ case $1 in`: the group and the case
                    if self.guard is not None:
                        guard, self.guard = self.guard, None
                        gdep, self.guard_dep = self.guard_dep, False
                        self.frames.append({"kind": "guard", "cur": None if guard == UNDECIDED else guard,
                                            "any": False, "unk": guard == UNDECIDED, "line": self.line,
                                            "had": set(self.vars), "argdep": gdep, "group": opens,
                                            "status0": self.status})
                        self.status = None
                    else:
                        g = next((f for f in reversed(self.frames) if f.get("group")), None)
                        if g is not None:
                            g["group"] += opens
                    self.command(cmd)
                    cmd = []
                continue
            if isinstance(t, tuple) or t in ("heredoc", "heredoc-"):
                cmd.append(None)  # the next word is the heredoc's delimiter
                if isinstance(t, tuple):
                    stdin = t[1]
                continue
            if t in ("redir", "redir>", "redir>>", "redir<"):
                if t == "redir<":
                    ins.append(len(cmd) + 1)  # the input file is the next word
                elif t != "redir":
                    out = (t[5:], len(cmd) + 1)  # the output file is the next word
                cmd.append(None)
                continue
            if t == "(" and cmd and all(w in ("{", "then", "do") for w in cmd[:-1]) and \
                    re.match("^" + NAME + "$", cmd[-1] or "") and \
                    cmd[-1] not in ("then", "do", "else", "time"):  # (`do ( N=5 )` is a subshell, no function `do`)
                # name() { ... }: a function definition, also after `{` / `then` / `do` on its line
                # (`{ f() { ...; }; f 1 2; }` defined nothing: the call ran an unknown command, review22)
                self.pending_func = cmd[-1]
                self.parens.append(None)
                cmd = []
                continue
            if t == "(":
                # `( cd /tmp; N=3 )`: a subshell; what it sets and its cd end at its `)` (bash(1))
                # (after keywords alone too: `then ( cd /tmp )`, `{ ( N=5 ); }`, `do ( ... ) done` start one; their
                # cd and assignments leaked past the `)`, review22)
                sub = all(w in ("then", "do", "else", "{", "!", "time") for w in cmd)
                self.parens.append(self._state() if sub else None)  # (`else (`: skipping ends at the else)
                continue
            if t == ")" and not (self.parens and self.parens[-1] is not None):
                if self.parens:
                    self.parens.pop()
                continue
            words = [w for k, w in enumerate(cmd) if w is not None and (k == 0 or cmd[k - 1] is not None)]
            ran_words = bool(words)  # command() pops what it reads: an assignment leaves no words
            lead = next((w for w in words if w not in ("then", "do", "else", "{")), None)
            bang = lead == "!"  # `! [ -z "$A" ] && B=2`: command() pops the `!` with the keywords
            guard, self.guard = self.guard, None
            gdep, self.guard_dep = self.guard_dep, False
            self.gdep_now = gdep
            status, self.status = self.status, None
            # a brace group `A && { B; C; }` is one command of the list: the guard holds to its `}` (bash(1)
            # Compound Commands); it held for B alone, so `false && { A=1; B=2; }` set B, and `[ -z "$X" ] && {
            # echo usage; exit 1; }` put its exit outside the test
            # so is `A || if ...; fi` and `A && case ... esac` (mutation of the fuzz against bash: `[ -n "$D" ] &&
            # case ...` ran its `*)` branch with D empty): the guard holds to the `fi` / `esac` that closes it. Loops
            # keep the guard for their first command only, as before (their bodies are replayed)
            opens = closes = 0
            for w in cmd:
                if w not in KEYWORDS and w not in OPENERS and w not in CLOSERS and w not in ("elif", "}"):
                    break
                opens += w in GROUP_OPEN
                closes += w in GROUP_CLOSE
            closed = None
            g = next((f for f in reversed(self.frames) if f.get("group")), None)
            if g is not None and (closes or (opens and guard is None)):
                g["group"] += (opens if guard is None else 0) - closes  # groups inside the guarded one
                closed = g if g["group"] <= 0 else None
            gf = None
            if guard is not None:
                # `A && B`, `A || B`: B runs when A succeeded (failed); a test decided by
                # known values decides it, any other command is taken to succeed; a test
                # decided only at run time leaves B's running undecided, as an `if` does
                # (`A=4; [ -n "$X" ] && A=8`: A is 4 or 8, not 8)
                gf = {"kind": "guard", "cur": None if guard == UNDECIDED else guard, "any": False,
                      "unk": guard == UNDECIDED, "line": self.line, "had": set(self.vars), "argdep": gdep,
                      "group": opens, "status0": status}
                self.frames.append(gf)
            # each element of a pipeline `a | b` runs in a subshell: what it sets ends with it
            piped = bool(words) and (t == "|" or self.piped)
            before = self._state() if piped and not self.skipping else None
            try:
                self.stdin = stdin if cmd and stdin is not None else None
                self.out = (out[0], cmd[out[1]]) if out and out[1] < len(cmd) and cmd[out[1]] else None
                self.ins = [cmd[k] for k in ins if k < len(cmd) and cmd[k]]
                ends = self._ends_script(words, t, cmd)
                self.command(words)
                if ends == "exit" and self._exit_follows(t):
                    # bash(1) SHELL BUILTIN COMMANDS: exit "causes the shell to exit"; what decided it is known here
                    # (the note only where a command follows: _run_text)
                    why = sorted({f["line"] for f in self.frames})
                    end = _ScriptEnd()
                    end.note = "line %d: exit ends the script here%s: bash runs nothing after it, and the lines " \
                               "after it are not read" % (self.line, " (decided by the known values at line %s)" %
                                                          ", ".join(map(str, why)) if why else "")
                    raise end
                if ends == "exec" and self._exec_follows(t):
                    # bash runs nothing after `exec CMD` (bash(1) SHELL BUILTIN COMMANDS: "replaces the shell"): a
                    # launch line after one is never started
                    end = _ScriptEnd()  # (noted where a command follows it: _run_text)
                    end.note = "line %d: exec ends the script here (bash runs nothing after it): the lines after it " \
                               "are not read" % self.line
                    raise end
            finally:
                self.stdin = self.out = None
                self.ins = []
                if before is not None:
                    self._set_state(before)
                if piped or words or t == "|":  # (command() pops the words it reads)
                    self.piped = t == "|"
                if t == ")":
                    self._set_state(self.parens.pop())
                if guard is not None:
                    for k in range(len(self.frames) - 1, -1, -1):
                        if self.frames[k]["kind"] == "guard":
                            if self.frames[k] is gf and gf["group"]:
                                break  # the group's `}` ends it
                            f = self.frames.pop(k)
                            if f["unk"] and not self.skipping:
                                self._guard_done(f)
                            break
                    self._if_condition_element(guard, words, bang)
                if closed is not None:
                    self.frames = [f for f in self.frames if f is not closed]
                    if closed["unk"] and not self.skipping:
                        self._guard_done(closed)
            if t == ";;" and self.frames and self.frames[-1]["kind"] == "case":
                self.frames[-1].update(expect=True, cur=False, pats=None)  # the next pattern decides
            if t in ("&&", "||") and ran_words:
                # bash(1) Lists: && and || have equal precedence, left to right; the list's status so
                # far is the last command's that ran (a skipped one leaves it as it was): `true &&
                # A=1 || A=2` ends with A=1, `true || A=1 && A=2` runs A=2
                self.last_test_argdep = False
                if closed is not None:
                    # after `A && { ...; }`: the status is A's where the group did not run; a group that ran is
                    # taken to succeed, as any other command
                    r = closed["status0"] if closed["cur"] is False else (None if closed["cur"] is None else True)
                    gdep = gdep or closed.get("argdep")
                elif guard is False:
                    r = status
                elif guard == UNDECIDED:  # whether B ran is decided at run time: so is C's turn
                    r = None
                else:
                    # a test decided by known values decides it, `false` fails, any other command is taken to
                    # succeed (`false || A=3` sets A); `!` negates what follows it (bash(1) Pipelines)
                    r = self.test(words) if words and words[0] in ("[", "[[", "test", "!") else (
                        words[:1] != ["false"])
                    if bang and r is not None and words[:1] != ["!"]:
                        r = not r
                self.status = r
                self.guard = UNDECIDED if r is None else (r if t == "&&" else not r)
                self.guard_dep = gdep or self.last_test_argdep
            cmd, stdin, out, ins = [], None, None, []

    def _if_condition_element(self, guard, words, bang):
        """`if A && B; then` / `if A || B; then`: the `if` runs the then-branch by the status of the list's
        last command that ran (bash(1) Lists, Compound Commands: "the if list is executed"), not by A's alone
        (mutation22: `if [ -n "$A" ] && [ -n "$B" ]` with B empty took the then-branch). The `if` frame took
        A's test; each later element that ran replaces it (a skipped one leaves it; one whose running is decided
        at run time makes it unknown)."""
        if not self.frames or self.frames[-1]["kind"] != "if" or not self.frames[-1].get("cond"):
            return
        f = self.frames[-1]
        if any(g["cur"] is False for g in self.frames[:-1]):
            return
        if guard is False:
            return
        f["argdep"] = f.get("argdep") or self.gdep_now
        self.last_test_argdep = False
        if guard == UNDECIDED:
            r = None
        else:
            r = self.test(words) if words and words[0] in ("[", "[[", "test", "!") else (
                {"true": True, ":": True, "false": False}.get(words[0]) if words else None)
            if bang and r is not None and words[:1] != ["!"]:
                r = not r
        f.update(cur=r, any=r is True, unk=r is None, paths=[] if r is False else [set()])
        f["argdep"] = f["argdep"] or self.last_test_argdep

    def _state(self):
        """What a subshell may change that its parent does not see after it."""
        return ({k: list(v) if isinstance(v, list) else v for k, v in self.vars.items()}, self.cwd,
                set(self.exported), list(self.positional), set(self.integers), dict(self.functions), self.args_unknown)

    def _set_state(self, state):
        vars_, self.cwd, self.exported, self.positional, self.integers, self.functions, self.args_unknown = state
        self.vars = vars_

    def loop_done(self, f):
        """The `done` of a simulated while/until loop (one whose test has known values, as
        an argument-parsing `while [[ $# -gt 0 ]]; do case $1 in ... shift ...`): test again
        and run the body again, as bash would, at most MAX_ITERATIONS times."""
        body = f["tokens"] if f.get("tokens") is not None else f.get("record") or []
        if body and body[-1][0] == "op" and body[-1][1] != ";":
            # the record ends with what ended `done`: the `)` of a subshell `( for ...; done )` (or a `|`, `&&`)
            # is the enclosing line's, not the body's; replayed, it closed the subshell twice (IndexError)
            body = body[:-1] + [("op", ";")]
        if f.get("broken"):
            return
        if f["word"] == "for((":
            # the arithmetic for loop: its step, then its test again (bash(1) Compound Commands, for (( ... )))
            for a in f["step"].split(","):
                self.arith_command(a)
            again = self._arith_true(f["cond"])
            if again is None:
                self.result.notes.append("line %d: the loop's test turned unknown after %d passes: values it sets "
                                         "later are not followed" % (self.line, f["iter"]))
                return
            if not again:
                return
            if f["iter"] >= MAX_ITERATIONS:
                self.result.notes.append("line %d: loop stopped after %d passes" % (self.line, MAX_ITERATIONS))
                return
            self.frames.append(dict(f, cur=True, iter=f["iter"] + 1, tokens=body, record=None, broken=False,
                                    maybe=f.get("maybe_broken")))
            self._replay(body)
            return
        if f["word"] == "for":
            if f["iter"] >= len(f["items"]):
                return
            self.vars[f["var"]] = f["items"][f["iter"]]
            self.frames.append(dict(f, cur=True, iter=f["iter"] + 1, tokens=body, record=None, broken=False,
                                    maybe=f.get("maybe_broken")))
            self._replay(body)
            return
        r = self.test(f["cond"])
        again = r if f["word"] == "while" else (None if r is None else not r)
        if again is None:
            self.result.notes.append("line %d: the loop's test turned unknown after %d passes: values it sets "
                                     "later are not followed" % (self.line, f["iter"]))
            return
        if not again:
            return
        if f["iter"] >= MAX_ITERATIONS:
            self.result.notes.append("line %d: loop stopped after %d passes" % (self.line, MAX_ITERATIONS))
            return
        self.frames.append({"kind": "loop", "cur": True, "any": False, "unk": False, "sim": True,
                            "cond": f["cond"], "word": f["word"], "iter": f["iter"] + 1, "tokens": body,
                            "record": None, "maybe": f.get("maybe_broken"), "maybe_broken": f.get("maybe_broken")})
        self._replay(body)

    def _arith_true(self, expr):
        """Whether an arithmetic test is true (not 0), None where a value in it is known only at run time; an empty
        test is true (bash(1): "If any expression is omitted, it behaves as if it evaluates to 1")."""
        if not expr.strip():
            return True
        v = self.arith(expr)
        if self.marks(v) or not re.fullmatch(r"-?[0-9]+", v.strip()):
            return None
        return int(v) != 0

    def _arith_for(self, head, cur):
        """`for (( init; test; step ))`, the frame it opens (its words are read). Followed as bash runs it where the
        test is known on the first pass and no loop or branch around it is decided at run time (FlagScale's
        tools/datasets/llava_onevision/make_llava_ov_wds.sh: `for ((j = 0; j < twice; j++))` around the ssh loop,
        --master_port=$((13888 + j)) per pass; launch29); else one pass of unknown count, its counter unknown."""
        parts = head.split(";")
        if len(parts) == 3 and not parts[1].strip():
            # `for ((;;))`: no test, a loop until a `break` (as `while true`): its first pass surely runs
            self.frames.append({"kind": "loop", "cur": cur, "any": False, "unk": True, "first": cur is None})
            return []
        if len(parts) == 3 and cur is None and not self.cond and not any(f.get("sim") for f in self.frames):
            init, test, step = parts
            for a in init.split(","):
                self.arith_command(a)
            r = self._arith_true(test)
            if r is False:
                self.frames.append({"kind": "loop", "cur": False, "any": False, "unk": False})
                return []
            if r:
                self.frames.append({"kind": "loop", "cur": True, "any": False, "unk": False, "sim": True,
                                    "word": "for((", "cond": test, "step": step, "iter": 1, "tokens": None,
                                    "record": []})
                return []
        self.frames.append({"kind": "loop", "cur": cur, "any": False, "unk": True, "first": False})
        if cur is not False and len(parts) == 3:
            for m in re.finditer(r"(?:^|[,\s])(?:\+\+|--)?\s*(" + NAME + r")\s*(?:\+\+|--|[-+*/%]?=(?!=)|,|$)",
                                 parts[0] + "," + parts[2]):
                self.assign(m.group(1), self.unknown("$" + m.group(1), "a loop variable"))
        return []

    def _replay(self, body):
        """Another pass of a followed loop: a loop around it that is being recorded keeps the
        inner loop's tokens once, as written, not each pass's (a `for` in a `for`, launch27)."""
        recs = [(g, g.get("record")) for g in self.frames]
        for g, _ in recs:
            g["record"] = None
        try:
            self.feed(list(body))
        finally:
            for g, rec in recs:
                g["record"] = rec

    def _if_done(self, f):
        """At `fi` of an `if` decided at run time: a variable the `if` set for the first time
        on some of its paths but not on all (no `else`, or a branch that leaves it alone) is
        that value or unset, decided at run time. awsome-distributed-training's
        llama3_1_8b-training.sbatch sets TRAIN_SCRIPT=./train.py only when $CONTAINER_IMAGE is
        set, then `${TRAIN_SCRIPT:=../src/train.py}`: bash without a container passes
        ../src/train.py; the plan said ./train.py as if the branch had run."""
        if not f.get("unk") or "paths" not in f or self.skipping:
            return
        paths = list(f["paths"])
        if not f["else"] and not f["any"]:
            paths.append(set())  # no branch runs
        fresh = set().union(*paths) - f["had"] if paths else set()
        whole = re.compile("^" + MARK + r"\d+" + MARK + "$")
        for name in sorted(fresh):
            if all(name in p for p in paths) or name not in self.vars:
                continue
            v = self.vars[name]
            text = " ".join(v) if isinstance(v, list) else v
            if whole.match(text):
                continue
            self.vars[name] = self.unknown("$" + name, "set only if the `if` at line %d takes that branch (decided at "
                                                       "run time): %s, else as it was (the environment's, or "
                                                       "unset)" % (
                                               f["line"], excerpt(self.shown(text), 40)))

    def _guard_done(self, f, where="the `&&` / `||` at line %d lets it run"):
        """After the command an undecided `&&` / `||` guarded: a variable it set for the first time
        is that value or unset, decided at run time (`[ -n "$X" ] && A=1`: bash without X leaves A
        unset; a name set before is already an unknown, in assign)."""
        whole = re.compile("^" + MARK + r"\d+" + MARK + "$")
        for name in sorted(set(self.vars) - f["had"]):
            v = self.vars[name]
            text = " ".join(v) if isinstance(v, list) else v
            if not whole.match(text):
                self.vars[name] = self.unknown("$" + name, ("set only where " + where + " (decided at run time): %s, "
                                                            "else as it was (the environment's, or unset)") % (
                    f["line"], excerpt(self.shown(text), 40)))

    def _case_branch(self, f):
        """A `pat|pat)` line of a case: this branch runs when the word matches (fnmatch, as
        bash's case does), no earlier branch did, and both are known."""
        import fnmatch

        pats = [self.resolve(" ".join(self.expand(p, split=False))) for p in f["pats"]]
        f.update(expect=False, pats=None)
        if any(g["cur"] is False for g in self.frames[:-1]) or f["any"]:
            f["cur"] = False
            return
        v = f.get("value")
        if v is None or MARK in v or any(MARK in p for p in pats):
            f["cur"], f["unk"] = None, True
            return
        hit = any(fnmatch.fnmatchcase(v, p) for p in pats)
        if f["unk"]:
            f["cur"] = None if hit else False
        else:
            f["cur"] = hit
            f["any"] = hit

    def command(self, words):
        self.cmd_reads = self.arg_reads  # (Launch.no_args: this command read an argument not given)
        self.empty_reads = set()
        self.commands += 1
        if self.commands > MAX_COMMANDS:
            raise InputError("%s: more than %d commands" % (self.path, MAX_COMMANDS))
        while words and words[0] in KEYWORDS | OPENERS | CLOSERS | {"elif", "in", "function", "}"}:
            w = words.pop(0)
            if w == "time" and words[:1] == ["-p"]:
                words.pop(0)  # bash's `time` keyword takes -p (POSIX output format) before the pipeline
            while w == "exec" and words[:1] in (["-a"], ["-c"], ["-l"], ["-cl"], ["-lc"]):
                # bash(1) exec [-cl] [-a name] command: its options were read as the command (no launch line)
                del words[:2 if words[0] == "-a" else 1]
            parent_skips = self.skipping
            if w == "then":
                for g in reversed(self.frames):  # the condition list ends at `then`
                    if g["kind"] == "if":
                        g["cond"] = False
                        break
            if w == "if":
                self.last_test_argdep = False
                r = False if parent_skips else self._if_test(words)
                self.frames.append({"kind": "if", "cur": r, "any": r is True, "unk": r is None, "line": self.line,
                                    "had": set(self.vars), "paths": [] if r is False else [set()], "else": False,
                                    "cond": not parent_skips, "argdep": self.last_test_argdep})
                words = []  # the condition is consumed
            elif w == "elif" and self.frames and self.frames[-1]["kind"] == "if":
                f = self.frames[-1]
                f["cur"] = False
                if not any(g["cur"] is False for g in self.frames[:-1]) and not f["any"]:
                    r = self._if_test(words)
                    f["argdep"] = f.get("argdep") or self.last_test_argdep
                    f["cur"] = None if (f["unk"] and r is not False) else r
                    f["any"] = f["any"] or f["cur"] is True
                    f["unk"] = f["unk"] or r is None
                if f["cur"] is not False and "paths" in f:
                    f["paths"].append(set())
                words = []
            elif w == "else" and self.frames and self.frames[-1]["kind"] == "if":
                f = self.frames[-1]
                skip_above = any(g["cur"] is False for g in self.frames[:-1])
                f["cur"] = False if (skip_above or f["any"]) else (None if f["unk"] else True)
                if "paths" in f:
                    f["else"] = True
                    if f["cur"] is not False:
                        f["paths"].append(set())
            elif w == "case":
                value, reads = None, self.arg_reads
                if words and not parent_skips:
                    value = self.resolve(" ".join(self.expand(words[0], split=False)))
                    value = re.sub(MARK + r"(\d+)" + MARK, lambda m: "" if self.unknowns[int(m.group(1))].why.endswith(
                        "not given here") else m.group(0), value)
                if any(f["kind"] == "loop" and not f.get("sim") for f in self.frames):
                    value = None  # `case $1` in a loop that is not followed sees every argument in turn
                self.frames.append({"kind": "case", "cur": False, "any": False, "unk": value is None or MARK in value,
                                    "value": value, "expect": True, "pats": None, "line": self.line,
                                    "had": set(self.vars), "argdep": self.arg_reads != reads})
                words = []
            elif w in OPENERS:  # while, until, for, select: run zero or more times
                cur = False if parent_skips else None
                if w in ("while", "until") and cur is None:
                    r = self.test(words)  # `while [[ $# -gt 0 ]]` with no argument: never runs
                    if r is (False if w == "while" else True):
                        cur = False
                    elif r is not None and not self.cond and not any(f.get("sim") for f in self.frames):
                        # decided true: run the body as bash would, test again at `done`
                        self.frames.append({"kind": "loop", "cur": True, "any": False, "unk": False, "sim": True,
                                            "cond": list(words), "word": w, "iter": 1, "tokens": None,
                                            "record": []})
                        words = []
                        continue
                if w == "for" and words and words[0].startswith("((") and words[0].endswith("))"):
                    words = self._arith_for(words[0][2:-2], cur)
                    continue
                # a `for` in a followed `for` is followed too (nanochat's runs/scaling_laws.sh: `for flops in
                # "${FLOPS_BUDGETS[@]}"; do for d in "${DEPTHS[@]}"; do ... torchrun ...`, 4 x 6 launches; the inner
                # loop's `$d` was "set in a loop"), while the passes of all of them together stay within
                # MAX_NESTED_PASSES (launch27)
                outer = [f for f in self.frames if f.get("sim")]
                if w == "for" and cur is None and len(words) >= 2 and words[1] == "in" and re.match(
                        "^" + NAME + "$", words[0]) and not self.cond and all(f.get("word") == "for" for f in outer):
                    items = [self.resolve(x) for v in words[2:] for x in self.expand(v)]
                    passes = len(items)
                    for f in outer:
                        passes *= len(f["items"])
                    if not any(MARK in x for x in items) and len(items) <= MAX_ITERATIONS and (
                            not outer or passes <= MAX_NESTED_PASSES):
                        # for x in a b c: the body once per known item, as bash runs it
                        if not items:
                            self.frames.append({"kind": "loop", "cur": False, "any": False, "unk": False})
                        else:
                            self.vars[words[0]] = items[0]
                            self.frames.append({"kind": "loop", "cur": True, "any": False, "unk": False,
                                                "sim": True, "word": "for", "var": words[0], "items": items,
                                                "iter": 1, "tokens": None, "record": [], "cond": None})
                        words = []
                        continue
                # `while true` / `while :` (and `until false`): the first pass surely runs (an `exec CMD` in it ends
                # the script, _exec_follows); what it sets is still a loop's
                first = cur is None and w in ("while", "until") and words == (["true"] if w == "while" else
                                                                              ["false"]) or (w == "while" and
                                                                                             words == [":"])
                self.frames.append({"kind": "loop", "cur": cur, "any": False, "unk": True, "first": first})
                if w in ("for", "select") and words and not parent_skips:
                    self.assign(words[0], self.unknown("$" + words[0], "a loop variable"))
                words = []
            elif w in CLOSERS:
                want = {"fi": "if", "done": "loop", "esac": "case"}[w]
                for k in range(len(self.frames) - 1, -1, -1):
                    if self.frames[k]["kind"] == want:
                        f = self.frames[k]
                        del self.frames[k:]
                        if want == "if":
                            self._if_done(f)
                        elif want == "case" and f["unk"] and not self.skipping:
                            self._guard_done(f, "the `case` at line %d takes that branch")
                        if f.get("sim"):
                            self.loop_done(f)
                        break
            elif w == "function":
                words = []
        if not words or self.skipping:
            return
        if words[0].startswith("((") and words[0].endswith("))"):
            return self.arith_command(words[0][2:-2])
        fname = words[0]
        if "$" in fname and self.functions:  # "$@" / $1 naming the function to run
            fields = [self.resolve(f) for w in words for f in self.expand(w)]
            if fields and fields[0] in self.functions:
                fname, words = fields[0], [fields[0]] + ["'%s'" % f.replace("'", "'\\''") for f in fields[1:]]
        if fname in self.functions and self.depth < 4:
            # a function call: its body runs with the call's words as $1, $2, ...
            self.called.add(fname)
            args = [f for w in words[1:] for f in self.expand(w)]
            saved = self.positional, self.args_unknown
            self.positional, self.args_unknown = args, None
            self.depth += 1
            frames = len(self.frames)
            self.scopes.append({})
            # a loop being recorded keeps the call, not the body's tokens too: a replayed pass calls it again (the
            # body's tokens after the call ran it a second time, its $1 the script's: `for lr in a b; do go $lr;
            # done` planned a third launch with '--lr=$1', userwalk27)
            recs = [(f, f.get("record")) for f in self.frames]
            for f, _ in recs:
                f["record"] = None
            try:
                self.feed(list(self.functions[fname]))
            finally:
                for f, rec in recs:
                    f["record"] = rec
                self.depth -= 1
                del self.frames[frames:]
                self.positional, self.args_unknown = saved
                for name, before in self.scopes.pop().items():
                    # bash(1) local: the function's own variable ends with the call
                    if before is None:
                        self.vars.pop(name, None)
                    else:
                        self.vars[name] = before
            return
        if words[0] in ("[", "[[", "test", "true", "false", ":", "echo", "printf", "cd", "pushd", "popd", "mkdir",
                        "source", ".", "set", "shift", "unset", "wait", "sleep", "trap", "exit", "return", "break",
                        "continue", "module", "conda", "ulimit", "umask", "cat", "rm", "cp", "ln", "tee", "date"):
            return self.builtin(words)
        assigns = []
        while words and re.match("^" + NAME + r"\+?=", words[0]):
            assigns.append(words.pop(0))
        if not words:
            for a in assigns:
                self.do_assign(a)
            return
        if words[0] in ("export", "declare", "local", "readonly", "typeset"):
            opts = "".join(w[1:] for w in words[1:] if w.startswith("-"))
            for w in words[1:]:
                if w.startswith("-") or w.startswith("+"):
                    continue
                name = w.split("=", 1)[0].rstrip("+")
                if words[0] in ("declare", "local", "typeset") and re.match("^" + NAME + "$", name):
                    if self.scopes and "g" not in opts and name not in self.scopes[-1]:
                        # local (and declare without -g) in a function: the caller's value comes back after it
                        self.scopes[-1][name] = self.vars.get(name)
                    if "i" in opts:
                        self.integers.add(name)
                if re.match("^" + NAME + r"\+?=", w):
                    self.do_assign(w)
                if words[0] == "export":
                    self.exported.add(w.split("=", 1)[0].rstrip("+"))
            return
        if words[0] == "eval":
            # eval's words, expanded and joined, are read again as a command line (bash(1)
            # eval): `eval ${run_cmd}` with run_cmd="NCCL_DEBUG=info deepspeed ..."
            text = " ".join(f for w in words[1:] for f in self.expand(w))
            if self.depth < 4:
                self.depth += 1
                try:
                    self.run_text(text, inner=True)
                finally:
                    self.depth -= 1
            return
        argv = []
        for w in words:
            argv.extend(self.expand(w))
        env_prefix = []
        for a in assigns:
            name, _, raw = a.partition("=")
            env_prefix.append("%s=%s" % (name.rstrip("+"), " ".join(self.expand(raw, split=False))))
        self.maybe_launch(env_prefix + argv)

    def do_assign(self, word):
        name, _, raw = word.partition("=")
        append = name.endswith("+")
        name = name.rstrip("+")
        if raw.startswith("(") and raw.endswith(")"):
            items = []
            for k, w in lex(raw[1:-1]):
                if k == "w":
                    items.extend(self.expand(w))
            self.assign(name, items, append)
        elif name in self.integers:
            # `declare -i N=1+1`: the value is evaluated as arithmetic (bash(1) declare -i)
            expr = " ".join(self.expand(raw, split=False))
            self.assign(name, self.arith("%s + (%s)" % (name, expr) if append else expr))
        else:
            self.assign(name, " ".join(self.expand(raw, split=False)), append)

    def write_file(self, words):
        """`cat > F <<EOF ... EOF`, `echo "node1 slots=8" >> F`, `printf '%s\n' a b > F`: the
        text the script writes to F, kept as F's content for the launchers that read it later
        (a hostfile). Nothing is written; a text with run-time values is not kept."""
        mode, raw = self.out
        path = self.resolve(" ".join(self.expand(raw, split=False)))
        if MARK in path or not path:
            return
        w0 = words[0]
        if w0 == "cat" and len(words) == 1 and self.stdin is not None:
            body = self.stdin["body"]
            text = body if self.stdin["quoted"] else self.resolve(" ".join(self.expand(
                '"%s"' % body.replace("\\", "\\\\").replace('"', '\\"'), split=False)))
        elif w0 == "echo":
            args = [self.resolve(f) for w in words[1:] for f in self.expand(w)]
            nl = "\n"
            while args and args[0] in ("-n", "-e", "-ne", "-en", "-E"):
                nl = "" if "n" in args.pop(0) else nl
            text = " ".join(args) + nl
        elif w0 == "printf" and len(words) > 1:
            args = [self.resolve(f) for w in words[1:] for f in self.expand(w)]
            fmt = args[0].replace("\\n", "\n").replace("\\t", "\t")
            rest = args[1:]
            if fmt.count("%s") and fmt.count("%") == fmt.count("%s"):
                k = fmt.count("%s")
                groups = [rest[i:i + k] for i in range(0, max(len(rest), 1), k)] if rest else [[]]
                text = "".join(fmt % tuple(g + [""] * (k - len(g))) for g in groups[:MAX_ITERATIONS])
            elif "%" not in fmt:
                text = fmt
            else:
                return
        else:
            return
        if MARK in text:
            self.written.pop(path, None)
            self.result.notes.append("line %d: %s is written with values known at run time: not read" % (
                self.line, path))
            return
        old = self.written.get(path, "") if mode == ">>" else ""
        if len(self.written) >= MAX_WRITTEN and path not in self.written:
            return
        self.written[path] = (old + text)[:MAX_VALUE]

    def builtin(self, words):
        w0 = words[0]
        if w0 in (":", "true") and any(re.search(r"\$\{" + NAME + ":?=", w) for w in words[1:]):
            # `: "${IMAGE:=$APPS_PATH/deepspeed.sqsh}"`: the words are expanded for the
            # assignment the := makes (awsome-distributed-training pretrain_gpt_103b.sbatch)
            for w in words[1:]:
                self.expand(w)
            return
        if w0 in ("pushd", "popd") and (w0 == "popd" or len(words) > 1):
            # pushd DIR goes to DIR as cd does; popd to a directory the stack holds (bash(1), DIRECTORY STACK)
            words = ["cd", "-"] if w0 == "popd" else ["cd"] + words[1:]
            w0 = "cd"
        if w0 == "cd":
            # `cd $six_ALL_CCFRWORK/code/megatron-lm` then `pwd`/pretrain_gpt.py (bigscience
            # jz/slurm): $(pwd) and $PWD are the directory cd went to, not this shell's; `cd -`
            # goes to $OLDPWD (bash(1)), not home: not followed
            dirs = [f for w in words[1:] if w == "-" or not w.startswith("-") for f in self.expand(w)][:1]
            target = (dirs[0] if dirs[0] == "-" else self.resolve(dirs[0])) if dirs else os.path.expanduser("~")
            if dirs and dirs[0] != "-" and self._holds_secret(dirs[0]):
                # (cd "$API_KEY/.." then $(pwd): a part of the value; docs/security.md 66.)
                self.cwd = self.unknown("$(pwd)", "the directory the script changed to at line %d (a path made "
                                        "from a secret-looking value, not shown)" % self.line)
            elif MARK in target or self.cond or target == "-":
                self.cwd = self.unknown("$(pwd)", "the directory the script changed to at line %d (cd %s)" % (
                    self.line, excerpt(self.shown(dirs[0] if dirs else "~"), 60)))
            else:
                base = self.cwd if self.cwd is not None else os.getcwd()
                self.cwd = os.path.normpath(os.path.join(base, target)) if MARK not in base else (
                    self.unknown("$(pwd)", "the directory the script changed to at line %d" % self.line))
            return
        if w0 == "printf" and len(words) > 3 and words[1] == "-v" and re.match("^" + NAME + "$", words[2]):
            # `printf -v VAR FORMAT ARGS`: bash(1) assigns the output to VAR instead of printing it (FastVideo
            # examples/train/run_slurm.sh: printf -v CONFIG_SHELL_ARG '%q' "${CONFIG}" then --config
            # ${CONFIG_SHELL_ARG} in the job script; the value was read as the environment's; launch26)
            fmt = [self.resolve(x) for x in self.expand(words[3], split=False)]  # (a script argument: its value)
            args = [self.resolve(a) for w in words[4:] for a in self.expand(w)]
            value = None
            if len(fmt) == 1 and not any(MARK in x for x in fmt + args):
                value = printf_value(fmt[0], args)
            if value is None:
                value = self.unknown("$" + words[2], "printf -v at line %d (a format or value known only at run "
                                     "time)" % self.line)
            self.assign(words[2], value)
            return
        if w0 in ("cat", "echo", "printf") and self.out is not None and not self.skipping:
            if self.cond:
                self.written.pop(self.resolve(" ".join(self.expand(self.out[1], split=False))), None)
            else:
                self.write_file(words)
            return
        if w0 == "set" and len(words) > 1 and words[1] == "--":
            if self.cond:  # `if [ -n "$X" ]; then set -- a b; fi`: the arguments are these or the old ones
                self.positional = []
                self.args_unknown = "the script's arguments after line %d's set -- in a branch decided at run " \
                                    "time" % self.line
            else:
                whole = re.compile("^" + MARK + r"\d+" + MARK + "$")
                fields, spread = [], False
                for w in words[2:]:
                    got = self.expand(w)
                    # an unquoted $X known only at run time is zero or more words (set -- $A 3: bash without A has
                    # one argument); "$@" of arguments known only at run time keeps them unknown
                    spread = spread or (not re.search(r"""['"\\]""", w) and any(whole.match(f) for f in got)) or (
                        bool(self.args_unknown) and bool(re.search(r"\$\{?[@*]", w)))
                    fields.extend(got)
                self.positional = fields
                self.args_unknown = ("the script's arguments set at line %d from a value known only at run time"
                                     % self.line) if spread else None
        elif w0 == "shift":
            k = words[1] if len(words) > 1 and words[1].isdigit() else "1"
            if self.cond:
                # an argument loop: which ones stay is decided at run time, and so are $# and "$@" (they
                # were 0 and nothing, as if every argument had been shifted)
                self.positional = []
                self.args_unknown = "the script's arguments after line %d's shift in a branch or loop decided at " \
                                    "run time" % self.line
            else:
                self.positional = self.positional[int(k):]
        elif w0 in ("break", "continue"):
            for k in range(len(self.frames) - 1, -1, -1):
                f = self.frames[k]
                if f["kind"] == "loop":
                    f["first"] = False  # (a `while true` pass that may end here: an exec after it need not run)
                    if f.get("sim") and any(g["cur"] is None for g in self.frames[k + 1:]):
                        # `if run_exists "$flops" "$d"; then continue; fi` (nanochat's runs/scaling_laws.sh): bash
                        # decides at run time; the rest of this pass (of every later pass, for a `break`) runs only
                        # where it does not: planned, with that said (launch27)
                        f["maybe"] = "the loop's `%s` at line %d does not run" % (w0, self.line)
                        f["maybe_broken"] = f.get("maybe_broken") or (f["maybe"] if w0 == "break" else None)
                    elif f.get("sim"):
                        f["cur"] = False  # the rest of this pass does not run
                        f["broken"] = w0 == "break"
                    break
        elif w0 == "unset":
            for w in words[1:]:
                self.vars.pop(w, None)
        elif w0 in ("source", ".") and len(words) > 1:
            target = " ".join(self.expand(words[1]))
            path = None
            if self.remote is not None:
                # `ssh node bash -s <<EOF ... source env.sh`: the file is node's, not this machine's
                self.result.notes.append("line %d: %s %s runs on %s: not read here (its variables stay unknown)"
                                         % (self.line, w0, self.shown(target), self.remote))
                return
            if MARK not in target:
                for base in (os.getcwd(), os.path.dirname(os.path.abspath(self.path))):
                    cand = os.path.join(base, os.path.expanduser(target))
                    if os.path.isfile(cand):
                        path = cand
                        break
            if path is None or self.depth >= 4:
                self.result.notes.append("line %d: %s %s is not read (not on this machine: its variables stay "
                                         "unknown)" % (self.line, w0, self.shown(target)))
                return
            # read (never run) like the script itself: a config.env of NAME=value lines
            try:
                data = read_input(path, "sourced file", limit=MAX_SCRIPT)
            except NotRegularFile as exc:  # a FIFO, a device, /proc/kmsg (errors.open_input): never waited on
                self.result.notes.append("line %d: %s %s is not read (%s)" % (
                    self.line, w0, self.shown(target), "a kernel file" if "kernel file" in str(exc) else
                    "not a regular file"))
                return
            self.result.notes.append("line %d: read %s (%s)" % (self.line, self.shown(target), w0))
            line = self.line
            self.depth += 1
            frames = len(self.frames)
            try:
                sourced = data.decode("utf-8", "replace")
                self.result.texts.append(sourced)
                self.run_text(sourced, inner=True)
            finally:
                self.depth -= 1
                del self.frames[frames:]
                self.line = line

    # -------------------------------------------------------------- launch lines
    def maybe_launch(self, argv):
        from gpudoctor.launch import is_python

        k = 0
        while k < len(argv) and re.match("^" + NAME + "=", argv[k]):
            k += 1
        rest = argv[k:]
        lead = []
        while len(rest) > 1 and re.match("^" + MARK + r"\d+" + MARK + "$", rest[0]) and (
                os.path.basename(rest[1]) in LAUNCH_PROGS or rest[1:3] == ["accelerate", "launch"]
                or re.match(r"^python", os.path.basename(rest[1]))):
            lead.append(rest.pop(0))  # `$bin torchrun ...` with $bin "srun" or "": decided at run time
        if lead:
            self.result.notes.append("line %d: %s in front of the launcher is known only at run time (%s): planned "
                                     "without it" % (self.line, " ".join(self.shown(x) for x in lead),
                                                     "; ".join(self.marks(x)[0].why for x in lead)))
        assigned = []  # `env NAME=value torchrun ...`: the launcher's environment, as a NAME=value prefix is
        while rest and os.path.basename(rest[0]) == "uv" and rest[1:2] == ["run"]:
            rest = rest[2:]
            while rest and rest[0].startswith("-") and rest[0] != "-":
                opt = rest.pop(0)
                if opt == "--":
                    break
                if opt in ("-m", "--module") and rest:
                    rest = ["python", "-m"] + rest  # `uv run -m MOD` is `python -m MOD`
                    break
                if opt in UV_RUN_VALUE and rest:
                    rest.pop(0)
        while rest and os.path.basename(rest[0]) == "gantry" and rest[1:2] == ["run"]:
            # beaker-gantry's `gantry run [OPTIONS] -- ARGS`: the command after `--` is what the Beaker job runs
            # (gantry refuses ARGS without the `--`); `--env NAME=VALUE` is its environment (gantry/commands/run.py,
            # https://github.com/allenai/beaker-gantry/blob/722fb76d87f4981ce24a9cca07bfd52852716919/gantry/commands/run.py).
            # OLMo's scripts/beaker/annealing/launch_annealing_jupiter.sh: no launch line was found
            if "--" not in rest[2:]:
                return
            dd = rest.index("--", 2)
            opts = rest[2:dd]
            for j, o in enumerate(opts):
                v = o[len("--env="):] if o.startswith("--env=") else opts[j + 1] if o == "--env" and j + 1 < len(
                    opts) else None
                if v is not None and re.match("^" + NAME + "=", v):
                    assigned.append(v)
            self.result.notes.append("line %d: gantry run submits the command after `--` as a Beaker experiment: "
                                     "planned as that command" % self.line)
            rest = rest[dd + 1:]
            if self._gantry_shell(rest, assigned):
                return
        while rest and os.path.basename(rest[0]) in WRAPPERS:
            wrapper = os.path.basename(rest[0])
            rest = rest[1:]
            takes, operands = WRAPPERS[wrapper]
            if wrapper == "nsys":
                rest = _nsys_app(rest)
                if rest is None:
                    return  # nsys stats/export/...: no application started
                self.result.notes.append("line %d: nsys runs the command after its options under the profiler: "
                                         "planned as that command" % self.line)
                continue
            while rest and (rest[0].startswith("-") and rest[0] != "-" or (
                    wrapper == "env" and re.match("^" + NAME + "=", rest[0]))):
                if rest[0] == "--":
                    rest = rest[1:]
                    break
                if wrapper == "env" and re.match("^" + NAME + "=", rest[0]):
                    assigned.append(rest[0])
                elif rest[0] in takes and len(rest) > 1:
                    rest = rest[1:]  # an option that takes the next word
                rest = rest[1:]
            if wrapper == "env":
                while rest and re.match("^" + NAME + "=", rest[0]):
                    assigned.append(rest[0])
                    rest = rest[1:]
            if wrapper == "taskset" and rest[:1] and rest[0] in ("-p", "--pid"):
                return
            rest = rest[operands:]  # timeout's DURATION, taskset's MASK, chrt's PRIORITY
        if not rest:
            return
        prog = os.path.basename(rest[0])
        is_launch = prog in LAUNCH_PROGS or prog == "accelerate-launch"
        if is_python(prog):
            j = 1
            while j < len(rest) and rest[j].startswith("-") and rest[j] != "-m":
                j += 1
            is_launch = rest[j:j + 2] in (["-m", "torch.distributed.run"], ["-m", "torch.distributed.launch"],
                                          ["-m", "deepspeed.launcher.runner"], ["-m", "accelerate.commands.launch"])
        if prog == "accelerate" and rest[1:2] != ["launch"]:
            is_launch = False
        if prog in ("colossalai", "tune"):
            # ColossalAI's own launcher: torchrun on each host over ssh (launch/colossalai.py); torchtune's
            # `tune run`: torchrun with its options, or the recipe in-process (launch/torchtune.py)
            is_launch = rest[1:2] == ["run"]
        if prog == "srun":
            rest = self._srun_unknown_opts(rest)
            inner = self.srun_inner(rest)
            if inner is not None:
                return
        if prog in SHELLS and self.stdin is not None:
            args = _stdin_shell_args(rest)
            if args is not None and self._run_heredoc([], args, self.stdin, "%s reads it" % prog):
                return
        if prog == "ssh":
            return self._ssh(rest)
        if prog == "pdsh":
            return self._ssh(rest, pdsh=True)
        if prog == "clush":
            return self._clush(rest)
        if prog == "sbatch" and self.stdin is None:
            wrapped = _sbatch_wrap(rest)
            if wrapped is not None:
                return self._sbatch_wrapped(*wrapped)
        if prog == "sbatch" and self.stdin is not None and not any(
                w.startswith("--wrap") or re.search(r"\.(sh|bash|sbatch|slurm)$", w) for w in rest[1:]):
            return self._sbatch_heredoc(rest)
        if not is_launch and self.task_progs is not None and (is_python(prog) or _srun_shell_script(rest)):
            # `srun bash -c 'python train.py'`: srun is the launcher; `srun bash -c './run_and_time.sh ...'`:
            # srun starts a shell script in each task (read where it is here, launch25)
            self.task_progs.append(rest)
        if is_launch:
            self._note_conditional()
            self.result.launches.append(Launch(line=self.line, argv=argv[:k] + assigned + rest, shown="",
                                               written=dict(self.written),
                                               in_batch=bool(self.batch and prog != "srun" and not lead),
                                               no_args=self.arg_reads > getattr(self, "cmd_reads", self.arg_reads),
                                               blocked=self._missing_input() or _srun_no_command(rest),
                                               empties={k: self.set_empty[k] for k in sorted(self.empty_reads)
                                                        if k in self.set_empty}))

    def _missing_input(self):
        """bash's reason not to run the command, where an input redirection names a plain word that is no file
        here: a template's placeholder (GLM-130B's evaluate_multiple_node.sh `HOST_FILE_PATH="<your hostfile>"`,
        then `eval deepspeed ... --hostfile ${HOST_FILE_PATH} ...`: bash reads `<your` as input from the file
        'your', fails, and runs nothing; bash(1) REDIRECTION: "If any part of the redirection fails, the command
        is not executed"). Only a single relative word (no / or .): a path may well be there on the cluster."""
        for raw in getattr(self, "ins", []):
            words = self.expand(raw, split=False)
            if len(words) != 1 or MARK in words[0] or not re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", words[0]):
                continue
            if _find_here(words[0], self.path) is None:
                return ("bash would not run it: the redirection <%s reads the file %s, which is not here (bash: %s: No "
                        "such file or directory); a `<...>` in a value is a template's placeholder to fill in" % (
                            words[0], words[0], words[0]))
        return None

    def _task_script(self, rest):
        """(path, args) for `srun [opts] [bash] train.sh ARGS` when train.sh is here."""
        if not rest or MARK in rest[0]:
            return None
        k = 0
        if os.path.basename(rest[0]) in ("bash", "sh", "zsh", "dash"):
            k = 1
            if len(rest) < 2 or rest[1].startswith("-"):
                return None
        target = rest[k]
        if MARK in target or not re.search(r"\.(sh|bash|slurm|sbatch)$", target):
            return None
        path = _find_here(target, self.path)
        return (path, rest[k + 1:]) if path else None

    def _run_task_script(self, srun_words, path, args, words=None):
        """srun runs the script once per task: read it as the task's shell would (its own
        arguments, only the exported variables, per-task $SLURM_PROCID)."""
        if self.depth >= 4:
            return None
        data = read_input(path, "script", limit=MAX_SCRIPT)
        before = len(self.result.launches)
        saved = (self.batch, dict(self.vars), list(self.positional), self.path, self.line)
        self.batch = False
        self.vars = {k: v for k, v in self.vars.items() if k in self.exported}
        self.positional = list(args)
        self.result.notes.append("line %d: srun runs %s in every task: read it as each task would" % (
            self.line, path))
        self.depth += 1
        frames = len(self.frames)
        progs, self.task_progs = self.task_progs, []
        try:
            self.run_text(data.decode("utf-8", "replace"))
        finally:
            found, self.task_progs = self.task_progs, progs
            self.depth -= 1
            del self.frames[frames:]
            self.batch, self.vars, self.positional, self.path, self.line = saved
        for la in self.result.launches[before:]:
            la.argv = srun_words + la.argv
            la.via_shell = True
            la.line = self.line
        if len(self.result.launches) == before and found:
            # the script starts no launcher: srun itself starts what it runs once per task (`srun bash
            # job.sh` whose job.sh runs `python train.py`: uschpc/multi_gpu_training's and round 5's
            # left list; it gave no launch line, where `srun bash -c 'python ...'` gave one)
            self._task_found(srun_words, found)
        elif len(self.result.launches) == before and self.depth < 1:
            # nor any python: srun's line is the launch, its tasks each run the script (swift-work's
            # slurm-layouts/launch-srun.sh `srun -n 4 --ntasks-per-node 3 ./task-pmi.sh`, whose task-pmi.sh echoes
            # its rank: no launch line at all once the script was beside it; launch28)
            self._note_conditional()
            self.result.launches.append(Launch(line=self.line, argv=list(srun_words) + list(words or [path] + list(args)),
                                               shown="",
                                               written=dict(self.written), in_batch=False, task_script=path))
        return True

    def _task_found(self, srun_words, found):
        """What a task's shell (`srun bash -c STRING`, `srun bash X.sh`) runs when it starts no launcher:
        a python program is srun's own launch line; a shell script here is read as each task's (depth-bounded),
        one not here is srun running a script not read (launch/srun.py: the world is not known)."""
        from gpudoctor.launch import is_python

        first = _main_prog(found)
        if not is_python(os.path.basename(first[0])):
            sub = self._task_script(first)
            if sub is not None and self._run_task_script(srun_words, sub[0], sub[1]):
                return
        self._note_conditional()
        self.result.launches.append(Launch(line=self.line, argv=list(srun_words) + list(first), shown="",
                                           written=dict(self.written), in_batch=False, via_shell=True))

    def _read_nested(self, text, base=None):
        """Read text that a command of this script hands to another shell. The loops being
        recorded keep the command itself, not the text's own tokens (a replayed pass reads
        the text again from the command)."""
        recs = [(f, f.get("record")) for f in self.frames]
        for f, _ in recs:
            f["record"] = None
        try:
            if base is None:
                self.run_text(text, inner=True)
            else:
                self.run_text(text, base=base)
        finally:
            for f, rec in recs:
                f["record"] = rec

    def _run_heredoc(self, prefix, args, doc, how, remote=None):
        """A heredoc fed to a shell (`bash <<EOF`, `srun bash -s <<'EOS'`, `ssh node bash -s
        <<EOF`) is that shell's script: its lines are read as the script's. bash(1) Here
        Documents: with the delimiter unquoted the body is expanded by this shell first; quoted
        (`<<'EOS'`) it reaches the shell that reads it as written, and that shell expands it: a
        child sees only the exported variables, a remote one (ssh) none of them."""
        if self.depth >= 4:
            return None
        before = len(self.result.launches)
        saved = (self.batch, dict(self.vars), list(self.positional), self.line, self.remote)
        line = self.line
        self.remote = remote if remote is not None else self.remote
        per_task = bool(doc["quoted"] and prefix)
        if remote is not None:
            self.vars = {} if doc["quoted"] else self.vars
        elif doc["quoted"]:
            # a child shell: a variable the script set without export is empty there
            self.vars = {k: (v if k in self.exported else "") for k, v in self.vars.items()}
        if per_task or remote is not None:
            self.batch = False
        self.positional = list(args)
        self.result.notes.append("line %d: the heredoc <<%s (lines %d-%d) is script text: %s%s" % (
            line, doc["delim"], doc["line"], doc["line"] + doc["body"].count("\n") - 1, how,
            " (quoted: not expanded before)" if doc["quoted"] else ""))
        body = doc["body"]
        if not doc["quoted"]:
            # this shell expands it first: `\$X` reaches the reading shell as `$X` (bash(1): in an
            # unquoted body `\` quotes only `\`, `$` and backquote); the rest is read once, with
            # this shell's variables
            body = self._heredoc_expand(body)
        self.depth += 1
        frames = len(self.frames)
        try:
            self._read_nested(body, base=doc["line"] - 1)
        finally:
            self.depth -= 1
            del self.frames[frames:]
            self.batch, self.vars, self.positional, self.line, self.remote = saved
        for la in self.result.launches[before:]:
            la.argv = list(prefix) + la.argv
            la.via_shell = la.via_shell or per_task
            if prefix:
                la.in_batch = False
        return True

    def _heredoc_expand(self, body):
        """An unquoted heredoc's `$X` / `${X}` whose known value holds shell syntax (a quote, a backslash, a `$`, an
        operator) is put in as text: this shell expands the body and the shell that reads it parses the result
        (bash(1) Here Documents), so `printf -v A '%q' "$V"` then `cmd ${A}` in a job script's heredoc gives the one
        word V back, where the script's own `cmd ${A}` would give `a\\` and `b` (FastVideo
        examples/train/run_slurm.sh's extra arguments; launch26). Other values are read with this shell's
        variables as before. In the same pass `\\\\`, `\\$` and `\\`` lose their backslash (in an unquoted body `\\`
        quotes only those)."""
        def one(m):
            if m.group(1):
                return m.group(1)
            name = m.group(2) or m.group(3)
            v = self.vars.get(name)
            if not isinstance(v, str) or MARK in v or not re.search(r"[\\'\"$`;|&<>()\n]", v):
                return m.group(0)
            return v  # as it is: the value's own backslashes reach the reading shell

        return re.sub(r"\\([\\$`])|\$(?:(" + NAME + r")|\{(" + NAME + r")\})", one, body)

    def _sbatch_heredoc(self, rest):
        """`sbatch [options] <<EOF ... EOF`: sbatch(1) reads the batch script from its standard
        input when no file is named; its `#SBATCH` lines (then sbatch's options) give the
        allocation when the script itself has none."""
        doc = self.stdin
        body = doc["body"] if doc["quoted"] else re.sub(r"\\([\\$`])", r"\1", doc["body"])
        opts = [self.resolve(f) for w in rest[1:] for f in self.expand(w)]
        opts = [o for o in opts if MARK not in o]
        headers = sbatch_headers(body) + opts
        if headers and not self.result.allocation:
            alloc = allocation(headers)
            self.result.allocation = {k: v for k, v in alloc.items() if k != "env"}
            self.result.allocation["env"] = alloc["env"]
            self.result.allocation["sbatch"] = headers[:len(headers) - len(opts)]
            self.result.allocation["sbatch_command_line"] = opts
            for k in alloc["env"]:
                self.result.from_allocation[k] = "from the allocation (%s)" % _alloc_source(self.result.allocation)
        saved = self.batch
        self.batch = True
        try:
            self._run_heredoc([], [], doc, "sbatch reads it as the batch script")
        finally:
            self.batch = saved

    def _sbatch_wrapped(self, opts, cmd):
        """`sbatch [options] --wrap=CMD`: sbatch(1) --wrap: "Sbatch will wrap the specified command string in a
        simple "sh" shell script, and submit that script to the slurm controller" (https://slurm.schedmd.com/
        sbatch.html#OPT_wrap). CMD is that batch script, on the first node of the job sbatch's options ask for;
        with no -N, -n or --ntasks-per-node that job is one node and one task (the real Slurm 22.05 here:
        `sbatch --wrap "srun ..."` ran one task, SLURM_NNODES=1; tests/test_launch28_slurm.py). aws-samples/
        aws-parallelcluster-post-install-scripts pyxis/test.sh: `sbatch --wrap "srun --container-image=alpine ..."`
        was no launch line."""
        opts = [o for o in opts if MARK not in o]
        heads = list(opts)
        if not any(re.match(r"^(-[Nn]|--nodes|--ntasks)", o) for o in heads):
            heads = ["--nodes=1"] + heads  # sbatch's own default: one node
        alloc = allocation(heads)
        alloc["sbatch"], alloc["sbatch_command_line"] = [], opts
        before = len(self.result.launches)
        self.result.notes.append("line %d: sbatch --wrap runs its command string as the batch script (sh): read "
                                 "as that script" % self.line)
        if self.depth >= 4:
            return
        saved = (self.batch, dict(self.vars), list(self.positional), self.line)
        self.batch = True
        self.vars = {k: (v if k in self.exported else "") for k, v in self.vars.items()}
        self.positional = []
        self.depth += 1
        frames = len(self.frames)
        try:
            self._read_nested(cmd + "\n", base=self.line - 1)
        finally:
            self.depth -= 1
            del self.frames[frames:]
            self.batch, self.vars, self.positional, self.line = saved
        for la in self.result.launches[before:]:
            la.alloc = alloc

    def _clush(self, rest):
        """`clush -w NODES [options] command...` (ClusterShell's clush(1)): the command words joined by spaces run on
        every node at once, as pdsh's. Its options are read by ClusterShell's own parser (a dependency: node sets),
        set up as clush's main() sets it up (ClusterShell/CLI/Clush.py 1.10.1): it stops at the first word that is no
        option; --copy/--rcopy copy files and start nothing (launch29, round 9's Left)."""
        from ClusterShell.CLI.OptionParser import OptionParser

        class Parser(OptionParser):
            def error(self, msg):
                raise ValueError(msg)

            def exit(self, status=0, msg=None):
                raise ValueError(msg or "exits")

            def print_help(self, file=None):
                pass

            def print_version(self, file=None):
                pass

        p = Parser("%prog [options] command")
        p.add_option("-n", "--nostdin", action="store_true", dest="nostdin")
        p.install_groupsconf_option()
        p.install_clush_config_options()
        p.install_nodes_options()
        p.install_display_options(verbose_options=True)
        p.install_filecopy_options()
        p.install_connector_options()
        try:
            opts, args = p.parse_args(list(rest[1:]))
        except ValueError as exc:
            self.result.notes.append("line %d: clush would not run it (%s): not read" % (
                self.line, excerpt(str(exc).strip(), 120)))
            return
        if getattr(opts, "copy", False) or getattr(opts, "rcopy", False) or not args:
            return
        groups = getattr(opts, "group", None) or []
        nodes = ",".join(opts.nodes or []) or (",".join("@" + g for g in groups) if groups else
                                               "all nodes (-a)" if getattr(opts, "nodes_all", False) else "?")
        # -x NODES / -X GROUP take nodes away (clush(1)); a node set of known names is reduced as clush reduces it
        # (ClusterShell's NodeSet difference), anything else is named beside it
        out = [x for x in (getattr(opts, "exclude", None) or []) if x] + [
            "@" + g for g in (getattr(opts, "exgroup", None) or []) if g]
        if out:
            nodes = _node_set_less(nodes, ",".join(out))
        return self._ssh(["pdsh", "-w", nodes] + list(args), pdsh=True, tool="clush")

    def _ssh(self, rest, pdsh=False, tool="pdsh"):
        """`ssh [options] host [command...]` (ssh(1) SYNOPSIS): the command words, joined by
        spaces, are the remote shell's command line; with none (or a shell reading its input)
        a heredoc is what the remote shell reads. A launcher found there runs on that host
        only: each host started this way needs its own node rank and the master's address."""
        i, hosts = 1, None
        while i < len(rest) and rest[i].startswith("-"):
            flag = rest[i]
            if pdsh and flag[:2] == "-w":
                hosts = flag[2:] or (rest[i + 1] if i + 1 < len(rest) else "")
            i += 2 if (len(flag) == 2 and flag[1] in (PDSH_VALUE if pdsh else SSH_VALUE)) else 1
        if pdsh:
            # pdsh(1): `pdsh -w HOSTS command...` runs the same command on every host at once
            host, words = "every host of -w %s" % self.shown(hosts or "?"), rest[i:]
            how = "started on %s by %s: the same line on each, so a --node_rank written in it is every " \
                  "host's; each needs its own (from its environment) and the same MASTER_ADDR" % (host, tool)
        elif i >= len(rest):
            return
        else:
            host, words = self.shown(rest[i]), rest[i + 1:]
            how = "started on %s over ssh: every host started this way needs its own --node_rank and " \
                  "MASTER_ADDR" % host
        before = len(self.result.launches)
        if (not words or os.path.basename(words[0]) in SHELLS) and self.stdin is not None:
            args = _stdin_shell_args(words) if words else []
            if args is not None:
                self._run_heredoc([], args, self.stdin, how, remote=host)
        elif words and self.depth < 4:
            saved = (self.batch, dict(self.vars), self.remote)
            self.batch, self.vars, self.remote = False, {}, host
            self.result.notes.append("line %d: %s's command is read as a command line %s" % (
                self.line, tool if pdsh else "ssh", how))
            self.depth += 1
            try:
                self._read_nested(" ".join(words))
            finally:
                self.depth -= 1
                self.batch, self.vars, self.remote = saved
        for la in self.result.launches[before:]:
            la.in_batch = False
            if not pdsh:
                la.remote = la.remote or host
        return

    def _note_conditional(self):
        """A launch line inside an `if` (or a loop, a `case`) decided only at run time may not run
        at all: say which (huggingface/alignment-handbook recipes/launch.slurm starts `srun ...
        trl vllm-serve` only where its config file says use_vllm: true)."""
        undecided = [f for f in self.frames if f["cur"] is None and not f.get("first") or f.get("maybe")]
        if not undecided:  # (`while true`: its first pass runs)
            return
        f = undecided[-1]
        if f["cur"] is not None:  # a pass of a followed loop after a `continue`/`break` decided at run time
            note = "line %d: runs only where %s (its test is not known here)" % (self.line, f["maybe"])
            if note not in self.result.notes:
                self.result.notes.append(note)
            return
        where = ("the `if` at line %d" % f["line"]) if f["kind"] == "if" and f.get("line") else (
            "a loop" if f["kind"] == "loop" else "a `case`" if f["kind"] == "case" else "a branch")
        note = "line %d: runs only where %s takes this path at run time (its test is not known here)" % (
            self.line, where)
        if note not in self.result.notes:
            self.result.notes.append(note)

    def _srun_unknown_opts(self, argv):
        """`srun ${AUTO_RESUME} -l torchrun ...`: a word known only at run time among srun's
        options, followed by another option or by the program, is one of srun's options or
        nothing (awsome-distributed-training sets AUTO_RESUME to '' or '--auto-resume=1' in an
        `if`); taken as the program it made srun the launcher of '$AUTO_RESUME', world =
        tasks. Planned without it, with a note."""
        from gpudoctor.launch import SRUN_VALUE, is_python

        whole = re.compile("^" + MARK + r"\d+" + MARK + "$")
        out, dropped, i = argv[:1], [], 1
        while i < len(argv):
            w = argv[i]
            if whole.match(w) and i + 1 < len(argv):
                nxt = argv[i + 1]
                base = os.path.basename(nxt)
                if nxt.startswith("-") or base in LAUNCH_PROGS or base in SHELLS or is_python(base):
                    dropped.append(w)
                    i += 1
                    continue
            if not w.startswith("-"):
                break
            take = 2 if ("=" not in w and w in SRUN_VALUE) else 1
            out.extend(argv[i:i + take])
            i += take
        if dropped:
            self.result.notes.append("line %d: %s among srun's options is known only at run time (%s): planned as "
                                     "an srun option or nothing" % (self.line, " ".join(self.shown(x) for x in dropped),
                                                                    "; ".join(self.marks(x)[0].why for x in dropped)))
        return out + argv[i:]

    def _gantry_shell(self, rest, assigned):
        """`gantry run ... -- bash -c STRING` (OLMo's Beaker scripts): STRING runs in the Beaker job's own shell,
        which sees gantry's `--env NAME=VALUE` variables and the image's environment, none of the script's own
        variables (they were expanded where the script quoted them with "", before gantry ran); its launch lines are
        planned with the --env variables in front, as `NAME=value torchrun ...`."""
        if len(rest) < 3 or os.path.basename(rest[0]) not in SHELLS:
            return False
        j = 1
        while j < len(rest) and re.match(r"^-[A-Za-z]+$", rest[j]) and "c" not in rest[j]:
            j += 1
        if not (j < len(rest) and re.match(r"^-[A-Za-z]*c[A-Za-z]*$", rest[j])) or j + 1 >= len(rest):
            return False
        before = len(self.result.launches)
        saved = (self.batch, self.vars, self.exported)
        self.batch = False
        self.vars = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in assigned}
        self.exported = set(self.vars)
        depth = len(self.frames)
        try:
            self._read_nested(rest[j + 1])
        finally:
            del self.frames[depth:]  # an `if` left open inside the string ends with it
            self.batch, self.vars, self.exported = saved
        for la in self.result.launches[before:]:
            la.argv = list(assigned) + la.argv
        return True

    def srun_inner(self, argv):
        """`srun [opts] bash -c 'STRING'`: the string runs in each task's own shell."""
        from gpudoctor.launch import SRUN_VALUE, is_python

        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if ("=" not in argv[i] and argv[i] in SRUN_VALUE) else 1
        rest = argv[i:]
        sub = self._task_script(rest)
        if sub is not None:
            return self._run_task_script(argv[:i], sub[0], sub[1], words=rest)
        if rest and os.path.basename(rest[0]) in SHELLS and self.stdin is not None:
            args = _stdin_shell_args(rest)
            if args is not None:
                return self._run_heredoc(argv[:i], args, self.stdin, "srun runs %s in every task" % rest[0])
        if len(rest) >= 3 and os.path.basename(rest[0]) in ("bash", "sh", "zsh", "dash"):
            # bash -c STRING, bash -lc STRING, sh -xeuc STRING: the word after the flags that
            # hold `c` is the command string
            j = 1
            while j < len(rest) and re.match(r"^-[A-Za-z]+$", rest[j]) and "c" not in rest[j]:
                j += 1
            if not (j < len(rest) and re.match(r"^-[A-Za-z]*c[A-Za-z]*$", rest[j])) or j + 1 >= len(rest):
                return None
            body = rest[j + 1]
            before = len(self.result.launches)
            saved = (self.batch, dict(self.vars))
            # the task's own shell: what the batch shell left unexpanded ($SLURM_PROCID in single
            # quotes) is each task's own value now, and it sees only the exported variables (a
            # child process gets the environment, not the shell's own variables)
            self.batch = False
            hidden = sorted(k for k in self.vars if k not in self.exported and re.search(
                r"\$\{?" + k + r"\b", body))
            for k in hidden:
                self.vars[k] = ""
                self.result.notes.append("line %d: %s is set in the script but not exported: the task's shell "
                                         "(%s -c) sees it empty (export %s)" % (self.line, k, rest[0], k))
            depth = len(self.frames)
            progs, self.task_progs = self.task_progs, []
            try:
                self.run_text(body, inner=True)
            finally:
                found, self.task_progs = self.task_progs, progs
            del self.frames[depth:]  # an `if` left open inside the string ends with it
            self.batch, self.vars = saved[0], saved[1]
            if len(self.result.launches) == before and found and not is_python(os.path.basename(found[0][0])):
                # a shell script the string runs (mlcommons stable_diffusion's `srun ... bash -c
                # "./run_and_time.sh ..."`: 64 tasks each run it): read here, or srun running a script not read
                self._task_found(argv[:i], found)
                return True
            if len(self.result.launches) == before and found:
                # no launcher inside the string: srun itself starts the program once per task
                # (stas00/ml-engineering's srun-launcher.slurm: srun ... bash -c "$LAUNCHER
                # python -u test.py", Megatron-LM's SRUN.sh: srun ... sh -c "python ..."),
                # planned as `srun [opts] python ...` is
                self._note_conditional()
                self.result.launches.append(Launch(line=self.line, argv=list(_main_prog(found)), shown="",
                                                   written=dict(self.written), in_batch=False))
            for la in self.result.launches[before:]:
                # `srun ... bash -c "NAME=value accelerate launch ..."`: the task's own environment
                # words go in front of srun (as `NAME=value srun ...`, srun passes them on to the
                # task); behind srun they read as the program (huggingface/alignment-handbook
                # recipes/launch.slurm was refused: "'ACCELERATE_LOG_LEVEL=info': not a launcher")
                k = 0
                while k < len(la.argv) and re.match("^" + NAME + "=", la.argv[k]):
                    k += 1
                la.argv = la.argv[:k] + argv[:i] + la.argv[k:]
                la.via_shell = True
            return True
        return None


_PRINTF_SAFE = re.compile(r"[A-Za-z0-9_./:@%+=~#-]")


def _printf_q(v):
    """printf's %q (bash lib/sh/shquote.c sh_backslash_quote): a backslash before each character the shell would
    read otherwise; '' for the empty string. None where bash would write $'...' (a control character)."""
    if v == "":
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in v):
        return None
    return "".join(c if _PRINTF_SAFE.match(c) and not (i == 0 and c in "~#") else "\\" + c
                   for i, c in enumerate(v))


PRINTF_CONV = re.compile(r"%([-0 +#]*)([0-9]*)(?:\.([0-9]*))?([sqdiuxXob])")
MAX_PRINTF_WIDTH = 4096  # a wider field (`%999999999s`) is not followed: bash would write that many blanks
MAX_PRINTF_TEXT = 1 << 20  # nor a value longer than this (`%4096s` over a million arguments)


def printf_value(fmt, args):
    """The text `printf FORMAT ARGS` writes, for formats of %s, %q, %d with C's flags `-` `0` `+` ` `, a width and
    a precision (`%-12s`, `%05d`, `%.3s`; launch27: round 7 left them unknown), %% and the escapes \\n \\t \\\\
    (bash(1) printf: the format is reused until the arguments are used up; a conversion with no argument left reads
    the empty string, or 0). None for anything else (another conversion, `0` on a string, a width past
    MAX_PRINTF_WIDTH, a number outside bash's 64 bits): not followed."""
    parts = re.split(r"(%%|%[-0 +#]*[0-9]*(?:\.[0-9]*)?[sqdiuxXob]|%|\\\\|\\n|\\t|\\)", fmt)
    if any(p in ("%", "\\") for p in parts):
        return None
    convs = {p: PRINTF_CONV.fullmatch(p) for p in parts if p != "%%" and PRINTF_CONV.fullmatch(p)}
    for m in convs.values():
        flags, width, prec, conv = m.groups()
        if int(width or 0) > MAX_PRINTF_WIDTH or int(prec or 0) > MAX_PRINTF_WIDTH or (
                conv in "sqb" and set(flags) & set("0+ #")) or ("#" in flags and conv not in "xXo") or (
                conv in "uxXo" and set(flags) & set("+ ")):
            return None
    out, args, size, done = [], list(args), 0, 0
    while True:
        for p in parts:
            m = convs.get(p)
            if m:
                flags, width, prec, conv = m.groups()
                a = args.pop(0) if args else ("" if conv in "sqb" else "0")
                if conv == "q":
                    a = _printf_q(a)
                    if a is None:
                        return None
                if conv == "b":
                    # %b: the argument's own backslash escapes expanded (\n \t \\ only here; another is not followed)
                    if re.search(r"\\(?![nt\\])", a.replace("\\\\", "")):
                        return None
                    a, conv = a.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\0", "\\"), "s"
                if conv in "iuxXo":
                    # C's integer conversions (bash(1) printf, printf(3)): i as d; u, x, X, o of the 64-bit two's
                    # complement (printf %x -1 is ffffffffffffffff); `#` prefixes 0x / 0X / 0 (C's, not Python's 0o)
                    if not re.match(r"^[+-]?[0-9]+$", a) or not -2 ** 63 <= int(a) < 2 ** 63:
                        return None
                    if conv == "i":
                        conv = "d"
                    else:
                        n = int(a) % 2 ** 64
                        if prec is not None:
                            flags = flags.replace("0", "")
                        digits = "" if (prec is not None and int(prec or 0) == 0 and n == 0) else (
                            "%o" % n if conv == "o" else "%x" % n if conv == "x" else "%X" % n if conv == "X" else "%d" % n)
                        digits = digits.rjust(int(prec or 0), "0")
                        if "#" in flags and n and conv in "xX":
                            digits = ("0x" if conv == "x" else "0X") + digits
                        elif "#" in flags and conv == "o" and not digits.startswith("0"):
                            digits = "0" + digits
                        w = int(width or 0)
                        if "-" in flags:
                            out.append(digits.ljust(w))
                        elif "0" in flags:
                            pre = digits[:2] if digits[:2] in ("0x", "0X") else ""
                            out.append(pre + digits[len(pre):].rjust(w - len(pre), "0"))
                        else:
                            out.append(digits.rjust(w))
                        continue
                if conv == "d":
                    if not re.match(r"^[+-]?[0-9]+$", a) or not -2 ** 63 <= int(a) < 2 ** 63:
                        return None
                    if prec is not None:  # C: a precision makes the `0` flag of %d ignored (Python pads with 0s)
                        flags = flags.replace("0", "")
                    if prec is not None and int(prec or 0) == 0 and int(a) == 0:
                        # C: precision 0 and the value 0 write no digit (the sign flag's character only)
                        d = "+" if "+" in flags else " " if " " in flags else ""
                        out.append(d.ljust(int(width or 0)) if "-" in flags else d.rjust(int(width or 0)))
                        continue
                    out.append(("%" + flags + width + ("." + prec if prec is not None else "") + "d") % int(a))
                else:
                    out.append(("%" + flags + width + ("." + prec if prec is not None else "") + "s") % a)
            else:
                out.append({"%%": "%", "\\\\": "\\", "\\n": "\n", "\\t": "\t"}.get(p, p))
        size += sum(len(x) for x in out[done:])
        done = len(out)
        if size > MAX_PRINTF_TEXT:  # a wide field over many arguments: not followed (bounded in memory)
            return None
        if not args or not convs:
            return "".join(out)


def _appends_words(before, value):
    """Whether a new value is the old one with words appended (`X="$X --flag v"`, `X+=" --flag"`)."""
    return isinstance(before, str) and isinstance(value, str) and len(value) > len(before) and \
        value.startswith(before) and value[len(before)] in " \t\n" and bool(value[len(before):].strip())


def _main_prog(found):
    """The program a task's shell runs that is the job: the first that is not `python -c CODE` (mlcommons
    stable_diffusion's run_and_time.sh logs an mllog event with `python -c` before `python main.py`)."""
    for f in found:
        k = 1
        while k < len(f) and f[k].startswith("-") and f[k] not in ("-c", "-m"):
            k += 1
        if f[k:k + 1] != ["-c"]:
            return f
    return found[0]


def _sbatch_wrap(rest):
    """(sbatch's other options, CMD) of `sbatch [options] --wrap=CMD` / `--wrap CMD`, else None (no --wrap, a
    command string known only at run time, or a script operand after the options)."""
    opts, cmd, i = [], None, 1
    while i < len(rest):
        w = rest[i]
        if w.startswith("--wrap="):
            cmd = w[len("--wrap="):]
        elif w == "--wrap":
            if i + 1 >= len(rest):
                return None
            cmd = rest[i + 1]
            i += 1
        elif w.startswith("-"):
            opts.append(w)
            if "=" not in w and (w in _SBATCH_VALUE or re.match(r"^-[A-Za-z]$", w)) and i + 1 < len(rest):
                opts.append(rest[i + 1])
                i += 1
        else:
            return None
        i += 1
    if cmd is None or MARK in cmd or not cmd.strip():
        return None
    return opts, cmd


def _nsys_app(rest):
    """The application words of `nsys profile|launch [options] APP [ARGS]`, else None. Nsight Systems' CLI
    (https://docs.nvidia.com/nsight-systems/UserGuide/index.html#cli-command-line-options): `nsys
    [command_switch] [optional command_switch_options] [application] [optional application_options]`; a short
    option's parameter follows it after a space, a long option's after `=` (every profile/launch switch but
    --help takes one; ViT_clouds' run_exec_run_v2.bash writes `--force-overwrite true`, nsys reads that too)."""
    if not rest or rest[0] not in ("profile", "launch"):
        return None
    rest = rest[1:]
    while rest and rest[0].startswith("-") and rest[0] != "-":
        o, rest = rest[0], rest[1:]
        if o == "--":
            break
        if "=" not in o and o not in ("-h", "--help") and rest:
            rest = rest[1:]
    return rest or None


def _srun_shell_script(rest):
    """Whether a command a task's shell runs is a shell script (`./x.sh ARGS`, `bash x.sh ARGS`), as
    launch/srun.py's _shell_script reads srun's own program."""
    from gpudoctor.launch.srun import _shell_script

    return bool(rest) and MARK not in rest[0] and _shell_script(os.path.basename(rest[0]), rest[1:]) is not None


def _stdin_shell_args(rest):
    """The positional arguments of `bash [-l] [-s [ARGS]]` when the shell reads its commands
    from its standard input (bash(1) INVOCATION: with no -c and no file operand, or with -s);
    None when it reads them elsewhere (-c STRING, a script file)."""
    for k, w in enumerate(rest[1:], 1):
        if w == "--" or not w.startswith("-"):
            return list(rest[k + (w == "--"):]) if "s" in "".join(x[1:] for x in rest[1:k] if not x.startswith("--")) \
                else (None if w != "--" or k + 1 < len(rest) else [])
        if not w.startswith("--") and "c" in w[1:]:
            return None
        if w in ("--rcfile", "--init-file"):
            return None  # takes a file: not worth following
    return []


# "$@", "${@:N[:M]}", "${A[@]}", "${A[@]:N[:M]}" inside a double-quoted word (Reader's field splitting)
_AT_EXPANSION = re.compile(r"\$\{" + NAME + r"\[@\](?::[0-9]{1,4}(?::[0-9]{1,4})?)?\}|\$@|"
                           r"\$\{@(?::[0-9]{1,4}(?::[0-9]{1,4})?)?\}")


def quoted_at(name):
    return name == "@"


def _find_here(target, script_path):
    for base in (os.getcwd(), os.path.dirname(os.path.abspath(script_path))):
        cand = os.path.join(base, os.path.expanduser(target))
        if os.path.isfile(cand):
            return cand
    return None


def _eval(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Add):
            r = a + b
        elif isinstance(node.op, ast.Sub):
            r = a - b
        elif isinstance(node.op, ast.Mult):
            r = a * b
        elif isinstance(node.op, ast.FloorDiv):
            if b == 0:
                raise ZeroDivisionError
            r = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C division truncates
        elif isinstance(node.op, ast.Mod):
            if b == 0:
                raise ZeroDivisionError
            r = a - b * (abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1))
        elif isinstance(node.op, ast.Pow) and 0 <= b < 64:
            r = a ** b
        else:
            raise ValueError("operator")
        if abs(r) >= 1 << 63:
            raise ValueError("overflow")
        return r
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        # one comparison, 1 or 0 (bash(1) ARITHMETIC EVALUATION; a chain `a < b < c` is bash's (a < b) < c, not
        # Python's: not read)
        a, b = _eval(node.left), _eval(node.comparators[0])
        ops = {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b, ast.Eq: a == b, ast.NotEq: a != b}
        if type(node.ops[0]) in ops:
            return int(ops[type(node.ops[0])])
    raise ValueError("not arithmetic")


# ------------------------------------------------------------------ sbatch headers

def sbatch_headers(text):
    """#SBATCH options before the first command (sbatch(1): it stops at the first line that
    is neither a comment nor blank)."""
    opts = []
    for line in text.split("\n"):
        s = line.strip()
        if not s or (s.startswith("#") and not s.startswith("#SBATCH")):
            continue
        if not s.startswith("#SBATCH"):
            break
        body = s[len("#SBATCH"):].split(" #", 1)[0]
        try:
            import shlex

            opts.extend(shlex.split(body))
        except ValueError:
            continue
    return opts


def allocation(opts):
    """The allocation the #SBATCH options ask for, and the SLURM_* variables it sets. A heterogeneous job (`#SBATCH
    hetjob` between its components' options, `packjob` before Slurm 20.02): the batch script's own SLURM_* are
    component 0's, each component's counts are SLURM_*_HET_GROUP_<k> (the real Slurm 22.05 here, `-N 1 -n 2` hetjob
    `-N 2 --ntasks-per-node=1`: SLURM_NNODES=1, SLURM_NTASKS=2, SLURM_JOB_NUM_NODES_HET_GROUP_1=2,
    SLURM_NTASKS_HET_GROUP_1=2; tests/test_launch29_slurm.py; https://slurm.schedmd.com/heterogeneous_jobs.html)."""
    comps, cur = [], []
    for o in opts:
        if o in ("hetjob", "packjob"):
            comps.append(cur)
            cur = []
        else:
            cur.append(o)
    if not comps:
        return _allocation(opts)
    comps.append(cur)
    a = _allocation(comps[0])
    for k, c in enumerate(comps):
        ak = _allocation(c)
        for key, var in (("SLURM_JOB_NUM_NODES", "SLURM_JOB_NUM_NODES_HET_GROUP_%d"),
                         ("SLURM_NTASKS", "SLURM_NTASKS_HET_GROUP_%d"),
                         ("SLURM_NTASKS_PER_NODE", "SLURM_NTASKS_PER_NODE_HET_GROUP_%d")):
            if key in ak["env"]:
                a["env"][var % k] = ak["env"][key]
    a["env"]["SLURM_HET_SIZE"] = len(comps)
    a["het_size"] = len(comps)
    return a


def _allocation(opts):
    a = {}
    i = 0
    while i < len(opts):
        o = opts[i]
        name, eq, val = o.partition("=")
        if not eq and name in ("-N", "--nodes", "-n", "--ntasks", "--ntasks-per-node", "--gres", "--gpus-per-node",
                               "-G", "--gpus", "-c", "--cpus-per-task", "--gpus-per-task"):
            val = opts[i + 1] if i + 1 < len(opts) else ""
            i += 1
        elif not eq and re.match(r"^-[NncG]\d+$", name):  # glued short options: -N2, -n16, -c8, -G8
            name, val = name[:2], name[2:]
        i += 1
        if name in ("-N", "--nodes"):
            m = re.match(r"^(\d{1,9})(?:-(\d{1,9}))?$", val)
            if m:
                lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
                a.pop("nodes", None), a.pop("nodes_range", None), a.pop("refused", None)
                if lo == hi:
                    a["nodes"] = lo
                else:  # a range: sbatch picks the count when it starts the job
                    a["nodes_range"] = "%d-%d" % (lo, hi)
                if hi < lo:  # sbatch's own refusal, src/common/proc_args.c verify_node_count():
                    # https://github.com/SchedMD/slurm/blob/master/src/common/proc_args.c
                    a["refused"] = ("sbatch refuses -N %s: Maximum node count %d is less than minimum node count %d"
                                    % (a["nodes_range"], hi, lo))
        elif name in ("-n", "--ntasks") and val.isdigit():
            a["ntasks"] = int(val)
        elif name == "--ntasks-per-node" and val.isdigit():
            a["ntasks_per_node"] = int(val)
        elif name == "--gpus-per-node":
            m = re.match(r"^(?:[\w.-]+:)?(\d+)$", val)
            if m:
                a["gpus_per_node"] = int(m.group(1))
        elif name == "--gres":
            for g in val.split(","):
                m = re.match(r"^gpu(?::[\w.-]+)?:(\d+)(\(.*\))?$", g)
                if m:
                    a["gpus_per_node"] = int(m.group(1))
        elif name in ("-c", "--cpus-per-task") and val.isdigit():
            a["cpus_per_task"] = int(val)
        elif name in ("-G", "--gpus"):
            m = re.match(r"^(?:[\w.-]+:)?(\d+)$", val)
            if m:
                a["gpus_total"] = int(m.group(1))
        elif name == "--gpus-per-task":
            m = re.match(r"^(?:[\w.-]+:)?(\d+)$", val)
            if m:
                a["gpus_per_task"] = int(m.group(1))
    if "nodes" not in a and "nodes_range" not in a and a.get("ntasks") and a.get("ntasks_per_node"):
        # -n N --ntasks-per-node T and no -N: the fewest nodes that hold the tasks, ceil(N/T), as srun's own (launch27,
        # tests/test_launch27_slurm.py); the real Slurm 22.05 here gives the batch job that many too
        # (tests/test_launch29_slurm.py). ViniciusMikuni/H1Unfold scripts/submit.sh: `-n 64 --ntasks-per-node 4`,
        # 16 nodes (launch29)
        a["nodes"] = -(-a["ntasks"] // a["ntasks_per_node"])
    env = {}
    if a.get("nodes"):
        env["SLURM_NNODES"] = env["SLURM_JOB_NUM_NODES"] = a["nodes"]
    if a.get("ntasks_per_node"):
        env["SLURM_NTASKS_PER_NODE"] = a["ntasks_per_node"]
    nt = a.get("ntasks")
    if nt is None and a.get("nodes") and a.get("ntasks_per_node"):
        nt = a["nodes"] * a["ntasks_per_node"]
    if nt is None and a.get("nodes") and "ntasks_per_node" not in a:
        nt = a["nodes"]  # sbatch(1) -N alone: one task per node
    if nt is not None:
        a["tasks"] = nt
        if a.get("ntasks") or a.get("ntasks_per_node"):
            # sbatch(1) OUTPUT ENVIRONMENT VARIABLES: SLURM_NTASKS is "set to value of the --ntasks option, if
            # specified. Or, if either of the --ntasks-per-node or --ntasks-per-gpu options are specified, set to the
            # number of tasks in the job" (https://slurm.schedmd.com/sbatch.html#OPT_SLURM_NTASKS); `-N 2` alone
            # leaves it unset (the real Slurm 22.05 here, tests/test_launch28_slurm.py). srun reads it as its -n
            env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = nt
    tpn = a.get("ntasks_per_node")
    if not a.get("gpus_per_node") and a.get("gpus_per_task") and tpn and a.get("nodes") and \
            nt == a["nodes"] * tpn:
        # --gpus-per-task G with T tasks on every node: G x T a node (sbatch(1) --gpus-per-task)
        a["gpus_per_node"] = a["gpus_per_task"] * tpn
    a.pop("gpus_per_task", None)
    if not a.get("gpus_per_node") and a.get("gpus_total") and a.get("nodes") and a["gpus_total"] % a["nodes"] == 0:
        a["gpus_per_node"] = a["gpus_total"] // a["nodes"]  # -G spread evenly (sbatch places them itself)
    if a.get("gpus_per_node"):
        env["SLURM_GPUS_ON_NODE"] = env["SLURM_GPUS_PER_NODE"] = a["gpus_per_node"]
    if a.get("cpus_per_task"):
        env["SLURM_CPUS_PER_TASK"] = a["cpus_per_task"]
    a["env"] = env
    return a


# ------------------------------------------------------------------ planning

_SBATCH_VALUE = {"--nodes", "--ntasks", "--ntasks-per-node", "--gres", "--gpus", "--gpus-per-node", "--gpus-per-task",
                 "--cpus-per-task", "--time", "--partition", "--account", "--job-name", "--output", "--error",
                 "--qos", "--constraint", "--mem", "--nodelist", "--exclude", "--chdir", "--export", "--array",
                 "--dependency", "--reservation", "--mail-type", "--mail-user", "--signal", "--begin"}


class WrapLine(str):
    """An `sbatch [options] --wrap CMD` line given to plan/check as the launch line: the text of a one-line script,
    read by read_script as the script it would be in a file (its name: what the reports show as the script)."""

    def __new__(cls, line):
        self = str.__new__(cls, "(the launch line)")
        self.line = line
        return self


def read_script(path, args=(), environ=None, sbatch_options=()):
    """The launch lines of the script at `path`, each planned (never executed)."""
    data = path.line.encode() if isinstance(path, WrapLine) else read_input(path, "script", limit=MAX_SCRIPT)
    if b"\x00" in data:
        raise InputError("%s is not a shell script (it holds NUL bytes)" % path)
    text = data.decode("utf-8", "replace")
    kind = _manifest_kind(text)
    if kind:
        # a Kubernetes manifest (a Kubeflow PyTorchJob, a TrainJob runtime, a Job): read as a shell script it planned
        # "launch lines: none found" and exited 0 (launch27, kubeflow/training-operator's runtimes); plan does not
        # read manifests: say so, and what to give instead
        raise InputError("%s is a Kubernetes manifest (kind: %s), not a shell script: plan reads launch scripts "
                         "and launch lines, not manifests; plan the container's command with --launch '...'"
                         % (path, kind))
    sky = _skypilot_task(path, text)
    shell = text if sky is None else "\n" * sky["base"] + sky["run"]  # the run: block at its own line numbers
    headers = sbatch_headers(shell) + list(sbatch_options)
    batch = bool(headers) or path.endswith((".sbatch", ".slurm"))
    r = Reader(path, list(args), environ=environ, batch=batch)
    if sky is not None:
        _skypilot_env(r, sky)
    if headers:
        alloc = allocation(headers)
        r.result.allocation = {k: v for k, v in alloc.items() if k != "env"}
        r.result.allocation["env"] = alloc["env"]
        r.result.allocation["sbatch"] = headers[:len(headers) - len(sbatch_options)]
        r.result.allocation["sbatch_command_line"] = list(sbatch_options)
        for k in alloc["env"]:
            r.result.from_allocation[k] = "from the allocation (%s)" % _alloc_source(r.result.allocation)
    r.result.texts[:0] = [text, path] + list(args)
    r.run_text(shell)
    for name, body in list(r.functions.items()):
        if name not in r.called:
            # never called with a known name (`"$@"` dispatch, or not at all): read once on its
            # own, its arguments unknown, so its launch lines are still planned
            before = len(r.result.launches)
            r.positional = []
            r.frames = []
            r.alone = True
            r.feed(list(body))
            if len(r.result.launches) > before:
                r.result.notes.append("function %s is not called with known arguments: read once, its $1.. "
                                      "unknown" % name)
    for la in r.result.launches:
        _plan_launch(r, la)
    _ranks_started_here(r)
    err = _bash_syntax_error(shell)
    if err and not (err[1].startswith("unexpected EOF") and any("never closed" in n for n in r.result.notes)):
        # Megatron-DeepSpeed's examples/pretrain_gpt.sh line 7, `CHECKPOINT_PATH=<Specify path>`:
        # a template bash refuses ("syntax error near unexpected token `newline'"); the script
        # stops there and the launch lines after it never run
        r.result.notes.append("line %d: bash stops the script here with a syntax error (bash -n: %s)" % err)
        # bash parses a whole top-level command (a loop, an if, a function definition, a list) before it runs any
        # of it, so the error stops the script at that command's first line: MiniCPM-V's run_inference.sh has
        # `[[ ... *"MMBench_TEST"*]]` (no blank before ]]) on line 29 of a for loop that starts on line 23, and bash
        # runs neither of the loop's torchrun lines 25-26
        start = _command_start(shell, err[0]) if any(la.line < err[0] for la in r.result.launches) else err[0]
        for la in r.result.launches:
            if la.line >= start and not la.refused:
                la.findings.append(("bash stops the script with a syntax error at line %d (%s), before this line "
                                    "runs" % err) if la.line >= err[0] else (
                    "bash stops the script with a syntax error at line %d (%s), in the command that starts at line %d: "
                    "bash reads that whole command before it runs any of it, so this line never runs"
                    % (err + (start,))))
                if la.plan is not None:
                    la.plan.script_findings = list(la.findings)
    r.result.variables = {k: r.shown(v if isinstance(v, str) else " ".join(v)) for k, v in r.vars.items()}
    crlf = text.count("\r\n")
    if crlf and crlf >= text.count("\n") // 2:
        # a script saved by a Windows editor: bash keeps each line's \r as part of its last word, as read above
        # (`--master_port\r`, `$'\r': command not found`); the plan says why and how to convert it (userwalk22)
        from gpudoctor.fixline import sh

        r.result.notes.append(WINDOWS_ENDINGS + ": bash reads each line's \\r as part of its last word "
                              "('--nnodes 2\\r'); convert it: sed -i 's/\\r$//' %s (or dos2unix)" % sh(path))
    _redact(r.result, r.secrets)
    return r.result


WINDOWS_ENDINGS = "the script has Windows line endings (CRLF)"


def _node_set_less(nodes, out):
    """`nodes` without `out` (clush -w NODES -x OUT), folded as ClusterShell folds it; where either side is not a
    node set of known names (a group, a value known only at run time), both are named: "NODES except OUT"."""
    from ClusterShell.NodeSet import NodeSet, NodeSetException

    from gpudoctor.nodes import MAX_EXPAND, count_bound

    # NodeSet's RangeSet makes every index of a range first: node[1-900000000] took gigabytes (red team 2026-11-29,
    # docs/security.md 104.), so each side is counted from its text before it is built
    small = all(b is not None and b <= MAX_EXPAND for b in (count_bound(nodes), count_bound(out)))
    if small and not any(c in nodes + out for c in "@$\x00?") and "(" not in nodes:
        try:
            left = NodeSet(nodes)
            left.difference_update(NodeSet(out))
            return str(left) or "no node (-x took every one)"
        except (NodeSetException, ValueError, RecursionError):
            pass
    return "%s except %s" % (nodes, out)


def _skypilot_task(path, text):
    """A SkyPilot task YAML (`run: |` the commands each node runs; `num_nodes`, `resources.accelerators`, `envs`;
    https://docs.skypilot.co/en/latest/reference/yaml-spec.html): {run, base (the lines before its first), num_nodes,
    gpus, envs}, else None. Read as a shell script it planned its `run:` lines with every SkyPilot variable unknown
    (round 9's Left: SkyPilot YAMLs unmeasured; launch29)."""
    if not str(path).endswith((".yaml", ".yml")) or not re.search(r"(?m)^run:", text):
        return None
    from gpudoctor.launch.configs import load_yaml

    try:
        doc = load_yaml(path, "SkyPilot task YAML")
    except InputError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("run"), str):
        return None
    lines = text.split("\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("run:"))
    # `run: |` (a literal block): its text starts on the next line, line for line; `run: cmd`: on this one
    base = k + 1 if re.match(r"^run:\s*[|>]", lines[k]) else k
    res = doc.get("resources") if isinstance(doc.get("resources"), dict) else {}
    acc, gpus = res.get("accelerators"), None
    counts = []
    for item in (acc if isinstance(acc, (list, tuple)) else [acc] if acc is not None else []):
        if isinstance(item, dict):
            counts += [v for v in item.values()]
        elif isinstance(item, str):
            m = re.match(r"^[^:]+:\s*([0-9]+(?:\.[0-9]+)?)$", item.strip())
            # "A100" alone is one; "A100:x" is no count SkyPilot accepts, so the count is not known
            counts.append(m.group(1) if m else item if ":" in item else 1)
    if isinstance(acc, dict):
        counts = list(acc.values())
    counts = [c for c in counts if re.fullmatch(r"[0-9]{1,4}", str(c))]
    if counts and len(set(map(str, counts))) == 1:
        gpus = int(counts[0])
    nn = doc.get("num_nodes", 1)
    envs = doc.get("envs") if isinstance(doc.get("envs"), dict) else {}
    return dict(run=doc["run"], base=base, num_nodes=nn if isinstance(nn, int) and 0 < nn < 100000 else None,
                gpus=gpus, envs={str(k): v for k, v in envs.items()}, end=base + doc["run"].count("\n"))


def _skypilot_env(r, sky):
    """What SkyPilot gives each node's `run` commands (SkyPilot's native variables,
    https://docs.skypilot.co/en/latest/running-jobs/environment-variables.html): SKYPILOT_NUM_NODES (num_nodes),
    SKYPILOT_NUM_GPUS_PER_NODE (the accelerators' count), SKYPILOT_NODE_RANK (0.. on each node), SKYPILOT_NODE_IPS
    (the nodes' IPs, one a line, the head node's first), and the task's `envs` (sky launch --env overrides them)."""
    import shlex

    pre = []
    for k, v in sky["envs"].items():
        if re.match("^" + NAME + "$", k) and v is not None and not isinstance(v, (dict, list)) and str(v) != "":
            pre.append("export %s=%s" % (k, shlex.quote(str(v))))
    known = []
    if sky["num_nodes"] is not None:
        pre.append("export SKYPILOT_NUM_NODES=%d" % sky["num_nodes"])
        known.append("SKYPILOT_NUM_NODES=%d (num_nodes)" % sky["num_nodes"])
    if sky["gpus"] is not None:
        pre.append("export SKYPILOT_NUM_GPUS_PER_NODE=%d" % sky["gpus"])
        known.append("SKYPILOT_NUM_GPUS_PER_NODE=%d (resources.accelerators)" % sky["gpus"])
    r.run_text("\n".join(pre) + "\n")
    r.line = 0
    r.assign("SKYPILOT_NODE_RANK", r.unknown("$SKYPILOT_NODE_RANK", "each node's own rank (SkyPilot sets 0.."
                                             "num_nodes-1 on each node)"))
    r.assign("SKYPILOT_NODE_IPS", r.unknown("$SKYPILOT_NODE_IPS", "the task's node IPs, one a line, the head node's "
                                            "first (SkyPilot)", host=True))
    r.exported.update(("SKYPILOT_NODE_RANK", "SKYPILOT_NODE_IPS"))
    r.result.notes.append("read as a SkyPilot task: its run: commands (lines %d-%d) run on each of its nodes%s%s" % (
        sky["base"] + 1, max(sky["base"] + 1, sky["end"]), "; " + ", ".join(known) if known else "",
        " (sky launch --num-nodes / --gpus / --env override the YAML's)" if known or sky["envs"] else ""))


def _bash_syntax_error(text):
    """(line, message) of the first syntax error bash finds parsing the script with `bash -n`
    (bash(1): read commands but do not execute them), or None: no bash here, none found, or
    bash took longer than 2 s. The text goes on stdin with an empty environment (no BASH_ENV,
    nothing sourced); nothing of the script runs."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if not bash:
        return None
    try:
        p = subprocess.run([bash, "-n"], input=text.encode("utf-8", "replace"), capture_output=True, timeout=2,
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    for line in p.stderr.decode("utf-8", "replace").splitlines()[:20]:
        m = re.match(r"^\S*bash: line (\d{1,9}): (syntax error.*|unexpected EOF.*)$", line)
        if m:
            return int(m.group(1)), m.group(2)[:120]
    return None


def _command_start(text, line):
    """The first line of the top-level command that holds LINE (a syntax error's): the line after the last LINE' <
    LINE whose first LINE' lines bash -n reads whole (no error, no unexpected end of file: every loop, if, brace,
    quote and `&&` closed there). At most 400 lines up and 3 s (else LINE: the lines before it are left as they
    are)."""
    import shutil
    import subprocess
    import time

    bash = shutil.which("bash")
    if not bash or line <= 1:
        return line
    lines = text.split("\n")
    deadline = time.monotonic() + 3
    for j in range(line - 1, max(line - 401, 0) - 1, -1):
        if time.monotonic() > deadline:
            return line
        try:
            p = subprocess.run([bash, "-n"], input="\n".join(lines[:j]).encode("utf-8", "replace") + b"\n",
                               capture_output=True, timeout=2, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        except (OSError, subprocess.SubprocessError):
            return line
        if p.returncode == 0 and b"syntax error" not in p.stderr and b"unexpected EOF" not in p.stderr:
            return j + 1
    return line


def _redact(res, secrets):
    """Every value the script (or a file it sources: `source ~/.hf_env`) gave a secret-looking
    name (HF_TOKEN, WANDB_API_KEY, *_PASSWORD: collector/system.py secret_env_name) is written
    back as $NAME in all the result holds (the expanded lines, argv, the plans, notes,
    refusals), so `--token $HF_TOKEN` never prints the token, whichever part prints it."""
    pairs = sorted(secrets.items(), key=lambda kv: -len(kv[0]))
    seen = set()

    def text(s):
        for value, name in pairs:
            if value in s:
                s = s.replace(value, "$" + name)
        if credential_shape(s):
            # a credential typed as it is (`--hub_token hf_...`, a URL's password): no name to write back
            s = credential_pattern().sub(lambda m: m.group(0)[:m.group(0).index(":", 3) + 1] + "<redacted>@"
                                if m.group(0).startswith("://") else "<redacted>", s)
        return s

    def walk(x, depth):
        if isinstance(x, str):
            return text(x)
        if depth > 12 or id(x) in seen:
            return x
        seen.add(id(x))
        if isinstance(x, list):
            x[:] = [walk(v, depth + 1) for v in x]
        elif isinstance(x, tuple):
            return tuple(walk(v, depth + 1) for v in x)
        elif isinstance(x, dict):
            for k in list(x):
                x[k] = walk(x[k], depth + 1)
        elif hasattr(x, "__dict__") and not isinstance(x, type):
            for k, v in list(vars(x).items()):
                setattr(x, k, walk(v, depth + 1))
        return x

    walk(res, 0)


def _stand_ins(u, k, variant, numeric=False):
    """Two different values for an unknown, each valid where it stands: a host name (an
    endpoint: host:port), a port, else a small whole number (numeric: a number even where
    the unknown looks like a host)."""
    if u.fixed is not None:
        return u.fixed
    if u.host and not numeric:
        host = "unknown-host-%d%s" % (k, "ab"[variant])
        if re.search(r"ENDPOINT|RDZV", u.text.upper()):
            return "%s:%d" % (host, 29611 + 2 * k + variant)
        return host
    if "PORT" in u.text.upper():
        return str(29611 + 2 * k + variant)
    if numeric == "word":
        return "w%d%s" % (k, "ab"[variant])  # a name's part (`$PREFIX.$SUFFIX`: '1.3' is no host name)
    return str(1 + variant + 2 * k)


def _plan_launch(r, la):
    from gpudoctor.launch import hostfiles

    if la.blocked:
        import shlex

        la.shown = " ".join(shlex.quote(r.shown(a)) for a in la.argv)
        la.argv_shown = [r.shown(a) for a in la.argv]
        la.refused = la.blocked
        return

    token = hostfiles.WRITTEN.set(dict(la.written))  # the hostfile the script wrote, for this line only
    try:
        _plan_launch_here(r, la)
    finally:
        hostfiles.WRITTEN.reset(token)


def _job(r, la):
    """The job a launch line runs in: its own (`sbatch --wrap`), else the script's #SBATCH allocation."""
    return la.alloc if la.alloc is not None else r.result.allocation


def _plan_launch_here(r, la):
    import shlex

    env = dict(r.env_here)
    for k, v in _job(r, la).get("env", {}).items():
        env[k] = str(v)
    for name in r.exported:
        v = r.vars.get(name)
        if isinstance(v, str) and not r.marks(v):
            env[name] = v
    env = _task_script_env(la, env)
    marks = sorted({int(m) for a in la.argv for m in re.findall(MARK + r"(\d+)" + MARK, a)})
    la.unknown = [r.unknowns[m] for m in marks]
    la.shown = " ".join(shlex.quote(r.shown(a)) for a in la.argv)
    la.argv_shown = [r.shown(a) for a in la.argv]
    whole = re.compile("^" + MARK + r"(\d+)" + MARK + "$")
    # the unknowns that stand inside a value with other text (`--master_addr=$NODE.$DOMAIN`), not as a whole value
    inner = {int(m) for a in la.argv for v in [a.split("=", 1)[-1] if a.startswith("-") else a]
             if not whole.match(v) for m in re.findall(MARK + r"(\d+)" + MARK, v)}

    def attempt(numeric):
        ps, es, first = [], [], None
        for variant in (0, 1):
            sub = {m: "" if r.unknowns[m].optional else _stand_ins(
                r.unknowns[m], i, variant, numeric if numeric != "word" or m in inner else False)
                for i, m in enumerate(marks)}
            first = sub if first is None else first
            # words appended in a branch decided at run time (Unknown.optional): planned as bash passes them
            # when the branch does not run, no word at all
            line = " ".join(shlex.quote(re.sub(MARK + r"(\d+)" + MARK, lambda x: sub[int(x.group(1))], a))
                            for a in la.argv if not _optional_word(r, whole, a))
            try:
                ps.append(_plan_line(line, env))
            except InputError as exc:
                es.append(str(exc))
        return ps, es, first

    plans, errors, first_sub = attempt(False)
    if len(plans) < 2 and any(r.unknowns[m].host and r.unknowns[m].fixed is None for m in marks):
        # a host-looking unknown where the launcher wants a number (--machine_rank $(hostname |
        # sed 's/[^0-9]*//g'), DeepSpeedExamples benchmarks/deepcompile/run.sh) was refused for
        # its host-name stand-in: planned again with numbers before anything is refused
        again = attempt(True)
        if len(again[0]) > len(plans):
            plans, errors, first_sub = again
    if not plans and any(r.unknowns[m].fixed is None and not r.unknowns[m].host for m in marks):
        # unknowns inside a host's name (`--master_addr=$PREFIX.$SUFFIX`, planned '1.3') were refused for their
        # numeric stand-ins, which the script's values need not be: planned again with words before anything is
        # refused (red team 2026-11-28i, docs/security.md 101.)
        again = attempt("word")
        if len(again[0]) > len(plans):
            plans, errors, first_sub = again
    if len(plans) < 2:
        if not plans:
            la.refused = errors[0] if marks == [] or len(set(errors)) == 1 else (
                "%s (depends on %s)" % (errors[0], ", ".join(u.text for u in la.unknown)))
            if la.empties:
                # LLaMA-Adapter's srun_chat_llama65b_bias_scale_norm.sh: `n_gpus=` under "# total number of GPUs to
                # use.", then `srun ... -n ${n_gpus} --ntasks-per-node ${n_gpus}`: srun took --ntasks-per-node as -n's
                # value; the refusal says which values the template leaves to fill in (launch25)
                la.refused += " (the script sets %s to nothing: a template's value%s to fill in)" % (
                    ", ".join("%s (line %d)" % (k, n) for n, k in sorted((n, k) for k, n in la.empties.items())),
                    "s" if len(la.empties) > 1 else "")
            if la.no_args and "arguments are required" in la.refused:
                # `exec torchrun ... "$@"` (allenai/OLMo-core src/scripts/lambda/entrypoint.sh): the script's own
                # arguments are the launcher's program; planned without them, the line has none
                la.refused += " (the line takes them from the script's arguments, and none were given: gpudoctor " \
                              "plan %s ARGS...)" % (shlex.quote(r.path) if len(r.path) <= 200 and r.path.isprintable() else "SCRIPT")
            return
        la.refused = None
        r.result.notes.append("line %d: with other values of %s the launcher would refuse it: %s" % (
            la.line, ", ".join(u.text for u in la.unknown), errors[0]))
    a, b = plans[0], plans[-1]
    ja, jb = a.to_json(), b.to_json()
    la.varies = [k for k in ja if ja[k] != jb[k] and k not in ("notes",)]
    for m in marks:
        if r.unknowns[m].once:
            la.once_uses[r.unknowns[m].text] = _once_uses(la, a, ja, m, first_sub, env)
    a.notes = [n for n in a.notes if n in b.notes]
    _mark_unknown(r, a, b, la, first_sub)
    la.plan = a
    _findings(r, la)
    a.script_findings = list(la.findings)


RANK_WRITTEN = "the node rank is %d on every node (written in the script"


def _manifest_kind(text):
    """The `kind:` of a Kubernetes manifest (its first document's top-level `apiVersion:` and `kind:`, before any
    line a shell script would start with), else None. A shell script has no top-level `apiVersion: x` line: bash
    would run it as a command named `apiVersion:`."""
    seen, kind = set(), None
    for line in text.splitlines()[:200]:
        if not line.strip() or line.lstrip().startswith("#") or line.strip() == "---":
            continue
        m = re.match(r"^(apiVersion|kind|metadata|spec):(?:\s+(\S.*))?$", line)
        if m is None:
            if line[:1] in (" ", "\t"):
                continue  # a nested mapping's line
            break
        seen.add(m.group(1))
        if m.group(1) == "kind" and m.group(2) and re.match(r"^[A-Za-z][A-Za-z0-9]{0,62}$", m.group(2).strip()):
            kind = m.group(2).strip()
        if {"apiVersion", "kind"} <= seen and kind:
            return kind
    return None


def _ranks_started_here(r):
    """A script that itself starts every node rank of one job is not a script that every node runs with
    one rank written in it: slitvinov/deepseek-slurm's main.sh starts `torchrun --nnodes 2 --node-rank 0 ... &`
    and `torchrun --nnodes 2 --node-rank 1 ... &` on this machine (two agents, one host); each line had the
    finding "every node claims rank 0" / "rank 1" (launch27). Where the lines with the same launcher, node
    count, master and rendezvous hold each rank 0..N-1, the finding is dropped (and a loopback master's: every agent
    is on this machine) and the plan says so."""
    groups = {}
    for la in r.result.launches:
        p = la.plan
        if la.refused or p is None or p.machine_rank is None or p.nnodes_min != p.nnodes_max or not p.nnodes_max:
            continue
        key = (p.launcher, p.nnodes_max, p.master_addr, p.master_port, p.rdzv_backend, p.rdzv_endpoint)
        groups.setdefault(key, []).append(la)
    for key, las in groups.items():
        ranks = sorted(la.plan.machine_rank for la in las)
        if len(las) < 2 or ranks != list(range(key[1])):
            continue
        for la in las:
            # (a loopback master is then this machine's, which every agent reaches)
            kept = [f for f in la.findings if not f.startswith(RANK_WRITTEN % la.plan.machine_rank) and not (
                f.startswith("the master address is %s on a " % la.plan.master_addr))]
            if len(kept) < len(la.findings):
                la.findings = kept
                la.plan.script_findings = list(kept)
        hosts = [la.remote for la in las]
        if all(hosts) and len(set(hosts)) == len(hosts):
            # each started on its own host by `ssh HOST ...` (a loop over the hosts): not this machine's agents
            # (insightface's arcface_torch dist.sh shape, `for((node_rank=0;...))`; launch29)
            r.result.notes.append("lines %s start node ranks %s of one %d-node %s job, each over ssh on its own host "
                                  "(%s)" % (", ".join(str(la.line) for la in las), ", ".join(map(str, ranks)),
                                            key[1], key[0], ", ".join(hosts)))
            continue
        r.result.notes.append("lines %s start node ranks %s of one %d-node %s job on this machine: each node's "
                              "agent is a line of this script (a one-host test of a multi-node run)" % (
                                  ", ".join(str(la.line) for la in las), ", ".join(map(str, ranks)), key[1], key[0]))


def _once_uses(la, a, ja, once, sub, env):
    """The plan fields a task rank expanded once by the batch shell reaches: the line planned
    again with that rank 1 instead of 0, the fields that differ. torchrun reads --node-rank
    for the static rendezvous only (torch/distributed/run.py config_from_args:
    rdzv_configs["rank"] = args.node_rank when rdzv_backend == "static"; the c10d and etcd
    rendezvous rank the agents as they join, dynamic_rendezvous.py), so under c10d a node rank
    of 0 everywhere changes nothing; a launcher that refuses the other value reads it."""
    import shlex

    other = dict(sub)
    other[once] = "1"
    line = " ".join(shlex.quote(re.sub(MARK + r"(\d+)" + MARK, lambda x: other[int(x.group(1))], w))
                    for w in la.argv)
    try:
        p = _plan_line(line, env)
    except InputError:
        return ["refused"]
    jo = p.to_json()
    uses = [k for k in ja if ja[k] != jo[k] and k not in ("notes", "sources")]
    if p.machine_rank != a.machine_rank:
        uses.insert(0, "machine_rank")
    mark = "%s%d%s" % (MARK, once, MARK)
    if "env" not in uses and any(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w) and mark in w for w in la.argv):
        uses.append("env")  # NAME=$SLURM_PROCID for the ranks: a value the plan redacts is still the same everywhere
    return uses


def _optional_word(r, whole, a):
    """A word that is wholly an optional unknown (words bash passes or not): left out of the planned line."""
    m = whole.match(a)
    return bool(m) and r.unknowns[int(m.group(1))].optional


def _plan_line(line, env):
    from gpudoctor.launch import build_plan

    return build_plan(launch=line, environ=env)


def _task_script_env(la, env):
    """The launch's environment, with srun's mark that the task script was read (launch/srun.py TASK_SCRIPT_READ)."""
    from gpudoctor.launch.srun import TASK_SCRIPT_READ

    return dict(env, **{TASK_SCRIPT_READ: "1"}) if la.task_script else env


def _mark_unknown(r, a, b, la, sub):
    """Fields that differ between the two stand-ins depend on an unknown: numbers None,
    text with the stand-in written back as the script wrote it (and where it comes from)."""
    back_map = {v: r.unknowns[m] for m, v in sub.items() if r.unknowns[m].fixed is None}
    back_map.update({v.rsplit(":", 1)[0]: u for v, u in list(back_map.items()) if u.host and ":" in v})

    def desc(value, why=True):
        if not isinstance(value, str):
            return value
        if value in back_map:
            u = back_map[value]
            return "%s (%s)" % (u.text, u.why) if why else u.text
        out = value
        for v, u in sorted(back_map.items(), key=lambda x: -len(x[0])):
            if u.host and v in out:
                out = out.replace(v, "%s (%s)" % (u.text, u.why) if why else u.text)
        if out == value:
            out = in_word(value) or out
        return out

    def in_word(value):
        """A value cut from a word of the line that holds stand-ins (`--master_addr=$X$X` planned '11'): the
        same part of the word as the script wrote it ('$X$X'), never the stand-ins (red team 2026-11-28i, 101.);
        '?' where the value starts or ends inside a stand-in."""
        if not value:
            return None
        for w in la.argv:
            if MARK not in w:
                continue
            parts = re.split(MARK + r"(\d+)" + MARK, w)
            segs = [(p, p, False) if j % 2 == 0 else (sub.get(int(p), ""), MARK + p + MARK, True)
                    for j, p in enumerate(parts)]
            k = "".join(x for x, _o, _m in segs).find(value)
            if k < 0:
                continue
            e, pos, orig, marked = k + len(value), 0, [], False
            for text, raw, is_mark in segs:
                lo, hi = pos, pos + len(text)
                pos = hi
                if hi <= k or lo >= e:
                    continue
                if is_mark:
                    if lo < k or hi > e:
                        return "?"
                    orig.append(raw)
                    marked = True
                else:
                    orig.append(text[max(k, lo) - lo:min(e, hi) - lo])
            if marked:
                return r.shown("".join(orig))
        return None

    for f in ("nnodes_min", "nnodes_max", "nproc_per_node", "world_min", "world_max", "master_port", "machine_rank",
              "port_asked"):
        if getattr(a, f) != getattr(b, f):
            setattr(a, f, None)
    if a.master_addr != b.master_addr:
        a.master_addr = desc(a.master_addr)
    if a.rdzv_endpoint != b.rdzv_endpoint:
        if a.rdzv_endpoint and b.rdzv_endpoint and ":" in a.rdzv_endpoint and ":" in b.rdzv_endpoint:
            (ha, pa), (hb, pb) = a.rdzv_endpoint.rsplit(":", 1), b.rdzv_endpoint.rsplit(":", 1)
            a.rdzv_endpoint = "%s:%s" % (ha if ha == hb else desc(ha), pa if pa == pb else "?")
        else:
            a.rdzv_endpoint = desc(a.rdzv_endpoint) if a.rdzv_endpoint else None
    # a word of the line that holds a stand-in inside it ($(dirname ...)/src/train.py planned as
    # 1/src/train.py): written back whole, as the script wrote it (it printed 'script
    # 1/src/train.py'; awsome-distributed-training qwen3_8b-qlora-zero2.sbatch)
    words = {re.sub(MARK + r"(\d+)" + MARK, lambda x: sub[int(x.group(1))], w): r.shown(w)
             for w in la.argv if MARK in w}

    def word(x):
        return words.get(x) if isinstance(x, str) and x in words and x not in back_map else desc(x, why=False)

    if a.script != b.script:
        a.script = word(a.script)
    if [(n.host, n.slots, n.procs) for n in a.nodes] != [(n.host, n.slots, n.procs) for n in b.nodes]:
        if len(a.nodes) == len(b.nodes):
            for x, y in zip(a.nodes, b.nodes):
                if x.host != y.host:
                    x.host = desc(x.host) or "?"
                if x.slots != y.slots:
                    x.slots = None
                if x.procs != y.procs:
                    x.procs = None
        else:
            a.nodes = []
    if a.batch.ok != b.batch.ok:
        a.batch.ok = None
    if a.env_set != b.env_set:  # `X=$UNKNOWN torchrun ...` printed the stand-in ('env set X=13')
        def back(v):
            for sv, u in sorted(back_map.items(), key=lambda x: -len(x[0])):
                v = v.replace(sv, u.text)
            return v

        a.env_set = {k: (back(v) if b.env_set.get(k) != v else v) for k, v in a.env_set.items()}
    if a.script_args != b.script_args:
        if len(a.script_args) == len(b.script_args):  # only the words that differ hold a stand-in
            a.script_args = [word(x) if x != y else x for x, y in zip(a.script_args, b.script_args)]
        else:
            a.script_args = [word(x) for x in a.script_args]
    a.sources = ["%s line %d" % (r.path, la.line)]


# what a plan field is, in a finding
ONCE_FIELDS = {"master": "the master address or port", "rdzv": "the rendezvous endpoint",
               "script_args": "the training script's arguments", "env": "the launch line's environment",
               "nodes": "the node list", "script": "the training script", "refused": "a value the launcher checks"}


def _findings(r, la):
    """What a reader of the script can see is wrong before it runs."""
    from gpudoctor.launch import is_loopback

    plan = la.plan
    nodes = plan.nnodes_max if plan.nnodes_max is not None else _job(r, la).get("nodes")
    multi = (nodes or 0) > 1
    uses = la.once_uses
    alone = la.in_batch and _one_node_agent(plan)
    if alone:
        uses = {}  # one agent, on the batch shell's node: task 0's values are its own (the finding below)
    alloc_nodes = _job(r, la).get("nodes") or 0
    apart = alone and alloc_nodes > 1 and (plan.nnodes_min or 0) > 1 and not any(
        o.via_shell or (o.argv and os.path.basename(o.argv[0]) == "srun") for o in r.result.launches)
    if apart:
        # sbatch(1): the batch script runs on the first node of the allocation; only srun (or
        # a launcher that starts the other nodes itself: DeepSpeed's pdsh, mpirun) reaches the others
        more = plan.nnodes_min - 1
        la.findings.append(
            "the batch shell runs this line once, on the first node of the %d-node allocation (no srun in front): "
            "%s starts there only and waits for %d more node%s that nothing starts; start it on every node: srun "
            "--ntasks-per-node=1 %s ... (a node rank from $SLURM_NODEID inside srun bash -c '...')" % (
                alloc_nodes, plan.launcher, more, "" if more == 1 else "s", plan.launcher))
    spool = [u for u in la.unknown if u.why.startswith("a path in " + SPOOL)]
    if spool:
        # slurmd writes the batch script to its spool directory (SlurmdSpoolDir/job<ID>/slurm_script) and runs that
        # copy: $0 is there, so $(dirname "$0")/configs/x is a path that does not exist
        la.findings.append(
            "%s is %s in an sbatch file (slurmd runs its own copy of the script there), not this file's directory: "
            "what the line reads from it is not there; use $SLURM_SUBMIT_DIR (the directory sbatch ran in) or an "
            "absolute path" % (spool[0].text, SPOOL))
    agents = _srun_tasks(la.argv, _job(r, la)) if plan.launcher == "torchrun" and \
        plan.rdzv_backend in ("c10d", "etcd", "etcd-v2") and plan.nnodes_max is not None and \
        "--standalone" not in la.argv else None
    if agents is not None and agents > plan.nnodes_max:
        # srun runs torchrun once per task; each is a node's elastic agent, and the c10d/etcd rendezvous takes
        # --nnodes MAX of them (torchrun's default 1:1): the agents past MAX join no round (torch
        # elastic/rendezvous/dynamic_rendezvous.py: a complete, full round puts a late node on its redundancy
        # list; older torch let it poll until the join timeout); llama-cookbook getting-started/finetuning/
        # multi_node.slurm: 2 tasks, no --nnodes
        given = next((w.split("=", 1)[1] if "=" in w else la.argv[k + 1] for k, w in enumerate(la.argv[:-1])
                      if w.split("=", 1)[0] in ("--nnodes", "--nnodes_min")), None)
        left = agents - plan.nnodes_max
        per_node = agents == alloc_nodes
        # srun's own -N / --ntasks-per-node asked for another count, which the allocation's SLURM_NTASKS overrode
        srun_got = dict(_srun_opts(la.argv))
        k_own = srun_got.get("--ntasks-per-node")
        n_own = srun_got.get("-N", srun_got.get("--nodes"))
        overridden = bool(alloc_nodes and _job(r, la).get("env", {}).get("SLURM_NTASKS") and not any(
            k in srun_got for k in ("-n", "--ntasks")) and (k_own or n_own) and all(
            (v or "1").isdigit() for v in (k_own, n_own)) and int(n_own or alloc_nodes) * int(k_own or 1) != agents)
        la.findings.append(
            "srun starts %d torchrun agents (one per task) for a rendezvous of at most %d node%s (%s): %s and the "
            "other %d wait%s with no place (torch keeps %s as spare%s; older torch ends %s after the join timeout); "
            "%s" % (
                agents, plan.nnodes_max, "" if plan.nnodes_max == 1 else "s",
                "--nnodes %s" % r.shown(given) if given is not None else "torchrun's default --nnodes 1:1",
                "one agent's workers train alone" if plan.nnodes_max == 1 else
                "%d agents' workers train" % plan.nnodes_max, left, "s" if left == 1 else "",
                "it" if left == 1 else "them", "" if left == 1 else "s", "it" if left == 1 else "them",
                "the allocation's SLURM_NTASKS=%d is srun's -n, and srun drops a --ntasks-per-node that does not "
                "give it (Slurm: \"can't honor --ntasks-per-node ... Ignoring --ntasks-per-node\"): give srun -n %d "
                "--ntasks-per-node=1 (one agent a node) and torchrun --nnodes=%d" % (
                    agents, alloc_nodes, alloc_nodes) if overridden else
                "give torchrun --nnodes=%d ($SLURM_NNODES: one agent a node)" % agents if per_node else
                "start one agent a node (srun --ntasks-per-node=1) and give torchrun --nnodes=$SLURM_NNODES"))
    rank = sorted(t for t, k in uses.items() if "machine_rank" in k)
    other = sorted(t for t, k in uses.items() if k and t not in rank)
    unused = sorted(t for t, k in uses.items() if not k)
    if rank and multi:
        la.findings.append(
            "%s is expanded once by the batch shell, before srun starts the tasks: every node gets the same value "
            "(0), so every node claims rank 0 (--node_rank/--machine_rank). Let each task expand it: srun bash -c "
            "'... %s ...' (single quotes), or use a launcher that reads it per task" % (", ".join(rank), rank[0]))
    if other and multi:
        fields = []
        for t in other:
            fields.extend(ONCE_FIELDS.get(k, k) for k in uses[t] if ONCE_FIELDS.get(k, k) not in fields)
        la.findings.append(
            "%s is expanded once by the batch shell, before srun starts the tasks: every node gets the same value "
            "(0) in %s. Let each task expand it: srun bash -c '... %s ...' (single quotes)" % (
                ", ".join(other), " and ".join(fields[:3]), other[0]))
    if unused and multi:
        # torch/distributed/run.py: --node-rank reaches the static rendezvous only; accelerate and
        # DeepSpeed hand it on the same way (launch/accelerate.py _rank_read, deepspeed.py)
        plan.note("%s is expanded once by the batch shell (0 on every node), but %s does not use it: %s" % (
            ", ".join(unused), plan.launcher, "the %s rendezvous ranks the nodes as they join" % plan.rdzv_backend
            if plan.rdzv_backend and plan.rdzv_backend != "static" else "it ranks the nodes itself"))
    if multi and plan.machine_rank is not None and not rank and not apart and "machine_rank" not in la.varies \
            and not _srun_one_node(la.argv):
        rank_flags = ("--node_rank", "--node-rank", "--machine_rank", "--machine-rank")
        toks = [la.argv[j + 1] for j, a in enumerate(la.argv[:-1]) if a in rank_flags] + [
            a.split("=", 1)[1] for a in la.argv if a.split("=", 1)[0] in rank_flags and "=" in a]
        # (review27, launch27's measure27 'distribution' worker_*.sh beside its master_*.sh) a script run by hand
        # whose one launch line writes a rank past 0 with a routable master is that node's own copy (a file every
        # node ran would leave no node 0 to form the job): a note says when it would be wrong, not a finding. A
        # written rank 0 stays a finding (the shared script that forgot to read the rank: hardcoded_rank.sh)
        by_hand = not la.in_batch and not (la.argv and os.path.basename(la.argv[0]) in ("srun", "mpirun", "pdsh")) \
            and plan.machine_rank > 0 and len(r.result.launches) == 1 and not (
                plan.master_addr and is_loopback(plan.master_addr.split(" ")[0]))
        if toks and not any(MARK in t for t in toks) and by_hand:
            plan.note("the node rank is written as %d in the script (not read from the node) on a %d-node plan: "
                      "right only where each node runs its own copy with its own rank; where every node runs this "
                      "file, every node claims rank %d: take it from the node (an argument: bash train.sh NNODES "
                      "NODE_RANK)" % (plan.machine_rank, nodes, plan.machine_rank))
        elif toks and not any(MARK in t for t in toks):
            la.findings.append(
                "the node rank is %d on every node (written in the script, not read from the node) on a %d-node "
                "plan: every node claims rank %d; take it from the node (e.g. $SLURM_NODEID under srun, or an "
                "argument: bash train.sh NNODES NODE_RANK)" % (plan.machine_rank, nodes, plan.machine_rank))
    alloc_nodes = _job(r, la).get("nodes")
    if multi and plan.master_addr and is_loopback(plan.master_addr.split(" ")[0]) and plan.nnodes_min is not None \
            and plan.nnodes_min <= 1 and not (alloc_nodes and alloc_nodes > 1):
        # (wrong27) an elastic range whose minimum is one node ('--nnodes 1:2', torchrun's MIN_SIZE:MAX_SIZE,
        # https://pytorch.org/docs/stable/elastic/run.html) runs on this node alone; a loopback endpoint fails only
        # for a node that joins later: what to change then, not an error of the run shown
        plan.note("the rendezvous endpoint %s is loopback: the job runs on one node (--nnodes %d:%d); a node that "
                  "joins later cannot reach it - use this node's address before adding one" % (
                      plan.master_addr, plan.nnodes_min, nodes))
    elif multi and plan.master_addr and is_loopback(plan.master_addr.split(" ")[0]):
        la.findings.append("the master address is %s on a %d-node plan: the other nodes cannot reach it; use the "
                           "master node's address (e.g. the first name `scontrol show hostnames \"$SLURM_JOB_NODELIST\"` prints)"
                           % (plan.master_addr, nodes))
    gpn = _job(r, la).get("gpus_per_node")
    if gpn and plan.nproc_per_node and plan.nproc_per_node > gpn and "nproc_per_node" not in la.varies:
        la.findings.append("%d processes per node but the allocation gives %d GPU%s per node (%s)" % (
            plan.nproc_per_node, gpn, "" if gpn == 1 else "s", _alloc_source(_job(r, la))))
    ws = plan.world_size()
    # WORLD_SIZE as the script computes it (exported: torch's env:// and the HF Trainer read
    # it), and --world-size N handed to the training script, against what the launcher starts
    v = r.vars.get("WORLD_SIZE")
    v = r.resolve(v) if isinstance(v, str) else None
    if ws is not None and v and v.isdigit() and int(v) != ws and (
            "WORLD_SIZE" in r.exported or any("$WORLD_SIZE" in u.text for u in la.unknown)):
        la.findings.append("the script computes WORLD_SIZE=%s but the launcher starts %d processes%s" % (
            v, ws, "" if plan.launcher in ("srun", "mpirun", "mpiexec", "mpiexec.hydra") else
            " (%s sets WORLD_SIZE for its workers itself: the script's own count is wrong somewhere)"
            % plan.launcher))
    args = [r.resolve(a) for a in plan.script_args]
    for j, a in enumerate(args[:-1]):
        if a in ("--world_size", "--world-size") and args[j + 1].isdigit() and ws is not None and \
                int(args[j + 1]) != ws:
            la.findings.append("the script tells the training script %s %s but the launcher starts %d processes"
                               % (a, args[j + 1], ws))


def _srun_one_node(argv):
    """`srun -N1 ...` / `--nodes=1` / `-n1` / `--ntasks=1` in front of the launcher: the line runs on
    one node (srun(1)), so a rank written into it is that node's own (`srun -N1 -w node2 torchrun
    --node_rank 1 ... &` beside the first node's own line)."""
    if not argv or os.path.basename(argv[0]) != "srun":
        return False
    return any(name in ("-N", "--nodes", "-n", "--ntasks") and val in ("1", "1-1") for name, val in _srun_opts(argv))


def _srun_no_command(argv):
    """srun's refusal of `srun [opts]` with no command after its options (Otter's run_eval_otter_slurm.sh line 24,
    `srun --cpu_bind=v --accel-bind=gn` with its `\\` missing before the python line: refused as "--launch names no
    launcher", a flag not typed; launch26). Slurm's srun 22.05 here says "srun: fatal: No command given to execute."
    and exits 1, before it reads any configuration; bash then runs the next line on its own."""
    from gpudoctor.launch import SRUN_VALUE

    if not argv or os.path.basename(argv[0]) != "srun" or any(MARK in a for a in argv[1:]):
        return None
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if ("=" not in argv[i] and argv[i] in SRUN_VALUE) else 1
    if i < len(argv):
        return None
    return ("srun would refuse this: no command after its options (srun: fatal: No command given to execute.; exit "
            "1), and bash goes on with the next line on its own: a `\\` missing at the end of this line?")


def _srun_opts(argv):
    """(name, value) of each option of `srun [opts] CMD` before CMD: `--name=value`, `-Xvalue`, or the next word
    for an option that takes one (SRUN_VALUE); value None for a flag."""
    from gpudoctor.launch import SRUN_VALUE

    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        name, val = (a.split("=", 1) + [None])[:2] if a.startswith("--") else (a[:2], a[2:] or None)
        if val is None and name in SRUN_VALUE and i + 1 < len(argv):
            val = argv[i + 1]
            i += 1
        yield name, val
        i += 1


def _srun_tasks(argv, alloc):
    """How many tasks `srun [opts] ...` starts (srun(1)): -n; -N times --ntasks-per-node; -N alone, one a node;
    --ntasks-per-node on the allocation's nodes; else the job's own tasks (#SBATCH). None: not known here."""
    if not argv or os.path.basename(argv[0]) != "srun":
        return None
    got = {}
    for name, val in _srun_opts(argv):
        key = {"-n": "n", "--ntasks": "n", "-N": "N", "--nodes": "N", "--ntasks-per-node": "k"}.get(name)
        if key:
            if not (val or "").isdigit():
                return None  # a range, a value known at run time
            got[key] = int(val)
    if "n" in got:
        return got["n"]
    if alloc.get("tasks") and alloc.get("env", {}).get("SLURM_NTASKS"):
        # srun(1) INPUT ENVIRONMENT VARIABLES: SLURM_NTASKS is -n; the job's task count is the step's, and a
        # --ntasks-per-node (or -N) that does not give it is dropped: "srun: Warning: can't honor --ntasks-per-node
        # set to 1 which doesn't match the requested tasks 4 with the number of requested nodes 2. Ignoring
        # --ntasks-per-node." (the real Slurm 22.05 here, tests/test_launch28_slurm.py)
        return alloc["tasks"]
    if "N" in got:
        return got["N"] * got.get("k", 1)
    if "k" in got:
        return alloc["nodes"] * got["k"] if alloc.get("nodes") else None
    return alloc.get("tasks")


def _one_node_agent(plan):
    """A launcher that starts the processes of its own node only, so every node must run it:
    torchrun (each node's elastic agent), accelerate (torchrun underneath, unless it hands a
    multi-machine DeepSpeed job to DeepSpeed's runner) and deepspeed --no_ssh."""
    if plan.launcher in ("torchrun", "torch.distributed.launch"):
        return True
    if plan.launcher == "accelerate":
        return not (plan.nodes_source or "").startswith("DeepSpeed")
    return plan.launcher == "deepspeed" and plan.machine_rank is not None


def _alloc_source(a):
    parts = []
    if a.get("sbatch"):
        parts.append("#SBATCH " + " ".join(a["sbatch"]))
    if a.get("sbatch_command_line"):
        parts.append("sbatch " + " ".join(a["sbatch_command_line"]))
    return "; ".join(parts)


def script_command(argv):
    """(path, args) when argv runs a shell script (`train.sh 2 0`, `bash train.sh 2 0`,
    `sbatch job.sbatch`), else None (a launch line)."""
    from gpudoctor.launch import _is_launcher

    if not argv:
        return None
    prog = os.path.basename(argv[0])
    if prog == "sbatch" and _sbatch_wrap(list(argv)) is not None:
        # `plan --launch "sbatch -N 2 --wrap 'srun torchrun ...'"` (review28): the command string is the batch
        # script (sbatch(1) --wrap); it was taken for a script path ("cannot read script 'srun torchrun ...'") or,
        # as --wrap=CMD, refused as no launcher. Read as a one-line script, as plan SCRIPT reads that line (66fb95a5)
        import shlex

        return WrapLine(shlex.join(argv)), [], []
    if prog in ("bash", "sh", "dash", "zsh", "sbatch"):
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            if prog == "sbatch" and "=" not in argv[i] and (argv[i] in _SBATCH_VALUE or re.match(r"^-[A-Za-z]$",
                                                                                                  argv[i])):
                i += 1
            i += 1
        if i < len(argv) and os.path.isfile(argv[i]):
            # sbatch's own options override the file's #SBATCH lines (sbatch(1))
            return argv[i], list(argv[i + 1:]), (list(argv[1:i]) if prog == "sbatch" else [])
        if i < len(argv):
            if os.path.lexists(argv[i]):  # a FIFO, a device, a folder: the input rule says which
                _not_regular(argv[i])
            raise InputError("cannot read script %s: %s" % (excerpt(argv[i], 80), missing(argv[i])))
        return None
    if _is_launcher(argv) or prog == "srun":
        return None
    if os.path.isfile(argv[0]) and not is_python_name(prog):
        return argv[0], list(argv[1:]), []
    if re.search(r"\.(sh|bash|sbatch|slurm|job)$", argv[0]) or "/" in argv[0]:
        if os.path.lexists(argv[0]):  # not a regular file: refused by the one input rule, with its reason
            _not_regular(argv[0])
        why = missing(argv[0])
        raise InputError("cannot read script %s: %s" % (excerpt(argv[0], 80), why + (
            " (or give a launcher: torchrun, deepspeed, ...)" if why.startswith("no such") else "")))
    return None


def _not_regular(path):
    """An existing path that is not a regular file, named as a script: the one input rule refuses a FIFO,
    a folder, a device with its reason; the one it reads, /dev/null, is empty: said so, never "no such
    file" for a file that exists."""
    read_input(path, "script", limit=MAX_SCRIPT)
    raise InputError("script %s is the null device, empty: no launch line to read" % excerpt(path, 80))


def is_python_name(prog):
    from gpudoctor.launch import is_python

    return is_python(prog)


def plan_prose(text, windows=()):
    """A note, finding or refusal of the plan as printed: fixline.guarded_prose (docs/security.md 78.), plan's own list
    of launchers (`python -m torch.distributed.run|launch`) read as written: only the words around it are the
    script's."""
    from gpudoctor.fixline import guarded_prose
    from gpudoctor.launch import LAUNCHERS

    return LAUNCHERS.join(guarded_prose(part, windows) for part in str(text).split(LAUNCHERS))


def render_script(res):
    from gpudoctor.fixline import input_windows
    from gpudoctor.launch.plan import render_text

    # a note, a finding or a refusal is prose around the script's words (a sourced file's name, a script srun runs):
    # `line 2: source ./x;touch${IFS}M;# is not read (...)` ran touch when the clause after ': ' was pasted. Each is
    # written as explain writes its prose (fixline.guarded_prose: docs/security.md 58., 68., 78.), the script's own
    # '; ' told from the prose's by the texts read
    prose = list(res.notes) + [x for la in res.launches for x in list(la.findings) + [la.refused or ""] +
                               (list(la.plan.notes) if la.plan is not None else []) + [u.why for u in la.unknown]]
    windows = input_windows(prose, res.texts)

    def said(text):
        return plan_prose(text, windows)

    def word(text):
        # an unknown's text is the script's word as written ('$(touch M)', '`cmd`', 'a;b'): one sh() word where it
        # holds what would run or redirect when the row's clause after its blanks is pasted, as the line row quotes
        # it (docs/security.md 83., 94.); a plain '$NAME' or '${NAME:-8}' reads as written
        from gpudoctor.fixline import sh

        return sh(text) if re.search(r"[`;|&<>()\n]", text) else text

    out = ["script         %s%s" % (res.path, (" " + " ".join(res.args)) if res.args else "")]
    a = res.allocation
    if a:
        out.append("allocation     %s: nodes %s, tasks %s, GPUs per node %s%s" % (
            _alloc_source(a), a.get("nodes") or a.get("nodes_range", "?"), a.get("tasks", "?"),
            a.get("gpus_per_node", "?"), " (component 0 of a heterogeneous job of %d; srun --het-group=K runs in "
                                         "component K)" % a["het_size"] if a.get("het_size") else ""))
        if a.get("refused"):
            out.append("  refused      %s" % a["refused"])
    if not res.launches:
        out.append("launch lines   none found (torchrun, python -m torch.distributed.*, deepspeed, accelerate launch, "
                   "mpirun/mpiexec, horovodrun, srun)")
    for la in res.launches:
        out.append("")
        out.append("line %-9d %s" % (la.line, la.shown))
        for u in la.unknown:
            if u.given:
                if not u.text[1:].isdigit():
                    out.append("  known        %s = %s: %s" % (word(u.text), word(u.fixed), said(u.why)))
                continue
            out.append("  unknown      %s: %s%s" % (word(u.text), said(u.why), "; from this shell: %s" % u.here
                                                   if u.here not in (None, "") else ""))
        if la.refused:
            out.append("  refused      %s" % said(la.refused))
            continue
        for f in la.findings:
            out.append("  finding      %s" % said(f))
        out.extend("  " + x for x in render_text(la.plan, windows).rstrip("\n").split("\n"))
    for n in res.notes:
        out.append("note           %s" % said(n))
    # every word here came from the script: a control character (an escape sequence) is
    # shown escaped, never sent to the terminal
    from gpudoctor.report.text import _printable

    return "\n".join(_printable(line) for line in out) + "\n"
