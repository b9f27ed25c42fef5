"""A family and a next step for texts that had no answer (noanswer20, issue 18 item 2): a run's end status that names
the signal that ended it (gpudoctor/explain/runend.py: bash(1)'s 128+N, subprocess' -N, signal(7)), and a client
still retrying when the text ends, named by its logger (gpudoctor/explain/waitloop.py: logging.getLogger(__name__),
the module's family from generated/lib_modules.json).

Texts: outputs made here by the real programs (GNU bash 5.2.15 and CPython 3.11.7's subprocess on Debian bookworm;
the commands are in the comments), the seen held-out sets (bench/data/explain_heldout_*.jsonl, cited by case id;
each case's url is its public source), and lines from public threads (cited by URL)."""

import pytest

from gpudoctor import explain
from gpudoctor.explain import runend
from explainhelp import ANSWERED, seen_text


def _res(text, kb):
    return explain.explain_text(text, kb)


def _root(text, kb):
    r = _res(text, kb)
    assert r["verdict"] in ANSWERED + ("echo_only",), (r["verdict"], text[:200])
    return r["findings"][0]


@pytest.mark.parametrize("code, sig", [("137", "SIGKILL"), ("-9", "SIGKILL"), ("135", "SIGBUS"), ("139", "SIGSEGV"),
                                       ("134", "SIGABRT"), ("143", "SIGTERM"), ("-15", "SIGTERM")])
def test_the_end_status_names_its_signal(code, sig):
    assert runend.signal_of(code)[1] == sig


@pytest.mark.parametrize("code", ["0", "1", "2", "127", "128", "160", "255", "-64", "x"])
def test_an_exit_status_of_the_program_own_is_no_signal(code):
    assert runend.signal_of(code) is None


@pytest.mark.parametrize("text, eid", [
    # bash 5.2.15: bash -c 'bash -c "kill -9 \$\$"; echo "exit code $?"' (the job report line is bash's own too,
    # read by failshape; the echo alone here)
    ("exit code 137\n", "elastic.sigkill"),
    # CPython 3.11.7: subprocess.check_call("sh -c 'kill -BUS $$'; exit $?", shell=True) -> CalledProcessError
    ("Command 'sh -c 'kill -BUS $$'; exit $?' returned non-zero exit status 135.\n", "elastic.sigbus"),
    # CPython 3.11.7, the same with kill -SEGV: a signal no one cause is documented for is the echo's
    ("Command 'sh -c 'kill -SEGV $$'; exit $?' returned non-zero exit status 139.\n", "cascade.signal"),
    # CPython 3.11.7: subprocess.run(['sh', '-c', 'kill -9 $$']).returncode, printed by the caller
    ("worker 3 exited, returncode=-9\n", "elastic.sigkill"),
])
def test_a_run_end_status_is_answered_by_its_signal(text, eid, kb):
    f = _root(text, kb)
    assert f["id"] == eid
    notes = " ".join(f["notes"])
    assert "How sure: low" in notes and "128+N" in notes and "read" in notes


def test_a_cloud_service_run_end_code(kb):
    # Huawei Cloud ModelArts, "Training Job Process Exits Unexpectedly" (seen set AJ): its service log's own line
    f = _root(seen_text("aj-modelarts-training-end-return-code-137"), kb)
    assert f["id"] == "elastic.sigkill"
    assert "dmesg" in " ".join(f["notes"])


@pytest.mark.parametrize("text", [
    "job done, exit code 0\n",
    "step 100 loss 0.31\nexit status 1\n",  # the program's own status: no signal, and no failure line of its own
    # a run that went on after the status line (a retried job's first attempt)
    "attempt 1: exit code 137\n" + "".join("step %d loss 0.%d\n" % (i, 9 - i) for i in range(5)) + "Training done\n",
])
def test_no_signal_or_a_run_that_went_on_is_not_answered(text, kb):
    r = _res(text, kb)
    assert not any(f["id"] in ("elastic.sigkill", "cascade.signal") for f in r["findings"]), r["findings"][:1]


