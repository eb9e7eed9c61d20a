"""The result table's types: the core columns every game shares, declared once, and each game's own.

A result table has one row per (game, seat).  Ten columns mean the same in every game, and every
generic tool (ladders, ratings, sweeps, comparisons) reads only them:

==========  ==========  ==============================================================
game        int64       the game's number in its run (0..games-1)
game_seed   uint64      its seed, a function of (run seed, game) alone
rules       string      the rule set's name
players     int8        players at the table
seat        int8        1..players, in turn order
agent       string      the full spec of the agent in that seat
total       int16       its final score
rank        int8        1 for the winner(s); ties share a rank
win_share   float64     1/k for each of k tied winners, else 0 (sums to 1 per game)
win         bool        rank == 1
==========  ==========  ==============================================================

A game adds its own columns (a Citywright board's district points, a Cartographers map's edicts)
with :func:`result_schema`, and its chunk player builds its rows with :func:`table`: typed Arrow
arrays, so a column has the same type in every chunk, at every player count, before and after a
Parquet round trip.  (Strings are ``large_string``: a chunk's boards or maps can pass 2 GB of text.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pyarrow as pa

CORE_TYPES: dict[str, pa.DataType] = {
    "game": pa.int64(), "game_seed": pa.uint64(), "rules": pa.large_string(), "players": pa.int8(),
    "seat": pa.int8(), "agent": pa.large_string(), "total": pa.int16(), "rank": pa.int8(),
    "win_share": pa.float64(), "win": pa.bool_(),
}  # fmt: skip
CORE_COLUMNS = tuple(CORE_TYPES)
# Columns whose values are (nearly) all distinct within a chunk, so that a Parquet dictionary would be built
# only to be dropped: a schema names them under this key of its metadata (a result schema: the core's and
# the game's).  Within a move log, a game's number repeats on every turn: a dictionary pays there.
PLAIN_KEY = b"boardlab.plain_columns"
CORE_PLAIN = ("game", "game_seed")


def result_schema(columns: Sequence[str], types: Mapping[str, pa.DataType], plain: Sequence[str] = ()) -> pa.Schema:
    """The result schema of a game: `columns` in order, the core ones typed by CORE_TYPES, the game's own by
    `types`; `plain` names the game's columns that are all distinct (written without a dictionary).

    Every core column must be among `columns`; a game cannot retype one, nor leave one of its own untyped.

    Parameters
    ----------
    columns : sequence of str
        Every result column, in the table's order.
    types : mapping of str to pyarrow.DataType
        The game's own columns' types.
    plain : sequence of str
        The game's columns to write without a Parquet dictionary.

    Returns
    -------
    pyarrow.Schema
        The schema; its metadata names the plain columns (the core's and `plain`).

    Raises
    ------
    ValueError
        A core column is missing or retyped, or a game column has no type.
    """
    missing = [c for c in CORE_COLUMNS if c not in columns]
    if missing:
        raise ValueError(f"result columns lack the core columns {missing}")
    retyped = [c for c in types if c in CORE_TYPES]
    if retyped:
        raise ValueError(f"core columns {retyped} have the core's types; a game does not declare them")
    untyped = [c for c in columns if c not in CORE_TYPES and c not in types]
    if untyped:
        raise ValueError(f"result columns {untyped} have no type")
    fields = [(c, CORE_TYPES.get(c) or types[c]) for c in columns]
    return pa.schema(fields, metadata={PLAIN_KEY: ",".join((*CORE_PLAIN, *plain)).encode()})


def core_schema() -> pa.Schema:
    """The schema of a game with no columns of its own.

    Returns
    -------
    pyarrow.Schema
        The core columns, typed by CORE_TYPES.
    """
    return result_schema(CORE_COLUMNS, {})


def plain_columns(schema: pa.Schema) -> tuple[str, ...]:
    """The columns of `schema` to write without a Parquet dictionary (those its metadata names).

    Parameters
    ----------
    schema : pyarrow.Schema
        A result schema.

    Returns
    -------
    tuple of str
        The named columns that are in the schema.
    """
    named = (schema.metadata or {}).get(PLAIN_KEY, b"").decode().split(",")
    return tuple(c for c in named if c in schema.names)


def schema_of(game) -> pa.Schema:
    """A game's result schema: its Simulation's ``schema``, or the core's.

    Parameters
    ----------
    game : boardlab.sim.games.GameDef
        The game.

    Returns
    -------
    pyarrow.Schema
        The schema its chunk player's tables have.
    """
    schema = game.optional("schema")
    return schema if schema is not None else core_schema()


def table(columns: Mapping[str, object], schema: pa.Schema) -> pa.Table:
    """Columns (numpy arrays, Arrow arrays or lists, one value per row) -> a table of `schema`, each column
    converted to its declared type (a value that does not fit the type raises: no silent wrap-around).

    Parameters
    ----------
    columns : mapping of str to array-like
        One array per field of `schema` (extra keys ignored), all of the same length.
    schema : pyarrow.Schema
        The table's schema.

    Returns
    -------
    pyarrow.Table
        The rows, typed and ordered as `schema`.
    """
    arrays = [pa.array(columns[f.name], f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def conform(rows: pa.Table | Callable[[], pa.Table], schema: pa.Schema, who: str) -> pa.Table:
    """A chunk player's result (a table, or a function building one) checked against `schema`: the same
    column names and types in the same order (and then the schema's metadata).

    Parameters
    ----------
    rows : pyarrow.Table or callable
        The table, or a function of no arguments returning it.
    schema : pyarrow.Schema
        The game's result schema.
    who : str
        The chunk player's name, for the message.

    Returns
    -------
    pyarrow.Table
        The table, with the schema's metadata.

    Raises
    ------
    TypeError
        Not a table, or a column name or type differs (naming `who` and the first difference).
    """
    t = rows() if callable(rows) else rows
    if not isinstance(t, pa.Table):
        raise TypeError(f"{who} returned {type(t).__name__}, not a pyarrow.Table (boardlab.experiments.schema.table)")
    if not t.schema.equals(schema, check_metadata=False):
        if t.schema.names != schema.names:
            raise TypeError(f"{who}: columns {t.schema.names}, the schema's are {schema.names}")
        bad = next(f for f, g in zip(t.schema, schema, strict=True) if not f.equals(g))
        raise TypeError(f"{who}: column {bad.name} is {bad.type}, the schema says {schema.field(bad.name).type}")
    return t if t.schema.metadata == schema.metadata else t.replace_schema_metadata(schema.metadata)
