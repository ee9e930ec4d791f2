"""Property-based fuzzing of every env kind of both games: legal play interleaved with bad calls.

The rule of tests/test_env_atomic.py, checked on random scripts rather than chosen
cases: a call with bad input (wrong-type or out-of-range actions, bad seeds, bad reset
options, bad game indices) raises ``ValueError``/``TypeError`` and changes nothing;
an exception once the game moved (an opponent policy or a render raising) leaves the
env needing ``reset()`` until a reset succeeds; and after every call the env agrees
with its engine (the seat to move, the mask shown, every card accounted for, the
scores), and a legal action is accepted.

Each env kind has a :class:`Harness` (the AEC env wrapped and raw, the Gymnasium
env, the SB3 vector env, the engine) and hypothesis draws the script of operations
(:data:`OPS`); :func:`run_script` plays it.
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

from pasur_env import Engine, pasur_v0, persian_rummy_v0
from pasur_env.core.policy import RandomPolicy
from pasur_env.pasur import kernels as PK
from pasur_env.rummy import RummyEngine
from pasur_env.rummy import kernels as RK

GAMES = ("pasur", "rummy")
AEC = {"pasur": pasur_v0, "rummy": persian_rummy_v0}
GYM_ID = {"pasur": "pasur_env/Pasur-v0", "rummy": "pasur_env/PersianRummy-v0"}
ENGINE = {"pasur": Engine, "rummy": RummyEngine}
NUM_ACTIONS = {"pasur": 104, "rummy": 245}
DECK_SIZE = {"pasur": 52, "rummy": 56}
#: scripts per env kind; each script is up to STEPS operations
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
STEPS = 40
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Boom(RuntimeError):
    """What a fused policy or a broken render raises."""


# ---- the cards: every card of the deck in exactly one place -------------------------------
def _mask_of(ids: np.ndarray) -> int:
    m = 0
    for c in ids.tolist():
        assert not (m >> c) & 1, f"card {c} twice"
        m |= 1 << c
    return m


def _disjoint_union(parts: list[int], size: int) -> None:
    seen = 0
    for p in parts:
        assert seen & p == 0, f"cards {hex(seen & p)} in two places"
        seen |= p
    assert seen == (1 << size) - 1, f"cards {hex(seen ^ ((1 << size) - 1))} missing"


def pasur_cards(engine: Engine, b: int) -> None:
    """Pasur's 52: hands, table, the sides' piles, the stock and a card awaiting capture."""
    s = engine.state[b]
    P, S = engine.num_players, engine.rules.num_sides
    parts = [int(x) for x in s[PK.HAND:PK.HAND + P]] + [int(s[PK.TABLE])]
    parts += [int(x) for x in s[PK.PILE:PK.PILE + S]]
    parts.append(_mask_of(s[PK.DECK + s[PK.STOCK_POS]:PK.DECK + 52]))
    if s[PK.PHASE] == PK.CAPTURE:
        parts.append(1 << int(s[PK.PENDING]))
    _disjoint_union(parts, 52)


def rummy_cards(engine: RummyEngine, b: int) -> None:
    """Persian Rummy's 56: hands, melds on the table, the discard pile and the stock; the
    cards taken from the pile are still in their taker's hand."""
    s = engine.state[b]
    parts = [int(x) for x in s[RK.HAND:RK.HAND + 4]]
    parts += [int(x) for x in s[RK.MELD:RK.MELD + s[RK.NMELDS]]]
    parts.append(_mask_of(s[RK.PILE:RK.PILE + s[RK.PILE_N]]))
    parts.append(_mask_of(s[RK.DECK + s[RK.STOCK_POS]:RK.DECK + 56]))
    _disjoint_union(parts, 56)
    for q in range(4):
        assert s[RK.TAKEN + q] & ~s[RK.HAND + q] == 0, "a taken card is not in its hand"


CARDS = {"pasur": pasur_cards, "rummy": rummy_cards}


