"""``[tool.loom]``: discovery by walking up, precedence flags > table > defaults, key-naming errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler.config import LoomConfig, load_config
from loom_runtime.errors import ConfigError


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.loom]\n{table}\n', encoding="utf-8")
    return tmp_path


def test_defaults_without_pyproject(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.root == tmp_path.resolve()
    assert config.out == "build/loom"
    assert config.decorators == ("loom_runtime.flow",)
    assert config.step_decorators == ("loom_runtime.step",)
    assert config.packages == () and config.history == () and config.exclude == ()


def test_found_by_walking_up_and_root_is_its_directory(tmp_path: Path) -> None:
    _project(tmp_path, 'packages = ["shop"]\nout = "dist/loom"\nhistory = ["v1.0"]\nexclude = ["shop/gen/*"]')
    deep = tmp_path / "shop" / "sub"
    deep.mkdir(parents=True)
    config = load_config(deep)
    assert config.root == tmp_path.resolve()
    assert config.packages == ("shop",)
    assert config.out == "dist/loom"
    assert config.out_dir == tmp_path.resolve() / "dist/loom"
    assert config.history == ("v1.0",)
    assert config.exclude == ("shop/gen/*",)


def test_nearest_pyproject_with_a_loom_table_wins(tmp_path: Path) -> None:
    _project(tmp_path, 'packages = ["outer"]')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "inner"\n', encoding="utf-8")
    assert load_config(inner).packages == ("outer",)


def test_flags_override_the_table(tmp_path: Path) -> None:
    _project(tmp_path, 'packages = ["shop"]\ndecorators = ["dbos.DBOS.workflow"]')
    config = load_config(tmp_path, packages=["billing"], decorators=None, out="o")
    assert config.packages == ("billing",)
    # None: flag not given; explicit decorators extend the (default: loom) profile's (DESIGN §8)
    assert config.decorators == ("loom_runtime.flow", "dbos.DBOS.workflow")
    assert config.out == "o"


def test_other_frameworks_decorators(tmp_path: Path) -> None:
    _project(tmp_path, 'decorators = ["dbos.DBOS.workflow", "temporalio.workflow.run", "prefect.flow"]\nstep-decorators = ["dbos.DBOS.step"]')
    config = load_config(tmp_path)
    assert config.decorators == ("loom_runtime.flow", "dbos.DBOS.workflow", "temporalio.workflow.run", "prefect.flow")
    assert config.step_decorators == ("loom_runtime.step", "dbos.DBOS.step")


@pytest.mark.parametrize(
    ("table", "key", "match"),
    [
        ('pakages = ["shop"]', "tool.loom.pakages", "unknown key `tool.loom.pakages`"),
        ('packages = "shop"', "tool.loom.packages", "must be a list of strings"),
        ("packages = [1]", "tool.loom.packages", "non-empty string"),
        ("out = 3", "tool.loom.out", "must be a non-empty string"),
        ('decorators = ["loom runtime.flow"]', "tool.loom.decorators", "not a dotted Python name"),
        ('step-decorators = "loom_runtime.step"', "tool.loom.step-decorators", "list of strings"),
        ('history = [""]', "tool.loom.history", "non-empty string"),
        ("exclude = {a = 1}", "tool.loom.exclude", "list of strings"),
        ('check = {bse = "main"}', "tool.loom.check.bse", "unknown key `tool.loom.check.bse`; known keys: base"),
        ("check = {base = 1}", "tool.loom.check.base", "must be a non-empty string"),
        ('check = "main"', "tool.loom.check", "must be a table"),
    ],
)
def test_wrong_keys_and_types_name_the_key(tmp_path: Path, table: str, key: str, match: str) -> None:
    _project(tmp_path, table)
    with pytest.raises(ConfigError, match=match) as info:
        load_config(tmp_path)
    assert info.value.key == key
    assert info.value.path == str(tmp_path / "pyproject.toml")
    assert key in str(info.value)


def test_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.loom\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


def test_loom_table_of_wrong_type(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\nloom = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="`tool.loom` must be a table") as info:
        load_config(tmp_path)
    assert info.value.key == "tool.loom"


def test_bad_flag_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="packages") as info:
        load_config(tmp_path, packages="shop")
    assert info.value.key == "packages"
    with pytest.raises(ConfigError, match="unknown option `pakages`"):
        load_config(tmp_path, pakages=["x"])


def test_config_is_frozen_and_digest_covers_analysis_inputs_only(tmp_path: Path) -> None:
    a = LoomConfig(root=tmp_path, packages=("shop",))
    with pytest.raises(AttributeError):
        a.out = "x"  # type: ignore[misc]
    assert a.digest == LoomConfig(root=tmp_path / "elsewhere", packages=("shop",), out="o", history=("v1",)).digest
    assert a.digest != LoomConfig(root=tmp_path, packages=("shop", "billing")).digest
    assert a.digest != LoomConfig(root=tmp_path, packages=("shop",), decorators=("prefect.flow",)).digest
    assert a.digest != LoomConfig(root=tmp_path, packages=("shop",), step_decorators=("x.step",)).digest
