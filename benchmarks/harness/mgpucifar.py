"""QihaoHuang/tensorflow-mgpu-cifar10: the graph of `python cifar10_multi_gpu_train.py --num_gpus 2`.

    python3 benchmarks/harness/mgpucifar.py <repository>

Stubs: the CIFAR-10 input pipeline (random images and labels of its shapes and types: the binary
files are absent), slim's prefetch queue (a queue of those tensors), and the Session, where the
program's graph is complete (two towers, averaged gradients, apply_gradients, the moving averages,
the Saver).  The device strings stay as the program writes them ('/gpu:0', '/gpu:1'): nothing runs.
"""
from __future__ import annotations

import sys
import tempfile
import types

import _common
from _common import v1


class _PrefetchQueue:
    def __init__(self, tensors, capacity=None):
        self._tensors = tensors

    def dequeue(self):
        return [v1.identity(tensor) for tensor in self._tensors]


def build() -> None:
    repository = sys.argv[1]
    slim = types.SimpleNamespace(prefetch_queue=types.SimpleNamespace(prefetch_queue=_PrefetchQueue))
    _common.old_tensorflow({"Session": _common.stop_here}, contrib={"slim": slim})
    sys.path.insert(0, repository)
    # cifar10_input.py imports tensorflow_datasets at the top for its loader, which the stub replaces.
    sys.modules.setdefault("tensorflow_datasets", types.ModuleType("tensorflow_datasets"))
    import cifar10_input
    import cifar10_multi_gpu_train as program

    def distorted_inputs(data_dir=None, batch_size=128):
        images = v1.random_uniform([batch_size, 24, 24, 3])
        labels = v1.random_uniform([batch_size], maxval=10, dtype=v1.int32)
        return images, labels

    cifar10_input.distorted_inputs = distorted_inputs
    program.FLAGS(["cifar10_multi_gpu_train.py", "--num_gpus", "2", "--train_dir", tempfile.mkdtemp()])
    program.train()


if __name__ == "__main__":
    _common.run(build)
