#!/usr/bin/env python3
"""Accuracy of `gpudoctor explain` on the real texts in fixtures/logs/ (see its README.md):
error texts from public threads, split by source into dev/ (tuned on) and heldout/ (never
tuned on), and healthy/ logs of runs that worked.

A text counts as right ("fix named") when explain's root finding is of the expected family
(`# root:` header for cascade files that contain their root error, else `# family:`) and
its fixes name what the thread settled on: the family's FIX_NAMED regex below, matched
against every fix line and export of the root finding. A text whose answer is a harmless
warning (NCCL fell back to sockets, libibverbs' provider warning) is right when explain finds
no root cause and reports an entry of kind "warning" of that family as a note. A healthy log is right when explain finds no root cause
(verdict "no_error"). Held-out results are printed per family only.

    python bench/explain_accuracy.py [--write] [--misses]

--write replaces the generated block of docs/explain.md; --misses lists dev misses.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor import explain  # noqa: E402

LOGS = os.path.join(ROOT, "fixtures", "logs")
SPLITS = ("dev", "heldout", "healthy")
BEGIN, END = "<!-- accuracy:begin (bench/explain_accuracy.py --write) -->", "<!-- accuracy:end -->"
COV_BEGIN, COV_END = "<!-- coverage:begin (bench/explain_accuracy.py --write) -->", "<!-- coverage:end -->"

# What the fix must name, per family (a regex over the root finding's fix lines and exports).
FIX_NAMED = {
    "build.cuda_home": r"CUDA_HOME|nvcc|cuda-toolkit|devel",
    "build.cuda_mismatch": r"CUDA_HOME|torch\.version\.cuda|cuda-toolkit",
    "build.ninja": r"ninja",
    "build.nvcc_arch": r"TORCH_CUDA_ARCH_LIST|toolkit|gencode",
    "container.cgroup_nvml": r"cgroup|CDI|restart the container|nvidia-ctk",
    "cuda.busy_unavailable": r"compute mode|nvidia-smi -c|driver|MIG",
    "cuda.ptx_toolchain": r"driver",
    "gloo.loopback": r"GLOO_SOCKET_IFNAME|/etc/hosts",
    "gloo.socket_ifname": r"GLOO_SOCKET_IFNAME",
    "gpu.driver_not_loaded": r"driver|nouveau|cpu",
    "mpi.hostname": r"/etc/hosts|IP address|DNS",
    "mpi.implementation_mismatch": r"mpirun",
    "mpi.openib_ucx": r"btl|ucx",
    "mpi.orted": r"--prefix|PATH",
    "mpi.run_as_root": r"--allow-run-as-root|OMPI_ALLOW_RUN_AS_ROOT|non-root",
    "mpi.slots": r"slots|--oversubscribe",
    "nccl.lib_missing": r"LD_LIBRARY_PATH|libnccl2|nvidia-nccl",
    "rdma.libibverbs_warning": r"libibverbs\.d|provider",
    "rdma.modify_qp": r"NCCL_CROSS_NIC|NCCL_IB_GID_INDEX|NCCL_IB_HCA",
    "rendezvous.store_barrier": r"timeout",
    "torch.cpu_wheel": r"download\.pytorch\.org|CUDA build",
    "cascade": r"first error|find the",
    "container.gpu_driver": r"nvidia-container-toolkit|--gpus",
    "container.runtime_unknown": r"nvidia-ctk runtime configure|nvidia-container-toolkit|--gpus",
    "container.nvml_driver": r"nvidia-container|nvidia-ctk|ldconfig|driver",
    "cuda.driver_insufficient": r"driver",
    "cuda.not_available": r"CUDA build|driver|CUDA_VISIBLE_DEVICES|torch",
    "torch.windows_libuv": r"USE_LIBUV|use_libuv|Linux|single GPU",
    "torch.torchvision_cuda_mismatch": r"torchvision",
    "cuda.invalid_device_ordinal": r"nproc_per_node|num_processes|num_gpus|CUDA_VISIBLE_DEVICES|LOCAL_RANK",
    "cuda.libs": r"LD_LIBRARY_PATH|nvidia-cublas",
    "cuda.no_kernel_image": r"torch|TORCH_CUDA_ARCH_LIST",
    "cuda.system_not_ready": r"fabricmanager|fabric manager",
    "deepspeed.launcher": r"hostfile|slots|--include|--num_gpus|CUDA_VISIBLE_DEVICES",
    "deepspeed.ops": r"libaio|DS_BUILD|ninja",
    "gpu.p2p": r"ACS|NCCL_P2P_DISABLE|IOMMU|peer access|P2P",
    "gpu.xid": r"drain|reset|reboot",
    "mpi.btl_tcp_if": r"btl_tcp_if_include|oob_tcp_if_include|btl_tcp_if_exclude",
    "mpi.exec_not_found": r"PATH|absolute path|-x PATH|--prefix",
    "nccl.buffsize_enomem": r"NCCL_BUFFSIZE|memlock|dmabuf",
    "nccl.duplicate_gpu": r"CUDA_VISIBLE_DEVICES|set_device|LOCAL_RANK",
    "nccl.ib_no_device": r"/dev/infiniband|RDMA|sockets",
    "nccl.internal_error": r"NCCL_DEBUG=INFO|shm-size|memlock|NCCL_IB_HCA",
    "nccl.net_plugin": r"plugin|NCCL_NET_PLUGIN|LD_LIBRARY_PATH|aws-ofi-nccl",
    "nccl.nvls": r"NCCL_NVLS_ENABLE|fabricmanager|fabric manager",
    "nccl.remote_error": r"link|remote rank",
    "nccl.socket_ifname": r"NCCL_SOCKET_IFNAME",
    "nccl.system_error": r"NCCL_SOCKET_IFNAME|shm|memlock|first rank",
    "nccl.timeout": r"rank|timeout",
    "nccl.topo_file": r"unset NCCL_GRAPH_FILE|NCCL_TOPO_FILE",
    "nccl.unhandled_cuda_error": r"NCCL|driver|torch",
    "nccl.version_mismatch": r"same|one NCCL|LD_LIBRARY_PATH|LD_PRELOAD",
    "nccltests.no_mpi": r"MPI=1",
    "nvml.mismatch": r"reboot|reload",
    "ofed.kernel": r"add-kernel-support|dkms|reinstall",
    "rdma.create_qp": r"memlock|IPC_LOCK",
    "rdma.gid_index": r"NCCL_IB_GID_INDEX",
    "rdma.memlock": r"memlock|IPC_LOCK",
    "rdma.peermem": r"nvidia-peermem|nv_peer_mem",
    "rendezvous.address_in_use": r"port",
    "rendezvous.connect": r"IP|node_rank|rank 0|firewall|MASTER_ADDR",
    "rendezvous.env_missing": r"torchrun|launcher|MASTER_ADDR|torch\.distributed\.launch",
    "rendezvous.hostname": r"/etc/hosts|MASTER_ADDR|hostname|IP address",
    "shm.removeipc": r"RemoveIPC",
    "shm.size": r"shm-size|ipc=host|/dev/shm",
    "ssh.pdsh": r"ssh-keygen|ssh-copy-id|authorized_keys",
    "ssh.permissions": r"chmod",
    "ssh.publickey": r"ssh-keygen|ssh-copy-id",
    "torch.no_nccl": r"gloo|CUDA build|download\.pytorch\.org|cu1\d\d",
}


# Sources whose texts lay in dev/ while the knowledge was tuned (their texts were read then) and
# were moved whole to heldout/ afterwards by fixtures/logs/split_overrides.tsv (so that their
# families have held-out texts). They are not unseen: the held-out figure is also given without them.
SEEN_BEFORE_MOVED = {"open-mpi/ompi", "aws/aws-ofi-nccl", "mellanox/nv_peer_memory"}


def source_key(url):
    """'owner/repo' (lower case) for a GitHub thread, else the host: fixtures/logs/make_manifest.py's rule."""
    from urllib.parse import urlparse

    u = urlparse(url)
    host = u.netloc.lower()
    host = host[4:] if host.startswith("www.") else host
    if host == "github.com":
        return "/".join([x for x in u.path.split("/") if x][:2]).lower()
    return host


