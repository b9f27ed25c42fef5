"""A tool's refusal of its command line, answered with what the tool's man page says of the option (clidocs20, issue
18): tools/gen_cli_docs.py reads the Debian packages' man pages (groff source: sbatch(1), srun(1), slurm.conf(5),
mpirun(1), pdsh(1), ssh(1), ssh_config(5), rsync(1), ...) into generated/cli_docs.json; explain/clidocs.py quotes the
named option's documented constraint (or the closest documented options, for one the page does not have).

The texts in fixtures/explain/clidocs20/ were made here by running the real tools (Debian 12's Slurm 22.05.8 with a
private slurmctld, auth/none; Open MPI 4.1.4's mpirun; OpenSSH 9.2's ssh; rsync 3.5.0): the command line as shown
after '$ ', then what the tool printed.
"""

import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import clidocs

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(REPO, "fixtures", "explain", "clidocs20")
sys.path.insert(0, os.path.join(REPO, "tools"))


def _text(name):
    with open(os.path.join(FIX, name + ".txt")) as f:
        return f.read()


def _fixes(res):
    f = res["findings"][0]
    assert f["role"] == "root"
    return [x for c in f["causes"] for x in c["fix"]]


def test_the_table_regenerates_from_its_slice(tmp_path):
    import gen_cli_docs
    import knowgen

    got = knowgen.regenerated(gen_cli_docs.main, os.path.join(REPO, "tools", "data", "cli_docs_slice.txt"),
                              tmp_path / "cli_docs.json")
    full = knowgen.committed("cli_docs")
    n = 0
    for tool, rec in got["tools"].items():
        for key, opt in rec["options"].items():
            assert full["tools"][tool]["options"][key] == opt, (tool, key)
            n += 1
    for page, rec in got["conf"].items():
        for key, p in rec["params"].items():
            assert full["conf"][page]["params"][key] == p, (page, key)
            n += 1
    assert n >= 40
    head = full["header"]
    assert "slurm-client 22.05.8" in head["source"] and "pdsh 2.34" in head["source"] and head["generator"] == \
        "tools/gen_cli_docs.py" and head["date"]


def test_what_the_man_pages_say():
    t = clidocs.table()["tools"]
    array = t["sbatch"]["options"]["--array"]
    assert array["forms"] == ["-a", "--array"] and array["arg"] == "<indexes>"
    assert any("MaxArraySize" in s for s in array["constraints"]) and array["params"] == \
        ["MaxArraySize (slurm.conf(5))"]
    # pdsh(1) -w: a file after '^', one host per line
    assert any("one per line" in s for s in t["pdsh"]["options"]["-w"]["constraints"])
    # mpirun(1) (Debian's mpiexec.openmpi.1): -H, -host, --host are one option
    assert clidocs.option("mpirun", "-H")[0] == "--host"
    assert "ProxyJump" in clidocs.table()["conf"]["ssh_config"]["params"]
    assert any("mutually exclusive" in s for s in t["srun"]["options"]["--mem"]["constraints"])


