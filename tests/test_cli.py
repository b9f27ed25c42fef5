"""The CLI as a user runs it: real subprocesses, real exit codes."""

import json
import os

import pytest

from conftest import FIXTURES, node_facts, patched

DEV = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")


def test_check_local_json_contract(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("check", "--json")
    doc = json.loads(out)
    assert doc["schema"] == "gpudoctor.report/2"
    assert [n["reachable"] for n in doc["nodes"]] == [True]
    prof = doc["nodes"][0]["profile"]
    assert set(prof) == {"gpus", "driver", "cuda_driver", "torch", "torch_cuda", "nccl", "ofed", "kernel", "os", "rdma"}
    assert prof["kernel"] == os.uname().release
    for c in doc["checks"]:
        assert c["status"] in ("pass", "warn", "fail", "na", "skipped")
        if c["status"] == "pass":  # a pass always carries what it judged
            assert c["evidence"] and c["evidence"].strip()
        assert c["by_status"] and all(st in ("pass", "warn", "fail", "na", "skipped") for st in c["by_status"])
    assert {"errors", "warnings", "checks_run"} <= set(doc["summary"])
    assert rc == doc["summary"]["exit_code"] == (1 if doc["summary"]["errors"] else 0)
    for f in doc["findings"]:
        assert set(f) >= {"check", "severity", "hosts", "message", "observed", "expected", "fix", "exports"}


def test_check_local_text_has_one_line_per_check_and_a_summary(gpudoctor_cli):
    rc, out, _ = gpudoctor_cli("check", "--select", "shm,ssh,driver", "--verbose")
    lines = out.splitlines()
    for cid in ("shm.size", "ssh.permissions", "driver.cuda"):
        assert sum(1 for l in lines if l[5:].startswith(cid + " ")) == 1
    assert lines[-1].startswith("Summary:") and lines[-1].endswith("exit %d" % rc)


def test_check_without_gpu_says_why(gpudoctor_cli):
    if os.path.exists("/proc/driver/nvidia/version"):
        pytest.skip("this machine has an NVIDIA driver")
    rc, out, _ = gpudoctor_cli("check", "--select", "driver.cuda")
    assert "1 n/a, 0 skipped (gpudoctor check --verbose lists them)" in out and rc == 0
    rc, out, _ = gpudoctor_cli("check", "--select", "driver.cuda", "--verbose")
    assert "N/A  driver.cuda" in out and "no NVIDIA driver loaded" in out and rc == 0


def test_offline_check_on_saved_facts(gpudoctor_cli, tmp_path):
    bad = patched(node_facts("devbox-debian12-nogpu"), shm={"total_bytes": 64 << 20, "free_bytes": 64 << 20})
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    rc, out, _ = gpudoctor_cli("check", "--facts", str(p), "--select", "shm.size")
    assert rc == 1 and "FAIL shm.size" in out and "64.0 MiB" in out
    rc, out, _ = gpudoctor_cli("check", "--facts", DEV, "--select", "shm.size")
    assert rc == 0 and "PASS shm.size" in out


def test_facts_folder_and_save_roundtrip(gpudoctor_cli, tmp_path):
    out_file = tmp_path / "me.json"
    rc, _, _ = gpudoctor_cli("facts", "-o", str(out_file))
    assert rc == 0
    doc = json.loads(out_file.read_text())
    assert doc["schema"] == "gpudoctor.facts/1" and doc["shm"]["status"] == "ok"
    folder = tmp_path / "cluster"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(dict(doc, node="a")))
    (folder / "b.json").write_text(json.dumps(dict(doc, node="b")))
    rc, out, _ = gpudoctor_cli("check", "--facts", str(folder), "--json", "--select", "shm")
    assert sorted(n["host"] for n in json.loads(out)["nodes"]) == ["a", "b"]


def test_strict_makes_warnings_fail(gpudoctor_cli, tmp_path):
    # below the 1 GiB minimum free, above "full" (64 MiB free: an error since slurm27)
    warn = patched(node_facts("devbox-debian12-nogpu"), shm={"total_bytes": 16 << 30, "free_bytes": 512 << 20})
    p = tmp_path / "w.json"
    p.write_text(json.dumps(warn))
    assert gpudoctor_cli("check", "--facts", str(p), "--select", "shm")[0] == 0
    assert gpudoctor_cli("check", "--facts", str(p), "--select", "shm", "--strict")[0] == 1


@pytest.mark.parametrize("args,needle", [
    (["check", "--no-such-flag"], "unrecognized arguments"),
    (["check", "--facts", "/nonexistent/facts.json"], "no such file"),
    (["check", "--select", "nosuch.check"], "matches no check"),
    (["check", "--jobs", "many"], "expected a whole number"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_errors_are_one_line_exit_2(gpudoctor_cli, args, needle):
    rc, out, err = gpudoctor_cli(*args)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("content,needle", [
    (b"{not json", "not valid JSON"),
    (b'{"schema": "something/9"}', "not a gpudoctor facts file"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (b'{"schema": "gpudoctor.facts/1", "shm": {"total_bytes": 1}}', "no valid status"),
])
def test_malformed_facts_exit_2(gpudoctor_cli, tmp_path, content, needle):
    p = tmp_path / "x.json"
    p.write_bytes(content)
    rc, _, err = gpudoctor_cli("check", "--facts", str(p))
    assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_bad_config_exit_2(gpudoctor_cli, tmp_path):
    (tmp_path / "gpudoctor.toml").write_text("[gpudoctor]\nshm_mni = '1GiB'\n")
    rc, _, err = gpudoctor_cli("check")
    assert rc == 2 and "unknown key 'shm_mni'" in err
    (tmp_path / "gpudoctor.toml").write_text("[gpudoctor]\nshm_min = 'lots'\n")
    rc, _, err = gpudoctor_cli("check")
    assert rc == 2 and "is not a size" in err


def test_config_file_sets_thresholds(gpudoctor_cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gpudoctor]\nshm_min = '64TiB'\n")
    rc, out, _ = gpudoctor_cli("check", "--select", "shm.size")
    assert rc == 1 and "below the 64.0 TiB minimum" in out


def test_list_and_version(gpudoctor_cli):
    rc, out, _ = gpudoctor_cli("list")
    ids = [l.split()[0] for l in out.splitlines()]
    assert rc == 0 and {"shm.size", "limits.memlock", "ssh.permissions", "driver.cuda"} <= set(ids)
    rc, out, _ = gpudoctor_cli("--version")
    from gpudoctor import __version__
    assert rc == 0 and out.strip() == "gpudoctor %s" % __version__


def test_secrets_never_reach_facts(gpudoctor_cli):
    rc, out, _ = gpudoctor_cli("facts", env={"HF_TOKEN": "hf_supersecret123", "NCCL_DEBUG": "INFO",
                                             "MY_PASSWORD_X": "hunter2"})
    assert "hf_supersecret123" not in out and "hunter2" not in out
    doc = json.loads(out)
    assert doc["env"]["values"]["NCCL_DEBUG"] == "INFO"
    assert doc["env"]["hashed"]["HF_TOKEN"].startswith("hmac:")
    # keyed per run: the unsalted sha256 a dictionary would try is not there, and a second run
    # hashes the same value differently (the key is random and kept nowhere)
    import hashlib

    plain = hashlib.sha256(b"hunter2").hexdigest()[:16]
    assert plain not in out
    rc2, out2, _ = gpudoctor_cli("facts", env={"MY_PASSWORD_X": "hunter2"})
    assert json.loads(out2)["env"]["hashed"]["MY_PASSWORD_X"] != doc["env"]["hashed"]["MY_PASSWORD_X"]
