"""The valid names for nvidia-smi's refused --query-gpu field: 'Field "x" is not a valid field to query.'
gets the names of nvidia-smi's own --help-query-gpu table that are closest to x (the table is read from the
binary by tools/gen_nvidia_smi_messages.py into generated/nvidia_smi_messages.json: query_fields)."""

import difflib
import re

from gpudoctor.explain.text import clip

# nvidia-smi's message (the binary's format 'Field "%s" is not a valid field to query.'); the name is bounded
_BAD = re.compile(r'Field "([ !#-~]{1,100})" is not a valid field to query\.')  # printable ASCII only
_cache = {}


def fields():
    """({name: its canonical name}, the driver version) of --query-gpu (both a field's names: 'gpu_name' ->
    'name'); ({}, '') when the table is not there."""
    if "f" not in _cache:
        try:
            from gpudoctor.explain.knowledge import read_generated

            doc = read_generated("nvidia_smi_messages")
            names = {}
            for row in doc.get("query_fields", []):
                names[row["name"]] = row["name"]
                if row.get("alt"):
                    names[row["alt"]] = row["name"]
            _cache["f"] = (names, doc["header"]["version"].split(" (")[0])
        except (OSError, ValueError, KeyError, TypeError):
            _cache["f"] = ({}, "")
    return _cache["f"]


def _tokens(name):
    return [t for t in re.split(r"[._]", name.lower()) if t]


def suggest(bad):
    """The valid --query-gpu names closest to ``bad`` (at most 6), or []: a name whose words each start with one
    of bad's words, in any order ('gpu_util' -> utilization.gpu, 'temp.gpu' -> temperature.gpu), then the spelling
    neighbours (difflib), then the fields under bad as a prefix ('memory' -> memory.total, memory.used ...)."""
    names, _ = fields()
    bad = bad.strip().lower()
    want = _tokens(bad)
    got = []
    if want:
        words = sorted((len(_tokens(n)), n) for n in names
                       if len(_tokens(n)) == len(want) and
                       all(any(t.startswith(w) or w.startswith(t) for t in _tokens(n)) for w in want))
        got = [n for _, n in words][:3]
    got += [n for n in difflib.get_close_matches(bad, list(names), n=4, cutoff=0.6) if n not in got]
    got += [n for n in names if n.startswith(bad + ".") and n not in got]
    return got[:6]


def notes(finding):
    """A note for each refused field that a matched line of ``finding`` names."""
    out = []
    names, version = fields()
    if not names:
        return out
    for m in finding.get("matches", []):
        hit = _BAD.search(m["text"][:4096])
        if not hit:
            continue
        bad = hit.group(1)
        if bad.strip().lower() in names:
            # the name exists, in another driver than this node's: the fields change between drivers
            out.append("'%s' is a --query-gpu name of %s: this node's nvidia-smi is of a driver without it (an older "
                       "one, most often); nvidia-smi --version, and use the names of its --help-query-gpu or upgrade "
                       "the driver" % (clip(bad, 60), version))
            continue
        near = suggest(bad)
        say = "'%s' is not a --query-gpu name of %s (its --help-query-gpu table, %d names)" % (clip(bad, 60), version,
                                                                                            len(names))
        out.append(say + (": did you mean %s?" % ", ".join(near) if near else "; nvidia-smi --help-query-gpu "
                          "lists them"))
    return out[:3]
