"""A failure line of a program no message table reads (issue 18 item 2, noans24): its family from what the program is.

explain knows a program's messages where a generator read its source. A line such as `pdcp@login: gpu01: rcmd:
socket: Permission denied`, `nvidia-modprobe: unrecognized option: "-i"`, MFT's `-E- Cannot open Device` after a
`flint` command, the kernel's `nvidia 0000:06:00.0: loading /lib/firmware/... failed with error -4`, or a GPU
Operator pod stuck in `Init:0/1` names no message any table holds, and the answer was "no error" or "no known error".
Each still names the program that printed it, and generated/programs.json (tools/gen_programs.py: the executables of
the stack's Debian packages, the GPU Operator's own DaemonSets and Pods, and a documented list with sources) says what
that program is: its family, and the program's own diagnostics as the next step.

The forms read, each a program's own way of saying it failed:
- `prog: <message>`, `prog[pid]: <message>` (syslog), `prog@host: <message>` (pdsh's and pdcp's prefix), the name at
  the line's start or after a blank or a bracket, when the message holds a failure word (error, failed, denied, ...)
  and is no warning of the program's;
- a level word at the line's start - `[ERROR] ` (enroot's common::err), `-E- ` (NVIDIA's networking tools, which
  this prefix names even without their command), `ERROR: `
  / `FATAL: ` / `Error: `, logrus' `level=error` - or any line the scan counts as an error, after a command line of a
  known program that is no launcher (`$ enroot import ...`, `# flint -d ... q`, or the command alone on its line) or
  after `kubectl logs` of a known pod, within the 40 lines before it;
- the kernel's device messages (dev_printk: `<driver> <bus id>: <message>`) of the GPU and RDMA drivers, with a
  failure word;
- a `kubectl get pods` row of a known pod whose status is a failure (CrashLoopBackOff, Error, ImagePullBackOff, an
  init container that failed, OOMKilled, ...) or that has stayed in `Init:N/M`, `Pending` or `ContainerCreating`
  for 10 minutes or more.

The answer is the program's family with How sure: low (calibrate answers a likely cause): the line says which program
failed, not why. It runs last in explain_inputs, after lastresort, on a text nothing else answered.
"""

import re

from gpudoctor.explain.text import clip as _clip, strip_prefix

CMD_WINDOW = 40  # lines after a program's command line whose level-form lines are that program's
# programs whose command runs another program (a launcher, a remote shell, a container engine): the lines after their
# command line are that other program's, and only their own prefixed lines are theirs
LAUNCHERS = frozenset(("srun", "salloc", "sbatch", "sattach", "mpirun", "mpiexec", "orterun", "oshrun", "shmemrun",
                       "pdsh", "ssh", "slogin", "docker", "podman", "apptainer", "singularity", "runc", "containerd"))
MAX_HITS = 64
# the patterns above that read the user's own lines (a command line, `kubectl logs ...`), not a program's output: a
# symptom told in words on such a line is still the user's (symptoms._program_lines; fp24: "mpirun puts all processes
# on the same host" is also mpirun's command alone on its line)
USER_LINES = frozenset(("_struct_pl_cmd", "_struct_pl_klogs"))


def _table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("programs")


def _alt(names):
    """The names as one alternation, longest first. A name shorter than MIN_NAME is left out: the scan prefilters a
    pattern's lines on a literal run of 4 characters or more (knowledge.Pattern), and 'ssh', 'scp', 'mst' are read
    by their own tables (ssh_messages) or only after a command line."""
    return "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)) if len(n) >= MIN_NAME)


MIN_NAME = 4
MFT = "mstflint"  # the table's name for NVIDIA's networking tools' own '-E-' lines


_FAIL = re.compile(r"\b(?:error|fail(?:ed|s|ure)?|fatal|cannot|can't|could ?not|couldn't|unable|not found|no such|"
                   r"denied|refused|invalid|unrecognized|unknown (?:option|command|argument)|illegal|timed out|timeout|"
                   r"abort(?:ed|ing)?|mismatch|unsupported|not supported|not permitted|exceeded|killed|missing|"
                   r"corrupt(?:ed)?|incompatible|no (?:devices?|space) |can not|unknown host|no route to host|"
                   r"connection (?:reset|closed)|broken pipe|segmentation fault|exit(?:ed with exit)? (?:code|status) "
                   r"[1-9]|non-zero exit)", re.IGNORECASE)
