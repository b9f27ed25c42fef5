#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nvidia_smi_messages.json: what nvidia-smi itself prints when it
fails (its own messages, not NVML's codes: those are nvml.json), read from the binary of Debian's non-free
`nvidia-smi` package, and the names `--query-gpu` accepts (its --help-query-gpu table), so that a bad field
gets the valid ones.

- messages: the printable strings of the binary (`strings -n 8`, knowgen.binary_strings) that report a failure
  (MESSAGE below: 'Unable to ...', 'Failed to ...', '... is not supported ...', 'No devices were found' ...),
  each a printf format (nvidia-smi prints them with printf), matched with a bounded regex and assigned to a
  knowledge family by RULES; the rest is listed as unassigned;
- query fields: the binary is not position independent, so its --query-gpu table (in .data: one record of
  nine 8-byte words per field: the name, an alternative name, ..., the function that prints it, the help
  text) holds plain addresses into .rodata. The table is the run of records that starts with 'timestamp'
  followed by 'driver_version' (the order --help-query-gpu prints); a record whose function is 0 is a
  section heading ('clocks', 'driver_model'), not a field.

Usage:
    python tools/gen_nvidia_smi_messages.py --deb nvidia-smi_535.261.03-1_amd64.deb [-o OUT]
        (apt-get download nvidia-smi, with bookworm's non-free component in the sources)
    python tools/gen_nvidia_smi_messages.py --slice tools/data/nvidia_smi_messages_slice.txt -o OUT   (the test)

Source: Debian bookworm non-free `nvidia-smi` (https://packages.debian.org/bookworm/nvidia-smi), the
nvidia-graphics-drivers source package's binary /usr/lib/nvidia/current/nvidia-smi; its man page nvidia-smi.1
and https://docs.nvidia.com/deploy/nvidia-smi/index.html describe the options. A slice holds `=== messages`
(one format a line) and `=== fields` (`name<TAB>alternative name` a line) as the binary gave them.
"""

import io
import lzma
import os
import re
import struct
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nvidia_smi_messages.py"
BINARY = "./usr/lib/nvidia/current/nvidia-smi"

# a string of the binary that reports a failure (its help texts and table headings do not)
MESSAGE = re.compile(r"^(?:Unable to|Failed to|Failed |Error |ERROR: |Couldn't|Could not|Cannot |Invalid |"
                     r"No devices|No MIG-enabled|NVIDIA-SMI has failed|NVIDIA-SMI couldn't|Mismatch|Warning: |WARNING: |Only one |"
                     r"Setting |Changing |Resetting |Clearing |Specified clock|GPU Reset couldn't|GPU is lost|"
                     r"Provided |The current user does not|Field \"|%s : not a valid|Format modifier|\"--format=\"|"
                     r"The following GPUs could not be reset)"
                     r"|is not supported|not supported for|currently being used by one or more other processes|"
                     r"is (?:the primary GPU and cannot be reset|currently in use by another process)|"
                     r"did not complete reset successfully")
# strings nvidia-smi keeps of NVML's own error texts (nvmlErrorString): nvml.json has them
NVML_STRINGS = re.compile(r"^(?:Invalid Argument|Insufficient (?:Permissions|Size|External Power|Memory|Resources)|"
                          r"GPU is lost|GPU requires reset|vGPU ECC not supported|Invalid Frequency|Invalid argument|"
                          r"Invalid device\.)$")

# (rule, knowledge entry, {field: regex}); fields: text. The first that matches wins.
RULES = [
    ("nvml-string", None, {"text": NVML_STRINGS.pattern}),
    # its monitoring daemon's internals (nvsmi/stats/*.c): nothing a user acts on from the line alone
    ("stats-internal", None, {"text": r"^(?:Error %d from|Error in |ERROR nvsmi/|Failed to (?:Initialize|Run) "
                                      r"Monitor|[a-zA-Z]{1,40} failed$|Unable to create thread)"}),
    ("no-driver", "gpu.driver_not_loaded", {"text": r"^NVIDIA-SMI has failed because it couldn't communicate"}),
    ("no-nvml", "container.no_driver_libs", {"text": r"^NVIDIA-SMI couldn't find %s library|^Please also try adding"}),
    ("nvml-version", "nvml.mismatch", {"text": r"^Mismatch in (?:versions between nvidia-smi and NVML|expected NVML)"}),
    ("no-devices", "gpu.no_devices", {"text": r"^No devices were found"}),
    ("lost", "gpu.xid.fallen_off_bus", {"text": r"^GPU is lost\.  Reboot"}),
    ("power", "cuda.gpu_hardware", {"text": r"insufficiently powered"}),
    ("usage", "nvidia_smi.usage", {"text": r"not a valid field to query|^Format modifier|\"--format=\" switch|"
                                           r"^Only one --query|^ERROR: (?:Option|Only one command)|"
                                           r"^Invalid combination of input arguments|^Invalid input arguments|"
                                           r"^Option \"%s\" is (?:not recognized|missing)|"
                                           r"^Invalid PCI bus id format|must be used in conjunction with|^Provided power limit|"
                                           r"^Specified clocks \"%s\" are not valid"}),
    ("permission", "nvidia_smi.permission", {"text": r"does not have permissions? to change|Check permissions"}),
    ("reset", "nvidia_smi.reset", {"text": r"^GPU Reset couldn't|^Unable to reset GPU|^Resetting GPU %s is not "
                                           r"supported|^Error (?:encountered|occurred) during reset of GPU|"
                                           # -r's refusals when something holds the GPU (the list header, the
                                           # count line, the per-GPU lines) and -mig's 'pending until reset' line
                                           r"^The following GPUs could not be reset|currently being used by one or "
                                           r"more other processes|is the primary GPU and cannot be reset|"
                                           r"is currently in use by another process|did not complete reset"}),
    # ('instace': the binary's own spelling of one message)
    ("mig", "nvidia_smi.mig", {"text": r"MIG Mode|MIG mode is in pending|GPU instance|GPU instace|compute instance|"
                                       r"^No MIG-enabled"}),
    ("not-supported", "nvidia_smi.not_supported", {"text": r"is not supported|not supported for GPU|"
                                                           r"on a MIG-enabled device|Specified clock"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    # a 16-byte piece (chunks() below): the message 'No MIG-enabled devices found.' of nvidia-smi mig -lgi / -lci
    # and of a MIG device selection, printed when no GPU of the node is in MIG mode (mig.mode.current Disabled);
    # https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html (enable MIG: nvidia-smi -i N -mig 1)
    (r"^No MIG-enabled d",
     "nvidia-smi found no GPU in MIG mode (nvidia-smi mig -lgi / -lci, or a job that selects MIG instances by "
     "their MIG-<uuid>): MIG mode is Disabled on these GPUs (nvidia-smi --query-gpu=mig.mode.current).",
     ["run on a node whose GPUs are in MIG mode (enabling it is an admin action: nvidia-smi -i <gpu> -mig 1, then a "
      "GPU reset, and the GPU and compute instances created), or drop the MIG selection and use whole GPUs"]),
    (r"^Field \"%s\" is not a valid field to query\.$",
     "nvidia-smi --query-gpu was given the name {%1|<field>}, which this nvidia-smi does not know: a typo, a "
     "name of another --query-* switch (--query-compute-apps has pid, used_memory), or a name newer than the "
     "node's driver (clocks_event_reasons.* replaced clocks_throttle_reasons.* in 535; older drivers know only "
     "the old names).",
     ["nvidia-smi --help-query-gpu   (the names this node's driver accepts; use those, comma-separated, no "
      "blanks)", "nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,memory.used,"
      "utilization.gpu,temperature.gpu --format=csv"]),
    (r"^%s : not a valid field to query\.$",
     "{%1|A name} given to a --query-* switch is not one of its fields.",
     ["nvidia-smi --help-query-gpu (or --help-query-compute-apps ...) lists the names the switch takes"]),
    (r"^Format modifier is not recognized\.$",
     "--format takes csv, optionally with noheader and nounits (--format=csv,noheader,nounits); anything else "
     "is refused.",
     ["nvidia-smi --query-gpu=... --format=csv,noheader,nounits"]),
    (r"^(?:Format modifier --format=csv is mandatory\.|\"--format=\" switch is missing\.)",
     "a --query-* switch needs --format=csv (nvidia-smi prints query results only as CSV).",
     ["add --format=csv (or --format=csv,noheader,nounits) to the same nvidia-smi command"]),
    (r"^NVIDIA-SMI couldn't find %s library",
     "nvidia-smi could not load {%1|libnvidia-ml.so}: the NVIDIA driver's user-space library is not on this "
     "machine or not on the loader path (a container started without the NVIDIA runtime, a driver installed "
     "without its libraries, nvidia-smi copied from another machine).",
     ["ldconfig -p | grep libnvidia-ml   (the host's driver installs it)", "in a container: docker run --gpus all "
      "... (the NVIDIA container toolkit mounts the host's libnvidia-ml.so.1; never install a driver in the "
      "image)"]),
    (r"^No devices were found\. Please make sure /dev/nvidia\* files are readable",
     "NVML found GPUs but this user may not open their device files /dev/nvidia*.",
     ["ls -l /dev/nvidia*   (mode 0666 or a group the user is in)", "the admin loads nvidia with "
      "NVreg_DeviceFileMode=0666 (or adds the user to the video group); in a container: --gpus or --device "
      "/dev/nvidia0 ..."]),
    (r"^The current user does not have permissions? to change",
     "changing clocks (or the CUDA clock mode) needs root: nvidia-smi ran as a user.",
     ["sudo nvidia-smi ...  (or the admin allows it: nvidia-smi -acp UNRESTRICTED for application clocks)"]),
    (r"^Unable to communicate with GPU %s\.  Check permissions\.$",
     "nvidia-smi may not open the device file of GPU {%1|<gpu>} as this user.",
     ["ls -l /dev/nvidia*; run as root, or give the user access (NVreg_DeviceFileMode / the video group)"]),
    (r"^GPU Reset couldn't run because it failed to allocate",
     "nvidia-smi could not gather the GPUs that must be reset together.",
     ["stop every process using the GPUs (nvidia-smi --query-compute-apps=pid --format=csv; systemctl stop "
      "nvidia-persistenced dcgm nvidia-fabricmanager), then nvidia-smi -r -i <gpu> again"]),
    # -r's refusal when the GPUs are open: the man page's -r (nvidia-smi.1: 'There can't be any applications using
    # these devices (e.g. CUDA application, graphics application like X server, monitoring application like other
    # instance of nvidia-smi)'); the display stack's kernel module nvidia_drm counts as such a user: NVIDIA's
    # mig-parted README, Known Issues (https://github.com/NVIDIA/mig-parted#known-issues: the reset that toggles MIG
    # mode fails while nvidia_drm is loaded; unload it before, load it after)
    (r"^(?:%u %s currently being used by one or more other processes \(e\.g\., Fabric Manager|"
     r"The following GPUs could not be reset|GPU %s is currently in use by another process)",
     "nvidia-smi -r (or a tool that resets GPUs to change MIG mode: nvidia-mig-parted, the GPU operator's MIG "
     "manager) refused: something still has the GPUs open. Besides a CUDA process, nvidia-persistenced, DCGM, the "
     "fabric manager or a monitoring agent, the display stack holds them: with the nvidia_drm kernel module loaded "
     "(a desktop, a framebuffer console, modeset=1) every GPU stays open and the reset is refused even when "
     "nvidia-smi lists no process.",
     ["sudo fuser -v /dev/nvidia*; lsmod | grep -E '^nvidia_(drm|modeset)'   (who holds the GPUs; whether "
      "nvidia_drm is loaded)",
      "stop what holds them (sudo systemctl stop nvidia-persistenced nvidia-dcgm nvidia-fabricmanager, or nvidia-smi "
      "-pm 0 -i <gpu> for persistence mode; the display manager), unload the display module: sudo rmmod nvidia_drm (then nvidia_modeset), reset or apply the MIG "
      "configuration, then sudo modprobe nvidia_drm; or reboot the node"]),
    (r"^%s is currently being used by one or more other processes \(e\.g\. CUDA application",
     "the MIG mode change is recorded but needs a GPU reset, which is refused while a process (or the display "
     "module nvidia_drm) has the GPU open.",
     ["sudo fuser -v /dev/nvidia*; stop those processes; sudo rmmod nvidia_drm if it is loaded; then nvidia-smi -r "
      "-i <gpu> (and sudo modprobe nvidia_drm after); or reboot the node"]),
    (r"^GPU %s is the primary GPU and cannot be reset|^GPU Reset couldn't run because GPU %s is the primary GPU",
     "the GPU is the system's primary (boot / console display) GPU, which nvidia-smi does not reset.",
     ["reboot the node to clear the GPU's state; or reset only the other GPUs (nvidia-smi -r -i <others>); on a "
      "machine with a display, make another adapter the primary one (firmware setting)"]),
    (r"^GPU Reset couldn't progress because the specified devices do not meet the reset criterion",
     "the GPUs are linked (NVLink/NVSwitch) and must be reset together: nvidia-smi lists which ones to add.",
     ["nvidia-smi -r with every GPU the message lists (-i 0,1,2,...), after stopping the processes on them; "
      "or reboot the node"]),
    (r"^Provided power limit %\.2f W is not a valid power limit",
     "the power limit {%1|asked} is outside this GPU's range ({%2|min} W to {%3|max} W).",
     ["nvidia-smi -q -d POWER   (Min/Max Power Limit); nvidia-smi -pl <watts in that range> as root"]),
    (r"^Specified clock combination",
     "the clocks asked for are not a combination this GPU supports.",
     ["nvidia-smi -q -d SUPPORTED_CLOCKS   (the pairs it takes); then nvidia-smi -ac <mem>,<sm> or -lgc "
      "<min>,<max> with one of them"]),
    (r"^Warning: MIG mode is in pending %s state for GPU %s:%s$",
     "the MIG mode change of GPU {%2|<gpu>} is recorded but takes effect only after the GPU is reset: "
     "processes still hold it.",
     ["stop the processes on the GPU (and nvidia-persistenced, dcgm, fabric manager), then nvidia-smi -r -i "
      "{%2|<gpu>}; or reboot the node"]),
    (r"^Unable to create a GPU instace on GPU %2u using profile %s: invalid placement syntax$",
     "the placement given with the profile {%2|<profile>} is not the syntax nvidia-smi mig takes.",
     ["nvidia-smi mig -lgipp   (the possible placements); nvidia-smi mig -cgi <profile>:<start> -C"]),
    (r"^Unable to create a GPU instance on GPU %2u using profile %s: %s$",
     "GPU {%1|<gpu>} could not create a GPU instance of profile {%2|<profile>}: {%3|the reason} (MIG not "
     "enabled on it, no free slice left for that profile, or a profile of another GPU model).",
     ["nvidia-smi -i {%1|<gpu>} --query-gpu=mig.mode.current --format=csv   (Enabled?)",
      "nvidia-smi mig -lgip   (profiles and free instances); nvidia-smi mig -lgi; destroy unused ones: "
      "nvidia-smi mig -dci && nvidia-smi mig -dgi"]),
]


def elf_sections(data):
    """{name: (address, file offset, size)} of an ELF64 little-endian file's sections (the ELF header's
    e_shoff/e_shentsize/e_shnum/e_shstrndx; Elf64_Shdr's sh_name, sh_addr, sh_offset, sh_size: the System V
    gABI, https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.sheader.html)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_off = heads[shstrndx][4]
    out = {}
    for name, _type, _flags, addr, off, size in heads:
        end = data.index(b"\0", names_off + name)
        out[data[names_off + name:end].decode("ascii", "replace")] = (addr, off, size)
    return out


def query_fields(data):
    """([(name, alternative name or '')] of the --query-gpu table (the module docstring says how it is read),
    {every string a word of .data points at}: the tables' names and help texts, which are no messages)."""
    sec = elf_sections(data)
    ro_addr, ro_off, ro_size = sec[".rodata"]
    _, d_off, d_size = sec[".data"]

    def string_at(addr):
        if not ro_addr <= addr < ro_addr + ro_size:
            return None
        off = addr - ro_addr + ro_off
        raw = data[off:data.index(b"\0", off)]
        return raw.decode("ascii") if re.fullmatch(rb"[\x20-\x7e]{1,400}", raw) else None

    words = struct.unpack_from("<%dQ" % (d_size // 8), data, d_off)
    strs = [string_at(w) for w in words]
    for i in range(len(words) - 18):
        if strs[i] == "timestamp" and strs[i + 9] == "driver_version":
            break
    else:
        raise ValueError("no --query-gpu table (a record 'timestamp' then 'driver_version') in .data")
    out = []
    while i + 9 <= len(words) and strs[i] is not None:
        name, alt, func = strs[i], strs[i + 1], words[i + 7]
        if func and strs[i + 7] is None:  # a field (a heading's function is 0)
            out.append((name, alt or ""))
        i += 9
    if len(out) < 50:
        raise ValueError("the --query-gpu table has %d fields: not the layout this generator reads" % len(out))
    return out, {x for x in strs if x}


def from_deb(path):
    """(messages, fields, version) of the nvidia-smi .deb at ``path`` (an ar archive: control.tar.xz's control
    names the Version, data.tar.xz holds the binary; deb(5))."""
    with open(path, "rb") as f:
        blob = f.read()
    if not blob.startswith(b"!<arch>\n"):
        raise ValueError("%s: not a .deb (ar) archive" % path)
    members, pos = {}, 8
    while pos + 60 <= len(blob):
        name, size = blob[pos:pos + 16].decode().strip().rstrip("/"), int(blob[pos + 48:pos + 58].decode().strip())
        members[name] = blob[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)

    def tar(name):
        return tarfile.open(fileobj=io.BytesIO(lzma.decompress(members[name])))

    control = tar("control.tar.xz").extractfile("./control").read().decode()
    version = re.search(r"^Version:\s*(\S+)", control, re.M).group(1)
    data = tar("data.tar.xz").extractfile(BINARY).read()
    fields, tables = query_fields(data)
    messages, seen = [], set(tables)  # a help text ('... the field is not supported') is no message
    for s in knowgen.binary_strings(data, 8) + chunks(data):
        t = s.strip()
        if t not in seen and not s.startswith((" ", "\t")) and MESSAGE.search(t):
            seen.add(t)
            messages.append(t)
    return messages, fields, "nvidia-smi %s (Debian bookworm non-free, %s)" % (version, BINARY[1:])


def chunks(data):
    """The 16-byte pieces of the binary's 16-byte aligned printable runs of 32+ bytes that start a message the
    compiler did not keep whole: a string copied into a buffer is loaded 16 bytes at a time from .rodata
    (movdqa) and its tail written as immediates, so its first 16 bytes sit NUL-less beside other such pieces
    ('Failed to redire' + 'No MIG-enabled d' + ...), and `strings` reads them as one run. A piece that begins a
    message (MESSAGE) and is no prefix of a message the binary holds whole is one; matched as that prefix."""
    whole = set(knowgen.binary_strings(data, 8))
    out = []
    for m in re.finditer(rb"[\x20-\x7e]{32,}", data):
        if m.start() % 16:
            continue
        run = m.group().decode("ascii")
        for i in range(16, len(run) - 15, 16):
            piece = run[i:i + 16]
            # (a piece from the middle of a sentence, 'is not supported', begins no message)
            if piece[0].isupper() and MESSAGE.match(piece) and not any(w.startswith(piece) for w in whole if len(w) > 16):
                out.append(piece)
    return out


def from_slice(path):
    """(messages, fields, version) of a slice (knowgen.read_slice): its `=== messages` and `=== fields` parts."""
    files, version = knowgen.read_slice(path)
    parts = {name: [line for line in text.splitlines() if line] for name, text in files}
    fields = [(name, alt) for name, _, alt in (line.partition("\t") for line in parts.get("fields", []))]
    return parts.get("messages", []), fields, version


def build(messages, fields, version):
    sites, ids = [], set()
    for n, fmt in enumerate(messages, 1):
        site = {"id": knowgen.unique_id("nvidia_smi." + knowgen.slug(fmt)[:60], ids), "where": "string %d" % n,
                "text": fmt}
        rx, literal = knowgen.printf_to_regex(fmt)
        if not knowgen.unanchored(site, rx, literal):
            rule, family = knowgen.assign(RULES, site, {"text": fmt})
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, fmt)
        sites.append(site)
    return {"header": knowgen.header("Debian bookworm non-free nvidia-smi (https://packages.debian.org/bookworm/"
                                     "nvidia-smi)", version, GENERATOR,
                                     "the failure messages among the binary's strings, and the --query-gpu field "
                                     "table; families from the RULES table of the generator"),
            "query_fields": [{"name": n, "alt": a} if a else {"name": n} for n, a in fields],
            "sites": sites}


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="deb")
    messages, fields, version = from_deb(a.deb) if a.deb else from_slice(a.slice)
    doc = build(messages, fields, version)
    if a.deb:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="binary")
    return knowgen.emit("nvidia_smi_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
