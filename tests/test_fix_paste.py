"""Every fix line gpudoctor prints is safe to paste, whatever the nodes said (issue 23, item 1).

Facts are crafted from the real captured fixtures (fixtures/nodes/*.json): every string value
(and the keys of name->value maps: environment names, file paths, resolved names) is set to or
suffixed with a payload that would run `touch MARKER` if a value reached the shell unquoted:
`;`, `$(...)`, backticks, both quotes, a newline, a carriage return, escape sequences. Every
registered check runs over them (one node, and two nodes for the cluster checks); each line of
the text report and of every finding's fix is then pasted, line by line, into a restricted bash
(`bash -r`: no output redirection, no command with a slash) whose PATH holds only `touch`.
No MARKER may appear. A second set of facts aims at each fix the issue names (the interpreter,
ninja's folder, the ssh config path and user, LD_LIBRARY_PATH, files, bus ids, pids, variable
names, the host name) and asserts the value is in the fix as one quoted word.
"""

import copy
import io
import json
import os
import shutil
import subprocess

import pytest
from conftest import FIXTURES, node_facts

from gpudoctor.checks.host_name import primary_ipv4
from gpudoctor.config import Config
from gpudoctor.fixline import Literal, cmd, sh
from gpudoctor.registry import load_checks
from gpudoctor.report import text
from gpudoctor.runner import Node, run_checks

BASH = shutil.which("bash")

PAYLOADS = [
    "x;touch MARKER;#",
    "$(touch MARKER)",
    "`touch MARKER`",
    "a'; touch MARKER; echo '",
    'a"; touch MARKER; echo "',
    "a\ntouch MARKER\n",
    "a\rtouch MARKER",
    "\x1b]0;t\x07;touch MARKER",
    "a\\'; touch MARKER #",
    "x && touch MARKER",
    "x|touch MARKER",
    "$'\\n'touch MARKER",
    "a\u2028touch MARKER",
    "a\x85touch MARKER",
    "a\udcfftouch MARKER",
    "-x touch MARKER",
]
KEEP = {"status", "schema", "kind", "role", "state", "link_layer", "how", "source", "gpus_source"}


