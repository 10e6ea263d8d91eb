"""Fault injection for test_ray.py, importable by Ray's worker processes
(test_ray puts this folder on their PYTHONPATH)."""
import os
import signal

from libops.ray import Predictor


class PredictorThatDiesOnce(Predictor):
    """A Predictor whose actor kills its own process (SIGKILL, by its pid) on
    its `after`-th batch, once in the whole run: the first actor to create
    `marker` dies, every later one (and the restarted actor) runs normally."""

    def __init__(self, marker, after, **kwargs):
        super().__init__(**kwargs)
        self.marker, self.after, self.batches = marker, after, 0

    def __call__(self, batch):
        self.batches += 1
        if self.batches == self.after:
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
        return super().__call__(batch)
