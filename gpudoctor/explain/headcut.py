"""A known message pasted without its first words (noanswer20, issue 18 item 2): 'CUDA capability sm_80 is not
compatible with the current PyTorch installation.' is torch's warning 'NVIDIA A100 with CUDA capability sm_80 is not
compatible ...' whose head (the device's name and 'with') the paste lost, so the entry's pattern, which starts with
'with CUDA capability', never matched.

Every pattern of an error entry whose regex starts with a run of literal words (the knowledge's and the generated
sites') is indexed by the words that follow its first one, two or three: a line of a short paste (POST_LINES lines or
fewer; its first FIRST_LINES) that starts with those words is tried with the cut words put back ('with ' + the line),
and the entry's whole pattern must match from that head. At least MIN_WORDS literal words must remain after the cut,
so that the line carries most of the message itself. The answer is that entry (How sure: low), with a note that the
paste starts inside the message and the next step (paste the whole line: its start names the device, file or program).

explicit.seen() counts such a line, explicit.structural() asks finding() last; a line an entry already matched is not
read, and a long log (more than POST_LINES lines) never is: a log's lines start where their program starts them.
"""

import re

POST_LINES = 40  # the longest text read: a paste, not a log
FIRST_LINES = 12  # lines of it tried
MAX_CUT = 3  # words a paste may have lost
MIN_WORDS = 4  # literal words the line itself must carry
_LEAD = re.compile(r"^(?:[A-Za-z][A-Za-z0-9_'/-]*(?:\\ | ))+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/-]*")
_ESCAPE = re.compile(r"\\[A-Za-z]|\(\?[:!=<P][^)]{0,40}?\)?|[{][^}]{0,20}[}]")
_index = {}
# (review20) a cut head that is a name (snake_case, digits, ALL CAPS), and the words that say nothing of their own: the
# rest of a pattern must keep MIN_CONTENT words outside _STOP
_NAME = re.compile(r"_|\d|^[A-Z]{2,}$")
_STOP = frozenset("""a an the be is are was were been being not no nor must should can cannot could would will may
might shall do does did done to of in on at by for with from into than then that this these those it its as or and but
if one all any each only has have had following value values more less set given use used""".split())
MIN_CONTENT = 3


def _build(kb):
    """{(word, word): [(Pattern, head words)]} for kb's error entries' patterns with a literal lead."""
    key = id(kb)
    if key in _index:
        return _index[key]
    idx = {}
    by = kb.by_id
    for p in kb.patterns:
        if p.role != "match" or p.entry.startswith("_") or (by.get(p.entry) or {}).get("kind") != "error":
            continue
        m = _LEAD.match(p.source)
        if not m:
            continue
        words = m.group(0).replace("\\ ", " ").split()
        # the literal words of the whole pattern (its escapes \d, \s, \b ... and groups' syntax aside)
        literal = _WORD.findall(_ESCAPE.sub(" ", p.source))
        total = len(literal)
        for cut in range(1, MAX_CUT + 1):
            if len(words) < cut + 2 or total - cut < MIN_WORDS:
                break
            if any(_NAME.search(w) for w in words[:cut]):
                break  # (review20) the head is a name - 'num_layers_in_first_pipeline_stage', 'NCCL_ALGO', 'CUDA' -:
                # the message is '<name> <predicate>', and the predicate alone ('must be larger than 0', 'error: out
                # of memory') is every other program's too
            if len([w for w in literal[cut:] if w.lower() not in _STOP]) < MIN_CONTENT:
                continue  # (review20) too few words of its own left: 'characters are not allowed'
            k = (words[cut], words[cut + 1])  # (as written: 'Unable to' is not 'unable to')
            idx.setdefault(k, []).append((p, " ".join(words[:cut])))
    _index.clear()  # (one knowledge per process in practice: keep the latest only)
    _index[key] = idx
    return idx


def find(scan, known=()):
    """(Hit, Pattern, head) of the first line of a short paste that is a known error message without its first words;
    None else."""
    if hasattr(scan, "_headcut"):
        return scan._headcut
    scan._headcut = None
    if not scan.lines or scan.lines > POST_LINES:
        return None
    from gpudoctor.explain.hang import _tails
    from gpudoctor.explain.knowledge import load_knowledge
    from gpudoctor.explain.scan import Hit
    from gpudoctor.explain.text import strip_prefix

    idx = _build(load_knowledge())
    n = 0
    for tail in _tails(scan):
        for ln, text in tail.get("user") or ():
            body = strip_prefix(text)[0].strip()
            if not body:
                continue
            n += 1
            if n > FIRST_LINES:
                return None
            if ln in known:
                continue
            w = _WORD.findall(body[:200])
            if len(w) < 2 or not body.startswith(w[0]):
                continue
            for p, head in idx.get((w[0], w[1]), ()):
                m = p.regex.search(head + " " + body)
                if m and m.start() == 0:
                    scan._headcut = (Hit(ln, text, p, {}, None), p, head)
                    return scan._headcut
    return None


def finding(scan, kb, structural_finding, known=()):
    got = find(scan, known)
    if not got:
        return None
    h, p, head = got
    by = kb.by_id
    if p.entry not in by:
        return None
    f = structural_finding(by[p.entry], h, "the line is %s's message without its first words ('%s ...')" % (
        p.entry, head), scan)
    f["notes"].append("The paste starts inside a message this entry knows: with '%s' before it the line is the "
                      "message's own text. The words cut off usually name the device, file or program: paste the "
                      "whole line (or the lines above it) to confirm." % head)
    return f
