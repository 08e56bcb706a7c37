"""Django settings, read once from the environment (prefix HEIGHTS_PLATFORM_).

Embedded defaults when nothing is configured: SQLite under var/, and the runner's
file-based Celery broker; `DATABASE_URL` and `HEIGHTS_PLATFORM_BROKER_URL` switch to
PostgreSQL and Redis.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url

from heights_platform.common.converters import PATH_SCHEMAS

BASE_DIR = Path(__file__).resolve().parent
VAR_DIR = Path(os.environ.get("HEIGHTS_VAR_DIR", Path.cwd() / "var"))


def _env(name: str, default: str = "") -> str:
    return os.environ.get(f"HEIGHTS_PLATFORM_{name}", "") or default


DEBUG = _env("DEBUG", "0") == "1"
# The default is for local runs only; production sets its own (deploy/README.md).
SECRET_KEY = _env("SECRET_KEY", "insecure-local-only-key-set-HEIGHTS_PLATFORM_SECRET_KEY")
ALLOWED_HOSTS = [h for h in _env("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc, bundled: the docs work offline
    "heights_platform.common",
    "heights_platform.accounts",
    "heights_platform.bots",
    "heights_platform.ladders",
    "heights_platform.tournaments",
    "heights_platform.matches",
    "heights_platform.replays",
    "heights_platform.viewer",
    "heights_platform.site",
]

MIDDLEWARE = [
    "heights_platform.common.middleware.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (the API docs' Swagger UI and Redoc) from gunicorn, with no separate
    # file server and no CDN.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Before CommonMiddleware, whose APPEND_SLASH would turn a POST into a GET.
    "heights_platform.common.middleware.WriteWithoutSlashMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: refuses API requests the OpenAPI schema does not allow, before their view.
    "heights_platform.common.request_schema.RequestSchemaMiddleware",
]

ROOT_URLCONF = "heights_platform.urls"
WSGI_APPLICATION = "heights_platform.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES: dict[str, Any] = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", "") or f"sqlite:///{VAR_DIR / 'platform.sqlite3'}",
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The embedded default is shared by gunicorn workers and the Celery worker. WAL lets
    # readers go on while one writes; the busy timeout (seconds) waits for a writer's
    # lock instead of failing with "database is locked" (answered as a 503); and
    # IMMEDIATE takes that lock when a transaction starts, since a read-then-write
    # transaction that must upgrade its lock fails at once, whatever the timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
# No STATIC_ROOT: WhiteNoise serves straight from the installed apps' static folders,
# indexed once at start-up, since the platform runs from a wheel with no `collectstatic`
# step (make demo, make up, the image).
WHITENOISE_USE_FINDERS = True

# Uploads: a bot is at most 1 MB (heights_runner.contract.MAX_BOT_BYTES); the request
# limit leaves room for the multipart envelope and refuses anything far larger early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 2**20
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 2**20

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "heights_platform.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "heights_platform.common.renderers.BrowsableAPIRenderer",
    ],
    # JSON bodies only (uploads take multipart on their own view): a body is checked
    # against its schema, which form encodings could not be; nesting is bounded.
    "DEFAULT_PARSER_CLASSES": ["heights_platform.common.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "heights_platform.common.pagination.CursorPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "heights_platform.common.errors.exception_handler",
    # A 415 names the content types the view accepts.
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "heights_platform.common.negotiation.ContentNegotiation",
    # DRF's AnonRateThrottle and UserRateThrottle, both in one round trip to the cache.
    "DEFAULT_THROTTLE_CLASSES": ["heights_platform.common.throttles.ClientRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": _env("THROTTLE_ANON", "600/min"),
        "user": _env("THROTTLE_USER", "1200/min"),
        "login": _env("THROTTLE_LOGIN", "10/min"),
        "challenge": _env("THROTTLE_CHALLENGE", "30/hour"),
        "upload": _env("THROTTLE_UPLOAD", "60/hour"),
    },
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # Proxies in front of the platform whose X-Forwarded-For is trusted; 0 = none, so
    # per-IP throttles use the connecting address and cannot be dodged with a header.
    "NUM_PROXIES": int(_env("NUM_PROXIES", "0")),
}

# Throttle counters need a shared cache across gunicorn workers: Redis when configured.
_REDIS_URL = _env("REDIS_URL")
CACHES: dict[str, Any] = {
    "default": (
        {"BACKEND": "heights_platform.common.redis_cache.RedisCache", "LOCATION": _REDIS_URL}
        if _REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Rolling Heights Arena API",
    "DESCRIPTION": "Bots, ladders, matches, tournaments and replays of Rolling Heights.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages load their JavaScript from the platform itself, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "PATH_CONVERTER_OVERRIDES": PATH_SCHEMAS,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "heights_platform.common.openapi.add_error_responses",
        "heights_platform.common.openapi.bound_parameters",
    ],
}

# Ladder matchmaking keeps at most this many matches of a ladder queued or running.
HEIGHTS_LADDER_MATCHES_IN_FLIGHT = int(_env("LADDER_MATCHES_IN_FLIGHT", "2"))
# Each ladder table plays every rotation of its seats on one secret seed (a duplicate
# group). On by default: with the searching bots in the graded population, and above all
# between bots of close strength, the ladder simulator settles the true order in fewer
# games per bot with duplicate groups (docs/ranking.md, "What the platform now uses").
HEIGHTS_LADDER_DUPLICATE = _env("LADDER_DUPLICATE", "1") in ("1", "true", "yes")

# A bot's log in a match (its stderr, for its owner) is deleted this many days after the
# match finished; the match, its seats and its replay stay.
HEIGHTS_SEAT_LOG_DAYS = int(_env("SEAT_LOG_DAYS", "30"))

# Celery (the platform's side: it sends matches and consumes results).
HEIGHTS_BROKER_URL = _env("BROKER_URL", "")
HEIGHTS_ENGINE_ADDRESS = _env("ENGINE_ADDRESS", "")

# The bearer token a Prometheus scrape of /metrics sends; empty: /metrics is not served.
HEIGHTS_METRICS_TOKEN = _env("METRICS_TOKEN", "")

LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    # JSON lines; HEIGHTS_PLATFORM_LOG_FORMAT=text for a terminal.
    "formatters": {
        "json": {"()": "heights_platform.common.logging.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "filters": {"context": {"()": "heights_platform.common.logging.ContextFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "text" if _env("LOG_FORMAT", "json") == "text" else "json",
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": _env("LOG_LEVEL", "INFO")},
}
