#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/rdma_messages.json: what rdma-core's user-space verbs library
and its tools print, each turned into a bounded matcher and assigned to a knowledge family (rdma_state.toml,
rdma.toml) by the RULES tables below:

- libibverbs' own warnings and errors (libibverbs/*.c: fprintf(stderr, PFX "...") with PFX "libibverbs: ",
  libibverbs/ibverbs.h): "couldn't open config directory '%s'", "couldn't load driver '%s': %s",
  "no userspace device-specific driver found for %s", "RLIMIT_MEMLOCK is %llu bytes", ...;
- the messages of the verbs example tools that clusters run to look at their HCAs (libibverbs/examples:
  ibv_devinfo, ibv_devices, ibv_*_pingpong, ibv_asyncwatch: fprintf(stderr, "...") and perror("..."), which
  prints "<text>: <strerror>"): "No IB devices found", "Failed to get IB devices list: ...";
- the STATES those tools print, from their own tables: ibv_devinfo's port_state_str / port_phy_state_str
  (libibverbs/examples/devinfo.c: '\t\t\tstate:\t\t\t%s (%d)', '\t\t\tphys_state:\t\t%s (%d)', and the node
  GUID as guid_str's '%04x:%04x:%04x:%04x'), ibv_devices' '%-16s\t%016llx' node GUID rows
  (libibverbs/examples/device_list.c), and ibstat's port_state_str / port_phy_state_str arrays
  (infiniband-diags/ibstat.c: 'State: %s', 'Physical state: %s', 'Node GUID: 0x%016' PRIx64,
  'Port GUID: 0x%016' PRIx64), and ibstatus' 'state:' / 'phys state:' lines (infiniband-diags/scripts/ibstatus:
  the kernel's sysfs values, '1: DOWN', '2: Polling', from a table recorded in SYSFS_STATES). A state that is not the working one (a port not Active, a physical link not
  LinkUp, a GUID of zeros) is a site of its family; the working states are recorded with `healthy: true` and
  no family (rdma_state.toml's resolved_by reads them: a listing with an Active port is not a port that is
  down).

Usage:
    python tools/gen_rdma_messages.py --repo /path/to/rdma-core.git [--rev REV] [-o OUT]
    python tools/gen_rdma_messages.py --slice tools/data/rdma_messages_slice.txt -o OUT   (the test)

