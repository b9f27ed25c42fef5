"""Re-apply a generator's fix tables to its committed sites, offline (no source needed).

    python tools/refix_sites.py NAME [NAME ...] [--check]

NAME is a generated table (gpudoctor/data/knowledge/generated/NAME.json) whose generator keeps
per-site fix rows ((regex over the format, means, [fix]) a row: MSG_FIX, SITE_FIX, USER_FIX; see
tools/knowgen.py give_fix). A generator reads its pinned source (a repository at a commit, a wheel)
to find the sites; when only the wording of its rows changed, the sites, their matchers and which
row each one takes are the same, and only the row's means/fix text is new. This reads the committed
sites and gives each site that has a fix the text of its row again:

- the row is the one whose text, its slots ({%N|words}, gpudoctor/explain/slots.py) read as their
  words, is the site's committed means/fix read the same way (a site's row is found by what it
  says, so a generator with two tables, torch's SITE_FIX and USER_FIX, needs no rule for which one
  a site took, and a second run changes nothing);
- a site no row covers whose generator words it from the site itself (DERIVED: Megatron's assert
  condition, Lightning's own advice or stated rule) takes that wording again, found by its means (which
  quotes the site's own message or condition), so a changed fix wording of the generator is re-applied;
- a site whose committed text no row says any more stops the run (exit 2): a row's words changed
  beyond its slots, and the generator must be run on its source (its own usage line says how).

The header keeps the source and version the generator recorded (the sites are that source's);
its date is today's and ``fixes`` names this tool. --check writes nothing and exits 1 when a table
would change.
"""

import datetime
import importlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

ROOT = knowgen.ROOT
sys.path.insert(0, ROOT)
from gpudoctor.explain import slots  # noqa: E402

# NAME -> (generator module, [fix tables])
TABLES = {
    "slurm_messages": ("gen_slurm_messages", ["MSG_FIX"]),
    "torch_messages": ("gen_torch_messages", ["SITE_FIX", "USER_FIX"]),
    "torch_core_messages": ("gen_torch_core_messages", ["MSG_FIX"]),
    "nccl_messages": ("gen_nccl_messages", ["MSG_FIX"]),
    "trainer_messages": ("gen_trainer_messages", ["MSG_FIX"]),
    "launcher_messages": ("gen_launcher_messages", ["MSG_FIX"]),
    "gloo_messages": ("gen_gloo_messages", ["MSG_FIX"]),
    "container_messages": ("gen_container_messages", ["MSG_FIX"]),
    "munge_messages": ("gen_munge_messages", ["MSG_FIX"]),
    "nvidia_smi_messages": ("gen_nvidia_smi_messages", ["MSG_FIX"]),
    "apptainer_messages": ("gen_apptainer_messages", ["MSG_FIX"]),
    "ucc_messages": ("gen_ucc_messages", ["MSG_FIX"]),
    "ray_messages": ("gen_ray_messages", ["MSG_FIX"]),
    "oci_messages": ("gen_oci_messages", ["MSG_FIX"]),
    "k8s_messages": ("gen_k8s_messages", ["MSG_FIX"]),
    "host_messages": ("gen_host_messages", ["MSG_FIX"]),
    "dcgm_status": ("gen_dcgm_status", ["MSG_FIX"]),
    "megatron_messages": ("gen_megatron_messages", ["MSG_FIX"]),
    "lightning_messages": ("gen_lightning_messages", ["MSG_FIX"]),
}

# NAME -> how its generator words a site that no row covers, from the site alone ((means, [fix]) or None): such a
# site's committed text is that wording again, re-applied the same way as a row's (Megatron's assert condition,
# gen_megatron_messages._cond_fix; Lightning's own advice or stated rule, gen_lightning_messages._own_words)
DERIVED = {
    "megatron_messages": lambda gen, site: site.get("condition") and gen._cond_fix(site, site["where"]),
    "lightning_messages": lambda gen, site: site.get("quoted") and gen._own_words(site["text"]),
}


def words(text):
    """A row's text as it read before slots: each {%N|words} its words."""
    return slots.SLOT.sub(lambda m: m.group(2), text)


def refix(name, doc):
    """The committed ``doc`` of table ``name`` with each fixed site's means/fix from its row;
    raises ValueError naming the sites no row says."""
    module, tables = TABLES[name]
    gen = importlib.import_module(module)
    rows = [r for t in tables for r in getattr(gen, t)]
    lost = []
    for site in doc["sites"]:
        if not site.get("fix"):
            continue
        old = (words(site["means"]), [words(x) for x in site["fix"]])  # the committed text, as its words
        got = next(((means, fx) for rx, means, fx in rows if (words(means), [words(x) for x in fx]) == old
                    and re.search(rx, site["text"])), None)
        if got is None and name in DERIVED:
            own = DERIVED[name](gen, site)
            # its means quotes the site's own message (or condition): the same means is the same site, whose fix
            # wording the generator may have changed (Lightning's stated rule -> the action it implies)
            got = own if own and words(own[0]) == old[0] else None
        if got is None:
            lost.append(site["id"])
            continue
        site["means"], site["fix"] = got[0], list(got[1])
    if lost:
        raise ValueError("no row of %s says the committed text of %d sites (e.g. %s): run %s on its source"
                         % ("/".join(tables), len(lost), ", ".join(lost[:3]), module))
    doc["header"]["date"] = datetime.date.today().isoformat()
    doc["header"]["fixes"] = "means/fix re-applied from %s's %s by tools/refix_sites.py" % (module, "/".join(tables))
    return doc


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if a != "--check"]
    if not names or any(n not in TABLES for n in names):
        sys.stderr.write("usage: refix_sites.py NAME... [--check]; NAME one of %s\n" % ", ".join(sorted(TABLES)))
        return 2
    changed = 0
    for name in names:
        doc = knowgen.committed(name)
        before = json.dumps(doc["sites"], sort_keys=True)
        try:
            doc = refix(name, doc)
        except ValueError as exc:
            sys.stderr.write("refix_sites.py: %s\n" % exc)
            return 2
        if json.dumps(doc["sites"], sort_keys=True) == before:
            print("%s: unchanged" % name)
            continue
        changed += 1
        n = sum(1 for s in doc["sites"]
                if any(slots.slots_of(t) for t in [s.get("means") or ""] + (s.get("fix") or [])))
        if check:
            print("%s: would change (%d sites with slots)" % (name, n))
        else:
            knowgen.emit(name, doc)
            print("%s: %d sites with slots" % (name, n))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
