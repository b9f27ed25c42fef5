"""The master port judged for what else holds or takes it: sshd's 22, a privileged port,
0 where every node must know the port, a port the kernel may hand to an outgoing
connection first. Pure: `plan` notes them with Linux's defaults, the launch.port check
with each node's own values (facts: host.uid, network.ip_local_port_range,
network.ip_unprivileged_port_start)."""

# Linux's defaults (Documentation/networking/ip-sysctl.rst: ip_local_port_range "32768
# 60999", ip_unprivileged_port_start 1024; https://docs.kernel.org/networking/ip-sysctl.html)
DEFAULT_EPHEMERAL = (32768, 60999)
DEFAULT_UNPRIVILEGED = 1024
SSH_PORT = 22  # OpenSSH sshd_config(5) Port default; pdsh/DeepSpeed/accelerate's ssh fan-out uses it
FREE_EXAMPLE = 29500  # torchrun's default --master-port: below every default ephemeral range


def _flag(plan):
    return {"accelerate": "main_process_port", "deepspeed": "--master_port", "torchrun": "--master-port",
            "torch.distributed.launch": "--master_port"}.get(plan.launcher, "MASTER_PORT")


def _multi(plan):
    """True when more than one node takes part (or could: an elastic or unknown count)."""
    if plan.nodes:
        return len([n for n in plan.nodes if n.procs != 0]) > 1
    return plan.nnodes_max is None or plan.nnodes_max > 1


def port_problems(plan, uid=None, unprivileged=None, ephemeral=None, where=""):
    """[(severity, message, fix)] for the plan's master port; `where` names the node when the
    values come from its facts (else Linux's defaults are used and said)."""
    out = []
    flag = _flag(plan)
    fix_port = "%s %d (or another free port below %d)" % (flag, FREE_EXAMPLE, (ephemeral or DEFAULT_EPHEMERAL)[0])
    if plan.port_asked == 0 and _multi(plan):
        # accelerate 1.15 commands/launch.py: port 0 is its standalone mode (one machine picks
        # a free port); torch's c10d store binds port 0 on the master only, so the other
        # nodes have no port to connect to and the rendezvous waits until its timeout
        out.append(("error", "master port 0 on a multi-node plan: the master picks a port at run time that the other "
                             "nodes cannot know, so they wait at the rendezvous until it times out",
                    "set a fixed port on every node: " + fix_port))
    port = plan.master_port
    if port is None:
        return out
    if port == SSH_PORT:
        out.append(("error", "master port 22 is sshd's port: the master cannot bind it while sshd listens there "
                             "(and the launcher's own ssh/pdsh fan-out needs it)", "use " + fix_port))
    else:
        floor = unprivileged if unprivileged is not None else DEFAULT_UNPRIVILEGED
        if port < floor and uid != 0:
            out.append(("error" if uid is not None else "warning",
                        "master port %d is privileged (below %d%s): binding it needs root or CAP_NET_BIND_SERVICE%s"
                        % (port, floor, "" if unprivileged is not None else ", Linux's default",
                           ", and the job runs as uid %s%s" % (uid, where) if uid is not None else ""),
                        "use " + fix_port))
    lo, hi = ephemeral or DEFAULT_EPHEMERAL
    if lo <= port <= hi:
        out.append(("warning", "master port %d is in the kernel's ephemeral range %d-%d (%s): an outgoing connection "
                               "can take it before the master binds it (EADDRINUSE)"
                    % (port, lo, hi, "ip_local_port_range" + where if ephemeral else
                       "Linux's default ip_local_port_range"),
                    "use %s, or reserve it on the master: sysctl -w net.ipv4.ip_local_reserved_ports=%d"
                    % (fix_port, port)))
    return out
