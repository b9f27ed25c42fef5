"""Build /tmp/heldout-au/explain_heldout_au.jsonl (eval-au). Texts are lines pasted in the public threads, verbatim."""
import json
cases = []
def add(**kw):
    cases.append(kw)

add(id="au-nccltests-singularity-no-verbs-provider",
    url="https://github.com/NVIDIA/nccl-tests/issues/41",
    source_repo="NVIDIA/nccl-tests", category="rdma",
    text="""Singularity> ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4
# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid 108039 on ip-0AB85F07 device  0 [0x00] Tesla V100-PCIE-16GB
#   Rank  1 Pid 108039 on ip-0AB85F07 device  1 [0x00] Tesla V100-PCIE-16GB
#   Rank  2 Pid 108039 on ip-0AB85F07 device  2 [0x00] Tesla V100-PCIE-16GB
#   Rank  3 Pid 108039 on ip-0AB85F07 device  3 [0x00] Tesla V100-PCIE-16GB
libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0
ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'
""",
    family="rdma.no_provider", family_alternatives=["rdma.libibverbs_warning", "nccl.internal_error"],
    fix="The Singularity image lacks the userspace verbs provider for the host's Mellanox HCA (libmlx5 from rdma-core / MLNX_OFED), so libibverbs cannot open uverbs0 and NCCL init fails; install rdma-core / ibverbs-providers (libmlx5) matching the host stack inside the container (or bind the host provider libraries and /etc/libibverbs.d).",
    fix_keywords=["libmlx5", "rdma-core", "ibverbs-providers"],
    healthy=False, group="container",
    label_note="NCCL maintainer (sjeaugey) diagnosed in the thread that the libibverbs warning means the container is missing the IB verbs provider package (libmlx5); issue closed. No explicit reporter confirmation in the excerpts I read (medium).")

add(id="au-pdcp-default-rsh-rcmd",
    url="https://github.com/chaos/pdsh/issues/127",
    source_repo="chaos/pdsh", category="ssh",
    text="""pdsh -V
pdsh-2.34
rcmd modules: ssh,rsh,exec (default: rsh)
misc modules: (none)
$ pdcp -w host ~/bin/file /tmp
pdcp@localhost: host: rcmd: socket: Permission denied
""",
    family="pdsh.error", family_alternatives=["pdsh.option_refused", "ssh.connect"],
    fix="This pdsh/pdcp build defaults to the rsh rcmd module, which needs a privileged (root) socket; select the ssh module with -R ssh (or export PDSH_RCMD_TYPE=ssh). pdcp must also be installed on every destination node.",
    fix_keywords=["PDSH_RCMD_TYPE", "-R ssh", "-Rssh"],
    healthy=False, group="launcher",
    label_note="pdsh maintainer (grondo) answered: specify -Rssh; with -Rssh the rcmd socket error was gone (the next error, pdcp missing on the remote node, was explained by grondo from the pdcp man page). Closed (medium-strong).")

add(id="au-gpuoperator-ocp-upgrade-stale-rhel-version",
    url="https://github.com/NVIDIA/gpu-operator/issues/190",
    source_repo="NVIDIA/gpu-operator", category="k8s",
    text="""Installing Linux kernel headers...
+ dnf -q -y --releasever=8.2 install kernel-headers-4.18.0-240.22.1.el8_3.x86_64 kernel-devel-4.18.0-240.22.1.el8_3.x86_64
Error: Unable to find a match: kernel-devel-4.18.0-240.22.1.el8_3.x86_64
""",
    family="k8s.gpu_operator", family_alternatives=["container.gpu_driver", "build"],
    fix="After the OpenShift 4.6 to 4.7 upgrade the GPU Operator (< 1.7) did not update the env of the already deployed nvidia-driver-daemonset, so it still uses RHEL 8.2 repos for an el8_3 kernel; delete and recreate the ClusterPolicy (or edit the daemonset to RHEL_VERSION=8.3 and OPENSHIFT_VERSION=4.7). Fixed in GPU Operator 1.7.0.",
    fix_keywords=["ClusterPolicy", "RHEL_VERSION", "OPENSHIFT_VERSION"],
    healthy=False, group="k8s-operator",
    label_note="GPU Operator maintainer (shivamerla) identified it as a known issue (operator not updating ENV of deployed driver containers) with the two fixes, fixed from 1.7.0; reporter thanked and moved on to a different (dnf CA) problem (medium-strong). The log lines were bold-marked (**...**) in the issue body; I removed the markdown asterisks.")

