"""Failures told in words: what a user writes instead of an error line ("DeepSpeed ignores
CUDA_VISIBLE_DEVICES", "both ranks end up on GPU 0", "torch.cuda.is_available() is False inside
srun", "NCCL falls back to sockets"), answered from the projects' own docs (issue 18).

The symptoms are knowledge entries (gpudoctor/data/knowledge/symptoms.toml, `structural = true`,
no patterns of their own) with a `words` list: each item is one way of saying it, a list of
concepts (regexes) that must all occur on one line of the user's, in any order. `<name>` in a
concept is one of MACROS below (the tolerant spellings: "GPU 0" / "cuda:0" / "device 0",
"node" / "machine" / "host", "ignores" / "doesn't respect" / "has no effect"). Each way becomes
one scan pattern (entry "_words.<id>", read here, never by analyze): lookaheads for the
concepts, so word order does not matter, bounded to SPAN characters of the line (linear time),
with the prefilter needles of its rarest concept (the anchor: every match holds one of them).

judge() runs last among the answers (after hang.judge):
- the text holds an error line explain answered, or the NCCL INFO lines or a known NCCL bug gave
  an answer: that stays the root, the words become a context note ("your words describe ...");
  the hang triage's family answer (nccl.hang) gives way to the symptom and follows it;
- otherwise the symptom is the root: its causes are those the docs list, each with the command
  that tells it apart; a line elsewhere in the text that a cause's `evidence` names (a launch
  flag, a variable, the launcher's own warning) moves that cause first and says so. How sure:
  low from words alone when several causes fit (the answer names the family and how to tell
  the causes apart, never one cause), medium when the text's own lines point at the cause or
  the docs give one cause.
Only the user's lines count: no INFO/WARN line of a logger, no NCCL line, no traceback frame,
no KEY=VALUE dump (a healthy log's "CUDA_VISIBLE_DEVICES=0,1" is not a complaint).
"""

import re

from gpudoctor.explain.knowledge import KnowledgeError, Pattern, _needles_memo, squash
from gpudoctor.explain.text import GLOG_HEAD_NC

PREFIX = "_words."
SPAN = 600  # characters of one line the concepts of a way are looked for in
MIN_ANCHOR = 4  # the shortest needle an anchor concept may have (squashed)
MAX_NOTES = 3  # context notes (and related findings) for symptoms beyond the first
# needles too common in logs to anchor a way on (every line of a DDP log says rank, cuda, node)
_COMMON = {b"rank", b"info", b"warn", b"nccl", b"cuda", b"node", b"host", b"gpus", b"error", b"torch", b"train",
           b"model", b"step", b"time", b"data", b"loss", b"device", b"process", b"using", b"with", b"from", b"open",
           b"after", b"used", b"over", b"then", b"some", b"note", b"world", b"size", b"only"}
# names that logs print on many lines of their own (a tool's name in its log prefix, a path, a config dump): a
# concept of them anchors a way only when no phrase of the way can
_NAMES = {b"deepspeed", b"accelerat", b"accelerate", b"docker", b"container", b"localhost", b"127.0.0.1", b"memory",
          b"mpirun", b"mpiexec", b"srun", b"slurm", b"sbatch", b"salloc", b"trainer", b"transformers", b"huggingface",
          b"launcher", b"torchrun", b"torch.distributed", b"hydra", b"openmpi",
          b"orterun", b"horovod", b"mpi4py", b"podman", b"kubernetes", b"compose", b"enroot", b"pyxis", b"apptainer",
          b"singularity", b"k8s", b"/dev/shm", b"world_size", b"worldsize"}
# three-letter tokens rare enough in logs to anchor on (the names users write them by)
_RARE3 = {b"gdr", b"p2p", b"shm", b"k8s", b"hca", b"tcp"}


