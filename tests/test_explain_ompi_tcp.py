"""Open MPI's TCP transport (issue 18): the BTL/OOB connect failures and the 'cannot find a corresponding process
entry' help topic get the interface family (mpi.btl_tcp_if), and the fix names what the log's own peer address
or interface says (gpudoctor/explain/tcpif.py: IPv6 / IPv4 link-local, docker0's and virbr0's default networks,
a bridge named in the log) when no facts say which NIC routes.

Real texts from public threads, cited per text; the help topic as help-mpi-btl-tcp.txt prints it (Debian's
openmpi-common 4.1.4, the source tools/gen_ompi_help.py reads).
"""

import json
import os

from explainhelp import assert_root, explain_paste, fixes

from gpudoctor.explain import tcpif
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

REAL = {
    # https://github.com/open-mpi/ompi/issues/2168 (an interface pair with no route between the nodes; the
    # workaround the thread names: btl_tcp_if_include)
    "no_route_2168": ("[ivy08][[463,1],0][btl_tcp_endpoint.c:803:mca_btl_tcp_endpoint_complete_connect] connect() to "
                      "10.102.1.194 failed: No route to host (113)\n", "btl_tcp_if_include"),
    # https://github.com/jbornschein/mpi4py-examples/issues/11 (Raspberry Pis: the peer's 169.254 address is an
    # interface without a DHCP lease)
    "link_local_mpi4py_11": (
        "--------------------------------------------------------------------------\n"
        "WARNING: Open MPI failed to TCP connect to a peer MPI process.  This\nshould not happen.\n\n"
        "Your Open MPI job may now fail.\n\n  Local host: pi02\n  PID:        24783\n"
        "  Message:    connect() to 169.254.140.13:1026 failed\n  Error:      Resource temporarily unavailable (11)\n"
        "--------------------------------------------------------------------------\n"
        "[pi01:28731] 3 more processes have sent help message help-mpi-btl-tcp.txt / client connect fail\n",
        "btl_tcp_if_exclude lo,<the interface with 169.254.140.13"),
    # https://github.com/open-mpi/ompi/issues/4963 (two subnets per node: pin the one both nodes route)
    "multi_nic_4963": (
        "WARNING: Open MPI failed to TCP connect to a peer MPI process.  This\nshould not happen.\n\n"
        "Your Open MPI job may now hang or fail.\n\n  Local host: rhc001\n  PID:        13325\n"
        "  Message:    connect() to 10.10.10.2:1024 failed\n  Error:      Operation now in progress (115)\n",
        "btl_tcp_if_include"),
    # horovod/horovod#2477 ('Open MPI process cannot find a corresponding process entry for that peer', two
    # containers): the topic [server accept cannot find guid] of help-mpi-btl-tcp.txt
    "unknown_peer_2477": (
        "--------------------------------------------------------------------------\n"
        "WARNING: Open MPI accepted a TCP connection from what appears to be a\n"
        "another Open MPI process but cannot find a corresponding process\nentry for that peer.\n\n"
        "This attempted connection will be ignored; your MPI job may or may not\ncontinue properly.\n\n"
        "  Local host: worker2\n  PID:        231570\n"
        "--------------------------------------------------------------------------\n", "btl_tcp_if_include"),
}


def test_real_tcp_texts_get_the_interface_family_and_its_fix(cli, tmp_path):
    for name, (text, fix) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        root = assert_root(doc, entry="mpi.btl_tcp_if", verdict="root_cause")
        assert fix in fixes(root, " "), (name, fixes(root, " "))


def test_the_log_s_address_names_the_interface_to_leave_out():
    v6 = tcpif.from_log(["[n1][[1,1],0][btl_tcp_endpoint.c:730:mca_btl_tcp_endpoint_start_connect] from n1 to: n2 "
                         "Unable to connect to the peer fe80::42:acff:fe11:2 on port 1024: Network is unreachable"])
    assert "btl_tcp_disable_family 6" in v6 and "oob_tcp_disable_ipv6_family 1" in v6 and "fe80::42:acff:fe11:2" in v6
    docker = tcpif.from_log(["connect() to 172.17.0.1 failed: Connection refused (111)"])
    assert docker.startswith("mpirun --mca btl_tcp_if_exclude lo,docker0 --mca oob_tcp_if_exclude lo,docker0")
    virbr = tcpif.from_log(["connect() to 192.168.122.1 failed: No route to host (113)"])
    assert "btl_tcp_if_exclude lo,virbr0" in virbr
    named = tcpif.from_log(["[n1] btl: tcp: attempting to connect() to [[1,1],1] address 10.0.0.2 on port 1024",
                            "  Interface: cni0"])
    assert "btl_tcp_if_exclude lo,cni0" in named
    # a routable address and no interface named: nothing to say beyond the family's fix
    assert tcpif.from_log(["connect() to 10.102.1.194 failed: No route to host (113)"]) is None
    assert tcpif.from_log(["connect() to 999.1.1.1 failed", "connect() to zz:zz failed"]) is None


def test_the_reader_stays_linear_on_long_lines():
    lines = ["connect() to " + "1." * 5000, "connect() to [" + "f:" * 5000, "x" * 100000 + "docker0" * 10]
    assert tcpif.from_log(lines) is None  # no routable address's interface to name; CPU time: bench/cpu_bounds.py


def test_unknown_peer_topics_are_the_interface_family():
    with open_generated("ompi_help") as f:
        sites = {s["id"]: s for s in json.load(f)["sites"]}
    for topic in ("server_accept_cannot_find_guid", "server_did_not_get_guid", "server_cannot_find_endpoint"):
        s = sites["ompi.mpi-btl-tcp.%s" % topic]
        assert s["family"] == "mpi.btl_tcp_if" and s["rule"] == "tcp-unknown-peer", s
    # the other warning topics of the file stay notes
    assert sites["ompi.mpi-btl-tcp.invalid_if_inexclude"]["family"] == "mpi.warning"
