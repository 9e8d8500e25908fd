"""A model's reply, read: the checks every reply gets, copy detection, the lenient TSV reader
and the repairs tolerant parsing records. Each phase's own parser (in :mod:`core.llm.phases`)
checks the values, order and first/last rules; a failure is a :class:`core.llm.errors.TSVError`
naming the phase, the line number and the line."""
