#!/usr/bin/env python3
"""Generate gpudoctor/data/nccl_env.json: the NCCL_* names NCCL (and PyTorch) really read.

Usage:
    python tools/gen_nccl_env.py --nccl PATH [--torch PATH] [-o gpudoctor/data/nccl_env.json]

--nccl   an NVIDIA/nccl checkout: a work tree or a git directory (bare clones work).
         From a git repository the newest commit (--ref, default HEAD) is read, and every
         release (tags vX.Y.Z-N) is read too, so that a name an older NCCL read and the
         current one does not gets "last read in X.Y.Z", and a name libnccl reads now gets
         the first release that read it ("first_seen_in"; a node on an older NCCL ignores it).
--torch  a PyTorch source checkout, or an unpacked torch wheel (`unzip torch-*.whl`): the
         TORCH_NCCL_* / NCCL_* names ProcessGroupNCCL and c10d read (getCvar*, getenv,
         check_env, and the `std::vector<std::string> NAME = {...}` name lists of
         ProcessGroupNCCL.hpp). From a wheel, libtorch_cuda.so's TORCH_NCCL_* strings are
         read too (the .cpp files are not in a wheel). Without --torch, the torch part of
         the existing output file is kept.

What counts as "NCCL reads NAME" (NVIDIA/nccl, src/include/param.h and src/misc/param.cc):
- NCCL_PARAM(Name, "SUFFIX", default): the variable is "NCCL_" SUFFIX (the macro pastes it);
- DEFINE_NCCL_PARAM(var, type, NCCL_NAME, ...): the 2.30 typed parameters (src/include/param/param.h);
- ncclGetEnv("NCCL_...") / getenv("NCCL_...") / std::getenv(...) / getEnvFunc("NCCL_...") (src/debug.cc, 2.28.7 to
  2.30.4: the env plugin's getter), and ncclGetLevel(..., "NCCL_...")
  (src/graph/paths.cc passes the names on to ncclGetEnv).
src/ is NCCL itself (src/plugin holds the plugin loaders), plugins/ (ext-net, ext-tuner,
ext-profiler before 2.28) the example and bundled plugins, contrib/ the contributed
libraries. docs/userguide/source/env.rst (the page at
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html) adds what is documented.
Only stdlib; run it again whenever NCCL or PyTorch releases.
"""

import argparse
import json
import os
import re
import subprocess
import sys

C_EXT = (".cc", ".c", ".h", ".cu", ".cuh", ".cpp", ".hpp")

# NCCL's ways of reading a variable (see the module docstring)
NCCL_PATTERNS = (
    (re.compile(r'\bNCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"'), "NCCL_"),
    (re.compile(r'\bDEFINE_NCCL_PARAM\(\s*\w+\s*,[^,]+,\s*(NCCL_[A-Z0-9_]+)\s*,'), ""),
    (re.compile(r'\b(?:ncclGetEnv|getenv|ncclEnvPluginGetEnv|getEnvFunc)\(\s*"(NCCL_[A-Z0-9_]+)"'), ""),
)
GET_LEVEL = re.compile(r'\bncclGetLevel\(([^;]*?)\)\s*\)?\s*;', re.S)
LITERAL = re.compile(r'"((?:TORCH_)?NCCL_[A-Z0-9_]+)"')
# env.rst: a section title is the name alone on a line, underlined
# and may be followed by "(since 2.1, removed in 2.5)"
RST_TITLE = re.compile(r'^(NCCL_[A-Z0-9_]+)[ \t]*\n[-=~^]{4,}[ \t]*\n(?:[ \t]*\n)*(\([^)\n]*\))?', re.M)
RELEASE_TAG = re.compile(r'^v(\d+)\.(\d+)\.(\d+)-(\d+)$')
# env.rst's parts: a title underlined with '=' ("System configuration", "Debugging"); the page says of the second
# "should not be used in production nor retained in scripts ... Keeping them set may result in sub-optimal behavior"
RST_PART = re.compile(r'^([A-Z][A-Za-z /-]{2,60})[ \t]*\n={4,}[ \t]*$', re.M)
# a variable's stated default: "The default is 4194304 (4 MiB).", "Default is 0 (disabled).", "The default value is
# 1.", "The default is unset"; or the one value that changes it: "Define and set to 1 to disable ..."
RST_DEFAULT = re.compile(r'\b[Dd]efault(?: value)? (?:is|:) ``?([A-Za-z0-9_^.:-]{1,40})``?|'
                         r'\b[Dd]efault(?: value)? (?:is|:) ([A-Za-z0-9_^:-]{1,40}(?:\.\d{1,6})?)\b')
