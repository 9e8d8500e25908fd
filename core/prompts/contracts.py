"""What a template's answer must look like, so the editor and the parsers agree on it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ContractKind = Literal["tsv", "json", "text"]


class OutputContract(BaseModel):
    """The answer format a parser expects.

    ``columns`` are the TSV columns in order; ``fields`` the JSON object's keys; ``choices`` the
    allowed values of a column or field (e.g. ``boundary_type``); ``example`` a valid answer.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ContractKind
    columns: list[str] = []
    fields: list[str] = []
    choices: dict[str, list[str]] = {}
    example: str = ""
    rules: list[str] = []

    def summary(self) -> str:
        """One line: what the parser expects, e.g. ``TSV, 3 columns: anchor · boundary_type …``."""
        if self.kind == "tsv":
            return f"TSV, {len(self.columns)} tab-separated columns: " + " · ".join(self.columns)
        if self.kind == "json":
            return "One JSON object with the fields " + ", ".join(self.fields)
        return "Plain text"

    def reference_markdown(self) -> str:
        """The format reference shown next to the editor (Markdown; example in a code block)."""
        lines = [f"**{self.summary()}**", ""]
        lines += [f"- {rule}" for rule in self.rules]
        for name, values in self.choices.items():
            lines.append(f"- `{name}` ∈ " + ", ".join(f"`{v}`" for v in values))
        if self.example and self.kind == "tsv":
            rows = [line.split("\t") for line in self.example.splitlines()]
            lines += ["", "Example answer (columns separated by one tab each):", "",
                      "| " + " | ".join(self.columns) + " |",
                      "|" + "---|" * len(self.columns)]
            lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                      for row in rows]
        elif self.example:
            lang = "json" if self.kind == "json" else "text"
            lines += ["", "Example answer:", f"```{lang}", self.example, "```"]
        return "\n".join(lines)
