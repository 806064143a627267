"""The review's words, without a screen: an action as the review names it, the verdict and
why the expert plays what its figures alone do not explain, one line per decision and the
summary, in English or Chinese (``mahjong-ssh review --text``, and the figures the review
screen shows). Tiles are in the project's notation (``5m``, ``E``) unless the caller gives a
face of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.actions import Action, ActionType
from engine.bots.expert import MIN_GAIN
from engine.review import TIED, Assessment, Decision, Kept, summary
from engine.tiles import Kind, format_tiles, kind_to_str
from words import tr

TileName = Callable[[Kind], str]

_PLAIN_KEYS = {
    ActionType.WIN: "rv_a_win", ActionType.PASS: "rv_a_pass", ActionType.BUY: "rv_a_buy",
    ActionType.NO_BUY: "rv_a_no_buy", ActionType.POND_WIN: "rv_a_pond_win",
    ActionType.PENG: "rv_a_peng", ActionType.MINGGANG: "rv_a_minggang",
    ActionType.ANGANG: "rv_a_angang", ActionType.BUGANG: "rv_a_bugang",
}
SUMMARY_ROWS = 10  # the biggest losses --text lists


def action_text(action: Action, lang: str, tile: TileName = kind_to_str,
                tiles: Callable[[Sequence[Kind]], str] = format_tiles) -> str:
    """``discard 5m`` / ``打5m``, ``碰 5p``, ``吃 5s with 34s`` …"""
    t = tile(action.tile) if action.tile is not None else ""
    if action.type is ActionType.DISCARD:
        return tr(lang, "rv_a_ting" if action.ting else "rv_a_discard", tile=t)
    if action.type is ActionType.CHI:
        return tr(lang, "rv_a_chi", tile=t, tiles=tiles(sorted(action.tiles)))
    text = tr(lang, _PLAIN_KEYS[action.type], tile=t).strip()
    if action.lighter:
        text += tr(lang, "rv_a_lighter")
    return text


def move_no(decision: Decision) -> int:
    """The decision's move within its hand, counted from 1 (the replay viewer shows the table
    after it at that move)."""
    return decision.index + 1


def value_text(mean: float, half: float) -> str:
    """``+1.23 ±0.40``: expected points and the 95% interval's half width."""
    return f"{mean:+.2f} ±{half:.2f}"


def verdict(a: Assessment, lang: str) -> str:
    """``agrees``, ``loss 0.63 points``, ``no clear loss`` (the expert's choice shows more
    inside the figures' uncertainty: :func:`why_lines` says so), ``no loss: yours scores 0.40
    more``, ``as good by the figures`` (the two figures read the same), or ``not weighed``.
    Where another figure beats the expert's choice, :func:`why_lines` says why the expert
    keeps it."""
    if not a.weighed:
        return tr(lang, "rv_text_agrees" if a.agrees else "rv_text_unweighed")
    if a.agrees:
        return tr(lang, "rv_text_agrees")
    if a.gap is not None:
        return tr(lang, "rv_text_unclear")
    if a.loss >= TIED:
        return tr(lang, "rv_loss", loss=a.loss, half=a.loss_half)
    taken, choice = a.value_of(a.decision.taken), a.value_of(a.choice)
    if taken is not None and choice is not None and taken.mean - choice.mean >= TIED:
        return tr(lang, "rv_text_ahead", gain=taken.mean - choice.mean)
    return tr(lang, "rv_text_tied")


