"""The fabric / MPI / Slurm-step / known-bug holes closed from the sources that print the messages (issue 18,
infra-src): each test checks the generator's mechanism on the real source text it reads, or explain on a real
text from the public thread cited above it.

- NCCL (tools/gen_nccl_messages.py): a message printed inside the function that an NCCL_* variable's value is
  passed to names that variable (`_env_functions`), so 'Could not open XML graph file' is nccl.topo_file whose
  fix unsets NCCL_GRAPH_FILE, ranked above the ncclSystemError NCCL returns after it;
- Open MPI (tools/gen_ompi_help.py): the help files of components Debian's openmpi-common does not build (the
  CUDA-aware build's help-mpi-common-cuda.txt) read from open-mpi/ompi; CUDA IPC between ranks is mpi.transport
  with btl_smcuda_use_cuda_ipc; Open MPI direct-launched by srun without PMI support is mpi.pmi.
"""

import json
import os
import re
import sys

from explainhelp import assert_root

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gen_nccl_messages as nccl  # noqa: E402
from gpudoctor.explain.knowledge import open_generated

# NVIDIA/nccl 5067397c (2.30.7): src/graph/search.cc ncclTopoCompute (lines 1111-1116) and src/graph/xml.cc
# ncclTopoGetXmlGraphFromFile (lines 1254-1259), verbatim
SEARCH_CC = '''ncclResult_t ncclTopoCompute(ncclTopoSystem* system, struct ncclTopoGraph* graph) {
  int ngpus = system->nodes[GPU].count;
  const char* str = ncclGetEnv("NCCL_GRAPH_FILE");
  if (str) {
    INFO(NCCL_ENV, "NCCL_GRAPH_FILE set by environment to %s", str);
    struct ncclXml* xml;
    NCCLCHECK(xmlAlloc(&xml, NCCL_GRAPH_XML_MAX_NODES));
    NCCLCHECK(ncclTopoGetXmlGraphFromFile(str, xml));
'''
XML_CC = '''ncclResult_t ncclTopoGetXmlGraphFromFile(const char* xmlGraphFile, struct ncclXml* xml) {
  FILE* file = fopen(xmlGraphFile, "r");
  if (file == NULL) {
    WARN("Could not open XML graph file %s : %s", xmlGraphFile, strerror(errno));
    return ncclSystemError;
  }
'''


def test_nccl_message_inside_a_reader_of_a_variable_names_that_variable():
    files = [("src/graph/search.cc", SEARCH_CC), ("src/graph/xml.cc", XML_CC)]
    assert nccl._env_functions(files) == {"ncclTopoGetXmlGraphFromFile": ["NCCL_GRAPH_FILE"]}
    site = [s for s in nccl.build(files, "slice")["sites"] if s["where"] == "src/graph/xml.cc:4"][0]
    assert site["env"] == ["NCCL_GRAPH_FILE"] and site["family"] == "nccl.topo_file" and site["rule"] == "env-file"
    assert "unset NCCL_GRAPH_FILE" in site["fix"][0]
    # a function given no variable's value: no env, the family its words give
    other = nccl.build([("src/graph/xml.cc", XML_CC)], "slice")["sites"][0]
    assert "env" not in other and other["family"] == "nccl.topology"


def test_committed_nccl_sites_name_their_variables(kb):
    by_text = {}
    for e in kb.entries:
        for p in e["_patterns"]:
            site = getattr(p, "site", None)
            if site:
                by_text.setdefault(site.get("text"), (e["id"], site))
    graph = by_text["Could not open XML graph file %s : %s"]
    topo = by_text["Could not open XML topology file %s : %s"]
    algo = by_text['Unrecognized element token "%s" when parsing "%s"']
    assert graph[0] == topo[0] == "nccl.topo_file" and algo[0] == "nccl.config"
    assert "NCCL_GRAPH_FILE" in graph[1]["fix"][0] and "NCCL_TOPO_FILE" in topo[1]["fix"][0]


