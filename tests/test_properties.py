"""Property tests: random legal playouts of the batched engine against an independent model.

Every step of every game is replayed on a small pure-Python model of ``docs/rules.md``
(capture options by brute force over table subsets, surs, deals, the count), and the
engine's state, legal masks and step info must agree with it. Further properties:
card conservation, determinism, batch-size independence, ``copy``/``take``.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pasur_env import Engine, Position, Rules
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import cards_of
from pasur_env.pasur.moves import move_options, move_to_actions

PLAY, CAPTURE, DONE = 0, 1, 2
ALL = (1 << 52) - 1
CLUBS = sum(1 << c for c in range(0, 52, 4))
ACES = 0xF
JACKS = 0xF << 40
TEN_D, TWO_C = 37, 4

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def bit(c: int) -> int:
    return 1 << int(c)


def mask(cards) -> int:
    out = 0
    for c in cards:
        out |= bit(c)
    return out


def popcount(m: int) -> int:
    return bin(m).count("1")


# ---- the rules, by brute force ------------------------------------------------------------


def brute_options(table: int, card: int) -> set[int]:
    """Capture options of ``card`` on ``table`` (masks), straight from the rules text (§4)."""
    cards = cards_of(table)
    rank = card // 4
    if rank == 10:  # jack: every numeral and jack, if there is any
        grab = [t for t in cards if t // 4 <= 10]
        return {mask(grab)} if grab else set()
    if rank > 10:  # queen / king: each single card of the same rank
        return {bit(t) for t in cards if t // 4 == rank}
    need = 11 - (rank + 1)
    nums = [t for t in cards if t // 4 < 10]
    out: set[int] = set()

    def subsets(i: int, chosen: int, total: int) -> None:
        if total == need:
            out.add(chosen)
            return
        if total > need or i == len(nums):
            return
        subsets(i + 1, chosen | bit(nums[i]), total + nums[i] // 4 + 1)
        subsets(i + 1, chosen, total)

    subsets(0, 0, 0)
    out.discard(0)
    return out


def brute_takes(table: int, card: int, selection: int) -> set[int]:
    """Legal TAKE cards in the CAPTURE phase (§9): extend S to the |S|+1 smallest of an option."""
    k = popcount(selection)
    out = set()
    for opt in brute_options(table, card):
        ids = cards_of(opt)
        if len(ids) > k and mask(ids[:k]) == selection:
            out.add(ids[k])
    return out


@dataclass
class Game:
    hands: list[int]
    order: list[list[int]]
    table: int
    piles: list[int]
    surs: list[int]
    scores: list[int]
    stock: list[int]
    dealer: int
    start_dealer: int
    mover: int
    phase: int
    pending: int
    selection: int
    turn: int
    deal: int
    last_cap: int
    round: int


def snap(eng: Engine, b: int) -> Game:
    return Game(
        hands=[int(x) for x in eng.hands[b]],
        order=[[int(c) for c in row] for row in eng.hand_order[b]],
        table=int(eng.table[b]),
        piles=[int(x) for x in eng.piles[b]],
        surs=[int(x) for x in eng.surs[b]],
        scores=[int(x) for x in eng.scores[b]],
        stock=eng.stock(b),
        dealer=int(eng.dealer[b]),
        start_dealer=int(eng.state[b, K.START_DEALER]),
        mover=int(eng.current_player[b]),
        phase=int(eng.phase[b]),
        pending=int(eng.pending[b]),
        selection=int(eng.selection[b]),
        turn=int(eng.turn[b]),
        deal=int(eng.deal_index[b]),
        last_cap=int(eng.last_capturer[b]),
        round=int(eng.round_index[b]),
    )


def model_legal(g: Game) -> set[int]:
    if g.phase == PLAY:
        return set(cards_of(g.hands[g.mover]))
    if g.phase == CAPTURE:
        return {52 + t for t in brute_takes(g.table, g.pending, g.selection)}
    return set()


def score_round(piles: list[int], surs: list[int], start: list[int], r: Rules) -> tuple:
    """Round points per side (§5, §6) and the club counts."""
    S = r.num_sides
    clubs = [popcount(p & CLUBS) for p in piles]
    most = max(clubs)
    tied = [s for s in range(S) if clubs[s] == most]
    award = r.clubs_points if r.clubs_rule == "most" else min(most, 7)
    leader = None
    if len(tied) == 1:
        leader = tied[0]
    elif r.club_tie == "third" and S == 3 and len(tied) == 2:
        leader = next(s for s in range(S) if s not in tied)
    points = []
    for s in range(S):
        p = piles[s]
        pts = popcount(p & ACES) + popcount(p & JACKS)
        pts += 3 * ((p >> TEN_D) & 1) + 2 * ((p >> TWO_C) & 1)
        if s == leader:
            pts += award
        n = surs[s]
        if r.sur_cancel and S == 2:
            n = max(0, surs[s] - surs[1 - s])
        if r.sur_cutoff and start[s] >= 0.8 * r.target_score:
            n = 0
        points.append(pts + n * r.sur_points)
    return points, clubs


def model_step(g: Game, a: int, r: Rules, episode: str) -> tuple[Game, dict | None]:
    """The game after action ``a``; at a round end, the state before the next deal + the count."""
    g = copy.deepcopy(g)
    P = r.num_players
    seat = g.mover
    if g.phase == PLAY:
        c = a
        assert (g.hands[seat] >> c) & 1
        g.hands[seat] &= ~bit(c)
        g.order[seat] = [-1 if x == c else x for x in g.order[seat]]
        opts = brute_options(g.table, c)
        if not opts:
            g.table |= bit(c)
        elif len(opts) == 1:
            _capture(g, r, c, next(iter(opts)))
        else:
            g.phase, g.pending, g.selection = CAPTURE, c, 0
            return g, None
    else:
        c = g.pending
        sel = g.selection | bit(a - 52)
        if sel not in brute_options(g.table, c):
            g.selection = sel
            return g, None
        _capture(g, r, c, sel)
    g.phase, g.pending, g.selection = PLAY, -1, 0
    g.turn += 1
    g.mover = (g.mover + 1) % P
    if any(g.hands):
        return g, None
    H = r.hand_size
    if g.stock:  # next deal: four cards (a variant: H) to each seat, after the dealer
        for k in range(P):
            s = (g.dealer + 1 + k) % P
            g.hands[s] = mask(g.stock[H * k:H * k + H])
            g.order[s] = g.stock[H * k:H * k + H] + [-1] * (4 - H)
        g.stock = g.stock[H * P:]
        g.deal += 1
        return g, None
    # the count
    assert g.turn == 48 if r.cards is None else len(r.cards) - r.table_size
    if g.last_cap >= 0:
        g.piles[r.side_of(g.last_cap)] |= g.table
        g.table = 0
    start = list(g.scores)
    points, clubs = score_round(g.piles, g.surs, start, r)
    g.scores = [x + y for x, y in zip(start, points, strict=True)]
    ref = points if episode == "round" else g.scores
    best = [s for s in range(r.num_sides) if ref[s] == max(ref)]
    winner = best[0] if len(best) == 1 else -1
    if episode == "round":
        game_end = True
    else:
        game_end = winner >= 0 and g.scores[winner] >= r.target_score
        winner = winner if game_end else -1
    return g, dict(points=points, clubs=clubs, surs=list(g.surs), scores=list(g.scores),
                   game_end=game_end, winner=winner, captured=g.last_cap >= 0)


def _capture(g: Game, r: Rules, card: int, taken: int) -> None:
    side = r.side_of(g.mover)
    clears = (g.table & ~taken) == 0
    if card // 4 == 10:
        lone_jack = popcount(g.table) == 1 and (g.table & JACKS) != 0
        sur = clears and r.jack_sur == "lone_jack" and lone_jack
    else:
        sur = clears
    if sur and g.stock:  # never a sur during the last deal
        g.surs[side] += 1
    g.table &= ~taken
    g.piles[side] |= taken | bit(card)
    g.last_cap = g.mover


# ---- invariants checked at every step -------------------------------------------------------


def check_invariants(eng: Engine, b: int, g: Game, lm: np.ndarray) -> None:
    r = eng.rules
    # all 52 cards (a variant: its deck) exactly once
    parts = list(g.hands) + [g.table] + list(g.piles) + [mask(g.stock)]
    assert len(set(g.stock)) == len(g.stock)
    if g.phase == CAPTURE:
        parts.append(bit(g.pending))
        assert 0 <= g.pending < 52
        assert g.selection & ~g.table == 0
    else:
        assert g.pending == -1 and g.selection == 0
    union = 0
    for m in parts:
        assert union & m == 0, f"game {b}: a card is in two places"
        union |= m
    deck = ALL if r.cards is None else mask(r.cards)
    assert union == deck, f"game {b}: cards missing {cards_of(deck & ~union)}"
    # hand_order agrees with hands
    for s in range(r.num_players):
        listed = [c for c in g.order[s] if c >= 0]
        assert len(listed) == len(set(listed)) and mask(listed) == g.hands[s], (b, s)
    if r.open_hand:
        assert eng.faceup(b) == [next((c for c in o if c >= 0), -1) for o in g.order]
    # the legal mask
    assert g.phase in (PLAY, CAPTURE)
    legal = set(np.flatnonzero(lm).tolist())
    assert legal, f"game {b}: empty mask for the mover"
    if g.phase == PLAY:
        assert all(a < 52 for a in legal)
    else:
        assert all(52 <= a < 104 for a in legal)
    assert legal == model_legal(g), (b, sorted(legal), sorted(model_legal(g)))
    assert eng.legal_actions(b) == sorted(legal)
    turns = 48 if r.cards is None else len(r.cards) - r.table_size
    assert 0 <= g.turn < turns and 0 <= g.mover < r.num_players


def check_round_end(eng: Engine, info, b: int, exp: dict) -> None:
    """The count, from the step info alone (§5, §6)."""
    r = eng.rules
    S = r.num_sides
    pts = [int(x) for x in info.round_points[b]]
    surs = [int(x) for x in info.surs[b]]
    clubs = [int(x) for x in info.clubs[b]]
    scores = [int(x) for x in info.scores[b]]
    assert pts == exp["points"] and surs == exp["surs"] and clubs == exp["clubs"], (pts, exp)
    assert scores == exp["scores"]
    assert all(p >= 0 for p in pts)  # game scores never go down
    assert bool(info.game_end[b]) == exp["game_end"] and int(info.winner[b]) == exp["winner"]
    if not exp["captured"]:  # the leftovers score for nobody
        return
    deck = ALL if r.cards is None else mask(r.cards)
    assert sum(clubs) == popcount(deck & CLUBS)
    card_points = popcount(deck & ACES) + popcount(deck & JACKS)
    card_points += 3 * ((deck >> TEN_D) & 1) + 2 * ((deck >> TWO_C) & 1)
    start = [x - y for x, y in zip(scores, pts, strict=True)]
    net = []
    for s in range(S):
        n = max(0, surs[s] - surs[1 - s]) if (r.sur_cancel and S == 2) else surs[s]
        if r.sur_cutoff and 5 * start[s] >= 4 * r.target_score:
            n = 0
        net.append(n * r.sur_points)
    most = max(clubs)
    n_most = clubs.count(most)
    award = r.clubs_points if r.clubs_rule == "most" else min(most, 7)
    if n_most > 1 and not (r.club_tie == "third" and S == 3 and n_most == 2):
        award = 0
    assert sum(pts) == card_points + award + sum(net)
    if award == 7 and r.clubs_rule == "most":
        assert sum(pts) == card_points + 7 + sum(net)
    if r.num_players in (2, 4) and r == Rules(num_players=r.num_players,
                                              target_score=r.target_score):
        assert sum(pts) == 20 + 5 * abs(surs[0] - surs[1])
    if eng.episode == "game" and exp["game_end"]:
        w = int(info.winner[b])
        assert scores[w] >= r.target_score
        assert all(scores[w] > scores[s] for s in range(S) if s != w)


def check_new_round(eng: Engine, b: int, g: Game) -> None:
    r = eng.rules
    P = r.num_players
    assert g.phase == PLAY and g.turn == 0 and g.deal == 0 and g.last_cap == -1
    assert g.piles == [0] * r.num_sides and g.surs == [0] * r.num_sides
    n, H, T = (52 if r.cards is None else len(r.cards)), r.hand_size, r.table_size
    assert len(g.stock) == n - H * P - T and popcount(g.table) == T
    assert g.mover == (g.dealer + 1) % P
    assert all(popcount(h) == H for h in g.hands)
    assert g.table & JACKS == 0  # both initial-table rules keep jacks off the first table
    if r.initial_jacks == "bury":
        assert popcount(g.table & (0xF << 44)) < 3 and popcount(g.table & (0xF << 48)) < 3


def compare_step(eng: Engine, info, b: int, before: Game, a: int, after: Game) -> None:
    r = eng.rules
    exp, count = model_step(before, a, r, eng.episode)
    assert int(info.actor[b]) == before.mover
    assert bool(info.round_end[b]) == (count is not None), (b, a)
    if count is None:
        assert not info.game_end[b] and int(info.winner[b]) == -1
        if after != exp:
            diff = {
                f.name: (getattr(after, f.name), getattr(exp, f.name))
                for f in dataclasses.fields(Game)
                if getattr(after, f.name) != getattr(exp, f.name)
            }
            raise AssertionError(f"game {b}, action {a}: engine vs model differ: {diff}")
        return
    check_round_end(eng, info, b, count)
    check_new_round(eng, b, after)
    assert after.start_dealer == before.start_dealer
    if count["game_end"]:
        assert after.scores == [0] * r.num_sides and after.round == 0
        assert after.dealer == before.start_dealer
    else:
        assert after.scores == count["scores"] and after.round == before.round + 1
        assert after.dealer == (before.dealer + 1) % r.num_players


# ---- capture options vs move_options and the CAPTURE-phase walk --------------------------------


def check_move_options(eng: Engine, b: int) -> int:
    """Check ``move_options`` and the engine's take sequences by brute force; return #options."""
    g = snap(eng, b)
    assert g.phase == PLAY
    expected = []
    for c in cards_of(g.hands[g.mover]):
        opts = brute_options(g.table, c)
        expected += [(c, tuple(cards_of(o))) for o in opts] if opts else [(c, ())]
    moves = move_options(eng, b)
    assert len(moves) == len(set(moves))
    assert sorted(moves) == sorted(expected), (b, g.table, sorted(moves), sorted(expected))
    for c in cards_of(g.hands[g.mover]):
        opts = brute_options(g.table, c)
        e = eng.take([b])
        e.step(np.array([c]))
        if len(opts) < 2:
            assert e.phase[0] == PLAY
            if opts:
                assert move_to_actions(eng, b, c, cards_of(next(iter(opts)))) == [c]
            continue
        assert e.phase[0] == CAPTURE and e.pending[0] == c and e.selection[0] == 0
        found = []
        stack = [(e, [])]
        while stack:
            cur, seq = stack.pop()
            legal = cur.legal_actions(0)
            assert legal
            for a in legal:
                t = a - 52
                assert 0 <= t < 52 and (not seq or t > seq[-1]), "takes must ascend"
                nxt = cur.copy()
                nxt.step(np.array([a]))
                if nxt.phase[0] == CAPTURE:
                    assert nxt.selection[0] == mask(seq + [t]) and nxt.pending[0] == c
                    stack.append((nxt, seq + [t]))
                else:
                    found.append(mask(seq + [t]))
        assert len(found) == len(set(found)), "an option reached by two sequences"
        assert set(found) == opts
        for o in opts:
            assert move_to_actions(eng, b, c, cards_of(o)) == [c] + [52 + t for t in cards_of(o)]
    return len(moves)


