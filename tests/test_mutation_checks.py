"""Every check over named fixture variants: each case states the outcome a user must see, and the
whole result (status, per-node text, each finding's message, observed, expected, fix, exports and
hosts) is compared to tests/test_mutation_outcomes.json, reviewed by hand when made.

Why the whole text: a finding's fix is commands a person pastes, and a pass line is the evidence
the report prints (issue 11, item 1); a wrong word there is a wrong report. The cases were chosen
against the survivors of a mutation run (docs/mutation.md): every branch of every check, and the
boundary of every threshold (a value at it and one below). Regenerate the expectations on purpose
with GPUDOCTOR_REGEN_GOLDEN=1 and review the diff, as for tests/golden/."""

import copy
import json
import os

import pytest

from conftest import node_facts, run_check

EXPECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_mutation_outcomes.json")
GiB = 1 << 30
DEL = object()


def H():
    return node_facts("h100-ubuntu2404-torch211")


def D():
    return node_facts("devbox-debian12-nogpu")


def mod(doc, changes):
    """A copy of `doc` with "a/b/0/c" paths set (DEL removes the key)."""
    doc = copy.deepcopy(doc)
    for path, value in changes.items():
        keys = path.split("/")
        cur = doc
        for k in keys[:-1]:
            k = int(k) if isinstance(cur, list) else k
            if not isinstance(cur, list) and k not in cur:
                cur[k] = {}
            cur = cur[k]
        last = int(keys[-1]) if isinstance(cur, list) else keys[-1]
        if value is DEL:
            cur.pop(last, None)
        else:
            cur[last] = copy.deepcopy(value)
    return doc


CASES = []


def case(name, check_id, facts, status, **cfg):
    CASES.append(pytest.param(check_id, facts, status, cfg, id=name))


def gpu(**kw):
    g = {"bus_id": "00000000:00:06.0", "compute_capability": "9.0", "ecc_uncorrected_volatile": 0, "index": 0,
         "name": "NVIDIA H100 80GB HBM3", "persistence_mode": True, "processes": [], "remapped_rows_failure": False,
         "remapped_rows_pending": False}
    g.update(kw)
    return {k: v for k, v in g.items() if v is not DEL}


# -- shm.size: the threshold is inclusive (1 GiB passes, 1 GiB - 1 does not) --------------------
SHM = lambda total, free, container=None: mod(H(), {"shm/total_bytes": total, "shm/free_bytes": free,  # noqa: E731
                                                      "host/container": container})
case("shm-at-threshold", "shm.size", SHM(GiB, GiB), "pass")
case("shm-below-threshold-host", "shm.size", SHM(GiB - 1, GiB - 1), "fail")
case("shm-below-threshold-docker", "shm.size", SHM(64 << 20, 64 << 20, "docker"), "fail")
case("shm-free-below-threshold", "shm.size", SHM(2 * GiB, GiB - 1), "warn")
case("shm-free-below-threshold-docker", "shm.size", SHM(2 * GiB, GiB - 1, "docker"), "warn")
case("shm-min-from-config", "shm.size", SHM(2 * GiB, 2 * GiB), "fail", min_shm_bytes=4 * GiB)
case("shm-absent-in-container", "shm.size", mod(H(), {"shm": {"status": "unsupported", "reason": "no tmpfs"}}),
     "fail")
case("shm-absent-on-host", "shm.size", mod(H(), {"shm": {"status": "unsupported"}, "host/container": None}), "fail")
case("shm-error", "shm.size", mod(H(), {"shm": {"status": "error", "reason": "statvfs: EIO"}}), "skipped")
case("shm-error-no-reason", "shm.size", mod(H(), {"shm": {"status": "error"}}), "skipped")
case("shm-not-collected", "shm.size", mod(H(), {"shm": DEL}), "skipped")

# -- limits.memlock ----------------------------------------------------------------------------
ML = lambda soft, hard, **more: mod(H(), dict({"limits/memlock": {"soft": soft, "hard": hard}}, **more))  # noqa
case("memlock-unlimited", "limits.memlock", ML("unlimited", "unlimited"), "pass")
case("memlock-unlimited-getrlimit", "limits.memlock", ML("unlimited", "unlimited", **{"limits/source": DEL}), "pass")
case("memlock-hard-limited", "limits.memlock", ML("unlimited", 8 << 20), "warn")
case("memlock-soft-limited", "limits.memlock", ML(65536, "unlimited"), "warn")
case("memlock-with-rdma", "limits.memlock",
     ML(8 << 20, 8 << 20, **{"rdma/devices": [{"name": "mlx5_0"}, {"name": "mlx5_1"}]}), "fail")
case("memlock-rdma-section-failed", "limits.memlock",
     ML(8 << 20, 8 << 20, **{"rdma/devices": [{"name": "mlx5_0"}], "rdma/status": "error"}), "warn")
case("memlock-not-reported", "limits.memlock", mod(H(), {"limits/memlock": None}), "na")
# only RDMA pins memory: with no device, no RDMA driver and no container there is nothing to judge
case("memlock-no-rdma-on-host", "limits.memlock", ML(8 << 20, 8 << 20, **{"host/container": None}), "na")
case("memlock-rdma-driver-on-host", "limits.memlock",
     ML(8 << 20, 8 << 20, **{"host/container": None, "rdma/modules_loaded": ["mlx5_ib"]}), "warn")
case("memlock-rdma-unknown-on-host", "limits.memlock",
     ML(8 << 20, 8 << 20, **{"host/container": None, "rdma": {"status": "error", "reason": "EPERM"}}), "warn")

# -- ssh.permissions ---------------------------------------------------------------------------
def SSH(entries, uid=1000, user="alice"):
    return mod(D(), {"ssh": {"status": "ok", "home": "/home/alice", "uid": uid, "user": user, "entries": entries}})


def E(path, mode, kind, uid=1000):
    return {"path": path, "mode": mode, "kind": kind, "uid": uid}


GOOD = [E("/home/alice", "0755", "home"), E("/home/alice/.ssh", "0700", "ssh_dir"),
        E("/home/alice/.ssh/authorized_keys", "0600", "authorized_keys"),
        E("/home/alice/.ssh/id_ed25519", "0600", "private_key"), E("/home/alice/.ssh/config", "0644", "config")]
case("ssh-perms-good", "ssh.permissions", SSH(GOOD), "pass")
case("ssh-perms-good-many", "ssh.permissions", SSH(GOOD + [E("/home/alice/.ssh/id_rsa", "0400", "private_key"),
                                                          E("/home/alice/.ssh/known", "0644", "other")]), "pass")
case("ssh-perms-good-six", "ssh.permissions", SSH(GOOD + [E("/home/alice/.ssh/id_rsa", "0400", "private_key")]),
     "pass")
case("ssh-perms-other-owner-no-user", "ssh.permissions",
     SSH([E("/home/alice/.ssh", "0700", "ssh_dir", uid=1001)], user=None), "fail")
case("ssh-perms-no-user", "ssh.permissions", SSH(GOOD[:1], user=None), "pass")
case("ssh-perms-root-home", "ssh.permissions", SSH([E("/home/alice", "0755", "home", uid=0)]), "pass")
case("ssh-perms-root-user", "ssh.permissions", SSH([E("/root/.ssh", "0700", "ssh_dir", uid=0)], uid=0), "pass")
case("ssh-perms-empty", "ssh.permissions", SSH([]), "na")
case("ssh-perms-other-owner", "ssh.permissions", SSH([E("/home/alice/.ssh", "0700", "ssh_dir", uid=1001)]), "fail")
case("ssh-perms-root-owned-key", "ssh.permissions", SSH([E("/home/alice/.ssh/id_rsa", "0600", "private_key", uid=0)]),
     "fail")
case("ssh-perms-unknown-kind-other-owner", "ssh.permissions", SSH([E("/home/alice/x", "0777", "other", uid=7)]),
     "fail")
case("ssh-perms-home-group-writable", "ssh.permissions", SSH([E("/home/alice", "0775", "home")]), "fail")
case("ssh-perms-home-world-writable", "ssh.permissions", SSH([E("/home/alice", "0757", "home")]), "fail")
case("ssh-perms-home-readable", "ssh.permissions", SSH([E("/home/alice", "0750", "home")]), "pass")
case("ssh-perms-dir-writable", "ssh.permissions", SSH([E("/home/alice/.ssh", "0770", "ssh_dir")]), "fail")
case("ssh-perms-dir-readable", "ssh.permissions", SSH([E("/home/alice/.ssh", "0740", "ssh_dir")]), "warn")
case("ssh-perms-dir-world-x", "ssh.permissions", SSH([E("/home/alice/.ssh", "0701", "ssh_dir")]), "warn")
case("ssh-perms-authkeys-readable", "ssh.permissions",
     SSH([E("/home/alice/.ssh/authorized_keys", "0644", "authorized_keys")]), "warn")
case("ssh-perms-authkeys-writable", "ssh.permissions",
     SSH([E("/home/alice/.ssh/authorized_keys", "0620", "authorized_keys")]), "fail")
case("ssh-perms-key-readable", "ssh.permissions", SSH([E("/home/alice/.ssh/id_rsa", "0640", "private_key")]), "fail")
case("ssh-perms-key-world-x", "ssh.permissions", SSH([E("/home/alice/.ssh/id_rsa", "0601", "private_key")]), "fail")
case("ssh-perms-config-writable", "ssh.permissions", SSH([E("/home/alice/.ssh/config", "0666", "config")]), "fail")
case("ssh-perms-owner-and-mode", "ssh.permissions", SSH([E("/home/alice/.ssh", "0777", "ssh_dir", uid=5)]), "fail")

# -- ssh.config --------------------------------------------------------------------------------
def CFG(text, uid=1000, mode="0600", user="alice"):
    return mod(D(), {"ssh": {"status": "ok", "home": "/home/alice", "uid": 1000, "user": user, "config": text,
                             "entries": [E("/home/alice/.ssh", "0700", "ssh_dir"),
                                         E("/home/alice/.ssh/config", mode, "config", uid=uid)]}})