_NOT_FAIL = re.compile(r"\b(?:no|0|zero|without) (?:errors?|failures?)\b|\berrors?[:=] ?0\b|\bfailed[:=] ?0\b",
                       re.IGNORECASE)
_BAD_STATUS = frozenset(("CrashLoopBackOff", "Error", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError",
                         "CreateContainerError", "RunContainerError", "InvalidImageName", "OOMKilled", "Evicted",
                         "ContainerStatusUnknown", "StartError"))
_SLOW_STATUS = frozenset(("Pending", "ContainerCreating", "PodInitializing"))
_AGE = re.compile(r"(\d{1,6})([dhms])")
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
STUCK_S = 600


def _patterns():
    t = _table()
    progs, pods, drivers = t.get("programs") or {}, t.get("pods") or {}, t.get("drivers") or {}
    if not progs:
        return {}
    p = _alt(progs)
    return {
        # prog: / prog[pid]: / prog@host: at the line's start or after a blank, a path or a bracket
        "_struct_pl_prog": [r"(?:^|[ \t\[('\"`])(?P<prog>(?-i:%s))(?:\[\d{1,10}\]|@[\w.-]{1,80})?:[ \t]{1,4}"
                            r"(?P<msg>[^\n]{3,400})" % p],
        # a command line of a known program: after a shell prompt or sudo, or the command alone at the line's start
        "_struct_pl_cmd": [r"(?:^[ \t]{0,8}|[$#>%%][ \t]{1,4}|\bsudo[ \t]{1,4})(?:\S{1,200}/)?(?P<prog>(?-i:%s))"
                           r"(?:[ \t][^\n]{0,300})?(?:\n|$)" % p],
        # a level word at the line's start: [ERROR] (enroot), -E- (MFT), ERROR: / FATAL: / Error:
        # (needles given: '-E-' is shorter than a derived needle may be); logrus' key=value form (level=error msg=...)
        "_struct_pl_level": [(r"^[ \t]{0,8}(?P<lvl>\[(?:ERROR|FATAL)\]|-E-|(?:ERROR|FATAL|Error):)[ \t]{1,4}"
                              r"(?P<msg>[^\n]{3,400})", ("[error]", "[fatal]", "-e-", "error:", "fatal:")),
                             r"\b(?P<lvl>level=(?:error|fatal))[ \t](?P<msg>[^\n]{3,400})"],
        # the kernel's dev_printk: '<driver> <bus id>: <message>' (drivers/base/core.c)
        "_struct_pl_dev": [r"(?:^|[\]:][ \t]{0,4})(?P<drv>(?-i:%s)) (?P<bus>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]):"
                           r"[ \t]{1,4}(?P<msg>[^\n]{3,400})" % _alt(drivers)] if drivers else [],
        # kubectl logs [-n ns] <pod> [-c container]: the lines after it are that pod's program's
        "_struct_pl_klogs": [r"\bkubectl\b[^\n]{0,200}?[ \t]logs[ \t][^\n]{0,200}?(?:^|[ \t/])(?P<pod>(?-i:%s)"
                             r"(?:-[a-z0-9]{1,20}){0,4})\b" % _alt(pods)] if pods else [],
        # kubectl get pods [-A]: [NAMESPACE] NAME READY STATUS RESTARTS [(ago)] AGE
        "_struct_pl_pod": [r"^[ \t]{0,8}(?:[a-z0-9][\w.-]{0,62}[ \t]{1,20})?(?P<pod>(?-i:%s)(?:-[a-z0-9]{1,20}){0,4})"
                           r"[ \t]{1,20}(?P<ready>\d{1,3})/(?P<want>\d{1,3})[ \t]{1,20}(?P<st>[\w:/-]{2,60})[ \t]{1,20}"
                           r"(?P<rs>\d{1,6})(?:[ \t]{1,4}\([^)\n]{1,40}\))?[ \t]{1,20}(?P<age>\d{1,6}[dhms](?:\d{1,4}"
                           r"[hms])?)" % _alt(pods)] if pods else [],
    }


