"""What the layers around a Slurm GPU job print, generated from the sources that print it:
MUNGE (tools/gen_munge_messages.py: dun/munge and Slurm's auth/munge plugin), the NVIDIA container
stack of Slurm (tools/gen_container_messages.py: NVIDIA/pyxis and NVIDIA/enroot), and the pending
reasons of reservations and node availability (tools/gen_slurm_messages.py: slurmctld's state
descriptions). The generators regenerate the committed sites from their recorded slices in
tests/test_explain_generated.py (GENERATORS); real texts
from public threads (cited) get the specific entry and its fix through the CLI.
"""

import json
import os
import re

import pytest
from explainhelp import assert_root, explain_cli, explain_paste
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")


def test_reservation_codes_and_reasons_are_not_node_failures():
    """ReqNodeNotAvail is not always 'node down': slurmctld's description after the comma says which
    (src/slurmctld/node_scheduler.c), and ESLURM_RESERVATION_* are reservations, not generic errors."""
    msgs = {s["text"]: s for s in _committed("slurm_messages")["sites"]}
    assert msgs["ReqNodeNotAvail, Reserved for maintenance"]["family"] == "slurm.reservation"
    assert msgs["ReqNodeNotAvail, May be reserved for other job"]["family"] == "slurm.reservation"
    assert msgs["ReqNodeNotAvail, UnavailableNodes:%s"]["family"] == "slurm.node_down"
    codes = {s["name"]: s for s in _committed("slurm_errors")["sites"]}
    for name in ("ESLURM_RESERVATION_ACCESS", "ESLURM_RESERVATION_INVALID", "ESLURM_RESERVATION_MAINT",
                 "ESLURM_RESERVATION_USER_GROUP"):  # USER_GROUP once went to slurm.auth by its name
        assert codes[name]["family"] == "slurm.reservation", name
    assert "--gpus=N counts for the whole job" in " ".join(codes["ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE"]["fix"])
    reasons = {s["name"]: s for s in _committed("slurm_reasons")["sites"]}
    assert reasons["WAIT_RESV_INVALID"]["family"] == "slurm.reservation"
    assert "mintres" in reasons["WAIT_QOS_MIN_CPU"]["fix"][0] and "at least" in reasons["WAIT_QOS_MIN_CPU"]["fix"][1]


def _committed(name):
    with open_generated(name) as f:
        return json.load(f)


def test_every_munge_code_has_a_family_and_the_key_texts_their_own():
    sites = {s.get("name") or s["text"]: s for s in _committed("munge_messages")["sites"]}
    # munge.h's munge_err_t, all 18 failure codes (EMUNGE_SUCCESS is no error)
    codes = [s for s in _committed("munge_messages")["sites"] if s["id"].startswith("munge.emunge_")]
    assert len(codes) == 18 and all(s["family"] for s in codes)
    assert sites["EMUNGE_CRED_EXPIRED"]["family"] == sites["EMUNGE_CRED_REWOUND"]["family"] == "munge.clock_skew"
    assert sites["EMUNGE_CRED_INVALID"]["family"] == "munge.key_mismatch"
    assert sites["EMUNGE_SOCKET"]["family"] == "munge.not_running"
    # 'Invalid credential' never matches the longer 'Invalid credential format' (another code)
    rx = re.compile(sites["EMUNGE_CRED_INVALID"]["re"])
    assert rx.search("unmunge: Error: Invalid credential") and not rx.search("unmunge: Error: Invalid credential format")
    # a code text any program prints is munge's only on a line that names munge
    rx = re.compile(sites["EMUNGE_BAD_ARG"]["re"])
    assert rx.search("unmunge: Error: Invalid argument")
    assert not rx.search("srun: error: Unable to create step for job 12: Invalid argument")