Source: linux-rdma/rdma-core (https://github.com/linux-rdma/rdma-core), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_rdma_messages.py"
SOURCE = ("linux-rdma/rdma-core (https://github.com/linux-rdma/rdma-core) libibverbs/*.c, libibverbs/examples/*.c, "
          "infiniband-diags/ibstat.c, infiniband-diags/scripts/ibstatus")
FILES_LIB = "libibverbs/"
FILES_TOOLS = "libibverbs/examples/"
IBSTAT = "infiniband-diags/ibstat.c"
IBSTATUS = "infiniband-diags/scripts/ibstatus"
# ibstatus prints the kernel's sysfs files as they are ('echo "\tstate:\t\t" `cat $port_dir/state`'): the kernel
# writes them as '%d: %s' (drivers/infiniband/core/sysfs.c state_show / phys_state_show) with the names of
# include/rdma/ib_verbs.h ib_port_state_to_str and ib_port_phys_state_str (https://github.com/torvalds/linux), a
# table recorded here (the kernel is not read by this generator)
SYSFS_STATES = [(1, "DOWN"), (2, "INIT"), (3, "ARMED"), (4, "ACTIVE")]
SYSFS_PHYS = [(1, "Sleep"), (2, "Polling"), (3, "Disabled"), (5, "LinkUp"), (6, "LinkErrorRecovery")]
PFX = "libibverbs: "
# A message's family, by its text and where it is printed: the first rule that matches wins.
RULES = [
    # read_config (dynamic_driver.c): IBV_CONFIG_DIR (/etc/libibverbs.d) holds one <name>.driver file per
    # provider; the providers' package installs it (Debian/Ubuntu ibverbs-providers, RHEL libibverbs/rdma-core).
    # Without it libibverbs loads no provider and finds no device.
    ("config-dir", "rdma.no_provider", {"text": r"couldn't open config directory"}),
    # ibverbs_get_device_list (init.c): a kernel device that no loaded provider claims
    ("no-provider", "rdma.no_provider", {"text": r"no userspace device-specific driver found"}),
    ("abi", "rdma.no_provider", {"text": r"does not support the kernel ABI|kernel ABI version %d doesn't match"}),
    # load_driver: one provider named in /etc/libibverbs.d is not installed; harmless when the NIC's own loads
    ("load-driver", "rdma.libibverbs_warning", {"text": r"couldn't load driver"}),
    # check_memlock_limit (init.c)
    ("memlock", "rdma.memlock", {"text": r"RLIMIT_MEMLOCK is"}),
    # the tools' queue pair transitions (ibv_modify_qp to INIT / RTR / RTS: the pingpong tools' pp_connect_ctx)
    ("modify-qp", "rdma.modify_qp", {"where": r"^libibverbs/examples/", "text": r"^Failed to modify (?:\w+ )?QP"}),
    # ibv_reg_mr refused: the locked-memory limit, most often (the pingpong tools' pp_init_ctx)
    ("reg-mr", "rdma.memlock", {"where": r"^libibverbs/examples/", "text": r"^Couldn't register MR"}),
    # the device listed but not usable by this process (ibv_open_device: /dev/infiniband/uverbsN missing or not
    # accessible in the container, ibv_query_port on it)
    ("open-device", "rdma.no_device", {"where": r"^libibverbs/examples/",
                                       "text": r"^Couldn't get context for %s"}),
    ("no-device", "rdma.no_device", {"where": r"^libibverbs/examples/",
                                     "text": r"^No IB devices found|^Failed to get IB devices? list|"
                                             r"^IB device %s not found|^IB device '%s' wasn't found"}),
]
STATE_RULES = [
    ("guid-zero", "rdma.vf_no_guid", {"field": r"guid", "value": r"^0+$"}),
    ("port-state", "rdma.port_down", {"field": r"^(?:state|State)$", "value": r"^(?:PORT_)?(?:DOWN|Down|INIT|"
                                                                              r"Initializing|ARMED|Armed)$"}),
    ("phys-state", "rdma.port_down", {"field": r"^(?:phys_state|phys state|Physical state)$",
                                      "value": r"^(?:SLEEP|Sleep|POLLING|Polling|DISABLED|Disabled|"
                                               r"LINK_ERROR_RECOVERY|LinkErrorRecovery)$"}),
]
HEALTHY = re.compile(r"^(?:PORT_ACTIVE|Active|ACTIVE|LINK_UP|LinkUp)$")

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"couldn't open config directory",
     "libibverbs found no /etc/libibverbs.d: the package of the user-space provider plugins (libmlx5, libmlx4, "
     "libefa, ... with their .driver files) is not installed in this system or image, so no RDMA device can be "
     "opened even where the kernel has one.",
     ["ls /etc/libibverbs.d/ /usr/lib/*/libibverbs/   (the provider plugins)",
      "install the provider plugins: apt-get install -y ibverbs-providers (Debian/Ubuntu; with libibverbs1 "
      "ibverbs-utils), dnf install -y libibverbs rdma-core (RHEL/Rocky); in a container image, add them to the "
      "Dockerfile"]),
    (r"no userspace device-specific driver found",
     "The kernel has this RDMA device, but no installed user-space provider plugin claims it: the provider "
     "package for this NIC (libmlx5 for ConnectX) is missing or too old.",
     ["ls /etc/libibverbs.d/; ls /usr/lib/*/libibverbs/",
      "install ibverbs-providers (Debian/Ubuntu) or rdma-core/libibverbs (RHEL) of a release that knows this NIC"]),
]

