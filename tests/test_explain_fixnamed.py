"""When the family is right, the answer names the fix the text's own lines point at (issue 18, task "fix-named").

The causes are knowledge (mpi.toml, rendezvous.toml, families.toml, usercode.toml, deepspeed.toml, structural.toml),
each with the line that points at it; famfix.py fills the values the text printed (TCPStore's ping bytes, an enum
value, a shared library's name). The lines are made from the format strings of the programs that print them (cited
per test), never a held-out set's text.
"""

import re

from explainhelp import root_of

from gpudoctor import explain
from gpudoctor.explain import famfix


def _root(text):
    return root_of(explain.explain_text(text, explain.load_knowledge(), source="t"))


def _first(root):
    c = root["causes"][0]
    return c["text"] + "\n" + "\n".join(c["fix"])


# Open MPI orte/mca/plm/base/help-plm-base.txt [no-local-orted]-style daemon failure; the ssh line before it is
# OpenSSH's sshconnect.c ("ssh: connect to host %s port %s: %s") / "Host key verification failed."
_ORTE = ("--------------------------------------------------------------------------\n"
         "ORTE was unable to reliably start one or more daemons.\n"
         "This usually is caused by:\n"
         "--------------------------------------------------------------------------\n")


def test_mpirun_daemon_failure_names_what_ssh_said():
    r = _root("ssh: connect to host node2 port 22: Connection refused\n" + _ORTE)
    assert r["id"] == "mpi.orted" and "sshd" in _first(r) and "plm_rsh_args" in _first(r)
    r = _root("Host key verification failed.\n" + _ORTE)
    assert r["id"] == "mpi.orted" and "ssh-keyscan" in _first(r)
    r = _root("Permission denied (publickey,password).\n" + _ORTE)
    assert "ssh-copy-id" in _first(r)
    # no ssh line: the commonest cause leads and no ssh cause is offered
    r = _root(_ORTE)
    assert "--prefix" in _first(r) and not any("ssh-keyscan" in " ".join(c["fix"]) for c in r["causes"])


# torch/csrc/distributed/c10d/TCPStore.cpp TCPStore::ping(): "Ping failed, invalid value returned from server.
# Expected: {}, Got: {}" (the pid it sent, the uint32 it read back)
_PING = ("torch.distributed.DistNetworkError: Ping failed, invalid value returned from server. Expected: 8600, Got: %d\n"
         "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
         "failed. See inner exception for details.\n")


def test_tcpstore_ping_mismatch_is_another_program_on_the_port():
    r = _root(_PING % int.from_bytes(b"SSH-", "little"))
    assert r["id"] == "rendezvous.connect"
    assert "SSH-" in r["causes"][0]["text"] and "free port" in _first(r)
    r = _root(_PING % 1)  # bytes that are not text: the words
    assert "bytes that are not its own process id" in r["causes"][0]["text"] and "free port" in _first(r)


def test_multinomial_assert_leads_with_sampling_not_labels():
    # aten/src/ATen/native/Distributions.cpp (multinomial): _assert_async(..., "probability tensor contains either
    # `inf`, `nan` or element < 0"); CUDA's assert line format: file:line: kernel: block/thread: Assertion `...` failed.
    r = _root("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], "
              "thread: [0,0,0] Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.\n"
              "RuntimeError: CUDA error: device-side assert triggered\n")
    assert r["id"] == "cuda.device_assert" and "temperature" in _first(r) and "argmax" in _first(r)
    # a label out of range (aten ClassNLLCriterion's assert): labels lead, no sampling cause
    r = _root("Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion "
              "`t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered\n")
    assert "num_classes" in _first(r) and not any("multinomial" in c["text"] for c in r["causes"])


_TB = 'Traceback (most recent call last):\n  File "/work/train.py", line 30, in <module>\n    %s\n%s'


def test_two_devices_inside_the_optimizer_step_is_its_state():
    # torch/optim/adam.py frames; ATen's "Expected all tensors to be on the same device, but found at least two
    # devices, cuda:0 and cpu!"
    step = ('  File "/venv/lib/python3.12/site-packages/torch/optim/adam.py", line 705, in _multi_tensor_adam\n'
            '    torch._foreach_lerp_(\n')
    err = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
    r = _root(_TB % ("optimizer.step()", step + err))
    assert r["id"] == "usercode.tensors_on_two_devices"
    assert "load_state_dict" in _first(r) and "exp_avg" in _first(r)
    r = _root(_TB % ("out = model(x)", err))  # no optimizer frame: the batch left on the CPU leads
    assert "batch.to(device)" in _first(r) and not any("exp_avg" in c["text"] for c in r["causes"])