# NVIDIA/nccl 5067397c (2.30.7), cut to the lines that matter: src/graph/xml.h kvConvertToInt (425-434),
# src/graph/topo.cc (643, 1738-1742, 1776-1780), src/ras/client_support.cc rasClientInitSocket (167-171),
# src/bootstrap.cc bootstrapNetInit (109-113), src/init.cc (1135-1137)
XML_H = """static ncclResult_t kvConvertToInt(const char* str, int* value, struct kvDict* dict) {
  struct kvDict* d = dict;
  WARN("KV Convert to int : could not find value of '%s' in dictionary, falling back to %d", str, d->value);
}
"""
TOPO_CC = """ncclResult_t ncclTopoAddPci(struct ncclXmlNode* xmlPci) {
  NCCLCHECK(kvConvertToInt(str, &type, kvDictPciClass));
}
ncclResult_t ncclTopoGetFusionEnv(int* mergeLevel, const char** forceMerge) {
  const char* mergeLevelEnv = ncclGetEnv("NCCL_NET_MERGE_LEVEL");
  if (mergeLevelEnv) {
    kvConvertToInt(mergeLevelEnv, mergeLevel, nicPathKvList);
  }
}
ncclResult_t ncclTopoGetSystem(struct ncclComm* comm, struct ncclTopoSystem** system, const char* dumpXmlFile) {
  const char* xmlTopoFile = ncclGetEnv("NCCL_TOPO_FILE");
  if (xmlTopoFile) {
    NCCLCHECKGOTO(ncclTopoGetXmlFromFile(xmlTopoFile, xml, 1), ret, fail);
  } else {
    NCCLCHECKGOTO(ncclTopoGetXmlFromFile("/var/run/nvidia-topologyd/virtualTopology.xml", xml, 0), ret, fail);
  }
  if (dumpXmlFile && comm->rank == ncclParamTopoDumpFileRank()) {
    NCCLCHECKGOTO(ncclTopoDumpXmlToFile(dumpXmlFile, xml), ret, fail);
  }
}
ncclResult_t ncclTopoDumpGraphs(struct ncclTopoSystem* system, int ngraphs, struct ncclTopoGraph** graphs) {
  const char* str = ncclGetEnv("NCCL_GRAPH_DUMP_FILE");
  if (str) {
    NCCLCHECKGOTO(ncclTopoDumpXmlToFile(str, xml), ret, fail);
  }
}
"""
INIT_CC = """static ncclResult_t initTransportsRank(struct ncclComm* comm, struct ncclComm* parent, uint64_t timers[TIMERS_INIT_COUNT]) {
  dumpXmlFile = ncclGetEnv("NCCL_TOPO_DUMP_FILE");
  if (dumpXmlFile) {
    NCCLCHECKGOTO(ncclTopoGetSystem(comm, NULL, dumpXmlFile), ret, fail);
  }
}
"""
RAS_CC = """ncclResult_t rasClientInitSocket() {
  const char* clientAddr = "localhost:" STR(NCCL_RAS_CLIENT_PORT);
  union ncclSocketAddress addr;
  if (const char* env = ncclGetEnv("NCCL_RAS_ADDR")) clientAddr = env;
  NCCLCHECKGOTO(ncclSocketGetAddrFromString(&addr, clientAddr), ret, fail);
}
ncclResult_t bootstrapNetInit() {
      const char* env = ncclGetEnv("NCCL_COMM_ID");
      if (env) {
        union ncclSocketAddress remoteAddr;
        if (ncclSocketGetAddrFromString(&remoteAddr, env) != ncclSuccess) {
"""