_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(fprintf|perror)\s*\(")


def literal(arg, pfx=""):
    """The string of an argument made of adjacent literals only ("a" "b", PFX "a"), else None."""
    arg = arg.strip()
    lead = ""
    if pfx and arg.startswith("PFX"):
        arg, lead = arg[3:], pfx
    rest = knowgen.C_STRING.sub("", arg)
    if rest.strip() or '"' not in arg:
        return None
    return lead + "".join(knowgen.c_unescape(m) for m in knowgen.C_STRING.findall(arg))


def sites_of(path, src):
    """(call, where, format) of each message to stderr in a file."""
    tool = path.startswith(FILES_TOOLS)
    for m in _CALL.finditer(src):
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        if m.group(1) == "perror":
            fmt = literal(args[0])
            if fmt:
                fmt += ": %s"  # perror(3): '<s>: <strerror(errno)>'
        else:
            if len(args) < 2 or args[0].strip() != "stderr":
                continue
            fmt = literal(args[1], "" if tool else PFX)
            if fmt and not tool and not fmt.startswith(PFX):
                continue  # a library line without the libibverbs prefix (a debug dump)
        if not fmt or not fmt.strip():
            continue
        yield m.group(1), "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt.strip("\n").split("\n")[0]


def cases(src, func):
    """[(value, string)] of a `switch` function that returns a literal per case (devinfo.c's *_str)."""
    m = re.search(r"\b%s\s*\([^)]*\)\s*\{(.*?)\n\}" % re.escape(func), src, re.S)
    if not m:
        return []
    return re.findall(r"case\s+(\w+)\s*:\s*return\s+\"([^\"]*)\"", m.group(1))


def array(src, name):
    """[(index, string)] of a C array of literals (ibstat.c's port_state_str[])."""
    m = re.search(r"\b%s\s*\[\]\s*=\s*\{(.*?)\};" % re.escape(name), src, re.S)
    return list(enumerate(re.findall(r"\"([^\"]*)\"", m.group(1)))) if m else []


def _num(value, index):
    """The number devinfo prints after a state: the enum's value (IBV_PORT_DOWN = 1, ...) or the case's."""
    if value.isdigit():
        return int(value)
    return {"IBV_PORT_NOP": 0, "IBV_PORT_DOWN": 1, "IBV_PORT_INIT": 2, "IBV_PORT_ARMED": 3,
            "IBV_PORT_ACTIVE": 4, "IBV_PORT_ACTIVE_DEFER": 5}.get(value, index)


def state_sites(by_path):
    """The state lines of ibv_devinfo, ibv_devices and ibstat, one site per (tool, field, state)."""
    out = []
    dev = by_path.get(FILES_TOOLS + "devinfo.c", "")
    for func, field in (("port_state_str", "state"), ("port_phy_state_str", "phys_state")):
        for i, (value, text) in enumerate(cases(dev, func)):
            n = _num(value, i)
            # devinfo.c: printf("\t\t\t%s:\t\t\t%s (%d)\n", ...): a line of its own
            rx = r"^[ \t]{0,40}%s:[ \t]{1,40}%s \(%d\)" % (re.escape(field), re.escape(text), n)
            out.append(("ibv_devinfo", field, text, "%s:\t%s (%d)" % (field, text, n), rx,
                        FILES_TOOLS + "devinfo.c:" + func))
    if "guid_str" in dev:
        # guid_str: '%04x:%04x:%04x:%04x' of the node GUID after 'node_guid:'
        out.append(("ibv_devinfo", "node_guid", "0000", "node_guid:\t0000:0000:0000:0000",
                    r"^[ \t]{0,40}node_guid:[ \t]{1,40}0000:0000:0000:0000\b", FILES_TOOLS + "devinfo.c:guid_str"))
    lst = by_path.get(FILES_TOOLS + "device_list.c", "")
    if "node GUID" in lst:
        # device_list.c: printf("    %-16s\t%016llx\n", ibv_get_device_name(...), be64toh(guid)) under the
        # header '    device\t\t   node GUID'
        out.append(("ibv_devices", "node GUID", "0000000000000000", "%-16s\t0000000000000000",
                    r"^[ \t]{0,40}[A-Za-z][\w.-]{0,40}[ \t]{1,40}0000000000000000[ \t]{0,8}$",
                    FILES_TOOLS + "device_list.c"))
    st = by_path.get(IBSTAT, "")
    for name, field in (("port_state_str", "State"), ("port_phy_state_str", "Physical state")):
        for i, text in array(st, name):
            if i == 0:
                continue  # "???" / "No state change": never printed for a real port
            rx = r"^[ \t]{0,40}%s: %s(?![\w-])" % (re.escape(field), re.escape(text))
            out.append(("ibstat", field, text, "%s: %s" % (field, text), rx, IBSTAT + ":" + name))
    script = by_path.get(IBSTATUS, "")
    for field, table in (("state", SYSFS_STATES), ("phys state", SYSFS_PHYS)):
        if not re.search(r"echo \"\t%s:\t" % re.escape(field), script):
            continue
        for n, text in table:
            rx = r"^[ \t]{0,40}%s:[ \t]{1,40}%d: %s(?![\w-])" % (re.escape(field), n, re.escape(text))
            out.append(("ibstatus", field, text.upper() if field == "state" else text, "%s:\t%d: %s" % (field, n, text),
                        rx, IBSTATUS))
    for label in ("Node GUID", "Port GUID"):
        if label + ": 0x%016" in st:
            out.append(("ibstat", label, "0000000000000000", "%s: 0x0000000000000000" % label,
                        r"^[ \t]{0,40}%s: 0x0000000000000000(?!\w)" % label, IBSTAT))
    return out


def build(files, version):
    by_path = {}
    for path, src in files:  # a slice may hold several parts of one file
        by_path[path] = by_path.get(path, "") + src
    sites, seen, ids = [], set(), set()
    for path, src in files:
        if not path.endswith(".c") or not path.startswith(FILES_LIB):
            continue
        if "/" in path[len(FILES_LIB):] and not path.startswith(FILES_TOOLS):
            continue  # libibverbs/man, /neigh ... : only the library's own files and its example tools
        for call, where, fmt in sites_of(path, src):
            key = (fmt, path.startswith(FILES_TOOLS))  # a message the tools share: its first site
            if key in seen:
                continue
            seen.add(key)
            rx, lit = knowgen.printf_to_regex(fmt)
            site = {"id": knowgen.unique_id("rdma.msg.%s" % knowgen.slug(where), ids), "where": where,
                    "level": call, "text": fmt}
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    for tool, field, value, text, rx, where in state_sites(by_path):
        site = {"id": knowgen.unique_id("rdma.state.%s" % knowgen.slug("%s %s %s" % (tool, field, value)), ids),
                "where": where, "program": tool, "field": field, "value": value, "text": text, "re": rx}
        if HEALTHY.match(value):
            site.update({"healthy": True, "family": None, "rule": "healthy state: not a failure"})
        else:
            rule, family = knowgen.assign(STATE_RULES, site, {"field": field, "value": value})
            site.update({"family": family, "rule": rule})
        sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "libibverbs' warnings, the verbs tools' messages, and the port states and "
                                     "GUIDs ibv_devinfo, ibv_devices, ibstat and ibstatus print; families from the RULES "
                                     "tables of the generator (a healthy state has none)"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, (FILES_LIB.rstrip("/"),), lambda p: p.endswith(".c") and (
        p.count("/") == 1 or p.startswith(FILES_TOOLS)))
    files.append((IBSTAT, git("show", "%s:%s" % (rev, IBSTAT))))
    files.append((IBSTATUS, git("show", "%s:%s" % (rev, IBSTATUS))))
    return files, knowgen.revision(git, rev, untagged="?")


def main(argv):
    a = knowgen.arguments(__doc__, argv, "repo", rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("rdma_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
