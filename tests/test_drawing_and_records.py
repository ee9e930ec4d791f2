"""The table's pictures (SVG and pixels, the envs' rgb_array) and game records."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from pasur_env import Engine, PasurSingleAgentEnv, pasur_v0
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of
from pasur_env.pasur.drawing import LastMove, places, table_scene, to_rgb, to_svg
from pasur_env.pasur.record import GameRecord, replay
from pasur_env.pasur.score_sheet import round_sheet


def test_svg_shows_only_what_the_viewer_sees() -> None:
    eng = Engine(1, seed=4, num_players=3)
    eng.playout(4, seed=1)
    svg = to_svg(table_scene(eng, 0, viewer=1))
    shown = {int(c) for c in re.findall(r'data-card="(\d+)"', svg)}
    visible = set(eng.hand(0, 1)) | set(cards_of(int(eng.table[0])))
    assert shown == visible  # other hands and the stock: card backs, no ids
    everything = to_svg(table_scene(eng, 0, reveal=True))
    assert {int(c) for c in re.findall(r'data-card="(\d+)"', everything)} >= set(eng.hand(0, 0))


def test_svg_names_its_font_once() -> None:
    """The font is an attribute of the document, which its texts inherit: a table's
    drawing (sent with every view of the web table) does not repeat it a hundred times."""
    eng = Engine(1, seed=4, num_players=4)
    svg = to_svg(table_scene(eng, 0, viewer=0))
    assert svg.count("<text") > 20 and svg.count("font-family=") == 1
    assert re.match(r'<svg [^>]*font-family="DejaVu Sans, Verdana, sans-serif"', svg)


def test_seats_sit_around_the_table_and_the_last_move_is_drawn() -> None:
    assert places(4, 1) == {1: "bottom", 2: "left", 3: "top", 0: "right"}  # partner opposite
    assert places(2, 0) == {0: "bottom", 1: "top"}
    eng = Engine(1, seed=4, num_players=4)
    eng.playout(5, seed=1)
    names = ["you", "greedy", "heuristic", "random"]
    svg = to_svg(table_scene(eng, 0, viewer=0, names=names, last=LastMove(1, 26, (5, 7), True)))
    assert ">partner" in svg and ">opponent" in svg and ">heuristic<" in svg
    assert 'data-played="26"' in svg and ">SUR<" in svg and ">took<" in svg
    # a round's end: no hands (the next deal is not shown), the cards left and their taker
    end = to_svg(table_scene(eng, 0, viewer=0, names=names,
                             last=LastMove(1, 26, (5,), False, (1, 2), 1)))
    assert "Round over" in end and "greedy (opponent), the last capturer" in end
    assert not re.findall(r'data-card="(\d+)"', end)  # nothing to click, no hand drawn


def _texts(items: list) -> list:
    """Every text of a scene, at its place (groups and sprites opened)."""
    from pasur_env.core.drawing import Group, Placed, Text

    out = []
    for i in items:
        if isinstance(i, Group):
            out += _texts(i.items)
        elif isinstance(i, Placed):
            out += [dataclasses.replace(t, x=t.x + i.x, y=t.y + i.y)
                    for t in _texts(list(i.sprite.items))]
        elif isinstance(i, Text):
            out.append(i)
    return out


def _rummy_midgame(seed: int = 3, moves: int = 70):
    """A Persian Rummy deal some way in, with melds of both teams on the table (random
    play that melds, takes and lays off when it can), and the team of each meld."""
    from pasur_env.rummy import kernels as RK
    from pasur_env.rummy.engine import RummyEngine

    eng = RummyEngine(1, seed=seed, auto_reset=False, parallel=False)
    rng = np.random.default_rng(seed)
    teams = []
    for _ in range(moves):
        legal = eng.legal_actions(0)
        keen = [a for a in legal if RK.PICK0 <= a <= RK.MELD_ACTION or RK.TAKE0 <= a < RK.PASS
                or RK.LAYOFF0 <= a < RK.DISCARD0]
        a = int(rng.choice(keen if keen and rng.random() < 0.9 else legal))
        if a == RK.MELD_ACTION:
            teams.append(eng.mover(0) % 2)
        if eng.step(np.array([a])).round_end[0]:
            break
    return eng, teams


def _scenes():
    """Both games' drawings in both layouts: mid-game with the last move, a round's end,
    every hand shown, the longest agent name at every seat."""
    from pasur_env.rummy.drawing import RummyLastMove, rummy_table_scene

    long = ["you", "net-ismcts", "net-ismcts", "net-ismcts"]
    for layout in ("narrow", "wide"):
        for players in (2, 3, 4):
            eng = Engine(1, seed=players, num_players=players)
            eng.playout(6, seed=2)
            names = long[:players]
            yield table_scene(eng, 0, viewer=0, names=names, layout=layout,
                              last=LastMove(1, 26, (5, 7, 9), True))
            yield table_scene(eng, 0, viewer=0, names=names, layout=layout, caption="move 12",
                              last=LastMove(1, 26, (5,), False, (1, 2, 40), 1))
            yield table_scene(eng, 0, reveal=True, layout=layout)
        eng, teams = _rummy_midgame()
        pile = eng.pile(0)
        yield rummy_table_scene(eng, 0, 0, names=long, meld_teams=teams, deals=2, layout=layout,
                                last=RummyLastMove(1, "take", tuple(pile[-5:])), caption="x")
        yield rummy_table_scene(eng, 0, 2, names=long, ended=True, layout=layout)
        yield rummy_table_scene(eng, 0, None, layout=layout)


def test_no_text_under_the_minimum_size_and_every_line_inside_the_drawing() -> None:
    """A phone shows the narrow layout at about 3/4 scale: text of MIN_TEXT units is
    still 11 px there. Every line fits the drawing's width (DejaVu Sans, the font the
    pixels are painted with and the page asks for)."""
    from pasur_env.core.drawing import LAYOUTS, MIN_TEXT, _font

    for scene in _scenes():
        assert scene.width in LAYOUTS.values()
        for t in _texts(scene.items):
            assert t.size >= MIN_TEXT, (t.text, t.size)
            w = _font(round(t.size), t.bold).getlength(t.text)
            left = t.x - {"start": 0, "middle": w / 2, "end": w}[t.anchor]
            assert 0 <= left and left + w <= scene.width + 0.5, (t.text, left, w, scene.width)


def test_the_rummy_table_is_drawn_like_pasurs() -> None:
    """Seats with their agent and role, the hidden hands face down (their cards never
    named) but for the cards taken from the pile, the pile and the stock, both teams'
    melds with a bar in the colour of the team whose points each card is, the last
    move ringed and said."""
    from pasur_env.core.drawing import to_svg
    from pasur_env.rummy.cards import card_code
    from pasur_env.rummy.drawing import TEAM_COLORS, RummyLastMove, rummy_table_scene
    from pasur_env.rummy.kernels import state as RS

    eng, teams = _rummy_midgame()
    names = ["you", "greedy", "rollout", "random"]
    top = eng.pile(0)[-1]
    svg = to_svg(rummy_table_scene(eng, 0, 0, names=names, meld_teams=teams,
                                   last=RummyLastMove(3, "discard", (top,))))
    assert ">greedy<" in svg and ">rollout<" in svg and ">random<" in svg
    assert ">partner<" in svg and svg.count(">opponent<") == 2
    shown = set(re.findall(r'data-card="(\w+)"', svg))
    known = {card_code(c) for s in (1, 2, 3) for c in eng.taken(0, s)}
    hidden = {card_code(c) for s in (1, 2, 3) for c in eng.hand(0, s)} - known
    assert shown.isdisjoint(hidden) and known <= shown
    assert {card_code(c) for c in eng.hand(0, 0) + eng.pile(0)} <= shown
    assert f'data-stock="{int(eng.stock_size[0])}"' in svg
    assert "Your team&#x27;s melds" in svg and "Their team&#x27;s melds" in svg
    credit0 = int(eng.state[0, RS.CREDIT])
    melded = [c for m in eng.melds(0) for c in m]
    assert melded and teams
    bars = re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="50.0" height="7.0" rx="2.0" '
                      r'fill="(#\w+)"/>', svg)
    want = [TEAM_COLORS[0 if (credit0 >> c) & 1 else 1] for c in melded]  # seat 0: team 0
    assert sorted(bars) == sorted(want)  # one bar per melded card, in its team's colour
    assert "random (opponent, right) discarded" in svg  # the last move, said and ringed
    ring = re.search(rf'data-card="{card_code(top)}"><g transform="[^"]+">'
                     r'<rect [^>]*fill="(#\w+)"', svg)
    assert ring and ring.group(1) == "#e67e22"
    every = to_svg(rummy_table_scene(eng, 0, None))  # a replay: every hand face up
    assert {card_code(c) for s in range(4) for c in eng.hand(0, s)} <= set(
        re.findall(r'data-card="(\w+)"', every))


def test_rgb_array_frames() -> None:
    env = pasur_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # a picture, not a blank
    single = PasurSingleAgentEnv(render_mode="rgb_array")
    single.reset(seed=0)
    assert single.render().shape == to_rgb(table_scene(single.engine, 0, viewer=0)).shape
    assert single.svg().startswith("<svg")


def test_score_sheets_add_up_to_the_engine_count() -> None:
    for players in (2, 3, 4):
        eng = Engine(32, seed=players, episode="round", auto_reset=False, num_players=players)
        rng = np.random.default_rng(0)
        while (eng.phase != K.DONE).any():
            live = np.flatnonzero(eng.phase != K.DONE)
            info = eng.step(eng.random_actions(rng)[live], games=live)
            for row in np.flatnonzero(info.round_end):
                sheet = round_sheet(info, row, eng.rules)
                for side in sheet:
                    parts = (side["club_points"] + side["ten_diamonds"] + side["two_clubs"]
                             + side["aces"] + side["jacks"] + side["sur_points"])
                    assert parts == side["total"] == info.round_points[row, side["side"]]
                assert sum(s["cards"] for s in sheet) <= 52


def test_records_replay_and_refuse_tampering() -> None:
    eng = Engine(1, seed=9, episode="game", auto_reset=False, target_score=25)
    rec = GameRecord.start(eng, players=["random", "random"])
    rng = np.random.default_rng(1)
    rounds = 0
    while eng.phase[0] != K.DONE:
        a = eng.random_actions(rng)
        rec.actions.append(int(a[0]))
        info = eng.step(a)
        rounds += int(info.round_end[0])
    rec.finish(info, 0, rounds)
    data = rec.to_json()
    rep = replay(data)
    assert np.array_equal(rep.states[-1], eng.state[0])
    assert [card_code(c) for c in rep.position(0).hand(0, 0)] == data["deal"]["hands"][0]
    bad = {**data, "actions": data["actions"][:5] + [999] + data["actions"][6:]}
    with pytest.raises(ValueError, match=r"move 5 \(player_\d, <invalid action 999>\) is illegal"):
        replay(bad)
    with pytest.raises(ValueError, match="do not finish"):
        replay({**data, "actions": data["actions"][:-3]})
    with pytest.raises(ValueError, match="format"):
        replay({**data, "format": "other"})
    with pytest.raises(ValueError, match="rules"):
        replay({**data, "rules": {"num_players": 7}})
    res = data["result"]
    for field, forged in (("winner_side", 1 - res["winner_side"]), ("rounds", rounds + 1)):
        with pytest.raises(ValueError, match=f"result.{field}"):
            replay({**data, "result": {**res, field: forged}})


def test_a_rummy_record_with_a_forged_winner_or_round_count_is_refused(tmp_path) -> None:
    from agents.evaluation.match import evaluate
    from pasur_env.rummy.record import replay as rummy_replay

    evaluate("greedy", "random", rounds=4, seed=2, progress=False, save_games=tmp_path,
             game="persian_rummy")
    data = json.loads(next(tmp_path.glob("*.jsonl")).read_text().splitlines()[0])
    res = rummy_replay(data).record.result
    for field, forged in (("winner_side", 1 - res["winner_side"]), ("rounds", 99)):
        with pytest.raises(ValueError, match=f"result.{field}"):
            rummy_replay({**data, "result": {**res, field: forged}})


def test_a_given_deck_is_recorded_and_replayed() -> None:
    deck = [card_code(c) for c in range(51, -1, -1)]
    eng = Engine(1, seed=0, episode="round", auto_reset=False)
    eng.reset(deck=deck, dealer=0)
    rec = GameRecord.start(eng)
    assert rec.deck == deck and rec.dealer == 0
    rep = replay(rec.to_json())
    assert np.array_equal(rep.states[0], eng.state[0])


def test_rummy_records_round_trip_and_replay() -> None:
    from pasur_env.core.record import game_of
    from pasur_env.rummy import RummyEngine
    from pasur_env.rummy.record import BatchRecorder, RummyGameRecord
    from pasur_env.rummy.record import replay as replay_rummy

    eng = RummyEngine(2, seed=3, episode="game", auto_reset=False, deals=2)
    start = eng.state.copy()
    rec = BatchRecorder(eng, [["a", "b", "a", "b"]] * 2, seed=3)
    rng = np.random.default_rng(0)
    games = np.arange(2)
    while not eng.done.all():
        live = games[~eng.done]
        acts = eng.random_actions(rng, games=live)
        rec.decisions(0, type("V", (), {"games": live})(), None, None, acts)
        rec.step(live, eng.step(acts, games=live))
    for g, r in enumerate(rec.records):
        data = r.to_json()
        assert game_of(data) == "persian_rummy" and data["result"]["rounds"] == 2
        assert RummyGameRecord.from_json(data) == r
        rep = replay_rummy(data)
        assert np.array_equal(rep.states[0], start[g]) and np.array_equal(
            rep.states[-1], eng.state[g])
        assert rep.position(0).hand(0, 0) == RummyEngine(
            2, seed=3, episode="game", auto_reset=False).hand(g, 0)
    data = rec.records[0].to_json()
    with pytest.raises(ValueError, match=r"move 4 \(player_\d, .*\) is illegal"):
        replay_rummy({**data, "actions": data["actions"][:4] + [9999] + data["actions"][5:]})
    with pytest.raises(ValueError, match="do not finish"):
        replay_rummy({**data, "actions": data["actions"][:-2]})
    with pytest.raises(ValueError, match="format"):
        replay_rummy({**data, "format": "pasur-record/1"})
    with pytest.raises(ValueError, match="deck"):
        replay_rummy({**data, "deck": data["deck"][:10]})