@pytest.mark.parametrize("name, want", [
    # the message names the option: its documented constraint
    ("sbatch_time_minutes_suffix", "sbatch(1) -t/--time <time>: \u201cAcceptable time formats include"),
    ("sbatch_mem_and_mem_per_cpu", "--mem-per-gpu options are mutually exclusive"),
    ("srun_distribution_invalid", "srun(1) -m/--distribution {*|block|cyclic|arbitrary|plane=<size>}"),
    # an option the page does not document: the closest ones it does (Hydra's --hosts under Open MPI's mpirun)
    ("mpirun_hydra_hosts", "--hosts is not an option of mpirun (mpirun(1), openmpi-bin); the closest it documents: "
                           "-H/-host/--host <host1,host2,...,hostN>"),
    ("ssh_config_keyword_misspelt", "proxyjunp is not a keyword of ssh_config(5); the closest documented: ProxyJump"),
    # a config file's line, as OpenSSH 9.2 prints it ('%s: line %d: Bad configuration option: %s', readconf.c /
    # servconf.c parse_token; recorded from ssh -F and sshd -t here)
    ("ssh_config_file_keyword_misspelt", "identiyfile is not a keyword of ssh_config(5); the closest documented: "
                                         "IdentityFile"),
    ("sshd_config_keyword_misspelt", "PermitRootLogn is not a keyword of sshd_config(5); the closest documented: "
                                     "PermitRootLogin"),
    # the message names the option by its word ('job array'): the array's limit, with slurm.conf(5)'s parameter
    ("sbatch_array_over_max", "maximum value is one less than the configuration parameter MaxArraySize"),
    ("sbatch_dependency_sentence", "sbatch(1) -d/--dependency <dependency_list>"),
])
def test_a_refused_option_gets_its_documented_constraint(kb, name, want):
    fixes = _fixes(explain.explain_text(_text(name), kb))
    assert any(want in x for x in fixes), fixes


def test_the_array_limit_quotes_the_parameter_page(kb):
    fixes = _fixes(explain.explain_text(_text("sbatch_array_over_max"), kb))
    line = next(x for x in fixes if x.startswith("sbatch(1) -a/--array"))
    assert "(MaxArraySize, slurm.conf(5): \u201cThe maximum job array task index value will be one less" in line


def test_an_option_only_on_the_command_line_is_no_fix(kb):
    # the message names the time limit (the word of --time's name) and says it exceeds a limit: --time's sentence
    # about the partition's limit; --mem is only on the command line
    fixes = _fixes(explain.explain_text(_text("sbatch_time_over_partition_max"), kb))
    line = next(x for x in fixes if x.startswith("sbatch(1) -t/--time <time>: "))
    assert "If the requested time limit exceeds the partition's time limit" in line
    assert not any("--mem" in x and "sbatch(1)" in x for x in fixes)
    # a word of the wrapper ('Batch job submission failed') and common words alone name no option (--job-name)
    text = ("$ sbatch --job-name=ft --nodelist=vm --exclude=vm job.sbatch\n"
            "sbatch: error: Batch job submission failed: Invalid node name specified\n")
    assert not any("--job-name" in x for x in _fixes(explain.explain_text(text, kb)))


def test_a_healthy_submission_stays_healthy(kb):
    res = explain.explain_text(_text("sbatch_healthy_submit"), kb)
    assert res["verdict"] == "no_error" and not res["findings"]


@pytest.mark.parametrize("msg, want", [
    ("unrecognized option '--arrray=1-3'", ["--arrray"]),
    ("invalid option -- 'Z'", ["-Z"]),
    ('Error: unknown option "--hosts"', ["--hosts"]),
    ("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", ["--mem", "--mem-per-cpu", "--mem-per-gpu"]),
    ("Batch job submission failed: Invalid job array specification", []),
])
def test_the_options_a_message_names(msg, want):
    assert clidocs.named_options(msg) == want


def test_closest_documented_options():
    assert clidocs.closest("sbatch", "--arrray")[0] == "--array"
    assert "--host" in clidocs.closest("mpirun", "--hosts")
    assert clidocs.undocumented("no-such-tool", "--x") is None
    assert clidocs.keyword_line("command-line:", "identitiesonly").startswith("ssh_config(5) IdentitiesOnly: ")


@pytest.mark.parametrize("name, entry, want", [
    # getopt's refusals under Slurm's and pdsh's names (knowledge/cli_options.toml), with the closest documented option
    ("sbatch_option_misspelt", "slurm.option_refused",
     "--arrray is not an option of sbatch (sbatch(1), slurm-client); the closest it documents: -a/--array <indexes>"),
    ("pdsh_invalid_option", "pdsh.option_refused", "write the option as pdsh(1) documents it"),
])
def test_a_refused_option_without_a_message_of_its_own(kb, name, entry, want):
    res = explain.explain_text(_text(name), kb)
    assert res["findings"][0]["id"] == entry and res["findings"][0]["family"] in ("slurm.error", "pdsh.error")
    assert any(want in x for x in _fixes(res))


