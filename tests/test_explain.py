"""`gpudoctor explain`: the knowledge base, the real error texts of fixtures/logs/, the
scanner on awkward input, and the CLI as a user runs it."""

import glob
import io
import json
import os
import re
import sys

import pytest

from conftest import FIXTURES, ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))

import explain_accuracy  # noqa: E402  (the same reader the accuracy report uses)
from gpudoctor import explain  # noqa: E402
from gpudoctor.registry import load_checks  # noqa: E402

LOGS = os.path.join(FIXTURES, "logs")
# the real texts lie in logs/dev/ and logs/heldout/ (split by source: fixtures/logs/README.md); the
# per-file assertions run on the development side only, since nobody tunes on the held-out side
LOG_PATHS = {os.path.basename(p): p for p in glob.glob(os.path.join(LOGS, "*", "*.log"))}
LOG_FILES = sorted(n for n, p in LOG_PATHS.items() if os.path.basename(os.path.dirname(p)) == "dev")

# Development texts explain gets wrong, each with the reason (docs/explain.md lists them too,
# generated). The test fails when one starts to pass, so this list cannot go stale.
KNOWN_MISSES = {
    # only the watchdog's echo is in the excerpt; the thread's fix (NCCL_IB_DISABLE=1 between
    # nodes without InfiniBand) is not in the text: explain says "only echoes" and names no fix
    "cascade__nanogpt-55-multinode-echo-ib-disable.log",
    # NCCL's INFO interface list (docker bridges among them): INFO lines are context, not a cause
    "nccl.socket_ifname__nccl-697-socket-using-docker-bridges.log",
    # "Bus error" from UCX with no shared-memory path nearby: not enough to say /dev/shm
    "shm.size__pipedream-76-bus-error-nonexistent-physical-address.log",
    # the very text of nccl-718 ("Call to ibv_modify_qp failed with error No such device"), whose
    # thread settled on the GID index; explain answers rdma.gid_index and names both fixes
    # (per-node NCCL_IB_GID_INDEX, or NCCL_IB_HCA=^<device>), the family here is rdma.modify_qp
    "rdma.modify_qp__nccl-799-ibv-modify-qp-no-such-device-hca-exclude.log",
    # (fp22) only the first lines of an ssh -v, cut before any failure: the key paths that hold no key
    # ('identity file ... type -1'), which a working login prints too (fixtures/explain/healthy/
    # ssh-v-login-accepted.log): no failure is in the text, so explain says none
    "ssh.publickey__horovod-467-no-identity-files.log",
    # only "invalid usage, NCCL version 2.17.1 ncclInvalidUsage" is in the excerpt: that phrase is
    # printed for several causes (NCCL_NET=IB without RDMA, mismatched calls, two ranks on one GPU),
    # so explain answers the family nccl.invalid_usage with the causes told apart, not one cause
    "nccl.duplicate_gpu__nccl-1241-invalid-usage-multiple-ranks-one-gpu.log",
}
HEALTHY = sorted(glob.glob(os.path.join(LOGS, "healthy", "*.log")))


def run(text, kb, **kw):
    return explain.explain_text(text, kb, **kw)


# ------------------------------------------------------------------ the knowledge base


def test_every_entry_is_valid_and_its_checks_exist(kb):
    registered = set(load_checks().ids())
    ids = [e["id"] for e in kb.entries]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 60
    for e in kb.entries:
        assert e.get("patterns") or e.get("distinct") or e.get("together") or e.get("structural"), e["id"]
        for p in e["_patterns"]:
            assert p.regex.pattern and p.needles
        for c in e["causes"]:
            assert c["fix"] and c["text"]
            assert set(c["checks"]) <= registered, (e["id"], c["checks"])
            for ev in c["_evidence"]:
                assert ev.needles
        assert e["references"], e["id"]  # every entry says where its cause and fix are documented
        for r in e["references"]:
            assert r["url"].startswith("https://")


