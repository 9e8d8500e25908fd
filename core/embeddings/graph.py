"""Edits to the shipped MiniLM graph that make it run faster and compute the same vectors.

The shipped graph is a torch export: each layer's attention is a dozen small operators
(projections, reshapes, transposes, scaling, a mask added to a batch x heads x length x length
tensor, softmax) and GELU is five elementwise operators. onnxruntime's own optimizer fuses
neither pattern from this export, so the edits here do, with onnxruntime's CPU operators:

- the NaN guard after each softmax (``IsNaN`` + ``Where``) goes: a softmax row is NaN only when
  all of its keys are masked, and our batches pad on the right with ``[CLS]`` always kept;
- each layer's query / key / value projections and attention become one ``Attention`` operator
  (one projection against the three weight matrices side by side, then attention per head with
  the padding mask, without the big intermediate tensors);
- ``x * 0.5 * (1 + erf(x / sqrt 2))`` becomes one ``Gelu`` (onnxruntime then folds the bias
  add in front of it).

Weights stay int8 in the file (onnxruntime folds the dequantisation once, when it loads the
graph). :func:`faster_graph` checks the edited graph against the shipped one on a probe batch
and keeps only the NaN-guard edit if they disagree, so a different export cannot change the
vectors. Speed and agreement: ``bench/bench_embeddings.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx import GraphProto, ModelProto, NodeProto

NUM_HEADS = 12  # all-MiniLM-L6-v2: hidden size 384 in 12 heads of 32
MIN_PROBE_COSINE = 0.99999
MASK_INT32 = "attention_mask_int32"


class _NoMatch(Exception):
    """The graph does not have the shape the fusion expects."""


def guards_only(model_bytes: bytes) -> bytes:
    """The shipped graph without its NaN guards, nothing else changed."""
    import onnx

    model = onnx.load_from_string(model_bytes)
    _drop_nan_guards(model.graph)
    return model.SerializeToString()


def faster_graph(model_bytes: bytes) -> bytes:
    """The shipped graph without NaN guards and, when the result agrees, with fused attention
    and GELU."""
    import onnx

    guarded = guards_only(model_bytes)
    model = onnx.load_from_string(guarded)
    try:
        _fuse_attention(model)
        _fuse_gelu(model.graph)
        _prune(model.graph)
    except _NoMatch:
        return guarded
    fused = model.SerializeToString()
    return fused if _agrees(model_bytes, fused) else guarded


def _drop_nan_guards(graph: GraphProto) -> None:
    producer = {output: node for node in graph.node for output in node.output}
    replaced: dict[str, str] = {}  # guard output -> the softmax output it guarded
    dropped: set[int] = set()
    for node in graph.node:
        check = producer.get(node.input[0]) if node.op_type == "Where" else None
        if check is not None and check.op_type == "IsNaN" and check.input[0] == node.input[2]:
            replaced[node.output[0]] = node.input[2]
            dropped.update((id(node), id(check)))
    kept = [node for node in graph.node if id(node) not in dropped]
    for node in kept:
        for position, name in enumerate(node.input):
            node.input[position] = replaced.get(name, name)
    del graph.node[:]
    graph.node.extend(kept)


def _bias_add(graph: GraphProto, bias: str) -> tuple[NodeProto, NodeProto]:
    """The ``Add`` that adds initializer ``bias`` and the ``MatMul`` whose output it adds to."""
    adds = [n for n in graph.node if n.op_type == "Add" and bias in n.input]
    if len(adds) != 1:
        raise _NoMatch(bias)
    other = adds[0].input[0] if adds[0].input[1] == bias else adds[0].input[1]
    matmuls = [n for n in graph.node if n.op_type == "MatMul" and other in n.output]
    if len(matmuls) != 1:
        raise _NoMatch(bias)
    return adds[0], matmuls[0]


def _fuse_attention(model: ModelProto) -> None:
    """Replace each layer's self-attention by one ``com.microsoft.Attention``; the nodes it
    replaces are left for :func:`_prune`."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    initial = {tensor.name: tensor for tensor in graph.initializer}
    prefixes = sorted({name.rsplit(".self.", 1)[0] for name in initial
                       if name.endswith(".attention.self.query.bias")})
    if not prefixes:
        raise _NoMatch("no attention layer")
    added = [helper.make_node("Cast", ["attention_mask"], [MASK_INT32], to=TensorProto.INT32)]
    for prefix in prefixes:
        projections = [_bias_add(graph, f"{prefix}.self.{part}.bias")
                       for part in ("query", "key", "value")]
        sources = {matmul.input[0] for _, matmul in projections}
        if len(sources) != 1:
            raise _NoMatch(prefix)
        _, output_projection = _bias_add(graph, f"{prefix}.output.dense.bias")
        context = output_projection.input[0]  # heads merged back to batch x length x hidden
        bias = np.concatenate([numpy_helper.to_array(initial[f"{prefix}.self.{part}.bias"])
                               for part in ("query", "key", "value")])
        graph.initializer.append(numpy_helper.from_array(bias, f"{prefix}.qkv.bias"))
        added.append(helper.make_node(
            "Concat", [matmul.input[1] for _, matmul in projections], [f"{prefix}.qkv.weight"],
            axis=1))
        added.append(helper.make_node(
            "Attention", [sources.pop(), f"{prefix}.qkv.weight", f"{prefix}.qkv.bias",
                          MASK_INT32], [context], domain="com.microsoft", num_heads=NUM_HEADS))
    _replace_producers(graph, added)
    if not any(opset.domain == "com.microsoft" for opset in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))


