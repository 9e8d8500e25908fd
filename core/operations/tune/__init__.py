"""Tune: search chunkings and ways of retrieving for the best quality at a token cost.

``run`` (the tune: split the questions, run the study, recommend), ``space`` (what may be
tried), ``trials`` (one configuration scored and kept), ``report`` (the front and the
recommendation with its evidence), ``budget`` (the default token cap), ``storage`` (where the
study lives).
"""
