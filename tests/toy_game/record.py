"""The toy game's records (format ``toy-record/1``, files and recorder as in
:mod:`pasur_env.core.record`): the rule flags, the episode kind, the first dealer and
deal order, the stream after that deal and every action; as checks the first hands and
the result. :func:`replay` plays a record on a one-game engine, checking everything."""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core import record as core_record
from toy_game.engine import (
    DECK,
    NUM_CARDS,
    RNG,
    START_DEALER,
    ToyEngine,
    action_str,
    card_code,
    make_toy_rules,
    parse_deck,
)

__all__ = ["GAME", "FORMAT", "ToyRecord", "replay", "BatchRecorder", "action_str"]

GAME = "toy"
FORMAT = core_record.record_format(GAME)


def _deal_of(engine: ToyEngine, game: int) -> dict[str, Any]:
    return {"hands": [[card_code(c) for c in engine.hand(game, s)] for s in range(2)],
            "table": [card_code(c) for c in engine.table(game)]}


class ToyRecord:
    """One toy game: the record's JSON object, its fields read as attributes
    (``actions``, ``deal``, ``result``, ``players``, ...)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["data"][name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def start(cls, engine: ToyEngine, game: int = 0, players: list[str] | None = None,
              **meta: Any) -> ToyRecord:
        """The record of game ``game`` of ``engine``, just dealt."""
        if engine.auto_reset:
            raise ValueError("records need an engine with auto_reset=False")
        row = engine.state[game]
        stream = int(np.int64(row[RNG]).view(np.uint64))
        return cls({
            "format": FORMAT, "game": GAME, "rules": {"deals": engine.rules.deals},
            "episode": engine.episode, "dealer": int(row[START_DEALER]),
            "deck": [card_code(int(c)) for c in row[DECK:DECK + NUM_CARDS]],
            "stream": core_record.stream_json(stream), "deal": _deal_of(engine, game),
            "actions": [], "result": None, "players": players, "meta": dict(meta)})

    def finish(self, info: Any, row: int, rounds: int) -> None:
        self.data["result"] = {"scores": [int(x) for x in info.scores[row]],
                               "winner_side": int(info.winner[row]), "rounds": int(rounds)}

    def to_json(self) -> dict[str, Any]:
        return dict(self.data)

    @classmethod
    def from_json(cls, data: Any) -> ToyRecord:
        """The record, its shape checked (``ValueError`` names the bad field)."""
        required = ("rules", "episode", "dealer", "deck", "stream", "actions")
        core_record.check_format(data, FORMAT, required)
        core_record.check_rules(data["rules"], make_toy_rules)
        core_record.parse_stream(data["stream"])
        parse_deck(data["deck"])
        return cls({"deal": None, "result": None, "players": None, **data,
                    "actions": list(data["actions"])})


def replay(record: ToyRecord | dict[str, Any]) -> core_record.Replay:
    """Play ``record`` on the engine, checking every action, the first deal and the
    result; ``ValueError`` at the first thing that fails."""
    rec = record if isinstance(record, ToyRecord) else ToyRecord.from_json(record)
    if rec.episode not in ("game", "round"):
        raise ValueError(f"record field 'episode' must be 'game' or 'round', got {rec.episode!r}")
    eng = ToyEngine(1, seed=0, rules=make_toy_rules(**rec.rules), episode=rec.episode,
                    auto_reset=False)
    eng.reset(deck=rec.deck, dealer=rec.dealer)
    eng.state[0, RNG] = np.int64(np.uint64(core_record.parse_stream(rec.stream)).view(np.int64))
    if rec.deal is not None and rec.deal != _deal_of(eng, 0):
        raise ValueError("the record's first deal is not what its deck and dealer deal")
    states, infos = core_record.replay_actions(eng, rec.actions, action_str,
                                               rec.result is not None)
    if rec.result is not None:
        core_record.check_result(rec.result, infos, [int(x) for x in infos[-1].scores[0]])
    return core_record.Replay(rec, states, infos, eng)


class BatchRecorder(core_record.BatchRecorder):
    """Records every toy game of a batch played through the play loop."""

    def __init__(self, engine: ToyEngine, players: list[list[str]] | None = None,
                 **meta: Any) -> None:
        super().__init__(engine, ToyRecord.start, players, **meta)
