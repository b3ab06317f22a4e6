"""Package data of the ToM system: the released sets' literal tables (``releases.yaml``, read here as
:data:`RELEASES`), OpenToM's and FANToM's tables, and the bundled Hi-ToM split."""

from pydantic import BaseModel, ConfigDict

from mindloop.datafiles import load_package_data

__all__ = ["RELEASES"]


class _Releases(BaseModel):
    """``releases.yaml``: field names, question types and prompt texts of the released sets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bigtom_fields: tuple[str, ...]
    bigtom_instruction: str
    mmtom_types: dict[str, str]
    fantom_kinds: tuple[str, ...]
    fantom_set_fields: tuple[str, ...]
    hitom_assumptions: str
    hitom_instruction: str
    hitom_vp_instruction: str


RELEASES = load_package_data(_Releases, "mindloop.systems.tom", "releases.yaml")
"""The released sets' literal tables."""
