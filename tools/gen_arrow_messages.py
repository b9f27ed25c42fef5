#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/arrow_messages.json: what Apache Arrow (pyarrow, under Hugging Face
`datasets`) raises when a dataset's data does not fit its table: a batched `Dataset.map` whose function returned
columns of different lengths (Table::Validate), a JSON / CSV file that does not parse (load_dataset('json' / 'csv')),
a column over the 2 GB of one Arrow array, a cache file that was cut short (the Arrow IPC reader), and Python values
that do not convert to the column's type.

Read from apache/arrow at a release tag with `git show`, never built: each `Status::Invalid / IOError / CapacityError
/ TypeError(...)` of FILES, its arguments joined as Arrow's StringBuilder joins them (string literals verbatim, any
other argument %s), and the calls of a file's own helper that prefixes its message (csv/parser.cc: `ParseError(...)`
returns `Status::Invalid("CSV parse error: ", args...)`; json/parser.cc likewise 'JSON parse error: '). pyarrow
raises each as ArrowInvalid / OSError / ArrowCapacityError / ArrowTypeError with the message as written. Each becomes
a bounded matcher assigned by RULES (knowledge/hflibs.toml: datasets.arrow, a case of datasets.library_error); MSG_FIX
gives a message its own meaning and fix, written from the condition that raises it and from how `datasets` calls
Arrow (arrow_writer.py writes each map batch with pa.Table.from_arrays / from_pydict; packaged_modules/json and csv
read files with pyarrow.json / pyarrow.csv; the cache is Arrow IPC files read by arrow_reader.py).

Usage:
    python tools/gen_arrow_messages.py --repo /path/to/arrow.git [--rev apache-arrow-25.0.1] [--record SLICE] [-o OUT]
    python tools/gen_arrow_messages.py --slice tools/data/arrow_messages_slice.txt -o OUT   (the test)

Source: apache/arrow (https://github.com/apache/arrow, Apache-2.0) at apache-arrow-25.0.1: FILES below.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_arrow_messages.py"
NEED = 12  # the longest literal run, in non-blank characters, below which a format is too vague to match
FILES = ("cpp/src/arrow/table.cc", "cpp/src/arrow/record_batch.cc", "cpp/src/arrow/json/parser.cc",
         "cpp/src/arrow/csv/parser.cc", "cpp/src/arrow/array/builder_binary.h",
         "cpp/src/arrow/array/builder_nested.cc", "cpp/src/arrow/ipc/message.cc", "cpp/src/arrow/ipc/reader.cc",
         "python/pyarrow/src/arrow/python/python_to_arrow.cc", "python/pyarrow/src/arrow/python/helpers.cc")
_STATUS = re.compile(r"\bStatus::(Invalid|IOError|CapacityError|TypeError)\s*\(")
# a file's helper that returns a Status with a fixed first literal, its other arguments forwarded
_HELPER = re.compile(r"Status\s+(\w+)\s*\(\s*\w+&&\.\.\.\s*\w+\s*\)\s*\{\s*return\s+Status::(\w+)\s*\(\s*"
                     r"\"((?:[^\"\\]|\\.)*)\"\s*,\s*std::forward<\w+>\(\w+\)\.\.\.\s*\)\s*;")
# (rule, knowledge entry, {field: regex}); fields: where, text. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"^Unexpected state|should not happen|^Unexpected empty message"}),
    ("ctx-arrow", "datasets.arrow", {"where": r"^(?:cpp/src/arrow/|python/pyarrow/)"}),
]

MSG_FIX = [
    (r"^Column %s named %s expected length %s but got length %s",
     "Arrow's Table::Validate: the columns of one table must have one length. Under datasets this is a batched "
     "Dataset.map whose function returned new columns of another length than the input columns it kept (a tokenizer "
     "with return_overflowing_tokens, group_texts / chunking): datasets writes the batch's columns as one table.",
     ["map(..., batched=True, remove_columns=ds.column_names) (or the names of every input column) so that only the "
      "function's columns are written; or return every column at the new length"]),
    (r"^JSON parse error: ",
     "pyarrow.json (datasets' 'json' builder) could not parse the file: a line that is not valid JSON (one object per "
     "line for .jsonl; a single top-level array needs field=), or a column whose type changes between rows (the "
     "message names the column and row).",
     ["check the file: python -c \"import json,sys; [json.loads(l) for l in open(sys.argv[1])]\" <file>; give "
      "load_dataset('json', data_files=..., features=Features({...})) for a column of mixed types; field='data' for "
      "a document that holds the records under one key"]),
    (r"^CSV parse error: ",
     "pyarrow.csv (datasets' 'csv' builder) found a row with another number of columns than the header (an unquoted "
     "delimiter inside a value, a different delimiter, a broken quote).",
     ["load_dataset('csv', data_files=..., delimiter='\\t' / quotechar='\"' as the file uses); or fix the row the "
      "message prints"]),
    (r"array cannot contain more than %s",
     "One Arrow array (a string / binary / list column of one batch) holds more than its 32-bit offsets address "
     "(2 GB): long texts, images or token lists written in large batches.",
     ["smaller writer_batch_size in map / from_generator (e.g. 100), or large_string / large_list features for that "
      "column (Value('large_string'))"]),
    (r"^Expected to be able to read %s bytes for message body|^Expected to read %s metadata bytes|"
     r"^Corrupted message, only %s bytes available|^Corrupted metadata length|^Failed to read message body",
     "Arrow's IPC reader found a file shorter than its own header says: a datasets cache file (cache-*.arrow, "
     "data-*.arrow of save_to_disk) written only in part (a killed map, a full disk, two processes writing one "
     "cache) or copied incompletely.",
     ["delete that cache file or folder (the path in the traceback; ~/.cache/huggingface/datasets/... or "
      "HF_DATASETS_CACHE) and run again; load_dataset(..., download_mode='force_redownload'), map(..., "
      "load_from_cache_file=False); write the cache on one rank first (with training_args.main_process_first())"]),
    (r"^Could not convert %s with type %s: ",
     "pyarrow could not convert a Python value to the type Arrow inferred (or was given) for its column: values of "
     "mixed types in one column (an int where strings came first, a dict in a list of strings).",
     ["make the column one type in the data (str() the values) or give features=Features({...}) with the type the "
      "column should have"]),
]

