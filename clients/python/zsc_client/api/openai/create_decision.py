from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.decision import Decision
from ...models.decision_create_request import DecisionCreateRequest
from ...models.open_ai_error_body import OpenAIErrorBody
from typing import cast



def _get_kwargs(
    *,
    body: DecisionCreateRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/decisions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Decision | OpenAIErrorBody | None:
    if response.status_code == 200:
        response_200 = Decision.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Decision | OpenAIErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DecisionCreateRequest,

) -> Response[Decision | OpenAIErrorBody]:
    """ OpenAI's Decisions API: typed answers (predicate, choice, score) about one input

     `client.decisions.create(...)` of the openai SDK with `base_url=http://HOST:PORT/v1`; answers in
    question order, a question the service cannot answer a `refusal` (docs/decisions.md).

    Args:
        body (DecisionCreateRequest): ``client.decisions.create(...)``'s body. Example: {'input':
            'My card was charged twice for one order', 'model': 'multilingual-e5-small', 'questions':
            [{'choices': [{'description': 'payments, refunds and invoices', 'value': 'billing'},
            {'description': 'delivery and parcels', 'value': 'shipping'}], 'instructions': 'Which team
            should handle this message?', 'name': 'team', 'type': 'choice'}, {'instructions': 'The
            customer was charged twice.', 'name': 'double', 'type': 'predicate'}, {'instructions':
            'How upset is the customer?', 'levels': [{'label': 'calm'}, {'label': 'annoyed'},
            {'label': 'angry'}], 'name': 'anger', 'type': 'score'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | OpenAIErrorBody]
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
    body: DecisionCreateRequest,

) -> Decision | OpenAIErrorBody | None:
    """ OpenAI's Decisions API: typed answers (predicate, choice, score) about one input

     `client.decisions.create(...)` of the openai SDK with `base_url=http://HOST:PORT/v1`; answers in
    question order, a question the service cannot answer a `refusal` (docs/decisions.md).

    Args:
        body (DecisionCreateRequest): ``client.decisions.create(...)``'s body. Example: {'input':
            'My card was charged twice for one order', 'model': 'multilingual-e5-small', 'questions':
            [{'choices': [{'description': 'payments, refunds and invoices', 'value': 'billing'},
            {'description': 'delivery and parcels', 'value': 'shipping'}], 'instructions': 'Which team
            should handle this message?', 'name': 'team', 'type': 'choice'}, {'instructions': 'The
            customer was charged twice.', 'name': 'double', 'type': 'predicate'}, {'instructions':
            'How upset is the customer?', 'levels': [{'label': 'calm'}, {'label': 'annoyed'},
            {'label': 'angry'}], 'name': 'anger', 'type': 'score'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | OpenAIErrorBody
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DecisionCreateRequest,

) -> Response[Decision | OpenAIErrorBody]:
    """ OpenAI's Decisions API: typed answers (predicate, choice, score) about one input

     `client.decisions.create(...)` of the openai SDK with `base_url=http://HOST:PORT/v1`; answers in
    question order, a question the service cannot answer a `refusal` (docs/decisions.md).

    Args:
        body (DecisionCreateRequest): ``client.decisions.create(...)``'s body. Example: {'input':
            'My card was charged twice for one order', 'model': 'multilingual-e5-small', 'questions':
            [{'choices': [{'description': 'payments, refunds and invoices', 'value': 'billing'},
            {'description': 'delivery and parcels', 'value': 'shipping'}], 'instructions': 'Which team
            should handle this message?', 'name': 'team', 'type': 'choice'}, {'instructions': 'The
            customer was charged twice.', 'name': 'double', 'type': 'predicate'}, {'instructions':
            'How upset is the customer?', 'levels': [{'label': 'calm'}, {'label': 'annoyed'},
            {'label': 'angry'}], 'name': 'anger', 'type': 'score'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | OpenAIErrorBody]
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
    body: DecisionCreateRequest,

) -> Decision | OpenAIErrorBody | None:
    """ OpenAI's Decisions API: typed answers (predicate, choice, score) about one input

     `client.decisions.create(...)` of the openai SDK with `base_url=http://HOST:PORT/v1`; answers in
    question order, a question the service cannot answer a `refusal` (docs/decisions.md).

    Args:
        body (DecisionCreateRequest): ``client.decisions.create(...)``'s body. Example: {'input':
            'My card was charged twice for one order', 'model': 'multilingual-e5-small', 'questions':
            [{'choices': [{'description': 'payments, refunds and invoices', 'value': 'billing'},
            {'description': 'delivery and parcels', 'value': 'shipping'}], 'instructions': 'Which team
            should handle this message?', 'name': 'team', 'type': 'choice'}, {'instructions': 'The
            customer was charged twice.', 'name': 'double', 'type': 'predicate'}, {'instructions':
            'How upset is the customer?', 'levels': [{'label': 'calm'}, {'label': 'annoyed'},
            {'label': 'angry'}], 'name': 'anger', 'type': 'score'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | OpenAIErrorBody
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
