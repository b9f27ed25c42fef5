"""review20: regressions found while reviewing session 20's commits (issue 18), each a text that was answered wrong.

Every test runs in process (explain.explain_text); no sleeps, no subprocess.
"""

import re

import pytest

from gpudoctor import explain
from gpudoctor.explain import runend


@pytest.mark.parametrize("text", [
    # a C / POSIX failure return printed as a 'return code' is no signal (1fa598a read it as SIGHUP)
    "ERROR: command 'nvcc' failed with return code -1\n",
    "cudaGetDeviceCount returned -1 (return code: -1)\n",
])
def test_a_minus_one_return_code_is_no_signal(text):
    assert runend.signal_of("-1") is None
    res = explain.explain_text(text)
    assert res["root"] != "cascade.signal", res["root"]
    assert "SIGHUP" not in " ".join(n for f in res["findings"] for n in f.get("notes") or [])


def test_a_pasted_path_stays_one_shell_word_in_the_eexist_fix():
    # e22f07f wrote "ls -ld '%s'" around the path the message prints: a path holding a quote ended the quoting and
    # the rest ran ($(...)) when the line was pasted into a shell (CPython prints such a path in double quotes)
    text = ('Traceback (most recent call last):\n'
            '  File "/home/u/train.py", line 12, in <module>\n'
            '    os.makedirs(out_dir, exist_ok=True)\n'
            '  File "<frozen os>", line 225, in makedirs\n'
            'FileExistsError: [Errno 17] File exists: "/scratch/it\'s $(touch x)/out"\n')
    res = explain.explain_text(text)
    assert res["root"] == "errno.eexist"
    line = next(x for x in res["findings"][0]["causes"][0]["fix"] if x.startswith("ls -ld "))
    word = line[len("ls -ld "):].split(" (a regular file?)")[0]
    # one ANSI-C quoted word (bash(1) QUOTING): every quote inside it escaped, no blank
    assert re.fullmatch(r"\$'(?:[^'\\\s]|\\.)*'", word), word


def test_a_kind_of_a_crd_group_is_a_crd_not_installed_not_a_removed_api():
    # https://github.com/rancher/opni/issues/186 (the GPU operator's ClusterPolicy controller, controller-runtime
    # v0.11): ServiceMonitor is prometheus-operator's CRD (monitoring.coreos.com), absent from that cluster. 584e335
    # read every NoKindMatchError as an API a Kubernetes release removed and said 'upgrade the NVIDIA GPU Operator'.
    text = ('[21:25:16] ERROR controller.clusterpolicy-controller Reconciler error {"name": "gpu", "namespace": "", '
            '"error": "no matches for kind \\"ServiceMonitor\\" in version \\"monitoring.coreos.com/v1\\""}\n')
    res = explain.explain_text(text)
    assert res["root"] == "k8s.gpu_operator"
    first = res["findings"][0]["causes"][0]
    assert "CustomResourceDefinition" in first["text"] and "monitoring.coreos.com" in first["text"]
    assert "upgrade" not in first["fix"][0]
    assert "install the CustomResourceDefinition of ServiceMonitor" in first["fix"][0]
    # a group Kubernetes serves itself (node.k8s.io) keeps the removed-API reading (canonical/microk8s.io#559)
    text = text.replace("ServiceMonitor", "RuntimeClass").replace("monitoring.coreos.com/v1", "node.k8s.io/v1beta1")
    first = explain.explain_text(text)["findings"][0]["causes"][0]
    assert "upgrade the NVIDIA GPU Operator" in first["fix"][0]


