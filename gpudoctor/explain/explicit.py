"""Explicit failure lines that no entry and no other structural reader gave a family (issue 18 item 2, noanswer18):
each read from the structure its program prints, answered with the family only (How sure: low) and the next step.
analyze calls seen() (never 'no error' for such a text) and structural() last, after failshape and provenance.

- **A result code looked up in the generated table that holds it.** DCGM's health and diagnostic results carry a
  dcgmError_t code (DCGM dcgmlib/dcgm_errors.h: DCGM_FR_* with its _MSG and _NEXT texts, read whole into
  generated/dcgm_errors.json by tools/gen_dcgm_errors.py); a line that names DCGM and 'error code N' (a health
  watch's incident as a node agent or an exporter reports it: 'DCGM detected issues in health check system with error
  code 122', a condition's reason 'DCGMHealthCode122') is that code's DCGM_FR_* entry: its family where the table
  assigns one, else DCGM's (dcgm.error), with DCGM's own message and next step for the code.
- **A verbs work completion with an error status.** libibverbs reports each finished work request as a struct ibv_wc
  whose status is enum ibv_wc_status and whose vendor_err is the adapter's own syndrome (rdma-core
  libibverbs/verbs.h; ibv_poll_cq(3)); every program on top of verbs prints the pair as 'status N ... vendor err M'
  (NCCL's net_ib.cc, perftest, UCX, Open MPI's openib). A line with a non-zero status and a vendor error is a failed
  work request: rdma.completion_error, its status named from the enum.
- **A service that could not start, named by its program.** systemd's job result for a unit whose start failed
  (src/core/job.c: 'Failed to start %s.', the unit's Description) and a start script's own '<program> cannot be
  started' / 'failed to start <program>' name the program: the fabric manager (nvidia-fabricmanager, its unit's
  Description 'NVIDIA fabric manager service') -> fabric.manager_start; DCGM's host engine (nv-hostengine, unit
  nvidia-dcgm) -> dcgm.hostengine.
- **A build tool's own report of a failed step** (GNU make's '*** [target] Error N', CMake's 'CMake Error at ...:',
  ninja's 'build stopped: subcommand failed.', collect2's 'ld returned 1 exit status', debhelper's and
  dpkg-buildpackage's '<tool>: error: ...'): build.tool_error, whose causes are the first error above it.
- **An exception's line alone naming a class one library defines** (generated/wheel_classes.json, read from the
  wheels by tools/gen_wheel_classes.py): the class, or one its message names ("'DeepSpeedZeroOptimizer_Stage3' object
  has no attribute 'train'"), is that library's; not torch's.
- **A traceback cut before its exception line.** A paste that ends in a traceback's frames (CPython's '  File "<path>",
  line N, in <fn>' and their source lines, Lib/traceback.py) has lost the exception line that names what failed; the
  innermost frame shown is still the deepest code known to be running. Its source line, when it is a raise statement
  ('raise RuntimeError("...")'), is the exception's class and message, read as an exception line is (excmeaning);
  else a library's frame (not torch's: its Python frames call into its C++, whose error the lost line named) is that
  library's family (pyanswer._lib_entry: '<lib>.library_error', the family its generated sites have, else
  code.library_error).
"""

import re

from gpudoctor.explain import pytb

