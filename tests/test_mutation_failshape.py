"""Cases for the mutants of gpudoctor/explain/failshape.py (docs/mutation.md, seventh round).

test_explain_failshape.py checks the root and a word or two of each answer. These scan one line (or a few) of each
shape failshape reads, in the form the program that prints it writes it (bash execute_cmd.c / jobs.c, zsh, Ubuntu's
command-not-found, gdb corelow.c / infrun.c / stack.c, torchrun's agent and SignalException, curl's 'curl: (%d) %s'
under enroot / pyxis, the CUDA device runtime's assert, THC's cuBLAS check, Open MPI's CMA read, kubectl's
OOMKilled and the kubelet's eviction message, systemd's service.c: quoted in failshape.py) and compare what
failshape itself adds - which line it answers, the entry, the why in the how-sure note, its own note and its first
fix - with the reviewed table tests/test_mutation_failshape.json (regenerate on purpose with
GPUDOCTOR_REGEN_GOLDEN=1 and review the diff, as for tests/golden/)."""

import io
import json
import os

import pytest

from gpudoctor.explain import failshape as F
from gpudoctor.explain.analyze import _structural_finding
from gpudoctor.explain.scan import Scan, scan_stream

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "test_mutation_failshape.json")
REGEN = os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1"
with open(GOLDEN, encoding="utf-8") as _f:
    WANT = json.load(_f)

SO = "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"
TEXTS = {
    # shells
    "bash_notfound": "bash: line 1: deepspeed: command not found\n",
    "zsh_notfound": "zsh: command not found: torchrun\n",  # (zsh Src/exec.c: zerr("command not found: %s"))
    "zsh_script": "zsh:1: command not found: accelerate\n",  # (zerr's prefix in a script: '<name>:<line>: ')
    "ubuntu_notfound": "Command 'python' not found, did you mean:\n",
    "notfound_case": "bash: Accelerate: command not found\n",
    "notfound_other_first": "bash: frobnicate: command not found\nbash: pip: command not found\n",
    "notfound_other": "bash: frobnicate: command not found\n",
    "bus_error": "run.sh: line 2: 13277 Bus error               python3 train.py\n",
    "bus_error_core": "Bus error (core dumped)\n",
    "killed": "run.sh: line 3: 13319 Killed                  python3 train.py\n",
    "killed_prefix": "[1,0]<stderr>:Killed\n",
    # gdb
    "gdb_site": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007f92fef2548f in at::cuda::blas () from "
                + SO + "\n",
    "gdb_wrapped": "Program terminated with signal SIGABRT, Aborted.\n#0  0x00007f92fef2548f in c10::fn() ()\n   from "
                   "/opt/torch/lib/libc10.so\n",
    "gdb_dist": "Program terminated with signal SIGBUS, Bus error.\n#0  0x0000000000401000 in f ()"
                " from /usr/lib/python3/dist-packages/torch/lib/libtorch.so.2\n",
    "gdb_no_package": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007ffff7149f7a in ?? () from "
                      "/lib/x86_64-linux-gnu/libffi.so.8\n",
    "gdb_unknown_package": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007ffff7149f7a in g () from "
                           "/opt/venv/lib/python3.11/site-packages/nosuchpkg/lib/x.so\n",
    "gdb_no_library": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x0000000000401000 in main ()\n",
    "gdb_lib_not_next": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x0000000000401000 in f ()\n"
                        "#1  0x0000000000401001 in g ()\n   from " + SO + "\n",
    "gdb_flash_attn": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007f in fwd () from /opt/venv/lib/"
                      "python3.11/site-packages/flash_attn/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so\n",
    "gdb_long": "Program received signal SIGSEGV, Segmentation fault.\n#0  0x00007f in " + "n" * 85 + " () from /opt/"
                + "d" * 40 + "/site-packages/torch/lib/lib" + "t" * 85 + ".so\n",
    "gdb_frame_before": "#0  0x00007f92fef2548f in f () from " + SO + "\nProgram received signal SIGSEGV, Segmentation "
                        "fault.\n",
    "gdb_frame_far": "Program received signal SIGSEGV, Segmentation fault.\n" + "x\n" * 40 +
                     "#0  0x00007f92fef2548f in f () from " + SO + "\n",
    "gdb_frame_at_40": "Program received signal SIGSEGV, Segmentation fault.\n" + "x\n" * 39 +
                       "#0  0x00007f92fef2548f in f () from " + SO + "\n",
    # torchrun's agent
    "agent_hup": "WARNING:torch.distributed.elastic.agent.server.api:Received 1 death signal, shutting down workers\n",
    "agent_term_name": "Received Signals.SIGTERM death signal, shutting down workers\n",
    "agent_kill": "torch.distributed.elastic.multiprocessing.api.SignalException: Process 7 got signal: 9\n",
    "agent_int": "torch.distributed.elastic.multiprocessing.api.SignalException: Process 7 got signal: 2\n",
    "agent_quit": "Received 3 death signal, shutting down workers\n",
    "agent_unknown": "raise SignalException\ntorch.distributed.elastic.multiprocessing.api.SignalException\n",
    "agent_usr1": "Received 10 death signal, shutting down workers\n",
    # curl under enroot / pyxis
    "curl_tls": "$ enroot import docker://nvcr.io#nvidia/pytorch:24.01-py3\ncurl: (60) SSL certificate problem: "
                "self signed certificate in certificate chain\n",
    "curl_net": "pyxis: importing docker image: nvcr.io#nvidia/pytorch\ncurl: (6) Could not resolve host: nvcr.io\n",
    "curl_other": "enroot create image.sqsh\ncurl: (22) The requested URL returned error: 401\n",
    "curl_alone": "curl: (7) Failed to connect to nvcr.io port 443\n",
    # CUDA assert, THC, CMA, Kubernetes, systemd
    "assert": "Indexing.cu:1146: indexSelectLargeIndex: block: [58,0,0], thread: [21,0,0] Assertion srcIndex < "
              "srcSelectDimSize failed.\n",
    "thc": "cublas runtime error : resource allocation failed at THCGeneral.c:411\n",
    "thc_old_spelling": "cublas runtime error : ressource allocation failed at THCGeneral.c:411\n",
    "thc_no_entry": "cublas runtime error : an access to gpu memory space failed at THCGeneral.c:411\n",
    "thc_unknown": "cublas runtime error : something else happened at THCGeneral.c:411\n",
    "cma_eperm": "Read -1, expected 4096, errno = 1\n",
    "cma_v5": "CMA read -1, expected 65536, errno =14\n",
    "k8s_oom": "train-worker-0   0/1   OOMKilled   3 (40s ago)   5m\n",
    "k8s_memory": "Message: The node was low on resource: memory. Container train was using 60Gi.\n",
    "k8s_disk": "Message: The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi\n",
    "k8s_pids": "Message: The node was low on resource: pids.\n",
    "unkillable": "train.py: CUDA error: unspecified launch failure\nslurmd.service: Processes still around after "
                  "SIGKILL. Ignoring.\n",
    "unkillable_alone": "slurmd.service: Processes still around after SIGKILL. Ignoring.\n",
    # the first line that can be answered, and an info line
    "first_of_two": "curl: (6) Could not resolve host: x\nenroot import docker://x\nrun.sh: line 9: 77 Killed   "
                    "python3 t.py\n",
    "signal_before_curl": "run.sh: line 3: 13319 Killed   python3 t.py\nenroot import docker://x\n"
                          "curl: (6) Could not resolve host: x\n",
    "assert_long": "k.cu:1: f: block: [1,0,0], thread: [2,0,0] Assertion " + "i" * 130 + " failed.\n",
    "info_line": "INFO: zsh: command not found: torchrun\n",
}


