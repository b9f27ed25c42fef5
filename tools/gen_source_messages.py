#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/source_messages.json: which project's source holds the words of a
failure message, read from the string literals of the projects tools/gen_source_files.py lists (issue 18 item 2,
noanswer19).

A message pasted alone keeps neither its exception class nor its program's prefix ('error when executing the
diagnostic: the nvvs binary was not found in the specified location; ...', DCGM's): only its words are left, and
they are the program's own string literal. This generator reads every C / C++ / CUDA / Go string literal of those
projects' own files (adjacent C literals joined, as the compiler joins them) that says something failed (FAILS: error,
failed, cannot, unable, not found, could not, refused, invalid, missing, fatal), cuts it at its format conversions
(printf's %s / %d ..., Go's %v / %w) into fragments, and keeps each fragment of at least MIN_WORDS words and
MIN_CHARS characters: fragment -> 'project:basename' of the file that holds it. A fragment several projects hold is
kept with all of them (explain answers it only when their families agree).

Usage:
    python tools/gen_source_messages.py --mirrors DIR [--record SLICE] [-o OUT]
    python tools/gen_source_messages.py --slice tools/data/source_messages_slice.txt.gz -o OUT   (the test)

Source: the same repositories at the same commits as tools/gen_source_files.py (its PROJECTS; torch's C++ is not read:
the wheel holds no source, and torch's messages have their own tables), each file read with `git cat-file --batch`.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_source_files as gsf  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_source_messages.py"
NAME = "source_messages"
MIN_WORDS = 5
MIN_CHARS = 28
# a C / Go string literal (escapes kept), and C's adjacent literals ("a" "b", across lines) joined
_LIT = re.compile(r'"((?:[^"\\\n]|\\.){1,600})"')
_JOIN = re.compile(r'"\s{0,200}"')
FAILS = re.compile(r"\b(?:error|errors|failed|failure|fail|cannot|can't|unable|not found|could not|couldn't|refused|"
                   r"invalid|missing|fatal|not supported|no such|timed out|timeout|denied)\b", re.I)
# a format conversion: printf's (%s, %-5d, %lu, %zu, %p, PRIu64's "%" PRIu64 already split by the literal join) and Go's
# (%v, %+v, %w, %q, %T)
_CONV = re.compile(r"%[-+ #0]{0,4}(?:\d{1,3}|\*)?(?:\.(?:\d{1,3}|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcspnvwqT%]|"
                   r"\\[ntr]|\{\}")


def literals(text):
    """The string literals of a source text, adjacent C literals joined."""
    joined = _JOIN.sub("", text)
    return [m.group(1) for m in _LIT.finditer(joined)]


STRIP = " :;,.-=()[]'\""  # what a fragment loses at its ends

# the C library's own texts, which every program prints through strerror() / gai_strerror(): a literal that is one
# of them names no project (glibc sysdeps/posix/gai_strerror-strs.h; strerror(3) of every errno)
LIBC_TEXTS = tuple(sorted(knowgen.ERRNO_TEXTS | {
    "temporary failure in name resolution", "name or service not known", "non-recoverable failure in name resolution",
    "no address associated with hostname", "address family for hostname not supported", "bad value for ai_flags",
    "servname not supported for ai_socktype", "ai_socktype not supported", "ai_family not supported",
    "memory allocation failure", "system error", "unknown error"}, key=len, reverse=True))


def cut(text, strip=STRIP):
    """The fragments of a message worth looking up: its text between format conversions, of MIN_WORDS words and
    MIN_CHARS characters at least once libc's own texts are taken out, lower case, blanks folded (shared with
    tools/gen_py_messages.py)."""
    out = []
    for part in _CONV.split(text):
        part = " ".join(part.split()).strip(strip).lower()
        own = part
        for t in LIBC_TEXTS:
            own = own.replace(t, " ")
        own = " ".join(own.split())
        if len(own) >= MIN_CHARS and len(own.split()) >= MIN_WORDS and re.search(r"[a-z]{3}", part):
            out.append(part)
    return out


def fragments(lit):
    """The fragments of a C / Go failure literal (one that says something failed, FAILS) worth looking up."""
    if not FAILS.search(lit):
        return []
    return cut(lit.replace('\\"', '"'))


def read_projects(mirrors):
    """[(project, version, {basename: [fragments]})] at gen_source_files' pins (not torch)."""
    out = []
    for name, repo, rev, folders, _tables, _fam, _log in gsf.PROJECTS:
        if name == gsf.TORCH:
            continue
        gitdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        git = knowgen.git_reader(gitdir)
        version = knowgen.revision(git, rev, describe=True, untagged=rev[:12])
        if name in gsf.LABELS:
            version = "%s (commit %s)" % (gsf.LABELS[name], git("rev-parse", rev + "^{commit}").strip())
        paths = [p for p in git("ls-tree", "-r", "--name-only", rev, "--", *folders).splitlines()
                 if gsf.own(p, folders)]
        blobs = subprocess.run(["git", "-C", gitdir, "cat-file", "--batch"], capture_output=True,
                               input="".join("%s:%s\n" % (rev, p) for p in paths).encode()).stdout
        by_base, i = {}, 0
        for p in paths:
            nl = blobs.index(b"\n", i)
            size = int(blobs[i:nl].split()[2])
            text = blobs[nl + 1:nl + 1 + size].decode("utf-8", "replace")
            i = nl + 1 + size + 1
            frs = sorted({f for lit in literals(text) for f in fragments(lit)})
            if frs:
                by_base.setdefault(p.rsplit("/", 1)[-1], set()).update(frs)
        out.append((name, version, {b: sorted(f) for b, f in sorted(by_base.items())}))
    return out


def write_slice(path, projects):
    with knowgen.open_write(path) as f:
        f.write("# the failure fragments of each project's string literals read by %s: '#! project NAME VERSION', "
                "then 'basename\\tfragment' a line\n" % GENERATOR)
        for name, version, by_base in projects:
            f.write("#! project %s %s\n" % (name, version))
            for base, frs in by_base.items():
                for fr in frs:
                    f.write("%s\t%s\n" % (base, fr))


def read_slice(path):
    out, cur = [], None
    with knowgen.open_text(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! project "):
                name, version = line[len("#! project "):].split(" ", 1)
                cur = (name, version, {})
                out.append(cur)
            elif line and not line.startswith("#") and cur is not None:
                base, _, fr = line.partition("\t")
                cur[2].setdefault(base, []).append(fr)
    return out


def build(projects):
    where = {}
    for name, _version, by_base in projects:
        for base, frs in by_base.items():
            for fr in frs:
                where.setdefault(fr, set()).add("%s:%s" % (name, base))
    return {"header": knowgen.header(
        "the string literals of the projects of tools/gen_source_files.py (their repositories at its pins)",
        "; ".join("%s %s" % (n, v) for n, v, _ in projects), GENERATOR,
        "fragments: a failure literal's text between its format conversions (lower case, blanks folded) -> "
        "'project:basename' of each file that holds it"),
        "sites": [], "projects": {n: {"version": v, "files": len(b)} for n, v, b in projects},
        "fragments": {fr: sorted(w) for fr, w in sorted(where.items())}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", help="the folder of fetched mirrors (<owner>+<name>/repo)")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=knowgen.out_path(NAME))
    a = ap.parse_args(argv)
    if bool(a.mirrors) == bool(a.slice):
        ap.error("give --mirrors or --slice")
    projects = read_projects(a.mirrors) if a.mirrors else read_slice(a.slice)
    if a.record:
        write_slice(a.record, projects)
    doc = build(projects)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d fragments of %d projects" % (path, len(doc["fragments"]), len(doc["projects"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
