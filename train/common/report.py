"""The one report writer of the training runs: ``runs/<name>/report.md``.

A report is a title, a few paragraphs on how the run was made, the final evaluation as
a table (one row per opponent, with its confidence interval), the commands that
reproduce it, and the run's plots. Each pipeline says *what* goes in (its paragraphs,
the columns it adds to the table, its commands); :func:`write_report` lays it out the
same way for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Column", "results_columns", "results_table", "write_report"]


@dataclass(frozen=True)
class Column:
    """One column of the results table: its header, markdown alignment and cell text."""

    header: str
    align: str  # "---" (left) or "---:" (right)
    cell: Callable[[Any], str]


def results_columns(mean_header: str, digits: int = 2, win_rate: bool = True) -> list[Column]:
    """The columns every results table starts with: opponent, rounds, A's mean point
    difference per round (``digits`` decimals), its 95% CI and A's round win rate."""
    cols = [
        Column("opponent", "---", lambda r: str(r.b)),
        Column("rounds", "---:", lambda r: f"{r.rounds:,}"),
        Column(mean_header, "---:", lambda r: f"{r.mean_point_diff:+.{digits}f}"),
        Column("95% CI", "---", lambda r: f"[{r.ci95[0]:+.{digits}f}, {r.ci95[1]:+.{digits}f}]"),
    ]
    if win_rate:
        cols.append(Column("round win rate", "---:", lambda r: f"{r.round_win_rate:.3f}"))
    return cols


def results_table(results: Sequence[Any], columns: Sequence[Column]) -> list[str]:
    """The markdown lines of a table with one row per result."""
    lines = ["| " + " | ".join(c.header for c in columns) + " |",
             "|" + "|".join(c.align for c in columns) + "|"]
    lines += ["| " + " | ".join(c.cell(r) for c in columns) + " |" for r in results]
    return lines


def write_report(run_dir: Path, *, title: str, intro: Sequence[str], table_title: str,
                 results: Sequence[Any], columns: Sequence[Column],
                 commands_intro: str, commands: Sequence[str],
                 after_table: Sequence[str] = (), sections: Sequence[str] = ()) -> Path:
    """Write ``run_dir/report.md``: ``# title``, the ``intro`` paragraphs, ``##
    table_title`` with the results table, ``after_table`` (markdown lines: further
    tables), ``commands_intro`` with the ``commands`` in a code block, then
    ``sections`` (markdown lines: the plots)."""
    lines = [f"# {title}", ""]
    for paragraph in intro:
        lines += [paragraph, ""]
    lines += [f"## {table_title}", ""] + results_table(results, columns) + list(after_table)
    lines += ["", commands_intro, "", "```", *commands, "```", ""]
    lines += list(sections)
    path = run_dir / "report.md"
    path.write_text("\n".join(lines))
    return path
