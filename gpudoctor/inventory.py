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

from gpudoctor.errors import InputError, excerpt, host_excerpt, read_input
from gpudoctor.record import Record

_NAME = re.compile(r"^[A-Za-z0-9_.\-\[\],@]+\Z")


class Host(Record):
    _fields = ("name", "slots", "source")

    def __init__(self, name, slots=None, source=""):
        self.name = name
        self.slots = slots  # int or None
        self.source = source  # "hostfile:LINE", "nodeset", "slurm"


MAX_SLOTS = 1 << 16  # slots per host; Open MPI and DeepSpeed take any int, no node has 65,536 GPUs
MAX_HOSTFILE_BYTES = 16 << 20  # 16 MiB: a 100,000-node hostfile is ~2 MB


def _line_excerpt(raw):
    """The start of an offending line, bounded: a file in /etc/shadow format named by
    mistake must not print its password hashes into a log."""
    text = raw.strip()
    return host_excerpt(text.split(None, 1)[0] if text else "", 24)


def _count(value):
    """A slot count: ASCII digits only, bounded. str.isdigit() accepts '²' and other
    Unicode digits that int() refuses, and a 4,301-digit count passes isdigit() but
    int() refuses it (Python's int-from-string limit)."""
    if not value or len(value) > 6 or not all("0" <= c <= "9" for c in value):
        return None
    n = int(value)
    return n if n <= MAX_SLOTS else None


# The keys each launcher's hostfile takes after the host (one fan-out reads them all): DeepSpeed's slots=; Open MPI
# 4.1's hostfile_lex.l: slots/count/cpu, twelve spellings of the maximum, username (https://github.com/open-mpi/ompi/
# blob/v4.1.4/orte/util/hostfile/hostfile_lex.l); MPICH Hydra's ifhn= (the interface to reach the host by)
_SLOT_KEYS = ("slots", "slot", "count", "cpu")
_MAX_KEYS = ("max_slots", "max-slots", "slots_max", "slots-max", "cpu_max", "cpu-max", "max_cpu", "max-cpu",
             "count_max", "count-max", "max_count", "max-count")
_USER_KEYS = ("username", "user_name", "user-name")


def parse_hostfile(text, path="hostfile"):
    hosts, seen = [], {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = re.split(r"#|//", raw, 1)[0].strip()  # '//' starts a comment in Open MPI's hostfile too
        if not line:
            continue
        line = re.sub(r"\s*=\s*", "=", line)  # Open MPI skips blanks around '=' ('aa slots = 4')
        fields = line.split()
        name, slots = fields[0], None
        where = "%s:%d" % (path, lineno)
        if ":" in name and "[" not in name:
            name, _, count = name.partition(":")
            slots = _count(count)
            if slots is None:
                raise InputError("%s: host %s: the count after ':' must be a number from 0 to %d"
                                 % (where, _line_excerpt(raw), MAX_SLOTS))
        user = None
        for extra in fields[1:]:
            key, eq, value = extra.partition("=")
            if not eq or key not in _SLOT_KEYS + _MAX_KEYS + _USER_KEYS + ("ifhn",):
                raise InputError("%s: host %s: expected 'HOST slots=N' (or HOST:N, or HOST)"
                                 % (where, _line_excerpt(raw)))
            if key in _USER_KEYS:
                user = value  # Open MPI's ssh user for this host: checked as user@host
                continue
            if key == "ifhn":
                continue
            count = _count(value)
            if count is None:
                raise InputError("%s: %s=%s is not a number (0 to %d)" % (where, key, excerpt(value, 12), MAX_SLOTS))
            if key in _SLOT_KEYS:
                slots = count
        if not _NAME.match(name):
            raise InputError("%s: %s is not a host name" % (where, _line_excerpt(raw)))
        names = [name]
        if "[" in name:
            from gpudoctor.nodes import expand

            names = expand(name)
        for n in names:
            if user and "@" not in n:
                n = "%s@%s" % (user, n)
            if n in seen:
                # Open MPI and MPICH list a host once per slot ("list a node multiple times, once for each slot",
                # Open MPI's help-hostfile.txt): one node to check, its lines' slots added (1 for a line without)
                h = seen[n]
                h.slots = (h.slots if h.slots is not None else 1) + (slots if slots is not None else 1)
                continue
            seen[n] = Host(name=n, slots=slots, source=where)
            hosts.append(seen[n])
    return hosts


def refuse_bom(text, path):
    """Notepad and some editors start a UTF-8 file with a byte order mark; DeepSpeed (runner.py _parse_hostfile),
    pdsh and mpirun read it as part of the first host's name, which then resolves nowhere. Refused with what it is
    (userwalk22: the refusal said "'' (cut at a character no host name has) is not a host name")."""
    if text.startswith("\ufeff"):
        from gpudoctor.fixline import sh

        raise InputError("hostfile %s starts with a UTF-8 byte order mark (an editor such as Notepad writes one): "
                         "the launchers read it as part of the first host name; remove it: sed -i '1s/^\\xEF\\xBB"
                         "\\xBF//' %s" % (path, sh(path)))


def read_hostfile(path):
    data = read_input(path, "hostfile", limit=MAX_HOSTFILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("hostfile %s is not text (UTF-8)" % path)
    refuse_bom(text, path)
    hosts = parse_hostfile(text, path)
    if not hosts:
        raise InputError("hostfile %s names no host" % path)
    return hosts


# One rule for every host name, whatever its source (hostfile, --nodes, $SLURM_JOB_NODELIST,
# facts files, the mesh and rendezvous rounds): a name reaches ssh's argument list, ssh
# config's `Match exec "... %h ..."` (run by a shell, as root in a prolog), srun's
# --nodelist and file names. RFC 1123 section 2.1 host names (letters, digits, '-', '.'),
# plus '_' (ssh aliases and /etc/hosts accept it), IPv4/IPv6 literals (with a %zone), and
# an optional `user@`. Never a leading '-' (ssh would read an option: -oProxyCommand=...),
# never a space, quote, shell metacharacter or control character. Empty or over-long DNS
# labels ('x..y', 64 characters) are not refused here: they cannot be looked up, and the
# transport reports that node as `resolve` while the others are checked.
_HOST_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,252}\Z")
_USER_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,31}\Z")
_ZONE_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,32}\Z")
MAX_NODES = 10000  # --max-nodes: 100,000 node names took ~50 minutes before this bound