def test_a_script_that_keeps_sbatchs_sentence_as_the_job_id(kb):
    # JOB=$(sbatch ...) holds 'Submitted batch job 4'; scancel $JOB refuses 'Submitted' (real run, Slurm 22.05.8)
    text = _text("sbatch_output_as_job_id")
    res = explain.explain_text(text, kb)
    assert res["findings"][0]["id"] == "slurm.jobid_refused"
    line = next(x for x in _fixes(res) if x.startswith("keep only the job id: "))
    assert "JOB=$(sbatch --parsable --wrap=\"hostname\")" in line and "sbatch(1) --parsable: \u201cOutputs only" in line
    # the same script with --parsable (or a pipe that cuts the id out) is not read so
    for edit in ("JOB=$(sbatch --parsable --wrap=", "JOB=$(sbatch --wrap=\"hostname\" | awk '{print $4}') #"):
        res = explain.explain_text(text.replace("JOB=$(sbatch --wrap=", edit, 1), kb)
        assert not any(x.startswith("keep only the job id: ") for x in _fixes(res))


def test_a_pdsh_hostfile_with_more_than_host_names(kb):
    # DeepSpeed's / Open MPI's 'host slots=N' hostfile given to pdsh -w ^FILE (real run: pdsh 2.34, OpenSSH 9.2, a
    # private sshd): pdsh(1) reads the file one host per line, so 'slots=2' became a target
    text = _text("pdsh_hostfile_with_slots")
    fixes = _fixes(explain.explain_text(text, kb))
    line = next(x for x in fixes if x.startswith("give pdsh a file of host names alone: "))
    assert "awk '{print $1}' hostfile > hostfile.hosts" in line and "one per line" in line and "'slots=2'" in line
    # targets that are host names: the hostfile is not the cause
    text = text.replace("slots=2", "gpu-node-2").replace("localhost gpu-node-2", "localhost\ngpu-node-2")
    assert not any(x.startswith("give pdsh a file") for x in _fixes(explain.explain_text(text, kb)))


def test_rsyncs_documented_diagnostic(kb):
    # rsync(1) DIAGNOSTICS: 'protocol version mismatch -- is your shell clean?' is the remote login's startup output
    # (set P31's real run: rsync 3.5.0 over ssh to a node whose ~/.bashrc echoes a banner); its healthy twin stays so
    from explainhelp import seen_text

    res = explain.explain_text(seen_text("p31-rsync_remote_rc_prints", "2026-11-27p31"), kb)
    f = res["findings"][0]
    assert f["id"] == "rsync.shell_not_clean" and f["family"] == "ssh.config"
    assert any("[[ $- == *i* ]] || return" in x and "out.dat" in x for x in _fixes(res))
    res = explain.explain_text(seen_text("p31-healthy_rsync_stage_dataset", "2026-11-27p31"), kb)
    assert res["verdict"] == "no_error"


def test_an_input_environment_variable_the_message_names(kb):
    # srun reads SLURM_GPUS_PER_TASK as --gpus-per-task (srun(1) INPUT ENVIRONMENT VARIABLES) and sbatch sets it in
    # the job's environment (sbatch(1) OUTPUT ENVIRONMENT VARIABLES): a step inherits it (real srun 22.05.8 run)
    fixes = _fixes(explain.explain_text(_text("srun_inherited_gpus_per_task"), kb))
    line = next(x for x in fixes if x.startswith("srun(1) reads SLURM_GPUS_PER_TASK from its environment"))
    assert "as --gpus-per-task" in line and "unset SLURM_GPUS_PER_TASK before this srun" in line
    assert clidocs.env_line("srun", "SLURM_CPUS_PER_TASK") is None  # (22.05's srun(1) no longer lists it as input)


