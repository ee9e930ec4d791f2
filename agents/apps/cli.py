"""The ``pasur`` command: evaluate agents, run tournaments, play in the terminal.

::

    pasur eval greedy random --rounds 10000 --json out.json
    pasur eval ismcts:budget=200 heuristic --rounds 2000 --games 200
    pasur eval heuristic greedy --sprt 0,10 --rounds 20000   # stop when decided
    pasur tournament random greedy heuristic --rounds 4000 --markdown ladder.md --plot ladder.png
    pasur tournament random greedy heuristic ismcts --address auto   # the pairs on a Ray cluster
    pasur play heuristic --players 2 --seed 7
    pasur play --game persian_rummy greedy --seat 1
    pasur demo --players 3
    pasur serve --port 8000
    pasur eval ./my_agent.py:MostCards greedy --rounds 2000   # your own agent (docs/agents.md)
    pasur serve --agent ./my_agent.py:MostCards               # offered at the web table
    pasur replay games/greedy_vs_random_seed0.jsonl --index 3
    pasur exploitability heuristic --preset mini     # exact best response, NashConv
    pasur best-response heuristic --minutes 10       # a learned one: a lower bound (train extra)
    pasur ladder best-response --ladder docs/ladders/pasur.json --minutes 10   # on a ladder
    pasur compare run1.json run2.json   # two results paired on their common deals
    pasur agents
    pasur warmup              # compile every kernel ahead (first run only)
    pasur doctor              # versions, where the packages come from, the kernel cache
    pasur --version

    pasur agents --game persian_rummy
    pasur eval --game persian_rummy greedy random --rounds 10000 --rule deals=1
    pasur tournament --game persian_rummy greedy random rollout --rounds 200
    pasur demo --game persian_rummy greedy

The flags every command shares (``--game``, ``--seed``, ``--progress``, ``--rounds``,
``--json``, the agents as positional arguments) are :mod:`agents.apps.flags`, the one
vocabulary of ``pasur`` and the training scripts (``docs/cli.md``); old spellings still
work for one release, with a one-line warning. Every command but ``serve`` and
``doctor`` takes ``--game`` (``pasur``, the default, or ``persian_rummy``); options that
do not apply to the chosen game (``--players 3`` or ``--preset`` with Persian Rummy)
are refused before anything runs, with exit code 2. Errors are one line under the
command's name (``pasur eval: error: ...``), with "did you mean" for a misspelled name.

Agent specs are registry names (``pasur agents`` lists them, with their games and
origin), optionally with options (``ismcts:budget=200``), paths of saved models, or
your own code: ``path/to/file.py:Class`` or ``package.module:Class``
(:mod:`agents.specs`). Rule flags go through ``--rule flag=value`` (``--rule
target_score=31 sur_points=3``; Persian Rummy: ``--rule deals=1 four_set_double=false``) and Pasur's
``--preset``. See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

from agents.apps.flags import (
    Parser,
    add_agents,
    add_episode,
    add_game,
    add_json,
    add_progress,
    add_rounds,
    add_seed,
    progress_on,
    upgrade_argv,
    whole_deals,
)
from agents.registry import parse_value
from pasur_env.core.compile import compile_progress
from pasur_env.core.extras import as_missing_extra, missing_extra
from pasur_env.games import DEFAULT_GAME, GAME_IDS, game_info
from pasur_env.version import __version__

__all__ = ["main", "build_parser"]


def _rules(items: Sequence[str] | None) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(
                f"--rule expects flag=value (e.g. target_score=31), got {item!r}; "
                "put --rule after the agent names"
            )
        flags[key.strip()] = parse_value(value)
    return flags


def _add_players(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=None, choices=(2, 3, 4),
                   help="players per game (4 = two teams); default: Pasur 2, Persian Rummy 4")


def _add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default=None,
                   help="Pasur's rule preset: classic, cfr_paper, mini, small")
    p.add_argument("--rule", action="extend", nargs="+", metavar="FLAG=VALUE", default=[],
                   help="rule flags, e.g. --rule target_score=31 sur_points=3 (Persian Rummy: "
                   "deals, four_set_double, last_discard_goes_out)")


def _add_common(p: argparse.ArgumentParser, rounds: int, what: str) -> None:
    """The flags of a match (``eval``, ``tournament``)."""
    add_game(p)
    add_rounds(p, rounds, what)
    p.set_defaults(rounds_default=rounds)
    _add_players(p)
    add_seed(p)
    p.add_argument("--batch", type=int, default=4096,
                   help="games advanced together (default 4096)")
    add_progress(p)
    _add_rules(p)


def _add_address(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", default=None, metavar="ADDRESS",
                   help="play on Ray (the rllib extra): local, local:N (N CPUs), auto (the "
                   "cluster the machine belongs to) or HOST:PORT; the figures of a tournament, "
                   "and of a match of agents that draw no random numbers, are those without "
                   "it (docs/distributed.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="pasur",
        description="Pasur and Persian Rummy agents: duplicate-deal evaluation, tournaments, "
        "play. The shared flags (--game, --seed, --progress, --rounds, --json, agents as "
        "arguments) mean the same in every command: docs/cli.md.",
    )
    parser.add_argument("--version", action="version", version=f"pasur {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_match_commands(sub)
    _add_play_commands(sub)
    _add_web_commands(sub)
    _add_exploitability(sub)
    _add_best_response(sub)
    _add_compare(sub)
    _add_ladder(sub)
    ag = sub.add_parser("agents", help="list the agents: their games and where each comes from",
                        description="List every registered agent name with the games it "
                        "plays and where it comes from (built-in, the package of an entry "
                        "point); your own agents play as specs, path/to/file.py:Class or "
                        "package.module:Class (docs/agents.md).")
    add_game(ag, repeat=True)
    _add_install_commands(sub)
    return parser


def _add_match_commands(sub: Any) -> None:
    """``pasur eval`` and ``pasur tournament``: matches on duplicate deals."""
    ev = sub.add_parser(
        "eval", help="evaluate agent A against agent B on duplicate deals",
        description="Play A against B on duplicate deals (every deal in all seatings) and "
        "report A's mean point difference per round with a 95% confidence interval.",
    )
    ev.add_argument("a", metavar="A", help="agent A (e.g. greedy, heuristic, ismcts:budget=200)")
    ev.add_argument("b", metavar="B", help="agent B")
    _add_common(ev, 10_000, "to play")
    ev.add_argument("--games", type=int, default=None, metavar="N",
                    help="also play this many games to the target score (game win rate; a "
                    "multiple of the seatings, like --rounds)")
    add_episode(ev, "round", "round: one-round deals (default); game: only games to the "
                "target score (--games of them, default 1,000)")
    add_json(ev)
    ev.add_argument("--save-games", metavar="DIR", default=None,
                    help="write every game's record to DIR (JSON lines; see pasur replay)")
    _add_address(ev)
    ev.add_argument("--shard-rounds", type=int, default=None,
                    help="with --address: rounds per Ray task (default 200: a 2,000-round "
                    "match is 10 tasks)")
    ev.add_argument("--agent-seed", type=int, default=None, metavar="N",
                    help="seed the agents apart from the deals (default: --seed): the same "
                    "deals with other draws of the agents' randomness, for pasur compare")
    ev.add_argument("--sprt", metavar="ELO0,ELO1", default=None,
                    help="stop as soon as a sequential test decides Elo <= ELO0 (H0) or >= "
                    "ELO1 (H1); --rounds is then the most played (docs/evaluation.md)")
    for flag, what in (("--alpha", "accepting H1 when H0 holds"),
                       ("--beta", "accepting H0 when H1 holds")):
        ev.add_argument(flag, type=float, default=0.05, help=f"with --sprt: the error rate "
                        f"of {what} (default 0.05)")

    tr = sub.add_parser(
        "tournament", help="round robin and Elo ladder",
        description="Play every pair of agents on duplicate deals and print an Elo ladder "
        "(Bradley-Terry on round results) with 95% bootstrap intervals.",
    )
    add_agents(tr, "+", "two or more agent specs")
    _add_common(tr, 2000, "per pair")
    tr.add_argument("--bootstrap", type=int, default=500,
                    help="bootstrap resamples for the intervals (default 500)")
    tr.add_argument("--anchor", default=None, help="agent fixed at --base (default: the mean)")
    tr.add_argument("--base", type=float, default=1500.0, help="rating scale origin (1500)")
    tr.add_argument("--markdown", metavar="PATH", help="write the ladder as a markdown table")
    tr.add_argument("--plot", metavar="PATH", help="save a plot of the ratings (matplotlib)")
    add_json(tr, "the results")
    _add_address(tr)


def _add_play_commands(sub: Any) -> None:
    """``pasur play`` (a person against agents) and ``pasur demo`` (agents only)."""
    pl = sub.add_parser(
        "play", help="play against agents in the terminal",
        description="Play Pasur or Persian Rummy in the terminal against agents.",
    )
    add_agents(pl, "*", "the agents at the other seats: one for every seat (default "
               "greedy) or one per other seat, in seat order (with 4 players your partner "
               "is one of them)")
    add_game(pl)
    _add_players(pl)
    add_seed(pl, "the deals and agents (the greeting says it; another seed, other deals)")
    pl.add_argument("--seat", type=int, default=0, help="your seat (default 0: you lead)")
    add_episode(pl, "game", "a game to the target score (default) or a single round")
    pl.add_argument("--deck", default=None,
                    help="first deck: 52 card codes (a variant's cards; Persian Rummy: 56), "
                    "top first (e.g. for practice)")
    _add_rules(pl)

    de = sub.add_parser(
        "demo", help="watch one game between agents (default: random players)",
        description="Print one game played by agents only, every hand shown at each deal.",
    )
    add_agents(de, "*", "the agents: one for every seat (default random) or one per seat")
    add_game(de)
    _add_players(de)
    add_seed(de)
    add_episode(de, "game", "a game to the target score (default) or a single round")


def _add_exploitability(sub: Any) -> None:
    ex = sub.add_parser(
        "exploitability", help="exact best response and NashConv of an agent on a small variant",
        description="Enumerate a small two-player variant's round, read the agent's policy at "
        "every information set and compute each player's exact best response to it: "
        "NashConv in points of the round's point difference (docs/exploitability.md).",
    )
    ex.add_argument("agent", metavar="AGENT", help="agent spec (random, greedy, heuristic, "
                    "ismcts:budget=50, cfr:PATH, ...)")
    add_game(ex, help="the game (Pasur's small variants only: pasur)")
    ex.add_argument("--preset", default="mini", help="the variant: mini (default) or small")
    ex.add_argument("--seat", type=int, choices=(0, 1), default=None,
                    help="the agent plays only this seat: the other seat's best response")
    _add_samples(ex, "--seed")
    add_seed(ex, "the agent")
    ex.add_argument("--rule", action="extend", nargs="+", metavar="FLAG=VALUE", default=[],
                    help="rule flags over the preset, e.g. --rule sur_points=3")
    add_json(ex)


def _add_best_response(sub: Any) -> None:
    br = sub.add_parser(
        "best-response", help="train an exploiter of an agent: a lower bound on its "
        "exploitability, on the full games (needs the train extra)",
        description="Train a network to exploit the frozen agent (masked PPO on the "
        "all-seats env, the agent at the other side's seats; Persian Rummy: a team against "
        "its team), save it (it plays as br:PATH in every command) and measure its mean "
        "point difference against the agent on fresh duplicate deals, with a 95% interval: "
        "a lower bound on the agent's exploitability (docs/exploitability.md).",
    )
    br.add_argument("agent", metavar="AGENT", help="the agent to exploit: a name "
                    "(heuristic, greedy@1, ismcts:budget=50), a saved model, or your own "
                    "code, path/to/file.py:Class or package.module:Class")
    add_game(br)
    _add_players(br)
    br.add_argument("--seat", type=int, default=None, metavar="S",
                    help="the agent plays only seat S's side, the exploiter the others (as "
                    "in pasur exploitability --seat; each deal played once); default: the "
                    "sides alternate, duplicate deals")
    _add_rules(br)
    _add_budget(br)
    add_rounds(br, 2000, "to measure the exploiter on")
    br.set_defaults(rounds_default=2000)
    add_seed(br, "the evaluation's deals, the agents and the network (the training deals "
             "come from a seed derived from it)")
    br.add_argument("--save", metavar="PATH", default=None,
                    help="where to save the exploiter (default runs/best_response/"
                    "AGENT_GAME.npz)")
    for flag, default, what in (("--envs", 128, "games the learner plays together"),
                                ("--hidden", 256, "width of the network's hidden layers")):
        br.add_argument(flag, type=int, default=default, metavar="N",
                        help=f"{what} (default {default})")
    br.add_argument("--lr", type=float, default=5e-4, help="Adam's step size (default 5e-4)")
    br.add_argument("--history", action="store_true",
                    help="the exploiter also reads the cards every seat played this round "
                    "(the observation alone does not say which card each play was)")
    br.add_argument("--method", choices=("ppo", "search"), default="ppo",
                    help="ppo (default): train a network; search: no training, determinized "
                    "rollouts against the agent itself at every decision (the training "
                    "options do not apply; docs/exploitability.md)")
    br.add_argument("--particles", type=int, default=None, metavar="N",
                    help="--method search: positions per candidate action (default 64)")
    br.add_argument("--continuation", metavar="SPEC", default=None,
                    help="--method search: who plays the exploiter's later moves in the "
                    "rollouts (default: the agent itself)")
    br.add_argument("--margin", type=float, default=None, metavar="Z",
                    help="--method search: play the continuation's own move unless the "
                    "search's best beats it by more than Z standard errors (default 0: "
                    "always the search's best)")
    br.add_argument("--depth", type=int, default=None, metavar="N",
                    help="--method search: plan the exploiter's next N decisions over its "
                    "information sets in each position (default 1: this decision, then "
                    "the continuation; one-seat sides only)")
    br.add_argument("--uniform", action="store_true",
                    help="--method search: deal the hidden cards uniformly at every decision "
                    "instead of filtering the positions by the agent's plays")
    br.add_argument("--batch", type=int, default=4096,
                    help="games advanced together in the evaluation (default 4096)")
    add_progress(br)
    add_json(br)
    _add_address(br)


def _add_budget(p: argparse.ArgumentParser) -> None:
    """``--teacher`` and ``--minutes`` or ``--decisions``: how a learned best response is
    trained (``pasur best-response``, ``pasur ladder best-response``)."""
    p.add_argument("--teacher", metavar="SPEC", default=None,
                   help="start from this agent's moves: the exploiter plays them until "
                   "deviating pays; default none: learn from scratch")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=None, metavar="N",
                        help="training budget in minutes of wall time (default 5)")
    budget.add_argument("--decisions", type=int, default=None, metavar="N",
                        help="training budget in the exploiter's decisions")


def _add_samples(p: argparse.ArgumentParser, seed: str) -> None:
    """``--samples``: calls per information set of an exact exploitability."""
    p.add_argument("--samples", type=int, default=1,
                   help="calls per information set; >1 estimates a stochastic agent's mixed "
                   f"policy from the frequencies (default 1: the pure policy of {seed})")


def _add_compare(sub: Any) -> None:
    """``pasur compare``: two results paired on their common deals."""
    cp = sub.add_parser(
        "compare", help="compare two eval results deal by deal (paired, with a 95%% CI)",
        description="Pair two results of pasur eval --json (schema 2) on the deals both "
        "played and report the difference of their mean A-minus-B point differences with "
        "a 95% interval from the paired deals; results of other games, rules, table "
        "sizes, modes or deal seeds are refused (docs/evaluation.md).",
    )
    cp.add_argument("first", metavar="FIRST.json", help="a result of pasur eval --json")
    cp.add_argument("second", metavar="SECOND.json", help="the result to subtract")
    add_json(cp, "the comparison")


def _add_install_commands(sub: Any) -> None:
    """``pasur warmup`` (compile ahead) and ``pasur doctor`` (what is installed where)."""
    wu = sub.add_parser(
        "warmup", help="compile every kernel ahead of time (the first run's cost, paid once)",
        description="Compile the kernels of the envs and of every agent (and their "
        "multi-threaded builds) into the kernel cache, with progress on stderr.",
    )
    add_agents(wu, "*", "only these agents (default: every registered one)")
    add_game(wu, repeat=True)
    wu.add_argument("--serial-only", action="store_true",
                    help="skip the multi-threaded builds (used from batches of hundreds)")
    add_progress(wu)
    sub.add_parser(
        "doctor", help="versions in use, where the packages come from, the kernel cache",
        description="Report the versions in use, where pasur_env, agents and train are "
        "imported from and the kernel cache; exit code 1 when something needs attention.",
    )


def _add_web_commands(sub: Any) -> None:
    """``pasur serve`` (the web table) and ``pasur replay`` (records in the terminal)."""
    sv = sub.add_parser(
        "serve", help="the web table: play in the browser (needs the web extra)",
        description="Serve the web table (FastAPI + uvicorn). It binds 127.0.0.1 unless "
        "told otherwise. The page offers every game (Pasur, Persian Rummy).",
    )
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--max-games", type=int, default=200, help="live games at most (200)")
    sv.add_argument("--idle-minutes", type=float, default=30.0,
                    help="forget games idle this long (30)")
    sv.add_argument("--agent", action="append", default=[], metavar="SPEC", dest="agents",
                    help="also offer your agent at the tables of the games it plays: "
                    "path/to/file.py:Class or package.module:Class, options :key=value,... "
                    "(repeatable; the page offers only agents given here or registered)")
    _add_limits(sv)

    rp = sub.add_parser(
        "replay", help="step through a recorded game in the terminal, all hands shown",
        description="Check a game record by replaying it on the engine, then show it "
        "position by position (Enter/n next, p previous, a number jumps, q quits).",
    )
    rp.add_argument("file", help="a record (.json) or a file of records (.jsonl)")
    rp.add_argument("--index", type=int, default=None, help="which record of a .jsonl file (0)")
    rp.add_argument("--game", default=None, metavar="GAME",
                    help="the game the record must be of (default: the record's own); "
                    "a number is read as --index, its former meaning")
    rp.add_argument("--all", action="store_true", help="print every position and exit")


#: ``pasur serve`` flags of the web table's limits: (flag, Limits field, scale, help)
_LIMIT_FLAGS = (
    ("--max-memory-mb", "max_memory_mb", 1, "estimated memory of the live games at most, MB"),
    ("--max-body-kb", "max_body_bytes", 1024, "request body size at most, KB"),
    ("--max-record-actions", "max_record_actions", 1, "actions of a record to replay at most"),
    ("--max-record-rounds", "max_record_rounds", 1, "rounds of a record to replay at most"),
    ("--max-name-chars", "max_name_chars", 1, "characters of a player name in a record"),
    ("--replay-page", "max_replay_frames", 1, "positions per replay answer at most"),
)


def _add_limits(sv: argparse.ArgumentParser) -> None:
    """The web table's limits as ``pasur serve`` flags (defaults: ``Limits``)."""
    from agents.apps.web.limits import Limits

    for flag, name, scale, text in _LIMIT_FLAGS:
        default = getattr(Limits, name) // scale
        sv.add_argument(flag, type=int, default=default, help=f"{text} ({default})")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="also answer requests for this Host name (repeat; default: "
                    "localhost names and the --host address)")
    sv.add_argument("--blas-threads", type=int, default=1, metavar="N",
                    help="threads of numpy's BLAS (default 1: the networks' small products, "
                    "many at once from concurrent games, run slower on a thread pool)")