class Phrases:
    """Word sequences (each part one of its words, "" = the part may be left out): a factored regex
    that stays fast on a long line, and the needles every match holds: the words of the run of
    parts that cannot be left out whose shortest needle is longest, joined as the prefilter squashes
    them ('second node is idle' -> 'nodeisidle')."""

    def __init__(self, *parts):
        self.parts = [tuple(p) for p in parts]
        out = []
        for part in self.parts:
            words = [w for w in part if w]
            group = "(?:%s)" % "|".join(re.escape(w).replace("\\ ", " ") for w in words)
            out.append(("(?:%s )?" % group) if "" in part else group + " ")
        if "" in self.parts[-1]:
            raise ValueError("the last part of a phrase may not be optional")
        self.regex = "\\b" + "".join(out).rstrip(" ")
        # the needles: every whole sequence (an optional part left out is one choice), or the words of a run of
        # parts that cannot be left out; the fewest needles of 5+ characters (each needle is a branch of the
        # prefilter every log line goes through), else the longest shortest needle
        options = []
        full = {b""}
        for part in self.parts:
            full = {x + squash(w) for x in full for w in part}
            if len(full) > 4000:
                break
        if len(full) <= 4000:
            options.append(full)
        n = len(self.parts)
        for a in range(n):
            # (a run of one part of several is single words: 'worker' of 'worker node is idle' is in every
            # DataLoader warning)
            for b in range(a + (2 if n > 1 else 1), n + 1):
                if any("" in self.parts[k] for k in range(a, b)):
                    break
                got = {b""}
                for k in range(a, b):
                    got = {x + squash(w) for x in got for w in self.parts[k]}
                if len(got) <= 4000:
                    options.append(got)

        def score(got):
            short = min(len(x) for x in got)
            return (1, -len(got)) if short >= 5 else (0, short, -len(got))

        self.needles = sorted(max(options, key=score))

    def __or__(self, other):
        u = Phrases.__new__(Phrases)
        u.parts = None
        u.regex = "(?:%s|%s)" % (self.regex, other.regex)
        u.needles = sorted(set(self.needles) | set(other.needles))
        return u


def _alt(*phrases):
    """A group of literal phrases: each is a needle of its own (squashed: its words run together)."""
    return Phrases(phrases)


NEG = ("not", "never", "doesn't", "does not", "didn't", "did not", "don't", "do not", "isn't", "is not", "aren't",
       "are not", "won't", "not being", "no longer", "isn't being", "is not being", "aren't being", "are not being",
       "wasn't", "was not", "weren't", "were not", "can't", "cannot", "fails to", "failed to")


