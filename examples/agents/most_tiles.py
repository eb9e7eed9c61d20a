"""A user's own Citywright agent, as README's "Your own agent" shows it: `py:most_tiles:MostTiles`.

Any importable object with ``act(observation, legal_moves, rng)`` plays in every command; this one takes,
among the listed moves, one that puts the most tiles on the board (ties broken by its generator).
"""

__version__ = "1.0"


class MostTiles:
    def act(self, observation, legal_moves, rng):
        def on_board(m):
            return sum(0 <= r < 7 and 0 <= c < 7 for r, c in m.cells)

        best = max(on_board(m) for m in legal_moves)
        choices = [m for m in legal_moves if on_board(m) == best]
        return choices[rng.integers(len(choices))]
