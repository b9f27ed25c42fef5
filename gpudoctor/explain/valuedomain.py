"""The value a message refused, the domain it must lie in, and the closest value in it (explain-textfix31, issue 18).

choices.py reads a refused name beside a list of names; argedit.py a refused command-line option. This module reads
the two shapes they leave:

- pydantic's ValidationError (the models of vLLM, DeepSpeed, Lightning's and many training scripts' configs). pydantic
  prints each error as its location and then its message with the type and the input
  (pydantic-core src/errors/validation_exception.rs, https://github.com/pydantic/pydantic-core):

      optim.warmup_ratio
        Input should be less than or equal to 1 [type=less_than_equal, input_value=1.5, input_type=float]

  Each type's message template comes from pydantic-core itself (tools/gen_pydantic_errors.py ->
  generated/pydantic_errors.json: list_all_errors()); the template is turned into a bounded matcher that gives the
  domain's values ('literal_error' / 'enum': "Input should be 'bf16', 'fp16' or 'fp32'") or bound ('greater_than' ...
  'less_than_equal', 'multiple_of'), or says the type, the missing key or the forbidden key.
- a numeric range in the message's own words: "dropout probability has to be between 0 and 1, but got 1.5"
  (torch/nn/modules/dropout.py), "Expected float between 0 and 1 pct_start, but got 1.5"
  (torch/optim/lr_scheduler.py OneCycleLR), "X must be in [a, b], got c", "X must be >= a, got c",
  "X must be a positive integer, got c".

The edit names the setting (the config key pydantic's location gives, or the name the message gives), the value that
was given, the domain, and the closest value in it: the listed value closest to the given one (choices.closest:
difflib), or the bound a value past it is clamped to (and, for a value between 2 and 100 against [0, 1], the same
value read as a percent). It is written first among the root's first cause's fix lines; the root, its family and its
verdict never change. Values are untrusted log text: only plain names and numbers reach a fix line.
"""

import re

from gpudoctor.explain import choices, knowledge

MAX_MORE = 4000
MAX_ERRORS = 4
_NAME = re.compile(r"^[\w./:+\[\]-]{1,80}$")
_NUM = r"-?(?:\d{1,12}(?:\.\d{0,12})?|\.\d{1,12})(?:[eE][-+]?\d{1,3})?"
_NUMRX = re.compile(r"^%s$" % _NUM)
# pydantic's detail line: '<message> [type=<type>, input_value=<repr>, input_type=<name>]'
_DETAIL = re.compile(r"^(?P<msg>[^\[\n]{1,400}?) \[type=(?P<type>\w{1,60}), input_value=(?P<value>[^\n]{0,200}?), "
                     r"input_type=(?P<itype>\w{1,60})\]$")
# the numeric ranges messages state in words (each names the value it got)
_RANGES = (
    # torch/nn/modules/dropout.py: "dropout probability has to be between 0 and 1, but got {p}"; OneCycleLR:
    # "Expected float between 0 and 1 pct_start, but got {pct_start}"
    re.compile(r"(?i)(?:(?P<what>[\w. ]{1,60}?) (?:has to|must|should) be|Expected \w{1,20}) between (?P<lo>%s) and "
               r"(?P<hi>%s)(?: (?P<name>\w{1,40}))?,? (?:but )?(?:got|received|is|found) (?P<got>%s)\b"
               % (_NUM, _NUM, _NUM)),
    # 'X must be in [a, b], got c' / 'in the range (a, b]' (a bracket says whether the bound is in the domain)
    re.compile(r"(?i)(?P<name>\w{1,40})`?(?: \(?=? ?[^\s()]{0,40}\)?)? (?:must|should|has to) be (?:in|within) "
               r"(?:the (?:range|interval) )?(?P<lb>[\[(])(?P<lo>%s), ?(?P<hi>%s)(?P<hb>[\])])[,;:.]? (?:but )?"
               r"(?:got|received|is|was|found)(?: value)?:? `?(?P<got>%s)\b" % (_NUM, _NUM, _NUM)),
    # 'X must be >= a, got c' / 'X should be > 0 but got c'
    re.compile(r"(?i)(?P<name>\w{1,40})`? (?:must|should|has to) be (?P<op>>=|<=|>|<) ?(?P<bound>%s)[,;:.]? (?:but )?"
               r"(?:got|received|is|was|found)(?: value)?:? `?(?P<got>%s)\b" % (_NUM, _NUM)),
    # 'X must be a positive integer, got c' / 'a non-negative integer but got c'
    re.compile(r"(?i)(?P<name>\w{1,40})`? (?:must|should|has to) be an? (?P<sign>positive|non-negative|nonnegative) "
               r"(?P<kind>integer|int|number|float|value)[,;:.]? (?:but )?(?:got|received|is|was|found)(?: value)?:? "
               r"`?(?P<got>%s)\b" % _NUM),
)