MACROS = {
    # GPU 0 however it is written (CUDA's and torch's names, nvidia-smi's, the user's)
    "gpu0": r"(?:\b(?:gpu|cuda|device|card|gpu\s?id|gpu\s?number)\s?[:#_]?\s?0\b|\bfirst\s(?:gpu|device|card)\b)",
    "same_gpu": _alt("same gpu", "same device", "same cuda device", "same card"),
    # "one GPU" only with several processes ('each process uses one GPU' is how it should be)
    "one_gpu": Phrases(("on", "share", "shares", "sharing", "shared", "use", "using", "run on", "running on",
                        "end up on", "ended up on", "land on"), ("one", "a single", "1"), ("gpu", "device", "card")),
    "node": r"\b(?:nodes?|machines?|hosts?|servers?)\b",
    "two_nodes": r"(?:\b(?:multi|inter|cross)[- ]?nodes?\b|\b(?:two|2|second|both|other|multiple|several|all|each|every|"
                 r"additional|another|more|extra)\s(?:\w{1,12}\s)?<node>|\bacross\s(?:the\s)?<node>)",
    "ignores": _alt("ignore", "ignores", "ignored", "ignoring", "disregards", "disregarded", "has no effect",
                    "have no effect", "no effect", "overrides", "overridden", "overriding", "overwrites",
                    "overwritten", "overwriting", "reset", "resets", "is reset", "gets reset") |
               Phrases(NEG, ("respect", "respected", "respecting", "honor", "honored", "honour", "honoured", "obey",
                             "obeyed", "work", "working", "take effect", "taking effect", "picked up", "used",
                             "applied", "apply")),
    "all_gpus": r"(?:\ball\s(?:of\s)?(?:the\s|my\s|\d{1,3}\s|available\s|visible\s)?(?:gpus|devices|cards)\b|"
                r"\bevery\s(?:gpu|device|card)\b|\ball\s\d{1,3}\sgpus\b)",
    "uses": r"\b(?:uses?|using|used|runs? on|running on|ran on|launch(?:es|ed)?(?: on)?|starts?(?: on)?|occup\w{1,4}|"
            r"allocat\w{1,6}(?: on)?|grabs?|takes?|spawns?(?: on)?|sees?|shows?)\b",
    "ranks_all": _alt("all ranks", "both ranks", "every rank", "each rank", "all the ranks", "all of the ranks",
                      "all processes", "both processes", "every process", "each process", "all the processes",
                      "all of the processes", "all my processes", "all workers", "both workers", "every worker",
                      "all procs", "all gpus processes", "the processes all", "the ranks all", "all tasks",
                      "every task", "each task", "both tasks", "all the tasks", "multiple processes",
                      "two processes", "2 processes", "several processes", "all subprocesses", "all copies"),
    "ranks_many": _alt("all ranks", "both ranks", "all the ranks", "all of the ranks", "all processes",
                       "both processes", "all the processes", "all of the processes", "all my processes", "all workers",
                       "both workers", "all procs", "all tasks", "both tasks", "all the tasks", "multiple processes",
                       "two processes", "2 processes", "several processes", "multiple ranks", "two ranks", "2 ranks",
                       "several ranks", "all subprocesses", "all copies"),
    "env": r"(?:\benv(?:ironment)?(?:\s?(?:var(?:iable)?s?|settings?))?\b|\bNCCL_[A-Z_]{2,40}|\bLD_LIBRARY_PATH\b|"
           r"\b(?:PATH|PYTHONPATH|HF_HOME|CUDA_HOME)\b|\bconda env\w{0,9}|\bexport(?:s|ed)?\b|\bvirtualenv\b|\bvenv\b)",
    "notpassed": Phrases(NEG, ("passed", "propagated", "forwarded", "exported", "inherited", "carried over", "carried",
                               "set", "visible", "available", "seen", "picked up", "applied", "copied", "sent",
                               "transferred", "pass", "propagate", "forward", "export", "inherit", "carry", "copy",
                               "send", "transfer", "get", "see", "keep")) |
                 _alt("lost on", "missing on", "unset on", "empty on", "not on the", "only on the first",
                      "only on the local", "only on the master", "only on the launching"),
    "not_used": Phrases(NEG, ("used", "using", "enabled", "active", "working", "detected", "picked", "selected",
                              "supported", "available", "loaded", "utilized", "utilised")) |
                _alt("unused", "disabled", "not in use", "never kicks in", "is off", "turned off", "doesn't work",
                     "does not work", "didn't work", "did not work"),
    "nogpu": r"(?:\b(?:no|zero|0)\s(?:gpus?|cuda devices?|cuda-capable devices?|visible devices?|nvidia devices?)\b|"
             r"\bgpus?\s(?:is\s|are\s)?(?:not|n't)\s(?:visible|detected|found|available|accessible|recogni[sz]ed|"
             r"seen|there)\b|" +
             (Phrases(NEG, ("see", "find", "detect", "access", "recognize", "recognise", "use")) |
              _alt("cannot see", "can't see", "can not see", "cannot find", "can't find", "cannot detect",
                   "can't detect", "unable to see", "unable to find", "unable to detect", "fails to see",
                   "fails to detect", "couldn't see", "could not see", "could not find", "couldn't find")).regex +
             r"\s(?:any\s|the\s|my\s|a\s)?(?:gpus?|cuda|nvidia|devices?|cards?)\b|"
             r"nvidia-smi:?\s(?:command\s)?not\sfound|\bis_available\(?\)?\s(?:is\s|returns?\s|returned\s|=\s?|==\s?|"
             r"gives\s|shows\s|prints\s|says\s)?false\b|device_count\(?\)?\s(?:is\s|returns?\s|returned\s|=\s?|==\s?)?0\b)",
    "only_one_node": Phrases(("only", "just"), ("", "uses", "using", "runs on", "running on", "ran on", "on", "trains on",
                                               "training on", "starts on", "started on", "launches on", "launched on",
                                               "works on", "sees"),
                             ("", "the"), ("one", "1", "first", "a single", "single", "local", "master", "main", "head",
                                           "launching"), ("node", "machine", "host", "server")) |
                     Phrases(("second", "other", "remaining", "remote", "worker"),
                             ("node", "nodes", "machine", "machines", "host", "hosts", "server"),
                             ("is idle", "are idle", "stays idle", "stay idle", "sits idle", "remains idle", "is unused",
                              "are unused", "is not used", "are not used", "is never used", "does nothing",
                              "do nothing", "is doing nothing", "are doing nothing", "has no processes",
                              "have no processes", "never starts", "never start", "is empty", "at 0%", "shows 0%",
                              "has 0% utilization")) |
                     _alt("single node only", "single machine only"),
}
_VERB_USE = ("uses", "use", "using", "used", "chooses", "chose", "picks", "picked", "selects", "selected",
             "goes over", "went over", "goes through", "went through", "switches to", "switched to", "runs over",
             "runs on", "is on", "is using", "binds to", "bound to")
