"""What several test modules share that is not a fixture (fixtures are in ``tests/conftest.py``):
test modules import from here, never from one another."""