def test_deepspeed_builder_arch_suffix_names_torch_cuda_arch_list():
    # deepspeedai/DeepSpeed op_builder/builder.py compute_capability_args: int(part.split('+')[0]) of each entry
    r = _root(_TB % ("engine = deepspeed.initialize(model=model)",
                     '  File "/venv/site-packages/deepspeed/ops/op_builder/builder.py", line 710, in '
                     'compute_capability_args\n    ccs = sorted(ccs, key=lambda cc: tuple(int(part.split(\'+\')[0]) '
                     'for part in cc.split(\'.\')))\n'
                     "ValueError: invalid literal for int() with base 10: '0a'\n"))
    assert r["id"] == "deepspeed.ops" and "TORCH_CUDA_ARCH_LIST" in _first(r)


def test_triton_build_missing_compiler_names_cc():
    # triton/runtime/build.py _build: cc = os.environ.get("CC") ... subprocess.check_call([cc, ...])
    r = _root(_TB % ("loss = cmodel(x)",
                     '  File "/venv/site-packages/triton/runtime/build.py", line 48, in _build\n'
                     '    subprocess.check_call(cc_cmd, stdout=subprocess.DEVNULL)\n'
                     "FileNotFoundError: [Errno 2] No such file or directory: '/opt/rh/gcc-toolset-12/root/usr/bin/gcc'\n"))
    # triton.build (knowledge/triton.toml, serving13: the launcher's build) is a kind of triton.library_error
    assert r["id"] == "triton.build" and r["family"] == "triton.library_error" and "unset CC" in _first(r)


def test_file_init_method_store_timeout_names_a_shared_file():
    # torch docs, shared file-system initialization; DistStoreError format of TCPStore/FileStore waits
    r = _root("init_method=file:///tmp/run/ddp_init\n"
              "torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cuda//0\n")
    assert r["id"] == "rendezvous.store_timeout"
    assert any("shared filesystem" in " ".join(c["fix"]) for c in r["causes"])
    r = _root("torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cuda//0\n")
    assert not any("file://" in c["text"] for c in r["causes"])


def test_exception_values_lead_the_fix():
    # Python Lib/enum.py: "%r is not a valid %s"; glibc dlerror: "<soname>: cannot open shared object file: ..."
    f = {"id": "launcher.accelerate_error", "role": "root", "confidence": "structural", "notes": [],
         "matches": [{"text": "ValueError: 'MULTI_GPUS' is not a valid DistributedType"}], "causes": [{"fix": ["b"]}]}
    famfix.finish([f], "N")
    assert f["causes"][0]["fix"][0].startswith("the message says MULTI_GPUS is not one of DistributedType's values")
    assert f["causes"][0]["fix"][1] == "b"
    f["matches"] = [{"text": "ImportError: libffi.so.8: cannot open shared object file: No such file or directory"}]
    f["causes"] = [{"fix": ["open a.py (line 3)", "b"]}]
    famfix.finish([f], "N")
    assert f["causes"][0]["fix"][0] == "open a.py (line 3)" and "the loader found no libffi.so.8" in f["causes"][0]["fix"][1]
    f["matches"], f["causes"] = [{"text": "ValueError: 3 is not valid"}], [{"fix": ["b"]}]
    famfix.finish([f], "N")
    assert f["causes"][0]["fix"] == ["b"]


def test_new_patterns_are_linear_on_long_lines():
    line = "'" + "a" * 200000 + " is not a valid " + "lib" * 50000 + ".so" * 30000 + "Got: 1" * 30000
    for rx in (famfix._ENUM, famfix._SONAME, famfix._PING):  # their CPU time (bound 1 s): bench/cpu_bounds.py
        assert rx.search(line[:famfix.MAX_LINE]) is None and rx.search(line) is None, rx.pattern
    assert famfix._ping4("99999999999") is None and re.search(r"SSH-", famfix._ping4(str(int.from_bytes(b"SSH-", "little"))))


