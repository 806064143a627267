"""Plain mode (``--plain``): the table as short lines of text. ``front`` the loop that says each
line when it is due, ``sentences`` what is said, ``commands`` what is typed, ``terminal`` a
terminal's keys and lines (and ``play --plain``), ``words`` the words in both languages."""
