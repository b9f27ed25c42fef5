"""A family and a next step for texts explain had no answer for or answered with the wrong family (noans22, issue 18
items 2 and 3).

srun's task-end report (gpudoctor/explain/srunend.py; SchedMD/slurm src/srun/launch.c _task_finish) is the echo of
the task's own failure: the task's own lines are read first, and the line alone is read by the signal it names
(glibc's strsignal text) or as the echo with its next step.

Texts: the seen held-out sets (bench/data/explain_heldout_*.jsonl, cited by case id: P11 and P15 were made on a real
Slurm 22.05 here, AP's from CSCS's documentation page, each case's url is its source) and srun's own lines as Slurm
prints them (the format strings above)."""

import pytest

from gpudoctor import explain
from gpudoctor.explain import srunend
from explainhelp import seen_text


def _res(text, kb):
    return explain.explain_text(text, kb)


class _Hit:
    def __init__(self, prog, msg):
        self.groups = {"prog": prog, "msg": msg}


@pytest.mark.parametrize("msg, what", [
    ("q1: task 0: Exited with exit code 1", "1"),
    ("nid007306: task 640: Segmentation fault", "Segmentation fault"),
    ("cn03: tasks 0-3: Killed", "Killed"),
    ("s1: task 0: User defined signal 1", "User defined signal 1"),
    ("node7: task 2: Aborted (core dumped)", "Aborted"),
    ("task 0: Exited with exit code 14", "14"),
])
def test_srun_task_end_lines_are_read(msg, what):
    m = srunend.task_end(_Hit("srun", msg))
    assert m and (m.group("code") or m.group("sig")) == what


@pytest.mark.parametrize("prog, msg", [
    ("srun", "task 0 launch failed: Plugin initialization failed"),  # Slurm's own failure (src/api/step_launch.c)
    ("srun", "Unable to create step for job 12: Invalid generic resource (gres) specification"),
    ("slurmstepd", "q1: task 0: Exited with exit code 1"),  # not srun's report
    ("srun", "q1: task 0: Exited with exit code 1 and then some words"),
])
def test_other_slurm_lines_are_not_task_ends(prog, msg):
    assert srunend.task_end(_Hit(prog, msg)) is None


def test_a_task_killed_by_a_signal_is_read_by_the_signal(kb):
    # CSCS's UCX page (seen set AP): the task's SIGSEGV, reported by srun; it was read as Slurm's own error
    r = _res(seen_text("ap-cscs-ucx-signal-handler-shadows-error"), kb)
    f = r["findings"][0]
    assert f["id"] == "cascade.signal" and r["verdict"] == "echo_only"
    notes = " ".join(f["notes"])
    assert "SIGSEGV" in notes and "PYTHONFAULTHANDLER=1" in notes


def test_the_task_own_error_is_read_before_srun_report(kb):
    # P11 (a real Slurm 22.05 here): the task's FileNotFoundError and srun's 'Exited with exit code 1' interleaved;
    # the answer was slurm.error from srun's line
    r = _res(seen_text("p11-sbcast_dest_dir_missing"), kb)
    f = r["findings"][0]
    assert f["id"] != "slurm.error"
    assert "FileNotFoundError" in " ".join(f["notes"]) + " ".join(h["text"] for h in f["matches"])


def test_a_signal_srun_reports_alone(kb):
    # P15 (a real Slurm 22.05 here): a batch step ended by SIGUSR1, srun's line the only failure line
    r = _res(seen_text("p15-signal_usr1_not_trapped"), kb)
    f = r["findings"][0]
    # (explain-terminal32) srun's 'User defined signal 1' is elastic.sigusr's pattern: Slurm's --signal warning named
    assert f["id"] == "elastic.sigusr" and "SIGUSR1" in " ".join(x for c in f["causes"] for x in c["fix"])


def test_an_exit_code_srun_reports_alone_is_the_echo(kb):
    text = ("$ srun -N2 python train.py\nsrun: error: q2: task 1: Exited with exit code 1\n"
            "srun: Terminating StepId=35.0\n")
    r = _res(text, kb)
    f = r["findings"][0]
    assert r["verdict"] == "echo_only" and f["id"] == "cascade.child_failed"
    assert "srun --label" in " ".join(f["notes"])


