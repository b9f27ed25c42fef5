import logging
from accelerate import PartialState


def get_logger(name):
    log = logging.getLogger(name)
    logging.basicConfig(format=f"[rank {PartialState().process_index}] %(message)s", level=logging.INFO)
    return log
