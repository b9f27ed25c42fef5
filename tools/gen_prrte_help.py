#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/prrte_help.json: the help topics of PRRTE (openpmix/prrte), the
runtime under Open MPI 5's mpirun/prterun (its daemons are prted): 'PRTE has lost communication with a remote
daemon', 'prterun noticed that process rank N ... exited on signal 9 (Killed)', PRTE's ssh/slurm launch, hostfile,
mapping and oob-tcp topics. Each topic is matched on its first printed line (two for short ones) and assigned a
family by gen_ompi_help.py's RULES (the same opal_show_help/pmix_show_help format and the same families as Open MPI
4.1's help files).

The command-line manuals (help-prterun.txt, help-prun.txt, help-prte.txt, help-prted.txt, help-pterm.txt,
help-psched.txt: one topic per option, printed by --help) are no errors: of those files only the topics named
'<tool>:<topic>' (the runtime's messages: 'prun:proc-aborted-strsignal') are read.

Usage:
    python tools/gen_prrte_help.py --repo /path/to/prrte.git [--rev v3.0.14] [-o OUT]
    python tools/gen_prrte_help.py --slice tools/data/prrte_help_slice.txt -o OUT   (the test)

Source: openpmix/prrte (https://github.com/openpmix/prrte), read with `git show REV:path`; v3.0.x is the PRRTE
that Open MPI 5.0.x bundles.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ompi_help  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_prrte_help.py"
MANUALS = {"help-prterun.txt", "help-prun.txt", "help-prte.txt", "help-prted.txt", "help-pterm.txt",
           "help-psched.txt"}
_TOPIC = re.compile(r"^\[([^\]\n]+)\]\s*$", re.M)


def runtime_topics(name, text):
    """A manual's text without its option topics (those named without '<tool>:')."""
    if name not in MANUALS:
        return text
    parts = _TOPIC.split(text)
    keep = [parts[0]]
    for i in range(1, len(parts) - 1, 2):
        if ":" in parts[i]:
            keep.append("[%s]\n%s" % (parts[i], parts[i + 1]))
    return "".join(keep)


def build(files, version):
    doc = gen_ompi_help.build([(n, runtime_topics(n, t)) for n, t in files], version)
    for s in doc["sites"]:
        s["id"] = "prrte." + s["id"][len("ompi."):]
    doc["header"] = knowgen.header("openpmix/prrte (https://github.com/openpmix/prrte) help-*.txt", version, GENERATOR,
                                   "the first printed line of every runtime help topic (the command-line manuals' "
                                   "option topics left out); families from tools/gen_ompi_help.py's RULES table")
    return doc


# The banners PRRTE prints on its clean-output stream instead of a help topic, where it may not reach mpirun yet
# (src/mca/oob/tcp/oob_tcp_connection.c: 'A daemon was unable to complete a TCP connection to another daemon';
# src/mca/plm/ssh/plm_ssh_module.c: 'A daemon failed to report back after being spawned'): pmix_output(
# prte_clean_output, "-----\n" "text\n" ...), each read as a topic of its own (file 'prte-clean-output', topic
# '<file>:<line>') so that it is matched on its first printed line as a help topic is.
BANNER_FILES = ("src/mca/oob/tcp/oob_tcp_connection.c", "src/mca/plm/ssh/plm_ssh_module.c")
_BANNER = re.compile(r"pmix_output\(\s*prte_clean_output\s*,")


def banners(path, src):
    """'[<file>:<line>]\\n<the banner's lines>' for each pmix_output(prte_clean_output, ...) of several lines."""
    out = []
    for m in _BANNER.finditer(src):
        text = knowgen.c_format(src, m.end()) or ""  # the format's adjacent literals, joined and unescaped
        lines = [ln for ln in text.split("\n") if ln.strip() and not set(ln.strip()) <= {"-"}]
        if len(lines) >= 2:
            out.append("[%s:%d]\n%s\n" % (os.path.basename(path), src.count("\n", 0, m.start()) + 1, "\n".join(lines)))
    return "".join(out)


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev + "^{commit}").strip()
    paths = sorted((p for p in git("ls-tree", "-r", "--name-only", rev).splitlines()
                    if re.search(r"(?:^|/)help-[^/]+\.txt$", p) and "/test" not in p),
                   key=lambda p: (not p.startswith("src/docs/show-help-files/"), p))
    files, seen = [], set()
    for p in paths:  # src/docs/show-help-files holds the installed copies; a component's own copy only if new
        name = os.path.basename(p)
        if name not in seen:
            seen.add(name)
            files.append((name, git("show", "%s:%s" % (rev, p))))
    text = "".join(banners(p, git("show", "%s:%s" % (rev, p))) for p in BANNER_FILES)
    if text:
        files.append(("prte-clean-output", text))
    return sorted(files), "%s (commit %s)" % (rev, commit)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="v3.0.14")
    return knowgen.emit("prrte_help", build(*knowgen.source_files(a, from_repo)), a.out, "topics")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
