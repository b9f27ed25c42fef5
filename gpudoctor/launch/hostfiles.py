"""Hostfile dialects, each as the launcher that reads it reads it. The launcher decides:
a DeepSpeed hostfile is read by DeepSpeed's rules, an mpirun hostfile by Open MPI's, an
MPICH machinefile by Hydra's. (`gpudoctor check --hosts` keeps accepting every dialect for
fan-out: gpudoctor/inventory.py, which is also what reads a plain one-host-per-line list given
to `gpudoctor plan --hosts`.) Each returns [(host, slots or None)] in file order, one
entry per host, and refuses what its launcher refuses."""

import contextvars
import os
import re

from gpudoctor.errors import InputError, excerpt, host_excerpt, read_input
from gpudoctor.launch.common import Refused

MAX_HOSTFILE_BYTES = 16 << 20
MAX_SLOTS = 1 << 16


# files the script being planned writes itself before it launches (`cat > hostfile <<EOF`,
# `echo "node1 slots=8" >> hostfile`): path as written -> text. Set by `gpudoctor plan SCRIPT`
# (gpudoctor/launch/script.py) around one launch line's plan; read before this file system.
WRITTEN = contextvars.ContextVar("gpudoctor_script_written_files", default={})


def written(path):
    """The text the script wrote to `path`, or None."""
    files = WRITTEN.get()
    return files.get(path, files.get(os.path.normpath(path))) if files else None


def exists(path):
    return written(path) is not None or os.path.isfile(os.path.expanduser(path))


def read(path, what):
    text = written(path)
    if text is not None:
        return text[:MAX_HOSTFILE_BYTES]
    text = read_input(os.path.expanduser(path), what, limit=MAX_HOSTFILE_BYTES).decode("utf-8", "replace")
    from gpudoctor.inventory import refuse_bom

    refuse_bom(text, path)
    return text


def _slots(value, where):
    if not re.match(r"^[0-9]{1,6}$", value or "") or int(value) > MAX_SLOTS:
        # echoed only up to its first non-digit: an /etc/shadow line read as `host:count`
        # (Hydra's dialect) has its hash there (docs/security.md, as errors.host_excerpt)
        head = re.match(r"[0-9]*", value or "").group(0)
        raise InputError("%s: slot count %s%s is not a number from 0 to %d" % (
            where, excerpt(head, 12), " (cut at a character no number has)" if head != (value or "") else "",
            MAX_SLOTS))
    return int(value)


def _host(name, where):
    from gpudoctor.inventory import valid_host

    if not valid_host(name):
        raise InputError("%s: %s is not a host name" % (where, host_excerpt(name)))
    return name


def deepspeed(text, path):
    """deepspeed/launcher/runner.py _parse_hostfile (0.19): each non-comment line must match
    `^(\\S+)\\s+slots=(\\d+)` (anything after is ignored); a host listed twice, a bad line
    or no host at all raises ValueError."""
    out, seen = [], set()
    # fetch_hostfile: open(path).readlines(), universal newlines: a line ends at \n, \r\n or \r only, not at
    # the \v, \f, \x1c-\x1e, \x85, \u2028 that str.splitlines() also breaks at (then it is one line, and
    # the regex below ignores what follows the first `slots=N`)
    for no, raw in enumerate(re.split(r"\r\n|\r|\n", text), 1):
        line = raw.strip()
        if line.startswith("#") or line == "":
            continue
        where = "%s:%d" % (path, no)
        m = re.search(r"^(\S+)\s+slots=(\d+)", line)
        if not m:
            raise Refused("%s: DeepSpeed refuses the line %s (it needs 'HOST slots=N')"
                             % (where, host_excerpt(line.split()[0], 24)))
        host = m.group(1)
        # DeepSpeed keeps the name as written; pdsh expands `worker-[1-2]` when it connects
        # (DeepSpeed's own runner accepts it: the bracket range is pdsh's, hostlist(3))
        _host(re.sub(r"\[[0-9][0-9,\-]*\]", "0", host) if "[" in host else host, where)
        if host in seen:
            raise Refused("%s: DeepSpeed refuses the hostfile: it lists %s twice (\"Hostfile contains multiple "
                             "entries for %s\")" % (where, host, host))
        seen.add(host)
        out.append((host, _slots(m.group(2), where)))
    if not out:
        raise Refused("%s: DeepSpeed refuses it: \"Hostfile is empty or not formatted correctly\"" % path)
    return out


