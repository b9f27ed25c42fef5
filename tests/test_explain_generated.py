"""Knowledge generated from the programs that print the messages (tools/gen_*.py ->
gpudoctor/data/knowledge/generated/*.json; STYLE.md "Generated knowledge"): each generator
regenerates from the small recorded slice of its source in tools/data/ and must give the
committed sites; every generated matcher is bounded (linear in the line); every site's family is
a knowledge entry; and real error texts from public threads get the family and the fix.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain.knowledge import _sre, generated_files, open_generated, read_json, table_name

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

GENERATORS = [
    ("gen_nccl_messages.py", "nccl_messages_slice.txt", "nccl_messages"),
    ("gen_cuda_errors.py", "cuda_errors_slice.txt", "cuda_errors"),
    ("gen_errno.py", "errno_slice.tsv", "errno"),
    ("gen_nvml.py", "nvml_slice.tsv", "nvml"),
    ("gen_slurm_errors.py", "slurm_errno_slice.c", "slurm_errors"),
    ("gen_nccl_releases.py", "nccl_releases_slice.txt", "nccl_releases"),
    ("gen_gloo_messages.py", "gloo_messages_slice.txt", "gloo_messages"),
    ("gen_ompi_help.py", "ompi_help_slice.txt", "ompi_help"),
    ("gen_launcher_messages.py", "launcher_messages_slice.txt", "launcher_messages"),
    ("gen_slurm_reasons.py", "slurm_reasons_slice.txt", "slurm_reasons"),
    ("gen_slurm_messages.py", "slurm_messages_slice.txt", "slurm_messages"),
    ("gen_munge_messages.py", "munge_messages_slice.txt", "munge_messages"),
    ("gen_container_messages.py", "container_messages_slice.txt", "container_messages"),
    ("gen_rdma_messages.py", "rdma_messages_slice.txt", "rdma_messages"),
    ("gen_ssh_messages.py", "ssh_messages_slice.txt", "ssh_messages"),
    ("gen_perftest_messages.py", "perftest_messages_slice.txt", "perftest_messages"),
    ("gen_nvshmem_messages.py", "nvshmem_messages_slice.txt", "nvshmem_messages"),
    ("gen_ofi_messages.py", "ofi_messages_slice.txt", "ofi_messages"),
    ("gen_nvc_capabilities.py", "nvc_capabilities_slice.txt", "nvc_capabilities"),
    ("gen_tcpx_messages.py", "tcpx_messages_slice.txt", "tcpx_messages"),
]
# slices cut from the very revisions of the committed file, which they name: '... (commit <sha>)'
SAME_VERSION = {"slurm_reasons", "slurm_messages", "munge_messages", "container_messages", "rdma_messages",
                "ssh_messages", "perftest_messages", "nvshmem_messages", "ofi_messages",
                "tcpx_messages"}


def _committed(name):
    with open_generated(name) as f:
        return json.load(f)


@pytest.mark.parametrize("tool,data,name", GENERATORS)
def test_generator_regenerates_the_committed_sites_from_its_slice(tool, data, name, tmp_path):
    out = tmp_path / (name + ".json")
    subprocess.run([sys.executable, os.path.join(REPO, "tools", tool), "--slice", os.path.join(REPO, "tools", "data", data),
                    "-o", str(out)], check=True, capture_output=True)
    with open(out) as f:
        got = json.load(f)
    full = _committed(name)
    assert got["header"]["generator"] == full["header"]["generator"] == "tools/" + tool
    assert full["header"]["source"] and full["header"]["version"] and full["header"]["date"]
    if name == "nccl_releases":
        rel = {r["version"]: r for r in full["releases"]}
        assert got["releases"] and all(r == rel[r["version"]] for r in got["releases"])
        assert got["bug_fixes"] == [b for b in full["bug_fixes"] if b["commit"] in {g["commit"] for g in got["bug_fixes"]}]
        return
    by_id = {s["id"]: s for s in full["sites"]}
    by_text = {s.get("text"): s for s in full["sites"]}
    assert got["sites"], "the slice gave no site"
    if name in SAME_VERSION:  # every source's revision is recorded, and the slice says which it was cut from
        assert re.search(r"\(commit [0-9a-f]{40}\)", full["header"]["version"])
        assert got["header"]["version"] == full["header"]["version"]
        assert len(got["sites"]) >= 20
    for s in got["sites"]:
        if s["id"] in by_id:
            assert s == by_id[s["id"]], s["id"]
        else:  # one message printed at several places: the full source keeps its first site
            same = by_text.get(s["text"])
            assert same and {k: v for k, v in s.items() if k not in ("id", "where")} == \
                {k: v for k, v in same.items() if k not in ("id", "where")}, s["id"]
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def _repeats(regex, tree=None):
    """(max bound of every repeat, deepest nesting of repeats) of a regex (``tree``: its parse, where the caller
    has it)."""
    parser, c = _sre()
    worst, depth = 0, 0

    def walk(items, d):
        nonlocal worst, depth
        for op, av in items:
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                worst = max(worst, av[1])
                inner = d + (av[1] > 1)  # an optional part ({0,1}) does not multiply the work
                depth = max(depth, inner)
                walk(av[2], inner)
            elif op is c.SUBPATTERN:
                walk(av[-1], d)
            elif op is c.BRANCH:
                for b in av[1]:
                    walk(b, d)

    walk(parser.parse(regex) if tree is None else tree, 0)
    return worst, depth


def test_symptom_word_matchers_are_anchored_bounded_and_linear(kb):
    # the words a user writes (symptoms.toml): lookaheads over at most 600 characters from the
    # line's start, no nested repeats, so a line costs at most a few passes over its first 600
    words = [p for p in kb.patterns if p.site and "symptom" in p.site]
    assert len(words) > 20
    for p in words:
        bound, depth = _repeats(p.source)
        assert p.source.startswith("^") and bound <= 600 and depth <= 1, (p.site["symptom"], p.source)


def test_every_generated_matcher_is_bounded_and_linear(kb):
    import test_explain_time  # its static linearity rule reads the same parse (test_explain_time.BOUNDS)

    pats = [p for p in kb.patterns if p.site and "symptom" not in p.site]
    assert len(pats) > 1000
    parser, _ = _sre()
    for p in pats:
        tree = parser.parse(p.source, test_explain_time.FLAGS)  # (the flag changes no repeat, group or branch)
        bound, depth = _repeats(p.source, tree)
        assert bound <= 200 and depth <= 1, (p.site["id"], p.source)
        test_explain_time.BOUNDS[p.source] = test_explain_time.linear_bound(p.source, tree)
        assert min(len(n) for n in p.needles_b) >= 4, p.site["id"]
    # and in practice: every one over adversarial lines (near-misses of the commonest literals)
    line = ("Cuda failure " + " " * 20 + "CUDA error: " + "NET/IB : " + "Error while " + "x" * 40 + " (size ") * 60
    # none of them matches the near-misses; the CPU time of the whole test (the parse, ~2.4 s to compile the 29k
    # patterns, ~1.8 s to run them: bounded 5 s here before) is held by bench/cpu_bounds.py
    assert not [p.site["id"] for p in pats if p.regex.search(line)]


def test_every_site_family_is_an_entry_and_sources_are_recorded(kb):
    files = generated_files()
    assert {table_name(f) for f in files} >= {g[2] for g in GENERATORS}
    for path in files:
        doc = read_json(path)
        for s in doc["sites"]:
            if s.get("family") and s.get("re"):
                assert s["family"] in kb.by_id, (path, s["id"])


def test_known_bug_entries_agree_with_the_release_history(kb):
    """'fixed in X' of a known-bug entry comes from NCCL's history (generated/nccl_releases.json):
    the first releases containing its fix commit, or the release whose notes list its fix line."""
    doc = _committed("nccl_releases")
    fixed = {b["commit"]: b["fixed_in"] for b in doc["bug_fixes"]}
    # (a release line that adds a GPU generation: its support_added lines, tools/gen_nccl_releases.py SUPPORT_ADDED)
    notes = {r["version"]: r["fixes"] + r.get("support_added", []) for r in doc["releases"]}
    bugs = [e for e in kb.entries if e.get("known_bug")]
    assert len(bugs) >= 2
    for e in bugs:
        kb_ = e["known_bug"]
        if "commit" in kb_:
            assert kb_["fixed_in"] == fixed[kb_["commit"]][:len(kb_["fixed_in"])], e["id"]
        else:
            assert kb_["release_fix"] in notes[kb_["fixed_in"][0]], e["id"]
        for v in kb_["fixed_in"]:
            assert v in e["title"], (e["id"], v)


# Real error texts from public threads (verbatim excerpts; the URL of each is its source). None
# of these sources is in fixtures/logs/ (dev or held-out).
REAL = {
    # https://github.com/layumi/Person_reID_baseline_pytorch/issues/372
    "device_assert": (
        "train Loss: 2.7186 Acc: 0.4082\n"
        "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:108: cunn_ClassNLLCriterion_updateOutput_kernel: block: [0,0,0], "
        "thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 379, in train_model\n'
        "    running_loss += loss.item() * now_batch_size\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"),
    # https://github.com/msr-fiddle/pipedream/issues/39
    "gloo_timeout": (
        '  File "/opt/conda/lib/python3.6/site-packages/torch/distributed/distributed_c10d.py", line 755, in broadcast\n'
        "    work.wait()\n"
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:72] Timed out waiting 1800000ms for "
        "recv operation to complete\n"),
    # https://github.com/NVIDIA/nccl/issues/1394
    "gloo_size_mismatch": (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /opt/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:446] "
        "op.preamble.length <= op.nbytes. 256000 vs 128000\n"),
    # https://github.com/logicalclocks/hopsworks/issues/1557
    "enospc_shm": (
        "RuntimeError: DataLoader worker (pid 729) is killed by signal: Bus error. It is possible that dataloader's "
        "workers are out of shared memory. Please try to raise your shared memory limit.\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/hops/anaconda/envs/hopsworks_environment/lib/python3.10/site-packages/torch/multiprocessing/'
        'reductions.py", line 618, in reduce_storage\n'
        "    fd, size = storage._share_fd_cpu_()\n"
        "RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)\n"),
    # https://github.com/facebookresearch/maskrcnn-benchmark/issues/158
    "emfile": (
        '  File "/usr/lib/python3.6/multiprocessing/reduction.py", line 176, in send_handle\n'
        "    with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as s:\n"
        '  File "/usr/lib/python3.6/socket.py", line 460, in fromfd\n'
        "    nfd = dup(fd)\n"
        "OSError: [Errno 24] Too many open files\n"),
    # https://github.com/facebookresearch/xformers/issues/1144 (solved: the script lacked torch.cuda.set_device)
    "cublas_set_device": (
        '  File "/usr/local/lib/python3.10/dist-packages/xformers/ops/sequence_parallel_fused_ops.py", line 891, in '
        "my_matmul\n"
        "[rank1]:     torch.matmul(gathered_input[dst_rank], w.t(), out=o)\n"
        "[rank1]: RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"),
    # https://github.com/deepspeedai/Megatron-DeepSpeed/issues/126 (the title: the pasted error)
    "pdsh_paths": (
        "172.16.220.18: bash: line 0: cd: /data/asc23/src_zero3: No such file or directory 172.16.220.18: bash: "
        "/home/lxw/anaconda3/envs/sys_py37/bin/python: No such file or directory pdsh@wo\n"),
    # https://github.com/NVIDIA/nccl/issues/976 (NCCL 2.18.5, an affected version, but the failure is at
    # transport/nvls.cc: the fabric manager had been restarted under running processes; reboot)
    "nvls_2185": (
        "NCCL version 2.18.5+cuda12.2\n"
        "...\n"
        "transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'\n"
        "NCCL INFO transport/nvls.cc:324 -> 1\n"
        "NCCL INFO init.cc:1093 -> 1\n"
        "NCCL INFO init.cc:1358 -> 1\n"
        "NCCL INFO init.cc:1598 -> 1\n"),
    # https://github.com/NVIDIA/nccl/issues/1410 (NCCL 2.20.5: not a version with the 2.18 bug)
    "cuda_invalid_argument_2205": (
        "[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "[rank7]: Last error:\n"
        "[rank7]: Cuda failure 1 'invalid argument'\n"),
}


def _answer(kb, name):
    res = explain.explain_text(REAL[name], kb)
    assert res["verdict"] == "root_cause", (name, res["verdict"])
    root = res["findings"][0]
    fixes = "\n".join(f for c in root["causes"] for f in c["fix"] + ["%s=%s" % kv for kv in c["exports"].items()])
    return root, fixes


def test_device_side_assert_is_a_bug_in_code_or_labels(kb):
    root, fixes = _answer(kb, "device_assert")
    assert root["id"] == "cuda.device_assert" and root["confidence"] == "cause"
    assert "num_classes" in fixes and "CUDA_LAUNCH_BLOCKING=1" in " ".join(root["debug"])
    # the label-range cause is first: its assertion text is in the log
    assert root["causes"][0]["evidence"] and "label" in root["causes"][0]["text"]


def test_gloo_timeout_names_the_late_rank_family(kb):
    root, fixes = _answer(kb, "gloo_timeout")
    assert root["id"] == "gloo.timeout" and "first rank that failed" in fixes and "timeout=" in fixes


def test_gloo_preamble_enforce_is_a_size_mismatch_not_an_interface(kb):
    root, fixes = _answer(kb, "gloo_size_mismatch")
    assert root["id"] == "gloo.size_mismatch" and "same shape" in fixes and "GLOO_SOCKET_IFNAME" not in fixes


def test_errno_28_from_dev_shm_names_the_shm_size(kb):
    root, fixes = _answer(kb, "enospc_shm")
    assert root["family"] == "shm.size" and "--shm-size" in fixes


def test_errno_24_from_dataloader_workers_names_the_sharing_strategy(kb):
    root, fixes = _answer(kb, "emfile")
    assert root["id"] == "errno.emfile" and "set_sharing_strategy('file_system')" in fixes and "ulimit -n" in fixes


def test_a_known_bug_needs_its_version_and_its_symptom(kb):
    # the symptom with a version that has the fix: not the known bug
    res = explain.explain_text(REAL["cuda_invalid_argument_2205"], kb)
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])
    # an affected version with the same words at another site (NVLS): not the known bug, the NVLS entry
    res = explain.explain_text(REAL["nvls_2185"], kb)
    assert res["findings"][0]["id"] == "nccl.nvls"
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])
    # an affected version alone (a healthy start-up line): no finding at all
    res = explain.explain_text("gpu1:11:11 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n", kb)
    assert res["verdict"] == "no_error"


def test_coverage_per_source_in_docs_is_current(kb):
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import explain_accuracy

    with open(os.path.join(REPO, "docs", "explain.md")) as f:
        doc = f.read()
    assert explain_accuracy.coverage(kb) in doc, "run: python bench/explain_accuracy.py --write"


def test_cublas_not_initialized_on_a_rank_names_set_device_first(kb):
    root, _ = _answer(kb, "cublas_set_device")
    assert root["id"] == "cuda.cublas_not_initialized" and "set_device" in root["causes"][0]["fix"][0]


def test_deepspeed_pdsh_remote_node_without_the_paths(kb):
    root, fixes = _answer(kb, "pdsh_paths")
    assert root["family"] == "deepspeed.launcher" and "same path" in fixes and ".deepspeed_env" in fixes


def test_invalid_usage_alone_is_the_family_with_its_causes_told_apart(kb):
    # the phrase NCCL prints for several causes (the NCCL_NET=IB without RDMA among them):
    # never one specific cause, the duplicate-GPU cause is one of the possibilities
    text = ("NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid "
            "usage, NCCL version 2.17.1 ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n")
    res = explain.explain_text(text, kb)  # fixtures/logs/dev/nccl.duplicate_gpu__nccl-1241-...
    root = res["findings"][0]
    assert root["id"] == "nccl.invalid_usage" and root["confidence"] == "family"
    assert root["notes"][0].startswith("How sure: medium. The family is certain")
    texts = " ".join(c["text"] for c in root["causes"])
    assert "same GPU" in texts and "NCCL_NET=IB" in texts and "different collectives" in texts


def test_structural_answers_say_how_sure_they_are(kb):
    # an NCCL WARN failure line of a message no entry knows is an error with a family, not "no error"
    res = explain.explain_text("gpu1:11:12 [0] misc/foo.cc:12 NCCL WARN verbs frobnication failed on mlx5_0\n", kb)
    assert res["verdict"] == "likely_cause" and res["findings"][0]["id"] == "nccl.net_ib"
    assert res["findings"][0]["confidence"] == "structural" and "How sure: low" in res["findings"][0]["notes"][0]
    # a known harmless WARN line stays a note
    res = explain.explain_text("gpu1:11:11 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n", kb)
    assert res["verdict"] == "no_error"
    # a Slurm daemon's fatal line that no message site knows (slurmd's NodeName one is slurm.node_name now)
    res = explain.explain_text("slurmd: fatal: Unable to frobnicate the widget table\n", kb)
    assert res["findings"][0]["id"] == "slurm.error" and res["findings"][0]["confidence"] == "structural"
    # a traceback ending in a library's file, and one ending in the job's own file
    lib = ('Traceback (most recent call last):\n  File "/x/site-packages/deepspeed/runtime/engine.py", line 3, in f\n'
           "ValueError: bad value\n")
    # (the library's own family since the traceback's frames are read: explain/pytb.py; family19: the finer family of
    # the module whose own raise it is, deepspeed/runtime/engine.py -> deepspeed.usage, generated/lib_modules.json)
    got = explain.explain_text(lib, kb)["findings"][0]
    assert got["id"] == "deepspeed.usage" and got["family"] == "deepspeed.library_error"
    own = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nKeyError: \'labels\'\n'
    assert explain.explain_text(own, kb)["findings"][0]["id"] == "code.exception"


# Slurm refusals (real texts; the URL of each is its source)
SLURM = [
    # https://github.com/ArjunaCluster/ArjunaUsers/issues/75 (more cores than a node has: fixed with fewer)
    ("sbatch: error: Batch job submission failed: Requested node configuration is not available\n",
     "slurm.node_config", "--cpus-per-task"),
    # https://github.com/NVIDIA/NeMo-Framework-Launcher/issues/72
    ("OSError: sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification\n",
     "slurm.gres", "--gres=gpu"),
    # https://github.com/mehta-lab/recOrder/issues/482
    ("srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification\n",
     "slurm.gres", "--gres=gpu"),
]


@pytest.mark.parametrize("text,family,fix", SLURM)
def test_slurm_refusals_name_the_request_to_change(kb, text, family, fix):
    res = explain.explain_text(text, kb)
    root = res["findings"][0]
    assert res["verdict"] == "root_cause" and root["family"] == family
    assert fix in "\n".join(f for c in root["causes"] for f in c["fix"])
