"""sshd's StrictModes and the ssh client refuse keys kept with loose modes or the wrong
owner ("Authentication refused: bad ownership or modes", "UNPROTECTED PRIVATE KEY FILE",
"Bad owner or permissions on ~/.ssh/config"): pdsh, deepspeed and mpirun then fail with
"Permission denied (publickey)" on the first node that is wrong."""

from gpudoctor.registry import NA, Finding, Literal, Pass, Skip, check, cmd

# kind -> (bits that make it an error, bits that make it a warning, the mode to set, why)
RULES = {
    "home": (0o022, 0, None, "sshd refuses keys when the home directory is group/world writable"),
    "ssh_dir": (0o022, 0o077, "700", "sshd refuses keys when ~/.ssh is group/world writable"),
    "authorized_keys": (0o022, 0o077, "600", "sshd ignores authorized_keys that others can write"),
    "private_key": (0o077, 0, "600", "ssh refuses a private key that others can read"),
    "config": (0o022, 0, "600", "ssh exits with 'Bad owner or permissions' on such a config"),
}


def _entry_ok(e):
    """An entry as collector/ssh.py writes it: path, owner uid and an octal mode string."""
    if not isinstance(e, dict) or not isinstance(e.get("path"), str) or not isinstance(e.get("uid"), int):
        return False
    mode = e.get("mode")
    return (isinstance(mode, str) and 0 < len(mode) <= 6 and all(c in "01234567" for c in mode)
            and (e.get("kind") is None or isinstance(e.get("kind"), str)))


def _owner(user):
    """chown's USER: argument: the node's user name is one quoted word; the check's own
    $USER stays for the shell to expand."""
    return Literal(user + ":") if isinstance(user, Literal) else user + ":"


@check("ssh.permissions", title="~/.ssh and the home directory have the modes sshd accepts", needs=("ssh",))
def ssh_permissions(facts, config):
    ssh = facts["ssh"]
    uid = ssh.get("uid")
    user = ssh.get("user") or Literal("$USER")
    if not isinstance(user, str):
        user = Literal("$USER")
    entries = ssh.get("entries")
    if not isinstance(uid, int) or not isinstance(entries, list) or not all(_entry_ok(e) for e in entries):
        yield Skip("~/.ssh entries in the facts are malformed (untrusted node output)")
        return
    if not ssh["entries"]:
        yield NA("no ~/.ssh and no home directory to judge for %s" % user)
        return
    problems = 0
    for e in ssh["entries"]:
        rule = RULES.get(e.get("kind"))
        path = e["path"]
        if e["uid"] not in (uid, 0) or (e["uid"] == 0 and uid != 0 and e.get("kind") != "home"):
            problems += 1
            yield Finding.error("%s is owned by uid %d, not by the user (uid %d)" % (path, e["uid"], uid),
                                observed="owner uid %d" % e["uid"], expected="owner uid %d" % uid,
                                fix=cmd("chown -- {owner} {path}", owner=_owner(user), path=path))
        if rule is None:
            continue
        bad, loose, want, why = rule
        mode = int(e["mode"], 8)
        if mode & bad:
            problems += 1
            fix = cmd("chmod go-w -- {path}", path=path) if want is None else cmd("chmod {mode} -- {path}", mode=want,
                                                                                 path=path)
            yield Finding.error("%s has mode %s: %s" % (path, e["mode"], why), observed=e["mode"],
                                expected=want or "not group/world writable", fix=fix)
        elif mode & loose:
            problems += 1
            yield Finding.warning("%s has mode %s; %s is the safe mode" % (path, e["mode"], want),
                                  observed=e["mode"], expected=want,
                                  fix=cmd("chmod {mode} -- {path}", mode=want, path=path))
    if not problems:
        yield Pass(", ".join("%s %s" % (e["path"], e["mode"]) for e in ssh["entries"][:6])
                   + (" (+%d more)" % (len(ssh["entries"]) - 6) if len(ssh["entries"]) > 6 else "")
                   + ": owned by uid %s, no group/world write" % uid)
