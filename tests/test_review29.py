"""Review of session 29's changes (review29): defects found by hand, each test failing before its fix."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _py(code, *args):
    p = subprocess.run([sys.executable, "-c", code] + list(args), capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


_FORK = r"""
import os, subprocess, threading
from gpudoctor import deadline
go = threading.Event()
assert deadline.call(lambda: go.wait(60), 0.05) == (False, None)
pid = os.fork()
if pid == 0:
    said = []
    def start():
        try:
            subprocess.run(["true"], check=True)
            said.append("ran")
        except OSError as exc:
            said.append("refused")
    for _ in range(8):
        t = threading.Thread(target=start)
        t.start()
        t.join()
    print(" ".join(said), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
go.set()
"""


def test_a_forked_childs_threads_are_not_refused_programs():
    # d0affb34 refuses programs to a thread by its ident. A child forked while a thread is abandoned has only the
    # forking thread; glibc gives the dead threads' idents to the child's next threads, which were refused (2 of 3)
    out = _py(_FORK).split()
    assert out == ["ran"] * 8, out


_HOOKS = r"""
import sys, threading, time
added = []
real = sys.addaudithook
sys.addaudithook = lambda hook: (added.append(hook), real(hook))
from gpudoctor import deadline
for _ in range(3):
    go, idents = threading.Event(), []
    def work():
        idents.append(threading.get_ident())
        go.wait(60)
    assert deadline.call(work, 0.01) == (False, None)
    go.set()
    end = time.time() + 60
    while idents[0] in deadline._ABANDONED:
        assert time.time() < end
        time.sleep(0.01)
print(len(added))
"""


def test_the_deadline_hook_is_added_once():
    # a0d00ee4 empties the abandoned set as its threads end; the hook was added again at each next timeout (a hook
    # cannot be removed: a long watch whose windows time out now and then gained one per window)
    assert _py(_HOOKS).strip() == "1"


def test_a_config_here_does_not_choose_a_link_another_user_can_repoint(tmp_path):
    # Security 95. (a58a35ef) judged the program after links were resolved: python = /their/bin/python, a link in a
    # folder of uid 12345 to /usr/bin/python3, passed (the target is root's) though that user can point it elsewhere
    import pytest

    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder to another uid")
    other = tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    os.symlink(sys.executable, str(other / "python"))
    os.chown(str(other), 12345, 12345)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[tool.gpudoctor]\npython = "%s"\n' % (other / "python"))
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "facts", "--local", "--timeout", "20"], capture_output=True,
                       text=True, cwd=str(repo), timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 2, (p.returncode, p.stderr[-500:])
    assert "belongs to uid 12345" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    # the same link in a folder of this user is used as before
    mine = tmp_path / "mine"
    mine.mkdir()
    os.symlink(sys.executable, str(mine / "python"))
    (repo / "pyproject.toml").write_text('[tool.gpudoctor]\npython = "%s"\n' % (mine / "python"))
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "facts", "--local", "--timeout", "20"], capture_output=True,
                       text=True, cwd=str(repo), timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode != 2, p.stderr[-500:]


def test_gpu_links_on_older_nvml_facts_says_why_they_were_not_read():
    # 6eeff6e6: facts gathered through NVML before gpu.links said 'not read (GPUs from nvml; NVML through
    # nvidia-ml-py reads them)': the source it names as the remedy is the one that was used
    import json

    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--json", "--select", "gpu.links", "--facts",
                        os.path.join(ROOT, "fixtures", "nodes", "h100x4-ubuntu2404-torch211.json")],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    (res,) = [c for c in json.loads(p.stdout)["checks"] if c["id"] == "gpu.links"]
    assert res["status"] == "skipped" and "gathered by a gpudoctor before gpu.links" in res["summary"], res
