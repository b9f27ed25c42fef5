"""Small helpers shared by checks and reports."""


def human_bytes(n):
    """1073741824 -> '1.0 GiB' (binary units, as df -h and docker use)."""
    if n is None:
        return "?"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


def plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def container_of(facts):
    """The container runtime a node's facts name (host.container: 'docker', 'podman', 'kubernetes',
    'containerd', 'lxc', ... from collector/system.py in_container), or None. Facts are a node's
    untrusted output: anything but a short lower-case word counts as none (the fuzz test once
    handed shm.size a list there: TypeError, unhashable type)."""
    host = facts.get("host") if isinstance(facts, dict) else None
    value = host.get("container") if isinstance(host, dict) else None
    if isinstance(value, str) and 0 < len(value) <= 32 and value.isascii() and value.replace("-", "").replace("_", "").isalnum() \
            and value == value.lower():
        return value
    return None
