"""The compiled Pasur rules: every rule of ``pasur-rules.md`` lives in this module.

State layout
------------
A batch of B games is one ``int64`` array ``state`` of shape ``(B, NCOL)``; one row
is one game, so copying, slicing and building batches of positions (what search
agents need) are plain numpy row operations, and each game's data is contiguous
for the per-game loops below. Sets of cards are 52-bit masks (bit ``c`` = card id
``c``). The column offsets are the constants below; :class:`pasur_env.Engine`
exposes them as named views.

Rules are passed as the small ``params`` vector built by
:meth:`pasur_env.rules.Rules.as_params` (indices ``P_*`` below).

Randomness (shuffles, the buried jack's position) comes from a per-game
splitmix64 stream stored in the state, so a game's trajectory depends only on its
own seed and actions, never on the batch size or on the other games.

Every public kernel loops over games with ``prange``; it is compiled twice, serial
and parallel (see ``pasur_env.engine``), and numba runs ``prange`` as ``range`` in
the serial build.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

# ---- state columns -------------------------------------------------------------
HAND = 0  # 4: hand of each seat (mask)
ORDER = 4  # 16: cards of the current deal of each seat in dealing order, -1 when played
TABLE = 20  # table (mask)
PILE = 21  # 3: captured pile of each side (mask)
SURS = 24  # 3: surs of each side this round
SCORE = 27  # 3: game score of each side
DECK = 30  # 52: card order of this round; the stock is DECK[STOCK_POS:]
STOCK_POS = 82  # index of the top stock card in DECK (52 = stock empty)
DEALER = 83  # dealer seat of this round
START_DEALER = 84  # dealer of the first round of each game (reset option)
MOVER = 85  # seat to move
PHASE = 86  # PLAY, CAPTURE or DONE
PENDING = 87  # card played that awaits its capture choice, -1 if none
SELECTION = 88  # table cards chosen so far in the CAPTURE phase (mask)
TURN = 89  # turns finished in this round (0..48)
DEAL = 90  # index of the current deal in the round (0-based)
LAST_CAP = 91  # seat of the last capturer this round, -1 if none
ROUND = 92  # rounds finished in this game
RNG = 93  # splitmix64 state of this game
NCOL = 94

PLAY, CAPTURE, DONE = 0, 1, 2

# ---- params indices ----------------------------------------------------------
P_PLAYERS, P_SIDES, P_TARGET, P_SUR_POINTS, P_SUR_CANCEL, P_SUR_CUTOFF = 0, 1, 2, 3, 4, 5
P_JACK_SUR, P_INITIAL_JACKS, P_CLUBS_POINTS, P_CLUBS_RULE, P_CLUB_TIE, P_EPISODE_ROUND = (
    6,
    7,
    8,
    9,
    10,
    11,
)

# ---- step info columns ---------------------------------------------------------
I_ROUND_END, I_GAME_END, I_WINNER, I_ACTOR = 0, 1, 2, 3
I_POINTS, I_SCORES, I_SURS, I_CLUBS = 4, 7, 10, 13
NINFO = 16

# ---- card groups (see cards.py) -------------------------------------------------
NUMERAL_BITS = (1 << 40) - 1
JACK_BITS = 0xF << 40
QUEEN_BITS = 0xF << 44
KING_BITS = 0xF << 48
CLUB_BITS = 0x1111111111111
ACE_BITS = 0xF
TEN_DIAMONDS_BIT = 1 << 37
TWO_CLUBS_BIT = 1 << 4
SUM_BITS = 0x7FF  # reachable sums 0..10


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    """Number of set bits of a non-negative 64-bit mask (SWAR, no multiply)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True, inline="always")
def lowest(x: int) -> int:
    """Id of the lowest card in a non-empty mask."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def highest(x: int) -> int:
    """Id of the highest card in a non-empty mask."""
    return 63 - leading_zeros(x)


@njit(cache=True, inline="always")
def side_of(seat: int, num_players: int) -> int:
    """Scoring side of a seat: partners share a side when 4 play."""
    return seat % 2 if num_players == 4 else seat


@njit(cache=True, inline="always")
def _next_random(st: np.ndarray, b: int) -> np.uint64:
    z = np.uint64(st[b, RNG]) + np.uint64(0x9E3779B97F4A7C15)
    st[b, RNG] = np.int64(z)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _random_below(st: np.ndarray, b: int, n: int) -> int:
    """Uniform integer in [0, n) from the game's stream (n < 2**11)."""
    z = _next_random(st, b) >> np.uint64(11)
    return np.int64((z * np.uint64(n)) >> np.uint64(53))


