"""The hosted verification page (`/verify/{session}?token=…`): server-rendered HTML, one
external script for uploads (no inline script: the Content-Security-Policy forbids it),
the two small JSON calls that script makes, the forms that add and remove a business's
owners, and the terms of service the page links to.

Every form and call carries the page's CSRF token (`csrf` field, `X-Corridor-CSRF`
header) besides the link's token, and a browser's `Sec-Fetch-Site` must say same-origin."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, Depends, Header, Request, Response
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import Field, StrictInt, StrictStr

from corridor.customers.onboarding import terms_of_service_version
from corridor.customers.schemas.customer import tax_identification_number_last4
from corridor.documents.schemas import DocumentRead
from corridor.documents.service import Rejected
from corridor.documents.storage import DocumentStorage
from corridor.hosted import rules, service
from corridor.hosted.errors import LinkExpired, LinkInvalid
from corridor.kit.errors import CorridorError, CsrfTokenInvalid, NotFound
from corridor.kit.schemas import RequestModel, ResponseModel
from corridor.web.context import Public, PublicContext


def _document_storage(request: Request) -> DocumentStorage:
    """Where documents' bytes are kept (the app's, as the documents API reads it)."""
    storage: DocumentStorage = request.app.state.document_storage
    return storage


Storage = Annotated[DocumentStorage, Depends(_document_storage)]

router = APIRouter(include_in_schema=False)

STATIC_DIRECTORY = Path(__file__).resolve().parent / "static"
STATIC_FILES = {
    "verify.js": "text/javascript",
    "verify.css": "text/css",
    "favicon.svg": "image/svg+xml",
}
TOKEN_HEADER = "X-Verification-Token"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-Corridor-CSRF"
# What a browser's Sec-Fetch-Site may say of a form post or call: the page itself, or typed.
_SAME_ORIGIN = frozenset({"same-origin", "none"})
form_fields_max = 60

_templates = Environment(
    loader=PackageLoader("corridor.hosted", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _security_headers(context: PublicContext) -> dict[str, str]:
    connect = ["'self'"]
    settings = context.settings
    if settings.documents_s3_bucket:
        endpoint = settings.documents_s3_endpoint
        if endpoint:
            parts = urlsplit(endpoint)
            connect.append(f"{parts.scheme}://{parts.netloc}")
        else:
            connect.append("https://*.amazonaws.com")
    policy = (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src {' '.join(connect)}; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        # The link's token is in the URL: never sent on as a referrer, never cached.
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


def _page(context: PublicContext, template: str, *, status: int = 200, **values) -> HTMLResponse:
    body = _templates.get_template(template).render(**values)
    return HTMLResponse(body, status_code=status, headers=_security_headers(context))


def _closed(context: PublicContext, error: CorridorError) -> HTMLResponse:
    expired = isinstance(error, LinkExpired)
    return _page(
        context,
        "message.html",
        status=error.status,
        title="This link has expired" if expired else "This link is not valid",
        message=(
            "Verification links work for a limited time. Ask the company that sent it for a "
            "new one."
            if expired
            else "Check that you opened the whole link you were sent, or ask for a new one."
        ),
    )


def _base_url(context: PublicContext) -> str:
    return context.settings.public_base_url or str(context.request.base_url)


@router.get("/verify/{session_id}", response_class=HTMLResponse)
async def verification_page(session_id: str, context: Public, token: str = "") -> HTMLResponse:
    try:
        opened = await service.open_link(
            context.session, session_id=session_id, token=token, now=context.now()
        )
    except (LinkInvalid, LinkExpired) as error:
        return _closed(context, error)
    return _render(context, opened, token=token)


def _render(
    context: PublicContext,
    opened: service.Opened,
    *,
    token: str,
    errors: list[dict[str, str]] | None = None,
    form: dict[str, str] | None = None,
    owner_errors: list[dict[str, str]] | None = None,
    owner_form: dict[str, str] | None = None,
    owner_roles: list[str] | None = None,
    status: int = 200,
) -> HTMLResponse:
    if opened.completed:
        subject_status = (
            opened.entity.verification_status if opened.entity else opened.customer.status
        )
        return _page(
            context,
            "message.html",
            title="Thank you",
            message=rules.RESULT_WORDS.get(subject_status, "Your details were submitted."),
            organization=opened.organization.name,
        )
    asks = {ask.purpose: ask.label for ask in opened.asks}
    questions = {
        rules.rfi_field(question["path"]): question["label"]
        for step in opened.rfi_steps
        for question in step["fields"]
    }
    return _page(
        context,
        "verify.html",
        status=status,
        opened=opened,
        token=token,
        csrf=service.csrf_token(token, opened.verification_session.id),
        summary=_summary(errors or [], asks, "field-", questions),
        field_errors=rules.field_errors(errors or []),
        form=form if form is not None else _defaults(opened),
        owner_summary=_summary(owner_errors or [], {}, "owner-", {}),
        owner_errors=rules.field_errors(owner_errors or []),
        owner_form=owner_form or {},
        owner_roles=owner_roles or [],
        step_titles=rules.STEP_TITLES,
        requirements=opened.requirements,
        uploaded=opened.uploaded,
        sandbox=context.settings.is_sandbox,
        outcomes=rules.SANDBOX_OUTCOMES,
        entity_outcomes={"ACTIVE": "Verify", "REJECTED": "Reject"},
        roles=rules.ROLE_WORDS,
        terms_field=rules.TERMS_FIELD,
        terms_path=rules.TERMS_PATH,
        subject_name=_subject_name(opened),
        tax_on_file=_tax_on_file(opened),
        rfi_steps=opened.rfi_steps,
        rfi_field=rules.rfi_field,
        rfi_checkboxes=rules.RFI_CHECKBOXES,
    )


def _tax_on_file(opened: service.Opened) -> str | None:
    """The last four characters of the tax id already on file (the page never shows more,
    and then asks for it only to change it)."""
    if opened.entity is not None:
        known = (opened.entity.details or {}).get("taxIdentificationNumber")
    else:
        known = opened.customer.tax_identification_number
    return tax_identification_number_last4(known)


def _summary(
    problems: list[dict[str, str]], asks: dict[str, str], prefix: str, labels: dict[str, str]
) -> list[dict[str, str]]:
    """The problems as the box at the top lists them: each names its field and links to it."""
    listed = []
    for problem in problems:
        name = rules.form_field(problem.get("field", "form"))
        if name in asks:
            label, anchor = asks[name], f"file-{name}"
        elif name == "owners":
            label, anchor = rules.FIELD_LABELS[name], "owners"
        elif name in labels:
            label, anchor = labels[name], f"{prefix}{name}"
        else:
            label, anchor = rules.FIELD_LABELS.get(name, name), f"{prefix}{name}"
        listed.append(
            {"anchor": anchor, "label": label, "message": rules.readable(problem["message"])}
        )
    return listed


def _defaults(opened: service.Opened) -> dict[str, str]:
    """What the form shows before anything is typed: what is known already (never the tax
    identification number)."""
    if opened.entity is not None:
        known = dict(opened.entity.details or {})
    else:
        customer = opened.customer
        known = {
            "dateOfBirth": customer.date_of_birth,
            "nationality": customer.nationality,
            "registrationNumber": customer.registration_number,
            "incorporationCountry": customer.incorporation_country,
            "address": customer.address,
        }
    address = known.pop("address", None) or {}
    values = {name: value for name, value in {**known, **address}.items() if value}
    saved = opened.rfi.answers if opened.rfi else {}
    for section, answers in (saved or {}).items():
        for name, value in answers.items():
            values[rules.rfi_field(f"{section}.{name}")] = "yes" if value is True else value
    return {
        name: str(value)
        for name, value in values.items()
        if isinstance(value, str) and name != "taxIdentificationNumber"
    }


def _subject_name(opened: service.Opened) -> str:
    if opened.entity is not None:
        details = opened.entity.details or {}
        name = " ".join(
            part for part in (details.get("firstName"), details.get("lastName")) if part
        )
        return name or details.get("legalName") or "you"
    return opened.customer.name


class _Unreadable(Exception):
    """A form with more fields than any of the page's forms has."""


