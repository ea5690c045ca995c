"""A TensorFlow cluster for tests of `scopelint verify --target`: started as its own process, it
starts every task of `{"ps": 3, "worker": 1}` (or the JSON layout in argv[1]) as an in-process
server on a free 127.0.0.1 port, prints the cluster's addresses as one JSON line, and serves until
the test kills it by PID (TensorFlow servers have no clean shutdown)."""
import json
import os
import socket
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> None:
    import tensorflow as tf

    layout = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {"ps": 3, "worker": 1}
    cluster = {job: [f"127.0.0.1:{free_port()}" for _ in range(count)] for job, count in layout.items()}
    spec = tf.train.ClusterSpec(cluster)
    servers = [tf.distribute.Server(spec, job_name=job, task_index=index, start=True)
               for job, addresses in cluster.items() for index in range(len(addresses))]
    print(json.dumps({"cluster": cluster, "servers": len(servers)}), flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
