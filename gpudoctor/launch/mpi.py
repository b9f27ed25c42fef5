"""MPI launchers: Open MPI's mpirun/mpiexec/orterun (4.1: flags/openmpi.json from `mpirun
--help all`), MPICH and Intel MPI Hydra's mpiexec/mpiexec.hydra (flags/hydra.json from
Hydra's match table), and horovodrun (flags/horovodrun.json, horovod/runner/launch.py).

Open MPI's command line (opal_cmd_line): `-name` and `--name` both match a long option,
each option takes a fixed number of values (-mca takes two), `--name=value` is an unknown
option, any other unknown option is refused ("unknown option"), and the first word that
is not an option is the program. Mapping as `mpirun --do-not-launch --display-map` shows
it: by slot in host order; -npernode/-N/--map-by ppr:N:node place N per host; without -np
every slot gets a process (refused when a host's slots were not written); -np above the
slots is refused unless --oversubscribe; -np below the slots leaves slots idle."""

import os
import re

from gpudoctor.errors import InputError, excerpt, host_excerpt
from gpudoctor.fixline import hostile, inert_word
from gpudoctor.launch import hostfiles
from gpudoctor.launch.common import count, refuse, table
from gpudoctor.launch.plan import Node, redact


def _flag_index(name):
    idx = {}
    for row in table(name)["options"]:
        for f in row["flags"]:
            idx[f] = row
    return idx


def split_mpi(argv, name, launcher, long_single_dash=True):
    """[(canonical flag, [values])], program, program args: the MPI launchers' own
    scanning (no abbreviations, no '=')."""
    idx = _flag_index(name)
    opts, i = [], 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-") or a in ("-", "--"):
            if a == "--":
                i += 1
                break
            return opts, a, argv[i + 1:]
        row = idx.get(a)
        if row is None and long_single_dash and a.startswith("-") and not a.startswith("--"):
            row = idx.get("-" + a)  # Open MPI reads -map-by as --map-by
        if row is None and name == "hydra" and a.startswith("--"):
            row = idx.get(a[1:])  # Hydra strips every leading dash
        if row is None and name == "hydra" and "=" in a:
            key, _, val = a.partition("=")
            row = idx.get(key) or idx.get(key[1:] if key.startswith("--") else key)
            if row is not None and row["nargs"] >= 1:
                vals = [val] + argv[i + 1:i + row["nargs"]]
                opts.append((row["flags"][-1], vals))
                i += row["nargs"]
                continue
        if row is None:
            # (Open MPI's own words, opal/util/cmd_line.c, for a plain option; a hostile one is one inert word, 83.)
            refuse(launcher, "unknown option %s" % ('"%s"' % a if not hostile(a) and a.isprintable() and len(a) <= 40
                                                     else inert_word(a[:80])))
        n = row["nargs"]
        vals = argv[i + 1:i + 1 + n]
        if len(vals) < n:
            refuse(launcher, "option %s needs %d value%s" % (a, n, "s" if n > 1 else ""))
        opts.append((row["flags"][-1], vals))
        i += 1 + n
    if i < len(argv):
        return opts, argv[i], argv[i + 1:]
    return opts, None, []


def _all(opts, *names):
    return [v for k, v in opts if k in names]


def _last(opts, *names):
    got = _all(opts, *names)
    return got[-1] if got else None


def _program(plan, prog, rest, launcher):
    if prog is None:
        refuse(launcher, "no program to run was given")
    from gpudoctor.launch.common import is_python

    if is_python(prog):
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            if rest[i] == "-m" and i + 1 < len(rest):
                plan.script = "-m " + rest[i + 1]
                plan.script_args = list(rest[i + 2:])
                return
            if rest[i] in ("-c",):
                plan.script = "-c"
                plan.script_args = list(rest[i + 1:])
                return
            i += 1
        if i < len(rest):
            plan.script = rest[i]
            plan.add_file(rest[i])
            plan.script_args = list(rest[i + 1:])
        return
    plan.script = prog
    plan.script_args = list(rest)
    if prog.endswith(".py"):
        plan.add_file(prog)


