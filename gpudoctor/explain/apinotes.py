"""What the called API's own documentation says about using it (apinotes20, issue 18: "name the fix").

A usage error raised inside an API the user's line calls is often answered by a constraint the API's docstring
states, not by the message: "Currently only the cross-entropy loss is supported." (torch.distributed.tensor.parallel
.loss_parallel), "The `use_reentrant` parameter should be passed explicitly." (torch.utils.checkpoint.checkpoint).
generated/api_notes.json (tools/gen_api_notes.py) keeps, per public class / function / method of the training
libraries' wheels, the sentences of its note / warning blocks and its sentences that constrain its use (must, only,
cannot, before, instead, requires, not supported ...), and its example's required order (`with loss_parallel():` /
`loss.backward()`). Under a traceback whose root is a library's exception raised below the user's own line, this
module:

  1. finds the API: the library frame right under the user's line and the innermost library frame (the one that
     raised), each looked up by its file (relative to site-packages; pytorch_lightning / lightning_fabric read as
     lightning's) and function (`__init__` stands for the class the line calls; a method brings its class's notes);
     else the name the line calls among the callables of the package it called into;
  2. keeps the API's sentences that say what to do (must, should not / only / be called ..., only ..., requires, not
     supported, use ... instead) and share two words of their own with the message (a word of four letters or more,
     not a word every message has: "tensor", "value", "expected" ...; a word more than COMMON_DF of the table's
     sentences have - rank, state, group, step - counts half; an identifier both write - `use_reentrant`,
     IterableDataset - counts once with its parts; the words of the API's own name do not count); a parameter's
     sentence only when the message names that parameter, its name not counting; at most two, the most words shared
     first; when several APIs of one frame (a scheduler's get_lr, which every scheduler class of the file defines)
     have one, only the one that shares the most words alone is kept; the example's order lines come with it when
     a kept sentence or the message names a word of those lines;
  3. adds them as the documented fix: a fix line quoting the sentence and the API, after the cause's own fix lines
     (a specific cause the text proves stays first), and a note with the package version, the file, the order lines
     and the API's documentation page.
Nothing is added when no sentence shares enough words (the API's notes are about something else), for a cascade or
a note, or without a root (a healthy log has none).
"""

import re

from gpudoctor.explain import pytb, userline

_INDEX = None
_DF = None
MAX_KEPT = 2
COMMON_DF = 100  # (of the table's 6,479 sentences: rank 192, state 254, group 153; milestone 3, placement 19)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{3,40}")
# words every usage message (or every docstring) has: never the evidence that a sentence is about this failure
_COMMON = frozenset("""tensor tensors value values type types object objects attribute attributes argument arguments
expected expects error errors none true false must only should call called calling calls function functions model
models input inputs output outputs with when that this have from into than then there which will would shape shapes
size sizes device devices dtype dtypes data self used uses using given give gives found make makes made been being
does done other same also more most some such each every what your their them they these those here where while
after before instead cannot support supported supports unsupported require required requires need needs needed
instance instances class classes method methods module modules number numbers length list lists dict dicts
string strings name names default defaults currently current please note example following either just like
return returns returned case cases file files first last over under between within without because could into
torch python none option options parameter parameters param params should valid invalid allowed allow allows
time times mode modes only true false kwargs args error raise raised exception check checks result results
doesn isn aren wasn weren hasn haven didn won shouldn couldn wouldn
pytorch lightning transformers accelerate deepspeed omegaconf hydra dataset datasets peft jax flax ray""".split())


def table():
    """generated/api_notes.json(.gz), read once per process (knowledge.generated_table keeps it)."""
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("api_notes")


def _index():
    """({(file, func): [qual]}, {short public name: [qual]}) of the table's callables."""
    global _INDEX
    if _INDEX is None:
        by_frame, by_name = {}, {}
        for qual, rec in (table().get("callables") or {}).items():
            by_frame.setdefault((rec.get("file"), rec.get("func")), []).append(qual)
            by_name.setdefault(rec.get("name", qual).rsplit(".", 1)[-1], []).append(qual)
        _INDEX = (by_frame, by_name)
    return _INDEX


def _words(text):
    """The lower-case words of a text a sentence may share with it (camel / snake parts too: nll_loss_backward ->
    nll, loss, backward; DTensor -> dtensor), plurals folded, common words out."""
    out = set()
    for w in _WORD.findall(text or ""):
        for part in [w] + re.findall(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])", w):
            p = part.lower()
            if len(p) >= 4:
                p = p[:-1] if p.endswith("s") and not p.endswith("ss") else p
                if p not in _COMMON and p + "s" not in _COMMON:
                    out.add(p)
    for w in re.findall(r"[A-Za-z]{2,40}(?:_[A-Za-z0-9]{1,40}){1,6}", text or ""):  # snake_case parts
        for p in w.lower().split("_"):
            if len(p) >= 4 and p not in _COMMON:
                out.add(p[:-1] if p.endswith("s") and not p.endswith("ss") else p)
    return out