@njit(cache=True)
def seed_streams(st: np.ndarray, base: np.uint64, offset: int) -> None:
    """Give game ``b`` the stream ``splitmix(base + (offset + b) * golden)``."""
    for b in range(st.shape[0]):
        z = base + np.uint64(offset + b) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        st[b, RNG] = np.int64(z ^ (z >> np.uint64(31)))


# ---- capture options -------------------------------------------------------------
@njit(cache=True)
def take_bits(table: int, card: int, selection: int) -> int:
    """Table cards ``t`` that may be added to ``selection`` when ``card`` is played (§9).

    ``t`` is legal iff some capture option O of ``card`` has ``selection | {t}`` equal to
    its ``|selection| + 1`` smallest ids. For a numeral of value v the options are the
    sets of table numerals summing to 11 - v, so ``t`` must exceed every selected id and
    the rest of the sum must be reachable with table numerals of higher id: a subset-sum
    bitset over sums 0..10, built while scanning the table from the highest id down.
    Kings and queens: every table card of the same rank. A jack's single option never
    goes through a selection; this returns 0 for it.
    """
    rank = card >> 2
    if rank >= 11:
        if selection != 0:
            return 0
        return table & (0xF << (4 * rank))
    if rank == 10:
        return 0
    need = 10 - rank
    top = -1
    s = selection
    while s:
        c = lowest(s)
        need -= (c >> 2) + 1
        top = c
        s &= s - 1
    if need <= 0:
        return 0
    nums = table & NUMERAL_BITS & ~selection
    reach = 1
    out = 0
    while nums:
        t = highest(nums)
        if t <= top:
            break
        nums &= ~(1 << t)
        v = (t >> 2) + 1
        rem = need - v
        if rem >= 0 and (reach >> rem) & 1:
            out |= 1 << t
        reach = (reach | (reach << v)) & SUM_BITS
    return out


@njit(cache=True, inline="always")
def _is_complete(card: int, selection: int) -> bool:
    """Whether ``selection`` (a legal selection for ``card``) is a whole capture option."""
    rank = card >> 2
    if rank >= 11:
        return selection != 0
    total = 0
    s = selection
    while s:
        total += (lowest(s) >> 2) + 1
        s &= s - 1
    return total == 10 - rank


@njit(cache=True)
def resolve_play(table: int, card: int) -> tuple[int, int]:
    """What playing ``card`` on ``table`` does: ``(n, captured)``.

    ``n`` is 0 (no option: the card is laid), 1 (one option: ``captured`` is it) or 2
    (two or more options: the CAPTURE phase follows). A single option is found by
    following the only legal take at each step; a step with two legal takes means at
    least two options, since each option is exactly one take sequence.
    """
    rank = card >> 2
    if rank == 10:
        grab = table & (NUMERAL_BITS | JACK_BITS)
        return (1, grab) if grab else (0, 0)
    sel = 0
    while True:
        takes = take_bits(table, card, sel)
        if takes == 0:
            return 0, 0  # only reachable with sel == 0
        if takes & (takes - 1):
            return 2, 0
        sel |= takes
        if _is_complete(card, sel):
            return 1, sel


@njit(cache=True)
def enumerate_options(table: int, card: int, out: np.ndarray) -> int:
    """:func:`enumerate_options_into` with its own search stack."""
    return enumerate_options_into(table, card, out, np.empty(256, dtype=np.int64))


