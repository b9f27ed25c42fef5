"""A job that hangs or is slow and prints no error: rank the causes that the vendors' own
troubleshooting documents list, from what the text shows, with the one command that tells each
apart (issue 18).

Sources (cited in gpudoctor/data/knowledge/hang.toml, whose entry nccl.hang holds the causes'
text, confirm commands and fixes in the order of CAUSES):
- NCCL's troubleshooting guide (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html):
  GPU Direct (PCI ACS and the IOMMU redirect P2P: hangs or low bandwidth; NCCL_P2P_DISABLE=1 to
  test; `lspci -vvv | grep ACSCtl`), GPU Direct RDMA (nvidia-peermem), Docker (/dev/shm, IPC),
  networking (an interface that is up but cannot reach the other nodes makes init fail or hang;
  NCCL's TCP ports and firewalls; InfiniBand/RoCE: NCCL_IB_HCA, NCCL_IB_GID_INDEX);
- nccl-tests (https://github.com/NVIDIA/nccl-tests, src/common.cu): without MPI=1 each process is a
  job of its own, prints its own '# nThread N nGpus N minBytes' header and numbers its GPUs from
  '#  Rank  0' (rank = proc*nThreads*nGpus+i, proc 0 without MPI);
- PyTorch's distributed debugging docs (https://pytorch.org/docs/stable/distributed.html
  #debugging-torch-distributed-applications, torch_nccl_environment_variables.html): a rank that
  never calls the collective; TORCH_DISTRIBUTED_DEBUG=DETAIL, TORCH_NCCL_ASYNC_ERROR_HANDLING,
  the Flight Recorder (TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT).

Where the evidence comes from:
- the user's words (ncclinfo.COMPLAINTS and COMPLAINTS below, in English and Chinese: the
  complaint is recorded once by ncclinfo.record), and words on the user's lines that name the
  stage ("at init_process_group", "after 300 steps"), the machine (ACS, AMD EPYC, PCIe, a container)
  or several nodes;
- NCCL's INFO lines, read by ncclinfo (sockets while HCAs exist, GDR, P2P off, hosts and nodes);
- the last lines of each input (scan.tails, TAIL bytes): the last NCCL INFO line before the text
  ends says where the job stopped (bootstrap / connecting its transports / after 'Init COMPLETE'
  or 'Connected all rings': NCCL's src/init.cc and src/transport/*.cc formats), and the channel
  lines there say which transport the last communicator used ('via P2P/IPC', 'via NET/IB/0');
- lines read by the scan for this module (role "fact", entry _hang): nccl-tests' headers, device
  lines and 'Avg bus bandwidth' summaries, and the rows of `nvidia-smi topo -m` (PIX/PXB/PHB/NODE/
  SYS only: GPUs linked over PCIe; NV#: NVLink).

judge() runs after ncclinfo.judge: it names nccltests.no_mpi when nccl-tests' own lines show
separate one-process jobs; else, when the text says the job hangs or is slow and nothing else
answered with certainty, it ranks the causes (result root: the entry of the top cause when its
evidence is specific, else nccl.hang; an answer ncclinfo already gave stays, with the ranking
added) and says how sure it is: medium only with a line that points at the top cause, else low.
"""

import re

from gpudoctor.explain.knowledge import Pattern
from gpudoctor.explain.text import clip as _clip

_ENTRY = "_hang"
MAX_KEPT = 64
CAUSES = ("rank_behind", "p2p", "net_path", "gdr", "interface", "container", "not_joined", "device")
SHORT = {
    "rank_behind": "a rank that never called the collective the others wait in",
    "p2p": "peer-to-peer between the GPUs of a node (PCIe ACS / IOMMU)",
    "net_path": "the network path between the nodes (sockets instead of InfiniBand/RoCE, the HCAs, the RoCE GID)",
    "gdr": "GPU Direct RDMA off (nvidia-peermem not loaded)",
    "interface": "the nodes do not reach each other (the interface NCCL uses, a firewall on its ports)",
    "container": "the container's /dev/shm or IPC namespace",
    "not_joined": "not every rank reached init_process_group (the store-based barrier waits for the others)",
    "device": "the ranks' GPUs are not the ones torch assumes (no set_device / device_id before the first collective)",
}
# the entry that answers a cause on its own when its evidence is specific
ENTRY_OF = {"p2p": "gpu.p2p", "net_path": "nccl.ib_no_device", "gdr": "rdma.peermem",
            "interface": "nccl.socket_ifname"}

# The user's words, beside ncclinfo.COMPLAINTS (English): more English phrasings, and Chinese ones
# (the users' notes in ../shared/seeds are Chinese: 卡住 'stuck', 很慢 'very slow', 带宽低 'low bandwidth').
# (regex, needles): Chinese has no 4-character literal run for the prefilter, so the needles are given.
COMPLAINTS = [
    (r"(?:卡住|卡死|卡在|夯住|挂起|死锁|无响应|没有反应|没反应|不动了|停住了|一直等待|没有任何输出|没有输出|不再输出)",
     ["卡住", "卡死", "卡在", "夯住", "挂起", "死锁", "无响应", "没有反应", "没反应", "不动了", "停住了", "一直等待",
      "没有任何输出", "没有输出", "不再输出"]),
    (r"(?:很慢|非常慢|特别慢|太慢|比较慢|较慢|慢了很多|慢很多|远慢于|速度慢|变慢|带宽很低|带宽太低|带宽低|带宽只有)",
     ["很慢", "非常慢", "特别慢", "太慢", "较慢", "慢了很多", "慢很多", "远慢于", "速度慢", "变慢", "带宽很低",
      "带宽太低", "带宽低", "带宽只有"]),
    (r"\bnever (?:returns|finishes|completes|progresses|proceeds)\b", None),
    (r"\b(?:does not|doesn't|did not|didn't) (?:progress|proceed|move on)\b",
     [a + b for a in ("doesnot", "doesn't", "didnot", "didn't") for b in ("progress", "proceed", "moveon")]),
    (r"\b(?:waits?|waiting) forever\b", ["waitforever", "waitsforever", "waitingforever"]),
    (r"\bno (?:more )?output (?:after|since|for)\b", None),
    # 'NCCL INFO ... then nothing', 'and then nothing happens', 'the log stops after ...'
    (r"\bthen nothing\b|\bnothing (?:happens|else happens|else is printed|more is printed)\b|"
     r"\b(?:log|output|printing) (?:stops|stopped) (?:after|at)\b", ["nothing", "stops", "stopped"]),
    # 'stuck with backend nccl', 'the model "freeze"(stuck)', 'the training freeze when ...' (ncclinfo.COMPLAINTS has
    # 'stuck at/in/on/after/forever' and 'freezes')
    (r"\bstuck\s{1,3}(?:with|when|while|during|there|here|indefinitely|before|until)\b|\(stuck\)", ["stuck"]),
    (r"\b(?:training|job|model|program|process|script|run|ranks?|gpus?|nodes?|everything|it)\s{1,3}[\"'`]?"
     r"(?:freeze|froze|frozen)\b", ["freeze", "froze"]),
    (r"\b(?:bandwidth|busbw|algbw|throughput) (?:is|was|of) (?:only |just |about |around |~)?\d{1,4}(?:\.\d{1,3})? ?"
     r"(?:GB/s|Gb/s|MB/s|GB/sec|Gbps)", None),
]
# the user saying the figure or the run is all right (English; 正常 'normal', 没问题 'no problem')
_FINE = re.compile(r"\b(?:looks?|seems?|is|are|was|were)\s{1,3}(?:fine|good|ok|okay|normal|healthy|as expected)\b|"
                   r"\bas expected\b|\bno (?:problem|issue)s?\b|正常|没问题", re.I)
