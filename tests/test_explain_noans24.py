"""noans24 (issue 18 items 2-3): a root one step short of its cause names the deeper layer's cause (explain/deeper.py,
generated/deeper_causes.json from tools/gen_deeper_causes.py), and a failure line of a program no message table
reads gets the program's family and its own diagnostics (explain/progline.py, generated/programs.json from
tools/gen_programs.py).

Texts: the seen held-out sets (bench/data/explain_heldout_*.jsonl, cited by case id; each case's url is its source),
a line as openucx/ucx#3545 quotes it, and lines made from the printers' own formats (UCX's cma_ep.c, Slurm's
step_launch.c and slurm_errno.c, slurmstepd's job end, pdsh's err.c prefix, MFT's -E- prefix, kubectl's table)."""

import json
import os
import subprocess
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import deeper, progline
from gpudoctor.explain.knowledge import read_generated
from explainhelp import seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TOOLS = os.path.join(REPO, "tools")


def _res(text, kb):
    return explain.explain_text(text, kb)


def _root(r):
    return r["findings"][0] if r["findings"] else None


def _first(r):
    return _root(r)["causes"][0]


def _regen(tool, data, tmp_path):
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, os.path.join(TOOLS, tool), "--slice", os.path.join(TOOLS, "data", data),
                    "-o", str(out)], check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)


# ---------------------------------------------------------------- one step deeper (deeper.py)

def test_deeper_table_regenerates_from_its_recorded_documents(tmp_path):
    got, full = _regen("gen_deeper_causes.py", "deeper_causes_slice.txt", tmp_path), read_generated("deeper_causes")
    assert got["rules"] == full["rules"] and got["header"]["source"] == full["header"]["source"]
    assert full["header"]["generator"] == "tools/gen_deeper_causes.py" and "manpages-dev 6.03-2" in full["header"]["version"]
    for r in full["rules"]:  # every rule rests on quoted documentation, with its upstream page
        assert r["sources"] and all(s["url"].startswith("https://") and s["quote"] for s in r["sources"])


def test_a_rule_whose_quote_is_not_in_its_document_is_refused():
    sys.path.insert(0, TOOLS)
    import gen_deeper_causes as g

    docs = g.read_slice(os.path.join(TOOLS, "data", "deeper_causes_slice.txt"))
    docs["ptrace(2)"] = ("a page that says something else", docs["ptrace(2)"][1])
    with pytest.raises(SystemExit):
        g.build(docs)


def test_cma_eperm_names_yama_ptrace_scope(kb):
    # openucx/ucx#3545: 'process_vm_readv delivered 0 instead of 480960, error message Operation not permitted'; the
    # settled fix there is sysctl -w kernel.yama.ptrace_scope=0
    r = _res("[1556700000.000000] [node01:12345:0]         cma_ep.c:81   UCX  ERROR process_vm_readv delivered 0 "
             "instead of 480960, error message Operation not permitted\n", kb)
    c = _first(r)
    assert c["text"].startswith("One step deeper") and "ptrace_scope" in c["text"]
    assert any("kernel.yama.ptrace_scope=0" in x for x in c["fix"]) and any("SYS_PTRACE" in x for x in c["fix"])
    assert r["verdict"] == "likely_cause"  # the text cannot show the kernel's setting
    assert any("man7.org/linux/man-pages/man2/ptrace.2.html" in x["url"] for x in _root(r)["references"])


def test_cma_eperm_with_the_setting_shown_is_the_root_cause(kb):
    # UCX's current format (src/uct/sm/scopy/cma/cma_ep.c: '%s(pid=%d {%s}-->{%s}) returned %zd: %s') and sysctl's
    # own output line
    r = _res("$ sysctl kernel.yama.ptrace_scope\nkernel.yama.ptrace_scope = 1\n"
             "[1732700000.123456] [gpu01:12345:0]          cma_ep.c:85   UCX  ERROR process_vm_readv(pid=12346 "
             "{0x7f3c2a000000,65536}-->{0x7f1b4c000000,65536}) returned -1: Operation not permitted\n", kb)
    assert r["verdict"] == "root_cause" and _first(r)["text"].startswith("One step deeper")
    assert _root(r)["notes"][0].startswith("How sure: medium") and "the text shows it" in _root(r)["notes"][0]


def test_cma_of_a_peer_that_is_gone_is_not_ptrace(kb):
    r = _res("[1732700000.123456] [gpu01:12345:0]          cma_ep.c:85   UCX  ERROR process_vm_readv(pid=12346 "
             "{0x7f3c2a000000,65536}-->{0x7f1b4c000000,65536}) returned -1: No such process\n", kb)
    assert not any(c["text"].startswith("One step deeper") for f in r["findings"] for c in f.get("causes", []))


_REVOKED = ("srun: error: Task launch for StepId=4242.3 failed on node gpu02: Job credential revoked\n"
            "srun: error: Application launch failed: Job credential revoked\n"
            "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")


