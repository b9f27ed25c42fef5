"""torchtune's `tune run [TORCHRUN-OPTIONS] RECIPE --config CONFIG [RECIPE-OPTIONS]`, read as
torchtune reads it (torchtune/_cli/run.py, https://github.com/pytorch/torchtune/blob/
bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1/torchtune/_cli/run.py):
- its parser is torchrun's own (get_args_parser's actions, training_script renamed recipe);
- `--config` must be among the recipe's arguments ("The '--config' argument is required.");
- any word between `tune run` and the recipe makes it distributed (_is_distributed_args:
  len(sys.argv) - 2 > len(recipe_args) + 1): torch.distributed.run's run() with those options,
  in standalone mode when no --rdzv-endpoint is given (_run_distributed);
- no such word: the recipe runs in this process (runpy), one process on one device.
A built-in recipe is a name in torchtune's registry (run from torchtune's own recipes/; one
that does not support distributed training is refused with torchrun options); any other is
a path run as a module (`recipes/x.py` -> `-m recipes.x`)."""

import re

from gpudoctor.launch import torchrun
from gpudoctor.launch.common import parse, refuse, table

# torchtune/_recipe_registry.py's recipes (`tune ls`): each name, its supports_distributed and the sources it is in
# (the newest PyPI release and torchtune's main branch), generated from torchtune itself by
# tools/gen_torchtune_recipes.py (launch26; round 6's was a hand copy)
_TABLE = table("torchtune_recipes")
RECIPES = {name: r["distributed"] for name, r in _TABLE["recipes"].items()}
RELEASE = _TABLE["source"]["sources"][0]["label"]  # the PyPI release read (first source)


def read(plan, args, environ):
    """args: the words after `tune run`."""
    a = parse("torchrun", "tune run", list(args), environ, ())
    recipe = a.training_script
    rest = list(a.training_script_args or [])
    if "--config" not in rest or rest.index("--config") + 1 >= len(rest):
        # torchtune: recipe_args.index("--config") + 1, then recipe_args[config_idx] (an IndexError past the end)
        refuse("tune run", "The '--config' argument is required.")
    opts = list(args[:len(args) - len(rest) - 1])
    builtin = recipe in RECIPES
    # torchtune's _convert_to_dotpath: os.path.splitext, then "/" -> "."
    target = recipe if builtin else "-m " + re.sub(r"\.[^./]*$", "", recipe).replace("/", ".")
    if opts and builtin and not RECIPES[recipe]:
        refuse("tune run", "Recipe %s does not support distributed training.Please run without torchrun commands."
               % recipe)
    if not opts:
        plan.launcher = "tune run"
        plan.nnodes_min = plan.nnodes_max = 1
        plan.nproc_per_node = plan.world_min = plan.world_max = 1
        plan.script, plan.script_args = target, rest
        plan.note("tune run with no torchrun option runs the recipe in this process (torchtune's single-device "
                  "path): one process")
    else:
        words = opts
        if not a.rdzv_endpoint:
            words = words + ["--standalone"]  # torchtune: `if not args.rdzv_endpoint: args.standalone = True`
        torchrun.read(plan, "torchrun", words + ["--no-python", recipe] + rest, environ)
        plan.script, plan.script_args = target, rest
        plan.note("tune run starts torchrun with its options (torchtune's _run_distributed)%s" % (
            "" if a.rdzv_endpoint else ", standalone as no --rdzv-endpoint is given" + (
                ": each node's workers meet on that node only" if (plan.nnodes_max or 1) > 1 else "")))
    if builtin and RELEASE not in _TABLE["recipes"][recipe]["in"]:
        plan.note("recipe %s is in torchtune's main branch, not in its newest release %s (PyPI): with that release "
                  "installed, tune run runs it as the module %s of the working directory" % (
                      recipe, RELEASE, re.sub(r"\.[^./]*$", "", recipe).replace("/", ".")))
    if not builtin:
        plan.note("recipe %s: not one of torchtune's built-in recipes (`tune ls`), so run as the module %s of the "
                  "working directory" % (recipe, target[3:]))
    return plan
