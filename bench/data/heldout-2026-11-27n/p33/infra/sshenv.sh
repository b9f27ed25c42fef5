export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND='-F /tmp/heldout-p33/work/home/.ssh/config';
