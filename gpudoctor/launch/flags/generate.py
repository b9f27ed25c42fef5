"""Regenerate the launchers' flag tables (gpudoctor/launch/flags/*.json) from the launchers
themselves, so the tables are data taken from their source, never typed by hand.

Run it with an interpreter that has the reference launchers installed (never gpudoctor's
own environment: they are heavy):

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    /tmp/refvenv/bin/pip install deepspeed accelerate cloudpickle
    git clone https://github.com/horovod/horovod /tmp/horovod      # horovodrun's parser, by source
    apt-get install openmpi-bin mpich                                # mpirun 4.1.x --help all, MPICH hydra
    /tmp/refvenv/bin/python gpudoctor/launch/flags/generate.py --horovod /tmp/horovod \
        --hydra-options /tmp/mpich/src/pm/hydra/mpiexec/options.c

argparse launchers (torchrun, deepspeed, accelerate launch, horovodrun): every action of
the real parser object. Open MPI: `mpirun --help all` of the installed Open MPI (its
opal_cmd_line table printed, `<arg0> <arg1>` = values taken). MPICH Hydra: the
HYD_mpiexec_match_table of src/pm/hydra/mpiexec/options.c, the values each handler consumes
(`(*argv)++`).
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return repr(v)


def argparse_table(parser):
    opts, pos = [], []
    for a in parser._actions:
        kind = type(a).__name__
        if kind == "_HelpAction":
            continue
        nargs = a.nargs
        if kind in ("_StoreTrueAction", "_StoreFalseAction", "_StoreConstAction", "_CountAction"):
            nargs = 0
        if kind == "check_env":  # torch's flag action: no value, default from PET_<DEST>
            nargs = 0
        typ = getattr(a.type, "__name__", None) if a.type is not None else None
        row = {"flags": list(a.option_strings), "dest": a.dest, "nargs": nargs if nargs is not None else 1,
               "action": {"_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
                          "_StoreConstAction": "store_const", "_CountAction": "count",
                          "_AppendAction": "append", "env": "env", "check_env": "check_env"}.get(kind, "store"),
               "type": typ if typ in ("int", "float", "str") else (None if typ is None else "str"),
               "default": _jsonable(a.default), "choices": _jsonable(list(a.choices)) if a.choices else None}
        if kind == "_StoreConstAction":
            row["const"] = _jsonable(a.const)
        (opts if a.option_strings else pos).append(row)
    return {"allow_abbrev": parser.allow_abbrev, "prefix_chars": parser.prefix_chars, "options": opts,
            "positionals": pos}


def _capture(fn, argv):
    """The parser a function builds and parses with (DeepSpeed builds it inside parse_args)."""
    got = {}
    orig = argparse.ArgumentParser.parse_args

    def grab(self, *a, **k):
        got["p"] = self
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = grab
    try:
        fn(argv)
    except SystemExit:
        pass
    finally:
        argparse.ArgumentParser.parse_args = orig
    return got["p"]


def write(name, table, source):
    table = dict({"launcher": name, "source": source}, **table)
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%s: %d options (%s)" % (name, len(table["options"]), source["version"]))


def gen_torchrun():
    import torch
    from torch.distributed import run

    write("torchrun", argparse_table(run.get_args_parser()),
          {"project": "pytorch/pytorch", "file": "torch/distributed/run.py get_args_parser()",
           "version": "torch " + torch.__version__})


def gen_deepspeed():
    import deepspeed
    from deepspeed.launcher import runner

    p = _capture(runner.parse_args, ["x.py"])
    write("deepspeed", argparse_table(p), {"project": "deepspeedai/DeepSpeed",
                                           "file": "deepspeed/launcher/runner.py parse_args()",
                                           "version": "deepspeed " + deepspeed.__version__})


def gen_accelerate():
    import accelerate
    from accelerate.commands.launch import launch_command_parser

    write("accelerate", argparse_table(launch_command_parser()),
          {"project": "huggingface/accelerate", "file": "src/accelerate/commands/launch.py launch_command_parser()",
           "version": "accelerate " + accelerate.__version__})


def gen_horovod(src):
    sys.path.insert(0, src)
    from horovod.runner import launch

    import horovod
    p = _capture(lambda argv: (sys.argv.__setitem__(slice(None), ["horovodrun"] + argv), launch.parse_args()),
                 ["-np", "1", "x"])
    write("horovodrun", argparse_table(p), {"project": "horovod/horovod",
                                            "file": "horovod/runner/launch.py parse_args()",
                                            "version": "horovod " + horovod.__version__})


def gen_openmpi(mpirun="mpirun.openmpi"):
    p = subprocess.run([mpirun, "--allow-run-as-root", "--help", "all"], capture_output=True, text=True)
    out = p.stdout + p.stderr
    version = re.search(r"\(OpenRTE\) (\S+)", out).group(1)
    opts = []
    for m in re.finditer(r"^\s*(-\S+?)(?:\s+((?:<arg\d+>\s*)+))?\s*$|^\s*(-\S+?)\s+((?:<arg\d+>\s*)*)\s{2,}\S",
                         out, re.M):
        spec, args = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        flags = spec.split("|")
        nvals = len(re.findall(r"<arg\d+>", args or ""))
        opts.append({"flags": flags, "nargs": nvals})
    write("openmpi", {"options": opts}, {"project": "open-mpi/ompi", "file": "mpirun --help all",
                                         "version": "Open MPI " + version})


def gen_hydra(options_c, version):
    src = open(options_c).read()
    opts = []
    for name, fn in re.findall(r'\{"([^"\\]+)", (\w+), \w+\}', src):
        m = re.search(r"static HYD_status " + fn + r"\(char \*arg, char \*\*\*argv\)\s*\{(.*?)\n\}", src, re.S)
        body = m.group(1) if m else ""
        opts.append({"flags": ["-" + name], "nargs": body.count("(*argv)++")})
    write("hydra", {"options": opts}, {"project": "pmodels/mpich", "file": "src/pm/hydra/mpiexec/options.c "
                                       "HYD_mpiexec_match_table", "version": version})


def parse_srun_help(out):
    """`srun --help` lines `  -A, --account=name  text` / `      --exclusive[=user]  text`:
    an option with `=value` takes one (srun also reads `-A name`, `--account name`); one with
    `[=value]` takes a value only when attached (`--exclusive=user`); one without takes none."""
    opts = []
    for m in re.finditer(r"^\s{2,6}(-[A-Za-z0-9](?:,\s*|\s+))?(--[A-Za-z0-9][\w-]*)(\[?=)?", out, re.M):
        flags = ([m.group(1).strip(" ,")] if m.group(1) else []) + [m.group(2)]
        nargs = 1 if m.group(3) == "=" else ("?" if m.group(3) == "[=" else 0)
        opts.append({"flags": flags, "nargs": nargs})
    for m in re.finditer(r"^\s{2,6}(-[A-Za-z0-9])\s{2,}\S", out, re.M):  # short only (-h, -V, -v)
        opts.append({"flags": [m.group(1)], "nargs": 0})
    return opts


def gen_srun(srun="srun"):
    # srun --help needs a config source: SLURM_CONF pointing at any valid slurm.conf works
    p = subprocess.run([srun, "--help"], capture_output=True, text=True)
    v = subprocess.run([srun, "--version"], capture_output=True, text=True).stdout.strip()
    write("srun", {"options": parse_srun_help(p.stdout)}, {"project": "SchedMD/slurm", "file": "srun --help",
                                                           "version": v})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--horovod", help="a horovod source checkout")
    ap.add_argument("--hydra-options", help="MPICH's src/pm/hydra/mpiexec/options.c")
    ap.add_argument("--hydra-version", default="MPICH main")
    a = ap.parse_args()
    gen_torchrun()
    gen_deepspeed()
    gen_accelerate()
    if a.horovod:
        gen_horovod(a.horovod)
    gen_openmpi()
    gen_srun()
    if a.hydra_options:
        gen_hydra(a.hydra_options, a.hydra_version)