case("ssh-config-clean", "ssh.config", CFG("Host gpu*\n  User alice\n# a comment\n  Port 22\n"), "pass")
case("ssh-config-root-owned", "ssh.config", CFG("Host *\n  User alice\n", uid=0), "pass")
case("ssh-config-none", "ssh.config", mod(D(), {"ssh/entries": [E("/home/alice/.ssh", "0700", "ssh_dir")]}), "na")
case("ssh-config-unreadable", "ssh.config", CFG(None, mode="0000"), "fail")
case("ssh-config-unreadable-no-user", "ssh.config", CFG(None, user=None), "fail")
case("ssh-config-other-owner", "ssh.config", CFG("Host *\n  User alice\n", uid=1001), "fail")
case("ssh-config-one-comment", "ssh.config", CFG("Host gpu*\n  Port 33  # jump host\n"), "warn")
case("ssh-config-four-comments", "ssh.config",
     CFG("Host a # x\n  Port=33 #y\n  User bob\t# z\nHost b\n  HostName 10.0.0.2 # w\n"), "warn")
case("ssh-config-other-owner-and-comment", "ssh.config", CFG("Host a\n  Port 33 # x\n", uid=1001, user=None), "fail")


@pytest.mark.parametrize("line,flagged", [
    ("Port 33  # jump host", True),
    ("Port=33 #x", True),
    ("  User bob\t# tab", True),
    ("# Port 33 # whole line", False),
    ("Port #33", False),  # no value before the '#': the value is '#33'
    ("Host a#b c", False),  # '#' inside a word
    ('ProxyCommand "ssh -W %h:%p # x" j', False),  # quoted
    ("", False),
    ("   ", False),
    ("Port 33", False),
])
def test_trailing_comments(line, flagged):
    from gpudoctor.checks.ssh_config import trailing_comments

    text = "Host x\n" + line + "\nUser y"
    assert trailing_comments(text) == ([(2, line.rstrip())] if flagged else [])
    assert trailing_comments(None) == []


# -- host.name ---------------------------------------------------------------------------------
def HN(name, addrs, container=None, net=None):
    changes = {"host/hostname": name, "host/hostname_addresses": addrs, "host/container": container}
    if net is not None:
        changes["network"] = net
    return mod(H(), changes)


IF = lambda name, addrs, virtual=False: {"name": name, "virtual": virtual,  # noqa: E731
                                         "ipv4": [{"address": a} for a in addrs]}
case("hostname-good", "host.name", HN("gpu01", ["192.0.2.2"]), "pass")
case("hostname-localhost", "host.name", HN("localhost", ["127.0.0.1"]), "fail")
case("hostname-empty", "host.name", HN("", []), "fail")
case("hostname-localhost6", "host.name", HN("localhost6.localdomain6", ["::1"]), "fail")
case("hostname-unresolved", "host.name", HN("gpu01", []), "fail")
case("hostname-loopback-container", "host.name", HN("vm", ["127.0.0.1"], container="docker"), "fail")
case("hostname-loopback-host-dotted", "host.name", HN("gpu01.example", ["127.0.1.1", "::1"]), "fail")
case("hostname-loopback-no-network", "host.name", HN("gpu01", ["127.0.1.1"], net={"status": "error"}), "fail")
case("hostname-loopback-no-default-route", "host.name",
     HN("gpu01", ["127.0.1.1"], net={"status": "ok", "interfaces": [IF("lo", ["127.0.0.1"]), IF("vir0", ["10.9.0.1"],
                                                                                                  True),
                                                                     IF("eth1", []), IF("eth2", ["10.0.0.7"])]}),
     "fail")
case("hostname-loopback-default-route-not-listed", "host.name",
     HN("gpu01", ["127.0.1.1"], net={"status": "ok", "default_route": {"interface": "ib0"},
                                     "interfaces": [IF("eth0", ["10.0.0.5"])]}), "fail")
case("hostname-loopback-default-route-loopback-only", "host.name",
     HN("gpu01", ["127.0.1.1"], net={"status": "ok", "default_route": {"interface": "lo"},
                                     "interfaces": [IF("lo", ["127.0.0.1"]), IF("eth0", ["10.0.0.5"])]}), "fail")
case("hostname-loopback-nothing-reachable", "host.name",
     HN("gpu01", ["127.0.1.1"], net={"status": "ok", "interfaces": [IF("lo", ["127.0.0.1"])]}), "fail")
case("hostname-mixed", "host.name", HN("gpu01", ["10.0.0.5", "127.0.1.1"]), "warn")
case("hostname-mixed-many", "host.name", HN("gpu01", ["10.0.0.5", "127.0.1.1", "10.1.0.5", "::1"]), "warn")
case("hostname-good-two-addresses", "host.name", HN("gpu01", ["10.0.0.5", "10.1.0.5"]), "pass")
# the default route's interface is named first in the fix, even when listed last or virtual
case("hostname-loopback-default-route-last", "host.name",
     HN("gpu01", ["127.0.1.1"], net={"status": "ok", "default_route": {"interface": "bond0"},
                                     "interfaces": [IF("eth0", ["10.0.0.5"]), IF("bond0", ["10.1.0.5"], True)]}),
     "fail")

# -- kernel.ofed -------------------------------------------------------------------------------
OFED_INFO = {"flavor": "MLNX_OFED", "version": "5.4-3.5.8.0", "raw": "MLNX_OFED_LINUX-5.4-3.5.8.0"}


def OF(**over):
    sec = {"status": "ok", "running_kernel": "3.10.0-1160.90.1.el7", "ofed_info": OFED_INFO,
           "kernels": [{"release": "3.10.0-1160.31.1.el7", "ofed_dirs": ["extra/mlnx-ofa_kernel"]},
                       {"release": "3.10.0-1160.90.1.el7", "ofed_dirs": []}],
           "module_versions": {}, "modules_loaded": [], "grub_entries": [], "bls_entries": [], "grub_cfg": None}
    sec.update(over)
    return mod(H(), {"ofed": sec})


RUN_OK = [{"release": "3.10.0-1160.90.1.el7", "ofed_dirs": ["extra/mlnx-ofa_kernel"]}]
GRUB = [{"kernel": "3.10.0-1160.31.1.el7", "title": "CentOS (3.10.0-1160.31.1.el7)", "submenu": None}]
SUBMENU = [{"kernel": "3.10.0-1160.31.1.el7", "title": "Ubuntu, with Linux 3.10", "submenu": "Advanced options"}]
case("ofed-none", "kernel.ofed", OF(ofed_info=None, kernels=[]), "na")
case("ofed-missing-for-running-kernel-grub2", "kernel.ofed", OF(grub_entries=GRUB, grub_cfg="/boot/grub2/grub.cfg"),
     "fail")
case("ofed-missing-for-running-kernel-efi-submenu", "kernel.ofed",
     OF(grub_entries=SUBMENU, grub_cfg="/boot/efi/EFI/centos/grub.cfg"), "fail")
case("ofed-missing-for-running-kernel-debian-grub", "kernel.ofed",
     OF(grub_entries=GRUB, grub_cfg="/boot/grub/grub.cfg"), "fail")
case("ofed-missing-for-running-kernel-debian-submenu", "kernel.ofed", OF(grub_entries=SUBMENU), "fail")
case("ofed-missing-for-running-kernel-debian-efi", "kernel.ofed",
     OF(grub_entries=GRUB, grub_cfg="/boot/efi/grub/grub.cfg"), "fail")
case("ofed-missing-for-running-kernel-bls", "kernel.ofed",
     OF(bls_entries=[{"kernel": "3.10.0-1160.31.1.el7"}], grub_entries=[{"kernel": "other", "title": "x"}]), "fail")
case("ofed-missing-for-running-kernel-no-loader", "kernel.ofed",
     OF(kernels=[{"release": "3.10.0-1160.31.1.el7", "ofed_dirs": ["updates"]},
                 {"release": "3.10.0-1160.20.1.el7", "ofed_dirs": ["updates"]}]), "fail")
case("ofed-info-but-no-kernel-has-it", "kernel.ofed",
     OF(kernels=[{"release": "3.10.0-1160.90.1.el7", "ofed_dirs": []}]), "fail")
case("ofed-running-kernel-not-listed", "kernel.ofed", OF(running_kernel=None), "fail")
case("ofed-modules-without-info", "kernel.ofed", OF(ofed_info=None, kernels=RUN_OK), "pass")
case("ofed-good", "kernel.ofed", OF(kernels=RUN_OK, module_versions={"mlx5_core": "5.4-3.5.8"},
                                    modules_loaded=["mlx5_core"]), "pass")
case("ofed-good-module-unloaded", "kernel.ofed", OF(kernels=RUN_OK), "pass")
case("ofed-module-version-mismatch", "kernel.ofed", OF(kernels=RUN_OK, module_versions={"mlx5_core": "5.8-1.0.1"}),
     "fail")
case("ofed-module-version-longer", "kernel.ofed", OF(kernels=RUN_OK, module_versions={"mlx5_core": "5.4-3.5.8.0.1"}),
     "pass")
case("ofed-inbox-driver-loaded", "kernel.ofed", OF(kernels=RUN_OK, modules_loaded=["mlx5_core"]), "warn")
case("ofed-erdma-not-loaded", "kernel.ofed",
     OF(ofed_info=None, kernels=[{"release": "3.10.0-1160.90.1.el7", "ofed_dirs": [], "erdma_module": True}]), "fail")
case("ofed-erdma-loaded", "kernel.ofed",
     OF(ofed_info=None, erdma_loaded=True,
        kernels=[{"release": "3.10.0-1160.90.1.el7", "ofed_dirs": [], "erdma_module": True}]), "pass")
case("ofed-and-erdma-loaded", "kernel.ofed",
     OF(erdma_loaded=True, module_versions={"mlx5_core": "5.4-3.5.8.0"},
        kernels=[{"release": "3.10.0-1160.90.1.el7", "ofed_dirs": ["updates"], "erdma_module": True}]), "pass")


@pytest.mark.parametrize("a,b,same", [("5.4-3.5.8.0", "5.4-3.5.8", True), ("5.4-3.5.8.0", "5.4.3.5.8.0", True),
                                      ("5.4-3.5.8.0", "5.4-3.5.9", False), ("24.10-1.1.4", "24.10", True),
                                      ("24.10-1.1.4", "24.1", False)])