def _fmt(x):
    """A number as a person writes it: 1 for 1.0, 0.015 for 0.015000000000000001."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return ("%.6g" % x)


_TEMPLATES = None


def _templates():
    """{type: (compiled matcher of its message, domain kind)} from generated/pydantic_errors.json."""
    global _TEMPLATES
    if _TEMPLATES is None:
        out = {}
        for t, row in (knowledge.generated_table("pydantic_errors").get("types") or {}).items():
            parts = re.split(r"\{(\w{1,40})\}", row["template"])
            rx = "".join(re.escape(p) if i % 2 == 0 else "(?P<%s>[^\\n\\[]{0,300}?)" % p for i, p in enumerate(parts))
            try:
                out[t] = (re.compile("^%s$" % rx), row["domain"])
            except re.error:
                continue
        _TEMPLATES = out
    return _TEMPLATES


def _value(raw):
    """The given value of pydantic's input_value (a repr): a name or a number, else None."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        raw = raw[1:-1]
    return raw if _NAME.match(raw) else None


def _clamp_line(key, got, lo=None, hi=None, lo_open=False, hi_open=False, kind="value", integer=False):
    """The fix line of a number outside a range: the domain, the given value, and the closest value in it."""
    g = float(got)
    dom = []
    if lo is not None:
        dom.append("%s %s" % (">" if lo_open else ">=", _fmt(lo)))
    if hi is not None:
        dom.append("%s %s" % ("<" if hi_open else "<=", _fmt(hi)))
    if integer and "integer" not in kind:
        dom.append("an integer")
    domain = " and ".join(dom)
    near = []
    if lo is not None and g < lo or (lo_open and lo is not None and g == lo):
        if g < 0 <= lo and (hi is None or -g <= hi) and (-g > lo or not lo_open and -g >= lo):
            near.append("%s (the value without its sign)" % _fmt(-g))
        if not lo_open:
            near.append(_fmt(lo))
    if hi is not None and g > hi or (hi_open and hi is not None and g == hi):
        if lo is not None and hi == 1 and lo <= 0 and 2 <= g <= 100:
            near.append("%s (%s read as a percent)" % (_fmt(g / 100.0), _fmt(g)))
        if not hi_open:
            near.append("%s (the bound)" % _fmt(hi))
    if integer and g != int(g) and not near:
        near.append(_fmt(round(g)))
    line = "%s: a %s %s (the message refuses %s" % (key, kind, domain, _fmt(got))
    if near:
        line += "; the closest value it accepts: %s" % ", or ".join(near)
    return line + ")"