MACROS.update({
    "uses_sockets": Phrases(_VERB_USE, ("tcp", "sockets", "socket", "net/socket", "ethernet", "the socket transport",
                                        "tcp/ip")),
    "wrong_iface": Phrases(("wrong", "another", "different", "incorrect", "unexpected", "virtual", "bad", "the wrong",
                            "a different"),
                           ("interface", "network interface", "nic", "network card", "network adapter", "ip address",
                            "ip", "subnet", "ethernet", "network", "port", "netdev")),
    "uses_iface": Phrases(_VERB_USE + ("chooses the", "picks the", "uses the", "using the"),
                          ("docker0", "virbr0", "loopback", "lo", "eth0", "eth1", "eth2", "ib0", "ib1", "bond0",
                           "bond1", "ens", "enp", "eno1", "veth", "br-", "cni0", "flannel", "tailscale0", "wg0",
                           "tun0", "management interface", "management network")),
    "gdr": _alt("gpudirect", "gpu direct", "gpu-direct", "gdrdma", "gdr", "peermem", "nv_peer_mem", "peer_mem"),
    "no_gdr": Phrases(("no", "without", "missing", "lacks", "lack of"),
                      ("gdr", "gdrdma", "gpudirect", "gpu direct", "gpudirect rdma", "gpu direct rdma", "peermem",
                       "nvidia-peermem", "nvidia_peermem", "nv_peer_mem")),
    "via_shm": Phrases(("falls back to", "fell back to", "falling back to", "goes through", "went through",
                        "goes over", "went over", "goes via", "uses", "using", "via"),
                       ("shm", "shared memory", "the cpu", "host memory", "system memory", "pcie")),
    # 'roce' alone is inside every 'process' once squashed: the prefilter needs the words around it
    "roce": _alt("over roce", "on roce", "with roce", "using roce", "via roce", "roce v2", "rocev2", "roce v1",
                 "roce network", "roce fabric", "roce cluster", "roce nic", "roce nics", "roce cards", "roce links",
                 "roce interface", "roce devices", "roce setup", "roce environment", "roce mode"),
    "wrong_gpus": Phrases(("wrong", "other", "another", "different", "the wrong", "unexpected"),
                          ("gpu", "gpus", "device", "devices", "card", "cards")),
    "other_node": Phrases(("second", "other", "remote", "worker", "2nd"),
                          ("node", "nodes", "machine", "machines", "host", "hosts", "server", "servers")),
    "at_localhost": Phrases(("on", "at", "to", "uses", "using", "is", "endpoint", "binds to", "bound to", "listens on",
                             "goes to", "points to", "connects to", "set to", "=", "is set to"),
                            ("localhost", "127.0.0.1", "127.0.1.1")),
    "master_addr": _alt("master_addr", "master addr", "masteraddr", "master address", "master_address",
                        "master-addr"),
    "containers": _alt("docker", "container", "podman", "compose", "kubernetes", "k8s", "singularity", "apptainer",
                       "enroot", "pyxis"),
    "mem_words": Phrases(("allocates", "allocate", "allocating", "allocated", "occupies", "occupy", "takes", "taking",
                          "uses", "using", "has", "creates", "create"),
                         ("", "some", "extra", "more", "a little", "a bit of", "additional"),
                         ("memory", "vram", "gpu memory", "space", "a context", "a cuda context")) |
                 Phrases(("extra", "more", "additional", "higher", "unbalanced", "imbalanced", "uneven", "much more"),
                         ("memory", "processes", "process", "usage", "utilization", "utilisation", "vram")),
})
_MACRO = re.compile(r"<([a-z0-9_]{1,40})>")


def _regex(m):
    got = MACROS.get(m.group(1))
    if got is None:
        return m.group(0)
    return got.regex if isinstance(got, Phrases) else got


def expand(concept):
    """A concept with its <macros> replaced (macros may use macros; at most 4 levels)."""
    for _ in range(4):
        new = _MACRO.sub(_regex, concept)
        if new == concept:
            break
        concept = new
    left = _MACRO.search(concept)
    if left and left.group(1) not in MACROS and not concept[max(0, left.start() - 2):left.start()].endswith("?P"):
        raise KnowledgeError("unknown macro <%s> in %r" % (left.group(1), concept))
    return concept


