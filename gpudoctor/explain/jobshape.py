"""The job's shape as its launchers print it, checked for consistency (issue 18 items 2 and 4, explain-shape25).

A job launched wrong often prints no error: two nodes that both take node rank 0 wait for a world that never
completes; two nodes that each run a job of their own train in silence, each on its own GPUs; a node that was never
started leaves the others waiting in the rendezvous. What the launchers print about the job's shape says which it is.
Read during the one scan (role "paste", handed over by launchpaste.record; a log without the needles costs nothing
more), each from the source that prints it:

- torchrun's agent (torch/distributed/elastic/agent/server/api.py SimpleElasticAgent._rendezvous, logged at INFO:
  "[%(role)s] Rendezvous complete for workers. Result:" then one field a line: "  master_addr=...",
  "  master_port=...", "  group_rank=...", "  group_world_size=...", "  global_ranks=[...]",
  "  global_world_sizes=[...]"; torch 1.9-1.12 print it by default, later ones under LOGLEVEL=INFO), its
  "[%s] Rendezvous'ing worker group" before it (api.py _initialize_workers), and the launch config dump before both
  (torch/distributed/launcher/api.py launch_agent: "  min_nodes : N", "  max_nodes : N", "  rdzv_backend : static",
  "  rdzv_configs : {'rank': N, ...}"; the static backend takes the node's rank from --node-rank);
- torchrun's c10d rendezvous (elastic/rendezvous/dynamic_rendezvous.py DynamicRendezvousHandler.next_rendezvous:
  "The node '%s' has joined round %d of the rendezvous '%s' as rank %d in a world of size %d.");
- DeepSpeed's per-node launcher (deepspeed/launcher/launch.py main: "WORLD INFO DICT: %s", "nnodes=%d,
  num_local_procs=%d, node_rank=%d", "dist_world_size=%d"), prefixed with the node's name by pdsh ("node1: ...");
- MASTER_ADDR / MASTER_PORT / NODE_RANK as a node prints them (an env dump or a script's print), where the line says
  which node printed it (pdsh's "host: ", a per-node file).

The job's machines are told apart by the line's host (text.origin: pdsh's "host: ", NCCL's "host:pid:tid"), else the
launcher's pid in glog's header ("I1128 04:48:20.309000 22126 torch/..."), else the input file (one file per node).
Layout.py's claims (Lightning's "GLOBAL_RANK: r, MEMBER: m/W", a script's "rank r of W") count as processes.

What is judged (judge), each answer an existing entry with a first cause that quotes the lines:
- two machines that both report node rank N of a job of several nodes -> launcher.same_rank (the launcher's node-rank
  setting, named from generated/launch_env.json's flags);
- two or more machines whose launcher each reports a job of one node (torchrun's group_world_size=1, DeepSpeed's
  nnodes=1, a c10d rendezvous of world size 1) -> elastic.nodes_alone (torchrun) / launcher.one_node_used (others):
  each node trains alone, with a world of its own GPUs;
- the machines report different master addresses or ports -> the nodes met at different stores: the same answers, or
  rendezvous.init_hang where their launchers wait for more nodes;
- a world of W processes of which fewer ranks ever printed, where the text stops at the start (no line says the
  group came up, the input ends within a few lines of the last rank's line) or torchrun's agent stops at
  "Rendezvous'ing worker group" with --nnodes >= 2 -> rendezvous.init_hang: the other processes were never started
  (the launcher's node count, or the command on the other nodes).
The root only where nothing surer answered (no error line's answer, or only a hang triage's), else a note. A healthy
multi-node start (distinct node ranks, one master, every rank's line or the group's "came up" line) gives nothing.
"""

import ast
import base64
import json
import re

from gpudoctor.explain.knowledge import Pattern

ENTRY = "_paste_jobshape"  # role "paste": launchpaste.record hands these lines here
MAX_KEPT = 64
BLOCK = 16  # lines of torchrun's agent result after its "Rendezvous complete" line
END_NEAR = 3  # a text "stops at the start" when its input ends within this many lines of the last such line

