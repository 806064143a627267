"""Plain mode (``--plain``): the table as short lines of text, and its words."""
