from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.open_ai_error_body import OpenAIErrorBody
from ...models.system_one_request import SystemOneRequest
from ...models.system_one_response import SystemOneResponse
from typing import cast



def _get_kwargs(
    *,
    body: SystemOneRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/systemone",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> OpenAIErrorBody | SystemOneResponse | None:
    if response.status_code == 200:
        response_200 = SystemOneResponse.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = OpenAIErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = OpenAIErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = OpenAIErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 408:
        response_408 = OpenAIErrorBody.from_dict(response.json())



        return response_408

    if response.status_code == 413:
        response_413 = OpenAIErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = OpenAIErrorBody.from_dict(response.json())



        return response_415

    if response.status_code == 429:
        response_429 = OpenAIErrorBody.from_dict(response.json())



        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[OpenAIErrorBody | SystemOneResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SystemOneRequest,

) -> Response[OpenAIErrorBody | SystemOneResponse]:
    """ The System One API (TypeSafe's shape): named noul, choice and score questions about a state

     `client.system_one(state=..., questions=...)` of `typesafe-sdk` with `base_url=http://HOST:PORT`;
    answers keyed by the questions' names (docs/decisions.md).

    Args:
        body (SystemOneRequest): ``client.system_one(state=..., questions=..., model=...)``'s
            body. Example: {'model': 'multilingual-e5-small', 'questions': {'billing':
            {'instructions': 'The message is about billing.', 'type': 'noul'}, 'tone': {'criteria':
            {'angry': 'upset or hostile', 'calm': None}, 'instructions': 'What is the tone of this
            message?', 'type': 'choice'}, 'urgency': {'criteria': ['Can wait', 'Needs attention this
            week', 'Urgent'], 'type': 'score'}}, 'state': 'I was charged twice for one order. Please
            help.'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAIErrorBody | SystemOneResponse]
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
    body: SystemOneRequest,

) -> OpenAIErrorBody | SystemOneResponse | None:
    """ The System One API (TypeSafe's shape): named noul, choice and score questions about a state

     `client.system_one(state=..., questions=...)` of `typesafe-sdk` with `base_url=http://HOST:PORT`;
    answers keyed by the questions' names (docs/decisions.md).

    Args:
        body (SystemOneRequest): ``client.system_one(state=..., questions=..., model=...)``'s
            body. Example: {'model': 'multilingual-e5-small', 'questions': {'billing':
            {'instructions': 'The message is about billing.', 'type': 'noul'}, 'tone': {'criteria':
            {'angry': 'upset or hostile', 'calm': None}, 'instructions': 'What is the tone of this
            message?', 'type': 'choice'}, 'urgency': {'criteria': ['Can wait', 'Needs attention this
            week', 'Urgent'], 'type': 'score'}}, 'state': 'I was charged twice for one order. Please
            help.'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAIErrorBody | SystemOneResponse
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SystemOneRequest,

) -> Response[OpenAIErrorBody | SystemOneResponse]:
    """ The System One API (TypeSafe's shape): named noul, choice and score questions about a state

     `client.system_one(state=..., questions=...)` of `typesafe-sdk` with `base_url=http://HOST:PORT`;
    answers keyed by the questions' names (docs/decisions.md).

    Args:
        body (SystemOneRequest): ``client.system_one(state=..., questions=..., model=...)``'s
            body. Example: {'model': 'multilingual-e5-small', 'questions': {'billing':
            {'instructions': 'The message is about billing.', 'type': 'noul'}, 'tone': {'criteria':
            {'angry': 'upset or hostile', 'calm': None}, 'instructions': 'What is the tone of this
            message?', 'type': 'choice'}, 'urgency': {'criteria': ['Can wait', 'Needs attention this
            week', 'Urgent'], 'type': 'score'}}, 'state': 'I was charged twice for one order. Please
            help.'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenAIErrorBody | SystemOneResponse]
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
    body: SystemOneRequest,

) -> OpenAIErrorBody | SystemOneResponse | None:
    """ The System One API (TypeSafe's shape): named noul, choice and score questions about a state

     `client.system_one(state=..., questions=...)` of `typesafe-sdk` with `base_url=http://HOST:PORT`;
    answers keyed by the questions' names (docs/decisions.md).

    Args:
        body (SystemOneRequest): ``client.system_one(state=..., questions=..., model=...)``'s
            body. Example: {'model': 'multilingual-e5-small', 'questions': {'billing':
            {'instructions': 'The message is about billing.', 'type': 'noul'}, 'tone': {'criteria':
            {'angry': 'upset or hostile', 'calm': None}, 'instructions': 'What is the tone of this
            message?', 'type': 'choice'}, 'urgency': {'criteria': ['Can wait', 'Needs attention this
            week', 'Urgent'], 'type': 'score'}}, 'state': 'I was charged twice for one order. Please
            help.'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenAIErrorBody | SystemOneResponse
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
