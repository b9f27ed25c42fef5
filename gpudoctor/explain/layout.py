"""How the job was laid out, read from the lines the tools themselves print (issue 18).

Launcher misbehaviour often prints no error: both ranks on cuda:0, `python train.py` instead of
torchrun (world size 1 in a process that sees two GPUs), an accelerate config that runs on the CPU,
two processes that both claim global rank 0. The user then says it in words (symptoms.py); the log's
own lines are the stronger evidence. What is read (role "paste", entry _paste_layout: the prefilter finds
the needles, a log without them costs nothing more), each from the source that prints it:

- accelerate's state repr (src/accelerate/state.py, PartialState.__repr__ / AcceleratorState.__repr__:
  "Distributed environment: %s", "Num processes: %d", "Process index: %d", "Local process index: %d",
  "Device: %s"), and a script's print of `accelerator.distributed_type` ('DistributedType.NO ... device=cpu');
- transformers' example scripts (examples/pytorch/*/run_*.py: logger.warning(f"Process rank:
  {training_args.local_rank}, device: {training_args.device}, n_gpu: {training_args.n_gpu}, distributed
  training: ...")): n_gpu > 1 in a process that is not distributed is torch.nn.DataParallel
  (TrainingArguments._setup_devices / Trainer._wrap_model);
- DeepSpeed's per-node launcher (deepspeed/launcher/launch.py: "nnodes=%d, num_local_procs=%d,
  node_rank=%d", "dist_world_size=%d");
- Lightning (src/lightning/pytorch/trainer/setup.py _log_device_info: "GPU available: %s (%s), used: %s";
  src/lightning/fabric/utilities/distributed.py _init_dist_connection: "Initializing distributed:
  GLOBAL_RANK: %d, MEMBER: %d/%d");
- torchrun: a `--nproc-per-node N` anywhere in the text, its config dump's "nproc_per_node   : N"
  (torch/distributed/launcher/api.py launch_agent), its agent's "worker group successfully finished"
  (elastic/agent/server/api.py);
- a script's own prints of its rank, world size and device ('[rank 1/2] model on cuda:0', 'rank 0
  world_size 1 device cuda:0 (visible GPUs: 2)');
- nvidia-smi's GPU rows and process table (nvidia-smi(1): '|  GPU  GI  CI  PID  Type  Process name
  GPU Memory Usage |' rows: GPU index, PID, type, name, MiB).

Rules (judge): each answer reuses the knowledge entry of that failure (torch.ranks_share_gpu,
launcher.same_rank, accelerate.runs_on_cpu, launcher.single_process) with a first cause that quotes the
lines it was read from. A root only where the lines show it on their own (two ranks on one GPU of one
node; a process that says world size 1 and sees N GPUs; two processes that both claim global rank 0 of
the same world) or together with the user's complaint (a CPU device in a run the user calls slow);
otherwise a note. It never replaces an error line's answer: beside one, it is a note.
"""

import re

from gpudoctor.explain.knowledge import Pattern

ENTRY = "_paste_layout"  # role "paste": launchpaste.record hands these lines here
MAX_KEPT = 64  # lines kept per kind
MAX_BATCH = 256  # batch-size lines kept (the first ones: a caught OOM retried is read near them)
_CLAIMS = ("hf", "ds_world", "pl_init")
BLOCK = 8  # lines of one accelerate state repr (Distributed environment ... Device)

