"""Data the tom system ships (each folder carries its source and license)."""
