"""torchrun, `python -m torch.distributed.run` and `python -m torch.distributed.launch`, read
as torch reads them: torch/distributed/run.py (get_args_parser, run, config_from_args,
parse_min_max_nnodes, get_rdzv_endpoint), torch/distributed/launch.py (--use-env) and
torch/distributed/elastic/rendezvous/ (utils.parse_rendezvous_endpoint; c10d's default
port 29400, etcd's 2379; static_tcp_rendezvous refuses an endpoint without a port).
The flags are flags/torchrun.json; every flag also reads PET_<NAME> from the environment.
MASTER_ADDR / MASTER_PORT in the launching shell are NOT read: torchrun sets them for its
workers from --master-addr (default 127.0.0.1) and --master-port (default 29500)."""

import re

from gpudoctor.launch.common import count, parse, refuse

DEFAULT_PORTS = {"c10d": 29400, "etcd": 2379, "etcd-v2": 2379, "static": -1}
# torch/distributed/launch.py parse_args adds this one flag to run.py's parser
LAUNCH_EXTRA = [{"flags": ["--use-env", "--use_env"], "dest": "use_env", "nargs": 0, "action": "store_true",
                 "type": None, "default": False, "choices": None}]


def parse_endpoint(endpoint, default_port, launcher):
    """torch's parse_rendezvous_endpoint: [v6]:port, host:port, host (default port)."""
    endpoint = (endpoint or "").strip()
    if not endpoint:
        return "localhost", default_port
    if endpoint[0] == "[" and endpoint[-1] == "]":
        host, rest = endpoint, []
    else:
        host, *rest = endpoint.rsplit(":", 1)
    if len(host) > 1 and host[0] == "[" and host[-1] == "]":
        host = host[1:-1]
    if rest:
        p = rest[0]
        if not re.match(r"^[0-9]{1,6}$", p) or int(p) >= 1 << 16:
            refuse(launcher, "the port number of the rendezvous endpoint %r must be an integer between 0 and 65536"
                   % endpoint[:80])
        port = int(p)
    else:
        port = default_port
    if not re.match(r"^[\w\.:-]+$", host):
        refuse(launcher, "the hostname of the rendezvous endpoint %r must be a dot-separated list of labels, an "
                         "IPv4 address, or an IPv6 address" % endpoint[:80])
    return host, port


