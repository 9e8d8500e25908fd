"""The work of one MiniLM run in floating-point operations, and the fp32 matrix-product peak of
this machine (numpy's, onnxruntime's): the ceiling no fp32 run of the model can beat."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnxruntime as ort

LAYERS, HIDDEN, FEED_FORWARD = 6, 384, 1536


def flops_per_text(length: int) -> float:
    """Multiply-adds x 2 of one run over ``length`` word pieces (projections, FFN, attention)."""
    per_token = LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FEED_FORWARD + 2 * length * HIDDEN)
    return 2.0 * per_token * length


def matmul_peak_gflops(length: int, seconds: float = 2.0) -> float:
    """fp32 GFLOP/s of numpy on the model's largest product (length x 384 @ 384 x 1536)."""
    rng = np.random.default_rng(0)
    a = rng.random((length, HIDDEN), dtype=np.float32)
    b = rng.random((HIDDEN, FEED_FORWARD), dtype=np.float32)
    a @ b
    runs, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        runs += 1
    return runs * 2 * length * HIDDEN * FEED_FORWARD / (time.perf_counter() - start) / 1e9


def onnxruntime_matmul_peak_gflops(length: int, seconds: float = 2.0) -> float:
    """fp32 GFLOP/s of onnxruntime's MatMul on the same product, one session per core, run in
    parallel threads with one intra-op thread each."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = np.random.default_rng(0).random((HIDDEN, FEED_FORWARD), dtype=np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [length, HIDDEN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [length, FEED_FORWARD])],
        [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    cores = os.cpu_count() or 1
    sessions = [ort.InferenceSession(model.SerializeToString(), options,
                                     providers=["CPUExecutionProvider"]) for _ in range(cores)]
    x = np.random.default_rng(1).random((length, HIDDEN), dtype=np.float32)
    onnx.checker.check_model(model)

    def runs(session: ort.InferenceSession) -> int:
        session.run(None, {"x": x})
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            session.run(None, {"x": x})
            count += 1
        return count

    start = time.perf_counter()
    with ThreadPoolExecutor(cores) as pool:
        total = sum(pool.map(runs, sessions))
    return total * 2 * length * HIDDEN * FEED_FORWARD / (time.perf_counter() - start) / 1e9
