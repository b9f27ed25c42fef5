#!/usr/bin/env python3
"""Store generated tables and recorded slices gzip'd: <file> becomes <file>.gz (docs/explain.md "Generated knowledge").

The working tree travels to the GPU machines whole and refuses more than 64 MiB, and every `pip install` ships
gpudoctor/data/knowledge/generated/; JSON tables and source slices shrink 5 to 10 times gzip'd. A converted file
holds the same text as before, gzip'd by knowgen.gzip_bytes (no file name, modification time 0, fixed level), so a
generator that writes it again (knowgen.out_path / data_path / open_write) gives the same bytes. explain reads either
form (knowledge.generated_path / read_json / open_table); tests and generators read slices with knowgen.open_text.

    python tools/gzip_tables.py --over 300000          # list what a conversion would take (bytes, name), writes nothing
    python tools/gzip_tables.py --over 300000 --write  # convert them; then git rm the old, git add the .gz
    python tools/gzip_tables.py py_messages tools/data/py_messages_slice.txt --write   # named ones

A name is a generated table (generated/<name>.json); a path is any file (a slice under tools/data/).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402


def candidates(over, skip=()):
    """The plain generated tables and tools/data slices bigger than ``over`` bytes (those of a table named in
    ``skip`` aside: 'api_notes' leaves generated/api_notes.json and tools/data/api_notes_slice.json)."""
    out = []
    for d, ends in ((knowgen.OUT_DIR, (".json",)), (knowgen.DATA, (".txt", ".json", ".tsv"))):
        for n in sorted(os.listdir(d)):
            p, stem = os.path.join(d, n), n.split(".")[0]
            if (n.endswith(ends) and os.path.getsize(p) > over and stem not in skip
                    and not (stem.endswith("_slice") and stem[:-len("_slice")] in skip)):
                out.append(p)
    return out


def convert(path):
    """Write path + '.gz' (knowgen.save_text's bytes: the file's own text) and remove ``path``. Returns the new path."""
    with open(path, "rb") as f:
        data = f.read()
    data.decode("utf-8")  # (a table or slice is UTF-8 text: anything else stops here, before it is touched)
    gz = path + ".gz"
    with open(gz, "wb") as f:
        f.write(knowgen.gzip_bytes(data))
    os.remove(path)
    return gz


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="table names (generated/NAME.json) or file paths")
    ap.add_argument("--over", type=int, help="every plain table / slice bigger than this many bytes")
    ap.add_argument("--skip", action="append", default=[], help="a table or slice name to leave (repeatable)")
    ap.add_argument("--write", action="store_true", help="convert (without it: only list)")
    a = ap.parse_args(argv)
    paths = [n if os.sep in n else os.path.join(knowgen.OUT_DIR, n + ".json") for n in a.names]
    if a.over is not None:
        paths += candidates(a.over, set(a.skip))
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing or (not paths and a.over is None):
        ap.error("no such file: %s" % ", ".join(missing) if missing else "name a table or give --over")
    for p in paths:
        size = os.path.getsize(p)
        if a.write:
            gz = convert(p)
            print("%s: %d -> %d bytes" % (os.path.relpath(gz, knowgen.ROOT), size, os.path.getsize(gz)))
        else:
            print("%d\t%s" % (size, os.path.relpath(p, knowgen.ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