def _needles(concept, raw=None):
    """The squashed needles every match of a concept holds (one per branch), or None. A concept that is
    one macro of Phrases has that macro's needles."""
    m = _MACRO.fullmatch(raw.strip()) if raw else None
    if m and isinstance(MACROS.get(m.group(1)), Phrases):
        return MACROS[m.group(1)].needles
    try:
        raw = _needles_memo(concept)  # (kept in the knowledge cache with the patterns' needles: kcache.py)
    except (re.error, RecursionError, OverflowError) as exc:
        raise KnowledgeError("concept %r does not compile: %s" % (concept, exc))
    got = sorted({squash(n) for n in raw})
    return got or None


def way_regex(concepts):
    """The scan regex of one way: every concept somewhere in the first SPAN characters."""
    look = "".join("(?=.{0,%d}?(?:%s))" % (SPAN, c) for c in concepts)
    return "^%s.{1,%d}" % (look, SPAN)


def anchor(concepts, raw=None):
    """(index, needles) of the concept to prefilter on: the one whose shortest needle is longest,
    none of them too common in logs."""
    best = None
    for i, c in enumerate(concepts):
        n = _needles(c, raw[i] if raw else None)
        if not n or any(len(x) < MIN_ANCHOR and x not in _RARE3 for x in n) or any(x in _COMMON for x in n):
            continue
        key = (not any(x in _NAMES for x in n), min(len(x) for x in n))
        if best is None or key > best[0]:
            best = (key, i, n)
    return (best[1], best[2]) if best else (None, None)


def ways_of(e):
    """[(way index, [expanded concepts], needles)] of an entry's `words`."""
    out = []
    words = e.get("words")
    if not isinstance(words, list) or not words:
        raise KnowledgeError("%s: words must be a list of ways (each a list of concept regexes)" % e.get("id"))
    for wi, way in enumerate(words):
        if not (isinstance(way, list) and way and all(isinstance(c, str) and c for c in way)):
            raise KnowledgeError("%s: words[%d] must be a list of concept regexes" % (e["id"], wi))
        concepts = [expand(c) for c in way]
        for c in concepts:
            try:
                re.compile(c, re.I)
            except re.error as exc:
                raise KnowledgeError("%s: words[%d]: %r does not compile: %s" % (e["id"], wi, c, exc))
        ai, needles = anchor(concepts, way)
        if ai is None:
            raise KnowledgeError("%s: words[%d] has no concept with needles of %d+ characters to prefilter on "
                                 "(write one as a group of literal phrases)" % (e["id"], wi, MIN_ANCHOR))
        out.append((wi, concepts, [n.decode("utf-8") for n in needles]))
    return out


def patterns(entries):
    """One scan pattern per way of every entry with `words`."""
    out = []
    for e in entries:
        if "words" not in e:
            continue
        for wi, concepts, needles in ways_of(e):
            out.append(Pattern(PREFIX + e["id"], "match", way_regex(concepts), 0,
                               site={"symptom": e["id"], "way": wi, "concepts": len(concepts)}, needles=needles))
    return out


# ------------------------------------------------------------------ the user's lines

# NCCL's own prefix (src/debug.cc 'host:pid:tid [dev] NCCL INFO'), a traceback frame, a KEY=VALUE dump line,
# gpudoctor's own report lines ('N/A  rdma.ports  no RDMA device: NCCL will use TCP sockets') and JSON members,
# a shell prompt's export, a launcher's own log prefix ('[2024-01-01 10:00:00,000] [INFO] [runner.py:...]'),
# cuda-samples' p2pBandwidthLatencyTest matrices ('Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)'), torch's c10
# log prefix (c10/util/Logging.cpp: '[rank0]:[E1126 04:06:40.415529201 ProcessGroupNCCL.cpp:736] Stack trace of the
# failed collective not found, ...' was nccl.falls_back_to_sockets's words: 'roce' of 'Process', 'not found') and
# glog's ('E1126 04:06:40.415529 12345 file.cc:42] ...')
_NOT_USERS = re.compile(r"^\s{0,8}(?:\[rank\d{1,7}\]:\s?)?\[[IWEF](?:\d{4})?\d{4} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?\s|"
                        r"^\s{0,8}" + GLOG_HEAD_NC + "|"
                        r"NCCL (?:INFO|WARN)\b|^\s{0,8}(?:PASS|FAIL|WARN|N/A|SKIP|SKIPPED|NA)\s{1,4}[a-z][\w.]{1,60}\s|"
                        r"^\s{0,12}\"[\w.-]{1,60}\":\s|^\s{0,8}File \"|^\s{0,8}[A-Za-z_][A-Za-z0-9_]{0,127}=\S{0,200}\s{0,4}$|"
                        r"^\s{0,8}(?:export|set|setenv)\s[A-Za-z_]{1,128}=|\[\s?(?:INFO|WARNING|WARN|DEBUG|ERROR)\s?\]"
                        r"\s{0,3}\[[\w.]{1,60}:\d{1,6}|(?:Bandwidth|Latency) (?:\(P2P\) )?Matrix|"
                        # Open MPI / PRRTE verbose output: opal_output's "[host:pid] " prefix (opal/util/output.c,
                        # https://github.com/open-mpi/ompi/blob/v4.1.x/opal/util/output.c), a program's line
                        r"^\s{0,8}\[[\w.-]{1,64}:\d{1,10}\]\s")


