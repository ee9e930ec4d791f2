"""The search best response (:mod:`agents.core.search_br`, ``pasur best-response --method
search``) and the engine call it stands on, ``BatchEngine.determinize``, for both games:
positions that keep what the seat has seen; a filter that never drops the true position
of a deterministic agent's game; a clear gain against an agent with an obvious flaw; the
saved ``.json`` exploiter through every command; bad input in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from agents import Agent
from agents.apps.cli import main
from agents.core.search_br import SearchBestResponse
from agents.evaluation.match import evaluate
from agents.learned.exploiter import read_search_exploiter
from agents.registry import build_agent
from pasur_env import Engine
from pasur_env.core.policy import GameView
from pasur_env.rummy import RummyEngine

ROOT = Path(__file__).resolve().parents[1]


def _midgame(engine_class: type, steps: int, **flags) -> object:
    eng = engine_class(6, seed=5, **flags)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        eng.step(eng.random_actions(rng))
    return eng


@pytest.mark.parametrize(("engine_class", "steps"), [(Engine, 9), (RummyEngine, 30)])
def test_determinize_keeps_what_the_seat_sees_and_deals_the_rest(engine_class, steps) -> None:
    eng = _midgame(engine_class, steps)
    for g in range(eng.num_games):
        for seat in range(eng.num_players):
            copies = eng.determinize(g, 40, seat, seed=g)
            assert copies.num_games == 40
            seen = eng.observe([g], [seat])
            assert (copies.observe(None, np.full(40, seat)) == seen).all()
            if seat == eng.mover(g):
                assert (copies.legal_mask() == eng.legal_mask([g])).all()
            others = [s for s in range(eng.num_players) if s != seat]
            hidden = {tuple(copies.observe(None, np.full(40, s))[i]) for i in range(40)
                      for s in others}
            assert len(hidden) > 1  # the other seats' cards were dealt again
    again = eng.determinize(0, 5, 0, seed=3)
    assert (again.state == eng.determinize(0, 5, 0, seed=3).state).all()  # seeded
    assert (eng.seat_sides == (np.arange(eng.num_players) % 2 if engine_class is RummyEngine
                               else np.arange(eng.num_players))).all()


@pytest.mark.parametrize(("args", "error", "message"), [
    ((0, 0), ValueError, "copies"),
    ((9, 3), ValueError, "game"),
    ((0, 3, 2), ValueError, "seat"),
    ((0, 3, "a"), TypeError, "seat"),
    ((0, 3, 0, -1), ValueError, "seed"),
])
def test_determinize_refuses_bad_arguments_in_its_words(args, error, message) -> None:
    eng = Engine(2, seed=1)
    with pytest.raises(error, match=message):
        eng.determinize(*args)


def test_the_filter_never_drops_the_true_position_of_a_deterministic_agent() -> None:
    """Against greedy (deterministic), the real game itself, remembered as a position, is
    always among the positions kept: the agent replayed in it plays what it played."""
    target = build_agent("greedy", seed=0)
    br = SearchBestResponse(target, 4, seed=1)
    eng = Engine(8, seed=2, preset="small", episode="round", auto_reset=False)
    checked = kept_less = 0
    while not eng.done.all():
        games = np.flatnonzero(~eng.done)
        seats = eng.current_player[games]
        ours = games[seats == 0]
        if ours.size:
            view = GameView(eng, ours)
            if br._memory:
                true_rows = {int(g): eng.state[g] for g in ours}
                kept = br._filtered(eng, ours, view.seats)
                for i, g in enumerate(ours):
                    rows = kept.get(i)
                    if (id(eng), int(g), 0) in br._memory:
                        assert rows is not None and (rows == true_rows[int(g)]).all(1).any()
                        checked += 1
                        kept_less += len(rows) < br.pool
            before = dict(br._memory)
            acts = br.act(None, eng.legal_mask(ours), view)
            for key, (ref, rows) in list(br._memory.items()):  # the true one joins new ones
                if before.get(key) is not br._memory[key]:
                    true = eng.take([key[1]])
                    if key[1] in ours:
                        true.step([acts[int(np.flatnonzero(ours == key[1])[0])]])
                    br._memory[key] = (ref, np.vstack([rows, true.state]))
            eng.step(acts, games=ours)
        theirs = games[seats == 1]
        if theirs.size:
            eng.step(target.act(None, eng.legal_mask(theirs), GameView(eng, theirs)),
                     games=theirs)
    assert checked > 10 and kept_less > 0  # the filter ran, and it ruled positions out


def test_the_survivors_are_copied_back_to_the_pool_s_size() -> None:
    """Against a stochastic agent (random) the filter keeps few positions; they are copied
    back to the full pool, so the next filter starts from as many."""
    br = SearchBestResponse(build_agent("random", seed=0), 4, pool=32, seed=1)
    res = evaluate(br, "random", rounds=40, preset="small", seed=3, progress=False)
    assert res.rounds == 40 and br.stats["filtered"] > 0
    assert br.stats["kept"] < br.stats["filtered"] * br.pool  # the filter ruled some out
    assert {len(rows) for _, rows in br._memory.values()} == {br.pool}


class LowestCard(Agent):
    """Always the lowest legal action id: an agent with an obvious flaw."""

    name, game_ids = "lowest", ("pasur",)

    def act(self, obs, mask, view):
        return np.argmax(mask, axis=1).astype(np.int64)


@pytest.mark.parametrize(("posterior", "margin"), [(True, 0.0), (False, 0.0), (True, 2.0)])
def test_the_search_gains_clearly_against_an_exploitable_agent(posterior: bool,
                                                               margin: float) -> None:
    """On ``mini`` the search beats LowestCard by far more than LowestCard's own moves
    (the continuation alone) do: a search that chose badly would not."""
    br = SearchBestResponse(LowestCard(), 8, posterior=posterior, margin=margin, seed=0)
    res = evaluate(br, LowestCard(), rounds=200, preset="mini", seed=4, progress=False)
    assert res.ci95[0] > 1.0, res.summary()
    assert br.stats["decisions"] > 0 and (br.stats["filtered"] > 0) == posterior


def test_persian_rummy_teams_deal_afresh_and_play() -> None:
    """A team's seats are not one seat: no filter, fresh positions, legal play."""
    br = SearchBestResponse(build_agent("greedy", seed=1, game="persian_rummy"), 2, seed=0)
    res = evaluate(br, "greedy", rounds=2, game="persian_rummy", seed=1, progress=False,
                   deals=1)
    assert res.rounds == 2 and br.stats["decisions"] > 0 and br.stats["filtered"] == 0


