#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_messages.json: the errors torch.distributed
can print - c10d's TCPStore, sockets, process groups, DDP's reducer, the NCCL watchdog, the
rendezvous handlers, torchrun's elastic agent - each with a bounded matcher and the knowledge
family from the RULES table below. Sites no rule assigns are listed (docs/explain.md), never guessed.

Three kinds of source, all from the torch that users run:
- python: `raise X("...")` and `logger.error/warning/exception(...)` in torch/distributed/**.py and
  torch/nn/parallel/distributed.py of a torch wheel, read with Python's ast (never executed);
  recorded as one slice block per statement (`=== path @LINE`).
- strings: the C++ messages of c10d as the wheel's libtorch_cpu.so holds them (the format strings
  of C10_THROW_ERROR / TORCH_CHECK / C10D_ERROR, c10::str fragments). The linker keeps each
  translation unit's strings together after the unit's own __FILE__ string
  (".../torch/csrc/distributed/c10d/<file>"), so each string is attributed to the c10d file whose
  path string precedes it (an attribution, not a line number). A CPU wheel has no
  ProcessGroupNCCL; its messages come from the source below.
- cpp: statements copied from pinned ProcessGroupNCCL.cpp and TCPStore.cpp (the NCCL watchdog, its
  timeout and abort messages; the store's "Socket Timeout"), recorded in tools/data/torch_cpp_source.txt
  with the commits they were read at.
- usercode: what a bug in the training code or its data makes torch print (USER_RULES below): the
  strings of the wheel's libtorch_cpu.so / libtorch_python.so that USER_SELECT picks (ATen's device
  and dtype checks, autograd's, the DataLoader's worker and shared-memory errors), the raise and
  `error_msgs.append` statements of USER_PY (load_state_dict, clip_grad_norm_, the DataLoader), and
  the CUDA-only statements a CPU wheel does not hold (the caching allocator's out-of-memory message,
  the loss and indexing kernels' asserts), copied in tools/data/torch_usercode_source.txt.

Usage:
    pip download --no-deps --index-url https://download.pytorch.org/whl/cpu torch   (unzip the wheel)
    python tools/gen_torch_messages.py --wheel /path/to/site-packages/torch [--older 2.5.1] [-o OUT]
        (writes tools/data/torch_messages_slice.txt too; --older: also the raise statements of
        OLDER_FILES in that older torch release, read from its PyPI wheel by HTTP range requests as
        tools/gen_torch_api.py reads wheels: the wording most public threads quote, where a later
        release reworded a check - "The new group's rank should be within the world_size set by
        init_process_group" became "Rank %s is out of range")
    python tools/gen_torch_messages.py --slice tools/data/torch_messages_slice.txt -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/, BSD-3-Clause): torch/distributed/,
torch/lib/libtorch_cpu.so; pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
(https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp).
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_torch_messages.py"
SLICE = os.path.join(knowgen.DATA, "torch_messages_slice.txt")
CPP = os.path.join(knowgen.DATA, "torch_cpp_source.txt")
USER_CPP = os.path.join(knowgen.DATA, "torch_usercode_source.txt")
PY_DIRS = ["distributed"]  # under the torch package
PY_FILES = ["nn/parallel/distributed.py"]
# files of the packages PY_SKIP leaves out whose checks users meet: FSDP (fully_sharded_data_parallel.py and
# the FSDP1 init/runtime/state-dict/flat-parameter modules; fully_shard, FSDP2), torch.distributed.checkpoint
# (DCP) and DTensor / tensor parallelism (their `raise AssertionError(...)` too: torch 2.13 turned the
# `assert`s of these modules into such raises, user-facing ones among them: "FSDP does not support deepcopy")
PY_EXTRA = ["distributed/fsdp/fully_sharded_data_parallel.py", "distributed/fsdp/_init_utils.py",
            "distributed/fsdp/_runtime_utils.py", "distributed/fsdp/_state_dict_utils.py",
            "distributed/fsdp/_flat_param.py", "distributed/fsdp/wrap.py",
            "distributed/fsdp/_fully_shard/_fully_shard.py", "distributed/fsdp/_fully_shard/_fsdp_init.py",
            "distributed/fsdp/_fully_shard/_fsdp_param.py", "distributed/fsdp/_fully_shard/_fsdp_param_group.py",
            "distributed/fsdp/_fully_shard/_fsdp_state.py", "distributed/checkpoint/state_dict.py",
            "distributed/checkpoint/default_planner.py", "distributed/checkpoint/filesystem.py",
            "distributed/checkpoint/utils.py", "distributed/checkpoint/state_dict_saver.py",
            "distributed/tensor/_api.py", "distributed/tensor/_dispatch.py", "distributed/tensor/placement_types.py",
            "distributed/tensor/parallel/api.py", "distributed/tensor/parallel/style.py"]
PY_SKIP = re.compile(r"/(?:_?tests?|testing|benchmarks|examples|_tools|flight_recorder/components)/|/_composable/|"
                     r"/tensor/|/_tensor/|/pipelining/|/checkpoint/|/fsdp/|/_shard/|/rpc/|/autograd/|/optim/|"
                     r"/algorithms/|/_symmetric_memory/|/nn/api/|/_local_tensor/")
_C10D = "/torch/csrc/distributed/c10d/"
_SO_MARK = re.compile(r"^/\S+\.(?:cpp|cc|c|hpp|h|cu|cuh)$")

# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning | string | cpp)
RULES = [
    # sockets and the TCPStore (socket.cpp, TCPStore*.cpp, elastic/utils/distributed.py)
    # socket.cpp's per-address attempts (SocketListenOp / SocketConnectOp::recordError: C10D_WARNING, then the
    # next address): on a host without IPv6, '[::]' / '[::1]' fail with errno 97 or 99 and IPv4 works. The
    # errors are the final 'failed to listen on any local network address' / 'failed to connect to any network
    # address of' / the timeout, which carry these texts; rendezvous.toml's own patterns keep a lone attempt
    # that names another errno (98: the port is taken; 111, 113: see rendezvous.connect)
    ("address-attempt", None, {"text": r"^The server socket has failed to bind to %s %s\.$|"
                                       r"^The client socket has failed to connect to %s %s\.$"}),
    ("listen", "rendezvous.address_in_use", {"text": r"failed to listen on(?! provided)|failed to bind\b|"
                                                      r"failed to bind to|already in use|"
                                                      r"could not be initialized on any address"}),
    ("store-wait", "rendezvous.store_timeout", {"text": r"wait timeout after|^Socket Timeout$|barrier timeout after|"
                                                        r"waiting for clients|retrieving ncclUniqueId|missing.ranks|"
                                                        r"waiting for all .* members to join|"
                                                        r"Error waiting on exit barrier|"
                                                        r"possible application crash on rank 0"}),
    ("client-timeout", "rendezvous.connect", {"text": r"client socket has timed out|failed to connect to any network|"
                                                      r"client socket has failed to connect|TCP client failed to connect|"
                                                      r"connection to the C10d store has failed|Ping failed"}),
    ("gai", "rendezvous.hostname", {"text": r"network addresses of .* cannot be retrieved|gai error"}),
    ("store-gone", "errno.peer_gone", {"text": r"Connection was likely closed|Remote peer closed the connection|"
                                               r"Connection closed by peer|Connection reset by peer"}),
    ("libuv", "torch.windows_libuv", {"text": r"use_libuv was requested"}),
    # collectives: the watchdog, mismatches, DDP
    ("watchdog-timeout", "nccl.timeout", {"text": r"Watchdog caught collective operation timeout|"
                                                  r"timed out in blocking wait|NCCL monitor thread timeout|"
                                                  r"detects no heartbeat|watchdog heartbeat detected|failed to pass monitoredBarrier|"
                                                  r"timed out in monitoredBarrier"}),
    ("watchdog-abort", "cascade.watchdog_abort", {"text": r"Some NCCL operations have failed or timed out|"
                                                          r"taking the entire process down|"
                                                          r"watchdog thread terminated with exception|"
                                                          r"NCCL communicator (?:was aborted|encountered error)"}),
    ("mismatch", "torch.collective_mismatch", {"text": r"Detected mismatch between collectives|"
                                                       r"Collectives differ in the following aspects"}),
    ("unused-params", "torch.ddp_unused_parameters", {"text": r"Expected to have finished reduction in the prior|"
                                                              r"did not receive grad for rank|"
                                                              r"did not get gradient in backwards pass"}),
    ("ready-twice", "torch.ddp_ready_twice", {"text": r"marked as ready twice|mark a variable ready only once"}),
    ("ddp-params", "torch.ddp_model_mismatch", {"text": r"DDP expects same model across all ranks|"
                                                        r"appears not to match (?:sizes|strides) of the same param"}),
    ("no-pg", "torch.pg_not_initialized", {"text": r"process group has not been initialized"}),
    ("no-nccl", "torch.no_nccl", {"text": r"doesn't have NCCL built in"}),
    ("no-gpu", "cuda.not_available", {"text": r"only supported with GPUs, no GPUs found|^Cuda is not available"}),
    ("ordinal", "cuda.invalid_device_ordinal", {"text": r"exceeds available GPUs in CUDA_VISIBLE_DEVICES"}),
    ("gloo-mesh", "gloo.socket_ifname", {"text": r"Gloo connectFullMesh failed|"
                                                 r"Unable to resolve hostname to a \(local\) address|"
                                                 r"makeTCPDevice\(\): interface or hostname can't be empty"}),
    # the launcher side: env:// and torchrun's rendezvous and agent
    ("env", "rendezvous.env_missing", {"text": r"environment variable .* expected, but not set"}),
    ("store-barrier", "rendezvous.store_barrier", {"text": r"Timed out initializing process group in store based"}),
    ("signal", "cascade.signal", {"where": r"elastic/multiprocessing/api", "text": r"got signal"}),
    ("child-failed", "cascade.child_failed", {"where": r"elastic/multiprocessing/api", "text": r"failed \(exitcode"}),
    # the rest: the message itself names what to change (generic families, their causes tell apart)
    ("torchrun-usage", "torch.distributed_usage", {"where": r"^torch/distributed/(?:run|launch|elastic|launcher)",
                                                   "level": r"raise"}),
    ("api-usage", "torch.distributed_usage", {"where": r"^torch/(?:distributed|nn/parallel)/", "level": r"raise"}),
    # c10d's argument checks whose wording has none of c10d-check's words (ProcessGroupGloo.cpp's
    # invalidArgument texts, ProcessGroupNCCL.cpp's gather/scatter prefix, ProcessGroup.cpp's split checks)
    ("c10d-argument", "torch.c10d_error", {"level": r"raise|string",
                                           "text": r"^ProcessGroupNCCL::(?:gather|scatter): %s$|"
                                                   r"^Tensor's dim 0 does not divide|^Number of tensor splits not equal|"
                                                   r"^Split sizes doesn't match|^input tensor has to be contiguous|"
                                                   r"need to be on the same device|^output lists should be equal to|"
                                                   r"^reduce_scatter only supports 1 output|^Sparse dimensions do not match|"
                                                   r"^the split group's size should be no larger|"
                                                   r"^Split ranks should not have duplicates|"
                                                   r"^Tensor list mustn't be larger than|"
                                                   r"^Capturing NCCL collectives is only allowed|"
                                                   r"^Not able to create/get the NCCL Communicator|"
                                                   r"^only supports dense tensors|"
                                                   r"^The (?:shard dimension of the shard_dim_alltoall|first dimension "
                                                   r"of the reduce_scatter) input \($|"
                                                   r"^register_(?:builtin_)?comm_hook or register_(?:builtin_)?comm_hook "
                                                   r"can only be called once"}),
    ("c10d-check", "torch.c10d_error", {"level": r"raise|string",
                                        "text": r"\b(?:must|cannot|can't|not supported|does not support|doesn't support|"
                                                r"requires?|[Ii]nvalid|[Uu]nsupported|[Ee]xpected|mismatch|not implemented|"
                                                r"[Ff]ailed|[Ee]rror|[Uu]nknown)\b"}),
]

# What one message means and what to do where the message itself says enough and its family's fix is
# too general (the first regex over the site's text that matches; an assigned site only), from the code
# around the site: TCPStore.cpp (TCPServer's waitForWorkers: "K/N clients joined" counts the ranks that
# connected). socket.cpp's connect messages ("timed out ... trying to connect to (host, port)", "failed to
# connect to ...") do not say which of rendezvous.connect's causes it is: the family's causes and their
# evidence (a login node, a loopback address in the message) tell them apart.
# (torchrun's own signal lines, under 12 literal characters here, are elastic.sigterm's hand-written patterns.)
SITE_FIX = [
    (r"^Timed out after %s seconds waiting for clients\. %s/%s clients joined\.",
     "c10d TCPStore.cpp: the store's server on node 0 waited for every rank of the world size and only {%2|the first "
     "number} connected: the rest were never started or cannot reach MASTER_ADDR:MASTER_PORT.",
     ["start torchrun on every node with the same --nnodes and a distinct --node-rank 0..N-1 (two nodes with one "
      "--node-rank count once); under Slurm: srun --ntasks-per-node=1 torchrun --node-rank $SLURM_NODEID ...",
      "on a node that did not join: its own log for an earlier error, and nc -zv <MASTER_ADDR> <MASTER_PORT>",
      "--nnodes x --nproc-per-node must be the world size the store waits for"]),
    # ProcessGroupNCCL.cpp (broadcastUniqueNCCLID, tools/data/torch_cpp_source.txt): rank 0 puts the
    # ncclUniqueId in the store and the others store->get it; the catch appends the store's own error
    # (e.what()): a wait timeout ("Socket Timeout", "wait timeout after"), or a socket error of the
    # client's connection to rank 0's TCPStore ("Connection reset by peer", "Connection refused")
    (r"^\[%s\] is setting up NCCL communicator and retrieving ncclUniqueId from \[0\]",
     "This rank could not fetch rank 0's NCCL unique id from the c10d store; the error after 'got error:' says why: "
     "a timeout means rank 0 is late or never reached this communicator's creation (it failed or took another code "
     "path), a reset or refusal means rank 0 (whose process hosts the store) crashed or its address cannot be "
     "reached.",
     ["read rank 0's (node 0's) log for its first error: the message is an echo of it",
      "from this node: nc -zv $MASTER_ADDR $MASTER_PORT (refused or no route: the address, port or firewall)",
      "a timeout with rank 0 alive but busy (dataset preprocessing, a download, a compile before its first "
      "collective): init_process_group(..., timeout=datetime.timedelta(minutes=60)), or do that work before the "
      "process group starts; rank 0 not busy: every rank must create the same process groups in the same order"]),
]

# The argument checks users meet, each message its own meaning and fix (torch.distributed_usage and
# torch.c10d_error alone say only "the message names what to change"). Written from the code around
# each check and the documentation of the call it guards, for torch 2.13 (the slice's release):
# - torch/distributed/distributed_c10d.py and the API docs, https://pytorch.org/docs/stable/distributed.html
#   (new_group: "requires that all processes in the main group enter this function, even if they are not
#   going to be members of the group"; all_gather / gather / scatter: the list holds one tensor per rank, of
#   the input's size; all_gather_into_tensor: "output_tensor ... must be correctly sized to have one of the
#   following forms: (world_size * k, ...) (concatenation) or (world_size, k, ...) (stack)";
#   reduce_scatter_tensor: "input_tensor ... should have a size of output tensor size times the world size")
# - torch/nn/parallel/distributed.py (DistributedDataParallel.__init__'s _log_and_throw checks) and its
#   docs, https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html
#   ("device_ids ... For single-device modules, device_ids can contain exactly one device id ... For
#   multi-device modules and CPU modules, device_ids must be None"; the join() context manager for
#   uneven inputs, https://pytorch.org/tutorials/advanced/generic_join.html)
# - ProcessGroupNCCL.cpp (check_gpu_single_tensor, _allgather_base, _reduce_scatter_base, getNcclDataType,
#   getNcclReduceOp) and ProcessGroupGloo.cpp (the checks named after "ProcessGroupGloo::<op>: ", each
#   reported through its invalidArgument), https://github.com/pytorch/pytorch/tree/main/torch/csrc/distributed/c10d
# - torch/distributed/run.py, rendezvous.py, elastic/rendezvous/*.py, launcher/api.py and the torchrun
#   docs, https://pytorch.org/docs/stable/elastic/run.html
# - torch/distributed/device_mesh.py (init_device_mesh), https://pytorch.org/docs/stable/distributed.html#devicemesh
_ONE_PER_RANK = "[torch.empty_like(t) for _ in range(dist.get_world_size(group))]"
SITE_FIX += [
    # ---- distributed_c10d.py: groups and ranks
    (r"^Rank %s is out of range\. Valid ranks are 0 to|^the new group's world size should be less or equal to the "
     r"world size|^The new group's rank should be within the (?:the )?world_size",
     "new_group() was given a rank that does not exist: every rank in `ranks` must be below the world size "
     "(torchrun's --nnodes x --nproc-per-node), so the job started fewer ranks than the code assumes.",
     ["build the list from the world that exists: ranks = list(range(dist.get_world_size())) (or a slice of it), "
      "never from a hard-coded GPU count",
      "start as many ranks as the groups need: torchrun --nnodes N --nproc-per-node G (world size N x G); "
      "print(dist.get_world_size()) on rank 0 to see what was started"]),
    (r"^ranks list must not contain duplicate entries|^the split group cannot have duplicate ranks|"
     r"^Rank %s has appeared in both subgroup",
     "A group's `ranks` list names one rank twice (or two subgroups of new_subgroups_by_enumeration share a rank): "
     "each rank can appear once in a group.",
     ["pass each rank once: ranks = sorted(set(ranks)); subgroups of new_subgroups_by_enumeration must not overlap"]),
    (r"^Group rank %s is not part of group|^Global rank %s is not part of (?:the parent )?group",
     "A rank used a group it is not a member of (or asked for a rank outside the group): a collective on a "
     "subgroup was called by a rank missing from that group's `ranks`.",
     ["call collectives on a subgroup only from its members: `if dist.get_rank() in ranks: dist.all_reduce(t, "
      "group=g)`; convert ranks with dist.get_group_rank(g, global_rank) / dist.get_global_rank(g, group_rank)",
      "call new_group(ranks) on EVERY rank (members or not) in the same order, then use the group only on its members"]),
    (r"^Group %s is not registered",
     "The group passed to the call is not (or no longer) registered: it was destroyed "
     "(destroy_process_group), made by another init_process_group, or is not a ProcessGroup from new_group.",
     ["create groups with dist.new_group(ranks) after init_process_group and do not use them after "
      "dist.destroy_process_group(); pass group=None for the default (world) group"]),
    (r"^Invalid process group specified",
     "The group passed to the call is unknown to torch.distributed: destroyed already "
     "(destroy_process_group), or init_process_group was never called in this process.",
     ["call dist.init_process_group(...) first (or launch with torchrun), and use groups only between "
      "new_group and destroy_process_group"]),
    (r"^Expected ProcessGroup, got %s|^Expecting a ProcessGroup, but got a %s",
     "group= was given something that is not a ProcessGroup (a list of ranks, a rank number, a DeviceMesh).",
     ["make the group once with g = dist.new_group(ranks=[...]) on every rank and pass group=g "
      "(a DeviceMesh: mesh.get_group(dim))"]),
    (r"^Can't specify both group_rank and global_rank|^Must specify global_rank or group_rank",
     "get_group_rank / get_global_rank-style helpers (and the group_src/group_dst arguments) take exactly one of the "
     "two rank numbers.",
     ["pass either the global rank (src=/dst=) or the rank within the group (group_src=/group_dst=), not both"]),
    (r"^Invalid (?:%s|destination|source) rank: (?:%s|destination|source) rank should not be the same as the rank",
     "send/recv (isend/irecv, P2POp) to this rank itself: the peer rank equals dist.get_rank().",
     ["compute the peer from the rank: dst=(rank + 1) % world_size, src=(rank - 1) % world_size; skip the "
      "exchange when the peer would be the rank itself (world size 1)"]),
    (r"^Invalid ``op``\. Expected ``op`` to be of type|^Invalid ``p2p_op_list``",
     "batch_isend_irecv takes a list of P2POp whose op is dist.isend or dist.irecv (the functions, not their results).",
     ["ops = [dist.P2POp(dist.isend, send_t, peer), dist.P2POp(dist.irecv, recv_t, peer)]; "
      "for w in dist.batch_isend_irecv(ops): w.wait()"]),
    (r"^All ops need to use the same group",
     "The P2POp list given to batch_isend_irecv mixes process groups.",
     ["give every P2POp of one batch_isend_irecv the same group=, or make one batch per group"]),
    (r"^trying to initialize the default process group twice",
     "init_process_group was called a second time in the same process (a library - accelerate, Lightning, "
     "DeepSpeed, a Trainer - already initialised it, or the code calls it in a loop or per model).",
     ["guard the call: `if not dist.is_initialized(): dist.init_process_group(...)`; or call "
      "dist.destroy_process_group() before initialising again"]),
    (r"^Cannot specify both init_method and store",
     "init_process_group got both init_method= and store=; they are two ways to rendezvous.",
     ["pass one: init_method='env://' (torchrun's MASTER_ADDR/PORT) or store=dist.TCPStore(...) with rank= "
      "and world_size="]),
    (r"^world_size must be positive if using store|^rank must be non-negative if using store",
     "init_process_group(store=...) needs rank= and world_size= (no env:// to read them from).",
     ["pass rank=int(os.environ['RANK']), world_size=int(os.environ['WORLD_SIZE']) with store=, or use "
      "init_method='env://' under torchrun"]),
    (r"^Expected timeout argument to be of type ?datetime\.timedelta",
     "timeout= of init_process_group / new_group must be a datetime.timedelta, not a number of seconds.",
     ["timeout=datetime.timedelta(minutes=30) (import datetime)"]),
    (r"^The specified group name has already been created",
     "new_group(group_name=...) was given a name that another live group already uses.",
     ["give each group a unique group_name, or leave it unset (torch names groups itself)"]),
    (r"^init_process_group device_id parameter must be an accelerator with an index|"
     r"^init_process_group device_id parameter must be a cuda device with an id|^Please use a device_id with index",
     "init_process_group(device_id=...) needs one device with its index (torch.device('cuda', local_rank)), "
     "not 'cuda' alone.",
     ["device_id=torch.device('cuda', int(os.environ['LOCAL_RANK'])) (and torch.cuda.set_device(local_rank) "
      "before it)"]),
    (r"^device_id %s is out of range\. Please use a device index less than",
     "device_id names a GPU index this process cannot see: LOCAL_RANK (or the index used) is not below "
     "torch.cuda.device_count() - more ranks per node than visible GPUs, or CUDA_VISIBLE_DEVICES narrows them.",
     ["torchrun --nproc-per-node must not exceed the GPUs visible on the node (nvidia-smi -L; echo "
      "$CUDA_VISIBLE_DEVICES)", "use device_id=torch.device('cuda', local_rank), not the global rank"]),
    (r"^device_id is an int, but no accelerator support is found|^device_id %s does not match the current "
     r"compilation's accelerator support",
     "init_process_group was given a GPU device_id, but this torch build has no CUDA (a CPU-only wheel).",
     ["install a CUDA build of torch (pip install torch --index-url https://download.pytorch.org/whl/cu<XY>) "
      "and check python -c 'import torch; print(torch.version.cuda, torch.cuda.is_available())'"]),
    (r"^LOCAL_RANK is not in the environment",
     "get_node_local_rank() reads LOCAL_RANK, which torchrun sets for each process; the script was started "
     "without torchrun (plain python, or a launcher that does not export it).",
     ["start the script with torchrun --nproc-per-node=G script.py (or export LOCAL_RANK yourself), or call "
      "get_node_local_rank(fallback_rank=0) for single-process runs"]),
    # ---- backends
    (r"^Unknown backend '%s'\. Specify a 'device:backend' string|^Unknown c10d backend type|^Unknown backend type|"
     r"^Backend name must be a string",
     "The backend= string is not one torch knows (a typo, or a backend of another library that was not imported).",
     ["backend='nccl' (CUDA), 'gloo' (CPU), 'cpu:gloo,cuda:nccl' (both); a third-party backend registers itself "
      "on import (import oneccl_bindings_for_pytorch / torch_npu) before init_process_group"]),
    (r"^Invalid device:backend pairing|^Duplicate device type",
     "The backend string's 'device:backend' list is malformed.",
     ["write it as backend='cpu:gloo,cuda:nccl': one backend per device type, comma-separated, no spaces"]),
    (r"^Default backend not registered for device",
     "A collective got a tensor on a device type for which the group has no backend: a CPU tensor to a group "
     "made with backend='nccl' (or a CUDA tensor to 'gloo' only).",
     ["move the tensor to the rank's GPU (t.cuda(local_rank) / t.to(f'cuda:{local_rank}')) before the collective, "
      "or init_process_group(backend='cpu:gloo,cuda:nccl') so CPU tensors go through Gloo"]),
    (r"^We detected accelerator %s on your machine\. But we don't know which communication backend",
     "init_process_group was called without backend= on a machine whose accelerator has no default backend.",
     ["pass backend= explicitly (the accelerator vendor's backend, e.g. 'xccl', 'hccl', or 'gloo' for CPU)"]),
    (r"^Distributed package doesn't have MPI built in",
     "backend='mpi' needs a torch compiled from source against MPI; the wheels on PyPI and "
     "download.pytorch.org have no MPI backend.",
     ["use backend='nccl' (GPUs) or 'gloo' (CPU) with torchrun / srun, or build torch from source on a host with "
      "MPI (USE_DISTRIBUTED=1, mpicc on PATH)"]),
    (r"^Distributed package doesn't have Gloo built in",
     "This torch build has no Gloo backend (some platform builds: macOS/Windows wheels of some releases, "
     "custom builds with USE_GLOO=0).",
     ["use backend='nccl' for GPUs, or install an official Linux wheel (it has Gloo): "
      "python -c 'import torch.distributed as d; print(d.is_gloo_available())'"]),
    (r"^Distributed package doesn't have XCCL built in",
     "backend='xccl' (Intel GPUs) needs a torch built with XPU support.",
     ["install the XPU build of torch (https://pytorch.org/docs/stable/notes/get_start_xpu.html) or use 'gloo'"]),
    (r"^Expected backend_options argument to be of type ProcessGroupNCCL\.Options|"
     r"^Expected ProcessGroupNCCL, got|^Expected ProcessGroupGloo, got",
     "pg_options / backend options of one backend were given to a group of another (NCCL options to a Gloo "
     "group or the reverse).",
     ["pass dist.ProcessGroupNCCL.Options() only with backend='nccl' (and Gloo's only with 'gloo'), or drop "
      "pg_options"]),
    (r"^monitored_barrier is only implemented for GLOO backend",
     "dist.monitored_barrier runs on Gloo only; it was called on an NCCL group.",
     ["make a Gloo group for it: g = dist.new_group(backend='gloo'); dist.monitored_barrier(group=g, "
      "timeout=datetime.timedelta(seconds=60)) (it names the rank that did not arrive)"]),
    (r"^ProcessGroupWrapper unsupported without GLOO backend",
     "TORCH_DISTRIBUTED_DEBUG=DETAIL wraps each group in ProcessGroupWrapper, which checks collectives through a "
     "Gloo group; this torch has no Gloo.",
     ["unset TORCH_DISTRIBUTED_DEBUG (or set INFO), or use a torch build with Gloo (official Linux wheels)"]),
    # ---- collectives: tensors and lists
    (r"^Invalid function argument\. Expected parameter `%s` (?:to be )?of type torch\.Tensor(?: but got %s instead)?\.",
     "The collective expects one torch.Tensor for that parameter and got something else (a Python number, a "
     "numpy array, a list).",
     ["wrap values in a tensor on the rank's device: t = torch.tensor(x, device=f'cuda:{local_rank}'); "
      "dist.all_reduce(t); for Python objects use all_gather_object / broadcast_object_list"]),
    (r"^Invalid function argument\. Expected parameter `%s` (?:to be )?of type List\[torch\.Tensor\]",
     "The collective (all_gather, gather, scatter, reduce_scatter, all_to_all) expects a LIST of tensors for "
     "that parameter - one per rank - and got a single tensor or a list holding non-tensors.",
     ["pass one preallocated tensor per rank: out = " + _ONE_PER_RANK + "; dist.all_gather(out, t) "
      "(or use all_gather_into_tensor with one tensor of world_size x the input)"]),
    (r"^Invalid function argument: output_tensor_lists should be a list",
     "all_gather_multigpu-style calls take a list of lists of tensors.",
     ["use dist.all_gather(list_of_world_size_tensors, t) (one GPU per process), not the multi-GPU variants"]),
    (r"^Invalid usage of tensors with different dtypes",
     "The tensors of one coalesced / list collective differ in dtype.",
     ["cast them to one dtype first (t.float() / t.to(torch.bfloat16)), or issue one collective per dtype"]),
    (r"^all_reduce does not support %s on complex tensors",
     "all_reduce of complex tensors supports SUM/AVG-style element-wise ops only; MAX/MIN/PRODUCT have no "
     "meaning on complex numbers.",
     ["reduce torch.view_as_real(t) instead, or use ReduceOp.SUM"]),
    (r"^Argument ``gather_list`` must be specified on destination rank|"
     r"^Argument ``gather_list`` must NOT be specified on non-destination",
     "dist.gather takes gather_list on the destination rank only (a list of world_size tensors) and None on "
     "every other rank.",
     ["gather_list = " + _ONE_PER_RANK + " if rank == dst else None; dist.gather(t, gather_list, dst=dst)"]),
    (r"^Argument ``scatter_list`` must be specified on source rank|"
     r"^Argument ``scatter_list`` must NOT be specified on non-source",
     "dist.scatter takes scatter_list on the source rank only (world_size tensors of the output's shape) and "
     "None on every other rank.",
     ["scatter_list = list(chunks) if rank == src else None; dist.scatter(out, scatter_list, src=src)"]),
    (r"^Must provide object_gather_list on dst rank|^source rank must provide non-None scatter_object_input_list|"
     r"^Expected argument scatter_object_output_list to be a list of size at least 1",
     "gather_object / scatter_object_list need their list on the root rank (world_size slots), and "
     "scatter_object_list's output list needs one slot on every rank.",
     ["gather_object(obj, [None] * world_size if rank == dst else None, dst=dst); "
      "scatter_object_list(out := [None], objs if rank == src else None, src=src)"]),
    (r"^Invalid function argument: device_ids type should be List\[int\]",
     "dist.barrier(device_ids=...) takes a list of GPU indices.",
     ["dist.barrier(device_ids=[local_rank])"]),
    (r"^Coalescing manager requires all collectives to be the same type",
     "Inside one _coalescing_manager block all collectives must be the same kind (all all_reduce, or all "
     "all_gather_into_tensor...).",
     ["split the block into one coalescing block per collective kind"]),
    (r"^Default group size only takes effect when CUDA is available|^Subgroups can only be created when CUDA is "
     r"available",
     "new_subgroups() without group_size uses the number of GPUs per node, which needs CUDA.",
     ["pass group_size= explicitly (e.g. new_subgroups(group_size=int(os.environ['LOCAL_WORLD_SIZE'])))"]),
    (r"^The arg 'group_size' \(%s\) must be positive|^The arg 'group_size' \(%s\) must not exceed the world size|"
     r"^The world size (?:\(%s\) )?must be divisible by 'group_size",
     "new_subgroups(group_size=...) cuts the world into equal groups: group_size must be between 1 and the world "
     "size and divide it.",
     ["pick a group_size that divides dist.get_world_size() (e.g. the ranks per node), or use "
      "new_subgroups_by_enumeration for uneven groups"]),
    (r"^split_ranks cannot be None|^the split group cannot be empty|^the split group's size should be "
     r"less or equal",
     "split_group(split_ranks=...) needs non-empty lists of ranks that exist in the parent group.",
     ["split_ranks=[[0, 1], [2, 3]]: every rank below the parent's size, no list empty"]),
    (r"^No device associated with the default pg, not safe to split",
     "split_group needs the default group bound to a device, which init_process_group(device_id=...) does.",
     ["init_process_group(backend='nccl', device_id=torch.device('cuda', local_rank)) before split_group"]),
    (r"^Mismatched bound device between new pg and the default pg",
     "new_group(device_id=...) names a different GPU than the one the default group was bound to.",
     ["use the same device_id for every group of a rank (torch.device('cuda', local_rank))"]),
]

SITE_FIX += [
    # ---- DDP (torch/nn/parallel/distributed.py, DistributedDataParallel.__init__)
    (r"^DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient",
     "Every parameter of the module handed to DDP has requires_grad=False (the model was frozen, or loaded for "
     "evaluation), so there is nothing for DDP to synchronise.",
     ["unfreeze what should train before wrapping (p.requires_grad_(True) for the trainable part), or wrap only "
      "the trainable submodule in DDP",
      "for inference or a frozen model do not wrap it in DDP at all (each rank runs the model as it is)"]),
    (r"^DistributedDataParallel device_ids and output_device arguments only work with",
     "device_ids was given for a module whose parameters are not on one GPU: the model is still on the CPU "
     "(DDP was constructed before model.to(device)) or spans several devices.",
     ["move the model first: model.to(local_rank); model = DDP(model, device_ids=[local_rank]) "
      "(after torch.cuda.set_device(local_rank))",
      "for a CPU model (Gloo) or a model split over several GPUs pass device_ids=None and output_device=None"]),
    (r"^device_ids can only be None or contain a single element",
     "DDP runs one process per GPU: device_ids holds exactly one GPU, this rank's.",
     ["DDP(model, device_ids=[local_rank]) and start one process per GPU with torchrun --nproc-per-node=<GPUs> "
      "(single-process multi-GPU DDP is gone; DataParallel is the single-process API)"]),
    (r"^DistributedDataParallel's input module must be on the same type of devices",
     "Part of the module is on the CPU and part on a GPU when DDP wraps it.",
     ["move the whole module to one device before wrapping (model.to(local_rank)); register tensors that must "
      "follow the model as buffers (register_buffer) instead of plain attributes"]),
    (r"^Modules with uninitialized parameters can't be used with `DistributedDataParallel`",
     "The model has lazy modules (nn.LazyLinear, LazyConv...) whose parameters do not exist before the first "
     "forward.",
     ["run one dummy forward with a real-shaped batch before DDP(model, ...), or replace Lazy* modules with sized ones"]),
    (r"^DDP Pickling/Unpickling are only supported when using DDP with the default process group",
     "The DDP wrapper itself was pickled (torch.save(ddp_model), copy.deepcopy, or passed to a DataLoader "
     "worker) while it uses a non-default process group.",
     ["save the inner model's weights: torch.save(ddp_model.module.state_dict(), path) and load them into a bare "
      "model (no 'module.' prefix); never pickle the DDP object"]),
    (r"^SyncBatchNorm layers only work with GPU modules",
     "nn.SyncBatchNorm (convert_sync_batchnorm) synchronises through a CUDA backend; the module is on the CPU.",
     ["model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(local_rank) before DDP(..., "
      "device_ids=[local_rank]); for CPU training keep plain BatchNorm"]),
    (r"^Communication hook must be callable|^hook must be callable, got|^Communication hook: bucket annotation|"
     r"^Communication hook: return annotation",
     "register_comm_hook needs a function hook(state, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor].",
     ["pass a built-in hook (from torch.distributed.algorithms.ddp_comm_hooks import default_hooks; "
      "model.register_comm_hook(None, default_hooks.fp16_compress_hook)) or fix the custom hook's signature"]),
    (r"^register_(?:builtin_)?comm_hook or register_(?:builtin_)?comm_hook can only be called once",
     "DDP takes one communication hook; a second register_comm_hook (or a built-in hook after a custom one) was "
     "called on the same model (often a library registering one after the script did).",
     ["register exactly one hook per DDP model (chain the logic inside that hook), before the first backward"]),
    (r"^BF16 all reduce communication hook required",
     "bf16_compress_hook needs CUDA 11+ with NCCL 2.10+ (NCCL's bfloat16 type).",
     ["use fp16_compress_hook, or a torch whose bundled NCCL is 2.10 or newer "
      "(python -c 'import torch; print(torch.cuda.nccl.version())')"]),
    (r"^Cannot specify both process_group and device_mesh arguments|^Only 1D device mesh is supported, but got",
     "DDP takes either process_group= or a 1-D device_mesh=.",
     ["pass one: DDP(model, device_mesh=mesh['dp']) (a 1-D slice) or DDP(model, process_group=g)"]),
]

SITE_FIX += [
    # ---- ProcessGroupNCCL.cpp: the tensor checks
    (r"^Tensors must be CUDA and dense",
     "A tensor given to an NCCL collective is on the CPU (or sparse): NCCL moves GPU memory only.",
     ["move it to this rank's GPU first: t = t.cuda(local_rank) (after torch.cuda.set_device(local_rank)); "
      "results of .item()/.cpu()/numpy are CPU tensors",
      "for CPU tensors use a Gloo group: init_process_group(backend='cpu:gloo,cuda:nccl') or "
      "dist.new_group(backend='gloo')"]),
    (r"^Tensors must be contiguous",
     "A tensor given to the collective is a non-contiguous view (a transpose, permute, slice with a step, "
     "expand): NCCL sends one contiguous buffer.",
     ["call .contiguous() on the tensor before the collective and copy the result back if the view must be "
      "updated (buf = t.contiguous(); dist.all_reduce(buf); t.copy_(buf))"]),
    (r"^Tensors must be non-overlapping and dense",
     "The tensor's memory overlaps itself (expand(), as_strided with stride 0) or has gaps.",
     ["pass t.contiguous() (or t.clone()) instead of the expanded view"]),
    (r"^Tensors must be on distinct GPU devices|^Tensor list mustn't be larger than the number of available GPUs",
     "A list of tensors was given as the old one-process-many-GPUs form: several tensors for one process.",
     ["give each collective one tensor on this rank's GPU and start one process per GPU (torchrun "
      "--nproc-per-node=<GPUs>)"]),
    (r"^Tensors must have identical (?:type|size|strides)",
     "The tensors of one multi-tensor call differ in dtype, size or strides.",
     ["make them one dtype and shape (.to(dtype), .contiguous()) or issue one collective per tensor"]),
    (r"^Expected list of tensors on the same device|^Tensors must be on the same device|"
     r"^Corresponding input/output tensors to scatter/gather must all reside",
     "The input and output tensors of the collective are on different devices (one on cuda:0 and one on "
     "cuda:1, or one on the CPU).",
     ["allocate the outputs like the input: torch.empty_like(t) / torch.zeros(..., device=t.device), all on this "
      "rank's GPU (torch.cuda.set_device(local_rank) first)"]),
    (r"^Tensor list operands to scatter/gather must have the same length|"
     r"^Tensor list input to scatter/gather must match number of collective participants",
     "The output (all_gather, gather) or input (scatter, reduce_scatter) list does not have one tensor per rank "
     "of the group.",
     ["make the list world_size long: out = " + _ONE_PER_RANK + "; the group's size, not the node's GPU count"]),
    (r"^All tensor operands to scatter/gather must have the same number of elements",
     "The tensors of the list differ in size from the input: all_gather / gather / scatter move equal-sized "
     "tensors (a rank with a different batch size, a last uneven batch).",
     ["give every rank the same shape: pad to the maximum length (all_reduce the lengths with MAX first) and trim "
      "after gathering, or use all_gather_object for variable-sized data; DistributedSampler(drop_last=True) for "
      "equal batches"]),
    (r"^output tensor size must be equal to world_size times input tensor size",
     "all_gather_into_tensor's output must hold world_size copies of the input: its numel is world_size x "
     "input.numel(); here it does not (sized for another world size, or for a different input).",
     ["out = torch.empty((world_size * t.shape[0], *t.shape[1:]), dtype=t.dtype, device=t.device) (or "
      "(world_size, *t.shape)) with world_size = dist.get_world_size(group); then "
      "dist.all_gather_into_tensor(out, t, group=group)"]),
    (r"^input tensor must be the same size as output size times world size",
     "reduce_scatter_tensor's input must be world_size x the output: input.numel() == world_size * "
     "output.numel(); here it is not.",
     ["out = torch.empty(t.shape[0] // world_size, *t.shape[1:], dtype=t.dtype, device=t.device) with "
      "world_size = dist.get_world_size(group); pad the input's first dimension to a multiple of world_size"]),
    (r"^output tensor must have the same type as input tensor|^input tensor must be the same type as the output tensor",
     "all_gather_into_tensor / reduce_scatter_tensor got an output of another dtype than the input.",
     ["allocate the output with dtype=t.dtype (torch.empty(..., dtype=t.dtype, device=t.device))"]),
    (r"^ProcessGroupNCCL::(?:gather|scatter): %s",
     "dist.gather / dist.scatter on an NCCL group refused its arguments; the rest of the line says which: an "
     "invalid root rank (dst/src not below the world size), the root's list not world_size long, or a list "
     "given on a non-root rank.",
     ["pass dst=/src= below dist.get_world_size(); on the root rank a list of world_size tensors of the "
      "input's shape, on the others None"]),
    (r"^Input tensor data type is not supported for NCCL process group",
     "NCCL has no type for this dtype (complex, uint16/32/64, some float8 types, or bfloat16 on an NCCL older "
     "than 2.10).",
     ["cast before the collective (t.float(), t.to(torch.int64), torch.view_as_real(t) for complex) and back after"]),
    (r"^Cannot use ReduceOp\.AVG with boolean inputs",
     "ReduceOp.AVG on a bool tensor has no meaning.",
     ["reduce t.float() with AVG, or use ReduceOp.MAX / MIN for a logical or / and"]),
    (r"^Cannot use ReduceOp\.B(?:AND|OR|XOR) with NCCL",
     "NCCL has no bitwise reductions.",
     ["use ReduceOp.MAX (or) / MIN (and) on 0/1 integer tensors, or run the bitwise op on a Gloo group"]),
    (r"^AVG requires NCCL 2\.10\+|^PreMulSum requires NCCL",
     "ReduceOp.AVG / PREMUL_SUM need NCCL 2.10 / 2.11; this torch's NCCL is older.",
     ["use ReduceOp.SUM and divide by the world size, or install a torch that bundles a newer NCCL"]),
    (r"^ProcessGroupNCCL is only supported with GPUs, no GPUs found",
     "backend='nccl' was initialised in a process that sees no GPU: CUDA_VISIBLE_DEVICES is empty or wrong, "
     "the job has no GPU allocated (Slurm without --gpus), or torch is a CPU build.",
     ["check in the job: nvidia-smi -L; python -c 'import torch; print(torch.cuda.device_count())'; echo "
      "$CUDA_VISIBLE_DEVICES", "request GPUs (srun/sbatch --gpus-per-node=G) or use backend='gloo' on CPU nodes"]),
]

SITE_FIX += [
    # ---- ProcessGroupGloo.cpp: what follows "ProcessGroupGloo::<op>: " (its invalidArgument)
    (r"^invalid output tensor list at index|^invalid output size: \(expected length|"
     r"^invalid input tensor list size, must be world size|^output lists should be equal to world size",
     "The list given to the Gloo collective does not hold one tensor per rank: all_gather / gather need "
     "world_size output tensors (the message prints the expected length and the one given).",
     ["out = " + _ONE_PER_RANK + "; dist.all_gather(out, t) - world_size from the group used, not a constant"]),
    (r"^invalid size of output tensor at index|^input and output tensors must have the same size|"
     r"^invalid tensor size at index %s \(expected|^Check failed: outputShape\[i\] == inputShape\[i\]|"
     r"^Check failed: outputs\[0\]\.sizes\(\)\.vec\(\) == inputs\[0\]\[i\]\.sizes",
     "One tensor of the list has another shape than the input: Gloo gathers equal-sized tensors.",
     ["allocate every slot with the input's shape (torch.empty_like(t)); for per-rank sizes pad to the maximum "
      "or use all_gather_object"]),
    (r"^Check failed: outputShape\[0\] \* worldSize == inputShape\[0\]",
     "reduce_scatter_tensor on Gloo: the input's first dimension must be world_size x the output's.",
     ["out = torch.empty(t.shape[0] // world_size, *t.shape[1:], dtype=t.dtype); pad the input to a multiple "
      "of world_size"]),
    (r"^invalid root rank: %s|^invalid root tensor: %s",
     "The root of broadcast / reduce / gather / scatter (src= or dst=) is not a rank of the group: c10d's "
     "assertRootRank wants 0 <= root < the group's size, and the number after the colon is the root asked for "
     "(a rank count from the node's GPUs, or a global rank used with a subgroup's size).",
     ["pass src=/dst= between 0 and dist.get_world_size(group) - 1 (the root is usually 0); with a subgroup give "
      "the global rank of a member (torch converts it) or group_src=/group_dst="]),
    (r"^invalid tensor type at index %s \(expected",
     "A tensor of the list has another dtype (or device type) than the input.",
     ["allocate every slot like the input: torch.empty_like(t) (same dtype and device)"]),
    (r"^only supports dense tensors|^invalid tensor layout at index|^ProcessGroupGloo::allreduce: unsupported layout",
     "The collective got a sparse (or other non-strided) tensor where it moves dense ones.",
     ["convert with t.to_dense() before the collective (all_reduce of sparse gradients: ReduceOp.SUM on Gloo only)"]),
    (r"^requires empty output on non-root|^requires empty input on non-root",
     "gather (scatter) takes its tensor list on the root rank only; a non-root rank passed one.",
     ["gather_list = " + _ONE_PER_RANK + " if rank == dst else None (scatter_list likewise on src only)"]),
    (r"^requires a single-element (?:input|output) (?:tensor )?list",
     "The Gloo collective takes one tensor per process (one GPU or CPU tensor), here it got a list of several or "
     "none.",
     ["pass one tensor (dist.broadcast(t, src)); lists only where the API asks for one per rank"]),
    (r"^requires non-empty (?:input )?tensor list",
     "The collective got an empty tensor list.",
     ["pass the tensors (a list of world_size tensors for all_gather / scatter)"]),
    (r"^tensors must all have the same type|^input and output tensors must have the same type|"
     r"^Check failed: outputs?(?:Tensors)?\[(?:0|i)\]\.dtype\(\) == inputs?(?:Tensors)?\[",
     "The input and output tensors of the Gloo collective differ in dtype.",
     ["allocate the outputs with dtype=t.dtype (torch.empty_like(t))"]),
    (r"^tensors must all be on the same device|^input and output tensors must be on the same device|"
     r"^output tensor and input tensor must be on the same type of device|"
     r"^tensors in the nested tensor vectors need to be on the same device",
     "The tensors of the Gloo collective are on different devices (some on the CPU and some on a GPU).",
     ["put them on one device (t.cpu() for Gloo), or use backend='cpu:gloo,cuda:nccl' so GPU tensors go "
      "through NCCL"]),
    (r"^unsupported reduction operation \(allreduce of sparse tensors only works with ReduceOp\.SUM\)",
     "all_reduce of a sparse tensor on Gloo supports SUM only.",
     ["use ReduceOp.SUM, or convert with t.to_dense() first"]),
    (r"^Cannot use ReduceOp\.PREMUL_SUM with Gloo|^Cannot use ReduceOp\.B(?:AND|OR|XOR) with non-integral dtype",
     "The reduction op does not exist for this backend / dtype (PREMUL_SUM is NCCL's; bitwise ops need integers).",
     ["use SUM (and scale after), or cast to an integer dtype for BAND / BOR / BXOR"]),
    (r"^Tensor's dim 0 does not divide equally across group size|^Number of tensor splits not equal to group size|"
     r"^Split sizes doesn't match total dim 0 size",
     "all_to_all_single's split sizes do not fit: without splits the first dimension must divide by the group "
     "size; with them there must be one split per rank and they must sum to the first dimension.",
     ["pass input_split_sizes / output_split_sizes with world_size entries that sum to t.shape[0] (exchange the "
      "sizes first with an all_to_all_single of the counts), or pad dim 0 to a multiple of world_size"]),
    (r"^input tensor has to be contiguous",
     "A tensor given to the Gloo collective is a non-contiguous view.",
     ["pass t.contiguous() (copy the result back into the view if needed)"]),
    (r"^GlooDeviceFactory::makeTCPDevice\(\): interface or hostname can't be empty",
     "Gloo was asked to bind to an empty interface or host name: GLOO_SOCKET_IFNAME is set but empty (a variable "
     "that expanded to nothing, e.g. GLOO_SOCKET_IFNAME=$IFACE with IFACE unset).",
     ["set it to an interface this node has (ip -br addr; GLOO_SOCKET_IFNAME=eth0, several comma-separated), or "
      "unset GLOO_SOCKET_IFNAME so Gloo uses the hostname's address"]),
    (r"^Invalid value for environment variable:",
     "A variable c10d reads as a flag (parseEnvVarFlag in c10d/Utils.hpp: TORCH_NCCL_* / TORCH_DISTRIBUTED_* "
     "switches such as TORCH_NCCL_ASYNC_ERROR_HANDLING, TORCH_NCCL_BLOCKING_WAIT) holds something other than the "
     "integer 0 or 1 ('true', 'yes', an empty string); its name follows the colon.",
     ["export <NAME>=1 (or 0), or unset it"]),
    (r"^ProcessGroupWrapper: Monitored Barrier encountered error running collective",
     "TORCH_DISTRIBUTED_DEBUG=DETAIL checks every collective with a Gloo monitored barrier first: some rank did "
     "not reach this collective in time (it crashed, or it is in another collective or code path); the rest "
     "of the message names the rank(s).",
     ["look at the named rank's own log for its error or where it waits; make every rank run the same "
      "collectives in the same order (no collective inside `if rank == 0:`)"]),
]

SITE_FIX += [
    # ---- torchrun (run.py), the launcher API, rendezvous handlers and their configuration
    (r'^nnodes=%s is not in "MIN:MAX" format',
     "torchrun --nnodes takes a number or a MIN:MAX range (elastic).",
     ["--nnodes=2 (fixed) or --nnodes=1:4 (elastic, with --rdzv-backend=c10d)"]),
    (r"^min_nodes must be > 0 and <= max_nodes|^The minimum number of (?:rendezvous )?nodes \(%s\) must be greater "
     r"than zero|^The maximum number of (?:rendezvous )?nodes \(%s\) must be greater than or equal",
     "The --nnodes MIN:MAX range is empty or starts at 0.",
     ["--nnodes=MIN:MAX with 1 <= MIN <= MAX (e.g. --nnodes=2:4)"]),
    (r"^max_restarts must be >= 0",
     "torchrun --max-restarts is negative.",
     ["--max-restarts=0 (no restart) or a positive count"]),
    (r"^Unsupported nproc_per_node value",
     "torchrun --nproc-per-node takes a number or one of gpu, cpu, xpu, auto.",
     ["--nproc-per-node=8 (or gpu: one process per visible GPU)"]),
    (r"^Cuda is not available\.$",
     "torchrun --nproc-per-node=gpu was used on a node where torch sees no GPU.",
     ["check the node: nvidia-smi -L; python -c 'import torch; print(torch.cuda.is_available())'; request GPUs "
      "from the scheduler, or give a number / cpu"]),
    (r"^Xpu is not available\.$|^%s is not available\.$",
     "torchrun --nproc-per-node=<device> names a device type this node's torch does not see.",
     ["give a number of processes, or the device type the node has (gpu / cpu)"]),
    (r"^When using the '--no-python' flag, you must also set the '--use-env' flag|"
     r"^Don't use both the '--no-python' flag and the '--module' flag",
     "The launcher's flags conflict: --no-python runs the command as is, so it cannot be a module (-m) and "
     "(torch.distributed.launch) must get its rank from the environment.",
     ["drop --module with --no-python (or drop --no-python), and with torch.distributed.launch add --use-env "
      "(better: use torchrun, which always sets the environment)"]),
    (r"^--local_ranks_filter must be a comma-separated list of integers|^ranks set cannot be empty",
     "torchrun --local-ranks-filter takes local rank numbers.",
     ["--local-ranks-filter=0 (or 0,1,2) together with --tee / --redirects"]),
    (r"^Endpoint is missing in endpoint\. Try to add --master-addr|^port is missing in endpoint: %s\. Try to specify",
     "The static rendezvous (torchrun without --rdzv-backend, or --rdzv-backend=static) needs the master's "
     "address and port.",
     ["torchrun --nnodes N --node-rank R --master-addr <node 0's address> --master-port 29500 ... "
      "(or --rdzv-backend=c10d --rdzv-endpoint <host>:<port>)"]),
    (r"^rank is absent in RendezvousParameters|^endpoint is absent in RendezvousParameters|"
     r"^Port is absent in endpoint: %s\. Try launching with --master-port",
     "The static TCP rendezvous needs each node's --node-rank and node 0's --master-addr/--master-port.",
     ["torchrun --nnodes N --node-rank <0..N-1, distinct per node> --master-addr <node 0> --master-port 29500 "
      "...; under Slurm --node-rank $SLURM_NODEID"]),
    (r"^The rendezvous configuration string must be in format|^The rendezvous configuration option '%s' must have a "
     r"value|^The rendezvous configuration option '%s' does not represent a valid",
     "torchrun --rdzv-conf is a comma-separated key=value list and one item is malformed.",
     ["--rdzv-conf=join_timeout=600,read_timeout=120 (no spaces, every key with a value of the right type)"]),
    (r"^The port number of the rendezvous endpoint '%s' must be an integer|"
     r"^The hostname of the rendezvous endpoint '%s' must be",
     "torchrun --rdzv-endpoint is not host:port (a port out of range, or a hostname with invalid characters, "
     "an unexpanded variable, a URL).",
     ["--rdzv-endpoint=$MASTER_ADDR:29500 with MASTER_ADDR a resolvable hostname or an IP (no scheme, no path); "
      "echo it in the job script to see what the shell expanded"]),
    (r"^The %s timeout \(%s\) must be positive",
     "A rendezvous timeout in --rdzv-conf is zero or negative.",
     ["--rdzv-conf=join_timeout=<seconds > 0>,last_call_timeout=<seconds > 0>"]),
    (r"^The rendezvous backend '%s' is not registered|^Invalid store type given\. Currently only supports file and tcp",
     "--rdzv-backend names a backend torchrun does not have (typo, or etcd without its package).",
     ["--rdzv-backend=c10d (built in; no etcd needed) or static; etcd needs python-etcd installed"]),
    (r"^No rendezvous handler for %s://",
     "init_process_group's init_method has a scheme torch does not know.",
     ["init_method='env://' (under torchrun), 'tcp://<host>:<port>' (with rank= and world_size=) or "
      "'file:///shared/path'"]),
    (r"^rank parameter missing|^world size parameter missing|^port number missing|^hostname cannot be None|"
     r"^port must have value from 0 to 65535",
     "init_method='tcp://...' or 'file://...' needs the host, a port 0-65535, and rank= / world_size= (as "
     "arguments or in the URL's query).",
     ["dist.init_process_group('nccl', init_method='tcp://10.0.0.1:23456', rank=rank, world_size=world_size)"]),
    (r"^Unable to perform re-?rendezvous using (?:tcp|env|file)://",
     "torchrun restarted the workers (elastic restart) and the script's init_method cannot rendezvous twice.",
     ["under torchrun use init_method='env://' (the default) and let torchrun's --rdzv-backend=c10d handle "
      "restarts, or run with --max-restarts=0"]),
    (r"^server_port must be specified when world_size > 1",
     "create_c10d_store was asked for a multi-rank store without a port.",
     ["pass --master-port (torchrun) / MASTER_PORT, or server_port="]),
    (r"^local_rank %s exceeds available GPUs in CUDA_VISIBLE_DEVICES",
     "torchrun started more processes on this node than CUDA_VISIBLE_DEVICES lists GPUs.",
     ["--nproc-per-node must not exceed the number of GPUs in CUDA_VISIBLE_DEVICES (or the job's --gpus-per-node)"]),
    (r"^Tensor with dimensions: %s does not have first dimension divisible by world_size|"
     r"^input dimension 0 \(%s must be a multiple of group_size|"
     r"^The (?:shard dimension of the shard_dim_alltoall|first dimension of the reduce_scatter) input \($",
     "The functional collective splits the first dimension into world_size equal parts; it does not divide.",
     ["pad the first dimension to a multiple of the group size (torch.nn.functional.pad) and trim after"]),
    # ---- DeviceMesh (torch/distributed/device_mesh.py, init_device_mesh)
    (r"^Mesh should not be bigger than default world size",
     "init_device_mesh's mesh_shape multiplies to more ranks than the job started.",
     ["make prod(mesh_shape) equal dist.get_world_size() (e.g. (nnodes, nproc_per_node)); start the ranks the "
      "mesh needs with torchrun --nnodes/--nproc-per-node"]),
    (r"^DeviceMesh only support homogeneous hardware",
     "init_device_mesh found a different number of ranks than devices on a node: --nproc-per-node does not "
     "equal the GPUs every node has, or nodes differ.",
     ["run one rank per GPU on every node (--nproc-per-node = GPUs per node) and the same count on all nodes"]),
    (r"^mesh_shape and mesh_dim_names should have same length|^Each mesh_dim_name must be unique",
     "init_device_mesh needs one unique name per mesh dimension.",
     ["init_device_mesh('cuda', (2, 4), mesh_dim_names=('dp', 'tp'))"]),
    (r"^Mesh dimension '%s' does not exist|^Invalid mesh_dim_names %s specified|^No `mesh_dim_names` found|"
     r"^Cannot slice a DeviceMesh without mesh_dim_names",
     "A DeviceMesh was sliced (mesh['tp']) by a name it does not have, or it was built without mesh_dim_names.",
     ["build it with mesh_dim_names=(...) and slice with one of those names, in the mesh's order"]),
    (r"^Device type with index is not supported",
     "init_device_mesh takes a device type ('cuda'), not a device with an index ('cuda:0').",
     ["init_device_mesh('cuda', mesh_shape) (each rank's GPU comes from torch.cuda.set_device(local_rank))"]),
]

# FSDP, torch.distributed.checkpoint (DCP) and DTensor / tensor parallelism (PY_EXTRA): the checks users meet.
# Sources: torch/distributed/fsdp/_flat_param.py (FlatParamHandle.flatten_tensors_into_flat_param's checks),
# _init_utils.py (_get_compute_device, _sync_module_params_and_buffers), _runtime_utils.py, _state_dict_utils.py,
# fully_sharded_data_parallel.py and the FSDP docs, https://pytorch.org/docs/stable/fsdp.html ("use_orig_params
# ... allows non-uniform requires_grad during init, which means support for interleaved frozen and non-frozen
# parameters"; "device_id ... the CUDA device on which FSDP initialization takes place"; "sync_module_states");
# fsdp/_fully_shard/ and https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html (meta-device init:
# to_empty then init); checkpoint/default_planner.py, state_dict.py, filesystem.py and
# https://pytorch.org/docs/stable/distributed.checkpoint.html; tensor/_dispatch.py, _api.py, parallel/style.py
# and https://pytorch.org/docs/stable/distributed.tensor.html, .../distributed.tensor.parallel.html
SITE_FIX += [
    (r"^Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`|"
     r"^`FlatParameter` requires uniform `requires_grad`",
     "FSDP (FSDP1) flattens each wrapped unit's parameters into one FlatParameter, which needs one requires_grad "
     "for all of them: this unit mixes frozen and trainable parameters (LoRA / PEFT adapters, a frozen backbone "
     "or embedding).",
     ["FSDP(model, use_orig_params=True, ...) (accelerate: fsdp_use_orig_params: true in the FSDP config; "
      "Trainer: --fsdp_config with use_orig_params true)",
      "or wrap so each unit is all frozen or all trainable (an auto_wrap_policy that wraps the trainable modules "
      "on their own, e.g. peft's fsdp_auto_wrap_policy)"]),
    (r"^Must flatten tensors with uniform dtype but got|^`FlatParameter` requires uniform dtype but got",
     "The parameters FSDP flattens into one FlatParameter differ in dtype (e.g. bfloat16 weights beside a float32 "
     "norm, or a model cast in parts).",
     ["give the whole model one dtype before wrapping (model.to(torch.float32) or model.to(torch.bfloat16)) and "
      "let FSDP's MixedPrecision(param_dtype=torch.bfloat16, ...) do the low-precision compute",
      "or wrap the modules of the other dtype as their own FSDP units"]),
    (r"^Must flatten tensors on the same device but got both|^FSDP only supports single device modules but got|"
     r"^To support a module with both CPU and GPU params, please pass in device_id|"
     r"^FSDP does not support modules with different device types",
     "The module handed to FSDP has parameters on more than one device (part on the CPU or meta, part on a GPU; "
     "or a model loaded with device_map='auto' spread over GPUs).",
     ["load the model on one device (no device_map='auto' under FSDP) and pass device_id=torch.cuda.current_device() "
      "after torch.cuda.set_device(local_rank): FSDP moves each unit to that GPU"]),
    (r"^Cannot flatten integer dtype tensors|^Integer parameters are unsupported",
     "FSDP shards floating-point parameters only; the model holds integer parameters (quantized weights, e.g. "
     "bitsandbytes 8-bit/4-bit stored as uint8).",
     ["keep quantized weights out of FSDP's parameters (ignored_states=...), or for QLoRA store them in a float "
      "dtype (bnb_4bit_quant_storage=torch.bfloat16) as the PEFT/bitsandbytes FSDP guide does"]),
    (r"^Inconsistent compute device and `device_id` on rank",
     "FSDP's device_id names another GPU than the one the module's parameters are on (or the current device), "
     "e.g. device_id=rank on a second node, or no torch.cuda.set_device.",
     ["torch.cuda.set_device(local_rank) first, then FSDP(model, device_id=local_rank) with LOCAL_RANK (not the "
      "global rank)"]),
    (r"^The module has CPU parameters (?:or buffers )?when `sync_module_states=True`",
     "sync_module_states=True broadcasts rank 0's weights over NCCL, which needs them on the GPU; the module is "
     "still on the CPU.",
     ["pass device_id=torch.cuda.current_device() (FSDP moves the module first), or model.to(local_rank) before "
      "wrapping"]),
    (r"^FSDP needs a non-CPU accelerator device|^FSDP does not support CPU only execution",
     "FSDP was initialised in a process that sees no GPU (CUDA_VISIBLE_DEVICES empty, no GPU in the job, a CPU "
     "build of torch).",
     ["check in the job: python -c 'import torch; print(torch.cuda.is_available(), torch.cuda.device_count())'; "
      "request GPUs from the scheduler or install a CUDA build"]),
    (r"^An FSDP-managed module unexpectedly has parameters on %s\. Make sure to move the module to|"
     r"^An FSDP-managed module with parameter CPU offloading enabled has parameters on",
     "The module was moved after FSDP wrapped it (model.cuda() / .to() / .cpu() after FSDP(...)), so its "
     "parameters are no longer where FSDP put them.",
     ["move the model before wrapping (or pass device_id) and never call .to()/.cuda() on the FSDP model; with "
      "CPUOffload(offload_params=True) leave it on the CPU"]),
    (r"^(?:FSDP|fully_shard) doesn't support s(?:c|)alar parameters",  # 2.5.1 printed "salar"
     "A 0-dimension parameter (a learnable scalar: temperature, scale) cannot be sharded.",
     ["make it a 1-D parameter: nn.Parameter(torch.tensor([x])) instead of torch.tensor(x), or keep it outside "
      "FSDP (ignored_states=[...])"]),
    (r"^`no_sync\(\)` on inner FSDP instances is not supported|^`clip_grad_norm_\(\)` should only be called on the "
     r"root FSDP instance|^register_comm_hook can only be called on a root instance|"
     r"^reset_iter_state must be called on the root FSDP module",
     "The call was made on an inner (nested) FSDP unit; FSDP applies it to the whole model from the root.",
     ["call it on the outermost FSDP module (the one wrapping the whole model): model.clip_grad_norm_(max_norm), "
      "with model.no_sync(): ..."]),
    (r"^All FSDP modules should have the same state_dict_type|^All FSDP modules must have the same type of|"
     r"^All FSDP modules must have the same state dict settings",
     "The FSDP units of the model were given different state-dict settings.",
     ["set them once from the root: with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, "
      "FullStateDictConfig(offload_to_cpu=True, rank0_only=True)): sd = model.state_dict()"]),
    (r"^``(?:local|sharded)_state_dict`` can only be used when parameters are flatten and sharded|"
     r"^load_sharded_state_dict can only be called when parameters are flattened and sharded",
     "SHARDED/LOCAL_STATE_DICT needs sharded parameters; this model runs ShardingStrategy.NO_SHARD (or one rank, "
     "where FSDP does not shard).",
     ["use StateDictType.FULL_STATE_DICT for NO_SHARD / single-GPU runs, or torch.distributed.checkpoint.state_dict."
      "get_model_state_dict(model) which handles every strategy"]),
    (r"^Found state_dict_type LOCAL_STATE_DICT\. DeviceMesh is not compatible",
     "LOCAL_STATE_DICT cannot be used with FSDP built from a DeviceMesh.",
     ["use StateDictType.SHARDED_STATE_DICT (DTensor state dict) as the message says"]),
    (r"^FSDP does not support gradients of gradients",
     "A backward with create_graph=True (gradient penalty, higher-order gradients) ran through FSDP.",
     ["compute the penalty outside the FSDP model, or use DDP for that model"]),
    (r"^FSDP optimizer in backward only supported with use_orig_params=True",
     "_apply_optimizer_in_backward with FSDP needs use_orig_params=True.",
     ["FSDP(model, use_orig_params=True, ...)"]),
    (r"^FSDP parameters should be materialized from meta device before training",
     "The model was built on the meta device (no storage) and fully_shard's parameters were never materialized.",
     ["after fully_shard: model.to_empty(device='cuda') then initialise (model.reset_parameters() / init_weights) or "
      "load the checkpoint into it (set_model_state_dict), before the first forward"]),
    (r"^FSDP parameters should be materialized on CPU when enabling CPU offloading",
     "With CPUOffloadPolicy the sharded parameters must live on the CPU; they were materialized on a GPU.",
     ["model.to_empty(device='cpu') (or load a CPU state dict) when offload_policy=CPUOffloadPolicy()"]),
    (r"^Parameter '%s' is shared with a parameter already managed by another FSDP group",
     "A tied parameter (shared input/output embedding) belongs to two fully_shard groups.",
     ["shard the modules that share it together: fully_shard([model.embed, model.lm_head]) (or call fully_shard "
      "on their common parent)"]),
    (r"^%s does not support containers that do not implement forward",
     "fully_shard was applied to nn.ModuleList / ModuleDict, which has no forward for FSDP to hook.",
     ["call fully_shard on each block (for blk in model.layers: fully_shard(blk)) and then on the model"]),
    (r"^FSDP does not support uneven sharding on dim",
     "fully_shard with a shard_placement_fn asked to shard a dimension that does not divide by the mesh size.",
     ["shard on dim 0 (the default) or a dimension divisible by the data-parallel size"]),
    (r"^FSDP does not support deepcopy",
     "An FSDP2 module was deep-copied (copy.deepcopy(model), an EMA copy made after sharding).",
     ["copy before fully_shard, or copy weights through the state dict (get_model_state_dict / set_model_state_dict)"]),
    (r"^fully_shard expects a 1D or 2D DeviceMesh|^Please init the 2D mesh for HSDP with mesh_dim_names",
     "fully_shard takes a 1-D mesh (FSDP) or a 2-D (replicate, shard) mesh with names (HSDP).",
     ["init_device_mesh('cuda', (nnodes, gpus_per_node), mesh_dim_names=('replicate', 'shard')) and pass "
      "mesh=that (or mesh['dp'] of a larger mesh)"]),
    # ---- torch.distributed.checkpoint
    (r"^Missing key in checkpoint state_dict: %s",
     "DCP's load found {%1|a key} of the model's state dict that the checkpoint lacks: another model or config, or the "
     "keys differ by a prefix ('module.' of DDP, '_orig_mod.' of torch.compile, '_fsdp_wrapped_module.').",
     ["build the state dict with torch.distributed.checkpoint.state_dict.get_model_state_dict(model) on save and "
      "load (it strips the wrapper prefixes), and load into the same model/config",
      "to load a checkpoint that covers only part of the model on purpose: "
      "dcp.load(sd, planner=DefaultLoadPlanner(allow_partial_load=True))"]),
    (r"^Size mismatch between saved %s and current: %s for %s",
     "A tensor of the model has another shape than in the checkpoint (vocab size, hidden size, number of heads "
     "changed, or a different tensor-parallel layout).",
     ["load with the configuration the checkpoint was saved with; resize what changed (e.g. embeddings) after "
      "loading, not before"]),
    (r"^Missing optimizer state for parameter '%s' in checkpoint",
     "The checkpoint has no optimizer state for a trainable parameter (saved without the optimizer, or before the "
     "parameter was unfrozen).",
     ["set_optimizer_state_dict(..., options=StateDictOptions(strict=False)) to start those from scratch, or save "
      "the optimizer with the model"]),
    (r"^Checkpoint already exists and self\.overwrite=",
     "FileSystemWriter refuses to write into a checkpoint directory that already holds one.",
     ["save to a new directory per step, or FileSystemWriter(path, overwrite=True)"]),
    (r"^A CPU backend must be enabled for async save",
     "dcp.async_save gathers its plan on the CPU and needs a Gloo backend beside NCCL.",
     ["init_process_group(backend='cpu:gloo,cuda:nccl') (or pass a Gloo group as process_group to async_save)"]),
    (r"^Key\(s\) present in other ranks but not this one",
     "The ranks' state dicts have different keys (a model built differently per rank: rank-dependent modules, "
     "a different config file).",
     ["build the same model on every rank; compare sorted(model.state_dict()) across ranks"]),
    (r"^full_state_dict must be True when broadcast_from_rank0 is True",
     "StateDictOptions(broadcast_from_rank0=True) loads a full state dict from rank 0.",
     ["StateDictOptions(full_state_dict=True, broadcast_from_rank0=True)"]),
    (r"^The option indicates that model state_dict is required to save or load, but model state_dict is empty",
     "get/set_model_state_dict found an empty state dict on this rank (a model with no parameters here, or the "
     "wrong object passed).",
     ["pass the model (the FSDP/DDP-wrapped module) itself, and check the state dict loaded on this rank is not {}"]),
    # ---- DTensor and tensor parallelism
    (r"^%s: got mixed torch\.Tensor and DTensor, need to convert all torch\.Tensor to DTensor",
     "An operator got a DTensor (a sharded or replicated parameter of tensor parallelism / FSDP2) together with a "
     "plain torch.Tensor: a tensor made inside forward (a mask, positional table, a buffer not distributed) meets "
     "a distributed one.",
     ["turn the plain tensor into a DTensor on the same mesh: DTensor.from_local(t, mesh, [Replicate()]), or bring "
      "the DTensor back with .to_local() / .full_tensor() for that op",
      "register such tensors as parameters/buffers of the parallelized module so parallelize_module / fully_shard "
      "converts them"]),
    (r"^`placements` must have the same length as `device_mesh\.ndim`|^mesh dimension does not match the length of "
     r"placements",
     "A DTensor call got a placements list whose length differs from the mesh's number of dimensions.",
     ["give one placement per mesh dimension: distribute_tensor(t, mesh, [Shard(0), Replicate()]) for a 2-D mesh"]),
    (r"^Cannot distribute a DTensor with (?:device mesh|placements)",
     "distribute_tensor was called on something that is already a DTensor with another mesh or placements.",
     ["call t.redistribute(mesh, placements) on a DTensor; distribute_tensor is for plain tensors"]),
    (r"^`distribute_tensor` should be used to distribute leaf tensors",
     "distribute_tensor got a tensor computed from others (non-leaf, part of an autograd graph).",
     ["distribute the parameter/leaf tensor (t.detach() or the nn.Parameter), or DTensor.from_local for "
      "activations"]),
    (r"^distribute_module should only be called once on a module",
     "distribute_module / parallelize_module ran twice on the same module.",
     ["apply it once per module (check the code path is not repeated per step or per model copy)"]),
    (r"^(?:Colwise|Rowwise)Parallel currently only support nn\.Linear and nn\.Embedding",
     "A parallelize_plan entry points ColwiseParallel / RowwiseParallel at a module that is not nn.Linear / "
     "nn.Embedding (a whole block, a custom or fused layer).",
     ["name the Linear submodules by their FQN in the plan ({'attn.q_proj': ColwiseParallel(), 'attn.o_proj': "
      "RowwiseParallel()}); print(model) for the names"]),
    (r"^Expect Union\[ParallelStyle, Dict\[str, ParallelStyle\]\] for parallelize_plan",
     "parallelize_module's plan is neither a ParallelStyle nor a dict of FQN -> ParallelStyle.",
     ["parallelize_module(model, tp_mesh, {'layers.0.mlp.fc1': ColwiseParallel(), ...})"]),
    (r"^module inputs and input_layouts should have same length|^module outputs and output_layouts should have same "
     r"length|^input_layouts and desired_input_layouts should have same length|"
     r"^output_layouts and desired_output_layouts should have same length",
     "PrepareModuleInput / PrepareModuleOutput got a layouts tuple of another length than the module's inputs or "
     "outputs.",
     ["give one layout per positional input/output (None for non-tensors), in the same order as forward's "
      "arguments / return values"]),
]

# What a bug in the job's code or data makes torch print (the usercode sources): (rule, knowledge
# entry, {field: regex}), the first match assigns; each entry says what a training user does. A
# site no rule names is listed (docs/explain.md), never guessed.
USER_RULES = [
    ("oom", "cuda.oom", {"text": r"^CUDA out of memory"}),
    ("two-devices", "usercode.tensors_on_two_devices", {"text": r"Expected all tensors to be on the same device"}),
    ("dl-shm", "usercode.dataloader_shm", {"text": r"bus error encountered in worker|workers are out of shared memory|"
                                                   r"unable to allocate shared memory"}),
    ("dl-died", "usercode.dataloader_killed", {"text": r"^DataLoader worker \(pid|segmentation fault encountered in worker|"
                                                       r"^DataLoader timed out after"}),
    ("dl-emfile", "errno.emfile", {"text": r"^Too many open files\. Communication with the workers"}),
    ("shm-open", "usercode.shm_open", {"text": r"^unable to open shared memory object"}),
    ("state-dict", "usercode.state_dict_mismatch", {"text": r"Error\(s\) in loading state_dict|^size mismatch for|"
                                                            r"(?:Missing|Unexpected) key\(s\) in state_dict"}),
    ("no-grad", "usercode.no_grad", {"text": r"of tensors does not require grad and does not have a grad_fn"}),
    ("backward-twice", "usercode.backward_twice", {"text": r"backward through the graph a second time \(or"}),
    ("inplace", "usercode.inplace_modified", {"text": r"modified by an inplace operation"}),
    ("nan", "usercode.nan_inf", {"text": r"returned nan values in its|gradients from `parameters` is non-finite"}),
    ("labels", "cuda.device_assert", {"where": r"\.cu$", "text": r"^Assertion `"}),
    ("index", "usercode.index_out_of_range", {"text": r"^index out of range in self"}),
    ("dtype", "usercode.dtype_mismatch", {"text": r"^expected scalar type\b|^expected m1 and m2 to have the same dtype"}),
    ("shapes", "usercode.shape_mismatch", {"text": r"^mat1 and mat2 shapes cannot be multiplied|^Expected input batch_size|"
                                                   r"must match the size of tensor b"}),
    # torch/amp/grad_scaler.py's _unscale_grads_: a float16 gradient reached the scaler's unscale
    ("amp-fp16-grads", "usercode.dtype_mismatch", {"text": r"^Attempting to unscale FP16 gradients"}),
]

# site-fixes-3 (issue 18): the remaining argument and state checks users meet, each from the statement that raises
# it in the slice (tools/data/torch_messages_slice.txt: torch 2.13's python modules and libtorch_cpu.so's c10d
# strings) and the docs of the call it guards: https://pytorch.org/docs/stable/distributed.html (split_group,
# shrink_group, monitored_barrier, init_method URLs), .../distributed.tensor.html (DTensor, redistribute),
# .../distributed.checkpoint.html (get_state_dict / StateDictOptions), .../fsdp.html and
# .../distributed.fsdp.fully_shard.html (FSDP1 and FSDP2), .../elastic/rendezvous.html (rdzv_conf),
# .../notes/ddp.html. Left without a row: the internal invariants torch 2.13 turned from `assert` into raises
# ("Expected X to be set/not None", "should only be called during tracing", FlatParameter bookkeeping, DCP's
# "planner is None"-kind checks: about 200 sites of FSDP, DCP, DTensor dispatch, _functional_collectives,
# _pycute/_mesh_layout), Windows CRT redirects, RPC / symmetric-memory internals, and messages whose family
# entry already is the message's cause (the watchdog timeout, CUDA OOM, state_dict key mismatches, DataLoader
# workers killed, device asserts, Gloo's hostname / connectFullMesh (gloo.socket_ifname), ProcessGroupWrapper's
# collective mismatch, USE_LIBUV=0 (torch.windows_libuv): entries with their own causes).
SITE_FIX += [
    # ---- c10d backends: an operation the group's backend does not implement (Backend.hpp's default bodies)
    (r"^does not support (?:getMemoryStats|allocateTensor|getMemAllocator|recvAnysource|monitoredBarrier|alltoall_base|"
     r"reduce_scatter|_reduce_scatter_base|allgather|_allgather_base|allreduce_coalesced|allreduce sparse|"
     r"setting timeout)",
     "c10d Backend.hpp: the process group's backend (named before 'does not support') does not implement this "
     "operation (Backend.hpp's default body raises this): monitored_barrier exists only in Gloo, sparse all_reduce "
     "not in NCCL, and reduce_scatter, _allgather_base and the *_coalesced variants are missing from Gloo or MPI "
     "in some releases.",
     ["run the call on a backend that has it: init_process_group(backend='cpu:gloo,cuda:nccl') and put the "
      "tensors on that backend's device, or a Gloo group from dist.new_group(backend='gloo') for "
      "monitored_barrier", "or use the plain collective (dist.all_reduce per tensor, all_gather into a list)"]),
    # ---- ProcessGroup.cpp splitGroup, distributed_c10d.py split_group / new_group delegation
    (r"^Split ranks cannot be empty|^the split group's size should be no larger than the world_size|"
     r"^Split ranks should not have duplicates|^splitGroup deviceTypes filter must include|"
     r"^No backend for the parent process group or its backend does not support splitting|"
     r"^device_id=%s does not match the default process group's bound_device_id|"
     r"^new_group cannot delegate to split_group with|^Requested backend for device '%s' is not present in the parent|"
     r"^Backend mismatch for device '%s': parent has",
     "dist.split_group / new_group's split path got arguments the parent group cannot split by: an empty or "
     "duplicated split_ranks list, a subgroup larger than the world, a backend or device the parent does not "
     "have, or a device_id other than the one init_process_group bound.",
     ["split_group(split_ranks=[[0, 1], [2, 3]]): each inner list non-empty, each rank once, all below the world "
      "size; every rank of the parent calls it", "init_process_group(backend='nccl', device_id=torch.device("
      "'cuda', local_rank)) so the parent can split (NCCL >= 2.18), and pass that same device (or none) to "
      "split_group; or new_group(ranks) without use_local_synchronization / sort_ranks=False"]),
    (r"^ranks_to_exclude must be a list|^ranks_to_exclude cannot be empty|^Invalid shrink_flags value|"
     r"^Cannot shrink a process group with size|does not support shrinking operations|"
     r"^Cannot exclude all %s ranks from process group|^Current rank %s is in the exclusion list|"
     r"^All elements in ranks_to_exclude must be integers|^Rank %s at index %s is out of bounds for group size|"
     r"^Duplicate rank %s found in ranks_to_exclude",
     "dist.shrink_group (drop failed ranks from a group, NCCL >= 2.27's ncclCommShrink) got an unusable "
     "ranks_to_exclude, flags or group: an empty or non-int list, a rank outside the group or twice, every rank, "
     "a group of one rank, a backend without shrinking, or it was called on a rank that is being excluded.",
     ["call it only on the surviving ranks: dist.shrink_group([failed_rank], group=g) with ranks of that group "
      "(0..size-1), each once; shrink_flags=SHRINK_ABORT to abort work in flight; backend nccl with NCCL >= 2.27"]),
    (r"^Process group %s is not initialized in the world group map",
     "A group name or object unknown to this process was used: the group was destroyed, created only on other "
     "ranks, or belongs to a process group from before destroy_process_group / re-init.",
     ["create every group on every rank (new_group is collective) after init_process_group, and do not reuse "
      "groups across destroy_process_group()"]),
    (r"^MPI backend doesn't support use_local_synchronization=True",
     "new_group(..., use_local_synchronization=True) is not available with backend='mpi'.",
     ["drop use_local_synchronization (all ranks then call new_group), or use nccl / gloo"]),
    (r"^The arg 'ranks_per_subgroup_list' cannot be empty|^Ranks length \(%s\) must be divisible by stride",
     "new_subgroups_by_enumeration / the tag-based group helpers got no subgroup list, or a rank list that does not "
     "split into groups of the stride.",
     ["pass a non-empty list of rank lists covering the world, e.g. [[0, 1], [2, 3]]; or dist.new_subgroups("
      "group_size=k) with the world size a multiple of k"]),
    (r"^Function argument device_ids not supported for the selected backend",
     "dist.barrier(device_ids=[...]) is an NCCL-only argument; this group's backend ({%1|gloo/mpi}) has no devices "
     "to pin.",
     ["call dist.barrier() without device_ids on a Gloo/MPI group (with NCCL: device_ids=[local_rank])"]),
    (r"^Backend constructor parameter must be string-ish",
     "init_process_group(backend=...) / dist.Backend(...) got a non-string backend.",
     ["backend='nccl' / 'gloo' / 'cpu:gloo,cuda:nccl' (a str)"]),
    # ---- init_method URLs (torch/distributed/rendezvous.py)
    (r"^`url` must be a string|^`rank` must be an integer|^`world_size` must be an integer",
     "init_process_group's init_method, rank or world_size has the wrong type (a str rank/world_size read from "
     "the environment without int(), an init_method that is None/bytes).",
     ["int(os.environ['RANK']), int(os.environ['WORLD_SIZE']); init_method='tcp://host:port' or 'env://' "
      "as a str"]),
    (r"^The url: %s has node-specific arguments\(rank, world_size\) already",
     "init_method {%1|the URL} already carries ?rank=...&world_size=... and init_process_group got rank / "
     "world_size too.",
     ["give them once: either in the URL or as arguments"]),
    (r"^Rendezvous handler for %s:// already registered|^The rendezvous backend '%s' cannot be registered with|"
     r"^The rendezvous backend name must be a non-empty string",
     "A rendezvous handler or backend was registered under a name that is taken (or empty): a plugin imported "
     "twice, or a custom handler named like a built-in (env, tcp, file, c10d, etcd, static).",
     ["register a custom rendezvous once, under a new name"]),
    # ---- torchrun's rendezvous options (elastic/rendezvous/*.py, launcher/api.py, run.py)
    (r"^The rendezvous backend '%s' does not match the requested backend '%s'",
     "The rendezvous backend created for --rdzv-backend {%2|the requested one} is another ({%1|this one}): a "
     "rendezvous plugin returned the wrong kind.",
     ["--rdzv-backend=c10d (built in, no etcd) unless a plugin is meant; check the plugin's entry point name"]),
    (r"^The read timeout must be a positive integer",
     "torchrun's --rdzv-conf read_timeout (the c10d rendezvous backend's store read timeout, seconds) is 0 or "
     "negative.",
     ["--rdzv-conf read_timeout=60 (or leave it out)"]),
    (r"^The run id must be a non-empty string",
     "torchrun's --rdzv-id (the job's rendezvous id, the same on every node) is empty.",
     ["--rdzv-id=$SLURM_JOB_ID (any non-empty string, identical on all nodes of the job)"]),
    (r"^(?:The etcd )?protocol must be HTTP or HTTPS",
     "The etcd rendezvous's --rdzv-conf protocol is neither http nor https.",
     ["--rdzv-conf protocol=http (or https with cacert/cert/key), or --rdzv-backend=c10d without etcd"]),
    (r"^The connection to etcd has failed",
     "torchrun's etcd rendezvous could not reach the etcd server at --rdzv-endpoint (not running, wrong "
     "host:port, or the python-etcd client missing).",
     ["etcdctl --endpoints=<host:2379> endpoint health; pip install python-etcd; or --rdzv-backend=c10d "
      "--rdzv-endpoint=<node0>:29500 (no etcd needed)"]),
    (r"^Timed out waiting for etcd server to be ready|^Etcd server process exited with the code|"
     r"^No etcd server process started",
     "torch's test/standalone EtcdServer helper could not start the etcd binary (not on PATH, port taken).",
     ["install etcd (its binary on PATH) or use --rdzv-backend=c10d"]),
    (r"^The file creation for C10d store has failed",
     "The c10d rendezvous backend with store_type=file could not create its FileStore file at the "
     "--rdzv-endpoint path (a folder that does not exist or is not shared/writable on every node).",
     ["point --rdzv-endpoint at a writable path on a filesystem every node shares, or use the default TCP store "
      "(--rdzv-endpoint=<node0>:29500)"]),
    (r"^You passed 'keep_alive_(?:interval|max_attempt)=None' as a rendezvous configuration option",
     "torchrun's --rdzv-conf keep_alive_interval / keep_alive_max_attempt was set to None.",
     ["leave it out or give a number: --rdzv-conf keep_alive_interval=5,keep_alive_max_attempt=3"]),
    (r"^shutdown_timeout must be non-negative",
     "The elastic launcher's shutdown_timeout ({%1|the value}) is negative.",
     ["LaunchConfig(shutdown_timeout=30) (seconds, >= 0)"]),
    (r"^Could not find entrypoint under 'torchrun\.logs_specs\[%s\]' key",
     "torchrun --logs-specs {%1|the name} names no installed entry point in the torchrun.logs_specs group.",
     ["drop --logs-specs (the default DefaultLogsSpecs) or install the package that provides that name"]),
    (r"^Start index %s should be less than dataset size|^Dataset must be an instance of collections\.abc\.Sized",
     "torch.distributed.elastic's ElasticDistributedSampler got a dataset without len() or a start_index past its "
     "end (a resumed job with a smaller dataset).",
     ["give a map-style dataset (with __len__), and a start_index below len(dataset) (reset it when the data "
      "changed)"]),
    (r"^Failed to initialize torch\.distributed$",
     "torch/distributed/__init__.py: torch's C extension did not set up torch.distributed (a broken or mixed "
     "install: files of two torch versions).",
     ["pip uninstall -y torch; pip install torch==<version> (one install per environment), then "
      "python -c 'import torch.distributed as d; print(d.is_available())'"]),
    (r"^Can not safely load weights when explicit pickle_module is specified",
     "torch.load(..., pickle_module=...) with weights_only=True (the default since torch 2.6): the safe "
     "unpickler cannot use a custom pickle module (DCP's _serialization path too).",
     ["drop pickle_module, or " + "for a checkpoint you trust pass weights_only=False"]),
    # ---- DDP (torch/nn/parallel/distributed.py)
    (r"^DDP join hook requires passing in a DistributedDataParallel instance",
     "The Join context manager got a joinable whose DDP join hook state is not a DistributedDataParallel model.",
     ["with Join([ddp_model, optimizer]): ... (pass the DDP-wrapped model, not model.module)"]),
    (r"^when using bucket_cap_mb_list, python reducer is not supported",
     "DDP(bucket_cap_mb_list=...) works with the C++ reducer only; TORCH_DDP_USE_PYTHON_REDUCER (or the python "
     "reducer option) is on.",
     ["unset the python reducer, or use bucket_cap_mb=<one size> instead of a list"]),
    (r"^delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the same time",
     "DDP's delayed all-reduce option was given half its arguments.",
     ["pass both delay_all_reduce_named_params and param_to_hook_all_reduce, or neither"]),
    (r"^DDP runtime logging sample rate should be equal or greater than 1",
     "ddp_model._set_ddp_runtime_logging_sample_rate got a value below 1.",
     ["pass an int >= 1 (log every N iterations)"]),
    (r"^%s does not support overlapped DDP",
     "DDP's _register_fused_optim (optimizer in the backward hook) got an optimizer class without a functional "
     "version ({%1|this optimizer}).",
     ["use an optimizer torch.distributed.optim lists as functional (SGD, Adam, AdamW, ...) or step the optimizer "
      "normally after backward()"]),
    # ---- DDP reducer (torch/csrc/distributed/c10d/reducer.cpp)
    (r"^Detected at least one parameter gradient is not the expected DDP bucket view with gradient_as_bucket_view",
     "DDP(gradient_as_bucket_view=True) makes each param.grad a view into its bucket; the training code replaced a "
     ".grad (param.grad = tensor, optimizer.zero_grad(set_to_none=True) with a hook that reassigns, a grad "
     "clipping or loss-scaling that swaps the tensor).",
     ["modify gradients in place (param.grad.mul_(s), param.grad.copy_(g)), never assign param.grad = ...",
      "or DDP(model, gradient_as_bucket_view=False)"]),
    (r"^All parameters in a bucket must have the same dtype|^All parameters in a bucket must be",
     "DDP's reducer put parameters of different dtypes or devices in one gradient bucket: the model mixes dtypes "
     "(some layers .half()/bfloat16, others float32) or devices.",
     ["give the model one dtype (use autocast for mixed precision instead of casting layers), and one device per "
      "DDP process", "or bucket_cap_mb / separate DDP wrappers per dtype"]),
    (r"^Buckets with more than one variable cannot include variables|^Expected sparse gradient to be defined|"
     r"^Expected variable to have sparse gradient|^Sparse metadata and gradient size mismatch",
     "DDP met sparse gradients (nn.Embedding(sparse=True)) where it expected dense ones, or a sparse parameter "
     "sharing a bucket with others.",
     ["nn.Embedding(..., sparse=False) under DDP, or let DDP put each sparse parameter in its own bucket (do not "
      "set static_graph / custom buckets for them); all ranks must produce the same sparse layout"]),
    (r"^Expected at least one parameter\.$",
     "DistributedDataParallel was given a module with no parameter that requires grad (everything frozen, or an "
     "empty wrapper).",
     ["wrap only a module that trains (requires_grad=True somewhere), or skip DDP for a frozen model "
      "(no gradients to synchronise)"]),
    # ---- ProcessGroupGloo.cpp
    (r"^timed out in monitoredBarrier after|^failed to pass monitoredBarrier in",
     "dist.monitored_barrier: the ranks the message names did not reach the barrier in time (still busy, hung "
     "or dead); the others did.",
     ["read the log of the named rank(s) for an error or a hang (py-spy dump --pid <pid>)",
      "a longer timeout: dist.monitored_barrier(timeout=datetime.timedelta(minutes=30)), wait_all_ranks=True to "
      "list every late rank"]),
    (r"^requires input/output tensor lists to have the same length|^reduce_scatter only supports 1 output|"
     r"^requires a single-element tensor list|^Check failed: outputs\.size\(\) == inputs\.size\(\)",
     "A Gloo collective got tensor lists of the wrong lengths: one tensor per call (or one output per input).",
     ["pass a single tensor (dist.all_reduce(t)); for all_gather a list of world_size tensors; "
      "reduce_scatter: one output tensor and a list of world_size inputs"]),
    (r"^makeDeviceFor(?:Interface|Hostname)\(\): unsupported gloo device",
     "The Gloo transport device (GLOO_DEVICE_TRANSPORT) is not one this build has.",
     ["unset GLOO_DEVICE_TRANSPORT (TCP is the default) or set it to TCP"]),
    # ---- Functional collectives (torch/csrc/distributed/c10d/Functional.cpp, _functional_collectives.py)
    (r"^\(\): argument 'group_name' must be either a string \(group name\) or a ProcessGroup object",
     "A functional collective (torch.distributed._functional_collectives / torch.compile'd collective) got a "
     "group that is neither a group name nor a ProcessGroup.",
     ["pass group=dist.group.WORLD or a group from new_group / DeviceMesh.get_group()"]),
    (r"^does not support complex tensors",
     "This functional collective has no complex-number support.",
     ["communicate torch.view_as_real(t) and take torch.view_as_complex(result)"]),
    (r"^Length of scatter_dim \(%s\) must equal length of inputs|^input dimension %s \(%s must be a multiple of "
     r"group_size",
     "A functional reduce_scatter got inputs whose scatter dimension is not divisible by the group size (or one "
     "scatter_dim per input missing).",
     ["pad the tensor so that size(scatter_dim) is a multiple of the group size; pass one scatter_dim per input"]),
    (r"^(?:all_reduce|reduce_scatter_tensor|all_reduce_coalesced|reduce_scatter_tensor_coalesced) backward only "
     r"supports 'sum' reduction",
     "Autograd through a functional collective is defined for op 'sum' only; this call used {%1|another op}.",
     ["use reduceOp 'sum' (divide by the group size for an average) on the differentiated path"]),
    (r"^All (?:output|input)_split_sizes must be int or SymInt|^output_split_sizes and input_split_sizes must "
     r"either be specified together",
     "all_to_all_single got split sizes that are not ints, or one list without the other.",
     ["pass both as lists of ints (one per rank, summing to dim 0), or both None for even splits"]),
    (r"^group sizes must be identical found|^Only 1D mesh is supported, pass in \(DeviceMesh, int\)|"
     r"^Invalid type for group, must be one of|^Invalid tuple for group must be \(DeviceMesh, int\)|"
     r"^Unsupported group type: %s",
     "A functional collective got a group it cannot read: a multi-dimensional DeviceMesh without the dimension, "
     "a malformed (mesh, dim) tuple, or rank lists of unequal sizes.",
     ["pass group=(mesh, dim) or mesh.get_group(dim) for a mesh of several dimensions, a ProcessGroup, or a "
      "list of ranks"]),
    (r"^Cannot specify both '(?:dst|src)' and 'group_(?:dst|src)' args",
     "A collective was given both a global rank (dst/src) and a group rank (group_dst/group_src).",
     ["pass one of them (group_dst is the rank within `group`)"]),
    (r"^torch\.distributed must be initialized$|^group cannot be None$",
     "A functional collective ran before init_process_group, or without a group.",
     ["call dist.init_process_group(...) first and pass group=dist.group.WORLD (or a DeviceMesh group)"]),
    # ---- ProcessGroupNCCL.cpp checks
    (r"^PreMulSum Data type must be half, float, or double",
     "ReduceOp PREMUL_SUM (dist._make_nccl_premul_sum, FSDP's gradient pre-divide) works on half, float and double "
     "only; the tensor is another dtype (bfloat16 on an old NCCL, an integer).",
     ["reduce in float32 (t.float()) or use ReduceOp.SUM and divide afterwards"]),
    (r"^Capturing NCCL collectives is only allowed with NCCL >= 2\.9\.6",
     "A CUDA graph captured an NCCL collective with an NCCL older than 2.9.6.",
     ["update NCCL (a torch wheel bundles a new one), or run the collective outside torch.cuda.graph()"]),
    (r"^Not able to create/get the NCCL Communicator since the GPU devices are not known",
     "ProcessGroupNCCL could not tell which GPU this rank uses for a collective without tensors (barrier, "
     "object collectives) because no device was set.",
     ["torch.cuda.set_device(local_rank) before init_process_group, or init_process_group(..., "
      "device_id=torch.device('cuda', local_rank))"]),
    (r"^ProcessGroupNCCL: Health check failure: Failed to initialize NCCL communicator on rank",
     "TORCH_NCCL_ENABLE_HEALTH_CHECK=1's test communicator did not come up: NCCL itself fails on this rank (its "
     "WARN lines say why).",
     ["run with NCCL_DEBUG=WARN (or INFO) and read the first NCCL WARN of this rank",
      "unset TORCH_NCCL_ENABLE_HEALTH_CHECK to let the first real collective report the error"]),
    # ---- FSDP1 (fully_sharded_data_parallel.py, _init_utils.py, wrap.py, _flat_param.py, _state_dict_utils.py)
    (r"^Cannot pass both process_group and device_mesh at the same time",
     "FSDP(...) got both process_group= and device_mesh=.",
     ["pass one: device_mesh=init_device_mesh('cuda', (world,)) or process_group=<group>"]),
    (r"^Manual wrapping with %s requires explicit specification of process group",
     "FSDP with a hybrid sharding strategy ({%1|HYBRID_SHARD}) wrapping modules by hand needs the two process "
     "groups (or a 2-D device_mesh) given to every wrap.",
     ["FSDP(module, sharding_strategy=ShardingStrategy.HYBRID_SHARD, device_mesh=init_device_mesh('cuda', "
      "(nnodes, gpus_per_node))) for each wrapped module, or use auto_wrap_policy on the root"]),
    (r"^Expected device_mesh to have ndim=2 but got|^Expected process_group to be passed in as either None or Tuple",
     "FSDP's hybrid sharding (HYBRID_SHARD / _HYBRID_SHARD_ZERO2) needs a 2-D mesh (replicate x shard) or a pair of "
     "groups (intra-node, inter-node); got {%1|something else}.",
     ["device_mesh=init_device_mesh('cuda', (num_nodes, gpus_per_node), mesh_dim_names=('replicate', 'shard')), "
      "or process_group=(intra_node_group, inter_node_group)"]),
    (r"^Cannot pass both ignored_modules and ignored_states|^ignored_states expects all nn\.Parameter or all "
     r"nn\.Module|^ignored_modules expects nn\.Module list elements|^`ignored_modules` should not include FSDP modules",
     "FSDP's ignored_modules / ignored_states is malformed: both given, mixed parameters and modules, non-modules, "
     "or modules already wrapped by FSDP.",
     ["pass ignored_states=[...] only (all nn.Module or all nn.Parameter), listing modules that are not FSDP "
      "instances"]),
    (r"^Expected (?:optim_)?state_dict_config of type %s but got",
     "FSDP.set_state_dict_type got a config that does not belong to the state dict type (e.g. "
     "FullStateDictConfig with SHARDED_STATE_DICT).",
     ["pair them: StateDictType.FULL_STATE_DICT + FullStateDictConfig / FullOptimStateDictConfig; "
      "SHARDED_STATE_DICT + ShardedStateDictConfig / ShardedOptimStateDictConfig"]),
    (r"^Not all FSDP modules have the same _use_orig_params value",
     "The FSDP units of one model were created with different use_orig_params.",
     ["pass the same use_orig_params=True to every FSDP(...) (auto_wrap_policy passes the root's on)"]),
    (r"^Expected optim_state_key_type to be PARAM_NAME or PARAM_ID|^Expected optim_input to be None and rank0_only "
     r"to be False",
     "FSDP.rekey_optim_state_dict / the deprecated full_optim_state_dict got an unknown key type, or optim_input "
     "with rank0_only.",
     ["use FSDP.optim_state_dict(model, optim) / optim_state_dict_to_load (or torch.distributed.checkpoint."
      "state_dict.get_state_dict), OptimStateKeyType.PARAM_NAME"]),
    (r"^Communication hook is not supported for hybrid strategies|^A communication hook is already registered|"
     r"^The communication hook must be callable",
     "FSDP.register_comm_hook: not for HYBRID_SHARD, once per model (on the root, before the first forward), "
     "and the hook must be a function.",
     ["register one callable hook on the root FSDP module before training; no hook with hybrid sharding"]),
    (r"^`_sync_gradients` was incorrectly set to `True` while in the `no_sync\(\)` context manager",
     "A backward inside FSDP's no_sync() ran with gradient synchronisation forced on (nested or overlapping "
     "no_sync contexts of several FSDP roots).",
     ["enter model.no_sync() on the root FSDP module only, for the accumulation steps, and run the last "
      "micro-batch outside it"]),
    (r"^FSDP assumes %s is in the state_dict but the state_dict only has|^No `FlatParameter` in `state_dict` for "
     r"this FSDP instance|^Local shard size = %s and the tensor in the state_dict is|^Tensors in local_state_dict "
     r"should be ShardedTensor|^Expects 0 or 1 shard per rank but got",
     "FSDP.load_state_dict got a state dict of another kind or world size than the model's state_dict_type: a "
     "full (consolidated) dict loaded under SHARDED/LOCAL_STATE_DICT, or a LOCAL_STATE_DICT saved with a "
     "different number of ranks or wrapping.",
     ["load with the type it was saved with: with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT): "
      "model.load_state_dict(sd); LOCAL_STATE_DICT only with the same world size and wrap policy",
      "or save/load through torch.distributed.checkpoint (dcp.save / dcp.load with get_state_dict), which "
      "reshards across world sizes"]),
    (r"^Cannot initialize a `FlatParameter` from an empty parameter list|^Cannot construct a %s with an empty "
     r"parameter list",
     "An FSDP unit was created around a module with no parameters to shard (all of them already in child FSDP "
     "units or ignored).",
     ["change the auto_wrap_policy so every wrapped module owns parameters, or do not wrap parameter-less "
      "modules"]),
    (r"^`FlatParameter` does not support nesting|^Cannot flatten a `FlatParameter`",
     "FSDP was applied to a module that is already FSDP-wrapped (wrapping twice, or a checkpoint of a wrapped "
     "model wrapped again).",
     ["wrap once: build the model, then FSDP(model, auto_wrap_policy=...); unwrap or rebuild before a second wrap"]),
    (r"^FSDP does not support changing the parameters between forward and backward|^Changing shared parameters is "
     r"not supported yet|^Cannot writeback when the %s shape changes",
     "With use_orig_params=True a parameter was replaced or reshaped after FSDP flattened it (param.data = ..., "
     "tied weights re-tied, resize in the forward).",
     ["change parameters in place without changing their shape (param.data.copy_(...)) and tie weights before "
      "wrapping with FSDP"]),
    (r"^Must specify auto_wrap_policy\.|^Must specify wrapper_cls|^You are already within an autowrap context",
     "torch.distributed.fsdp.wrap's enable_wrap / _recursive_wrap was used without a wrapper class or policy, or "
     "nested.",
     ["with enable_wrap(wrapper_cls=FSDP, **kwargs): wrap(module) once (no nesting), or pass auto_wrap_policy "
      "to FSDP(...)"]),
    (r"^fn should return None or an nn\.Module|^The lambda_fn passed to CustomPolicy should return",
     "An FSDP wrap policy function returned something other than what FSDP accepts (CustomPolicy: True/False or "
     "a dict of FSDP kwargs).",
     ["return a bool (or a kwargs dict) from the lambda: CustomPolicy(lambda m: isinstance(m, Block))"]),
    (r"^Child module %s is already wrapped by %s",
     "auto_wrap_policy reached a child ({%1|the module}) already wrapped by FSDP (wrapped by hand before the "
     "root's auto wrap).",
     ["wrap by hand or by policy, not both; exclude the manually wrapped classes from the policy"]),
    # ---- FSDP2 fully_shard (_fully_shard.py, _fsdp_init.py, _fsdp_param.py, _fsdp_param_group.py, _fsdp_state.py)
    (r"^reshard_after_forward should be a bool|^If passing reshard_after_forward as an int, it should be a factor|"
     r"^reshard_after_forward as int is not yet supported with SPMD mesh",
     "fully_shard(reshard_after_forward=...) takes True/False, or an int that divides the shard group size "
     "(reshard to a smaller world); got {%-1|this value}.",
     ["reshard_after_forward=True (the default) / False, or an int that divides the mesh's shard dimension size"]),
    (r"^max_input_buffers must be (?:an int|a positive int)",
     "set_reduce_scatter_max_input_buffers / the all-gather buffer option got {%1|a value} that is not a positive "
     "int.",
     ["pass an int >= 1"]),
    (r"^No FSDP state found on %s|^Expects list of FSDPModules but got|^Expects FSDPModule but got",
     "An FSDP2 API (set_modules_to_forward_prefetch, set_requires_gradient_sync, ...) got a module that "
     "fully_shard was not applied to.",
     ["apply fully_shard(module) to the submodules first (and then to the root), and pass those modules"]),
    (r"^Expects the parameter to already be moved to device %s but got|^Expects DTensor to be moved to %s but got",
     "fully_shard found a parameter on {%-1|another device} rather than the mesh's device: the model is on the CPU "
     "or meta device, or on another GPU.",
     ["model.to(torch.device('cuda', local_rank)) (or model.to_empty(device='cuda') then init weights for a meta "
      "model) before fully_shard; torch.cuda.set_device(local_rank)"]),
    (r"^FSDP does not support non-contiguous parameters yet",
     "fully_shard got a parameter that is a non-contiguous view (a transposed or sliced tensor made an "
     "nn.Parameter).",
     ["make it contiguous before wrapping: p.data = p.data.contiguous() (or nn.Parameter(t.contiguous()))"]),
    (r"^Shard\(%s\) requires even sharding",
     "A custom shard_placement_fn asked for Shard on a dimension that does not divide evenly by the shard group.",
     ["use Shard(0) (FSDP pads it) or pick a dimension whose size is a multiple of the shard world size"]),
    (r"^FSDP expects uniform original parameter dtype but got|^FSDP expects uniform reduce dtype but got",
     "One fully_shard group holds parameters of different dtypes ({%1|these}), which one flat all-gather cannot "
     "carry.",
     ["cast the module to one dtype before fully_shard, or fully_shard the differing submodules separately; use "
      "MixedPrecisionPolicy(param_dtype=..., reduce_dtype=...) for mixed precision"]),
    (r"^Some parameters are not in the module tree of",
     "fully_shard was given a module list / parameters that are not all under the module it wraps.",
     ["fully_shard the module that owns the parameters (its parent), or each module separately"]),
    (r"^%s requires a single root module but got|^%s state has already been lazily initialized for",
     "FSDP2 lazy init found several root modules, or a submodule's forward ran before the root's: the training "
     "loop calls a fully_shard submodule directly.",
     ["run forward through the root module (the one fully_shard was applied to last); apply fully_shard to the "
      "whole model"]),
    (r"^Mesh dim name '%s' not found in mesh\.mesh_dim_names|^mesh must have mesh_dim_names when dp_mesh_dims|"
     r"^At least one of shard or replicate must be set in dp_mesh_dims",
     "fully_shard(mesh=..., dp_mesh_dims=...) names mesh dimensions the mesh does not have (or none).",
     ["init_device_mesh('cuda', (r, s), mesh_dim_names=('dp_replicate', 'dp_shard')) and name those dimensions"]),
    (r"^FSDP only supports 1D TP/EP or 2D EP\+TP|^_spmd_mesh\.ndim can only be|^FSDP requires the DP and model "
     r"parallel TP/EP mesh to be not None",
     "fully_shard on a tensor-/expert-parallel model got a mesh layout it does not support.",
     ["build the mesh as (dp, tp) or (dp_replicate, dp_shard, tp) with init_device_mesh and pass mesh['dp'] "
      "(the data-parallel submesh) to fully_shard"]),
    (r"^Both fsdp_pre_all_gather and fsdp_post_all_gather should be defined",
     "A tensor subclass parameter defines one of FSDP2's all-gather extension hooks but not the other.",
     ["define both fsdp_pre_all_gather and fsdp_post_all_gather on the subclass (or neither)"]),
    # ---- DCP get_state_dict / set_state_dict (torch/distributed/checkpoint/state_dict.py) and the planners
    (r"^Optimizers are not passed in but optim_only is set to True|^The option indicates that model state_dict is "
     r"required to save, or load but optim state_dict is empty",
     "get_state_dict / set_state_dict options ask for optimizer state that is not there: no optimizer passed, or "
     "an empty optimizer state (before the first optimizer.step()).",
     ["pass the optimizers: get_state_dict(model, optimizers=optim); to save before training, run one step or "
      "use get_model_state_dict(model)"]),
    (r"^%s contains %s\. This can happen if the model is not the root module",
     "get_state_dict got a submodule (or a wrapper around the root) instead of the model the optimizer was built "
     "on, so FQNs do not line up.",
     ["pass the top-level model (the one fully_shard / FSDP / DDP wrapped, the same object the optimizer's "
      "parameters came from)"]),
    (r"^There are param groups that have zero parameters|^When there is a parameter group that has zero parameters",
     "DCP's optimizer state dict cannot map a parameter group with no parameters (only one such group, with one "
     "optimizer, is allowed).",
     ["drop empty param groups when building the optimizer (filter frozen parameters before, not after)"]),
    (r"^Flattening optimizer state_dict only supports tensor, int, float, dict states",
     "StateDictOptions(flatten_optimizer_state_dict=True) met an optimizer state value of another type.",
     ["flatten_optimizer_state_dict=False for this optimizer"]),
    (r"^All the parameters in the same parameter group should have the same saved param_group value",
     "The optimizer state dict being loaded has a parameter group whose parameters disagree on a setting (lr, "
     "weight_decay): saved from a different grouping.",
     ["build the optimizer's param groups the same way as when the checkpoint was saved"]),
    (r"^Failed to validate global plan",
     "DCP's planner found the ranks' save plans inconsistent (overlapping or missing shards): ranks hold "
     "differently sharded state dicts or duplicate keys.",
     ["call dcp.save on every rank with state dicts from the same model and sharding (get_state_dict), not a "
      "full state dict on one rank and shards on others"]),
    (r"^Could not find FQN: '%s'|^Could not find shard at '%s' for FQN",
     "dcp.load asked for {%-1|a key} that the checkpoint does not hold (a renamed module, another model, a "
     "torch.compile '_orig_mod.' or DDP 'module.' prefix).",
     ["compare keys: dcp's metadata (FileSystemReader(path).read_metadata().state_dict_metadata.keys()) with "
      "model.state_dict().keys(); load with get_state_dict to get unprefixed FQNs",
      "DefaultLoadPlanner(allow_partial_load=True) to skip keys missing from the checkpoint"]),
    (r"^req %s mismatch sizes %s vs %s",
     "dcp.load read a tensor whose stored size differs from the model's (another model configuration).",
     ["load into a model built with the checkpoint's configuration"]),
    (r"^storage_(?:writer|reader) in kwargs|^Unexpected kwonlyargs = ",
     "dcp.save / dcp.load were called with the removed positional storage_writer/storage_reader (the "
     "save_state_dict era) calling convention.",
     ["dcp.save(state_dict, checkpoint_id=path) / dcp.load(state_dict, checkpoint_id=path) (or "
      "storage_writer=FileSystemWriter(path) by keyword)"]),
    # ---- DTensor (tensor/_api.py, placement_types.py, _dispatch.py, parallel/style.py)
    (r"^placements is needed for redistribute|^Can not redistribute from %s to %s, redistributing to Partial",
     "DTensor.redistribute got no placements, or was asked to produce Partial (allowed only internally).",
     ["dt.redistribute(device_mesh, [Replicate()]) or [Shard(dim)]; reduce a Partial with redistribute to "
      "Replicate/Shard"]),
    (r"^Any checkpointing related operations are not supported for DTensor with partial placements",
     "A state dict holds DTensors with Partial placement (unreduced values); DCP cannot save them.",
     ["redistribute to Replicate() / Shard() before saving"]),
    (r"^the local_tensor argument only accepts torch\.Tensor|^Trying to distribute tensor with unsupported placements",
     "DTensor.from_local / distribute_tensor got a non-tensor or a placement it cannot make (Partial in "
     "distribute_tensor).",
     ["pass a torch.Tensor and placements of Shard(d) / Replicate()"]),
    (r"^(?:input|output)_fn should take in 3 arguments",
     "distribute_module's input_fn / output_fn must be fn(module, inputs, device_mesh).",
     ["def input_fn(mod, inputs, device_mesh): ... (three parameters)"]),
    (r"^Sharding dim %s greater than tensor ndim|^Expected tensor\.dim\(\) > 0",
     "Shard({%1|dim}) names a dimension the tensor does not have (or shards a 0-d scalar).",
     ["use Shard(d) with d < tensor.ndim, Replicate() for scalars"]),
    (r"^Replicate to Partial\(%s\) conversion is not supported",
     "A redistribute from Replicate to Partial({%1|op}) is not defined for that reduce op.",
     ["keep the tensor Replicate, or use Partial('sum')"]),
    (r"DTensor does not support cross-mesh operation yet",
     "An operation mixed DTensors that live on different DeviceMeshes.",
     ["put both operands on the same mesh (redistribute / distribute_tensor with the same mesh object), or "
      "full_tensor() one of them"]),
    (r"^A CudaRNGStateTracker instance must be instantiated before executing a random op over a DTensor",
     "A random op (dropout, init) ran on a DTensor before DTensor's RNG tracker was set up.",
     ["torch.distributed.tensor._random.manual_seed(seed, device_mesh) (torch 2.1) before random ops, or "
      "initialise weights before distributing"]),
    (r"^as_strided not supported with DTensor|^found no DeviceMesh from dtensor args|Sharding propagation failed "
     r"for %s$",
     "DTensor has no sharding rule for this operator with these placements (or got no DTensor argument).",
     ["full_tensor() / redistribute to Replicate() around the operator, or use a module-level parallel style; "
      "update torch (operators gain rules each release)"]),
    (r"^expecting input of %s to be a torch\.Tensor or DTensor|^expecting input to be a torch\.Tensor!|"
     r"^input_kwarg_layouts and desired_input_kwarg_layouts should have same length",
     "A tensor-parallel style (PrepareModuleInput) got a module input that is not a tensor, or layouts of "
     "different lengths.",
     ["give input_layouts / desired_input_layouts one entry per positional input (None for non-tensors), and "
      "matching *_kwarg_layouts dicts"]),
    # ---- DeviceMesh (torch/distributed/device_mesh.py, _ops/device_mesh.py)
    (r"^DeviceMesh process groups not initialized|^No device mesh is currently active",
     "A DeviceMesh API ran before its process groups exist (no init_process_group / init_device_mesh, or "
     "outside `with mesh:`).",
     ["mesh = init_device_mesh('cuda', (dp, tp), mesh_dim_names=('dp', 'tp')) after init_process_group (torchrun "
      "sets the environment)"]),
    (r"^Slicing overlapping dim_names %s is not allowed|^Cannot slice mesh without dim names|"
     r"^Cannot flatten a DeviceMesh without mesh_dim_names|^No flattened mesh found for mesh_dims",
     "A DeviceMesh was sliced (mesh['dp']) or flattened by dimension names it was not created with, or with a "
     "name twice.",
     ["init_device_mesh(..., mesh_dim_names=('dp', 'tp')) and slice by those names, each once; "
      "mesh['dp', 'cp']._flatten('dp_cp') before using the flattened name"]),
    (r"^The product of mesh_sizes=%s is %s, but the original dimension|^dim %s specified in `_unflatten` is|"
     r"^mesh_dim_names must have same length as mesh_sizes in _unflatten",
     "DeviceMesh._unflatten got sizes whose product is not the dimension's size, or an unknown dimension.",
     ["pass sizes multiplying to the dimension's size and one name per size"]),
    (r"^Flatten mesh with mesh_dim_name %s has been created before|^%s already exists for submesh of the",
     "A DeviceMesh flatten reused a dimension name that already exists.",
     ["give the flattened dimension a new name (or reuse the mesh made before)"]),
    (r"^The submesh can only be a 1D mesh|^mesh_dim must be an int",
     "DeviceMesh.get_group / get_local_rank got a mesh of several dimensions without mesh_dim (or a non-int).",
     ["mesh.get_group('tp') / mesh.get_group(1), or slice first: mesh['tp'].get_group()"]),
    (r"^backend_override should have the same length|^Found invalid keys in backend_override|"
     r"^Found redundant dim index %s and name %s in backend_override",
     "init_device_mesh(backend_override=...) does not line up with the mesh dimensions.",
     ["one entry per dimension, keyed by index or by name (not both): backend_override={'dp': 'gloo'}"]),
    (r"^Please use a valid layout when creating a DeviceMesh|^The rank map contains %s element|"
     r"^Please use a non-overlapping layout when creating a DeviceMesh",
     "DeviceMesh(device_type, mesh) got a mesh whose size or layout does not match the ranks given (world size "
     "not equal to the product of the mesh shape).",
     ["init_device_mesh('cuda', shape) with the product of shape == dist.get_world_size() (torchrun's --nnodes x "
      "--nproc-per-node)"]),
    (r"^Expects at least one ProcessGroup to be passed|^Must pass mesh if passing multiple ProcessGroups|"
     r"^Must pass mesh_dim_names if passing multiple ProcessGroups|^Expects mesh with ndim equal to number of "
     r"ProcessGroups|^Invalid mesh %s for ProcessGroup with ranks",
     "DeviceMesh.from_group got groups and a mesh that do not agree (no group, several groups without mesh / "
     "names, or a mesh whose ranks are not the group's).",
     ["DeviceMesh.from_group(group, 'cuda') for one group; for several: from_group([g_dp, g_tp], 'cuda', "
      "mesh=torch.arange(world).view(dp, tp), mesh_dim_names=('dp', 'tp'))"]),
    (r"^Cannot concatenate overlapping meshes|^Cannot concatenate DeviceMeshes derived from different",
     "DeviceMesh concatenation got submeshes of different root meshes or with shared dimensions.",
     ["concatenate disjoint dimensions of one mesh (mesh['dp', 'tp'] slicing instead)"]),
    (r"^In order to get the mesh Tensor of a DeviceMesh it needs to either have all its original dimensions",
     "mesh.mesh was read on a sliced mesh from a rank that is not in it.",
     ["read mesh.mesh on ranks of the submesh, or on the full mesh"]),
]

# What a usercode site means and what to do, where its entry's causes are wider (as SITE_FIX): from the
# code around the site and its documentation, https://pytorch.org/docs/stable/amp.html ("GradScaler" is for
# float16; "bfloat16 ... does not need loss scaling") and the AMP examples, .../notes/amp_examples.html
USER_FIX = [
    (r"^Attempting to unscale FP16 gradients",
     "GradScaler found float16 gradients: the model's parameters themselves are float16 (model.half(), a "
     "checkpoint or from_pretrained loaded with torch_dtype=torch.float16). The scaler unscales float32 master "
     "gradients; mixed precision keeps the parameters float32 and runs the forward in float16 under autocast.",
     ["keep the model float32 (drop model.half() / torch_dtype=torch.float16) and run the forward under "
      "with torch.autocast('cuda', dtype=torch.float16): with the GradScaler",
      "for a model that must stay 16-bit use bfloat16 without a GradScaler (bf16 has float32's range), or "
      "Trainer/accelerate's fp16=True on a float32 model, which sets this up"]),
]
# the strings of the wheel's libraries and the python messages that are usercode sites (case-sensitive)
USER_SELECT = re.compile(
    r"^Expected all tensors to be on the same device|bus error encountered in worker|workers are out of shared memory|"
    r"^unable to allocate shared memory|^DataLoader worker \(pid|^unable to open shared memory object|"
    r"of tensors does not require grad and does not have a grad_fn|^Trying to backward through the graph a second time|"
    r"^one of the variables needed for gradient computation has been modified by an inplace operation|"
    r"' returned nan values in its|^index out of range in self$|^expected scalar type ?$|"
    r"^expected m1 and m2 to have the same dtype|^mat1 and mat2 shapes cannot be multiplied \($|"
    r"^Expected input batch_size \($|^\) must match the size of tensor b \($")
# and of the python statements (USER_PY): load_state_dict's errors, clip_grad_norm_'s, the DataLoader's
USER_SELECT_PY = re.compile(USER_SELECT.pattern + r"|^Too many open files\. Communication|state_dict|"
                            r"^size mismatch for|is non-finite, so it cannot be clipped|^DataLoader |"
                            r"^Attempting to unscale FP16 gradients")
USER_LIBS = ["lib/libtorch_cpu.so", "lib/libtorch_python.so"]
# the files whose raise statements an --older release adds (only messages the newer wheel lacks become sites);
# OLDER_MAYBE where that release has them (FSDP's flat parameter was fsdp/flat_param.py before 2.1)
OLDER_FILES = ["torch/distributed/distributed_c10d.py", "torch/nn/parallel/distributed.py"]
# and DTensor's dispatch (torch/distributed/_tensor/dispatch.py before 2.5), whose "got mixed torch.Tensor and
# DTensor" later releases end with a documentation link
OLDER_MAYBE = ["torch/distributed/fsdp/flat_param.py", "torch/distributed/fsdp/_flat_param.py",
               "torch/distributed/fsdp/_init_utils.py", "torch/distributed/tensor/_dispatch.py",
               "torch/distributed/_tensor/dispatch.py"]
USER_PY = ["nn/modules/module.py", "nn/utils/clip_grad.py", "utils/data/dataloader.py", "amp/grad_scaler.py"]


# ---------------------------------------------------------------- python


def _py_sites(path, src, user=False):
    """(level, line, format) of each raise / logger call with a message in a python source (with
    user: also load_state_dict's `error_msgs.append/insert(...)`, joined into its RuntimeError)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = None, None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            level, arg = "raise", node.exc.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "_log_and_throw" and len(node.args) == 2:
            # DDP's self._log_and_throw(ValueError, msg): logs msg and raises err_type(msg)
            # (torch/nn/parallel/distributed.py), the constructor's argument checks
            level, arg = "raise", node.args[1]
        elif user and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "insert") and isinstance(node.func.value, ast.Name) and \
                node.func.value.id == "error_msgs" and node.args:
            level, arg = "raise", node.args[-1]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("error", "warning", "critical", "exception") and node.args and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in ("logger", "log", "logging", "_logger"):
            level, arg = ("warning" if node.func.attr == "warning" else "error"), node.args[0]
        if level is None:
            continue
        if level != "raise" and len(node.args) > 1 and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            fmt = arg.value  # logger.error("... %s", x): already a %-format
        else:
            fmt = knowgen.py_format(arg)
        if fmt:
            yield level, node.lineno, node.end_lineno, " ".join(fmt.split())


def _py_blocks(rel, src, user=False):
    """The slice blocks of a python file: each site's statement lines, dedented, at its line (with
    user: only the messages USER_SELECT picks, in `usercode:` blocks)."""
    lines = src.splitlines(True)
    seen = set()
    for _level, first, last, _fmt_ in _py_sites(rel, src, user):
        if (first, last) in seen or (user and not USER_SELECT_PY.search(_fmt_)):
            continue
        seen.add((first, last))
        body = textwrap.dedent("".join(lines[first - 1:last]))
        try:
            ast.parse(body)
        except SyntaxError:  # a statement that starts inside a larger one: keep only the call
            continue
        yield "=== %s%s @%d\n%s" % ("usercode:" if user else "", rel, first, body if body.endswith("\n") else body + "\n")


# ---------------------------------------------------------------- libtorch_cpu.so strings

_NOT_MESSAGE = re.compile(r"INTERNAL ASSERT FAILED|Could this error message be improved|^/|pytorch\.wait_counter|"
                          r"\b(?:std|c10|at|torch)::|<[^<>]*(?:<|::)|->\s*Tensor|\(Tensor|^\s*$|"
                          r"^(?:HTTP/|Content-|Sec-WebSocket|Upgrade:|Connection: Upgrade)")


def so_strings(path, minimum=8):
    """The printable runs of a shared object, as `strings -n 8` prints them."""
    with open(path, "rb") as f:
        return knowgen.binary_strings(f.read(), minimum)


def c10d_strings(strings):
    """{c10d source file: [message strings]} from the string table: the run of strings from the
    first c10d __FILE__ string to the next non-c10d translation unit's, each attributed to the c10d
    file whose path string precedes it."""
    marks = [i for i, s in enumerate(strings) if _SO_MARK.match(s)]
    c10d = [i for i in marks if _C10D in strings[i]]
    if not c10d:
        return {}
    end = next((i for i in marks if i > c10d[-1] and _C10D not in strings[i] and strings[i].endswith((".cpp", ".cc"))),
               c10d[-1] + 1)
    out, cur = {}, None
    for i in range(c10d[0], end):
        s = strings[i]
        if _SO_MARK.match(s):
            if _C10D in s:  # the strings after a unit's path string are that unit's (or its neighbour's)
                cur = "libtorch_cpu.so near torch/csrc/distributed/c10d/" + s.split(_C10D, 1)[1]
            continue
        if cur and " " in s.strip() and not _NOT_MESSAGE.search(s) and re.search(r"[A-Za-z]{3}", s):
            out.setdefault(cur, []).append(s)
    return out


def _fmt_braces(s):
    """A libfmt format ('{}', '{:x}') as a printf one; a literal '%' doubled."""
    return re.sub(r"\{[^{}]{0,20}\}", "%s", s.replace("%", "%%"))


# ---------------------------------------------------------------- C++ source statements

# (fn: c10d/Utils.hpp's assert helpers report through the caller's invalidArgument, `fn("..." + x)`)
_CPP_CALL = re.compile(r"\b(C10_THROW_ERROR|C10_BUILD_ERROR|TORCH_CHECK_WITH|TORCH_CHECK|c10::str|LOG\((?:ERROR|WARNING)\)"
                       r"|TORCH_WARN|fn)\s*(\(|<<)")


def _cpp_message(parts):
    """String literals verbatim (adjacent ones joined), anything else %s."""
    fmt = []
    for a in parts:
        a = a.strip()
        lits = re.findall(r'"((?:[^"\\]|\\.)*)"', a)
        if lits and re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*"\s*)+', a):
            fmt.append("".join(lits).replace("%", "%%").replace('\\"', '"').replace("\\n", " "))
        elif a:
            fmt.append("%s")
    return "".join(fmt)


# the usercode statements' other forms: `oss << parts;` (DataLoader.cpp), `const char* NAME = "..." "...";`
# (saved_variable.cpp's ERR_BACKWARD_TWICE), SIGNAL_HANDLER(SIG, name, "message") (DataLoader.cpp) and
# CUDA_KERNEL_ASSERT(cond), which prints "Assertion `cond` failed." (c10/macros/Macros.h)
_USER_STREAM = re.compile(r"\b(?:oss|ss|message)\s*<<")
_USER_CONST = re.compile(r'\bconst char\s*\*\s*\w+\s*=((?:\s*"(?:[^"\\]|\\.)*")+)\s*;')
_USER_MACRO = re.compile(r"\b(SIGNAL_HANDLER|CUDA_KERNEL_ASSERT)\s*\(")


def user_cpp_sites(src):
    """(level, format) of each message of a usercode C++ block: cpp_sites' forms and the four above."""
    for _line, level, fmt in cpp_sites(src):
        yield level, fmt
    for m in _USER_STREAM.finditer(src):
        fmt = " ".join(_cpp_message(re.split(r"<<", src[m.end():src.find(";", m.end())])).split())
        if fmt and fmt != "%s":
            yield "raise", fmt
    for m in _USER_CONST.finditer(src):
        yield "raise", " ".join(_cpp_message([m.group(1)]).split())
    for m in _USER_MACRO.finditer(src):
        args = knowgen.call_args(src, m.end()) or []
        if m.group(1) == "SIGNAL_HANDLER" and len(args) == 3:
            yield "error", " ".join(_cpp_message(args[2:]).split())
        elif m.group(1) == "CUDA_KERNEL_ASSERT" and len(args) == 1:
            yield "raise", "Assertion `%s` failed." % " ".join(args[0].split()).replace("%", "%%")


def cpp_sites(src):
    """(line, level, format) of each message of a C++ statement block (C10_THROW_ERROR(Type, msg),
    TORCH_CHECK(cond, parts...), c10::str(parts...), LOG(ERROR) << parts)."""
    for m in _CPP_CALL.finditer(src):
        name, line = m.group(1), src.count("\n", 0, m.start()) + 1
        if m.group(2) == "<<":
            end = src.find(";", m.end())
            parts = re.split(r"<<", src[m.end():end])
            fmt, level = _cpp_message(parts), "error" if "ERROR" in name else "warning"
        else:
            args = knowgen.call_args(src, m.end()) or []
            if name in ("C10_THROW_ERROR", "C10_BUILD_ERROR"):
                if len(args) < 2 or args[1].startswith("c10::str"):  # the c10::str(...) is its own site
                    continue
                fmt, level = _cpp_message(re.split(r"\s\+\s", args[1])), "raise"
            elif name == "TORCH_CHECK_WITH":
                fmt, level = _cpp_message(args[2:]), "raise"
            elif name == "TORCH_CHECK":
                fmt, level = _cpp_message(args[1:]), "raise"
            elif name == "TORCH_WARN":
                fmt, level = _cpp_message(args), "warning"
            elif name == "fn":
                if len(args) != 1:
                    continue
                fmt, level = _cpp_message(re.split(r"\s\+\s", args[0])), "raise"
            else:
                fmt, level = _cpp_message(args), "raise"
        fmt = " ".join(fmt.split())
        if fmt and fmt != "%s":
            yield line, level, fmt


# ---------------------------------------------------------------- build


def _site_id(where, fmt):
    slug = re.sub(r"[^a-z0-9]+", "_", re.sub(r"%[a-z]", "", fmt.lower()))[:40].strip("_")
    base = re.sub(r"[^a-z0-9]+", "_", where.lower().replace("libtorch_cpu.so near ", "").replace("torch/csrc/distributed/c10d/", "c10d/")
                  .replace("torch/distributed/", "")).strip("_")
    return "torch.%s.%s" % (base, slug)


# A message of few words ('Socket Timeout', 'Invalid state!', 'Unknown option', '%s is not available.')
# is any program's line alone ('flash-attn is not available.' was torch.distributed_usage): its
# matcher needs what torch prints before it - the exception's type ('DistStoreError: ', Python's
# traceback line, TORCH_CHECK's 'RuntimeError: '), c10d's '[c10d] ' log tag, glog's '[E1125 ...
# file.cpp:N] ' or the Python logger's 'ERROR:torch.distributed...:'.
CONTEXT_BELOW = 16
_CONTEXT = (r"(?:\b\w{0,60}(?:Error|Exception|Timeout)\b: |\[c10d[^\]\n]{0,20}\] |"
            r"\b[EWF]\d{4} \d\d:\d\d:\d\d[^\]\n]{0,120}\] |\bERROR:[\w.]{1,80}:)[^\n]{0,200}?")


def build(files, version):
    sites, seen, ids = [], set(), set()

    def add(where, level, fmt, src, user=False):
        if fmt in seen:
            return
        seen.add(fmt)
        rx, literal = knowgen.printf_to_regex(fmt)
        site = {"id": knowgen.unique_id(_site_id(where, fmt), ids), "where": where, "source": src,
                "level": level, "text": fmt}
        if not knowgen.unanchored(site, rx, literal, 12):
            rule, family = knowgen.assign(USER_RULES if user else RULES, site, {"where": where, "text": fmt,
                                                                                "level": level})
            if family is None and level == "warning":
                rule = "a warning, not an error"
            if len("".join(literal.split())) < CONTEXT_BELOW:
                rx = _CONTEXT + rx
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, USER_FIX if user else SITE_FIX, fmt)
        sites.append(site)

    for path, text in files:
        if path.startswith("userstrings:"):
            for s in text.splitlines():
                if s.strip():
                    add(path[len("userstrings:"):], "string", " ".join(_fmt_braces(s).split()),
                        path.rsplit("/", 1)[-1], user=True)
        elif path.startswith("usercode:") and path.endswith(".py"):
            for level, line, _last, fmt in _py_sites(path, text, user=True):
                if USER_SELECT_PY.search(fmt):
                    add("%s:%d" % (path[len("usercode:"):], line), level, fmt, "python", user=True)
        elif path.startswith("usercode:"):
            for level, fmt in user_cpp_sites(text):
                add(path[len("usercode:"):], level, fmt, "source", user=True)
        elif path.startswith("strings:"):
            for s in text.splitlines():
                if s.strip():
                    add(path[len("strings:"):], "string", " ".join(_fmt_braces(s).split()), "libtorch_cpu.so")
        elif path.startswith("older:") and path.endswith(".py"):
            # an older release's statement: '=== older:2.5.1:torch/distributed/distributed_c10d.py @N'
            release, rel = path[len("older:"):].split(":", 1)
            for level, line, _last, fmt in _py_sites(rel, text):
                if level == "raise":
                    add("%s:%d (torch %s)" % (rel, line, release), level, fmt, "python")
        elif path.endswith(".py"):
            for level, line, _last, fmt in _py_sites(path, text):
                add("%s:%d" % (path, line), level, fmt, "python")
        else:
            for _line, level, fmt in cpp_sites(text):  # copied statements: the file, not a line
                add(path, level, fmt, "source")
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/): torch/distributed python modules and "
                                     "the c10d strings of torch/lib/libtorch_cpu.so; pytorch/pytorch "
                                     "ProcessGroupNCCL.cpp, TCPStore.cpp (tools/data/torch_cpp_source.txt)", version, GENERATOR,
                                     "families from the RULES table of the generator; a libtorch_cpu.so string is "
                                     "attributed to the c10d file whose path string precedes it"),
            "sites": sites}


def older_blocks(release):
    """The slice blocks of OLDER_FILES in torch ``release``'s Linux x86_64 wheel on PyPI (one look-up of
    PyPI's JSON API, then range requests for those members only: gen_torch_api.zip_members), and the
    wheel's name and sha256 for the slice's version line."""
    import json

    import gen_torch_api as api

    meta = json.loads(api._get("https://pypi.org/pypi/torch/json"))
    wheels = sorted((f for f in meta["releases"].get(release, []) if f["filename"].endswith(".whl") and
                     "linux" in f["filename"] and "x86_64" in f["filename"] and not f.get("yanked")),
                    key=lambda f: f["filename"])
    if not wheels:
        raise SystemExit("torch %s: no Linux x86_64 wheel on PyPI" % release)
    w = wheels[0]
    got = api.zip_members(api._file_url(w["url"]), w["size"], lambda n: n in OLDER_FILES + OLDER_MAYBE)
    out = []
    for rel in OLDER_FILES + [m for m in OLDER_MAYBE if m in got]:
        if rel not in got:
            raise SystemExit("torch %s: %s not in %s" % (release, rel, w["filename"]))
        for block in _py_blocks(rel, got[rel].decode("utf-8", "replace")):
            out.append(block.replace("=== " + rel, "=== older:%s:%s" % (release, rel), 1))
    return out, "%s (sha256 %s)" % (w["filename"], w["digests"]["sha256"][:16])


def slice_from_wheel(torch_dir, older=()):
    """The slice text of a torch package folder (python statements, c10d strings) plus the
    recorded ProcessGroupNCCL statements (and the raise statements of OLDER_FILES in each
    ``older`` release)."""
    vfile = os.path.join(torch_dir, "version.py")
    ver = {}
    with open(vfile) as f:
        exec(compile(f.read(), vfile, "exec"), ver)  # torch/version.py: two assignments, no imports of torch
    olds = [older_blocks(r) for r in older]
    out = ["#! version torch %s (git %s)%s; C++ statements: tools/data/torch_cpp_source.txt\n"
           % (ver["__version__"], ver["git_version"],
              "".join("; older: torch %s, %s (and FSDP's flat parameter and init, DTensor's dispatch) of %s"
                      % (r, " and ".join(OLDER_FILES), name)
                      for r, (_b, name) in zip(older, olds))),
           "# generated by tools/gen_torch_messages.py --wheel from the torch wheel (BSD-3-Clause): each raise/logger "
           "statement of torch/distributed at its line, and the c10d message strings of torch/lib/libtorch_cpu.so\n"]
    paths = []
    for d in PY_DIRS:
        for root, dirs, names in os.walk(os.path.join(torch_dir, d)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    paths.append(os.path.relpath(os.path.join(root, n), os.path.dirname(torch_dir)))
    paths += ["torch/" + p for p in PY_FILES]
    for rel in paths:
        if PY_SKIP.search("/" + rel):
            continue
        with open(os.path.join(os.path.dirname(torch_dir), rel)) as f:
            out.extend(_py_blocks(rel, f.read()))
    for rel in PY_EXTRA:
        with open(os.path.join(torch_dir, rel)) as f:
            out.extend(_py_blocks("torch/" + rel, f.read()))
    for path, strings in sorted(c10d_strings(so_strings(os.path.join(torch_dir, "lib", "libtorch_cpu.so"))).items()):
        out.append("=== strings:%s\n%s\n" % (path, "\n".join(strings)))
    with open(CPP) as f:
        out.append("".join(line for line in f if not line.startswith("#")))
    # usercode: the selected python statements, library strings and the recorded CUDA-only statements
    for rel in USER_PY:
        with open(os.path.join(torch_dir, rel)) as f:
            out.extend(_py_blocks("torch/" + rel, f.read(), user=True))
    for lib in USER_LIBS:
        picked = sorted({s.strip() for s in so_strings(os.path.join(torch_dir, lib)) if USER_SELECT.search(s.strip())})
        out.append("=== userstrings:torch/%s\n%s\n" % (lib, "\n".join(picked)))
    with open(USER_CPP) as f:
        out.append("".join(line for line in f if not line.startswith("#")))
    for blocks, _name in olds:
        out.extend(blocks)
    return "".join(out)


def main(argv):
    a = knowgen.arguments(__doc__, argv, "wheel", source_opts={
        "help": "the torch package folder of an unpacked wheel (holds version.py, lib/)"},
        extra=[("--older", {"action": "append", "default": [],
                            "help": "with --wheel: an older torch release whose OLDER_FILES' raise statements "
                                    "are read too (from PyPI; repeatable)"})])
    path = a.slice
    if a.wheel:
        with open(SLICE, "w") as f:
            f.write(slice_from_wheel(a.wheel, a.older))
        path = SLICE
    files, version = knowgen.read_slice(path)
    doc = build(files, version)
    knowgen.stale_fixes(a, "SITE_FIX", SITE_FIX, doc["sites"], "release")
    knowgen.stale_fixes(a, "USER_FIX", USER_FIX, doc["sites"], "release")
    return knowgen.emit("torch_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
