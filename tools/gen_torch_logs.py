#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_logs.json: the names TORCH_LOGS accepts (torch's logging
registry), so that explain can name the closest valid setting when torch refuses one.

Source: torch/_logging/_registrations.py of a torch wheel, read with ast (never imported): each
`register_log("name", ...)` and `register_artifact("name", ...)` call's first argument
(https://github.com/pytorch/pytorch/blob/main/torch/_logging/_registrations.py). torch/_logging/_internal.py
_invalid_settings_err_msg lists "all" + the log aliases + the artifact names as "Valid settings"; a setting may carry
'+' / '-' (more / less verbose) and fully qualified module names are accepted as well
(https://docs.pytorch.org/docs/stable/logging.html).

    tools/gen_torch_logs.py --registrations .../site-packages/torch/_logging/_registrations.py --version 2.13.0 -o OUT
    tools/gen_torch_logs.py --registrations tools/data/torch_logs_registrations_slice.py.txt --version 2.13.0 -o OUT
"""

import argparse
import ast
import datetime
import json
import sys


def names(src):
    """(logs, artifacts): the first string argument of every register_log / register_artifact call."""
    logs, arts = [], []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            if node.func.id == "register_log":
                logs.append(node.args[0].value)
            elif node.func.id == "register_artifact":
                arts.append(node.args[0].value)
    return sorted(set(logs)), sorted(set(arts))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--registrations", required=True, help="torch/_logging/_registrations.py (or its recorded copy)")
    ap.add_argument("--version", required=True, help="the torch release the file is from")
    ap.add_argument("--date", default=None, help="the date to record (default: today)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    with open(a.registrations) as f:
        logs, arts = names(f.read())
    out = {
        "header": {
            "source": "torch/_logging/_registrations.py (register_log / register_artifact), read with ast; "
                      "https://github.com/pytorch/pytorch/blob/main/torch/_logging/_registrations.py",
            "version": "torch %s" % a.version,
            "generator": "tools/gen_torch_logs.py",
            "date": a.date or datetime.date.today().isoformat(),
            "note": "%d log names and %d artifact names; 'all' and fully qualified module names are accepted too"
                    % (len(logs), len(arts)),
        },
        "sites": [],  # (no message sites: explain/valuedomain.py reads the names)
        "logs": logs,
        "artifacts": arts,
    }
    with open(a.output, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