def test_entries_live_beside_the_checks_that_confirm_them(kb):
    """An entry whose causes name a check is kept in checks/<module>.knowledge.toml when
    that check's module has one; the rest are in gpudoctor/data/knowledge/."""
    registry = load_checks()
    beside = {os.path.basename(f)[:-len(".knowledge.toml")] for f in explain.knowledge_files()
              if f.endswith(".knowledge.toml")}
    assert {"shm", "memlock", "ssh", "driver_cuda"} <= beside
    named = {}
    for e in kb.entries:
        src = e["source_file"].replace(os.sep, "/")
        if src.startswith("checks/"):
            mod = os.path.basename(src)[:-len(".knowledge.toml")]
            named.setdefault(mod, set()).update(
                registry.get(cid).module.rsplit(".", 1)[-1] for c in e["causes"] for cid in c["checks"])
        else:
            assert src.startswith("gpudoctor/data/knowledge/"), src
    for mod, mods in named.items():
        assert mod in mods, (mod, mods)  # the file's entries are confirmed by that module's checks


def test_the_issue_families_are_all_covered(kb):
    families = {"nccl.system_error", "nccl.internal_error", "nccl.unhandled_cuda_error", "nccl.remote_error",
                "nccl.ib_no_device", "nccl.socket_ifname", "nccl.timeout", "rendezvous.connect",
                "rendezvous.address_in_use", "cuda.libs", "cuda.driver_insufficient", "nvml.mismatch",
                "cuda.no_kernel_image", "shm.size", "shm.removeipc", "rdma.memlock", "rdma.create_qp",
                "rdma.gid_index", "rdma.peermem", "cuda.gpu_hardware", "ssh.publickey", "ssh.permissions", "ssh.pdsh",
                "deepspeed.ops", "ofed.kernel", "nccl.version_mismatch", "nccl.topo_file", "gpu.p2p",
                # issue 14: 802/fabric manager, MPI launch, gloo 127.0.1.1, device ordinals, torch without
                # NCCL, DeepSpeed launcher and builds, net plugins, peermem after kernel upgrades, NVLS,
                # container runtimes, hostname resolution, store barrier, NCCL_BUFFSIZE/dmabuf ENOMEM
                "cuda.system_not_ready", "mpi.btl_tcp_if", "mpi.exec_not_found", "mpi.orted", "mpi.hostname",
                "gloo.loopback", "gloo.socket_ifname", "cuda.invalid_device_ordinal", "torch.no_nccl",
                "deepspeed.launcher", "build.cuda_home", "nccl.net_plugin", "nccl.nvls", "container.gpu_driver",
                "container.nvml_driver", "rendezvous.hostname", "rendezvous.store_barrier", "nccl.buffsize_enomem"}
    assert families <= {e["family"] for e in kb.entries}
    assert "gpu.xid" in kb.by_id  # an entry of the cuda.gpu_hardware family (gpu_hardware.toml)


def test_bad_knowledge_is_refused_at_load(tmp_path):
    ok = "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\n%s\n[[entry.causes]]\ntext='c'\nfix=['f']\n%s\n" \
         "[[entry.references]]\ntitle='r'\nurl='https://example.org/r'\n"
    cases = {
        "dup": (ok % ("patterns=['abcd']", "")) * 2,
        "regex": ok % ("patterns=['abcd(']", ""),
        "needle": ok % ("patterns=['a.c']", ""),
        "check": ok % ("patterns=['abcd']", "checks=['no.such_check']"),
        "nofix": "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['abcd']\n[[entry.causes]]\ntext='c'\n",
        "norefs": "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['abcd']\n"
                  "[[entry.causes]]\ntext='c'\nfix=['f']\n",
        "together_one": ok % ("together=[{all=['abcd'], within=3}]", ""),
        "together_nowithin": ok % ("together=[{all=['abcd', 'efgh']}]", ""),
        "signal_noweight": ok % ("patterns=['abcd']\nsignals=[{re='efgh'}]", ""),
        "computed": ok % ("patterns=['abcd']", "computed='magic'"),
        "on_info": ok % ("patterns=[{re='abcd', on_info='yes'}]", ""),
    }
    good = tmp_path / "good.toml"
    good.write_text(ok % ("patterns=['abcd']\nsignals=[{re='efgh', weight=5}]\n"
                          "together=[{all=['ijkl', 'mnop'], within=3, rank=9}]", "computed='socket_ifname'"))
    assert explain.load_knowledge([str(good)], known_checks={"shm.size"}).by_id["a.b"]
    for name, text in cases.items():
        p = tmp_path / (name + ".toml")
        p.write_text(text)
        with pytest.raises(explain.KnowledgeError):
            explain.load_knowledge([str(p)], known_checks={"shm.size"})
            pytest.fail(name)