def _env_flag(plan, spec):
    name, eq, val = spec.partition("=")
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise InputError("-x %s is not an environment variable name" % excerpt(name, 30))
    plan.forwarded = (plan.forwarded or []) + [name]
    if eq:
        plan.env_set[name] = redact(name, val)
        if name == "MASTER_ADDR":
            plan.master_addr = val
        elif name == "MASTER_PORT" and re.match(r"^[0-9]{1,5}$", val):
            plan.master_port = int(val)


def _rr_bynode(slots, np_):
    """Open MPI 4.1's round-robin mapper by node (orte/mca/rmaps/round_robin/rmaps_rr_mappers.c
    orte_rmaps_rr_bynode, https://github.com/open-mpi/ompi/blob/v4.1.4/orte/mca/rmaps/round_robin/rmaps_rr_mappers.c),
    ported step for step: the processes left are split evenly over the nodes still open (navg, the remainder one
    each on the first ones); a node with fewer free slots takes what it has, and the rest go round again; when
    oversubscribed every node takes its share whatever its slots. Checked with mpirun 4.1.4 --display-map:
    -H aa:4,bb:1,cc:4 -n 7 --map-by node is 4, 1, 2 (not one per node in turn)."""
    n = len(slots)
    if not n:
        return []
    procs, mapped = [0] * n, 0
    oversubscribed = sum(slots) < np_
    nnodes = n
    while True:
        left = np_ - mapped
        navg = left // nnodes or 1
        balance = float(left - navg * nnodes) / nnodes
        extra = int(balance)  # C's float -> int conversion truncates toward zero
        nxtra, add_one = 0, False
        if balance - extra > 0:
            nxtra, extra, add_one = left - (navg + extra) * nnodes, extra + 1, True
        nnodes = 0
        for i in range(n):
            if not oversubscribed and slots[i] <= procs[i]:
                continue
            if add_one:
                if nxtra == 0:
                    extra, add_one = extra - 1, False
                else:
                    nxtra -= 1
            take = navg + extra
            if not oversubscribed and slots[i] - procs[i] < take:
                take = slots[i] - procs[i]
                if take == 0:
                    continue
            nnodes += 1
            take = min(take, np_ - mapped)
            procs[i] += take
            mapped += take
            if mapped == np_:
                break
        if mapped >= np_ or nnodes == 0:
            break
    while mapped < np_:  # "fill in as required until fully mapped": one more on each node in turn
        for i in range(n):
            procs[i] += 1
            mapped += 1
            if mapped == np_:
                break
    return procs


def map_procs(hosts, np_, per_node, launcher, oversubscribe, by_node=False):
    """Place processes as Open MPI's rr mapper does: hosts [(name, slots)] in order."""
    if per_node is not None:
        want = per_node * len(hosts)
        if np_ is not None and np_ > want:
            refuse(launcher, "-np %d is more than %d per node x %d nodes" % (np_, per_node, len(hosts)))
        n = np_ if np_ is not None else want
        procs = []
        for _h, slots in hosts:
            take = min(per_node, n)
            if slots is not None and take > slots and not oversubscribe:
                refuse(launcher, "There are not enough slots available in the system to satisfy the %d slots "
                                 "that were requested by the application" % (per_node * len(hosts)))
            procs.append(take)
            n -= take
        return procs
    total = sum(s for _h, s in hosts)
    if np_ > total and not oversubscribe:
        refuse(launcher, "There are not enough slots available in the system to satisfy the %d slots that were "
                         "requested by the application (%d slots)" % (np_, total))
    procs = [0] * len(hosts)
    left = np_
    if by_node:
        return _rr_bynode([s for _h, s in hosts], np_)
    for i, (_h, slots) in enumerate(hosts):
        take = min(slots, left)
        procs[i] += take
        left -= take
    while left > 0:  # oversubscribed (as --display-map shows it): one more per host, round robin
        for i in range(len(hosts)):
            if left:
                procs[i] += 1
                left -= 1
    return procs


