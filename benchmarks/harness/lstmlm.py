"""brendon-boldt/lstm-language-model: the graph of `python rnn.py --data_path=data/`.

    python3 benchmarks/harness/lstmlm.py <repository>

Stubs: the PTB files (fake word ids: the graph does not depend on them) and the Supervisor, where
the program's graph is complete (Train, Valid and Test models, the train op).  The program was
written for TensorFlow 0.12; the shims give it the names it used.
"""
from __future__ import annotations

import sys

import _common
from _common import v1


def _concat(first, second, name="concat"):  # TF 0.12: concat(axis, values)
    return v1.concat(second, first, name=name) if isinstance(first, int) else v1.concat(first, second, name=name)


def _sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True, name=None):
    """tf.nn.seq2seq (later contrib.legacy_seq2seq).sequence_loss_by_example: no variables."""
    losses = [weight * v1.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logit)
              for logit, target, weight in zip(logits, targets, weights)]
    total = v1.add_n(losses)
    return total / (v1.add_n(list(weights)) + 1e-12) if average_across_timesteps else total


def build() -> None:
    repository = sys.argv[1]
    _common.old_tensorflow(
        {"concat": _concat, "scalar_summary": v1.summary.scalar,
         "train": _common._Module("tensorflow.train", v1.train, {"Supervisor": _common.stop_here})},
        nn_extra={"seq2seq": _common._Module("seq2seq", object(), {"sequence_loss_by_example": _sequence_loss_by_example})},
        contrib={"framework": _common._Module("framework", object(),
                                              {"get_or_create_global_step": v1.train.get_or_create_global_step})},
    )
    sys.path.insert(0, repository)
    import reader
    import rnn

    words = list(range(10000)) * 3
    reader.ptb_raw_data = lambda data_path=None: (words, words, words, 10000)
    rnn.FLAGS(["rnn.py", "--data_path=data/"])
    rnn.main(None)


if __name__ == "__main__":
    _common.run(build)
