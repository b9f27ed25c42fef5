"""userwalk27: what a new user tripped on in a fresh clone (session 27), through the CLI."""

import json


def test_plan_loop_passes_keep_their_line(gpudoctor_cli, tmp_path):
    # A launch in a `for` loop: bash runs the same script line once per pass. The plan listed the first pass at
    # line 4 and every later pass at the line of the `done` that replays it (5), where the user finds no launch;
    # in a `for` in a `for` the passes read 4, 5, 6, 6. The continue's note lost its line on later passes too.
    script = tmp_path / "sweep.sh"
    script.write_text("#!/bin/bash\n"
                      "for depth in 12 16; do\n"
                      "  for lr in 1e-3 3e-4; do\n"
                      "    if [ -f done_${depth}_${lr} ]; then continue; fi\n"
                      "    torchrun --nproc_per_node=8 train.py --depth=$depth --lr=$lr\n"
                      "  done\n"
                      "done\n")
    rc, out, err = gpudoctor_cli("plan", "--json", str(script))
    assert rc == 0, err
    doc = json.loads(out)
    runs = [(la["line"], la["argv"][-2:]) for la in doc["launches"]]
    assert runs == [(5, ["--depth=12", "--lr=1e-3"]), (5, ["--depth=12", "--lr=3e-4"]),
                    (5, ["--depth=16", "--lr=1e-3"]), (5, ["--depth=16", "--lr=3e-4"])], runs
    assert doc["notes"] == ["line 5: runs only where the loop's `continue` at line 4 does not run (its test is not "
                            "known here)"], doc["notes"]
    rc, out, err = gpudoctor_cli("plan", str(script))
    heads = [ln.split()[:2] for ln in out.splitlines() if ln.startswith("line ")]
    assert heads == [["line", "5"]] * 4, out
    # a function called in the loop: its launch is on the call's line, as before
    script.write_text("#!/bin/bash\n"
                      "go() {\n"
                      "  torchrun --nproc_per_node=2 train.py --lr=$1\n"
                      "}\n"
                      "for lr in 1e-3 3e-4; do\n"
                      "  echo $lr\n"
                      "  go $lr\n"
                      "done\n")
    rc, out, err = gpudoctor_cli("plan", "--json", str(script))
    assert rc == 0, err
    assert [(la["line"], la["argv"][-1]) for la in json.loads(out)["launches"]] == [(7, "--lr=1e-3"),
                                                                                   (7, "--lr=3e-4")], out