def read_fixture(path):
    """(headers, body bytes): the '# key: value' lines up to '# ---', then the verbatim log."""
    with open(path, "rb") as f:
        data = f.read()
    head, sep, body = data.partition(b"# ---\n")
    if not sep:
        raise ValueError("%s has no '# ---' separator" % path)
    headers = {}
    for line in head.decode("utf-8").splitlines():
        if line.startswith("# ") and ":" in line:
            k, _, v = line[2:].partition(":")
            headers[k.strip()] = v.strip()
    return headers, body


def expected_family(headers):
    return headers.get("root") or headers["family"]


def family_matches(finding, family):
    return finding["id"] == family or finding["family"] == family or finding["id"].startswith(family + ".")


def fix_named(finding, family):
    want = FIX_NAMED.get(family.split(".")[0] if family not in FIX_NAMED else family)
    if want is None:
        return True
    text = "\n".join(f for c in finding["causes"] for f in c["fix"] + ["%s=%s" % kv for kv in c["exports"].items()])
    return re.search(want, text, re.IGNORECASE) is not None


def judge(res, family, kb):
    """(family right, fix named)."""
    if family == "healthy":
        ok = res["verdict"] == "no_error"
        return ok, ok
    root = res["findings"][0] if res["findings"] and res["verdict"] != "no_error" else None
    if res["verdict"] == "no_error":
        # a harmless warning of this family, reported as a note with no root cause
        ok = any(kb.by_id[n["id"]]["family"] == family and kb.by_id[n["id"]]["kind"] == "warning"
                 for n in res["context"])
        return ok, ok
    if root is None or not family_matches(root, family):
        return False, False
    return True, fix_named(root, family)


