"""`gpudoctor slurm-health`: check this node, then drain it or resume it through scontrol.

For Slurm's Prolog and HealthCheckProgram (contrib/slurm/, docs/slurm.md). Slurm does
not drain a node whose HealthCheckProgram fails (it only logs `health_check failed`),
so the program drains it itself; and it must resume only what it drained.

Ownership (the peers' worst bugs: mej/nhc #134 resumed a node an admin had drained,
#147 never drained, #82 did not know the RESV state): gpudoctor's drains carry a
reason that starts with ``gpudoctor:``. A passing node is resumed only when its
current reason starts with that prefix; a drain by anyone else, or a DOWN node with
someone else's reason, is never touched, even when gpudoctor finds the node failing
(taking the reason over would let a later pass undo the admin's drain). The decision
is a pure function of the node's state (`decide`), tested over the states Slurm shows.

Exit codes: 0 healthy (nothing to do, or gpudoctor's own drain resumed); 1 unhealthy
(drained now, already drained, left under someone else's drain, or scontrol failed:
then a prolog's failure lets Slurm drain it); 2 usage; 3 healthy, but scontrol could
not read or change the node's state (the reason is on stderr);
4 gpudoctor itself failed (a traceback on stderr): nothing was changed.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Optional, Set

REASON_PREFIX = "gpudoctor:"
EXIT_SCONTROL = 3
EXIT_INTERNAL = 4
REASON_MAX = 200  # keep `sinfo -R` readable; the full report is in the prolog/health-check output

# `scontrol show node -o` ends with "Reason=<text> [<user>@<time>]".
_REASON = re.compile(r"(?:^|\s)Reason=(?P<text>.*?)(?:\s\[(?P<user>[^@\]\s]+)@(?P<time>[^\]]+)\])?\s*$")
_STATE = re.compile(r"(?:^|\s)State=(?P<state>\S+)")
_DRAIN_FLAGS = {"DRAIN", "DRAINING", "DRAINED"}


class ScontrolError(Exception):
    pass


@dataclass
class SlurmNode:
    name: str
    state: str  # as scontrol prints it: IDLE+DRAIN, MIXED+DRAIN, DOWN+DRAIN+NOT_RESPONDING, IDLE+RESERVED ...
    reason: Optional[str] = None
    reason_user: Optional[str] = None
    base: str = ""
    flags: Set[str] = field(default_factory=set)

    @property
    def drained(self):  # drained (idle) or draining (jobs still running): both have the DRAIN flag
        return bool(self.flags & _DRAIN_FLAGS) or self.base in _DRAIN_FLAGS

    @property
    def down(self):
        return self.base == "DOWN" or "DOWN" in self.flags

    @property
    def ours(self):
        return bool(self.reason) and self.reason.startswith(REASON_PREFIX)


def parse_show_node(text, name=""):
    """One node from `scontrol show node -o NAME` (the one-line form)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    m = _STATE.search(line)
    if not m:
        raise ScontrolError("no State= in scontrol's output: %r" % line[:200])
    state = m.group("state")
    parts = state.split("+")
    nm = re.search(r"(?:^|\s)NodeName=(\S+)", line)
    node = SlurmNode(name=nm.group(1) if nm else name, state=state, base=parts[0].rstrip("*"),
                     flags=set(p.rstrip("*") for p in parts[1:]))
    r = _REASON.search(line)
    if r and r.group("text").strip() and r.group("text").strip() != "(null)":
        node.reason = r.group("text").strip()
        node.reason_user = r.group("user")
    return node


@dataclass
class Action:
    kind: str  # drain | resume | none
    why: str


def decide(node: SlurmNode, healthy: bool, reason: str) -> Action:
    """What to do with a node, from its Slurm state and gpudoctor's verdict."""
    if healthy:
        if node.drained and node.ours:
            return Action("resume", "checks pass and the drain is gpudoctor's own (%s)" % node.reason)
        if node.drained:
            return Action("none", "checks pass; left drained: the drain is not gpudoctor's (reason: %s)"
                          % (node.reason or "none"))
        return Action("none", "checks pass; node is %s" % node.state)
    if node.drained and node.ours:
        if node.reason == reason:
            return Action("none", "already drained by gpudoctor for this reason")
        return Action("drain", "already drained by gpudoctor; updating the reason")
    if node.drained:
        return Action("none", "checks fail; left as is: already drained by someone else (reason: %s)"
                      % (node.reason or "none"))
    if node.down and node.reason and not node.ours:
        return Action("none", "checks fail; left as is: node is %s with someone else's reason (%s)"
                      % (node.state, node.reason))
    return Action("drain", "checks fail; node is %s" % node.state)