# class -> regex (case-insensitive, one line)
FACTS = {
    "acc_env": r"Distributed environment: (?:DistributedType\.)?(?P<v>[A-Z][A-Z_]{1,20})\b",
    "acc_nproc": r"^[ \t]{0,8}Num processes: (?P<v>\d{1,6})[ \t]{0,8}$",
    "acc_index": r"^[ \t]{0,8}Process index: (?P<v>\d{1,6})[ \t]{0,8}$",
    "acc_local": r"^[ \t]{0,8}Local process index: (?P<v>\d{1,6})[ \t]{0,8}$",
    "acc_device": r"^[ \t]{0,8}Device: (?P<v>cpu|mps|(?:cuda|xpu|npu)(?::\d{1,3})?)[ \t]{0,8}$",
    "acc_print": r"distributed_type[ \t]{0,2}[=:][ \t]{0,2}DistributedType\.(?P<v>[A-Z][A-Z_]{1,20})",
    "hf": r"Process rank: (?P<rank>-?\d{1,6}), device: (?P<dev>[\w:]{1,20}), n_gpu: (?P<ngpu>\d{1,4}),?[ \t]{0,2}"
          r"distributed training: (?P<dist>True|False)",
    "ds_nodes": r"nnodes=(?P<nn>\d{1,6}), num_local_procs=(?P<np>\d{1,6}), node_rank=(?P<nr>\d{1,6})",
    "ds_world": r"\bdist_world_size=(?P<v>\d{1,7})\b",
    "pl_gpu": r"GPU available: (?P<avail>True|False)(?: \((?P<kind>\w{1,10})\))?, used: (?P<used>True|False)",
    "pl_init": r"Initializing distributed: GLOBAL_RANK: (?P<rank>\d{1,7}), MEMBER: (?P<member>\d{1,7})/(?P<world>\d{1,7})",
    # the process group came up: torch's store-based barrier (distributed_c10d.py: "Rank {}: Completed store-based
    # barrier for key:{} with {} nodes."), Lightning (fabric/utilities/distributed.py: "All distributed processes
    # registered. Starting with %d processes"). NCCL's communicator (src/init.cc: "... - Init COMPLETE") is read from
    # the input's tail instead (_nccl_up): one such line per rank and communicator, a candidate each, cost the 100 MB
    # benchmark a third of its time again (ncclinfo.py SCANNED leaves them out for the same reason)
    "pg_up": r"Completed store-based barrier for key|All distributed processes registered\. Starting "
             r"with \d{1,7} processes",
    # torchrun's agent when its worker group ended well (torch/distributed/elastic/agent/server/api.py _invoke_run:
    # "[%s] worker group successfully finished. Waiting %s seconds for other agents to finish."; before 1.10
    # local_elastic_agent: "Local worker group finished (SUCCEEDED)")
    "agent_done": r"worker group successfully finished|Local worker group finished \(SUCCEEDED\)",
    # a launch line's option, or torchrun's own config dump (torch/distributed/launcher/api.py launch_agent, INFO:
    # "Starting elastic_operator with launch configs:" then "  nproc_per_node   : %(nproc_per_node)s")
    "nproc": r"--nproc[-_]per[-_]node[= ](?P<v>\d{1,4})\b|\bnproc_per_node[ \t]{1,30}:[ \t]{0,4}(?P<w>\d{1,4})\b",
    # a script's own print: a CUDA device or a world size (its rank, world size, device: _claim), or a batch size
    # ('trying batch_size=256', 'batch size of: 32': read beside a caught OOM, _retried); one pattern for the three,
    # so that a training log that prints them on every step line pays one candidate per line
    "print": r"\bcuda:\d{1,3}\b|\bworld[_ ]?size\b[ \t]{0,2}[:=]?[ \t]{0,2}\d{1,6}\b|"
             r"\bbatch[_ ]size\b[ \t]{0,2}(?:[:=]|of:?|to)?[ \t]{0,2}\d{1,7}\b",
    # nvidia-smi: a GPU row of the table ('|   0  NVIDIA H100 80GB HBM3 ...') and a process row
    "smi_gpu": r"^\|[ \t]{1,6}\d{1,2}[ \t]{1,6}(?:NVIDIA|Tesla|Quadro|GeForce)\b",
    "smi_proc": r"^\|[ \t]{1,8}(?P<idx>\d{1,2})[ \t]{1,8}(?:(?:N/A|\d{1,3})[ \t]{1,8}(?:N/A|\d{1,3})[ \t]{1,8})?"
                r"(?P<pid>\d{1,10})[ \t]{1,8}(?P<type>C\+G|C|G)[ \t]{1,8}(?P<name>\S{1,200})[ \t]{1,80}"
                r"(?P<mib>\d{1,7})MiB[ \t]{0,8}\|",
}
_NEEDLES = {"print": ["cuda:", "worldsize", "world_size", "batchsize", "batch_size"],
            "pg_up": ["completedstore-basedbarrier", "alldistributedprocessesregistered"],
            "smi_proc": ["mib|"], "smi_gpu": ["nvidia", "tesla", "quadro", "geforce"]}

# the parts of a script's own print (_claim): the global rank (not 'local rank'), 'rank 1/2' or 'rank 1 of 2',
# a world size, a local rank, the device, the GPUs the process sees
_RANK = re.compile(r"(?:\bglobal[_ ]|(?<![\w.]))(?<!local )(?<!local_)rank[ \t]{0,2}[:=#]?[ \t]{0,2}(\d{1,6})"
                   r"(?:[ \t]{0,2}(?:/|of)[ \t]{0,2}(\d{1,6}))?\b", re.I)
