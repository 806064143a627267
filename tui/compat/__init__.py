"""Textual's and Rich's internals behind guards, the keys of SSH clients, and the terminal's
ambiguous width."""
