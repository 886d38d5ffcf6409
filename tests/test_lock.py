"""The lock (requirements/*.txt) and pyproject.toml agree.

pyproject.toml keeps honest ranges for people who import blackwhite as a library; the lock
pins what the README's commands, .ci/run and the benchmarks install.  A dependency added to
one and not the other, or a pin outside its range, would let a fresh install differ from
what the suite was run on, so it fails here.  `bash requirements/refresh` rewrites the lock.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ENVS = ["base", *PROJECT["optional-dependencies"]]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;#]+)\s*(?:;[^#]*)?(?:#\s*(.*))?$")


def direct(env: str) -> dict[str, Requirement]:
    """The requirements pyproject.toml states for one environment, by canonical name."""
    texts = list(PROJECT["dependencies"])
    if env != "base":
        texts += PROJECT["optional-dependencies"][env]
    out = {}
    for text in texts:
        req = Requirement(text)
        out[canonicalize_name(req.name)] = req
    return out


def pins(env: str) -> dict[str, tuple[str, str]]:
    """Every pin of one lock file: canonical name -> (version, what pulled it in)."""
    out = {}
    for line in (ROOT / "requirements" / f"{env}.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = PIN.match(line.strip())
        assert found, f"requirements/{env}.txt: not an exact pin: {line!r}"
        out[canonicalize_name(found.group(1))] = (found.group(2), found.group(3) or "")
    return out


def test_every_environment_has_a_lock_and_no_lock_is_stale() -> None:
    files = {p.stem for p in (ROOT / "requirements").glob("*.txt")}
    assert files == set(ENVS), "run bash requirements/refresh: the lock files and pyproject's extras differ"


@pytest.mark.parametrize("env", ENVS)
def test_each_stated_dependency_is_pinned_inside_its_range(env: str) -> None:
    pinned = pins(env)
    for name, req in direct(env).items():
        assert name in pinned, f"{req} is in pyproject.toml but not in requirements/{env}.txt"
        version = pinned[name][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements/{env}.txt pins {name}=={version}, outside pyproject.toml's {req}"
        )


@pytest.mark.parametrize("env", ENVS)
def test_nothing_is_pinned_as_ours_that_pyproject_no_longer_asks_for(env: str) -> None:
    stated = direct(env)
    for name, (_version, via) in pins(env).items():
        if "blackwhite" in via and name not in stated:
            raise AssertionError(f"requirements/{env}.txt pins {name} for blackwhite, but pyproject.toml no longer asks for it")


def test_the_lock_is_consistent_across_environments() -> None:
    """A package pinned in two environments has one version, so the test env is the served one."""
    seen: dict[str, tuple[str, str]] = {}
    for env in ENVS:
        for name, (version, _via) in pins(env).items():
            if name in seen:
                assert seen[name][0] == version, f"{name}: {seen[name][1]} pins {seen[name][0]}, {env} pins {version}"
            else:
                seen[name] = (version, env)
