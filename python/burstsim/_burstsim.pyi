"""Type stubs of the Rust extension module burstsim._burstsim (python/src/lib.rs).

Use the package API (``burstsim.run``, ``burstsim.Scenario``…) rather than this module:
it returns plain data (CSV text, paths) that ``burstsim/__init__.py`` turns into
DataFrames and charts.
"""

from os import PathLike
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple, Union, final

__all__ = ["ScenarioError", "VERSION", "Scenario", "Run", "SweepRun", "run", "run_sweep", "plot_dir"]

VERSION: str

_Path = Union[str, PathLike[str]]
_Progress = Optional[Callable[[int, int], object]]

class ScenarioError(ValueError):
    """A scenario that cannot be used. ``file``, ``line`` (1-based) and ``key`` (dotted)
    are None when unknown; ``message`` says what is wrong and what is allowed."""

    file: Optional[str]
    line: Optional[int]
    key: Optional[str]
    message: str

@final
class Scenario:
    @staticmethod
    def default() -> Scenario: ...
    @staticmethod
    def from_text(text: str, file: str = "<string>") -> Scenario: ...
    @staticmethod
    def from_path(path: _Path) -> Scenario: ...
    def with_values(self, values: Sequence[Tuple[str, str]]) -> Scenario: ...
    @property
    def text(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def replications(self) -> int: ...
    @property
    def policies(self) -> List[str]: ...
    @property
    def classes(self) -> List[str]: ...
    def resolved_toml(self) -> str: ...
    def hash(self) -> str: ...

@final
class Run:
    def csv(self, name: str) -> str: ...
    def write(self, dir: _Path, force: bool = False, charts: bool = True, excel: bool = False) -> List[str]: ...
    def table(self) -> str: ...
    def manifest(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def replications_done(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def scenario_name(self) -> str: ...

@final
class SweepRun:
    @property
    def dir(self) -> Path: ...
    @property
    def text(self) -> str: ...
    @property
    def chosen(self) -> Optional[Tuple[str, str, float, float]]: ...
    @property
    def met(self) -> List[Tuple[str, str, float]]: ...
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def confidence_each(self) -> Optional[float]: ...

def run(
    scenario: Scenario,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    targets: Sequence[str] = ...,
    ci_target: Sequence[str] = ...,
    sensitivity: bool = False,
    sensitivity_replications: Optional[int] = None,
    progress: _Progress = None,
) -> Run: ...
def run_sweep(
    text: str,
    file: str,
    params: Sequence[str],
    dir: _Path,
    decisions: Sequence[str] = ...,
    conditions: Sequence[str] = ...,
    weights: Sequence[str] = ...,
    targets: Sequence[str] = ...,
    risk: Optional[float] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    force: bool = False,
    charts: bool = True,
    progress: _Progress = None,
) -> SweepRun: ...
def plot_dir(dir: _Path, lang_code: str = "en") -> Tuple[Path, List[str], Path, List[str]]: ...