_SLOW = re.compile(r"slow|bandwidth|busbw|algbw|throughput|GB/s|Gbps|慢|带宽", re.I)
# ... unless the clause that says so is about another scope than the complaint: 'busbw is only 20 GB/s across
# the two nodes, intra-node is fine' is a complaint about the network (单机 'one machine', 节点内 'within a node')
_CLAUSE = re.compile(r";|,(?!\d)|\.(?=\s|$)|\bbut\b|\bwhile\b|\bwhereas\b|，|。|；|但")
_OTHER_SCOPE = re.compile(r"\b(?:intra[- ]?node|single[- ]?node|one node|(?:within|inside) (?:a|the|one) node|same node|"
                          r"on (?:a |one )?(?:single )?node|locally|nvlink|p2p|shm)\b|单机|单节点|节点内|机内", re.I)


def _called_fine(text):
    """Whether the user calls the figure or the run all right (_FINE), in a clause not about another scope.
    Bounded: the first 1,000 characters and 8 such phrases (a line of the user's words is short)."""
    text = text[:1000]
    for _, m in zip(range(8), _FINE.finditer(text)):
        a = max((c.end() for c in _CLAUSE.finditer(text, 0, m.start())), default=0)
        c = _CLAUSE.search(text, m.end())
        if not _OTHER_SCOPE.search(text[a:c.start() if c else len(text)]):
            return True
    return False

# lines this module reads (role "fact", entry _hang): class -> regex
FACTS = {
    # nccl-tests src/common.cu: PRINT("# nThread %d nGpus %d minBytes %ld maxBytes %ld step: ...")
    "nt_header": r"#\s{0,4}nThread (\d{1,4}) nGpus (\d{1,4}) minBytes",
    # src/common.cu: "#  Rank %2d Group %2d Pid %6d on %10s device %2d [...] %s" (before 2.11: no Group)
    "nt_rank": r"#\s{1,6}Rank\s{1,4}(\d{1,6})\s{1,4}(?:Group\s{1,4}\d{1,6}\s{1,4})?Pid\s{1,8}(\d{1,9})\s{1,4}on\s{1,16}"
               r"([\w.-]{1,64})\s{1,4}device",
    # src/common.cu: PRINT("# Avg bus bandwidth    : %g %s\n", ...)
    "nt_avg": r"#\s{0,4}Avg bus bandwidth\s{0,8}:",
    # NCCL src/init.cc: '%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE'
    # (older: 'comm %p rank %d nranks %d cudaDev %d busId %lx - Init COMPLETE'): a communicator of one rank
    "nranks1": r"comm 0x[0-9a-f]{1,16} rank 0 nranks 1 cudaDev \d{1,3}\b[^\n]{0,200}Init COMPLETE",
    # nvidia-smi topo -m: one row per GPU, its link to each other GPU (X itself)
    "topo_row": r"^\s{0,8}GPU\d{1,2}\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\b",
    # torch/distributed/distributed_c10d.py _store_based_barrier (every init_process_group / new_group before 2.3,
    # and with TORCH_DIST_INIT_BARRIER=1): logger.info("Added key: {} to store for rank: {}"), every 10 s
    # "Waiting in store based barrier to initialize process group for rank: %s, key: %s (world_size=%s,
    # num_workers_joined=%s, timeout=%s)" (worker_count= before 1.13), then "Rank {}: Completed store-based barrier
    # for key:{} with {} nodes."
    "sbb_added": r"Added key: ?store_based_barrier_key:\d{1,6}(?: to store for rank: ?\d{1,7})?",
    "sbb_wait": r"Waiting in store based barrier to initialize process ?group for[^\n]{0,40}?rank: ?(\d{1,7}), key: "
                r"store_based_barrier_key:\d{1,6} \(world_size=(\d{1,7}), (?:worker_count|num_workers_joined)=(\d{1,7})",
    "sbb_done": r"Completed store-based barrier for key: ?store_based_barrier_key:\d{1,6} with \d{1,7} nodes",
    # ProcessGroupNCCL.cpp barrier(): no device known for this process, the GPU guessed from the rank (rank % GPUs):
    # "[PG ID 0 PG GUID 0 Rank 1]  using GPU 1 to perform barrier as devices used by this process are currently
    # unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect." (older: "Rank 1 using GPU
    # 1 to perform barrier ..."; 2.6+: "using GPU 1 as device used by this process is currently unknown")
    "barrier_guess": r"using GPU (\d{1,3}) (?:to perform barrier )?as devices? used by this process (?:are|is) currently "
                     r"unknown",
}
# a row's "X" (the GPU itself) sits next to a link word: 'GPU0 X PIX' squashes to 'gpu0xpix', 'GPU1 PIX X' to
# 'gpu1pixx' (the prefilter's needles; "GPU" alone is in every 'gpu-node-01' host name)
_TOPO_NEEDLES = sorted({n for t in ("pix", "pxb", "phb", "sys", "node") for n in ("x" + t, t + "x")} | {"xnv%d" % i for i in range(1, 10)} |
                       {"nv%dx" % i for i in range(1, 19)})
# ('device' alone is in many lines; nccl-tests' '#  Rank' squashes to '#rank')
_NEEDLES = {"topo_row": _TOPO_NEEDLES, "nt_rank": ["#rank"]}
# py-spy dump (benfred/py-spy src/dump.rs): "Process %d: %s" (the command line), "Thread %#x (%s): \"%s\"" (active /
# idle / active+gil ...), then one line per frame, innermost first: "    %s (%s:%d)". Read from each input's last
# lines (summarize_tail), never by the scan: a frame has no literal of its own for the prefilter ('.py:' is in every
# logger's 'logging.py:96' prefix)
_PYSPY_PROC = re.compile(r"^\s{0,8}Process \d{1,9}: \S")
_PYSPY_THREAD = re.compile(r"^\s{0,8}Thread (?:0x[0-9A-Fa-f]{1,16}|\d{1,9}) \((?:active|idle|gil|[a-z+]{1,20})\): \"")
MAX_PYSPY = 600  # py-spy lines kept per input (processes, threads, frames): a paste of a few dozen ranks' dumps

# the collectives a dumped process waits in: torch.distributed's functions (distributed_c10d.py), the work
# handle's wait, DeepSpeed's comm wrappers, and the CUDA synchronisation that waits for an NCCL kernel
_COLLECTIVE = re.compile(r"^(?:all_reduce|all_gather|all_gather_into_tensor|all_gather_object|_all_gather_base|"
                         r"reduce_scatter|reduce_scatter_tensor|_reduce_scatter_base|broadcast|broadcast_object_list|"
                         r"barrier|monitored_barrier|reduce|all_to_all|all_to_all_single|send|recv|isend|irecv|"
                         r"batch_isend_irecv|gather|scatter|gather_object|scatter_object_list|wait|_wait|synchronize|"
                         r"_store_based_barrier|_sync_module_states|_sync_params_and_buffers|_verify_param_shape_across_"
                         r"processes)$")
