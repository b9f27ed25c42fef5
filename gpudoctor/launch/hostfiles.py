"""Hostfile dialects, each as the launcher that reads it reads it. The launcher decides:
a DeepSpeed hostfile is read by DeepSpeed's rules, an mpirun hostfile by Open MPI's, an
MPICH machinefile by Hydra's. (`gpudoctor check --hosts` keeps accepting every dialect for
fan-out: gpudoctor/inventory.py, which is also what reads a plain one-host-per-line list given
to `gpudoctor plan --hosts`.) Each returns [(host, slots or None)] in file order, one
entry per host, and refuses what its launcher refuses."""

import contextvars
import os
import re

from gpudoctor.errors import InputError, excerpt, host_excerpt, read_input
from gpudoctor.launch.common import Refused

MAX_HOSTFILE_BYTES = 16 << 20
MAX_SLOTS = 1 << 16


# files the script being planned writes itself before it launches (`cat > hostfile <<EOF`,
# `echo "node1 slots=8" >> hostfile`): path as written -> text. Set by `gpudoctor plan SCRIPT`
# (gpudoctor/launch/script.py) around one launch line's plan; read before this file system.
WRITTEN = contextvars.ContextVar("gpudoctor_script_written_files", default={})


def written(path):
    """The text the script wrote to `path`, or None."""
    files = WRITTEN.get()
    return files.get(path, files.get(os.path.normpath(path))) if files else None


def exists(path):
    return written(path) is not None or os.path.isfile(os.path.expanduser(path))


def read(path, what):
    text = written(path)
    if text is not None:
        return text[:MAX_HOSTFILE_BYTES]
    text = read_input(os.path.expanduser(path), what, limit=MAX_HOSTFILE_BYTES).decode("utf-8", "replace")
    from gpudoctor.inventory import refuse_bom

    refuse_bom(text, path)
    return text


def _slots(value, where):
    if not re.match(r"^[0-9]{1,6}$", value or "") or int(value) > MAX_SLOTS:
        # echoed only up to its first non-digit: an /etc/shadow line read as `host:count`
        # (Hydra's dialect) has its hash there (docs/security.md, as errors.host_excerpt)
        head = re.match(r"[0-9]*", value or "").group(0)
        raise InputError("%s: slot count %s%s is not a number from 0 to %d" % (
            where, excerpt(head, 12), " (cut at a character no number has)" if head != (value or "") else "",
            MAX_SLOTS))
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
            raise Refused("%s: DeepSpeed refuses the line %s (it needs 'HOST slots=N')"
                             % (where, host_excerpt(line.split()[0], 24)))
        host = m.group(1)
        # DeepSpeed keeps the name as written; pdsh expands `worker-[1-2]` when it connects
        # (DeepSpeed's own runner accepts it: the bracket range is pdsh's, hostlist(3))
        _host(re.sub(r"\[[0-9][0-9,\-]*\]", "0", host) if "[" in host else host, where)
        if host in seen:
            raise Refused("%s: DeepSpeed refuses the hostfile: it lists %s twice (\"Hostfile contains multiple "
                             "entries for %s\")" % (where, host, host))
        seen.add(host)
        out.append((host, _slots(m.group(2), where)))
    if not out:
        raise Refused("%s: DeepSpeed refuses it: \"Hostfile is empty or not formatted correctly\"" % path)
    return out


# orte/util/hostfile/hostfile_lex.l (https://github.com/open-mpi/ompi/blob/v4.1.4/orte/util/hostfile/
# hostfile_lex.l): "slots", "count", "cpu" set the slot count, twelve spellings set the
# maximum; `slot` is a token of its own that a host line does not take (refused)
_OMPI_KEYS = {"slots": "slots", "count": "slots", "cpu": "slots",
              "username": "user", "user-name": "user", "user_name": "user",
              "boards": None, "sockets": None, "sockets_per_board": None, "sockets-per-board": None,
              "cores": None, "cores_per_socket": None, "cores-per-socket": None, "rank": None}
_OMPI_KEYS.update((k, "max_slots") for k in ("slots-max", "slots_max", "max-slots", "max_slots", "cpu-max", "cpu_max",
                                             "max-cpu", "max_cpu", "count-max", "count_max", "max-count", "max_count"))


def openmpi(text, path):
    """Open MPI 4.1 (orte/util/hostfile/hostfile_lex.l, hostfile.c): `#` comments; a line is
    a host name and optional `slots=N` (also slot=, count=, cpu=), `max_slots=N`, `user@`
    prefix or `username=`. A host listed again without slots adds one slot per line; a
    host whose slot count is given on two lines is refused; `aa:4` is a host named `aa:4`
    (no `:N` syntax). Returns [(host, slots, explicit)] where explicit says whether a slot
    count was written (no count and no -np is Open MPI's refusal)."""
    order, slots, explicit, maxs = [], {}, {}, {}
    for no, raw in enumerate(text.splitlines(), 1):
        # hostfile_lex.l: `#` and `//` start a comment; blanks around `=` are skipped
        line = re.split(r"#|//", raw, 1)[0].strip()
        if not line:
            continue
        line = re.sub(r"\s*=\s*", "=", line)
        where = "%s:%d" % (path, no)
        fields = line.split()
        name = fields[0]
        if "@" in name:
            name = name.rsplit("@", 1)[1]
        if not name or name.startswith("-") or any(c in name for c in "\"'`$;&|<>()\\[]"):
            # brackets included: Open MPI's hostfile has no node-set ranges (node[1-2])
            raise Refused("%s: Open MPI refuses the hostfile: %s is not a host name" % (where, host_excerpt(name)))
        count = None
        got_max = False
        for f in fields[1:]:
            key, eq, value = f.partition("=")
            kind = _OMPI_KEYS.get(key.lower()) if eq else "bad"
            if kind == "bad" or key.lower() not in _OMPI_KEYS:
                raise Refused("%s: Open MPI's hostfile parser does not know %s" % (where, excerpt(f, 24)))
            if kind == "slots":
                count = _slots(value, where)
            elif kind == "max_slots":
                maxs[name] = _slots(value, where)
                got_max = True
        if count is None and got_max:
            # hostfile.c: max_slots without slots sets the slots to max_slots
            count = maxs[name]
        if name not in slots:
            order.append(name)
            slots[name], explicit[name] = 0, False
        if count is not None:
            if explicit[name] or slots[name]:
                raise Refused("%s: Open MPI refuses the hostfile: node %s has its slot count defined more than "
                              "once (list it once per slot, or once with slots=N)" % (where, name))
            slots[name], explicit[name] = count, True
        else:
            if explicit[name]:
                raise Refused("%s: Open MPI refuses the hostfile: node %s has its slot count defined more than "
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
        words = line.split()
        first = words[0]
        for w in words[1:]:
            # Hydra's HYDU_process_mfile_token: after the host, only `ifhn=` is known
            # ("unrecognized mfile token"); Open MPI's `host slots=N` is refused
            if w.split("=", 1)[0] != "ifhn" or "=" not in w:
                raise Refused("%s: Hydra refuses the machinefile: unrecognized mfile token %s (it reads "
                              "'host:N', not 'host slots=N')" % (where, excerpt(w.split("=", 1)[0], 20)))
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