async def _read_form(request: Request) -> tuple[dict[str, str], list[str]]:
    """The posted form, and its `roles` (the one field sent several times)."""
    try:
        pairs = parse_qsl(
            (await request.body()).decode("utf-8", "replace"), max_num_fields=form_fields_max
        )
    except ValueError:
        raise _Unreadable() from None
    return dict(pairs), [value for name, value in pairs if name == "roles"]


def _unreadable(context: PublicContext) -> HTMLResponse:
    return _page(
        context,
        "message.html",
        status=400,
        title="This form could not be read",
        message="It sent more fields than the page has. Open your link again and resubmit.",
    )


def _forged(context: PublicContext, sent: str | None, token: str, session_id: str) -> bool:
    site = context.request.headers.get("sec-fetch-site")
    if site is not None and site not in _SAME_ORIGIN:
        return True
    return not service.same_csrf_token(sent, token, session_id)


def _refused(context: PublicContext) -> HTMLResponse:
    return _page(
        context,
        "message.html",
        status=403,
        title="This form could not be accepted",
        message="It was not sent from this verification page. Open your link again and resubmit.",
    )


async def _open_form(
    context: PublicContext, session_id: str, form: dict[str, str]
) -> service.Opened | HTMLResponse:
    """The session a form post names, locked, if its link token and CSRF token are right;
    otherwise the page to answer with."""
    token = form.get("token", "")
    try:
        opened = await service.open_link(
            context.session, session_id=session_id, token=token, now=context.now(), locked=True
        )
    except (LinkInvalid, LinkExpired) as error:
        return _closed(context, error)
    if _forged(context, form.get(CSRF_FIELD), token, session_id):
        return _refused(context)
    return opened