FACTS = {
    # torchrun's agent result, one field a line (api.py _rendezvous); the value ends the line
    "te_field": r"(?:^|[\]: \t])(?P<k>group_rank|group_world_size|master_addr|master_port|global_ranks|"
                r"global_world_sizes)=(?P<v>[^\s]{1,200})[ \t]{0,4}$",
    "te_done": r"Rendezvous complete for workers\. Result",
    "te_wait": r"Rendezvous'ing worker group",
    # the agent's end: its workers finished (api.py _exit_barrier, INFO, torch 1.9 on): a launcher that printed it
    # before another launcher's first line ran before it, not beside it (review26: two runs in one log)
    "te_end": r"Local worker group finished \(",
    # torchrun's launch config dump (launcher/api.py launch_agent)
    "te_conf": r"(?:^|[\] \t])(?P<k>min_nodes|max_nodes|rdzv_backend|rdzv_configs|rdzv_endpoint)[ \t]{1,30}:[ \t]{0,4}"
               r"(?P<v>[^\n]{1,200})$",
    "dyn_join": r"has joined round (?P<round>\d{1,9}) of the rendezvous '(?P<run>[^'\n]{0,200})' as rank "
                r"(?P<rank>\d{1,7}) in a world of size (?P<world>\d{1,7})",
    "ds_nodes": r"\bnnodes=(?P<nn>\d{1,6}), num_local_procs=(?P<np>\d{1,6}), node_rank=(?P<nr>\d{1,6})",
    # (the dict itself is read from the line by _ds_info_dict: a matcher's repeats stay <= 200)
    "ds_info": r"WORLD INFO DICT: \{",
    # DeepSpeed's runner: the command it runs on every node carries the world and the master
    # (deepspeed/launcher/runner.py main: "cmd = %s"; multinode_runner.py PDSHRunner.get_cmd)
    "ds_cmd": r"\bcmd = [^\n]{0,80}\bpdsh\b",
    # a node's own print of its rendezvous variables (env | grep, echo, a script's print)
    # a launch command's own node rank (the first line of a per-node log, `set -x`'s echo): read with --nnodes
    "cmd": r"(?<![\w-])(?:--node[-_]rank[= ]{1,3}(?P<nr>\d{1,6})\b|--nnodes[= ]{1,3}1\b|--standalone\b)",
    "env": r"(?<![\w$-])(?P<k>MASTER_ADDR|MASTER_PORT|NODE_RANK)[ \t]{0,2}[=:][ \t]{0,2}['\"]?(?P<v>[\w.-]{1,100})",
}
_NEEDLES = {
    "te_field": ["group_rank=", "group_world_size=", "master_addr=", "master_port=", "global_ranks=",
                 "global_world_sizes="],
    "te_conf": ["min_nodes", "max_nodes", "rdzv_backend", "rdzv_configs", "rdzv_endpoint"],
    "env": ["master_addr", "master_port", "node_rank"],
    # (the words the command's options spell: a bare 'node' would hand every NCCL INFO line of a node to the reader)
    "cmd": ["--node-rank", "--node_rank", "--nnodes", "--standalone"],
}
_GLOG_PID = re.compile(r"^\s{0,8}\[?[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{1,9} (\d{1,10}) ")
_GLOG_TIME = re.compile(r"^\s{0,8}\[?[IWEF](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})")  # MMDD HH:MM:SS.ffffff: compares as text


def patterns():
    return [Pattern(ENTRY, "paste", rx, 0, site={"class": cls, "id": "jobshape-" + cls}, needles=_NEEDLES.get(cls))
            for cls, rx in FACTS.items()]


class Shape(object):
    def __init__(self):
        self.agents = []  # torchrun agent results: dicts src, who, line, fields {k: (value, line, text)}
        self.conf = {}  # (src, who) -> {k: (value, line, text)} of torchrun's config dump
        self.waits = []  # (src, who, line, text) of "Rendezvous'ing worker group"
        self.joins = []  # dicts src, who, line, rank, world, run, text
        self.ds = []  # dicts src, who, line, nnodes, nprocs, node_rank, text
        self.ds_hosts = []  # (src, who, line, [hosts], text) of WORLD INFO DICT
        self.masters = []  # (src, who, line, key, value, text): MASTER_ADDR / MASTER_PORT / NODE_RANK printed
        self.cmds = []  # (src, line, node rank, nnodes, launcher, text) of launch commands with both
        self.ends = []  # (src, who, line, text) of the agent's "Local worker group finished ("


def _state(scan):
    st = getattr(scan, "jobshape", None)
    if st is None:
        st = scan.jobshape = Shape()
    return st


def _src(scan):
    return max(len(scan.sources) - 1, 0)


def _who(text):
    """Which machine printed the line: its host prefix, else the pid in glog's header, else None (the file says)."""
    from gpudoctor.explain.text import origin

    host = origin(text)[1]
    if host:
        return "host " + host
    m = _GLOG_PID.match(text)
    return "pid " + m.group(1) if m else None