_DIST_FILE = re.compile(r"torch/distributed/|torch/nn/parallel/|deepspeed/comm/|torch/cuda/__init__\.py|"
                        r"torch/_tensor\.py|torch/distributed/c10d_logger\.py")
# a library's frame: installed packages, the standard library, and py-spy's short paths of both (it prints a
# path relative to the sys.path entry it was found in: 'torch/utils/data/dataloader.py', 'threading.py')
_LIB_FILE = re.compile(r"site-packages/|dist-packages/|/lib/python\d|^<frozen |^<string>|/usr/lib/|"
                       r"^(?:torch|deepspeed|transformers|accelerate|apex|lightning|pytorch_lightning|triton|numpy|"
                       r"asyncio|concurrent|multiprocessing|importlib|json|logging|email|http|urllib)/|"
                       r"^(?:threading|queue|selectors|socket|subprocess|contextlib|functools|runpy|weakref|"
                       r"ssl|_weakrefset|tempfile|shutil|pickle)\.py$")
_FRAME = re.compile(r"^\s{0,16}([\w<>.$-]{1,120}) \(([^()\n]{1,300}\.py):(\d{1,7})\)")
_PID = re.compile(r"Process (\d{1,9}): (.{0,120})")
_TOPO_LINKS = re.compile(r"\b(X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\b")

# the user's words on a line of theirs (never NCCL's own): stage, machine, nodes, container (re.A: \b is an ASCII
# boundary, so 'IB' and 'docker' are found inside Chinese text: 'IB网卡', '用docker容器')
_WORDS = {
    "init": re.compile(r"init_process_group|initiali[sz]|rendezvous|ncclCommInit|at (?:the )?start|before (?:the )?"
                       r"first|barrier|初始化", re.I | re.A),
    "first": re.compile(r"first (?:all_?reduce|allgather|all_gather|collective|step|iteration|batch|forward|backward|"
                        r"broadcast)|第一(?:次|个|步)", re.I | re.A),
    "later": re.compile(r"after (?:\d{1,7}|a few|some|several|many) (?:steps|iterations|iters|epochs|batches|hours|"
                        r"minutes)|(?:during|at|in) (?:the )?(?:eval|evaluation|validation|saving|checkpoint)|randomly|"
                        r"occasionally|intermittent|sometimes|随机|偶尔|有时|评估|验证|保存", re.I | re.A),
    # ... or the user saying init went through: '`ncclCommInitRank` completes successfully, but the first collective
    # ... hangs' read 'it stopped before NCCL's init completed' ('ncclCommInit' is an init word); 'never completes',
    # 'does not finish' stay init
    "after_init": re.compile(r"(?:after|at|on)\b[^\n]{0,40}(?:Connected all (?:rings|trees)|Init COMPLETE|init "
                             r"complete)|(?:ncclCommInit\w{0,12}|init_process_group|initiali[sz]ation|\binit\b)[`'\")]?"
                             r"(?:\s{1,3}(?:call|calls|step|phase|itself))?\s{1,3}(?:completes?|completed|succeeds?|"
                             r"succeeded|finish(?:es|ed)|returns? (?:fine|successfully|normally)|(?:works?|worked) fine|"
                             r"(?:is|was) fine|(?:is|was) successful)\b", re.I | re.A),
    "pcie": re.compile(r"\bACS\b|IOMMU|VT-d|AMD-Vi|\bEPYC\b|Threadripper|\bPCIe\b|\bPIX\b|\bPXB\b|RTX ?\d{4}|GeForce|"
                       r"p2pBandwidthLatencyTest", re.I | re.A),
    "multi": re.compile(r"\b(?:cross|inter|multi)[- ]?nodes?\b|\b(?:multiple|several|two|three|four|[2-9]) (?:nodes?|"
                        r"machines?|hosts?|servers?)\b|多机|跨节点|跨机|两台|多台|双机|两个节点|多节点|"
                        # a launch line or config for several nodes (torchrun, accelerate, sbatch)
                        r"--nnodes[= ](?:[2-9]|\d{2})|num_machines:\s{0,4}(?:[2-9]|\d{2})|"
                        r"#SBATCH\s{1,8}(?:-N|--nodes)[= ]?(?:[2-9]|\d{2})", re.I | re.A),
    "container": re.compile(r"\bdocker\b|\bcontainers?\b|\bpodman\b|kubernetes|\bk8s\b|\bpods?\b|enroot|pyxis|"
                            r"singularity|apptainer|--shm-size|/dev/shm|容器", re.I | re.A),
    "ib": re.compile(r"infiniband|\bIB\b|\bRoCE\b|mlx5|\bHCA\b|\bRDMA\b", re.I | re.A),
    # the same program runs with the gloo backend: its ranks do call the same collectives, NCCL's transports do not
    # work ('works with gloo', 'gloo backend works', 'fine on gloo', 'gloo正常' / 'gloo可以')
    "gloo_ok": re.compile(r"\b(?:works?|worked|working|fine|ok|okay|runs?|ran|succeeds?|passes)\s{1,3}(?:fine\s{1,3}|well\s{1,3})?"
                          r"(?:with|on|using|under|in)\s{1,3}(?:the\s{1,3})?[`'\"]?gloo\b|\bgloo[`'\"]?\s{1,3}(?:backend\s{1,3})?"
                          r"(?:works?|worked|is fine|runs? fine|is ok|succeeds)\b|gloo\s{0,2}(?:正常|可以|没问题)", re.I | re.A),
    "context": re.compile(r"nccl|all_?reduce|all_?gather|reduce_scatter|broadcast|barrier|init_process_group|torchrun|"
                          r"torch\.distributed|deepspeed|accelerate|horovod|megatron|\bddp\b|distributed|collective|"
                          r"multi[- ]?(?:node|gpu)|nodes|gpus|_perf\b|mpirun|srun|多机|多卡|分布式|通信", re.I | re.A),
}

# the last NCCL INFO line of an input -> where the job stopped (NCCL's own formats: src/init.cc
# 'Init START' / 'Init COMPLETE' / 'Connected all rings' / 'Connected all trees', src/bootstrap.cc,
# src/transport/{p2p,shm,net}.cc 'Channel %02d/%d : ... via ...', src/graph/*.cc 'Trees', 'Channel %02d/%02d :')
_NCCL_LINE = re.compile(r"NCCL INFO (.{0,300})")
_STAGES = [
    # src/init.cc commDestroy/commFree 'comm %p rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE',
    # ncclCommAbort's 'Abort COMPLETE'; src/plugin/env.cc 'ENV/Plugin: Closing env plugin %s' at the end
    ("ended", re.compile(r"Destroy COMPLETE|Abort COMPLETE|Closing env plugin", re.I)),
    ("after_init", re.compile(r"Connected all (?:rings|trees)|Init COMPLETE|Connected NVLS|Connected CollNet|"
                              r"Init timings|ncclCommInitRank[^\n]{0,200}COMPLETE|(?:AllReduce|Broadcast|AllGather|"
                              r"ReduceScatter|Reduce|Send|Recv): opCount", re.I)),
    ("connect", re.compile(r"\bvia (?:P2P|SHM|NET|COLLNET|direct shared memory)|Trees \[|^Channel \d{1,3}/\d{1,3} :|"
                           r"^Ring \d{1,3} :|Setting affinity|NVLS multicast|Pattern \d|nRanks \d{1,9} nNodes|"
                           r"Connecting|ncclTopo|Graph|Tree \d|\d{1,4} coll channels|threadThresholds|P2P Chunksize|CC (?:Off|On)|"
                           r"TOPO/|PCI\[|GPU/|CPU/|NET/\d", re.I)),
    ("init", re.compile(r"Bootstrap|NET/IB|NET/Socket|NET/Plugin|Using network|NCCL version|cudaDriverVersion|"
                        r"Init START|comm 0x[0-9a-f]{1,16} rank \d|NCCL_[A-Z_]{1,40} set|Failed to initialize NET|"
                        r"Comm config|ENV/Plugin|Initialized NET plugin|Assigned NET plugin|dlvsym|NET/", re.I)),
]
_VIA_P2P = re.compile(r"via (P2P/(?:IPC|CUMEM|direct pointer|read|indirect)\S{0,40})")
_VIA_SHM = re.compile(r"via (?:SHM|direct shared memory)")
_VIA_NET = re.compile(r"via NET/(IB|Socket|[\w-]{1,30})(?:/\d{1,4})?(/GDRDMA)?")
# src/transport.cc (2.19+): 'Connected all rings, use ring PXN %d GDR %d': GDR 0 = no GPU Direct RDMA for the rings
_RING_GDR0 = re.compile(r"Connected all rings, use ring PXN \d GDR 0\b")


