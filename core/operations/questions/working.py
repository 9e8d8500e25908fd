"""The question set the user is working on, on the Question sets page.

It has unsaved changes (it is dirty) from its first edit, or from the start when the generator
wrote it, until it is saved; opening or importing a set replaces it clean. While dirty it is
kept as the draft in the data folder (:func:`keep`), where a new session (a reload, a restart)
finds it, and replacing it would lose that work, so the page asks first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.evaluation.questions import Question
from core.operations.questions.sets import Draft, discard_draft, renumbered, save_draft

NEW_SET = "my questions"  # the name of the set a user starts from nothing


@dataclass(frozen=True)
class WorkingSet:
    """The questions being worked on (rows numbered as the CSV they export to), under the name
    they are saved as, and whether they changed since they were opened or saved."""

    name: str = NEW_SET
    questions: tuple[Question, ...] = ()
    dirty: bool = False

    @classmethod
    def resumed(cls, draft: Draft | None) -> WorkingSet:
        """Where a new session starts: the kept draft, still unsaved; else a new, empty set."""
        return cls() if draft is None else cls.generated(draft.name, draft.questions)

    @classmethod
    def opened(cls, name: str, questions: Sequence[Question]) -> WorkingSet:
        """A set opened or imported: nothing in it to save yet."""
        return cls(name, tuple(renumbered(questions)))

    @classmethod
    def generated(cls, name: str, questions: Sequence[Question]) -> WorkingSet:
        """A set the generator wrote: unsaved from its first question."""
        return cls(name, tuple(renumbered(questions)), dirty=True)

    def edited(self, questions: Sequence[Question]) -> WorkingSet:
        """These questions in place of the set's (one edited, deleted or added): unsaved."""
        return replace(self, questions=tuple(renumbered(questions)), dirty=True)

    def saved(self, name: str) -> WorkingSet:
        """The set once saved as ``name``: nothing left to save."""
        return replace(self, name=name, dirty=False)

    def draft(self, dropped: Sequence[str] = ()) -> Draft:
        """The set as the draft to keep, with the generator's report of what it dropped."""
        return Draft(self.name, self.questions, tuple(dropped))


def keep(working: WorkingSet, dropped: Sequence[str] = ()) -> None:
    """Keep ``working`` where a new session finds it: as the draft while it is dirty; no draft
    once it is saved or replaced by a set opened or imported."""
    if working.dirty:
        save_draft(working.draft(dropped))
    else:
        discard_draft()
