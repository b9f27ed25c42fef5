"""~/.ssh/config must be readable by its user and free of comments after values.

ssh_config(5) treats only lines *starting* with '#' as comments. Seed 002 (a DeepSpeed
multi-node guide) warns that comments in ~/.ssh/config broke its pdsh/deepspeed launch:
`Port 33  # jump host` is read by older OpenSSH and by other parsers as the value
'33  # jump host' or rejected. An unreadable config stops ssh outright ("Can't open user
config file"); one owned by another user fails readconf.c's secure_permissions ("Bad
owner or permissions"). The mode bits are ssh.permissions' job.
"""

import re

from gpudoctor.registry import NA, Finding, Literal, Pass, Skip, check, cmd

from .ssh import _owner


def trailing_comments(text):
    """[(line_number, line)] of lines that carry a value and then a '#' comment."""
    out = []
    for n, line in enumerate((text or "").splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#") or "#" not in s:
            continue
        # a comment starts at a '#' after whitespace ('Host a#b # c': 'a#b' is the value)
        m = re.search(r"\s#", s)
        if not m:
            continue
        head = s[:m.start() + 1]
        if len(head.replace("=", " ").split()) >= 2 and head[-1:].isspace() and '"' not in head:
            out.append((n, line.rstrip()))
    return out


@check("ssh.config", title="~/.ssh/config is readable and has no comments after values", needs=("ssh",),
       severity="error")
def ssh_config(facts, config):
    ssh = facts["ssh"]
    entries = ssh.get("entries") or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries) or \
            not isinstance(ssh.get("config"), (str, type(None))):
        yield Skip("~/.ssh entries in the facts are malformed (untrusted node output)")
        return
    entry = [e for e in entries if e.get("kind") == "config"]
    if not entry:
        yield NA("no ~/.ssh/config on this node")
        return
    e = entry[0]
    path = e["path"]
    text = ssh.get("config")
    uid = ssh.get("uid")
    user = ssh.get("user") if isinstance(ssh.get("user"), str) and ssh.get("user") else Literal("$USER")
    if text is None:
        yield Finding.error("%s exists but cannot be read: ssh stops before connecting" % path,
                            observed="unreadable (mode %s, owner uid %s)" % (e.get("mode"), e.get("uid")),
                            expected="readable by uid %s" % uid,
                            fix=cmd("chown -- {owner} {path} && chmod 600 -- {path}", owner=_owner(user), path=path))
        return
    if e.get("uid") not in (0, uid):
        yield Finding.error("%s is owned by uid %s: ssh refuses it (\"Bad owner or permissions\")" % (path, e["uid"]),
                            observed="owner uid %s" % e["uid"], expected="owner uid %s (or root)" % uid,
                            fix=cmd("chown -- {owner} {path}", owner=_owner(user), path=path))
    bad = trailing_comments(text)
    if not bad and e.get("uid") in (0, uid):
        yield Pass("%s: readable, owner uid %s, %d lines, no comment after a value"
                   % (path, e.get("uid"), len(text.splitlines())))
    if bad:
        lines = "; ".join("line %d: %s" % (n, l.strip()) for n, l in bad[:3])
        yield Finding.warning(
            "%s has %d line%s with a comment after the value (%s)" % (path, len(bad), "" if len(bad) == 1 else "s",
                                                                      lines),
            observed=lines, expected="comments on lines of their own",
            fix=cmd("sed -i -E 's/^([[:space:]]*[^#[:space:]][^#]*[^#[:space:]])[[:space:]]+#.*$/\\1/' -- {path}",
                    path=path))
