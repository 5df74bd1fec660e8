"""burstsim from Python: where should your group's GPU jobs run?

The simulation is the Rust library burstsim (the same engine as the ``burstsim`` command
line, compiled into ``burstsim._burstsim``); this module turns its output files into
pandas DataFrames and shows its charts in a notebook.

>>> import burstsim
>>> s = burstsim.Scenario.default().with_(**{"simulation.horizon_days": 60})
>>> r = burstsim.run(s, replications=2, seed=1, progress=False)
>>> list(r.summary.columns)[:3]
['policy', 'metric', 'n']

Same scenario, seed and replications give the same numbers as ``burstsim run`` (the
files of :meth:`Result.to_folder` are byte-identical to the CLI's). See docs/PYTHON.md.
"""

from __future__ import annotations

import base64
import html
import io
import os
import shutil
import tempfile
import warnings as _warnings
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _burstsim
from ._burstsim import ScenarioError

__version__ = _burstsim.VERSION

__all__ = [
    "BurstsimWarning",
    "Scenario",
    "ScenarioError",
    "Result",
    "SweepResult",
    "Recommendation",
    "Chart",
    "Charts",
    "run",
    "sweep",
    "__version__",
]

# The files of the CSV contract a run writes (docs/OUTPUTS.md).
RUN_FILES = ("summary", "paired", "classes", "seasons", "replications", "timeseries", "waits", "class_waits")

Progress = Union[bool, None, Callable[[int, int], Any]]


class BurstsimWarning(UserWarning):
    """What the CLI prints as ``burstsim: warning: …`` (too few replications, an unstable
    campus, a chart that could not be drawn…)."""


def _warn(messages: Sequence[str]) -> None:
    for m in messages:
        _warnings.warn(m, BurstsimWarning, stacklevel=3)


def _value_text(value: Any) -> str:
    """A Python value as the text a scenario key takes (typed like the key it replaces)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _list(x: Union[None, str, Sequence[str]]) -> List[str]:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return [str(v) for v in x]


class Scenario:
    """A checked scenario. Immutable: :meth:`with_` returns a new one.

    Build one with :meth:`default`, :meth:`from_toml`; a value that is not allowed raises
    :class:`ScenarioError` naming the file, line and key, as the CLI does.
    """

    __slots__ = ("_inner",)

    def __init__(self, inner: "_burstsim.Scenario"):
        self._inner = inner

    @classmethod
    def default(cls) -> "Scenario":
        """The built-in default scenario (what ``burstsim run`` runs without a file)."""
        return cls(_burstsim.Scenario.default())

    @classmethod
    def from_toml(cls, source: Union[str, "os.PathLike[str]"]) -> "Scenario":
        """Reads a scenario from a path or from TOML text.

        A :class:`os.PathLike`, or a string naming an existing file, is read as a file;
        another string holding a newline or ``=`` is TOML text (errors then name the file
        ``<string>``); anything else is taken as a path that does not exist.
        """
        if isinstance(source, os.PathLike):
            return cls(_burstsim.Scenario.from_path(os.fspath(source)))
        if not isinstance(source, str):
            raise TypeError(f"from_toml takes a path or TOML text, not {type(source).__name__}")
        if os.path.isfile(source) or ("\n" not in source and "=" not in source):
            return cls(_burstsim.Scenario.from_path(source))
        return cls(_burstsim.Scenario.from_text(source, "<string>"))

    def with_(self, values: Optional[Mapping[str, Any]] = None, /, **more: Any) -> "Scenario":
        """A copy with dotted keys set, e.g. ``s.with_(**{"campus.nodes": 32})`` or
        ``s.with_({"policies.overflow-4h.threshold_hours": 2})``.

        Keys are those of a sweep (arrays of tables by ``name`` or index); each value is
        typed like the key it replaces. The result is checked as a whole.
        """
        pairs = dict(values or {})
        pairs.update(more)
        return Scenario(self._inner.with_values([(k, _value_text(v)) for k, v in pairs.items()]))

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def seed(self) -> int:
        return self._inner.seed

    @property
    def replications(self) -> int:
        return self._inner.replications

    @property
    def policies(self) -> List[str]:
        return list(self._inner.policies)

    @property
    def classes(self) -> List[str]:
        return list(self._inner.classes)

    @property
    def file(self) -> str:
        """The file name errors and relative paths refer to."""
        return self._inner.file

    def to_toml(self) -> str:
        """The scenario's TOML text (as read, or as rewritten by :meth:`with_`)."""
        return self._inner.text

    def resolved_toml(self) -> str:
        """Every default filled in, loadable again (what ``run.toml`` records)."""
        return self._inner.resolved_toml()

    def __repr__(self) -> str:
        return (
            f"Scenario(name={self.name!r}, policies={self.policies!r}, seed={self.seed}, "
            f"replications={self.replications})"
        )


