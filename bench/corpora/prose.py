"""Insurance-flavoured prose of random sentences, and chunks of it of an exact token count:
text for timing embedders and the store, never for judging retrieval."""

from __future__ import annotations

import random

from core.tokens import encode, get_encoding

SUBJECTS = ["The insurer", "Each policyholder", "The claims adjuster", "A tenant", "The operator",
            "The maintenance team", "Our auditor", "The contractor", "The homeowner", "The board"]
VERBS = ["reviews", "documents", "excludes", "covers", "inspects", "reports", "approves",
         "calculates", "replaces", "schedules"]
OBJECTS = ["water damage from burst pipes", "the annual deductible", "storm and hail losses",
           "the coverage limit for contents", "every pump and valve", "the quarterly premium",
           "theft of personal property", "the liability claim", "fire damage to the dwelling",
           "the renewal endorsement"]
TAILS = ["within thirty days of the loss", "before the policy renews", "as the schedule requires",
         "unless the exclusion applies", "after the site visit", "according to the handbook",
         "when the limit is exceeded", "with a signed statement", "during the grace period",
         "in the written report"]


def prose(sentences: int, rng: random.Random) -> str:
    return " ".join(
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."
        + ("\n\n" if rng.random() < 0.15 else "")
        for _ in range(sentences)
    )


def token_chunks(count: int, size: int, rng: random.Random) -> list[str]:
    tokens = encode(prose(count * size // 9 + 50, rng))
    decoder = get_encoding()
    return [decoder.decode(tokens[i * size : (i + 1) * size]) for i in range(count)]
