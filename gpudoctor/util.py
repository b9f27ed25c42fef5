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