PATTERNS = {
    # a DCGM result with its dcgmError_t code: 'DCGM ... error code 122', 'DCGMHealthCode122', 'DCGM ... ErrorCode: 122'
    "_struct_ex_dcgm": [(r"\bDCGM(?:HealthCode ?|[^\n]{0,160}?\b[Ee]rror[ _]?[Cc]ode:? {0,2})(?P<code>\d{1,4})\b",
                         ["dcgm"])],
    # struct ibv_wc's status and vendor_err as programs print them ('status 5 and vendor err 249', 'status=12 ...
    # vendor err 129', 'status: 5, vendor_err: 0xf9')
    "_struct_ex_wc": [(r"\bstatus[ =:]{1,3}(?P<status>\d{1,2})\b[^\n]{0,120}?\bvendor[ _]err(?:or)?[ =:]{1,3}"
                       r"(?P<vendor>(?:0x)?[0-9a-fA-F]{1,8})\b", ["vendorerr", "vendor_err"])],
    # a service's start that failed, naming its program (the names in _SERVICES)
    "_struct_ex_start": [(r"\b(?P<prog>[Ff]abric ?[Mm]anager|nvidia-fabricmanager|nv-hostengine|DCGM host engine)"
                          r"(?:\.service)?:? (?:cannot be started|could not be started|failed to start|did not start)",
                          ["cannotbestarted", "couldnotbestarted", "failedtostart", "didnotstart"]),
                         (r"\b(?:Failed to start|[Uu]nable to start|[Cc]annot start|[Cc]ould not start) (?:the )?"
                          r"(?P<prog>NVIDIA [Ff]abric ?[Mm]anager|[Ff]abric ?[Mm]anager|nvidia-fabricmanager|"
                          r"nv-hostengine|nvidia-dcgm(?![\w-])|NVIDIA DCGM(?= service\b|\.?$)|DCGM host engine)\b",
                          ["failedtostart", "unabletostart", "cannotstart", "couldnotstart"]),
                         # systemd's own lines for a unit that failed (src/core/unit.c unit_log_failure: '<unit>:
                         # Failed with result '%s'.'; src/core/service.c: '<unit>: Main process exited, code=%s,
                         # status=%i/%s'). Not Slurm's or MUNGE's daemons: theirs is an echo of the daemon's own error,
                         # which names the cause (set B's two slurmd units failing on gres.conf and on the controller's
                         # name: slurm.gres, slurm.communication, not a family of the daemon)
                         (r"\b(?P<prog>nvidia-fabricmanager|nvidia-dcgm)\.service: "
                          r"(?:Failed with result '|Main process exited, code=(?:exited|killed|dumped), status=(?!0/))",
                          ["failedwithresult", "mainprocessexited"])],
    # (noans22) a program's refusal of its own command line and the usage it prints after it (getopt's 'unrecognized
    # option', a start script's 'Unknown option: X', then 'Usage: <path> ...'): the usage line names the program
    "_struct_ex_optrefused": [(r"^\s{0,4}(?:[\w./-]{1,100}: )?(?P<what>(?:[Uu]nknown|[Uu]nrecognized|[Ii]nvalid|"
                               r"[Ii]llegal) (?:option|argument|flag))\b",
                               ["unknownoption", "unrecognizedoption", "invalidoption", "illegaloption",
                                "unknownargument", "unrecognizedargument", "invalidargument", "unknownflag"])],
    "_struct_ex_usage": [(r"^\s{0,4}[Uu]sage: (?P<prog>[\w./-]{1,200})", ["usage:"])],
    # (noans22) JAX's note on an exception whose JAX-internal frames it removed (jax/_src/traceback_util.py,
    # _simplified_tb_msg, added to the exception as a PEP 678 note: printed right after its exception line)
    "_struct_ex_jaxfiltered": [(r"JAX has removed its internal frames from the traceback", ["jaxhasremovedits"])],
    # (noans22) a CDI device name (the CDI spec's fully-qualified 'vendor.com/class=name') that the engine treated as a
    # device path: podman's 'Error: stat nvidia.com/gpu=0: no such file or directory' (podman reads CDI names since
    # 4.1.0, https://github.com/containers/podman/blob/main/RELEASE_NOTES.md#410, as docker/cli#3864 cites; podman
    # build does not, containers/podman#21158), docker's (moby daemon/oci_linux.go) 'error gathering device information
    # while adding custom device "nvidia.com/gpu=all": no such file or directory'
    "_struct_ex_cdipath": [(r"(?:\bstat |adding custom device \\?\"?)(?P<name>[a-z0-9][a-z0-9.-]{0,60}\.[a-z]{2,12}/"
                            r"[a-z0-9][\w.-]{0,40}=[\w.:-]{1,80})\\?\"?: no such file or directory",
                            ["nosuchfileordirectory"])],
    # systemd's job result for a unit that did start (src/core/job.c: 'Started %s.'): a start that failed before it was
    # retried and went through (Restart=on-failure) is not what stopped anything
    "_struct_ex_started": [(r"\bStarted (?P<prog>NVIDIA [Ff]abric ?[Mm]anager|nvidia-fabricmanager|"
                            r"NVIDIA DCGM(?= service\b|\.?$)|"
                            r"nv-hostengine)\b",
                            ["startednvidiafabric", "startednvidia-fabricmanager", "startednvidiadcgm",
                             "startednv-hostengine"])],
    # a build tool's own report of a failed step (the programs' own forms): GNU make (src/job.c child_error: '*** [%s]
    # Error %d', src/remake.c / main.c: '*** No rule to make target ...  Stop.', printed as 'make: ' / 'make[N]: '),
    # CMake (Source/cmMessenger.cxx: 'CMake Error at <file>:<line> (<command>):', 'CMake Error: '), ninja
    # (src/ninja.cc: 'ninja: build stopped: %s.'), gcc's collect2 ('collect2: error: ld returned %d exit status'),
    # debhelper (Debian/Debhelper/Dh_Lib.pm error: '<tool>: error: <message>') and dpkg-buildpackage
    # (scripts/Dpkg/ErrorHandling.pm: '<program>: error: <message>')
    "_struct_ex_build": [(r"^(?P<prog>g?make)(?:\[\d{1,4}\])?: \*\*\* (?P<msg>[^\n]{1,300})", ["make:***", "]:***"]),
                         (r"^(?P<prog>CMake) Error(?: at [^\n]{1,300}?:\d{1,7} \(\w{1,60}\))?:", ["cmakeerror"]),
                         (r"^(?P<prog>ninja): build stopped: (?!interrupted by user)(?P<msg>[^\n]{1,200})",
                          ["ninja:buildstopped"]),
                         (r"\b(?P<prog>collect2): error: ld returned \d{1,3} exit status", ["collect2:error"]),
                         (r"^(?P<prog>dh_[a-z_]{2,40}|dpkg-buildpackage|dpkg-source|debuild): error: "
                          r"(?P<msg>[^\n]{1,300})", ["dh_", "dpkg-", "debuild:"])],
}

