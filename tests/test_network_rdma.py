"""Network, RDMA, OFED, NCCL config and host identity: parsers on recorded files, the
collector over recorded root trees (fixtures/roots/*), each check failing and passing,
and the CLI on this machine."""

import os
import shutil

import pytest

from conftest import FIXTURES, patched, run_check

from gpudoctor.collector import Context, collect
from gpudoctor.collector import network as netc
from gpudoctor.collector import nccl_env as ncclc
from gpudoctor.collector import ofed as ofedc
from gpudoctor.collector import rdma as rdmac

ROOTS = os.path.join(FIXTURES, "roots")


def root(name):
    return os.path.join(ROOTS, name)


def facts_of(scenario, env=None, home="/root", base=None):
    ctx = Context(root=base or root(scenario), live=False, env=env or {"PATH": "/usr/bin:/bin"}, home=home,
                  commands={}, uid=0)
    return collect(ctx)


def read(scenario, path):
    with open(os.path.join(root(scenario), path.lstrip("/"))) as f:
        return f.read()


def findings(res, severity=None):
    return [f for f in res.findings if severity is None or f.severity == severity]


# ------------------------------------------------------------------ parsers on recorded files

def test_parse_state_and_rate_from_sysfs():
    assert rdmac.parse_state(read("ib_mlx5_hdr", "/sys/class/infiniband/mlx5_0/ports/1/state")) == (4, "ACTIVE")
    assert rdmac.parse_state(read("erdma_pair", "/sys/class/infiniband/erdma_1/ports/1/phys_state")) == (3, "Disabled")
    assert rdmac.parse_rate(read("ib_mlx5_hdr", "/sys/class/infiniband/mlx5_0/ports/1/rate")) == (200.0, "4X HDR")
    assert rdmac.parse_rate("2.5 Gb/sec (1X SDR)") == (2.5, "1X SDR")


def test_gid_ipv4_mapping():
    gid = read("roce_mlx5_gids", "/sys/class/infiniband/mlx5_0/ports/1/gids/3").strip()
    assert rdmac.gid_ipv4(gid) == "192.168.100.3"
    assert rdmac.gid_ipv4("fe80:0000:0000:0000:1270:fdff:fe51:6a2e") is None


def test_fib_trie_route_and_inet6_recorded_on_devvm():
    fib = read("devvm_recorded", "/proc/net/fib_trie")
    route = read("devvm_recorded", "/proc/net/route")
    assert netc.parse_fib_trie_local(fib) == ["127.0.0.1", "192.0.2.2"]
    assert netc.ipv4_from_fib(fib, route) == {"lo": [{"address": "127.0.0.1", "prefixlen": 8}],
                                              "eth0": [{"address": "192.0.2.2", "prefixlen": 24}]}
    default = [r for r in netc.parse_proc_route(route) if r["default"]]
    assert default[0]["iface"] == "eth0" and default[0]["gateway"] == "192.0.2.1"
    v6 = netc.parse_if_inet6(read("devvm_recorded", "/proc/net/if_inet6"))
    assert {"address": "fd00::2", "prefixlen": 64, "scope": "global"} in v6["eth0"]
    assert v6["lo"][0]["address"] == "::1"


def test_ip_json_parser():
    text = ('[{"ifindex":2,"ifname":"eth0","addr_info":[{"family":"inet","local":"10.0.0.5","prefixlen":24},'
            '{"family":"inet6","local":"fe80::1","prefixlen":64}]},{"ifindex":1,"ifname":"lo","addr_info":[]}]')
    out = netc.parse_ip_json(text)
    assert out["eth0"]["ipv4"] == [{"address": "10.0.0.5", "prefixlen": 24}]
    assert out["eth0"]["ipv6"][0]["address"] == "fe80::1" and out["lo"]["ipv4"] == []
    assert netc.parse_ip_json("not json") == {}


def test_ofed_info_parsed_without_running_it():
    info = ofedc.parse_ofed_info(read("centos7_kernel_without_ofed", "/usr/bin/ofed_info"))
    assert info == {"flavor": "MLNX_OFED_LINUX", "version": "5.4-3.5.8.0", "raw": "MLNX_OFED_LINUX-5.4-3.5.8.0"}
    assert ofedc.parse_ofed_info("OFED-internal-25.10-1.7.1:\n")["version"] == "25.10-1.7.1"
    assert ofedc.parse_ofed_info("#!/bin/bash\necho hello\n") is None
    assert ofedc.versions_match("5.8-1.1.2.1", "5.8-1.1.2") is True
    assert ofedc.versions_match("5.8-1.1.2.1", "5.4-3.5.8") is False