NOT_A_VALUE = {"platform", "dependent", "undefined", "set", "to", "the", "a", "an", "based", "none"}
RST_SET_TO = re.compile(r'\b[Dd]efine and set to ([A-Za-z0-9_]{1,20}) to (?:disable|enable|force|use)')

# PyTorch: statements that read an environment variable
TORCH_READERS = re.compile(r'getCvar\w*|getenv|check_env|std::vector<std::string>|environ|env_var')


class DirTree:
    def __init__(self, root):
        self.root = root
        self.label = "work tree %s" % root

    def files(self):
        for dp, dn, fn in os.walk(self.root):
            dn[:] = [d for d in dn if d != ".git"]
            for f in fn:
                yield os.path.relpath(os.path.join(dp, f), self.root)

    def read(self, path):
        try:
            with open(os.path.join(self.root, path), "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return None


class GitTree:
    """One commit of a git repository, read with git itself (no work tree needed)."""

    def __init__(self, gitdir, ref):
        self.gitdir, self.ref = gitdir, ref
        self.commit = git(gitdir, "rev-parse", ref + "^{commit}").strip()
        self.label = "%s (%s)" % (ref, self.commit)
        self._files = git(gitdir, "ls-tree", "-r", "--name-only", self.commit).splitlines()
        self._cache = {}

    def files(self):
        return iter(self._files)

    def read_many(self, paths):
        paths = [p for p in paths if p not in self._cache]
        if paths:
            spec = "".join("%s:%s\n" % (self.commit, p) for p in paths).encode()
            out = subprocess.run(["git", "--git-dir", self.gitdir, "cat-file", "--batch"], input=spec,
                                 stdout=subprocess.PIPE, check=True).stdout
            pos = 0
            for p in paths:
                header_end = out.index(b"\n", pos)
                header = out[pos:header_end].split()
                if header[-1] == b"missing":
                    self._cache[p] = None
                    pos = header_end + 1
                    continue
                size = int(header[2])
                self._cache[p] = out[header_end + 1:header_end + 1 + size].decode("utf-8", "replace")
                pos = header_end + 1 + size + 1
        return dict((p, self._cache[p]) for p in paths)

    def read(self, path):
        if path not in self._cache:
            self.read_many([path])
        return self._cache[path]


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True, universal_newlines=True).stdout


def git_dir_of(path):
    for cand in (os.path.join(path, ".git"), path):
        try:
            out = git(cand, "rev-parse", "--git-dir").strip()
        except (subprocess.CalledProcessError, OSError):
            continue
        return cand if out in (".", ".git") or os.path.isabs(out) else os.path.join(cand, out)
    return None


def nccl_version(tree):
    text = tree.read("makefiles/version.mk") or ""
    v = dict(re.findall(r'^NCCL_(MAJOR|MINOR|PATCH)\s*:=\s*(\d+)', text, re.M))
    if len(v) != 3:
        raise SystemExit("no NCCL version in makefiles/version.mk of %s" % tree.label)
    return "%s.%s.%s" % (v["MAJOR"], v["MINOR"], v["PATCH"])


def nccl_area(path):
    """Which part of NCCL reads it: the library, a plugin shipped beside it, or contrib."""
    top = path.split("/", 1)[0]
    if top == "src":
        return "nccl"
    if top == "plugins" or top.startswith("ext-"):
        return "nccl-plugin"
    if top == "contrib":
        return "nccl-contrib"
    return None


