"""Cases for the mutants of gpudoctor/explain/rankev.py's rules (docs/mutation.md, fifth round).

test_explain_rankev.py checks a few words of each answer on real and planted logs; these build a log for each
branch of the rules from the formats torch prints (ProcessGroupNCCL.cpp's watchdog line WorkNCCL(SeqNum, OpType,
NumelIn, NumelOut), its status lines, the Flight Recorder's 'Stack trace of the failed collective:' frames,
broadcastUniqueNCCLID's store key, TraceUtils.h's desync report: quoted in rankev's docstring) and compare
`answer`'s whole result (entry, how sure, the cause, the fix lines, the evidence lines) with the reviewed table
tests/test_mutation_rankev.json: a different order, sizes that differ (plain, in FSDP's all-gather, in DDP's
construction), FSDP's all-gathers at different numbers, a collective another rank completed (in DDP's
construction, rooted, not rooted), another communicator key (1, 0, a point-to-point pair, beside a status line
only, with no other rank), the rank behind by the status lines and by the desync report."""

import io
import json
import os

import pytest

from gpudoctor.explain import rankev
from gpudoctor.explain.scan import Scan, scan_stream

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "test_mutation_rankev.json"), encoding="utf-8") as _f:
    WANT = json.load(_f)

WD = ("[rank{r}]:[E1126 09:01:45.829430831 ProcessGroupNCCL.cpp:689] [Rank {r}] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum={s}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran "
      "for 600061 milliseconds before timing out.\n")
PG = ("[rank{r}]:[E1126 09:01:45.829625176 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank {r}]  "
      "failure detected by watchdog at work sequence id: {s} PG status: last enqueued work: {e}, last completed work: "
      "{c}\n")
FR = "[rank{r}]:#{i} {fn} from /usr/lib/python3/site-packages/torch/distributed/fsdp/_flat_param.py:{l}\n"
DD = "[rank{r}]:#{i} {fn} from /usr/lib/python3/site-packages/torch/distributed/utils.py:{l}\n"
HEAD = "[rank{r}]:Stack trace of the failed collective:\n"
UID = ("[rank{r}]:[W ProcessGroupNCCL.cpp:1] [{r}] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
       "via c10d key-value store by key '{k}', but store->get('{k}') got error: wait timeout\n")
DUMP = ("[rank1]:[E1126 09:01:45.012940118 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0(default_pg) Rank 1] Received a "
        "dump signal due to a collective timeout from rank 0 and we will try our best to dump the debug info. Last "
        "enqueued NCCL work: 5, last completed NCCL work: 5.\n")
DS = ("[rank0]:[E ProcessGroupNCCL.cpp:1937] Rank 0\n         - [0] Timeout at collective: ALLREDUCE, #315\n"
      "         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n"
      "           - ranks [3, 5] are the lagging ranks that caused this timeout. They never joined any collectives\n")
DS2 = ("[rank0]:[E ProcessGroupNCCL.cpp:1937] Rank 0\n         - [0] Timeout at collective: ALLREDUCE, #315\n"
       "             [7] finished collective #182, but didn't join collective #183 (count from 1)\n")


def wd(r, s, op, n):
    return WD.format(r=r, s=s, op=op, n=n)


TEXTS = {
    "order": wd(0, 5, "ALLREDUCE", 8) + wd(1, 5, "_ALLGATHER_BASE", 8),
    "sizes": wd(0, 5, "ALLREDUCE", 8) + wd(1, 5, "ALLREDUCE", 16),
    "fsdp": wd(0, 5, "_ALLGATHER_BASE", 8) + HEAD.format(r=0) + FR.format(r=0, i=0, fn="_all_gather_flat_param", l=10)
    + wd(1, 5, "_ALLGATHER_BASE", 16),
    "fsdp_apart": wd(0, 5, "_ALLGATHER_BASE", 8) + HEAD.format(r=0)
    + FR.format(r=0, i=0, fn="_all_gather_flat_param", l=10) + wd(1, 7, "_ALLGATHER_BASE", 8) + HEAD.format(r=1)
    + FR.format(r=1, i=0, fn="_all_gather_flat_param", l=10),
    "ddp_sizes": wd(0, 5, "BROADCAST", 8) + HEAD.format(r=0) + DD.format(r=0, i=0, fn="_sync_module_states", l=10)
    + wd(1, 5, "BROADCAST", 16),
    "passed_ddp": wd(1, 4, "BROADCAST", 4096) + HEAD.format(r=1)
    + DD.format(r=1, i=0, fn="_sync_params_and_buffers", l=10) + PG.format(r=1, s=4, e=4, c=3)
    + PG.format(r=0, s=5, e=5, c=4) + wd(0, 5, "ALLREDUCE", 1),
    "passed_rooted": wd(0, 4, "BROADCAST", 4096) + PG.format(r=0, s=4, e=4, c=3) + PG.format(r=1, s=5, e=5, c=4),
    "passed_unrooted": wd(0, 4, "ALLREDUCE", 4096) + PG.format(r=0, s=4, e=4, c=3) + PG.format(r=1, s=5, e=5, c=4),
    "device": UID.format(r=1, k=1) + wd(0, 2, "ALLREDUCE", 8),
    "device_key0": UID.format(r=1, k=0) + wd(0, 2, "ALLREDUCE", 8),
    "device_pair": UID.format(r=1, k="0:1") + wd(0, 2, "ALLREDUCE", 8),
    "device_status": UID.format(r=1, k=2) + PG.format(r=0, s=2, e=2, c=1),
    "device_alone": UID.format(r=1, k=2) + wd(1, 2, "ALLREDUCE", 8),
    "behind_status": wd(0, 6, "ALLREDUCE", 8) + PG.format(r=0, s=6, e=6, c=5) + DUMP,
    "desync_never": DS,
    # the report without its 'Timeout at collective' line
    "desync_never_alone": DS.replace("         - [0] Timeout at collective: ALLREDUCE, #315\n", ""),
    # releases before NumelIn/NumelOut: 'WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000)'
    "order_old": "".join("[rank%d]:[E1126 09:01:45.829430831 ProcessGroupNCCL.cpp:689] [Rank %d] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=5, OpType=%s, Timeout(ms)=600000) ran for 600061 milliseconds "
                         "before timing out.\n" % (r, r, op) for r, op in ((0, "ALLREDUCE"), (1, "BROADCAST"))),
    "desync_finished": DS2,
}


@pytest.fixture(scope="module")
def scans(kb):
    def scan(text):
        s = Scan()
        scan_stream(io.BytesIO(text.encode()), kb, s, "<t>")
        return s
    return scan


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_answer_whole(scans, name):
    a = rankev.answer(scans(TEXTS[name]))
    got = None if a is None else {"entry": a["entry"], "sure": a["sure"], "cause": a["cause"], "fix": a["fix"],
                                  "evidence": [e["line"] for e in a["evidence"]]}
    assert got == WANT[name]


def test_the_table_is_the_cases():
    assert sorted(WANT) == sorted(TEXTS) and sum(1 for v in WANT.values() if v is None) == 4 and len(WANT) == 18