def test_a_helper_called_for_several_values_names_all_of_them_or_none():
    env_of = nccl._env_functions([("src/graph/xml.h", XML_H), ("src/graph/topo.cc", TOPO_CC),
                                  ("src/init.cc", INIT_CC), ("src/ras/client_support.cc", RAS_CC)])
    # kvConvertToInt converts NCCL_NET_MERGE_LEVEL once and an XML attribute elsewhere: no variable
    assert "kvConvertToInt" not in env_of
    # a literal path given to the same reader is no other variable
    assert env_of["ncclTopoGetXmlFromFile"] == ["NCCL_TOPO_FILE"]
    # the dump writer: NCCL_GRAPH_DUMP_FILE's value, and NCCL_TOPO_DUMP_FILE's through ncclTopoGetSystem's parameter
    assert env_of["ncclTopoDumpXmlToFile"] == ["NCCL_GRAPH_DUMP_FILE", "NCCL_TOPO_DUMP_FILE"]
    # the value copied once (clientAddr = env) is NCCL_RAS_ADDR's
    assert env_of["ncclSocketGetAddrFromString"] == ["NCCL_COMM_ID", "NCCL_RAS_ADDR"]
    site = [s for s in nccl.build([("src/graph/xml.h", XML_H), ("src/graph/topo.cc", TOPO_CC)], "slice")["sites"]
            if s["where"] == "src/graph/xml.h:3"][0]
    assert "env" not in site and site["family"] == "nccl.topology"


# https://github.com/JuliaGPU/CUDA.jl/issues/1053 (CUDA-aware Open MPI on memory of CUDA's stream-ordered
# allocator, which the legacy cuIpc* calls do not support)
CUIPC = ("The call to cuIpcGetMemHandle failed. This means the GPU RDMA protocol\n"
         "cannot be used.\n"
         "  cuIpcGetMemHandle return value:   1\n")


def test_cuda_ipc_between_ranks_is_the_smcuda_transport(kb):
    doc = explain.explain_text(CUIPC, kb)
    assert_root(doc, verdict="root_cause", entry="mpi.transport", fix_re=re.escape("btl_smcuda_use_cuda_ipc=0"))
    assert "help-mpi-common-cuda.txt" in " ".join(doc["findings"][0]["notes"])


# https://github.com/horovod/horovod/issues/82 (Open MPI's own words: a warning, the program continues)
def test_cuda_ipc_close_warning_is_no_root_cause(kb):
    text = ("--------------------------------------------------------------------------\n"
            "The call to cuIpcCloseMemHandle failed. This is a warning and the program\n"
            "will continue to run.\n"
            "  cuIpcCloseMemHandle return value:   4\n")
    doc = explain.explain_text(text, kb)
    assert not [f for f in doc["findings"] if f["id"] == "mpi.transport"]


# https://github.com/NVIDIA/nccl-tests/issues/289 (description: hypercube_perf on two RTX 5090 with NCCL 2.25.1; the
# same GPUs' failures were fixed by NCCL 2.26.2, nccl-tests#287 / #291, "Fix shared memory usage on recent Blackwell
# GPUs"), trimmed of the other runs it shows
NCCL_TESTS_289 = (
    "When run hypercube_perf test with 2*5090, show following errors;\n\n"
    "localhost: Test CUDA failure hypercube.cu:57 'invalid argument'\n"
    " .. localhost pid 180044: Test failure common.cu:383\n"
    " .. localhost pid 180044: Test failure common.cu:592\n\n"
    "cudaDriverVersion 12080\n"
    "NCCL version 2.25.1+cuda12.8\n\n"
    "[root@localhost build]# NCCL_DEBUG=INFO ./hypercube_perf -b 1g -e 32g -g 2 -f 2\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid 180044 on  localhost device  0 [0x1e] NVIDIA GeForce RTX 5090\n"
    "#  Rank  1 Group  0 Pid 180044 on  localhost device  1 [0x22] NVIDIA GeForce RTX 5090\n")