def test_a_shell_signal_code_srun_reports(kb):
    # a batch step through bash: bash exits 128+N for a program a signal ended (bash(1) EXIT STATUS)
    r = _res("srun: error: q2: task 1: Exited with exit code 137\n", kb)
    assert r["findings"][0]["id"] == "elastic.sigkill"


def test_slurm_own_failure_stays_slurm(kb):
    r = _res("srun: error: task 0 launch failed: Plugin initialization failed\n", kb)
    assert r["findings"][0]["id"].startswith("slurm.")


# ----------------------------------------------------------------------------------- k8sstatus.py (Kubernetes' own)

def test_the_kubelet_admission_refusal_names_the_device_manager(kb):
    # kubernetes/kubernetes#130145 (seen set R): kubectl describe pod's status, the device manager's own error
    r = _res(seen_text("k8s-130145-unexpectedadmission-gpu-stale-allocation"), kb)
    f = r["findings"][0]
    assert f["id"] == "k8s.device_plugin" and r["verdict"] == "likely_cause"
    assert "nvidia.com/gpu" in f["causes"][0]["text"] and "kubectl describe node" in " ".join(f["causes"][0]["fix"])


def test_the_admission_message_folded_onto_the_next_yaml_line(kb):
    # ray-project/kuberay#1414 (seen set AI): kubectl get pod -o yaml folds the message; the device words are on the
    # second line
    f = _res(seen_text("ai-kuberay1414-wait-gcs-ready-gpu-admission"), kb)["findings"][0]
    assert f["id"] == "k8s.device_plugin" and "unable to find GPU device" in f["causes"][0]["text"]