def test_ofed_versions_match(a, b, same):
    from gpudoctor.checks.kernel_ofed import _versions_match

    assert _versions_match(a, b) is same and _versions_match(b, a) is same


# -- rdma.ports --------------------------------------------------------------------------------
def PORT(port=1, state="ACTIVE", phys="LinkUp", ll="Ethernet", netdev="eth1", rate="100 Gb/sec (4X EDR)"):
    return {"port": port, "state": state, "phys_state": phys, "link_layer": ll, "netdev": netdev, "rate": rate}


def RD(devices, dev_ib=None, container=None, modules=(), builtin=(), class_exists=True, net=None):
    changes = {"rdma": {"status": "ok", "devices": devices, "modules_loaded": list(modules),
                        "modules_builtin": list(builtin), "class_infiniband_exists": class_exists,
                        "dev_infiniband": dev_ib if dev_ib is not None else
                        ["rdma_cm"] + [d["uverbs"] for d in devices if d.get("uverbs")]},
               "host/container": container}
    if net is not None:
        changes["network"] = net
    return mod(H(), changes)


DEV = lambda name, ports, uverbs="uverbs0", driver="mlx5_core": {"name": name, "ports": ports,  # noqa: E731
                                                                 "uverbs": uverbs, "driver": driver}
case("rdma-none", "rdma.ports", RD([]), "na")
case("rdma-none-builtin", "rdma.ports", RD([], builtin=["mlx5_core", "ib_core", "irdma"]), "na")
case("rdma-none-one-module", "rdma.ports", RD([], modules=["mlx5_core", "ib_core"]), "warn")
case("rdma-none-two-modules-no-class", "rdma.ports", RD([], modules=["erdma", "efa"], class_exists=False), "warn")
case("rdma-all-active", "rdma.ports", RD([DEV("mlx5_0", [PORT()]), DEV("mlx5_1", [PORT(rate=None)], "uverbs1")]),
     "pass")
case("rdma-five-active", "rdma.ports",
     RD([DEV("mlx5_%d" % i, [PORT()], "uverbs%d" % i) for i in range(5)]), "pass")
case("rdma-one-down", "rdma.ports",
     RD([DEV("mlx5_0", [PORT()]), DEV("mlx5_1", [PORT(state="DOWN", phys="Disabled", netdev="eth2")], "uverbs1")],
        net={"status": "ok", "interfaces": [{"name": "eth2", "state": "down", "ipv4": []}]}), "warn")
case("rdma-one-down-ib", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(ll="InfiniBand", netdev=None)]),
         DEV("mlx5_1", [PORT(state="DOWN", ll="InfiniBand", netdev=None)], "uverbs1")]), "warn")
case("rdma-none-active-ib-init", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(state="INIT", phys="LinkUp", ll="InfiniBand", netdev=None)])]), "fail")
case("rdma-none-active-erdma-no-address", "rdma.ports",
     RD([DEV("erdma_0", [PORT(state="DOWN", netdev="eth1")], driver="erdma")],
        net={"status": "ok", "interfaces": [{"name": "eth1", "state": "unknown", "ipv4": []}]}), "fail")
case("rdma-none-active-netdev-up-with-address", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(state="DOWN", netdev="eth1")])],
        net={"status": "ok", "interfaces": [{"name": "eth1", "state": "up", "ipv4": [{"address": "10.0.0.1"}]}]}),
     "fail")
case("rdma-none-active-netdev-unknown", "rdma.ports", RD([DEV("mlx5_0", [PORT(state="DOWN", netdev="eth9")])]),
     "fail")
case("rdma-none-active-no-netdev", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(state="DOWN", netdev=None, ll=None)])]), "fail")
case("rdma-uverbs-missing-in-container", "rdma.ports", RD([DEV("mlx5_0", [PORT()])], dev_ib=[], container="docker"),
     "fail")
case("rdma-uverbs-missing-on-host", "rdma.ports", RD([DEV("mlx5_0", [PORT()])], dev_ib=["rdma_cm"]), "fail")
case("rdma-no-uverbs-name", "rdma.ports", RD([DEV("mlx5_0", [PORT()], uverbs=None)], dev_ib=["rdma_cm"]), "pass")
case("rdma-first-rate-unknown", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(rate=None)]), DEV("mlx5_1", [PORT()], "uverbs1")]), "pass")
case("rdma-two-ports-none-active", "rdma.ports",
     RD([DEV("mlx5_0", [PORT(state="DOWN", ll="InfiniBand", netdev=None)]),
         DEV("mlx5_1", [PORT(state="INIT", ll="InfiniBand", netdev=None)], "uverbs1")]), "fail")
case("rdma-one-uverbs-missing-in-container", "rdma.ports",
     RD([DEV("mlx5_0", [PORT()]), DEV("mlx5_1", [PORT()], "uverbs1")], dev_ib=["rdma_cm", "uverbs0"],
        container="docker"), "fail")
case("rdma-two-missing-on-host", "rdma.ports",
     RD([DEV("mlx5_0", [PORT()]), DEV("mlx5_1", [PORT()], "uverbs1"), DEV("mlx5_2", [PORT()], "uverbs2")],
        dev_ib=["rdma_cm", "uverbs2"]), "fail")
case("rdma-dev-infiniband-empty-on-host", "rdma.ports", RD([DEV("mlx5_0", [PORT()])], dev_ib=[]), "fail")

# -- cuda.libs ---------------------------------------------------------------------------------
LIBS = "python/torch/libs/libs"
B13 = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/"


def LIB(name="libcublas.so.13", path="/usr/local/cuda-12.4/lib64/libcublas.so.13", version="12.4.5.8",
        bundled=B13 + "libcublas.so.13", bundled_version="13.1.0.3", **kw):
    e = {"name": name, "path": path, "version": version, "bundled": bundled, "bundled_version": bundled_version,
         "wheel": "nvidia-cublas"}
    e.update(kw)
    return e


case("cudalibs-fixture", "cuda.libs", H(), "pass")
case("cudalibs-no-torch", "cuda.libs", mod(D(), {"python/torch": None}), "na")
case("cudalibs-no-torch-no-exe", "cuda.libs", mod(D(), {"python/torch": None, "python/executable": None}), "na")
case("cudalibs-cpu-build", "cuda.libs", mod(H(), {"python/torch/libs": None}), "na")
case("cudalibs-empty-libs", "cuda.libs", mod(H(), {LIBS: []}), "na")
case("cudalibs-not-found", "cuda.libs", mod(H(), {LIBS: [LIB(path=None)], "python/prefix": "/opt/torch/.venv"}), "fail")
case("cudalibs-not-found-no-wheel", "cuda.libs",
     mod(H(), {LIBS: [LIB(path=None, wheel=None, bundled=None, bundled_version=None)]}), "fail")
case("cudalibs-realpath-is-bundled", "cuda.libs",
     mod(H(), {LIBS: [LIB(path="/usr/lib/libcublas.so.13", realpath=B13 + "libcublas.so.13")]}), "pass")
case("cudalibs-in-bundle", "cuda.libs",
     mod(H(), {LIBS: [LIB(path=B13 + "x/libcublas.so.13", in_bundle=True, version=None)]}), "pass")
case("cudalibs-no-bundled", "cuda.libs", mod(H(), {LIBS: [LIB(bundled=None)]}), "pass")
case("cudalibs-same-version-elsewhere", "cuda.libs", mod(H(), {LIBS: [LIB(version="13.1.0.3+x")]}), "pass")
case("cudalibs-same-version-two-parts", "cuda.libs", mod(H(), {LIBS: [LIB(version="13.1")]}), "pass")
case("cudalibs-ldd-path-wins", "cuda.libs",
     mod(H(), {LIBS: [LIB(path=B13 + "libcublas.so.13", version="12.4.5.8", realpath=B13 + "libcublas.so.13")],
               "python/torch/ldd": {"libcublas.so.13": "/usr/local/cuda-12.4/lib64/libcublas.so.13"},
               "python/torch/libs/ld_library_path": "/usr/local/cuda-12.4/lib64/"}), "fail")
case("cudalibs-ldd-without-entry", "cuda.libs",
     mod(H(), {LIBS: [LIB()], "python/torch/ldd": {"other.so": "/x"},
               "python/torch/libs/ld_library_path": "/opt/x:/usr/local/cuda-12.4/lib64"}), "fail")
case("cudalibs-older-from-ldlp", "cuda.libs",
     mod(H(), {LIBS: [LIB(), LIB(name="libcudart.so.13", path="/usr/local/cuda-12.4/lib64/libcudart.so.13",
                                 version=None, bundled=B13 + "libcudart.so.13", bundled_version=None)],
               "python/torch/libs/ld_library_path": "/usr/local/cuda-12.4/lib64:/usr/local/nvidia/lib64:"}), "fail")
case("cudalibs-unknown-versions-not-on-ldlp", "cuda.libs",
     mod(H(), {LIBS: [LIB(version=None, path="/usr/lib64/libcublas.so.13"),
                      LIB(name="libcudnn.so.9", version=None, path="/usr/lib64/libcudnn.so.9",
                          bundled="/opt/cudnn/lib/libcudnn.so.9")],
               "python/torch/libs/ld_library_path": None}), "warn")
case("cudalibs-ldlp-only-dir", "cuda.libs",
     mod(H(), {LIBS: [LIB(path="/usr/local/cuda-12.4/lib64/libcublas.so.13")],
               "python/torch/libs/ld_library_path": "/usr/local/cuda-12.4/lib64"}), "fail")
# every library is judged, whatever the ones before it were (bundled, in the bundle, the system's, same version)
case("cudalibs-every-library-judged", "cuda.libs",
     mod(H(), {LIBS: [LIB(path=B13 + "libcublas.so.13", bundled_version=None),
                      LIB(name="libcudart.so.13", path=B13 + "x/libcudart.so.13", in_bundle=True, version="13.0.96",
                          bundled=B13 + "libcudart.so.13"),
                      LIB(name="libcufft.so.12", bundled=None, path="/usr/lib64/libcufft.so.12"),
                      LIB(name="libcusparse.so.12", version="12.5.1", bundled_version="12.5.1.3",
                          path="/usr/lib64/libcusparse.so.12"),
                      LIB(name="libcudnn.so.9", path=None),
                      LIB(name="libnccl.so.2", path="/opt/nccl/lib/libnccl.so.2", version="2.21.5",
                          bundled="/opt/torch/nccl/lib/libnccl.so.2", bundled_version="2.28.9")],
               "python/torch/libs/ld_library_path": "/opt/nccl/lib"}), "fail")
