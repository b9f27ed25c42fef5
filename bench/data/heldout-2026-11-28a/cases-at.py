"""Build /tmp/heldout-at/explain_heldout_at.jsonl (eval-at). Texts copied verbatim from the stored thread excerpts."""
import json
C = []
def add(**k):
    k.setdefault("family_alternatives", [])
    C.append(k)

add(id="at-horovod-147-ib-recv-reset",
    url="https://github.com/horovod/horovod/issues/147",
    source_repo="horovod/horovod", category="network",
    text="""mpirun --allow-run-as-root  -np 4 -H localhost:4 -bind-to none -map-by slot -x NCCL_DEBUG=INFO -x LD_LIBRARY_PATH -mca pml ob1 -mca btl_openib_receive_queues P,128,32:P,2048,32:P,12288,32:P,65536,32 python scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py --model resnet101 --batch_size 64 --variable_update horovod

node1:54573:54696 [1] include/socket.h:194 WARN Call to recv failed : Connection reset by peer
node1:54573:54696 [1] INFO transport/net_ib.cu:537 -> 2
node1:54573:54696 [1] INFO transport/net_ib.cu:610 -> 2
node1:54573:54696 [1] INFO include/net.h:30 -> 2 [Net]
node1:54573:54696 [1] INFO include/net.h:38 -> 2 [Net]
node1:54573:54696 [1] INFO bootstrap.cu:169 -> 2
node1:54573:54696 [1] INFO init.cu:400 -> 2
node1:54573:54696 [1] INFO init.cu:517 -> 2
""",
    family="nccl.net_ib", family_alternatives=["nccl_ib_disable", "rdma.completion_error"],
    fix="NCCL's InfiniBand transport (net_ib) fails on this machine's broken IB setup; disable it with NCCL_IB_DISABLE=1 (the reporter uninstalled the IB driver, which the maintainer noted has the same effect) or repair the InfiniBand driver/stack.",
    fix_keywords=["NCCL_IB_DISABLE", "infiniband"],
    healthy=False, group="framework-horovod",
    label_note="Reporter confirmed 'Uninstall the IB driver and the problem is solved'; maintainer (alsrgv) replied that removing the driver has the same effect as NCCL_IB_DISABLE and the IB fault should be fixed for performance. Medium: root cause of the IB fault itself not identified.")

add(id="at-openllama-47-wandb-blocks-barrier",
    url="https://github.com/s-JoL/Open-Llama/issues/47",
    source_repo="s-JoL/Open-Llama", category="user-code",
    text="""accelerate launch --config_file configs/accelerate_configs/ds_stage3_offload.yaml train_lm.py --train_config configs/pretrain_config.yaml --model_config configs/model_configs/7B.json

I0510 07:28:04.417845 139863945226048 distributed_c10d.py:337] Waiting in store based barrier to initialize process group for rank: 2, key: store_based_barrier_key:2 (world_size=8, worker_count=7, timeout=0:30:00)
I0510 07:28:04.428285 140051304576832 distributed_c10d.py:337] Waiting in store based barrier to initialize process group for rank: 7, key: store_based_barrier_key:2 (world_size=8, worker_count=7, timeout=0:30:00)
""",
    family="rendezvous.store_barrier", family_alternatives=["rendezvous.init_hang", "code.exception"],
    fix="One rank never reaches the second process-group barrier because it is blocked in wandb (initialisation/login) on the main process; disable wandb (export WANDB_DISABLED=true or WANDB_MODE=disabled/offline) or log in so it does not block, then all 8 ranks join.",
    fix_keywords=["wandb", "disable"],
    healthy=False, group="framework-accelerate-deepspeed",
    label_note="Reporter confirmed: 'it was a wandb problem; after disabling it with export WANDB_DISABLED=true training continued'. Medium-strong (reporter confirmation; maintainer had only pointed at generic DDP hangs).")