@router.post("/verify/{session_id}", response_class=HTMLResponse)
async def submit_verification(session_id: str, request: Request, context: Public) -> Response:
    try:
        form, _ = await _read_form(request)
    except _Unreadable:
        return _unreadable(context)
    opened = await _open_form(context, session_id, form)
    if isinstance(opened, HTMLResponse):
        return opened
    token = form.get("token", "")
    if opened.completed:
        # Sent twice (a double click, the back button): the first submit stands.
        return _see_page(context, session_id, token)
    client = request.client
    try:
        await service.submit(
            context.session,
            opened=opened,
            form=form,
            requester=service.Requester(
                ip_address=client.host if client else None,
                user_agent=request.headers.get("user-agent"),
            ),
            sandbox=context.settings.is_sandbox,
            now=context.now(),
        )
    except CorridorError as error:
        return await _again(context, session_id, token, error, form=form)
    return _see_page(context, session_id, token)


async def _again(
    context: PublicContext,
    session_id: str,
    token: str,
    error: CorridorError,
    *,
    form: dict[str, str] | None = None,
    owner_form: dict[str, str] | None = None,
    owner_roles: list[str] | None = None,
) -> HTMLResponse:
    """Nothing saved; the page again with the problems and what was typed."""
    await context.session.rollback()
    reopened = await service.open_link(
        context.session, session_id=session_id, token=token, now=context.now()
    )
    problems = error.errors or [{"field": "form", "message": error.message}]
    if owner_form is None or reopened.kind != "BUSINESS":
        # Only a business's page has the owners' form to show the problems beside.
        return _render(context, reopened, token=token, errors=problems, form=form, status=422)
    return _render(
        context,
        reopened,
        token=token,
        owner_errors=problems,
        owner_form=owner_form,
        owner_roles=owner_roles,
        status=422,
    )


@router.post("/verify/{session_id}/owners", response_class=HTMLResponse)
async def add_owner(session_id: str, request: Request, context: Public) -> Response:
    try:
        form, roles = await _read_form(request)
    except _Unreadable:
        return _unreadable(context)
    opened = await _open_form(context, session_id, form)
    if isinstance(opened, HTMLResponse):
        return opened
    token = form.get("token", "")
    try:
        await service.add_owner(
            context.session,
            opened=opened,
            form=form,
            roles=roles,
            sandbox=context.settings.is_sandbox,
            now=context.now(),
        )
    except CorridorError as error:
        return await _again(context, session_id, token, error, owner_form=form, owner_roles=roles)
    return _see_page(context, session_id, token, anchor="owners")


