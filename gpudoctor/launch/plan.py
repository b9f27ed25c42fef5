"""The launch plan: what a launch line and its configs will ask of the cluster, resolved the
way the launcher itself resolves them (gpudoctor/launch/<launcher>.py), as plain data.

`gpudoctor plan` prints it (schema gpudoctor.plan/1, docs/launch.md); `gpudoctor check
--launch` judges it against the nodes' facts (checks/launch.py). Unknown values are None.
Secrets typed inline (HF_TOKEN=..., -x WANDB_API_KEY=..., --env KEY=VAL) never enter the
plan: only names on the collector's allow-list keep their value (redact()).
"""

import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

SCHEMA = "gpudoctor.plan/1"
REDACTED = "<redacted>"


def redact(name, value):
    """The value to keep for an environment variable typed on the launch line: the
    collector's own allow-list (gpudoctor/collector/system.py env_shown) decides, so a plan,
    a report and a facts file show the same names and hide the same ones."""
    from gpudoctor.collector.system import env_shown

    return value if env_shown(name) else REDACTED


# A flag whose name reads as a credential's (explain/redact.py secret_name: --token, --db-password, --wandb_key,
# --hub_token; not --tokenizer_name, --max_new_tokens, --pad_token) and its value in one string: `--token X`,
# `--token=X`, quoted or not
_SECRET_FLAG = re.compile(r"""(?<![\w-])(--?[A-Za-z][\w.-]{0,80})(=|[ \t]{1,4}(?!-))(['"]?)([^\s'"]{1,512})""")
_KEEP = re.compile(r"""^(?:\$\{?\w{1,80}\}?|<[^<>]{0,80}>|\.{2,}|x{3,}|\*{3,}|true|false|none|null|yes|no|)$""", re.I)


def hide_secret_args(obj):
    """``obj`` (a Plan, a script's result, their lists and dicts) with every value a credential's flag takes
    written REDACTED, and every credential's shape typed as it is (hf_..., ghp_..., sk-..., a URL's password:
    collector/system.py credential_pattern) too, in place; a placeholder ($HF_TOKEN, <token>) and a boolean are
    kept. plan SCRIPT wrote a script's variables back by name and a shape as REDACTED (docs/security.md 66., 67.);
    `plan --launch` printed its line's `--token hf_...` and every plan its `--db-password X` as typed (red team
    2026-11-28h, docs/security.md 98.)."""
    from gpudoctor.collector.system import credential_pattern, credential_shape
    from gpudoctor.explain.redact import secret_name

    def flag(a):
        return isinstance(a, str) and a.startswith("-") and "=" not in a and secret_name(a)

    def text(s):
        if "-" in s:
            s = _SECRET_FLAG.sub(lambda m: m.group(0) if not secret_name(m.group(1)) or _KEEP.match(m.group(4))
                                 else m.group(1) + m.group(2) + m.group(3) + REDACTED, s)
        if credential_shape(s):
            s = credential_pattern().sub(lambda m: m.group(0)[:m.group(0).index(":", 3) + 1] + REDACTED + "@"
                                         if m.group(0).startswith("://") else REDACTED, s)
        return s

    seen = set()

    def walk(x, depth):
        if isinstance(x, str):
            return text(x)
        if depth > 12 or id(x) in seen:
            return x
        seen.add(id(x))
        if isinstance(x, list):
            for i in range(1, len(x)):  # ['--db-password', 'X']: the word after the flag
                if flag(x[i - 1]) and isinstance(x[i], str) and not x[i].startswith("-") and not _KEEP.match(x[i]):
                    x[i] = REDACTED
            x[:] = [walk(v, depth + 1) for v in x]
        elif isinstance(x, tuple):
            return tuple(walk(v, depth + 1) for v in x)
        elif isinstance(x, dict):
            for k in list(x):
                x[k] = walk(x[k], depth + 1)
        elif hasattr(x, "__dict__") and not isinstance(x, type):
            for k, v in list(vars(x).items()):
                setattr(x, k, walk(v, depth + 1))
        return x

    return walk(obj, 0)


@dataclass
class Node:
    host: str
    slots: Optional[int] = None  # what the hostfile / -H grants (None: the launcher detects it there)
    procs: Optional[int] = None  # processes the launcher will start there


@dataclass
class Batch:
    train_batch_size: Optional[int] = None
    micro_batch_per_gpu: Optional[int] = None
    gradient_accumulation_steps: Optional[int] = None
    ok: Optional[bool] = None  # None: not judged (no DeepSpeed config, "auto", no world size)
    error: Optional[str] = None


