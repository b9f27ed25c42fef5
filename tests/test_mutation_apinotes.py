"""apinotes.candidates / _best / advise on the shipped table (generated/api_notes.json), the cases round 15 and 17
left (mutation round 18, docs/mutation.md): a line that calls no name, a class built inside another of the same
file, a frame or a name the table does not hold, a bare call of a method's name; whose words count (the API's own
name's last two parts, not its module path; a parameter's name, however it is spelt); the message's 600-character
window; a group that cannot tell its APIs apart handing over to the raising frame's group; several APIs saying the
same sentence. Tracebacks are made in CPython's format, as tests/test_apinotes20_units.py's, with the real table's
files and functions."""

import io
import os

from gpudoctor.explain import apinotes as A
from gpudoctor.explain import load_knowledge
from gpudoctor.explain.scan import scan_stream

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "fixtures", "explain", "apinotes20")
SP = "/opt/venv/lib/python3.11/site-packages/"
LR = "torch.optim.lr_scheduler."
LRF = "torch/optim/lr_scheduler.py"
DC = "torch.distributed.distributed_c10d."


def _made_tb(src, frames, msg="bad value here"):
    text = 'Traceback (most recent call last):\n  File "/home/u/train.py", line 5, in <module>\n    %s\n' % src
    for f, fn in frames:
        text += '  File "%s%s", line 10, in %s\n    raise ValueError("x")\n' % (SP, f, fn)
    tbs = scan_stream(io.BytesIO((text + "ValueError: %s\n" % msg).encode()), load_knowledge()).tracebacks
    assert len(tbs) == 1
    return tbs[0]


def _real_tb(case):
    with open(os.path.join(CASES, case + ".log"), "rb") as f:
        return scan_stream(io.BytesIO(f.read()), load_knowledge()).tracebacks[0]


def _best(qual, msg):
    return A._best(qual, A._words(msg), A._idents(msg))


# ------------------------------------------------------------------------------------------------------ candidates

def test_a_class_built_inside_another_of_the_same_file_is_not_a_candidate():
    # SequentialLR's __init__ raised (the frame); MultiStepLR / CosineAnnealingLR, built inside its arguments, are
    # classes of the same file (with notes in the table) the line calls by name too, but the line calls
    # SequentialLR: only it is looked up
    tb = _made_tb("sched = SequentialLR(opt, schedulers=[MultiStepLR(opt, milestones=[2]), CosineAnnealingLR(opt, "
                  "T_max=5)], milestones=[3])", [(LRF, "__init__")])
    assert A.candidates(tb) == [[LR + "SequentialLR"]]


def test_frames_and_names_the_table_does_not_hold_give_no_candidate():
    # an __init__ in a file the table has no callable of; a function of no table name; a method's name called bare
    # (from_pretrained(...): no class named, and peft has no function of that name)
    assert A.candidates(_made_tb("s = Widget(3)", [("torch/nn/modules/nosuchfile.py", "__init__")])) == []
    assert A.candidates(_made_tb("m = frobnicate_widgets(x)", [("torch/_tensor.py", "_helper_x")])) == []
    assert A.candidates(_made_tb("m = from_pretrained('x')", [("peft/peft_model.py", "_helper_x")])) == []


def test_a_line_that_calls_no_name_is_looked_up_by_its_frame():
    # 'for batch in loader:' calls nothing the line names: the frame's function of every class of the file that
    # defines it (get_lr), with the classes whose notes hold what it requires
    groups = A.candidates(_made_tb("for batch in loader:", [(LRF, "get_lr")]))
    assert len(groups) == 1
    assert groups[0][:3] == [LR + "ConstantLR.get_lr", LR + "CosineAnnealingLR.get_lr", LR + "CosineAnnealingLR"]
    assert LR + "StepLR.get_lr" in groups[0] and LR + "OneCycleLR" in groups[0]


# ----------------------------------------------------------------------------------------------------------- _best

BUDGET = "deepspeed.compile.list_schedule.SchedulerMemoryBudget.clamped_to_minimum_gather_residency"
BUDGET_SENT = ("A smaller budget cannot be satisfied by any schedule and forces the scheduler into its over-budget "
               "fallback.")


def test_the_api_s_own_name_is_its_last_two_parts_not_its_module():
    # own words: SchedulerMemoryBudget.clamped_to_minimum_gather_residency (budget, memory, scheduler ...) are no
    # evidence; 'schedule' (the module list_schedule) and 'fallback' are: two words, kept
    assert _best(BUDGET, "the memory budget schedule has no fallback") == (2, [BUDGET_SENT], [])
    assert _best(BUDGET, "the memory budget scheduler has no fallback") is None  # one word of its own
    # Accelerator.pipeline_parallel_rank's 'Pipeline parallelism is not supported yet.': 'pipeline' is the method's
    # own word, 'parallelism' one: not enough
    assert _best("accelerate.accelerator.Accelerator.pipeline_parallel_rank",
                 "pipeline parallelism is not supported") is None