add(id="au-enroot-import-missing-caps-package",
    url="https://github.com/NVIDIA/enroot/issues/141",
    source_repo="NVIDIA/enroot", category="container",
    text="""$ ENROOT_TEMP_PATH=/mnt XDG_DATA_HOME=/mnt/ XDG_CONFIG_DIR=/mnt enroot import docker://ubuntu
[INFO] Querying registry for permission grant
[INFO] Authenticating with user: <anonymous>
[INFO] Authentication succeeded
...
[INFO] Converting whiteouts...

0% 0:1=0s e96e057aae67380a4ddb16c337c5c3669d97fdff69ec537f02aa2cc30d814281      enroot-aufs2ovlfs: failed to set capabilities: Operation not permitted
100% 1:0=0s e96e057aae67380a4ddb16c337c5c3669d97fdff69ec537f02aa2cc30d814281 
$ ./enroot-check_3.4.0_x86_64.run 
Extracting [####################] 100%
Bundle ran successfully!
""",
    family="enroot.error", family_alternatives=["container.msg", "enroot.userns"],
    fix="Unprivileged image conversion needs the file capabilities shipped in the enroot+caps package (capabilities on enroot-aufs2ovlfs / enroot-mksquashovlfs); install enroot+caps next to enroot (or run the import as root).",
    fix_keywords=["enroot+caps", "enroot-caps", "setcap"],
    healthy=False, group="container",
    label_note="enroot maintainer (3XX0) asked whether the enroot+caps package was installed; reporter installed the two RPMs and got further (the next error was an unrelated lzo squashfs compression setting) (medium-strong).")

add(id="au-enroot-start-sqsh-needs-fuse3",
    url="https://github.com/NVIDIA/enroot/issues/32",
    source_repo="NVIDIA/enroot", category="container",
    text="""$ enroot start ubuntu.sqsh
[WARN] fuse: unknown option `uid=2039'
[ERROR] Failed to mount: /home/folz/ubuntu.sqsh
""",
    family="enroot.missing_command", family_alternatives=["enroot.error"],
    fix="Starting a squashfs image directly mounts it with squashfuse/fuse-overlayfs, which need FUSE 3 (fusermount3 / libfuse3); the installed FUSE 2 rejects the uid= mount option. Install fuse3 (with fuse3-based squashfuse and fuse-overlayfs), or 'enroot create' the image and start the unpacked container.",
    fix_keywords=["fuse3", "fusermount3", "libfuse3"],
    healthy=False, group="container",
    label_note="enroot maintainer (3XX0) answered that fuse3 is required for this (documentation unclear) and would update the install instructions; no explicit reporter confirmation in the excerpts I read (medium).")

add(id="au-ucx-cma-yama-ptrace-scope",
    url="https://github.com/openucx/ucx/issues/3545",
    source_repo="openucx/ucx", category="mpi",
    text="""process_vm_readv delivered 0 instead of 480960, error message Operation not permitted
""",
    family="mpi.transport", family_alternatives=["container.ucx_shm", "ucx.config_unavailable"],
    fix="UCX's CMA (cross-memory attach) transport uses process_vm_readv, which the Yama LSM blocks between sibling processes on Ubuntu (kernel.yama.ptrace_scope=1); set sysctl kernel.yama.ptrace_scope=0 (persist in /etc/sysctl.d/10-ptrace.conf), or use UCX >= 1.6, which checks ptrace_scope before using CMA (or drop cma from UCX_TLS).",
    fix_keywords=["ptrace_scope", "yama", "UCX_TLS"],
    healthy=False, group="mpi",
    label_note="Reporter found and confirmed the fix (sysctl kernel.yama.ptrace_scope=0, persisted in /etc/sysctl.d/10-ptrace.conf); UCX maintainer (yosefe) replied it is fixed by PR #3205 in UCX 1.6. Closed (strong). Differs from the earlier-set Open MPI vader-in-Docker case (missing CAP_SYS_PTRACE): here bare-metal Ubuntu Yama policy and UCX's cma transport.")

