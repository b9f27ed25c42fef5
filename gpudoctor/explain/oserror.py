"""An exception whose whole message is an OS error's text names that error, not its type's family
(issue 18, "wrong-guard2").

C and C++ code raises the C library's text of errno as the whole message: torch's c10d FileStore
(torch/csrc/distributed/c10d/FileStore.cpp: `SYSASSERT(rv, ...)` ->
`C10_THROW_ERROR(DistStoreError, c10::utils::str_error(errno))`) prints
'torch.distributed.DistStoreError: Read-only file system' when init_method=file:// points at a read-only
path. analyze._EXC_FAMILY reads the type (DistStoreError -> errno.timeout, a store that waited too long);
the message says which system call error it was. The C library's texts (os.strerror: glibc's strerror) are
generated/errno.json's `text`, each with its errno family (tools/gen_errno.py): a message that is exactly
one of them (an optional final '.') is that errno, answered by its family's entry with the site's own
meaning and fix where the table has them.

Only the errno families that say what to do (errno.permission, errno.enospc, errno.io, ...): not
errno.syscall (any call's failure: the type says more) and not a rendezvous family (a refused or
unreachable address is the rendezvous only in torch.distributed's own code: rootguard.outside_component).
"""

import re

from gpudoctor.explain.knowledge import generated_table

MAX_MSG = 80  # the longest strerror text is under 60 characters
_SKIP = ("errno.syscall",)
_BY_TEXT = None


class _SitePattern:
    """What analyze._finding reads of a hit's pattern: the generated site (its meaning and fix)."""

    __slots__ = ("site", "role", "name")

    def __init__(self, site):
        self.site, self.role, self.name = site, "match", site["id"]


def _table():
    global _BY_TEXT
    if _BY_TEXT is None:
        got = {}
        for s in (generated_table("errno") or {}).get("sites", ()):
            fam, text = s.get("family"), s.get("text")
            if fam and text and fam.startswith("errno.") and fam not in _SKIP:
                got.setdefault(text.lower(), s)
        _BY_TEXT = got
    return _BY_TEXT


# (wrong17) a message that ends in the C library's text after 'strerror: ', as torch's archive writer and reader raise
# it (caffe2/serialize/inline_container.cc: CAFFE_ENFORCE(..., "open file failed with strerror: ",
# c10::utils::str_error(errno)) -> '[enforce fail at inline_container.cc:747] . open file failed with strerror:
# Permission denied' from torch.save / torch.load): that errno, the same as a message that is only its text
_STRERROR = re.compile(r"\bstrerror:? {1,2}([A-Za-z][A-Za-z ,'-]{2,60}?)\.?\s{0,4}$")


def site_of(msg):
    """The errno site whose text is the whole message (or the text after a final 'strerror: '), or None."""
    m = (msg or "").strip()
    if not m:
        return None
    if len(m) <= MAX_MSG:
        got = _table().get(m.rstrip(".").lower())
        if got is not None:
            return got
    t = _STRERROR.search(m[-120:])
    return _table().get(t.group(1).lower()) if t else None


def finding(scan, kb, tbs, structural_finding):
    """A structural finding for the first exception of ``tbs`` (a traceback and its chain, pytb's dicts) whose
    message is an OS error's text, or None. ``structural_finding``: analyze._structural_finding."""
    from gpudoctor.explain.scan import Hit

    for t in tbs:
        site = site_of(t.get("msg"))
        if site is None or site["family"] not in kb.by_id:
            continue
        h = t.get("hit") or tbs[0]["hit"]
        hit = Hit(h.line, h.text, _SitePattern(site) if site.get("fix") else None, {}, None, getattr(h, "origin", None))
        return structural_finding(kb.by_id[site["family"]], hit, "the exception's message %r, the C library's text of "
                                  "%s (errno %s), raised as %s" % (site["text"], site["name"], site.get("code"),
                                                                   t["exc"]), scan)
    return None
