"""`verify --stub-data`: stand-ins for the data reads real TF1 programs make before building the graph.

Graph building often starts with a download or a file read (`input_data.read_data_sets("MNIST_data")`);
in verify's child there is no network and often no data.  A stand-in gives arrays of the declared
shape and dtype (zeros: the graph's variables do not depend on the values), and every use is listed
in the report.  Only what is listed here is stubbed; any other read runs as written (and a missing
file is then the program's own exception, reported as such).

Known so far: `tensorflow.examples.tutorials.mnist.input_data.read_data_sets` (TF1 only; in TF1 mode).
"""
from __future__ import annotations

import types
from typing import Any

MNIST_TRAIN = 256  # examples per split: enough for a few batches, small in memory
MNIST_TEST = 64
MNIST_CLASSES = 10


class _DataSet:
    def __init__(self, count: int, one_hot: bool, reshape: bool, dtype_float: bool) -> None:
        import numpy as np

        shape = (count, 784) if reshape else (count, 28, 28, 1)
        self.images = np.zeros(shape, dtype=np.float32 if dtype_float else np.uint8)
        self.labels = np.zeros((count, MNIST_CLASSES), dtype=np.float64) if one_hot else np.zeros((count,), dtype=np.uint8)
        if one_hot:
            self.labels[:, 0] = 1.0
        self.num_examples = count
        self.epochs_completed = 0
        self._index = 0

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True) -> tuple[Any, Any]:
        # Always batch_size rows, wrapping round the stand-in as the real set (55000 examples) never
        # needs to: programs split a batch per tower (`X[i * batch:(i + 1) * batch]`), and a short
        # batch would leave a tower empty and fail where the real data does not.
        import numpy as np

        rows = (self._index + np.arange(batch_size)) % self.num_examples
        self._index += batch_size
        if self._index >= self.num_examples:
            self.epochs_completed += self._index // self.num_examples
            self._index %= self.num_examples
        return self.images[rows], self.labels[rows]

def tf1_modules(stubbed: list[str]) -> dict[str, Any]:
    """Module prefix -> stand-in module, for the TF1 import hook (verify/tf1.py)."""
    mnist = types.ModuleType("tensorflow.examples.tutorials.mnist")
    input_data = types.ModuleType("tensorflow.examples.tutorials.mnist.input_data")

    def read_data_sets(train_dir: str = "", fake_data: bool = False, one_hot: bool = False, dtype: Any = None,
                       reshape: bool = True, validation_size: int = 5000, seed: Any = None,
                       source_url: Any = None) -> Any:
        float_images = dtype is None or "uint8" not in str(dtype)
        datasets = types.SimpleNamespace(
            train=_DataSet(MNIST_TRAIN, one_hot, reshape, float_images),
            validation=_DataSet(MNIST_TEST, one_hot, reshape, float_images),
            test=_DataSet(MNIST_TEST, one_hot, reshape, float_images),
        )
        images = "[N, 784]" if reshape else "[N, 28, 28, 1]"
        stubbed.append(f"input_data.read_data_sets({train_dir!r}): MNIST stand-in, zeros, images {images}, "
                       f"labels {'one-hot [N, 10]' if one_hot else '[N]'}, N={MNIST_TRAIN} train / {MNIST_TEST} test")
        return datasets

    input_data.read_data_sets = read_data_sets  # type: ignore[attr-defined]
    mnist.input_data = input_data  # type: ignore[attr-defined]
    return {"tensorflow.examples.tutorials.mnist": mnist}
