#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/config_messages.json: what the parsers of a training job's configuration
files print when the file is not valid, each message with the edit that fixes the file; and the hyperparameter guards
a value read as a string from YAML fails at.

Read, never imported or run:
  - PyYAML (the wheel): every `raise ScannerError / ParserError / ComposerError / ConstructorError(context,
    context_mark, problem, problem_mark)` of yaml/scanner.py, parser.py, composer.py and constructor.py (its context
    and its problem: yaml/error.py MarkedYAMLError.__str__ prints each on a line of its own), and the two texts of
    yaml/reader.py ReaderError.__str__ (a character the reader refuses, a byte its codec cannot decode);
  - libyaml (the C library of yaml.CLoader / CSafeLoader, linked into the wheel's yaml/_yaml*.so, whose problems
    yaml/_yaml.pyx raises as the same classes): the printable runs of that shared object that are its problem and
    context texts ('did not find expected key', 'found a tab character that violates indentation');
  - OmegaConf's own YAML loader (omegaconf/_yaml.py: a duplicate key, aliases that expand too far), read the same way;
  - CPython's json decoder (Lib/json/decoder.py: `JSONDecodeError(msg, ...)`, and the texts of the C accelerator
    Modules/_json.c that the interpreter uses by default, read as the printable runs of its _json shared object),
    each with the suffix JSONDecodeError.__init__ writes (': line %d column %d (char %d)');
  - CPython's tomllib (Lib/tomllib/_parser.py: `suffixed_err(src, pos, msg)`, which appends ' (at line L, column C)');
  - the guards a hyperparameter meets first (`if not 0.0 <= lr:`): each `if` / `elif` / `assert` test of
    torch/optim/*.py, transformers' training_args.py / optimization.py, timm/optim/ and bitsandbytes/optim/ that
    compares a value with a number literal in a constructor; and the arithmetic of those files on a value the user
    gave (uses()). YAML 1.1's resolver (PyYAML yaml/resolver.py: a float needs a '.', so `lr: 3e-4` resolves to the string
    '3e-4'; https://yaml.org/type/float.html) hands such a guard a str, and Python raises
    "TypeError: '<=' not supported between instances of 'float' and 'str'" there: explain/cfgvalue.py reads the
    traceback's innermost frame against these rows.

Each message becomes a bounded matcher assigned to a knowledge entry (knowledge/config_files.toml) by RULES (the file
that prints it); MSG_FIX gives a message its own meaning and fix, written from the condition that raises it and the
format's specification (YAML 1.1 / 1.2, RFC 8259, TOML 1.0).

Usage:
    pip download --no-deps pyyaml==6.0.4 omegaconf==2.4.0 transformers==5.24.0 torch==2.14.1 timm==1.0.31 \\
        bitsandbytes==0.50.2 -d /tmp/w
    python tools/gen_config_messages.py --pyyaml /tmp/w/pyyaml-6.0.4-*.whl --omegaconf /tmp/w/omegaconf-2.4.0-*.whl \\
        --lib /root/.pyenv/versions/3.11.7/lib/python3.11 --torch /tmp/w/torch-2.14.1-*.whl \\
        --transformers /tmp/w/transformers-5.24.0-*.whl --more /tmp/w/timm-1.0.31-*.whl \\
        --more /tmp/w/bitsandbytes-0.50.2-*.whl [--record tools/data/config_messages_slice.txt]
    python tools/gen_config_messages.py --slice tools/data/config_messages_slice.txt -o OUT   (the test)

Sources: PyYAML (https://github.com/yaml/pyyaml, MIT), omegaconf (https://github.com/omry/omegaconf, BSD-3-Clause),
CPython (https://github.com/python/cpython, PSF License: Lib/json/decoder.py, Modules/_json.c, Lib/tomllib/),
torch (https://github.com/pytorch/pytorch, BSD-3-Clause: torch/optim/), transformers
(https://github.com/huggingface/transformers, Apache-2.0), timm (https://github.com/huggingface/pytorch-image-models,
Apache-2.0: timm/optim/), bitsandbytes (https://github.com/bitsandbytes-foundation/bitsandbytes, MIT:
bitsandbytes/optim/). The regenerated table read PyYAML 6.0.4, omegaconf 2.4.0, CPython 3.11.7, torch 2.14.1,
transformers 5.24.0, timm 1.0.31 and bitsandbytes 0.50.2.
"""

import ast
import os
import re
import sys
import textwrap
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_config_messages.py"
NEED = 12  # the longest literal run of a site's matcher, in non-blank characters, below which it is too vague
YAML_FILES = r"^yaml/(?:scanner|parser|composer|constructor|reader)\.py$"
OMEGACONF_FILES = r"^omegaconf/_yaml\.py$"
LIB_FILES = ("json/decoder.py", "tomllib/_parser.py")
JSON_SO = "lib-dynload/_json"  # the slice's name for the printable runs of CPython's _json accelerator
# the C accelerator's texts (Modules/_json.c raise_errmsg): its runs that begin as the decoder's messages do
JSON_C_TEXT = re.compile(r"^(?:Expecting [a-z ',:]{1,60}|Invalid [a-zA-Z \\]{1,40}|Unterminated string starting at|"
                         r"Extra data|Illegal trailing comma[a-z ]{1,40})$")
# libyaml's texts (the C library yaml.CLoader / CSafeLoader use, linked into the wheel's yaml/_yaml*.so; yaml/_yaml.pyx
# raises them as the same MarkedYAMLError classes): its scanner's and parser's problems and contexts
LIBYAML = "yaml/_yaml.so"  # the slice's name for the printable runs of the wheel's libyaml
LIBYAML_TEXT = re.compile(r"^(?:did not find (?:expected|the expected) [\w<>'!,.\] -]{1,60}|found (?:a tab character|"
                          r"character that|unexpected|undefined|duplicate) [\w%<>' -]{1,60}|(?:block sequence entries|"
                          r"mapping (?:keys|values)) are not allowed in this context|could not find expected [\w':]{1,30}|"
                          r"control characters are not allowed|while (?:scanning|parsing) an? [\w% ]{1,30})$")
GUARD_FILES = (r"^(?:torch/optim/[a-z_]+\.py|transformers/(?:training_args|optimization)\.py|timm/optim/[a-z_0-9]+\.py|"
               r"bitsandbytes/optim/[a-z_0-9]+\.py)$")
USES = "uses/"  # the slice's name prefix for the generator's reading of a guard file's arithmetic (uses())
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod)
# the functions that take the user's values: a constructor, a dataclass's __post_init__ and the validation it calls
CONSTRUCTORS = re.compile(r"^(?:__init__|__post_init__|_?validate\w{0,40})$")
MESSAGE_CLASSES = re.compile(r"(?:Scanner|Parser|Composer|Constructor|JSONDecode)Error$")

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, part (problem / context). First wins.
RULES = [
    ("vague", None, {"text": r"^(?:second occurrence|found unhashable key|special characters are not allowed)$"}),
    ("yaml", "config.yaml_syntax", {"where": r"^(?:yaml|omegaconf)/"}),
    ("json", "config.json_syntax", {"where": r"^(?:json/|lib-dynload/_json)"}),
    ("toml", "config.toml_syntax", {"where": r"^tomllib/"}),
]

_YAML11 = "https://yaml.org/spec/1.1/"
_YAML12 = "https://yaml.org/spec/1.2.2/"
# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^found character (?:%r )?that cannot start any token|^found a tab character",
     "yaml/scanner.py fetch_more_tokens(): at the line and column printed below it the file has a character no YAML "
     "token starts with: a TAB used to indent (YAML forbids tabs in indentation: " + _YAML12 + "#61-indentation-spaces)"
     ", or an unquoted value that begins with a reserved indicator ('@' or '`').",
     ["indent with spaces, never tabs: replace the tabs in that file (expand -t 2 f.yaml > f2.yaml, or sed -i "
      "'s/\\t/  /g' f.yaml; an editor's 'convert indentation to spaces'), and quote a value that begins with @ or `"]),
    (r"^could not find expected ':'$",
     "yaml/scanner.py: a line began a plain 'key' that never reached its ':' (a key and a ':' must be on one line): a "
     "'key:value' with no space after the colon, a value continued on the next line less indented, or a list item "
     "or a line that lost its '- ' or its ':'.",
     ["write each mapping line as `key: value` (a space after the colon) and keep a long value on one line or quote "
      "it; check the line above the one printed"]),
    (r"^mapping values are not allowed (?:here|in this context)",
     "yaml/scanner.py fetch_value(): a ': ' appeared where a plain value is still being read: an unquoted value that "
     "itself holds ': ' (a message, a URL with a port, a Windows path, 'a: b: c'), or a key indented under a line "
     "that already has a value.",
     ["quote the value that holds ': ' (`msg: \"error: x\"`), or fix the indentation so that the nested key sits "
      "under a key with no value of its own (`parent:` then the children indented by spaces)"]),
    (r"^(?:block )?sequence entries are not allowed (?:here|in this context)",
     "yaml/scanner.py fetch_block_entry(): a '- ' list item where a value was already given on the same key "
     "(`key: value` then `- item` under it) or at an indentation that belongs to no list.",
     ["put the list under a key that has no value of its own (`key:` then `  - item` lines), each item at the same "
      "indentation"]),
    (r"^expected <block end>, but found %r|^did not find expected key$|^did not find expected '-' indicator",
     "yaml/parser.py: a line is indented differently from the keys (or list items) of the block it belongs to: "
     "siblings must start in the same column, and the block ends only where the indentation goes back.",
     ["give every key of the same mapping (every item of the same list) the same indentation, with spaces: compare "
      "the line printed with the key above it at the same level"]),
    (r"^expected ',' or '\]', but got %r|^expected ',' or '\}', but got %r|^did not find expected ',' or ",
     "yaml/parser.py: a flow collection ([a, b] or {k: v}) is not closed or lacks a comma between its items (an "
     "unquoted item holding ',' or ': ', or a bracket left open across lines).",
     ["close the bracket and separate the items with ', ' (quote an item that holds ',' or ': '), or write the "
      "collection in block style, one item a line"]),
    (r"^expected the node content, but found %r|^did not find expected node content",
     "yaml/parser.py: a key, '-' or '?' is followed by something that cannot be a value there (a stray ',' , ']' or "
     "'}', or an anchor or tag with nothing after it).",
     ["give the key a value (or quote the value that begins with the character printed)"]),
    (r"^found unexpected end of stream|^found unexpected document separator",
     "yaml/scanner.py scan_flow_scalar(): a quoted value was opened and never closed before the end of the file (or "
     "before a '---' line).",
     ["close the quote on the line printed (an apostrophe inside a single-quoted value is written twice: 'it''s')"]),
    (r"^found unknown escape character %r|^expected escape sequence of %d hexadecimal numbers",
     "yaml/scanner.py scan_flow_scalar_breaks(): in a double-quoted value a backslash starts an escape YAML does not "
     "have: a Windows path (\"C:\\data\\x\") or a regex written in double quotes.",
     ["write the value in single quotes ('C:\\data\\x', no escapes there), double each backslash, or use forward "
      "slashes in paths"]),
    (r"^found undefined alias %r",
     "yaml/composer.py: *name refers to an anchor (&name) not defined earlier in the same document (anchors do not "
     "cross files or '---' documents, and must come before their use).",
     ["define the anchor before it is used in that document, or write the value out; in a value that should begin "
      "with '*' (a glob), quote it (\"*.json\")"]),
    (r"^found duplicate anchor %r",
     "yaml/composer.py: the same &anchor is defined twice in one document.",
     ["rename one of the two anchors (and the aliases that mean it)"]),
    (r"^expected a single document in the stream",
     "yaml/composer.py get_single_node(): yaml.safe_load / yaml.load read a file with more than one document (a "
     "'---' line after content): they read exactly one.",
     ["remove the extra '---' (or the content after it), or read every document with yaml.safe_load_all(f)"]),
    (r"^could not determine a constructor for the tag %r",
     "yaml/constructor.py: the file has a tag (!!python/tuple, !!python/object:..., a custom !tag) that the loader "
     "used cannot build: yaml.safe_load builds plain data only. A hparams.yaml / config written with yaml.dump of "
     "Python objects (a tuple, a Namespace, a class) carries such tags.",
     ["load a trusted file with yaml.load(f, Loader=yaml.FullLoader) (tuples) or yaml.UnsafeLoader (objects), or "
      "write it with plain data (lists for tuples, yaml.safe_dump), or register a constructor for the custom tag "
      "(yaml.add_constructor)"]),
    (r"^found duplicate key %s",
     "omegaconf/_yaml.py get_yaml_loader(): OmegaConf refuses a YAML mapping that gives the same key twice (PyYAML "
     "alone would keep the last value silently).",
     ["remove or merge the repeated key in that mapping (the line printed is the second one)"]),
    (r"^YAML node expansion exceeds|^YAML aliases expand the document|^YAML recursive aliases",
     "omegaconf/_yaml.py: the YAML's anchors and aliases expand into more nodes than OmegaConf's limit (or refer to "
     "themselves).",
     ["write the repeated values out or use fewer nested aliases; for a trusted file raise max_yaml_expanded_nodes"]),
    (r"^unacceptable character #x%04x|codec can't decode byte #x%02x",
     "yaml/reader.py: the file holds a character YAML does not allow (a control character, a NUL of a binary or "
     "UTF-16 file) or bytes that are not UTF-8.",
     ["save the file as UTF-8 text (iconv -f <encoding> -t utf-8), remove the control character at the position "
      "printed, and check that it is the YAML file and not a binary or a checkpoint"]),
    (r"^Expecting value: ",
     "json/decoder.py: where a JSON value should begin there is none: at line 1 column 1 (char 0) the text is empty "
     "or not JSON at all (an empty or half-written file, an HTML error page a server sent, a YAML file or a Python "
     "literal with None / True / single quotes); further in, a trailing comma before ']' or a comment.",
     ["check what was read: a file (ls -l; head it: empty, YAML, HTML?) or a response (print its status and text "
      "before .json()); write JSON with double quotes, null / true / false, no comments and no trailing comma"]),
    (r"^Expecting property name enclosed in double quotes",
     "json/decoder.py: in an object a key must be a double-quoted string: single quotes (a Python dict printed with "
     "str()), an unquoted key, a trailing comma before '}' or a comment were found there.",
     ["write keys in double quotes and drop the comma before '}' (json.dumps writes valid JSON; a Python dict "
      "literal is read with ast.literal_eval, not json)"]),
    (r"^Expecting ',' delimiter",
     "json/decoder.py: two items of an array or object without a comma between them, or a string value that holds "
     "an unescaped double quote (which ends it early).",
     ["add the missing comma at the position printed, or escape the inner quote (\\\")"]),
    (r"^Expecting ':' delimiter",
     "json/decoder.py: an object key not followed by ':' (a missing colon, or '=' as in a Python call).",
     ["write `\"key\": value` at the position printed"]),
    (r"^Extra data: ",
     "json/decoder.py raw_decode(): one JSON value was read and more text follows: a JSON Lines file (one object a "
     "line) read with json.load, two documents concatenated, or text appended after the closing brace.",
     ["read a .jsonl file line by line ([json.loads(l) for l in f if l.strip()]; datasets' 'json' loader reads both), "
      "or remove what follows the first value"]),
    (r"^Invalid control character",
     "json/decoder.py scanstring(): a string holds a raw control character (a real line break or tab inside quotes).",
     ["escape it (\\n, \\t) where the file is written (json.dumps does), or read it with json.loads(s, strict=False)"]),
    (r"^Invalid \\\\?escape",
     "json/decoder.py scanstring(): a backslash starts an escape JSON does not have: a Windows path (\"C:\\data\") or "
     "a regex written in a JSON string.",
     ["double each backslash (\"C:\\\\data\") or use forward slashes in paths"]),
    (r"^Unterminated string starting at",
     "json/decoder.py scanstring(): a string was opened and the text ended before its closing quote: a file cut "
     "short (written while the job crashed, a full disk) or a missing closing quote.",
     ["close the quote; if the file was cut short, write it again (to a temporary name, then os.replace())"]),
    (r"^Cannot declare %s twice|^Cannot overwrite a value|^Duplicate inline table key",
     "tomllib/_parser.py: the same table or key is defined twice in the TOML file.",
     ["keep one definition of that table / key (merge the two)"]),
    (r"^Invalid value \(at ",
     "tomllib/_parser.py: a value that is no TOML value: an unquoted string (TOML needs quotes around every string, "
     "unlike YAML), True / None (TOML writes true, and has no null), or a bare word.",
     ["quote strings (name = \"value\"), write booleans as true / false, and leave a key out instead of None"]),
    (r"^Expected '=' after a key in a key/value pair",
     "tomllib/_parser.py: a key not followed by '=': YAML's 'key: value' in a TOML file, or a key with a space or a "
     "dot that is not quoted.",
     ["write `key = value` (quote a key that holds spaces)"]),
    (r"^Unclosed array|^Unclosed inline table",
     "tomllib/_parser.py: an array [...] or an inline table {...} is not closed, or its items lack commas.",
     ["close it and separate its items with commas (an inline table must fit on one line)"]),
]


def _wheel(path, files):
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if re.match(files, n))
        meta = next(n for n in z.namelist() if re.match(r"[^/]+\.dist-info/METADATA$", n))
        head = z.read(meta).decode("utf-8", "replace")
        version = "%s %s" % (re.search(r"^Name:\s*(\S+)", head, re.M).group(1),
                             re.search(r"^Version:\s*(\S+)", head, re.M).group(1))
        return [(n, z.read(n).decode("utf-8", "replace")) for n in names], version


def read(pyyaml, omegaconf, lib, torch, transformers, more=()):
    """([(path, text)], version) of the pinned sources (``more``: other wheels whose optimizers' guards are read)."""
    files, versions = [], []
    for wheel, pattern in ((pyyaml, YAML_FILES), (omegaconf, OMEGACONF_FILES), (torch, GUARD_FILES),
                           (transformers, GUARD_FILES)) + tuple((w, GUARD_FILES) for w in more):
        got, v = _wheel(wheel, pattern)
        files += got
        versions.append(v)
    with zipfile.ZipFile(pyyaml) as z:  # after PyYAML's Python: a text both print is the Python scanner's site
        so = next(n for n in z.namelist() if re.match(r"^yaml/_yaml\.[\w.-]+\.so$", n))
        runs = sorted({r for r in knowgen.binary_strings(z.read(so), 8) if LIBYAML_TEXT.match(r)})
    files.append((LIBYAML, "\n".join(runs) + "\n"))
    for rel in LIB_FILES:
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            files.append((rel, f.read()))
    so = sorted(n for n in os.listdir(os.path.join(lib, "lib-dynload")) if n.startswith("_json."))
    with open(os.path.join(lib, "lib-dynload", so[0]), "rb") as f:
        runs = [r for r in knowgen.binary_strings(f.read(), 8) if JSON_C_TEXT.match(r)]
    files.append((JSON_SO, "\n".join(runs) + "\n"))
    m = re.search(r"(\d+\.\d+\.\d+)", os.path.realpath(lib))
    versions.append("CPython %s (%s)" % (m.group(1) if m else "unknown", lib))
    return files, "; ".join(versions)


def _name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _fmt(node, names, line):
    """The format of a message argument; a name, the string assigned to it nearest above (within 40 lines)."""
    if isinstance(node, ast.Name):
        near = [f for at, f in sorted(names.get(node.id, [])) if line - 40 <= at < line]
        return near[-1] if near else None
    return knowgen.py_format(node)


def raised(blocks):
    """(line, statement span, part, format) of each message of a file's sources (the file, or its slice's blocks):
    the context and the problem of a MarkedYAMLError raised, the message of a JSONDecodeError (a name assigned a
    string just above it read as that string), tomllib's suffixed_err(src, pos, msg)."""
    out, names = [], {}
    trees = []
    for src in blocks:
        try:
            trees.append(ast.parse(textwrap.dedent(src)))
        except SyntaxError:
            continue
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id == "msg":
                fmt = knowgen.py_format(node.value)
                if fmt:
                    names.setdefault("msg", []).append((node.lineno, fmt))
    for tree in trees:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            call, span = node.exc, (node.lineno, node.end_lineno)
            name = _name(call)
            if name == "suffixed_err" and len(call.args) >= 3:
                out.append((node.lineno, span, "problem", _fmt(call.args[2], names, node.lineno)))
            elif MESSAGE_CLASSES.search(name) and name != "JSONDecodeError" and len(call.args) >= 3:
                for part, arg in (("context", call.args[0]), ("problem", call.args[2])):
                    out.append((node.lineno, span, part, _fmt(arg, names, node.lineno)))
            elif name == "JSONDecodeError" and call.args:
                out.append((node.lineno, span, "problem", _fmt(call.args[0], names, node.lineno)))
    return [(ln, span, part, " ".join(f.split())) for ln, span, part, f in out if f]


# yaml/reader.py ReaderError.__str__: its two texts ('... #x%04x: %s\n  in "%s", position %d'), first lines
_READER_TEXT = re.compile(r"""^[ \t]*return[ \t]+["']([^"'\n]{8,120}?)\\n""", re.M)
# Lib/json/decoder.py JSONDecodeError.__init__: errmsg = '%s: line %d column %d (char %d)' % (msg, ...)
_JSON_SUFFIX = re.compile(r"""errmsg\s*=\s*'%s(: line %d column %d \(char %d\))'""")
# Lib/tomllib/_parser.py suffixed_err: return TOMLDecodeError(f"{msg} (at {coord_repr(src, pos)})")
_TOML_SUFFIX = re.compile(r"""TOMLDecodeError\(f"\{msg\}( \(at )\{coord_repr""")


def messages(files):
    """(path:line, part, format) of every message, in file order; the JSON and TOML messages with the suffix their
    exception class writes after them."""
    by = {}
    for p, t in files:
        by.setdefault(p, []).append(t)
    json_suffix = next((m.group(1) for t in by.get("json/decoder.py", []) for m in [_JSON_SUFFIX.search(t)] if m), "")
    toml_suffix = next((m.group(1) + "%s)" for t in by.get("tomllib/_parser.py", []) for m in [_TOML_SUFFIX.search(t)]
                        if m), "")
    out = []
    for path, blocks in by.items():
        if path == LIBYAML:
            for i, line in enumerate(blocks[0].splitlines(), 1):
                if line.strip():
                    out.append(("%s:%d" % (path, i), "context" if line.startswith("while ") else "problem",
                                line.strip()))
            continue
        if path == JSON_SO:
            for i, line in enumerate(blocks[0].splitlines(), 1):
                if line.strip():
                    out.append(("%s:%d" % (path, i), "problem", line.strip() + json_suffix))
            continue
        if re.match(GUARD_FILES, path) or path.startswith(USES):
            continue
        suffix = json_suffix if path.startswith("json/") else toml_suffix if path.startswith("tomllib/") else ""
        for line, _, part, fmt in sorted(raised(blocks)):
            out.append(("%s:%d" % (path, line), part, fmt + (suffix if part == "problem" else "")))
        if path == "yaml/reader.py":
            for src in blocks:
                for m in _READER_TEXT.finditer(src):
                    out.append(("%s:%d" % (path, src.count("\n", 0, m.start()) + 1), "problem", m.group(1)))
    return out


# ---------------------------------------------------------------- hyperparameter guards
_GUARD_LINE = re.compile(r"^(?P<ind>[ \t]*)(?:(?:el)?if[ \t]+(?P<if>.+?):[ \t]*(?:#.*)?$|assert[ \t]+(?P<as>.+)$)")
_DEF_LINE = re.compile(r"^(?P<ind>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<fn>\w+)\(")


def _number(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _compared(test):
    """The operands (source) compared with a number literal by an order comparison (<, <=, >, >=) in a test."""
    try:
        tree = ast.parse(test, mode="eval")
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not all(isinstance(o, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                                                        for o in node.ops):
            continue
        operands = [node.left] + list(node.comparators)
        if any(_number(x) for x in operands):
            out += [ast.unparse(x) for x in operands if isinstance(x, (ast.Name, ast.Attribute, ast.Subscript))]
    return sorted(set(out))


def guards(files):
    """[{where, function, line, names}] of each guard line of GUARD_FILES (the file, or its slice's blocks: each guard
    line and the def line above it) that compares a value with a number, in a function that takes the user's values
    (CONSTRUCTORS)."""
    rows, merged = [], {}
    for path, text in files:  # a slice's blocks of one file, each line where the file has it
        if re.match(GUARD_FILES, path):
            lines = merged.setdefault(path, [])
            for i, line in enumerate(text.split("\n")):
                if line.strip():
                    lines += [""] * (i + 1 - len(lines))
                    lines[i] = line
    for path, lines in merged.items():
        defs = []
        for i, line in enumerate(lines, 1):
            d = _DEF_LINE.match(line)
            if d:
                defs = [x for x in defs if len(x[0]) < len(d.group("ind"))] + [(d.group("ind"), d.group("fn"))]
                continue
            g = _GUARD_LINE.match(line)
            if not g:
                continue
            test = g.group("if") or re.split(r",\s*[\"'f]", g.group("as"))[0]
            names = _compared(test)
            fn = next((f for ind, f in reversed(defs) if len(ind) < len(g.group("ind"))), None)
            if names and fn and CONSTRUCTORS.match(fn):
                rows.append({"where": "%s:%d" % (path, i), "function": fn, "line": line.strip(), "names": names})
    return rows


def _self_attr(node):
    return node.attr if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id == "self" else None


def read_uses(path, src):
    """[(line, function, names, text)] of the arithmetic of a guard file that takes a value the user gave: a binary
    operation (+ - * / // ** %) one of whose operands is a parameter of its function (not self) or an attribute
    `self.x` that its class's __init__ assigned from a parameter (`self.eta_min = eta_min`). The text is the source line
    the operation starts on (what a traceback prints for it: CPython 3.11+ prints the line of the failing operation)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    lines, out = src.split("\n"), set()

    def walk(fn, attrs):
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, _BINOPS)):
                continue
            names = sorted({x.id for x in (node.left, node.right) if isinstance(x, ast.Name) and x.id in params} |
                           {"self." + a for a in map(_self_attr, (node.left, node.right)) if a in attrs})
            if names:
                out.add((node.lineno, fn.name, tuple(names), lines[node.lineno - 1].strip()))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            walk(node, set())
        elif isinstance(node, ast.ClassDef):
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            params = {a.arg for a in init.args.args + init.args.kwonlyargs} - {"self"} if init else set()
            attrs = {t.attr for n in ast.walk(init) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and
                     n.value.id in params for t in n.targets if _self_attr(t)} if init else set()
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    walk(f, attrs)
    return sorted(out)


def uses(files):
    """[{where, function, line, names}] of the arithmetic on the user's values of each guard file (read_uses), from the
    file or from the slice's record of that reading (a `uses/<path>` block: line, function, names, text a row)."""
    rows = []
    for path, text in files:
        if path.startswith(USES):
            got = []
            for row in text.split("\n"):
                if row.strip():
                    ln, fn, names, line = row.split("\t", 3)
                    got.append((int(ln), fn, tuple(names.split(",")), line))
            path = path[len(USES):]
        elif re.match(GUARD_FILES, path):
            got = read_uses(path, text)
        else:
            continue
        rows += [{"where": "%s:%d" % (path, ln), "function": fn, "line": line, "names": list(names)}
                 for ln, fn, names, line in got]
    return rows


def build(files, version):
    sites, ids, seen = [], set(), set()
    for where, part, fmt in messages(files):
        if fmt in seen:
            continue
        seen.add(fmt)
        site = {"id": knowgen.unique_id("config." + knowgen.slug(where), ids), "where": where, "level": "raise",
                "part": part, "text": fmt}
        rx, literal = knowgen.printf_to_regex(re.sub(r"%r", "%s", fmt))  # Python's %r: a repr(), a value
        if not knowgen.unanchored(site, rx, literal, NEED):
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "part": part})
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, fmt)
            if part == "context" and site.get("family") and not site.get("fix"):
                # MarkedYAMLError prints the problem on its own line under the context: that line (with its own
                # fix) is the one matched; a context names no problem ('while scanning a simple key')
                site.update({"family": None, "rule": "a context: the problem line printed under it is matched"})
        sites.append(site)
    return {"header": knowgen.header("PyYAML (https://github.com/yaml/pyyaml), omegaconf "
                                     "(https://github.com/omry/omegaconf), CPython json and tomllib "
                                     "(https://github.com/python/cpython), torch.optim and transformers' training "
                                     "arguments (hyperparameter guards)", version, GENERATOR,
                                     "the parsers' error messages (PyYAML's context and problem texts, json's and "
                                     "tomllib's messages with their position suffix) and the number comparisons of "
                                     "the hyperparameter guards; families from the RULES table of the generator"),
            "sites": sites, "guards": guards(files), "uses": uses(files)}


def _record(path, files, out, version):
    """The slice: the statements of the sites, the suffix lines, ReaderError's texts, and each guard line with its
    def line."""
    kept = {s["where"] for s in out["sites"]}
    guard_at = {g["where"] for g in out["guards"]}
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the statements of its message sites and the guard lines it reads,\n"
                "# each as the source has it (=== path @first line).\n" % GENERATOR)
        f.write("#! version %s\n" % version)
        for p, src in files:
            if re.match(GUARD_FILES, p):
                rows = read_uses(p, src)
                if rows:
                    f.write("=== %s%s @1\n%s\n" % (USES, p, "\n".join("%d\t%s\t%s\t%s" % (ln, fn, ",".join(n), line)
                                                                   for ln, fn, n, line in rows)))
            lines = src.split("\n")
            if p in (JSON_SO, LIBYAML):
                f.write("=== %s @1\n%s\n" % (p, src.rstrip("\n")))
                continue
            spans = set()
            if re.match(GUARD_FILES, p):
                for i, line in enumerate(lines, 1):
                    if "%s:%d" % (p, i) in guard_at:
                        spans.add((i, i))
                        for k in range(i - 1, 0, -1):
                            d = _DEF_LINE.match(lines[k - 1])
                            if d and len(d.group("ind")) < len(line) - len(line.lstrip()):
                                spans.add((k, k))
                                break
            else:
                for ln, span, _, _ in raised([src]):
                    if "%s:%d" % (p, ln) in kept:
                        spans.add(span)
                for i, line in enumerate(lines, 1):
                    if re.search(r"^\s*msg = |errmsg = '%s|TOMLDecodeError\(f\"\{msg\}", line) or \
                            (p == "yaml/reader.py" and _READER_TEXT.match(line)):
                        spans.add((i, i))
            for a, b in sorted(spans):
                f.write("=== %s @%d\n%s\n" % (p, a, textwrap.dedent("\n".join(lines[a - 1:b]))
                                               if not re.match(GUARD_FILES, p) else "\n".join(lines[a - 1:b])))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=("pyyaml", "omegaconf", "lib", "torch", "transformers"), extra=[
        ("--more", {"action": "append", "default": [], "help": "another wheel whose optimizers' guards are read "
                    "(timm, bitsandbytes; repeatable)"}),
        ("--record", {"help": "write the slice (the statements of the sites, the guard lines)"})])
    if a.pyyaml:
        files, version = read(a.pyyaml, a.omegaconf, a.lib, a.torch, a.transformers, a.more)
    else:
        files, version = knowgen.read_slice(a.slice)
    out = build(files, version)
    if a.pyyaml:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, out["sites"], of="source")
        if a.record:
            _record(a.record, files, out, version)
    return knowgen.emit("config_messages", out, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
