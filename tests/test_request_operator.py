import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from rest_framework.request import Request

from backoffice.request_operator import request_operator
from identity.models import Operator

pytestmark = pytest.mark.django_db


def test_it_returns_the_authenticated_operator_of_a_django_request(alice: Operator) -> None:
    request = RequestFactory().get("/")
    request.user = alice
    assert request_operator(request) == alice


def test_it_refuses_an_anonymous_django_request() -> None:
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with pytest.raises(PermissionDenied):
        request_operator(request)


def test_it_returns_the_operator_of_a_drf_request(alice: Operator) -> None:
    request = Request(RequestFactory().get("/"))
    request.user = alice
    assert request_operator(request) == alice


def test_it_refuses_an_anonymous_drf_request() -> None:
    request = Request(RequestFactory().get("/"))
    request.user = AnonymousUser()
    with pytest.raises(PermissionDenied):
        request_operator(request)
