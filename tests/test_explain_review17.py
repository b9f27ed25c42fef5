"""review17: checks of this session's knowledge against the upstream programs it tells the user to run."""
import csv
import glob
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIR = os.path.join(REPO, "gpudoctor", "data", "knowledge")


def _docker_gpus(value):
    """docker's --gpus parser (docker/cli opts/gpus.go GpuOpts.Set): one CSV record; each field 'all', a count or
    key=value with key driver / count / device / capabilities / options. Raises ValueError where docker errors."""
    fields = next(csv.reader([value]))
    req = {}
    for field in fields:
        key, eq, val = field.partition("=")
        if key in req:
            raise ValueError("gpu request key '%s' can be specified only once" % key)
        if not eq:
            if key != "all" and not key.isdigit():
                raise ValueError("invalid count (%s)" % key)
            req["count"] = key
            continue
        if key not in ("driver", "count", "device", "capabilities", "options"):
            raise ValueError("unexpected key '%s' in '%s'" % (key, field))
        req[key] = val.split(",")
    return req


def _gpus_values():
    out = []
    for path in sorted(glob.glob(os.path.join(KDIR, "*.toml")) + glob.glob(os.path.join(KDIR, "generated", "*.json"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        out += [(os.path.basename(path), v.replace('\\"', '"')) for v in re.findall(r"--gpus '([^'\n]{1,200})'", text)]
    return out


def test_the_parser_refuses_what_docker_refuses():
    assert _docker_gpus('all,"capabilities=compute,utility,video"')["capabilities"] == ["compute", "utility", "video"]
    with pytest.raises(ValueError):  # the whole value quoted as one field (5d049a1's words): key 'all,capabilities'
        _docker_gpus('"all,capabilities=compute,utility,video"')


def test_every_docker_gpus_value_in_the_knowledge_parses_as_docker_reads_it():
    values = _gpus_values()
    assert any("capabilities=" in v for _, v in values)
    for name, v in values:
        req = _docker_gpus(v)
        assert "capabilities" not in req or "utility" in req["capabilities"] or "compute" in req["capabilities"], (name, v)


def _tb(raise_line, msg):
    return ('Traceback (most recent call last):\n  File "/home/u/train.py", line 9, in <module>\n    m = fit(x)\n'
            '  File "/v/lib/python3.11/site-packages/foo/core.py", line 70, in fit\n    %s\nRuntimeError: %s\n'
            % (raise_line, msg))


@pytest.mark.parametrize("msg,fix", [
    # a program, not a Python package: no 'pip install Java' (9ee4954 said it)
    ("This feature requires Java to be installed", None),
    ("Saving the animation requires ffmpeg to be installed", None),
    # an import name of a wheel: the distribution pip installs it from (generated/wheel_packages.json)
    ("fit(method='gp') requires sklearn to be installed", "pip install scikit-learn"),
])
def test_a_package_that_is_not_installed_is_named_as_pip_installs_it(kb, msg, fix):
    from gpudoctor import explain

    res = explain.explain_text(_tb('raise RuntimeError("%s")' % msg, msg), kb)
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c.get("fix") or []]
    assert not any(x.startswith("pip install Java") or x.startswith("pip install ffmpeg") for x in fixes), fixes
    if fix:
        assert res["findings"][0]["id"] == "code.python_env" and fixes[0].startswith(fix), fixes