# (noanswer19) a source-file prefix's project (srcprov.py) and a build's missing input (buildinputs.py)
from gpudoctor.explain import buildinputs as _buildinputs, srcprov as _srcprov  # noqa: E402

PATTERNS.update(_srcprov.PATTERNS)
PATTERNS.update(_buildinputs.PATTERNS)
# (noanswer20) a run's end status that names a signal (runend.py); a client retrying at the text's end (waitloop.py)
from gpudoctor.explain import k8sctrl as _k8sctrl, runend as _runend, scalefloor as _scalefloor  # noqa: E402
from gpudoctor.explain import headcut as _headcut, waitloop as _waitloop  # noqa: E402

PATTERNS.update(_runend.PATTERNS)
PATTERNS.update(_waitloop.PATTERNS)
PATTERNS.update(_k8sctrl.PATTERNS)  # (noanswer20) an operator's failed reconcile, by its controller's name
PATTERNS.update(_scalefloor.PATTERNS)  # (noanswer20) DeepSpeed's fp16 loss scaler stuck at its floor
# (noans22) the kubelet's admission refusal of a device allocation, the API server's RBAC refusal (k8sstatus.py)
from gpudoctor.explain import k8sstatus as _k8sstatus  # noqa: E402

PATTERNS.update(_k8sstatus.PATTERNS)

# the programs a start failure names -> the entry of that program's failure to start
# (Fabric Manager user guide: the nvidia-fabricmanager service, https://docs.nvidia.com/datacenter/tesla/
# fabric-manager-user-guide/index.html; DCGM user guide: the nvidia-dcgm service runs nv-hostengine,
# https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/getting-started.html)
_SERVICES = (("fabric", "fabric.manager_start", "the NVIDIA Fabric Manager (nvidia-fabricmanager)"),
             ("hostengine", "dcgm.hostengine", "DCGM's host engine (nv-hostengine)"),
             ("host engine", "dcgm.hostengine", "DCGM's host engine (nv-hostengine)"),
             ("dcgm", "dcgm.hostengine", "DCGM's host engine (nv-hostengine)"))