def patterns():
    from gpudoctor.explain import ncclinfo

    out = []
    # the user's words: ncclinfo's English phrases and COMPLAINTS; ncclinfo records its own as well (for its
    # hedged answers), this module keeps the first on a line of the user's, which may quote NCCL after the
    # complaint ('stuck after NCCL INFO Connected all rings')
    for rx, needles in [(rx, None) for rx in getattr(ncclinfo, "COMPLAINTS", [])] + COMPLAINTS:
        out.append(Pattern(_ENTRY, "fact", rx, 0, site={"class": "complaint", "id": "hang-complaint"},
                           needles=needles))
    for cls, rx in FACTS.items():
        out.append(Pattern(_ENTRY, "fact", rx, 0, site={"class": cls, "id": "hang-" + cls},
                           needles=_NEEDLES.get(cls)))
    return out


def _state(scan):
    st = scan.hang
    if st is None:
        st = scan.hang = {"headers": [], "ranks": [], "avg": [], "topo": [], "complaint": None, "nranks1": {},
                          "sbb": None, "barrier": []}
    return st


def record(scan, hit):
    """One line a pattern of FACTS matched."""
    st = _state(scan)
    cls = hit.pattern.site["class"]
    text = hit.text
    if cls == "complaint":
        # a logger's INFO/WARN line ('UserWarning: ... very slow', '[W socket.cpp] ...') is a program's, not the user's;
        # a figure the user calls fine ('busbw is 370 GB/s, looks fine') is no complaint
        # nor a warning of what may happen ('This can potentially cause a hang if ...': outcome.foretells)
        from gpudoctor.explain.outcome import foretells

        if st["complaint"] is None and _users(text, hit.pattern) and not _called_fine(text) and not foretells(text):
            st["complaint"] = (hit.line, text[:300])
    elif cls == "nt_header":
        if len(st["headers"]) < MAX_KEPT:
            st["headers"].append((hit.line, text[:200]))
    elif cls == "nt_rank":
        m = re.search(FACTS["nt_rank"], text.strip(), re.I)
        if m and len(st["ranks"]) < MAX_KEPT * 8:
            st["ranks"].append((hit.line, int(m.group(1)), m.group(2), m.group(3), text[:200]))
    elif cls == "nt_avg":
        if len(st["avg"]) < MAX_KEPT:
            st["avg"].append((hit.line, text[:200]))
    elif cls == "nranks1":
        m = _NCCL_PREFIX_ID.search(text)
        if m and len(st["nranks1"]) < MAX_KEPT:
            st["nranks1"].setdefault(m.group(1), (hit.line, text[:200]))
    elif cls == "topo_row":
        if len(st["topo"]) < MAX_KEPT:
            st["topo"].append((hit.line, text[:200]))
    elif cls in ("sbb_added", "sbb_wait", "sbb_done"):
        m = re.search(FACTS["sbb_wait"], text) if cls == "sbb_wait" else None
        prev = st["sbb"]
        if prev is None or prev["line"] <= hit.line:  # the last of them says where the barrier stood
            st["sbb"] = {"state": cls[4:], "line": hit.line, "text": text[:300],
                         "world": int(m.group(2)) if m else None, "joined": int(m.group(3)) if m else None,
                         "done_before": bool(prev and prev["state"] == "done")}
    elif cls == "barrier_guess":
        if len(st["barrier"]) < MAX_KEPT:
            st["barrier"].append((hit.line, text[:300]))


# NCCL's own prefix (src/debug.cc: "%s:%d:%d [%d] NCCL INFO " hostname, pid, tid, cudaDev)
# (the host may be empty: ':22901:22901 [0] NCCL INFO' where gethostname gave nothing)
# (the host starts where a name can: tried inside a run of name characters, [\w.-]{0,63} took 63 steps back
# at every byte, 10 ms of every input's 32 KiB tail that ends in one long line)
_NCCL_PREFIX = re.compile(r"(?<![\w.-])[\w.-]{0,63}:\d{1,9}:\d{1,9} \[\d{1,3}\] NCCL (?:INFO|WARN)")
_NCCL_PREFIX_ID = re.compile(r"(?<![\w.-])([\w.-]{0,63}:\d{1,9}):\d{1,9} \[\d{1,3}\] NCCL INFO")
_MARKER = re.compile(r"NCCL (?:INFO|WARN)\b")


def _users(text, pattern):
    """A line of the user's: not NCCL's own (its prefix), not a logger's INFO/WARN line (a library's
    'UserWarning: ... very slow'), and the complaint comes before any NCCL marker the user quotes
    ('stuck after NCCL INFO Connected all rings')."""
    from gpudoctor.explain.text import severity, strip_prefix

    if _NCCL_PREFIX.search(text):
        return False
    m = _MARKER.search(text)
    head = text if m is None else text[:m.start()]
    # the level after the rank/host prefix: torch's '[rank0]:[W1126 ... ProcessGroupNCCL.cpp:4561] ... This can
    # potentially cause a hang' (every barrier() without device_ids) is a warning, not the user saying it hangs
    # ... or after it, on a line without NCCL's own prefix (checked above): 'NCCL INFO Connected all rings, then
    # nothing', '... Bootstrap : Using eth0 之后没有任何输出' (the user quoted NCCL, then said what happened)
    return severity(strip_prefix(head)[0]) is None and (m is None or pattern.regex.search(head) is not None
                                                        or pattern.regex.search(text[m.end():]) is not None)


# ------------------------------------------------------------------ nccl-tests without MPI

