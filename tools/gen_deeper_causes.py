#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/deeper_causes.json: failures whose message names a true mechanism one
step short of its cause, each with the cause one layer deeper as the producing layer's own documentation states it
(issue 18 item 3, noans24: "a true mechanism one step short of the cause").

A program reports what failed in its own layer: UCX's CMA transport that process_vm_readv() returned EPERM, srun that
slurmd answered 'Job credential revoked', a daemon that inotify_init() returned EMFILE. The fix is in the layer below,
and that layer's documentation says which: process_vm_readv(2) is governed by a ptrace access check, which Yama's
ptrace_scope restricts (ptrace(2)); a job's credential is revoked when the job ends, and a job ends when its batch
script or salloc's command does (salloc(1); srun(1)'s example ends its background steps with `wait`); inotify
instances and watches are per-user limits in /proc/sys/fs/inotify (inotify(7)). explain/deeper.py names both: the
mechanism found and the cause that produces it, with how to confirm and fix it.

What a person decides stays in RULES below: which consequence (a bounded regex over the root's own line, anchored on
a literal needle) has which deeper cause, what in a text shows the deeper layer (`shown`: the text then confirms it)
or another cause (`other`: then the rule stands aside), and the fix. Every rule quotes the documentation it rests
on; the generator reads those documents (man pages from the Debian packages named in --deb, roff stripped to text)
and refuses a rule whose quote is not in them, so a release that rewords a page is seen at regeneration.

Usage:
    python tools/gen_deeper_causes.py --deb manpages-dev_6.03-2_all.deb --deb manpages_6.03-2_all.deb \\
        --deb slurm-client_22.05.8-4+deb12u3_amd64.deb [-o OUT] [--write-slice tools/data/deeper_causes_slice.txt]
    python tools/gen_deeper_causes.py --slice tools/data/deeper_causes_slice.txt -o OUT   (the test)