# what a kept sentence must say to be quoted as a fix: what to do or not to do (a note that only describes is not)
_DIRECTIVE = re.compile(r"\b(?:must|should (?:not|only|never|always|first)|should be (?:called|passed|set|"
                        r"specified|provided|given|registered|wrapped|initialized|created|done|the same|on|in)|"
                        r"cannot|can ?not|can't|only (?:be|supported|works?|valid|used|when|if|with|for|one|either|on)|"
                        r"requires?|required|not supported|unsupported|not allowed|make sure|ensure|do not|don't|never|"
                        r"needs? to|has to|have to|(?:before|after) (?:calling|call|you)|exactly one|divisible)\b|"
                        r"^(?:Use|Call|Pass|Set|Wrap|Avoid|Prefer|Please)\b|\buse [^.]{1,80} instead\b", re.I)
# an identifier of a text: snake_case, camelCase / CamelCase with an inner capital, or dotted (use_reentrant,
# IterableDataset, DTensor, torch.load)
_IDENT = re.compile(r"(?<![\w.])(?:[A-Za-z][A-Za-z0-9]{0,40}(?:_[A-Za-z0-9]{1,40}){1,6}|"
                    r"[A-Za-z]{1,20}[a-z0-9][A-Z][A-Za-z0-9]{1,40}|[A-Z]{1,3}[A-Z][a-z][A-Za-z0-9]{1,40}|"
                    r"[A-Za-z_]\w{1,40}(?:\.[A-Za-z_]\w{1,40}){1,4})(?![\w])")


def _idents(text):
    return {m.lower() for m in _IDENT.findall(text or "") if m.lower() not in _COMMON}


def _df():
    """{word: how many of the table's sentences have it}: a word many APIs' notes say (rank, state, gradient,
    layer ...) is weaker evidence than one few say (milestone, placement)."""
    global _DF
    if _DF is None:
        _DF = {}
        plain = re.compile(r"[a-z]{4,40}")  # (a cheap count: _words' plain lower-case words, plurals folded)
        for rec in (table().get("callables") or {}).values():
            for _kind, sent in rec.get("notes") or []:
                for w in {x[:-1] if x.endswith("s") and not x.endswith("ss") else x for x in plain.findall(
                        sent.lower())}:
                    _DF[w] = _DF.get(w, 0) + 1
    return _DF


def related(sentence, mwords, mids, own=frozenset(), df=None):
    """The words a sentence shares with a message (``mwords``: its _words, ``mids``: its _idents) when they say it
    is about the same thing: two of them or more, an identifier both write (`use_reentrant`, IterableDataset)
    counting once with its parts, a word more than COMMON_DF of the table's sentences have (``df``) half; the API's
    own name's words (``own``) do not count (a message that names a parameter and a sentence that names it for
    something else share one identifier: not enough). None when not."""
    ids = (_idents(sentence) & mids) - own
    parts = set()
    for i in ids:
        parts |= _words(i) | {i}
    shared = ((_words(sentence) & mwords) - own) - parts
    weight = len(ids) + sum(0.5 if df and df.get(w, 0) > COMMON_DF else 1 for w in shared)
    if weight >= 2:
        return shared | ids
    return None


def _site(file):
    from gpudoctor.explain.paramdocs import site_path

    return site_path(file)


_BY_FILE = None


def _by_file():
    """{file: [((file, func), [qual])]} of the table's frame index."""
    global _BY_FILE
    if _BY_FILE is None:
        _BY_FILE = {}
        for key, quals in _index()[0].items():
            _BY_FILE.setdefault(key[0], []).append((key, quals))
    return _BY_FILE


def _with_class(quals):
    """The callables and, for a method, its class (a class's notes hold what its methods require)."""
    calls = table().get("callables") or {}
    out = []
    for q in quals:
        for x in (q, q.rsplit(".", 1)[0] if calls[q]["kind"] == "method" else None):
            if x and x in calls and x not in out:
                out.append(x)
    return out


def candidates(tb):
    """Groups of the table's APIs the traceback's user line called and the library raised in: the API the line
    calls (its first library frame: the file's callables of that function - the class the line names for
    `__init__` -, else the callables of the called package with the name the line calls), then the innermost
    library frame's; a method brings its class. [] without a user line calling into a library."""
    uf = userline.user_frame(tb)
    if uf is None:
        return []
    calls = table().get("callables") or {}
    by_frame, by_name = _index()
    from gpudoctor.explain.libarg import _call

    call = _call(uf["src"][:pytb.MAX_SRC])
    short = call[0].rsplit(".", 1)[-1] if call else None
    libs = [(_site(f), fn) for f, fn in uf["callees"] if _site(f)]
    if not libs:
        return []
    rel, fn = libs[0]
    if fn == "__init__":
        # the class the line builds: the one it calls, or (a nested call: Sequential(..., GroupNorm(3, 8))) the
        # classes of the frame's file the line calls by name
        first = [q for q in by_frame.get((rel, short), ()) if calls[q]["kind"] == "class"] if short else []
        if not first:
            first = [q for (f, func), qs in _by_file().get(rel, ()) for q in qs if calls[q]["kind"] == "class" and
                     re.search(r"(?<![\w])%s\s{0,2}\(" % re.escape(func), uf["src"][:pytb.MAX_SRC])]
    else:
        first = list(by_frame.get((rel, fn), ())) + _defining(rel, fn)
    if not first and short:
        # the name the line calls, in the package it called into: `AutoConfig.from_pretrained(...)` the method of the
        # class it names, `get_peft_model(...)` a function (or class) of that name; an instance's method
        # (`model.from_pretrained`) names no class: none
        pkg = rel.split("/", 1)[0]
        pkg = {"pytorch_lightning": "lightning", "lightning_fabric": "lightning"}.get(pkg, pkg)
        parts = call[0].split(".")
        first = [q for q in by_name.get(short, ()) if calls[q]["package"] == pkg and (
            calls[q]["name"].split(".")[-2] == parts[-2] if calls[q]["kind"] == "method" and len(parts) > 1
            else calls[q]["kind"] != "method")]
    groups = [_with_class(first)] if first else []
    if len(libs) > 1:
        last = _with_class(list(by_frame.get(libs[-1], ())) + _defining(*libs[-1]))
        if last and last not in groups:
            groups.append(last)
    return groups


