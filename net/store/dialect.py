"""What differs between the databases in the store's shared SQL text (:mod:`net.store.core`):
a :class:`Dialect`'s words, put in once per query with the parameters turned into the
driver's style. ``{octets[column]}`` a column's length in bytes, ``{state_size}`` a table
state's size before its seats are parsed, ``{kind_of_name}`` a table name's type, ``{find}``
the position of a text in another, ``{by_age}`` the tables' order, ``{by_account}`` and
``{bytewise}`` the leaderboard's grouping and names' order, ``{hands_record}`` a kept game's
record put together from its hands, ``{for_update}`` a row locked for its change;
``{serial}``, ``{id}`` and ``{real}`` the schema's types (net/store/schema.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_QUERIES = 4096  # translations kept


class Wrap:
    """A word that wraps a column: ``{octets[state]}`` in a query."""

    def __init__(self, form: str) -> None:
        self.form = form

    def __getitem__(self, column: str) -> str:
        return self.form.format(column)


@dataclass(frozen=True)
class Dialect:
    """One database's words in the shared text, and its parameter mark."""

    mark: str  # the driver's parameter: ? or %s
    words: Mapping[str, object]
    _done: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def sql(self, text: str) -> str:
        """``text`` (``?`` parameters, ``{word}`` fields) as this database runs it; each
        text is translated once."""
        out = self._done.get(text)
        if out is None:
            out = text.format_map(self.words)
            if self.mark != "?":
                out = out.replace("%", "%%").replace("?", self.mark)
            if len(self._done) < MAX_QUERIES:  # a query of N names is one text for each N
                self._done[text] = out
        return out
