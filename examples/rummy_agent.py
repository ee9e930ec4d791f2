"""A Persian Rummy agent on the turn's options (docs/your_agent.md)."""

from agents import Agent
from agents.rummy.toolkit import choose_actions


class MeldFirst(Agent):
    """Take a discard it can meld (fewest cards) else draw; then meld or lay off the
    most points, else discard the most valuable card."""

    name, game_ids = "meld-first", ("persian_rummy",)

    def act(self, obs, mask, view):
        def choose(options):
            draws = [o for o in options if o.kind in ("draw", "take", "pass")]
            if draws:
                return min(draws, key=lambda o: (o.kind != "take", len(o.cards)))
            return max(options, key=lambda o: (o.points, o.kind == "discard" and o.value))
        return choose_actions(view, choose)