add(id="au-pyxis-http-registry-enroot-allow-http",
    url="https://github.com/NVIDIA/pyxis/issues/51",
    source_repo="NVIDIA/pyxis", category="container",
    text="""pyxis: importing docker image ...
slurmstepd: error: pyxis: child 273922 failed with error code: 35
slurmstepd: error: pyxis: failed to import docker image
slurmstepd: error: pyxis: printing contents of log file ...
slurmstepd: error: pyxis:     [INFO] Querying registry for permission grant
slurmstepd: error: pyxis:     curl: (35) error:1408F10B:SSL routines:ssl3_get_record:wrong version number
slurmstepd: error: pyxis: couldn't start container
slurmstepd: error: pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint
slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1
slurmstepd: error: Failed to invoke spank plugin stack
srun: error: deepops-node3: task 0: Exited with exit code 1
""",
    family="pyxis.import_failed", family_alternatives=["enroot.registry", "pyxis.error"],
    fix="The private registry serves plain HTTP but enroot talks HTTPS by default (curl error 35, wrong version number); set ENROOT_ALLOW_HTTP=yes in /etc/enroot/enroot.conf on the compute nodes (setting it only on the srun command line was not picked up by the pyxis import), or put the registry behind TLS.",
    fix_keywords=["ENROOT_ALLOW_HTTP", "enroot.conf"],
    healthy=False, group="container",
    label_note="pyxis maintainer (flx42) answered to set ENROOT_ALLOW_HTTP=yes in enroot.conf directly; issue closed after the reporter's reply (reply text not in the excerpt I read) (medium). The reporter's command line (which carried ENROOT_ALLOW_HTTP=yes before srun) was left out of text so the keyword does not occur in it.")

add(id="au-gpuoperator-host-driver-in-use",
    url="https://github.com/NVIDIA/gpu-operator/issues/163",
    source_repo="NVIDIA/gpu-operator", category="k8s",
    text="""Starting installation of NVIDIA driver version 460.32.03 for Linux kernel version 4.15.0-136-generic

Stopping NVIDIA persistence daemon...
Unloading NVIDIA driver kernel modules...
Could not unload NVIDIA driver kernel modules, driver is in use
Stopping NVIDIA persistence daemon...
Unloading NVIDIA driver kernel modules...
Could not unload NVIDIA driver kernel modules, driver is in use
""",
    family="k8s.gpu_operator", family_alternatives=["container.gpu_driver", "fabric.manager_start"],
    fix="An NVIDIA kernel driver is already installed and loaded on the host (here pulled in by the cuda-drivers-fabricmanager-460 meta package), so the GPU Operator driver container cannot unload it; remove the host driver and install only the nvidia-fabricmanager-<branch> package, or keep the host driver and deploy the operator with driver.enabled=false.",
    fix_keywords=["driver.enabled", "host driver", "pre-installed", "preinstalled"],
    healthy=False, group="k8s-operator",
    label_note="GPU Operator maintainer (dualvtable) explained that the cuda-drivers-fabricmanager meta package installs the driver on the host and advised installing nvidia-fabricmanager-<branch> instead; reporter (ReyRen) confirmed the host kernel driver is the one in use and other operands use it (medium-strong).")

add(id="au-ib-hca-old-firmware-oem-psid",
    url="https://github.com/clustervision/trinity/issues/219",
    source_repo="clustervision/trinity", category="rdma",
    text="""[root@node045 ~]# ibstatus
Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)
[  939.318674] mlx4_en: Mellanox ConnectX HCA Ethernet driver v2.2-1 (Feb 2014)
[  939.318810] mlx4_en 0000:0d:00.0: LSO not supported, please upgrade to later FW version to enable LSO
[  939.319023] mlx4_en 0000:0d:00.0: UDP RSS is not supported on this device
[  939.325643] <mlx4_ib> mlx4_ib_add: mlx4_ib: Mellanox ConnectX InfiniBand driver v2.2-1 (Feb 2014)
""",
    family="rdma.no_device", family_alternatives=["rdma.fw_limit", "ofed.kernel", "rdma.port_down"],
    fix="The ConnectX cards on the failing nodes (a different OEM identifier) run firmware too old for the installed mlx4 driver stack, so no InfiniBand port is registered; update the HCA firmware on those nodes (e.g. with mlxfwmanager / flint). A reboot alone does not help.",
    fix_keywords=["firmware", "mlxfwmanager", "flint"],
    healthy=False, group="rdma",
    label_note="Trinity developers compared a failing and a working node's dmesg, concluded a firmware upgrade was needed (hansthen), and confirmed it fixed by a firmware update of the InfiniBand cards, which had a different OEM identifier (linuxstudio); closed (strong). Text = the reporter's ibstatus output plus the failing node's dmesg lines pasted in the thread.")