# enum ibv_wc_status (rdma-core libibverbs/verbs.h, https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/
# verbs.h), the names ibv_wc_status_str() spells (libibverbs/verbs.c)
WC_STATUS = ("success", "local length error", "local QP operation error", "local EE context operation error",
             "local protection error", "Work Request Flushed Error", "memory management operation error",
             "bad response error", "local access error", "remote invalid request error", "remote access error",
             "remote operation error", "transport retry counter exceeded", "RNR retry counter exceeded",
             "local RDD violation error", "remote invalid RD request", "operation aborted",
             "invalid EE context number", "invalid EE context state", "fatal error", "response timeout error",
             "general error", "TM error", "TM rendezvous incomplete")


def _known(scan):
    out = set()
    for eid, lines in scan.match_lines.items():
        if not eid.startswith("_"):
            out.update(lines)
    return out


def _hits(scan, eid, known=None):
    known = _known(scan) if known is None else known
    return [h for h in scan.matches.get(eid, []) if h.severity != "info" and h.line not in known]


def _dcgm_sites():
    """{code: site} of generated/dcgm_errors.json (the first site of each code)."""
    from gpudoctor.explain.knowledge import generated_table

    out = {}
    for s in generated_table("dcgm_errors").get("sites") or ():
        out.setdefault(s.get("code"), s)
    return out


def _dcgm_hits(scan, known=None):
    """DCGM code lines whose code is a failure dcgm_errors.json holds (not DCGM_FR_OK, 0)."""
    codes = _dcgm_sites()
    return [h for h in _hits(scan, "_struct_ex_dcgm", known) if int(h.groups["code"]) in codes.keys() - {0}]


def _start_hits(scan, known=None):
    """Start failures not followed by the same program's start (systemd's 'Started <Description>.')."""
    started = scan.matches.get("_struct_ex_started", [])
    return [h for h in _hits(scan, "_struct_ex_start", known)
            if not any(s.line > h.line and _service(s.groups.get("prog")) == _service(h.groups.get("prog"))
                       for s in started)]


def _refusal_hits(scan, known=None):
    """[(refusal hit, usage hit, service)] of a command-line refusal followed within 30 lines by its program's usage
    line (or a usage line at most 3 lines before it), where the program is a service of _SERVICES (the usage names
    the program that printed both: a start script prints its usage when it stops on an option it does not take)."""
    usages = scan.matches.get("_struct_ex_usage", [])
    out = []
    for h in _hits(scan, "_struct_ex_optrefused", known):
        u = next((u for u in usages if -3 <= u.line - h.line <= 30), None)
        svc = _service(u.groups.get("prog").rsplit("/", 1)[-1]) if u else None
        if svc:
            out.append((h, u, svc))
    return out


def _service(prog):
    prog = (prog or "").lower()
    return next((s for s in _SERVICES if s[0] in prog), None)


def _wc_hits(scan, known=None):
    return [h for h in _hits(scan, "_struct_ex_wc", known) if (h.groups.get("status") or "0") != "0"]


def seen(scan):
    """Whether the text has an explicit failure line structural() reads (analyze: never 'no error' for it)."""
    known = _known(scan)
    return bool(_dcgm_hits(scan, known) or _wc_hits(scan, known) or
                _start_hits(scan, known) or _refusal_hits(scan, known) or _hits(scan, "_struct_ex_build", known) or
                _hits(scan, "_struct_ex_cdipath", known) or
                cut_traceback(scan) or _buildinputs.hits(scan, known) or
                _srcprov.hits(scan, known, answerable=True) or
                (bool(scan.matches.get("_struct_ex_pymsg")) and bool(_srcprov.py_hits(scan, known))) or
                bool(_runend.hits(scan, known)) or bool(_waitloop.loop(scan, kb=None)) or
                bool(_k8sctrl.hits(scan, known)) or bool(_scalefloor.hits(scan)) or bool(_headcut.find(scan, known)) or
                _k8sstatus.hits(scan, known))


