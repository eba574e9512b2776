from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_results_format import check_job_results_format
from ...models.job_results_format import JobResultsFormat
from ...models.job_results_page import JobResultsPage
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    job_id: str,
    *,
    offset: int | Unset = 0,
    limit: int | Unset = 1000,
    format_: JobResultsFormat | Unset = 'json',

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["offset"] = offset

    params["limit"] = limit

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_

    params["format"] = json_format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs/{job_id}/results".format(job_id=quote(str(job_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobResultsPage | None:
    if response.status_code == 200:
        response_200 = JobResultsPage.from_dict(response.json())



        return response_200

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobResultsPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    offset: int | Unset = 0,
    limit: int | Unset = 1000,
    format_: JobResultsFormat | Unset = 'json',

) -> Response[ErrorBody | JobResultsPage]:
    """ A page of a job's finished items in order (?format=jsonl streams them all as JSON lines)

    Args:
        job_id (str):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        format_ (JobResultsFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobResultsPage]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
offset=offset,
limit=limit,
format_=format_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    offset: int | Unset = 0,
    limit: int | Unset = 1000,
    format_: JobResultsFormat | Unset = 'json',

) -> ErrorBody | JobResultsPage | None:
    """ A page of a job's finished items in order (?format=jsonl streams them all as JSON lines)

    Args:
        job_id (str):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        format_ (JobResultsFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobResultsPage
     """


    return sync_detailed(
        job_id=job_id,
client=client,
offset=offset,
limit=limit,
format_=format_,

    ).parsed

async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    offset: int | Unset = 0,
    limit: int | Unset = 1000,
    format_: JobResultsFormat | Unset = 'json',

) -> Response[ErrorBody | JobResultsPage]:
    """ A page of a job's finished items in order (?format=jsonl streams them all as JSON lines)

    Args:
        job_id (str):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        format_ (JobResultsFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobResultsPage]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
offset=offset,
limit=limit,
format_=format_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    offset: int | Unset = 0,
    limit: int | Unset = 1000,
    format_: JobResultsFormat | Unset = 'json',

) -> ErrorBody | JobResultsPage | None:
    """ A page of a job's finished items in order (?format=jsonl streams them all as JSON lines)

    Args:
        job_id (str):
        offset (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        format_ (JobResultsFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobResultsPage
     """


    return (await asyncio_detailed(
        job_id=job_id,
client=client,
offset=offset,
limit=limit,
format_=format_,

    )).parsed