def separate_jobs(st, nccl_tests=False, starts=()):
    """(what, [(line, text)]) of nccl-tests' own lines that show separate one-process jobs, else
    (None, []): two processes that each number their GPUs from Rank 0 (distinct Pid or host),
    started together (on different hosts, or with no 'Avg bus bandwidth' summary between them:
    runs one after another each end with one); two '# nThread' headers printed together (within
    4 lines: with MPI only process 0 prints it, once); or two summaries printed together."""
    if not st:
        return None, []
    zero = [r for r in st["ranks"] if r[1] == 0]
    procs = {}
    for r in zero:
        procs.setdefault((r[3], r[2]), r)
    if len(procs) >= 2:
        a, b = sorted(procs.values())[:2]
        apart = a[3] != b[3]
        between = any(a[0] < ln < b[0] for ln, _ in st["avg"])
        # within one input a summary between them ends the first run before the second starts, on one host
        # or on two (node1's single-node run, then node2's, pasted to compare); per-node inputs (numbered as
        # one sequence from ``starts``, each input's first line less one) each end with their own summary
        one_input = not any(a[0] <= f < b[0] for f in starts)
        if not between or (apart and not one_input):
            return "each start their own GPU list at 'Rank 0'", [(a[0], a[4]), (b[0], b[4])]
    heads = st["headers"]
    for x, y in zip(heads, heads[1:]):  # each process printed its header at start, together (no results between)
        if y[0] - x[0] <= 4:
            return "are two '# nThread' headers printed together", [x, y]
    avg = st["avg"]
    for x, y in zip(avg, avg[1:]):
        if y[0] - x[0] <= 4:
            return "are two 'Avg bus bandwidth' summaries printed together", [x, y]
    # NCCL's own lines (NCCL_DEBUG=INFO, one file per process): 'rank 0 nranks 1' from two processes of an nccl-tests run
    ones = sorted(st["nranks1"].values())
    if nccl_tests and len(ones) >= 2:
        return "are communicators of one rank ('rank 0 nranks 1 ... Init COMPLETE') in two processes", ones[:2]
    return None, []


# ------------------------------------------------------------------ the evidence

MAX_USER_TAILS = 64  # inputs whose last lines of the user's are kept (the words: stage, nodes, container)


def summarize_tail(path, end, data, keep_user=True):
    """What one input's last bytes (scan.TAIL, ending at line ``end``) say, kept instead of the bytes
    (a folder of 10,000 per-rank logs: a few hundred bytes each): the last NCCL INFO line (line,
    text, body) and the stage it names, P2P channel lines, SHM seen, NET channels (net, GDRDMA,
    line, text), NCCL's 'use ring PXN N GDR 0', and the user's own lines (``keep_user``)."""
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = lines[-400:] if keep_user else lines[-64:]  # (past the first inputs: their ends only, 10,000 files)
    first = end - len(lines) + 1
    last, p2p, shm, net, user, gdr0, pyspy = None, [], False, [], [], None, []
    for i, raw in enumerate(lines):
        ln = first + i
        text = raw.strip()
        if keep_user and len(pyspy) < MAX_PYSPY:
            kind = "thread" if _PYSPY_THREAD.match(raw) else "proc" if _PYSPY_PROC.match(raw) else \
                "frame" if pyspy and _FRAME.match(raw) else None  # frames only after a thread header
            if kind:
                pyspy.append((ln, kind, text[:300]))
                continue  # a dump's line is not the user's words ('barrier (torch/distributed/...)' is no stage)
        m = _NCCL_LINE.search(text) if _NCCL_PREFIX.search(text) or text.startswith("NCCL INFO") else None
        if m is None:
            if keep_user and text and "NCCL WARN" not in text:
                user.append((ln, text[:300]))
            continue
        body = m.group(1).strip()
        last = (ln, text[:300], body[:300])
        if len(p2p) < 2 and _VIA_P2P.search(body):
            p2p.append((ln, text[:300]))
        if _VIA_SHM.search(body):
            shm = True
        if gdr0 is None and _RING_GDR0.search(body):
            gdr0 = (ln, text[:300])
        n = _VIA_NET.search(body)
        if n:
            if len(net) < 4:
                net.append((n.group(1), bool(n.group(2)), ln, text[:300]))
            elif n.group(1) == "IB" and not n.group(2) and all(x[1] for x in net if x[0] == "IB"):
                net.append((n.group(1), False, ln, text[:300]))  # one IB channel without GDRDMA counts
    stage = None
    if last is not None:
        for name, rx in _STAGES:
            if rx.search(last[2]):
                stage = name
                break
    return {"path": path, "last": last, "stage": stage, "p2p": p2p, "shm": shm, "net": net, "user": user[-64:],
            "ring_gdr0": gdr0, "last_line": end, "pyspy": pyspy if any(k == "thread" for _l, k, _t in pyspy) else []}


def _tails(scan):
    """summarize_tail() of each input (scan.tails holds them; raw (path, end, bytes) is summarized here)."""
    return [t if isinstance(t, dict) else summarize_tail(*t) for t in getattr(scan, "tails", []) or []]


def _topo(st):
    """('pcie' | 'nvlink' | None, (line, text)): GPUs linked over PCIe only, or by NVLink."""
    if not st or not st["topo"]:
        return None, None
    links = set()
    for _ln, text in st["topo"]:
        links |= set(_TOPO_LINKS.findall(text))
    links.discard("X")
    if not links:
        return None, None
    if any(k.startswith("NV") for k in links):
        return "nvlink", st["topo"][0]
    return "pcie", st["topo"][0]


def _complaint(scan):
    mine = scan.hang.get("complaint") if getattr(scan, "hang", None) else None
    st = getattr(scan, "nccl_info", None)
    got = mine or (st.get("complaint") if st else None)
    sbb = scan.hang.get("sbb") if getattr(scan, "hang", None) else None
    if got is None and sbb and sbb["state"] == "wait" and sbb["joined"] is not None and sbb["world"] and \
            sbb["joined"] != sbb["world"]:
        # torch's own count, the last it printed: init_process_group still waits for ranks (a healthy start that
        # waited a while ends with 'Completed store-based barrier')
        got = (sbb["line"], sbb["text"])
    if got is None:
        # a py-spy dump of a process waiting in a collective is what a user pastes when the job hangs
        dumps = pyspy_dumps([x for t in _tails(scan) for x in t.get("pyspy", ())])
        waiting = [d for d in dumps if d["collective"]]
        if waiting:
            d = waiting[0]
            got = (d["line"], "py-spy dump: %s waits in %s" % (d["who"], d["collective"][1]))
    return got


def pyspy_dumps(lines):
    """The processes of py-spy dumps in the text (``lines``: (line, kind, text) of summarize_tail, kind proc /
    thread / frame): [{"line", "who", "collective": (line, frame) | None, "top":
    (line, frame), "user": (line, frame) | None}], for each process its main thread (else its first thread):
    the innermost frame, the first torch.distributed collective it waits in, and the innermost frame of the
    program's own code (not site-packages, not the standard library)."""
    if not lines:
        return []
    procs, cur, thread = [], None, None
    for ln, kind, text in sorted(lines):
        if kind == "proc":
            m = _PID.search(text)
            cur = {"line": ln, "who": "process %s (%s)" % (m.group(1), m.group(2).strip()[:60]) if m else "a process",
                   "threads": []}
            procs.append(cur)
            thread = None
        elif kind == "thread":
            main = "MainThread" in text
            # dumps pasted without their 'Process' line: a second main thread is another process
            if cur is None or (main and any(t["main"] for t in cur["threads"])):
                tid = re.search(r"Thread (\S{1,20})", text)
                cur = {"line": ln, "who": "the process of thread %s (line %d)" % (tid.group(1) if tid else "?", ln),
                       "threads": []}
                procs.append(cur)
            thread = {"line": ln, "main": main, "frames": []}
            cur["threads"].append(thread)
        elif thread is not None and len(thread["frames"]) < 64:
            m = _FRAME.search(text)
            if m:
                thread["frames"].append((ln, m.group(1), m.group(2), m.group(3)))
    out = []
    for p in procs[:MAX_KEPT]:
        t = next((t for t in p["threads"] if t["main"] and t["frames"]), None) or next(
            (t for t in p["threads"] if t["frames"]), None)
        if t is None:
            continue
        fr = t["frames"]
        say = lambda f: "%s (%s:%s)" % (f[1], f[2][-60:], f[3])  # noqa: E731
        coll = next((f for f in fr if _COLLECTIVE.match(f[1]) and _DIST_FILE.search(f[2])), None)
        user = next((f for f in fr if not _LIB_FILE.search(f[2])), None)
        out.append({"line": p["line"], "who": p["who"], "collective": (coll[0], say(coll)) if coll else None,
                    "top": (fr[0][0], say(fr[0])), "user": (user[0], say(user)) if user else None})
    return out


