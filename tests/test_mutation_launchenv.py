"""Cases for the mutants of gpudoctor/explain/launchenv.py (docs/mutation.md, round 8): record()'s bounds and each
kind of hit, every branch of read() (the library's own launcher, a delegating launcher, a variable the launcher sets,
its own name for the same thing, a variable only other launchers set, the launchers' order) and patterns(), each
compared whole with a reviewed table (tests/test_mutation_launchenv.json). The texts are the lines the launchers print
(torchrun's OMP_NUM_THREADS banner, DeepSpeed's '[launch.py:N:main]' logger prefix, Composer's 'Global rank N (PID n)
exited with code' and composer/utils/dist.py's 'Torch distributed is initialized but environment variable %s is not
set', srun's 'srun: error:') and Python's KeyError / torch's env:// rendezvous refusal; the variables are those
generated/launch_env.json lists. Regenerate the table after a reviewed change: python tests/test_mutation_launchenv.py."""

import json
import os
import types

from gpudoctor.explain import launchctx, launchenv as LE

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "test_mutation_launchenv.json")

BANNER = {
    "torchrun": (3, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default"),
    "deepspeed": (1, "[INFO] [launch.py:256:main] process 2162 spawned with command: ['python', 'train.py']"),
    "composer": (9, "Global rank 0 (PID 811) exited with code 1"),
    "pytorchjob": (2, "Warning  BackOff  pytorchjob/bert-master-0  kubeflow.org/v1"),
    "torchx": (4, "torchx 2024-01-01 10:00:00 INFO Launched app: local_cwd://torchx/ddp-x1"),
    "accelerate": (5, "  File \"/usr/lib/python3/site-packages/accelerate/commands/launch.py\", line 1, in main"),
    "srun": (6, "srun: error: node07: task 3: Exited with exit code 1"),
    "mpijob": (7, "mpijob.kubeflow.org/pi created"),
    "ray_train": (8, "(RayTrainWorker pid=1234) Setting up process group"),
    "nobody": (10, "no launcher of the table"),
}


def _ke(var, line=20):
    return (line, var, "KeyError: '%s'" % var, None)


# (name, launchers shown, errors recorded) -> read()'s answer
READ = [
    ("nothing recorded", [], []),
    ("no launcher", [], [_ke("RANK")]),
    ("no error", ["torchrun"], []),
    ("a launcher the table lacks", ["nobody"], [_ke("RANK")]),
    ("torchrun sets RANK", ["torchrun"], [_ke("RANK")]),
    ("torchrun sets LOCAL_WORLD_SIZE (its flag)", ["torchrun"], [_ke("LOCAL_WORLD_SIZE")]),
    ("torchrun's GROUP_RANK for NODE_RANK", ["torchrun"], [_ke("NODE_RANK")]),
    ("DeepSpeed's LOCAL_SIZE", ["deepspeed"], [_ke("LOCAL_WORLD_SIZE")]),
    ("DeepSpeed's CROSS_RANK for GROUP_RANK", ["deepspeed"], [_ke("GROUP_RANK")]),
    ("a PyTorchJob's torchrun sets LOCAL_RANK", ["pytorchjob"], [_ke("LOCAL_RANK")]),
    ("a PyTorchJob sets RANK itself", ["pytorchjob"], [_ke("RANK")]),
    ("TorchX's torchrun and its flag", ["torchx"], [_ke("GROUP_RANK")]),
    ("TorchX: NODE_RANK, torchrun's GROUP_RANK", ["torchx"], [_ke("NODE_RANK")]),
    ("accelerate's WORLD_SIZE", ["accelerate"], [_ke("WORLD_SIZE")]),
    ("accelerate: NODE_RANK, torchrun's GROUP_RANK", ["accelerate"], [_ke("NODE_RANK")]),
    ("srun's SLURM_LOCALID", ["srun"], [_ke("LOCAL_RANK")]),
    ("srun: MASTER_ADDR only others set", ["srun"], [_ke("MASTER_ADDR")]),
    ("an MPIJob: RANK", ["mpijob"], [_ke("RANK")]),
    ("Ray Train sets NODE_RANK", ["ray_train"], [_ke("NODE_RANK")]),
    ("Composer's reader under torchrun", ["torchrun"], [(30, "NODE_RANK", "Torch distributed is initialized but "
                                                         "environment variable NODE_RANK is not set", "composer")]),
    ("Composer's reader under Composer", ["composer"], [(30, "NODE_RANK", "Torch distributed is initialized but "
                                                         "environment variable NODE_RANK is not set", "composer")]),
    ("Composer's reader, a variable Composer does not set", ["torchrun"], [(30, "GROUP_RANK", "environment variable "
                                                                           "GROUP_RANK is not set", "composer")]),
    ("a reader the table lacks", ["torchrun"], [(30, "RANK", "x", "nobody")]),
    ("Composer's reader under a long torchrun line (cut at 160)",
     [("torchrun", (3, "torchrun --nnodes 2 --nproc-per-node 8 " + "--rdzv-conf timeout=900 " * 8 + "train.py"))],
     [(30, "NODE_RANK", "environment variable NODE_RANK is not set", "composer")]),
    ("torchrun's GROUP_WORLD_SIZE for CROSS_SIZE (no flag gives it)", ["torchrun"], [_ke("CROSS_SIZE")]),
    ("the more specific launcher first", ["torchrun", "composer"], [_ke("LOCAL_WORLD_SIZE")]),
    ("DeepSpeed before torchrun", ["torchrun", "deepspeed"], [_ke("LOCAL_WORLD_SIZE")]),
    ("no launcher's variable first, then one", ["torchrun"], [_ke("NNODES_OF_MINE", 11), _ke("WORLD_SIZE", 12),
                                                              _ke("RANK", 13)]),
    ("only no launcher's variables", ["torchrun"], [_ke("NNODES_OF_MINE")]),
]


def _found(x):
    if x is None:
        return None
    return {"eid": x.eid, "what": x.what, "ev": [list(e) for e in x.ev], "fix": x.fix,
            "symptoms": sorted(x.symptoms), "alone": x.alone, "instead": _found(getattr(x, "instead", None))}


def _read(who, err):
    scan = types.SimpleNamespace()
    if who or err:
        st = LE.State()
        for w in who:
            w, banner = w if isinstance(w, tuple) else (w, BANNER[w])
            st.who[w] = banner
        st.err = list(err)
        scan.launchenv = st
    return [_found(x) for x in LE.read(scan, launchctx.Found)]


class _Scan(object):
    def __init__(self, retire=True):
        self.retired = []
        if retire:
            self.retire = self.retired.append


def _hit(cls, text, line, **site):
    site = dict(site, **{"class": cls})
    pat = types.SimpleNamespace(site=site, source=site.pop("source", ""))
    return types.SimpleNamespace(pattern=pat, text=text, line=line)


READER = "Torch distributed is initialized but environment variable (?P<v>[A-Z][A-Z0-9_]{1,60}) is not set"


def _record(hits, retire=True):
    scan = _Scan(retire)
    for h in hits:
        LE.record(scan, h)
    st = scan.launchenv
    return {"who": {k: list(v) for k, v in sorted(st.who.items())}, "err": [list(e) for e in st.err],
            "retired": [h.site["launcher"] for h in scan.retired]}


RECORD = [
    ("a launcher twice: the first line kept, retired each time", True,
     [_hit("lenv_who", "  torchrun --nproc-per-node 8 train.py  ", 3, launcher="torchrun"),
      _hit("lenv_who", "torchrun --nnodes 2", 4, launcher="torchrun"),
      _hit("lenv_who", "[launch.py:256:main] x", 5, launcher="deepspeed")]),
    ("no retire on the scan", False, [_hit("lenv_who", "torchrun x", 3, launcher="torchrun")]),
    ("a text cut at 400 characters, then stripped", True,
     [_hit("lenv_who", " " + "a" * 398 + " b" * 10, 3, launcher="srun"),
      _hit("lenv_err", "KeyError: 'RANK'" + " " * 390 + "tail", 7)]),
    ("each error form; a key of the job's own and an unmatched line are not kept", True,
     [_hit("lenv_err", "KeyError: 'LOCAL_RANK'", 7),
      _hit("lenv_err", "KeyError: \"MASTER_PORT\"", 8),
      _hit("lenv_err", "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
                       "MASTER_ADDR expected, but not set", 9),
      _hit("lenv_err", "KeyError: 'MODEL_PATH'", 10),
      _hit("lenv_err", "KeyError: 'world_size'", 11),
      _hit("lenv_err", "a line that matched a needle only", 12)]),
    ("the library's own reader", True,
     [_hit("lenv_err", "RuntimeError: Torch distributed is initialized but environment variable NODE_RANK is not set",
           14, reader="composer", source=READER),
      _hit("lenv_err", "RuntimeError: Torch distributed is initialized but environment variable DATA_DIR is not set",
           15, reader="composer", source=READER)]),
    ("at most MAX_KEPT errors", True, [_hit("lenv_err", "KeyError: 'RANK_%d'" % i, 20 + i) for i in range(11)]),
]


def _patterns():
    out = []
    for p in LE.patterns("rendezvous.env_missing"):
        out.append({"entry": p.entry, "role": p.role, "source": p.source, "rank": p.rank, "site": p.site,
                    "needles": sorted(n.decode() if isinstance(n, bytes) else n for n in (p.needles_b or []))})
    return out


def _all():
    return {"read": {n: _read(w, e) for n, w, e in READ},
            "record": {n: _record(h, r) for n, r, h in RECORD},
            "patterns": _patterns()}


def _want():
    with open(TABLE) as f:
        return json.load(f)


def test_read_every_branch():
    want = _want()["read"]
    for n, w, e in READ:
        assert _read(w, e) == want[n], n


def test_record_bounds_and_forms():
    want = _want()["record"]
    for n, r, h in RECORD:
        assert _record(h, r) == want[n], n


def test_patterns_of_the_table():
    assert _patterns() == _want()["patterns"]


if __name__ == "__main__":
    with open(TABLE, "w") as f:
        json.dump(_all(), f, indent=1, sort_keys=True)
        f.write("\n")
