#!/usr/bin/env python3
"""Generate gpudoctor/data/xid.json from NVIDIA's Xid catalog.

Usage:
    python tools/gen_xid.py [CSV] [-o gpudoctor/data/xid.json]

CSV is the catalog's "Xids" sheet (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html,
spreadsheet https://docs.nvidia.com/Xid-Catalog.xlsx) as CSV, columns found by their header
names; lines starting with '#' are comments. The default is tools/data/xid_catalog.csv, a
transcription of the rows that apply to A100/H100/B100/GB200.

NVIDIA gives no severity per Xid: it gives two resolution buckets, the Immediate Action (to
get the node back into service) and the Investigatory Action (when it repeats). gpudoctor's
finding level is derived from the immediate bucket by the BUCKETS table below, and the table
says so; Xid 154's action is in its own message (see XID154_ACTIONS).
"""

import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG_URL = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"

# gpudoctor's reading of the catalog's "Fault Resolution Buckets" sheet for a preflight:
# error = the GPU or node must be recovered before the next job, warning = an application hit
# it (restart it; the GPU stays usable) or the catalog asks for a decision, info = NVIDIA says
# no action.
BUCKETS = {
    "RESET_GPU": ("error", "reset the GPU (nothing may hold it): nvidia-smi -r -i <index>; or reboot the node"),
    "RESTART_BM": ("error", "drain the node and reboot it; check power, PCIe seating and the system event log"),
    "RESTART_VM": ("error", "restart the VM that owns the GPU"),
    "WORKFLOW_XID_48": ("error", "alone: reset the GPU (nvidia-smi -r -i <index>); with Xid 63 or 64: drain the "
                                 "node, then reset the GPU"),
    "WORKFLOW_NVLINK_ERR": ("error", "reset the GPU (nvidia-smi -r -i <index>) or reboot to clear the link; "
                                     "nvidia-smi nvlink -e shows the link's error counters"),
    "CHECK_MECHANICALS": ("error", "check the GPU's seating and its power connections"),
    "UPDATE_SWFW": ("error", "update the driver and the firmware"),
    # NVLink5 (Xids 144-150): the catalog's "XID 144-150 Decode" sheet resolves the Fatal
    # IntrInfo/ErrorStatus values, and some Nonfatal ones, to RESET_GPU, and an Xid 154 then states a
    # reset or a reboot; the kernel line alone does not say which decode row applies, so the node
    # takes no job until the link is decoded and cleared (an error, Fatal or not).
    "WORKFLOW_NVLINK5_ERR": ("error", "drain the node and reset the GPU (nothing may hold it): nvidia-smi -r -i "
                                      "<index>, or reboot the node; an Xid 154 logged with it states the action; "
                                      "decode the message's IntrInfo/ErrorStatus with the catalog's \"XID 144-150 "
                                      "Decode\" sheet"),
    "RESTART_APP": ("warning", "restart the application (NVIDIA: no GPU reset or reboot needed)"),
    "XID_154_EVAL": ("warning", "if an Xid 154 is logged with it, follow that action; otherwise restart the application"),
    "CHECK_UVM": ("warning", "if UVM/vGPU is in use, reset the GPU (nvidia-smi -r -i <index>); otherwise no action"),
    "WORKFLOW_XID_45": ("warning", "alone: restart nvidia-fabricmanager; with other Xids: follow those"),
    "CONTACT_SUPPORT": ("warning", "contact your support organisation"),
    "IGNORE": ("info", "no action needed"),
    "XID_154": (None, "the action is in the message"),
    "": ("warning", "the catalog gives no resolution bucket for this Xid"),
}

INVESTIGATE = {
    "CONTACT_SUPPORT": "contact your support organisation",
    "CHECK_APP/CUDA": "check the application (bad data or methods sent to the GPU; the message may name the PID)",
    "WORKFLOW_XID_13": "on the same GPU again: run dcgmi diag -r 3, then the field diagnostic; otherwise check the "
                       "application (compute-sanitizer, cuda-gdb)",
    "WORKFLOW_XID_31": "MMU faults again on the same GPU: run dcgmi diag -r 3, then the field diagnostic; on "
                       "different GPUs: check the application",
    "WORKFLOW_XID_48": "alone: run the field diagnostic",
    "INVESTIGATE_SW": "investigate the software (the application or the NVIDIA driver)",
    "INVESTIGATE_SW_USER": "investigate software or a user action if it was not expected",
    "INVESTIGATE_LINK_SI": "investigate the NVLink link (telemetry, signal integrity)",
    "XID_137_FLOW": "run the application under compute-sanitizer or cuda-gdb",
    "SYMPATHETIC_REPORT_SOLO": "follow the other Xids; report it if it appears alone",
    "UPDATE_SWFW": "update the driver and the firmware",
    "WORKFLOW_NVLINK5_ERR": "decode with the catalog's \"XID 144-150 Decode\" sheet",
    "Solo: RESTART_FM Not Solo: IGNORE (follow other Xid)": "alone: restart nvidia-fabricmanager; with other "
                                                            "Xids: follow those",
}
NO_INVESTIGATION = ("", "IGNORE", "IGNORE (sympathetic)", "N/A Informational only regarding another Xid")