PATTERNS = {k: v for k, v in _patterns().items() if v}


def _age_s(text):
    return sum(int(n) * _SECONDS[u] for n, u in _AGE.findall(text or ""))


def _pod_failed(g):
    st = g.get("st") or ""
    base = st.split(":", 1)[1] if st.startswith("Init:") else st
    if base in _BAD_STATUS:
        return "its status is %s" % st
    if _age_s(g.get("age")) < STUCK_S:
        return None
    m = re.match(r"^Init:(\d{1,3})/(\d{1,3})$", st)
    if m and int(m.group(1)) < int(m.group(2)):
        return "it has stayed in %s (an init container has not finished) for %s" % (st, g.get("age"))
    if st in _SLOW_STATUS:
        return "it has stayed %s for %s" % (st, g.get("age"))
    if st == "Running" and g.get("ready") == "0" and int(g.get("rs") or 0) >= 3:
        return "it runs but is not ready (0/%s) after %s restarts" % (g.get("want"), g.get("rs"))
    return None


# a message that starts with a level below error is the program's own word that it goes on (srun's "Warning: can't
# run 1 processes on 2 nodes, setting nnodes to 1")
_LOW_LEVEL = re.compile(r"^[\[(]?(?:warning|warn|info|note|notice|debug|verbose)\b", re.IGNORECASE)


# a failure word after 'to' or a modal is what may happen, not what did: pdsh's "interrupt (one more within 1 sec to
# abort)" (src/pdsh/dsh.c), "press Ctrl-C again to abort", "this will fail if ..." (fp24)
_MAY = re.compile(r"\b(?:to|will|would|may|might|could|can|shall|should)[ \t]{1,4}$", re.IGNORECASE)


def _failure(msg):
    msg = (msg or "").strip()
    if _NOT_FAIL.search(msg) or _LOW_LEVEL.match(msg):
        return False
    return any(not _MAY.search(msg[max(0, m.start() - 12):m.start()]) for m in _FAIL.finditer(msg))


def candidates(scan):
    """[(line, kind, program, hit, why)] of the failure lines of known programs, in the text's order."""
    t = _table()
    progs, pods, drivers = t.get("programs") or {}, t.get("pods") or {}, t.get("drivers") or {}
    out = []
    for h in scan.matches.get("_struct_pl_prog", [])[:MAX_HITS]:
        g = h.groups or {}
        if g.get("prog") in progs and _failure(g.get("msg")):
            out.append((h.line, "prog", g["prog"], h, "%s's own failure line" % g["prog"]))
    for h in scan.matches.get("_struct_pl_dev", [])[:MAX_HITS]:
        g = h.groups or {}
        if g.get("drv") in drivers and _failure(g.get("msg")):
            out.append((h.line, "driver", g["drv"], h, "the kernel's %s driver on %s" % (g["drv"], g.get("bus"))))
    for h in scan.matches.get("_struct_pl_pod", [])[:MAX_HITS]:
        g = h.groups or {}
        pod = g.get("pod") or ""
        key = next((k for k in sorted(pods, key=len, reverse=True) if pod == k or pod.startswith(k + "-")), None)
        why = _pod_failed(g) if key else None
        if why:
            out.append((h.line, "pod", key, h, "the pod %s: %s" % (pod, why)))
    cmds = [(h.line, "prog", (h.groups or {}).get("prog")) for h in scan.matches.get("_struct_pl_cmd", [])[:MAX_HITS]
            if (h.groups or {}).get("prog") in progs and (h.groups or {}).get("prog") not in LAUNCHERS]
    for h in scan.matches.get("_struct_pl_klogs", [])[:MAX_HITS]:
        pod = (h.groups or {}).get("pod") or ""
        key = next((k for k in sorted(pods, key=len, reverse=True) if pod == k or pod.startswith(k + "-")), None)
        if key:
            cmds.append((h.line, "pod", key))
    cmds.sort()
    # a level-form line, or any line the scan counts as an error, after a known program's command (or `kubectl logs`
    # of a known pod) is that program's
    lines = [(h, "a %s line" % (h.groups or {}).get("lvl")) for h in scan.matches.get("_struct_pl_level", [])[:MAX_HITS]]
    lines += [(h, "an error line") for h in scan.errors[:MAX_HITS]]
    for h, form in lines:
        got = next(((kind, p) for n, kind, p in reversed(cmds) if n < h.line <= n + CMD_WINDOW), None)
        if got is None and (h.groups or {}).get("lvl") == "-E-" and MFT in progs:
            # '-E- ' is the error prefix of NVIDIA's networking tools (MFT's flint / mlxconfig / mlxfwmanager,
            # mstflint, ibdiagnet: '-E- ', '-W- ', '-I- '): the line names them without their command
            out.append((h.line, "prog", MFT, h, "a '-E-' line (the error prefix of NVIDIA's networking tools: MFT, "
                                                "mstflint, ibdiagnet)"))
            continue
        if got:
            kind, name = got
            out.append((h.line, kind, name, h, "%s after %s" % (
                form, "the %s command" % name if kind == "prog" else "`kubectl logs` of the %s pod" % name)))
    return sorted(out, key=lambda x: x[0])