@router.post("/verify/{session_id}/owners/{entity_id}/remove", response_class=HTMLResponse)
async def remove_owner(
    session_id: str, entity_id: str, request: Request, context: Public
) -> Response:
    try:
        form, _ = await _read_form(request)
    except _Unreadable:
        return _unreadable(context)
    opened = await _open_form(context, session_id, form)
    if isinstance(opened, HTMLResponse):
        return opened
    token = form.get("token", "")
    try:
        await service.remove_owner(
            context.session,
            opened=opened,
            entity_id=entity_id,
            sandbox=context.settings.is_sandbox,
        )
    except CorridorError as error:
        return await _again(context, session_id, token, error, owner_form={}, owner_roles=[])
    return _see_page(context, session_id, token, anchor="owners")


def _see_page(context: PublicContext, session_id: str, token: str, anchor: str = "") -> Response:
    location = f"/verify/{session_id}?{urlencode({'token': token})}"
    if anchor:
        location += f"#{anchor}"
    return Response(status_code=303, headers={**_security_headers(context), "Location": location})


@router.get("/hosted/terms-of-service", response_class=HTMLResponse)
async def terms_of_service(context: Public) -> HTMLResponse:
    """The terms the page's checkbox links to (their version is recorded on acceptance)."""
    return _page(context, "terms.html", version=terms_of_service_version)


# --- The upload script's calls ------------------------------------------------------------


class PageUploadRequest(RequestModel):
    purpose: Annotated[StrictStr, Field(max_length=40)]
    file_name: Annotated[StrictStr, Field(min_length=1, max_length=255)]
    content_type: Annotated[StrictStr, Field(max_length=100)]
    size: StrictInt


class PageUploadTarget(ResponseModel):
    document_id: str
    upload_url: str
    upload_headers: dict[str, str]


async def _opened(
    session_id: str,
    context: Public,
    token: Annotated[str, Header(alias=TOKEN_HEADER)] = "",
    csrf: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> service.Opened:
    opened = await service.open_link(
        context.session, session_id=session_id, token=token, now=context.now()
    )
    if _forged(context, csrf, token, session_id):
        raise CsrfTokenInvalid(
            f"Send the page's CSRF token in the {CSRF_HEADER} header, from the page itself"
        )
    return opened


Opened = Annotated[service.Opened, Depends(_opened)]


@router.post("/verify/{session_id}/uploads", status_code=201)
async def request_page_upload(
    body: PageUploadRequest, context: Public, opened: Opened, storage: Storage
) -> Response:
    requested = await service.request_upload(
        context.session,
        opened=opened,
        purpose=body.purpose,
        file_name=body.file_name,
        content_type=body.content_type,
        size=body.size,
        storage=storage,
        base_url=_base_url(context),
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    return await context.respond(
        PageUploadTarget(
            document_id=requested.document.id,
            upload_url=requested.target.url,
            upload_headers=requested.target.headers,
        ),
        status=201,
    )


@router.post("/verify/{session_id}/uploads/{document_id}/confirm")
async def confirm_page_upload(
    document_id: str, context: Public, opened: Opened, storage: Storage
) -> Response:
    confirmed = await service.confirm_upload(
        context.session,
        opened=opened,
        document_id=document_id,
        storage=storage,
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    if isinstance(confirmed, Rejected):
        return await context.refuse(confirmed.error)
    return await context.respond(DocumentRead.of(confirmed))


@router.get("/hosted/static/{name}")
async def static_file(name: str) -> Response:
    if name not in STATIC_FILES:
        raise NotFound("file", name)
    return Response(
        (STATIC_DIRECTORY / name).read_bytes(),
        media_type=STATIC_FILES[name],
        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=300"},
    )