def test_a_revoked_credential_after_background_steps_without_wait_is_the_script(kb):
    # Slurm's formats: src/api/step_launch.c 'Task launch for %ps failed on node %s: %m', src/srun/launch.c
    # 'Application launch failed: %m', slurm_errno.c ESLURMD_CREDENTIAL_REVOKED 'Job credential revoked'
    script = "#!/bin/bash\n#SBATCH -N 2\nsrun -N1 -n1 python prep.py &\nsrun -N1 -n1 python train.py &\necho started\n"
    r = _res(script + _REVOKED, kb)
    c = _first(r)
    assert r["verdict"] == "root_cause" and c["text"].startswith("One step deeper") and "`wait`" in c["text"]
    assert any("wait" in x for x in c["fix"]) and "line 3" in _root(r)["notes"][0]


def test_a_revoked_credential_alone_names_the_script_as_likely(kb):
    r = _res(_REVOKED, kb)
    assert r["verdict"] == "likely_cause" and "`wait`" in _first(r)["text"]


def test_a_script_that_waits_is_not_shown_to_end_early(kb):
    script = "srun -N1 python prep.py &\nsrun -N1 python train.py &\nwait\n"
    r = _res(script + _REVOKED, kb)
    assert r["verdict"] == "likely_cause" and _root(r)["notes"][0].startswith("How sure: low")


def test_a_job_past_its_time_limit_is_another_cause(kb):
    # slurmstepd's own end of a job (src/slurmd/slurmstepd/req.c: '*** JOB %u ON %s CANCELLED AT %s DUE TO TIME LIMIT ***')
    r = _res(_REVOKED + "slurmstepd: error: *** JOB 4242 ON gpu01 CANCELLED AT 2026-11-28T01:00:00 DUE TO TIME LIMIT ***\n",
             kb)
    assert not any(c["text"].startswith("One step deeper") for f in r["findings"] for c in f.get("causes", []))