# Xid 154 "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)": the
# number is NVML's nvmlDeviceGpuRecoveryAction_t (NVML_GPU_RECOVERY_ACTION_NONE=0, GPU_RESET=1,
# NODE_REBOOT=2, DRAIN_P2P=3, DRAIN_AND_RESET=4); drivers print different names for the same
# number (0x1 "GPU Reset Required" or "PF FLR", 0x2 "Node Reboot Required" or "OS Reboot").
XID154_ACTIONS = {
    "0": {"name": "None", "level": "info", "action": "no recovery action is pending"},
    "1": {"name": "GPU Reset Required", "level": "error",
          "action": "reset the GPU (nothing may hold it): nvidia-smi -r -i <index>; or reboot the node"},
    "2": {"name": "Node Reboot Required", "level": "error", "action": "drain the node and reboot it"},
    "3": {"name": "Drain P2P", "level": "error",
          "action": "drain the jobs that use peer-to-peer (NVLink/P2P) on this GPU before new ones start"},
    "4": {"name": "Drain and Reset", "level": "error",
          "action": "drain the node (let running jobs finish, start no new ones), then reset the GPU: "
                    "nvidia-smi -r -i <index>"},
}


def read_catalog(path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.lstrip().startswith("#")]
    rows = list(csv.DictReader(lines))
    need = ("Code", "Mnemonic", "Description", "Resolution Bucket (Immediate Action)",
            "Resolution Bucket (Investigatory Action)")
    missing = [c for c in need if rows and c not in rows[0]]
    if not rows or missing:
        raise SystemExit("%s: not the catalog's Xids sheet (missing columns: %s)" % (path, ", ".join(missing) or "all"))
    return rows


def build(rows, source):
    xids = {}
    for r in rows:
        code = (r.get("Code") or "").strip()
        if not code.isdigit():
            continue
        imm = (r["Resolution Bucket (Immediate Action)"] or "").strip()
        inv = (r["Resolution Bucket (Investigatory Action)"] or "").strip()
        if imm not in BUCKETS:
            raise SystemExit("Xid %s: immediate bucket %r is not in tools/gen_xid.py's BUCKETS: add it" % (code, imm))
        if inv not in INVESTIGATE and inv not in NO_INVESTIGATION:
            raise SystemExit("Xid %s: investigatory bucket %r is not in tools/gen_xid.py's INVESTIGATE: add it"
                             % (code, inv))
        applies = [k[len("Applies to "):] for k in r if k and k.startswith("Applies to ")
                   and (r[k] or "").strip().upper() == "YES"]
        entry = {"mnemonic": r["Mnemonic"].strip(), "meaning": r["Description"].strip(),
                 "immediate": imm or None, "investigatory": inv or None, "applies_to": applies}
        since = (r.get("Xid 154 linkage") or "").strip()
        if since:
            entry["xid154_linkage"] = since
        xids[str(int(code))] = entry
    return {
        "title": "NVIDIA Xid errors seen in the kernel log (NVRM: Xid (PCI:...): N): NVIDIA's resolution buckets",
        "generated_by": "tools/gen_xid.py from %s (run it again to refresh; do not edit by hand)" % source,
        "sources": {
            "xids": "NVIDIA Xid catalog, sheet \"Xids\": %s (spreadsheet https://docs.nvidia.com/Xid-Catalog.xlsx). "
                    "immediate / investigatory are NVIDIA's Resolution Buckets verbatim; NVIDIA gives no severity "
                    "per Xid." % CATALOG_URL,
            "buckets": "what each bucket asks, from the catalog's \"Fault Resolution Buckets\" sheet, in gpudoctor's "
                       "words; level is gpudoctor's finding level for a preflight (error: recover the GPU or node "
                       "before the next job; warning: an application hit it, or a decision is needed; info: NVIDIA "
                       "says no action), not NVIDIA's",
            "xid154_actions": "Xid 154's message states the recovery action (catalog, Xid 154 trigger conditions); "
                              "the numbers are NVML's nvmlDeviceGpuRecoveryAction_t",
        },
        "buckets": dict((k, {"level": v[0], "action": v[1]}) for k, v in BUCKETS.items() if k),
        "investigatory": INVESTIGATE,
        "xid154_actions": XID154_ACTIONS,
        "xids": xids,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="?", default=os.path.join(HERE, "data", "xid_catalog.csv"))
    ap.add_argument("-o", "--output", default=os.path.join(HERE, "..", "gpudoctor", "data", "xid.json"))
    args = ap.parse_args(argv)
    src = os.path.relpath(args.csv, os.path.join(HERE, "..")) if args.csv.startswith(os.path.join(HERE, "")) else \
        os.path.basename(args.csv)
    out = build(read_catalog(args.csv), src)
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, args.output)
    print("%d Xids -> %s" % (len(out["xids"]), args.output), file=sys.stderr)


if __name__ == "__main__":
    main()