def record(scan, hit):
    st = _state(scan)
    cls = hit.pattern.site["class"]
    text = hit.text
    m = re.search(FACTS[cls], text.rstrip())
    if not m:
        return
    g = m.groupdict()
    src, ln, who = _src(scan), hit.line, _who(text)
    if cls == "te_done":
        if len(st.agents) < MAX_KEPT:
            st.agents.append({"src": src, "who": who, "line": ln, "fields": {}, "text": text.strip()[:300]})
    elif cls == "te_field":
        a = st.agents[-1] if st.agents else None
        if a is not None and a["src"] == src and 0 < ln - a["line"] <= BLOCK and (who is None or a["who"] in (None, who)):
            a["fields"].setdefault(g["k"], (g["v"], ln, text.strip()[:300]))
    elif cls == "te_end":
        if len(st.ends) < MAX_KEPT:
            st.ends.append((src, who, ln, text.strip()[:300]))
    elif cls == "te_wait":
        if len(st.waits) < MAX_KEPT:
            st.waits.append((src, who, ln, text.strip()[:300]))
    elif cls == "te_conf":
        c = st.conf.setdefault((src, who), {}) if len(st.conf) < MAX_KEPT else None
        if c is not None:
            c[g["k"]] = (g["v"].strip(), ln, text.strip()[:300])
    elif cls == "dyn_join":
        if len(st.joins) < MAX_KEPT:
            st.joins.append({"src": src, "who": who, "line": ln, "rank": int(g["rank"]), "world": int(g["world"]),
                             "run": g["run"], "text": text.strip()[:300]})
    elif cls == "ds_nodes":
        if len(st.ds) < MAX_KEPT:
            st.ds.append({"src": src, "who": who, "line": ln, "nnodes": int(g["nn"]), "nprocs": int(g["np"]),
                          "node_rank": int(g["nr"]), "text": text.strip()[:300]})
    elif cls == "ds_info":
        hosts = _dict_keys(_ds_info_dict(text))
        if hosts is not None and len(st.ds_hosts) < MAX_KEPT:
            st.ds_hosts.append((src, who, ln, hosts, text.strip()[:300]))
    elif cls == "ds_cmd":
        ma = re.search(r"--master_addr[= ]([\w.:-]{1,200})", text[:8192])
        if ma and len(st.masters) < MAX_KEPT:
            st.masters.append((src, who, ln, "MASTER_ADDR", ma.group(1), text.strip()[:300]))
            wi = re.search(r"--world_info=([A-Za-z0-9+/=]{4,4000})", text)
            hosts = _world_info(wi.group(1)) if wi else None
            if hosts is not None and len(st.ds_hosts) < MAX_KEPT:
                st.ds_hosts.append((src, who, ln, hosts, text.strip()[:300]))
    elif cls == "cmd":
        nn = re.search(r"(?<![\w-])--nnodes[= ]{1,3}(\d{1,6})\b", text)
        nr = re.search(r"(?<![\w-])--node[-_]rank[= ]{1,3}(\d{1,6})\b", text)
        alone = re.search(r"(?<![\w-])--standalone\b", text) or (nn and nn.group(1) == "1")
        who_ = re.search(r"(?<![\w./-])(?:torchrun|deepspeed|torch\.distributed\.(?:run|launch))(?=[ \t]|$)", text)
        if who_ and (nn or alone) and not re.search(r"--rdzv[-_]backend[= ]{1,3}(?!static)\w", text) and \
                len(st.cmds) < MAX_KEPT and (nr or alone):
            st.cmds.append((src, ln, int(nr.group(1)) if nr else 0, 1 if alone else int(nn.group(1)),
                            "deepspeed" if who_.group(0) == "deepspeed" else "torchrun", text.strip()[:300]))
    elif cls == "env":
        if len(st.masters) < MAX_KEPT and who is not None:  # only a line that says which node printed it
            st.masters.append((src, who, ln, g["k"], g["v"], text.strip()[:300]))


def _ds_info_dict(text):
    """The '{...}' after 'WORLD INFO DICT: ' on its line, to its last '}' (at most 4,000 characters)."""
    i = text.find("WORLD INFO DICT: ")
    s = text[i + len("WORLD INFO DICT: "):][:4000].split("\n", 1)[0] if i >= 0 else ""
    return s[:s.rfind("}") + 1]


def _dict_keys(s):
    """The host names of DeepSpeed's WORLD INFO DICT ("{'node1': [0, 1], 'node2': [0, 1]}"), read as a literal
    (never evaluated), or None."""
    try:
        d = ast.literal_eval(s[:4000])
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    if not isinstance(d, dict):
        return None
    return [str(k)[:100] for k in list(d)[:64]]