def evidence(result, scan):
    """What the text shows about a hang or a slow run (a dict; JSON-able but for the tuples)."""
    from gpudoctor.explain import ncclinfo

    complaint = _complaint(scan)
    st = scan.hang
    tails = _tails(scan)
    fx = result.get("nccl_info") or {}
    nst = getattr(scan, "nccl_info", None) or {}
    user = [u for t in tails for u in t["user"]]
    own = (st.get("complaint") if st else None) or nst.get("complaint")  # the user's words, not torch's or py-spy's
    if own and all(own[0] != ln for ln, _ in user):
        user.append((own[0], own[1]))
    words = {k: next(((ln, t) for ln, t in user if rx.search(t)), None) for k, rx in _WORDS.items()}
    ranks = {r[2:4] for r in st["ranks"]} if st else set()
    net = [n for t in tails for n in t["net"]]
    # a channel 'via NET/...' joins ranks of different nodes (NCCL uses P2P or SHM inside one)
    multi = bool(net or fx.get("nodes") and fx["nodes"] > 1 or len(fx.get("hosts") or []) > 1 or nst.get("multi_text")
                 or words["multi"] or len({h for _p, h in ranks}) > 1)
    stages = [t["stage"] for t in tails if t["stage"]]
    order = {"init": 0, "connect": 1, "after_init": 2, "ended": 3}
    stage = min(stages, key=order.get) if stages else None
    last = next((t["last"] for t in tails if t["stage"] == stage and t["last"]), None) if stage else None
    sbb = st.get("sbb") if st else None
    if stage is None and sbb and sbb["state"] in ("added", "wait"):  # torch's init_process_group did not complete
        stage, last = "pg_init", (sbb["line"], sbb["text"], None)
    if stage is None:  # no NCCL line at the end: the user's words may say where it stopped
        said = next(((k, words[k]) for k in ("after_init", "init") if words[k]), None)
        if said:
            stage, last = said[0], (said[1][0], said[1][1], None)
    sockets = sorted(ncclinfo._socket_hosts(fx)) if fx else []
    topo, topo_line = _topo(st)
    ends = {t["last_line"] for t in tails if t.get("last_line")}
    return {
        "complaint": complaint, "slow": bool(complaint and _SLOW.search(complaint[1])), "words": words, "multi": multi,
        "stage": stage, "last": last, "p2p": [p for t in tails for p in t["p2p"]][:4],
        "shm": any(t["shm"] for t in tails), "net": net, "sockets": sockets,
        "ring_gdr0": next((t["ring_gdr0"] for t in tails if t["ring_gdr0"]), None),
        "ib_devices": fx.get("ib_devices") or {}, "gdr": fx.get("gdr") or {}, "env": fx.get("env") or {},
        "topo": topo, "topo_line": topo_line, "info": bool(fx), "nodes": fx.get("nodes"),
        "nccl_tests": bool(st and (st["headers"] or st["ranks"])), "info_first": nst.get("first") or {},
        "sbb": sbb, "barrier": (st.get("barrier") or []) if st else [],
        "pyspy": pyspy_dumps([x for t in tails for x in t.get("pyspy", ())]),
        "ends": sorted(ends),  # each input's last line
    }


def rank(ev):
    """[(cause, score, [(line, text) evidence], specific)] most likely first (causes scored 10 or
    more), from NCCL's troubleshooting guide and PyTorch's debugging docs: where the job stopped,
    which transports it used, the machine and the user's words. ``specific``: a line of NCCL's,
    nccl-tests' or nvidia-smi's (never the user's words alone) points at that cause."""
    score = {"rank_behind": 20, "p2p": 15, "net_path": 10, "gdr": 5, "interface": 10, "container": 5, "not_joined": 0,
             "device": 0}
    why = {k: [] for k in CAUSES}
    specific = set()
    w = ev["words"]
    multi, stage, slow, last = ev["multi"], ev["stage"], ev["slow"], ev["last"]
    line = (last[0], last[1]) if last else None
    p2p_seen = bool(ev["p2p"]) or ev["topo"] == "pcie"
    p2p_off = str(ev["env"].get("NCCL_P2P_DISABLE", "0")) not in ("0", "") or ev["env"].get("NCCL_P2P_LEVEL") in (
        "LOC", "0")

    def add(cause, points, evidence=None, sure=False):
        score[cause] += points
        if evidence and evidence[0] is not None and evidence not in why[cause]:
            why[cause].append(evidence)
        if sure:
            specific.add(cause)

    if multi:
        add("net_path", 20)
        add("interface", 15)
        add("gdr", 5)
    elif w["ib"]:  # one node as far as the text says, but the user speaks of the fabric
        add("net_path", 10)
        add("gdr", 10)
    else:
        score["net_path"] = score["gdr"] = score["interface"] = 0
        add("p2p", 10)
    # where it stopped (NCCL's last line, else the user's words)
    if stage == "init":
        if multi:  # NCCL troubleshooting: an interface that cannot reach the other nodes fails init or hangs
            add("interface", 30, line)
            add("net_path", 5)
        else:
            # one node: a rank that never called the collective whose NCCL init the others wait in. torch
            # creates the NCCL communicator lazily at the first collective (eagerly only with init_process_group's
            # device_id, https://pytorch.org/docs/stable/distributed.html#torch.distributed.init_process_group),
            # after every rank passed init_process_group (rank 0's TCPStore waited for them all): a rank missing
            # from NCCL's bootstrap skipped or has not reached that collective. not_joined is the earlier stage,
            # torch's store-based barrier inside init_process_group, on its own line (sbb below).
            add("rank_behind", 10, line)
    elif stage == "connect":
        if multi:
            add("net_path", 15, line)
            add("interface", 10)
        if ev["p2p"]:
            add("p2p", 15, line)
    elif stage == "ended":
        add("rank_behind", 15, line)
        add("p2p", -10)
    elif stage == "after_init":
        add("rank_behind", 20, line)
        add("p2p", 25 if p2p_seen or w["pcie"] else 5, line if p2p_seen else None, sure=p2p_seen)
    if w["first"]:
        add("p2p", 15, w["first"])
        add("rank_behind", 5)
    if w["later"]:  # PyTorch's docs: a hang after some steps is a rank that took another path
        add("rank_behind", 40)
        why["rank_behind"].insert(0, w["later"])
        add("p2p", -10)
    # the machine
    if ev["p2p"]:
        add("p2p", 15, ev["p2p"][0], sure=not multi)
    if ev["topo"] == "pcie":  # nvidia-smi topo -m: GPUs linked over PCIe only (ACS/IOMMU apply)
        add("p2p", 20, ev["topo_line"], sure=True)
    elif ev["topo"] == "nvlink":
        add("p2p", -10)
    if w["pcie"]:
        add("p2p", 15, w["pcie"])
    if p2p_off:  # P2P is already off: not the path that hangs
        score["p2p"] = 0
    # the network between the nodes
    first = ev["info_first"]
    # sockets make a job slow; a hang before init completed is the nodes not reaching each other (above)
    at_init = stage == "init" and not slow
    if multi and ev["sockets"]:
        add("net_path", (20 if ev["ib_devices"] or w["ib"] else (0 if at_init else 10)) + (15 if slow else 0),
            (first.get("ib_active") if ev["ib_devices"] else None) or first.get("socket_iface")
            or first.get("net_chosen") or w["ib"],
            sure=bool(ev["ib_devices"]))
    sock = next((x for x in ev["net"] if x[0] == "Socket"), None)
    if multi and sock and not at_init:
        add("net_path", 10, (sock[2], sock[3]))
    ib_nogdr = [x for x in ev["net"] if x[0] == "IB" and not x[1]]
    gdr_off = [k for k, v in ev["gdr"].items() if not k.startswith("Socket ") and any(s.startswith("Disabled")
                                                                                    for s in v)]
    if (multi or w["ib"]) and (ib_nogdr or gdr_off):
        add("gdr", 25 + (15 if slow else 0), (ib_nogdr[0][2], ib_nogdr[0][3]) if ib_nogdr else first.get("gdr"),
            sure=bool(gdr_off))
        if ib_nogdr and ev["ring_gdr0"]:  # NCCL says so itself for its rings over IB
            add("gdr", 10, ev["ring_gdr0"], sure=True)
    ib = [x for x in ev["net"] if x[0] == "IB"]
    if ib and all(x[1] for x in ib) and not gdr_off:  # every IB channel at the end reads '/GDRDMA': it is on
        score["gdr"] = -100
    if slow:  # slow, not stuck: the ranks do meet, and the nodes reach each other
        add("rank_behind", -10)
        score["interface"] = min(score["interface"], 10)
        if multi or w["ib"]:
            add("gdr", 10)
    if w["container"]:
        # one node: its /dev/shm and IPC namespace; several: a container without /dev/infiniband or the verbs
        # library makes NCCL fall back to sockets between the nodes (the net_path cause names it)
        add("container", (15 if multi else 30) + (10 if ev["shm"] else 0), w["container"])
        if multi:
            add("net_path", 15, w["container"])
    _torch_evidence(ev, add, score, multi, slow)
    if stage == "ended" and not slow:  # NCCL destroyed its communicators: no transport of its is stuck
        for k in ("p2p", "net_path", "gdr", "interface"):
            score[k] = 0
    out = []
    for k in CAUSES:
        if score[k] >= 10:
            out.append((k, score[k], why[k][:3], k in specific))
    out.sort(key=lambda x: (-x[1], CAUSES.index(x[0])))
    return out


