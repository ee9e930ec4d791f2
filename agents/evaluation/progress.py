"""Progress bars for long runs: tqdm when installed, else a plain one-line counter."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A progress bar: tqdm when installed, else a plain one-line counter on stderr."""

    def __init__(self, total: int, desc: str, unit: str, enabled: bool = True,
                 file: TextIO | None = None) -> None:
        self.total, self.desc, self.unit, self.n = int(total), desc, unit, 0
        self.enabled = enabled
        self._file = file if file is not None else sys.stderr
        self._bar = None
        self._t0 = self._last = time.perf_counter()
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=self._file,
                             dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int) -> None:
        if n <= 0 or not self.enabled:
            return
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.perf_counter()
        if now - self._last >= 0.5 or self.n >= self.total:
            self._last = now
            pct = 100.0 * self.n / max(1, self.total)
            self._file.write(
                f"\r{self.desc}: {self.n}/{self.total} {self.unit} ({pct:3.0f}%) "
                f"{now - self._t0:.1f}s"
            )
            self._file.flush()

    def set_total(self, total: int) -> None:
        """Change the total (a run that sizes itself while it goes)."""
        self.total = int(total)
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            self._file.write("\n")
            self._file.flush()
