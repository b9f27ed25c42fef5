import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)
d_model, n_tokens = 16, 64
tokens = torch.randn(n_tokens, d_model)
router = torch.nn.Linear(d_model, world)          # one expert per rank
expert = torch.nn.Linear(d_model, d_model)
for step in range(3):
    dest = router(tokens).argmax(-1)               # expert (= rank) chosen per token
    order = dest.argsort()
    send = tokens[order]
    in_splits = torch.bincount(dest, minlength=world).tolist()
    counts = torch.tensor(in_splits)
    recv_counts = torch.empty_like(counts)
    dist.all_to_all_single(recv_counts, counts)    # exchange the per-peer token counts first
    out_splits = recv_counts.tolist()
    recv = torch.empty(sum(out_splits), d_model)
    dist.all_to_all_single(recv, send, output_split_sizes=out_splits, input_split_sizes=in_splits)
    y = expert(recv)
    if rank == 0:
        print(f"step {step}: sent {in_splits}, expert processed {y.shape[0]} tokens", flush=True)
dist.destroy_process_group()
