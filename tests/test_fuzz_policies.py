"""Hostile policies at every env kind of both games: nothing they return reaches a kernel.

Each case seats a policy that plays legally for a while and then turns hostile once:
it returns floats, bools, None, objects, strings, arrays of the wrong shape,
out-of-range or illegal actions, or raises; or it is an agent of the other game, or
of another table size or observation width, from the start. hypothesis draws the
game, the hostile output, when it fires and (in Pasur) the table size. The rules
checked, for every env kind:

* an agent that cannot play the game is refused where it is seated (the training
  envs, the evaluation), or by the play loop before it reads the engine (the AEC
  env driven through :func:`pasur_env.core.loop.decide`), with ``ValueError`` /
  ``TypeError`` naming it; it never acts;
* a hostile output raises ``TypeError`` / ``ValueError`` naming the agent (the AEC
  env's own check names the seat), and the engine is exactly as the policy found it:
  no game moved with it, nor with the other policies' actions of that iteration;
* the AEC env is then still usable; a training env, whose learner had moved, needs
  ``reset()`` and says so until a reset, after which play goes on legally with every
  card accounted for.

Size: ``FUZZ_POLICY_EXAMPLES`` (default 60) cases per env kind and game: 4 kinds x 2
games, 480 cases.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_envs import AEC, CARDS, AECHarness, same

from agents import make_agent
from agents.evaluation.match import evaluate
from pasur_env.core.loop import decide
from pasur_env.core.policy import GameView, RandomPolicy

GAMES = ("pasur", "persian_rummy")
#: the fuzzing's names of the games (tests/test_fuzz_envs.py)
SHORT = {"pasur": "pasur", "persian_rummy": "rummy"}
OTHER = {"pasur": "persian_rummy", "persian_rummy": "pasur"}
GYM_ID = {"pasur": "pasur_env/Pasur-v0", "persian_rummy": "pasur_env/PersianRummy-v0"}
NUM_ACTIONS = {"pasur": 104, "persian_rummy": 245}
EXAMPLES = int(os.environ.get("FUZZ_POLICY_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Boom(RuntimeError):
    """What a hostile policy raises."""


# ---- the hostile outputs ------------------------------------------------------------------
Output = Callable[[np.ndarray, np.ndarray], Any]  # (legal actions, mask) -> what it returns


def _raise(legal: np.ndarray, mask: np.ndarray) -> Any:
    raise Boom("the policy failed")


#: (label, output, the exception it must raise)
FIXED: list[tuple[str, Output, type]] = [
    ("x+0.5", lambda a, m: a + 0.5, TypeError),
    ("whole floats", lambda a, m: a.astype(np.float64), TypeError),
    ("float32", lambda a, m: a.astype(np.float32), TypeError),
    ("floats in a list", lambda a, m: [float(x) for x in a], TypeError),
    ("np.bool_", lambda a, m: np.bool_(True), TypeError),
    ("bool array", lambda a, m: np.ones(a.shape, dtype=np.bool_), TypeError),
    ("bools in a list", lambda a, m: [True] * len(a), TypeError),
    ("None", lambda a, m: None, TypeError),
    ("object", lambda a, m: a.astype(object), TypeError),
    ("strings", lambda a, m: a.astype(str), TypeError),
    ("column", lambda a, m: a[:, None], ValueError),
    ("2-D", lambda a, m: np.stack([a, a]), ValueError),
    ("empty", lambda a, m: a[:0], ValueError),
    ("doubled", lambda a, m: np.concatenate([a, a]), ValueError),
    ("illegal", lambda a, m: np.argmin(m, axis=1), ValueError),
    ("one illegal", lambda a, m: np.concatenate([np.argmin(m[:1], axis=1), a[1:]]), ValueError),
    ("raises", _raise, Boom),
]


def _constant(value: int) -> tuple[str, Output, type]:
    """The same integer for every decision: out of range (beyond int64 too)."""
    def out(a: np.ndarray, m: np.ndarray) -> Any:
        if -(2**63) <= value < 2**63:
            return np.full(a.shape, value, dtype=np.int64)
        if 0 <= value < 2**64:
            return np.full(a.shape, value, dtype=np.uint64)
        return [value] * len(a)  # Python ints no int64 holds
    return (f"constant {value}", out, ValueError)


def _float(value: float) -> tuple[str, Output, type]:
    return (f"float {value}", lambda a, m: np.full(a.shape, value), TypeError)


def outputs(game: str) -> st.SearchStrategy:
    n = NUM_ACTIONS[game]
    return st.one_of(
        st.sampled_from(FIXED), st.sampled_from(FIXED),
        st.integers(n, 2**70).map(_constant), st.integers(-(2**70), -1).map(_constant),
        st.floats(allow_nan=True, allow_infinity=True).map(_float),
    )


class Hostile(RandomPolicy):
    """Random legal play for ``fuse`` calls, then ``output`` once (recording the engine
    as it found it), then random legal play again."""

    name = "hostile"

    def __init__(self, output: Output, fuse: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.output, self.fuse = output, fuse
        self.fired = False
        self.engine: Any = None
        self.before: np.ndarray | None = None

    def act(self, obs: Any, mask: np.ndarray, view: GameView) -> Any:
        legal = super().act(obs, mask, view)
        if self.fired or self.fuse > 0:
            self.fuse -= 1
            return legal
        self.fired = True
        self.engine, self.before = view.engine, view.engine.state.copy()
        return self.output(legal, mask)


class Unfit(RandomPolicy):
    """A policy that cannot play here (another game, table size or observation width):
    it must never be asked to act."""

    def __init__(self, name: str, **declared: Any) -> None:
        super().__init__(0)
        self.name = name
        self.needs_observation = "observation_size" in declared
        for key, value in declared.items():
            setattr(self, key, value)

    def act(self, obs: Any, mask: np.ndarray, view: GameView) -> Any:
        raise AssertionError(f"{self.name} was asked to act at a table it cannot play")


def unfit(game: str) -> st.SearchStrategy:
    """Policies that cannot play ``game`` (``players`` seats)."""
    return st.one_of(
        st.just(Unfit("other game", game_ids=(OTHER[game],))),
        st.just(Unfit("two games, not this", game_ids=(OTHER[game], "chess"))),
        st.just(Unfit("other size", player_counts=(5,))),
        st.integers(1, 4000).filter(lambda k: k not in (957, 1015, 963, 685)).map(
            lambda k: Unfit("other width", observation_size=k)),
        st.just("real agent of the other game"),
    )


def seat_unfit(game: str, policy: Any) -> Any:
    """The policy itself, or (for the marker) a real agent of the other game."""
    if isinstance(policy, str):
        return make_agent("greedy", game=OTHER[game], seed=0)
    return policy


def expect(error: type, exc: BaseException, who: str = "agent 'hostile'") -> None:
    """``exc`` is ``error``; a refusal of ours names the one that acted."""
    assert isinstance(exc, error), f"{type(exc).__name__}: {exc} (expected {error.__name__})"
    if error is not Boom:
        assert who in str(exc), str(exc)


def found_untouched(h: Hostile) -> None:
    """The engine is exactly as the hostile policy found it: no game moved."""
    assert h.fired and h.engine is not None
    np.testing.assert_array_equal(h.engine.state, h.before)


def legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ---- the env kinds --------------------------------------------------------------------------
def aec_case(game: str, out: tuple[str, Output, type], fuse: int, seed: int,
             wrapped: bool) -> None:
    """The AEC env, its agents' actions from the hostile policy: straight into ``step``
    (the env's own check) and through the play loop's ``decide``."""
    h = AECHarness(SHORT[game], wrapped)
    h.rng = np.random.default_rng(seed)
    h.env.reset(seed=seed)
    for _ in range(fuse):
        h.play_legal()
    if h.episode_over():
        h.env.reset(seed=seed + 1)
    label, output, error = out
    eng = h.raw.engine
    games = np.zeros(1, dtype=np.int64)
    before = h.snapshot()
    with pytest.raises((TypeError, ValueError, Boom)) as info:
        decide(eng, games, [Hostile(output, 0, seed)], games)
    expect(error, info.value)
    same(before, h.snapshot(), f"decide with {label}")
    mask = eng.legal_mask(games)
    try:
        action = output(np.array([legal(mask[0], h.rng)]), mask)
    except Boom:
        return
    illegal_ends = wrapped and error is ValueError and label.endswith("illegal")
    if illegal_ends:  # PettingZoo's TerminateIllegalWrapper ends the game with -1 instead
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h.step(action)
        assert h.episode_over()
        return
    with pytest.raises((TypeError, ValueError)) as info:
        h.step(action)
    expect(error, info.value, who="")
    same(before, h.snapshot(), f"step with {label}")
    h.play_legal()
    h.check()


def aec_unfit(game: str, policy: Any, seed: int) -> None:
    """The play loop refuses an agent of another game before it reads the engine."""
    env = AEC[SHORT[game]].raw_env()
    env.reset(seed=seed)
    games = np.zeros(1, dtype=np.int64)
    before = env.engine.state.copy()
    agent = seat_unfit(game, policy)
    if getattr(agent, "game_ids", None) in (None, (game,)):
        return  # fits this game: only the seating checks of size and width apply
    with pytest.raises(ValueError, match=f"plays .*, not {game}"):
        decide(env.engine, games, [agent], games)
    np.testing.assert_array_equal(env.engine.state, before)


def _training_env(kind: str, game: str, players: int, seat: dict[str, Any], seed: int) -> Any:
    extra = {"num_players": players} if game == "pasur" else {}
    if kind == "single":
        env = gymnasium.make(GYM_ID[game], **seat, **extra).unwrapped
        env.reset(seed=seed)
        return env
    pytest.importorskip("stable_baselines3")
    from pasur_env import PasurVecEnv, PersianRummyVecEnv

    cls = {"pasur": PasurVecEnv, "persian_rummy": PersianRummyVecEnv}[game]
    return cls(num_envs=3, seed=seed, **seat, **extra)


def _step_legal(kind: str, env: Any, rng: np.random.Generator, seed: int) -> None:
    masks = env.action_masks()
    if kind == "single":
        if env.games.done[0]:  # ended (its mask then allows every action)
            env.reset(seed=seed)
            return
        env.step(legal(masks, rng))
    else:
        env.step(np.array([legal(m, rng) for m in masks]))


def _check_cards(env: Any, game: str) -> None:
    g = env.games
    for b in range(g.num_games):
        CARDS[SHORT[game]](g.engine, b)
    live = ~g.done
    np.testing.assert_array_equal(g.learner_masks()[live], g.engine.legal_mask()[live])
    np.testing.assert_array_equal(g.engine.current_player[live], g.seat[live])


def training_case(kind: str, game: str, out: tuple[str, Output, type], fuse: int, seed: int,
                  players: int, role: str) -> None:
    """The Gymnasium env or the SB3 vector env with the hostile policy at ``role``."""
    label, output, error = out
    h = Hostile(output, fuse, seed)
    rng = np.random.default_rng(seed)
    try:
        env = _training_env(kind, game, players, {role: h}, seed)
        for _ in range(400):
            _step_legal(kind, env, rng, seed)
        raise AssertionError("the hostile output was played" if h.fired else "it never fired")
    except (TypeError, ValueError, Boom) as exc:
        expect(error, exc)
    found_untouched(h)
    if "env" not in locals():
        return  # it fired while the env was built: nothing was made
    with pytest.raises(RuntimeError, match=r"needs reset\(\)"):
        env.action_masks()
    with pytest.raises(RuntimeError, match=r"needs reset\(\)"):
        env.step(0 if kind == "single" else np.zeros(3, dtype=np.int64))
    if kind == "single":
        env.reset(seed=seed + 1)
    else:
        env.reset()
    _check_cards(env, game)
    for _ in range(3):
        _step_legal(kind, env, rng, seed)
    _check_cards(env, game)


def training_unfit(kind: str, game: str, policy: Any, seed: int, players: int,
                   role: str) -> None:
    agent = seat_unfit(game, policy)
    with pytest.raises(ValueError) as info:
        _training_env(kind, game, players, {role: agent}, seed)
    assert f"{role} '{agent.name}'" in str(info.value), str(info.value)


def evaluate_case(game: str, out: tuple[str, Output, type], fuse: int, seed: int,
                  players: int, side: int) -> None:
    """A duplicate-deal match (the evaluation, tournaments) with the hostile policy as A
    or B."""
    label, output, error = out
    h = Hostile(output, fuse, seed)
    agents = [h, "random"] if side == 0 else ["random", h]
    with pytest.raises((TypeError, ValueError, Boom)) as info:
        evaluate(*agents, rounds=2_000, batch=8, players=players, seed=seed,
                 progress=False, game=game)
    expect(error, info.value)
    found_untouched(h)


def evaluate_unfit(game: str, policy: Any, seed: int, players: int, side: int) -> None:
    agent = seat_unfit(game, policy)
    agents = [agent, "random"] if side == 0 else ["random", agent]
    with pytest.raises(ValueError) as info:
        evaluate(*agents, rounds=4, players=players, seed=seed, progress=False, game=game)
    assert f"agent {'AB'[side]} '{agent.name}'" in str(info.value), str(info.value)


# ---- the cases -------------------------------------------------------------------------------
def cases(game: str) -> st.SearchStrategy:
    """(hostile output or unfit policy, fuse, seed, players, role index)."""
    players = st.sampled_from([2, 3, 4]) if game == "pasur" else st.just(4)
    return st.tuples(st.one_of(outputs(game), outputs(game), unfit(game)),
                     st.integers(0, 24), st.integers(0, 2**16), players, st.integers(0, 1))


def _fuzz(game: str, hostile: Callable[..., None], unfit_case: Callable[..., None]) -> None:
    """Run the drawn cases of ``game``: ``hostile(x, fuse, seed, players, k)`` for a
    hostile output, ``unfit_case(x, seed, players, k)`` for a policy that cannot play."""
    @FUZZ
    @given(cases(game))
    def prop(case: tuple) -> None:
        x, fuse, seed, players, k = case
        if isinstance(x, tuple):
            hostile(x, fuse, seed, players, k)
        else:
            unfit_case(x, seed, players, k)

    prop()


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_aec(game):
    _fuzz(game, lambda x, fuse, seed, _, k: aec_case(game, x, fuse, seed, wrapped=bool(k)),
          lambda x, seed, _, k: aec_unfit(game, x, seed))


@pytest.mark.parametrize("kind", ["single", "vec"])
@pytest.mark.parametrize("game", GAMES)
def test_fuzz_training_envs(kind, game):
    roles = ("opponent", "partner" if game == "persian_rummy" else "opponent")
    _fuzz(game, lambda x, fuse, seed, players, k: training_case(
              kind, game, x, fuse, seed, players, roles[k]),
          lambda x, seed, players, k: training_unfit(kind, game, x, seed, players, roles[k]))


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_evaluate(game):
    _fuzz(game, lambda x, fuse, seed, players, k: evaluate_case(game, x, fuse, seed, players, k),
          lambda x, seed, players, k: evaluate_unfit(game, x, seed, players, k))