add(id="at-instructlab-678-hybrid-shard-group-size",
    url="https://github.com/instructlab/training/issues/678",
    source_repo="instructlab/training", category="config",
    text="""ValueError: The arg 'group_size' (8) must not exceed the world size (2)

File ".../torch/distributed/fsdp/fully_sharded_data_parallel.py", line 439, in __init__
    _init_process_group_state(
File ".../torch/distributed/fsdp/_init_utils.py", line 113, in _init_process_group_state
    state = _init_process_group_state_for_hybrid_shard(
File ".../torch/distributed/fsdp/_init_utils.py", line 160, in _init_process_group_state_for_hybrid_shard
    intra_node_group, inter_node_group = _init_intra_and_inter_node_groups(
File ".../torch/distributed/fsdp/_init_utils.py", line 266, in _init_intra_and_inter_node_groups
    _init_intra_node_process_group(num_devices_per_node),
File ".../torch/distributed/fsdp/_init_utils.py", line 211, in _init_intra_node_process_group
    intra_node_subgroup, _ = dist.new_subgroups(num_devices_per_node)
File ".../torch/distributed/distributed_c10d.py", line 5500, in new_subgroups
    raise ValueError(
ValueError: The arg 'group_size' (8) must not exceed the world size (2)
""",
    family="torch.distributed_usage", family_alternatives=["launcher.nproc_gpus", "torch.usage"],
    fix="FSDP HYBRID_SHARD without an explicit device_mesh/process groups sizes the intra-node shard group from torch.cuda.device_count() (8), but only 2 processes were launched (nproc_per_node=2); launch one process per visible GPU (or restrict CUDA_VISIBLE_DEVICES), pass an explicit device_mesh, or use FULL_SHARD (the merged fix falls back to FULL_SHARD).",
    fix_keywords=["FULL_SHARD", "device_mesh"],
    healthy=False, group="framework-fsdp",
    label_note="Maintainer-filed issue with cause section; fixed by merged PR instructlab/training#682 (fall back to FULL_SHARD when world_size < device_count), whose test shows the error gone. Strong. Only one line shape (ValueError) resembles a planted p30 case, but mechanism differs (FSDP auto group size).")

add(id="healthy-at-icefall-63-multinode-ddp",
    url="https://github.com/k2-fsa/icefall/pull/63",
    source_repo="k2-fsa/icefall", category="healthy",
    text="""2021-09-30 01:06:45,761 INFO [train.py:542] (5/6) Epoch 0, batch 0, batch avg ctc loss 5.2337, batch avg att loss 1.3110, batch avg loss 2.4878, total
 avg ctc loss: 5.2337, total avg att loss: 1.3110, total avg loss: 2.4878, batch size: 14
2021-09-30 01:06:45,766 INFO [train.py:542] (3/6) Epoch 0, batch 0, batch avg ctc loss 5.1945, batch avg att loss 1.2462, batch avg loss 2.4307, total
 avg ctc loss: 5.1945, total avg att loss: 1.2462, total avg loss: 2.4307, batch size: 14
2021-09-30 01:06:45,768 INFO [train.py:542] (4/6) Epoch 0, batch 0, batch avg ctc loss 5.1791, batch avg att loss 1.1169, batch avg loss 2.3356, total
 avg ctc loss: 5.1791, total avg att loss: 1.1169, total avg loss: 2.3356, batch size: 14
2021-09-30 01:06:45,775 INFO [distributed.py:607] (3/6) Reducer buckets have been rebuilt in this iteration.
2021-09-30 01:06:45,788 INFO [distributed.py:607] (4/6) Reducer buckets have been rebuilt in this iteration.
2021-09-30 01:06:45,800 INFO [distributed.py:607] (5/6) Reducer buckets have been rebuilt in this iteration.
2021-09-30 01:15:43,324 INFO [train.py:542] (5/6) Epoch 0, batch 10, batch avg ctc loss 5.1695, batch avg att loss 1.2584, batch avg loss 2.4317, tota
l avg ctc loss: 5.2067, total avg att loss: 1.1878, total avg loss: 2.3935, batch size: 18
""",
    family="healthy", fix="", fix_keywords=[],
    healthy=True, group="healthy",
    label_note="PR author (maintainer csukuangfj) posts this multi-node multi-GPU DDP log as the working run of the WIP multi-node support; ranks 3-5 of world 6 training, DDP reducer rebuilt normally. Medium-strong (working log by maintainer; the gap between batch 0 and 10 is the author's run, not flagged as a problem).")

add(id="healthy-at-rocm-ctk-75-multinode-pytorch-pass",
    url="https://github.com/ROCm/container-toolkit/pull/75",
    source_repo="ROCm/container-toolkit", category="healthy",
    text="""                                          CONSOLIDATED TEST SUMMARY                                           
==============================================================================================================
Job ID: 372
Timestamp: 2026-01-06 06:43:27
World Size: 16
Backend: nccl/rccl

Rank   Local  Hostname             Device   GPU Idx  Device Name               Backend      AllReduce  Broadcast  AllGather 
--------------------------------------------------------------------------------------------------------------
0      0      mi300x8-002          GPU      0        AMD Instinct MI300X VF    nccl/rccl    PASS       PASS       PASS      
1      1      mi300x8-002          GPU      1        AMD Instinct MI300X VF    nccl/rccl    PASS       PASS       PASS      
2      2      mi300x8-002          GPU      2        AMD Instinct MI300X VF    nccl/rccl    PASS       PASS       PASS      
""",
    family="healthy", fix="", fix_keywords=[],
    healthy=True, group="healthy",
    label_note="Posted by the PR author as the 'Pass log' of the new multi-node distributed PyTorch test (Slurm + enroot/pyxis, 16 ranks, all collectives PASS); PR merged. Strong that it is a healthy run; text is truncated after rank 2 where the stored excerpt cut off.")