def read(plan, prog, argv, environ):
    launcher = "torchrun" if prog != "torch.distributed.launch" else prog
    plan.launcher = launcher
    extra = LAUNCH_EXTRA if prog == "torch.distributed.launch" else ()
    a = parse("torchrun", launcher, argv, environ, extra)
    where = launcher
    # parse_min_max_nnodes: N or MIN:MAX
    parts = str(a.nnodes).split(":")
    if len(parts) > 2:
        refuse(launcher, 'nnodes=%s is not in "MIN:MAX" format' % parts[0][:20])
    lo = count(parts[0], "--nnodes", where)
    hi = count(parts[-1], "--nnodes", where)
    if not 0 < lo <= hi:
        refuse(launcher, "min_nodes must be > 0 and <= max_nodes, got min_nodes=%d, max_nodes=%d" % (lo, hi))
    plan.nnodes_min, plan.nnodes_max = lo, hi
    npn = str(a.nproc_per_node)
    if re.match(r"^-?[0-9]+$", npn.strip()):
        plan.nproc_per_node = count(npn, "--nproc-per-node", where)
    elif npn in ("gpu", "auto", "cpu", "xpu"):
        plan.nproc_per_node = None  # the device count of each node, read there
        plan.note("--nproc-per-node %s: torchrun counts the devices on each node" % npn)
    else:
        refuse(launcher, "Unsupported nproc_per_node value: %s" % npn[:20])
    if plan.nproc_per_node is not None:
        plan.world_min, plan.world_max = lo * plan.nproc_per_node, hi * plan.nproc_per_node
    if a.max_restarts < 0:
        refuse(launcher, "max_restarts must be >= 0")
    # config_from_args: set(map(int, filter.split(","))): int() takes blanks around a number ('0, 1'), a sign
    # and '_' between digits
    if a.local_ranks_filter and not all(re.match(r"^\s*[-+]?[0-9](?:_?[0-9])*\s*$", r)
                                        for r in a.local_ranks_filter[:4000].split(",")):
        refuse(launcher, "--local_ranks_filter must be a comma-separated list of integers e.g. "
                         "--local_ranks_filter=0,1,2")
    if a.rdzv_conf:
        # torch/distributed/elastic/rendezvous/utils.py _parse_rendezvous_config: KEY=VALUE,...; an empty key
        # or value is a ValueError before anything starts
        for kv in a.rdzv_conf.strip().split(",") if a.rdzv_conf.strip() else ():
            key, eq, value = kv.partition("=")
            if not key.strip():
                refuse(launcher, "--rdzv-conf: the rendezvous configuration string must be in format "
                                 "<key1>=<value1>,...,<keyN>=<valueN>")
            if not value.strip():
                refuse(launcher, "--rdzv-conf: the rendezvous configuration option %r must have a value specified"
                       % key.strip()[:40])
    if a.logs_specs is not None:
        # _get_logs_specs_class: a name registered under the torchrun.logs_specs entry points,
        # installed where the job runs; not knowable here
        plan.note("--logs-specs %s: an entry point of the job's environment (torchrun.logs_specs)"
                  % a.logs_specs[:40])
    backend, endpoint, master_port = a.rdzv_backend, a.rdzv_endpoint, a.master_port
    if a.standalone:
        backend, endpoint = "c10d", "localhost:0"
    elif backend == "static" and not endpoint and master_port is None and hi == 1:
        backend, endpoint = "c10d", "localhost:0"  # run(): a one-node static run becomes standalone
    if master_port is None:
        master_port = 29500
    if backend == "static" and not endpoint:
        # get_rdzv_endpoint: the only place torch reads --master-port (a --standalone or c10d line ignores it);
        # parse_endpoint below refuses a port outside 0..65535 as parse_rendezvous_endpoint does
        endpoint = "%s:%s" % (a.master_addr, master_port)
    plan.rdzv_backend = backend
    host, port = parse_endpoint(endpoint, DEFAULT_PORTS.get(backend, -1), launcher)
    if backend == "static" and port == -1:
        refuse(launcher, "Port is absent in endpoint: %s. Try launching with --master-port" % endpoint[:80])
    plan.rdzv_endpoint = "%s:%s" % ("[%s]" % host if ":" in host else host, port if port != -1 else "")
    # the address every node reaches first: the static master, or the c10d/etcd store
    plan.master_addr, plan.master_port = host, (port if port not in (-1, 0) else None)
    if port == 0:
        plan.port_asked = 0
        if hi == 1:  # on more nodes launch/ports.py says why it hangs
            plan.note("rendezvous port 0: torch picks a free port on this node (a one-node run)")
    if backend != "static" and a.master_addr != "127.0.0.1" and not a.rdzv_endpoint:
        plan.note("--master-addr is only used for the static rendezvous backend and when --rdzv-endpoint is "
                  "not given (torch's own warning): the %s store is at %s" % (backend, plan.rdzv_endpoint))
    if backend == "static":
        # config_from_args: rdzv_configs["rank"] = args.node_rank for "static" only (the rank-0
        # agent hosts the TCPStore, static_tcp_rendezvous.py); c10d/etcd rank the agents as they
        # join (dynamic_rendezvous.py), whatever --node-rank says (pytorch/pytorch 010929fd)
        plan.machine_rank = a.node_rank
    elif a.node_rank != 0 and not a.standalone:
        # torch warns the same since pytorch/pytorch#182374 (issue #182223: "only used for static
        # rendezvous"); a launch script relying on it for the node that runs RANK 0 is wrong
        plan.note("--node-rank %d is not used by the %s rendezvous (only static reads it): the nodes get their "
                  "ranks as they join, so this node's workers need not be ranks %s" % (
                      a.node_rank, backend, "%d.." % (a.node_rank * plan.nproc_per_node)
                      if plan.nproc_per_node else "node_rank x nproc_per_node.."))
    if getattr(a, "no_python", False) and prog == "torch.distributed.launch" and not a.use_env:
        refuse(launcher, "When using the '--no-python' flag, you must also set the '--use-env' flag.")
    if prog == "torch.distributed.launch" and not a.use_env:
        # torch/distributed/run.py config_from_args: `if not use_env: cmd_args.append(f"--local-rank=
        # {macros.local_rank}")` (torch >= 2.0; `--local_rank=` before): a script whose parser lacks it stops at
        # once with "error: unrecognized arguments: --local-rank=0" (the seeds' Aliyun benchmark.py had to be edited)
        plan.note("python -m torch.distributed.launch passes --local-rank=<n> to %s (torch >= 2.0; --local_rank=<n> "
                  "before): its argument parser must accept it, or start it with torchrun, which passes none "
                  "(LOCAL_RANK is in the environment)" % (a.training_script or "the script"))
    script = a.training_script
    if a.module:
        plan.script = "-m " + script
    else:
        plan.script = script
        if not a.no_python:
            plan.add_file(script)
    plan.script_args = list(a.training_script_args or [])
    if environ:
        pet = sorted(k for k in environ if k.startswith("PET_"))
        if pet:
            plan.note("read from the environment (torchrun reads PET_*): %s" % ", ".join(pet[:8]))
    return plan