TRL_LOG = ("accelerate launch --num_processes 3 scripts/run_r1_grpo.py --config grpo.yaml\n\n" +
           "INFO:trl.extras.vllm_client:Server is not up yet. Retrying in 2.0 seconds...\n" * 3)


def test_a_client_retrying_at_the_end_is_its_module_family(kb):
    # trl 0.19.1 trl/extras/vllm_client.py VLLMClient.check_server: logger.info(f"Server is not up yet. Retrying in
    # {retry_interval} seconds..."), its logger logging.getLogger(__name__) in logging.BASIC_FORMAT
    f = _root(TRL_LOG, kb)
    assert f["id"] == "trl.vllm"
    assert "trl vllm-serve" in " ".join(x for c in f["causes"] for x in c["fix"])
    assert "retries" in " ".join(f["notes"])
    # the seen case (philschmid/deep-learning-pytorch-huggingface#83, set AH)
    assert _root(seen_text("ah-philschmid83-trl-grpo-vllm-server-not-up"), kb)["id"] == "trl.vllm"
    # the cookbook's format '%(asctime)s - %(name)s - %(levelname)s - %(message)s'
    text = "".join("2025-03-01 10:00:0%d,101 - trl.extras.vllm_client - INFO - Server is not up yet. Retrying in "
                   "2.0 seconds...\n" % i for i in range(3))
    assert _root(text, kb)["id"] == "trl.vllm"


@pytest.mark.parametrize("text", [
    # the wait ended: the server came up (trl's own next line) and training went on
    TRL_LOG + "INFO:trl.extras.vllm_client:Server is up!\n{'loss': 0.1, 'epoch': 0.01}\n",
    # one retry only
    "INFO:trl.extras.vllm_client:Server is not up yet. Retrying in 2.0 seconds...\n",
    # a module no table assigns (its family unknown): not answered, and never 'an error' for it
    "INFO:mypkg.client:Server is not up yet. Retrying in 2.0 seconds...\n" * 3,
])
def test_a_wait_that_ended_or_an_unknown_module_is_not_answered(text, kb):
    r = _res(text, kb)
    assert not any(f["id"] == "trl.vllm" for f in r["findings"])
    if "mypkg" in text:
        assert r["verdict"] == "no_error"


# ------------------------------------------------------------------ an operator's failed reconcile (k8sctrl.py)

def test_the_controller_table_regenerates_from_its_slice(tmp_path, kb):
    import os
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(repo, "tools"))
    import gen_k8s_controllers as g
    import knowgen

    got = knowgen.regenerated(g.main, os.path.join(repo, "tools", "data", "k8s_controllers_slice.txt"),
                              tmp_path / "c.json")
    committed = knowgen.committed("k8s_controllers")
    for d in (got, committed):
        d["header"].pop("date")
    assert got == committed
    table = committed["controllers"]
    # the operators' own names (controller.New / Named), never the builder's Kind default (Kueue's job integration
    # names its JobSet controller 'jobset' too: pkg/controller/jobframework/reconciler.go) nor a core kind's
    assert table["clusterpolicy-controller"]["family"] == "k8s.gpu_operator"
    assert table["multikueue_workload"]["family"] == "k8s.kueue"
    assert "jobset" not in table and "pod" not in table and "upgrade-controller" not in table
    assert {r["family"] for r in table.values()} - {None} <= set(kb.by_id)


def test_a_reconciler_error_names_its_operator(kb):
    # canonical/microk8s.io#559 (seen set AI): controller-runtime v0.11's zap console line, logger
    # 'controller.clusterpolicy-controller', apimachinery's NoKindMatchError in its error field
    f = _root(seen_text("ai-microk8sio559-runtimeclass-v1beta1"), kb)
    assert f["id"] == "k8s.gpu_operator"
    first = f["causes"][0]
    assert "RuntimeClass" in first["text"] and "node.k8s.io/v1beta1" in first["text"]
    assert "upgrade the NVIDIA GPU Operator" in first["fix"][0]
    assert "kubectl logs" in " ".join(f["notes"])
    # controller-runtime v0.15+'s JSON form (pkg/controller/controller.go: WithValues("controller", name, ...)),
    # with the GPU operator's nvidia-driver-controller (controllers/nvidiadriver_controller.go)
    line = ('{"level":"error","ts":"2026-01-13T10:57:04Z","msg":"Reconciler error","controller":'
            '"nvidia-driver-controller","controllerGroup":"nvidia.com","controllerKind":"NVIDIADriver",'
            '"name":"default","reconcileID":"3e1b","error":"failed to get ClusterPolicy"}\n')
    f = _root(line, kb)
    assert f["id"] == "k8s.gpu_operator" and "failed to get ClusterPolicy" in " ".join(f["notes"])