def _world_info(b64):
    """The hosts of DeepSpeed's --world_info (runner.py encode_world_info: urlsafe base64 of the JSON dict of host ->
    slots), or None."""
    try:
        d = json.loads(base64.urlsafe_b64decode(b64[:4000] + "=" * (-len(b64) % 4)).decode("utf-8", "replace"))
    except (ValueError, TypeError, UnicodeError):
        return None
    return [str(k)[:100] for k in list(d)[:64]] if isinstance(d, dict) else None


# ------------------------------------------------------------------ the machines and what each says

def _machine(scan, src, who):
    """The identity of the machine that printed a line: its host, else the launcher's pid (in this file), else the
    file of several (one per node), else None (one input, nothing says)."""
    if who and who.startswith("host "):
        return who
    if len(scan.sources) > 1:
        return "file " + _name(scan, src)  # one file per node: its launcher's pids are that node's
    return who


def _name(scan, src):
    try:
        return str(scan.sources[src]["path"]).rsplit("/", 1)[-1][:80]
    except (IndexError, KeyError, TypeError):
        return "input %d" % (src + 1)


def _at(scan, ln):
    """'line N' of a line counted over every input, or '<file> line N' where several inputs were read."""
    from gpudoctor.explain.inputs import _where

    path, n = _where(scan, ln)
    return "line %d" % n if len(scan.sources) < 2 or path is None else "%s line %d" % (
        str(path).rsplit("/", 1)[-1][:80], n)


def _int(v):
    try:
        return int(str(v).strip().strip("'\""))
    except ValueError:
        return None


def _list(v):
    try:
        x = ast.literal_eval(str(v)[:2000])
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return [i for i in x if isinstance(i, int)] if isinstance(x, (list, tuple)) else None


class Node(object):
    """What one machine's launcher says of the job."""

    def __init__(self, key):
        self.key = key
        self.node_rank = self.nnodes = self.world = None
        self.ranks = []
        self.master = self.port = None
        self.lines = []  # (line, text) the facts were read from
        self.launcher = None
        self.alone = None  # (line, text) of a launcher line that says the node's job is one node
        self.last = 0
        self.end = None  # (line, text) of its agent's "Local worker group finished": its job ended there


