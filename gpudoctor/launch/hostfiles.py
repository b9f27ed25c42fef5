"""Hostfile dialects, each as the launcher that reads it reads it. The launcher decides:
a DeepSpeed hostfile is read by DeepSpeed's rules, an mpirun hostfile by Open MPI's, an
MPICH machinefile by Hydra's. (`gpudoctor check --hosts` keeps accepting every dialect for
fan-out: gpudoctor/inventory.py, which is also what reads a plain one-host-per-line list given
to `gpudoctor plan --hosts`.) Each returns [(host, slots or None)] in file order, one
entry per host, and refuses what its launcher refuses."""

import re

from gpudoctor.errors import InputError, excerpt, host_excerpt, read_input

MAX_HOSTFILE_BYTES = 16 << 20
MAX_SLOTS = 1 << 16


def read(path, what):
    return read_input(path, what, limit=MAX_HOSTFILE_BYTES).decode("utf-8", "replace")


def _slots(value, where):
    if not re.match(r"^[0-9]{1,6}$", value or "") or int(value) > MAX_SLOTS:
        raise InputError("%s: slot count %s is not a number from 0 to %d" % (where, excerpt(value, 12), MAX_SLOTS))
    return int(value)


def _host(name, where):
    from gpudoctor.inventory import valid_host

    if not valid_host(name):
        raise InputError("%s: %s is not a host name" % (where, host_excerpt(name)))
    return name


def deepspeed(text, path):
    """deepspeed/launcher/runner.py _parse_hostfile (0.19): each non-comment line must match
    `^(\\S+)\\s+slots=(\\d+)` (anything after is ignored); a host listed twice, a bad line
    or no host at all raises ValueError."""
    out, seen = [], set()
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("#") or line == "":
            continue
        where = "%s:%d" % (path, no)
        m = re.search(r"^(\S+)\s+slots=(\d+)", line)
        if not m:
            raise InputError("%s: DeepSpeed refuses the line %s (it needs 'HOST slots=N')"
                             % (where, host_excerpt(line.split()[0], 24)))
        host = _host(m.group(1), where)
        if host in seen:
            raise InputError("%s: DeepSpeed refuses the hostfile: it lists %s twice (\"Hostfile contains multiple "
                             "entries for %s\")" % (where, host, host))
        seen.add(host)
        out.append((host, _slots(m.group(2), where)))
    if not out:
        raise InputError("%s: DeepSpeed refuses it: \"Hostfile is empty or not formatted correctly\"" % path)
    return out


_OMPI_KEYS = {"slots": "slots", "slot": "slots", "count": "slots", "cpu": "slots", "max_slots": "max_slots",
              "max-slots": "max_slots", "slots_max": "max_slots", "slots-max": "max_slots", "username": "user",
              "user": "user", "port": "port", "boards": None, "sockets": None, "cores": None, "rank": None}


def openmpi(text, path):
    """Open MPI 4.1 (orte/util/hostfile/hostfile_lex.l, hostfile.c): `#` comments; a line is
    a host name and optional `slots=N` (also slot=, count=, cpu=), `max_slots=N`, `user@`
    prefix or `username=`. A host listed again without slots adds one slot per line; a
    host whose slot count is given on two lines is refused; `aa:4` is a host named `aa:4`
    (no `:N` syntax). Returns [(host, slots, explicit)] where explicit says whether a slot
    count was written (no count and no -np is Open MPI's refusal)."""
    order, slots, explicit, maxs = [], {}, {}, {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = "%s:%d" % (path, no)
        fields = line.split()
        name = fields[0]
        if "@" in name:
            name = name.rsplit("@", 1)[1]
        if not name or name.startswith("-") or any(c in name for c in "\"'`$;&|<>()\\"):
            raise InputError("%s: %s is not a host name" % (where, host_excerpt(name)))
        count = None
        for f in fields[1:]:
            key, eq, value = f.partition("=")
            kind = _OMPI_KEYS.get(key.lower()) if eq else "bad"
            if kind == "bad" or key.lower() not in _OMPI_KEYS:
                raise InputError("%s: Open MPI's hostfile parser does not know %s" % (where, excerpt(f, 24)))
            if kind == "slots":
                count = _slots(value, where)
            elif kind == "max_slots":
                maxs[name] = _slots(value, where)
        if name not in slots:
            order.append(name)
            slots[name], explicit[name] = 0, False
        if count is not None:
            if explicit[name] or slots[name]:
                raise InputError("%s: Open MPI refuses the hostfile: node %s has its slot count defined more than "
                                 "once (list it once per slot, or once with slots=N)" % (where, name))
            slots[name], explicit[name] = count, True
        else:
            if explicit[name]:
                raise InputError("%s: Open MPI refuses the hostfile: node %s has its slot count defined more than "
                                 "once" % (where, name))
            slots[name] += 1
    return [(h, slots[h], explicit[h]) for h in order]


def mpich(text, path):
    """MPICH Hydra machinefile (src/pm/hydra/lib/utils/ ... HYDU_parse_hostfile with
    process_mfile_token): `host[:N]` per line, N processes (default 1), `#` comments,
    further `key=value` words (ifhn=) allowed; a host listed twice appears twice."""
    out = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = "%s:%d" % (path, no)
        first = line.split()[0]
        name, colon, n = first.partition(":")
        out.append((_host(name, where), _slots(n, where) if colon else 1))
    if not out:
        raise InputError("%s: the machinefile names no host" % path)
    return out


def comma_hosts(spec, where, default_slots=1):
    """`a:2,b:2,c` (Open MPI -H, horovodrun -H, Hydra -hosts): [(host, slots)], repeated
    names merged, slots added (Open MPI: `-H aa,aa` is two slots on aa)."""
    order, slots = [], {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, colon, n = item.rpartition(":") if ":" in item and not item.startswith("[") else (item, "", "")
        if not colon:
            name, n = item, ""
        c = _slots(n, where) if colon else default_slots
        if "@" in name:
            name = name.rsplit("@", 1)[1]
        _host(name, where)
        if name not in slots:
            order.append(name)
            slots[name] = 0
        slots[name] += c
    return [(h, slots[h]) for h in order]