def is_test(path):
    parts = path.lower().split("/")
    return any(p in ("test", "tests") for p in parts[:-1]) or parts[-1].startswith("test_")


def scan_c_text(text):
    names = set()
    for pat, prefix in NCCL_PATTERNS:
        names.update(prefix + m.group(1) for m in pat.finditer(text))
    for m in GET_LEVEL.finditer(text):
        names.update(n for n in LITERAL.findall(m.group(1)) if n.startswith("NCCL_"))
    return names


def scan_nccl(tree):
    """{name: sorted files} for one NCCL tree, and the documented names (env.rst)."""
    paths = [p for p in tree.files() if p.endswith(C_EXT) and nccl_area(p) and not is_test(p)]
    if isinstance(tree, GitTree):
        tree.read_many(paths)
    found = {}
    for p in paths:
        for name in scan_c_text(tree.read(p) or ""):
            found.setdefault(name, set()).add(p)
    documented = {}
    for p in tree.files():
        if p.endswith("env.rst"):
            for name, note in RST_TITLE.findall(tree.read(p) or ""):
                documented[name] = note.strip("()") or None
    return dict((k, sorted(v)) for k, v in found.items()), documented


def _plain(text):
    """rst text as one line of words: ``X`` -> X, :ref:`x` -> x, blanks folded."""
    text = re.sub(r":\w+:`([^`<]{0,200})(?:<[^>]{0,200}>)?`", r"\1", text)
    return " ".join(text.replace("``", "").split())


