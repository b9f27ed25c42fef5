"""A client that is still retrying when the text ends (noanswer20, issue 18 item 2): no failure line, the run waits
for a server or a peer that never answered ('INFO:trl.extras.vllm_client:Server is not up yet. Retrying in 2.0
seconds...' again and again, then nothing).

- **Who is waiting: the logger's name.** Python's logging names a library's logger after its module
  (logging.getLogger(__name__): https://docs.python.org/3/library/logging.html#logger-objects, "a good convention
  ... is to use a module-level logger ... logger = logging.getLogger(__name__)"), and prints it in the default format
  '%(levelname)s:%(name)s:%(message)s' (logging.BASIC_FORMAT, Lib/logging/__init__.py) or the cookbook's
  '%(asctime)s - %(name)s - %(levelname)s - %(message)s'. The name is the module's path, which
  generated/lib_modules.json (tools/gen_lib_modules.py, the wheels' own file lists) assigns to a family: the module
  of TRL's client of `trl vllm-serve` is trl.vllm in every release that has it (trl/extras/vllm_client.py in 0.16-0.2x,
  trl/generation/vllm_client.py since). torch.distributed's modules are read as a traceback's frame is
  (pyanswer._lib_entry: rendezvous, elastic ...).
- **That it is waiting: the text ends in its retries.** The last line of the text is the logger's retry / wait line
  (its message says it retries or waits: 'Retrying', 'retry in', 'waiting for', 'not up / ready yet'), and the same
  line (its numbers aside) is there at least REPEATS times: the client tried, failed, and was still trying when the
  text was cut. A wait that ended (any other line after the last retry) is not read.
- The answer is the module's family (How sure: low), with the next step: whether what it waits for is running and
  reachable from where the client runs (its own log, its address and port, a health check).

explicit.seen() counts such a text only when its module has a family (a healthy log that ends while a client waits
on a module no table assigns stays 'no error'); explicit.structural() asks finding() last.
"""

import re

REPEATS = 2  # times the same retry line must be in the text
# a logger's name: a dotted module path (logging.getLogger(__name__))
_NAME = r"(?P<name>[A-Za-z_]\w{0,60}(?:\.\w{1,60}){0,8})"
_LEVEL = r"(?P<level>DEBUG|INFO|WARNING|WARN|ERROR)"
# a message that says it retries or waits (bounded: linear on any line)
_MSG = (r"(?P<msg>[^\n]{0,300}?\b(?:[Rr]etrying|[Rr]etry in|[Ww]ill retry|[Ww]aiting for|[Ss]till waiting|"
        r"not (?:up|ready|available|reachable) yet)\b[^\n]{0,200})")
_NEEDLES = ["retrying", "retryin", "willretry", "waitingfor", "stillwaiting", "notupyet", "notreadyyet",
            "notavailableyet", "notreachableyet"]
PATTERNS = {"_struct_ex_wait": [
    # logging.BASIC_FORMAT '%(levelname)s:%(name)s:%(message)s'
    (r"(?<![\w.:])" + _LEVEL + r":" + _NAME + r":" + _MSG, _NEEDLES),
    # the logging cookbook's '%(asctime)s - %(name)s - %(levelname)s - %(message)s' (its time stamp before it)
    (r"(?<![\w.])" + _NAME + r" - " + _LEVEL + r" - " + _MSG, _NEEDLES)]}

_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_TRAIL_OK = re.compile(r"^(?:`{3}|~{3}|\.{3}|\[\.\.\.\]|\^C)?$")


def _key(h):
    return (h.groups.get("name"), _DIGITS.sub("N", (h.groups.get("msg") or "").strip()))


def _family(name):
    """(family, module path) of logger ``name``'s module, or (None, None)."""
    from gpudoctor.explain import libwhere, pyanswer, pytb

    top = name.split(".", 1)[0]
    file = "/site-packages/%s.py" % name.replace(".", "/")
    fam = libwhere.module_family(file)
    if fam:
        return fam, file.split("/site-packages/", 1)[1]
    if pytb.owner(top) == "torch" and name.startswith("torch.distributed."):
        eid, where = pyanswer._lib_entry({}, file, "torch")
        if where:
            return eid, where
    return None, None


def loop(scan, kb=None):
    """(last retry Hit, its count, family, module) when the text ends in a library logger's retries whose module has a
    family; None else."""
    if hasattr(scan, "_waitloop"):
        return scan._waitloop
    scan._waitloop = None
    hits = scan.matches.get("_struct_ex_wait") or []
    if not hits:
        return None
    last = hits[-1]
    # the text's last line (blank lines, a code fence, an ellipsis aside) is that retry line
    from gpudoctor.explain.hang import _tails

    tail = next((t for t in _tails(scan) if any(ln == last.line for ln, _ in t.get("user") or ())), None)
    if tail is None or any(not _TRAIL_OK.match(t.strip()) for ln, t in tail["user"] if ln > last.line):
        return None
    same = [h for h in hits if _key(h) == _key(last)]
    if len(same) < REPEATS:
        return None
    fam, module = _family(last.groups.get("name") or "")
    if not fam:
        return None
    scan._waitloop = (last, len(same), fam, module)
    return scan._waitloop


def finding(scan, kb, structural_finding):
    got = loop(scan)
    if not got:
        return None
    h, n, fam, module = got
    by = kb.by_id
    if fam not in by:
        return None
    name = h.groups.get("name")
    f = structural_finding(by[fam], h, "the text ends while %s (%s) retries: '%s' (%d times)" % (
        name, module, (h.groups.get("msg") or "").strip()[:160], n), scan)
    f["notes"].append("No failure line: the last lines are %s's logger saying it retries or waits, %d times, and "
                      "nothing after them - the run is waiting for something that does not answer (a server it "
                      "connects to, a peer, a file). Next: is that server / peer started and healthy (its own "
                      "log), is the address and port the client uses the one it listens on, and can this host "
                      "reach it (curl or nc to that address from here)?" % (module, n))
    return f
