"""One module per `gpudoctor` command. Each has ``add_parser(sub)``, which registers the
command's arguments and sets ``func`` to the function that runs it; cli.py only lists them.
A new command is one module here and one name in ``NAMES``."""

NAMES = ("check", "facts", "exports", "listing", "explain", "slurm_health", "probe", "plan", "watch", "diff")