def _scan(text, kb):
    s = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, s, "<t>")
    return s


def _got(text, kb):
    s = _scan(text, kb)
    hit = F._answer_hit(s)
    f = F.structural(s, kb)
    if f is None:
        return {"seen": F.seen(s), "hit": [hit[0], hit[1].line] if hit else None, "root": None}
    # what the entry gives on its own (knowledge text, not failshape's): named, not copied
    base = _structural_finding(kb.by_id[f["id"]], hit[1], "-", s)
    first_fix = f["causes"][0]["fix"][0] if f["causes"][0]["fix"] else None
    return {"seen": F.seen(s), "hit": [hit[0], hit[1].line],
            "root": {"id": f["id"], "first_note": f["notes"][0],
                     "last_note": "<the entry's own>" if f["notes"][-1] == base["notes"][-1] else f["notes"][-1],
                     "first_fix": "<the entry's own>" if base["causes"][0]["fix"][:1] == [first_fix] else first_fix}}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_failshape_whole(kb, name):
    got = _got(TEXTS[name], kb)
    if REGEN:
        WANT[name] = got
        return
    assert name in WANT, "no expectation for %s: regenerate with GPUDOCTOR_REGEN_GOLDEN=1 and review" % name
    assert got == WANT[name]


def test_title_and_the_table():
    assert F._title(" bUS ERROR ") == "Bus error" and F._title(None) == "" and F._title("k") == "K"
    if REGEN:
        for k in list(WANT):
            if k not in TEXTS:
                del WANT[k]
        with open(GOLDEN, "w", encoding="utf-8") as f:
            json.dump(WANT, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    assert set(WANT) == set(TEXTS)
