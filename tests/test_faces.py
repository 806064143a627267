"""Tile faces named by a setting."""

from tui.view.faces import Face, face_named


def test_a_face_is_found_by_its_setting_and_an_unknown_or_empty_name_by_none() -> None:
    assert face_named("glyph") is Face.GLYPH
    assert face_named("ascii") is Face.ASCII
    assert face_named("") is None
    assert face_named(None) is None
    assert face_named("GLYPH\x1b[2J") is None