@njit(cache=True)
def enumerate_options_into(table: int, card: int, out: np.ndarray, stack: np.ndarray) -> int:
    """Write every capture option of ``card`` (as masks) to ``out``; return their number.

    Depth-first over take sequences, so each option appears once. Returns -1 if ``out``
    is too small.
    """
    rank = card >> 2
    if rank == 10:
        grab = table & (NUMERAL_BITS | JACK_BITS)
        if grab:
            out[0] = grab
            return 1
        return 0
    stack[0] = 0
    depth = 1
    n = 0
    while depth:
        depth -= 1
        sel = stack[depth]
        takes = take_bits(table, card, sel)
        while takes:
            t = lowest(takes)
            takes &= takes - 1
            nxt = sel | (1 << t)
            if _is_complete(card, nxt):
                if n >= out.shape[0]:
                    return -1
                out[n] = nxt
                n += 1
            else:
                if depth >= stack.shape[0]:
                    return -1
                stack[depth] = nxt
                depth += 1
    return n


@njit(cache=True, inline="always")
def is_last_deal(st: np.ndarray, b: int) -> bool:
    return st[b, STOCK_POS] >= 52


@njit(cache=True)
def sur_on_table(
    st: np.ndarray, b: int, params: np.ndarray, table: int, card: int, captured: int
) -> bool:
    """Whether capturing ``captured`` with ``card`` from ``table`` in game ``b``'s deal
    is a sur (§5); ``table`` need not be the game's current one (lookahead)."""
    if (table & ~captured) != 0 or is_last_deal(st, b):
        return False
    if (card >> 2) != 10:
        return True
    return params[P_JACK_SUR] == 1 and popcount(table) == 1 and (table & JACK_BITS) != 0