def valid_host(name):
    """True when `name` passes the one host-name rule (see above)."""
    import ipaddress

    if not isinstance(name, str) or not name or len(name) > 300:
        return False
    user, at, host = name.rpartition("@")
    if at and not _USER_RE.match(user):
        return False
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    addr, pct, zone = host.partition("%")
    if ":" in addr or (addr[:1].isdigit() and addr.replace(".", "").isdigit()):
        try:
            ipaddress.ip_address(addr)
        except ValueError:
            return False
        return not pct or bool(_ZONE_RE.match(zone))
    return not pct and bool(_HOST_RE.match(host))


def validate_host(name, source="host"):
    """`name` if it passes the one rule; else an InputError (exit 2) naming the source."""
    if not valid_host(name):
        raise InputError("%s: %s is not a host name (letters, digits, '-', '.', '_' or an IP address, optionally "
                         "user@; never starting with '-')" % (source, host_excerpt(name)))
    return name


def _expand_bounded(pattern, what, limit):
    """A node set's names, refused before expansion when it names more than `limit`."""
    from gpudoctor.errors import excerpt
    from gpudoctor.nodes import _plain_indexes, expand, refuse_groups

    if not pattern.strip():
        raise InputError("%s is empty: name at least one node (or leave it out to check this machine)" % what)
    if len(pattern) > 100000:
        raise InputError("%s is %d characters long: too long for a node set" % (what, len(pattern)))
    refuse_groups(pattern)
    from gpudoctor.nodes import count_bound

    bound = count_bound(pattern)
    if bound is not None and bound > limit:  # counted from the text: NodeSet would build every index first
        raise InputError("%s names %d nodes, more than --max-nodes %d" % (what, bound, limit))
    plain = _plain_indexes(pattern)  # 'sn[1-64]' without importing ClusterShell (nodes.py says why)
    if plain is not None:
        if len(plain[1]) > limit:
            raise InputError("%s names %d nodes, more than --max-nodes %d" % (what, len(plain[1]), limit))
        return expand(pattern)
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError

    try:
        count = len(NodeSet(pattern))
    except (NodeSetParseError, ValueError, RecursionError) as exc:
        raise InputError("%s: %s is not a node set: %s" % (what, excerpt(pattern), excerpt(str(exc), 120)))
    except Exception as exc:  # ClusterShell's own limits: AssertionError("range too large") past 10^9,
        # GroupResolverSourceError for an @group no groups.conf defines
        raise InputError("%s: %s is not a node set ClusterShell can expand: %s: %s"
                         % (what, excerpt(pattern), type(exc).__name__, excerpt(str(exc), 120)))
    if count > limit:
        raise InputError("%s names %d nodes, more than --max-nodes %d" % (what, count, limit))
    if count == 0:  # 'a&b' (an empty intersection): never "this machine" by accident
        raise InputError("%s: %s names no node" % (what, excerpt(pattern)))
    return expand(pattern)


def resolve(hosts_file=None, nodeset=None, environ=None, max_nodes=None):
    """Hosts from --hosts and --nodes; with neither, $SLURM_JOB_NODELIST inside an allocation;
    an empty list means 'this machine'. Every name passes validate_host; more than
    `max_nodes` (default MAX_NODES) is an input error."""
    environ = os.environ if environ is None else environ
    limit = MAX_NODES if max_nodes is None else max_nodes
    hosts = []
    if hosts_file:
        hosts.extend(read_hostfile(hosts_file))
    if nodeset is not None:
        hosts.extend(Host(name=n, source="--nodes") for n in _expand_bounded(nodeset, "--nodes", limit))
    # Inside an allocation (salloc/sbatch) the job's nodes are the default; never inside a
    # prolog/epilog (SLURM_SCRIPT_CONTEXT), where each node checks only itself.
    # A heterogeneous job sets no $SLURM_JOB_NODELIST: its components' node sets together
    # (transport.job_nodelist; such a job was checked as this machine alone).
    # A task of `srun -N3` in a 4-node job: the step's nodes (transport.default_nodelist).
    from gpudoctor.transport import default_nodelist

    job_nodes, job_source = default_nodelist(environ)
    if not hosts_file and nodeset is None and job_nodes and not environ.get("SLURM_SCRIPT_CONTEXT"):
        hosts.extend(Host(name=n, source=job_source if job_source == "$SLURM_STEP_NODELIST" else "$SLURM_JOB_NODELIST")
                     for n in _expand_bounded(job_nodes, job_source, limit))
    if len(hosts) > limit:
        raise InputError("%d nodes named, more than --max-nodes %d" % (len(hosts), limit))
    seen, out = set(), []
    for h in hosts:
        validate_host(h.name, h.source)
        if h.name in seen:
            raise InputError("host %s is named twice (%s)" % (h.name, h.source))
        seen.add(h.name)
        out.append(h)
    return out
