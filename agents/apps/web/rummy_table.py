"""Persian Rummy at the table: one person and three agents on a one-game engine.

A :class:`RummyTable` is one game of :class:`~pasur_env.rummy.RummyEngine`
(``auto_reset=False``): the person at one seat, a registered agent at each other seat
(``docs/persian_rummy.md``: four seats, partners opposite). The person moves one
engine action at a time (``{"action": "TAKE 7H"}``, the text of
:func:`pasur_env.rummy.actions.action_str`, or an action id), checked against the
legal mask with a message saying why a refused action is refused; the agents play
their whole turns through the play loop's :func:`~pasur_env.core.loop.decide` (every
action checked). A round's end pauses the game on its score sheet until
:meth:`RummyTable.resume`.

What the person sees (:meth:`RummyTable.view`) is what that seat may know: the own
hand, the discard pile (all of it, spread out), the stock's size, every meld with the
team credited for each card, the other seats' card counts and the cards they took
from the pile (public), the legal actions grouped for the page, the moves since the
last request (``events``), the whole log numbered by round and move, the round's
score sheet and the winner, and the table drawn for that seat (``svg``: Pasur's drawing
style, :func:`pasur_env.rummy.drawing.rummy_table_scene`, in the layout the page asks
for; each agent's move with the table after it, so the page can show the agents' moves
one at a time; the person's own moves have no picture, the page does not show them
again). Each picture is drawn when it is first sent, once per state of the game
(:meth:`~agents.apps.web.sessions.TableGame.drawn`). Never another hand or the stock
order: the stock cards drawn by others are not named or drawn anywhere. The terminal
play (``pasur play --game persian_rummy``, :mod:`agents.apps.terminal`) runs on this
same class.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, StrictInt

from agents.apps.web.forms import Flags, MoveForm, Name, Seat, StartForm
from agents.apps.web.sessions import AgentError, Event, TableGame, check_agent_name, table_seed
from agents.registry import agent_label, agent_names, build_agent, make_agent
from pasur_env.core.args import check_int
from pasur_env.core.cards import with_symbols
from pasur_env.core.drawing import to_svg
from pasur_env.core.loop import decide
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.rummy import kernels as K
from pasur_env.rummy.actions import action_str, parse_action
from pasur_env.rummy.cards import VALUE_OF, card_code, card_str, cards_of, parse_card
from pasur_env.rummy.drawing import RummyLastMove, meld_in_order, rummy_table_scene
from pasur_env.rummy.engine import RummyEngine, RummyStepInfo
from pasur_env.rummy.record import RummyGameRecord, replay
from pasur_env.rummy.rules import RummyRules, make_rummy_rules

__all__ = ["RummyTable", "rummy_frames", "rummy_replay_frames", "HINT_AGENTS"]

GAME = "persian_rummy"
#: the agents asked for hints, strongest first (the first one registered is used)
HINT_AGENTS = ("rollout", "greedy")
class RummyForm(StartForm):
    """The start form of a Persian Rummy table (``game`` is required: Pasur is the default)."""

    game: Literal["persian_rummy"]
    #: Persian Rummy is played by 4; another table size is refused with the reason (400)
    players: Annotated[StrictInt, Field(ge=2, le=4)] = 4
    seat: Seat = 0
    opponents: Name | Annotated[list[Name], Field(min_length=1, max_length=3)] = "greedy"
    flags: Flags = Field(default_factory=dict)
    deck: list[Annotated[str, Field(min_length=1, max_length=4)]] | None = Field(
        None, min_length=56, max_length=56)
    dealer: Seat | None = None
    episode: Literal["game", "round"] = "game"


class RummyMove(MoveForm):
    """A move: one engine action, as its text (``"PICK 5S"``) or its id."""

    action: Annotated[str, Field(min_length=1, max_length=16)] | Annotated[
        StrictInt, Field(ge=0, le=K.NUM_ACTIONS - 1)]


#: the ring of what the person may click on the drawn table (Pasur's legal ring)
LEGAL_RING = "#f1c40f"


def _codes(cards: Sequence[int]) -> list[str]:
    return [card_code(int(c)) for c in cards]


def _card_of(a: int) -> int | None:
    """The card an action names (None: DRAW_STOCK, PASS, MELD, TARGET)."""
    for lo, hi in ((K.TAKE0, K.PASS), (K.PICK0, K.MELD_ACTION), (K.LAYOFF0, K.TARGET0),
                   (K.DISCARD0, K.NUM_ACTIONS)):
        if lo <= a < hi:
            return a - lo
    return None


def _value(mask: int) -> int:
    return int(sum(int(VALUE_OF[c]) for c in cards_of(mask)))


class RummyTable(TableGame):
    """One person against agents at a Persian Rummy table (module docstring).

    Args:
        seat: the person's seat (0..3; seat 0 plays first with the default dealer).
        opponents: an agent for each other seat, in seat order (one name: all three).
            Registered names only, unless ``any_spec`` (the terminal: any agent spec,
            or :class:`~pasur_env.core.policy.Policy` objects).
        seed: seeds the deals and the agents, in ``0..2**64 - 1`` (None: 64 bits from
            :mod:`secrets`).
        flags: rule flags (``deals``, ``four_set_double``, ``last_discard_goes_out``).
        deck, dealer: fix the first deal (56 codes, top first) and its dealer.
        episode: ``"game"`` (``deals`` deals) or ``"round"`` (one deal).
    """

    game = GAME
    FORM = RummyForm
    MOVE = RummyMove

    def __init__(self, seat: int = 0, opponents: str | Policy | Sequence[str | Policy] = "greedy",
                 seed: int | None = None, flags: dict[str, Any] | None = None,
                 deck: Sequence[Any] | None = None, dealer: int | None = None,
                 episode: str = "game", *, any_spec: bool = False) -> None:
        self.rules: RummyRules = make_rummy_rules(**(flags or {}))
        self.human = check_int(seat, "seat", 0, 3)
        specs = [opponents] * 3 if isinstance(opponents, (str, Policy)) else list(opponents)
        if len(specs) == 1:
            specs = specs * 3
        if len(specs) != 3:
            raise ValueError("opponents: give one agent or 3 (one per other seat), "
                             f"got {len(specs)}")
        if not any_spec:
            specs = [check_agent_name(s, GAME) for s in specs]  # names only: no paths
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        self.seed = table_seed(seed)
        self.engine = RummyEngine(1, seed=self.seed, rules=self.rules, episode=episode,
                                  auto_reset=False, parallel=False)
        if deck is not None or dealer is not None:
            self.engine.reset(deck=deck, dealer=dealer)
        seeds = np.random.SeedSequence(self.seed).generate_state(4)
        others = [s for s in range(4) if s != self.human]
        self.names = ["you"] * 4
        self.agents: dict[int, Policy] = {}
        for spec, s in zip(specs, others, strict=True):
            agent = build_agent(spec, seed=int(seeds[s]), game=GAME)
            self.agents[s] = check_policy_fits(agent, GAME, 4, self.engine.obs_size,
                                               role=f"the agent at seat {s}")
            self.names[s] = agent_label(spec)
        self.record = RummyGameRecord.start(self.engine, players=list(self.names))
        self.events: list[Event] = []
        self.sheet: dict[str, Any] | None = None  # the round's score sheet, while paused
        self.rounds = 0  # rounds (deals) ended
        self.move_no = 0  # moves in the current round
        self.meld_team: list[int] = []  # the team that laid each meld of this deal
        self.seen = 0  # events the person has been sent
        # the table after each event not sent yet (drawn when sent), and a round's final
        # position (shown while its summary waits), each with the team of each meld
        self.frames: dict[int, tuple[RummyEngine, RummyLastMove | None, tuple[int, ...]]] = {}
        self.final: tuple[RummyEngine, tuple[int, ...]] | None = None
        self.lock = threading.Lock()
        self.last_used = time.monotonic()
        self.advance()

    # ---- the start form ----------------------------------------------------------------
    @classmethod
    def offered_agents(cls, players: int = 4) -> list[str]:
        """The agent names that can sit at this table (every registered Rummy agent)."""
        return list(agent_names(GAME)) if players == 4 else []

    @classmethod
    def _from_checked(cls, form: RummyForm, seed: int) -> RummyTable:
        """A table from a checked start form (:class:`RummyForm`); a field the game
        refuses raises ``ValueError`` naming it."""
        if form.players != 4:
            raise ValueError("field 'players': Persian Rummy is played by 4 (two teams)")
        try:
            return cls(seat=form.seat, opponents=form.opponents, seed=seed, flags=form.flags,
                       deck=form.deck, dealer=form.dealer, episode=form.episode)
        except (TypeError, ValueError) as e:
            raise type(e)(f"Persian Rummy table: {e}") from None

    # ---- state -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.engine.done[0])

    @property
    def deals(self) -> int:
        """Deals in this game (one for ``episode="round"``)."""
        return self.rules.deals if self.engine.episode == "game" else 1

    def _mover(self) -> int:
        return self.engine.mover(0)

    def _my_turn(self) -> bool:
        return not self.over and not self.paused and self._mover() == self.human

    def snapshot(self) -> tuple[Any, ...]:
        """Every mutable part but the agents (the base undoes a failed move with it)."""
        return (self.engine.state.copy(), len(self.record.actions), self.record.result,
                len(self.events), self.sheet, self.rounds, self.move_no, list(self.meld_team),
                self.seen, self.version, self.final)

    def restore(self, snap: tuple[Any, ...]) -> None:
        """Back to a :meth:`snapshot`."""
        (state, n_actions, result, n_events, self.sheet, self.rounds, self.move_no,
         meld_team, self.seen, self.version, self.final) = snap
        self.engine.state[:] = state
        del self.record.actions[n_actions:]
        self.record.result = result
        del self.events[n_events:]
        self.meld_team = list(meld_team)
        self.frames = {k: v for k, v in self.frames.items() if k <= n_events}

    # ---- moving ------------------------------------------------------------------------
    def _who(self, seat: int) -> str:
        """A seat as the person reads it."""
        if seat == self.human:
            return "You"
        partner = ", your partner" if seat % 2 == self.human % 2 else ""
        return f"player_{seat} ({self.names[seat]}{partner})"

    def _step(self, action: int) -> None:
        """Apply one checked engine action and log what it did."""
        eng = self.engine
        seat, before = self._mover(), eng.state[0].copy()
        probe = eng.copy()  # the round's last position, if this action ends it
        info = eng.step(np.array([action], dtype=np.int64))
        self.record.actions.append(int(action))
        data = self._describe(seat, int(action), before)
        if info.round_end[0]:  # the round's final position, before the next deal
            probe.params = self.rules.as_params(episode_round=True)
            probe.step(np.array([action], dtype=np.int64))
        if data is not None:
            self.move_no += 1
            self._log("move", {"seat": seat, **data})
        if data is not None and seat != self.human:  # the table after an agent's move,
            after = probe if info.round_end[0] else eng.copy()  # for the page to show it
            self.frames[len(self.events)] = (after, self._last_of(self.events[-1].data),
                                             tuple(self.meld_team))
        if info.round_end[0]:
            self.final = (probe, tuple(self.meld_team))
            self._round_over(info, probe.state[0], seat)

    def _log(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append(Event(kind, {"seq": len(self.events) + 1, "round": self.rounds + 1,
                                        "move": self.move_no, "kind": kind, **data}))

    def _describe(self, seat: int, a: int, st: np.ndarray) -> dict[str, Any] | None:
        """The public account of action ``a`` by ``seat`` from state ``st`` (None: a PICK
        or a LAY_OFF awaiting its meld, shown once the meld or lay-off is done)."""
        who, mine = self._who(seat), seat == self.human
        verb = (lambda v: v) if mine else (lambda v: v + ("es" if v.endswith("s") else "s"))
        if a == K.DRAW_STOCK:
            out: dict[str, Any] = {"what": "draw", "text": f"{who} {verb('draw')} from the stock"}
            if mine:  # the person's own card: nobody else's is ever named
                c = int(st[K.DECK + st[K.STOCK_POS]])
                out.update(card=card_code(c), text=out["text"] + f" ({card_str(c)})")
            return out
        if a == K.PASS:
            return {"what": "pass", "text": f"{who} {verb('pass')} (the stock is empty)"}
        if K.TAKE0 <= a < K.PASS:
            pile = st[K.PILE:K.PILE + st[K.PILE_N]].tolist()
            taken = pile[pile.index(a - K.TAKE0):]
            return {"what": "take", "card": card_code(a - K.TAKE0), "cards": _codes(taken),
                    "text": f"{who} {verb('take')} {' '.join(card_str(c) for c in taken)} from "
                    f"the pile (must meld {card_str(a - K.TAKE0)})"}
        if a == K.MELD_ACTION:
            cards = meld_in_order(int(st[K.PICKED]))
            self.meld_team.append(seat % 2)
            return {"what": "meld", "cards": _codes(cards), "meld": int(st[K.NMELDS]),
                    "text": f"{who} {verb('meld')} {' '.join(card_str(c) for c in cards)}"}
        if K.LAYOFF0 <= a < K.TARGET0 or K.TARGET0 <= a < K.DISCARD0:
            c = a - K.LAYOFF0 if a < K.TARGET0 else int(st[K.PENDING])
            melds = st[K.MELD:K.MELD + st[K.NMELDS]].tolist()
            fits = [m for m, mask in enumerate(melds) if K.extends(int(mask), c)]
            if a < K.TARGET0 and len(fits) != 1:
                return None  # a TARGET follows
            m = fits[0] if a < K.TARGET0 else a - K.TARGET0
            return {"what": "lay_off", "card": card_code(c), "meld": m,
                    "text": f"{who} {verb('lay')} off {card_str(c)} on meld {m + 1}"}
        if a >= K.DISCARD0:
            c = a - K.DISCARD0
            return {"what": "discard", "card": card_code(c),
                    "text": f"{who} {verb('discard')} {card_str(c)}"}
        return None  # PICK: part of a meld being built

    def _round_over(self, info: RummyStepInfo, last: np.ndarray, seat: int) -> None:
        """The score sheet of the round that ended (``last``: its final position)."""
        went_out = int(info.went_out[0])
        teams = []
        for t in range(2):
            out_bonus = K.GO_OUT_BONUS if went_out >= 0 and went_out % 2 == t else 0
            left = int(last[K.HAND + t]) | int(last[K.HAND + t + 2])
            teams.append({
                "team": t, "seats": [t, t + 2], "yours": t == self.human % 2,
                "melded": _value(int(last[K.CREDIT + t])),
                "four_sets": int(last[K.BONUS + t]) - out_bonus, "going_out": out_bonus,
                "in_hand": -_value(left), "left": _codes(cards_of(left)),
                "total": int(info.round_points[0, t]), "score": int(info.scores[0, t]),
            })  # fmt: skip
        self.rounds += 1
        self.sheet = {"round": self.rounds, "teams": teams,
                      "went_out": went_out if went_out >= 0 else None,
                      "game_over": bool(info.game_end[0])}
        text = (f"{self._who(went_out)} went out" if went_out >= 0
                else "Four passes in a row with the stock empty")
        self.events.append(Event("round", {"seq": len(self.events) + 1, "round": self.rounds,
                                           "move": self.move_no, "kind": "round",
                                           "sheet": self.sheet,
                                           "text": f"Round {self.rounds} over: {text}; "
                                           + ", ".join(f"team {t['team']} {t['total']:+d}"
                                                       for t in teams)}))
        self.move_no, self.meld_team = 0, []
        if info.game_end[0]:
            self.record.finish(info, 0, self.rounds)

    def _agent_turn(self, seat: int) -> None:
        """The agent at ``seat`` plays its whole turn (until the mover changes or the
        round ends); a failing agent raises :class:`AgentError`."""
        games = np.zeros(1, dtype=np.int64)
        agent, rounds = self.agents[seat], self.rounds
        while not self.over and self._mover() == seat and self.rounds == rounds:
            try:
                a = int(decide(self.engine, games, [agent], games)[0])
            except Exception as e:  # noqa: BLE001 - any agent failure is reported as such
                raise AgentError(seat, self.names[seat], e) from e
            self._step(a)

    def play(self, body: dict[str, Any] | MoveForm) -> None:
        """The person's move: ``{"action": "PICK 5S"}`` (or an action id); the agents then
        play until it is the person's turn again."""
        a = self._parse_move(self.checked_move(body).action)
        self.check_my_turn()
        if a not in self.engine.legal_actions(0):
            raise ValueError(f"field 'action': {action_str(a)} is refused: {self._why_not(a)}")
        self._step(a)
        self.advance()

    @staticmethod
    def _parse_move(raw: str | int) -> int:
        """An action's id from its text or id (``ValueError``: not an action's text)."""
        try:
            return parse_action(raw)
        except ValueError as e:
            raise ValueError(f"field 'action': {e}") from None

    def _why_not(self, a: int) -> str:
        """Why the person may not play ``a`` now, in the words of the rules."""
        st, hand = self.engine.state[0], cards_of(self.engine.state[0, K.HAND + self.human])
        phase, picked, target = int(st[K.PHASE]), int(st[K.PICKED]), int(st[K.TARGET])
        card = _card_of(a)
        is_draw = a == K.DRAW_STOCK or a == K.PASS or K.TAKE0 <= a < K.PASS
        if phase == K.CHOOSE:
            return f"choose the meld to lay {card_str(int(st[K.PENDING]))} off on (TARGET m)"
        if phase == K.DRAW and not is_draw:
            return "draw first: the top of the stock, or a card of the discard pile"
        if phase != K.DRAW and is_draw:
            return "you have drawn this turn already"
        if a == K.DRAW_STOCK:
            return "the stock is empty: pass, or take from the discard pile"
        if a == K.PASS:
            return "you may pass only when the stock is empty"
        if K.TAKE0 <= a < K.PASS:
            if card not in self.engine.pile(0):
                return f"{card_str(card)} is not in the discard pile"
            return (f"{card_str(card)} cannot be melded at once (a card taken from the pile "
                    "must go into a meld this turn)")
        if picked and not (K.PICK0 <= a <= K.MELD_ACTION):
            return "finish the meld you started first: pick its cards, then MELD"
        if card is not None and card not in hand:
            return f"{card_str(card)} is not in your hand"
        if a == K.MELD_ACTION:
            return "the picked cards do not form a meld" + (
                f" with {card_str(target)} (taken from the pile)" if target >= 0 else "")
        if K.PICK0 <= a < K.MELD_ACTION:
            return (f"{card_str(card)} cannot be completed into a meld with the cards picked "
                    "(pick in hand order: lowest card first)")
        if target >= 0:
            return f"meld {card_str(target)} (taken from the pile) first"
        return f"{card_str(card)} extends no meld on the table"

    def hint(self) -> dict[str, Any]:
        """What the strongest registered agent would play in the person's place: its next
        action and the rest of the turn it would play, up to a draw from the stock (what
        follows depends on a card the person has not seen, so it is not told)."""
        if not self._my_turn():
            raise ValueError("it is not your turn")
        name = next(n for n in HINT_AGENTS if n in agent_names(GAME))
        turn = self.ask_hint(name, lambda: self._hint_turn(name))
        return {"agent": name, "action": turn[0], "turn": turn}

    def _hint_turn(self, name: str) -> list[str]:
        """The rest of the turn agent ``name`` would play in the person's place (on a
        copy), up to a draw from the stock, as action texts."""
        agent = make_agent(name, seed=self.hint_seed(), game=GAME)
        shadow, games, turn = self.engine.copy(), np.zeros(1, dtype=np.int64), []
        while not shadow.done[0] and shadow.mover(0) == self.human and len(turn) < 40:
            a = int(decide(shadow, games, [agent], games)[0])
            turn.append(action_str(a))
            if a == K.DRAW_STOCK or shadow.step(np.array([a], dtype=np.int64)).round_end[0]:
                break
        return turn

    # ---- what the person sees ----------------------------------------------------------
    def legal(self) -> dict[str, Any]:
        """The person's legal actions grouped for the page: draw options, pickable cards,
        lay-offs (each card with the melds it may go on), discards; empty off turn."""
        out: dict[str, Any] = {"stock": False, "pass": False, "take": [], "pick": [],
                               "meld": False, "lay_off": {}, "targets": [], "discard": [],
                               "actions": []}
        if not self._my_turn():
            return out
        for a in self.engine.legal_actions(0):
            out["actions"].append(action_str(a))
            c = _card_of(a)
            if a == K.DRAW_STOCK or a == K.PASS or a == K.MELD_ACTION:
                out[{K.DRAW_STOCK: "stock", K.PASS: "pass", K.MELD_ACTION: "meld"}[a]] = True
            elif K.TARGET0 <= a < K.DISCARD0:
                out["targets"].append(a - K.TARGET0)
            elif c is not None and a >= K.LAYOFF0 and a < K.TARGET0:
                out["lay_off"][card_code(c)] = self._lay_off_melds(a)
            elif c is not None:
                key = "take" if a < K.PASS else "pick" if a < K.MELD_ACTION else "discard"
                out[key].append(card_code(c))
        return out

    def _lay_off_melds(self, a: int) -> list[int]:
        """The melds the LAY_OFF ``a`` may go on (the TARGET choice, if there is one)."""
        st = self.engine.state[0]
        c = a - K.LAYOFF0
        return [m for m, mask in enumerate(st[K.MELD:K.MELD + st[K.NMELDS]].tolist())
                if K.extends(int(mask), c)]

    def _seats(self) -> list[dict[str, Any]]:
        eng = self.engine
        return [{"seat": s, "name": self.names[s], "team": s % 2, "you": s == self.human,
                 "partner": s != self.human and s % 2 == self.human % 2,
                 "cards": len(eng.hand(0, s)), "known": _codes(eng.taken(0, s))}
                for s in range(4)]

    def _melds(self) -> list[dict[str, Any]]:
        """The melds on the table (runs in run order, aces high), each card with the team
        it is credited to, and the team that laid the meld."""
        st = self.engine.state[0]
        credit0, out = int(st[K.CREDIT]), []
        for m, mask in enumerate(st[K.MELD:K.MELD + st[K.NMELDS]].tolist()):
            cards = meld_in_order(int(mask))
            out.append({"index": m, "cards": _codes(cards), "kind": K.meld_kind(int(mask)),
                        "teams": [0 if (credit0 >> c) & 1 else 1 for c in cards],
                        "team": self.meld_team[m] if m < len(self.meld_team) else None})
        return out

    def _phase(self) -> tuple[str, str | None]:
        """The game's phase for the page, and the person's step when it is their turn."""
        if self.over:
            return "over", None
        if self.paused:
            return "round_over", None
        if self._mover() != self.human:
            return "play", None
        st = self.engine.state[0]
        step = {K.DRAW: "draw", K.CHOOSE: "choose"}.get(int(st[K.PHASE]), "meld")
        return "play", "building" if step == "meld" and st[K.PICKED] else step

    def winner(self) -> dict[str, Any] | None:
        """The game's winning team (None: not over; ``team`` None: a draw)."""
        if not self.over or self.record.result is None:
            return None
        w = int(self.record.result["winner_side"])
        text = "A draw." if w < 0 else ("Your team wins!" if w == self.human % 2
                                        else "The other team wins.")
        return {"team": None if w < 0 else w, "yours": w == self.human % 2, "text": text}

    # ---- the drawn table ------------------------------------------------------------
    @staticmethod
    def _last_of(data: dict[str, Any]) -> RummyLastMove:
        """An event's move, to mark on the table (its cards ringed where they lie)."""
        cards = data.get("cards") or ([data["card"]] if "card" in data else [])
        return RummyLastMove(data["seat"], data["what"], tuple(parse_card(c) for c in cards))

    def _draw(self, eng: RummyEngine, last: RummyLastMove | None, teams: Sequence[int],
              layout: str, ended: bool = False, legal: dict[str, Any] | None = None) -> str:
        """The table of ``eng`` (``teams``: the team that laid each meld) as the person
        sees it, in ``layout`` (SVG); ``legal`` rings what the person may click."""
        marks: dict[int, str] = {}
        if legal:
            for c in (*legal["take"], *legal["pick"], *legal["discard"], *legal["lay_off"]):
                marks[parse_card(c)] = LEGAL_RING
        return to_svg(rummy_table_scene(
            eng, 0, self.human, names=self.names, marks=marks, last=last, ended=ended,
            stock_mark=LEGAL_RING if legal and legal["stock"] else None,
            meld_teams=teams, deals=self.deals, layout=layout))

    def _picture(self, layout: str, legal: dict[str, Any]) -> str:
        """The table now: a round's final position while its summary waits (or the game's
        at its end), else the live table with the last move of this deal marked."""
        if (self.paused or self.over) and self.final is not None:
            last = next((self._last_of(e.data) for e in reversed(self.events)
                         if e.kind == "move"), None)
            eng, teams = self.final
            return self._draw(eng, last, teams, layout, ended=True)
        e = self.events[-1] if self.events else None
        last = self._last_of(e.data) if e and e.kind == "move" else None
        return self._draw(self.engine, last, self.meld_team, layout, legal=legal)

    def view(self, layout: str = "narrow") -> dict[str, Any]:
        """Everything the person's seat may know (module docstring), the table drawn in
        ``layout`` (``narrow``, ``wide``); the events since the last request are sent
        once, each agent's move with the table after it (``svg``; None for the
        person's own moves)."""
        eng, st = self.engine, self.engine.state[0]
        phase, step = self._phase()
        new, self.seen = self.events[self.seen:], len(self.events)
        shown = [{**e.data, "svg": self._draw(*self.frames[e.data["seq"]], layout)
                  if e.data["seq"] in self.frames else None} for e in new]
        self.frames = {}
        legal = self.legal()
        credit = [int(st[K.CREDIT]), int(st[K.CREDIT + 1])]
        return {
            "game": GAME, "version": self.version, "players": 4, "seat": self.human,
            "names": list(self.names), "phase": phase, "step": step,
            "to_move": None if self.over else self._mover(),
            "deal": int(st[K.DEAL]) + 1, "deals": self.deals, "dealer": int(st[K.DEALER]),
            "stock": int(eng.stock_size[0]), "pile": _codes(eng.pile(0)),
            "hand": _codes(eng.hand(0, self.human)),
            "picked": _codes(cards_of(st[K.PICKED])) if step else [],
            "target": card_code(int(st[K.TARGET])) if step and st[K.TARGET] >= 0 else None,
            "pending": card_code(int(st[K.PENDING])) if step and st[K.PENDING] >= 0 else None,
            "melds": self._melds(), "seats": self._seats(),
            "scores": [int(x) for x in eng.scores[0]],
            "on_table": [_value(c) for c in credit],
            "legal": legal, "svg": self.drawn(("table", layout),
                                              lambda: self._picture(layout, legal)),
            "events": shown, "log": [{**e.data} for e in self.events],
            "sheet": self.sheet, "result": self.record.result if self.over else None,
            "winner": self.winner(),
        }  # fmt: skip


