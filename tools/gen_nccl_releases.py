#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nccl_releases.json: NCCL's releases (version, date,
commit, the "Fix ..." lines of the release commit's message, which are its release notes'
fixed issues) and, for each fix commit of a known bug (BUG_FIXES below: the commits that NCCL's
issue threads name), the first releases that contain it. explain's known-bug entries
(gpudoctor/data/knowledge/nccl_bugs.toml) say "fixed in X" from this file; a test checks they
agree. SYMPTOM_BUGS adds the fix lines whose bug shows as a hang, a slowdown or a wrong result (no
error line of its own): each with the words of the condition its note names, offered by
gpudoctor/explain/versions.py judge() only beside an affected version AND that symptom.

Usage:
    python tools/gen_nccl_releases.py --repo /path/to/nccl.git [-o OUT]
    python tools/gen_nccl_releases.py --slice tools/data/nccl_releases_slice.txt -o OUT   (the test)

Source: NVIDIA/nccl (https://github.com/NVIDIA/nccl): `git log` (one commit per release, titled
"2.18.3-1" or "NCCL 2.30.7-1", whose message lists the fixes) and `git tag --contains`. A slice
holds `#! release VERSION DATE COMMIT` lines each followed by its message, and
`#! fixed COMMIT VERSION,...` lines.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nccl_releases.py"
# fix commits of known bugs (named by NCCL's issue threads) -> the thread
BUG_FIXES = {
    "4365458757e4107ecbf629b2fd6e0e19a5d237c2": "https://github.com/NVIDIA/nccl/issues/957",
}
_TITLE = re.compile(r"^(?:NCCL )?(\d+\.\d+\.\d+)-\d+$")

