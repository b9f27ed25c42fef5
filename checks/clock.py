"""Each node's clock against the gathering machine's.

The collector reads the node's clock once its facts are complete (collector.clock_s); the gatherer notes when it
sent the collector and when the facts came back, on its own clock (collector.gathered: sent_s, received_s;
transport.stamp). A node whose clock agrees read a time inside that window; the distance from the window is the
least the node's clock can be off, so a verdict never blames the window's width on the node.

Why seconds matter: MUNGE refuses a credential more than its TTL (300 s by default) off the decoder's clock
(https://github.com/dun/munge/wiki/Man-7-munge; "Expired" / "Rewound credential"), and Slurm then marks the node
down with its jobs; slurmd refuses a step whose credential is older than AuthInfo's cred_expire (120 s by default,
https://slurm.schedmd.com/slurm.conf.html#OPT_cred_expire: on the 4-node bed a node 120 s ahead refused some steps,
150 s ahead all of them: slurm28); Kerberos refuses tickets past its clockskew (300 s by default,
https://web.mit.edu/kerberos/krb5-latest/doc/admin/conf_files/krb5_conf.html). The same thresholds as slurm-health's
offset from slurmctld (gpudoctor/slurm.py): fail from CLOCK_DRAIN_S (100 s, below Slurm's 120 s), warn from
CLOCK_WARN_S (10 s: a time service keeps nodes within milliseconds, so seconds mean none is working).

One node is judged too (its clock against the gatherer's), and a node gathered by the local transport is this
machine itself: na.
"""

import math
import time

from gpudoctor.registry import NA, Finding, Pass, Skip, check

# slurm-health's thresholds for the offset from slurmctld (gpudoctor/slurm.py; tests/test_slurm29.py holds them
# equal), written here: importing gpudoctor.slurm costs the prolog tier dataclasses and typing
CLOCK_WARN_S = 10
CLOCK_DRAIN_S = 100
CRED_EXPIRE_S = 120  # Slurm's AuthInfo cred_expire default
MUNGE_TTL_S = 300  # munged --ttl default

FIX = ("on the node: chronyc tracking (or timedatectl status); start a time service (systemctl enable --now chrony) "
       "or step the clock once (chronyc makestep); date -u there and here. If every node reads the same offset, "
       "this machine's clock is the one off")


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 else None


def _utc(t, date=False):
    tenths = int(round(t * 10))  # rounded once: 59.96 reads 00.0 of the next second, never 59.0
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%S" if date else "%H:%M:%S", time.gmtime(tenths // 10)) + ".%dZ" % (
            tenths % 10)
    except (ValueError, OverflowError, OSError):
        return "%r" % t


def offset(clock, sent, received):
    """The least the node's clock can be off this machine's (positive: ahead; 0 inside the window)."""
    if clock < sent:
        return clock - sent
    if clock > received:
        return clock - received
    return 0.0


@check("clock.offset", title="each node's clock agrees with the gathering machine's (within %d s)" % CLOCK_WARN_S)
def clock_offset(facts, config):
    meta = facts.get("collector")
    gathered = meta.get("gathered") if isinstance(meta, dict) else None
    if not isinstance(gathered, dict):
        yield NA("no gathering window in these facts (saved by an older gpudoctor, or not gathered through a "
                 "transport): nothing to compare the node's clock with")
        return
    if gathered.get("via") == "local":
        yield NA("this machine gathered its own facts (--local): its clock is the reference")
        return
    clock = _num(meta.get("clock_s"))
    if clock is None:
        yield Skip("the node's collector sent no clock reading (an older gpudoctor there?)")
        return
    sent, received = _num(gathered.get("sent_s")), _num(gathered.get("received_s"))
    if sent is None or received is None or received < sent:
        yield Skip("no window of this machine's clock was kept for this node (via %s)" % gathered.get("via"))
        return
    width = received - sent
    off = offset(clock, sent, received)
    where = "it read %s, %s the %.1f s window this machine sent the collector and got its facts in (%s to %s, " \
            "via %s)" % (_utc(clock, date=abs(clock - sent) > 43200), "before" if off < 0 else "after" if off > 0
                         else "inside", width, _utc(sent, date=True), _utc(received), gathered.get("via"))
    if abs(off) >= CLOCK_WARN_S:
        words = "the node's clock is at least %.1f s %s this machine's" % (
            abs(off), "ahead of" if off > 0 else "behind")
        bad = abs(off) >= CLOCK_DRAIN_S
        why = ("%sMUNGE refuses credentials more than %d s off (Expired/Rewound credential), Kerberos tickets past "
               "its 300 s clockskew" % ("slurmd there refuses job steps whose credential is older than %d s by its "
                                        "clock (cred_expire); " % CRED_EXPIRE_S if off > 0 else "", MUNGE_TTL_S))
        if not bad:
            why = "no time service keeps it in step; further off, %s" % why
        yield (Finding.error if bad else Finding.warning)(
            "%s: %s" % (words, why), observed="%s (%s)" % (words, where),
            expected="within %d s" % CLOCK_WARN_S, fix=FIX)
        return
    if width >= CLOCK_DRAIN_S:
        yield Skip("the %.0f s window this node answered in is too wide to judge its clock (%s)" % (width, where))
        return
    yield Pass(where if off == 0 else "at least %.1f s %s (under %d s): %s" % (
        abs(off), "ahead" if off > 0 else "behind", CLOCK_WARN_S, where))
