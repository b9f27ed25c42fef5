#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/xla_coordination.json: the messages of XLA's coordination service, the
service jax.distributed.initialize() starts on process 0 and every process's agent talks to (barriers, heartbeats,
task registration, the shutdown barrier, error polling), read from the jaxlib wheel's shared object that links it.

Read, never executed: the printable runs of jaxlib/libjax_common.so (knowgen.binary_strings, as GNU `strings -n 12`),
kept when they are a message of the coordination service or its agent (SELECT: the service, its barriers, heartbeats,
tasks, incarnations, the leader; at least four words). The sources of these strings are openxla/xla
xla/tsl/distributed_runtime/coordination/coordination_service.cc (CheckHeartbeatTimeout: 'Task <name> heartbeat
timeout. This indicates that the remote task has failed ...' and 'The following tasks are unhealthy (stopped sending
heartbeats)'; CheckBarrierTimeout: 'Barrier timed out. Id: %s. ...'; RegisterTaskAsync: '<task> unexpectedly tried to
connect with a different incarnation. It has likely restarted.'; CompleteShutdownAfterBarrier: 'Shutdown barrier in
coordination service has failed'; PassBarrier: 'Stopping coordination service as cluster registration failed ...'),
coordination_service_agent.cc (the agent: 'Polled an error from coordination service', 'Failed to send RPC to
coordination service. Either the leader task was preempted/died/restarted ...', 'Coordination service agent failed to
register with the leader (attempt #$0 ...)') and xla/pjrt/distributed/client.h (LOG(QFATAL) 'Terminating process
because the JAX distributed service detected fatal errors. ...'). A StrCat's pieces are separate strings in the
binary ('Task ' then ' heartbeat timeout. ...'): each piece of enough words is a site; absl::Substitute's $0..$9 are
values (%s).

Each becomes a bounded matcher assigned by RULES to a knowledge entry (knowledge/xla_coordination.toml):
- another task failed, died or was preempted, and this task heard of it through the service (heartbeats stopped, a
  task in error, the shutdown barrier failed, the service stopped, the F record that ends the process) ->
  xla.coord_peer_failed (family cascade: the first task that failed is the root; its own log holds the error);
- a task restarted (a new incarnation) -> xla.coord_task_restarted (cascade: the crash before the restart);
- a barrier or the cluster registration timed out: a task came late, hung, or never started -> xla.coord_barrier_late
  (family rendezvous.store_barrier);
- the agent could not reach the service (the coordinator address) -> xla.coord_connect (family rendezvous.connect);
- the processes disagree about the tasks (a task id outside the cluster, barrier arguments that differ) ->
  jax.distributed_init (knowledge/jax.toml).
Messages no rule assigns (the service's internal invariants, key-value store) are listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.11 jaxlib==0.10.2 -d /tmp/w
    unzip -o /tmp/w/jaxlib-0.10.2-*.whl 'jaxlib/libjax_common.so' -d /tmp/w/jaxlib
    python tools/gen_xla_coordination.py --so /tmp/w/jaxlib/jaxlib/libjax_common.so --version 'jaxlib 0.10.2' \\
        [--record tools/data/xla_coordination_slice.txt] [-o OUT]
    python tools/gen_xla_coordination.py --slice tools/data/xla_coordination_slice.txt -o OUT   (the test)

Sources: jaxlib (https://pypi.org/project/jaxlib/, Apache-2.0), built from openxla/xla
(https://github.com/openxla/xla/tree/main/xla/tsl/distributed_runtime/coordination, Apache-2.0). The committed table
read jaxlib 0.10.2 (the wheel the tests' runs used).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_xla_coordination.py"
SO = "jaxlib/libjax_common.so"
MIN_RUN = 12  # printable bytes of a run (strings -n)
LEAD = 40  # characters of a message's leading sentences that its matcher keeps (_leading)
# a message of the coordination service, its agent or the JAX client that links them
SELECT = re.compile(r"[Cc]oordination service|coordination +leader|JAX distributed service|heartbeat|[Bb]arrier (?:timed "
                    r"out|failed|has failed|in coordination)|[Ss]hutdown barrier|incarnation|cluster registration|"
                    r"(?:remote|straggling|timed out|stale|unhealthy|[Tt]he) tasks?\b|[Tt]ask (?:has|is|was)\b|"
                    r"already in error|(?:different processes|the callers) .{0,40}barrier")
# binary runs that are no message: mangled names, flags' help, protobuf field paths
NOT_MESSAGE = re.compile(r"^_Z|^[\w.]+$|^/xla\.|^tensorflow\.|^xla\.coordination\.|type\.googleapis|^StringRef llvm|"
                         r"^If true|^EXPERIMENTAL|Request: $|Response: $")

_PEER = (r"heartbeat timeout|stopped sending heartbeats|tasks have crashed|detected fatal errors|Polled an error from "
         r"coordination service|Shutdown barrier (?:in coordination service )?has failed|is already in error before "
         r"the barrier|task is set to ERROR|already in error|All tasks were set to error|Coordination service has "
         r"stopped|implies an earlier error|Failed to send RPC to coordination service|leader task was preempted|"
         r"one of the tasks is unhealthy|Barrier failed because")
_RESTART = (r"different incarnation|has likely restarted|Incarnation ID mismatch|newer incarnation|has restarted|"
            r"probably restarted|due to a restart in the task")
_LATE = r"Barrier timed out|cluster registration failed|too early or too slowly|reached the barrier"
_CONNECT = r"failed to register with the leader"
_USAGE = (r"not in the cluster|Conflicting tasks specified|service disagrees|non-participating task|Unexpected task "
          r"registered")
# (rule, knowledge entry, {field: regex}); the first that matches wins
RULES = [
    ("restarted", "xla.coord_task_restarted", {"text": _RESTART}),
    ("connect", "xla.coord_connect", {"text": _CONNECT}),
    ("late", "xla.coord_barrier_late", {"text": _LATE}),
    ("usage", "jax.distributed_init", {"text": _USAGE}),
    ("peer", "xla.coord_peer_failed", {"text": _PEER}),
]

_DOC = "https://docs.jax.dev/en/latest/multi_process.html"
# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"heartbeat timeout|stopped sending heartbeats|tasks have crashed",
     "XLA's coordination service (run by jax.distributed on process 0) stopped hearing the heartbeats of the task it "
     "names (every 10 s by default; the task is declared failed after the heartbeat timeout): that process died "
     "(an exception, the OOM killer, a signal), was preempted, or hung with its agent's thread stopped, and the "
     "service told every other task, which then stops too.",
     ["open the log of the task the message names (task N is the process with process_id N) and fix its first error; "
      "if it has none, look at the node's kernel log (OOM killer: dmesg -T | grep -i oom) and the scheduler's events "
      "(preemption, eviction) for that time; " + _DOC]),
    (r"detected fatal errors",
     "jaxlib's distributed client (xla/pjrt/distributed/client.h) ends this process with a fatal log record (F...) when "
     "the coordination service reports an error: most often another task died first, and this process is stopped "
     "because of it.",
     ["find the first task that failed (its log's first error, or the task the lines after this one name: 'Task N "
      "heartbeat timeout') and fix that error; run with python -u so that each process's own last output is not lost "
      "in its buffer; " + _DOC]),
    (r"Shutdown barrier|Polled an error from coordination service|All tasks were set to error|Coordination service "
     r"has stopped|implies an earlier error|already in error|task is set to ERROR|Barrier failed because|one of the "
     r"tasks is unhealthy",
     "the coordination service failed or stopped because of an error it already had: a task failed earlier (or, at "
     "the shutdown barrier, one task exited much earlier or later than the others); this line is the echo that "
     "reaches the other tasks.",
     ["find the first error across all tasks' logs (earliest time; the task the message names) and fix it; when "
      "every task ran to the end, make them end together (the same number of steps on every process, a barrier "
      "before exit)"]),
    (r"Failed to send RPC to coordination service|leader task was preempted",
     "this task's agent could no longer reach the coordination service on process 0 (the leader): process 0 died, "
     "was preempted or restarted, or the network between them failed.",
     ["read process 0's log (the coordinator runs in it) for its first error; if process 0 ran on, check the network "
      "path to its coordinator address and port"]),
    (_RESTART,
     "a task connected again with a new incarnation id: that process restarted (a scheduler or launcher restarted it "
     "after a crash or preemption) while the others kept the old job's state.",
     ["find why the task restarted (its log before the restart, the scheduler's events) and fix that; restart all "
      "processes together (a multi-process JAX job does not take one restarted process back by default)"]),
    (r"Barrier timed out|too early or too slowly",
     "not every task reached a barrier of the coordination service within its timeout: one task is much slower "
     "(compiling, loading data, a different number of steps), hung, or died before it; the message names the task "
     "that came first and some that timed out.",
     ["compare the tasks the message names as timed out with the first one: read their logs around that time (a "
      "crash, a hang, work only some processes do) and make every process reach the same barriers; raise the "
      "timeout only for work that is slow on purpose; " + _DOC]),
    (r"cluster registration failed",
     "not every process connected to the coordination service within the initialization timeout: some tasks crashed "
     "before connecting, were never started (num_processes larger than the processes launched), or started late.",
     ["start exactly num_processes processes with process_id 0..num_processes-1 and the same coordinator_address; "
      "check that each started (their logs); raise jax.distributed.initialize(initialization_timeout=...) for slow "
      "scheduling; " + _DOC]),
    (r"failed to register with the leader",
     "this process's agent could not register with the coordination service at the coordinator address: process 0 "
     "has not started the service (yet), the address or port is wrong, or the network or a firewall blocks it.",
     ["give every process the same coordinator_address, process 0's address reachable from the others (not "
      "localhost across nodes) and a free port; check the port is open: nc -zv <host> <port>; " + _DOC]),
    (r"not in the cluster|Conflicting tasks specified|service disagrees|non-participating task|Unexpected task "
     r"registered",
     "the processes disagree about the job: a process_id outside 0..num_processes-1, a num_processes that differs "
     "between processes, or barrier calls with different task lists.",
     ["give every process the same num_processes and its own process_id from 0 to num_processes-1 (the launcher's "
      "RANK / WORLD_SIZE), and call barriers with the same arguments everywhere"]),
]


def select(strings):
    """The runs of ``strings`` that are messages of the coordination service: SELECT, not NOT_MESSAGE, at least four
    words; each once, in the binary's order."""
    out, seen = [], set()
    for s in strings:
        s = " ".join(s.split())
        if s in seen or NOT_MESSAGE.search(s) or not SELECT.search(s) or len(s.split()) < 4:
            continue
        seen.add(s)
        out.append(s)
    return out


def _leading(fmt):
    """The message's leading sentences, up to the first end of a sentence past LEAD characters: its matcher. The
    service's messages state what happened first and then advise, and releases reword the advice ('Check the task
    logs for an earlier error to debug further.' became '... or scheduler events (e.g. preemption, eviction) to debug
    further.' in XLA's coordination_service.cc, jax-ml/jax#23599 quotes the older one)."""
    for m in re.finditer(r"[.:](?= )", fmt):
        if m.end() >= LEAD:
            return fmt[:m.end()]
    return fmt


def build(runs, version):
    sites, ids = [], set()
    for run in runs:
        fmt = re.sub(r"\$\d", "%s", run.replace("%", "%%") if "$" in run else run)
        site = wheelmsgs.site_for("xla.coord_", set(), "raise", SO, fmt, RULES, MSG_FIX, first=_leading(fmt))
        # named by the message's first words (a binary has no file:line to name it by)
        site["id"] = knowgen.unique_id("xla.coord_" + knowgen.slug(" ".join(re.findall(r"[A-Za-z]+", fmt)[:6])), ids)
        sites.append(site)
    return {"header": knowgen.header("jaxlib (https://pypi.org/project/jaxlib/) %s, built from openxla/xla "
                                     "xla/tsl/distributed_runtime/coordination and xla/pjrt/distributed" % SO, version,
                                     GENERATOR, "messages of XLA's coordination service, its agent and the JAX "
                                     "distributed client, read from the shared object's strings; families from the "
                                     "RULES table of the generator"),
            "sites": sites}


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="so", extra=[
        ("--version", {"help": "what the shared object is, e.g. 'jaxlib 0.10.2'"}),
        ("--record", {"help": "write the slice (the selected strings)"})])
    if a.so:
        if not a.version:
            a.error("give --version with --so")
        with open(a.so, "rb") as f:
            runs = select(knowgen.binary_strings(f.read(), MIN_RUN))
        version = "%s (%s)" % (a.version, SO)
        if a.record:
            with open(a.record, "w") as f:
                f.write("# Recorded by %s --record: the printable runs of %s that SELECT keeps, one a line, in the "
                        "binary's order.\n#! version %s\n=== %s\n" % (GENERATOR, SO, version, SO))
                f.write("".join(r + "\n" for r in runs))
    else:
        files, version = knowgen.read_slice(a.slice)
        runs = [ln for _p, text in files for ln in text.splitlines() if ln.strip()]
    doc = build(runs, version)
    if a.so:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="shared object")
    return knowgen.emit("xla_coordination", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
