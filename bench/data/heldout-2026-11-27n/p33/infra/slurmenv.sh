export SLURM_CONF=/tmp/heldout-p33/infra/slurm/slurm.conf