@njit(cache=True)
def capture_is_sur(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> bool:
    """Whether capturing ``captured`` with ``card`` in game ``b`` is a sur (§5)."""
    return sur_on_table(st, b, params, st[b, TABLE], card, captured)


# ---- legality --------------------------------------------------------------------
@njit(cache=True, inline="always")
def legal_bits(st: np.ndarray, b: int) -> int:
    """Legal actions of game ``b`` as a mask: cards to PLAY, or table cards to TAKE."""
    phase = st[b, PHASE]
    if phase == PLAY:
        return st[b, HAND + st[b, MOVER]]
    if phase == CAPTURE:
        return take_bits(st[b, TABLE], st[b, PENDING], st[b, SELECTION])
    return 0


@njit(cache=True, inline="always")
def legal_row(st: np.ndarray, b: int, out: np.ndarray) -> None:
    """Fill ``out`` (104,) with game ``b``'s mover's legal actions (1/True) and 0 elsewhere."""
    out[:] = 0
    bits = legal_bits(st, b)
    off = 52 if st[b, PHASE] == CAPTURE else 0
    while bits:
        out[off + lowest(bits)] = 1
        bits &= bits - 1


@njit(cache=True, parallel=False)
def legal_mask_kernel(st: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (B, 104) bool with the legal actions of each game's mover."""
    for b in prange(st.shape[0]):
        legal_row(st, b, out[b])


@njit(cache=True, inline="always")
def _action_is_legal(st: np.ndarray, b: int, a: int) -> bool:
    phase = st[b, PHASE]
    if phase == DONE:
        return a == -1
    if phase == PLAY:
        if a < 0 or a >= 52:
            return False
    else:
        if a < 52 or a >= 104:
            return False
        a -= 52
    return (legal_bits(st, b) >> a) & 1 == 1


@njit(cache=True)
def pick_legal(st: np.ndarray, b: int, u: float) -> int:
    """The legal action of game ``b`` at quantile ``u`` in [0, 1) (uniform for uniform u)."""
    bits = legal_bits(st, b)
    n = popcount(bits)
    if n == 0:
        return -1
    k = min(int(u * n), n - 1)
    for _ in range(k):
        bits &= bits - 1
    return lowest(bits) + (52 if st[b, PHASE] == CAPTURE else 0)


@njit(cache=True, parallel=False)
def random_actions_kernel(st: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """Uniformly random legal action of every game, from uniforms ``u`` (B,)."""
    for b in prange(st.shape[0]):
        out[b] = pick_legal(st, b, u[b])


# ---- dealing ---------------------------------------------------------------------
@njit(cache=True)
def _shuffle(st: np.ndarray, b: int) -> None:
    for i in range(51, 0, -1):
        j = _random_below(st, b, i + 1)
        tmp = st[b, DECK + i]
        st[b, DECK + i] = st[b, DECK + j]
        st[b, DECK + j] = tmp


@njit(cache=True)
def _deal_hands(st: np.ndarray, b: int, num_players: int) -> None:
    """Four cards to each seat in turn, starting after the dealer."""
    pos = st[b, STOCK_POS]
    dealer = st[b, DEALER]
    for k in range(num_players):
        seat = (dealer + 1 + k) % num_players
        hand = 0
        for j in range(4):
            c = st[b, DECK + pos]
            pos += 1
            hand |= 1 << c
            st[b, ORDER + 4 * seat + j] = c
        st[b, HAND + seat] = hand
    st[b, STOCK_POS] = pos


@njit(cache=True)
def _first_deal(st: np.ndarray, b: int, params: np.ndarray) -> None:
    """Deal hands and the table, then apply the initial-table check (§3)."""
    num_players = params[P_PLAYERS]
    bury = params[P_INITIAL_JACKS] == 0
    while True:
        st[b, STOCK_POS] = 0
        _deal_hands(st, b, num_players)
        pos = st[b, STOCK_POS]
        table = 0
        for j in range(4):
            table |= 1 << st[b, DECK + pos + j]
        pos += 4
        redeal = False
        while True:
            jacks = popcount(table & JACK_BITS)
            if not bury:
                redeal = jacks > 0
                break
            if jacks >= 2 or popcount(table & QUEEN_BITS) >= 3 or popcount(table & KING_BITS) >= 3:
                redeal = True
                break
            if jacks == 0:
                break
            # bury: the top stock card takes the jack's place, the jack goes into the
            # stock at a uniformly random one of its len(stock) + 1 positions
            jack = lowest(table & JACK_BITS)
            top = st[b, DECK + pos]
            table = (table & ~(1 << jack)) | (1 << top)
            for i in range(pos - 4, pos):  # keep DECK a permutation: top takes the slot
                if st[b, DECK + i] == jack:
                    st[b, DECK + i] = top
            k = _random_below(st, b, 52 - pos)  # stock without top has 51 - pos cards
            for i in range(k):
                st[b, DECK + pos + i] = st[b, DECK + pos + 1 + i]
            st[b, DECK + pos + k] = jack
        if redeal:
            _shuffle(st, b)
            continue
        st[b, TABLE] = table
        st[b, STOCK_POS] = pos
        return


@njit(cache=True)
def start_round(st: np.ndarray, b: int, params: np.ndarray, shuffle: bool) -> None:
    """Clear the round state, shuffle (unless the deck is given) and deal (§3)."""
    num_players = params[P_PLAYERS]
    for s in range(3):
        st[b, PILE + s] = 0
        st[b, SURS + s] = 0
    for i in range(16):
        st[b, ORDER + i] = -1
    for p in range(4):
        st[b, HAND + p] = 0
    if shuffle:
        for i in range(52):  # from a fixed order: the deal depends only on the stream
            st[b, DECK + i] = i
        _shuffle(st, b)
    _first_deal(st, b, params)
    st[b, MOVER] = (st[b, DEALER] + 1) % num_players
    st[b, PHASE] = PLAY
    st[b, PENDING] = -1
    st[b, SELECTION] = 0
    st[b, TURN] = 0
    st[b, DEAL] = 0
    st[b, LAST_CAP] = -1


@njit(cache=True)
def new_game(st: np.ndarray, b: int, params: np.ndarray, shuffle: bool) -> None:
    """Zero the scores and deal the first round with the game's first dealer."""
    for s in range(3):
        st[b, SCORE + s] = 0
    st[b, ROUND] = 0
    st[b, DEALER] = st[b, START_DEALER]
    start_round(st, b, params, shuffle)


# ---- scoring -----------------------------------------------------------------------
@njit(cache=True, inline="always")
def card_points(cards: int) -> int:
    """Points the cards of a mask are worth by themselves (10♦ 3, 2♣ 2, aces, jacks 1)."""
    pts = popcount(cards & ACE_BITS) + popcount(cards & JACK_BITS)
    if cards & TEN_DIAMONDS_BIT:
        pts += 3
    if cards & TWO_CLUBS_BIT:
        pts += 2
    return pts


@njit(cache=True)
def _score_round(st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray) -> None:
    """Sweep the leftovers, score the round (§6), and record it in ``info``."""
    num_players = params[P_PLAYERS]
    sides = params[P_SIDES]
    last = st[b, LAST_CAP]
    if last >= 0:
        s = side_of(last, num_players)
        st[b, PILE + s] |= st[b, TABLE]
        st[b, TABLE] = 0
    clubs = np.zeros(3, dtype=np.int64)
    most = -1
    for s in range(sides):
        clubs[s] = popcount(st[b, PILE + s] & CLUB_BITS)
        most = max(most, clubs[s])
    n_most = 0
    leader = -1
    for s in range(sides):
        if clubs[s] == most:
            n_most += 1
            leader = s
    club_award = params[P_CLUBS_POINTS] if params[P_CLUBS_RULE] == 0 else min(most, 7)
    if n_most > 1:
        leader = -1
        if params[P_CLUB_TIE] == 1 and sides == 3 and n_most == 2:
            for s in range(sides):
                if clubs[s] != most:
                    leader = s
    target = params[P_TARGET]
    for s in range(sides):
        pile = st[b, PILE + s]
        pts = card_points(pile)
        if s == leader:
            pts += club_award
        surs = st[b, SURS + s]
        if params[P_SUR_CANCEL] == 1 and sides == 2:
            surs = max(0, surs - st[b, SURS + 1 - s])
        if params[P_SUR_CUTOFF] == 1 and 5 * st[b, SCORE + s] >= 4 * target:
            surs = 0
        pts += surs * params[P_SUR_POINTS]
        info[b, I_POINTS + s] = pts
        info[b, I_SURS + s] = st[b, SURS + s]
        info[b, I_CLUBS + s] = clubs[s]
    for s in range(sides):
        st[b, SCORE + s] += info[b, I_POINTS + s]
        info[b, I_SCORES + s] = st[b, SCORE + s]
    info[b, I_ROUND_END] = 1
    # winner: of the game (§6), or of the round for one-round episodes
    col = I_POINTS if params[P_EPISODE_ROUND] == 1 else I_SCORES
    best = -1
    for s in range(sides):
        if best < 0 or info[b, col + s] > info[b, col + best]:
            best = s
    for s in range(sides):
        if s != best and info[b, col + s] == info[b, col + best]:
            best = -1
            break
    if params[P_EPISODE_ROUND] == 1:
        info[b, I_GAME_END] = 1
        info[b, I_WINNER] = best
    elif best >= 0 and info[b, I_SCORES + best] >= target:
        info[b, I_GAME_END] = 1
        info[b, I_WINNER] = best


# ---- one action --------------------------------------------------------------------
@njit(cache=True)
def _capture(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> None:
    seat = st[b, MOVER]
    side = side_of(seat, params[P_PLAYERS])
    if capture_is_sur(st, b, params, card, captured):
        st[b, SURS + side] += 1
    st[b, TABLE] &= ~captured
    st[b, PILE + side] |= captured | (1 << card)
    st[b, LAST_CAP] = seat


@njit(cache=True)
def _end_turn(
    st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray, auto_reset: bool
) -> None:
    num_players = params[P_PLAYERS]
    st[b, PHASE] = PLAY
    st[b, PENDING] = -1
    st[b, SELECTION] = 0
    st[b, TURN] += 1
    st[b, MOVER] = (st[b, MOVER] + 1) % num_players
    if st[b, TURN] % (4 * num_players) != 0:
        return
    if st[b, STOCK_POS] < 52:
        _deal_hands(st, b, num_players)
        st[b, DEAL] += 1
        return
    _score_round(st, b, params, info)
    if info[b, I_GAME_END] == 1:
        if auto_reset:
            new_game(st, b, params, True)
        else:
            st[b, PHASE] = DONE
    else:
        st[b, ROUND] += 1
        st[b, DEALER] = (st[b, DEALER] + 1) % num_players
        start_round(st, b, params, True)


@njit(cache=True)
def apply_action(
    st: np.ndarray, b: int, a: int, params: np.ndarray, info: np.ndarray, auto_reset: bool
) -> None:
    """Advance game ``b`` by the (already validated) action ``a``."""
    for k in range(NINFO):
        info[b, k] = 0
    info[b, I_WINNER] = -1
    seat = st[b, MOVER]
    info[b, I_ACTOR] = seat
    phase = st[b, PHASE]
    if phase == DONE:
        return
    if phase == PLAY:
        card = a
        st[b, HAND + seat] &= ~(1 << card)
        for j in range(4):
            if st[b, ORDER + 4 * seat + j] == card:
                st[b, ORDER + 4 * seat + j] = -1
        n, captured = resolve_play(st[b, TABLE], card)
        if n == 0:
            st[b, TABLE] |= 1 << card
        elif n == 1:
            _capture(st, b, params, card, captured)
        else:
            st[b, PHASE] = CAPTURE
            st[b, PENDING] = card
            st[b, SELECTION] = 0
            return
    else:
        card = st[b, PENDING]
        sel = st[b, SELECTION] | (1 << (a - 52))
        if not _is_complete(card, sel):
            st[b, SELECTION] = sel
            return
        _capture(st, b, params, card, sel)
    _end_turn(st, b, params, info, auto_reset)


@njit(cache=True, parallel=False)
def step_kernel(
    st: np.ndarray,
    actions: np.ndarray,
    params: np.ndarray,
    info: np.ndarray,
    bad: np.ndarray,
    auto_reset: bool,
) -> int:
    """Validate every action, then (only if all are legal) apply them; return #illegal."""
    nbad = 0
    for b in prange(st.shape[0]):
        ok = _action_is_legal(st, b, actions[b])
        bad[b] = not ok
        nbad += 0 if ok else 1
    if nbad:
        return nbad
    for b in prange(st.shape[0]):
        apply_action(st, b, actions[b], params, info, auto_reset)
    return 0


@njit(cache=True, parallel=False)
def reset_kernel(st: np.ndarray, params: np.ndarray, which: np.ndarray, shuffle: bool) -> None:
    """Start a new game in every game ``b`` with ``which[b]``."""
    for b in prange(st.shape[0]):
        if which[b]:
            new_game(st, b, params, shuffle)


@njit(cache=True, parallel=False)
def playout_kernel(
    st: np.ndarray, params: np.ndarray, steps: int, seed_base: np.uint64, info: np.ndarray
) -> int:
    """Play ``steps`` uniformly random legal actions in every game (benchmarks, tests).

    The action choice uses a per-game splitmix stream derived from ``seed_base`` so the
    deal streams in the state are not disturbed by the policy's randomness.
    """
    total = 0
    for b in prange(st.shape[0]):
        z = seed_base + np.uint64(b) * np.uint64(0x9E3779B97F4A7C15)
        for _ in range(steps):
            z = z + np.uint64(0x9E3779B97F4A7C15)
            x = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x = x ^ (x >> np.uint64(31))
            u = np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            a = pick_legal(st, b, u)
            apply_action(st, b, a, params, info, True)
            total += info[b, I_ROUND_END]
    return total


# ---- full moves (for search agents) --------------------------------------------------
@njit(cache=True)
def enumerate_moves(st: np.ndarray, b: int, cards: np.ndarray, captured: np.ndarray) -> int:
    """Every full move of game ``b``'s mover in the PLAY phase: (card, captured set).

    A card with options yields one move per option; a card without yields one move
    with ``captured = 0`` (laid). Returns the number of moves, -1 if the buffers are
    too small or the game is not in the PLAY phase.
    """
    if st[b, PHASE] != PLAY:
        return -1
    hand = st[b, HAND + st[b, MOVER]]
    table = st[b, TABLE]
    opts = np.empty(256, dtype=np.int64)
    n = 0
    while hand:
        c = lowest(hand)
        hand &= hand - 1
        k = enumerate_options(table, c, opts)
        if k < 0:
            return -1
        if k == 0:
            if n >= cards.shape[0]:
                return -1
            cards[n] = c
            captured[n] = 0
            n += 1
        for i in range(k):
            if n >= cards.shape[0]:
                return -1
            cards[n] = c
            captured[n] = opts[i]
            n += 1
    return n


# ---- information sets ------------------------------------------------------------------
@njit(cache=True)
def hidden_slots(st: np.ndarray, b: int, seat: int, open_hand: bool, cols: np.ndarray) -> int:
    """State columns of game ``b`` that hold cards ``seat`` cannot see; returns their number.

    The hidden places are other seats' hand slots and the stock. Under ``open_hand``
    each opponent's face-up card (its earliest-dealt card still in hand) is visible.
    Table, piles and the pending card are public. ``cols`` needs room for 52 entries.
    """
    n = 0
    for p in range(4):
        if p == seat:
            continue
        first = True
        for j in range(4):
            if st[b, ORDER + 4 * p + j] < 0:
                continue
            if not (open_hand and first):
                cols[n] = ORDER + 4 * p + j
                n += 1
            first = False
    for i in range(st[b, STOCK_POS], 52):
        cols[n] = DECK + i
        n += 1
    return n


@njit(cache=True)
def hidden_from(st: np.ndarray, b: int, seat: int, open_hand: bool) -> int:
    """Cards of game ``b`` that ``seat`` cannot see (see :func:`hidden_slots`), as a mask."""
    cols = np.empty(52, dtype=np.int64)
    hidden = 0
    for k in range(hidden_slots(st, b, seat, open_hand, cols)):
        hidden |= 1 << st[b, cols[k]]
    return hidden


@njit(cache=True)
def determinize_kernel(
    st: np.ndarray, b: int, seat: int, open_hand: bool, seeds: np.ndarray, out: np.ndarray
) -> None:
    """Copies of game ``b`` with the cards hidden from ``seat`` dealt anew at random.

    Every hidden slot (another seat's unseen hand card, a stock position) receives a
    uniformly random permutation of the hidden cards, so each copy is a position
    consistent with everything ``seat`` has seen. Copy ``i`` uses stream ``seeds[i]``.
    """
    cols = np.empty(52, dtype=np.int64)
    n = hidden_slots(st, b, seat, open_hand, cols)
    for i in prange(out.shape[0]):
        for k in range(NCOL):
            out[i, k] = st[b, k]
        out[i, RNG] = seeds[i]
        for k in range(n - 1, 0, -1):  # Fisher-Yates over the hidden slots
            j = _random_below(out, i, k + 1)
            tmp = out[i, cols[k]]
            out[i, cols[k]] = out[i, cols[j]]
            out[i, cols[j]] = tmp
        for p in range(4):
            if p == seat:
                continue
            hand = 0
            for j in range(4):
                c = out[i, ORDER + 4 * p + j]
                if c >= 0:
                    hand |= 1 << c
            out[i, HAND + p] = hand


# ---- move features (observation) ---------------------------------------------------------
MOVE_FEATURES = 10


@njit(cache=True)
def _reply_summary(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    table: int,
    unseen: int,
    opts: np.ndarray,
    stack: np.ndarray,
) -> tuple[float, float, float, float]:
    """How an unseen card answers a table: (share of unseen cards that capture on it,
    mean and max best reply value over unseen cards, share that make a sur).

    A reply's value is the card points of the replying and taken cards plus
    ``sur_points`` for a sur. Capture options depend on the rank only, so each unseen
    rank is enumerated once.
    """
    n_unseen = popcount(unseen)
    if n_unseen == 0 or table == 0:
        return 0.0, 0.0, 0.0, 0.0
    any_n = 0
    sur_n = 0
    total = 0.0
    top = 0.0
    for r in range(13):
        of_rank = unseen & (0xF << (4 * r))
        if of_rank == 0:
            continue
        n = enumerate_options_into(table, 4 * r, opts, stack)
        if n <= 0:
            continue
        best = -1
        sur = False
        for i in range(n):
            v = card_points(opts[i])
            if sur_on_table(st, b, params, table, 4 * r, opts[i]):
                v += params[P_SUR_POINTS]
                sur = True
            best = max(best, v)
        cards = of_rank
        while cards:
            u = lowest(cards)
            cards &= cards - 1
            v = best + card_points(1 << u)
            total += v
            top = max(top, float(v))
            any_n += 1
            sur_n += 1 if sur else 0
    return any_n / n_unseen, total / n_unseen, top, sur_n / n_unseen


@njit(cache=True)
def move_summary(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    seat: int,
    open_hand: bool,
    out: np.ndarray,
    off: int,
    opts: np.ndarray,
    stack: np.ndarray,
) -> None:
    """What each card in ``seat``'s hand would do now, as 10 planes of 52 from ``off``.

    Plane k, entry c, for a card c in the hand:

    * what c captures (zero if nothing): 0 has an option; 1 number of options / 4
      (capped at 1); 2 best immediate points of a capture with c (card points of c and
      the captured cards, plus ``sur_points`` if it is a sur) / 10, capped; 3 some
      option is a sur; 4 most clubs taken (c included) / 4, capped; 5 most cards
      taken / 6, capped;
    * what it leaves to the next player, on the table after c is played (its best
      capture from plane 2, or laid): 6 share of the cards unseen by ``seat`` that
      capture something there; 7 their mean best reply value / 10 and 8 the largest
      / 10 (reply value = card points taken + ``sur_points`` for a sur; capped); 9
      share of unseen cards that would make a sur.

    Everything here is a function of what the seat sees (its hand, the table, the
    set of unseen cards, the deal), and the options come from the rules' own
    enumeration, so a learner need not rediscover the sums-to-11 arithmetic or the
    one-card lookahead that keeps a table safe. ``opts`` and ``stack`` are scratch
    buffers of 256 entries (allocated once per batch by the caller).
    """
    hand = st[b, HAND + seat]
    table = st[b, TABLE]
    unseen = hidden_from(st, b, seat, open_hand)
    while hand:
        c = lowest(hand)
        hand &= hand - 1
        n = enumerate_options_into(table, c, opts, stack)
        if n > 0:
            best = -1
            best_opt = 0
            sur = 0
            clubs = 0
            most = 0
            for i in range(n):
                taken = opts[i] | (1 << c)
                v = card_points(taken)
                if capture_is_sur(st, b, params, c, opts[i]):
                    v += params[P_SUR_POINTS]
                    sur = 1
                if v > best:
                    best = v
                    best_opt = opts[i]
                clubs = max(clubs, popcount(taken & CLUB_BITS))
                most = max(most, popcount(opts[i]))
            out[off + c] = 1.0
            out[off + 52 + c] = min(n / 4.0, 1.0)
            out[off + 104 + c] = min(best / 10.0, 1.0)
            out[off + 156 + c] = sur
            out[off + 208 + c] = min(clubs / 4.0, 1.0)
            out[off + 260 + c] = min(most / 6.0, 1.0)
            after = table & ~best_opt
        else:
            after = table | (1 << c)
        r_any, r_mean, r_top, r_sur = _reply_summary(st, b, params, after, unseen, opts, stack)
        out[off + 312 + c] = r_any
        out[off + 364 + c] = min(r_mean / 10.0, 1.0)
        out[off + 416 + c] = min(r_top / 10.0, 1.0)
        out[off + 468 + c] = r_sur


@njit(cache=True)
def move_summary_kernel(
    st: np.ndarray,
    games: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    open_hand: bool,
    out: np.ndarray,
) -> None:
    """:func:`move_summary` for a batch of (game, seat) pairs into ``out`` (n, 520)."""
    opts = np.empty(256, dtype=np.int64)
    stack = np.empty(256, dtype=np.int64)
    for i in range(games.shape[0]):
        out[i, :] = 0.0
        move_summary(st, games[i], params, seats[i], open_hand, out[i], 0, opts, stack)
