"""settings.py's reading of the build's arch list and the GPU's compute capability (words16's CUDA_FORCE_PTX_JIT row,
mutation17, docs/mutation.md "Round 12"): _arch_line and _arch_covered one line at a time. The lines are torch's own
words: torch.cuda.get_arch_list() / get_device_capability() as cuda.toml's debug command prints them, and the two
warnings of torch/cuda/__init__.py (_check_capability: 'Found GPU%d %s which is of cuda capability %d.%d.';
_check_cubins: '%s with CUDA capability sm_%d%d is not compatible with the current PyTorch installation.'), as
pytorch/pytorch#52180 and #45028 (https://github.com/pytorch/pytorch/issues/52180,
https://github.com/pytorch/pytorch/issues/45028) show them. The whole path is tests/test_explain_words16.py's."""

from gpudoctor.explain import settings

OLD_GPU = ("UserWarning: Found GPU0 GeForce GTX 770 which is of cuda capability 3.0. PyTorch no longer supports this "
           "GPU because it is too old. The minimum cuda capability that we support is 3.5.")
NEW_GPU = ("UserWarning: GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch "
           "installation. The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75.")
ARCHES = "['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90a', 'compute_90']"


def _read(*lines):
    st = settings.State()
    for n, text in enumerate(lines, 1):
        settings._arch_line(st, n, text)
    return st


def test_the_arch_list_is_the_sm_entries_with_their_line_and_text():
    st = _read("  " + ARCHES + "  ")
    assert st.arch == (1, ARCHES, {"50", "60", "70", "75", "80", "86", "90"})  # sm_90a is 90; compute_90 is no sm
    assert st.cap is None


def test_the_first_arch_list_stays():
    st = _read("['sm_37', 'sm_50']", ARCHES)
    assert st.arch == (1, "['sm_37', 'sm_50']", {"37", "50"})


def test_a_long_line_is_kept_to_400_characters():
    line = ARCHES + " " + "x" * 500
    st = _read(line)
    assert st.arch[1] == line[:400]
    st = _read("capability (9, 0) " + "y" * 500)
    assert st.cap == (1, ("capability (9, 0) " + "y" * 500)[:400], "90")
    line = "(9, 0) " + ARCHES + " " + "z" * 500  # the debug command's tuple form too
    assert _read(line).cap == (1, line[:400], "90")


def test_each_form_of_the_capability():
    assert _read(OLD_GPU).cap == (1, OLD_GPU, "30")  # 'cuda capability 3.0'
    assert _read(NEW_GPU).cap == (1, NEW_GPU, "86")  # 'CUDA capability sm_86' (the supported list is no arch list)
    assert _read(NEW_GPU).arch is None
    assert _read("torch.cuda.get_device_capability(): capability (12, 0)").cap[2] == "120"
    assert _read("device capability: 8.9").cap[2] == "89"


def test_the_first_capability_stays():
    st = _read(OLD_GPU, NEW_GPU)
    assert st.cap == (1, OLD_GPU, "30")


def test_the_debug_commands_tuple_before_the_list_is_the_capability():
    st = _read("  (8, 6) " + ARCHES)
    assert st.cap == (1, "(8, 6) " + ARCHES, "86") and "86" in st.arch[2]
    # a capability told before keeps its place; the list is still read
    st = _read(OLD_GPU, "(8, 6) " + ARCHES)
    assert st.cap[2] == "30" and st.arch[0] == 2
    # a tuple before an unclosed list is no arch list line: nothing read
    st = _read("(8, 6) ['sm_86'")
    assert st.cap is None and st.arch is None


def test_covered_only_when_the_list_holds_the_gpu():
    st = _read("(8, 6) " + ARCHES)
    assert settings._arch_covered(st) == (1, "arch list", "sm_86", "archcover", "(8, 6) " + ARCHES, None, False)
    st = _read(ARCHES, OLD_GPU)
    assert settings._arch_covered(st) is None  # sm_30 is not in the list
    assert settings._arch_covered(_read(ARCHES)) is None  # no capability
    assert settings._arch_covered(_read(NEW_GPU)) is None  # no arch list
    st = _read(NEW_GPU, "x", ARCHES)
    assert settings._arch_covered(st) == (3, "arch list", "sm_86", "archcover", ARCHES, None, False)
