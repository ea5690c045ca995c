"""Only what pyproject.toml cannot say declaratively.

The rule modules live in the top-level `rules/` directory but are imported as `scopelint.rules`;
`find_packages` keeps every future `scopelint.*` subpackage in the list without editing this file.
"""
from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["scopelint", "scopelint.*"]),
        "scopelint.rules",
        *(f"scopelint.rules.{name}" for name in find_packages(where="rules")),
    ],
    package_dir={"scopelint.rules": "rules"},
)
