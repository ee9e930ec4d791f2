"""Play Pasur in the terminal against the agents (``pasur play``), or watch them (``pasur demo``).

The game runs through the PettingZoo AEC env (:class:`pasur_env.raw_env`) with its
``viewer`` set to the human's seat, so the rendered table never shows the other
hands. Each turn lists the legal plays; type a card code (``7H``, ``10D``, ``TD``,
``7♥``) or the list number. A card with several capture options asks which cards
to take: type them one at a time or several at once in any order (``4S 2D``), or
an option number; the choice is applied in ascending card order as the action
interface requires. ``help``, ``table``, ``hint`` (what the strongest agent would
play: :func:`hint_agent_name`), ``back`` (while choosing a capture) and ``quit`` are
understood; bad input gets a message and the prompt again, and the end of the input
leaves the game cleanly. Cards are shown with their suit symbols (``7♥``), in every
text the ``pasur`` command prints (:func:`pasur_env.core.cards.with_symbols`).

Input and output streams are injectable, so the game can be driven by a script::

    import io
    play("greedy", seed=1, input_stream=io.StringIO("1\\n" * 200), output_stream=io.StringIO())

:func:`watch` plays a game between agents only and prints its public course (each
play and capture, surs, round counts), with every hand shown at each round's start:
a quick check that an install works (``make demo``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

import pasur_env
from agents.registry import agent_label, build_agent, with_spec
from pasur_env.core.cards import with_symbols
from pasur_env.core.loop import decide
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_str, cards_of, cards_str, parse_card, parse_cards
from pasur_env.pasur.engine import StepInfo
from pasur_env.pasur.moves import capture_is_sur, move_options, move_to_actions

__all__ = ["play", "watch", "warm_moves", "play_command", "watch_command",
           "replay_in_terminal", "HumanGame", "Console", "hint_agent_name"]

HELP = """\
Commands:
  7H, 10D, TD, 7♥   play that card (rank A 2..10 J Q K, or T for ten; suit C D H S)
  3                 play the card numbered 3 in the list
  7H 4S 2D          play 7H and take 4S and 2D at once
  table             show the table again
  hint              what the strongest agent would play
  help              this text
  quit              leave the game