_LITERALS = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _message(args):
    """Arrow's util::StringBuilder(args...) as a printf format: a string literal (or adjacent literals) verbatim,
    anything else %s."""
    parts = []
    for a in args:
        if re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*"\s*)+', a):
            parts.append(knowgen.c_unescape("".join(_LITERALS.findall(a))).replace("%", "%%"))
        elif a.startswith("std::forward<"):
            continue
        else:
            parts.append("%s")
    return " ".join("".join(parts).split())


def sites_of(path, src, helpers):
    """(line, format) of each Status message of one file (or a slice's block of it), and of the calls of its
    prefixing helpers ({name: prefix}, read from the whole file: helpers_of)."""
    calls = [(m, None) for m in _STATUS.finditer(src)]
    if helpers:
        calls += [(m, helpers[m.group(1)]) for m in re.finditer(r"\b(%s)\s*\(" % "|".join(helpers), src)]
    for m, prefix in sorted(calls, key=lambda c: c[0].start()):
        if prefix is not None and re.match(r"\s*\w+&&\.\.\.", src[m.end():]):
            continue  # the helper's own definition
        args = knowgen.call_args(src, m.end())
        if not args or (prefix is None and any(a.startswith("std::forward<") for a in args)):
            continue  # (a helper's own Status call is read through its callers)
        fmt = _message([a for a in args if a])
        if prefix is not None:
            fmt = knowgen.c_unescape(prefix).replace("%", "%%") + fmt
        if fmt.strip("%s ") and not fmt.startswith("%s: ") and fmt.strip() != (prefix or "").strip():
            yield src.count("\n", 0, m.start()) + 1, fmt


def helpers_of(srcs):
    """{helper name: its first literal} of a file's prefixing helpers (_HELPER), over all its blocks."""
    return {m.group(1): m.group(3) for src in srcs for m in _HELPER.finditer(src)}


def build(files, version):
    sites, seen, ids = [], set(), set()
    by_path = {}
    for path, src in files:
        by_path.setdefault(path, []).append(src)
    for path, src in files:
        for line, fmt in sites_of(path, src, helpers_of(by_path[path])):
            if fmt in seen:
                continue
            seen.add(fmt)
            where = "%s:%d" % (path, line)
            site = {"id": knowgen.unique_id("arrow." + knowgen.slug(where), ids), "where": where, "level": "raise",
                    "text": fmt}
            rx, literal = knowgen.matcher(fmt, None, NEED)
            if not knowgen.unanchored(site, rx, literal, NEED):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
                if rule and rule.startswith("ctx-") and not knowgen.specific_enough(fmt, names=False):
                    rule, family = "too few words of its own to assign by its source file", None
                site.update({"re": rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("apache/arrow (https://github.com/apache/arrow)", version, GENERATOR,
                                     "Status::Invalid / IOError / CapacityError / TypeError messages of Arrow's table "
                                     "validation, JSON and CSV parsers, binary and list builders, IPC reader and "
                                     "pyarrow's Python-to-Arrow conversion; families from the RULES table"),
            "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return [(p, git("show", "%s:%s" % (rev, p))) for p in FILES], knowgen.revision(git, rev)


def record(path, version, files, doc):
    """The slice: each assigned site's statement (`=== path @LINE`) and each file's prefixing helpers."""
    keep = {}
    for s in doc["sites"]:
        if s.get("family"):
            p, ln = s["where"].rsplit(":", 1)
            keep.setdefault(p, set()).add(int(ln))
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the Status statements of the assigned sites and the helpers that\n"
                "# prefix a file's messages (=== path @first line).\n#! version %s\n" % (GENERATOR, version))
        for p, src in files:
            for m in _HELPER.finditer(src):
                f.write("=== %s @%d\n%s\n" % (p, src.count("\n", 0, m.start()) + 1, m.group(0)))
            for ln in sorted(keep.get(p, ())):
                start = sum(len(x) + 1 for x in src.split("\n")[:ln - 1])
                end = knowgen.statement_end(src, start)
                f.write("=== %s @%d\n%s\n" % (p, ln, src[start:end + 1].strip("\n")))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="apache-arrow-25.0.1", extra=[
        ("--record", {"help": "write the slice"})])
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "tag")
        if a.record:
            record(a.record, version, files, doc)
    return knowgen.emit("arrow_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