_WORLD = re.compile(r"\bworld[_ ]?size\b[ \t]{0,2}[:=]?[ \t]{0,2}(\d{1,6})\b", re.I)
_LOCAL = re.compile(r"\blocal[_ ]rank\b[ \t]{0,2}[:=]?[ \t]{0,2}(\d{1,6})\b", re.I)
_BATCH = re.compile(r"\bbatch[_ ]size\b[ \t]{0,2}(?:[:=]|of:?|to)?[ \t]{0,2}(\d{1,7})\b", re.I)
_DEV = re.compile(r"\bcuda:(\d{1,3})\b")
_SEES = re.compile(r"\b(?:visible (?:GPUs|devices)|device_count(?:\(\))?|n_gpus?|num_gpus|GPUs? (?:available|visible))"
                   r"[ \t]{0,2}[:=]?[ \t]{0,2}(\d{1,3})\b", re.I)
# what a program's error or log line is, never a script's layout print
_NOT_PRINT = re.compile(r"rror|xception|Traceback|NCCL (?:INFO|WARN)|^\s{0,8}File \"|Expected all tensors|warn", re.I)
# a prefix naming who printed the line: srun --label's '0: ', a host and pid ('node1:1234:1234 [0]'), torchrun's
# --tee / log prefixes ('[default0]:', '[rank1]:')
_WHO = re.compile(r"^\s{0,8}(?:(\d{1,5}):\s|\[(default\d{1,5}|rank\d{1,7})\]:|([A-Za-z][\w.-]{0,63}):(\d{1,10}):\d{1,10}\s)")


def patterns():
    return [Pattern(ENTRY, "paste", rx, 0, site={"class": cls, "id": "layout-" + cls}, needles=_NEEDLES.get(cls))
            for cls, rx in FACTS.items()]


class Layout(object):
    def __init__(self):
        self.claims = []  # dicts: line, src, who, rank, world, local, dev, sees, kind, text
        self.acc = []  # accelerate state blocks: dicts line, env, nproc, index, local, device, text
        self.pl_gpu = None  # (line, text, available, used)
        self.nproc = None  # (line, N, text) (launchctx reads it too)
        self.ds_nodes = []  # (line, nnodes, local procs, node rank)
        self.smi_gpus = set()
        self.smi_procs = []  # (line, gpu index, pid, name, MiB)
        self.smi_text = {}  # line -> the process row
        self.batch = []  # (line, batch size)
        self.pg_up = None  # (line, text) of the last line that says the process group came up
        self.agent_done = None  # (line, text) of torchrun's agent's last 'worker group successfully finished'


def _state(scan):
    st = getattr(scan, "layout", None)
    if st is None:
        st = scan.layout = Layout()
    return st


def _src(scan):
    return max(len(scan.sources) - 1, 0)


def record(scan, hit):
    """One line a pattern of FACTS matched (launchpaste.record hands it here: role "paste", entry _paste_layout)."""
    st = _state(scan)
    cls = hit.pattern.site["class"]
    if cls in _CLAIMS and len(st.claims) >= MAX_KEPT or cls == "print" and len(st.claims) >= MAX_KEPT and \
            len(st.batch) >= MAX_BATCH:
        return  # full: a long log of such lines costs the scan's match, nothing more
    text = hit.text
    if cls == "print":
        if len(st.claims) < MAX_KEPT and (_DEV.search(text) and _RANK.search(text) or _WORLD.search(text)):
            _claim(st, scan, hit)
        v = _BATCH.search(text) if len(st.batch) < MAX_BATCH else None
        if v:
            st.batch.append((hit.line, int(v.group(1))))
        return
    m = re.search(FACTS[cls], text.strip() if cls.startswith(("acc_", "smi_")) else text, re.I)
    if not m:
        return
    g = m.groupdict()
    ln = hit.line
    if cls == "acc_env":
        if len(st.acc) < MAX_KEPT:
            st.acc.append({"line": ln, "env": g["v"].upper(), "text": text[:200], "src": _src(scan)})
    elif cls in ("acc_nproc", "acc_index", "acc_local", "acc_device"):
        if st.acc and 0 < ln - st.acc[-1]["line"] <= BLOCK:
            st.acc[-1].setdefault(cls[4:], g["v"].lower() if cls == "acc_device" else int(g["v"]))
    elif cls == "acc_print":
        if len(st.acc) < MAX_KEPT:
            dev = re.search(r"\bdevice[ \t]{0,2}[=:][ \t]{0,2}(cpu|mps|cuda(?::\d{1,3})?)\b", text, re.I)
            n = re.search(r"\bnum_processes[ \t]{0,2}[=:][ \t]{0,2}(\d{1,6})\b", text, re.I)
            b = {"line": ln, "env": g["v"].upper(), "text": text[:200], "src": _src(scan)}
            if dev:
                b["device"] = dev.group(1).lower()
            if n:
                b["nproc"] = int(n.group(1))
            st.acc.append(b)
    elif cls == "hf":
        _add_claim(st, scan, hit, rank=None, local=int(g["rank"]), world=None, dev=g["dev"], kind="hf",
                   ngpu=int(g["ngpu"]), dist=g["dist"] == "True")
    elif cls == "ds_nodes":
        if len(st.ds_nodes) < MAX_KEPT:
            st.ds_nodes.append((ln, int(g["nn"]), int(g["np"]), int(g["nr"])))
    elif cls == "ds_world":
        _add_claim(st, scan, hit, rank=None, local=None, world=int(g["v"]), dev=None, kind="ds")
    elif cls == "pl_gpu":
        if st.pl_gpu is None:
            st.pl_gpu = (ln, text[:200], g["avail"] == "True", g["used"] == "True")
    elif cls == "pl_init":
        _add_claim(st, scan, hit, rank=int(g["rank"]), local=None, world=int(g["world"]), dev=None, kind="pl")
    elif cls == "pg_up":
        st.pg_up = (ln, text[:200])
    elif cls == "agent_done":
        st.agent_done = (ln, text[:200])
    elif cls == "nproc":
        if st.nproc is None:
            st.nproc = (ln, int(g["v"] or g["w"]), text.strip()[:300])
    elif cls == "smi_gpu":
        st.smi_gpus.add(int(text.strip()[1:].split()[0]))
    elif cls == "smi_proc":
        if len(st.smi_procs) < MAX_KEPT:
            st.smi_procs.append((ln, int(g["idx"]), g["pid"], g["name"], int(g["mib"])))
            st.smi_text[ln] = text.strip()[:200]


