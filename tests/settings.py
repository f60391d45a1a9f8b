"""Test settings: fast hashing, in-memory cache and mail, Celery eager."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from backoffice.settings import *  # noqa: E402, F403

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
