"""MPI launched by srun, and the UCX under it: Open MPI's help topics for ranks srun started that cannot
reach a process manager they speak (tools/gen_ompi_help.py over Debian's openmpi-common 4.1.4-3
help-ess-base.txt [slurm-error], [slurm-error2] and help-pmix-base.txt [pmix2-init-failed]; PRRTE's copies
through tools/gen_prrte_help.py), answered as mpi.pmi (the MPI library's side of the process-manager
interface, as MPICH's PMI client is) with srun --mpi=pmix / mpirun / the rebuild; UCX's
API version check (tools/gen_ucx_messages.py: src/ucp/core/ucp_context.c), answered as
ucx.version_mismatch; Slurm's own side of it (tools/gen_slurm_messages.py: the mpi/pmix plugin and
plugin_context_create()'s lookups in src/common/plugin.c, one site per plugin type); a PMIx client without
the munge security component that Slurm's PMIx server asks for (mpi.toml mpi.pmix_psec_munge, from
openpmix's help-pmix-mca-base.txt [find-available:not-valid]); MPICH's PMI client
(tools/gen_mpich_messages.py: src/pmi's PMIU_printf/perror failures, 'This singleton init program attempted
to access some feature'), answered as mpi.pmi. Every text is a real one from the public thread cited above
it (none from the held-out sets: threads that the held-out tables of docs/explain.md name are left out).
The generators' regeneration from their slices: tests/test_explain_generated.py (ompi_help),
tests/test_explain_ucx.py and tests/test_explain_mpi.py (mpich_messages).
"""

import re

import pytest
from explainhelp import assert_root

from gpudoctor import explain

OMPI_SLURM_ERROR = (
    "--------------------------------------------------------------------------\n"
    "The application appears to have been direct launched using \"srun\",\n"
    "but OMPI was not built with SLURM's PMI support and therefore cannot\n"
    "execute. There are several options for building PMI support under\n"
    "SLURM, depending upon the SLURM version you are using:\n\n"
    "  version 16.05 or later: you can use SLURM's PMIx support. This\n"
    "  requires that you configure and build SLURM --with-pmix.\n\n"
    "  Versions earlier than 16.05: you must use either SLURM's PMI-1 or\n"
    "  PMI-2 support. SLURM builds PMI-1 by default, or you can manually\n"
    "  install PMI-2. You must then build Open MPI using --with-pmi pointing\n"
    "  to the SLURM PMI library location.\n\n"
    "Please configure as appropriate and try again.\n"
    "--------------------------------------------------------------------------\n")

