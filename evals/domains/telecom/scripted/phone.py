"""The phone phase of telecom's `sandbox/reference` agent: what it knows of the customer's
phone and how it guides the customer through it. It asks what the status bar and the settings
show, names each step to take, asks for the status bar again, and repeats a step that was not
done, until the phone works. In a solo run (the agent holds the phone's tools too: their
schemas are among its tools) it makes the same checks and steps itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.domains.telecom.scripted import vocab
from evals.domains.telecom.world import APN
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request
from evals.engine.tools import Actor

MAX_ROUNDS = 5


@dataclass
class Req(Request):
    gb: int = 0
    plan: str = ""
    period: str = ""
    account_done: bool = False
    declined: bool = False


class PhoneGuide(DeskAgent[Req]):
    """The reference agent's phone phase; the account phase (`agent`) fills `line`, `resumed`,
    `pushed`, `puk` and `esim_code` as it fixes the account."""

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.user_tools = set(domain.tools.names(Actor.USER))
        self.solo = False
        self.line: dict[str, Any] | None = None
        # The phone: what is known of it, what was asked, how often.
        self.resumed = False
        self.pushed = False
        self.puk = ""
        self.esim_code = ""
        self.report: dict[str, str] = {}
        self.fresh = False
        self.rounds = 0
        self.awaiting = ""  # the last message asking the customer to check or act

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        # Solo (no-customer ablation): the phone's tools are among the agent's own.
        self.solo = any(t.get("function", {}).get("name") in self.user_tools for t in tools)
        return super().respond(messages, tools)

    def _device_reqs(self) -> list[Req]:
        return [r for r in self.reqs if not r.done and r.intent in vocab.DEVICE_INTENTS]

    def _fixed(self) -> bool:
        rep = self.report
        for r in self._device_reqs():
            if (
                r.intent in ("no_service", "sim_locked", "sim_broken")
                and rep.get("signal") != "4 bars"
            ):
                return False
            if (
                r.intent in ("no_data", "no_data_abroad", "app_offline")
                and rep.get("data") != "working"
            ):
                return False
            if r.intent == "app_offline" and rep.get("app:Maps") != "allowed":
                return False
        return True

    def _checks(self, full: bool) -> list[tuple[str, str, dict[str, Any]]]:
        """(words, tool, args) of what to look at: the status bar always; with `full`, the
        settings and, per problem, the SIM screen and the app's permission."""
        out: list[tuple[str, str, dict[str, Any]]] = [
            (self.t("check_status_bar"), "check_status_bar", {})
        ]
        intents = {r.intent for r in self._device_reqs()}
        if full:
            out.append((self.t("check_network_settings"), "check_network_settings", {}))
            if intents & {"sim_locked", "sim_broken"}:
                out.append((self.t("check_sim"), "check_sim", {}))
        if "app_offline" in intents:
            out.append((self.t("check_app", app="Maps"), "check_app_permissions", {"app": "Maps"}))
        return out

    def _steps(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(words, tool, args) of the steps the phone needs, from what it last showed (and, on
        the first round, from what the account side did: a resumed line needs a restart)."""
        rep = self.report
        intents = {r.intent for r in self._device_reqs()}
        steps: list[tuple[str, str, dict[str, Any]]] = []
        first = self.rounds == 0
        if rep.get("airplane_mode") == "on":
            steps.append((self.t("step_airplane"), "set_airplane_mode", {"on": False}))
        if rep.get("mobile_data") == "off":
            steps.append((self.t("step_data"), "set_mobile_data", {"on": True}))
        if "no_data_abroad" in intents and rep.get("data_roaming") == "off":
            steps.append((self.t("step_roaming"), "set_data_roaming", {"on": True}))
        if rep.get("apn") and rep["apn"] != APN and self.pushed:
            steps.append((self.t("step_install"), "install_carrier_settings", {}))
        if self.puk and (first or rep.get("sim") == "PUK locked"):
            steps.append(
                (
                    self.t("step_puk", puk=self.puk),
                    "unlock_sim",
                    {"puk": self.puk, "new_pin": "2580"},
                )
            )
        if self.esim_code and (first or rep.get("sim") == "not detected"):
            steps.append(
                (
                    self.t("step_esim", code=self.esim_code),
                    "add_esim",
                    {"activation_code": self.esim_code},
                )
            )
        if "app_offline" in intents and rep.get("app:Maps") == "not allowed":
            steps.append((self.t("step_app", app="Maps"), "allow_app_mobile_data", {"app": "Maps"}))
        restart = (first and self.resumed) or (
            not steps and rep.get("signal") == "no service" and "airplane_mode" in rep
        )
        if restart:
            steps.append((self.t("step_restart"), "restart_device", {}))
        return steps

    def _phone(self) -> Message:
        if self.awaiting and not self.fresh:
            # The customer answered something else: ask again.
            return self.say(self.awaiting)
        if self.rounds and self._fixed() and "signal" in self.report:
            for r in self._device_reqs():
                r.done = True
            return self.say(self.join([self.t("works_again"), self.t("anything_else")]))
        if self.rounds >= MAX_ROUNDS:
            for r in self._device_reqs():
                r.done = True
            return self.say(self.join([self.t("give_up"), self.t("anything_else")]))
        if self.report.get("apn") and self.report["apn"] != APN and not self.pushed:
            return self.call("push_network_settings", line_id=(self.line or {})["line_id"])
        steps = self._steps()
        known_settings = "airplane_mode" in self.report
        if (not steps and self.rounds and not known_settings) or (
            not steps and self.rounds and known_settings
        ):
            checks = self._checks(full=True)
        else:
            checks = self._checks(full=not steps or self.rounds == 0)
        self.rounds += 1
        self.report, self.fresh = {}, False
        if self.solo:
            calls = [self.call(tool, **args) for _, tool, args in [*steps, *checks]]
            return Message.assistant("", tuple(c for m in calls for c in m.tool_calls))
        what = self.t("and").join(w for w, _, _ in checks)
        if steps:
            text = self.t("do_steps", steps=self.t("then").join(w for w, _, _ in steps), what=what)
        else:
            text = self.t("ask_checks", what=what)
        self.awaiting = text
        return self.say(text)