# ---- strategies ------------------------------------------------------------------------------


@st.composite
def configs(draw, players: int | None = None) -> dict:
    P = draw(st.sampled_from([2, 3, 4])) if players is None else players
    flags = dict(
        num_players=P,
        target_score=draw(st.integers(20, 62)),
        sur_points=draw(st.sampled_from([5, 5, 2])),
        sur_cancel=draw(st.booleans()),
        sur_cutoff=draw(st.booleans()),
        jack_sur=draw(st.sampled_from(["never", "lone_jack"])),
        initial_jacks=draw(st.sampled_from(["bury", "redeal"])),
        clubs_rule=draw(st.sampled_from(["most", "per_club"])),
        clubs_points=draw(st.sampled_from([7, 13])),
    )
    if P == 3:
        flags["club_tie"] = draw(st.sampled_from(["nobody", "third"]))
    if P == 2:
        flags["open_hand"] = draw(st.booleans())
    return dict(
        flags=flags,
        seed=draw(st.integers(0, 2**32 - 1)),
        batch=draw(st.integers(1, 8)),
        dealer=draw(st.one_of(st.none(), st.integers(0, P - 1))),
        episode=draw(st.sampled_from(["game", "game", "game", "round"])),
    )


@st.composite
def variant_configs(draw) -> dict:
    """A random small variant (docs/rules.md, "Small variants"): a deck of whole deals
    drawn from the 52 cards, with random hand and table sizes and rule flags."""
    cfg = draw(configs())
    flags = cfg["flags"]
    P = flags["num_players"]
    H = draw(st.integers(1, 4))
    T = draw(st.integers(0, 4))
    deals = draw(st.integers(1, min(6, (52 - T) // (H * P))))
    n = T + deals * H * P
    cards = draw(st.permutations(range(52)))[:n]
    flags.update(cards=cards, hand_size=H, table_size=T)
    try:
        Rules(**flags)
    except ValueError:  # a deck no first table can come from, or no stock to bury in
        flags["initial_jacks"] = "redeal"
    try:
        Rules(**flags)
    except ValueError:
        assume(False)
    return cfg


def random_actions(lm: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    acts = np.empty(len(lm), dtype=np.int64)
    for b in range(len(lm)):
        legal = np.flatnonzero(lm[b])
        acts[b] = legal[rng.integers(len(legal))]
    return acts


def playout(cfg: dict, steps: int, oracle_every: int = 0) -> dict:
    eng = Engine(cfg["batch"], seed=cfg["seed"], episode=cfg["episode"], **cfg["flags"])
    if cfg["dealer"] is not None:
        eng.reset(dealer=cfg["dealer"])
    rng = np.random.default_rng(cfg["seed"])
    B = eng.num_games
    games = [snap(eng, b) for b in range(B)]
    for g in games:
        check_new_round(eng, 0, g)
        assert g.scores == [0] * eng.rules.num_sides
        if cfg["dealer"] is not None:
            assert g.dealer == cfg["dealer"]
        else:
            assert g.dealer == eng.rules.num_players - 1
    stats = dict(rounds=0, games=0, captures=0, options=0)
    for step in range(steps):
        lm = eng.legal_mask()
        for b in range(B):
            check_invariants(eng, b, games[b], lm[b])
            if oracle_every and step % oracle_every == 0 and games[b].phase == PLAY:
                stats["options"] += check_move_options(eng, b)
        acts = random_actions(lm, rng)
        info = eng.step(acts)
        for b in range(B):
            after = snap(eng, b)
            compare_step(eng, info, b, games[b], int(acts[b]), after)
            if info.round_end[b]:
                stats["rounds"] += 1
                stats["games"] += int(info.game_end[b])
            elif after.scores != games[b].scores:
                raise AssertionError("scores changed outside a round end")
            stats["captures"] += int(games[b].phase == CAPTURE)
            games[b] = after
    return stats


# ---- the property tests ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@SETTINGS
@given(data=st.data())
def test_random_playouts_match_model(players: int, data) -> None:
    cfg = data.draw(configs(players))
    playout(cfg, steps=240, oracle_every=9)


@SETTINGS
@given(cfg=variant_configs())
def test_random_variant_playouts_match_model(cfg: dict) -> None:
    playout(cfg, steps=120, oracle_every=7)


def test_playouts_reach_round_and_game_ends() -> None:
    """The property tests really exercise counts, game ends and the CAPTURE phase."""
    totals = dict(rounds=0, games=0, captures=0, options=0)
    for players in (2, 3, 4):
        cfg = dict(flags=dict(num_players=players, target_score=40), seed=players, batch=6,
                   dealer=None, episode="game")
        stats = playout(cfg, steps=300, oracle_every=25)
        for k in totals:
            totals[k] += stats[k]
    assert totals["rounds"] >= 20 and totals["games"] >= 3 and totals["captures"] >= 10


def test_default_rules_round_total() -> None:
    """Default rules, P=2 and P=4: every round hands out exactly 20 + 5*|surs0 - surs1|."""
    for players in (2, 4):
        eng = Engine(16, seed=123 + players, num_players=players)
        rng = np.random.default_rng(players)
        rounds = 0
        for _ in range(400):
            info = eng.step(eng.random_actions(rng))
            for b in np.flatnonzero(info.round_end):
                s0, s1 = (int(x) for x in info.surs[b])
                assert int(info.round_points[b].sum()) == 20 + 5 * abs(s0 - s1)
                rounds += 1
        assert rounds >= 50


# ---- capture options from constructed positions with crowded tables ---------------------------


@st.composite
def positions(draw) -> tuple[int, Position]:
    P = draw(st.sampled_from([2, 3, 4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    deals = draw(st.integers(1, 12 // P))
    played = draw(st.integers(0, 4 * P - 1))
    dealer = draw(st.integers(0, P - 1))
    n_table = draw(st.integers(0, 14))
    numeral_heavy = draw(st.booleans())
    sizes = [4 - max(0, -(-(played - k) // P)) for k in range(P)]  # k-th seat after dealer
    n_stock = 48 - 4 * P * deals
    n_table = min(n_table, 52 - n_stock - sum(sizes))
    cards = [int(c) for c in rng.permutation(52)]
    if numeral_heavy:  # numerals first, so that the table is full of them
        cards.sort(key=lambda c: (c >= 40, rng.random()))
    table, rest = cards[:n_table], [int(c) for c in rng.permutation(cards[n_table:])]
    hands: list[list[int]] = [[] for _ in range(P)]
    for k in range(P):
        hands[(dealer + 1 + k) % P] = [rest.pop() for _ in range(sizes[k])]
    stock = [rest.pop() for _ in range(n_stock)]
    S = 2 if P == 4 else P
    piles = [rest[s::S] for s in range(S)]
    pos = Position(hands=hands, table=table, stock=stock, piles=piles,
                   dealer=dealer, surs=[int(rng.integers(0, 3)) for _ in range(S)],
                   last_capturer=int(rng.integers(-1, P)), seed=seed)
    return P, pos


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=positions(), jack_sur=st.sampled_from(["never", "lone_jack"]))
def test_options_and_steps_from_positions(spec, jack_sur: str) -> None:
    P, pos = spec
    eng = Engine.from_positions([pos], num_players=P, jack_sur=jack_sur)
    g = snap(eng, 0)
    assert mask(g.stock) | g.table | sum(g.hands) | sum(g.piles) == ALL
    check_move_options(eng, 0)
    # a short playout from there, on the model (reaches the last deal and the count)
    rng = np.random.default_rng(len(pos.stock))
    for _ in range(30):
        lm = eng.legal_mask()
        check_invariants(eng, 0, g, lm[0])
        acts = random_actions(lm, rng)
        info = eng.step(acts)
        after = snap(eng, 0)
        compare_step(eng, info, 0, g, int(acts[0]), after)
        g = after


@pytest.mark.parametrize("jack_sur", ["never", "lone_jack"])
@pytest.mark.parametrize(
    "table, last_deal, sur",
    [
        (["JC"], False, {"never": 0, "lone_jack": 1}),
        (["JC"], True, {"never": 0, "lone_jack": 0}),  # never a sur in the last deal
        (["JC", "JH"], False, {"never": 0, "lone_jack": 0}),
        (["5C"], False, {"never": 0, "lone_jack": 0}),
        (["JC", "QS"], False, {"never": 0, "lone_jack": 0}),  # the queen stays
        (["QS"], False, {"never": 0, "lone_jack": 0}),  # nothing to take: laid
    ],
)
def test_jack_sur_against_model(table, last_deal: bool, sur: dict, jack_sur: str) -> None:
    """Random play almost never reaches a lone jack on the table; build it (§5)."""
    from pasur_env.pasur.cards import parse_cards

    tbl = parse_cards(table)
    jd = 41
    rest = [c for c in range(52) if c not in tbl and c != jd]
    n_stock = 0 if last_deal else 40
    pos = Position(hands=[[jd] + rest[:3], rest[3:7]], table=tbl, stock=rest[7:7 + n_stock],
                   piles=[rest[7 + n_stock::2], rest[8 + n_stock::2]], dealer=1,
                   last_capturer=1)
    eng = Engine.from_positions([pos], num_players=2, jack_sur=jack_sur)
    g = snap(eng, 0)
    info = eng.step(np.array([jd]))
    after = snap(eng, 0)
    compare_step(eng, info, 0, g, jd, after)
    assert after.surs == [sur[jack_sur], 0]


def test_worked_example() -> None:
    """§4: table A, 2, 2, 4, 10 in mixed suits."""
    table = mask([0, 5, 6, 15, 39])  # AC 2D 2H 4S 10S
    names = {0: "A", 5: "2", 6: "2'", 15: "4", 39: "10"}

    def opts(value: int) -> set[tuple[str, ...]]:
        card = 4 * (value - 1) + 2  # a heart not on the table
        return {tuple(names[t] for t in cards_of(o)) for o in brute_options(table, card)}

    assert opts(10) == {("A",)}
    assert opts(9) == {("2",), ("2'",)}
    assert opts(8) == {("A", "2"), ("A", "2'")}
    assert opts(7) == {("2", "2'"), ("4",)}
    assert opts(6) == {("A", "4"), ("A", "2", "2'")}
    assert opts(5) == {("2", "4"), ("2'", "4")}
    assert opts(4) == {("A", "2", "4"), ("A", "2'", "4")}
    assert opts(3) == {("2", "2'", "4")}
    assert opts(2) == {("A", "2", "2'", "4")}
    assert opts(1) == {("10",)}


# ---- determinism, batch independence, copies -----------------------------------------------------


@SETTINGS
@given(cfg=configs())
def test_same_seed_same_trajectory(cfg: dict) -> None:
    engines = [Engine(cfg["batch"], seed=cfg["seed"], **cfg["flags"]) for _ in range(2)]
    rngs = [np.random.default_rng(cfg["seed"] + 1) for _ in range(2)]
    np.testing.assert_array_equal(engines[0].state, engines[1].state)
    for _ in range(150):
        infos = [e.step(e.random_actions(r)) for e, r in zip(engines, rngs, strict=True)]
        np.testing.assert_array_equal(engines[0].state, engines[1].state)
        np.testing.assert_array_equal(infos[0].round_points, infos[1].round_points)


@SETTINGS
@given(cfg=configs(), others=st.integers(0, 2**32 - 1))
def test_game_independent_of_batch(cfg: dict, others: int) -> None:
    one = Engine(1, seed=cfg["seed"], **cfg["flags"])
    five = Engine(5, seed=cfg["seed"], **cfg["flags"])
    rng, rng_others = np.random.default_rng(cfg["seed"]), np.random.default_rng(others)
    np.testing.assert_array_equal(one.state[0], five.state[0])
    for _ in range(150):
        a0 = one.random_actions(rng)
        acts = five.random_actions(rng_others)
        acts[0] = a0[0]
        i1, i5 = one.step(a0), five.step(acts)
        np.testing.assert_array_equal(one.state[0], five.state[0])
        assert bool(i1.round_end[0]) == bool(i5.round_end[0])
        np.testing.assert_array_equal(i1.round_points[0], i5.round_points[0])


def test_different_seeds_differ() -> None:
    a, b = Engine(4, seed=1), Engine(4, seed=2)
    assert not np.array_equal(a.state, b.state)
    # the games of one batch are dealt differently
    assert len({tuple(a.state[i, K.DECK:K.DECK + 52]) for i in range(4)}) == 4


@SETTINGS
@given(cfg=configs(), warmup=st.integers(0, 80))
def test_copy_and_take_are_independent(cfg: dict, warmup: int) -> None:
    B = max(cfg["batch"], 3)
    eng = Engine(B, seed=cfg["seed"], **cfg["flags"])
    rng = np.random.default_rng(cfg["seed"])
    for _ in range(warmup):
        eng.step(eng.random_actions(rng))
    s0 = eng.state.copy()
    idx = [2, 0, 2, B - 1]
    cp, tk = eng.copy(), eng.take(idx)
    assert cp.num_games == B and tk.num_games == len(idx)
    np.testing.assert_array_equal(tk.state, s0[idx])
    history = []
    for _ in range(120):  # crosses at least one count and reshuffle
        acts = eng.random_actions(rng)
        history.append(acts)
        eng.step(acts)
    # the copies did not move with the original
    np.testing.assert_array_equal(cp.state, s0)
    np.testing.assert_array_equal(tk.state, s0[idx])
    # ... and replaying the same actions brings them to the same place (random streams included)
    for acts in history:
        ic = cp.step(acts)
        it = tk.step(acts[idx])
        np.testing.assert_array_equal(it.round_points, ic.round_points[idx])
    np.testing.assert_array_equal(cp.state, eng.state)
    np.testing.assert_array_equal(tk.state, eng.state[idx])
    # mutating a copy leaves the original alone
    before = eng.state.copy()
    cp.step(cp.random_actions(rng))
    tk.state[:] = 0
    np.testing.assert_array_equal(eng.state, before)


def test_reset_with_seed_repeats_the_deal() -> None:
    a = Engine(3, seed=99, num_players=3)
    first = a.state.copy()
    rng = np.random.default_rng(0)
    for _ in range(70):
        a.step(a.random_actions(rng))
    a.reset(seed=99)
    np.testing.assert_array_equal(a.state, first)
    a.reset()  # keeps the streams going: new deals
    assert not np.array_equal(a.state[:, K.DECK:K.DECK + 52], first[:, K.DECK:K.DECK + 52])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_random_playout_keeps_invariants(players: int) -> None:
    eng = Engine(8, seed=players, num_players=players, target_score=30)
    twin = eng.copy()
    rounds = eng.playout(700, seed=5)
    assert rounds >= 8 * 10
    assert twin.playout(700, seed=5) == rounds
    np.testing.assert_array_equal(twin.state, eng.state)
    lm = eng.legal_mask()
    for b in range(8):
        check_invariants(eng, b, snap(eng, b), lm[b])
    # and the Python-level steps carry on from there, still matching the model
    playout_from(eng, steps=60)


def playout_from(eng: Engine, steps: int) -> None:
    rng = np.random.default_rng(0)
    games = [snap(eng, b) for b in range(eng.num_games)]
    for _ in range(steps):
        lm = eng.legal_mask()
        for b in range(eng.num_games):
            check_invariants(eng, b, games[b], lm[b])
        acts = random_actions(lm, rng)
        info = eng.step(acts)
        for b in range(eng.num_games):
            after = snap(eng, b)
            compare_step(eng, info, b, games[b], int(acts[b]), after)
            games[b] = after


def test_parallel_kernels_match_serial() -> None:
    """The multi-threaded build of the step, mask and reset kernels plays like the serial one.

    (Kept small: compiling the parallel twins is the expensive part of this test.)
    """
    par = Engine(6, seed=8, num_players=4, parallel=True)
    ser = Engine(6, seed=8, num_players=4, parallel=False)
    np.testing.assert_array_equal(par.state, ser.state)
    rng = np.random.default_rng(1)
    for _ in range(150):
        lm = par.legal_mask()
        np.testing.assert_array_equal(lm, ser.legal_mask())
        acts = random_actions(lm, rng)
        i1, i2 = par.step(acts), ser.step(acts)
        np.testing.assert_array_equal(par.state, ser.state)
        np.testing.assert_array_equal(i1.round_points, i2.round_points)
    which = np.array([True, False] * 3)
    par.reset_games(which)
    ser.reset_games(which)
    np.testing.assert_array_equal(par.state, ser.state)
    bad = random_actions(par.legal_mask(), rng)
    bad[3] = 104
    before = par.state.copy()
    with pytest.raises(ValueError, match="game 3"):
        par.step(bad)
    np.testing.assert_array_equal(par.state, before)


# ---- dealing from a given deck (§3) ----------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 3),
    initial_jacks=st.sampled_from(["bury", "redeal"]),
    jacks_on_table=st.integers(0, 2),
)
# the buried jack's replacement makes three kings: the check runs again and redeals
@example(players=4, seed=7277737, dealer=0, initial_jacks="bury", jacks_on_table=1)
def test_deal_from_given_deck(players, seed, dealer, initial_jacks, jacks_on_table) -> None:
    P = players
    dealer %= P
    rng = np.random.default_rng(seed)
    deck = [int(c) for c in rng.permutation(52)]
    # move the wanted number of jacks into the table slots 4P..4P+3
    tslots = list(range(4 * P, 4 * P + 4))
    jack_pos = [i for i, c in enumerate(deck) if c // 4 == 10]
    for want in range(jacks_on_table):
        slot = tslots[want]
        j = next(i for i in jack_pos if i not in tslots[:want])
        deck[slot], deck[j] = deck[j], deck[slot]
        jack_pos = [i for i, c in enumerate(deck) if c // 4 == 10]
    eng = Engine(2, seed=seed, num_players=P, initial_jacks=initial_jacks)
    eng.reset(deck=deck, dealer=dealer)
    g = snap(eng, 0)
    check_new_round(eng, 0, g)
    assert g.mover == (dealer + 1) % P and g.dealer == dealer
    table4 = deck[4 * P:4 * P + 4]
    top = deck[4 * P + 4]
    n_j = sum(c // 4 == 10 for c in table4)
    n_q = sum(c // 4 == 11 for c in table4)
    n_k = sum(c // 4 == 12 for c in table4)
    if initial_jacks == "redeal":
        redealt = n_j > 0
    else:
        redealt = n_j >= 2 or n_q >= 3 or n_k >= 3
        if n_j == 1 and not redealt:
            if top // 4 == 10:
                return  # another jack comes up: what follows depends on where the first went
            # the top card takes the jack's place, then the check runs again (§3)
            redealt = (n_q + (top // 4 == 11)) >= 3 or (n_k + (top // 4 == 12)) >= 3
    if redealt:
        return  # reshuffled with the game's stream: only the invariants hold
    # hands: four cards to each seat in turn, starting after the dealer, in dealing order
    for k in range(P):
        seat = (dealer + 1 + k) % P
        assert g.order[seat] == deck[4 * k:4 * k + 4]
    if n_j == 0:
        assert g.table == mask(table4)
        assert g.stock == deck[4 * P + 4:]
    else:
        jack = next(c for c in table4 if c // 4 == 10)
        assert g.table == mask([c for c in table4 if c != jack] + [top])
        assert jack in g.stock
        assert [c for c in g.stock if c != jack] == deck[4 * P + 5:]
    # both games of the batch got the same deck
    assert snap(eng, 1).order == g.order


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(["mini", "small"]), order=st.randoms(use_true_random=False),
       dealer=st.integers(0, 1))
def test_variant_deal_from_given_deck_is_exact(preset: str, order, dealer: int) -> None:
    """A variant's deck order deals exactly as given, drawing nothing from the stream,
    when the first table passes the initial-table check (what a chance node needs)."""
    eng = Engine(1, seed=5, preset=preset)
    r = eng.rules
    deck = list(r.cards)
    order.shuffle(deck)
    P, H, T = r.num_players, r.hand_size, r.table_size
    table = deck[H * P:H * P + T]
    stream = eng.state[0, K.RNG]
    eng.reset(deck=deck, dealer=dealer)
    if any(c // 4 == 10 for c in table):  # redeal: shuffled from the game's stream
        return
    assert eng.state[0, K.RNG] == stream
    g = snap(eng, 0)
    check_new_round(eng, 0, g)
    for k in range(P):
        assert g.order[(dealer + 1 + k) % P][:H] == deck[H * k:H * k + H]
    assert g.table == mask(table) and g.stock == deck[H * P + T:]
    assert [int(c) for c in eng.start_decks[0]] == deck


def test_buried_jack_position_is_uniform() -> None:
    """The buried jack goes to a uniformly random one of the stock's positions (§3)."""
    P = 4
    deck = list(range(52))
    deck.remove(40)
    deck.insert(4 * P, 40)  # the table is J♣ 5♣ 5♦ 5♥, the stock starts with 5♠; no other jack
    eng = Engine(4000, seed=17, num_players=P)
    eng.reset(deck=deck)
    stock = np.array([eng.stock(b) for b in range(eng.num_games)])
    assert stock.shape == (4000, 52 - 4 * P - 4)
    where = np.argmax(stock == 40, axis=1)
    assert (stock == 40).sum(axis=1).tolist() == [1] * 4000
    counts = np.bincount(where, minlength=stock.shape[1])
    expected = 4000 / stock.shape[1]
    assert counts.min() > 0.5 * expected and counts.max() < 1.6 * expected, counts
