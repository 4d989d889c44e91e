"""The hosted verification page (`/verify/{session}?token=…`): server-rendered HTML, one
external script for uploads (no inline script: the Content-Security-Policy forbids it),
and the two small JSON calls that script makes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, Depends, Header, Request, Response
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import Field, StrictInt, StrictStr

from corridor.documents.endpoints import Storage
from corridor.documents.schemas import DocumentRead
from corridor.documents.service import Rejected
from corridor.hosted import rules, service
from corridor.hosted.errors import LinkExpired, LinkInvalid
from corridor.kit.errors import CorridorError, NotFound
from corridor.kit.schemas import RequestModel, ResponseModel
from corridor.web.context import Public, PublicContext

router = APIRouter(include_in_schema=False)

STATIC_DIRECTORY = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"verify.js": "text/javascript", "verify.css": "text/css"}
TOKEN_HEADER = "X-Verification-Token"
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
    satisfied = {requirement.code: requirement.satisfied for requirement in opened.requirements}
    return _page(
        context,
        "verify.html",
        status=status,
        opened=opened,
        token=token,
        errors=errors or [],
        form=form or {},
        step_titles=rules.STEP_TITLES,
        satisfied=satisfied,
        uploaded=opened.uploaded,
        sandbox=context.settings.is_sandbox,
        outcomes=rules.SANDBOX_OUTCOMES,
        entity_outcomes={"ACTIVE": "Verify", "REJECTED": "Reject"},
        subject_name=_subject_name(opened),
    )


def _subject_name(opened: service.Opened) -> str:
    if opened.entity is not None:
        details = opened.entity.details or {}
        name = " ".join(
            part for part in (details.get("firstName"), details.get("lastName")) if part
        )
        return name or details.get("legalName") or "you"
    return opened.customer.name


@router.post("/verify/{session_id}", response_class=HTMLResponse)
async def submit_verification(session_id: str, request: Request, context: Public) -> Response:
    form = dict(
        parse_qsl((await request.body()).decode("utf-8", "replace"), max_num_fields=form_fields_max)
    )
    token = form.get("token", "")
    try:
        opened = await service.open_link(
            context.session, session_id=session_id, token=token, now=context.now(), locked=True
        )
    except (LinkInvalid, LinkExpired) as error:
        return _closed(context, error)
    if opened.completed:
        # Sent twice (a double click, the back button): the first submit stands.
        return _see_result(context, session_id, token)
    try:
        await service.submit(
            context.session,
            opened=opened,
            form=form,
            sandbox=context.settings.is_sandbox,
            now=context.now(),
        )
    except CorridorError as error:
        await context.session.rollback()
        reopened = await service.open_link(
            context.session, session_id=session_id, token=token, now=context.now()
        )
        problems = error.errors or [{"field": "form", "message": error.message}]
        return _render(context, reopened, token=token, errors=problems, form=form, status=422)
    await context.session.commit()
    return _see_result(context, session_id, token)


def _see_result(context: PublicContext, session_id: str, token: str) -> Response:
    location = f"/verify/{session_id}?{urlencode({'token': token})}"
    return Response(status_code=303, headers={**_security_headers(context), "Location": location})


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
) -> service.Opened:
    return await service.open_link(
        context.session, session_id=session_id, token=token, now=context.now()
    )


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
        await context.session.commit()
        raise confirmed.error
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
