"""GET /api/v1/runtimes/: the languages a bot may be written in, with versions and limits.

Served from the runner's one table (`heights_runner.contract.runtimes_document`), so
the API, docs/bot-protocol.md and the runner's image cannot disagree.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from heights_runner.contract import runtimes_document


class RuntimeSerializer(serializers.Serializer[Any]):
    language = serializers.CharField(help_text="The manifest's `language` (bot.json).")
    title = serializers.CharField()
    extension = serializers.CharField(help_text="A single uploaded file with this suffix.")
    version = serializers.CharField(help_text="The version a bot can count on.")
    packages = serializers.ListField(child=serializers.CharField(), help_text="Debian packages.")
    entry = serializers.CharField(help_text="The default entry point of an archive.")
    compiled = serializers.BooleanField()
    build = serializers.CharField(help_text="The default build command; empty if not built.")
    run = serializers.ListField(child=serializers.CharField(), help_text="How the bot starts.")
    processes = serializers.IntegerField(help_text="Processes and threads the bot may have.")
    notes = serializers.CharField()


class BotLimitsSerializer(serializers.Serializer[Any]):
    memory_mib = serializers.IntegerField()
    cpu_seconds = serializers.IntegerField()
    tmp_mib = serializers.IntegerField()
    open_files = serializers.IntegerField()
    move_ms = serializers.IntegerField()
    bank_ms = serializers.IntegerField()
    start_ms = serializers.IntegerField()
    game_ms = serializers.IntegerField()


class BuildLimitsSerializer(serializers.Serializer[Any]):
    seconds = serializers.IntegerField()
    memory_mib = serializers.IntegerField()
    processes = serializers.IntegerField()
    tmp_mib = serializers.IntegerField()
    artefact_mib = serializers.IntegerField()
    output_mib = serializers.IntegerField(help_text="All of /build: its files' sizes together.")
    output_files = serializers.IntegerField(help_text="Files, folders and links in /build.")
    log_kib = serializers.IntegerField()


class RuntimeListOutputSerializer(serializers.Serializer[Any]):
    runtimes = RuntimeSerializer(many=True)
    manifest = serializers.CharField(help_text="The archive's manifest file name.")
    limits = BotLimitsSerializer()
    build_limits = BuildLimitsSerializer()


class RuntimeListApi(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="runtimes_list",
        responses=RuntimeListOutputSerializer,
        summary="The languages bots may be written in, their versions and limits",
    )
    def get(self, request: Request) -> Response:
        return Response(RuntimeListOutputSerializer(runtimes_document()).data)