def _text_stream(args: argparse.Namespace) -> Any:
    """Where the human-readable text goes: stderr when the JSON goes to stdout."""
    return sys.stderr if args.json == "-" else sys.stdout


def _write_json(res: Any, args: argparse.Namespace, out: Any) -> None:
    """``--json [PATH]``: the result as JSON to PATH (or stdout)."""
    from agents.evaluation.results import write_json

    if args.json is not None:
        write_json(res, args.json, sys.stdout)
        if args.json != "-":
            print(f"wrote {args.json}", file=out)


def _refusal(args: argparse.Namespace) -> str | None:
    """Why the parsed options do not fit the chosen game (one line), or None.

    Checked before any command runs (``serve`` offers every game): ``--players`` must be
    one of the game's seat counts and ``--preset`` needs a game with presets
    (:class:`pasur_env.games.GameInfo`); the options of ``eval``, ``tournament`` and
    ``demo`` (players, preset, rule flags) must be ones the game's match set-up takes
    (:func:`agents.evaluation.match.setup`). ``play`` checks its rule flags itself: its
    terminal table takes the env's options too.
    """
    game = getattr(args, "game", DEFAULT_GAME)
    if args.command in ("replay", "warmup", "doctor", "serve", "exploitability", "agents",
                        "compare", "ladder"):  # a ladder's game and rules are its file's
        return None
    info = game_info(game)
    taken = info.players
    refused = [f"--players {args.players}"] if args.players not in (None, *taken) else []
    if getattr(args, "preset", None) is not None and not info.presets:
        refused.append("--preset")
    if refused:
        return (f"--game {game} does not take {', '.join(refused)} ({info.title} is played by "
                f"{' or '.join(map(str, taken))} players"
                + ("" if info.presets else " and has no rule presets") + ")")
    if args.command == "play":
        return None
    from agents.evaluation.match import setup

    try:
        setup(game, args.players, getattr(args, "preset", None), _rules(getattr(args, "rule", [])))
    except (TypeError, ValueError) as e:
        return str(e)
    return None


