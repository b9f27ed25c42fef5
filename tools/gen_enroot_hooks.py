#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/enroot_hooks.json: what enroot's hooks (the scripts under conf/hooks/
that enroot runs, as root in the container's namespaces, before a container starts: what pyxis's
`srun --container-image` runs) need from the IMAGE's environment, and what each does without it.

enroot prints nothing when a hook leaves a device out: 98-nvidia.sh `exit 0`s when NVIDIA_VISIBLE_DEVICES is unset
or 'void' (no driver library, no nvidia-smi in the container), defaults NVIDIA_DRIVER_CAPABILITIES to 'utility' (no
libcuda), 99-mellanox.sh `exit 0`s without MELLANOX_VISIBLE_DEVICES (no RDMA device), 10-devices.sh hides the host's
/dev when ENROOT_RESTRICT_DEV is set. The symptom then appears in another program (nvidia-smi, CUDA, NCCL's IB
transport), so the table is what lets explain name the variable. Read from each hook's shell text:

- the image variables it imports: `tac "${ENROOT_ENVIRON}" | grep "^PREFIX_"` (the image's environment, unless the
  caller's environment already sets them: srun --container-env);
- its early exits: `if [ "${VAR:-void}" = "void" ] [|| [ "${VAR}" = "none" ]]; then exit 0` and
  `if [ -z "${VAR-}" ]; then exit 0` (the hook does nothing when VAR is unset / has those values);
- defaults: `if [ -z "${VAR-}" ]; then VAR="value"` and `: ${VAR:=value}`;
- the values a comma-separated variable accepts: `for x in ${VAR//,/ }; do case "${x}" in a|b) ... esac`;
- its refusals: `common::err "..."` (matched as messages in generated/container_messages.json, not here).

The file has no message sites of its own ("sites": []): the hooks' messages are container_messages' (the same
pinned enroot), and what this table says is read by the knowledge that cites it (tests/test_explain_ofi.py checks
the hand-written causes against it).

Usage:
    python tools/gen_enroot_hooks.py --repo /path/to/enroot.git [--rev v4.1.2] [-o OUT]
    python tools/gen_enroot_hooks.py --slice tools/data/enroot_hooks_slice.txt -o OUT   (the test)

Source: NVIDIA/enroot (https://github.com/NVIDIA/enroot) conf/hooks/*.sh and conf/hooks/extra/*.sh, read with
`git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_enroot_hooks.py"
SOURCE = "NVIDIA/enroot (https://github.com/NVIDIA/enroot) conf/hooks/*.sh, conf/hooks/extra/*.sh"

_IMPORT = re.compile(r'tac "\$\{ENROOT_ENVIRON\}" \| grep "\^(\w+_)"')
# if [ "${VAR:-void}" = "void" ] || [ "${VAR}" = "none" ]; then exit 0
_EXIT_VALUES = re.compile(r'if \[ "\$\{(\w+):-(\w+)\}" = "(\w+)" \](?: \|\| \[ "\$\{\1\}" = "(\w+)" \])?; then\s+exit 0')
# if [ -z "${VAR-}" ]; then exit 0
_EXIT_UNSET = re.compile(r'if \[ -z "\$\{(\w+)-\}" \]; then\s+exit 0')
_DEFAULT_IF = re.compile(r'if \[ -z "\$\{(\w+)-\}" \]; then\s+\1="([^"]*)"')
_DEFAULT_COLON = re.compile(r'^: \$\{(\w+):=([^}]*)\}', re.M)
_VALUES = re.compile(r'for (\w+) in \$\{(\w+)//,/ \}; do\s+case "\$\{\1\}" in(.*?)esac', re.S)
_ERR = re.compile(r'common::err "((?:[^"\\]|\\.)*)"')


def hook(path, src):
    """What one hook reads from the image's environment and what it does without it."""
    h = {"hook": path, "imports": sorted(set(_IMPORT.findall(src))), "does_nothing_when": {}, "defaults": {},
         "values": {}, "errors": [knowgen.c_unescape(m) for m in _ERR.findall(src)]}
    for m in _EXIT_VALUES.finditer(src):
        var, dflt, cmp, other = m.groups()
        when = (["unset"] if dflt == cmp else []) + [cmp] + ([other] if other else [])
        h["does_nothing_when"].setdefault(var, [])
        h["does_nothing_when"][var] += [w for w in when if w not in h["does_nothing_when"][var]]
    for var in _EXIT_UNSET.findall(src):
        h["does_nothing_when"].setdefault(var, [])
        if "unset" not in h["does_nothing_when"][var]:
            h["does_nothing_when"][var].append("unset")
    for var, val in _DEFAULT_IF.findall(src) + _DEFAULT_COLON.findall(src):
        h["defaults"].setdefault(var, val)
    for _, var, body in _VALUES.findall(src):
        vals = []
        for arm in re.findall(r"^\s*([\w|*-]+)\)", body, re.M):
            vals += [v for v in arm.split("|") if v != "*"]
        h["values"][var] = vals
    return h


def build(files, version):
    hooks = [hook(p, s) for p, s in files if p.startswith("conf/hooks/") and p.endswith(".sh")]
    # a variable -> the hooks that do nothing without it: what explain's causes cite
    needs = {}
    for h in hooks:
        for var, when in h["does_nothing_when"].items():
            needs.setdefault(var, []).append({"hook": h["hook"], "when": when})
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "each hook's image variables, early exits, defaults and accepted values; no "
                                     "message sites (the hooks' messages are in container_messages.json)"),
            "sites": [], "hooks": hooks, "needs": needs}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("conf/hooks",), lambda p: p.endswith(".sh"))
    return files, knowgen.revision(git, rev, describe=False)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="v4.1.2")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    path = knowgen.write("enroot_hooks", doc, a.out)
    print("%s: %d hooks, %d variables a hook needs" % (path, len(doc["hooks"]), len(doc["needs"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
