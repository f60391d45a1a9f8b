import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

app = Celery("backoffice")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
