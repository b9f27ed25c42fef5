"""Build explain_heldout_av.jsonl (eval-av). Texts are verbatim lines from the public threads."""
import json
cases = []

cases.append(dict(
 id="av-colossalai-4318-both-hosts-treated-as-localhost",
 url="https://github.com/hpcaitech/ColossalAI/issues/4318",
 source_repo="hpcaitech/ColossalAI",
 category="launcher-environment",
 text=('"rank 8 and rank 0 both on CUDA device d000"\n'
       "Error: failed to run torchrun --nproc_per_node=8 --nnodes=2 --node_rank=0 --master_addr=192.168.0.64 "
       "--master_port=29500 benchmark.py -c 7b --plugin zero --zero 1 -l 2048 -g -b 10 on 192.168.0.64, "
       "is localhost: True, exception: I/O operation on closed file\n"
       "Error: failed to run torchrun --nproc_per_node=8 --nnodes=2 --node_rank=1 --master_addr=192.168.0.64 "
       "--master_port=29500 benchmark.py -c 7b --plugin zero --zero 1 -l 2048 -g -b 10 on 192.168.0.189, "
       "is localhost: True, exception: I/O operation on closed file\n"),
 family="launcher.colossalai_run",
 family_alternatives=["nccl.duplicate_gpu", "launcher.same_rank"],
 fix=("`colossalai run` wrongly decided that both hosts are the local machine ('is localhost: True' for 192.168.0.189 too; "
      "its address check matched a local address such as 127.0.1.1 from the hostname lookup), so the node_rank 0 and node_rank 1 "
      "torchrun commands were both started on the same machine and ranks 0 and 8 landed on the same GPU. Upgrade to a "
      "ColossalAI release containing PR #4320 (fixed localhost detection), or start torchrun yourself on each node."),
 fix_keywords=["upgrade", "127.0.1.1", "same machine", "hostname"],
 healthy=False,
 group="framework-colossalai",
 label_note=("Merged fix: PR #4320 '[hotfix] fix localhost measurement' ('fixed #4318') by the reporter, explaining that each "
             "node thinks it is the localhost (printed local/host addresses include 127.0.1.1). STRONG for the cause."),
))

cases.append(dict(
 id="av-lightning-13506-different-gpu-count-per-node",
 url="https://github.com/Lightning-AI/pytorch-lightning/issues/13506",
 source_repo="Lightning-AI/pytorch-lightning",
 category="config",
 text=("g-1-0: 2*A100\n"
       "g-1-1: 4*A40\n"
       "g-1-2: 8*3090\n"
       "g-1-3: 8*3090\n"
       "\n"
       "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: "
       "store_based_barrier_key:1 (world_size=8, worker_count=2, timeout=0:30:00)\n"
       "\n"
       "trainer = pl.Trainer(devices=-1, num_nodes=4, strategy=\"fsdp\", accelerator='gpu')\n"),
 family="lightning.config",
 family_alternatives=["rendezvous.store_barrier", "launcher.nproc_gpus"],
 fix=("Lightning assumes the same number of devices on every node (world size = devices x num_nodes). With devices=-1 on "
      "nodes with 2, 4, 8 and 8 GPUs each node computes a different world size (2x4=8 on the first node), so the ranks never "
      "agree and the store barrier times out. Use the same devices=N on every node (e.g. devices=2 on all four) or nodes with "
      "equal GPU counts; different GPU counts per node are not supported."),
 fix_keywords=["same number", "not supported", "per node"],
 healthy=False,
 group="framework-lightning",
 label_note=("No answer inside #13506 (closed, label question). Settled by the Lightning maintainer (awaelchli) in the twin "
             "issue #15874: 'It is currently not possible in Lightning to run in a distributed setup with different number of "
             "GPUs per node' (proposal #14078); world_size=8 = 2 devices x 4 nodes matches the 2-GPU node. MEDIUM."),
))

cases.append(dict(
 id="av-lightning-5651-node-rank-env-single-node-hang",
 url="https://github.com/Lightning-AI/pytorch-lightning/issues/5651",
 source_repo="Lightning-AI/pytorch-lightning",
 category="launcher-environment",
 text=("* 8-gpu ddp training\n"
       "* NODE_RANK=0\n"
       "* WORLD_SIZE=8\n"
       "\n"
       "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/8\n"),
 family="rendezvous.init_hang",
 family_alternatives=["lightning.config", "launcher.single_process"],
 fix=("NODE_RANK is set in the shell (a cluster default) although this is a single-node run: Lightning (1.0.x) then assumes "
      "the processes were launched by torchelastic, so rank 0 does not spawn the other 7 ranks and DDP init waits forever. "
      "Unset NODE_RANK for single-node runs (set it only when you really launch one process group per node yourself)."),
 fix_keywords=["unset", "torchelastic", "spawn"],
 healthy=False,
 group="framework-lightning",
 label_note=("Reporter found training works when NODE_RANK is unset and traced that NODE_RANK forces the torchelastic "
             "(DDPHPCAccelerator) path for all ranks; the same reporter confirmed in CompVis/taming-transformers#12 "
             "('We had an environment variable called NODE_RANK set. We unset it, and it fixed things'). No maintainer "
             "statement seen. MEDIUM."),
))

