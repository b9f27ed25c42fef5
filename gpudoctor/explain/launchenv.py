"""A rank variable the job's process did not have, read against what the launcher in the text sets (issue 18,
megatron13).

`KeyError: 'LOCAL_WORLD_SIZE'`, `environment variable MASTER_ADDR expected, but not set`: a process read a variable
its launcher was meant to set. Which variables each launcher sets in the processes it starts, and which of its flags or
fields gives each its value, is generated from the launchers' sources (tools/gen_launch_env.py ->
generated/launch_env.json: torchrun's elastic agent, TorchX's dist.ddp, Composer's launcher, accelerate, Ray Train's
torch backend, DeepSpeed's launcher, a Kubeflow PyTorchJob's controller). When the text shows the launcher (its
traceback frames, its module, its command, its resource kind) and the error names such a variable:

- the launcher sets it: the process that raised was not started by it (plain python, a subprocess with an
  environment of its own, Ray Train's driver rather than a worker), and the fix is how that launcher starts a script;
- the launcher does not set it, but sets another name for the same thing (a node's rank is GROUP_RANK under torchrun,
  NODE_RANK under Composer and Ray Train, CROSS_RANK under DeepSpeed; the processes on a node LOCAL_WORLD_SIZE, or
  DeepSpeed's LOCAL_SIZE): read that name, and the flag that gives it its value;
- the launcher hands its workers to another (TorchX's dist.ddp, accelerate and a PyTorchJob's container run torchrun):
  the variables are that one's.

Plugged into launchctx.py as ocictx.py is (its ENTRY's "paste" patterns, record and read): the answer is the root's
first cause when the root is the error itself (rendezvous.env_missing, or the KeyError read as the job's own code),
otherwise a note beside it. Nothing without both the launcher and the variable in the text.
"""

import re

from gpudoctor.explain.knowledge import Pattern, generated_table

MAX_KEPT = 8
# the errors that name a variable the process lacked (Python's os.environ KeyError; torch/distributed/rendezvous.py
# _env_error: "Error initializing torch.distributed using env:// rendezvous: environment variable %s expected, but not
# set"), and the launchers' own refusals that name one
_ERR = (r"\bKeyError: ['\"](?P<k>[A-Z][A-Z0-9_]{1,60})['\"]|environment variable (?P<e>[A-Z][A-Z0-9_]{1,60}) expected, "
        r"but not set")
# what a rank variable is called (a KeyError of another name, 'MODEL_PATH', is the job's own)
_RANKISH = re.compile(r"RANK|WORLD|SIZE|MASTER_(?:ADDR|PORT)|NNODES|NPROC|NODE")
# the more specific launcher first: one that hands its workers to torchrun shows torchrun's frames too
_ORDER = ("composer", "ray_train", "deepspeed", "pytorchjob", "mpijob", "torchx", "accelerate", "torchrun", "srun")
# the root whose first cause this is: the error itself; any other root this explains (the KeyError read as the job's
# own code), or none, makes rendezvous.env_missing the root with this as its cause
SYMPTOMS = {"rendezvous.env_missing"}
ENTRY_ID, EXPLAINS = "rendezvous.env_missing", {"code.exception", "code.library_error"}


def _cause(found, what, ev, fix):
    x = found("_cause", what, ev, fix, SYMPTOMS)
    x.instead = found(ENTRY_ID, what, ev, fix, EXPLAINS, alone=True)
    return x


def _table():
    return generated_table("launch_env") or {}


def patterns(entry):
    out = [Pattern(entry, "paste", _ERR, 0, site={"class": "lenv_err", "id": "launchenv-err"},
                   needles=["keyerror:", "expected,butnotset"])]
    for who, e in sorted(_table().get("launchers", {}).items()):
        if e.get("reader"):  # a library's own reader of the variables, which expects its own launcher (Composer's)
            out.append(Pattern(entry, "paste", e["reader"]["error"], 0, site={
                "class": "lenv_err", "id": "launchenv-reader-%s" % who, "reader": who}))
        for i, rx in enumerate(e.get("detect", [])):
            out.append(Pattern(entry, "paste", rx, 0, site={"class": "lenv_who", "id": "launchenv-%s-%d" % (who, i),
                                                             "launcher": who}))
    return out


class State(object):
    def __init__(self):
        self.who = {}  # launcher -> (line, text)
        self.err = []  # (line, variable, text)


def _state(scan):
    st = getattr(scan, "launchenv", None)
    if st is None:
        st = scan.launchenv = State()
    return st


def record(scan, hit, win=None):
    st = _state(scan)
    site = hit.pattern.site
    text = hit.text[:400].strip()
    if site["class"] == "lenv_who":
        st.who.setdefault(site["launcher"], (hit.line, text))
        if hasattr(scan, "retire"):
            scan.retire(hit.pattern)  # one line per launcher is enough (Scan.retire)
    elif site["class"] == "lenv_err" and len(st.err) < MAX_KEPT:
        if site.get("reader"):
            m = re.search(hit.pattern.source, text)
            var = m and m.group("v")
        else:
            m = re.search(_ERR, text)
            var = m and (m.group("k") or m.group("e"))
        if var and _RANKISH.search(var):
            st.err.append((hit.line, var, text, site.get("reader")))


