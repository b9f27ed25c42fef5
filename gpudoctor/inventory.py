"""Which nodes to check: the hostfiles users already have, node sets, Slurm allocations.

Accepted hostfile lines (comments with #, blank lines ignored):
    gpu1 slots=8                 DeepSpeed / pdsh
    gpu1 slots=8 max_slots=8     Open MPI
    gpu1:8                       MPICH / horovod -H style
    gpu1                         plain list
    gpu[01-16] slots=8           a node set, expanded
"""

import os
import re
from dataclasses import dataclass
from typing import List, Optional

from gpudoctor.errors import InputError, read_input

_NAME = re.compile(r"^[A-Za-z0-9_.\-\[\],@]+$")


@dataclass
class Host:
    name: str
    slots: Optional[int] = None
    source: str = ""  # "hostfile:LINE", "nodeset", "slurm"


def parse_hostfile(text, path="hostfile") -> List[Host]:
    hosts = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        name, slots = fields[0], None
        if ":" in name and "[" not in name:
            name, _, count = name.partition(":")
            if not count.isdigit():
                raise InputError("%s:%d: %r: the count after ':' must be a number" % (path, lineno, raw.strip()))
            slots = int(count)
        for extra in fields[1:]:
            key, eq, value = extra.partition("=")
            if not eq or key not in ("slots", "max_slots", "max-slots", "slot"):
                raise InputError("%s:%d: %r: expected 'HOST slots=N' (or HOST:N, or HOST)" % (path, lineno, raw.strip()))
            if not value.isdigit():
                raise InputError("%s:%d: %s=%r is not a number" % (path, lineno, key, value))
            if key in ("slots", "slot"):
                slots = int(value)
        if not _NAME.match(name):
            raise InputError("%s:%d: %r is not a host name" % (path, lineno, name))
        names = [name]
        if "[" in name:
            from gpudoctor.nodes import expand

            names = expand(name)
        for n in names:
            hosts.append(Host(name=n, slots=slots, source="%s:%d" % (path, lineno)))
    return hosts


def read_hostfile(path) -> List[Host]:
    data = read_input(path, "hostfile")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("hostfile %s is not text (UTF-8)" % path)
    hosts = parse_hostfile(text, path)
    if not hosts:
        raise InputError("hostfile %s names no host" % path)
    return hosts


def resolve(hosts_file=None, nodeset=None, environ=None) -> List[Host]:
    """Hosts from --hosts and --nodes; with neither, $SLURM_JOB_NODELIST inside an allocation;
    an empty list means 'this machine'."""
    from gpudoctor.nodes import expand

    environ = os.environ if environ is None else environ
    hosts = []
    if hosts_file:
        hosts.extend(read_hostfile(hosts_file))
    if nodeset:
        hosts.extend(Host(name=n, source="nodeset") for n in expand(nodeset))
    # Inside an allocation (salloc/sbatch) the job's nodes are the default; never inside a
    # prolog/epilog (SLURM_SCRIPT_CONTEXT), where each node checks only itself.
    if not hosts_file and not nodeset and environ.get("SLURM_JOB_NODELIST") and not environ.get("SLURM_SCRIPT_CONTEXT"):
        hosts.extend(Host(name=n, source="slurm") for n in expand(environ["SLURM_JOB_NODELIST"]))
    seen, out = set(), []
    for h in hosts:
        if h.name in seen:
            raise InputError("host %s is named twice (%s)" % (h.name, h.source))
        seen.add(h.name)
        out.append(h)
    return out