def _who(scan, text):
    m = _WHO.match(text)
    who = None
    if m:
        who = m.group(1) or m.group(2) or ("%s:%s" % (m.group(3), m.group(4)) if m.group(3) else None)
    return (_src(scan), who)


def _add_claim(st, scan, hit, **kw):
    if len(st.claims) >= MAX_KEPT:
        return
    d = {"line": hit.line, "who": _who(scan, hit.text), "text": hit.text[:300], "sees": None}
    d.update(kw)
    st.claims.append(d)


def _claim(st, scan, hit):
    """A script's own print of its rank / world size / device."""
    text = hit.text[:600]
    if _NOT_PRINT.search(text):
        return
    r, w, lo, dv, s = _RANK.search(text), _WORLD.search(text), _LOCAL.search(text), _DEV.search(text), _SEES.search(text)
    rank = int(r.group(1)) if r else None
    world = int(w.group(1)) if w else (int(r.group(2)) if r and r.group(2) else None)
    if rank is None and world is None:
        return
    if rank is not None and world is not None and rank >= world:
        return  # not a rank of that world: another number
    if st.claims and st.claims[-1]["line"] == hit.line:
        return
    _add_claim(st, scan, hit, rank=rank, world=world, local=int(lo.group(1)) if lo else None,
               dev=("cuda:" + dv.group(1)) if dv else None, kind="print")
    st.claims[-1]["sees"] = int(s.group(1)) if s else None


# ------------------------------------------------------------------ what the lines show

class Found(object):
    # texts: the text of each of lines, in their order (the finding's evidence: _finding pairs them)
    def __init__(self, eid, what, lines, fix, root, texts):
        self.eid, self.what, self.lines, self.fix, self.root, self.texts = eid, what, lines, fix, root, texts


def _gpus_seen(st):
    """(N, line, why) of the GPUs the text shows the machine has, or (0, None, None)."""
    best = (0, None, None)
    for c in st.claims:
        n = c.get("sees") or (c.get("ngpu") if c["kind"] == "hf" else None)
        if n and n > best[0]:
            best = (n, c["line"], c["text"])
    if len(st.smi_gpus) > best[0]:
        best = (len(st.smi_gpus), None, "nvidia-smi lists %d GPUs" % len(st.smi_gpus))
    return best


def _one_node(st, ranks):
    """Why the ranks named run on one node (torchrun's --nproc-per-node or its config dump's nproc_per_node covers
    them, DeepSpeed's launcher says one node), else None."""
    top = max(ranks) + 1
    if st.nproc and st.nproc[1] >= top:
        # (torchrun gives each node's workers consecutive global ranks: those under nproc_per_node are one node's)
        return "--nproc-per-node %d (line %d) puts ranks 0-%d on one node" % (st.nproc[1], st.nproc[0], st.nproc[1] - 1)
    for ln, nn, np_, _nr in st.ds_nodes:
        if nn == 1 and np_ >= top:
            return "DeepSpeed's launcher says nnodes=1, num_local_procs=%d (line %d)" % (np_, ln)
    return None


