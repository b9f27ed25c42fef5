#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/container_messages.json: what the NVIDIA container
stack of a Slurm cluster prints when a containerised step fails, each turned into a bounded matcher
and assigned to a knowledge family (pyxis.toml) by the RULES table below:

- pyxis, Slurm's SPANK plugin behind `srun --container-image` (NVIDIA/pyxis, *.c): every
  slurm_error() format, and the slurm_info() ones that report a failure. Slurm prints them as
  'slurmstepd: error: pyxis: ...' (or 'srun: error: pyxis: ...'), and pyxis copies enroot's own log
  under 'pyxis: printing enroot log file:' as 'pyxis:     [ERROR] ...';
- enroot, the runtime pyxis drives (NVIDIA/enroot): every `common::err "..."` and `common::log WARN
  "..."` of its bash sources (src/*.sh, enroot.in, conf/hooks/*.sh; printed '[ERROR] text' and
  '[WARN] text', src/common.sh), with each ${...}, $(...) and $var read as %s; and the err() /
  errx() / warn() / warnx() formats of its helpers (bin/*.c), printed by glibc as
  '<program>: <text>' (err/warn add ': <strerror>').

Usage:
    python tools/gen_container_messages.py --pyxis-repo /path/to/pyxis.git --enroot-repo /path/to/enroot.git \
        [--pyxis-older v0.23.0] [-o OUT]
    python tools/gen_container_messages.py --slice tools/data/container_messages_slice.txt -o OUT   (the test)

Sources: NVIDIA/pyxis (https://github.com/NVIDIA/pyxis) and NVIDIA/enroot
(https://github.com/NVIDIA/enroot), read with `git show REV:path`. In a slice, each file's path is
prefixed with its repository: `pyxis:...` or `enroot:...`; `pyxis@TAG:...` is a file of an older
pyxis release (--pyxis-older): its texts that the newer one reworded are kept, each with `until`
(pyxis 0.24 reworded 'couldn't start container', which clusters running 0.23 still print).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_container_messages.py"
SOURCE = ("NVIDIA/pyxis (https://github.com/NVIDIA/pyxis) *.c; NVIDIA/enroot (https://github.com/NVIDIA/enroot) "
          "src/*.sh, enroot.in, conf/hooks/*.sh, bin/*.c")

# Which knowledge entry explains a site: (rule, entry id, {field: regex}); the first that matches wins.
# Fields: where (repo:path:line), text (the format), level.
RULES = [
    # enroot: the registry answered with an HTTP error, or the image reference is not enroot's syntax
    ("image-ref", "enroot.image_ref", {"text": r"^Invalid image reference"}),
    ("registry", "enroot.registry", {"where": r"^enroot:", "text": r"^URL %s returned error code|authentication realm|"
                                     r"Unsupported authentication method|Could not (?:retrieve|parse) digest"}),
    ("json", "enroot.registry", {"where": r"^enroot:", "text": r"^Could not process JSON input"}),
    ("command", "enroot.missing_command", {"where": r"^enroot:", "text": r"^Command not found"}),
    ("userns", "enroot.userns", {"where": r"^enroot:bin/", "text": r"user namespace|set capabilities|"
                                                               r"get capabilities|drop privileges"}),
    ("space", "enroot.space", {"where": r"^enroot:", "text": r"Not enough space left"}),
    ("mksquashfs", "enroot.missing_command", {"where": r"^enroot:bin/", "text": r"failed to execute mksquashfs"}),
    ("driver", "enroot.nvidia_hook", {"where": r"^enroot:conf/hooks/98-nvidia", "text": r"nvidia|NVIDIA"}),
    ("enroot", "enroot.error", {"where": r"^enroot:", "level": r"^(?:err|errx|common::err)$"}),
    # pyxis
    ("pyxis-name", "pyxis.container_name", {"text": r"--container-name but the container|with name .{0,4}%s.{0,4} "
                                                    r"does not exist"}),
    ("pyxis-mounts", "pyxis.options", {"text": r"--container-mounts: source path does not exist"}),
    ("pyxis-options", "pyxis.options", {"text": r"^pyxis: (?:--container-|both --|ignoring --|mount (?:source|target)|"
                                                r"error: --container-unshare)"}),
    ("pyxis-import", "pyxis.import_failed", {"text": r"import docker image|importer|did not return a squashfs|"
                                                     r"create container filesystem|child %d (?:failed|terminated)|"
                                                     r"couldn't execute enroot command"}),
    ("pyxis-start", "pyxis.container_start", {"text": r"container start|start container|exited too soon|"
                                                      r"unusual entrypoint|not started successfully|"
                                                      r"previous task terminated unexpectedly|join .{0,10}namespace"}),
    ("pyxis-setup", "pyxis.setup", {"text": r"^pyxis: (?:slurmd: )?couldn't mkdir|failed to parse configuration|"
                                            r"unknown configuration option|runtime_path|failed to register arguments|"
                                            r"couldn't chown"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^pyxis: failed to import docker image: %s$",
     "enroot could not import the --container-image (download or convert it); the enroot lines pyxis prints "
     "under 'printing enroot log file' say why.",
     ["read the '[ERROR]' line pyxis printed below this one (or run the import by hand on the node: enroot import "
      "docker://<registry>#<image>:<tag>)"]),
    (r"^pyxis: container start failed with error code: %d$",
     "enroot started the container but its start-up failed: a hook (98-nvidia.sh: nvidia-container-cli), the "
     "image's entrypoint, or a mount failed; the enroot log pyxis prints below says which.",
     ["srun --no-container-entrypoint ... (an image whose ENTRYPOINT exits or needs a TTY)", "on the node: enroot "
      "start --rw <image.sqsh> true   (the hook errors appear directly)"]),
]

_C_CALLS = {"slurm_error": 0, "slurm_info": 0, "err": 1, "errx": 1, "warn": 0, "warnx": 0}
_C_CALL = re.compile(r"(?<![A-Za-z0-9_>.:])(%s)\s*\(" % "|".join(_C_CALLS))
_SH_CALL = re.compile(r"common::(err|log WARN)\s+\"")
FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|couldn't|could not|invalid|not found|denied|"
                           r"does not exist|too soon|unexpectedly", re.IGNORECASE)
# enroot's own log lines: '[ERROR] text' / '[WARN] text' (src/common.sh common::log), possibly in
# colour ('tput sgr0' ends it with ESC ( B ESC [ m on xterm-like terminals), possibly after pyxis's
# 'pyxis:     ' prefix
_ENROOT_LINE = r"\[(?:ERROR|WARN)\](?:\x1b\(B)?(?:\x1b\[[0-9;]{0,10}m)? "
CONTEXT_BELOW = 20


def c_literal(arg):
    """A C argument of adjacent literals (and pyxis's "..." PYXIS_VERSION style macros read as %s)."""
    if '"' not in arg:
        return None
    rest = knowgen.C_STRING.sub("", arg)
    if rest.strip() and not re.fullmatch(r"[\sA-Z_0-9]*", rest):
        return None
    out, pos = [], 0
    for m in knowgen.C_STRING.finditer(arg):
        if arg[pos:m.start()].strip():
            out.append("%s")
        out.append(knowgen.c_unescape(m.group(1)))
        pos = m.end()
    return "".join(out)


def sh_string(src, i):
    """The bash double-quoted string starting after the quote at src[i-1], as a printf format:
    % doubled, every ${...}, $(...) and $var a %s. (format, end) or (None, i)."""
    out, n = [], len(src)
    while i < n:
        c = src[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            out.append(src[i + 1])
            i += 2
            continue
        if c == "$" and i + 1 < n and src[i + 1] in "({":
            close = ")" if src[i + 1] == "(" else "}"
            depth, j = 0, i + 1
            while j < n:
                if src[j] == src[i + 1]:
                    depth += 1
                elif src[j] == close:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append("%s")
            i = j + 1
            continue
        if c == "$":
            m = re.match(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])", src[i:])
            if m:
                out.append("%s")
                i += m.end()
                continue
        if c == "\n":
            return None, i
        out.append("%%" if c == "%" else c)
        i += 1
    return None, i


def sites_of(path, src):
    repo, _, rel = path.partition(":")
    line = lambda pos: "%s:%d" % (path, src.count("\n", 0, pos) + 1)  # noqa: E731
    if rel.endswith(".c"):
        prog = os.path.basename(rel)[:-2]
        for m in _C_CALL.finditer(src):
            call = m.group(1)
            if (repo == "pyxis") != call.startswith("slurm_"):
                continue
            args = knowgen.call_args(src, m.end())
            idx = _C_CALLS[call]
            if not args or len(args) <= idx:
                continue
            fmt = c_literal(args[idx])
            if not fmt or not fmt.strip() or fmt.strip() in ("%s", "pyxis:     %s"):
                continue
            if call == "slurm_info" and not FAILURE_WORDS.search(fmt):
                continue
            if repo == "enroot":  # glibc's err(): '<program>: <format>[: <strerror>]'
                fmt = "%s: %s" % (prog, fmt)
            yield call, line(m.start()), fmt
    elif rel.endswith((".sh", ".in")) or "/hooks/" in rel:
        for m in _SH_CALL.finditer(src):
            fmt, _ = sh_string(src, m.end())
            if fmt and fmt.strip() and fmt.strip() != "%s":
                yield "common::" + m.group(1).replace(" ", "_"), line(m.start()), fmt


def build(files, version, newest="v0.24.0"):
    sites, seen = [], set()
    for path, src in files:
        older = re.match(r"pyxis@([^:]+):", path)
        for level, where, fmt in sites_of(re.sub(r"^pyxis@[^:]+:", "pyxis:", path), src):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, lit = knowgen.printf_to_regex(fmt)
            site = {"id": "container.msg.%s%s" % (knowgen.slug(where),
                                                   "_" + re.sub(r"\W", "_", older.group(1)) if older else ""),
                    "where": where, "level": level, "text": fmt}
            if older:  # printed by that release, reworded or removed by the newest one read
                site.update({"where": "%s (pyxis %s)" % (where, older.group(1)), "until": newest})
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            if level.startswith("common::"):
                # enroot's bash messages ('Invalid argument', 'No such file or directory: %s') are
                # enroot's only on its own [ERROR]/[WARN] line
                rx = _ENROOT_LINE + rx
            elif len("".join(lit.split())) < CONTEXT_BELOW:
                rx = r"\b" + rx
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
            if level in ("common::log_WARN", "warn", "warnx"):
                rule, family = "a warning: context, not a failure", None
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "pyxis's slurm_error/slurm_info formats, enroot's common::err / common::log WARN "
                                     "texts and its helpers' err/errx formats; families from the RULES table of the "
                                     "generator"), "sites": sites}


def _wanted(repo, path):
    if repo == "pyxis":
        return path.endswith(".c") and "/" not in path
    return (path.startswith("src/") and path.endswith(".sh")) or path == "enroot.in" or \
        (path.startswith("conf/hooks/") and path.endswith(".sh")) or (path.startswith("bin/") and path.endswith(".c"))


def from_repos(pyxis, enroot, rev="HEAD", older=()):
    files, versions = [], []
    for repo, d in (("pyxis", pyxis), ("enroot", enroot)):
        git, wanted = knowgen.git_reader(d), lambda p, repo=repo: _wanted(repo, p)
        files += [("%s:%s" % (repo, p), text) for p, text in knowgen.tree_files(git, rev, (), wanted)]
        # a mirror fetched without tags: the commit alone
        versions.append("%s %s" % (repo, knowgen.revision(git, rev, untagged="?")))
        if repo == "pyxis":
            for t in older:
                files += [("pyxis@%s:%s" % (t, p), text) for p, text in knowgen.tree_files(git, t, (), wanted)]
                versions[-1] += " and %s" % t
    return files, "; ".join(versions)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("pyxis-repo", "enroot-repo"), extra=[(
        "--pyxis-older", {"default": "", "help": "comma-separated older pyxis tags whose texts are kept"})])
    older = [t for t in a.pyxis_older.split(",") if t]
    files, version = from_repos(a.pyxis_repo, a.enroot_repo, older=older) if a.slice is None \
        else knowgen.read_slice(a.slice)
    newest = re.search(r"pyxis (v[\d.]+)", version)
    doc = build(files, version, newest.group(1) if newest else "?")
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("container_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
