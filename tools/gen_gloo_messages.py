#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/gloo_messages.json: the failures Gloo (torch's CPU
collective backend, torch/third_party/gloo) can raise: every GLOO_ENFORCE* check, which throws
gloo::EnforceNotMet printed as `[enforce fail at <file>:<line>] <condition>. <message>`
(gloo/common/logging.h), and every GLOO_THROW_IO_EXCEPTION / GLOO_THROW message (transport errors:
timeouts, peers that closed the connection, addresses that do not resolve), each with a bounded
matcher and the knowledge family from the RULES table below.

Usage:
    python tools/gen_gloo_messages.py --repo /path/to/gloo.git [--rev HEAD] [-o OUT]
    python tools/gen_gloo_messages.py --slice tools/data/gloo_messages_slice.txt -o OUT   (the test)

Source: pytorch/gloo (https://github.com/pytorch/gloo), read with `git show REV:path`. A slice
holds parts of source files, each after `=== path @FIRSTLINE`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_gloo_messages.py"

# (rule, knowledge entry, {field: regex}); fields: where, text (condition and message), kind
RULES = [
    ("size-mismatch", "gloo.size_mismatch", {"text": r"preamble\.length <= op\.nbytes|op\.preamble\.roffset|"
                                                      r"collective mismatch|doesn't match expected size"}),
    ("timeout", "gloo.timeout", {"text": r"Timed out|timeout|Application timeout"}),
    ("peer-gone", "errno.peer_gone", {"text": r"closed by peer|Connection reset|Broken pipe|closed the connection"}),
    ("address", "gloo.socket_ifname", {"text": r"address|interface|getaddrinfo|hostname|Unable to find|bind|connect"}),
    ("enforce", "gloo.enforce", {"kind": r"enforce"}),
    ("io", "gloo.enforce", {"kind": r"io"}),
]
_MACRO = re.compile(r"\b(GLOO_ENFORCE(?:_EQ|_NE|_LE|_LT|_GE|_GT|_THAT)?|GLOO_THROW(?:_IO_EXCEPTION|_INVALID_OPERATION_EXCEPTION)?"
                    r"|GLOO_ERROR_MSG)\s*\(")
_OPS = {"_EQ": "==", "_NE": "!=", "_LE": "<=", "_LT": "<", "_GE": ">=", "_GT": ">"}


def _args(src, i):
    """The top-level arguments of a macro call whose '(' ends at src[i-1], empty ones dropped."""
    args = knowgen.call_args(src, i)
    return None if args is None else [a for a in args if a]


def _stringify(expr):
    """What the preprocessor's # makes of an argument: whitespace runs become one blank."""
    return " ".join(expr.split())


def _message(args):
    """MakeString(args...) as a printf format: string literals verbatim, anything else %s."""
    parts = []
    for a in args:
        lits = re.findall(r'"((?:[^"\\]|\\.)*)"', a)
        if lits and re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*"\s*)+', a):
            parts.append("".join(lits).replace("%", "%%").replace('\\"', '"').replace("\\n", " "))
        else:
            parts.append("%s")
    return "".join(parts)


def sites_of(path, src):
    for m in _MACRO.finditer(src):
        args = _args(src, m.end())
        if not args or "__VA_ARGS__" in args or src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        name = m.group(1)
        line = src.count("\n", 0, m.start()) + 1
        base = path.rsplit("/", 1)[-1]
        if name.startswith("GLOO_ENFORCE"):
            if name == "GLOO_ENFORCE" or name == "GLOO_ENFORCE_THAT":
                cond, rest = _stringify(args[0]), args[1:]
            else:
                if len(args) < 2:
                    continue
                cond, rest = "%s %s %s" % (_stringify(args[0]), _OPS[name[len("GLOO_ENFORCE"):]],
                                           _stringify(args[1])), args[2:]
            # EnforceNotMet (gloo/common/logging.cc): "[enforce fail at " FILE ":" LINE "] " cond ". " msg,
            # FILE as the compiler saw it (a full path); the binary checks' msg starts "x vs y"
            msg = _message(rest)
            if name not in ("GLOO_ENFORCE", "GLOO_ENFORCE_THAT"):
                msg = "%d vs %d" + (". " + msg if msg else "")  # sizes and states: numbers
            text = "[enforce fail at %%s%s:%%d] %s%s" % (base, cond.replace("%", "%%"), (". " + msg) if msg else "")
            yield "enforce", "%s:%d" % (path, line), text
        else:
            yield "io", "%s:%d" % (path, line), _message(args)


# A GLOO_THROW* message is printed after "[<__FILE__>:<__LINE__>] " (gloo/common/error.h,
# GLOO_ERROR_MSG): a short one ('Read timeout %s', 'Socket closed %s', 'MPI_Allreduce: %s') is
# any program's words alone, so its matcher needs that prefix (any of gloo's files: one format printed
# at several places is one site, 'Read timeout %s' of ibverbs/buffer.cc and of tcp/pair.cc).
CONTEXT_BELOW = 16


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for kind, where, fmt in sites_of(path, src):
            if (kind, fmt) in seen:
                continue
            seen.add((kind, fmt))
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "gloo.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "text": fmt}
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "kind": kind})
                if kind == "io" and len("".join(literal.split())) < CONTEXT_BELOW:
                    rx = r"\[[^\]\n]{0,200}\.(?:cc|h):\d{1,6}\] [^\n]{0,200}?" + rx
                site.update({"re": rx, "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header("pytorch/gloo (https://github.com/pytorch/gloo)", version, GENERATOR,
                                     "GLOO_ENFORCE* checks and GLOO_THROW* messages of gloo/; families from the "
                                     "RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, ("gloo",), lambda p: re.search(r"\.(cc|h|cpp)$", p) and "/test" not in p
                               and "benchmark" not in p),
            "commit %s" % git("rev-parse", rev).strip())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    return knowgen.emit("gloo_messages", build(*knowgen.source_files(a, from_repo)), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
