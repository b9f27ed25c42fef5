#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/sshd_log.json: the lines sshd writes to its log (auth.log, journal,
`sshd -d`) when it refuses a login or a forwarding because of one of its sshd_config keywords, each with that keyword
and its sshd_config(5) text (issue 18, fix22: "name the fix" - the client only says "Permission denied (publickey)"
or "administratively prohibited"; the server's log names the rule).

Source: the format strings compiled into the sshd binary of Debian 12's openssh-server (1:9.2p1-2+deb12u10 here;
OpenSSH's auth.c allowed_user() / auth_root_allowed() / auth_secure_path(), auth2-pubkey.c, serverloop.c and
channels.c of https://github.com/openssh/openssh-portable at V_9_2_P1 print them), read as the binary's printable
strings (no sshd is run); the keyword's text comes from generated/cli_docs.json (sshd_config(5) of the same
package, tools/gen_cli_docs.py). What a person decides is RULES below: which format is which keyword's refusal and
what to do about it; a rule whose format the binary does not hold is left out (and listed under "missing").

    python tools/gen_sshd_log.py [--sshd /usr/sbin/sshd] [--package-version V] [--out PATH]
"""

import argparse
import datetime
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated", "sshd_log.json")
CLI_DOCS = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated", "cli_docs.json.gz")

# (format regex, sshd_config keyword, what to do). The source function is named for each (OpenSSH V_9_2_P1).
RULES = [
    # auth.c allowed_user(): the Allow/Deny lists
    (r"^User %\.100s from %\.100s not allowed because not listed in AllowUsers$", "AllowUsers",
     "log in as a user AllowUsers lists, or add this user to AllowUsers in that node's sshd_config (then reload sshd)"),
    (r"^User %\.100s from %\.100s not allowed because listed in DenyUsers$", "DenyUsers",
     "log in as another user, or remove this user from DenyUsers in that node's sshd_config (then reload sshd)"),
    (r"^User %\.100s from %\.100s not allowed because none of user's groups are listed in AllowGroups$",
     "AllowGroups", "add the user to a group AllowGroups lists, or log in as a member of one"),
    (r"^User %\.100s from %\.100s not allowed because a group is listed in DenyGroups$", "DenyGroups",
     "log in as a user outside the groups DenyGroups lists"),
    # auth.c auth_root_allowed(): PermitRootLogin
    (r"^ROOT LOGIN REFUSED FROM %\.200s port %d$", "PermitRootLogin",
     "log in as a non-root user, or set PermitRootLogin prohibit-password (the documented default: keys only) in "
     "that node's sshd_config (then reload sshd)"),
    # auth.c auth_secure_path() / auth2-pubkey.c: StrictModes' ownership and mode checks of ~/.ssh
    (r"^bad ownership or modes for (?:directory|file) %s$", "StrictModes",
     "chown -R <user>: ~<user>/.ssh and chmod 700 ~/.ssh, chmod 600 ~/.ssh/authorized_keys on that node (group- or "
     "world-writable paths, or a directory owned by another uid, are refused while StrictModes is yes)"),
    (r"^Authentication refused: %s$", "StrictModes",
     "chown -R <user>: ~<user>/.ssh and chmod 700 ~/.ssh, chmod 600 ~/.ssh/authorized_keys on that node"),
    # auth2-pubkey.c userauth_pubkey(): the key's signature algorithm
    (r"^signature algorithm %s not in PubkeyAcceptedAlgorithms$", "PubkeyAcceptedAlgorithms",
     "use a key whose type that node accepts (ssh -Q PubkeyAcceptedAlgorithms; sshd -T | grep -i pubkeyaccepted), or "
     "add the key's type to PubkeyAcceptedAlgorithms there (a leading '+' appends to the default list)"),
    # serverloop.c server_request_direct_tcpip() / channels.c: TCP forwarding (ProxyJump is ssh -W: a direct-tcpip
    # channel through the jump host)
    (r"^refused local port forward: originator %s port %d, target %s port %d$", "AllowTcpForwarding",
     "set AllowTcpForwarding yes (or local) on the jump host's sshd, or jump with ProxyCommand instead of ProxyJump"),
    (r"^Received request from %\.100s port %d to connect to host %\.100s port %d, but the request was denied\.$",
     "PermitOpen", "allow the target in PermitOpen on the jump host's sshd (or AllowTcpForwarding yes)"),
]


def strings(path, least=12):
    """The printable ASCII runs of a binary (as strings(1)), at least ``least`` characters long."""
    with open(path, "rb") as f:
        data = f.read()
    return sorted({m.group(0).decode("ascii") for m in re.finditer(rb"[\x20-\x7e]{%d,}" % least, data)})


def package_version(name="openssh-server"):
    try:
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True, timeout=20)
        return p.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def keyword_doc(docs, keyword):
    rec = ((docs.get("conf") or {}).get("sshd_config") or {}).get("params", {}).get(keyword) or {}
    sents = [rec.get("first", "")] + [s for s in rec.get("constraints") or []
                                      if re.search(r"\b(?:default|must|only|allowed|disallowed|available)\b", s)][:2]
    return " ".join(s for s in sents if s)


def build(formats, docs, version):
    rows, missing = [], []
    formats = sorted(set(formats))  # (the binary's strings and a slice file give the same table)
    for rx, keyword, do in RULES:
        hits = [f for f in formats if re.search(rx, f)]
        if not hits:
            missing.append(rx)
            continue
        for f in hits:
            rows.append({"format": f, "keyword": keyword, "do": do, "doc": keyword_doc(docs, keyword),
                         "page": "sshd_config(5)"})
    return {"header": {"source": "the format strings of the sshd binary of Debian 12's openssh-server (OpenSSH's "
                                 "auth.c, auth2-pubkey.c, serverloop.c at V_9_2_P1, "
                                 "https://github.com/openssh/openssh-portable); sshd_config(5) text from "
                                 "generated/cli_docs.json",
                       "version": "openssh-server %s" % (version or "unknown"),
                       "generator": "tools/gen_sshd_log.py", "date": datetime.date.today().isoformat(),
                       "note": "generated by tools/gen_sshd_log.py; do not edit by hand, run it again"},
            # (no message sites of explain's tables: the formats are read by explain/clidocs.py's own reader, and
            # bench/explain_accuracy.py's coverage counts 'sites' of every generated file)
            "sites": [], "formats": rows, "missing": missing}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sshd", default="/usr/sbin/sshd")
    ap.add_argument("--formats", help="a file of format strings, one a line (instead of --sshd; the test's slice)")
    ap.add_argument("--package-version")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    if a.formats:
        with open(a.formats, encoding="utf-8") as f:
            formats = [x.rstrip("\n") for x in f if x.strip()]
    else:
        formats = strings(a.sshd)
    with gzip.open(CLI_DOCS, "rt", encoding="utf-8") as f:
        docs = json.load(f)
    out = build(formats, docs, a.package_version or package_version())
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    sys.stderr.write("%d formats, %d rules missing -> %s\n" % (len(out["formats"]), len(out["missing"]), a.out))


if __name__ == "__main__":
    main()
