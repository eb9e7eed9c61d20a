"""Offsets of the named fields of a flat array, assigned in order by one helper.

The kernels keep records (a game's state, a rule set's parameters, an agent's
parameter row, a search's work space) in flat numpy arrays and reach a field by
a module-level integer offset.  numba freezes module-level ints into compiled
code as constants, so the offsets must stay plain ints; this helper only
computes them, so no offset is typed by hand and no two fields overlap::

    _rp = Layout("rp")
    RP_PLAYERS = _rp.add("players")
    RP_COMP = _rp.add("compensation", 4)   # 4 entries
    RP_LEN = _rp.size

``fields`` keeps every (name, offset, size) for tests and for reading a layout.
"""

from __future__ import annotations


class Layout:
    """A flat record: each :meth:`add` reserves the next ``size`` entries and returns their offset.

    Parameters
    ----------
    name : str
        The record's name, for messages and ``repr``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.size = 0
        self.fields: list[tuple[str | None, int, int]] = []

    def add(self, name: str | None, size: int = 1) -> int:
        """Reserve ``size`` entries for field ``name``.

        Parameters
        ----------
        name : str or None
            The field's name (None: entries left unused).
        size : int
            How many entries (at least 1).

        Returns
        -------
        int
            The field's offset (the record's size before the call).

        Raises
        ------
        ValueError
            `size` is below 1.
        """
        size = int(size)
        if size < 1:
            raise ValueError(f"{self.name}.{name}: size must be at least 1, got {size}")
        offset = self.size
        self.fields.append((name, offset, size))
        self.size += size
        return offset

    def offset(self, name: str) -> int:
        """The offset of field ``name``.

        Parameters
        ----------
        name : str
            A field added before.

        Returns
        -------
        int
            Its offset (KeyError when there is no such field).
        """
        for n, o, _ in self.fields:
            if n == name:
                return o
        raise KeyError(f"{self.name} has no field {name!r}")

    def __repr__(self) -> str:
        rows = ", ".join(f"{n or '-'}@{o}" + (f"[{s}]" if s > 1 else "") for n, o, s in self.fields)
        return f"Layout({self.name!r}, size={self.size}: {rows})"
