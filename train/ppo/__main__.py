"""``python -m train.ppo``: one run of the MaskablePPO pipeline (:mod:`train.ppo`)."""

import os

if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    from train.ppo import main

    main()
