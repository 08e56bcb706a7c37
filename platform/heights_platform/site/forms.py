"""The site's forms: sign-in and bot upload, with the same bounds as the API's inputs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.core.validators import RegexValidator

from heights_platform.bots.selectors import bot_list
from heights_platform.bots.services import UPLOAD_HELP, too_large_message
from heights_runner.contract import MAX_BOT_BYTES

MAX_PASSWORD_CHARS = 128  # as the API's log-in: hashing megabytes is work for nothing
NEW_BOT = "new"
BOT_NAME = RegexValidator(
    r"^[a-z0-9][a-z0-9_-]*$", "a bot's name: lower-case letters, digits, '_' and '-' only"
)


class SignInForm(AuthenticationForm):
    password = forms.CharField(
        label="Password",
        strip=False,
        max_length=MAX_PASSWORD_CHARS,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class UploadForm(forms.Form):
    """A file for one of the user's bots, or for a new bot named here."""

    bot = forms.ChoiceField(label="Bot")
    name = forms.CharField(
        label="New bot's name",
        required=False,
        max_length=40,
        validators=[BOT_NAME],
        help_text="Only for a new bot: lower-case letters, digits, '_' and '-'.",
    )
    file = forms.FileField(
        label="Bot file",
        max_length=100,
        allow_empty_file=True,
        help_text=UPLOAD_HELP,
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        mine = bot_list(owner=user.get_username()).order_by("name")
        choices = [(str(bot.pk), bot.name) for bot in mine]
        self.fields["bot"].choices = [*choices, (NEW_BOT, "a new bot…")]  # type: ignore[attr-defined]
        self.bot_ids = {int(pk) for pk, _ in choices}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("bot") == NEW_BOT and not data.get("name"):
            self.add_error("name", "a new bot needs a name")
        upload = data.get("file")
        if upload is not None and upload.size is not None and upload.size > MAX_BOT_BYTES:
            self.add_error("file", too_large_message(str(upload.name), upload.size))
        return data