def test_known_bug_of_kind_error_needs_the_version_and_the_condition(kb):
    doc = explain.explain_text(NCCL_TESTS_289, kb)
    assert_root(doc, verdict="root_cause", entry="nccl.bug_2262_sm120_shmem", fix_re=r"nvidia-nccl-cu12>=2\.26\.2")
    assert doc["findings"][0]["notes"][0].startswith("How sure: medium. NCCL 2.25.1 ran here")
    # the fixed release, or another GPU, is no candidate
    for other in (NCCL_TESTS_289.replace("2.25.1+cuda12.8", "2.26.2+cuda12.8"),
                  NCCL_TESTS_289.replace("RTX 5090", "RTX 4090")):
        assert not [f for f in explain.explain_text(other, kb)["findings"] if f["id"] == "nccl.bug_2262_sm120_shmem"]


# srun's step retries (src/srun/launch.c): a wait the text never shows ended is the answer; one that ended ('Step
# created for StepId=...') is a note (both: tests/test_explain_slurm_fixes.py); a refusal after it is the root.
# https://github.com/eth-cscs/DLA-Future/issues/337
DLA_337 = ("srun: Job 29986033 step creation temporarily disabled, retrying (Requested nodes are busy)\n"
           "srun: Job 29986033 step creation still disabled, retrying (Requested nodes are busy)\n"
           "srun: error: Unable to create step for job 29986033: Memory required by task is not available\n")


def test_a_step_still_waiting_is_the_answer_a_refusal_after_it_is_not(kb):
    # the old wording (Slurm 17-20: no job id, no reason), bioinfologics/satsuma2#36
    old = "srun: mem < mem-per-cpu - resizing mem to be equal to mem-per-cpu\nsrun: Job step creation temporarily " \
          "disabled, retrying\n"
    doc = explain.explain_text(old, kb)
    assert_root(doc, verdict="root_cause", entry="slurm.step_wait", fix_re=r"srun --overlap")
    assert doc["findings"][0]["notes"][0].startswith("How sure: medium. A wait, not an error: line 2 is the last")
    doc = explain.explain_text(DLA_337, kb)
    assert doc["verdict"] == "root_cause" and doc["findings"][0]["id"] != "slurm.step_wait"


# UCX without its cuda_copy transport on GPU buffers (the UCX FAQ's segfault question).
# https://github.com/openucx/ucx/issues/6327 (description: UCX_TLS=sm,gdr_copy, osu_bw H D)
UCX_6327 = ("> UCX_TLS=sm,gdr_copy LD_LIBRARY_PATH=$HOME/cuda/11.0.2/lib64:$LD_LIBRARY_PATH mpirun -np 2 ./osu_bw H D\n"
            "# OSU MPI-CUDA Bandwidth Test v5.7\n"
            "# Send Buffer on HOST (H) and Receive Buffer on DEVICE (D)\n"
            "# Size      Bandwidth (MB/s)\n"
            "[wvhpc02g01:44247:0:44247] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
            "address 0x7f8cf7800000)\n"
            "==== backtrace (tid:  44247) ====\n"
            " 0 0x0000000000054195 ucs_debug_print_backtrace()  /build-result/src/hpcx-v2.8.0-gcc-MLNX_OFED_LINUX-5.2-"
            "1.0.4.0-redhat7.6-x86_64/ucx-v1.10.x/src/ucs/debug/debug.c:656\n"
            " 1 0x000000000014e803 __memcpy_ssse3()  :0\n")
# https://github.com/openucx/ucx/issues/2241 (description: UCX_TLS=dc,gdr_copy,cuda_copy keeps cuda_copy; that
# crash had another cause)
UCX_2241 = ("    mpirun -mca pml ucx -mca coll ^hcoll -x UCX_TLS=dc,gdr_copy,cuda_copy -np 2 mpi/pt2pt/osu_bw D D\n"
            "[vulcan03:33060:0:33060] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
            "address 0x7f89a8000000)\n"
            "==== backtrace ====\n"
            " 0 0x000000000014d630 __memcpy_ssse3_back()  :0\n")