def test_a_parameter_s_sentence_counts_neither_its_name_nor_its_words():
    # deepspeed.initialize's notes: 'model: ...' first (the message does not name model: read on past it), then
    # distributed_port's; the message names distributed_port, whose words (distributed, port) and identifier do not
    # count: master, node and free do
    sent = ("distributed_port: Optional: Master node (rank 0)'s free port that needs to be used for communication "
            "during distributed training")
    assert _best("deepspeed.initialize", "distributed_port 29500 is not a free port on the master node") == (
        3, [sent], [])
    # the parameter named only by its words, in another order: not named
    assert _best("deepspeed.initialize", "port distributed: not a free port on the master node") == (3, [sent], [])
    assert _best("deepspeed.initialize", "no free port on the master node") is None


def test_a_parameter_whose_parts_are_short_is_named_by_its_identifier():
    # min_num_params has no word of four letters that is not common: the message names it only as an identifier
    plugin = "accelerate.utils.dataclasses.FullyShardedDataParallelPlugin"
    sent = "min_num_params: The minimum number of parameters a module must have to be wrapped."
    assert _best(plugin, "min_num_params: the minimum is 0, a module is wrapped when it has that many") == (
        2, [sent], [])
    assert _best(plugin, "the minimum is 0, a module is wrapped when it has that many") is None


LOSS_PARALLEL = "torch.distributed.tensor.parallel.loss.loss_parallel"
ORDER = ['with loss_parallel():', '    loss = F.cross_entropy(dist_input, target, reduction="mean")',
         '    loss.backward()']


def test_the_example_comes_with_a_kept_sentence_that_names_its_words():
    # the message shares no word with the example's lines; the kept sentence does ('reduction="mean"')
    got = _best(LOSS_PARALLEL, "one-dimensional DeviceMesh required")
    assert got[0] == 3 and got[1][0] == '`reduction="mean"` is only supported on a one-dimensional `DeviceMesh`.'
    assert got[2] == ORDER


# ---------------------------------------------------------------------------------------------------------- advise

def test_the_message_is_read_to_600_characters():
    # distribute_tensor's 'The rank of `device_mesh` and `placements` must be the same.': placements (1) and rank
    # (half: a common word) are not enough; device_mesh (an identifier, and its word mesh) makes it. At 600
    # characters it is read, one more and it is past the window
    tb = _real_tb("dtensor_placements")
    head, tail = "placements rank ", " device_mesh"
    at600 = head + "0" * (600 - len(head) - len(tail)) + tail
    at601 = head + "0" * (601 - len(head) - len(tail)) + tail
    assert A.advise(dict(tb, msg=at600)) == [("torch.distributed.tensor._api.distribute_tensor",
                                              ["The rank of `device_mesh` and `placements` must be the same."], [])]
    assert A.advise(dict(tb, msg=at601)) == []
    assert A.advise(dict(tb, msg=at600[:-1])) == []


def test_a_group_that_cannot_tell_its_apis_apart_hands_over_to_the_raising_frame():
    # the line's scatter group: torch.distributed.scatter's scatter_list sentence and torch.nn.parallel.comm
    # .scatter's chunk_sizes sentence share 3 words each with the message: neither is told apart there; the raising
    # frame's group (distributed_c10d.scatter alone) answers
    tb = _real_tb("scatter_no_list")
    msg = "scatter_list not specified on the source rank; chunk_sizes inferred"
    assert len(A.candidates(tb)) == 2
    assert A.advise(dict(tb, msg=msg)) == [(DC + "scatter", [
        "scatter_list: List of tensors to scatter (default is None, must be specified on the source rank)"], [])]


def test_several_apis_saying_the_same_sentence_name_one():
    # accelerate's trackers all say 'Should be initialized at the start of your script.': one answer, not none;
    # the API named is the shortest name of those that say it (a class before its own methods)
    tb = _made_tb("tracker.log({'loss': 1.0})", [("accelerate/tracking.py", "log")])
    assert A.advise(dict(tb, msg="the tracker is not initialized: start it at the start of the script")) == [
        ("accelerate.tracking.AimTracker", ["Should be initialized at the start of your script."], [])]
    # every scheduler's get_lr says the same: StepLR's is the shortest name (ConstantLR's comes first in the file)
    tb = _made_tb("lr = sched.get_lr()", [(LRF, "get_lr")])
    assert A.advise(dict(tb, msg="To get the last learning rate computed by the scheduler, please use "
                                 "`get_last_lr()`.")) == [
        (LR + "StepLR.get_lr", ["If you're trying to inspect the most recent learning rate, use get_last_lr() "
                                "instead."], [])]
