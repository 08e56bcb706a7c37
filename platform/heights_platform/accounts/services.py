"""Writes of the accounts app: registration, tokens, profile and password."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from heights_platform.accounts.authentication import token_digest
from heights_platform.accounts.models import ApiToken, Profile
from heights_platform.common.errors import ApiError

TOKEN_KEY_PREFIX = "hk_"
# Names that must never belong to a person: `arena` owns the built-in bots.
RESERVED_USERNAMES = frozenset({"arena", "admin", "administrator", "root", "system", "staff"})


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A new token and its key: the only moment the key exists outside its owner's hands."""

    token: ApiToken
    key: str


def _password_check(password: str, user: User) -> None:
    try:
        validate_password(password, user)
    except ValidationError as err:
        raise ApiError(
            "invalid", "the password is too weak", {"fields": {"password": list(err.messages)}}
        ) from None


def user_register(*, username: str, email: str, password: str) -> User:
    if username.lower() in RESERVED_USERNAMES:
        raise ApiError("conflict", f"the username {username!r} is reserved", {"field": "username"})
    if User.objects.filter(username__iexact=username).exists():
        raise ApiError("conflict", f"the username {username!r} is taken", {"field": "username"})
    # Validators compare the password with these attributes, so check against an unsaved user.
    _password_check(password, User(username=username, email=email))
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
            Profile.objects.create(user=user)
    except IntegrityError:  # a concurrent registration won the name
        raise ApiError(
            "conflict", f"the username {username!r} is taken", {"field": "username"}
        ) from None
    return user


def api_token_issue(*, user: User, name: str) -> IssuedToken:
    key = TOKEN_KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, prefix=key[:8], key_sha256=token_digest(key)
    )
    return IssuedToken(token=token, key=key)


def user_log_in(
    *, request: HttpRequest | None, username: str, password: str, token_name: str
) -> IssuedToken:
    """Check the credentials and issue a new named token; a failure writes nothing."""
    user = authenticate(request, username=username, password=password)
    if not isinstance(user, User):
        raise ApiError("authentication_failed", "wrong username or password")
    with transaction.atomic():
        issued = api_token_issue(user=user, name=token_name)
        user.last_login = timezone.now()
        user.save(update_fields=["last_login"])
    return issued


def api_token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def profile_update(
    *, user: User, email: str | None = None, display_name: str | None = None
) -> User:
    with transaction.atomic():
        if email is not None and email != user.email:
            user.email = email
            user.save(update_fields=["email"])
        if display_name is not None:
            Profile.objects.update_or_create(user=user, defaults={"display_name": display_name})
    return user


def user_change_password(
    *, user: User, old_password: str, new_password: str, keep_token: ApiToken | None
) -> int:
    """Set a new password and revoke every token but `keep_token`; returns how many were."""
    if not user.check_password(old_password):
        raise ApiError(
            "invalid",
            "the current password is wrong",
            {"fields": {"old_password": ["the current password is wrong"]}},
        )
    try:
        validate_password(new_password, user)
    except ValidationError as err:
        raise ApiError(
            "invalid", "the new password is too weak", {"fields": {"new_password": err.messages}}
        ) from None
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        others = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
        if keep_token is not None:
            others = others.exclude(pk=keep_token.pk)
        return others.update(revoked_at=timezone.now())