# one bad library from LD_LIBRARY_PATH, one from elsewhere: torch's own folders are put first
case("cudalibs-bad-from-two-places", "cuda.libs",
     mod(H(), {LIBS: [LIB(), LIB(name="libcudnn.so.9", path="/usr/lib64/libcudnn.so.9", version="8.9.7",
                                 bundled="/opt/cudnn/lib/libcudnn.so.9", bundled_version="9.19.0.56"),
                      LIB(name="libnccl.so.2", path="/opt/nccl/lib/libnccl.so.2", version="2.21.5",
                          bundled="/opt/torch/nccl/lib/libnccl.so.2", bundled_version="2.28.9")],
               "python/torch/libs/ld_library_path": "/opt/nccl/lib:/usr/local/cuda-12.4/lib64"}), "fail")


@pytest.mark.parametrize("a,b,want", [("13.1.0.3", "13.1.0.3", True), ("13.1.0.3", "13.1.0.9", True),
                                      ("13.1.0", "13.2.0", False), ("2.28.9+cuda13.0", "2.28.9", True),
                                      ("13", "12.4", False), ("13", "13.4", True), (None, "1", None), ("1", "", None),
                                      ("13.1.0.3", "13.1.0.3+cu13", True), ("13.1.0", "13.1", True),
                                      ("13.2.0", "13.1", False)])
def test_cuda_libs_same_version(a, b, want):
    from gpudoctor.checks.cuda_libs import _same

    assert _same(a, b) is want


# -- driver.cuda, driver.mismatch --------------------------------------------------------------
def DRV(driver="580.159.04", torch_cuda="13.0", nvcc="13.0.88", **more):
    # no libcuda on LD_LIBRARY_PATH unless a case puts one there (the fixture's is the driver's own)
    changes = {"gpu/driver_version": driver, "python/torch/cuda": torch_cuda, "cuda/nvcc_version": nvcc,
               "cuda/compat": []}
    changes.update(more)
    return mod(H(), changes)


COMPAT = lambda version, d="/usr/local/cuda-13.0/compat", idx=0: {  # noqa: E731
    "dir": d, "version": version, "on_ld_library_path": True, "ld_library_path_index": idx}
case("driver-fixture", "driver.cuda", H(), "pass")
case("driver-no-version", "driver.cuda", DRV(driver=None), "skipped")
case("driver-nothing-to-judge", "driver.cuda", DRV(torch_cuda=None, nvcc=None), "na")
case("driver-torch-only", "driver.cuda", DRV(nvcc=None, **{"cuda/status": "error"}), "pass")
case("driver-too-old-for-13", "driver.cuda", DRV(driver="535.104.05", nvcc=None), "fail")
case("driver-too-old-compat-offered", "driver.cuda",
     DRV(driver="535.104.05", nvcc=None, **{"cuda/compat": [{"dir": "/usr/local/cuda-13.0/compat/",
                                                             "version": "580.95.05", "on_ld_library_path": False}],
                                            "cuda/ld_library_path": "/usr/local/cuda-13.0/compat/:/usr/lib"}), "fail")
case("driver-too-old-geforce-no-compat-offer", "driver.cuda",
     DRV(driver="535.104.05", nvcc=None, **{"cuda/compat": [{"dir": "/usr/local/cuda-13.0/compat",
                                                             "version": "580.95.05", "on_ld_library_path": False}],
                                            "gpu/gpus/0/name": "NVIDIA GeForce RTX 4090"}), "fail")
case("driver-ancient-no-newest", "driver.cuda", DRV(driver="300.1", torch_cuda="12.1", nvcc=None), "fail")
case("driver-minor-compat-only", "driver.cuda", DRV(driver="525.60.13", torch_cuda="12.4", nvcc=None), "warn")
case("driver-at-full-support", "driver.cuda", DRV(driver="550.54.14", torch_cuda="12.4", nvcc=None), "pass")
case("driver-cuda-not-in-table", "driver.cuda", DRV(torch_cuda="9.0", nvcc=None), "skipped")
case("driver-newer-minor-than-table", "driver.cuda", DRV(driver="600.10", torch_cuda="13.9", nvcc=None), "skipped")
# below the newest older row (13.2 Update 2, 595.71.05), so below 13.9's own minimum too (issue 19)
case("driver-newer-minor-below-older-row", "driver.cuda", DRV(torch_cuda="13.9", nvcc=None), "warn")
case("driver-torch-ok-nvcc-too-new", "driver.cuda", DRV(driver="550.54.14", torch_cuda="12.4", nvcc="13.0.88"),
     "fail")
case("driver-compat-older-than-driver", "driver.cuda",
     DRV(**{"cuda/compat": [COMPAT("575.51.03", idx=1), COMPAT("580.1", d="/x", idx=2)],
            "cuda/ld_library_path": "/usr/lib:/usr/local/cuda-13.0/compat/:/x"}), "fail")
case("driver-compat-older-only-entry", "driver.cuda",
     DRV(**{"cuda/compat": [COMPAT("575.51.03")], "cuda/ld_library_path": "/usr/local/cuda-13.0/compat"}), "fail")
case("driver-compat-on-geforce", "driver.cuda",
     DRV(driver="550.54.14", torch_cuda="12.4", nvcc=None,
         **{"cuda/compat": [COMPAT("580.95.05")], "cuda/ld_library_path": "/usr/local/cuda-13.0/compat:/a",
            "gpu/gpus/0/name": "NVIDIA TITAN V"}), "fail")
case("driver-compat-forward-active", "driver.cuda",
     DRV(driver="550.54.14", nvcc=None, **{"cuda/compat": [COMPAT("580.95.05")]}), "pass")
case("driver-compat-same-version", "driver.cuda", DRV(**{"cuda/compat": [COMPAT("580.159.04")]}), "pass")
case("driver-kepler-on-cuda12", "driver.cuda",
     DRV(driver="550.54.14", torch_cuda="12.4", nvcc=None,
         **{"gpu/gpus/0/compute_capability": "3.7", "gpu/gpus/0/name": "Tesla K80"}), "fail")
case("driver-volta-on-cuda13", "driver.cuda",
     DRV(nvcc=None, **{"gpu/gpus/0/compute_capability": "7.0", "gpu/gpus/0/name": "Tesla V100"}), "fail")
case("driver-turing-on-cuda13", "driver.cuda",
     DRV(nvcc=None, **{"gpu/gpus/0/compute_capability": "7.5", "gpu/gpus/0/name": "Tesla T4"}), "pass")
# cuda-compat is offered only from a .../compat folder, and only when it is new enough (>= is enough)
case("driver-too-old-compat-exactly-enough", "driver.cuda",
     DRV(driver="535.104.05", nvcc=None, **{"cuda/compat": [{"dir": "/usr/local/cuda-13.0/compat",
                                                             "version": "580.65.06", "on_ld_library_path": False}],
                                            "cuda/ld_library_path": None}), "fail")
case("driver-too-old-compat-too-old", "driver.cuda",
     DRV(driver="535.104.05", nvcc=None, **{"cuda/compat": [{"dir": "/usr/local/cuda-12.9/compat",
                                                             "version": "575.51.03", "on_ld_library_path": False},
                                                            {"dir": "/opt/driver/lib64", "version": "590.1",
                                                             "on_ld_library_path": False}]}), "fail")
case("mismatch-no-kernel-version-two-libs", "driver.mismatch",
     mod(H(), {"gpu/driver_version": None, "gpu/nvml_libs": {"580.95.05": [], "575.51.03": []}}), "skipped")
case("driver-unknown-cuda-then-too-old-toolkit", "driver.cuda", DRV(driver="550.54.14", torch_cuda="9.0"), "fail")
case("driver-too-old-for-unknown-minor", "driver.cuda", DRV(driver="550.54.14", torch_cuda="13.9", nvcc=None), "fail")
case("driver-python-section-failed", "driver.cuda", DRV(**{"python/status": "error", "python/torch/cuda": "12.4"}),
     "pass")
# the libcuda first on LD_LIBRARY_PATH is the one CUDA loads, whatever order the collector listed them in
case("driver-compat-lowest-index-wins", "driver.cuda",
     DRV(driver="550.54.14", nvcc=None, **{"cuda/compat": [COMPAT("545.23.08", d="/opt/old/compat", idx=1),
                                                          COMPAT("580.95.05", idx=0)],
                                          "cuda/ld_library_path": "/usr/local/cuda-13.0/compat:/opt/old/compat"}),
     "pass")
case("driver-compat-older-no-ldlp", "driver.cuda",
     DRV(**{"cuda/compat": [COMPAT("575.51.03")], "cuda/ld_library_path": None}), "fail")
case("driver-compat-same-version-geforce", "driver.cuda",
     DRV(**{"cuda/compat": [COMPAT("580.159.04")], "gpu/gpus/0/name": "NVIDIA GeForce RTX 5090"}), "pass")
case("driver-compat-on-geforce-only-dir", "driver.cuda",
     DRV(driver="550.54.14", torch_cuda="12.4", nvcc=None,
         **{"cuda/compat": [COMPAT("580.95.05")], "cuda/ld_library_path": "/usr/local/cuda-13.0/compat",
            "gpu/gpus": [gpu(name="NVIDIA GeForce RTX 4090"), gpu(index=1, name=None), gpu(index=2, name="NVIDIA A2")]}),
     "fail")

case("mismatch-fixture", "driver.mismatch", H(), "pass")
case("mismatch-nvml-says-so", "driver.mismatch",
     mod(H(), {"gpu/nvml/init_error": "Driver/library version Mismatch"}), "fail")
case("mismatch-versions-differ", "driver.mismatch",
     mod(H(), {"gpu/nvml_libs": {"580.95.05": ["/usr/lib/libnvidia-ml.so.580.95.05"], "575.1": []}}), "fail")
