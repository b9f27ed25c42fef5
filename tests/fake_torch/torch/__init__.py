"""A stand-in for torch, for tests of the probe's NCCL orchestration on machines with no GPU
and no torch (CI, this VM): the real thing cannot run here. It keeps the API the probe's rank
code calls and nothing more. Collectives sleep for the time a ring would take at the busbw in
$FAKE_BUSBW_GBPS (GB/s), so a node given a low figure is a slow node; ranks print NCCL-style
INFO lines (src/debug.cc's prefix) naming $FAKE_TRANSPORT (default NET/Socket/0). init_process_group
meets the other ranks at its tcp:// address, as torch's TCPStore does, to agree on the slowest busbw.
Never used outside tests/ (tests put this folder on PYTHONPATH explicitly)."""

import os

__version__ = "0.0+fake"


class device(object):  # noqa: N801 (torch's name)
    def __init__(self, kind, index=None):
        self.kind, self.index = kind, index


class Tensor(object):
    def __init__(self, numel, fill=0.0):
        self.numel_ = int(numel)
        self.data = [fill] * self.numel_ if self.numel_ <= 4096 else None  # big buffers hold no data

    def numel(self):
        return self.numel_

    @property
    def nbytes(self):
        return self.numel_ * 4

    def __setitem__(self, i, v):
        self.data[i] = float(v)

    def __eq__(self, other):
        out = Tensor(self.numel_)
        out.data = [x == other for x in self.data]
        return out

    def tolist(self):
        return list(self.data)

    def item(self):
        return self.data[0]

    def chunk(self, n):
        return [Tensor(self.numel_ // n) for _ in range(n)]


def full(shape, value, device=None):
    return Tensor(shape[0], float(value))


def zeros(numel, device=None):
    return Tensor(numel, 0.0)


def tensor(values, device=None):
    t = Tensor(len(values))
    t.data = [float(v) for v in values]
    return t


def all(t):  # noqa: A001 (torch's name)
    import builtins

    out = Tensor(1)
    out.data = [builtins.all(t.data)]
    return out


class _Nccl(object):
    @staticmethod
    def version():
        return (2, 99, 0)


class cuda(object):  # noqa: N801
    nccl = _Nccl()

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def device_count():
        return int(os.environ.get("FAKE_GPUS", "8"))

    @staticmethod
    def set_device(i):
        pass

    @staticmethod
    def synchronize():
        pass
