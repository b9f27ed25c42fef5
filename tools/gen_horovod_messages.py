#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/horovod_messages.json: the errors horovod (horovod/horovod) can
print: horovodrun's (horovod/runner: `raise X("...")`, `assert ..., "..."`, logging/warnings calls and the
`print(...)` lines that report a failure, read with Python's ast) and the core's (horovod/common/*.cc, *.h:
`LOG(ERROR|WARNING|FATAL) << ...`, the stall inspector's `message << ...`, `Status::...Error("...")`, `throw
std::...("...")`, each `<<` chain read as literals with %s between), and the framework bindings' raises
(horovod/torch, horovod/tensorflow, horovod/keras, horovod/common/*.py), each with a bounded matcher and the
knowledge family from RULES.

Usage:
    python tools/gen_horovod_messages.py --repo /path/to/horovod.git [--rev HEAD] [-o OUT]
    python tools/gen_horovod_messages.py --slice tools/data/horovod_messages_slice.txt -o OUT   (the test)

Source: horovod/horovod (https://github.com/horovod/horovod), read with `git show REV:path`.
"""

import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_horovod_messages.py"
DIRS = ("horovod/runner", "horovod/common", "horovod/torch", "horovod/tensorflow", "horovod/keras",
        "horovod/_keras")

# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise, error, warning, print)
RULES = [
    # a warning (warnings.warn, logger.warning, LOG(WARNING)) is context: deprecations, fallbacks
    ("warning", None, {"level": r"^warning$"}),
    # the stall inspector (common/stall_inspector.cc): some ranks submitted a tensor the others did not
    ("stall", "horovod.stall", {"text": r"submitted to be reduced|is stalled for longer than"}),
    ("stall-config", None, {"text": r"HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is less than"}),
    # common.h SHUT_DOWN_ERROR: every rank's echo of an exception on one rank
    ("shutdown", "horovod.shutdown", {"text": r"Horovod has been shut down"}),
    ("exited", "mpi.rank_died", {"text": r"one or more processes exited with non-zero"}),
    ("mismatch", "horovod.mismatch", {"text": r"^Mismatched|Mismatched (?:data types|operations|.{0,40}tensor shapes)|"
                                              r"different (?:rank|shape|type)"}),
    ("ssh", "horovod.ssh", {"text": r"\bssh\b|\bSSH\b"}),
    ("nic", "horovod.network_interface", {"text": r"interface|--network-interface|\bNICs?\b|routable"}),
    ("build", "horovod.build", {"text": r"not been built|not built with|was built with|has not been compiled|"
                                        r"Neither MPI nor Gloo|Extension horovod|check-build|HOROVOD_WITH|"
                                        r"reinstall(?:ing)? Horovod"}),
    ("hostfile", "horovod.hosts", {"where": r"^horovod/runner/", "text": r"host ?file|--hosts?\b|-H\b|slots|"
                                                                        r"hostnames|host-discovery|Host "
                                                                        r"discovery|num_proc|-np\b"}),
    ("init", "horovod.init", {"text": r"has not been initialized|hvd\.init\(\)"}),
    ("gloo-http", "horovod.error", {"where": r"gloo", "level": r"^(raise|error)$"}),
    # lsf.py's '%s failed with exit code %s' names neither program nor cause: the same words are setuptools' /
    # distutils' own (_distutils/spawn.py: "command {cmd!r} failed with exit code {exitcode}", what every failed
    # C-extension build prints), so the words say nothing of horovod
    ("foreign-wording", None, {"text": r"^%s failed with exit code %s$"}),
    ("other", "horovod.error", {"level": r"^(raise|error)$"}),
]

# the runner's print() lines that report a failure (the rest is progress: 'Checking ssh on all remote hosts.')
_PRINT_FAIL = re.compile(r"fail|error|not successful|unable|could not|cannot|invalid|must\b", re.I)
_CPP_START = re.compile(r"\b(LOG\s*\(\s*(ERROR|WARNING|FATAL)\b[^)]*\)|error_message_stream\s*<<|message\s*<<|"
                        r"Status::(?:Unknown|Precondition|InvalidArgument|Aborted|InProgress)\w*\s*\(|"
                        r"throw\s+std::\w+\s*\()")
_CPP_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def _cpp_format(stmt):
    """A `<<` chain or a call's string argument as a printf format: literals kept (adjacent ones joined),
    any expression between them a %s; std::endl a line break (a blank here). None without a literal."""
    out, pos, seen = [], 0, False
    # a choice between two literals (cond ? "CPU" : "GPU") prints one of them: an expression
    stmt = re.sub(r'\?\s*"(?:[^"\\\n]|\\.)*"\s*:\s*"(?:[^"\\\n]|\\.)*"', "? x : x", stmt)
    for m in _CPP_LIT.finditer(stmt):
        gap = stmt[pos:m.start()]
        gap = re.sub(r"std::endl", " ", gap)
        if re.search(r"[A-Za-z0-9_]", re.sub(r"\b(?:LOG|ERROR|WARNING|FATAL|error_message_stream|message|Status|"
                                              r"Unknown\w*|Precondition\w*|InvalidArgument|Aborted|throw|std|"
                                              r"\w+_error|runtime_error|logic_error|invalid_argument)\b", "", gap)):
            out.append("%s")
        out.append(m.group(1).replace('\\"', '"').replace("\\n", " ").replace("\\t", " "))
        pos, seen = m.end(), True
    if not seen:
        return None
    tail = stmt[pos:]
    if re.search(r"<<\s*[A-Za-z0-9_*(]", tail):
        out.append("%s")
    fmt = " ".join("".join(out).split())
    return re.sub(r"(?:%s\s*){2,}", "%s ", fmt).strip()


def cpp_sites(path, src):
    for m in _CPP_START.finditer(src):
        stmt = src[m.end():knowgen.statement_end(src, m.end())]
        fmt = _cpp_format(stmt)
        if not fmt:
            continue
        level = (m.group(2) or "error").lower() if m.group(1).startswith("LOG") else "error"
        if "message <<" in m.group(1) and "stall_inspector" in path:
            level = "error"  # the stall report: LOG(WARNING) at first, LOG(ERROR) when it shuts down
        yield level, "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


def py_sites(path, src):
    def printed(node):  # the runner's print(...) of a failure
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
                and node.args and path.startswith("horovod/runner/")):
            return "print", node.args[0]
        return None, None

    for level, line, fmt in knowgen.py_messages(src, printed):
        if level != "print" or _PRINT_FAIL.search(fmt):
            yield ("error" if level == "print" else level), "%s:%d" % (path, line), fmt


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        found = cpp_sites(path, src) if path.endswith((".cc", ".h")) else py_sites(path, src)
        for level, where, fmt in sorted(found, key=lambda s: int(s[1].rsplit(":", 1)[1])):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "horovod.%s" % knowgen.slug(where), "where": where, "text": fmt, "level": level}
            # horovod's short texts ('setaffinity failed') are any program's words: 16+ characters
            if not knowgen.unanchored(site, rx, literal, 16):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                site.update({"re": rx, "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header("horovod/horovod (https://github.com/horovod/horovod)", version, GENERATOR,
                                     "horovodrun's and the bindings' raise/assert/logging/print messages (Python ast) "
                                     "and the core's LOG/Status/throw texts (C++); families from the RULES table"),
            "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, DIRS, lambda p: re.search(r"\.(py|cc|h)$", p) and "test" not in p),
            knowgen.revision(git, rev))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    return knowgen.emit("horovod_messages", build(*knowgen.source_files(a, from_repo)), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