def test_needles_are_what_a_matching_line_must_contain():
    assert explain.needles_of(r"NCCL WARN Call to ibv_reg_mr\w* failed") == ["NCCL WARN Call to ibv_reg_mr"]
    # the more selective of a branch's alternatives and a literal run is taken
    assert sorted(explain.needles_of(r"(?:Bootstrap|NET/Socket) ?: Using")) == ["Bootstrap", "NET/Socket"]
    assert explain.needles_of(r"(?:ab|NET/Socket) ?: Using") == [": Using"]
    # (the regex parser factors the common "no " out of the branch first; the run before a choice
    # of literals is joined with each choice)
    assert sorted(explain.needles_of(r"(?:no socket interface|no NCCL_SOCKET_IFNAME interface) found")) == [
        "no NCCL_SOCKET_IFNAME interface", "no socket interface"]
    # a common run ('site-packages/') before a choice is not what a line is tried on: each joined choice is
    assert sorted(explain.needles_of(r"site-packages/(?:vllm|flash_attn)/")) == ["site-packages/flash_attn",
                                                                                 "site-packages/vllm"]
    # the prefilter looks for them lower-cased and without blanks (a wrap may split or drop one)
    p = explain.Pattern("a.b", "match", r"NCCL WARN Call to ibv_reg_mr\w* failed", 1)
    assert p.needles_b == [b"ncclwarncalltoibv_reg_mr"]


# ------------------------------------------------------------------ the real error texts


@pytest.mark.parametrize("name", LOG_FILES)
def test_real_log_maps_to_its_family_and_names_the_fix(name, kb):
    headers, body = explain_accuracy.read_fixture(LOG_PATHS[name])
    want = explain_accuracy.expected_family(headers)
    res = run(body, kb)
    family_ok, fix_ok = explain_accuracy.judge(res, want, kb)
    if name in KNOWN_MISSES:
        assert not fix_ok, "%s now passes: remove it from KNOWN_MISSES" % name
        return
    assert family_ok and fix_ok, (name, res["verdict"], [f["id"] for f in res["findings"]])
    if res["verdict"] == "no_error":  # an informational text: the note is there, no root cause
        assert res["findings"] == [] and res["context"]
        return
    top = res["findings"][0]
    assert top["role"] == "root" and res["verdict"] in ("root_cause", "echo_only")
    # the matched line is real text of the log, with its real line number
    lines = body.decode("utf-8", "replace").splitlines()
    for m in top["matches"]:
        assert m["text"][:30].strip(" .").lower() in lines[m["line"] - 1].lower(), (name, m)


@pytest.mark.parametrize("path", HEALTHY, ids=os.path.basename)
def test_healthy_logs_have_no_root_cause(path, kb):
    _, body = explain_accuracy.read_fixture(path)
    res = run(body, kb)
    assert res["verdict"] == "no_error" and res["root"] is None and res["findings"] == [], \
        [(f["id"], f["matches"][0]) for f in res["findings"]]
    assert explain.exit_code(res) == 0


def test_there_are_enough_real_texts_on_both_sides():
    counts = {s: len(explain_accuracy.files(s)) for s in ("dev", "heldout", "healthy")}
    assert counts["dev"] >= 100 and counts["heldout"] >= 40 and counts["healthy"] >= 20, counts


