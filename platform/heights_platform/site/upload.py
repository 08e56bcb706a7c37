"""Bot upload from the browser (session auth with CSRF).

An upload goes through the bots app's services, as the API's does, so it is checked the
same way and its refusal (the same message and details) is shown on the form. A new bot
and its first version are created together: a refused file creates neither.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.http import require_http_methods
from rest_framework.throttling import UserRateThrottle

from heights_platform.bots import services
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.selectors import access_bot_for_owner_by_id
from heights_platform.common.errors import ApiError
from heights_platform.site.forms import NEW_BOT, UploadForm
from heights_runner.contract import MAX_BOT_BYTES


class _UploadThrottle(UserRateThrottle):
    """The API's upload rate (`upload` scope, per user), counted in the same place."""

    scope = "upload"


def _version_create(user: User, data: dict[str, Any]) -> BotVersion:
    upload = data["file"]
    content = upload.read(MAX_BOT_BYTES + 1)
    with transaction.atomic():  # a refused file rolls back the new bot too
        if data["bot"] == NEW_BOT:
            bot: Bot = services.bot_create(owner=user, name=data["name"])
        else:
            bot = access_bot_for_owner_by_id(user=user, bot_id=int(data["bot"]))
        return services.bot_version_create(bot=bot, filename=str(upload.name), content=content)


def _refusal(err: ApiError) -> list[str]:
    details = ", ".join(f"{key}: {value}" for key, value in sorted(err.details.items()))
    return [f"{err.message} ({details})" if details else err.message]


@login_required(login_url=reverse_lazy("site-sign-in"))
@require_http_methods(["GET", "HEAD", "POST"])
def bot_upload(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)  # login_required
    if request.method != "POST":
        return _form_page(request, UploadForm(user=user), [])
    declared = services.declared_too_large(request.META)
    if declared is not None:
        return _form_page(request, UploadForm(user=user), [declared], status=413)
    form = UploadForm(request.POST, request.FILES, user=user)
    if not form.is_valid():
        return _form_page(request, form, [], status=400)
    throttle = _UploadThrottle()
    if not throttle.allow_request(request, None):  # type: ignore[arg-type]
        wait = int(throttle.wait() or 0)
        return _form_page(request, form, [f"too many uploads: retry in {wait} s"], status=429)
    try:
        version = _version_create(user, form.cleaned_data)
    except ApiError as err:
        return _form_page(request, form, _refusal(err), status=err.status)
    messages.success(
        request,
        f"Version {version.number} of {version.bot.name} uploaded: it is playing its "
        "qualification game against the random bot.",
    )
    return redirect(reverse("site-bot", args=[version.bot_id]))


def _form_page(
    request: HttpRequest, form: UploadForm, errors: list[str], status: int = 200
) -> HttpResponse:
    context = {"form": form, "errors": errors, "max_bytes": MAX_BOT_BYTES}
    return render(request, "site/upload.html", context, status=status)