@pytest.mark.parametrize("line", [
    # the builder's default name: Kueue's log names its JobSet integration 'jobset' (not JobSet's operator)
    '{"level":"error","msg":"Reconciler error","controller":"jobset","controllerGroup":"jobset.x-k8s.io",'
    '"error":"admission webhook denied the request"}\n',
    # another project's controller (the AWS load balancer controller's 'ingress')
    '{"level":"error","msg":"Reconciler error","controller":"ingress","error":"couldn\'t auto-discover subnets"}\n',
])
def test_a_controller_the_table_does_not_own_is_not_answered_by_it(line, kb):
    r = _res(line, kb)
    assert not any(f["id"].startswith("k8s.") for f in r["findings"][:1]), r["findings"][:1]


# ------------------------------------------------------------ DeepSpeed's loss scaler at its floor (scalefloor.py)

def test_the_loss_scale_at_its_floor_is_a_nan_loss(kb):
    # the transformers debugging guide's DeepSpeed log (https://huggingface.co/docs/transformers/debugging, seen set
    # AJ): '[deepscale] OVERFLOW! ... Attempted loss scale: 1, reducing to 1' again and again at the end
    f = _root(seen_text("aj-transformers-debugging-deepspeed-fp16-overflow-scale-collapses-to-1"), kb)
    assert f["id"] == "torch.loss_nan"
    fixes = " ".join(f["causes"][0]["fix"])
    assert "bf16" in fixes and "initial_scale_power" in fixes


@pytest.mark.parametrize("text", [
    # a warm-up: DeepSpeed halves the scale (deepspeed/runtime/fp16/loss_scaler.py update_scale), then trains
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 32768, reducing to 16384\n"
    "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.01}\n",
    # at the floor twice, then training went on (a later loss line)
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n" * 2 +
    "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.01}\n",
    # at the floor once
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1\n"
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n",
])
def test_a_scaler_that_can_still_reduce_or_recovered_is_not_read(text, kb):
    r = _res(text, kb)
    assert r["verdict"] == "no_error", (r["verdict"], r["findings"][:1])


# ------------------------------------------------------- a known message pasted without its first words (headcut.py)

def test_a_message_without_its_first_words_is_its_entry(kb):
    # Huawei Cloud ModelArts' troubleshooting page quotes torch's warning without 'NVIDIA A100... with' (seen set AJ):
    # cuda.no_kernel_image's pattern starts 'with CUDA capability sm_\d+ is not compatible ...'
    f = _root(seen_text("aj-modelarts-image-torch-no-sm80-a100"), kb)
    assert f["id"] == "cuda.no_kernel_image"
    assert "without its first words ('with ...')" in f["notes"][0]


@pytest.mark.parametrize("text", [
    # the same words inside a sentence (the line does not start where the message goes on)
    "I think CUDA capability sm_80 is not compatible with the current PyTorch installation here\n",
    # the case of the cut words matters: nvidia-smi's own 'Unable to determine the device handle ...' is not Open
    # MPI's 'ORTE was unable to ...'
    "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error\n",
    # a log, not a paste: its lines start where their program starts them
    "".join("step %d loss 0.5\n" % i for i in range(45)) +
    "CUDA capability sm_80 is not compatible with the current PyTorch installation.\n",
])
def test_a_line_that_is_not_a_cut_message_is_not_read_as_one(text, kb):
    r = _res(text, kb)
    assert not any("without its first words" in " ".join(f["notes"]) for f in r["findings"]), r["findings"][:1]
