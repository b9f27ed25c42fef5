#!/usr/bin/env python3
"""Assemble explain_heldout_p54.jsonl from cases/*.txt (texts are the recorded outputs, unedited)."""
import json
P = "planted-cpu-2026-11-28-p54"
R = "planted and fix verified by re-running: "
SRC = {'pdsh_login_shell_dash_source': 'dash_source', 'venv_copied_stale_shebang': 'venv_copied_shebang', 'pythonhome_set_on_one_node': 'pythonhome_node1', 'timezone_differs_per_rank_run_dir': 'tz_run_dir', 'mpirun_shebang_env_python_missing': 'env_python_missing', 'node_locale_latin1_unicode_print': 'locale_latin1_print', 'podman_env_file_export_lines': 'podman_envfile_export', 'bashrc_interactive_guard_hides_path': 'bashrc_guard_path', 'shebang_env_with_option': 'shebang_env_with_option'}
def case(name, repo, category, family, alts, fix, kws, note, healthy=False, src=None):
    src = src or SRC.get(name)
    text = open(f"/tmp/heldout-p54/cases/{src or name}.txt", encoding="utf-8").read()
    return dict(id=f"p54-{name}", url=f"planted:{P}/{name}", source_repo=f"{P}/{repo}", category=category,
                text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws,
                healthy=healthy, group="planted-env" if not healthy else "healthy", label_note=note)