# a command line (a shell prompt, variables, then a program and its options or script): what was run, not what was
# seen ('$ python -m torch.distributed.run --rdzv_endpoint localhost:6000 ...' on one node is right; launchpaste.py
# reads such lines)
_COMMAND = re.compile(r"^\s{0,8}(?:[^\s$#%>]{0,60}[$#%>]\s{1,4}|\+{1,3}\s{1,4})?(?:[A-Za-z_]\w{0,60}=\S{0,200}\s{1,4}){0,8}"
                      r"(?:sudo\s{1,4}|nohup\s{1,4}|exec\s{1,4}|time\s{1,4})?(?:\S{0,200}/)?(?:python3?(?:\.\d{1,2})?|torchrun|"
                      r"deepspeed|accelerate|mpirun|mpiexec|srun|sbatch|salloc|docker|podman|kubectl|apptainer|singularity|"
                      r"horovodrun|nvidia-smi|bash|sh)\s{1,4}(?:-{1,2}[A-Za-z]|[\w./-]{1,200}\.(?:py|sh)\b|run\b|launch\b|"
                      r"exec\b|apply\b)")


# accelerate launch's defaults warning (accelerate/commands/launch.py _validate_launch_command: 'The following values were
# not passed to `accelerate launch` and had defaults used instead:', '\t`--num_cpu_threads_per_process` was set to `%d`
# to improve out-of-box performance when training on CPUs', '\t`--%s` was set to a value of `%s`', 'To avoid this
# warning pass in values for each of the problematic parameters or run `accelerate config`.'), printed on every launch
# without those options, GPU or not: its 'training on CPUs' is no complaint of running on the CPU
# (https://github.com/huggingface/accelerate/blob/main/src/accelerate/commands/launch.py)
_LAUNCH_DEFAULTS = re.compile(r"`--[\w-]{1,60}` was set to (?:a value of )?`|had defaults used instead|"
                              r"To avoid this warning pass in values for each")


def _said(text):
    """Whether a line may tell a symptom at all: not a program's own words that happen to hold one
    (transformers' 'Using a slow image processor as `use_fast` is unset', tokenizers' 'slow tokenizer', accelerate
    launch's defaults warning) and not a line of shell or Python code or a comment; settings.py's refusals of told
    lines, the same for both readers."""
    from gpudoctor.explain.outcome import _END
    from gpudoctor.explain.settings import _CODE, _PROGRAM

    # (review18) nor a program's own line that its run ended as it should: Lightning's EarlyStopping 'Monitored
    # metric val_loss did not improve in the last 3 records. ... Signaling Trainer to stop.' is no "loss flat"
    return not (_PROGRAM.search(text) or _CODE.search(text) or _LAUNCH_DEFAULTS.search(text) or _END.search(text))


def _users(hit, program):
    if hit.severity is not None or hit.line in program or _NOT_USERS.search(hit.text) or _COMMAND.search(hit.text) \
            or not _said(hit.text):
        return False
    # the user saying it is all right ('deepspeed uses all GPUs as expected'), in a clause about the same thing
    # (hang._called_fine: 'the first node works fine, but the second node is idle' is still a complaint)
    from gpudoctor.explain.hang import _called_fine

    return not _called_fine(hit.text)


def _program_lines(scan):
    """Lines a program printed: an error line (text.GENERIC_ERRORS), a line a knowledge entry or a
    structural pattern matched (PyTorch's own 'out of shared memory' advice is a message, not the user's)."""
    from gpudoctor.explain.clidocs import USER_LINES as _CLI  # (clidocs20) the tools' command lines shown
    from gpudoctor.explain.deeper import CONTEXT_LINES as _DEEPER  # (fp24) a deeper layer's state lines, no answer
    from gpudoctor.explain.progline import USER_LINES as _PL  # (fp24) known programs' command lines
    from gpudoctor.explain.slurmscript import USER_LINES  # (slurm19) the user's own script and command lines

    out = set(getattr(scan, "error_lines", ()) or ())
    for key, lines in (getattr(scan, "match_lines", None) or {}).items():
        if not key.startswith(PREFIX) and key not in USER_LINES and key not in _CLI and key not in _PL and \
                key not in _DEEPER:
            out.update(lines)
    return out