def structural(scan, kb, structural_finding):
    """The family of an explicit failure line nothing else read; None else."""
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    known = _known(scan)
    for h in _dcgm_hits(scan, known):
        if _ran_past(scan, h.line):
            continue
        got = _dcgm(scan, by, h, structural_finding)
        if got:
            return got
    for h in _wc_hits(scan, known):
        if "rdma.completion_error" in by and not _ran_past(scan, h.line):
            status = int(h.groups["status"])
            name = WC_STATUS[status] if status < len(WC_STATUS) else "status %d" % status
            f = structural_finding(by["rdma.completion_error"], h, "a verbs work completion with status %d (%s) and "
                                   "the adapter's vendor error %s" % (status, name, h.groups.get("vendor")), scan)
            f["notes"].append("libibverbs' struct ibv_wc: status %d is %s (enum ibv_wc_status), vendor err %s the "
                              "adapter's own syndrome. A flushed request (5) follows an earlier error on the same "
                              "queue pair: the first completion error in time, on either side, is the one to read; "
                              "a retry counter exceeded (12, 13) is the path or the peer not answering (link, "
                              "switch, PCIe ACS / IOMMU between the GPU and the adapter)." % (
                                  status, name, h.groups.get("vendor")))
            return f
    for h in _start_hits(scan, known):
        svc = _service(h.groups.get("prog"))
        if svc and svc[1] in by and not _ran_past(scan, h.line):
            f = structural_finding(by[svc[1]], h, "%s could not start (the line names it)" % svc[2], scan)
            # the entry's cause that the program is not running first (dcgm.hostengine's first cause is a client's
            # remote --host, which a start failure is not: review18)
            f["causes"].sort(key=lambda c: "not running" not in (c.get("text") or ""))
            f["notes"].append("The line says %s did not start; the words before it on the line (or the lines just "
                              "before) say what it found missing. Its own log and `journalctl -u <its unit>` hold "
                              "the rest." % svc[2])
            return f
    for h in _hits(scan, "_struct_ex_cdipath", known):
        if "container.oci_device" not in by or _ran_past(scan, h.line):
            continue
        name = h.groups.get("name")
        f = structural_finding(by["container.oci_device"], h, "the CDI device name %s looked up as a file" % name, scan)
        f["causes"].insert(0, {
            "text": "%s is a CDI device name (the Container Device Interface's 'vendor.com/class=name'), and the engine "
                    "looked it up as a device file: it does not resolve CDI names - podman before 4.1 (and podman "
                    "build in any release), or docker without its CDI feature - so the GPU is never added." % name,
            "checks": [], "confirm": ["podman --version / docker version; nvidia-ctk cdi list (the names this host's "
                                      "CDI spec defines)"],
            "fix": ["upgrade podman to 4.1 or later (CDI support), or on docker enable the daemon's CDI feature "
                    "(/etc/docker/daemon.json: \"features\": {\"cdi\": true}, then restart docker), and generate the "
                    "spec: sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
                    "or, on an engine without CDI: pass the device files themselves (--device /dev/nvidia0 --device "
                    "/dev/nvidiactl --device /dev/nvidia-uvm) or use the NVIDIA runtime hook (--gpus / "
                    "--runtime=nvidia)"],
            "exports": {}, "evidence": [], "static_rank": 0, "computed": None})
        f["notes"].append("The name has the CDI spec's form (https://github.com/cncf-tags/container-device-interface/"
                          "blob/main/SPEC.md: a fully-qualified device name 'vendor.com/class=name'); the error says "
                          "the engine tried it as a path under /dev instead.")
        return f
    for h, u, svc in _refusal_hits(scan, known):
        if svc[1] not in by:
            continue
        prog = u.groups.get("prog")
        f = structural_finding(by[svc[1]], h, "%s refused its command line (%s), then printed its usage" % (
            prog, h.groups.get("what")), scan)
        f["causes"].sort(key=lambda c: "not running" not in (c.get("text") or ""))
        f["notes"].append("%s (%s) stopped on an option or argument it does not take and printed its usage: it did "
                          "not start. What started it (the systemd unit's ExecStart, a container's command or args, "
                          "an operator's release of the script) passes arguments this release does not read; "
                          "compare them with the options its usage lists." % (prog, svc[2]))
        return f
    got = _buildinputs.structural(scan, kb, structural_finding, known)
    if got:
        return got
    for h in _hits(scan, "_struct_ex_build", known):
        prog = h.groups.get("prog") or "the build tool"
        # make / ninja / collect2 report a command they ran that failed (its echo: make runs any command, sbatch as
        # well as a compiler); CMake's and debhelper's errors are their own
        eid = "build.step_failed" if prog in ("make", "gmake", "ninja", "collect2") else "build.tool_error"
        if eid in by and not _ran_past(scan, h.line):
            f = structural_finding(by[eid], h, "%s's own report of a failed build step" % prog, scan)
            f["notes"].append("%s reports that a step failed; the step's own error (the compiler's, the linker's, "
                              "the configure check's) is printed above this line: that first error names the cause."
                              % prog)
            return f
    return (_named_class(scan, kb, structural_finding, known) or _cut_finding(scan, kb, structural_finding) or
            _srcprov.structural(scan, kb, structural_finding, known) or
            _srcprov.message_finding(scan, kb, structural_finding, known) or
            _srcprov.py_message_finding(scan, kb, structural_finding, known) or
            _srcprov.site_message_finding(scan, kb, structural_finding, known) or
            _k8sctrl.finding(scan, kb, structural_finding, known) or
            _k8sstatus.finding(scan, kb, structural_finding, known) or
            _runend.finding(scan, kb, structural_finding, known) or
            _waitloop.finding(scan, kb, structural_finding) or
            _scalefloor.finding(scan, kb, structural_finding) or
            _headcut.finding(scan, kb, structural_finding, known))