case("mismatch-other-nvml-error", "driver.mismatch", mod(H(), {"gpu/nvml/init_error": "Insufficient Permissions"}),
     "pass")
case("mismatch-no-libs", "driver.mismatch", mod(H(), {"gpu/nvml_libs": {}}), "skipped")
case("mismatch-no-kernel-version", "driver.mismatch", mod(H(), {"gpu/driver_version": None}), "skipped")

# -- python.env --------------------------------------------------------------------------------
PYN = {"python_source": "--python"}


def PY(**changes):
    return mod(H(), changes)


case("python-fixture", "python.env", H(), "pass", **PYN)
case("python-no-torch-default", "python.env", mod(D(), {"python/torch": None}), "na")
case("python-no-torch-default-no-exe", "python.env", mod(D(), {"python/torch": None, "python/executable": None}), "na",
     python_source="$VIRTUAL_ENV")
case("python-no-torch-named", "python.env", PY(**{"python/torch": None, "python/prefix": "/opt/env"}), "fail", **PYN)
case("python-no-torch-config-driver-12-8", "python.env",
     PY(**{"python/torch": None, "python/prefix": None, "gpu/driver_version": "570.86.10"}), "fail",
     python_source="config")
case("python-no-torch-old-driver", "python.env", PY(**{"python/torch": None, "gpu/driver_version": "520.61.05"}),
     "fail", **PYN)
case("python-no-torch-driver-12-6", "python.env", PY(**{"python/torch": None, "gpu/driver_version": "560.28.03"}),
     "fail", **PYN)
case("python-no-torch-no-gpu", "python.env", mod(D(), {"python/torch": None}), "fail", **PYN)
case("python-cpu-build-on-gpu-node", "python.env", PY(**{"python/torch/cuda": None, "python/torch/version": "2.5.1+cpu"}),
     "fail", **PYN)
case("python-cpu-build-no-gpu", "python.env",
     mod(D(), {"python/torch": {"version": "2.5.1+cpu", "cuda": None, "hip": None}}), "pass", **PYN)
case("python-rocm-build", "python.env",
     mod(D(), {"python/torch": {"version": "2.5.1+rocm6.2", "cuda": None, "hip": "6.2.41133"}}), "pass", **PYN)
case("python-rocm-build-gpu-node", "python.env", PY(**{"python/torch/cuda": None, "python/torch/hip": "6.2"}), "pass",
     **PYN)
case("python-import-failed", "python.env", PY(**{"python/deep": {"error": "ImportError: libcudnn.so.9"}}), "fail",
     **PYN)
case("python-no-torch-deep-error", "python.env",
     PY(**{"python/torch": None, "python/deep": {"error": "ModuleNotFoundError: No module named 'torch'"}}), "fail",
     **PYN)
case("python-cuda-unavailable", "python.env", PY(**{"python/deep": {"cuda_available": False, "device_count": 0}}),
     "fail", **PYN)
case("python-cuda-available", "python.env", PY(**{"python/deep": {"cuda_available": True, "device_count": 1}}), "pass",
     **PYN)
case("python-cuda-unknown-no-gpu", "python.env",
     mod(D(), {"python/torch": {"version": "2.5.1", "cuda": "12.4"}, "python/deep": {"cuda_available": False}}),
     "pass", **PYN)
case("python-pynvml", "python.env", PY(**{"python/packages/pynvml": "11.5.0"}), "warn", **PYN)
DS = {"python/packages/deepspeed": "0.15.4", "python/build_tools": {"ninja": "/usr/bin/ninja", "libaio_so": "/lib/a.so",
                                                                    "libaio_h": "/usr/include/libaio.h"}}
case("python-deepspeed-ready", "python.env", PY(**DS), "pass", **PYN)
case("python-deepspeed-no-ninja", "python.env", PY(**dict(DS, **{"python/build_tools/ninja": None})), "warn", **PYN)
case("python-deepspeed-ninja-in-env", "python.env",
     PY(**dict(DS, **{"python/build_tools/ninja": None, "python/build_tools/ninja_in_env": "/opt/env/bin/ninja"})),
     "warn", **PYN)
case("python-deepspeed-no-libaio-so", "python.env", PY(**dict(DS, **{"python/build_tools/libaio_so": None})), "warn",
     **PYN)
case("python-deepspeed-no-libaio-h", "python.env", PY(**dict(DS, **{"python/build_tools/libaio_h": None})), "warn",
     **PYN)
case("python-deepspeed-no-libaio", "python.env",
     PY(**dict(DS, **{"python/build_tools/libaio_h": None, "python/build_tools/libaio_so": None})), "warn", **PYN)
case("python-deepspeed-no-nvcc", "python.env", PY(**dict(DS, **{"cuda/nvcc_version": None})), "warn", **PYN)
case("python-deepspeed-cuda-section-failed", "python.env", PY(**dict(DS, **{"cuda/status": "error"})), "warn", **PYN)
case("python-deepspeed-cuda-home-wins", "python.env", PY(**dict(DS, **{"cuda/cuda_home_version": "12.4.131"})), "fail",
     **PYN)
case("python-deepspeed-nvcc-major-differs", "python.env", PY(**dict(DS, **{"cuda/nvcc_version": "12.8.93"})), "fail",
     **PYN)
case("python-deepspeed-cpu-torch", "python.env",
     mod(D(), {"python/torch": {"version": "2.5.1+cpu", "cuda": None}, "python/packages/deepspeed": "0.15.4",
               "python/build_tools": DS["python/build_tools"]}), "pass", **PYN)
case("python-deepspeed-without-torch", "python.env",
     PY(**dict(DS, **{"python/torch": None})), "fail", **PYN)

# -- gpu.inventory -----------------------------------------------------------------------------
def INV(gpus=None, **changes):
    c = {"gpu/gpus": gpus if gpus is not None else [gpu()]}
    c.update(changes)
    return mod(H(), c)


XID = lambda xid, detail="", bus="0000:00:06": {"bus_id": bus, "xid": xid, "detail": detail}  # noqa: E731
case("inv-fixture", "gpu.inventory", H(), "pass")
case("inv-expected-count", "gpu.inventory", H(), "pass", expected_gpus=1)
case("inv-expected-zero-none", "gpu.inventory", INV([], **{"gpu/gpus_proc": []}), "pass", expected_gpus=0)
case("inv-proc-fallback", "gpu.inventory", INV(None, **{"gpu/gpus": DEL}), "pass")
case("inv-no-driver", "gpu.inventory", D(), "na")
case("inv-no-driver-expected", "gpu.inventory", D(), "fail", expected_gpus=8)
case("inv-section-error", "gpu.inventory", mod(H(), {"gpu": {"status": "error", "reason": "nvidia-smi hung"}}),
     "skipped")
case("inv-section-missing-expected", "gpu.inventory", mod(H(), {"gpu": DEL}), "fail", expected_gpus=2)
case("inv-section-missing", "gpu.inventory", mod(H(), {"gpu": DEL}), "skipped")
case("inv-none-visible", "gpu.inventory", INV([], **{"gpu/gpus_proc": []}), "warn")
case("inv-fewer-than-expected", "gpu.inventory", INV([gpu(), gpu(index=1, bus_id="00000000:00:07.0")],
                                                     **{"env/values/CUDA_VISIBLE_DEVICES": "0,1"}), "fail",
     expected_gpus=8)
case("inv-more-than-expected", "gpu.inventory", INV([gpu(), gpu(index=1)], **{"env/values": {}}), "fail",
     expected_gpus=1)
case("inv-excluded", "gpu.inventory", INV([gpu(excluded=True)]), "fail")
case("inv-ecc", "gpu.inventory", INV([gpu(ecc_uncorrected_volatile=3, index=2)]), "fail")
case("inv-ecc-no-index", "gpu.inventory", INV([gpu(ecc_uncorrected_volatile=1, index=DEL, minor=3)]), "fail")
case("inv-remap-failed", "gpu.inventory", INV([gpu(remapped_rows_failure=True, remapped_rows_pending=True)]), "fail")
case("inv-remap-pending", "gpu.inventory", INV([gpu(remapped_rows_pending=True, index=5)]), "fail")
case("inv-leftover-processes", "gpu.inventory",
     INV([gpu(processes=[{"pid": 4242, "used_mib": 1000}, {"pid": 4343, "used_mib": None}])]), "warn")
case("inv-persistence-off", "gpu.inventory", INV([gpu(persistence_mode=False, name=None, bus_id=None)]), "warn")
case("inv-persistence-unknown", "gpu.inventory", INV([gpu(persistence_mode=None)]), "pass")
case("inv-xid-restart-app", "gpu.inventory",
     INV(**{"gpu/xids": [XID(13, "Graphics SM Warp Exception"), XID(13, "again")]}), "warn")
case("inv-xid-79", "gpu.inventory", INV(**{"gpu/xids": [XID(79, "GPU has fallen off the bus.")]}), "fail")
case("inv-xid-unknown-gpu", "gpu.inventory", INV(**{"gpu/xids": [XID(119, "Timeout", bus="0000:99:00")]}), "fail")
case("inv-xid-not-in-catalog", "gpu.inventory", INV(**{"gpu/xids": [XID(9999, "?")]}), "warn")
# the catalog gives Xid 162 no resolution bucket: the contact-support bucket, and the fix says so
case("inv-xid-no-bucket", "gpu.inventory", INV(**{"gpu/xids": [XID(162, "?")]}), "warn")
case("inv-xid-ignore-only", "gpu.inventory", INV(**{"gpu/xids": [XID(63, "row remap"), XID(43, "reset channel")]}),
     "pass")
case("inv-xid-154-drain-reset", "gpu.inventory",
     INV(**{"gpu/xids": [XID(154, "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)")]}), "fail")
case("inv-xid-154-none", "gpu.inventory",
     INV(**{"gpu/xids": [XID(154, "GPU recovery action changed from 0x4 (Drain and Reset) to 0x0 (None)")]}), "pass")
case("inv-xid-154-unreadable", "gpu.inventory", INV(**{"gpu/xids": [XID(154, "garbled")]}), "warn")
case("inv-xid-nvlink-fatal", "gpu.inventory", INV(**{"gpu/xids": [XID(144, "NVLink: Fatal error on link 3")]}), "fail")
# WORKFLOW_NVLINK5_ERR: an error whether the line says Fatal or not (issue 19)
case("inv-xid-nvlink-nonfatal", "gpu.inventory", INV(**{"gpu/xids": [XID(144, "NVLink: Nonfatal error link 3")]}),
     "fail")