def rummy_frames(rep: Any, positions: range) -> list[dict[str, Any]]:
    """The Persian Rummy positions ``positions`` of a replay, every hand shown, as SVG,
    each with the action that led to it."""
    names = rep.record.players or [f"player_{s}" for s in range(4)]
    frames = []
    for k in positions:
        caption = "start" if k == 0 else (
            f"move {k}: player_{int(rep.infos[k - 1].actor[0])} "
            f"({names[int(rep.infos[k - 1].actor[0])]}) "
            f"{with_symbols(action_str(rep.record.actions[k - 1]))}")
        scene = rummy_table_scene(rep.position(k), 0, viewer=None, names=names)
        frames.append({"index": k, "caption": caption, "svg": to_svg(scene)})
    return frames


def rummy_replay_frames(record: dict[str, Any], start: int = 0,
                        count: int | None = None) -> dict[str, Any]:
    """Positions ``start`` .. ``start + count - 1`` of a Persian Rummy record (checked by
    replaying it on the engine), every hand shown, as SVG with the action that led there;
    ``total`` is the number of positions (actions + 1), so a viewer can page through."""
    rep = replay(record)  # ValueError names the first bad field or move
    total = len(rep.states)
    start = check_int(start, "start", 0, max(total - 1, 0))
    count = total - start if count is None else check_int(count, "count", 1)
    names = rep.record.players or [f"player_{s}" for s in range(4)]
    return {"game": GAME, "start": start, "total": total,
            "frames": rummy_frames(rep, range(start, min(total, start + count))),
            "result": rep.record.result, "players": names}