def nodes(scan, st):
    """machine key -> Node, from every launcher line that names its machine."""
    out = {}

    def node(src, who):
        k = _machine(scan, src, who)
        if k is None:
            return None
        if k not in out:
            if len(out) >= MAX_KEPT:
                return None
            out[k] = Node(k)
        return out[k]

    for a in st.agents:
        f = a["fields"]
        n = node(a["src"], a["who"])
        if n is None or not f:
            continue
        n.launcher = "torchrun"
        n.last = max(n.last, max(x[1] for x in f.values()))
        gr, gws = _int(f["group_rank"][0]) if "group_rank" in f else None, \
            _int(f["group_world_size"][0]) if "group_world_size" in f else None
        if gr is not None:
            n.node_rank = gr
            n.lines.append(f["group_rank"][1:])
        if gws is not None:
            n.nnodes = gws
            n.lines.append(f["group_world_size"][1:])
            if gws == 1:
                n.alone = f["group_world_size"][1:]
        if "global_ranks" in f:
            n.ranks = _list(f["global_ranks"][0]) or []
        if "global_world_sizes" in f:
            w = _list(f["global_world_sizes"][0]) or []
            n.world = w[0] if w else None
        if "master_addr" in f:
            n.master = f["master_addr"][0]
            n.lines.append(f["master_addr"][1:])
        if "master_port" in f:
            n.port = f["master_port"][0]
            n.lines.append(f["master_port"][1:])
    for (src, who), c in st.conf.items():
        ep = re.match(r"^\[?([\w.:-]{1,200}?)\]?:(\d{1,5})$", c.get("rdzv_endpoint", ("",))[0])
        n = node(src, who) if ep else None
        if n is not None and n.master is None:
            # (torchrun --master-addr/--master-port, or --rdzv-endpoint: the store every node must name alike)
            n.master, n.port = ep.group(1), ep.group(2)
            n.lines.append(c["rdzv_endpoint"][1:])
        # the static rendezvous takes the node's rank from --node-rank (launcher/api.py: rdzv_configs['rank']), and
        # --nnodes is max_nodes; the c10d backend assigns ranks itself (its 'rank' is no node's)
        if c.get("rdzv_backend", ("",))[0].strip() != "static" or "rdzv_configs" not in c:
            continue
        r = re.search(r"['\"]rank['\"]:\s{0,3}(\d{1,6})", c["rdzv_configs"][0])
        mx = _int(c.get("max_nodes", ("",))[0])
        n = node(src, who)
        if r is None or n is None:
            continue
        n.launcher = "torchrun"
        if n.node_rank is None:
            n.node_rank = int(r.group(1))
            n.lines.append(c["rdzv_configs"][1:])
        if n.nnodes is None and mx:
            n.nnodes = mx
            if "max_nodes" in c:
                n.lines.append(c["max_nodes"][1:])
    for d in st.ds:
        n = node(d["src"], d["who"])
        if n is None:
            continue
        n.launcher = n.launcher or "deepspeed"
        n.node_rank, n.nnodes = d["node_rank"], d["nnodes"]
        n.lines.append((d["line"], d["text"]))
        n.last = max(n.last, d["line"])
        if d["nnodes"] == 1:
            n.alone = (d["line"], d["text"])
    for j in st.joins:
        n = node(j["src"], j["who"])
        if n is None:
            continue
        n.launcher = n.launcher or "torchrun"
        n.node_rank = j["rank"] if n.node_rank is None else n.node_rank
        n.nnodes = j["world"] if n.nnodes is None else n.nnodes
        n.lines.append((j["line"], j["text"]))
        n.last = max(n.last, j["line"])
        if j["world"] == 1:
            n.alone = (j["line"], j["text"])
    # the launch command each node's own log starts with (several files, one per node); torchrun /
    # torch.distributed.launch / deepspeed --node[-_]rank with --nnodes: a static rendezvous (c10d ignores --node-rank,
    # torch/distributed/run.py)
    if len(scan.sources) > 1:
        for src, ln, nr, nn, launcher, text in st.cmds:
            n = node(src, None)
            if n is None or n.node_rank is not None:
                continue
            n.launcher = n.launcher or launcher
            n.node_rank, n.nnodes = nr, nn
            n.lines.append((ln, text))
            if nn == 1 and n.alone is None:
                n.alone = (ln, text)
    for src, who, ln, k, v, text in st.masters:
        n = node(src, who)
        if n is None:
            continue
        if k == "MASTER_ADDR" and n.master is None:
            n.master = v
            n.lines.append((ln, text))
        elif k == "MASTER_PORT" and n.port is None:
            n.port = v
            n.lines.append((ln, text))
        elif k == "NODE_RANK" and n.node_rank is None and _int(v) is not None:
            n.node_rank = _int(v)
            n.lines.append((ln, text))
    for src, who, ln, text in st.ends:
        n = out.get(_machine(scan, src, who))
        if n is not None and (n.end is None or ln < n.end[0]):
            n.end = (ln, text)
    return out


def _time(text):
    m = _GLOG_TIME.match(text or "")
    return m.group(1) if m else None


def _ran_before(scan, a, b):
    """Whether launcher A's job had ended before launcher B printed its first line: two runs one after the other (a
    log that holds two single-node runs, a folder of two runs), not two machines of one job. Within one input by
    the lines' order; across inputs by glog's time, where both lines carry it; else not known (False)."""
    if a.end is None:
        return False
    firsts = [x for x in b.lines + ([b.alone] if b.alone else []) if x]
    if not firsts:
        return False
    first = min(firsts, key=lambda x: x[0])
    from gpudoctor.explain.inputs import _where

    same = _where(scan, a.end[0])[0] == _where(scan, first[0])[0]
    if same:
        return a.end[0] < first[0]
    ta, tb = _time(a.end[1]), _time(first[1])
    return ta is not None and tb is not None and ta < tb


def _together(scan, group):
    """The launchers of GROUP that ran beside another of them (neither ended before the other began)."""
    return [n for n in group if any(m is not n and not _ran_before(scan, n, m) and not _ran_before(scan, m, n)
                                    for m in group)]


# ------------------------------------------------------------------ the checks

class Found(object):
    def __init__(self, eid, what, lines, texts, fix, root=True):
        self.eid, self.what, self.lines, self.texts, self.fix, self.root = eid, what, lines, texts, fix, root


def _flag(launcher, var, default):
    """The launcher's own flag for a variable (generated/launch_env.json's flags, from the launchers' sources)."""
    from gpudoctor.explain.knowledge import generated_table

    t = (generated_table("launch_env") or {}).get("launchers", {})
    return (t.get(launcher) or {}).get("flags", {}).get(var) or default


