"""tools/gen_ompi_messages.py and tools/gen_ompi_help.py's new paths against the survivors of a mutation run
(docs/mutation.md, sixth round): before these tests every mutant of gen_ompi_messages.sites_of / _banner_lines and
gen_ompi_help.from_tags had no test mutmut could see (the round-trip tests regenerate from the slices in another
interpreter). sites_of is fed calls in Open MPI's own forms (orte/mca/oob/tcp/oob_tcp_connection.c's
opal_output(orte_clean_output, ...) banner between dashed lines; opal_output(0, ...); BTL_ERROR((...));
MCA_COMMON_UCX_WARN / PML_UCX_ERROR), and from_tags reads a git repository built here in open-mpi/ompi's layout
(help-*.txt files, a test tree, two tags)."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_ompi_help as H  # noqa: E402
import gen_ompi_messages as G  # noqa: E402

SRC = r'''
#define opal_output(a, b) foo
static void f(void) {
    opal_output(orte_clean_output,
                "------------------------------------------------------------\n"
                "A process or daemon was unable to complete a TCP connection\n"
                "to another process:\n"
                "  Local host:    %s\n"
                "------------------------------------------------------------",
                orte_process_info.nodename);
    opal_output(orte_clean_output, "-----\n" "=====\n");
    opal_output(orte_clean_output, "---\n" "The \"tcp\" component was unable to start\n" "---\n");
    opal_output(0, "%s connect() to %s failed: %s (%d)", ORTE_NAME_PRINT(ORTE_PROC_MY_NAME), host, strerror(err), err);
    opal_output(5, "connect() to %s failed", host);
    opal_output(0, "plm:rsh: final top-level argv:");
    opal_output(0, "WARNING: the ring could not be closed: failed");
    opal_output(0, "%s Warning: could not bind", x);
    opal_output(0);
    BTL_ERROR(("mca_btl_tcp_frag_send: writev failed: %s (%d)", strerror(opal_socket_errno), opal_socket_errno));
    BTL_ERROR(x);
    BTL_PEER_ERROR(NULL, ());
    MCA_COMMON_UCX_WARN("UCX is unable to handle VM_UNMAP event. This may cause performance degradation.");
    PML_UCX_ERROR("ucp_ep_create(proc=%d) failed: %s", 1, x);
}
'''


def test_sites_of_open_mpis_calls():
    assert list(G.sites_of("orte/mca/oob/tcp/x.c", SRC)) == [
        ("output", "error", "orte/mca/oob/tcp/x.c:4", "A process or daemon was unable to complete a TCP connection"),
        ("output", "error", "orte/mca/oob/tcp/x.c:12", 'The "tcp" component was unable to start'),
        ("output", "error", "orte/mca/oob/tcp/x.c:13", "%s connect() to %s failed: %s (%d)"),
        ("output", "warn", "orte/mca/oob/tcp/x.c:16", "WARNING: the ring could not be closed: failed"),
        ("output", "warn", "orte/mca/oob/tcp/x.c:17", "%s Warning: could not bind"),
        ("btl", "error", "orte/mca/oob/tcp/x.c:19", "mca_btl_tcp_frag_send: writev failed: %s (%d)"),
        ("ucx", "warn", "orte/mca/oob/tcp/x.c:22", "UCX is unable to handle VM_UNMAP event. This may cause "
                                                    "performance degradation."),
        ("ucx", "error", "orte/mca/oob/tcp/x.c:23", "ucp_ep_create(proc=%d) failed: %s")]


def test_a_banners_printed_lines():
    assert G._banner_lines('"a\\n" "b\\n" "  \\n" "c"') == ['"a"', '"b"', '"c"']
    assert G._banner_lines('"a\\nb" x "c"') == ['"a"', '"bc"']
    assert G._banner_lines("no_literal") == []


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c",
                           "commit.gpgsign=false", "-c", "tag.gpgsign=false"] + list(args),
                          check=True, capture_output=True, text=True).stdout


def _write(repo, files):
    for p, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(repo, p)), exist_ok=True)
        with open(os.path.join(repo, p), "w") as f:
            f.write(text)


RUNTIME = "# comment\n[mpi_init:startup]\nThe MPI startup failed.\n\n[no-pmix-but]\nNo PMIx server was reachable, " \
          "but a PMI1/2 was detected.\n"


def test_from_tags_reads_new_files_and_new_topics(tmp_path):
    repo = str(tmp_path)
    _git(repo, "init", "-q")
    _write(repo, {"ompi/runtime/help-mpi-runtime.txt": RUNTIME, "opal/mca/x/help-new.txt": "[one]\nFirst one.\n",
                  "ompi/test/help-test.txt": "[t]\nx\n", "test/help-top.txt": "[t]\nx\n",
                  "opal/mca/testing/help-testing.txt": "[x]\nA component named testing.\n",
                  "ompi/runtime/notes.txt": "[n]\nx\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "a")
    _git(repo, "tag", "v5.0.0")
    _write(repo, {"opal/mca/x/help-new.txt": "[one]\nFirst one changed.\n[two]\nSecond.\n"})
    _git(repo, "commit", "-q", "-am", "b")
    _git(repo, "tag", "v5.0.9")
    c1, c2 = (_git(repo, "rev-parse", t).strip() for t in ("v5.0.0", "v5.0.9"))
    have = {"help-mpi-runtime.txt": "[mpi_init:startup]\nThe MPI startup failed.\n"}
    files, version = H.from_tags(repo, ["v5.0.0", "v5.0.9"], have)
    assert files == [("help-mpi-runtime.txt", "[no-pmix-but]\nNo PMIx server was reachable, but a PMI1/2 was detected."
                                              "\n"),
                     ("help-testing.txt", "[x]\nA component named testing.\n"), ("help-new.txt", "[one]\nFirst one.\n"),
                     ("help-new.txt", "[two]\nSecond.\n")]
    # (a test tree at the top, test/, is left out too; a folder whose name only starts with 'test' is read)
    assert version == ("open-mpi/ompi v5.0.0 (commit %s): 2 files, 1 more topics, v5.0.9 (commit %s): 0 files, "
                       "1 more topics" % (c1, c2))
    assert H.from_tags(repo, [], have) == ([], "open-mpi/ompi ")


# ------------------------------------------------------------------ gen_nccl_messages: which NCCL_* a function is given

import gen_nccl_messages as N  # noqa: E402

NCCL_SRC = '''ncclResult_t ncclTopoGetXmlFromFile(const char* xmlTopoFile, struct ncclXml* xml, int warn) {
  FILE* file = fopen(xmlTopoFile, "r");
  if (file == NULL) {
    WARN("Could not open XML topology file %s : %s", xmlTopoFile, strerror(errno));
  }
}

static ncclResult_t ncclTopoGetSystem(struct ncclTopoSystem** system) {
  const char* xmlTopoFile = ncclGetEnv("NCCL_TOPO_FILE");
  if (xmlTopoFile) {
    NCCLCHECK(ncclTopoGetXmlFromFile(xmlTopoFile, xml, 1));
    INFO(NCCL_ENV, "NCCL_TOPO_FILE set by environment to %s", xmlTopoFile);
    ReadTopo(xml, xmlTopoFile);
  }
}
'''


def test_the_nccl_variable_a_function_is_given():
    # (src/graph/topo.cc's form: the variable's value passed on; INFO and NCCLCHECK are no readers)
    assert N._env_functions([("src/graph/topo.cc", NCCL_SRC)]) == {"ncclTopoGetXmlFromFile": ["NCCL_TOPO_FILE"],
                                                                   "ReadTopo": ["NCCL_TOPO_FILE"]}
    assert N._enclosing(NCCL_SRC, 4) == "ncclTopoGetXmlFromFile"
    assert N._enclosing(NCCL_SRC, 10) == "ncclTopoGetSystem"
    assert N._enclosing("int x;\n", 1) is None


def test_from_the_after_runs_survivors(tmp_path):
    src = ('opal_output(orte_clean_output, "---\\n" "ERROR:\\n" "details unable\\n");\n'
           'opal_output(orte_clean_output, "---\\n" "unable to connect\\n");\n'
           'opal_output(0, "%s WARNING: could not bind, failed", x);\n')
    assert list(G.sites_of("x.c", src)) == [("output", "error", "x.c:1", "ERROR:"),
                                            ("output", "error", "x.c:2", "unable to connect"),
                                            ("output", "warn", "x.c:3", "%s WARNING: could not bind, failed")]
    # two new files and a known file with two new topics in one tag
    repo = str(tmp_path)
    _git(repo, "init", "-q")
    _write(repo, {"a/help-a.txt": "[a]\nA.\n", "a/help-b.txt": "[b]\nB.\n", "b/help-mpi-runtime.txt": RUNTIME +
                  "[third]\nThird failed.\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "a")
    _git(repo, "tag", "v1")
    files, version = H.from_tags(repo, ["v1"], {"help-mpi-runtime.txt": "[other]\nx\n"})
    assert files == [("help-a.txt", "[a]\nA.\n"), ("help-b.txt", "[b]\nB.\n"),
                     ("help-mpi-runtime.txt", "[mpi_init:startup]\nThe MPI startup failed.\n[no-pmix-but]\nNo PMIx "
                      "server was reachable, but a PMI1/2 was detected.\n[third]\nThird failed.\n")]
    assert version.endswith("): 2 files, 3 more topics")