@pytest.mark.parametrize("name", [n for n in LOG_FILES if n.startswith("cascade__")])
def test_cascade_logs_show_the_echoes_after_the_root(name, kb):
    headers, body = explain_accuracy.read_fixture(LOG_PATHS[name])
    res = run(body, kb)
    roles = [f["role"] for f in res["findings"]]
    assert roles[0] == "root"
    if headers.get("root"):
        assert res["findings"][0]["kind"] != "echo"
        assert "cascade" in roles, name  # the echo lines are shown, as echoes
        assert all(f["kind"] == "echo" for f in res["findings"] if f["role"] == "cascade")
    else:  # only echoes in the excerpt: said so, no invented cause
        assert res["findings"][0]["kind"] == "echo" and res["verdict"] == "echo_only"
        assert any("Only the echo" in n for n in res["findings"][0]["notes"])


def test_accuracy_report_in_docs_is_current(kb):
    rows = explain_accuracy.evaluate(kb)
    dev = [r for r in rows if r["split"] == "dev"]
    assert sum(r["ok"] for r in dev) == len(dev) - len(KNOWN_MISSES)
    with open(os.path.join(ROOT, "docs", "explain.md")) as f:
        doc = f.read()
    assert explain_accuracy.markdown(rows) in doc, "run: python bench/explain_accuracy.py --write"


# ------------------------------------------------------------------ ranking, evidence, lookups


def test_root_error_comes_before_its_echoes_wherever_they_are_in_the_log(kb):
    log = ("[rank3]: Sending process 12 closing signal SIGTERM\n"
           "[rank1]: torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
           "[rank0]: gpu3:1:2 [0] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9 bytes\n"
           "[rank0]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.18.1\n")
    res = run(log, kb)
    assert [f["id"] for f in res["findings"]][:2] == ["shm.size", "nccl.system_error"]
    assert res["findings"][0]["matches"][0]["line"] == 3
    assert {f["id"]: f["role"] for f in res["findings"]}["cascade.child_failed"] == "cascade"
    # the generic class is shown as related, with the root's cause ranked by the log's evidence
    sysr = res["findings"][1]
    assert sysr["role"] == "related" and sysr["causes"][0]["checks"] == ["shm.size"]
    assert sysr["causes"][0]["evidence"][0]["line"] == 3


def test_xid_numbers_are_explained(kb):
    res = run("[ 1843.3] NVRM: Xid (PCI:0000:b3:00): 79, pid=1896, GPU has fallen off the bus.\n"
              "[ 1844.1] NVRM: Xid (PCI:0000:18:00): 48, pid=1896, An uncorrectable double bit error\n", kb)
    f = res["findings"][0]
    # the first fault's kind (gpu_hardware.toml) is the root; each Xid number is explained in the answer
    assert f["id"] == "gpu.xid.fallen_off_bus" and f["family"] == "cuda.gpu_hardware"
    notes = [n for g in res["findings"] for n in g["notes"]]
    assert any(n.startswith("Xid 79: GPU has fallen off the bus") for n in notes)
    assert any(n.startswith("Xid 48: Double-bit ECC") for n in notes)
    assert "fallen off the bus" in f["causes"][0]["text"].lower() or "PCIe" in f["causes"][0]["text"]


def test_one_nccl_version_is_not_a_mismatch_two_are(kb):
    one = "n1:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\nn2:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n"
    assert "nccl.version_mismatch" not in [f["id"] for f in run(one, kb)["findings"]]
    two = one + "n3:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.1\n"
    f = run(two, kb)["findings"][0]
    assert f["id"] == "nccl.version_mismatch" and f["distinct"]["values"] == ["2.18.1", "2.19.3"]
    # PyTorch < 1.10 printed 2.10.3 as "21.0.3": not a version, not a mismatch
    old = "RuntimeError: NCCL error ..., internal error, NCCL version 21.0.3\nNCCL version 2.10.3+cuda11.1\n"
    assert "nccl.version_mismatch" not in [f["id"] for f in run(old, kb)["findings"]]


