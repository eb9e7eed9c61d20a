"""The reference implementation of Citywright: the slow, obvious oracle.

Design notes: docs/games/citywright/engine.md#reference-implementation.
"""

from __future__ import annotations

from collections import deque

from .moves import Move
from .rules import (
    BOARD_SIZE,
    DISTRICT_NAMES,
    DISTRICTS,
    MARKET_SIZE,
    N_EDGE_SLOTS,
    N_SLOTS,
    SLOT_NAMES,
    opposite_slot,
    slot_line,
)

MASK64 = (1 << 64) - 1
EMPTY = "."

# --- random numbers (docs/games/citywright/engine.md "Random numbers") ------------------------------


class SplitMix64:
    """The SplitMix64 generator of docs/games/citywright/engine.md, in Python integers masked to 64 bits.

    Parameters
    ----------
    seed : int
        The initial state (taken modulo 2**64).
    """

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        """Advance the state and return its output.

        Returns
        -------
        int
            The next 64-bit output (the state advanced).
        """
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def rand(self, n: int) -> int:
        """An integer in 0..n-1.

        Parameters
        ----------
        n : int
            The number of values.

        Returns
        -------
        int
            The draw.
        """
        return ((self.next() >> 32) * n) >> 32


# --- shapes and orientations (docs/games/citywright.md section 2, docs/games/citywright/engine.md "Moves") ----------


def orient_cells(cells, orientation: int) -> tuple[tuple[int, int], ...]:
    """The shape's cells under one orientation index, shifted to start at (0, 0).

    Reflect (r, c) -> (r, -c) when orientation >= 4, then turn a quarter clockwise
    (r, c) -> (c, -r) orientation % 4 times, then shift the smallest row and column
    to 0.  Cell k of the result is the image of cell k of the shape.

    Parameters
    ----------
    cells : iterable of tuple of int
        The shape's (row, col) cells.
    orientation : int
        0..7.

    Returns
    -------
    tuple of tuple of int
        The cells, in the order given.
    """
    points = [(r, c) for r, c in cells]
    if orientation >= 4:
        points = [(r, -c) for r, c in points]
    for _ in range(orientation % 4):
        points = [(c, -r) for r, c in points]
    top = min(r for r, _ in points)
    left = min(c for _, c in points)
    return tuple((r - top, c - left) for r, c in points)


def orientations(shape) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """(orientation index, shifted cells) for the first index of each distinct placement.

    Two indices are the same placement when they give the same set of cells and,
    for a shape with a star, the star on the same cell.

    Parameters
    ----------
    shape : Shape
        A ruler shape of the rules.

    Returns
    -------
    list of tuple
        (orientation index, cells) per distinct placement.
    """
    seen = set()
    out = []
    for o in range(8):
        cells = orient_cells(shape.cells, o)
        star_cell = cells[shape.star] if shape.star >= 0 else None
        key = (frozenset(cells), star_cell)
        if key not in seen:
            seen.add(key)
            out.append((o, cells))
    return out


def on_board(cell) -> bool:
    """Whether a cell is on the board.

    Parameters
    ----------
    cell : tuple of int
        (row, col).

    Returns
    -------
    bool
        True inside the 7 x 7 board.
    """
    r, c = cell
    return 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE


# --- district scoring (docs/games/citywright.md section 6) ------------------------------------------


def _grid(board: str) -> list[list[str]]:
    if len(board) != BOARD_SIZE * BOARD_SIZE:
        raise ValueError(f"a board has {BOARD_SIZE * BOARD_SIZE} cells, got {len(board)}")
    bad = set(board) - set(DISTRICTS) - {EMPTY}
    if bad:
        raise ValueError(f"a board holds only {''.join(DISTRICTS)} and '{EMPTY}', got {sorted(bad)}")
    return [list(board[r * BOARD_SIZE : (r + 1) * BOARD_SIZE]) for r in range(BOARD_SIZE)]


def _neighbours(r: int, c: int):
    """The cells sharing an edge with (r, c) that are on the board."""
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if on_board((r + dr, c + dc)):
            yield r + dr, c + dc


