"""clidocs.py (clidocs20) asserted line by line (mutation round 15, docs/mutation.md): the fix lines of the readers
that quote a man page (documented, undocumented, keyword_line, env_line) on the table's own entries, and those of
the three script readers (captured_id, pdsh_file, pdsh_rcmd) on the real runs of fixtures/explain/clidocs20 (Slurm
22.05.8, pdsh 2.34, OpenSSH 9.2p1 run here) and variants of them, each line compared whole.

test_explain_clidocs20.py checks a phrase of each answer; these pin the rest of the line, the other branches and
the bounds."""

import os

from gpudoctor import explain
from gpudoctor.explain import clidocs as C

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "fixtures", "explain", "clidocs20")
PROXY = "Specifies one or more jump proxies as either [user@]host[:port] or an ssh URI."


def _case(name):
    with open(os.path.join(CASES, name + ".txt"), encoding="utf-8") as f:
        return f.read()


def _fixes(text, start):
    r = explain.explain_text(text)
    return [x for f in r["findings"][:1] for c in f["causes"] for x in c["fix"] if x.startswith(start)]


def test_keyword_line_documented_deprecated_misspelt_and_unknown():
    assert C.keyword_line("/home/u/.ssh/config", "proxyjump") == "ssh_config(5) ProxyJump: \u201c%s\u201d" % PROXY
    got = C.keyword_line("sshd: /etc/ssh/sshd_config", "PermitRootLogin")
    assert got.startswith("sshd_config(5) PermitRootLogin: \u201cSpecifies whether root can log in using ssh(1). The "
                          "argument must be yes, prohibit-password, forced-commands-only, or no. If this option is set "
                          "to forced-commands-only, root login with public key authentication will be allowed, but "
                          "only if the command option")
    assert C.keyword_line("config", "UseRoaming", 'Deprecated option "UseRoaming"') == (
        "UseRoaming is not documented in ssh_config(5) (openssh-client): this OpenSSH no longer reads it; remove the "
        "line (or IgnoreUnknown UseRoaming in ssh_config)")
    assert C.keyword_line("sshd_config", "UsePrivilegeSeparation", "Unsupported option UsePrivilegeSeparation") == (
        "UsePrivilegeSeparation is not documented in sshd_config(5) (openssh-server): this OpenSSH no longer reads it; "
        "remove the line (or IgnoreUnknown UsePrivilegeSeparation in ssh_config)")
    assert C.keyword_line("config", "ProxyJmp") == (
        "ProxyJmp is not a keyword of ssh_config(5); the closest documented: ProxyJump (\u201c%s\u201d)" % PROXY)
    assert C.keyword_line("config", "Zzzzzz") is None
    assert C.keyword_line("config", "UseRoaming", "Bad configuration option: useroaming") is None
    assert C.keyword_line(None, "ProxyJmp").startswith("ProxyJmp is not a keyword of ssh_config(5)")


def test_env_line_with_and_without_the_job_s_setters():
    assert C.env_line("srun", "SLURM_GPUS_PER_TASK") == (
        "srun(1) reads SLURM_GPUS_PER_TASK from its environment as --gpus-per-task (INPUT ENVIRONMENT VARIABLES: "
        "\u201cSame as --gpus-per-task\u201d); sbatch and salloc set it in the job's environment (OUTPUT ENVIRONMENT "
        "VARIABLES), so every srun of the job inherits the job's --gpus-per-task: unset SLURM_GPUS_PER_TASK before "
        "this srun (or drop --gpus-per-task from the job's #SBATCH options) when the step should not have it")
    assert C.env_line("sbatch", "SBATCH_TIMELIMIT") == (
        "sbatch(1) reads SBATCH_TIMELIMIT from its environment as -t (INPUT ENVIRONMENT VARIABLES: \u201cSame as -t, "
        "--time\u201d)")
    assert C.env_line("srun", "NOPE") is None and C.env_line("nosuchtool", "SLURM_GPUS_PER_TASK") is None


def test_documented_ranks_the_accepted_forms_or_the_limit_and_its_parameter():
    assert C.documented("sbatch", "--time", "90m", "sbatch: error: Invalid --time specification") == (
        "sbatch(1) -t/--time <time>: \u201cAcceptable time formats include \"minutes\", \"minutes:seconds\", "
        "\"hours:minutes:seconds\", \"days-hours\", \"days-hours:minutes\" and \"days-hours:minutes:seconds\". If the "
        "requested time limit exceeds the partition's time limit, the job will be left in a PENDING state (possibly "
        "indefinitely).\u201d")
    assert C.documented("sbatch", "--array", "0-5000", "sbatch: error: Batch job submission failed: Invalid job array "
                        "specification") == (
        "sbatch(1) -a/--array <indexes>: \u201cThe minimum index value is 0. the maximum value is one less than the "
        "configuration parameter MaxArraySize. For example \"--array=0-15%4\" will limit the number of simultaneously "
        "running tasks from this job array to 4.\u201d (MaxArraySize, slurm.conf(5): \u201cThe maximum job array task "
        "index value will be one less than MaxArraySize to allow for an index value of zero. The value may not exceed "
        "4000001. The default value is 1001.\u201d)")
    assert C.documented("sbatch", "--nosuch") is None


def test_undocumented_names_the_closest_options():
    assert C.undocumented("sbatch", "--gpu") == (
        "--gpu is not an option of sbatch (sbatch(1), slurm-client); the closest it documents: -G/--gpus "
        "[type:]<number> (\u201cSpecify the total number of GPUs required for the job.\u201d)")
    assert C.undocumented("nosuchtool", "--x") is None