case("inv-kernel-log-unreadable", "gpu.inventory",
     INV(**{"gpu/kernel_log": {"readable": False, "reason": "dmesg_restrict=1"}}), "pass")
case("inv-kernel-log-unreadable-no-reason", "gpu.inventory",
     INV(**{"gpu/kernel_log": {"readable": False}, "gpu/xids": [XID(79)]}), "pass")
case("inv-kernel-log-not-collected", "gpu.inventory", INV(**{"gpu/kernel_log": DEL}), "pass")
case("inv-kernel-log-malformed", "gpu.inventory", INV(**{"gpu/kernel_log": "readable"}), "pass")
case("inv-xid-not-a-number", "gpu.inventory", INV(**{"gpu/xids": [XID("79", "fallen off the bus")]}), "pass")
case("inv-arch-not-covered-pascal", "gpu.inventory",
     INV([gpu(compute_capability="6.0", name="Tesla P100")]), "fail")
case("inv-arch-not-covered-volta", "gpu.inventory",
     INV([gpu(compute_capability="7.0", name="Tesla V100")]), "fail")
case("inv-arch-not-covered-blackwell", "gpu.inventory",
     INV([gpu(compute_capability="10.3", name="B300")], **{"python/torch/arch_list": ["sm_80", "sm_90"]}), "fail")
case("inv-arch-not-covered-ada", "gpu.inventory",
     INV([gpu(compute_capability="8.9", name="L40S")], **{"python/torch/arch_list": ["sm_90", "compute_90"]}), "fail")
case("inv-arch-from-deep", "gpu.inventory",
     INV([gpu(compute_capability="8.0", name="A100")],
         **{"python/torch/arch_list": None, "python/deep": {"arch_list": ["sm_90"]}}), "fail")
case("inv-arch-no-list", "gpu.inventory", INV(**{"python/torch/arch_list": None}), "pass")
case("inv-arch-from-deep-covered", "gpu.inventory",
     INV(**{"python/torch/arch_list": None, "python/deep": {"arch_list": ["sm_80", "sm_90"]}}), "pass")
case("inv-unnamed-gpu", "gpu.inventory", INV([gpu(name=None)]), "pass")
case("inv-gpu-without-index", "gpu.inventory",
     INV([gpu(index=DEL, remapped_rows_pending=True)], **{"gpu/xids": [XID(119, "Timeout")]}), "fail")
case("inv-gpu-without-index-or-minor", "gpu.inventory", INV([gpu(index=DEL, excluded=True)]), "fail")
case("inv-section-error-no-reason", "gpu.inventory", mod(H(), {"gpu": {"status": "error"}}), "skipped")
case("inv-none-visible-expected", "gpu.inventory", INV([], **{"gpu/gpus_proc": []}), "fail", expected_gpus=2)
# a python section that failed holds no torch to judge the GPUs against
case("inv-python-section-failed", "gpu.inventory",
     INV(**{"python/status": "error", "python/torch/arch_list": ["sm_80"]}), "pass")
# the fix's three families meet at cc 7.5 (the oldest a cu13x build keeps) and cc 10.0 (Blackwell)
case("inv-arch-not-covered-turing", "gpu.inventory",
     INV([gpu(compute_capability="7.5", name="T4")], **{"python/torch/arch_list": ["sm_80"]}), "fail")
case("inv-arch-not-covered-b200", "gpu.inventory",
     INV([gpu(compute_capability="10.0", name="B200")], **{"python/torch/arch_list": ["sm_90"]}), "fail")
case("inv-arch-cpu-torch", "gpu.inventory",
     INV([gpu(compute_capability="6.0")], **{"python/torch/cuda": None}), "pass")
case("inv-bf16-on-volta", "gpu.inventory",
     INV([gpu(compute_capability="7.0", name="V100")], **{"python/torch/arch_list": ["sm_70", "sm_90"]}), "fail",
     bf16=True)
case("inv-bf16-on-ampere", "gpu.inventory",
     INV([gpu(compute_capability="8.0", name="A100")], **{"python/torch/arch_list": ["sm_80"]}), "pass", bf16=True)
case("inv-bf16-cc-unknown", "gpu.inventory", INV([gpu(compute_capability=None)]), "pass", bf16=True)
case("inv-two-models", "gpu.inventory",
     INV([gpu(), gpu(index=1, name="NVIDIA H200", bus_id="00000000:00:07.0"), gpu(index=2)]), "pass")


@pytest.mark.parametrize("archs,cc,want", [
    (["sm_80"], (8, 0), True), (["sm_80"], (8, 6), True), (["sm_86"], (8, 0), False), (["sm_80"], (9, 0), False),
    (["sm_90a"], (9, 0), True), (["sm_90a"], (9, 1), False), (["sm_100f"], (10, 3), True),
    (["compute_80"], (9, 0), True), (["compute_90"], (8, 9), False), (["compute_90a"], (9, 0), False),
    (["sm_120", "bogus"], (12, 0), True), ([], (9, 0), False), (None, (9, 0), False), (["sm_75"], (7, 5), True),
    (["bogus", "sm_90"], (9, 0), True), (["compute_90"], (9, 0), True), (["compute_80a", "sm_90"], (9, 0), True),
    ([90, "sm_90"], (9, 0), True), ("sm_90", (9, 0), False),  # untrusted: only a list of names is read
])
def test_arch_covers(archs, cc, want):
    from gpudoctor.checks._gpu import arch_covers

    assert arch_covers(archs, cc) is want


@pytest.mark.parametrize("cc,want", [("9.0", (9, 0)), ("10.3", (10, 3)), ("9", None), (None, None), ("a.b", None),
                                     (8.6, (8, 6)), (" 9.0", None), ("9.0.1", None)])
def test_cc_tuple(cc, want):
    from gpudoctor.checks._gpu import cc_tuple, sm

    assert cc_tuple(cc) == want
    if want:
        assert sm(want) == "sm_%d%d" % want


@pytest.mark.parametrize("bus,key", [("00000000:00:06.0", "0000:00:06"), ("0000:00:06.0", "0000:00:06"),
                                     ("0000:00:06", "0000:00:06"), ("0009:01:00", "0009:01:00"),
                                     ("0000000A:3B:00.0", "000a:3b:00"), ("zz:00:06", "zz:00:06"), ("06.0", "06.0"),
                                     ("00000010:3B:00.0", "0010:3b:00"), (7, 7), ([1], None),
                                     (None, None)])
def test_bus_key(bus, key):
    from gpudoctor.checks.gpu_inventory import _bus_key

    assert _bus_key(bus) == key


# -- the cluster checks ------------------------------------------------------------------------
def NODES(*docs, names=None):
    names = names or ["gpu%02d" % (i + 1) for i in range(len(docs))]
    return {n: mod(d, {"node": n}) for n, d in zip(names, docs)}


V = lambda **c: mod(H(), c)  # noqa: E731
case("versions-same", "versions.parity", NODES(H(), H(), H()), "pass")
case("versions-torch-minor", "versions.parity",
     NODES(H(), H(), V(**{"python/packages/torch": "2.10.0"})), "fail")
case("versions-torch-patch", "versions.parity",
     NODES(V(**{"python/packages/torch": "2.11.1"}), H(), H()), "warn")
case("versions-torch-missing", "versions.parity",
     NODES(H(), V(**{"python/packages/torch": DEL, "python/packages/horovod": "0.28.1"}),
           V(**{"python/packages/horovod": "0.28.1"})), "fail")
case("versions-warning-only-fields", "versions.parity",
     NODES(H(), V(**{"host/kernel": "6.8.0-45-generic", "python/packages/deepspeed": "0.15.4",
                     "gpu/driver_version": "575.51.03", "host/os_pretty": "Ubuntu 22.04", "cuda/nvcc_version": ""}),
           H()), "warn")
case("versions-nccl-sources", "versions.parity",
     NODES(V(**{"python/nccl": {"loaded_version": "2.21.5"}}), V(**{"python/nccl": {"version": "2.21.5"}}),
           V(**{"python/nccl": {"wheel_version": "2.21.5"}}), V(**{"python/nccl": {}})), "fail")
case("versions-torch-cuda-major", "versions.parity",
     NODES(H(), V(**{"python/torch/cuda": "12.8"})), "fail")
case("versions-torch-cuda-minor", "versions.parity",
     NODES(H(), V(**{"python/torch/cuda": "13.1"})), "warn")
case("versions-ofed", "versions.parity",
     NODES(V(**{"ofed/ofed_info": {"raw": "MLNX_OFED_LINUX-24.10", "version": "24.10"}}),
           V(**{"ofed/ofed_info": {"version": "23.10"}}), H()), "warn")
case("versions-python-section-failed", "versions.parity",
     NODES(H(), V(**{"python": {"status": "error", "reason": "timeout"}}), H()), "skipped")
case("versions-python-unsupported", "versions.parity",
     NODES(H(), V(**{"python": {"status": "unsupported", "reason": "no python3"}})), "fail")
case("versions-nothing-known", "versions.parity",
     NODES(*[{"python": {"status": "error"}, "gpu": {"status": "error"}, "cuda": {"status": "error"},
              "host": {"status": "error"}, "ofed": {"status": "error"}}] * 2), "na")
case("versions-all-missing", "versions.parity",
     NODES(*[{"python": {"status": "unsupported"}, "gpu": {"status": "unsupported"}, "cuda": {"status": "unsupported"},
              "host": {"status": "unsupported"}, "ofed": {"status": "unsupported"}}] * 2), "na")
case("versions-one-node-known", "versions.parity",
     NODES(H(), V(**{"python": {"status": "error", "reason": "timeout"}})), "skipped")
case("versions-unparsable-version", "versions.parity",
     NODES(H(), V(**{"python/packages/torch": "nightly"}), H()), "fail")


def ENV(values=None, hashed=None, exe="/opt/env/bin/python3"):
    return mod(D(), {"env": {"status": "ok", "values": values or {}, "hashed": hashed or {}},
                     "python/executable": exe})


