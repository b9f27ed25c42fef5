#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/error_docs.json: the error classes a library documents with their cause
and fix (docerrors18, issue 18), read from the pinned wheels (ast, never imported).

flax.errors gives every class a docstring with the cause and the fix, and its message ends with the class's doc URL
(flax/errors.py FlaxError.__init__: '{message} ({error_page}#{module}.{class})'); jax.errors does the same
(jax/_src/errors.py _JAXErrorMixin: '{message}\\nSee {error_page}#{module_name}.{class_name}'). An answer for an
exception of such a class quotes the documented fix and the URL (explain/errordocs.py).

Read per class (a class of an errors / exceptions module whose bases end in an exception class of the file, of Python's
builtins or a name ending in Error / Exception):
  - cause: the docstring's first paragraph (reStructuredText roles and markup folded to plain text);
  - fix: the docstring's sentences that say what to do (explain/advice.py's grammar of remedies, and the phrasings
    documentation uses: 'the best solution is to ...', 'can be fixed by ...', 'Another option is to ...', 'instead');
    and the code lines of its examples that a comment marks as the working form ('# This works.', '# correct');
  - url: the error page the file's exception base class appends to every message ('https://...' in its __init__),
    '#<module>.<Class>' after it (the module the class is exported from: a `_module_name` of the base, else the file's).
A class whose docstring gives no fix is counted, not kept. The family comes from the library (FAMILY: the jax
ecosystem's refusals are jax.usage, jax.errors' tracer classes jax.tracer, huggingface_hub's transformers.hub,
datasets' datasets.usage).

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.12 flax==0.12.12 jax==0.12.0.1 optax==0.2.8 \\
        orbax-checkpoint==0.12.8 equinox==0.13.8 huggingface_hub==2.4.0 datasets==5.2.0 omegaconf==2.4.0 \\
        linear_operator==0.6.1 botorch==0.18.1 peft==0.21.2 triton==3.9.0 pydantic==2.14.4 -d /tmp/w
    (the packages whose exception classes the seen sets name, measured: only flax's and jax's docstrings give a fix)
    python tools/gen_error_docs.py --wheel /tmp/w/flax-0.12.12-py3-none-any.whl --wheel ... \\
        [--record tools/data/error_docs_slice.txt] [-o OUT]
    python tools/gen_error_docs.py --slice tools/data/error_docs_slice.txt -o OUT   (the test)

Sources: flax (https://github.com/google/flax, Apache-2.0), jax (https://github.com/jax-ml/jax, Apache-2.0), optax,
orbax, equinox, huggingface_hub, datasets (their wheels on PyPI).
"""

import argparse
import ast
import json
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import knowgen  # noqa: E402
from gen_trailers import parse  # noqa: E402  (a file in newer syntax than this interpreter's)

GENERATOR = "tools/gen_error_docs.py"
NAME = "error_docs"
# the modules that define a package's exception classes
FILES = re.compile(r"^[a-z_]{1,40}/(?:[\w/]{0,120}/)?_?(?:errors?|exceptions|exc)\.py$")
# the family of a library's documented refusals (the package's import name -> knowledge entry)
FAMILY = {"flax": "jax.usage", "jax": "jax.usage", "optax": "jax.usage", "orbax": "jax.usage",
          "equinox": "jax.usage", "huggingface_hub": "transformers.hub", "datasets": "datasets.usage"}
# jax.errors' classes about traced values (jax.tracer: the job's own code uses a tracer as a concrete value)
TRACER = re.compile(r"^jax\.errors\.(?:Concretization|Tracer|NonConcrete|UnexpectedTracer|KeyReuse)")
_BUILTIN_EXC = {n for n in dir(__builtins__) if n.endswith(("Error", "Exception"))} if isinstance(
    __builtins__, dict) is False else {n for n in __builtins__ if n.endswith(("Error", "Exception"))}

# documentation's own phrasings of a fix (besides advice.py's remedies)
_DOC_FIX = re.compile(r"\b(?:the (?:best |simplest |usual )?(?:solution|fix|workaround|way)\b[^.]{0,60}?\bis(?: probably)? "
                      r"to|can (?:easily |often )?be (?:fixed|avoided|resolved|solved) by|another option is to|"
                      r"to (?:fix|avoid|resolve) this(?: error| issue)?,|instead\b|you should|you (?:can|need to|must) "
                      r"(?:use|pass|set|call|add|mark|specify|make|wrap|provide|either))", re.I)
_MORE = re.compile(r"\b(?:for more (?:explanation|information|details|on)|to understand more|you may want to read|"
                   r"see the documentation|read more)\b", re.I)
_NUMBERED = re.compile(r"\s\d{1,2}\.$")  # an enumerated list's next number glued to the sentence before it
_CUT = re.compile(r"\b(?:can|use|to|the|a|of|with|as|by|following|this|like|either|example|instance|below)$", re.I)
# a sentence about when the error is raised or that introduces an example, not a fix
_NOT_FIX = re.compile(r"\b(?:raises?|is raised|the following example|for instance, when)\b", re.I)
# the text right after an example's code that fixes that example: 'In this case, you can fix the issue by using
# jax.numpy.sin in place of numpy.sin', 'This can be fixed by replacing it with `jnp.minimum`' (jax/_src/errors.py):
# the example's own call, which the user's code need not have (review18)
_ABOUT_EXAMPLE = re.compile(r"^In this (?:case|example)\b|\breplac(?:e|ing) (?:it|this|them) with\b|"
                            r"\bin place of\b", re.I)
# an enumerated list's item marker, with a reStructuredText line block after it ('2. | The collection ...')
_ITEM = re.compile(r"^\d{1,2}\.\s{1,4}(?:\|\s{0,4})?(?=\S)")
_WORKS = re.compile(r"#\s*(?:this |that )?(?:works|is correct|correct|ok|good|fixed|right)\b", re.I)
_ROLE = re.compile(r":(?:[a-z]{1,12}:)?[a-z]{1,12}:`(?:[^`<\n]{0,80}<)?([^`>\n]{1,120})>?`")
_LINK = re.compile(r"`([^`<\n]{1,120}?)\s*<[^>\n]{1,300}>`_{1,2}")


def plain(text):
    """reStructuredText folded to plain text: roles (:class:`x` -> x), links, ``literal`` -> `literal`."""
    text = _ROLE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    return text.replace("``", "`")


def _paragraphs(doc, after_code=None):
    """(prose paragraphs, code lines) of a docstring: a paragraph that ends with '::' or a '>>>' line starts code.
    ``after_code``: a set that gets the index of each paragraph that follows an example's code."""
    import inspect

    doc = inspect.cleandoc(doc)
    paras, code, cur, in_code, code_indent = [], [], [], False, 0
    fenced, had_code = False, False
    after = after_code if after_code is not None else set()
    for ln in doc.split("\n"):
        indent = len(ln) - len(ln.lstrip())
        s = ln.strip()
        if _ITEM.match(s):  # an enumerated list's next item ('2. | The collection is empty ...'): its own paragraph
            if cur:
                paras.append(" ".join(cur))
                cur = []
            s = _ITEM.sub("", s)
        if s.startswith("```"):  # (a Markdown docstring's code fence: huggingface_hub's)
            if cur:
                paras.append(" ".join(cur))
                cur = []
            fenced = not fenced
            continue
        if fenced:
            if s:
                code.append(s)
                had_code = True
            continue
        if s.startswith("| ") or s == "|":  # (reStructuredText's line block)
            s = s[1:].strip()
        if in_code:
            if s and indent <= code_indent and not s.startswith((">>>", "...")):
                in_code = False
            else:
                if s:
                    code.append(s)
                    had_code = True
                continue
        if s.startswith(">>>"):
            if cur:
                paras.append(" ".join(cur))
                cur = []
            code.append(s)
            had_code = True
            in_code, code_indent = True, indent - 1
            continue
        if not s:
            if cur:
                paras.append(" ".join(cur))
                cur = []
            continue
        if not cur and had_code:  # the first prose after an example's code
            after.add(len(paras))
            had_code = False
        cur.append(s)
        if s.endswith("::"):
            paras.append(" ".join(cur)[:-1])
            cur = []
            in_code, code_indent = True, indent
    if cur:
        paras.append(" ".join(cur))
    return [plain(p) for p in paras], code


def _sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(])", text) if s.strip()]


def fixes(doc):
    """The fix sentences and the working code lines of a docstring."""
    from gpudoctor.explain import advice

    after = set()
    paras, code = _paragraphs(doc, after)
    out = []
    for i, p in enumerate(paras):
        if i == 0 and len(paras) > 1:
            continue
        if p.lower().startswith(("examples", "example", "for example")) and len(p) < 20:
            continue
        for s in _sentences(p):
            if len(s) > 400 or s.lower().startswith(("this error occurs", "this error is raised")):
                continue
            if i in after and _ABOUT_EXAMPLE.search(s):
                continue  # the fix of the example just shown (its own call), not of the user's code (review18)
            s = _NUMBERED.sub("", s).strip().rstrip(":").rstrip()
            if _MORE.search(s) or not s[:1].isupper() and s[:1] not in "`(" or _CUT.search(s) or _NOT_FIX.search(s):
                continue  # where to read more, a fragment, or a sentence that introduces the example after it
            said = any(k == "remedy" for k, _ in advice.find(s)) or _DOC_FIX.search(s)
            if said and s not in out:
                out.append(s + ("" if s.endswith((".", "?", ")")) else "."))
    for c in code:
        if _WORKS.search(c):
            line = c.lstrip(">. ").strip()
            if line and line not in out:
                out.append(line)
    return out[:4]


def _exception_classes(tree):
    """{name: ClassDef} of the exception classes of a module (bases resolved within the file)."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    exc = {}

    def is_exc(name, seen=()):
        if name in exc:
            return exc[name]
        if name in _BUILTIN_EXC or name.endswith(("Error", "Exception")) and name not in classes:
            return True
        node = classes.get(name)
        if node is None or name in seen:
            return False
        got = any(is_exc(ast.unparse(b).rsplit(".", 1)[-1], seen + (name,)) for b in node.bases)
        exc[name] = got
        return got

    return {n: c for n, c in classes.items() if is_exc(n)}


def _page(tree):
    """(page URL, module name) the file's exception base appends to every message, or (None, None)."""
    for node in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        strings, module = [], None
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.startswith("https://") \
                    and "error" in sub.value.lower():
                strings.append(sub.value)
            if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_module_name"
                                                   for t in sub.targets) and isinstance(sub.value, ast.Constant):
                module = sub.value.value
        if strings:
            return strings[0], module
    return None, None


def _first(paras):
    """The docstring's first paragraph, with the next ones while it ends in the middle of a sentence."""
    out = []
    for p in paras[:3]:
        out.append(p)
        if p.rstrip().endswith((".", "!", "?", ":")):
            break
    return " ".join(" ".join(out).split()).rstrip(":")[:600]


def read_file(pkg, path, src):
    """[row] of one errors module's documented classes, and (classes, documented) counts."""
    tree = parse(src)
    classes = _exception_classes(tree)
    page, module = _page(tree)
    mod = module or path[:-3].replace("/", ".").replace("._src.", ".").replace("._", ".").rstrip(".")
    if mod.endswith(".__init__"):
        mod = mod[:-len(".__init__")]
    rows, documented = [], 0
    for name, node in classes.items():
        doc = ast.get_docstring(node, clean=False)
        if not doc or len(doc.split()) < 8:
            continue
        documented += 1
        fx = fixes(doc)
        if not fx:
            continue
        paras, _ = _paragraphs(doc)
        full = "%s.%s" % (mod, name)
        fam = "jax.tracer" if TRACER.match(full) else FAMILY.get(pkg, "code.library_error")
        rows.append({"class": full, "name": name, "package": pkg, "file": path,
                     "cause": _first(paras),
                     "fix": [" ".join(f.split())[:400] for f in fx],
                     "url": ("%s#%s" % (page, full)) if page else None, "family": fam})
    return rows, len(classes), documented


def reduced(src):
    """What the slice keeps of an errors module: each class's header, docstring, class-level assignments and
    __init__ (where a base appends its error page), unparsed."""
    out = []
    for node in parse(src).body:
        if not isinstance(node, ast.ClassDef):
            continue
        body = [st for st in node.body if isinstance(st, ast.Assign) or
                isinstance(st, ast.FunctionDef) and st.name == "__init__" or
                st is node.body[0] and isinstance(st, ast.Expr) and isinstance(getattr(st, "value", None), ast.Constant)]
        out.append(ast.unparse(ast.ClassDef(name=node.name, bases=node.bases, keywords=node.keywords,
                                            body=body or [ast.Pass()], decorator_list=[], type_params=[])))
    return "\n\n".join(out) + "\n"


def _wheel_files(path):
    base = os.path.basename(path)
    dist, ver = base.split("-")[0], base.split("-")[1]
    with zipfile.ZipFile(path) as z:
        return dist, ver, [(n, z.read(n).decode("utf-8")) for n in sorted(z.namelist()) if FILES.match(n) and
                           "/test" not in n]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", action="append", default=[])
    ap.add_argument("--slice")
    ap.add_argument("--record")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.slice) == bool(a.wheel):
        ap.error("give --wheel or --slice")
    files = []  # (dist, version, path, text)
    if a.slice:
        with open(a.slice) as f:
            parts = re.split(r"^#@@ file (\S+) (\S+) (\S+)\n", f.read(), flags=re.M)
        for i in range(1, len(parts) - 3, 4):
            files.append((parts[i], parts[i + 1], parts[i + 2], parts[i + 3]))
    else:
        for w in a.wheel:
            dist, ver, fs = _wheel_files(w)
            files += [(dist, ver, p, t) for p, t in fs]
    rows, counts = [], {}
    for dist, ver, path, text in files:
        pkg = path.split("/")[0]
        got, n, documented = read_file(pkg, path, text)
        c = counts.setdefault(dist, {"version": ver, "files": 0, "classes": 0, "documented": 0, "with_fix": 0})
        c["files"] += 1
        c["classes"] += n
        c["documented"] += documented
        c["with_fix"] += len(got)
        rows += got
    if a.record:
        with open(a.record, "w") as f:
            f.write("# recorded by %s: the errors modules read, for the regeneration test\n" % GENERATOR)
            for dist, ver, path, text in files:
                f.write("#@@ file %s %s %s\n%s" % (dist, ver, path, reduced(text)))
    source = ", ".join("%s %s" % (d, c["version"]) for d, c in sorted(counts.items()))
    version = "%d errors modules of %d wheels" % (len(files), len(counts))
    doc = {"header": knowgen.header(source, version, GENERATOR,
                                    "documented error classes: cause, fix and doc URL of each"),
           "sites": [],  # (no matcher of its own: explain/errordocs.py reads the classes)
           "counts": counts, "classes": rows}
    path = a.out or knowgen.out_path(NAME)
    with knowgen.open_write(path) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("%s: %d documented classes with a fix (%s)" % (path, len(rows), ", ".join(
        "%s %d/%d/%d" % (d, c["with_fix"], c["documented"], c["classes"]) for d, c in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
