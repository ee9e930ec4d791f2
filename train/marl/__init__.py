"""Multi-agent libraries on the AEC envs (``docs/multi_agent.md``): runnable Tianshou and
TorchRL examples, tested at tiny size by ``tests/test_marl.py`` (``make test``; the
libraries are the ``marl`` dependency group that ``make venv`` installs). Nothing in
pasur_env, agents or the other pipelines imports them."""