def files(split):
    d = os.path.join(LOGS, split)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".log"))


def evaluate(kb=None, splits=SPLITS):
    kb = kb or explain.load_knowledge()
    rows = []
    for split in splits:
        for path in files(split):
            headers, body = read_fixture(path)
            want = "healthy" if split == "healthy" else expected_family(headers)
            res = explain.explain_text(body, kb, source=os.path.basename(path))
            fam_ok, fix_ok = judge(res, want, kb)
            rows.append({"split": split, "file": os.path.basename(path), "expected": want,
                         "source": source_key(headers.get("source", "")),
                         "got": res["root"] if res["verdict"] in ("root_cause", "likely_cause", "echo_only") else
                         "(%s)" % res["verdict"].replace("_", " "),
                         "family_ok": fam_ok, "ok": fix_ok})
    return rows


def _pct(a, b):
    return "%d / %d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "0 / 0"


def markdown(rows):
    out = []
    by = {s: [r for r in rows if r["split"] == s] for s in SPLITS}
    out.append("| set | texts | root family right | fix named |")
    out.append("| --- | --- | --- | --- |")
    for s in ("dev", "heldout"):
        rs = by[s]
        out.append("| %s | %d | %s | %s |" % ("development" if s == "dev" else "held-out", len(rs),
                                             _pct(sum(r["family_ok"] for r in rs), len(rs)),
                                             _pct(sum(r["ok"] for r in rs), len(rs))))
    unseen = [r for r in by["heldout"] if r["source"] not in SEEN_BEFORE_MOVED]
    out.append("| held-out, without the %d texts of %d sources read while they were in dev/ (see below) | %d | %s | %s |"
               % (len(by["heldout"]) - len(unseen), len(SEEN_BEFORE_MOVED), len(unseen),
                  _pct(sum(r["family_ok"] for r in unseen), len(unseen)), _pct(sum(r["ok"] for r in unseen), len(unseen))))
    hs = by["healthy"]
    out.append("| healthy logs (no root cause) | %d | | %s |" % (len(hs), _pct(sum(r["ok"] for r in hs), len(hs))))
    out.append("")
    fams = sorted({r["expected"] for r in rows if r["split"] != "healthy"})
    out.append("Per family (fix named), development and held-out:")
    out.append("")
    out.append("| family | dev | held-out |")
    out.append("| --- | --- | --- |")
    for fam in fams:
        cells = []
        for s in ("dev", "heldout"):
            rs = [r for r in by[s] if r["expected"] == fam]
            cells.append("%d/%d" % (sum(r["ok"] for r in rs), len(rs)) if rs else "-")
        out.append("| %s | %s | %s |" % (fam, cells[0], cells[1]))
    out.append("")
    misses = [r for r in by["dev"] + by["healthy"] if not r["ok"]]
    if misses:
        out.append("Development and healthy misses (held-out texts are not listed, so that nobody tunes on them):")
        out.append("")
        out.append("| file | expected | explain's answer |")
        out.append("| --- | --- | --- |")
        for r in misses:
            out.append("| %s/%s | %s | %s |" % (r["split"], r["file"], r["expected"], r["got"]))
    return "\n".join(out) + "\n"