def pydantic_lines(more, model=None):
    """Fix lines for the errors of a pydantic ValidationError's lines after its first ('<loc>' then '  <message>
    [type=..., input_value=..., input_type=...]')."""
    tps = _templates()
    if not tps or not more:
        return []
    lines = [x.strip() for x in more[:MAX_MORE].split("\n")]
    out = []
    where = " of %s" % model if model and _NAME.match(model) else ""
    for i in range(1, len(lines)):
        m = _DETAIL.match(lines[i])
        if not m or m.group("type") not in tps:
            continue
        loc = lines[i - 1]
        if not _NAME.match(loc) or loc.startswith("For further"):
            continue
        rx, dom = tps[m.group("type")]
        t = rx.match(m.group("msg"))
        if not t:
            continue
        raw = m.group("value")
        got = _value(raw)
        key = "%s (the config key%s)" % (loc, where)
        line = None
        if dom == "values":
            listed = re.findall(r"'([^']{1,64})'", t.group("expected")) or \
                [x.strip() for x in re.split(r",| or ", t.group("expected")) if x.strip()]
            listed = [x for x in listed if _NAME.match(x)][:choices.MAX_ITEMS]
            if got is None or not listed:
                continue
            # choices.closest (difflib >= 0.75), else argedit's (>= 0.6: 'bf16' -> 'bfloat16', as its argparse edit)
            from gpudoctor.explain.argedit import closest as _near

            best = choices.closest(got, listed) or next(iter(_near(got, listed, 1)), None)
            shown = ", ".join("'%s'" % x for x in listed[:8]) + (", ..." if len(listed) > 8 else "")
            if best:
                line = "%s: '%s' (the config key%s; the message refuses '%s' and accepts %s: '%s' is the one " \
                       "closest to it)" % (loc, best, where, got, shown, best)
            else:
                line = "%s: one of %s (the message refuses '%s')" % (key, shown, got)
        elif dom in ("gt", "ge", "lt", "le"):
            b = t.groupdict().get(dom) or ""
            if not (got and _NUMRX.match(got) and _NUMRX.match(b.strip())):
                continue
            b = float(b)
            line = _clamp_line(key, got, **({"gt": {"lo": b, "lo_open": True}, "ge": {"lo": b},
                                              "lt": {"hi": b, "hi_open": True}, "le": {"hi": b}}[dom]))
        elif dom == "multiple_of":
            mo = (t.group("multiple_of") or "").strip()
            if not (got and _NUMRX.match(got) and _NUMRX.match(mo) and float(mo) > 0):
                continue
            k = float(mo)
            lo_m, hi_m = (float(got) // k) * k, (float(got) // k + 1) * k
            line = "%s: a multiple of %s (the message refuses %s; the closest: %s or %s)" % (
                key, _fmt(k), _fmt(got), _fmt(lo_m), _fmt(hi_m))
        elif dom in ("int", "float", "bool"):
            shown = "'%s'" % got if got else "the value given"
            line = "%s: %s (the message refuses %s%s)" % (
                key, {"int": "an integer", "float": "a number", "bool": "true or false (or 1 / 0)"}[dom], shown,
                "; %s is the integer closest to it" % _fmt(round(float(got)))
                if dom == "int" and got and _NUMRX.match(got) else "")
        elif dom == "missing":
            line = "%s: set it; the config gives no value for it (pydantic: Field required)" % key
        elif dom == "extra":
            line = ("%s: remove the key or rename it to one the model declares; the model does not accept it "
                    "(pydantic: Extra inputs are not permitted)" % key)
        if line and line not in out:
            out.append(line)
        if len(out) >= MAX_ERRORS:
            break
    return out


def range_line(msg):
    """The fix line of a number the message refuses against a range it states in words, or None."""
    msg = (msg or "")[:choices.MAX_MSG]
    for i, rx in enumerate(_RANGES):
        m = rx.search(msg)
        if not m:
            continue
        d = m.groupdict()
        name = d.get("name") or (d.get("what") or "").strip() or "the value"
        got = d["got"]
        if i == 0:
            lo, hi = float(d["lo"]), float(d["hi"])
            if lo <= float(got) <= hi:
                return None
            return _clamp_line(name, got, lo=lo, hi=hi)
        if i == 1:
            lo, hi = float(d["lo"]), float(d["hi"])
            return _clamp_line(name, got, lo=lo, hi=hi, lo_open=d["lb"] == "(", hi_open=d["hb"] == ")")
        if i == 2:
            b, op = float(d["bound"]), d["op"]
            kw = {">=": {"lo": b}, ">": {"lo": b, "lo_open": True}, "<=": {"hi": b}, "<": {"hi": b, "hi_open": True}}
            return _clamp_line(name, got, **kw[op])
        integer = d["kind"].lower() in ("integer", "int")
        positive = d["sign"].lower() == "positive"
        return _clamp_line(name, got, lo=(1 if integer else 0) if positive else 0,
                           lo_open=positive and not integer, integer=integer,
                           kind="%s %s" % (d["sign"].lower(), "integer" if integer else "number"))
    return None


# torch's own parsing of environment variables (each site cited; values tried with torch 2.13.0+cpu:
# fixtures/recorded/explain-textfix31/torch_env_values_probe.txt)
# c10/util/env.cpp check_env: "Ignoring invalid value for boolean flag NAME: VALUE" + "valid values are 0 or 1."
# (torch 2.13 prints no blank between VALUE and 'valid'); torch/csrc/utils/cpp_stacktraces.cpp (older releases):
# "ignoring invalid value for TORCH_SHOW_CPP_STACKTRACES: VALUE valid values are 0 or 1."
_ENV_FLAG = re.compile(r"(?i)ignoring invalid value for (?:boolean flag )?(?P<name>[A-Z][A-Z0-9_]{2,80}): "
                       r"(?P<value>[^\s]{0,80}?) ?valid values are 0 or 1")
# aten/src/ATen/native/DispatchStub.cpp compute_cpu_capability: "ignoring invalid value for ATEN_CPU_CAPABILITY: VALUE"
# (accepted, case-sensitive, on x86-64: default, avx2, avx512; vsx / zvector / sve256 only in those builds)
_ENV_WORD = re.compile(r"(?i)ignoring invalid value for (?P<name>[A-Z][A-Z0-9_]{2,80}): (?P<value>[\w.-]{1,80})")
_ENV_WORDS = {"ATEN_CPU_CAPABILITY": ["default", "avx2", "avx512"]}
# c10/util/Logging.cpp: "`TORCH_CPP_LOG_LEVEL` environment variable cannot be parsed. Valid values are `INFO`,
# `WARNING`, `ERROR`, and `FATAL` or their numerical equivalents `0`, `1`, `2`, and `3`." (no value printed)
_ENV_LIST = re.compile(r"`(?P<name>[A-Z][A-Z0-9_]{2,80})` environment variable cannot be parsed\. Valid values are "
                       r"(?P<rest>[^\n]{1,300})")
# torch/csrc/distributed/c10d/Utils.hpp getCvarBool / getCvarInt: TORCH_CHECK(false, "Invalid value for environment
# variable: " + name): a flag takes y, yes, 1, t, true / n, no, 0, f, false (any case); an int std::stoi's digits
_ENV_CVAR = re.compile(r"Invalid value for environment variable: (?P<name>[A-Z][A-Z0-9_]{2,80})\b")
# NCCL src/misc/param.cc ncclLoadParam: 'INFO(NCCL_ALL, "Invalid value %s for %s, using default %lld.", ...)' when
# strtoll sets errno (2.28.9 on the H200: 99999999999999999999 for NCCL_MIN_NCHANNELS; a word such as 4MB is read
# as its leading number, 'NCCL_BUFFSIZE set by environment to 4.'); https://github.com/NVIDIA/nccl/blob/master/src/
# misc/param.cc
_NCCL_PARAM = re.compile(r"Invalid value (?P<value>[^\s]{1,80}) for (?P<name>NCCL_[A-Z0-9_]{2,80}), using default "
                         r"(?P<deft>-?\d{1,20})\.")
_TRUE = {"true", "yes", "on", "y", "t", "enable", "enabled"}
_FALSE = {"false", "no", "off", "n", "f", "disable", "disabled"}


def env_line(text):
    """The fix line of an environment variable torch refused or ignored, naming the variable, the value given, the
    values accepted and the closest one; None when the text is none of torch's sites."""
    text = (text or "")[:choices.MAX_MSG]
    m = _ENV_FLAG.search(text)
    if m:
        name, v = m.group("name"), m.group("value")
        shown = v if _NAME.match(v or "") else None
        want = "1" if (shown or "").lower() in _TRUE else "0" if (shown or "").lower() in _FALSE else None
        return ("export %s=%s (the environment variable %s is a 0/1 flag to torch (c10::utils::check_env), which "
                "ignored %s%s)" % (name, want or "1", name, "'%s'" % shown if shown else "its value",
                                   "; '%s' means %s" % (shown, want) if want else ": 1 turns it on, 0 off"))
    m = _ENV_LIST.search(text)
    if m:
        name = m.group("name")
        listed = [x for x in re.findall(r"`([\w.-]{1,20})`", m.group("rest")) if _NAME.match(x)]
        if listed:
            return ("export %s=%s (the environment variable's value is none of %s; torch ignored it)"
                    % (name, listed[0], ", ".join(listed)))
    m = _ENV_WORD.search(text)
    if m and m.group("name") in _ENV_WORDS:
        name, v, ok = m.group("name"), m.group("value"), _ENV_WORDS[m.group("name")]
        best = choices.closest(v, ok)
        return ("export %s=%s (the environment variable is none of %s on x86-64 (lower case); torch ignored '%s'%s)"
                % (name, best or ok[0], ", ".join(ok), v, "; '%s' is the one closest to it" % best if best else
                   ", or unset it"))
    m = _NCCL_PARAM.search(text)
    if m:
        name, v, d = m.group("name"), m.group("value"), m.group("deft")
        shown = "'%s'" % v if _NAME.match(v) else "its value"
        return ("unset %s, or give it a decimal integer within int64 (NCCL read %s as no number it can hold and "
                "used its default %s%s)" % (name, shown, d, ", the value NCCL chooses itself" if d.startswith("-")
                                            else ""))
    m = _ENV_CVAR.search(text)
    if m:
        name = m.group("name")
        return ("export %s=1 (or 0; or unset it): torch's process group reads %s as a flag (y, yes, 1, t, true / n, "
                "no, 0, f, false, any case) or, for a count, an integer, and refused its value" % (name, name))
    return None


def fill_notes(notes):
    """The edit of torch.env_value_ignored's warning notes (analyze.analyze's notes)."""
    for n in notes:
        if n.get("id") == "torch.env_value_ignored" or "using default" in (n.get("text") or ""):
            line = env_line(n.get("text"))
            if line:
                n["fix"] = line


# OmegaConf's node validation (omegaconf/nodes.py, 2.4.0: IntegerNode / FloatNode / PathNode "Value '$VALUE' of type
# '$VALUE_TYPE' could not be converted to Integer", BooleanNode "Value '$VALUE' is not a valid bool (type
# $VALUE_TYPE)", EnumNode "Invalid value '$VALUE', expected one of [$OPTIONS]"), and the key format_and_raise prints
# under it (omegaconf/_utils.py: "    full_key: $FULL_KEY"); https://github.com/omry/omegaconf/blob/master/omegaconf/
# nodes.py
_OC_CONVERT = re.compile(r"^Value '(?P<v>[^'\n]{0,80})' of type '\w{1,40}' could not be converted to "
                         r"(?P<t>Integer|Float)$")
_OC_BOOL = re.compile(r"^Value '(?P<v>[^'\n]{0,80})' is not a valid bool \(type \w{1,40}\)$")
_OC_ENUM = re.compile(r"^Invalid value '(?P<v>[^'\n]{0,80})', expected one of \[(?P<opts>[^\]\n]{1,400})\]$")
_OC_KEY = re.compile(r"(?m)^\s{0,8}full_key: (?P<k>[\w.\[\]-]{1,120})$")


def omegaconf_line(body, more):
    """The override of an OmegaConf key whose value its node refused (key=value, as Hydra's command line and a YAML
    file write it), or None."""
    k = _OC_KEY.search((more or "")[:MAX_MORE])
    if not k or not _NAME.match(k.group("k")):
        return None
    key = k.group("k")
    m = _OC_CONVERT.match(body)
    if m:
        v, want = m.group("v"), "an integer" if m.group("t") == "Integer" else "a number"
        near = None
        try:
            x = float(v)
            near = _fmt(x) if m.group("t") == "Float" or x == int(x) else None
        except ValueError:
            pass
        shown = "'%s'" % v if _NAME.match(v) else "the value given"
        return ("%s=%s (the config key; OmegaConf's %s node takes %s and could not convert %s)"
                % (key, near or "<%s>" % want.split(" ", 1)[1], m.group("t"), want, shown))
    m = _OC_BOOL.match(body)
    if m:
        v = m.group("v")
        return ("%s=true (or false) (the config key; OmegaConf's bool takes true/false, yes/no, on/off, y/n or an "
                "integer, not %s)" % (key, "'%s'" % v if _NAME.match(v) else "the value given"))
    m = _OC_ENUM.match(body)
    if m:
        v = m.group("v")
        opts = [x.strip() for x in m.group("opts").split(",") if _NAME.match(x.strip())][:choices.MAX_ITEMS]
        if not opts or not _NAME.match(v):
            return None
        best = choices.closest(v, opts)
        return ("%s=%s (the config key; OmegaConf's enum takes %s%s)"
                % (key, best or opts[0], ", ".join(opts[:8]), ", not '%s'" % v + (": '%s' is the one closest to it"
                                                                                    % best if best else "")))
    return None


# torch/_logging/_internal.py _invalid_settings_err_msg: "Invalid log settings: {settings}, must be a comma separated
# list of fully\nqualified module names, registered log names or registered artifact names." then "Valid settings:" and
# the names (one line of ~1,500 characters, past what a traceback's message keeps): the names come from torch's
# registry instead (tools/gen_torch_logs.py -> generated/torch_logs.json)
_TORCH_LOGS = re.compile(r"Invalid log settings: (?P<s>[^\n]{1,300}?), must be a comma separated list")


def torch_logs_line(text):
    """The TORCH_LOGS value with each name torch's registry does not know replaced by the closest one it does, or
    None."""
    m = _TORCH_LOGS.search((text or "")[:MAX_MORE])
    if not m:
        return None
    table = knowledge.generated_table("torch_logs")
    valid = ["all"] + list(table.get("logs") or []) + list(table.get("artifacts") or [])
    if len(valid) < 2:
        return None
    from gpudoctor.explain.argedit import closest as _near

    out, bad = [], []
    for tok in re.sub(r"\s+", "", m.group("s")).split(","):
        pre = re.match(r"^[+-]{0,3}", tok).group(0)
        name = tok[len(pre):]
        if not name:
            continue
        if not _NAME.match(name):
            return None
        if name in valid or "." in name:  # (a fully qualified module name is accepted as it is)
            out.append(tok)
            continue
        best = choices.closest(name, valid) or next(iter(_near(name, valid, 1)), None)
        bad.append((name, best))
        if best:
            out.append(pre + best)
    if not bad:
        return None
    said = "; ".join("'%s' is none of them%s" % (n, ", '%s' is the closest" % b if b else "") for n, b in bad)
    return ("export TORCH_LOGS=%s (torch's logging registry accepts 'all' and %d log and artifact names: %s; "
            "TORCH_LOGS=help lists them)" % (",".join(out) or "<names from TORCH_LOGS=help>", len(valid) - 1, said))


_MODEL = re.compile(r"^\d{1,4} validation errors? for (\w{1,80})")


def fill(scan, findings):
    """Write the domain and the closest value of what the root's message refused first among its first cause's fix
    lines (analyze.analyze's hook, after choices)."""
    from gpudoctor.explain.opfix import _lines

    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or f.get("kind") == "echo" or not f.get("causes"):
        return
    c0 = f["causes"][0]
    fixes = c0.setdefault("fix", [])
    seen = set()
    for msg, tb, _matched, _n in _lines(scan, f):
        if not msg or msg in seen:
            continue
        seen.add(msg)
        new = []
        body = msg.split(": ", 1)[-1] if tb else msg
        m = _MODEL.match(body)
        if tb and tb.get("more") and "Invalid log settings: " in tb["more"]:
            line = torch_logs_line(tb["more"])
            if line:
                new = [line]
        if tb and tb.get("more") and "full_key: " in tb["more"]:
            line = omegaconf_line(body, tb["more"])
            if line:
                new = [line]
        if tb and m and tb.get("more"):
            # a line an earlier reader wrote for the same key stays (dsconfig.py's closest DeepSpeed key)
            new = [x for x in pydantic_lines(tb["more"], m.group(1))
                   if not any(x.split(":", 1)[0].split(" ")[0].rsplit(".", 1)[-1] in y for y in fixes)]
        if not new:
            line = range_line(msg) or env_line(msg)
            new = [line] if line else []
            if line and line.startswith("export "):
                name = line.split("=", 1)[0][len("export "):]
                # the generated site's placeholder 'export <NAME>=1 (or 0), or unset it' gets the name; a fix that
                # already names the variable is the entry's own, more exact one (TORCH_NCCL_ASYNC_ERROR_HANDLING is
                # an integer 0-3, not a flag: nccl.config), and stays alone
                fixes[:] = [x.replace("<NAME>", name) for x in fixes]
                if any(name + "=" in x for x in fixes):
                    new = []
        if new:
            for line in reversed(new):
                fixes.insert(0, line)
            return
