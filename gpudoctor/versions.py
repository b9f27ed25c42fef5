"""Version arithmetic for drivers and CUDA (no packaging import on the fast path)."""

import re
from functools import lru_cache

_NUM = re.compile(r"\d+")


def vtuple(v):
    """'580.159.04' -> (580, 159, 4); '12.4' -> (12, 4); None or junk -> None."""
    if not v:
        return None
    return _vtuple(str(v))


@lru_cache(maxsize=4096)  # a cluster repeats the same few versions on every node
def _vtuple(v):
    nums = _NUM.findall(v.split("+")[0][:64])
    return tuple(int(n) for n in nums[:16]) if nums else None


def major_minor(v):
    t = vtuple(v)
    return None if not t else (t[0], t[1] if len(t) > 1 else 0)