SHOWN = 120  # unassigned sites listed per source in docs/explain.md
# the rule names with which generators mark a site that reports no failure by itself (a warning or info line, an event
# or status code, a task's exit status): coverage()'s "not a failure" column, apart from the sites still to assign
NOT_A_FAILURE = re.compile(r"^(?:not[ -]a[ -]|a warning|warning$|info$|quiet$)|not an error|not a failure")


def coverage(kb=None):
    """Markdown: per generated source (gpudoctor/data/knowledge/generated/*.json), how many message
    sites it holds, how many have a matcher, how many a rule assigns to a family that names a cause
    or to a generic family (its causes tell the possibilities apart), and which remain unassigned."""
    from gpudoctor.explain.knowledge import generated_files, read_json, table_name

    kb = kb or explain.load_knowledge()
    # by source context: a generator's rule that assigns by the file a site is printed from (its rule name starts with
    # 'ctx-': tools/gen_slurm_messages.py CONTEXT_RULES); not a failure: an unassigned site its generator marks as no
    # failure by itself (NOT_A_FAILURE: an info/warning line, an event or status code, a task's exit status)
    out = ["| source | version | message sites | with a matcher | assigned: cause | assigned: family only | "
           "of those, by source context | not a failure | unassigned |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    lists = []
    for path in generated_files():
        doc = read_json(path)
        sites = doc["sites"]
        if not sites:
            continue
        name = table_name(path)
        with_re = [x for x in sites if x.get("re")]
        fam = [x for x in with_re if x.get("family")]
        generic = [x for x in fam if kb.by_id[x["family"]].get("generic")]
        ctx = [x for x in fam if str(x.get("rule") or "").startswith("ctx-")]
        left = [x for x in sites if not x.get("family") or not x.get("re")]
        quiet = [x for x in left if NOT_A_FAILURE.search(str(x.get("rule") or ""))]
        left = [x for x in left if x not in quiet]
        out.append("| %s | %s | %d | %d | %d | %d | %d | %d | %d |" % (
            name, doc["header"]["version"].split(" (")[0], len(sites), len(with_re), len(fam) - len(generic),
            len(generic), len(ctx), len(quiet), len(left)))
        if left:
            shown = sorted({(x.get("name") or x.get("text") or x["id"]).strip() for x in left})
            more = "; and %d more (the file's `unassigned` list)" % (len(shown) - SHOWN) if len(shown) > SHOWN else ""
            lists.append("* %s (%d): %s%s" % (name, len(left), "; ".join("`%s`" % t.replace("`", "'")[:70]
                                                                           for t in shown[:SHOWN]), more))
    return "\n".join(out + ["", "Unassigned sites (no rule names their family, or no literal of 8+ characters to "
                                  "match on; the sites marked 'not a failure' are not listed), per source:", ""]
                      + lists) + "\n"


def main(argv):
    rows = evaluate()
    md = markdown(rows)
    cov = coverage()
    if "--write" in argv:
        path = os.path.join(ROOT, "docs", "explain.md")
        with open(path) as f:
            doc = f.read()
        a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        doc = doc[:a] + "\n" + md + doc[b:]
        if COV_BEGIN in doc:
            a, b = doc.index(COV_BEGIN) + len(COV_BEGIN), doc.index(COV_END)
            doc = doc[:a] + "\n" + cov + doc[b:]
        with open(path, "w") as f:
            f.write(doc)
    sys.stdout.write(md + "\n" + cov)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