def _torch_evidence(ev, add, score, multi, slow):
    """What torch's own lines, py-spy's dumps and the user's 'works with gloo' say (rank()'s add)."""
    w = ev["words"]
    if w.get("gloo_ok") and not slow:
        # the same program meets on every rank with gloo: no rank skipped a collective or missed the init; what
        # differs is NCCL's transports (P2P inside a node; the NICs NCCL picks between nodes)
        add("rank_behind", -25)
        add("not_joined", -20)
        add("device", 10, w["gloo_ok"])
        if multi:
            add("net_path", 15, w["gloo_ok"])
            add("interface", 10, w["gloo_ok"])
            add("p2p", 5)
        else:
            add("p2p", 25, w["gloo_ok"])
    sbb = ev.get("sbb")  # (rank()'s callers may give only the NCCL evidence)
    if sbb and not slow:
        line = (sbb["line"], sbb["text"])
        if sbb["state"] == "wait" and sbb["world"] and sbb["joined"] is not None and sbb["joined"] < sbb["world"]:
            # torch's own count: only J of W ranks added their key
            add("not_joined", 70, line, sure=True)
            add("rank_behind", -15)
            add("p2p", -10)
        elif sbb["state"] in ("added", "wait"):  # the barrier did not complete
            add("not_joined", 45, line)
            add("rank_behind", -10)
        elif sbb["state"] == "done" and not ev["last"]:
            # the process group exists; NCCL creates its communicator at the first collective: a hang there is
            # NCCL's own init and transports
            if multi:
                add("interface", 10, line)
            else:
                add("p2p", 10, line)
    guesses = ev.get("barrier") or []
    if guesses and not slow:
        # ProcessGroupNCCL guessed each rank's GPU; the job stopping right after that warning is the barrier
        last = max(guesses)
        ended = any(0 <= e - last[0] <= 3 for e in ev.get("ends", ()))  # among an input's last lines: it stopped there
        add("device", 35 + (20 if ended else 0), last, sure=ended)
    dumps = ev.get("pyspy") or []
    if dumps:
        waiting = [d for d in dumps if d["collective"]]
        elsewhere = [d for d in dumps if not d["collective"]]
        names = {d["collective"][1].split(" (")[0] for d in waiting}
        sites = {(d["user"] or d["collective"])[1] for d in waiting}
        if waiting and elsewhere:
            # py-spy shows one process outside any collective while the others wait in one: PyTorch's debugging
            # docs' first cause, and the process is named
            d = elsewhere[0]
            where = d["top"][1] + (" under %s" % d["user"][1] if d["user"] and d["user"] != d["top"] else "")
            add("rank_behind", 60, (d["line"], "%s is in %s, not in a collective; %s waits in %s" % (
                d["who"], where, waiting[0]["who"], waiting[0]["collective"][1])), sure=True)
            add("p2p", -15)
        elif len(waiting) >= 2 and (len(names) > 1 or len(sites) > 1):
            # different collectives, or one collective called from different lines of the program
            add("rank_behind", 55, (waiting[0]["line"], "; ".join("%s waits in %s" % (
                d["who"], (d["user"] or d["collective"])[1]) for d in waiting[:3])), sure=True)
        elif len(waiting) >= 2:
            # every dumped process waits in the same collective: they all arrived, NCCL does not finish it
            d = waiting[0]
            add("rank_behind", -10)
            if multi:
                add("net_path", 10, (d["line"], "%d processes all wait in %s" % (len(waiting), d["collective"][1])))
                add("interface", 5)
            else:
                add("p2p", 20, (d["line"], "%d processes all wait in %s" % (len(waiting), d["collective"][1])))
        elif waiting:
            add("rank_behind", 5, (waiting[0]["line"], "%s waits in %s" % (waiting[0]["who"],
                                                                          waiting[0]["collective"][1])))


# ------------------------------------------------------------------ the answer

_STAGE_SAY = {
    "init": "before NCCL's init completed (its last line is bootstrap or network setup): the ranks did not all reach "
            "each other",
    "connect": "while NCCL connected its transports (its last line is channel or topology setup)",
    "ended": "after NCCL finished: its communicators were destroyed (or aborted), so what hangs is outside NCCL's "
             "collectives (the process's exit, another library's barrier, the data pipeline)",
    "after_init": "after NCCL's init completed ('Connected all rings' / 'Init COMPLETE'): in the first collective or "
                  "later",
    "pg_init": "inside init_process_group: torch's store-based barrier had not seen every rank (its last line)",
}