def test_the_programs_own_options_are_not_the_tools(kb):
    # srun's options end at the program it runs: train.py's --time is not srun's (the message names the time limit)
    text = ("$ srun -N1 python train.py --time 5\n"
            "srun: error: Unable to allocate resources: Requested time limit is invalid (missing or exceeds some limit)\n")
    res = explain.explain_text(text, kb)
    assert res["findings"] and not any(x.startswith("srun(1) -t/--time") for x in _fixes(res))
    res = explain.explain_text(text.replace("-N1 python train.py --time 5", "-N1 --time 500 python train.py"), kb)
    assert any(x.startswith("srun(1) -t/--time <time>: ") for x in _fixes(res))


def test_pdsh_over_its_rsh_module(kb):
    # pdsh 2.34 run here without -R: Debian's default rcmd module is rsh ('pdsh -V': default: rsh), whose own connect
    # failure (src/modules/xrcmd.c '%p: %S: connect: %m') is no ssh failure
    text = _text("pdsh_default_rcmd_rsh")
    line = next(x for x in _fixes(explain.explain_text(text, kb)) if x.startswith("pdsh connected with "))
    assert "pdsh -R ssh -w ... or export PDSH_RCMD_TYPE=ssh" in line and "PDSH_RCMD_TYPE environment variable" in line
    # the same failure with -R ssh given is not this
    res = explain.explain_text(text.replace("pdsh -w", "pdsh -R ssh -w"), kb)
    assert not any(x.startswith("pdsh connected with ") for x in _fixes(res))


# fix22: a Slurm input environment variable the text shows set (env output, export, a command prefix) that gave the
# value or the option sbatch refused: unset it (sbatch(1) INPUT ENVIRONMENT VARIABLES: environment variables override
# the script's #SBATCH options). Recorded here on tests/slurmcluster.py's real Slurm 22.05 with SBATCH_PARTITION /
# SBATCH_TIMELIMIT in sbatch's environment and '#SBATCH --partition=debug' / '--time=00:10:00' in the script.
@pytest.mark.parametrize("name, want", [
    ("sbatch_env_partition_over_directive", "unset SBATCH_PARTITION (line 13 sets it to gpu-a100, the value sbatch "
                                            "refused): sbatch reads it as --partition"),
    ("sbatch_env_timelimit_invalid", "unset SBATCH_TIMELIMIT (line 11 sets it to 9-00:00:00x, the --time sbatch "
                                     "refused): sbatch reads it as --time"),
])
def test_an_input_variable_that_gave_the_refused_value_is_the_first_fix(kb, name, want):
    res = explain.explain_text(_text(name), kb)
    f = next(x for x in res["findings"] if x.get("role") == "root")
    first = f["causes"][0]["fix"][0]
    assert first.startswith(want), first
    assert "override the options set in a batch script (#SBATCH)" in first
    assert "(the %s the script or the command line shows is not what sbatch used)" % (
        "--partition=debug" if "PARTITION" in want else "--time=00:10:00") in first


def test_an_input_variable_the_refusal_does_not_name_is_no_fix(kb):
    # SBATCH_PARTITION set, but sbatch refused the --time: the variable is context
    text = _text("sbatch_env_timelimit_invalid").replace("SBATCH_TIMELIMIT=9-00:00:00x", "SBATCH_PARTITION=debug")
    fixes = _fixes(explain.explain_text(text, kb))
    assert not any(x.startswith("unset SBATCH_") for x in fixes), fixes


def test_a_script_value_with_shell_characters_is_not_written(kb):
    # (security.md 44.'s rule for this reader's other words) the script's #SBATCH value is quoted back only as a plain word
    text = _text("sbatch_env_partition_over_directive").replace("#SBATCH --partition=debug",
                                                                "#SBATCH --partition='debug;touch /tmp/x'")
    fixes = _fixes(explain.explain_text(text, kb))
    line = next(x for x in fixes if x.startswith("unset SBATCH_PARTITION"))
    assert "touch" not in line and "is not what sbatch used" not in line