def test_a_file_watcher_out_of_descriptors_is_the_inotify_instance_limit(kb):
    # AO's NVIDIA/gpu-operator#441: the device plugin's 'Error: failed to create FS watcher: too many open files';
    # the settled fix raises fs.inotify.max_user_instances
    r = _res(seen_text("ao-device-plugin-inotify-limit"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "errno.emfile"
    assert "max_user_instances" in _first(r)["text"] and any("fs.inotify.max_user_instances" in x
                                                               for x in _first(r)["fix"])


def test_deeper_reads_only_the_roots_own_line(kb):
    r = _res("NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"
             "inotify watches are fine\n", kb)
    assert not any(c["text"].startswith("One step deeper") for f in r["findings"] for c in f.get("causes", []))
    assert deeper.PATTERNS and all(k.startswith("_struct_dc") for k in deeper.PATTERNS)


# ---------------------------------------------------------------- programs no table reads (progline.py)

def test_programs_table_regenerates_from_its_recorded_packages(tmp_path):
    got, full = _regen("gen_programs.py", "programs_slice.txt", tmp_path), read_generated("programs")
    for key in ("programs", "pods", "drivers", "skipped"):
        assert got[key] == full[key]
    progs = full["programs"]
    assert progs["pdcp"]["family"] == "pdsh.error" and "Debian package pdsh" in progs["pdcp"]["source"]
    assert progs["mpirun"]["family"] == "mpi.error"  # (Debian's mpirun.openmpi, its alternatives name)
    assert "mpicc" not in progs and "mpicc.openmpi" in full["skipped"]  # compiler wrappers: the compiler's errors
    assert full["pods"]["nvidia-driver-daemonset"]["family"] == "k8s.gpu_operator"
    assert full["pods"]["nvidia-device-plugin-daemonset"]["family"] == "k8s.device_plugin"


def test_every_program_family_is_an_entry(kb):
    t = read_generated("programs")
    for part in ("programs", "pods", "drivers"):
        for name, row in t[part].items():
            assert row["family"] in kb.by_id, (part, name)
            assert row["next"] and row["source"]


def test_pdcp_own_failure_line_is_pdsh(kb):
    # pdsh's own prefix (src/common/err.c: '%p@%H: ' - the program and this host) before the remote host's message
    r = _res("$ pdcp -w gpu[01-04] model.bin /scratch/\npdcp@login01: gpu02: rcmd: socket: Permission denied\n", kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "pdsh.error"
    f = _root(r)
    assert f["matches"][0]["line"] == 2 and "pdsh -S -R ssh" in _first(r)["fix"][0]
    assert any("Debian package pdsh" in n for n in f["notes"])


def test_the_kernels_gpu_driver_line_is_the_driver_module(kb):
    # AM's runbook (ai-infrastructure.net, GSP firmware of another branch): 'nvidia 0000:06:00.0: loading
    # /lib/firmware/nvidia/570.172.08/gsp_ga10x.bin failed with error -4' (the kernel's dev_printk prefix)
    r = _res(seen_text("am-aiinfra-gsp-firmware-branch-mismatch"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "gpu.driver_module"


def test_a_firmware_tools_error_after_its_command_is_the_adapters_firmware(kb):
    # NVIDIA's firmware tools print errors as '-E- ...' (flint / mstflint)
    r = _res("# flint -d /dev/mst/mt4123_pciconf0 -i fw-ConnectX6.bin burn\n"
             "    Current FW version on flash:  20.28.1002\n"
             "-E- PSID mismatch. The PSID on flash (MT_0000000222) differs from the PSID in the given image "
             "(MT_0000000225).\n", kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "rdma.fw_limit"
    assert "PSID" in _first(r)["fix"][0]


_PODS = ("$ kubectl get pods -n gpu-operator\n"
         "NAME                                        READY   STATUS     RESTARTS   AGE\n"
         "gpu-operator-5d8f9c7b6-abcde                1/1     Running    0          26m\n"
         "nvidia-container-toolkit-daemonset-q8m4n    0/1     Init:0/1   0          %s\n")


def test_an_operator_pod_stuck_in_init_is_the_gpu_operator(kb):
    r = _res(_PODS % "25m", kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "k8s.gpu_operator"
    assert "kubectl get clusterpolicy" in _first(r)["fix"][0]


def test_a_pod_that_just_started_is_not_stuck(kb):
    assert _res(_PODS % "40s", kb)["verdict"] == "no_error"


def test_a_programs_warning_is_no_failure(kb):
    # P21's healthy text: srun's 'Warning: can't run 1 processes on 2 nodes, setting nnodes to 1' and the job goes on
    r = _res(seen_text("p21-healthy_srun_one_task_two_nodes"), kb)
    assert r["verdict"] == "no_error" and not r["findings"]


def test_a_level_line_without_a_known_programs_command_is_left(kb):
    r = _res("$ ./my_tool --go\n[ERROR] something went wrong\n", kb)
    assert not any("Printed by the program" in n for f in r["findings"] for n in f.get("notes", []))
    # the same line after enroot's command is enroot's
    r = _res("$ enroot create --name pyt nvidia+pytorch.sqsh\n[ERROR] something went wrong\n", kb)
    assert r["root"] == "enroot.error" and r["verdict"] == "likely_cause"


def test_a_debugger_refused_attach_names_yama(kb):
    # gdb's perror_with_name ("ptrace"): 'ptrace: Operation not permitted.' (gdb -p on a hung rank)
    r = _res("$ gdb -p 4242\nptrace: Operation not permitted.\n", kb)
    c = _first(r)
    assert r["verdict"] == "likely_cause" and c["text"].startswith("One step deeper") and "ptrace_scope" in c["text"]
    assert any("SYS_PTRACE" in x for x in c["fix"])


def test_kubectl_logs_of_an_operator_pod_names_its_family(kb):
    # the container toolkit's logrus lines (level=fatal msg=...) read with `kubectl logs` of the operator's DaemonSet pod
    r = _res("$ kubectl logs -n gpu-operator nvidia-container-toolkit-daemonset-7xq2m -c nvidia-container-toolkit-ctr\n"
             "time=\"2026-01-21T12:32:09Z\" level=info msg=\"Starting nvidia-toolkit\"\n"
             "time=\"2026-01-21T12:32:09Z\" level=fatal msg=\"Error: unable to load config: unsupported config "
             "version: 3\"\n", kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "k8s.gpu_operator"


def test_lines_after_a_launchers_command_are_not_the_launchers(kb):
    r = _res("$ srun -N2 python train.py\ntime=\"2026-01-21T12:32:09Z\" level=error msg=\"whatever failed\"\n", kb)
    assert r["root"] != "slurm.error"
    assert "srun" in progline.LAUNCHERS and "enroot" not in progline.LAUNCHERS


def test_a_networking_tools_error_prefix_alone_is_the_adapters(kb):
    # MFT / mstflint print errors as '-E- <message>' (and ibdiagnet -E- / -W- / -I-): the prefix names them
    r = _res("-E- Cannot open Device: /dev/mst/mt4123_pciconf0. No such file or directory. MFT may not be running\n",
             kb)
    assert r["verdict"] == "likely_cause" and r["root"].startswith("rdma.")


REC = os.path.join(REPO, "fixtures", "explain", "noans24", "slurm-batch-script-without-wait.log")


def test_a_real_batch_script_that_ends_before_its_steps(kb):
    # recorded here on Debian's Slurm 22.05 (tests/slurmcluster.py's nodes, 2026-11-28): a batch script of three
    # `srun ... &` steps and no `wait`; srun printed 'Slurm job 1 has expired', the running steps '*** STEP 1.0 ON sn1
    # CANCELLED AT ... ***'
    with open(REC) as f:
        text = f.read()
    r = _res(text, kb)
    c = _first(r)
    assert c["text"].startswith("One step deeper") and any("wait" in x for x in c["fix"])
    assert r["verdict"] == "root_cause" and _root(r)["notes"][0].startswith("How sure: medium")
    # the same lines without the script: a shell's stale SLURM_JOB_ID or a step's scancel fit them as well
    out = text[text.index("script done"):]
    r = _res(out, kb)
    assert not any(c["text"].startswith("One step deeper") for f in r["findings"] for c in f.get("causes", []))
    # and with the script's `wait`, the steps were waited for
    r = _res(text.replace("echo script done\n", "wait\necho script done\n"), kb)
    assert not any(c["text"].startswith("One step deeper") for f in r["findings"] for c in f.get("causes", []))
