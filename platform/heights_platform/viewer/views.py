"""The viewer's pages and assets.

A page carries only the ids in its URL: everything it shows is fetched in the browser
from the public API, so the pages read nothing from the database and leak nothing the
API would not. The JS and CSS are served by `viewer_asset` from this app's static
directory, so gunicorn serves them with DEBUG off and no static-file server.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from heights_platform.viewer.assets import asset_bytes

ASSET_MAX_AGE = 300  # seconds: short, as the names carry no version


@require_safe
def replay_page(request: HttpRequest, replay_id: int) -> HttpResponse:
    return render(request, "viewer/replay.html", {"replay_id": replay_id})


# The rating pages moved to the site (heights_platform.site): their old addresses stay.
@require_safe
def ladder_page(request: HttpRequest, slug: str) -> HttpResponseBase:
    return redirect("site-ladder", slug=slug, permanent=True)


@require_safe
def ladder_bot_page(request: HttpRequest, slug: str, bot_id: int) -> HttpResponseBase:
    return redirect("site-bot", bot_id=bot_id, permanent=True)


@require_safe
def viewer_asset(request: HttpRequest, name: str) -> HttpResponse:
    """One of the fixed set of assets; any other name is a 404, never a path lookup."""
    asset = asset_bytes(name)
    if asset is None:
        raise Http404("no such asset")
    response = HttpResponse(asset[0], content_type=asset[1])
    response["Cache-Control"] = f"public, max-age={ASSET_MAX_AGE}"
    response["X-Content-Type-Options"] = "nosniff"
    return response
