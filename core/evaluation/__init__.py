"""Evaluation: question sets, Chroma-style retrieval metrics on character ranges, and a runner
that scores chunk configurations side by side (see :mod:`core.evaluation.metrics`)."""