def found(scan, kb=None):
    """[(entry id, first hit, concepts)] of the symptoms on the user's lines, the most specific
    first: the entry's rank (a named cause above a broader reading of the same words: NCCL falling
    back to sockets above "slower across nodes"), then more concepts, then the earliest line."""
    got = []
    program = None
    for key, hits in (getattr(scan, "matches", None) or {}).items():
        if not key.startswith(PREFIX):
            continue
        if program is None:
            program = _program_lines(scan)
        mine = [h for h in hits if _users(h, program)]
        if mine:
            h = mine[0]
            got.append((key[len(PREFIX):], h, max(x.pattern.site.get("concepts", 0) for x in mine)))
    # the same failures read by meaning (concept classes, symptoms.toml `means`: explain/meaning.py)
    from gpudoctor.explain import meaning
    from gpudoctor.explain.scan import Hit

    have = {t[0] for t in got}
    for eid, line, text, n in (meaning.found(scan, kb) if kb is not None else []):
        if program is None:
            program = _program_lines(scan)
        if eid not in have and line not in program and _said(text):
            got.append((eid, Hit(line, text, None, None, None), n))
    rank = (lambda eid: kb.by_id[eid]["rank"] if eid in kb.by_id else 0) if kb is not None else (lambda eid: 0)
    got.sort(key=lambda t: (-rank(t[0]), -t[2], t[1].line, t[0]))
    return got


# ------------------------------------------------------------------ the answer

HOW_SURE_WORDS = ("How sure: low. Read from your words (line %d: %s), not from an error line. The docs (%s) list %d "
                  "causes for this and the text does not say which: each cause's confirm line tells them apart. "
                  "For a surer answer, paste the error or what this shows: %s")
HOW_SURE_ONE = ("How sure: medium. Read from your words (line %d: %s), not from an error line; the docs (%s) give "
                "this one cause for it.")
HOW_SURE_EVIDENCE = ("How sure: medium. Read from your words (line %d: %s); the text's own line %d (%s) points "
                     "at the first cause below.")


def _clip(s, n):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def _doc(e):
    refs = e.get("references") or []
    return refs[0]["title"] if refs else "the docs"


def _finding(e, scan, hit):
    from gpudoctor.explain.analyze import _finding as finding
    from gpudoctor.explain.ncclinfo import _Shown

    shown = _Shown(hit.line, hit.text)
    shown.severity = None
    m = {"hits": [shown], "count": 1, "rank": e["rank"], "score": e["rank"], "first": hit.line, "signal_hits": []}
    f = finding(e, m, "root", scan)
    said = _clip(hit.text, 120)
    ev = f["causes"][0]["evidence"] if f["causes"] else []
    if ev:
        f["confidence"] = "cause"
        f["notes"].insert(0, HOW_SURE_EVIDENCE % (hit.line, said, ev[0]["line"], _clip(ev[0]["text"], 120)))
    elif len(f["causes"]) == 1:
        f["confidence"] = "cause"
        f["notes"].insert(0, HOW_SURE_ONE % (hit.line, said, _doc(e)))
    else:
        f["confidence"] = "family"
        f["notes"].insert(0, HOW_SURE_WORDS % (hit.line, said, _doc(e), len(f["causes"]),
                                               (e.get("debug") or ["the launch line and the first lines it printed"])[0]))
    f["from_words"] = True
    return f


def _note(e, hit, why):
    fix = e["causes"][0]["fix"][0] if e["causes"] and e["causes"][0]["fix"] else ""
    return {"id": e["id"], "severity": "words", "note": "%s: %s (%s)" % (why, e["title"], e["references"][0]["url"]),
            "fix": fix, "first_line": hit.line, "text": hit.text, "match_count": 1}


_UNSET = re.compile(r"\bunset\s{1,3}([A-Z][A-Z0-9_]{2,60}(?:(?:\s{0,3}[,/]\s{0,3}|\s{1,3}and\s{1,3})[A-Z][A-Z0-9_]{2,60}){0,6})")


