"""Launchers and inference runtimes started with another process count or placement than the model, engine or hosts
were made for (issue 18, placement16): tools/gen_placement_messages.py's sites (TensorRT-LLM's engine world size, Meta's
Llama runner's checkpoint shards, fairscale's model-parallel init, ColossalAI's `colossalai run`), Ray's autoscaler
refusing a GPU request (tools/gen_ray_messages.py) and vLLM's driver-node message quoted without its full stop.

Texts: runs made here (tests/data/placement/: fairscale v0.4.13 under torchrun 2.14 on gloo, ray 2.60.0 on CPU) and
public threads, cited per text. In process (explain.explain_text with the module's knowledge): no CLI start per text.
"""

import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "placement")
SLICE = os.path.join(REPO, "tools", "data", "placement_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_placement_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from gpudoctor import explain  # noqa: E402
from gpudoctor.explain.knowledge import end_stop  # noqa: E402


def _read(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def _root(kb, text):
    res = explain.explain_text(text, kb)
    roots = [f for f in res["findings"] if f.get("role") == "root"]
    return res, (roots[0] if roots else None)


def _fixes(root):
    return "\n".join(x for c in root.get("causes") or [] for x in [c.get("text", "")] + list(c.get("fix") or []))


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "placement_messages.json")
    full = knowgen.committed("placement_messages")
    assert got["header"]["version"] == full["header"]["version"]
    assert re.search(r"ColossalAI v0\.5\.1 \(commit [0-9a-f]{40}\)", full["header"]["version"])
    by_id = {s["id"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 12
    for s in got["sites"]:
        assert s == by_id[s["id"]], s["id"]
    fams = {s["text"]: s.get("family") for s in full["sites"]}
    assert fams["Loading a checkpoint for MP=%s but world size is %s"] == "launcher.model_parallel_size"
    assert fams["Engine world size (%s) != Runtime world size (%s)"] == "launcher.model_parallel_size"
    assert fams["Error: failed to run %s on %s"] == "launcher.colossalai_run"  # v0.2.0's form (older)
    assert fams["%s is not divisible by %s"] is None  # a helper's words other libraries print too
    assert fams["[TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp"] == "launcher.model_parallel_size"
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


REAL = [
    # https://github.com/NVIDIA/TensorRT-LLM/issues/108 (maintainer: 'mpirun -n 2 python run.py')
    ("trtllm_108", "AssertionError: Engine world size (2) != Runtime world size (1)\n",
     "launcher.model_parallel_size", "mpirun -n 2 python run.py"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/440 (an engine of 1 rank started by mpirun -n 8)
    ("trtllm_440", "mpirun -n 8 --allow-run-as-root python3 run.py --max_output_len=50 --tokenizer_dir llama70b "
                   "--engine_dir=llama70b/trt_engines/int4_AWQ/8-gpu\n"
                   '  File "/code/tensorrt_llm/examples/llama/run.py", line 54, in read_config\n'
                   "    assert world_size == tensorrt_llm.mpi_world_size(), \\\n"
                   "AssertionError: Engine world size (1) != Runtime world size (8)\n",
     "launcher.model_parallel_size", "mpirun -n 1 python run.py"),
    # https://github.com/meta-llama/llama/issues/415 (13B: 2 shards, torchrun --nproc_per_node 1)
    ("llama_415", "$ torchrun --nproc_per_node 1 example_chat_completion.py  --ckpt_dir llama-2-13b-chat/  "
                  "--tokenizer_path tokenizer.model  --max_seq_len 512 --max_batch_size 4\n"
                  '  File "/home/yyf/llama/llama/generation.py", line 80, in build\n'
                  "    assert model_parallel_size == len(\n"
                  "AssertionError: Loading a checkpoint for MP=2 but world size is 1\n"
                  "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: "
                  "2219637) of binary: /usr/bin/python3\n",
     "launcher.model_parallel_size", "(2 by this message"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1950 (a 2-GPU engine, python3 ../run.py: MPI size 1)
    ("trtllm_1950", "> [TensorRT-LLM][INFO] MPI size: 1, rank: 0\nTraceback (most recent call last):\n"
                    '  File "/usr/local/lib/python3.10/dist-packages/tensorrt_llm/runtime/model_runner_cpp.py", line 98, '
                    "in from_dir\n    world_config = WorldConfig.mpi(tensor_parallelism=tp_size,\n"
                    "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp "
                    "(/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:99)\n",
     "launcher.model_parallel_size", "mpirun -n <tp x pp"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1992 (the same, 0.12's wording with the counts)
    ("trtllm_1992", "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: MPI size 1 != TP size 2 * PP size 1 "
                    "(/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/"
                    "worldConfig.cpp:101)\n",
     "launcher.model_parallel_size", "mpirun -n <2 x 1> python run.py"),
    # https://github.com/deepspeedai/DeepSpeed/issues/5267 (DeepSpeed-MII: tensor_parallel=16 on hosts of 8 slots)
    ("mii_5267", "import mii\n    client = mii.serve(\"path of mixtral-instruct 8*7b\",\n            tensor_parallel=16,\n"
                 "            replica_num=2,\n            hostfile=\"tmp/hostfile\"\n            )\nmy hostfile like "
                 "this:\nip1 slots=8\nip2 slots=8\nValueError: Only able to place 0 replicas, but 2 replicas were "
                 "requested.\n",
     "launcher.model_parallel_size", "tensor_parallel=8, replica_num=2"),
    # https://github.com/ColossalAI/ColossalAI/issues/2441 (colossalai 0.2.0's form: no exception after the host)
    ("colossalai_2441", "Error: failed to run torchrun --nproc_per_node=4 --nnodes=1 --node_rank=0 --rdzv_backend=c10d "
                        "--rdzv_endpoint=127.0.0.1:29500 --rdzv_id=colossalai-default-job train.py --config config.py "
                        "-s on 127.0.0.1\n",
     "launcher.colossalai_run", "ssh-copy-id"),
]


@pytest.mark.parametrize("name,text,want,fix", REAL, ids=[r[0] for r in REAL])
def test_public_threads_get_the_launch_and_its_counts(kb, name, text, want, fix):
    res, root = _root(kb, text)
    assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
    assert fix in _fixes(root), _fixes(root)


def test_mpirun_of_another_mpi_is_a_cause_when_the_launch_line_shows_several(kb):
    # https://github.com/NVIDIA/TensorRT-LLM/issues/753: mpirun -n 2 and still a runtime world of 1
    text = ("mpirun -n 2 --allow-run-as-root \\\n    python ../run.py --input_text \"hello\" --max_output_len=50 \\\n"
            "    --engine_dir=./tmp/baichuan_v1_13b/trt_engines/fp16/2-gpu/\n"
            'tensorrt_llm/runtime/model_runner.py", line 81, in read_config\n'
            "    assert world_size == tensorrt_llm.mpi_world_size(), \\\n"
            "AssertionError: Engine world size (2 * 1) != Runtime world size (1)\n")
    _, root = _root(kb, text)
    assert root["id"] == "launcher.model_parallel_size"
    texts = [c["text"] for c in root["causes"]]
    assert any("another MPI" in t for t in texts[:2]), texts
    assert "mpi4py" in _fixes(root)
    # without a launch line the MPI cause is not listed (TensorRT-LLM#108's single line)
    _, alone = _root(kb, "AssertionError: Engine world size (2) != Runtime world size (1)\n")
    assert not any("another MPI" in c["text"] for c in alone["causes"])


def test_colossalai_run_names_the_export_or_the_ssh_login(kb):
    # https://github.com/hpcaitech/ColossalAI/issues/3638 (bash refused a variable of the exported environment)
    _, root = _root(kb, "/bin/bash: line 0: export: `=/usr/bin/supervisord': not a valid identifier Error: failed to "
                        "run torchrun --nproc_per_node=1 --nnodes=1 --node_rank=0 --rdzv_backend=c10d "
                        "--rdzv_endpoint=127.0.0.\n")
    assert root["id"] == "launcher.colossalai_run"
    assert "not a valid identifier" in root["causes"][0]["text"] and "torchrun directly" in root["causes"][0]["fix"][0]
    # https://github.com/hpcaitech/ColossalAI-Examples/issues/180 (maintainer: 'connected by ssh without password?')
    _, root = _root(kb, "Error: failed to run torchrun --nproc_per_node=4 --nnodes=2 --node_rank=1 --rdzv_backend=c10d "
                        "--rdzv_endpoint=10.0.0.1:29500 --rdzv_id=colossalai-default-job train.py on 10.0.0.2\n")
    assert root["id"] == "launcher.colossalai_run" and "authorized_keys" in _fixes(root)


def test_fairscale_world_not_a_multiple_of_the_model_parallel_size(kb):
    # made here: torchrun --nproc-per-node 3 and initialize_model_parallel(2) (fairscale v0.4.13, gloo)
    _, root = _root(kb, _read("fairscale_mp2_world3.txt"))
    assert root["id"] == "launcher.model_parallel_size" and "nproc_per_node" in _fixes(root)
    # the same helper's words under no fairscale frame name no family of their own
    res, root = _root(kb, "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    f()\n"
                          "AssertionError: 3 is not divisible by 2\n")
    assert root is None or root["id"] != "launcher.model_parallel_size"
    # a run that fits (2 processes, size 2) prints fairscale's init lines and is healthy
    res, root = _root(kb, _read("fairscale_mp2_world2_ok.txt"))
    assert root is None and res["verdict"] == "no_error"


def test_ray_refuses_a_gpu_request_on_a_cluster_without_gpus(kb):
    # made here: ray 2.60.0, ray.init(num_gpus=0) and a task with num_gpus=1 (the autoscaler's event line)
    _, root = _root(kb, _read("ray_gpu_task_no_gpu.txt"))
    assert root["id"] == "ray.resources" and "--num-gpus" in _fixes(root)
    assert root["causes"][0]["text"].startswith("Ray's autoscaler") and any(
        c["text"].startswith("No node the cluster has or can add") for c in root["causes"])
    # the same with RAY_enable_autoscaler_v2=1: autoscaler/v2/event_logger.py's '... resource requests {...}*1.' is also
    # printed for requests that only queue and then run, so it is no root by itself (ray.toml)
    res, root = _root(kb, _read("ray_gpu_task_no_gpu_autoscaler_v2.txt"))
    assert root is None or root["id"] != "ray.resources"


def test_a_message_quoted_without_its_full_stop_still_matches_where_the_line_ends(kb):
    # https://github.com/argilla-io/distilabel/pull/842 quotes vLLM's message without its final '.'
    text = ("Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or running "
            "the driver on a GPU node\n")
    _, root = _root(kb, text)
    assert root["id"] == "ray.resources" and "STRICT_PACK" in _fixes(root)
    rx = end_stop(re.escape("Consider adjusting the Ray placement group or running the driver on a GPU node."))
    said = "Consider adjusting the Ray placement group or running the driver on a GPU node"
    assert re.search(rx, said + "  \nnext") and re.search(rx, said + ".") and re.search(rx, said)
    assert not re.search(rx, said + " which it is")  # never a longer message
    assert end_stop(r"a\\.") == r"a\\." and end_stop("abc") == "abc"


def test_mpi4py_spawn_failing_inside_a_slurm_job(kb):
    # https://github.com/ai-dynamo/dynamo/pull/808 (TensorRT-LLM's MpiPoolSession spawning under srun; trimmed there)
    text = ("$ srun --container-image <dynamo_trtllm_image> ...\n$ dynamo serve graphs.agg:Frontend -f ./configs/agg.yaml\n"
            "rank 0 using MpiPoolSession to spawn MPI processes\n...\n"
            "Exception in thread Thread-4 (_manager_spawn):\nTraceback (most recent call last):\n"
            '  File "/usr/lib/python3.12/threading.py", line 1010, in run\n'
            "    self._target(*self._args, **self._kwargs)\n"
            '  File "/usr/local/lib/python3.12/dist-packages/mpi4py/futures/_lib.py", line 324, in _manager_spawn\n'
            "    comm = serialized(client_spawn)(pyexe, pyargs, nprocs, info)\n")
    _, root = _root(kb, text)
    assert root["id"] == "mpi.comm_spawn" and root["family"] == "mpi.launch"
    assert "Slurm" in root["causes"][0]["text"] and "unset SLURM_JOBID" in root["causes"][0]["fix"][0]
    # the pool's start line alone is no failure
    res, root = _root(kb, "[TRT-LLM] [I] Using LLM with PyTorch backend\nrank 0 using MpiPoolSession to spawn MPI "
                          "processes\n[TensorRT-LLM][INFO] Refreshed the MPI local session\n")
    assert root is None


def test_vllm_driver_node_without_a_gpu_bundle(kb):
    # https://github.com/vllm-project/vllm/issues/29265 (vllm's ray_utils.py: the resources dict is longer than a
    # generated matcher's bounded value; ray.toml's pattern reads the message's own words)
    text = ("(EngineCore_DP0 pid=504) ValueError: Current node has no GPU available. current_node_resource="
            "{'accelerator_type:T4': 1.0, 'bundle_group_7_5dae406aeb52bbda8836db50069101000000': 999.999, 'memory': "
            "188995160884.0, 'bundle_group_6_5dae406aeb52bbda8836db50069101000000': 999.999, 'node:74.10.28.48': 1.0, "
            "'bundle_group_5dae406aeb52bbda8836db50069101000000': 1999.998, 'CPU': 112.0, 'object_store_memory': "
            "80997926092.0}. vLLM engine cannot start without GPU. Make sure you have at least 1 GPU available in a node "
            "current_node_id='25ce3df78af6f2152950b2eb804c59f55b331e21f8c4f92db852228d' current_ip='74.10.28.48'.\n")
    _, root = _root(kb, text)
    assert root["id"] == "ray.resources" and "STRICT_PACK" in root["causes"][0]["fix"][0]


def test_vllm_engine_built_in_every_torchrun_rank(kb):
    # https://github.com/open-compass/VLMEvalKit/issues/561 (vllm.LLM in a script started by torchrun --nproc-per-node=8)
    text = ("$ torchrun --nproc-per-node=8 run.py --data Video-MME --model Qwen2_VL-M-RoPE-80k\n"
            "[rank1]:     raise RuntimeError(\n[rank1]: RuntimeError: world_size (8) is not equal to "
            "tensor_model_parallel_size (1) x pipeline_model_parallel_size (1)\n")
    _, root = _root(kb, text)
    assert root["id"] == "serving.parallel_config" and "external_launcher" in root["causes"][0]["fix"][0]


def test_triton_trtllm_backend_in_an_mpi_world_of_another_size(kb):
    # https://github.com/NVIDIA/TensorRT-LLM/issues/2021 (its title: the executor's leader-mode check)
    text = ("[TensorRT-LLM][ERROR] Assertion failed: With communicationMode kLEADER, MPI worldSize is expected to be "
            "equal to tp*pp when participantIds are not specified\n")
    _, root = _root(kb, text)
    assert root["id"] == "launcher.model_parallel_size" and "--world_size" in root["causes"][0]["fix"][0]


def test_ray_start_with_an_empty_head_address(kb):
    # https://github.com/ModalMinds/MM-EUREKA/issues/54 ($MASTER_ADDR unset: ray start --address=:6379)
    text = ("+ ray start --address=:6379 --num-gpus 8 --block\nLocal node IP: 127.0.0.1\n"
            "[2025-07-23 10:05:49,679 W 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS at address :6379 "
            "within 5 seconds.\n[2025-07-23 10:06:19,681 W 51000 51000] gcs_client.cc:183: Failed to get cluster ID "
            "from GCS server: TimedOut: Timed out while waiting for GCS to become available.\n")
    _, root = _root(kb, text)
    assert root["id"] == "launcher.empty_address" and "MASTER_ADDR" in root["causes"][0]["fix"][0]
    # a host in the address is another matter (the head is down or unreachable): not this entry
    res, root = _root(kb, text.replace("address :6379", "address 10.0.0.5:6379").replace("=:6379", "=10.0.0.5:6379"))
    assert root is None or root["id"] != "launcher.empty_address"


def test_c10d_client_waiting_on_port_zero(kb):
    # https://github.com/NVIDIA-NeMo/Run/pull/292 (a c10d rendezvous forced to localhost:0 on one node)
    text = "[default7]:[I715 22:47:11.296780083 socket.cpp:872] [c10d] No socket on (localhost, 0) is listening yet, will retry.\n"
    _, root = _root(kb, text)
    assert root["id"] == "launcher.port_zero_client" and "--standalone" in root["causes"][0]["fix"][0]
    # a real port: the usual wait while rank 0 starts, no finding of this entry
    res, root = _root(kb, text.replace("(localhost, 0)", "(localhost, 29500)"))
    assert root is None or root["id"] != "launcher.port_zero_client"


def test_verl_driver_not_joined_to_the_multinode_ray_cluster(kb):
    # https://github.com/volcengine/verl/issues/3358 (two nodes of 16 GPUs; the driver's Ray sees one node's)
    text = ('  File "/home/verl/verl/trainer/ppo/ray_trainer.py", line 134, in _check_resource_available\n'
            "    raise ValueError(\nValueError: Total available GPUs 16.0 is less than total desired GPUs 32\n")
    _, root = _root(kb, text)
    assert root["id"] == "ray.resources" and "ray start --address" in root["causes"][0]["fix"][0]


def test_torchrun_node_rank_past_nnodes_with_the_static_rendezvous(kb):
    # made here (torch 2.14 CPU, gloo): torchrun --nnodes 1 --node-rank 1 waits on its own master port (interrupted
    # after 25 s); the static rendezvous takes the node rank as the agent's rank and rank 0 hosts the store
    res, root = _root(kb, _read("torchrun_node_rank_past_nnodes.txt"))
    assert root["id"] == "launcher.same_rank" and "--node_rank 1 on a 1-node job" in root["causes"][0]["text"]
    assert "--standalone" in root["causes"][0]["fix"][0]
    # the second node of a two-node job (--node-rank 1 of --nnodes 2) is no finding of it
    _, root = _root(kb, "$ torchrun --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 10.0.0.1 "
                        "--master-port 29731 hello.py\n")
    assert root is None or root["id"] != "launcher.same_rank"
