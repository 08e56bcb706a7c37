"""Reads of the accounts app; `access_*` is the only way to fetch a protected object."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from heights_platform.accounts.models import ApiToken, Profile
from heights_platform.common.errors import ApiError


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    """The user's live tokens, newest first; revoked ones are gone for good."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at")


def access_api_token_by_id(*, user: User, token_id: int) -> ApiToken:
    """Only the owner reaches a token; anyone else's (or a revoked one) is a plain 404."""
    token = api_token_list(user=user).filter(pk=token_id).first()
    if token is None:
        raise ApiError("not_found", "no such token")
    return token


def profile_get(*, user: User) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def access_user_by_username(*, username: str) -> User:
    """A public profile: active users only."""
    user = User.objects.filter(username=username, is_active=True).select_related("profile").first()
    if user is None:
        raise ApiError("not_found", f"no user {username!r}")
    return user


def user_display_name(*, user: User) -> str:
    try:
        return user.profile.display_name
    except Profile.DoesNotExist:
        return ""