# The rules table: a release's "Fix ..." line whose bug a user sees in a log -> what the log shows
# (the symptom: `patterns`, or `together` when it is two lines) and the first release it affects
# (FROM; the last is the release before the one whose notes list the fix). explain makes each a
# known-bug entry (family nccl.known_bug, gpudoctor/explain/versions.py): a finding only when the
# log ran an affected NCCL (printed, or the NCCL its torch release pins) AND shows the symptom.
# A fix line no rule names is listed in the output's "unassigned_fixes" (docs/explain.md): most
# are performance, leaks, build or tuning, with nothing a log shows; a hand-written entry of
# nccl_bugs.toml may cover one (HAND_WRITTEN). FROM is "2.0.0" where the notes do not say when
# the bug appeared; where they name the feature, its first release.
_SEGV = r"Segmentation fault|SIGSEGV|signal 11\b|exitcode\s{0,4}:\s{0,4}-11\b"
KNOWN_BUGS = [
    # (id, regex of the fix line, FROM, {"patterns": [...]} or {"together": [...]}, rank, what the user sees)
    ("nccl.bug_298_bootstrap_crash", r"^Fix crash in bootstrap error case", "2.0.0",
     {"together": [r"bootstrap\.cc:\d{1,5} NCCL WARN", _SEGV]}, 70,
     "a bootstrap error (bootstrap.cc WARN), then a segmentation fault instead of the error"),
    ("nccl.bug_299_p2p_nchannels_crash", r"^Fix crash when setting NCCL_MAX_P2P_NCHANNELS below nchannels", "2.0.0",
     {"together": [r"NCCL_MAX_P2P_NCHANNELS", _SEGV]}, 76,
     "NCCL_MAX_P2P_NCHANNELS set, then a segmentation fault"),
    ("nccl.bug_21212_thread_name_crash", r"^Fix crash when setting NCCL_SET_THREAD_NAME", "2.0.0",
     {"together": [r"NCCL_SET_THREAD_NAME", _SEGV]}, 76,
     "NCCL_SET_THREAD_NAME set, then a segmentation fault"),
    ("nccl.bug_2171_collnet_rail_crash", r"^Fix crash when one CollNet \(SHARP\) rail fails to initialize", "2.0.0",
     {"together": [r"(?:CollNet|SHARP)[^\n]{0,120}(?:fail|error|Error)", _SEGV]}, 72,
     "a CollNet (SHARP) rail that failed to initialize, then a segmentation fault"),
    ("nccl.bug_2243_uds_fd_leak", r"^Fix FD leak in UDS", "2.19.0",
     {"patterns": [r"NCCL WARN UDS:[^\n]{0,200}(?:Too many open files|\(24\))"]}, 78,
     "NCCL's UDS socket (the cuMem IPC handle exchange, 2.19 and later) failing with 'Too many open files'"),
    ("nccl.bug_2262_init_double_free", r"^Fix double-free on failed ncclCommInitRank and ncclCommFinalize", "2.0.0",
     # the failed init: NCCL's return chain through init.cc (NCCL_DEBUG=INFO) or the caller's message
     # (nccl-tests, torch); a WARN alone is any warning, and a double free at exit has other causes
     {"together": [r"double free or corruption|free\(\): double free detected",
                   r"\binit\.cc:\d{1,5} -> \d|ncclCommInitRank(?:Config)? failed"]}, 60,
     "a failed ncclCommInitRank (init.cc's '-> N' chain), then glibc's 'double free' abort: the crash hides the "
     "first error"),
    ("nccl.bug_2263_gdr_c2c_init", r"^Fix an initialization error when running with NCCL_NET_GDR_C2C=1", "2.26.2",
     {"together": [r"NCCL_NET_GDR_C2C", r"NCCL WARN"]}, 60,
     "NCCL_NET_GDR_C2C=1 (new in 2.26.2) and an NCCL failure at initialization"),
]
# The second rules table: a release's fix line whose bug shows as a HANG, a SLOWDOWN, a WRONG RESULT or a
# FAILURE (kind 'error': an NCCL error, a crash, or the user's words that it fails) whose line says nothing
# of the bug itself (a generic 'unhandled cuda error', a launch failure). explain offers each
# (versions.judge) only when the log ran an affected NCCL AND shows that kind of symptom (hang: the c10d
# watchdog's collective timeout, NCCL's hang triage, or the user's words that the job hangs; slow: the
# user's words that it is slow; wrong: the words of WORDS["wrong"]) AND every one of its `words` (the
# condition the note names, as a log or a user writes it: the collective, the variable, the GPU). Never on a
# version alone; never above a root that names its cause with certainty. FROM as for KNOWN_BUGS, or the
# release the note's thread or feature names (the `why` column says which).
WORDS = {
    # torch's OpType=ALLTOALL / ALLTOALL_BASE (ProcessGroupNCCL.cpp opTypeToString), all_to_all[_single],
    # nccl-tests' alltoall_perf, 'all-to-all' in words
    "a2a": r"all_to_all|alltoall|all-to-all",
    # more than 80 ranks: torch's world_size (its store-based barrier's line, an environment dump), mpirun -np (NCCL's
    # own 'nranks N' of every Init COMPLETE line is left out: its needle would make every such line of a large job's
    # log a candidate, and 'nranks 1' is not 'nranks 128')
    "over80": (r"world_size\W{0,3}(?:8[1-9]|9\d|[1-9]\d{2,5})\b|\s-np (?:8[1-9]|9\d|[1-9]\d{2,5})\b",
               ["world_size"] + ["-np%d" % d for d in range(1, 10)]),
    "collnet": r"CollNet|SHARP",
    "bf16": r"bfloat16|\bbf16\b",
    "h100": r"H100",
    # two ranks: torchrun's --nproc_per_node 2, world_size 2, mpirun -np 2
    "two_gpus": (r"nproc[_-]per[_-]node\W{0,3}2\b|world_size\W{0,3}2\b|\s-np 2\b",
                 ["nproc_per_node", "nproc-per-node", "world_size", "-np2"]),
    # a nodes' CPUs of two vendors or models: the words, or both vendors in one text
    "mixed_cpus": r"(?:different|mixed|heterogeneous) (?:cpu|processor|host)|(?:amd|epyc)[^\n]{0,80}(?:intel|xeon)|"
                  r"(?:intel|xeon)[^\n]{0,80}(?:amd|epyc)",
    "split_share": r"NCCL_COMM_SPLIT_SHARE_RESOURCES|splitShare|split_share",
    # nodes of two architectures: the words, or both machine names in one text (uname -m, a wheel's tag)
    "mixed_arch": r"(?:different|mixed|heterogeneous) (?:cpu|gpu) (?:types?|architectures?|models?)|"
                  r"heterogeneous (?:architectures?|clusters?|nodes|gpus)|"
                  r"x86_64[^\n]{0,80}aarch64|aarch64[^\n]{0,80}x86_64",
    "comm_abort": r"ncclCommAbort|abort(?:ing)?\W{1,3}(?:the\W{1,3})?(?:nccl\W{1,3})?comm(?:unicator)?s?\b",
    # nccl-tests -t N (several threads, '# nThread 2 nGpus ...', src/common.cu)
    "threads": r"nThread (?:[2-9]|\d{2,4})\b",
    "graph_capture": (r"graph capture|cuda ?graphs?\b|CUDAGraph|StreamBeginCapture|torch\.cuda\.graph",
                      ["graphcapture", "cudagraph", "streambegincapture", "cuda.graph"]),
    # NCCL's 'NET/IB : Using [0]mlx5_0:1/RoCE', or the word in a user's sentence; the needles are given ('roce' alone
    # is in every 'process')
    "roce": (r"/RoCE\b|\bRoCE ?v2\b|\b(?:on|over|with|using|via) RoCE\b|\bRoCE (?:network|fabric|cluster|nic|link)",
             ["/roce", "rocev2", "onroce", "overroce", "withroce", "usingroce", "viaroce", "rocenetwork", "rocefabric",
              "rocecluster", "rocenic", "rocelink"]),
    "cross_nic1": r"NCCL_CROSS_NIC\W{0,3}1\b",
    "cross_nic0": r"NCCL_CROSS_NIC\W{0,3}0\b",
    "cross_nic": r"NCCL_CROSS_NIC",
    "h800": r"H800",
    "nvlink_down": r"nvlink[^\n]{0,60}(?:down|inactive|error|fail)",
    "ll128": r"LL128",
    "avg": r"ReduceOp\.AVG|ncclAvg|op=avg",
    "symmetric": r"NCCL_WIN_COLL_SYMMETRIC|ncclCommWindowRegister|symmetric (?:memory|kernel)",
    # GPUs of compute capability 12.0 (sm_120, the GeForce RTX 50 series and the RTX PRO Blackwell cards:
    # https://developer.nvidia.com/cuda-gpus), as nvidia-smi, torch or nccl-tests name them, or the arch itself
    "sm120": (r"\bRTX 50[5-9]0\b|RTX PRO [4-6]000 Blackwell|\bsm_?120a?\b|compute capability:? 12\.0\b|"
              r"capability\W{0,3}\(12, ?0\)",
              ["rtx50", "rtxpro", "blackwell", "sm_120", "sm120", "computecapability", "capability"]),
    # multi-node NVLink (GB200 NVL72 and its kin): NCCL's own MNNVL lines, or the system's name
    "mnnvl": r"MNNVL|NVL72|NVL36|GB200|GB300",
    # a GPU of one generation as nvidia-smi, torch or nccl-tests name it (compute capability 8.0, 9.0, 10.x:
    # https://developer.nvidia.com/cuda-gpus), or its arch
    "sm80": (r"\bA100\b|\bA800\b|\bsm_?80\b|compute capability:? 8\.0\b",
             ["a100", "a800", "sm_80", "sm80", "computecapability"]),
    "sm90": (r"\bG?H[128]00\b|\bsm_?90a?\b|compute capability:? 9\.0\b",
             ["h100", "h800", "h200", "sm_90", "sm90", "computecapability"]),
    "sm100": (r"\bG?B[123]00\b|\bsm_?10[03]a?\b|compute capability:? 10\.[03]\b",
              ["b100", "b200", "b300", "sm_10", "sm10", "computecapability"]),
    "topo_file": r"NCCL_TOPO_FILE",
    # NCCL's UDS socket (cuMem handles exchanged between the ranks of a node, 2.19 and later: 'UDS: ...' lines)
    "uds": (r"\bUDS:", ["uds:"]),
    "split": r"ncclCommSplit|split_group|new_subgroups|NCCL_COMM_SPLIT",
    # what a failure looks like, in a log or in a user's words (kind 'error': the words say it, as 'wrong'
    # does); needles given ('error' alone would not be a needle of every spelling)
    "fails": (r"\berrors?\b|\bfail(?:s|ed|ure|ing)?\b|\bcrash(?:es|ed)?\b|Segmentation fault|SIGSEGV|"
              r"NCCL WARN|报错|失败",
              ["error", "fail", "crash", "segmentationfault", "sigsegv", "ncclwarn", "报错", "失败"]),
    # what a wrong result looks like in a log or a user's words, or nccl-tests' data check. Its needles are given: 'loss' and 'result' alone
    # are on every step line of a training log
    "wrong": (r"loss\W{0,4}(?:is|becomes?|became|=|:)?\W{0,3}nan\b|\bnan (?:loss|values?|gradients?)|"
              r"wrong (?:result|value|output|answer|sum)s?|incorrect (?:result|value|output|sum)s?|data corruption|"
              r"corrupt(?:ed)? (?:data|results?|gradients?|values?)|results? (?:differ|are different|mismatch)|"
              # nccl-tests' own check (src/common.cu: PRINT("# Out of bounds values : %d %s\n", errors[0],
              # errors[0] ? "FAILED" : "OK"))
              r"Out of bounds values\s{0,4}:\s{0,4}[1-9]\d{0,12}\s{1,4}FAILED",
              ["outofboundsvalues:", "lossisnan", "lossbecomesnan", "lossbecamenan", "loss=nan", "loss:nan", "loss':nan", 'loss":nan',
               "lossnan", "nanloss", "nanvalue", "nangradient", "wrongresult", "wrongvalue", "wrongoutput",
               "wronganswer", "wrongsum", "incorrectresult", "incorrectvalue", "incorrectoutput", "incorrectsum",
               "datacorruption", "corrupt", "resultdiffer", "resultsdiffer", "resultarediff", "resultsarediff",
               "resultmismatch", "resultsmismatch"]),
}