When a card can capture in several ways you are asked which table cards to take:
type them one at a time or together in any order (4S 2D), or an option number;
'clear' drops the cards chosen so far, 'back' picks another card."""


def warm_moves() -> None:
    """Compile the full-move helpers a person's moves go through (:func:`move_options`,
    :func:`move_to_actions`): 60 random moves, each listed and played by them (``pasur
    warmup``'s step for the terminal and the web table)."""
    eng = pasur_env.Engine(num_games=1, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        options = move_options(eng, 0)
        card, captured = options[int(rng.integers(len(options)))]
        for action in move_to_actions(eng, 0, card, captured):
            eng.step_single(action)


def hint_agent_name(players: int) -> str:
    """The strongest Pasur agent available for hints at this table size (the terminal's
    ``hint`` and the web table's)."""
    from agents.pasur.move_net.agent import pretrained_net_path

    path = pretrained_net_path(players, agent="net-ismcts")
    return "net-ismcts" if path is not None and path.exists() else "ismcts"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class _Quit(Exception):
    """The player left (quit or end of input)."""


class Console:
    """Text out and lines in for a game in the terminal (``inp``/``out`` streams); the end
    of the input or Ctrl-C raises :class:`_Quit`, so the game leaves cleanly. Shared by
    both games' terminal play (:mod:`agents.apps.rummy_terminal`)."""

    inp: TextIO
    out: TextIO

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.inp.readline()
        except KeyboardInterrupt:
            raise _Quit from None
        if not line:
            self.say("\n(end of input: leaving the game)")
            raise _Quit
        return line.strip()

    def command(self, prompt: str, nudge: str, help_text: str,
                show: Callable[[], None], hint: Callable[[], None]) -> str | None:
        """One line of input with the commands every game shares handled here (an empty
        line gets ``nudge``; ``quit``, ``help``, ``table``, ``hint``): None means ask
        again, any other line is returned for the game to read."""
        line = self.ask(prompt)
        low = line.lower()
        if not line:
            self.say(nudge)
            return None
        if low in ("q", "quit", "exit"):
            raise _Quit
        if low in ("h", "help", "?"):
            self.say(help_text)
            return None
        if low in ("t", "table", "show"):
            show()
            return None
        if low == "hint":
            hint()
            return None
        return line


class HumanGame(Console):
    """One game of a human against agents, through the AEC env (see :func:`play`).

    With ``seat=None`` nobody is human: every seat is an agent and the game is watched
    (:func:`watch`).
    """

    def __init__(
        self,
        opponent: str | Policy | Sequence[str | Policy] = "greedy",
        players: int = 2,
        seed: int | None = None,
        seat: int | None = 0,
        episode: str = "game",
        deck: Sequence[Any] | None = None,
        dealer: int | None = None,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
        **env_kwargs: Any,
    ) -> None:
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be in 0..{players - 1}, got {seat!r}")
        self.inp = input_stream if input_stream is not None else sys.stdin
        self.out = output_stream if output_stream is not None else sys.stdout
        self.players, self.human, self.seed = players, seat, seed
        self.env = pasur_env.raw_env(
            num_players=players, episode=episode, render_mode="ansi", **env_kwargs
        )
        self.env.viewer = seat
        self.engine = self.env.engine
        specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        others = [s for s in range(players) if s != seat]
        if len(specs) == 1:
            specs = specs * len(others)
        if len(specs) != len(others):
            raise ValueError(f"give one opponent spec or {len(others)} (one per other seat)")
        seeds = np.random.SeedSequence(seed).generate_state(len(others))
        self.agents: dict[int, Policy] = {}
        self.labels: dict[int, str] = {} if seat is None else {seat: "you"}
        for k, s in enumerate(others):
            spec = specs[k]
            # an Agent instance is shared as is; specs build one agent per seat
            self.agents[s] = check_policy_fits(
                build_agent(spec, seed=int(seeds[k])), self.engine.GAME_ID, players,
                self.engine.obs_size, role=with_spec(f"the agent at seat {s}", spec))
            self.labels[s] = agent_label(spec)
        options: dict[str, Any] = {}
        if deck is not None:
            options["deck"] = list(deck)
        if dealer is not None:
            options["dealer"] = dealer
        self.env.reset(seed=seed, options=options or None)

    def _mine(self, seat: int) -> bool:
        """Whether ``seat`` is on the human's side."""
        return self.human is not None and self.env.rules.side_of(seat) == self.env.rules.side_of(
            self.human
        )

    def name(self, seat: int) -> str:
        label = self.labels[seat]
        if seat == self.human:
            return f"player_{seat} (you)"
        if self.players == 4 and self._mine(seat):
            return f"player_{seat} ({label}, your partner)"
        return f"player_{seat} ({label})"

    def side_name(self, side: int) -> str:
        if self.players != 4:
            return self.name(side)
        mine = ", your team" if self._mine(side) else ""
        return f"team {side} (player_{side} + player_{side + 2}{mine})"

    def _greet(self) -> None:
        rules = self.env.rules
        goal = (
            "one round" if self.env.episode == "round" else f"first to {rules.target_score}"
        )
        if self.human is None:
            seats = ", ".join(self.name(s) for s in range(self.players))
            self.say(f"Pasur: {seats}; {goal}.")
            self.say(self.engine.render(0))
            return
        opp = ", ".join(self.name(s) for s in range(self.players) if s != self.human)
        deals = "" if self.seed is None else f"; the deals of seed {self.seed}"
        self.say(f"Pasur: you are player_{self.human}; playing with {opp}; {goal}{deals}.")
        self.say("Type 'help' for the commands.")

    # ---- the game ---------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game ends or the player leaves; returns the exit code 0."""
        self._greet()
        try:
            while True:
                agent = self.env.agent_selection
                if self.env.terminations[agent] or self.env.truncations[agent]:
                    break
                seat = int(agent.rsplit("_", 1)[1])
                if self.human is not None:
                    self.say()
                if seat == self.human:
                    self.human_turn()
                else:
                    self.agent_turn(seat)
        except _Quit:
            self.say("Bye.")
            return 0
        self.game_over()
        return 0

    def game_over(self) -> None:
        info = self.env.last_step_info
        scores = self.engine.scores[0] if info is None else info.scores[0]
        self.say()
        self.say("=== game over ===")
        if info is not None and info.game_end[0]:
            w = int(info.winner[0])
            what = "round" if self.env.episode == "round" else "game"
            if w < 0:
                self.say(f"The {what} is a tie.")
            else:
                won = self.human is not None and self._mine(w)
                self.say(f"{self.side_name(w)} wins the {what}." + ("  Well played!" if won
                                                                  else ""))
        else:
            self.say("The game was stopped (round limit).")
        self.say("Final scores: " + ", ".join(
            f"{self.side_name(s)} {int(scores[s])}" for s in range(len(scores))))

    # ---- describing moves -------------------------------------------------------------------
    def _options(self, card: int) -> list[tuple[int, ...]]:
        return [cap for c, cap in move_options(self.engine, 0) if c == card and cap]

    def _apply(self, seat: int, card: int, captured: tuple[int, ...]) -> None:
        """Play ``card`` taking ``captured`` (a legal full move) and report it."""
        before = self._before(seat)
        for a in move_to_actions(self.engine, 0, card, captured):
            self.env.step(int(a))
        self._report(seat, card, captured, before)

    def _before(self, seat: int) -> tuple[int, int, int]:
        """What a move report needs from before the move: table, last capturer, surs."""
        eng = self.engine
        side = self.env.rules.side_of(seat)
        return int(eng.table[0]), int(eng.last_capturer[0]), int(eng.surs[0, side])

    def _report(
        self, seat: int, card: int, captured: tuple[int, ...], before: tuple[int, int, int]
    ) -> None:
        table_before, last_cap, surs_before = before
        info = self.env.last_step_info
        round_end = info is not None and bool(info.round_end[0])
        # a sur adds one to the side's count (never in the last deal, so never at round end)
        side = self.env.rules.side_of(seat)
        sur = not round_end and int(self.engine.surs[0, side]) > surs_before
        me = seat == self.human
        who = "You" if me else self.name(seat)
        if captured:
            msg = f"{who} play{'' if me else 's'} {card_str(card)} and take{'' if me else 's'} "
            msg += cards_str(captured) + ("  *** SUR! ***" if sur else "")
        else:
            msg = f"{who} play{'' if me else 's'} {card_str(card)} (laid on the table)"
        self.say(msg)
        if round_end:
            assert info is not None
            left = table_before & ~sum(1 << c for c in captured)
            if not captured:
                left |= 1 << card
            last = seat if captured else last_cap
            self.round_summary(info, left, last)

    def round_summary(self, info: StepInfo, leftovers: int, last: int) -> None:
        S = self.env.rules.num_sides
        self.say()
        if leftovers and last >= 0:
            self.say(f"The cards left on the table ({cards_str(cards_of(leftovers))}) go to "
                     f"{self.name(last)}, the last to capture.")
        elif leftovers:
            self.say(f"Nobody captured this round: {cards_str(cards_of(leftovers))} stay unscored.")
        self.say("=== round over ===")
        for s in range(S):
            self.say(
                f"  {self.side_name(s)}: {_plural(int(info.round_points[0, s]), 'point')} "
                f"(clubs {int(info.clubs[0, s])}, surs {int(info.surs[0, s])}); "
                f"game score {int(info.scores[0, s])}"
            )
        if self.human is None and not info.game_end[0]:  # watching: the next deal, open
            self.say("\n" + self.engine.render(0))

    # ---- agents -----------------------------------------------------------------------------
    def agent_turn(self, seat: int) -> None:
        """The agent of ``seat`` plays its turn (one decision at a time, through the play
        loop's :func:`~pasur_env.core.loop.decide`, which checks every action)."""
        before = self._before(seat)
        card, captured = self._full_move(self.engine, self.agents[seat], self.env.step)
        self._report(seat, card, captured, before)

    def _full_move(self, eng: Any, agent: Policy,
                   step: Callable[[int], Any]) -> tuple[int, tuple[int, ...]]:
        """``agent``'s full move in game 0 of ``eng`` (the card, then the cards it takes,
        one decision at a time), each action applied by ``step``: (card, taken cards)."""
        games = np.zeros(1, dtype=np.int64)
        card, takes, opts = -1, [], []
        while True:
            a = int(decide(eng, games, [agent], games)[0])
            if a < K.TAKE_OFFSET:
                card, opts = a, self._options(a)
            else:
                takes.append(a - K.TAKE_OFFSET)
            step(a)
            if eng.phase[0] != K.CAPTURE:  # the turn is over
                break
        return card, tuple(sorted(takes)) if len(opts) > 1 else (opts[0] if opts else ())

    def hint(self) -> None:
        """Say the move the strongest agent would make in the person's place (played on a
        copy of the engine; the game goes on unchanged)."""
        name = hint_agent_name(self.players)
        agent = build_agent(name, seed=self.seed)
        shadow = self.engine.copy()
        card, taken = self._full_move(
            shadow, agent, lambda a: shadow.step(np.array([a], dtype=np.int64)))
        what = f"take {cards_str(taken)}" if taken else "lay it on the table"
        self.say(f"{name} would play {card_str(card)} and {what}.")

    # ---- the human ---------------------------------------------------------------------------
    def show(self) -> None:
        eng = self.engine
        self.say(self.env.render() or "")
        hand = eng.hand(0, self.human)
        moves = move_options(eng, 0)
        self.say(f"Your hand: {cards_str(hand)}")
        self.say("Your plays:")
        for k, c in enumerate(sorted(hand), 1):
            opts = [cap for card, cap in moves if card == c and cap]
            if not opts:
                what = "laid on the table"
            elif len(opts) == 1:
                what = "takes " + cards_str(opts[0])
                if capture_is_sur(eng, 0, c, opts[0]):
                    what += " (sur!)"
            else:
                what = "takes " + " or ".join(cards_str(o) for o in opts) + " (you choose)"
            self.say(f"  {k}) {card_str(c)}  {what}")

    def human_turn(self) -> None:
        eng = self.engine
        if eng.phase[0] == 1:  # a capture already started (not from this UI): finish it
            raise RuntimeError("the game is in the CAPTURE phase at the start of a turn")
        self.show()
        hand = sorted(eng.hand(0, self.human))
        while True:
            line = self.command("Your play (card or number; 'help'): ",
                                "Type a card such as 7H (or its number in the list); 'help' "
                                "for more.", HELP, self.show, self.hint)
            if line is None:
                continue
            tokens = line.replace(",", " ").split()
            card = self._read_card(tokens[0], hand)
            if card is None:
                continue
            opts = self._options(card)
            extra = tokens[1:]
            if not opts:
                if extra:
                    self.say(f"{card_str(card)} captures nothing here: type just "
                             f"{tokens[0]} to lay it on the table.")
                    continue
                self._apply(self.human, card, ())
                return
            if len(opts) == 1 and not extra:
                self._apply(self.human, card, opts[0])
                return
            chosen = self.choose_capture(card, opts, extra)
            if chosen is None:  # 'back' or a bad one-line capture: choose a card again
                continue
            self._apply(self.human, card, chosen)
            return

    def _read_card(self, token: str, hand: list[int]) -> int | None:
        if token.isdigit():
            k = int(token)
            if 1 <= k <= len(hand):
                return hand[k - 1]
            self.say(f"There is no play number {k}: choose 1 to {len(hand)}.")
            return None
        try:
            card = parse_card(token)
        except (ValueError, TypeError):
            self.say(f"'{token}' is not a card or a list number (e.g. 7H, 10D, TD, KS, or 2).")
            return None
        if card not in hand:
            self.say(f"{card_str(card)} is not in your hand (your hand: {cards_str(hand)}).")
            return None
        return card

    def _list_options(self, card: int, opts: list[tuple[int, ...]]) -> str:
        return "  ".join(f"{k}) {cards_str(o)}" for k, o in enumerate(opts, 1))

    def choose_capture(
        self, card: int, opts: list[tuple[int, ...]], first: list[str]
    ) -> tuple[int, ...] | None:
        """Ask which option ``card`` takes; None to go back to choosing a card."""
        options = {frozenset(o): tuple(o) for o in opts}
        table = set(cards_of(int(self.engine.table[0])))
        chosen: set[int] = set()
        one_line = bool(first)
        tokens = first
        self.say(f"{card_str(card)} can take: {self._list_options(card, opts)}")
        while True:
            if not tokens:
                sel = f" (chosen so far: {cards_str(chosen)})" if chosen else ""
                line = self.ask(
                    f"Cards to take with {card_str(card)}{sel} (cards, option number, "
                    "'clear', 'back'): "
                )
                tokens = line.replace(",", " ").split()
                one_line = False
                if not tokens:
                    self.say("Type the table cards to take, e.g. "
                             f"{' '.join(card_str(c) for c in opts[0])}, or an option number.")
                    continue
            low = " ".join(tokens).lower()
            tokens_now, tokens = tokens, []
            if low in ("back", "b", "cancel"):
                return None
            if low in ("q", "quit", "exit"):
                raise _Quit
            if low in ("clear", "c", "reset"):
                chosen = set()
                continue
            if low in ("h", "help", "?"):
                self.say(HELP)
                self.say(f"{card_str(card)} can take: {self._list_options(card, opts)}")
                continue
            if len(tokens_now) == 1 and tokens_now[0].isdigit():
                k = int(tokens_now[0])
                if 1 <= k <= len(opts) and chosen <= set(opts[k - 1]):
                    return opts[k - 1]
                self.say(f"There is no capture option {k} here: "
                         f"{self._list_options(card, opts)}")
                if one_line:
                    return None
                continue
            picked: set[int] = set()
            bad = False
            for tok in tokens_now:
                try:
                    c = parse_card(tok)
                except (ValueError, TypeError):
                    self.say(f"'{tok}' is not a card (e.g. 4S, 10D, TD).")
                    bad = True
                    break
                if c not in table:
                    self.say(f"{card_str(c)} is not on the table.")
                    bad = True
                    break
                picked.add(c)
            if not bad:
                cand = chosen | picked
                if frozenset(cand) in options:
                    return options[frozenset(cand)]
                if any(cand < set(o) for o in opts):
                    chosen = cand
                    continue
                self.say(f"{cards_str(cand)} is not one of {card_str(card)}'s captures; "
                         f"choose one of: {self._list_options(card, opts)}")
            if one_line:
                return None
            if chosen:
                self.say(f"(still chosen: {cards_str(chosen)}; 'clear' to start over)")


def play(opponent: str | Policy | Sequence[str | Policy] = "greedy", **options: Any) -> int:
    """Play one game in the terminal against ``opponent`` agents; returns the exit code.

    Args:
        opponent: agent spec (``"greedy"``, ``"ismcts:budget=200"``) or policy for every
            other seat, or one per other seat; with 4 players your partner is one of them.
        **options: as for :class:`HumanGame`: ``players`` (2, 3 or 4 = two teams),
            ``seed`` (the deals and the agents), ``seat`` (yours; player_0 leads the
            first round by default), ``episode`` (``"game"`` to the target score or
            ``"round"``), ``deck`` and ``dealer`` (fix the first deal: 52 card codes, top
            first), ``input_stream`` / ``output_stream`` (default stdin/stdout), and rule
            flags and env options for :class:`pasur_env.raw_env`.
    """
    return HumanGame(opponent, **options).run()


def watch(agents: str | Policy | Sequence[str | Policy] = "random", **options: Any) -> int:
    """Print one game played by ``agents`` alone (one spec for every seat, or one per
    seat); ``options`` as for :func:`play` (``seat`` excepted)."""
    return HumanGame(agents, seat=None, **options).run()


def play_command(opponents: Sequence[str], *, players: int | None = None,
                 seed: int | None = None, seat: int = 0, episode: str = "game",
                 deck: str | None = None, preset: str | None = None,
                 **rule_flags: Any) -> int:
    """``pasur play`` (Pasur's row of :mod:`agents.games`): the command line's options as
    :func:`play` takes them (``players`` None: 2; ``deck`` as card codes)."""
    if preset:
        rule_flags["preset"] = preset
    return play(
        opponents if len(opponents) > 1 else opponents[0], players=players or 2, seed=seed,
        seat=seat, episode=episode, deck=parse_cards(deck) if deck else None, **rule_flags,
    )


def watch_command(agents: Sequence[str], *, players: int | None = None, seed: int = 0,
                  episode: str = "game") -> int:
    """``pasur demo`` (Pasur's row of :mod:`agents.games`): :func:`watch` of ``agents``
    (one for every seat, or one per seat; ``players`` None: 2)."""
    return watch(agents if len(agents) > 1 else agents[0], players=players or 2, seed=seed,
                 episode=episode)


def load_record(path: str, game: int = 0) -> dict[str, Any]:
    """Record ``game`` of a ``.jsonl`` file (one per line), or the record of a ``.json``
    (:func:`pasur_env.core.record.read_record`)."""
    from pasur_env.core.record import read_record

    return read_record(path, game)


def replay_in_terminal(path: str, index: int = 0, show_all: bool = False,
                       input_stream: TextIO | None = None,
                       output_stream: TextIO | None = None, game: str | None = None) -> int:
    """Check a record of either game by replaying it (its game's ``replay``, dispatched on
    the record's game; ``game`` given: the record must be of that game), then step through
    it, all hands shown: Enter or ``n`` next, ``p`` previous, a number jumps, ``q`` quits."""
    from pasur_env.core.record import game_of, read_record
    from pasur_env.games import game_info

    inp = input_stream if input_stream is not None else sys.stdin
    out = output_stream if output_stream is not None else sys.stdout
    data = read_record(path, index)
    if isinstance(data, dict) and "format" not in data:
        result = "mean_point_diff" in data or "ladder" in data or "ratings" in data
        raise ValueError(f"{path} is not a game record (a record has a \"format\" such as "
                         f"\"pasur-record/1\")" + ("; it looks like the JSON of a `pasur "
                         "eval` or `pasur tournament` result: `pasur eval --save-games DIR` "
                         "writes the records of a match's games" if result else ""))
    own = game_of(data)
    if game is not None and own != game:
        raise ValueError(f"{path}: the record is of {own!r}, not {game!r}")
    module = game_info(own).record_module()
    rep = module.replay(data)
    def action_str(action: int) -> str:
        return with_symbols(module.action_str(action))

    n = len(rep.states) - 1
    seats = len(rep.record.deal["hands"]) if rep.record.deal else 4
    names = rep.record.players or [f"player_{s}" for s in range(seats)]
    out.write(f"{path}: {game_info(own).title}, {n} actions, players {', '.join(names)}; "
              f"result {rep.record.result}\n")

    def show(k: int) -> None:
        what = "start" if k == 0 else (f"after move {k}: player_{int(rep.infos[k - 1].actor[0])}"
                                       f" {action_str(rep.record.actions[k - 1])}")
        out.write(f"\n[{k}/{n}] {what}\n{rep.position(k).render(0)}\n")

    if show_all:
        for k in range(n + 1):
            show(k)
        return 0
    k = 0
    show(k)
    for line in inp:
        cmd = line.strip().lower()
        if cmd in ("q", "quit"):
            break
        k = (int(cmd) if cmd.isdigit() else k - 1 if cmd == "p" else k + 1)
        k = max(0, min(n, k))
        show(k)
    return 0
