"""A ten-line Pasur agent: take the most cards, else lay the lowest card (docs/your_agent.md)."""

from agents import Agent
from agents.pasur.toolkit import choose_actions


class MostCards(Agent):
    name, game_ids = "most-cards", ("pasur",)

    def act(self, obs, mask, view):
        # per decision: most cards captured, then most points, then the lowest card
        return choose_actions(
            view, lambda moves: max(moves, key=lambda m: (len(m.captured), m.points, -m.card)))