# -------------------------------------------------------- an exception's line alone that names a library's class

# an exception's line (Lib/traceback.py format_exception_only: '<Class>: <message>'), at the line's start or quoted
# ('pytorch throw: `AttributeError: ...`')
_EXC_AT = re.compile(r"(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception|Failure)): "
                     r"(?P<msg>\S[^\n]{0,400})")
_CLASS_WORD = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]{11,100}(?!\w)")


def _named_class(scan, kb, structural_finding, known):
    """An uncaught exception's line with no traceback whose class, or a class its message names, one library of the
    stack defines (generated/wheel_classes.json, tools/gen_wheel_classes.py): CPython's own messages name the
    object's type ("'%.100s' object has no attribute '%U'", Objects/object.c) and a library's checks name its own
    classes. The error was met inside or against that library: '<lib>.library_error', the family its generated sites
    have, else code.library_error. Not torch's classes (the stack's base: every library's objects are torch's too)."""
    from gpudoctor.explain import provenance
    from gpudoctor.explain.knowledge import generated_table
    from gpudoctor.explain.text import strip_prefix

    if scan.tracebacks:
        return None
    table = generated_table("wheel_classes").get("classes") or {}
    by = kb.by_id
    for h in scan.matches.get("_struct_exc", [])[:16]:
        if h.severity == "info" or h.line in known or provenance._ran_past(scan, h.line):
            continue
        body = strip_prefix(h.text.strip())[0]
        m = _EXC_AT.search(body)
        if not m or m.start() > 0 and body[m.start() - 1] not in " `'\"([:":
            continue
        exc, msg = m.group("exc"), m.group("msg").rstrip("`'\" ")
        # (the classes the message names, not the exception's own: a class name alone may be another library's alias
        # of it - torch.cuda's 'OutOfMemoryError = torch._C.OutOfMemoryError' is no class statement, ray's is - and a
        # module-qualified one is provenance's to read)
        names = _CLASS_WORD.findall(msg)
        name = next((n for n in names if n in table), None)
        if not name:
            continue
        dist = table[name]
        lib = pytb.owner((pytb._wheels().get("main") or {}).get(dist) or dist.replace("-", "_"))
        if lib == "torch":
            continue
        if name == exc.rsplit(".", 1)[-1] and "." in exc and pytb.owner(exc.split(".", 1)[0]) != lib:
            # the line names the class's module, another package's: a wheel's copy of that class is not it
            # (tensorflow.python.framework.errors_impl.InvalidArgumentError is TensorFlow's, not tensorboard's stub;
            # aiohttp.client_exceptions.ClientConnectorError not ray's vendored aiohttp; java.lang.OutOfMemoryError;
            # torch.OutOfMemoryError) (review18)
            continue
        eid = "%s.library_error" % lib if "%s.library_error" % lib in by else (
            provenance.library_entry(by, lib) or "code.library_error")
        if eid not in by:
            continue
        f = structural_finding(by[eid], h, "%s, a class %s defines, named by %s alone (no traceback)" % (
            name, dist, exc), scan)
        attr = "has no attribute" in msg and name != exc.rsplit(".", 1)[-1]
        f["notes"].append("%s is %s's class (its wheel defines it): the error was met inside %s or in a call to it.%s "
                          "Only the exception's last line is here: the traceback above it names the file that "
                          "raised it; paste the whole error to tell %s's code from the caller's." % (
                              name, dist, dist, " An attribute its %s lacks: the caller (another library or your "
                              "code) was written for another release of %s - check the versions installed together "
                              "(pip show %s)." % (name, dist, dist) if attr else "", dist))
        if attr:
            # (upgrade19) the installation to change: the two releases do not fit each other
            from gpudoctor.fixline import sh

            wanted = re.search(r"has no attribute '(\w{1,80})", msg)  # (msg: its closing quote stripped)
            f["causes"][0]["fix"].insert(0, "upgrade %s and the package whose code asked its %s for %s (the frame "
                                            "above %s's in the whole traceback) to releases made for each other: pip "
                                            "install -U %s <that package>; or pin %s to the release that package "
                                            "supports (pip show <that package> lists its requirement)" % (
                                                dist, name, "'%s'" % wanted.group(1) if wanted else "the attribute",
                                                dist, sh(dist), sh(dist)))
        return f
    return None


