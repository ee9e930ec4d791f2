"""Game records: what was played, as JSON, replayable and checked on the engine.

A record (format ``pasur-record/1``) holds everything that fixes a game: the rule flags,
the episode kind (``game`` or ``round``), the first dealer, the game's random stream
when it began (every shuffle and every buried jack is drawn from it, as the engine
draws them), the first deck when one was given, and every action in order. It also
holds, as checks, the first deal as it came out and the result (scores, winning side,
rounds); the names of the players are informational.

:func:`replay` plays a record on a one-game engine and returns every position; it
raises ``ValueError`` naming the first thing that does not hold: a malformed field, an
action that is not legal where it stands (``move 17 (player_1, PLAY 7H) is illegal
...``), a deal or a result that differs from the replay's. So a tampered record is
refused, and a valid one shows the whole game with all hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pasur_env.core import record as core_record
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of, parse_deck
from pasur_env.pasur.engine import Engine, StepInfo, action_str
from pasur_env.pasur.rules import make_rules

__all__ = ["FORMAT", "GameRecord", "Replay", "replay", "first_deal_of", "BatchRecorder"]

GAME = "pasur"
#: the format of Pasur records (older records lack the ``game`` key and still load)
FORMAT = core_record.record_format(GAME)


def first_deal_of(engine: Engine, game: int) -> dict[str, Any]:
    """The cards of game ``game`` as dealt at the start of its round: hands (dealing
    order), table and stock (top first), as codes."""
    P = engine.num_players
    return {
        "hands": [[card_code(c) for c in engine.hand(game, s)] for s in range(P)],
        "table": [card_code(c) for c in cards_of(int(engine.table[game]))],
        "stock": [card_code(c) for c in engine.stock(game)],
    }


@dataclass
class GameRecord:
    """One game (see the module docstring); :meth:`to_json` / :meth:`from_json`."""

    rules: dict[str, Any]
    episode: str
    dealer: int
    stream: int
    actions: list[int]
    deck: list[str] | None = None
    deal: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    players: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, engine: Engine, game: int = 0, players: list[str] | None = None,
              **meta: Any) -> GameRecord:
        """A record of game ``game`` of ``engine``, which has just begun (no action yet)."""
        if engine.auto_reset:
            raise ValueError("records need an engine with auto_reset=False")
        r = engine.rules
        deck = engine.start_decks[game]
        return cls(
            rules=r.flags(), episode=engine.episode,
            dealer=int(engine.state[game, K.START_DEALER]),
            stream=int(np.uint64(engine.start_streams[game].view(np.uint64))),
            actions=[], deck=None if deck[0] < 0 else [card_code(int(c)) for c in deck],
            deal=first_deal_of(engine, game), players=players, meta=dict(meta),
        )  # fmt: skip

    def finish(self, info: StepInfo, row: int, rounds: int) -> None:
        """Note the result from the step that ended the game."""
        sides = [self.rules_obj().side_of(s) for s in range(int(self.rules["num_players"]))]
        self.result = {"scores": [int(info.scores[row, s]) for s in sides],
                       "winner_side": int(info.winner[row]), "rounds": int(rounds)}

    def rules_obj(self) -> Any:
        return make_rules(**self.rules)

    def to_json(self) -> dict[str, Any]:
        out = {"format": FORMAT, "game": GAME, "rules": dict(self.rules),
               "episode": self.episode, "dealer": self.dealer,
               "stream": core_record.stream_json(self.stream), "deck": self.deck,
               "deal": self.deal, "actions": list(self.actions), "result": self.result,
               "players": self.players}
        if self.meta:
            out["meta"] = dict(self.meta)
        return out

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Parse and check the shape of a record; ``ValueError`` names the bad field."""
        core_record.check_format(data, FORMAT, ("rules", "episode", "dealer", "stream", "actions"))
        rules = core_record.check_rules(data["rules"], make_rules)
        acts = data["actions"]
        stream = core_record.parse_stream(data["stream"])
        deck = data.get("deck")
        if deck is not None:
            parse_deck(deck, make_rules(**rules).cards)  # raises naming the problem
        return cls(rules=dict(rules), episode=data["episode"], dealer=data["dealer"],
                   stream=stream, actions=list(acts), deck=deck, deal=data.get("deal"),
                   result=data.get("result"), players=data.get("players"),
                   meta=dict(data.get("meta") or {}))


class Replay(core_record.Replay):
    """A replayed Pasur record (:class:`pasur_env.core.record.Replay`)."""

    record: GameRecord
    infos: list[StepInfo]
    engine: Engine


def _engine_for(rec: GameRecord) -> Engine:
    if rec.episode not in ("game", "round"):
        raise ValueError(f"record field 'episode' must be 'game' or 'round', got {rec.episode!r}")
    P = int(rec.rules.get("num_players", 2))
    if isinstance(rec.dealer, bool) or not isinstance(rec.dealer, int) or not 0 <= rec.dealer < P:
        raise ValueError(f"record field 'dealer' must be a seat in 0..{P - 1}, got {rec.dealer!r}")
    eng = Engine(1, seed=0, rules=make_rules(**rec.rules), episode=rec.episode,
                 auto_reset=False, parallel=False)
    eng.state[0, K.RNG] = np.int64(np.uint64(rec.stream).view(np.int64))
    eng.reset(deck=rec.deck, dealer=rec.dealer)
    return eng


def replay(record: GameRecord | dict[str, Any]) -> Replay:
    """Play ``record`` on the engine, checking every action, the first deal and the
    result; raises ``ValueError`` at the first one that fails (module docstring)."""
    rec = record if isinstance(record, GameRecord) else GameRecord.from_json(record)
    eng = _engine_for(rec)
    if rec.deal is not None and rec.deal != first_deal_of(eng, 0):
        raise ValueError("the record's first deal is not what its stream and deck deal")
    states, infos = core_record.replay_actions(eng, rec.actions, action_str, rec.result is not None)
    if rec.result is not None:
        sides = [eng.rules.side_of(s) for s in range(eng.num_players)]
        core_record.check_result(rec.result, infos, [int(infos[-1].scores[0, s]) for s in sides])
    return Replay(rec, states, infos, eng)


class BatchRecorder(core_record.BatchRecorder):
    """Records every Pasur game of a batch played through the play loop
    (:class:`pasur_env.core.record.BatchRecorder` making :class:`GameRecord` s)."""

    def __init__(self, engine: Engine, players: list[list[str]] | None = None,
                 **meta: Any) -> None:
        super().__init__(engine, GameRecord.start, players, **meta)