def _contexts(argv):
    """Open MPI's MPMD form `mpirun [opts] prog args : [opts] prog args`: a bare ':' starts
    another app context."""
    out, cur = [], []
    for a in argv:
        if a == ":":
            out.append(cur)
            cur = []
        else:
            cur.append(a)
    out.append(cur)
    return out


def _read_openmpi_mpmd(plan, contexts, launcher):
    """Several app contexts, as `mpirun --do-not-launch --display-map` maps them: the
    allocation is every context's -H hosts (a host's slots not added twice: the last -H naming it
    gives them) or the hostfile;
    each context fills free slots in host order over its own -H hosts (or all), continuing
    where the previous one stopped; -np is required per context."""
    parsed = [split_mpi(c, "openmpi", launcher) for c in contexts]
    allopts = [o for opts, _p, _r in parsed for o in opts]
    oversub = bool(_all(allopts, "--oversubscribe"))
    npn = _all(allopts, "--npernode")
    if _all(allopts, "-N", "--map-by") or (npn and (oversub or any(_all(o, "--host") for o, _p, _r in parsed[1:])
                                                    or _all(allopts, "--hostfile", "--machinefile",
                                                            "--default-hostfile"))):
        refuse(launcher, "-npernode/-N/--map-by in a ':'-separated (MPMD) line are not read by gpudoctor (read: "
                         "-npernode with the hosts in the first context's -H, without --oversubscribe)")
    order, slots, given = [], {}, {}
    for opts, _p, _r in parsed:
        for spec in [v[0] for v in _all(opts, "--host")]:
            for h, n in hostfiles.comma_hosts(spec, "-H %s" % excerpt(spec, 40)):
                if h not in slots:
                    order.append(h)
                # a host that several contexts' -H name has the slots of the last one (mpirun 4.1.4 --display-map:
                # `-H aa:2,bb:2 -np 2 x : -H bb -np 2 y` is "not enough slots", bb has 1; `-H bb:1 ... : -H bb:3`
                # gives bb 3); it took the largest (launch25)
                slots[h] = n
                given[h] = True
    hfs = [v[0] for v in _all(allopts, "--hostfile", "--machinefile", "--default-hostfile")]
    if hfs and not order:
        rows = hostfiles.openmpi(hostfiles.read(os.path.expanduser(hfs[-1]), "Open MPI hostfile"), hfs[-1])
        order = [h for h, _s, _e in rows]
        slots = {h: n for h, n, _e in rows}
        given = {h: e for h, _n, e in rows}
        plan.add_file(os.path.expanduser(hfs[-1]))
    if not order:
        refuse(launcher, "a ':'-separated (MPMD) line without -H or a hostfile is not read by gpudoctor")
    used = {h: 0 for h in order}
    if npn:
        _mpmd_ppr(plan, parsed, order, slots, used, count(npn[-1][0], "-npernode", launcher, minimum=1), launcher)
    for opts, prog, rest in ([] if npn else parsed):
        np_ = _last(opts, "--np", "--n")
        mine = []
        for spec in [v[0] for v in _all(opts, "--host")]:
            mine += [h for h, _n in hostfiles.comma_hosts(spec, "-H")]
        if not np_:
            # mpirun 4.1.4 --display-map: a context without -np gets every slot of its hosts (the line's allocation),
            # which fails ("not enough slots" / "already filled") unless --oversubscribe; a hostfile host with no
            # slot count given has the cores of its node, known only there
            if not all(given.get(h) for h in (mine or order)):
                refuse(launcher, "Either the -host or -hostfile options were given, but the number of processes to "
                                 "start was omitted for a ':'-separated app context")
            left = sum(slots[h] for h in dict.fromkeys(mine or order))
        else:
            left = count(np_[0], "-np", launcher, minimum=1)
        for h in (mine or order):
            take = min(max(slots[h] - used[h], 0), left)
            used[h] += take
            left -= take
        if left and not oversub:
            refuse(launcher, "There are not enough slots available in the system to satisfy the slots that were "
                             "requested by the application")
        while left:
            for h in (mine or order):
                if left:
                    used[h] += 1
                    left -= 1
        for spec in _all(opts, "-x"):
            _env_flag(plan, spec[0])
    plan.set_nodes([Node(h, slots[h], used[h]) for h in order], "%d app contexts" % len(parsed))
    if plan.forwarded is None:
        plan.forwarded = []
    _program(plan, parsed[0][1], parsed[0][2], launcher)
    others = [p for _o, p, _r in parsed[1:]]
    plan.note("MPMD: the other app contexts run %s" % ", ".join(str(p) for p in others))
    return plan