@dataclass
class Plan:
    sources: List[str] = field(default_factory=list)
    # torchrun | torch.distributed.launch | deepspeed | accelerate | mpirun | mpiexec.hydra | horovodrun
    launcher: Optional[str] = None
    wrapper: Optional[str] = None  # srun, when srun starts the launcher
    nodes: List[Node] = field(default_factory=list)
    nodes_source: Optional[str] = None  # "-H gpu1:8,gpu2:8", "hostfile hf", ...
    nnodes_min: Optional[int] = None
    nnodes_max: Optional[int] = None
    nproc_per_node: Optional[int] = None
    world_min: Optional[int] = None
    world_max: Optional[int] = None
    master_addr: Optional[str] = None
    master_port: Optional[int] = None
    port_asked: Optional[int] = None  # the port typed when it is 0 ("pick one at run time"): master_port is None
    rdzv_backend: Optional[str] = None
    rdzv_endpoint: Optional[str] = None
    # the node rank the launcher reads: None where it ranks the nodes itself (torch's c10d/etcd
    # rendezvous, DeepSpeed's pdsh/openmpi/slurm runners, mpirun) or the line gives none
    machine_rank: Optional[int] = None
    script: Optional[str] = None
    script_args: List[str] = field(default_factory=list)
    env_set: Dict[str, str] = field(default_factory=dict)  # name -> value (redacted) the launch line sets
    forwarded: Optional[List[str]] = None  # names the launcher carries to remote ranks by flag (mpirun -x)
    # a launcher that carries by rule (DeepSpeed's pdsh runner): name -> how it reaches the ranks,
    # the names a rank reads in the launching environment -> value (redact()), the env files read
    carried: Optional[Dict[str, str]] = None
    env_launching: Dict[str, str] = field(default_factory=dict)
    env_files: List[str] = field(default_factory=list)
    precision: Optional[str] = None  # no | fp16 | bf16 | fp8
    mixed_precision: Optional[str] = None  # accelerate's own setting, for the agreement check
    ds_config: Optional[str] = None
    ds_bf16: Optional[bool] = None
    ds_fp16: Optional[bool] = None
    batch: Batch = field(default_factory=Batch)
    files: List[str] = field(default_factory=list)  # absolute paths every node must hold
    notes: List[str] = field(default_factory=list)  # what the launcher would warn about
    script_findings: List[str] = field(default_factory=list)  # read from a launch script (launch/script.py)
    # the text values (and keys) of the configs read and the launch line's words: a note that names one shows it as
    # one shell word (red team 2026-11-28e, docs/security.md 82., 83.); not in the JSON (the input's own data)
    config_values: List[str] = field(default_factory=list)

    # ------------------------------------------------------------ derived
    def world_size(self):
        """The world size when it is one number (min == max), else None."""
        if self.world_min is not None and self.world_min == self.world_max:
            return self.world_min
        return None

    @property
    def slots(self):
        return {n.host: n.slots for n in self.nodes if n.slots is not None}

    def set_nodes(self, nodes, source):
        self.nodes = nodes
        self.nodes_source = source
        procs = [n.procs for n in nodes]
        if nodes and all(p is not None for p in procs):
            used = [n for n in nodes if n.procs]
            self.nnodes_min = self.nnodes_max = len(used)
            self.world_min = self.world_max = sum(procs)
            per = {n.procs for n in used}
            self.nproc_per_node = per.pop() if len(per) == 1 else None

    def add_file(self, path, base=None):
        if not path:
            return
        p = os.path.expanduser(path)
        if not os.path.isabs(p):
            # pdsh runners (DeepSpeed, accelerate) `cd` to the launching directory on every node
            p = os.path.normpath(os.path.join(base or os.getcwd(), p))
        if p not in self.files:
            self.files.append(p)

    def add_config_values(self, doc, limit=10000):
        """Every text key and value of a parsed config (dicts and lists walked, at most ``limit`` kept)."""
        todo = [doc]
        while todo and len(self.config_values) < limit:
            x = todo.pop()
            if isinstance(x, dict):
                todo.extend(x.keys())
                todo.extend(x.values())
            elif isinstance(x, (list, tuple)):
                todo.extend(x)
            elif isinstance(x, str):
                self.config_values.append(x)

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    # ------------------------------------------------------------ output
    def to_json(self):
        return {
            "schema": SCHEMA,
            "launcher": self.launcher,
            "wrapper": self.wrapper,
            # the hosts that will run processes (a host left with 0 is in `notes`)
            "nodes": [{"host": n.host, "slots": n.slots, "procs": n.procs} for n in self.nodes if n.procs != 0],
            "nnodes": {"min": self.nnodes_min, "max": self.nnodes_max},
            "nproc_per_node": self.nproc_per_node,
            "world_size": {"min": self.world_min, "max": self.world_max},
            "master": {"addr": self.master_addr, "port": self.master_port},
            "rdzv": {"backend": self.rdzv_backend, "endpoint": self.rdzv_endpoint},
            "script": self.script,
            "script_args": list(self.script_args),
            "env": dict({"set": dict(self.env_set), "forwarded": list(self.forwarded or [])},
                        # only for a launcher that carries by rule (DeepSpeed's pdsh runner)
                        **({"carried": dict(self.carried), "launching": dict(self.env_launching)}
                           if self.carried is not None else {})),
            "precision": self.precision,
            "batch": {"train_batch_size": self.batch.train_batch_size,
                      "micro_batch_per_gpu": self.batch.micro_batch_per_gpu,
                      "gradient_accumulation_steps": self.batch.gradient_accumulation_steps,
                      "ok": self.batch.ok, "error": self.batch.error},
            "files": list(self.files),
            "notes": list(self.notes),
            "sources": list(self.sources),
        }


