"""Games are plug-ins: a toy game nobody wrote the shared code for gets everything.

``tests/toy_game`` is three-card fishing for two players: a numpy batched engine, thin
subclasses of the shared envs, a record module, a scripted agent and its rows of the
plug-in tables. It is registered here by the tables' one-line registrations alone
(:func:`toy_game.register`), with no edit to shared code, and then passes what the real
games pass: PettingZoo's ``api_test``, Gymnasium's ``check_env``, the SB3 vector env,
``make_agent``, ``evaluate``, ``tournament``, ``pasur eval --game toy`` through the
command line's ``main``, records and their replay.
"""

from __future__ import annotations

import importlib.util
import json
import warnings
from importlib.metadata import EntryPoint

import numpy as np
import pytest
import toy_game

from agents import make_agent
from agents.apps.cli import main
from agents.evaluation.match import duplicate_engine, evaluate
from agents.evaluation.tournament import tournament
from agents.registry import agent_names
from pasur_env.core import plugins
from pasur_env.games import GAME_IDS, game_info

#: what depends on when and how fast a match ran (the date is to the second: two runs
#: a moment apart can straddle one)
TIMING = {"seconds", "decisions_per_s", "seconds_per_decision", "date"}


@pytest.fixture(scope="module", autouse=True)
def _registered():
    toy_game.register()
    yield
    toy_game.unregister()


def _numbers(res) -> dict:
    return {k: v for k, v in res.to_json().items() if k not in TIMING}


def test_the_toy_game_is_in_every_table() -> None:
    assert "toy" in GAME_IDS and GAME_IDS[-1] == "toy"
    assert game_info("toy").title == "Three-card fishing"
    assert agent_names("toy") == ["random", "greedy"]


def test_the_aec_env_passes_pettingzoo_api_test() -> None:
    from pettingzoo.test import api_test

    module = game_info("toy").aec_env_module()
    api_test(module.env(), num_cycles=300)
    api_test(module.env(episode="round", reward="diff"), num_cycles=100)


def test_the_gymnasium_env_passes_check_env() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    # check_step_determinism samples its action before a seeded reset: as for the real
    # games, "random" replaces an illegal one
    env = gymnasium.make(game_info("toy").gym_id, illegal_action="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)
    if importlib.util.find_spec("stable_baselines3") is not None:
        from stable_baselines3.common.env_checker import check_env as sb3_check_env

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sb3_check_env(game_info("toy").single_agent_class()(), warn=True)
    obs, info = env.reset(seed=3)
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        obs, reward, term, trunc, info = env.step(action)
        total, done = total + reward, term or trunc
    assert env.observation_space.contains(obs) and "round_points" in info


def test_the_vector_env_steps_and_trains() -> None:
    pytest.importorskip("stable_baselines3")
    venv = game_info("toy").vector_env_class()(num_envs=4, seed=5)
    single = game_info("toy").single_agent_class()()
    venv.seed(5)
    first = venv.reset()
    venv.seed(5)
    assert np.array_equal(venv.reset(), first)  # the seeded deals again
    for i in range(4):  # game i deals as the single-agent env seeded 5 + i
        assert np.array_equal(single.reset(seed=5 + i)[0], first[i])
    ended = 0
    for _ in range(12):
        masks = venv.action_masks()
        obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        assert obs.shape == (4, venv.observation_space.shape[0]) and rewards.shape == (4,)
        ended += int(dones.sum())
        assert all("terminal_observation" in infos[i] for i in np.flatnonzero(dones))
    assert ended >= 4
    sb3_contrib = pytest.importorskip("sb3_contrib")
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, seed=0,
                                    policy_kwargs={"net_arch": [16]})
    model.learn(64)


def test_make_agent_builds_its_agents() -> None:
    assert make_agent("greedy", game="toy").name == "greedy"
    assert make_agent("random", game="toy", seed=1).name == "random"
    with pytest.raises(ValueError, match="unknown Three-card fishing agent 'heuristic'"):
        make_agent("heuristic", game="toy")


def test_evaluate_plays_duplicate_deals() -> None:
    res = evaluate("greedy", "random", rounds=2000, seed=0, game="toy", progress=False)
    assert res.game == "toy" and res.players == 2 and res.seatings == ["AB", "BA"]
    assert res.rules == {"deals": 2} and res.rounds == 2000
    assert res.ci95[0] > 0  # taking when one can beats playing at random
    # the deals do not depend on the batch: deal g is game g of the seed's streams
    whole = duplicate_engine(10, 2, seed=0, game="toy")
    part = duplicate_engine(4, 2, seed=0, offset=3, game="toy")
    assert np.array_equal(part.state, whole.state[6:14])
    games = evaluate("greedy", "random", rounds=10, seed=1, game="toy", mode="game", games=10,
                     progress=False)
    assert games.games == 10 and "games of 2 deals" in games.summary()