def _mpmd_ppr(plan, parsed, order, slots, used, per_node, launcher):
    """MPMD contexts under -npernode N, as Open MPI 4.1.4's ppr mapper places them (orte/mca/rmaps/ppr; measured with
    the real `mpirun --display-map --do-not-launch` over made-up -H hosts, 150 random lines, launch26): the last
    -npernode of the line applies to every context; each context in turn takes the hosts with a free slot, in -H
    order, and puts up to N of its processes on each (-np, else N per host of the allocation); past a host's slots
    it is "not enough slots", with processes left after the last host "more processes than the ppr", with no host
    free "already filled"."""
    for opts, _prog, _rest in parsed:
        free = [h for h in order if used[h] < slots[h]]
        if not free:
            refuse(launcher, "All nodes which are allocated for this job are already filled.")
        np_ = _last(opts, "--np", "--n")
        left = count(np_[0], "-np", launcher, minimum=1) if np_ else per_node * len(order)
        for h in free:
            take = min(per_node, left)
            used[h] += take
            left -= take
            if used[h] > slots[h]:
                refuse(launcher, "There are not enough slots available in the system to satisfy the slots that were "
                                 "requested by the application")
            if not left:
                break
        if left:
            refuse(launcher, "Your job has requested more processes than the ppr for this topology can support "
                             "(PPR: %d:node)" % per_node)
        for spec in _all(opts, "-x"):
            _env_flag(plan, spec[0])
    plan.note("MPMD with -npernode %d: mpirun applies the line's last -npernode to every app context, each placing "
              "up to %d of its processes on each host with a free slot" % (per_node, per_node))


