"""`gpudoctor plan SCRIPT` on launch lines hidden in heredocs fed to a shell and in ssh
commands (gpudoctor/launch/script.py: _logical_lines, Reader._run_heredoc, Reader._ssh).
Nothing is run: the scripts are only read.

The shapes come from public training repos' scripts (paraphrased, values kept):
- deepinsight/insightface recognition/arcface_torch/dist.sh: a C-style loop over an ip
  list, `ssh user@ip "cd ...; python -m torch.distributed.launch ... --node_rank=$i" &`
- Malek-Mechergui/TP run_distributed.sh: `for host in ${HOSTS[@]}; do ssh $host torchrun
  ... --node_rank=$RANK ... &; ((RANK=RANK+1)); done`
- slitvinov/deepseek-slurm main2.sh: `srun sh -xeuc '...torchrun --node-rank $SLURM_NODEID'`,
  written here as the heredoc form `srun bash <<'EOS'` (bash(1) Here Documents:
  https://www.gnu.org/software/bash/manual/bash.html#Here-Documents)
"""

import pytest

from gpudoctor.launch.script import MAX_HEREDOCS, _logical_lines, read_script

SBATCH = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"


def plan(tmp_path, text, name="run.sh", args=()):
    p = tmp_path / name
    p.write_text(text)
    return read_script(str(p), list(args), environ={})


def shape(la):
    j = la.plan.to_json()
    return j["launcher"], j["nnodes"]["max"], j["nproc_per_node"], j["world_size"]["max"], j["master"]["addr"]


def test_srun_bash_quoted_heredoc_is_each_tasks_script(tmp_path):
    r = plan(tmp_path, SBATCH + (
        "MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)\n"
        "export MASTER_ADDR\nNOT_EXPORTED=x\n"
        "srun --ntasks-per-node=1 bash <<'EOS'\n"
        "torchrun --nnodes $SLURM_NNODES --nproc_per_node 8 --node_rank $SLURM_NODEID \\\n"
        "  --master_addr $MASTER_ADDR --master_port 29500 train.py --tag \"$NOT_EXPORTED\"\n"
        "EOS\necho done\n"), name="job.sbatch")
    (la,) = r.launches
    assert la.argv[:2] == ["srun", "--ntasks-per-node=1"] and la.argv[2] == "torchrun"
    assert la.refused is None and la.via_shell and not la.in_batch
    launcher, nnodes, nproc, world, master = shape(la)
    assert (launcher, nnodes, nproc, world) == ("torchrun", 2, 8, 16)
    assert "first node of the allocation" in master
    assert la.line == 8  # the body's own line
    assert la.argv[-1] == ""  # quoted body: the task's shell does not see a variable never exported
    assert any("heredoc <<EOS (lines 8-9)" in n and "quoted" in n for n in r.notes), r.notes


def test_unquoted_dash_heredoc_is_expanded_here_and_tabs_stripped(tmp_path):
    r = plan(tmp_path, (
        "NNODES=2\nexport MASTER_ADDR=10.0.0.1\n"
        "bash -l <<-EOF\n"
        "\tcd /work\n"
        "\ttorchrun --nnodes $NNODES --nproc_per_node 4 --node_rank 0 --master_addr \\$MASTER_ADDR train.py\n"
        "\tEOF\n"
        "torchrun --standalone --nproc_per_node 2 eval.py\n"))
    first, second = r.launches
    assert shape(first) == ("torchrun", 2, 4, 8, "10.0.0.1") and first.line == 5
    assert shape(second)[:4] == ("torchrun", 1, 2, 2) and second.line == 7  # after the delimiter


def test_heredoc_not_fed_to_a_shell_is_not_a_launch(tmp_path):
    r = plan(tmp_path, (
        "cat > README.txt <<'EOF'\ntorchrun --nnodes 2 --nproc_per_node 8 train.py\nEOF\n"
        "bash -c 'true' <<EOF\ntorchrun --nnodes 3 --nproc_per_node 8 train.py\nEOF\n"
        "cat <<< \"here-string\"\n"
        "torchrun --nnodes 1 --nproc_per_node 1 real.py\n"))
    (la,) = r.launches
    assert la.plan.script == "real.py" and la.line == 8


def test_ssh_bash_s_heredoc_runs_on_that_host(tmp_path):
    r = plan(tmp_path, (
        "MASTER=node1\n"
        "ssh -p 2222 node2 bash -s <<EOF\n"
        "torchrun --nnodes 2 --nproc_per_node 8 --node_rank 1 --master_addr $MASTER --master_port 29500 train.py\n"
        "EOF\n"))
    (la,) = r.launches
    assert shape(la) == ("torchrun", 2, 8, 16, "node1") and la.argv[0] == "torchrun"
    assert any("started on node2 over ssh" in n and "--node_rank" in n for n in r.notes), r.notes


