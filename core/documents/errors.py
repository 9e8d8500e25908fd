"""Errors a user can cause when adding a document; ``str(error)`` is a sentence fit to show."""


class ConversionError(Exception):
    """The upload could not be turned into a Document (empty, corrupt, unsupported, too big…)."""