def cluster_sizes(grid: list[list[str]], district: str) -> list[int]:
    """Sizes of the edge-connected groups of `district`, largest first (breadth-first search).

    Parameters
    ----------
    grid : list of list of str
        The board.
    district : str
        The district's letter.

    Returns
    -------
    list of int
        The groups' sizes.
    """
    seen = set()
    sizes = []
    for r in range(BOARD_SIZE):
        for c in range(BOARD_SIZE):
            if grid[r][c] != district or (r, c) in seen:
                continue
            seen.add((r, c))
            queue = deque([(r, c)])
            size = 0
            while queue:
                cr, cc = queue.popleft()
                size += 1
                for nr, nc in _neighbours(cr, cc):
                    if grid[nr][nc] == district and (nr, nc) not in seen:
                        seen.add((nr, nc))
                        queue.append((nr, nc))
            sizes.append(size)
    return sorted(sizes, reverse=True)


def score_residential(grid, rules) -> int:
    """Residential's points on a board (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    grid : list of list of str
        The board, 7 x 7 letters ("." empty).
    rules : Rules
        The rule set.

    Returns
    -------
    int
        The points.
    """
    p = rules.scoring["residential"]
    sizes = cluster_sizes(grid, "R")
    if not sizes:
        return 0
    largest = sizes[0]
    if p["largest"] == "pairs":
        points = (largest // 2) * p["pair_points"]
    else:  # "tiles" (v1.0)
        points = largest * p["largest_tile_points"]
    if len(sizes) >= 2:  # of two equal clusters, one is largest, the other second
        points += sizes[1] * p["second_tile_points"]
    return points


def score_commercial(grid, rules) -> int:
    """Commercial's points on a board (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    grid : list of list of str
        The board, 7 x 7 letters ("." empty).
    rules : Rules
        The rule set.

    Returns
    -------
    int
        The points.
    """
    p = rules.scoring["commercial"]
    cells = [(r, c) for r in range(BOARD_SIZE) for c in range(BOARD_SIZE) if grid[r][c] == "C"]
    n = len(cells)
    points = 0
    for threshold, tier_points in zip(p["tier_thresholds"], p["tier_points"], strict=True):
        if n >= threshold:
            points = tier_points  # the highest tier reached
    points += max(0, n - p["extra_from"]) * p["extra_per_tile"]
    isolated = sum(1 for r, c in cells if all(grid[nr][nc] != "C" for nr, nc in _neighbours(r, c)))
    points += isolated * p["isolated_points"]
    return points


def score_park(grid, rules) -> int:
    """Park's points on a board (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    grid : list of list of str
        The board, 7 x 7 letters ("." empty).
    rules : Rules
        The rule set.

    Returns
    -------
    int
        The points.
    """
    p = rules.scoring["park"]
    partners = set(p["adjacent_to"].upper())
    parks = [(r, c) for r in range(BOARD_SIZE) for c in range(BOARD_SIZE) if grid[r][c] == "P"]
    adjacent = sum(1 for r, c in parks if any(grid[nr][nc] in partners for nr, nc in _neighbours(r, c)))
    rows = {r for r, _ in parks}
    cols = {c for _, c in parks}
    return adjacent * p["adjacent_points"] + len(rows) * p["row_points"] + len(cols) * p["column_points"]


def score_industrial(grid, rules) -> int:
    """Industrial's points on a board (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    grid : list of list of str
        The board, 7 x 7 letters ("." empty).
    rules : Rules
        The rule set.

    Returns
    -------
    int
        The points.
    """
    p = rules.scoring["industrial"]
    last = BOARD_SIZE - 1
    cells = [(r, c) for r in range(BOARD_SIZE) for c in range(BOARD_SIZE) if grid[r][c] == "I"]
    ring = sum(1 for r, c in cells if r in (0, last) or c in (0, last))
    return ring * p["ring_points"] + (len(cells) // 2) * p["pair_points"]


def score_board(board: str, rules) -> dict:
    """District scores of one 49-character board (no achievements, no compensation).

    Parameters
    ----------
    board : str
        49 characters from 'RCPI.', row-major.
    rules : Rules
        The rule set.

    Returns
    -------
    dict
        Points per district, ``districts`` (their sum) and ``empty``.
    """
    grid = _grid(board)
    out = {
        "residential": score_residential(grid, rules),
        "commercial": score_commercial(grid, rules),
        "park": score_park(grid, rules),
        "industrial": score_industrial(grid, rules),
    }
    out["districts"] = sum(out[name] for name in DISTRICT_NAMES)
    out["empty"] = board.count(EMPTY)
    return out


# --- achievements (docs/games/citywright.md section 7) ------------------------------------------------


def _has_full_line(grid, district: str) -> bool:
    def full(cells):
        if district == "any":
            return all(grid[r][c] != EMPTY for r, c in cells)
        return all(grid[r][c] == district for r, c in cells)

    for i in range(BOARD_SIZE):
        if full([(i, c) for c in range(BOARD_SIZE)]) or full([(r, i) for r in range(BOARD_SIZE)]):
            return True
    return False


def achievement_earned(card, seat: int, boards: list[str], placed: list[dict], district_scores: list[dict]) -> bool:
    """Whether `seat` earns one achievement card (a boardlab.sim.citywright.rules.Achievement).

    Parameters
    ----------
    card : Achievement
        The card.
    seat : int
        The seat.
    boards : list of str
        Every seat's board, 49 characters each.
    placed : list of dict
        Per seat, shape name -> rulers placed.
    district_scores : list of dict
        Per seat, :func:`score_board`.

    Returns
    -------
    bool
        True when earned.
    """
    board = boards[seat]
    counts = [n for n in placed[seat].values() if n > 0]
    if card.kind == "distinct_shapes":
        return len(counts) >= card.threshold
    if card.kind == "same_shape":
        return max(counts, default=0) >= card.threshold
    if card.kind == "shape_count":
        return placed[seat].get(card.shape, 0) >= card.threshold
    if card.kind == "district_count":
        return board.count(card.district) >= card.threshold
    if card.kind == "full_line":
        return _has_full_line(_grid(board), card.district)
    if card.kind == "no_empty":
        return EMPTY not in board
    if card.kind == "highest_district":
        key = DISTRICT_NAMES[DISTRICTS.index(card.district)]
        mine = district_scores[seat][key]
        if len(boards) == 1:
            return mine >= card.solo_threshold
        return mine == max(s[key] for s in district_scores)
    raise ValueError(f"unknown achievement kind {card.kind!r}")


# --- the game -------------------------------------------------------------------------


class RefGame:
    """One game, played move by move (docs/games/citywright/engine.md).

    State, all plain Python:
      market  : list of 16 letters (row-major), "." where a tile has gone (market_depletes)
      slots   : list of 20 shape names or None
      deck, discard, used, removed : {shape name: count}
      boards  : per seat, a 7 x 7 list of lists of letters, "." for empty

    Parameters
    ----------
    players : int
        1..4.
    rules : Rules
        The rule set.
    seed : int
        The game seed.
    """

    def __init__(self, players: int, rules, seed: int):
        if not 1 <= players <= 4:
            raise ValueError(f"1 to 4 players, got {players}")
        self.players = players
        self.rules = rules
        self.seed = seed
        self.n_rounds, self.turns_per_round = rules.rounds(players)
        self.chance = SplitMix64(seed & MASK64)

        self.shape_by_name = {s.name: s for s in rules.shapes}
        self.shape_names = [s.name for s in rules.shapes]
        # The two decks, each a list of shape names in rule-set order.
        self.tetromino_names = [s.name for s in rules.shapes if not s.has_star]
        self.pentomino_names = [s.name for s in rules.shapes if s.has_star]
        self.shape_orientations = {s.name: orientations(s) for s in rules.shapes}

        self.deck = {}
        self.removed = {}
        for s in rules.shapes:
            out = s.two_player_remove if players == 2 else 0
            self.deck[s.name] = s.copies - out
            self.removed[s.name] = out
        self.discard = {name: 0 for name in self.shape_names}
        self.used = {name: 0 for name in self.shape_names}

        self.boards = [[[EMPTY] * BOARD_SIZE for _ in range(BOARD_SIZE)] for _ in range(players)]
        self.waste = [0] * players
        self.taken = [0] * players
        self.forced = [0] * players
        self.turns = [0] * players
        self.placed = [{name: 0 for name in self.shape_names} for _ in range(players)]

        self.round = 0
        self.turn = 0
        self._done = False
        self.market = [EMPTY] * (MARKET_SIZE * MARKET_SIZE)
        self.slots: list[str | None] = [None] * N_SLOTS
        self._fill_market()
        self._deal_all()

    # --- chance -------------------------------------------------------------------

    def _fill_market(self) -> None:
        per = self.rules.game["market_tiles_per_district"]
        a = [d for d in range(len(DISTRICTS)) for _ in range(per)]
        for i in range(len(a) - 1, 0, -1):
            j = self.chance.rand(i + 1)
            a[i], a[j] = a[j], a[i]
        self.market = [DISTRICTS[d] for d in a]

    def _deal_slot(self, slot: int) -> None:
        names = self.tetromino_names if slot < N_EDGE_SLOTS else self.pentomino_names
        total = sum(self.deck[n] for n in names)
        if total == 0:  # reshuffle the discard pile into the deck
            for n in names:
                self.deck[n] += self.discard[n]
                self.discard[n] = 0
            total = sum(self.deck[n] for n in names)
        if total == 0:
            self.slots[slot] = None
            return
        x = self.chance.rand(total)
        for n in names:
            if x < self.deck[n]:
                self.deck[n] -= 1
                self.slots[slot] = n
                return
            x -= self.deck[n]
        raise AssertionError("deck walk fell off the end")  # pragma: no cover

    def _deal_all(self) -> None:
        for slot in range(N_SLOTS):
            self._deal_slot(slot)

    def _cleanup(self) -> None:
        for slot in range(N_SLOTS):
            name = self.slots[slot]
            if name is not None:
                self.discard[name] += 1
                self.slots[slot] = None
        for name in self.shape_names:
            self.discard[name] += self.used[name]
            self.used[name] = 0
        self._fill_market()
        self._deal_all()
        self.round += 1
        self.turn = 0

    # --- whose turn -----------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return self._done

    @property
    def current(self) -> int:
        """The seat to move (0-based)."""
        if self._done:
            return -1
        return (self.round + self.turn) % self.players

    # --- what a slot offers -----------------------------------------------------------

    def _market_at(self, r: int, c: int) -> str:
        return self.market[r * MARKET_SIZE + c]

    def line_tiles(self, slot: int) -> list[str]:
        """The district letters `slot` gives now, in line order (without the free pick).

        Parameters
        ----------
        slot : int
            The market slot.

        Returns
        -------
        list of str
            The letters of the tiles still there (a tile gone from a depleting market is left out).
        """
        self._check_slot_index(slot)
        return [self._market_at(r, c) for r, c in slot_line(slot) if self._market_at(r, c) != EMPTY]

    def _free_pick_options(self, slot: int) -> list[str]:
        """Districts the free pick may copy after this slot's line tiles are taken."""
        market = list(self.market)
        if self.rules.game["market_depletes"]:
            for r, c in slot_line(slot):
                market[r * MARKET_SIZE + c] = EMPTY
        return [d for d in DISTRICTS if d in market]

    def _board_cell(self, seat: int, cell) -> str:
        r, c = cell
        return self.boards[seat][r][c]

    def _placements(self, shape_name: str, seat: int):
        shape = self.shape_by_name[shape_name]
        out = []
        for o, cells in self.shape_orientations[shape.name]:
            height = 1 + max(r for r, _ in cells)
            width = 1 + max(c for _, c in cells)
            for ar in range(-(height - 1), BOARD_SIZE):
                for ac in range(-(width - 1), BOARD_SIZE):
                    placed = tuple((ar + r, ac + c) for r, c in cells)
                    landing = [cell for cell in placed if on_board(cell)]
                    if landing and all(self._board_cell(seat, cell) == EMPTY for cell in landing):
                        out.append((o, (ar, ac), placed))
        return out

    def legal_placements(self, slot: int):
        """(orientation, anchor, cells) of every legal placement of the ruler in `slot`.

        On the current player's board; only canonical orientation indices; sorted by
        (orientation, anchor).  Empty for an empty slot or a finished game.

        Parameters
        ----------
        slot : int
            The market slot.

        Returns
        -------
        list of tuple
            (orientation, anchor, cells) per placement.
        """
        self._check_slot_index(slot)
        if self._done or self.slots[slot] is None:
            return []
        return self._placements(self.slots[slot], self.current)

    # --- validation -------------------------------------------------------------------

    @staticmethod
    def _check_slot_index(slot) -> None:
        if not isinstance(slot, int) or not 0 <= slot < N_SLOTS:
            raise ValueError(f"slot must be 0..{N_SLOTS - 1}, got {slot!r}")

    def _ruler_in(self, move: Move, shape_required: bool) -> str:
        self._check_slot_index(move.slot)
        name = self.slots[move.slot]
        where = SLOT_NAMES[move.slot]
        if name is None:
            raise ValueError(f"slot {where} is empty")
        if (shape_required or move.shape) and move.shape != name:
            raise ValueError(f"slot {where} holds {name}, the move says {move.shape!r}")
        return name

    def _check(self, move: Move) -> dict:
        """Validate `move` for the current player; return what it does (raises ValueError)."""
        if self._done:
            raise ValueError("the game is over: no player is to move")
        if not isinstance(move, Move):  # ValueError, not TypeError: is_legal answers False
            raise ValueError(f"expected a boardlab.sim.citywright.moves.Move, got {type(move).__name__}")
        if move.kind == "place":
            return self._check_place(move)
        if move.kind == "discard":
            return self._check_discard(move)
        if move.kind == "swap":
            return self._check_swap(move)
        if move.kind == "pass":
            filled = [SLOT_NAMES[s] for s in range(N_SLOTS) if self.slots[s] is not None]
            if filled:
                raise ValueError(f"cannot pass while a slot holds a ruler ({filled[0]})")
            return {"kind": "pass"}
        raise ValueError(f"unknown move kind {move.kind!r} (place, discard, swap, pass)")

    def _check_place(self, move: Move) -> dict:
        seat = self.current
        name = self._ruler_in(move, shape_required=True)
        shape = self.shape_by_name[name]
        where = SLOT_NAMES[move.slot]

        # Cells: the canonical orientation, translated by the anchor.
        canonical = dict(self.shape_orientations[name])
        if not isinstance(move.orientation, int) or not 0 <= move.orientation < 8:
            raise ValueError(f"orientation must be 0..7, got {move.orientation!r}")
        if move.orientation not in canonical:
            twin = orient_cells(shape.cells, move.orientation)
            twin_key = (frozenset(twin), twin[shape.star] if shape.star >= 0 else None)
            first = next(
                o
                for o, cells in canonical.items()
                if (frozenset(cells), cells[shape.star] if shape.star >= 0 else None) == twin_key
            )
            raise ValueError(
                f"orientation {move.orientation} of {name} repeats orientation {first}; only the first index is used"
            )
        try:
            ar, ac = (int(x) for x in move.anchor)
        except (TypeError, ValueError):
            raise ValueError(f"anchor must be (row, col), got {move.anchor!r}") from None
        expected = tuple((ar + r, ac + c) for r, c in canonical[move.orientation])
        try:
            given = tuple((int(r), int(c)) for r, c in move.cells)
        except (TypeError, ValueError):
            raise ValueError(f"cells must be (row, col) pairs, got {move.cells!r}") from None
        if given != expected:
            raise ValueError(
                f"cells {given} are not {name} in orientation {move.orientation} at anchor {(ar, ac)}: {expected}"
            )
        landing = [k for k, cell in enumerate(given) if on_board(cell)]
        if not landing:
            raise ValueError(f"no cell of {name} lands on the board")
        for k in landing:
            if self._board_cell(seat, given[k]) != EMPTY:
                raise ValueError(f"cell {given[k]} is already occupied ({self._board_cell(seat, given[k])})")

        # Tiles: the line's tiles on the plain cells, the free pick on the star cell.
        line = self.line_tiles(move.slot)
        tiles = tuple(move.tiles)
        if len(tiles) != len(given):
            raise ValueError(f"{name} has {len(given)} cells, the move gives {len(tiles)} tiles")
        for t in tiles:
            if t not in DISTRICTS and t != "":
                raise ValueError(f"tile {t!r} is not a district ({', '.join(DISTRICTS)}) or ''")
        plain = sorted(t for k, t in enumerate(tiles) if k != shape.star)
        n_plain = len(given) - (1 if shape.has_star else 0)
        wanted = sorted(line + [""] * (n_plain - len(line)))
        if plain != wanted:
            raise ValueError(
                f"slot {where} gives tiles {''.join(line) or 'none'}; the move puts {''.join(plain) or 'none'}"
                " on the shape's plain cells"
            )
        free = ""
        if shape.has_star:
            options = self._free_pick_options(move.slot)
            free = move.free
            if options and free not in options:
                raise ValueError(f"the free pick must be one of {', '.join(options)}, got {free!r}")
            if not options and free != "":
                raise ValueError(f"no tile is left on the market for a free pick, got {free!r}")
            if tiles[shape.star] != free:
                raise ValueError(
                    f"the free pick {free!r} must go on the star cell {given[shape.star]}, "
                    f"which the move gives {tiles[shape.star]!r}"
                )
        elif move.free:
            raise ValueError(f"slot {where} is an edge slot: no free pick, got {move.free!r}")

        taken = len(line) + (1 if free else 0)
        landed = [(given[k], tiles[k]) for k in landing if tiles[k] != ""]
        return {
            "kind": "place",
            "slot": move.slot,
            "shape": name,
            "landed": landed,
            "taken": taken,
            "free": free,
        }

    def _check_discard(self, move: Move) -> dict:
        name = self._ruler_in(move, shape_required=False)
        where = SLOT_NAMES[move.slot]
        options = self._placements(name, self.current)
        if options:
            o, anchor, _ = options[0]
            raise ValueError(
                f"{name} from {where} can be placed (e.g. orientation {o} at {anchor}): a discard is only forced"
                " when no placement exists"
            )
        shape = self.shape_by_name[name]
        free = ""
        if shape.has_star:
            options = self._free_pick_options(move.slot)
            if move.free:
                if move.free not in options:
                    raise ValueError(f"the free pick must be one of {', '.join(options)}, got {move.free!r}")
                free = move.free
            elif options:
                free = "first"  # market_depletes: the first tile still on the market leaves
        return {
            "kind": "discard",
            "slot": move.slot,
            "shape": name,
            "taken": len(self.line_tiles(move.slot)) + (1 if free else 0),
            "free": free,
        }

    def _check_swap(self, move: Move) -> dict:
        if not self.rules.swap_allowed(self.players):
            raise ValueError(f"the pentomino swap is not allowed with {self.players} player(s)")
        self._check_slot_index(move.slot)
        if move.slot < N_EDGE_SLOTS:
            raise ValueError(f"a swap needs a corner slot, {SLOT_NAMES[move.slot]} is an edge slot")
        name = self._ruler_in(move, shape_required=False)
        seat = self.current
        has_empty = any(EMPTY in row for row in self.boards[seat])
        try:
            cell = (int(move.cell[0]), int(move.cell[1]))
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"cell must be (row, col), got {move.cell!r}") from None
        if not has_empty and not self.rules.game["swap_requires_empty_cell"] and cell == (-1, -1):
            return {"kind": "swap", "slot": move.slot, "shape": name, "cell": None, "district": ""}
        if not has_empty and self.rules.game["swap_requires_empty_cell"]:
            raise ValueError("a swap needs an empty cell and the board is full")
        if not on_board(cell):
            raise ValueError(f"swap cell {cell} is off the board")
        if self._board_cell(seat, cell) != EMPTY:
            raise ValueError(f"swap cell {cell} is already occupied ({self._board_cell(seat, cell)})")
        if move.district not in DISTRICTS:
            raise ValueError(f"swap district must be one of {', '.join(DISTRICTS)}, got {move.district!r}")
        return {"kind": "swap", "slot": move.slot, "shape": name, "cell": cell, "district": move.district}

    def is_legal(self, move: Move) -> bool:
        """Whether `move` is among the current player's legal moves.

        Parameters
        ----------
        move : Move
            A move.

        Returns
        -------
        bool
            True when the current player may play it.
        """
        try:
            self._check(move)
        except ValueError:
            return False
        return True

    # --- playing ------------------------------------------------------------------------

    def _take_from_market(self, slot: int, free: str) -> None:
        """market_depletes: the line's tiles leave, then the free pick's cell (row-major first)."""
        for r, c in slot_line(slot):
            self.market[r * MARKET_SIZE + c] = EMPTY
        if not free:
            return
        for i, d in enumerate(self.market):
            if d != EMPTY and (free == "first" or d == free):
                self.market[i] = EMPTY
                return

    def apply(self, move: Move) -> None:
        """Play `move` for the current player (raises ValueError if it is illegal).

        Parameters
        ----------
        move : Move
            A legal move.
        """
        plan = self._check(move)
        seat = self.current
        kind = plan["kind"]
        if kind == "place":
            if self.rules.game["market_depletes"]:
                self._take_from_market(plan["slot"], plan["free"])
            for (r, c), district in plan["landed"]:
                self.boards[seat][r][c] = district
            self.taken[seat] += plan["taken"]
            self.waste[seat] += plan["taken"] - len(plan["landed"])
            if plan["landed"]:
                self.placed[seat][plan["shape"]] += 1
            self.slots[plan["slot"]] = None
            self.used[plan["shape"]] += 1
        elif kind == "discard":
            if self.rules.game["market_depletes"]:
                self._take_from_market(plan["slot"], plan["free"])
            self.taken[seat] += plan["taken"]
            self.waste[seat] += plan["taken"]
            self.forced[seat] += 1
            self.slots[plan["slot"]] = None
            self.used[plan["shape"]] += 1
        elif kind == "swap":
            if plan["cell"] is not None:
                r, c = plan["cell"]
                self.boards[seat][r][c] = plan["district"]
            self.slots[plan["slot"]] = None
            self.removed[plan["shape"]] += 1

        if kind in ("place", "discard") and self.players == 1 and self.rules.game["solo_rival"]:
            target = opposite_slot(plan["slot"])
            name = self.slots[target]
            if name is not None:
                self.slots[target] = None
                self.used[name] += 1

        self.turns[seat] += 1
        self.turn += 1
        if self.turn == self.players * self.turns_per_round:
            if self.round == self.n_rounds - 1:
                self._done = True
            else:
                self._cleanup()

    # --- observation ---------------------------------------------------------------------

    def board_string(self, seat: int) -> str:
        """A seat's board as 49 characters from 'RCPI.'.

        Parameters
        ----------
        seat : int
            The seat.

        Returns
        -------
        str
            49 characters, row-major.
        """
        return "".join("".join(row) for row in self.boards[seat])

    def set_board(self, seat: int, board: str) -> None:
        """Overwrite a seat's board (for tests and puzzles; bypasses the rules).

        Parameters
        ----------
        seat : int
            The seat.
        board : str
            49 characters from 'RCPI.'.
        """
        self.boards[seat] = _grid(board)

    def snapshot(self) -> dict:
        """The position as plain data, in the engine's snapshot() format (docs/games/citywright/engine.md).

        Returns
        -------
        dict
            The observation the engine's snapshot() gives too.
        """
        return {
            "round": self.round,
            "turn": self.turn,
            "current": self.current,
            "done": self._done,
            "market": "".join(self.market),
            "slots": list(self.slots),
            "deck": dict(self.deck),
            "discard": dict(self.discard),
            "used": dict(self.used),
            "removed": dict(self.removed),
            "boards": [self.board_string(s) for s in range(self.players)],
            "waste": list(self.waste),
            "taken": list(self.taken),
            "forced": list(self.forced),
            "turns": list(self.turns),
            "placed": [dict(p) for p in self.placed],
        }

    def scores(self) -> list[dict]:
        """Per seat: district scores, achievements, compensation, total, tie-breaks, rank, win share.

        Returns
        -------
        list of dict
            One entry per seat.
        """
        boards = [self.board_string(s) for s in range(self.players)]
        district_scores = [score_board(b, self.rules) for b in boards]
        compensation = self.rules.compensation(self.players)
        cards = self.rules.achievements()
        out = []
        for seat in range(self.players):
            row = dict(district_scores[seat])
            row["achievements"] = sum(
                card.points for card in cards if achievement_earned(card, seat, boards, self.placed, district_scores)
            )
            row["compensation"] = compensation[seat]
            row["total"] = row["districts"] + row["achievements"] + row["compensation"]
            row["shapes_distinct"] = sum(1 for n in self.placed[seat].values() if n > 0)
            out.append(row)

        # the last tie-break: more distinct shapes, or in a 2-player game under `game.two_player_tie` =
        # "second_seat" the later seat (docs/games/citywright.md section 8)
        by_seat = self.players == 2 and self.rules.game["two_player_tie"] == "second_seat"

        def standing(seat):  # larger is better: total high, empty low, then distinct shapes high (or seat)
            row = out[seat]
            return (row["total"], -row["empty"], seat if by_seat else row["shapes_distinct"])

        for seat, row in enumerate(out):
            row["rank"] = 1 + sum(1 for other in range(self.players) if standing(other) > standing(seat))
        winners = sum(1 for row in out if row["rank"] == 1)
        for row in out:
            row["win_share"] = 1.0 / winners if row["rank"] == 1 else 0.0
        return out