cases.append(dict(
 id="av-llamafactory-176-accelerate-deepspeed-pdsh-per-node",
 url="https://github.com/hiyouga/LlamaFactory/issues/176",
 source_repo="hiyouga/LlamaFactory",
 category="launcher-environment",
 text=("accelerate launch --config_file ./ds_zero2_config.yaml \\\n"
       "    --num_processes $WORKER_GPU \\\n"
       "    --num_machines $WORKER_NUM \\\n"
       "    --machine_rank $WORKER_IDX \\\n"
       "    --main_process_ip $HOST0 \\\n"
       "    --main_process_port $PORT0 \\\n"
       "    src/run_sft.py ${train_sft_args}\n"
       "\n"
       "[WARNING] [runner.py:196:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.\n"),
 family="deepspeed.launcher",
 family_alternatives=["deepspeed.no_hostfile", "launcher.accelerate_error"],
 fix=("The accelerate DeepSpeed config uses DeepSpeed's default pdsh multi-node launcher, which expects to be started once "
      "on the main node with a hostfile; started on every worker without a hostfile, each machine trains alone as its own "
      "master (the other workers then fail with 'address already in use'). Since the cluster starts the script on every "
      "node, use the standard launcher: --deepspeed_multinode_launcher standard (deepspeed_multinode_launcher: standard)."),
 fix_keywords=["standard", "deepspeed_multinode_launcher", "pdsh"],
 healthy=False,
 group="framework-accelerate-deepspeed",
 label_note=("Reporter (in Chinese, translated): worker 0 trained alone and the other workers hit 'address already in use'; then "
             "'seems solved: switching to the standard launcher (--deepspeed_multinode_launcher standard) makes them communicate; "
             "the default pdsh launcher made every machine think it was the master'. Issue labelled solved; maintainer replied to the "
             "follow-up. MEDIUM-STRONG."),
))

cases.append(dict(
 id="healthy-av-transformers-11796-16node-trainer-run",
 url="https://github.com/huggingface/transformers/issues/11796",
 source_repo="huggingface/transformers",
 category="healthy",
 text=("[INFO|trainer.py:1145] 2021-05-20 20:16:39,037 >> ***** Running training *****\n"
       "[INFO|trainer.py:1146] 2021-05-20 20:16:39,037 >>   Num examples = 1000\n"
       "[INFO|trainer.py:1147] 2021-05-20 20:16:39,037 >>   Num Epochs = 1\n"
       "[INFO|trainer.py:1148] 2021-05-20 20:16:39,037 >>   Instantaneous batch size per device = 4\n"
       "[INFO|trainer.py:1149] 2021-05-20 20:16:39,037 >>   Total train batch size (w. parallel, distributed & accumulation) = 256\n"
       "[INFO|trainer.py:1150] 2021-05-20 20:16:39,037 >>   Gradient Accumulation steps = 1\n"
       "[INFO|trainer.py:1151] 2021-05-20 20:16:39,037 >>   Total optimization steps = 4\n"
       "\n"
       "100%|██████████| 4/4 [00:02<00:00,  1.95it/s][INFO|trainer.py:1341] 2021-05-20 20:16:41,214 >> \n"
       "{'train_runtime': 2.185, 'train_samples_per_second': 1.831, 'epoch': 1.0}\n"
       "Training completed. Do not forget to share your model on huggingface.co/models =)\n"
       "\n"
       "INFO:__main__:*** Evaluate ***\n"
       "[INFO|trainer.py:2115] 2021-05-20 20:16:41,690 >> ***** Running Evaluation *****\n"
       "[INFO|trainer.py:2117] 2021-05-20 20:16:41,690 >>   Num examples = 200\n"
       "[INFO|trainer.py:2120] 2021-05-20 20:16:41,690 >>   Batch size = 4\n"),
 family="healthy",
 family_alternatives=[],
 fix="",
 fix_keywords=[],
 healthy=True,
 group="healthy",
 label_note=("Maintainer (stas00) pasting output of a working 16-node HF Trainer run (training completed, evaluation started); "
             "the thread is only about these lines being logged once per node (cosmetic). STRONG as healthy."),
))

with open("/tmp/heldout-av/explain_heldout_av.jsonl", "w", encoding="utf-8") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(cases), "cases written")