def _node_rank_fix(launcher):
    if launcher == "deepspeed":
        return ("give each node its own rank: with a hostfile, `deepspeed --hostfile hostfile` starts every node "
                "itself (pdsh passes --node_rank=%%n); started by hand on each node, %s 0 on the first node and 1, "
                "2, ... on the others (CROSS_RANK); a NODE_RANK exported in ~/.bashrc, the image or .deepspeed_env "
                "is the same on every node" % _flag("deepspeed", "CROSS_RANK", "--node_rank"))
    return ("give each node its own rank: torchrun %s -- 0 on the first node, 1, 2, ... on the others (under Slurm "
            "--node-rank $SLURM_NODEID inside srun bash -c '...'; NODE_RANK=0 exported in ~/.bashrc, the image or "
            "the job script is stale on the other nodes), or --rdzv-backend c10d --rdzv-endpoint <node 0>:29400 "
            "--rdzv-id <job id>, which assigns node ranks itself (accelerate: machine_rank per machine)"
            % _flag("torchrun", "GROUP_RANK", "--node-rank").split(" (")[0])


def _alone_fix(launcher):
    if launcher == "deepspeed":
        return ("start the job once, from one node, with every node in it: deepspeed --hostfile hostfile "
                "(one '<host> slots=<GPUs>' line per node; it starts the others through pdsh with --node_rank and "
                "one --master_addr) or --num_nodes <N> with the hostfile; not `deepspeed train.py` on each node, "
                "which finds no hostfile ('local resources only') and makes a job of one node; the variables the "
                "other nodes need go in ~/.deepspeed_env (DS_ENV_FILE)")
    return ("the same --nnodes <N> (not 1), --rdzv-id and --rdzv-endpoint <node 0's address>:<port> (or --master-addr "
            "/ --master-port with --node-rank 0..N-1) on every node, so that they join one rendezvous; not "
            "--standalone, which makes each node a job of its own")


def _alone(scan, ns, out):
    """Two or more machines whose launcher each says its job is one node."""
    alone = _together(scan, [n for n in ns.values() if n.alone and (n.node_rank in (None, 0))])
    if len(alone) < 2:
        return False
    alone.sort(key=lambda n: n.alone[0])
    launcher = alone[0].launcher or "torchrun"
    masters = sorted({n.master for n in alone if n.master})
    said = "; ".join("%s: %s: %s" % (n.key, _at(scan, n.alone[0]), n.alone[1][:100]) for n in alone[:3])
    what = ("%d machines each ran a job of one node (%s)%s: each node trains alone, with a world of its own "
            "processes, and nothing fails" % (len(alone), said, (" with master addresses %s" % ", ".join(masters[:4]))
                                                if len(masters) > 1 else ""))
    eid = "elastic.nodes_alone" if launcher == "torchrun" else "launcher.one_node_used"
    out.append(Found(eid, what, [n.alone[0] for n in alone[:4]], [n.alone[1] for n in alone[:4]],
                     _alone_fix(launcher)))
    return True


def _same_rank(scan, ns, out):
    """Two machines that both report the same node rank in a job of several nodes."""
    by = {}
    for n in ns.values():
        if n.node_rank is not None and (n.nnodes or 0) >= 2:
            by.setdefault(n.node_rank, []).append(n)
    for r, lst in sorted(by.items()):
        lst = _together(scan, lst)
        if len(lst) < 2:
            continue
        lst = sorted(lst, key=lambda n: n.lines[0][0] if n.lines else 0)[:4]
        ev = [x for n in lst for x in n.lines[:2]][:6]
        what = ("%d machines each report node rank %d of a job of %d nodes (%s): the node ranks collide, so the "
                "job waits for a node that never joins, or the nodes' ranks overlap" % (
                    len(lst), r, lst[0].nnodes, "; ".join("%s: %s" % (n.key, ", ".join(
                        _at(scan, ln) for ln, _t in n.lines[:2])) for n in lst)))
        out.append(Found("launcher.same_rank", what, [x[0] for x in ev], [x[1] for x in ev],
                         _node_rank_fix(lst[0].launcher)))
        return True
    return False