def _share_gpu(st, out, notes):
    by_dev = {}
    for c in st.claims:
        if c["kind"] == "print" and c.get("dev") and c.get("rank") is not None and (c.get("world") or 0) > 1:
            by_dev.setdefault(c["dev"], {}).setdefault(c["rank"], c)
    for dev, ranks in sorted(by_dev.items()):
        if len(ranks) < 2:
            continue
        cs = [ranks[r] for r in sorted(ranks)][:4]
        said = "ranks %s of %d each print %s (%s)" % (
            ", ".join(str(c["rank"]) for c in cs), cs[0]["world"], dev,
            "; ".join("line %d: %s" % (c["line"], c["text"].strip()[:80]) for c in cs[:2]))
        one = _one_node(st, list(ranks))
        smi = _smi_shared(st)
        why = one or (smi and smi[0])
        fix = ("local_rank = int(os.environ['LOCAL_RANK']); torch.cuda.set_device(local_rank) before the model is "
               "built; model.to(local_rank); DDP(model, device_ids=[local_rank])")
        if why:
            out.append(Found("torch.ranks_share_gpu", "%s, and %s: the ranks share one GPU" % (said, why),
                             [c["line"] for c in cs] + ([smi[1]] if smi and not one else []), fix, True,
                             [c["text"] for c in cs] + ([st.smi_text.get(smi[1], "")] if smi and not one else [])))
        else:
            notes.append((cs[0]["line"], "%s: on one node that is every rank on one GPU (set the device from "
                          "LOCAL_RANK); on several nodes, or with one GPU visible per process (Slurm "
                          "--gpus-per-task, Ray), it is right" % said, fix))
        return


def _smi_shared(st):
    """nvidia-smi's process table: two or more python processes on one GPU while another GPU has none."""
    per = {}
    for ln, idx, pid, name, mib in st.smi_procs:
        if "python" in name.lower() or "torchrun" in name.lower():
            per.setdefault(idx, {})[pid] = ln
    if not per or not st.smi_gpus:
        return None
    idle = sorted(st.smi_gpus - set(per))
    crowded = [(i, p) for i, p in sorted(per.items()) if len(p) >= 2]
    if crowded and idle:
        i, pids = crowded[0]
        return ("nvidia-smi lists %d python processes on GPU %d and none on GPU %s" % (
            len(pids), i, ", ".join(str(x) for x in idle[:4])), min(pids.values()))
    return None


def _gpu0_extra(st, out, notes):
    """nvidia-smi's process table: compute processes that hold a small share on GPU 0 and their main memory on
    another GPU (the same PID on both rows): each rank made a CUDA context on GPU 0 before choosing its own device."""
    per = {}
    for ln, idx, pid, name, mib in st.smi_procs:
        per.setdefault(pid, {})[idx] = (mib, ln, name)
    extra = []
    for pid, gpus in sorted(per.items()):
        if 0 in gpus and len(gpus) >= 2:
            own = max((m, i) for i, (m, _l, _n) in gpus.items() if i != 0)
            if own[0] >= 2 * max(gpus[0][0], 1):
                extra.append((pid, gpus[0][0], own[1], own[0], gpus[0][1]))
    if len(extra) < 2:
        return
    said = "; ".join("PID %s: %d MiB on GPU 0, %d MiB on GPU %d" % (p, m0, m, i) for p, m0, i, m, _l in extra[:3])
    out.append(Found("torch.gpu0_extra_memory", "nvidia-smi lists %d processes that each hold memory on GPU 0 besides "
                     "their own GPU (%s)" % (len(extra), said), [e[4] for e in extra[:4]],
                     "local_rank = int(os.environ['LOCAL_RANK']); torch.cuda.set_device(local_rank) as the first CUDA "
                     "call of each process (before the model, torch.load and init_process_group); torch.load(..., "
                     "map_location='cpu')", True, [st.smi_text.get(e[4], "") for e in extra[:4]]))


