#!/usr/bin/env python3
import json, os
C = "/tmp/heldout-p57/cases"
SR = "planted-cpu-2026-11-28-p57/"
cases = [
 dict(id="p57-gloo_socket_ifname_unlinked_mgmt_net", file="gloo_ifname_mgmt_unlinked.txt", comp="gloo",
  category="network", group="net-gloo-interface",
  family="gloo.socket_ifname", alts=["rendezvous.connect", "gloo.timeout"],
  fix="GLOO_SOCKET_IFNAME=mgmt0 makes Gloo advertise and use the management interface (192.168.57.x), which is not connected between the nodes, so the pairs cannot reach each other although the rendezvous over node-a works; set GLOO_SOCKET_IFNAME=eth0 (the interface on the nodes' shared 10.57.0.0/24 network) or unset it.",
  kw=["GLOO_SOCKET_IFNAME=eth0", "management"],
  note="planted and fix verified by re-running: with GLOO_SOCKET_IFNAME=eth0 both ranks trained and all_reduce gave 3.0."),
 dict(id="p57-tcpstore_server_on_last_rank_master_addr_rank0", file="tcpstore_master_on_last_rank.txt", comp="c10d-tcpstore",
  category="user-code", group="net-tcpstore",
  family="rendezvous.store_timeout", alts=["rendezvous.connect", "torch.distributed_usage"],
  fix="The script makes the last rank (rank 1, on node-b) host the TCPStore (is_master=(rank == ws - 1)) while MASTER_ADDR points at node-a, where rank 0 runs, so nothing listens on node-a:29572 and every client times out; host the store on the rank that runs on MASTER_ADDR: is_master=(rank == 0).",
  kw=["rank == 0", "rank 0"],
  note="planted and fix verified by re-running: with is_master=(rank == 0) both ranks all_reduced to [3.0, 3.0, 3.0, 3.0]."),
 dict(id="p57-rdzv_endpoint_bare_ipv6_parsed_as_port_1", file="rdzv_endpoint_ipv6_unbracketed.txt", comp="torchrun",
  category="launcher-config", group="net-rdzv-endpoint",
  family="rendezvous.hostname", alts=["elastic.ipv6_attempt", "rendezvous.connect", "launcher.port"],
  fix="--rdzv-endpoint fd57::1 is a bare IPv6 address without port, and torchrun splits it at the last colon into host 'fd57:' and port 1, which resolves to nothing; pass the endpoint as host:port using the master's host name or IPv4 address (here node-a:29400). (In this torch 2.13 build a bracketed [fd57::1]:29400 parsed correctly but the node did not recognise itself as the store host, so both nodes waited as clients.)",
  kw=["port 1", "host:port", "node-a:29400"],
  note="planted and fix verified by re-running with --rdzv-endpoint node-a:29400 (both ranks trained, all_reduce 3.0). Bracketed [fd57::1]:29400 was also tried: it parses to (fd57::1, 29400) but both agents timed out as clients, so the verified fix is the IPv4/host-name endpoint."),
 dict(id="p57-master_port_taken_by_outgoing_ephemeral_socket", file="master_port_in_ephemeral_range.txt", comp="c10d-tcpstore",
  category="launcher-config", group="net-port",
  family="rendezvous.address_in_use", alts=["errno.eaddrinuse", "launcher.port"],
  fix="Port 41234 lies inside the kernel's ephemeral range (32768-60999) and is held as the local port of an established outgoing connection (10.57.0.1:41234 -> 10.57.0.2:2049), not by a listener, so the TCPStore cannot bind it; choose a MASTER_PORT below 32768 (e.g. 29534) or reserve the port with net.ipv4.ip_local_reserved_ports.",
  kw=["ephemeral", "ip_local_reserved_ports", "below 32768"],
  note="planted and fix verified by re-running with --master-port 29534 (outside the ephemeral range): both ranks finished."),
]
cases += [
 dict(id="p57-nft_drop_on_c10d_rendezvous_port", file="nft_drop_rdzv_port.txt", comp="c10d-rendezvous",
  category="network", group="net-firewall",
  family="rendezvous.connect", alts=["rendezvous.store_timeout"],
  fix="node-a answers ping, but a host firewall on node-a (nftables input chain) silently drops TCP port 29400, the c10d rendezvous port, so node-b's connection attempts time out; allow the rendezvous port on the master (e.g. nft add rule inet filter input tcp dport 29400 accept) or use a port the firewall opens.",
  kw=["firewall", "nft", "iptables"],
  note="planted (nft rule 'tcp dport 29400 drop' in node-a's input chain) and fix verified by re-running with the rule changed to accept: both ranks trained, all_reduce 3.0."),
]
cases += [
 dict(id="p57-max_restarts_survivor_waits_for_dead_node", file="max_restarts_dead_node_rdzv_timeout.txt", comp="torchrun",
  category="elastic", group="net-elastic-restart",
  family="elastic.rdzv_incomplete", alts=["cascade.child_failed", "elastic.rdzv_closed"],
  fix="The other node (10.57.0.2) died mid-training (its socket was reset), so this node's worker failed; --max-restarts only restarts workers here and the new rendezvous waits for 2 nodes, which can never come back, until join_timeout. Bring the dead node back (start torchrun there again with the same --rdzv-id) or make the job elastic with --nnodes 1:2 so the survivors re-form the group without it.",
  kw=["1:2", "died", "crash"],
  note="planted (every process in node-b's namespace killed with SIGKILL after step 10); fix verified by re-running with --nnodes 1:2: after the same kill node-a re-rendezvoused alone and finished."),
 dict(id="p57-healthy_ipv6_master_addr_static_cpp_info", file="healthy_ipv6_master_addr_static.txt", comp="c10d-socket",
  category="healthy", group="healthy", healthy=True,
  note="recorded from a working run: static rendezvous with an IPv6 --master-addr (fd58::1) and TORCH_CPP_LOG_LEVEL=INFO; both ranks all_reduced 3.0, exit 0."),
 dict(id="p57-healthy_gloo_ifname_eth0_two_interfaces", file="healthy_gloo_ifname_eth0_two_interfaces.txt", comp="gloo",
  category="healthy", group="healthy", healthy=True,
  note="recorded from a working run: nodes with two interfaces, GLOO_SOCKET_IFNAME=eth0 (the shared network); both ranks all_reduced 3.0, exit 0; the socket.cpp hostname warnings are harmless."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, group=c["group"], label_note=c["note"]))
with open("/tmp/heldout-p57/explain_heldout_p57.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
