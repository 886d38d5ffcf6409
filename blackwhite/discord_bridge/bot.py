"""The discord.py layer: slash commands, DMs and component presses in, the bridge's
messages out.  Everything it decides is in :mod:`.core`; this turns Discord's objects
into the core's calls and the core's :class:`Outgoing` into Discord messages."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import logging
import sqlite3
import time
from typing import Any, Optional

import discord
from discord import app_commands

from .config import Config, ConfigError, plain_http
from .core import Bridge, Outgoing, Player, Reply, parse_duration
from .messages import MESSAGE_LIMIT, split_lines
from .runner import Runner, Undeliverable
from .store import PUBLIC

log = logging.getLogger("blackwhite.discord")

#: Discord's error code for a thread asked on a message that has one already
THREAD_EXISTS = 160004


def intents() -> discord.Intents:
    """Guilds (slash commands, channels), DMs, and the message content of DMs (typed
    notation; a privileged intent to switch on in the developer portal)."""
    out = discord.Intents.none()
    out.guilds = True
    out.dm_messages = True
    out.message_content = True
    return out


def components(post: Outgoing) -> discord.ui.View | None:
    """The buttons or select menu of a post, as a view discord.py sends but does not keep:
    presses are answered by :meth:`BridgeClient.on_interaction` from the custom id, so
    they still work after a restart."""
    if not post.buttons and post.select is None:
        return None
    view = discord.ui.View(timeout=None)
    for button in post.buttons:
        view.add_item(discord.ui.Button(label=button.label, custom_id=button.custom_id,
                                        style=discord.ButtonStyle.primary))
    if post.select is not None:
        view.add_item(discord.ui.Select(
            custom_id=post.select.custom_id, placeholder=post.select.placeholder,
            options=[discord.SelectOption(label=label, value=value) for label, value in post.select.options]))
    view.stop()
    return view


class BridgeClient(discord.Client):
    """The bot.  ``bridge`` holds the logic; ``runner`` the sockets to the server."""

    #: seconds a user whose DMs refused the bot is not sent DMs (each would be refused)
    CLOSED_DMS_FOR = 600.0

    def __init__(self, bridge: Bridge, guild: int | None = None, **options: Any) -> None:
        super().__init__(intents=intents(), **options)
        self.bridge = bridge
        self.guild_id = guild
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(make_commands(self))
        self.runner = Runner(bridge, self.deliver)
        self._dms: dict[int, discord.DMChannel] = {}
        self._closed: dict[int, float] = {}  # users whose DMs refused the bot -> when to try again

    async def setup_hook(self) -> None:
        """At login: register the commands with Discord, then send what the outbox holds
        and watch every match not over."""
        if self.guild_id is not None:
            guild = discord.Object(id=self.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        await self.runner.start()

    async def close(self) -> None:
        await self.runner.close()
        await super().close()

    # ------------------------------------------------------------- out

    async def deliver(self, post: Outgoing) -> discord.Message:
        """Send one of the core's messages (discord.py waits out Discord's rate limits).
        Refusals that another try would meet again raise :class:`Undeliverable`: a DM the
        user does not accept (the channel is told when the post names one, ``fallback``:
        their private page still works), a message Discord finds malformed (400), a
        channel it does not know (404) or the bot may not post in (403).  The opening post
        of ``/bw new thread:true`` opens the match's thread once sent."""
        if post.kind == "dm" and self._closed.get(post.to, 0.0) > time.monotonic():
            # asked again at once it would be another 403: Discord bans bots that pile up refusals
            raise Undeliverable(f"user {post.to} accepts no DM from the bot (refused lately)")
        try:
            message = await self._send(post)
        except discord.Forbidden as exc:
            if post.kind != "dm":
                raise Undeliverable(f"403 in channel {post.to}: {exc.text or exc}") from exc
            log.warning("user %s does not accept DMs from the bot", post.to)
            self._closed[post.to] = time.monotonic() + self.CLOSED_DMS_FOR
            if post.fallback is not None:
                await self._send(Outgoing("channel", post.fallback, (
                    f"I cannot send <@{post.to}> a DM: allow direct messages from this server's members, or ask"
                    f" the host for your private link.")))
            raise Undeliverable(f"user {post.to} accepts no DM from the bot") from exc
        except discord.NotFound as exc:
            raise Undeliverable(f"404: {exc.text or exc}") from exc
        except discord.HTTPException as exc:
            if exc.status == 400:
                raise Undeliverable(f"400 (code {exc.code}): {exc.text or exc}") from exc
            raise
        if post.thread is not None:
            match_id = post.thread.rsplit(" ", 1)[-1]
            try:
                made = await message.create_thread(name=post.thread)
            except discord.HTTPException as exc:
                if exc.code == THREAD_EXISTS:
                    # sent again after a restart, Discord answered with the message first sent (its
                    # nonce), whose thread was opened then: a message's thread has the message's id
                    await self.bridge.move_to_thread(match_id, message.id)
                else:  # no permission to open threads: the match stays in the channel
                    log.warning("could not open the thread %r (%s): the match is announced in the channel",
                                post.thread, exc)
            else:
                await self.bridge.move_to_thread(match_id, made.id)
        return message

    async def _send(self, post: Outgoing) -> discord.Message:
        target: discord.abc.Messageable
        if post.kind == "channel":
            channel = self.get_channel(post.to) or await self.fetch_channel(post.to)
            assert isinstance(channel, discord.abc.Messageable)
            target = channel
        else:
            target = await self.dm_channel(post.to)
        text = post.text
        if len(text) > MESSAGE_LIMIT:  # the core never makes one (tests/discord/test_limits.py): said, not refused
            log.error("a message of %d characters was cut to Discord's limit: %r...", len(text), text[:80])
            text = text[:MESSAGE_LIMIT - 30] + "\n... (cut: too long)"
        kwargs: dict[str, Any] = {}
        view = components(post)
        if view is not None:
            kwargs["view"] = view
        if post.file is not None:
            kwargs["file"] = discord.File(io.BytesIO(post.file[1]), filename=post.file[0])
        if post.nonce is not None:
            # discord.py (2.5 and later) sends it with enforce_nonce: a second try of the post
            # within Discord's window is answered with the first try's message, none created
            kwargs["nonce"] = post.nonce
        return await target.send(text, allowed_mentions=discord.AllowedMentions(users=True, roles=False,
                                                                                    everyone=False), **kwargs)

    async def dm_channel(self, user_id: int) -> discord.DMChannel:
        """The DM channel with a user, opened once (``POST /users/@me/channels``) and kept:
        no ``fetch_user`` before each DM, which would double the requests Discord limits."""
        channel = self._dms.get(user_id)
        if channel is None:
            channel = await self.create_dm(discord.Object(id=user_id))
            self._dms[user_id] = channel
        return channel

    async def answer(self, interaction: discord.Interaction[Any], reply: Reply) -> None:
        """The reply to whoever invoked (only they see it); what others are told goes
        through the outbox."""
        await say(interaction, reply.text)
        for text in reply.more:
            await interaction.followup.send(text, ephemeral=True)

    # ------------------------------------------------------------- in

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type != discord.InteractionType.component or interaction.data is None:
            return
        custom = str(interaction.data.get("custom_id", ""))
        if not custom.startswith("bw:"):
            return
        raw = interaction.data.get("values")
        values = [str(v) for v in raw] if isinstance(raw, list) else []
        await defer(interaction)
        await self.answer(interaction, await self.bridge.press(interaction.user.id, custom, values))

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.guild is not None:
            return
        reply = await self.bridge.typed(message.author.id, message.content)
        if reply is not None:
            await message.channel.send(reply.text)