def short_reason(report):
    """`gpudoctor: <check ids>: <first message>`, one line, at most REASON_MAX characters."""
    bad = [n for n in report.nodes if not n.reachable]
    if bad:
        text = "%s: %s" % (bad[0].error_kind or "error", bad[0].error or "")
    else:
        sevs = ("error", "warning") if report.strict else ("error",)
        failing = [f for f in report.findings if f.severity in sevs]
        ids = []
        for f in failing:
            if f.check not in ids:
                ids.append(f.check)
        text = "%s: %s" % (",".join(ids), failing[0].message) if failing else "checks failed"
    text = re.sub(r"\s+", " ", "%s %s" % (REASON_PREFIX, text)).strip()
    # slurmctld keeps the reason and `sinfo -R` / `scontrol show node` print it as it is on an
    # admin's terminal: an escape sequence or a bidi override that a node value carried into a
    # message is written escaped (\x1b, \u202e), as gpudoctor's own reports write it
    if not text.isprintable():
        text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 3].rstrip() + "..."


def short_reason_with(reason, more):
    """A drain reason with one more finding after the checks' (REASON_MAX kept)."""
    text = "%s; %s" % (reason, more)
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 3].rstrip() + "..."


# One Slurm node name: what `scontrol update nodename=` acts on must be this node alone. scontrol
# reads a list or a range there ('sn1,sn3', 'sn[3-4]'), and a leading '-' is one of its options
# (`scontrol show node -o -a`). A machine whose hostname was 'sn1,sn3' (the kernel takes any
# bytes: /proc/sys/kernel/hostname) drained sn1 and sn3 with `slurm-health` run outside slurmd,
# and 'sn[3-4]' drained sn3 and sn4 (a real 4-node Slurm 22.05, slurm22). The host-name rule of
# inventory.py without user@ or addresses: Slurm's NodeName is a name.
_NODE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,252}\Z")


def node_name(explicit=None):
    """--node, else $SLURMD_NODENAME (set for Prolog and HealthCheckProgram), else the short hostname;
    InputError (exit 2: the hooks let the job run and log it) when that is not one node name."""
    if explicit:
        name, where = explicit, "--node"
    elif os.environ.get("SLURMD_NODENAME"):
        name, where = os.environ["SLURMD_NODENAME"], "$SLURMD_NODENAME"
    else:
        name, where = socket.gethostname().split(".")[0], "this machine's hostname"
    if not _NODE_NAME.match(name):
        from gpudoctor.errors import InputError, host_excerpt

        raise InputError("%s: %s is not one Slurm node name (letters, digits, '-', '.', '_', never starting with "
                         "'-'; no list or range: slurm-health drains or resumes this node alone)%s" % (
                             where, host_excerpt(name), "" if explicit else "; pass --node NAME"))
    return name


