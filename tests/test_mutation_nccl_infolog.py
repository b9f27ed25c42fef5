"""gpudoctor/nccl_infolog.py on the lines and line shapes its other tests left out, written against
the survivors of a mutation run (docs/mutation.md, "This round's new code"): the readers' answer
where a line lacks the optional part (no OOB after the IB devices, a version token without three
numbers, no nRanks/nNodes), the "available" NVLS line, the transport families of every ``via``
form NCCL prints (src/transport/{p2p,shm,net,coll_net}.cc; "direct shared memory" before 2.5),
and the ``coll channels`` line (src/init.cc: "%d coll channels, %d collnet channels, %d nvls
channels, %d p2p channels, %d p2p channels per peer")."""

from gpudoctor import nccl_infolog as infolog


def test_ib_devices_without_an_oob_part_and_their_indexes():
    # a paste cut before "; OOB ..." (or a line of a build that prints none): the devices stay
    ib = infolog.ib_using("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE")
    assert ib == {"devices": [{"index": 0, "device": "mlx5_0", "port": 1, "link": "IB"},
                              {"index": 1, "device": "mlx5_1", "port": 1, "link": "RoCE"}], "oob": None}
    ib = infolog.ib_using("NET/IB : Using [3]mlx5_3:2/IB [RO]; OOB ib0:10.0.0.1<0>")
    assert [(d["index"], d["port"]) for d in ib["devices"]] == [(3, 2)] and ib["oob"] == "ib0"


def test_a_version_token_without_three_numbers():
    assert infolog.version("NCCL version 2.18+cuda12.1") == ("2.18+cuda12.1", None)
    assert infolog.version("NCCL INFO Bootstrap : Using eth0") is None


def test_env_setting_with_trailing_blanks():
    # the line as pasted from a terminal: NCCL's text, then padding (more than the pattern's 8 blanks)
    assert infolog.env("NCCL_IB_HCA set to mlx5_0" + " " * 12) == ("NCCL_IB_HCA", "mlx5_0")
    assert infolog.env("NCCL_DEBUG set by environment to INFO.\t\t\t\t\t\t\t\t\t\r") == ("NCCL_DEBUG", "INFO")


def test_shape_and_nvls_both_ways():
    assert infolog.comm_shape("comm 0x5 rank 3 nranks 16 cudaDev 3 busId 1b000 - Init COMPLETE") is None
    assert infolog.nvls("NVLS multicast support is available on dev 0") == "available"
    assert infolog.nvls("NVLS multicast support is not available on dev 1") == "not available"
    assert infolog.nvls("NVLS comm 0x5 headRank 0 nHeads 4") is None


def test_coll_channels_line():
    line = "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"
    assert infolog.coll_channels(line) == "32"
    assert infolog.coll_channels("comm 0x5 rank 0 nRanks 2 nNodes 1 - 32 coll channels") is None  # not at the start


def test_transport_family_of_every_via_form():
    cases = {
        "direct shared memory": ("SHM", False),  # NCCL 2.4: "Ring 00 : 0 -> 1 via direct shared memory"
        "SHM/direct/direct": ("SHM", False),
        "P2P/CUMEM/read": ("P2P/CUMEM", False),
        "P2P/direct pointer": ("P2P/direct", False),
        "P2P/IPC": ("P2P/IPC", False),
        "NET/IB/0/GDRDMA": ("NET/IB", True),
        "NET/IB/1(5)/GDRDMA(PCI)/Shared": ("NET/IB", True),
        "NET/IB": ("NET/IB", False),
        "NET/Socket/1": ("NET/Socket", False),
        "COLLNET/IB/0": ("COLLNET/IB", False),
        "COLLNET/IB/0/GDRDMA": ("COLLNET/IB", True),  # src/transport/coll_net.cc: "via COLLNET/%s/%d%s"
        # a bare word (a cut line): its own name, never an IndexError
        "NET": ("NET", False),
        "P2P": ("P2P", False),
        "SHM": ("SHM", False),
    }
    for via, want in cases.items():
        assert infolog.kind_of(via) == want, via
    old = infolog.channel("Ring 00 : 0 -> 1 via direct shared memory")
    assert (old["src"], old["dst"], old["kind"], old["gdr"]) == (0, 1, "SHM", False)
