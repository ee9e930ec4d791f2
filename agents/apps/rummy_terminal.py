"""Play Persian Rummy in the terminal against the agents (``pasur play --game persian_rummy``),
or watch them (:func:`watch_rummy`, ``pasur demo --game persian_rummy``).

The game is the web table's :class:`~agents.apps.web.rummy_table.RummyTable` (the same
checks, agents' turns, log and score sheet; it needs no web package), shown as text:
your hand, the discard pile, the melds with the team each card is credited to, the
other seats' card counts and the cards they took from the pile. Each turn lists your
legal actions, numbered; type a number or the action's text (``draw``, ``take 7H``,
``pick 5S``, ``meld``, ``lay_off 8H``, ``target 2``, ``discard 9C``, ``pass``). A
turn is several actions (draw, then any melds and lay-offs, then a discard).
``help``, ``table``, ``hint`` and ``quit`` are understood as in Pasur's terminal play
(:mod:`agents.apps.terminal`); bad input gets a message and the prompt again, and the
end of the input leaves the game cleanly.

Input and output streams are injectable, so a game can be driven by a script::

    import io
    play_rummy("greedy", seed=1, input_stream=io.StringIO("1\\n" * 500),
               output_stream=io.StringIO())
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from agents.apps.terminal import Console, _Quit
from agents.apps.web.rummy_table import RummyTable
from agents.registry import agent_label, build_agent, with_spec
from pasur_env.core.cards import with_symbols
from pasur_env.core.loop import decide
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.rummy.actions import parse_action
from pasur_env.rummy.cards import card_str, parse_card

__all__ = ["RummyHumanGame", "play_rummy", "watch_rummy", "play_command", "watch_command"]

HELP = """\
Commands:
  3                 play the action numbered 3 in the list
  draw              draw the top card of the stock
  take 7H           take 7H from the discard pile, with every card above it
                    (you must then meld 7H at once)
  pick 5H           put 5H into the meld you are building (lowest card first)
  meld              lay the picked cards down as a meld
  lay_off 8H        lay 8H off on a meld it extends (target 2: on meld 2, when asked)
  discard 9C        discard 9C: your turn ends
  pass              only when the stock is empty
  table             show the table again
  hint              what the strongest agent would play
  help              this text
  quit              leave the game
Cards: rank A 2..10 J Q K (or T for ten) and suit C D H S; jokers JK1..JK4."""

_WORDS = {"draw": "DRAW_STOCK", "stock": "DRAW_STOCK", "draw_stock": "DRAW_STOCK",
          "lay": "LAY_OFF", "layoff": "LAY_OFF", "lay_off": "LAY_OFF", "lay-off": "LAY_OFF"}


def _pretty(cards: Sequence[str]) -> str:
    return " ".join(card_str(parse_card(c)) for c in cards) or "-"


def _explain(action: str) -> str:
    """An action's text with what it does, for the numbered list."""
    word, _, arg = action.partition(" ")
    if word == "TARGET":
        return f"on meld {int(arg) + 1}"
    card = card_str(parse_card(arg)) if arg else ""
    return {"DRAW_STOCK": "draw the top card of the stock",
            "PASS": "pass (the stock is empty)",
            "TAKE": f"take {card} from the pile, with every card above it",
            "PICK": f"put {card} into the meld",
            "MELD": "lay the picked cards down as a meld",
            "LAY_OFF": f"lay {card} off on a meld",
            "DISCARD": f"discard {card} (ends your turn)"}.get(word, action)


