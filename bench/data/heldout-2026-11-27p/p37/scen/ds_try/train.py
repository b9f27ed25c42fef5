import torch, deepspeed
model = torch.nn.Linear(16, 4)
engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
    config={"train_micro_batch_size_per_gpu": 8, "optimizer": {"type": "Adam", "params": {"lr": 1e-3}}})
for step in range(3):
    x = torch.randn(8, 16); y = torch.randint(0, 4, (8,))
    loss = torch.nn.functional.cross_entropy(engine(x), y)
    engine.backward(loss); engine.step()
    if engine.global_rank == 0: print("step", step, loss.item(), flush=True)
