"""Both games' engines have one API: :class:`pasur_env.core.batch_engine.BatchEngine`.

Every test runs over both engines: the same public names and signatures, the same
return types and shapes, the same errors for the same bad input, copies that do not
share state, and kernels that take their arguments in the same order.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from pasur_env import Engine, RummyEngine, RummyStepInfo, StepInfo
from pasur_env.core.batch_engine import PARALLEL_MIN_BATCH, BaseStepInfo, BatchEngine
from pasur_env.pasur import kernels as PK
from pasur_env.rummy import kernels as RK

ENGINES = [Engine, RummyEngine]
WIDTH = {Engine: 104, RummyEngine: 245}
IDS = ["pasur", "rummy"]


def public_names(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def params_of(fn: object) -> list[tuple[str, object, object]]:
    """Names, kinds and defaults of a callable's parameters (annotations aside: each game
    names its own rules and StepInfo types)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.fixture(params=ENGINES, ids=IDS)
def cls(request: pytest.FixtureRequest) -> type[BatchEngine]:
    return request.param


# ---- one API ---------------------------------------------------------------------------


def test_both_engines_extend_the_base() -> None:
    for c in ENGINES:
        assert issubclass(c, BatchEngine)
        assert not inspect.isabstract(c)
    assert issubclass(StepInfo, BaseStepInfo) and issubclass(RummyStepInfo, BaseStepInfo)
    assert PARALLEL_MIN_BATCH == 512


def test_same_public_names_and_signatures() -> None:
    shared = public_names(BatchEngine)
    assert {"step", "step_single", "legal_mask", "legal_actions", "random_actions", "playout",
            "copy", "take", "reset", "reset_games", "observe", "current_player", "phase",
            "done", "scores", "stock_size", "num_games", "num_actions", "obs_size"} <= shared
    for c in ENGINES:  # the class-level facts the base only declares
        for name in BatchEngine.__annotations__:
            if name.isupper():
                assert hasattr(c, name), f"{c.__name__} lacks {name}"
    for name in sorted(shared):
        kinds = {c: inspect.getattr_static(c, name) for c in ENGINES}
        base = inspect.getattr_static(BatchEngine, name)
        for c, member in kinds.items():
            if isinstance(base, property):
                assert isinstance(member, property), f"{c.__name__}.{name} is not a property"
            elif callable(base) and not isinstance(base, type):
                got = params_of(getattr(c, name))
                assert got == params_of(getattr(BatchEngine, name)), f"{c.__name__}.{name}"


def test_same_constructor_parameters() -> None:
    want = ["num_games", "seed", "rules", "episode", "auto_reset", "parallel", "flags"]
    for c in ENGINES:
        params = [p for p in inspect.signature(c).parameters if p != "preset"]
        assert params == want, c.__name__


def test_step_info_shares_its_fields() -> None:
    shared = {"actor", "round_end", "game_end", "winner", "round_points", "scores",
              "round_end_at", "any_round_end"}
    assert shared <= public_names(StepInfo) and shared <= public_names(RummyStepInfo)


@pytest.mark.parametrize("kernel", ["step_kernel", "legal_mask_kernel",
                                    "random_actions_kernel", "playout_kernel"])
def test_kernels_take_arguments_in_one_order(kernel: str) -> None:
    pasur = list(inspect.signature(getattr(PK, kernel).py_func).parameters)
    rummy = list(inspect.signature(getattr(RK, kernel).py_func).parameters)
    assert len(pasur) == len(rummy)
    alias = {"st": "state", "seed": "seed_base"}
    assert [alias.get(p, p) for p in pasur] == [alias.get(p, p) for p in rummy]


# ---- return types and shapes -------------------------------------------------------------


def test_class_level_facts(cls: type[BatchEngine]) -> None:
    eng = cls(3, seed=0)
    assert cls.NUM_ACTIONS == WIDTH[cls] == eng.num_actions
    assert eng.num_games == 3 and isinstance(eng.num_players, int)
    assert isinstance(eng.obs_size, int) and eng.obs_size > 0


