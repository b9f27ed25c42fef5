"""explain on real recordings of session 30 (fixtures/recorded/lead30/README.md says how each was made).

- A bare IPv6 rendezvous endpoint: torchrun splits an endpoint that is not in [ ] at its last ':'
  (torch/distributed/elastic/rendezvous/utils.py parse_rendezvous_endpoint,
  https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/rendezvous/utils.py), so '::1' became
  host ':' and port 1; the fix is the bracketed form.
- A MASTER_PORT inside the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default:
  https://docs.kernel.org/networking/ip-sysctl.html) that something held: the fix is a port below it, or reserving it.
"""
import json
from pathlib import Path

import pytest
from inprocess import gd

ROOT = Path(__file__).resolve().parents[1]
REC = ROOT / "fixtures" / "recorded" / "lead30"


def _explain(path):
    # `gpudoctor explain --json PATH` in this process (tests/inprocess.py): these tests assert its output, and a
    # process each loaded explain's knowledge again (suite32: the 40 calls of test_lead30 and test_abi30 each gave
    # the subprocess's exit code, stdout and stderr)
    rc, out, err = gd(["explain", "--json", str(path)], ROOT)
    assert rc == 0, err  # a known error: exit 0 (docs/explain.md, exit codes)
    return json.loads(out)


def test_a_bare_ipv6_endpoint_gets_the_bracketed_form():
    fid, cause = _explain_first(REC / "rdzv-ipv6-bare.log")
    assert fid == "rendezvous.hostname"
    assert "without brackets" in cause["text"]
    assert any("[fd00::1]:29400" in f for f in cause["fix"]), cause


def test_a_port_in_the_ephemeral_range_gets_a_port_below_it():
    fid, cause = _explain_first(REC / "port-ephemeral-in-use.log")
    assert fid == "rendezvous.address_in_use"
    assert "ephemeral range" in cause["text"]
    assert any("below 32768" in f and "ip_local_reserved_ports" in f for f in cause["fix"]), cause


@pytest.mark.parametrize("port, first", [("29500", False), ("45123", True), ("32767", False), ("32768", True),
                                         ("60999", True), ("61000", False)])
def test_the_ephemeral_cause_leads_only_for_a_port_in_the_range(tmp_path, port, first):
    text = (REC / "port-ephemeral-in-use.log").read_text().replace("45123", port)
    p = tmp_path / "x.log"
    p.write_text(text)
    _fid, cause = _explain_first(p)
    assert ("ephemeral range" in cause["text"]) is first, cause["text"]


def test_a_bracketed_or_ipv4_host_is_not_read_as_a_bare_ipv6_endpoint(tmp_path):
    text = (REC / "rdzv-ipv6-bare.log").read_text().replace("(:, 1)", "(node7, 29400)").replace("host ::1", "host node7")
    p = tmp_path / "x.log"
    p.write_text(text)
    _fid, cause = _explain_first(p)
    assert "without brackets" not in cause["text"]


def _explain_first(path):
    doc = _explain(path)
    assert doc["verdict"] in ("root_cause", "likely_cause"), doc["verdict"]
    roots = [f for f in doc["findings"] if f["role"] == "root"]
    assert roots, doc
    return roots[0]["id"], roots[0]["causes"][0]


def test_a_compile_mode_with_an_underscore_gets_the_listed_mode():
    # torch/_inductor/__init__.py list_mode_options: 'Unrecognized mode=max_autotune, should be one of: default, lite,
    # reduce-overhead, max-autotune-no-cudagraphs, max-autotune' (no quotes around the value)
    doc = _explain(REC / "compile-mode-underscore.log")
    (root,) = [f for f in doc["findings"] if f["role"] == "root"][:1]
    assert root["causes"][0]["fix"][0].startswith("mode='max-autotune' (the message refuses 'max_autotune'")


def test_the_unquoted_form_is_read_only_before_a_list_cue():
    from gpudoctor.explain import choices

    assert choices.read("Unrecognized mode=max_autotune, should be one of: default, max-autotune")[:3] == (
        "max_autotune", ["default", "max-autotune"], "mode")
    assert choices.read("Invalid backend=nccl2, must be one of: gloo, nccl, mpi")[0] == "nccl2"
    assert choices.read("Unrecognized mode=max_autotune") is None  # no list of accepted values


