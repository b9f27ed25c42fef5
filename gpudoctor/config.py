"""Thresholds and expectations, from gpudoctor.toml / [tool.gpudoctor] and flags.

Every key is documented in docs/config.md; an unknown key is an input error (a typo
must not silently turn a check off).
"""

import os
import re
from dataclasses import dataclass, field, fields
from typing import Dict, List, Optional

from gpudoctor.errors import InputError, read_input

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}


def parse_size(value) -> int:
    """'1GiB', '512m', 1073741824 -> bytes (binary units: what df -h and docker use)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$", str(value))
    if not m or m.group(2).lower() not in _UNITS:
        raise InputError("%r is not a size (examples: 1GiB, 512MiB, 8g)" % (value,))
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


@dataclass
class Config:
    min_shm_bytes: int = 1 << 30  # key shm_min; NCCL + DataLoader workers; Docker gives 64 MB
    expected_gpus: Optional[int] = None  # key expected_gpus; later also the hostfile's slots=
    bf16: bool = False  # key bf16: the job trains in bf16 (needs compute capability >= 8.0)
    select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    strict: bool = False
    severity: Dict[str, str] = field(default_factory=dict)  # per-check severity overrides
    python: Optional[str] = None  # interpreter of the job (conda env / venv) to probe
    timeout: float = 30.0  # per node, seconds
    source: Optional[str] = None  # where this config was read from
    slots: Dict[str, int] = field(default_factory=dict)  # from the hostfile's slots= (not a TOML key)
    launch: Optional[object] = None  # the launch plan (gpudoctor/launch.py), from check flags (not a TOML key)


_KEYS = {
    "shm_min": ("min_shm_bytes", parse_size),
    "expected_gpus": ("expected_gpus", int),
    "bf16": ("bf16", bool),
    "select": ("select", list),
    "ignore": ("ignore", list),
    "strict": ("strict", bool),
    "severity": ("severity", dict),
    "python": ("python", str),
    "timeout": ("timeout", float),
}


def _load_toml(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    data = read_input(path, "config")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("config %s is not text (UTF-8)" % path)
    except tomllib.TOMLDecodeError as exc:
        raise InputError("config %s is not valid TOML: %s" % (path, exc))


def find_config(explicit=None) -> Optional[str]:
    if explicit:
        return explicit
    env = os.environ.get("GPUDOCTOR_CONFIG")
    if env:
        return env
    for path in ("gpudoctor.toml", "/etc/gpudoctor/gpudoctor.toml"):
        if os.path.isfile(path):
            return path
    if os.path.isfile("pyproject.toml"):
        with open("pyproject.toml", "rb") as f:
            if b"[tool.gpudoctor]" in f.read():
                return "pyproject.toml"
    return None


def load_config(path=None) -> Config:
    path = find_config(path)
    cfg = Config()
    if not path:
        return cfg
    doc = _load_toml(path)
    table = doc.get("tool", {}).get("gpudoctor", {}) if path.endswith("pyproject.toml") else doc.get("gpudoctor", doc)
    apply(cfg, table, where=path)
    cfg.source = path
    return cfg


def apply(cfg: Config, table: Dict, where="config"):
    for key, value in table.items():
        if key not in _KEYS:
            raise InputError("%s: unknown key %r (known: %s)" % (where, key, ", ".join(sorted(_KEYS))))
        attr, conv = _KEYS[key]
        if conv in (list, dict, bool) and not isinstance(value, conv):
            raise InputError("%s: %s must be a %s" % (where, key, conv.__name__))
        try:
            setattr(cfg, attr, conv(value))
        except (TypeError, ValueError):
            raise InputError("%s: %s=%r is not a valid %s" % (where, key, value, conv.__name__))
    for check_id, sev in cfg.severity.items():
        if sev not in ("error", "warning", "info", "off"):
            raise InputError("%s: severity of %s must be error, warning, info or off" % (where, check_id))
    return cfg


CONFIG_FIELDS = [f.name for f in fields(Config)]
