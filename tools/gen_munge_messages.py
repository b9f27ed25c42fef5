#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/munge_messages.json: what MUNGE (Slurm's usual
authentication service) and Slurm's auth/munge plugin print, each turned into a bounded matcher and
assigned to a knowledge family (munge.toml) by the RULES table below:

- every munge_err_t code (src/libmunge/munge.h, with its comment) and the text munge_strerror()
  gives it (src/libmunge/strerror.c): "Expired credential", "Invalid credential", ... These are
  what `munge`/`unmunge` print after "Error:" and what Slurm prints after "Munge decode failed: ";
- the error texts of the library (src/libmunge: strdupf(...) texts that munge_ctx_strerror()
  returns, e.g. 'Failed to access "/run/munge/munge.socket.2": No such file or directory (Did you
  start munged?)'), of munged (src/munged, src/libcommon: log_err / log_errno / log_err_or_warn,
  the daemon's fatal start-up checks such as 'Keyfile is insecure: ...' and 'Logfile is
  insecure: ...') and of the client commands (src/munge);
- the error() / fatal() formats of Slurm's auth/munge plugin (src/plugins/auth/munge/auth_munge.c:
  'Munge decode failed: %s', 'Check for out of sync clocks', ...).

Usage:
    python tools/gen_munge_messages.py --munge-repo /path/to/munge.git --slurm-repo /path/to/slurm.git [-o OUT]
    python tools/gen_munge_messages.py --slice tools/data/munge_messages_slice.txt -o OUT   (the test)

