"""`colossalai run`, read as ColossalAI reads it (hpcaitech/ColossalAI colossalai/cli/launcher/
__init__.py, the click command, and run.py launch_multi_processes / get_launch_command, at
4f9953be; https://github.com/hpcaitech/ColossalAI/tree/4f9953be/colossalai/cli/launcher):

- click options, anywhere on the line (click's commands allow interspersed arguments) until `--`;
  `ignore_unknown_options`: a word that is no option of its is the script's, the first one the
  script itself (`user_script`), the rest its arguments. -H/-host/--host, --hostfile, --include,
  --exclude, --num_nodes (-1), --nproc_per_node (required), --master_port (29500), --master_addr
  (127.0.0.1), --extra_launch_args (`a=1,b` -> `--a=1 --b`), --ssh-port, -m MODULE.
- the hosts: the hostfile's lines (a host name each, no slot counts; a duplicate is refused),
  filtered by --include/--exclude, the first --num_nodes of them; else -H's list; else this node
  (127.0.0.1). With more than one host and the default master address, the first host is it.
- on each host (over ssh, fabric), in order: `torchrun --nproc_per_node=N --nnodes=K
  --node_rank=I --master_addr=A --master_port=P [extra] [-m] SCRIPT ARGS` (torch >= 2; older torch
  gets `python -m torch.distributed.launch|run` with the same numbers).
What ColossalAI says and then exits on (`click.echo("Error: ..."); exit()`) is a refusal here."""

import os

from gpudoctor.errors import excerpt
from gpudoctor.launch import hostfiles, torchrun
from gpudoctor.launch.common import count, refuse
from gpudoctor.launch.plan import Node

VALUE = {"-H": "host", "-host": "host", "--host": "host", "--hostfile": "hostfile", "--include": "include",
         "--exclude": "exclude", "--num_nodes": "num_nodes", "--nproc_per_node": "nproc_per_node",
         "--master_port": "master_port", "--master_addr": "master_addr", "--extra_launch_args": "extra_launch_args",
         "--ssh-port": "ssh_port", "-m": "m"}
INTS = ("num_nodes", "nproc_per_node", "master_port", "ssh_port")
WHO = "colossalai run"


def parse(argv):
    """(options, positional words) as click parses `colossalai run`'s line."""
    opts = {"host": None, "hostfile": None, "include": None, "exclude": None, "num_nodes": -1, "nproc_per_node": None,
            "master_port": 29500, "master_addr": "127.0.0.1", "extra_launch_args": None, "ssh_port": None, "m": None}
    pos, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            pos.extend(argv[i + 1:])
            break
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if name in VALUE:
            if not eq:
                if i + 1 >= len(argv):
                    refuse(WHO, "Error: Option '%s' requires an argument." % name)
                val = argv[i + 1]
                i += 1
            dest = VALUE[name]
            if dest in INTS:
                val = str(val).strip()
                if not val.lstrip("-").isdigit() or len(val) > 8:
                    refuse(WHO, "Error: Invalid value for '%s': %s is not a valid integer." % (
                        name, excerpt(val, 24)))
                val = int(val)
            opts[dest] = val
        else:
            pos.append(a)  # ignore_unknown_options: the script's word
        i += 1
    return opts, pos


def _hostfile(path):
    text = hostfiles.read(path, "ColossalAI hostfile")
    hosts = []
    for line in text.splitlines():
        name = line.strip()
        if not name:
            continue
        hostfiles._host(name, "hostfile %s" % excerpt(path, 60))
        if name in hosts:
            refuse(WHO, "Error: found duplicate host %s in the hostfile" % excerpt(name, 60))
        hosts.append(name)
    return hosts


def _filter(hosts, include, exclude):
    if include and exclude:
        refuse(WHO, "--include and --exclude are mutually exclusive, only one can be used")
    if not include and not exclude:
        return hosts
    out = [] if include else list(hosts)
    for name in (include or exclude).split(","):
        if name not in hosts:
            refuse(WHO, "Error: Hostname '%s' not found in hostfile" % excerpt(name, 60))
        if include:
            out.append(name)
        elif name in out:
            out.remove(name)
    return out


