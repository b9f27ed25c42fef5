"""clidocs.captured_id's fix line compared whole (mutation round 16, docs/mutation.md: its paste guard and its fallback
in words survived clidocs' own tests). The user's `JOB=$(sbatch ...)` line is shown with --parsable put in only where
it runs nothing but that sbatch when pasted (fixline.inert), else in words; the later command is one shell word.
sbatch(1) --parsable: https://slurm.schedmd.com/sbatch.html#OPT_parsable
"""

import pytest

from gpudoctor.explain import explain_text

BASE = ("$ cat run.sh\nJOB=$(sbatch --wrap=\"hostname\")\nscontrol show job $JOB | head -1\nscancel $JOB\n"
        "$ bash run.sh\nscancel: error: Invalid job id specified\n")
DOC = "(sbatch(1) --parsable: \u201cOutputs only the job id number and the cluster name if present.\u201d)"
WORDS = "JOB=$(sbatch --parsable <its options and script>)"


def line(text):
    res = explain_text(text)
    (got,) = [x for f in res["findings"] for c in f["causes"] for x in c["fix"] if x.startswith("keep only the job id")]
    return got


def tail(use):
    return ("without it sbatch prints 'Submitted batch job <id>', so $JOB holds that sentence and %s passes its words "
            "on" % use)


@pytest.mark.parametrize("old, new, edit, use", [
    (None, None, 'JOB=$(sbatch --parsable --wrap="hostname")', "'scontrol show job $JOB | head -1'"),
    ('--wrap="hostname")', '--wrap="hostname"; touch M; echo)', WORDS, "'scontrol show job $JOB | head -1'"),
    ('--wrap="hostname")', '--wrap="hostname") ; touch M #', WORDS, "'scontrol show job $JOB | head -1'"),
    ('--wrap="hostname")', '--wrap="hostname") > out', WORDS, "'scontrol show job $JOB | head -1'"),
    ('--wrap="hostname")', '--wrap="hostname");touch M', WORDS, "'scontrol show job $JOB | head -1'"),  # glued ';'
    ('--wrap="hostname")', '--wrap="hostname" x.sh)  # sbatch.sh', 'JOB=$(sbatch --parsable --wrap="hostname" x.sh)  '
     '# sbatch.sh', "'scontrol show job $JOB | head -1'"),
    ('--wrap="hostname")', '--wrap="%s")' % ("h" * 170), WORDS, "'scontrol show job $JOB | head -1'"),  # over 200
    # (lead, on mutation21's finding) a command word after the capture runs with JOB in its environment: in words
    ('--wrap="hostname")', '--wrap="hostname") x.sh', WORDS, "'scontrol show job $JOB | head -1'"),
    ('JOB=$(sbatch', 'export JOB=$(sbatch', 'export JOB=$(sbatch --parsable --wrap="hostname")',
     "'scontrol show job $JOB | head -1'"),
    ("head -1", "head -1' ; touch M #", 'JOB=$(sbatch --parsable --wrap="hostname")',
     "'scontrol show job $JOB | head -1'\"'\"' ; touch M #'"),
])
def test_captured_id_fix_line(old, new, edit, use):
    text = BASE if old is None else BASE.replace(old, new, 1)
    assert line(text) == "keep only the job id: %s %s; %s" % (edit, DOC, tail(use))


def test_the_longest_edit_shown_is_200_characters():
    fill = "h" * (200 - len('JOB=$(sbatch --parsable --wrap="")'))
    text = BASE.replace('--wrap="hostname")', '--wrap="%s")' % fill, 1)
    assert line(text).startswith('keep only the job id: JOB=$(sbatch --parsable --wrap="%s") (' % fill)
    text = BASE.replace('--wrap="hostname")', '--wrap="%sh")' % fill, 1)
    assert line(text).startswith("keep only the job id: %s (" % WORDS)