def _range(lo, hi):
    if lo is None and hi is None:
        return "unknown"
    if hi is None or lo is None:  # an elastic launcher's one bound (horovodrun --min-np without --max-np)
        return "at least %s" % lo if hi is None else "at most %s" % hi
    return str(lo) if lo == hi else "%s to %s" % (lo, hi)


_MARK = re.compile("\ue000([0-9]{1,6})\ue001")


def _noted(note, shown, windows):
    """A note as printed: a config's value in it (``shown``: fixline.Shown of Plan.config_values) is one inert shell
    word, the rest written as explain writes its prose (fixline.guarded_prose, docs/security.md 78.). (A config's
    value in a note was bare: `give --rdzv_backend x;touch M;# on the launch line` ran touch when its clause was
    pasted, docs/security.md 82.) The values are held out of guarded_prose by marks, so it does not quote their
    quoting again."""
    from gpudoctor.fixline import guarded_prose, inert_word

    words = []

    def mark(word):
        words.append(inert_word(word))
        return "\ue000%d\ue001" % (len(words) - 1)

    text = guarded_prose(shown(note, mark), windows)
    return _MARK.sub(lambda m: words[int(m.group(1))] if int(m.group(1)) < len(words) else m.group(0), text) \
        if words else text


def render_text(plan, windows=()):
    """The plan as a person reads it (`gpudoctor plan`); ``windows``: the input's own blank-followed separators
    (fixline.input_windows), for the notes."""
    out = []
    w = out.append
    w("launcher       %s%s" % (plan.launcher or "none (configs only)",
                                 " (started by %s)" % plan.wrapper if plan.wrapper else ""))
    if plan.nodes:
        w("nodes          %s" % (plan.nodes_source or ""))
        for n in plan.nodes:
            w("  %-20s slots %-6s procs %s" % (n.host, "?" if n.slots is None else n.slots,
                                                "?" if n.procs is None else n.procs))
    w("nnodes         %s" % _range(plan.nnodes_min, plan.nnodes_max))
    w("nproc_per_node %s" % ("unknown" if plan.nproc_per_node is None else plan.nproc_per_node))
    w("world size     %s" % _range(plan.world_min, plan.world_max))
    # (a launch line's words: one a shell acts on is one sh() word, as check's descriptions show a node's values
    # (docs/security.md 27., 42.): 'env set NCCL_SOCKET_IFNAME=eth0;touch X' ran touch when the assignment was copied;
    # the master and the rendezvous show the line's and the configs' words so too: `--rdzv-backend 'x; touch M'` was
    # bare in its row, 83. (a script's unknown, `$(scontrol ...) (the first node of the allocation)`, is written as
    # the script wrote it: no word of the line holds it)
    from gpudoctor.fixline import Shown, hostile, shown_word

    def word(v):
        v = str(v)
        return shown_word(v) if hostile(v) else v

    shown = Shown(plan.config_values)
    w("master         %s:%s" % (shown(str(plan.master_addr or "?")), "?" if plan.master_port is None else
                                shown(str(plan.master_port))))
    if plan.rdzv_backend or plan.rdzv_endpoint:
        w("rendezvous     %s %s" % (shown(str(plan.rdzv_backend or "?")), shown(str(plan.rdzv_endpoint or ""))))

    w("script         %s%s" % (word(plan.script or "?"),
                                (" " + " ".join(word(a) for a in plan.script_args)) if plan.script_args else ""))
    if plan.env_set:
        w("env set        %s" % " ".join("%s=%s" % (word(k), word(v)) for k, v in sorted(plan.env_set.items())))
    if plan.forwarded:
        w("env forwarded  %s" % " ".join(word(x) for x in plan.forwarded))
    w("precision      %s" % (plan.precision or "unknown"))
    b = plan.batch
    if plan.ds_config or b.train_batch_size is not None or b.micro_batch_per_gpu is not None:
        w("batch          train %s = micro %s x accumulation %s x world %s: %s" % (
            _n(b.train_batch_size), _n(b.micro_batch_per_gpu), _n(b.gradient_accumulation_steps),
            _range(plan.world_min, plan.world_max),
            "ok" if b.ok else ("not judged" if b.ok is None else "DeepSpeed refuses: %s" % b.error)))
    for note in plan.notes:
        # (prose around a launch line's words: written as explain writes its prose, docs/security.md 78.)
        w("note           %s" % _noted(note, shown, windows))
    # every value here came from a launch line, a config or a hostfile: a control character
    # (an escape sequence that retitles or clears the terminal) is shown escaped, never sent
    from gpudoctor.report.text import _printable

    return "\n".join(_printable(line) for line in out) + "\n"


def _n(v):
    return "?" if v is None else str(v)