def test_insightface_ssh_loop_quoted_command(tmp_path):
    # deepinsight/insightface recognition/arcface_torch/dist.sh
    r = plan(tmp_path, (
        'ip_list=("ip1" "ip2" "ip3" "ip4")\n'
        "config=wf42m_pfc03_32gpu_r100\n"
        "for((node_rank=0;node_rank<${#ip_list[*]};node_rank++));\n"
        "do\n"
        '  ssh face@${ip_list[node_rank]} "cd `pwd`;PATH=$PATH \\\n'
        "  CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \\\n"
        "  python -m torch.distributed.launch \\\n"
        "  --nproc_per_node=8 \\\n"
        "  --nnodes=${#ip_list[*]} \\\n"
        "  --node_rank=$node_rank \\\n"
        "  --master_addr=${ip_list[0]} \\\n"
        '  --master_port=22345 train.py configs/$config" &\n'
        "done\n"))
    assert r.launches
    la = r.launches[0]
    assert shape(la) == ("torch.distributed.launch", 4, 8, 32, "ip1")
    assert la.plan.script_args == ["configs/wf42m_pfc03_32gpu_r100"]
    assert any("over ssh" in n for n in r.notes)


def test_tp_ssh_loop_counts_the_node_rank(tmp_path):
    # Malek-Mechergui/TP run_distributed.sh
    r = plan(tmp_path, (
        "RANK=0\n"
        'HOSTS=("austin" "baton-rouge" "hartford" "oklahoma-city")\n'
        "NUM_NODES=${#HOSTS[@]}\n"
        'RENDEVOUS_HOST="${HOSTS[0]}:42424"\n'
        "for host in ${HOSTS[@]}; do\n"
        "    ssh $host torchrun \\\n"
        "        --nproc_per_node=1 --nnodes=$NUM_NODES --node_rank=$RANK \\\n"
        "        --rdzv_id=42424 --rdzv_backend=c10d --rdzv_endpoint=$RENDEVOUS_HOST \\\n"
        '        train_script.py "$@" &\n'
        "    ((RANK=RANK+1))\n"
        "done\n"))
    assert [next(a for a in la.argv if a.startswith("--node_rank=")) for la in r.launches] == [
        "--node_rank=%d" % k for k in range(4)]  # ((RANK=RANK+1)) counted per host
    assert all(shape(la)[:4] == ("torchrun", 4, 1, 4) for la in r.launches)
    assert all(la.plan.rdzv_endpoint == "austin:42424" for la in r.launches)
    assert sum("started on hartford over ssh" in n for n in r.notes) == 1


def test_heredocs_are_bounded_and_an_unclosed_one_ends_the_script(tmp_path):
    many = "cat " + " ".join("<<E%d" % k for k in range(MAX_HEREDOCS + 5)) + "\n"
    lines = _logical_lines(many + "x\n" * 3)
    assert len(lines[0][2]) == MAX_HEREDOCS
    r = plan(tmp_path, "bash <<EOF\ntorchrun --nnodes 1 --nproc_per_node 2 a.py\n")  # never closed
    (la,) = r.launches
    assert shape(la)[:4] == ("torchrun", 1, 2, 2)
    deep = "".join("bash <<E%d\n" % k for k in range(8)) + "torchrun --standalone --nproc_per_node 1 a.py\n" + \
        "".join("E%d\n" % k for k in reversed(range(8)))
    r = plan(tmp_path, deep)
    assert len(r.launches) <= 1  # nested shells are followed to a fixed depth, never recursing without end


@pytest.mark.parametrize("flags", ["bash -c 'echo'", "bash train.sh"])
def test_a_shell_with_its_own_commands_does_not_read_the_heredoc(tmp_path, flags):
    r = plan(tmp_path, "%s <<EOF\ntorchrun --nnodes 2 --nproc_per_node 8 train.py\nEOF\n" % flags)
    assert r.launches == []


def test_hostfile_the_script_writes_is_read_for_deepspeed_and_mpirun(tmp_path):
    # the shape of the hostfile loops in Slurm DeepSpeed scripts (`echo $i slots=$GPUS_PER_NODE
    # >> $hostfile`, spacegoing/ospv12 myscripts/host.sh), with known hosts; nothing is written
    r = plan(tmp_path, (
        "GPUS=8\n"
        "cat > hostfile <<EOF\nworker-1 slots=$GPUS\nworker-2 slots=$GPUS\nEOF\n"
        "deepspeed --hostfile=hostfile --master_addr worker-1 train.py --deepspeed ds.json\n"
        "HF=job_hosts\n"
        'for h in node1 node2 node3; do echo "$h slots=4" >> $HF; done\n'
        "mpirun --hostfile $HF -np 12 python train.py\n"
        "printf '%s slots=2\\n' a b > mf\n"
        "mpirun --hostfile mf python train.py\n"))
    ds, mpi, mpi2 = r.launches
    assert shape(ds) == ("deepspeed", 2, 8, 16, "worker-1")
    assert any("as the script writes it" in n for n in ds.plan.notes), ds.plan.notes
    assert shape(mpi)[:4] == ("mpirun", 3, 4, 12)
    assert shape(mpi2)[:4] == ("mpirun", 2, 2, 4)
    assert not (tmp_path / "hostfile").exists() and not (tmp_path / "mf").exists()


