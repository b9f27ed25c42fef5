"""gpudoctor.slurm.partition_rows / wanted_partitions: the one reader of `scontrol --all show partition -o` that
`--slurm` (commands/common.partition_nodes) and the srun transport's OverSubscribe judgement share. The line's form is
scontrol(1)'s --oneliner (KEY=VALUE words; Slurm 22.05 prints Nodes=(null) for a partition without nodes and
OverSubscribe=FORCE:4); the callers are tested end to end on the 4-node bed (tests/test_slurm22.py, test_slurm23.py)."""

from gpudoctor.slurm import partition_rows, wanted_partitions

TEXT = ("PartitionName=debug AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL Default=YES QoS=N/A Hidden=NO "
        "Nodes=sn[1-4] OverSubscribe=FORCE:4 State=UP TotalCPUs=8 TRES=cpu=8,mem=4000M,node=4\n"
        "PartitionName=gpu AllowGroups=ALL Default=NO Hidden=YES Nodes=(null) OverSubscribe=NO State=DOWN\n"
        "\n"
        "garbage without a partition name\n")


def test_each_partition_line_is_its_fields():
    rows = partition_rows(TEXT)
    assert [r["PartitionName"] for r in rows] == ["debug", "gpu"]
    assert rows[0]["Nodes"] == "sn[1-4]" and rows[0]["OverSubscribe"] == "FORCE:4" and rows[0]["State"] == "UP"
    assert rows[0]["TRES"] == "cpu=8,mem=4000M,node=4"  # a value holding '=' stays whole
    assert rows[1]["Nodes"] == "(null)" and rows[1]["Hidden"] == "YES"


def test_the_partitions_a_job_without_p_goes_to():
    rows = partition_rows(TEXT)
    assert wanted_partitions(rows, {}) == ["debug"]
    assert wanted_partitions(rows, {"SLURM_PARTITION": "gpu,,other"}) == ["gpu", "other"]
    assert wanted_partitions(partition_rows(TEXT.replace("Default=YES", "Default=NO")), {}) == []


def test_the_reading_is_bounded():
    rows = partition_rows("PartitionName=p%d Nodes=n\n" * 20000 % tuple(range(20000)))
    assert len(rows) == 10000