add(id="at-accelerate-1606-test-script-multinode",
    url="https://github.com/huggingface/accelerate/issues/1606",
    source_repo="huggingface/accelerate", category="version-mismatch",
    text="""stdout: g0003: Device: cuda:1
stdout: g0003:
stdout: g0003: Mixed precision type: no
stdout: g0003: ds_config: {'train_batch_size': 'auto', 'train_micro_batch_size_per_gpu': 'auto', 'gradient_accumulation_steps': 1, 'zero_optimization': {'stage': 3, 'offload_optimizer': {'device': 'cpu'}, 'offload_param': {'device': 'cpu'}, 'stage3_gather_16bit_weights_on_model_save': False}, 'steps_per_print': inf, 'fp16': {'enabled': False}, 'bf16': {'enabled': False}}
stdout: g0003:
stdout: g0003: Distributed environment: DEEPSPEED  Backend: nccl
stdout: g0003: Num processes: 16
stdout: g0003: Process index: 12
stdout: g0003: Local process index: 4
stdout: g0003: Device: cuda:4
stdout: g0003:
stdout: g0003: Mixed precision type: no
stdout: g0003: ds_config: {'train_batch_size': 'auto', 'train_micro_batch_size_per_gpu': 'auto', 'gradient_accumulation_steps': 1, 'zero_optimization': {'stage': 3, 'offload_optimizer': {'device': 'cpu'}, 'offload_param': {'device': 'cpu'}, 'stage3_gather_16bit_weights_on_model_save': False}, 'steps_per_print': inf, 'fp16': {'enabled': False}, 'bf16': {'enabled': False}}
stdout: g0003:
......
stderr: g0001: Traceback (most recent call last):
stderr: g0001:   File "/data/nfs_share/cnic04/miniconda3/lib/python3.10/site-packages/accelerate/test_utils/scripts/test_script.py", line 461, in <module>
stderr: g0001:     main()
stderr: g0001:   File "/data/nfs_share/cnic04/miniconda3/lib/python3.10/site-packages/accelerate/test_utils/scripts/test_script.py", line 434, in main
stderr: g0001:     process_execution_check()
stdout: g0001: [2023-06-18 23:37:36,653] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 97468
stdout: g0001: instance-iq4qcfoz-1:97469:105026 [7] NCCL INFO [Service thread] Connection closed by localRank 6
stdout: g0001: [2023-06-18 23:37:37,027] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 97469
stdout: g0001: [2023-06-18 23:37:37,768] [ERROR] [launch.py:321:sigkill_handler] ['/data/nfs_share/xxx/miniconda3/bin/python', '-u', '/data/nfs_share/xxx/miniconda3/lib/python3.10/site-packages/accelerate/test_utils/scripts/test_script.py'] exits with return code = 1
stderr: pdsh@instance-iq4qcfoz-1: g0001: ssh exited with exit code 1
""",
    family="accelerate.library_error", family_alternatives=["launcher.accelerate_error", "code.library_error"],
    fix="The 2-node DeepSpeed setup itself initialised (16 processes, NCCL up); the failure is a bug in accelerate's own `accelerate test` script, whose process-execution/print checks assume a single node. Upgrade accelerate to a release with the fix (PR #1616, skips those checks on multi-node) or ignore this self-test failure and run the real training.",
    fix_keywords=["upgrade", "bug"],
    healthy=False, group="framework-accelerate-deepspeed",
    label_note="Maintainer PR huggingface/accelerate#1616 (merged, 'Solves #1606') removes these checks for multi-node because they cannot be recreated across nodes; issue labelled 'solved'. Strong for the cause; text pieces are two blocks of the same reporter paste (the stdout block with the reporter's '......' elision, the traceback cut where the stored excerpt ends, and the sigkill tail).")

add(id="at-vllm-7815-ray-driver-ip-mismatch",
    url="https://github.com/vllm-project/vllm/issues/7815",
    source_repo="vllm-project/vllm", category="launcher-environment",
    text="""python -m vllm.entrypoints.openai.api_server --model /secondary/thies/Hermes-3-Llama-3.1-70B/ --tensor-parallel-size 16 --max-num-batched-tokens 8192 --gpu-memory-utilization 0.85 --distributed-executor-backend=ray

(autoscaler +7s) Error: No available node types can fulfill resource request {'node:<IP>': 0.001, 'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.
INFO 08-23 10:16:22 ray_utils.py:174] Waiting for creating a placement group of specs for 10 seconds. specs=[{'node:<IP>': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.
""",
    family="ray.resources", family_alternatives=["serving.distributed", "ray.start"],
    fix="vLLM pins the first placement-group bundle to 'node:<driver IP>' using its own get_ip(), which does not match the address Ray registered for that node, so the bundle can never be placed; set VLLM_HOST_IP to the node's Ray address (the --node-ip-address used in ray start) on each node, or start Ray with the IP vLLM detects.",
    fix_keywords=["VLLM_HOST_IP", "mismatch"],
    healthy=False, group="serving-multinode",
    label_note="Thread diagnosis quoted by later commenters: the current_ip = get_ip() line 'is the issue ... mismatch with the actual IP address used to setup ray. We can use VLLM_HOST_IP to override the IP'; vllm#8908 users report it solved by making the Ray start IP match. Medium: the original reporter's confirmation is not in the stored excerpt and some later commenters say VLLM_HOST_IP alone did not help them.")

