"""The modes and owners of the user's home and ~/.ssh, as sshd's StrictModes judges them."""

import stat

from .base import Unsupported, section

PRIVATE_KEY_NAMES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")


def _entry(ctx, path):
    st = ctx.stat(path)
    if st is None:
        return None
    return {"path": path, "mode": "%04o" % stat.S_IMODE(st.st_mode), "uid": st.st_uid,
            "is_dir": stat.S_ISDIR(st.st_mode)}


def _is_private_key(ctx, path):
    head = ctx.read(path, "", limit=64)
    return "PRIVATE KEY" in head


@section("ssh")
def ssh(ctx):
    home = ctx.home
    home_entry = _entry(ctx, home)
    if home_entry is None:
        raise Unsupported("home directory %s does not exist" % home)
    sshdir = home.rstrip("/") + "/.ssh"
    entries = [home_entry]
    dir_entry = _entry(ctx, sshdir)
    files = []
    if dir_entry is not None:
        entries.append(dir_entry)
        for name in ctx.listdir(sshdir):
            path = sshdir + "/" + name
            e = _entry(ctx, path)
            if e is None or e["is_dir"]:
                continue
            if name in ("authorized_keys", "authorized_keys2"):
                e["kind"] = "authorized_keys"
            elif name == "config":
                e["kind"] = "config"
            elif name.endswith(".pub") or name.startswith("known_hosts"):
                e["kind"] = "public"
            elif name in PRIVATE_KEY_NAMES or _is_private_key(ctx, path):
                e["kind"] = "private_key"
            else:
                e["kind"] = "other"
            files.append(e)
    home_entry["kind"] = "home"
    if dir_entry is not None:
        dir_entry["kind"] = "ssh_dir"
    config_text = ctx.read(sshdir + "/config")
    return {"home": home, "uid": ctx.uid, "user": ctx.env.get("USER"), "entries": entries + files,
            "config": config_text}


# --- parsers of ssh_config(5) and known_hosts (pure functions of text; used on the node and
# by the controller before fabric/paramiko read the same files) -----------------------------

# Keywords whose value fabric 3.2 / paramiko 5.1 pass through int() (fabric/connection.py:
# Connection.__init__ reads port and connecttimeout; paramiko/config.py: canonicalizemaxdots).
# OpenSSH accepts more for some (a service name for Port, "1m" for ConnectTimeout); fabric
# raises ValueError on them, so for gpudoctor they are errors too.
_INT_KEYWORDS = {"port": (1, 65535), "connecttimeout": (0, 10 ** 6), "canonicalizemaxdots": (0, 1000)}


def ssh_config_problems(text, limit=20):
    """[(line_number, message)] for lines that OpenSSH (readconf.c, process_config_line_depth,
    OpenSSH 10.5) or fabric would refuse: a keyword with no argument ("no argument after
    keyword"), a Port that is not 1-65535 ("Bad port"), and the integer keywords fabric
    converts with int(). Checked in every Host/Match block, as OpenSSH does."""
    import re

    out = []
    for n, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip(" \t\f\r\n")  # readconf.c's WHITESPACE (and \f at the end of a line)
        if not line or line.startswith("#"):
            continue
        # "Keyword value", "Keyword=value", "Keyword = value" (readconf.c's strdelim); only
        # space and tab separate: Python's str.split() would also split on \x1c-\x1f
        m = re.match(r"^([^ \t=]*)[ \t]*(?:=[ \t]*)?(.*)$", line)
        keyword, value = m.group(1), m.group(2).strip(" \t")
        if not re.match(r"^\w+$", keyword):  # paramiko: "Unparsable line"; OpenSSH: "Bad configuration option"
            out.append((n, "%s is not a keyword" % _shown(keyword or line)))
            continue
        if value.startswith("#"):  # OpenSSH 10 ends arguments at a comment (argv_split)
            value = ""
        if not value:
            out.append((n, "%s: no argument after the keyword" % _shown(keyword)))
        else:
            bounds = _INT_KEYWORDS.get(keyword.lower())
            args = [a for a in re.split(r"[ \t]+", value.split("#", 1)[0]) if a]
            first = args[0].strip('"') if args else ""
            if bounds and len(args) > 1:  # readconf.c: "keyword %s extra arguments at end of line"
                out.append((n, "%s: one value expected, got %d" % (keyword, len(args))))
            elif bounds and not _int_in(first, bounds):
                if keyword.lower() == "port" and first.isalpha():
                    why = "a service name: OpenSSH looks it up, but fabric/paramiko need a number"
                else:
                    why = "must be a whole number from %d to %d" % bounds
                out.append((n, "%s %s: %s" % (keyword, _shown(first), why)))
        if len(out) >= limit:
            break
    return out


def _int_in(text, bounds):
    if not text or len(text) > 7 or not all("0" <= c <= "9" for c in text):
        return False
    return bounds[0] <= int(text) <= bounds[1]


def _shown(text, limit=40):
    text = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return repr(text) if text else "''"


def parse_known_hosts(data):
    """(entries, bad) of a known_hosts file, as bytes. entries: [(line_number, marker or None,
    hosts, key_type, key_base64)]; bad: [(line_number, why)].

    Like OpenSSH (hostfile.c, hostkeys_foreach_file: "skipping bad key"), a line that cannot
    be read is skipped, never fatal: non-UTF-8 bytes, too few fields, base64 that does not
    decode, or a key blob whose embedded type is not the line's key type (sshkey_from_blob
    refuses those)."""
    import base64
    import binascii
    import struct

    entries, bad = [], []
    for n, raw in enumerate(data.splitlines(), 1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            bad.append((n, "not UTF-8 text"))
            continue
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        marker = None
        if fields[0].startswith("@"):
            marker, fields = fields[0], fields[1:]
            if marker not in ("@cert-authority", "@revoked"):
                bad.append((n, "unknown marker %s" % _shown(marker)))
                continue
        if len(fields) < 3:
            bad.append((n, "expected: hosts key-type base64-key [comment]"))
            continue
        hosts, ktype, b64 = fields[0], fields[1], fields[2]
        try:
            blob = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            bad.append((n, "the key is not valid base64"))
            continue
        if len(blob) < 4:
            bad.append((n, "the key is too short"))
            continue
        (tlen,) = struct.unpack(">I", blob[:4])
        if blob[4:4 + tlen] != ktype.encode("ascii", "replace"):
            bad.append((n, "the key's type does not match %s" % _shown(ktype)))
            continue
        entries.append((n, marker, hosts, ktype, b64))
    return entries, bad


def hash_host(name, salt):
    """OpenSSH's hashed known_hosts name (hostfile.c, host_hash): |1|base64(salt)|base64(
    HMAC-SHA1(salt, name)), with a 20-byte salt. ssh-keygen -H writes the same."""
    import base64
    import hashlib
    import hmac

    digest = hmac.new(salt, name.encode("utf-8"), hashlib.sha1).digest()
    return "|1|%s|%s" % (base64.b64encode(salt).decode("ascii"), base64.b64encode(digest).decode("ascii"))