def _word(key):
    """A WORDS row as the output gives it: {"re"}, or {"re", "needles"} (what every match holds, squashed)."""
    w = WORDS[key]
    return {"re": w[0], "needles": list(w[1])} if isinstance(w, tuple) else {"re": w}


SYMPTOM_BUGS = [
    # (id, regex of the fix sentence, FROM, kind, [WORDS keys], rank, what the user sees, workaround or "", why FROM)
    ("nccl.bug_284_alltoallv_p2p_hang", r"Fix hang in corner cases of alltoallv using point to point send/recv\.",
     "2.7.3", "hang", ["a2a"], 60, "an all-to-all over send/receive (alltoallv) that never finishes", "",
     "send/receive operations came in 2.7.3, its release commit: 'Add support for send/receive operations'"),
    ("nccl.bug_2181_alltoallv_hang", r"Fix alltoallv hang \(#788\)", "2.12.0", "hang", ["a2a"], 62,
     "an all-to-all with uneven sizes (alltoallv: torch's all_to_all_single with split sizes) that never finishes",
     "", "NVIDIA/nccl#788, 'Alltoallv hangs with NCCL 2.12 and newer'"),
    ("nccl.bug_2203_a2a_connect_hang", r"Fix hang during A2A connection\.", "2.19.0", "hang", ["a2a"], 64,
     "an all-to-all that hangs while NCCL connects its peers (its first all-to-all, or at communicator init)",
     "export NCCL_CUMEM_ENABLE=0 (NVIDIA/nccl#1134: the hang went away with it)",
     "NCCL_CUMEM_ENABLE's default became 1 in 2.19, NCCL's environment variables docs; NVIDIA/nccl#1134: "
     "alltoall_perf hangs with 2.19.1, 2.19.3 and 2.19.4, not with 2.18.6"),
    ("nccl.bug_2273_alltoall_scale_hang",
     r"Fix a potential hang in alltoall-like communication patterns at a scale of over 80 ranks\.", "2.0.0", "hang",
     ["a2a", "over80"], 66, "an all-to-all over more than 80 ranks that hangs", "", ""),
    ("nccl.bug_2183_collnet_bf16_hang",
     r"Fix hang with Collnet on bfloat16 on systems with less than one NIC\s{1,4}per GPU\.", "2.0.0", "hang",
     ["collnet", "bf16"], 66, "a bfloat16 reduction over CollNet (IB SHARP) that hangs, on nodes with fewer NICs "
     "than GPUs", "export NCCL_COLLNET_ENABLE=0 (no SHARP) until NCCL is upgraded",
     "NCCL 2.18.1's release notes list it as a known issue"),
    ("nccl.bug_2213_crossnic_hang", r"Fix hang when crossNic is inconsistent between ranks\.", "2.0.0", "hang",
     ["cross_nic"], 64, "NCCL_CROSS_NIC set, and a hang", "set the same NCCL_CROSS_NIC on every rank (or none)", ""),
    ("nccl.bug_2223_cpu_types_hang", r"Fix hang when nodes have different CPU types", "2.0.0", "hang",
     ["mixed_cpus"], 64, "nodes with CPUs of different types (AMD and Intel) and a hang", "", ""),
    ("nccl.bug_2243_mixed_arch_hang", r"Fix hangs when running with different CPU architectures", "2.0.0", "hang",
     ["mixed_arch"], 62, "nodes of different CPU or GPU architectures and a hang", "", ""),
    ("nccl.bug_2262_hetero_tuning_hang", r"Fix a hang on heterogeneous architectures", "2.0.0", "hang",
     ["mixed_arch"], 62, "nodes of different architectures, tuned differently by NCCL, and a hang", "", ""),
    ("nccl.bug_2262_split_share_hang", r"Fix a race condition with split-shared communicators", "2.18.1", "hang",
     ["split_share"], 66, "communicators split with shared resources (NCCL_COMM_SPLIT_SHARE_RESOURCES) that hang "
     "while connecting", "export NCCL_COMM_SPLIT_SHARE_RESOURCES=0",
     "ncclCommSplit and its resource sharing came in 2.18.1, its release notes"),
    ("nccl.bug_2262_abort_hang", r"Fixes to ncclCommAbort \* Fix hangs due to the progress thread spinning",
     "2.0.0", "hang", ["comm_abort"], 62, "a job that hangs while aborting its NCCL communicators "
     "(ncclCommAbort, as torch's watchdog does after a timeout)", "", ""),
    ("nccl.bug_2155_h100_2gpu_hang", r"Workaround hang on H100 with Ring/LL128 on 2 GPUs\.", "2.0.0", "hang",
     ["h100", "two_gpus"], 62, "two H100 GPUs and a hang", "export NCCL_PROTO=^LL128", ""),
    ("nccl.bug_2155_threads_init_hang", r"Fix hang during init in multi-threaded mode", "2.0.0", "hang",
     ["threads"], 62, "several threads per process (nccl-tests -t N) and a hang at init", "", ""),
    ("nccl.bug_2155_graph_capture_hang", r"Fix hang when interleaving the capture of different graphs", "2.0.0", "hang",
     ["graph_capture"], 60, "CUDA graphs captured in turn and a hang", "", ""),
    ("nccl.bug_2263_roce_ece_slow", r"Fix the exchange of enhanced connection establishment \(ECE\) options", "2.19.1",
     "slow", ["roce"], 62, "a slow job over RoCE", "",
     "RoCE ECE support came in 2.19.1, its release commit: 'Add support for RoCE ECE'"),
    ("nccl.bug_2262_crossnic1_slow", r"Fix a performance regression when using NCCL_CROSS_NIC=1", "2.20.3", "slow",
     ["cross_nic1"], 64, "NCCL_CROSS_NIC=1 and a slow job", "unset NCCL_CROSS_NIC (or =2, the default)",
     "the note says NCCL alternated rings needlessly; alternating rings came in 2.20.3, its release commit"),
    ("nccl.bug_2287_crossnic0_slow", r"Fixes a large performance issue with NCCL_CROSS_NIC=0", "2.0.0", "slow",
     ["cross_nic0"], 62, "NCCL_CROSS_NIC=0 and a slow job", "unset NCCL_CROSS_NIC (or =2, the default)", ""),
    ("nccl.bug_2183_h800_slow", r"Fix performance for DGX H800\.", "2.0.0", "slow", ["h800"], 62,
     "a slow job on H800 GPUs", "", ""),
    ("nccl.bug_2183_alltoall_slow", r"Fix performance of alltoall at scale with more than one NIC per GPU\.", "2.0.0",
     "slow", ["a2a"], 60, "a slow all-to-all", "", ""),
    ("nccl.bug_2183_tree_ll128_corruption", r"Fix data corruption with Tree/LL128 on systems with 1GPU:1NIC\.", "2.0.0",
     "wrong", ["wrong", "h100"], 66, "wrong results (NaN loss, a wrong sum) on H100 nodes with one NIC per GPU",
     "export NCCL_PROTO=^LL128 (or NCCL_IB_PCI_RELAXED_ORDERING=0), as NCCL 2.18.1's release notes say",
     "NCCL 2.18.1's release notes list it as a known issue, on HGX H100"),
    ("nccl.bug_2183_collnet_corruption", r"Fix data corruption with Collnet when mixing multi-process and\s{1,4}"
     r"multi-GPU per process\.", "2.0.0", "wrong", ["wrong", "collnet"], 64,
     "wrong results with CollNet (IB SHARP)", "export NCCL_COLLNET_ENABLE=0", ""),
    ("nccl.bug_2183_collnet_avg", r"Fix Avg operation with Collnet/Chain\.", "2.0.0", "wrong",
     ["wrong", "collnet", "avg"], 66, "wrong averages (ReduceOp.AVG) with CollNet (IB SHARP)",
     "export NCCL_COLLNET_ENABLE=0, or reduce with SUM and divide", ""),
    ("nccl.bug_2127_nvlink_down_corruption", r"Fix NVLink detection and avoid data corruption when some NVLinks are down",
     "2.0.0", "wrong", ["wrong", "nvlink_down"], 64, "wrong results with an NVLink down", "", ""),
    ("nccl.bug_2155_ll128_unaligned", r"Fix potential data corruption with LL128 protocol on unaligned buffers\.",
     "2.0.0", "wrong", ["wrong", "ll128"], 62, "wrong results with the LL128 protocol", "export NCCL_PROTO=^LL128", ""),
    # kind 'error': the failure is there, its line names no bug; the condition the note names (the GPU, the system,
    # the variable) and an affected version make it a candidate
    ("nccl.bug_2262_sm120_shmem", r"Fix shared memory usage on recent Blackwell GPUs\.", "2.25.1", "error",
     ["sm120", "fails"], 64, "collectives (all_reduce, alltoall: nccl-tests' *_perf) that fail or crash on a GPU of "
     "compute capability 12.0 (GeForce RTX 50 series, RTX PRO Blackwell)", "",
     "Blackwell support came in 2.25.1, its release commit: 'Add Blackwell/SM100 support'; the fix sets "
     "ncclCollUnroll for cudaArch 1200 (src/include/device.h; NVIDIA/nccl-tests#287, #291)"),
    ("nccl.bug_2273_mnnvl_topo_file_init", r"Fix an initialization failure when NCCL_TOPO_FILE is used on MNNVL "
     r"systems\.", "2.0.0", "error", ["topo_file", "mnnvl", "fails"], 66,
     "NCCL_TOPO_FILE set on a multi-node NVLink system (GB200 NVL72) and an initialization failure",
     "unset NCCL_TOPO_FILE on MNNVL systems", ""),
    ("nccl.bug_2205_uds_split_failure", r"Fix UDS connection failure when using ncclCommSplit\.", "2.19.0", "error",
     ["uds", "split", "fails"], 64, "a UDS connection failure (the cuMem handle exchange) on communicators made by "
     "ncclCommSplit (torch's split_group / new_subgroups)", "export NCCL_CUMEM_ENABLE=0 (no UDS handle exchange)",
     "the UDS exchange of cuMem handles came with NCCL_CUMEM_ENABLE's default of 1 in 2.19, NCCL's environment "
     "variables docs"),
    ("nccl.bug_2287_symmetric_corruption", r"Fixes potential data corruption with built-in symmetric kernels", "2.27.3",
     "wrong", ["wrong", "symmetric"], 64, "wrong results with symmetric memory kernels (ncclCommWindowRegister)", "",
     "symmetric kernels came in 2.27.3, its release commit: 'Symmetric memory API and symmetric kernels'"),
]
# fix lines that a hand-written entry of gpudoctor/data/knowledge/nccl_bugs.toml already covers
HAND_WRITTEN = {"Fix crash when shared memory creation fails.": "nccl.bug_2181_shm_crash"}
# The third rules table: a release line that ADDS support for a GPU generation ("Add support for H100 (sm90).",
# "Add Blackwell/SM100 support"): every release before it predates that GPU. Offered as kind 'error' (as a
# SYMPTOM_BUGS row) where the log ran such an NCCL, names a GPU of that generation and says it fails: an NCCL built
# before the GPU existed (no kernels for it, no tuning, no topology for its systems). The lines are read from every
# item of a release message, not only its "Fix ..." lines.
# (id, regex of the release line, [WORDS keys], rank, what the user sees)
SUPPORT_ADDED = [
    ("nccl.predates_sm80", r"^Add support for A100 GPU", ["sm80", "fails"], 62,
     "an A100-class GPU (compute capability 8.0) with an NCCL released before it, and a failure"),
    ("nccl.predates_sm90", r"^Add support for H100 \(sm90\)", ["sm90", "fails"], 62,
     "an H100-class GPU (compute capability 9.0) with an NCCL released before it, and a failure"),
    ("nccl.predates_sm100", r"^Add Blackwell/SM100 support", ["sm100", "fails"], 64,
     "a Blackwell GPU or system (B200, GB200, compute capability 10.0) with an NCCL released before it, and a failure"),
]