def _read_lines(scan, kb):
    """The lines a knowledge entry's message matched: a table reads them, and its reading stands where the answer
    kept no finding for them (fp24: the kernel's 'nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected' is
    gpu.pcie_corrected's, a note on a healthy dmesg, not the nvidia driver's failure line)."""
    out = set()
    for key, lines in (getattr(scan, "match_lines", None) or {}).items():
        if not key.startswith("_") and key in kb.by_id:
            out.update(lines)
    return out


def _continues(scan, h, read):
    """A device message that goes on a report whose head a table read: the same device's lines just above, up to a
    line a knowledge entry matched (Linux's aer_print_error prints 'PCIe Bus Error: severity=...', then 'device
    [vvvv:dddd] error status/mask=...' and the bit's name, each with the device's prefix)."""
    bus = (h.groups or {}).get("bus")
    mine = {x.line: x for x in scan.matches.get("_struct_pl_dev", []) if (x.groups or {}).get("bus") == bus}
    n = h.line - 1
    while n > 0 and h.line - n <= 8:
        if n not in mine:
            return False
        if n in read:
            return True
        n -= 1
    return False


def finding(scan, kb, structural_finding):
    from gpudoctor.explain.provenance import _ran_past

    t = _table()
    read = _read_lines(scan, kb)
    for line, kind, name, h, why in candidates(scan):
        row = (t.get({"prog": "programs", "driver": "drivers", "pod": "pods"}[kind]) or {}).get(name)
        if not row or row["family"] not in kb.by_id or _ran_past(scan, line) or line in read:
            continue
        if kind == "driver" and _continues(scan, h, read):
            continue
        f = structural_finding(kb.by_id[row["family"]], h, why, scan)
        what = {"prog": "the program %s" % name, "driver": "the kernel driver %s" % name,
                "pod": "the pod %s (its name starts with %s's)" % ((h.groups or {}).get("pod") or name + "-...", name)}[kind]
        f["notes"].append("Printed by %s, which no message table of explain reads: the family is what the program "
                          "is (%s), not what this message means (%s). Its own diagnostics tell why: %s." % (
                              what, row["source"], _clip(strip_prefix(h.text.strip())[0], 160), row["next"]))
        fx = f["causes"][0]["fix"] if f.get("causes") else None
        step = "%s's own diagnostics: %s" % (name, row["next"])
        if fx is not None and step not in fx:
            fx.insert(0, step)
        return f
    return None


def judge(result, scan, kb):
    """A text no reader answered ('no_error' or 'unknown_error', no finding) whose failure line a known program
    printed gets that program's family. True when it did."""
    if result.get("verdict") not in ("no_error", "unknown_error") or result.get("findings") or not PATTERNS:
        return False
    from gpudoctor.explain.analyze import _structural_finding

    f = finding(scan, kb, _structural_finding)
    if f is None:
        return False
    result.update(verdict="root_cause", matched=True, root=f["id"], findings=[f], errors=[], triage=[])
    return True
