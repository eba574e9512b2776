from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.model_directory import ModelDirectory
from ...models.open_ai_error_body import OpenAIErrorBody
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/models",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ModelDirectory | OpenAIErrorBody | None:
    if response.status_code == 200:
        response_200 = ModelDirectory.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = OpenAIErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 408:
        response_408 = OpenAIErrorBody.from_dict(response.json())



        return response_408

    if response.status_code == 429:
        response_429 = OpenAIErrorBody.from_dict(response.json())



        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ModelDirectory | OpenAIErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[ModelDirectory | OpenAIErrorBody]:
    """ The served models and their aliases (ZSC_MODEL_ALIASES), as OpenAI's SDK (`data`) and TypeSafe's
    (`models`) list models

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ModelDirectory | OpenAIErrorBody]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,

) -> ModelDirectory | OpenAIErrorBody | None:
    """ The served models and their aliases (ZSC_MODEL_ALIASES), as OpenAI's SDK (`data`) and TypeSafe's
    (`models`) list models

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ModelDirectory | OpenAIErrorBody
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[ModelDirectory | OpenAIErrorBody]:
    """ The served models and their aliases (ZSC_MODEL_ALIASES), as OpenAI's SDK (`data`) and TypeSafe's
    (`models`) list models

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ModelDirectory | OpenAIErrorBody]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,

) -> ModelDirectory | OpenAIErrorBody | None:
    """ The served models and their aliases (ZSC_MODEL_ALIASES), as OpenAI's SDK (`data`) and TypeSafe's
    (`models`) list models

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ModelDirectory | OpenAIErrorBody
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
