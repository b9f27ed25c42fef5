"""Version arithmetic for drivers and CUDA (no packaging import on the fast path)."""

import re


def vtuple(v):
    """'580.159.04' -> (580, 159, 4); '12.4' -> (12, 4); None or junk -> None."""
    if not v:
        return None
    nums = re.findall(r"\d+", str(v).split("+")[0])
    return tuple(int(n) for n in nums) if nums else None


def major_minor(v):
    t = vtuple(v)
    return None if not t else (t[0], t[1] if len(t) > 1 else 0)