add(id="au-healthy-nccl-4gpu-init-destroy",
    url="https://github.com/NVIDIA/nccl/issues/671",
    source_repo="NVIDIA/nccl", category="healthy",
    text="""como:60725:60749 [1] NCCL INFO comm 0x7f784f101d90 rank 1 nranks 4 cudaDev 1 busId 7000 - Init COMPLETE
como:60725:60750 [2] NCCL INFO comm 0x7f7853101cf0 rank 2 nranks 4 cudaDev 2 busId a000 - Init COMPLETE
como:60725:60751 [3] NCCL INFO comm 0x7f7844000f60 rank 3 nranks 4 cudaDev 3 busId b000 - Init COMPLETE
como:60725:60748 [0] NCCL INFO comm 0x7f785b102010 rank 0 nranks 4 cudaDev 0 busId 6000 - Init COMPLETE
como:60725:60725 [0] NCCL INFO Launch mode Parallel
como:60725:60725 [3] NCCL INFO comm 0x7f785b102010 rank 0 nranks 4 cudaDev 0 busId 6000 - Destroy COMPLETE
como:60725:60725 [3] NCCL INFO comm 0x7f784f101d90 rank 1 nranks 4 cudaDev 1 busId 7000 - Destroy COMPLETE
como:60725:60725 [3] NCCL INFO comm 0x7f7853101cf0 rank 2 nranks 4 cudaDev 2 busId a000 - Destroy COMPLETE
como:60725:60725 [3] NCCL INFO comm 0x7f7844000f60 rank 3 nranks 4 cudaDev 3 busId b000 - Destroy COMPLETE
""",
    family="healthy", family_alternatives=[], fix="", fix_keywords=[],
    healthy=True, group="healthy",
    label_note="Question thread about how to read NCCL's tree topology; the pasted run completed (all four comms Init COMPLETE and Destroy COMPLETE) and the maintainer (sjeaugey) only explained the tree notation (medium-strong).")

add(id="au-healthy-nccl-dgx2-trees-chain",
    url="https://github.com/NVIDIA/nccl/issues/507",
    source_repo="NVIDIA/nccl", category="healthy",
    text="""[5] NCCL INFO Trees [0] 6/-1/-1->5->4 [1] 6/-1/-1->5->4 [2] 6/-1/-1->5->4 [3] 6/-1/-1->5->4 [4] 6/-1/-1->5->4 [5] 6/-1/-1->5->4 [6] 6/-1/-1->5->4 [7] 6/-1/-1->5->4 [8] 6/-1/-1->5->4 [9] 6/-1/-1->5->4 [10] 6/-1/-1->5->4 [11] 6/-1/-1->5->4
[4] NCCL INFO Trees [0] 5/-1/-1->4->3 [1] 5/-1/-1->4->3 [2] 5/-1/-1->4->3 [3] 5/-1/-1->4->3 [4] 5/-1/-1->4->3 [5] 5/-1/-1->4->3 [6] 5/-1/-1->4->3 [7] 5/-1/-1->4->3 [8] 5/-1/-1->4->3 [9] 5/-1/-1->4->3 [10] 5/-1/-1->4->3 [11] 5/-1/-1->4->3
[3] NCCL INFO Trees [0] 4/-1/-1->3->2 [1] 4/-1/-1->3->2 [2] 4/-1/-1->3->2 [3] 4/-1/-1->3->2 [4] 4/-1/-1->3->2 [5] 4/-1/-1->3->2 [6] 4/-1/-1->3->2 [7] 4/-1/-1->3->2 [8] 4/-1/-1->3->2 [9] 4/-1/-1->3->2 [10] 4/-1/-1->3->2 [11] 4/-1/-1->3->2
[2] NCCL INFO Trees [0] 3/-1/-1->2->1 [1] 3/-1/-1->2->1 [2] 3/-1/-1->2->1 [3] 3/-1/-1->2->1 [4] 3/-1/-1->2->1 [5] 3/-1/-1->2->1 [6] 3/-1/-1->2->1 [7] 3/-1/-1->2->1 [8] 3/-1/-1->2->1 [9] 3/-1/-1->2->1 [10] 3/-1/-1->2->1 [11] 3/-1/-1->2->1
""",
    family="healthy", family_alternatives=[], fix="", fix_keywords=[],
    healthy=True, group="healthy",
    label_note="Question about tree construction on 8 GPUs of a DGX-2 (NCCL_DEBUG_SUBSYS=INIT output); intra-node NCCL trees are always a chain, as the maintainer (sjeaugey) states in the sibling thread nccl#672, so this is normal output. Closed; I did not read a maintainer reply in this exact thread (medium). Only the 4 complete lines of the pasted block kept (the 5th was cut in the stored excerpt).")

with open("/tmp/heldout-au/explain_heldout_au.jsonl", "w") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(cases), "cases;", sum(c["healthy"] for c in cases), "healthy")
