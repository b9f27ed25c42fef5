#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cli_docs.json: what the man pages of the command-line tools a GPU job
runs say about each of their options, and about the configuration parameters those options depend on (clidocs20,
issue 18).

A tool that refuses a command line ('sbatch: error: Invalid --array specification', 'pdsh@host: ...', 'mpirun: Error:
unknown option "--hosts"', 'command-line line 0: Bad configuration option: ...') names the option, rarely what the
option accepts; the tool's man page does ("the maximum value is one less than the configuration parameter
MaxArraySize", "taken to be the path to file containing a list of hosts, one per line"). explain
(gpudoctor/explain/clidocs.py) looks the named option up here and quotes its documented constraint with the page.

Read from the Debian packages' man pages (groff source, never rendered):
  - -man pages (Slurm's, Open MPI's, pdsh, rsync, numactl, podman): each option item - a '.TP' whose tag line, or an
    '.IP "tag"' whose tag, spells the option (-a, --array=<indexes>; Open MPI's one-dash long options -map-by) - at
    the page's outer indentation (items inside .RS/.RE are the option's own sub-values and stay its text);
  - mdoc pages (OpenSSH's): each '.It Fl X Ar arg' of ssh(1) / scp(1), each '.It Cm Keyword' of ssh_config(5) /
    sshd_config(5);
  - configuration pages (slurm.conf(5), gres.conf(5), cgroup.conf(5), ssh_config(5), sshd_config(5)): each parameter
    item (a '\\fBName\\fR' tag, an '.It Cm Name').
Kept per option: its spellings (forms), its argument as the tag writes it, the first sentence of its description, the
sentences that constrain it or say what to do instead (CONSTRAINT: must / only / maximum / minimum / default / requires
/ cannot / mutually exclusive / 'instead' / 'see' / deprecated / one per line / the acceptable formats / the
environment variable that sets it ...; at most
MAX_SENTENCES of at most
MAX_SENTENCE characters), the other options its description names (related) and the configuration parameters it names
(params: names the tool's configuration pages define, e.g. MaxArraySize of slurm.conf(5)). Per Slurm command page
also its environment sections: env_in, each variable of INPUT ENVIRONMENT VARIABLES and the options it stands for
('SLURM_GPUS_PER_TASK: Same as --gpus-per-task'), and env_out, the names OUTPUT ENVIRONMENT VARIABLES lists (what
sbatch / salloc set in the job's environment, which the job's srun steps then read).

Usage:
    apt-get download slurm-client slurmctld slurmd openmpi-bin pdsh openssh-client openssh-server rsync numactl podman
    python tools/gen_cli_docs.py --debs DIR [--record] [-o OUT]     (DIR: the .deb files)
    python tools/gen_cli_docs.py --slice tools/data/cli_docs_slice.txt -o OUT   (the test)

Sources: the Debian 12 (bookworm) packages named in the header (https://packages.debian.org/bookworm/<package>), read
with `dpkg-deb --fsys-tarfile` (nothing installed). The slice records the items of SLICE_OPTIONS as the pages have them,
so the test re-runs the parsing on real groff source.
"""

import copy
import gzip
import io
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_cli_docs.py"
NAME = "cli_docs"
SLICE = os.path.join(knowgen.DATA, "cli_docs_slice.txt")
MAX_SENTENCES = 8
MAX_SENTENCE = 320
MAX_FIRST = 240

# package -> the man pages read (usr/share/man/...) and the tool names each page documents
PAGES = {
    "slurm-client": [("man1/%s.1.gz" % t, [t]) for t in (
        "sbatch", "srun", "salloc", "scontrol", "squeue", "sacct", "sinfo", "scancel", "sbcast", "sattach",
        "sstat", "sprio", "sshare", "strigger", "sacctmgr")] + [
        ("man5/slurm.conf.5.gz", ["slurm.conf"]), ("man5/gres.conf.5.gz", ["gres.conf"]),
        ("man5/cgroup.conf.5.gz", ["cgroup.conf"])],
    "slurmctld": [("man8/slurmctld.8.gz", ["slurmctld"])],
    "slurmd": [("man8/slurmd.8.gz", ["slurmd"]), ("man8/slurmstepd.8.gz", ["slurmstepd"])],
    "openmpi-bin": [("man1/mpiexec.openmpi.1.gz", ["mpirun", "mpiexec", "orterun"])],
    "pdsh": [("man1/pdsh.1.gz", ["pdsh"]), ("man1/pdcp.1.gz", ["pdcp", "rpdcp"])],
    "openssh-client": [("man1/ssh.1.gz", ["ssh"]), ("man1/scp.1.gz", ["scp"]), ("man1/ssh-keygen.1.gz", ["ssh-keygen"]),
                       ("man5/ssh_config.5.gz", ["ssh_config"])],
    "openssh-server": [("man5/sshd_config.5.gz", ["sshd_config"]), ("man8/sshd.8.gz", ["sshd"])],
    "rsync": [("man1/rsync.1.gz", ["rsync"])],
    "numactl": [("man8/numactl.8.gz", ["numactl"])],
    "podman": [("man1/podman-run.1.gz", ["podman run", "podman create"]), ("man1/podman.1.gz", ["podman"])],
}
# a configuration page's parameters are what the tools' descriptions may name (params); the tools each page serves
CONF_OF = {"slurm.conf": "slurm", "gres.conf": "slurm", "cgroup.conf": "slurm", "ssh_config": "ssh",
           "sshd_config": "ssh"}
# a page's name as its project publishes it (Debian's alternatives name Open MPI's mpirun(1) mpiexec.openmpi)
MAN_NAME = {"mpiexec.openmpi": "mpirun"}
FAMILY_OF = {"sbatch": "slurm", "srun": "slurm", "salloc": "slurm", "scontrol": "slurm", "squeue": "slurm",
             "sacct": "slurm", "sinfo": "slurm", "scancel": "slurm", "sbcast": "slurm", "sattach": "slurm",
             "sstat": "slurm", "sprio": "slurm", "sshare": "slurm", "strigger": "slurm", "sacctmgr": "slurm",
             "slurmctld": "slurm", "slurmd": "slurm", "slurmstepd": "slurm", "ssh": "ssh", "scp": "ssh",
             "ssh-keygen": "ssh", "sshd": "ssh"}

# the items the recorded slice keeps (page tool -> option forms / parameter names): what the tests read
SLICE_OPTIONS = {
    "sbatch": ("--array", "--parsable", "--dependency", "--mem", "--mem-per-cpu", "--gpus-per-task", "--wrap",
               "--nodelist", "--time", "--ntasks"),
    "srun": ("--gpus-per-task", "--ntasks-per-gpu", "--distribution", "--multi-prog", "--mem-per-cpu", "--nodelist"),
    "slurm.conf": ("MaxArraySize", "MaxJobCount"),
    "mpirun": ("--map-by", "-H", "--hostfile", "-x", "--oversubscribe", "-np"),
    "pdsh": ("-w", "-R", "-x"),
    "ssh": ("-J", "-o", "-i"),
    "ssh_config": ("ProxyJump", "IdentitiesOnly", "StrictHostKeyChecking"),
    "sshd_config": ("MaxStartups", "PermitRootLogin"),
    "rsync": ("--rsh", "--rsync-path", "--delete"),
    "numactl": ("--membind", "--cpunodebind"),
}

# the pages whose environment sections the slice keeps whole
ENV_SLICE = ("sbatch", "srun")

# a description sentence that constrains the option, gives its limit or default, or says what to use instead
CONSTRAINT = re.compile(
    r"\b(?:must|only|maximum|minimum|max(?:imum)? value|default|requires?|required|cannot|can ?not|not allowed|"
    r"may not|mutually exclusive|incompatible|at (?:most|least)|limit(?:ed|s)?|instead|see|deprecated|ignored|"
    r"overrides?|in conjunction|do not|conflicts?|exceed|less than|greater than|no spaces|one per line|"
    r"not (?:be |)(?:supported|permitted|combined|valid)|invalid|error|(?:will |)fails?|acceptable|formats?|"
    r"of the form|(?:valid|possible|allowed) values|one of|either|environment variable)\b", re.I)
_OPT = re.compile(r"(?<![\w\-/.:=$])(--?[A-Za-z0-9][A-Za-z0-9_-]{0,40})(?![\w])")
_LONG = re.compile(r"(?<![\w\-/.:=$])(--[A-Za-z0-9][A-Za-z0-9_-]{0,40}|-[A-Za-z0-9])(?![\w])")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]{1,30}[A-Z][A-Za-z0-9]{0,40}\b")
# (not after an abbreviation: "(e.g. \"dir\" or ...)")
_SENT = re.compile(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!\bvs\.)\s+(?=[A-Z\"'(\\])")
_PARAM_TAG = re.compile(r"^\\fB([A-Z][A-Za-z0-9]{1,60})\\f[RP](?:\s*$|=)")


def troff_text(s):
    """A -man fragment as plain words: font changes and escapes dropped, requests (.IP, .br, .RS ...) removed, '\\-' a
    '-'."""
    s = s.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"').replace("\\(em", "-").replace(
        "\\(en", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\u2014", "--").replace("\\(cq", "'").replace(
        "\\(oq", "'").replace("\\(lq", '"').replace("\\(rq", '"')
    s = re.sub(r"\\f(?:\(..|\[[^\]\n]{0,8}\]|.)|\\&|\\\(.{2}|\\s[-+]?\d", "", s)
    out = []
    for ln in s.splitlines():
        if ln.startswith(('.\\"', "'\\\"")) or ln.strip() == ".":
            continue
        m = re.match(r"^\.(?:B|I|BR|RB|IR|RI|BI|IB|SM|SB)\s+(.*)$", ln)
        if m:
            ln = m.group(1).replace('"', "")
        elif ln.startswith("."):
            continue
        out.append(ln)
    return " ".join(" ".join(out).split())


_MDOC_DROP = re.compile(r"^(?:Ns|No|Op|Oo|Oc|Xo|Xc|Sm|on|off|Pq|Po|Pc|Dq|Do|Dc|Sq|Qq|Bq|Brq|Aq|Ql|Em|Sy|Li|Pa|Va|Ev|"
                        r"Ar|Cm|Ic|Sx|Nm|Tn|Ux|Bx|Fa|Fn|Xr|Ql|Ta|Ms|An|Lk|Mt|D1|Dl)$")


# (review20) mdoc's own spacing and enclosures (mdoc(7)): 'Ns' joins the next word, '.Sm off' ... '.Sm on' joins every
# word (across lines), 'Op' / 'Pq' / 'Dq' / 'Sq' / 'Ql' / 'Aq' / 'Bq' / 'Brq' enclose the rest of their line,
# 'Oo' ... 'Oc' (and the other block pairs) enclose what is between them, and closing punctuation glues to the word
# before it: ssh_config(5)'s ProxyJump reads '[user@]host[:port]', not 'user @ host : port'
_ENCLOSE = {"Op": ("[", "]"), "Pq": ("(", ")"), "Dq": ("\u201c", "\u201d"), "Sq": ("'", "'"), "Ql": ("'", "'"),
            "Aq": ("<", ">"), "Bq": ("[", "]"), "Brq": ("{", "}"), "Qq": ('"', '"')}
_BLOCK_OPEN = {"Oo": "[", "Po": "(", "Do": "\u201c", "So": "'", "Bo": "[", "Bro": "{", "Ao": "<", "Qo": '"'}
_BLOCK_CLOSE = {"Oc": "]", "Pc": ")", "Dc": "\u201d", "Sc": "'", "Bc": "]", "Brc": "}", "Ac": ">", "Qc": '"'}
_CLOSE_PUNCT = frozenset(". , : ; ) ] ? !".split())


def mdoc_text(s):
    """An mdoc fragment as plain words: '.Fl x' -> -x, '.Xr ssh_config 5' -> ssh_config(5), '.Op Ar user No @' ->
    [user@] inside '.Sm off', other macros dropped."""
    toks = []  # [text, glued to the word before]
    spacing, fresh = True, False
    for ln in s.replace("\\-", "-").replace("\\&", "").replace("\\(aq", "'").splitlines():
        if ln.startswith('.\\"'):
            continue
        if not ln.startswith("."):
            for w in ln.split():
                toks.append([w, (not spacing and not fresh) or w in _CLOSE_PUNCT])
                fresh = False
            continue
        words = ln[1:].split()
        if not words:
            continue
        if words[0] == "Sm":
            spacing = len(words) > 1 and words[1] != "off"
            fresh = not spacing
            continue
        if words[0] in ("Bl", "El", "Pp", "Bd", "Ed", "It", "Sh", "Ss", "Dd", "Dt", "Os", "Nd", "Lp", "Rs", "Re"):
            continue
        glue, closers, i, open_at = False, [], 0, len(toks)
        while i < len(words):
            w = words[i]
            g = glue or (not spacing and not fresh)
            glue = False
            if w == "Ns":
                glue = True
                i += 1
                continue
            if w in _ENCLOSE:
                if not closers:
                    open_at = len(toks)
                toks.append([_ENCLOSE[w][0], g])
                closers.append(_ENCLOSE[w][1])
                glue, fresh = True, False
                i += 1
                continue
            if w in _BLOCK_OPEN:
                toks.append([_BLOCK_OPEN[w], g])
                glue, fresh = True, False
                i += 1
                continue
            if w in _BLOCK_CLOSE:
                toks.append([_BLOCK_CLOSE[w], True])
                fresh = False
                i += 1
                continue
            if w == "Fl":
                nxt = words[i + 1] if i + 1 < len(words) and not _MDOC_DROP.match(words[i + 1]) else ""
                toks.append(["-" + nxt.strip('"'), g])
                i += 2 if nxt else 1
                fresh = False
                continue
            if w == "Xr" and i + 2 < len(words):
                toks.append(["%s(%s)" % (words[i + 1], words[i + 2]), g])
                i += 3
                fresh = False
                continue
            if w == "Nm":
                toks.append(["ssh", g])
            elif w in ("Ux", "Bx"):
                toks.append([{"Ux": "UNIX", "Bx": "BSD"}[w], g])
            elif not _MDOC_DROP.match(w):
                t = w.strip('"')
                if t:
                    toks.append([t, g or t in _CLOSE_PUNCT])
            else:
                glue = g and spacing  # (a dropped macro - Ar, Cm ... - passes a pending 'Ns' on to its word)
                i += 1
                continue
            fresh = False
            i += 1
        trail = []  # (a line's closing punctuation goes after its enclosures: '.Pq Ar remote_tun .' -> (remote_tun).)
        while closers and len(toks) > open_at + 1 and toks[-1][0] in _CLOSE_PUNCT:
            trail.insert(0, toks.pop())
        for c in reversed(closers):
            toks.append([c, True])
        toks.extend(trail)
    out = ""
    for t, g in toks:
        out += t if (g or not out) else " " + t
    return " ".join(out.split())


def sentences(text):
    return [s.strip() for s in _SENT.split(text) if s.strip()]


def _items_man(text):
    """[(line, tag, body source, start, end)] of a -man page's items at its outer indentation: '.TP' + tag line,
    '.IP "tag"'; ``line`` the tag's line (1-based), ``start``:``end`` the item's source lines (0-based, end exclusive)."""
    lines = text.split("\n")
    out, depth, cur = [], 0, None
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith(".RS"):
            depth += 1
        elif ln.startswith(".RE"):
            depth = max(0, depth - 1)
        elif ln.startswith(".SS") and re.match(r'^\.SS\s+"?\\fB\\?-', ln):  # podman's pages: '.SS \fB--device\fP=...'
            if cur:
                out.append(cur)
            cur, depth = [i + 1, ln[3:].strip().strip('"'), [], i, i + 1], 0
            i += 1
            continue
        elif ln.startswith((".SH", ".SS")):
            if cur:
                out.append(cur)
            cur = None
            depth = 0
        elif depth == 0 and re.match(r"^\.TP\b", ln):
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(('.\\"', ".TP")) or
                                      lines[j].strip() == "."):
                j += 1
            if j >= len(lines):
                break
            if cur:
                out.append(cur)
            cur = [j + 1, lines[j], [], i, j + 1]
            i = j + 1
            continue
        elif depth == 0 and re.match(r'^\.IP\s+"(?=[^"\n]*\\f)', ln):
            if cur:
                out.append(cur)
            cur = [i + 1, re.match(r'^\.IP\s+"([^"\n]*)"', ln + '"').group(1), [], i, i + 1]
            i += 1
            continue
        if cur is not None:
            cur[2].append(ln)
            cur[4] = i + 1
        i += 1
    if cur:
        out.append(cur)
    return [(n, tag, "\n".join(body), a, b) for n, tag, body, a, b in out]


def _items_mdoc(text):
    """[(line, tag, body source, start, end)] of an mdoc page's '.It' items of its outer lists ('.It Fl J Ar
    destination', '.It Cm ProxyJump'): nested lists (.Bl inside an item) stay the item's text."""
    lines = text.split("\n")
    out, depth, cur = [], 0, None
    for i, ln in enumerate(lines):
        if ln.startswith(".Bl"):
            depth += 1
        elif ln.startswith(".El"):
            depth -= 1
        elif ln.startswith(".Sh"):
            if cur:
                out.append(cur)
            cur, depth = None, 0
            continue
        elif depth == 1 and ln.startswith(".It "):
            if cur:
                out.append(cur)
            cur = [i + 1, ln, [], i, i + 1]
            continue
        if cur is not None and depth >= 1:
            cur[2].append(ln)
            cur[4] = i + 1
    if cur:
        out.append(cur)
    return [(n, tag, "\n".join(body), a, b) for n, tag, body, a, b in out]


def _forms(tag_text):
    """(forms, argument) of an option tag's plain text: '-a, --array=<indexes>' -> (['-a', '--array'], '<indexes>')."""
    t = tag_text.replace("\u2014", "--").strip()
    if not t.startswith("-"):
        return [], ""
    forms, arg = [], ""
    for part in re.split(r",\s+|\s+\|\s+|\s+or\s+", t):
        part = part.strip()
        m = re.match(r"^(--?[A-Za-z0-9][A-Za-z0-9_-]{0,40})(?:(?:=|\s+|\[=)(.*))?$", part)
        if not m:
            continue
        if m.group(1) not in forms:
            forms.append(m.group(1))
        if m.group(2) and not arg:
            arg = m.group(2).strip().rstrip("]") if part[len(m.group(1)):].startswith("[=") else m.group(2).strip()
    return forms, arg[:80]


def sections(text):
    """[(line, title)] of a -man page's .SH lines (1-based), in order."""
    return [(i + 1, troff_text(ln[3:].strip().strip('"')).upper()) for i, ln in enumerate(text.split("\n"))
            if ln.startswith(".SH")]


def section_of(secs, line):
    title = ""
    for n, t in secs:
        if n > line:
            break
        title = t
    return title


_ENV_NAME = re.compile(r"\\fB([A-Z][A-Z0-9_]{2,60})\\f[RP]")


def parse_page(path, text):
    """{"options": {form: rec}, "params": {name: rec}, "env_in": {VAR: rec}, "env_out": [VAR]} of one man page's
    source: env_in the variables of its INPUT ENVIRONMENT VARIABLES (or ENVIRONMENT VARIABLES) section with the options
    each stands for ('Same as --gpus-per-task'), env_out the names of its OUTPUT ENVIRONMENT VARIABLES section (what
    the command sets in the job's environment)."""
    mdoc = bool(re.search(r"^\.Dd\b|^\.Sh\b", text, re.M))
    conf = bool(re.search(r"\.5(?:\.gz)?$", path))
    opts, params, env_in, env_out = {}, {}, {}, []
    secs = [] if mdoc else sections(text)
    for line, tag, body, _a, _b in (_items_mdoc(text) if mdoc else _items_man(text)):
        sec = section_of(secs, line)
        if not mdoc and "ENVIRONMENT" in sec:
            names = _ENV_NAME.findall(tag)
            if "OUTPUT" in sec:
                env_out.extend(n for n in names if n not in env_out)
                continue
            body_text = troff_text(body)
            named = [o for o in _LONG.findall(body_text)][:6]
            for n in names:
                env_in.setdefault(n, {"options": named, "first": (sentences(body_text) or [""])[0][:MAX_FIRST]})
            continue
        if mdoc:
            m = re.match(r"^\.It\s+(Fl|Cm)\s+(\S+)(.*)$", tag)
            if not m:
                continue
            rest = mdoc_text("." + m.group(3).strip()) if m.group(3).strip() else ""
            body_text = mdoc_text(body)
            if m.group(1) == "Fl":
                forms, arg = ["-" + m.group(2)], rest
            elif conf and re.match(r"^[A-Z][A-Za-z0-9]{1,60}$", m.group(2)):
                params[m.group(2)] = _record(body_text, line, [m.group(2)])
                continue
            else:
                continue
        else:
            pm = _PARAM_TAG.match(tag.strip())
            if conf and pm:
                params.setdefault(pm.group(1), _record(troff_text(body), line, [pm.group(1)]))
                continue
            forms, arg = _forms(troff_text(tag))
            body_text = troff_text(body)
        if not forms or not body_text:
            continue
        rec = _record(body_text, line, forms)
        rec["forms"], rec["arg"] = forms, arg
        key = max(forms, key=len)
        old = opts.get(key)
        if old is None or (":" in old["arg"] and ":" not in arg):
            # (Open MPI's '--map-by ppr:N:<object>' row before its '--map-by <foo>' one: the general row is the option)
            opts[key] = rec
    return {"options": opts, "params": params, "env_in": env_in, "env_out": env_out}


def _record(text, line, own):
    sents = sentences(text)
    first = sents[0][:MAX_FIRST] if sents else ""
    cons = [s for s in sents[1:] if CONSTRAINT.search(s) and len(s) <= MAX_SENTENCE][:MAX_SENTENCES]
    related = []
    for o in _LONG.findall(text):
        if o not in own and o not in related and len(related) < 12:
            related.append(o)
    return {"line": line, "first": first, "constraints": cons, "related": related, "words": text}


def build(pages, versions, conf_names=None):
    """The document: per tool its options (per page), per configuration page its parameters; each option's params
    named by its description (words the family's configuration pages define)."""
    tools, confs = {}, {}
    for pkg, path, tnames, text in pages:
        got = parse_page(path, text)
        base = os.path.basename(path)[:-3] if path.endswith(".gz") else os.path.basename(path)
        name, _, sect = base.rpartition(".")
        man = "%s(%s)" % (MAN_NAME.get(name, name), sect)
        for t in tnames:
            if t in CONF_OF:
                confs[t] = {"man": man, "package": pkg, "params": copy.deepcopy(got["params"])}
            else:
                tools[t] = {"man": man, "package": pkg, "options": copy.deepcopy(got["options"]),
                            "env_in": copy.deepcopy(got["env_in"]), "env_out": list(got["env_out"])}
    for t, rec in tools.items():
        fam = FAMILY_OF.get(t)
        known = {p: c for c, crec in confs.items() if CONF_OF[c] == fam for p in crec["params"]}
        for c, names in (conf_names or {}).items():  # (the slice: the parameter names of the whole pages)
            if CONF_OF[c] == fam:
                known.update({p: c for p in names if p not in known})
        for o in rec["options"].values():
            words = o.pop("words")
            # a parameter's name in the text: CamelCase (MaxArraySize, SelectType), not a word of the sentence
            # ('Default', 'CPUs' are parameters of slurm.conf(5) too)
            o["params"] = sorted({w for w in _CAMEL.findall(words) if w in known}, key=words.find)
            o["params"] = ["%s (%s(5))" % (w, known[w]) for w in o["params"][:6]]
    for c in confs.values():
        for p in c["params"].values():
            p.pop("words", None)
    counts = {t: {"man": r["man"], "options": len(r["options"]),
                  "with_constraints": sum(1 for o in r["options"].values() if o["constraints"])}
              for t, r in sorted(tools.items())}
    counts.update({c: {"man": r["man"], "params": len(r["params"]),
                       "with_constraints": sum(1 for o in r["params"].values() if o["constraints"])}
                   for c, r in sorted(confs.items())})
    src = ", ".join("%s %s" % (p, v) for p, v in sorted(versions.items()))
    return {"header": knowgen.header(
        "Debian 12 packages' man pages (https://packages.debian.org/bookworm/<package>): %s" % src,
        "%d tools, %d configuration pages" % (len(tools), len(confs)), GENERATOR,
        "each option's forms, argument, first sentence, constraint sentences, related options and named configuration "
        "parameters, read from the groff source"),
        "tools": {t: tools[t] for t in sorted(tools)}, "conf": {c: confs[c] for c in sorted(confs)},
        "counts": counts, "sites": []}


def _deb_field(deb, field):
    return subprocess.run(["dpkg-deb", "-f", deb, field], check=True, capture_output=True, text=True).stdout.strip()


def from_debs(folder):
    """[(package, page path, tools, groff text)] and {package: version} of the .deb files in ``folder``."""
    pages, versions = [], {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".deb"):
            continue
        deb = os.path.join(folder, name)
        pkg = _deb_field(deb, "Package")
        if pkg not in PAGES:
            continue
        versions[pkg] = _deb_field(deb, "Version")
        tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
            members = {m.name.lstrip("./"): m for m in tf.getmembers() if m.isfile()}
            for rel, tnames in PAGES[pkg]:
                m = members.get("usr/share/man/" + rel)
                if m is None:
                    continue
                text = gzip.decompress(tf.extractfile(m).read()).decode("utf-8", "replace")
                pages.append((pkg, "usr/share/man/" + rel, tnames, text))
    return pages, versions


def _slice_items(pages):
    """The slice's blocks: per page, the items whose forms / names SLICE_OPTIONS lists, as the page has them."""
    blocks = []
    for pkg, path, tnames, text in pages:
        want = set()
        for t in tnames:
            want |= set(SLICE_OPTIONS.get(t, ()))
        if not want:
            continue
        mdoc = bool(re.search(r"^\.Dd\b|^\.Sh\b", text, re.M))
        lines = text.split("\n")
        secs = [] if mdoc else sections(text)
        for n, _t in secs:  # (the sections: what an item's section is read from)
            blocks.append((pkg, path, tnames, n, lines[n - 1], mdoc))
        for line, tag, body, start, end in (_items_mdoc(text) if mdoc else _items_man(text)):
            if not mdoc and "ENVIRONMENT" in section_of(secs, line) and _ENV_NAME.search(tag) and \
                    tnames[0] in ENV_SLICE:
                blocks.append((pkg, path, tnames, start + 1, "\n".join(lines[start:end]), mdoc))
                continue
            if mdoc:
                m = re.match(r"^\.It\s+(Fl|Cm)\s+(\S+)", tag)
                names = ["-" + m.group(2) if m.group(1) == "Fl" else m.group(2)] if m else []
            else:
                pm = _PARAM_TAG.match(tag.strip())
                names = [pm.group(1)] if pm else _forms(troff_text(tag))[0]
            if set(names) & want:
                blocks.append((pkg, path, tnames, start + 1, "\n".join(lines[start:end]), mdoc))
    return blocks


_MDOC_HEAD = ".Dd\n.Bl -tag\n"


def record(path, pages, versions):
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the man pages' items of SLICE_OPTIONS, as the groff source has them\n"
                "# (=== package path tools @first line [mdoc]: an mdoc item, read inside a list of its own).\n"
                % GENERATOR)
        for pkg, v in sorted(versions.items()):
            f.write("#! package %s %s\n" % (pkg, v))
        for pkg, p, tnames, text in pages:  # the configuration pages' parameter names: what a description may name
            for t in tnames:
                if t in CONF_OF:
                    f.write("#! conf %s %s\n" % (t, ",".join(sorted(parse_page(p, text)["params"]))))
        for pkg, p, tnames, first, block, mdoc in _slice_items(pages):
            f.write("=== %s %s %s @%d%s\n%s\n" % (pkg, p, "|".join(tnames), first, " mdoc" if mdoc else "", block))


def from_slice(path):
    """The slice's pages, one per page path: each block's lines at their own line numbers (an mdoc page's inside
    one list) - and the packages' versions."""
    pages, versions, order = {}, {}, []
    cur, conf = None, {}
    with open(path) as f:
        for ln in f:
            if ln.startswith("#! conf "):
                name, names = ln[len("#! conf "):].split(None, 1)
                conf[name] = names.strip().split(",")
            elif ln.startswith("#! package "):
                pkg, v = ln[len("#! package "):].split(None, 1)
                versions[pkg] = v.strip()
            elif ln.startswith("=== "):
                head = ln[4:].split()
                mdoc = head[-1] == "mdoc"
                pkg, p, tnames, first = head[0], head[1], head[2], int(head[3].lstrip("@"))
                key = (pkg, p, tnames)
                if key not in pages:
                    pages[key] = {"mdoc": mdoc, "lines": {}}
                    order.append(key)
                cur = (key, first - 1)
            elif cur is not None:
                key, at = cur
                pages[key]["lines"][at] = ln.rstrip("\n")
                cur = (key, at + 1)
    out = []
    for key in order:
        got = pages[key]
        n = max(got["lines"]) + 1 if got["lines"] else 0
        lines = [got["lines"].get(i, "") for i in range(n)]
        if got["mdoc"]:  # the list's head in the two lines above the first item
            lines[0:2] = [".Dd", ".Bl -tag"]
        out.append((key[0], key[1], key[2].split("|"), "\n".join(lines)))
    return out, versions, conf


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="debs", extra=[
        ("--record", {"action": "store_true", "help": "write the slice (%s)" % SLICE})])
    conf = None
    if a.slice:
        pages, versions, conf = from_slice(a.slice)
    else:
        pages, versions = from_debs(a.debs)
        if a.record:
            record(SLICE, pages, versions)
    doc = build(pages, versions, conf)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d tools (%d options, %d with a constraint), %d configuration pages (%d parameters)" % (
        path, len(doc["tools"]), sum(len(t["options"]) for t in doc["tools"].values()),
        sum(1 for t in doc["tools"].values() for o in t["options"].values() if o["constraints"]),
        len(doc["conf"]), sum(len(c["params"]) for c in doc["conf"].values())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