def test_the_search_best_response_exploits_its_agents() -> None:
    """The search best response reads the game through the engine API alone (its
    ``determinize`` and ``seat_sides``): against random it wins clearly."""
    from agents.core.search_br import SearchBestResponse

    br = SearchBestResponse(make_agent("random", game="toy", seed=1), 4, seed=0)
    res = evaluate(br, "random", rounds=200, seed=0, game="toy", progress=False)
    assert res.ci95[0] > 0.5, res.summary()


def test_tournament_ranks_the_agents() -> None:
    res = tournament(["random", "greedy"], rounds=400, bootstrap=20, game="toy",
                     progress=False)
    assert res.agents[res.order()[0]] == "greedy"
    assert res.table().startswith("Three-card fishing: 2 agents, 2 players")


def test_pasur_eval_and_replay_on_the_command_line(tmp_path, capsys) -> None:
    assert main(["agents", "--game", "toy"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert rows[:2] == [["random", "@1", "toy", "built-in"], ["greedy", "-", "toy", "built-in"]]
    assert main(["eval", "--game", "toy", "greedy", "random", "--rounds", "200", "--seed", "0",
                 "--no-progress", "--json", "-", "--save-games", str(tmp_path)]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    api = evaluate("greedy", "random", rounds=200, seed=0, game="toy", progress=False)
    assert {k: v for k, v in data.items() if k not in TIMING} == _numbers(api)
    assert "Three-card fishing: greedy vs random, 200 rounds" in out.err
    path = tmp_path / "greedy_vs_random_seed0.jsonl"
    assert len(path.read_text().splitlines()) == 200
    assert main(["replay", str(path), "--index", "7", "--all"]) == 0
    text = capsys.readouterr().out
    assert "Three-card fishing, 6 actions" in text and "[6/6] after move 6" in text
    assert "PLAY " in text and "player_1:" in text
    assert main(["eval", "--game", "toy", "greedy", "random", "--players", "3"]) == 2
    assert "does not take --players 3" in capsys.readouterr().err
    assert main(["eval", "--game", "toy", "greedy", "random", "--preset", "x"]) == 2
    assert "does not take --preset" in capsys.readouterr().err


def test_records_replay_and_a_wrong_one_is_refused(tmp_path) -> None:
    evaluate("greedy", "random", rounds=4, seed=2, game="toy", mode="game", games=4,
             progress=False, save_games=tmp_path)
    module = game_info("toy").record_module()
    lines = (tmp_path / "greedy_vs_random_seed2.jsonl").read_text().splitlines()
    for line in lines:
        data = json.loads(line)
        rep = module.replay(data)
        assert data["format"] == "toy-record/1" and rep.engine.done[0]
        assert rep.record.result["rounds"] == 2 and len(rep.states) == 13
    data = json.loads(lines[0])
    with pytest.raises(ValueError, match="illegal"):
        module.replay({**data, "actions": data["actions"][:1] * 2 + data["actions"][2:]})
    with pytest.raises(ValueError, match="scores"):
        module.replay({**data, "result": {**data["result"], "scores": [99, 0]}})


# ---- the plug-in tables themselves --------------------------------------------------------------
def test_an_installed_game_registers_through_its_entry_point(monkeypatch) -> None:
    found = [EntryPoint("toy", "toy_game.game:GAME", "pasur_env.games"),
             EntryPoint("broken", "toy_game.nosuch:GAME", "pasur_env.games")]
    monkeypatch.setattr(plugins, "entry_points",
                        lambda group: [e for e in found if e.group == group])
    table = plugins.PluginTable("game", ("pasur_env.pasur.game",), "GAME", "pasur_env.games")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert list(table) == ["pasur", "toy"]
    assert any("'broken'" in str(w.message) for w in caught)
    assert table.row("toy").title == "Three-card fishing"
    with pytest.raises(ValueError, match="unknown game 'nosuch': choose one of pasur, toy"):
        table.row("nosuch")


def test_a_row_is_checked_when_registered() -> None:
    from dataclasses import replace

    from toy_game.game import GAME

    from pasur_env.games import register_game

    with pytest.raises(ValueError, match="already registered"):
        register_game(replace(GAME, title="another"))
    with pytest.raises(ValueError, match="lowercase letters"):
        register_game(replace(GAME, id="Toy-2"))
    with pytest.raises(TypeError, match="GameInfo"):
        register_game("toy")  # type: ignore[arg-type]
    from agents.games import register_game as register_agents
    from train.move_net.games import register_game as register_net
    from train.ppo.games import register_game as register_ppo

    for register, kind in ((register_agents, "AgentGame"), (register_net, "NetGame"),
                           (register_ppo, "PpoGame")):
        with pytest.raises(TypeError, match=f"register_game\\(\\) takes a {kind}, got GameInfo"):
            register(GAME)  # type: ignore[arg-type]