class RummyHumanGame(Console):
    """One Persian Rummy game of a person against agents in the terminal (module docstring).

    Args:
        opponent: an agent spec or policy for every other seat, or one per other seat
            (seat order; your partner sits opposite you).
        seat: yours (0: you play first with the default dealer).
        seed, deck, dealer, episode, flags: as for :class:`RummyTable`.
        input_stream, output_stream: default stdin / stdout.
    """

    def __init__(self, opponent: str | Policy | Sequence[str | Policy] = "greedy",
                 seat: int = 0, seed: int | None = None, episode: str = "game",
                 deck: Sequence[Any] | None = None, dealer: int | None = None,
                 input_stream: TextIO | None = None, output_stream: TextIO | None = None,
                 **flags: Any) -> None:
        self.inp = input_stream if input_stream is not None else sys.stdin
        self.out = output_stream if output_stream is not None else sys.stdout
        self.table = RummyTable(seat, opponent, seed=seed, flags=flags, deck=deck,
                                dealer=dealer, episode=episode, any_spec=True)

    # ---- showing the table -----------------------------------------------------------------
    def show(self, v: dict[str, Any]) -> None:
        """The table as the person sees it, and the legal actions, numbered."""
        me = v["seat"] % 2
        self.say(f"Deal {v['deal']} of {v['deals']} · stock {v['stock']} · scores: you + "
                 f"partner {v['scores'][me]}, opponents {v['scores'][1 - me]}")
        self.say(f"Discard pile (bottom first): {_pretty(v['pile'])}")
        for m in v["melds"]:
            whose = "your team" if m["team"] == me else "opponents"
            credit = "".join("y" if t == me else "o" for t in m["teams"])
            self.say(f"  meld {m['index'] + 1} ({m['kind']}, {whose}): {_pretty(m['cards'])}"
                     f"   [credited: {credit}]")
        for s in v["seats"]:
            if not s["you"]:
                role = "your partner" if s["partner"] else "opponent"
                n = f"{s['cards']} card" + ("" if s["cards"] == 1 else "s")
                self.say(f"player_{s['seat']} ({s['name']}, {role}): {n}"
                         + (f"; took from the pile: {_pretty(s['known'])}" if s["known"] else ""))
        self.say(f"Your hand: {_pretty(v['hand'])}")
        if v["target"]:
            self.say(f"You must meld {_pretty([v['target']])} (taken from the pile) first.")
        if v["picked"]:
            self.say(f"Picked for a meld: {_pretty(v['picked'])}")
        if v["pending"]:
            self.say(f"Laying off {_pretty([v['pending']])}: choose the meld.")
        self.say("Your actions:")
        for k, a in enumerate(v["legal"]["actions"], 1):
            self.say(f"  {k}) {with_symbols(a):<12} {_explain(a)}")

    def sheet(self, v: dict[str, Any]) -> None:
        """The round's score sheet, then the winner once the game is over."""
        sheet = v["sheet"]
        self.say(f"\n=== round {sheet['round']} over ===")
        for t in sheet["teams"]:
            who = "you + partner" if t["yours"] else "opponents"
            self.say(f"  team {t['team']} ({who}): melded {t['melded']}, four-sets "
                     f"{t['four_sets']}, going out {t['going_out']}, left in hand "
                     f"{t['in_hand']} ({_pretty(t['left'])}) = {t['total']:+d}; game score "
                     f"{t['score']}")
        if v["phase"] == "over":
            self.say(f"\n=== game over === {v['winner']['text'] if v['winner'] else ''}")

    # ---- the game ---------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game ends or the person leaves; returns the exit code 0."""
        t = self.table
        opp = ", ".join(f"player_{s} ({t.names[s]}"
                        + (", your partner)" if s % 2 == t.human % 2 else ")")
                        for s in range(4) if s != t.human)
        self.say(f"Persian Rummy: you are player_{t.human}; with {opp}; "
                 f"{t.deals} deal(s); the deals of seed {t.seed}.")
        self.say("Type 'help' for the commands.")
        try:
            while True:
                v = t.view()
                for e in v["events"]:
                    if e["kind"] == "move":
                        self.say(f"  {e['round']}.{e['move']} {e['text']}")
                if v["sheet"] is not None and v["phase"] != "play":
                    self.sheet(v)
                    if v["phase"] == "over":
                        return 0
                    t.resume()
                    continue
                self.say()
                self.show(v)
                self.turn(v)
        except _Quit:
            self.say("Bye.")
            return 0

    def turn(self, v: dict[str, Any]) -> None:
        """Read one action of the person and play it (asks again until one is legal)."""
        actions = v["legal"]["actions"]
        while True:
            line = self.command("Your action (number or text; 'help'): ",
                                f"Type an action's number (1 to {len(actions)}) or its text; "
                                "'help' for more.", HELP, lambda: self.show(self.table.view()),
                                self.hint)
            if line is None:
                continue
            action = self._read(line, actions)
            if action is None:
                continue
            try:
                self.table.play({"action": action})
            except ValueError as e:
                self.say(str(e).replace("field 'action': ", ""))
                continue
            return

    def hint(self) -> None:
        """Say what the strongest agent would play, and the rest of its turn."""
        h = self.table.hint()
        turn = [with_symbols(a) for a in h["turn"]]
        self.say(f"{h['agent']} would play {turn[0]}"
                 + (f" (then {', '.join(turn[1:])})" if len(turn) > 1 else ""))

    def _read(self, line: str, actions: list[str]) -> str | int | None:
        """The action a line names, or None after saying what is wrong with it."""
        if line.isdigit():
            k = int(line)
            if 1 <= k <= len(actions):
                return actions[k - 1]
            self.say(f"There is no action number {k}: choose 1 to {len(actions)}.")
            return None
        words = line.replace(",", " ").split()
        words[0] = _WORDS.get(words[0].lower(), words[0])
        try:
            return parse_action(" ".join(words))
        except ValueError:
            self.say(f"'{line}' is not an action: type its number, or e.g. draw, take 7H, "
                     "pick 5S, meld, lay_off 8H, discard 9C ('help' lists them).")
            return None