def _sizes(args: argparse.Namespace) -> tuple[int, int | None]:
    """``--rounds`` and ``--games`` in whole duplicate deals of the match's seatings: a
    count that is not a multiple is refused, a default is rounded up (its help says so)."""
    from agents.evaluation.match import seatings

    n = len(seatings(args.players or game_info(args.game).players[0]))
    rounds = whole_deals("--rounds", args.rounds, args.rounds_default, n)
    games = getattr(args, "games", None)
    if games is not None or getattr(args, "episode", "round") == "game":
        games = whole_deals("--games", games, 1000, n)
    return rounds, games


def _eval(args: argparse.Namespace) -> int:
    from agents.evaluation.match import evaluate

    rounds, games = _sizes(args)
    kwargs = dict(rounds=rounds, players=args.players, seed=args.seed, mode=args.episode,
                  games=games, batch=args.batch, progress=progress_on(args.progress),
                  preset=args.preset, game=args.game, agent_seed=args.agent_seed,
                  **_rules(args.rule))
    if args.sprt is not None:
        from agents.evaluation.sprt import Sprt, parse_bounds

        if args.address is not None:
            raise ValueError("--sprt is not available with --address")
        kwargs["sprt"] = Sprt(*parse_bounds(args.sprt), alpha=args.alpha, beta=args.beta)
    if args.address is None:
        res = evaluate(args.a, args.b, save_games=args.save_games, **kwargs)
    else:
        from agents.evaluation.distributed import (
            SHARD_ROUNDS,
            evaluate_on_ray,
            parse_address,
            ray_session,
        )

        if args.save_games:
            raise ValueError("--save-games is not available with --address")
        with ray_session(*parse_address(args.address)):
            shard = SHARD_ROUNDS if args.shard_rounds is None else args.shard_rounds
            res = evaluate_on_ray(args.a, args.b, shard_rounds=shard, **kwargs)
    out = _text_stream(args)
    print(res.summary(), file=out)
    _write_json(res, args, out)
    return 0


