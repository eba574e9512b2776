from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.model_object import ModelObject
from ...models.open_ai_error_body import OpenAIErrorBody
from typing import cast



def _get_kwargs(
    model_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/models/{model_id}".format(model_id=quote(str(model_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ModelObject | OpenAIErrorBody | None:
    if response.status_code == 200:
        response_200 = ModelObject.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = OpenAIErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = OpenAIErrorBody.from_dict(response.json())



        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ModelObject | OpenAIErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    model_id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ModelObject | OpenAIErrorBody]:
    """ One model by name, tag or alias

    Args:
        model_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ModelObject | OpenAIErrorBody]
     """


    kwargs = _get_kwargs(
        model_id=model_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    model_id: str,
    *,
    client: AuthenticatedClient | Client,

) -> ModelObject | OpenAIErrorBody | None:
    """ One model by name, tag or alias

    Args:
        model_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ModelObject | OpenAIErrorBody
     """


    return sync_detailed(
        model_id=model_id,
client=client,

    ).parsed

async def asyncio_detailed(
    model_id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[ModelObject | OpenAIErrorBody]:
    """ One model by name, tag or alias

    Args:
        model_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ModelObject | OpenAIErrorBody]
     """


    kwargs = _get_kwargs(
        model_id=model_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    model_id: str,
    *,
    client: AuthenticatedClient | Client,

) -> ModelObject | OpenAIErrorBody | None:
    """ One model by name, tag or alias

    Args:
        model_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ModelObject | OpenAIErrorBody
     """


    return (await asyncio_detailed(
        model_id=model_id,
client=client,

    )).parsed