# orte/util/hostfile/hostfile_lex.l and hostfile.c of Open MPI 4.1 (https://github.com/open-mpi/ompi/blob/v4.1.4/
# orte/util/hostfile/hostfile_lex.l, .../hostfile.c hostfile_parse_line), ported token for token: flex takes the
# longest match, the earlier rule on a tie. The keywords are case-sensitive (`Slots=2` is a string, then a '='
# the parser refuses); a bare word after the host is ignored; `boards=`, `sockets=`, `cores=`, `cpu_set=`,
# `slot=` and `rank=` after a host are parse errors in 4.1 (checked with mpirun 4.1.4 --display-map).
_OMPI_MAX = ("slots-max", "slots_max", "max-slots", "max_slots", "cpu-max", "cpu_max", "max-cpu", "max_cpu",
             "count-max", "count_max", "max-count", "max_count")
_OMPI_WORDS = dict([("cpu", "SLOTS"), ("count", "SLOTS"), ("slots", "SLOTS"), ("rank", "RANK"), ("slot", "SLOT"),
                    ("username", "USERNAME"), ("user-name", "USERNAME"), ("user_name", "USERNAME"),
                    ("boards", "BOARDS"), ("sockets", "SOCKETS"), ("sockets_per_board", "SOCKETS"),
                    ("sockets-per-board", "SOCKETS"), ("cores", "CORES"), ("cores_per_socket", "CORES"),
                    ("cores-per-socket", "CORES"), ("cpu_set", "CPU_SET"), ("cpu-set", "CPU_SET")]
                   + [(k, "SLOTS_MAX") for k in _OMPI_MAX])
_OMPI_RULES = [  # (kind, regex) in the lexer's order; the keywords sit where the lexer has them
    ("NEWLINE", re.compile(r"[\f\t\v ]*\n")), ("NEWLINE", re.compile(r"#.*\n")), ("NEWLINE", re.compile(r"//.*\n")),
    ("COMMENT", re.compile(r"/\*")), ("QUOTED", re.compile(r'"[^"]*"')), ("WHITE", re.compile(r"[\f\t\v ]+")),
    ("EQUAL", re.compile(r"=")),
    ("WORD", re.compile("|".join(re.escape(k) for k in sorted(_OMPI_WORDS, key=len, reverse=True)))),
    ("RELATIVE", re.compile(r"\+n[0-9]+|\+[eE]:[0-9]+|\+[eE]")), ("INT", re.compile(r"[0-9]+")),
    ("STRING", re.compile(r"[A-Za-z0-9_\-,:*@]+")),  # mpirun 4.1.4 takes none of [\]^` here
    ("IPV4", re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9_\-]*@)?(?:[0-9]{1,3}\.){3}[0-9]{1,3}")),
    ("IPV6", re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9_\-]*@)?(?:[A-Fa-f0-9]{0,4}:)+:*(?:[A-Fa-f0-9]{0,4}:)+"
                        r"[A-Fa-f0-9]{1,4}")),
    ("HOSTNAME", re.compile(r"(?:\^?[A-Za-z0-9][A-Za-z0-9_\-]*@)?[A-Za-z][A-Za-z0-9_\-.]*")),
    ("ERROR", re.compile(r"[^\n]")),
]


# the common line, `host [key=N ...]` with a slot key: the tokens the rules below give it, without trying every
# rule at every character (a 100,000-line hostfile took 6 s that way)
_OMPI_SLOT_WORDS = sorted((k for k, v in _OMPI_WORDS.items() if v in ("SLOTS", "SLOTS_MAX")), key=len, reverse=True)
_OMPI_FAST = re.compile(r"([A-Za-z][A-Za-z0-9_\-.]*)((?:[ \t]+(?:%s)[ \t]*=[ \t]*[0-9]+)*)[ \t]*\n"
                        % "|".join(re.escape(k) for k in _OMPI_SLOT_WORDS))
_OMPI_FAST_KV = re.compile(r"(%s)[ \t]*=[ \t]*([0-9]+)" % "|".join(re.escape(k) for k in _OMPI_SLOT_WORDS))


