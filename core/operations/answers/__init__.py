"""Answers: a question set asked under prompt variants or configurations, every answer graded.

``run`` (the arms, asking and grading, cached), ``grades`` (an answer's grades without an LLM),
``report`` (each arm's figures, the comparisons, the verdict, the JSON), ``history`` (runs kept
for later).
"""