def _key(v):
    return tuple(int(x) for x in v.split("."))


def build(releases, fixed, version):
    rel = []
    for v, date, commit, msg in sorted(releases, key=lambda r: _key(r[0])):
        items = re.split(r"(?<=[.)])\s+(?=[A-Z])|\n\s*\n|\n[-*] ", " ".join(msg.split("\n")) if "\n\n" not in msg
                         else msg)
        fixes = []
        for x in items:
            if x.strip().lower().startswith("fix"):
                fixes.append(" ".join(x.split()))
                continue
            # a "Fix ..." bullet under another heading (2.22 and later: "Other notable improvements:
            # * Fixes a crash when network plugin assignment fails."), each bullet up to the next one
            for sub in re.split(r"\n\s*[*-] ", x)[1:]:
                if sub.strip().lower().startswith("fix"):
                    fixes.append(" ".join(sub.split()))
        row = {"version": v, "date": date, "commit": commit, "fixes": fixes}
        added = [" ".join(x.split()) for x in items for _, rx, _, _, _ in SUPPORT_ADDED if re.search(rx, x.strip())]
        if added:
            row["support_added"] = added
        rel.append(row)
    bugs = [{"commit": c, "thread": BUG_FIXES.get(c, ""), "fixed_in": sorted(vs, key=_key)}
            for c, vs in sorted(fixed.items())]
    known, unassigned = known_bugs(rel)
    return {"header": knowgen.header("NVIDIA/nccl (https://github.com/NVIDIA/nccl) release commits", version, GENERATOR),
            "releases": rel, "bug_fixes": bugs, "known_bugs": known,
            "fix_lines": sum(len(r["fixes"]) for r in rel), "unassigned_fixes": unassigned, "sites": []}