Sources: dun/munge (https://github.com/dun/munge) and SchedMD/slurm
(https://github.com/SchedMD/slurm), read with `git show REV:path`. In a slice, each file's path is
prefixed with its repository: `munge:src/...` or `slurm:src/...`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_munge_messages.py"
SOURCE = ("dun/munge (https://github.com/dun/munge) src/libmunge, src/munged, src/libcommon, src/munge; "
          "SchedMD/slurm (https://github.com/SchedMD/slurm) src/plugins/auth/munge/auth_munge.c")
MUNGE_DIRS = ("src/libmunge", "src/munged", "src/libcommon", "src/munge")
SLURM_FILES = ("src/plugins/auth/munge/auth_munge.c",)

# A code's family, by its name (munge.h): the first rule that matches wins.
CODE_RULES = [
    ("clock", "munge.clock_skew", {"name": r"^EMUNGE_CRED_(EXPIRED|REWOUND)$"}),
    ("key", "munge.key_mismatch", {"name": r"^EMUNGE_CRED_INVALID$"}),
    ("replayed", "munge.replayed", {"name": r"^EMUNGE_CRED_REPLAYED$"}),
    ("unauthorized", "munge.unauthorized", {"name": r"^EMUNGE_CRED_UNAUTHORIZED$"}),
    ("socket", "munge.not_running", {"name": r"^EMUNGE_(SOCKET|TIMEOUT)$"}),
    ("format", "munge.mismatch", {"name": r"^EMUNGE_BAD_(CRED|VERSION|CIPHER|MAC|ZIP|REALM)$"}),
    ("other", "munge.error", {"name": r"^EMUNGE_(SNAFU|BAD_ARG|BAD_LENGTH|OVERFLOW|NO_MEMORY)$"}),
]

# A message's family, by its text (and where: munge:<path> or slurm:<path>).
RULES = [
    ("clock", "munge.clock_skew", {"text": r"out of sync clocks"}),
    ("socket", "munge.not_running", {"text": r"Failed to access \"|Failed to connect to \"|Did you start munged|"
                                             r"Invalid file type for socket|restart with --num-threads|"
                                             r"Failed to set MUNGE socket"}),
    ("unauthorized", "munge.unauthorized", {"text": r"^Unauthorized credential for client"}),
    ("format", "munge.mismatch", {"text": r"^Invalid (credential version|cipher type|MAC type|compression type)|"
                                          r"Unknown protocol version|unknown protocol version"}),
    # munged's start-up checks of its files (conf.c, munged.c, auth_recv.c): it exits, so every
    # client (and Slurm) then fails with the socket error
    ("files", "munge.daemon_start", {"where": r"^munge:src/munged/", "text": r"is insecure|keyfile|Keyfile|"
                                     r"Failed to (?:open|create|lock|remove|close) (?:\"|logfile|pidfile|lockfile|"
                                     r"socket|seed)|Logfile|PIDfile|[Ss]eedfile|socket name is undefined|"
                                     r"Failed to check (?:logfile|pidfile|socket|keyfile|seedfile)|"
                                     r"Failed to (?:bind|listen on) socket|is inaccessible|"
                                     r"Root privileges are required|auth (?:server|client) (?:parent )?dir"}),
    # Slurm's own 'Munge decode/encode failed: %s': the munge text in its %s names the cause; by
    # itself the family only
    ("slurm", "munge.error", {"where": r"^slurm:", "text": r"[Mm]unge|MUNGE"}),
]
# Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): what the call
# that prints a message does, and where. munge's log_err / log_errno 'Logs a fatal message ... after which it exits the
# program' (src/libcommon/log.c; log_err_or_warn the same unless --force): in src/munged/ every such site stops the
# daemon, so each client and Slurm then fails with the socket error (munge.daemon, generic: munged exited, the line
# names why). libmunge's m_msg.c / m_msg_client.c build the text a client gets when its request to munged over the
# socket fails (connect, send, receive: munge_ctx_strerror, which Slurm prints after 'Munge encode failed: '): munged
# not reachable (munge.not_running). A site whose own words are fewer than 3 stays unassigned (knowgen.specific_enough).
CONTEXT_RULES = [
    ("ctx-munged-exit", "munge.daemon", {"where": r"^munge:src/munged/", "level": r"^log_err(?:no|_or_warn)?$"}),
    ("ctx-munge-socket", "munge.not_running", {"where": r"^munge:src/libmunge/m_msg(?:_client)?\.c:",
                                               "level": r"^strdupf$"}),
]
CTX_WORDS = 3
VAGUE = "too few words of its own to assign by its source file"

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^Failed to access \"%s\": %s \(%s\)$",
     "The client found no munged socket at that path: munged is not running on this host (its socket file is "
     "created when it starts), or it listens on another socket path.",
     ["systemctl status munge; ls -l /run/munge/ (or /var/run/munge/)", "sudo systemctl enable --now munge "
      "(if it does not start: journalctl -u munge and /var/log/munge/munged.log say why)"]),
    (r"^Keyfile is insecure",
     "munged refuses to start: /etc/munge/munge.key (or its directory) has an owner or permissions that let "
     "others read or change it.",
     ["ls -l /etc/munge/munge.key; ls -ld /etc/munge", "sudo chown munge:munge /etc/munge/munge.key && "
      "sudo chmod 0400 /etc/munge/munge.key; sudo chown munge:munge /etc/munge && sudo chmod 0700 /etc/munge; "
      "sudo systemctl restart munge"]),
    (r"^Failed to find keyfile",
     "munged refuses to start: there is no key file (mungekey was never run, or the key was not copied to this "
     "host).",
     ["ls -l {%1|/etc/munge/munge.key}", "copy the cluster's key from the controller (same file on every node): "
      "sudo install -o munge -g munge -m 0400 munge.key /etc/munge/munge.key; sudo systemctl restart munge"]),
    (r"^Logfile is insecure",
     "munged refuses to start: its log file (/var/log/munge/munged.log) or the directory has an owner or "
     "permissions others could write.",
     ["ls -ld /var/log/munge /var/log/munge/munged.log", "sudo chown -R munge:munge /var/log/munge && sudo chmod "
      "0700 /var/log/munge && sudo chmod 0640 /var/log/munge/munged.log; sudo systemctl restart munge"]),
]

