torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr traina --master-port 29540 train.py