@pytest.mark.parametrize("text, url", [
    # CUDA's own message, quoted on verl's FAQ ('during rollout, check the vLLM documentation') and DeepSpeed's install
    # guide (TORCH_CUDA_ARCH_LIST for a DeepSpeed build from source), and torch's OOM on transformers' page
    # (TrainingArguments): a text of no such project got that project's remedy as its second cause (cf20c68 / 7897442)
    ("RuntimeError: CUDA error: an illegal memory access was encountered\n", "faq.html#illegal-memory-access"),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
     "#building-for-the-correct-architectures"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
     "of which 1.2 GiB is free.\n", "troubleshooting#cuda-out-of-memory"),
])
def test_a_remedy_for_another_programs_message_needs_the_project_in_the_text(text, url):
    def doc(t):
        f = explain.explain_text(t)["findings"][0]
        return [c["doc_section"] for c in f["causes"] if c.get("doc_section")]

    assert not [u for u in doc(text) if url in u]
    # the same message under the project's own frame keeps the page's remedy
    pkg = {"faq.html": "verl/workers/rollout/vllm_rollout.py", "#building": "deepspeed/ops/op_builder/builder.py",
           "troubleshooting#cuda": "transformers/trainer.py"}
    path = next(v for k, v in pkg.items() if url.startswith(k))
    framed = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.11/site-packages/%s", line 200, in '
              'run\n    out = step()\n%s' % (path, text))
    assert [u for u in doc(framed) if url in u]


@pytest.mark.parametrize("name, word", [
    ("hostfile", "hostfile.hosts"),
    # a name holding a command substitution stays one quoted word (220e2e7 wrote it bare into 'awk ... > NAME.hosts')
    ("h$(touch${IFS}/tmp/x)", "'h$(touch${IFS}/tmp/x).hosts'"),
])
def test_the_pdsh_hostfile_fix_quotes_the_file_name(name, word):
    # pdsh 2.34 output of a 'host slots=N' file (fixtures/explain/clidocs20/pdsh_hostfile_with_slots.txt's form)
    text = ("$ pdsh -R ssh -w ^'%s' \"nproc\"\n"
            "slots=2: ssh: Could not resolve hostname slots=2: Name or service not known\n"
            "pdsh@vm: slots=2: ssh exited with exit code 255\n"
            "localhost: 2\n" % name)
    fixes = explain.explain_text(text)["findings"][0]["causes"][0]["fix"]
    line = next(x for x in fixes if x.startswith("give pdsh a file of host names alone"))
    assert "> %s && pdsh -w ^%s ..." % (word, word) in line, line


def test_an_srun_inside_an_salloc_that_asked_for_gpus_is_not_a_step_without_gpus():
    # srun(1) --gres (slurm-client 22.05.8): "By default, a job step is allocated all of the generic resources that
    # have been requested by the job": e22f07f's slurm.step_without_gpus read the srun line alone
    text = ("$ salloc -N 1 --gres=gpu:1\nsalloc: Granted job allocation 12\n$ srun -N 1 nvidia-smi\n"
            "No devices were found\n")
    assert explain.explain_text(text)["root"] != "slurm.step_without_gpus"
    # an salloc that asked for no GPU: the step has none (the reading stands)
    assert explain.explain_text(text.replace(" --gres=gpu:1", ""))["root"] == "slurm.step_without_gpus"


def test_guards_the_new_readers_state_but_no_test_held():
    # (mutating each guard out left its own tests green)
    # runend.py: "a line of a run that went on afterwards is not what stopped it"
    text = ("Epoch 3/10 loss=0.12\nTraining end with return code: 137\nEpoch 4/10 step 100 loss=0.11\n"
            "Epoch 4/10 step 200 loss=0.10\nEpoch 4/10 step 300 loss=0.09\n")
    assert explain.explain_text(text)["root"] != "elastic.sigkill"
    # clidocs (231b9fb): an option the message names but does not refuse as unknown, absent from the 22.05 page
    # (Slurm 23.11's --tres-per-task), is not 'not an option of srun'
    res = explain.explain_text("$ srun --tres-per-task=gres/gpu:1 -n 2 hostname\n"
                               "srun: error: Invalid --tres-per-task specification\n")
    assert not [x for c in res["findings"][0]["causes"] for x in c["fix"] if "is not an option of srun" in x]


