#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/programs.json: the programs of a GPU cluster's stack by name, each with
the family its failures belong to and the program's own diagnostics (issue 18 item 2, noans24: "programs with no
table").

explain reads a program's messages where a generator read its source (NCCL, Slurm, Open MPI, ssh, ...). Many
programs print a failure line no such table holds: pdcp's `pdcp@host: node: rcmd: ...`, `nvidia-modprobe: unrecognized
option`, a GPU Operator pod stuck in `Init:0/1`, the kernel's `nvidia 0000:06:00.0: loading ... failed`, MFT's `-E- ...`
after a `flint` command. The line names the program (its `prog:` / `prog[pid]:` / `prog@host:` prefix, the command line
it follows, the pod's name, the kernel driver), and what the program is names the family and where to look next.

Where the programs come from:
- Debian packages (--deb, read here: the executables each ships in /usr/bin, /usr/sbin, /bin, /sbin, with the
  package's name and version). Debian installs some under an alternatives name (mpirun.openmpi for mpirun,
  slurmd-wlm for slurmd): the name without that suffix is the program as invoked. Compiler wrappers (mpicc, oshcc,
  ...) are left out: their errors are the compiler's.
- The NVIDIA GPU Operator's own manifests (--gpu-operator GITDIR, read here): the DaemonSet / Deployment names under
  assets/ and the Pods' generateName under validator/manifests/: a pod's name starts with them.
- DOCUMENTED: programs no Debian package ships (enroot, NVIDIA's MFT, the NVIDIA container toolkit, the driver's
  tools, DCGM, Docker, Apptainer, GKE's GPU DaemonSets) and kernel drivers, each with the upstream URL that lists it.

What a person decides stays here: the family and next step of each package (PACKAGES) and documented program.

Usage:
    python tools/gen_programs.py --deb pdsh_*.deb --deb mstflint_*.deb ... --gpu-operator /path/gpu-operator.git \\
        [-o OUT] [--write-slice tools/data/programs_slice.txt]
    python tools/gen_programs.py --slice tools/data/programs_slice.txt -o OUT   (the test)
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_deeper_causes import _ar_members  # noqa: E402  (a .deb is an ar archive)

GENERATOR = "tools/gen_programs.py"
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "data", "knowledge",
                   "generated", "programs.json")

RDMA_NEXT = "ibv_devinfo -v (the adapters and port states); ibstat; rdma link show; lsmod | grep -E 'mlx5_ib|ib_uverbs'"
FW_NEXT = ("the adapter's firmware and board id: mstflint -d <pci address> query (FW Version, PSID) or flint -d <mst "
           "device> query with NVIDIA's MFT (mst start; mst status -v); an image must match the adapter's PSID; "
           "dmesg | grep mlx5 for the driver's view")
# Debian package -> (family, the program's own diagnostics)
PACKAGES = {
    "pdsh": ("pdsh.error", "pdsh -S -R ssh -w <host> true (exit status per host; the rcmd module: -R ssh or "
                           "PDSH_RCMD_TYPE=ssh); ssh <host> true as the same user from the same node"),
    "mstflint": ("rdma.fw_limit", FW_NEXT),
    "infiniband-diags": ("rdma.no_device", RDMA_NEXT),
    "ibverbs-utils": ("rdma.no_device", RDMA_NEXT),
    "rdma-core": ("rdma.no_device", RDMA_NEXT),
    "perftest": ("rdma.perftest_setup", "the same test with -d <device> -x <gid index> on both ends; ibv_devinfo -v"),
    "slurm-client": ("slurm.error", "scontrol show job <jobid>; sacct -j <jobid> --format=JobID,State,ExitCode,"
                                    "NodeList; the node's slurmd log (journalctl -u slurmd)"),
    "slurmd": ("slurm.error", "the node's slurmd log (journalctl -u slurmd; SlurmdLogFile); scontrol show node <node> "
                              "(State, Reason)"),
    "openmpi-bin": ("mpi.error", "ompi_info (components built in); rerun with --mca <framework>_base_verbose 100 for "
                                 "the failing framework"),
    "mpich": ("mpi.mpich_error", "mpichversion; rerun with mpiexec -verbose"),
    "munge": ("munge.error", "munge -n | unmunge (locally), munge -n | ssh <node> unmunge (across nodes); systemctl "
                             "status munge"),
    "openssh-client": ("ssh.connect", "ssh -vvv <host> true as the same user from the same node"),
    "opensm": ("rdma.port_down", "the subnet manager's log (/var/log/opensm.log); sminfo (which SM is master); "
                                 "ibstat (port State / Physical state) on the hosts whose ports stay Init"),
    "podman": ("container.oci_runtime", "rerun with podman --log-level=debug; podman info (runtime, cgroups, storage)"),
    "runc": ("container.oci_runtime", "runc --debug; the engine's log (journalctl -u docker / containerd)"),
}
_WRAPPER = re.compile(r"(?:cc|c\+\+|cxx|CC|fort|f77|f90|javac(?:\.pl)?)$")
_ALT_SUFFIX = re.compile(r"(?:\.openmpi|\.mpich|-wlm)$")

K8S_NEXT = ("kubectl -n <namespace> describe pod <pod> (Events, each container's and init container's State and "
            "Last State); kubectl -n <namespace> logs <pod> --all-containers (an init container: -c <name>)")
OPERATOR_NEXT = K8S_NEXT + "; kubectl get clusterpolicy -o yaml (the GPU Operator's status per component)"
# the operator's DaemonSets / Deployments (assets/<state>/...) -> family
POD_FAMILY = (("device-plugin", "k8s.device_plugin"), ("", "k8s.gpu_operator"))

DOCUMENTED = [
    # (programs, family, next step, source)
    (("enroot", "enroot-mount", "enroot-nsenter", "enroot-switchroot", "enroot-aufs2ovlfs", "enroot-mksquashovlfs"),
     "enroot.error", "enroot version; enroot check (the kernel's features it needs); for an import: the registry's "
     "credentials in $ENROOT_CONFIG_PATH/.credentials and ENROOT_CACHE_PATH's free space; rerun the same enroot "
     "command by hand on that node", "https://github.com/NVIDIA/enroot (Makefile: the enroot binaries)"),
    (("mst", "flint", "mlxconfig", "mlxfwmanager", "mlxlink", "mlxfwreset", "mlxup", "mlxburn", "mlxdump"),
     "rdma.fw_limit", FW_NEXT, "https://docs.nvidia.com/networking/display/mftv4310/ (NVIDIA Firmware Tools: the "
     "tools and their -E- error prefix)"),
    (("nvidia-modprobe",), "gpu.driver_not_loaded", "nvidia-modprobe --help (the options this build has); lsmod | "
     "grep nvidia; modinfo nvidia | grep ^version; dmesg | grep -i nvrm", "https://github.com/NVIDIA/nvidia-modprobe"),
    (("nvidia-smi",), "nvml.error", "nvidia-smi -q; dmesg | grep -i -E 'nvrm|xid'; the driver's and the library's "
     "versions (cat /proc/driver/nvidia/version)", "https://docs.nvidia.com/deploy/nvidia-smi/"),
    (("nvidia-container-cli", "nvidia-ctk", "nvidia-container-runtime", "nvidia-container-runtime-hook",
      "nvidia-container-toolkit", "nvidia-cdi-hook"), "container.gpu_driver",
     "nvidia-container-cli -k -d /dev/tty info (what the hook finds on the host); nvidia-ctk --version; the "
     "runtime's config (/etc/nvidia-container-runtime/config.toml)",
     "https://github.com/NVIDIA/nvidia-container-toolkit (cmd/) and https://github.com/NVIDIA/libnvidia-container"),
    (("nvidia-installer", "nvidia-persistenced"), "gpu.driver_module", "the installer's log "
     "(/var/log/nvidia-installer.log: the kernel module's build and load); uname -r against the kernel headers "
     "installed; dmesg | grep -i nvrm", "https://download.nvidia.com/XFree86/Linux-x86_64/latest/README/"
     "installdriver.html (nvidia-installer; nvidia-persistenced: README/nvidia-persistenced.html)"),
    (("nvidia-imex", "nvidia-imex-ctl"), "cuda.imex_channel", "nvidia-imex-ctl -N (the IMEX domain's nodes and "
     "their state); systemctl status nvidia-imex; /etc/nvidia-imex/nodes_config.cfg lists every node of the domain",
     "https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide/"),
    (("mlnxofedinstall", "ofed_info", "ibdev2netdev", "ibdiagnet"), "rdma.no_device", RDMA_NEXT + "; ofed_info -s "
     "(the MLNX_OFED / DOCA-OFED release against the kernel)", "https://docs.nvidia.com/networking/display/"
     "mlnxofedv24010331/ (MLNX_OFED's installer and tools)"),
    (("nv-fabricmanager",), "fabric.manager_start", "systemctl status nvidia-fabricmanager; its log "
     "(/var/log/fabricmanager.log); the driver's and Fabric Manager's versions must be the same",
     "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/"),
    (("dcgmi", "nv-hostengine"), "dcgm.error", "systemctl status nvidia-dcgm; dcgmi discovery -l",
     "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/"),
    (("docker", "dockerd", "containerd"), "container.oci_runtime", "docker info (runtimes, cgroup driver); "
     "journalctl -u docker -u containerd", "https://docs.docker.com/reference/cli/docker/"),
    (("apptainer", "singularity"), "container.apptainer_launch", "rerun with apptainer --debug; apptainer "
     "buildcfg", "https://apptainer.org/docs/user/latest/cli.html"),
]
# GKE's own GPU DaemonSets (GoogleCloudPlatform/container-engine-accelerators: nvidia-driver-installer and
# nvidia-gpu-device-plugin's manifests), read as pod name prefixes like the operator's
DOCUMENTED_PODS = [
    (("nvidia-gpu-device-plugin", "nvidia-driver-installer"), "k8s.device_plugin", K8S_NEXT,
     "https://github.com/GoogleCloudPlatform/container-engine-accelerators"),
]
# kernel drivers as the kernel's dev_printk names them ('<driver> <bus id>: ...', drivers/base/core.c)
DRIVERS = [
    (("nvidia", "nvidia-modeset", "nvidia-drm", "nvidia-nvlink"), "gpu.driver_module",
     "dmesg | grep -i -E 'nvidia|nvrm'; modinfo nvidia | grep ^version against the installed user-space driver "
     "(nvidia-smi); the firmware files under /lib/firmware/nvidia/<version>/ must be the driver's own version",
     "https://docs.kernel.org/driver-api/infrastructure.html (dev_printk: '<driver> <device>: ')"),
    (("nvidia-peermem",), "rdma.peermem_module", "lsmod | grep nvidia_peermem; dmesg | grep peermem",
     "https://docs.nvidia.com/cuda/gpudirect-rdma/"),
    (("mlx5_core", "mlx5_ib"), "rdma.no_device", RDMA_NEXT + "; " + FW_NEXT,
     "https://docs.kernel.org/networking/device_drivers/ethernet/mellanox/mlx5/"),
]


def read_deb(path):
    """(package, version, [executables]) of a .deb."""
    import io
    import lzma
    import tarfile

    with open(path, "rb") as f:
        members = _ar_members(f.read())
    ctl = tarfile.open(fileobj=io.BytesIO(next(v for k, v in members.items() if k.startswith("control.tar"))))
    meta = ctl.extractfile(next(m for m in ctl.getmembers() if m.name.endswith("control"))).read().decode()
    pkg = re.search(r"^Package: (\S+)", meta, re.M).group(1)
    ver = re.search(r"^Version: (\S+)", meta, re.M).group(1)
    name = next(k for k in members if k.startswith("data.tar"))
    raw = members[name]
    if name.endswith(".xz"):
        raw = lzma.decompress(raw)
    bins = set()
    for m in tarfile.open(fileobj=io.BytesIO(raw)).getmembers():
        p = m.name[2:] if m.name.startswith("./") else m.name
        if (m.isfile() or m.issym()) and re.match(r"^(?:usr/)?s?bin/[^/]+$", p):
            bins.add(p.rsplit("/", 1)[1])
    return pkg, ver, sorted(bins)


def operator_pods(gitdir):
    """(commit, describe, [(name, file)]) of the GPU Operator's DaemonSets / Deployments and validator Pods."""
    def git(*a):
        return subprocess.run(["git", "--git-dir", gitdir] + list(a), check=True, capture_output=True,
                              text=True).stdout

    commit = git("rev-parse", "HEAD").strip()
    desc = git("describe", "--tags", "--always", "HEAD").strip()
    out = []
    for f in git("ls-tree", "-r", "--name-only", "HEAD").split("\n"):
        if not (f.startswith("assets/") or f.startswith("validator/manifests/")) or not re.search(r"\.ya?ml$", f):
            continue
        t = git("show", "HEAD:" + f)
        for doc in t.split("\n---"):
            k = re.search(r"^kind:\s*(\S+)", doc, re.M)
            if not k or k.group(1) not in ("DaemonSet", "Deployment", "Pod"):
                continue
            n = re.search(r"^metadata:[ \t]*\n(?:[ \t]+.*\n)*?[ \t]+(?:generateName|name):[ \t]*\"?([\w.-]+?)-?\"?[ \t]*$",
                          doc, re.M)
            if n and not n.group(1).startswith("FILLED"):
                out.append((n.group(1), f))
    return commit, desc, sorted(set(out))


def write_slice(path, debs, op):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# recorded by tools/gen_programs.py --write-slice: each .deb's executables; the GPU Operator's pods\n")
        for pkg, ver, bins in debs:
            f.write("deb\t%s\t%s\t%s\n" % (pkg, ver, " ".join(bins)))
        commit, desc, pods = op
        for name, where in pods:
            f.write("pod\t%s\t%s\t%s %s\n" % (name, where, desc, commit))


def read_slice(path):
    debs, pods, commit, desc = [], [], "", ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            kind, a, b, c = line.rstrip("\n").split("\t")
            if kind == "deb":
                debs.append((a, b, c.split()))
            else:
                pods.append((a, b))
                desc, commit = c.split(" ", 1)
    return debs, (commit, desc, pods)


def build(debs, op):
    programs, skipped = {}, []
    for pkg, ver, bins in debs:
        if pkg not in PACKAGES:
            raise SystemExit("no family for package %s" % pkg)
        fam, nxt = PACKAGES[pkg]
        for b in bins:
            name = _ALT_SUFFIX.sub("", b)
            if _WRAPPER.search(name) or name.endswith(".bin") or name.endswith(".pl"):
                skipped.append(b)
                continue
            programs.setdefault(name, {"family": fam, "next": nxt, "source": "Debian package %s %s" % (pkg, ver)})
    for names, fam, nxt, src in DOCUMENTED:
        for n in names:
            programs.setdefault(n, {"family": fam, "next": nxt, "source": src})
    commit, desc, pods = op
    pod_rows = {}
    for name, where in pods:
        fam = next(f for key, f in POD_FAMILY if key in name)
        pod_rows[name] = {"family": fam, "next": OPERATOR_NEXT,
                          "source": "NVIDIA/gpu-operator %s: %s" % (desc, where)}
    for names, fam, nxt, src in DOCUMENTED_PODS:
        for n in names:
            pod_rows.setdefault(n, {"family": fam, "next": nxt, "source": src})
    drivers = {n: {"family": fam, "next": nxt, "source": src} for names, fam, nxt, src in DRIVERS for n in names}
    return {"header": {"source": "Debian packages (%s); NVIDIA/gpu-operator (https://github.com/NVIDIA/gpu-operator) "
                                 "assets/ and validator/manifests/; the documented lists of tools/gen_programs.py" %
                                 ", ".join("%s %s" % (p, v) for p, v, _ in debs),
                       "version": "NVIDIA/gpu-operator %s (commit %s)" % (desc, commit),
                       "generator": GENERATOR, "date": datetime.date.today().isoformat(),
                       "note": "generated by tools/gen_programs.py; do not edit by hand, run it again. programs: a "
                               "program's name -> the family of its failures and its own diagnostics; pods: pod name "
                               "prefixes; drivers: kernel drivers as dev_printk names them; skipped: compiler "
                               "wrappers and helpers left out"},
            "sites": [], "programs": dict(sorted(programs.items())), "pods": dict(sorted(pod_rows.items())),
            "drivers": drivers, "skipped": sorted(skipped)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deb", action="append", default=[])
    ap.add_argument("--gpu-operator", help="a git directory of NVIDIA/gpu-operator")
    ap.add_argument("--slice")
    ap.add_argument("--write-slice")
    ap.add_argument("-o", "--out", default=OUT)
    a = ap.parse_args(argv)
    if a.slice:
        debs, op = read_slice(a.slice)
    else:
        if not a.deb or not a.gpu_operator:
            ap.error("--deb ... and --gpu-operator, or --slice")
        debs, op = [read_deb(p) for p in a.deb], operator_pods(a.gpu_operator)
    out = build(debs, op)
    if a.write_slice:
        write_slice(a.write_slice, debs, op)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    sys.stderr.write("%d programs, %d pods, %d drivers -> %s\n" % (len(out["programs"]), len(out["pods"]),
                                                                   len(out["drivers"]), a.out))


if __name__ == "__main__":
    main()