BASE_ENV = {"NCCL_SOCKET_IFNAME": "eth0", "CUDA_HOME": "/usr/local/cuda", "LANG": "C.UTF-8", "HOSTNAME": "x",
            "SLURM_JOB_ID": "7"}
case("env-same", "env.parity", NODES(ENV(BASE_ENV), ENV(BASE_ENV)), "pass")
case("env-same-many-shaping", "env.parity",
     NODES(*[ENV({"NCCL_%d" % i: "1" for i in range(8)}, exe=None)] * 2), "pass")
case("env-same-six-shaping", "env.parity", NODES(*[ENV({"NCCL_%d" % i: "1" for i in range(6)}, exe=None)] * 2), "pass")
case("env-same-seven-shaping", "env.parity", NODES(*[ENV({"NCCL_%d" % i: "1" for i in range(7)}, exe=None)] * 2),
     "pass")
# a variable set on the first node only is compared too (names come from every node)
case("env-set-on-first-only", "env.parity", NODES(ENV({"NCCL_DEBUG": "INFO"}), ENV({})), "fail")
case("env-three-values", "env.parity",
     NODES(ENV({"NCCL_IB_HCA": "mlx5_0"}), ENV({"NCCL_IB_HCA": "mlx5_1"}), ENV({"NCCL_IB_HCA": "mlx5_0"}),
           ENV({"NCCL_IB_HCA": "mlx5_2"})), "fail")
case("env-nccl-differs", "env.parity",
     NODES(ENV(BASE_ENV), ENV(BASE_ENV), ENV(dict(BASE_ENV, NCCL_SOCKET_IFNAME="ib0", HOSTNAME="y"))), "fail")
case("env-nccl-unset-on-majority", "env.parity",
     NODES(ENV({}), ENV({}), ENV({"NCCL_DEBUG": "INFO"})), "fail")
case("env-cuda-set-on-majority-missing-once", "env.parity",
     NODES(ENV(BASE_ENV), ENV({"NCCL_SOCKET_IFNAME": "eth0", "LANG": "C.UTF-8"}), ENV(BASE_ENV)), "warn")
case("env-other-variable", "env.parity",
     NODES(ENV(BASE_ENV), ENV(dict(BASE_ENV, LANG="en_US.UTF-8"))), "warn")
case("env-hashed-secret", "env.parity",
     NODES(ENV(hashed={"HF_TOKEN": "sha256:aaaaaaaaaaaaaaaa"}), ENV(hashed={"HF_TOKEN": "sha256:bbbbbbbbbbbbbbbb"}),
           ENV(hashed={"HF_TOKEN": "sha256:aaaaaaaaaaaaaaaa"})), "warn")
case("env-hashed-nccl", "env.parity",
     NODES(ENV(hashed={"NCCL_IB_HCA": "sha256:aaaaaaaaaaaaaaaa"}), ENV(hashed={"NCCL_IB_HCA": "sha256:bbbbbbbbbbbbbbbb"}),
           ENV(hashed={"NCCL_IB_HCA": "sha256:aaaaaaaaaaaaaaaa"})), "fail")
case("env-python-differs", "env.parity",
     NODES(ENV(BASE_ENV), ENV(BASE_ENV, exe="/usr/bin/python3"), ENV(BASE_ENV)), "warn")
case("env-python-unknown", "env.parity",
     NODES(ENV(BASE_ENV, exe=None), mod(ENV(BASE_ENV), {"python/status": "error"})), "pass")
case("env-section-failed", "env.parity",
     NODES(ENV(BASE_ENV), ENV(BASE_ENV), mod(ENV(BASE_ENV), {"env": {"status": "error", "reason": "EPERM"}})),
     "skipped")

G = lambda gpus, **c: mod(H(), dict({"gpu/gpus": gpus}, **c))  # noqa: E731
case("gpus-same", "gpu.parity", NODES(G([gpu()] * 2), G([gpu()] * 2)), "pass")
case("gpus-same-with-slots", "gpu.parity", NODES(G([gpu()] * 2), G([gpu()] * 2)), "pass",
     slots={"gpu01": 2, "gpu02": 1})
case("gpus-count-differs", "gpu.parity", NODES(G([gpu()] * 8), G([gpu()] * 7), G([gpu()] * 8)), "fail")
case("gpus-model-differs", "gpu.parity",
     NODES(G([gpu()]), G([gpu(name="NVIDIA H200"), gpu(name=None)])), "fail")
case("gpus-fewer-than-slots", "gpu.parity", NODES(G([gpu()] * 4), G([gpu()] * 4)), "fail",
     slots={"gpu01": 8, "gpu02": 4})
case("gpus-driverless-node", "gpu.parity",
     NODES(H(), mod(H(), {"gpu": {"status": "unsupported", "reason": "no NVIDIA driver loaded"}})), "fail")
case("gpus-driverless-no-reason", "gpu.parity", NODES(H(), mod(H(), {"gpu": {"status": "unsupported"}})), "fail")
case("gpus-driverless-with-slots", "gpu.parity",
     NODES(H(), H(), mod(H(), {"gpu": {"status": "unsupported", "reason": "no NVIDIA driver loaded"}})), "fail",
     slots={"gpu01": 1, "gpu02": 1, "gpu03": 1})
case("gpus-section-failed", "gpu.parity", NODES(H(), H(), mod(H(), {"gpu": {"status": "error"}})), "skipped")
case("gpus-none-visible", "gpu.parity", NODES(G([], **{"gpu/gpus_proc": []}), G([], **{"gpu/gpus_proc": []})), "pass")
case("gpus-proc-fallback", "gpu.parity",
     NODES(G(None, **{"gpu/gpus": DEL}), G(None, **{"gpu/gpus": DEL})), "pass")


def RES(names):
    return mod(D(), {"resolve": {"status": "ok", "names": names}})


R_OK = {"gpu01": ["10.0.0.1"], "gpu02": ["10.0.0.2"]}
case("resolve-same", "hosts.resolution", NODES(RES(R_OK), RES(R_OK)), "pass")
case("resolve-nothing", "hosts.resolution", NODES(RES({}), RES({})), "na")
case("resolve-no-names-recorded", "hosts.resolution",
     NODES(mod(D(), {"resolve": {"status": "ok"}}), RES(R_OK)), "warn")
case("resolve-loopback-two-addresses", "hosts.resolution",
     NODES(RES(R_OK), RES(dict(R_OK, gpu02=["127.0.1.1", "::1"]))), "fail")
case("resolve-two-addresses-differ", "hosts.resolution",
     NODES(RES(dict(R_OK, gpu01=["10.0.0.1", "10.9.0.1"])), RES(dict(R_OK, gpu01=["10.0.0.1", "10.9.0.1"])),
           RES(R_OK)), "fail")
case("resolve-two-names-unresolved-on-one-node", "hosts.resolution",
     NODES(RES(R_OK), RES({"gpu01": [], "gpu02": []})), "warn")
case("resolve-loopback", "hosts.resolution",
     NODES(RES(R_OK), RES(dict(R_OK, gpu02=["127.0.1.1"])), RES(R_OK)), "fail")
case("resolve-loopback-v6", "hosts.resolution", NODES(RES(dict(R_OK, gpu01=["::1"])), RES(R_OK)), "fail")
case("resolve-different-address", "hosts.resolution",
     NODES(RES(R_OK), RES(R_OK), RES(dict(R_OK, gpu01=["10.0.9.1"]))), "fail")
case("resolve-unresolved", "hosts.resolution",
     NODES(RES(R_OK), RES({"gpu01": ["10.0.0.1"], "gpu02": []}), RES({"gpu01": [], "gpu02": []})), "warn")
case("resolve-unresolved-one-name", "hosts.resolution",
     NODES(RES(R_OK), RES({"gpu02": ["10.0.0.2"]})), "warn")


def FILES(files):
    return mod(D(), {"files": {"status": "ok", "files": files}})


F = lambda sha, size=10: {"sha256": sha, "size": size}  # noqa: E731
case("files-same", "files.parity", NODES(FILES({"/a": F("ab" * 32), "/b": F("cd" * 32, 3)}),
                                         FILES({"/a": F("ab" * 32), "/b": F("cd" * 32, 3)})), "pass")
case("files-none", "files.parity", NODES(FILES({}), FILES({})), "na")
case("files-one-differs", "files.parity",
     NODES(FILES({"/a": F("ab" * 32), "/b": F("cd" * 32)}), FILES({"/a": F("ab" * 32), "/b": F("cd" * 32)}),
           FILES({"/a": F("ef" * 32), "/b": F("cd" * 32)})), "fail")
case("files-missing-on-one", "files.parity",
     NODES(FILES({"/a": F("ab" * 32)}), FILES({"/a": {"error": "ENOENT"}}), FILES({"/a": F("ab" * 32)})), "fail")
case("files-missing-on-majority", "files.parity",
     NODES(FILES({"/a": {"error": "ENOENT"}}), FILES({"/a": {"error": "ENOENT"}}), FILES({"/a": F("ab" * 32)})),
     "fail")
case("files-all-differ", "files.parity", NODES(FILES({"/a": F("ab" * 32)}), FILES({"/a": F("cd" * 32)})), "fail")


def MESH(peers):
    return mod(D(), {"mesh": {"status": "ok", "peers": peers}})


case("mesh-ok", "ssh.mesh", NODES(MESH({"gpu02": {"ok": True}}), MESH({"gpu01": {"ok": True}})), "pass")
case("mesh-nothing-tried", "ssh.mesh", NODES(MESH({}), MESH({})), "na")
case("mesh-no-peers-recorded", "ssh.mesh",
     NODES(mod(D(), {"mesh": {"status": "ok"}}), MESH({"gpu01": {"ok": False, "error": "refused"}})), "fail")
case("mesh-twenty-failures", "ssh.mesh",
     NODES(*[MESH({"peer%02d" % p: {"ok": False} for p in range(10)})] * 2 + [MESH({"gpu01": {"ok": True}})]), "fail")
case("mesh-twenty-one-failures", "ssh.mesh",
     NODES(MESH({"peer%02d" % p: {"ok": False} for p in range(11)}), MESH({"peer%02d" % p: {"ok": False}
                                                                          for p in range(10)})), "fail")