def _sentences(text):
    return [x for x in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", _plain(text)) if x]


# a stated default that holds only for older releases: "Before 2.4.2, the default ...", "Default is 0 in 2.18",
# "The default is 16384 (up to 2.2)"; "Default is 1 (since NCCL 2.28; it was 0 in NCCL 2.27)" is today's
OLDER_BEFORE = re.compile(r'\b(?:[Bb]efore|[Uu]p to|[Uu]ntil|[Ii]n) (?:NCCL )?\d+\.\d+(?:\.\d+)?,?\s+(?:the )?$')
OLDER_AFTER = re.compile(r'``?\s*\(?\s*(?:in|up to|until|before) (?:NCCL )?\d+\.\d+|\s*\(?\s*(?:in|up to|until|before) '
                         r'(?:NCCL )?\d+\.\d+')


def _older_default(body, d):
    """True where the default matched by RST_DEFAULT (d, over body) is stated for older releases only."""
    flat = re.sub(r"\s+", " ", body[max(0, d.start() - 60):d.start()])
    return bool(OLDER_BEFORE.search(flat) or OLDER_AFTER.match(body, d.end()))


def read_doc_parts(rst):
    """{name: {"doc_part", "doc_says", "doc_default", "doc_sets"}} for the variables of env.rst that sit in one of the
    page's '=' parts, and {part: its own first sentences}. doc_says: the variable's first sentence and any sentence
    of its section on performance or on when (not) to set it; doc_default: the stated default's first word
    ("unset" where the page says the default is unset or that NCCL picks it itself); doc_sets: the value a
    'Define and set to V to disable' variable is set to (any other value leaves NCCL's choice)."""
    parts = [(m.start(), m.group(1).strip()) for m in RST_PART.finditer(rst)]
    intro = {}
    for i, (at, part) in enumerate(parts):
        end = parts[i + 1][0] if i + 1 < len(parts) else len(rst)
        body = rst[at:end].split("\n", 2)[2] if rst[at:end].count("\n") >= 2 else ""
        first = RST_TITLE.search(body)
        head = body[:first.start()] if first else body
        head = re.sub(r"^\.\. _[^\n]{0,200}$", "", head, flags=re.M)
        intro[part] = " ".join(_sentences(head)[:3])
    titles = list(RST_TITLE.finditer(rst))
    out = {}
    for i, m in enumerate(titles):
        part = None
        for at, name in parts:
            if at < m.start():
                part = name
        if part is None:
            continue
        end = titles[i + 1].start() if i + 1 < len(titles) else len(rst)
        nxt = [at for at, _n in parts if m.end() < at < end]
        body = rst[m.end():min([end] + nxt)]
        body = re.sub(r"^\.\. _[^\n]{0,200}$", "", body, flags=re.M)
        # the prose before "Values accepted" (a title underlined with '^'), and the values part
        cut = re.search(r"^[^\n]{1,60}\n\^{3,}[ \t]*$", body, re.M)
        prose, values = (body[:cut.start()], body[cut.start():]) if cut else (body, "")
        sents = _sentences(prose)
        says = sents[:1] + [x for x in sents[1:] if re.search(
            r"perform|slow|bandwidth|latency|discouraged|should not|not recommended|debug|best|optimal", x, re.I)]
        rec = {"doc_part": part, "doc_says": " ".join(says)[:600]}
        d = RST_DEFAULT.search(body)
        if d and (d.group(1) or d.group(2)).rstrip(".").lower() not in NOT_A_VALUE and _older_default(body, d):
            # the value stated is an older release's default ("Default is 0 in 2.18 (disabled); since 2.19 this
            # feature is auto-enabled", "Before 2.4.2, the default value is 0 ...", "16384 (up to 2.2) or is
            # dependent on the number of ranks"): today's default is not one value of the page
            rec["doc_default"] = "varies"
        elif d and (d.group(1) or d.group(2)).rstrip(".").lower() not in NOT_A_VALUE:
            rec["doc_default"] = (d.group(1) or d.group(2)).rstrip(".")
        elif re.search(r"default is unset|isn't specified, NCCL will|is not set, NCCL will", _plain(body), re.I):
            rec["doc_default"] = "unset"
        s = RST_SET_TO.search(_plain(values) or _plain(body))
        if s and "doc_default" not in rec:
            rec["doc_sets"] = s.group(1)
        out[m.group(1)] = rec
    return out, intro


def release_tags(gitdir):
    """Every NCCL release, oldest first: [(version, tag)], one tag per X.Y.Z (its last -N). NVIDIA tags each
    release vX.Y.Z-N (https://github.com/NVIDIA/nccl/tags: v2.28.3-1, v2.28.7-1, v2.28.9-1, ...); the pip wheels
    nvidia-nccl-cu12/cu13 carry the same X.Y.Z, which is what a node's torch reports (torch.cuda.nccl.version())."""
    best = {}
    for tag in git(gitdir, "tag").split():
        m = RELEASE_TAG.match(tag)
        if m:
            key = tuple(int(x) for x in m.groups())
            ver = key[:3]
            if ver not in best or key > best[ver][0]:
                best[ver] = (key, tag)
    return [("%d.%d.%d" % k[:3], tag) for k, tag in sorted(best.values())]


def first_reads(history, current):
    """For each name libnccl (src/) reads now: the first scanned release whose src/ reads it ("first_seen_in"),
    the release scanned just before it ("not_in": it does not read it), and any later releases that do not
    ("not_read_in": a name dropped and read again). history: [(version, {name: files})], oldest first."""
    out = {}
    for name in current:
        seen = [ver for ver, names in history if any(nccl_area(f) == "nccl" for f in names.get(name, ()))]
        if not seen:
            continue
        vers = [ver for ver, _n in history]
        i = vers.index(seen[0])
        rec = {"first_seen_in": seen[0]}
        if i:
            rec["not_in"] = vers[i - 1]
        gaps = [v for v in vers[i:] if v not in seen]
        if gaps:
            rec["not_read_in"] = gaps
        out[name] = rec
    return out


# ---------------------------------------------------------------- PyTorch

def torch_version(root):
    text = ""
    for p in ("torch/version.py", "version.txt"):
        try:
            with open(os.path.join(root, p)) as f:
                text = f.read()
        except OSError:
            continue
        break
    ver = re.search(r"__version__\s*=\s*'([^']+)'", text) or re.search(r"^(\d+\.\d+\.\d+\S*)", text, re.M)
    commit = re.search(r"git_version\s*=\s*'([0-9a-f]{40})'", text)
    if commit is None and git_dir_of(root):
        commit = re.match(r"([0-9a-f]{40})", git(git_dir_of(root), "rev-parse", "HEAD"))
    return (ver.group(1) if ver else None), (commit.group(1) if commit else None)


def statements(text):
    """C++/Python text cut at ';' and blank lines: a name list or a call spanning lines stays whole."""
    return re.split(r";|\n\s*\n", text)


def scan_torch(root):
    dirs = ("torch/csrc/distributed/c10d", "torch/csrc/cuda", "torch/include/torch/csrc/distributed/c10d",
            "torch/include/torch/csrc/cuda", "torch/distributed")
    found = {}
    for d in dirs:
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            for f in fn:
                if not f.endswith(C_EXT + (".py",)):
                    continue
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, root)
                if is_test(rel):
                    continue
                with open(path, errors="replace") as fh:
                    text = fh.read()
                for st in statements(text):
                    if TORCH_READERS.search(st):
                        for name in LITERAL.findall(st):
                            found.setdefault(name, set()).add(rel)
    so = os.path.join(root, "torch/lib/libtorch_cuda.so")
    if os.path.exists(so):  # a wheel: ProcessGroupNCCL.cpp is compiled in, its literals are whole strings
        with open(so, "rb") as fh:
            blob = fh.read()
        for m in re.finditer(rb"\0(TORCH_NCCL_[A-Z0-9_]+)\0", blob):
            found.setdefault(m.group(1).decode(), set()).add("torch/lib/libtorch_cuda.so")
    return dict((k, sorted(v)) for k, v in found.items())


