"""Drawing a seat's view: the table as rows of spans, its pieces (seats, centre, status and action
rows, tiles, faces, hints, prompts), the table widget, and the text of results."""