def _progress_callback(progress: Progress, what: str) -> Tuple[Optional[Callable[[int, int], Any]], Callable[[], None]]:
    """(callback for Rust, close). ``True``: a tqdm bar when tqdm is installed, else none."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, lambda: None
    state: Dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None or bar.total != total:
            if bar is not None:
                bar.close()
            bar = state["bar"] = tqdm(total=total, desc=what, unit="rep", leave=False)
        bar.update(done - bar.n)

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return update, close


def _read_csv(text: str):
    import pandas as pd

    return pd.read_csv(io.StringIO(text))


@dataclass(frozen=True)
class Chart:
    """One chart of a run or sweep folder; shows inline in a notebook."""

    name: str
    svg_path: Path
    png_path: Path

    @property
    def svg(self) -> str:
        return self.svg_path.read_text(encoding="utf-8")

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_png_(self) -> bytes:
        return self.png_path.read_bytes()

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.png_path.read_bytes()).decode("ascii")
        return f'<img alt="{html.escape(self.name)}" style="max-width:100%" src="data:image/png;base64,{data}"/>'


@dataclass(frozen=True)
class Charts:
    """Every chart of a folder in report order, in one language; shows inline."""

    lang: str
    folder: Path
    report_html: Path
    charts: Tuple[Chart, ...]
    warnings: Tuple[str, ...] = ()

    def __getitem__(self, key: Union[int, str]) -> Chart:
        if isinstance(key, int):
            return self.charts[key]
        for c in self.charts:
            if c.name == key:
                return c
        raise KeyError(f"no chart named {key!r}; the charts are: {', '.join(self.names)}")

    def __len__(self) -> int:
        return len(self.charts)

    def __iter__(self):
        return iter(self.charts)

    @property
    def names(self) -> List[str]:
        return [c.name for c in self.charts]

    def _repr_html_(self) -> str:
        parts = [f"<h4>{html.escape(c.name)}</h4>{c._repr_html_()}" for c in self.charts]
        return "\n".join(parts)


def _charts(folder: Path, lang: str) -> Charts:
    charts_dir, names, report, warnings = _burstsim.plot_dir(str(folder), lang)
    charts_dir = Path(charts_dir)
    return Charts(
        lang=lang,
        folder=charts_dir,
        report_html=Path(report),
        charts=tuple(Chart(n, charts_dir / f"{n}.svg", charts_dir / f"{n}.png") for n in names),
        warnings=tuple(warnings),
    )


def _private_dir(owner: object, prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    weakref.finalize(owner, shutil.rmtree, str(path), True)
    return path


class Result:
    """A finished run. Each CSV of the output contract is a pandas DataFrame with the
    file's columns: :attr:`summary`, :attr:`paired`, :attr:`classes`, :attr:`seasons`,
    :attr:`replications`, :attr:`timeseries`, :attr:`waits`, :attr:`class_waits`, and
    :attr:`risk` (with targets) and :attr:`sensitivity` (with the band), else None.
    """

    def __init__(self, inner: "_burstsim.Run", scenario: Scenario):
        self._inner = inner
        self.scenario = scenario
        self._frames: Dict[str, Any] = {}
        self._charts: Dict[str, Charts] = {}
        self._folder: Optional[Path] = None

    def csv(self, name: str) -> str:
        """The exact text of ``NAME.csv`` as the CLI writes it."""
        return self._inner.csv(name)

    def _frame(self, name: str):
        if name not in self._frames:
            self._frames[name] = _read_csv(self._inner.csv(name))
        return self._frames[name]

    def _optional(self, name: str):
        try:
            return self._frame(name)
        except ValueError:
            return None

    summary = property(lambda self: self._frame("summary"), doc="summary.csv: one row per policy and metric.")
    paired = property(lambda self: self._frame("paired"), doc="paired.csv: differences against the baseline.")
    classes = property(lambda self: self._frame("classes"), doc="classes.csv: per job class.")
    seasons = property(lambda self: self._frame("seasons"), doc="seasons.csv: per season.")
    replications = property(lambda self: self._frame("replications"), doc="replications.csv: one row per simulated year and policy.")
    timeseries = property(lambda self: self._frame("timeseries"), doc="timeseries.csv: daily series.")
    waits = property(lambda self: self._frame("waits"), doc="waits.csv: the wait distribution.")
    class_waits = property(lambda self: self._frame("class_waits"), doc="class_waits.csv: waits per class.")
    risk = property(lambda self: self._optional("risk"), doc="risk.csv (with targets), else None.")
    sensitivity = property(lambda self: self._optional("sensitivity"), doc="sensitivity.csv (with the band), else None.")

    @property
    def warnings(self) -> List[str]:
        return list(self._inner.warnings)

    @property
    def replications_done(self) -> int:
        return self._inner.replications_done

    @property
    def table(self) -> str:
        """The table ``burstsim run`` prints."""
        return self._inner.table()

    def manifest(self) -> str:
        """The text of run.toml."""
        return self._inner.manifest()

    def to_folder(self, path: Union[str, "os.PathLike[str]"], force: bool = False, charts: bool = True, excel: bool = False) -> Path:
        """Writes the files ``burstsim run --out PATH`` writes: run.toml and the CSVs (and,
        unless ``charts=False``, charts/ and report.html/report.md). A folder holding
        another run is refused unless ``force``, as on the command line."""
        path = Path(path)
        _warn(self._inner.write(str(path), force, charts, excel))
        return path

    def _plotted(self) -> Path:
        if self._folder is None:
            folder = _private_dir(self, "burstsim-run-")
            self._inner.write(str(folder), True, False, False)
            self._folder = folder
        return self._folder

    def charts(self, lang: str = "en") -> Charts:
        """Every chart of the run (``'en'`` or ``'zh'``), drawn once into a private folder;
        shows inline in a notebook, ``charts['cost_vs_wait']`` one of them."""
        if lang not in self._charts:
            self._charts[lang] = _charts(self._plotted(), lang)
        return self._charts[lang]

    def chart(self, name: str, lang: str = "en") -> Chart:
        return self.charts(lang)[name]

    def __str__(self) -> str:
        return self.table

    def __repr__(self) -> str:
        return f"<burstsim.Result {self._inner.scenario_name!r}: {self.replications_done} replications, seed {self._inner.seed}>"

    def _repr_html_(self) -> str:
        head = html.escape(repr(self))
        table = self.summary.to_html(max_rows=40)
        return f"<p>{head}</p>{table}<p>charts: <code>result.charts()</code> or <code>result.charts('zh')</code></p>"


def run(
    scenario: Optional[Scenario] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    *,
    targets: Union[None, str, Sequence[str]] = None,
    ci_target: Union[None, str, Sequence[str]] = None,
    sensitivity: bool = False,
    sensitivity_replications: Optional[int] = None,
    progress: Progress = True,
) -> Result:
    """Runs the scenario's policies over its replications, as ``burstsim run`` does.

    ``replications`` and ``seed`` override the scenario's (``--replications``,
    ``--seed``); ``threads`` sizes the worker pool (default: one per core). ``targets``
    (``--target``, e.g. ``"wait_p95_h<=24"``) adds risk.csv; ``ci_target``
    (``--ci-target``) stops sequentially. ``sensitivity=True`` also computes the
    sensitivity band (the CLI's default; ``False`` is ``--no-sensitivity``).
    ``progress``: ``True`` draws a tqdm bar when tqdm is installed, ``False`` nothing, a
    callable gets ``(done, total)``. The GIL is released while it runs; Ctrl-C
    (KeyboardInterrupt) stops the replications within a fraction of a second.
    """
    scenario = scenario if scenario is not None else Scenario.default()
    callback, close = _progress_callback(progress, "replications")
    try:
        inner = _burstsim.run(
            scenario._inner,
            replications=replications,
            seed=seed,
            threads=threads,
            targets=_list(targets),
            ci_target=_list(ci_target),
            sensitivity=sensitivity,
            sensitivity_replications=sensitivity_replications,
            progress=callback,
        )
    finally:
        close()
    _warn(inner.warnings)
    return Result(inner, scenario)


@dataclass(frozen=True)
class Recommendation:
    """The recommendation of a sweep with targets: the cheapest point and policy whose
    bound meets every target (``policy`` is None when none does)."""

    rule: str
    confidence_each: float
    policy: Optional[str]
    point: Optional[str]
    cost_mean: Optional[float]
    cost_half_width: Optional[float]
    met: Tuple[Tuple[str, str, float], ...] = field(default_factory=tuple)
    text: str = ""

    def __str__(self) -> str:
        return self.text


class SweepResult:
    """A finished sweep. :attr:`table` is sweep.csv (one row per point and policy, the
    swept keys as columns); with targets :attr:`recommendation`, :attr:`decisions`
    (decisions.csv) and :attr:`risk` (risk.csv). :attr:`folder` holds every file
    ``burstsim sweep --out`` writes."""

    def __init__(self, inner: "_burstsim.SweepRun", folder: Path):
        self._inner = inner
        self.folder = folder
        self._charts: Dict[str, Charts] = {}
        self._frames: Dict[str, Any] = {}

    def _frame(self, name: str):
        if name not in self._frames:
            path = self.folder / f"{name}.csv"
            self._frames[name] = _read_csv(path.read_text(encoding="utf-8")) if path.exists() else None
        return self._frames[name]

    table = property(lambda self: self._frame("sweep"), doc="sweep.csv as a DataFrame (the long table).")
    decisions = property(lambda self: self._frame("decisions"), doc="decisions.csv (with targets), else None.")
    risk = property(lambda self: self._frame("risk"), doc="risk.csv (with targets), else None.")

    @property
    def text(self) -> str:
        """What ``burstsim sweep`` prints: the table and the recommendation or decisions."""
        return self._inner.text

    @property
    def recommendation(self) -> Optional[Recommendation]:
        if self._inner.rule is None:
            return None
        chosen = self._inner.chosen
        path = self.folder / "recommendation.txt"
        return Recommendation(
            rule=self._inner.rule,
            confidence_each=self._inner.confidence_each,
            policy=chosen[0] if chosen else None,
            point=chosen[1] if chosen else None,
            cost_mean=chosen[2] if chosen else None,
            cost_half_width=chosen[3] if chosen else None,
            met=tuple(tuple(m) for m in self._inner.met),
            text=path.read_text(encoding="utf-8") if path.exists() else "",
        )

    def charts(self, lang: str = "en") -> Charts:
        """The sweep's charts (``'en'`` or ``'zh'``), drawn into its folder."""
        if lang not in self._charts:
            self._charts[lang] = _charts(self.folder, lang)
        return self._charts[lang]

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text)}</pre>"


