"""userwalk26: what a new user tripped on while walking session 26's pieces, each through the CLI."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CF = os.path.join(ROOT, "fixtures", "explain", "callfix26")


def _explain(path):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", path], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    return p.returncode, p.stdout


def test_send_to_self_fix_names_the_dst_the_user_passed():
    # mis.py line 27 is dist.send(t, dst=rank): the fix line named group= and group_dst= only, neither of which
    # the user passed; send turns dst into group_dst (torch's _canonicalize_group_rank), so dst= is named too
    rc, out = _explain(os.path.join(CF, "send_to_self.log"))
    line = next(ln for ln in out.splitlines() if "refuses this when" in ln)
    assert "dst= (an argument of the call)" in line.replace("group_dst=", "")
    assert line.index(" dst=") < line.index("group_dst=")
    assert "dst (torch.distributed.send)" in line
