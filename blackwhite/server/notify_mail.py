"""Email: the notifications' SMTP channel, configured by one URL (``--smtp-url``).

``smtp://[USER[:PASSWORD]@]HOST[:PORT][?from=ADDRESS&starttls=1]`` sends in the clear
(port 25 by default) or, with ``starttls=1``, upgrades with STARTTLS (port 587);
``smtps://...`` speaks TLS from the start (port 465).  ``from`` is the sender's address
(default ``blackwhite@HOST``).  Each message is plain text with a ``List-Unsubscribe``
header and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (RFC 8058): a mail
program offers "unsubscribe" as one click, and the same link is in the text.
"""

from __future__ import annotations

import asyncio
import email.policy
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import parse_qs, unquote, urlsplit

from .notify import Message, Refused, check_email


@dataclass(frozen=True)
class SmtpConfig:
    """Where and how mail goes out, read from an ``smtp://`` or ``smtps://`` URL."""

    host: str
    port: int
    tls: bool
    starttls: bool
    user: str | None
    password: str | None
    sender: str

    @classmethod
    def parse(cls, url: str) -> "SmtpConfig":
        """Read ``url``; ValueError names what is wrong (the server refuses to start)."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps"):
            raise ValueError(f"an SMTP URL starts with smtp:// or smtps://, got {url.split(':', 1)[0]!r}")
        if not parts.hostname:
            raise ValueError("the SMTP URL names no host (smtp://HOST:PORT)")
        query = parse_qs(parts.query)
        unknown = set(query) - {"from", "starttls"}
        if unknown:
            raise ValueError(f"the SMTP URL has unknown parameters {sorted(unknown)}; it takes from= and starttls=")
        tls = parts.scheme == "smtps"
        starttls = query.get("starttls", ["0"])[-1] in ("1", "true", "yes")
        try:
            port = parts.port or (465 if tls else 587 if starttls else 25)
        except ValueError as exc:
            raise ValueError(f"the SMTP URL's port is not a port: {exc}") from None
        sender = query.get("from", [f"blackwhite@{parts.hostname}"])[-1]
        check_email(sender)
        return cls(parts.hostname, port, tls, starttls, unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None, sender)


class Mailer:
    """Sends a message by SMTP (in a thread: smtplib blocks), one connection per message."""

    name = "email"

    def __init__(self, config: SmtpConfig, timeout: float = 20.0) -> None:
        self.config = config
        self.timeout = timeout

    def build(self, address: str, message: Message) -> EmailMessage:
        # lines up to 998 characters (RFC 5322): a long List-Unsubscribe URL stays one
        # <URL> a mail program can read, not folded into encoded words
        mail = EmailMessage(policy=email.policy.SMTP.clone(max_line_length=998))
        mail["From"] = self.config.sender
        mail["To"] = address
        mail["Subject"] = message.subject
        mail["Date"] = formatdate(localtime=False)
        mail["Message-ID"] = make_msgid(domain=self.config.sender.rsplit("@", 1)[1])
        mail["List-Unsubscribe"] = f"<{message.unsubscribe}>"
        mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        mail["Auto-Submitted"] = "auto-generated"
        mail.set_content(message.text, cte="quoted-printable")
        return mail

    def _send(self, mail: EmailMessage) -> None:
        c = self.config
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if c.tls:
            smtp = smtplib.SMTP_SSL(c.host, c.port, timeout=self.timeout, context=context)
        else:
            smtp = smtplib.SMTP(c.host, c.port, timeout=self.timeout)
        with smtp:
            if c.starttls:
                smtp.starttls(context=context)
            if c.user is not None:
                smtp.login(c.user, c.password or "")
            smtp.send_message(mail)

    async def send(self, address: str, message: Message) -> None:
        try:
            await asyncio.to_thread(self._send, self.build(address, message))
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            if codes and all(code >= 500 for code in codes):  # a permanent refusal: trying again changes nothing
                raise Refused(f"the mail server refused {address}: {codes[0]}") from None
            raise
