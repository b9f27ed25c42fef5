"""The collector runs in whatever python3 a node has: RHEL/CentOS 7 ships 3.6."""

import os
import subprocess
import sys

from conftest import ROOT


def test_collector_is_python36_compatible():
    src = os.path.join(ROOT, "gpudoctor", "collector")
    vermin = "import sys; from vermin.main import main; sys.exit(main())"
    p = subprocess.run([sys.executable, "-c", vermin, "--no-tips", "--violations", "-t=3.6-",
                        "--backport", "typing", src], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_collector_imports_only_the_stdlib():
    src = os.path.join(ROOT, "gpudoctor", "collector")
    allowed_third_party = {"pynvml"}  # imported inside a try, with fallbacks
    import ast

    # _sha2: CPython 3.12+'s built-in SHA-2 (system.py tries 3.6-3.11's _sha256 first)
    stdlib = set(sys.stdlib_module_names) | {"_sha2"}
    for name in os.listdir(src):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(src, name)).read())
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                mods = [node.module]
            for m in mods:
                top = m.split(".")[0]
                if name == "bundle.py" and m == "gpudoctor" and isinstance(node, ast.ImportFrom) and \
                        [a.name for a in node.names] in (["privcache"], ["blobcache"]):
                    continue  # the controller's cache (bundle.sources() ships a stub for bundle.py)
                assert top in stdlib or top in allowed_third_party, "%s imports %s" % (name, m)


def test_bundle_runs_in_a_bare_interpreter(tmp_path):
    """The shipped script works with nothing of gpudoctor installed (python -I, other cwd)."""
    from gpudoctor.collector.bundle import build_script
    import json

    p = subprocess.run([sys.executable, "-I", "-", "--only", "host,shm,limits"], input=build_script(),
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["schema"] == "gpudoctor.facts/1"
    assert set(doc) - {"schema", "node", "collected_at", "collector"} == {"host", "shm", "limits"}
    assert doc["shm"]["status"] == "ok" and doc["host"]["kernel"] == open("/proc/sys/kernel/osrelease").read().strip()
