#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/pmix_errors.json: the PMIx status codes a log shows in
PMIx's own error line, `PMIX ERROR: <string> in file <file> at line <n>` (PMIX_ERROR_LOG, src/util/
pmix_error.h: pmix_output(0, "PMIX ERROR: %s in file %s at line %d", PMIx_Error_string(r), ...)), each
with its name, number, the two strings PMIx_Error_string has printed for it, a matcher, the knowledge
family (RULES below) and, where the code itself names the cause, its meaning and fix (MEANS).

PMIx_Error_string printed two different strings over the releases, and both are in today's logs:
- PMIx <= 4.1 (v3.2.5 here: the PMIx Open MPI 4.0/4.1 bundle in opal/mca/pmix/pmix3x, and that Slurm's
  mpi/pmix_v3 plugin is built with): a hand-written switch in src/util/error.c returning 'UNREACHABLE',
  'NOT-FOUND', 'UNPACK-PAST-END', ...
- PMIx >= 4.2 (v5.0.11 here: the PMIx Open MPI 5 bundles): the constant's own name ('PMIX_ERR_UNREACH'),
  from the table contrib/construct_event_strings.py builds out of the `#define`s between 'PMIX ERROR
  CONSTANTS' and the end markers of include/pmix_common.h.in, include/pmix_deprecated.h and
  src/util/pmix_error.h.

Usage:
    python tools/gen_pmix_errors.py --repo /path/to/openpmix.git [--rev v5.0.11] [--old-rev v3.2.5] [-o OUT]
        (reads both revisions with `git show`; writes tools/data/pmix_errors_slice.txt too)
    python tools/gen_pmix_errors.py --slice tools/data/pmix_errors_slice.txt -o OUT   (the test)