def test_container_and_launcher_lines_point_at_their_cause():
    # NVIDIA/enroot conf/hooks/98-nvidia.sh skips the GPUs without NVIDIA_VISIBLE_DEVICES; torch's _lazy_init message
    r = _root("$ srun --gpus=2 --container-image=myimage python train.py\nRuntimeError: Found no NVIDIA driver on your "
              "system. Please check that you have an NVIDIA GPU and installed a driver from "
              "http://www.nvidia.com/Download/index.aspx\n")
    assert r["id"] == "gpu.driver_not_loaded" and "NVIDIA_VISIBLE_DEVICES=all" in _first(r)
    r = _root("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
              "installed a driver from http://www.nvidia.com/Download/index.aspx\n")
    assert not any("NVIDIA_VISIBLE_DEVICES" in " ".join(c["fix"]) for c in r["causes"])
    # NVIDIA/pyxis: slurm_error("pyxis: ...") lines of mksquashfs' output under runtime_path
    r = _root("slurmstepd: error: pyxis:     Write failed because No space left on device\n"
              "slurmstepd: error: pyxis:     Creating 4.0 filesystem on /run/pyxis/1000/7.0.squashfs, block size 131072.\n")
    assert r["id"] == "errno.enospc" and "runtime_path" in _first(r)
    # horovod/runner/common/util/network.py raises NoValidAddressesFound (its message built by a format call): a
    # traceback cut there still ends in the class's name, which says which failure it is
    r = _root('  File "/opt/conda/lib/python3.6/site-packages/horovod/run/common/util/network.py", line 172, in __init__\n'
              "    'Linux.'.format(service_name=service_name, addresses=addresses))\n"
              'horovod.run.common.util.network.NoValidAddressesFound\n')
    assert r["id"] == "horovod.network_interface" and "--network-interfaces" in _first(r)


def test_recv_timeout_in_a_ranks_own_recv_is_unpaired_point_to_point():
    # gloo/transport/tcp/unbound_buffer.cc: "Timed out waiting %dms for recv operation to complete"
    frames = ('  File "/venv/site-packages/torch/distributed/distributed_c10d.py", line 2662, in recv\n'
              '    pg.recv([tensor], src, tag).wait()\n')
    err = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms for recv operation to complete\n"
    r = _root(_TB % ("dist.recv(halo, src=left)", frames + err))
    assert r["id"] == "gloo.timeout" and "dist.irecv" in _first(r)
    r = _root(_TB % ("dist.all_reduce(t)", err))  # a collective's recv: no point-to-point cause
    assert not any("point-to-point" in c["text"] for c in r["causes"])


def test_mixed_dtensor_and_pickled_lambda_name_their_change():
    # torch/distributed/tensor/_dispatch.py's mixed-types refusal, raised in a Linear's forward
    r = _root(_TB % ("out = model.layers[0](x)",
                     '  File "/venv/site-packages/torch/distributed/tensor/_dispatch.py", line 480, in _try_replicate_spec\n'
                     '    raise RuntimeError(\nRuntimeError: aten.addmm.default got mixed torch.Tensor and DTensor, need to '
                     'convert all torch.Tensor to DTensor before calling distributed operators!\n'))
    assert "unshard" in _first(r) and "fully_shard(child)" in _first(r)
    # Modules/_pickle.c save_global: "Can't pickle %R: attribute lookup %S on %S failed", from broadcast_object_list
    r = _root(_TB % ("dist.broadcast_object_list(cfg, src=0)",
                     '  File "/venv/site-packages/torch/distributed/distributed_c10d.py", line 3259, in _object_to_tensor\n'
                     '    _pickler(f).dump(obj)\n_pickle.PicklingError: Can\'t pickle <function <lambda> at 0x7f1a9abdcc20>: '
                     'attribute lookup <lambda> on __main__ failed\n'))
    assert any("top level of a module" in x for x in r["causes"][0]["fix"])


