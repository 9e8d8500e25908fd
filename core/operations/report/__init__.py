"""Reports that open anywhere: one self-contained HTML file of an evaluation, an answer run
or a tune, holding what its page shows — inputs, figures with their intervals, the verdict in
words, the charts and each question opened to its chunks — with every untrusted text escaped,
no network needed (Plotly's JavaScript inlined once) and its size stated.

The package: ``markup`` (the shell, escaping, tables, the filter bar, the size), ``charts``
(the figures the pages and the reports share), ``passages`` (a chunk's text with the reference
marked, capped so a large set stays small), and one module per report: ``evaluation``,
``answers``, ``tune``.
"""

from core.operations.report.evaluation import ReportInputs, evaluation_report
from core.operations.report.markup import MAX_BYTES

__all__ = ["MAX_BYTES", "ReportInputs", "evaluation_report"]
