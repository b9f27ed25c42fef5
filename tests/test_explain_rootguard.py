"""A root cause needs its own evidence (issue 18, wrong-guard): gpudoctor/explain/rootguard.py.

A hang that stops at the process group's start with no NCCL line is the rendezvous (init_process_group's store,
before NCCL), not an NCCL hang; a collective, NCCL's eager init (device_id=) or NCCL's lines keep nccl.hang.

Real texts: excerpts of public threads, cited at each; the others are made from the lines' own formats (Lightning's
lightning/fabric/utilities/distributed.py _init_dist_connection: 'Initializing distributed: GLOBAL_RANK: {rank},
MEMBER: {rank + 1}/{world_size}'), said at each.
"""

from gpudoctor import explain
from explainhelp import ANSWERED


def _root(kb, text):
    res = explain.explain_text(text, kb)
    assert res["verdict"] in ANSWERED
    return res["findings"][0]


# fdbtrs/IDiff-Face#14 (https://github.com/fdbtrs/IDiff-Face/issues/14): 8 ranks, rank 0 waits in torch's
# store-based barrier with 1 of 8 joined (the user's question as the first line)
IDIFF_14 = """How to solve the communication problem in distributed training? The training hangs here:
Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/8
Initializing distributed: GLOBAL_RANK: 7, MEMBER: 8/8
[2025-03-11 05:20:54,412][torch.distributed.distributed_c10d][INFO] - Added key: store_based_barrier_key:1 to store for rank: 0
[2025-03-11 05:21:04,421][torch.distributed.distributed_c10d][INFO] - Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=8, worker_count=1, timeout=0:30:00)
"""

# OpenDriveLab/Vista#50 (https://github.com/OpenDriveLab/Vista/issues/50): the user's words only
VISTA_50 = """Stuck on initializing deepspeed distributed: GLOBAL_RANK
The training stuck on initializing deepspeed distributed: GLOBAL_RANK, I didn't find a solution.
"""


def test_a_hang_at_the_process_groups_start_is_its_rendezvous(kb):
    for text in (IDIFF_14, VISTA_50):
        f = _root(kb, text)
        assert f["id"] == "rendezvous.init_hang", text[:40]
        assert "not an NCCL hang" in f["notes"][0]


def test_the_line_that_points_at_a_cause_puts_it_first(kb):
    # made from Lightning's format (above): node 0's address given as localhost; then two nodes with one machine_rank
    f = _root(kb, "export MASTER_ADDR=localhost MASTER_PORT=29500\nInitializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
                  "it freezes here, nothing else happens\n")
    assert f["id"] == "rendezvous.init_hang"
    assert f["causes"][0]["evidence"] and "one address every node reaches" in f["causes"][0]["text"]
    f = _root(kb, "machine_rank: 0\nInitializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\nthen nothing happens\n")
    assert "same node rank" in f["causes"][0]["text"]


def test_a_collective_eager_init_or_ncclS_lines_keep_the_nccl_hang(kb):
    base = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
    for extra in ("The training hangs after this, it never returns from the first dist.barrier() call.\n",
                  "dist.init_process_group(backend='nccl', device_id=dev)\nThe job hangs at init_process_group.\n",
                  "node1:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nthe job hangs at init, then nothing\n"):
        assert _root(kb, base + extra)["id"] in ("nccl.hang", "nccl.info_only"), extra


# NVIDIA/nccl#496 (https://github.com/NVIDIA/nccl/issues/496): one thread (host:pid:tid 8470dd07de42:174:239) prints
# the CUDA call the driver refused, then a broadcast on the communicator that never formed ('0..-1 range'), then
# 'invalid device ordinal': the first is the failure, the others follow from it
NCCL_496 = """[1,0]<stdout>:8470dd07de42:174:239 [0] enqueue.cc:802 NCCL WARN Cuda failure 'API call is not supported in the installed CUDA driver'
[1,0]<stdout>:8470dd07de42:174:239 [0] misc/argcheck.cc:39 NCCL WARN Broadcast : invalid root 0 (root should be in the 0..-1 range)
[1,0]<stdout>:8470dd07de42:174:239 [0] init.cc:895 NCCL WARN Cuda failure 'invalid device ordinal'
"""


def test_a_threads_first_nccl_warn_is_the_root(kb):
    f = _root(kb, NCCL_496)
    assert f["first_line"] == 1 and f["id"] != "cuda.invalid_device_ordinal"
    # another thread's earlier WARN is not this thread's cause: the order by rank stands
    other = NCCL_496.replace("174:239 [0] enqueue", "175:240 [0] enqueue")
    assert _root(kb, other)["id"] == "cuda.invalid_device_ordinal"


