import torch.multiprocessing as mp, torch
def main():
    results = mp.Manager().list()
    worker = lambda rank: results.append(torch.randn(2).sum().item() + rank)
    mp.spawn(worker, nprocs=2, join=True)
    print(list(results))
if __name__ == "__main__":
    main()