def test_a_cpu_manager_admission_refusal_is_not_a_device_plugin(kb):
    # the CPU manager's error through the same admission message (kubernetes pkg/kubelet/cm/cpumanager/
    # policy_static.go: 'not enough cpus available to satisfy request')
    text = ("Status:  Failed\nReason:  UnexpectedAdmissionError\nMessage: Pod Allocate failed due to not enough cpus "
            "available to satisfy request, which is unexpected\n")
    r = _res(text, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "k8s.device_plugin"


def test_an_operator_service_account_refused_by_rbac(kb):
    # kubeflow/manifests#72 (seen set AL): client-go's leader election, refused for endpoints
    r = _res(seen_text("al-kfmanifests72-mpi-operator-rbac-endpoints-forbidden"), kb)
    f = r["findings"][0]
    assert f["id"] == "k8s.mpi_operator"
    fix = " ".join(f["causes"][0]["fix"])
    assert "kubectl auth can-i get endpoints --as=system:serviceaccount:kubeflow:mpi-operator -n kubeflow" in fix


@pytest.mark.parametrize("ns, name, fam", [
    ("gpu-operator", "gpu-operator", "k8s.gpu_operator"),
    ("kueue-system", "kueue-controller-manager", "k8s.kueue"),
    ("kube-system", "nvidia-device-plugin", "k8s.device_plugin"),
    ("kube-system", "rdma-device-plugin", "k8s.rdma_device_plugin"),  # the longest family whose words it holds
    ("default", "default", None),
    ("ml", "trainer", None),
    ("kube-system", "image-pull-helper", None),  # a family that names a state is no component
])
def test_a_service_account_names_its_component(kb, ns, name, fam):
    from gpudoctor.explain import k8sstatus

    assert k8sstatus.component(kb, ns, name) == fam


def test_a_person_refused_by_rbac_is_not_read(kb):
    text = ('Error from server (Forbidden): pods is forbidden: User "jane@example.com" cannot list resource "pods" in '
            'API group "" in the namespace "gpu-operator"\n')
    r = _res(text, kb)
    assert not r["findings"] or not r["findings"][0]["id"].startswith("k8s.gpu_operator")


# ------------------------------------------- knowledge.OWN_LINE_FORM: a site of any program's words, in NCCL's line

def test_a_plain_words_site_is_nccl_only_in_nccl_line_form(kb):
    # AP (Slurm's containers guide): podman's 'allocation failed' inside its own sentence was NCCL's
    # src/include/checks.h 'Allocation failed' (nccl.memory, root_cause)
    r = _res(seen_text("ap-slurm-scrun-podman-num-locks"), kb)
    assert r["findings"][0]["id"] != "nccl.memory"
    # NCCL's own line (src/debug.cc: '<host>:<pid>:<tid> [<dev>] NCCL WARN <msg>') still is
    r = _res("node1:1234:1240 [0] misc/alloc.h:120 NCCL WARN Allocation failed\n", kb)
    assert r["findings"][0]["id"] == "nccl.memory"


@pytest.mark.parametrize("text, site", [
    ("Allocation failed", True), ("close failed: %s", True), ("Unknown pattern %d", True),
    ("%s() failed: %s", True), ("Cuda failure '%s'", True),
    ("nvmlInit() failed: %s", False), ("GDRCOPY failure %d", False), ("NET/IB : Got completion from peer", False),
    ("Invalid rank requested : %d/%d and a few more words", False), ("ncclCommInitRank failed", False),
])
def test_plain_words(text, site):
    from gpudoctor.explain.knowledge import plain_words

    assert plain_words(text) is site


@pytest.mark.parametrize("line", [
    # the fixtures' real lines: a launcher's rank prefix (NVIDIA/nccl#1410), NCCL's own WARN line (NVIDIA/nccl#975)
    "[rank7]: Cuda failure 1 'invalid argument'",
    "n122-246-085:12251:12400 [5] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to "
    "fe80::966d:ae03:a2:8cf0%ib1<17943> failed : Software caused connection abort",
    # torch's DistBackendError: NCCL's last WARN after 'Last error:' (ProcessGroupNCCL, ncclGetLastError)
    "Last error: Cuda failure 'out of memory'",
])
def test_nccl_own_forms_still_read(line, kb):
    r = _res(line + "\n", kb)
    assert r["findings"] and r["findings"][0]["id"].startswith("nccl."), (line, r["findings"][:1])


# ------------------------------------- an exception of a package named with a digit; an HTTP client's ConnectionError

def test_an_exception_line_of_a_digit_named_package_is_no_host_prefix():
    from gpudoctor.explain.text import strip_prefix

    # CPython's format_exception_only line of urllib3 (P32's text): was cut as pdsh's 'host: ' prefix, so the
    # traceback it ends was not read
    line = "urllib3.exceptions.NameResolutionError: HTTPSConnection(host='x.example', port=443): Failed to resolve"
    assert strip_prefix(line) == (line, False)
    assert strip_prefix("worker-0: RuntimeError: boom") == ("RuntimeError: boom", True)  # pdsh / deepspeed's host
    assert strip_prefix("gpu-node3: hello")[1]


@pytest.mark.parametrize("exc, foreign", [
    ("requests.exceptions.ConnectionError", True), ("aiohttp.client_exceptions.ClientConnectorError", True),
    ("ConnectionError", False), ("ConnectionRefusedError", False), ("torch.distributed.DistNetworkError", False),
    ("builtins.ConnectionResetError", False)])
def test_foreign_class(exc, foreign):
    from gpudoctor.explain.analyze import _foreign_class

    assert _foreign_class(exc) is foreign


def test_a_download_host_name_resolution_is_not_the_rendezvous(kb):
    # P32: tiktoken's download on a node without DNS (socket.gaierror -> urllib3 -> requests.exceptions.ConnectionError);
    # it was rendezvous.hostname, root_cause
    r = _res(seen_text("p32-tiktoken_offline_node_no_cache"), kb)
    f = r["findings"][0]
    assert not f["id"].startswith("rendezvous.") and r["verdict"] != "root_cause"


def test_the_store_name_resolution_stays_the_rendezvous(kb):
    # P2 (planted here): MASTER_ADDR that does not resolve, torch's own store traceback
    r = _res(seen_text("p2-master_addr_unresolvable"), kb)
    assert r["findings"][0]["id"] == "rendezvous.hostname"


# ------------------------------------------- srcprov: Open MPI's own 'Error: <file>:<line> - <func>() ' macro form

def test_open_mpi_component_error_macro(kb):
    # AN's TensorRT-LLM thread (NVIDIA/TensorRT-LLM#4668): Open MPI's coll/ucc UCC_ERROR line
    # (ompi/mca/coll/ucc/coll_ucc_debug.h: "Error: %s:%d - %s() " format)
    r = _res(seen_text("an-trtllm4668-ucc-mpi-thread-multiple"), kb)
    assert r["findings"][0]["id"].startswith("mpi.")


def test_open_mpi_component_warning_macro_is_no_failure():
    from gpudoctor.explain import srcprov

    # oshmem/mca/memheap MEMHEAP_WARN: "Warning: %s:%d - %s() "
    text = "Warning: memheap_base_mkey.c:450 - memheap_oob_get_mkeys() failed to get remote key"
    assert srcprov.level_form(text, "memheap_base_mkey.c", " - memheap_oob_get_mkeys() failed")[0] == "WARN"


# --------------------------------- tools/gen_cuda_errors.py: glog's CHECK_EQ against cudaSuccess names the CUDA code

@pytest.mark.parametrize("line, eid", [
    # AM's IBM POWER9 page: the line as quoted there
    ("cudaSuccess (3 vs. 0) initialization error", "cuda.init_failed"),
    # Caffe's CUDA_CHECK (BVLC/caffe include/caffe/util/device_alternate.hpp: CHECK_EQ(error, cudaSuccess) << " "
    # << cudaGetErrorString(error)) through glog's CHECK_OP message ("Check failed: %s (%v vs. %v) ")
    ("F1127 10:00:00.000000  1234 syncedmem.cpp:71] Check failed: error == cudaSuccess (2 vs. 0)  out of memory",
     "cuda.oom"),
])
def test_a_check_against_cuda_success_names_the_code(line, eid, kb):
    assert _res(line + "\n", kb)["findings"][0]["id"] == eid


def test_seen_check_line(kb):
    assert _res(seen_text("am-ibm-power9-cpuset-cuda-init"), kb)["findings"][0]["id"] == "cuda.init_failed"


def test_a_plain_error_text_without_cuda_context_is_not_read(kb):
    r = _res("database connection: initialization error\n", kb)
    assert not r["findings"] or not r["findings"][0]["id"].startswith("cuda.")


# ------------------------------------------ gen_ssh_messages: ssh.c's own consistency checks of options and config

def test_ssh_command_line_and_remote_command(kb):
    # P35 (its own sshd nodes here): a command on ssh's command line for a host whose ssh_config sets RemoteCommand
    # (OpenSSH ssh.c main: fatal("Cannot execute command-line and remote command."))
    r = _res(seen_text("p35-ssh_config_remotecommand_with_command"), kb)
    f = r["findings"][0]
    assert f["id"] == "ssh.config"
    assert "RemoteCommand=none" in " ".join(f["causes"][0]["fix"])


def test_ssh_option_conflict_sites_are_assigned():
    from gpudoctor.explain.knowledge import read_generated

    sites = {x["text"]: x for x in read_generated("ssh_messages")["sites"]}
    for text in ("inconsistent options: ProxyCommand+ProxyJump", "Cannot specify -J with ProxyCommand"):
        assert sites[text]["family"] == "ssh.config"
    assert sites["Pseudo-terminal will not be allocated because stdin is not a terminal."]["family"] is None


# ------------------------------- explicit._refusal_hits: a service's program refused its command line, then its usage

def test_a_start_script_refusing_its_option(kb):
    # AI's NVIDIA/gpu-operator#1595: the fabric manager's start script stops on an option it does not take
    r = _res(seen_text("ai-gpuop1595-fm-start-script-unknown-option"), kb)
    f = r["findings"][0]
    assert f["id"] == "fabric.manager_start" and "usage" in " ".join(f["notes"])


def test_a_refusal_whose_usage_names_no_service_is_not_read(kb):
    # an unknown program's usage (no family of its own): not answered as a service's
    text = "Unknown option: --frobnicate\nUsage: /usr/local/bin/mytool [options]\n  -h  help\n"
    r = _res(text, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "fabric.manager_start"


# ------------------------------------------- pytb.where: a compiled (Cython) module's frame is its package's, not yours

@pytest.mark.parametrize("path, got", [
    ("numpy/random/_generator.pyx", ("lib", "numpy")),  # P35's frame
    ("pyarrow/error.pxi", ("lib", "pyarrow")),  # P29 / P14's frame
    ("/home/me/proj/fast.pyx", ("user", None)),  # an absolute path: a file of the user's
    ("train.py", ("user", None)),
])
def test_cython_frames(path, got):
    from gpudoctor.explain import pytb

    assert pytb.where(path) == got


def test_a_numpy_cython_raise_is_no_user_code(kb):
    # P35: datasets.interleave_datasets -> numpy's Generator.choice raised; it was 'raised by your script at
    # numpy/random/_generator.pyx' (code.exception, root_cause)
    r = _res(seen_text("p35-datasets_interleave_probabilities_not_normalized"), kb)
    f = r["findings"][0]
    assert r["verdict"] != "root_cause" and "numpy" in " ".join(f["notes"])
    assert "your script at numpy" not in " ".join(f["notes"])


# ---------------------------------------- pyanswer._jax_filtered: JAX removed its frames, so JAX raised, not the user

def test_jax_filtered_traceback_is_jax_raising(kb):
    # P30 (planted on H100s): jit called with arguments on two devices; JAX's note after the exception says it removed
    # its internal frames (jax/_src/traceback_util.py); it was 'raised by your script' (code.exception, root_cause)
    r = _res(seen_text("p30-jax_jit_args_on_two_devices"), kb)
    f = r["findings"][0]
    assert f["id"] == "jax.usage" and "JAX_TRACEBACK_FILTERING=off" in " ".join(f["notes"])


def test_a_user_raise_without_jax_note_stays_the_user(kb):
    text = ('Traceback (most recent call last):\n  File "/home/me/train.py", line 11, in <module>\n'
            '    raise ValueError("bad batch")\nValueError: bad batch\n')
    assert _res(text, kb)["findings"][0]["id"] == "code.exception"


# ---------------------------------------- srcprov.site_message_finding: a Python library's message cut short (elided)

def test_a_cut_ray_message_names_its_site(kb):
    # AO's LWS thread (kubernetes-sigs/lws): Ray's ray/_private/node.py message quoted with '...' in its middle
    r = _res(seen_text("ao-lws-ray-worker-hostnetwork-ip"), kb)
    f = r["findings"][0]
    assert f["id"] == "ray.start" and "node.py" in " ".join(f["notes"])


def test_a_line_that_goes_on_with_other_words_is_not_the_site(kb):
    from gpudoctor.explain import srcprov

    cut = "Exception: The current node timed out during startup ... raylet failed to startup"
    other = "Exception: The current node timed out during startup of my own service, retrying in 5 s"
    assert srcprov.site_rows(cut, kb.by_id) and not srcprov.site_rows(other, kb.by_id)
    assert not srcprov.site_rows("Exception: The current node timed out", kb.by_id)  # too few words


# ------------------------------------ explicit: a CDI device name the engine looked up as a device file (no CDI there)

def test_a_cdi_name_stat_as_a_path(kb):
    # AO (NVIDIA/nvidia-container-toolkit#63): podman 3.0.1 given --device=nvidia.com/gpu=0, the error quoted in
    # backticks in the thread's sentence
    r = _res(seen_text("ao-podman3-no-native-cdi"), kb)
    f = r["findings"][0]
    assert f["id"] == "container.oci_device" and "4.1" in f["causes"][0]["text"]
    assert "nvidia-ctk cdi generate" in " ".join(f["causes"][0]["fix"])


def test_a_device_path_that_is_missing_is_no_cdi_name(kb):
    r = _res("Error: stat /dev/nvidia3: no such file or directory\n", kb)
    assert not r["findings"] or "CDI device name" not in " ".join(r["findings"][0]["notes"])
