"""The customer's own phone (Actor.USER): what it can check and change. Docstrings are
written for the model."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from evals.domains.telecom.world import (
    APN,
    TelecomWorld,
    data_works,
    esim_code,
    signal,
)
from evals.engine.errors import ToolError
from evals.engine.tools import Actor, ToolKind, tool


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_status_bar(world: TelecomWorld) -> dict[str, Any]:
    """Look at your phone's status bar: the signal ("4 bars", "no service", "airplane mode",
    "no SIM", "SIM locked"), the network, and whether mobile data works."""
    bars = signal(world)
    abroad = world.device().location == "abroad"
    return {
        "signal": bars,
        "network": ("5G roaming" if abroad else "5G") if bars == "4 bars" else "",
        "mobile_data": "working" if data_works(world) else "not working",
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_network_settings(world: TelecomWorld) -> dict[str, Any]:
    """Open your phone's network settings: airplane mode, mobile data and data roaming (on or
    off), and the access point name (APN)."""
    d = world.device()
    return {
        "airplane_mode": "on" if d.airplane_mode else "off",
        "mobile_data": "on" if d.mobile_data else "off",
        "data_roaming": "on" if d.data_roaming else "off",
        "apn": d.apn,
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_sim(world: TelecomWorld) -> dict[str, Any]:
    """Look at your phone's SIM screen: the SIM status ("ready", "PUK locked", "not
    detected")."""
    d = world.device()
    return {
        "sim_status": {"puk_locked": "PUK locked", "not_detected": "not detected"}.get(
            d.sim_status, d.sim_status
        )
    }


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_app_permissions(world: TelecomWorld, app: str) -> dict[str, Any]:
    """Open an app's settings on your phone: whether it may use mobile data.

    Args:
        app: The app's name, e.g. "Maps".
    """
    known = dict(world.device().app_data)
    if app not in known:
        raise ToolError(f"There is no app called {app!r} on this phone.")
    return {"app": app, "mobile_data": "allowed" if known[app] else "not allowed"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_airplane_mode(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn airplane mode on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), airplane_mode=on))
    return {"airplane_mode": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_mobile_data(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn mobile data on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), mobile_data=on))
    return {"mobile_data": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def set_data_roaming(world: TelecomWorld, on: bool) -> dict[str, Any]:
    """Turn data roaming on or off on your phone.

    Args:
        on: true to turn it on, false to turn it off.
    """
    world.put_device(replace(world.device(), data_roaming=on))
    return {"data_roaming": "on" if on else "off"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def restart_device(world: TelecomWorld) -> dict[str, Any]:
    """Restart your phone; it registers on the network again."""
    world.put_device(replace(world.device(), needs_restart=False))
    return {"restarted": True}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def unlock_sim(world: TelecomWorld, puk: str, new_pin: str) -> dict[str, Any]:
    """Unlock a PUK-locked SIM on your phone with the PUK code and choose a new 4-digit PIN.

    Args:
        puk: The 8-digit PUK code the carrier gave you.
        new_pin: The new PIN you choose, 4 digits.
    """
    d = world.device()
    if d.sim_status != "puk_locked":
        raise ToolError("The SIM is not PUK locked.")
    if not re.fullmatch(r"\d{4}", new_pin.strip()):
        raise ToolError("The new PIN must be 4 digits.")
    line = world.tables["lines"].get(d.line_id)
    if line is None or puk.strip() != line.puk:
        raise ToolError("Wrong PUK code.")
    world.put_device(replace(d, sim_status="ready", pin=new_pin.strip()))
    return {"sim_status": "ready"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def install_carrier_settings(world: TelecomWorld) -> dict[str, Any]:
    """Open the carrier's configuration message on your phone and install the network
    settings it carries (only once the carrier has sent them)."""
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if line is None or not line.settings_pushes:
        raise ToolError("No configuration message from the carrier has arrived.")
    world.put_device(replace(d, apn=APN))
    return {"apn": APN}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def add_esim(world: TelecomWorld, activation_code: str) -> dict[str, Any]:
    """Add an eSIM profile on your phone with the activation code the carrier gave you; it
    replaces the SIM in the phone.

    Args:
        activation_code: The code, e.g. "LPA-1A2B3C4D".
    """
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if line is None or not line.esim or activation_code.strip() != esim_code(line.id, line.iccid):
        raise ToolError("That activation code is not valid.")
    world.put_device(replace(d, sim_status="ready", iccid=line.iccid))
    return {"esim": "added", "sim_status": "ready"}


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def allow_app_mobile_data(world: TelecomWorld, app: str) -> dict[str, Any]:
    """Allow an app on your phone to use mobile data.

    Args:
        app: The app's name, e.g. "Maps".
    """
    d = world.device()
    known = dict(d.app_data)
    if app not in known:
        raise ToolError(f"There is no app called {app!r} on this phone.")
    known[app] = True
    world.put_device(replace(d, app_data=tuple(known.items())))
    return {"app": app, "mobile_data": "allowed"}
