import logging
from accelerate import Accelerator

_acc = Accelerator()


def get_logger(name):
    log = logging.getLogger(name)
    logging.basicConfig(format=f"[rank {_acc.process_index}] %(message)s", level=logging.INFO)
    return log