def _strings(obj, fn, keys=False):
    """obj with every string value (but structural ones) through fn; with keys, map keys too."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            nk = fn(k) if keys and isinstance(k, str) and (k.isupper() or "/" in k or "." in k or "-" in k) else k
            out[nk] = v if k in KEEP and isinstance(v, str) else _strings(v, fn, keys)
        return out
    if isinstance(obj, list):
        return [_strings(v, fn, keys) for v in obj]
    if isinstance(obj, str):
        return fn(obj)
    return obj


def _fixtures():
    return sorted(f[:-5] for f in os.listdir(os.path.join(FIXTURES, "nodes")) if f.endswith(".json"))


def _docs():
    for name in _fixtures():
        base = node_facts(name)
        for i, p in enumerate(PAYLOADS):
            mode = i % 3  # each payload in one of three shapes, each fixture in all of them
            if mode == 0:
                yield _strings(base, lambda s, p=p: p)
            elif mode == 1:
                yield _strings(base, lambda s, p=p: s + p)
            else:
                yield _strings(base, lambda s, p=p: p + s, keys=True)


def _report_lines(nodes, config=None):
    report = run_checks(nodes, list(load_checks()), config or Config())
    out = io.StringIO()
    text.render(report, out, color=False)
    # the report's fix block: each finding's fix and export lines, indented by 7 (text.py)
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith(" " * 7)]
    fixes = [f.fix for r in report.results for f in r.findings if f.fix]
    for fx in fixes:
        lines.extend(fx.splitlines())
    return lines, fixes


def paste(lines, tmp_path):
    """Each line alone, as a person pastes it: its own subshell, nothing runs across lines."""
    box = tmp_path / "box"
    box.mkdir()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(shutil.which("touch"), str(bindir / "touch"))
    listing = tmp_path / "lines.txt"
    with open(str(listing), "w", encoding="utf-8", errors="surrogateescape") as f:
        for line in lines:
            assert "\n" not in line
            f.write(line + "\n")
    script = 'while IFS= read -r line <&3; do ( eval "$line" ) </dev/null; done 3<"$1"; touch DONE'
    subprocess.run([BASH, "--norc", "--noprofile", "-r", "-c", script, "paste", str(listing)], cwd=str(box),
                   env={"PATH": str(bindir), "HOME": str(box), "LC_ALL": "C"}, timeout=120,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    left = sorted(os.listdir(str(box)))
    assert "DONE" in left  # every line was pasted
    return [n for n in left if n != "DONE"]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_the_marker_would_appear_if_a_value_were_pasted_raw(tmp_path):
    # the harness itself: an unquoted value runs, so an empty box below means something
    assert paste(["pip uninstall %s" % PAYLOADS[0], "echo ok"], tmp_path) == ["MARKER"]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_no_fix_line_from_crafted_facts_runs_anything(tmp_path):
    lines, count = [], 0
    for doc in _docs():
        other = copy.deepcopy(doc)
        for node in (doc, other):
            node.setdefault("node", {})
        got, fixes = _report_lines([Node(host="gpu01", facts=doc)])
        lines += got
        got, fixes2 = _report_lines([Node(host="gpu01", facts=doc), Node(host="gpu02", facts=node_facts(
            _fixtures()[0]))])
        lines += got
        count += len(fixes) + len(fixes2)
    assert count > 100  # the crafted facts do reach the fixes
    assert paste(sorted(set(lines)), tmp_path) == []


def _aimed(p):
    """(facts, {check id: the value that must be one quoted word in its fix}) for the fixes
    the issue names, each holding payload p."""
    d = node_facts("h100-ubuntu2404-torch211-deep")
    py = d["python"]
    py["executable"] = "/opt/%s/python3" % p
    py["packages"]["pynvml"] = "11.5.0"
    py["packages"]["deepspeed"] = "0.16.0"
    py["build_tools"] = {"ninja": None, "ninja_in_env": "/opt/%s/bin/ninja" % p, "libaio_so": None,
                         "libaio_h": None}
    d["ssh"].update({"user": "u" + p, "uid": 1000, "config": "Port 22 # jump\n",
                     "entries": [{"kind": "config", "path": "/home/u/%s/config" % p, "mode": "0600", "uid": 1234,
                                  "is_dir": False},
                                 {"kind": "ssh_dir", "path": "/home/u/%s/.ssh" % p, "mode": "0777", "uid": 1000,
                                  "is_dir": True}]})
    torch = py["torch"]
    torch["ldd"] = {}
    torch["libs"]["ld_library_path"] = "/opt/%s/lib:/usr/lib" % p
    torch["libs"]["libs"] = [{"name": "libcublas.so.13", "lib": "libcublas", "path": "/opt/%s/lib/libcublas.so.13" % p,
                              "realpath": "/opt/%s/lib/libcublas.so.13" % p, "version": "12.0.1", "in_bundle": False,
                              "bundled": "/opt/torch/nvidia/cu13/lib/libcublas.so.13", "bundled_version": "13.1.0.3",
                              "wheel": "nvidia-cublas"}]
    d["rdma"].update({"devices": [{"name": "mlx5_" + p, "ports": [{"port": 1, "state": "DOWN", "phys_state": "Disabled",
                                                                 "link_layer": "Ethernet", "netdev": "eth" + p}]}],
                      "dev_infiniband": ["rdma_cm"]})
    g = d["gpu"]["gpus"][0]
    g["processes"] = [{"pid": -1, "used_mib": 1}, {"pid": True}, {"pid": 4242, "used_mib": 100}]
    g["remapped_rows_pending"] = True
    d["gpu"]["gpus_proc"][0]["excluded"] = True
    d["host"]["hostname"] = "gpu" + p
    d["host"]["hostname_addresses"] = []
    d["nccl"]["paths"] = {"NCCL_TOPO_FILE": {"path": "/etc/%s/topo.xml" % p, "exists": False}}
    return d, {"python.env": py["executable"], "ssh.config": "/home/u/%s/config" % p}


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_the_fixes_the_issue_names_quote_their_values(tmp_path):
    lines = []
    for p in PAYLOADS:
        doc, want = _aimed(p)
        report = run_checks([Node(host="gpu01", facts=doc)], list(load_checks()), Config())
        fixes = {r.id: "\n".join(f.fix for f in r.findings if f.fix) for r in report.results}
        for cid, value in want.items():
            assert sh(value) in fixes.get(cid, ""), (cid, p, fixes.get(cid))
        assert sh("/opt/%s/bin" % p) in fixes["python.env"]  # ninja's folder on PATH
        assert sh("u%s:" % p) in fixes["ssh.config"]  # chown's USER:
        assert sh("/etc/%s/topo.xml" % p) in fixes["nccl.env"]
        # a hostname no host name can be (each payload has such a character) is renamed, never written to
        # /etc/hosts (slurm22); the fix's own line is quoted all the same
        assert "hostnamectl set-hostname gpu01" in fixes["host.name"] and p not in fixes["host.name"]
        assert "echo %s >> /etc/hosts" % sh("%s gpu01" % primary_ipv4(doc)[1]) in fixes["host.name"]
        assert "kill 4242 (" in fixes["gpu.inventory"]  # never `kill -1`: every process
        # a value is an operand after `--`, never an option, even when it starts with "-"
        assert "chmod 700 -- %s" % sh("/home/u/%s/.ssh" % p) in fixes["ssh.permissions"]
        assert "chown -- %s %s" % (sh("u%s:" % p), sh("/home/u/%s/config" % p)) in fixes["ssh.config"]
        assert "export LD_LIBRARY_PATH=%s" % sh("/usr/lib") in fixes["cuda.libs"]
        assert "ibv_devinfo -d %s" % sh("mlx5_" + p) in fixes["rdma.ports"]
        assert "dhclient -v %s" % sh("eth" + p) in fixes["rdma.ports"]
        out = io.StringIO()
        text.render(report, out, color=False)
        lines += [ln for ln in out.getvalue().splitlines() if ln.startswith(" " * 7)]
        lines += [ln for fx in fixes.values() for ln in fx.splitlines()]
    assert paste(sorted(set(lines)), tmp_path) == []


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_the_cluster_fixes_quote_paths_names_and_variables(tmp_path):
    lines = []
    for p in PAYLOADS:
        a, b = node_facts("h200x2-ubuntu2404-torch211"), node_facts("h200x2-ubuntu2404-torch211")
        path, name, var = "/data/%s/train.py" % p, "n" + p, "NCCL_" + p
        for doc, sha in ((a, "aa"), (b, "bb")):
            doc["files"] = {"status": "ok", "files": {path: {"sha256": sha * 32, "size": 1}}}
            doc["resolve"] = {"status": "ok", "names": {name: ["127.0.0.1"] if sha == "aa" else ["10.0.0.1"]}}
        a["env"]["values"][var], b["env"]["values"][var] = "2", "1;touch MARKER"
        report = run_checks([Node(host="gpu01", facts=a), Node(host="gpu02", facts=b), Node(host="gpu03", facts=b)],
                            list(load_checks()), Config())
        fixes = {r.id: "\n".join(f.fix for f in r.findings if f.fix) for r in report.results}
        assert "pdcp -w gpu01 -- %s %s" % (sh(path), sh(path)) in fixes["files.parity"]
        assert "map %s to its real address" % sh(name) in fixes["hosts.resolution"]
        assert "mpirun -x %s" % sh(var) in fixes["env.parity"]
        out = io.StringIO()
        text.render(report, out, color=False)
        lines += [ln for ln in out.getvalue().splitlines() if ln.startswith(" " * 7)]
        lines += [ln for fx in fixes.values() for ln in fx.splitlines()]
    assert paste(sorted(set(lines)), tmp_path) == []


@pytest.mark.parametrize("value", PAYLOADS + ["", "plain/path-1.2_x", "-rf", "ä ö", "a'b"])
def test_sh_is_one_line_and_reads_back_as_the_value(value):
    word = sh(value)
    assert word.isprintable() and "\n" not in word
    if BASH and "\udcff" not in value:
        out = subprocess.run([BASH, "--norc", "-c", 'printf %s ' + word], capture_output=True, timeout=10,
                             env={"LC_ALL": "C.UTF-8"})
        assert out.stdout.decode("utf-8", "surrogateescape") == value


def test_cmd_quotes_every_field_and_keeps_the_templates_own_text():
    assert cmd("{exe} -m pip uninstall -y pynvml", exe="/usr/bin/python3") == \
        "/usr/bin/python3 -m pip uninstall -y pynvml"
    assert cmd("kill {pids}", pids=[1, 2]) == "kill 1 2"
    assert cmd("chown {u} {p}", u=Literal("$USER:"), p="/a b") == "chown $USER: '/a b'"
    assert cmd("export PATH={d}:$PATH", d="/opt/$(x)/bin") == "export PATH='/opt/$(x)/bin':$PATH"
    assert cmd("unset {n}", n="A\nB") == "unset $'A\\x0aB'"


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_explains_computed_fixes_quote_the_nodes_values(tmp_path):
    from gpudoctor.explain import fixes

    lines = []
    for p in PAYLOADS:
        doc = node_facts("h100-ubuntu2404-torch211-deep")
        doc["gpu"]["gpus"][0]["name"] = "H100" + p
        doc["python"]["torch"]["version"] = "2.11.0" + p
        doc["network"] = {"status": "ok", "default_route": {"interface": "eth" + p},
                          "interfaces": [{"name": "eth" + p, "state": "up", "ipv4": [{"address": "10.1.2.3"}]}]}
        for launcher in ("mpirun", "deepspeed", "accelerate", "torchrun"):
            result = {"launcher": launcher, "findings": [{"causes": [
                {"computed": kind, "exports": {}, "fix": []} for kind in ("torch_build", "socket_ifname", "btl_tcp_if",
                                                                         "visible_gpus", "launcher_port")]}]}
            fixes.apply(result, doc)
            got = [ln for c in result["findings"][0]["causes"] for fx in c["fix"] for ln in fx.splitlines()]
            if fixes.valid_ifname("eth" + p):
                assert any(sh("eth" + p) in ln for ln in got), got
                assert len(got) == 5  # one line per computed fix, none split by a value
            else:  # a name Linux refuses (net/core/dev.c dev_valid_name: whitespace, '/', ':'): no interface line
                assert not any(("eth" + p) in ln or sh("eth" + p) in ln for ln in got), got
                assert len(got) < 5  # socket_ifname and btl_tcp_if computed nothing from the name
            lines += got
    assert paste(sorted(set(lines)), tmp_path) == []


def test_the_probes_rdma_fix_quotes_the_nodes_device_names():
    from gpudoctor.probe.findings import rdma_fix

    facts = {"rdma": {"status": "ok", "dev_infiniband": ["uverbs0"], "devices": [
        {"name": "mlx5_0;touch MARKER", "ports": [{"port": 1, "state": "ACTIVE", "link_layer": "InfiniBand"}]}]}}
    exports, fix = rdma_fix([facts])
    assert "export NCCL_IB_HCA='mlx5_0;touch MARKER'" in fix.splitlines()


def test_no_check_builds_a_fix_by_formatting_text():
    """The rule is enforced where checks are written: a fix is a constant, cmd(...), or made
    of those; never `"..." % x`, `"...".format(x)` or an f-string (they would not quote)."""
    import ast
    import glob

    def formatted(node):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("cmd", "sh"):
            return False  # what is formatted inside cmd()'s values is quoted as a whole
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.Constant,
                                                                                                    ast.JoinedStr)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
                and isinstance(node.func.value, ast.Constant):
            return True
        return any(formatted(c) for c in ast.iter_child_nodes(node))

    bad = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(FIXTURES), "checks", "*.py"))):
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            values = []
            if isinstance(node, ast.keyword) and node.arg == "fix":
                values.append(node.value)
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "fix" for t in targets):
                    values.append(node.value)
            bad += ["%s:%d" % (os.path.basename(path), v.lineno) for v in values if formatted(v)]
    assert bad == []
