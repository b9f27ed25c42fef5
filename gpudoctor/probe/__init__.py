"""`gpudoctor probe`: measure the fabric the job will use.

Node side (stdlib only, sent on stdin to the node's interpreter like the collector):
``worker_tcp`` (TCP throughput between two nodes, both directions), ``worker_nccl`` (one
process per GPU with the job's torch + NCCL: all_reduce / all_gather timings and NCCL's own
INFO lines), ``cleanup`` (ends every process of one probe run on a node).

Controller side: ``launch`` (the one function that starts a worker on a node, over a
transport), ``plan`` (rounds of node pairs), ``nccl_log`` (which transport NCCL chose, from
its INFO lines), ``metrics`` (algbw/busbw, all-reduce time per step), ``findings``
(``probe.*`` verdicts from measurements and facts), ``run`` (phases under one budget),
``report`` (the ``gpudoctor.probe/1`` document and its text form).
"""

SCHEMA = "gpudoctor.probe/1"
