#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/pydantic_errors.json: the message template of every error type
pydantic-core prints in a ValidationError, and what each says about the domain of the value it refused.

Source: pydantic-core's own list, `pydantic_core._pydantic_core.list_all_errors()` (each type's
message_template_python, the text src/errors/types.rs formats: https://github.com/pydantic/pydantic-core/blob/main/
src/errors/types.rs; the types are documented at https://docs.pydantic.dev/latest/errors/validation_errors/).
pydantic prints each error of a ValidationError as

    <loc joined with '.'>
      <message> [type=<type>, input_value=<repr, truncated>, input_type=<type name>]

(pydantic-core src/errors/validation_exception.rs, display_errors). explain/valuedomain.py turns each template into a
bounded matcher; DOMAIN (written here from the templates' own wording) says which kind of domain a type states: a
list of values, a bound, a type, a length, a pattern, a required or forbidden key.

    tools/gen_pydantic_errors.py -o gpudoctor/data/knowledge/generated/pydantic_errors.json
        (run with an interpreter that has pydantic-core installed; records its version)
    tools/gen_pydantic_errors.py --from tools/data/pydantic_errors_slice.json -o OUT
        (the recorded list, for the regeneration test)
"""

import argparse
import datetime
import json
import sys

# which domain each type's message states (the templates: 'Input should be {expected}', 'greater than {gt}', ...)
DOMAIN = {
    "literal_error": "values", "enum": "values",
    "greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le",
    "multiple_of": "multiple_of",
    "int_parsing": "int", "int_type": "int", "int_from_float": "int", "float_parsing": "float", "float_type": "float",
    "bool_parsing": "bool", "bool_type": "bool", "string_type": "str",
    "string_too_short": "length", "string_too_long": "length", "too_short": "length", "too_long": "length",
    "string_pattern_mismatch": "pattern",
    "missing": "missing", "extra_forbidden": "extra",
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--from", dest="src", help="a recorded list_all_errors() (JSON) instead of the installed package")
    a = ap.parse_args(argv)
    rec = {}
    if a.src:
        with open(a.src) as f:
            rec = json.load(f)
        version, errors = rec["version"], rec["errors"]
        total = rec.get("total", len(errors))
    else:
        import pydantic_core
        from pydantic_core._pydantic_core import list_all_errors

        version, errors = pydantic_core.__version__, list_all_errors()
        total = len(errors)
    rows = {}
    for e in errors:
        if e["type"] in DOMAIN:
            rows[e["type"]] = {"template": e["message_template_python"], "domain": DOMAIN[e["type"]]}
    out = {
        "header": {
            "source": "pydantic-core's list_all_errors() (message_template_python); "
                      "https://github.com/pydantic/pydantic-core/blob/main/src/errors/types.rs",
            "version": "pydantic-core %s" % version,
            "generator": "tools/gen_pydantic_errors.py",
            "date": rec.get("date", "") if a.src else datetime.date.today().isoformat(),
            "note": "%d of the %d error types state a domain (explain/valuedomain.py reads them)" % (len(rows), total),
        },
        "sites": [],  # (no message sites: the templates are read by explain/valuedomain.py, not matched alone)
        "types": dict(sorted(rows.items())),
    }
    with open(a.output, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
