"""Test settings: fast hashing, in-memory cache and mail, Celery eager."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from backoffice.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_TASK_EAGER_PROPAGATES = True
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
AUTH_PASSWORD_VALIDATORS = []
LOGGING = {"version": 1, "disable_existing_loggers": False}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file rather than SQLite's shared-cache :memory: database, whose table locks fail at
    # once instead of waiting: the tests that race threads on real connections need it. One
    # file per test process, so parallel runs never share a database.
    import tempfile

    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"backoffice-test-{os.getpid()}.sqlite3")
    }
