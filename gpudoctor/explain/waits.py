"""A warning that says a program waits or retries, read with the line that ends the wait (issue 18).

Some programs print a line while they wait for something and another once it happened. srun retries a job
step that cannot get its resources inside the allocation (src/srun/launch.c, launch_common_create_job_step:
info("Job %u step creation temporarily disabled, retrying (%s)") and, on later tries, "... still disabled ...")
and prints info("Step created for %ps") once the step got them (only when it had to retry: `i > 0`); a user who
gives up sees info("Cancelled pending step for job %u") instead
(https://github.com/SchedMD/slurm/blob/master/src/srun/launch.c).

The waiting line alone is no error: a job that ran fine prints it too, before its 'Step created' line. An entry of
kind warning with `root_when_alone = true` and `resolved_by = '<regex of the line that ends the wait>'` is the
answer (as root_when_alone makes a warning that says something failed the answer: analyze.py) when nothing else
in the text failed AND no line after its last waiting line matches `resolved_by`: the text ends while the program
still waits, which is what the user asks about (a step that never starts, only one of several steps running).

With `resolved_anywhere = true` the entry is a state rather than a wait (rdma_state.toml's rdma.port_down: a port
that is not Active in ibv_devinfo / ibstat): a resolved_by line ANYWHERE in the text (another port Active) answers
it, so a dual-port HCA with one port unplugged stays healthy.

With `resolved_by_job = true` (slurm_script.toml's slurm.pending_requested) the wait is a pending Slurm job's:
explain/slurmscript.py reads which job each waiting line is (its squeue row's id, or the JobId= of its scontrol block)
and whether a later squeue row, scontrol or sacct line shows that same job running or done.
"""


def unresolved(scan, entry, match):
    """True when ``entry`` (a knowledge entry with resolved_by) matched lines (``match``: analyze's record of its
    hits) and no line after the last of them is its resolved_by line."""
    if entry.get("resolved_by_job"):
        # (slurm19) a pending Slurm job: its wait ends where the text shows that same job running or done
        from gpudoctor.explain import slurmscript

        return slurmscript.job_unresolved(scan, match)
    pat = entry.get("_resolved_by")
    lines = match.get("lines") or [h.line for h in match.get("hits", ())]
    if pat is None or not lines:
        return False
    if entry.get("resolved_anywhere"):
        # a state, not a wait (rdma_state.toml: a port that is not Active): any line of the text in the working
        # state (another port Active) says the listing is not that of a failure, before or after it
        return not scan.signals.get(pat)
    last = max(lines)
    return not any(h.line > last for h in scan.signals.get(pat, ()))


def still_waiting(scan, entry, match):
    """The root finding's first note when the text ends while the program still waits, else None."""
    if not unresolved(scan, entry, match):
        return None
    if entry.get("resolved_by_job"):
        from gpudoctor.explain import slurmscript

        return slurmscript.still_pending(scan, match)
    return ("How sure: medium. A wait, not an error: line %d is the last retry, and no line after it says the wait "
            "ended ('%s ...'), with nothing else failed in this text: when it was taken, the program was still "
            "waiting for this." % (max(match.get("lines") or [h.line for h in match["hits"]]),
                                   entry["resolved_by"].split("(")[0].strip()))