def _undoes(fix, root):
    """Whether a note's fix unsets a variable the root's causes set (an export, or 'export K=V' in a fix line; a value
    of 0 is no setting): gpu.p2p's root
    (export NCCL_P2P_DISABLE=1 while ACS is on) beside nccl.p2p_not_used's 'unset NCCL_P2P_DISABLE', read from the
    same user's 'connected via PCIe ... with no NVLink', told the user to undo the answer's workaround."""
    names = {n for m in _UNSET.finditer(fix or "") for n in re.findall(r"[A-Z][A-Z0-9_]{2,60}", m.group(1))}
    if not names:
        return False
    for c in root.get("causes") or []:
        sets = {k for k, v in (c.get("exports") or {}).items() if not str(v).startswith("0")}
        if names & sets or any(re.search(r"\bexport\s{1,3}%s=(?!0\b)" % n, x) for n in names for x in c.get("fix") or []):
            return True
    return False


# A symptom that an error line's root already accounts for: "it runs on the CPU / sees no GPU" (torch.runs_on_cpu)
# is what a GPU that fell off the bus, a cuInit that failed, a driver or container without the GPU, or a CPU wheel
# do, and its first fix (install a CUDA wheel) points away from the root (a seen held-out set: nvidia-smi's 'Unable
# to determine the device handle' with the user's 'unable to detect the GPU device', answered gpu.xid.fallen_off_bus,
# carried the note 'pip install torch --index-url .../cu124'). Families (prefixes) per symptom entry.
_ACCOUNTED = {"torch.runs_on_cpu": ("cuda.", "gpu.", "nvml.", "libload.", "container.", "torch.cpu_wheel",
                                    "torch.no_nccl", "accelerate.runs_on_cpu", "slurm.gres")}


def _accounted(eid, root):
    fams = _ACCOUNTED.get(eid)
    return bool(fams) and any((x or "").startswith(fams) for x in (root.get("family"), root["id"]))


def judge(result, scan, kb):
    """Add the symptom the user's words describe: the root when nothing surer answered, else a
    context note beside the error line's answer. Returns the root finding it added, else None."""
    got, lines = [], set()
    for eid, h, _n in found(scan, kb):
        # another symptom on a line already read is a broader reading of the same words
        # (cuda.visible_devices_no_effect beside deepspeed.visible_devices_ignored): the most specific one is kept
        if eid in kb.by_id and h.line not in lines:
            lines.add(h.line)
            got.append((eid, h))
    if not got:
        return None
    findings = result["findings"]
    root = findings[0] if findings else None
    # the hang triage's family answer (nccl.hang: "it hangs or is slow", its causes ranked, none certain) gives
    # way to a symptom that names what the user saw ("NCCL falls back to sockets and it is very slow"), and
    # follows it as a related finding with its ranking
    # (and ncclinfo's nccl.info_only, "NCCL's INFO lines show nothing clearly wrong", gives way the same way)
    triage = root is not None and root["id"] in ("nccl.hang", "nccl.info_only") and root.get("from_info_lines") and \
        root.get("confidence") != "cause"
    if root is not None and not triage:
        # an error line explain knows, or what NCCL's INFO lines or a known bug read from the text (AReaL#639's
        # "falling back to Socket" beside NCCL's 'NET/Socket : Using [0]bond0' is ncclinfo's nccl.ib_no_device,
        # with the HCA it names): it stays the root
        have = {f["id"] for f in findings}
        for eid, h in got[:MAX_NOTES]:
            # a words note that is already a finding (layout.py's accelerate.runs_on_cpu root read from the job's
            # own lines) repeats it; one the root already accounts for is dropped (_ACCOUNTED)
            if eid in have or _accounted(eid, root):
                continue
            note = _note(kb.by_id[eid], h, "Your words describe (beside the answer above)")
            if not _undoes(note["fix"], root):
                result["context"].append(note)
        return None
    eid, h = got[0]
    f = _finding(kb.by_id[eid], scan, h)
    if result["verdict"] == "unknown_error" and result.get("errors"):
        f["notes"].append("The text also reports an error nothing in gpudoctor's knowledge explains (line %s): "
                          "look at it too." % result["errors"][0]["line"])
    if triage:
        root["role"] = "related"
    findings.insert(0, f)
    for eid2, h2 in got[1:1 + MAX_NOTES]:
        result["context"].append(_note(kb.by_id[eid2], h2, "Your words also describe"))
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    result["triage"] = []
    return f