def test_a_cuda_text_that_begins_a_longer_one_gives_way_to_it():
    # cudaGetErrorString: 800 "operation not permitted", 900 "operation not permitted when stream is capturing"
    # (tools/gen_cuda_errors.py: the short text's matcher does not match where a longer code's text follows)
    r = _root("torch.AcceleratorError: CUDA error: operation not permitted when stream is capturing\n")
    assert r["id"] == "cuda.api_error" and ".item()" in _first(r) and "IPC" not in r["causes"][0]["text"]
    r = _root("RuntimeError: CUDA error: operation not permitted\n")
    assert "IPC" in r["causes"][0]["text"]


def test_cuinit_unknown_mpirun_unknown_option_and_accelerate_duplicate_gpu():
    # XLA cuda_platform.cc: "failed call to cuInit: %s" with the CUresult's name and string
    r = _root("E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_UNKNOWN: "
              "unknown error\n")
    assert r["id"] == "libload.cuinit" and "modprobe nvidia_uvm" in _first(r)
    r = _root("E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: "
              "no CUDA-capable device is detected\n")
    assert not any("nvidia_uvm" in c["text"] for c in r["causes"])
    # Open MPI opal/util/cmd_line.c: "%s: Error: unknown option \"%s\"" then "Type '%s --help' for usage."
    r = _root("$ mpirun -hosts a,b -np 2 python main.py\nmpirun: Error: unknown option \"-o\"\n"
              "Type 'mpirun --help' for usage.\n")
    assert r["id"] == "mpi.implementation_mismatch" and "--host h1,h2" in _first(r)
    # NCCL src/init.cc "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" under accelerate's frames
    # (state.py pins local_process_index % device_count())
    dup = "[rank0]: torch.distributed.DistBackendError: NCCL error\n[rank0]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60\n"
    r = _root('[rank0]:   File "/venv/site-packages/accelerate/accelerator.py", line 1558, in prepare\n' + dup)
    assert r["id"] == "nccl.duplicate_gpu" and "num_processes" in _first(r)
    r = _root(dup)
    assert "set_device" in _first(r)


def test_ddp_buffers_and_single_gpu_distributed_code():
    # autograd's version check (torch/csrc/autograd/saved_variable.cpp) under DDP with a BatchNorm layer
    inplace = ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
               "operation: [torch.cuda.FloatTensor [64]] is at version 3; expected version 2 instead.\n")
    r = _root("model = DistributedDataParallel(model, device_ids=[rank])\n    x = self.bn1(x)\n" + inplace)
    assert r["id"] == "usercode.inplace_modified" and "broadcast_buffers=False" in _first(r)
    r = _root(inplace)  # no DDP: no buffer cause
    assert not any("broadcast_buffers" in " ".join(c["fix"]) for c in r["causes"])
    # torch/distributed/distributed_c10d.py: "Default process group has not been initialized, please make sure to call
    # init_process_group." from a SyncBatchNorm in a one-GPU run
    pg = "RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.\n"
    r = _root('  File "/venv/site-packages/torch/nn/modules/batchnorm.py", line 760, in forward\n'
              "    raise ValueError('SyncBatchNorm expected input tensor to be on GPU')\n" + pg)
    assert r["id"] == "torch.pg_not_initialized" and "world_size=1" in _first(r) and "nn.BatchNorm2d" in _first(r)
    r = _root(pg)
    assert "torchrun --nproc_per_node N" in _first(r)


def test_slurm_credential_data_mismatch_and_a_missing_program():
    # SchedMD/slurm cred_munge.c "Credential data mismatch", logged by slurm_cred.c "Credential signature check: %s"
    r = _root("srun: error: Application launch failed: Invalid job credential\n"
              "error: Credential signature check: Credential data mismatch\n")
    assert r["id"] == "slurm.auth" and any("same Slurm version" in " ".join(c["fix"]) for c in r["causes"])
    r = _root("srun: error: Application launch failed: Invalid job credential\n")
    assert not any("Slurm version" in " ".join(c["fix"]) for c in r["causes"])
    # subprocess.Popen._execute_child: FileNotFoundError with the program's name
    f = {"id": "launcher.deepspeed_error", "role": "root", "confidence": "structural", "notes": [],
         "matches": [{"text": "FileNotFoundError: [Errno 2] No such file or directory: 'pdsh'"}], "causes": [{"fix": ["b"]}]}
    famfix.finish([f], "N")
    assert f["causes"][0]["fix"][0].startswith("pdsh is a name without a path") and "which pdsh" in f["causes"][0]["fix"][0]
    f["matches"], f["causes"] = [{"text": "FileNotFoundError: [Errno 2] No such file or directory: '/data/x.csv'"}], [{"fix": ["b"]}]
    famfix.finish([f], "N")
    assert f["causes"][0]["fix"] == ["b"]