def test_grub_cfg_menu_entries():
    entries = ofedc.parse_grub_cfg(read("centos7_kernel_without_ofed", "/boot/grub2/grub.cfg"))
    assert [e["kernel"] for e in entries][:2] == ["3.10.0-1160.90.1.el7.x86_64", "3.10.0-1160.31.1.el7.x86_64"]
    assert entries[1]["title"] == "CentOS Linux (3.10.0-1160.31.1.el7.x86_64) 7 (Core)"
    assert len(entries) == 3


def test_proc_modules_and_nccl_conf_parsers():
    mods = rdmac.parse_proc_modules(read("ib_mlx5_hdr", "/proc/modules"))
    assert mods["nvidia_peermem"]["state"] == "Live" and mods["mlx5_core"]["size"] == 2121728
    conf = ncclc.parse_nccl_conf("# site\nNCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME==ens1f0\n\nbogus line\n")
    assert conf == {"NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "=ens1f0"}


# ------------------------------------------------------------------ the collector over recorded trees

def test_collect_infiniband_hca():
    doc = facts_of("ib_mlx5_hdr")
    dev = doc["rdma"]["devices"][0]
    assert (dev["name"], dev["driver"], dev["uverbs"], dev["netdevs"]) == ("mlx5_0", "mlx5_core", "uverbs0", ["ib0"])
    port = dev["ports"][0]
    assert (port["state"], port["phys_state"], port["link_layer"]) == ("ACTIVE", "LinkUp", "InfiniBand")
    assert (port["rate_gbps"], port["width"], port["netdev"]) == (200.0, "4X HDR", "ib0")
    assert doc["rdma"]["gdr_modules_loaded"] == ["nvidia_peermem"]
    ifs = dict((i["name"], i) for i in doc["network"]["interfaces"])
    assert ifs["ib0"]["kind"] == "ipoib" and ifs["ib0"]["ipv4"][0]["address"] == "10.10.0.11"
    assert ifs["docker0"]["kind"] == "bridge" and ifs["docker0"]["virtual"] is True
    assert ifs["eno1"]["speed_mbps"] == 25000 and ifs["eno1"]["virtual"] is False
    assert doc["network"]["default_route"] == {"interface": "eno1", "gateway": "10.0.0.1"}
    assert doc["ofed"]["ofed_info"]["version"] == "5.8-1.1.2.1"
    assert doc["ofed"]["module_versions"]["mlx5_core"] == "5.8-1.1.2"
    k = doc["ofed"]["kernels"][0]
    assert k["running"] and k["ofed_dirs"][0]["dir"] == "updates/dkms"


def test_collect_roce_gid_table():
    port = facts_of("roce_mlx5_gids")["rdma"]["devices"][0]["ports"][0]
    assert [(g["index"], g["type"]) for g in port["gids"]] == [
        (0, "IB/RoCE v1"), (1, "RoCE v2"), (2, "IB/RoCE v1"), (3, "RoCE v2")]  # index 4 is all zeros: unpopulated
    assert port["gids"][3]["ipv4"] == "192.168.100.3" and port["netdev"] == "ens1f0np0"


def test_collect_modules_but_no_device_like_the_real_gpu_node():
    doc = facts_of("mlx5_modules_no_device")
    assert doc["rdma"]["devices"] == [] and doc["rdma"]["class_infiniband_exists"] is True
    # built in, as on the node: in /sys/module without initstate, absent from /proc/modules
    assert doc["rdma"]["modules_builtin"] == ["ib_core", "mlx5_core", "mlx5_ib"]
    assert doc["rdma"]["modules_loaded"] == []
    assert doc["ofed"]["modules_loaded"] == ["nvidia", "nvidia_uvm"]
    assert doc["rdma"]["dev_infiniband"] == ["rdma_cm"]
    assert doc["host"]["hostname_addresses"] == ["127.0.0.1"]


def test_collect_kernels_and_grub_on_centos7():
    ofed = facts_of("centos7_kernel_without_ofed")["ofed"]
    by = dict((k["release"], k) for k in ofed["kernels"])
    assert by["3.10.0-1160.90.1.el7.x86_64"]["running"] and not by["3.10.0-1160.90.1.el7.x86_64"]["ofed_dirs"]
    assert by["3.10.0-1160.31.1.el7.x86_64"]["ofed_dirs"][0]["dir"] == "extra/mlnx-ofa_kernel"
    assert by["3.10.0-1160.31.1.el7.x86_64"]["erdma_module"] is True
    assert ofed["grub_default"] == "CentOS Linux (3.10.0-1160.90.1.el7.x86_64) 7 (Core)"


# ------------------------------------------------------------------ kernel.ofed

def test_kernel_ofed_kernel_moved_on_prints_grub_line():
    res = run_check("kernel.ofed", facts_of("centos7_kernel_without_ofed"))
    err = findings(res, "error")
    assert res.status == "fail" and len(err) == 1
    assert "3.10.0-1160.90.1.el7.x86_64 has no MLNX_OFED_LINUX 5.4-3.5.8.0 modules" in err[0].message
    assert "grub2-set-default 'CentOS Linux (3.10.0-1160.31.1.el7.x86_64) 7 (Core)'" in err[0].fix
    assert "--add-kernel-support" in err[0].fix


def test_kernel_ofed_user_space_vs_module_mismatch():
    res = run_check("kernel.ofed", facts_of("ofed_userspace_module_mismatch"))
    assert res.status == "fail"
    assert "mlx5_core is 5.4-3.5.8 but OFED user space is 5.8-1.1.2.1" in res.findings[0].message
    assert "openibd restart" in res.findings[0].fix


@pytest.mark.parametrize("scenario", ["ib_mlx5_hdr", "erdma_pair"])
def test_kernel_ofed_passes_with_evidence(scenario):
    res = run_check("kernel.ofed", facts_of(scenario))
    assert res.status == "pass" and res.evidence.startswith(("running kernel", "erdma module"))


@pytest.mark.parametrize("scenario", ["roce_mlx5_gids", "devvm_recorded"])
def test_kernel_ofed_without_ofed_is_not_applicable(scenario):
    res = run_check("kernel.ofed", facts_of(scenario))  # inbox drivers / no RDMA: no OFED to judge
    assert res.status == "na" and "no MLNX_OFED" in res.summary


def test_kernel_ofed_erdma_installed_not_loaded():
    doc = facts_of("erdma_pair")
    res = run_check("kernel.ofed", patched(doc, ofed={"erdma_loaded": False}))
    assert res.status == "fail" and "modprobe erdma" in res.findings[0].fix


# ------------------------------------------------------------------ rdma.ports

def test_rdma_ports_erdma_second_port_down():
    res = run_check("rdma.ports", facts_of("erdma_pair"))
    warn = findings(res, "warning")
    assert res.status == "warn" and len(warn) == 1
    assert "erdma_1 port 1" in warn[0].message and "DOWN" in warn[0].message and "erdma" in warn[0].message
    assert "dhclient -v eth1" in warn[0].fix


def test_rdma_ports_no_active_port_is_an_error():
    doc = facts_of("erdma_pair")
    for d in doc["rdma"]["devices"]:
        for p in d["ports"]:
            p["state"] = "DOWN"
    res = run_check("rdma.ports", doc)
    assert res.status == "fail" and "no port is ACTIVE" in res.findings[0].message


def test_rdma_ports_container_missing_uverbs():
    res = run_check("rdma.ports", facts_of("erdma_container_missing_uverbs"))
    err = findings(res, "error")
    assert len(err) == 1 and "uverbs1" in err[0].message
    assert "--device=/dev/infiniband/uverbs1" in err[0].fix and "--device=/dev/infiniband/rdma_cm" in err[0].fix


def test_rdma_ports_builtin_drivers_without_device_is_a_note():
    res = run_check("rdma.ports", facts_of("mlx5_modules_no_device"))
    assert res.status == "na" and not res.findings
    assert "no RDMA device (mlx5_core, mlx5_ib built into the kernel" in res.summary


def test_rdma_ports_loaded_modules_without_device_warns():
    doc = facts_of("mlx5_modules_no_device")
    res = run_check("rdma.ports", patched(doc, rdma={"modules_loaded": ["ib_core", "mlx5_core", "mlx5_ib"]}))
    assert res.status == "warn" and "no RDMA device, though mlx5_core, mlx5_ib are loaded" in res.findings[0].message


@pytest.mark.parametrize("scenario", ["ib_mlx5_hdr", "roce_mlx5_gids"])
def test_rdma_ports_pass(scenario):
    res = run_check("rdma.ports", facts_of(scenario))
    assert res.status == "pass" and not res.findings


def test_rdma_ports_no_rdma_at_all_is_not_applicable():
    res = run_check("rdma.ports", facts_of("devvm_recorded"))
    assert res.status == "na" and "no RDMA device" in res.summary


# ------------------------------------------------------------------ nccl.env

def nccl(scenario, **env):
    env.setdefault("PATH", "/usr/bin:/bin")
    return run_check("nccl.env", facts_of(scenario, env=env))


def test_nccl_socket_ifname_matches_nothing():
    res = nccl("ib_mlx5_hdr", NCCL_SOCKET_IFNAME="eth0")
    assert res.status == "fail" and "matches no interface" in res.findings[0].message
    assert res.findings[0].exports == {"NCCL_SOCKET_IFNAME": "=eno1"}


def test_nccl_socket_ifname_only_loopback():
    res = nccl("ib_mlx5_hdr", NCCL_SOCKET_IFNAME="lo")
    assert res.status == "fail" and "selects only lo" in res.findings[0].message


def test_nccl_socket_ifname_down_bridge():
    res = nccl("ib_mlx5_hdr", NCCL_SOCKET_IFNAME="=docker0")
    assert res.status == "fail" and "docker0" in res.findings[0].observed


@pytest.mark.parametrize("value", ["eno", "=eno1", "^docker,lo", "ib", "^=docker0"])
def test_nccl_socket_ifname_good(value):
    assert nccl("ib_mlx5_hdr", NCCL_SOCKET_IFNAME=value).status == "pass"


def test_nccl_ib_hca():
    res = nccl("ib_mlx5_hdr", NCCL_IB_HCA="mlx4_0")
    assert res.status == "fail" and res.findings[0].exports == {"NCCL_IB_HCA": "=mlx5_0:1"}
    res = nccl("ib_mlx5_hdr", NCCL_IB_HCA="=mlx5_0:2")
    assert res.status == "fail" and "no port 2" in res.findings[0].message
    assert nccl("ib_mlx5_hdr", NCCL_IB_HCA="=mlx5_0:1").status == "pass"


def test_nccl_net_ib_without_active_port():
    res = nccl("mlx5_modules_no_device", NCCL_NET="IB")
    assert res.status == "fail" and res.findings[0].exports == {"NCCL_NET": "Socket"}


def test_nccl_ib_disable_with_active_ib():
    res = nccl("ib_mlx5_hdr", NCCL_IB_DISABLE="1")
    assert res.status == "warn" and res.findings[0].exports == {"NCCL_IB_DISABLE": "0"}
    assert nccl("mlx5_modules_no_device", NCCL_IB_DISABLE="1").status == "pass"


def test_nccl_gid_index():
    res = nccl("roce_mlx5_gids", NCCL_IB_GID_INDEX="2")
    assert res.status == "warn" and "IB/RoCE v1" in res.findings[0].message
    assert res.findings[0].exports == {"NCCL_IB_GID_INDEX": "3"}
    res = nccl("roce_mlx5_gids", NCCL_IB_GID_INDEX="4")
    assert res.status == "fail" and "not populated" in res.findings[0].message
    assert nccl("roce_mlx5_gids", NCCL_IB_GID_INDEX="3").status == "pass"


def test_nccl_gpudirect_without_peermem():
    res = nccl("roce_mlx5_gids", NCCL_NET_GDR_LEVEL="PHB")
    assert res.status == "warn" and "modprobe nvidia-peermem" in res.findings[0].fix
    assert nccl("ib_mlx5_hdr", NCCL_NET_GDR_LEVEL="PHB").status == "pass"  # nvidia_peermem is loaded there


def test_nccl_topo_file_missing_and_present():
    res = nccl("ib_mlx5_hdr", NCCL_TOPO_FILE="/opt/topo/ndv4-topo.xml")
    assert res.status == "fail" and "NCCL_TOPO_FILE=/opt/topo/ndv4-topo.xml" in res.findings[0].message
    assert nccl("ib_mlx5_hdr", NCCL_TOPO_FILE="/etc/hosts").status == "pass"


def test_nccl_image_variable_is_not_a_typo():
    res = nccl("ib_mlx5_hdr", NCCL_VERSION="2.28.3-1")  # set by NVIDIA's CUDA images
    assert res.status == "pass" and not res.findings


def test_nccl_misspelled_variable():
    res = nccl("ib_mlx5_hdr", NCCL_SOCKET_IFNAMES="eno1")
    assert res.status == "warn" and "did you mean NCCL_SOCKET_IFNAME" in res.findings[0].message
    assert res.findings[0].exports == {"NCCL_SOCKET_IFNAME": "eno1"}


def test_nccl_conf_files_and_precedence(tmp_path):
    base = str(tmp_path / "root")
    shutil.copytree(root("ib_mlx5_hdr"), base, symlinks=True)
    os.makedirs(os.path.join(base, "etc"), exist_ok=True)
    with open(os.path.join(base, "etc/nccl.conf"), "w") as f:
        f.write("NCCL_SOCKET_IFNAME=eth\nNCCL_DEBUG=WARN\n")
    os.makedirs(os.path.join(base, "root"), exist_ok=True)
    with open(os.path.join(base, "root/.nccl.conf"), "w") as f:
        f.write("NCCL_DEBUG=INFO\n")
    doc = facts_of(None, base=base, env={"PATH": "/bin"})
    eff = doc["nccl"]["effective"]
    assert eff["NCCL_DEBUG"] == {"value": "INFO", "source": "/root/.nccl.conf"}
    assert eff["NCCL_SOCKET_IFNAME"]["source"] == "/etc/nccl.conf"
    res = run_check("nccl.env", doc)
    assert res.status == "fail" and "(from /etc/nccl.conf)" in res.findings[0].message
    # the environment wins over the files
    doc = facts_of(None, base=base, env={"PATH": "/bin", "NCCL_SOCKET_IFNAME": "eno1"})
    assert run_check("nccl.env", doc).status == "pass"


# ------------------------------------------------------------------ host.name

def test_host_name_loopback_trap_on_the_gpu_node():
    res = run_check("host.name", facts_of("mlx5_modules_no_device"))
    assert res.status == "fail" and "resolves to 127.0.0.1" in res.findings[0].message
    assert "echo '192.0.2.7 vm' >> /etc/hosts" in res.findings[0].fix


def test_host_name_recorded_devvm():
    res = run_check("host.name", facts_of("devvm_recorded"))
    assert res.status == "fail" and "echo '192.0.2.2 vm'" in res.findings[0].fix


def test_host_name_default_and_unresolved():
    doc = facts_of("ib_mlx5_hdr")
    res = run_check("host.name", patched(doc, host={"hostname": "localhost.localdomain"}))
    assert res.status == "fail" and "hostnamectl set-hostname" in res.findings[0].fix
    res = run_check("host.name", patched(doc, host={"hostname_addresses": []}))
    assert res.status == "fail" and "does not resolve" in res.findings[0].message


@pytest.mark.parametrize("scenario", ["ib_mlx5_hdr", "erdma_pair"])
def test_host_name_pass(scenario):
    assert run_check("host.name", facts_of(scenario)).status == "pass"


# ------------------------------------------------------------------ ssh.config

def _ssh_tree(tmp_path, text, mode=0o600):
    base = tmp_path / "root"
    (base / "root/.ssh").mkdir(parents=True)
    cfg = base / "root/.ssh/config"
    cfg.write_text(text)
    os.chmod(str(cfg), mode)
    return facts_of(None, base=str(base))


def test_ssh_config_comment_after_value(tmp_path):
    doc = _ssh_tree(tmp_path, "Host huaweiyun1\n    HostName 1.2.3.4\n    Port 33   # jump host\n# ok comment\n")
    res = run_check("ssh.config", doc)
    assert res.status == "warn" and "line 3: Port 33   # jump host" in res.findings[0].message


def test_ssh_config_clean(tmp_path):
    doc = _ssh_tree(tmp_path, "# cluster\nHost gpu*\n    User root\n    Port 22\n")
    assert run_check("ssh.config", doc).status == "pass"


def test_ssh_config_unreadable_or_foreign_owner(tmp_path):
    doc = _ssh_tree(tmp_path, "Host a\n")
    res = run_check("ssh.config", patched(doc, ssh={"config": None}))
    assert res.status == "fail" and "cannot be read" in res.findings[0].message
    entries = [dict(e, uid=1234) if e.get("kind") == "config" else e for e in doc["ssh"]["entries"]]
    res = run_check("ssh.config", patched(doc, ssh={"entries": entries}))
    assert res.status == "fail" and "owned by uid 1234" in res.findings[0].message


# ------------------------------------------------------------------ this machine, end to end

def test_cli_host_name_on_this_machine(gpudoctor_cli):
    import socket

    try:
        addrs = set(a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    except OSError:
        addrs = set()
    rc, out, err = gpudoctor_cli("check", "--select", "host.name")
    if addrs and all(a.startswith("127.") for a in addrs):  # the development machines: vm -> 127.0.0.1
        assert rc == 1, out + err
        assert "FAIL host.name" in out and "127.0.0.1" in out
    else:
        assert "host.name" in out


def test_cli_rdma_on_this_machine(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("check", "--select", "rdma", "--json")
    import json

    doc = json.loads(out)
    assert [c["id"] for c in doc["checks"]] == ["rdma.ports"]
    mlx = [m for m in ("mlx5_core", "mlx5_ib", "erdma") if os.path.isdir("/sys/module/" + m)]
    if not os.path.isdir("/sys/class/infiniband") and not mlx:  # the development machines
        assert doc["checks"][0]["status"] == "na"
        assert "no RDMA device" in doc["checks"][0]["summary"]
