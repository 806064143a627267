"""docs/score.md's examples are the calculator's answers: each input block is run and each
output block under it compared (the readable table exactly, JSON as values)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.scoring import run

PAGE = Path(__file__).parent.parent / "docs" / "score.md"
FENCE = re.compile(r"^```(\w+) (score-[\w-]+)([^\n]*)\n(.*?)^```$", re.M | re.S)


def examples() -> list[tuple[str, str, list[str], str]]:
    """(input, kind of output, its extra arguments, expected output) in the page's order."""
    out: list[tuple[str, str, list[str], str]] = []
    given: str | None = None
    for _lang, kind, args, body in FENCE.findall(PAGE.read_text(encoding="utf-8")):
        if kind in ("score-input", "score-batch"):
            given = body
            continue
        assert given is not None, f"{kind} before any input"
        out.append((given, kind, args.split(), body))
    return out


def test_the_page_has_its_examples() -> None:
    kinds = [kind for _, kind, _, _ in examples()]
    for kind in ("score-text", "score-output", "score-error", "score-batch-output"):
        assert kind in kinds


@pytest.mark.parametrize("example", examples(), ids=lambda e: e[1])
def test_each_example_is_what_the_calculator_answers(
        example: tuple[str, str, list[str], str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    given, kind, args, expected = example
    if kind.startswith("score-batch"):
        batch = tmp_path / "batch.jsonl"
        batch.write_text(given, encoding="utf-8")
        code, out, _ = run(["--batch", str(batch), *args])
        assert code == 0
        if "--json" in args:
            assert [json.loads(x) for x in out.splitlines()] == [
                json.loads(x) for x in expected.splitlines()]
        else:
            assert out == expected
        return
    situation = json.dumps(json.loads(given))
    if kind == "score-output":
        code, out, _ = run(["--json", *args], situation, monkeypatch)
        assert json.loads(out) == json.loads(expected)
    elif kind == "score-text":
        code, out, _ = run(args, situation, monkeypatch)
        assert out == expected
    else:
        code, out, err = run(args, situation, monkeypatch)
        assert code == 2 and out == "" and err == expected