def test_an_images_nccl_package_beside_the_loaded_nccl_is_a_note_not_a_mismatch(kb):
    # NVIDIA's CUDA images set ENV NCCL_VERSION / NV_LIBNCCL_PACKAGE for their libnccl2
    # (https://gitlab.com/nvidia/container-images/cuda); pip torch loads its own NCCL (DeepSpeed's launcher echoes the env)
    image = ("[INFO] [launch.py:145:main] 0 NV_LIBNCCL_DEV_PACKAGE=libnccl-dev=2.28.3-1+cuda13.0\n"
             "[INFO] [launch.py:145:main] 0 NCCL_VERSION=2.28.3-1\n"
             "NCCL version 2.28.9+cuda13.0\n")
    res = run(image, kb)
    assert res["findings"] == [] and "nccl.image_vs_loaded" in [n["id"] for n in res["context"]]
    # two processes whose banners differ still mix NCCLs; two different images' packages too
    two = image + "n2:1:1 [0] NCCL INFO NCCL version 2.27.3+cuda12.9\n"
    f = run(two, kb)["findings"][0]
    assert f["id"] == "nccl.version_mismatch" and f["distinct"]["values"] == ["2.27.3", "2.28.9"]
    pkgs = "NV_LIBNCCL_PACKAGE=libnccl2=2.19.3-1+cuda12.3\nNV_LIBNCCL_PACKAGE=libnccl2=2.21.5-1+cuda12.4\n"
    assert run(pkgs, kb)["findings"][0]["id"] == "nccl.version_mismatch"


# ------------------------------------------------------------------ the scanner on awkward input


def test_prefixes_ansi_crlf_and_invalid_utf8_do_not_hide_an_error(kb):
    log = (b"\xff\xfe garbage \xc3\x28\r\n" * 3 +
           b"\x1b[31m[rank5]:[E1128 21:12:50.2 ProcessGroupNCCL.cpp:616] \x1b[0mncclSystemError: System call "
           b"(e.g. socket, malloc) or external library call failed\r\n" +
           b"tail\x00\x01\x02")
    res = run(log, kb)
    f = res["findings"][0]
    assert f["id"] == "nccl.system_error" and f["matches"][0]["line"] == 4
    assert "\x1b" not in f["matches"][0]["text"] and not f["matches"][0]["text"].endswith("\r")
    assert res["lines"] == 5


def test_line_numbers_are_exact_across_read_blocks(kb, monkeypatch):
    monkeypatch.setattr(explain.scan, "BLOCK", 4096)
    noise = b"step 17 loss=0.31 tokens/s=12000 all good here\n"
    data = noise * 1000 + b"Failed to initialize NVML: Driver/library version mismatch\n" + noise * 500 + \
        b"RuntimeError: Address already in use"  # no final newline
    res = explain.explain_stream(io.BytesIO(data), kb)
    got = {f["id"]: f["matches"][0]["line"] for f in res["findings"]}
    assert got == {"nvml.mismatch": 1001, "rendezvous.address_in_use": 1502}
    assert res["lines"] == 1502 and res["bytes"] == len(data)


def test_a_giant_line_without_newlines_is_cut_not_loaded_whole(kb, monkeypatch):
    monkeypatch.setattr(explain.scan, "BLOCK", 1 << 16)
    monkeypatch.setattr(explain.scan, "MAX_LINE", 1 << 17)
    data = b"x" * (1 << 20) + b" ncclInternalError: Internal check failed " + b"y" * 1000 + b"\n"
    res = explain.explain_stream(io.BytesIO(data), kb)
    assert res["root"] == "nccl.internal_error"
    assert len(res["findings"][0]["matches"][0]["text"]) < 600