async def defer(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge now: Discord drops an interaction not answered within 3 s, and the
    answer waits for the server, which may be slower (busy, restarting)."""
    await interaction.response.defer(ephemeral=True, thinking=True)


async def say(interaction: discord.Interaction[Any], text: str) -> None:
    """The answer only its invoker sees: the follow-up of a deferred interaction (a text
    over a message's limit, which the core never makes, is said in several)."""
    first, *rest = split_lines(text.split("\n")) or [""]
    if rest:
        log.error("an answer of %d characters was split: %r...", len(text), text[:80])
    await _say(interaction, first)
    for more in rest:
        await interaction.followup.send(more, ephemeral=True)


async def _say(interaction: discord.Interaction[Any], text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def _player(user: discord.abc.User) -> Player:
    return Player(user.id, getattr(user, "display_name", None) or user.name)


def make_commands(client: BridgeClient) -> app_commands.Group:
    """``/bw new|pause|resume|time|cancel|status|moves|season|standings``."""
    bw = app_commands.Group(name="bw", description="Black & White matches on a blackwhite server",
                            guild_only=True)

    async def game_names(_interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        games = await client.bridge.games()
        return [app_commands.Choice(name=g["title"][:100], value=gid) for gid, g in games.items()
                if current.lower() in gid][:25]

    @bw.command(name="new", description="Start a match here: game, players, options, bot seats")
    @app_commands.describe(game="the game id (swapping, yellow...)", player1="the first player",
                           player2="the second player", player3="the third player (yellow)",
                           options="key=value options, e.g. tiles=3", bots="bot seats, e.g. 2=heuristic",
                           thread="announce the match in a thread opened on its first post",
                           pace="live (default), scaled 3, or slow 24h [reserve 12h] [match 72h]"
                                " [quiet 23:00-07:00 Europe/Paris]")
    @app_commands.autocomplete(game=game_names)
    async def new(interaction: discord.Interaction[Any], game: str, player1: discord.User,
                  player2: Optional[discord.User] = None, player3: Optional[discord.User] = None,
                  options: str = "", bots: str = "", thread: bool = False,
                  pace: str = "") -> None:
        roles = getattr(interaction.user, "roles", [])
        players = [_player(p) for p in (player1, player2, player3) if p is not None]
        await defer(interaction)
        reply = await client.bridge.new_match(
            # a role of a guild discord.py has not cached reads as None (discord.py 2.3): not a host role
            _player(interaction.user), interaction.guild_id, [r.id for r in roles if r is not None],
            interaction.channel_id or 0, game, players, options, bots, thread, pace)
        if reply.match_id is not None:
            # stored with its opening posts queued: watched first, and its runner sends them
            # (and tries again), so a failure here leaves nothing unwatched or unsent
            await client.runner.watch(reply.match_id)
        await say(interaction, reply.text)

    async def control(interaction: discord.Interaction[Any], what: str, match: Optional[str]) -> None:
        await defer(interaction)
        await client.answer(interaction, await client.bridge.control(
            interaction.user.id, interaction.channel_id or 0, what, match))

    @bw.command(name="pause", description="Pause the match of this channel (host)")
    async def pause(interaction: discord.Interaction[Any], match: Optional[str] = None) -> None:
        await control(interaction, "pause", match)

    @bw.command(name="resume", description="Resume the match of this channel (host)")
    async def resume(interaction: discord.Interaction[Any], match: Optional[str] = None) -> None:
        await control(interaction, "resume", match)

    @bw.command(name="cancel", description="Cancel the match of this channel (host)")
    async def cancel(interaction: discord.Interaction[Any], match: Optional[str] = None) -> None:
        await control(interaction, "cancel", match)

    @bw.command(name="time", description="Give a player more time of reserve, or a slow match more hours (host)")
    @app_commands.describe(time="30s, 10m, 2h, 1h30m (a bare number is seconds): up to an hour at live pace, more"
                                " at a slower one",
                           player="the player; left out: the whole match's hours (a slow match that has them)")
    async def time(interaction: discord.Interaction[Any], time: app_commands.Range[str, 1, 40],
                   player: Optional[discord.User] = None, match: Optional[str] = None) -> None:
        await defer(interaction)
        try:
            seconds = parse_duration(time)
        except ValueError as exc:
            await say(interaction, str(exc))
            return
        reply = await client.bridge.add_time(interaction.user.id, interaction.channel_id or 0,
                                             None if player is None else player.id, seconds, match)
        if reply.match_id is not None:
            client.runner.send_queued(reply.match_id, PUBLIC)
        await client.answer(interaction, reply)

    @bw.command(name="moves", description="Every match awaiting you, soonest deadline first")
    async def moves(interaction: discord.Interaction[Any]) -> None:
        await defer(interaction)
        await client.answer(interaction, await client.bridge.moves(interaction.user.id))

    @bw.command(name="season", description="Where a season stands (yours, or the one named)")
    async def season(interaction: discord.Interaction[Any], season: Optional[str] = None) -> None:
        await defer(interaction)
        await client.answer(interaction, await client.bridge.season(interaction.user.id, season))

    @bw.command(name="standings", description="A season's standings (yours, or the one named)")
    async def standings(interaction: discord.Interaction[Any], season: Optional[str] = None) -> None:
        await defer(interaction)
        await client.answer(interaction, await client.bridge.standings(interaction.user.id, season))

    @bw.command(name="status", description="The match's board, status and clocks (host)")
    async def status(interaction: discord.Interaction[Any], match: Optional[str] = None) -> None:
        await defer(interaction)
        await client.answer(interaction, await client.bridge.status(
            interaction.user.id, interaction.channel_id or 0, match))

    return bw


def run(config_file: Any = None) -> None:
    """Start the bot with the configuration of the environment (or ``config_file``):
    the server, the host link and the bot's token are checked before anything is
    written; a refusal is a :class:`ConfigError` of one line."""
    from .config import load_config

    config = load_config(config_file)
    discord.utils.setup_logging(handler=logging.StreamHandler(), level=logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request to the server is noise
    try:
        asyncio.run(start(config))
    except KeyboardInterrupt:
        return


async def start(config: Config) -> None:
    """Check, open the store, log in (``setup_hook`` registers the commands and opens the
    sockets), then serve Discord's gateway until closed.  A refusal is a
    :class:`ConfigError`; one met before any match was stored leaves no new store file."""
    from .api import ServerApi
    from .core import Settings
    from .store import BridgeStore

    if plain_http(config.server_url):
        log.warning("BLACKWHITE_SERVER_URL=%s is plain HTTP to another machine: the bot's host link and every"
                    " seat's token cross the network readable; use the server's https:// address (docs/discord.md)",
                    config.server_url)
    api = ServerApi(config.server_url)
    try:
        await api.check(config.host_token)
        await check_discord(config.discord_token)
        fresh = not os.path.exists(config.store)
        try:
            store = BridgeStore(config.store)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"cannot open the store BLACKWHITE_DISCORD_STORE={config.store}: {exc}") from None
        bridge = Bridge(api, store, Settings(config.links_url, config.host_token, config.guild, config.host_roles))
        client = BridgeClient(bridge, guild=config.guild)
        try:
            async with client:
                await _serve(client, config)
        except ConfigError:
            if fresh and not store.matches():
                store.close()
                for path in (config.store, config.store + "-wal", config.store + "-shm"):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(path)
            raise
        finally:
            store.close()
    finally:
        await api.close()


async def _serve(client: BridgeClient, config: Config) -> None:
    """Log in (the commands are registered in the guild) and serve the gateway; Discord's
    refusals of the set-up as one line each."""
    try:
        await client.login(config.discord_token)
    except discord.LoginFailure as exc:
        raise ConfigError(f"Discord refuses BLACKWHITE_DISCORD_TOKEN: {exc}") from None
    except discord.Forbidden as exc:  # tree.sync() in a guild the bot is not in (50001 Missing Access)
        raise ConfigError(f"Discord refuses the bot's commands in BLACKWHITE_DISCORD_GUILD={config.guild}"
                          f" ({exc.text or exc.status}): is the bot invited there with the applications.commands"
                          f" scope? (docs/discord.md)") from None
    try:
        await client.connect()
    except discord.PrivilegedIntentsRequired:
        raise ConfigError("Discord refuses the Message Content intent: switch it on in the developer portal"
                          " (Bot, Privileged Gateway Intents; docs/discord.md)") from None


async def check_discord(token: str) -> None:
    """Log in to Discord's REST API once with ``token`` (``GET /users/@me``), before the
    store is created: a wrong token is one line, not a traceback after a file was made."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    except discord.LoginFailure:
        raise ConfigError("Discord refuses BLACKWHITE_DISCORD_TOKEN: it is not a bot token of a live"
                          " application (developer portal, Bot, Reset Token)") from None
    except Exception as exc:  # Discord down or unreachable (aiohttp's errors, 5xx): said in one line too
        raise ConfigError(f"Discord cannot be reached to check BLACKWHITE_DISCORD_TOKEN: {exc or type(exc).__name__}") from None
    finally:
        await http.close()