def read(plan, argv, environ):
    o, pos = parse(argv)
    script = pos[0] if pos else None
    args = pos[1:]
    if o["m"] is not None:
        if o["m"].endswith(".py"):
            refuse(WHO, "Error: invalid Python module %s. Did you use a wrong option?" % excerpt(o["m"], 60))
        if script is not None:
            args = [script] + args
        script = o["m"]
    elif script is None:
        refuse(WHO, "Error: missing script argument. Did you use a wrong option?")
    elif not script.endswith(".py"):
        refuse(WHO, "Error: invalid Python file %s. Did you use a wrong option?" % excerpt(script, 60))
    if o["nproc_per_node"] is None:
        refuse(WHO, "--nproc_per_node did not receive any value")
    npn = count(o["nproc_per_node"], "--nproc_per_node", WHO)
    hosts, src = None, None
    if o["host"] and o["hostfile"]:
        plan.note("colossalai run: \"Error: hostfile and hosts are mutually exclusive, only one is required\" "
                  "(printed; it goes on with the hostfile)")
    if o["hostfile"]:
        path = o["hostfile"]
        if hostfiles.exists(path):
            hosts = _filter(_hostfile(path), o["include"], o["exclude"])
            if o["num_nodes"] > 0:
                hosts = hosts[:o["num_nodes"]]
            src = "hostfile %s%s" % (path, " (written by the script)" if hostfiles.written(path) is not None else "")
            if hostfiles.written(path) is None:
                plan.add_file(os.path.expanduser(path))
        else:
            plan.note("hostfile %s is not on this machine: colossalai run reads it where the job is launched "
                      "(one host name a line)%s" % (excerpt(path, 60), "; --num_nodes %d takes the first %d of them"
                                                   % (o["num_nodes"], o["num_nodes"]) if o["num_nodes"] > 0 else ""))
    elif o["host"]:
        hosts = [h for h in o["host"].strip().split(",")]
        for h in hosts:
            hostfiles._host(h, "-H")
        src = "-H %s" % o["host"]
    else:
        hosts, src = ["127.0.0.1"], "this node (no --host, no --hostfile)"
    addr = o["master_addr"]
    if hosts is not None and len(hosts) > 1 and addr == "127.0.0.1":
        addr = hosts[0]  # "overwrite master addr when num_nodes > 1 and not specified"
    extra = []
    for item in (o["extra_launch_args"] or "").split(",") if o["extra_launch_args"] else []:
        k, eq, v = item.partition("=")
        if k in ("master_addr", "master_port"):  # the rendezvous arguments it replaces, not adds
            addr, o["master_port"] = (v, o["master_port"]) if k == "master_addr" else (addr, v)
            continue
        extra.append("--%s=%s" % (k, v) if v else "--%s" % k)
    # what the first host runs (node 0); the number of nodes is what the hosts give, or a stand-in
    # where the hostfile is not here (the plan's node count is then unknown)
    k = len(hosts) if hosts else max(o["num_nodes"], 1)
    line = ["--nproc_per_node=%d" % npn, "--nnodes=%d" % k, "--node_rank=0", "--master_addr=%s" % addr,
            "--master_port=%s" % o["master_port"]] + extra + (["-m"] if o["m"] is not None else []) + [script] + args
    torchrun.read(plan, "torchrun", line, {})
    plan.launcher = "colossalai"
    plan.machine_rank = None  # it ranks the hosts itself, in their order
    plan.note("colossalai run starts `torchrun --nnodes=K --node_rank=I ...` on each host over ssh, in host order "
              "(torch >= 2; older torch: python -m torch.distributed.launch)")
    if hosts:
        plan.set_nodes([Node(host=h, slots=None, procs=npn) for h in hosts], src)
        return plan
    if o["num_nodes"] <= 0:
        plan.nnodes_min = plan.nnodes_max = plan.world_min = plan.world_max = None
    if addr == "127.0.0.1" and o["num_nodes"] != 1:
        # the hostfile's first host when it lists more than one, else 127.0.0.1: not known here
        plan.master_addr = plan.rdzv_endpoint = None
    return plan
