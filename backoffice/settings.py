"""Settings, all from environment variables.

Defaults give a working single-machine install: SQLite under var/, Celery tasks executed
in-process, email printed to the console. PostgreSQL, Redis or RabbitMQ are opt-in by URL.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG")


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    if not DEBUG:
        # A production process must be given its key; a key generated on one machine and lost
        # on restart would log every operator out and break signed tokens.
        raise ImproperlyConfigured("SECRET_KEY is not set and DEBUG is off: refusing to start.")
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
# Rotation (docs/operations.md): the previous keys, comma-separated, still validate sessions
# and signatures made with them until they are dropped from this list.
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
TRUSTED_PROXY = env_bool("TRUSTED_PROXY")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "backoffice",
    "identity",
    "tickets",
    "payments_sandbox",
    "evals",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "backoffice.middleware.RequestContextMiddleware",
    "backoffice.middleware.BadInputMiddleware",
    "backoffice.middleware.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language cookie, then Accept-Language; OperatorLanguageMiddleware (after
    # authentication) then applies the language the operator chose, wherever they log in.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "identity.middleware.OperatorLanguageMiddleware",
    "identity.middleware.RequireVerifiedOperatorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "backoffice.urls"
WSGI_APPLICATION = "backoffice.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "backoffice" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "backoffice.context.navigation",
                "tickets.context.notifications",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'backoffice.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A persistent connection outlives a database restart or failover: without a check
        # the first request each worker serves afterwards would fail on the dead socket.
        # With it, Django pings a reused connection (one cheap round trip, once per request)
        # and opens a fresh one when the old is gone (docs/operations.md).
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock when a transaction starts, so two writers wait for each
    # other instead of one failing with "database is locked" half-way; WAL lets reads proceed
    # while a write is in progress.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Persistent connections (DB_CONN_MAX_AGE) as on PostgreSQL: opening a SQLite connection
    # (the pragmas above and Django's SQL functions registered on it) cost more CPU than a
    # whole refund request's statements. Each worker process or thread has its own.

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "identity.Operator"
# ModelBackend with the permission set read in one query (identity.access.RoleBackend).
AUTHENTICATION_BACKENDS = ["identity.access.RoleBackend"]
LOGIN_URL = "identity:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "identity:login"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", str(12 * 3600)))
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# HTTPS redirect and HSTS are the deployment's choice (often the TLS proxy's job); off unless
# set, so `check --deploy` warns until a deployment decides (docs/deployment.md).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD")
SECURE_REFERRER_POLICY = "same-origin"
# Scripts only from this site (no inline script, no eval): the UI's behaviour is in
# backoffice/static/js/app.js and htmx; the API docs load Swagger's script from /api/docs/.
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'",
)

# Every string a person reads goes through gettext; the catalogues live in locale/ and are
# compiled from the .po files by `make messages-compile` (pure Python, no gettext tools).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "backoffice" / "static"]

if os.environ.get("REDIS_CACHE_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_CACHE_URL"],
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "backoffice@localhost")

# Celery: with no broker configured, tasks run in-process (eagerly), so a fresh install needs
# no Redis or RabbitMQ. Setting CELERY_BROKER_URL moves them to real workers unchanged.
# Without a broker, the in-memory transport keeps kombu from looking for an AMQP server on
# localhost when an eager task asks for a producer. It is named with its host: a bare
# "memory://" made kombu log "No hostname was supplied" on every first run.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost//"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes the database connection before and after every task unless
# this is set: a fresh PostgreSQL backend (fork, auth, cold catalog caches) per task cost more
# than an offline go-live trial itself (bench/golive.py). Reuse it for this many tasks.
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))
# Every task's hard time limit (the worker kills it past this; the soft limit a minute earlier
# lets it clean up). Go-live trials end on their suite's `limits.wall_time_s` (300 s by
# default) well before it: keep this above the longest wall time your suites set.
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "600"))
CELERY_TASK_SOFT_TIME_LIMIT = max(1, CELERY_TASK_TIME_LIMIT - 60)
# The longest a task retries after (refund_execute backs off to at most 300 s; a worker holds
# a message with a countdown unacknowledged until it runs).
CELERY_LONGEST_RETRY_COUNTDOWN = 300
# Redis and SQS redeliver a message that was not acknowledged within the visibility timeout:
# that is how a task of a worker killed with `kill -9` runs again (tasks are acknowledged
# late). Their default is one hour, which stalled a go-live run for an hour; derived here
# from the longest a message may legitimately stay unacknowledged (its countdown, then its
# run up to the hard limit), plus a margin, so no running task is ever delivered twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_LONGEST_RETRY_COUNTDOWN + CELERY_TASK_TIME_LIMIT + 60
}
# A running go-live run that stores no trial for this long is stalled (a lost message, a
# killed worker whose message the broker has not handed back, a chord that never called back):
# the watchdog re-dispatches its missing units once, then ends it as resumable. Longer than the
# visibility timeout, so the broker's own redelivery of a killed worker's unit comes first.
EVALS_RUN_STALL_SECONDS = int(
    os.environ.get(
        "EVALS_RUN_STALL_SECONDS",
        str(CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] + 60),
    )
)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}
CELERY_BEAT_SCHEDULE["evals-run-watchdog"] = {
    "task": "evals.tasks.run_watchdog",
    "schedule": 60.0,
}
# Idempotency keys outlive IDEMPOTENCY_KEY_TTL_SECONDS by at most an hour.
CELERY_BEAT_SCHEDULE["idempotency-purge"] = {
    "task": "backoffice.tasks.idempotency_purge",
    "schedule": 3600.0,
}
# Refunds stuck in processing (a worker died, or the provider settles later) are settled from
# the provider's record; yesterday's refunds are reconciled every night.
CELERY_BEAT_SCHEDULE["payments-recover-stuck"] = {
    "task": "payments_sandbox.refund_recover_stuck",
    "schedule": 300.0,
}
CELERY_BEAT_SCHEDULE["payments-reconcile"] = {
    "task": "payments_sandbox.reconcile_yesterday",
    "schedule": 24 * 3600.0,
}
# Tickets: raise SLA near-breach/breach flags (and notify) every minute; route tickets left
# unrouted (a safety net behind the event-driven routing) every two minutes.
CELERY_BEAT_SCHEDULE["tickets-sla-evaluate"] = {
    "task": "tickets.tasks.sla_evaluate_task",
    "schedule": 60.0,
}
CELERY_BEAT_SCHEDULE["tickets-routing-sweep"] = {
    "task": "tickets.tasks.routing_sweep_task",
    "schedule": 120.0,
}
# The per-operator load counters are kept exact by database triggers; the nightly recount is
# the repair path (it audits only a correction, and routes anyone it finds with spare room).
CELERY_BEAT_SCHEDULE["tickets-loads-recount"] = {
    "task": "tickets.tasks.operator_loads_recount_task",
    "schedule": 24 * 3600.0,
}
# Go-live runs started from the web or the API may name Python code as the agent or user
# (`python:package.module:function`, imported and called inside the web process) only when
# the exact name is listed here; empty by default. Any `python:` name runs from the CLI.
EVALS_WEB_PYTHON_AGENTS = env_list("EVALS_WEB_PYTHON_AGENTS")
TICKETS_ESCALATION_QUEUE = os.environ.get("TICKETS_ESCALATION_QUEUE", "general")
BACKOFFICE_BASE_URL = os.environ.get("BACKOFFICE_BASE_URL", "")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "identity.authentication.ApiTokenAuthentication",
        "identity.authentication.VerifiedSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "backoffice.schema.AutoSchema",
    "EXCEPTION_HANDLER": "backoffice.errors.api_exception_handler",
    # JSON with a depth limit and no NUL characters; forms and uploads as DRF's defaults.
    "DEFAULT_PARSER_CLASSES": [
        "backoffice.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "backoffice.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Backoffice API",
    "DESCRIPTION": "Tickets, escalations, refunds and go-live acceptance suites.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Two `status` fields with different choices: named, not hashed (StatusAe0Enum).
    "ENUM_NAME_OVERRIDES": {
        "TicketStatusEnum": "tickets.models.Status",
        "RunStatusEnum": "evals.models.RunStatus",
    },
}

# Identity
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Backoffice")
# django-otp's own per-device throttle (a wait of 2^n seconds after the n-th wrong code) is
# off: identity.throttle already locks the account and the address after LOGIN_MAX_FAILURES,
# and the device throttle rejected a right code typed within a second of a wrong one.
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_STATIC_THROTTLE_FACTOR = 0
STEP_UP_SECONDS = int(os.environ.get("STEP_UP_SECONDS", "300"))
# A two-factor reset waits this long for a second admin's approval, then lapses.
TOTP_RESET_REQUEST_HOURS = int(os.environ.get("TOTP_RESET_REQUEST_HOURS", "24"))
LOGIN_MAX_FAILURES = int(os.environ.get("LOGIN_MAX_FAILURES", "5"))
LOGIN_LOCKOUT_SECONDS = int(os.environ.get("LOGIN_LOCKOUT_SECONDS", "900"))
LOGIN_IP_MAX_FAILURES = int(os.environ.get("LOGIN_IP_MAX_FAILURES", "20"))

# Audit anchors outside the database (identity.audit_anchor): `audit checkpoint` appends
# HMAC-signed heads to this file, `audit verify` checks the chain against them. Keep the key
# in the environment (never in the database) and the file on storage the database's users
# cannot write (another host, an append-only bucket).
AUDIT_CHECKPOINT_FILE = os.environ.get("AUDIT_CHECKPOINT_FILE", "")
AUDIT_CHECKPOINT_KEY = os.environ.get("AUDIT_CHECKPOINT_KEY", "")
AUDIT_CHECKPOINT_SKEW_SECONDS = int(os.environ.get("AUDIT_CHECKPOINT_SKEW_SECONDS", "300"))
if AUDIT_CHECKPOINT_FILE and AUDIT_CHECKPOINT_KEY:
    # Periodic checkpoints when both are configured (or run `audit checkpoint` from cron on
    # the host that holds the file): the file must be reachable from the beat's worker.
    CELERY_BEAT_SCHEDULE["audit-checkpoint"] = {
        "task": "identity.tasks.audit_checkpoint",
        "schedule": float(os.environ.get("AUDIT_CHECKPOINT_SECONDS", "3600")),
    }

# Payments: one mode per process (see payments_sandbox.adapters).
PAYMENTS_MODE = os.environ.get("PAYMENTS_MODE", "sandbox")
STRIPE_API_KEY = os.environ.get("STRIPE_API_KEY", "")
STRIPE_API_BASE = os.environ.get("STRIPE_API_BASE", "")
# Reconciliation compares at most this many days at once (a period is one provider listing
# and one query; 0001-01-01..9999-12-31 overflowed the date arithmetic).
RECONCILIATION_MAX_DAYS = int(os.environ.get("RECONCILIATION_MAX_DAYS", "366"))
API_JSON_MAX_DEPTH = int(os.environ.get("API_JSON_MAX_DEPTH", "32"))
IDEMPOTENCY_KEY_TTL_SECONDS = int(os.environ.get("IDEMPOTENCY_KEY_TTL_SECONDS", str(24 * 3600)))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "LiteLLM": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        # One INFO line per task drowns everything else when tasks run in-process.
        "celery.app.trace": {"level": "WARNING"},
    },
}

# Paths the identity middleware redirects to (kept as paths so it need not reverse URLs on
# every request).
LOGIN_URL_PATH = "/login/"
OTP_URL_PATH = "/login/verify/"
