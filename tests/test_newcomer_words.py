"""What a newcomer's tryout met in the table's and plain mode's words (issue 53): the
computer seats' names, a player who left on the game-over screen, the 宝 in Shangrao's hand
result, plain mode's sentences, the last hand's next dealer, the review's headers and what
leaving a game mid-way means for one's rating."""

from __future__ import annotations

from net.front.server import MahjongServer
from testkit.ssh import new_key
from tests.support.waiting import until
from tests.test_net import join, seated


async def test_leaving_mid_game_says_the_game_still_rates_you(server: MahjongServer) -> None:
    """The first q of q q at a shared table mid-game says that the computer plays the seat on
    and that the game still rates the player (docs/playing.md, Ratings)."""
    c = await join(server, "leaver", new_key(), "join away --rules gejiu")
    t = await seated(server, "away", 1)
    await c.wait_for("press S")
    c.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await c.wait_for("Hand 1/")
    c.send("q")
    await c.wait_for("counts for your rating")
    await c.close()