def read_openmpi(plan, argv, environ):
    launcher = "mpirun"
    plan.launcher = launcher
    contexts = _contexts(argv)
    if len(contexts) > 1:
        return _read_openmpi_mpmd(plan, contexts, launcher)
    opts, prog, rest = split_mpi(argv, "openmpi", launcher)
    where = launcher
    np_ = _last(opts, "--np", "--n")
    np_ = count(np_[0], "-np", where, minimum=1) if np_ else None
    per_node = _last(opts, "--npernode", "-N")
    per_node = count(per_node[0], "-npernode", where, minimum=1) if per_node else None
    map_by = _last(opts, "--map-by")
    map_by = map_by[0] if map_by else ""
    m = re.match(r"^ppr:(\d+):node", map_by, re.I)
    if m:
        per_node = count(m.group(1), "--map-by ppr", where, minimum=1)
    oversub = bool(_all(opts, "--oversubscribe")) or "oversubscribe" in map_by.lower()
    by_node = map_by.lower().startswith("node") or bool(_all(opts, "--bynode"))
    host_specs = [v[0] for v in _all(opts, "--host")]
    hfs = [v[0] for v in _all(opts, "--hostfile", "--machinefile", "--default-hostfile")]
    hosts, explicit, src = [], True, None
    if hfs and not host_specs and not os.path.lexists(os.path.expanduser(hfs[-1])) and \
            hostfiles.written(hfs[-1]) is None:
        # the hostfile lives where the job is launched (/job/hostfile, a scheduler's), not
        # here: the flags alone still give the counts (-np 128 -npernode 4: 32 nodes x 4)
        for spec in _all(opts, "-x"):
            _env_flag(plan, spec[0])
        if plan.forwarded is None:
            plan.forwarded = []
        plan.note("hostfile %s is not on this machine: its hosts are read where the job is launched"
                  % excerpt(hfs[-1], 60))
        if np_ is not None:
            plan.world_min = plan.world_max = np_
        if np_ is not None and per_node is not None:
            nn = -(-np_ // per_node)
            plan.nnodes_min = plan.nnodes_max = nn
            plan.nproc_per_node = per_node if np_ % per_node == 0 else None
        _program(plan, prog, rest, launcher)
        return plan
    if hfs:
        path = hfs[-1]
        rows = hostfiles.openmpi(hostfiles.read(path, "Open MPI hostfile"), path)
        hosts = [(h, s) for h, s, _e in rows]
        explicit = all(e for _h, _s, e in rows)
        src = "hostfile %s" % path
        if hostfiles.written(path) is not None:
            plan.note("hostfile %s: as the script writes it before this line" % excerpt(path, 60))
        else:
            plan.add_file(os.path.expanduser(path))
    if host_specs:
        spec = ",".join(host_specs)
        hl = hostfiles.comma_hosts(spec, "-H %s" % excerpt(spec, 40))
        explicit = True  # -H aa,aa,bb: one slot per mention, no -np needed (mpirun(1) example)
        # -H with a hostfile: Open MPI 4.1.4 maps the -H hosts with the -H slot counts
        # (`--hostfile myhostfile --host aa` runs one process on aa; --display-map)
        hosts = hl
        src = "-H %s" % spec
    for spec in _all(opts, "-x"):
        _env_flag(plan, spec[0])
    if plan.forwarded is None:
        plan.forwarded = []
    if not hosts:
        # this machine only; its slots are its cores (Open MPI counts them here)
        plan.set_nodes([Node("localhost", None, np_ if per_node is None else per_node)], "this machine")
        if np_ is None and per_node is None:
            plan.nodes[0].procs = None
            plan.nnodes_min = plan.nnodes_max = 1
    else:
        if np_ is None and per_node is None and not explicit:
            refuse(launcher, "Either the -host or -hostfile options were given, but the number of processes to "
                             "start was omitted (Open MPI needs -np when a host's slots are not written)")
        total = sum(s for _h, s in hosts)
        n = np_ if np_ is not None else total
        procs = map_procs(hosts, n if per_node is None else np_, per_node, launcher, oversub, by_node)
        plan.set_nodes([Node(h, s, p) for (h, s), p in zip(hosts, procs)], src)
        if per_node is None and n < total:
            plan.note("-np %d over %d slots: %d slot%s (GPUs) left idle" % (n, total, total - n,
                                                                            "" if total - n == 1 else "s"))
    _program(plan, prog, rest, launcher)
    return plan


def read_hydra(plan, argv, environ, launcher="mpiexec.hydra"):
    contexts = _contexts(argv)
    if len(contexts) > 1:
        return _read_hydra_mpmd(plan, contexts, environ, launcher)
    return _read_hydra(plan, argv, environ, launcher)


def _read_hydra_mpmd(plan, contexts, environ, launcher):
    """Hydra's MPMD form `mpiexec [global opts] -n 4 ./a : -n 4 ./b`: the executables run
    together in one world of the summed -n (MPICH's mpiexec(1): "mpiexec -n 1 ./master : -n
    19 ./slave" starts 20 processes), placed in turn over the one host list (the global
    -f/-hosts, which Hydra reads in the first section)."""
    from gpudoctor.launch.plan import Plan

    counts, first = [], None
    for k, ctx in enumerate(contexts):
        sub = Plan()
        _read_hydra(sub, ctx, environ, launcher)
        n = sub.world_size()
        if n is None and k and first is not None and first.nodes and all(
                nd.slots is not None for nd in first.nodes):
            # a section without -n runs on every slot of the host list, as the first section without -n
            # does (MPICH 4.0.2's Hydra, measured here: `-f m -n 1 ./a : ./b` with m = h1:2 h2:2 h3:2
            # starts 1 + 6; launch24). It was refused.
            n = sum(nd.slots for nd in first.nodes)
        counts.append(n)
        first = first or sub
    if None in counts:
        # no host list (this machine): a section without -n takes its cores, which are not known here
        _read_hydra(plan, contexts[0], environ, launcher)
        plan.set_nodes([Node(nd.host, nd.slots, None) for nd in plan.nodes], plan.nodes_source)
        plan.world_min = plan.world_max = None
        plan.nproc_per_node = None
        plan.note("MPMD: %d sections, section %d without -n takes every core of the machine: the world is "
                  "known at run time" % (len(counts), counts.index(None) + 1))
        return plan
    total = sum(counts)
    opts = [a for a in contexts[0]]
    # the first section's options with its -n replaced by the total (or the total given, where the first section
    # has none: `-hosts h1:3,h2 ./a : -n 2 ./b` is 4 + 2 from h1 on, measured with Hydra 4.0.2): the same placement
    i = 0
    rebuilt = ["-n", str(total)]
    while i < len(opts):
        if opts[i] in ("-n", "-np") and i + 1 < len(opts):
            i += 2
            continue
        rebuilt.append(opts[i])
        i += 1
    _read_hydra(plan, rebuilt, environ, launcher)
    plan.note("MPMD: %d sections, -n %s, one world of %d" % (len(counts), " + ".join(map(str, counts)), total))
    return plan


def _read_hydra(plan, argv, environ, launcher="mpiexec.hydra"):
    plan.launcher = launcher
    opts, prog, rest = split_mpi(argv, "hydra", launcher, long_single_dash=False)
    where = launcher
    np_ = _last(opts, "-np", "-n")
    np_ = count(np_[0], "-n", where, minimum=1) if np_ else None
    ppn = _last(opts, "-ppn", "-perhost")
    ppn = count(ppn[0], "-ppn", where, minimum=1) if ppn else None
    hosts, src = [], None
    f = _last(opts, "-machinefile", "-hostfile", "-f")
    h = _last(opts, "-hostlist", "-hosts", "-host", "-machinelist", "-machines", "-machine")
    if f and not h and not os.path.lexists(os.path.expanduser(f[0])):
        # as read_openmpi: the machinefile lives where the job is launched, not here (`mpiexec -f
        # hosts -n 16` pasted into explain, planned on a laptop); the flags alone give the counts
        for name, val in _all_pairs(opts, "-genv", "-env"):
            plan.env_set[name] = redact(name, val)
        plan.note("machinefile %s is not on this machine: its hosts are read where the job is launched"
                  % excerpt(f[0], 60))
        if np_ is not None:
            plan.world_min = plan.world_max = np_
        if ppn is not None:
            # -ppn N: N processes on each host in turn (as -npernode for Open MPI above): the per-host count is the
            # flag's even where -n is known only at run time (mhyatt000/vision scripts/mpi.sh: `mpiexec -n
            # $((4*$(wc -l < ${PBS_NODEFILE}))) --ppn 4 --hostfile ${PBS_NODEFILE}`; launch29)
            # (the node count only where -n is a whole number of hosts: a -n known only at run time is planned with
            # small stand-ins, 1 and 2, whose ceil(n/ppn) would agree on one node)
            plan.nproc_per_node = ppn
            if np_ is not None and np_ % ppn == 0:
                plan.nnodes_min = plan.nnodes_max = np_ // ppn
                if np_ > ppn:
                    plan.note("%d hosts where the machinefile lists at least %d (Hydra wraps around fewer, each "
                              "taking -ppn again)" % (np_ // ppn, np_ // ppn))
            elif np_ is not None:
                plan.note("-n %d is not a multiple of -ppn %d: the last host takes the %d left" % (
                    np_, ppn, np_ % ppn))
        _program(plan, prog, rest, launcher)
        return plan
    if f:
        hosts = hostfiles.mpich(hostfiles.read(os.path.expanduser(f[0]), "machinefile"), f[0])
        src = "machinefile %s" % f[0]
        plan.add_file(os.path.expanduser(f[0]))
    if h:
        hosts = hostfiles.comma_hosts(h[0], "-hosts %s" % excerpt(h[0], 40))
        src = "-hosts %s" % h[0]
    for name, val in _all_pairs(opts, "-genv", "-env"):
        plan.env_set[name] = redact(name, val)
    for lst in _all(opts, "-genvlist", "-envlist"):
        plan.forwarded = (plan.forwarded or []) + [x for x in lst[0].split(",") if x]
    if not hosts:
        plan.set_nodes([Node("localhost", None, np_)], "this machine")
        if np_ is None:
            plan.nnodes_min = plan.nnodes_max = 1
    else:
        if ppn is not None:
            hosts = [(hh, ppn) for hh, _s in hosts]
        total = sum(s for _h, s in hosts)
        n = np_ if np_ is not None else total
        procs = [0] * len(hosts)
        left = n
        while left > 0:  # Hydra wraps around the host list, each host taking its count again
            for i, (_h, s) in enumerate(hosts):
                take = min(s, left)
                procs[i] += take
                left -= take
                if not left:
                    break
        merged = {}
        order = []
        for (hh, s), p in zip(hosts, procs):
            if hh not in merged:
                order.append(hh)
                merged[hh] = [0, 0]
            merged[hh][0] += s
            merged[hh][1] += p
        plan.set_nodes([Node(hh, merged[hh][0], merged[hh][1]) for hh in order], src)
        if n < total:
            plan.note("-n %d over %d slots: %d left idle" % (n, total, total - n))
        if n > total:
            plan.note("-n %d over %d slots: Hydra wraps around and oversubscribes the hosts" % (n, total))
    _program(plan, prog, rest, launcher)
    return plan


def _all_pairs(opts, *names):
    return [(v[0], v[1]) for k, v in opts if k in names and len(v) == 2]


def _horovod_hosts(spec, launcher):
    """horovod's parse_hosts_and_slots: every item `host:N` (^[\\w.-]+:[0-9]+$)."""
    out = []
    for item in spec.split(","):
        if not re.match(r"^[\w.-]+:[0-9]{1,6}$", item.strip()):
            refuse(launcher, "Invalid host input, please make sure it has format as : worker-0:2,worker-1:2. "
                             "(got %s)" % excerpt(item, 30))
        h, n = item.strip().split(":")
        out.append((h, int(n)))
    return out


def read_horovod(plan, argv, environ):
    from gpudoctor.launch.common import parse

    launcher = "horovodrun"
    plan.launcher = launcher
    a = parse("horovodrun", launcher, argv, environ)
    where = launcher
    if not a.command:
        refuse(launcher, "no command to run was given")
    np_ = count(a.num_proc, "-np", where, minimum=1) if a.num_proc is not None else None
    hosts, src = [], None
    if a.hosts and a.hostfile:
        refuse(launcher, "argument -H/--hosts: not allowed with argument -hostfile/--hostfile")
    if a.hosts:
        hosts = _horovod_hosts(a.hosts, launcher)
        src = "-H %s" % a.hosts
    elif a.hostfile:
        # horovod/runner/common/util/hosts.py parse_host_files: every line `host slots=N`
        # (no comments, no blank lines: line.split()[0], line.split('=')[1])
        text = hostfiles.read(os.path.expanduser(a.hostfile), "horovod hostfile")
        spec = []
        for raw in text.splitlines():
            line = raw.rstrip()
            if not line.split() or "=" not in line:
                refuse(launcher, "hostfile %s: the line %s is not 'host slots=N'" % (a.hostfile, host_excerpt(line, 24)))
            spec.append("%s:%s" % (line.split()[0], line.split("=")[1]))
        hosts = _horovod_hosts(",".join(spec), launcher)
        src = "hostfile %s" % a.hostfile
        plan.add_file(os.path.expanduser(a.hostfile))
    elif a.host_discovery_script:
        plan.note("elastic: hosts come from %s at run time" % a.host_discovery_script)
    if np_ is None and not a.host_discovery_script:
        refuse(launcher, "the following arguments are required: -np/--num-proc")
    if not hosts and a.host_discovery_script:
        # horovod/runner/launch.py _run: only with neither -H nor a discovery script do the hosts default to
        # `localhost:NP`; _run_elastic takes them from the script (HostDiscoveryScript) at run time, the world
        # between min_num_proc (--min-np, else -np) and --max-np
        # (https://github.com/horovod/horovod/blob/2626dc87a3a8eb8fb7d2216198ce45bce0f9e65a/horovod/runner/launch.py#L689)
        lo = count(a.min_num_proc, "--min-np", where) if a.min_num_proc is not None else np_
        hi = count(a.max_num_proc, "--max-np", where) if a.max_num_proc is not None else None
        plan.world_min, plan.world_max = lo, hi
        if a.slots is not None:
            plan.nproc_per_node = count(a.slots, "--slots-per-host", where, minimum=1)
        plan.forwarded = []
        _program(plan, a.command[0], a.command[1:], launcher)
        return plan
    if not hosts:
        hosts = [("localhost", np_ or 1)]
        src = src or "this machine"
    if a.min_num_proc is not None and len({h for h, _s in hosts}) < 2:
        # elastic (--min-np) with fixed hosts: horovod/runner/launch.py _run_elastic refuses fewer than two
        # (https://github.com/horovod/horovod/blob/2626dc87a3a8eb8fb7d2216198ce45bce0f9e65a/horovod/runner/launch.py#L694)
        refuse(launcher, "Cannot run in fault tolerance mode with fewer than 2 hosts. (--min-np makes the job elastic; "
                         "its hosts: %s)" % excerpt(src or "this machine", 60))
    total = sum(s for _h, s in hosts)
    if np_ is not None and np_ > total:
        # horovod/runner/common/util/hosts.py get_host_assignments
        refuse(launcher, "Requested more processes (%d) than there are available slots (%d)" % (np_, total))
    if a.use_gloo:
        # gloo_run: get_host_assignments(hosts, num_proc) with no maximum fills every slot;
        # -np is only the minimum it refuses below
        procs = [s for _h, s in hosts]
        plan.note("--gloo: horovod starts a process on every slot (%d), -np is the minimum" % total)
    else:
        # mpi_run: `mpirun -np N -H host:slots,...` (Open MPI's mapping by slot)
        procs, left = [], np_ if np_ is not None else total
        for _h, s in hosts:
            take = min(s, left)
            procs.append(take)
            left -= take
    plan.set_nodes([Node(h, s, p) for (h, s), p in zip(hosts, procs)], src)
    if np_ is not None and np_ < total and not a.use_gloo:
        plan.note("-np %d over %d slots: %d slot%s (GPUs) left idle" % (np_, total, total - np_,
                                                                        "" if total - np_ == 1 else "s"))
    if a.min_num_proc is not None or a.max_num_proc is not None:
        plan.world_min = count(a.min_num_proc, "--min-np", where) if a.min_num_proc is not None else plan.world_min
        plan.world_max = count(a.max_num_proc, "--max-np", where) if a.max_num_proc is not None else plan.world_max
    plan.forwarded = []
    _program(plan, a.command[0], a.command[1:], launcher)
    return plan
