"""Policies are checked before the kernels: an agent of another game, table size or
observation layout is refused where it is seated, and whatever a policy returns is
checked like the learner's action (integers, the right shape, in range, legal)
before an engine sees it.

Each test here failed before the checks: a wrong-game agent was accepted and broke at
its first move (an illegal action, an ``AttributeError``, an ``IndexError`` or a
``MemoryError`` of a kernel reading out of bounds), and a policy's floats, bools,
object arrays and wrongly shaped arrays were coerced and played.
"""

from __future__ import annotations

import io
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from agents import make_agent
from agents.apps.terminal import HumanGame
from agents.apps.web.rummy_table import RummyTable
from agents.evaluation.match import evaluate
from agents.evaluation.tournament import tournament
from pasur_env import Engine, PasurSingleAgentEnv, PersianRummySingleAgentEnv
from pasur_env.core.loop import decide, play
from pasur_env.core.policy import CallablePolicy, RandomPolicy
from pasur_env.games import GAMES
from pasur_env.rummy import RummyEngine

PRETRAINED = Path(__file__).resolve().parents[1] / "agents" / "pretrained"


def vec_env(game: str):  # noqa: ANN201
    pytest.importorskip("stable_baselines3")
    from pasur_env import PasurVecEnv, PersianRummyVecEnv

    return {"pasur": PasurVecEnv, "persian_rummy": PersianRummyVecEnv}[game]


def pasur_agent(name: str = "greedy"):  # noqa: ANN201
    return make_agent(name, seed=0)


def rummy_agent(name: str = "rollout"):  # noqa: ANN201
    return make_agent(name, game="persian_rummy", seed=0)


# ---- 1. an agent of the other game is refused where it is seated ---------------------------
def test_rummy_gym_env_refuses_a_pasur_agent():
    with pytest.raises(ValueError, match="opponent 'heuristic' plays pasur, not persian_rummy"):
        gymnasium.make("pasur_env/PersianRummy-v0", opponent=pasur_agent("heuristic"))
    with pytest.raises(ValueError, match="partner 'greedy' plays pasur, not persian_rummy"):
        PersianRummySingleAgentEnv(partner=pasur_agent())
    env = PersianRummySingleAgentEnv()
    with pytest.raises(ValueError, match="partner 'greedy' plays pasur"):
        env.games.partner = pasur_agent()
    with pytest.raises(ValueError, match="opponent 'greedy' plays pasur"):
        env.games.opponent = pasur_agent()
    env.reset(seed=0)  # the env kept its players and plays on
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_rummy_vec_env_refuses_pasur_greedy():
    with pytest.raises(ValueError, match="opponent 'greedy' plays pasur, not persian_rummy"):
        vec_env("persian_rummy")(num_envs=2, opponent=pasur_agent())


@pytest.mark.parametrize("name", ["rollout", "greedy", "ismcts", "net"])
def test_pasur_envs_refuse_a_rummy_agent(name):
    with pytest.raises(ValueError, match=f"opponent '{name}' plays persian_rummy, not pasur"):
        PasurSingleAgentEnv(opponent=rummy_agent(name))
    with pytest.raises(ValueError, match=f"opponent '{name}' plays persian_rummy, not pasur"):
        vec_env("pasur")(num_envs=2, opponent=rummy_agent(name))


def test_rummy_rollout_is_refused_at_a_pasur_match_and_loop():
    """It read Pasur's state with Rummy's layout: IndexError, once MemoryError."""
    with pytest.raises(ValueError, match="agent A 'rollout' plays persian_rummy, not pasur"):
        evaluate(rummy_agent(), "greedy", rounds=4, seed=0, progress=False)
    with pytest.raises(ValueError, match="agent B 'greedy' plays pasur, not persian_rummy"):
        evaluate("random", pasur_agent(), rounds=4, seed=0, progress=False,
                 game="persian_rummy")
    with pytest.raises(ValueError, match="'rollout' plays persian_rummy, not pasur"):
        tournament([rummy_agent(), "greedy", "random"], rounds=2, seed=0, progress=False)
    eng = Engine(2, seed=0, episode="round", auto_reset=False)
    before = eng.state.copy()
    with pytest.raises(ValueError, match="agent 'rollout' plays persian_rummy, not pasur"):
        play(eng, [rummy_agent()], np.zeros((2, 2), dtype=np.int64))
    np.testing.assert_array_equal(eng.state, before)


def test_tables_refuse_an_agent_of_the_other_game():
    with pytest.raises(ValueError, match="seat 1 'heuristic' plays pasur, not persian_rummy"):
        RummyTable(seat=0, opponents=pasur_agent("heuristic"), seed=1, any_spec=True)
    with pytest.raises(ValueError, match="seat 1 'rollout' plays persian_rummy, not pasur"):
        HumanGame(rummy_agent(), players=2, seed=1, input_stream=io.StringIO(),
                  output_stream=io.StringIO())


def test_opponent_pool_refuses_an_agent_of_the_other_game():
    pytest.importorskip("stable_baselines3")
    from train.common.pool import OpponentPool

    with pytest.raises(ValueError, match="pool opponent 'greedy' plays persian_rummy"):
        OpponentPool([rummy_agent("greedy")], game="pasur")