def test_no_error_and_unknown_error_are_told_apart(kb):
    ok = run("Epoch 3 | loss 0.31\nall good\n", kb)
    assert ok["verdict"] == "no_error" and ok["root"] is None and ok["findings"] == [] and ok["triage"] == []
    assert explain.exit_code(ok) == 0
    # (struct23: a builtin class such as RuntimeError alone is now a likely cause, lastresort.py; a class of no known
    # package says nothing of its printer)
    bad = run("Epoch 3 | loss 0.31\nFrobnicatorError: the frobnicator exploded\n", kb)
    assert bad["verdict"] == "unknown_error" and not bad["matched"] and bad["findings"] == []
    assert bad["errors"] == [{"line": 2, "text": "FrobnicatorError: the frobnicator exploded", "file": "<text>"}]
    assert any("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV" in t for t in bad["triage"])
    assert any("gpudoctor check --hosts" in t for t in bad["triage"])
    assert explain.exit_code(bad) == 1


# ------------------------------------------------------------------ --check


def test_check_marks_causes_supported_or_ruled_out_by_facts(kb):
    from conftest import node_facts, patched
    from gpudoctor.config import Config
    from gpudoctor.runner import Node

    log = "NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 bytes\n"
    small = patched(node_facts("devbox-debian12-nogpu"), shm={"total_bytes": 64 << 20, "free_bytes": 64 << 20})
    res = explain.run_confirming_checks(run(log, kb), gather_nodes=lambda: [Node("gpu1", facts=small)],
                                        config=Config())
    cause = res["findings"][0]["causes"][0]
    assert cause["checks"] == ["shm.size"] and cause["verdict"] == "supported"
    assert res["checks"]["ran"][0]["status"] == "failed"
    big = patched(node_facts("devbox-debian12-nogpu"), shm={"total_bytes": 16 << 30, "free_bytes": 16 << 30})
    res = explain.run_confirming_checks(run(log, kb), gather_nodes=lambda: [Node("gpu1", facts=big)],
                                        config=Config())
    verdicts = [c.get("verdict") for c in res["findings"][0]["causes"]]
    assert verdicts[-1] == "ruled out" and "supported" not in verdicts


# ------------------------------------------------------------------ the CLI
# in this process (conftest's cli: gpudoctor.cli.main, as `python -m gpudoctor` runs it), except
# where the process itself is the point: stdin, and usage errors (one line on stderr, exit 2)


SYS_ERR = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3"


def test_cli_string(cli):
    rc, out, err = cli("explain", SYS_ERR)
    assert rc == 0 and err == ""
    assert "ROOT CAUSE  nccl.system_error" in out and "line 1: " + SYS_ERR in out
    assert "export NCCL_SOCKET_IFNAME=" in out and "https://docs.nvidia.com/deeplearning/nccl" in out


def test_cli_stdin_and_file_agree(gpudoctor_cli, cli, tmp_path):
    with open(LOG_PATHS["rdma.memlock__nccl-tests-206-ibv-reg-mr-iova2-enomem.log"], "rb") as f:
        body = f.read()
    p = tmp_path / "rank3.log"
    p.write_bytes(body)
    rc1, out1, _ = gpudoctor_cli("explain", "-", input=body.decode())  # a real process's stdin
    rc2, out2, _ = cli("explain", "--file", str(p))
    assert rc1 == rc2 == 0
    assert "ROOT CAUSE  rdma.memlock" in out1 and "ROOT CAUSE  rdma.memlock" in out2
    assert "confirm: gpudoctor check --select limits.memlock" in out2
    assert out1.split("\n", 1)[1] == out2.split("\n", 1)[1]  # only the source name differs