def sweep(
    scenario: Optional[Scenario] = None,
    params: Optional[Mapping[str, Union[str, Sequence[Any]]]] = None,
    target: Union[None, str, Sequence[str]] = None,
    risk: Optional[float] = None,
    *,
    decisions: Sequence[str] = (),
    conditions: Sequence[str] = (),
    weights: Optional[Mapping[str, Sequence[float]]] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    out: Union[None, str, "os.PathLike[str]"] = None,
    force: bool = False,
    charts: bool = False,
    progress: Progress = True,
) -> SweepResult:
    """Runs a parameter grid, as ``burstsim sweep`` does.

    ``params`` maps dotted keys to values: a list (``[1, 2, 4]``) or the CLI's text
    (``"0:48:4"``); without it the scenario's ``[sweep]`` table is used. ``target``
    (``--target``) and ``risk`` (``--risk``) give the recommendation and decisions;
    ``decisions``/``conditions``/``weights`` set the axes' roles and weights. The files go
    to ``out`` (default: a private temporary folder), exactly as the CLI writes them,
    charts included when ``charts=True``.
    """
    scenario = scenario if scenario is not None else Scenario.default()
    specs = []
    for key, values in (params or {}).items():
        text = values if isinstance(values, str) else ",".join(_value_text(v) for v in values)
        specs.append(f"{key}={text}")
    weight_specs = [f"{k}={','.join(str(w) for w in ws)}" for k, ws in (weights or {}).items()]
    callback, close = _progress_callback(progress, "policy-replications")
    holder = object.__new__(SweepResult)
    folder = Path(out) if out is not None else _private_dir(holder, "burstsim-sweep-")
    try:
        inner = _burstsim.run_sweep(
            scenario._inner.text,
            scenario._inner.file,
            specs,
            str(folder),
            decisions=list(decisions),
            conditions=list(conditions),
            weights=weight_specs,
            targets=_list(target),
            risk=risk,
            replications=replications,
            seed=seed,
            threads=threads,
            force=force,
            charts=charts,
            progress=callback,
        )
    finally:
        close()
    holder.__init__(inner, folder)
    return holder
