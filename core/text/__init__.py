"""Text as the stages below documents read it: spans without their surrounding whitespace,
and sentences in every script the documents are written in."""