(`apt-get download manpages-dev manpages slurm-client` fetches the three .deb files.)
"""

import argparse
import datetime
import io
import json
import lzma
import os
import re
import sys
import tarfile

GENERATOR = "tools/gen_deeper_causes.py"
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "data", "knowledge",
                   "generated", "deeper_causes.json")
MAN7 = "https://man7.org/linux/man-pages/"
SLURM_DOC = "https://slurm.schedmd.com/"

# the documents the rules quote: key -> (Debian package, path in it, upstream URL)
DOCS = {
    "process_vm_readv(2)": ("manpages-dev", "usr/share/man/man2/process_vm_readv.2.gz",
                            MAN7 + "man2/process_vm_readv.2.html"),
    "ptrace(2)": ("manpages-dev", "usr/share/man/man2/ptrace.2.gz", MAN7 + "man2/ptrace.2.html"),
    "inotify_init(2)": ("manpages-dev", "usr/share/man/man2/inotify_init.2.gz", MAN7 + "man2/inotify_init.2.html"),
    "inotify_add_watch(2)": ("manpages-dev", "usr/share/man/man2/inotify_add_watch.2.gz",
                             MAN7 + "man2/inotify_add_watch.2.html"),
    "inotify(7)": ("manpages", "usr/share/man/man7/inotify.7.gz", MAN7 + "man7/inotify.7.html"),
    "salloc(1)": ("slurm-client", "usr/share/man/man1/salloc.1.gz", SLURM_DOC + "salloc.html"),
    "srun(1)": ("slurm-client", "usr/share/man/man1/srun.1.gz", SLURM_DOC + "srun.html"),
}

# What a person decides. consequence: a bounded regex over the root finding's own line (case-insensitive), needles:
# literal words one of which the line holds (lower case); consequence_if_shown / needles_if_shown: a line that has
# other causes too, which counts only where `shown` is in the text. shown: a line of the text that shows the deeper layer's
# state (the cause is then confirmed, How sure: medium); absent_shown: a line that must NOT be in the text for
# `shown` to count (the script's `wait`); other: a line that names another cause, and the rule stands aside. shown,
# absent_shown and other are read by the scan as structural patterns (explain/deeper.py PATTERNS): each runs on a line
# window (IGNORECASE, no MULTILINE: '^' is the line's start), anchored on a literal run of its own.
RULES = [
    {
        "id": "deeper.cma_ptrace",
        "layer": "the kernel's ptrace access check (Yama LSM, capabilities)",
        "consequence": r"process_vm_(?:readv|writev)\b[^\n]{0,400}?(?:Operation not permitted|\bEPERM\b|"
                       r"errno[ =:]{1,3}1\b)",
        "needles": ["process_vm_readv", "process_vm_writev"],
        "found": "one rank read or wrote another rank's memory on the same node with process_vm_readv/writev (the "
                 "single copy of UCX's cma transport, Open MPI's vader/sm CMA, libfabric's shm) and the kernel "
                 "refused it (EPERM)",
        "cause": "process_vm_readv(2) is governed by a ptrace access mode PTRACE_MODE_ATTACH_REALCREDS check, and the "
                 "kernel denied it: Yama's /proc/sys/kernel/yama/ptrace_scope is 1 or more (1, 'restricted ptrace', "
                 "is the default on Ubuntu and many kernels: only a descendant of the caller may be attached, and "
                 "two ranks are siblings), or the ranks run in a container without CAP_SYS_PTRACE (Docker's default "
                 "profile drops it) or in different user namespaces.",
        "confirm": ["cat /proc/sys/kernel/yama/ptrace_scope   (on the node: 0 allows it; 1, 2 or 3 denies it)",
                    "in the container: grep CapEff /proc/self/status; capsh --decode=<CapEff> | grep sys_ptrace"],
        "fix": ["on the hosts: sysctl -w kernel.yama.ptrace_scope=0 (keep it in /etc/sysctl.d/10-ptrace.conf)",
                "in a container: docker run --cap-add=SYS_PTRACE (Kubernetes: securityContext.capabilities.add: "
                "[\"SYS_PTRACE\"]; or --ipc=host --pid=host for all ranks of a node in one namespace)",
                "or go without the single copy: UCX_TLS=^cma (UCX), mpirun --mca btl_vader_single_copy_mechanism none "
                "(Open MPI 4) / --mca smsc ^cma (Open MPI 5)"],
        "shown": r"ptrace_scope\b[^\n]{0,40}?(?:[=:]\s{0,3}|\s)[123]\b|--cap-drop[= ](?:ALL|SYS_PTRACE)",
        "other": r"No such process|\bESRCH\b|Bad address|\bEFAULT\b",
        "quotes": [
            ("process_vm_readv(2)", "The caller does not have permission to access the address space of the "
                                    "process pid."),
            ("process_vm_readv(2)", "Permission to read from or write to another process is governed by a ptrace "
                                    "access mode PTRACE_MODE_ATTACH_REALCREDS check"),
            ("ptrace(2)", "When performing an operation that requires a PTRACE_MODE_ATTACH check, the calling "
                          "process must either have the CAP_SYS_PTRACE capability in the user namespace of the "
                          "target process or it must have a predefined relationship with the target process."),
            ("ptrace(2)", "By default, the predefined relationship is that the target process must be a descendant "
                          "of the caller."),
        ],
    },
    {
        "id": "deeper.ptrace_attach",
        "layer": "the kernel's ptrace access check (Yama LSM, capabilities)",
        # gdb's perror_with_name ("ptrace") 'ptrace: Operation not permitted.', strace's 'attach: ptrace(PTRACE_SEIZE,
        # <pid>): Operation not permitted' (a debugger attached to a hung rank: py-spy, gdb -p, strace -p)
        "consequence": r"\bptrace(?:\(PTRACE_[A-Z]{3,12}[^\n)]{0,40}\))?: Operation not permitted",
        "needles": ["ptrace"],
        "found": "a debugger or tracer (gdb -p, strace -p, py-spy) could not attach to a running process: ptrace() "
                 "returned EPERM",
        "cause": "Attaching is a ptrace access mode PTRACE_MODE_ATTACH check, and the kernel denied it: Yama's "
                 "/proc/sys/kernel/yama/ptrace_scope is 1 or more (1, the default on Ubuntu and many kernels, lets a "
                 "process attach only to its own descendants, and the hung rank is not the debugger's child), or "
                 "the process runs in a container without CAP_SYS_PTRACE.",
        "confirm": ["cat /proc/sys/kernel/yama/ptrace_scope   (0 allows attaching to the same user's processes)",
                    "in the container: grep CapEff /proc/self/status; capsh --decode=<CapEff> | grep sys_ptrace"],
        "fix": ["attach as root (sudo py-spy dump --pid <pid>; sudo gdb -p <pid>), or on the host: sysctl -w "
                "kernel.yama.ptrace_scope=0",
                "in a container: docker run --cap-add=SYS_PTRACE (Kubernetes: securityContext.capabilities.add: "
                "[\"SYS_PTRACE\"])"],
        "shown": r"ptrace_scope\b[^\n]{0,40}?(?:[=:]\s{0,3}|\s)[123]\b|--cap-drop[= ](?:ALL|SYS_PTRACE)",
        "quotes": [
            ("ptrace(2)", "When performing an operation that requires a PTRACE_MODE_ATTACH check, the calling "
                          "process must either have the CAP_SYS_PTRACE capability in the user namespace of the "
                          "target process or it must have a predefined relationship with the target process."),
            ("ptrace(2)", "By default, the predefined relationship is that the target process must be a descendant "
                          "of the caller."),
        ],
    },
    {
        "id": "deeper.job_ended_under_steps",
        "layer": "the Slurm job that holds the step (its batch script or salloc's command)",
        "consequence": r"Job credential revoked|Job/step already completing or completed",
        "needles": ["credential revoked", "already completing"],
        # what Debian's Slurm 22.05 printed here for a batch script that ended before its `srun ... &` steps
        # (fixtures/explain/noans24/slurm-batch-script-without-wait.log, recorded on tests/slurmcluster.py's nodes):
        # a step started after the end 'srun: error: Slurm job N has expired' / 'Expired or invalid job N', the
        # running ones '*** STEP N.M ON node CANCELLED AT time ***' with no reason. Alone these have other causes
        # too (a shell's stale SLURM_JOB_ID, an scancel of the step): they count only where the text shows the
        # script's background steps and no `wait`
        "consequence_if_shown": r"Slurm job \d{1,12} has expired|Expired or invalid job \d{1,12}|\*\*\* STEP "
                                r"\d{1,12}\.\d{1,6} ON [^\n*]{1,100}? CANCELLED AT [^\n*]{1,60}\*\*\*",
        "needles_if_shown": ["has expired", "expired or invalid job", "cancelled at"],
        "found": "Slurm refused or ended a step because its job had already ended: slurmd revokes a job's "
                 "credential when the job terminates and refuses every launch that carries it (src/slurmd/slurmd/"
                 "req.c: 'Job credential revoked', ESLURMD_CREDENTIAL_REVOKED), srun finds the job expired ('Slurm "
                 "job N has expired'), and the steps still running are cancelled ('*** STEP N.M ON node CANCELLED "
                 "AT ... ***')",
        "cause": "The job ended under its steps: the batch script (or salloc's command) returned while steps it "
                 "started in the background (srun ... & lines) were still starting or running, and a job lasts only as "
                 "long as its script. End the script with `wait` (srun(1)'s example of parallel steps does). A job "
                 "cancelled (scancel) or past its time limit ends its steps the same way.",
        "confirm": ["the batch script: every `srun ... &` must be followed by `wait` before the script ends",
                    "sacct -j <jobid> --format=JobID,State,ExitCode,Elapsed,End: the batch step ended (COMPLETED) "
                    "before or as the other steps failed"],
        "fix": ["add `wait` after the last `srun ... &` of the batch script (or `wait $pid` for each step), so the "
                "script - and the job - lasts until its steps end"],
        "shown": r"^[ \t]{0,8}[^\n&|;#]{0,200}?\bsrun[ \t][^\n]{0,400}?(?<!&)&[ \t]{0,4}(?:\n|$)",
        "absent_shown": r"^[ \t]{0,8}wait(?:[ \t][^\n]{0,200})?(?:\n|$)",
        # (slurmstepd's '*** JOB <id> ON <node> CANCELLED AT <time> [DUE TO ...] ***' is the job's own end - scancel, a
        # limit; a step the job's end took with it is '*** STEP <id>.<n> ... CANCELLED ...', src/slurmd/slurmstepd/req.c)
        # (srun's own allocation that ended before it ran - 'Job has been cancelled', 'Unable to allocate resources:
        # Job/step already completing' under --deadline - is no step of a batch script)
        "other": r"DUE TO (?:TIME LIMIT|PREEMPTION|NODE FAILURE|DEADLINE)|\*\*\* JOB \d{1,12} ON [^\n]{1,100}? "
                 r"CANCELLED AT|Exceeded job memory limit|oom[-_]kill|Job has been cancelled|Unable to allocate "
                 r"resources",
        "quotes": [
            ("salloc(1)", "when the user specified command is complete, salloc relinquishes the job allocation."),
            ("srun(1)", "The following script runs two job steps in parallel within an allocated set of nodes."),
            ("srun(1)", "srun -n4 prog1 & srun -n3 prog2 & srun -n1 prog3 & srun -n1 prog4 & wait"),
        ],
    },
    {
        "id": "deeper.inotify_instances",
        "layer": "the kernel's per-user inotify limits (/proc/sys/fs/inotify)",
        # (a file watcher's creation: inotify_init1(2) behind Go's fsnotify.NewWatcher, watchdog, chokidar, ...)
        "consequence": r"(?:inotify|fsnotify|watcher)[^\n]{0,200}?(?:too many open files|\bEMFILE\b)|"
                       r"too many open files[^\n]{0,120}?(?:inotify|fsnotify|watcher)",
        "needles": ["inotify", "fsnotify", "watcher"],
        "found": "a program could not create an inotify instance (inotify_init returned EMFILE: 'too many open "
                 "files')",
        "cause": "EMFILE from inotify_init(2) is most often not the file-descriptor limit but the per-user limit on "
                 "inotify instances, /proc/sys/fs/inotify/max_user_instances (128 by default): every watcher of the "
                 "same user on the node counts (kubelet, device plugins, log shippers, IDE servers, other pods of "
                 "the same UID).",
        "confirm": ["cat /proc/sys/fs/inotify/max_user_instances; count the instances in use: "
                    "find /proc/*/fd -lname anon_inode:inotify 2>/dev/null | wc -l"],
        "fix": ["sysctl -w fs.inotify.max_user_instances=8192 (keep it in /etc/sysctl.d/; on Kubernetes a "
                "node-level DaemonSet or the node image sets it), then restart the program that failed"],
        "shown": r"max_user_instances\b",
        "other": r"ulimit -n|RLIMIT_NOFILE|file_descriptor_limit",
        "quotes": [
            ("inotify_init(2)", "The user limit on the total number of inotify instances has been reached."),
            ("inotify(7)", "/proc/sys/fs/inotify/max_user_instances This specifies an upper limit on the number of "
                           "inotify instances that can be created per real user ID."),
        ],
    },
    {
        "id": "deeper.inotify_watches",
        "layer": "the kernel's per-user inotify limits (/proc/sys/fs/inotify)",
        "consequence": r"(?:inotify|fsnotify|file watch)[^\n]{0,200}?(?:no space left on device|\bENOSPC\b)|"
                       r"no space left on device[^\n]{0,120}?(?:inotify|fsnotify|watch)",
        "needles": ["inotify", "fsnotify", "watch"],
        "found": "a program could not add an inotify watch (inotify_add_watch returned ENOSPC: 'no space left on "
                 "device', with the disk not full)",
        "cause": "ENOSPC from inotify_add_watch(2) is not a full disk: the user's inotify watches reached "
                 "/proc/sys/fs/inotify/max_user_watches (8192 on older kernels), shared by every watcher of the same "
                 "user on the node.",
        "confirm": ["cat /proc/sys/fs/inotify/max_user_watches; df -h shows the disks are not full"],
        "fix": ["sysctl -w fs.inotify.max_user_watches=524288 (keep it in /etc/sysctl.d/), then restart the program "
                "that failed"],
        "shown": r"max_user_watches\b",
        "other": r"\bdf -h\b[^\n]{0,80}100%|/dev/shm",
        "quotes": [
            ("inotify_add_watch(2)", "The user limit on the total number of inotify watches was reached or the "
                                     "kernel failed to allocate a needed resource."),
            ("inotify(7)", "/proc/sys/fs/inotify/max_user_watches This specifies an upper limit on the number of "
                           "watches that can be created per real user ID."),
        ],
    },
]

_ROFF_FONT = re.compile(r"\\f[BIRP]|\\f\(..|\\\[em\]|\\\[bu\]|\\&|\\c")


def roff_text(src):
    """A man page's roff as plain text, whitespace folded: macro lines keep their words (.B X, .I X, .TP ...)."""
    out = []
    for line in src.splitlines():
        if line.startswith('.\\"') or line.startswith("'\\\""):
            continue
        if line.startswith("."):
            parts = line.split(None, 1)
            if parts[0] in (".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SS", ".SH") and len(parts) > 1:
                words = parts[1]
                if parts[0] in (".BR", ".IR", ".RB", ".RI", ".BI", ".IB"):  # alternating fonts: the words abut
                    words = "".join(a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', words))
                out.append(words.strip('"'))
            continue
        out.append(line)
    text = _ROFF_FONT.sub("", " ".join(out)).replace("\\-", "-").replace("\\(em", "-").replace("\\ ", " ")
    text = text.replace("\\e", "\\")
    return re.sub(r"\s+", " ", text).strip()


def _ar_members(data):
    """The members of a .deb (an ar archive): {name: bytes}."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive")
    pos, out = 8, {}
    while pos + 60 <= len(data):
        head = data[pos:pos + 60]
        name = head[:16].decode().strip().rstrip("/")
        size = int(head[48:58].decode().strip())
        out[name] = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
    return out


def read_deb(path):
    """(package, version, {path: text}) of a .deb's man pages under usr/share/man (gzip'd roff, decoded)."""
    import gzip

    with open(path, "rb") as f:
        members = _ar_members(f.read())
    control = next(v for k, v in members.items() if k.startswith("control.tar"))
    data_name = next(k for k in members if k.startswith("data.tar"))
    ctl = tarfile.open(fileobj=io.BytesIO(control))
    meta = ctl.extractfile(next(m for m in ctl.getmembers() if m.name.endswith("control"))).read().decode()
    pkg = re.search(r"^Package: (\S+)", meta, re.M).group(1)
    ver = re.search(r"^Version: (\S+)", meta, re.M).group(1)
    raw = members[data_name]
    if data_name.endswith(".xz"):
        raw = lzma.decompress(raw)
    tar = tarfile.open(fileobj=io.BytesIO(raw))
    pages = {}
    for m in tar.getmembers():
        name = m.name[2:] if m.name.startswith("./") else m.name
        if m.isfile() and name.startswith("usr/share/man/") and name.endswith(".gz"):
            pages[name] = gzip.decompress(tar.extractfile(m).read()).decode("utf-8", "replace")
    return pkg, ver, pages


def docs_from_debs(paths):
    """{doc key: (text, 'package version')} for DOCS, read from the .deb files."""
    got = {}
    for p in paths:
        pkg, ver, pages = read_deb(p)
        for key, (dpkg, path, _url) in DOCS.items():
            if dpkg == pkg and path in pages:
                got[key] = (roff_text(pages[path]), "%s %s" % (pkg, ver))
    missing = sorted(set(DOCS) - set(got))
    if missing:
        raise SystemExit("documents not found in the .deb files: %s" % ", ".join(missing))
    return got


def read_slice(path):
    """The recorded slice: '=== <doc key> | <package version>' then the document's quoted sentences' text."""
    got, key, body = {}, None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("=== "):
                if key:
                    got[key] = (" ".join(body), got_ver)
                key, got_ver = [x.strip() for x in line[4:].split("|", 1)]
                body = []
            elif key and line and not line.startswith("#"):
                body.append(line)
    if key:
        got[key] = (" ".join(body), got_ver)
    return got


def write_slice(path, docs):
    """Each document's sentences that hold a quote (the text around each quote, 400 characters each side)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# recorded by tools/gen_deeper_causes.py --write-slice: the quoted passages of each document, roff "
                "stripped\n")
        for key in sorted(docs):
            text, ver = docs[key]
            f.write("=== %s | %s\n" % (key, ver))
            for q in sorted({q for r in RULES for k, q in r["quotes"] if k == key}):
                i = text.find(q)
                f.write(text[max(0, i - 400):i + len(q) + 400] + "\n")


