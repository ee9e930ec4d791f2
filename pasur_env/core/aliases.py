"""Old import paths kept alive: a module moved in the tree stays importable by its old name.

Saved artefacts name the modules they were made with: a pickled RLlib checkpoint holds
``agents.rllib_module.MaskedPPOModule``, a user's script ``pasur_env.engine``. Each
package passes :func:`install_aliases` a table ``old name -> new name``; importing an
old name (or anything below it) then returns the *same* module object as the new name,
so classes compare equal, numba kernels compile once and nothing is loaded twice.

The finder sits first on ``sys.meta_path`` and answers only to the old names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Mapping
from types import ModuleType

__all__ = ["install_aliases", "ModuleAliases"]


class ModuleAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta-path finder mapping old module names to the modules that replaced them."""

    def __init__(self, table: Mapping[str, str]) -> None:
        # longest prefix first, so "a.kernels.bits" wins over "a.kernels"
        self.table = dict(sorted(table.items(), key=lambda kv: len(kv[0]), reverse=True))

    def target(self, name: str) -> str | None:
        """The new name of module ``name``, or None when it did not move."""
        for old, new in self.table.items():
            if name == old or name.startswith(old + "."):
                return new + name[len(old):]
        return None

    def find_spec(self, name: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        new = self.target(name)
        if new is None:
            return None
        real = importlib.import_module(new)
        return importlib.machinery.ModuleSpec(
            name, self, is_package=hasattr(real, "__path__"),
            loader_state=(real, real.__spec__),
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return spec.loader_state[0]

    def exec_module(self, module: ModuleType) -> None:
        # the import system stamped the alias's spec on the real module: give its own back
        spec = module.__spec__
        if spec is not None and spec.loader is self:
            module.__spec__ = spec.loader_state[1]


def install_aliases(table: Mapping[str, str]) -> ModuleAliases:
    """Make every old name of ``table`` import as its new module (idempotent per table)."""
    for finder in sys.meta_path:
        if isinstance(finder, ModuleAliases) and finder.table == dict(
            sorted(table.items(), key=lambda kv: len(kv[0]), reverse=True)
        ):
            return finder
    finder = ModuleAliases(table)
    sys.meta_path.insert(0, finder)
    return finder
