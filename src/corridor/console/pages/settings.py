"""Organization settings: its name and every field `PATCH
/v1/organizations/current/configuration` changes (the currencies balance accounts open in,
the authorization threshold, the default developer fee, webhook history, the reporting
currency, requests per second per key), in one form whose refusals are shown next to the
field they concern. The same service functions as the REST endpoints
(`organizations.service`)."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import Response
from pydantic import BaseModel, ValidationError

from corridor.console.forms import problems_by_field
from corridor.console.layout import notice, page
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import CorridorError
from corridor.kit.money import (
    CURRENCIES,
    CurrencyKind,
    MoneyError,
    from_decimal_string,
    to_decimal_string,
)
from corridor.kit.money import currency as currency_of
from corridor.organizations import service as organizations
from corridor.organizations.configuration import Configuration
from corridor.organizations.schemas import ConfigurationUpdate, OrganizationUpdate

router = console_router()
Model = TypeVar("Model", bound=BaseModel)

# A checkbox per currency: `currency-<code>` (a console form keeps one value per name).
CURRENCY_FIELD_PREFIX = "currency-"
PERCENT = 100

SAVED = notice("settings-saved", "Settings saved: they apply from the next request.")


def _values_of(name: str, configuration: Configuration) -> dict[str, Any]:
    """The form's fields as the current settings fill them."""
    threshold = configuration.transfer_authorization_threshold
    fee = configuration.default_developer_fee
    return {
        "name": name,
        "accountCurrencies": list(configuration.account_currencies),
        "thresholdCurrency": threshold.currency if threshold else "USD",
        "thresholdAmount": (
            _decimal(threshold.minor_units, threshold.currency) if threshold else ""
        ),
        "feeFixed": str(fee.fixed_minor_units) if fee else "",
        "feePercent": f"{fee.percent * PERCENT:g}" if fee else "",
        "webhookHistoryEnabled": configuration.webhook_history_enabled,
        "reportingCurrency": configuration.reporting_currency,
        "requestsPerSecondPerKey": (
            str(configuration.requests_per_second_per_key)
            if configuration.requests_per_second_per_key is not None
            else ""
        ),
    }


def _decimal(minor_units: int, code: str) -> str:
    return to_decimal_string(minor_units, currency_of(code).exponent)


def _values_sent(form: dict[str, str], current: Configuration) -> dict[str, Any]:
    chosen = {
        name.removeprefix(CURRENCY_FIELD_PREFIX)
        for name, value in form.items()
        if name.startswith(CURRENCY_FIELD_PREFIX) and value == "yes"
    }
    # Currencies already chosen keep their order; new ones follow in the list's order.
    ordered = [code for code in current.account_currencies if code in chosen]
    ordered += [code for code in CURRENCIES if code in chosen and code not in ordered]
    return {
        "name": form.get("name", "").strip(),
        "accountCurrencies": ordered,
        "thresholdCurrency": form.get("thresholdCurrency", ""),
        "thresholdAmount": form.get("thresholdAmount", "").strip().replace(",", ""),
        "feeFixed": form.get("feeFixed", "").strip(),
        "feePercent": form.get("feePercent", "").strip(),
        "webhookHistoryEnabled": form.get("webhookHistoryEnabled") == "yes",
        "reportingCurrency": form.get("reportingCurrency", ""),
        "requestsPerSecondPerKey": form.get("requestsPerSecondPerKey", "").strip(),
    }


def _update_of(values: dict[str, Any], problems: dict[str, str]) -> dict[str, Any]:
    """The configuration update the form asks for, in the API's shape; what cannot be read
    as one goes into `problems` under the form's field."""
    threshold: dict[str, str] | None = None
    if values["thresholdAmount"]:
        try:
            minor = from_decimal_string(
                values["thresholdAmount"], currency_of(values["thresholdCurrency"]).exponent
            )
            if minor < 0:
                raise MoneyError("must not be negative")
            threshold = {"currency": values["thresholdCurrency"], "value": str(minor)}
        except MoneyError as error:
            problems["transferAuthorizationThreshold"] = str(error)
    fee: dict[str, Any] | None = None
    if values["feeFixed"] or values["feePercent"]:
        try:
            fee = {
                "fixed": values["feeFixed"] or "0",
                "percent": float(values["feePercent"] or "0") / PERCENT,
            }
        except ValueError:
            problems["defaultDeveloperFee"] = "the percentage must be a number, e.g. 0.5"
    rate = values["requestsPerSecondPerKey"]
    if rate and not rate.isdigit():
        problems["requestsPerSecondPerKey"] = "must be a whole number"
    return {
        "accountCurrencies": values["accountCurrencies"],
        "transferAuthorizationThreshold": threshold,
        "defaultDeveloperFee": fee,
        "webhookHistoryEnabled": values["webhookHistoryEnabled"],
        "reportingCurrency": values["reportingCurrency"],
        "requestsPerSecondPerKey": int(rate) if rate.isdigit() else None,
    }


def _parsed(model: type[Model], values: dict[str, Any], problems: dict[str, str]) -> Model | None:
    """`values` read by the API's request model; every field is sent, so an empty one
    clears a nullable setting as null does in the API."""
    try:
        return model.model_validate(values)
    except ValidationError as error:
        for problem in error.errors():
            field = str(problem["loc"][0]) if problem["loc"] else "form"
            problems.setdefault(field, problem["msg"].removeprefix("Value error, "))
        return None


async def _settings_page(
    console: Console,
    *,
    values: dict[str, Any] | None = None,
    problems: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    organization = await organizations.current_organization(console.session, caller=console.caller)
    configuration = await organizations.current_configuration(
        console.session, caller=console.caller
    )
    return page(
        console,
        "settings/form.html",
        status=status,
        organization=organization,
        values=values or _values_of(organization.name, configuration),
        problems=problems or {},
        currencies=list(CURRENCIES.values()),
        fiat=[code for code, found in CURRENCIES.items() if found.kind is CurrencyKind.FIAT],
        currency_prefix=CURRENCY_FIELD_PREFIX,
    )


@router.get("/settings")
async def settings_page(console: ConsolePage) -> Response:
    return await _settings_page(console)


@router.post("/settings")
async def save_settings(console: ConsolePage) -> Response:
    current = await organizations.current_configuration(console.session, caller=console.caller)
    values = _values_sent(console.form, current)
    problems: dict[str, str] = {}
    rename = _parsed(OrganizationUpdate, {"name": values["name"]}, problems)
    update = _parsed(ConfigurationUpdate, _update_of(values, problems), problems)
    if not problems and rename is not None and update is not None:
        try:
            await organizations.update_organization(
                console.session, caller=console.caller, name=rename.name, now=console.now()
            )
            await organizations.update_configuration(
                console.session, caller=console.caller, changes=update.changes(), now=console.now()
            )
        except CorridorError as error:
            if error.status != 422:
                raise
            await console.session.rollback()
            problems = problems_by_field(error)
    if problems or rename is None or update is None:
        return await _settings_page(console, values=values, problems=problems, status=422)
    await console.commit()
    console.request.app.state.rate_limiter.forget(console.caller.organization_id)
    return redirect(console.request, f"/console/settings?done={SAVED}")