add(id="at-lightning-10098-slurm-nodes-not-requested",
    url="https://github.com/Lightning-AI/pytorch-lightning/issues/10098",
    source_repo="Lightning-AI/pytorch-lightning", category="config",
    text="""GPU available: True, used: True
TPU available: False, using: 0 TPU cores
IPU available: False, using: 0 IPUs
GPU available: True, used: True
TPU available: False, using: 0 TPU cores
IPU available: False, using: 0 IPUs
initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8
initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8
initializing ddp: GLOBAL_RANK: 2, MEMBER: 3/8
initializing ddp: GLOBAL_RANK: 2, MEMBER: 3/8
initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/8
initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/8
initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/8
initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/8
Traceback (most recent call last):
  File "/home/tw2112/codes/s2s/aux_with_neg_wiki/cool_test/test.py", line 74, in <module>
    trainer.fit(model)
  File "/ext3/miniconda3/lib/python3.8/site-packages/pytorch_lightning/trainer/trainer.py", line 552, in fit
    self._run(model)
""",
    family="slurm.one_node_used", family_alternatives=["launcher.same_rank", "lightning.config"],
    fix="The Slurm job does not request the nodes/tasks the Trainer expects (no --nodes, so Slurm assumes 1), so two copies start with the same global ranks 0-3 of 8 and DDP init hangs; request #SBATCH --nodes=2 and --ntasks-per-node equal to the GPUs per node so they match Trainer(num_nodes=..., gpus/devices=...).",
    fix_keywords=["--nodes", "ntasks-per-node"],
    healthy=False, group="framework-lightning",
    label_note="Maintainer (awaelchli) answer, quoted in the thread: 'You are not setting the number of nodes in slurm. It assumes 1 by default. The number of nodes and ntasks per node settings in slurm must match the num_nodes and gpus in the Trainer.' Medium-weak: no reporter confirmation in the stored excerpt; issue closed 'won't fix'. Mechanism differs from the earlier #8707 case (python without srun).")



add(id="at-ray-29300-train-manual-device",
    url="https://github.com/ray-project/ray/issues/29300",
    source_repo="ray-project/ray", category="user-code",
    text="""opt/bin/doc/datasets_train.runfiles/com_github_ray_project_ray/doc/source/ray-core/_examples/datasets_train/datasets_train.py", line 350, in train_epoch
--
  | loss = criterion(outputs, labels.float())
  | File "/opt/miniconda/lib/python3.7/site-packages/torch/nn/modules/module.py", line 1051, in _call_impl
  | return forward_call(*input, **kwargs)
  | File "/opt/miniconda/lib/python3.7/site-packages/torch/nn/modules/loss.py", line 716, in forward
  | reduction=self.reduction)
  | File "/opt/miniconda/lib/python3.7/site-packages/torch/nn/functional.py", line 2960, in binary_cross_entropy_with_logits
  | return torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)
  | RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!
""",
    family="usercode.tensors_on_two_devices", family_alternatives=["ray.train_backend", "ray.usage"],
    fix="The Ray Train example picks its CUDA device by hand, so in a multi-GPU worker the labels land on a different GPU (cuda:0) than the model/outputs placed by Ray Train (cuda:1); get the worker's device from ray.train.torch.get_device() (and let prepare_model/prepare_data_loader move model and batches) instead of setting the device manually.",
    fix_keywords=["get_device", "ray.train"],
    healthy=False, group="framework-ray-train",
    label_note="Ray Train maintainer (amogkam) in the thread: 'The example should use train.torch.get_device() instead of manually doing it'; issue closed. Medium: the fix commit itself is not in the stored excerpt. First line is cut at its start exactly as the commenter pasted it (CI log excerpt).")


json_path = "/tmp/heldout-at/explain_heldout_at.jsonl"
if __name__ == "__main__":
    import sys
    with open(json_path, "w") as f:
        for c in C:
            o = {k: c[k] for k in ["id","url","source_repo","category","text","family","family_alternatives","fix","fix_keywords","healthy","group","label_note"]}
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    print(len(C), "cases")
