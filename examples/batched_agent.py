"""MostCards for a whole batch at once, on the arrays of the toolkit (docs/your_agent.md).

``move_arrays`` lists the moves of every requested game in one compiled pass; the
choice is then numpy over all of them: no Python loop over decisions or moves.
"""

import numpy as np

from agents import Agent
from agents.pasur.toolkit import move_arrays


class BatchedMostCards(Agent):
    name, game_ids = "batched-most-cards", ("pasur",)

    def __init__(self, sur_bonus: int = 0) -> None:
        self.sur_bonus = sur_bonus  # an option: pasur eval ...:BatchedMostCards:sur_bonus=5

    def act(self, obs, mask, view):
        m = move_arrays(view, view.games)
        bits = m["captured"].astype("<u8").view(np.uint8).reshape(-1, 8)
        cards_won = np.unpackbits(bits, axis=1).sum(axis=1).astype(np.int64)
        # one score per move, ordered as (cards won, points, lowest card)
        score = (cards_won * 64 + m["points"] + self.sur_bonus * m["sur"]) * 64 - m["card"]
        game_of_move = np.repeat(np.arange(len(view.games)), np.diff(m["offsets"]))
        first = -np.arange(len(score))  # among equal scores the first move, as max() does
        order = np.lexsort((first, score, game_of_move))  # by game, its best move last
        best = order[m["offsets"][1:] - 1]
        return m["actions"][best, 0]
