#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/pylibs_messages.json: what the training-config libraries a script calls
refuse, each message with what to change in that call or config value: timm (create_model's model names and pretrained
tags, the patch embedding's input size, its data / optimizer / scheduler factories), OmegaConf (interpolations, `???`
mandatory values, structured (dataclass) configs and struct mode, type hints, read-only configs) and Hydra (the
primary config and config groups, overrides, defaults lists, instantiate's _target_).

Read from the three wheels (PyPI), never executed (tools/wheelmsgs.py): every `raise X("...")`, `assert ..., "..."`
and logger .error / .warning call of FILES, a message built in a variable first and then raised; besides, the kinds
these libraries raise through a helper (extra_sites):
  - torch's `_assert(cond, "...")` (timm's layers: torch/__init__.py _assert raises AssertionError(message));
  - an exception made but not raised on the spot: OmegaConf's `self._format_and_raise(key=..., cause=ConfigKeyError(
    msg))` and Hydra's `raise MissingConfigException(message=msg, ...)`, the message given as a literal or through a
    name assigned just above (`msg = dedent(f\"\"\"...\"\"\")` too);
  - OmegaConf's `$KEY`, `$FULL_KEY`, `$VALUE`, `$VALUE_TYPE`, `$KEY_TYPE` placeholders, which format_and_raise fills
    (omegaconf/_utils.py: string.Template(msg).safe_substitute(KEY=key, FULL_KEY=full_key, ...)): each is a value.
Each becomes a bounded matcher assigned to a knowledge entry (knowledge/pylibs.toml; each a case of
code.library_error, timm's input-size asserts of usercode.shape_mismatch) by RULES: by its words first, then by the
part of the library that raises it (ctx-*); MSG_FIX gives a message its own meaning and fix, written from the
condition that raises it and the library's documentation. Warnings are context only; a raise no rule assigns is
listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: timm==1.0.31 omegaconf==2.4.0 hydra-core==1.3.2 -d /tmp/w
    pip download --no-deps --only-binary :all: timm==0.9.16 -d /tmp/w   (and timm==0.6.13, omegaconf==2.1.2: one each)
    python tools/gen_pylibs_messages.py --timm /tmp/w/timm-1.0.31-py3-none-any.whl \\
        --omegaconf /tmp/w/omegaconf-2.4.0-py3-none-any.whl --hydra /tmp/w/hydra_core-1.3.2-py3-none-any.whl \\
        --older-timm /tmp/w/timm-0.9.16-py3-none-any.whl --older-timm /tmp/w/timm-0.6.13-py3-none-any.whl \\
        --older-omegaconf /tmp/w/omegaconf-2.1.2-py3-none-any.whl [--record tools/data/pylibs_messages_slice.txt]
    python tools/gen_pylibs_messages.py --slice tools/data/pylibs_messages_slice.txt -o OUT   (the test)

Sources: timm (https://pypi.org/project/timm/, Apache-2.0; https://github.com/huggingface/pytorch-image-models,
timm/models/_*.py, timm/layers/, timm/data/, timm/optim/_optim_factory.py, timm/scheduler/scheduler_factory.py),
omegaconf (https://pypi.org/project/omegaconf/, BSD-3-Clause; https://github.com/omry/omegaconf, omegaconf/*.py),
hydra-core (https://pypi.org/project/hydra-core/, MIT; https://github.com/facebookresearch/hydra, hydra/). The
regenerated table read timm 1.0.31, omegaconf 2.4.0 and hydra-core 1.3.2, and the older timm 0.9.16 and 0.6.13 and
omegaconf 2.1.2 (what most public threads quote: timm <= 0.9 printed "Input image height (%s) doesn't match model
(%s).", 0.6 "Input image size (%s*%s) doesn't match model (%s*%s).").
"""

import ast
import builtins
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_pylibs_messages.py"
DISTS = ("timm", "omegaconf", "hydra")
WHEEL_DIST = {"timm": "timm", "omegaconf": "omegaconf", "hydra": "hydra_core"}
FILES = {
    # (timm <= 0.6: models/factory.py, registry.py, helpers.py, hub.py and models/layers/)
    "timm": r"^timm/(?:models/_[a-z_]+\.py|models/(?:factory|registry|helpers|hub|builder|pretrained)\.py|"
            r"(?:models/)?layers/[a-z_0-9]+\.py|data/[a-z_0-9]+\.py|optim/_?optim_factory\.py|"
            r"scheduler/scheduler_factory\.py)$",
    "omegaconf": r"^omegaconf/[a-z_]+\.py$",
    "hydra": r"^hydra/(?:[a-z_]+\.py|core/[a-z_]+\.py|_internal/[a-z_0-9]+\.py|_internal/instantiate/[a-z_0-9]+\.py|"
             r"_internal/core_plugins/[a-z_]+\.py)$",
}

NEAR = wheelmsgs.NEAR
_TEMPLATE = re.compile(r"\$(?:FULL_KEY|KEY_TYPE|KEY|VALUE_TYPE|VALUE|OBJECT_TYPE|REF_TYPE|MSG)\b")

TIMM_NAMES = (r"^Unknown model \(%s\)$|^Model %s has been removed|^Invalid pretrained tag|has no pretrained cfg registered|"
              r"^No pretrained weights exist for|^Unknown model source|has no model id / path after|has no source prefix "
              r"but looks like|^Model \(%s not found in module")
INPUT_SIZE = (r"^Input (?:image )?(?:height|width|size) \(%s\) (?:doesn't match model|(?:should|must) be divisible by "
              r"patch size)|^Input image size \(%s\*%s\) doesn't match model|^Input patch_embed spatial size|^Conflicting input image sizes")
INTERP = (r"^Interpolation key '%s' not found|^Interpolation resolved to a missing value|^Recursive interpolation "
          r"detected|^Interpolation to parent node detected|^Unsupported interpolation type|^Error resolving key|"
          r"^Unsupported interpolation|^Cannot resolve interpolation")
STRUCT = (r"^Key '%s' not in '%s'|^Key '%s' is not in struct|is incompatible with type hint|^Cannot change read-only "
          r"config|^Merge error: %s is not a subclass of|^Invalid type assigned: |could not be converted to|"
          r"^Key %s \(%s\) is incompatible with|^Cannot assign %s to %s|^Missing key %s|^Key not found: ")

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"should not happen|Please file a bug report|^Unexpected |^Parent type is not|"
                                r"is now a Singleton|not yet available|^Empty path$|^Invalid input\. Supports one of"}),
    # Python's own words (basecontainer.py's operators): any program prints them
    ("python-words", None, {"text": r"^unsupported operand type\(s\)"}),
    # a config group's option not found: the same words name any missing thing in any program's message
    ("generic-words", None, {"where": r"^hydra/", "text": r"^Could not find '%s'$"}),
    ("timm-model-name", "timm.model_name", {"text": TIMM_NAMES}),
    ("timm-input-size", "timm.input_size", {"where": r"^timm/", "text": INPUT_SIZE}),
    ("timm-channels", "timm.usage", {"where": r"^timm/", "text": r"channels|in_chans|input_size\[0\]"}),
    ("omegaconf-missing", "omegaconf.missing", {"text": r"^Missing mandatory value"}),
    ("omegaconf-interpolation", "omegaconf.interpolation", {"where": r"^omegaconf/", "text": INTERP}),
    ("omegaconf-structured", "omegaconf.structured", {"where": r"^omegaconf/", "text": STRUCT}),
    ("hydra-config", "hydra.config", {"where": r"^hydra/", "text": r"Cannot find primary config|^Primary config "
                                      r"(?:directory|module)|^Check that the config directory|^Available options in|^Could not load '%s'|"
                                      r"^Config not found|^Structured config (?:%s )?not found|primary config '%s' "
                                      r"must be|config_path in initialize|Defaults list is missing `_self_`|"
                                      r"^Additional config directory"}),
    ("hydra-override", "hydra.override", {"where": r"^hydra/", "text": r"^Could not override '%s'|^Could not delete|"
                                          r"does not exist\.$|requires --multirun|^Error merging override|"
                                          r"^Multiple values for %s"}),
    ("hydra-instantiate", "hydra.instantiate", {"where": r"^hydra/", "text": r"^Error in call to target|^Error "
                                                r"locating target|^Error loading '%s'|_target_|^Located non-"}),
    ("ctx-timm", "timm.usage", {"level": r"^raise$", "where": r"^timm/(?:models/_(?:factory|builder|registry|hub|"
                                                             r"helpers)|data/|optim/|scheduler/)"}),
    ("ctx-omegaconf", "omegaconf.structured", {"level": r"^raise$", "where": r"^omegaconf/(?:dictconfig|listconfig|"
                                                                             r"basecontainer|nodes)\.py:"}),
    ("ctx-hydra", "hydra.config", {"level": r"^raise$", "where": r"^hydra/_internal/(?:config_loader_impl|"
                                                                 r"defaults_list|config_repository)\.py:"}),
]

_TIMM_DOC = "https://huggingface.co/docs/timm/reference/models"
_OC_DOC = "https://omegaconf.readthedocs.io/en/2.3_branch/"
_HYDRA_DOC = "https://hydra.cc/docs/"
# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^Unknown model \(%s\)$",
     "timm/models/_factory.py create_model(): the model name is not one timm registers (a typo, '-' or '_' where "
     "timm has none, e.g. resnet_18 for resnet18, or an architecture newer than this timm release).",
     ["list the registered names that match and pass one of them: python -c \"import timm; print(timm.list_models("
      "'resnet*'))\" (timm.list_models('<pattern>*'); pretrained ones: timm.list_models(pretrained=True)); a "
      "newer architecture needs pip install -U timm; a Hub model is named 'hf-hub:<org>/<repo>' (" + _TIMM_DOC +
      ")"]),
    (r"^Model %s has been removed",
     "timm/models/_registry.py: the architecture was deprecated and removed from this timm release.",
     ["pick a current name from timm.list_models('<pattern>*'), or pin the older timm release that still has it"]),
    (r"^Invalid pretrained tag|has no pretrained cfg registered|^No pretrained weights exist for",
     "timm/models/_registry.py / _builder.py: the name's pretrained tag (the part after '.') or the pretrained "
     "weights do not exist for this architecture in this timm release.",
     ["list the tags that exist: timm.list_models('<arch>*', pretrained=True) and use one (e.g. "
      "'vit_base_patch16_224.augreg_in21k'), or create_model(..., pretrained=False) for random init"]),
    (r"has no source prefix but looks like|^Unknown model source|has no model id / path after",
     "timm/models/_factory.py: a model name with '/' or ':' is read as a source: 'hf-hub:<org>/<repo>' (the "
     "Hugging Face Hub) or 'local-dir:<path>'; the name given has no valid source prefix.",
     ["write the name as 'hf-hub:<org>/<repo>' or 'local-dir:<path>', or pass a plain timm name from "
      "timm.list_models('<pattern>*')"]),
    (r"^Input (?:image )?(?:height|width) \(%s\) doesn't match model|^Input image size \(%s\*%s\) doesn't match model",
     "timm/layers/patch_embed.py PatchEmbed.forward(): the model (a ViT-style patch embedding) was built for a fixed "
     "img_size (224 for *_224 names) and strict_img_size asserts it; the images given have another size.",
     ["create the model for your image size: timm.create_model(<name>, img_size=<your H>) (or "
      "dynamic_img_size=True), or resize the images to the model's size (transforms.Resize(224)); the expected "
      "size: model.pretrained_cfg['input_size']"]),
    (r"^Input (?:image )?(?:height|width) \(%s\) (?:should|must) be divisible by patch size",
     "timm/layers/patch_embed.py: with dynamic_img_pad off, the image size must be a multiple of the patch size.",
     ["resize or pad the images to a multiple of the patch size, or create_model(..., dynamic_img_pad=True)"]),
    (r"^Conflicting input image sizes",
     "timm/models/_factory.py: create_model was given two different image sizes (img_size= and another in "
     "model_kwargs / pretrained_cfg).",
     ["pass the image size once: img_size=<size> in create_model"]),
    (r"^Interpolation key '%s' not found",
     "omegaconf/base.py: an interpolation ${a.b} is an absolute path from the config's root (not relative to the node "
     "that holds it): the key it names does not exist there (a section renamed, a typo, or a relative path without "
     "the leading '.').",
     ["write the interpolation with the full path from the root of the config, ${<section>.<key>} as the section is "
      "actually called (print(OmegaConf.to_yaml(cfg)) lists them), or a relative one ${.key} / ${..key}; "
      + _OC_DOC + "usage.html#variable-interpolation"]),
    (r"^Interpolation resolved to a missing value",
     "omegaconf/base.py: the interpolation points at a field whose value is `???` (MISSING), never set.",
     ["set the field it points at (in the YAML, on the command line key=value, or in code) before reading it"]),
    (r"^Recursive interpolation detected|^Interpolation to parent node detected",
     "omegaconf/base.py: an interpolation refers to itself or to a node that contains it.",
     ["point the interpolation at a leaf value outside the node that holds it"]),
    (r"^Missing mandatory value",
     "omegaconf: the field is `???` (omegaconf.MISSING): a mandatory value the config declares without a value, and "
     "the code read it before anything set it.",
     ["set the field: in the YAML (key: value), on the command line (key=value with Hydra), or "
      "cfg.key = value before reading it; OmegaConf.missing_keys(cfg) lists every unset one; "
      + _OC_DOC + "usage.html#mandatory-values"]),
    (r"^Key '%s' not in '%s'",
     "omegaconf/dictconfig.py: the config is a structured config (made from a dataclass / attrs class), and a key "
     "that the class does not declare was merged into it or read from it (a key in the YAML that the dataclass "
     "lacks, or a typo).",
     ["declare the key: add a field to the dataclass (<key>: <type> = <default>), or remove / rename the key in the "
      "YAML to one of the declared fields; " + _OC_DOC + "structured_config.html#merging-with-other-configs"]),
    (r"^Key '%s' is not in struct",
     "omegaconf/dictconfig.py: the config is in struct mode (Hydra sets it on every composed config), so a key it "
     "does not already have cannot be read or added.",
     ["add the key to the config file (or the schema); with Hydra append a new key from the command line with "
      "+key=value; or OmegaConf.set_struct(cfg, False) / open_dict(cfg) for code that adds keys; " + _OC_DOC +
      "usage.html#struct-flag"]),
    (r"is incompatible with type hint|could not be converted to",
     "omegaconf: a structured config's field is typed (its dataclass annotation) and the value assigned or merged is "
     "not of that type and cannot be converted (a string for an int, a list for a scalar).",
     ["give the value the field's declared type in the YAML / override, or change the dataclass field's type "
      "annotation"]),
    (r"^Cannot change read-only config",
     "omegaconf: the config was made read-only (OmegaConf.set_readonly(cfg, True), or Hydra's own hydra node).",
     ["change a copy (cfg = OmegaConf.to_container(cfg) or copy.deepcopy), or use with read_write(cfg): ..."]),
    (r"Cannot find primary config",
     "hydra: @hydra.main(config_path=..., config_name=...) or compose() found no config file of that name on its "
     "search path; config_path is relative to the file that declares @hydra.main, not to the working directory.",
     ["make config_path relative to the script (or absolute) and config_name the file's name without .yaml; "
      "python <script> --info searchpath shows where Hydra looks; " + _HYDRA_DOC +
      "tutorials/basic/your_first_app/config_file/"]),
    (r"^Primary config (?:directory|module)|^Check that the config directory",
     "hydra: the config_path given to @hydra.main (or initialize()) does not exist: it is resolved relative to the "
     "file that declares @hydra.main (a directory of another name, or a path meant relative to the working "
     "directory).",
     ["point config_path at the folder that holds the configs, relative to the script that declares @hydra.main "
      "(e.g. config_path='../configs' for a script in src/ and configs at the project root), or absolute; or give "
      "it on the command line: --config-path <folder> (-cp) / --config-dir <folder> (-cd, added to the search "
      "path); python <script> --info searchpath shows where Hydra looks; " + _HYDRA_DOC +
      "advanced/hydra-command-line-flags/"]),
    (r"^Available options in '%s':",
     "hydra: a config group's option (group=option, on the command line or in the defaults list) names no file "
     "<group>/<option>.yaml; Hydra lists the options the group has below this line.",
     ["use one of the options listed under 'Available options in' (the files of that group's folder), or add "
      "<group>/<option>.yaml to the config folder; " + _HYDRA_DOC + "tutorials/basic/your_first_app/config_groups/"]),
    (r"^Could not override '%s'\. To append to your config use",
     "hydra: a command-line override key=value names a key the config does not have (struct mode).",
     ["append it with +key=value (or ++key=value to add or override), or fix the key's name; " + _HYDRA_DOC +
      "advanced/override_grammar/basic/"]),
    (r"^Could not override '%s'\. (?:Did you mean|No match in the defaults list)",
     "hydra: a config-group override group=option names a group not in the primary config's defaults list.",
     ["use the group's exact name (python <script> --help lists the groups), or +group=option to add a group the "
      "defaults list lacks"]),
    (r"^Error in call to target|^Error locating target|^Error loading '%s'",
     "hydra/_internal/instantiate: hydra.utils.instantiate could not import or call the config's _target_ (a module or "
     "class path that is not importable, or the target's __init__ rejected the config's arguments; the cause "
     "follows in the message).",
     ["check the _target_ path for a typo: module and class names are case-sensitive (python -c 'from <module> "
      "import <Name>' must work), and that the config's keys are the target's parameters; the original error is "
      "printed below the message (HYDRA_FULL_ERROR=1 for the whole chain); " + _HYDRA_DOC +
      "advanced/instantiate_objects/overview/"]),
]


def _template(fmt):
    """OmegaConf's string.Template placeholders ($KEY, $FULL_KEY, ...) as values (%s)."""
    return _TEMPLATE.sub("%s", fmt)


def _fmts(node):
    """The lines of a message expression's format (py_format; of `dedent(<message>)` too: Hydra's dedented
    triple-quoted texts), each blank-squashed, those with text: printed, each is a line of its own."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "dedent" and \
            node.args:
        node = node.args[0]
    fmt = knowgen.py_format(node)
    out = [" ".join(ln.split()) for ln in textwrap.dedent(fmt or "").split("\n")]
    return [ln for ln in out if re.search(r"[A-Za-z]{3}", ln.replace("%s", ""))]


def _is_exc(call):
    """An exception class made (`ConfigKeyError(msg)`), or a helper that raises one (OmegaConf's
    `_format_and_raise(msg=...)`, Hydra's `_missing_config_error(msg=...)`)."""
    name = getattr(call.func, "id", None) or getattr(call.func, "attr", None) or ""
    return isinstance(call, ast.Call) and re.search(r"(?:Error|Exception)$|error|raise", name) is not None


def _msg_arg(call):
    """The message argument of an exception's call: its first positional argument, else msg= / message=."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in ("msg", "message")), None)


def extra_sites(srcs):
    """(level, line, format) of the messages of one file's ``srcs`` (the file, or its slice's blocks) that
    wheelmsgs does not read (module docstring): `_assert(cond, msg)`, an exception class called anywhere but
    directly under `raise` with its message (a literal, or a name assigned within NEAR lines above it)."""
    trees = []
    for src in srcs:
        try:
            trees.append(ast.parse(textwrap.dedent(src)))
        except SyntaxError:
            pass
    tree = ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])
    direct = {id(n.exc) for n in ast.walk(tree) if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)}
    assigns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            fmts = _fmts(node.value)
            if fmts:
                assigns.setdefault(node.targets[0].id, []).append((node.lineno, fmts))
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if getattr(node.func, "id", None) == "_assert" and len(node.args) == 2:
            out.update(("raise", node.lineno, f) for f in _fmts(node.args[1]))
            continue
        arg = _msg_arg(node) if _is_exc(node) else None
        if arg is None:
            continue
        if isinstance(arg, ast.Name):
            prior = [(ln, fs) for ln, fs in assigns.get(arg.id, ()) if ln < node.lineno <= ln + NEAR]
            # each assignment of the name above it (Hydra picks one of several texts by branch), each line
            out.update(("raise", ln, f) for ln, fs in prior for f in fs)
            continue
        if id(node) in direct:
            continue  # wheelmsgs reads it
        out.update(("raise", node.lineno, f) for f in _fmts(arg))
    return sorted(out)


_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w")


def _sig(text):
    """(name, [parameter names]) of a function's `def` header as the source has it (its lines up to the body), or
    None."""
    text = textwrap.dedent(text.strip("\n"))
    for src in (text, text + "\n    pass"):
        try:
            node = ast.parse(src).body[0]
        except (SyntaxError, IndexError):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] + \
                [x.arg for x in (a.vararg, a.kwarg) if x is not None]
            return node.name, [n for n in names if n not in ("self", "cls")]
    return None


def headers(src):
    """[(first line, header text)] of the functions of a whole Python file: each `def` line up to its body's first
    line (decorators left out)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    lines = src.splitlines()
    out = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = max(n.lineno, n.body[0].lineno - 1)
            out.append((n.lineno, n.end_lineno, "\n".join(lines[n.lineno - 1:end])))
    return out


def _enclosing(line, heads):
    """The function a site's line is in, read as the slice can read it: the nearest recorded `def` header at or
    above the line ([(first line, text)]) -> (name, params) or None."""
    got = max((h for h in heads if h[0] <= line), default=None)
    return _sig(got[1]) if got else None


def _slice_headers(srcs):
    """[(first line, text)] of the `def` header blocks of one file's slice (blocks padded to their line)."""
    out = []
    for src in srcs:
        body = src.lstrip("\n")
        if _DEF.match(body):
            out.append((len(src) - len(body) + 1, body))
    return out


def with_functions(files, doc):
    """Each assigned site gets the function it is raised in ("func", "params": the parameter names of its `def`,
    self and cls left out), read from the `def` header nearest above it among the headers of the functions that hold
    an assigned site (what the slice records: _keep_lines); a site outside any function gets none. The same reading
    from a wheel and from its slice."""
    by = {}
    for s in doc["sites"]:
        if s.get("family"):
            by.setdefault(wheelmsgs.site_key(s).rsplit(":", 1)[0], []).append(s)
    for path, srcs in wheelmsgs.group(files).items():
        if path not in by:
            continue
        if len(srcs) == 1 and not srcs[0].startswith("\n") and not _DEF.match(srcs[0]):
            # a whole file (a wheel's): the headers of the functions that hold an assigned site
            full = headers(srcs[0])
            lines = [int(wheelmsgs.site_key(s).rsplit(":", 1)[1]) for s in by[path]]
            heads = sorted({(a, t) for a, b, t in full for ln in lines if a <= ln <= b and
                            not any(a < a2 <= ln <= b2 for a2, b2, _ in full)})
        else:
            heads = _slice_headers(srcs)
        for s in by[path]:
            got = _enclosing(int(wheelmsgs.site_key(s).rsplit(":", 1)[1]), heads)
            if got:
                s["func"], s["params"] = got[0], got[1]
    return doc


_RAISE = re.compile(r"\braise[ \t]+(?:builtins\.)?([A-Z]\w{0,60}(?:Error|Exception|Interrupt))\b")


_BUILTIN_EXC = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and
                         issubclass(getattr(builtins, n), BaseException))


def _raised_class(srcs, line):
    """The exception class the statement at ``line`` raises ('raise X(...)'; torch's _assert and a bare `assert`
    raise AssertionError), or None."""
    for src in srcs:
        lines = src.splitlines()
        # the message's line, or the lines above it that open the call ('raise ImportError(' then the f-string)
        for k in range(line, max(0, line - 3), -1):
            text = lines[k - 1] if k <= len(lines) else ""
            m = _RAISE.search(text)
            if m:  # as the traceback names it: IOError / EnvironmentError are OSError
                cls = getattr(builtins, m.group(1), None)
                return cls.__name__ if isinstance(cls, type) else m.group(1)
            if re.match(r"[ \t]*(?:torch\.)?_assert\(|[ \t]*assert\b", text):
                return "AssertionError"
            if k < line and not text.rstrip().endswith("("):
                break
    return None


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, srcs in wheelmsgs.group(files).items():
        if not path.endswith(".py"):
            continue
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        path, older = (m.group(3), "%s %s" % (m.group(1), m.group(2))) if m else (path, None)
        prefix = "pylibs." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "")
        firsts = knowgen.py_first_lines([textwrap.dedent(s) for s in srcs])
        tests = wheelmsgs.asserts_of(srcs)  # (an assert's own test: the fix of a site no MSG_FIX row covers)
        found = [(lvl, int(where.rsplit(":", 1)[1]), fmt, first) for lvl, where, fmt, first in
                 wheelmsgs.sites_of(path, srcs)]
        found += [(lvl, line, fmt, None) for lvl, line, fmt in extra_sites(srcs)]
        for level, line, fmt, first in sorted(found, key=lambda s: (s[1], s[0], s[2])):
            fmt = _template(fmt)
            if fmt in seen:
                continue
            seen.add(fmt)
            first = first or firsts.get(line)
            if path.startswith("omegaconf/") and (not knowgen.specific_enough(fmt, names=False) or not
                                                   wheelmsgs.site_for("", set(), level, "", fmt, [], [],
                                                                      first=first).get("re")):
                # too short to anchor alone ("Key '%s' not in '%s'"), or too few words of its own ("Missing key
                # %s%s"): OmegaConf's exceptions are classes of
                # omegaconf/errors.py, which Python's traceback prints by their qualified name before the message
                first = "omegaconf.errors.%s: " + _template(first or fmt)
            elif path.startswith(("timm/", "hydra/")) and not knowgen.own_enough(fmt):
                # timm raises Python's own exception classes, which the traceback prints before the message
                # ('RuntimeError: Unknown model (x)', 'AssertionError: Input height (736) ...'); a message with fewer
                # than knowgen.OWN_WORDS words / OWN_CHARS characters of its own ('Could not import %s: %s', 'Config file not found:
                # %s') is what any program may print, so it is matched only after the class its statement raises
                cls = _raised_class(srcs, line)
                # (Hydra prints its own CompactHydraException messages bare, without the class or a traceback:
                # hydra/_internal/utils.py run_and_report; Python's built-in classes come with their traceback)
                # (a KeyError prints its message as a repr, in quotes: left as it was)
                if cls and cls != "KeyError" and (path.startswith("timm/") or cls in _BUILTIN_EXC):
                    first = cls + ": " + _template(first or fmt)
            sites.append(wheelmsgs.site_for(prefix, ids, level, "%s:%d" % (path, line), fmt, RULES, MSG_FIX,
                                            older=older, first=first and _template(first), guard=tests.get(line)))
    return {"header": knowgen.header("timm (https://pypi.org/project/timm/), omegaconf "
                                     "(https://pypi.org/project/omegaconf/), hydra-core "
                                     "(https://pypi.org/project/hydra-core/)", version, GENERATOR,
                                     "raise/assert/_assert/logger messages and exceptions made for a helper to raise "
                                     "of timm's model factory, layers, data/optim/scheduler factories, OmegaConf and "
                                     "Hydra; families from the RULES table of the generator; each assigned site's "
                                     "function and its parameter names (func, params)"),
            "sites": sites}


def read(wheels, older=None):
    """([(path, text)], version) of the three wheels, in DISTS' order, and of the older releases ``older``
    ({dist: [wheel, ...]}), whose files are read under 'older/<dist>-<version>/<path>' after them."""
    files, versions, olds = [], [], []
    for dist in DISTS:
        f, v = wheelmsgs.from_wheel(wheels[dist], FILES[dist], WHEEL_DIST[dist])
        files += f
        versions.append(v.split(" (")[0])  # ('<dist> <version>'; the wheel's file name left out)
    for dist in DISTS:
        for wheel in (older or {}).get(dist) or ():
            f, v = wheelmsgs.from_wheel(wheel, FILES[dist], WHEEL_DIST[dist])
            files += [("older/%s-%s/%s" % (dist, v.split()[1], p), src) for p, src in f]
            olds.append(v.split(" (")[0])
    return files, ", ".join(versions) + ("; older: " + ", ".join(olds) if olds else "")


def _keep_lines(files, doc):
    """The extra blocks of the slice: for each assigned site, the statement at its line (extra_sites' kinds are not
    all statements wheelmsgs.statements records: `msg = dedent(...)`, `self._format_and_raise(cause=X(msg))`) and,
    for a message assigned to a name, the statements within NEAR lines below that hand the name to an exception."""
    want = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("family")}
    out = []
    for p, src in files:
        keys = sorted(int(k.rsplit(":", 1)[1]) for k in want if k.rsplit(":", 1)[0] == p)
        if not keys:
            continue
        lines = src.splitlines()
        tree = ast.parse(src)
        stmts = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.With, ast.While, ast.Try))]
        spans = set()
        for ln in keys:
            st = min((n for n in stmts if n.lineno <= ln <= n.end_lineno), key=lambda n: n.end_lineno - n.lineno,
                     default=None)
            if st is None:
                continue
            spans.add((st.lineno, st.end_lineno))
            if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
                name = st.targets[0].id
                for n in stmts:
                    if st.lineno < n.lineno <= st.lineno + NEAR and (any(
                            isinstance(c, ast.Call) and _is_exc(c) and isinstance(_msg_arg(c), ast.Name) and
                            _msg_arg(c).id == name for c in ast.walk(n)) or _names(n, name)):
                        spans.add((n.lineno, n.end_lineno))
        full = headers(src)
        for ln in keys:  # the `def` header of the function that holds the site (with_functions)
            inner = [(a, b, t) for a, b, t in full if a <= ln <= b]
            if inner:
                a, _b, t = max(inner)
                out.append((p, a, textwrap.dedent(t)))
        for a, b in sorted(spans):
            out.append((p, a, textwrap.dedent("\n".join(lines[a - 1:b]))))
    return out