def why_lines(a: Assessment, lang: str, act: Callable[[Action], str]) -> list[str]:
    """Why the expert plays what it does where its figures alone do not say: a win on offer
    it declines (by which rule), and a choice it keeps though another action's figure beats
    it (inside the noise, too small, or gone on fresh samples); and a choice of the expert's
    that shows more than the one played, but not clearly, so no loss. ``act`` names an
    action."""
    out: list[str] = []
    d = a.declined
    if d is not None:
        if d.rule == "baodiao":
            out.append(tr(lang, "rv_why_baodiao", choice=act(a.choice), now=d.now,
                          value=d.value))
        elif d.rule == "menqing":
            out.append(tr(lang, "rv_why_menqing"))
        else:
            own = a.value_of(a.choice)
            out.append(tr(lang, "rv_why_win_figures", choice=act(a.choice),
                          gain=own.gain if own else a.loss,
                          half=own.gain_half if own else a.loss_half))
    gap = a.gap
    if gap is not None:
        out.append(tr(lang, "rv_why_unclear", choice=act(a.choice), gain=gap.gain,
                      half=gap.gain_half))
    b = a.better
    if b is not None and a.kept is not Kept.BEST:
        fields = {"choice": act(a.choice), "better": act(b.action), "gain": b.gain,
                  "half": b.gain_half, "least": MIN_GAIN}
        if a.kept is Kept.RECHECKED and a.fresh is not None:
            out.append(tr(lang, "rv_why_rechecked", n=a.fresh.samples, fresh=a.fresh.gain,
                          fresh_half=a.fresh.gain_half, **fields))
        else:
            out.append(tr(lang, "rv_why_small" if a.kept is Kept.SMALL else "rv_why_noise",
                          **fields))
    return out


COACH_VALUES = 4  # the weighed actions the coach names at most (the best figures first)


def coach_lines(a: Assessment, lang: str, act: Callable[[Action], str] | None = None,
                plain: bool = False) -> list[str]:
    """The coach's view of a decision before it is played (:func:`engine.review.advise`):
    what the expert would play, each weighed action's expected points (the best
    :data:`COACH_VALUES`, its choice marked: ``▶``, or in words where ``plain``), and why in
    the review's words."""
    name = act if act is not None else (lambda action: action_text(action, lang))
    lines = [tr(lang, "coach_head", action=name(a.choice))]
    if not a.weighed:
        lines.append(tr(lang, "rv_not_weighed", action=name(a.choice)))
    else:
        lines.append(tr(lang, "coach_values", samples=a.values[0].samples))
        shown = list(a.values[:COACH_VALUES])
        own = a.value_of(a.choice)
        if own is not None and own not in shown:
            shown[-1] = own
        for v in shown:
            row = f"{name(v.action)}  {value_text(v.mean, v.half)}"
            if plain:
                mine = v.action == a.choice
                lines.append(f"  {row}" + (f" ({tr(lang, 'rv_mark_expert')})" if mine else ""))
            else:
                lines.append(("▶ " if v.action == a.choice else "  ") + row)
    lines += why_lines(a, lang, name)
    return lines


def decision_line(a: Assessment, lang: str) -> str:
    """One decision as ``--text`` prints it: where, what was played, the expert's choice, the
    verdict, and each weighed action's expected points."""
    d = a.decision
    head = tr(lang, "rv_text_row", hand=d.hand_no, move=move_no(d),
              taken=action_text(d.taken, lang), choice=action_text(a.choice, lang),
              verdict=verdict(a, lang))
    why = why_lines(a, lang, lambda action: action_text(action, lang))
    if a.values:
        head += " · " + ", ".join(f"{action_text(v.action, lang)} {value_text(v.mean, v.half)}"
                                  for v in a.values)
    return " · ".join([head, *why])


def summary_lines(assessments: Sequence[Assessment], lang: str, total: int,
                  rows: int = SUMMARY_ROWS, pending: int = 0) -> list[str]:
    """The summary of ``total`` decisions: counts and the total loss, then the biggest losses
    (at most ``rows``); ``pending`` of them are still being assessed."""
    s = summary(assessments)
    lines = [tr(lang, "rv_summary_head", n=total, agreed=s.agreed, even=s.even, lost=s.total)]
    if pending:
        lines[0] += " " + tr(lang, "rv_summary_pending", left=pending)
    if total == 0:
        lines.append(tr(lang, "rv_summary_none"))
    for a in [x for x in s.ranked if x.loss > 0][:rows]:
        d = a.decision
        lines.append("  " + tr(lang, "rv_summary_row", hand=d.hand_no, move=move_no(d),
                               taken=action_text(d.taken, lang),
                               choice=action_text(a.choice, lang), loss=a.loss))
    return lines


def review_text(head: str, assessments: Sequence[Assessment], lang: str) -> str:
    """The whole review as plain text: ``head``, one line per decision, the summary."""
    lines = [head, *(decision_line(a, lang) for a in assessments), ""]
    lines += summary_lines(assessments, lang, len(assessments))
    return "\n".join(lines) + "\n"