def _masters_differ(scan, ns, out):
    """Machines of one job told different master addresses or ports (each waits at a store of its own)."""
    got = _together(scan, [n for n in ns.values() if n.master or n.port])
    if len(got) < 2:
        return False
    pairs = {}
    for n in got:
        pairs.setdefault((n.master, n.port), []).append(n)
    if len(pairs) < 2:
        return False
    addrs = {a for a, _p in pairs if a}
    if len({bool(re.match(r"^[\d.]{7,15}$|^[0-9a-fA-F:]{2,39}$", a)) for a in addrs}) > 1:
        addrs = set()  # a name and an address may be the same host: only names with names, addresses with addresses
    ports = {p for _a, p in pairs if p}
    if len(addrs) < 2 and len(ports) < 2:
        return False
    said = "; ".join("%s: %s" % (lst[0].key, ":".join(x for x in k if x)) for k, lst in sorted(
        pairs.items(), key=lambda kv: str(kv[0]))[:4])
    lines = [x for lst in pairs.values() for n in lst[:1] for x in n.lines if x[1] and (
        "master" in x[1].lower())][:6]
    what = ("the machines of the job were given different rendezvous %s (%s): each meets at a store of its own, "
            "so they never form one job" % ("addresses" if len(addrs) >= 2 else "ports", said))
    fix = ("one MASTER_ADDR and MASTER_PORT for every node, node 0's routable address: torchrun --master-addr <node 0> "
           "--master-port 29500 (or --rdzv-endpoint <node 0>:29400) the same on every node; under Slurm compute it "
           "once (scontrol show hostnames $SLURM_JOB_NODELIST | head -n1) and pass it to every node, not a value each "
           "node computes for itself")
    waiting = any((n.nnodes or 0) >= 2 for n in got)
    out.append(Found("rendezvous.init_hang" if waiting else "elastic.nodes_alone", what,
                     [x[0] for x in lines], [x[1] for x in lines], fix))
    return True


def _ends_near(scan, src, line):
    """Whether input src ends within END_NEAR lines after line."""
    try:
        s = scan.sources[src]
        end = s["first_line"] + s["lines"]  # (first_line: the lines before this input, scan_stream)
    except (IndexError, KeyError, TypeError):
        return False
    return 0 <= end - line <= END_NEAR


def _incomplete(scan, st, ns, out, complaint):
    """A world of W processes of which fewer ever printed, and the text stops there: the others never joined."""
    lay = getattr(scan, "layout", None)
    if lay is not None and lay.pg_up is not None:
        return False  # the group came up (torch's store-based barrier, Lightning's 'All distributed processes')
    if lay is not None and lay.agent_done is not None:
        return False
    # torchrun's agent waiting for the other nodes: its last line 'Rendezvous'ing worker group', with --nnodes >= 2
    for src, who, ln, text in reversed(st.waits):
        conf = st.conf.get((src, who)) or {}
        mx = _int(conf.get("max_nodes", ("",))[0])
        done = any(a["src"] == src and a["who"] == who and a["line"] > ln for a in st.agents)
        if done or not mx or mx < 2 or not (_ends_near(scan, src, ln) or complaint):
            continue
        ev = [(ln, text)] + [conf[k][1:] for k in ("max_nodes", "rdzv_backend", "rdzv_configs") if k in conf][:3]
        what = ("torchrun's agent waits in the rendezvous for %d nodes (%s: %s; %s) and the text stops there: "
                "the other node%s never joined it" % (mx, _at(scan, ln), text.split("] ", 1)[-1][:80], "; ".join(
                    "%s: %s" % (_at(scan, e[0]), e[1].split("]")[-1].strip()[:60]) for e in ev[1:]),
                    "s" if mx > 2 else ""))
        out.append(Found("rendezvous.init_hang", what, [e[0] for e in ev], [e[1] for e in ev],
                         "start torchrun on every node the job counts (--nnodes %d): the same command with its own "
                         "--node-rank (0..%d) and the same --master-addr / --master-port, or --nnodes with the nodes "
                         "that actually run (--nnodes 1 on one machine); check that the other nodes reach node 0: nc -zv "
                         "<master> <port>" % (mx, mx - 1)))
        return True
    # the processes' own lines: Lightning's 'GLOBAL_RANK: r, MEMBER: m/W', a script's 'rank r of W'
    claims = [c for c in (lay.claims if lay is not None else []) if c.get("rank") is not None and
              (c.get("world") or 0) >= 2 and c["kind"] in ("pl", "print")]
    if not claims:
        return False
    worlds = {c["world"] for c in claims}
    if len(worlds) != 1:
        return False
    w = worlds.pop()
    ranks = sorted({c["rank"] for c in claims})
    last = max(claims, key=lambda c: c["line"])
    src = last["who"][0] if isinstance(last.get("who"), tuple) else 0
    if len(ranks) >= w or ranks != list(range(len(ranks))) or not (_ends_near(scan, src, last["line"]) or complaint):
        return False
    if scan.error_count or scan.tracebacks:
        return False
    if len(ranks) < 2:
        return False  # (one process's own rank line is all a paste of that process's log can show: no shape)
    cs = sorted(claims, key=lambda c: c["line"])[:4]
    pl = cs[0]["kind"] == "pl"
    what = ("the job's world is %d processes, but only rank%s %s started (%s) and the text stops there: rank 0 waits "
            "in the rendezvous for %d more that were never started (another node's, or a count larger than what runs)"
            % (w, "s" if len(ranks) > 1 else "", ", ".join(str(r) for r in ranks), "; ".join(
                "%s: %s" % (_at(scan, c["line"]), c["text"].strip()[:80]) for c in cs[:2]), w - len(ranks)))
    fix = ("Lightning: Trainer(num_nodes=<nodes that run>, devices=<GPUs per node>) -- num_nodes=1 on one machine; "
           "for several nodes start the same command on each with NODE_RANK=<0, 1, ...>, MASTER_ADDR=<node 0> and "
           "MASTER_PORT (or under Slurm: srun, which sets them)" if pl else
           "start every process the world counts (torchrun --nnodes <N> --node-rank <0..N-1> on each node, or srun "
           "-n <world>), or make the world size what runs (--nnodes 1; WORLD_SIZE = the processes started)")
    out.append(Found("rendezvous.init_hang", what, [c["line"] for c in cs], [c["text"] for c in cs], fix))
    return True


