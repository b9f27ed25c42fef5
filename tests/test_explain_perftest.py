"""perftest's own messages (issue 18), read from linux-rdma/perftest's sources by tools/gen_perftest_messages.py
(generated/perftest_messages.json; families in gpudoctor/data/knowledge/perftest.toml beside rdma.toml's): a text
made here by running Debian 12's perftest 4.5+0.17 (ib_write_bw, on a machine with no RDMA device;
fixtures/perftest/) and public threads, cited per text."""

import os

import pytest

from gpudoctor import explain

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "perftest")

TEXTS = {
    # https://github.com/linux-rdma/perftest/issues/139 (the server's side; a device whose max inline is smaller)
    "qp_inline": ("\n************************************\n* Waiting for client to connect... *\n"
                  "************************************\nUnable to create QP.\nFailed to create QP.\n"
                  " Couldn't create IB resources\n", "rdma.queue_create", "-I 0"),
    # https://github.com/linux-rdma/perftest/pull/228 (the client before the fix of its message's line ends)
    "connect": ("# ib_write_bw -d rocep133s0f0 192.168.125.211\nCouldn't connect to 192.168.125.211:18515\n"
                "Unable to open file descriptor for socket connection Unable to init the socket connection\n",
                "rdma.perftest_connect", "start the server first"),
    # src/perftest_resources.h NOTIFY_COMP_ERROR_SEND's lines with ibv_wc_status_str's name of status 12 (the client
    # side of https://github.com/linux-rdma/perftest/issues/262 and #295)
    "retry_exceeded": (" Completion with error at client\n Failed status-transport retry counter exceeded (12): wr_id 0 "
                       "syndrom 0x81\n scnt=128, ccnt=0\n", "rdma.completion_error", "-x <index from show_gids>"),
    # https://github.com/linux-rdma/perftest/issues/132 (the server, ib_write_bw -R)
    "exchange": ("ethernet_read_keys: Couldn't read remote address\nUnable to read to socket/rdma_cm\n"
                 "Failed to exchange data between server and clients\n", "rdma.perftest_connect", "same perftest"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_public_perftest_texts_get_their_family_and_fix(kb, name):
    text, want, fix = TEXTS[name]
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["id"] == want and f["role"] == "root", [x["id"] for x in res["findings"]]
    assert fix in " ".join(x for c in f["causes"] for x in c.get("fix") or [])


def test_perftest_run_here_without_a_device_and_a_healthy_run(kb):
    with open(os.path.join(FIX, "ib_write_bw-no-device.txt")) as f:
        res = explain.explain_text(f.read(), kb)
    assert res["findings"][0]["id"] == "rdma.no_device"
    # a run that worked (the header perftest prints, then the results): nothing to answer
    res = explain.explain_text(
        "                    RDMA_Write BW Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n"
        " Max inline data : 0[B]\n rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 65536      5000             97.52              97.51  \t\t   0.185993\n", kb)
    assert res["verdict"] == "no_error"


def test_another_programs_couldnt_connect_to_a_url_is_not_perftest(kb):
    # transformers' hub error (utils/hub.py): the words of perftest's 'Couldn't connect to %s:%d' inside another line
    res = explain.explain_text("OSError: We couldn't connect to 'https://huggingface.co' to load the files, and "
                               "couldn't find them in the cached files.\n", kb)
    assert not any(f["id"].startswith("rdma.perftest") for f in res["findings"]), [f["id"] for f in res["findings"]]
