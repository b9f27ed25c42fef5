export PDSH_SSH_ARGS_APPEND="-F /tmp/heldout-p54/ssh/config"
rec() { local n=$1; shift; { echo "\$ $*"; timeout ${T:-90} bash -c "$*" 2>&1; } > /tmp/heldout-p54/cases/$n.txt; echo "rc=$? ($n)"; tail -${TL:-30} /tmp/heldout-p54/cases/$n.txt; }
export OMPI_MCA_plm_rsh_args="-F /tmp/heldout-p54/ssh/config" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
