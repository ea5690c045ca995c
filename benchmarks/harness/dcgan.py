"""carpedm20/DCGAN-tensorflow: the graph of `python main.py <flags>`.

    python3 benchmarks/harness/dcgan.py <repository> --dataset celebA --input_height=108 --train --crop

Stubs: the image files (64 black 108x108 RGB images for celebA, 64 blank MNIST digits and labels
for mnist: the graph depends only on their shapes), OpenCV and PIL (only its image readers use
them), and the two places the graph is complete: the variables' initializer in `train` (after both
Adam optimizers), `DCGAN.load` otherwise.  tf.contrib.slim and tf.contrib.layers are tf_slim, their
maintained successor.
"""
from __future__ import annotations

import sys
import tempfile
import types

import numpy as np
import tf_slim  # before the stand-in `tensorflow` module: tf_slim imports the real one

import _common
from _common import v1

BATCH = 64


def _conv2d_transpose(value, filter, output_shape, strides, padding="SAME", name=None, **kwargs):
    """TF 1.x took the static shape from a constant `output_shape`; TF 2.21 leaves the batch
    unknown (the input's), and ops.py's `tf.reshape(..., deconv.get_shape())` then fails."""
    result = v1.nn.conv2d_transpose(value, filter, output_shape, strides, padding=padding, name=name, **kwargs)
    if all(isinstance(size, int) for size in output_shape):
        result.set_shape(output_shape)
    return result


def build() -> None:
    repository, flags = sys.argv[1], sys.argv[2:]
    _common.old_tensorflow({"global_variables_initializer": _common.stop_here,
                            "initialize_all_variables": _common.stop_here},
                           nn_extra={"conv2d_transpose": _conv2d_transpose},
                           contrib={"slim": tf_slim, "layers": tf_slim.layers})
    sys.modules["tensorflow.contrib.slim"] = tf_slim
    sys.modules.setdefault("cv2", types.ModuleType("cv2"))
    pil = types.ModuleType("PIL")
    pil.Image = types.ModuleType("PIL.Image")  # type: ignore[attr-defined]
    sys.modules.setdefault("PIL", pil)
    sys.modules.setdefault("PIL.Image", pil.Image)  # type: ignore[attr-defined]
    sys.path.insert(0, repository)
    import model
    import main as program

    model.glob = lambda pattern: [f"image{number}.jpg" for number in range(BATCH)]
    model.imread = lambda path, grayscale=False: np.zeros([108, 108, 3])
    model.DCGAN.load_mnist = lambda self: (np.zeros([BATCH, 28, 28, 1]), np.eye(10)[np.arange(BATCH) % 10])
    model.DCGAN.load = _common.stop_here
    program.show_all_variables = lambda: None  # slim's printout only
    program.FLAGS(["main.py", *flags, "--out_dir", tempfile.mkdtemp()])
    program.main(None)


if __name__ == "__main__":
    _common.run(build)
