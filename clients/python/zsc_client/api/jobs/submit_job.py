from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_status import JobStatus
from ...models.job_submission import JobSubmission
from typing import cast



def _get_kwargs(
    *,
    body: JobSubmission,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/jobs",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobStatus | None:
    if response.status_code == 202:
        response_202 = JobStatus.from_dict(response.json())



        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())



        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobStatus]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: JobSubmission,

) -> Response[ErrorBody | JobStatus]:
    """ Classify many items in the background; poll the answer's id

     Items to classify in the background: `items` (classify bodies, or bare texts) and/or `texts`, with
    any other /classify field as a default for every item (an item's own fields win). A JSON-lines or
    CSV file can be posted instead: multipart `file` with these fields as form fields, or the file as
    the body (application/x-ndjson, text/csv) with them as query parameters.

    Args:
        body (JobSubmission): Items to classify in the background: `items` (classify bodies, or
            bare texts) and/or `texts`, with any other /classify field as a default for every item (an
            item's own fields win). A JSON-lines or CSV file can be posted instead: multipart `file`
            with these fields as form fields, or the file as the body (application/x-ndjson, text/csv)
            with them as query parameters.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobStatus]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: JobSubmission,

) -> ErrorBody | JobStatus | None:
    """ Classify many items in the background; poll the answer's id

     Items to classify in the background: `items` (classify bodies, or bare texts) and/or `texts`, with
    any other /classify field as a default for every item (an item's own fields win). A JSON-lines or
    CSV file can be posted instead: multipart `file` with these fields as form fields, or the file as
    the body (application/x-ndjson, text/csv) with them as query parameters.

    Args:
        body (JobSubmission): Items to classify in the background: `items` (classify bodies, or
            bare texts) and/or `texts`, with any other /classify field as a default for every item (an
            item's own fields win). A JSON-lines or CSV file can be posted instead: multipart `file`
            with these fields as form fields, or the file as the body (application/x-ndjson, text/csv)
            with them as query parameters.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobStatus
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: JobSubmission,

) -> Response[ErrorBody | JobStatus]:
    """ Classify many items in the background; poll the answer's id

     Items to classify in the background: `items` (classify bodies, or bare texts) and/or `texts`, with
    any other /classify field as a default for every item (an item's own fields win). A JSON-lines or
    CSV file can be posted instead: multipart `file` with these fields as form fields, or the file as
    the body (application/x-ndjson, text/csv) with them as query parameters.

    Args:
        body (JobSubmission): Items to classify in the background: `items` (classify bodies, or
            bare texts) and/or `texts`, with any other /classify field as a default for every item (an
            item's own fields win). A JSON-lines or CSV file can be posted instead: multipart `file`
            with these fields as form fields, or the file as the body (application/x-ndjson, text/csv)
            with them as query parameters.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobStatus]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: JobSubmission,

) -> ErrorBody | JobStatus | None:
    """ Classify many items in the background; poll the answer's id

     Items to classify in the background: `items` (classify bodies, or bare texts) and/or `texts`, with
    any other /classify field as a default for every item (an item's own fields win). A JSON-lines or
    CSV file can be posted instead: multipart `file` with these fields as form fields, or the file as
    the body (application/x-ndjson, text/csv) with them as query parameters.

    Args:
        body (JobSubmission): Items to classify in the background: `items` (classify bodies, or
            bare texts) and/or `texts`, with any other /classify field as a default for every item (an
            item's own fields win). A JSON-lines or CSV file can be posted instead: multipart `file`
            with these fields as form fields, or the file as the body (application/x-ndjson, text/csv)
            with them as query parameters.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobStatus
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