def _exploitability(args: argparse.Namespace) -> int:
    from agents.evaluation.exploitability import GAMES, exploitability

    if args.game not in GAMES:
        raise ValueError(f"exploitability is computed on small variants of {', '.join(GAMES)} "
                         f"only, not {args.game}")
    res = exploitability(args.agent, preset=args.preset, seat=args.seat, samples=args.samples,
                         seed=args.seed, **_rules(args.rule))
    out = _text_stream(args)
    print(res.summary(), file=out)
    _write_json(res, args, out)
    return 0


def _best_response(args: argparse.Namespace) -> int:
    """``pasur best-response``: the training lives in ``train.best_response`` (torch), which
    the ``agents`` layer never imports: it is looked up by name here, when the command
    runs, as the games' rows name their tables (a missing train extra is one line)."""
    from pasur_env.core.plugins import load_object

    rounds, _ = _sizes(args)
    for flag in ("--envs", "--hidden"):
        if getattr(args, flag[2:]) < 1:
            raise ValueError(f"{flag} must be a positive integer, got {getattr(args, flag[2:])}")
    if not args.lr > 0:
        raise ValueError(f"--lr must be a positive number, got {args.lr}")
    module = load_object("train.best_response")
    if args.method == "search":
        res = _search_best_response(module, args, rounds)
    else:
        if (args.particles is not None or args.uniform or args.continuation is not None
                or args.margin is not None or args.depth is not None):
            raise ValueError("--particles, --continuation, --margin, --depth and --uniform "
                             "are settings of --method search")
        res = module.best_response(
            args.agent, game=args.game, players=args.players, seat=args.seat,
            preset=args.preset, minutes=args.minutes, decisions=args.decisions, rounds=rounds,
            seed=args.seed, save=args.save, address=args.address, batch=args.batch,
            progress=progress_on(args.progress),
            ppo=module.Ppo(envs=args.envs, hidden=args.hidden, lr=args.lr,
                           history=args.history),
            teacher=args.teacher,
            **_rules(args.rule))
    out = _text_stream(args)
    print(res.summary(), file=out)
    _write_json(res, args, out)
    return 0


