"""Persian Rummy game records: what was played, as JSON, replayable and checked on the engine.

A record (format ``persian_rummy-record/1``, files as in :mod:`pasur_env.core.record`)
holds everything that fixes a game: the rule flags, the episode kind (``game`` or
``round``), the first dealer, the first deal's card order (``deck``, top first), the
game's random stream right after that deal (later deals of a game are shuffled from
it) and every action in order. As checks it holds the hands of the first deal and
the result (team scores, winning team, rounds); the names of the players are informational.

:func:`replay` plays a record on a one-game engine, checking every action, the first
deal and the result, and raises ``ValueError`` naming the first thing that fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pasur_env.core import record as core_record
from pasur_env.rummy import kernels as K
from pasur_env.rummy.actions import action_str
from pasur_env.rummy.cards import card_code, parse_deck
from pasur_env.rummy.engine import RummyEngine, RummyStepInfo
from pasur_env.rummy.rules import make_rummy_rules

__all__ = ["GAME", "FORMAT", "RummyGameRecord", "RummyReplay", "replay", "first_deal_of",
           "BatchRecorder"]

GAME = "persian_rummy"
FORMAT = core_record.record_format(GAME)


def first_deal_of(engine: RummyEngine, game: int) -> dict[str, Any]:
    """The hands of game ``game`` as dealt (seat order) and the first discard, as codes."""
    return {
        "hands": [[card_code(c) for c in engine.hand(game, s)] for s in range(4)],
        "pile": [card_code(c) for c in engine.pile(game)],
    }


@dataclass
class RummyGameRecord:
    """One Persian Rummy game (see the module docstring); :meth:`to_json` / :meth:`from_json`."""

    rules: dict[str, Any]
    episode: str
    dealer: int
    deck: list[str]
    stream: int
    actions: list[int]
    deal: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    players: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, engine: RummyEngine, game: int = 0, players: list[str] | None = None,
              **meta: Any) -> RummyGameRecord:
        """A record of game ``game`` of ``engine``, which has just been dealt (no action yet)."""
        if engine.auto_reset:
            raise ValueError("records need an engine with auto_reset=False")
        st = engine.state[game]
        return cls(
            rules=engine.rules.to_dict(), episode=engine.episode,
            dealer=int(st[K.START_DEALER]),
            deck=[card_code(int(c)) for c in st[K.DECK:K.DECK + K.NUM_CARDS]],
            stream=int(np.int64(st[K.RNG]).view(np.uint64)), actions=[],
            deal=first_deal_of(engine, game), players=players, meta=dict(meta),
        )  # fmt: skip

    def finish(self, info: RummyStepInfo, row: int, rounds: int) -> None:
        """Note the result from the step that ended the game."""
        self.result = {"scores": [int(x) for x in info.scores[row]],
                       "winner_side": int(info.winner[row]), "rounds": int(rounds)}

    def to_json(self) -> dict[str, Any]:
        out = {"format": FORMAT, "game": GAME, "rules": dict(self.rules),
               "episode": self.episode, "dealer": self.dealer, "deck": list(self.deck),
               "stream": core_record.stream_json(self.stream), "deal": self.deal,
               "actions": list(self.actions), "result": self.result, "players": self.players}
        if self.meta:
            out["meta"] = dict(self.meta)
        return out

    @classmethod
    def from_json(cls, data: Any) -> RummyGameRecord:
        """Parse and check the shape of a record; ``ValueError`` names the bad field."""
        required = ("rules", "episode", "dealer", "deck", "stream", "actions")
        core_record.check_format(data, FORMAT, required)
        rules = core_record.check_rules(data["rules"], make_rummy_rules)
        try:
            parse_deck(data["deck"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"record field 'deck': {e}") from None
        return cls(rules=dict(rules), episode=data["episode"], dealer=data["dealer"],
                   deck=list(data["deck"]), stream=core_record.parse_stream(data["stream"]),
                   actions=list(data["actions"]), deal=data.get("deal"),
                   result=data.get("result"), players=data.get("players"),
                   meta=dict(data.get("meta") or {}))


class RummyReplay(core_record.Replay):
    """A replayed Persian Rummy record (:class:`pasur_env.core.record.Replay`)."""

    record: RummyGameRecord
    infos: list[RummyStepInfo]
    engine: RummyEngine


def _engine_for(rec: RummyGameRecord) -> RummyEngine:
    if rec.episode not in ("game", "round"):
        raise ValueError(f"record field 'episode' must be 'game' or 'round', got {rec.episode!r}")
    eng = RummyEngine(1, seed=0, rules=make_rummy_rules(**rec.rules), episode=rec.episode,
                      auto_reset=False, parallel=False)
    eng.reset(deck=rec.deck, dealer=rec.dealer)  # ValueError names a bad dealer
    eng.state[0, K.RNG] = np.int64(np.uint64(rec.stream).view(np.int64))
    return eng


def replay(record: RummyGameRecord | dict[str, Any]) -> RummyReplay:
    """Play ``record`` on the engine, checking every action, the first deal and the
    result; raises ``ValueError`` at the first one that fails."""
    rec = record if isinstance(record, RummyGameRecord) else RummyGameRecord.from_json(record)
    eng = _engine_for(rec)
    if rec.deal is not None and rec.deal != first_deal_of(eng, 0):
        raise ValueError("the record's first deal is not what its deck and dealer deal")
    claims = rec.result is not None
    states, infos = core_record.replay_actions(eng, rec.actions, action_str, claims)
    if rec.result is not None:
        core_record.check_result(rec.result, infos, [int(x) for x in infos[-1].scores[0]])
    return RummyReplay(rec, states, infos, eng)


class BatchRecorder(core_record.BatchRecorder):
    """Records every Persian Rummy game of a batch played through the play loop
    (:class:`pasur_env.core.record.BatchRecorder` making :class:`RummyGameRecord` s)."""

    def __init__(self, engine: RummyEngine, players: list[list[str]] | None = None,
                 **meta: Any) -> None:
        super().__init__(engine, RummyGameRecord.start, players, **meta)
