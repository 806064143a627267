"""The Textual apps and their screens: a seat's app, the table screen, the shared table's room, new
table, help, settings, the replay and review viewers."""