def test_ucx_tls_without_cuda_copy_on_gpu_buffers(kb):
    assert_root(explain.explain_text(UCX_6327, kb), verdict="root_cause", entry="ucx.gpu_memory_undetected",
                fix_re=r"UCX_TLS=rc,cuda_copy")
    assert not [f for f in explain.explain_text(UCX_2241, kb)["findings"] if f["id"] == "ucx.gpu_memory_undetected"]
    # host buffers only (osu_bw H H): not this
    host = UCX_6327.replace("osu_bw H D", "osu_bw H H").replace("Receive Buffer on DEVICE (D)", "Receive Buffer on HOST (H)")
    assert not [f for f in explain.explain_text(host, kb)["findings"] if f["id"] == "ucx.gpu_memory_undetected"]


def test_open_mpi_5_topics_debian_lacks_are_read_from_the_source():
    # open-mpi/ompi v5.0.9 ompi/runtime/help-mpi-runtime.txt [no-pmix-but] (added by open-mpi/ompi#10289) and
    # v4.1.8 opal/mca/common/cuda/help-mpi-common-cuda.txt: topics no Debian help file holds
    with open_generated("ompi_help") as f:
        doc = json.load(f)
    by_where = {s["where"]: s for s in doc["sites"]}
    pmix = by_where["help-mpi-runtime.txt [no-pmix-but]"]
    assert pmix["family"] == "mpi.pmi" and "srun --mpi=pmix" in pmix["fix"][0]
    assert re.search(pmix["re"], "No PMIx server was reachable, but a PMI1/2 was detected.")
    assert by_where["help-mpi-common-cuda.txt [cuIpcOpenMemHandle failed]"]["family"] == "mpi.transport"
    assert "v5.0.9" in doc["header"]["version"] and "open-mpi/ompi" in doc["header"]["source"]


# ORTE's / PRRTE's banner on the clean-output stream (orte/mca/oob/tcp/oob_tcp_connection.c: opal_output(
# orte_clean_output, ...), no help topic): https://github.com/openpmix/prrte/issues/2029 (the daemons connected over an
# interface the other node cannot reach; settled with the interface selection)
PRRTE_2029 = (
    "[ip-172-31-12-231:105225] [prterun-ip-172-31-15-200-367809@0,1] prte_tcp_peer_try_connect: 172.31.12.181:43665 "
    "is down\n"
    "------------------------------------------------------------\n"
    "A process or daemon was unable to complete a TCP connection\n"
    "to another process:\n"
    "  Local host:    ip-172-31-12-231\n"
    "  Remote host:   172.31.12.181\n"
    "This is usually caused by a firewall on the remote host. Please\n"
    "check that any firewall (e.g., iptables) has been disabled and\n"
    "try again.\n"
    "------------------------------------------------------------\n")


def test_the_oob_tcp_banner_is_the_interface_family(kb):
    assert_root(explain.explain_text(PRRTE_2029, kb), verdict="root_cause", entry="mpi.btl_tcp_if",
                fix_re=r"oob_tcp_if_include")


# UCX's check of UCX_NET_DEVICES / UCX_TLS (src/ucp/core/ucp_context.c ucp_report_unavailable).
# https://github.com/ai-dynamo/dynamo/issues/1209 (UCX_NET_DEVICES=mlx5_bond_0:1 in a container)
DYNAMO_1209 = ("> ucp_context.c:1321 UCX  WARN  network device 'mlx5_bond_0:1' is not available, please use one or more "
               "of: 'bond0'(tcp), 'bond1'(tcp), 'bond2'(tcp), 'bond3'(tcp), 'eth0'(tcp), 'lo'(tcp)\n")


def test_ucx_names_a_device_or_transport_the_node_lacks(kb):
    doc = explain.explain_text(DYNAMO_1209, kb)
    assert_root(doc, verdict="root_cause", entry="ucx.config_unavailable", fix_re=r"--device=/dev/infiniband")
    # the same check for a transport (UCX_TLS): the transport cause first; the title of openucx/ucx#8808, the line
    # cut before its list
    doc = explain.explain_text("ucp_context.c:1100 UCX WARN transport 'ud' is not available\n", kb)
    assert doc["findings"][0]["id"] == "ucx.config_unavailable"
    assert doc["findings"][0]["causes"][0]["text"].startswith("UCX_TLS names a transport")