def _search_best_response(module: Any, args: argparse.Namespace, rounds: int) -> Any:
    """``pasur best-response --method search``: nothing trained, so no training option."""
    from agents.core.search_br import DEFAULT_PARTICLES  # the search's one default
    given = [flag for flag, on in (("--minutes", args.minutes is not None),
                                   ("--decisions", args.decisions is not None),
                                   ("--teacher", args.teacher is not None),
                                   ("--history", args.history), ("--seat", args.seat is not None))
             if on]
    if given:
        raise ValueError(f"{', '.join(given)}: not an option of --method search (it trains "
                         "nothing and plays duplicate deals)")
    return module.search_best_response(
        args.agent, game=args.game, players=args.players, preset=args.preset,
        particles=DEFAULT_PARTICLES if args.particles is None else args.particles,
        posterior=not args.uniform, continuation=args.continuation,
        margin=0.0 if args.margin is None else args.margin,
        depth=1 if args.depth is None else args.depth, rounds=rounds, seed=args.seed,
        save=args.save, address=args.address, batch=min(args.batch, 512),
        progress=progress_on(args.progress),
        **_rules(args.rule))


def _compare(args: argparse.Namespace) -> int:
    from agents.evaluation.compare import compare

    res = compare(args.first, args.second)
    out = _text_stream(args)
    print(res.summary(), file=out)
    _write_json(res, args, out)
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from agents.evaluation.tournament import tournament

    if args.plot:  # a missing matplotlib is said before the games, not after
        try:
            import matplotlib.figure  # noqa: F401
        except ImportError as e:
            raise missing_extra("pasur tournament --plot", "train", e) from None
    rounds, _ = _sizes(args)
    kwargs = dict(rounds=rounds, players=args.players, seed=args.seed, batch=args.batch,
                  progress=progress_on(args.progress), bootstrap=args.bootstrap, anchor=args.anchor,
                  base=args.base, preset=args.preset, game=args.game, **_rules(args.rule))
    if args.address is None:
        res = tournament(args.agents, **kwargs)
    else:
        from agents.evaluation.distributed import parse_address, play_pairs_on_ray, ray_session

        with ray_session(*parse_address(args.address)):
            res = tournament(args.agents, run_pairs=play_pairs_on_ray, **kwargs)
    _write_ladder(res, args, res.write_markdown)
    return 0