# ---- 2. the wrong table size or observation layout ------------------------------------------
def test_a_two_player_model_is_refused_at_a_three_player_table():
    pytest.importorskip("stable_baselines3")
    with pytest.raises(ValueError, match="opponent 'ppo' reads 957 observation features; "
                                         "this 3-player pasur game encodes 1015"):
        PasurSingleAgentEnv(opponent=pasur_agent("ppo"), num_players=3)
    net = make_agent(str(PRETRAINED / "net_2p.npz"))
    with pytest.raises(ValueError, match="plays 2-player pasur, not 3-player"):
        vec_env("pasur")(num_envs=2, opponent=net, num_players=3)
    with pytest.raises(ValueError, match="agent A 'net' plays 2-player pasur, not 4-player"):
        evaluate(net, "random", players=4, rounds=4, seed=0, progress=False)
    PasurSingleAgentEnv(opponent=net)  # its own size is welcome


def test_non_policies_and_malformed_declarations_raise_type_errors():
    from pasur_env.core.policy import check_policy_fits  # new with the checks

    with pytest.raises(TypeError, match="the opponent must follow the pasur_env.Policy"):
        check_policy_fits(object(), "pasur", role="opponent")

    class Odd(RandomPolicy):
        game_ids = 3

    with pytest.raises(TypeError, match="game_ids must be None or a tuple of str"):
        check_policy_fits(Odd(), "pasur")


def test_every_builtin_agent_declares_its_game():
    for game in GAMES:
        assert GAMES[game].engine_class().GAME_ID == game
    for game, names in (("pasur", ["greedy", "heuristic", "ismcts", "net", "net-ismcts",
                                   "ppo"]),
                        ("persian_rummy", ["greedy", "rollout", "ismcts", "net"])):
        for name in names:
            if name == "ppo":
                pytest.importorskip("stable_baselines3")
            agent = make_agent(name, game=game, seed=0)
            assert agent.game_ids == (game,), (game, name)
    assert make_agent("random").game_ids is None  # it reads only the mask: any game


# ---- 3. a policy's output is checked like the learner's, never coerced ---------------------
class Returns(RandomPolicy):
    """A policy that returns ``fn(legal actions)``."""

    name = "hostile"

    def __init__(self, fn) -> None:  # noqa: ANN001
        super().__init__(0)
        self.fn = fn

    def act(self, obs, mask, view):  # noqa: ANN001, ANN201
        return self.fn(super().act(obs, mask, view))


COERCED = {
    "x+0.5": (lambda a: a + 0.5, TypeError, "integer array, got an array of dtype float64"),
    "whole floats": (lambda a: a.astype(np.float64), TypeError, "dtype float64"),
    "np.bool_": (lambda a: np.bool_(True), TypeError, r"got (np\.)?True_? \(bool"),
    "bool array": (lambda a: np.ones(a.shape, dtype=bool), TypeError, "dtype bool"),
    "bools in a list": (lambda a: [True] * len(a), TypeError, "not bools"),
    "None": (lambda a: None, TypeError, r"got None \(NoneType\)"),
    "object": (lambda a: a.astype(object), TypeError, "dtype object"),
    "column": (lambda a: a[:, None], ValueError, r"must have shape \(3,\), got \(3, 1\)"),
    "too many": (lambda a: np.append(a, a), ValueError, r"must have shape \(3,\)"),
}


@pytest.mark.parametrize("engine", [Engine, RummyEngine], ids=["pasur", "rummy"])
@pytest.mark.parametrize("case", list(COERCED))
def test_decide_refuses_coerced_outputs(engine, case):
    fn, error, message = COERCED[case]
    eng = engine(3, seed=0)
    before = eng.state.copy()
    with pytest.raises(error, match=message) as info:
        decide(eng, np.arange(3), [Returns(fn)], np.zeros(3, dtype=np.int64))
    assert str(info.value).startswith("agent 'hostile': actions")  # names the agent
    np.testing.assert_array_equal(eng.state, before)


@pytest.mark.parametrize("case", ["x+0.5", "np.bool_", "None", "object", "column"])
def test_an_env_refuses_an_opponents_coerced_output(case):
    """The opponent's bad action reaches no engine; the env then needs a reset."""
    fn, error, _ = COERCED[case]
    opponent = Returns(fn)
    env = PasurSingleAgentEnv(opponent=opponent)
    env.reset(seed=0)
    with pytest.raises(error, match="agent 'hostile'"):
        for _ in range(3):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(RuntimeError, match=r"needs reset\(\)"):
        env.action_masks()


@pytest.mark.parametrize("answer", [lambda o, m: np.flatnonzero(m)[0] + 0.5, lambda o, m: None,
                                    lambda o, m: np.bool_(True)],
                         ids=["x+0.5", "None", "np.bool_"])
def test_a_callable_is_not_coerced(answer):
    """``int()`` truncated 11.5 to 11 and played it; None gave Python's int() message."""
    eng = Engine(2, seed=0)
    with pytest.raises(TypeError, match="agent 'fn': action must be an int"):
        decide(eng, np.arange(2), [CallablePolicy(answer, name="fn")],
               np.zeros(2, dtype=np.int64))


def test_the_learner_and_policies_share_one_check():
    """The vector env took whole floats from the learner; now floats are refused alike."""
    v = vec_env("pasur")(num_envs=2, seed=0)
    acts = v.action_masks().argmax(axis=1)
    for bad in (acts.astype(np.float64), acts.astype(object), acts[:, None]):
        with pytest.raises((TypeError, ValueError), match="the learner: actions"):
            v.step(bad)
    v.step(acts)
