torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint traina:29538 --rdzv-id run42 train.py