def _write_ladder(res: Any, args: argparse.Namespace, markdown: Any) -> None:
    """A ladder's table, then ``--markdown`` (by ``markdown(path)``), ``--plot``, ``--json``
    (``pasur tournament``, ``pasur ladder show``)."""
    out = _text_stream(args)
    print(res.table(), file=out)
    if args.markdown:
        markdown(args.markdown)
        print(f"wrote {args.markdown}", file=out)
    if args.plot:
        res.plot(args.plot)
        print(f"wrote {args.plot}", file=out)
    _write_json(res, args, out)


def _play(args: argparse.Namespace) -> int:
    from agents.games import agent_game

    play = agent_game(args.game).load("terminal_play")  # the game's terminal table
    code: int = play(args.agents or ["greedy"], players=args.players, seed=args.seed,
                     seat=args.seat, episode=args.episode, deck=args.deck,
                     preset=args.preset, **_rules(args.rule))
    return code


def _demo(args: argparse.Namespace) -> int:
    from agents.games import agent_game

    watch = agent_game(args.game).load("terminal_watch")
    code: int = watch(args.agents or ["random"], players=args.players, seed=args.seed,
                      episode=args.episode)
    return code


def _serve(args: argparse.Namespace) -> int:
    if args.blas_threads < 1:
        raise ValueError(f"--blas-threads must be at least 1, got {args.blas_threads}")
    try:
        import uvicorn
        from threadpoolctl import threadpool_limits

        from agents.apps.web.app import create_app
    except ImportError as e:
        raise missing_extra("pasur serve", "web", e) from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {args.host}: anyone who can reach it can play here"
              + ("; it answers only the Host names localhost, 127.0.0.1 and those given "
                 "with --allow-host" if args.host in ("0.0.0.0", "::") else ""),
              file=sys.stderr)
    from agents.apps.web.limits import Limits
    from agents.registry import offer_spec

    for spec in args.agents:  # loaded now, from the command line: a request never loads code
        name, games = offer_spec(spec)
        print(f"offering {spec} as {name} at the {', '.join(games)} tables", file=sys.stderr)
    limits = Limits(**{name: getattr(args, flag[2:].replace("-", "_")) * scale
                       for flag, name, scale, _ in _LIMIT_FLAGS})
    app = create_app(max_games=args.max_games, idle_seconds=60 * args.idle_minutes,
                     limits=limits, host=args.host, allow_hosts=args.allow_host)
    _check_port(args.host, args.port)
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0