def _defining(rel, fn):
    """The kept classes of file ``rel`` whose body defines ``fn`` (a frame of a method with no sentence of its own:
    DeviceStatsMonitor.setup raises what the class's docstring requires)."""
    calls = table().get("callables") or {}
    return [q for (_f, _func), qs in _by_file().get(rel, ()) for q in qs
            if calls[q]["kind"] == "class" and fn in (calls[q].get("methods") or ())]


def _best(qual, mwords, mids):
    """(score, [sentences], order lines) of one API's kept sentences related to the message (the most words shared
    first, at most MAX_KEPT), or None."""
    rec = (table().get("callables") or {})[qual]
    own = _words(" ".join(rec["name"].split(".")[-2:]))  # (the API's own name is no evidence: the frame gives it)
    scored = []
    for i, (kind, sent) in enumerate(rec.get("notes") or []):
        mine = own
        if kind == "param":  # "name: sentence": about this failure only when the message names the parameter
            name = sent.split(":", 1)[0]
            if name.lower() not in mids and not (_words(name) and _words(name) <= mwords):
                continue
            mine = own | _words(name) | {name.lower()}  # (and its name is no evidence of its own)
        shared = related(sent, mwords, mids, mine, _df()) if _DIRECTIVE.search(sent) else None
        if shared:
            scored.append((-len(shared), i, sent))
    if not scored:
        return None
    scored.sort()
    kept = [s for _n, _i, s in scored[:MAX_KEPT]]
    order = rec.get("order") or []
    if order and not (_words(" ".join(order)) & (mwords | _words(" ".join(kept)))):
        order = []
    return -scored[0][0], kept, order


def advise(tb):
    """[(qual, [sentences kept], order lines or [])] for the traceback ``tb``'s message: per candidate group, the API
    whose sentence shares the most words with the message, when one API alone does (a frame's function that many
    classes of the file define - a scheduler's get_lr - is told apart by the message, or not at all)."""
    msg = (tb.get("msg") or "").strip()
    if not msg:
        return []
    mwords, mids = _words(msg[:600]), _idents(msg[:600])
    if not mwords:
        return []
    out = []
    for group in candidates(tb):
        got = [(b, q) for q in group for b in [_best(q, mwords, mids)] if b]
        if not got:
            continue
        top = max(b[0] for b, _q in got)
        best = [(b, q) for b, q in got if b[0] == top]
        if len({repr(b[1]) for b, _q in best}) != 1:
            continue  # (APIs of the group say different things as strongly: none is told apart)
        b, q = min(best, key=lambda x: len(x[1]))
        if all(q != o[0] for o in out):
            out.append((q, b[1], b[2]))
    return out


def _version(pkg):
    c = (table().get("counts") or {}).get({"hydra": "hydra_core"}.get(pkg, pkg)) or {}
    return "%s %s" % (pkg, c["version"]) if c.get("version") else pkg


def fill(scan, findings, tb):
    """Add the documented constraint to the root's first cause (libarg.fill's hook, after paramdocs.fill)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes") or not tb:
        return
    inner = pytb.innermost(tb)
    if not inner or inner[3] != "lib":
        return
    got = advise(tb)
    if not got:
        return
    calls = table().get("callables") or {}
    first = f["causes"][0]
    fixes = first["fix"]
    for qual, kept, order in got[:1]:
        rec = calls[qual]
        line = "follow what %s's documentation requires: \u201c%s\u201d" % (
            rec["name"], userline.quote(kept[0]))
        if order:
            line += " (its example: %s)" % "; ".join(x.strip() for x in order)
        if line not in fixes:
            fixes.append(line)  # (last: below the cause's own fix lines, specific or not)
        note = "%s's documentation (%s, %s): %s%s See %s" % (
            rec["name"], _version(rec["package"]), rec["file"],
            " ".join("\u201c%s\u201d" % userline.quote(s) for s in kept),
            " Its example: %s." % " / ".join(x.strip() for x in order) if order else "", rec["url"])
        if note not in f["notes"]:
            f["notes"].append(note)