def scontrol(args, timeout=15):
    # Prolog and HealthCheckProgram run with no PATH at all: fall back to the usual places.
    exe = (os.environ.get("GPUDOCTOR_SCONTROL") or shutil.which("scontrol")
           or next((p for p in ("/usr/bin/scontrol", "/usr/local/bin/scontrol", "/opt/slurm/bin/scontrol")
                    if os.access(p, os.X_OK)), None))
    if not exe:
        raise ScontrolError("scontrol not found (set GPUDOCTOR_SCONTROL=/path/to/scontrol)")
    try:
        p = subprocess.run([exe] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ScontrolError("`scontrol %s` did not answer within %ds" % (" ".join(args), timeout))
    except OSError as exc:
        raise ScontrolError("cannot run %s: %s" % (exe, exc))
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        raise ScontrolError("`scontrol %s` failed (rc %d): %s" % (" ".join(args), p.returncode, _said(out)))
    return out


def _said(out, limit=300):
    """scontrol's output as one line for the hook's log (its lines joined by ' | '), its end kept where it is long:
    with no slurm.conf it prints four lines, the cause ('fatal: Could not establish a configuration source') last
    (userwalk22: the hook's message ran over four lines of the log, and [:300] could cut that last one)."""
    text = " | ".join(line.strip() for line in out.splitlines() if line.strip())
    return text if len(text) <= limit else "..." + text[-limit:]


def partition_rows(text):
    """[{KEY: value}] of `scontrol --all show partition -o` output: one partition a line of KEY=VALUE words
    (scontrol(1) -o, --oneliner), the lines without a PartitionName left out; bounded (4 MiB, 10,000 lines)."""
    rows = []
    for line in text[:1 << 22].splitlines()[:10000]:
        f = dict(re.findall(r"(?:^| )([A-Za-z_]+)=(\S*)", line))
        if f.get("PartitionName"):
            rows.append(f)
    return rows


def wanted_partitions(rows, environ):
    """The partitions a job started without -p goes to: those $SLURM_PARTITION names (srun(1) reads it as -p,
    INPUT ENVIRONMENT VARIABLES), else the default one (Default=YES); [] where neither is."""
    wanted = [w for w in environ.get("SLURM_PARTITION", "").split(",") if w][:100]
    if wanted:
        return wanted
    return [r["PartitionName"] for r in rows if r.get("Default") == "YES"][:1]


# What scontrol prints when slurmctld read the request and closed the connection without an answer: what a node
# meets when the controller refuses its MUNGE credential (slurmctld's log: "Munge decode failed: Invalid
# credential", "Expired credential", "Rewound credential" ... "Protocol authentication error"). Seen on a real
# 4-node Slurm 22.05 with auth/munge (slurm28): `scontrol ping` on that node even says "Slurmctld(primary) at ... is
# DOWN" while the controller serves every other node.
_REFUSED = ("Zero Bytes were transmitted or received", "Protocol authentication error",
            "Invalid authentication credential")
MUNGE_TTL_S = 300  # munge(1) --ttl default: a clock further off than this gets its credentials refused


def _munge_exe(name):
    return shutil.which(name) or next((p for p in ("/usr/bin/" + name, "/usr/local/bin/" + name)
                                       if os.access(p, os.X_OK)), None)


def munge_round_trip(timeout=5):
    """-> (ok, words): this node's own MUNGE credential decoded by its own munged (`munge -n | unmunge`),
    or (None, why) where munge is not installed. The credential is never printed: only unmunge's STATUS."""
    enc, dec = _munge_exe("munge"), _munge_exe("unmunge")
    if not enc or not dec:
        return None, "munge is not installed here"
    try:
        p = subprocess.run([enc, "-n"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        if p.returncode != 0:
            return False, "munge -n failed: %s" % _said(p.stderr.decode("utf-8", "replace"), 160)
        q = subprocess.run([dec], input=p.stdout[:65536], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "munge/unmunge did not answer within %ds (munged hung?)" % timeout
    except OSError as exc:
        return False, "cannot run munge: %s" % exc
    status = next((line.split(":", 1)[1].strip() for line in q.stdout.decode("utf-8", "replace").splitlines()
                   if line.startswith("STATUS:")), None)
    if q.returncode != 0 or not status or not status.startswith("Success"):
        return False, "unmunge: %s" % _said(status or q.stderr.decode("utf-8", "replace"), 160)
    return True, "munge -n | unmunge: %s" % status


def _key_mode(path="/etc/munge/munge.key"):
    try:
        st = os.stat(path)
    except OSError as exc:
        return "%s: %s" % (path, exc.strerror or exc)
    try:
        import pwd

        owner = pwd.getpwuid(st.st_uid).pw_name
    except (KeyError, ImportError):
        owner = str(st.st_uid)
    return "%s mode %04o, owner %s" % (path, st.st_mode & 0o7777, owner)


def controller_refused(exc, round_trip=munge_round_trip, now=None):
    """Lines naming why scontrol on this node got no answer from slurmctld when that looks like a refused
    credential (_REFUSED), or [] for any other scontrol failure. The local round trip tells the two apart:
    munged broken here, or this node's credential refused by the controller (another munge.key, or a clock off by
    more than the credential's lifetime: https://github.com/dun/munge/wiki/Man-1-munge, munge's Installation Guide
    'the same key on every host ... clocks synchronized': https://github.com/dun/munge/wiki/Installation-Guide)."""
    text = str(exc)
    if not any(w in text for w in _REFUSED):
        return []
    ok, words = round_trip()
    if ok is None:
        return []
    import time

    clock = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now if now is not None else time.time()))
    if not ok:
        return ["slurmctld did not answer this node, and this node's own MUNGE round trip fails (%s; %s): "
                "Slurm's messages from here carry no valid credential" % (words, _key_mode()),
                "fix: systemctl restart munge (munged -F shows why it stops); /etc/munge/munge.key must be the "
                "controller's, owned by munge, mode 0400; then systemctl restart slurmd"]
    return ["slurmctld read this node's request and closed the connection without an answer, while this node's "
            "MUNGE works (%s): the controller refuses this node's credential. Either this node's munge.key is "
            "not the controller's (slurmctld's log: 'Munge decode failed: Invalid credential') or its clock is "
            "more than %d s off the controller's ('Expired credential' / 'Rewound credential'); this node's "
            "clock says %s" % (words, MUNGE_TTL_S, clock),
            "fix: the same /etc/munge/munge.key on every node (compare: sha256sum /etc/munge/munge.key here and "
            "on the controller; copy the controller's, owner munge, mode 0400, systemctl restart munge) and the "
            "clocks in sync (chronyc tracking or timedatectl; date -u here and on the controller); then "
            "systemctl restart slurmd"]


# `scontrol show config`'s first line: slurmctld fills last_update with its own time(NULL) when it answers
# (src/slurmctld/proc_req.c _fill_ctld_conf: conf_ptr->last_update = time(NULL)) and scontrol prints it in this
# machine's local time ("Configuration data as of 2026-11-28T14:11:57", slurm_make_time_str): the controller's clock
# as one RPC reads it, to the second. Seen on the real 4-node Slurm (slurm28): a node whose clock was 120 s ahead
# read "14:11:57" with its own clock at 14:13:57.
_CONF_AS_OF = re.compile(r"^Configuration data as of (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\s*$", re.M)
CLOCK_WARN_S = 10  # chrony/ntpd keep a node within milliseconds; seconds off means no time service is working
# below Slurm's job credential lifetime (CRED_EXPIRE_S, 120 s: past it slurmd refuses steps) and MUNGE's (300 s:
# past it the node goes down with its jobs)
CLOCK_DRAIN_S = 100


def controller_clock_offset(run=None, clock=None):
    """Seconds this node's clock is ahead of slurmctld's (negative: behind), or None where scontrol does not tell
    (it failed, or printed no time). Bounded by scontrol's own 15 s; +-1 s (the printed time has whole seconds)."""
    import time

    clock = clock or time.time
    before = clock()
    try:
        out = (run or scontrol)(["show", "config"])
    except ScontrolError:
        return None
    after = clock()
    m = _CONF_AS_OF.search(out[:4096])
    if not m:
        return None
    try:
        fields = time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")  # local time, as scontrol printed it
    except (ValueError, OverflowError):
        return None
    mid = (before + after) / 2.0
    # The hour a daylight-saving clock repeats (01:00-02:00 on the day US time falls back, 02:00-03:00 in the EU)
    # prints the same local time twice, an hour apart; mktime(tm_isdst=-1) picks one of them, and a node whose clock
    # was right read 3600 s off and was drained (red team 2026-11-28h, docs/security.md 93.). Each reading of the
    # printed time that prints back as itself is the controller's time; the one nearest this node's clock is taken
    # (a reading as the other season's time that does not print back is no reading: a clock an hour off stays so).
    times = []
    for dst in (-1, 0, 1):
        try:
            t = time.mktime(tuple(fields[:8]) + (dst,))
            if time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t)) == m.group(1):
                times.append(t)
        except (ValueError, OverflowError):
            continue
    if not times:
        try:
            times = [time.mktime(fields)]  # a time the local clock skips (the hour sprung forward): as before
        except (ValueError, OverflowError):
            return None
    ctld = min(times, key=lambda t: abs(mid - (t + 0.5)))
    return int(round(mid - (ctld + 0.5)))