def _dcgm(scan, by, h, structural_finding):
    code = int(h.groups["code"])
    site = _dcgm_sites().get(code)
    if site is None or not code:
        return None
    eid = site.get("family") if site.get("family") in by else "dcgm.error"
    if eid not in by:
        return None
    f = structural_finding(by[eid], h, "DCGM's error code %d (%s, dcgm_errors.h)" % (code, site.get("name")), scan)
    nxt = (site.get("next") or "").strip()
    f["notes"].append("DCGM's code %d is %s: '%s'.%s" % (
        code, site.get("name"), site.get("text"), " DCGM's next step for it: %s" % nxt if nxt and nxt != "N/A"
        else ""))
    if nxt and nxt != "N/A":
        # DCGM's own next step for the code first (no evidence line: the code is looked up, not a message matched)
        f["causes"].insert(0, {"text": "DCGM reported %s (code %d): '%s'." % (site.get("name"), code, site.get("text")),
                               "checks": [], "confirm": [], "fix": [nxt], "exports": {}, "evidence": [],
                               "static_rank": 0, "computed": None})
    return f


# ---------------------------------------------------------------- a traceback cut before its exception line

CUT_TRAIL = 6  # lines after the innermost frame (its source, carets, a code fence's end) for a traceback cut there
_TRAIL_OK = re.compile(r"^(?:`{3}|~{3}|\^|~|\[Previous line repeated)")
# logging's stack_info (Lib/logging/__init__.py Formatter.formatStack: 'Stack (most recent call last):') and
# traceback.print_stack print frames of a running program, which goes on: not a failure
_STACK = re.compile(r"^Stack \(most recent call last\):")
_RAISE = re.compile(r"^raise (?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Za-z_]\w{0,60})\(\s{0,4}[fFrRbBuU]{0,2}"
                    r"(?P<q>['\"])(?P<msg>[^'\"\n]{1,300})(?P=q)")