def test_whole_sentences_while_they_fit():
    assert C._whole(["a" * 50, "b" * 49, "c"], 100) == "a" * 50 + " " + "b" * 49
    assert C._whole(["a" * 50, "b" * 50, "c"], 100) == "a" * 50
    assert C._whole(["", "x" * 300], 100) == "x" * 94 + " [...]"
    assert C._whole(["y" * 90], 60) == "y" * 74 + " [...]"  # cut at 80 characters, never fewer


RCMD = ("pdsh connected with %s: 'connect: Connection refused' is an rsh-protocol module's own failure (rsh, mrsh), "
        "not ssh's; run it over ssh: pdsh -R ssh -w ... or export PDSH_RCMD_TYPE=ssh (pdsh(1) -R: \u201cSet rcmd "
        "module to name. This option may also be set via the PDSH_RCMD_TYPE environment variable.\u201d)")
# (no apostrophe before the quoted reason: it paired off with the reason's quote in a pasted clause, security.md 45.)
DEFAULT = "its default rcmd module (pdsh -V prints it; rsh in the pdsh 2.34 of Debian 12)"


def test_pdsh_rcmd_default_named_or_ssh_chosen():
    assert _fixes(_case("pdsh_default_rcmd_rsh"), "pdsh connected") == [RCMD % DEFAULT]
    r = "$ pdsh %s-w localhost hostname\npdsh@vm: localhost: connect: Connection refused\n"
    assert _fixes(r % "-R rsh ", "pdsh connected") == [RCMD % "-R rsh"]
    assert _fixes(r % "-R 'x y' ", "pdsh connected") == [RCMD % DEFAULT]
    assert _fixes(r % "-R ssh ", "pdsh connected") == []


W = ("give pdsh a file of host names alone: awk '{print $1}' %s > %s && pdsh -w ^%s ... (pdsh(1) -w: \u201cIf the "
     "argument is preceded by a single '^' character, it is taken to be the path to file containing a list of hosts, "
     "one per line.\u201d); the file's other columns became targets: %s")


def test_pdsh_file_the_targets_and_the_file_s_name():
    assert _fixes(_case("pdsh_hostfile_with_slots"), "give pdsh") == [
        W % ("hostfile", "hostfile.hosts", "hostfile.hosts", "'slots=2'")]
    h = ("$ cat hostfile\nlocalhost slots=2 rank=0\n$ pdsh -R ssh -w ^%s \"nproc\"\n"
         "pdsh@vm: slots=2: ssh exited with exit code 255\npdsh@vm: rank=0: ssh exited with exit code 255\n"
         "pdsh@vm: 4: ssh exited with exit code 255\npdsh@vm: 5: ssh exited with exit code 255\n"
         "pdsh@vm: slots=2: ssh exited with exit code 255\n")
    # three targets at most, each once
    assert _fixes(h % "hostfile", "give pdsh") == [
        W % ("hostfile", "hostfile.hosts", "hostfile.hosts", "'slots=2', 'rank=0', '4'")]
    # a name with a blank is one shell word; a path over 200 characters is not written
    assert _fixes(h % "'my hosts'", "give pdsh") == [
        W % ("$'my\\x20hosts'", "$'my\\x20hosts.hosts'", "$'my\\x20hosts.hosts'", "'slots=2', 'rank=0', '4'")]
    assert _fixes(h % ("h" * 201), "give pdsh") == []
    assert len(_fixes(h % ("h" * 200), "give pdsh")) == 1


def test_captured_id_only_without_parsable_or_a_pipe():
    text = _case("sbatch_output_as_job_id")
    assert _fixes(text, "keep only") == [
        "keep only the job id: JOB=$(sbatch --parsable --wrap=\"hostname\") (sbatch(1) --parsable: \u201cOutputs only "
        "the job id number and the cluster name if present.\u201d); without it sbatch prints 'Submitted batch job "
        "<id>', so $JOB holds that sentence and 'scontrol show job $JOB | head -1' passes its words on"]
    assert _fixes(text.replace("$(sbatch --wrap", "$(sbatch --parsable --wrap"), "keep only") == []
    assert _fixes(text.replace('--wrap="hostname")', '--wrap="hostname" | cut -d" " -f4)'), "keep only") == []
    assert _fixes(text.replace("scontrol show job $JOB | head -1\nscancel $JOB\n", ""), "keep only") == []


def test_ranked_puts_the_value_s_leading_character_first():
    _key, rec = C.option("pdsh", "-w")
    first = [s[:40] for s in C._ranked(rec, "^hosts", "")]
    assert first == ["If the argument is preceded by a single ", "No spaces are allowed in the comma-separ"]
    assert [s[:40] for s in C._ranked(rec, "hosts", "")] == ["No spaces are allowed in the comma-separ",
                                                              "Arguments in the TARGETS list may includ"]
    # '-host' excludes: the sentence that quotes '-' comes up
    assert [s[:40] for s in C._ranked(rec, "-x", "")] == ["Arguments in the TARGETS list may includ",
                                                           "A regex or file name argument may also b"]
    # the setters' clause is srun's alone (sbatch reads SBATCH_MEM_BIND, which sbatch sets for the job too)
    assert C.env_line("sbatch", "SBATCH_MEM_BIND") == (
        "sbatch(1) reads SBATCH_MEM_BIND from its environment as --mem-bind (INPUT ENVIRONMENT VARIABLES: \u201cSame "
        "as --mem-bind\u201d)")