def _ompi_tokens(text):
    """(kind, text, line) as hostfile_lex.l returns them, then ("DONE", "", line)."""
    pos, line, comment = 0, 1, False
    while pos < len(text):
        if not comment and (pos == 0 or text[pos - 1] == "\n"):
            m = _OMPI_FAST.match(text, pos)
            if m:
                yield "HOSTNAME", m.group(1), line
                for kv in _OMPI_FAST_KV.finditer(m.group(2)):
                    yield _OMPI_WORDS[kv.group(1)], kv.group(1), line
                    yield "EQUAL", "=", line
                    yield "INT", kv.group(2), line
                yield "NEWLINE", "\n", line
                line += 1
                pos = m.end()
                continue
        if comment:  # <comment>: up to '*/' (a NEWLINE) or a newline (a NEWLINE)
            m = re.compile(r"[^*\n]+|\*+/|\*+[^*/\n]*|\n").match(text, pos)
            pos = m.end()
            if m.group(0) == "\n":
                line += 1
                yield "NEWLINE", "\n", line - 1
            elif m.group(0).endswith("*/"):
                comment = False
                yield "NEWLINE", "", line
            continue
        best = None
        for kind, rx in _OMPI_RULES:
            m = rx.match(text, pos)
            if m and m.end() > pos and (best is None or m.end() > best[1].end()):
                best = (kind, m)
        kind, m = best if best else ("ERROR", None)
        word = m.group(0) if m else text[pos]
        pos = m.end() if m else pos + 1
        if kind == "WORD":
            kind = _OMPI_WORDS[word]
        if kind == "WHITE":
            continue
        if kind == "COMMENT":
            comment = True
            kind = "NEWLINE"
        yield kind, word, line
        if word.endswith("\n"):
            line += 1
    yield "DONE", "", line


def _ompi_parse_error(word, path):
    """What Open MPI's "parse error in the hostfile" was about."""
    if word == "\r":  # the lexer's blanks are [\f\t\v ]: mpirun 4.1.4 stops at the first CR
        from gpudoctor.fixline import sh

        return ("a parse error at a carriage return: the file has Windows line ends (CRLF); "
                "remove them: sed -i 's/\\r$//' %s" % sh(path))
    return "a parse error at %s" % host_excerpt(word.strip() or "the end of the file", 24)


