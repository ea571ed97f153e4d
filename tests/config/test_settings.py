from __future__ import annotations

from pathlib import Path

import pytest

from familiars.config import ConfigError, Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_config_loads_and_matches_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FAMILIARS_WORKSPACE", "EMBEDDING_MODEL", "VRAM_GATE_IDLE_EVICT_SEC"):
        monkeypatch.delenv(name, raising=False)
    example = load_settings(ROOT / "config" / "familiars.example.toml")
    assert example.model_dump() == Settings().model_dump()


def test_environment_beats_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "f.toml"
    cfg.write_text("[recall]\nk = 5\n[scheduler]\ndaily_cap = 1\n")
    monkeypatch.setenv("FAMILIARS_RECALL__K", "11")
    monkeypatch.setenv("FAMILIARS_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("EMBEDDING_MODEL", "some/model")
    monkeypatch.setenv("VRAM_GATE_IDLE_EVICT_SEC", "12")
    settings = load_settings(cfg)
    assert settings.recall.k == 11
    assert settings.scheduler.daily_cap == 1
    assert settings.workspace == tmp_path / "ws"
    assert settings.embedding.model == "some/model"
    assert settings.gate.idle_evict_sec == 12


def test_config_path_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "f.toml"
    cfg.write_text('[[agents]]\nid = "luna"\nname = "Luna"\n')
    monkeypatch.setenv("FAMILIARS_CONFIG", str(cfg))
    assert [a.id for a in load_settings().agents] == ["luna"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[recall\nk = 1", "does not parse"),
        ("[recall]\nk = -3", "invalid configuration"),
        ("[[agents]]\nid='a'\n[[agents]]\nid='a'\n", "unique"),
    ],
)
def test_bad_files_get_a_clear_error(tmp_path: Path, text: str, needle: str) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load_settings(cfg)


def test_a_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml")


def test_secrets_come_only_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TOKEN", "  abc ")
    monkeypatch.delenv("EMPTY_TOKEN", raising=False)
    settings = Settings()
    assert settings.secret("MY_TOKEN") == "abc"
    assert settings.secret("EMPTY_TOKEN") is None