# ---------------------------------------------------------------- output

NOT_NCCL = {
    "NCCL_VERSION": "Set by NVIDIA's CUDA container images (NCCL_VERSION=2.28.3-1 on a real H200 node), "
                    "not read by NCCL.",
}


def build(nccl_path, ref, torch_path, previous):
    gitdir = git_dir_of(nccl_path)
    tree = GitTree(gitdir, ref) if gitdir else DirTree(nccl_path)
    version = nccl_version(tree)
    current, documented = scan_nccl(tree)
    names = {}
    for name, files in current.items():
        areas = sorted(set(nccl_area(f) for f in files))
        names[name] = {"read_by": areas, "files": files}
    for name, note in documented.items():
        e = names.setdefault(name, {"read_by": [], "files": []})
        e["documented"] = True
        if note:
            e["doc_note"] = note  # env.rst's own "(since 2.1, removed in 2.5)"
    doc_parts, part_intro = {}, {}
    for p in tree.files():
        if p.endswith("env.rst"):
            doc_parts, part_intro = read_doc_parts(tree.read(p) or "")
    for name, rec in doc_parts.items():
        if name in names:
            names[name].update(rec)
    for name, entry in names.items():
        entry.setdefault("documented", False)
        if not entry["read_by"]:
            entry["read_by"] = ["nccl-docs"]

    former, scanned, history = {}, [], []
    if gitdir:
        for ver, tag in release_tags(gitdir):
            old, old_doc = scan_nccl(GitTree(gitdir, tag))
            scanned.append(ver)
            history.append((ver, old))
            for name in set(old) | set(old_doc):
                if name in names:
                    continue
                rec = former.setdefault(name, {"first_seen_in": ver})
                rec["last_seen_in"] = ver
                rec["files"] = old.get(name, ["docs/userguide/source/env.rst"])

    if history and history[-1][0] != version:
        history.append((version, current))  # the commit read is newer than the last release tag
    for name, rec in first_reads(history, [n for n, e in names.items() if "nccl" in e["read_by"]]).items():
        names[name].update(rec)

    torch_meta = (previous or {}).get("torch")
    torch_names = dict((n, e["torch_files"]) for n, e in ((previous or {}).get("names") or {}).items()
                       if "torch" in e["read_by"])
    if torch_path:
        tver, tcommit = torch_version(torch_path)
        torch_meta = {"version": tver, "commit": tcommit,
                      "read_from": "wheel" if os.path.exists(os.path.join(torch_path, "torch/lib")) else "source"}
        torch_names = scan_torch(torch_path)
    for name, files in torch_names.items():
        e = names.setdefault(name, {"read_by": [], "files": [], "documented": False})
        e["read_by"] = sorted(set(e["read_by"]) | {"torch"})
        e["torch_files"] = files
        former.pop(name, None)

    commit = getattr(tree, "commit", None)
    return {
        "generated_by": "tools/gen_nccl_env.py (run it again to refresh; do not edit by hand)",
        "nccl": {"version": version, "commit": commit, "repository": "https://github.com/NVIDIA/nccl",
                 "releases_scanned": scanned},
        "torch": torch_meta,
        "sources": [
            "NVIDIA/nccl %s%s: NCCL_PARAM / DEFINE_NCCL_PARAM / ncclGetEnv / getenv / ncclGetLevel in src/ "
            "(NCCL), plugins/ and ext-* (plugins), contrib/" % (version, " (%s)" % commit[:12] if commit else ""),
            "NCCL docs env.rst (docs/userguide/source/env.rst in the same checkout), "
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
            "PyTorch %s%s: getCvar*/getenv/check_env names in %s (https://github.com/pytorch/pytorch; "
            "https://pytorch.org/docs/stable/torch_nccl_environment_variables.html)" % (
                (torch_meta or {}).get("version"),
                " (%s)" % torch_meta["commit"][:12] if (torch_meta or {}).get("commit") else "",
                "the wheel's c10d headers, the TORCH_NCCL_* strings of its libtorch_cuda.so and torch/distributed"
                if (torch_meta or {}).get("read_from") == "wheel" else
                "torch/csrc/distributed/c10d, torch/csrc/cuda and torch/distributed"),
        ],
        "read_by_values": {
            "nccl": "read by libnccl itself (src/)",
            "nccl-plugin": "read by a plugin shipped in NCCL's repository (plugins/, ext-*)",
            "nccl-contrib": "read by a library in NCCL's contrib/",
            "nccl-docs": "documented on NCCL's environment page, not found read in the source",
            "torch": "read by PyTorch's ProcessGroupNCCL / c10d",
        },
        "doc_parts": part_intro,
        "names": dict(sorted(names.items())),
        "former": dict(sorted(former.items())),
        "not_nccl": NOT_NCCL,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nccl", required=True, help="NVIDIA/nccl checkout (work tree or git directory)")
    ap.add_argument("--ref", default="HEAD", help="commit or tag of a git checkout to read (default HEAD)")
    ap.add_argument("--torch", help="PyTorch source checkout or unpacked torch wheel")
    ap.add_argument("-o", "--output", default=os.path.join(os.path.dirname(__file__), "..", "gpudoctor", "data",
                                                           "nccl_env.json"))
    args = ap.parse_args(argv)
    previous = None
    if os.path.exists(args.output):
        with open(args.output) as f:
            previous = json.load(f)
        if "names" not in previous:
            previous = None
    out = build(args.nccl, args.ref, args.torch, previous)
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, args.output)
    n = out["names"]
    print("NCCL %s: %d names (%d read by NCCL itself, %d documented), %d former; torch %s: %d names -> %s" % (
        out["nccl"]["version"], len(n), sum("nccl" in e["read_by"] for e in n.values()),
        sum(e["documented"] for e in n.values()), len(out["former"]), (out["torch"] or {}).get("version"),
        sum("torch" in e["read_by"] for e in n.values()), args.output), file=sys.stderr)


if __name__ == "__main__":
    main()
