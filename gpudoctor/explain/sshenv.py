"""A variable the launching shell exported that the process started through ssh did not have (issue 18, infra16).

`export MASTER_ADDR=10.0.0.1; ssh node2 'python join.py'` then `KeyError: 'MASTER_ADDR'`: ssh runs the remote command
in a fresh login environment on the node. It sends a variable of the local environment only when the client asks for
it (SendEnv, or SetEnv with a value, in ssh_config) AND the node's sshd accepts that name (AcceptEnv in sshd_config);
otherwise the variable is silently left out (ssh_config(5) SendEnv: 'the server must also support it, and the server
must be configured to accept these environment variables'; sshd_config(5) AcceptEnv: 'The default is not to accept
any environment variables'). Home-made multi-node launchers, pdsh and clush hit it.

Plugged into launchctx.py as launchenv.py is (patterns, record, read): an ssh command line (after a prompt, ';' or
'&&') that exports the variable on the same line, or an `export` line before it, and then the error naming that
variable (Python's os.environ KeyError; torch's env:// 'environment variable X expected, but not set'). Nothing without
the three in the text, in that order; a variable the remote command sets itself is no case.
"""

import re
import shlex

from gpudoctor.explain.knowledge import Pattern
from gpudoctor.fixline import sh

MAX_KEPT = 8
# the command line, after a prompt or a separator ('$ export A=1; ssh node cmd', '... && ssh -F cfg node cmd')
_SSH = r"(?:^|[$#%>][ \t]{1,4}|;[ \t]{0,4}|&&[ \t]{0,4})ssh[ \t]{1,4}[^\s]"
_EXPORT = r"^[^\n]{0,200}?[$#%>][ \t]{1,4}export[ \t]{1,4}[A-Za-z_][A-Za-z0-9_]{0,127}="
_ERR = (r"\bKeyError: ['\"](?P<k>[A-Za-z_][A-Za-z0-9_]{1,60})['\"]|environment variable (?P<e>[A-Z][A-Z0-9_]{1,60}) "
        r"expected, but not set")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,127})=")
# ssh(1)'s options that take a value: the first other word is the host, the rest the remote command
_SSH_VAL = set("BbcDEeFIiJLlmOoPpQRSWw")
# a rank variable: what torch's env:// reads (rendezvous.env_missing); any other is the job's own (code.exception)
_RANKISH = re.compile(r"RANK|WORLD|SIZE|MASTER_(?:ADDR|PORT)|NNODES|NPROC|NODE")


def patterns(entry):
    return [Pattern(entry, "paste", _SSH, 0, site={"class": "sshenv_cmd", "id": "sshenv-cmd"},
                    needles=["$ssh", "#ssh", ";ssh", "&&ssh", ">ssh", "%ssh"]),
            Pattern(entry, "paste", _EXPORT, 0, site={"class": "sshenv_export", "id": "sshenv-export"},
                    needles=["$export", "#export", "%export", ">export"]),
            Pattern(entry, "paste", _ERR, 0, site={"class": "sshenv_err", "id": "sshenv-err"},
                    needles=["keyerror:", "expected,butnotset"])]


class State(object):
    def __init__(self):
        self.exports = []  # (line, {name}, text)
        self.ssh = []  # (line, host, remote command, {name exported on that line}, text)
        self.err = []  # (line, variable, text)


def _state(scan):
    st = getattr(scan, "sshenv", None)
    if st is None:
        st = scan.sshenv = State()
    return st


def _words(text):
    try:
        return shlex.split(text, comments=False)[:400]
    except ValueError:
        return None


def _exported(words):
    """The names an `export A=1 B=2` (or `A=1 cmd`) among ``words`` sets, up to the first word that is neither."""
    out, i = set(), 0
    if words and words[0] == "export":
        i = 1
    for w in words[i:]:
        m = _ASSIGN.match(w)
        if not m:
            break
        out.add(m.group(1))
    return out