def openmpi(text, path):
    """Open MPI 4.1's hostfile parser (see _OMPI_RULES): a line is a host, then `slots=N` (count=, cpu=),
    `max_slots=N` (eleven more spellings), `username=U`, ignored bare words; `#` and `//` comments. A new host has
    one slot; each further line naming it adds one and fixes the count, so a later `slots=N` for it is refused
    ("multiple definitions of the slot count"); `max_slots` below the slots is refused; `max_slots` alone sets the
    slots. `aa:4` is a host named `aa:4` (no `:N` syntax), `^aa` an error, `u@aa` host aa. Returns
    [(host, slots, explicit)] in file order, where explicit is Open MPI's 'slots given' (no count given for some
    host and no -np is its refusal)."""
    order, nodes = [], {}
    toks = _ompi_tokens(text)

    def refuse_at(line, what):
        raise Refused("%s:%d: Open MPI refuses the hostfile: %s" % (path, line, what))

    def value_int(line, key):
        t1, t2 = next(toks), None
        if t1[0] == "EQUAL":
            t2 = next(toks)
        if t2 is None or t2[0] != "INT":
            # hostfile_parse_int returns -1 ("The slots parameter is less than 0")
            refuse_at(line, "%s= needs a whole number after it" % key)
            return None
        return _slots(str(int(t2[1])) if len(t2[1]) <= 9 else t2[1], "%s:%d" % (path, line))

    for kind, word, line in toks:
        if kind in ("DONE",):
            break
        if kind == "NEWLINE":
            continue
        first = kind
        if kind == "RELATIVE":
            refuse_at(line, "%s is relative-node syntax, which needs an allocation made before" % excerpt(word, 12))
        if kind == "RANK":  # a rankfile line: the host after its '=' gets a slot; the rest is skipped
            while kind not in ("EQUAL", "DONE"):
                kind, word, line = next(toks)
            if kind == "DONE":  # hostfile.c: "bad syntax somewhere"
                refuse_at(line, "a rank line without its '=' and host")
            kind, word, line = next(toks)
            if kind in ("NEWLINE", "DONE"):
                refuse_at(line, "a rank line without its host")
        if kind not in ("STRING", "INT", "HOSTNAME", "IPV4", "IPV6"):
            refuse_at(line, _ompi_parse_error(word, path))
        parts = [p for p in word.split("@") if p]  # opal_argv_split drops empty parts
        if len(parts) != 1 and len(parts) != 2:
            refuse_at(line, "%s is not a host name" % host_excerpt(word, 24))
        name = parts[-1]
        if name.startswith("^"):
            refuse_at(line, "%s is not a host name (Open MPI 4.1 reads '^' as a parse error)" % host_excerpt(name, 24))
        if not name or name.startswith("-") or any(c in name for c in "\"'`$;&|<>()\\[]"):
            # brackets included: Open MPI's hostfile has no node-set ranges (node[1-2])
            refuse_at(line, "%s is not a host name" % host_excerpt(name, 24))
        node = nodes.get(name)
        if node is None:
            node = nodes[name] = {"slots": 1, "given": False, "max": 0}
            order.append(name)
        else:  # "this node was already found once - add a slot and mark slots as given"
            node["slots"] += 1
            node["given"] = True
        if first == "RANK":
            node["given"] = True
            for kind, word, _l in toks:
                if kind in ("NEWLINE", "DONE"):
                    break
            if kind == "DONE":
                break
            continue
        got_max = False
        for kind, word, _l in toks:
            if kind in ("NEWLINE", "DONE"):
                break
            if kind == "USERNAME":
                t = next(toks)
                if t[0] == "EQUAL":
                    t = next(toks)
                if t[0] in ("NEWLINE", "DONE"):  # hostfile_parse_string read past the line's end
                    if t[0] == "DONE":
                        break
                continue
            if kind == "SLOTS":
                n = value_int(line, word)
                if node["given"]:
                    refuse_at(line, "node %s has its slot count defined more than once (list it once per slot, "
                                    "or once with slots=N)" % name)
                node["slots"], node["given"] = n, True
                if node["max"] and node["max"] < n:
                    node["max"] = n
            elif kind == "SLOTS_MAX":
                n = value_int(line, word)
                if n < node["slots"]:
                    refuse_at(line, "node %s: the max_slots parameter is less than the slots parameter "
                                    "(slots=%d, max_slots=%d)" % (name, node["slots"], n))
                if node["max"] != n:
                    node["max"], got_max = n, True
            elif kind in ("STRING", "INT"):
                continue  # "just ignore it"
            elif kind in _OMPI_WORDS.values():
                refuse_at(line, "Open MPI's hostfile parser does not know %r after a host (a parse error)" % word)
            else:
                refuse_at(line, _ompi_parse_error(word, path))
        if got_max and not node["given"]:
            node["slots"], node["given"] = node["max"], True
        if kind == "DONE":
            break
    return [(h, nodes[h]["slots"], nodes[h]["given"]) for h in order]


def mpich(text, path):
    """MPICH Hydra machinefile (src/pm/hydra/lib/utils/ ... HYDU_parse_hostfile with
    process_mfile_token): `host[:N]` per line, N processes (default 1), `#` comments,
    further `key=value` words (ifhn=) allowed; a host listed twice appears twice."""
    out = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = "%s:%d" % (path, no)
        words = line.split()
        first = words[0]
        for w in words[1:]:
            # Hydra's HYDU_process_mfile_token: after the host, only `ifhn=` is known
            # ("unrecognized mfile token"); Open MPI's `host slots=N` is refused
            if w.split("=", 1)[0] != "ifhn" or "=" not in w:
                raise Refused("%s: Hydra refuses the machinefile: unrecognized mfile token %s (it reads "
                              "'host:N', not 'host slots=N')" % (where, excerpt(w.split("=", 1)[0], 20)))
        name, colon, n = first.partition(":")
        out.append((_host(name, where), _slots(n, where) if colon else 1))
    if not out:
        raise InputError("%s: the machinefile names no host" % path)
    return out


def comma_hosts(spec, where, default_slots=1):
    """`a:2,b:2,c` (Open MPI -H, horovodrun -H, Hydra -hosts): [(host, slots)], repeated
    names merged, slots added (Open MPI: `-H aa,aa` is two slots on aa)."""
    order, slots = [], {}
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, colon, n = item.rpartition(":") if ":" in item and not item.startswith("[") else (item, "", "")
        if not colon:
            name, n = item, ""
        c = _slots(n, where) if colon else default_slots
        if "@" in name:
            name = name.rsplit("@", 1)[1]
        _host(name, where)
        if name not in slots:
            order.append(name)
            slots[name] = 0
        slots[name] += c
    return [(h, slots[h]) for h in order]
