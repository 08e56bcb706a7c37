"""Sign-in and sign-out from the browser: a session, with CSRF on every form.

Sign-in attempts count against the API's log-in rates (per client and per attempted
username), in the same cache entries, so neither door is a way round the other.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import SimpleRateThrottle

from heights_platform.accounts.throttles import LoginUsernameRateThrottle
from heights_platform.site.forms import SignInForm


class _SignInClientThrottle(SimpleRateThrottle):
    """The API's log-in rate per client (`login` scope), counted in the same place."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class _SignInUsernameThrottle(LoginUsernameRateThrottle):
    """The API's log-in rate per attempted username: the form's fields, where the API
    reads its body."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        form: Any = SimpleNamespace(data=request.POST)  # what the parent reads of a Request
        return super().get_cache_key(form, view)


class SignInView(auth_views.LoginView):
    template_name = "site/sign_in.html"
    authentication_form = SignInForm
    next_page = "site-home"  # a URL name: resolved on use
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        for throttle in (_SignInClientThrottle(), _SignInUsernameThrottle()):
            if not throttle.allow_request(request, self):  # type: ignore[arg-type]
                wait = int(throttle.wait() or 0)
                context = self.get_context_data(
                    throttled=f"too many sign-in attempts: retry in {wait} s"
                )
                return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)


class SignOutView(auth_views.LogoutView):
    next_page = "site-home"  # a URL name: resolved on use