def _ssh_line(text):
    """(host, remote command, {names the same line exports before ssh}) of an ssh command line, or None."""
    m = re.search(r"(?:^|[$#%>][ \t]{1,4}|;[ \t]{0,4}|&&[ \t]{0,4})ssh[ \t]", text)
    if not m:
        return None
    before = text[:m.start()]
    p = max(before.rfind("$ "), before.rfind("# "))
    names = set()
    for part in re.split(r";|&&", before[p + 2 if p >= 0 else 0:]):
        names |= _exported(_words(part.strip()) or [])
    words = _words(text[m.end() - 4:].lstrip(";&$#%> \t"))
    if not words or words[0] != "ssh":
        return None
    i = 1
    while i < len(words) and words[i].startswith("-"):
        opt = words[i]
        i += 2 if len(opt) == 2 and opt[1] in _SSH_VAL else 1
    if i >= len(words):
        return None
    rest = []
    for w in words[i + 1:]:
        if w in (";", "&&", "||", "|", "&"):
            break
        rest.append(w)
    return words[i], " ".join(rest), names


def record(scan, hit, win=None):
    st = _state(scan)
    cls = hit.pattern.site["class"]
    text = hit.text[:2000].rstrip("\r\n")
    if cls == "sshenv_cmd" and len(st.ssh) < MAX_KEPT:
        got = _ssh_line(text)
        if got and got[1]:  # a remote command (a bare 'ssh node' is a login, no job)
            st.ssh.append((hit.line, got[0], got[1], got[2], text.strip()[:300]))
    elif cls == "sshenv_export" and len(st.exports) < MAX_KEPT:
        m = re.search(r"[$#%>][ \t]{1,4}(export[ \t][^\n]{0,1000})$", text)
        names = set()
        for part in re.split(r";|&&", m.group(1)) if m else []:
            names |= _exported(_words(part.strip()) or [])
        if names:
            st.exports.append((hit.line, names, text.strip()[:300]))
    elif cls == "sshenv_err" and len(st.err) < MAX_KEPT:
        m = re.search(_ERR, text)
        var = m and (m.group("k") or m.group("e"))
        if var:
            st.err.append((hit.line, var, text.strip()[:300]))


def read(scan, found):
    """[found(eid, what, ev, fix, symptoms)] (launchctx.Found): the first error that names a variable an ssh line
    before it left behind (exported locally, not set in the remote command)."""
    st = getattr(scan, "sshenv", None)
    if st is None or not st.ssh or not st.err:
        return []
    for line, var, text in st.err:
        for sl, host, remote, names, stext in st.ssh:
            if sl >= line or re.search(r"(?<![A-Za-z0-9_])%s=" % re.escape(var), remote):
                continue
            where = None
            if var in names:
                where = (sl, stext)
            else:
                where = next(((el, et) for el, en, et in reversed(st.exports) if el < sl and var in en), None)
            if where is None:
                continue
            what = ("%s was exported in the launching shell (line %d) and the command ran on %s through ssh (line %d), "
                    "which passes no variable of the local environment to the remote command unless the client sends "
                    "it (SendEnv / SetEnv in ssh_config) and the node's sshd accepts it (AcceptEnv in sshd_config; by "
                    "default it accepts none): the process there had no %s (line %d)" % (
                        var, where[0], host[:80], sl, var, line))
            # (the host and the remote command are the log's words: one shell word each, fixline.sh; red team
            # 2026-11-27b: 'ssh node2;touch${IFS}PWN;# ...' ran touch when the fix was pasted)
            fix = ("set the variables in the remote command itself: ssh %s %s (or export them there); "
                   "or send them: SendEnv %s in ~/.ssh/config together with AcceptEnv %s in the nodes' sshd_config "
                   "(then reload sshd)" % (sh(host[:80]), sh("%s=<value> ... %s" % (var, remote[:80])), var, var))
            ev = sorted({where, (sl, stext), (line, text)})
            if _RANKISH.search(var):
                x = found("_cause", what, ev, fix, {"rendezvous.env_missing"})
                x.instead = found("rendezvous.env_missing", what, ev, fix, {"code.exception", "code.library_error"},
                                  alone=True)
            else:
                x = found("_cause", what, ev, fix, {"code.exception", "code.library_error"})
            x.sure = "medium (the export, the ssh line and the missing variable are in the text; sshd's AcceptEnv is not)"
            return [x]
    return []