def test_container_sites_keep_enroot_line_shape_and_older_pyxis_texts():
    sites = _committed("container_messages")["sites"]
    by_text = {s["text"]: s for s in sites}
    # enroot's bash messages match only on its own '[ERROR] ' line: 'Invalid argument' is everywhere else
    rx = re.compile(by_text["Invalid argument"]["re"])
    assert rx.search("pyxis:     [ERROR] Invalid argument") and not rx.search("OSError: [Errno 22] Invalid argument")
    # in colour on a terminal: common::fmt wraps the tag in tput's setaf and sgr0 (ESC ( B ESC [ m)
    assert rx.search("\x1b[31m[ERROR]\x1b(B\x1b[m Invalid argument")
    # pyxis 0.24 reworded 'couldn't start container'; the 0.23 text is kept with until
    old = by_text["pyxis: couldn't start container"]
    assert old["family"] == "pyxis.container_start" and old["until"] == "v0.24.0"
    assert by_text["Command not found: %s"]["family"] == "enroot.missing_command"
    # warnings are context, never a family
    assert all(not s["family"] for s in sites if s["level"] in ("common::log_WARN", "warn", "warnx"))


# Real texts, each from a public thread (cited), with the entry explain must name and what its first
# fix (or the cause it names) must say.
REAL = [
    # https://github.com/clustervision/trinity/issues/424 (settled: the clocks drifted; NTP)
    ("munge-expired", "[root@c001 /]# sinfo\nsinfo: error: slurm_receive_msg: Zero Bytes were transmitted or received\n"
     "slurm_load_partitions: Zero Bytes were transmitted or received\n[root@c001 /]# cat /var/log/slurm/slurmd.log\n"
     "2015-09-14T06:44:37.084] error: Munge decode failed: Expired credential\n"
     "[2015-09-14T06:44:37.084] ENCODED: Mon Sep 14 06:39:33 2015\n[2015-09-14T06:44:37.084] DECODED: Mon Sep 14 06:44:37 2015",
     "munge.clock_skew", r"chrony"),
    # https://github.com/dun/munge/issues/118 (settled: munged was not running; start it on every host)
    ("munge-socket", "sbatch: error: If munged is up, restart with --num-threads=10\n\n"
     "sbatch: error: Munge encode failed: Failed to access \"/run/munge/munge.socket.2\": No such file or directory\n\n"
     "sbatch: error: slurm_send_node_msg: auth_g_create: REQUEST_SUBMIT_BATCH_JOB has authentication error\n\n"
     "sbatch: error: Batch job submission failed: Protocol authentication error", "munge.not_running",
     r"systemctl enable --now munge"),
    # https://github.com/dun/munge/issues/113 (settled: /run/munge must be 0755)
    ("munged-run-dir", "Dec 09 16:15:40 workstation munged[20758]: munged: Info: Enabled supplementary group mtime check "
     "of \"/etc/group\"\nDec 09 16:15:40 workstation munged[20758]: munged: Error: Socket is inaccessible: execute "
     "permissions for all required on \"/run/munge\"\n"
     "Dec 09 16:15:40 workstation systemd[1]: munge.service: main process exited, code=exited, status=1/FAILURE",
     "munge.daemon_start", r"chmod 0755 /run/munge"),
    # https://github.com/NVIDIA/pyxis/issues/168 (an Azure registry written with '/': enroot asked Docker Hub)
    ("pyxis-registry-slash", "pyxis: importing docker image: evuedsoacr.azurecr.io/dc-ecosys-appl-eng/mlperf-nvidia:"
     "stable_diffusion-pyt\nslurmstepd: error: pyxis: child 1022281 failed with error code: 1\n"
     "slurmstepd: error: pyxis: failed to import docker image\nslurmstepd: error: pyxis: printing enroot log file:\n"
     "slurmstepd: error: pyxis:     [INFO] Querying registry for permission grant\n"
     "slurmstepd: error: pyxis:     [INFO] Authenticating with user: <anonymous>\n"
     "slurmstepd: error: pyxis:     [INFO] Authentication succeeded\n"
     "slurmstepd: error: pyxis:     [INFO] Fetching image manifest list\n"
     "slurmstepd: error: pyxis:     [INFO] Fetching image manifest\n"
     "slurmstepd: error: pyxis:     [ERROR] URL https://registry-1.docker.io/v2/evuedsoacr.azurecr.io/dc-ecosys-appl-eng/"
     "mlperf-nvidia/manifests/stable_diffusion-pyt returned error code: 401 Unauthorized\n"
     "slurmstepd: error: pyxis: couldn't start container", "enroot.registry", r"<registry>#<image>"),
    # https://github.com/NVIDIA/enroot/issues/161 (settled: the NGC key in ~/.config/enroot/.credentials)
    ("enroot-401", "enroot# enroot import 'docker://$oauthtoken@nvcr.io#nvidia/cuda:10.0-base'\n"
     "[INFO] Querying registry for permission grant\n[INFO] Authenticating with user: $oauthtoken\n"
     "[INFO] Using credentials from file: /root/.config/enroot/.credentials\n"
     "[ERROR] URL https://nvcr.io/proxy_auth returned error code: 401 Unauthorized", "enroot.registry",
     r"\.config/enroot/\.credentials"),
    # https://github.com/NVIDIA/enroot/issues/146 (settled: the image was pushed in the OCI format)
    ("enroot-404", "[user@n1 ~]$ enroot import docker://hpcreid/openmpi:2212228\n"
     "[INFO] Querying registry for permission grant\n[INFO] Authenticating with user: <anonymous>\n"
     "[INFO] Authentication succeeded\n[INFO] Fetching image manifest list\n[INFO] Fetching image manifest\n"
     "[ERROR] URL https://registry-1.docker.io/v2/hpcreid/openmpi/manifests/2212228 returned error code: 404 Not Found",
     "enroot.registry", r"oci-mediatypes=false"),
    # https://github.com/NVIDIA/enroot/issues/41 (CentOS 7: user namespaces are off by default)
    ("enroot-userns", "    pyxis: creating container filesystem ...\n    pyxis: starting container ...\n"
     "    slurmstepd: error: pyxis: container start failed with error code: 1\n"
     "    slurmstepd: error: pyxis: printing contents of log file ...\n"
     "    slurmstepd: error: pyxis:     enroot-nsenter: failed to create user namespace: Invalid argument\n"
     "    slurmstepd: error: pyxis: couldn't start container\n"
     "    slurmstepd: error: pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint\n"
     "    slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
     "enroot.userns", r"user_namespace\.enable=1"),
    # https://github.com/NVIDIA/enroot/issues/41 again, Slurm's last line alone: the echo of pyxis's error
    ("spank-pyxis-alone", "    slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
     "pyxis.error", r"first 'pyxis:' error"),
    # https://github.com/NVIDIA/pyxis/issues/70 (settled: pyxis cannot pass dockerd://; import a .sqsh)
    ("enroot-image-ref", "error: pyxis:     [ERROR] Invalid image reference: docker://dockerd://mlperf-nvidia:minigo",
     "enroot.image_ref", r"\.sqsh"),
    # https://github.com/NVIDIA/pyxis/issues/12 (settled: ENROOT_RUNTIME_PATH in enroot.conf)
    ("enroot-run-dir", "slurmstepd: error: pyxis: mkdir: cannot create directory '/run/enroot': Permission denied",
     "enroot.runtime_path", r"ENROOT_RUNTIME_PATH"),
    # https://github.com/clustervision/trinity/issues/759 (slurmctld's log; the cause of 'Invalid credential', a key
    # that differs between the daemons, as settled in https://github.com/dun/munge/issues/62)
    ("munge-invalid", "May 24 07:06:45 login slurmctld[15918]: error: slurm_receive_msg: MESSAGE_NODE_REGISTRATION_STATUS "
     "has authentication error: Invalid credential\n"
     "May 24 07:06:45 login slurmctld[15918]: error: slurm_receive_msg: Protocol authentication error\n"
     "May 24 07:06:46 login slurmctld[15918]: error: Munge decode failed: Invalid credential\n"
     "May 24 07:06:46 login slurmctld[15918]: error: slurm_receive_msg: Protocol authentication error",
     "munge.key_mismatch", r"/etc/munge/munge\.key.*restart munge"),
    # https://github.com/dun/munge/issues/130 (settled: the credential was restricted to another UID)
    ("munge-unauthorized", "munged: Info: Unauthorized credential for client UID=0 GID=0", "munge.unauthorized",
     r"SlurmUser"),
    # https://github.com/ArjunaCluster/ArjunaUsers/issues/112 (settled: 2 of the 56 cores are reserved: -n 54)
    ("node-config-cpus", "Observed Behavior: \"sbatch: error: Batch job submission failed: Requested node configuration "
     "is not available\"", "slurm.node_config", r"sinfo -N .*%c"),
    # https://github.com/mlcommons/training/issues/824 (settled: the launcher asked 8 GPUs per node of GB200 nodes with 4)
    ("node-config-gpus", "sbatch: error: Batch job submission failed: Requested node configuration is not available",
     "slurm.node_config", r"--gpus-per-node=N count per node \(8 on nodes with 4 GPUs never fits\)"),
    # https://github.com/RobertsLab/resources/issues/1531 (settled: a --time that ends before the maintenance)
    ("resv-maintenance", "JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
     "           3937176     srlab denovo_s   lapita PD       0:00      1 (ReqNodeNotAvail, Reserved for maintenance)",
     "slurm.reservation", r"timelimit=<ends before"),
    # https://github.com/ArjunaCluster/ArjunaUsers/issues/67 (settled: the listed nodes were draining)
    ("unavailable-nodes", "Observed Behavior: (ReqNodeNotAvail, UnavailableNodes:d[001-032],f[001-024])",
     "slurm.node_down", r"sinfo -R -n"),
    # https://github.com/reframe-hpc/reframe/issues/303 (an empty list: no node is down, the job just waits)
    ("unavailable-empty", "ReqNodeNotAvail,  UnavailableNodes:", "slurm.reservation", r"--reservation=<NAME>"),
]