def clock_verdict(offset):
    """(severity, words) for a measured offset: None where it is within CLOCK_WARN_S."""
    if offset is None or abs(offset) < CLOCK_WARN_S:
        return None
    words = "this node's clock is %d s %s slurmctld's" % (abs(offset), "ahead of" if offset > 0 else "behind")
    return ("error" if abs(offset) >= CLOCK_DRAIN_S else "warning", words)


CLOCK_FIX = ("chronyc tracking (or timedatectl) on the node; start the time service (systemctl enable --now chrony) "
             "or chronyc makestep; MUNGE refuses credentials from a clock more than %d s off (Expired/Rewound "
             "credential), and Slurm then marks the node down with its jobs" % MUNGE_TTL_S)


# slurmd's refusal of a step whose credential is older than AuthInfo's cred_expire (120 s by default: slurm.conf(5),
# AuthInfo): a node whose clock is that far ahead of slurmctld's refuses steps, some of them (slurm28: a node 120 s
# ahead ran a probe's first 14 steps and refused the 15th, "Task launch for StepId=2.14 failed on node sn4: Job
# credential expired").
CRED_EXPIRE_S = 120


def credential_hint(text):
    """Words to add after srun's error where slurmd refused the step's credential as expired; "" otherwise."""
    if "Job credential expired" not in (text or ""):
        return ""
    return (" (slurmd there found the step's credential expired: that node's clock is ahead of slurmctld's by about "
            "%d s or more (AuthInfo cred_expire), or the launch took that long: date -u there and on the "
            "controller, chronyc tracking; gpudoctor slurm-health --dry-run on the node measures the offset)"
            % CRED_EXPIRE_S)


def read_node(name):
    return parse_show_node(scontrol(["show", "node", "-o", name]), name)


def apply(action, name, reason):
    if action.kind == "drain":
        scontrol(["update", "nodename=%s" % name, "state=drain", "reason=%s" % reason])
    elif action.kind == "resume":
        scontrol(["update", "nodename=%s" % name, "state=resume"])