def test_an_nccl_older_than_the_gpu(kb):
    # NCCL's release notes add GPU generations (2.7.3 A100, 2.15.1 H100 (sm90), 2.25.1 Blackwell/SM100;
    # tools/gen_nccl_releases.py SUPPORT_ADDED); nccl-tests#289's text on an H100 with NCCL 2.14.3, the same
    # failure: this NCCL predates the GPU
    text = NCCL_TESTS_289.replace("GeForce RTX 5090", "H100 80GB HBM3").replace("2.25.1+cuda12.8", "2.14.3+cuda11.7")
    assert_root(explain.explain_text(text, kb), verdict="root_cause", entry="nccl.predates_sm90",
                fix_re=r"nvidia-nccl-cu1\d>=2\.15\.1")
    newer = text.replace("2.14.3+cuda11.7", "2.15.1+cuda11.7")
    assert not [f for f in explain.explain_text(newer, kb)["findings"] if f["id"].startswith("nccl.predates")]


# PRRTE's own banner (openpmix/prrte v3.0.14 src/mca/oob/tcp/oob_tcp_connection.c:412, pmix_output to
# prte_clean_output, its source lines shortened; tools/gen_prrte_help.py banners())
def test_prrte_oob_banner_is_read_from_its_source():
    import gen_prrte_help as prrte

    src = ('        pmix_output(prte_clean_output,\n'
           '                    "------------------------------------------------------------\\n"\n'
           '                    "A daemon was unable to complete a TCP connection\\n"\n'
           '                    "to another daemon:\\n"\n'
           '                    "  Local host:    %s\\n"\n'
           '                    "------------------------------------------------------------",\n'
           '                    prte_process_info.nodename);\n')
    text = prrte.banners("src/mca/oob/tcp/oob_tcp_connection.c", src)
    assert text.startswith("[oob_tcp_connection.c:1]\nA daemon was unable to complete a TCP connection\nto another")
    site = prrte.build([("prte-clean-output", text)], "slice")["sites"][0]
    assert site["family"] == "mpi.btl_tcp_if" and site["rule"] == "tcp-banner"


def test_nvidia_smi_messages_kept_as_16_byte_pieces(kb):
    # Debian's nvidia-smi 535.261.03 holds 'No MIG-enabled devices found.' only as its first 16 bytes, beside other
    # such pieces with no NUL between them (offset 552752 of /usr/lib/nvidia/current/nvidia-smi, these bytes)
    import gen_nvidia_smi_messages as smi

    data = b"\0" * 16 + b"Failed to redireNo MIG-enabled d       > <P >  <USAGE   >  <MEM    >\0"
    assert smi.chunks(data) == ["No MIG-enabled d"]
    assert smi.chunks(b"\0" * 8 + data[16:]) == []  # a run that does not start 16-byte aligned is no such piece
    doc = explain.explain_text("No MIG-enabled devices found.\n", kb)
    assert_root(doc, verdict="root_cause", entry="nvidia_smi.mig", fix_re=r"whole GPUs")


# NCCL's 'NET/IB : %s:%d GID table changed' (src/transport/net_ib/common.cc, IBV_EVENT_GID_CHANGE) told in words:
# https://github.com/NVIDIA/nccl/issues/1333 (its title; the thread's answer: NCCL >= 2.21 finds the GID index itself
# on the next run, a running communicator does not recover)
NCCL_1333 = "GID index change cause training to stop on ConnectX-7 400G Adapters when traing LLM\n"


def test_a_gid_table_that_changed_under_the_job(kb):
    doc = explain.explain_text(NCCL_1333, kb)
    assert_root(doc, verdict="root_cause", entry="rdma.gid_index", fix_re=r"leave NCCL_IB_GID_INDEX unset")
    assert doc["findings"][0]["causes"][0]["text"].startswith("RoCE: the port's GID table changed")