def build(docs):
    rules, versions = [], set()
    for r in RULES:
        for pat in ("consequence", "consequence_if_shown", "shown", "absent_shown", "other"):
            if r.get(pat):
                re.compile(r[pat])
        sources = []
        for key, quote in r["quotes"]:
            text, ver = docs[key]
            if quote not in text:
                raise SystemExit("%s: the quote of %s is not in %s: %r" % (r["id"], key, ver, quote))
            versions.add(ver)
            sources.append({"doc": key, "package": ver, "url": DOCS[key][2], "quote": quote})
        row = {k: r[k] for k in ("id", "layer", "consequence", "needles", "found", "cause", "confirm", "fix")}
        for k in ("consequence_if_shown", "needles_if_shown", "shown", "absent_shown", "other"):
            if r.get(k):
                row[k] = r[k]
        row["sources"] = sources
        rules.append(row)
    return {"header": {"source": "man pages of the Debian packages %s (the documents each rule quotes: %s)" % (
                           ", ".join(sorted({DOCS[k][0] for k in DOCS})), ", ".join(sorted(DOCS))),
                       "version": "; ".join(sorted(versions)),
                       "generator": GENERATOR, "date": datetime.date.today().isoformat(),
                       "note": "generated by tools/gen_deeper_causes.py from its RULES and the documents they quote; "
                               "do not edit by hand, run it again"},
            "sites": [], "rules": rules}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deb", action="append", default=[], help="a Debian package holding documents of DOCS")
    ap.add_argument("--slice", help="the recorded slice instead of the .deb files (the test)")
    ap.add_argument("--write-slice", help="also record the quoted passages here")
    ap.add_argument("-o", "--out", default=OUT)
    a = ap.parse_args(argv)
    if not a.deb and not a.slice:
        ap.error("--deb or --slice")
    docs = read_slice(a.slice) if a.slice else docs_from_debs(a.deb)
    out = build(docs)
    if a.write_slice:
        write_slice(a.write_slice, docs)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    sys.stderr.write("%d rules, %d sources -> %s\n" % (len(out["rules"]), sum(len(r["sources"]) for r in out["rules"]),
                                                       a.out))


if __name__ == "__main__":
    main()