def test_hostfile_written_from_run_time_values_is_not_guessed(tmp_path):
    r = plan(tmp_path, (
        "for i in $(scontrol show hostnames $SLURM_NODELIST); do echo $i slots=8 >> hf; done\n"
        "echo \"$(hostname) slots=8\" > hf2\n"
        "deepspeed --hostfile hf2 train.py\n"))
    (la,) = r.launches
    assert any("hf2 is written with values known at run time" in n for n in r.notes), r.notes
    # DeepSpeed's own answer when it finds no hostfile, no host guessed
    assert any("Unable to find hostfile" in n for n in la.plan.notes) and la.plan.nnodes_max is None


def test_pdsh_command_runs_the_same_line_on_every_host(tmp_path):
    r = plan(tmp_path, (
        'pdsh -f 8 -w node[1-2] "cd /work && torchrun --nnodes 2 --nproc_per_node 8 '
        '--node_rank \\$RANK --master_addr node1 train.py"\n'))
    (la,) = r.launches
    assert shape(la) == ("torchrun", 2, 8, 16, "node1") and la.argv[0] == "torchrun"
    assert any("every host of -w node[1-2] by pdsh" in n for n in r.notes), r.notes


def test_sbatch_reads_its_batch_script_from_a_heredoc(tmp_path):
    # lzx325/ddp_tutorial run-elastic_ddp.sh: `sbatch <<- EOF` with #SBATCH lines and an
    # escaped \$(scontrol ...) the batch shell expands (sbatch(1): no file name: stdin)
    r = plan(tmp_path, (
        "#!/bin/bash\nsbatch --time=1:00:00 <<- EOF\n"
        "\t#!/bin/bash\n\t#SBATCH --nodes 2\n\t#SBATCH --ntasks-per-node 1\n"
        '\texport master_addr="\\$(scontrol show hostname \\${SLURM_NODELIST} | head -n 1)"\n'
        "\texport master_port=29400\n"
        "\tsrun --nodes=2 --ntasks-per-node=1 \\\n"
        "\tpython -u -m torch.distributed.run --nproc_per_node=8 --nnodes=2 --rdzv_id=200 \\\n"
        "\t--rdzv_backend=c10d --rdzv_endpoint=\\${master_addr}:\\${master_port} elastic_ddp.py\n"
        "\n\tEOF\nexit 0\n"))
    (la,) = r.launches
    assert r.allocation["nodes"] == 2 and r.allocation["sbatch_command_line"] == ["--time=1:00:00"]
    launcher, nnodes, nproc, world, _ = shape(la)
    assert (launcher, nnodes, nproc, world) == ("torchrun", 2, 8, 16) and la.argv[0] == "srun"
    assert la.plan.rdzv_endpoint.endswith(":29400") and "first node" in la.plan.rdzv_endpoint


# Cases ported from bash's own here-document tests (bminor/bash tests/heredoc.tests, commit 17345e5):
# the reader keeps bash's order, quoting, tab stripping and end-of-file rules. Not ported: a delimiter
# line written with a backslash-newline inside an unquoted body (bash removes the \newline before it
# compares the delimiter; the reader compares the line as written).
def _docs(text):
    return [d for _, _, docs in _logical_lines(text) for d in docs]


def test_bash_heredoc_tests_order_of_two_heredocs_on_one_line():
    docs = _docs("cat << EOF1 << EOF2 \nhi\nEOF1\nthere\nEOF2\n")
    assert [(d["delim"], d["body"]) for d in docs] == [("EOF1", "hi\n"), ("EOF2", "there\n")]


def test_bash_heredoc_tests_a_quoted_heredoc_is_kept_as_written():
    (d,) = _docs("a=foo\ncat << 'EOF'\nhi\\\nthere$a\nstuff\nEOF\n")
    assert d["quoted"] and d["body"] == "hi\\\nthere$a\nstuff\n"


def test_bash_heredoc_tests_backslash_newline_in_the_delimiter_word_and_tab_removal():
    (d,) = _docs("cat << EO\\\nF\nhi\nEOF\n")
    assert (d["delim"], d["quoted"], d["body"]) == ("EOF", False, "hi\n")
    (d,) = _docs("cat <<- EOF\n\ttab 1\n\ttab 2\n\ttab 3\n\tEOF\necho after\n")
    assert d["body"] == "tab 1\ntab 2\ntab 3\n"
    assert [t for _, t, _ in _logical_lines("cat <<- EOF\n\ttab 1\n\tEOF\necho after\n")][-2:] == ["echo after", ""]


def test_bash_heredoc_tests_end_of_file_delimits_a_heredoc():
    for text in ("cat << EOF\nhi\nthere\n", "cat << EOF\nhi\nthere"):  # the test file's ending, and none
        (d,) = _docs(text)
        assert d["body"] == "hi\nthere\n", d