def judge(result, scan, kb):
    """Add the nccl-tests answer or the hang/slow triage to ``result`` where they apply; returns
    the root finding it added or annotated, else None."""
    by = kb.by_id
    st = scan.hang
    root = result["findings"][0] if result["findings"] else None
    open_ = result["verdict"] == "no_error" or (not result["findings"] and not result["errors"]) or (
        root is not None and root.get("from_info_lines") and root.get("confidence") != "cause")
    if not open_:
        return None
    what, sep = separate_jobs(st, nccl_tests=_nccl_tests_named(scan),
                              starts=[s["first_line"] for s in scan.sources[1:]])
    if sep and "nccltests.no_mpi" in by:
        return _set_root(result, _made(by["nccltests.no_mpi"], scan, sep, "cause", [
            "How sure: high for what ran: nccl-tests' own lines show separate one-process jobs (lines %d and %d %s; "
            "one MPI job prints one header listing every rank, src/common.cu). Whatever the bandwidth or the hang, "
            "these processes never talked to each other." % (sep[0][0], sep[1][0], what)]))
    if _complaint(scan) is None:
        return None
    ev = evidence(result, scan)
    w = ev["words"]
    if not (ev["info"] or ev["nccl_tests"] or scan.launchers or ev["topo"] or w["context"] or w["multi"] or w["ib"]
            or any(d["collective"] for d in ev["pyspy"]) or ev["sbb"]):
        return None  # "it hangs" with nothing that says a distributed job: not ours to answer
    ranked = rank(ev)
    if not ranked:
        return None
    top = ranked[0]
    sure = "medium" if top[3] and top[2] else "low"
    triage = [{"cause": k, "text": SHORT[k], "score": s, "entry": ENTRY_OF.get(k, "nccl.hang"),
               "evidence": [dict({"line": ln, "text": t}, **({"file": _file_of(scan, ln).strip()}
                                                               if len(scan.sources) > 1 else {})) for ln, t in lines],
               "tell_apart": _confirm(by, k)} for k, s, lines, _sp in ranked[:4]]
    said = "the text says the job %s (line %d: %s)" % ("is slow" if ev["slow"] else "hangs", ev["complaint"][0],
                                                       _clip(ev["complaint"][1], 120))
    where = ""
    if ev["last"]:
        where = " It stopped %s; %s %sline %d: %s." % (
            _STAGE_SAY[ev["stage"]], "the last NCCL line is" if ev["last"][2] is not None else (
                "torch's line is" if ev["stage"] == "pg_init" else "the text says so on"),
            _file_of(scan, ev["last"][0]), ev["last"][0], _clip(ev["last"][1], 160))
    head = "How sure: %s. %s.%s Likely causes from NCCL's troubleshooting guide and PyTorch's debugging docs, most " \
           "likely first, each with the command that tells it apart:" % (sure, said[0].upper() + said[1:], where)
    lines = [head] + ["%d. %s%s; tell apart: %s" % (
        i, t["text"], " (line %d: %s)" % (t["evidence"][0]["line"], _clip(t["evidence"][0]["text"], 120))
        if t["evidence"] else "", t["tell_apart"]) for i, t in enumerate(triage, 1)]
    if root is not None:  # ncclinfo's hedged answer from the INFO lines: keep it, unless the ranking names another cause
        want = ENTRY_OF.get(top[0])
        if not (sure == "medium" and want and want != root["id"] and want in by):
            # its own how-sure line stays the one: the ranking follows as what else to tell apart
            lines[0] = "Causes ranked from the whole text: " + lines[0].split(". ", 1)[1]
            root["notes"] = root["notes"] + lines
            root["triage"] = triage
            return root
    eid = ENTRY_OF.get(top[0]) if sure == "medium" else None
    e = by.get(eid) or by["nccl.hang"]
    if e["id"] == "nccl.hang":  # stopped at the process group's start with no NCCL line: its rendezvous (rootguard.py)
        from gpudoctor.explain import rootguard

        f = rootguard.hang_at_rendezvous(by, scan, ev, said, triage) or \
            rootguard.slow_dataparallel(by, scan, ev, said, triage)  # a slow nn.DataParallel run: its design
        if f is not None:
            return _set_root(result, f)
    shown = (top[2] or [ev["complaint"][:2]])
    if e["id"] == "nccl.hang":  # its causes below are the ranking, each with its evidence and confirm command
        lines = [head.replace(", each with the command that tells it apart:", " (each cause's confirm line tells it "
                                                                              "apart from the others).")]
    f = _made(e, scan, shown, "family" if sure == "medium" else "structural", lines)
    if e["id"] == "nccl.hang":
        _order_causes(f, ranked)
    f["triage"] = triage
    if root is not None and root["id"] == "nccl.info_only":  # "nothing clearly wrong": this answer replaces it
        result["findings"].remove(root)
    return _set_root(result, f)


_NCCL_TESTS = re.compile(r"\b(?:all_reduce|all_gather|alltoall|broadcast|reduce_scatter|reduce|sendrecv|scatter|gather|"
                         r"hypercube)_perf\b|nccl-tests", re.I)


def _nccl_tests_named(scan):
    """The text runs nccl-tests: its header, or a binary's name on a line of the user's."""
    st = scan.hang
    if st and (st["headers"] or st["ranks"] or st["avg"]):
        return True
    return any(_NCCL_TESTS.search(t) for tl in _tails(scan) for _ln, t in tl["user"])


def _file_of(scan, line):
    """'<file> ' of a line when several inputs were read (their lines are numbered as one sequence), else ''."""
    if len(scan.sources) < 2:
        return ""
    src = max((s for s in scan.sources if s["first_line"] < line), key=lambda s: s["first_line"], default=None)
    return "%s " % src["path"] if src else ""


def _confirm(by, cause):
    e = by.get("nccl.hang")
    if not e:
        return ""
    c = e["causes"][CAUSES.index(cause)]
    return c["confirm"][0] if c.get("confirm") else c["fix"][0]


def _order_causes(f, ranked):
    """nccl.hang's causes in the ranking's order, each with its evidence lines."""
    pos = {k: i for i, (k, _s, _l, _sp) in enumerate(ranked)}
    keyed = list(zip(CAUSES, f["causes"]))
    for k, c in keyed:
        lines = next((x[2] for x in ranked if x[0] == k), [])
        c["evidence"] = [{"line": ln, "text": t} for ln, t in lines]
    keyed.sort(key=lambda kc: pos.get(kc[0], len(CAUSES) + CAUSES.index(kc[0])))
    f["causes"] = [c for _k, c in keyed]


def _made(e, scan, shown, confidence, notes):
    from gpudoctor.explain.analyze import _finding as finding
    from gpudoctor.explain.ncclinfo import _Shown

    hits = [_Shown(ln, t) for ln, t in shown if ln is not None][:3] or [_Shown(1, "")]
    m = {"hits": hits, "count": len(hits), "rank": e["rank"], "score": e["rank"], "first": hits[0].line,
         "signal_hits": []}
    f = finding(e, m, "root", scan)
    f["confidence"] = confidence
    f["notes"] = list(notes) + f["notes"]
    f["from_info_lines"] = True
    return f


def _set_root(result, f):
    for g in result["findings"]:
        if g["role"] == "root":
            g["role"] = "related"
    result["findings"].insert(0, f)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    result["errors"], result["triage"] = [], []
    result["context"] = [n for n in result["context"] if n["id"] != f["id"]]
    return f