CASES = [
    # https://github.com/clusterinthecloud/ansible/issues/24 (srun -l labels each line with the task number)
    ("ompi-no-pmi",
     "start\n" + "".join("0: " + ln + "\n" for ln in OMPI_SLURM_ERROR.splitlines()[1:-1]),
     "mpi.pmi", "srun --mpi=pmix"),
    # https://github.com/open-mpi/ompi/pull/3778 (what a direct launch without PMI support prints)
    ("ompi-no-pmi-mpi-init",
     "$ srun -n 1 ./mpi_spin\n" + OMPI_SLURM_ERROR + "*** An error occurred in MPI_Init\n*** on a NULL communicator\n"
     "*** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,\n",
     "mpi.pmi", "mpirun / mpiexec inside the allocation"),
    # https://github.com/ArjunaCluster/ArjunaUsers/issues/172 (srun --mpi=pmi2 with an Open MPI built for PMIx)
    ("pmi2-init",
     "srun: error: spank: x11.so: Plugin file not found\n"
     "--------------------------------------------------------------------------\n"
     "PMI2_Init failed to intialize.  Return code: 1\n"
     "--------------------------------------------------------------------------\n",
     "mpi.pmi", "srun --mpi=pmix"),
    # https://github.com/geoschem/geos-chem/issues/822 (a Slurm built without PMIx; before 25.11 plugin.c's lookups
    # printed at error level)
    ("slurm-no-pmix-plugin",
     "+ srun -m plane=30 --mpi=pmix ./gchp\n"
     "srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files\n"
     "srun: error: cannot find mpi plugin for mpi/pmix\n"
     "srun: error: cannot create mpi context for mpi/pmix\n"
     "srun: error: \"--mpi=pmix\" -- long invalid MPI type, --mpi=list for acceptable types.\n",
     "slurm.mpi", "--with-pmix"),
    # https://github.com/SergioMEV/slurm-for-dummies/issues/15 (mpi_pmix_v4.so cannot load libpmix)
    ("slurm-pmix-library",
     "Aug 18 20:57:02 computen1 slurmd[8713]: slurmd: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:193: "
     "pmi/pmix: can not load PMIx library\n"
     "Aug 18 20:57:02 computen1 slurmd[8713]: slurmd: error: Couldn't load specified plugin name for mpi/pmix: "
     "Plugin init() callback failed\n"
     "Aug 18 20:57:02 computen1 slurmd[8713]: slurmd: error: MPI: Cannot create context for mpi/pmix\n",
     "slurm.mpi", "ldd <PluginDir>/mpi_pmix"),
    # https://github.com/NVIDIA/pyxis/issues/139 (an image whose PMIx lacks munge, under Slurm's PMIx: pmix_init fails)
    ("pmix-psec-munge",
     "$ srun --container-name=image_segmentation_105400 bash -c \"all_reduce_perf_mpi -b 62M -e 62M -d half\"\n"
     "--------------------------------------------------------------------------\n"
     "A requested component was not found, or was unable to be opened.  This\n"
     "means that this component is either not installed or is unable to be\n"
     "used on your system (e.g., sometimes this means that shared libraries\n"
     "that the component requires are unable to be found/loaded).  Note that\n"
     "PMIX stopped checking at the first component that it did not find.\n\n"
     "Host:      gpu1\nFramework: psec\nComponent: munge\n"
     "--------------------------------------------------------------------------\n\n"
     "--------------------------------------------------------------------------\n"
     "It looks like pmix_init failed for some reason; your parallel process is\n"
     "likely to abort.  There are many reasons that a parallel process can\n",
     "mpi.pmix_psec_munge", "PMIX_MCA_psec=^munge"),
    # https://github.com/pmodels/mpich/issues/6924 (MPICH under srun without a PMI server: each rank a singleton)
    ("mpich-singleton",
     "> srun -n 2 hello_world\n"
     "PMII_singinit: execv failed: No such file or directory\n"
     "[unset]:   This singleton init program attempted to access some feature\n"
     "[unset]:   for which process manager support was required, e.g. spawn or universe_size.\n"
     "[unset]:   But the necessary mpiexec is not in your path.\n"
     "[unset]: write_line error; fd=-1 buf=:cmd=get kvsname=singinit_kvs_943014_0 key=PMI_mpi_memory_alloc_kinds\n"
     ":\nsystem msg for write_line failure : Bad file descriptor\nexp-9-17: 0 / 1 OK\nexp-9-17: 0 / 1 OK\n",
     "mpi.pmi", "srun --mpi=pmi2"),
    # https://github.com/openucx/ucx/pull/7986 (the check's wording since UCX 1.13, as its description shows it)
    ("ucx-api-version",
     "[1645974950.527876] [myhost:27319:0]     ucp_context.c:1810 UCX  WARN  UCP API version is incompatible: "
     "required >= 1.13, actual 1.12.0 (loaded from /path/to/usr/lib64/libucp.so.0)\n",
     "ucx.version_mismatch", "ucx_info -v"),
    # https://github.com/openucx/ucx/issues/6694 (UCX 1.10's wording of the same check)
    ("ucx-version-old",
     " ucp_context.c:1585 UCX  WARN  UCP version is incompatible, required: 1.11, actual: 1.10 (release 0 "
     "/usr/lib/libucp.so.0.0.0)\n",
     "ucx.version_mismatch", "LD_LIBRARY_PATH"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_srun_mpi_texts_get_the_fix(kb, name, text, family, fix):
    assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=re.escape(fix))


def test_ucx_version_line_of_another_program_is_not_ucx(kb):
    # the check's words without UCX's log line shape ('file.c:line  UCX  WARN') are not UCX's
    res = explain.explain_text("plugin: API version is incompatible: required >= 2.1, actual 2.0\n", kb)
    assert not [f for f in res["findings"] if f["id"] == "ucx.version_mismatch"]