Source: openpmix/openpmix (https://github.com/openpmix/openpmix). The slice keeps the constants sections
and v3.2.5's PMIx_Error_string verbatim, each under `=== <tag>:<path> @<first line>`, so the committed
file and the one regenerated from the slice are the same.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_pmix_errors.py"
SLICE = os.path.join(knowgen.DATA, "pmix_errors_slice.txt")
NEW_FILES = ("include/pmix_common.h.in", "include/pmix_deprecated.h", "src/util/pmix_error.h")
OLD_HEADER, OLD_STRINGS = "include/pmix_common.h.in", "src/util/error.c"
_START = "PMIX ERROR CONSTANTS"
# construct_event_strings.py's end markers (harvest_constants)
_END = re.compile(r"PMIX_EXTERNAL_ERR_BASE|PMIX_ERR_SYS_BASE|PMIX_INTERNAL_ERR_DONE")
_DEFINE = re.compile(r"^\s*#define\s+(PMIX_[A-Z0-9_]+)\s+(-?\d+|PMIX_[A-Z0-9_]+(?:\s*[-+]\s*\d+)?)\s*(?://\s*(.*))?$")
_CASE = re.compile(r'case\s+(PMIX_[A-Z0-9_]+)\s*:\s*return\s+"([^"\n]*)"\s*;')

# (rule, knowledge entry or None, regex on the code's name): the first that matches assigns the family.
RULES = [
    # events and statuses the library passes around, never a failure in PMIX_ERROR_LOG's sense
    ("not-an-error", None, r"^PMIX_(?:SUCCESS|EXISTS|EVENT_|GROUP_|MODEL_|OPENMP_|LAUNCH|JCTRL_|MONITOR_|"
                           r"PROCESS_SET_|QUERY_PARTIAL|OPERATION_|DEBUGGER_RELEASE|READY_FOR_DEBUG|DEBUG_WAITING|"
                           r"FABRIC_|NOTIFY_|GDS_ACTION|PROC_HAS_CONNECTED|CONNECT_REQUESTED|PROC_TERMINATED|"
                           r"ERR_SILENT|ERR_TAKE_NEXT_OPTION|ERR_PARTIAL_SUCCESS|ERR_REPEAT_ATTR|"
                           r"MAX_ERR_CONSTANT|ERR_DEBUGGER_RELEASE|ERR_READY_FOR_HANDSHAKE|ERR_IOF_COMPLETE|"
                           r"LAUNCH_DIRECTIVE|ERR_UPDATE_ENDPOINTS|ERR_WOULD_BLOCK|ERR_EXISTS|ERR_EMPTY|ERR_SYS_OTHER|"
                           r"ERR_PROC_(?:RESTART|CHECKPOINT|MIGRATE)$)"),
    # the security handshake (psec: munge, native) refused the client's credential
    ("credential", "mpi.pmix_psec_munge", r"^PMIX_ERR_INVALID_CRED$"),
    # the job's executable or working directory: not found or not accessible on the node
    ("executable", "mpi.exec_not_found", r"^PMIX_ERR_(?:JOB_(?:APP_NOT_EXECUTABLE|NO_EXE_SPECIFIED|EXE_NOT_FOUND|"
                                         r"WDIR_NOT_FOUND|WDIR_NOT_ACCESSIBLE)|EXE_NOT_ACCESSIBLE)$"),
    # the job could not be mapped onto the allocation (more ranks than slots)
    ("mapping", "mpi.slots", r"^PMIX_ERR_JOB_(?:FAILED_TO_MAP|INSUFFICIENT_RESOURCES|ALLOC_FAILED)$"),
    # a rank (or the job) ended by a signal, a command or a non-zero exit: the first rank's own error is the root
    ("rank-ended", "mpi.rank_died", r"^PMIX_ERR_(?:PROC_(?:ABORTED|ABORTING|REQUESTED_ABORT|KILLED_BY_CMD|"
                                    r"ABORTED_BY_SIG|TERM_WO_SYNC|FAILED_TO_START|SENSOR_BOUND_EXCEEDED)|"
                                    r"JOB_(?:ABORTED|ABORTED_BY_SIG|KILLED_BY_CMD|NON_ZERO_TERM|TERM_WO_SYNC|"
                                    r"TERMINATED|CANCELED|FAILED_TO_LAUNCH|SENSOR_BOUND_EXCEEDED|ABORTED_BY_SYS_EVENT|"
                                    r"SYS_OP_FAILED)|EXIT_NONZERO_TERM)$"),
    ("node-down", "mpi.launch", r"^PMIX_ERR_NODE_(?:DOWN|OFFLINE)$"),
    # every other error code: the PMIx family, whose causes the log's file and code tell apart
    ("pmix", "mpi.pmix", r"^PMIX_(?:ERROR$|ERR_)"),
]

_MISMATCH = (
    "a message between two PMIx libraries could not be decoded: the two ends (the launcher's PMIx server: "
    "mpirun/prterun/orted, or slurmstepd under srun --mpi=pmix; and the rank's PMIx client inside the MPI "
    "library) are different PMIx versions or builds (two Open MPI installs: mpirun from one, libmpi from "
    "another; a container's MPI under the host's srun; Slurm built against another PMIx than Open MPI)",
    ["use one MPI/PMIx everywhere: `which mpirun; ldd ./app | grep -E 'libmpi|libpmix'` on every node must name "
     "the same install (fix PATH/LD_LIBRARY_PATH, or start with that install's own mpirun); under Slurm, `srun "
     "--mpi=list` and pick the pmix_vN plugin of the app's PMIx major (srun --mpi=pmix_v4 ...), or build Open MPI "
     "--with-pmix=<the PMIx Slurm was built with>"])
_SERVER_GONE = (
    "the rank's PMIx client could not reach, or lost, its PMIx server (the local mpirun/prted/orted daemon, or "
    "slurmstepd under srun --mpi=pmix): the server ended first (a node lost, the launcher killed, OOM), the rank "
    "was started outside the launcher, or a container hides the server's rendezvous files (its TMPDIR)",
    ["find what ended first (the launcher's 'lost communication' / the first rank's error; sudo dmesg -T on that "
     "node for the OOM killer); start every rank through mpirun/srun; in a container, bind the host's /tmp (or "
     "the directory PMIX_SERVER_TMPDIR names) and share its PID/IPC namespace with the launcher (apptainer does "
     "by default; docker run --ipc=host --pid=host)"])
# name -> (what it means, [fixes]): only where the code itself names a cause; every other code keeps the
# mpi.pmix family's causes (the file in the line tells them apart: a gds_ds* / dstore file is the shared-
# memory store, PMIX_MCA_gds=hash)
MEANS = {
    "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER": _MISMATCH,
    "PMIX_ERR_UNPACK_INADEQUATE_SPACE": _MISMATCH,
    "PMIX_ERR_UNKNOWN_DATA_TYPE": _MISMATCH,
    "PMIX_ERR_HANDSHAKE_FAILED": _MISMATCH,
    "PMIX_ERR_UNREACH": _SERVER_GONE,
    "PMIX_ERR_LOST_CONNECTION": _SERVER_GONE,
    "PMIX_ERR_LOST_CONNECTION_TO_SERVER": _SERVER_GONE,
    "PMIX_ERR_SERVER_NOT_AVAIL": _SERVER_GONE,
    "PMIX_ERR_COMM_FAILURE": _SERVER_GONE,
    "PMIX_ERR_OUT_OF_RESOURCE": (
        "PMIx could not get a resource: shared memory for its data store (/dev/shm or its TMPDIR full or "
        "small, a container's 64 MB /dev/shm), file descriptors, or memory",
        ["df -h /dev/shm $TMPDIR on the node; docker run --shm-size=8g (or --ipc=host); ulimit -n 65536; or avoid "
         "the shared-memory store: export PMIX_MCA_gds=hash"]),
    "PMIX_ERR_NO_PERMISSIONS": (
        "PMIx may not create or open its rendezvous or shared-memory files: the session directory (TMPDIR, "
        "PMIX_SERVER_TMPDIR) belongs to another user or is not writable, or a container maps another uid",
        ["ls -ld $TMPDIR /tmp on the node; point TMPDIR (and PMIX_SERVER_TMPDIR) at a directory the job's user "
         "owns, and remove stale ompi.*/prte.*/pmix-* session directories left there by another user"]),
}


def sections(text):
    """The constants section of a header: from the 'PMIX ERROR CONSTANTS' line to construct_event_strings.py's
    end marker (that line included), and its first line number."""
    lines = text.splitlines(True)
    start = next(i for i, ln in enumerate(lines) if _START in ln)
    end = next((i for i in range(start, len(lines)) if _END.search(lines[i]) and "#define" in lines[i]),
               len(lines) - 1)
    return "".join(lines[start:end + 1]), start + 1


def error_string_function(text):
    """v3's PMIx_Error_string, from its signature to the end of its switch, and its first line number."""
    i = text.index("PMIx_Error_string(pmix_status_t")
    i = text.rfind("\n", 0, i) + 1
    j = text.index("ERROR STRING NOT FOUND", i)
    j = text.index("}", j)
    j = text.index("\n", j) + 1
    return text[i:j], text.count("\n", 0, i) + 1


def parse_defines(text):
    """[(name, number, comment)] of a constants section, as construct_event_strings.py reads them (a value
    naming an earlier constant, with an offset, is resolved; comment lines and the end marker are skipped)."""
    out, known = [], {}
    for ln in text.splitlines():
        m = _DEFINE.match(ln)
        if not m or _END.search(m.group(1)):
            continue
        name, val, comment = m.group(1), m.group(2), (m.group(3) or "").strip()
        if re.fullmatch(r"-?\d+", val):
            num = int(val)
        else:
            base, sign, off = re.match(r"(PMIX_[A-Z0-9_]+)\s*([-+]?)\s*(\d*)", val).groups()
            if base not in known:
                continue
            num = known[base] + (int(off) if off else 0) * (-1 if sign == "-" else 1)
        known[name] = num
        out.append((name, num, comment))
    return out


def matcher(name, old):
    """PMIx's own error line with this code: its v5 name or its v3 string ('PMIX ERROR: UNREACHABLE in file');
    an error name (PMIX_ERR_*) is matched alone too ('PMIx_Init failed: PMIX_ERR_UNREACH')."""
    alts = [re.escape(name)] + ([re.escape(old)] if old and old != name else [])
    rx = r"PMIX ERROR: (?:%s) in file" % "|".join(alts)
    if name.startswith("PMIX_ERR_"):
        rx = r"(?:%s|\b%s\b)" % (rx, re.escape(name))
    return rx


def build(files, version):
    by_path = dict(files)
    old_tag = old_tag_of(files)
    new_tag = next(p.split(":", 1)[0] for p in by_path if p.endswith(NEW_FILES[0]) and not p.startswith(old_tag + ":"))
    strings = dict(_CASE.findall(by_path["%s:%s" % (old_tag, OLD_STRINGS)]))
    new = []
    for f in NEW_FILES:
        new += [(n, c, cm, "%s:%s" % (new_tag, f)) for n, c, cm in parse_defines(by_path["%s:%s" % (new_tag, f)])]
    old = {n: c for n, c, _ in parse_defines(by_path["%s:%s" % (old_tag, OLD_HEADER)])}
    sites, seen = [], set()
    rows = [(n, c, cm, where) for n, c, cm, where in new] + \
        [(n, old[n], "", "%s:%s" % (old_tag, OLD_HEADER)) for n in strings if n in old and n not in
         {r[0] for r in new}]
    for name, code, comment, where in rows:
        if name in seen:
            continue
        seen.add(name)
        printed = strings.get(name)
        rule, family = knowgen.assign([(r, f, {"name": rx}) for r, f, rx in RULES], None, {"name": name})
        site = {"id": "pmix.%s" % name, "where": where, "name": name, "code": code,
                "text": "; ".join(x for x in (("PMIx <= 4.1 prints %s" % printed) if printed else "", comment) if x),
                "printed": sorted({name} | ({printed} if printed else set())),
                "re": matcher(name, printed), "family": family, "rule": rule or "no rule"}
        if family is None:
            site["re"] = None
            if rule:
                site["rule"] = "%s: an event or status, not an error a log reports" % rule
        if name in MEANS and family:
            site["means"], site["fix"] = MEANS[name][0], list(MEANS[name][1])
        sites.append(site)
    missing = sorted(set(MEANS) - {s["name"] for s in sites if s.get("fix")})
    if missing:
        raise SystemExit("MEANS names codes these sources do not have (or no rule assigns): %s" % ", ".join(missing))
    return {"header": knowgen.header("openpmix/openpmix (https://github.com/openpmix/openpmix): "
                                     "include/pmix_common.h.in, include/pmix_deprecated.h, src/util/pmix_error.h "
                                     "(names, PMIx >= 4.2) and v3's src/util/error.c (PMIx_Error_string)",
                                     version, GENERATOR,
                                     "families from the RULES table of the generator; matched on PMIX_ERROR_LOG's "
                                     "'PMIX ERROR: <string> in file' with either string"),
            "sites": sites}


def old_tag_of(files):
    return next(p.split(":", 1)[0] for p, _ in files if p.endswith(OLD_STRINGS))


def slice_from_repo(repo, rev, old_rev):
    git = knowgen.git_reader(repo)
    out = ["#! version %s; %s\n" % (knowgen.revision(git, rev, describe=False),
                                    knowgen.revision(git, old_rev, describe=False)),
           "# openpmix/openpmix, verbatim parts (written by tools/gen_pmix_errors.py --repo): the error constants "
           "sections and v3's PMIx_Error_string\n"]
    for f in NEW_FILES:
        body, first = sections(git("show", "%s:%s" % (rev, f)))
        out.append("=== %s:%s @%d\n%s" % (rev, f, first, body))
    body, first = sections(git("show", "%s:%s" % (old_rev, OLD_HEADER)))
    out.append("=== %s:%s @%d\n%s" % (old_rev, OLD_HEADER, first, body))
    body, first = error_string_function(git("show", "%s:%s" % (old_rev, OLD_STRINGS)))
    out.append("=== %s:%s @%d\n%s" % (old_rev, OLD_STRINGS, first, body))
    return "".join(out)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="v5.0.11",
                          extra=(("--old-rev", {"default": "v3.2.5"}),))
    path = a.slice
    if a.repo:
        with open(SLICE, "w") as f:
            f.write(slice_from_repo(a.repo, a.rev, a.old_rev))
        path = SLICE
    files, version = knowgen.read_slice(path)
    return knowgen.emit("pmix_errors", build(files, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