C = [
 case("pdsh_login_shell_dash_source", "pdsh", "launcher-environment", "ssh.pdsh", ["ssh.config", "code.python_env"],
      "The account's login shell on the nodes is /bin/sh (dash, the useradd default on Debian), and sshd runs the remote command with it; dash has no `source` builtin. Use the POSIX form `. /path/venv/bin/activate`, wrap the command in bash -c '...', or change the login shell to bash (chsh -s /bin/bash).",
      ["chsh", "bash -c", "/bin/bash", "dash"],
      R + "with `. /tmp/heldout-p54/venv/bin/activate` the same pdsh line trained on both nodes; after chsh -s /bin/bash for the user the original `source` line also ran."),
 case("venv_copied_stale_shebang", "venv", "launcher-environment", "code.python_env", ["launcher.script_missing", "errno.enoent"],
      "The venv in /tmp/heldout-p54/shared/venvs/train was copied from where it was built (~/venvs/train, which exists only on node0); the console scripts in its bin/ (torchrun) keep the old absolute interpreter path in their #! line, which does not exist on node1. Recreate the venv at the shared path (python -m venv + pip install) or start the launcher as `.../bin/python -m torch.distributed.run`.",
      ["shebang", "#!", "recreate", "torch.distributed.run", "interpreter"],
      R + "`shared/venvs/train/bin/python -m torch.distributed.run ...` trained on both nodes; rewriting the scripts' #! lines to the shared path (what recreating the venv there does) made bin/torchrun work on both nodes too. node0 only worked because the original ~/venvs/train is present there (node1's sshd ran in a mount namespace without it)."),
 case("pythonhome_set_on_one_node", "python", "launcher-environment", "python.startup_stdlib", ["code.python_env"],
      "node1's environment sets PYTHONHOME=/opt/python/3.9.18 (left from an old Python install/module), so the venv's Python 3.11 looks for its standard library there and cannot even import encodings; node0 then waits in the rendezvous. Unset PYTHONHOME on node1 (remove it from the node's environment/profile).",
      ["unset PYTHONHOME", "unset", "remove PYTHONHOME"],
      R + "with node1's session environment without PYTHONHOME the same pdsh/torchrun line trained on both nodes (PYTHONHOME came from node1's sshd SetEnv, standing in for a node-level profile)."),
 case("timezone_differs_per_rank_run_dir", "torchrun", "user-code", "torch.checkpoint_load", ["errno.enoent", "code.exception"],
      "Each rank names the run directory from its own local clock (time.strftime('%Y%m%d-%H%M')), and node1 runs in another time zone (TZ=America/Chicago vs UTC on node0), so rank 0 saved runs/20261128-0728/init.pt while rank 1 looks in runs/20261128-1328. Decide the run directory once on rank 0 and broadcast it (dist.broadcast_object_list), or use UTC / the same TZ on every node.",
      ["time zone", "timezone", "broadcast", "UTC", "gmtime"],
      R + "with node1 set to TZ=UTC the same script trained and saved final.pt; with the run dir computed on rank 0 and broadcast (broadcast_object_list) it also ran with node1 still on America/Chicago (case healthy_timezones_differ_run_dir_broadcast)."),
 case("mpirun_shebang_env_python_missing", "mpi", "launcher-environment", "mpi.exec_not_found", ["code.python_env"],
      "allreduce_check.py starts with #!/usr/bin/env python, and the nodes' non-interactive PATH has no `python` (Debian ships only python3; the login shell where it worked has python from pyenv/an alias). Change the shebang to #!/usr/bin/env python3 (or install python-is-python3), or run `mpirun ... python3 allreduce_check.py`.",
      ["python3", "python-is-python3", "shebang"],
      R + "`mpirun -np 2 --host node0,node1 python3 allreduce_check.py` printed sum=3 on both ranks; with the shebang changed to python3, ./allreduce_check.py also ran."),
 case("node_locale_latin1_unicode_print", "locale", "launcher-environment", "code.python_env", ["code.exception"],
      "node1's locale is en_US.ISO-8859-1 (LANG from the node's environment), so Python's stdout there is Latin-1 and printing '✓' raises UnicodeEncodeError; rank 0 dies and rank 1 loses its peer. Use a UTF-8 locale on the nodes (LANG=C.UTF-8 / en_US.UTF-8), or set PYTHONUTF8=1 (or PYTHONIOENCODING=utf-8) in the launch environment.",
      ["UTF-8", "PYTHONUTF8", "PYTHONIOENCODING", "LANG", "locale"],
      R + "with `export LANG=C.UTF-8` (and separately with `export PYTHONUTF8=1`) in the pdsh command both ranks printed the ✓ lines and finished."),
 case("podman_env_file_export_lines", "podman", "container", "rendezvous.env_missing", ["container.oci_runtime"],
      "podman --env-file reads plain KEY=VALUE lines and does not understand shell syntax: 'export MASTER_ADDR=...' defines a variable literally named 'export MASTER_ADDR', so WORLD_SIZE/MASTER_ADDR/MASTER_PORT are never set in the containers. Remove the export keyword from the env file (keep a separate file to source in bash).",
      ["KEY=VALUE", "remove the export", "without export", "drop the export"],
      R + "with the same file minus the 'export ' prefixes both containers rendezvoused and trained (case healthy_podman_env_file_plain); inside a container the bad file showed a variable named 'export MASTER_ADDR'."),
 case("bashrc_interactive_guard_hides_path", "pdsh", "launcher-environment", "ssh.pdsh", ["ssh.config", "code.python_env"],
      "The PATH export for the venv was appended at the end of ~/.bashrc, below Debian's 'not running interactively -> return' guard at its top; commands run by ssh/pdsh are non-interactive, so bash returns before reaching it and torchrun is not on PATH. Put the export above the guard (top of ~/.bashrc), or call the venv's torchrun by absolute path.",
      ["interactive", "top of", "above", "absolute path", "full path"],
      R + "with the export moved above the guard, `ssh node0 which torchrun` printed the venv path and the pdsh line trained on both nodes."),
 case("shebang_env_with_option", "shebang", "launcher-environment", "code.python_env", ["launcher.script_missing", "ssh.pdsh"],
      "The shebang '#!/usr/bin/env python3 -u' passes 'python3 -u' to env as one word (Linux gives a shebang one argument), so env looks for a program called 'python3 -u'. Use '#!/usr/bin/env -S python3 -u', or drop -u from the shebang and set PYTHONUNBUFFERED=1 (or run python3 -u preflight.py).",
      ["env -S", "-S python3", "PYTHONUNBUFFERED", "one argument"],
      R + "with '#!/usr/bin/env -S python3 -u' the same pdsh line printed the pre-flight lines on both nodes."),
 case("healthy_timezones_differ_run_dir_broadcast", "torchrun", "healthy", "healthy", [], "", [],
      "healthy by construction: node1 runs with TZ=America/Chicago, node0 in UTC, so log timestamps differ by 6 h, but the run directory is chosen on rank 0 and broadcast; both ranks used runs/20261128-0729 and training finished.",
      healthy=True, src="healthy_tz_broadcast_run_dir"),
 case("healthy_missing_locale_warning", "locale", "healthy", "healthy", [], "", [],
      "healthy by construction: node1 sets LANG/LC_ALL=de_DE.UTF-8, which is not installed, so bash warns 'cannot change locale'; Python falls back to the C locale in UTF-8 mode and the run prints the ✓ lines and finishes.",
      healthy=True, src="healthy_locale_missing_warning"),
 case("healthy_podman_env_file_plain", "podman", "healthy", "healthy", [], "", [],
      "healthy: the fixed env file (plain KEY=VALUE lines, a comment line) gives both containers MASTER_ADDR/MASTER_PORT/WORLD_SIZE; they rendezvous and train 5 steps.",
      healthy=True, src="fix_podman_envfile"),
]
with open("/tmp/heldout-p54/explain_heldout_p54.jsonl", "w", encoding="utf-8") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