def _user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(ROOT / "examples" / "my_agent.py", tmp_path / "my_agent.py")
    monkeypatch.chdir(tmp_path)


def test_the_command_saves_a_search_exploiter_every_command_plays(tmp_path: Path, monkeypatch,
                                                                  capsys) -> None:
    pytest.importorskip("torch")  # the command lives in train.best_response
    _user_folder(tmp_path, monkeypatch)
    code = main(["best-response", "./my_agent.py:MostCards", "--preset", "mini", "--method",
                 "search", "--particles", "2", "--continuation", "greedy", "--rounds", "8",
                 "--depth", "2",
                 "--save", "br.json",
                 "--json", "out.json", "--no-progress"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "search best response to ./my_agent.py:MostCards" in out.out
    res = json.loads((tmp_path / "out.json").read_text())
    assert res["method"] == "search" and res["budget"] == {"particles": 2}
    assert res["evaluation"]["a"] == f"br:{tmp_path / 'br.json'}" and res["rounds"] == 8
    head = read_search_exploiter(tmp_path / "br.json")
    assert head["agent"] == "./my_agent.py:MostCards" and head["particles"] == 2
    assert head["continuation"] == "greedy" and "greedy playing its later moves" in out.out
    assert head["depth"] == 2 and "its next 2 decisions planned" in out.out
    assert main(["eval", "br:br.json", "./my_agent.py:MostCards", "--preset", "mini",
                 "--rounds", "2", "--no-progress"]) == 0, capsys.readouterr().err
    made = build_agent("br:br.json:particles=3,posterior=false", seed=1)
    assert isinstance(made, SearchBestResponse) and made.particles == 3 and made.depth == 2
    assert made.continuation.name == "greedy" and made.target.name != "greedy"
    assert not made.posterior and made.player_counts == (2,)


@pytest.mark.parametrize(("argv", "message"), [
    (["--particles", "0"], "--particles must be a positive int"),
    (["--minutes", "1"], "--minutes: not an option of --method search"),
    (["--teacher", "greedy"], "--teacher: not an option of --method search"),
    (["--continuation", "nosuch"], "nosuch"),
    (["--margin", "-1"], "--margin must be a number >= 0"),
    (["--depth", "0"], "--depth must be a positive int"),
])
def test_bad_search_input_is_one_clear_line(argv, message, tmp_path: Path, monkeypatch,
                                            capsys) -> None:
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    code = main(["best-response", "greedy", "--method", "search", "--rounds", "2",
                 "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_particles_without_search_and_a_bad_file_are_refused(tmp_path: Path, monkeypatch,
                                                             capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text("{}")
    for argv, message in (
            (["best-response", "greedy", "--particles", "4"], "settings of --method search"),
            (["best-response", "greedy", "--continuation", "net"],
             "settings of --method search"),
            (["best-response", "greedy", "--margin", "2"], "settings of --method search"),
            (["best-response", "greedy", "--depth", "2"], "settings of --method search"),
            (["eval", "br:x.json", "greedy", "--rounds", "2"], "is not a search exploiter"),
            (["eval", "br:nope.json", "greedy", "--rounds", "2"], "no exploiter file")):
        if argv[0] == "best-response":
            pytest.importorskip("torch")
        assert main([*argv, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err



def test_the_margin_keeps_the_continuation_s_move_unless_the_search_is_sure() -> None:
    """``_choose`` on made-up rollout values (legal action x position): with a margin the
    continuation's move (LowestCard: the lowest legal id) stays unless the best action's
    paired difference from it clears ``margin`` standard errors."""
    mask = np.zeros((1, 104), dtype=bool)
    mask[0, [3, 7]] = True  # the continuation plays 3
    noisy = np.array([[0.0, 0.0, 0.0, 0.0], [4.0, -3.0, 4.0, -3.0]])  # mean +0.5, se 2
    sure = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.2, 0.8, 1.0]])
    for margin, values, played in ((0.0, noisy, 7), (2.0, noisy, 3), (2.0, sure, 7)):
        br = SearchBestResponse(LowestCard(), 4, margin=margin, seed=0)
        assert br._choose(values, mask, None).tolist() == [played], (margin, values)
    with pytest.raises(ValueError, match="margin must be a number >= 0"):
        SearchBestResponse(LowestCard(), 4, margin=-1)


def _one_step_values(br: SearchBestResponse, eng, seat: int) -> np.ndarray:
    """Each position's value after each of its legal actions, the continuation then playing
    (``_values`` with depth 1), as (positions, actions) with -inf where illegal."""
    mask = eng.legal_mask()
    row, act = np.nonzero(mask)
    vals = br._values(eng.take(row), act, np.full(len(row), seat), np.zeros(len(row), int), 1)
    out = np.full(mask.shape, -np.inf)
    out[row, act] = vals
    return out


def test_a_plan_chooses_one_action_per_information_set() -> None:
    """``_plan`` on positions the seat cannot tell apart (one deal, its cards dealt again)
    picks one action for all of them, the best in sum, not the best in each; positions on
    different paths choose apart (each its own best)."""
    eng = Engine(1, preset="mini", seed=3)
    seat = int(eng.mover(0))
    sub = eng.determinize(0, 6, seat, seed=1)
    br = SearchBestResponse(LowestCard(), 4, seed=0)
    q = _one_step_values(br, sub, seat)
    assert np.isfinite(q).sum(axis=1).min() > 1  # a choice to make
    seats = np.full(6, seat)
    together = br._plan(sub.take(np.arange(6)), seats, np.zeros(6, int), 1)
    assert np.allclose(together, q[:, int(np.argmax(q.sum(axis=0)))])
    apart = br._plan(sub.take(np.arange(6)), seats, np.arange(6), 1)
    assert np.allclose(apart, q.max(axis=1))


def test_a_plan_over_a_known_position_is_the_perfect_information_best_response() -> None:
    """One position, the whole round planned: the plan's value is the best the exploiter
    can do against the frozen agent's replies there, by brute force over the engine."""
    eng = Engine(1, preset="mini", seed=7)
    seat = int(eng.mover(0))
    target = LowestCard()

    def best(e) -> float:  # brute force: every own action, the agent's replies
        while not e.done[0] and e.mover(0) != seat:
            info = e.step(target.act(None, e.legal_mask(), GameView.all(e)))
            if info.round_end[0]:
                return float(info.round_points[0, seat] - info.round_points[0, 1 - seat])
        values = []
        for a in np.flatnonzero(e.legal_mask()[0]):
            child = e.take([0])
            info = child.step(np.array([a]))
            values.append(float(info.round_points[0, seat] - info.round_points[0, 1 - seat])
                          if info.round_end[0] else best(child))
        return max(values)

    br = SearchBestResponse(target, 1, depth=8, seed=0)
    assert br._plan(eng.take([0]), np.array([seat]), np.zeros(1, int), 8)[0] == best(
        eng.take([0]))


def test_planning_gains_against_an_exploitable_agent_and_refuses_teams() -> None:
    br = SearchBestResponse(LowestCard(), 8, depth=4, seed=0)
    res = evaluate(br, LowestCard(), rounds=100, preset="mini", seed=4, progress=False)
    assert res.ci95[0] > 1.0, res.summary()
    team = SearchBestResponse(build_agent("greedy", seed=1, game="persian_rummy"), 2,
                              depth=2, seed=0)
    with pytest.raises(ValueError, match="depth 2 needs the exploiter's side to be one seat"):
        evaluate(team, "greedy", rounds=2, game="persian_rummy", seed=1, progress=False,
                 deals=1)
    with pytest.raises(ValueError, match="depth must be a positive int"):
        SearchBestResponse(LowestCard(), 4, depth=0)
