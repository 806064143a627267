"""``serve --log-format text|json``: one line per event, in a stable form a program can read.

``text`` (the default): ``key=value`` pairs, always in this order — ``time level logger``,
then ``account address table`` where the line is about one, then ``msg`` (and ``exc``, a
traceback on the same line). A value with a space, a quote, an ``=`` or a character below
U+0020 is written in double quotes with JSON's escapes, so a line never breaks and a name
never carries an escape sequence to the terminal that reads the log. ``json``: one JSON object
a line with the same keys (those without a value left out).

The subject of a line is given with ``extra=`` (:func:`about`): ``account`` (the nickname),
``address`` (the client's) and ``table`` (its name); :class:`net.front.login.Connection`'s
``log`` names its account and address on each of its lines.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

FORMATS = ("text", "json")
SUBJECT = ("account", "address", "table")  # the LogRecord attributes naming what it is about


def about(account: str | None = None, address: str | None = None,
          table: str | None = None, **more: Any) -> dict[str, Any]:
    """``extra=`` for a log line about an account, an address, a table (those given)."""
    out = {k: v for k, v in (("account", account), ("address", address), ("table", table))
           if v}
    out.update(more)
    return out


def _stamp(record: logging.LogRecord) -> str:
    t = time.gmtime(record.created)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(record.msecs):03d}Z"


def fields(record: logging.LogRecord, formatter: logging.Formatter) -> dict[str, str]:
    """The line's keys and values, in their order."""
    out = {"time": _stamp(record), "level": record.levelname, "logger": record.name}
    for key in SUBJECT:
        value = getattr(record, key, None)
        if value not in (None, ""):
            out[key] = str(value)
    out["msg"] = record.getMessage()
    if record.exc_info:
        out["exc"] = formatter.formatException(record.exc_info)
    elif record.exc_text:
        out["exc"] = record.exc_text
    return out


# DEL and the C1 controls (CSI is one byte there): JSON leaves them as they are
_C1 = {i: f"\\u{i:04x}" for i in range(0x7F, 0xA0)}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False).translate(_C1)


def _value(text: str) -> str:
    if text and all(c > " " and c not in '"=\\' and not "\x7f" <= c <= "\x9f" for c in text):
        return text
    return _json(text)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return " ".join(f"{k}={_value(v)}" for k, v in fields(record, self).items())


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return _json(fields(record, self))


def formatter(name: str) -> logging.Formatter:
    """The formatter of ``--log-format NAME`` (ValueError for another name)."""
    if name == "text":
        return TextFormatter()
    if name == "json":
        return JsonFormatter()
    raise ValueError(f"--log-format: {name!r} is not one of {', '.join(FORMATS)}")