def known_bugs(rel):
    """(the known bugs KNOWN_BUGS finds among the releases' fix lines, [[version, fix line]] of the
    lines no rule or hand-written entry names). A rule whose line is in no release is skipped (a
    slice holds only some releases); main() stops when one is missing from a whole history."""
    out, named = [], set()
    for bid, rx, since, symptom, rank, shows in KNOWN_BUGS:
        hit = next(((r, f) for r in rel for f in r["fixes"] if re.search(rx, f)), None)
        if hit is None:
            continue
        r, line = hit
        named.add(line)
        b = {"id": bid, "release_fix": line, "fixed_in": r["version"], "commit": r["commit"],
             "affects": [since, r["version"]], "rank": rank, "shows": shows}
        b.update(symptom)
        out.append(b)
    for bid, rx, since, kind, words, rank, shows, workaround, why in SYMPTOM_BUGS:
        hit = next(((r, f, m) for r in rel for f in r["fixes"] for m in [re.search(rx, f)] if m), None)
        if hit is None:
            continue
        r, line, m = hit
        named.add(line)
        # the sentence of a line that holds several ('Fix A Fix B.': a release commit's lines joined)
        out.append({"id": bid, "release_fix": line, "fix_text": m.group(0).rstrip("."), "fixed_in": r["version"],
                    "commit": r["commit"], "affects": [since, r["version"]], "rank": rank, "shows": shows,
                    "symptom": kind, "words": [_word(w) for w in words], "workaround": workaround, "from_why": why})
    for bid, rx, words, rank, shows in SUPPORT_ADDED:
        hit = next(((r, f, m) for r in rel for f in r.get("support_added", ()) for m in [re.search(rx, f)] if m), None)
        if hit is None:
            continue
        r, line, m = hit
        out.append({"id": bid, "release_fix": line, "fix_text": line.split(" * ")[0].rstrip("."),
                    "fixed_in": r["version"], "commit": r["commit"], "affects": ["2.0.0", r["version"]], "rank": rank,
                    "shows": shows, "symptom": "error", "words": [_word(w) for w in words], "workaround": "",
                    "support_added": True,
                    "from_why": "every release before %s predates this GPU generation (its release notes add it)"
                                % r["version"]})
    unassigned = [[r["version"], f] for r in rel for f in r["fixes"] if f not in named and f not in HAND_WRITTEN]
    return out, unassigned