def test_cli_json_schema(cli, tmp_path):
    p = tmp_path / "train.log"
    with open(LOG_PATHS["cascade__pytorch-122571-remote-error-then-watchdog.log"], "rb") as f:
        p.write_bytes(f.read().partition(b"# ---\n")[2])
    rc, out, _ = cli("explain", "--json", "--file", str(p))
    doc = json.loads(out)
    assert rc == 0 and doc["schema"] == "gpudoctor.explain/4" and doc["matched"] is True
    assert doc["verdict"] == "root_cause" and doc["context"] == [] and doc["errors"] == []
    assert doc["root"] == doc["findings"][0]["id"] == "nccl.remote_error"
    assert [f["role"] for f in doc["findings"]] == ["root", "cascade"]
    f = doc["findings"][0]
    assert set(f) >= {"id", "family", "title", "kind", "role", "rank", "score", "explain", "first_line",
                      "match_count", "matches", "signals", "notes", "causes", "debug", "references",
                      "knowledge_file"}
    assert set(f["causes"][0]) >= {"text", "checks", "confirm", "fix", "exports", "evidence", "computed"}
    assert f["matches"][0] == {"line": 3, "text": "ncclRemoteERror: A call failed possibly due to a network error "
                                                 "or a remote process exting prematurely", "severity": None,
                                "file": str(p)}
    assert set(doc) >= {"sources", "stopped_early", "flight_recorder"} and doc["stopped_early"] is None
    assert doc["sources"] == [{"path": str(p), "lines": doc["lines"], "bytes": doc["bytes"]}]
    assert set(f["origin"]) == {"file", "line", "rank", "host", "time"} and f["origin"]["line"] == 3


def test_cli_nothing_matched_exits_1_with_triage(cli):
    rc, out, err = cli("explain", "the frobnicator exploded")
    assert rc == 1 and err == ""
    assert "NO KNOWN ERROR" in out and "No known error found" in out
    assert "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV" in out and "gpudoctor check --hosts" in out
    rc, out, _ = cli("explain", "--json", "the frobnicator exploded")
    doc = json.loads(out)
    assert rc == 1 and doc["matched"] is False and doc["verdict"] == "unknown_error" and doc["triage"]


def test_cli_healthy_log_exits_0_without_a_root_cause(cli, tmp_path):
    """A working run's NCCL_DEBUG=INFO start-up: INFO lines are notes, never a root cause."""
    p = tmp_path / "ok.log"
    p.write_text("gpu1:11:11 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                 "gpu1:11:11 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n"
                 "gpu1:11:11 [0] NCCL INFO NET/IB : No device found.\n"
                 "gpu1:11:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                 "NCCL version 2.21.5+cuda12.4\n"
                 "gpu1:11:30 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
                 "step 100 loss 1.93\n"
                 "gpu1:11:30 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 busId 1000 - Destroy COMPLETE\n")
    rc, out, err = cli("explain", "--file", str(p))
    assert rc == 0 and err == "" and "NO ERROR FOUND" in out and "ROOT CAUSE" not in out
    assert "nccl.ib_no_device" in out and "sockets" in out  # the note: NCCL used sockets
    rc, out, _ = cli("explain", "--json", "--file", str(p))
    doc = json.loads(out)
    assert rc == 0 and doc["verdict"] == "no_error" and doc["root"] is None and doc["findings"] == []
    assert [n["id"] for n in doc["context"]] == ["nccl.ib_no_device"] and doc["context"][0]["severity"] == "info"


def test_cli_bad_input_is_one_line_and_exit_2(gpudoctor_cli, tmp_path):
    for args in (("explain", "--file", str(tmp_path / "missing.log")), ("explain",),
                 ("explain", "--file", str(tmp_path)), ("explain", "x", "--file", str(tmp_path / "a"))):
        rc, out, err = gpudoctor_cli(*args)
        assert rc == 2 and out == "", args
        assert len(err.strip().splitlines()) == 1 and err.startswith("gpudoctor: error: "), (args, err)
        assert "Traceback" not in err


def test_cli_binary_garbage(cli, tmp_path):
    p = tmp_path / "core.bin"
    p.write_bytes(bytes(range(256)) * 4000 + b"\nCUDA error: no kernel image is available for execution on the "
                                             b"device\n" + os.urandom(50000).replace(b"\n", b"."))
    rc, out, err = cli("explain", "--file", str(p))
    assert rc == 0 and "ROOT CAUSE  cuda.no_kernel_image" in out and "Traceback" not in err


def test_explain_is_not_imported_by_check(gpudoctor_cli):
    code = ("import sys; from gpudoctor import cli; cli.main(['list']); "
            "print('gpudoctor.explain' in sys.modules, 'tomllib' in sys.modules)")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout
    assert out.strip().splitlines()[-1] == "False False"
