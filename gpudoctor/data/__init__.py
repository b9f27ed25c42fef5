"""Version tables as data, each with its source (see the "sources" key of each file)."""

import json
import os

_cache = {}


def load(name):
    """gpudoctor/data/<name>.json, parsed once."""
    if name not in _cache:
        with open(os.path.join(os.path.dirname(__file__), name + ".json")) as f:
            _cache[name] = json.load(f)
    return _cache[name]
