"""An installed Pasur agent: registered as ``mostpoints`` by this package's entry point."""

from agents import Agent
from agents.pasur.toolkit import choose_actions


class MostPoints(Agent):
    """Capture the most points (a sur counts), then the most clubs; else lay the lowest card."""

    name, game_ids = "mostpoints", ("pasur",)

    def act(self, obs, mask, view):
        def best(moves):
            return max(moves, key=lambda m: (m.is_capture, m.points, m.clubs, -m.card))
        return choose_actions(view, best)