def test_doc_remedy_sentences_that_only_describe_or_point_elsewhere_are_not_kept():
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    import gen_doc_remedies as gen

    blocks = [("p", "Based on the reward signal and the model's output, the loss is computed, and the backward pass "
                    "is performed to update the model's weights. Follow these steps to resolve the issue:"),
              ("p", "If you are exclusively using GDA arguments to pjit, you can skip this section!"),
              ("p", "If you encounter this issue, you need to upgrade the `datasets` library to the latest version.")]
    # trl's vllm_integration page, Megatron-Bridge's bridge-guide, jax's jax_array_migration (cf20c68 kept all three)
    assert gen.remedies(blocks) == ["If you encounter this issue, you need to upgrade the `datasets` library to the "
                                    "latest version."]


def test_the_loss_scale_floor_is_one_number():
    # equal pairs at different scales are DeepSpeed's hysteresis steps, not the floor (1c9dce2 counted any equal pair)
    text = ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 262144, reducing to 262144\n"
            "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 262144, reducing to 131072\n"
            "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 65536\n")
    assert explain.explain_text(text)["root"] != "torch.loss_nan"
    floor = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n"
    assert explain.explain_text(text + floor * 2)["root"] == "torch.loss_nan"


def test_mdoc_spacing_and_enclosures_are_read():
    # ssh_config(5) ProxyJump and ssh(1) -L in openssh-client 1:9.2p1-2+deb12u10 (mdoc source): 08ac034 quoted them as
    # 'user @ host : port' and 'bind_address : port : host : hostport' (mdoc's Sm off / Ns / Op / Oo ignored)
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    import gen_cli_docs as gen

    assert gen.mdoc_text("Specifies one or more jump proxies as either\n.Xo\n.Sm off\n.Op Ar user No @\n.Ar host\n"
                         ".Op : Ns Ar port\n.Sm on\nor an ssh URI\n.Xc .") == \
        "Specifies one or more jump proxies as either [user@]host[:port] or an ssh URI."
    assert gen.mdoc_text(".Sm off\n.Oo Ar bind_address : Oc\n.Ar port : host : hostport\n.Sm on") == \
        "[bind_address:]port:host:hostport"
    assert gen.mdoc_text("between the client\n.Pq Ar local_tun\nand the server\n.Pq Ar remote_tun .") == \
        "between the client (local_tun) and the server (remote_tun)."


def test_a_page_about_one_case_of_a_message_does_not_answer_its_other_cases():
    # Lightning's accelerator_connector fills the accelerator's class into '`<class>` can not run on your system since
    # the accelerator is not available'; the MPS page's remedy (re-install an Apple M1/M2 Python) quotes the
    # `MPSAccelerator` case and was given to CUDA users too (cf20c68)
    def doc(t):
        f = explain.explain_text(t)["findings"][0]
        return [c["doc_section"] for c in f["causes"] if c.get("doc_section")]

    msg = ("lightning_fabric.utilities.exceptions.MisconfigurationException: `%s` can not run on your system since the "
           "accelerator is not available. The following accelerator(s) is available and can be passed into "
           "`accelerator` argument of `Trainer`: ['cpu'].\n")
    assert not [u for u in doc(msg % "CUDAAccelerator") if "mps_basic" in u]
    assert [u for u in doc(msg % "MPSAccelerator") if "mps_basic" in u]


@pytest.mark.parametrize("text", [
    # megatron's 'num_layers_in_first_pipeline_stage must be larger than 0' without its name: the predicate alone is
    # any program's (8114f5a answered megatron.args)
    "must be larger than 0.\n",
    # YAML's 'control characters are not allowed' without 'control': a sentence of Slurm's sacctmgr(1) too
    "characters are not allowed in the name\n",
])
def test_a_headless_line_needs_words_of_its_own(text):
    assert explain.explain_text(text)["verdict"] == "no_error"