def read(scan, complaint=None):
    """[Found] of what the shape lines show, most telling first."""
    st = getattr(scan, "jobshape", None)
    out = []
    if st is None:
        return out
    ns = nodes(scan, st)
    _same_rank(scan, ns, out) or _alone(scan, ns, out) or _masters_differ(scan, ns, out)
    if not out:
        _incomplete(scan, st, ns, out, complaint)
    return out


# ------------------------------------------------------------------ into the answer

# roots these findings may take over: none, the hang triage's, or layout's own reading of the same kind (a rank
# claimed twice is the same answer; the launchers' lines say more)
_TAKE = ("nccl.hang", "rendezvous.init_hang")


def judge(result, scan, kb):
    """The root where nothing surer answered (no root, or only the hang triage's), else a note. Returns the finding
    it made root, else None."""
    if getattr(scan, "jobshape", None) is None and getattr(scan, "layout", None) is None:
        return None
    from gpudoctor.explain.hang import _complaint

    complaint = _complaint(scan)
    found = read(scan, complaint)
    if not found:
        return None
    from gpudoctor.explain.launchpaste import HANG

    findings = result["findings"]
    root = findings[0] if findings else None
    open_ = root is None or (root["id"] in _TAKE and root.get("confidence") != "cause")
    made = None
    for x in found:
        if x.eid not in kb.by_id:
            continue
        # a rendezvous / store / watchdog error is what ranks that collide or never meet print: the shape is its
        # cause (launchpaste.HANG, the same roots a launch line's same_rank explains)
        explains = root is not None and x.eid != "rendezvous.init_hang" and (
            root["id"] in HANG or root.get("family") in HANG)
        if (open_ or explains) and x.root and made is None and not (
                root is None and result["verdict"] == "unknown_error" and result["errors"] and
                x.eid == "rendezvous.init_hang"):
            made = _finding(kb.by_id[x.eid], x, scan)
            if explains:
                made["notes"].insert(1, "It explains the error %s found in this text (%s)." % (root["id"],
                                                                                             root["title"]))
            continue
        if root is not None and root["id"] == x.eid:
            continue
        result["context"].append({"id": "jobshape", "severity": "warning",
                                  "note": "Read from the job's shape as its launchers print it: %s." % x.what,
                                  "fix": x.fix, "first_line": x.lines[0] if x.lines else None, "text": None,
                                  "match_count": 1})
    if made is None:
        return None
    from gpudoctor.explain.launchpaste import take_root

    return take_root(result, made, root)


def _finding(e, x, scan):
    from gpudoctor.explain.launchpaste import lines_finding
    from gpudoctor.explain.scan import Hit

    hits = [Hit(ln, t.strip()[:400], None, {}, None) for ln, t in zip(x.lines, x.texts)]
    f = lines_finding(e, hits, "root", scan, "Read from the job's shape as its launchers print it: %s." % x.what,
                      x.fix, "How sure: medium. Read from what the launchers printed about the job's shape (node "
                             "ranks, world sizes, master address), not from an error line.")
    f["confidence"] = "cause"
    return f
