"""DRF's browsable API, for the views this project writes in the services style.

Our list views read through selectors rather than a `queryset` attribute, and DRF's
HTML renderer asks every list view for its queryset to draw a filter form: asking for
such a page as HTML was a server error. Views without a queryset get no filter form.
"""

from __future__ import annotations

from typing import Any

from rest_framework import renderers
from rest_framework.request import Request


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    def get_filter_form(self, data: Any, view: Any, request: Request) -> Any:
        if not getattr(view, "filter_backends", None) or not _has_queryset(view):
            return None
        return super().get_filter_form(data, view, request)


def _has_queryset(view: Any) -> bool:
    # Imported here: DRF loads renderers while rest_framework.views is still importing.
    from rest_framework.generics import GenericAPIView

    own = type(view).get_queryset is not GenericAPIView.get_queryset
    return own or getattr(view, "queryset", None) is not None