def _fuse_gelu(graph: GraphProto) -> None:
    """``x * (0.5 * (erf(x / sqrt 2) + 1))`` → ``com.microsoft.Gelu(x)``."""
    from onnx import helper

    producer = {output: node for node in graph.node for output in node.output}
    consumers: dict[str, list[NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    constants = _constants(graph)

    def only_consumer(node: NodeProto, op_type: str) -> NodeProto:
        found = consumers.get(node.output[0], [])
        if len(found) != 1 or found[0].op_type != op_type:
            raise _NoMatch(node.name)
        return found[0]

    def constant(node: NodeProto, value: float) -> str:
        """The input of ``node`` that is not the scalar constant ``value``."""
        known = [name for name in node.input
                 if name in constants and np.allclose(constants[name], value)]
        if len(known) != 1:
            raise _NoMatch(node.name)
        return next(name for name in node.input if name != known[0])

    added = []
    for erf in [node for node in graph.node if node.op_type == "Erf"]:
        divide = producer.get(erf.input[0])
        if divide is None or divide.op_type != "Div" or \
                not np.allclose(constants.get(divide.input[1], 0.0), np.sqrt(2.0)):
            raise _NoMatch(erf.name)
        x = divide.input[0]
        plus_one = only_consumer(erf, "Add")
        constant(plus_one, 1.0)
        half = only_consumer(plus_one, "Mul")
        constant(half, 0.5)
        times_x = only_consumer(half, "Mul")
        if x not in times_x.input:
            raise _NoMatch(erf.name)
        added.append(helper.make_node("Gelu", [x], [times_x.output[0]], domain="com.microsoft"))
    if not added:
        raise _NoMatch("no GELU")
    _replace_producers(graph, added)


def _constants(graph: GraphProto) -> dict[str, np.ndarray]:
    from onnx import numpy_helper

    values = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            values[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    return values


def _replace_producers(graph: GraphProto, added: list[NodeProto]) -> None:
    """Add ``added``; the nodes that produced their outputs until now go."""
    outputs = {name for node in added for name in node.output}
    kept = [node for node in graph.node if not outputs.intersection(node.output)]
    del graph.node[:]
    graph.node.extend(kept + added)


def _prune(graph: GraphProto) -> None:
    """Drop nodes and initializers the outputs no longer need; put the nodes in an order where
    each comes after its inputs (ONNX requires it)."""
    producer = {output: node for node in graph.node for output in node.output}
    needed: set[str] = set()
    stack = [output.name for output in graph.output]
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            if name in producer:
                stack.extend(producer[name].input)
    live = [node for node in graph.node if needed.intersection(node.output)]
    ready = {value.name for value in graph.input} | {t.name for t in graph.initializer} | {""}
    ordered: list[NodeProto] = []
    while live:
        waiting = [node for node in live if not all(name in ready for name in node.input)]
        if len(waiting) == len(live):
            raise _NoMatch("a cycle")
        for node in live:
            if node not in waiting:
                ordered.append(node)
                ready.update(node.output)
        live = waiting
    initializers = [t for t in graph.initializer if t.name in needed]
    del graph.node[:]
    graph.node.extend(ordered)
    del graph.initializer[:]
    graph.initializer.extend(initializers)


def _agrees(original: bytes, edited: bytes) -> bool:
    """Whether the two graphs give the same mean-pooled vectors on a right-padded probe batch."""
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    lengths = [40, 23, 7, 2]
    ids = np.zeros((len(lengths), max(lengths)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, length in enumerate(lengths):
        ids[row, :length] = [101, *rng.integers(1000, 20000, length - 2), 102]
        mask[row, :length] = 1
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    options = ort.SessionOptions()
    options.log_severity_level = 3
    vectors = []
    for graph in (original, edited):
        try:
            session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
            names = {value.name for value in session.get_inputs()}
            hidden = session.run(None, {k: v for k, v in feeds.items() if k in names})[0]
        except Exception:  # noqa: BLE001 - an edit onnxruntime rejects is an edit we do not keep
            return False
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        vectors.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
    return bool(np.min(np.sum(vectors[0] * vectors[1], axis=1)) >= MIN_PROBE_COSINE)