def _meaning(table, var):
    """(meaning, {launcher: name}) of a variable some launcher sets under that meaning, or (None, {})."""
    for meaning, names in table.get("meanings", {}).items():
        if var in names.values():
            return meaning, names
    return None, {}


def _src(ws):
    return ws[0] if ws else "its source"


def read(scan, found):
    """[found(eid, what, ev, fix, symptoms)] (launchctx.Found) of a rank variable against the launcher in the text."""
    st = getattr(scan, "launchenv", None)
    if st is None or not st.err or not st.who:
        return []
    table = _table()
    ls = table.get("launchers", {})
    who = next((w for w in _ORDER if w in st.who and w in ls), None)
    if who is None:
        return []
    # the first error that names a variable some launcher sets: a key of the job's own (KeyError: 'BATCH_SIZE' in a
    # config dict) is no launcher's variable, and neither answers nor hides a later one that is
    err = next((x for x in st.err if any(x[1] in y.get("sets", {}) for y in ls.values())), None)
    if err is None:
        return []
    line, var, text, reader = err
    e = ls[who]
    if reader and reader != who and reader in ls and var in ls[reader]["sets"]:
        # the library that raised reads the variables its own launcher sets; the text shows another launcher
        r = ls[reader]
        what = ("%s is read by the library of %s (%s), which expects the variables that launcher sets; the text shows "
                "%s (line %d: %s), which does not set it (that launcher does: %s)" % (
                    var, r["title"], r["reader"]["file"], ls[who]["title"], st.who[who][0], st.who[who][1][:160],
                    _src(r["sets"][var])))
        fix = ("start the script with %s, which sets %s and the other variables the library reads: %s; or, with %s, "
               "export %s yourself" % (r["title"], var, r.get("usage", ""), ls[who]["title"].split(" (")[0], var))
        return [_cause(found, what, [(line, text), st.who[who]], fix)]
    eff = who
    d = e.get("delegates")
    if var not in e["sets"] and d and d["to"] in ls:
        # TorchX's dist.ddp, accelerate, a PyTorchJob's container: torchrun starts the workers, so its variables
        # (and its names for what it does not set: GROUP_RANK for a node's rank) are the ones the workers have
        eff = d["to"]
    ee = ls[eff]
    seen = "%s (line %d: %s)" % (e["title"], st.who[who][0], st.who[who][1][:160])
    via = "" if eff == who else ", whose workers %s starts (%s)" % (ee["title"], d["how"])
    ev = [(line, text), st.who[who]]
    flags = dict(ee.get("flags", {}), **e.get("flags", {}))
    if var in ee["sets"]:
        how = flags.get(var)
        what = ("the text shows %s%s, which sets %s in every process it starts (%s%s); the process that raised (line %d) "
                "had no %s: it was not started by that launcher (python train.py directly, a subprocess given an "
                "environment of its own, the driver rather than a worker)" % (
                    seen, via, var, _src(ee["sets"][var]), "; its value: %s" % how if how else "", line, var))
        fix = "start the script through the launcher so that every process gets %s: %s" % (var, e.get("usage") or
                                                                                            ee.get("usage", ""))
        return [_cause(found, what, ev, fix)]
    meaning, names = _meaning(table, var)
    other = names.get(eff) or names.get(who)
    if other:
        how = flags.get(other)
        by = " and ".join(ls[w]["title"].split(" (")[0] for w, n in sorted(names.items()) if n == var and w in ls)
        what = ("the text shows %s%s, which does not set %s (%s); it sets %s, its name for %s (%s)%s" % (
            seen, via, var, "%s is %s under %s" % (var, meaning, by) if by else "another launcher's name", other,
            meaning, _src(ee["sets"].get(other) or e["sets"].get(other)), "; its value: %s" % how if how else ""))
        # (set from the other name in the process itself: a per-process value, LOCAL_RANK, cannot be exported once
        # before the launcher)
        fix = ("read %s instead of %s in the script (os.environ['%s']), or set it from that before it is read: "
               "os.environ.setdefault('%s', os.environ['%s'])%s" % (other, var, other, var, other,
                                                                   " (%s's value: %s)" % (other, how) if how else ""))
        return [_cause(found, what, ev, fix)]
    setters = sorted(w for w, x in ls.items() if var in x.get("sets", {}))
    what = ("the text shows %s%s, which sets no %s (%s)" % (
        seen, via, var, "set by %s" % ", ".join(ls[w]["title"] for w in setters[:3]) if setters else
        "no launcher read here sets it"))
    best = next((w for w in reversed(_ORDER) if w in setters), setters[0] if setters else None)  # torchrun first
    fix = "set %s yourself before the script reads it, or start the script with a launcher that sets it%s" % (
        var, ": " + ls[best].get("usage", "") if best else "")
    return [_cause(found, what, ev, fix)]