def play_rummy(opponent: str | Policy | Sequence[str | Policy] = "greedy",
               **options: Any) -> int:
    """Play one Persian Rummy game in the terminal; ``options`` as for
    :class:`RummyHumanGame` (``seat``, ``seed``, ``episode``, ``deck``, ``dealer``, the
    streams and rule flags). Returns the exit code."""
    return RummyHumanGame(opponent, **options).run()


def watch_rummy(agents: str | Policy | Sequence[str | Policy] = "random", seed: int = 0,
                episode: str = "game", output_stream: TextIO | None = None) -> int:
    """Print one Persian Rummy game played by ``agents`` alone (one spec for all four
    seats, or one per seat): the table at every deal with all hands, each action, each
    deal's team points. Played by :func:`pasur_env.core.loop.decide` on a one-game engine.
    """
    from pasur_env.rummy import RummyEngine
    from pasur_env.rummy.actions import action_str

    out = output_stream if output_stream is not None else sys.stdout
    specs = [agents] * 4 if isinstance(agents, (str, Policy)) else list(agents)
    if len(specs) != 4:
        raise ValueError(f"give one agent for every seat or one per seat (4), got {len(specs)}")
    eng = RummyEngine(1, seed=seed, episode=episode, auto_reset=False)
    policies = [check_policy_fits(build_agent(a, seed=seed + s, game=eng.GAME_ID), eng.GAME_ID,
                                  4, eng.obs_size,
                                  role=with_spec(f"the agent at seat {s}", a))
                for s, a in enumerate(specs)]
    names = [f"player_{s} ({agent_label(a)})" for s, a in enumerate(specs)]
    out.write(f"Persian Rummy, seed {seed}: {', '.join(names)}; teams 0+2 and 1+3\n\n"
              f"{eng.render(0)}\n")
    games = np.zeros(1, dtype=np.int64)
    while not eng.done[0]:
        seat = eng.mover(0)
        action = decide(eng, games, policies, np.array([seat]))
        info = eng.step(action)
        out.write(f"player_{seat}: {with_symbols(action_str(int(action[0])))}\n")
        if info.round_end[0]:
            pts = info.round_points[0].tolist()
            out.write(f"\ndeal over: team points {pts}, scores {info.scores[0].tolist()}\n")
            if not eng.done[0]:
                out.write(f"\n{eng.render(0)}\n")
    out.write(f"game over: scores {eng.scores[0].tolist()}\n")
    return 0


def play_command(opponents: Sequence[str], *, players: int | None = None,
                 seed: int | None = None, seat: int = 0, episode: str = "game",
                 deck: str | None = None, preset: str | None = None,
                 **rule_flags: Any) -> int:
    """``pasur play --game persian_rummy`` (its row of :mod:`agents.games`): the command
    line's options as :func:`play_rummy` takes them (``deck``: card codes separated by
    spaces or commas). Four players, no presets."""
    if players not in (None, 4):
        raise ValueError(f"Persian Rummy is played by 4 players in teams, got players={players}")
    if preset is not None:
        raise ValueError(f"Persian Rummy has no rule presets, got preset={preset!r}")
    cards = deck.replace(",", " ").split() if deck else None
    return play_rummy(list(opponents), seed=seed, seat=seat, episode=episode, deck=cards,
                      **rule_flags)


def watch_command(agents: Sequence[str], *, players: int | None = None, seed: int = 0,
                  episode: str = "game") -> int:
    """``pasur demo --game persian_rummy`` (its row of :mod:`agents.games`):
    :func:`watch_rummy` of ``agents`` (one for every seat, or one per seat)."""
    if players not in (None, 4):
        raise ValueError(f"Persian Rummy is played by 4 players in teams, got players={players}")
    return watch_rummy(agents if len(agents) > 1 else agents[0], seed=seed, episode=episode)
