"""Export a trained model for shipping: same weights, without Adam's moment estimates.

A saved MaskablePPO keeps its optimizer state (two tensors per weight), which triples
the file and is only needed to continue training. The exported file loads and plays
exactly like the original (``pasur eval``, ``pasur play``, ``make_agent``); resuming
from it starts Adam afresh.

    python -m train.export runs/ppo_long/model.zip agents/pretrained/ppo_2p.zip
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.apps.flags import Parser


def export(src: str | Path, dst: str | Path) -> Path:
    """Write ``src``'s policy to ``dst`` with a fresh (empty) optimizer state."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(src, device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(
        policy.parameters(), lr=1e-4, **policy.optimizer_kwargs
    )
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    model.save(dst)
    return dst


def main(argv: list[str] | None = None) -> None:
    ap = Parser(prog="python -m train.export", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="a model.zip written by train.ppo")
    ap.add_argument("dst", help="where to write the exported model")
    args = ap.parse_args(argv)
    out = export(args.src, args.dst)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