def same(a: Any, b: Any, where: str = "state") -> None:
    """Assert that two snapshots are equal (numpy arrays, dicts, tuples, scalars)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


# ---- bad input ---------------------------------------------------------------------------
def bad_actions(n: int) -> st.SearchStrategy:
    """Actions no env accepts: wrong types, out of range, arrays of the wrong shape."""
    return st.one_of(
        st.booleans(), st.just(np.bool_(True)), st.none(), st.text(max_size=3),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(n, 2**70), st.integers(-(2**70), -1),
        st.integers(2**63, 2**64 - 1).map(np.uint64),
        st.sampled_from([np.zeros(2, np.int64), np.zeros((2, 2), np.int64),
                         np.zeros(0, np.int64), np.array([0.5]), np.array([True])]),
    )


BAD_SEEDS = st.one_of(
    st.integers(max_value=-1), st.integers(-(2**63), -1).map(np.int64),
    st.floats(allow_nan=True), st.text(max_size=3), st.booleans(),
    st.just([1]), st.just(np.array([1])),
)
GOOD_SEEDS = st.one_of(st.integers(0, 2**32), st.integers(0, 2**31).map(np.int64),
                       st.integers(0, 2**31).map(np.uint32))


def bad_decks(size: int) -> st.SearchStrategy:
    """Decks no env accepts: sets, the wrong length, duplicates, cards out of range."""
    return st.one_of(
        st.just(set(range(size))), st.just(frozenset(range(size))),
        st.lists(st.integers(0, size - 1), max_size=size - 1),
        st.integers(0, size - 2).map(lambda i: [*range(size - 1), i]),
        st.just([*range(size - 1), size]), st.just([*range(size - 1), -1]),
        st.just(iter(range(size))), st.just(3),
    )


def bad_options(size: int) -> st.SearchStrategy:
    return st.one_of(
        st.text(min_size=1, max_size=5).filter(
            lambda k: k not in ("deck", "dealer", "learner_seat", "options")
        ).map(lambda k: {k: None}),
        bad_decks(size).map(lambda d: {"deck": d}),
        st.sampled_from([-1, 7, 1.0, True, "0"]).map(lambda d: {"dealer": d}),
        st.just([("deck", None)]), st.just("deck"),
    )


BAD_GAMES = st.one_of(
    st.integers(3, 2**40).map(lambda g: [g]), st.integers(-(2**40), -1).map(lambda g: [g]),
    st.just([2, 1]), st.just([0, 0]), st.just([0.0]), st.just([True]), st.just(1.5),
    st.just("0"), st.just(np.array([0, 5])),
)


def ops(game: str) -> st.SearchStrategy:
    """One operation of a script: a legal call, a bad call, a fault or a reset."""
    n, size = NUM_ACTIONS[game], DECK_SIZE[game]
    return st.one_of(
        st.just(("legal", None)), st.just(("legal", None)), st.just(("legal", None)),
        st.tuples(st.just("action"), bad_actions(n)),
        st.just(("illegal", None)),
        st.tuples(st.just("seed"), BAD_SEEDS),
        st.tuples(st.just("options"), bad_options(size)),
        st.tuples(st.just("games"), BAD_GAMES),
        st.tuples(st.just("fault"), st.integers(1, 4)),
        st.tuples(st.just("reset"), GOOD_SEEDS),
    )


def scripts(game: str) -> st.SearchStrategy:
    steps = st.lists(ops(game), min_size=STEPS // 4, max_size=STEPS)
    return st.tuples(st.integers(0, 2**16), steps)


# ---- the env kinds -----------------------------------------------------------------------
class FusedPolicy(RandomPolicy):
    """Random legal play that raises at its ``fuse``-th call once lit."""

    fuse = 0

    def act(self, obs, mask, view):  # noqa: ANN001, ANN201
        if self.fuse:
            self.fuse -= 1
            if not self.fuse:
                raise Boom("opponent failed")
        return super().act(obs, mask, view)


class Harness:
    """One env under fuzzing: its calls, what it shows, and what must hold."""

    #: whether an in-range illegal action raises (else it ends the game: TerminateIllegal)
    illegal_raises = True

    def __init__(self, game: str) -> None:
        self.game = game
        self.n = NUM_ACTIONS[game]
        self.rng = np.random.default_rng(0)

    # what each kind says
    def reset(self, seed: Any = None, options: Any = None) -> None:
        raise NotImplementedError

    def step(self, action: Any) -> None:
        raise NotImplementedError

    def legal_action(self) -> Any:
        raise NotImplementedError

    def illegal_action(self) -> Any:
        raise NotImplementedError

    def snapshot(self) -> Any:
        raise NotImplementedError

    def check(self) -> None:
        raise NotImplementedError

    def bad_games(self, games: Any) -> None:
        """A call with bad game indices (only the engines take them): raises."""
        raise TypeError("no game indices here")

    def fault(self, fuse: int) -> bool:
        """Make the next steps fail half-way; False if this kind has no such fault."""
        return False

    def heal(self) -> None:
        """Undo :meth:`fault`."""

    def broken_calls(self) -> list[Callable[[], Any]]:
        """Calls that must raise "needs reset" once a fault broke the env."""
        return []

    def episode_over(self) -> bool:
        return False

    def play_legal(self) -> None:
        if self.episode_over():
            self.reset(seed=int(self.rng.integers(2**31)))
        else:
            self.step(self.legal_action())

    def pick(self, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


class AECHarness(Harness):
    def __init__(self, game: str, wrapped: bool) -> None:
        super().__init__(game)
        self.env = AEC[game].env() if wrapped else AEC[game].raw_env()
        self.raw = self.env.unwrapped
        self.illegal_raises = not wrapped
        self.env.reset(seed=0)

    def reset(self, seed: Any = None, options: Any = None) -> None:
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TerminateIllegalWrapper warns
            self.env.step(action)

    def _mask(self) -> np.ndarray:
        return self.env.observe(self.env.agent_selection)["action_mask"]

    def legal_action(self) -> int:
        return self.pick(self._mask())

    def illegal_action(self) -> int:
        return self.pick(self._mask() == 0)

    def episode_over(self) -> bool:
        e = self.env
        return not e.agents or e.terminations[e.agent_selection] or \
            e.truncations[e.agent_selection]

    def snapshot(self) -> Any:
        r = self.raw
        masks = {a: self.env.observe(a)["action_mask"].copy() for a in r.agents}
        return (r.agent_selection, r.engine.state.copy(), masks, dict(r.rewards),
                dict(r._cumulative_rewards), dict(r.terminations), dict(r.truncations),
                r.rounds_played, r._needs_reset)

    def check(self) -> None:
        r, eng = self.raw, self.raw.engine
        CARDS[self.game](eng, 0)
        over = self.episode_over()
        for a in r.agents:
            mask = self.env.observe(a)["action_mask"]
            if over or a != r.agent_selection:
                assert not mask.any(), f"{a} shows legal actions out of turn"
            else:
                assert r._seat[a] == eng.mover(0)
                np.testing.assert_array_equal(mask.astype(bool), eng.legal_mask()[0])
        info = r.infos.get(r.agent_selection, {})
        if "scores" in info and not eng.done[0]:  # a new round dealt: the scores carry on
            want = [int(eng.scores[0, r._sides[s]]) for s in range(len(r._sides))]
            assert info["scores"] == want

    def fault(self, fuse: int) -> bool:
        def broken_render() -> None:
            raise Boom("render failed")

        self.raw.render_mode = "human"
        self.raw.render = broken_render
        return True

    def heal(self) -> None:
        self.raw.render_mode = None
        del self.raw.render

    def broken_calls(self) -> list[Callable[[], Any]]:
        return [lambda: self.env.step(0), lambda: self.env.observe("player_0"), self.env.last]


class SingleHarness(Harness):
    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.opponent = FusedPolicy(0)
        extra = {"partner": self.opponent} if game == "rummy" else {}
        self.env = gymnasium.make(GYM_ID[game], opponent=self.opponent, **extra)
        self.u = self.env.unwrapped
        self.env.reset(seed=0)
        self.info: dict[str, Any] = {}

    def reset(self, seed: Any = None, options: Any = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.info = {}

    def step(self, action: Any) -> None:
        self.info = self.env.step(action)[4]

    def legal_action(self) -> int:
        return self.pick(self.u.action_masks())

    def illegal_action(self) -> int:
        return self.pick(~self.u.action_masks())

    def episode_over(self) -> bool:
        return bool(self.u.games.done[0])

    def snapshot(self) -> Any:
        g = self.u.games
        return (g.engine.state.copy(), self.u.action_masks().copy(), g.seat.copy(),
                g.acc.copy(), g.rounds.copy(), g.terminated.copy(), g.truncated.copy(),
                g.seat_policy.copy(), g.needs_reset)

    def check(self) -> None:
        g, eng = self.u.games, self.u.engine
        CARDS[self.game](eng, 0)
        mask = self.u.action_masks()
        if g.done[0]:  # nothing legal; the mask allows any action (a vector env's reset)
            assert mask.all() and not g.learner_masks().any()
        else:
            assert eng.mover(0) == g.seat[0]
            np.testing.assert_array_equal(mask, eng.legal_mask()[0])
        if "scores" in self.info and not eng.done[0]:
            want = [int(eng.scores[0, g.sides[s]]) for s in range(g.num_players)]
            assert self.info["scores"] == want

    def fault(self, fuse: int) -> bool:
        self.opponent.fuse = fuse
        return True

    def heal(self) -> None:
        self.opponent.fuse = 0

    def broken_calls(self) -> list[Callable[[], Any]]:
        return [self.u.action_masks, lambda: self.env.step(0), self.u.render]


class VecHarness(Harness):
    B = 3

    def __init__(self, game: str) -> None:
        super().__init__(game)
        pytest.importorskip("stable_baselines3")
        from pasur_env import PasurVecEnv, PersianRummyVecEnv

        self.opponent = FusedPolicy(0)
        extra = {"partner": self.opponent} if game == "rummy" else {}
        cls = {"pasur": PasurVecEnv, "rummy": PersianRummyVecEnv}[game]
        self.env = cls(num_envs=self.B, opponent=self.opponent, seed=0, **extra)
        self.env.reset()

    def reset(self, seed: Any = None, options: Any = None) -> None:
        if seed is not None:
            self.env.seed(seed)
        if options is not None:
            self.env.set_options(options)
        try:
            self.env.reset()
        finally:  # a refused reset leaves no seeds or options behind for the next one
            self.env._reset_seeds()
            self.env._reset_options()

    def step(self, action: Any) -> None:
        self.env.step(action)

    def legal_action(self) -> np.ndarray:
        return np.array([self.pick(m) for m in self.env.action_masks()])

    def illegal_action(self) -> np.ndarray:
        acts = self.legal_action()
        g = int(self.rng.integers(self.B))
        acts[g] = self.pick(~self.env.action_masks()[g])
        return acts

    def snapshot(self) -> Any:
        g = self.env.games
        return (g.engine.state.copy(), self.env.action_masks().copy(), g.seat.copy(),
                g.acc.copy(), g.rounds.copy(), g.seat_policy.copy(), g.needs_reset)

    def check(self) -> None:
        g, eng = self.env.games, self.env.games.engine
        for b in range(self.B):
            CARDS[self.game](eng, b)
        np.testing.assert_array_equal(eng.current_player, g.seat)  # ended games restarted
        np.testing.assert_array_equal(self.env.action_masks(), eng.legal_mask())

    def fault(self, fuse: int) -> bool:
        self.opponent.fuse = fuse
        return True

    def heal(self) -> None:
        self.opponent.fuse = 0

    def broken_calls(self) -> list[Callable[[], Any]]:
        zeros = np.zeros(self.B, dtype=np.int64)
        return [self.env.action_masks, lambda: self.env.step(zeros)]


class EngineHarness(Harness):
    B = 3

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.eng = ENGINE[game](self.B, seed=0)

    def reset(self, seed: Any = None, options: Any = None) -> None:
        if options is not None and not isinstance(options, dict):
            raise TypeError("the engines take deck= and dealer= keywords")
        kw = dict(options or {})
        if set(kw) - {"deck", "dealer"}:
            self.eng.reset(seed=seed, **kw)  # an unknown keyword: TypeError
        self.eng.reset(seed=seed, **kw)

    def _games(self) -> np.ndarray:
        k = int(self.rng.integers(1, self.B + 1))
        return np.sort(self.rng.choice(self.B, k, replace=False))

    def step(self, action: Any) -> None:
        if isinstance(action, tuple):
            self.eng.step(action[0], games=action[1])
        else:
            self.eng.step(action)

    def legal_action(self) -> tuple[np.ndarray, np.ndarray]:
        games = self._games()
        return self.eng.random_actions(self.rng, games=games), games

    def illegal_action(self) -> tuple[np.ndarray, np.ndarray]:
        games = self._games()
        acts = self.eng.random_actions(self.rng, games=games)
        acts[0] = self.pick(~self.eng.legal_mask(games[:1])[0])
        return acts, games

    def bad_games(self, games: Any) -> None:
        e = self.eng
        call = int(self.rng.integers(6))
        ints = np.asarray(games)
        if call in (3, 4) and ints.dtype.kind in "iu" and ints.min() >= 0 and ints.max() < self.B:
            call = 1  # observe reads games in any order, repeats allowed
        if call == 0:
            e.step(np.zeros(np.size(games), dtype=np.int64), games=games)
        elif call == 1:
            e.legal_mask(games)
        elif call == 2:
            e.random_actions(self.rng, games=games)
        elif call == 3:
            e.observe(games)
        elif call == 4:
            e.observe(games, seats=0)
        else:
            e.legal_actions(games)

    def snapshot(self) -> Any:
        return self.eng.state.copy()

    def check(self) -> None:
        e = self.eng
        mask = e.legal_mask()
        for b in range(self.B):
            CARDS[self.game](e, b)
            assert e.legal_actions(b) == np.flatnonzero(mask[b]).tolist()
        assert mask.any(axis=1).all()  # auto_reset: every game has a move


# ---- the script runner -------------------------------------------------------------------
def run_script(h: Harness, seed: int, script: list[tuple[str, Any]]) -> None:
    """Play ``script`` on ``h``: bad calls raise and change nothing, faults break the env
    until a reset, and the env agrees with its engine after every call."""
    h.rng = np.random.default_rng(seed)
    h.check()
    for kind, arg in script:
        if kind == "legal":
            h.play_legal()
        elif kind == "reset":
            h.reset(seed=arg)
        elif kind == "fault":
            _fault(h, arg)
        elif kind == "illegal" and not h.illegal_raises:
            if not h.episode_over():
                h.step(h.illegal_action())  # TerminateIllegalWrapper: the game ends
                assert h.episode_over()
        else:
            _bad_call(h, kind, arg)
        h.check()
    h.play_legal()  # play goes on legally after the script
    h.check()


def _bad_call(h: Harness, kind: str, arg: Any) -> None:
    if kind in ("action", "illegal") and h.episode_over():
        h.reset(seed=0)
    before = h.snapshot()
    call: Callable[[], Any] = {
        "action": lambda: h.step(arg),
        "illegal": lambda: h.step(h.illegal_action()),
        "seed": lambda: h.reset(seed=arg),
        "options": lambda: h.reset(seed=1, options=arg),
        "games": lambda: h.bad_games(arg),
    }[kind]
    with pytest.raises((ValueError, TypeError)):
        call()
    same(before, h.snapshot(), f"after a refused {kind} call ({arg!r})")


def _fault(h: Harness, fuse: int) -> None:
    if not h.fault(fuse):
        return
    try:
        for _ in range(400):
            h.play_legal()
        raise AssertionError("the fault never fired")
    except Boom:
        pass
    h.heal()
    for call in h.broken_calls():
        with pytest.raises(RuntimeError, match=r"needs reset\(\)"):
            call()
    h.reset(seed=fuse)


# ---- one test per env kind and game --------------------------------------------------------
def _fuzz(make: Callable[[str], Harness], game: str) -> None:
    @FUZZ
    @given(scripts(game))
    def prop(case: tuple[int, list[tuple[str, Any]]]) -> None:
        run_script(make(game), *case)

    prop()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_fuzz_aec(game, wrapped):
    _fuzz(lambda g: AECHarness(g, wrapped), game)


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_single_agent(game):
    _fuzz(SingleHarness, game)


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_vector_env(game):
    _fuzz(VecHarness, game)


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_engine(game):
    _fuzz(EngineHarness, game)


# ---- regressions: what the fuzzing found ---------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_engine_observe_checks_games_and_seats(game):
    """Out-of-range games reached the compiled encoders unchecked (a crash); Rummy's
    observer seats too."""
    e = ENGINE[game](3, seed=0)
    before = e.state.copy()
    for games, seats in (([9], [0]), ([3], None), ([-1], None)):
        with pytest.raises(ValueError, match="games"):
            e.observe(games, seats)
    with pytest.raises(TypeError, match="games"):
        e.observe([0.5])
    with pytest.raises(ValueError, match="seats"):
        e.observe([0], [7])
    np.testing.assert_array_equal(e.state, before)
    np.testing.assert_array_equal(e.observe([2, 0, 0]), e.observe()[[2, 0, 0]])


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("options", [{"deck": {1, 2}}, {"deck": [0, 0]}, {"dealer": 9}])
def test_training_env_bad_deal_changes_nothing(game, options):
    """A bad deck or dealer was found only when dealing, leaving the env needing reset()."""
    h = SingleHarness(game)
    before = h.snapshot()
    with pytest.raises((TypeError, ValueError)):
        h.reset(seed=1, options=options)
    same(before, h.snapshot())
    h.play_legal()


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_seed_and_none_actions(game):
    """SB3's seed() took a bool seed; step(None) said step_async() was never called."""
    h = VecHarness(game)
    with pytest.raises(TypeError, match="seed"):
        h.env.seed(False)
    with pytest.raises(TypeError, match="actions"):
        h.env.step(None)
    h.play_legal()
    h.check()
