#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ssh_messages.json: what the OpenSSH client prints when it refuses or
fails, the messages a user of pdsh, mpirun (plm_rsh), DeepSpeed's multinode runner, Horovod or a home-made ssh
launcher meets before the job starts, each turned into a bounded matcher and assigned to a knowledge family
(ssh.toml; the host key, file permission and publickey messages to checks/ssh.knowledge.toml's entries) by the
RULES table below.

It reads the client's sources (ssh.c, sshconnect.c, sshconnect2.c, readconf.c, mux.c, authfile.c, kex.c, packet.c,
misc.c) at a release tag: every format of OpenSSH's log macros (log.h) that print without -v: fatal / error /
logit / logdie and their _f (the function's name before the text), _r (': ' and ssh_err(r) after it) and _fr forms,
and do_log2 (its level given at the call: the 'Could not resolve hostname' line). verbose / debug* print only with
-v and are left out. A message printed at several places keeps its first site.

Usage:
    python tools/gen_ssh_messages.py --repo /path/to/openssh-portable.git [--rev V_9_2_P1] [-o OUT]
    python tools/gen_ssh_messages.py --slice tools/data/ssh_messages_slice.txt -o OUT   (the test)

Source: openssh/openssh-portable (https://github.com/openssh/openssh-portable), read with `git show REV:path`;
the release V_9_2_P1 is the one Debian 12 ships (OpenSSH_9.2p1), so the texts made here by running ssh are the
same program's.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ssh_messages.py"
FILES = ("ssh.c", "sshconnect.c", "sshconnect2.c", "readconf.c", "mux.c", "authfile.c", "kex.c", "packet.c", "misc.c")
SOURCE = "openssh/openssh-portable (https://github.com/openssh/openssh-portable) " + ", ".join(FILES)

# log.h: the macros that print at their level without -v, and where their format argument is (after r, a level)
_CALL = re.compile(r"(?<![A-Za-z0-9_])(fatal|error|logit|logdie|do_log2)(_fr|_f|_r)?\s*\(")
_CONV = re.compile(r"%[-+ #0-9.]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]")
LEVEL = {"fatal": "fatal", "logdie": "fatal", "error": "error", "logit": "info", "do_log2": "varies"}

# A message's family, by its text and the file that prints it: the first rule that matches wins.
RULES = [
    # mux.c muxserver_listen / misc.c unix_listener: a Unix socket's path must fit sun_path (108 bytes on Linux,
    # unix(7)); ssh checks it itself and stops
    ("socket-path", "ssh.control_path_too_long", {"text": r"ControlPath too long|too long for Unix domain socket"}),
    # mux.c: connection sharing (ControlMaster / ControlPath / ControlPersist, ssh_config(5))
    ("mux", "ssh.control_master", {"where": r"^mux\.c:", "text": r"^Control ?[Ss]ocket|ControlPath|^ControlSocket"}),
    # sshconnect.c / sshconnect2.c: the server's host key against known_hosts (StrictHostKeyChecking)
    ("host-key", "ssh.host_key", {"text": r"Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|"
                                          r"Offending (?:%s )?key|POSSIBLE DNS SPOOFING|host key for %s has changed|"
                                          r"No %s host key is known|Host key for %s has changed"}),
    # packet.c sshpkt_vfatal: no algorithm both sides accept (KexAlgorithms, HostKeyAlgorithms, Ciphers, MACs)
    ("negotiate", "ssh.negotiate", {"text": r"^Unable to negotiate with"}),
    # readconf.c (the config file's owner / mode) and authfile.c (a private key readable by others)
    ("permissions", "ssh.permissions", {"text": r"Bad owner or permissions on|UNPROTECTED PRIVATE KEY FILE|"
                                                r"are too open"}),
    # sshconnect2.c: no authentication method succeeded; a key that could not be loaded
    ("auth", "ssh.publickey", {"text": r"Permission denied \(|Too many authentication failures|^Load key"}),
    # sshconnect.c / ssh.c / kex.c / packet.c: the TCP connection or the first exchange
    ("connect", "ssh.connect", {"text": r"connect to host %s port|Could not resolve hostname|^Connection closed by|"
                                        r"^Connection reset by|^Connection %s %s port %d timed out|Connection timed out during|"
                                        r"^Connection closed by remote host|kex_exchange_identification|"
                                        r"^Disconnected from"}),
    # readconf.c: a line of ssh_config / -o it cannot use ('%s line %d: ...', 'Bad configuration option')
    ("config", "ssh.config", {"where": r"^readconf\.c:", "text": r"line %d|Bad configuration option|"
                                                                   r"bad configuration options"}),
    # (noans22) ssh.c main(): the options and the config refused together before connecting - a command on the
    # command line with the host's RemoteCommand, -J with ProxyCommand, -N with -s - each a fatal() consistency check
    # ('Cannot execute command-line and remote command.', 'inconsistent options: ProxyCommand+ProxyJump')
    ("option-conflict", "ssh.config", {"where": r"^ssh\.c:", "text": r"^(?:Cannot|Can't) (?:specify|execute|fork)|"
                                                                     r"^inconsistent options|are incompatible$|"
                                                                     r"^Only a single -J|already specified$|"
                                                                     r"^Invalid (?:-J argument|number of)"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^ControlPath too long",
     "the ControlPath expands to a Unix socket path of {%2|108} bytes or more ({%1|the path}), more than a Unix "
     "socket's address holds (sun_path, 108 bytes on Linux), so ssh stops before connecting; a deep shared "
     "directory with %r@%h:%p (user, host, port) in the name reaches it easily.",
     ["use a short ControlPath with the %C token (a hash of local host, remote host, port and user): "
      "-o ControlPath=~/.ssh/cm-%C, or ControlPath /tmp/cm-%C in ~/.ssh/config (ssh_config(5) ControlPath)",
      "or a shorter directory for the sockets (mkdir -m 700 ~/.ssh/cm; ControlPath ~/.ssh/cm/%C)"]),
    (r"^Unable to negotiate with",
     "the client and {%1|the server} share no algorithm of one kind: {%2|the kind} (the server offers only "
     "{%3|what it lists}); an old server (ssh-rsa / SHA-1 host keys, diffie-hellman-group1) against a new client "
     "that disabled them, or the reverse.",
     ["upgrade the old side; meanwhile enable the offered algorithm for that host only: -o "
      "HostKeyAlgorithms=+ssh-rsa -o PubkeyAcceptedAlgorithms=+ssh-rsa (or KexAlgorithms=+<offered>) in a Host "
      "block of ~/.ssh/config (ssh_config(5))"]),
    (r"^Bad owner or permissions on",
     "ssh refuses a config file ({%1|~/.ssh/config}) that others may write to, or that another user owns "
     "(readconf.c checks its owner and mode before reading it).",
     ["chown $USER {%1|~/.ssh/config}; chmod 600 {%1|~/.ssh/config} (and chmod 700 ~/.ssh); on a shared or "
      "container-mounted home, fix the mount's owner / mode"]),
    (r"^Cannot execute command-line and remote command",
     "ssh was given a command on its command line while the configuration sets RemoteCommand for that host "
     "(ssh_config(5) RemoteCommand, a Host / Match block of ~/.ssh/config or the -F file): ssh runs one or the other, "
     "never both, and stops (ssh.c main).",
     ["run the command with the host's RemoteCommand turned off: ssh -o RemoteCommand=none <host> <command> (the "
      "launcher's ssh line: pdsh, mpirun's plm_rsh_args, deepspeed's launcher), or move RemoteCommand to a Host alias "
      "only interactive logins use"]),
    (r"^Permissions 0%3\.3o for '%s' are too open",
     "the private key {%2|the key file} is readable by other users (mode 0{%1|644}), so ssh ignores it and "
     "falls back to other methods.",
     ["chmod 600 {%2|the key file} (and chmod 700 ~/.ssh); a key copied from a mounted volume or a Kubernetes "
      "secret: defaultMode 0600 (0400) on the secret volume"]),
]

# an error_f / fatal_f text of the client's internals ('%s: buffer error', 'sshbuf_put: %s'): too few words of
# its own to say what went wrong, and no user acts on it from the line alone
_OWN = 2


# a function's definition in OpenSSH's style (style(9)): its name at a line's start, then '('
_DEF = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,80})\(", re.M)


def sites_of(path, src):
    """(level, where, format) of each message of the log macros in one file. An _f / _fr form prints the function's
    name first (log.c sshlogv: '%s: %s' of __func__ and the message): the definition nearest above the call."""
    defs = [(d.start(), d.group(1)) for d in _DEF.finditer(src)]
    for m in _CALL.finditer(src):
        macro, form = m.group(1), m.group(2) or ""
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        i = (1 if macro == "do_log2" else 0) + (1 if form in ("_r", "_fr") else 0)
        if len(args) <= i:
            continue
        fmt = knowgen.c_format(args[i], 0)
        if not fmt or not fmt.strip():
            continue
        if "remote_id" in args[i + 1:]:  # packet.c: sshpkt_fmt_connection_id's "%.200s%s%s port %d"
            k = args[i + 1:].index("remote_id")
            convs = list(_CONV.finditer(fmt))
            if k < len(convs):
                fmt = fmt[:convs[k].start()] + "%s port %d" + fmt[convs[k].end():]
        if form in ("_r", "_fr"):
            fmt += ": %s"  # log.c sshlogv: the message, ': ', then ssh_err(r)
        if form in ("_f", "_fr"):
            func = next((name for at, name in reversed(defs) if at < m.start()), None)
            if func:
                fmt = "%s: %s" % (func.replace("%", "%%"), fmt)
        yield LEVEL[macro], "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt.strip("\n").split("\n")[0]


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for level, where, fmt in sites_of(path, src):
            if fmt in seen:
                continue
            seen.add(fmt)
            site = {"id": knowgen.unique_id("ssh.msg.%s" % knowgen.slug(where), ids), "where": where,
                    "level": level, "text": fmt}
            rx, lit = knowgen.printf_to_regex(fmt)
            if rx:  # two words printed as '%s %s' ('Connection %s %s ...': from / to, then the peer) are one group
                rx = rx.replace(r"[^\n]{0,200}\ [^\n]{0,200}", r"[^\n]{0,200}")
            if rx and fmt.endswith(" port %d"):  # the peer's port ends the line: keep it (printf_to_regex drops it)
                rx += r"\ \d{1,5}(?!\w)"
            if rx and "%s port %d" in fmt and r"[^\n]{0,200}\ port" in rx:
                # (fp22) packet.c's connection id is '<log_preamble> <address> port <n>': the client sets no preamble;
                # sshd, which runs the same packet.c, sets 'user <name>' once a login is authenticated (sshd.c
                # ssh_packet_set_log_preamble), so its 'Disconnected from user root 10.0.0.5 port 51514' is the end of
                # every session a user closed, not this client's failure ('authenticating user' / 'invalid user', a
                # login not finished, still match)
                rx = rx.replace(r"[^\n]{0,200}\ port", r"(?!user\ )[^\n]{0,200}\ port", 1)
            if rx and re.match(r"%(?:\.\d{1,4})?s:? line %d: ", fmt) and "line" in rx:
                # readconf.c's '<file> line <n>: ...': the file is ssh_config (~/.ssh/config, /etc/ssh/ssh_config,
                # ssh_config.d/*.conf) or 'command-line' for -o (ssh.c process_config_line(..., "command-line", ...));
                # 'line 3: invalid quotes' alone is any parser's (review16)
                rx = r"(?:config|conf|command-line):?\ " + rx[rx.index("line"):]
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
            if family and not knowgen.specific_enough(fmt, need=_OWN, errtexts=()):
                rule, family = "too few words of its own", None
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "the ssh client's fatal / error / logit / logdie / do_log2 formats; families "
                                     "from the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = [(p, git("show", "%s:%s" % (rev, p))) for p in FILES]
    # the commit the tag names (an annotated tag's own object is not the commit)
    return files, "%s (commit %s)" % (rev, git("rev-parse", rev + "^{commit}").strip())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="V_9_2_P1")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("ssh_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
