"""Package data of the ToM system: the released sets' literal tables (``releases.yaml``, read here as
:data:`RELEASES`; OpenToM's and FANToM's conversation phrases among them), and the bundled Hi-ToM split."""

from mindloop.datafiles import DataModel, load_package_data

__all__ = ["RELEASES"]


class _OpenToMKind(DataModel):
    """A kind of OpenToM question: its label set, the release's prompt tail, its evaluator's numbers and reply
    phrases."""

    labels: tuple[str, ...] = ()
    tail: str
    codes: tuple[int, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()


class _Releases(DataModel):
    """``releases.yaml``: field names, question types and prompt texts of the released sets."""

    bigtom_fields: tuple[str, ...]
    bigtom_instruction: str
    mmtom_types: dict[str, str]
    fantom_kinds: tuple[str, ...]
    fantom_set_fields: tuple[str, ...]
    fantom_farewell: tuple[str, ...]
    fantom_returns: tuple[str, ...]
    fantom_unaware: tuple[str, ...]
    fantom_stop_words: str
    hitom_assumptions: str
    hitom_instruction: str
    hitom_vp_instruction: str
    opentom_files: tuple[str, ...]
    opentom_genres: tuple[str, ...]
    opentom_types: dict[str, str]
    opentom_kinds: dict[str, _OpenToMKind]


RELEASES = load_package_data(_Releases, "mindloop.systems.tom", "releases.yaml")
"""The released sets' literal tables."""
