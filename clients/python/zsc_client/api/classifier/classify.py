from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.classify_body import ClassifyBody
from ...models.classify_result import ClassifyResult
from ...models.error_body import ErrorBody
from ...models.internal_server_error import InternalServerError
from ...models.invalid_argument import InvalidArgument
from ...models.not_found import NotFound
from typing import cast



def _get_kwargs(
    *,
    body: ClassifyBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/classify",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound | None:
    if response.status_code == 200:
        response_200 = ClassifyResult.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = InvalidArgument.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = NotFound.from_dict(response.json())



        return response_404

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())



        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = InternalServerError.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ClassifyBody,

) -> Response[ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound]:
    """  Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked.

    Args:
        body (ClassifyBody):  Example: {'hypothesis_template': 'This message is about {}.',
            'labels': [{'description': 'payments, refunds and invoices', 'name': 'billing'},
            {'description': ['delivery', 'where a parcel is'], 'name': 'shipping'}, 'praise'], 'text':
            'My card was charged twice for one order', 'threshold': 0.6}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound]
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
    body: ClassifyBody,

) -> ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound | None:
    """  Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked.

    Args:
        body (ClassifyBody):  Example: {'hypothesis_template': 'This message is about {}.',
            'labels': [{'description': 'payments, refunds and invoices', 'name': 'billing'},
            {'description': ['delivery', 'where a parcel is'], 'name': 'shipping'}, 'praise'], 'text':
            'My card was charged twice for one order', 'threshold': 0.6}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ClassifyBody,

) -> Response[ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound]:
    """  Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked.

    Args:
        body (ClassifyBody):  Example: {'hypothesis_template': 'This message is about {}.',
            'labels': [{'description': 'payments, refunds and invoices', 'name': 'billing'},
            {'description': ['delivery', 'where a parcel is'], 'name': 'shipping'}, 'praise'], 'text':
            'My card was charged twice for one order', 'threshold': 0.6}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound]
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
    body: ClassifyBody,

) -> ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound | None:
    """  Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked.

    Args:
        body (ClassifyBody):  Example: {'hypothesis_template': 'This message is about {}.',
            'labels': [{'description': 'payments, refunds and invoices', 'name': 'billing'},
            {'description': ['delivery', 'where a parcel is'], 'name': 'shipping'}, 'praise'], 'text':
            'My card was charged twice for one order', 'threshold': 0.6}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClassifyResult | ErrorBody | InternalServerError | InvalidArgument | NotFound
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