@pytest.mark.parametrize("name,text,entry,fix", REAL, ids=[r[0] for r in REAL])
def test_real_texts_get_the_specific_entry_and_fix(cli, tmp_path, name, text, entry, fix):
    _, doc = explain_paste(cli, tmp_path, text + "\n", name="%s.log" % name, rcs=(0,))
    assert_root(doc, entry, verdict="root_cause", fix_re=fix)


def test_munge_debug_lines_of_a_healthy_slurmd_are_no_error(cli, tmp_path):
    """slurmd's debug log of a healthy node: the auth plugin loads, munge is fine (Slurm 22.05's
    own wording, slurmd -Dvvv on this project's test bed)."""
    log = tmp_path / "slurmd.log"
    log.write_text("[2026-11-25T10:00:00.001] debug:  auth/munge: init: loaded\n"
                   "[2026-11-25T10:00:00.002] debug:  Munge authentication plugin loaded\n"
                   "[2026-11-25T10:00:00.003] debug2: Processing RPC: REQUEST_PING\n"
                   "[2026-11-25T10:00:00.004] slurmd version 22.05.8 started\n")
    rc, doc = explain_cli(cli, log)
    assert rc == 0 and doc["verdict"] == "no_error", doc["findings"]


def test_a_healthy_pyxis_and_enroot_start_is_no_error(cli, tmp_path):
    """The lines a successful `srun --container-image` prints: pyxis's slurm_spank_log/slurm_info
    (pyxis_slurmstepd.c, v0.24.0) and enroot's [INFO] lines (src/docker.sh, v4.1.2)."""
    log = tmp_path / "pyxis.log"
    log.write_text("pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.01-py3\n"
                   "[INFO] Querying registry for permission grant\n[INFO] Authenticating with user: $oauthtoken\n"
                   "[INFO] Fetching image manifest list\n[INFO] Downloading 12 missing layers...\n"
                   "[INFO] Extracting image layers...\n[INFO] Converting whiteouts...\n"
                   "[INFO] Creating squashfs filesystem...\n"
                   "pyxis: imported docker image: nvcr.io#nvidia/pytorch:24.01-py3\n"
                   "[2026-11-25T10:00:01.000] [81.0] pyxis: creating container filesystem: pyxis_81.0\n"
                   "[2026-11-25T10:00:02.000] [81.0] pyxis: starting container: pyxis_81.0\n"
                   "[2026-11-25T10:00:02.100] [81.0] pyxis: completed container setup in 1200 ms\n")
    rc, doc = explain_cli(cli, log)
    assert rc == 0 and doc["verdict"] == "no_error", doc["findings"]