def _names(node, name):
    """Whether the statement ``node`` is `assert ..., <name>` or `<name> += ...` (wheelmsgs' named messages)."""
    return (isinstance(node, ast.Assert) and isinstance(node.msg, ast.Name) and node.msg.id == name) or \
        (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name)


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=DISTS, source_opts={
        "timm": {"help": "the timm wheel"}, "omegaconf": {"help": "the omegaconf wheel"},
        "hydra": {"help": "the hydra-core wheel"}}, extra=[
        ("--older-timm", {"action": "append", "help": "an older timm wheel: the messages it printed that the "
                                                      "current one no longer does (repeatable)"}),
        ("--older-omegaconf", {"action": "append", "help": "an older omegaconf wheel (repeatable)"}),
        ("--older-hydra", {"action": "append", "help": "an older hydra-core wheel (repeatable)"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites)"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        files, version = read({d: getattr(a, d) for d in DISTS}, {d: getattr(a, "older_" + d) for d in DISTS})
    doc = with_functions(files, build(files, version))
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="wheel")
        if a.record:
            # the slice holds each assigned site's statements once: wheelmsgs' own and _keep_lines' blocks, joined
            blocks = {(p, ln): text for p, ln, text in _keep_lines(files, doc)}
            wheelmsgs.write_record(a.record, version, files, lambda k: False, GENERATOR,
                                   [(p, ln, t) for (p, ln), t in sorted(blocks.items())])
    return knowgen.emit("pylibs_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