# call -> index of the format among its arguments
_CALLS = {"log_err": 2, "log_errno": 2, "log_err_or_warn": 1, "strdupf": 0, "error": 0, "fatal": 0}
_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(%s)\s*\(" % "|".join(_CALLS))
# munge's lines: munged's log ('2024-05-01 10:00:00 +0000 Error:      ...', src/libcommon/log.c), the
# commands' stderr ('unmunge: Error: ...'), or Slurm's ('slurmd: error: ...', 'error: Munge ...')
_CONTEXT = (r"(?:\b(?:munged?|unmunge|remunge|MUNGE|[Mm]unge)\b|"
            r"\d\d:\d\d:\d\d [+-]\d{4} (?:Error|Critical|Alert|Emergency|Notice|Info): |"
            r"\b(?:srun|sbatch|salloc|slurmd|slurmstepd|slurmctld|scontrol|sinfo|squeue)(?:\[\d{1,10}\])?: "
            r"error:)[^\n]{0,160}?")
CONTEXT_BELOW = 30  # a literal shorter than this needs one of those line shapes


def literal(arg):
    """The string of an argument made of adjacent literals only ("a" "b"), else None."""
    rest = knowgen.C_STRING.sub("", arg)
    if rest.strip() or '"' not in arg:
        return None
    return "".join(knowgen.c_unescape(m) for m in knowgen.C_STRING.findall(arg))


def parse_codes(header, strerror):
    """[(name, number, comment, text)]: munge_err_t (munge.h) and munge_strerror (strerror.c)."""
    texts = dict(re.findall(r"case\s+(EMUNGE_\w+)\s*:\s*return\s*\(\s*\"([^\"]*)\"", strerror))
    out = []
    for name, num, comment in re.findall(r"^\s*(EMUNGE_\w+)\s*=\s*(\d+)\s*,?\s*/\*\s*(.*?)\s*\*/", header, re.M):
        if name in texts:
            out.append((name, int(num), comment, texts[name]))
    return out


def sites_of(path, src):
    for m in _CALL.finditer(src):
        call = m.group(1)
        if path.startswith("slurm:") != (call in ("error", "fatal")):
            continue  # error()/fatal() are Slurm's; munge's own calls are log_* and strdupf
        args = knowgen.call_args(src, m.end())
        idx = _CALLS[call]
        if not args or len(args) <= idx:
            continue
        fmt = literal(args[idx])
        if not fmt or not fmt.strip():
            continue
        if call.startswith("log_err") and call != "log_err_or_warn" and "LOG_ERR" not in args[1]:
            continue  # a notice or an info line
        yield call, "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


# munge words only: a code text that any program prints ('Invalid argument', 'Out of memory', 'Socket
# timeout') is munge's only on a line that names munge, never after a bare 'srun: error:'
_MUNGE_CONTEXT = r"\b(?:munged?|unmunge|remunge|MUNGE|[Mm]unge)\b[^\n]{0,160}?"
_SPECIFIC = re.compile(r"credential|realm|cipher|MAC type|compression")


def code_regex(text, others):
    """A code's text after a munge line shape; never the start of a longer code text ('Invalid
    credential' is also the start of 'Invalid credential format')."""
    longer = sorted({o[len(text):] for o in others if o != text and o.startswith(text)})
    guard = "(?!%s)" % "|".join(re.escape(t) for t in longer) if longer else ""
    return (_CONTEXT if _SPECIFIC.search(text) else _MUNGE_CONTEXT) + re.escape(text) + guard


def build(files, version):
    by_path = dict(files)
    header = by_path.get("munge:src/libmunge/munge.h", "")
    codes = parse_codes(header, by_path.get("munge:src/libmunge/strerror.c", ""))
    texts = [c[3] for c in codes]
    sites = []
    for name, num, comment, text in codes:
        if name == "EMUNGE_SUCCESS":
            continue
        rule, family = knowgen.assign(CODE_RULES, None, {"name": name, "text": text})
        sites.append({"id": "munge.%s" % name.lower(), "name": name, "code": num, "text": text,
                      "comment": comment, "re": code_regex(text, texts), "family": family, "rule": rule})
    seen = set(texts)
    for path, src in files:
        if path.endswith("_test.c") or not path.endswith(".c"):
            continue
        for call, where, fmt in sites_of(path, src):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, lit = knowgen.printf_to_regex(fmt.replace("%m", "%s"))
            site = {"id": "munge.msg.%s" % knowgen.slug(where),
                    "where": where, "level": call, "text": fmt}
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            if len("".join(lit.split())) < CONTEXT_BELOW:
                rx = _CONTEXT + rx
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
            if family is None:
                rule, family = knowgen.assign(CONTEXT_RULES, site, {"where": where, "level": call})
                if family is not None and not knowgen.specific_enough(fmt.replace("%m", "%s"), CTX_WORDS):
                    rule, family = VAGUE, None
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "munge_err_t codes with munge_strerror's texts, the error texts of libmunge, "
                                     "munged and the munge commands, and Slurm's auth/munge plugin; families from "
                                     "the RULES tables of the generator"), "sites": sites}


def from_repos(munge, slurm, rev="HEAD"):
    mg, sg = knowgen.git_reader(munge), knowgen.git_reader(slurm)
    files = [("munge:" + p, text) for p, text in knowgen.tree_files(mg, rev, MUNGE_DIRS,
                                                                   lambda p: p.endswith((".c", "munge.h")))]
    files += [("slurm:" + p, sg("show", "%s:%s" % (rev, p))) for p in SLURM_FILES]
    # a mirror fetched without tags: the commit alone
    return files, "%s; slurm %s" % (knowgen.revision(mg, rev, untagged="?"), knowgen.slurm_release(sg, rev))


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("munge-repo", "slurm-repo"))
    files, version = from_repos(a.munge_repo, a.slurm_repo) if a.slice is None else knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("munge_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