def _single_process(st, out, notes, complaint):
    n, nline, ntext = _gpus_seen(st)
    alone = {}
    for c in st.claims:
        if c["kind"] == "print" and c.get("world") == 1:
            alone.setdefault(c["who"], c)  # (input, prefix): a process of its own
        elif c["kind"] == "pl" and c.get("world") == 1:
            alone.setdefault(("pl", c["line"]), c)  # Lightning prints its init line once per process
    if len(alone) >= 2:
        cs = sorted(alone.values(), key=lambda c: c["line"])[:4]
        out.append(Found("launcher.single_process", "%d processes (%s) each say world size 1: each runs alone, none "
                         "was told the others' rank (lines %s)" % (
                             len(alone), ", ".join("line %d" % c["line"] if c["kind"] == "pl" else
                                                   str(c["who"][1] or "file %d" % (c["who"][0] + 1)) for c in cs),
                             ", ".join(str(c["line"]) for c in cs)), [c["line"] for c in cs],
                         "start them with a launcher that sets RANK / WORLD_SIZE / LOCAL_RANK: torchrun --nnodes <N> "
                         "--nproc-per-node <GPUs> --rdzv-backend c10d --rdzv-endpoint <first node>:29500 train.py on "
                         "every node; under srun, read SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID in the script",
                         True, [c["text"] for c in cs]))
        return
    for c in st.claims:
        if c["kind"] == "print" and c.get("world") == 1 and n >= 2:
            out.append(Found("launcher.single_process", "the script says world size 1 (line %d: %s) and the "
                             "process sees %d GPUs (%s)" % (c["line"], c["text"].strip()[:100], n, ntext.strip()[:100]
                                                          if nline is None or nline != c["line"] else "same line"),
                             [c["line"]] + ([nline] if nline and nline != c["line"] else []),
                             "torchrun --nproc-per-node %d train.py (or accelerate launch --multi_gpu --num_processes "
                             "%d): plain `python train.py` starts one process, which uses one GPU" % (n, n), True,
                             [c["text"]] + ([ntext] if nline and nline != c["line"] else [])))
            return
        if c["kind"] == "hf" and not c["dist"] and (c.get("ngpu") or 0) >= 2:
            f = Found("launcher.single_process", "transformers' 'n_gpu: %d, distributed training: False' (line %d): "
                      "one process drives %d GPUs through torch.nn.DataParallel (the Trainer wraps the model in it "
                      "when n_gpu > 1 without a distributed launch)" % (c["ngpu"], c["line"], c["ngpu"]), [c["line"]],
                      "torchrun --nproc-per-node %d run_script.py ... (or accelerate launch --multi_gpu "
                      "--num_processes %d): one process per GPU, DistributedDataParallel" % (c["ngpu"], c["ngpu"]),
                      complaint is not None, [c["text"]])
            (out.append(f) if f.root else notes.append((c["line"], f.what, f.fix)))
            return
    for b in st.acc:
        if b.get("env") == "NO" and n >= 2 and (b.get("device") or "").startswith("cuda"):
            f = Found("launcher.single_process", "accelerate's state says 'Distributed environment: NO' (line %d) "
                      "on a machine where %s" % (b["line"], ntext.strip()[:100]), [b["line"]] + ([nline] if nline else []),
                      "accelerate launch --multi_gpu --num_processes %d train.py (or `accelerate config`: "
                      "distributed_type MULTI_GPU, num_processes %d)" % (n, n), complaint is not None,
                      [b["text"]] + ([ntext] if nline else []))
            (out.append(f) if f.root else notes.append((b["line"], f.what, f.fix)))
            return


def _on_cpu(st, out, notes, complaint):
    n, nline, ntext = _gpus_seen(st)
    for b in st.acc:
        if b.get("device") != "cpu":
            continue
        gpu = ntext if n else (st.pl_gpu and st.pl_gpu[2] and st.pl_gpu[1]) or None
        what = "accelerate's state says Device: cpu (line %d: %s)" % (b["line"], b["text"].strip()[:100])
        fix = ("use_cpu: false in the accelerate config (`accelerate config`, or edit "
               "~/.cache/huggingface/accelerate/default_config.yaml: distributed_type: MULTI_GPU, num_processes: <GPUs>), "
               "or launch without --cpu; `accelerate env` shows the config in use")
        if gpu or complaint:
            out.append(Found("accelerate.runs_on_cpu", what + (" while %s" % gpu.strip()[:100] if gpu else
                                                              ", and the text says the run is slow (line %d)" % complaint[0]),
                             [b["line"]] + ([complaint[0]] if complaint and not gpu else []), fix, True,
                             [b["text"]] + ([complaint[1]] if complaint and not gpu else [])))
        else:
            notes.append((b["line"], what + ": if this machine has GPUs, accelerate was told to use the CPU", fix))
        return
    if st.pl_gpu and st.pl_gpu[2] and not st.pl_gpu[3]:
        ln, text = st.pl_gpu[0], st.pl_gpu[1]
        out.append(Found("accelerate.runs_on_cpu", "Lightning says a GPU is available but not used (line %d: %s)"
                         % (ln, text.strip()[:100]), [ln],
                         "Trainer(accelerator='gpu', devices=<GPUs>) (or accelerator='auto'): Lightning's Trainer runs "
                         "on the CPU when accelerator='cpu' is given", complaint is not None, [text]))
        if not out[-1].root:
            f = out.pop()
            notes.append((ln, f.what, f.fix))


