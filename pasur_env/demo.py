"""Play and print one game between uniformly random players: ``python -m pasur_env.demo``.

Shows the public course of the game (each turn's play and capture, surs, round
scores) as a quick check that the install works.
"""

from __future__ import annotations

import argparse

import numpy as np

from .cards import card_str, cards_of, cards_str
from .engine import Engine


def play_game(num_players: int = 2, seed: int = 0, verbose: bool = True) -> list[int]:
    """Play one full game with random legal actions; return the final scores per side."""
    eng = Engine(1, seed=seed, num_players=num_players, auto_reset=False, parallel=False)
    rng = np.random.default_rng(seed)
    say = print if verbose else (lambda *a, **k: None)
    say(f"Pasur, {num_players} players, random play (seed {seed})\n")
    say(eng.render(0))
    while True:
        seat = int(eng.current_player[0])
        table_before = int(eng.table[0])
        surs_before = eng.surs[0].copy()
        hand_before = set(eng.hand(0, seat))
        round_before = int(eng.round_index[0])
        while True:  # one turn: a PLAY action and any TAKE actions
            info = eng.step(eng.random_actions(rng))
            if eng.phase[0] != 1:
                break
        played = (hand_before - set(eng.hand(0, seat))) if not info.round_end[0] else set()
        if info.round_end[0] or eng.round_index[0] != round_before:
            pts = info.round_points[0].tolist()
            say(f"\nround over: round points {pts}, surs {info.surs[0].tolist()}, "
                f"clubs {info.clubs[0].tolist()}, scores {info.scores[0].tolist()}")
            if info.game_end[0]:
                say(f"side {int(info.winner[0])} wins the game")
                return info.scores[0].tolist()
            say("\n" + eng.render(0))
            continue
        card = next(iter(played))
        taken = cards_of(table_before & ~int(eng.table[0]))
        sur = " SUR!" if (eng.surs[0] > surs_before).any() else ""
        if taken:
            say(f"player_{seat} plays {card_str(card)} and takes {cards_str(taken)}{sur}")
        else:
            say(f"player_{seat} lays {card_str(card)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    play_game(args.players, args.seed)


if __name__ == "__main__":
    main()