def from_repo(repo):
    def git(*args):
        return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True,
                              errors="replace").stdout

    head = git("rev-parse", "HEAD").strip()
    log = git("log", "--format=%H%x00%ad%x00%B%x01", "--date=short")
    releases, seen = [], set()
    for rec in log.split("\x01"):
        if "\x00" not in rec:
            continue
        commit, date, body = rec.strip("\n").split("\x00", 2)
        lines = body.strip().split("\n", 1)
        m = _TITLE.match(lines[0].strip())
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        releases.append((m.group(1), date, commit[:12], lines[1] if len(lines) > 1 else ""))
    fixed = {}
    for c in BUG_FIXES:
        tags = git("tag", "--contains", c).split()
        vs = sorted({t[1:].split("-")[0] for t in tags if re.match(r"^v\d+\.\d+\.\d+-\d+$", t)}, key=_key)
        firsts = []
        for v in vs:  # the first release of each minor line that has the fix
            if not any(_key(f)[:2] == _key(v)[:2] for f in firsts):
                firsts.append(v)
        fixed[c] = firsts
    return releases, fixed, "commit %s" % head


def from_slice(path):
    releases, fixed, cur, version = [], {}, None, "slice"
    with open(path) as f:
        for line in f:
            if line.startswith("#! release "):
                v, date, commit = line.split()[2:5]
                cur = [v, date, commit, ""]
                releases.append(cur)
            elif line.startswith("#! fixed "):
                c, vs = line.split()[2:4]
                fixed[c] = vs.split(",")
                cur = None
            elif line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif cur is not None and not line.startswith("#"):
                cur[3] += line
    return [tuple(r) for r in releases], fixed, version


def main(argv):
    a = knowgen.arguments(__doc__, argv)
    releases, fixed, version = from_repo(a.repo) if a.repo else from_slice(a.slice)
    doc = build(releases, fixed, version)
    if a.repo:
        missing = [b[0] for b in KNOWN_BUGS + SYMPTOM_BUGS if b[0] not in {k["id"] for k in doc["known_bugs"]}]
        if missing:
            a.error("KNOWN_BUGS rows whose fix line is in no release: %s" % ", ".join(missing))
    print("%s: %d releases, %d fix lines, %d known bugs with a symptom" % (
        knowgen.write("nccl_releases", doc, a.out), len(doc["releases"]), doc["fix_lines"], len(doc["known_bugs"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