def _check_port(host: str, port: int) -> None:
    """``OSError`` in the project's words when ``host:port`` cannot be listened on (a
    port in use gets a ``--port`` to try), before uvicorn says ``[Errno 98]`` and exits."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise OSError(f"port {port} on {host} is in use (another pasur serve?): "
                              f"choose another with --port, e.g. --port {port + 1}") from None
            raise OSError(f"cannot listen on {host} port {port}: {e.strerror or e} "
                          "(see --host and --port)") from None


def _replay(args: argparse.Namespace) -> int:
    from agents.apps.terminal import replay_in_terminal

    index, game = args.index, args.game
    if game is not None and game.isdigit():  # ``--game N``: the record index it used to be
        if index is not None:
            raise ValueError("give the record's index once, as --index")
        index, game = int(game), None
    if game is not None:
        game_info(game)  # ValueError naming the games (and the closest)
    return replay_in_terminal(args.file, index=index or 0, show_all=args.all, game=game)


def _agents(args: argparse.Namespace) -> int:
    from agents.registry import agent_origins, agent_versions

    rows: dict[str, tuple[list[str], str]] = {}
    versions: dict[str, set[int]] = {}
    for game in args.game or GAME_IDS:
        for name, origin in agent_origins(game).items():
            rows.setdefault(name, ([], origin))[0].append(game)
        for name, numbers in agent_versions(game).items():
            versions.setdefault(name, set()).update(numbers)
    tags = {n: " ".join(f"@{v}" for v in sorted(versions[n])) or "-" for n in rows}
    width = max(len(n) for n in rows) + 2
    tag = max(len(t) for t in tags.values()) + 2
    games = max(len(", ".join(g)) for g, _ in rows.values()) + 2
    for name, (played, origin) in rows.items():
        print(f"{name:<{width}}{tags[name]:<{tag}}{', '.join(played):<{games}}{origin}")
    print("\nname@N pins version N (greedy@1, ismcts@1:budget=50); the bare name is the "
          "latest.\nyour own agents: path/to/file.py:Class or package.module:Class, options "
          ":key=value,...; saved models: see docs/agents.md")
    return 0


def _warmup(args: argparse.Namespace) -> int:
    from agents.apps.warmup import warmup

    warmup(args.game or GAME_IDS, agents=args.agents or None, parallel=not args.serial_only,
           progress=progress_on(args.progress))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from agents.apps.doctor import doctor_report

    lines, warnings = doctor_report()
    print("\n".join(lines))
    return 1 if warnings else 0


# ---- pasur ladder: a persistent ladder (agents.evaluation.ladder) ---------------------------
def _add_ladder(sub: Any) -> None:
    """``pasur ladder add SPEC`` and ``pasur ladder show``: a ladder kept in a JSON file."""
    ld = sub.add_parser(
        "ladder", help="a persistent ladder: add an agent (only its own pairs), show ratings",
        description="A ladder kept in one JSON file (docs/leaderboard.md): `add` plays a new "
        "agent against the members only, on the ladder's fixed deals, and stores the pairs' "
        "per-deal results; `show` fits the ratings (Bradley-Terry, bootstrap intervals); "
        "`exploitability` and `best-response` add the members' exact exploitability (small "
        "variants) or a learned best response's gain (docs/exploitability.md).")
    lsub = ld.add_subparsers(dest="ladder_command", metavar="ACTION")
    lsub.required = True
    add = lsub.add_parser("add", help="play a new agent against the ladder's members and store it")
    add.add_argument("spec", metavar="AGENT", help="the agent spec (e.g. heuristic, "
                     "ismcts:budget=200, path/to/file.py:Class)")
    add.add_argument("--ladder", default="ladder.json", metavar="FILE",
                     help="the ladder file (default ladder.json; made when missing)")
    add_game(add, help=f"the game of a new ladder: {', '.join(GAME_IDS)} (default: the file's, "
             "else pasur)")
    add_rounds(add, 2000, "per pair (default: the ladder's; fewer play a prefix of its deals)")
    add.set_defaults(game=None, rounds_default=None)
    _add_players(add)
    add_seed(add, "a new ladder's deals (an existing ladder keeps its own)")
    add.set_defaults(seed=None)
    add.add_argument("--batch", type=int, default=4096,
                     help="games advanced together, of a new ladder (default 4096)")
    add_progress(add)
    _add_rules(add)
    _add_address(add)
    add.add_argument("--exploitability", action=argparse.BooleanOptionalAction, default=None,
                     help="compute the agent's exact exploitability when it joins (default: "
                     "when the ladder's rules are a small variant, --preset mini or small)")
    _add_samples(add, "the ladder's seed")
    ex = lsub.add_parser("exploitability", help="compute the exact exploitability of the "
                         "members that have none (ladders of small variants only)")
    ex.add_argument("--ladder", default="ladder.json", metavar="FILE",
                    help="the ladder file (default ladder.json)")
    _add_samples(ex, "the ladder's seed")
    _add_ladder_best_response(lsub)
    show = lsub.add_parser("show", help="the ladder's ratings with 95%% intervals")
    show.add_argument("--ladder", default="ladder.json", metavar="FILE",
                      help="the ladder file (default ladder.json)")
    show.add_argument("--anchor", default="random",
                      help="the member fixed at --base (default random; none: the mean)")
    show.add_argument("--base", type=float, default=0.0, help="the anchor's rating (0)")
    show.add_argument("--bootstrap", type=int, default=500,
                      help="bootstrap resamples for the intervals (default 500)")
    show.add_argument("--markdown", metavar="PATH", help="write the ladder as markdown")
    show.add_argument("--plot", metavar="PATH", help="save a plot of the ratings (matplotlib)")
    add_json(show, "the ratings and the pairs")


def _add_ladder_best_response(lsub: Any) -> None:
    """``pasur ladder best-response``: learned best responses to members, trained here or
    recorded from ``pasur best-response --json`` files."""
    br = lsub.add_parser(
        "best-response", help="train a learned best response to members (or record saved "
        "ones): a lower bound on their exploitability (needs the train extra)",
        description="Train an exploiter of each chosen member (default: every member that has "
        "none) on the ladder's game, rules and seed, as pasur best-response does, and record "
        "its gain in the member's entry; with --from, record JSON results that pasur "
        "best-response saved elsewhere (of a member, on the ladder's game and rules, without "
        "--seat) without training (docs/exploitability.md).")
    br.add_argument("--ladder", default="ladder.json", metavar="FILE",
                    help="the ladder file (default ladder.json)")
    _add_budget(br)
    add_rounds(br, 2000, "to measure each exploiter on")
    br.add_argument("--member", action="extend", nargs="+", default=None, metavar="LABEL",
                    help="only these members (default: every member without one; a member "
                    "given that has one gets a new one)")
    br.add_argument("--from", action="extend", nargs="+", default=None, dest="results",
                    metavar="RESULT.json", help="record these JSON results of pasur "
                    "best-response instead of training")
    add_progress(br)


def _ladder_best_response(args: argparse.Namespace) -> int:
    """``pasur ladder best-response``: train and record, or record saved results."""
    from agents.evaluation.ladder import Ladder
    from agents.evaluation.match import seatings

    lad = Ladder.load(args.ladder)
    if args.results:
        given = [flag for flag in ("--minutes", "--decisions", "--rounds", "--member",
                                   "--teacher")
                 if getattr(args, flag[2:]) is not None]
        if given:
            raise ValueError(f"--from records saved results: {', '.join(given)} do not apply")
        labels = lad.record_best_response_files(args.results)
        what = "recorded the learned best response"
    else:
        rounds = whole_deals("--rounds", args.rounds, 2000, len(seatings(lad.players)))
        labels = lad.fill_best_response(args.member, minutes=args.minutes,
                                        decisions=args.decisions, rounds=rounds,
                                        teacher=args.teacher,
                                        progress=progress_on(args.progress),
                                        done=lambda _: lad.save())
        what = "trained a learned best response"
    lad.save()
    print(f"{what} of {len(labels)} member(s) of {args.ladder}: "
          + (", ".join(labels) or "none (every member has one)"))
    if len(lad.members) > 1:
        print(lad.ratings().table())
    return 0


def _ladder(args: argparse.Namespace) -> int:
    """``pasur ladder add`` / ``show`` / ``exploitability`` / ``best-response``
    (:class:`agents.evaluation.ladder.Ladder`)."""
    import time

    from agents.evaluation.ladder import Ladder

    if args.ladder_command == "show":
        lad = Ladder.load(args.ladder)
        res = lad.ratings(anchor=None if args.anchor.lower() == "none" else args.anchor,
                          base=args.base, bootstrap=args.bootstrap)
        _write_ladder(res, args, lambda path: lad.write_markdown(path, res))
        return 0
    if args.ladder_command == "best-response":
        return _ladder_best_response(args)
    if args.ladder_command == "exploitability":
        lad = Ladder.load(args.ladder)
        filled = lad.fill_exploitability(samples=args.samples)
        lad.save()
        print(f"computed the exploitability of {len(filled)} member(s) of {args.ladder}: "
              + (", ".join(filled) or "none (every member has it)"))
        return 0
    lad = Ladder.open(args.ladder, game=args.game, players=args.players, seed=args.seed,
                      rounds=args.rounds or 2000, batch=args.batch, preset=args.preset,
                      **_rules(args.rule))
    t0 = time.perf_counter()
    if args.address is None:
        played = lad.add(args.spec, rounds=args.rounds, progress=progress_on(args.progress),
                         exploitability=args.exploitability, samples=args.samples)
    else:
        from agents.evaluation.distributed import parse_address, play_pairs_on_ray, ray_session

        with ray_session(*parse_address(args.address)):
            played = lad.add(args.spec, rounds=args.rounds, progress=False,
                             run_pairs=play_pairs_on_ray, exploitability=args.exploitability,
                             samples=args.samples)
    lad.save()
    pairs = ", ".join(f"{a} vs {b}" for a, b in played) or "none (the first member)"
    print(f"added {args.spec.strip()!r} to {args.ladder} ({len(lad.members)} members): "
          f"played {len(played)} pair(s) in {time.perf_counter() - t0:.1f} s: {pairs}")
    exploit = lad.members[-1].exploitability
    if exploit is not None:
        print(f"exact exploitability on the ladder's variant: NashConv {exploit['nash_conv']:.4f}")
    if len(lad.members) > 1:
        print(lad.ratings().table())
    return 0


#: commands that play games: they say on stderr when they compile kernels (first run)
_PLAYING = ("eval", "tournament", "play", "demo", "serve", "replay", "exploitability", "ladder",
            "best-response")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pasur`` command line; returns the exit code."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    at = next((k for k, a in enumerate(argv) if not a.startswith("-")), None)
    if at is not None:  # the old spellings of the subcommand, said in one line each
        argv = upgrade_argv(argv, f"pasur {argv[at]}", at + 1)
    args = parser.parse_args(argv)
    handler = {"eval": _eval, "tournament": _tournament, "play": _play, "demo": _demo,
               "serve": _serve, "replay": _replay, "agents": _agents, "warmup": _warmup,
               "doctor": _doctor, "exploitability": _exploitability, "compare": _compare,
               "ladder": _ladder, "best-response": _best_response}
    refusal = _refusal(args)
    if refusal is not None:
        print(f"pasur {args.command}: error: {refusal}", file=sys.stderr)
        return 2
    try:
        if args.command not in _PLAYING:
            return handler[args.command](args)
        with compile_progress(prefix=f"pasur {args.command}"):
            return handler[args.command](args)
    except (ValueError, TypeError, OSError) as e:  # OSError: a missing or unreadable file
        print(f"pasur {args.command}: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:  # an optional dependency: one line naming the extra
        missing = as_missing_extra(e, f"pasur {args.command}")
        if missing is None:
            raise
        print(f"pasur {args.command}: error: {missing}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `pasur tournament ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