def cut_traceback(scan):
    """(traceback dict, Hit of its innermost frame) when an input ends in a traceback's frames, the exception line
    never printed (or cut off the paste); None else. Read from the input's last lines (scan.tails)."""
    if hasattr(scan, "_cut_tb"):
        return scan._cut_tb
    scan._cut_tb = None
    if scan.tracebacks:
        return None
    for tail in getattr(scan, "tails", None) or ():
        user = tail.get("user") or []
        if not user:
            continue
        k, trail = len(user) - 1, 0
        while k >= 0 and trail <= CUT_TRAIL:
            body = pytb._body(user[k][1])[0]
            if pytb.FRAME.match(body):
                break
            trail += 1
            k -= 1
        if k < 0 or trail > CUT_TRAIL or ", in " not in user[k][1]:
            continue
        # the lines after the innermost frame: its source line, carets, a fence: nothing else
        after = [pytb._body(t)[0] for _, t in user[k + 1:]]
        if sum(1 for a in after if not _TRAIL_OK.match(a)) > 2:
            continue
        lines = [t for _, t in user[max(0, k - pytb.MAX_BACK_LINES):k + 1]] + [t for _, t in user[k + 1:]]
        if any(_STACK.match(pytb._body(t)[0]) for t in lines):
            continue
        tb = pytb.parse_back(lines + ["CutTraceback"])
        if not tb or not tb["frames"]:
            continue
        from gpudoctor.explain.knowledge import Pattern
        from gpudoctor.explain.scan import Hit

        hit = Hit(user[k][0], user[k][1], Pattern("_struct_ex_cut", "match", r"File \"", 0), {}, None)
        scan._cut_tb = (tb, hit)
        return scan._cut_tb
    return None


def _cut_finding(scan, kb, structural_finding):
    got = cut_traceback(scan)
    if not got:
        return None
    from gpudoctor.explain import excmeaning, pyanswer
    from gpudoctor.explain.provenance import _ran_past

    tb, hit = got
    if _ran_past(scan, hit.line):
        return None
    by = kb.by_id
    inner = pytb.innermost(tb)
    if not inner:
        return None
    file, line, fn, kind, lib = inner
    at = "%s:%d, in %s" % (file.rsplit("/", 1)[-1], line, fn)
    src = (tb.get("src") or [("", None)])[-1][0] or ""
    m = _RAISE.match(src.strip())
    f = None
    if m:
        exc, msg = m.group("exc"), m.group("msg").strip()
        fake = {"exc": exc, "msg": msg, "more": "", "frames": tb["frames"], "hit": hit, "chain": None,
                "line": hit.line}
        f = excmeaning.finding(scan, kb, fake, [], "%s: %s" % (exc, msg[:200]), at)
        if f is None and kind == "user" and "code.exception" in by:
            f = structural_finding(by["code.exception"], hit, "the raise statement of your %s, the last frame of a "
                                   "traceback cut before its exception line" % at, scan)
    if f is None and kind == "lib" and lib and lib != "torch":
        eid = pyanswer._lib_entry(by, file, lib)[0]
        # the deepest frame shown need not be the one that raised (the traceback goes on below it): only a library
        # with a family of its own is answered, or one whose own raise statement is the frame's line; the generic
        # code.library_error of any other was right for 1 of 4 seen texts that other knowledge answers
        if eid == "code.library_error" and not m:
            eid = None
        if eid in by and by[eid]["kind"] != "echo":
            f = structural_finding(by[eid], hit, "the innermost frame of a traceback cut before its exception line "
                                   "is %s's (%s)" % (lib, at), scan)
    if f is not None:
        f["notes"].append("The traceback ends at a frame (%s): its last line, the exception that names what failed, "
                          "is not in the text. Paste the whole error (the line after the last frame), or rerun and "
                          "keep stderr." % at)
    return f