def test_env_s_name_ending_in_a_carriage_return_is_the_crlf_script():
    # coreutils env quotes the name with its \r and then prints its -S advice (the \r is a blank to it): the advice
    # (exec.env_shebang_args, a '#!/usr/bin/env python3 -u' line) was the answer; the \r says CRLF line ends
    fid, cause = _explain_first(REC / "crlf-env-shebang.log")
    assert fid == "shell.crlf_line_ends"
    assert any("dos2unix" in f for f in cause["fix"])


@pytest.mark.parametrize("line, fid", [
    ("bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory", "shell.crlf_line_ends"),
    ("bash: ./run.sh: /opt/venv/bin/python3: bad interpreter: No such file or directory", "exec.interpreter_missing"),
    ("/usr/bin/env: 'python3 -u': No such file or directory", "exec.env_shebang_args"),
])
def test_a_carriage_return_in_the_interpreter_decides_it(tmp_path, line, fid):
    p = tmp_path / "x.log"
    p.write_text(line + "\n")
    assert _explain_first(p)[0] == fid


@pytest.mark.parametrize("log, fid, fix_has", [
    # CPython's importdl: the .so found as fast_ops exports PyInit_fastops
    ("pyinit.log", "loader.extension_init_name", "PYBIND11_MODULE(<the file's name>, m)"),
    # libstdc++'s dual ABI: 'RKSs' is the old ABI's const std::string&; torch 2.13's wheel uses the new one
    ("oldabi.log", "loader.undefined_symbol", "-D_GLIBCXX_USE_CXX11_ABI=$(python -c 'import torch; print(int("),
    # PEP 425 tags: a cp312 wheel on CPython 3.11
    ("wheeltag.log", "build.wheel_tag", "the file whose python tag is this Python's"),
    # a real SIGILL (AMX on a CPU without it) under torchrun: exitcode -4, 'Signal 4 (SIGILL) received by PID'
    ("sigill-amx-torchrun.log", "loader.illegal_instruction", "-march=x86-64-v3"),
])
def test_binary_compatibility_recordings(log, fid, fix_has):
    got, cause = _explain_first(REC / log)
    assert got == fid
    assert any(fix_has in f for f in cause["fix"]), cause["fix"]


def test_a_new_abi_symbol_of_another_torch_release_is_not_read_as_the_string_abi(tmp_path):
    # no std::string in the symbol: the torch-release cause, not the string-ABI one
    p = tmp_path / "x.log"
    p.write_text("ImportError: /x/ext.so: undefined symbol: _ZN3c104cuda20getCurrentCUDAStreamEa\n")
    _fid, cause = _explain_first(p)
    assert "string ABIs" not in cause["text"] and "another torch release" in cause["text"]


def test_a_script_without_a_shebang_under_torchrun_no_python():
    # execve(2): ENOEXEC for a text file without #!; Python raises OSError [Errno 8] (was errno.syscall, generic)
    fid, cause = _explain_first(REC / "no-shebang-no-python.log")
    assert fid == "exec.format_error"
    assert "without a '#!' line" in cause["text"] and any("#!/bin/bash" in f for f in cause["fix"])


def test_an_exec_format_error_of_a_binary_keeps_the_architecture_causes_first(tmp_path):
    p = tmp_path / "x.log"
    p.write_text("OSError: [Errno 8] Exec format error: '/opt/tools/bin/nccl-tests-aarch64'\n")
    fid, cause = _explain_first(p)
    assert fid == "exec.format_error" and "#!" not in cause["text"]


