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