def _same_rank(st, out, notes):
    """Two processes of one world that both claim the same global rank (Lightning's init line, a script's print from
    two sources or prefixes)."""
    seen = {}
    for c in st.claims:
        if c.get("rank") is None or (c.get("world") or 0) < 2 or c["kind"] not in ("pl", "print"):
            continue
        key = (c["rank"], c["world"])
        lst = seen.setdefault(key, [])
        if c["kind"] == "pl" or all(o["who"] != c["who"] for o in lst):
            lst.append(c)
    for (rank, world), cs in sorted(seen.items()):
        distinct = len({c["who"] for c in cs}) >= 2 if cs and cs[0]["kind"] == "print" else len(cs) >= 2
        if len(cs) < 2 or not distinct:
            continue
        others = {r for (r, w) in seen if w == world}
        if cs[0]["kind"] == "print" and len(others) >= world:
            continue  # every rank of the world printed too: a print repeated, not two processes of one rank
        out.append(Found("launcher.same_rank", "%d processes each claim global rank %d of a world of %d (lines %s)"
                         % (len(cs), rank, world, ", ".join(str(c["line"]) for c in cs[:4])),
                         [c["line"] for c in cs[:4]],
                         "give each node its own rank: torchrun --node-rank $SLURM_NODEID (inside srun bash -c '...'), "
                         "or --rdzv-backend c10d --rdzv-endpoint <first node>:29500 (node ranks assigned at the "
                         "rendezvous); accelerate: machine_rank per machine; Lightning: start each task with srun so it "
                         "reads SLURM_PROCID", True, [c["text"] for c in cs[:4]]))
        return


def read(scan, complaint=None):
    """(findings [Found], notes [(line, text, fix)]) of what the layout lines show."""
    st = getattr(scan, "layout", None)
    out, notes = [], []
    if st is None:
        return out, notes
    _share_gpu(st, out, notes)
    _gpu0_extra(st, out, notes)
    _same_rank(st, out, notes)
    _single_process(st, out, notes, complaint)
    _on_cpu(st, out, notes, complaint)
    return out, notes


# ------------------------------------------------------------------ into the answer

# the OOM entries whose error a script may catch and retry with a smaller batch: accelerate's
# find_executable_batch_size (src/accelerate/utils/memory.py: on should_reduce_batch_size(e), the CUDA / XPU / cuDNN /
# CPU allocator out-of-memory messages, it frees the cache, halves batch_size and calls the function again; the
# Trainer's auto_find_batch_size runs its training loop under it) and scripts that do the same by hand
_RETRIED = ("cuda.oom",)


def _retried(result, scan):
    """(line, text) of the line after the last out-of-memory error that names a smaller batch size than the one
    that failed, when every finding is such an OOM, every error line of the text is at or before the last OOM
    line and nothing after it failed (no traceback, no error line); else None. One process only: several ranks'
    lines or files say nothing of each other."""
    st = getattr(scan, "layout", None)
    findings = result["findings"]
    if st is None or not st.batch or not findings or getattr(scan, "several", False) or len(scan.sources) > 1:
        return None
    if any(f["id"] not in _RETRIED and f.get("family") not in _RETRIED for f in findings):
        return None
    lines = [h["line"] for f in findings for h in f["matches"]]
    last = max(lines)
    if scan.error_count > len(scan.error_lines) or any(ln > last for ln in scan.error_lines) or scan.tracebacks and \
            any(t["line"] > last for t in scan.tracebacks):
        return None
    failed = [b for ln, b in st.batch if last - 2 <= ln <= last]
    if not failed:
        return None
    later = [(ln, b) for ln, b in st.batch if ln > last and b < min(failed)]
    if not later:
        return None
    return later[-1][0], "batch size %d after the out-of-memory error at batch size %d" % (later[-1][1], min(failed))