@pytest.mark.parametrize("log, fn, rule", [
    ("scaled-mm-half-scales.log", "torch._scaled_mm", "float32 scales"),
    ("multinomial-zero.log", "torch.multinomial", None),
])
def test_a_refusal_from_torchs_cpp_on_the_users_line_is_torchs(log, fn, rule):
    # an ATen op raises from the user's line (no frame of torch's): the call on that line, not 'your code' in general
    fid, cause = _explain_first(REC / log)
    assert fid == "torch.usage"
    assert cause["text"].startswith(fn + " refused the arguments your line gives it")
    assert any(rule in f for f in cause["fix"]) if rule else len(cause["fix"]) == 1


def test_a_users_own_raise_on_a_line_without_a_torch_call_stays_the_users(tmp_path):
    p = tmp_path / "x.log"
    p.write_text('Traceback (most recent call last):\n  File "/home/u/train.py", line 9, in <module>\n'
                 '    check(cfg)\n  File "/home/u/train.py", line 4, in check\n'
                 '    raise ValueError("lr must be positive")\nValueError: lr must be positive\n')
    doc = _explain(p)
    assert [f["id"] for f in doc["findings"] if f["role"] == "root"] != ["torch.usage"]


@pytest.mark.parametrize("log, says", [
    # real 4x H200 (gpu29) and 2x H200 (gpu28) INFO logs of one node: NET/IB found no HCA and the network plugin
    # is Socket, while the channels went 'via P2P/CUMEM' (and 'via SHM' with NCCL_P2P_DISABLE=1)
    ("h200x4-2026-11-28g/ar-nvlink.log", "its ranks talk over P2P (NVLink / PCIe) or shared memory"),
    ("h200x2-2026-11-28f/ar-p2poff.log", "its ranks talk over shared memory (SHM; NCCL_P2P_DISABLE set)"),
])
def test_a_one_node_info_log_says_the_network_is_not_what_the_ranks_use(log, says):
    doc = _explain(ROOT / "fixtures" / "recorded" / log)
    assert doc["verdict"] == "no_error"
    assert says in doc["nccl_info"]["summary"], doc["nccl_info"]["summary"]


GPU = ROOT / "fixtures" / "recorded" / "h200-2026-11-28-lead30"


@pytest.mark.parametrize("log, fid", [
    ("rowmajor.log", "torch.usage"), ("halfscale.log", "torch.usage"), ("odd.log", "usercode.shape_mismatch"),
])
def test_scaled_mm_refusals_on_a_real_h200_get_its_rules(log, fid):
    got, cause = _explain_first(GPU / log)
    assert got == fid
    assert any("column-major" in f and "multiple of 16" in f for f in cause["fix"]), cause["fix"]


def test_a_memory_fraction_given_as_an_int_on_a_real_h200():
    got, cause = _explain_first(GPU / "frac.log")
    assert got == "torch.usage" and any("a float between 0 and 1" in f for f in cause["fix"])


def test_an_extension_of_another_python_beside_the_missing_module():
    # importlib.machinery.EXTENSION_SUFFIXES: 3.11 loads only .cpython-311-*.so (and .abi3.so, .so)
    fid, cause = _explain_first(REC / "ext-other-python.log")
    assert fid == "code.python_env"
    assert "another Python version" in cause["text"] and any("build_ext --inplace" in f for f in cause["fix"])


@pytest.mark.parametrize("frames, exc", [
    # a library's frame raised, though its line calls torch: that library's refusal, not the user's call
    ('  File "/home/u/train.py", line 9, in <module>\n    y = fused(x)\n'
     '  File "/opt/venv/lib/python3.11/site-packages/fusedlib/ops.py", line 40, in fused\n'
     '    return torch.matmul(x, self_w)\n', "RuntimeError: bad workspace"),
    # the user's line calls torch.load, but a KeyError is the user's indexing of what it returned
    ('  File "/home/u/train.py", line 9, in <module>\n    state = torch.load(p)["model"]\n', "KeyError: 'model'"),
])
def test_a_torch_call_on_the_line_is_not_enough(tmp_path, frames, exc):
    p = tmp_path / "x.log"
    p.write_text("Traceback (most recent call last):\n" + frames + exc + "\n")
    doc = _explain(p)
    for f in doc["findings"]:
        for c in f.get("causes") or []:
            assert "refused the arguments your line gives it" not in c["text"], (f["id"], c["text"])