# made here for real (CPython 3.11.7, no network): urllib.request.urlopen of a weights URL, as torch.hub and
# torchvision do; socket.gaierror, then urllib's URLError (chained)
FETCH = """Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/urllib/request.py", line 1348, in do_open
    h.request(req.get_method(), req.selector, req.data, headers,
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/http/client.py", line 952, in connect
    self.sock = self._create_connection(
                ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/socket.py", line 962, in getaddrinfo
    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
socket.gaierror: [Errno -2] Name or service not known

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/tmp/wg/t/fetch_weights.py", line 2, in <module>
    urllib.request.urlopen("https://download.pytorch.org/models/resnet50-11ad3fa6.pth", timeout=10)
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/urllib/request.py", line 216, in urlopen
    return opener.open(url, data, timeout)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/urllib/request.py", line 1351, in do_open
    raise URLError(err)
urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>
"""


def test_a_lookup_in_another_librarys_traceback_is_not_the_rendezvous(kb):
    res = explain.explain_text(FETCH, kb)
    assert res["findings"] and res["findings"][0]["id"] != "rendezvous.hostname"
    # the same lookup under torch.distributed's rendezvous (its frame in the traceback) is rendezvous.hostname
    dist = FETCH.replace('/root/.pyenv/versions/3.11.7/lib/python3.11/urllib/request.py", line 1348, in do_open',
                         '/opt/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 190, in '
                         '_create_c10d_store')
    assert _root(kb, dist)["id"] == "rendezvous.hostname"


# made from torch's c10d logger format (torch/csrc/distributed/c10d/socket.cpp) and accelerate's config keys: two
# machines each started with the same config; each input ends at the store client's line, then the user's ^C
SAME_RANK = """Two machines, the same config file on both; nothing happens after one warning until I Ctrl-C them:
machine_rank: 0
main_process_ip: '10.98.0.11'
num_machines: 2
[W1126 11:43:19.583904005 socket.cpp:207] [c10d] The hostname of the client socket cannot be retrieved. err=-3
^C
"""


def test_a_text_that_ends_at_the_store_clients_line_is_the_rendezvous(kb):
    f = _root(kb, SAME_RANK)
    assert f["id"] == "rendezvous.init_hang"
    assert "same node rank" in f["causes"][0]["text"]


def test_a_run_that_went_past_the_process_groups_start_is_not_held_there(kb):
    # Lightning prints 'All distributed processes registered' once init_process_group returned (its format, above)
    text = ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
            "All distributed processes registered. Starting with 2 processes\n"
            "the job hangs after this, nothing else happens\n")
    res = explain.explain_text(text, kb)
    assert not res["findings"] or res["findings"][0]["id"] != "rendezvous.init_hang"
    # the user saying it stops after some steps: past the start
    text = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\nthe training hangs after 300 steps, nothing else\n"
    res = explain.explain_text(text, kb)
    assert not res["findings"] or res["findings"][0]["id"] != "rendezvous.init_hang"


# thu-ml/SageAttention#149 (https://github.com/thu-ml/SageAttention/issues/149): torch's words for a kernel that faulted
LAUNCH_FAILURE = """RuntimeError: CUDA error: unspecified launch failure
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""


def test_a_kernels_own_architecture_guard_before_the_launch_failure(kb):
    assert _root(kb, LAUNCH_FAILURE)["id"] == "cuda.illegal_access"
    # the line CUTLASS's CUTE_INVALID_CONTROL_PATH("This kernel only supports sm90") prints before it traps
    # (include/cute/config.hpp: assert(0 && x); printf(x); __brkpt()): the trap is that guard's
    f = _root(kb, "This kernel only supports sm90\n" + LAUNCH_FAILURE)
    assert f["id"] == "cuda.no_kernel_image" and "only supports another architecture" in f["causes"][0]["text"]


def test_a_weights_download_that_cannot_resolve_is_torch_hubs(kb):
    # torch/hub.py load_state_dict_from_url's line (its format), then the urllib failure above (run here)
    text = ('Downloading: "https://download.pytorch.org/models/resnet50-11ad3fa6.pth" to '
            '/home/u/.cache/torch/hub/checkpoints/resnet50-11ad3fa6.pth\n' + FETCH)
    f = _root(kb, text)
    assert f["id"] == "torch.hub_download" and "TORCH_HOME" in f["causes"][0]["fix"][0]