def test_sharded_state_dict_compiled_ddp_and_trainer_compute_loss():
    # torch/nn/modules/module.py _load_from_state_dict's copy error, with DTensor's mixed-types refusal inside
    r = _root('RuntimeError: Error(s) in loading state_dict for Sequential:\n\tWhile copying the parameter named '
              '"0.weight", whose dimensions in the model are torch.Size([128, 64]) and whose dimensions in the checkpoint '
              "are torch.Size([128, 64]), an exception occurred : ('aten.copy_.default got mixed torch.Tensor and "
              "DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!',).\n")
    assert r["id"] == "usercode.state_dict_mismatch" and "full_state_dict=True" in _first(r)
    # torch._dynamo.exc.Unsupported re-raised by eval_frame.py's compile_wrapper, with Dynamo's "from user code:" frames
    # (torch/_dynamo/exc.py) in DDP's forward (torch/nn/parallel/distributed.py)
    r = _root(_TB % ("loss = ddp_model(x).sum()",
                     '  File "/venv/site-packages/torch/_dynamo/eval_frame.py", line 1034, in compile_wrapper\n'
                     '    raise e.with_traceback(None) from e.__cause__  # User compiler error\n'
                     'torch._dynamo.exc.Unsupported: Unsupported method call\n\nfrom user code:\n'
                     '   File "/venv/site-packages/torch/nn/parallel/distributed.py", line 1566, in _pre_forward\n'
                     '    self.logger.set_runtime_stats_and_log()\n'))
    assert any("compile the inner module before wrapping" in x for x in r["causes"][0]["fix"])
    r = _root(_TB % ("loss = model(x).sum()", 'torch._dynamo.exc.Unsupported: Unsupported method call\n'))
    assert not any("DistributedDataParallel" in c["text"] for c in r["causes"])
    # transformers/trainer.py training_step: loss.mean() on a tuple from an overridden compute_loss
    r = _root(_TB % ("trainer.train()",
                     '  File "/venv/site-packages/transformers/trainer.py", line 3791, in training_step\n'
                     '    loss = loss.mean()  # mean() to average on multi-gpu parallel training\n'
                     "AttributeError: 'tuple' object has no attribute 'mean'\n"))
    assert r["id"] == "transformers.library_error" and "if return_outputs else loss" in _first(r)


def test_a_device_index_of_none_is_named():
    # torch/_utils.py _get_device_index's refusal, raised from torch.cuda.set_device(None)
    r = _root(_TB % ("torch.cuda.set_device(gpu)",
                     '  File "/venv/site-packages/torch/_utils.py", line 630, in _get_device_index\n    raise ValueError(\n'
                     "ValueError: Expected a torch.device with a specified index or an integer, but got:None\n"))
    assert any(x.startswith("the device passed is None") for x in r["causes"][0]["fix"])
    r = _root(_TB % ("torch.cuda.set_device(gpu)",
                     "ValueError: Expected a torch.device with a specified index or an integer, but got:cuda\n"))
    assert not any(x.startswith("the device passed is None") for x in r["causes"][0]["fix"])


def test_pyxis_import_lines_do_not_make_a_shm_enospc_pyxis():
    # a training job inside a pyxis container (pyxis' import line) whose DataLoader fills /dev/shm
    # (torch/multiprocessing: "unable to write to file </torch_...>: No space left on device (28)")
    r = _root("pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.01-py3\n"
              "RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)\n")
    assert not any("runtime_path" in " ".join(c["fix"]) for c in r["causes"])
    # a checkpoint write that fills the disk (errno.enospc's own answer) in the same container
    r = _root("pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.01-py3\n"
              "OSError: [Errno 28] No space left on device: '/scratch/ckpt/step_100.pt'\n")
    assert r["id"] == "errno.enospc" and not any("runtime_path" in " ".join(c["fix"]) for c in r["causes"])
