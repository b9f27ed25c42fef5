"""The method a framework says the user's class must define, named in the fix with its signature (famfix28, issue 18
"name the fix": the family was right, the answer said "define the hook the message names" without naming it).

The messages name the method; the fix names it back with the signature its documentation gives:

- Lightning's Trainer checks the LightningModule before a stage runs (lightning 2.6.6
  src/lightning/pytorch/trainer/configuration_validator.py, generated/lightning_messages.json:
  https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/pytorch/trainer/configuration_validator.py):
  "No `training_step()` method defined. ...", "No `configure_optimizers()` method defined. ...", "No
  `train_dataloader()` method defined. ..." (pytorch_lightning 1.x), "No `<step>()` method defined to run
  `Trainer.<stage>`." The hooks and their signatures: https://lightning.ai/docs/pytorch/stable/common/lightning_module.html
  (the Trainer takes its optimizers only from configure_optimizers());
- CPython refuses to instantiate a class that leaves an abstract method of its base undefined (Objects/typeobject.c
  object_new: 3.12+ "Can't instantiate abstract class %s without an implementation for abstract method%s %U", before
  "Can't instantiate abstract class %s with abstract method%s %U";
  https://github.com/python/cpython/blob/main/Objects/typeobject.c);
- torch.nn.Module without forward (torch/nn/modules/module.py _forward_unimplemented: 'Module [%s] is missing the
  required "forward" function'); a map-style Dataset without __getitem__ (torch/utils/data/dataset.py: "Subclasses
  of Dataset should implement __getitem__."; https://pytorch.org/docs/stable/data.html#map-style-datasets).

The reading becomes the root's first cause, with the message's line as its evidence, where the line is one of the
root's matched lines or the root's own traceback's message; the root, its family and verdict never change. Method
and class names are read as plain identifiers only (nothing else of the line reaches a fix line).
"""

import re

_ID = r"[A-Za-z_]\w{0,60}"
_LIGHTNING = re.compile(r"No `(?P<m>%s)\(\)` method defined(?:\. Lightning `Trainer` expects| to run `Trainer\.(?P<stage>"
                        r"[a-z_]{1,20})`)" % _ID)
_ABSTRACT = re.compile(r"Can't instantiate abstract class (?P<c>%s) (?:without an implementation for abstract|with "
                       r"abstract) methods? (?P<ms>'?%s'?(?:, '?%s'?){0,7})" % (_ID, _ID, _ID))
_FORWARD = re.compile(r"Module \[(?P<c>%s)\] is missing the required \"forward\" function" % _ID)
_GETITEM = re.compile(r"Subclasses of Dataset should implement __getitem__")

_LIGHTNING_SIG = {  # the signature, and what the documentation adds
    "training_step": ("training_step(self, batch, batch_idx)", ", returning the loss"),
    "validation_step": ("validation_step(self, batch, batch_idx)", ""),
    "test_step": ("test_step(self, batch, batch_idx)", ""),
    "predict_step": ("predict_step(self, batch, batch_idx)", ""),
    "configure_optimizers": ("configure_optimizers(self)", ", returning the optimizer (return torch.optim.AdamW("
                             "self.parameters(), lr=...)): the Trainer takes its optimizers only from it, so one built "
                             "elsewhere (in __init__) is not used - build it, or move it, there"),
    "train_dataloader": ("train_dataloader(self)", ", returning a DataLoader (or pass train_dataloaders= to "
                         "trainer.fit)"),
}
DOCS = {"lightning": "https://lightning.ai/docs/pytorch/stable/common/lightning_module.html",
        "abc": "https://docs.python.org/3/library/abc.html",
        "module": "https://pytorch.org/docs/stable/generated/torch.nn.Module.html",
        "dataset": "https://pytorch.org/docs/stable/data.html#map-style-datasets"}
_FAMILIES = ("lightning.", "code.", "torch.", "usercode.")


def read(line):
    """(text, fix) for a line that names a method the user's class must define, or None."""
    m = _LIGHTNING.search(line or "")
    if m:
        name, stage = m.group("m"), m.group("stage")
        sig, more = _LIGHTNING_SIG.get(name, ("%s(self, ...)" % name, ", with the signature Lightning documents"))
        why = ("Trainer.%s runs the LightningModule's %s(), which your module does not define" % (stage, name)
               if stage else "the Trainer needs %s() to run, and your LightningModule does not define it" % name)
        return ("Lightning's configuration check (trainer/configuration_validator.py): %s." % why,
                "add def %s: to your LightningModule class%s (%s)" % (sig, more, DOCS["lightning"]))
    m = _ABSTRACT.search(line or "")
    if m:
        names = [x.strip("'") for x in m.group("ms").split(", ")]
        return ("Python refuses to make a %s: its base class declares %s abstract and %s does not define %s." % (
                    m.group("c"), ", ".join(names), m.group("c"), "them" if len(names) > 1 else "it"),
                "add %s to class %s (%s)" % (" and ".join("def %s(self, ...):" % n for n in names), m.group("c"),
                                              DOCS["abc"]))
    m = _FORWARD.search(line or "")
    if m:
        return ("torch.nn.Module's call runs forward(), and %s does not define it (a misspelt name such as "
                "'foward' or 'Forward', or a forward not indented into the class, is the same)." % m.group("c"),
                "add def forward(self, x): to class %s, spelled exactly (%s)" % (m.group("c"), DOCS["module"]))
    if _GETITEM.search(line or ""):
        return ("A map-style Dataset is read through its __getitem__, and your Dataset subclass does not define it.",
                "add def __getitem__(self, idx): (and def __len__(self):) to your Dataset class (%s)" % DOCS["dataset"])
    return None


def fill(result, scan):
    """Put the method a root's own line says the user's class must define first (after analyze and the fixes)."""
    f = next((x for x in result.get("findings") or () if x.get("role") == "root"), None)
    if f is None or not f.get("causes") or not str(f.get("family") or f["id"]).startswith(_FAMILIES):
        return
    lines = [(m.get("line"), m.get("text") or "") for m in (f.get("matches") or ())[:8]]
    own = {ln for ln, _ in lines}
    for tb in (getattr(scan, "tracebacks", None) or ())[:8]:
        if tb.get("line") in own:
            lines.append((tb.get("line"), "%s: %s" % (tb.get("exc") or "", tb.get("msg") or "")))
    for ln, text in lines:
        got = read(text[:2000])
        if got is None:
            continue
        cause, fix = got
        if any(fix.split(" (", 1)[0] in x for c in f["causes"][:1] for x in c.get("fix") or ()):
            return  # (already the first fix)
        f["causes"].insert(0, {"text": cause, "checks": [], "confirm": [], "fix": [fix], "exports": {},
                               "evidence": [{"line": ln, "text": text[:400]}], "static_rank": 0, "computed": None})
        return
