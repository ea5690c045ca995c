"""Queue-based input pipelines of TF1 (`tf.train.range_input_producer(epoch_size).dequeue()` in
the PTB reader, `string_input_producer` for file names, slim's `prefetch_queue` in multi-GPU
trainers): queues and queue runners, no variables, unless `num_epochs` is given (then a local
`epochs` counter is created, not modelled here).  Also calls that only print or write
files: slim's model_analyzer, TF 0.x's `tf.train.SummaryWriter`.

Unhandled, the `tf.train` prefix makes them calls that may create variables, and the graph
is incomplete from the reader on: no "does not exist" is proven in the model built after it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import bind, handles
from scopelint.analysis.values import UNKNOWN

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# producer -> its positional parameters up to num_epochs
_PRODUCERS = {
    "tf.train.range_input_producer": ("limit", "num_epochs"),
    "tf.train.string_input_producer": ("string_tensor", "num_epochs"),
    "tf.train.slice_input_producer": ("tensor_list", "num_epochs"),
    "tf.train.input_producer": ("input_tensor", "element_shape", "num_epochs"),
}


@handles(*_PRODUCERS)
def _producer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(_PRODUCERS[interp.current_callee], args, kwargs)
    if bound.get("num_epochs") is not None:
        interp.graph.note_unmodelled_creation()  # limit_epochs' local variable `epochs`
    return UNKNOWN  # a queue (or its dequeued tensors): nothing the analysis follows


@handles("tf.contrib.slim.prefetch_queue.prefetch_queue")
def _prefetch_queue(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return UNKNOWN  # a FIFOQueue, its runner and a summary of its fill level


@handles("tf.contrib.slim.model_analyzer.analyze_vars", "tf.contrib.slim.model_analyzer.analyze_ops")
def _model_analyzer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return UNKNOWN  # prints sizes of the variables (or ops) it is given (DCGAN's show_all_variables)


@handles("tf.train.SummaryWriter")
def _summary_writer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    # TensorFlow 0.x's name of tf.summary.FileWriter, still the first choice of `try: ... except:`
    # compatibility blocks (the analysis cannot tell that the old name is gone): writes event files.
    return UNKNOWN
