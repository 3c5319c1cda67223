"""Fitting a table to a terminal's width (issue 15): pure, cells in and lines out.

At 80 columns the table must still show what the tool is for: NAME and SOURCE
(`file:line`) are never cut. A command is cut in the middle (its program and its last
arguments say the most), other long cells at the end, each down to a floor. Next,
columns another one implies are left out (TRANSPORT; TIER, which SOURCE shows). When even
that does not fit, every row is shown as a small block of `HEADER value` lines (the
stacked layout), which never cuts NAME or SOURCE either. Widths are found by a binary
search on one cut-off level, so a megabyte-long cell costs a few passes, not one per
character.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

GAP = "  "


class Fit(Enum):
    KEEP = "keep"  # never cut
    MIDDLE = "middle"  # cut in the middle
    END = "end"  # cut at the end


# Left out, in this order, before a table is stacked.
_DROPPABLE = ("TRANSPORT", "TIER")
_KEEP = frozenset({"NAME", "SERVER", "CLIENT", "SOURCE", "TOOL", "TOKENS"})
_MIDDLE = frozenset({"COMMAND"})
_FLOOR = {Fit.MIDDLE: 16, Fit.END: 8}
# A state is read by its first word: never cut inside "unpinnable" or "untrusted".
_HEADER_FLOOR = {"STATE": 10, "STATUS": 10}


def fit_of(header: str) -> Fit:
    name = header.strip()
    if name in _KEEP:
        return Fit.KEEP
    return Fit.MIDDLE if name in _MIDDLE else Fit.END


def _floor(header: str) -> int:
    name = header.strip()
    return max(len(name), _HEADER_FLOOR.get(name, _FLOOR[fit_of(header)]))


def middle_cut(text: str, limit: int) -> str:
    if len(text) <= limit or limit < 5:
        return text
    keep = limit - 1
    head = (keep + 1) // 2
    return text[:head] + "…" + text[len(text) - (keep - head):]


def end_cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:max(limit - 1, 0)] + "…"


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]],
                  width: int) -> list[int] | None:
    """Each column's width so the table fits `width`, or None when it cannot. Cells cut
    at the end give way first (a state's note), then the command."""
    natural = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]
    budget = width - len(GAP) * (len(headers) - 1)
    widths = list(natural)
    for phase in (Fit.END, Fit.MIDDLE):
        if sum(widths) <= budget:
            return widths
        shrinking = [i for i, h in enumerate(headers) if fit_of(h) is phase]
        floors = [natural[i] if fit_of(h) is Fit.KEEP else min(natural[i], _floor(h))
                  for i, h in enumerate(headers)]
        widths = _squeezed(widths, shrinking, floors, budget)
    return widths if sum(widths) <= budget else None


def _squeezed(widths: list[int], shrinking: list[int], floors: list[int],
              budget: int) -> list[int]:
    """`widths` with the `shrinking` columns capped at the highest level that fits
    (never below their floors); at their floors when nothing fits."""
    def at(level: int) -> list[int]:
        return [max(floors[i], min(w, level)) if i in shrinking else w
                for i, w in enumerate(widths)]

    low, high = 0, max(widths, default=0)
    while low < high:
        level = (low + high + 1) // 2
        if sum(at(level)) <= budget:
            low = level
        else:
            high = level - 1
    return at(low)


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int,
                paint: Callable[[int, str, str], str] | None = None) -> list[str]:
    """The table as lines of at most `width` columns (stacked when it cannot fit).
    `paint(column, cell, padded)` may wrap a padded cell in colour codes."""
    columns = list(range(len(headers)))
    widths = column_widths(headers, rows, width)
    for droppable in _DROPPABLE:
        if widths is not None:
            break
        columns = [i for i in columns if headers[i].strip() != droppable]
        widths = column_widths([headers[i] for i in columns],
                               [[row[i] for i in columns] for row in rows], width)
    if widths is None:
        return stacked_lines(headers, rows, width, paint)
    if len(columns) < len(headers):
        kept = [headers[i] for i in columns]
        picked = [[row[i] for i in columns] for row in rows]
        return _fitted(kept, picked, widths, paint and (lambda i, c, s: paint(columns[i], c, s)))
    return _fitted(headers, rows, widths, paint)


def _fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], widths: list[int],
            paint: Callable[[int, str, str], str] | None) -> list[str]:
    lines = []
    for number, row in enumerate((headers, *rows)):
        cells = []
        for i, cell in enumerate(row):
            cut = middle_cut if fit_of(headers[i]) is Fit.MIDDLE else end_cut
            shown = cell if fit_of(headers[i]) is Fit.KEEP else cut(cell, widths[i])
            padded = shown.ljust(widths[i]) if i < len(row) - 1 else shown
            cells.append(paint(i, cell, padded) if paint and number else padded)
        lines.append(GAP.join(cells).rstrip())
    return lines


def stacked_lines(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int,
                  paint: Callable[[int, str, str], str] | None = None) -> list[str]:
    """Each row as its first cell, then `  HEADER  value` lines, a blank line between."""
    label = max(len(h.strip()) for h in headers[1:]) if len(headers) > 1 else 0
    room = max(width - 2 - label - len(GAP), 16)
    lines: list[str] = []
    for row in rows:
        if lines:
            lines.append("")
        lines.append(row[0])
        for i, cell in enumerate(row[1:], start=1):
            if not cell:
                continue
            shown = cell if fit_of(headers[i]) is Fit.KEEP else middle_cut(cell, room)
            lines.append(f"  {headers[i].strip().ljust(label)}{GAP}"
                         f"{paint(i, cell, shown) if paint else shown}")
    return lines