def _finished_later(result, scan):
    """(line, text) of torchrun's agent saying its worker group finished well, when it comes after every line of
    every finding and every error line of a one-input text: the errors were an attempt the agent restarted
    (--max-restarts) or a failure the program went on after; else None."""
    st = getattr(scan, "layout", None)
    findings = result["findings"]
    if st is None or st.agent_done is None or not findings or len(scan.sources) > 1:
        return None
    done = st.agent_done[0]
    lines = [h["line"] for f in findings for h in f["matches"]] + list(scan.error_lines)
    if scan.error_count > len(scan.error_lines) or any(ln >= done for ln in lines):
        return None
    return st.agent_done


# c10d's client retries a refused or timed-out connect to the store until its deadline, warning on each attempt
# (torch/csrc/distributed/c10d/socket.cpp SocketConnectOp::tryConnect: "The client socket has failed to connect to
# [%s]:%d (errno: ...)" as C10D_WARNING, then it sleeps its backoff and tries again): ranks that start before the
# store is up print them and go on
_CONNECT = ("rendezvous.connect",)


def _connected_later(result, scan):
    """(line, text) of a line saying the process group came up (NCCL's Init COMPLETE, torch's store-based barrier
    completed, Lightning's 'All distributed processes registered') after every line of the findings, when every
    finding is a store connect warned at WARN level (retried) and no error line comes after it; else None."""
    st = getattr(scan, "layout", None)
    findings = result["findings"]
    if not findings:
        return None
    if any(f["id"] not in _CONNECT or any(m["severity"] != "warn" for m in f["matches"]) for f in findings):
        return None
    got = max([x for x in (st and st.pg_up, _nccl_up(scan)) if x], default=None)
    if got is None:
        return None
    up = got[0]
    lines = [h["line"] for f in findings for h in f["matches"]] + list(scan.error_lines)
    if scan.error_count > len(scan.error_lines) or any(ln >= up for ln in lines):
        return None
    return got


def _nccl_up(scan):
    """(line, text) of the last NCCL INFO line of a one-input text when it says NCCL's communicator came up (its
    stage, hang.py _STAGES: 'Init COMPLETE', 'Connected all rings', ... or a destroy after them), else None."""
    if len(scan.sources) != 1:
        return None
    from gpudoctor.explain.hang import _tails

    for t in _tails(scan):
        if t.get("last") and t.get("stage") in ("after_init", "ended"):
            return t["last"][0], t["last"][1][:200]
    return None


def judge(result, scan, kb):
    """Add what the layout lines show: the root when nothing surer answered (or only the hang triage's family
    answer did), else notes beside the answer. Returns the root finding it added, else None."""
    if getattr(scan, "layout", None) is None:
        if _connected_later(result, scan) is None:  # (NCCL's Init COMPLETE is read from the tail: _nccl_up)
            return None
        _state(scan)
    done = _retried(result, scan) or _finished_later(result, scan) or _connected_later(result, scan)
    if done is not None:
        # a caught OOM the script retried with a smaller batch, which then ran: it went on (analyze._went_on_before)
        from gpudoctor.explain.analyze import _went_on_before

        result["context"].extend(_went_on_before(f, done) for f in result["findings"])
        result["findings"] = []
        result["verdict"], result["matched"], result["root"] = "no_error", False, None
        result["errors"], result["triage"] = [], []
        return None
    from gpudoctor.explain.hang import _complaint

    complaint = _complaint(scan)
    found, notes = read(scan, complaint)
    findings = result["findings"]
    root = findings[0] if findings else None
    triage = root is not None and root["id"] == "nccl.hang" and root.get("confidence") != "cause"
    open_ = root is None or triage
    made = None
    for x in found:
        if x.eid not in kb.by_id:
            continue
        if open_ and x.root and made is None:
            made = _finding(kb.by_id[x.eid], x, scan)
            continue
        notes.append((x.lines[0], x.what, x.fix))
    for ln, text, fix in notes[:4]:
        result["context"].append({"id": "layout", "severity": "warning", "note": "Read from the job's own lines: %s."
                                  % text, "fix": fix, "first_line": ln, "text": None, "match_count": 1})
    if made is None:
        return None
    if triage:
        root["role"] = "related"
    findings.insert(0, made)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, made["id"]
    result["triage"] = []
    return made


def _finding(e, x, scan):
    from gpudoctor.explain.launchpaste import lines_finding
    from gpudoctor.explain.scan import Hit

    hits = [Hit(ln, t.strip()[:400], None, {}, None) for ln, t in zip(x.lines, x.texts)]
    return lines_finding(e, hits, "root", scan, "Read from the job's own lines: %s." % x.what, x.fix,
                         "How sure: medium. Read from the lines the job printed about its own layout (rank, world "
                         "size, device), not from an error line.")