def test_return_types_and_shapes(cls: type[BatchEngine]) -> None:
    eng = cls(5, seed=1)
    mask = eng.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (5, WIDTH[cls])
    assert eng.legal_mask([1, 3]).shape == (2, WIDTH[cls])
    legal = eng.legal_actions(2)
    assert isinstance(legal, list) and all(type(a) is int for a in legal)
    assert legal == np.flatnonzero(mask[2]).tolist()
    acts = eng.random_actions(np.random.default_rng(0))
    assert acts.dtype == np.int64 and acts.shape == (5,)
    assert mask[np.arange(5), acts].all()
    sub = eng.random_actions(np.random.default_rng(0), games=[0, 4])
    assert sub.shape == (2,) and mask[[0, 4], sub].all()
    for name in ("current_player", "phase", "done", "stock_size"):
        assert getattr(eng, name).shape == (5,), name
    assert eng.done.dtype == np.bool_
    assert eng.scores.shape == (5, eng.rules.num_sides)
    obs = eng.observe()
    assert obs.dtype == np.float32 and obs.shape == (5, eng.obs_size)
    assert eng.observe(games=[1, 2], seats=0).shape == (2, eng.obs_size)
    info = eng.step(acts)
    assert isinstance(info, BaseStepInfo)
    for name in ("actor", "round_end", "game_end", "winner"):
        assert getattr(info, name).shape == (5,), name
    assert info.scores.shape == info.round_points.shape == (5, eng.rules.num_sides)
    assert isinstance(info.round_end_at(0), bool) and isinstance(info.any_round_end, bool)
    assert isinstance(eng.phase_name(0), str)


def test_playout_returns_the_rounds_finished(cls: type[BatchEngine]) -> None:
    eng = cls(4, seed=2, episode="round")
    twin = eng.copy()
    rounds = eng.playout(300, seed=3)
    assert isinstance(rounds, np.integer) and rounds > 0
    assert twin.playout(300, seed=3) == rounds
    np.testing.assert_array_equal(twin.state, eng.state)


def test_step_single_matches_step(cls: type[BatchEngine]) -> None:
    a, b = cls(1, seed=4), cls(1, seed=4)
    rng = np.random.default_rng(1)
    for _ in range(30):
        act = int(a.random_actions(rng)[0])
        ia, ib = a.step_single(act), b.step(np.array([act]))
        assert type(ia) is type(ib)
        np.testing.assert_array_equal(ia.actor, ib.actor)
        np.testing.assert_array_equal(a.state, b.state)
    with pytest.raises(ValueError, match="one game"):
        cls(2, seed=0).step_single(0)


# ---- the same errors for the same bad input -----------------------------------------------


@pytest.mark.parametrize("seed", ["1", 1.5, True, [1]])
def test_seed_of_the_wrong_type_is_a_type_error(cls: type[BatchEngine], seed: object) -> None:
    with pytest.raises(TypeError, match="seed must be a non-negative int or None"):
        cls(1, seed=seed)
    eng = cls(1, seed=0)
    with pytest.raises(TypeError, match="seed"):
        eng.reset(seed=seed)
    with pytest.raises(TypeError, match="seed"):
        eng.playout(1, seed=seed)


def test_negative_seed_is_a_value_error(cls: type[BatchEngine]) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative int or None"):
        cls(1, seed=-1)
    eng = cls(1, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match="seed"):
        eng.reset(seed=-3)
    with pytest.raises(ValueError, match="seed"):
        eng.playout(1, seed=-3)
    np.testing.assert_array_equal(eng.state, before)


@pytest.mark.parametrize(("num_games", "error"), [(0, ValueError), (-2, ValueError),
                                                   ("3", TypeError), (True, TypeError),
                                                   (2.0, TypeError)])
def test_bad_num_games(cls: type[BatchEngine], num_games: object, error: type) -> None:
    with pytest.raises(error, match="num_games"):
        cls(num_games)


def test_bad_episode(cls: type[BatchEngine]) -> None:
    with pytest.raises(ValueError, match="episode must be 'game' or 'round'"):
        cls(1, episode="match")


@pytest.mark.parametrize("games", [[2, 1], [1, 1], [-1], [4]])
def test_bad_game_indices(cls: type[BatchEngine], games: list[int]) -> None:
    eng = cls(4, seed=0)
    for call in (lambda: eng.legal_mask(games), lambda: eng.random_actions(None, games),
                 lambda: eng.step(np.zeros(len(games), dtype=np.int64), games)):
        with pytest.raises(ValueError, match="games must be ascending distinct indices"):
            call()


def test_bad_actions(cls: type[BatchEngine]) -> None:
    eng = cls(3, seed=0)
    with pytest.raises(TypeError, match="integer array"):
        eng.step(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match=re.escape("shape (3,)")):
        eng.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=re.escape("shape (3,)")):
        eng.step(np.zeros((3, 1), dtype=np.int64))
    with pytest.raises(ValueError, match="which must have shape"):
        eng.reset_games(np.array([True]))