case("mesh-one-way", "ssh.mesh",
     NODES(MESH({"gpu02": {"ok": True}, "gpu03": {"ok": True}}), MESH({"gpu01": {"ok": False, "error": "publickey"},
                                                                      "gpu03": {"ok": False}}),
           MESH({"gpu01": {"ok": True}, "gpu02": {"ok": True}})), "fail")
case("mesh-every-source-fails", "ssh.mesh",
     NODES(MESH({"gpu02": {"ok": False, "error": "timeout"}}), MESH({"gpu01": {"ok": False, "error": "refused"}})),
     "fail")
case("mesh-many-failures", "ssh.mesh",
     NODES(*[MESH({"peer%02d" % p: {"ok": False, "error": "publickey"} for p in range(11)})] * 2 +
           [MESH({"gpu01": {"ok": True}})]), "fail")


def _snapshot(res):
    return {"status": res.status, "outcomes": {h: list(v) for h, v in res.outcomes.items()},
            "findings": [{"severity": f.severity, "message": f.message, "observed": f.observed,
                          "expected": f.expected, "fix": f.fix, "exports": f.exports, "hosts": f.hosts}
                         for f in res.findings]}


_got = {}


@pytest.mark.parametrize("check_id,facts,status,cfg", CASES)
def test_check_outcome(request, check_id, facts, status, cfg):
    from gpudoctor.config import Config

    config = Config()
    for k, v in cfg.items():
        setattr(config, k, v)
    res = run_check(check_id, copy.deepcopy(facts), config)
    assert res.status == status, (res.status, res.summary, [f.message for f in res.findings])
    if status == "pass":  # a pass is earned: every node passed, and says what it judged
        assert res.evidence and all(st == "pass" for st, _ in res.outcomes.values())
    if status in ("fail", "warn"):
        sev = "error" if status == "fail" else "warning"
        assert any(f.severity == sev and f.fix for f in res.findings)
    name = request.node.callspec.id
    got = _snapshot(res)
    if os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1":
        _got[name] = got
        want = dict(_load(), **_got)
        with open(EXPECT, "w") as f:
            json.dump(want, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    want = _load().get(name)
    assert want is not None, "no expectation for %s: regenerate with GPUDOCTOR_REGEN_GOLDEN=1 and review" % name
    assert json.loads(json.dumps(got)) == want, "the %s report changed (regenerate on purpose, review the diff)" % name


def _load():
    if not os.path.exists(EXPECT):
        return {}
    with open(EXPECT) as f:
        return json.load(f)


def test_driver_table_is_read_from_its_data_file():
    """requirement() over the table in gpudoctor/data/cuda_driver.json (NVIDIA's CUDA release notes,
    Tables 2 and 3), parsed afresh: the parse is cached per run, so clear it first."""
    from gpudoctor.checks import driver_cuda

    driver_cuda._table.cache_clear()
    try:
        assert driver_cuda.requirement("12.4") == ("525.60.13", "550.54.14")  # 12.x floor, 12.4's own row
        assert driver_cuda.requirement("11.8") == ("450.80.02", "520.61.05")  # minor-version compatibility from 11.x
        assert driver_cuda.requirement("11.0") == ("450.51.05", "450.51.05")  # 11.0 GA ran below the 11.x floor
        assert driver_cuda.requirement("10.2") == ("440.33", "440.33")  # before 11.x: no floor, the row itself
        assert driver_cuda.requirement("13.9") == ("580.65.06", None)  # a minor newer than the table: floor only
        assert driver_cuda.requirement("10.9") == (None, None)  # no 10.x floor is borrowed for an unknown 10.x
        assert driver_cuda.requirement("cuda") == (None, None)
        assert driver_cuda.newest_cuda_for("535.104.05") == "12.2" and driver_cuda.newest_cuda_for("300") is None
    finally:
        driver_cuda._table.cache_clear()


@pytest.mark.parametrize("facts,torch,python,driver,ofed", [
    ({"python": {"status": "ok", "packages": {"torch": "2.5.1"}, "version": "3.11.7"},
      "gpu": {"status": "ok", "driver_version": "580.1"}, "ofed": {"status": "ok", "ofed_info": {"version": "24.10"}}},
     "2.5.1", "3.11.7", "580.1", "24.10"),
    ({"python": {"status": "ok", "packages": None, "version": ""}, "gpu": {"status": "ok", "driver_version": None},
      "ofed": {"status": "ok", "ofed_info": {"raw": "MLNX_OFED_LINUX-24.10", "version": "24.10"}}},
     "(not installed)", "(not installed)", "(not installed)", "MLNX_OFED_LINUX-24.10"),
    ({"python": {"status": "unsupported"}, "gpu": {"status": "unsupported"}, "ofed": {"status": "unsupported"}},
     "(not installed)", "(not installed)", "(not installed)", "(not installed)"),
    ({"python": {"status": "error"}, "gpu": {"status": "error"}, "ofed": {"status": "error"}},
     None, None, None, None),
])
def test_version_getters(facts, torch, python, driver, ofed):
    """The values versions.parity compares, read afresh (the getters are made once, at import)."""
    from gpudoctor.checks import parity

    assert parity._pkg("torch")(facts) == torch
    assert parity._get("python", "version")(facts) == python
    assert parity._ofed(facts) == ofed
    assert parity._get("gpu", "driver_version")(facts) == driver
    assert parity._get("gpu", "driver_version", "deeper")(facts) == (
        "(not installed)" if (facts.get("gpu") or {}).get("status") in ("ok", "unsupported") else None)


# -- node output is untrusted: a malformed record is skipped with the reason, never judged -------
MAL = []


def malformed(name, check_id, facts):
    MAL.append(pytest.param(check_id, facts, id=name))


malformed("ssh-perms-entry-not-a-dict", "ssh.permissions", SSH(GOOD + ["x"]))
malformed("ssh-perms-path-not-text", "ssh.permissions", SSH([dict(GOOD[0], path=1)]))
malformed("ssh-perms-uid-not-a-number", "ssh.permissions", SSH([dict(GOOD[0], uid="0")]))
malformed("ssh-perms-mode-empty", "ssh.permissions", SSH([dict(GOOD[0], mode="")]))
malformed("ssh-perms-mode-too-long", "ssh.permissions", SSH([dict(GOOD[0], mode="0100755")]))
malformed("ssh-perms-mode-not-octal", "ssh.permissions", SSH([dict(GOOD[0], mode="0789")]))
malformed("ssh-perms-mode-not-text", "ssh.permissions", SSH([dict(GOOD[0], mode=493)]))
malformed("ssh-perms-kind-not-text", "ssh.permissions", SSH([dict(GOOD[0], kind=["home"])]))
malformed("ssh-perms-user-uid-not-a-number", "ssh.permissions", SSH(GOOD, uid=None))
malformed("ssh-config-entries-not-a-list", "ssh.config", mod(CFG("Host *\n"), {"ssh/entries": "x"}))
malformed("ssh-config-entry-not-a-dict", "ssh.config", mod(CFG("Host *\n"), {"ssh/entries": [1]}))
malformed("ssh-config-text-not-text", "ssh.config", CFG(["Host *"]))
malformed("rdma-devices-not-a-list", "rdma.ports", mod(RD([]), {"rdma/devices": "mlx5_0"}))
malformed("rdma-device-not-a-dict", "rdma.ports", mod(RD([]), {"rdma/devices": ["mlx5_0"]}))
malformed("rdma-device-name-not-text", "rdma.ports", mod(RD([]), {"rdma/devices": [{"name": 5, "ports": []}]}))
malformed("rdma-ports-not-a-list", "rdma.ports", mod(RD([]), {"rdma/devices": [{"name": "mlx5_0", "ports": "1"}]}))
malformed("rdma-port-not-a-dict", "rdma.ports", mod(RD([]), {"rdma/devices": [{"name": "mlx5_0", "ports": [1]}]}))
malformed("memlock-soft-missing", "limits.memlock", mod(H(), {"limits/memlock": {"hard": 8 << 20}}))
malformed("memlock-not-a-dict", "limits.memlock", mod(H(), {"limits/memlock": "unlimited"}))
malformed("cudalibs-list-not-a-list", "cuda.libs", mod(H(), {"python/torch/libs/libs": "libcublas.so.13"}))
malformed("driver-version-not-a-version", "driver.cuda", mod(H(), {"gpu/driver_version": "latest"}))
malformed("driver-version-not-text", "driver.cuda", mod(H(), {"gpu/driver_version": 580}))
malformed("mismatch-version-not-text", "driver.mismatch", mod(H(), {"gpu/driver_version": 580}))
malformed("mismatch-libs-not-a-dict", "driver.mismatch", mod(H(), {"gpu/nvml_libs": ["580.159.04"]}))
malformed("mismatch-init-error-not-text", "driver.mismatch", mod(H(), {"gpu/nvml/init_error": 999}))
malformed("hostname-not-text", "host.name", mod(H(), {"host/hostname": {"a": 1}}))
malformed("hostname-addresses-not-text", "host.name", mod(H(), {"host/hostname_addresses": [127001]}))
malformed("python-packages-not-a-dict", "python.env", mod(H(), {"python/packages": ["torch"]}))
malformed("python-executable-not-text", "python.env", mod(H(), {"python/executable": ["python3"]}))
malformed("python-deep-not-a-dict", "python.env", mod(H(), {"python/deep": "error"}))
malformed("python-torch-version-not-text", "python.env", mod(H(), {"python/torch/version": 2.5}))
malformed("shm-sizes-not-numbers", "shm.size", mod(H(), {"shm/total_bytes": "lots"}))


@pytest.mark.parametrize("check_id,facts", MAL)
def test_malformed_node_output_is_skipped_with_the_reason(request, check_id, facts):
    from gpudoctor.config import Config

    res = run_check(check_id, copy.deepcopy(facts), Config(python_source="--python"))
    assert res.status == "skipped" and not res.findings, (res.status, res.summary)
    want = _load().get("malformed:" + request.node.callspec.id)
    if os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1":
        doc = _load()
        doc["malformed:" + request.node.callspec.id] = want = res.summary
        with open(EXPECT, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    assert res.summary == want
