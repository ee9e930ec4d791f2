"""Pasur at the web table: one person against agents on a one-game engine.

A :class:`PasurTable` is one game of the Pasur engine (``auto_reset=False``) with a
human seat and an agent for every other seat, built by registered name only, from the
agents that can play that table (:meth:`PasurTable.offered_agents`: the shipped ``ppo``
model reads 2-player observations only). The agents
move through the play loop's :func:`~pasur_env.core.loop.decide` (every action checked)
until it is the human's turn, a round ends (the game pauses on the score sheet until
:meth:`PasurTable.resume`), or the game is over. :meth:`PasurTable.view` is everything
the human's seat may know and nothing more (no other hand, no stock order); the game's
record (:mod:`pasur_env.pasur.record`) is given out only once the game is over.

A failing agent raises :class:`~agents.apps.web.sessions.AgentError`; the table's
:meth:`~PasurTable.snapshot` / :meth:`~PasurTable.restore` let the app undo the whole
move (:meth:`~agents.apps.web.sessions.TableGame.apply`).
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, StrictInt

from agents.apps.terminal import hint_agent_name
from agents.apps.web.forms import FieldError, Flags, MoveForm, Name, Seat, StartForm
from agents.apps.web.sessions import AgentError, Event, TableGame, check_agent_name, table_seed
from agents.registry import agent_names, make_agent
from pasur_env import Engine
from pasur_env.core.loop import decide
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of, parse_card, parse_cards
from pasur_env.pasur.drawing import LastMove, relation, table_scene, to_svg
from pasur_env.pasur.engine import StepInfo
from pasur_env.pasur.moves import move_options, move_to_actions
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.record import GameRecord
from pasur_env.pasur.rules import Rules, make_rules
from pasur_env.pasur.score_sheet import round_sheet

__all__ = ["PasurTable", "hint_agent_name"]

LEGAL_RING = "#f1c40f"
#: the largest integer rule flag the start form takes (``target_score`` has its own bound)
MAX_FLAG_INT = 1000
#: the highest ``target_score`` of a game at the web table: its record stays short
#: enough to replay (a round gives out at least 20 points)
MAX_TARGET_SCORE = 300


#: a card's code as the forms take it
Code = Annotated[str, Field(min_length=1, max_length=4)]


class PasurForm(StartForm):
    """The start form of a Pasur table (``game`` may be left out: Pasur is the default)."""

    game: Literal["pasur"] = "pasur"
    players: Annotated[StrictInt, Field(ge=2, le=4)] = 2
    seat: Seat = 0
    opponents: list[Name] = Field(default_factory=lambda: ["greedy"], min_length=1, max_length=3)
    preset: Literal["classic", "cfr_paper", "mini", "small"] | None = None
    flags: Flags = Field(default_factory=dict)
    deck: list[Code] | None = Field(None, min_length=52, max_length=52)
    dealer: Seat | None = None


class PasurMove(MoveForm):
    """A move: the card played and the table cards it takes (empty: laid)."""

    card: Code
    take: list[Code] = Field(default_factory=list, max_length=12)


def _check_form_flags(flags: dict[str, Any]) -> None:
    """Integer flags of the start form within the web table's bounds (the rules check
    the rest: types, lower bounds, choices)."""
    if "num_players" in flags:
        raise FieldError("flags.num_players", "is not a flag here: the field 'players' "
                         "sets the number of players")
    for name, value in flags.items():
        high = MAX_TARGET_SCORE if name == "target_score" else MAX_FLAG_INT
        if not isinstance(value, bool) and isinstance(value, int) and value > high:
            raise FieldError(f"flags.{name}", f"must be at most {high} at the web table, "
                             f"got {value}")


@functools.lru_cache(maxsize=256)
def unfit_reason(name: str, rules: Rules) -> str | None:
    """Why the registered agent ``name`` cannot play a seat under ``rules`` (None: it can).

    A model reading observations must read this table's layout (the shipped ``ppo``
    reads 2-player observations); a network agent needs a network for this player count.
    Models are shared (loaded once per process), so asking is cheap after the first time.
    """
    try:  # what it declares: its game, player counts, observation width
        check_policy_fits(make_agent(name, seed=0), Engine.GAME_ID, rules.num_players,
                          observation_size(rules))
    except Exception as e:  # noqa: BLE001 - any failure means: not offered, and why
        return str(e) or type(e).__name__
    return None


class PasurTable(TableGame):
    """One person against agents at a Pasur table (module docstring).

    Args:
        players: 2, 3 or 4 (4 = two teams, partners opposite).
        seat: the person's seat.
        opponents: a registered agent name for each other seat, in seat order; each
            must be one that can play this table (:meth:`offered_agents`).
        seed: seeds the deals and the agents (None: 64 fresh bits from ``secrets``).
        preset, flags: the rules (``Rules`` flags by name).
        deck, dealer: fix the first deal (52 codes, top first) and dealer.
    """

    game = "pasur"
    FORM = PasurForm
    MOVE = PasurMove

    def __init__(self, players: int, seat: int, opponents: list[str], seed: int | None = None,
                 preset: str | None = None, flags: dict[str, Any] | None = None,
                 deck: list[str] | None = None, dealer: int | None = None) -> None:
        rules = make_rules(preset=preset, num_players=players, **(flags or {}))
        if not 0 <= seat < players:
            raise ValueError(f"seat must be in 0..{players - 1}, got {seat}")
        if len(opponents) != players - 1:
            raise ValueError(f"give {players - 1} opponents (one per other seat), got "
                             f"{len(opponents)}")
        names = [check_agent_name(n, "pasur") for n in opponents]
        for n in dict.fromkeys(names):
            why = unfit_reason(n, rules)
            if why is not None:
                raise ValueError(f"the agent {n!r} cannot play a {players}-player table: {why}")
        seed = table_seed(seed)
        self.rules, self.human, self.seed = rules, seat, seed
        self.engine = Engine(1, seed=seed, rules=rules, episode="game", auto_reset=False,
                             parallel=False)
        if deck is not None or dealer is not None:
            self.engine.reset(deck=deck, dealer=dealer)
        seeds = np.random.SeedSequence(seed).generate_state(players)
        others = [s for s in range(players) if s != seat]
        self.names = ["you" if s == seat else names[others.index(s)] for s in range(players)]
        self.agents: dict[int, Policy] = {}
        for s in others:
            try:
                self.agents[s] = make_agent(self.names[s], seed=int(seeds[s]))
            except Exception as e:  # noqa: BLE001 - an agent that cannot be built is named
                raise AgentError(s, self.names[s], e) from e
        self.record = GameRecord.start(self.engine, players=list(self.names))
        self.events: list[Event] = []
        self.sheet: list[dict[str, Any]] | None = None  # the round's score sheet, while paused
        self.rounds = 0
        # the table after each of the latest events (an engine copy and its last move,
        # drawn when sent, in the layout the page asks for)
        self.pictures: dict[int, tuple[Engine, LastMove | None]] = {}
        self.lock = threading.Lock()
        self.last_used = time.monotonic()
        self.advance()

    @classmethod
    def _from_checked(cls, form: PasurForm, seed: int) -> PasurTable:
        """A table from a checked start form (:class:`PasurForm`)."""
        _check_form_flags(form.flags)
        return cls(form.players, form.seat, form.opponents, seed=seed, preset=form.preset,
                   flags=form.flags, deck=form.deck, dealer=form.dealer)

    @classmethod
    def offered_agents(cls, players: int) -> list[str]:
        """The registered agents that can play a seat at a ``players``-player table."""
        rules = make_rules(num_players=players)
        return [n for n in agent_names("pasur") if unfit_reason(n, rules) is None]

    # ---- undo ------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The engine (state and random streams), the record, the log, the sheet, the
        round count: everything a move changes but the agents."""
        eng = self.engine
        return {"state": eng.state.copy(),
                "per_game": {n: getattr(eng, n).copy() for n in eng.PER_GAME},
                "actions": len(self.record.actions), "result": self.record.result,
                "events": len(self.events), "sheet": self.sheet, "rounds": self.rounds}

    def restore(self, snap: dict[str, Any]) -> None:
        """Back to ``snap`` (in place: the agents keep seeing the same engine object)."""
        eng = self.engine
        eng.state[...] = snap["state"]
        for n, arr in snap["per_game"].items():
            getattr(eng, n)[...] = arr
        del self.record.actions[snap["actions"]:]
        self.record.result = snap["result"]
        del self.events[snap["events"]:]
        self.sheet, self.rounds = snap["sheet"], snap["rounds"]

    def footprint(self) -> int:
        """Estimated bytes: the engine and agents' own arrays, and the record and log."""
        return 96 * 1024 + 400 * (len(self.record.actions) + len(self.events))

    # ---- state -----------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.engine.phase[0] == K.DONE)

    def _mover(self) -> int:
        return int(self.engine.current_player[0])

    # ---- moving ------------------------------------------------------------------------------
    def _full_move(self, seat: int, actions: list[int]) -> None:
        """Apply a full move (a PLAY and its TAKEs) of ``seat`` and log it."""
        eng = self.engine
        card, side = actions[0], self.rules.side_of(seat)
        if len(actions) > 1:
            taken = sorted(a - K.TAKE_OFFSET for a in actions[1:])
        else:  # laid, or its single option taken at once
            n, captured = K.resolve_play(int(eng.table[0]), card)
            taken = cards_of(int(captured)) if n == 1 else []
        surs = int(eng.surs[0, side])
        round_no = int(eng.round_index[0]) + 1
        before, last_cap = cards_of(int(eng.table[0])), int(eng.last_capturer[0])
        info: StepInfo | None = None
        for a in actions:
            info = eng.step(np.array([a], dtype=np.int64))
            self.record.actions.append(int(a))
        assert info is not None
        sur = not info.round_end[0] and int(eng.surs[0, side]) > surs  # never in the last deal
        prev = self.events[-1].data if self.events else {}
        move_no = prev.get("move", 0) + 1 if prev.get("round") == round_no else 1
        self._log("move", {"round": round_no, "move": move_no, "label": f"R{round_no}·{move_no}",
                           "seat": seat, "card": card_code(card),
                           "taken": [card_code(c) for c in taken], "sur": sur})
        first = len(self.events)
        if info.round_end[0]:
            # the cards still on the table after this move go to the last capturer's side
            left = [c for c in before if c not in taken] if taken else sorted(before + [card])
            self._round_over(info, round_no, left, seat if taken else last_cap)
        picture = (eng.copy(), self._last_move())  # the table after this move, to animate
        for seq in range(first, len(self.events) + 1):
            self.pictures[seq] = picture

    def _log(self, kind: str, data: dict[str, Any]) -> None:
        """Append an event; ``seq`` numbers every event of the game, never renumbered."""
        self.events.append(Event(kind, {"seq": len(self.events) + 1, **data}))

    def _round_over(self, info: StepInfo, round_no: int, left: list[int], to: int) -> None:
        self.rounds += 1
        self.sheet = round_sheet(info, 0, self.rules)
        data: dict[str, Any] = {"round": round_no, "label": f"R{round_no}·end",
                                "sheet": self.sheet, "leftover": [card_code(c) for c in left],
                                "leftover_to": to if to >= 0 else None,
                                "scores": [int(info.scores[0, s]) for s in
                                           range(self.rules.num_sides)]}
        if info.game_end[0]:
            self.record.finish(info, 0, self.rounds)
            data["winner_side"] = int(info.winner[0])
        self._log("round", data)

    def _agent_turn(self, seat: int) -> None:
        try:
            actions = self._agent_actions(seat)
        except Exception as e:  # noqa: BLE001 - whatever the agent raised, name it
            raise AgentError(seat, self.names[seat], e) from e
        self._full_move(seat, actions)

    def _agent_actions(self, seat: int) -> list[int]:
        """The agent's full move: its PLAY and, one decision at a time, its TAKEs."""
        eng, agent = self.engine, self.agents[seat]
        games = np.zeros(1, dtype=np.int64)
        actions = [int(decide(eng, games, [agent], games)[0])]
        shadow = eng.copy()  # the rest of a multi-step capture, decided one TAKE at a time
        shadow.step(np.array(actions, dtype=np.int64))
        while shadow.phase[0] == K.CAPTURE and int(shadow.current_player[0]) == seat:
            a = int(decide(shadow, games, [agent], games)[0])
            shadow.step(np.array([a], dtype=np.int64))
            actions.append(a)
        return actions

    def options(self) -> dict[int, list[tuple[int, ...]]]:
        """The person's legal cards, each with its capture options (empty: laid)."""
        if self.over or self.paused or self._mover() != self.human:
            return {}
        out: dict[int, list[tuple[int, ...]]] = {}
        for card, taken in move_options(self.engine, 0):
            out.setdefault(card, [])
            if taken:
                out[card].append(taken)
        return out

    def play(self, body: dict[str, Any] | MoveForm) -> None:
        """The person's move ``{card, take}``: the card and the table cards it takes (all
        of one option); FieldError names a malformed field, ValueError a refused move."""
        move = self.checked_move(body)
        self._play(move.card, move.take)

    def _play(self, card: str, take: list[str]) -> None:
        self.check_my_turn()
        c = parse_card(card)
        opts = self.options()
        if c not in opts:
            raise ValueError(f"{card_code(c)} is not in your hand")
        chosen = tuple(sorted(parse_cards(take)))
        if opts[c] and chosen not in opts[c]:
            choices = " or ".join("+".join(card_code(x) for x in o) for o in opts[c])
            raise ValueError(f"{card_code(c)} must take {choices}"
                             + (f", not {'+'.join(card_code(x) for x in chosen)}" if chosen
                                else ""))
        if not opts[c] and chosen:
            raise ValueError(f"{card_code(c)} takes nothing here: it is laid on the table")
        self._full_move(self.human, move_to_actions(self.engine, 0, c, chosen))
        self.advance()

    def hint(self) -> dict[str, Any]:
        """What the strongest available agent would play in the person's place."""
        opts = self.options()
        if not opts:
            raise ValueError("it is not your turn")
        name = hint_agent_name(self.rules.num_players)
        actions = self.ask_hint(name, lambda: self._hint_actions(name))
        card = actions[0]
        taken = [a - K.TAKE_OFFSET for a in actions[1:]] or (
            list(opts[card][0]) if len(opts[card]) == 1 else [])
        return {"agent": name, "card": card_code(card), "take": [card_code(c) for c in taken]}

    def _hint_actions(self, name: str) -> list[int]:
        """The full move agent ``name`` would make in the person's place (on a copy)."""
        agent = make_agent(name, seed=self.hint_seed())
        shadow = self.engine.copy()
        games = np.zeros(1, dtype=np.int64)
        actions = []
        while True:
            a = int(decide(shadow, games, [agent], games)[0])
            actions.append(a)
            shadow.step(np.array([a], dtype=np.int64))
            if shadow.phase[0] != K.CAPTURE or int(shadow.current_player[0]) != self.human:
                return actions

    # ---- what the page sees ------------------------------------------------------------------
    # Every full move and every round's end is an event, numbered in the game (``seq``) and
    # labelled by round and move (``R2·7``, ``R2·end``); a round's end says which cards were
    # left on the table and which seat (the last capturer) took them. A view's ``events``
    # are those since the person's last move, each with the table drawn after it, so the
    # page can show the agents' moves one at a time; its ``log`` the latest events.

    #: the move log a view holds: the last entries, each labelled with its round and move
    LOG_LENGTH = 240

    def _relation(self, seat: int) -> str:
        return relation(self.engine, seat, self.human)

    def _sides(self) -> list[dict[str, Any]]:
        """Each side as the person says it: ``you`` / ``your team``, the opponents."""
        P, rules, st = self.rules.num_players, self.rules, self.engine.state[0]
        out = []
        for side in range(rules.num_sides):
            seats = [s for s in range(P) if rules.side_of(s) == side]
            mine = rules.side_of(self.human) == side
            label = ("your team" if mine else "their team") if P == 4 else (
                "you" if mine else self.names[seats[0]])
            out.append({"side": side, "seats": seats, "mine": mine, "label": label,
                        "score": int(st[K.SCORE + side])})
        return out

    def _last_move(self) -> LastMove | None:
        """The last event drawn on the table: the last move, or the round that just ended."""
        if not self.events:
            return None
        m, end = self.events[-1].data, None
        if self.events[-1].kind == "round":  # a round's end, shown until the next deal
            if not (self.paused or self.over):
                return None
            m, end = self.events[-2].data, m
        return LastMove(m["seat"], parse_card(m["card"]), tuple(parse_cards(m["taken"])),
                        m["sur"], tuple(parse_cards(end["leftover"])) if end else None,
                        end["leftover_to"] if end else None)

    def _picture(self, layout: str, marks: dict[int, str] | None = None,
                 engine: Engine | None = None, last: LastMove | None = None) -> str:
        """The table as the person sees it (now, or ``engine`` after the move ``last``),
        the last move on it, in ``layout`` (SVG)."""
        if engine is None:
            engine, last = self.engine, self._last_move()
        return to_svg(table_scene(engine, 0, viewer=self.human, names=self.names,
                                  marks=marks, last=last, layout=layout))

    def _news(self) -> int:
        """Where the events the page has not shown yet begin: at the person's last move, or
        after the last round the person closed (a function of the state, so a view reads
        the same until the next move, and a reload shows the last moves again)."""
        n = len(self.events)
        for k in range(n - 1, -1, -1):
            e = self.events[k]
            if e.kind == "move" and e.data["seat"] == self.human:
                return k
            if e.kind == "round" and (k < n - 1 or not (self.paused or self.over)):
                return k + 1
        return 0

    def _new_events(self, layout: str) -> list[dict[str, Any]]:
        """The events since the person's last move, each with the table after it in
        ``layout`` (the page animates them in turn); older pictures are dropped."""
        start = self._news()
        self.pictures = {k: v for k, v in self.pictures.items() if k > start}
        shared: dict[int, str] = {}  # a move and the round's end it made share a picture
        out = []
        for e in self.events[start:]:
            seq, svg = e.data["seq"], None
            pic = self.pictures.get(seq)
            if pic is not None:
                if id(pic) not in shared:
                    shared[id(pic)] = self.drawn(("event", seq, layout), lambda p=pic: (
                        self._picture(layout, engine=p[0], last=p[1])))
                svg = shared[id(pic)]
            out.append({"kind": e.kind, **e.data, "svg": svg})
        return out

    def view(self, layout: str = "narrow") -> dict[str, Any]:
        """Everything the person's seat may know, and the table drawn for it (SVG) in
        ``layout`` (``narrow``, ``wide``)."""
        eng, st, P = self.engine, self.engine.state[0], self.rules.num_players
        opts = self.options()
        faceup = eng.faceup(0)
        seats = []
        for s in range(P):
            side = self.rules.side_of(s)
            pile = cards_of(int(st[K.PILE + side]))
            seats.append({
                "seat": s, "name": self.names[s], "side": side, "relation": self._relation(s),
                "cards": len(eng.hand(0, s)),
                "faceup": card_code(faceup[s]) if faceup[s] >= 0 and s != self.human else None,
                "score": int(st[K.SCORE + side]), "pile": len(pile),
                "clubs": sum(1 for c in pile if c % 4 == 0), "surs": int(st[K.SURS + side]),
            })  # fmt: skip
        return {
            "game": self.game, "players": P, "seat": self.human,
            "to_move": None if self.over else self._mover(),
            "phase": "over" if self.over else "round_over" if self.paused else "play",
            "round": int(st[K.ROUND]) + 1, "deal": int(st[K.DEAL]) + 1,
            "stock": 52 - int(st[K.STOCK_POS]), "dealer": int(st[K.DEALER]),
            "hand": [card_code(c) for c in eng.hand(0, self.human)],
            "table": [card_code(c) for c in cards_of(int(st[K.TABLE]))],
            "legal": {card_code(c): [[card_code(x) for x in o] for o in v]
                      for c, v in opts.items()},
            "seats": seats, "sides": self._sides(), "sheet": self.sheet,
            "events": self._new_events(layout),
            "log": [{"kind": e.kind, **e.data} for e in self.events[-self.LOG_LENGTH:]],
            "result": self.record.result if self.over else None,
            "target": self.rules.target_score,
            "svg": self.drawn(("table", layout),
                              lambda: self._picture(layout, dict.fromkeys(opts, LEGAL_RING))),
        }  # fmt: skip