def test_illegal_action_message(cls: type[BatchEngine]) -> None:
    eng = cls(3, seed=5)
    before = eng.state.copy()
    acts = eng.random_actions(np.random.default_rng(0))
    acts[1] = acts[2] = 10_000
    pattern = (r"illegal action 10000 \(.+\) in game 1 for player_\d in the [A-Z]+ phase; "
               r"legal actions: \[[\d, ]+\] \(.+\) \[1 other game\(s\) also illegal\]$")
    with pytest.raises(ValueError, match=pattern):
        eng.step(acts)
    np.testing.assert_array_equal(eng.state, before)  # nothing moved
    acts[2] = eng.legal_actions(2)[0]
    with pytest.raises(ValueError, match=r"in game 1 for .*\)$"):
        eng.step(acts)
    with pytest.raises(ValueError, match="illegal action 10000"):
        cls(1, seed=5).step_single(10_000)


def test_done_games_take_only_minus_one(cls: type[BatchEngine]) -> None:
    eng = cls(2, seed=3, episode="round", auto_reset=False)
    eng.playout(2000, seed=1)
    assert eng.done.all()
    assert (eng.random_actions(np.random.default_rng(0)) == -1).all()
    assert not eng.legal_mask().any()
    eng.step(np.array([-1, -1]))
    with pytest.raises(ValueError, match="DONE phase"):
        eng.step(np.array([0, -1]))
    eng.reset_games(np.array([True, False]))
    assert list(eng.done) == [False, True]


# ---- copies ----------------------------------------------------------------------------------


def test_copy_and_take_are_independent(cls: type[BatchEngine]) -> None:
    eng = cls(3, seed=6)
    copy, part = eng.copy(), eng.take([2, 2, 0])
    assert type(copy) is cls and type(part) is cls
    np.testing.assert_array_equal(part.state, eng.state[[2, 2, 0]])
    before = eng.state.copy()
    copy.step(copy.random_actions(np.random.default_rng(0)))
    part.playout(20, seed=1)
    np.testing.assert_array_equal(eng.state, before)
    eng.step(eng.random_actions(np.random.default_rng(0)))
    np.testing.assert_array_equal(eng.state, copy.state)
    assert part.num_games == 3 and part.legal_mask().shape == (3, WIDTH[cls])
    with pytest.raises(ValueError, match="at least one"):
        eng.take([])
    with pytest.raises(ValueError, match="game indices must be in"):
        eng.take([3])


def test_reset_reproduces_the_games(cls: type[BatchEngine]) -> None:
    a, b = cls(3, seed=7), cls(3, seed=8)
    b.reset(seed=7)
    np.testing.assert_array_equal(a.state, b.state)


def test_seed_streams_give_a_slice_the_games_of_a_larger_batch(cls: type[BatchEngine]) -> None:
    """``seed_streams(seed, offset)`` then ``reset()``: game b deals as game offset + b of
    an engine of any size seeded the same way (how evaluations split their batches)."""
    whole = cls(6, seed=0, episode="round")
    whole.seed_streams(11)
    whole.reset()
    part = cls(2, seed=0, episode="round")
    part.seed_streams(11, offset=3)
    part.reset()
    assert np.array_equal(part.state, whole.state[3:5])
    with pytest.raises(TypeError, match="seed"):
        part.seed_streams("11")
    with pytest.raises(ValueError, match="seed"):
        part.seed_streams(-1)
    with pytest.raises(ValueError, match="offset"):
        part.seed_streams(1, offset=-2)


def test_play_history_is_every_seat_s_plays_this_round(cls: type[BatchEngine]) -> None:
    """``play_history``: per relative seat, the cards it played since the round began,
    tracked here from the actions themselves (Pasur; a game without history: width 0)."""
    eng = cls(6, seed=3)
    P, rng = eng.num_players, np.random.default_rng(0)
    if cls is RummyEngine:
        assert eng.history_size == 0 and eng.play_history().shape == (6, 0)
        return
    assert eng.history_size == 52 * P
    played = np.zeros((6, P, 52), dtype=np.float32)
    rounds_seen = 0
    for _ in range(300):
        movers, playing = eng.current_player.copy(), eng.phase == PK.PLAY
        acts = eng.random_actions(rng)
        info = eng.step(acts)
        games = np.flatnonzero(playing & (acts < PK.TAKE_OFFSET))
        played[games, movers[games], acts[games]] = 1
        played[info.round_end] = 0  # a new round was dealt
        rounds_seen += int(info.round_end.sum())
        viewer = (np.arange(6) + 1) % P
        want = np.stack([played[np.arange(6), (viewer + k) % P] for k in range(P)], axis=1)
        np.testing.assert_array_equal(eng.play_history(seats=viewer), want.reshape(6, -1))
    assert rounds_seen > 0 and eng.play_history([2, 4]).shape == (2, 52 * P)
